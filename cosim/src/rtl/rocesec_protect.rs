//! Driver for the protect / TX top `rtl/top/rocesec_protect_axil.sv` (`rocesec_protect` behind
//! its AXI4-Lite register interface): an AXI4-Stream source with idle insertion, a sink with
//! backpressure, and an AXI4-Lite master that loads the tables from a key file through the
//! register programs of `rocesec_model::regmap`. The verify top behind the same interface
//! (`rocesec_verify_axil`) has the same ports; `rocesec_verify` builds on this driver.

use std::collections::VecDeque;

use rocesec_model::keys::KeyFile;
use rocesec_model::regmap::{self, RegBus, RegWrite};

use super::axil::{AxilBus, AxilError, AxilMaster};
use super::roce_parse::{beats, get_le, set_le, Beat};
use super::{Port, Sim, SplitMix64, Top};

/// Register map: `rocesec_model::regmap` (checked against `rtl/0_pkg/rocesec_pkg.sv`).
pub use rocesec_model::regmap as reg;

/// One frame leaving the DUT.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutFrame {
    /// Frame bytes.
    pub data: Vec<u8>,
    /// `m_axis_tuser_o` of the last beat: [3:0] reason, [5:4] forward kind.
    pub tuser: u8,
    /// Cycle the first input beat of the frame was accepted.
    pub in_first_cycle: u64,
    /// Cycle of the first output beat.
    pub first_cycle: u64,
    /// Cycle of the last beat.
    pub last_cycle: u64,
}

/// A verilated `rocesec_protect`.
pub struct RocesecProtect {
    sim: Sim,
    beat_bytes: usize,
    s_tdata: Port,
    s_tkeep: Port,
    s_tlast: Port,
    s_tvalid: Port,
    s_tready: Port,
    m_tdata: Port,
    m_tkeep: Port,
    m_tlast: Port,
    m_tuser: Port,
    m_tvalid: Port,
    m_tready: Port,
    axil: AxilMaster,
    kdf_busy: Port,
    /// Cycles with the KDF busy.
    pub kdf_cycles: u64,
}

/// What [`RocesecProtect::run_expect`] saw.
#[derive(Clone, Debug, Default)]
pub struct RunResult {
    /// Frames that left, in order.
    pub out: Vec<OutFrame>,
    /// Cycles from the start to the last expected frame out.
    pub cycles: u64,
    /// Cycle each input frame's first beat was accepted.
    pub in_starts: Vec<u64>,
    /// Nothing moved for 20000 cycles before `expect` frames left.
    pub stalled: bool,
    /// [`run_live`](RocesecProtect::run_live): per batch of register writes, the cycle its
    /// first write was queued and the cycle its last write was answered (BVALID·BREADY).
    pub writes: Vec<(u64, u64)>,
}

/// Stimulus options (input idle / output stall in 1/16), shared with the model's timing layer.
pub use rocesec_model::timing::Traffic;

impl RocesecProtect {
    /// Bytes per AXI4-Stream beat of the top: 16·LANES (`s_axis_tdata` width / 8).
    pub fn beat_bytes(&self) -> usize {
        self.beat_bytes
    }

    /// Build and reset (`top`: a protect or verify variant; both have the same ports).
    pub fn new(top: Top) -> Self {
        let mut sim = Sim::new(top);
        let axil = AxilMaster::new(&mut sim, 0x5EED_A11C);
        let s_tdata = sim.pin("s_axis_tdata_i");
        let mut s = Self {
            beat_bytes: s_tdata.words() * 4,
            s_tdata,
            s_tkeep: sim.pin("s_axis_tkeep_i"),
            s_tlast: sim.pin("s_axis_tlast_i"),
            s_tvalid: sim.pin("s_axis_tvalid_i"),
            s_tready: sim.pin("s_axis_tready_o"),
            m_tdata: sim.pin("m_axis_tdata_o"),
            m_tkeep: sim.pin("m_axis_tkeep_o"),
            m_tlast: sim.pin("m_axis_tlast_o"),
            m_tuser: sim.pin("m_axis_tuser_o"),
            m_tvalid: sim.pin("m_axis_tvalid_o"),
            m_tready: sim.pin("m_axis_tready_i"),
            axil,
            kdf_busy: sim.pin("kdf_busy_o"),
            kdf_cycles: 0,
            sim,
        };
        s.sim.set_u64(s.s_tvalid, 0);
        s.sim.set_u64(s.m_tready, 1);
        s.sim.reset();
        s
    }

    /// Assert `rst_ni` for two cycles with the stream inputs idle, as a host resetting a running
    /// engine: the registers (tables, counters, control) and every valid bit return to zero;
    /// the RAM words (QP state, job table) keep their bits, as an FPGA's do.
    pub fn reset(&mut self) {
        self.sim.set_u64(self.s_tvalid, 0);
        self.sim.set_u64(self.m_tready, 1);
        self.sim.reset();
    }

    /// The AXI4-Lite register interface as a [`RegBus`].
    pub fn regs(&mut self) -> AxilBus<'_> {
        AxilBus {
            sim: &mut self.sim,
            m: &mut self.axil,
        }
    }

    /// Random AXI4-Lite handshake delays: probability (in 1/16) that the master withholds a
    /// valid or ready in a cycle.
    pub fn set_axil_delay(&mut self, p16: u64) {
        self.axil.delay = p16;
    }

    /// Cycles spent in AXI4-Lite transfers so far.
    pub fn axil_cycles(&self) -> u64 {
        self.axil.cycles
    }

    /// Write one register over AXI4-Lite.
    ///
    /// # Errors
    /// A non-OKAY response or a hung handshake.
    pub fn write(&mut self, addr: u16, data: u32) -> Result<(), AxilError> {
        self.regs().write32(addr, data)
    }

    /// Read one register over AXI4-Lite.
    ///
    /// # Panics
    /// If the read fails (the tops always answer OKAY: a failure is a DUT bug).
    pub fn read(&mut self, addr: u16) -> u32 {
        self.regs()
            .read32(addr)
            .unwrap_or_else(|e| panic!("register read: {e}"))
    }

    /// Load the tables from a key file (`regmap::tx_program`: default policy, policy entries,
    /// the PD keys of every (pd, epoch) in use; HKDF-SHA256 runs here, as the control plane's).
    ///
    /// # Errors
    /// The key file does not fit the engine (`RegMapError`, as text) or a register write failed.
    pub fn load_keys(&mut self, k: &KeyFile) -> Result<(), String> {
        let prog = regmap::tx_program(k).map_err(|e| e.to_string())?;
        regmap::apply(&mut self.regs(), &prog).map_err(|e| e.to_string())
    }

    /// Stream `frames` in and collect the frames that leave, with random input idle cycles
    /// and output backpressure. Returns the output frames (in order) and the cycles used.
    ///
    /// # Panics
    /// If the DUT stops producing output for 20000 cycles.
    pub fn run(
        &mut self,
        frames: &[Vec<u8>],
        t: Traffic,
        rng: &mut SplitMix64,
    ) -> (Vec<OutFrame>, u64) {
        let r = self.run_expect(frames, frames.len(), t, rng);
        assert!(
            !r.stalled,
            "no output for 20000 cycles ({} frames out)",
            r.out.len()
        );
        (r.out, r.cycles)
    }

    /// Stream `frames` in until every beat is accepted and `expect` frames have left (a top
    /// that drops frames sends fewer than it receives), then, if `expect` is smaller than the
    /// number of frames, watch the output for 64 more cycles so that an extra frame is caught
    /// too. Stops early (`stalled`) after 20000 cycles without a beat in or out. The stimulus is
    /// [`run`](Self::run)'s (two draws per cycle, as the timing layer's).
    /// `in_first_cycle` of the outputs is only meaningful when no frame is dropped;
    /// `in_starts` has the acceptance cycle of every input frame.
    /// With a [waveform window](Self::trace_window) the run stops as soon as the window is
    /// written (a mismatch's re-run needs nothing after it).
    pub fn run_expect(
        &mut self,
        frames: &[Vec<u8>],
        expect: usize,
        t: Traffic,
        rng: &mut SplitMix64,
    ) -> RunResult {
        self.run_live(frames, expect, t, rng, &[])
    }

    /// [`run_expect`](Self::run_expect) with register writes during the traffic: batch
    /// `(k, writes)` is queued on the AXI4-Lite master in the cycle input frame `k` (0-based)
    /// has its first beat accepted (`k` = `frames.len()`: after the last frame's first beat),
    /// and its writes go out one after the other while the stream runs. The run also waits
    /// for every queued write to be answered. `writes` of the result has each batch's queue and
    /// answer cycles. Batches must be in increasing `k`.
    ///
    /// # Panics
    /// If a register write gets a non-OKAY response or hangs (a DUT bug), or `k` decreases.
    pub fn run_live(
        &mut self,
        frames: &[Vec<u8>],
        expect: usize,
        t: Traffic,
        rng: &mut SplitMix64,
        sched: &[(usize, Vec<RegWrite>)],
    ) -> RunResult {
        assert!(
            sched.windows(2).all(|w| w[0].0 <= w[1].0),
            "register-write batches out of order"
        );
        let mut sched_next = 0usize;
        let mut writes: Vec<(u64, u64)> = Vec::new();
        // writes answered so far, and the write count at which each queued batch is complete
        let mut answered = 0usize;
        let mut batch_end: VecDeque<(usize, usize)> = VecDeque::new(); // (batch, count)
        let mut queued = 0usize;
        let bb = self.beat_bytes;
        let mut queue: VecDeque<Beat> = frames.iter().flat_map(|f| beats(f, bb)).collect();
        let mut out = Vec::new();
        let mut cur: Vec<u8> = Vec::new();
        let mut first = 0u64;
        let start = self.sim.cycles();
        let mut quiet = 0u64;
        let mut offered: Option<Beat> = None;
        let mut in_starts: VecDeque<u64> = VecDeque::new();
        let mut all_starts = Vec::new();
        let mut in_mid = false;
        let mut tail = 0u64;
        let mut stalled = false;
        let mut end = start;
        loop {
            // queue the batches due: frame k's first beat accepted (all_starts.len() > k)
            while sched_next < sched.len() && sched[sched_next].0 <= all_starts.len() {
                let (_, w) = &sched[sched_next];
                self.axil.queue_writes(w);
                queued += w.len();
                batch_end.push_back((sched_next, queued));
                writes.push((self.sim.cycles(), 0));
                sched_next += 1;
            }
            let input_done = queue.is_empty() && offered.is_none();
            let writes_done = sched_next == sched.len() && self.axil.live_pending() == 0;
            if input_done && writes_done && out.len() >= expect && cur.is_empty() {
                // every expected frame is out: watch for extras (none possible without drops)
                if tail == 0 {
                    end = self.sim.cycles();
                }
                tail += 1;
                if tail > 64 || expect == frames.len() {
                    break;
                }
            }
            let stim = t.draw(rng);
            // input: keep offering the same beat until accepted
            if offered.is_none() && !queue.is_empty() && !stim.idle {
                offered = queue.pop_front();
            }
            match &offered {
                Some(b) => {
                    set_le(&mut self.sim, self.s_tdata, &b.data);
                    self.sim.set_u64(self.s_tkeep, b.keep);
                    self.sim.set_u64(self.s_tlast, u64::from(b.last));
                    self.sim.set_u64(self.s_tvalid, 1);
                }
                None => self.sim.set_u64(self.s_tvalid, 0),
            }
            let ready = !stim.stall;
            self.sim.set_u64(self.m_tready, u64::from(ready));
            self.axil.live_pre(&mut self.sim);
            self.sim.eval();
            match self.axil.live_post(&mut self.sim) {
                Ok(Some(_)) => {
                    answered += 1;
                    while batch_end.front().is_some_and(|&(_, n)| n <= answered) {
                        let (b, _) = batch_end.pop_front().unwrap_or_default();
                        writes[b].1 = self.sim.cycles();
                    }
                    quiet = 0;
                }
                Ok(None) => {}
                Err(e) => panic!("register write during traffic: {e}"),
            }
            let accepted = offered.is_some() && self.sim.get_u64(self.s_tready) != 0;
            let ov = self.sim.get_u64(self.m_tvalid) != 0;
            if ov && ready {
                let keep = self.sim.get_u64(self.m_tkeep);
                let data = get_le(&mut self.sim, self.m_tdata, bb);
                if cur.is_empty() {
                    first = self.sim.cycles();
                }
                for (i, b) in data.iter().enumerate() {
                    if keep >> i & 1 == 1 {
                        cur.push(*b);
                    }
                }
                if self.sim.get_u64(self.m_tlast) != 0 {
                    out.push(OutFrame {
                        in_first_cycle: in_starts.pop_front().unwrap_or(0),
                        data: std::mem::take(&mut cur),
                        tuser: self.sim.get_u64(self.m_tuser) as u8,
                        first_cycle: first,
                        last_cycle: self.sim.cycles(),
                    });
                }
                quiet = 0;
            }
            if self.sim.get_u64(self.kdf_busy) != 0 {
                self.kdf_cycles += 1;
            }
            if accepted {
                quiet = 0;
                if !in_mid {
                    in_starts.push_back(self.sim.cycles());
                    all_starts.push(self.sim.cycles());
                }
                in_mid = !offered.as_ref().is_some_and(|b| b.last);
            }
            self.sim.tick();
            if accepted {
                offered = None;
            }
            if self.sim.trace_done() {
                end = self.sim.cycles();
                break;
            }
            quiet += 1;
            if quiet >= 20000 {
                stalled = true;
                end = self.sim.cycles();
                break;
            }
        }
        RunResult {
            out,
            cycles: end - start,
            in_starts: all_starts,
            stalled,
            writes,
        }
    }

    /// Clock edges so far.
    pub fn cycles(&self) -> u64 {
        self.sim.cycles()
    }

    /// Record cycles `from..=to` of the coming run as an FST waveform at `path` (see
    /// [`Sim::trace_window`]); [`run_expect`](Self::run_expect) then stops after cycle `to`.
    ///
    /// # Errors
    /// The variant is not trace-capable.
    pub fn trace_window(
        &mut self,
        path: &std::path::Path,
        from: u64,
        to: u64,
    ) -> Result<(), String> {
        self.sim.trace_window(path, from, to)
    }

    /// `n` idle cycles (no input, output ready), for example to let frames still in the
    /// pipeline reach their verdicts and the counters before the counters are read.
    pub fn idle(&mut self, n: u64) {
        self.sim.set_u64(self.s_tvalid, 0);
        self.sim.set_u64(self.m_tready, 1);
        for _ in 0..n {
            self.sim.eval();
            self.sim.tick();
        }
    }

    /// Idle cycles (no input, output ready) until the waveform window is written, at most `max`:
    /// a window that reaches past the end of the run is recorded in full.
    pub fn idle_until_traced(&mut self, max: u64) {
        self.sim.set_u64(self.s_tvalid, 0);
        self.sim.set_u64(self.m_tready, 1);
        for _ in 0..max {
            if self.sim.trace_done() {
                break;
            }
            self.sim.eval();
            self.sim.tick();
        }
    }

    /// First and last cycle recorded by the waveform window, closing its file; `None` if
    /// nothing was recorded (the window was never reached, or the file could not be created).
    pub fn trace_finish(&mut self) -> Option<(u64, u64)> {
        self.sim.trace_finish();
        self.sim.traced()
    }
}

/// The top as a register bus (its AXI4-Lite port), so a driver such as the host library's
/// `rocesec_host::engine::Engine` can own the simulated engine and program it.
impl RegBus for RocesecProtect {
    type Error = AxilError;
    fn write32(&mut self, addr: u16, data: u32) -> Result<(), AxilError> {
        self.regs().write32(addr, data)
    }
    fn read32(&mut self, addr: u16) -> Result<u32, AxilError> {
        self.regs().read32(addr)
    }
}
