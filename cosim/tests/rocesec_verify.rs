//! Co-simulation of `rtl/top/rocesec_verify.sv` against `rocesec_model::engine::Verifier`.
//!
//! The rxe corpus (`testbench/captures/*.pcap`) is protected by the model's `Protector` in the
//! three modes and then verified by the model and by the RTL, in cut-through and in
//! store-and-forward. Per frame: the same verdict (`m_axis_tuser`: reason code, forward kind)
//! and, for a forwarded frame, the same bytes (the original plain frame). In store-and-forward a
//! rejected frame must not leave at all. The counters (register read port) must equal the
//! model's. A tamper pass mixes genuine frames with attacks (bit flips in header, payload and
//! ICV with the attacker repairing the IPv4 checksum and the ICRC; replays; VA moved out of its
//! node; stale and future epochs; a wrong session secret; a missing PD key), and random input
//! gaps and output backpressure check that no beat is lost, duplicated or reordered.
//! Back-to-back runs print the throughput in beats per cycle, isolated frames the latency.
#![allow(clippy::unwrap_used)]

use rocesec_cosim::job_verify::{attack_stream, protect_all};
use rocesec_cosim::rtl::rocesec_protect::{reg as preg, OutFrame, RunResult, Traffic};
use rocesec_cosim::rtl::rocesec_verify::{RocesecVerify, VerifyMode};
use rocesec_cosim::rtl::{seed, SplitMix64, Top};
use rocesec_model::engine::{Protector, Verdict, Verifier};
use rocesec_model::keys::KeyFile;
use rocesec_model::roce::build::Builder;
use rocesec_model::sechdr::Mode;
use rocesec_model::verdict::{Forward, Reason};

const MODES: [VerifyMode; 2] = [VerifyMode::CutThrough, VerifyMode::StoreForward];
const GAPS: Traffic = Traffic { idle: 3, stall: 4 };
const LINE: Traffic = Traffic { idle: 0, stall: 0 };

fn fwd_code(f: Forward) -> u8 {
    match f {
        Forward::Processed => 0,
        Forward::Bypass => 1,
        Forward::Cnp => 2,
        Forward::NotRoce => 3,
    }
}

fn demo(mode: Mode) -> KeyFile {
    let mut k = KeyFile::demo().unwrap();
    k.force_mode(mode);
    k
}

fn corpus() -> Vec<Vec<u8>> {
    rocesec_model::cli::default_corpus()
        .iter()
        .flat_map(|p| rocesec_model::pcapio::read(p).unwrap())
        .map(|r| r.data)
        .collect()
}

/// The last register write of `pol` as the default policy (word 0: mode, epoch, next bit, ...).
fn default_policy_word0(pol: &rocesec_model::keys::QpPolicy) -> u32 {
    preg::policy_writes(preg::DEFAULT, &[0; 16], 0, pol)
        .unwrap()
        .last()
        .unwrap()
        .data
}

/// K_pd of (`pd`, `epoch`) from the key file's session secret, for a PD slot write.
fn pd_slot_key(keys: &KeyFile, pd: u32, epoch: u8) -> [u8; 16] {
    let k = rocesec_model::keys::pd_key(&keys.secret().unwrap(), pd, epoch, 16).unwrap();
    k.bytes().try_into().unwrap()
}

/// The corpus as it leaves a model protector (rejected frames are not sent).
fn protected(keys: &KeyFile, frames: &[Vec<u8>]) -> Vec<Vec<u8>> {
    protect_all(keys, frames)
}

/// `f` (a protected RoCE frame) with the last ICV byte flipped; with `repair` the attacker
/// also recomputes the IPv4 checksum and the ICRC (authentication fails), else the ICRC is
/// bad.
fn icv_flipped(f: &[u8], repair: bool) -> Vec<u8> {
    use rocesec_model::roce::{parse, Frame};
    let mut g = f.to_vec();
    let Ok(Frame::Roce(p)) = parse(&g) else {
        panic!("not a RoCE frame: {}", hex::encode(f))
    };
    g[p.icrc_off() - 1] ^= 0x01;
    if repair {
        rocesec_cosim::job_verify::repair(&mut g);
    }
    g
}

/// [`run_case`] on `stream` in both output modes, back to back and with gaps; `check(what, s)`
/// on each score.
fn run_modes_and_gaps(
    what: &str,
    keys: &KeyFile,
    stream: &[Vec<u8>],
    seed_v: u64,
    check: impl Fn(&str, &Score),
) {
    for (mi, m) in MODES.into_iter().enumerate() {
        for t in [LINE, GAPS] {
            let w = format!("{what} (idle {})", t.idle);
            let s = run_case(
                &w,
                Top::RocesecVerify1,
                keys,
                stream,
                m,
                t,
                seed_v + mi as u64,
                |_| {},
            );
            check(&w, &s);
        }
    }
}

#[derive(Default, Debug, Clone)]
struct Score {
    frames: usize,
    processed: usize,
    passed: usize,
    rejected: usize,
    by_reason: [usize; 16],
}

/// Compare the RTL output with the model, frame by frame. In store-and-forward only the frames
/// the model forwards may leave. Returns the score and the (input index, output) pairs.
fn score(
    model: &mut Verifier,
    frames: &[Vec<u8>],
    r: &RunResult,
    mode: VerifyMode,
    what: &str,
) -> (Score, Vec<(usize, usize)>) {
    score_hooked(model, frames, r, mode, what, |_, _| {})
}

/// [`score`] with `hook(i, model)` called before the model verifies frame `i` (a register
/// write the test made during the run, applied to the model where it takes effect).
fn score_hooked(
    model: &mut Verifier,
    frames: &[Vec<u8>],
    r: &RunResult,
    mode: VerifyMode,
    what: &str,
    mut hook: impl FnMut(usize, &mut Verifier),
) -> (Score, Vec<(usize, usize)>) {
    assert!(
        !r.stalled,
        "{what}: the RTL stalled after {} frames",
        r.out.len()
    );
    let mut s = Score::default();
    let mut j = 0usize;
    let mut pairs = Vec::new();
    for (i, f) in frames.iter().enumerate() {
        hook(i, model);
        let v = model.verify(f);
        let leaves = mode == VerifyMode::CutThrough || v.is_ok();
        if !leaves {
            s.frames += 1;
            s.rejected += 1;
            s.by_reason[v.unwrap_err().code() as usize] += 1;
            continue;
        }
        let o = r
            .out
            .get(j)
            .unwrap_or_else(|| panic!("{what}: frame {i}: missing output ({} out)", r.out.len()));
        pairs.push((i, j));
        j += 1;
        let reason = o.tuser & 0xF;
        let fwd = (o.tuser >> 4) & 3;
        match v {
            Ok((kind, bytes)) => {
                assert_eq!(
                    (reason, fwd),
                    (0, fwd_code(kind)),
                    "{what}: frame {i}: verdict (model {kind:?})\n{}",
                    hex::encode(f)
                );
                if bytes != o.data {
                    let d = bytes.iter().zip(&o.data).position(|(a, b)| a != b);
                    panic!(
                        "{what}: frame {i} ({kind:?}, {} -> {} bytes, rtl {} bytes): first \
                         difference at {d:?}\nin    {}\nmodel {}\nrtl   {}",
                        f.len(),
                        bytes.len(),
                        o.data.len(),
                        hex::encode(f),
                        hex::encode(&bytes),
                        hex::encode(&o.data)
                    );
                }
                if kind == Forward::Processed {
                    s.processed += 1;
                } else {
                    s.passed += 1;
                }
            }
            Err(rm) => {
                assert_eq!(
                    reason,
                    rm.code(),
                    "{what}: frame {i}: model rejects with {rm}, rtl tuser {:#x}\n{}",
                    o.tuser,
                    hex::encode(f)
                );
                s.rejected += 1;
                s.by_reason[rm.code() as usize] += 1;
            }
        }
        s.frames += 1;
    }
    assert_eq!(
        r.out.len(),
        j,
        "{what}: the RTL sent {} frames, the model forwards {j}",
        r.out.len()
    );
    (s, pairs)
}

fn check_counters(dut: &mut RocesecVerify, model: &Verifier, mode: VerifyMode, what: &str) {
    // In store-and-forward a run ends 64 cycles after the last frame that leaves; frames
    // dropped after it may still wait for a key derivation (about 150 cycles each), so wait
    // (at most 20,000 cycles) until every frame has its verdict counted (found by
    // random_forgeries_and_replays_over_many_qps: its last frame, a forgery, was counted late).
    let c = &model.counters;
    for _ in 0..200 {
        if u64::from(dut.counter(0)) >= c.frames {
            break;
        }
        dut.idle(100);
    }
    let dropped = if mode == VerifyMode::StoreForward {
        c.total_rejected()
    } else {
        0
    };
    let mut want = vec![
        c.frames,
        c.processed,
        c.bypass,
        c.cnp,
        c.not_roce,
        dropped,
        c.epoch_promotions,
        0,
    ];
    want.extend_from_slice(&c.rejected);
    for (i, w) in want.iter().enumerate() {
        assert_eq!(u64::from(dut.counter(i)), *w, "{what}: counter {i}");
    }
}

fn expected_out(keys: &KeyFile, frames: &[Vec<u8>], mode: VerifyMode) -> usize {
    match mode {
        VerifyMode::CutThrough => frames.len(),
        VerifyMode::StoreForward => {
            let mut m = Verifier::new(keys).unwrap();
            frames.iter().filter(|f| m.verify(f).is_ok()).count()
        }
    }
}

/// [`expected_out`] with `hook(i, model)` called before the model verifies frame `i` (register
/// writes made during the run, as in [`score_hooked`]).
fn expected_out_hooked(
    keys: &KeyFile,
    frames: &[Vec<u8>],
    mode: VerifyMode,
    mut hook: impl FnMut(usize, &mut Verifier),
) -> usize {
    let mut m = Verifier::new(keys).unwrap();
    frames
        .iter()
        .enumerate()
        .filter(|&(i, f)| {
            hook(i, &mut m);
            mode == VerifyMode::CutThrough || m.verify(f).is_ok()
        })
        .count()
}

fn beats_of(frames: &[Vec<u8>]) -> u64 {
    frames.iter().map(|f| f.len().div_ceil(16) as u64).sum()
}

/// Verify `frames` with keys `vkeys` on a fresh RTL instance and a fresh model.
#[allow(clippy::too_many_arguments)]
fn run_case(
    what: &str,
    top: Top,
    vkeys: &KeyFile,
    frames: &[Vec<u8>],
    mode: VerifyMode,
    t: Traffic,
    seed_v: u64,
    prep: impl FnOnce(&mut RocesecVerify),
) -> Score {
    let mut rng = SplitMix64::new(seed(seed_v));
    let mut dut = RocesecVerify::new(top, mode);
    dut.load_keys(vkeys).unwrap();
    prep(&mut dut);
    let expect = expected_out(vkeys, frames, mode);
    let r = dut.run(frames, expect, t, &mut rng);
    let mut model = Verifier::new(vkeys).unwrap();
    let (s, _) = score(&mut model, frames, &r, mode, what);
    check_counters(&mut dut, &model, mode, what);
    let bb = if top == Top::RocesecVerify4 { 64 } else { 16 };
    let out_beats: u64 = r.out.iter().map(|o| o.data.len().div_ceil(bb) as u64).sum();
    eprintln!(
        "{what} [{}]: {} frames compared ({} verified, {} forwarded unchanged, {} rejected {}); \
         {} cycles, {:.3} input beats/cycle, {:.3} output beats/cycle, KDF busy {} cycles",
        mode.name(),
        s.frames,
        s.processed,
        s.passed,
        s.rejected,
        reasons(&s),
        r.cycles,
        frames
            .iter()
            .map(|f| f.len().div_ceil(bb) as u64)
            .sum::<u64>() as f64
            / r.cycles as f64,
        out_beats as f64 / r.cycles as f64,
        dut.kdf_cycles(),
    );
    s
}

fn reasons(s: &Score) -> String {
    Reason::ALL
        .iter()
        .filter(|r| s.by_reason[r.code() as usize] > 0)
        .map(|r| format!("{r}:{}", s.by_reason[r.code() as usize]))
        .collect::<Vec<_>>()
        .join(" ")
}

fn corpus_mode(pmode: Mode, seed_v: u64) {
    let keys = demo(pmode);
    let frames = protected(&keys, &corpus());
    assert!(frames.len() > 1000);
    for m in MODES {
        let s = run_case(
            &format!("corpus {pmode}"),
            Top::RocesecVerify1,
            &keys,
            &frames,
            m,
            GAPS,
            seed_v,
            |_| {},
        );
        assert!(s.processed > 1000, "{s:?}");
        assert_eq!(s.rejected, 0, "{s:?}");
    }
}

#[test]
fn corpus_aead() {
    corpus_mode(Mode::Aead, 0xa0);
    // line rate: throughput
    let keys = demo(Mode::Aead);
    let frames = protected(&keys, &corpus());
    for m in MODES {
        run_case(
            "corpus aead back-to-back",
            Top::RocesecVerify1,
            &keys,
            &frames,
            m,
            LINE,
            0xa1,
            |_| {},
        );
    }
}

#[test]
fn corpus_packet_auth() {
    corpus_mode(Mode::PacketAuth, 0xa2);
}

#[test]
fn corpus_header_auth() {
    corpus_mode(Mode::HeaderAuth, 0xa3);
}

#[test]
fn tamper_pass() {
    let plain = corpus();
    for (i, pmode) in [Mode::Aead, Mode::PacketAuth, Mode::HeaderAuth]
        .into_iter()
        .enumerate()
    {
        let keys = demo(pmode);
        let frames = protected(&keys, &plain);
        let mut rng = SplitMix64::new(seed(0x7a3 + i as u64));
        let (stream, attacks) = attack_stream(&frames, &mut rng, 700);
        for m in MODES {
            let s = run_case(
                &format!(
                    "tamper {pmode} ({attacks} attacks in {} frames)",
                    stream.len()
                ),
                Top::RocesecVerify1,
                &keys,
                &stream,
                m,
                GAPS,
                0x7b0 + i as u64,
                |_| {},
            );
            assert!(s.rejected > attacks / 2, "{s:?}");
            for r in [
                Reason::BadIcrc,
                Reason::Replay,
                Reason::StaleEpoch,
                Reason::UnknownKey,
            ] {
                assert!(
                    s.by_reason[r.code() as usize] > 0,
                    "{pmode}: no {r} in {s:?}"
                );
            }
            if pmode != Mode::HeaderAuth {
                assert!(s.by_reason[Reason::AuthFail.code() as usize] > 0, "{s:?}");
            }
        }
    }
}

/// The replay window of one QP (RFC 4303 §3.4.3, 64 PNs) under reordering, gaps and replays:
/// PN jumps of 1 to 3, of exactly 63, 64 and 65 and around them, PNs just inside (age 63) and
/// just outside (age 64) the window, repeats, and the window's position crossing a multiple of
/// 64 in both directions, at line rate and with gaps, LANES = 1 and 4. Every frame's verdict
/// and the counters must equal the model's `ReplayWindow` (model/src/stage/key.rs). All frames
/// belong to one QP, so most decisions are taken while earlier frames of the QP still wait for
/// their verdicts (the key stage's conflict rule).
#[test]
fn replay_window_jumps_reorder_and_repeats() {
    let keys = demo(Mode::HeaderAuth);
    let n = 6000usize;
    let plain: Vec<Vec<u8>> = (0..n)
        .map(|i| Builder::new(0x04, i as u32, &[0x3c; 8]).build())
        .collect();
    // the protector numbers the QP's frames PN 1, 2, ...: frame k carries PN k + 1
    let frames = protected(&keys, &plain);
    assert_eq!(frames.len(), n);
    let mut pns: Vec<usize> = vec![
        1, 2, 3, 4, 5, 70, 6, 7, 7, 133, 71, 70, 69, 197, 134, 133, 196, 195, 197, 198, 200, 199,
        262, 263, 264, 327, 265, 264, 263, 391, 392, 329, 328, 456, 455, 392, 393, 457, 500,
    ];
    let mut rng = SplitMix64::new(seed(0x9e7));
    let mut top = *pns.iter().max().unwrap();
    while pns.len() < 700 {
        let r = rng.below(100);
        let pn = if r < 45 {
            top + 1 + rng.below(3) as usize
        } else if r < 55 {
            top + 60 + rng.below(11) as usize
        } else if r < 90 {
            top.saturating_sub(rng.below(71) as usize).max(1)
        } else {
            pns[pns.len() - 1 - rng.below(pns.len().min(80) as u64) as usize]
        };
        if pn > n {
            break;
        }
        top = top.max(pn);
        pns.push(pn);
    }
    let stream: Vec<Vec<u8>> = pns.iter().map(|&pn| frames[pn - 1].clone()).collect();
    let cases = [
        (Top::RocesecVerify1, VerifyMode::CutThrough, LINE),
        (Top::RocesecVerify1, VerifyMode::CutThrough, GAPS),
        (Top::RocesecVerify1, VerifyMode::StoreForward, LINE),
        (Top::RocesecVerify4, VerifyMode::CutThrough, LINE),
    ];
    for (i, (top, m, t)) in cases.into_iter().enumerate() {
        let s = run_case(
            &format!("replay window {top:?} {t:?} ({} frames)", stream.len()),
            top,
            &keys,
            &stream,
            m,
            t,
            0x9f0 + i as u64,
            |_| {},
        );
        assert!(s.processed > 400, "{s:?}");
        assert!(s.by_reason[Reason::Replay.code() as usize] > 100, "{s:?}");
    }
}

/// A reset forgets the RX QP state: after a reset (keys loaded again) the same frames verify
/// exactly as on a new model verifier, replay windows empty. The replay windows and WRITE keys
/// live in a RAM that a reset does not clear, so an entry allocated after the reset must read
/// as new (`RxQp::new`), not as the QP that held the entry before: reading the RAM word of an
/// entry that was allocated but never committed fails this test as replays in the second round.
#[test]
fn a_reset_forgets_the_qp_state() {
    let keys = demo(Mode::Aead);
    let frames: Vec<Vec<u8>> = protected(&keys, &corpus()).into_iter().take(200).collect();
    let mode = VerifyMode::CutThrough;
    let mut rng = SplitMix64::new(seed(0x5e7));
    let mut dut = RocesecVerify::new(Top::RocesecVerify1, mode);
    for round in 0..2 {
        if round > 0 {
            dut.reset();
        }
        dut.load_keys(&keys).unwrap();
        let expect = expected_out(&keys, &frames, mode);
        let r = dut.run(&frames, expect, GAPS, &mut rng);
        let mut model = Verifier::new(&keys).unwrap();
        let what = format!("round {round} (reset before it: {})", round > 0);
        let (s, _) = score(&mut model, &frames, &r, mode, &what);
        check_counters(&mut dut, &model, mode, &what);
        assert!(s.processed > 100, "{what}: {s:?}");
        assert_eq!(
            s.by_reason[Reason::Replay.code() as usize],
            0,
            "{what}: {s:?}"
        );
    }
}

/// A wrong session secret: every protected frame fails authentication (model and RTL); a
/// missing PD key slot is the RTL's unknown-key (the model derives K_pd itself).
#[test]
fn wrong_key_and_missing_pd_slot() {
    let keys = demo(Mode::Aead);
    let frames: Vec<Vec<u8>> = protected(&keys, &corpus()).into_iter().take(300).collect();
    let mut wrong = keys.clone();
    wrong.session_secret = "00".repeat(32);
    for m in MODES {
        let s = run_case(
            "wrong session secret",
            Top::RocesecVerify1,
            &wrong,
            &frames,
            m,
            GAPS,
            0x3e,
            |_| {},
        );
        assert!(s.by_reason[Reason::AuthFail.code() as usize] > 200, "{s:?}");
    }
    // PD slots cleared: the RTL rejects every protected frame with unknown-key
    for m in MODES {
        let mut dut = RocesecVerify::new(Top::RocesecVerify1, m);
        dut.load_keys(&keys).unwrap();
        for j in 0..preg::NUM_PD as u16 {
            dut.write(preg::PD + 0x20 * j, 0);
        }
        let mut rng = SplitMix64::new(5);
        let expect = if m == VerifyMode::CutThrough {
            frames.len()
        } else {
            0
        };
        let r = dut.run(&frames, expect, GAPS, &mut rng);
        assert!(!r.stalled);
        assert_eq!(r.out.len(), expect);
        for o in &r.out {
            assert_eq!(o.tuser & 0xF, Reason::UnknownKey.code());
        }
        let n = dut.counter(8 + Reason::UnknownKey.code() as usize);
        assert_eq!(n as usize, frames.len(), "{}", m.name());
        eprintln!(
            "no PD key slot [{}]: {n} of {} frames unknown-key",
            m.name(),
            frames.len()
        );
    }
}

/// Epoch rotation: the sender moves to epoch + 1, the receiver has it installed; the first
/// authenticated packet under epoch + 1 promotes, later old-epoch packets are stale.
#[test]
fn epoch_rotation() {
    let mut keys = demo(Mode::Aead);
    keys.default.next_epoch = false;
    let plain: Vec<Vec<u8>> = corpus().into_iter().take(200).collect();
    let mut p = Protector::new(&keys).unwrap();
    let mut stream = Vec::new();
    let mut old = Vec::new();
    // the 200 frames under the current epoch, every 7th held back (delayed in the network)
    for (i, f) in plain.iter().enumerate() {
        if let Ok((_, b)) = p.protect(f) {
            if i % 7 == 0 {
                old.push(b);
            } else {
                stream.push(b);
            }
        }
    }
    // rotation (make): the sender moves every QP to epoch + 1 and sends the same traffic again
    // (the default policy: the TX epoch is the policy's, so every QP under it moves)
    assert!(p.set_epoch(None, keys.default.epoch + 1));
    for f in &plain {
        if let Ok((_, b)) = p.protect(f) {
            stream.push(b);
        }
    }
    // the delayed old-epoch frames arrive after the promotion: stale
    stream.extend(old);
    let mut vkeys = keys.clone();
    vkeys.default.next_epoch = true;
    for m in MODES {
        let s = run_case(
            "epoch rotation",
            Top::RocesecVerify1,
            &vkeys,
            &stream,
            m,
            GAPS,
            0xe9,
            |_| {},
        );
        assert!(s.processed > 300, "{s:?}");
        assert!(s.by_reason[Reason::StaleEpoch.code() as usize] > 0, "{s:?}");
    }
}

/// Epoch rotation on a running receiver by the register-map procedure (docs/register-map.md),
/// every write made over AXI4-Lite while the traffic flows: the rxe corpus under epoch 0 sets up
/// the QPs' state; then a PD slot for (PD 1, epoch 1) is installed (a write to the PD region
/// flushes the derived-key cache), the default policy's next_epoch bit is set (word 0, one
/// write), the sender moves to epoch 1, the policy moves to (epoch 1, next_epoch clear), and
/// after the promotions the old slot is cleared. Every
/// frame must be verified (the QPs that were already running accept epoch 1: until session 16
/// they did not, the RTL and the model took next_epoch from the policy only when a QP's state
/// was made, so only a reset installed a new epoch for a live QP), with the model's bytes and
/// counters.
#[test]
fn live_epoch_rotation_by_register_writes() {
    let keys = demo(Mode::Aead); // default policy: PD 1, epoch 0, next_epoch false
    let plain: Vec<Vec<u8>> = corpus().into_iter().take(130).collect();
    // the sender: the frames under epoch 0, then (its policy rewritten) the same traffic again
    // under epoch 1 (new PNs), so the QPs whose state was made before the install get epoch-1
    // packets
    let mut p = Protector::new(&keys).unwrap();
    let mut stream = Vec::new();
    for f in &plain {
        if let Ok((_, b)) = p.protect(f) {
            stream.push(b);
        }
    }
    let split = stream.len();
    assert!(p.set_epoch(None, 1));
    for f in &plain {
        if let Ok((_, b)) = p.protect(f) {
            stream.push(b);
        }
    }
    assert!(
        split > 100 && stream.len() > split + 100,
        "{split} of {}",
        stream.len()
    );
    let k1 = pd_slot_key(&keys, 1, 1);
    let mut pol = keys.default.clone();
    pol.next_epoch = true;
    let word0 = default_policy_word0(&pol) | preg::NEXT_EPOCH;
    let mut pol1 = keys.default.clone();
    pol1.epoch = 1;
    let moved = default_policy_word0(&pol1);
    // slots after rx_program: 0 = (PD 1, epoch 0); the new key goes to slot 1
    let install_at = 30usize;
    let next_at = 60usize;
    let sched = vec![
        (install_at, preg::pd_slot_writes(1, 1, 1, &k1)),
        (
            next_at,
            vec![preg::RegWrite {
                addr: preg::DEFAULT,
                data: word0,
            }],
        ),
        // the receiver's policy moves on: new QPs start at epoch 1
        (
            split + 40,
            vec![preg::RegWrite {
                addr: preg::DEFAULT,
                data: moved,
            }],
        ),
        (split + 60, preg::pd_slot_clear(0)),
    ];
    // the model: the install applies from a frame between the write and the first epoch-1
    // frame (the epoch-0 frames before it verify the same either way); the policy move from
    // the frame after its write (it changes a verdict only for a QP first seen then)
    let hook = |i: usize, m: &mut Verifier| {
        if i == split {
            assert!(m.set_next_epoch(None, true));
        }
        if i == split + 41 {
            assert!(m.set_epoch(None, 1) && m.set_next_epoch(None, false));
        }
    };
    for (mi, m) in MODES.into_iter().enumerate() {
        let what = "live epoch rotation";
        let mut rng = SplitMix64::new(seed(0x11e0 + mi as u64));
        let mut dut = RocesecVerify::new(Top::RocesecVerify1, m);
        dut.load_keys(&keys).unwrap();
        let expect = expected_out_hooked(&keys, &stream, m, hook);
        let r = dut.run_live(&stream, expect, GAPS, &mut rng, &sched);
        let mut model = Verifier::new(&keys).unwrap();
        let (s, _) = score_hooked(&mut model, &stream, &r, m, what, hook);
        check_counters(&mut dut, &model, m, what);
        eprintln!(
            "{what} [{}]: {} frames ({} verified, {} rejected {}), epoch promotions {}; write \
             batches queued/answered at cycles {:?}, first epoch-1 frame {split} accepted at \
             cycle {}",
            m.name(),
            s.frames,
            s.processed,
            s.rejected,
            reasons(&s),
            model.counters.epoch_promotions,
            r.writes,
            r.in_starts.get(split).copied().unwrap_or(0),
        );
        assert_eq!(s.processed, stream.len(), "every frame verified: {s:?}");
        assert!(model.counters.epoch_promotions > 0);
        // every write was made while frames were flowing
        let last_in = r.in_starts.last().copied().unwrap_or(0);
        assert!(
            r.writes.len() == 4 && r.writes.iter().all(|&(q, a)| q < a && a < last_in),
            "{:?} (last frame in at {last_in})",
            r.writes
        );
        // the install landed before the first epoch-1 frame came in
        assert!(r.writes[1].1 < r.in_starts[split], "{:?}", r.writes);
        // QPs whose state was made before the install were promoted (they send again)
        assert!(model.counters.epoch_promotions >= 2, "{:?}", model.counters);
    }
}

/// A frame that is not authenticated leaves no RX QP state: a QP's state is made by its first
/// authenticated frame, and until then every frame of it meets the policy as it is now
/// (`RxQp::new`). QP X's first frame fails authentication (ICV flipped, IPv4 checksum and ICRC
/// repaired by the attacker), QP Y's first frame has a bad ICRC; then, while another QP's
/// traffic flows, the policy moves to epoch 1 (next_epoch clear); then genuine epoch-0 frames of
/// X and Y arrive: neither QP has state, so both are stale; then epoch-1 frames of X and Y, which
/// are accepted and make the state without an epoch promotion (the counters must agree). Found
/// in review (session 37):
/// the RTL made the state of both at their first frame's decision (a snapshot of the policy at
/// epoch 0) and accepted both; the model made X's before its key selection, and accepted X's
/// frame but not Y's. A forged frame could so hold a QP at an epoch the policy had retired.
#[test]
fn an_unauthenticated_frame_leaves_no_qp_state() {
    use rocesec_model::roce::{parse, Frame};
    let keys = demo(Mode::Aead); // default policy: PD 1, epoch 0, next_epoch false
    let frames = protected(&keys, &corpus());
    let mut keys1 = keys.clone();
    keys1.default.epoch = 1;
    let frames1 = protected(&keys1, &corpus()); // the sender after its move to epoch 1
                                                // a QP as the model names it (QpId: destination GID, destination QPN)
    let qp = |f: &[u8]| match parse(f) {
        Ok(Frame::Roce(p)) if p.sec.is_some() => Some((p.dest_gid(f), p.bth.dest_qp)),
        _ => None,
    };
    // QPs in order of first appearance, with their frames
    type QpFrames = (([u8; 16], u32), Vec<Vec<u8>>);
    let mut by_qp: Vec<QpFrames> = Vec::new();
    let first_of = |id: &([u8; 16], u32)| {
        frames1
            .iter()
            .find(|f| qp(f).as_ref() == Some(id))
            .unwrap()
            .clone()
    };
    for f in &frames {
        let Some(q) = qp(f) else { continue };
        match by_qp.iter_mut().find(|(n, _)| *n == q) {
            Some((_, v)) => v.push(f.clone()),
            None => by_qp.push((q, vec![f.clone()])),
        }
    }
    by_qp.sort_by_key(|(_, v)| std::cmp::Reverse(v.len()));
    assert!(
        by_qp.len() >= 3 && by_qp[0].1.len() >= 40 && by_qp[2].1.len() >= 2,
        "the corpus has a busy QP and two more with two frames: {:?}",
        by_qp
            .iter()
            .map(|(q, v)| (q.1, v.len()))
            .collect::<Vec<_>>()
    );
    let (w, x, y) = (&by_qp[0].1, &by_qp[1].1, &by_qp[2].1);
    let (x3, y3) = (first_of(&by_qp[1].0), first_of(&by_qp[2].0));
    // X's first frame: ICV byte flipped, repaired (authentication fails); Y's: a payload or
    // ICV byte flipped, not repaired (bad ICRC)
    let x1 = icv_flipped(&x[0], true);
    let y1 = icv_flipped(&y[0], false);
    let mut stream = vec![x1, y1];
    stream.extend(w[..10].iter().cloned());
    let write_at = stream.len(); // the policy write is queued as this frame goes in
    stream.extend(w[10..40].iter().cloned());
    let late = stream.len();
    stream.push(x[1].clone());
    stream.push(y[1].clone());
    stream.push(x3);
    stream.push(y3);
    let mut pol1 = keys.default.clone();
    pol1.epoch = 1;
    let moved = default_policy_word0(&pol1);
    // the PD slot of (PD 1, epoch 1) is installed (slot 1; slot 0 holds epoch 0) and the policy
    // moved, in one batch
    let mut batch = preg::pd_slot_writes(1, 1, 1, &pd_slot_key(&keys, 1, 1));
    batch.push(preg::RegWrite {
        addr: preg::DEFAULT,
        data: moved,
    });
    let sched = vec![(write_at, batch)];
    // the model: the move applies from a frame of the busy QP after the write (whose state was
    // made at epoch 0 by its first frames, so its verdicts are the same either way)
    let hook = |i: usize, m: &mut Verifier| {
        if i == write_at + 10 {
            assert!(m.set_epoch(None, 1) && m.set_next_epoch(None, false));
        }
    };
    // the specification, on the model alone
    let mut em = Verifier::new(&keys).unwrap();
    let verdicts: Vec<Result<(), Reason>> = stream
        .iter()
        .enumerate()
        .map(|(i, f)| {
            hook(i, &mut em);
            em.verify(f).map(|_| ())
        })
        .collect();
    assert_eq!(verdicts[0], Err(Reason::AuthFail), "X's forged first frame");
    assert_eq!(verdicts[1], Err(Reason::BadIcrc), "Y's first frame");
    assert!(verdicts[2..late].iter().all(Result::is_ok), "{verdicts:?}");
    assert_eq!(
        &verdicts[late..],
        &[
            Err(Reason::StaleEpoch),
            Err(Reason::StaleEpoch),
            Ok(()),
            Ok(())
        ],
        "X and Y have no state: their epoch-0 frames meet the moved policy, epoch 1 passes"
    );
    assert_eq!(
        em.counters.epoch_promotions, 0,
        "a new QP's first frame promotes nothing"
    );
    for (mi, m) in MODES.into_iter().enumerate() {
        let what = "unauthenticated first frames";
        let mut rng = SplitMix64::new(seed(0x5e38 + mi as u64));
        let mut dut = RocesecVerify::new(Top::RocesecVerify1, m);
        dut.load_keys(&keys).unwrap();
        let expect = verdicts
            .iter()
            .filter(|v| m == VerifyMode::CutThrough || v.is_ok())
            .count();
        let r = dut.run_live(&stream, expect, GAPS, &mut rng, &sched);
        let mut model = Verifier::new(&keys).unwrap();
        let (s, _) = score_hooked(&mut model, &stream, &r, m, what, hook);
        check_counters(&mut dut, &model, m, what);
        assert_eq!(s.by_reason[Reason::StaleEpoch.code() as usize], 2, "{s:?}");
        // the write landed before the late frames came in
        assert!(
            r.writes.len() == 1 && r.writes[0].1 < r.in_starts[late],
            "{:?}",
            r.writes
        );
    }
}

/// Forged frames must not fill the RX QP table (`NumQps` entries in the RTL; the model has no
/// limit, so every verdict below is the model's). Until session 39 an entry, once allocated for
/// a frame decided to be processed, was kept until a reset, so forged frames naming `NumQps`
/// QPs (any QPN: the default policy covers them all) filled the table and every new QP after
/// them got unknown-key. Now an entry no frame has committed to is freed once no frame refers
/// to it. The stream: forged first frames (ICV flipped, checksums repaired) of `NumQps` + 12
/// QPs; then 8 of them made live by a genuine frame, right behind a forged copy of the same PN
/// (it waits in stage D on the fresh entry) or of the PN before (decided while the forgery is
/// pending); then 32 forged frames more, between genuine frames of the live QPs; then 8 more
/// QPs made live. Back to back and with gaps, in both output modes.
#[test]
fn forged_frames_do_not_fill_the_qp_table() {
    const NUM_QPS: u32 = 128; // rocesec_verify's NumQps as co-simulated (its default)
    const PER_QP: u32 = 6;
    let keys = demo(Mode::Aead);
    let nq = NUM_QPS + 12;
    // frame k of QP q carries PN k + 1 (the protector numbers each QP's frames)
    let plain: Vec<Vec<u8>> = (0..nq)
        .flat_map(|q| {
            (0..PER_QP).map(move |k| {
                let mut b = Builder::new(0x04, k, &[0x3c; 40]);
                b.bth.dest_qp = 0x200 + q;
                b.build()
            })
        })
        .collect();
    let prot = protected(&keys, &plain);
    assert_eq!(prot.len(), plain.len());
    let g = |q: u32, pn: u32| prot[(q * PER_QP + pn - 1) as usize].clone();
    let forged = |q: u32, pn: u32| icv_flipped(&g(q, pn), true);
    let mut stream = Vec::new();
    stream.extend((0..nq).map(|q| forged(q, 1)));
    for q in 0..4 {
        stream.push(forged(q, 1));
        stream.push(g(q, 1)); // same PN: waits for the forgery's verdict
    }
    for q in 4..8 {
        stream.push(forged(q, 1));
        stream.push(g(q, 2)); // decided while the forgery is pending
    }
    for k in 0..32 {
        stream.push(forged(8 + k, 2));
        stream.push(g(k % 8, 3 + k / 8)); // PN 3 to 6 of the live QPs
    }
    stream.extend((8..16).map(|q| g(q, 1)));
    stream.extend((8..16).map(|q| g(q, 2)));
    let nforged = (nq + 8 + 32) as usize;
    let mut em = Verifier::new(&keys).unwrap();
    let verdicts: Vec<Result<(), Reason>> =
        stream.iter().map(|f| em.verify(f).map(|_| ())).collect();
    let fails = verdicts
        .iter()
        .filter(|v| **v == Err(Reason::AuthFail))
        .count();
    assert_eq!(fails, nforged, "every forgery fails authentication");
    assert_eq!(
        verdicts.iter().filter(|v| v.is_ok()).count(),
        stream.len() - nforged,
        "every genuine frame passes: {verdicts:?}"
    );
    run_modes_and_gaps(
        "forged frames vs the QP table",
        &keys,
        &stream,
        0x5e39,
        |what, s| {
            let r = |x: Reason| s.by_reason[x.code() as usize];
            assert_eq!(r(Reason::AuthFail), nforged, "{what}: {s:?}");
            assert_eq!(r(Reason::UnknownKey), 0, "{what}: {s:?}");
        },
    );
}

/// Random forgeries, corrupted frames and replays over many QPs, most of them met first by a
/// frame that fails: the RX QP entries such frames take are freed and taken again all the time
/// (session 39). A replay after a lost or shared QP state would be accepted; every verdict
/// and the counters must equal the model's. (The one cycle no top-level stream was seen to
/// reach, a header entering D as its entry is freed, is driven directly in
/// `verify_key.rs::a_header_entering_as_its_entry_is_freed`.) This test found a harness bug:
/// `check_counters` read the counters before the last, dropped frame's verdict was counted.
/// Cohorts of 6 new QPs, 30 frames each: a frame of a new QP (4 in 5) or of an older one; genuine with the next PN (7 in 20), a forged copy of a
/// frame (ICV flipped, checksums repaired; 6 in 20), a copy with a bad ICRC (2 in 20), or a
/// replay of one of the QP's genuine frames (5 in 20; forged when there is none yet). Payloads
/// of 0 to 160 bytes. Back to back and with gaps, both output modes, 3 seeds.
#[test]
fn random_forgeries_and_replays_over_many_qps() {
    const PER_QP: usize = 8;
    const COHORT: usize = 6;
    let keys = demo(Mode::Aead);
    for sd in 0..3u64 {
        let mut rng = SplitMix64::new(seed(0x5e3a + sd));
        let nq = 16 * COHORT;
        let prot = per_qp_frames(&keys, &mut rng, nq, PER_QP, 160, 0x600);
        let mut next = vec![0usize; nq]; // genuine frames sent per QP
        let mut stream = Vec::new();
        for c in 0..nq / COHORT {
            for _ in 0..30 {
                let q = if c == 0 || rng.chance(4, 5) {
                    c * COHORT + rng.below(COHORT as u64) as usize
                } else {
                    rng.below((c * COHORT) as u64) as usize
                };
                let a = rng.below(20);
                let k = next[q];
                if a < 7 && k < PER_QP {
                    stream.push(prot[q * PER_QP + k].clone());
                    next[q] += 1;
                } else if a >= 15 && k > 0 {
                    let j = rng.below(k as u64) as usize;
                    stream.push(prot[q * PER_QP + j].clone());
                } else {
                    let j = rng.below(k.min(PER_QP - 1) as u64 + 1) as usize;
                    // forged (a < 13 or a replay's stand-in); else the ICRC stays bad
                    let f = icv_flipped(&prot[q * PER_QP + j], !(13..15).contains(&a));
                    stream.push(f);
                }
            }
        }
        let what = format!("random forgeries, seed {sd}");
        run_modes_and_gaps(&what, &keys, &stream, 0x5e40 + sd * 4, |what, s| {
            let r = |x: Reason| s.by_reason[x.code() as usize];
            assert!(
                r(Reason::AuthFail) > 50
                    && r(Reason::BadIcrc) > 10
                    && r(Reason::Replay) > 20
                    && r(Reason::UnknownKey) == 0
                    && s.processed > 100,
                "{what}: {s:?}"
            );
        });
    }
}

/// (dest GID, dest QPN) of a RoCE frame: its RX QP identity.
fn qp_id(f: &[u8]) -> ([u8; 16], u32) {
    use rocesec_model::roce::{parse, Frame};
    let Ok(Frame::Roce(p)) = parse(f) else {
        panic!("not a RoCE frame: {}", hex::encode(f))
    };
    (p.dest_gid(f), p.bth.dest_qp)
}

/// `per_qp` protected RC SENDs (PSN 0, 1, ...) to each of `nq` QPs (QPN `qpn0` + q), QP by QP:
/// frame `q * per_qp + k` is QP q's k-th, its payload 0 to `max_len` bytes drawn from `rng`.
fn per_qp_frames(
    keys: &KeyFile,
    rng: &mut SplitMix64,
    nq: usize,
    per_qp: usize,
    max_len: u64,
    qpn0: u32,
) -> Vec<Vec<u8>> {
    let plain: Vec<Vec<u8>> = (0..nq)
        .flat_map(|q| (0..per_qp).map(move |k| (q, k)))
        .map(|(q, k)| {
            let len = rng.below(max_len + 1) as usize;
            let mut b = Builder::new(0x04, k as u32, &vec![0x5c; len]);
            b.bth.dest_qp = qpn0 + q as u32;
            b.build()
        })
        .collect();
    let prot = protected(keys, &plain);
    assert_eq!(prot.len(), plain.len());
    prot
}

/// The RTL's output `o` (`tuser`: reason, forward kind; bytes) is the model's verdict `v`.
fn out_is(v: &Verdict, o: &OutFrame) -> bool {
    let (reason, fwd) = (o.tuser & 0xF, (o.tuser >> 4) & 3);
    match v {
        Ok((k, b)) => reason == 0 && fwd == fwd_code(*k) && *b == o.data,
        Err(rm) => reason == rm.code(),
    }
}

/// The index of the first frame whose RTL verdict or bytes differ from the model's with
/// `hook(i, model)` called before frame `i` ([`score_hooked`] without the panics), or
/// `frames.len()` when only the number of frames out differs.
fn first_mismatch(
    model: &mut Verifier,
    frames: &[Vec<u8>],
    r: &RunResult,
    mode: VerifyMode,
    mut hook: impl FnMut(usize, &mut Verifier),
) -> Option<usize> {
    let mut out = r.out.iter();
    for (i, f) in frames.iter().enumerate() {
        hook(i, model);
        let v = model.verify(f);
        if mode == VerifyMode::StoreForward && v.is_err() {
            continue;
        }
        let Some(o) = out.next() else {
            return Some(i);
        };
        if !out_is(&v, o) {
            return Some(i);
        }
    }
    out.next().map(|_| frames.len())
}

/// QP release (session 40): a receiver whose QPs come and go releases the RX state of each
/// destroyed QP (`regmap::qp_release_writes`, model `Verifier::release_qp`), so the state
/// table does not fill. 176 QPs (the table holds 128) in batches of 8, each QP with PN 1 and 2;
/// the QPs of batch b - 3 are released (with the top idle, so the model applies each release
/// exactly there) before batch b; each batch also replays PN 1 of a live QP (rejected) and,
/// from batch 6 on, PN 1 and then PN 3 of a QP released three batches before (accepted: the
/// release forgets the replay window, which is why a released QP's key must not be used
/// again, docs/threat-model.md). Every verdict, byte and counter equals the model's. Without
/// the release (the RTL ignoring the write), QP 128 and every later one get unknown-key.
#[test]
fn released_qps_free_the_qp_table() {
    const NQ: usize = 176;
    const B: usize = 8;
    let keys = demo(Mode::Aead);
    let plain: Vec<Vec<u8>> = (0..NQ)
        .flat_map(|q| {
            (0..3u32).map(move |k| {
                let mut b = Builder::new(0x04, k, &[0x3c; 40]);
                b.bth.dest_qp = 0x900 + q as u32;
                b.build()
            })
        })
        .collect();
    let prot = protected(&keys, &plain);
    assert_eq!(prot.len(), plain.len());
    let g = |q: usize, pn: usize| prot[q * 3 + pn - 1].clone();
    for (mi, m) in MODES.into_iter().enumerate() {
        let what = format!("QP release [{}]", m.name());
        let mut rng = SplitMix64::new(seed(0x4e1 + mi as u64));
        let mut dut = RocesecVerify::new(Top::RocesecVerify1, m);
        dut.load_keys(&keys).unwrap();
        let mut model = Verifier::new(&keys).unwrap();
        let mut total = Score::default();
        let mut released = 0usize;
        for b in 0..NQ / B {
            if b >= 3 {
                for q in (b - 3) * B..(b - 2) * B {
                    let (gid, qpn) = qp_id(&g(q, 1));
                    for w in preg::qp_release_writes(&gid, qpn).unwrap() {
                        dut.write(w.addr, w.data);
                    }
                    assert!(model.release_qp((gid, qpn)), "{what}: QP {q} had state");
                    released += 1;
                }
            }
            let mut chunk: Vec<Vec<u8>> = (b * B..(b + 1) * B).map(|q| g(q, 1)).collect();
            chunk.extend((b * B..(b + 1) * B).map(|q| g(q, 2)));
            if b >= 1 {
                chunk.push(g((b - 1) * B + b % B, 1)); // live: a replay
            }
            if b >= 6 {
                let q = (b - 6) * B + b % B; // released before batch b - 3
                chunk.push(g(q, 1));
                chunk.push(g(q, 3));
            }
            let mut check = Verifier::clone(&model);
            let expect = match m {
                VerifyMode::CutThrough => chunk.len(),
                VerifyMode::StoreForward => {
                    chunk.iter().filter(|f| check.verify(f).is_ok()).count()
                }
            };
            let r = dut.run(&chunk, expect, GAPS, &mut rng);
            let (s, _) = score(&mut model, &chunk, &r, m, &format!("{what}, batch {b}"));
            dut.idle(200);
            total.frames += s.frames;
            total.processed += s.processed;
            total.rejected += s.rejected;
            for (t, x) in total.by_reason.iter_mut().zip(s.by_reason) {
                *t += x;
            }
        }
        check_counters(&mut dut, &model, m, &what);
        eprintln!(
            "{what}: {} frames ({} verified, {} rejected {}), {released} QPs released",
            total.frames,
            total.processed,
            total.rejected,
            reasons(&total)
        );
        let r = |x: Reason| total.by_reason[x.code() as usize];
        assert_eq!(r(Reason::UnknownKey), 0, "{what}: {total:?}");
        assert_eq!(r(Reason::Replay), NQ / B - 1, "{what}: {total:?}");
        assert_eq!(total.rejected, NQ / B - 1, "{what}: {total:?}");
        assert_eq!(released, (NQ / B - 3) * B);
    }
}

/// A release while the QP's own frames flow (session 40): QP A among three others, frames
/// round robin at line rate, with replays of A's PN - 8 (rejected while A's state holds);
/// A is released by register writes made during the traffic. The release is ordered between
/// two of the key stage's decisions: frames decided before it commit to the released entry
/// (which is then freed), later ones meet a new QP's state, so A's replays after it are
/// accepted once. The RTL's run must equal the model's with `release_qp` applied before one
/// frame j within 48 frames of the one at which the write was queued (before it as well: a
/// frame inside the top is decided after its first beat entered); which j depends on the
/// cycle, so every such j is tried. Without the release no j fits (A's later replays would be
/// rejected). Both output modes, back to back and with gaps, two release points.
#[test]
fn a_release_during_the_qps_own_traffic() {
    const N: u32 = 60; // genuine frames per QP
    let keys = demo(Mode::Aead);
    let plain: Vec<Vec<u8>> = (0..4u32)
        .flat_map(|q| {
            (0..N).map(move |k| {
                let mut b = Builder::new(0x04, k, &vec![0x5a; 24 + 8 * q as usize]);
                b.bth.dest_qp = 0xa00 + q;
                b.build()
            })
        })
        .collect();
    let prot = protected(&keys, &plain);
    assert_eq!(prot.len(), plain.len());
    let g = |q: u32, pn: u32| prot[(q * N + pn - 1) as usize].clone();
    let mut stream = Vec::new();
    for pn in 1..=N {
        for q in 0..4 {
            stream.push(g(q, pn));
        }
        if pn > 8 && pn % 3 == 0 {
            stream.push(g(0, pn - 8));
        }
    }
    let (gid, qpn) = qp_id(&g(0, 1));
    let mut fitted = Vec::new();
    for (ri, rel_at) in [70usize, 140].into_iter().enumerate() {
        for (mi, m) in MODES.into_iter().enumerate() {
            for t in [LINE, GAPS] {
                let what = format!(
                    "release during traffic at frame {rel_at} [{}] (idle {})",
                    m.name(),
                    t.idle
                );
                let mut rng = SplitMix64::new(seed(0x4e5 + (ri * 4 + mi * 2) as u64 + t.idle));
                let mut dut = RocesecVerify::new(Top::RocesecVerify1, m);
                dut.load_keys(&keys).unwrap();
                let sched = vec![(rel_at, preg::qp_release_writes(&gid, qpn).unwrap())];
                let hook_at = |j: usize| {
                    move |i: usize, v: &mut Verifier| {
                        if i == j {
                            v.release_qp((gid, qpn));
                        }
                    }
                };
                let fits = |r: &RunResult, j: usize| {
                    let mut model = Verifier::new(&keys).unwrap();
                    first_mismatch(&mut model, &stream, r, m, hook_at(j)).is_none()
                };
                let expect_for = |j: usize| expected_out_hooked(&keys, &stream, m, hook_at(j));
                // run until the largest count any j gives: when the RTL sends fewer, the harness
                // ends after 20,000 quiet cycles with every frame out (stalled, cleared here: a
                // real stall loses frames, and then no j fits)
                let expect = (rel_at - 48..rel_at + 48).map(expect_for).max().unwrap();
                let mut r = dut.run_live(&stream, expect, t, &mut rng, &sched);
                if r.out.len() < expect {
                    r.stalled = false;
                }
                let j = (rel_at - 48..rel_at + 48).find(|&j| fits(&r, j));
                let Some(j) = j else {
                    let mut model = Verifier::new(&keys).unwrap();
                    let d = first_mismatch(&mut model, &stream, &r, m, hook_at(rel_at + 47));
                    panic!("{what}: no release point fits; with the latest, frame {d:?} differs");
                };
                let mut model = Verifier::new(&keys).unwrap();
                let (s, _) = score_hooked(&mut model, &stream, &r, m, &what, hook_at(j));
                check_counters(&mut dut, &model, m, &what);
                eprintln!(
                    "{what}: release applied before frame {j} (write queued/answered at cycles \
                     {:?}); {} frames, {} verified, {} rejected {}",
                    r.writes,
                    s.frames,
                    s.processed,
                    s.rejected,
                    reasons(&s)
                );
                let a_frames_after = stream[j..]
                    .iter()
                    .filter(|f| qp_id(f) == (gid, qpn))
                    .count();
                assert!(a_frames_after > 20, "{what}");
                assert!(
                    s.by_reason[Reason::Replay.code() as usize] > 0,
                    "{what}: {s:?}"
                );
                fitted.push(j as isize - rel_at as isize);
            }
        }
    }
    eprintln!("earliest release points that fit, in frames from the write's frame: {fitted:?}");
}

/// Random releases during random traffic (session 40): 40 QPs, 640 frames per run: genuine
/// frames with the next PN, replays of a QP's earlier frames, forged copies and bad-ICRC
/// copies; every 64 frames a QP that has had frames, but none in the last 48, is released by
/// register writes made during the traffic, and it gets no frame in the next 48 (a destroyed
/// QP: its frames still inside the top are decided before or after the release, which only
/// `a_release_during_the_qps_own_traffic` and `verify_key.rs::a_release_between_two_decisions`
/// pin down); then its frames go on, so its old frames, replayed, are accepted once after the
/// release, as the model's are. The model releases the QP where the write was queued; every
/// verdict, byte and counter must be the model's. Both output modes, back to back and with
/// gaps, 3 seeds.
#[test]
fn random_releases_during_traffic() {
    const NQ: usize = 40;
    const PER_QP: usize = 24;
    const EVERY: usize = 64;
    const QUIET: usize = 48;
    let keys = demo(Mode::Aead);
    for sd in 0..3u64 {
        let mut rng = SplitMix64::new(seed(0x4e9 + sd));
        let prot = per_qp_frames(&keys, &mut rng, NQ, PER_QP, 96, 0xb00);
        let mut next = vec![0usize; NQ];
        let mut last = vec![None::<usize>; NQ]; // the last frame of each QP
        let mut quiet_until = vec![0usize; NQ];
        let mut stream = Vec::new();
        let mut sched = Vec::new();
        let mut rels: Vec<(usize, ([u8; 16], u32))> = Vec::new();
        while stream.len() < 640 {
            let i = stream.len();
            if i % EVERY == EVERY / 2 {
                let idle: Vec<usize> = (0..NQ)
                    .filter(|&q| last[q].is_some_and(|l| l + QUIET < i))
                    .collect();
                if !idle.is_empty() {
                    let q = idle[rng.below(idle.len() as u64) as usize];
                    let id = qp_id(&prot[q * PER_QP]);
                    sched.push((i, preg::qp_release_writes(&id.0, id.1).unwrap()));
                    rels.push((i, id));
                    quiet_until[q] = i + QUIET;
                }
            }
            let q = rng.below(NQ as u64) as usize;
            if quiet_until[q] > i {
                continue;
            }
            let k = next[q];
            let a = rng.below(20);
            if a < 10 && k < PER_QP {
                stream.push(prot[q * PER_QP + k].clone());
                next[q] += 1;
            } else if a < 15 && k > 0 {
                stream.push(prot[q * PER_QP + rng.below(k as u64) as usize].clone());
            } else {
                let j = rng.below(k.min(PER_QP - 1) as u64 + 1) as usize;
                stream.push(icv_flipped(&prot[q * PER_QP + j], a < 18));
            }
            last[q] = Some(i);
        }
        assert!(rels.len() >= 8, "seed {sd}: {} releases", rels.len());
        let hook = |i: usize, v: &mut Verifier| {
            for (at, id) in &rels {
                if i == *at {
                    v.release_qp(*id);
                }
            }
        };
        for (mi, m) in MODES.into_iter().enumerate() {
            for t in [LINE, GAPS] {
                let what = format!(
                    "random releases, seed {sd} [{}] (idle {})",
                    m.name(),
                    t.idle
                );
                let mut rng = SplitMix64::new(seed(0x4f0 + sd * 4 + mi as u64 * 2 + t.idle));
                let mut dut = RocesecVerify::new(Top::RocesecVerify1, m);
                dut.load_keys(&keys).unwrap();
                let expect = expected_out_hooked(&keys, &stream, m, hook);
                let r = dut.run_live(&stream, expect, t, &mut rng, &sched);
                let mut model = Verifier::new(&keys).unwrap();
                let (s, _) = score_hooked(&mut model, &stream, &r, m, &what, hook);
                check_counters(&mut dut, &model, m, &what);
                eprintln!(
                    "{what}: {} frames ({} verified, {} rejected {}); {} releases",
                    s.frames,
                    s.processed,
                    s.rejected,
                    reasons(&s),
                    rels.len()
                );
                let r = |x: Reason| s.by_reason[x.code() as usize];
                assert!(
                    r(Reason::AuthFail) > 30
                        && r(Reason::BadIcrc) > 10
                        && r(Reason::Replay) > 30
                        && r(Reason::UnknownKey) == 0
                        && s.processed > 200,
                    "{what}: {s:?}"
                );
            }
        }
    }
}

/// A policy write behind a QP's first frame (found by a review in session 40 of the
/// session-38 fresh-entry design, fixed in session 41). QP X's first frame F (epoch 0) waits
/// for its verdict with X's entry still fresh; a policy write moves the default policy to
/// epoch 1; X's next frame H (epoch 0) follows. The model commits F before the write (X at
/// epoch 0) and accepts H; with the write before F, both are stale. Before the fix the RTL
/// decided H ahead of F's verdict as `RxQp::new` of the policy as it is now ([ok, stale-epoch]:
/// no order of the write fits), and F's commit counted an epoch promotion (the fresh entry had
/// followed the policy to epoch 1). Now H waits in stage D for F's verdict while the policy
/// differs from the one F was decided with, and a fresh entry with a pending commit keeps that
/// policy. With F forged the entry stays fresh and H meets the new policy (stale). Both output
/// modes; every verdict, byte and counter equals the model's with the write at one of the two
/// points.
#[test]
fn a_policy_write_behind_a_qps_first_frame() {
    let keys = demo(Mode::Aead);
    let genuine = protected(&keys, &first_frame_and_next());
    let forged = vec![icv_flipped(&genuine[0], true), genuine[1].clone()];
    let mut pol1 = keys.default.clone();
    pol1.epoch = 1;
    let write = default_policy_word0(&pol1);
    let apply = |v: &mut Verifier| assert!(v.set_epoch(None, 1));
    write_behind_first_frame("F genuine", &keys, &genuine, write, apply, Ok(()));
    write_behind_first_frame(
        "F forged",
        &keys,
        &forged,
        write,
        apply,
        Err(Reason::StaleEpoch),
    );
}

/// The next_epoch half of the wait (found missing from the tests by a review in session 41):
/// the default policy at (epoch 0, next_epoch set), so a QP's state made by its first frame F
/// accepts epoch 1; a write clears next_epoch while F waits for its verdict; the QP's next
/// frame H comes under epoch 1. The model commits F before the write (the QP keeps the
/// next_epoch of its policy at F) and accepts H with a promotion; with the write before F, H
/// is unknown-key. A stage that decided H ahead of F's verdict with the policy as it is now
/// (the wait comparing the epoch alone) gives unknown-key with no order of the write fitting.
#[test]
fn a_next_epoch_clear_behind_a_qps_first_frame() {
    let mut keys = demo(Mode::Aead);
    keys.default.next_epoch = true;
    let plain = first_frame_and_next();
    let mut tx = Protector::new(&keys).unwrap();
    let f = tx.protect(&plain[0]).unwrap().1;
    assert!(tx.set_epoch(None, 1));
    let h = tx.protect(&plain[1]).unwrap().1;
    let mut pol = keys.default.clone();
    pol.next_epoch = false;
    let write = default_policy_word0(&pol); // (no NEXT_EPOCH bit)
    let apply = |v: &mut Verifier| assert!(v.set_next_epoch(None, false));
    write_behind_first_frame("next_epoch cleared", &keys, &[f, h], write, apply, Ok(()));
}

/// A QP's first frame F (1,024-B payload, 64 beats: its header is decided long before a write
/// queued as the next frame enters) and its next frame H (32 B: decided before F's tag is
/// checked), RC SEND to QPN 0xc01.
fn first_frame_and_next() -> Vec<Vec<u8>> {
    (0..2u32)
        .map(|k| {
            let mut b = Builder::new(0x04, k, &vec![0x33; if k == 0 { 1024 } else { 32 }]);
            b.bth.dest_qp = 0xc01;
            b.build()
        })
        .collect()
}

/// Run `stream` (a QP's first frame F and its next frame H) through the verify top in both
/// output modes with the default policy's word 0 written as H enters (`word0`), and require
/// the model with the write (`apply`) before H or before F to give every verdict and byte,
/// the counters to be those of the write before H, and H's verdict there to be `want_h`.
fn write_behind_first_frame(
    name: &str,
    keys: &KeyFile,
    stream: &[Vec<u8>],
    word0: u32,
    apply: impl Fn(&mut Verifier) + Copy,
    want_h: Result<(), Reason>,
) {
    // queued once 2 frames have started (as H enters)
    let sched = vec![(
        2usize,
        vec![preg::RegWrite {
            addr: preg::DEFAULT,
            data: word0,
        }],
    )];
    // the model with the write applied before frame `before`
    let write_before = |before: usize| {
        move |i: usize, v: &mut Verifier| {
            if i == before {
                apply(v);
            }
        }
    };
    let code = |v: Result<(), Reason>| v.map_err(|r| r.code());
    for m in MODES {
        let what = format!("{name}, {m:?}");
        let mut rng = SplitMix64::new(seed(0xf1e5));
        let mut dut = RocesecVerify::new(Top::RocesecVerify1, m);
        dut.load_keys(keys).unwrap();
        let r = dut.run_live(stream, stream.len(), LINE, &mut rng, &sched);
        let rtl: Vec<u8> = r.out.iter().map(|o| o.tuser & 0xF).collect();
        let fit = [1usize, 0].into_iter().find_map(|before| {
            let mut model = Verifier::new(keys).unwrap();
            first_mismatch(&mut model, stream, &r, m, write_before(before))
                .is_none()
                .then_some(model)
        });
        let Some(model) = fit else {
            panic!("{what}: no order of the policy write fits the RTL: {rtl:?}");
        };
        check_counters(&mut dut, &model, m, &what);
        // the write between the frames: H's verdict is the one the sequential model gives
        let mut between = Verifier::new(keys).unwrap();
        let hook = write_before(1);
        let v: Vec<_> = stream
            .iter()
            .enumerate()
            .map(|(i, f)| {
                hook(i, &mut between);
                code(between.verify(f).map(|_| ()))
            })
            .collect();
        assert_eq!(v[1], code(want_h), "{what}: model {v:?}");
        eprintln!("{what}: rtl reasons {rtl:?}, model (write between) {v:?}");
        assert_eq!(
            model.counters, between.counters,
            "{what}: the RTL fits the write between"
        );
    }
}

/// Random policy writes behind QPs' first frames (session 41; the random companion of
/// [`a_policy_write_behind_a_qps_first_frame`]). 8 QPs with policy entries of their own (the
/// default policy's values), each in an episode: its first frame F (256 to 2,048-B payload,
/// forged with probability 1/3), then 10 frames drawn from it and 4 QPs under the default
/// policy, its own at epoch 0 among the first 5 and at epoch 1 after; its policy entry's word 0
/// moves it to epoch 1 as frame F + 2..F + 4 enters (the PD slot of epoch 1 installed before the
/// traffic). The QPs do not share state or policy, so each write is fitted on its own: the model
/// with that write before some frame g must give the RTL's verdict and bytes for that QP's
/// frames, g no earlier than the first frame whose verdict had not left when the write was
/// queued and no later than the first frame that came in after it was answered; then one model with every write at its point must
/// give every verdict, byte and counter. Cut-through (one output per frame), back to back and
/// with gaps, 6 seeds; at least 12 of the 48 writes must have landed while a genuine F's
/// verdict was pending.
#[test]
fn random_policy_writes_behind_first_frames() {
    use rocesec_model::keys::QpEntry;
    const NX: usize = 8;
    const NB: u32 = 4;
    let m = VerifyMode::CutThrough;
    let base = demo(Mode::Aead);
    let (gid, _) = qp_id(&Builder::new(0x04, 0, &[0; 8]).build());
    let ip = std::net::IpAddr::from([gid[12], gid[13], gid[14], gid[15]]);
    let mut keys = base.clone();
    keys.qps = (0..NX)
        .map(|i| QpEntry {
            gid: ip,
            qpn: 0xd00 + i as u32,
            policy: base.default.clone(),
        })
        .collect();
    let word0 = |i: usize, epoch: u8| {
        let mut pol = keys.default.clone();
        pol.epoch = epoch;
        let at = preg::POLICY + preg::POLICY_STRIDE * i as u16;
        let w = preg::policy_writes(at, &gid, 0xd00 + i as u32, &pol).unwrap();
        *w.last().unwrap()
    };
    let mut between = 0usize;
    for (sd, t) in (0..6u64).map(|sd| (sd, if sd % 2 == 0 { LINE } else { GAPS })) {
        let mut rng = SplitMix64::new(seed(0x9e11 + sd));
        // plan: (QP: 0..NX own policy, NX.. default; payload length; epoch; forged)
        let mut plan: Vec<(usize, usize, u8, bool)> = Vec::new();
        let mut sched = vec![(
            0usize,
            preg::pd_slot_writes(1, 1, 1, &pd_slot_key(&keys, 1, 1)),
        )];
        let mut firsts = Vec::new();
        for x in 0..NX {
            firsts.push(plan.len());
            let flen = [256usize, 1024, 2048][rng.below(3) as usize];
            plan.push((x, flen, 0, rng.below(3) == 0));
            sched.push((plan.len() + 1 + rng.below(3) as usize, vec![word0(x, 1)]));
            for k in 0..10 {
                let q = if rng.below(2) == 0 {
                    x
                } else {
                    NX + rng.below(u64::from(NB)) as usize
                };
                plan.push((
                    q,
                    rng.below(257) as usize,
                    u8::from(q == x && k >= 5),
                    false,
                ));
            }
        }
        // the sender: each QP's PNs in order; a QP's epoch moves with its first epoch-1 frame
        let mut tx = Protector::new(&keys).unwrap();
        let mut moved = [false; NX];
        let stream: Vec<Vec<u8>> = plan
            .iter()
            .map(|&(q, len, ep, forge)| {
                let mut b = Builder::new(0x04, 0, &vec![0x5d; len]);
                b.bth.dest_qp = if q < NX { 0xd00 } else { 0xe00 - NX as u32 } + q as u32;
                let f = b.build();
                if q < NX && ep == 1 && !moved[q] {
                    assert!(tx.set_epoch(Some(qp_id(&f)), 1));
                    moved[q] = true;
                }
                let g = tx.protect(&f).unwrap().1;
                if forge {
                    icv_flipped(&g, true)
                } else {
                    g
                }
            })
            .collect();
        let what = format!("seed {sd}, {t:?}");
        let mut dut = RocesecVerify::new(Top::RocesecVerify1, m);
        dut.load_keys(&keys).unwrap();
        let r = dut.run_live(&stream, stream.len(), t, &mut rng, &sched);
        assert_eq!(r.out.len(), stream.len(), "{what}");
        // each write on its own: the first point g that fits the QP's frames
        let mut at = Vec::new();
        for (x, &(queued, _)) in sched[1..].iter().enumerate() {
            let id = qp_id(&stream[firsts[x]]);
            // the write was taken between the cycle it was queued and the cycle it was
            // answered: a frame whose verdict left before the first was decided before it, a
            // frame that came in after the second is decided after it
            let (wq, wa) = r.writes[1 + x];
            let lo = r.out.iter().take_while(|o| o.last_cycle < wq).count();
            let hi = r
                .in_starts
                .iter()
                .position(|&c| c > wa)
                .unwrap_or(stream.len());
            let g = (lo..=hi).find(|&g| {
                let mut v = Verifier::new(&keys).unwrap();
                stream.iter().zip(&r.out).enumerate().all(|(i, (f, o))| {
                    if i == g {
                        assert!(v.set_epoch(Some(id), 1));
                    }
                    let w = v.verify(f);
                    plan[i].0 != x || out_is(&w, o)
                })
            });
            // the QP's frames and the RTL's reasons
            let own: Vec<(usize, u8)> = (0..stream.len())
                .filter(|&i| plan[i].0 == x)
                .map(|i| (i, r.out[i].tuser & 0xF))
                .collect();
            let Some(g) = g else {
                panic!(
                    "{what}: no point in {lo}..={hi} of QP {x}'s policy write fits the RTL: {own:?}"
                );
            };
            // the scenario's precondition: F authenticated (so decided before the write), the
            // write answered while F's verdict was pending
            let f = firsts[x];
            if r.out[f].tuser & 0xF == 0 && wa < r.out[f].last_cycle {
                between += 1;
            }
            eprintln!("{what}: QP {x} write queued at frame {queued}, taken in frames {lo}..={hi}, fits at {g}: {own:?}");
            at.push((g, id));
        }
        let hook = |i: usize, v: &mut Verifier| {
            for &(g, id) in &at {
                if i == g {
                    assert!(v.set_epoch(Some(id), 1));
                }
            }
        };
        let mut model = Verifier::new(&keys).unwrap();
        let (s, _) = score_hooked(&mut model, &stream, &r, m, &what, hook);
        check_counters(&mut dut, &model, m, &what);
        eprintln!(
            "{what}: {} frames ({} verified, {} rejected {}), promotions {}; writes at {:?}",
            s.frames,
            s.processed,
            s.rejected,
            reasons(&s),
            model.counters.epoch_promotions,
            at.iter().map(|a| a.0).collect::<Vec<_>>()
        );
    }
    eprintln!("{between} writes landed while a genuine F was pending");
    assert!(
        between >= 12,
        "{between} writes landed behind a pending genuine F"
    );
}

/// Latency of isolated frames (key cached) and the throughput of back-to-back frames of one
/// size, in both modes; and the cost of a cold key (derivation) on the first frame.
#[test]
fn latency_and_throughput() {
    let keys = demo(Mode::Aead);
    for len in [0usize, 64, 256, 1024, 4096] {
        let plain: Vec<Vec<u8>> = (0..40)
            .map(|i| Builder::new(0x04, i, &vec![0x5a; len]).build())
            .collect();
        let frames = protected(&keys, &plain);
        for m in MODES {
            let mut rng = SplitMix64::new(1);
            let mut dut = RocesecVerify::new(Top::RocesecVerify1, m);
            dut.load_keys(&keys).unwrap();
            let mut model = Verifier::new(&keys).unwrap();
            let mut lat = Vec::new();
            for f in &frames[..4] {
                let r = dut.run(std::slice::from_ref(f), 1, LINE, &mut rng);
                score(&mut model, std::slice::from_ref(f), &r, m, "latency");
                lat.push(r.out[0].last_cycle - r.in_starts[0]);
            }
            let r = dut.run(&frames[4..], frames.len() - 4, LINE, &mut rng);
            score(&mut model, &frames[4..], &r, m, "throughput");
            let inb = beats_of(&frames[4..]);
            let outb: u64 = r.out.iter().map(|o| o.data.len().div_ceil(16) as u64).sum();
            // steady state: from the last beat of the middle frame to the last beat of the run
            let (a, z) = (r.out.len() / 2, r.out.len() - 1);
            let span = r.out[z].last_cycle - r.out[a].last_cycle;
            let in_ss = beats_of(&frames[4 + a + 1..]);
            let out_ss: u64 = r.out[a + 1..]
                .iter()
                .map(|o| o.data.len().div_ceil(16) as u64)
                .sum();
            eprintln!(
                "verify [{}] SEND_ONLY payload {len:4}: frame {:4} B, latency first-in to \
                 last-out {} cycles (cold key {}), back-to-back {:.3} in / {:.3} out beats/cycle \
                 over the run ({} cycles incl. fill), steady state {:.3} in / {:.3} out \
                 beats/cycle ({} idle input cycles in {} frames)",
                m.name(),
                frames[0].len(),
                lat[3],
                lat[0],
                inb as f64 / r.cycles as f64,
                outb as f64 / r.cycles as f64,
                r.cycles,
                in_ss as f64 / span as f64,
                out_ss as f64 / span as f64,
                span.saturating_sub(in_ss),
                z - a
            );
            // line rate: the input (24 bytes longer per frame) is taken at 1 beat per cycle
            assert_eq!(span, in_ss, "{} payload {len}: idle input cycles", m.name());
        }
    }
}

/// Cold-key cost on the KDF (kdf_cmac): an RDMA WRITE Only needs K_mr and K_node (cold), the
/// same node again (warm), another node of the same MR (K_node only), a SEND on a new QP (K_qp,
/// same K_pd: CMAC subkeys cached in kdf_cmac) and one with a new PD key.
#[test]
fn cold_key_cycles() {
    let keys = demo(Mode::HeaderAuth);
    let w = |i: u32, va: u64| {
        Builder::new(0x0A, i, &[0x11; 64])
            .reth(va, 0x1234, 64)
            .build()
    };
    let mut s2 = Builder::new(0x04, 9, &[0x22; 64]);
    s2.bth.dest_qp = 0x77;
    let plain = vec![
        w(1, 0x10_0000),
        w(2, 0x10_0000),
        w(3, 0x20_0000),
        Builder::new(0x04, 4, &[0x22; 64]).build(),
        s2.build(),
    ];
    let frames = protected(&keys, &plain);
    let mut dut = RocesecVerify::new(Top::RocesecVerify1, VerifyMode::CutThrough);
    dut.load_keys(&keys).unwrap();
    let mut model = Verifier::new(&keys).unwrap();
    let mut rng = SplitMix64::new(3);
    let mut lat = Vec::new();
    for f in &frames {
        let r = dut.run(std::slice::from_ref(f), 1, LINE, &mut rng);
        score(
            &mut model,
            std::slice::from_ref(f),
            &r,
            VerifyMode::CutThrough,
            "cold key",
        );
        lat.push(r.out[0].last_cycle - r.in_starts[0]);
    }
    eprintln!(
        "cold key (verify, 130-B frames, first-in to last-out): node key with K_mr {} cycles, \
         warm {}, node key (K_mr cached) {}, QP key {}, QP key of another QP (K_pd subkeys \
         cached) {}",
        lat[0], lat[1], lat[2], lat[3], lat[4]
    );
    assert!(lat[0] > lat[2] && lat[2] > lat[1]);
}

/// The fault-injected build (one flipped S-box bit) must disagree with the model: every
/// protected frame fails authentication in the RTL.
#[test]
fn a_flipped_sbox_bit_is_caught() {
    let keys = demo(Mode::HeaderAuth);
    let frames: Vec<Vec<u8>> = protected(&keys, &corpus()).into_iter().take(50).collect();
    for m in MODES {
        let result = std::panic::catch_unwind(|| {
            run_case(
                "fault",
                Top::RocesecVerify1Fault,
                &keys,
                &frames,
                m,
                LINE,
                9,
                |_| {},
            )
        });
        assert!(
            result.is_err(),
            "{}: the fault build agreed with the model",
            m.name()
        );
    }
}

/// Back-to-back protected frames of mixed sizes (300 frames, 82 B to 4.2 KB), keys cached, every
/// protection mode, both verify modes: the input is taken at one beat per cycle with no idle
/// cycle.
#[test]
fn mixed_sizes_back_to_back_line_rate() {
    let sizes = [
        0usize, 64, 0, 256, 1, 17, 0, 1024, 3, 0, 0, 4096, 15, 16, 31, 33, 500,
    ];
    for mode in [Mode::Aead, Mode::HeaderAuth, Mode::PacketAuth] {
        let keys = demo(mode);
        let plain: Vec<Vec<u8>> = (0..300)
            .map(|i| Builder::new(0x04, i as u32, &vec![0x5a; sizes[i % sizes.len()]]).build())
            .collect();
        let frames = protected(&keys, &plain);
        for m in MODES {
            let mut rng = SplitMix64::new(5);
            let mut dut = RocesecVerify::new(Top::RocesecVerify1, m);
            dut.load_keys(&keys).unwrap();
            let mut model = Verifier::new(&keys).unwrap();
            let r = dut.run(&frames[..1], 1, LINE, &mut rng); // derive the key
            score(&mut model, &frames[..1], &r, m, "mixed");
            let r = dut.run(&frames[1..], frames.len() - 1, LINE, &mut rng);
            score(&mut model, &frames[1..], &r, m, "mixed");
            // input accepted from the first beat of frame a to the first beat of the last frame
            // (7.8k beats, far more than the 512-beat packet FIFO could absorb)
            let (a, z) = (20usize, r.out.len() - 1);
            let span = r.in_starts[z] - r.in_starts[a];
            let beats = beats_of(&frames[1 + a..1 + z]);
            eprintln!(
                "{mode:?} [{}] mixed sizes back-to-back: {} frames, {beats} input beats in {span} \
                 cycles ({:.3} beats/cycle) after the first {a}",
                m.name(),
                z - a,
                beats as f64 / span as f64
            );
            assert_eq!(span, beats, "{mode:?} {}: idle input cycles", m.name());
        }
    }
}

/// Back to back, one size at a time and sizes mixed, keys cached, both output modes: the input
/// runs at 1 beat/cycle (asserted) at LANES = 1 and at LANES = 4, down to the minimum protected
/// frame (2 beats of 64 bytes). Before session 8, S1 primed a frame only after the previous
/// frame's last output beat, one idle cycle per frame whenever a frame's input was not NPrev
/// beats longer than its output (LANES 1: a 1082-B frame took 69 cycles for 68 beats; LANES 4:
/// every size but 3 of 8). Before session 9, the key stage decided one frame per 3 cycles, and
/// 2-beat frames at LANES = 4 took 3.03 cycles each.
#[test]
fn back_to_back_one_size_line_rate() {
    let cases: [(Top, usize, &[usize]); 3] = [
        (Top::RocesecVerify1, 16, &[1000, 200, 111, 40]),
        (Top::RocesecVerify4, 64, &[1000, 200, 150, 111, 47, 40, 0]),
        (
            Top::RocesecVerify4,
            64,
            &[47, 1000, 64, 150, 300, 111, 2000, 200],
        ),
    ];
    let span_of = |top: Top, bb: usize, sizes: &[usize], m| -> (u64, u64) {
        let keys = demo(Mode::Aead);
        let plain: Vec<Vec<u8>> = (0..80)
            .map(|i| Builder::new(0x04, i as u32, &vec![0x5a; sizes[i % sizes.len()]]).build())
            .collect();
        let frames = protected(&keys, &plain);
        let mut rng = SplitMix64::new(5);
        let mut dut = RocesecVerify::new(top, m);
        dut.load_keys(&keys).unwrap();
        let mut model = Verifier::new(&keys).unwrap();
        let r = dut.run(&frames[..1], 1, LINE, &mut rng); // derive the key
        score(&mut model, &frames[..1], &r, m, "one size");
        let r = dut.run(&frames[1..], frames.len() - 1, LINE, &mut rng);
        score(&mut model, &frames[1..], &r, m, "one size");
        let (a, z) = (20usize, r.out.len() - 1);
        let span = r.in_starts[z] - r.in_starts[a];
        let beats: u64 = frames[1 + a..1 + z]
            .iter()
            .map(|f| f.len().div_ceil(bb) as u64)
            .sum();
        (span, beats)
    };
    for (i, (top, bb, sizes)) in cases.into_iter().enumerate() {
        for m in MODES {
            // one size at a time (case 0 and 1), then the mix (case 2)
            let runs: Vec<Vec<usize>> = if i < 2 {
                sizes.iter().map(|&l| vec![l]).collect()
            } else {
                vec![sizes.to_vec()]
            };
            for run in runs {
                let (span, beats) = span_of(top, bb, &run, m);
                eprintln!(
                    "{top:?} [{}] payload {run:?}: {beats} input beats in {span} cycles \
                     ({:.3} beats/cycle)",
                    m.name(),
                    beats as f64 / span as f64
                );
                assert_eq!(
                    span,
                    beats,
                    "{top:?} {} {run:?}: idle input cycles",
                    m.name()
                );
            }
        }
    }
}

/// LANES = 4 (64-byte beats): the corpus protected in the three modes, in both output modes,
/// with random gaps and backpressure and back to back, and the tamper pass: bytes, verdicts
/// and counters against the model (the timing layer models LANES = 1 only).
#[test]
fn lanes_4_corpus_and_tamper() {
    let plain = corpus();
    for (i, pmode) in [Mode::Aead, Mode::PacketAuth, Mode::HeaderAuth]
        .into_iter()
        .enumerate()
    {
        let keys = demo(pmode);
        let frames = protected(&keys, &plain);
        for m in MODES {
            for t in [GAPS, LINE] {
                let s = run_case(
                    &format!("LANES 4 corpus {pmode} {t:?}"),
                    Top::RocesecVerify4,
                    &keys,
                    &frames,
                    m,
                    t,
                    0x4a0 + i as u64,
                    |_| {},
                );
                assert!(s.processed > 1000, "{s:?}");
                assert_eq!(s.rejected, 0, "{s:?}");
            }
        }
        let mut rng = SplitMix64::new(seed(0x4a7 + i as u64));
        let (stream, attacks) = attack_stream(&frames, &mut rng, 700);
        for m in MODES {
            let s = run_case(
                &format!("LANES 4 tamper {pmode} ({attacks} attacks)"),
                Top::RocesecVerify4,
                &keys,
                &stream,
                m,
                GAPS,
                0x4b0 + i as u64,
                |_| {},
            );
            assert!(s.rejected > attacks / 2, "{s:?}");
            assert!(s.by_reason[Reason::Replay.code() as usize] > 0, "{s:?}");
        }
    }
}
