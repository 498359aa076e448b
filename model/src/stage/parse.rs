//! Stage `parse`: classify the frame, lay out its headers (Ethernet, 802.1Q, IPv4/IPv6, UDP,
//! BTH, SecHdr, extended headers) and check the ICRC (IBTA Vol 1 Annex A17.8).

use crate::roce::{self, icrc, Frame, Packet};
use crate::verdict::Reason;

/// Outcome of the parse stage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Parsed {
    /// Not RoCEv2: forwarded untouched.
    NotRoce(roce::NotRoce),
    /// A RoCEv2 packet with a valid ICRC.
    Roce(Packet),
}

/// Parse `frame` and check its ICRC.
///
/// # Errors
/// [`Reason::Malformed`] for a frame to UDP 4791 that is not a well-formed RoCEv2 packet;
/// [`Reason::BadIcrc`] when the stored ICRC is wrong.
pub fn parse(frame: &[u8]) -> Result<Parsed, Reason> {
    match roce::parse(frame) {
        Ok(Frame::NotRoce(n)) => Ok(Parsed::NotRoce(n)),
        Ok(Frame::Roce(p)) => {
            if icrc::check(frame, &p) {
                Ok(Parsed::Roce(p))
            } else {
                Err(Reason::BadIcrc)
            }
        }
        Err(_) => Err(Reason::Malformed),
    }
}

/// Header window of the LANES = 1 tops in bytes (`roce_parse.sv` `WinBytes`: 9 beats of 16 bytes,
/// the whole beats that cover every header byte a descriptor needs). LANES = 4: 192 (3 × 64).
pub const HEADER_WINDOW_LANES1: usize = 144;

/// The frame as stage `key` sees it on the header descriptor (`roce_parse.sv` `hdr_valid_o`),
/// when that differs from the frame: a frame longer than the header window `window` (bytes) gets
/// its descriptor before `tlast`, with the lengths checked "as if the frame held its whole IP
/// packet" — here, a frame shorter than the IP length in its header is zero-filled to that
/// length. A frame within the window gets its descriptor at `tlast` with its real length.
/// `None` when the frame is seen as it is (within the window, long enough, or no readable
/// IPv4/IPv6 header). Never panics.
pub fn header_view(f: &[u8], window: usize) -> Option<Vec<u8>> {
    if f.len() <= window {
        return None;
    }
    let be16 = |o: usize| -> Option<usize> {
        Some(usize::from(u16::from_be_bytes([
            *f.get(o)?,
            *f.get(o + 1)?,
        ])))
    };
    let mut off = 12;
    let mut et = be16(off)?;
    for _ in 0..2 {
        if et == 0x8100 || et == 0x88a8 {
            off += 4;
            et = be16(off)?;
        }
    }
    let ip = off + 2;
    let full = match et {
        0x0800 => ip + be16(ip + 2)?,
        0x86dd => ip + 40 + be16(ip + 4)?,
        _ => return None,
    };
    (full > f.len()).then(|| {
        let mut v = f.to_vec();
        v.resize(full, 0);
        v
    })
}
