//! Driver for `rtl/ghash/ghash_lanes.sv` (GHASH at one beat of `LANES` blocks per clock,
//! per-message H, aggregated reduction).
//!
//! For the `PowersIn = 1` variant the driver computes `H^1..H^(2*LANES)` with the model's
//! [`rocesec_model::ghash::mul`] and drives them on `in_hpow_i` with the first beat.

use super::{Port, Sim, Top};
use rocesec_model::ghash::mul;

/// One beat presented to the core.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LanesIn {
    /// First beat of a message (samples `h`).
    pub first: bool,
    /// Last beat of a message.
    pub last: bool,
    /// The blocks of the beat in message order (lane 0 first), 1..=`LANES` of them; fewer than
    /// `LANES` only on the last beat. Drives `in_keep_i` = `2^len - 1`.
    pub blocks: Vec<[u8; 16]>,
    /// Sideband returned with the hash (sampled with the last beat).
    pub tag: u16,
    /// The hash subkey `H` (used with `first`).
    pub h: [u8; 16],
}

/// A verilated `ghash_lanes` instance.
pub struct GhashLanes {
    sim: Sim,
    lanes: usize,
    powers_in: bool,
    buf: Vec<u8>,
    in_valid: Port,
    in_first: Port,
    in_last: Port,
    in_keep: Port,
    in_tag: Port,
    in_data: Port,
    in_h: Port,
    in_hpow: Port,
    out_valid: Port,
    out_tag: Port,
    out_hash: Port,
}

impl GhashLanes {
    /// Build a `ghash_lanes` variant and reset it.
    ///
    /// # Panics
    /// If `top` is not a `ghash_lanes` variant.
    pub fn new(top: Top) -> Self {
        let (lanes, powers_in) = match top {
            Top::GhashLanes1 => (1, false),
            Top::GhashLanes2 => (2, false),
            Top::GhashLanes4 | Top::GhashLanes4Fault => (4, false),
            Top::GhashLanes4Pow => (4, true),
            _ => panic!("{} is not a ghash_lanes variant", top.name()),
        };
        let sim = Sim::new(top);
        let mut s = Self {
            lanes,
            powers_in,
            buf: vec![0; 16 * lanes],
            in_valid: sim.pin("in_valid_i"),
            in_first: sim.pin("in_first_i"),
            in_last: sim.pin("in_last_i"),
            in_keep: sim.pin("in_keep_i"),
            in_tag: sim.pin("in_tag_i"),
            in_data: sim.pin("in_data_i"),
            in_h: sim.pin("in_h_i"),
            in_hpow: sim.pin("in_hpow_i"),
            out_valid: sim.pin("out_valid_o"),
            out_tag: sim.pin("out_tag_o"),
            out_hash: sim.pin("out_hash_o"),
            sim,
        };
        s.sim.set_u64(s.in_valid, 0);
        s.sim.reset();
        s
    }

    /// Blocks per beat.
    pub fn lanes(&self) -> usize {
        self.lanes
    }

    /// Power-unit latency in cycles (`PowLat`): 0, 2, 4 for `LANES` = 1, 2, 4; 0 with
    /// `PowersIn`.
    pub fn pow_latency(&self) -> usize {
        match (self.powers_in, self.lanes) {
            (true, _) | (false, 1) => 0,
            (false, 2) => 2,
            _ => 4,
        }
    }

    /// Cycles from the edge accepting the last beat to the edge presenting the hash, counting
    /// the accepting edge as 1: `PowLat + 5`, or 4 for `LANES` = 1 (no look-ahead register).
    pub fn latency(&self) -> usize {
        if self.lanes == 1 {
            4
        } else {
            self.pow_latency() + 5
        }
    }

    /// One clock with an optional beat; returns `(tag, GHASH)` registered at this edge, if any.
    ///
    /// # Panics
    /// If a beat has no block or more than `LANES` blocks.
    pub fn step(&mut self, input: Option<&LanesIn>) -> Option<(u16, [u8; 16])> {
        match input {
            Some(i) => {
                let n = i.blocks.len();
                assert!((1..=self.lanes).contains(&n), "beat with {n} blocks");
                // Lane j in bits [128j +: 128]: big-endian bytes put lane LANES-1 first.
                self.buf.fill(0);
                for (j, b) in i.blocks.iter().enumerate() {
                    let off = 16 * (self.lanes - 1 - j);
                    self.buf[off..off + 16].copy_from_slice(b);
                }
                self.sim.set_u64(self.in_valid, 1);
                self.sim.set_u64(self.in_first, u64::from(i.first));
                self.sim.set_u64(self.in_last, u64::from(i.last));
                self.sim.set_u64(self.in_keep, (1u64 << n) - 1);
                self.sim.set_u64(self.in_tag, u64::from(i.tag));
                let buf = std::mem::take(&mut self.buf);
                self.sim.set_bytes(self.in_data, &buf);
                self.buf = buf;
                self.sim.set_bytes(self.in_h, &i.h);
                if self.powers_in && i.first {
                    // H^k in bits [128(k-1) +: 128]: big-endian bytes put H^(2*LANES) first.
                    let np = 2 * self.lanes;
                    let mut pw = vec![0u8; 16 * np];
                    let mut p = i.h;
                    for k in 1..=np {
                        let off = 16 * (np - k);
                        pw[off..off + 16].copy_from_slice(&p);
                        p = mul(&p, &i.h);
                    }
                    self.sim.set_bytes(self.in_hpow, &pw);
                }
            }
            None => self.sim.set_u64(self.in_valid, 0),
        }
        self.sim.tick();
        if self.sim.get_u64(self.out_valid) == 0 {
            return None;
        }
        let mut h = [0u8; 16];
        self.sim.get_bytes(self.out_hash, &mut h);
        Some((self.sim.get_u64(self.out_tag) as u16, h))
    }

    /// Clock edges simulated so far.
    pub fn cycles(&self) -> u64 {
        self.sim.cycles()
    }
}
