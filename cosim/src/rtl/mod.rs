//! Safe drivers for the Verilator models of the rocesec RTL blocks.
//!
//! [`ffi`] holds all `unsafe` code; [`Sim`] adds clocking, reset and byte-order conversion; one
//! module per RTL top gives it a typed, cycle-level API (`new`/`reset`/`step`).
//!
//! # Byte order
//! A block or key is a byte string `b0 b1 …` with `b0` in the most significant bits of the
//! SystemVerilog vector (SP 800-38D / FIPS 197 order). The conversion to Verilator words (word 0 =
//! bits 31:0) happens in one place: [`bytes_to_words`] / [`words_to_bytes`].

pub mod aes_cipher_iter;
pub mod aes_cipher_pipe;
pub mod axil;
pub mod ctr;
pub mod ffi;
pub mod ghash_core;
pub mod ghash_feed_wide;
pub mod ghash_lanes;
pub mod ghash_mul;
pub mod kdf_cmac;
pub mod key_cache;
pub mod key_tables;
pub mod roce_icrc;
pub mod roce_parse;
pub mod rocesec_protect;
pub mod rocesec_verify;
pub mod verify_key;

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

/// Waveform time per clock cycle, in ns (the file's unit): cycle `c` is recorded at
/// `c * NS_PER_CYCLE` (inputs of that cycle, clock low) and its rising edge at
/// `c * NS_PER_CYCLE + NS_PER_CYCLE / 2` (registers updated), i.e. a 100 MHz clock.
pub const NS_PER_CYCLE: u64 = 10;

/// A waveform window of a [`Sim`]: record cycles `from..=to` into `path`.
#[derive(Clone, Debug)]
struct TraceWindow {
    path: std::path::PathBuf,
    from: u64,
    to: u64,
    /// The file is open (first recorded cycle).
    open: Option<u64>,
    /// Last cycle recorded.
    last: Option<u64>,
    /// The window has been written and closed.
    done: bool,
}

/// A clocked model: `clk_i`, optional `rst_ni`, and a cycle counter.
pub struct Sim {
    model: Model,
    clk: Port,
    rst: Option<Port>,
    cycles: u64,
    buf: Vec<u32>,
    trace: Option<TraceWindow>,
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
            trace: None,
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
    /// Inside a [waveform window](Self::trace_window) the cycle is recorded.
    pub fn tick(&mut self) {
        let clk = self.clk;
        let rec = self.trace.is_some() && self.trace_cycle();
        if rec {
            self.model.trace_dump(self.cycles * NS_PER_CYCLE);
        }
        self.model.set(clk, &[1]);
        self.model.eval();
        if rec {
            self.model
                .trace_dump(self.cycles * NS_PER_CYCLE + NS_PER_CYCLE / 2);
        }
        self.model.set(clk, &[0]);
        self.model.eval();
        self.cycles += 1;
        if rec && self.trace.as_ref().is_some_and(|t| self.cycles > t.to) {
            // the falling edge after the window's last cycle, then close
            self.model.trace_dump(self.cycles * NS_PER_CYCLE);
            self.model.trace_close();
            if let Some(t) = &mut self.trace {
                t.done = true;
            }
        }
    }

    /// Open the window's file when its first cycle comes; true if this cycle is recorded.
    fn trace_cycle(&mut self) -> bool {
        let c = self.cycles;
        let Some(t) = &mut self.trace else {
            return false;
        };
        if t.done || c < t.from || c > t.to {
            return false;
        }
        if t.open.is_none() {
            if !self.model.trace_open(&t.path) {
                t.done = true;
                return false;
            }
            t.open = Some(c);
        }
        t.last = Some(c);
        true
    }

    /// Record cycles `from..=to` (clock edges counted by [`cycles`](Self::cycles)) of this run as
    /// an FST waveform at `path`: every signal of the trace-capable model, down to the depth it
    /// was verilated with. The file is opened when cycle `from` starts and closed after cycle
    /// `to` (or when the model is dropped). Times are `cycle * NS_PER_CYCLE` ns.
    ///
    /// # Errors
    /// The model was not built trace-capable (`Top::traceable`).
    pub fn trace_window(
        &mut self,
        path: &std::path::Path,
        from: u64,
        to: u64,
    ) -> Result<(), String> {
        if !self.model.top().traceable() {
            return Err(format!(
                "{} is not built trace-capable (build.rs: trace)",
                self.model.top().name()
            ));
        }
        self.trace = Some(TraceWindow {
            path: path.to_path_buf(),
            from,
            to,
            open: None,
            last: None,
            done: false,
        });
        Ok(())
    }

    /// Cycles recorded so far by the waveform window (first, last), if any; `None` also when
    /// the file could not be created.
    pub fn traced(&self) -> Option<(u64, u64)> {
        let t = self.trace.as_ref()?;
        Some((t.open?, t.last?))
    }

    /// Has the waveform window been written and closed (or could its file not be created)?
    pub fn trace_done(&self) -> bool {
        self.trace.as_ref().is_some_and(|t| t.done)
    }

    /// Close the waveform window's file now (it is also closed after its last cycle and on drop).
    pub fn trace_finish(&mut self) {
        if let Some(t) = &mut self.trace {
            if t.open.is_some() && !t.done {
                self.model.trace_dump(self.cycles * NS_PER_CYCLE);
                self.model.trace_close();
            }
            t.done = true;
        }
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
