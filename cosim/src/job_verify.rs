//! The verify direction of the main job (`rocesec cosim`): every unit's frames, protected by the
//! model's `Protector`, through the RTL verify top and `rocesec_model::engine::Verifier`, in
//! cut-through and store-and-forward, genuine and with attacks mixed in (the tamper pass).
//! Per frame: the verdict (`m_axis_tuser`) and every output byte; in store-and-forward a frame
//! the model rejects must not leave. On the first mismatch of a stream the stream is re-run on a
//! trace-capable build and an FST waveform around the frame is written
//! (`<repro dir>/<capture>.<mode>.verify-<genuine|tamper>-<out mode>.fst`, [`crate::waves`]).
//! Also the attack generator shared with `cosim/tests/rocesec_verify.rs`.
//!
//! Timing: every run also goes through the model's timing layer of the verify top
//! (`rocesec_model::timing_verify`) with the same frames, output mode and seeded stimulus; the
//! table and the summary put the model's cycles next to the RTL's with the error in percent, and
//! per packet (first input beat to last output beat) the mean and largest |error|. A frame that
//! store-and-forward discards never leaves: neither the driver nor the model has a latency for
//! it, so the per-packet figures cover the frames that leave (paired in order), while the
//! discarded ones still take their cycles in the pipeline and in the total.

use crate::job::{Options, Unit};
use crate::rtl::rocesec_protect::{OutFrame, RunResult, Traffic};
use crate::rtl::rocesec_verify::{RocesecVerify, VerifyMode};
use crate::rtl::{SplitMix64, Top};
use crate::waves::{self, Waves, Window};
use rocesec_model::engine::{Protector, Verifier};
use rocesec_model::keys::KeyFile;
use rocesec_model::pcapio::{self, Record};
use rocesec_model::roce::{self, icrc, opcode, Frame, IpVersion};
use rocesec_model::timing::Accuracy;
use rocesec_model::timing_verify::{self, OutMode, Params};
use rocesec_model::verdict::Forward;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// IPv4 header checksum (RFC 791) of the header at `ip` (`ihl` bytes), in place.
fn fix_ipv4(f: &mut [u8], ip: usize, ihl: usize) {
    f[ip + 10] = 0;
    f[ip + 11] = 0;
    let mut s: u32 = 0;
    for k in (0..ihl).step_by(2) {
        s += u32::from(u16::from_be_bytes([f[ip + k], f[ip + k + 1]]));
    }
    while s > 0xFFFF {
        s = (s & 0xFFFF) + (s >> 16);
    }
    let c = !(s as u16);
    f[ip + 10..ip + 12].copy_from_slice(&c.to_be_bytes());
}

/// The attacker's repair after changing bytes: IPv4 header checksum and ICRC recomputed, so that
/// only the ICV (or the key-stage checks) can tell.
pub fn repair(f: &mut [u8]) {
    if let Ok(Frame::Roce(p)) = roce::parse(f) {
        if p.ip == IpVersion::V4 {
            fix_ipv4(f, p.ip_off, p.ip_hdr_len);
        }
        if let Ok(Frame::Roce(q)) = roce::parse(f) {
            icrc::fix(f, &q);
        }
    }
}

/// One tampered copy of a protected frame, with the kind of attack; `None` if the chosen
/// attack does not apply to the frame (not protected, no payload, no RETH/AtomicETH).
pub fn tamper(f: &[u8], rng: &mut SplitMix64) -> Option<(&'static str, Vec<u8>)> {
    let Ok(Frame::Roce(p)) = roce::parse(f) else {
        return None;
    };
    let sec = p.sec?;
    let mut g = f.to_vec();
    let sh = p.bth_off + 12; // SecHdr
    let kind = match rng.below(9) {
        0 => {
            // an authenticated header byte (not a masked field, not a length)
            let choices: Vec<usize> = (p.ip_off..p.payload_off)
                .filter(|&o| {
                    let ipo = o - p.ip_off;
                    let masked_ip = match p.ip {
                        IpVersion::V4 => matches!(ipo, 1 | 2 | 3 | 8 | 10 | 11),
                        IpVersion::V6 => matches!(ipo, 0..=5 | 7),
                    };
                    (!masked_ip || o >= p.udp_off)
                        && !(p.udp_off + 4..p.udp_off + 8).contains(&o)
                        && o != p.bth_off + 4
                })
                .collect();
            let o = choices[rng.below(choices.len() as u64) as usize];
            g[o] ^= 1 << rng.below(8);
            "header bit"
        }
        1 => {
            if p.payload_end == p.payload_off {
                return None;
            }
            let o = p.payload_off + rng.below((p.payload_end - p.payload_off) as u64) as usize;
            g[o] ^= 1 << rng.below(8);
            "payload bit"
        }
        2 => {
            let o = p.payload_end + rng.below(16) as usize;
            g[o] ^= 1 << rng.below(8);
            "ICV bit"
        }
        3 => {
            // VA moved out of its node (same level)
            let off = opcode::eth::offset(p.op.eth, opcode::eth::RETH)
                .or_else(|| opcode::eth::offset(p.op.eth, opcode::eth::ATOMIC_ETH))?;
            let at = p.eth_off + off;
            let va = u64::from_be_bytes(g[at..at + 8].try_into().ok()?);
            let s = 12 + u32::from(sec.level.min(51));
            let nva = va.wrapping_add(1u64 << s).wrapping_sub(rng.below(64));
            g[at..at + 8].copy_from_slice(&nva.to_be_bytes());
            "VA moved"
        }
        4 => {
            g[sh + 1] = sec.epoch.wrapping_sub(1 + rng.below(3) as u8);
            "stale epoch"
        }
        5 => {
            g[sh + 1] = sec.epoch.wrapping_add(2 + rng.below(100) as u8);
            "future epoch"
        }
        6 => {
            let pn: u64 = if rng.chance(1, 2) {
                0
            } else {
                sec.pn + 1 + rng.below(1000)
            };
            g[sh + 2..sh + 8].copy_from_slice(&pn.to_be_bytes()[2..]);
            "PN changed"
        }
        7 => {
            g[sh] = (g[sh] & 0xC0)
                | if sec.level == 0x3F {
                    rng.below(53) as u8
                } else {
                    0x3F
                };
            "level changed"
        }
        _ => {
            // no repair: bad ICRC
            let o = p.ip_off + 20 + rng.below((g.len() - p.ip_off - 24) as u64) as usize;
            g[o] ^= 0x10;
            return Some(("no repair", g));
        }
    };
    repair(&mut g);
    Some((kind, g))
}

/// Genuine protected frames (the first `n`) with attacks mixed in: tampered copies before or
/// after the genuine frame, and replays of earlier frames. Returns the stream and the number of
/// attack frames.
pub fn attack_stream(frames: &[Vec<u8>], rng: &mut SplitMix64, n: usize) -> (Vec<Vec<u8>>, usize) {
    let mut out: Vec<Vec<u8>> = Vec::new();
    let mut attacks = 0;
    for f in frames.iter().take(n) {
        let r = rng.below(8);
        if r < 3 {
            if let Some((_, g)) = tamper(f, rng) {
                out.push(g);
                attacks += 1;
            }
        }
        out.push(f.clone());
        if r == 3 && out.len() > 4 {
            let k = out.len() - 1 - rng.below(out.len().min(100) as u64) as usize;
            out.push(out[k].clone());
            attacks += 1;
        }
        if r == 4 {
            if let Some((_, g)) = tamper(f, rng) {
                out.push(g);
                attacks += 1;
            }
        }
    }
    (out, attacks)
}

/// The frames as they leave a model protector with `keys` (rejected frames are not sent).
pub fn protect_all(keys: &KeyFile, frames: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let Ok(mut p) = Protector::new(keys) else {
        return Vec::new();
    };
    frames
        .iter()
        .filter_map(|f| p.protect(f).ok().map(|(_, b)| b))
        .collect()
}

fn fwd_code(f: Forward) -> u8 {
    match f {
        Forward::Processed => 0,
        Forward::Bypass => 1,
        Forward::Cnp => 2,
        Forward::NotRoce => 3,
    }
}

/// Result of one verify run (a unit's stream in one output mode).
#[derive(Clone, Debug, Default)]
pub struct VerifyResult {
    /// Capture name.
    pub name: String,
    /// Protection mode and stream ("genuine" or "tamper").
    pub what: String,
    /// Output mode.
    pub mode: String,
    /// Frames in.
    pub frames: u64,
    /// Bytes in (Ethernet frames as captured, without FCS).
    pub bytes_in: u64,
    /// Frames the model rejects.
    pub rejected: u64,
    /// Output beats.
    pub beats_out: u64,
    /// RTL cycles.
    pub cycles: u64,
    /// Per-frame latency of the frames that left (first input beat to last output beat).
    pub latency: Vec<u64>,
    /// Cycles the RTL's KDF was busy.
    pub kdf_cycles: u64,
    /// Model (timing layer) cycles of the run; 0 when the model could not run.
    pub model_cycles: u64,
    /// Model latency of the frames that leave, in order (same definition as `latency`).
    pub model_latency: Vec<u64>,
    /// Cycles the model's KDF was busy.
    pub model_kdf_cycles: u64,
    /// Model against RTL: total cycles and per-packet latency.
    pub accuracy: Accuracy,
    /// Frames that disagreed (0 or 1: a run stops at its first mismatch).
    pub mismatches: u64,
    /// The first mismatch.
    pub report: Option<String>,
    /// The cycles around the first mismatch to record in a waveform.
    pub window: Option<Window>,
    /// The waveform written by the re-run, or why there is none (`None`: not asked for).
    pub waves: Option<Result<Waves, String>>,
    /// The repro pcap of a mismatching stream ([`write_repro`]), or why there is none.
    pub repro: Option<Result<PathBuf, String>>,
}

/// Write the protected input stream of a mismatching verify run, frames `0..=frame` (all of
/// them when the frame is not known), to `dir/<stem>.repro.pcap`: the verify top's state
/// (replay window, epochs, WRITE continuation) depends on the frames before the one that
/// disagreed, so the stream is kept from its start. Returns the path.
///
/// # Errors
/// I/O errors creating `dir` or writing the file.
pub fn write_repro(
    dir: &Path,
    stem: &str,
    frames: &[Vec<u8>],
    frame: Option<usize>,
) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let n = frame.map_or(frames.len(), |i| (i + 1).min(frames.len()));
    let recs: Vec<Record> = frames[..n]
        .iter()
        .enumerate()
        .map(|(i, f)| {
            // one microsecond apart, in stream order
            let us = u32::try_from(i).unwrap_or(u32::MAX);
            Record::new(us / 1_000_000, us % 1_000_000, f.clone())
        })
        .collect();
    let p = dir.join(format!("{stem}.repro.pcap"));
    pcapio::write(&p, &recs).map_err(|e| e.to_string())?;
    Ok(p)
}

/// Cycles a waveform covers after the first beat of a frame that stalled the top.
const STALL_WINDOW: u64 = 2048;

/// Compare a verify run with the model; `Err((report, waveform window))` at the first
/// disagreement.
fn compare(
    model: &mut Verifier,
    frames: &[Vec<u8>],
    r: &RunResult,
    mode: VerifyMode,
    beat_bytes: usize,
    res: &mut VerifyResult,
) -> Result<(), (String, Option<Window>)> {
    let last_out = r.out.last().map_or(0, |o| o.last_cycle);
    // a frame that did not leave: from its first beat to the last output seen
    let missing = |i: usize, extra: u64| {
        r.in_starts
            .get(i)
            .map(|&s| Window::around(i, s, last_out.max(s) + extra))
    };
    // In store-and-forward a top that rejects frames the model forwards releases fewer frames
    // and the run ends in a quiet output, not a stall: when every frame went in, the frame
    // loop below names the first frame the RTL dropped.
    let all_in = r.in_starts.len() >= frames.len();
    if r.stalled && !(mode == VerifyMode::StoreForward && all_in) {
        let k = r.out.len();
        return Err((
            format!("RTL stalled after {k} frames out"),
            missing(k, STALL_WINDOW),
        ));
    }
    let mut outs = r.out.iter();
    for (i, f) in frames.iter().enumerate() {
        res.frames += 1;
        res.bytes_in += f.len() as u64;
        let v = model.verify(f);
        if v.is_err() {
            res.rejected += 1;
        }
        if mode == VerifyMode::StoreForward && v.is_err() {
            continue;
        }
        let Some(o): Option<&OutFrame> = outs.next() else {
            let how = if mode == VerifyMode::StoreForward {
                " (store-and-forward: the RTL dropped it)"
            } else {
                ""
            };
            return Err((
                format!("frame {i}: no output{how}, model: {:?}", v.map(|x| x.0)),
                missing(i, 0),
            ));
        };
        res.beats_out += o.data.len().div_ceil(beat_bytes) as u64;
        if let Some(&s) = r.in_starts.get(i) {
            res.latency.push(o.last_cycle.saturating_sub(s));
        }
        let (reason, fwd) = (o.tuser & 0xF, (o.tuser >> 4) & 3);
        let mut m = String::new();
        match v {
            Ok((kind, bytes)) => {
                if (reason, fwd) != (0, fwd_code(kind)) {
                    let _ = write!(m, "model forwards ({kind:?}), RTL tuser {:#04x}", o.tuser);
                } else if bytes != o.data {
                    let d = crate::job::first_difference(&bytes, &o.data);
                    let _ = write!(
                        m,
                        "output differs at byte {d} (model {} bytes, RTL {})\n  model {}\n  RTL   {}",
                        bytes.len(),
                        o.data.len(),
                        hex::encode(&bytes),
                        hex::encode(&o.data)
                    );
                }
            }
            Err(rm) => {
                if reason != rm.code() {
                    let _ = write!(m, "model rejects ({rm}), RTL tuser {:#04x}", o.tuser);
                }
            }
        }
        if !m.is_empty() {
            let first_in = r.in_starts.get(i).copied().unwrap_or(o.first_cycle);
            return Err((
                format!("frame {i}: {m}\n  input {}", hex::encode(f)),
                Some(Window::around(i, first_in, o.last_cycle)),
            ));
        }
    }
    if let Some(o) = outs.next() {
        return Err((
            format!(
                "RTL sent an extra frame (tuser {:#04x}, {} bytes): a rejected frame left",
                o.tuser,
                o.data.len()
            ),
            Some(Window::around(frames.len(), o.first_cycle, o.last_cycle)),
        ));
    }
    Ok(())
}

/// The timing layer's output mode for a driver mode.
pub fn out_mode(mode: VerifyMode) -> OutMode {
    match mode {
        VerifyMode::CutThrough => OutMode::CutThrough,
        VerifyMode::StoreForward => OutMode::StoreForward,
    }
}

/// The timing layer on one stream: (model cycles, latencies of the frames that leave, KDF busy
/// cycles); `None` for a bad key file or a model that did not finish.
pub fn predict_stream(
    params: &Params,
    keys: &KeyFile,
    frames: &[Vec<u8>],
    mode: VerifyMode,
    seed: u64,
    traffic: Traffic,
) -> Option<(u64, Vec<u64>, u64)> {
    let prof = timing_verify::profile(params, keys, frames).ok()?;
    let pred = timing_verify::predict(
        params,
        &prof,
        out_mode(mode),
        traffic,
        &mut SplitMix64::new(seed),
    );
    pred.complete
        .then(|| (pred.cycles, pred.latencies(), pred.kdf_cycles))
}

/// Run one stream through a fresh verify top in `mode`, and through the timing layer with
/// `params`.
pub fn run_stream(
    top: Top,
    keys: &KeyFile,
    frames: &[Vec<u8>],
    mode: VerifyMode,
    seed: u64,
    traffic: Traffic,
    params: &Params,
) -> VerifyResult {
    let mut res = VerifyResult {
        mode: mode.name().into(),
        ..VerifyResult::default()
    };
    let (Ok(mut model), Ok(mut count)) = (Verifier::new(keys), Verifier::new(keys)) else {
        res.mismatches = 1;
        res.report = Some("bad key file".into());
        return res;
    };
    let expect = match mode {
        VerifyMode::CutThrough => frames.len(),
        VerifyMode::StoreForward => frames.iter().filter(|f| count.verify(f).is_ok()).count(),
    };
    let mut dut = RocesecVerify::new(top, mode);
    if let Err(e) = dut.load_keys(keys) {
        res.mismatches = 1;
        res.report = Some(format!("loading the key file into the RTL failed: {e}"));
        return res;
    }
    let mut rng = SplitMix64::new(seed);
    let r = dut.run(frames, expect, traffic, &mut rng);
    res.cycles = r.cycles;
    res.kdf_cycles = dut.kdf_cycles();
    if let Err((e, w)) = compare(&mut model, frames, &r, mode, dut.beat_bytes(), &mut res) {
        res.mismatches = 1;
        res.report = Some(e);
        res.window = w;
    }
    if let Some((c, lat, kdf)) = predict_stream(params, keys, frames, mode, seed, traffic) {
        res.model_cycles = c;
        res.model_latency = lat;
        res.model_kdf_cycles = kdf;
    }
    res.accuracy = Accuracy::of(
        res.cycles,
        res.model_cycles,
        &res.latency,
        &res.model_latency,
    );
    res
}

/// A named stream of frames ("genuine" or "tamper").
pub type Stream = (&'static str, Vec<Vec<u8>>);

/// The two streams of a unit in its mode: the key file forced to the unit's mode, then
/// ("genuine", the frames as the model's protector sends them) and ("tamper", the same with
/// attacks mixed in, from `seed`).
pub fn streams(keys: &KeyFile, unit: &Unit, seed: u64) -> (KeyFile, Vec<Stream>) {
    let mut k = keys.clone();
    k.force_mode(unit.mode);
    let genuine = protect_all(&k, &unit.frames);
    let mut rng = SplitMix64::new(seed ^ 0x7a3);
    let (attacked, _) = attack_stream(&genuine, &mut rng, usize::MAX);
    (k, vec![("genuine", genuine), ("tamper", attacked)])
}

/// Re-run a stream as [`run_stream`] did (deterministic) on the trace-capable build of `top`
/// (`Top::traced`), recording the cycles of `w` into `dir/<stem>.fst`; the run stops after the
/// window. Checks that the re-run saw the frame's first beat at the same cycle.
///
/// # Errors
/// No trace-capable build, the keys do not load, the file cannot be written, or the re-run
/// diverged.
#[allow(clippy::too_many_arguments)]
pub fn waveform(
    top: Top,
    keys: &KeyFile,
    frames: &[Vec<u8>],
    mode: VerifyMode,
    seed: u64,
    traffic: Traffic,
    w: Window,
    dir: &Path,
    stem: &str,
) -> Result<Waves, String> {
    let tt = top
        .traced()
        .ok_or_else(|| format!("no trace-capable build of {}", top.name()))?;
    let expect = match mode {
        VerifyMode::CutThrough => frames.len(),
        VerifyMode::StoreForward => {
            let mut count = Verifier::new(keys).map_err(|e| e.to_string())?;
            frames.iter().filter(|f| count.verify(f).is_ok()).count()
        }
    };
    let path = waves::path(dir, stem)?;
    let mut dut = RocesecVerify::new(tt, mode);
    dut.trace_window(&path, w.from, w.to)?; // before the key load: a window may start there
    dut.load_keys(keys)?;
    let r = dut.run(frames, expect, traffic, &mut SplitMix64::new(seed));
    dut.idle_until_traced(w.to + 2);
    let traced = dut.trace_finish();
    if w.frame < frames.len() && r.in_starts.get(w.frame) != Some(&w.first_in) {
        return Err(format!(
            "the re-run on {} diverged: frame {} in at cycle {:?}, first run {}",
            tt.name(),
            w.frame,
            r.in_starts.get(w.frame),
            w.first_in
        ));
    }
    waves::finish(path, w, traced)
}

/// The verify runs of one unit: genuine and tampered streams, both output modes, with the
/// timing layer's `params`. With `repro_dir`, the input stream of a run that mismatches is
/// written there as a pcap ([`write_repro`]); with `waves` as well, the run is re-run to write
/// a waveform there ([`waveform`]).
#[allow(clippy::too_many_arguments)]
pub fn run_unit(
    top: Top,
    keys: &KeyFile,
    unit: &Unit,
    seed: u64,
    t: Traffic,
    params: &Params,
    repro_dir: Option<&Path>,
    waves: bool,
) -> Vec<VerifyResult> {
    let (k, streams) = streams(keys, unit, seed);
    let mut v = Vec::new();
    for (what, frames) in &streams {
        for mode in [VerifyMode::CutThrough, VerifyMode::StoreForward] {
            let mut r = run_stream(top, &k, frames, mode, seed, t, params);
            r.name.clone_from(&unit.name);
            r.what = format!("{} {what}", unit.mode);
            let stem = format!(
                "{}.{}.verify-{what}-{}",
                unit.name,
                unit.mode.name(),
                mode.name()
            );
            if let (Some(dir), true) = (repro_dir, r.report.is_some()) {
                let at = r.window.map(|w| w.frame);
                r.repro = Some(write_repro(dir, &stem, frames, at));
            }
            if let (Some(dir), Some(w), true) = (repro_dir, r.window, waves) {
                r.waves = Some(waveform(top, &k, frames, mode, seed, t, w, dir, &stem));
            }
            v.push(r);
        }
    }
    v
}

/// Run the verify direction of the main job over `units` and print its table; returns the
/// number of mismatches.
///
/// # Errors
/// A failure writing the report.
pub fn run(
    keys: &KeyFile,
    o: &Options,
    top: Top,
    units: &[Unit],
    out: &mut dyn std::io::Write,
    err: &mut dyn std::io::Write,
) -> Result<u64, String> {
    use rayon::prelude::*;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(o.jobs)
        .build()
        .map_err(|e| e.to_string())?;
    let t0 = std::time::Instant::now();
    let results: Vec<VerifyResult> = pool.install(|| {
        units
            .par_iter()
            .enumerate()
            .flat_map(|(i, u)| {
                run_unit(
                    top,
                    keys,
                    u,
                    o.seed.wrapping_add(i as u64),
                    o.traffic,
                    &o.verify_timing,
                    Some(o.repro_dir.as_path()),
                    o.waves,
                )
            })
            .collect()
    });
    let wall = t0.elapsed().as_secs_f64();
    let io = |e: std::io::Error| e.to_string();
    writeln!(
        out,
        "verify (RX top):\n{:<40} {:<20} {:<11} {:>6} {:>5} {:>4} {:>9} {:>9} {:>7} {:>13} {:>7} {:>18}",
        "capture",
        "stream",
        "out mode",
        "pkts",
        "rej",
        "mis",
        "RTL cyc",
        "model cyc",
        "err %",
        "pkt |err| %",
        "beat/c",
        "lat min/mean/max"
    )
    .map_err(io)?;
    let (mut frames, mut rej, mut cycles, mut beats, mut mism) = (0u64, 0u64, 0u64, 0u64, 0u64);
    let (mut bytes_in, mut model_cycles) = (0u64, 0u64);
    let mut all_lat = Vec::new();
    let mut acc = Accuracy::default();
    let mut kdf = (0u64, 0u64);
    let mut by_kind: Vec<((String, String), Accuracy)> = Vec::new();
    for r in &results {
        let (mn, mean, mx) = stats(&r.latency);
        writeln!(
            out,
            "{:<40} {:<20} {:<11} {:>6} {:>5} {:>4} {:>9} {:>9} {:>+7.2} {:>13} {:>7.3} {:>18}",
            r.name,
            r.what,
            r.mode,
            r.frames,
            r.rejected,
            r.mismatches,
            r.cycles,
            r.model_cycles,
            r.accuracy.total_err_pct(),
            format!(
                "{:.2}/{:.1}",
                r.accuracy.mean_abs_pct(),
                r.accuracy.max_abs_pct
            ),
            r.beats_out as f64 / r.cycles.max(1) as f64,
            format!("{mn}/{mean:.1}/{mx}")
        )
        .map_err(io)?;
        frames += r.frames;
        bytes_in += r.bytes_in;
        model_cycles += r.model_cycles;
        rej += r.rejected;
        cycles += r.cycles;
        beats += r.beats_out;
        mism += r.mismatches;
        all_lat.extend_from_slice(&r.latency);
        acc.merge(&r.accuracy);
        kdf.0 += r.kdf_cycles;
        kdf.1 += r.model_kdf_cycles;
        let stream = r.what.split(' ').next_back().unwrap_or("");
        let key = (stream.to_string(), r.mode.clone());
        match by_kind.iter_mut().find(|e| e.0 == key) {
            Some(e) => e.1.merge(&r.accuracy),
            None => by_kind.push((key, r.accuracy)),
        }
        if let Some(m) = &r.report {
            writeln!(
                err,
                "VERIFY MISMATCH in {} ({}, {}): {m}",
                r.name, r.what, r.mode
            )
            .map_err(io)?;
            match &r.repro {
                Some(Ok(p)) => writeln!(
                    err,
                    "  repro pcap: {} (the protected input stream up to that frame)",
                    p.display()
                )
                .map_err(io)?,
                Some(Err(e)) => writeln!(err, "  repro pcap: not written: {e}").map_err(io)?,
                None => {}
            }
            match &r.waves {
                Some(Ok(w)) => writeln!(err, "  waveform: {w}").map_err(io)?,
                Some(Err(e)) => writeln!(err, "  waveform: not written: {e}").map_err(io)?,
                None => {}
            }
        }
    }
    let (mn, mean, mx) = stats(&all_lat);
    for ((stream, mode), a) in &by_kind {
        writeln!(
            out,
            "verify timing {stream:<7} {mode:<11}: RTL {} cycles, model {} cycles, error {:+.2} %; \
             per packet |error| mean {:.2} % max {:.1} %, {}/{} packets cycle-exact",
            a.rtl_cycles,
            a.model_cycles,
            a.total_err_pct(),
            a.mean_abs_pct(),
            a.max_abs_pct,
            a.exact,
            a.frames,
        )
        .map_err(io)?;
    }
    writeln!(
        out,
        "verify timing total: RTL {} cycles, model {} cycles, error {:+.2} %; per packet |error| \
         mean {:.2} % max {:.1} %, {}/{} packets that leave cycle-exact; KDF busy RTL {} model {}",
        acc.rtl_cycles,
        acc.model_cycles,
        acc.total_err_pct(),
        acc.mean_abs_pct(),
        acc.max_abs_pct,
        acc.exact,
        acc.frames,
        kdf.0,
        kdf.1,
    )
    .map_err(io)?;
    let rate = match crate::job::top_fmax_mhz(crate::job::SYNTHESIS_MD, "rocesec_verify") {
        Some((row, f)) => format!(
            "RTL {:.2} model {:.2} (input bytes, Fmax {f} MHz of row {row} in docs/synthesis.md)",
            crate::job::gbps(bytes_in, cycles, f),
            crate::job::gbps(bytes_in, model_cycles, f),
        ),
        None => "n/a (no rocesec_verify row with an Fmax in docs/synthesis.md yet)".to_string(),
    };
    writeln!(
        out,
        "verify total: {} runs, {frames} packets, {bytes_in} bytes ({rej} rejected by the model), \
         RTL {cycles} cycles, {:.3} beats/cycle out, latency {mn}/{mean:.1}/{mx} cycles, \
         {mism} mismatches; Gb/s at Fmax: {rate}; wall {wall:.1} s",
        results.len(),
        beats as f64 / cycles.max(1) as f64,
    )
    .map_err(io)?;
    Ok(mism)
}

fn stats(v: &[u64]) -> (u64, f64, u64) {
    let min = v.iter().copied().min().unwrap_or(0);
    let max = v.iter().copied().max().unwrap_or(0);
    let mean = if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<u64>() as f64 / v.len() as f64
    };
    (min, mean, max)
}
