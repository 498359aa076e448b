//! The `inspect`, `protect` and `verify` commands of the `rocesec` tool, as library functions
//! that write their report to any `Write` and return the process exit status.
//!
//! Exit status: 0 success; 1 some packet was rejected (verify, protect) or is bad (inspect: bad
//! ICRC or malformed); 2 usage, key-file or I/O error.

use crate::engine::{Protector, Verifier};
use crate::keys::{KeyFile, KeyFileError};
use crate::pcapio::{self, Record};
use crate::roce::{self, icrc, Frame};
use crate::sechdr::Mode;
use crate::verdict::{Counters, Reason};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// Exit status: success.
pub const EXIT_OK: i32 = 0;
/// Exit status: some packet was rejected or bad.
pub const EXIT_REJECTED: i32 = 1;
/// Exit status: usage, key-file or I/O error.
pub const EXIT_ERROR: i32 = 2;

/// Load the key file at `path`, or the demo key set; apply `mode` to every QP if given.
///
/// # Errors
/// [`KeyFileError`] for an unreadable or invalid file.
pub fn load_keys(path: Option<&Path>, mode: Option<Mode>) -> Result<KeyFile, KeyFileError> {
    let mut k = match path {
        Some(p) => {
            let s = std::fs::read_to_string(p)
                .map_err(|e| KeyFileError::Invalid(format!("{}: {e}", p.display())))?;
            KeyFile::from_yaml(&s)?
        }
        None => KeyFile::demo()?,
    };
    if let Some(m) = mode {
        k.force_mode(m);
    }
    Ok(k)
}

/// One line describing a frame, as `rocesec inspect` prints it.
pub fn describe(i: usize, data: &[u8]) -> (String, Option<bool>) {
    match roce::parse(data) {
        Ok(Frame::NotRoce(n)) => (format!("{i:6} not RoCEv2 ({n:?}) len={}", data.len()), None),
        Err(e) => (
            format!("{i:6} MALFORMED {e} len={}", data.len()),
            Some(false),
        ),
        Ok(Frame::Roce(p)) => {
            let ok = icrc::check(data, &p);
            let v = match p.ip {
                roce::IpVersion::V4 => "v4",
                roce::IpVersion::V6 => "v6",
            };
            let mut s = format!(
                "{i:6} {:<24} qpn={:#08x} psn={:#08x} ip{v} len={} payload={} pad={} icrc={}",
                p.op.name,
                p.bth.dest_qp,
                p.bth.psn,
                data.len(),
                p.payload_len(),
                p.bth.pad,
                if ok { "ok" } else { "BAD" }
            );
            if let Some(r) = p.reth(data) {
                s += &format!(" va={:#x} rkey={:#x} dlen={}", r.va, r.rkey, r.dma_len);
            }
            if let Some(a) = p.aeth(data) {
                s += &format!(
                    " aeth={:#04x}{}",
                    a.syndrome,
                    if a.is_nak() { "(NAK)" } else { "" }
                );
            }
            if let Some(sec) = p.sec {
                s += &format!(
                    " protected={} level={} epoch={} pn={}",
                    sec.mode,
                    if sec.level == crate::sechdr::LEVEL_QP {
                        "qp".into()
                    } else {
                        sec.level.to_string()
                    },
                    sec.epoch,
                    sec.pn
                );
            }
            (s, Some(ok))
        }
    }
}

/// `rocesec inspect IN.pcap...`: one line per packet and a summary.
pub fn inspect(paths: &[&Path], out: &mut dyn Write) -> std::io::Result<i32> {
    let (mut ok, mut bad, mut other) = (0u64, 0u64, 0u64);
    let mut ops: BTreeMap<String, u64> = BTreeMap::new();
    for path in paths {
        let recs = match pcapio::read(path) {
            Ok(r) => r,
            Err(e) => {
                writeln!(out, "error: {e}")?;
                return Ok(EXIT_ERROR);
            }
        };
        writeln!(out, "# {}: {} frames", path.display(), recs.len())?;
        for (i, r) in recs.iter().enumerate() {
            let (line, icrc_ok) = describe(i, &r.data);
            writeln!(out, "{line}")?;
            match icrc_ok {
                Some(true) => ok += 1,
                Some(false) => bad += 1,
                None => other += 1,
            }
            if let Ok(Frame::Roce(p)) = roce::parse(&r.data) {
                *ops.entry(p.op.name.to_string()).or_default() += 1;
            }
        }
    }
    writeln!(out, "# opcodes:")?;
    for (k, v) in &ops {
        writeln!(out, "#   {k:<26} {v}")?;
    }
    writeln!(
        out,
        "summary: roce={} icrc_ok={ok} icrc_bad={bad} not_roce={other}",
        ok + bad
    )?;
    Ok(if bad > 0 { EXIT_REJECTED } else { EXIT_OK })
}

/// Print counters with one line per non-zero rejection reason.
pub fn print_counters(out: &mut dyn Write, what: &str, c: &Counters) -> std::io::Result<()> {
    writeln!(
        out,
        "{what}: frames={} processed={} bypass={} cnp={} not_roce={} rejected={}",
        c.frames,
        c.processed,
        c.bypass,
        c.cnp,
        c.not_roce,
        c.total_rejected()
    )?;
    for r in Reason::ALL {
        writeln!(out, "  {:<13} {}", r.name(), c.rejected_for(r))?;
    }
    Ok(())
}

/// Run `step` over every frame of `input`, write the forwarded frames to `output`, report each
/// rejection. `Ok(false)` means an I/O or format error was reported (exit status 2).
fn run(
    input: &Path,
    output: &Path,
    out: &mut dyn Write,
    what: &str,
    mut step: impl FnMut(&[u8]) -> Result<Vec<u8>, Reason>,
) -> std::io::Result<bool> {
    let recs = match pcapio::read(input) {
        Ok(r) => r,
        Err(e) => {
            writeln!(out, "error: {e}")?;
            return Ok(false);
        }
    };
    let mut kept = Vec::with_capacity(recs.len());
    for (i, r) in recs.iter().enumerate() {
        match step(&r.data) {
            Ok(data) => kept.push(Record {
                ts: r.ts,
                orig_len: data.len() as u32,
                data,
            }),
            Err(reason) => writeln!(out, "{what}: packet {i} rejected: {reason}")?,
        }
    }
    if let Err(e) = pcapio::write(output, &kept) {
        writeln!(out, "error: {e}")?;
        return Ok(false);
    }
    Ok(true)
}

fn finish(out: &mut dyn Write, what: &str, ok: bool, c: &Counters) -> std::io::Result<i32> {
    if !ok {
        return Ok(EXIT_ERROR);
    }
    print_counters(out, what, c)?;
    Ok(if c.total_rejected() > 0 {
        EXIT_REJECTED
    } else {
        EXIT_OK
    })
}

/// `rocesec protect`: protect every frame of `input` into `output`.
///
/// # Errors
/// Only errors writing the report to `out`; everything else is reported and mapped to the exit
/// status.
pub fn protect(
    keys: &KeyFile,
    input: &Path,
    output: &Path,
    out: &mut dyn Write,
) -> std::io::Result<i32> {
    let mut tx = match Protector::new(keys) {
        Ok(t) => t,
        Err(e) => {
            writeln!(out, "error: {e}")?;
            return Ok(EXIT_ERROR);
        }
    };
    let ok = run(input, output, out, "protect", |f| {
        tx.protect(f).map(|(_, d)| d)
    })?;
    finish(out, "protect", ok, &tx.counters)
}

/// `rocesec verify`: verify every frame of `input`, writing the recovered plain frames.
///
/// # Errors
/// As [`protect`].
pub fn verify(
    keys: &KeyFile,
    input: &Path,
    output: &Path,
    out: &mut dyn Write,
) -> std::io::Result<i32> {
    let mut rx = match Verifier::new(keys) {
        Ok(t) => t,
        Err(e) => {
            writeln!(out, "error: {e}")?;
            return Ok(EXIT_ERROR);
        }
    };
    let ok = run(input, output, out, "verify", |f| {
        rx.verify(f).map(|(_, d)| d)
    })?;
    finish(out, "verify", ok, &rx.counters)
}

/// Result of [`roundtrip`] on one capture in one mode.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RoundTrip {
    /// Frames in the capture.
    pub frames: u64,
    /// Frames protected (the rest passed unchanged: CNP, bypass, non-RoCE).
    pub protected: u64,
    /// Frames whose verified output differs from the original, or that were rejected.
    pub mismatches: u64,
    /// Bytes added on the wire by protection.
    pub overhead_bytes: u64,
}

/// Protect then verify every frame of `frames` in `mode` with the keys `k`, in order, and compare
/// the result with the original byte for byte.
///
/// # Errors
/// [`KeyFileError`] when the key file has a bad secret.
pub fn roundtrip(k: &KeyFile, frames: &[Vec<u8>]) -> Result<RoundTrip, KeyFileError> {
    let (mut tx, mut rx) = (Protector::new(k)?, Verifier::new(k)?);
    let mut r = RoundTrip {
        frames: frames.len() as u64,
        ..RoundTrip::default()
    };
    for f in frames {
        match tx.protect(f) {
            Ok((fw, p)) => {
                if fw == crate::verdict::Forward::Processed {
                    r.protected += 1;
                    r.overhead_bytes += (p.len() - f.len()) as u64;
                }
                match rx.verify(&p) {
                    Ok((_, back)) if &back == f => {}
                    _ => r.mismatches += 1,
                }
            }
            Err(_) => r.mismatches += 1,
        }
    }
    Ok(r)
}

/// The committed rxe corpus (`testbench/captures/*.pcap`), sorted by name.
pub fn default_corpus() -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testbench/captures");
    let mut v: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.retain(|p: &std::path::PathBuf| p.extension().is_some_and(|e| e == "pcap"));
    v.sort();
    v
}

/// `rocesec roundtrip [PCAP...]`: protect → verify in every mode (or `mode`), compared byte for
/// byte with the input. Exit status 1 on any mismatch.
///
/// # Errors
/// Only errors writing the report.
pub fn roundtrip_cmd(
    keys: &KeyFile,
    paths: &[std::path::PathBuf],
    mode: Option<Mode>,
    out: &mut dyn Write,
) -> std::io::Result<i32> {
    let paths = if paths.is_empty() {
        default_corpus()
    } else {
        paths.to_vec()
    };
    if paths.is_empty() {
        writeln!(
            out,
            "error: no captures given and none found in testbench/captures"
        )?;
        return Ok(EXIT_ERROR);
    }
    let modes = match mode {
        Some(m) => vec![m],
        None => vec![Mode::HeaderAuth, Mode::PacketAuth, Mode::Aead],
    };
    let mut total = RoundTrip::default();
    writeln!(
        out,
        "{:<28} {:<12} {:>7} {:>9} {:>10} {:>9}",
        "capture", "mode", "frames", "protected", "overhead/B", "mismatch"
    )?;
    for p in &paths {
        let frames: Vec<Vec<u8>> = match pcapio::read(p) {
            Ok(r) => r.into_iter().map(|r| r.data).collect(),
            Err(e) => {
                writeln!(out, "error: {e}")?;
                return Ok(EXIT_ERROR);
            }
        };
        for &m in &modes {
            let mut k = keys.clone();
            k.force_mode(m);
            let r = match roundtrip(&k, &frames) {
                Ok(r) => r,
                Err(e) => {
                    writeln!(out, "error: {e}")?;
                    return Ok(EXIT_ERROR);
                }
            };
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let per = r.overhead_bytes.checked_div(r.protected).unwrap_or(0);
            writeln!(
                out,
                "{name:<28} {m:<12} {:>7} {:>9} {per:>10} {:>9}",
                r.frames, r.protected, r.mismatches
            )?;
            total.frames += r.frames;
            total.protected += r.protected;
            total.mismatches += r.mismatches;
        }
    }
    writeln!(
        out,
        "packets: {} protected and verified: {}",
        total.frames, total.protected
    )?;
    writeln!(out, "mismatches: {}", total.mismatches)?;
    Ok(if total.mismatches > 0 {
        EXIT_REJECTED
    } else {
        EXIT_OK
    })
}
