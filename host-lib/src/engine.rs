//! Driver for a rocesec engine: programs the session's keys and QP policies into the engine's
//! tables through its register map (`docs/register-map.md`, `rocesec_model::regmap`) and reads
//! its counters. The data path then runs in hardware; this side never touches packets.
//!
//! The bus is anything that implements [`RegBus`]: the MMIO mapping of an FPGA or NIC (a
//! platform driver's concern), or the co-simulated RTL (`cosim/tests/host_engine.rs` programs
//! the verilated protect top through its AXI4-Lite port with this driver).
//!
//! What the engine gets: K_pd per (PD, epoch) (HKDF-SHA256 of the session secret, RFC 5869, as
//! [`SessionKeys::pd`] computes it) and the policy of each QP. The session secret itself stays
//! in host memory. Rotation is make-before-break, no QP is torn down, in the four steps of
//! `docs/register-map.md`: receivers accept the next epoch ([`Engine::accept_next`] on an
//! engine made with [`Engine::new_rx`]), senders switch ([`Engine::rotate`]: the new epoch's
//! PD key is installed, then each policy of the PD switches epoch with one register write),
//! receivers switch ([`Engine::rotate`]), and once no frame under the old epoch is in flight
//! the old keys are removed ([`Engine::retire`]).

use std::fmt;

use rocesec_model::keys::{Gid, QpPolicy};
use rocesec_model::regmap::{self, RegBus, RegWrite};
use rocesec_model::sechdr::Mode;
use rocesec_model::verdict::Counters;

use crate::error::{Error, Result};
use crate::keys::SessionKeys;

/// The policy of one destination QP as the engine's policy table holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QpRule {
    /// Destination GID of the packets (the peer QP's host; IPv4 as ::ffff:a.b.c.d).
    pub gid: Gid,
    /// Destination QPN (24 bits).
    pub qpn: u32,
    /// Protection mode.
    pub mode: Mode,
    /// Protection domain.
    pub pd: u32,
    /// Connection generation (IV salt, 24 bits).
    pub gen: u32,
}

/// A policy entry in use: its rule, current epoch and (receivers) whether epoch + 1 is
/// accepted too.
#[derive(Clone, Debug)]
struct Entry {
    rule: QpRule,
    epoch: u8,
    next: bool,
}

/// An engine behind a register bus, with the table state this driver has written.
pub struct Engine<B: RegBus> {
    bus: B,
    /// The bus is a verify (RX) top: word 0 of a policy carries [`regmap::NEXT_EPOCH`].
    rx: bool,
    default: QpPolicy,
    /// (PD, epoch) held by each PD key slot.
    slots: [Option<(u32, u8)>; regmap::NUM_PD],
    /// Policy entries in use, in table order.
    rules: Vec<Entry>,
    /// (GID, QPN, PD, generation) of every rule whose QP was released ([`Engine::release_qp`]):
    /// a rule that would bring one of them back is refused (its key would accept the old
    /// frames again). One entry per release.
    released: std::collections::HashSet<(Gid, u32, u32, u32)>,
}

fn bus_err<E: fmt::Debug>(e: E) -> Error {
    Error::Engine(format!("register bus: {e:?}"))
}

impl<B: RegBus> Engine<B>
where
    B::Error: fmt::Debug,
{
    /// Take over a protect (TX) engine after reset: program `default` (the policy of QPs
    /// without a rule) and its PD key.
    ///
    /// # Errors
    /// [`Error::Engine`] for a bus error or a key size other than AES-128.
    pub fn new(bus: B, keys: &SessionKeys, default: QpPolicy) -> Result<Self> {
        Self::take_over(bus, false, keys, default)
    }

    /// Take over a verify (RX) engine after reset: select cut-through or store-and-forward
    /// output ([`regmap::CTRL`]), then program `default` and its PD key (and the key of
    /// epoch + 1 if `default.next_epoch` is set).
    ///
    /// # Errors
    /// [`Error::Engine`] for a bus error or a key size other than AES-128.
    pub fn new_rx(
        mut bus: B,
        keys: &SessionKeys,
        default: QpPolicy,
        store_forward: bool,
    ) -> Result<Self> {
        let ctrl = if store_forward {
            regmap::CTRL_STORE_FORWARD
        } else {
            0
        };
        bus.write32(regmap::CTRL, ctrl).map_err(bus_err)?;
        Self::take_over(bus, true, keys, default)
    }

    fn take_over(bus: B, rx: bool, keys: &SessionKeys, default: QpPolicy) -> Result<Self> {
        let mut e = Self {
            bus,
            rx,
            default,
            slots: [None; regmap::NUM_PD],
            rules: Vec::new(),
            released: std::collections::HashSet::new(),
        };
        if e.default.mode != Mode::Bypass {
            e.ensure_slot(keys, e.default.pd, e.default.epoch)?;
            if e.accepts_next(&e.default) {
                e.ensure_slot(keys, e.default.pd, e.default.epoch.wrapping_add(1))?;
            }
        }
        let w = e.policy_writes(regmap::DEFAULT, &[0; 16], 0, &e.default.clone())?;
        e.write(&w)?;
        Ok(e)
    }

    /// Whether the engine accepts epoch + 1 of `p` (a receiver with next_epoch set).
    fn accepts_next(&self, p: &QpPolicy) -> bool {
        self.rx && p.next_epoch
    }

    /// The writes of a policy (`regmap::policy_writes`), word 0 last; on a receiver word 0
    /// carries [`regmap::NEXT_EPOCH`] when `p.next_epoch` is set.
    fn policy_writes(&self, base: u16, gid: &Gid, qpn: u32, p: &QpPolicy) -> Result<Vec<RegWrite>> {
        let mut w =
            regmap::policy_writes(base, gid, qpn, p).map_err(|x| Error::Engine(x.to_string()))?;
        if self.accepts_next(p) {
            if let Some(w0) = w.last_mut() {
                w0.data |= regmap::NEXT_EPOCH;
            }
        }
        Ok(w)
    }

    fn write(&mut self, w: &[RegWrite]) -> Result<()> {
        regmap::apply(&mut self.bus, w).map_err(bus_err)
    }

    /// Make sure a PD key slot holds (pd, epoch); returns its index.
    fn ensure_slot(&mut self, keys: &SessionKeys, pd: u32, epoch: u8) -> Result<usize> {
        if let Some(j) = self.slots.iter().position(|s| *s == Some((pd, epoch))) {
            return Ok(j);
        }
        let j = self.slots.iter().position(Option::is_none).ok_or_else(|| {
            Error::Engine(format!(
                "all {} PD key slots are in use; retire an epoch or a PD first",
                regmap::NUM_PD
            ))
        })?;
        let k = keys.pd(pd, epoch)?;
        let kb: [u8; 16] = k.bytes().try_into().map_err(|_| {
            Error::Engine("the engine implements AES-128 keys only (session key size 32)".into())
        })?;
        self.write(&regmap::pd_slot_writes(j, pd, epoch, &kb))?;
        self.slots[j] = Some((pd, epoch));
        Ok(j)
    }

    /// Remove PD key slots no policy uses any more (its epoch, or on a receiver its epoch + 1
    /// while next_epoch is set).
    fn retire_unused(&mut self) -> Result<()> {
        for j in 0..regmap::NUM_PD {
            let Some((pd, ep)) = self.slots[j] else {
                continue;
            };
            let uses = |p: &QpPolicy| {
                p.mode != Mode::Bypass
                    && p.pd == pd
                    && (p.epoch == ep || (self.accepts_next(p) && p.epoch.wrapping_add(1) == ep))
            };
            let used = uses(&self.default) || self.rules.iter().any(|r| uses(&Self::policy_of(r)));
            if !used {
                self.write(&regmap::pd_slot_clear(j))?;
                self.slots[j] = None;
            }
        }
        Ok(())
    }

    fn policy_of(r: &Entry) -> QpPolicy {
        QpPolicy {
            mode: r.rule.mode,
            pd: r.rule.pd,
            gen: r.rule.gen,
            epoch: r.epoch,
            next_epoch: r.next,
        }
    }

    fn rule_writes(&self, idx: usize, r: &Entry) -> Result<Vec<RegWrite>> {
        let base = regmap::POLICY + regmap::POLICY_STRIDE * idx as u16;
        self.policy_writes(base, &r.rule.gid, r.rule.qpn, &Self::policy_of(r))
    }

    /// Rewrite word 0 of entry `idx` (or of the default policy for `None`) only: the switch of
    /// its epoch or next-epoch bit is then atomic per frame.
    fn write_word0(&mut self, idx: Option<usize>) -> Result<()> {
        let w = match idx {
            Some(i) => self.rule_writes(i, &self.rules[i].clone())?,
            None => self.policy_writes(regmap::DEFAULT, &[0; 16], 0, &self.default.clone())?,
        };
        let w0 = *w
            .last()
            .ok_or_else(|| Error::Engine("empty policy write".into()))?;
        self.write(&[w0])
    }

    /// Install (or replace) the rule of (`rule.gid`, `rule.qpn`) under `epoch` (next_epoch
    /// clear), then remove the PD keys no policy uses.
    ///
    /// # Errors
    /// [`Error::Engine`] when the policy table or the PD key slots are full, or on a bus error.
    pub fn install(&mut self, keys: &SessionKeys, rule: QpRule, epoch: u8) -> Result<()> {
        if self
            .released
            .contains(&(rule.gid, rule.qpn, rule.pd, rule.gen))
        {
            return Err(Error::Engine(format!(
                "QP {:#x} was released under PD {} generation {}: a new QP on it needs a new \
                 generation (the old frames would verify again)",
                rule.qpn, rule.pd, rule.gen
            )));
        }
        let idx = match self
            .rules
            .iter()
            .position(|r| (r.rule.gid, r.rule.qpn) == (rule.gid, rule.qpn))
        {
            Some(i) => i,
            None if self.rules.len() < regmap::NUM_POLICIES => self.rules.len(),
            None => {
                return Err(Error::Engine(format!(
                    "all {} policy entries are in use",
                    regmap::NUM_POLICIES
                )))
            }
        };
        if rule.mode != Mode::Bypass {
            self.ensure_slot(keys, rule.pd, epoch)?;
        }
        let entry = Entry {
            rule,
            epoch,
            next: false,
        };
        let w = self.rule_writes(idx, &entry)?;
        self.write(&w)?;
        if idx == self.rules.len() {
            self.rules.push(entry);
        } else {
            self.rules[idx] = entry;
        }
        self.retire_unused()
    }

    /// Remove the rule of (`gid`, `qpn`) (its packets fall back to the default policy).
    ///
    /// # Errors
    /// [`Error::Engine`] on a bus error.
    pub fn remove(&mut self, gid: &Gid, qpn: u32) -> Result<()> {
        let Some(idx) = self
            .rules
            .iter()
            .position(|r| (r.rule.gid, r.rule.qpn) == (*gid, qpn))
        else {
            return Ok(());
        };
        // keep the table dense: move the last entry into the hole, then clear the last
        let last = self.rules.len() - 1;
        if idx != last {
            let r = self.rules[last].clone();
            let w = self.rule_writes(idx, &r)?;
            self.write(&w)?;
            self.rules[idx] = r;
        }
        let base = regmap::POLICY + regmap::POLICY_STRIDE * last as u16;
        self.write(&[RegWrite {
            addr: base,
            data: 0,
        }])?;
        self.rules.pop();
        self.retire_unused()
    }

    /// Release the RX QP state of (`gid`, `qpn`) on a verify engine (on QP destroy), so that the
    /// engine's QP state table (a fixed number of entries, docs/rtl/tops.md) does not fill with
    /// QPs that are gone; then remove its rule, if it has one ([`remove`](Self::remove)).
    /// Frames the engine decided before the release still commit; later ones meet a new QP
    /// (`regmap::qp_release_writes`, model `Verifier::release_qp`).
    ///
    /// The replay window goes with the state: a frame sent to the QP before the release
    /// would verify once more. So a QP made again on (`gid`, `qpn`) must have a new key: a
    /// rule with a new generation ([`install`](Self::install) refuses the released one) or,
    /// for a QP under the default policy, a new epoch of its PD (docs/threat-model.md).
    ///
    /// # Errors
    /// [`Error::Engine`] on a protect (TX) engine (TX state is never released: a new entry
    /// would number PNs from 1 again under the same key), for a QPN above 24 bits, or on a
    /// bus error.
    pub fn release_qp(&mut self, gid: &Gid, qpn: u32) -> Result<()> {
        if !self.rx {
            return Err(Error::Engine(
                "release_qp releases RX QP state on a receiver; this engine drives a protect \
                 top, whose QP state is never released (its PNs would start again)"
                    .into(),
            ));
        }
        let w = regmap::qp_release_writes(gid, qpn)
            .map_err(|e| Error::Engine(format!("release of QP {qpn:#x}: {e}")))?;
        self.write(&w)?;
        if let Some(r) = self
            .rules
            .iter()
            .find(|r| (r.rule.gid, r.rule.qpn) == (*gid, qpn))
        {
            let k = (r.rule.gid, r.rule.qpn, r.rule.pd, r.rule.gen);
            self.released.insert(k);
            self.remove(gid, qpn)?;
        }
        Ok(())
    }

    /// Receiver step 1 of a rotation of protection domain `pd` to `epoch`: install
    /// K_pd(pd, epoch) beside the current key and set next_epoch in word 0 of every policy of
    /// `pd` at `epoch - 1` (one write each). Every QP of those policies, running or new, then
    /// accepts `epoch` as well; its first authenticated packet under it promotes the QP
    /// (docs/register-map.md, epoch rotation). Call it on every receiver before any sender
    /// calls [`rotate`](Self::rotate).
    ///
    /// # Errors
    /// [`Error::Engine`] on a protect (TX) engine, when no PD key slot is free, or on a bus
    /// error.
    pub fn accept_next(&mut self, keys: &SessionKeys, pd: u32, epoch: u8) -> Result<()> {
        if !self.rx {
            return Err(Error::Engine(
                "accept_next is a receiver step; this engine drives a protect top (Engine::new)"
                    .into(),
            ));
        }
        self.ensure_slot(keys, pd, epoch)?;
        let prev = epoch.wrapping_sub(1);
        for i in 0..self.rules.len() {
            let r = &self.rules[i];
            if r.rule.pd == pd && r.rule.mode != Mode::Bypass && r.epoch == prev && !r.next {
                self.rules[i].next = true;
                self.write_word0(Some(i))?;
            }
        }
        let d = &self.default;
        if d.pd == pd && d.mode != Mode::Bypass && d.epoch == prev && !d.next_epoch {
            self.default.next_epoch = true;
            self.write_word0(None)?;
        }
        Ok(())
    }

    /// Switch protection domain `pd` to `epoch` (make-before-break, no QP teardown): install
    /// K_pd(pd, epoch) if it is not there, then rewrite word 0 of every policy of `pd` (and of
    /// the default policy if it is `pd`'s) with `epoch` and next_epoch clear, one write each.
    /// On a sender this is step 2 of docs/register-map.md (every later frame uses `epoch`,
    /// PNs go on); on a receiver step 3 (receivers must have run
    /// [`accept_next`](Self::accept_next) before any sender rotates). The old keys stay until
    /// [`retire`](Self::retire): frames under the old epoch may still be in flight.
    ///
    /// # Errors
    /// [`Error::Engine`] when no PD key slot is free for the new epoch, or on a bus error.
    pub fn rotate(&mut self, keys: &SessionKeys, pd: u32, epoch: u8) -> Result<()> {
        self.ensure_slot(keys, pd, epoch)?;
        for i in 0..self.rules.len() {
            let r = &self.rules[i];
            if r.rule.pd == pd && (r.epoch != epoch || r.next) {
                self.rules[i].epoch = epoch;
                self.rules[i].next = false;
                self.write_word0(Some(i))?;
            }
        }
        let d = &self.default;
        if d.pd == pd && (d.epoch != epoch || d.next_epoch) {
            self.default.epoch = epoch;
            self.default.next_epoch = false;
            self.write_word0(None)?;
        }
        Ok(())
    }

    /// Step 4 of a rotation: remove the PD keys no policy uses any more. Call it once no
    /// frame under the old epoch is in flight (one maximum frame time after the last
    /// [`rotate`](Self::rotate) on every sender): a frame whose (PD, epoch) has no key is
    /// rejected as unknown-key.
    ///
    /// # Errors
    /// [`Error::Engine`] on a bus error.
    pub fn retire(&mut self) -> Result<()> {
        self.retire_unused()
    }

    /// The engine's counters (`docs/register-map.md`).
    ///
    /// # Errors
    /// [`Error::Engine`] on a bus error.
    pub fn counters(&mut self) -> Result<Counters> {
        regmap::read_counters(&mut self.bus).map_err(bus_err)
    }

    /// A verify engine's drop counters (store-and-forward rejections, oversize frames;
    /// `docs/register-map.md`).
    ///
    /// # Errors
    /// [`Error::Engine`] on a protect (TX) engine, or on a bus error.
    pub fn rx_drops(&mut self) -> Result<regmap::RxDrops> {
        if !self.rx {
            return Err(Error::Engine(
                "rx_drops reads verify-top counters; this engine drives a protect top".into(),
            ));
        }
        regmap::read_rx_drops(&mut self.bus).map_err(bus_err)
    }

    /// (PD, epoch) of each PD key slot, as programmed.
    pub fn slots(&self) -> &[Option<(u32, u8)>] {
        &self.slots
    }

    /// The bus (e.g. to run traffic on a simulated engine between calls).
    pub fn bus_mut(&mut self) -> &mut B {
        &mut self.bus
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// A register file that records every write in order.
    #[derive(Default)]
    struct Log {
        regs: BTreeMap<u16, u32>,
        writes: Vec<(u16, u32)>,
    }
    impl RegBus for Log {
        type Error = ();
        fn write32(&mut self, a: u16, d: u32) -> std::result::Result<(), ()> {
            self.regs.insert(a, d);
            self.writes.push((a, d));
            Ok(())
        }
        fn read32(&mut self, a: u16) -> std::result::Result<u32, ()> {
            Ok(self.regs.get(&a).copied().unwrap_or(0))
        }
    }

    fn keys() -> SessionKeys {
        SessionKeys::new(&[7u8; 32], 16).expect("keys")
    }

    fn rule(qpn: u32, pd: u32) -> QpRule {
        QpRule {
            gid: rocesec_model::keys::gid_of([10, 0, 0, 2].into()),
            qpn,
            mode: Mode::Aead,
            pd,
            gen: 1,
        }
    }

    fn bypass() -> QpPolicy {
        QpPolicy {
            mode: Mode::Bypass,
            pd: 1,
            gen: 0,
            epoch: 0,
            next_epoch: false,
        }
    }

    #[test]
    fn rotation_installs_the_new_key_before_switching_and_retire_removes_the_old() {
        let k = keys();
        let mut e = Engine::new(Log::default(), &k, bypass()).expect("new");
        e.install(&k, rule(0x11, 5), 0).expect("install");
        e.install(&k, rule(0x12, 5), 0).expect("install");
        assert_eq!(e.slots()[0], Some((5, 0)));
        let mark = e.bus.writes.len();
        e.rotate(&k, 5, 1).expect("rotate");
        let w = &e.bus.writes[mark..];
        let slot1_valid = w
            .iter()
            .position(|&(a, d)| a == regmap::PD + regmap::PD_STRIDE && d == (1 << 31) | 1)
            .expect("slot 1 made valid");
        let switches: Vec<_> = w
            .iter()
            .enumerate()
            .filter(|(_, &(a, d))| {
                (a == regmap::POLICY || a == regmap::POLICY + regmap::POLICY_STRIDE)
                    && d >> 31 == 1
                    && (d >> 16) & 0xFF == 1
            })
            .map(|(i, _)| i)
            .collect();
        assert_eq!(switches.len(), 2, "one word-0 write per policy");
        assert!(slot1_valid < switches[0]);
        assert!(
            !w.iter().any(|&(a, d)| a == regmap::PD && d == 0),
            "the old key stays until retire (frames under epoch 0 may be in flight)"
        );
        assert_eq!(e.slots(), &[Some((5, 0)), Some((5, 1)), None, None]);
        let mark = e.bus.writes.len();
        e.retire().expect("retire");
        assert_eq!(e.bus.writes[mark], (regmap::PD, 0), "old slot cleared");
        // the new key in slot 1 is K_pd(5, 1)
        let want = k.pd(5, 1).expect("pd");
        let mut got = Vec::new();
        for wd in 0..4u16 {
            got.extend_from_slice(&e.bus.regs[&(regmap::PD + 0x20 + 16 + 4 * wd)].to_be_bytes());
        }
        assert_eq!(got, want.bytes());
        assert_eq!(e.slots(), &[None, Some((5, 1)), None, None]);
    }

    /// Word 0 writes to policy entry 0 / 1 after `mark`: (entry, epoch, next-epoch bit).
    fn word0s(e: &Engine<Log>, mark: usize) -> Vec<(u16, u32, bool)> {
        e.bus.writes[mark..]
            .iter()
            .filter(|&&(a, d)| {
                (a == regmap::POLICY || a == regmap::POLICY + regmap::POLICY_STRIDE) && d >> 31 == 1
            })
            .map(|&(a, d)| {
                (
                    (a - regmap::POLICY) / regmap::POLICY_STRIDE,
                    (d >> 16) & 0xFF,
                    d & regmap::NEXT_EPOCH != 0,
                )
            })
            .collect()
    }

    #[test]
    fn receiver_rotation_accepts_next_then_switches_then_retires() {
        let k = keys();
        let mut e = Engine::new_rx(Log::default(), &k, bypass(), true).expect("new_rx");
        assert_eq!(e.bus.writes[0], (regmap::CTRL, regmap::CTRL_STORE_FORWARD));
        e.install(&k, rule(0x11, 5), 0).expect("install");
        e.install(&k, rule(0x12, 5), 0).expect("install");

        // step 1: K_pd(5, 1) beside K_pd(5, 0), next_epoch set by one word-0 write each
        let mark = e.bus.writes.len();
        e.accept_next(&k, 5, 1).expect("accept_next");
        assert_eq!(e.slots(), &[Some((5, 0)), Some((5, 1)), None, None]);
        assert_eq!(word0s(&e, mark), [(0, 0, true), (1, 0, true)]);
        let w0_writes = e.bus.writes[mark..]
            .iter()
            .filter(|&&(a, _)| a >= regmap::POLICY && a < regmap::PD)
            .count();
        assert_eq!(w0_writes, 2, "only word 0 of each policy is written");
        // installing another QP must keep the accepted key: the policies use it
        e.install(&k, rule(0x13, 6), 0).expect("install");
        assert_eq!(e.slots()[1], Some((5, 1)), "epoch + 1 key kept");

        // step 3: the policies move to epoch 1, next_epoch clear; the old key stays
        let mark = e.bus.writes.len();
        e.rotate(&k, 5, 1).expect("rotate");
        assert_eq!(word0s(&e, mark), [(0, 1, false), (1, 1, false)]);
        assert_eq!(e.slots()[0], Some((5, 0)));
        // step 4
        e.retire().expect("retire");
        assert_eq!(e.slots()[..2], [None, Some((5, 1))]);
        assert_eq!(e.slots().iter().flatten().count(), 2, "PD 6's key stays");
    }

    #[test]
    fn accept_next_is_refused_on_a_sender() {
        let k = keys();
        let mut e = Engine::new(Log::default(), &k, bypass()).expect("new");
        e.install(&k, rule(0x11, 5), 0).expect("install");
        let n = e.bus.writes.len();
        let err = e.accept_next(&k, 5, 1).expect_err("TX engine");
        assert!(err.to_string().contains("receiver"), "{err}");
        assert_eq!(e.bus.writes.len(), n, "nothing written");
    }

    #[test]
    fn a_released_qp_comes_back_only_with_a_new_generation() {
        let k = keys();
        let mut tx = Engine::new(Log::default(), &k, bypass()).expect("new");
        let r = rule(0x11, 5);
        let err = tx.release_qp(&r.gid, r.qpn).expect_err("TX engine");
        assert!(err.to_string().contains("never released"), "{err}");
        let mut rx = Engine::new_rx(Log::default(), &k, bypass(), false).expect("new");
        rx.install(&k, r.clone(), 0).expect("install");
        let n = rx.bus.writes.len();
        rx.release_qp(&r.gid, r.qpn).expect("release");
        let w = regmap::qp_release_writes(&r.gid, r.qpn).expect("writes");
        let written: Vec<(u16, u32)> = w.iter().map(|x| (x.addr, x.data)).collect();
        assert_eq!(
            rx.bus.writes[n..n + w.len()],
            written[..],
            "release block first"
        );
        assert_eq!(rx.bus.regs[&regmap::POLICY], 0, "its rule removed");
        let err = rx.install(&k, r.clone(), 0).expect_err("same generation");
        assert!(err.to_string().contains("new generation"), "{err}");
        let mut r2 = r.clone();
        r2.gen += 1;
        rx.install(&k, r2, 0).expect("new generation");
        let err = rx.release_qp(&r.gid, 1 << 24).expect_err("25-bit QPN");
        assert!(err.to_string().contains("qpn"), "{err}");
    }

    #[test]
    fn table_limits_are_errors_not_silent_drops() {
        let k = keys();
        let mut e = Engine::new(Log::default(), &k, bypass()).expect("new");
        for pd in 0..4 {
            e.install(&k, rule(0x20 + pd, pd), 0).expect("fits");
        }
        let err = e.install(&k, rule(0x30, 9), 0).expect_err("5th PD key");
        assert!(err.to_string().contains("PD key slots"), "{err}");
        for q in 4..8 {
            e.install(&k, rule(0x20 + q, 0), 0).expect("fits");
        }
        let err = e.install(&k, rule(0x40, 0), 0).expect_err("9th policy");
        assert!(err.to_string().contains("policy entries"), "{err}");
        // removing one frees its entry; the moved entry stays valid
        e.remove(&rule(0x20, 0).gid, 0x20).expect("remove");
        e.install(&k, rule(0x40, 0), 0).expect("fits again");
        let big = SessionKeys::new(&[7u8; 32], 32).expect("keys");
        let mut e = Engine::new(Log::default(), &k, bypass()).expect("new");
        let err = e.install(&big, rule(0x50, 1), 0).expect_err("AES-256");
        assert!(err.to_string().contains("AES-128"), "{err}");
    }
}
