//! Driver for `rtl/ghash/ghash_core.sv` (GHASH at one block per clock, per-packet H).

use super::{Port, Sim, Top};

/// One block presented to the core.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GhashIn {
    /// First block of a packet (samples `h`).
    pub first: bool,
    /// Last block of a packet.
    pub last: bool,
    /// Sideband returned with the hash (sampled with the last block).
    pub tag: u16,
    /// The block `X_i`.
    pub data: [u8; 16],
    /// The hash subkey `H` (used with `first`).
    pub h: [u8; 16],
}

/// A verilated `ghash_core` instance.
pub struct GhashCore {
    sim: Sim,
    mul_stages: usize,
    in_valid: Port,
    in_first: Port,
    in_last: Port,
    in_tag: Port,
    in_data: Port,
    in_h: Port,
    out_valid: Port,
    out_tag: Port,
    out_hash: Port,
}

impl GhashCore {
    /// Build a `ghash_core` variant and reset it.
    ///
    /// # Panics
    /// If `top` is not a `ghash_core` variant.
    pub fn new(top: Top) -> Self {
        let mul_stages = match top {
            Top::GhashCore1 => 1,
            Top::GhashCore2 => 2,
            Top::GhashCore3 => 3,
            _ => panic!("{} is not a ghash_core variant", top.name()),
        };
        let sim = Sim::new(top);
        let mut s = Self {
            mul_stages,
            in_valid: sim.pin("in_valid_i"),
            in_first: sim.pin("in_first_i"),
            in_last: sim.pin("in_last_i"),
            in_tag: sim.pin("in_tag_i"),
            in_data: sim.pin("in_data_i"),
            in_h: sim.pin("in_h_i"),
            out_valid: sim.pin("out_valid_o"),
            out_tag: sim.pin("out_tag_o"),
            out_hash: sim.pin("out_hash_o"),
            sim,
        };
        s.sim.set_u64(s.in_valid, 0);
        s.sim.reset();
        s
    }

    /// Cycles from the edge accepting the last block to the edge presenting the hash, counting
    /// the accepting edge as 1: `MulStages + 2` for MulStages 1 and 2; 8 for MulStages 3 (hold,
    /// two power stages, operands, three multiplier stages, output register).
    pub fn latency(&self) -> usize {
        match self.mul_stages {
            3 => 8,
            m => m + 2,
        }
    }

    /// One clock with an optional block; returns `(tag, GHASH)` registered at this edge, if any.
    pub fn step(&mut self, input: Option<&GhashIn>) -> Option<(u16, [u8; 16])> {
        match input {
            Some(i) => {
                self.sim.set_u64(self.in_valid, 1);
                self.sim.set_u64(self.in_first, u64::from(i.first));
                self.sim.set_u64(self.in_last, u64::from(i.last));
                self.sim.set_u64(self.in_tag, u64::from(i.tag));
                self.sim.set_bytes(self.in_data, &i.data);
                self.sim.set_bytes(self.in_h, &i.h);
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
