//! Timing layer: a cycle-approximate model of the protect top `rtl/top/rocesec_protect.sv` at
//! LANES = 1, read as the specification of its timing.
//!
//! Given the frames (from the functional model: size, whether and how stage `key` protects them,
//! which derived key they need), the input idle pattern and the output backpressure pattern the
//! co-simulation driver uses (both drawn from one seeded [`SplitMix64`], two draws per cycle, see
//! [`Traffic::draw`]), [`predict`] gives for every frame the cycle its first input beat is
//! accepted and the cycle its last output beat leaves, and the total cycle count of the run.
//!
//! The model steps cycle by cycle but carries no data: every stage is reduced to its occupancy,
//! its fixed latencies and its handshakes, stage by stage as in the RTL
//! (**parse → key → crypto → emit**). All constants are in [`Params`], each field naming the RTL
//! file and the thing it mirrors; [`Params::RTL`] is the design as built. docs/timing.md has the
//! block diagram, the measured error against the RTL and how to reproduce it.
//!
//! Stage `key` decides on the header (the RTL's `hdr_valid_o` descriptor assumes the frame holds
//! its whole IP packet), so a frame shorter than its IP length is timed as the protected frame
//! its header announces, cut at its real length, and S1 then drains the keystream blocks the
//! cut frame did not use. Not modelled: the IPv4/UDP length-overflow rejection and the RTL's
//! table limits (QP state table full, no PD key slot), which the key stage rejects without a
//! derivation while the functional model derives.
//!
//! All times are clock cycles counted from 0 = the first cycle of the run.

use crate::engine::Protector;
use crate::keys::{Gid, KeyFile, KeyFileError, KeyRef};
use crate::roce::{self, Frame};
use crate::sechdr::Mode;
use std::collections::VecDeque;

// ------------------------------------------------------------------------------------------
// Stimulus
// ------------------------------------------------------------------------------------------

/// A small deterministic PRNG (SplitMix64) for stimulus, so runs are reproducible from a seed.
/// The co-simulation driver and the timing layer draw from the same generator.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// Seeded generator.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform value in `0..n` (`n = 0` gives 0; slight modulo bias is irrelevant for stimulus).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64().checked_rem(n).unwrap_or(0)
    }

    /// True with probability `num/den`.
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.below(den) < num
    }

    /// Fill `out` with random bytes.
    pub fn fill(&mut self, out: &mut [u8]) {
        for c in out.chunks_mut(8) {
            let r = self.next_u64().to_le_bytes();
            c.copy_from_slice(&r[..c.len()]);
        }
    }

    /// A random 16-byte block.
    pub fn block(&mut self) -> [u8; 16] {
        let mut b = [0u8; 16];
        self.fill(&mut b);
        b
    }
}

/// Input idle and output backpressure of the co-simulation driver, in 1/16.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Traffic {
    /// Probability (in 1/16) that the source offers no new beat in a cycle.
    pub idle: u64,
    /// Probability (in 1/16) of `m_axis_tready` low in a cycle.
    pub stall: u64,
}

/// What the stimulus does in one cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CycleStim {
    /// The source may not start offering a new beat this cycle (a beat already offered stays
    /// valid, as AXI4-Stream requires).
    pub idle: bool,
    /// `m_axis_tready` is low this cycle.
    pub stall: bool,
}

impl Traffic {
    /// The stimulus of one cycle: exactly two draws, idle then stall, every cycle, so the
    /// pattern is a function of the seed and the cycle number only (the driver and this model
    /// call it once per cycle).
    pub fn draw(&self, rng: &mut SplitMix64) -> CycleStim {
        let idle = rng.chance(self.idle, 16);
        let stall = rng.chance(self.stall, 16);
        CycleStim { idle, stall }
    }
}

// ------------------------------------------------------------------------------------------
// Parameters: every latency and depth, with its origin
// ------------------------------------------------------------------------------------------

/// Stage `parse` and the input side of `rtl/top/rocesec_protect.sv`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseParams {
    /// Bytes per beat: 16 at LANES = 1 (`s_axis_tdata_i` is 128·LANES bits).
    pub beat_bytes: usize,
    /// Packet FIFO depth in beats: `rocesec_protect.sv` parameter `FifoBeats` (512).
    pub fifo_beats: usize,
    /// Beats of the header window: ceil(`roce_parse_pkg::HdrBytes` 142 / 16) = 9; the header
    /// descriptor is issued after the beat completing the window (or after `tlast`).
    pub window_beats: usize,
    /// Cycles from the clock edge that accepts a beat to `hdr_valid_o`/`desc_valid_o`:
    /// `rocesec_pkg::ParseLatency` (2: registers `e1_*_q` and the outputs of `roce_parse.sv`,
    /// after `ev_*_q` at the accepting edge). A descriptor is thus seen by the key stage
    /// `latency + 2` cycles after the cycle its beat was accepted: one for the accepting edge,
    /// one for the write into the descriptor queue (`u_hdr_q`, `u_fin_q`).
    pub latency: u64,
    /// `s_axis_tready_o` is low while either descriptor queue holds this many entries:
    /// `hq_room = hq_count < 2 && fq_count < 2` in `rocesec_protect.sv`.
    pub queue_room: usize,
}

/// The derived-key cache's KDF: `rtl/top/rocesec_key_cache.sv` driving `rtl/kdf/kdf_cmac.sv`
/// (SP 800-108r1 KBKDF, PRF AES-CMAC, on one iterative `rtl/aes/aes_cipher_iter.sv`). All
/// fields are clock cycles unless named `*_bytes`.
///
/// One request (derivation or encryption), from the first cycle of the cache's `St*Req` state
/// to the first cycle of its next state, takes
/// `req_cycles + subkey + blocks · (block_start_cycles + aes_cycles) + respond_cycles`, where
/// `blocks` is 1 for an encryption and `ceil((counter + msg + length) / 16)` for a derivation, and
/// `subkey` is 0 for an encryption (`kdf_cmac` goes `StIdle` → `StBlock`), `subkey_start_cycles`
/// when the parent key is the one of the previous derivation (subkey cache hit) and
/// `subkey_start_cycles + aes_cycles` otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KdfParams {
    /// Cycles of one AES block in `aes_cipher_iter`, from the cycle `start_i` is high to the
    /// cycle `done_o` is seen: `aes_pkg::aes_pipe_latency(128, 2)` = 1 + (2 + 1)·10 = 31 (one
    /// cycle loading AddRoundKey, then per round `SboxLatency` = 2 S-box ROM cycles + 1 round
    /// cycle).
    pub aes_cycles: u64,
    /// `kdf_cmac` `StBlock`: the cycle starting the AES on a message block (then `StWait`).
    pub block_start_cycles: u64,
    /// `kdf_cmac` `StSubkey`: the cycle checking the subkey cache (`cache_valid_q`, set when
    /// `cache_key_q` equals the request key) and, on a miss, starting L = AES(K, 0^128).
    pub subkey_start_cycles: u64,
    /// The cache's `St*Req` state: the cycle presenting the request to `kdf_cmac` (`StIdle`,
    /// `req_ready_o` high; accepted at its end).
    pub req_cycles: u64,
    /// From the end of the last AES block to the cache's next state: `kdf_cmac` `StRespond` (1),
    /// then `rsp_valid_o` from a register seen by the cache's `St*Wait` (1).
    pub respond_cycles: u64,
    /// The cache's `StRsp`: the response cycle after the H request (the key stage leaves `StKey`
    /// in it; `busy_o` is low).
    pub rsp_cycles: u64,
    /// The cache's `StMrLoad`: a node key whose MR key is cached reads that key from the
    /// entries (at the hit vector registered in the request cycle) before its derivation.
    pub mr_load_cycles: u64,
    /// Bytes `kdf_cmac` adds around the KDF message: the counter `[i]_32` and `[L]_32` (4 + 4).
    pub kdf_frame_bytes: u64,
    /// AES block bytes (CMAC block size, SP 800-38B).
    pub block_bytes: u64,
    /// KDF message bytes of a per-QP key (`kdf_len` 33 in `rocesec_key_cache.sv`: label
    /// "rocesec qp" 10, 0x00, GID 16, QPN 3, salt 3; docs/key-hierarchy.md). Every packet key
    /// that is not a node key is derived with this message.
    pub qp_msg_bytes: u64,
    /// KDF message bytes of an MR key (`kdf_len` 31: "rocesec mr" 10, 0x00, GID 16, rkey 4).
    pub mr_msg_bytes: u64,
    /// KDF message bytes of a sub-region node key (`kdf_len` 24: "rocesec region" 14, 0x00,
    /// level 1, index 8).
    pub node_msg_bytes: u64,
}

impl KdfParams {
    /// Cycles of one AES block request step in `kdf_cmac`: `StBlock` + the AES (`StWait`).
    pub fn block_cycles(&self) -> u64 {
        self.block_start_cycles.saturating_add(self.aes_cycles)
    }

    /// Cycles of one derivation with a KDF message of `msg_bytes` bytes, from the first cycle
    /// of the cache's `StMrReq`/`StKeyReq` to the first cycle of its next state; `subkey_hit`:
    /// the parent key equals the previous derivation's (`kdf_cmac` skips L = AES(K, 0)).
    pub fn derivation_cycles(&self, msg_bytes: u64, subkey_hit: bool) -> u64 {
        let blocks = msg_bytes
            .saturating_add(self.kdf_frame_bytes)
            .div_ceil(self.block_bytes.max(1))
            .max(1);
        let subkey = if subkey_hit {
            self.subkey_start_cycles
        } else {
            self.subkey_start_cycles.saturating_add(self.aes_cycles)
        };
        self.req_cycles
            .saturating_add(subkey)
            .saturating_add(blocks.saturating_mul(self.block_cycles()))
            .saturating_add(self.respond_cycles)
    }

    /// Cycles of the H = E_K(0^128) request (`StHReq` to `StRsp`): one AES block, no subkeys
    /// (`req_enc_i` = 1: `kdf_cmac` `StIdle` → `StBlock`).
    pub fn h_cycles(&self) -> u64 {
        self.req_cycles
            .saturating_add(self.block_cycles())
            .saturating_add(self.respond_cycles)
    }
}

/// Stage `key`: `rtl/top/rocesec_protect_key.sv`, one frame at a time, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyParams {
    /// Cycles from a header entering stage D to its earliest decision: 2 (D1: policy entry, QP
    /// identity match and target range registered; D2: PD key slot, QP state read,
    /// classification, key selection and the QP state commit, registered into stage J).
    pub decide_cycles: u64,
    /// Verdict queue entries (`VqDepth` = 8): jobs issued whose final descriptor has not been
    /// taken yet.
    pub verdicts: usize,
    /// Cycles in `StKey` when the derived-key cache hits (`rocesec_key_cache` answers in the
    /// cycle of the request, `rsp_valid_o` combinational from the tag compare): 1. On a miss this
    /// is the lookup cycle (cache `StIdle`) before the derivations.
    pub look_cycles: u64,
    /// Derived-key cache entries (`rocesec_key_cache` `NumCache` = 8, round robin; an MR key
    /// derived on the way to a node key is inserted before the node key, the packet key after
    /// its H).
    pub cache_entries: usize,
    /// The KDF (`kdf_cmac` in `rocesec_key_cache`).
    pub kdf: KdfParams,
}

/// Stage `crypto`: the CTR generator, its `aes_cipher_pipe` and `ghash_core` in
/// `rtl/top/rocesec_protect_emit.sv`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CryptoParams {
    /// AES pipeline latency in cycles, issue to result (`aes_cipher_pipe`, AES-128,
    /// `SboxLatency` 2: 1 + 3·10 = 31).
    pub aes_latency: u64,
    /// Keystream FIFO depth in blocks; blocks in flight + buffered ≤ this (`KsDepth` = 64).
    pub ks_depth: u64,
    /// Cycles from the last GHASH block (the length block) to the hash
    /// (`rocesec_pkg::GhashLatency` = 4, `ghash_core` with `MulStages` = 2).
    pub ghash_latency: u64,
    /// Cycles the CTR generator spends opening a job before issuing J0 (1: `ctr_busy_q`).
    /// Ignored when `j0_in_open` is set.
    pub ctr_start_cycles: u64,
    /// The CTR generator issues J0 in the cycle that opens the job (`open_issue` of
    /// `rocesec_ctr.sv`, LANES > 1).
    pub j0_in_open: bool,
    /// GHASH blocks per beat of the feed: 1 = `rocesec_ghash_feed` (one block per cycle, S2
    /// holds a beat while more blocks end in it); LANES > 1 = `rocesec_ghash_feed_wide` (a
    /// beat's blocks enter a block queue as it passes; a packer issues up to this many blocks
    /// of one message per cycle into `ghash_lanes`; the hash is seen `ghash_latency` cycles after
    /// the issue of the length block).
    pub ghash_lanes: usize,
    /// Block queue depth of `rocesec_ghash_feed_wide` (`QDepth` = 4·LANES); unused at 1.
    pub ghash_queue: usize,
}

/// Stage `emit`: `rtl/top/rocesec_protect_emit.sv` (S1 splice, S2 GHASH feed, delay FIFO,
/// S3 ICV, S4a ICRC input, S4u ICRC CRC stage, S4 ICRC patch and verdict, S5 output register).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmitParams {
    /// Frames in flight between the key stage and the output (job table, `NumJobs` = 8): a
    /// job slot is freed when the frame's last beat leaves S4.
    pub jobs: usize,
    /// Delay FIFO between S2 and S3 in beats (`DlyBeats` = 8).
    pub delay_beats: usize,
    /// Bytes added to a protected frame: SecHdr 8 + ICV 16 (`rocesec_pkg::Overhead`).
    pub overhead: usize,
    /// Output offset shift of the payload: the SecHdr (`rocesec_pkg::SecHdrBytes` = 8).
    pub sechdr: usize,
    /// ICV bytes (`rocesec_pkg::IcvBytes` = 16).
    pub icv: usize,
    /// Cycles from the key stage's final verdict to the job table's done bit (`done_v_q` in
    /// `rocesec_job_slots`): 2 (`done_valid_o` register in the key stage, table write in emit).
    pub done_cycles: u64,
}

/// Every timing constant of the protect top, grouped by stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Stage `parse` and the input FIFO.
    pub parse: ParseParams,
    /// Stage `key`.
    pub key: KeyParams,
    /// Stage `crypto`.
    pub crypto: CryptoParams,
    /// Stage `emit`.
    pub emit: EmitParams,
}

/// AES-128 pipeline latency of `aes_cipher_pipe` (`SboxLatency` = 2): 1 + (2 + 1)·10 cycles.
pub const AES128_PIPE_LATENCY: u64 = 31;

/// AES-128 block latency of `aes_cipher_iter` (`SboxLatency` = 2) as `kdf_cmac` sees it, from
/// the `start_i` cycle to the `done_o` cycle: the same `aes_pkg::aes_pipe_latency(128, 2)` = 31.
pub const AES128_ITER_LATENCY: u64 = 31;

impl Params {
    /// The protect top as built (LANES = 1).
    pub const RTL: Params = Params {
        parse: ParseParams {
            beat_bytes: 16,
            fifo_beats: 512,
            window_beats: 9,
            latency: 2,
            queue_room: 2,
        },
        key: KeyParams {
            decide_cycles: 2,
            verdicts: 8,
            look_cycles: 1,
            cache_entries: 8,
            kdf: KdfParams {
                aes_cycles: AES128_ITER_LATENCY,
                block_start_cycles: 1,
                subkey_start_cycles: 1,
                req_cycles: 1,
                respond_cycles: 2,
                rsp_cycles: 1,
                mr_load_cycles: 1,
                kdf_frame_bytes: 8,
                block_bytes: 16,
                qp_msg_bytes: 33,
                mr_msg_bytes: 31,
                node_msg_bytes: 24,
            },
        },
        crypto: CryptoParams {
            aes_latency: AES128_PIPE_LATENCY,
            ks_depth: 64,
            ghash_latency: 4,
            ctr_start_cycles: 1,
            j0_in_open: false,
            ghash_lanes: 1,
            ghash_queue: 0,
        },
        emit: EmitParams {
            jobs: 8,
            delay_beats: 8,
            overhead: 24,
            sechdr: 8,
            icv: 16,
            done_cycles: 2,
        },
    };
}

impl Params {
    /// The protect top as built with LANES = 4 (64-byte beats, `rocesec_protect_4`): the
    /// header window is ceil(142 / 64) = 3 beats; the descriptor queues are 16 deep with 4
    /// entries kept free (`DqDepth`/`DqInFlight` of `rocesec_protect.sv`); keystream words are 4
    /// blocks (`KsDepth` 64 words); J0 is issued in the open cycle; GHASH runs in
    /// `rocesec_ghash_feed_wide` (queue 16, `ghash_lanes` latency 10); the delay FIFO is
    /// 16 beats; the job table and the verdict queue hold 32 frames (`NumJobs`: a 2-beat frame
    /// every 2 cycles stays about 50 cycles, E_K(J0) and the keystream take 31).
    pub const RTL_LANES4: Params = Params {
        parse: ParseParams {
            beat_bytes: 64,
            window_beats: 3,
            queue_room: 12,
            ..Self::RTL.parse
        },
        key: KeyParams {
            verdicts: 32,
            ..Self::RTL.key
        },
        crypto: CryptoParams {
            j0_in_open: true,
            ghash_lanes: 4,
            ghash_queue: 16,
            ghash_latency: 10,
            ..Self::RTL.crypto
        },
        emit: EmitParams {
            delay_beats: 16,
            jobs: 32,
            ..Self::RTL.emit
        },
    };

    /// Header window of the top in bytes (`roce_parse.sv` `WinBytes`): 144 at LANES = 1, 192 at
    /// LANES = 4; see [`crate::engine::Engine::set_header_window`].
    pub fn header_window(&self) -> usize {
        self.parse.window_beats * self.parse.beat_bytes
    }

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

// ------------------------------------------------------------------------------------------
// Frames, as the functional model sees them
// ------------------------------------------------------------------------------------------

/// A derived-key cache tag (`rocesec_pkg::key_tag_t` in `rocesec_key_cache.sv`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CacheTag {
    /// A packet key (per-QP or sub-region node) of (PD, epoch).
    Key(u32, u8, KeyRef),
    /// The MR key (PD, epoch, owner GID, rkey) a node key is derived from.
    Mr(u32, u8, Gid, u32),
}

/// How stage `key` protects a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Protect {
    /// Protection mode.
    pub mode: Mode,
    /// Byte offset of the IP header (start of the AAD).
    pub ip_off: usize,
    /// Byte offset of the plain payload.
    pub payload_off: usize,
    /// Byte offset of the end of the plain payload (start of the ICRC).
    pub payload_end: usize,
    /// The packet key's cache tag.
    pub key: CacheTag,
}

/// One input frame, reduced to what the timing depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameProfile {
    /// Frame length in bytes.
    pub len: usize,
    /// `Some` when stage `key` protects the frame, `None` when it is forwarded unchanged
    /// (not RoCE, CNP, bypass) or rejected before key selection.
    pub protect: Option<Protect>,
}

/// Profile `frames` with the functional model (`Protector`, in order, state carried from frame
/// to frame as the RTL's QP table does), as stage `key` of a top with parameters `p` sees them.
///
/// # Errors
/// [`KeyFileError`] for a key file with a bad secret.
pub fn profile(
    p: &Params,
    keys: &KeyFile,
    frames: &[Vec<u8>],
) -> Result<Vec<FrameProfile>, KeyFileError> {
    let mut prot = Protector::new(keys)?;
    let mut out = Vec::with_capacity(frames.len());
    let window = p.header_window();
    prot.set_header_window(window);
    for f in frames {
        // The header descriptor of a frame longer than the window assumes the whole IP packet;
        // a shorter frame's descriptor comes at tlast with the real length (`ev_len_q`).
        let hv = header_view(f, window);
        let h: &[u8] = hv.as_deref().unwrap_or(f);
        let sel = prot.tx_selection(h);
        let layout = match roce::parse(h) {
            Ok(Frame::Roce(p)) => Some(p),
            _ => None,
        };
        let protect = match (sel, layout) {
            // a frame cut inside its headers is malformed on the header descriptor already
            (Some((mode, s)), Some(l)) if f.len() >= l.payload_off => Some(Protect {
                mode,
                ip_off: l.ip_off,
                payload_off: l.payload_off,
                payload_end: l.payload_end,
                key: CacheTag::Key(s.pd, s.epoch, s.key),
            }),
            _ => None,
        };
        let _ = prot.protect(f);
        out.push(FrameProfile {
            len: f.len(),
            protect,
        });
    }
    Ok(out)
}

pub(crate) use crate::stage::parse::header_view;

// ------------------------------------------------------------------------------------------
// Prediction
// ------------------------------------------------------------------------------------------

/// Predicted timing of one frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameTiming {
    /// Cycle the frame's first input beat is accepted.
    pub first_in: u64,
    /// Cycle the frame's last output beat leaves (`m_axis_tvalid && m_axis_tready`).
    pub last_out: u64,
}

impl FrameTiming {
    /// Latency in cycles, first input beat to last output beat.
    pub fn latency(&self) -> u64 {
        self.last_out.saturating_sub(self.first_in)
    }
}

/// Predicted timing of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Prediction {
    /// Per frame, in order.
    pub frames: Vec<FrameTiming>,
    /// Cycles of the run, first cycle to the cycle of the last output beat inclusive.
    pub cycles: u64,
    /// Cycles the KDF was busy (the RTL's `kdf_busy_o`).
    pub kdf_cycles: u64,
    /// False when the model stopped without progress (never expected; the frames not out have
    /// `last_out = 0`).
    pub complete: bool,
}

/// A beat moving through emit.
#[derive(Clone, Copy, Debug)]
struct Beat {
    /// Frame index.
    f: usize,
    /// Beat index within the output frame.
    k: usize,
    /// Last beat of the frame.
    last: bool,
}

/// The per-frame schedule emit derives from the job (computed once per frame).
#[derive(Clone, Debug, Default)]
struct Plan {
    in_beats: usize,
    out_beats: usize,
    protect: bool,
    /// Keystream blocks (AEAD payload blocks), popped by output beats `ks_beat..ks_beat+nks`.
    nks: usize,
    ks_beat: usize,
    /// Keystream blocks a cut frame leaves behind, drained by S1 after its last beat.
    drain: usize,
    /// GHASH blocks fed while output beat k sits in S2 (AAD and ciphertext blocks ending in
    /// it; the length block is fed from its own register the cycle after the last one).
    feeds: Vec<u32>,
    /// The beat whose last feed is the length block (the hash starts then); `None` when the
    /// frame is cut before it.
    final_beat: Option<usize>,
    /// Output beats overlapping the ICV (S3 waits for the tag on them).
    icv_beats: Option<(usize, usize)>,
}

/// The GHASH blocks (16 bytes) that end in each beat of a frame of `beats` beats of `bb` bytes:
/// `rocesec_ghash_feed` (LANES = 1) feeds them while the beat sits in its register,
/// `rocesec_ghash_feed_wide` queues them as the beat passes. Also the beat whose last block is
/// followed by the length block (`None` when the frame ends before it). Offsets are of the protected frame as the feed sees it (the protect top's
/// output, the verify top's input): AAD `[ip_off, cstart)` (packet-auth: `[ip_off, cend)`), then
/// in AEAD mode the ciphertext `[cstart, cend)`, each block fed in the first beat holding its end
/// (one per cycle); `final_beat` is the beat of the last one, after which the length block
/// `[len(A)]_64 ‖ [len(C)]_64` is fed from a register in the next cycle. A frame cut
/// before its IP length never reaches the later blocks: they are not fed.
pub(crate) fn ghash_feeds(
    bb: usize,
    beats: usize,
    mode: Mode,
    ip_off: usize,
    cstart: usize,
    cend: usize,
) -> (Vec<u32>, Option<usize>) {
    let bb = bb.max(1);
    let mut feeds = vec![0u32; beats];
    let beat_of = |end: usize| end.div_ceil(bb).max(1) - 1;
    let aad_end = if mode == Mode::PacketAuth {
        cend
    } else {
        cstart
    };
    let mut ends = Vec::new();
    let mut gp = ip_off;
    while gp < aad_end {
        ends.push((gp + 16).min(aad_end));
        gp += 16;
    }
    if mode == Mode::Aead {
        let mut gp = cstart;
        while gp < cend {
            ends.push((gp + 16).min(cend));
            gp += 16;
        }
    }
    for &e in &ends {
        if let Some(x) = feeds.get_mut(beat_of(e)) {
            *x += 1;
        }
    }
    let last_end = ends.last().copied().unwrap_or(ip_off);
    let final_beat = (beat_of(last_end) < beats).then(|| beat_of(last_end));
    // The length block [len(A)]_64 ‖ [len(C)]_64 is not counted: it is fed from its own register
    // in the cycle after the last data block (`len_pend_q`), ahead of the next beat's block.
    (feeds, final_beat)
}

/// One cycle of the packer of `rocesec_ghash_feed_wide` at cycle `c`: it issues up to
/// `ghash_lanes` blocks of the message at the head of the block queue `gq` (entries: frame,
/// last block of its message), fewer when they end the message, none while the head message has
/// fewer queued and its last block is not among them. The hash of a message whose last block
/// issues is seen from `c + ghash_latency` (`hash_vis`). Returns the blocks issued; the caller
/// checks the room for a passing beat's blocks against the count before the issue.
pub(crate) fn wide_pack(
    p: &CryptoParams,
    c: u64,
    gq: &mut VecDeque<(usize, bool)>,
    hash_vis: &mut [u64],
) -> usize {
    let lanes = p.ghash_lanes.max(1);
    let end = gq.iter().take(lanes).position(|&(_, last)| last);
    let n_iss = match end {
        Some(j) => {
            if let Some(v) = gq.get(j).and_then(|&(f, _)| hash_vis.get_mut(f)) {
                *v = c + p.ghash_latency;
            }
            j + 1
        }
        None if gq.len() >= lanes => lanes,
        None => 0,
    };
    gq.drain(..n_iss);
    n_iss
}

fn plan(p: &Params, fp: &FrameProfile) -> Plan {
    let bb = p.parse.beat_bytes.max(1);
    let in_beats = fp.len.div_ceil(bb).max(1);
    let Some(pr) = fp.protect else {
        return Plan {
            in_beats,
            out_beats: in_beats,
            ..Plan::default()
        };
    };
    let out_len = fp.len + p.emit.overhead;
    let out_beats = out_len.div_ceil(bb).max(1);
    // Output offsets (rocesec_protect_emit.sv header): payload from P + 8, ICV at E + 8.
    let pstart = pr.payload_off + p.emit.sechdr;
    let eend = pr.payload_end.max(pr.payload_off) + p.emit.sechdr;
    let nks = if pr.mode == Mode::Aead {
        (eend - pstart).div_ceil(bb)
    } else {
        0
    };
    // GHASH blocks (S2) over the output: AAD from ip_off to P + 8, ciphertext to E + 8.
    let (feeds, final_beat) = ghash_feeds(bb, out_beats, pr.mode, pr.ip_off, pstart, eend);
    let icv_first = eend / bb;
    let icv_beats = (icv_first < out_beats).then(|| {
        let z = (eend + p.emit.icv).div_ceil(bb).max(1) - 1;
        (icv_first, z)
    });
    let ks_beat = pstart / bb;
    let popped = out_beats.saturating_sub(ks_beat).min(nks);
    Plan {
        in_beats,
        out_beats,
        protect: true,
        nks,
        ks_beat,
        drain: nks - popped,
        feeds,
        final_beat,
        icv_beats,
    }
}

/// Input side: the AXI4-Stream source (driver), the packet FIFO and the parse tap.
struct Parse {
    /// Next (frame, beat) to offer.
    next: (usize, usize),
    /// The beat offered and not yet accepted.
    held: Option<(usize, usize)>,
    /// Packet FIFO contents (frame, beat).
    fifo: VecDeque<(usize, usize)>,
    /// Header descriptors (frame, cycle visible to the key stage).
    hq: VecDeque<(usize, u64)>,
    /// Final descriptors (frame, cycle visible).
    fq: VecDeque<(usize, u64)>,
}

/// The key stage's FSM states (`state_e` of `rocesec_protect_key.sv`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum KeyState {
    /// Stage J empty (`StIdle`).
    Idle,
    /// `StKey`, lookup cycle (`look_cycles`; a hit answers in it), for `left` more cycles.
    Look(u64),
    /// In `StKey` after the lookup cycle of a miss for `left` more cycles, of which the first
    /// `busy` have the cache's `busy_o` high (all but its `StRsp` cycle).
    Kdf { left: u64, busy: u64 },
    /// `StJob`: the job is offered to the emit.
    Job,
}

/// Stage `key` (`rtl/top/rocesec_protect_key.sv`): stage D (the header under decision, which
/// commits the QP state), stage J (key fetch and job issue), the verdict queue, the
/// derived-key cache and the KDF.
struct Key {
    /// Stage D: frame and the first cycle it may be decided in.
    d: Option<(usize, u64)>,
    /// Stage J.
    state: KeyState,
    /// Frame in stage J.
    cur: usize,
    /// Verdict queue: frame and the cycle its entry is visible (job issue + 1).
    vq: VecDeque<(usize, u64)>,
    cache: KeyCache,
    kdf_cycles: u64,
}

/// The derived-key cache and its KDF, `rtl/top/rocesec_key_cache.sv` with `kdf_cmac` (shared by
/// the key stages of both tops): the tags held, round robin, and `kdf_cmac`'s subkey cache.
#[derive(Clone, Debug)]
pub(crate) struct KeyCache {
    cache: Vec<Option<CacheTag>>,
    next_slot: usize,
    /// Parent key of `kdf_cmac`'s cached CMAC subkeys (`cache_key_q`, valid after the first
    /// derivation; encryptions leave it).
    subkey_parent: Option<Parent>,
}

/// A KDF parent key, by identity: K_pd of (PD, epoch) or an MR key. The RTL compares key
/// values (`cache_key_q == req_key_i`); distinct identities are taken to hold distinct keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Parent {
    Pd(u32, u8),
    Mr(CacheTag),
}

impl KeyCache {
    /// An empty cache of `entries` entries (after reset or a flush).
    pub(crate) fn new(entries: usize) -> Self {
        Self {
            cache: vec![None; entries],
            next_slot: 0,
            subkey_parent: None,
        }
    }

    /// Whether `t` is cached (`rocesec_key_cache` answers in the lookup cycle).
    pub(crate) fn cache_hit(&self, t: &CacheTag) -> bool {
        self.cache.iter().any(|e| e.as_ref() == Some(t))
    }

    /// A cache miss on packet key `t` (decided in the lookup cycle): runs the derivations of
    /// `rocesec_key_cache` (MR key first when a node key's MR key is not cached, then the packet
    /// key, then its H), updates the cache and the KDF's subkey cache in the RTL's order, and
    /// returns the cycles `StKey` still lasts after the lookup cycle.
    pub(crate) fn miss(&mut self, kdf: KdfParams, t: &CacheTag) -> u64 {
        let mut cycles = 0u64;
        let pk = match *t {
            CacheTag::Key(pd, ep, KeyRef::Node { gid, rkey, .. }) => {
                let mr = CacheTag::Mr(pd, ep, gid, rkey);
                if self.cache_hit(&mr) {
                    cycles = kdf.mr_load_cycles;
                } else {
                    cycles = cycles.saturating_add(self.derive(
                        kdf,
                        Parent::Pd(pd, ep),
                        kdf.mr_msg_bytes,
                    ));
                    self.insert(mr);
                }
                self.derive(kdf, Parent::Mr(mr), kdf.node_msg_bytes)
            }
            CacheTag::Key(pd, ep, _) => self.derive(kdf, Parent::Pd(pd, ep), kdf.qp_msg_bytes),
            // not a packet key tag: the RTL derives every non-node packet key as a QP key
            CacheTag::Mr(pd, ep, _, _) => self.derive(kdf, Parent::Pd(pd, ep), kdf.qp_msg_bytes),
        };
        self.insert(*t);
        pk.saturating_add(cycles)
            .saturating_add(kdf.h_cycles())
            .saturating_add(kdf.rsp_cycles)
    }

    /// One derivation from `parent`: its cycles, and the subkey cache now holds `parent`.
    fn derive(&mut self, kdf: KdfParams, parent: Parent, msg_bytes: u64) -> u64 {
        let hit = self.subkey_parent == Some(parent);
        self.subkey_parent = Some(parent);
        kdf.derivation_cycles(msg_bytes, hit)
    }

    fn insert(&mut self, t: CacheTag) {
        if self.cache.is_empty() {
            return;
        }
        let n = self.cache.len();
        self.cache[self.next_slot % n] = Some(t);
        self.next_slot = (self.next_slot + 1) % n;
    }
}

/// Stage `crypto`: `rtl/top/rocesec_ctr.sv` (shared by both tops): CTR generator, AES
/// pipeline, keystream FIFO (GHASH is timed where the feed sits).
#[derive(Clone, Debug, Default)]
pub(crate) struct Crypto {
    /// Next frame the CTR generator visits.
    f: usize,
    busy: bool,
    /// Cycles left opening the current job before J0 is issued.
    open: u64,
    i: usize,
    n: usize,
    /// AES results in flight: (cycle out, frame, is E_K(J0)).
    aes: VecDeque<(u64, usize, bool)>,
    /// Keystream blocks buffered (`ks_count`).
    pub(crate) ks_count: u64,
    /// Keystream blocks issued and not yet out of the AES (`inflight_q`).
    pub(crate) ks_inflight: u64,
}

impl Crypto {
    /// One cycle of `rocesec_ctr` at cycle `c`: `job_vis[f]` is the first cycle job `f` is in the
    /// table, `job(f)` gives (active, keystream blocks) of a job, `ks_pop` is the reader's pop of
    /// this cycle. `ks_count0`/`ks_inflight0` are the counts at the start of the cycle (the
    /// caller takes them before its reader decides). E_K(J0) of frame f becomes visible to the
    /// job table at `ekj0_vis[f]`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn step(
        &mut self,
        p: &CryptoParams,
        c: u64,
        job_vis: &[u64],
        job: impl Fn(usize) -> (bool, usize),
        ks_count0: u64,
        ks_inflight0: u64,
        ks_pop: bool,
        ekj0_vis: &mut [u64],
    ) {
        let ks_room = ks_inflight0 + ks_count0 < p.ks_depth;
        let mut ks_issue = false;
        if self.busy && self.open > 0 {
            self.open -= 1;
        } else if self.busy {
            if self.i == 0 || ks_room {
                self.aes.push_back((c + p.aes_latency, self.f, self.i == 0));
                ks_issue = self.i != 0;
                if self.i >= self.n {
                    self.busy = false;
                    self.f += 1;
                } else {
                    self.i += 1;
                }
            }
        } else if job_vis.get(self.f).is_some_and(|&v| v <= c) {
            let (active, nks) = job(self.f);
            if active && p.j0_in_open {
                // J0 issued in the cycle that opens the job
                self.aes.push_back((c + p.aes_latency, self.f, true));
                if nks == 0 {
                    self.f += 1;
                } else {
                    self.busy = true;
                    self.open = 0;
                    self.i = 1;
                    self.n = nks;
                }
            } else if active {
                // this cycle opens the job (ctr_start_cycles in all)
                self.busy = true;
                self.open = p.ctr_start_cycles.saturating_sub(1);
                self.i = 0;
                self.n = nks;
            } else {
                self.f += 1;
            }
        }
        let mut ks_push = false;
        while let Some(&(t, f, j0)) = self.aes.front() {
            if t > c {
                break;
            }
            self.aes.pop_front();
            if j0 {
                if let Some(v) = ekj0_vis.get_mut(f) {
                    *v = c + 1;
                }
            } else {
                ks_push = true;
            }
        }
        self.ks_count = (self.ks_count + u64::from(ks_push)).saturating_sub(u64::from(ks_pop));
        self.ks_inflight =
            (self.ks_inflight + u64::from(ks_issue)).saturating_sub(u64::from(ks_push));
    }
}

/// Stage `emit`: job table, S1 splice, S2 GHASH feed, delay FIFO, S3, S4, S5.
struct Emit {
    in_flight: usize,
    /// S1 splice: active, frame, output beat index.
    sp_active: bool,
    sp_f: usize,
    sp_k: usize,
    /// Keystream blocks still to drain for the frame that just left S1 (`sp_drain_q`).
    sp_drain: usize,
    s1: Option<Beat>,
    /// `common_skid` between S1 and S2 (`u_s1_skid`): S1 loads when it is empty (registered
    /// ready); S2 takes from it first.
    skid: Option<Beat>,
    s2: Option<(Beat, u32)>,
    /// Frame whose length block is pending in `rocesec_ghash_feed` (`len_pend_q`).
    len_pend: Option<usize>,
    /// Block queue of `rocesec_ghash_feed_wide` (LANES > 1): (frame, last block of its message).
    gq: VecDeque<(usize, bool)>,
    dq: VecDeque<Beat>,
    s3: Option<Beat>,
    /// `rocesec_icrc_patch` stage A: the beat feeds the ICRC.
    s4a: Option<Beat>,
    /// `rocesec_icrc_patch` stage U: the CRC and the patch lanes are registered.
    s4u: Option<Beat>,
    /// `rocesec_icrc_patch` stage P: ICRC patch; the last beat waits for its verdict.
    s4: Option<Beat>,
    s5: Option<Beat>,
}

/// Predict the timing of `frames` through the protect top with parameters `p`, drawing the
/// per-cycle stimulus from `rng` with `traffic` exactly as the co-simulation driver does.
/// Never panics; stops (with `complete = false`) if no frame leaves for 10^6 cycles.
pub fn predict(
    p: &Params,
    frames: &[FrameProfile],
    traffic: Traffic,
    rng: &mut SplitMix64,
) -> Prediction {
    const NEVER: u64 = u64::MAX;
    let n = frames.len();
    let plans: Vec<Plan> = frames.iter().map(|f| plan(p, f)).collect();
    let mut res = Prediction {
        frames: vec![FrameTiming::default(); n],
        complete: true,
        ..Prediction::default()
    };
    // Per-frame event times (cycle from which the RTL sees the event).
    let mut job_vis = vec![NEVER; n];
    let mut ekj0_vis = vec![NEVER; n];
    let mut hash_vis = vec![NEVER; n];
    let mut done_vis = vec![NEVER; n];

    let mut parse = Parse {
        next: (0, 0),
        held: None,
        fifo: VecDeque::new(),
        hq: VecDeque::new(),
        fq: VecDeque::new(),
    };
    let mut key = Key {
        d: None,
        state: KeyState::Idle,
        cur: 0,
        vq: VecDeque::new(),
        cache: KeyCache::new(p.key.cache_entries),
        kdf_cycles: 0,
    };
    let mut crypto = Crypto::default();
    let mut emit = Emit {
        in_flight: 0,
        sp_active: false,
        sp_f: 0,
        sp_k: 0,
        sp_drain: 0,
        s1: None,
        skid: None,
        s2: None,
        len_pend: None,
        gq: VecDeque::new(),
        dq: VecDeque::new(),
        s3: None,
        s4a: None,
        s4u: None,
        s4: None,
        s5: None,
    };
    let kdf = p.key.kdf;
    let mut out_frames = 0usize;
    let mut quiet = 0u64;
    let mut c = 0u64;
    while out_frames < n {
        let stim = traffic.draw(rng);
        // Registered state at the start of the cycle.
        let pkt_count0 = parse.fifo.len();
        let hq_count0 = parse.hq.iter().filter(|e| e.1 <= c).count();
        let fq_count0 = parse.fq.iter().filter(|e| e.1 <= c).count();
        let ks_count0 = crypto.ks_count;
        let ks_inflight0 = crypto.ks_inflight;
        let in_flight0 = emit.in_flight;
        let dq_len0 = emit.dq.len();

        // ---- emit: S5 (m_axis) ----
        if let Some(b) = emit.s5 {
            if !stim.stall {
                emit.s5 = None;
                if b.last {
                    res.frames[b.f].last_out = c;
                    out_frames += 1;
                    quiet = 0;
                }
            }
        }
        // ---- S4: the last beat waits for the final verdict ----
        if let Some(b) = emit.s4 {
            if emit.s5.is_none() && (!b.last || done_vis[b.f] <= c) {
                emit.s5 = emit.s4.take();
                if b.last {
                    emit.in_flight = emit.in_flight.saturating_sub(1);
                }
            }
        }
        // ---- S4u, S4a: the patch's CRC stage and its input register (the CRC state holds the
        // beat a cycle after A, U registers it) ----
        if emit.s4.is_none() {
            emit.s4 = emit.s4u.take();
        }
        if emit.s4u.is_none() {
            emit.s4u = emit.s4a.take();
        }
        // ---- S3: beats overlapping the ICV wait for GHASH and E_K(J0) ----
        if let Some(b) = emit.s3 {
            let icv = plans[b.f]
                .icv_beats
                .is_some_and(|(a, z)| b.k >= a && b.k <= z);
            if emit.s4a.is_none() && (!icv || (hash_vis[b.f] <= c && ekj0_vis[b.f] <= c)) {
                emit.s4a = emit.s3.take();
            }
        }
        if emit.s3.is_none() {
            emit.s3 = emit.dq.pop_front();
        }
        // ---- S2: one GHASH block per cycle (a pending length block first); the beat passes
        // after its last data block ----
        let len_pend0 = emit.len_pend.take();
        if let Some(f) = len_pend0 {
            hash_vis[f] = c + p.crypto.ghash_latency + 1;
        }
        if p.crypto.ghash_lanes > 1 {
            let cnt0 = emit.gq.len();
            let n_iss = wide_pack(&p.crypto, c, &mut emit.gq, &mut hash_vis);
            // ... and the beat in its register passes with its blocks when the queue has room
            if let Some((b, _)) = emit.s2 {
                let pl = &plans[b.f];
                let fin = pl.final_beat == Some(b.k);
                let n_new = pl.feeds.get(b.k).copied().unwrap_or(0) as usize + usize::from(fin);
                if dq_len0 < p.emit.delay_beats && cnt0 - n_iss + n_new <= p.crypto.ghash_queue {
                    for j in 0..n_new {
                        emit.gq.push_back((b.f, fin && j + 1 == n_new));
                    }
                    emit.dq.push_back(b);
                    emit.s2 = None;
                }
            }
        } else if let Some((b, rem)) = emit.s2.as_mut() {
            if *rem > 0 && len_pend0.is_none() {
                *rem -= 1;
                if *rem == 0 && plans[b.f].final_beat == Some(b.k) {
                    emit.len_pend = Some(b.f);
                }
            }
            if *rem == 0 && dq_len0 < p.emit.delay_beats {
                emit.dq.push_back(*b);
                emit.s2 = None;
            }
        }
        // ---- skid: S2 takes the buffered beat first; S1's beat falls through or is buffered ----
        let s1_ready = emit.skid.is_none();
        if emit.s2.is_none() {
            emit.s2 = emit
                .skid
                .take()
                .or_else(|| emit.s1.take())
                .map(|b| (b, plans[b.f].feeds.get(b.k).copied().unwrap_or(0)));
        } else if s1_ready {
            emit.skid = emit.s1.take();
        }
        // ---- S1 splice ----
        let mut ks_pop = false;
        if emit.sp_drain > 0 {
            // a cut frame's unused keystream, one block per cycle, then the next frame
            if ks_count0 > 0 {
                ks_pop = true;
                emit.sp_drain -= 1;
            }
        } else if !emit.sp_active {
            if emit.sp_f < n && job_vis[emit.sp_f] <= c {
                emit.sp_active = true;
                emit.sp_k = 0;
            }
        } else if s1_ready {
            let f = emit.sp_f;
            let pl = &plans[f];
            let k = emit.sp_k;
            let need_in = k < pl.in_beats;
            let need_ks = k >= pl.ks_beat && k - pl.ks_beat < pl.nks;
            let go = (!need_in || pkt_count0 > 0) && (!need_ks || ks_count0 > 0);
            if go {
                if need_in {
                    parse.fifo.pop_front();
                }
                ks_pop = need_ks;
                let last = k + 1 >= pl.out_beats;
                emit.s1 = Some(Beat { f, k, last });
                emit.sp_k += 1;
                if last {
                    emit.sp_f += 1;
                    emit.sp_k = 0;
                    emit.sp_drain = pl.drain;
                    // chain into the next job if it is already in the table (not after a drain)
                    emit.sp_active = pl.drain == 0 && emit.sp_f < n && job_vis[emit.sp_f] <= c;
                }
            }
        }

        // ---- crypto: CTR generator and AES pipeline ----
        crypto.step(
            &p.crypto,
            c,
            &job_vis,
            |f| (plans[f].protect, plans[f].nks),
            ks_count0,
            ks_inflight0,
            ks_pop,
            &mut ekj0_vis,
        );

        // ---- key stage ----
        let hq_front = parse.hq.front().filter(|e| e.1 <= c).map(|e| e.0);
        let fq_front = parse.fq.front().filter(|e| e.1 <= c).map(|e| e.0);
        // final descriptors pop the verdict queue, in frame order
        if let (Some(&(f, vis)), Some(_)) = (key.vq.front(), fq_front) {
            if vis <= c {
                key.vq.pop_front();
                parse.fq.pop_front();
                done_vis[f] = c + p.emit.done_cycles;
            }
        }
        // stage J
        let mut j_free = false;
        match key.state {
            KeyState::Idle => j_free = true,
            KeyState::Look(left) if left > 1 => key.state = KeyState::Look(left - 1),
            KeyState::Look(_) => {
                key.state = KeyState::Job;
                if let Some(pr) = frames[key.cur].protect {
                    if !key.cache.cache_hit(&pr.key) {
                        let left = key.cache.miss(kdf, &pr.key);
                        key.state = KeyState::Kdf {
                            left,
                            busy: left.saturating_sub(kdf.rsp_cycles),
                        };
                    }
                }
            }
            KeyState::Kdf { left, busy } => {
                if busy > 0 {
                    key.kdf_cycles += 1;
                }
                key.state = if left > 1 {
                    KeyState::Kdf {
                        left: left - 1,
                        busy: busy.saturating_sub(1),
                    }
                } else {
                    KeyState::Job
                };
            }
            KeyState::Job => {
                if in_flight0 < p.emit.jobs && key.vq.len() < p.key.verdicts {
                    job_vis[key.cur] = c + 1;
                    emit.in_flight += 1;
                    key.vq.push_back((key.cur, c + 1));
                    key.state = KeyState::Idle;
                    j_free = true;
                }
            }
        }
        // stage D: decide (and commit) when J takes the frame; the next header enters D in
        // the same cycle
        if let Some((f, from)) = key.d {
            if j_free && from <= c {
                key.cur = f;
                key.state = if plans[f].protect {
                    KeyState::Look(p.key.look_cycles)
                } else {
                    KeyState::Job
                };
                key.d = None;
            }
        }
        if key.d.is_none() {
            if let Some(f) = hq_front {
                parse.hq.pop_front();
                key.d = Some((f, c + p.key.decide_cycles));
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
        let tready = pkt_count0 < p.parse.fifo_beats
            && hq_count0 < p.parse.queue_room
            && fq_count0 < p.parse.queue_room;
        if let (Some((f, b)), true) = (parse.held, tready) {
            parse.held = None;
            parse.fifo.push_back((f, b));
            let nb = plans[f].in_beats;
            let vis = c + p.parse.latency + 2;
            if b == 0 {
                res.frames[f].first_in = c;
            }
            if b + 1 == nb.min(p.parse.window_beats.max(1)) {
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
    res.cycles = c;
    res.kdf_cycles = key.kdf_cycles;
    res
}

// ------------------------------------------------------------------------------------------
// Accuracy
// ------------------------------------------------------------------------------------------

/// Model-against-RTL error of a set of runs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Accuracy {
    /// RTL cycles, summed over runs.
    pub rtl_cycles: u64,
    /// Model cycles, summed over runs.
    pub model_cycles: u64,
    /// Frames compared.
    pub frames: u64,
    /// Frames whose predicted latency equals the RTL's to the cycle.
    pub exact: u64,
    /// Sum over frames of |model − RTL| / RTL latency, in percent.
    pub sum_abs_pct: f64,
    /// Largest per-frame |model − RTL| / RTL latency, in percent.
    pub max_abs_pct: f64,
}

impl Accuracy {
    /// Compare one run: total cycles and per-frame latencies (first beat in to last beat out,
    /// cycles; frames are paired in order, extra entries ignored).
    pub fn of(rtl_cycles: u64, model_cycles: u64, rtl_lat: &[u64], model_lat: &[u64]) -> Self {
        let mut a = Self {
            rtl_cycles,
            model_cycles,
            ..Self::default()
        };
        for (&r, &m) in rtl_lat.iter().zip(model_lat) {
            let e = 100.0 * (m as f64 - r as f64).abs() / (r.max(1) as f64);
            a.frames += 1;
            a.exact += u64::from(r == m);
            a.sum_abs_pct += e;
            a.max_abs_pct = a.max_abs_pct.max(e);
        }
        a
    }

    /// Add another run.
    pub fn merge(&mut self, o: &Accuracy) {
        self.rtl_cycles += o.rtl_cycles;
        self.model_cycles += o.model_cycles;
        self.frames += o.frames;
        self.exact += o.exact;
        self.sum_abs_pct += o.sum_abs_pct;
        self.max_abs_pct = self.max_abs_pct.max(o.max_abs_pct);
    }

    /// Signed total error (model − RTL) / RTL in percent (0 for no cycles).
    pub fn total_err_pct(&self) -> f64 {
        if self.rtl_cycles == 0 {
            return 0.0;
        }
        100.0 * (self.model_cycles as f64 - self.rtl_cycles as f64) / self.rtl_cycles as f64
    }

    /// Mean per-frame |error| in percent (0 for no frames).
    pub fn mean_abs_pct(&self) -> f64 {
        if self.frames == 0 {
            return 0.0;
        }
        self.sum_abs_pct / self.frames as f64
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::roce::build::Builder;

    fn demo(mode: Mode) -> KeyFile {
        let mut k = KeyFile::demo().unwrap();
        k.force_mode(mode);
        k
    }

    fn send(len: usize, psn: u32) -> Vec<u8> {
        Builder::new(0x04, psn, &vec![0x5a; len]).build()
    }

    fn run(frames: &[Vec<u8>], keys: &KeyFile, p: &Params, t: Traffic) -> Prediction {
        let prof = profile(p, keys, frames).unwrap();
        predict(p, &prof, t, &mut SplitMix64::new(9))
    }

    const LINE: Traffic = Traffic { idle: 0, stall: 0 };

    #[test]
    fn a_cold_key_costs_exactly_one_qp_derivation_and_its_h() {
        let keys = demo(Mode::Aead);
        let f = send(64, 1);
        let cold = run(std::slice::from_ref(&f), &keys, &Params::RTL, LINE);
        let warm = run(&[f.clone(), f.clone()], &keys, &Params::RTL, LINE);
        let kdf = Params::RTL.key.kdf;
        // first derivation after reset: kdf_cmac's subkey cache is empty
        let d = kdf.derivation_cycles(kdf.qp_msg_bytes, false) + kdf.h_cycles();
        assert_eq!(cold.kdf_cycles, d);
        assert_eq!(warm.kdf_cycles, d, "the second frame hits the cache");
        // with a zero-cycle KDF the frame is exactly the busy cycles faster (StRsp stays)
        let mut p = Params::RTL;
        p.key.kdf.aes_cycles = 0;
        p.key.kdf.block_start_cycles = 0;
        p.key.kdf.subkey_start_cycles = 0;
        p.key.kdf.req_cycles = 0;
        p.key.kdf.respond_cycles = 0;
        let fast = run(std::slice::from_ref(&f), &keys, &p, LINE);
        assert_eq!(fast.kdf_cycles, 0);
        assert_eq!(cold.frames[0].latency(), fast.frames[0].latency() + d);
    }

    fn key_stage(entries: usize) -> KeyCache {
        KeyCache::new(entries)
    }

    #[test]
    fn derivation_cycles_follow_kdf_cmac_and_its_subkey_cache() {
        let k = Params::RTL.key.kdf;
        // 41-byte CMAC input (33 + [i]_32 + [L]_32): 3 blocks of 1 + 31 cycles
        assert_eq!(k.derivation_cycles(33, true), 1 + 1 + 3 * 32 + 2);
        assert_eq!(k.derivation_cycles(33, false), 1 + 1 + 31 + 3 * 32 + 2);
        assert_eq!(k.derivation_cycles(24, true), 1 + 1 + 2 * 32 + 2);
        assert_eq!(k.h_cycles(), 1 + 32 + 2);
        let qp = |pd, qpn| {
            CacheTag::Key(
                pd,
                0,
                KeyRef::Qp {
                    gid: [1; 16],
                    qpn,
                    salt: 0,
                },
            )
        };
        let node = |pd, index| {
            CacheTag::Key(
                pd,
                0,
                KeyRef::Node {
                    gid: [2; 16],
                    rkey: 7,
                    level: 1,
                    index,
                },
            )
        };
        let mut s = key_stage(8);
        let tail = k.h_cycles() + k.rsp_cycles;
        // cold, then the same PD key (subkeys cached: one AES block less), then another PD
        assert_eq!(s.miss(k, &qp(1, 10)), k.derivation_cycles(33, false) + tail);
        assert_eq!(s.miss(k, &qp(1, 11)), k.derivation_cycles(33, true) + tail);
        assert_eq!(s.miss(k, &qp(2, 12)), k.derivation_cycles(33, false) + tail);
        // node key of PD 2: the MR key derivation reuses K_pd's subkeys, the node one does not
        assert_eq!(
            s.miss(k, &node(2, 0)),
            k.derivation_cycles(31, true) + k.derivation_cycles(24, false) + tail
        );
        // MR key now cached, and its subkeys are the KDF's: read it (StMrLoad), then the node
        // derivation only, subkey hit
        assert!(s.cache_hit(&CacheTag::Mr(2, 0, [2; 16], 7)));
        assert_eq!(
            s.miss(k, &node(2, 1)),
            k.mr_load_cycles + k.derivation_cycles(24, true) + tail
        );
        // the measured cold-key costs of docs/rtl/tops.md (StKey cycles over a warm frame's 1)
        let mut c = key_stage(8);
        assert_eq!(c.miss(k, &qp(1, 10)), 167);
        assert_eq!(c.miss(k, &qp(1, 11)), 136);
        let mut c = key_stage(8);
        assert_eq!(c.miss(k, &node(1, 0)), 266);
        assert_eq!(c.miss(k, &node(1, 1)), 105);
    }

    #[test]
    fn latency_grows_with_size_and_backpressure() {
        let keys = demo(Mode::Aead);
        let mut last = 0;
        for len in [0usize, 64, 256, 1024, 4096] {
            let p = run(&[send(len, 1)], &keys, &Params::RTL, LINE);
            assert!(p.complete);
            assert!(p.frames[0].latency() > last, "{len}");
            last = p.frames[0].latency();
        }
        let frames: Vec<Vec<u8>> = (0..50).map(|i| send(1000, i)).collect();
        let free = run(&frames, &keys, &Params::RTL, LINE);
        let slow = run(&frames, &keys, &Params::RTL, Traffic { idle: 0, stall: 8 });
        assert!(
            slow.cycles > free.cycles * 3 / 2,
            "{} vs {}",
            slow.cycles,
            free.cycles
        );
    }

    #[test]
    fn no_panic_on_any_input_and_a_stuck_output_stops() {
        let keys = demo(Mode::PacketAuth);
        let mut rng = SplitMix64::new(3);
        let mut frames: Vec<Vec<u8>> = vec![Vec::new(), vec![0; 1], vec![0xff; 9000]];
        for i in 0..200u32 {
            let mut f = send(rng.below(1500) as usize, i);
            if rng.chance(1, 4) {
                f.truncate(rng.below(f.len() as u64) as usize);
            }
            if rng.chance(1, 4) {
                let j = rng.below(f.len().max(1) as u64) as usize;
                if let Some(b) = f.get_mut(j) {
                    *b ^= 0x55;
                }
            }
            frames.push(f);
        }
        let p = run(&frames, &keys, &Params::RTL, Traffic { idle: 5, stall: 5 });
        assert!(p.complete);
        assert!(p.frames.iter().all(|t| t.last_out > t.first_in));
        // output never ready: no progress, the model gives up instead of spinning
        let stuck = run(
            &frames[..3],
            &keys,
            &Params::RTL,
            Traffic { idle: 0, stall: 16 },
        );
        assert!(!stuck.complete);
        // degenerate parameters do not panic either
        let mut z = Params::RTL;
        z.parse.beat_bytes = 0;
        z.key.cache_entries = 0;
        z.emit.jobs = 1;
        assert!(run(&frames[..20], &keys, &z, LINE).complete);
    }

    #[test]
    fn the_stimulus_is_two_draws_per_cycle() {
        let t = Traffic { idle: 4, stall: 9 };
        let (mut a, mut b) = (SplitMix64::new(5), SplitMix64::new(5));
        for _ in 0..100 {
            let s = t.draw(&mut a);
            assert_eq!(s.idle, b.chance(4, 16));
            assert_eq!(s.stall, b.chance(9, 16));
        }
    }

    #[test]
    fn accuracy_sums_and_signs() {
        let mut a = Accuracy::of(100, 102, &[50, 100], &[50, 90]);
        assert_eq!(a.exact, 1);
        assert!((a.total_err_pct() - 2.0).abs() < 1e-9);
        assert!((a.mean_abs_pct() - 5.0).abs() < 1e-9);
        a.merge(&Accuracy::of(100, 98, &[10], &[15]));
        assert!(a.total_err_pct().abs() < 1e-9);
        assert!((a.max_abs_pct - 50.0).abs() < 1e-9);
        assert_eq!(a.frames, 3);
    }
}
