//! The `inspect`, `protect`, `verify` and `roundtrip` commands of the `rocesec` tool, as library
//! functions that write their report to `out`, their errors to `err`, and return the exit status.
//!
//! Exit status: 0 success; 1 some packet was rejected (verify, protect, roundtrip) or is bad
//! (inspect: malformed, bad ICRC or truncated by the capture); 2 usage, key-file or I/O error,
//! including a capture file that is damaged part-way (the records before the damage are still
//! processed and written).

use crate::engine::{Engine, Protector, QpState, Verifier};
use crate::keys::{KeyFile, KeyFileError};
use crate::pcapio::{self, Capture, Record};
use crate::roce::{self, icrc, Frame};
use crate::sechdr::Mode;
use crate::verdict::{Counters, Forward, Reason};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Exit status: success.
pub const EXIT_OK: i32 = 0;
/// Exit status: some packet was rejected or bad.
pub const EXIT_REJECTED: i32 = 1;
/// Exit status: usage, key-file or I/O error.
pub const EXIT_ERROR: i32 = 2;

/// A report stream that outlives its reader: once a write fails with
/// [`std::io::ErrorKind::BrokenPipe`] (`rocesec verify ... 2>&1 | head -1`), that and every
/// later write is discarded as if written, so the command still writes its output file and
/// returns its exit status. Other errors pass through. Until session 21 the first report line
/// after the reader left ended protect and verify before the output was written, and the binary
/// turned the broken pipe into exit 0.
#[derive(Debug)]
pub struct PipeSafe<W> {
    inner: W,
    closed: bool,
}

impl<W: Write> PipeSafe<W> {
    /// Wrap `inner`.
    pub fn new(inner: W) -> Self {
        Self {
            inner,
            closed: false,
        }
    }

    /// True once the reader has gone (writes are being discarded).
    pub fn closed(&self) -> bool {
        self.closed
    }

    fn absorb<T>(&mut self, r: std::io::Result<T>, done: T) -> std::io::Result<T> {
        match r {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(done)
            }
            r => r,
        }
    }
}

impl<W: Write> Write for PipeSafe<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.closed {
            return Ok(buf.len());
        }
        let r = self.inner.write(buf);
        self.absorb(r, buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.closed {
            return Ok(());
        }
        let r = self.inner.flush();
        self.absorb(r, ())
    }
}

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

/// How `inspect` classifies one record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// RoCEv2 with a valid ICRC.
    IcrcOk,
    /// RoCEv2 with a wrong ICRC.
    IcrcBad,
    /// Addressed to UDP 4791 (or too short to tell) but not a well-formed RoCEv2 packet.
    Malformed,
    /// Cut short by the capture's snaplen: cannot be checked or protected.
    Truncated,
    /// Not RoCEv2.
    NotRoce,
}

/// One line describing a record, as `rocesec inspect` prints it, and its kind.
pub fn describe(i: usize, r: &Record) -> (String, Kind) {
    let data = &r.data;
    if r.is_truncated() {
        let s = format!(
            "{i:6} TRUNCATED by the capture: {} of {} bytes",
            data.len(),
            r.orig_len
        );
        return (s, Kind::Truncated);
    }
    match roce::parse(data) {
        Ok(Frame::NotRoce(n)) => (
            format!("{i:6} not RoCEv2 ({n:?}) len={}", data.len()),
            Kind::NotRoce,
        ),
        Err(e) => (
            format!("{i:6} MALFORMED {e} len={}", data.len()),
            Kind::Malformed,
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
                let level = if sec.level == crate::sechdr::LEVEL_QP {
                    "qp".to_string()
                } else {
                    sec.level.to_string()
                };
                s += &format!(
                    " protected={} level={level} epoch={} pn={}",
                    sec.mode, sec.epoch, sec.pn
                );
            }
            (s, if ok { Kind::IcrcOk } else { Kind::IcrcBad })
        }
    }
}

/// Read a capture; report a damaged tail on `err`. `None`: unusable (reported).
fn open(path: &Path, err: &mut dyn Write) -> std::io::Result<Option<Capture>> {
    match pcapio::read_capture(path) {
        Ok(c) => {
            if let Some(d) = &c.damaged {
                writeln!(
                    err,
                    "error: {}: truncated or corrupt after {} records ({d}); those records are processed",
                    path.display(),
                    c.records.len()
                )?;
            }
            Ok(Some(c))
        }
        Err(e) => {
            writeln!(err, "error: {e}")?;
            Ok(None)
        }
    }
}

/// `rocesec inspect IN.pcap...`: one line per record and a summary.
///
/// # Errors
/// Only errors writing to `out` or `err`.
pub fn inspect(paths: &[&Path], out: &mut dyn Write, err: &mut dyn Write) -> std::io::Result<i32> {
    let mut n: BTreeMap<&'static str, u64> = BTreeMap::new();
    let mut ops: BTreeMap<String, u64> = BTreeMap::new();
    let mut failed = false;
    for path in paths {
        let Some(c) = open(path, err)? else {
            failed = true;
            continue;
        };
        failed |= c.damaged.is_some();
        writeln!(out, "# {}: {} frames", path.display(), c.records.len())?;
        for (i, r) in c.records.iter().enumerate() {
            let (line, kind) = describe(i, r);
            writeln!(out, "{line}")?;
            *n.entry(match kind {
                Kind::IcrcOk => "icrc_ok",
                Kind::IcrcBad => "icrc_bad",
                Kind::Malformed => "malformed",
                Kind::Truncated => "truncated",
                Kind::NotRoce => "not_roce",
            })
            .or_default() += 1;
            if let (Kind::IcrcOk | Kind::IcrcBad, Ok(Frame::Roce(p))) = (kind, roce::parse(&r.data))
            {
                *ops.entry(p.op.name.to_string()).or_default() += 1;
            }
        }
    }
    writeln!(out, "# opcodes:")?;
    for (k, v) in &ops {
        writeln!(out, "#   {k:<26} {v}")?;
    }
    let g = |k: &str| n.get(k).copied().unwrap_or(0);
    writeln!(
        out,
        "summary: roce={} icrc_ok={} icrc_bad={} malformed={} truncated={} not_roce={}",
        g("icrc_ok") + g("icrc_bad"),
        g("icrc_ok"),
        g("icrc_bad"),
        g("malformed"),
        g("truncated"),
        g("not_roce")
    )?;
    Ok(if failed {
        EXIT_ERROR
    } else if g("icrc_bad") + g("malformed") + g("truncated") > 0 {
        EXIT_REJECTED
    } else {
        EXIT_OK
    })
}

/// Print counters with one line per rejection reason.
///
/// # Errors
/// Only errors writing to `out`.
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

/// Run `step` over every record of `input` and write the forwarded frames to `output` with the
/// input's header. Truncated records are rejected as malformed (counted through `reject`).
/// Returns `None` when nothing could be written (reported on `err`), else whether the input
/// file was damaged.
fn run(
    input: &Path,
    output: &Path,
    err: &mut dyn Write,
    what: &str,
    mut step: impl FnMut(&[u8]) -> Result<Vec<u8>, Reason>,
    mut reject: impl FnMut(Reason),
) -> std::io::Result<Option<bool>> {
    let Some(c) = open(input, err)? else {
        return Ok(None);
    };
    let mut kept = Vec::with_capacity(c.records.len());
    for (i, r) in c.records.iter().enumerate() {
        if r.is_truncated() {
            reject(Reason::Malformed);
            writeln!(
                err,
                "{what}: packet {i} rejected: malformed (truncated by the capture)"
            )?;
            continue;
        }
        match step(&r.data) {
            Ok(data) => kept.push(Record::new(r.ts_sec, r.ts_frac, data)),
            Err(reason) => writeln!(err, "{what}: packet {i} rejected: {reason}")?,
        }
    }
    if let Err(e) = pcapio::write_capture(output, &c.header, &kept) {
        writeln!(err, "error: {e}")?;
        return Ok(None);
    }
    Ok(Some(c.damaged.is_some()))
}

fn finish(out: &mut dyn Write, what: &str, r: Option<bool>, c: &Counters) -> std::io::Result<i32> {
    let Some(damaged) = r else {
        return Ok(EXIT_ERROR);
    };
    print_counters(out, what, c)?;
    Ok(if damaged {
        EXIT_ERROR
    } else if c.total_rejected() > 0 {
        EXIT_REJECTED
    } else {
        EXIT_OK
    })
}

/// Run one engine direction over a capture: build it from `keys`, step every record, write
/// the output, print counters (the CLI's own truncated-record rejections included).
fn direction<Q: QpState>(
    keys: &KeyFile,
    input: &Path,
    output: &Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
    what: &str,
    step: fn(&mut Engine<Q>, &[u8]) -> crate::engine::Verdict,
) -> std::io::Result<i32> {
    let mut e = match Engine::<Q>::new(keys) {
        Ok(e) => e,
        Err(x) => {
            writeln!(err, "error: {x}")?;
            return Ok(EXIT_ERROR);
        }
    };
    let mut extra = Counters::default();
    let r = run(
        input,
        output,
        err,
        what,
        |f| step(&mut e, f).map(|(_, d)| d),
        |x| extra.count(&Err(x)),
    )?;
    finish(out, what, r, &e.counters.merged(&extra))
}

/// `rocesec protect`: protect every frame of `input` into `output`.
///
/// # Errors
/// Only errors writing the report; everything else is reported and mapped to the exit status.
pub fn protect(
    keys: &KeyFile,
    input: &Path,
    output: &Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> std::io::Result<i32> {
    direction(keys, input, output, out, err, "protect", Protector::protect)
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
    err: &mut dyn Write,
) -> std::io::Result<i32> {
    direction(keys, input, output, out, err, "verify", Verifier::verify)
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

/// Protect then verify every frame of `frames` with the keys `k`, in order, and compare the
/// result with the original byte for byte.
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
                if fw == Forward::Processed {
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

/// The committed rxe corpus (`testbench/captures/*.pcap` of this source tree), sorted by name.
pub fn default_corpus() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testbench/captures");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|e| e == "pcap"));
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
    paths: &[PathBuf],
    mode: Option<Mode>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> std::io::Result<i32> {
    // (name, frames) per capture: the files given, or the embedded corpus
    let mut caps: Vec<(String, Vec<Vec<u8>>)> = Vec::new();
    if paths.is_empty() {
        match crate::corpus::frames() {
            Ok(v) => {
                for (n, recs) in v {
                    caps.push((
                        format!("{n}.pcap"),
                        recs.into_iter().map(|r| r.data).collect(),
                    ));
                }
            }
            Err(e) => {
                writeln!(err, "error: embedded corpus: {e}")?;
                return Ok(EXIT_ERROR);
            }
        }
    }
    // a capture damaged part-way: its records before the damage are run, the exit status is 2
    let mut damaged = false;
    for p in paths {
        let Some(c) = open(p, err)? else {
            return Ok(EXIT_ERROR);
        };
        damaged |= c.damaged.is_some();
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        caps.push((name, c.records.into_iter().map(|r| r.data).collect()));
    }
    let modes = match mode {
        Some(m) => vec![m],
        None => vec![Mode::HeaderAuth, Mode::PacketAuth, Mode::Aead],
    };
    let (mut frames, mut runs, mut protected, mut mismatches) = (0u64, 0u64, 0u64, 0u64);
    writeln!(
        out,
        "{:<40} {:<12} {:>7} {:>9} {:>10} {:>9}",
        "capture", "mode", "frames", "protected", "overhead/B", "mismatch"
    )?;
    for (name, fr) in &caps {
        frames += fr.len() as u64;
        for &m in &modes {
            let mut k = keys.clone();
            k.force_mode(m);
            let r = match roundtrip(&k, fr) {
                Ok(r) => r,
                Err(e) => {
                    writeln!(err, "error: {e}")?;
                    return Ok(EXIT_ERROR);
                }
            };
            let per = r.overhead_bytes.checked_div(r.protected).unwrap_or(0);
            writeln!(
                out,
                "{name:<40} {m:<12} {:>7} {:>9} {per:>10} {:>9}",
                r.frames, r.protected, r.mismatches
            )?;
            runs += r.frames;
            protected += r.protected;
            mismatches += r.mismatches;
        }
    }
    writeln!(
        out,
        "frames: {frames} in {} captures; {} modes: {runs} protect→verify runs, {protected} protected",
        caps.len(),
        modes.len()
    )?;
    writeln!(out, "mismatches: {mismatches}")?;
    Ok(if damaged {
        EXIT_ERROR
    } else if mismatches > 0 {
        EXIT_REJECTED
    } else {
        EXIT_OK
    })
}
