//! Block test of `rtl/top/rocesec_verify_key.sv` (stage `key` of the verify top) for the case
//! the whole-top co-simulation never reaches: verdicts of the same QP taken in consecutive
//! clock cycles. The commit at the verdict-queue head (replay window, epoch promotion, WRITE
//! continuation key: a read-modify-write of the QP's RX state) reads the next head's entry a
//! cycle ahead (`vh_word_q`) and bypasses this cycle's commit into it when both name the same
//! entry. In the verify top verdicts come several cycles apart (each waits for its frame's tag),
//! so a mutant without the bypass passes every whole-top test; here the test drives
//! `fin_valid_i` / `auth_valid_i` itself, lets the verdict queue (`VqDepth` = 4) fill and then
//! releases it, so its verdicts are taken back to back, and a lost commit shows as a replayed PN
//! accepted or a WRITE Middle without its key. A mutant without the bypass (`if (1'b0)` for
//! `if (qp_we && v_idx == vh_idx_d)`) fails all three tests (the random one also without its
//! WRITE Middles, by a replay accepted).
//!
//! Reference: the model's sequential semantics (`Verifier::verify`, `key::select_rx`), each
//! frame decided against the commits of every earlier frame and committed only when its verdict
//! is ok (ICRC ok, decision ok, authenticated): the model's public `ReplayWindow` and `RxQp`,
//! the select_rx checks in its order (epoch with next / stale / unknown, key scope: QP level,
//! WRITE First's node range, WRITE Middle's continuation key; replay; PD slot of (pd, epoch)),
//! and the derived keys from the model's KDF (`keys::{qp_key, mr_key, node_key}`) for the
//! job of every processed frame. Every verdict (`done_reason_o`, `done_fwd_o`), every job
//! (`protect`, key, IV = QPN ‖ salt ‖ PN, SecHdr offset) and the verdict counters at the end are
//! checked. `ROCESEC_SEED` changes the random test's stimulus.
#![allow(clippy::unwrap_used)]

use std::collections::{HashMap, VecDeque};

use rocesec_cosim::rtl::roce_parse::Desc;
use rocesec_cosim::rtl::verify_key::{Fin, Job, Verdict, VerifyKey, VkIn, VQ_DEPTH};
use rocesec_cosim::rtl::{seed, SplitMix64};
use rocesec_model::keys::{
    gid_of, mr_key, node_index, node_key, qp_key, range_in_node, Gid, Key, KeyRef, QpPolicy,
};
use rocesec_model::regmap::{
    self, RegWrite, CNT_PROMOTIONS, COUNT, NEXT_EPOCH, NUM_COUNTERS, POLICY, POLICY_STRIDE,
};
use rocesec_model::sechdr::{Mode, LEVEL_QP};
use rocesec_model::stage::key::RxQp;
use rocesec_model::verdict::Reason;

/// `roce_parse_pkg::KindRoce`.
const KIND_ROCE: u8 = 1;
/// `rocesec_pkg::FwdProcessed`: the forward code of every SecHdr frame's verdict (a protected
/// RoCE frame is classified "processed"; for a rejected one the counters ignore it).
const FWD_PROCESSED: u8 = 0;
/// RC opcodes (IBTA Vol 1 §9.2 Table 38).
const OP_SEND_ONLY: u8 = 0x04;
const OP_WRITE_FIRST: u8 = 0x06;
const OP_WRITE_MIDDLE: u8 = 0x07;

// ---------------------------------------------------------------------------------------------
// Configuration: QP policies and PD key slots
// ---------------------------------------------------------------------------------------------

/// One programmed policy entry (the test's QPs; one RX QP state each).
#[derive(Clone, Debug)]
struct Qp {
    gid: Gid,
    qpn: u32,
    pol: QpPolicy,
}

/// A PD key slot (pd, epoch, K_pd).
#[derive(Clone, Debug)]
struct Slot {
    pd: u32,
    epoch: u8,
    key: [u8; 16],
}

#[derive(Clone, Debug)]
struct Config {
    qps: Vec<Qp>,
    slots: Vec<Slot>,
}

impl Config {
    /// The register writes that install it (policy word 0 last, with the RX next-epoch bit).
    fn program(&self) -> Vec<RegWrite> {
        let mut v = Vec::new();
        for (i, q) in self.qps.iter().enumerate() {
            let base = POLICY + POLICY_STRIDE * i as u16;
            let mut w = regmap::policy_writes(base, &q.gid, q.qpn, &q.pol).unwrap();
            if q.pol.next_epoch {
                w.last_mut().unwrap().data |= NEXT_EPOCH;
            }
            v.extend(w);
        }
        for (j, s) in self.slots.iter().enumerate() {
            v.extend(regmap::pd_slot_writes(j, s.pd, s.epoch, &s.key));
        }
        v
    }

    fn pd_key(&self, pd: u32, epoch: u8) -> Option<Key> {
        self.slots
            .iter()
            .find(|s| s.pd == pd && s.epoch == epoch)
            .map(|s| Key::new(&s.key).unwrap())
    }
}

fn gid_v4(x: u8) -> Gid {
    gid_of([10, 0, 0, x].into())
}

fn policy(pd: u32, gen: u32, epoch: u8, next_epoch: bool) -> QpPolicy {
    QpPolicy {
        mode: Mode::Aead,
        pd,
        gen,
        epoch,
        next_epoch,
    }
}

/// Three QPs: 0 (PD 1, epoch 5, epoch 6 installed), 1 (PD 2, epoch 0xFF, epoch 0 installed:
/// the epoch wraps), 2 (PD 1, epoch 5, no next epoch: epoch 6 is an unknown key for it even
/// after QP 0 moved there); the four (PD, epoch) slots they use.
fn config(r: &mut SplitMix64) -> Config {
    let qps = vec![
        Qp {
            gid: gid_v4(1),
            qpn: 0x11,
            pol: policy(1, 0x00_0A11, 5, true),
        },
        Qp {
            gid: gid_v4(2),
            qpn: 0xAB_CDEF,
            pol: policy(2, 0x12_3456, 0xFF, true),
        },
        Qp {
            gid: gid_v4(1),
            qpn: 0x12,
            pol: policy(1, 0x00_0002, 5, false),
        },
    ];
    let slots = [(1, 5), (1, 6), (2, 0xFF), (2, 0)]
        .into_iter()
        .map(|(pd, epoch)| Slot {
            pd,
            epoch,
            key: r.block(),
        })
        .collect();
    Config { qps, slots }
}

// ---------------------------------------------------------------------------------------------
// Frames and the reference
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    /// SEND Only: the per-QP key, SecHdr level `level` (must be LEVEL_QP).
    Send { level: u8 },
    /// RDMA WRITE First with RETH: the node key of (rkey, level, VA); commits the continuation.
    WriteFirst {
        va: u64,
        len: u32,
        rkey: u32,
        level: u8,
    },
    /// RDMA WRITE Middle: the continuation key of the QP's last authenticated WRITE First.
    WriteMiddle { level: u8 },
}

/// One frame as the key stage sees it (header descriptor), with what the rest of the top says
/// about it later (final descriptor's ICRC, authentication).
#[derive(Clone, Copy, Debug)]
struct Frame {
    qp: usize,
    op: Op,
    epoch: u8,
    pn: u64,
    icrc_ok: bool,
    auth_ok: bool,
}

/// What the key stage must do with a frame.
#[derive(Clone, Debug)]
struct Expect {
    /// Processed (a job with protect set and this key).
    key: Option<[u8; 16]>,
    /// The verdict's reason (`None`: ok).
    reason: Option<Reason>,
    /// Its commit promoted the QP's epoch.
    promote: bool,
}

/// `Verifier::verify` / `select_rx` for one frame against the QP's state: the key reference
/// and epoch, or the rejection.
fn decide(cfg: &Config, st: &RxQp, f: &Frame) -> Result<(KeyRef, u8), Reason> {
    let q = &cfg.qps[f.qp];
    let pol = &q.pol;
    // (policy: mode and SecHdr always agree here)
    let next = st.next
        || (pol.next_epoch && pol.epoch == st.epoch)
        || pol.epoch == st.epoch.wrapping_add(1);
    if !(f.epoch == st.epoch || (next && f.epoch == st.epoch.wrapping_add(1))) {
        return Err(if (1..128).contains(&st.epoch.wrapping_sub(f.epoch)) {
            Reason::StaleEpoch
        } else {
            Reason::UnknownKey
        });
    }
    let key = match f.op {
        Op::WriteFirst {
            va,
            len,
            rkey,
            level,
        } => {
            if level == LEVEL_QP {
                return Err(Reason::Malformed);
            }
            if !range_in_node(va, len, level) {
                return Err(Reason::OutOfRange);
            }
            KeyRef::Node {
                gid: q.gid,
                rkey,
                level,
                index: node_index(va, level),
            }
        }
        Op::WriteMiddle { .. } => st.cont.ok_or(Reason::UnknownKey)?,
        Op::Send { level } => {
            if level != LEVEL_QP {
                return Err(Reason::Malformed);
            }
            KeyRef::Qp {
                gid: q.gid,
                qpn: q.qpn,
                salt: pol.gen,
            }
        }
    };
    if !st.window.check(f.pn) {
        return Err(Reason::Replay);
    }
    // hardware limit: the PD key slot of (pd, epoch) (model: KeyStore::key fails)
    if cfg.pd_key(pol.pd, f.epoch).is_none() {
        return Err(Reason::UnknownKey);
    }
    Ok((key, f.epoch))
}

/// The derived key of `r` under K_pd(pd, epoch) (model KDF).
fn derived(cfg: &Config, pd: u32, epoch: u8, r: &KeyRef) -> [u8; 16] {
    let p = cfg.pd_key(pd, epoch).unwrap();
    let k = match *r {
        KeyRef::Qp { gid, qpn, salt } => qp_key(&p, &gid, qpn, salt).unwrap(),
        KeyRef::Node {
            gid,
            rkey,
            level,
            index,
        } => node_key(&mr_key(&p, &gid, rkey).unwrap(), level, index).unwrap(),
    };
    k.bytes().try_into().unwrap()
}

/// Every frame's expectation, frames in order (sequential semantics): decided against all
/// earlier commits, committed when its verdict is ok; with QP `q`'s state released before
/// frame `k` for `rel = Some((k, q))` (model `Verifier::release_qp`: the QP starts again from
/// `RxQp::new` of its policy).
fn reference_released(cfg: &Config, frames: &[Frame], rel: Option<(usize, usize)>) -> Vec<Expect> {
    let mut st: Vec<RxQp> = cfg.qps.iter().map(|q| RxQp::new(&q.pol)).collect();
    let mut keys: HashMap<(u32, u8, KeyRef), [u8; 16]> = HashMap::new();
    frames
        .iter()
        .enumerate()
        .map(|(i, f)| {
            if let Some((k, q)) = rel {
                if i == k {
                    st[q] = RxQp::new(&cfg.qps[q].pol);
                }
            }
            let s = &mut st[f.qp];
            let d = decide(cfg, s, f);
            let pd = cfg.qps[f.qp].pol.pd;
            let key = d.as_ref().ok().map(|(r, e)| {
                *keys
                    .entry((pd, *e, *r))
                    .or_insert_with(|| derived(cfg, pd, *e, r))
            });
            let reason = if !f.icrc_ok {
                Some(Reason::BadIcrc)
            } else if let Err(r) = d {
                Some(r)
            } else if !f.auth_ok {
                Some(Reason::AuthFail)
            } else {
                None
            };
            let mut promote = false;
            if reason.is_none() {
                let (r, e) = d.unwrap();
                s.window.update(f.pn);
                if e != s.epoch {
                    s.epoch = e;
                    s.next = false;
                    promote = true;
                }
                if matches!(f.op, Op::WriteFirst { .. }) {
                    s.cont = Some(r);
                }
            }
            Expect {
                key,
                reason,
                promote,
            }
        })
        .collect()
}

/// Frame `i`'s header descriptor (`roce_desc_t`): IPv4, BTH at 42, SecHdr behind it, RETH for a
/// WRITE First, 64 payload bytes and the 16-byte ICV.
fn desc(cfg: &Config, i: usize, f: &Frame) -> Desc {
    let q = &cfg.qps[f.qp];
    let (opcode, level, reth) = match f.op {
        Op::Send { level } => (OP_SEND_ONLY, level, None),
        Op::WriteFirst {
            va,
            len,
            rkey,
            level,
        } => (OP_WRITE_FIRST, level, Some((va, len, rkey))),
        Op::WriteMiddle { level } => (OP_WRITE_MIDDLE, level, None),
    };
    let bth_off = 42u128;
    let eth_off = bth_off + 12 + 8;
    let payload_off = eth_off + if reth.is_some() { 16 } else { 0 };
    let payload_end = payload_off + 64;
    let frame_len = payload_end + 16 + 4;
    let ip_len = frame_len - 14;
    let (va, dma_len, rkey) = reth.unwrap_or((0, 0, 0));
    Desc {
        kind: u128::from(KIND_ROCE),
        icrc_ok: 1,
        ip_off: 14,
        ip_hdr_len: 20,
        udp_off: 34,
        bth_off,
        ip_end: frame_len - 4,
        eth_off,
        payload_off,
        payload_end,
        frame_len,
        opcode: u128::from(opcode),
        tver: 1,
        pkey: 0xFFFF,
        dest_qp: u128::from(q.qpn),
        psn: i as u128 & 0xFF_FFFF,
        service: 0, // RC
        eth: if reth.is_some() { 0x008 } else { 0 },
        sec_valid: 1,
        sec_mode: u128::from(regmap::mode_code(q.pol.mode)),
        sec_level: u128::from(level),
        sec_epoch: u128::from(f.epoch),
        sec_pn: u128::from(f.pn),
        has_reth: u128::from(reth.is_some()),
        va: u128::from(va),
        rkey: u128::from(rkey),
        dma_len: u128::from(dma_len),
        dest_gid: u128::from_be_bytes(q.gid),
        ip_len,
        udp_len: ip_len - 20,
        ip_sum: 0x4500 + 0x4000 + 0x4011,
        ..Desc::default()
    }
}

// ---------------------------------------------------------------------------------------------
// The bench: the key stage with its neighbours played by the test
// ---------------------------------------------------------------------------------------------

/// What the neighbours do in one cycle.
#[derive(Clone, Copy, Debug)]
struct Ctl {
    /// Offer the next header (if any; only frames below `hdr_limit`).
    hdr: bool,
    /// `job_ready_i`.
    job_ready: bool,
    /// Raise `fin_valid_i` (once raised it stays until taken) when a frame is in the queue.
    fin: bool,
    /// Raise `auth_valid_i` likewise.
    auth: bool,
}

/// Reference verdict counters (register read port): 0 frames, 1 processed, 6 promotions, 8 + r
/// rejected with reason r.
fn ref_counters(exp: &[Expect]) -> [u32; NUM_COUNTERS] {
    let mut c = [0u32; NUM_COUNTERS];
    for e in exp {
        c[0] += 1;
        match e.reason {
            None => {
                c[1] += 1;
                c[CNT_PROMOTIONS] += u32::from(e.promote);
            }
            Some(r) => c[8 + usize::from(r.code())] += 1,
        }
    }
    c
}

/// The key stage with its neighbours played by the test: header source, job sink, final
/// descriptors and authentication results, register port; every output checked as it comes.
struct Bench {
    vk: VerifyKey,
    cfg: Config,
    frames: Vec<Frame>,
    exp: Vec<Expect>,
    /// Headers accepted, jobs pushed, verdicts taken, verdicts seen on `done_*`.
    sent: usize,
    pushed: usize,
    taken: usize,
    done: usize,
    /// Headers are offered only below this frame index.
    hdr_limit: usize,
    /// `fin_valid_i` / `auth_valid_i` raised for the head frame and not yet taken.
    fin_v: bool,
    auth_v: bool,
    /// Cycle of each verdict (`done_valid_o`).
    done_cycle: Vec<u64>,
    /// Verdicts taken in the cycle right after the one before.
    back_to_back: usize,
    /// ... of them with both frames processed (decided ok) and of the same QP: the bypass case.
    back_to_back_same_qp: usize,
    /// Cycle and frame of the last verdict taken.
    last_take: Option<(u64, usize)>,
    /// A register write for the next cycle (`step` drives and clears it).
    write: Option<RegWrite>,
}

impl Bench {
    fn new(cfg: Config, frames: Vec<Frame>) -> Self {
        Self::released(cfg, frames, None)
    }

    /// A bench whose reference releases a QP's state before a frame ([`reference_released`]).
    fn released(cfg: Config, frames: Vec<Frame>, rel: Option<(usize, usize)>) -> Self {
        let exp = reference_released(&cfg, &frames, rel);
        let mut vk = VerifyKey::new();
        for w in cfg.program() {
            vk.drive(&VkIn {
                write: Some(w),
                ..VkIn::default()
            });
            vk.tick();
        }
        let n = frames.len();
        Self {
            vk,
            cfg,
            frames,
            exp,
            sent: 0,
            pushed: 0,
            taken: 0,
            done: 0,
            hdr_limit: n,
            fin_v: false,
            auth_v: false,
            done_cycle: Vec::new(),
            back_to_back: 0,
            back_to_back_same_qp: 0,
            last_take: None,
            write: None,
        }
    }

    fn what(&self, i: usize) -> String {
        format!(
            "frame {i} {:?}, expected {:?}, cycle {}",
            self.frames[i],
            self.exp[i],
            self.vk.cycles()
        )
    }

    /// One cycle with the neighbours doing `c`; every job and verdict of the cycle is checked.
    fn step(&mut self, c: Ctl) {
        let queued = self.pushed > self.taken;
        self.fin_v |= c.fin && queued;
        self.auth_v |= c.auth && queued;
        let head = self.taken;
        let hdr = (c.hdr && self.sent < self.hdr_limit.min(self.frames.len()))
            .then(|| desc(&self.cfg, self.sent, &self.frames[self.sent]));
        let offered = hdr.is_some();
        let fin = self.fin_v.then(|| Fin {
            kind: KIND_ROCE,
            icrc_ok: self.frames[head].icrc_ok,
        });
        let auth = self.auth_v.then(|| self.frames[head].auth_ok);
        let o = self.vk.drive(&VkIn {
            hdr,
            fin,
            auth,
            job_ready: c.job_ready,
            write: self.write.take(),
            ..VkIn::default()
        });
        // verdict of the take one cycle ago
        if let Some(v) = o.done {
            self.check_verdict(v);
        }
        // the queue holds pushed - taken frames: a take exactly when both are offered
        assert_eq!(o.fin_ready, o.auth_ready, "fin_ready_o != auth_ready_o");
        let take = self.fin_v && self.auth_v && queued;
        assert_eq!(
            o.fin_ready,
            take,
            "fin_ready_o (fin {} auth {} queued {}), cycle {}",
            self.fin_v,
            self.auth_v,
            self.pushed - self.taken,
            self.vk.cycles()
        );
        if let Some(j) = o.job {
            assert!(
                self.pushed - self.taken < VQ_DEPTH,
                "job_valid_o with the verdict queue full, cycle {}",
                self.vk.cycles()
            );
            if c.job_ready {
                self.check_job(&j);
                self.pushed += 1;
            }
        }
        if take {
            let cyc = self.vk.cycles();
            if let Some((pc, pi)) = self.last_take {
                let (a, b) = (&self.frames[pi], &self.frames[head]);
                self.back_to_back += usize::from(pc + 1 == cyc);
                if pc + 1 == cyc
                    && a.qp == b.qp
                    && self.exp[pi].key.is_some()
                    && self.exp[head].key.is_some()
                {
                    self.back_to_back_same_qp += 1;
                }
            }
            self.last_take = Some((cyc, head));
            self.taken += 1;
            self.fin_v = false;
            self.auth_v = false;
        }
        if offered && o.hdr_ready {
            self.sent += 1;
        }
        assert!(self.pushed <= self.sent, "a job before its header");
        self.vk.tick();
    }

    fn check_job(&self, j: &Job) {
        let i = self.pushed;
        assert!(i < self.sent, "job {i} before its header");
        let f = &self.frames[i];
        let q = &self.cfg.qps[f.qp];
        let e = &self.exp[i];
        let iv = (u128::from(q.qpn) << 72) | (u128::from(q.pol.gen) << 48) | u128::from(f.pn);
        assert_eq!(j.iv, iv, "job IV (QPN, salt, PN): {}", self.what(i));
        assert_eq!(j.protect, e.key.is_some(), "job protect: {}", self.what(i));
        assert_eq!(j.hoff, 42 + 12, "job SecHdr offset: {}", self.what(i));
        if let Some(k) = e.key {
            assert_eq!(j.key, k, "job key: {}", self.what(i));
            assert_eq!(
                u32::from(j.mode),
                regmap::mode_code(q.pol.mode),
                "job mode: {}",
                self.what(i)
            );
        }
    }

    fn check_verdict(&mut self, v: Verdict) {
        let i = self.done;
        assert!(i < self.taken, "done_valid_o without a verdict taken");
        let want = Verdict {
            reason: self.exp[i].reason.map_or(0, Reason::code),
            fwd: FWD_PROCESSED,
        };
        assert_eq!(v, want, "verdict (reason, fwd): {}", self.what(i));
        self.done_cycle.push(self.vk.cycles());
        self.done += 1;
    }

    /// Run cycles with `ctl` until `until` holds (checked before each cycle).
    fn run(&mut self, max: u64, mut ctl: impl FnMut(&Self) -> Ctl, until: impl Fn(&Self) -> bool) {
        let start = self.vk.cycles();
        while !until(self) {
            assert!(
                self.vk.cycles() - start < max,
                "no progress in {max} cycles: sent {} pushed {} taken {} done {} of {}",
                self.sent,
                self.pushed,
                self.taken,
                self.done,
                self.frames.len()
            );
            let c = ctl(self);
            self.step(c);
        }
    }

    /// Run every frame to its verdict with everything offered every cycle.
    fn drain(&mut self) {
        self.hdr_limit = self.frames.len();
        let n = self.frames.len();
        self.run(
            200 * n as u64 + 1000,
            |_| Ctl {
                hdr: true,
                job_ready: true,
                fin: true,
                auth: true,
            },
            |b| b.done == n,
        );
    }

    /// Idle cycles, then every counter read against the reference.
    fn check_counters(&mut self) {
        for _ in 0..3 {
            self.vk.drive(&VkIn::default());
            self.vk.tick();
        }
        let want = ref_counters(&self.exp);
        for (c, &w) in want.iter().enumerate() {
            let o = self.vk.drive(&VkIn {
                raddr: COUNT + 4 * c as u16,
                ..VkIn::default()
            });
            assert_eq!(o.rdata, w, "counter {c}");
        }
    }
}

fn send(qp: usize, pn: u64) -> Frame {
    Frame {
        qp,
        op: Op::Send { level: LEVEL_QP },
        epoch: 5,
        pn,
        icrc_ok: true,
        auth_ok: true,
    }
}

/// With the verdict queue empty, let the next `n` frames be decided and pushed with no verdict
/// taken (the queue fills), then offer both results in every cycle: the `n` verdicts must come
/// in `n` consecutive cycles.
fn fill_then_release(b: &mut Bench, n: usize) {
    assert!(n <= VQ_DEPTH);
    assert!(b.pushed == b.taken && b.taken == b.done, "queue not empty");
    let first = b.done;
    b.hdr_limit = b.sent + n;
    let target = b.pushed + n;
    b.run(
        2000,
        |_| Ctl {
            hdr: true,
            job_ready: true,
            fin: false,
            auth: false,
        },
        |b| b.pushed == target,
    );
    assert_eq!(
        b.taken, first,
        "no verdict taken while the results are held"
    );
    let end = first + n;
    b.run(
        100,
        |_| Ctl {
            hdr: false,
            job_ready: true,
            fin: true,
            auth: true,
        },
        |b| b.done == end,
    );
    let cyc = &b.done_cycle[first..end];
    for k in 1..n {
        assert_eq!(
            cyc[k],
            cyc[k - 1] + 1,
            "verdicts {first}..{end} not in consecutive cycles: {cyc:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

/// Test A: one QP, PNs 10..13 decided and queued while the results are held, then their four
/// verdicts taken in four consecutive cycles (all authenticated): each commit must see the one
/// before it. Then 10..13 again must each be a replay, and 14 accepted.
#[test]
fn consecutive_verdicts_one_qp_replay_window() {
    let cfg = config(&mut SplitMix64::new(0xA));
    let mut frames: Vec<Frame> = (10..14).map(|pn| send(0, pn)).collect();
    frames.extend((10..14).map(|pn| send(0, pn)));
    frames.push(send(0, 14));
    let mut b = Bench::new(cfg, frames);
    fill_then_release(&mut b, VQ_DEPTH);
    assert!(b.exp[..4].iter().all(|e| e.reason.is_none()));
    assert!(b.exp[4..8].iter().all(|e| e.reason == Some(Reason::Replay)));
    assert!(b.exp[8].reason.is_none());
    b.drain();
    assert!(b.back_to_back_same_qp >= VQ_DEPTH - 1);
    b.check_counters();
}

/// Test A, the other fields of the commit: a WRITE First and a SEND of the same QP taken in
/// consecutive cycles (the SEND's commit must keep the First's continuation key), then a WRITE
/// Middle, which must use that key (job key = the node key); and a frame at the policy's epoch
/// followed by one at epoch + 1 taken in consecutive cycles (the promotion's commit must keep
/// the first's PN), then both PNs replayed at epoch 6, an epoch-5 frame stale and epoch 6 going
/// on.
#[test]
fn consecutive_verdicts_write_key_and_promotion() {
    let cfg = config(&mut SplitMix64::new(0xB));
    let wf = Frame {
        op: Op::WriteFirst {
            va: 0x1234_5000,
            len: 3000,
            rkey: 0xCAFE,
            level: 1,
        },
        ..send(0, 20)
    };
    let wm = Frame {
        op: Op::WriteMiddle { level: 1 },
        ..send(0, 22)
    };
    let e6 = |pn| Frame {
        epoch: 6,
        ..send(0, pn)
    };
    let frames = vec![
        wf,
        send(0, 21),
        wm,
        send(0, 30),
        e6(31),
        e6(30),
        e6(31),
        send(0, 32),
        e6(33),
    ];
    let mut b = Bench::new(cfg, frames);
    fill_then_release(&mut b, 2);
    // the WRITE Middle after them
    fill_then_release(&mut b, 1);
    fill_then_release(&mut b, 2);
    b.drain();
    let want = [
        None,
        None,
        None,
        None,
        None,
        Some(Reason::Replay),
        Some(Reason::Replay),
        Some(Reason::StaleEpoch),
        None,
    ];
    let got: Vec<Option<Reason>> = b.exp.iter().map(|e| e.reason).collect();
    assert_eq!(got, want, "the reference itself");
    assert!(b.exp[2].key.is_some() && b.exp[2].key == b.exp[0].key);
    assert!(b.exp[4].promote);
    assert!(b.back_to_back_same_qp >= 2);
    b.check_counters();
}

/// Test C (session 39): a header entering stage D in the cycle its QP's fresh entry is freed.
/// QP 0's first frame A fails authentication; once it is queued alone (its entry referenced by
/// the queue only), its verdict is taken, and the next header, B (QP 0, A's PN, genuine), is
/// offered `delay` cycles later. With delay 1 it enters D in the cycle A's entry is freed: it
/// must not match the entry (`rocesec_qp_ident` masks it), or B would be decided with a free
/// entry and commit into it, and C (B's replay) would find no state, be decided at once (no
/// conflict with B: not found) and accepted. The sequential reference: A auth-fail, B ok, C
/// replay, D (PN 11) ok.
#[test]
fn a_header_entering_as_its_entry_is_freed() {
    for delay in 0..4 {
        let cfg = config(&mut SplitMix64::new(0xC));
        let mut a = send(0, 10);
        a.auth_ok = false;
        let mut b = Bench::new(cfg, vec![a, send(0, 10), send(0, 10), send(0, 11)]);
        let reasons: Vec<_> = b.exp.iter().map(|e| e.reason).collect();
        assert_eq!(
            reasons,
            [Some(Reason::AuthFail), None, Some(Reason::Replay), None]
        );
        b.hdr_limit = 1;
        let hold = Ctl {
            hdr: true,
            job_ready: true,
            fin: false,
            auth: false,
        };
        b.run(2000, |_| hold, |b| b.pushed == 1);
        for _ in 0..4 {
            b.step(hold); // A only in the queue
        }
        b.hdr_limit = b.frames.len();
        b.step(Ctl {
            hdr: false,
            job_ready: true,
            fin: true,
            auth: true,
        });
        assert_eq!(b.taken, 1, "A's verdict taken");
        for _ in 0..delay {
            b.step(Ctl { hdr: false, ..hold });
        }
        b.step(hold);
        assert_eq!(b.sent, 2, "B entered D {delay} cycles after A's verdict");
        b.drain();
        b.check_counters();
    }
}

/// QP release at the key stage alone (session 40), the go write (word 0 of the release block)
/// made at every cycle offset d = -3..13 from the moment the frames behind QP 0's first
/// verdicts are offered, everything ready in every cycle. The release must sit between two
/// decisions: for each d, the bench (every job, verdict and counter checked) must pass with
/// the reference releasing QP 0 before some frame k. Two scenarios:
///   - QP 0's replays of PN 10 among QP 2's frames (QP 2 with state before the release);
///   - QP 0's PN 11 right behind the release, then QP 2's first frames: QP 2 takes the lowest
///     free entry, QP 0's if it was freed, so a frame decided on QP 0's entry after the entry
///     was freed would commit into QP 2's state (QP 2's PN 11 would then be a replay). The
///     decisions held for the two cycles after the release's write keep that from happening.
/// QP 0's PN 10 and QP 2's PN 20 (before the release), then QP 0's replays of PN 10 among
/// QP 2's frames (the first scenario of [`a_release_between_two_decisions`]): the first replay
/// after a release of QP 0 is accepted.
fn replays_among_qp2() -> Vec<Frame> {
    vec![
        send(0, 10),
        send(2, 20),
        send(2, 21),
        send(0, 10),
        send(2, 22),
        send(0, 10),
        send(2, 21),
        send(0, 11),
        send(0, 10),
    ]
}

#[test]
fn a_release_between_two_decisions() {
    use std::panic::{catch_unwind, AssertUnwindSafe};
    let scenarios: [(usize, Vec<Frame>); 2] = [
        (2, replays_among_qp2()),
        (
            1,
            vec![
                send(0, 10),
                send(0, 11),
                send(2, 20),
                send(2, 11),
                send(0, 11),
                send(2, 12),
                send(0, 12),
            ],
        ),
    ];
    let all = Ctl {
        hdr: true,
        job_ready: true,
        fin: true,
        auth: true,
    };
    for (sc, (pre, frames)) in scenarios.iter().enumerate() {
        let run = |d: i64, k: usize| {
            let cfg = config(&mut SplitMix64::new(0xD));
            let w = regmap::qp_release_writes(&cfg.qps[0].gid, cfg.qps[0].qpn).unwrap();
            let mut b = Bench::released(cfg, frames.clone(), Some((k, 0)));
            b.hdr_limit = *pre;
            b.run(2000, |_| all, |b| b.done == *pre);
            for x in &w[..w.len() - 1] {
                b.write = Some(*x);
                b.step(Ctl { hdr: false, ..all });
            }
            // d >= 0: the go d cycles after the frames are offered; d < 0: the frames offered
            // -d cycles after the go (d = -1: the first is offered in the release's lookup
            // cycle, the one after the go, where the header port is held)
            if d < 0 {
                b.write = w.last().copied();
                b.step(Ctl { hdr: false, ..all });
                for _ in 0..(-d - 1) {
                    b.step(Ctl { hdr: false, ..all });
                }
                b.hdr_limit = b.frames.len();
            } else {
                b.hdr_limit = b.frames.len();
                for _ in 0..d {
                    b.step(all);
                }
                b.write = w.last().copied();
                b.step(all);
            }
            b.drain();
            b.check_counters();
        };
        let mut fits = Vec::new();
        for d in -3..14i64 {
            let k = (*pre..=frames.len())
                .find(|&k| catch_unwind(AssertUnwindSafe(|| run(d, k))).is_ok())
                .unwrap_or_else(|| {
                    panic!("scenario {sc}, offset {d}: no frame before which the release fits")
                });
            fits.push(k);
        }
        eprintln!("scenario {sc}: release go at offsets -3..13: released before frame {fits:?}");
        assert!(fits.windows(2).all(|w| w[0] <= w[1]), "{fits:?}");
        let distinct: std::collections::BTreeSet<_> = fits.iter().collect();
        // scenario 1: after QP 0's PN 11 every point up to its second PN 11 is the same
        assert!(
            distinct.len() >= [3, 2][sc],
            "the offsets reach too few frames: {fits:?}"
        );
    }
}

/// A release names the QP its registers held at the go (word 0): a write to the release block's
/// QPN (word 1) or GID (word 7) in the very next cycle, as a driver preparing the next release
/// over the raw register port would make it, must not change which QP is released. The frames
/// of the first scenario of [`a_release_between_two_decisions`] are offered 3 cycles after the
/// go, so QP 0 must be released before all of them: its replays of PN 10 are accepted once.
/// Found in session 40's review (the identity registers were read two cycles after the go).
#[test]
fn a_release_takes_the_identity_of_its_go_write() {
    let frames = replays_among_qp2();
    let pre = 2;
    let all = Ctl {
        hdr: true,
        job_ready: true,
        fin: true,
        auth: true,
    };
    let cfg0 = config(&mut SplitMix64::new(0xD));
    let (gid, qpn) = (cfg0.qps[0].gid, cfg0.qps[0].qpn);
    let gid7 = u32::from_be_bytes([gid[12], gid[13], gid[14], gid[15]]);
    let next_writes = [
        (
            "QPN",
            RegWrite {
                addr: regmap::RELEASE + 4,
                data: qpn ^ 1,
            },
        ),
        (
            "GID word 7",
            RegWrite {
                addr: regmap::RELEASE + 28,
                data: !gid7,
            },
        ),
    ];
    for (what, next) in next_writes {
        let w = regmap::qp_release_writes(&gid, qpn).unwrap();
        let mut b = Bench::released(
            config(&mut SplitMix64::new(0xD)),
            frames.clone(),
            Some((pre, 0)),
        );
        b.hdr_limit = pre;
        b.run(2000, |_| all, |b| b.done == pre);
        for x in &w {
            b.write = Some(*x);
            b.step(Ctl { hdr: false, ..all });
        }
        b.write = Some(next);
        b.step(Ctl { hdr: false, ..all });
        b.step(Ctl { hdr: false, ..all });
        b.hdr_limit = b.frames.len();
        b.drain();
        b.check_counters();
        eprintln!("{what} written in the cycle after the go: QP 0 released");
    }
}

/// `n` random frames of the configuration's QPs, each QP played by a sender that mostly steps
/// its PN ahead, with replays of recent PNs, PNs behind (inside and outside the window), jumps
/// of 64 and more and PN 0; SENDs, WRITE First (in and out of its node, now and then at the QP
/// level) and WRITE Middle (mostly after a First of the QP); at the policy's epoch until a
/// switch point of its own if the policy installed epoch + 1, then at epoch + 1; now and then
/// one behind or two ahead; 1 in 8 not authenticated, 1 in 25 with a bad ICRC. The QP sticks for a few frames (runs of one QP, so that its verdicts meet).
fn random_frames(r: &mut SplitMix64, cfg: &Config, n: usize) -> Vec<Frame> {
    let nq = cfg.qps.len();
    let mut cur: Vec<u64> = (0..nq).map(|_| 1 + r.below(4)).collect();
    let mut recent: Vec<VecDeque<u64>> = vec![VecDeque::new(); nq];
    let mut wf_level: Vec<Option<u8>> = vec![None; nq];
    // the sender moves to epoch + 1 where the policy installed it (QP 2 has no next epoch)
    let switch: Vec<usize> = cfg
        .qps
        .iter()
        .map(|q| {
            if q.pol.next_epoch {
                n / 5 + r.below(n as u64 / 2) as usize
            } else {
                usize::MAX
            }
        })
        .collect();
    let mut qp = 0;
    (0..n)
        .map(|i| {
            if !r.chance(2, 3) {
                qp = r.below(nq as u64) as usize;
            }
            let c = &mut cur[qp];
            let pn = match r.below(100) {
                0..=59 => {
                    *c += 1 + r.below(3);
                    *c
                }
                60..=69 => *c - r.below(80).min(*c),
                70..=81 => recent[qp]
                    .get(r.below(recent[qp].len().max(1) as u64) as usize)
                    .copied()
                    .unwrap_or(*c),
                82..=89 => {
                    *c += 64 + r.below(140);
                    *c
                }
                90 => 0,
                _ => *c + 1 + r.below(4),
            };
            recent[qp].push_back(pn);
            if recent[qp].len() > 8 {
                recent[qp].pop_front();
            }
            let op = match r.below(10) {
                0 => {
                    let level = r.below(3) as u8;
                    let node = 1u64 << (12 + level);
                    let base = (0x4000_0000 + qp as u64 * 0x10_0000) + node * r.below(2);
                    let (off, len) = if r.chance(1, 5) {
                        (node - 100, 200 + r.below(1000) as u32) // crosses the node's end
                    } else {
                        let off = r.below(node / 2);
                        (off, 1 + r.below(node - off) as u32)
                    };
                    let level = if r.chance(1, 12) { LEVEL_QP } else { level };
                    wf_level[qp] = Some(level);
                    Op::WriteFirst {
                        va: base + off,
                        len,
                        rkey: 0x100 + qp as u32,
                        level,
                    }
                }
                1 | 2 if wf_level[qp].is_some() || r.chance(1, 4) => Op::WriteMiddle {
                    level: wf_level[qp].unwrap_or(0),
                },
                _ => Op::Send { level: LEVEL_QP },
            };
            let e = cfg.qps[qp].pol.epoch;
            let e = if i >= switch[qp] {
                e.wrapping_add(1)
            } else {
                e
            };
            let epoch = match r.below(48) {
                0 => e.wrapping_sub(1),
                1 => e.wrapping_add(2),
                _ => e,
            };
            Frame {
                qp,
                op,
                epoch,
                pn,
                icrc_ok: !r.chance(1, 25),
                auth_ok: !r.chance(1, 8),
            }
        })
        .collect()
}

/// One random run: random neighbours (header offers, job stalls, result gaps, long holds of the
/// authentication results that then release bursts of queued verdicts).
fn random_run(s: u64, n: usize) -> usize {
    let mut r = SplitMix64::new(s);
    let cfg = config(&mut r);
    let frames = random_frames(&mut r, &cfg, n);
    let mut b = Bench::new(cfg, frames);
    // phases: hold (auth never offered: the queue fills) or flow with a per-phase offer rate
    let mut left = 0u64;
    let mut hold = false;
    let mut rate = (1u64, 1u64);
    let mut job_stall = (0u64, 1u64);
    let n = b.frames.len();
    b.run(
        400 * n as u64,
        |_| {
            if left == 0 {
                hold = r.chance(1, 3);
                left = if hold {
                    8 + r.below(60)
                } else {
                    4 + r.below(40)
                };
                rate = *[(1, 1), (1, 1), (1, 2), (1, 4), (3, 4)]
                    .get(r.below(5) as usize)
                    .unwrap();
                job_stall = if r.chance(1, 4) { (1, 3) } else { (0, 1) };
            }
            left -= 1;
            Ctl {
                hdr: r.chance(3, 4),
                job_ready: !r.chance(job_stall.0, job_stall.1),
                fin: r.chance(rate.0, rate.1),
                auth: !hold && r.chance(rate.0, rate.1),
            }
        },
        |b| b.done == n,
    );
    b.check_counters();
    let mut hist = [0usize; 10];
    for e in &b.exp {
        hist[e.reason.map_or(0, |r| usize::from(r.code()))] += 1;
    }
    let kinds = |f: &dyn Fn(&Expect) -> bool| b.exp.iter().filter(|e| f(e)).count();
    eprintln!(
        "seed {s:#x}: {n} frames, {} cycles, verdicts by reason code {hist:?}, {} promotions, \
         {} verdicts taken right after the one before, {} of them processed frames of one QP",
        b.vk.cycles(),
        kinds(&|e| e.promote),
        b.back_to_back,
        b.back_to_back_same_qp
    );
    // the run must have produced what it is for
    assert!(kinds(&|e| e.reason.is_none()) > n / 4);
    assert!(kinds(&|e| e.reason == Some(Reason::Replay)) > n / 20);
    assert!(kinds(&|e| e.promote) >= 1);
    assert!(b.back_to_back_same_qp > 10, "too few back-to-back commits");
    b.back_to_back_same_qp
}

/// Test B: 3 QPs, random PNs, operations, epochs and results, random neighbours; every verdict
/// and job against the sequential reference. Eight seeds of 1500 frames (the first seed from
/// `ROCESEC_SEED`).
#[test]
fn random_qps_against_sequential_reference() {
    let base = seed(0x5EED_0001);
    for k in 0..8u64 {
        random_run(
            base.wrapping_add(k.wrapping_mul(0xD1B5_4A32_D192_ED03)),
            1500,
        );
    }
}
