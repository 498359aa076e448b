//! Base and extended transport headers of InfiniBand as carried by RoCEv2 (IBTA Vol 1 §9.2–9.3).
//! All fields are big-endian on the wire.

/// Length of the Base Transport Header in bytes.
pub const BTH_LEN: usize = 12;

/// Base Transport Header (IBTA Vol 1 §9.2, 12 bytes).
///
/// ```text
///  byte 0      | 1                     | 2..3   | 4        | 5..7   | 8        | 9..11
///  OpCode      | SE M PadCnt(2) TVer(4)| P_Key  | F B resv | DestQP | A resv7  | PSN
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bth {
    /// Operation code (service in bits 7:5, operation in bits 4:0).
    pub opcode: u8,
    /// Solicited event.
    pub se: bool,
    /// MigReq: migration state of the sender's QP.
    pub migreq: bool,
    /// Pad count, 0..=3 bytes of pad before the ICRC.
    pub pad: u8,
    /// Transport header version. 0 for IBTA; rocesec marks protected packets with 1.
    pub tver: u8,
    /// Partition key.
    pub pkey: u16,
    /// Byte 4: FECN, BECN and reserved bits (masked by the ICRC, Annex A17.8).
    pub byte4: u8,
    /// Destination QP number, 24 bits.
    pub dest_qp: u32,
    /// AckReq.
    pub ack_req: bool,
    /// Reserved 7 bits after AckReq.
    pub resv7: u8,
    /// Packet sequence number, 24 bits.
    pub psn: u32,
}

impl Bth {
    /// Parse the first 12 bytes of `b`. `None` if `b` is shorter than [`BTH_LEN`].
    pub fn parse(b: &[u8]) -> Option<Self> {
        let b: &[u8; BTH_LEN] = b.get(..BTH_LEN)?.try_into().ok()?;
        Some(Self {
            opcode: b[0],
            se: b[1] & 0x80 != 0,
            migreq: b[1] & 0x40 != 0,
            pad: (b[1] >> 4) & 0x3,
            tver: b[1] & 0x0F,
            pkey: u16::from_be_bytes([b[2], b[3]]),
            byte4: b[4],
            dest_qp: u32::from_be_bytes([0, b[5], b[6], b[7]]),
            ack_req: b[8] & 0x80 != 0,
            resv7: b[8] & 0x7F,
            psn: u32::from_be_bytes([0, b[9], b[10], b[11]]),
        })
    }

    /// Encode into 12 bytes. Fields wider than their wire width are truncated.
    pub fn encode(&self) -> [u8; BTH_LEN] {
        let q = self.dest_qp.to_be_bytes();
        let p = self.psn.to_be_bytes();
        [
            self.opcode,
            (u8::from(self.se) << 7)
                | (u8::from(self.migreq) << 6)
                | ((self.pad & 3) << 4)
                | (self.tver & 0x0F),
            (self.pkey >> 8) as u8,
            self.pkey as u8,
            self.byte4,
            q[1],
            q[2],
            q[3],
            (u8::from(self.ack_req) << 7) | (self.resv7 & 0x7F),
            p[1],
            p[2],
            p[3],
        ]
    }
}

/// RDMA Extended Transport Header (§9.3.4, 16 bytes): VA(8) R_Key(4) DMA length(4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reth {
    /// Virtual address of the first byte.
    pub va: u64,
    /// Remote key of the memory region.
    pub rkey: u32,
    /// DMA length in bytes.
    pub dma_len: u32,
}

impl Reth {
    /// Parse 16 bytes. `None` if too short.
    pub fn parse(b: &[u8]) -> Option<Self> {
        Some(Self {
            va: u64::from_be_bytes(b.get(0..8)?.try_into().ok()?),
            rkey: u32::from_be_bytes(b.get(8..12)?.try_into().ok()?),
            dma_len: u32::from_be_bytes(b.get(12..16)?.try_into().ok()?),
        })
    }
}

/// Atomic Extended Transport Header (§9.3.5, 28 bytes): VA(8) R_Key(4) Swap/Add(8) Compare(8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AtomicEth {
    /// Virtual address of the 8-byte operand.
    pub va: u64,
    /// Remote key.
    pub rkey: u32,
    /// Swap (CmpSwap) or add (FetchAdd) data.
    pub swap_add: u64,
    /// Compare data.
    pub compare: u64,
}

impl AtomicEth {
    /// Parse 28 bytes. `None` if too short.
    pub fn parse(b: &[u8]) -> Option<Self> {
        Some(Self {
            va: u64::from_be_bytes(b.get(0..8)?.try_into().ok()?),
            rkey: u32::from_be_bytes(b.get(8..12)?.try_into().ok()?),
            swap_add: u64::from_be_bytes(b.get(12..20)?.try_into().ok()?),
            compare: u64::from_be_bytes(b.get(20..28)?.try_into().ok()?),
        })
    }
}

/// ACK Extended Transport Header (§9.3.6, 4 bytes): Syndrome(1) MSN(3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Aeth {
    /// Syndrome: ACK (0b00x), RNR NAK (0b01x) or NAK (0b11x) with credit/timer/code.
    pub syndrome: u8,
    /// Message sequence number, 24 bits.
    pub msn: u32,
}

impl Aeth {
    /// Parse 4 bytes. `None` if too short.
    pub fn parse(b: &[u8]) -> Option<Self> {
        let b = b.get(0..4)?;
        Some(Self {
            syndrome: b[0],
            msn: u32::from_be_bytes([0, b[1], b[2], b[3]]),
        })
    }

    /// True for a NAK (syndrome bits 6:5 = 0b11, §9.7.5.1).
    pub fn is_nak(&self) -> bool {
        self.syndrome >> 5 == 0b11
    }
}

/// Datagram Extended Transport Header (§9.3.3, 8 bytes): Q_Key(4) reserved(1) SrcQP(3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Deth {
    /// Queue key.
    pub qkey: u32,
    /// Source QP number, 24 bits.
    pub src_qp: u32,
}

impl Deth {
    /// Parse 8 bytes. `None` if too short.
    pub fn parse(b: &[u8]) -> Option<Self> {
        let b = b.get(0..8)?;
        Some(Self {
            qkey: u32::from_be_bytes([b[0], b[1], b[2], b[3]]),
            src_qp: u32::from_be_bytes([0, b[5], b[6], b[7]]),
        })
    }
}

/// PSN arithmetic modulo 2^24 (IBTA Vol 1 §9.7.1).
pub mod psn {
    /// PSN modulus.
    pub const MOD: u32 = 1 << 24;

    /// `a + n` modulo 2^24.
    pub fn add(a: u32, n: u32) -> u32 {
        a.wrapping_add(n) & (MOD - 1)
    }

    /// Signed distance from `a` to `b` in the 24-bit ring, in -2^23..2^23: positive when `b` is
    /// after `a` (the comparison of §9.7.1, valid while the window is below 2^23).
    pub fn diff(a: u32, b: u32) -> i32 {
        let d = b.wrapping_sub(a) & (MOD - 1);
        if d >= MOD / 2 {
            d as i32 - MOD as i32
        } else {
            d as i32
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bth_round_trips_every_field() {
        let b = Bth {
            opcode: 0x0A,
            se: true,
            migreq: false,
            pad: 3,
            tver: 1,
            pkey: 0xFFFF,
            byte4: 0xC0,
            dest_qp: 0x00AB_CDEF,
            ack_req: true,
            resv7: 0,
            psn: 0x00FF_FFFF,
        };
        assert_eq!(Bth::parse(&b.encode()), Some(b));
        assert_eq!(Bth::parse(&[0u8; 11]), None);
    }

    #[test]
    fn migreq_bit_either_way() {
        let mut raw = [0x11u8, 0x40, 0xFF, 0xFF, 0, 0, 0, 0x11, 0, 0, 0, 1];
        assert!(Bth::parse(&raw).is_some_and(|b| b.migreq));
        raw[1] = 0x00;
        assert!(Bth::parse(&raw).is_some_and(|b| !b.migreq));
    }

    #[test]
    fn psn_wraps_mod_2_24() {
        assert_eq!(psn::add(0xFF_FFFF, 1), 0);
        assert_eq!(psn::add(0xFF_FFFE, 5), 3);
        assert_eq!(psn::diff(0xFF_FFFF, 0), 1);
        assert_eq!(psn::diff(0, 0xFF_FFFF), -1);
        assert_eq!(psn::diff(10, 10), 0);
    }
}
