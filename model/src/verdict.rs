//! Verdicts and counters: every packet is forwarded or rejected with exactly one reason, and every
//! rejection is counted.

use std::fmt;

/// Why a packet was rejected. The order of checks, and so which reason wins when several apply,
/// is the order of the variants' codes' use in `stage::key` and the engine; the RTL reports the
/// same 4-bit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reason {
    /// ICV did not verify (forged or altered packet, wrong key).
    AuthFail = 1,
    /// Stored ICRC is wrong (corruption, or an alteration without ICRC fix-up).
    BadIcrc = 2,
    /// Not a well-formed RoCEv2 packet, or a SecHdr that does not fit the opcode.
    Malformed = 3,
    /// `[VA, VA+len)` leaves the address node the key is bound to.
    OutOfRange = 4,
    /// TX only: the QP's 48-bit PN space is used up; keys must be rotated.
    PnExhausted = 5,
    /// Plain packet on a protected QP, protected packet on a bypass QP, or a SecHdr mode that
    /// differs from the QP's mode.
    Policy = 6,
    /// PN already accepted, or older than the replay window.
    Replay = 7,
    /// Epoch older than the QP's current key slot.
    StaleEpoch = 8,
    /// No key: epoch not installed, rkey not allowed, or WRITE Middle/Last without its First.
    UnknownKey = 9,
}

impl Reason {
    /// All reasons, in code order.
    pub const ALL: [Reason; 9] = [
        Reason::AuthFail,
        Reason::BadIcrc,
        Reason::Malformed,
        Reason::OutOfRange,
        Reason::PnExhausted,
        Reason::Policy,
        Reason::Replay,
        Reason::StaleEpoch,
        Reason::UnknownKey,
    ];

    /// The 4-bit code the RTL reports (`tuser` of the verdict, register map).
    pub fn code(self) -> u8 {
        self as u8
    }

    /// Kebab-case name, as printed and used in counters.
    pub fn name(self) -> &'static str {
        match self {
            Reason::AuthFail => "auth-fail",
            Reason::BadIcrc => "bad-icrc",
            Reason::Malformed => "malformed",
            Reason::OutOfRange => "out-of-range",
            Reason::PnExhausted => "pn-exhausted",
            Reason::Policy => "policy",
            Reason::Replay => "replay",
            Reason::StaleEpoch => "stale-epoch",
            Reason::UnknownKey => "unknown-key",
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

impl std::error::Error for Reason {}

/// What happened to a forwarded frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Forward {
    /// Protected (TX) or verified and restored (RX).
    Processed,
    /// RoCEv2 on a bypass QP: unchanged.
    Bypass,
    /// RoCEv2 CNP (opcode 0x81): unchanged, never protected.
    Cnp,
    /// Not RoCEv2: unchanged.
    NotRoce,
}

/// Counters of one engine direction.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Frames in.
    pub frames: u64,
    /// Frames protected or verified.
    pub processed: u64,
    /// RoCEv2 frames forwarded unchanged on bypass QPs.
    pub bypass: u64,
    /// CNPs forwarded unchanged.
    pub cnp: u64,
    /// Non-RoCEv2 frames forwarded unchanged.
    pub not_roce: u64,
    /// Rejections by reason code (index = code).
    pub rejected: [u64; 16],
    /// Epoch promotions on the RX side (first packet under epoch+1).
    pub epoch_promotions: u64,
}

impl Counters {
    /// Count a verdict.
    pub fn count(&mut self, v: &Result<Forward, Reason>) {
        self.frames += 1;
        match v {
            Ok(Forward::Processed) => self.processed += 1,
            Ok(Forward::Bypass) => self.bypass += 1,
            Ok(Forward::Cnp) => self.cnp += 1,
            Ok(Forward::NotRoce) => self.not_roce += 1,
            Err(r) => self.rejected[r.code() as usize] += 1,
        }
    }

    /// Total rejections.
    pub fn total_rejected(&self) -> u64 {
        self.rejected.iter().sum()
    }

    /// The sum of two counter sets (e.g. an engine's and the CLI's own rejections).
    pub fn merged(&self, o: &Counters) -> Counters {
        let mut c = self.clone();
        c.frames += o.frames;
        c.processed += o.processed;
        c.bypass += o.bypass;
        c.cnp += o.cnp;
        c.not_roce += o.not_roce;
        for (a, b) in c.rejected.iter_mut().zip(o.rejected) {
            *a += b;
        }
        c.epoch_promotions += o.epoch_promotions;
        c
    }

    /// Rejections for `r`.
    pub fn rejected_for(&self, r: Reason) -> u64 {
        self.rejected[r.code() as usize]
    }
}
