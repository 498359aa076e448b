//! RoCEv2 packets: framing, transport headers, opcodes and the ICRC (IBTA Vol 1 Annex A17).
pub mod build;
pub mod frame;
pub mod headers;
pub mod icrc;
pub mod opcode;

pub use frame::{parse, Frame, IpVersion, NotRoce, Packet, ParseError, ICRC_LEN, ROCE_PORT};
pub use headers::{psn, Aeth, AtomicEth, Bth, Deth, Reth, BTH_LEN};
pub use opcode::{OpcodeInfo, Segment, Service};
