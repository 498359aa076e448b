//! Stage `key`: from fields available before the first payload byte (BTH, SecHdr, RETH,
//! AtomicETH, DETH) and per-QP state, select the key, the IV and check epoch, address range and
//! replay. WRITE Middle/Last use the key set up by their WRITE First (continuation state).

use crate::keys::{node_index, range_in_node, smallest_level, Gid, KeyRef, KeyStore, QpPolicy};
use crate::roce::{opcode::Service, Packet, Segment};
use crate::sechdr::{Mode, SecHdr, LEVEL_QP, PN_MAX};
use crate::verdict::Reason;

/// Identity of a QP context: (destination GID, destination QPN).
pub type QpId = (Gid, u32);

/// Replay window width in packets (PN values behind the highest accepted PN).
pub const REPLAY_WINDOW: u64 = 64;

/// Anti-replay window over PNs (the sliding bitmap of RFC 4303 §3.4.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReplayWindow {
    /// Highest accepted PN (0: none yet; PNs start at 1).
    pub top: u64,
    /// Bit i set: PN `top - i` was accepted.
    pub bits: u64,
}

impl ReplayWindow {
    /// Whether `pn` may be accepted (PN 0, too old or already seen: no).
    pub fn check(&self, pn: u64) -> bool {
        if pn == 0 {
            return false;
        }
        if pn > self.top {
            return true;
        }
        let age = self.top - pn;
        age < REPLAY_WINDOW && self.bits & (1u64 << age) == 0
    }

    /// Record `pn` as accepted (call only after authentication succeeded).
    pub fn update(&mut self, pn: u64) {
        if pn > self.top {
            let shift = pn - self.top;
            self.bits = if shift >= REPLAY_WINDOW {
                0
            } else {
                self.bits << shift
            };
            self.bits |= 1;
            self.top = pn;
        } else {
            self.bits |= 1u64 << (self.top - pn);
        }
    }
}

/// Per-QP state of the receive (verify) side. Made by the QP's first authenticated frame
/// ([`crate::engine::Engine::verify`]); a frame rejected for any reason leaves none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RxQp {
    /// Current epoch.
    pub epoch: u8,
    /// Whether epoch+1 is installed.
    pub next: bool,
    /// Replay window.
    pub window: ReplayWindow,
    /// Key of the WRITE in progress (set by an authenticated WRITE First).
    pub cont: Option<KeyRef>,
}

impl RxQp {
    /// Fresh state from the policy.
    pub fn new(p: &QpPolicy) -> Self {
        Self {
            epoch: p.epoch,
            next: p.next_epoch,
            window: ReplayWindow::default(),
            cont: None,
        }
    }
}

/// Per-QP state of the transmit (protect) side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TxQp {
    /// Next PN to use (starts at 1).
    pub next_pn: u64,
    /// Key of the WRITE in progress (set by WRITE First).
    pub cont: Option<KeyRef>,
}

impl TxQp {
    /// Fresh state. The TX epoch is not per-QP state: every packet uses its policy's current
    /// epoch (`QpPolicy::epoch`), so rotating a policy moves all its QPs, including those
    /// already sending (the RTL reads the policy entry per packet the same way).
    pub fn new(_p: &QpPolicy) -> Self {
        Self {
            next_pn: 1,
            cont: None,
        }
    }
}

/// The key decision for one packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeySel {
    /// Protection domain.
    pub pd: u32,
    /// Epoch of the key.
    pub epoch: u8,
    /// Which key.
    pub key: KeyRef,
    /// IV salt (connection generation, or UD SrcQP).
    pub salt: u32,
    /// SecHdr level (LEVEL_QP or the node level).
    pub level: u8,
}

/// Whether the opcode continues a WRITE (RC/UC/XRC WRITE Middle, Last, Last with ImmDt).
pub fn is_write_continuation(p: &Packet) -> bool {
    matches!(p.op.service, Service::Rc | Service::Uc | Service::Xrc)
        && matches!(p.op.code & 0x1F, 0x07..=0x09)
}

/// Whether the opcode starts a WRITE (First): the node key is remembered for Middle/Last.
pub fn is_write_first(p: &Packet) -> bool {
    matches!(p.op.service, Service::Rc | Service::Uc | Service::Xrc)
        && p.op.code & 0x1F == 0x06
        && p.op.segment == Segment::First
}

/// The (VA, length, rkey) a request addresses: RETH, or AtomicETH with 8 bytes.
pub fn target(frame: &[u8], p: &Packet) -> Option<(u64, u32, u32)> {
    if let Some(r) = p.reth(frame) {
        return Some((r.va, r.dma_len, r.rkey));
    }
    p.atomic_eth(frame).map(|a| (a.va, 8, a.rkey))
}

fn salt(frame: &[u8], p: &Packet, pol: &QpPolicy) -> u32 {
    if p.op.service == Service::Ud {
        p.deth(frame).map_or(0, |d| d.src_qp)
    } else {
        pol.gen & 0xFF_FFFF
    }
}

/// TX key selection: choose the key, level, epoch and PN for a plain packet to a protected QP.
///
/// # Errors
/// [`Reason::OutOfRange`] when the addressed range wraps past 2^64; [`Reason::UnknownKey`] for an
/// rkey outside the allow-list or a WRITE Middle/Last without its First;
/// [`Reason::PnExhausted`] when the QP's PN space is used up.
pub fn select_tx(
    store: &KeyStore,
    qp: &TxQp,
    frame: &[u8],
    p: &Packet,
    gid: &Gid,
) -> Result<(KeySel, u64), Reason> {
    let pol = store.policy(gid, p.bth.dest_qp);
    if qp.next_pn > PN_MAX {
        return Err(Reason::PnExhausted);
    }
    let salt = salt(frame, p, pol);
    let (key, level) = if let Some((va, len, rkey)) = target(frame, p) {
        if !store.mr_allowed(gid, rkey) {
            return Err(Reason::UnknownKey);
        }
        let level = smallest_level(va, len).ok_or(Reason::OutOfRange)?;
        let index = node_index(va, level);
        (
            KeyRef::Node {
                gid: *gid,
                rkey,
                level,
                index,
            },
            level,
        )
    } else if is_write_continuation(p) {
        match qp.cont {
            Some(k @ KeyRef::Node { level, .. }) => (k, level),
            _ => return Err(Reason::UnknownKey),
        }
    } else {
        (
            KeyRef::Qp {
                gid: *gid,
                qpn: p.bth.dest_qp,
                salt,
            },
            LEVEL_QP,
        )
    };
    Ok((
        KeySel {
            pd: pol.pd,
            epoch: pol.epoch,
            key,
            salt,
            level,
        },
        qp.next_pn,
    ))
}

/// RX key selection for a protected packet, in the order the RTL checks too: mode policy,
/// epoch, key scope and range, replay.
///
/// # Errors
/// [`Reason::Policy`] when the SecHdr mode differs from the QP's mode;
/// [`Reason::StaleEpoch`] / [`Reason::UnknownKey`] for an epoch outside the two key slots;
/// [`Reason::Malformed`] for a level that does not fit the opcode; [`Reason::UnknownKey`] for an
/// rkey outside the allow-list or a WRITE Middle/Last without its First; [`Reason::OutOfRange`]
/// when `[VA, VA+len)` leaves the node; [`Reason::Replay`] for a PN already seen or too old.
pub fn select_rx(
    store: &KeyStore,
    qp: &RxQp,
    frame: &[u8],
    p: &Packet,
    sec: &SecHdr,
    gid: &Gid,
) -> Result<KeySel, Reason> {
    let pol = store.policy(gid, p.bth.dest_qp);
    if pol.mode == Mode::Bypass || sec.mode != pol.mode {
        return Err(Reason::Policy);
    }
    // epoch + 1 is installed by the QP's own state (the policy's bit when the QP was made) or by
    // the policy now: its next_epoch bit for a QP at the policy's epoch (a live receiver's
    // install), or its epoch being the QP's + 1 (the policy moved on before this QP saw a
    // packet under the new epoch)
    let next = qp.next
        || (pol.next_epoch && pol.epoch == qp.epoch)
        || pol.epoch == qp.epoch.wrapping_add(1);
    let epoch = if sec.epoch == qp.epoch || (next && sec.epoch == qp.epoch.wrapping_add(1)) {
        sec.epoch
    } else if (1..128).contains(&qp.epoch.wrapping_sub(sec.epoch)) {
        return Err(Reason::StaleEpoch);
    } else {
        return Err(Reason::UnknownKey);
    };
    let salt = salt(frame, p, pol);
    let key = if let Some((va, len, rkey)) = target(frame, p) {
        if sec.level == LEVEL_QP {
            return Err(Reason::Malformed);
        }
        if !store.mr_allowed(gid, rkey) {
            return Err(Reason::UnknownKey);
        }
        if !range_in_node(va, len, sec.level) {
            return Err(Reason::OutOfRange);
        }
        KeyRef::Node {
            gid: *gid,
            rkey,
            level: sec.level,
            index: node_index(va, sec.level),
        }
    } else if is_write_continuation(p) {
        qp.cont.ok_or(Reason::UnknownKey)?
    } else {
        if sec.level != LEVEL_QP {
            return Err(Reason::Malformed);
        }
        KeyRef::Qp {
            gid: *gid,
            qpn: p.bth.dest_qp,
            salt,
        }
    };
    if !qp.window.check(sec.pn) {
        return Err(Reason::Replay);
    }
    Ok(KeySel {
        pd: pol.pd,
        epoch,
        key,
        salt,
        level: sec.level,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replay_window_accepts_once_and_rejects_too_old() {
        let mut w = ReplayWindow::default();
        assert!(!w.check(0));
        for pn in [1u64, 3, 2, 100] {
            assert!(w.check(pn), "pn {pn}");
            w.update(pn);
            assert!(!w.check(pn), "replayed pn {pn}");
        }
        assert!(!w.check(36)); // 100 - 36 = 64: outside the window
        assert!(w.check(37));
        w.update(37);
        assert!(!w.check(37));
        w.update(1000);
        assert!(!w.check(100));
        assert!(w.check(999));
    }
}
