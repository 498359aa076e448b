//! Invariant CRC of RoCEv2 (IBTA Vol 1 Annex A17.8) and the invariant header view that the
//! rocesec AAD shares with it.
//!
//! The ICRC is CRC-32 (IEEE 802.3, as zlib `crc32`) over: 8 bytes of 0xFF standing for the
//! masked LRH; the IP header with its variant fields set to all ones (IPv4: TOS, TTL, header
//! checksum; IPv6: traffic class, flow label, hop limit); the UDP header with its checksum set
//! to all ones; the BTH with byte 4 (FECN/BECN/reserved) set to all ones; then every following
//! byte up to the ICRC. It is stored little-endian in the last 4 bytes of the packet.

use super::frame::{IpVersion, Packet};
use super::headers::BTH_LEN;

/// The masked IP, UDP and BTH headers: the invariant prefix covered by both the ICRC and the
/// rocesec AAD. Length: IP header + 8 + 12 bytes.
pub fn invariant_prefix(frame: &[u8], p: &Packet) -> Vec<u8> {
    let mut v = frame[p.ip_off..p.bth_off + BTH_LEN].to_vec();
    match p.ip {
        IpVersion::V4 => {
            v[1] = 0xFF; // TOS (DSCP, ECN)
            v[8] = 0xFF; // TTL
            v[10] = 0xFF; // header checksum
            v[11] = 0xFF;
        }
        IpVersion::V6 => {
            v[0] |= 0x0F; // traffic class (high nibble)
            v[1] = 0xFF; // traffic class (low nibble), flow label
            v[2] = 0xFF;
            v[3] = 0xFF;
            v[7] = 0xFF; // hop limit
        }
    }
    let u = p.udp_off - p.ip_off;
    v[u + 6] = 0xFF; // UDP checksum
    v[u + 7] = 0xFF;
    let b = p.bth_off - p.ip_off;
    v[b + 4] = 0xFF; // BTH resv8a (FECN, BECN)
    v
}

/// Compute the ICRC of the packet laid out by `p`.
pub fn compute(frame: &[u8], p: &Packet) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(&[0xFF; 8]);
    h.update(&invariant_prefix(frame, p));
    h.update(&frame[p.bth_off + BTH_LEN..p.icrc_off()]);
    h.finalize()
}

/// The ICRC stored in the packet.
pub fn stored(frame: &[u8], p: &Packet) -> u32 {
    let o = p.icrc_off();
    u32::from_le_bytes([frame[o], frame[o + 1], frame[o + 2], frame[o + 3]])
}

/// True when the stored ICRC matches the computed one.
pub fn check(frame: &[u8], p: &Packet) -> bool {
    compute(frame, p) == stored(frame, p)
}

/// Recompute and store the ICRC in place.
pub fn fix(frame: &mut [u8], p: &Packet) {
    let c = compute(frame, p).to_le_bytes();
    let o = p.icrc_off();
    frame[o..o + 4].copy_from_slice(&c);
}
