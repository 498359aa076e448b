//! The host library's engine driver (`rocesec_host::engine::Engine`) programs the co-simulated
//! tops over AXI4-Lite from a session secret.
//! - Protect (`rtl/top/rocesec_protect_axil.sv`): the frames the RTL protects verify in the
//!   golden model's `Verifier` built from the same secret; an epoch rotation between two
//!   halves of the traffic (make-before-break, no QP teardown) moves every later frame to the
//!   new epoch with no frame lost or rejected.
//! - Verify (`rtl/top/rocesec_verify_axil.sv`): the receiver steps of a rotation
//!   (`Engine::accept_next`, `rotate`, `retire`), their register writes made during traffic
//!   while the model's sender switches epoch, lose or reject no frame.
#![allow(clippy::unwrap_used)]

use rocesec_cosim::rtl::rocesec_protect::{RocesecProtect, Traffic};
use rocesec_cosim::rtl::rocesec_verify::{RocesecVerify, VerifyMode};
use rocesec_cosim::rtl::{seed, SplitMix64, Top};
use rocesec_host::engine::Engine;
use rocesec_host::keys::SessionKeys;
use rocesec_model::engine::{Protector, Verifier};
use rocesec_model::keys::{KeyFile, QpPolicy};
use rocesec_model::regmap::{self, RegBus, RegWrite};
use rocesec_model::roce::{self, Frame};
use rocesec_model::sechdr::Mode;
use rocesec_model::verdict::Forward;
use rocesec_model::verdict::Reason;

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
    assert_eq!(
        e.slots().iter().flatten().collect::<Vec<_>>(),
        [&(1, 0), &(1, 1)]
    );
    e.retire().unwrap();
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

/// A register bus that records the writes, to replay an engine's program on the DUT while
/// frames flow (`RocesecVerify::run_live`).
#[derive(Default)]
struct Recorder(Vec<RegWrite>);

impl RegBus for Recorder {
    type Error = std::convert::Infallible;
    fn write32(&mut self, addr: u16, data: u32) -> Result<(), Self::Error> {
        self.0.push(RegWrite { addr, data });
        Ok(())
    }
    fn read32(&mut self, _addr: u16) -> Result<u32, Self::Error> {
        Ok(0)
    }
}

#[test]
fn host_lib_rotates_a_receiver_with_every_write_during_traffic() {
    let keys = SessionKeys::new(&SECRET, 16).unwrap();
    let mut kf = KeyFile::demo().unwrap();
    kf.session_secret = hex::encode(SECRET);
    kf.default = policy(0, false);
    // the sender (model): the corpus under epoch 0, then again under epoch 1 (new PNs), so
    // QPs the receiver saw under epoch 0 send under epoch 1
    let plain = corpus(130);
    let mut tx = Protector::new(&kf).unwrap();
    let (mut stream, mut want) = (Vec::new(), Vec::new());
    let mut split = 0;
    for pass in 0..2 {
        if pass == 1 {
            split = stream.len();
            assert!(tx.set_epoch(None, 1));
        }
        for f in &plain {
            if let Ok((_, b)) = tx.protect(f) {
                stream.push(b);
                want.push(f.clone());
            }
        }
    }
    assert!(split > 100 && stream.len() > split + 100, "{split}");

    for (mi, mode) in [VerifyMode::CutThrough, VerifyMode::StoreForward]
        .into_iter()
        .enumerate()
    {
        // the receiver's writes, step by step (docs/register-map.md, epoch rotation)
        let sf = mode == VerifyMode::StoreForward;
        let mut e = Engine::new_rx(Recorder::default(), &keys, policy(0, false), sf).unwrap();
        let take = |e: &mut Engine<Recorder>| std::mem::take(&mut e.bus_mut().0);
        let setup = take(&mut e);
        e.accept_next(&keys, 1, 1).unwrap();
        let step1 = take(&mut e);
        e.rotate(&keys, 1, 1).unwrap();
        let step3 = take(&mut e);
        e.retire().unwrap();
        let step4 = take(&mut e);
        assert_eq!(e.slots().iter().flatten().collect::<Vec<_>>(), [&(1, 1)]);
        assert!(!step1.is_empty() && !step3.is_empty() && !step4.is_empty());

        let mut dut = RocesecVerify::new(Top::RocesecVerify1, mode);
        regmap::apply(&mut dut, &setup).unwrap();
        // step 1 well before the sender moves, step 3 after it, step 4 after step 3
        let sched = vec![(30, step1), (split + 40, step3), (split + 60, step4)];
        let mut rng = SplitMix64::new(seed(0x4e0 + mi as u64));
        let r = dut.run_live(
            &stream,
            stream.len(),
            Traffic { idle: 2, stall: 2 },
            &mut rng,
            &sched,
        );
        assert!(!r.stalled, "{}: stalled", mode.name());
        assert_eq!(r.out.len(), stream.len(), "{}: frames out", mode.name());
        for (i, (o, f)) in r.out.iter().zip(&want).enumerate() {
            assert_eq!(o.tuser & 0xF, 0, "{} frame {i}: rejected", mode.name());
            assert!(
                o.data == *f,
                "{} frame {i}: not the sent frame",
                mode.name()
            );
        }
        let last_in = r.in_starts.last().copied().unwrap_or(0);
        assert!(
            r.writes.len() == 3 && r.writes.iter().all(|&(q, a)| q < a && a < last_in),
            "every write during traffic: {:?} (last frame in at {last_in})",
            r.writes
        );
        assert!(
            r.writes[0].1 < r.in_starts[split],
            "accepted before the sender moved"
        );
        let c = regmap::read_counters(&mut dut).unwrap();
        assert_eq!(c.frames, stream.len() as u64);
        assert_eq!(c.rejected_for(Reason::UnknownKey), 0);
        assert!(c.epoch_promotions >= 2, "running QPs promoted: {c:?}");
        let d = regmap::read_rx_drops(&mut dut).unwrap();
        assert_eq!(d, regmap::RxDrops::default(), "nothing dropped");
        eprintln!(
            "receiver rotation [{}]: {} frames, {} promotions, write batches queued/answered \
             at cycles {:?}, first epoch-1 frame in at cycle {}",
            mode.name(),
            stream.len(),
            c.epoch_promotions,
            r.writes,
            r.in_starts[split]
        );
    }
}
