//! AXI4-Lite master driver (ARM IHI 0022, AXI4-Lite) for the `s_axil_*` register interface of
//! the rocesec tops (`rtl/common/common_axil_regs.sv`), with seeded random delays on every
//! channel: AW and W offered independently and in either order, BREADY and RREADY withheld at
//! random. Implements [`RegBus`] so the register programs of `rocesec_model::regmap` run on it.

use std::collections::VecDeque;
use std::fmt;

use rocesec_model::regmap::{RegBus, RegWrite};

use super::{Port, Sim, SplitMix64};

/// An AXI4-Lite response other than OKAY, or a hung handshake.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AxilError {
    /// BRESP/RRESP = SLVERR (2) or DECERR (3) at this address.
    Resp {
        /// Byte address.
        addr: u16,
        /// The response code.
        resp: u8,
    },
    /// No handshake within the cycle limit (a protocol bug in the DUT).
    Timeout {
        /// Byte address.
        addr: u16,
    },
}

impl fmt::Display for AxilError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AxilError::Resp { addr, resp } => {
                write!(f, "AXI4-Lite response {resp:#04b} at {addr:#06x}")
            }
            AxilError::Timeout { addr } => write!(f, "AXI4-Lite handshake hung at {addr:#06x}"),
        }
    }
}

impl std::error::Error for AxilError {}

/// The `s_axil_*` pins of a top.
#[derive(Clone, Copy)]
struct Pins {
    awaddr: Port,
    awprot: Port,
    awvalid: Port,
    awready: Port,
    wdata: Port,
    wstrb: Port,
    wvalid: Port,
    wready: Port,
    bresp: Port,
    bvalid: Port,
    bready: Port,
    araddr: Port,
    arprot: Port,
    arvalid: Port,
    arready: Port,
    rdata: Port,
    rresp: Port,
    rvalid: Port,
    rready: Port,
}

/// Cycles a transfer may take before [`AxilError::Timeout`].
const LIMIT: u64 = 1000;

/// An AXI4-Lite master on a verilated top's `s_axil_*` port.
pub struct AxilMaster {
    p: Pins,
    rng: SplitMix64,
    /// Probability (in 1/16) that a valid or ready is withheld in a cycle.
    pub delay: u64,
    /// Cycles spent in register transfers.
    pub cycles: u64,
    /// Writes (with their byte strobes) queued for [`live_pre`](Self::live_pre) /
    /// [`live_post`](Self::live_post); [`write_strb`](Self::write_strb) runs through it too.
    live: VecDeque<(RegWrite, u8)>,
    /// AW / W of the head of `live` accepted, and cycles it has taken so far.
    live_aw: bool,
    live_w: bool,
    live_age: u64,
    /// AWVALID, WVALID, BREADY as driven by `live_pre` in this cycle.
    live_drv: (bool, bool, bool),
}

impl AxilMaster {
    /// Attach to `sim`'s `s_axil_*` pins and drive them idle; `seed` picks the delays.
    ///
    /// # Panics
    /// If the top has no `s_axil_*` port (a harness bug).
    pub fn new(sim: &mut Sim, seed: u64) -> Self {
        let p = Pins {
            awaddr: sim.pin("s_axil_awaddr_i"),
            awprot: sim.pin("s_axil_awprot_i"),
            awvalid: sim.pin("s_axil_awvalid_i"),
            awready: sim.pin("s_axil_awready_o"),
            wdata: sim.pin("s_axil_wdata_i"),
            wstrb: sim.pin("s_axil_wstrb_i"),
            wvalid: sim.pin("s_axil_wvalid_i"),
            wready: sim.pin("s_axil_wready_o"),
            bresp: sim.pin("s_axil_bresp_o"),
            bvalid: sim.pin("s_axil_bvalid_o"),
            bready: sim.pin("s_axil_bready_i"),
            araddr: sim.pin("s_axil_araddr_i"),
            arprot: sim.pin("s_axil_arprot_i"),
            arvalid: sim.pin("s_axil_arvalid_i"),
            arready: sim.pin("s_axil_arready_o"),
            rdata: sim.pin("s_axil_rdata_o"),
            rresp: sim.pin("s_axil_rresp_o"),
            rvalid: sim.pin("s_axil_rvalid_o"),
            rready: sim.pin("s_axil_rready_i"),
        };
        for q in [
            p.awvalid, p.wvalid, p.bready, p.arvalid, p.rready, p.awprot, p.arprot,
        ] {
            sim.set_u64(q, 0);
        }
        Self {
            p,
            rng: SplitMix64::new(seed),
            delay: 0,
            cycles: 0,
            live: VecDeque::new(),
            live_aw: false,
            live_w: false,
            live_age: 0,
            live_drv: (false, false, false),
        }
    }

    /// Queue full-word writes to be issued while the caller clocks the simulation for other
    /// reasons (register writes during traffic, as a driver rotating keys on a live engine
    /// does). The caller calls [`live_pre`](Self::live_pre) before and
    /// [`live_post`](Self::live_post) after each `eval` of a cycle; the writes go out in order,
    /// one at a time, with this master's random delays.
    pub fn queue_writes(&mut self, w: &[RegWrite]) {
        self.live.extend(w.iter().map(|&x| (x, 0xF)));
    }

    /// Queued writes not yet answered (the one in flight included).
    pub fn live_pending(&self) -> usize {
        self.live.len()
    }

    /// Drive the AW/W/B pins for this cycle from the head of the queue (idle when empty).
    pub fn live_pre(&mut self, sim: &mut Sim) {
        let p = self.p;
        let Some((w, strb)) = self.live.front().copied() else {
            for q in [p.awvalid, p.wvalid, p.bready] {
                sim.set_u64(q, 0);
            }
            self.live_drv = (false, false, false);
            return;
        };
        sim.set_u64(p.awaddr, u64::from(w.addr));
        sim.set_u64(p.wdata, u64::from(w.data));
        sim.set_u64(p.wstrb, u64::from(strb));
        let awv = !self.live_aw && !self.rng.chance(self.delay, 16);
        let wv = !self.live_w && !self.rng.chance(self.delay, 16);
        let br = self.live_aw && self.live_w && !self.rng.chance(self.delay, 16);
        sim.set_u64(p.awvalid, u64::from(awv));
        sim.set_u64(p.wvalid, u64::from(wv));
        sim.set_u64(p.bready, u64::from(br));
        self.live_drv = (awv, wv, br);
    }

    /// Sample the handshakes of this cycle (after `eval`, before the clock edge): returns the
    /// write answered in this cycle, if any.
    ///
    /// # Errors
    /// [`AxilError::Resp`] for a non-OKAY BRESP, [`AxilError::Timeout`] when the head write is
    /// not answered within the cycle limit.
    pub fn live_post(&mut self, sim: &mut Sim) -> Result<Option<RegWrite>, AxilError> {
        let p = self.p;
        let Some((w, _)) = self.live.front().copied() else {
            return Ok(None);
        };
        self.cycles += 1;
        self.live_age += 1;
        let (awv, wv, br) = self.live_drv;
        let b = br && sim.get_u64(p.bvalid) != 0;
        self.live_aw |= awv && sim.get_u64(p.awready) != 0;
        self.live_w |= wv && sim.get_u64(p.wready) != 0;
        if b {
            let resp = sim.get_u64(p.bresp) as u8;
            self.live_drop_head();
            return if resp == 0 {
                Ok(Some(w))
            } else {
                Err(AxilError::Resp { addr: w.addr, resp })
            };
        }
        if self.live_age >= LIMIT {
            return Err(AxilError::Timeout { addr: w.addr });
        }
        Ok(None)
    }

    /// Forget the head write of the queue and its handshake state.
    fn live_drop_head(&mut self) {
        self.live.pop_front();
        self.live_aw = false;
        self.live_w = false;
        self.live_age = 0;
    }

    /// One write with byte strobes `strb` (4 bits), clocking the simulation until it is
    /// answered (the live-write queue's handshake, with nothing else queued).
    ///
    /// # Errors
    /// [`AxilError::Resp`] for a non-OKAY BRESP, [`AxilError::Timeout`] for a hung channel.
    ///
    /// # Panics
    /// If live writes ([`queue_writes`](Self::queue_writes)) are still pending.
    pub fn write_strb(
        &mut self,
        sim: &mut Sim,
        addr: u16,
        data: u32,
        strb: u8,
    ) -> Result<(), AxilError> {
        assert!(
            self.live.is_empty(),
            "a blocking write while live writes are queued"
        );
        self.live.push_back((RegWrite { addr, data }, strb & 0xF));
        loop {
            self.live_pre(sim);
            sim.eval();
            let r = self.live_post(sim);
            sim.tick();
            match r {
                Ok(None) => continue,
                Ok(Some(_)) => {}
                Err(_) => self.live_drop_head(), // a timed-out write leaves the queue too
            }
            self.live_pre(sim); // queue empty: AWVALID, WVALID, BREADY low
            return r.map(|_| ());
        }
    }

    /// One read.
    ///
    /// # Errors
    /// [`AxilError::Resp`] for a non-OKAY RRESP, [`AxilError::Timeout`] for a hung channel.
    pub fn read(&mut self, sim: &mut Sim, addr: u16) -> Result<u32, AxilError> {
        let p = self.p;
        sim.set_u64(p.araddr, u64::from(addr));
        let mut ar_done = false;
        for _ in 0..LIMIT {
            let arv = !ar_done && !self.rng.chance(self.delay, 16);
            let rr = ar_done && !self.rng.chance(self.delay, 16);
            sim.set_u64(p.arvalid, u64::from(arv));
            sim.set_u64(p.rready, u64::from(rr));
            sim.eval();
            ar_done |= arv && sim.get_u64(p.arready) != 0;
            let r = rr && sim.get_u64(p.rvalid) != 0;
            let data = sim.get_u64(p.rdata) as u32;
            let resp = sim.get_u64(p.rresp) as u8;
            sim.tick();
            self.cycles += 1;
            if r {
                sim.set_u64(p.arvalid, 0);
                sim.set_u64(p.rready, 0);
                return if resp == 0 {
                    Ok(data)
                } else {
                    Err(AxilError::Resp { addr, resp })
                };
            }
        }
        Err(AxilError::Timeout { addr })
    }
}

/// [`AxilMaster`] bound to its simulator, as a [`RegBus`].
pub struct AxilBus<'a> {
    /// The simulator.
    pub sim: &'a mut Sim,
    /// The master.
    pub m: &'a mut AxilMaster,
}

impl RegBus for AxilBus<'_> {
    type Error = AxilError;
    fn write32(&mut self, addr: u16, data: u32) -> Result<(), AxilError> {
        self.m.write_strb(self.sim, addr, data, 0xF)
    }
    fn read32(&mut self, addr: u16) -> Result<u32, AxilError> {
        self.m.read(self.sim, addr)
    }
}
