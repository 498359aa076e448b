//! Waveform windows of `rocesec cosim` mismatches: which cycles to record, where the file went,
//! and a small reader of the FST header (start and end time, scope and signal counts) for tests
//! and reports.
//!
//! On the first mismatch of a unit or verify stream the harness re-runs it (same seed, same
//! frames: the run is deterministic) on a trace-capable model (`Top::traced`) and records the
//! cycles from [`PRE`] before the mismatching frame's first beat was accepted to [`POST`] after
//! its last beat left (or the cycle the disagreement was seen). Time in the file is
//! `cycle * NS_PER_CYCLE` ns (`crate::rtl::NS_PER_CYCLE`).

use crate::rtl::NS_PER_CYCLE;
use std::fmt;
use std::path::{Path, PathBuf};

/// Cycles recorded before the first beat of the mismatching frame entered.
pub const PRE: u64 = 64;
/// Cycles recorded after its last beat left.
pub const POST: u64 = 32;

/// The cycles to record around a mismatching frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// Frame index in the stream.
    pub frame: usize,
    /// Cycle the frame's first input beat was accepted.
    pub first_in: u64,
    /// Cycle its last output beat left (or the mismatch was seen).
    pub last_out: u64,
    /// First recorded cycle.
    pub from: u64,
    /// Last recorded cycle.
    pub to: u64,
}

impl Window {
    /// [`PRE`] cycles before `first_in` to [`POST`] cycles after `last_out`.
    pub fn around(frame: usize, first_in: u64, last_out: u64) -> Self {
        Self {
            frame,
            first_in,
            last_out,
            from: first_in.saturating_sub(PRE),
            to: last_out.max(first_in) + POST,
        }
    }
}

/// A waveform written for a mismatch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waves {
    /// The file.
    pub path: PathBuf,
    /// The window asked for.
    pub window: Window,
    /// First and last cycle actually recorded.
    pub cycles: (u64, u64),
    /// File size in bytes.
    pub bytes: u64,
}

impl fmt::Display for Waves {
    /// `PATH (FST, cycles A..=B, N bytes; frame F: first beat in at cycle X, last beat out at
    /// cycle Y; time = cycle x 10 ns)`, the format `rocesec cosim` prints after `waveform: `.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (FST, cycles {}..={}, {} bytes; frame {}: first beat in at cycle {}, last beat out \
             at cycle {}; time = cycle x {NS_PER_CYCLE} ns)",
            self.path.display(),
            self.cycles.0,
            self.cycles.1,
            self.bytes,
            self.window.frame,
            self.window.first_in,
            self.window.last_out,
        )
    }
}

/// `dir/<stem>.fst`, after creating `dir`.
///
/// # Errors
/// The folder cannot be created.
pub fn path(dir: &Path, stem: &str) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir.join(format!("{stem}.fst")))
}

/// After a re-run: the recorded cycles (`traced`, from the driver's `trace_finish`) and the
/// file, checked to be non-empty.
///
/// # Errors
/// Nothing was recorded (the window was never reached or the file could not be created).
pub fn finish(path: PathBuf, window: Window, traced: Option<(u64, u64)>) -> Result<Waves, String> {
    let cycles = traced.ok_or_else(|| {
        format!(
            "no waveform written to {}: the re-run never reached cycle {} or the file could not \
             be created",
            path.display(),
            window.from
        )
    })?;
    let bytes = std::fs::metadata(&path)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .len();
    Ok(Waves {
        path,
        window,
        cycles,
        bytes,
    })
}

/// The header block of an FST file (gtkwave's `fstapi.c`, block type `FST_BL_HDR`).
#[derive(Clone, Debug, PartialEq)]
pub struct FstHeader {
    /// First time recorded (in the file's unit).
    pub start_time: u64,
    /// Last time recorded.
    pub end_time: u64,
    /// Scopes (module instances, generate blocks) in the hierarchy.
    pub scopes: u64,
    /// Signals in the hierarchy (aliases included).
    pub vars: u64,
    /// Distinct signal handles.
    pub max_handle: u64,
    /// Value-change sections.
    pub vc_sections: u64,
    /// Time unit as a power of ten of seconds (-9: ns).
    pub timescale: i8,
    /// Writer version string.
    pub version: String,
}

/// Parse the header block at the start of an FST file.
///
/// # Errors
/// The file is shorter than a header, does not start with an FST header block, or its
/// endianness check value is wrong.
pub fn fst_header(bytes: &[u8]) -> Result<FstHeader, String> {
    // block type (1) + section length (8) + 329 bytes of header
    const LEN: usize = 1 + 8 + 8 * 8 + 1 + 128 + 119 + 1 + 8;
    if bytes.len() < LEN {
        return Err(format!("{} bytes: shorter than an FST header", bytes.len()));
    }
    if bytes[0] != 0 {
        return Err(format!("block type {} is not an FST header (0)", bytes[0]));
    }
    let u64_at = |o: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&bytes[o..o + 8]);
        u64::from_be_bytes(b)
    };
    let section = u64_at(1);
    if section != 329 {
        return Err(format!("header section length {section}, expected 329"));
    }
    let mut e = [0u8; 8];
    e.copy_from_slice(&bytes[25..33]);
    let endian = f64::from_ne_bytes(e);
    if (endian - std::f64::consts::E).abs() > 1e-12 {
        return Err(format!("endianness check {endian}, expected e"));
    }
    let version = &bytes[74..74 + 128];
    let version =
        String::from_utf8_lossy(&version[..version.iter().position(|&c| c == 0).unwrap_or(128)])
            .into_owned();
    Ok(FstHeader {
        start_time: u64_at(9),
        end_time: u64_at(17),
        scopes: u64_at(41),
        vars: u64_at(49),
        max_handle: u64_at(57),
        vc_sections: u64_at(65),
        timescale: bytes[73] as i8,
        version,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_is_clamped_at_cycle_zero() {
        let w = Window::around(3, 10, 500);
        assert_eq!((w.from, w.to), (0, 500 + POST));
        let w = Window::around(3, 1000, 1200);
        assert_eq!((w.from, w.to), (1000 - PRE, 1200 + POST));
    }

    #[test]
    fn header_reader_rejects_what_is_not_fst() {
        assert!(fst_header(b"$date today $end").is_err());
        let mut h = vec![0u8; 400];
        assert!(fst_header(&h).is_err(), "section length 0");
        h[1..9].copy_from_slice(&329u64.to_be_bytes());
        assert!(fst_header(&h).is_err(), "no endianness value");
        h[25..33].copy_from_slice(&std::f64::consts::E.to_ne_bytes());
        h[9..17].copy_from_slice(&20u64.to_be_bytes());
        h[17..25].copy_from_slice(&90u64.to_be_bytes());
        h[73] = (-9i8) as u8;
        let p = fst_header(&h).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((p.start_time, p.end_time, p.timescale), (20, 90, -9));
    }
}
