//! Driver for `rtl/ghash/ghash_mul.sv` (pipelined GF(2^128) multiplier).

use super::{Port, Sim, Top};

/// A verilated `ghash_mul` instance.
pub struct GhashMul {
    sim: Sim,
    stages: usize,
    valid_i: Port,
    tag_i: Port,
    a_i: Port,
    b_i: Port,
    valid_o: Port,
    tag_o: Port,
    p_o: Port,
}

impl GhashMul {
    /// Build a `ghash_mul` variant and reset it.
    ///
    /// # Panics
    /// If `top` is not a `ghash_mul` variant.
    pub fn new(top: Top) -> Self {
        let stages = match top {
            Top::GhashMul1 => 1,
            Top::GhashMul2 => 2,
            Top::GhashMul3 => 3,
            _ => panic!("{} is not a ghash_mul variant", top.name()),
        };
        let sim = Sim::new(top);
        let mut s = Self {
            stages,
            valid_i: sim.pin("valid_i"),
            tag_i: sim.pin("tag_i"),
            a_i: sim.pin("a_i"),
            b_i: sim.pin("b_i"),
            valid_o: sim.pin("valid_o"),
            tag_o: sim.pin("tag_o"),
            p_o: sim.pin("p_o"),
            sim,
        };
        s.sim.set_u64(s.valid_i, 0);
        s.sim.reset();
        s
    }

    /// Latency in cycles (= `NumStages`).
    pub fn latency(&self) -> usize {
        self.stages
    }

    /// One clock with an optional input `(tag, X, Y)`; returns the product registered at this
    /// edge, if any, as `(tag, X * Y)`.
    pub fn step(&mut self, input: Option<(u16, &[u8; 16], &[u8; 16])>) -> Option<(u16, [u8; 16])> {
        match input {
            Some((tag, a, b)) => {
                self.sim.set_u64(self.valid_i, 1);
                self.sim.set_u64(self.tag_i, u64::from(tag));
                self.sim.set_bytes(self.a_i, a);
                self.sim.set_bytes(self.b_i, b);
            }
            None => self.sim.set_u64(self.valid_i, 0),
        }
        self.sim.tick();
        if self.sim.get_u64(self.valid_o) == 0 {
            return None;
        }
        let mut p = [0u8; 16];
        self.sim.get_bytes(self.p_o, &mut p);
        Some((self.sim.get_u64(self.tag_o) as u16, p))
    }

    /// Clock edges simulated so far.
    pub fn cycles(&self) -> u64 {
        self.sim.cycles()
    }
}
