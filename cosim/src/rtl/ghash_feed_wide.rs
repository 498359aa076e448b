//! Driver for `rtl/top/rocesec_ghash_feed_wide.sv` (stage `crypto`: the GHASH block cutter,
//! block queue and `ghash_lanes` for beats of `LANES` > 1 blocks), built with `SlotW` = 3.
//!
//! The driver plays the caller's job table: a frame takes slot `index % 8` with its first beat
//! and keeps it until its last beat has left and its hash has come back; `cur_*` and `h_i` are
//! answered from that table for the slots the block asks for (`cur_slot_o`, `h_slot_o`).
//! It answers them before it sets the cycle's inputs, which is right for LANES > 1 (both are
//! registers there). At LANES = 1 both follow `in_slot_i` within the cycle, so that feed is
//! tested inside the two tops, not with this driver.

use super::{Port, Sim, SplitMix64, Top};

/// Job slots of the test builds (`SlotW` = 3).
pub const SLOTS: usize = 8;

/// One frame and its GHASH parameters, offsets in the frame (bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FeedFrame {
    /// The frame (the protected frame: the protect top's output or the verify top's input).
    pub bytes: Vec<u8>,
    /// Hash this frame (else it only passes).
    pub active: bool,
    /// Protection mode code (`rocesec_pkg`: 1 header-auth, 2 packet-auth, 3 AEAD).
    pub mode: u8,
    /// IPv6 (else IPv4): selects the invariant-field mask.
    pub ipv6: bool,
    /// IP header offset (AAD start).
    pub ip_off: u8,
    /// UDP header offset.
    pub udp_off: u8,
    /// BTH offset.
    pub bth_off: u8,
    /// Payload start (end of the AAD in header-auth and AEAD).
    pub cstart: u32,
    /// Payload end (end of the AAD in packet-auth, of the ciphertext in AEAD).
    pub cend: u32,
    /// Hash subkey H.
    pub h: [u8; 16],
}

/// The outcome of [`GhashFeedWide::run`].
#[derive(Clone, Debug, Default)]
pub struct FeedRun {
    /// `(frame index, GHASH)` in the order the hashes left the block.
    pub hashes: Vec<(usize, [u8; 16])>,
    /// The frames as they left the block (bytes marked by `out_keep_o`, in order).
    pub out: Vec<Vec<u8>>,
    /// Output beats whose slot or beat index differed from the input's.
    pub bad_sideband: usize,
    /// Input beats.
    pub in_beats: u64,
    /// Cycles from the first to the last accepted input beat, both counted.
    pub in_span: u64,
    /// Cycles in which a beat was offered, the output was ready and the block refused it
    /// (its block queue was full).
    pub queue_stalls: u64,
    /// Cycles in which the driver held a first beat back because its job slot was still taken.
    pub slot_waits: u64,
    /// Cycles from each active frame's last input beat to its hash (0 when the hash comes
    /// first: header-auth frames end in payload bytes that are not hashed).
    pub hash_latency: Vec<u64>,
    /// Clock cycles simulated.
    pub cycles: u64,
}

/// A verilated `rocesec_ghash_feed_wide`.
pub struct GhashFeedWide {
    sim: Sim,
    lanes: usize,
    p: Ports,
}

struct Ports {
    in_valid: Port,
    in_ready: Port,
    in_data: Port,
    in_keep: Port,
    in_last: Port,
    in_slot: Port,
    in_k: Port,
    in_active: Port,
    in_ip_off: Port,
    cur_slot: Port,
    cur_mode: Port,
    cur_ipv6: Port,
    cur_ip_off: Port,
    cur_udp_off: Port,
    cur_bth_off: Port,
    cur_cstart: Port,
    cur_cend: Port,
    h_slot: Port,
    h: Port,
    out_valid: Port,
    out_ready: Port,
    out_data: Port,
    out_keep: Port,
    out_last: Port,
    out_slot: Port,
    out_k: Port,
    hash_valid: Port,
    hash_slot: Port,
    hash: Port,
}

#[derive(Clone, Copy, Debug, Default)]
struct SlotUse {
    frame: usize,
    out_done: bool,
    hash_done: bool,
}

impl GhashFeedWide {
    /// Build a variant and reset it.
    ///
    /// # Panics
    /// If `top` is not a `rocesec_ghash_feed_wide` variant.
    pub fn new(top: Top) -> Self {
        let lanes = match top {
            Top::RocesecGhashFeedWide2 => 2,
            Top::RocesecGhashFeedWide4 => 4,
            _ => panic!("{} is not a rocesec_ghash_feed_wide variant", top.name()),
        };
        let sim = Sim::new(top);
        let p = Ports {
            in_valid: sim.pin("in_valid_i"),
            in_ready: sim.pin("in_ready_o"),
            in_data: sim.pin("in_data_i"),
            in_keep: sim.pin("in_keep_i"),
            in_last: sim.pin("in_last_i"),
            in_slot: sim.pin("in_slot_i"),
            in_k: sim.pin("in_k_i"),
            in_active: sim.pin("in_active_i"),
            in_ip_off: sim.pin("in_ip_off_i"),
            cur_slot: sim.pin("cur_slot_o"),
            cur_mode: sim.pin("cur_mode_i"),
            cur_ipv6: sim.pin("cur_ipv6_i"),
            cur_ip_off: sim.pin("cur_ip_off_i"),
            cur_udp_off: sim.pin("cur_udp_off_i"),
            cur_bth_off: sim.pin("cur_bth_off_i"),
            cur_cstart: sim.pin("cur_cstart_i"),
            cur_cend: sim.pin("cur_cend_i"),
            h_slot: sim.pin("h_slot_o"),
            h: sim.pin("h_i"),
            out_valid: sim.pin("out_valid_o"),
            out_ready: sim.pin("out_ready_i"),
            out_data: sim.pin("out_data_o"),
            out_keep: sim.pin("out_keep_o"),
            out_last: sim.pin("out_last_o"),
            out_slot: sim.pin("out_slot_o"),
            out_k: sim.pin("out_k_o"),
            hash_valid: sim.pin("hash_valid_o"),
            hash_slot: sim.pin("hash_slot_o"),
            hash: sim.pin("hash_o"),
        };
        let mut s = Self { sim, lanes, p };
        s.sim.set_u64(s.p.in_valid, 0);
        s.sim.set_u64(s.p.out_ready, 0);
        s.sim.reset();
        s
    }

    /// Blocks per beat.
    pub fn lanes(&self) -> usize {
        self.lanes
    }

    /// Run `frames` through the block. Each cycle the input idles with probability
    /// `idle.0 / idle.1` and the output refuses with probability `stall.0 / stall.1`
    /// (`(0, 1)`: never), drawn from `SplitMix64::new(seed)`.
    ///
    /// # Panics
    /// If the block does not finish within 64 cycles per beat plus 10,000 (a hang).
    pub fn run(
        &mut self,
        frames: &[FeedFrame],
        idle: (u64, u64),
        stall: (u64, u64),
        seed: u64,
    ) -> FeedRun {
        let bb = 16 * self.lanes;
        let p = &self.p;
        let mut rng = SplitMix64::new(seed);
        let mut r = FeedRun::default();
        let mut slots: [Option<SlotUse>; SLOTS] = [None; SLOTS];
        let (mut fi, mut k) = (0usize, 0usize); // next input beat: frame fi, beat k
        let mut last_in: Vec<Option<u64>> = vec![None; frames.len()];
        let mut out_cur: Vec<u8> = Vec::new();
        let mut out_frame = 0usize;
        let mut out_k = 0u64;
        let mut first_in: Option<u64> = None;
        let total_beats: usize = frames.iter().map(|f| f.bytes.len().div_ceil(bb)).sum();
        let limit = 64 * total_beats as u64 + 10_000;
        let n_hash = frames.iter().filter(|f| f.active).count();
        let mut data = vec![0u8; bb];
        let mut obuf = vec![0u8; bb];
        let mut hbuf = [0u8; 16];
        let start = self.sim.cycles();
        loop {
            if out_frame == frames.len() && r.hashes.len() == n_hash {
                break;
            }
            assert!(
                self.sim.cycles() - start < limit,
                "rocesec_ghash_feed_wide hangs"
            );
            // job-table reads for the registered beat and the packer head
            let cs = self.sim.get_u64(p.cur_slot) as usize;
            let cf = slots[cs].map(|u| &frames[u.frame]);
            let sim = &mut self.sim;
            sim.set_u64(p.cur_mode, cf.map_or(0, |f| u64::from(f.mode)));
            sim.set_u64(p.cur_ipv6, cf.map_or(0, |f| u64::from(f.ipv6)));
            sim.set_u64(p.cur_ip_off, cf.map_or(0, |f| u64::from(f.ip_off)));
            sim.set_u64(p.cur_udp_off, cf.map_or(0, |f| u64::from(f.udp_off)));
            sim.set_u64(p.cur_bth_off, cf.map_or(0, |f| u64::from(f.bth_off)));
            sim.set_u64(p.cur_cstart, cf.map_or(0, |f| u64::from(f.cstart)));
            sim.set_u64(p.cur_cend, cf.map_or(0, |f| u64::from(f.cend)));
            let hs = sim.get_u64(p.h_slot) as usize;
            let hh = slots[hs].map_or([0u8; 16], |u| frames[u.frame].h);
            sim.set_bytes(p.h, &hh);
            // input beat
            let mut offer = false;
            if fi < frames.len() {
                let slot_free = k > 0 || slots[fi % SLOTS].is_none();
                let gap = rng.chance(idle.0, idle.1);
                if !slot_free && !gap {
                    r.slot_waits += 1;
                }
                offer = slot_free && !gap;
            }
            let ready_out = !rng.chance(stall.0, stall.1);
            if offer {
                let f = &frames[fi];
                let lo = k * bb;
                let hi = (lo + bb).min(f.bytes.len());
                data.fill(0);
                // tdata byte i in bits [8i+7:8i]: big-endian port bytes reversed
                for (i, &b) in f.bytes[lo..hi].iter().enumerate() {
                    data[bb - 1 - i] = b;
                }
                sim.set_bytes(p.in_data, &data);
                let n = hi - lo;
                sim.set_u64(p.in_keep, if n >= 64 { u64::MAX } else { (1u64 << n) - 1 });
                sim.set_u64(p.in_last, u64::from(hi == f.bytes.len()));
                sim.set_u64(p.in_slot, (fi % SLOTS) as u64);
                sim.set_u64(p.in_k, k as u64);
                sim.set_u64(p.in_active, u64::from(f.active));
                sim.set_u64(p.in_ip_off, u64::from(f.ip_off));
            }
            sim.set_u64(p.in_valid, u64::from(offer));
            sim.set_u64(p.out_ready, u64::from(ready_out));
            sim.eval();
            let acc = offer && sim.get_u64(p.in_ready) == 1;
            if offer && !acc && ready_out {
                r.queue_stalls += 1;
            }
            if sim.get_u64(p.out_valid) == 1 && ready_out {
                sim.get_bytes(p.out_data, &mut obuf);
                let keep = sim.get_u64(p.out_keep);
                for i in 0..bb {
                    if (keep >> i) & 1 == 1 {
                        out_cur.push(obuf[bb - 1 - i]);
                    }
                }
                let want_slot = (out_frame % SLOTS) as u64;
                if sim.get_u64(p.out_slot) != want_slot || sim.get_u64(p.out_k) != out_k {
                    r.bad_sideband += 1;
                }
                out_k += 1;
                if sim.get_u64(p.out_last) == 1 {
                    r.out.push(std::mem::take(&mut out_cur));
                    if let Some(u) = slots[out_frame % SLOTS].as_mut() {
                        u.out_done = true;
                    }
                    out_frame += 1;
                    out_k = 0;
                }
            }
            if acc {
                let now = sim.cycles();
                first_in.get_or_insert(now);
                r.in_span = now - first_in.unwrap_or(now) + 1;
                r.in_beats += 1;
                if k == 0 {
                    slots[fi % SLOTS] = Some(SlotUse {
                        frame: fi,
                        out_done: false,
                        hash_done: !frames[fi].active,
                    });
                }
                k += 1;
                if k * bb >= frames[fi].bytes.len() {
                    last_in[fi] = Some(now);
                    fi += 1;
                    k = 0;
                }
            }
            sim.tick();
            if sim.get_u64(p.hash_valid) == 1 {
                let s = sim.get_u64(p.hash_slot) as usize;
                sim.get_bytes(p.hash, &mut hbuf);
                match slots[s].as_mut() {
                    Some(u) if !u.hash_done => {
                        u.hash_done = true;
                        r.hashes.push((u.frame, hbuf));
                        let now = sim.cycles() - 1;
                        r.hash_latency
                            .push(last_in[u.frame].map_or(0, |t| now.saturating_sub(t)));
                    }
                    // a hash for a slot with no frame waiting for one: reported as frame MAX
                    _ => r.hashes.push((usize::MAX, hbuf)),
                }
            }
            for u in slots.iter_mut() {
                if u.is_some_and(|x| x.out_done && x.hash_done) {
                    *u = None;
                }
            }
        }
        r.cycles = self.sim.cycles() - start;
        r
    }
}
