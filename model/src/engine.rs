//! The two engine directions: [`Protector`] (TX: plain frame → protected frame) and
//! [`Verifier`] (RX: protected frame → plain frame, or a typed rejection). Each owns its per-QP
//! state and key cache, as the two tops of the RTL do.

use crate::keys::{KeyFile, KeyFileError, KeyStore};
use crate::roce::Service;
use crate::sechdr::{iv, Mode, SecHdr, ICV_LEN};
use crate::stage::key::{self, QpId, RxQp, TxQp};
use crate::stage::parse::{parse, Parsed};
use crate::stage::{crypto, emit};
use crate::verdict::{Counters, Forward, Reason};
use std::collections::HashMap;

/// Output of one engine step.
pub type Verdict = Result<(Forward, Vec<u8>), Reason>;

/// Per-QP state of one direction, created from the QP's policy: on TX by the first frame the
/// key stage protects, on RX by the first authenticated frame (until then a frame meets
/// `RxQp::new` of the policy as it is when the frame is verified).
pub trait QpState: Clone + std::fmt::Debug {
    /// Fresh state for a QP with policy `p`.
    fn from_policy(p: &crate::keys::QpPolicy) -> Self;
}

impl QpState for TxQp {
    fn from_policy(p: &crate::keys::QpPolicy) -> Self {
        TxQp::new(p)
    }
}

impl QpState for RxQp {
    fn from_policy(p: &crate::keys::QpPolicy) -> Self {
        RxQp::new(p)
    }
}

/// One engine direction: key store (derived-key cache), per-QP state and counters.
#[derive(Clone, Debug)]
pub struct Engine<Q> {
    store: KeyStore,
    qps: HashMap<QpId, Q>,
    /// Header window of the top in bytes (TX: which rejected frames were already encrypted,
    /// see [`Engine::protect`]).
    hdr_window: usize,
    /// Counters.
    pub counters: Counters,
}

/// TX direction: plain frame → protected frame.
pub type Protector = Engine<TxQp>;
/// RX direction: protected frame → plain frame, or a typed rejection.
pub type Verifier = Engine<RxQp>;

impl<Q: QpState> Engine<Q> {
    /// New engine direction from a key file.
    ///
    /// # Errors
    /// [`KeyFileError`] for a key file with a bad secret.
    pub fn new(k: &KeyFile) -> Result<Self, KeyFileError> {
        Ok(Self {
            store: KeyStore::new(k)?,
            qps: HashMap::new(),
            hdr_window: crate::stage::parse::HEADER_WINDOW_LANES1,
            counters: Counters::default(),
        })
    }

    /// Set the header window of the top this engine stands for, in bytes
    /// (`roce_parse.sv` `WinBytes`: [`crate::stage::parse::HEADER_WINDOW_LANES1`] = 144 at
    /// LANES = 1, the default; 192 at LANES = 4). It decides which truncated frames stage `key`
    /// sees as complete on the header descriptor ([`crate::stage::parse::header_view`]), and so
    /// which rejected frames consume a PN in [`Engine::protect`].
    pub fn set_header_window(&mut self, bytes: usize) {
        self.hdr_window = bytes;
    }

    /// Set the epoch of a policy on the running engine, as a driver rewrites word 0 of the
    /// policy (docs/register-map.md): `Some(id)` is the policy entry of (`gid`, `qpn`), `None`
    /// the default policy (every QP without an entry). TX, the make step of rotation (the
    /// receivers must have the epoch installed first): new packets use `epoch`, QPs already
    /// sending move with their policy. RX: QPs made after it start at `epoch`; a running QP
    /// one epoch behind it accepts `epoch` (and is promoted by its first authenticated packet
    /// under it). Returns false (and changes nothing) when `id` has no policy entry of its own.
    pub fn set_epoch(&mut self, id: Option<QpId>, epoch: u8) -> bool {
        self.store.set_epoch(id.as_ref(), epoch)
    }

    /// Number of KDF runs so far (derived-key cache misses).
    pub fn kdf_runs(&self) -> u64 {
        self.store.kdf_runs
    }

    /// The state of QP `id`, created from its policy if new.
    fn qp(&mut self, id: QpId) -> &mut Q {
        let pol = self.store.policy(&id.0, id.1).clone();
        self.qps.entry(id).or_insert_with(|| Q::from_policy(&pol))
    }
}

impl Engine<TxQp> {
    /// Protect one Ethernet frame.
    ///
    /// The QP state (next PN, WRITE continuation key) is committed by every frame stage `key`
    /// protects from its header descriptor, as the RTL's key stage commits it when it decides:
    /// a frame rejected only at its end — a bad ICRC, or a truncation the parser sees only at
    /// `tlast` because the frame is longer than the header window ([`Engine::set_header_window`])
    /// — has already left the cut-through top in part, encrypted under its PN, so that PN is
    /// never used again (NIST SP 800-38D §8: one IV per key and message). A frame rejected on its
    /// header (malformed, no key, PN exhausted, …) consumes nothing.
    ///
    /// # Errors
    /// A [`Reason`] when the frame cannot be protected (malformed, bad ICRC, no key, PN space
    /// exhausted, already protected). Never panics on any input.
    pub fn protect(&mut self, frame: &[u8]) -> Verdict {
        let v = self.protect_inner(frame);
        self.counters
            .count(&v.as_ref().map(|(f, _)| *f).map_err(|r| *r));
        v
    }

    fn protect_inner(&mut self, frame: &[u8]) -> Verdict {
        match parse(frame) {
            Ok(Parsed::NotRoce(_)) => Ok((Forward::NotRoce, frame.to_vec())),
            Ok(Parsed::Roce(p)) => self.protect_parsed(frame, &p),
            Err(r) => {
                // Stage key decided on the header before the frame's end was seen.
                let hv = crate::stage::parse::header_view(frame, self.hdr_window);
                let h: &[u8] = hv.as_deref().unwrap_or(frame);
                if let Ok(crate::roce::Frame::Roce(p)) = crate::roce::parse(h) {
                    // a frame cut inside its headers is malformed on the descriptor already
                    if frame.len() >= p.payload_off {
                        let _ = self.protect_parsed(h, &p);
                    }
                }
                Err(r)
            }
        }
    }

    /// Stages key, crypto and emit for a frame laid out as `p` (its ICRC is not checked here);
    /// commits the QP state when the frame is protected.
    fn protect_parsed(&mut self, frame: &[u8], p: &crate::roce::Packet) -> Verdict {
        if p.op.service == Service::Cnp {
            return Ok((Forward::Cnp, frame.to_vec()));
        }
        if p.sec.is_some() {
            return Err(Reason::Malformed);
        }
        let gid = p.dest_gid(frame);
        let pol = self.store.policy(&gid, p.bth.dest_qp).clone();
        if pol.mode == Mode::Bypass {
            return Ok((Forward::Bypass, frame.to_vec()));
        }
        let id = (gid, p.bth.dest_qp);
        let qp = self.qp(id).clone();
        let (sel, pn) = key::select_tx(&self.store, &qp, frame, p, &gid)?;
        let k = self
            .store
            .key(sel.pd, sel.epoch, &sel.key)
            .map_err(|_| Reason::UnknownKey)?;
        let sec = SecHdr {
            mode: pol.mode,
            level: sel.level,
            epoch: sel.epoch,
            pn,
        };
        let mut payload = frame[p.payload_off..p.payload_end].to_vec();
        // Lay out the output first: the AAD is taken from the protected headers.
        let mut out = emit::insert(frame, p, &sec, &payload).ok_or(Reason::Malformed)?;
        let Ok(crate::roce::Frame::Roce(q)) = crate::roce::parse(&out) else {
            return Err(Reason::Malformed);
        };
        // Stage key has decided to protect the frame: commit (next PN, WRITE continuation).
        let st = self.qp(id);
        st.next_pn = pn + 1;
        if key::is_write_first(p) {
            st.cont = Some(sel.key);
        }
        let aad = emit::header_aad(&out, &q);
        let icv = crypto::seal(
            pol.mode,
            &k,
            &iv(p.bth.dest_qp, sel.salt, pn),
            &aad,
            &mut payload,
        );
        out[q.payload_off..q.payload_end].copy_from_slice(&payload);
        out[q.payload_end..q.payload_end + ICV_LEN].copy_from_slice(&icv);
        crate::roce::icrc::fix(&mut out, &q);
        Ok((Forward::Processed, out))
    }

    /// Stage `key`'s decision for `frame` in the current state, without changing it: the mode and
    /// key selection of a frame the key stage would protect (the ICRC is not checked: the RTL's
    /// key stage decides before `tlast`), `None` for a frame forwarded unchanged or rejected
    /// before a key is selected. Used by the timing layer ([`crate::timing`]). Never panics.
    pub fn tx_selection(&self, frame: &[u8]) -> Option<(Mode, key::KeySel)> {
        let Ok(crate::roce::Frame::Roce(p)) = crate::roce::parse(frame) else {
            return None;
        };
        if p.op.service == Service::Cnp || p.sec.is_some() {
            return None;
        }
        let gid = p.dest_gid(frame);
        let pol = self.store.policy(&gid, p.bth.dest_qp);
        if pol.mode == Mode::Bypass {
            return None;
        }
        let qp = self
            .qps
            .get(&(gid, p.bth.dest_qp))
            .cloned()
            .unwrap_or_else(|| TxQp::new(pol));
        let (sel, _) = key::select_tx(&self.store, &qp, frame, &p, &gid).ok()?;
        Some((pol.mode, sel))
    }
}

/// What stage `key` of the verify top decides for a frame from its header (see
/// [`Engine::rx_selection`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RxDecision {
    /// The QP (destination GID, destination QPN) of a frame with a SecHdr.
    pub qp: Option<QpId>,
    /// The SecHdr's PN (0 without a SecHdr).
    pub pn: u64,
    /// A WRITE Middle/Last (its key is the one of the QP's WRITE First).
    pub write_cont: bool,
    /// A WRITE First (its commit sets the QP's continuation key).
    pub write_first: bool,
    /// `Some` when the key stage processes the frame (it goes to crypto): the mode, the key
    /// selection, and whether its commit promotes the QP's epoch.
    pub process: Option<(Mode, key::KeySel, bool)>,
}

impl Engine<RxQp> {
    /// Stage `key`'s decision for `frame` in the current state, without changing it: the
    /// classification of [`Engine::verify`] and `select_rx` on the header only (the ICRC is not
    /// checked: the RTL's key stage decides before `tlast`). `None` for a frame without a RoCE
    /// header. Used by the timing layer ([`crate::timing_verify`]). Never panics.
    pub fn rx_selection(&self, frame: &[u8]) -> Option<RxDecision> {
        let Ok(crate::roce::Frame::Roce(p)) = crate::roce::parse(frame) else {
            return None;
        };
        let gid = p.dest_gid(frame);
        let mut d = RxDecision {
            qp: p.sec.map(|_| (gid, p.bth.dest_qp)),
            pn: p.sec.map_or(0, |s| s.pn),
            write_cont: key::is_write_continuation(&p),
            write_first: key::is_write_first(&p),
            process: None,
        };
        let Some(sec) = p.sec else {
            return Some(d);
        };
        if p.op.service == Service::Cnp {
            return Some(d);
        }
        let pol = self.store.policy(&gid, p.bth.dest_qp);
        let qp = self
            .qps
            .get(&(gid, p.bth.dest_qp))
            .cloned()
            .unwrap_or_else(|| RxQp::new(pol));
        if let Ok(sel) = key::select_rx(&self.store, &qp, frame, &p, &sec, &gid) {
            let promote = sel.epoch != qp.epoch;
            d.process = Some((sec.mode, sel, promote));
        }
        Some(d)
    }

    /// Set or clear the next_epoch bit of a policy on the running receiver (`Some(id)`: the
    /// policy entry of (`gid`, `qpn`), `None`: the default policy), as a driver writes word 0
    /// bit 26 of the policy (docs/register-map.md, the receiver side of make-before-break):
    /// while it is set, every QP under the policy whose epoch is the policy's epoch accepts
    /// epoch + 1, QPs already verifying included; a QP promoted to epoch + 1 no longer takes
    /// epoch + 2 from it. Returns false (and changes nothing) when `id` has no policy entry of
    /// its own.
    pub fn set_next_epoch(&mut self, id: Option<QpId>, on: bool) -> bool {
        self.store.set_next_epoch(id.as_ref(), on)
    }

    /// Install epoch+1 on (`gid`, `qpn`) (the receiver side of make-before-break).
    pub fn install_next_epoch(&mut self, id: QpId) {
        self.qp(id).next = true;
    }

    /// Release the RX state of QP `id` = (dest GID, dest QPN): its replay window, epoch and
    /// WRITE continuation key are forgotten, and its next frame meets `RxQp::new` of its policy,
    /// as a driver does on QP destroy with a write of the release block
    /// (docs/register-map.md, `regmap::qp_release_writes`). The RTL's state table has room for
    /// a bounded number of QPs; releasing the destroyed ones keeps it from filling.
    ///
    /// Security: the replay window goes with the state, so a frame sent to `id` under the same
    /// key before the release would be accepted once more. Release a QP only when no later
    /// frame can carry its key: a QP made again on the same (GID, QPN) must get a new
    /// generation (QpSalt) or epoch (docs/threat-model.md). Returns whether `id` had state.
    pub fn release_qp(&mut self, id: QpId) -> bool {
        self.qps.remove(&id).is_some()
    }

    /// Verify one Ethernet frame and restore the plain frame.
    ///
    /// # Errors
    /// The [`Reason`] of the rejection. Nothing of a rejected packet is released. Never panics.
    pub fn verify(&mut self, frame: &[u8]) -> Verdict {
        let v = self.verify_inner(frame);
        self.counters
            .count(&v.as_ref().map(|(f, _)| *f).map_err(|r| *r));
        v
    }

    fn verify_inner(&mut self, frame: &[u8]) -> Verdict {
        let p = match parse(frame)? {
            Parsed::NotRoce(_) => return Ok((Forward::NotRoce, frame.to_vec())),
            Parsed::Roce(p) => p,
        };
        if p.op.service == Service::Cnp {
            return if p.sec.is_none() {
                Ok((Forward::Cnp, frame.to_vec()))
            } else {
                Err(Reason::Policy)
            };
        }
        let gid = p.dest_gid(frame);
        let pol = self.store.policy(&gid, p.bth.dest_qp).clone();
        let Some(sec) = p.sec else {
            return if pol.mode == Mode::Bypass {
                Ok((Forward::Bypass, frame.to_vec()))
            } else {
                Err(Reason::Policy)
            };
        };
        let id = (gid, p.bth.dest_qp);
        // A QP's RX state is made by its first authenticated frame (the commit below): until
        // then its frames meet the policy as it is now (RxQp::new), so a frame that fails any
        // check (a forgery among them) leaves no state behind, not even a snapshot of the
        // policy's epoch.
        let qp = match self.qps.get(&id) {
            Some(q) => q.clone(),
            None => RxQp::new(&pol),
        };
        let sel = key::select_rx(&self.store, &qp, frame, &p, &sec, &gid)?;
        let k = self
            .store
            .key(sel.pd, sel.epoch, &sel.key)
            .map_err(|_| Reason::UnknownKey)?;
        let aad = emit::header_aad(frame, &p);
        let mut payload = frame[p.payload_off..p.payload_end].to_vec();
        let icv = &frame[p.payload_end..p.payload_end + ICV_LEN];
        let iv = iv(p.bth.dest_qp, sel.salt, sec.pn);
        crypto::open(sec.mode, &k, &iv, &aad, &mut payload, icv).map_err(|_| Reason::AuthFail)?;
        let out = emit::strip(frame, &p, &payload).ok_or(Reason::Malformed)?;
        // Authenticated: commit replay window, epoch promotion and WRITE continuation (a new
        // QP's state is made here, from the same policy `qp` was).
        let st = self.qp(id);
        st.window.update(sec.pn);
        let promoted = sel.epoch != st.epoch;
        if promoted {
            st.epoch = sel.epoch;
            st.next = false;
        }
        if key::is_write_first(&p) {
            st.cont = Some(sel.key);
        }
        self.counters.epoch_promotions += u64::from(promoted);
        Ok((Forward::Processed, out))
    }
}

/// The intermediates of protecting one frame, for printing when the RTL disagrees.
#[derive(Clone, Debug)]
pub struct Explain {
    /// The SecHdr the model writes.
    pub sec: SecHdr,
    /// The key (AES-128/256) selected by stage `key`.
    pub key: crate::keys::Key,
    /// The 96-bit IV.
    pub iv: [u8; 12],
    /// GCM AAD as stage `crypto` feeds it (header AAD, plus payload in packet-auth mode).
    pub aad: Vec<u8>,
    /// Every GCM intermediate: H, J0, GHASH state per block, keystream, tag.
    pub trace: crate::gcm::GcmTrace,
}

impl Engine<TxQp> {
    /// What [`Engine::protect`] would compute for `frame` in the current state, without changing
    /// it. `None` when the frame is not protected (passed through or rejected).
    pub fn explain(&self, frame: &[u8]) -> Option<Explain> {
        let mut probe = self.clone();
        let Ok(Parsed::Roce(p)) = parse(frame) else {
            return None;
        };
        let gid = p.dest_gid(frame);
        let qp = probe.qp((gid, p.bth.dest_qp)).clone();
        let (sel, _) = key::select_tx(&probe.store, &qp, frame, &p, &gid).ok()?;
        let key = probe.store.key(sel.pd, sel.epoch, &sel.key).ok()?;
        let (Forward::Processed, out) = probe.protect(frame).ok()? else {
            return None;
        };
        let Ok(crate::roce::Frame::Roce(q)) = crate::roce::parse(&out) else {
            return None;
        };
        let sec = q.sec?;
        let iv = iv(p.bth.dest_qp, sel.salt, sec.pn);
        let hdr = emit::header_aad(&out, &q);
        let plain = &frame[p.payload_off..p.payload_end];
        let g = crate::gcm::AesGcm::new(key.bytes()).ok()?;
        let (aad, pt) = match sec.mode {
            Mode::Aead => (hdr, plain.to_vec()),
            Mode::PacketAuth => ([hdr.as_slice(), plain].concat(), Vec::new()),
            _ => (hdr, Vec::new()),
        };
        let trace = g.trace(&iv, &aad, &pt);
        Some(Explain {
            sec,
            key,
            iv,
            aad,
            trace,
        })
    }
}
