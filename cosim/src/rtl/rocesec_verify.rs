//! Driver for the verify / RX top `rtl/top/rocesec_verify_axil.sv` (`rocesec_verify` behind
//! its AXI4-Lite register interface). Its ports are those of the protect top, so the stream and
//! register handling is [`super::rocesec_protect::RocesecProtect`]'s; this adds the RX program
//! (`rocesec_model::regmap::rx_program`: next-epoch bit, epoch + 1 PD slots, the control
//! register selecting cut-through or store-and-forward) and the RX counters.

use rocesec_model::keys::KeyFile;
use rocesec_model::regmap::{self, RegBus};

use super::axil::AxilError;

use super::rocesec_protect::{RocesecProtect, RunResult, Traffic};
use super::{SplitMix64, Top};

/// Register map of the verify top: `rocesec_model::regmap` (`CTRL`, `NEXT_EPOCH`, `CNT_*`).
pub use rocesec_model::regmap as reg;

/// Output mode of the verify top.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VerifyMode {
    /// Bytes leave before the ICV is checked; the verdict is `tuser` on the last beat.
    CutThrough,
    /// A frame leaves only after its ICV verified; rejected frames never leave.
    StoreForward,
}

impl VerifyMode {
    /// Short name for reports.
    pub fn name(self) -> &'static str {
        match self {
            VerifyMode::CutThrough => "cut-through",
            VerifyMode::StoreForward => "store-fwd",
        }
    }
}

/// A verilated `rocesec_verify_axil`.
pub struct RocesecVerify {
    dut: RocesecProtect,
    mode: VerifyMode,
}

impl RocesecVerify {
    /// Bytes per AXI4-Stream beat of the top: 16·LANES.
    pub fn beat_bytes(&self) -> usize {
        self.dut.beat_bytes()
    }

    /// Build, reset and select `mode` (control register).
    ///
    /// # Panics
    /// If `top` is not a verify variant, or the control register write fails.
    pub fn new(top: Top, mode: VerifyMode) -> Self {
        assert!(
            matches!(
                top,
                Top::RocesecVerify1
                    | Top::RocesecVerify1Fault
                    | Top::RocesecVerify1Trace
                    | Top::RocesecVerify4
                    | Top::RocesecVerify4Trace
            ),
            "{} is not a rocesec_verify variant",
            top.name()
        );
        let mut v = Self {
            dut: RocesecProtect::new(top),
            mode,
        };
        v.select_mode();
        v
    }

    fn select_mode(&mut self) {
        let ctrl = match self.mode {
            VerifyMode::StoreForward => regmap::CTRL_STORE_FORWARD,
            VerifyMode::CutThrough => 0,
        };
        self.dut
            .write(regmap::CTRL, ctrl)
            .unwrap_or_else(|e| panic!("control register: {e}"));
    }

    /// Reset the running top ([`RocesecProtect::reset`]) and select the output mode again; the
    /// keys must be loaded again.
    ///
    /// # Panics
    /// If the control register write fails.
    pub fn reset(&mut self) {
        self.dut.reset();
        self.select_mode();
    }

    /// The output mode.
    pub fn mode(&self) -> VerifyMode {
        self.mode
    }

    /// Load policies and PD keys (`regmap::rx_program`), keeping the output mode.
    ///
    /// # Errors
    /// The key file does not fit the engine, or a register write failed.
    pub fn load_keys(&mut self, k: &KeyFile) -> Result<(), String> {
        let prog = regmap::rx_program(k, self.mode == VerifyMode::StoreForward)
            .map_err(|e| e.to_string())?;
        regmap::apply(&mut self.dut.regs(), &prog).map_err(|e| e.to_string())
    }

    /// Stream `frames` in; `expect` frames should leave (all of them in cut-through, the
    /// forwarded ones in store-and-forward). See [`RocesecProtect::run_expect`].
    pub fn run(
        &mut self,
        frames: &[Vec<u8>],
        expect: usize,
        t: Traffic,
        rng: &mut SplitMix64,
    ) -> RunResult {
        self.dut.run_expect(frames, expect, t, rng)
    }

    /// [`run`](Self::run) with register writes during the traffic; see
    /// [`RocesecProtect::run_live`].
    pub fn run_live(
        &mut self,
        frames: &[Vec<u8>],
        expect: usize,
        t: Traffic,
        rng: &mut SplitMix64,
        sched: &[(usize, Vec<regmap::RegWrite>)],
    ) -> RunResult {
        self.dut.run_live(frames, expect, t, rng, sched)
    }

    /// Record cycles `from..=to` of the coming run as an FST waveform at `path`; see
    /// [`RocesecProtect::trace_window`].
    ///
    /// # Errors
    /// The variant is not trace-capable.
    pub fn trace_window(
        &mut self,
        path: &std::path::Path,
        from: u64,
        to: u64,
    ) -> Result<(), String> {
        self.dut.trace_window(path, from, to)
    }

    /// See [`RocesecProtect::idle`].
    pub fn idle(&mut self, n: u64) {
        self.dut.idle(n);
    }

    /// See [`RocesecProtect::idle_until_traced`].
    pub fn idle_until_traced(&mut self, max: u64) {
        self.dut.idle_until_traced(max);
    }

    /// First and last cycle recorded, closing the file; see [`RocesecProtect::trace_finish`].
    pub fn trace_finish(&mut self) -> Option<(u64, u64)> {
        self.dut.trace_finish()
    }

    /// Counter word `c` (`regmap::COUNT + 4 c`).
    pub fn counter(&mut self, c: usize) -> u32 {
        self.dut.read(regmap::COUNT + 4 * c as u16)
    }

    /// Cycles the KDF was busy so far.
    pub fn kdf_cycles(&self) -> u64 {
        self.dut.kdf_cycles
    }

    /// Write one register.
    ///
    /// # Panics
    /// If the write fails (a DUT bug).
    pub fn write(&mut self, addr: u16, data: u32) {
        self.dut
            .write(addr, data)
            .unwrap_or_else(|e| panic!("register write {addr:#06x}: {e}"));
    }

    /// Read one register.
    pub fn read(&mut self, addr: u16) -> u32 {
        self.dut.read(addr)
    }
}

/// The top as a register bus (its AXI4-Lite port), as [`RocesecProtect`]'s, so the host
/// library's `rocesec_host::engine::Engine` (made with `Engine::new_rx`) can program it.
impl RegBus for RocesecVerify {
    type Error = AxilError;
    fn write32(&mut self, addr: u16, data: u32) -> Result<(), AxilError> {
        self.dut.write32(addr, data)
    }
    fn read32(&mut self, addr: u16) -> Result<u32, AxilError> {
        self.dut.read32(addr)
    }
}
