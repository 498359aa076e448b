//! Stage `emit`: insert or strip the SecHdr and ICV, fix the IP and UDP lengths, the IPv4 header
//! checksum and a non-zero UDP checksum, and regenerate the ICRC (IBTA Vol 1 Annex A17.8).

use crate::roce::{self, icrc, Frame, IpVersion, Packet, BTH_LEN, ICRC_LEN};
use crate::sechdr::{SecHdr, ICV_LEN, OVERHEAD, SECHDR_LEN, TVER_PROTECTED};
use etherparse::{Ipv4HeaderSlice, UdpHeader};

/// Build the protected frame from a plain one: BTH TVer = 1, SecHdr inserted after the BTH,
/// `payload` (already transformed) in place of the plain payload, a zero ICV placeholder and a
/// zero ICRC placeholder; lengths and checksums fixed. Returns `None` if the result would exceed
/// 65535 bytes of IP packet.
pub fn insert(frame: &[u8], p: &Packet, sec: &SecHdr, payload: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(frame.len() + OVERHEAD);
    out.extend_from_slice(&frame[..p.bth_off + BTH_LEN]);
    out[p.bth_off + 1] = (out[p.bth_off + 1] & 0xF0) | TVER_PROTECTED;
    out.extend_from_slice(&sec.encode());
    out.extend_from_slice(&frame[p.eth_off..p.payload_off]);
    out.extend_from_slice(payload);
    out.extend_from_slice(&[0u8; ICV_LEN + ICRC_LEN]);
    out.extend_from_slice(&frame[p.end..]);
    fix_lengths(&mut out, p, OVERHEAD as i32)?;
    Some(out)
}

/// Build the plain frame from a protected one: SecHdr and ICV removed, TVer = 0, `payload`
/// (already verified and decrypted) in place; lengths, checksums and ICRC fixed.
pub fn strip(frame: &[u8], p: &Packet, payload: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(frame.len());
    out.extend_from_slice(&frame[..p.bth_off + BTH_LEN]);
    out[p.bth_off + 1] &= 0xF0;
    out.extend_from_slice(&frame[p.eth_off..p.payload_off]);
    out.extend_from_slice(payload);
    out.extend_from_slice(&[0u8; ICRC_LEN]);
    out.extend_from_slice(&frame[p.end..]);
    fix_lengths(&mut out, p, -(OVERHEAD as i32))?;
    let Ok(Frame::Roce(q)) = roce::parse(&out) else {
        return None;
    };
    // The ICRC masks the UDP checksum, the UDP checksum covers the ICRC: ICRC first.
    icrc::fix(&mut out, &q);
    fix_udp_checksum(&mut out, &q);
    Some(out)
}

fn add(v: u16, d: i32) -> Option<u16> {
    u16::try_from(v as i32 + d).ok()
}

/// Adjust IP and UDP length fields by `delta` bytes and recompute the IPv4 header checksum.
fn fix_lengths(out: &mut [u8], p: &Packet, delta: i32) -> Option<()> {
    let ip = p.ip_off;
    match p.ip {
        IpVersion::V4 => {
            let t = add(u16::from_be_bytes([out[ip + 2], out[ip + 3]]), delta)?;
            out[ip + 2..ip + 4].copy_from_slice(&t.to_be_bytes());
            let h = Ipv4HeaderSlice::from_slice(&out[ip..]).ok()?.to_header();
            let c = h.calc_header_checksum();
            out[ip + 10..ip + 12].copy_from_slice(&c.to_be_bytes());
        }
        IpVersion::V6 => {
            let t = add(u16::from_be_bytes([out[ip + 4], out[ip + 5]]), delta)?;
            out[ip + 4..ip + 6].copy_from_slice(&t.to_be_bytes());
        }
    }
    let u = p.udp_off;
    let l = add(u16::from_be_bytes([out[u + 4], out[u + 5]]), delta)?;
    out[u + 4..u + 6].copy_from_slice(&l.to_be_bytes());
    Some(())
}

/// Recompute the UDP checksum when the original carried one (RoCEv2 senders normally send 0,
/// Annex A17.4.3; a non-zero checksum is kept valid).
pub fn fix_udp_checksum(out: &mut [u8], p: &Packet) {
    let u = p.udp_off;
    if out[u + 6] == 0 && out[u + 7] == 0 {
        return;
    }
    let hdr = UdpHeader {
        source_port: u16::from_be_bytes([out[u], out[u + 1]]),
        destination_port: u16::from_be_bytes([out[u + 2], out[u + 3]]),
        length: u16::from_be_bytes([out[u + 4], out[u + 5]]),
        checksum: 0,
    };
    let payload = &out[u + 8..p.end];
    let ip = p.ip_off;
    let c = match p.ip {
        IpVersion::V4 => {
            let s: [u8; 4] = out[ip + 12..ip + 16].try_into().unwrap_or_default();
            let d: [u8; 4] = out[ip + 16..ip + 20].try_into().unwrap_or_default();
            hdr.calc_checksum_ipv4_raw(s, d, payload)
        }
        IpVersion::V6 => {
            let s: [u8; 16] = out[ip + 8..ip + 24].try_into().unwrap_or_default();
            let d: [u8; 16] = out[ip + 24..ip + 40].try_into().unwrap_or_default();
            hdr.calc_checksum_ipv6_raw(s, d, payload)
        }
    };
    if let Ok(c) = c {
        out[u + 6..u + 8].copy_from_slice(&c.to_be_bytes());
    }
}

/// The invariant header AAD of a protected packet: masked IP/UDP/BTH, SecHdr, extended headers.
pub fn header_aad(frame: &[u8], p: &Packet) -> Vec<u8> {
    let mut a = icrc::invariant_prefix(frame, p);
    a.extend_from_slice(&frame[p.bth_off + BTH_LEN..p.payload_off]);
    debug_assert_eq!(p.eth_off, p.bth_off + BTH_LEN + SECHDR_LEN);
    a
}
