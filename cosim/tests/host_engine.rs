//! The host library's engine driver (`rocesec_host::engine::Engine`) programs the co-simulated
//! protect top (`rtl/top/rocesec_protect_axil.sv`) over AXI4-Lite from a session secret; the
//! frames the RTL protects then verify in the golden model's `Verifier` built from the same
//! secret. An epoch rotation in the middle of traffic (make-before-break, no QP teardown)
//! moves every later frame to the new epoch with no frame lost or rejected.
#![allow(clippy::unwrap_used)]

use rocesec_cosim::rtl::rocesec_protect::{RocesecProtect, Traffic};
use rocesec_cosim::rtl::{seed, SplitMix64, Top};
use rocesec_host::engine::Engine;
use rocesec_host::keys::SessionKeys;
use rocesec_model::engine::Verifier;
use rocesec_model::keys::{KeyFile, QpPolicy};
use rocesec_model::roce::{self, Frame};
use rocesec_model::sechdr::Mode;
use rocesec_model::verdict::Forward;

const SECRET: [u8; 32] = [0x42; 32];

fn corpus(n: usize) -> Vec<Vec<u8>> {
    rocesec_model::cli::default_corpus()
        .iter()
        .flat_map(|p| rocesec_model::pcapio::read(p).unwrap())
        .map(|r| r.data)
        .take(n)
        .collect()
}

fn policy(epoch: u8, next_epoch: bool) -> QpPolicy {
    QpPolicy {
        mode: Mode::Aead,
        pd: 1,
        gen: 0,
        epoch,
        next_epoch,
    }
}

/// Frames through the RTL; each protected one must verify in `rx` to the original frame.
/// Returns the SecHdr epochs seen.
fn run_phase(
    phase: &str,
    e: &mut Engine<RocesecProtect>,
    rx: &mut Verifier,
    frames: &[Vec<u8>],
    s: u64,
) -> Vec<u8> {
    let mut rng = SplitMix64::new(s);
    let (out, _) = e
        .bus_mut()
        .run(frames, Traffic { idle: 2, stall: 2 }, &mut rng);
    let mut epochs = Vec::new();
    for (i, (f, o)) in frames.iter().zip(&out).enumerate() {
        let reason = o.tuser & 0xF;
        if reason != 0 {
            // the RTL may reject only what the model rejects (malformed/bad ICRC in the corpus)
            assert_ne!(
                reason, 9,
                "{phase} frame {i}: unknown-key after programming"
            );
            continue;
        }
        if (o.tuser >> 4) & 3 != 0 {
            continue; // forwarded unchanged (CNP, not RoCE)
        }
        let Ok(Frame::Roce(p)) = roce::parse(&o.data) else {
            panic!("{phase} frame {i}: RTL output does not parse")
        };
        epochs.push(p.sec.expect("SecHdr").epoch);
        match rx.verify(&o.data) {
            Ok((Forward::Processed, plain)) => {
                assert_eq!(&plain, f, "{phase} frame {i}: round trip")
            }
            v => panic!("{phase} frame {i}: the model's verifier says {v:?}"),
        }
    }
    epochs
}

#[test]
fn host_lib_programs_the_rtl_engine_and_rotates_the_epoch_under_traffic() {
    let keys = SessionKeys::new(&SECRET, 16).unwrap();
    let mut dut = RocesecProtect::new(Top::RocesecProtect1);
    dut.set_axil_delay(4);
    let mut e = Engine::new(dut, &keys, policy(0, false)).unwrap();
    let mut kf = KeyFile::demo().unwrap();
    kf.session_secret = hex::encode(SECRET);
    kf.default = policy(0, true); // the receiver accepts epoch 0 and, once installed, 1
    let mut rx = Verifier::new(&kf).unwrap();

    let frames = corpus(240);
    let (a, b) = frames.split_at(120);
    let before = run_phase("before rotation:", &mut e, &mut rx, a, seed(11));
    assert!(before.len() > 50, "{} protected frames", before.len());
    assert!(
        before.iter().all(|&x| x == 0),
        "epochs before rotation: {before:?}"
    );

    e.rotate(&keys, 1, 1).unwrap();
    assert_eq!(e.slots().iter().flatten().collect::<Vec<_>>(), [&(1, 1)]);
    let after = run_phase("after rotation:", &mut e, &mut rx, b, seed(12));
    assert!(after.len() > 50, "{} protected frames", after.len());
    assert!(
        after.iter().all(|&x| x == 1),
        "epochs after rotation (QPs seen before it must move too): {after:?}"
    );

    let c = e.counters().unwrap();
    assert_eq!(c.frames, frames.len() as u64);
    assert_eq!(c.processed as usize, before.len() + after.len());
    assert_eq!(
        c.rejected_for(rocesec_model::verdict::Reason::UnknownKey),
        0
    );
}
