//! Reading and writing classic pcap files of Ethernet frames (via `pcap-file`).

use pcap_file::pcap::{PcapHeader, PcapPacket, PcapReader, PcapWriter};
use pcap_file::DataLink;
use std::fmt;
use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::Path;
use std::time::Duration;

/// One captured frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// Capture timestamp.
    pub ts: Duration,
    /// Frame bytes (Ethernet II, no FCS).
    pub data: Vec<u8>,
    /// Original length on the wire (≥ `data.len()` when the capture was truncated).
    pub orig_len: u32,
}

/// A capture that cannot be used.
#[derive(Debug)]
pub enum PcapError {
    /// I/O error opening or writing the file.
    Io(String, std::io::Error),
    /// Not a classic pcap file, or a corrupt one.
    Format(String, String),
    /// Link type is not Ethernet. Native InfiniBand (LRH) captures are not RoCEv2.
    LinkType(String, String),
}

impl fmt::Display for PcapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PcapError::Io(p, e) => write!(f, "{p}: {e}"),
            PcapError::Format(p, e) => write!(
                f,
                "{p}: not a readable classic pcap file ({e}); pcapng can be converted with \
                 `editcap -F pcap IN OUT`"
            ),
            PcapError::LinkType(p, l) => write!(
                f,
                "{p}: not RoCEv2: link type {l} (rocesec reads Ethernet captures; native \
                 InfiniBand captures with an LRH are not RoCEv2)"
            ),
        }
    }
}

impl std::error::Error for PcapError {}

/// Read every frame of a classic pcap file with Ethernet link type.
///
/// # Errors
/// [`PcapError`] for I/O errors, a non-pcap or corrupt file, or a non-Ethernet link type.
pub fn read(path: &Path) -> Result<Vec<Record>, PcapError> {
    let name = path.display().to_string();
    let f = File::open(path).map_err(|e| PcapError::Io(name.clone(), e))?;
    let mut r = PcapReader::new(BufReader::new(f))
        .map_err(|e| PcapError::Format(name.clone(), e.to_string()))?;
    let dl = r.header().datalink;
    if dl != DataLink::ETHERNET {
        return Err(PcapError::LinkType(name, format!("{dl:?}")));
    }
    let mut out = Vec::new();
    while let Some(p) = r.next_packet() {
        let p = p.map_err(|e| PcapError::Format(name.clone(), e.to_string()))?;
        out.push(Record {
            ts: p.timestamp,
            data: p.data.into_owned(),
            orig_len: p.orig_len,
        });
    }
    Ok(out)
}

/// Write frames to a classic pcap file (Ethernet link type, microsecond timestamps).
///
/// # Errors
/// [`PcapError::Io`] when the file cannot be written.
pub fn write(path: &Path, recs: &[Record]) -> Result<(), PcapError> {
    let name = path.display().to_string();
    let f = File::create(path).map_err(|e| PcapError::Io(name.clone(), e))?;
    let hdr = PcapHeader {
        datalink: DataLink::ETHERNET,
        snaplen: 262_144,
        ..Default::default()
    };
    let io =
        |e: pcap_file::PcapError| PcapError::Io(name.clone(), std::io::Error::other(e.to_string()));
    let mut w = PcapWriter::with_header(BufWriter::new(f), hdr).map_err(io)?;
    for r in recs {
        let len = u32::try_from(r.data.len()).unwrap_or(u32::MAX);
        let orig = if r.orig_len as usize == r.data.len() {
            len
        } else {
            r.orig_len.max(len)
        };
        w.write_packet(&PcapPacket::new(r.ts, orig, &r.data))
            .map_err(io)?;
    }
    Ok(())
}
