//! Driver for `rtl/top/rocesec_verify_key.sv` (stage `key` of the verify top: RX decisions,
//! verdict queue, RX QP state, with its tables and derived-key cache), built with
//! `NumPolicies` = 8, `NumPdSlots` = 4, `NumQps` = 16, `NumCache` = 8 and `VqDepth` = 4.
//!
//! The API is cycle level and protocol free, like [`super::key_tables`]: [`VerifyKey::drive`]
//! sets every input of one cycle and returns the outputs of that cycle (before its rising edge),
//! [`VerifyKey::tick`] is the edge. Handshakes (`hdr_valid_i`/`hdr_ready_o`,
//! `job_valid_o`/`job_ready_i`, `fin_valid_i`/`fin_ready_o`, `auth_valid_i`/`auth_ready_o`) are
//! the test driver's business: a transfer happens in a cycle whose outputs show valid and ready.
//! Header descriptors are [`Desc`] values (`roce_parse_pkg::roce_desc_t`, packed by
//! [`Desc::encode`]).

use super::roce_parse::{bits, desc_width, get_le, set_le, Desc};
use super::{Port, Sim, Top};
use rocesec_model::regmap::RegWrite;

/// Verdict queue depth of the test build (`VqDepth`): frames decided whose verdict is pending.
pub const VQ_DEPTH: usize = 4;
/// RX QP state entries of the test build (`NumQps`).
pub const NUM_QPS: usize = 16;

/// `rocesec_pkg::job_t` fields, most significant first (name, width).
const JOB_FIELDS: &[(&str, usize)] = &[
    ("protect", 1),
    ("mode", 2),
    ("key", 128),
    ("rk", 7),
    ("h", 128),
    ("iv", 96),
    ("sechdr", 64),
    ("ip_len", 16),
    ("udp_len", 16),
    ("ip_csum", 16),
    ("hoff", 8),
    ("poff", 8),
    ("eoff", 16),
    ("ipv6", 1),
    ("ip_off", 8),
    ("udp_off", 8),
    ("bth_off", 8),
];

/// `rocesec_pkg::JobBits`.
const JOB_BITS: usize = 531;

/// Bits `[lsb + width - 1 : lsb]` of `job_t` field `name`.
fn job_field(le: &[u8], name: &str) -> u128 {
    let mut top = JOB_BITS;
    for &(n, w) in JOB_FIELDS {
        top -= w;
        if n == name {
            return bits(le, top, w);
        }
    }
    unreachable!("job_t has no field {name}")
}

/// The fields of `job_o` a key-stage test checks (`rocesec_pkg::job_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Job {
    /// `protect`: the frame is processed (authenticated and stripped by the emit stage).
    pub protect: bool,
    /// `mode`: SecHdr mode.
    pub mode: u8,
    /// `key`: the derived AES-128 packet key (byte 0 = bits 127:120; zero when not processed).
    pub key: [u8; 16],
    /// `iv`: dest QPN (24) ‖ salt (24) ‖ PN (48).
    pub iv: u128,
    /// `hoff`: SecHdr offset in the protected frame (BTH offset + 12).
    pub hoff: u8,
}

/// The final descriptor of a frame as the verify top hands it to the key stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fin {
    /// `fin_kind_i`: `roce_parse_pkg` kind (0 not RoCE, 1 RoCE, 2 malformed).
    pub kind: u8,
    /// `fin_icrc_ok_i`.
    pub icrc_ok: bool,
}

/// The inputs of one cycle. `Default` is an idle cycle: nothing offered, jobs not accepted.
#[derive(Clone, Debug, Default)]
pub struct VkIn {
    /// `hdr_valid_i` / `hdr_desc_i`: a header descriptor offered in this cycle.
    pub hdr: Option<Desc>,
    /// `fin_valid_i` / `fin_kind_i` / `fin_icrc_ok_i`: the oldest frame's final descriptor.
    pub fin: Option<Fin>,
    /// `auth_valid_i` / `auth_ok_i`: the oldest job's authentication result.
    pub auth: Option<bool>,
    /// `job_ready_i`.
    pub job_ready: bool,
    /// `reg_we_i` / `reg_addr_i` / `reg_wdata_i`: a register write in this cycle.
    pub write: Option<RegWrite>,
    /// `reg_raddr_i`: register read address (counters at `rocesec_pkg::RegCountBase` + 4c).
    pub raddr: u16,
    /// `drop_i`: a store-and-forward drop (counter 5).
    pub drop: bool,
    /// `drop_oversize_i`: an oversize drop (counter 7).
    pub drop_oversize: bool,
}

/// A verdict (`done_valid_o` high).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// `done_reason_o`: `rocesec_pkg` reason code (model `Reason::code()`, 0 = ok).
    pub reason: u8,
    /// `done_fwd_o`: 0 processed, 1 bypass, 2 CNP, 3 not RoCE.
    pub fwd: u8,
}

/// The outputs of one cycle, read after the inputs of [`VkIn`] were applied (before the rising
/// edge).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VkOut {
    /// `hdr_ready_o`.
    pub hdr_ready: bool,
    /// `job_valid_o` with `job_o`.
    pub job: Option<Job>,
    /// `fin_ready_o`.
    pub fin_ready: bool,
    /// `auth_ready_o`.
    pub auth_ready: bool,
    /// `done_valid_o` with `done_reason_o` / `done_fwd_o`.
    pub done: Option<Verdict>,
    /// `reg_rdata_o` (at `raddr`).
    pub rdata: u32,
    /// `kdf_busy_o`.
    pub kdf_busy: bool,
}

/// A verilated `rocesec_verify_key`.
pub struct VerifyKey {
    sim: Sim,
    hdr_valid: Port,
    hdr_ready: Port,
    hdr_desc: Port,
    fin_valid: Port,
    fin_ready: Port,
    fin_kind: Port,
    fin_icrc_ok: Port,
    job_valid: Port,
    job_ready: Port,
    job: Port,
    auth_valid: Port,
    auth_ready: Port,
    auth_ok: Port,
    done_valid: Port,
    done_reason: Port,
    done_fwd: Port,
    drop: Port,
    drop_oversize: Port,
    reg_we: Port,
    reg_addr: Port,
    reg_wdata: Port,
    reg_raddr: Port,
    reg_rdata: Port,
    kdf_busy: Port,
}

impl VerifyKey {
    /// Build a model and reset it (tables empty, no QP state, verdict queue empty). Inputs are
    /// idle after the reset.
    ///
    /// # Panics
    /// If the `roce_desc_t` or `job_t` layout no longer matches the port widths.
    pub fn new() -> Self {
        let sim = Sim::new(Top::RocesecVerifyKey);
        let mut s = Self {
            hdr_valid: sim.pin("hdr_valid_i"),
            hdr_ready: sim.pin("hdr_ready_o"),
            hdr_desc: sim.pin("hdr_desc_i"),
            fin_valid: sim.pin("fin_valid_i"),
            fin_ready: sim.pin("fin_ready_o"),
            fin_kind: sim.pin("fin_kind_i"),
            fin_icrc_ok: sim.pin("fin_icrc_ok_i"),
            job_valid: sim.pin("job_valid_o"),
            job_ready: sim.pin("job_ready_i"),
            job: sim.pin("job_o"),
            auth_valid: sim.pin("auth_valid_i"),
            auth_ready: sim.pin("auth_ready_o"),
            auth_ok: sim.pin("auth_ok_i"),
            done_valid: sim.pin("done_valid_o"),
            done_reason: sim.pin("done_reason_o"),
            done_fwd: sim.pin("done_fwd_o"),
            drop: sim.pin("drop_i"),
            drop_oversize: sim.pin("drop_oversize_i"),
            reg_we: sim.pin("reg_we_i"),
            reg_addr: sim.pin("reg_addr_i"),
            reg_wdata: sim.pin("reg_wdata_i"),
            reg_raddr: sim.pin("reg_raddr_i"),
            reg_rdata: sim.pin("reg_rdata_o"),
            kdf_busy: sim.pin("kdf_busy_o"),
            sim,
        };
        assert_eq!(
            s.hdr_desc.words(),
            desc_width().div_ceil(32),
            "roce_desc_t layout drifted"
        );
        let job_bits: usize = JOB_FIELDS.iter().map(|f| f.1).sum();
        assert_eq!(job_bits, JOB_BITS, "JOB_FIELDS");
        assert_eq!(s.job.words(), JOB_BITS.div_ceil(32), "job_t layout drifted");
        s.drive(&VkIn::default());
        s.sim.reset();
        s
    }

    /// Apply the inputs of this cycle, evaluate, and return the outputs of this cycle (no clock
    /// edge; call [`tick`](Self::tick) after).
    pub fn drive(&mut self, i: &VkIn) -> VkOut {
        match &i.hdr {
            Some(d) => {
                self.sim.set_u64(self.hdr_valid, 1);
                set_le(&mut self.sim, self.hdr_desc, &d.encode());
            }
            None => self.sim.set_u64(self.hdr_valid, 0),
        }
        let f = i.fin.unwrap_or(Fin {
            kind: 0,
            icrc_ok: false,
        });
        self.sim.set_u64(self.fin_valid, u64::from(i.fin.is_some()));
        self.sim.set_u64(self.fin_kind, u64::from(f.kind & 3));
        self.sim.set_u64(self.fin_icrc_ok, u64::from(f.icrc_ok));
        self.sim
            .set_u64(self.auth_valid, u64::from(i.auth.is_some()));
        self.sim
            .set_u64(self.auth_ok, u64::from(i.auth.unwrap_or(false)));
        self.sim.set_u64(self.job_ready, u64::from(i.job_ready));
        let (we, addr, data) = i.write.map_or((0, 0, 0), |w| (1, w.addr, w.data));
        self.sim.set_u64(self.reg_we, we);
        self.sim.set_u64(self.reg_addr, u64::from(addr));
        self.sim.set_u64(self.reg_wdata, u64::from(data));
        self.sim.set_u64(self.reg_raddr, u64::from(i.raddr));
        self.sim.set_u64(self.drop, u64::from(i.drop));
        self.sim
            .set_u64(self.drop_oversize, u64::from(i.drop_oversize));
        self.sim.eval();
        self.outputs()
    }

    /// The outputs as they are now (after the last [`drive`](Self::drive) or
    /// [`tick`](Self::tick)).
    pub fn outputs(&mut self) -> VkOut {
        let job = (self.sim.get_u64(self.job_valid) != 0).then(|| {
            let le = get_le(&mut self.sim, self.job, self.job.words() * 4);
            let key = job_field(&le, "key").to_be_bytes();
            Job {
                protect: job_field(&le, "protect") != 0,
                mode: job_field(&le, "mode") as u8,
                key,
                iv: job_field(&le, "iv"),
                hoff: job_field(&le, "hoff") as u8,
            }
        });
        let done = (self.sim.get_u64(self.done_valid) != 0).then(|| Verdict {
            reason: self.sim.get_u64(self.done_reason) as u8,
            fwd: self.sim.get_u64(self.done_fwd) as u8,
        });
        VkOut {
            hdr_ready: self.sim.get_u64(self.hdr_ready) != 0,
            job,
            fin_ready: self.sim.get_u64(self.fin_ready) != 0,
            auth_ready: self.sim.get_u64(self.auth_ready) != 0,
            done,
            rdata: self.sim.get_u64(self.reg_rdata) as u32,
            kdf_busy: self.sim.get_u64(self.kdf_busy) != 0,
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

impl Default for VerifyKey {
    fn default() -> Self {
        Self::new()
    }
}
