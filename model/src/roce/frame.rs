//! Ethernet / 802.1Q / IPv4 / IPv6 / UDP framing of RoCEv2 (IBTA Vol 1 Annex A17.4) and the
//! byte layout of one RoCEv2 packet. L2–L4 header parsing uses `etherparse`; the IB transport
//! layer (BTH and the extended headers) is ours.

use super::headers::{Aeth, AtomicEth, Bth, Deth, Reth, BTH_LEN};
use super::opcode::{self, eth, OpcodeInfo};
use crate::sechdr::{SecHdr, SecHdrError, ICV_LEN, SECHDR_LEN, TVER_PROTECTED};
use etherparse::{Ethernet2HeaderSlice, Ipv4HeaderSlice, Ipv6HeaderSlice, SingleVlanHeaderSlice};
use std::fmt;

/// UDP destination port of RoCEv2 (Annex A17.2.2).
pub const ROCE_PORT: u16 = 4791;
/// Length of the ICRC in bytes.
pub const ICRC_LEN: usize = 4;

const ETHERTYPE_IPV4: u16 = 0x0800;
const ETHERTYPE_IPV6: u16 = 0x86DD;
const ETHERTYPE_VLAN: u16 = 0x8100;
const ETHERTYPE_QINQ: u16 = 0x88A8;
const ETHERTYPE_IB: u16 = 0x8915;
const UDP_LEN: usize = 8;

/// IP version of a RoCEv2 packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IpVersion {
    /// IPv4 (RFC 791).
    V4,
    /// IPv6 (RFC 8200), no extension headers.
    V6,
}

/// Why a frame is not a RoCEv2 packet. Not an error: such frames pass through a bump-in-the-wire
/// engine untouched (and are counted).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NotRoce {
    /// EtherType is neither IPv4 nor IPv6 (ARP, LLDP, ...).
    NotIp(u16),
    /// RoCEv1 (EtherType 0x8915, a GRH-based IB packet), which rocesec does not handle.
    RoceV1,
    /// IP, but not UDP (IPv6: nor UDP behind its first extension header, see
    /// [`ParseError::Ipv6ExtHeader`]).
    NotUdp(u8),
    /// UDP, but not to port 4791.
    OtherPort(u16),
}

/// A frame to UDP port 4791 that cannot be a valid RoCEv2 packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// Shorter than the headers it announces; `what` names the header.
    Truncated(&'static str),
    /// IPv4 fragment (RoCEv2 is never fragmented: DF set, offset 0).
    Fragmented,
    /// IP or UDP length fields disagree with each other or with the frame.
    BadLength(&'static str),
    /// An IP header etherparse rejects (bad version, IHL < 5, ...).
    BadIpHeader(String),
    /// The BTH opcode is reserved; the extended headers cannot be located.
    ReservedOpcode(u8),
    /// BTH TVer is neither 0 (plain) nor 1 (rocesec protected).
    UnknownTVer(u8),
    /// The SecHdr of a protected packet is invalid.
    SecHdr(SecHdrError),
    /// Pad count larger than the payload.
    BadPad,
    /// IPv6 with an extension header (its type, the IPv6 Next Header, is the field) whose own
    /// Next Header (its first byte, RFC 8200 §4) is UDP or another extension header: a RoCEv2
    /// packet may sit behind it, where the parse stage does not look. Rejected, as IPv4 UDP
    /// fragments are, instead of being forwarded as not RoCEv2 (which let a forged plain packet
    /// past an AEAD QP). An extension header followed by anything else (ICMPv6 after a
    /// Hop-by-Hop router alert, TCP, ...) is [`NotRoce::NotUdp`].
    Ipv6ExtHeader(u8),
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Truncated(w) => write!(f, "truncated {w}"),
            ParseError::Fragmented => f.write_str("fragmented IPv4 packet"),
            ParseError::BadLength(w) => write!(f, "inconsistent {w} length"),
            ParseError::BadIpHeader(e) => write!(f, "bad IP header: {e}"),
            ParseError::ReservedOpcode(o) => write!(f, "reserved BTH opcode {o:#04x}"),
            ParseError::UnknownTVer(t) => write!(f, "BTH TVer {t} is neither 0 nor 1"),
            ParseError::SecHdr(e) => write!(f, "{e}"),
            ParseError::BadPad => f.write_str("pad count exceeds payload"),
            ParseError::Ipv6ExtHeader(t) => {
                write!(f, "UDP or a second header behind IPv6 extension header {t}")
            }
        }
    }
}

impl std::error::Error for ParseError {}

/// Result of classifying an Ethernet frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Frame {
    /// Not RoCEv2: pass through.
    NotRoce(NotRoce),
    /// A RoCEv2 packet and its layout.
    Roce(Packet),
}

/// Byte layout of one RoCEv2 packet inside its Ethernet frame. All offsets are from the start of
/// the frame; ranges are half-open.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packet {
    /// IP version.
    pub ip: IpVersion,
    /// Number of 802.1Q/802.1ad tags (0..=2).
    pub vlans: u8,
    /// Offset of the IP header (= length of the L2 header).
    pub ip_off: usize,
    /// IP header length in bytes (IPv4 with options: IHL·4; IPv6: 40).
    pub ip_hdr_len: usize,
    /// Offset of the UDP header.
    pub udp_off: usize,
    /// Offset of the BTH (`udp_off + 8`).
    pub bth_off: usize,
    /// End of the IP packet; bytes after it are L2 trailer (Ethernet padding) and are kept.
    pub end: usize,
    /// The decoded BTH.
    pub bth: Bth,
    /// Opcode facts (`None` only for reserved opcodes, which parse as errors).
    pub op: OpcodeInfo,
    /// SecHdr, when BTH TVer = 1.
    pub sec: Option<SecHdr>,
    /// Offset of the first extended header (after BTH and SecHdr).
    pub eth_off: usize,
    /// Offset of the payload (after the extended headers).
    pub payload_off: usize,
    /// End of payload including pad (start of the ICV when protected, else of the ICRC).
    pub payload_end: usize,
}

impl Packet {
    /// Offset of the ICRC (last 4 bytes of the IP packet).
    pub fn icrc_off(&self) -> usize {
        self.end - ICRC_LEN
    }

    /// Offset of the ICV of a protected packet.
    pub fn icv_off(&self) -> Option<usize> {
        self.sec.map(|_| self.payload_end)
    }

    /// Payload length in bytes without the pad.
    pub fn payload_len(&self) -> usize {
        (self.payload_end - self.payload_off).saturating_sub(self.bth.pad as usize)
    }

    fn ext<'a>(&self, frame: &'a [u8], flag: u16) -> Option<&'a [u8]> {
        let off = self.eth_off + eth::offset(self.op.eth, flag)?;
        frame.get(off..)
    }

    /// The RETH, if the opcode carries one.
    pub fn reth(&self, frame: &[u8]) -> Option<Reth> {
        Reth::parse(self.ext(frame, eth::RETH)?)
    }
    /// The AtomicETH, if the opcode carries one.
    pub fn atomic_eth(&self, frame: &[u8]) -> Option<AtomicEth> {
        AtomicEth::parse(self.ext(frame, eth::ATOMIC_ETH)?)
    }
    /// The AETH, if the opcode carries one.
    pub fn aeth(&self, frame: &[u8]) -> Option<Aeth> {
        Aeth::parse(self.ext(frame, eth::AETH)?)
    }
    /// The DETH, if the opcode carries one.
    pub fn deth(&self, frame: &[u8]) -> Option<Deth> {
        Deth::parse(self.ext(frame, eth::DETH)?)
    }
    /// ImmDt, if the opcode carries it.
    pub fn immdt(&self, frame: &[u8]) -> Option<u32> {
        let b = self.ext(frame, eth::IMMDT)?.get(..4)?;
        Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
    /// IETH R_Key, if the opcode carries it.
    pub fn ieth(&self, frame: &[u8]) -> Option<u32> {
        let b = self.ext(frame, eth::IETH)?.get(..4)?;
        Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Destination address as a 16-byte GID (IPv4 as the IPv4-mapped IPv6 address).
    pub fn dest_gid(&self, frame: &[u8]) -> [u8; 16] {
        let mut g = [0u8; 16];
        match self.ip {
            IpVersion::V4 => {
                g[10] = 0xFF;
                g[11] = 0xFF;
                g[12..].copy_from_slice(&frame[self.ip_off + 16..self.ip_off + 20]);
            }
            IpVersion::V6 => g.copy_from_slice(&frame[self.ip_off + 24..self.ip_off + 40]),
        }
        g
    }

    /// Source address as a 16-byte GID.
    pub fn src_gid(&self, frame: &[u8]) -> [u8; 16] {
        let mut g = [0u8; 16];
        match self.ip {
            IpVersion::V4 => {
                g[10] = 0xFF;
                g[11] = 0xFF;
                g[12..].copy_from_slice(&frame[self.ip_off + 12..self.ip_off + 16]);
            }
            IpVersion::V6 => g.copy_from_slice(&frame[self.ip_off + 8..self.ip_off + 24]),
        }
        g
    }
}

/// IPv6 extension header types whose first byte is the Next Header (RFC 8200 §4: Hop-by-Hop 0,
/// Routing 43, Fragment 44, Destination Options 60; AH 51, RFC 4302; Mobility 135, RFC 6275;
/// HIP 139, RFC 7401; Shim6 140, RFC 5533; experimental 253 and 254, RFC 3692). ESP (50) and
/// IPComp (108) encrypt or compress what follows: not RoCEv2 to this engine.
pub fn is_ipv6_ext(nh: u8) -> bool {
    matches!(nh, 0 | 43 | 44 | 51 | 60 | 135 | 139 | 140 | 253 | 254)
}

/// Classify and lay out an Ethernet II frame (without FCS).
///
/// # Errors
/// [`ParseError`] when the frame is addressed to UDP port 4791 but is not a well-formed RoCEv2
/// packet, or may hide one where this parser does not look (an IPv4 UDP fragment, UDP behind an
/// IPv6 extension header: [`ParseError::Fragmented`], [`ParseError::Ipv6ExtHeader`]). Frames
/// that are not RoCEv2 at all return `Ok(Frame::NotRoce(..))`. Never panics.
pub fn parse(frame: &[u8]) -> Result<Frame, ParseError> {
    let eth =
        Ethernet2HeaderSlice::from_slice(frame).map_err(|_| ParseError::Truncated("Ethernet"))?;
    let mut ethertype = eth.ether_type().0;
    let mut off = eth.slice().len();
    let mut vlans = 0u8;
    while (ethertype == ETHERTYPE_VLAN || ethertype == ETHERTYPE_QINQ) && vlans < 2 {
        let v = SingleVlanHeaderSlice::from_slice(&frame[off..])
            .map_err(|_| ParseError::Truncated("802.1Q tag"))?;
        ethertype = v.ether_type().0;
        off += v.slice().len();
        vlans += 1;
    }
    let ip_off = off;
    let (ip, ip_hdr_len, ip_end) = match ethertype {
        ETHERTYPE_IPV4 => {
            let h = match Ipv4HeaderSlice::from_slice(&frame[off..]) {
                Ok(h) => h,
                Err(e) => {
                    // Not even a full fixed header: decide RoCE-ness is impossible.
                    return Err(ParseError::BadIpHeader(e.to_string()));
                }
            };
            if h.protocol().0 != 17 {
                return Ok(Frame::NotRoce(NotRoce::NotUdp(h.protocol().0)));
            }
            if h.more_fragments() || h.fragments_offset().value() != 0 {
                return Err(ParseError::Fragmented);
            }
            let hl = h.slice().len();
            let total = h.total_len() as usize;
            if total < hl || ip_off + total > frame.len() {
                return Err(ParseError::BadLength("IPv4 total"));
            }
            (IpVersion::V4, hl, ip_off + total)
        }
        ETHERTYPE_IPV6 => {
            let h = Ipv6HeaderSlice::from_slice(&frame[off..])
                .map_err(|e| ParseError::BadIpHeader(e.to_string()))?;
            let nh = h.next_header().0;
            if nh != 17 {
                if is_ipv6_ext(nh) {
                    let next = *frame
                        .get(ip_off + 40)
                        .ok_or(ParseError::Truncated("IPv6 extension header"))?;
                    if next == 17 || is_ipv6_ext(next) {
                        return Err(ParseError::Ipv6ExtHeader(nh));
                    }
                }
                return Ok(Frame::NotRoce(NotRoce::NotUdp(nh)));
            }
            let total = 40 + h.payload_length() as usize;
            if ip_off + total > frame.len() {
                return Err(ParseError::BadLength("IPv6 payload"));
            }
            (IpVersion::V6, 40, ip_off + total)
        }
        ETHERTYPE_IB => return Ok(Frame::NotRoce(NotRoce::RoceV1)),
        other => return Ok(Frame::NotRoce(NotRoce::NotIp(other))),
    };
    let udp_off = ip_off + ip_hdr_len;
    let udp = frame
        .get(udp_off..udp_off + UDP_LEN)
        .ok_or(ParseError::Truncated("UDP"))?;
    let dport = u16::from_be_bytes([udp[2], udp[3]]);
    if dport != ROCE_PORT {
        return Ok(Frame::NotRoce(NotRoce::OtherPort(dport)));
    }
    let udp_len = u16::from_be_bytes([udp[4], udp[5]]) as usize;
    if udp_off + udp_len != ip_end {
        return Err(ParseError::BadLength("UDP"));
    }
    let bth_off = udp_off + UDP_LEN;
    let bth = Bth::parse(frame.get(bth_off..ip_end).unwrap_or(&[]))
        .ok_or(ParseError::Truncated("BTH"))?;
    let op = opcode::info(bth.opcode).ok_or(ParseError::ReservedOpcode(bth.opcode))?;
    let mut eth_off = bth_off + BTH_LEN;
    let sec = match bth.tver {
        0 => None,
        TVER_PROTECTED => {
            let s =
                SecHdr::parse(frame.get(eth_off..ip_end).unwrap_or(&[])).map_err(|e| match e {
                    SecHdrError::Truncated => ParseError::Truncated("SecHdr"),
                    e => ParseError::SecHdr(e),
                })?;
            eth_off += SECHDR_LEN;
            Some(s)
        }
        t => return Err(ParseError::UnknownTVer(t)),
    };
    let payload_off = eth_off + eth::len(op.eth);
    let trailer = ICRC_LEN + if sec.is_some() { ICV_LEN } else { 0 };
    if payload_off + trailer > ip_end {
        return Err(ParseError::Truncated("extended transport headers"));
    }
    let payload_end = ip_end - trailer;
    if (bth.pad as usize) > payload_end - payload_off {
        return Err(ParseError::BadPad);
    }
    Ok(Frame::Roce(Packet {
        ip,
        vlans,
        ip_off,
        ip_hdr_len,
        udp_off,
        bth_off,
        end: ip_end,
        bth,
        op,
        sec,
        eth_off,
        payload_off,
        payload_end,
    }))
}
