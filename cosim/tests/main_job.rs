//! The main job (`rocesec cosim`) end to end on real rxe captures: the RTL protect top agrees
//! with the model on every byte and verdict, and a deliberate RTL fault (one flipped S-box bit,
//! `+define+FAULT_SBOX`) is caught with a report that names the frame, the first differing byte
//! and the model's GCM intermediates, a repro pcap and an FST waveform window around the frame
//! (re-run on a trace-capable build; its header's time range is checked against the frame's
//! cycles).
#![allow(clippy::unwrap_used)]

use rocesec_cosim::job::{self, Options};
use rocesec_cosim::rtl::rocesec_protect::Traffic;
use rocesec_cosim::rtl::Top;
use rocesec_model::cli::default_corpus;
use rocesec_model::keys::KeyFile;
use rocesec_model::sechdr::Mode;
use std::path::PathBuf;

/// A `waveform: ` line of a mismatch report: the file, the frame and its cycles.
#[derive(Debug)]
struct WaveLine {
    path: PathBuf,
    /// Cycles recorded, as reported.
    cycles: (u64, u64),
    frame: usize,
    first_in: u64,
    last_out: u64,
}

/// The number after `key` in `line` (up to the next non-digit).
fn number_after(line: &str, key: &str) -> u64 {
    let at = line
        .find(key)
        .unwrap_or_else(|| panic!("no {key:?} in {line:?}"))
        + key.len();
    let digits: String = line[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("no number after {key:?} in {line:?}"))
}

/// Every `waveform: ` line of `report`, each right after the mismatch line it belongs to
/// (`MISMATCH ... frame N` / `VERIFY MISMATCH ...: frame N`), with the frame checked when the
/// mismatch names one (a stall does not).
fn wave_lines(report: &str) -> Vec<WaveLine> {
    let mut frame_seen: Option<u64> = None;
    let mut v = Vec::new();
    for line in report.lines() {
        if line.contains("MISMATCH in ") {
            frame_seen = line.find("frame ").map(|_| number_after(line, "frame "));
        }
        let Some(rest) = line.strip_prefix("  waveform: ") else {
            continue;
        };
        assert!(!rest.starts_with("not written"), "{line}");
        let path = PathBuf::from(rest.split(" (FST, ").next().unwrap());
        let w = WaveLine {
            path,
            cycles: (
                number_after(rest, "(FST, cycles "),
                number_after(rest, "..="),
            ),
            frame: number_after(rest, "; frame ") as usize,
            first_in: number_after(rest, "first beat in at cycle "),
            last_out: number_after(rest, "last beat out at cycle "),
        };
        if let Some(f) = frame_seen {
            assert_eq!(f, w.frame as u64, "{report}");
        }
        v.push(w);
    }
    v
}

/// The waveform of a mismatch: a non-empty FST file whose header's time range covers the
/// mismatching frame (first beat in to last beat out) with the harness's margins, in ns, with
/// the hierarchy below the top.
fn check_waveform(w: &WaveLine, repro_dir: &std::path::Path) {
    use rocesec_cosim::rtl::NS_PER_CYCLE;
    use rocesec_cosim::waves::{fst_header, POST, PRE};
    assert!(w.path.starts_with(repro_dir), "{w:?}");
    assert_eq!(w.path.extension().unwrap(), "fst");
    let bytes = std::fs::read(&w.path).unwrap_or_else(|e| panic!("{}: {e}", w.path.display()));
    assert!(
        bytes.len() > 1000,
        "{}: {} bytes",
        w.path.display(),
        bytes.len()
    );
    let h = fst_header(&bytes).unwrap_or_else(|e| panic!("{}: {e}", w.path.display()));
    assert_eq!(h.timescale, -9, "{h:?}");
    assert!(w.first_in <= w.last_out, "{w:?}");
    // the window: up to PRE cycles before the first beat in (recording starts once the re-run's
    // model is reset) to POST cycles after the last beat out, as reported and as the file's
    // header says (cycle c at c x 10 ns, closed at the next cycle)
    assert!(
        w.cycles.0 < w.first_in && w.cycles.0 >= w.first_in.saturating_sub(PRE),
        "{w:?}"
    );
    assert_eq!(w.cycles.1, w.last_out + POST, "{w:?}");
    assert_eq!(h.start_time, w.cycles.0 * NS_PER_CYCLE, "{w:?} {h:?}");
    assert_eq!(h.end_time, (w.cycles.1 + 1) * NS_PER_CYCLE, "{w:?} {h:?}");
    assert!(h.vc_sections >= 1, "{h:?}");
    // ports of the wrapper (33) and the hierarchy below it
    assert!(h.scopes >= 8 && h.vars > 500, "{h:?}");
}

fn options(top: Top, verify_top: Option<Top>, names: &[&str]) -> Options {
    let tag = format!("{}-{}", top.name(), verify_top.map_or("none", Top::name));
    let pcaps = default_corpus()
        .into_iter()
        .filter(|p| names.iter().any(|n| p.to_string_lossy().contains(n)))
        .collect::<Vec<_>>();
    assert_eq!(pcaps.len(), names.len(), "captures {names:?} not found");
    Options {
        pcaps,
        modes: vec![Mode::HeaderAuth, Mode::PacketAuth, Mode::Aead],
        seed: 7,
        jobs: 2,
        traffic: Traffic { idle: 3, stall: 3 },
        repro_dir: std::env::temp_dir().join(format!("rocesec-repro-{}-{tag}", std::process::id())),
        plot: None,
        top,
        timing: rocesec_model::timing::Params::for_lanes(lanes(top)).unwrap(),
        verify_timing: rocesec_model::timing_verify::Params::for_lanes(lanes(top)).unwrap(),
        lanes: lanes(top),
        verify_top,
        waves: true,
    }
}

/// 128-bit lanes per beat of a protect or verify top variant.
fn lanes(top: Top) -> u32 {
    if matches!(top, Top::RocesecProtect4 | Top::RocesecVerify4) {
        4
    } else {
        1
    }
}

#[test]
fn rtl_agrees_with_the_model_on_real_captures() {
    let o = options(
        Top::RocesecProtect1,
        Some(Top::RocesecVerify1),
        &[
            "verbs_rc_imm_mtu1024_v4",
            "verbs_ud_send_v6",
            "perftest_atomic_cas_v4",
        ],
    );
    let mut out = Vec::new();
    let n = job::run(
        &KeyFile::demo().unwrap(),
        &o,
        &mut out,
        &mut std::io::sink(),
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert_eq!(n, 0, "{text}");
    assert!(text.ends_with("mismatches: 0\n"), "{text}");
    // no mismatch, no re-run: nothing written
    assert!(!o.repro_dir.exists(), "{}", o.repro_dir.display());
}

/// The main job at LANES = 4 (`rocesec cosim --lanes 4`): both 64-byte-beat tops agree with the
/// model on every byte and verdict, and the LANES = 4 timing layer predicts every unit's cycles
/// (the summary lines report a total error of +0.00 % and every packet cycle-exact).
#[test]
fn lanes_4_main_job_agrees_with_the_model_cycle_for_cycle() {
    let o = options(
        Top::RocesecProtect4,
        Some(Top::RocesecVerify4),
        &[
            "verbs_rc_imm_mtu1024_v4",
            "verbs_ud_send_v6",
            "perftest_atomic_cas_v4",
            "verbs_rc_write_mtu4096_v4",
        ],
    );
    let mut out = Vec::new();
    let n = job::run(
        &KeyFile::demo().unwrap(),
        &o,
        &mut out,
        &mut std::io::sink(),
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert_eq!(n, 0, "{text}");
    assert!(text.ends_with("mismatches: 0\n"), "{text}");
    let total = text
        .lines()
        .find(|l| l.starts_with("total: "))
        .unwrap_or_else(|| panic!("no protect total line:\n{text}"));
    assert!(total.contains("error +0.00 %"), "{total}");
    let vtotal = text
        .lines()
        .find(|l| l.starts_with("verify timing total: "))
        .unwrap_or_else(|| panic!("no verify timing total line:\n{text}"));
    assert!(vtotal.contains("error +0.00 %"), "{vtotal}");
    let (exact, all) = exact_of(vtotal, " packets that leave cycle-exact");
    assert!(all > 0 && exact == all, "{vtotal}");
    let mut modes = 0;
    for l in text.lines().filter(|l| l.starts_with("timing ")) {
        let (exact, all) = exact_of(l, " packets cycle-exact");
        assert!(all > 0 && exact == all, "{l}");
        modes += 1;
    }
    assert_eq!(modes, 3, "{text}");
}

/// The `N/M` just before `marker` in a summary line.
fn exact_of(line: &str, marker: &str) -> (u64, u64) {
    let head = &line[..line
        .find(marker)
        .unwrap_or_else(|| panic!("no {marker:?} in {line}"))];
    let nm = head.rsplit(' ').next().unwrap_or_default();
    let (n, m) = nm
        .split_once('/')
        .unwrap_or_else(|| panic!("no N/M before {marker:?} in {line}"));
    (n.parse().unwrap(), m.parse().unwrap())
}

#[test]
fn a_flipped_sbox_bit_in_the_rtl_is_caught_with_a_clear_report() {
    let o = options(
        Top::RocesecProtect1Fault,
        None,
        &["verbs_rc_send_mtu1024_v4"],
    );
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let n = job::run(&KeyFile::demo().unwrap(), &o, &mut out, &mut err).unwrap();
    let (text, report) = (
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    );
    assert_eq!(n, 3, "one mismatch per mode expected:\n{text}\n{report}");
    assert!(text.ends_with("mismatches: 3\n"));
    assert!(
        report.contains("MISMATCH in verbs_rc_send_mtu1024_v4"),
        "{report}"
    );
    assert!(report.contains("differs"), "{report}");
    assert!(
        report.contains("GHASH Y1") && report.contains("H     "),
        "{report}"
    );
    assert!(report.contains("repro pcap: "), "{report}");
    // an FST waveform window around each mismatching frame, named after capture and mode
    let waves = wave_lines(&report);
    assert_eq!(waves.len(), 3, "{report}");
    for (w, m) in waves.iter().zip(&o.modes) {
        assert_eq!(
            w.path.file_name().unwrap().to_string_lossy(),
            format!("verbs_rc_send_mtu1024_v4.{}.fst", m.name()),
        );
        check_waveform(w, &o.repro_dir);
    }
}

#[test]
fn a_flipped_sbox_bit_in_the_verify_top_is_caught() {
    let o = options(
        Top::RocesecProtect1,
        Some(Top::RocesecVerify1Fault),
        &["verbs_rc_send_mtu1024_v4"],
    );
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let n = job::run(&KeyFile::demo().unwrap(), &o, &mut out, &mut err).unwrap();
    let (text, report) = (
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    );
    // protect agrees; each verify run (3 modes x genuine/tamper x 2 output modes) disagrees
    assert_eq!(n, 12, "{text}\n{report}");
    assert!(
        report.contains("VERIFY MISMATCH in verbs_rc_send_mtu1024_v4"),
        "{report}"
    );
    // store-and-forward: the RTL drops the frames it cannot authenticate; reported as the
    // first frame the model forwards and the RTL does not (not as a stall)
    assert!(
        report.contains("no output (store-and-forward: the RTL dropped it)"),
        "{report}"
    );
    assert!(!report.contains("stalled"), "{report}");
    // a repro pcap of each disagreeing stream: the protected input up to the frame that
    // disagreed, readable by the model's pcap reader
    let repros: Vec<&str> = report
        .lines()
        .filter_map(|l| l.trim().strip_prefix("repro pcap: "))
        .collect();
    assert_eq!(repros.len(), 12, "{report}");
    for l in &repros {
        let path = std::path::Path::new(l.split(" (").next().unwrap());
        assert!(path.starts_with(&o.repro_dir), "{l}");
        assert!(path.to_string_lossy().ends_with(".repro.pcap"), "{l}");
        let c = rocesec_model::pcapio::read(path).unwrap();
        assert!(!c.is_empty(), "{l}: empty");
    }
    let waves = wave_lines(&report);
    assert_eq!(waves.len(), 12, "{report}");
    for w in &waves {
        assert!(
            w.path
                .file_name()
                .unwrap()
                .to_string_lossy()
                .contains(".verify-"),
            "{w:?}"
        );
        check_waveform(w, &o.repro_dir);
    }
}

#[test]
fn the_main_tops_rerun_a_window_on_their_trace_builds() {
    use rocesec_cosim::rtl::rocesec_protect::RocesecProtect;
    use rocesec_cosim::rtl::SplitMix64;
    use rocesec_cosim::waves::Window;
    // the main models stay without tracing (run time); each has a trace-capable twin
    for (t, tt) in [
        (Top::RocesecProtect1, Top::RocesecProtect1Trace),
        (Top::RocesecVerify1, Top::RocesecVerify1Trace),
        (Top::RocesecProtect4, Top::RocesecProtect4Trace),
        (Top::RocesecVerify4, Top::RocesecVerify4Trace),
    ] {
        assert!(!t.traceable() && tt.traceable(), "{t:?}");
        assert_eq!(t.traced(), Some(tt));
    }
    for t in [Top::RocesecProtect1Fault, Top::RocesecVerify1Fault] {
        assert_eq!(t.traced(), Some(t));
    }
    assert_eq!(Top::RoceIcrc1.traced(), None);
    // a window around frame 5, taken from a run of the plain model, re-run on the trace build
    // (LANES 1 and 4)
    for top in [Top::RocesecProtect1, Top::RocesecProtect4] {
        // same cycles (the determinism check of `waveform`) and a file covering them
        let o = options(top, None, &["verbs_rc_imm_mtu1024_v4"]);
        let keys = KeyFile::demo().unwrap();
        let unit = job::units(&o.pcaps, &[Mode::Aead]).unwrap().remove(0);
        let mut k = keys.clone();
        k.force_mode(unit.mode);
        let mut dut = RocesecProtect::new(top);
        dut.load_keys(&k).unwrap();
        let (out, _) = dut.run(&unit.frames, o.traffic, &mut SplitMix64::new(o.seed));
        // a frame far enough in that the window does not start at cycle 0
        let fi = if top == Top::RocesecProtect4 { 15 } else { 5 };
        let f = &out[fi];
        let w = Window::around(fi, f.in_first_cycle, f.last_cycle);
        assert!(w.from > 0, "{w:?}");
        let waves = job::waveform(top, &keys, &unit, o.seed, o.traffic, w, &o.repro_dir).unwrap();
        assert_eq!(waves.cycles, (w.from, w.to));
        let line = WaveLine {
            path: waves.path.clone(),
            cycles: waves.cycles,
            frame: fi,
            first_in: f.in_first_cycle,
            last_out: f.last_cycle,
        };
        check_waveform(&line, &o.repro_dir);
        // a window the re-run does not reproduce is refused
        let off = Window::around(fi, f.in_first_cycle + 1, f.last_cycle);
        let e = job::waveform(top, &keys, &unit, o.seed, o.traffic, off, &o.repro_dir).unwrap_err();
        assert!(e.contains("diverged"), "{e}");
    }
}
