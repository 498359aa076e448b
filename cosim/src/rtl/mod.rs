//! Safe drivers for the Verilator models of the rocesec RTL blocks.
//!
//! [`ffi`] holds all `unsafe` code; [`Sim`] adds clocking, reset and byte-order conversion; one
//! module per RTL top gives it a typed, cycle-level API (`new`/`reset`/`step`).
//!
//! # Byte order
//! A block or key is a byte string `b0 b1 …` with `b0` in the most significant bits of the
//! SystemVerilog vector (SP 800-38D / FIPS 197 order). The conversion to Verilator words (word 0 =
//! bits 31:0) happens in one place: [`bytes_to_words`] / [`words_to_bytes`].

pub mod aes_cipher_pipe;
pub mod axil;
pub mod ffi;
pub mod ghash_core;
pub mod ghash_lanes;
pub mod ghash_mul;
pub mod kdf_cmac;
pub mod roce_icrc;
pub mod roce_parse;
pub mod rocesec_protect;
pub mod rocesec_verify;

pub use ffi::{Model, Port, Top};
/// The stimulus PRNG, shared with the model's timing layer (same draws, same patterns).
pub use rocesec_model::timing::SplitMix64;

/// Big-endian bytes (`b0` = most significant) to Verilator words (word 0 = bits 31:0).
///
/// `out` must be long enough for `bytes.len()` bytes; unused high bits are zero.
///
/// # Panics
/// If `out` is too short.
pub fn bytes_to_words(bytes: &[u8], out: &mut [u32]) {
    assert!(out.len() * 4 >= bytes.len(), "too many bytes for port");
    out.fill(0);
    for (i, &b) in bytes.iter().rev().enumerate() {
        out[i / 4] |= u32::from(b) << (8 * (i % 4));
    }
}

/// Verilator words (word 0 = bits 31:0) to `out.len()` big-endian bytes (the low `8*out.len()`
/// bits of the vector).
///
/// # Panics
/// If `words` is too short.
pub fn words_to_bytes(words: &[u32], out: &mut [u8]) {
    assert!(words.len() * 4 >= out.len(), "too few words for port");
    let n = out.len();
    for (i, o) in out.iter_mut().enumerate() {
        let bit_byte = n - 1 - i;
        *o = (words[bit_byte / 4] >> (8 * (bit_byte % 4))) as u8;
    }
}

/// A clocked model: `clk_i`, optional `rst_ni`, and a cycle counter.
pub struct Sim {
    model: Model,
    clk: Port,
    rst: Option<Port>,
    cycles: u64,
    buf: Vec<u32>,
}

impl Sim {
    /// Build a model, drive `clk_i` low and evaluate once.
    ///
    /// # Panics
    /// If the top has no `clk_i` port.
    pub fn new(top: Top) -> Self {
        let model = Model::new(top);
        let clk = model.port("clk_i").expect("clk_i");
        let rst = model.port("rst_ni");
        let mut s = Self {
            model,
            clk,
            rst,
            cycles: 0,
            buf: Vec::new(),
        };
        s.model.set(clk, &[0]);
        s.model.eval();
        s
    }

    /// Look a port up by name.
    ///
    /// # Panics
    /// If the port does not exist (a harness bug).
    pub fn pin(&self, name: &str) -> Port {
        self.model
            .port(name)
            .unwrap_or_else(|| panic!("{}: no port {name}", self.model.top().name()))
    }

    /// Drive a port of up to 64 bits.
    pub fn set_u64(&mut self, p: Port, v: u64) {
        let mut w = std::mem::take(&mut self.buf);
        w.clear();
        w.resize(p.words(), 0);
        w[0] = v as u32;
        if w.len() > 1 {
            w[1] = (v >> 32) as u32;
        }
        self.model.set(p, &w);
        self.buf = w;
    }

    /// Drive a port from big-endian bytes.
    pub fn set_bytes(&mut self, p: Port, bytes: &[u8]) {
        let mut w = std::mem::take(&mut self.buf);
        w.clear();
        w.resize(p.words(), 0);
        bytes_to_words(bytes, &mut w);
        self.model.set(p, &w);
        self.buf = w;
    }

    /// Read a port of up to 64 bits.
    pub fn get_u64(&mut self, p: Port) -> u64 {
        let mut w = std::mem::take(&mut self.buf);
        w.clear();
        w.resize(p.words(), 0);
        self.model.get(p, &mut w);
        let v = u64::from(w[0]) | w.get(1).map_or(0, |&h| u64::from(h) << 32);
        self.buf = w;
        v
    }

    /// Read a port as `out.len()` big-endian bytes.
    pub fn get_bytes(&mut self, p: Port, out: &mut [u8]) {
        let mut w = std::mem::take(&mut self.buf);
        w.clear();
        w.resize(p.words(), 0);
        self.model.get(p, &mut w);
        words_to_bytes(&w, out);
        self.buf = w;
    }

    /// Evaluate combinational logic after changing inputs (no clock edge).
    pub fn eval(&mut self) {
        self.model.eval();
    }

    /// One rising clock edge: inputs set before the call are sampled, registered outputs update.
    pub fn tick(&mut self) {
        let clk = self.clk;
        self.model.set(clk, &[1]);
        self.model.eval();
        self.model.set(clk, &[0]);
        self.model.eval();
        self.cycles += 1;
    }

    /// Assert `rst_ni` for two clock cycles, then release it.
    pub fn reset(&mut self) {
        if let Some(r) = self.rst {
            self.model.set(r, &[0]);
            self.model.eval();
            self.tick();
            self.tick();
            self.model.set(r, &[1]);
            self.model.eval();
        }
    }

    /// Rising edges since construction.
    pub fn cycles(&self) -> u64 {
        self.cycles
    }
}

/// Seed for stimulus: `ROCESEC_SEED` if set (decimal or 0x-hex), else `default`.
pub fn seed(default: u64) -> u64 {
    std::env::var("ROCESEC_SEED")
        .ok()
        .and_then(|s| {
            s.strip_prefix("0x")
                .map_or_else(|| s.parse().ok(), |h| u64::from_str_radix(h, 16).ok())
        })
        .unwrap_or(default)
}
