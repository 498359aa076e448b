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
