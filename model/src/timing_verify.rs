//! Timing layer of the verify (RX) top `rtl/top/rocesec_verify.sv` at LANES = 1: the
//! counterpart of [`crate::timing`] (the protect top), read as the specification of its timing.
//!
//! Given the frames (from the functional model: size, what stage `key` decides on the header,
//! which derived key it needs, whether the final verdict rejects), the output mode and the
//! co-simulation driver's stimulus (the same seeded [`SplitMix64`], two draws per cycle,
//! [`Traffic::draw`]), [`predict`] gives for every frame the cycle its first input beat is
//! accepted and the cycle its last output beat leaves (`None` for a frame store-and-forward
//! discards), and the total cycle count of the run as the driver counts it.
//!
//! The stepper carries no data: stages are occupancy, fixed latencies and handshakes, as in the
//! RTL (**parse → key → crypto → emit**). Shared blocks reuse the protect layer's pieces: the
//! derived-key cache and its KDF ([`crate::timing::KeyParams`], `rocesec_key_cache` +
//! `kdf_cmac`), the CTR generator ([`crate::timing::CryptoParams`], `rocesec_ctr`) and the GHASH
//! feed's block schedule (`rocesec_ghash_feed`). Every other constant is a field of [`Params`]
//! naming its RTL origin; [`Params::RTL`] is the design as built. docs/timing.md has the measured
//! error against the RTL.
//!
//! Pipeline (rocesec_verify.sv, rocesec_verify_key.sv, rocesec_verify_emit.sv):
//! input → packet FIFO + parse tap → header/final descriptor queues → key stage D (decides
//! when stage J is free, and waits while a pending frame of the same QP could change the
//! decision) → key stage J (`StKey`, `StJob`: waits for a job-table slot and verdict-queue
//! room) → job table → G (input walker +
//! GHASH feed, one block per cycle) → delay FIFO → S1 (strip/splice, 2 priming steps, keystream)
//! → S1 register → S4a (ICRC input) → S4u (CRC) → S4 (ICRC patch; the last beat waits for the
//! final verdict) → S5 output frame FIFO (cut-through: committed as written; store-and-forward:
//! committed at a good last beat, rewound at a bad one) → output register. The verdict of the
//! verdict-queue head is taken once its final descriptor and its authentication result (frame
//! through G, E_K(J0), hash; registered by the emit, so a cycle after those are in) are in.
//!
//! Not modelled: the IPv4/UDP length-overflow rejection and the RTL's table limits (RX QP state
//! table full, no PD key slot), as in the protect layer.
//!
//! All times are clock cycles counted from 0 = the first cycle of the run.

use crate::engine::Verifier;
use crate::keys::{KeyFile, KeyFileError};
use crate::roce::{self, Frame};
use crate::sechdr::Mode;
use crate::stage::key::QpId;
use crate::timing::{
    ghash_feeds, header_view, wide_pack, CacheTag, Crypto, CryptoParams, KeyCache, SplitMix64,
    Traffic,
};
use std::collections::VecDeque;

// ------------------------------------------------------------------------------------------
// Parameters
// ------------------------------------------------------------------------------------------

/// Stage `parse` and the input side of `rtl/top/rocesec_verify.sv`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseParams {
    /// As the protect top's (beat bytes 16, packet FIFO `FifoBeats` 512, header window 9
    /// beats, `ParseLatency` 2); `queue_room` is the header queue's room: `hq_count < 2` in
    /// `hq_room`.
    pub common: crate::timing::ParseParams,
    /// `s_axis_tready_o` is also low while the final-descriptor queue holds this many entries:
    /// `fq_count < FinDepth - 2` = 14 in `hq_room` (`FinDepth` 16: it also holds the
    /// descriptors of the frames decided and waiting for their verdict).
    pub fin_room: usize,
}

/// Stage `key`: `rtl/top/rocesec_verify_key.sv`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyParams {
    /// Stage D (decides 2 cycles after taking the header: D1 lookups, D2 decision), `StKey`
    /// lookup (1), derived-key cache (8 entries) and KDF: the same `rocesec_key_cache` +
    /// `kdf_cmac` as the protect top's key stage, so the protect layer's constants.
    pub common: crate::timing::KeyParams,
    /// Frames decided whose verdict is pending (`VqDepth` = 8 in `rocesec_verify.sv`):
    /// `job_valid_o` needs `vq_room`.
    pub verdict_depth: usize,
}

/// Stage `emit`: `rtl/top/rocesec_verify_emit.sv` (G, delay FIFO, S1, S4, S5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmitParams {
    /// Job table slots (`NumJobs` = 8): a slot is freed when the frame's last beat leaves S4.
    pub jobs: usize,
    /// Delay FIFO between G and S1 in beats (`DlyBeats` = 8).
    pub delay_beats: usize,
    /// Bytes the verify top removes from a processed frame: SecHdr 8 + ICV 16
    /// (`rocesec_pkg::Overhead`).
    pub overhead: usize,
    /// Output offset shift of the payload: the SecHdr (`rocesec_pkg::SecHdrBytes` = 8;
    /// S1's `pstart = poff - 8`).
    pub sechdr: usize,
    /// ICV bytes (`rocesec_pkg::IcvBytes` = 16): authentication waits for the hash only when
    /// the frame holds the ICV's start (`jt_flen_q >= eoff`).
    pub icv: usize,
    /// Steps S1 takes before its first output beat (`sp_n_q < 2`: the 3-beat window is primed).
    pub prime_steps: usize,
    /// Output frame FIFO depth in beats (`FrameBeats` = 512).
    pub frame_beats: usize,
    /// Cycles from the verdict (`fin_take` in the key stage) to the done bit (`done_v_q` in
    /// `rocesec_job_slots`): 2 (`done_valid_o` register, job-table write).
    pub done_cycles: u64,
}

/// Every timing constant of the verify top, grouped by stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Stage `parse` and the input FIFO.
    pub parse: ParseParams,
    /// Stage `key`.
    pub key: KeyParams,
    /// Stage `crypto`: `rocesec_ctr` (shared with the protect top) and `GhashLatency`.
    pub crypto: CryptoParams,
    /// Stage `emit`.
    pub emit: EmitParams,
}

impl Params {
    /// The verify top as built (LANES = 1).
    pub const RTL: Params = Params {
        parse: ParseParams {
            common: crate::timing::Params::RTL.parse,
            fin_room: 14,
        },
        key: KeyParams {
            common: crate::timing::Params::RTL.key,
            verdict_depth: 8,
        },
        crypto: crate::timing::Params::RTL.crypto,
        emit: EmitParams {
            jobs: 8,
            delay_beats: 8,
            overhead: 24,
            sechdr: 8,
            icv: 16,
            prime_steps: 2,
            frame_beats: 512,
            done_cycles: 2,
        },
    };

    /// The verify top as built with LANES = 4 (`rocesec_verify_4`): 64-byte beats and the
    /// LANES = 4 input side and crypto stage of [`crate::timing::Params::RTL_LANES4`]; final
    /// descriptors queue room 32 - 4 (`FinDepth - DqInFlight`), header descriptors 8 - 4
    /// (`HqDepth - DqInFlight`); 32 frames in flight (`NumJobs` = `VqDepth`); S1 primes
    /// NPrev = ceil(24 / 64) = 1 beat; delay FIFO 16 beats.
    pub const RTL_LANES4: Params = Params {
        parse: ParseParams {
            common: crate::timing::ParseParams {
                queue_room: 4,
                ..crate::timing::Params::RTL_LANES4.parse
            },
            fin_room: 28,
        },
        key: KeyParams {
            verdict_depth: 32,
            ..Self::RTL.key
        },
        crypto: crate::timing::Params::RTL_LANES4.crypto,
        emit: EmitParams {
            jobs: 32,
            delay_beats: 16,
            prime_steps: 1,
            ..Self::RTL.emit
        },
    };

    /// The built configuration for `lanes` 128-bit lanes per beat (1 or 4), or `None`.
    pub fn for_lanes(lanes: u32) -> Option<Params> {
        match lanes {
            1 => Some(Self::RTL),
            4 => Some(Self::RTL_LANES4),
            _ => None,
        }
    }
}

impl Default for Params {
    fn default() -> Self {
        Self::RTL
    }
}

/// Cycles the co-simulation driver keeps clocking after the last expected frame when fewer
/// frames leave than enter (store-and-forward drops), watching for an extra frame
/// (`RocesecProtect::run_expect`); it counts `kdf_busy_o` in them too.
pub const DRIVER_TAIL: u64 = 64;

/// Output mode of the verify top (control register 0x0C00 bit 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutMode {
    /// Every frame leaves; the verdict is `tuser` on its last beat.
    CutThrough,
    /// A frame leaves only after a good verdict; a rejected frame never leaves.
    StoreForward,
}

// ------------------------------------------------------------------------------------------
// Frames
// ------------------------------------------------------------------------------------------

/// How stage `key` processes a frame (it goes to crypto).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Process {
    /// Protection mode (SecHdr).
    pub mode: Mode,
    /// Byte offset of the IP header (start of the AAD).
    pub ip_off: usize,
    /// Byte offset of the (encrypted) payload in the protected frame.
    pub payload_off: usize,
    /// Byte offset of the ICV (end of the payload).
    pub payload_end: usize,
    /// The packet key's cache tag.
    pub key: CacheTag,
    /// Its commit promotes the QP's epoch (`vq_promote_q`).
    pub promote: bool,
}

/// One input frame, reduced to what the verify top's timing depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameProfile {
    /// Frame length in bytes.
    pub len: usize,
    /// `Some` when stage `key` processes the frame, `None` when it forwards it unchanged or
    /// rejects it on the header.
    pub process: Option<Process>,
    /// The QP (destination GID, QPN) of a frame whose descriptor has `sec_valid`, for the
    /// decide-ahead conflicts (see `raw_descriptor`: also for a frame parse rejects).
    pub qp: Option<QpId>,
    /// SecHdr PN.
    pub pn: u64,
    /// WRITE First (`vq_wfirst_q`).
    pub write_first: bool,
    /// WRITE Middle/Last (`wcont`).
    pub write_cont: bool,
    /// The final verdict rejects the frame (store-and-forward discards it).
    pub rejected: bool,
}

/// Profile `frames` with the functional model (`Verifier`, in order, QP state carried from frame
/// to frame: the RTL's decisions equal the sequential ones), as the verify top sees them.
///
/// # Errors
/// [`KeyFileError`] for a key file with a bad secret.
pub fn profile(
    p: &Params,
    keys: &KeyFile,
    frames: &[Vec<u8>],
) -> Result<Vec<FrameProfile>, KeyFileError> {
    let mut v = Verifier::new(keys)?;
    let window = p.parse.common.window_beats * p.parse.common.beat_bytes;
    let mut out = Vec::with_capacity(frames.len());
    for f in frames {
        let hv = header_view(f, window);
        let h: &[u8] = hv.as_deref().unwrap_or(f);
        let d = v.rx_selection(h);
        let layout = match roce::parse(h) {
            Ok(Frame::Roce(l)) => Some(l),
            _ => None,
        };
        let process = match (d.as_ref().and_then(|d| d.process.as_ref()), layout) {
            (Some(&(mode, ref s, promote)), Some(l)) if f.len() >= l.payload_off => Some(Process {
                mode,
                ip_off: l.ip_off,
                payload_off: l.payload_off,
                payload_end: l.payload_end,
                key: CacheTag::Key(s.pd, s.epoch, s.key),
                promote,
            }),
            _ => None,
        };
        let rejected = v.verify(f).is_err();
        let (qp, pn, op) = raw_descriptor(h, window);
        // dec_write_first / wcont: RC, UC or XRC (service = opcode[7:5] 0, 1, 5), WRITE First
        // (low 0x06) / Middle, Last, Last with immediate (0x07..0x09)
        let rw = matches!(op >> 5, 0 | 1 | 5);
        out.push(FrameProfile {
            len: f.len(),
            process,
            qp,
            pn,
            write_first: rw && op & 0x1f == 0x06,
            write_cont: rw && matches!(op & 0x1f, 0x07..=0x09),
            rejected,
        });
    }
    Ok(out)
}

/// The descriptor fields the key stage's decide-ahead check reads, as `roce_parse.sv` extracts
/// them: from fixed offsets of the header window whatever the frame's kind (a frame the parser
/// calls not-RoCE or malformed still carries `sec_valid`, `dest_gid`, `dest_qp` and `sec_pn`),
/// so a tampered copy of a pending frame waits for its verdict like the frame itself.
/// `f` is the frame (bytes at or past `window`, the header window in bytes, read as 0).
/// Returns (the QP of a frame with `sec_valid` (BTH TVer = 1), SecHdr PN, BTH opcode).
/// `cosim/tests/roce_parse.rs` checks these against the RTL's descriptor for every frame.
pub fn raw_descriptor(f: &[u8], window: usize) -> (Option<QpId>, u64, u8) {
    let b = |o: usize| -> u8 {
        if o < window {
            f.get(o).copied().unwrap_or(0)
        } else {
            0
        }
    };
    let be16 = |o: usize| (u16::from(b(o)) << 8) | u16::from(b(o + 1));
    let is_vlan = |t: u16| t == 0x8100 || t == 0x88a8;
    // l2_of: up to two 802.1Q / 802.1ad tags
    let mut ethertype = be16(12);
    let mut ip_off = 14;
    if is_vlan(ethertype) {
        ethertype = be16(16);
        ip_off = 18;
        if is_vlan(ethertype) {
            ethertype = be16(20);
            ip_off = 22;
        }
    }
    let ipv6 = ethertype == 0x86dd;
    let hl = if ipv6 {
        40
    } else {
        usize::from(b(ip_off) & 0x0f) * 4
    };
    let mut gid = [0u8; 16];
    for (i, g) in gid.iter_mut().enumerate() {
        *g = if ipv6 {
            b(ip_off + 24 + i)
        } else if i < 10 {
            0
        } else if i < 12 {
            0xff
        } else {
            b(ip_off + 16 + i - 12)
        };
    }
    let udp = ip_off + hl;
    let bth = udp + 8;
    let opcode = b(bth);
    let sec_valid = b(bth + 1) & 0x0f == 1;
    let qpn = (u32::from(b(bth + 5)) << 16) | (u32::from(b(bth + 6)) << 8) | u32::from(b(bth + 7));
    let pn = (0..6).fold(0u64, |a, i| (a << 8) | u64::from(b(udp + 22 + i)));
    (sec_valid.then_some((gid, qpn)), pn, opcode)
}

// ------------------------------------------------------------------------------------------
// Prediction
// ------------------------------------------------------------------------------------------

/// Predicted timing of one frame through the verify top.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameTiming {
    /// Cycle the frame's first input beat is accepted.
    pub first_in: u64,
    /// Cycle the frame's last output beat leaves; `None` for a frame store-and-forward
    /// discards (it never leaves: the co-simulation driver has no output cycle for it either).
    pub last_out: Option<u64>,
    /// Cycle the key stage takes the frame's verdict (`fin_take`).
    pub verdict: u64,
    /// Cycle its last beat passes S4 into the output frame FIFO (written, or discarded).
    pub s5: u64,
}

impl FrameTiming {
    /// Latency in cycles, first input beat to last output beat (`None` if it never leaves).
    pub fn latency(&self) -> Option<u64> {
        self.last_out.map(|o| o.saturating_sub(self.first_in))
    }
}

/// Predicted timing of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Prediction {
    /// Per frame, in order.
    pub frames: Vec<FrameTiming>,
    /// Cycles of the run as the co-simulation driver counts them: up to and including the later
    /// of the last output beat and the last input beat accepted.
    pub cycles: u64,
    /// Cycles the KDF was busy (the RTL's `kdf_busy_o`), counted as the co-simulation driver
    /// counts them: over the run's `cycles`, plus [`DRIVER_TAIL`] cycles when a frame is
    /// discarded (a derivation for a trailing rejected frame may still be running then).
    pub kdf_cycles: u64,
    /// Cycles stage D of stage `key` could have decided (stage J free) but waited for a
    /// conflicting frame's verdict.
    pub conflict_cycles: u64,
    /// False when the model stopped without progress (never expected).
    pub complete: bool,
}

impl Prediction {
    /// Latencies of the frames that leave, in order (the driver's per-packet figure).
    pub fn latencies(&self) -> Vec<u64> {
        self.frames
            .iter()
            .filter_map(FrameTiming::latency)
            .collect()
    }
}

/// A beat: frame, index (input beat in G, output beat after S1), last.
#[derive(Clone, Copy, Debug)]
struct Beat {
    f: usize,
    k: usize,
    last: bool,
}

/// Per-frame schedule.
#[derive(Clone, Debug, Default)]
struct Plan {
    in_beats: usize,
    process: bool,
    /// Keystream blocks of the job and the first output beat popping one (`pbeat`).
    nks: usize,
    ks_beat: usize,
    /// GHASH blocks fed while input beat k sits in G, and the beat of the length block.
    feeds: Vec<u32>,
    final_beat: Option<usize>,
    /// Authentication waits for the hash (the frame holds the ICV's start).
    needs_hash: bool,
}

fn plan(p: &Params, fp: &FrameProfile) -> Plan {
    let bb = p.parse.common.beat_bytes.max(1);
    let in_beats = fp.len.div_ceil(bb).max(1);
    let Some(pr) = fp.process else {
        return Plan {
            in_beats,
            ..Plan::default()
        };
    };
    let pend = pr.payload_end.max(pr.payload_off);
    let nks = if pr.mode == Mode::Aead {
        (pend - pr.payload_off).div_ceil(bb)
    } else {
        0
    };
    // G hashes the input: AAD [ip_off, P) (packet-auth [ip_off, E)), C = [P, E) in AEAD.
    let (feeds, final_beat) = ghash_feeds(bb, in_beats, pr.mode, pr.ip_off, pr.payload_off, pend);
    Plan {
        in_beats,
        process: true,
        nks,
        ks_beat: pr.payload_off.saturating_sub(p.emit.sechdr) / bb,
        feeds,
        final_beat,
        needs_hash: fp.len >= pend,
    }
}

/// Input side: the source, the packet FIFO and the parse tap (descriptor queues).
struct Parse {
    next: (usize, usize),
    held: Option<(usize, usize)>,
    fifo: VecDeque<(usize, usize)>,
    /// Header descriptors (frame, cycle visible to the key stage).
    hq: VecDeque<(usize, u64)>,
    /// Final descriptors (frame, cycle visible); popped at the frame's verdict.
    fq: VecDeque<(usize, u64)>,
    last_in: u64,
}

/// Stage J of the key stage (`state_e` of `rocesec_verify_key.sv`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum KeyState {
    /// `StIdle`: free for the next decision.
    Idle,
    /// `StKey`, lookup cycle(s).
    Look(u64),
    /// `StKey` on a miss after the lookup, for `left` more cycles (all but the last with the
    /// cache's `busy_o` high).
    Kdf(u64),
    /// `StJob`.
    Job,
}

/// Stage `key`: stage D (the header under decision, waiting while a conflict holds), stage J
/// (key fetch and job issue), the derived-key cache + KDF and the verdict queue.
struct Key {
    /// Stage D: frame and the first cycle it may be decided in.
    d: Option<(usize, u64)>,
    /// Stage J.
    state: KeyState,
    /// Frame in stage J.
    cur: usize,
    cache: KeyCache,
    /// KDF busy intervals (first cycle, cycles).
    kdf_busy: Vec<(u64, u64)>,
    conflict_cycles: u64,
    /// Verdict queue: frames `vq_head..vq_tail` decided, verdict pending.
    vq_head: usize,
    vq_tail: usize,
}

/// Stage `emit`: job table, G, delay FIFO, S1, S4, S5 and the output register.
struct Emit {
    in_flight: usize,
    /// `u_pkt_skid` (between the packet FIFO and G) holds a beat: the front of `parse.fifo`.
    pkt_skid: bool,
    /// The authentication walk's registered result for the verdict-queue head
    /// (`auth_valid_q`): its inputs were in during the last cycle and it was the head then,
    /// no take in between.
    auth_valid: bool,
    /// G register: beat and GHASH blocks still to feed.
    g: Option<(Beat, u32)>,
    /// Frame whose length block is pending in `rocesec_ghash_feed` (`len_pend_q`).
    len_pend: Option<usize>,
    /// Block queue of `rocesec_ghash_feed_wide` (LANES > 1): (frame, last block of its message).
    gq: VecDeque<(usize, bool)>,
    /// G is inside a frame (`g0_mid_q`).
    g_mid: bool,
    dq: VecDeque<Beat>,
    /// S1 splice.
    sp_active: bool,
    sp_f: usize,
    sp_n: usize,
    sp_taken: usize,
    sp_ks_used: usize,
    sp_drain: usize,
    s1: Option<Beat>,
    /// `rocesec_icrc_patch` stage A (the beat feeds the ICRC).
    s4a: Option<Beat>,
    /// `rocesec_icrc_patch` stage U: the CRC and the patch lanes are registered.
    s4u: Option<Beat>,
    s4: Option<Beat>,
    /// Output frame FIFO: beats written and not read; the first `fo_committed` are readable.
    fo: VecDeque<Beat>,
    fo_committed: usize,
    fo_ovf: bool,
    /// Output register (`m_axis_tvalid_o`).
    out: Option<Beat>,
}

/// Predict the timing of `frames` through the verify top with parameters `p` in output mode
/// `mode`, drawing the per-cycle stimulus from `rng` with `traffic` exactly as the co-simulation
/// driver does. Never panics; stops (with `complete = false`) if nothing resolves for 10^6
/// cycles.
pub fn predict(
    p: &Params,
    frames: &[FrameProfile],
    mode: OutMode,
    traffic: Traffic,
    rng: &mut SplitMix64,
) -> Prediction {
    const NEVER: u64 = u64::MAX;
    let n = frames.len();
    let saf = mode == OutMode::StoreForward;
    let plans: Vec<Plan> = frames.iter().map(|f| plan(p, f)).collect();
    let pp = &p.parse.common;
    let kp = &p.key.common;
    let kdf = kp.kdf;
    let ep = &p.emit;
    let mut res = Prediction {
        frames: vec![FrameTiming::default(); n],
        complete: true,
        ..Prediction::default()
    };
    let mut job_vis = vec![NEVER; n];
    let mut ekj0_vis = vec![NEVER; n];
    let mut hash_vis = vec![NEVER; n];
    let mut gend_vis = vec![NEVER; n];
    let mut done_vis = vec![NEVER; n];

    let mut parse = Parse {
        next: (0, 0),
        held: None,
        fifo: VecDeque::new(),
        hq: VecDeque::new(),
        fq: VecDeque::new(),
        last_in: 0,
    };
    let mut key = Key {
        d: None,
        state: KeyState::Idle,
        cur: 0,
        cache: KeyCache::new(kp.cache_entries),
        kdf_busy: Vec::new(),
        conflict_cycles: 0,
        vq_head: 0,
        vq_tail: 0,
    };
    let mut crypto = Crypto::default();
    let mut emit = Emit {
        in_flight: 0,
        pkt_skid: false,
        auth_valid: false,
        g: None,
        len_pend: None,
        gq: VecDeque::new(),
        g_mid: false,
        dq: VecDeque::new(),
        sp_active: false,
        sp_f: 0,
        sp_n: 0,
        sp_taken: 0,
        sp_ks_used: 0,
        sp_drain: 0,
        s1: None,
        s4a: None,
        s4u: None,
        s4: None,
        fo: VecDeque::new(),
        fo_committed: 0,
        fo_ovf: false,
        out: None,
    };
    let mut resolved = 0usize;
    let mut last_out = 0u64;
    let mut quiet = 0u64;
    let mut c = 0u64;
    while resolved < n {
        let stim = traffic.draw(rng);
        // Registered state at the start of the cycle.
        // `parse.fifo` holds the beats of the packet FIFO and the one in `u_pkt_skid` (its front)
        let pkt_avail0 = !parse.fifo.is_empty();
        let pkt_count0 = parse.fifo.len() - usize::from(emit.pkt_skid);
        let hq_count0 = parse.hq.iter().filter(|e| e.1 <= c).count();
        let fq_count0 = parse.fq.iter().filter(|e| e.1 <= c).count();
        let ks_count0 = crypto.ks_count;
        let ks_inflight0 = crypto.ks_inflight;
        let in_flight0 = emit.in_flight;
        let dq_len0 = emit.dq.len();
        let fo_len0 = emit.fo.len();
        let fo_committed0 = emit.fo_committed;
        let vq_head0 = key.vq_head;
        let vq_count0 = key.vq_tail - key.vq_head;

        // ---- output register (m_axis) and the read side of the output frame FIFO ----
        let tvalid0 = emit.out.is_some();
        if let Some(b) = emit.out {
            if !stim.stall {
                emit.out = None;
                if b.last {
                    res.frames[b.f].last_out = Some(c);
                    last_out = c;
                    resolved += 1;
                    quiet = 0;
                }
            }
        }
        if !tvalid0 || !stim.stall {
            // m_axis_tvalid_o <= (fo_rd_q != fo_cm_q)
            if fo_committed0 > 0 {
                emit.out = emit.fo.pop_front();
                emit.fo_committed -= 1;
            }
        }

        // ---- S4 (ICRC patch): the last beat waits for the verdict; S5 write side ----
        let fo_full = fo_len0 >= ep.frame_beats;
        let ovf_now = saf && fo_full && fo_committed0 == 0;
        let s5_ready = !fo_full || emit.fo_ovf || ovf_now;
        if let Some(b) = emit.s4 {
            if s5_ready && (!b.last || done_vis[b.f] <= c) {
                emit.s4 = None;
                let bad = saf && b.last && frames[b.f].rejected;
                let discard = emit.fo_ovf || ovf_now;
                if !discard && !bad {
                    emit.fo.push_back(b);
                }
                if !saf {
                    emit.fo_committed = emit.fo.len();
                } else if ovf_now {
                    emit.fo_ovf = true;
                }
                if b.last {
                    emit.in_flight = emit.in_flight.saturating_sub(1);
                    res.frames[b.f].s5 = c;
                    if saf {
                        if bad || discard {
                            // rewind: the frame never leaves
                            emit.fo.truncate(emit.fo_committed);
                            resolved += 1;
                            quiet = 0;
                        } else {
                            emit.fo_committed = emit.fo.len();
                        }
                        emit.fo_ovf = false;
                    }
                }
            }
        }
        // S4u, S4a: the CRC stage and the ICRC input register of `rocesec_icrc_patch`
        if emit.s4.is_none() {
            emit.s4 = emit.s4u.take();
        }
        if emit.s4u.is_none() {
            emit.s4u = emit.s4a.take();
        }
        let s1_ready = emit.s4a.is_none();
        if s1_ready {
            emit.s4a = emit.s1.take();
        }

        // ---- S1 strip/splice ----
        let mut ks_pop = false;
        let mut s1_out: Option<Beat> = None;
        if emit.sp_drain > 0 {
            // a cut frame's unused keystream, one block per cycle, then the next frame
            if ks_count0 > 0 {
                ks_pop = true;
                emit.sp_drain -= 1;
                if emit.sp_drain == 0 {
                    emit.sp_active = false;
                }
            }
        } else {
            let head = (dq_len0 > 0)
                .then(|| emit.dq.front().map(|b| b.f))
                .flatten();
            let f = if emit.sp_active {
                Some(emit.sp_f)
            } else {
                head
            };
            if let Some(f) = f {
                let pl = &plans[f];
                if !pl.process {
                    // unchanged frame: one beat per step
                    if s1_ready && dq_len0 > 0 {
                        if let Some(b) = emit.dq.pop_front() {
                            s1_out = Some(Beat {
                                f,
                                k: emit.sp_n,
                                last: b.last,
                            });
                            emit.sp_active = !b.last;
                            emit.sp_f = f;
                            emit.sp_n = if b.last { 0 } else { emit.sp_n + 1 };
                        }
                    }
                } else {
                    let in_done = emit.sp_taken >= pl.in_beats;
                    let have_in = dq_len0 > 0 && !in_done;
                    let prime = emit.sp_n < ep.prime_steps;
                    let m = emit.sp_n.saturating_sub(ep.prime_steps);
                    let need_ks = !prime && m >= pl.ks_beat && m - pl.ks_beat < pl.nks;
                    let step = if prime {
                        have_in || in_done
                    } else {
                        s1_ready && (in_done || dq_len0 > 0) && (!need_ks || ks_count0 > 0)
                    };
                    if step {
                        emit.sp_active = true;
                        emit.sp_f = f;
                        let mut done_now = in_done;
                        if !in_done {
                            emit.dq.pop_front();
                            emit.sp_taken += 1;
                            done_now = emit.sp_taken >= pl.in_beats;
                        }
                        emit.sp_n += 1;
                        if !prime {
                            let olen = frames[f].len.saturating_sub(ep.overhead);
                            let bb = pp.beat_bytes.max(1);
                            let last = done_now && (m + 1) * bb >= olen;
                            ks_pop = need_ks;
                            emit.sp_ks_used += usize::from(need_ks);
                            s1_out = Some(Beat { f, k: m, last });
                            if last {
                                emit.sp_n = 0;
                                emit.sp_taken = 0;
                                emit.sp_drain = pl.nks.saturating_sub(emit.sp_ks_used);
                                emit.sp_ks_used = 0;
                                emit.sp_active = emit.sp_drain > 0;
                                // a last beat made without input (`sp_chain`): the step also
                                // primes the next frame with its first beat, if it is processed
                                let next = (in_done && emit.sp_drain == 0 && dq_len0 > 0)
                                    .then(|| emit.dq.front().map(|b| b.f))
                                    .flatten()
                                    .filter(|&g| plans[g].process);
                                if let Some(g) = next {
                                    emit.dq.pop_front();
                                    emit.sp_active = true;
                                    emit.sp_f = g;
                                    emit.sp_n = 1;
                                    emit.sp_taken = 1;
                                }
                            }
                        }
                    }
                }
            }
        }
        if s1_ready {
            emit.s1 = s1_out;
        }

        // ---- G: GHASH feed register (one block per cycle, a pending length block first),
        // delay FIFO write ----
        let len_pend0 = emit.len_pend.take();
        if let Some(f) = len_pend0 {
            hash_vis[f] = c + p.crypto.ghash_latency + 1;
        }
        if p.crypto.ghash_lanes > 1 {
            // rocesec_ghash_feed_wide (see `timing::wide_pack`): the beat passes with its blocks
            // when the delay FIFO and the block queue have room
            let cnt0 = emit.gq.len();
            let n_iss = wide_pack(&p.crypto, c, &mut emit.gq, &mut hash_vis);
            if let Some((b, _)) = emit.g {
                let pl = &plans[b.f];
                let fin = pl.final_beat == Some(b.k);
                let n_new = pl.feeds.get(b.k).copied().unwrap_or(0) as usize + usize::from(fin);
                if dq_len0 < ep.delay_beats && cnt0 - n_iss + n_new <= p.crypto.ghash_queue {
                    for j in 0..n_new {
                        emit.gq.push_back((b.f, fin && j + 1 == n_new));
                    }
                    emit.dq.push_back(b);
                    emit.g = None;
                    if b.last {
                        gend_vis[b.f] = c + 1;
                    }
                }
            }
        } else if let Some((b, rem)) = emit.g.as_mut() {
            if *rem > 0 && len_pend0.is_none() {
                *rem -= 1;
                if *rem == 0 && plans[b.f].final_beat == Some(b.k) {
                    emit.len_pend = Some(b.f);
                }
            }
            if *rem == 0 && dq_len0 < ep.delay_beats {
                let b = *b;
                emit.dq.push_back(b);
                emit.g = None;
                if b.last {
                    gend_vis[b.f] = c + 1;
                }
            }
        }
        let mut g_took = false;
        if emit.g.is_none() && pkt_avail0 {
            // input walker: a frame enters once its job is in the table (g_lag_q)
            if let Some(&(f, k)) = parse.fifo.front() {
                if emit.g_mid || job_vis[f] <= c {
                    parse.fifo.pop_front();
                    g_took = true;
                    let last = k + 1 >= plans[f].in_beats;
                    emit.g_mid = !last;
                    let fe = plans[f].feeds.get(k).copied().unwrap_or(0);
                    emit.g = Some((Beat { f, k, last }, fe));
                }
            }
        }
        // u_pkt_skid (registered ready): the FIFO pops into it while it is empty, and the beat
        // stays there unless the walker takes it in this cycle
        emit.pkt_skid = (emit.pkt_skid || pkt_count0 > 0) && !g_took;

        // ---- crypto: CTR generator and AES pipeline ----
        crypto.step(
            &p.crypto,
            c,
            &job_vis,
            |f| (plans[f].process, plans[f].nks),
            ks_count0,
            ks_inflight0,
            ks_pop,
            &mut ekj0_vis,
        );

        // ---- key stage: verdict of the verdict-queue head (fin_take) ----
        // The emit's authentication walk registers its result (`auth_valid_q`, session 43): the
        // head's verdict is taken in cycle c only if its inputs (frame through G, E_K(J0),
        // hash) were in at c - 1 and it was the head then. So it comes one cycle after its
        // inputs, and never in the cycle right after a take.
        let mut auth_d = false;
        if vq_count0 > 0 {
            let h = vq_head0;
            let fin = parse.fq.front().is_some_and(|e| e.0 == h && e.1 <= c);
            let pl = &plans[h];
            auth_d = !pl.process
                || (gend_vis[h] <= c && ekj0_vis[h] <= c && (!pl.needs_hash || hash_vis[h] <= c));
            if fin && emit.auth_valid {
                parse.fq.pop_front();
                key.vq_head += 1;
                done_vis[h] = c + ep.done_cycles;
                res.frames[h].verdict = c;
                auth_d = false;
            }
        }
        emit.auth_valid = auth_d;

        // ---- key stage: stage J (key fetch, job issue) ----
        let hq_front = parse.hq.front().filter(|e| e.1 <= c).map(|e| e.0);
        let mut j_free = false;
        match key.state {
            KeyState::Idle => j_free = true,
            KeyState::Look(left) if left > 1 => key.state = KeyState::Look(left - 1),
            KeyState::Look(_) => {
                key.state = KeyState::Job;
                if let Some(pr) = frames[key.cur].process {
                    if !key.cache.cache_hit(&pr.key) {
                        let left = key.cache.miss(kdf, &pr.key);
                        let busy = left.saturating_sub(kdf.rsp_cycles);
                        key.kdf_busy.push((c + 1, busy));
                        key.state = KeyState::Kdf(left);
                    }
                }
            }
            KeyState::Kdf(left) => {
                key.state = if left > 1 {
                    KeyState::Kdf(left - 1)
                } else {
                    KeyState::Job
                };
            }
            KeyState::Job => {
                if vq_count0 < p.key.verdict_depth && in_flight0 < ep.jobs {
                    job_vis[key.cur] = c + 1;
                    emit.in_flight += 1;
                    key.vq_tail = key.cur + 1;
                    key.state = KeyState::Idle;
                    j_free = true;
                }
            }
        }
        // ---- key stage: stage D (decide when J is free and no earlier pending frame of the
        // QP, in the verdict queue or in J, could change the decision by committing). The RTL's
        // one further wait, a policy write since a fresh entry's pending frame was decided
        // (session 41), is left out: this model's runs make no register writes. ----
        if let Some((f, from)) = key.d {
            if j_free && from <= c {
                let cur = &frames[f];
                // J's frame is in vq_head0..vq_tail here: J is free only when it is idle or
                // issues its job in this cycle (vq_tail = its frame + 1).
                let conflict = cur.qp.is_some()
                    && (vq_head0..key.vq_tail).any(|k| {
                        let e = &frames[k];
                        e.process.is_some_and(|pr| {
                            e.qp == cur.qp
                                && (e.pn == cur.pn
                                    || e.pn >= cur.pn.saturating_add(64)
                                    || pr.promote
                                    || (e.write_first && cur.write_cont))
                        })
                    });
                if conflict {
                    key.conflict_cycles += 1;
                } else {
                    key.cur = f;
                    key.state = if plans[f].process {
                        KeyState::Look(kp.look_cycles)
                    } else {
                        KeyState::Job
                    };
                    key.d = None;
                }
            }
        }
        if key.d.is_none() {
            if let Some(f) = hq_front {
                parse.hq.pop_front();
                key.d = Some((f, c + kp.decide_cycles));
            }
        }

        // ---- input: source, packet FIFO, parse tap ----
        if parse.held.is_none() && parse.next.0 < n && !stim.idle {
            parse.held = Some(parse.next);
            let (f, b) = parse.next;
            parse.next = if b + 1 >= plans[f].in_beats {
                (f + 1, 0)
            } else {
                (f, b + 1)
            };
        }
        let tready =
            pkt_count0 < pp.fifo_beats && hq_count0 < pp.queue_room && fq_count0 < p.parse.fin_room;
        if let (Some((f, b)), true) = (parse.held, tready) {
            parse.held = None;
            parse.fifo.push_back((f, b));
            parse.last_in = c;
            let nb = plans[f].in_beats;
            let vis = c + pp.latency + 2;
            if b == 0 {
                res.frames[f].first_in = c;
            }
            if b + 1 == nb.min(pp.window_beats.max(1)) {
                parse.hq.push_back((f, vis));
            }
            if b + 1 == nb {
                parse.fq.push_back((f, vis));
            }
        }

        c += 1;
        quiet += 1;
        if quiet > 1_000_000 {
            res.complete = false;
            break;
        }
    }
    res.cycles = if n == 0 {
        0
    } else {
        last_out.max(parse.last_in) + 1
    };
    let horizon = res.cycles
        + if res.frames.iter().any(|t| t.last_out.is_none()) {
            DRIVER_TAIL
        } else {
            0
        };
    res.kdf_cycles = key
        .kdf_busy
        .iter()
        .map(|&(a, l)| a.saturating_add(l).min(horizon).saturating_sub(a))
        .sum();
    res.conflict_cycles = key.conflict_cycles;
    res
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::engine::Protector;
    use crate::roce::build::Builder;
    use crate::timing::Accuracy;

    fn demo(mode: Mode) -> KeyFile {
        let mut k = KeyFile::demo().unwrap();
        k.force_mode(mode);
        k
    }

    /// `lens` SENDs of the demo QP, protected by the model (PSN = PN order).
    fn protected(keys: &KeyFile, lens: &[usize]) -> Vec<Vec<u8>> {
        let mut p = Protector::new(keys).unwrap();
        lens.iter()
            .enumerate()
            .map(|(i, &l)| {
                let f = Builder::new(0x04, i as u32 + 1, &vec![0x5a; l]).build();
                p.protect(&f).unwrap().1
            })
            .collect()
    }

    fn run(frames: &[Vec<u8>], keys: &KeyFile, p: &Params, m: OutMode, t: Traffic) -> Prediction {
        let prof = profile(p, keys, frames).unwrap();
        predict(p, &prof, m, t, &mut SplitMix64::new(9))
    }

    const LINE: Traffic = Traffic { idle: 0, stall: 0 };

    #[test]
    fn a_cold_key_costs_one_qp_derivation_and_its_h() {
        let keys = demo(Mode::Aead);
        let f = protected(&keys, &[64, 64]);
        let prof = profile(&Params::RTL, &keys, &f).unwrap();
        assert!(prof.iter().all(|x| x.process.is_some() && !x.rejected));
        let kdf = Params::RTL.key.common.kdf;
        let d = kdf.derivation_cycles(kdf.qp_msg_bytes, false) + kdf.h_cycles();
        let cold = run(&f[..1], &keys, &Params::RTL, OutMode::CutThrough, LINE);
        let warm = run(&f, &keys, &Params::RTL, OutMode::CutThrough, LINE);
        assert_eq!(cold.kdf_cycles, d);
        assert_eq!(warm.kdf_cycles, d, "the second frame hits the cache");
        let mut p = Params::RTL;
        p.key.common.kdf.aes_cycles = 0;
        p.key.common.kdf.block_start_cycles = 0;
        p.key.common.kdf.subkey_start_cycles = 0;
        p.key.common.kdf.req_cycles = 0;
        p.key.common.kdf.respond_cycles = 0;
        let fast = run(&f[..1], &keys, &p, OutMode::CutThrough, LINE);
        assert_eq!(
            cold.frames[0].latency().unwrap(),
            fast.frames[0].latency().unwrap() + d
        );
    }

    #[test]
    fn store_and_forward_waits_for_the_whole_frame_and_its_verdict() {
        for mode in [Mode::HeaderAuth, Mode::PacketAuth, Mode::Aead] {
            let keys = demo(mode);
            let f = protected(&keys, &[1000]);
            let ct = run(&f, &keys, &Params::RTL, OutMode::CutThrough, LINE);
            let sf = run(&f, &keys, &Params::RTL, OutMode::StoreForward, LINE);
            let (a, b) = (ct.frames[0], sf.frames[0]);
            // cut-through: the last beat waits for the verdict, then S4 → FIFO → register;
            // store-and-forward: the frame is committed at its last beat, then read out whole.
            let out_beats = (f[0].len() - 24).div_ceil(16) as u64;
            assert!(b.last_out.unwrap() > a.last_out.unwrap(), "{mode:?}");
            // done 2 cycles after the verdict, S4 → FIFO (1), commit seen (1), register (1)
            assert!(a.last_out.unwrap() >= a.verdict + 4, "{mode:?}");
            assert!(b.last_out.unwrap() > b.s5 + out_beats, "{mode:?}");
        }
    }

    #[test]
    fn a_rejected_frame_never_leaves_in_store_and_forward() {
        let keys = demo(Mode::Aead);
        let mut f = protected(&keys, &[200, 300, 400]);
        let n = f[1].len();
        f[1][n - 10] ^= 1; // ICV bit (before the ICRC): auth-fail (bad ICRC first, anyway)
        let prof = profile(&Params::RTL, &keys, &f).unwrap();
        assert!(prof[1].rejected && prof[1].process.is_some());
        let sf = run(&f, &keys, &Params::RTL, OutMode::StoreForward, LINE);
        assert!(sf.complete);
        assert_eq!(sf.frames[1].last_out, None);
        assert!(sf.frames[1].s5 > 0);
        assert_eq!(sf.latencies().len(), 2);
        let ct = run(&f, &keys, &Params::RTL, OutMode::CutThrough, LINE);
        assert!(ct.frames.iter().all(|t| t.last_out.is_some()));
        assert_eq!(ct.latencies().len(), 3);
    }

    #[test]
    fn a_replayed_pn_waits_for_the_verdict_of_the_first() {
        let keys = demo(Mode::HeaderAuth);
        let f = protected(&keys, &[64, 64]);
        let plain = run(&f, &keys, &Params::RTL, OutMode::CutThrough, LINE);
        assert_eq!(plain.conflict_cycles, 0);
        let replay = vec![f[0].clone(), f[0].clone()];
        let prof = profile(&Params::RTL, &keys, &replay).unwrap();
        assert!(
            prof[1].rejected && prof[1].process.is_none(),
            "replay on the header"
        );
        let r = run(&replay, &keys, &Params::RTL, OutMode::CutThrough, LINE);
        assert!(r.conflict_cycles > 0);
        // decided the cycle after the first frame's verdict: its job is issued after it
        assert!(r.frames[1].verdict > r.frames[0].verdict);
    }

    #[test]
    fn the_verdict_queue_and_the_job_table_bound_the_frames_in_flight() {
        let keys = demo(Mode::PacketAuth);
        let f = protected(&keys, &[0; 40]);
        let base = run(&f, &keys, &Params::RTL, OutMode::CutThrough, LINE);
        let mut p = Params::RTL;
        p.key.verdict_depth = 1;
        let one = run(&f, &keys, &p, OutMode::CutThrough, LINE);
        assert!(
            one.cycles > base.cycles,
            "{} vs {}",
            one.cycles,
            base.cycles
        );
        let mut q = Params::RTL;
        q.emit.jobs = 1;
        let j = run(&f, &keys, &q, OutMode::CutThrough, LINE);
        assert!(j.cycles > base.cycles);
    }

    #[test]
    fn no_panic_on_any_input_and_a_stuck_output_stops() {
        let keys = demo(Mode::Aead);
        let mut rng = SplitMix64::new(3);
        let lens: Vec<usize> = (0..150).map(|_| rng.below(1500) as usize).collect();
        let mut frames = protected(&keys, &lens);
        frames.extend([Vec::new(), vec![0; 1], vec![0xff; 9000]]);
        for f in frames.iter_mut() {
            if rng.chance(1, 4) {
                let l = rng.below(f.len() as u64 + 1) as usize;
                f.truncate(l);
            }
            if rng.chance(1, 4) {
                let j = rng.below(f.len().max(1) as u64) as usize;
                if let Some(b) = f.get_mut(j) {
                    *b ^= 0x55;
                }
            }
        }
        for m in [OutMode::CutThrough, OutMode::StoreForward] {
            let p = run(
                &frames,
                &keys,
                &Params::RTL,
                m,
                Traffic { idle: 5, stall: 5 },
            );
            assert!(p.complete, "{m:?}");
            let prof = profile(&Params::RTL, &keys, &frames).unwrap();
            for (t, pr) in p.frames.iter().zip(prof) {
                match t.last_out {
                    Some(o) => assert!(o > t.first_in),
                    // rejected, or larger than the output frame FIFO (drop_oversize_o)
                    None => assert!(
                        m == OutMode::StoreForward
                            && (pr.rejected || pr.len > 16 * Params::RTL.emit.frame_beats),
                        "{pr:?}"
                    ),
                }
            }
        }
        let stuck = run(
            &frames[..3],
            &keys,
            &Params::RTL,
            OutMode::CutThrough,
            Traffic { idle: 0, stall: 16 },
        );
        assert!(!stuck.complete);
        let mut z = Params::RTL;
        z.parse.common.beat_bytes = 0;
        z.key.common.cache_entries = 0;
        z.emit.jobs = 1;
        z.emit.frame_beats = 1;
        assert!(run(&frames[..20], &keys, &z, OutMode::CutThrough, LINE).complete);
        assert!(run(&frames[..20], &keys, &z, OutMode::StoreForward, LINE).complete);
    }

    #[test]
    fn accuracy_pairs_the_frames_that_leave() {
        let keys = demo(Mode::Aead);
        let f = protected(&keys, &[100, 200]);
        let a = run(&f, &keys, &Params::RTL, OutMode::StoreForward, LINE);
        let lat = a.latencies();
        let acc = Accuracy::of(a.cycles, a.cycles, &lat, &lat);
        assert_eq!(acc.exact, 2);
    }
}
