//! Co-simulation of `rtl/common/common_fifo_ram.sv` (block-RAM FWFT FIFO) and of
//! `common_fifo_sync` with `RegOut = 1` (the head read a cycle ahead into a register) against
//! `rtl/common/common_fifo_sync.sv` (distributed RAM, combinational read) and a `VecDeque`: the
//! tops swap one for the other without a timing change, so every output (rvalid, rdata when
//! rvalid, wready, count) must be equal after every edge, under random push/pop rates from empty
//! through full, for Depth 4 and 16.
#![allow(clippy::unwrap_used)]

use std::collections::VecDeque;

use rocesec_cosim::rtl::{seed, Port, Sim, SplitMix64, Top};

struct Fifo {
    sim: Sim,
    wvalid: Port,
    wready: Port,
    wdata: Port,
    rvalid: Port,
    rready: Port,
    rdata: Port,
    count: Port,
}

/// The outputs after an edge: (rvalid, rdata when rvalid, wready, count).
type Outs = (u64, u64, u64, u64);

impl Fifo {
    fn new(top: Top) -> Self {
        let sim = Sim::new(top);
        let mut f = Self {
            wvalid: sim.pin("wvalid_i"),
            wready: sim.pin("wready_o"),
            wdata: sim.pin("wdata_i"),
            rvalid: sim.pin("rvalid_o"),
            rready: sim.pin("rready_i"),
            rdata: sim.pin("rdata_o"),
            count: sim.pin("count_o"),
            sim,
        };
        f.sim.set_u64(f.wvalid, 0);
        f.sim.set_u64(f.rready, 0);
        f.sim.reset();
        f
    }

    fn outs(&mut self) -> Outs {
        let v = self.sim.get_u64(self.rvalid);
        let d = if v != 0 {
            self.sim.get_u64(self.rdata)
        } else {
            0
        };
        (
            v,
            d,
            self.sim.get_u64(self.wready),
            self.sim.get_u64(self.count),
        )
    }

    fn step(&mut self, push: Option<u16>, pop: bool) {
        self.sim.set_u64(self.wvalid, u64::from(push.is_some()));
        self.sim.set_u64(self.wdata, u64::from(push.unwrap_or(0)));
        self.sim.set_u64(self.rready, u64::from(pop));
        self.sim.tick();
    }
}

/// Random push/pop in phases that fill, hold and drain; returns the words popped.
fn run(dut: Top, reference: Top, depth: u64, rng: &mut SplitMix64) -> usize {
    let (na, nb) = (dut.name(), reference.name());
    let mut a = Fifo::new(dut);
    let mut b = Fifo::new(reference);
    let mut model: VecDeque<u16> = VecDeque::new();
    let mut next = 0u16;
    let mut popped = 0usize;
    // (push %, pop %) phases: fill, balanced, full with pops, drain, bursts
    let phases = [
        (90, 10),
        (50, 50),
        (100, 30),
        (10, 90),
        (100, 100),
        (70, 0),
        (0, 70),
    ];
    for cycle in 0..20_000u64 {
        let (pw, pr) = phases[((cycle / 300) % phases.len() as u64) as usize];
        let push = (rng.next_u64() % 100 < pw).then(|| {
            next = next.wrapping_add(1);
            next
        });
        let pop = rng.next_u64() % 100 < pr;
        let (ra, rb) = (a.outs(), b.outs());
        assert_eq!(ra, rb, "cycle {cycle}: {na} vs {nb}");
        // reference: FWFT, write accepted when not full, read when not empty
        let (rvalid, rdata, wready, count) = ra;
        assert_eq!(count, model.len() as u64, "cycle {cycle}: count");
        assert_eq!(
            wready,
            u64::from((model.len() as u64) < depth),
            "cycle {cycle}: wready"
        );
        assert_eq!(
            rvalid,
            u64::from(!model.is_empty()),
            "cycle {cycle}: rvalid"
        );
        if let Some(&h) = model.front() {
            assert_eq!(rdata, u64::from(h), "cycle {cycle}: rdata");
        }
        if pop && !model.is_empty() {
            model.pop_front();
            popped += 1;
        }
        // offered while full: both FIFOs must refuse it
        if let (Some(w), true) = (push, wready != 0) {
            model.push_back(w);
        }
        a.step(push, pop);
        b.step(push, pop);
    }
    popped
}

/// `run` on each (design, reference, depth); every pair must move more than 2,000 words.
fn run_pairs(tag: u64, pairs: [(Top, Top, u64); 2]) {
    let mut rng = SplitMix64::new(seed(tag));
    for (dut, reference, depth) in pairs {
        let n = run(dut, reference, depth, &mut rng);
        assert!(n > 2_000, "{}: only {n} words went through", dut.name());
    }
}

#[test]
fn ram_fifo_matches_the_distributed_ram_fifo_edge_for_edge() {
    run_pairs(
        0xF1F0,
        [
            (Top::CommonFifoRam4, Top::CommonFifoSync4, 4),
            (Top::CommonFifoRam16, Top::CommonFifoSync16, 16),
        ],
    );
}

#[test]
fn registered_head_fifo_matches_the_combinational_read_edge_for_edge() {
    run_pairs(
        0xF1F1,
        [
            (Top::CommonFifoSyncReg4, Top::CommonFifoSync4, 4),
            (Top::CommonFifoSyncReg16, Top::CommonFifoSync16, 16),
        ],
    );
}
