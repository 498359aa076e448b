//! The rocesec security header (SecHdr): 8 bytes right after the BTH of a protected packet.
//! See `docs/wire-format.md` for the byte diagram and the reasoning.
//!
//! ```text
//!  byte 0                  | byte 1 | bytes 2..7
//!  Mode(7:6) Level(5:0)    | Epoch  | PN (48 bits, big-endian)
//! ```

use std::fmt;

/// Length of the SecHdr in bytes.
pub const SECHDR_LEN: usize = 8;
/// Length of the integrity check value (GCM/GMAC tag) in bytes.
pub const ICV_LEN: usize = 16;
/// Bytes a protected packet carries beyond its plain form.
pub const OVERHEAD: usize = SECHDR_LEN + ICV_LEN;
/// BTH TVer value that marks a protected packet. IBTA receivers drop TVer ≠ 0 (§9.2, C9-?):
/// an unmodified RoCE NIC never accepts a protected packet as plain.
pub const TVER_PROTECTED: u8 = 1;
/// Level value meaning "per-QP key" (no address binding).
pub const LEVEL_QP: u8 = 0x3F;
/// Largest region level: node size 2^(12+52) = 2^64 bytes, the whole address space.
pub const LEVEL_MAX: u8 = 52;
/// Largest packet number (48 bits). A sender must rotate keys before reaching it.
pub const PN_MAX: u64 = (1 << 48) - 1;

/// Protection mode of a QP, carried in SecHdr bits 7:6.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mode {
    /// Not protected: the packet passes unchanged (never carried in a SecHdr).
    Bypass,
    /// GMAC over the invariant headers (AAD); payload in clear and not authenticated.
    HeaderAuth,
    /// GMAC over the invariant headers and the payload; payload in clear.
    PacketAuth,
    /// AES-GCM: payload encrypted, invariant headers as AAD.
    Aead,
}

impl Mode {
    /// The two-bit wire code (1, 2, 3); `None` for [`Mode::Bypass`].
    pub fn code(self) -> Option<u8> {
        match self {
            Mode::Bypass => None,
            Mode::HeaderAuth => Some(1),
            Mode::PacketAuth => Some(2),
            Mode::Aead => Some(3),
        }
    }

    /// Decode the two-bit wire code; 0 is reserved (`None`).
    pub fn from_code(c: u8) -> Option<Self> {
        match c & 3 {
            1 => Some(Mode::HeaderAuth),
            2 => Some(Mode::PacketAuth),
            3 => Some(Mode::Aead),
            _ => None,
        }
    }

    /// Name as used on the command line and in key files.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Bypass => "bypass",
            Mode::HeaderAuth => "header-auth",
            Mode::PacketAuth => "packet-auth",
            Mode::Aead => "aead",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

impl std::str::FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "bypass" => Ok(Mode::Bypass),
            "header-auth" => Ok(Mode::HeaderAuth),
            "packet-auth" => Ok(Mode::PacketAuth),
            "aead" => Ok(Mode::Aead),
            _ => Err(format!(
                "unknown mode {s:?} (bypass, header-auth, packet-auth, aead)"
            )),
        }
    }
}

/// The decoded SecHdr.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SecHdr {
    /// Protection mode.
    pub mode: Mode,
    /// Key scope: [`LEVEL_QP`] for the per-QP key, or 0..=[`LEVEL_MAX`] for the sub-region key
    /// of the node of size 4 KiB · 2^level that contains the packet's VA.
    pub level: u8,
    /// Key epoch (mod 256).
    pub epoch: u8,
    /// Packet number, 48 bits, unique per (key, sender QP) and strictly increasing.
    pub pn: u64,
}

/// Why a SecHdr could not be decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SecHdrError {
    /// Fewer than [`SECHDR_LEN`] bytes.
    Truncated,
    /// Mode code 0 (reserved).
    ReservedMode,
    /// Level between [`LEVEL_MAX`]+1 and 0x3E.
    ReservedLevel,
}

impl fmt::Display for SecHdrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SecHdrError::Truncated => "SecHdr truncated",
            SecHdrError::ReservedMode => "SecHdr mode 0 is reserved",
            SecHdrError::ReservedLevel => "SecHdr level 53..62 is reserved",
        })
    }
}

impl std::error::Error for SecHdrError {}

impl SecHdr {
    /// Decode the first [`SECHDR_LEN`] bytes of `b`.
    ///
    /// # Errors
    /// [`SecHdrError`] for short input, mode 0 or a reserved level.
    pub fn parse(b: &[u8]) -> Result<Self, SecHdrError> {
        let b = b.get(..SECHDR_LEN).ok_or(SecHdrError::Truncated)?;
        let mode = Mode::from_code(b[0] >> 6).ok_or(SecHdrError::ReservedMode)?;
        let level = b[0] & 0x3F;
        if level > LEVEL_MAX && level != LEVEL_QP {
            return Err(SecHdrError::ReservedLevel);
        }
        let mut pn = [0u8; 8];
        pn[2..].copy_from_slice(&b[2..8]);
        Ok(Self {
            mode,
            level,
            epoch: b[1],
            pn: u64::from_be_bytes(pn),
        })
    }

    /// Encode to 8 bytes. A [`Mode::Bypass`] header encodes mode 0 (reserved), which no
    /// verifier accepts; callers never protect in bypass mode.
    pub fn encode(&self) -> [u8; SECHDR_LEN] {
        let pn = (self.pn & PN_MAX).to_be_bytes();
        [
            (self.mode.code().unwrap_or(0) << 6) | (self.level & 0x3F),
            self.epoch,
            pn[2],
            pn[3],
            pn[4],
            pn[5],
            pn[6],
            pn[7],
        ]
    }
}

/// The 96-bit GCM IV (SP 800-38D §8.2.1 deterministic construction): fixed field
/// DestQP(24) ‖ QpSalt(24), invocation field PN(48).
///
/// `qp_salt` is the connection generation of an RC/UC QP (from its context), or the SrcQP of
/// the DETH for UD, so that (key, IV) is unique even when several senders share a sub-region key.
pub fn iv(dest_qp: u32, qp_salt: u32, pn: u64) -> [u8; 12] {
    let q = dest_qp.to_be_bytes();
    let s = qp_salt.to_be_bytes();
    let p = pn.to_be_bytes();
    [
        q[1], q[2], q[3], s[1], s[2], s[3], p[2], p[3], p[4], p[5], p[6], p[7],
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sechdr_round_trip_and_reserved_values() {
        let h = SecHdr {
            mode: Mode::Aead,
            level: 5,
            epoch: 200,
            pn: PN_MAX,
        };
        assert_eq!(SecHdr::parse(&h.encode()), Ok(h));
        let q = SecHdr {
            mode: Mode::HeaderAuth,
            level: LEVEL_QP,
            epoch: 0,
            pn: 1,
        };
        assert_eq!(q.encode(), [0x7F, 0, 0, 0, 0, 0, 0, 1]);
        assert_eq!(
            SecHdr::parse(&[0x05, 0, 0, 0, 0, 0, 0, 1]),
            Err(SecHdrError::ReservedMode)
        );
        assert_eq!(
            SecHdr::parse(&[0xF5, 0, 0, 0, 0, 0, 0, 1]),
            Err(SecHdrError::ReservedLevel)
        );
        assert_eq!(SecHdr::parse(&[0xC0; 7]), Err(SecHdrError::Truncated));
    }

    #[test]
    fn iv_layout() {
        assert_eq!(
            iv(0x12_3456, 0xAB_CDEF, 0x0102_0304_0506),
            [0x12, 0x34, 0x56, 0xAB, 0xCD, 0xEF, 1, 2, 3, 4, 5, 6]
        );
    }
}
