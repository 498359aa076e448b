//! Driver for `rtl/roce/roce_icrc.sv` (CRC-32 over 16·Lanes-byte beats with tkeep).

use super::{Port, Sim, Top};

/// A verilated `roce_icrc` instance.
pub struct RoceIcrc {
    sim: Sim,
    lanes: usize,
    tvalid: Port,
    tdata: Port,
    tkeep: Port,
    tlast: Port,
    crc_valid: Port,
    crc: Port,
}

impl RoceIcrc {
    /// Build a `roce_icrc` variant and reset it.
    ///
    /// # Panics
    /// If `top` is not a `roce_icrc` variant.
    pub fn new(top: Top) -> Self {
        let lanes = match top {
            Top::RoceIcrc1 => 1,
            Top::RoceIcrc4 => 4,
            _ => panic!("{} is not a roce_icrc variant", top.name()),
        };
        let sim = Sim::new(top);
        let mut s = Self {
            lanes,
            tvalid: sim.pin("s_axis_tvalid_i"),
            tdata: sim.pin("s_axis_tdata_i"),
            tkeep: sim.pin("s_axis_tkeep_i"),
            tlast: sim.pin("s_axis_tlast_i"),
            crc_valid: sim.pin("crc_valid_o"),
            crc: sim.pin("crc_o"),
            sim,
        };
        s.sim.set_u64(s.tvalid, 0);
        s.sim.reset();
        s
    }

    /// Bytes per beat (16·Lanes).
    pub fn beat_bytes(&self) -> usize {
        16 * self.lanes
    }

    /// Cycles from the edge accepting the last beat to the edge presenting the CRC (that edge
    /// counted as 1).
    pub const LATENCY: usize = 2;

    /// One clock with an optional beat `(bytes, last)`: `bytes` (1..=beat_bytes) are the valid
    /// leading bytes, tkeep is derived from their count. Returns the CRC registered at this edge.
    ///
    /// # Panics
    /// If the beat is empty or longer than a beat.
    pub fn step(&mut self, beat: Option<(&[u8], bool)>) -> Option<u32> {
        match beat {
            Some((bytes, last)) => {
                let kb = self.beat_bytes();
                assert!(!bytes.is_empty() && bytes.len() <= kb, "beat length");
                let mut data = vec![0u8; kb];
                data[..bytes.len()].copy_from_slice(bytes);
                // tkeep bit j qualifies tdata[8j+7:8j]; byte 0 is bit kb-1.
                let mut keep = vec![0u8; kb / 8];
                for i in 0..bytes.len() {
                    let j = kb - 1 - i;
                    keep[kb / 8 - 1 - j / 8] |= 1 << (j % 8);
                }
                self.sim.set_u64(self.tvalid, 1);
                self.sim.set_bytes(self.tdata, &data);
                self.sim.set_bytes(self.tkeep, &keep);
                self.sim.set_u64(self.tlast, u64::from(last));
            }
            None => self.sim.set_u64(self.tvalid, 0),
        }
        self.sim.tick();
        (self.sim.get_u64(self.crc_valid) != 0).then(|| self.sim.get_u64(self.crc) as u32)
    }

    /// Clock edges simulated so far.
    pub fn cycles(&self) -> u64 {
        self.sim.cycles()
    }
}
