//! Stage `emit`: insert or strip the SecHdr and ICV, fix the IP and UDP lengths and the IPv4
//! header checksum, and regenerate the ICRC (IBTA Vol 1 Annex A17.8). The UDP checksum field is
//! carried unchanged: RoCEv2 senders send 0 (rxe does), a cut-through engine cannot recompute a
//! non-zero one (it precedes the payload), and the ICRC and the ICV cover the packet; the round
//! trip restores the original, valid checksum.

use crate::roce::{self, icrc, Frame, IpVersion, Packet, BTH_LEN, ICRC_LEN};
use crate::sechdr::{SecHdr, ICV_LEN, OVERHEAD, SECHDR_LEN, TVER_PROTECTED};
use etherparse::Ipv4HeaderSlice;

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
    icrc::fix(&mut out, &q);
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

/// The invariant header AAD of a protected packet: masked IP/UDP/BTH, SecHdr, extended headers.
pub fn header_aad(frame: &[u8], p: &Packet) -> Vec<u8> {
    let mut a = icrc::invariant_prefix(frame, p);
    a.extend_from_slice(&frame[p.bth_off + BTH_LEN..p.payload_off]);
    debug_assert_eq!(p.eth_off, p.bth_off + BTH_LEN + SECHDR_LEN);
    a
}
