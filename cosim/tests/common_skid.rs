//! Co-simulation of `rtl/common/common_skid.sv` (one-entry skid buffer, registered ready)
//! against a reference written from its contract (docs/rtl/fmax-log.md, "Session 14"):
//! - every word offered is delivered once, in order (no loss, duplication or reordering);
//! - `s_ready_o` is a register: it is low exactly while a word waits in the buffer, and it does
//!   not follow `m_ready_i` combinationally in the same cycle;
//! - while the buffer is empty the input falls through in the same cycle (no added latency).
//!
//! Random producer/consumer rates in phases (idle, bursts, stalls), 20,000 cycles.
#![allow(clippy::unwrap_used)]

use std::collections::VecDeque;

use rocesec_cosim::rtl::{seed, Port, Sim, SplitMix64, Top};

struct Skid {
    sim: Sim,
    s_valid: Port,
    s_ready: Port,
    s_data: Port,
    m_valid: Port,
    m_ready: Port,
    m_data: Port,
}

impl Skid {
    fn new() -> Self {
        let sim = Sim::new(Top::CommonSkid);
        let mut s = Self {
            s_valid: sim.pin("s_valid_i"),
            s_ready: sim.pin("s_ready_o"),
            s_data: sim.pin("s_data_i"),
            m_valid: sim.pin("m_valid_o"),
            m_ready: sim.pin("m_ready_i"),
            m_data: sim.pin("m_data_o"),
            sim,
        };
        s.sim.set_u64(s.s_valid, 0);
        s.sim.set_u64(s.m_ready, 0);
        s.sim.reset();
        s
    }

    /// Drive the inputs for this cycle and evaluate the combinational outputs.
    fn drive(&mut self, word: Option<u16>, ready: bool) -> (bool, bool, u16) {
        self.sim.set_u64(self.s_valid, u64::from(word.is_some()));
        self.sim.set_u64(self.s_data, u64::from(word.unwrap_or(0)));
        self.sim.set_u64(self.m_ready, u64::from(ready));
        self.sim.eval();
        (
            self.sim.get_u64(self.s_ready) != 0,
            self.sim.get_u64(self.m_valid) != 0,
            self.sim.get_u64(self.m_data) as u16,
        )
    }
}

#[test]
fn skid_delivers_every_word_once_in_order_with_a_registered_ready() {
    let mut rng = SplitMix64::new(seed(0x5C1D));
    let mut dut = Skid::new();
    // (offer %, ready %) phases: bursts, stalls, balanced, idle
    let phases = [
        (100, 100),
        (100, 0),
        (100, 50),
        (50, 100),
        (0, 100),
        (80, 80),
        (100, 20),
    ];
    let mut held: Option<u16> = None; // the producer keeps offering a word until it is taken
    let mut buffered: Option<u16> = None; // reference: the word in the buffer
    let mut sent: VecDeque<u16> = VecDeque::new();
    let mut next = 0u16;
    let (mut delivered, mut fell_through, mut buffered_n) = (0usize, 0usize, 0usize);
    for cycle in 0..20_000u64 {
        let (po, pr) = phases[((cycle / 250) % phases.len() as u64) as usize];
        if held.is_none() && rng.next_u64() % 100 < po {
            next = next.wrapping_add(1);
            held = Some(next);
        }
        let ready = rng.next_u64() % 100 < pr;
        let (s_ready, m_valid, m_data) = dut.drive(held, ready);
        // s_ready_o is the registered "buffer empty", whatever the consumer does this cycle
        assert_eq!(s_ready, buffered.is_none(), "cycle {cycle}: s_ready_o");
        dut.drive(held, !ready);
        let (s_ready2, _, _) = dut.drive(held, ready);
        assert_eq!(
            s_ready, s_ready2,
            "cycle {cycle}: s_ready_o follows m_ready_i"
        );
        // the output: the buffered word first, else the input falls through
        let want = buffered.or(held);
        assert_eq!(m_valid, want.is_some(), "cycle {cycle}: m_valid_o");
        if let Some(w) = want {
            assert_eq!(m_data, w, "cycle {cycle}: m_data_o");
        }
        // transfers of this edge
        let took_in = held.is_some() && s_ready;
        if took_in {
            sent.push_back(held.unwrap());
        }
        if ready && m_valid {
            let w = sent.pop_front().unwrap();
            assert_eq!(w, m_data, "cycle {cycle}: order");
            delivered += 1;
            if buffered.take().is_none() {
                fell_through += 1;
            }
        } else if took_in {
            buffered_n += 1;
            buffered = Some(held.unwrap());
        }
        if took_in {
            held = None;
        }
        dut.sim.tick();
    }
    assert!(sent.len() <= 1, "{} words stuck", sent.len());
    assert!(delivered > 8_000, "only {delivered} words delivered");
    assert!(
        fell_through > 1_000 && buffered_n > 1_000,
        "{fell_through} / {buffered_n}"
    );
}
