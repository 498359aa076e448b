//! Build plain RoCEv2 frames (Ethernet II / IPv4 or IPv6 / UDP 4791 / BTH / extended headers /
//! payload / pad / ICRC). Used by tests, fuzzing seeds and the co-simulation's synthetic traffic;
//! real traffic comes from the rxe captures in `testbench/captures/`.

use super::frame::{parse, Frame, ROCE_PORT};
use super::headers::{Bth, BTH_LEN};
use super::icrc;
use super::opcode;
use std::net::IpAddr;

/// A plain RoCEv2 packet to build.
#[derive(Clone, Debug)]
pub struct Builder {
    /// Source address (IPv4 or IPv6; both addresses must be the same version).
    pub src: IpAddr,
    /// Destination address.
    pub dst: IpAddr,
    /// UDP source port (RoCEv2 uses it for ECMP entropy).
    pub sport: u16,
    /// 802.1Q VLAN ID, if tagged.
    pub vlan: Option<u16>,
    /// The BTH (pad and TVer are set by [`Builder::build`]).
    pub bth: Bth,
    /// Extended headers in wire order, already encoded; their total length must match the opcode.
    pub ext: Vec<u8>,
    /// Payload without pad.
    pub payload: Vec<u8>,
}

impl Builder {
    /// A packet from 10.0.0.2 to 10.0.0.1 with opcode `opcode`, QPN 0x11, PSN `psn`, zeroed
    /// extended headers of the right length and `payload`.
    pub fn new(opcode: u8, psn: u32, payload: &[u8]) -> Self {
        let eth_len = opcode::info(opcode).map_or(0, |i| opcode::eth::len(i.eth));
        Self {
            src: IpAddr::from([10, 0, 0, 2]),
            dst: IpAddr::from([10, 0, 0, 1]),
            sport: 0xC000,
            vlan: None,
            bth: Bth {
                opcode,
                se: false,
                migreq: true,
                pad: 0,
                tver: 0,
                pkey: 0xFFFF,
                byte4: 0,
                dest_qp: 0x11,
                ack_req: false,
                resv7: 0,
                psn,
            },
            ext: vec![0; eth_len],
            payload: payload.to_vec(),
        }
    }

    /// Set the RETH (VA, rkey, DMA length) at its place among the extended headers.
    pub fn reth(mut self, va: u64, rkey: u32, dma_len: u32) -> Self {
        let info = opcode::info(self.bth.opcode);
        if let Some(off) = info.and_then(|i| opcode::eth::offset(i.eth, opcode::eth::RETH)) {
            if let Some(s) = self.ext.get_mut(off..off + 16) {
                s[..8].copy_from_slice(&va.to_be_bytes());
                s[8..12].copy_from_slice(&rkey.to_be_bytes());
                s[12..].copy_from_slice(&dma_len.to_be_bytes());
            }
        }
        self
    }

    /// Encode the frame with pad and a valid ICRC. The IPv4 header gets DF, TTL 64 and a valid
    /// checksum; the UDP checksum is 0 as rxe sends it.
    pub fn build(&self) -> Vec<u8> {
        let pad = (4 - self.payload.len() % 4) % 4;
        let mut bth = self.bth;
        bth.pad = pad as u8;
        let ib_len = BTH_LEN + self.ext.len() + self.payload.len() + pad + 4;
        let udp_len = 8 + ib_len;
        let mut f = vec![0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2];
        if let Some(v) = self.vlan {
            f.extend_from_slice(&[0x81, 0x00]);
            f.extend_from_slice(&(v & 0x0FFF).to_be_bytes());
        }
        match (self.src, self.dst) {
            (IpAddr::V6(s), IpAddr::V6(d)) => {
                f.extend_from_slice(&[0x86, 0xDD, 0x60, 0, 0, 0]);
                f.extend_from_slice(&(udp_len as u16).to_be_bytes());
                f.extend_from_slice(&[17, 64]);
                f.extend_from_slice(&s.octets());
                f.extend_from_slice(&d.octets());
            }
            (s, d) => {
                let (s, d) = match (s, d) {
                    (IpAddr::V4(s), IpAddr::V4(d)) => (s.octets(), d.octets()),
                    _ => ([10, 0, 0, 2], [10, 0, 0, 1]),
                };
                f.extend_from_slice(&[0x08, 0x00, 0x45, 0x00]);
                f.extend_from_slice(&((20 + udp_len) as u16).to_be_bytes());
                f.extend_from_slice(&[0x12, 0x34, 0x40, 0x00, 64, 17, 0, 0]);
                f.extend_from_slice(&s);
                f.extend_from_slice(&d);
                let ip = f.len() - 20;
                let c = etherparse::Ipv4HeaderSlice::from_slice(&f[ip..])
                    .map(|h| h.to_header().calc_header_checksum())
                    .unwrap_or(0);
                f[ip + 10..ip + 12].copy_from_slice(&c.to_be_bytes());
            }
        }
        f.extend_from_slice(&self.sport.to_be_bytes());
        f.extend_from_slice(&ROCE_PORT.to_be_bytes());
        f.extend_from_slice(&(udp_len as u16).to_be_bytes());
        f.extend_from_slice(&[0, 0]);
        f.extend_from_slice(&bth.encode());
        f.extend_from_slice(&self.ext);
        f.extend_from_slice(&self.payload);
        f.extend(std::iter::repeat_n(0u8, pad + 4));
        if let Ok(Frame::Roce(p)) = parse(&f) {
            icrc::fix(&mut f, &p);
        }
        f
    }
}
