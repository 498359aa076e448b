//! BTH opcodes and the extended transport headers each one carries (IBTA Vol 1 §9.2, Table 38;
//! RoCEv2 CNP from Annex A17.9.3; FLUSH and ATOMIC WRITE from IBTA Vol 1 rel. 1.5).

/// Extended transport headers present after the BTH, as a bit set, in wire order.
///
/// Wire order (IBTA Vol 1 §9.2): XRCETH, DETH, FETH, RETH, AtomicETH, AETH, AtomicAckETH,
/// ImmDt, IETH. The order of the constants below is that order.
pub mod eth {
    /// XRC Extended Transport Header, 4 bytes (§9.3.1.1).
    pub const XRCETH: u16 = 1 << 0;
    /// Datagram Extended Transport Header, 8 bytes: Q_Key, SrcQP (§9.3.3).
    pub const DETH: u16 = 1 << 1;
    /// FLUSH Extended Transport Header, 4 bytes (IBTA 1.5 §9.3.9).
    pub const FETH: u16 = 1 << 2;
    /// RDMA Extended Transport Header, 16 bytes: VA, R_Key, DMA length (§9.3.4).
    pub const RETH: u16 = 1 << 3;
    /// Atomic Extended Transport Header, 28 bytes: VA, R_Key, swap/add, compare (§9.3.5).
    pub const ATOMIC_ETH: u16 = 1 << 4;
    /// ACK Extended Transport Header, 4 bytes: syndrome, MSN (§9.3.6).
    pub const AETH: u16 = 1 << 5;
    /// Atomic ACK Extended Transport Header, 8 bytes: original remote data (§9.3.7).
    pub const ATOMIC_ACK_ETH: u16 = 1 << 6;
    /// Immediate data, 4 bytes (§9.3.8).
    pub const IMMDT: u16 = 1 << 7;
    /// Invalidate Extended Transport Header, 4 bytes: R_Key to invalidate (§9.3.10).
    pub const IETH: u16 = 1 << 8;

    /// (flag, length in bytes) in wire order.
    pub const ORDER: [(u16, usize); 9] = [
        (XRCETH, 4),
        (DETH, 8),
        (FETH, 4),
        (RETH, 16),
        (ATOMIC_ETH, 28),
        (AETH, 4),
        (ATOMIC_ACK_ETH, 8),
        (IMMDT, 4),
        (IETH, 4),
    ];

    /// Total length in bytes of the extended headers in `mask`.
    pub fn len(mask: u16) -> usize {
        ORDER
            .iter()
            .filter(|(f, _)| mask & f != 0)
            .map(|(_, l)| *l)
            .sum()
    }

    /// Byte offset of header `flag` from the end of the BTH (plus SecHdr, if any) when the
    /// headers in `mask` are present. `None` if `flag` is not in `mask`.
    pub fn offset(mask: u16, flag: u16) -> Option<usize> {
        if mask & flag == 0 {
            return None;
        }
        Some(
            ORDER
                .iter()
                .take_while(|(f, _)| *f != flag)
                .filter(|(f, _)| mask & f != 0)
                .map(|(_, l)| *l)
                .sum(),
        )
    }
}

/// Transport service of an opcode (the top three bits of the BTH opcode).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Service {
    /// Reliable Connected (0b000).
    Rc,
    /// Unreliable Connected (0b001).
    Uc,
    /// Reliable Datagram (0b010): not used by RoCEv2, never protected.
    Rd,
    /// Unreliable Datagram (0b011).
    Ud,
    /// Congestion Notification Packet (0b100; opcode 0x81 in RoCEv2, Annex A17.9.3).
    Cnp,
    /// Extended Reliable Connected (0b101).
    Xrc,
    /// Manufacturer specific (0b110, 0b111).
    Vendor,
}

/// Position of a packet inside a multi-packet message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Segment {
    /// First packet of a message.
    First,
    /// Middle packet of a message.
    Middle,
    /// Last packet of a message.
    Last,
    /// The only packet of a message.
    Only,
}

/// Static facts about one BTH opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpcodeInfo {
    /// The opcode byte.
    pub code: u8,
    /// Short name as printed by `rocesec inspect` (e.g. `RC_WRITE_FIRST`).
    pub name: &'static str,
    /// Transport service.
    pub service: Service,
    /// Extended headers (bit set of [`eth`] constants).
    pub eth: u16,
    /// Whether the opcode may carry a payload.
    pub payload: bool,
    /// Message segment.
    pub segment: Segment,
}

macro_rules! op {
    ($code:expr, $name:expr, $svc:ident, $eth:expr, $pl:expr, $seg:ident) => {
        OpcodeInfo {
            code: $code,
            name: $name,
            service: Service::$svc,
            eth: $eth,
            payload: $pl,
            segment: Segment::$seg,
        }
    };
}

use eth::*;

/// (opcode low five bits, extended headers, payload, segment) for RC, and by the service bits
/// for UC and XRC (§9.2 Table 38). Reserved rows have no name in `RC_NAMES`.
const RC_OPS: [(u8, u16, bool, Segment); 30] = [
    (0x00, 0, true, Segment::First),
    (0x01, 0, true, Segment::Middle),
    (0x02, 0, true, Segment::Last),
    (0x03, IMMDT, true, Segment::Last),
    (0x04, 0, true, Segment::Only),
    (0x05, IMMDT, true, Segment::Only),
    (0x06, RETH, true, Segment::First),
    (0x07, 0, true, Segment::Middle),
    (0x08, 0, true, Segment::Last),
    (0x09, IMMDT, true, Segment::Last),
    (0x0A, RETH, true, Segment::Only),
    (0x0B, RETH | IMMDT, true, Segment::Only),
    (0x0C, RETH, false, Segment::Only),
    (0x0D, AETH, true, Segment::First),
    (0x0E, 0, true, Segment::Middle),
    (0x0F, AETH, true, Segment::Last),
    (0x10, AETH, true, Segment::Only),
    (0x11, AETH, false, Segment::Only),
    (0x12, AETH | ATOMIC_ACK_ETH, false, Segment::Only),
    (0x13, ATOMIC_ETH, false, Segment::Only),
    (0x14, ATOMIC_ETH, false, Segment::Only),
    (0x15, 0, false, Segment::Only),
    (0x16, IETH, true, Segment::Last),
    (0x17, IETH, true, Segment::Only),
    (0x18, 0, false, Segment::Only),
    (0x19, 0, false, Segment::Only),
    (0x1A, 0, false, Segment::Only),
    (0x1B, 0, false, Segment::Only),
    (0x1C, FETH | RETH, false, Segment::Only),
    (0x1D, RETH, true, Segment::Only),
];

/// Look up an opcode. Returns `None` for opcodes that are reserved in every service, so that
/// callers report them instead of guessing a header layout.
pub fn info(code: u8) -> Option<OpcodeInfo> {
    let low = code & 0x1F;
    let svc = match code >> 5 {
        0 => Service::Rc,
        1 => Service::Uc,
        2 => Service::Rd,
        3 => Service::Ud,
        4 => Service::Cnp,
        5 => Service::Xrc,
        _ => Service::Vendor,
    };
    match svc {
        Service::Rc | Service::Xrc => {
            let (c, e, p, s) = RC_OPS.get(low as usize).copied()?;
            let name = if svc == Service::Rc {
                RC_NAMES
            } else {
                XRC_NAMES
            }[c as usize];
            if name.is_empty() {
                return None;
            }
            // XRC requests carry an XRCETH; XRC responses (READ responses, ACKs) do not (§9.3.1.1).
            let xrc = if svc == Service::Xrc && !(0x0D..=0x12).contains(&c) {
                XRCETH
            } else {
                0
            };
            let mut i = op!(code, name, Rc, e | xrc, p, Only);
            i.service = svc;
            i.segment = s;
            Some(i)
        }
        Service::Uc => {
            // UC supports SEND and RDMA WRITE only (§9.2 Table 38: 0x20..0x2B).
            if low > 0x0B {
                return None;
            }
            let (c, e, p, s) = RC_OPS[low as usize];
            let mut i = op!(code, UC_NAMES[c as usize], Uc, e, p, Only);
            i.segment = s;
            Some(i)
        }
        Service::Ud => match low {
            0x04 => Some(op!(code, "UD_SEND_ONLY", Ud, DETH, true, Only)),
            0x05 => Some(op!(code, "UD_SEND_ONLY_IMM", Ud, DETH | IMMDT, true, Only)),
            _ => None,
        },
        Service::Cnp => match code {
            0x81 => Some(op!(code, "CNP", Cnp, 0, true, Only)),
            _ => None,
        },
        Service::Rd | Service::Vendor => None,
    }
}

/// Names of RC opcodes indexed by the low five bits.
const RC_NAMES: [&str; 30] = [
    "RC_SEND_FIRST",
    "RC_SEND_MIDDLE",
    "RC_SEND_LAST",
    "RC_SEND_LAST_IMM",
    "RC_SEND_ONLY",
    "RC_SEND_ONLY_IMM",
    "RC_WRITE_FIRST",
    "RC_WRITE_MIDDLE",
    "RC_WRITE_LAST",
    "RC_WRITE_LAST_IMM",
    "RC_WRITE_ONLY",
    "RC_WRITE_ONLY_IMM",
    "RC_READ_REQUEST",
    "RC_READ_RESPONSE_FIRST",
    "RC_READ_RESPONSE_MIDDLE",
    "RC_READ_RESPONSE_LAST",
    "RC_READ_RESPONSE_ONLY",
    "RC_ACK",
    "RC_ATOMIC_ACK",
    "RC_COMPARE_SWAP",
    "RC_FETCH_ADD",
    "",
    "RC_SEND_LAST_INV",
    "RC_SEND_ONLY_INV",
    "",
    "",
    "",
    "",
    "RC_FLUSH",
    "RC_ATOMIC_WRITE",
];

/// Names of XRC opcodes indexed by the low five bits.
const XRC_NAMES: [&str; 30] = [
    "XRC_SEND_FIRST",
    "XRC_SEND_MIDDLE",
    "XRC_SEND_LAST",
    "XRC_SEND_LAST_IMM",
    "XRC_SEND_ONLY",
    "XRC_SEND_ONLY_IMM",
    "XRC_WRITE_FIRST",
    "XRC_WRITE_MIDDLE",
    "XRC_WRITE_LAST",
    "XRC_WRITE_LAST_IMM",
    "XRC_WRITE_ONLY",
    "XRC_WRITE_ONLY_IMM",
    "XRC_READ_REQUEST",
    "XRC_READ_RESPONSE_FIRST",
    "XRC_READ_RESPONSE_MIDDLE",
    "XRC_READ_RESPONSE_LAST",
    "XRC_READ_RESPONSE_ONLY",
    "XRC_ACK",
    "XRC_ATOMIC_ACK",
    "XRC_COMPARE_SWAP",
    "XRC_FETCH_ADD",
    "",
    "XRC_SEND_LAST_INV",
    "XRC_SEND_ONLY_INV",
    "",
    "",
    "",
    "",
    "XRC_FLUSH",
    "XRC_ATOMIC_WRITE",
];

/// Names of UC opcodes indexed by the low five bits.
const UC_NAMES: [&str; 12] = [
    "UC_SEND_FIRST",
    "UC_SEND_MIDDLE",
    "UC_SEND_LAST",
    "UC_SEND_LAST_IMM",
    "UC_SEND_ONLY",
    "UC_SEND_ONLY_IMM",
    "UC_WRITE_FIRST",
    "UC_WRITE_MIDDLE",
    "UC_WRITE_LAST",
    "UC_WRITE_LAST_IMM",
    "UC_WRITE_ONLY",
    "UC_WRITE_ONLY_IMM",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_opcodes_have_expected_headers() {
        let w = info(0x06).expect("WRITE_FIRST");
        assert_eq!(w.name, "RC_WRITE_FIRST");
        assert_eq!(w.eth, RETH);
        assert_eq!(info(0x0B).map(|i| i.eth), Some(RETH | IMMDT));
        assert_eq!(info(0x12).map(|i| eth::len(i.eth)), Some(12));
        assert_eq!(info(0x64).map(|i| i.name), Some("UD_SEND_ONLY"));
        assert_eq!(info(0x81).map(|i| i.service), Some(Service::Cnp));
        assert_eq!(info(0x2A).map(|i| i.name), Some("UC_WRITE_ONLY"));
        assert_eq!(info(0xA6).map(|i| i.eth), Some(XRCETH | RETH));
        assert_eq!(info(0xAD).map(|i| i.eth), Some(AETH));
    }

    #[test]
    fn reserved_opcodes_are_none() {
        for c in [
            0x15u8, 0x18, 0x1E, 0x1F, 0x2C, 0x40, 0x60, 0x66, 0x80, 0x82, 0xC0, 0xFF,
        ] {
            assert!(info(c).is_none(), "opcode {c:#04x}");
        }
    }

    #[test]
    fn header_offsets_follow_wire_order() {
        let m = RETH | IMMDT;
        assert_eq!(eth::offset(m, RETH), Some(0));
        assert_eq!(eth::offset(m, IMMDT), Some(16));
        assert_eq!(eth::offset(m, AETH), None);
        assert_eq!(eth::offset(DETH | IMMDT, IMMDT), Some(8));
        assert_eq!(eth::len(FETH | RETH), 20);
    }
}
