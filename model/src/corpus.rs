//! The committed rxe corpus (`testbench/captures/*.pcap`, 35 captures of Soft-RoCE traffic,
//! see `testbench/captures/manifest.json`), embedded at build time so the `rocesec` binary's
//! default jobs (`rocesec cosim`, `rocesec roundtrip` with no PCAP) run from any directory.

include!(concat!(env!("OUT_DIR"), "/corpus.rs"));

use crate::pcapio::{self, PcapError, Record};

/// The embedded captures: (file name, pcap bytes), sorted by name.
pub fn embedded() -> &'static [(&'static str, &'static [u8])] {
    EMBEDDED
}

/// The embedded captures, parsed: (file stem, frames), in name order.
///
/// # Errors
/// [`PcapError`] if an embedded capture does not parse (a build from a damaged tree).
pub fn frames() -> Result<Vec<(String, Vec<Record>)>, PcapError> {
    EMBEDDED
        .iter()
        .map(|(name, bytes)| {
            let stem = name.strip_suffix(".pcap").unwrap_or(name).to_string();
            pcapio::read_bytes(name, bytes).map(|r| (stem, r))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_corpus_is_the_committed_one() {
        let files = crate::cli::default_corpus();
        assert!(
            files.len() >= 30,
            "{} captures in testbench/captures",
            files.len()
        );
        assert_eq!(EMBEDDED.len(), files.len());
        let parsed = frames().expect("embedded captures parse");
        let mut packets = 0;
        for ((name, bytes), p) in EMBEDDED.iter().zip(&files) {
            assert_eq!(Some(*name), p.file_name().and_then(|n| n.to_str()));
            assert_eq!(*bytes, std::fs::read(p).expect("read").as_slice(), "{name}");
        }
        for (_, recs) in &parsed {
            packets += recs.len();
        }
        assert!(packets > 1000, "{packets} frames");
    }
}
