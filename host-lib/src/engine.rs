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
//! in host memory. Rotation is make-before-break ([`Engine::rotate`]): the new epoch's PD key is
//! installed, then each policy of the PD switches epoch with one register write, then the old
//! key is removed; no QP is torn down.

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

/// An engine behind a register bus, with the table state this driver has written.
pub struct Engine<B: RegBus> {
    bus: B,
    default: QpPolicy,
    /// (PD, epoch) held by each PD key slot.
    slots: [Option<(u32, u8)>; regmap::NUM_PD],
    /// Policy entries in use: rule and its current epoch.
    rules: Vec<(QpRule, u8)>,
}

fn bus_err<E: fmt::Debug>(e: E) -> Error {
    Error::Engine(format!("register bus: {e:?}"))
}

impl<B: RegBus> Engine<B>
where
    B::Error: fmt::Debug,
{
    /// Take over an engine after reset: program `default` (the policy of QPs without a rule)
    /// and its PD key.
    ///
    /// # Errors
    /// [`Error::Engine`] for a bus error or a key size other than AES-128.
    pub fn new(bus: B, keys: &SessionKeys, default: QpPolicy) -> Result<Self> {
        let mut e = Self {
            bus,
            default,
            slots: [None; regmap::NUM_PD],
            rules: Vec::new(),
        };
        if e.default.mode != Mode::Bypass {
            e.ensure_slot(keys, e.default.pd, e.default.epoch)?;
        }
        let w = regmap::policy_writes(regmap::DEFAULT, &[0; 16], 0, &e.default)
            .map_err(|x| Error::Engine(x.to_string()))?;
        e.write(&w)?;
        Ok(e)
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

    /// Remove PD key slots no policy uses any more.
    fn retire_unused(&mut self) -> Result<()> {
        for j in 0..regmap::NUM_PD {
            let Some((pd, ep)) = self.slots[j] else {
                continue;
            };
            let used = (self.default.mode != Mode::Bypass
                && (self.default.pd, self.default.epoch) == (pd, ep))
                || self
                    .rules
                    .iter()
                    .any(|(r, e)| (r.pd, *e) == (pd, ep) && r.mode != Mode::Bypass);
            if !used {
                self.write(&regmap::pd_slot_clear(j))?;
                self.slots[j] = None;
            }
        }
        Ok(())
    }

    fn rule_writes(idx: usize, r: &QpRule, epoch: u8) -> Result<Vec<RegWrite>> {
        let p = QpPolicy {
            mode: r.mode,
            pd: r.pd,
            gen: r.gen,
            epoch,
            next_epoch: false,
        };
        let base = regmap::POLICY + regmap::POLICY_STRIDE * idx as u16;
        regmap::policy_writes(base, &r.gid, r.qpn, &p).map_err(|e| Error::Engine(e.to_string()))
    }

    /// Install (or replace) the rule of (`rule.gid`, `rule.qpn`) under `epoch`.
    ///
    /// # Errors
    /// [`Error::Engine`] when the policy table or the PD key slots are full, or on a bus error.
    pub fn install(&mut self, keys: &SessionKeys, rule: QpRule, epoch: u8) -> Result<()> {
        let idx = match self
            .rules
            .iter()
            .position(|(r, _)| (r.gid, r.qpn) == (rule.gid, rule.qpn))
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
        let w = Self::rule_writes(idx, &rule, epoch)?;
        self.write(&w)?;
        if idx == self.rules.len() {
            self.rules.push((rule, epoch));
        } else {
            self.rules[idx] = (rule, epoch);
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
            .position(|(r, _)| (r.gid, r.qpn) == (*gid, qpn))
        else {
            return Ok(());
        };
        // keep the table dense: move the last entry into the hole, then clear the last
        let last = self.rules.len() - 1;
        if idx != last {
            let (r, e) = self.rules[last].clone();
            let w = Self::rule_writes(idx, &r, e)?;
            self.write(&w)?;
            self.rules[idx] = (r, e);
        }
        let base = regmap::POLICY + regmap::POLICY_STRIDE * last as u16;
        self.write(&[RegWrite {
            addr: base,
            data: 0,
        }])?;
        self.rules.pop();
        self.retire_unused()
    }

    /// Rotate protection domain `pd` to `epoch` (make-before-break, no QP teardown): install
    /// K_pd(pd, epoch), switch every policy of `pd` (and the default policy if it is `pd`'s)
    /// with one word-0 write each, then remove the keys no policy uses. Receivers must accept
    /// `epoch` before this is called (docs/key-hierarchy.md, epochs).
    ///
    /// # Errors
    /// [`Error::Engine`] when no PD key slot is free for the new epoch, or on a bus error.
    pub fn rotate(&mut self, keys: &SessionKeys, pd: u32, epoch: u8) -> Result<()> {
        self.ensure_slot(keys, pd, epoch)?;
        for i in 0..self.rules.len() {
            if self.rules[i].0.pd == pd && self.rules[i].1 != epoch {
                let r = self.rules[i].0.clone();
                let w = Self::rule_writes(i, &r, epoch)?;
                // only word 0 changes: write it alone (atomic switch per frame)
                let w0 = *w
                    .last()
                    .ok_or_else(|| Error::Engine("empty policy write".into()))?;
                self.write(&[w0])?;
                self.rules[i].1 = epoch;
            }
        }
        if self.default.pd == pd && self.default.epoch != epoch {
            self.default.epoch = epoch;
            let w = regmap::policy_writes(regmap::DEFAULT, &[0; 16], 0, &self.default)
                .map_err(|x| Error::Engine(x.to_string()))?;
            let w0 = *w
                .last()
                .ok_or_else(|| Error::Engine("empty policy write".into()))?;
            self.write(&[w0])?;
        }
        self.retire_unused()
    }

    /// The engine's counters (`docs/register-map.md`).
    ///
    /// # Errors
    /// [`Error::Engine`] on a bus error.
    pub fn counters(&mut self) -> Result<Counters> {
        regmap::read_counters(&mut self.bus).map_err(bus_err)
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
    fn rotation_installs_the_new_key_before_switching_and_retires_the_old_after() {
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
        let cleared = w
            .iter()
            .position(|&(a, d)| a == regmap::PD && d == 0)
            .expect("old slot cleared");
        assert!(slot1_valid < switches[0] && switches[1] < cleared);
        // the new key in slot 1 is K_pd(5, 1)
        let want = k.pd(5, 1).expect("pd");
        let mut got = Vec::new();
        for wd in 0..4u16 {
            got.extend_from_slice(&e.bus.regs[&(regmap::PD + 0x20 + 16 + 4 * wd)].to_be_bytes());
        }
        assert_eq!(got, want.bytes());
        assert_eq!(e.slots(), &[None, Some((5, 1)), None, None]);
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
