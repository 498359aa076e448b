//! Driver for `rtl/aes/aes_cipher_pipe.sv` (fully pipelined AES, key per block).

use super::{Port, Sim, Top};

/// Pipeline latency in cycles of `en_i` high with the default `SboxLatency = 2`:
/// `1 + 3·Nr` = 31 (AES-128) or 43 (AES-256); mirrors `aes_pkg::aes_pipe_latency`.
pub const fn latency(key_len_bits: usize) -> usize {
    if key_len_bits == 256 {
        43
    } else {
        31
    }
}

/// One block presented to the pipeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AesIn {
    /// Sideband carried to the output (16 bits in the test builds).
    pub tag: u16,
    /// Key: 16 bytes (AES-128 builds) or 32 bytes (AES-256 builds).
    pub key: Vec<u8>,
    /// Plaintext block.
    pub data: [u8; 16],
}

/// One block leaving the pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AesOut {
    /// Sideband of the input block.
    pub tag: u16,
    /// Ciphertext block.
    pub data: [u8; 16],
}

/// A verilated `aes_cipher_pipe` instance.
pub struct AesCipherPipe {
    sim: Sim,
    key_bytes: usize,
    sbox_latency: usize,
    en: Port,
    in_valid: Port,
    in_tag: Port,
    in_key: Port,
    in_data: Port,
    out_valid: Port,
    out_tag: Port,
    out_data: Port,
}

impl AesCipherPipe {
    /// Build one of the `aes_cipher_pipe` variants and reset it.
    ///
    /// # Panics
    /// If `top` is not an `aes_cipher_pipe` variant.
    pub fn new(top: Top) -> Self {
        let key_bytes = match top {
            Top::AesCipherPipe128 | Top::AesCipherPipeFault | Top::AesCipherPipe128Tower => 16,
            Top::AesCipherPipe256 | Top::AesCipherPipe256TowerL1 => 32,
            #[allow(unreachable_patterns)]
            _ => panic!("{} is not an aes_cipher_pipe variant", top.name()),
        };
        let sbox_latency = if top == Top::AesCipherPipe256TowerL1 {
            1
        } else {
            2
        };
        let sim = Sim::new(top);
        let mut s = Self {
            key_bytes,
            sbox_latency,
            en: sim.pin("en_i"),
            in_valid: sim.pin("in_valid_i"),
            in_tag: sim.pin("in_tag_i"),
            in_key: sim.pin("in_key_i"),
            in_data: sim.pin("in_data_i"),
            out_valid: sim.pin("out_valid_o"),
            out_tag: sim.pin("out_tag_o"),
            out_data: sim.pin("out_data_o"),
            sim,
        };
        s.reset();
        s
    }

    /// Pipeline latency of this build in cycles of `en_i` high: `1 + (SboxLatency + 1)·Nr`
    /// (`aes_pkg::aes_pipe_latency`): 31 / 43 for AES-128 / AES-256 at `SboxLatency = 2`, 29 for
    /// the AES-256 build with `SboxLatency = 1`.
    pub fn latency(&self) -> usize {
        let nr = if self.key_bytes == 32 { 14 } else { 10 };
        1 + (self.sbox_latency + 1) * nr
    }

    /// Key length of this build in bytes.
    pub fn key_bytes(&self) -> usize {
        self.key_bytes
    }

    /// Reset (valid and key registers cleared).
    pub fn reset(&mut self) {
        self.sim.set_u64(self.en, 1);
        self.sim.set_u64(self.in_valid, 0);
        self.sim.reset();
    }

    /// One clock: present `input` (or an idle cycle) with `en_i = en`, then return the output
    /// registered at this edge if `out_valid_o` is set. With `en = false` the pipeline holds, the
    /// input is ignored and no (new) output is returned.
    ///
    /// # Panics
    /// If the key length does not match the build.
    pub fn step(&mut self, en: bool, input: Option<&AesIn>) -> Option<AesOut> {
        self.sim.set_u64(self.en, u64::from(en));
        match input {
            Some(i) => {
                assert_eq!(i.key.len(), self.key_bytes, "key length");
                self.sim.set_u64(self.in_valid, 1);
                self.sim.set_u64(self.in_tag, u64::from(i.tag));
                self.sim.set_bytes(self.in_key, &i.key);
                self.sim.set_bytes(self.in_data, &i.data);
            }
            None => self.sim.set_u64(self.in_valid, 0),
        }
        self.sim.tick();
        if en {
            self.output()
        } else {
            None
        }
    }

    /// The current (registered) output, if valid.
    pub fn output(&mut self) -> Option<AesOut> {
        if self.sim.get_u64(self.out_valid) == 0 {
            return None;
        }
        let tag = self.sim.get_u64(self.out_tag) as u16;
        let mut data = [0u8; 16];
        self.sim.get_bytes(self.out_data, &mut data);
        Some(AesOut { tag, data })
    }

    /// Clock edges simulated so far.
    pub fn cycles(&self) -> u64 {
        self.sim.cycles()
    }
}
