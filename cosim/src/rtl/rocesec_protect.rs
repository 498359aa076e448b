//! Driver for `rtl/top/rocesec_protect.sv` (the protect / TX top): an AXI4-Stream source with
//! idle insertion, a sink with backpressure, and the register port (tables from a key file).

use std::collections::{HashSet, VecDeque};

use rocesec_model::keys::{gid_of, pd_key, KeyFile, QpPolicy};
use rocesec_model::sechdr::Mode;

use super::roce_parse::{beats, get_le, set_le, Beat};
use super::{Port, Sim, SplitMix64, Top};

/// Register map (mirrors `rtl/top/rocesec_pkg.sv`).
pub mod reg {
    /// Default policy (policy-entry layout).
    pub const DEFAULT: u16 = 0x0000;
    /// Policy entry i at `POLICY + 0x20 * i`.
    pub const POLICY: u16 = 0x0100;
    /// PD key slot j at `PD + 0x20 * j`.
    pub const PD: u16 = 0x0400;
    /// Counters (read), word c at `COUNT + 4 * c`.
    pub const COUNT: u16 = 0x0800;
    /// Policy entries.
    pub const NUM_POLICIES: usize = 8;
    /// PD key slots.
    pub const NUM_PD: usize = 4;
}

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

fn mode_code(m: Mode) -> u32 {
    m.code().map_or(0, u32::from)
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
    reg_we: Port,
    reg_addr: Port,
    reg_wdata: Port,
    reg_raddr: Port,
    reg_rdata: Port,
    kdf_busy: Port,
    /// Cycles with the KDF busy.
    pub kdf_cycles: u64,
}

/// Stimulus options.
#[derive(Clone, Copy, Debug)]
pub struct Traffic {
    /// Probability (in 1/16) of an idle input cycle.
    pub idle: u64,
    /// Probability (in 1/16) of tready low at the output.
    pub stall: u64,
}

impl RocesecProtect {
    /// Build and reset.
    pub fn new(top: Top) -> Self {
        let sim = Sim::new(top);
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
            reg_we: sim.pin("reg_we_i"),
            reg_addr: sim.pin("reg_addr_i"),
            reg_wdata: sim.pin("reg_wdata_i"),
            reg_raddr: sim.pin("reg_raddr_i"),
            reg_rdata: sim.pin("reg_rdata_o"),
            kdf_busy: sim.pin("kdf_busy_o"),
            kdf_cycles: 0,
            sim,
        };
        s.sim.set_u64(s.s_tvalid, 0);
        s.sim.set_u64(s.m_tready, 1);
        s.sim.set_u64(s.reg_we, 0);
        s.sim.reset();
        s
    }

    /// Write one register.
    pub fn write(&mut self, addr: u16, data: u32) {
        self.sim.set_u64(self.reg_we, 1);
        self.sim.set_u64(self.reg_addr, u64::from(addr));
        self.sim.set_u64(self.reg_wdata, u64::from(data));
        self.sim.tick();
        self.sim.set_u64(self.reg_we, 0);
    }

    /// Read one register (combinational read port).
    pub fn read(&mut self, addr: u16) -> u32 {
        self.sim.set_u64(self.reg_raddr, u64::from(addr));
        self.sim.eval();
        self.sim.get_u64(self.reg_rdata) as u32
    }

    fn write_policy(&mut self, base: u16, valid: bool, gid: &[u8; 16], qpn: u32, p: &QpPolicy) {
        self.write(
            base,
            (u32::from(valid) << 31) | (mode_code(p.mode) << 24) | (u32::from(p.epoch) << 16),
        );
        self.write(base + 4, qpn & 0xFF_FFFF);
        self.write(base + 8, p.pd);
        self.write(base + 12, p.gen & 0xFF_FFFF);
        for w in 0..4 {
            let b = &gid[4 * w..4 * w + 4];
            self.write(
                base + 16 + 4 * w as u16,
                u32::from_be_bytes([b[0], b[1], b[2], b[3]]),
            );
        }
    }

    /// Load the tables from a key file: default policy, policy entries, and the PD keys of every
    /// (pd, epoch) the policies use (HKDF-SHA256 runs here, as the control plane would).
    ///
    /// # Panics
    /// If the key file has more entries than the tables, or is not AES-128.
    pub fn load_keys(&mut self, k: &KeyFile) {
        assert_eq!(k.aes, 128, "the RTL key hierarchy is AES-128");
        assert!(k.qps.len() <= reg::NUM_POLICIES, "too many QP policies");
        assert!(k.mrs.is_none(), "no rkey allow-list in the RTL yet");
        self.write_policy(reg::DEFAULT, true, &[0; 16], 0, &k.default);
        for (i, q) in k.qps.iter().enumerate() {
            self.write_policy(
                reg::POLICY + 0x20 * i as u16,
                true,
                &gid_of(q.gid),
                q.qpn,
                &q.policy,
            );
        }
        let secret = k.secret().expect("secret");
        let mut pds: Vec<(u32, u8)> = vec![(k.default.pd, k.default.epoch)];
        pds.extend(k.qps.iter().map(|q| (q.policy.pd, q.policy.epoch)));
        let pds: Vec<(u32, u8)> = pds
            .into_iter()
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        assert!(pds.len() <= reg::NUM_PD, "too many PD keys");
        for (j, (pd, epoch)) in pds.iter().enumerate() {
            let key = pd_key(&secret, *pd, *epoch, 16).expect("pd key");
            let base = reg::PD + 0x20 * j as u16;
            self.write(base, (1 << 31) | u32::from(*epoch));
            self.write(base + 8, *pd);
            for w in 0..4 {
                let b = &key.bytes()[4 * w..4 * w + 4];
                self.write(
                    base + 16 + 4 * w as u16,
                    u32::from_be_bytes([b[0], b[1], b[2], b[3]]),
                );
            }
        }
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
        let bb = self.beat_bytes;
        let mut queue: VecDeque<Beat> = frames.iter().flat_map(|f| beats(f, bb)).collect();
        let mut out = Vec::new();
        let mut cur: Vec<u8> = Vec::new();
        let mut first = 0u64;
        let start = self.sim.cycles();
        let mut quiet = 0u64;
        let mut offered: Option<Beat> = None;
        let mut in_starts: VecDeque<u64> = VecDeque::new();
        let mut in_mid = false;
        while out.len() < frames.len() {
            // input: keep offering the same beat until accepted
            if offered.is_none() && !queue.is_empty() && !rng.chance(t.idle, 16) {
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
            let ready = !rng.chance(t.stall, 16);
            self.sim.set_u64(self.m_tready, u64::from(ready));
            self.sim.eval();
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
                if !in_mid {
                    in_starts.push_back(self.sim.cycles());
                }
                in_mid = !offered.as_ref().is_some_and(|b| b.last);
            }
            self.sim.tick();
            if accepted {
                offered = None;
            }
            quiet += 1;
            assert!(
                quiet < 20000,
                "no output for 20000 cycles ({} frames out)",
                out.len()
            );
        }
        (out, self.sim.cycles() - start)
    }

    /// Clock edges so far.
    pub fn cycles(&self) -> u64 {
        self.sim.cycles()
    }
}
