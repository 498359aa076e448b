//! Driver for `rtl/top/rocesec_key_tables.sv` (stage `key`: the policy table and the PD key
//! slots shared by both key stages), built with `NumPolicies` = 8 and `NumPdSlots` = 4 in two
//! variants: TX (`EpochFromPolicy` = 1, as in `rocesec_protect_key`) and RX (`EpochFromPolicy`
//! = 0, as in `rocesec_verify_key`).
//!
//! The API is cycle level and protocol free: [`KeyTables::drive`] sets every input of one cycle
//! and returns the outputs of that cycle (before its rising edge), [`KeyTables::tick`] is the
//! edge. The caller's protocol (no load while a header is held in the cycle after a table
//! write; results read only when `tbl_stale_o` was low) is the test driver's business, as it is
//! the key stages' in the RTL.

use super::{Port, Sim, Top};
use rocesec_model::regmap::RegWrite;

/// Policy entries of the test builds (`NumPolicies`), besides the default policy.
pub const NUM_POLICIES: usize = 8;
/// PD key slots of the test builds (`NumPdSlots`); bit `j` of a slot mask is slot `j`.
pub const NUM_PD_SLOTS: usize = 4;

/// Mask of the 24-bit QPN and generation fields.
const MASK24: u32 = 0xFF_FFFF;

/// The inputs of one cycle. `Default` is an idle cycle: no write, no load, no header held.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TablesIn {
    /// `reg_we_i` / `reg_addr_i` / `reg_wdata_i`: a register write in this cycle (byte address,
    /// 32-bit word; register map in the module header and docs/register-map.md).
    pub write: Option<RegWrite>,
    /// `pol_load_i`: a header enters stage D in this cycle (its identity in `ld_gid`/`ld_qpn`).
    pub load: bool,
    /// `pol_hold_i`: a header is held in stage D in this cycle (its identity in `gid`/`qpn`).
    pub hold: bool,
    /// `pol_ld_gid_i`: destination GID of the entering header (byte 0 = bits 127:120).
    pub ld_gid: [u8; 16],
    /// `pol_ld_qpn_i`: destination QPN of the entering header (bits above 23 are dropped).
    pub ld_qpn: u32,
    /// `pol_gid_i`: destination GID of the header held (byte 0 = bits 127:120).
    pub gid: [u8; 16],
    /// `pol_qpn_i`: destination QPN of the header held (bits above 23 are dropped).
    pub qpn: u32,
    /// `pd_epoch_i`: the packet's key epoch (RX variant only; the TX variant ignores it).
    pub pd_epoch: u8,
    /// `pd_sel_i`: the PD slots selected in stage D2, bit `j` = slot `j` (bits at and above
    /// [`NUM_PD_SLOTS`] are dropped).
    pub pd_sel: u8,
}

/// The outputs of one cycle, read after the inputs of [`TablesIn`] were applied (before the
/// rising edge).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TablesOut {
    /// `pd_write_o`: this cycle's write is into the PD slot region.
    pub pd_write: bool,
    /// `tbl_stale_o`: a table write in this cycle or the one before.
    pub stale: bool,
    /// `pol_mode_o`: 0 bypass, 1 header-auth, 2 packet-auth, 3 AEAD.
    pub mode: u8,
    /// `pol_epoch_o`.
    pub epoch: u8,
    /// `pol_next_o`: epoch + 1 is installed.
    pub next: bool,
    /// `pol_pd_o`: protection domain.
    pub pd: u32,
    /// `pol_gen_o`: connection generation (24 bits).
    pub generation: u32,
    /// `pd_match_o`: PD slots matching the selected policy, bit `j` = slot `j`.
    pub pd_match: u8,
    /// `pd_hit_o`: some slot is selected by `pd_sel_i`.
    pub pd_hit: bool,
    /// `pd_key_o`: K_pd of the lowest selected slot (byte 0 = bits 127:120).
    pub pd_key: [u8; 16],
}

/// A verilated `rocesec_key_tables`.
pub struct KeyTables {
    sim: Sim,
    epoch_from_policy: bool,
    reg_we: Port,
    reg_addr: Port,
    reg_wdata: Port,
    pd_write: Port,
    pol_load: Port,
    pol_hold: Port,
    pol_ld_gid: Port,
    pol_ld_qpn: Port,
    pol_gid: Port,
    pol_qpn: Port,
    tbl_stale: Port,
    pol_mode: Port,
    pol_epoch: Port,
    pol_next: Port,
    pol_pd: Port,
    pol_gen: Port,
    pd_epoch: Port,
    pd_match: Port,
    pd_sel: Port,
    pd_hit: Port,
    pd_key: Port,
}

impl KeyTables {
    /// Build a model and reset it (every entry and slot invalid and zero). `epoch_from_policy`
    /// picks the variant: true = TX (slot epoch compared with the policy's), false = RX
    /// (compared with `pd_epoch_i`). Inputs are idle after the reset.
    pub fn new(epoch_from_policy: bool) -> Self {
        let top = if epoch_from_policy {
            Top::RocesecKeyTablesTx
        } else {
            Top::RocesecKeyTablesRx
        };
        let sim = Sim::new(top);
        let mut s = Self {
            epoch_from_policy,
            reg_we: sim.pin("reg_we_i"),
            reg_addr: sim.pin("reg_addr_i"),
            reg_wdata: sim.pin("reg_wdata_i"),
            pd_write: sim.pin("pd_write_o"),
            pol_load: sim.pin("pol_load_i"),
            pol_hold: sim.pin("pol_hold_i"),
            pol_ld_gid: sim.pin("pol_ld_gid_i"),
            pol_ld_qpn: sim.pin("pol_ld_qpn_i"),
            pol_gid: sim.pin("pol_gid_i"),
            pol_qpn: sim.pin("pol_qpn_i"),
            tbl_stale: sim.pin("tbl_stale_o"),
            pol_mode: sim.pin("pol_mode_o"),
            pol_epoch: sim.pin("pol_epoch_o"),
            pol_next: sim.pin("pol_next_o"),
            pol_pd: sim.pin("pol_pd_o"),
            pol_gen: sim.pin("pol_gen_o"),
            pd_epoch: sim.pin("pd_epoch_i"),
            pd_match: sim.pin("pd_match_o"),
            pd_sel: sim.pin("pd_sel_i"),
            pd_hit: sim.pin("pd_hit_o"),
            pd_key: sim.pin("pd_key_o"),
            sim,
        };
        s.drive(&TablesIn::default());
        s.sim.reset();
        s
    }

    /// The variant: true = TX (`EpochFromPolicy` = 1), false = RX.
    pub fn epoch_from_policy(&self) -> bool {
        self.epoch_from_policy
    }

    /// Apply the inputs of this cycle, evaluate, and return the outputs of this cycle (no clock
    /// edge; call [`tick`](Self::tick) after). Out-of-range bits of `ld_qpn`, `qpn` and `pd_sel`
    /// are dropped.
    pub fn drive(&mut self, i: &TablesIn) -> TablesOut {
        let (we, addr, data) = i.write.map_or((0, 0, 0), |w| (1, w.addr, w.data));
        self.sim.set_u64(self.reg_we, we);
        self.sim.set_u64(self.reg_addr, u64::from(addr));
        self.sim.set_u64(self.reg_wdata, u64::from(data));
        self.sim.set_u64(self.pol_load, u64::from(i.load));
        self.sim.set_u64(self.pol_hold, u64::from(i.hold));
        self.sim.set_bytes(self.pol_ld_gid, &i.ld_gid);
        self.sim
            .set_u64(self.pol_ld_qpn, u64::from(i.ld_qpn & MASK24));
        self.sim.set_bytes(self.pol_gid, &i.gid);
        self.sim.set_u64(self.pol_qpn, u64::from(i.qpn & MASK24));
        self.sim.set_u64(self.pd_epoch, u64::from(i.pd_epoch));
        let sel_mask = (1u8 << NUM_PD_SLOTS) - 1;
        self.sim
            .set_u64(self.pd_sel, u64::from(i.pd_sel & sel_mask));
        self.sim.eval();
        self.outputs()
    }

    /// The outputs as they are now (after the last [`drive`](Self::drive) or
    /// [`tick`](Self::tick)).
    pub fn outputs(&mut self) -> TablesOut {
        let mut pd_key = [0u8; 16];
        self.sim.get_bytes(self.pd_key, &mut pd_key);
        TablesOut {
            pd_write: self.sim.get_u64(self.pd_write) != 0,
            stale: self.sim.get_u64(self.tbl_stale) != 0,
            mode: self.sim.get_u64(self.pol_mode) as u8,
            epoch: self.sim.get_u64(self.pol_epoch) as u8,
            next: self.sim.get_u64(self.pol_next) != 0,
            pd: self.sim.get_u64(self.pol_pd) as u32,
            generation: self.sim.get_u64(self.pol_gen) as u32,
            pd_match: self.sim.get_u64(self.pd_match) as u8,
            pd_hit: self.sim.get_u64(self.pd_hit) != 0,
            pd_key,
        }
    }

    /// One rising clock edge: the inputs of the last [`drive`](Self::drive) are sampled.
    pub fn tick(&mut self) {
        self.sim.tick();
    }

    /// Rising edges since construction (the reset's two included).
    pub fn cycles(&self) -> u64 {
        self.sim.cycles()
    }
}
