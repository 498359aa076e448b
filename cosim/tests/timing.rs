//! The model's timing layer (`rocesec_model::timing`) against the RTL protect top on the whole
//! committed rxe corpus in all three modes, with the main job's stimulus (seeded input gaps and
//! output backpressure) and with heavy backpressure.
//!
//! Two tiers: the goal (total cycles within 2 % per mode, per-packet latency error
//! bounded), and drift detection: the model is cycle-exact on the corpus today, so every packet's
//! latency and the KDF's busy cycles must equal the RTL's. A change of the RTL's timing (e.g. a
//! change of `kdf_cmac`'s states or of the AES it iterates) fails here until the named constant in
//! `rocesec_model::timing::Params::RTL` is updated. Then the same RTL runs against models with
//! one deliberately wrong constant each, which must fail the check (so the check can fail).
//!
//! The same for the verify top (`rocesec_model::timing_verify`): every unit's genuine and tamper
//! streams (as `rocesec cosim` builds them) in cut-through and store-and-forward, per packet
//! that leaves (a frame store-and-forward discards has no output cycle in the RTL nor in the
//! model), against `Params::RTL` and against wrong constants.
#![allow(clippy::unwrap_used)]

use rocesec_cosim::job::{self, UnitResult};
use rocesec_cosim::job_verify::{self, VerifyResult};
use rocesec_cosim::rtl::rocesec_protect::Traffic;
use rocesec_cosim::rtl::rocesec_verify::VerifyMode;
use rocesec_cosim::rtl::{SplitMix64, Top};
use rocesec_model::cli::default_corpus;
use rocesec_model::keys::KeyFile;
use rocesec_model::sechdr::Mode;
use rocesec_model::timing::{self, Accuracy, Params};

/// Goal of the issue: total cycles within 2 % per mode.
const MAX_TOTAL_ERR_PCT: f64 = 2.0;
/// Per-packet latency: mean |error| bound, in percent.
const MAX_MEAN_PKT_ERR_PCT: f64 = 2.0;
/// Per-packet latency: largest |error| bound, in percent.
const MAX_PKT_ERR_PCT: f64 = 25.0;
/// Drift detection: packets whose latency the model predicts to the cycle, in percent.
const MIN_EXACT_PCT: f64 = 100.0;

/// The main job's stimulus (`rocesec cosim`: idle 2/16, stall 2/16).
const TRAFFIC: Traffic = Traffic { idle: 2, stall: 2 };
/// Heavy input gaps and output backpressure (as `cosim/tests/rocesec_protect.rs` uses).
const HEAVY: Traffic = Traffic { idle: 8, stall: 12 };
const SEED: u64 = 0x7131;

struct Run {
    traffic: Traffic,
    mode: Mode,
    keys: KeyFile,
    frames: Vec<Vec<u8>>,
    seed: u64,
    rtl: UnitResult,
}

/// Every capture in every mode through the RTL (and the model with `Params::RTL`), once.
fn rtl_runs(traffic: Traffic) -> Vec<Run> {
    rtl_runs_on(Top::RocesecProtect1, &Params::RTL, traffic)
}

/// Every capture in every mode through the protect top `top` (and the model with `p`), once.
fn rtl_runs_on(top: Top, p: &Params, traffic: Traffic) -> Vec<Run> {
    use rayon::prelude::*;
    let keys = KeyFile::demo().unwrap();
    let modes = [Mode::HeaderAuth, Mode::PacketAuth, Mode::Aead];
    let units = job::units(&default_corpus(), &modes).unwrap();
    assert!(
        units.len() >= 35 * 3,
        "corpus missing: {} units",
        units.len()
    );
    units
        .into_par_iter()
        .enumerate()
        .map(|(i, u)| {
            let seed = SEED.wrapping_add(i as u64);
            let rtl = job::run_unit(top, &keys, &u, seed, traffic, p);
            assert_eq!(rtl.mismatches, 0, "{} {:?}: RTL disagrees", u.name, u.mode);
            let mut k = keys.clone();
            k.force_mode(u.mode);
            Run {
                traffic,
                mode: u.mode,
                keys: k,
                frames: u.frames,
                seed,
                rtl,
            }
        })
        .collect()
}

/// The model with `p` against the recorded RTL runs: per-mode accuracy and the KDF cycles
/// (RTL, model).
fn retime(runs: &[Run], p: &Params) -> (Vec<(Mode, Accuracy)>, (u64, u64)) {
    let mut by_mode: Vec<(Mode, Accuracy)> = Vec::new();
    let mut kdf = (0, 0);
    for r in runs {
        let prof = timing::profile(p, &r.keys, &r.frames).unwrap();
        let pred = timing::predict(p, &prof, r.traffic, &mut SplitMix64::new(r.seed));
        assert!(pred.complete);
        let lat: Vec<u64> = pred.frames.iter().map(|f| f.latency()).collect();
        let a = Accuracy::of(r.rtl.rtl_cycles, pred.cycles, &r.rtl.latency, &lat);
        kdf.0 += r.rtl.kdf_cycles;
        kdf.1 += pred.kdf_cycles;
        match by_mode.iter_mut().find(|e| e.0 == r.mode) {
            Some(e) => e.1.merge(&a),
            None => by_mode.push((r.mode, a)),
        }
    }
    (by_mode, kdf)
}

/// The acceptance check; `Err` lists every violated bound.
fn check(by_mode: &[(Mode, Accuracy)], kdf: (u64, u64)) -> Result<String, String> {
    let mut report = String::new();
    let mut bad = Vec::new();
    for (m, a) in by_mode {
        report += &format!(
            "{:<11} RTL {:>8} model {:>8} cycles: total {:+.2} %, per packet mean {:.2} % max {:.1} %, \
             exact {}/{} packets\n",
            m.name(),
            a.rtl_cycles,
            a.model_cycles,
            a.total_err_pct(),
            a.mean_abs_pct(),
            a.max_abs_pct,
            a.exact,
            a.frames
        );
        if a.total_err_pct().abs() > MAX_TOTAL_ERR_PCT {
            bad.push(format!(
                "{}: total error {:+.2} %",
                m.name(),
                a.total_err_pct()
            ));
        }
        if a.mean_abs_pct() > MAX_MEAN_PKT_ERR_PCT {
            bad.push(format!(
                "{}: mean packet error {:.2} %",
                m.name(),
                a.mean_abs_pct()
            ));
        }
        if a.max_abs_pct > MAX_PKT_ERR_PCT {
            bad.push(format!(
                "{}: max packet error {:.1} %",
                m.name(),
                a.max_abs_pct
            ));
        }
        if a.frames == 0 || (a.exact as f64) < MIN_EXACT_PCT / 100.0 * a.frames as f64 {
            bad.push(format!(
                "{}: {} of {} packets not cycle-exact (RTL timing drifted from Params::RTL?)",
                m.name(),
                a.frames - a.exact,
                a.frames
            ));
        }
    }
    report += &format!("KDF busy cycles: RTL {} model {}\n", kdf.0, kdf.1);
    if kdf.0 != kdf.1 {
        bad.push(format!("KDF busy cycles: RTL {} model {}", kdf.0, kdf.1));
    }
    if bad.is_empty() {
        Ok(report)
    } else {
        Err(format!("{report}violations: {}", bad.join("; ")))
    }
}

#[test]
fn timing_layer_predicts_the_rtl_cycles_on_the_corpus_and_a_wrong_constant_fails() {
    let runs = rtl_runs(TRAFFIC);
    let (acc, kdf) = retime(&runs, &Params::RTL);
    let ok = check(&acc, kdf);
    eprintln!("Params::RTL:\n{}", ok.as_ref().unwrap_or_else(|e| e));
    assert!(ok.is_ok(), "{}", ok.unwrap_err());

    // kdf_cmac's aes_cipher_iter with a one-cycle S-box ROM (SboxLatency 1):
    // aes_pipe_latency(128, 1) = 1 + 2·10 = 21 cycles per block instead of 31.
    let mut wrong_kdf = Params::RTL;
    wrong_kdf.key.kdf.aes_cycles = 21;
    // The CTR AES pipeline 10 cycles shorter (E_K(J0) and keystream earlier).
    let mut wrong_aes = Params::RTL;
    wrong_aes.crypto.aes_latency -= 10;
    // Half the job table.
    let mut wrong_jobs = Params::RTL;
    wrong_jobs.emit.jobs = 4;
    // One cycle more in stage parse.
    let mut wrong_parse = Params::RTL;
    wrong_parse.parse.latency += 1;
    // GHASH one cycle faster.
    let mut wrong_ghash = Params::RTL;
    wrong_ghash.crypto.ghash_latency -= 1;
    for (name, p) in [
        ("kdf_cmac AES block 21 cycles", wrong_kdf),
        ("CTR AES latency 21", wrong_aes),
        ("4 jobs in flight", wrong_jobs),
        ("parse latency 3", wrong_parse),
        ("GHASH latency 3", wrong_ghash),
    ] {
        let (acc, kdf) = retime(&runs, &p);
        let r = check(&acc, kdf);
        eprintln!("{name}:\n{}", r.as_ref().unwrap_or_else(|e| e));
        assert!(r.is_err(), "{name}: a wrong constant passed the check");
    }
}

#[test]
fn fmax_is_read_from_the_synthesis_table() {
    let t = "| block | params | LUT4 | Fmax (MHz) | x |\n|---|---|---:|---:|---|\n\
             | `ghash_core` | `(defaults)` | 7597 | 91.96 | y |\n";
    assert_eq!(job::protect_fmax_mhz(t), None);
    let t2 = format!("{t}| `rocesec_protect_1` | `-set LANES 1` | 11000 | 101.5 | z |\n");
    assert_eq!(job::protect_fmax_mhz(&t2), Some(101.5));
    let t3 = format!("{t}| `rocesec_protect` | `(defaults)` | 11000 | n/a | n/a |\n");
    assert_eq!(job::protect_fmax_mhz(&t3), None);
    let t4 = format!("{t}| `rocesec_protect_key` | `(defaults)` | 3000 | 120.0 | z |\n");
    assert_eq!(job::protect_fmax_mhz(&t4), None);
}

#[test]
fn timing_layer_holds_under_heavy_backpressure() {
    let runs = rtl_runs(HEAVY);
    let (acc, kdf) = retime(&runs, &Params::RTL);
    let ok = check(&acc, kdf);
    eprintln!(
        "Params::RTL, heavy traffic:\n{}",
        ok.as_ref().unwrap_or_else(|e| e)
    );
    assert!(ok.is_ok(), "{}", ok.unwrap_err());
}

// ------------------------------------------------------------------------------------------
// Verify top
// ------------------------------------------------------------------------------------------

use rocesec_model::timing_verify::Params as VParams;

struct VRun {
    traffic: Traffic,
    keys: KeyFile,
    frames: Vec<Vec<u8>>,
    mode: VerifyMode,
    seed: u64,
    /// (stream, output mode) for the report.
    label: String,
    rtl: VerifyResult,
}

/// Every capture in every protection mode, genuine and tamper streams, both output modes,
/// through the RTL verify top, once.
fn verify_runs(traffic: Traffic) -> Vec<VRun> {
    verify_runs_on(Top::RocesecVerify1, &VParams::RTL, traffic)
}

/// As [`verify_runs`], on the verify top `top` (the model with `p`).
fn verify_runs_on(top: Top, p: &VParams, traffic: Traffic) -> Vec<VRun> {
    use rayon::prelude::*;
    let keys = KeyFile::demo().unwrap();
    let modes = [Mode::HeaderAuth, Mode::PacketAuth, Mode::Aead];
    let units = job::units(&default_corpus(), &modes).unwrap();
    assert!(units.len() >= 35 * 3, "corpus missing");
    type Work = (u64, KeyFile, &'static str, Vec<Vec<u8>>, VerifyMode);
    let work: Vec<Work> = units
        .iter()
        .enumerate()
        .flat_map(|(i, u)| {
            let seed = SEED.wrapping_add(i as u64);
            let (k, streams) = job_verify::streams(&keys, u, seed);
            streams.into_iter().flat_map(move |(what, frames)| {
                let k = k.clone();
                [VerifyMode::CutThrough, VerifyMode::StoreForward]
                    .into_iter()
                    .map(move |m| (seed, k.clone(), what, frames.clone(), m))
            })
        })
        .collect();
    work.into_par_iter()
        .map(|(seed, k, what, frames, mode)| {
            let rtl = job_verify::run_stream(top, &k, &frames, mode, seed, traffic, p);
            assert_eq!(
                rtl.mismatches,
                0,
                "verify {what} {}: {:?}",
                mode.name(),
                rtl.report
            );
            VRun {
                traffic,
                keys: k,
                frames,
                mode,
                seed,
                label: format!("{what} {}", mode.name()),
                rtl,
            }
        })
        .collect()
}

/// Minimum protected frames (2 beats of 64 bytes at LANES = 4: SEND payload 0 to 46 B) back to
/// back through `top`, both output modes: the stream where the number of frames in flight
/// limits the rate (the corpus, with gaps, never has 16 in flight).
fn min_frame_runs(top: Top, p: &VParams) -> Vec<VRun> {
    use rocesec_model::engine::Protector;
    use rocesec_model::roce::build::Builder;
    let mut keys = KeyFile::demo().unwrap();
    keys.force_mode(Mode::Aead);
    let mut pr = Protector::new(&keys).unwrap();
    let frames: Vec<Vec<u8>> = (0..160u32)
        .map(|i| {
            let plain = Builder::new(0x04, i, &vec![0x5a; [0, 17, 40, 46][i as usize % 4]]).build();
            pr.protect(&plain).unwrap().1
        })
        .collect();
    let line = Traffic { idle: 0, stall: 0 };
    [VerifyMode::CutThrough, VerifyMode::StoreForward]
        .into_iter()
        .map(|mode| {
            let rtl = job_verify::run_stream(top, &keys, &frames, mode, SEED, line, p);
            assert_eq!(
                rtl.mismatches,
                0,
                "min frames {}: {:?}",
                mode.name(),
                rtl.report
            );
            VRun {
                traffic: line,
                keys: keys.clone(),
                frames: frames.clone(),
                mode,
                seed: SEED,
                label: format!("min frames {}", mode.name()),
                rtl,
            }
        })
        .collect()
}

/// The verify model with `p` against the recorded RTL runs, per (stream, output mode).
fn retime_verify(runs: &[VRun], p: &VParams) -> (Vec<(String, Accuracy)>, (u64, u64)) {
    let mut by: Vec<(String, Accuracy)> = Vec::new();
    let mut kdf = (0, 0);
    for r in runs {
        let (c, lat, k) =
            job_verify::predict_stream(p, &r.keys, &r.frames, r.mode, r.seed, r.traffic)
                .unwrap_or_default();
        let a = Accuracy::of(r.rtl.cycles, c, &r.rtl.latency, &lat);
        // the model must let exactly the frames out that the RTL does
        let a = if lat.len() == r.rtl.latency.len() {
            a
        } else {
            Accuracy { exact: 0, ..a }
        };
        kdf.0 += r.rtl.kdf_cycles;
        kdf.1 += k;
        match by.iter_mut().find(|e| e.0 == r.label) {
            Some(e) => e.1.merge(&a),
            None => by.push((r.label.clone(), a)),
        }
    }
    (by, kdf)
}

/// The verify acceptance check (same bounds as the protect top's); `Err` lists the violations.
fn check_verify(by: &[(String, Accuracy)], kdf: (u64, u64)) -> Result<String, String> {
    let mut report = String::new();
    let mut bad = Vec::new();
    for (l, a) in by {
        report += &format!(
            "{:<22} RTL {:>8} model {:>8} cycles: total {:+.2} %, per packet mean {:.2} % max {:.1} %, \
             exact {}/{} packets that leave\n",
            l,
            a.rtl_cycles,
            a.model_cycles,
            a.total_err_pct(),
            a.mean_abs_pct(),
            a.max_abs_pct,
            a.exact,
            a.frames
        );
        if a.total_err_pct().abs() > MAX_TOTAL_ERR_PCT {
            bad.push(format!("{l}: total error {:+.2} %", a.total_err_pct()));
        }
        if a.mean_abs_pct() > MAX_MEAN_PKT_ERR_PCT {
            bad.push(format!("{l}: mean packet error {:.2} %", a.mean_abs_pct()));
        }
        if a.max_abs_pct > MAX_PKT_ERR_PCT {
            bad.push(format!("{l}: max packet error {:.1} %", a.max_abs_pct));
        }
        if a.frames == 0 || (a.exact as f64) < MIN_EXACT_PCT / 100.0 * a.frames as f64 {
            bad.push(format!(
                "{l}: {} of {} packets not cycle-exact",
                a.frames - a.exact,
                a.frames
            ));
        }
    }
    report += &format!("KDF busy cycles: RTL {} model {}\n", kdf.0, kdf.1);
    if kdf.0 != kdf.1 {
        bad.push(format!("KDF busy cycles: RTL {} model {}", kdf.0, kdf.1));
    }
    if bad.is_empty() {
        Ok(report)
    } else {
        Err(format!("{report}violations: {}", bad.join("; ")))
    }
}

#[test]
fn verify_timing_layer_predicts_the_rtl_cycles_and_a_wrong_constant_fails() {
    let runs = verify_runs(TRAFFIC);
    let (acc, kdf) = retime_verify(&runs, &VParams::RTL);
    let ok = check_verify(&acc, kdf);
    eprintln!(
        "verify, Params::RTL:\n{}",
        ok.as_ref().unwrap_or_else(|e| e)
    );
    assert!(ok.is_ok(), "{}", ok.unwrap_err());

    // Half the verdict queue (VqDepth 4): fewer frames decided ahead of their verdicts.
    let mut wrong_vq = VParams::RTL;
    wrong_vq.key.verdict_depth = 4;
    // The verdict one cycle later in the job table.
    let mut wrong_done = VParams::RTL;
    wrong_done.emit.done_cycles += 1;
    // Half the delay FIFO between the GHASH feed and the splice.
    let mut wrong_dly = VParams::RTL;
    wrong_dly.emit.delay_beats = 4;
    // The CTR AES pipeline 10 cycles shorter (E_K(J0) earlier: verdicts earlier).
    let mut wrong_aes = VParams::RTL;
    wrong_aes.crypto.aes_latency -= 10;
    // kdf_cmac's AES with a one-cycle S-box ROM: 21 cycles per block instead of 31.
    let mut wrong_kdf = VParams::RTL;
    wrong_kdf.key.common.kdf.aes_cycles = 21;
    for (name, p) in [
        ("verdict queue 4", wrong_vq),
        ("done 3 cycles after the verdict", wrong_done),
        ("delay FIFO 4 beats", wrong_dly),
        ("CTR AES latency 21", wrong_aes),
        ("kdf_cmac AES block 21 cycles", wrong_kdf),
    ] {
        let (acc, kdf) = retime_verify(&runs, &p);
        let r = check_verify(&acc, kdf);
        eprintln!("verify, {name}:\n{}", r.as_ref().unwrap_or_else(|e| e));
        assert!(r.is_err(), "{name}: a wrong constant passed the check");
    }
}

#[test]
fn verify_timing_layer_holds_under_heavy_backpressure() {
    let runs = verify_runs(HEAVY);
    let (acc, kdf) = retime_verify(&runs, &VParams::RTL);
    let ok = check_verify(&acc, kdf);
    eprintln!(
        "verify, Params::RTL, heavy traffic:\n{}",
        ok.as_ref().unwrap_or_else(|e| e)
    );
    assert!(ok.is_ok(), "{}", ok.unwrap_err());
}

/// An epoch rotation (as `cosim/tests/rocesec_verify.rs::epoch_rotation`: the sender moves to
/// epoch + 1 mid-stream, frames held back arrive stale afterwards): epoch promotions are
/// pending-frame conflicts the corpus streams do not have. Every packet that leaves exact, at
/// both stimuli and in both output modes.
#[test]
fn verify_timing_layer_follows_an_epoch_rotation() {
    use rocesec_model::engine::Protector;
    let mut keys = KeyFile::demo().unwrap();
    keys.force_mode(Mode::Aead);
    keys.default.next_epoch = false;
    let plain: Vec<Vec<u8>> = default_corpus()
        .iter()
        .flat_map(|p| rocesec_model::pcapio::read(p).unwrap())
        .map(|r| r.data)
        .take(300)
        .collect();
    let mut p = Protector::new(&keys).unwrap();
    let (mut stream, mut old) = (Vec::new(), Vec::new());
    for (i, f) in plain.iter().enumerate() {
        if let Ok((_, b)) = p.protect(f) {
            if i % 7 == 0 {
                old.push(b);
            } else {
                stream.push(b);
            }
        }
    }
    assert!(p.set_epoch(None, keys.default.epoch + 1));
    for f in &plain {
        if let Ok((_, b)) = p.protect(f) {
            stream.push(b);
        }
    }
    stream.extend(old);
    let mut vkeys = keys.clone();
    vkeys.default.next_epoch = true;
    // the stream exercises the decide-ahead waits (promotions, same PNs)
    let prof = rocesec_model::timing_verify::profile(&VParams::RTL, &vkeys, &stream).unwrap();
    assert!(prof.iter().any(|f| f.process.is_some_and(|p| p.promote)));
    let pred = rocesec_model::timing_verify::predict(
        &VParams::RTL,
        &prof,
        rocesec_model::timing_verify::OutMode::CutThrough,
        TRAFFIC,
        &mut SplitMix64::new(SEED),
    );
    assert!(pred.conflict_cycles > 0);
    let mut report = format!(
        "decide-ahead wait cycles (model): {}\n",
        pred.conflict_cycles
    );
    let mut bad = Vec::new();
    for t in [TRAFFIC, HEAVY] {
        for mode in [VerifyMode::CutThrough, VerifyMode::StoreForward] {
            let r = job_verify::run_stream(
                Top::RocesecVerify1,
                &vkeys,
                &stream,
                mode,
                SEED,
                t,
                &VParams::RTL,
            );
            assert_eq!(r.mismatches, 0, "{:?}", r.report);
            let a = r.accuracy;
            report += &format!(
                "{t:?} {}: RTL {} model {} cycles, exact {}/{} packets that leave, KDF {} / {}\n",
                mode.name(),
                a.rtl_cycles,
                a.model_cycles,
                a.exact,
                a.frames,
                r.kdf_cycles,
                r.model_kdf_cycles
            );
            if a.rtl_cycles != a.model_cycles
                || a.exact != a.frames
                || a.frames != r.latency.len() as u64
                || r.model_latency.len() != r.latency.len()
                || r.kdf_cycles != r.model_kdf_cycles
            {
                bad.push(format!("{t:?} {}", mode.name()));
            }
        }
    }
    eprintln!("epoch rotation:\n{report}");
    assert!(bad.is_empty(), "not exact: {bad:?}\n{report}");
}

// ------------------------------------------------------------------------------------------
// LANES = 4 (64-byte beats): `Params::RTL_LANES4` against `rocesec_protect_4`/`rocesec_verify_4`
// ------------------------------------------------------------------------------------------

#[test]
fn lanes_4_timing_layer_predicts_the_rtl_cycles_and_a_wrong_constant_fails() {
    let p4 = Params::RTL_LANES4;
    let runs = rtl_runs_on(Top::RocesecProtect4, &p4, TRAFFIC);
    let (acc, kdf) = retime(&runs, &p4);
    let ok = check(&acc, kdf);
    eprintln!("Params::RTL_LANES4:\n{}", ok.as_ref().unwrap_or_else(|e| e));
    assert!(ok.is_ok(), "{}", ok.unwrap_err());

    // The LANES = 4 differences from LANES = 1, one at a time, must each be seen.
    let mut serial_ghash = p4;
    serial_ghash.crypto.ghash_lanes = 1; // rocesec_ghash_feed timing (one block per cycle)
    let mut late_j0 = p4;
    late_j0.crypto.j0_in_open = false; // J0 one cycle after the open cycle
    let mut ghash_fast = p4;
    ghash_fast.crypto.ghash_latency -= 1;
    let mut window9 = p4;
    window9.parse.window_beats = 9; // the LANES = 1 header window
    let mut room2 = p4;
    room2.parse.queue_room = 2; // the LANES = 1 descriptor queues
    let mut jobs8 = p4;
    jobs8.emit.jobs = 8; // the LANES = 1 job table
    jobs8.key.verdicts = 8;
    for (name, p) in [
        ("serial GHASH feed", serial_ghash),
        ("J0 after the open cycle", late_j0),
        ("ghash_lanes latency - 1", ghash_fast),
        ("header window 9 beats", window9),
        ("descriptor queue room 2", room2),
        ("8 frames in flight", jobs8),
    ] {
        let (acc, kdf) = retime(&runs, &p);
        let r = check(&acc, kdf);
        eprintln!("LANES 4, {name}:\n{}", r.as_ref().unwrap_or_else(|e| e));
        assert!(r.is_err(), "{name}: a wrong constant passed the check");
    }
}

#[test]
fn lanes_4_timing_layer_holds_under_heavy_backpressure() {
    let p4 = Params::RTL_LANES4;
    let runs = rtl_runs_on(Top::RocesecProtect4, &p4, HEAVY);
    let (acc, kdf) = retime(&runs, &p4);
    let ok = check(&acc, kdf);
    eprintln!(
        "Params::RTL_LANES4, heavy traffic:\n{}",
        ok.as_ref().unwrap_or_else(|e| e)
    );
    assert!(ok.is_ok(), "{}", ok.unwrap_err());
}

#[test]
fn lanes_4_verify_timing_layer_predicts_the_rtl_cycles_and_a_wrong_constant_fails() {
    let p4 = VParams::RTL_LANES4;
    for traffic in [TRAFFIC, HEAVY] {
        let mut runs = verify_runs_on(Top::RocesecVerify4, &p4, traffic);
        if traffic == TRAFFIC {
            runs.extend(min_frame_runs(Top::RocesecVerify4, &p4));
        }
        let (acc, kdf) = retime_verify(&runs, &p4);
        let ok = check_verify(&acc, kdf);
        eprintln!(
            "verify, VParams::RTL_LANES4, idle {}/16 stall {}/16:\n{}",
            traffic.idle,
            traffic.stall,
            ok.as_ref().unwrap_or_else(|e| e)
        );
        assert!(ok.is_ok(), "{}", ok.unwrap_err());
        if traffic != TRAFFIC {
            continue;
        }
        let mut prime2 = p4;
        prime2.emit.prime_steps = 2; // the LANES = 1 three-beat S1 window
        let mut fin14 = p4;
        fin14.parse.fin_room = 14; // the LANES = 1 final-descriptor room
        let mut serial_ghash = p4;
        serial_ghash.crypto.ghash_lanes = 1;
        let mut ghash_slow = p4;
        ghash_slow.crypto.ghash_latency += 1;
        let mut jobs16 = p4;
        jobs16.emit.jobs = 16; // session 8's job table and verdict queue
        jobs16.key.verdict_depth = 16;
        for (name, p) in [
            ("S1 primes 2 beats", prime2),
            ("16 frames in flight", jobs16),
            ("final-descriptor room 14", fin14),
            ("serial GHASH feed", serial_ghash),
            ("ghash_lanes latency + 1", ghash_slow),
        ] {
            let (acc, kdf) = retime_verify(&runs, &p);
            let r = check_verify(&acc, kdf);
            eprintln!(
                "verify LANES 4, {name}:\n{}",
                r.as_ref().unwrap_or_else(|e| e)
            );
            assert!(r.is_err(), "{name}: a wrong constant passed the check");
        }
    }
}
