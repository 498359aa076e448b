//! The AXI4-Lite register interface of the protect top (`rtl/top/rocesec_protect_axil.sv`,
//! `rtl/common/common_axil_regs.sv`): the register programs of `rocesec_model::regmap` loaded
//! with random handshake delays give the model's output and counters; a partial-strobe write
//! answers SLVERR and is not performed; reads return the counters word by word.
#![allow(clippy::unwrap_used)]

use rocesec_cosim::rtl::axil::AxilError;
use rocesec_cosim::rtl::rocesec_protect::{RocesecProtect, Traffic};
use rocesec_cosim::rtl::{seed, SplitMix64, Top};
use rocesec_model::engine::Protector;
use rocesec_model::keys::KeyFile;
use rocesec_model::regmap::{self, RegWrite};
use rocesec_model::verdict::Reason;

fn corpus(n: usize) -> Vec<Vec<u8>> {
    rocesec_model::cli::default_corpus()
        .iter()
        .flat_map(|p| rocesec_model::pcapio::read(p).unwrap())
        .map(|r| r.data)
        .take(n)
        .collect()
}

/// Run `frames` through the RTL and the model; return (RTL tuser per frame, model verdicts)
/// after checking bytes of every forwarded frame.
fn run_and_compare(dut: &mut RocesecProtect, keys: &KeyFile, frames: &[Vec<u8>], s: u64) {
    let mut model = Protector::new(keys).unwrap();
    let mut rng = SplitMix64::new(s);
    let t = Traffic { idle: 2, stall: 2 };
    let (out, _) = dut.run(frames, t, &mut rng);
    assert_eq!(out.len(), frames.len());
    for (i, (f, o)) in frames.iter().zip(&out).enumerate() {
        match model.protect(f) {
            Ok((_, bytes)) => {
                assert_eq!(o.tuser & 0xF, 0, "frame {i}: RTL rejected, model forwarded");
                assert_eq!(bytes, o.data, "frame {i}: bytes differ");
            }
            Err(r) => assert_eq!(o.tuser & 0xF, r.code(), "frame {i}: reason"),
        }
    }
    // counters over AXI4-Lite equal the model's
    let got = regmap::read_counters(&mut dut.regs()).unwrap();
    let want = &model.counters;
    assert_eq!(
        (
            got.frames,
            got.processed,
            got.bypass,
            got.cnp,
            got.not_roce,
            got.rejected
        ),
        (
            want.frames,
            want.processed,
            want.bypass,
            want.cnp,
            want.not_roce,
            want.rejected
        )
    );
}

#[test]
fn tables_loaded_over_axi4_lite_with_random_delays_give_the_models_output() {
    let keys = KeyFile::demo().unwrap();
    let frames = corpus(120);
    for (i, delay) in [0u64, 6, 12].into_iter().enumerate() {
        let mut dut = RocesecProtect::new(Top::RocesecProtect1);
        dut.set_axil_delay(delay);
        dut.load_keys(&keys).unwrap();
        let prog = regmap::tx_program(&keys).unwrap();
        eprintln!(
            "delay {delay}/16: {} register writes in {} cycles",
            prog.len(),
            dut.axil_cycles()
        );
        run_and_compare(&mut dut, &keys, &frames, seed(7 + i as u64));
    }
}

#[test]
fn a_partial_strobe_write_answers_slverr_and_is_not_performed() {
    let keys = KeyFile::demo().unwrap();
    let prog = regmap::tx_program(&keys).unwrap();
    // the PD slot's last write makes it valid; send it with 3 of 4 byte strobes
    let last_pd = prog
        .iter()
        .rposition(|w| w.addr == regmap::PD)
        .expect("PD slot 0 valid write");
    let mut dut = RocesecProtect::new(Top::RocesecProtect1);
    dut.set_axil_delay(5);
    regmap::apply(&mut dut.regs(), &prog[..last_pd]).unwrap();
    let RegWrite { addr, data } = prog[last_pd];
    let bus = dut.regs();
    assert_eq!(
        bus.m.write_strb(bus.sim, addr, data, 0x7),
        Err(AxilError::Resp { addr, resp: 0b10 })
    );
    // not performed: no PD key, so every protected frame is unknown-key
    let frames = corpus(40);
    let mut rng = SplitMix64::new(seed(3));
    let (out, _) = dut.run(&frames, Traffic { idle: 0, stall: 0 }, &mut rng);
    let mut model = Protector::new(&keys).unwrap();
    let mut protected = 0;
    for (f, o) in frames.iter().zip(&out) {
        if model
            .protect(f)
            .is_ok_and(|(k, _)| k == rocesec_model::verdict::Forward::Processed)
        {
            assert_eq!(o.tuser & 0xF, Reason::UnknownKey.code());
            protected += 1;
        }
    }
    assert!(
        protected > 10,
        "only {protected} frames would have been protected"
    );
    // the same write with all strobes is performed: the slot becomes valid
    dut.write(addr, data).unwrap();
    let c0 = regmap::read_counters(&mut dut.regs()).unwrap();
    let (out, _) = dut.run(&frames, Traffic { idle: 0, stall: 0 }, &mut rng);
    assert!(out
        .iter()
        .any(|o| o.tuser & 0xF == 0 && (o.tuser >> 4) & 3 == 0));
    let c1 = regmap::read_counters(&mut dut.regs()).unwrap();
    assert_eq!(c1.frames - c0.frames, frames.len() as u64);
    assert!(c1.processed > c0.processed);
}
