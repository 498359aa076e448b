//! Driver for `rtl/aes/aes_cipher_iter.sv` (iterative AES-128/256 encryption, one round per
//! `SboxLatency + 1` cycles; the KDF's cipher).

use super::{Port, Sim, Top};

/// A verilated `aes_cipher_iter`.
pub struct AesCipherIter {
    sim: Sim,
    key_bytes: usize,
    sbox_latency: u64,
    start: Port,
    key: Port,
    data: Port,
    busy: Port,
    done: Port,
    out: Port,
}

impl AesCipherIter {
    /// Build a variant and reset it.
    ///
    /// # Panics
    /// If `top` is not an `aes_cipher_iter` variant.
    pub fn new(top: Top) -> Self {
        let (key_bytes, sbox_latency) = match top {
            Top::AesCipherIter128 => (16, 2),
            Top::AesCipherIter256L1 => (32, 1),
            _ => panic!("{} is not an aes_cipher_iter variant", top.name()),
        };
        let sim = Sim::new(top);
        let mut s = Self {
            key_bytes,
            sbox_latency,
            start: sim.pin("start_i"),
            key: sim.pin("key_i"),
            data: sim.pin("data_i"),
            busy: sim.pin("busy_o"),
            done: sim.pin("done_o"),
            out: sim.pin("data_o"),
            sim,
        };
        s.sim.set_u64(s.start, 0);
        s.sim.reset();
        s
    }

    /// Key length of this build in bytes.
    pub fn key_bytes(&self) -> usize {
        self.key_bytes
    }

    /// The documented latency, `aes_pkg::aes_pipe_latency(KeyLen, SboxLatency)` = 1 +
    /// (SboxLatency + 1)·Nr clock edges from the edge accepting `start_i` to `done_o`.
    pub fn latency(&self) -> u64 {
        let nr = if self.key_bytes == 16 { 10 } else { 14 };
        1 + (self.sbox_latency + 1) * nr
    }

    /// Encrypt `block` under `key` after `idle` idle cycles. Returns the ciphertext, the edges
    /// from the accepting edge to the cycle `done_o` is seen, and whether `busy_o` was high in
    /// every cycle between (and `done_o` low until then).
    ///
    /// # Panics
    /// On a wrong key length or when no `done_o` comes within 200 cycles.
    pub fn encrypt(&mut self, key: &[u8], block: &[u8; 16], idle: usize) -> ([u8; 16], u64, bool) {
        assert_eq!(key.len(), self.key_bytes, "key length");
        for _ in 0..idle {
            self.sim.tick();
        }
        assert_eq!(self.sim.get_u64(self.busy), 0, "busy before start");
        self.sim.set_u64(self.start, 1);
        self.sim.set_bytes(self.key, key);
        self.sim.set_bytes(self.data, block);
        self.sim.tick();
        self.sim.set_u64(self.start, 0);
        // the inputs may change while it runs: the block must not depend on them
        self.sim.set_bytes(self.key, &vec![0xa5; key.len()]);
        self.sim.set_bytes(self.data, &[0x5a; 16]);
        let mut steady = true;
        for n in 1..200u64 {
            self.sim.eval();
            if self.sim.get_u64(self.done) != 0 {
                let mut out = [0u8; 16];
                self.sim.get_bytes(self.out, &mut out);
                self.sim.tick();
                return (out, n, steady);
            }
            steady &= self.sim.get_u64(self.busy) != 0;
            self.sim.tick();
        }
        panic!("aes_cipher_iter: no done_o");
    }
}
