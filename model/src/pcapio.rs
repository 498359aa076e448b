//! Reading and writing classic pcap files of Ethernet frames (via `pcap-file`).
//!
//! Records are read raw, so that the file's byte order and timestamp resolution (µs or ns) are
//! kept when frames are written back, and so that snaplen-truncated records (incl_len <
//! orig_len, normal in pcap) are read and reported instead of refused.

use pcap_file::pcap::{PcapHeader, PcapReader, PcapWriter, RawPcapPacket};
use pcap_file::DataLink;
use std::borrow::Cow;
use std::fmt;
use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::Path;

/// One captured frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// Timestamp seconds.
    pub ts_sec: u32,
    /// Timestamp fraction, in the file's resolution (µs or ns).
    pub ts_frac: u32,
    /// Frame bytes as captured (Ethernet II, no FCS).
    pub data: Vec<u8>,
    /// Original length on the wire (> `data.len()` when the capture truncated the frame).
    pub orig_len: u32,
}

impl Record {
    /// A record of a whole frame.
    pub fn new(ts_sec: u32, ts_frac: u32, data: Vec<u8>) -> Self {
        let orig_len = u32::try_from(data.len()).unwrap_or(u32::MAX);
        Self {
            ts_sec,
            ts_frac,
            data,
            orig_len,
        }
    }

    /// True when the capture holds only part of the frame (snaplen).
    pub fn is_truncated(&self) -> bool {
        (self.data.len() as u64) < u64::from(self.orig_len)
    }
}

/// A capture file: its header, its records, and whether it ended in the middle of a record.
#[derive(Clone, Debug)]
pub struct Capture {
    /// Global header (byte order, resolution, snaplen, link type).
    pub header: PcapHeader,
    /// Records in file order.
    pub records: Vec<Record>,
    /// Set when the file ends inside a record or a record is corrupt: records after that point
    /// are lost, those before it are in `records`.
    pub damaged: Option<String>,
}

/// A capture that cannot be used.
#[derive(Debug)]
pub enum PcapError {
    /// I/O error opening or reading the file.
    Io(String, std::io::Error),
    /// I/O error creating or writing the output file (incl. the final flush).
    Write(String, std::io::Error),
    /// Not a classic pcap file (bad magic or global header).
    Format(String, String),
    /// Link type is not Ethernet. Native InfiniBand (LRH) captures are not RoCEv2.
    LinkType(String, String),
    /// The file is damaged after `n` good records (see [`Capture::damaged`]).
    Damaged(String, usize, String),
}

impl fmt::Display for PcapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PcapError::Io(p, e) => write!(f, "{p}: {e}"),
            PcapError::Write(p, e) => write!(f, "{p}: cannot write: {e}"),
            PcapError::Format(p, e) => write!(
                f,
                "{p}: not a classic pcap file ({e}); pcapng can be converted with \
                 `editcap -F pcap IN OUT`"
            ),
            PcapError::LinkType(p, l) => write!(
                f,
                "{p}: not RoCEv2: link type {l} (rocesec reads Ethernet captures; native \
                 InfiniBand captures with an LRH are not RoCEv2)"
            ),
            PcapError::Damaged(p, n, e) => {
                write!(f, "{p}: truncated or corrupt after {n} records ({e})")
            }
        }
    }
}

impl std::error::Error for PcapError {}

/// Read a classic pcap file with Ethernet link type, keeping its header.
///
/// # Errors
/// [`PcapError`] for I/O errors, a file that is not classic pcap, or a non-Ethernet link type.
/// A file damaged in the middle is not an error here: see [`Capture::damaged`].
pub fn read_capture(path: &Path) -> Result<Capture, PcapError> {
    let name = path.display().to_string();
    let f = File::open(path).map_err(|e| PcapError::Io(name.clone(), e))?;
    // pcap-file reports both as "Error reading bytes"
    match f.metadata() {
        Ok(m) if m.is_dir() => {
            return Err(PcapError::Io(name, std::io::ErrorKind::IsADirectory.into()));
        }
        Ok(m) if m.is_file() && m.len() < 24 => {
            return Err(PcapError::Format(
                name,
                format!("{} bytes, shorter than the 24-byte global header", m.len()),
            ));
        }
        _ => {}
    }
    read_capture_from(name, BufReader::new(f))
}

/// Read every frame of a classic pcap image in memory (`name` labels errors); a damaged image
/// is an error.
///
/// # Errors
/// As [`read`].
pub fn read_bytes(name: &str, bytes: &[u8]) -> Result<Vec<Record>, PcapError> {
    let c = read_capture_from(name.to_string(), bytes)?;
    match c.damaged {
        Some(e) => Err(PcapError::Damaged(name.to_string(), c.records.len(), e)),
        None => Ok(c.records),
    }
}

fn read_capture_from<R: std::io::Read>(name: String, reader: R) -> Result<Capture, PcapError> {
    let mut r =
        PcapReader::new(reader).map_err(|e| PcapError::Format(name.clone(), e.to_string()))?;
    let header = r.header();
    if header.datalink != DataLink::ETHERNET {
        return Err(PcapError::LinkType(name, format!("{:?}", header.datalink)));
    }
    let mut records = Vec::new();
    let mut damaged = None;
    while let Some(p) = r.next_raw_packet() {
        match p {
            Ok(p) => records.push(Record {
                ts_sec: p.ts_sec,
                ts_frac: p.ts_frac,
                orig_len: p.orig_len,
                data: p.data.into_owned(),
            }),
            Err(e) => {
                damaged = Some(e.to_string());
                break;
            }
        }
    }
    Ok(Capture {
        header,
        records,
        damaged,
    })
}

/// Read every frame of a classic pcap file; a damaged file is an error.
///
/// # Errors
/// As [`read_capture`], plus [`PcapError::Damaged`].
pub fn read(path: &Path) -> Result<Vec<Record>, PcapError> {
    let c = read_capture(path)?;
    match c.damaged {
        Some(e) => Err(PcapError::Damaged(
            path.display().to_string(),
            c.records.len(),
            e,
        )),
        None => Ok(c.records),
    }
}

/// Write records with the given header (byte order and timestamp resolution kept; snaplen
/// raised to fit the largest record).
///
/// # Errors
/// [`PcapError::Write`] when the file cannot be created or written, including at the final
/// flush (until session 21 the buffered writer's drop swallowed that error: a capture of a few
/// KiB to a full disk "succeeded" with nothing written).
pub fn write_capture(path: &Path, header: &PcapHeader, recs: &[Record]) -> Result<(), PcapError> {
    let name = path.display().to_string();
    let f = File::create(path).map_err(|e| PcapError::Write(name.clone(), e))?;
    let mut hdr = *header;
    let longest = recs.iter().map(|r| r.data.len()).max().unwrap_or(0);
    hdr.snaplen = hdr.snaplen.max(u32::try_from(longest).unwrap_or(u32::MAX));
    let io = |e: pcap_file::PcapError| {
        let e = match e {
            pcap_file::PcapError::IoError(e) => e,
            e => std::io::Error::other(e.to_string()),
        };
        PcapError::Write(name.clone(), e)
    };
    let mut w = PcapWriter::with_header(BufWriter::new(f), hdr).map_err(io)?;
    for r in recs {
        let incl = u32::try_from(r.data.len()).unwrap_or(u32::MAX);
        let orig = if r.is_truncated() { r.orig_len } else { incl };
        let raw = RawPcapPacket {
            ts_sec: r.ts_sec,
            ts_frac: r.ts_frac,
            incl_len: incl,
            orig_len: orig,
            data: Cow::Borrowed(&r.data),
        };
        w.write_raw_packet(&raw).map_err(io)?;
    }
    w.into_writer()
        .flush()
        .map_err(|e| PcapError::Write(name.clone(), e))
}

/// Write records to a new classic pcap file (Ethernet, microsecond timestamps, little-endian).
///
/// # Errors
/// As [`write_capture`].
pub fn write(path: &Path, recs: &[Record]) -> Result<(), PcapError> {
    let hdr = PcapHeader {
        datalink: DataLink::ETHERNET,
        snaplen: 262_144,
        endianness: pcap_file::Endianness::Little,
        ..Default::default()
    };
    write_capture(path, &hdr, recs)
}
