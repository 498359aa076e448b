//! The main job, `rocesec cosim`: real rxe captures through the golden model and the RTL, every
//! byte, verdict and cycle compared.
//!
//! A *unit* is one capture in one protection mode at one lane count. Each unit runs in its own
//! Verilator model instance (units run in parallel with rayon), in the capture's order, with
//! seeded random input gaps and output backpressure. The scoreboard runs every frame through
//! `rocesec_model::engine::Protector` and compares, per frame: the forward kind and rejection
//! reason (`m_axis_tuser`), and every output byte. On the first mismatch of a unit the unit
//! stops, and the report carries the packet, the first differing byte and the model's
//! intermediates (key, IV, H, J0, GHASH states, keystream, tag); a repro pcap with that frame is
//! written, and the unit is re-run (same seed and frames: deterministic) on a trace-capable
//! build of the top to write an FST waveform of the cycles around that frame
//! (`<repro dir>/<capture>.<mode>.fst`, see [`crate::waves`]).
//!
//! Timing: every unit is also run through the model's cycle-approximate timing layer
//! (`rocesec_model::timing`) with the same frames and the same seeded stimulus; the summary puts
//! the model's cycles next to the RTL's with the error in percent (total, and per packet the mean
//! and largest |error| of the first-beat-in to last-beat-out latency), and the throughput in Gb/s
//! at the protect top's Fmax from docs/synthesis.md.

use crate::rtl::rocesec_protect::{OutFrame, RocesecProtect, Traffic};
use crate::rtl::{SplitMix64, Top};
use crate::waves::{self, Waves, Window};
use rocesec_model::engine::Protector;
use rocesec_model::keys::KeyFile;
use rocesec_model::pcapio::{self, Record};
use rocesec_model::sechdr::Mode;
use rocesec_model::timing::{self, Accuracy, Params};
use rocesec_model::verdict::Forward;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One capture in one mode.
#[derive(Clone, Debug)]
pub struct Unit {
    /// Capture name (file stem).
    pub name: String,
    /// Frames of the capture.
    pub frames: Vec<Vec<u8>>,
    /// Protection mode forced on every QP.
    pub mode: Mode,
}

/// The first disagreement of a unit.
#[derive(Clone, Debug)]
pub struct Mismatch {
    /// Frame index in the capture.
    pub index: usize,
    /// Human-readable report: what differs and the model's intermediates.
    pub report: String,
    /// The input frame (for the repro pcap).
    pub frame: Vec<u8>,
    /// The cycles around the frame to record in a waveform (`None`: no frame to point at).
    pub window: Option<Window>,
    /// The waveform written by the re-run, or why there is none (`None`: not asked for).
    pub waves: Option<Result<Waves, String>>,
}

/// Result of one unit.
#[derive(Clone, Debug, Default)]
pub struct UnitResult {
    /// Capture name.
    pub name: String,
    /// Mode.
    pub mode: Option<Mode>,
    /// Frames compared (up to and including a mismatch).
    pub frames: u64,
    /// Bytes in.
    pub bytes_in: u64,
    /// Bytes out.
    pub bytes_out: u64,
    /// Output beats.
    pub beats_out: u64,
    /// Frames that disagreed (0 or 1: a unit stops at its first mismatch).
    pub mismatches: u64,
    /// RTL cycles for the whole unit (first beat in to last beat out).
    pub rtl_cycles: u64,
    /// Per-frame RTL latency in cycles (first input beat accepted to last output beat).
    pub latency: Vec<u64>,
    /// (frame length, latency) pairs for the plot.
    pub len_latency: Vec<(usize, u64)>,
    /// Cycles the KDF was busy (derived-key cache misses).
    pub kdf_cycles: u64,
    /// Model (timing layer) cycles for the whole unit; 0 when the model could not run.
    pub model_cycles: u64,
    /// Per-frame model latency in cycles (same definition as `latency`).
    pub model_latency: Vec<u64>,
    /// Cycles the model's KDF was busy.
    pub model_kdf_cycles: u64,
    /// Model against RTL: total and per-packet error.
    pub accuracy: Accuracy,
    /// The first mismatch, if any.
    pub first: Option<Mismatch>,
}

fn fwd_code(f: Forward) -> u8 {
    match f {
        Forward::Processed => 0,
        Forward::Bypass => 1,
        Forward::Cnp => 2,
        Forward::NotRoce => 3,
    }
}

fn hexdump(b: &[u8]) -> String {
    b.chunks(16)
        .enumerate()
        .map(|(i, c)| format!("    {:04x}  {}\n", i * 16, hex::encode(c)))
        .collect()
}

/// Index of the first byte where `a` and `b` differ (the shorter length if one is a prefix of
/// the other). Used by both directions' mismatch reports.
pub fn first_difference(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

/// Compare one RTL output frame with the model; `Err(report)` on disagreement.
fn compare(model: &mut Protector, i: usize, f: &[u8], o: &OutFrame) -> Result<(), String> {
    let explain = model.explain(f);
    let reason = o.tuser & 0xF;
    let fwd = (o.tuser >> 4) & 3;
    let mut r = String::new();
    match model.protect(f) {
        Ok((kind, bytes)) => {
            if (reason, fwd) != (0, fwd_code(kind)) {
                let _ = writeln!(
                    r,
                    "frame {i}: verdict differs: model forwards ({kind:?}), RTL tuser = {:#04x}",
                    o.tuser
                );
            } else if bytes != o.data {
                let d = first_difference(&bytes, &o.data);
                let _ = writeln!(
                    r,
                    "frame {i}: output differs at byte {d} (model {} bytes, RTL {} bytes): model {:02x?} RTL {:02x?}",
                    bytes.len(),
                    o.data.len(),
                    bytes.get(d),
                    o.data.get(d)
                );
                let _ = write!(
                    r,
                    "  model:\n{}  RTL:\n{}",
                    hexdump(&bytes),
                    hexdump(&o.data)
                );
            } else {
                return Ok(());
            }
        }
        Err(reason_m) => {
            if reason == reason_m.code() {
                return Ok(());
            }
            let _ = writeln!(
                r,
                "frame {i}: model rejects ({reason_m}), RTL tuser = {:#04x}",
                o.tuser
            );
        }
    }
    let _ = write!(r, "  input frame ({} bytes):\n{}", f.len(), hexdump(f));
    if let Some(e) = explain {
        let _ = writeln!(r, "  model intermediates: SecHdr {:?}", e.sec);
        let _ = writeln!(r, "    key   {}", hex::encode(e.key.bytes()));
        let _ = writeln!(r, "    IV    {}", hex::encode(e.iv));
        let _ = writeln!(r, "    H     {}", hex::encode(e.trace.h));
        let _ = writeln!(r, "    J0    {}", hex::encode(e.trace.j0));
        let _ = writeln!(r, "    AAD   {} bytes", e.aad.len());
        for (k, g) in e.trace.ghash.iter().enumerate() {
            let _ = writeln!(r, "    GHASH Y{:<3} {}", k + 1, hex::encode(g));
        }
        for (k, s) in e.trace.keystream.iter().enumerate() {
            let _ = writeln!(r, "    keystream {k:<3} {}", hex::encode(s));
        }
        let _ = writeln!(
            r,
            "    E_K(J0) {}  tag {}",
            hex::encode(e.trace.ek_j0),
            hex::encode(e.trace.tag)
        );
    }
    Err(r)
}

/// Run one unit on a fresh instance of the protect top `top`, and through the timing layer
/// with `params` (normally [`Params::RTL`]).
pub fn run_unit(
    top: Top,
    keys: &KeyFile,
    unit: &Unit,
    seed: u64,
    traffic: Traffic,
    params: &Params,
) -> UnitResult {
    let mut k = keys.clone();
    k.force_mode(unit.mode);
    let mut res = UnitResult {
        name: unit.name.clone(),
        mode: Some(unit.mode),
        ..UnitResult::default()
    };
    let Ok(mut model) = Protector::new(&k) else {
        res.mismatches = 1;
        return res;
    };
    model.set_header_window(params.header_window());
    let mut dut = RocesecProtect::new(top);
    if let Err(e) = dut.load_keys(&k) {
        // checked by `run` before any unit starts; reaching this is a harness bug
        res.mismatches = 1;
        res.first = Some(Mismatch {
            index: 0,
            report: format!("loading the key file into the RTL failed: {e}"),
            frame: Vec::new(),
            window: None,
            waves: None,
        });
        return res;
    }
    let mut rng = SplitMix64::new(seed);
    let (out, cycles) = dut.run(&unit.frames, traffic, &mut rng);
    res.rtl_cycles = cycles;
    res.kdf_cycles = dut.kdf_cycles;
    // the timing layer, on the same frames and the same stimulus
    if let Ok(prof) = timing::profile(params, &k, &unit.frames) {
        let pred = timing::predict(params, &prof, traffic, &mut SplitMix64::new(seed));
        res.model_cycles = pred.cycles;
        res.model_kdf_cycles = pred.kdf_cycles;
        res.model_latency = pred.frames.iter().map(|f| f.latency()).collect();
    }
    for (i, (f, o)) in unit.frames.iter().zip(&out).enumerate() {
        res.frames += 1;
        res.bytes_in += f.len() as u64;
        res.bytes_out += o.data.len() as u64;
        res.beats_out += o.data.len().div_ceil(dut.beat_bytes()) as u64;
        let lat = o.last_cycle.saturating_sub(o.in_first_cycle);
        res.latency.push(lat);
        res.len_latency.push((f.len(), lat));
        if let Err(report) = compare(&mut model, i, f, o) {
            res.mismatches = 1;
            res.first = Some(Mismatch {
                index: i,
                report,
                frame: f.clone(),
                window: Some(Window::around(i, o.in_first_cycle, o.last_cycle)),
                waves: None,
            });
            break;
        }
    }
    res.accuracy = Accuracy::of(
        res.rtl_cycles,
        res.model_cycles,
        &res.latency,
        &res.model_latency,
    );
    res
}

/// Re-run `unit` as [`run_unit`] did (same key file, seed and stimulus: the run is
/// deterministic) on the trace-capable build of `top` (`Top::traced`), recording the cycles of
/// `w` into `dir/<capture>.<mode>.fst`; the run stops after the window. Checks that the re-run
/// saw the frame at the same cycles.
///
/// # Errors
/// No trace-capable build of `top`, the keys do not load, the file cannot be written, or the
/// re-run diverged.
pub fn waveform(
    top: Top,
    keys: &KeyFile,
    unit: &Unit,
    seed: u64,
    traffic: Traffic,
    w: Window,
    dir: &Path,
) -> Result<Waves, String> {
    let tt = top
        .traced()
        .ok_or_else(|| format!("no trace-capable build of {}", top.name()))?;
    let mut k = keys.clone();
    k.force_mode(unit.mode);
    let path = waves::path(dir, &format!("{}.{}", unit.name, unit.mode.name()))?;
    let mut dut = RocesecProtect::new(tt);
    dut.trace_window(&path, w.from, w.to)?; // before the key load: a window may start there
    dut.load_keys(&k)?;
    let r = dut.run_expect(
        &unit.frames,
        unit.frames.len(),
        traffic,
        &mut SplitMix64::new(seed),
    );
    dut.idle_until_traced(w.to + 2);
    let traced = dut.trace_finish();
    match r.out.get(w.frame) {
        Some(o) if (o.in_first_cycle, o.last_cycle) == (w.first_in, w.last_out) => {}
        o => {
            return Err(format!(
                "the re-run on {} diverged: frame {} at cycles {:?}, first run {}..={}",
                tt.name(),
                w.frame,
                o.map(|o| (o.in_first_cycle, o.last_cycle)),
                w.first_in,
                w.last_out
            ))
        }
    }
    waves::finish(path, w, traced)
}

/// Load captures as units, one per (capture, mode); no paths: the rxe corpus embedded in the
/// binary (`rocesec_model::corpus`, the committed `testbench/captures`).
///
/// # Errors
/// The capture that cannot be read, with the reason.
pub fn units(paths: &[PathBuf], modes: &[Mode]) -> Result<Vec<Unit>, String> {
    let mut caps: Vec<(String, Vec<Vec<u8>>)> = Vec::new();
    if paths.is_empty() {
        for (name, recs) in rocesec_model::corpus::frames().map_err(|e| e.to_string())? {
            caps.push((name, recs.into_iter().map(|r| r.data).collect()));
        }
    }
    for p in paths {
        let c = pcapio::read(p).map_err(|e| e.to_string())?;
        let name = p
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        caps.push((name, c.into_iter().map(|r| r.data).collect()));
    }
    let mut v = Vec::new();
    for (name, frames) in caps {
        for &m in modes {
            v.push(Unit {
                name: name.clone(),
                frames: frames.clone(),
                mode: m,
            });
        }
    }
    Ok(v)
}

/// Write the frame of a mismatch to `dir/<name>.<mode>.repro.pcap`; returns the path.
///
/// # Errors
/// I/O errors writing the file.
pub fn write_repro(dir: &Path, r: &UnitResult) -> Result<Option<PathBuf>, String> {
    let Some(m) = &r.first else {
        return Ok(None);
    };
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mode = r.mode.map_or("-", |m| m.name());
    let p = dir.join(format!("{}.{mode}.repro.pcap", r.name));
    pcapio::write(&p, &[Record::new(0, m.index as u32, m.frame.clone())])
        .map_err(|e| e.to_string())?;
    Ok(Some(p))
}

/// Options of `rocesec cosim`.
#[derive(Clone, Debug)]
pub struct Options {
    /// Captures (empty: the committed corpus, embedded in the binary).
    pub pcaps: Vec<PathBuf>,
    /// Modes to run.
    pub modes: Vec<Mode>,
    /// Stimulus seed.
    pub seed: u64,
    /// Worker threads (0: rayon's default).
    pub jobs: usize,
    /// Input idle / output stall probabilities in 1/16.
    pub traffic: Traffic,
    /// Where mismatch repro pcaps go.
    pub repro_dir: PathBuf,
    /// SVG plot of latency and throughput against packet size.
    pub plot: Option<PathBuf>,
    /// The verilated protect top (`Top::RocesecProtect1`; the fault-injected variant in tests).
    pub top: Top,
    /// Timing-layer constants of the protect top (`Params::for_lanes`; tests perturb them).
    pub timing: Params,
    /// Timing-layer constants of the verify top (`timing_verify::Params::for_lanes`).
    pub verify_timing: rocesec_model::timing_verify::Params,
    /// 128-bit lanes per beat of the tops (1 or 4), for the report.
    pub lanes: u32,
    /// The verilated verify top for the verify direction (`crate::job_verify`); `None` skips it.
    pub verify_top: Option<Top>,
    /// On a mismatch, re-run the unit or stream on a trace-capable build and write an FST
    /// waveform around the mismatching frame into `repro_dir` ([`crate::waves`]).
    pub waves: bool,
}

/// The synthesis report, embedded at build time (`scripts/synth.sh` regenerates it).
pub(crate) const SYNTHESIS_MD: &str = include_str!("../../docs/synthesis.md");

/// Fmax in MHz of the protect top from a docs/synthesis.md table (see [`top_fmax_mhz`]).
pub fn protect_fmax_mhz(table: &str) -> Option<f64> {
    top_fmax_mhz(table, "rocesec_protect").map(|(_, f)| f)
}

/// Fmax in MHz of a top (`rocesec_protect`, `rocesec_verify`) from a docs/synthesis.md table, with
/// the name of the row it came from. Rows named `<top>`, `<top>_<lanes>` and
/// `<top>_<lanes>_q<entries>` (a synthesis with a smaller QP state table) are considered, column
/// `Fmax (MHz)`, the number that leads the cell; a row without the `_q` suffix (the configuration
/// the co-simulation runs) wins over one with it. A row `<target> (last routed)` (the target's
/// last routed result, kept by `scripts/synth.sh` under a newer netlist's unrouted row) counts as
/// its target and is returned with that suffix. `None` when no such row has a numeric Fmax (place
/// and route not run).
pub fn top_fmax_mhz(table: &str, top: &str) -> Option<(String, f64)> {
    let cells = |l: &str| -> Vec<String> {
        l.trim()
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().trim_matches('`').to_string())
            .collect()
    };
    let digits = |r: &str| !r.is_empty() && r.chars().all(|ch| ch.is_ascii_digit());
    let mut col = None;
    let mut best: Option<(bool, String, f64)> = None; // (exact configuration, row, MHz)
    for line in table.lines().filter(|l| l.trim_start().starts_with('|')) {
        let c = cells(line);
        if let Some(i) = c.iter().position(|h| h.starts_with("Fmax")) {
            col = Some(i);
            continue;
        }
        // "`<target>` (last routed)": the target's last routed result under its newer row
        let raw = c.first().map_or("", |s| s.as_str());
        let (name, last_routed) = match raw.strip_suffix(" (last routed)") {
            Some(n) => (n.trim_end_matches('`'), true),
            None => (raw, false),
        };
        let (is_top, exact) = if name == top {
            (true, true)
        } else if let Some(r) = name.strip_prefix(top).and_then(|r| r.strip_prefix('_')) {
            match r.split_once("_q") {
                None => (digits(r), true),
                Some((l, q)) => (digits(l) && digits(q), false),
            }
        } else {
            (false, false)
        };
        if !is_top {
            continue;
        }
        // the number leads the cell; synth.sh writes the run's options and tool after it
        let Some(f) = col
            .and_then(|i| c.get(i))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse::<f64>().ok())
        else {
            continue;
        };
        if best.as_ref().is_none_or(|b| exact && !b.0) {
            let row = if last_routed {
                format!("{name} (last routed)")
            } else {
                name.to_string()
            };
            best = Some((exact, row, f));
        }
    }
    best.map(|(_, n, f)| (n, f))
}

/// Gb/s of `bytes` in `cycles` at `fmax_mhz`.
pub(crate) fn gbps(bytes: u64, cycles: u64, fmax_mhz: f64) -> f64 {
    bytes as f64 * 8.0 * fmax_mhz / (cycles.max(1) as f64 * 1000.0)
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

/// Run the main job and print the report; returns the number of mismatches.
///
/// # Errors
/// A capture that cannot be read, or a failure writing the report, repro or plot.
pub fn run(
    keys: &KeyFile,
    o: &Options,
    out: &mut dyn std::io::Write,
    err: &mut dyn std::io::Write,
) -> Result<u64, String> {
    use indicatif::{ProgressBar, ProgressStyle};
    use rayon::prelude::*;
    // The key file must fit the engine's tables in every mode before anything runs.
    for m in &o.modes {
        let mut k = keys.clone();
        k.force_mode(*m);
        rocesec_model::regmap::tx_program(&k)
            .map_err(|e| format!("the key file does not fit the RTL engine: {e}"))?;
    }
    let units = units(&o.pcaps, &o.modes)?;
    let total_frames: u64 = units.iter().map(|u| u.frames.len() as u64).sum();
    let pb = ProgressBar::new(total_frames);
    pb.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} frames {msg}")
            .map_err(|e| e.to_string())?
            .progress_chars("=> "),
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(o.jobs)
        .build()
        .map_err(|e| e.to_string())?;
    let t0 = std::time::Instant::now();
    let results: Vec<UnitResult> = pool.install(|| {
        units
            .par_iter()
            .enumerate()
            .map(|(i, u)| {
                let seed = o.seed.wrapping_add(i as u64);
                let mut r = run_unit(o.top, keys, u, seed, o.traffic, &o.timing);
                if let Some(m) = r.first.as_mut().filter(|_| o.waves) {
                    m.waves = m
                        .window
                        .map(|w| waveform(o.top, keys, u, seed, o.traffic, w, &o.repro_dir));
                }
                pb.inc(u.frames.len() as u64);
                r
            })
            .collect()
    });
    pb.finish_and_clear();
    let wall = t0.elapsed().as_secs_f64();
    let io = |e: std::io::Error| e.to_string();
    writeln!(
        out,
        "{:<40} {:<11} {:>6} {:>8} {:>4} {:>9} {:>9} {:>7} {:>13} {:>7} {:>18}",
        "capture",
        "mode",
        "pkts",
        "bytes",
        "mis",
        "RTL cyc",
        "model cyc",
        "err %",
        "pkt |err| %",
        "beat/c",
        "lat min/mean/max"
    )
    .map_err(io)?;
    let mut all_lat = Vec::new();
    let mut acc = Accuracy::default();
    let mut by_mode: Vec<(Mode, Accuracy, u64)> = Vec::new();
    let (mut frames, mut bytes, mut cycles, mut beats, mut mism) = (0u64, 0u64, 0u64, 0u64, 0u64);
    for r in &results {
        let (mn, mean, mx) = stats(&r.latency);
        writeln!(
            out,
            "{:<40} {:<11} {:>6} {:>8} {:>4} {:>9} {:>9} {:>+7.2} {:>13} {:>7.3} {:>18}",
            r.name,
            r.mode.map_or("-", |m| m.name()),
            r.frames,
            r.bytes_in,
            r.mismatches,
            r.rtl_cycles,
            r.model_cycles,
            r.accuracy.total_err_pct(),
            format!(
                "{:.2}/{:.1}",
                r.accuracy.mean_abs_pct(),
                r.accuracy.max_abs_pct
            ),
            r.beats_out as f64 / r.rtl_cycles.max(1) as f64,
            format!("{mn}/{mean:.1}/{mx}")
        )
        .map_err(io)?;
        frames += r.frames;
        bytes += r.bytes_in;
        cycles += r.rtl_cycles;
        beats += r.beats_out;
        mism += r.mismatches;
        all_lat.extend_from_slice(&r.latency);
        acc.merge(&r.accuracy);
        if let Some(m) = r.mode {
            match by_mode.iter_mut().find(|e| e.0 == m) {
                Some(e) => {
                    e.1.merge(&r.accuracy);
                    e.2 += r.bytes_in;
                }
                None => by_mode.push((m, r.accuracy, r.bytes_in)),
            }
        }
        if let Some(m) = &r.first {
            writeln!(
                err,
                "MISMATCH in {} ({}), frame {}:\n{}",
                r.name,
                r.mode.map_or("-", |m| m.name()),
                m.index,
                m.report
            )
            .map_err(io)?;
            if let Some(p) = write_repro(&o.repro_dir, r)? {
                writeln!(err, "  repro pcap: {}", p.display()).map_err(io)?;
            }
            match &m.waves {
                Some(Ok(w)) => writeln!(err, "  waveform: {w}").map_err(io)?,
                Some(Err(e)) => writeln!(err, "  waveform: not written: {e}").map_err(io)?,
                None => {}
            }
        }
    }
    let (mn, mean, mx) = stats(&all_lat);
    let fmax_row = top_fmax_mhz(SYNTHESIS_MD, "rocesec_protect");
    let fmax = fmax_row.as_ref().map(|(_, f)| *f);
    let rate = |b: u64, c: u64| fmax.map_or("n/a".to_string(), |f| format!("{:.2}", gbps(b, c, f)));
    for (m, a, b) in &by_mode {
        writeln!(
            out,
            "timing {:<11}: RTL {} cycles, model {} cycles, error {:+.2} %; per packet |error| \
             mean {:.2} % max {:.1} %, {}/{} packets cycle-exact; Gb/s at Fmax: RTL {} model {}",
            m.name(),
            a.rtl_cycles,
            a.model_cycles,
            a.total_err_pct(),
            a.mean_abs_pct(),
            a.max_abs_pct,
            a.exact,
            a.frames,
            rate(*b, a.rtl_cycles),
            rate(*b, a.model_cycles),
        )
        .map_err(io)?;
    }
    writeln!(
        out,
        "total: {} units, {frames} packets, {bytes} bytes, RTL {cycles} cycles ({:.2} M cycles/s simulated), \
         {:.3} beats/cycle out, latency {mn}/{mean:.1}/{mx} cycles; model timing layer: {} cycles, \
         error {:+.2} %, per packet |error| mean {:.2} % max {:.1} %; Gb/s at Fmax: {}; wall {wall:.1} s",
        results.len(),
        cycles as f64 / wall.max(1e-9) / 1e6,
        beats as f64 / cycles.max(1) as f64,
        acc.model_cycles,
        acc.total_err_pct(),
        acc.mean_abs_pct(),
        acc.max_abs_pct,
        match fmax {
            Some(f) => format!(
                "RTL {} model {} (input bytes, Fmax {f} MHz of row {} in docs/synthesis.md)",
                rate(bytes, cycles),
                rate(bytes, acc.model_cycles),
                fmax_row.as_ref().map_or("", |(n, _)| n.as_str()),
            ),
            None => "n/a (no rocesec_protect row with an Fmax in docs/synthesis.md yet)".to_string(),
        },
    )
    .map_err(io)?;
    if let Some(p) = &o.plot {
        plot(p, &results, o.lanes)?;
        writeln!(out, "plot: {}", p.display()).map_err(io)?;
    }
    if let Some(vt) = o.verify_top {
        mism += crate::job_verify::run(keys, o, vt, &units, out, err)?;
    }
    writeln!(out, "mismatches: {mism}").map_err(io)?;
    Ok(mism)
}

/// Latency (cycles) against frame size, every frame of every unit, as an SVG scatter plot:
/// RTL (filled blue) and the model's timing layer (red rings).
fn plot(path: &Path, results: &[UnitResult], lanes: u32) -> Result<(), String> {
    use plotters::prelude::*;
    let pts: Vec<(i32, i32)> = results
        .iter()
        .flat_map(|r| r.len_latency.iter().map(|&(l, c)| (l as i32, c as i32)))
        .collect();
    let model: Vec<(i32, i32)> = results
        .iter()
        .flat_map(|r| {
            r.len_latency
                .iter()
                .zip(&r.model_latency)
                .map(|(&(l, _), &m)| (l as i32, m as i32))
        })
        .collect();
    let xmax = pts.iter().map(|p| p.0).max().unwrap_or(1) + 64;
    let ymax = pts.iter().map(|p| p.1).max().unwrap_or(1) + 16;
    let root = SVGBackend::new(path, (900, 500)).into_drawing_area();
    let e = |e: &dyn std::fmt::Display| e.to_string();
    root.fill(&WHITE).map_err(|x| e(&x))?;
    let mut ch = ChartBuilder::on(&root)
        .caption(
            format!(
                "rocesec protect (LANES={lanes}): latency vs frame size, RTL (dots) and model \
                 (rings)"
            ),
            ("sans-serif", 18),
        )
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0..xmax, 0..ymax)
        .map_err(|x| e(&x))?;
    ch.configure_mesh()
        .x_desc("frame bytes")
        .y_desc("cycles, first beat in to last beat out")
        .draw()
        .map_err(|x| e(&x))?;
    ch.draw_series(pts.iter().map(|&p| Circle::new(p, 2, BLUE.filled())))
        .map_err(|x| e(&x))?;
    ch.draw_series(
        model
            .iter()
            .map(|&p| Circle::new(p, 4, RED.stroke_width(1))),
    )
    .map_err(|x| e(&x))?;
    root.present().map_err(|x| e(&x))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::top_fmax_mhz;

    const HEAD: &str = "| block | params | LUT4 | Fmax (MHz) |\n|---|---|---:|---:|\n";

    #[test]
    fn fmax_row_prefers_the_simulated_configuration() {
        let q = format!("{HEAD}| `rocesec_protect_1_q16` | `x` | 1 | 95.5 |\n");
        assert_eq!(
            top_fmax_mhz(&q, "rocesec_protect"),
            Some(("rocesec_protect_1_q16".to_string(), 95.5))
        );
        let both = format!("{q}| `rocesec_protect_1` | `x` | 1 | 90.25 |\n");
        assert_eq!(
            top_fmax_mhz(&both, "rocesec_protect"),
            Some(("rocesec_protect_1".to_string(), 90.25))
        );
        // The exact configuration without P&R does not hide the q16 number.
        let no_pnr = format!("{q}| `rocesec_protect_1` | `x` | 1 | n/a |\n");
        assert_eq!(
            top_fmax_mhz(&no_pnr, "rocesec_protect").map(|r| r.1),
            Some(95.5)
        );
        // Other tops and malformed suffixes are not taken.
        assert_eq!(top_fmax_mhz(&q, "rocesec_verify"), None);
        let bad = format!("{HEAD}| `rocesec_protect_1_qx` | `x` | 1 | 95.5 |\n");
        assert_eq!(top_fmax_mhz(&bad, "rocesec_protect"), None);
    }

    #[test]
    fn fmax_cell_with_options_and_last_routed_row() {
        // scripts/synth.sh writes the nextpnr options, the tool and "(adopted)" after the
        // number, and keeps the last routed result of a target as a "(last routed)" row under
        // the target's newer, unrouted row.
        let t = format!(
            "{HEAD}| `rocesec_protect_1_q16` | `x` | 1 | n/a |\n\
             | `rocesec_protect_1_q16` (last routed) | `x` | 1 | 34.66 (`--threads 1`) \
             (native-0.11.1) (adopted) |\n"
        );
        assert_eq!(
            top_fmax_mhz(&t, "rocesec_protect"),
            Some(("rocesec_protect_1_q16 (last routed)".to_string(), 34.66))
        );
        let routed = format!("{HEAD}| `rocesec_verify_1_q16` | `x` | 1 | 27.85 (`--seed 2`) |\n");
        assert_eq!(
            top_fmax_mhz(&routed, "rocesec_verify"),
            Some(("rocesec_verify_1_q16".to_string(), 27.85))
        );
        // a number must lead the cell
        let text = format!("{HEAD}| `rocesec_verify_1_q16` | `x` | 1 | not routed |\n");
        assert_eq!(top_fmax_mhz(&text, "rocesec_verify"), None);
    }
}
