//! Co-simulation of `rtl/top/rocesec_key_tables.sv` (stage `key`: the policy table and the PD
//! key slots of both key stages) against a reference written here from the module header: the
//! register map (policy words 0-7, PD slot words 0-7), the policy lookup of
//! `model/src/keys.rs` `KeyStore::policy` as a table (the first valid entry matching the dest GID
//! and QPN, lowest index, else the default policy), the PD slot match (valid, PD and epoch: the
//! policy's for TX, the packet's for RX) and the D2 key of the lowest selected slot. The last
//! test ties the reference to the model itself: a key file programmed through
//! `regmap::{tx,rx}_program` looks up what `KeyStore::policy` and `keys::pd_key` answer.
//!
//! The driver is a copy of the callers' stage D (`rocesec_verify_key.sv`,
//! `rocesec_protect_key.sv`): a header is held in D (`pol_hold_i` = `d_valid_q`), enters on
//! `pol_load_i` = `ld` when D is empty or decides (`dec_take`), and decides only when its D1
//! results were registered in a cycle with `tbl_stale_o` low (`d1_ok_q`), so it never loads
//! while holding a header in the cycle after a table write. Both variants are tested: TX
//! (`EpochFromPolicy` = 1) and RX (0). `ROCESEC_SEED` changes the stimulus.
#![allow(clippy::unwrap_used)]

use rocesec_cosim::rtl::key_tables::{KeyTables, TablesIn, TablesOut, NUM_PD_SLOTS, NUM_POLICIES};
use rocesec_cosim::rtl::{seed, SplitMix64};
use rocesec_model::keys::{gid_of, pd_key, Gid, KeyFile, KeyStore};
use rocesec_model::regmap::{self, RegWrite, DEFAULT, PD, PD_STRIDE, POLICY, POLICY_STRIDE};

// ---------------------------------------------------------------------------------------------
// Reference: the tables as the module header defines them
// ---------------------------------------------------------------------------------------------

/// A policy entry (or the default policy, whose valid bit, QPN and GID are unused).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Pol {
    valid: bool,
    next: bool,
    mode: u8,
    epoch: u8,
    qpn: u32,
    pd: u32,
    generation: u32,
    gid: Gid,
}

/// A PD key slot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Slot {
    valid: bool,
    epoch: u8,
    pd: u32,
    key: [u8; 16],
}

/// The register contents after reset: everything zero and invalid.
#[derive(Clone, Debug, Default)]
struct Tables {
    dflt: Pol,
    pol: [Pol; NUM_POLICIES],
    slot: [Slot; NUM_PD_SLOTS],
}

/// Byte address range of the policy entries and PD slots that exist.
fn pol_index(addr: u16) -> Option<usize> {
    let i = usize::from(addr.checked_sub(POLICY)? / POLICY_STRIDE);
    (i < NUM_POLICIES).then_some(i)
}

fn slot_index(addr: u16) -> Option<usize> {
    let j = usize::from(addr.checked_sub(PD)? / PD_STRIDE);
    (j < NUM_PD_SLOTS).then_some(j)
}

/// A write to the policy or PD slot region (0x0000-0x07FF): the lookups are stale.
fn is_table_write(w: &RegWrite) -> bool {
    w.addr < 0x0800
}

/// A write to the PD slot region (0x0400-0x07FF): `pd_write_o`.
fn is_pd_write(w: &RegWrite) -> bool {
    (0x0400..0x0800).contains(&w.addr)
}

fn put_word(v: &mut [u8; 16], word: usize, d: u32) {
    // words 4..7 = bytes 0-3 .. 12-15, big-endian
    v[4 * (word - 4)..4 * (word - 3)].copy_from_slice(&d.to_be_bytes());
}

impl Tables {
    /// Apply one register write as the register map of the module header says.
    fn write(&mut self, w: &RegWrite) {
        let word = usize::from((w.addr >> 2) & 7);
        let d = w.data;
        if w.addr < DEFAULT + 0x20 {
            let p = &mut self.dflt;
            match word {
                0 => {
                    p.next = (d >> 26) & 1 == 1;
                    p.mode = ((d >> 24) & 3) as u8;
                    p.epoch = (d >> 16) as u8;
                }
                2 => p.pd = d,
                3 => p.generation = d & 0xFF_FFFF,
                _ => {}
            }
        } else if let Some(i) = pol_index(w.addr) {
            let p = &mut self.pol[i];
            match word {
                0 => {
                    p.valid = d >> 31 == 1;
                    p.next = (d >> 26) & 1 == 1;
                    p.mode = ((d >> 24) & 3) as u8;
                    p.epoch = (d >> 16) as u8;
                }
                1 => p.qpn = d & 0xFF_FFFF,
                2 => p.pd = d,
                3 => p.generation = d & 0xFF_FFFF,
                _ => put_word(&mut p.gid, word, d),
            }
        } else if let Some(j) = slot_index(w.addr) {
            let s = &mut self.slot[j];
            match word {
                0 => {
                    s.valid = d >> 31 == 1;
                    s.epoch = d as u8;
                }
                2 => s.pd = d,
                1 | 3 => {}
                _ => put_word(&mut s.key, word, d),
            }
        }
    }

    /// `KeyStore::policy` as a table: the first valid entry for (`gid`, `qpn`), lowest index,
    /// else the default (`None`).
    fn lookup(&self, gid: &Gid, qpn: u32) -> (Option<usize>, Pol) {
        self.pol
            .iter()
            .position(|p| p.valid && p.gid == *gid && p.qpn == qpn)
            .map_or((None, self.dflt), |i| (Some(i), self.pol[i]))
    }

    /// The valid slots with the policy's PD and the given epoch.
    fn pd_match(&self, p: &Pol, epoch: u8) -> u8 {
        self.slot
            .iter()
            .enumerate()
            .filter(|(_, s)| s.valid && s.pd == p.pd && s.epoch == epoch)
            .fold(0, |m, (j, _)| m | (1 << j))
    }

    /// The key of the lowest slot of `sel`, if any.
    fn sel_key(&self, sel: u8) -> Option<[u8; 16]> {
        (0..NUM_PD_SLOTS)
            .find(|&j| sel >> j & 1 == 1)
            .map(|j| self.slot[j].key)
    }
}

/// A header's identity as the tables see it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Hdr {
    gid: Gid,
    qpn: u32,
    /// The packet's key epoch (RX: `pd_epoch_i`).
    epoch: u8,
}

/// What the outputs must be for `h` against table `t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Want {
    idx: Option<usize>,
    mode: u8,
    epoch: u8,
    next: bool,
    pd: u32,
    generation: u32,
    pd_match: u8,
}

fn want(t: &Tables, h: &Hdr, tx: bool) -> Want {
    let (idx, p) = t.lookup(&h.gid, h.qpn);
    Want {
        idx,
        mode: p.mode,
        epoch: p.epoch,
        next: p.next,
        pd: p.pd,
        generation: p.generation,
        pd_match: t.pd_match(&p, if tx { p.epoch } else { h.epoch }),
    }
}

/// The policy outputs and `pd_match_o` of `o` against `w`.
fn check_pol(o: &TablesOut, w: &Want, what: &dyn Fn() -> String) {
    let got = (o.mode, o.epoch, o.next, o.pd, o.generation);
    let exp = (w.mode, w.epoch, w.next, w.pd, w.generation);
    assert_eq!(
        got,
        exp,
        "{}: (mode, epoch, next, pd, gen) of entry {:?}",
        what(),
        w.idx
    );
    assert_eq!(
        o.pd_match,
        w.pd_match,
        "{}: pd_match_o (entry {:?})",
        what(),
        w.idx
    );
}

// ---------------------------------------------------------------------------------------------
// Stimulus
// ---------------------------------------------------------------------------------------------

/// A few identities, so that entries collide (duplicates: the lowest index must win) and a
/// single register write (QPN, GID word 7, word 0's valid bit) moves a header between entries.
const QPNS: [u32; 3] = [0x11, 0x12, 0xAB_CDEF];
const PDS: [u32; 3] = [1, 2, 0x8000_0003];
const EPOCHS: [u8; 3] = [0, 1, 0xFE];

/// IPv4-mapped GIDs ::ffff:10.0.0.x: they differ in bytes 12-15 (word 7) only.
fn gid_v4(x: u8) -> Gid {
    gid_of([10, 0, 0, x].into())
}

fn pick<T: Copy>(r: &mut SplitMix64, v: &[T]) -> T {
    v[r.below(v.len() as u64) as usize]
}

fn rand_gid(r: &mut SplitMix64) -> Gid {
    if r.chance(1, 8) {
        r.block()
    } else {
        gid_v4(1 + r.below(3) as u8)
    }
}

fn rand_qpn(r: &mut SplitMix64) -> u32 {
    if r.chance(1, 8) {
        r.next_u64() as u32 & 0xFF_FFFF
    } else {
        pick(r, &QPNS)
    }
}

fn word0_pol(valid: bool, r: &mut SplitMix64) -> u32 {
    // junk in the unused bits 30:27 and 15:0 must be ignored
    (u32::from(valid) << 31)
        | (r.next_u64() as u32 & 0x7FFF_FFFF & !0x00FF_0000)
        | (u32::from(pick(r, &EPOCHS)) << 16)
}

fn word0_slot(valid: bool, r: &mut SplitMix64) -> u32 {
    (u32::from(valid) << 31) | (r.next_u64() as u32 & 0x7FFF_FF00) | u32::from(pick(r, &EPOCHS))
}

fn gid_words(g: &Gid) -> [u32; 4] {
    core::array::from_fn(|w| u32::from_be_bytes(g[4 * w..4 * w + 4].try_into().unwrap()))
}

/// A full random program: the default policy, every entry (some invalid, some duplicated) and
/// every slot, each entry with word 0 last as a driver writes it (regmap).
fn rand_program(r: &mut SplitMix64) -> Vec<RegWrite> {
    let wr = |addr: u16, data: u32| RegWrite { addr, data };
    let mut v = vec![
        wr(DEFAULT, word0_pol(false, r)),
        wr(DEFAULT + 8, pick(r, &PDS)),
        wr(DEFAULT + 12, r.next_u64() as u32),
    ];
    for i in 0..NUM_POLICIES {
        let b = POLICY + POLICY_STRIDE * i as u16;
        v.push(wr(b, 0));
        // some entries copy an earlier one's identity: duplicates
        let (gid, qpn) = if i > 0 && r.chance(1, 3) {
            let k = r.below(i as u64) as usize;
            let words: Vec<u32> = v
                .iter()
                .filter(|w| w.addr >= POLICY + POLICY_STRIDE * k as u16 + 4)
                .filter(|w| w.addr < POLICY + POLICY_STRIDE * k as u16 + 0x20)
                .map(|w| w.data)
                .collect();
            // words 1..7 of entry k, in order (written once each above)
            let mut g = [0u8; 16];
            for w in 0..4 {
                put_word(&mut g, w + 4, words[3 + w]);
            }
            (g, words[0])
        } else {
            (rand_gid(r), rand_qpn(r))
        };
        v.push(wr(b + 4, qpn));
        v.push(wr(b + 8, pick(r, &PDS)));
        v.push(wr(b + 12, r.next_u64() as u32));
        for (w, d) in gid_words(&gid).into_iter().enumerate() {
            v.push(wr(b + 16 + 4 * w as u16, d));
        }
        let valid = !r.chance(1, 4);
        v.push(wr(b, word0_pol(valid, r)));
    }
    for j in 0..NUM_PD_SLOTS {
        let b = PD + PD_STRIDE * j as u16;
        v.push(wr(b, 0));
        v.push(wr(b + 8, pick(r, &PDS)));
        for w in 0..4u16 {
            v.push(wr(b + 16 + 4 * w, r.next_u64() as u32));
        }
        let valid = !r.chance(1, 5);
        v.push(wr(b, word0_slot(valid, r)));
    }
    v
}

/// One random register write: any word of any entry, slot or the default, with values from the
/// small identity sets; now and then an address with no register (inside the table region or
/// outside it) or junk in the byte-offset bits.
fn rand_write(r: &mut SplitMix64) -> RegWrite {
    let (base, word) = match r.below(16) {
        0 => (DEFAULT, pick(r, &[0u16, 2, 3])),
        1 => (
            pick(r, &[0x0040u16, 0x00E0, 0x0500, 0x07E0, 0x0800, 0x0C00]),
            0,
        ),
        2..=4 => (
            PD + PD_STRIDE * r.below(NUM_PD_SLOTS as u64) as u16,
            r.below(8) as u16,
        ),
        _ => (
            POLICY + POLICY_STRIDE * r.below(NUM_POLICIES as u64) as u16,
            pick(r, &[0u16, 0, 0, 1, 1, 1, 2, 3, 4, 7, 7, 7]),
        ),
    };
    let slot = (PD..PD + PD_STRIDE * NUM_PD_SLOTS as u16).contains(&base);
    let data = match (slot, word) {
        (false, 0) => word0_pol(!r.chance(1, 3), r),
        (false, 1) => rand_qpn(r),
        (_, 2) => pick(r, &PDS),
        (false, 7) if r.chance(3, 4) => gid_words(&gid_v4(1 + r.below(3) as u8))[3],
        (true, 0) => word0_slot(!r.chance(1, 4), r),
        _ => r.next_u64() as u32,
    };
    let junk = if r.chance(1, 16) {
        r.below(4) as u16
    } else {
        0
    };
    RegWrite {
        addr: base + 4 * word + junk,
        data,
    }
}

/// A header: often the identity of an entry (valid or not), else from the identity sets or
/// random; the packet's epoch often one a slot has.
fn rand_hdr(r: &mut SplitMix64, t: &Tables) -> Hdr {
    let (gid, qpn) = if r.chance(1, 2) {
        let p = t.pol[r.below(NUM_POLICIES as u64) as usize];
        (p.gid, p.qpn)
    } else {
        (rand_gid(r), rand_qpn(r))
    };
    let epoch = if r.chance(3, 4) {
        t.slot[r.below(NUM_PD_SLOTS as u64) as usize].epoch
    } else {
        r.next_u64() as u8
    };
    Hdr { gid, qpn, epoch }
}

// ---------------------------------------------------------------------------------------------
// The caller: stage D of rocesec_verify_key / rocesec_protect_key
// ---------------------------------------------------------------------------------------------

/// Counters of what a run checked (each test asserts that its case was exercised).
#[derive(Debug, Default)]
struct Seen {
    /// Policy outputs checked with a header held and `tbl_stale_o` low.
    pol: u64,
    /// ... of them in the cycle right after the header's load.
    after_load: u64,
    /// ... of them with the header's entry changed by a table write since its load cycle (the
    /// match registered at the load is out of date).
    rematch: u64,
    /// ... of them with the selected entry duplicated further up (the lowest index won).
    dup: u64,
    /// ... of them with the default policy.
    dflt: u64,
    /// ... of them with some PD slot matching.
    slot_hit: u64,
    /// Decisions (D1 results registered unstale, D2 key read).
    decisions: u64,
    /// Table writes.
    writes: u64,
}

/// What the driver saw at a decision: D1's registered results and the cycle's outputs (D2).
#[derive(Clone, Copy, Debug)]
struct Decision {
    hdr: Hdr,
    p1: TablesOut,
    out: TablesOut,
}

/// The test driver, a copy of the key stages' stage D (`d_valid_q`, `d_q`, `d1_ok_q`,
/// `p1_*_q`, `dec_take`, `ld`) around the DUT, checking every cycle against [`Tables`].
struct Caller {
    dut: KeyTables,
    tx: bool,
    /// The DUT's registers as they are in the current cycle.
    t: Tables,
    /// `d_valid_q`.
    d_valid: bool,
    /// `d_q`: the header in D (kept after its decision, as the RTL's `d_q` is).
    d: Hdr,
    /// The entry `d` matched in its load cycle (against the table of that cycle).
    d_load_idx: Option<usize>,
    /// `d1_ok_q`.
    d1_ok: bool,
    /// `p1_*_q`: the policy outputs and `pd_match_o` registered while a header was held.
    p1: TablesOut,
    /// A table write in the cycle before.
    wrote_q: bool,
    cycle: u64,
    load_cycle: u64,
    /// The last cycle whose policy outputs were checked.
    last_check: Option<u64>,
    last_decision: Option<Decision>,
    seen: Seen,
    ctx: &'static str,
}

impl Caller {
    fn new(tx: bool, ctx: &'static str) -> Self {
        Self {
            dut: KeyTables::new(tx),
            tx,
            t: Tables::default(),
            d_valid: false,
            d: Hdr::default(),
            d_load_idx: None,
            d1_ok: false,
            p1: TablesOut::default(),
            wrote_q: false,
            cycle: 0,
            load_cycle: 0,
            last_check: None,
            last_decision: None,
            seen: Seen::default(),
            ctx,
        }
    }

    fn what(&self, s: &str) -> String {
        format!(
            "{} ({}): cycle {}: {s}; header (hex) {:x?} (loaded in cycle {}, held: {})",
            self.ctx,
            if self.tx { "TX" } else { "RX" },
            self.cycle,
            self.d,
            self.load_cycle,
            self.d_valid
        )
    }

    /// Stage D1 results are registered and were not stale: stage D can decide.
    fn can_decide(&self) -> bool {
        self.d_valid && self.d1_ok
    }

    /// One cycle: an optional register write, a header offered to stage D (it enters when D is
    /// empty or decides), and whether D decides if it can. Returns true if the header entered.
    fn cycle(&mut self, write: Option<RegWrite>, offer: Option<Hdr>, decide: bool) -> bool {
        let take = self.can_decide() && decide;
        let ld = offer.is_some() && (!self.d_valid || take);
        // the callers' protocol; it follows from d1_ok (a check of the driver, not a choice)
        assert!(
            !(ld && self.d_valid && self.wrote_q),
            "{}",
            self.what("driver: a load while holding a header in the cycle after a write")
        );
        let entering = offer.unwrap_or_default();
        let sel = self.p1.pd_match;
        let o = self.dut.drive(&TablesIn {
            write,
            load: ld,
            hold: self.d_valid,
            ld_gid: entering.gid,
            ld_qpn: entering.qpn,
            gid: self.d.gid,
            qpn: self.d.qpn,
            pd_epoch: self.d.epoch,
            pd_sel: sel,
        });
        let wrote = write.as_ref().is_some_and(is_table_write);
        assert_eq!(
            o.stale,
            wrote || self.wrote_q,
            "{}",
            self.what("tbl_stale_o")
        );
        assert_eq!(
            o.pd_write,
            write.as_ref().is_some_and(is_pd_write),
            "{}",
            self.what(&format!("pd_write_o of {write:x?}"))
        );
        // D2's slot mux reads the slots as they are: every cycle
        assert_eq!(o.pd_hit, sel != 0, "{}", self.what("pd_hit_o"));
        if let Some(k) = self.t.sel_key(sel) {
            let m = format!("pd_key_o of pd_sel_i {sel:#x}");
            assert_eq!(o.pd_key, k, "{}", self.what(&m));
        }
        // D1: a header held, nothing written in this cycle or the one before
        if self.d_valid && !o.stale {
            let w = want(&self.t, &self.d, self.tx);
            check_pol(&o, &w, &|| self.what("policy lookup of the header held"));
            self.last_check = Some(self.cycle);
            self.seen.pol += 1;
            self.seen.after_load += u64::from(self.cycle == self.load_cycle + 1);
            self.seen.rematch += u64::from(w.idx != self.d_load_idx);
            self.seen.dflt += u64::from(w.idx.is_none());
            self.seen.slot_hit += u64::from(w.pd_match != 0);
            if let Some(i) = w.idx {
                let d = &self.d;
                let dup = self.t.pol[i + 1..]
                    .iter()
                    .any(|p| p.valid && p.gid == d.gid && p.qpn == d.qpn);
                self.seen.dup += u64::from(dup);
            }
        }
        // the decision: D1's registered results and D2's key, both for the table as it is now
        // (d1_ok: nothing was written in the cycle D1 registered them nor in the one before)
        if take {
            let w = want(&self.t, &self.d, self.tx);
            check_pol(&self.p1, &w, &|| self.what("D1 results at the decision"));
            assert_eq!(o.pd_hit, w.pd_match != 0, "{}", self.what("D2 pd_hit_o"));
            if let Some(k) = self.t.sel_key(w.pd_match) {
                assert_eq!(o.pd_key, k, "{}", self.what("D2 pd_key_o"));
            }
            self.last_decision = Some(Decision {
                hdr: self.d,
                p1: self.p1,
                out: o,
            });
            self.seen.decisions += 1;
        }
        self.dut.tick();
        // the edge: the caller's registers and the tables
        let d1_ok = self.d_valid && !take && !ld && !o.stale;
        if self.d_valid {
            self.p1 = o;
        }
        let load_idx = self.t.lookup(&entering.gid, entering.qpn).0;
        if let Some(w) = &write {
            self.t.write(w);
            self.seen.writes += u64::from(wrote);
        }
        if ld {
            self.d = entering;
            self.d_valid = true;
            self.d_load_idx = load_idx;
            self.load_cycle = self.cycle;
        } else if take {
            self.d_valid = false;
        }
        self.d1_ok = d1_ok;
        self.wrote_q = wrote;
        self.cycle += 1;
        ld
    }

    /// Cycles with nothing offered, deciding when possible, until stage D is empty.
    fn drain(&mut self) {
        for _ in 0..8 {
            if !self.d_valid {
                return;
            }
            self.cycle(None, None, true);
        }
        panic!("{}", self.what("stage D did not decide"));
    }

    /// Offer `h` (deciding the header held when possible) until it enters; a write goes with
    /// the cycle it enters in.
    fn load(&mut self, h: Hdr, write: Option<RegWrite>) {
        for _ in 0..8 {
            if self.d_valid && !self.d1_ok {
                self.cycle(None, None, false);
                continue;
            }
            assert!(self.cycle(write, Some(h), true), "{}", self.what("load"));
            return;
        }
        panic!("{}", self.what("stage D did not take the header"));
    }

    /// Idle cycles (nothing offered, no decision).
    fn hold(&mut self, n: u64) {
        for _ in 0..n {
            self.cycle(None, None, false);
        }
    }

    /// Program the tables, with stage D empty.
    fn program(&mut self, writes: &[RegWrite]) {
        self.drain();
        for w in writes {
            self.cycle(Some(*w), None, true);
        }
    }
}

/// A write for the header `h` held in D that, most of the time, changes the entry `h` matches:
/// an entry's QPN or GID word 7 set to `h`'s, or its valid bit flipped; else any write.
fn targeted_write(r: &mut SplitMix64, t: &Tables, h: &Hdr) -> RegWrite {
    let idx0 = t.lookup(&h.gid, h.qpn).0;
    let cands: Vec<RegWrite> = (0..24)
        .map(|_| {
            if r.chance(1, 3) {
                return rand_write(r);
            }
            let i = r.below(NUM_POLICIES as u64) as usize;
            let b = POLICY + POLICY_STRIDE * i as u16;
            match r.below(3) {
                0 => RegWrite {
                    addr: b + 4,
                    data: h.qpn,
                },
                1 => RegWrite {
                    addr: b + 28,
                    data: gid_words(&h.gid)[3],
                },
                _ => RegWrite {
                    addr: b,
                    data: word0_pol(!t.pol[i].valid, r),
                },
            }
        })
        .collect();
    let moves = |w: &RegWrite| {
        let mut t2 = t.clone();
        t2.write(w);
        t2.lookup(&h.gid, h.qpn).0 != idx0
    };
    if r.chance(3, 4) {
        if let Some(w) = cands.iter().find(|w| moves(w)) {
            return *w;
        }
    }
    cands[0]
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

/// Random register programs (duplicated identities, invalid entries and slots, junk in unused
/// bits) and random headers loaded one after another, no writes while a header is held: the
/// policy fields and `pd_match_o` in every cycle a header is held (from the cycle after its
/// load), D1's registered results and D2's `pd_hit_o`/`pd_key_o` at each decision, and the
/// slot mux for every `pd_sel_i` value.
#[test]
fn random_programs_and_headers() {
    for tx in [true, false] {
        let mut r = SplitMix64::new(seed(0x6b74_0001) ^ u64::from(tx));
        let mut c = Caller::new(tx, "random_programs_and_headers");
        for _ in 0..150 {
            c.program(&rand_program(&mut r));
            // D2's mux over every selection, D empty (hold, decide nothing)
            for sel in 0..1u8 << NUM_PD_SLOTS {
                let o = c.dut.drive(&TablesIn {
                    pd_sel: sel,
                    ..TablesIn::default()
                });
                assert_eq!(o.pd_hit, sel != 0, "pd_hit_o of pd_sel_i {sel:#x}");
                if let Some(k) = c.t.sel_key(sel) {
                    assert_eq!(o.pd_key, k, "pd_key_o of pd_sel_i {sel:#x}");
                }
            }
            for _ in 0..40 {
                let h = rand_hdr(&mut r, &c.t);
                // the header held 1 to 4 cycles, often decided in the cycle the next one enters
                while c.d_valid && !(c.can_decide() && r.chance(2, 3)) {
                    c.cycle(None, None, false);
                }
                c.load(h, None);
            }
            c.drain();
        }
        let s = &c.seen;
        println!("{}: {s:?}", if tx { "TX" } else { "RX" });
        assert!(
            s.after_load >= 2000,
            "loads checked in the next cycle: {s:?}"
        );
        assert!(s.dup >= 100, "duplicate entries (lowest index wins): {s:?}");
        assert!(s.dflt >= 100, "default policy: {s:?}");
        assert!(s.slot_hit >= 500, "PD slot matches: {s:?}");
        assert!(s.decisions >= 2000, "decisions: {s:?}");
    }
}

/// The case `pol_hold_i` is for: a header loaded and then held while register writes (one or
/// several back to back, in the load cycle or 1, 2, 5, ... cycles after it) make an entry match
/// it, stop matching it or change which entry matches first. From the first cycle
/// `tbl_stale_o` is low again the outputs must be the new table's lookup of the header held,
/// and so must the D1 results its decision reads.
#[test]
fn held_header_sees_table_writes() {
    const OFFSETS: [&[u64]; 12] = [
        &[0],
        &[1],
        &[2],
        &[5],
        &[0, 1],
        &[1, 2],
        &[0, 1, 2],
        &[2, 3, 4],
        &[0, 2],
        &[1, 3],
        &[5, 6],
        &[0, 5],
    ];
    for tx in [true, false] {
        let mut r = SplitMix64::new(seed(0x6b74_0002) ^ u64::from(tx));
        let mut c = Caller::new(tx, "held_header_sees_table_writes");
        c.program(&rand_program(&mut r));
        let mut moved_episodes = 0u64;
        let episodes: u64 = 4000;
        for ep in 0..episodes {
            if ep % 200 == 199 {
                c.program(&rand_program(&mut r));
            }
            let offs: Vec<u64> = if ep % 4 == 3 {
                let mut v: Vec<u64> = (0..1 + r.below(3)).map(|_| r.below(7)).collect();
                v.sort_unstable();
                v.dedup();
                v
            } else {
                OFFSETS[(ep % OFFSETS.len() as u64) as usize].to_vec()
            };
            // D empty, or the header before decided in the load cycle
            if r.chance(1, 2) {
                c.drain();
                c.hold(r.below(3));
            }
            let h = rand_hdr(&mut r, &c.t);
            let last = *offs.last().unwrap();
            let quiet = 2 + r.below(4); // cycles after the last write: tbl_stale_o low from the 2nd
            let rematch0 = c.seen.rematch;
            for k in 0..=last + quiet {
                let w = offs.contains(&k).then(|| targeted_write(&mut r, &c.t, &h));
                if k == 0 {
                    c.load(h, w);
                } else {
                    assert!(c.d_valid && c.d == h, "{}", c.what("the header is held"));
                    c.cycle(w, None, false);
                }
            }
            // checked with the new table: in the cycle after the stale ones
            let load = c.load_cycle;
            assert!(
                c.last_check == Some(load + last + quiet),
                "{}",
                c.what(&format!(
                    "no check after the writes at {offs:?} (load {load})"
                ))
            );
            moved_episodes += u64::from(c.seen.rematch > rematch0);
            // its decision (D1 results for the new table) comes in the next episode: drain or load
        }
        c.drain();
        let s = &c.seen;
        println!(
            "{}: {s:?}, episodes with the header's entry moved: {moved_episodes}",
            if tx { "TX" } else { "RX" }
        );
        assert!(
            moved_episodes >= episodes / 3,
            "episodes whose writes moved the header held to another entry: {moved_episodes}"
        );
        assert!(s.decisions >= episodes, "decisions: {s:?}");
        assert!(s.dup >= 100, "duplicate entries (lowest index wins): {s:?}");
    }
}

/// A table write while no header is held (D empty; the last decided header still on
/// `pol_gid_i`/`pol_qpn_i`, as the callers' `d_q` keeps it), one or more back to back, then a
/// load in the next cycle (sometimes with one more write in the load cycle): the load's match
/// is against the written table.
#[test]
fn write_then_load_with_no_header_held() {
    for tx in [true, false] {
        let mut r = SplitMix64::new(seed(0x6b74_0003) ^ u64::from(tx));
        let mut c = Caller::new(tx, "write_then_load_with_no_header_held");
        c.program(&rand_program(&mut r));
        let mut moved = 0u64;
        let episodes = 2000;
        for ep in 0..episodes {
            if ep % 200 == 199 {
                c.program(&rand_program(&mut r));
            }
            c.drain();
            c.hold(r.below(2));
            let h = rand_hdr(&mut r, &c.t);
            let idx0 = c.t.lookup(&h.gid, h.qpn).0;
            for _ in 0..1 + r.below(3) {
                let w = targeted_write(&mut r, &c.t, &h);
                c.cycle(Some(w), None, true);
            }
            moved += u64::from(c.t.lookup(&h.gid, h.qpn).0 != idx0);
            let w_ld = r.chance(1, 3).then(|| targeted_write(&mut r, &c.t, &h));
            assert!(!c.d_valid, "{}", c.what("D empty before the load"));
            c.load(h, w_ld);
            let first = c.load_cycle + if w_ld.is_some() { 2 } else { 1 };
            c.hold(2);
            assert!(
                c.last_check.is_some_and(|l| l >= first),
                "{}",
                c.what("no check after the load")
            );
        }
        c.drain();
        let s = &c.seen;
        println!(
            "{}: {s:?}, writes that moved the header: {moved}",
            if tx { "TX" } else { "RX" }
        );
        assert!(
            moved >= episodes / 4,
            "writes that moved the header: {moved}"
        );
        assert!(s.decisions >= episodes, "decisions: {s:?}");
    }
}

/// A key file (docs/key-hierarchy.md schema) programmed by `regmap::tx_program` /
/// `rx_program`, as the host library's engine driver does: every header looks up what the model
/// answers, `KeyStore::policy` (mode, epoch, PD, generation, and RX's next-epoch bit), and its
/// D2 key is `keys::pd_key(secret, PD, epoch)` for the policy's epoch (TX) or the packet's
/// (RX: the policy's epoch and, with next_epoch, epoch + 1; no key for any other).
#[test]
fn key_file_programs_match_the_model() {
    const YAML: &str = "
version: 1
aes: 128
session_secret: 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
default: { mode: aead, pd: 1, gen: 0, epoch: 0 }
qps:
  - { gid: 10.0.0.2, qpn: 17, mode: packet-auth, pd: 2, gen: 5, epoch: 3, next_epoch: true }
  - { gid: 10.0.0.2, qpn: 18, mode: header-auth, pd: 1, gen: 7, epoch: 0 }
  - { gid: 10.0.0.3, qpn: 17, mode: bypass, pd: 1, gen: 0, epoch: 0 }
  - { gid: 'fe80::1', qpn: 11259375, mode: aead, pd: 2, gen: 16777215, epoch: 3 }
";
    let kf = KeyFile::from_yaml(YAML).unwrap();
    let ks = KeyStore::new(&kf).unwrap();
    let secret = kf.secret().unwrap();
    let mut ids: Vec<(Gid, u32)> = kf.qps.iter().map(|q| (gid_of(q.gid), q.qpn)).collect();
    ids.extend([(gid_v4(2), 19), (gid_v4(9), 17), (gid_v4(3), 18)]);
    for tx in [true, false] {
        let prog = if tx {
            regmap::tx_program(&kf).unwrap()
        } else {
            regmap::rx_program(&kf, false).unwrap()
        };
        // the (PD, epoch) pairs the program installs K_pd for
        let mut pairs: Vec<(u32, u8)> = Vec::new();
        for p in std::iter::once(&kf.default).chain(kf.qps.iter().map(|q| &q.policy)) {
            pairs.push((p.pd, p.epoch));
            if !tx && p.next_epoch {
                pairs.push((p.pd, p.epoch.wrapping_add(1)));
            }
        }
        let mut c = Caller::new(tx, "key_file_programs_match_the_model");
        c.program(&prog);
        c.hold(2);
        let mut checked = 0;
        for &(gid, qpn) in &ids {
            let p = ks.policy(&gid, qpn);
            let epochs: Vec<u8> = if tx {
                vec![0x55] // the packet's epoch is not used by TX
            } else {
                (0..3).map(|e| p.epoch.wrapping_add(e)).collect()
            };
            for e in epochs {
                let h = Hdr { gid, qpn, epoch: e };
                c.load(h, None);
                c.hold(1);
                c.drain();
                let d = c.last_decision.unwrap();
                assert_eq!(d.hdr, h);
                let what = format!("{}: {gid:x?} qpn {qpn:#x} epoch {e}", c.what("model"));
                let got = (d.p1.mode, d.p1.epoch, d.p1.next, d.p1.pd, d.p1.generation);
                let want = (
                    regmap::mode_code(p.mode) as u8,
                    p.epoch,
                    !tx && p.next_epoch,
                    p.pd,
                    p.gen,
                );
                assert_eq!(got, want, "{what}: KeyStore::policy");
                let key_epoch = if tx { p.epoch } else { e };
                let installed = pairs.contains(&(p.pd, key_epoch));
                assert_eq!(d.out.pd_hit, installed, "{what}: a K_pd slot");
                if installed {
                    let k = pd_key(&secret, p.pd, key_epoch, 16).unwrap();
                    assert_eq!(&d.out.pd_key[..], k.bytes(), "{what}: K_pd");
                }
                checked += 1;
            }
        }
        assert_eq!(checked, if tx { ids.len() } else { 3 * ids.len() });
    }
}
