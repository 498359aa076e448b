//! Driver for `rtl/top/rocesec_key_cache.sv` (stage `key`: the derived-key cache and its
//! SP 800-108 KDF, shared by both tops), built with its default `NumCache` = 8.
//!
//! The cache compares a request's tag one cycle early: every request's tag must have been on
//! `pre_tag_i` in the cycle before ([`KeyCache::announce`]), as both key stages present it.

use super::{Port, Sim, Top};

/// Entries of the test build (`NumCache`).
pub const NUM_CACHE: usize = 8;

/// `rocesec_pkg::key_tag_t`: the identity of a derived key (model `timing::CacheTag`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KeyTag {
    /// `KtQp` (0), `KtMr` (1) or `KtNode` (2).
    pub typ: u8,
    /// Protection domain.
    pub pd: u32,
    /// Key epoch.
    pub epoch: u8,
    /// GID (QP: destination, MR/node: owner).
    pub gid: [u8; 16],
    /// QP: QPN (24 bits used); MR/node: rkey.
    pub a: u32,
    /// QP: salt (24 bits); node: level (6 bits used).
    pub b: u32,
    /// Node index.
    pub index: u64,
}

/// `KtQp`.
pub const KT_QP: u8 = 0;
/// `KtMr`.
pub const KT_MR: u8 = 1;
/// `KtNode`.
pub const KT_NODE: u8 = 2;

impl KeyTag {
    /// The 290-bit packed struct as 37 big-endian bytes (top 6 bits zero):
    /// typ(2) ‖ pd(32) ‖ epoch(8) ‖ gid(128) ‖ a(32) ‖ b(24) ‖ index(64).
    pub fn to_bytes(&self) -> [u8; 37] {
        // build the vector LSB first: index, b, a, gid, epoch, pd, typ
        let mut bits: Vec<bool> = Vec::with_capacity(296);
        let mut push = |v: u128, n: usize| {
            for i in 0..n {
                bits.push((v >> i) & 1 == 1);
            }
        };
        push(u128::from(self.index), 64);
        push(u128::from(self.b & 0xff_ffff), 24);
        push(u128::from(self.a), 32);
        push(u128::from_be_bytes(self.gid), 128);
        push(u128::from(self.epoch), 8);
        push(u128::from(self.pd), 32);
        push(u128::from(self.typ & 3), 2);
        let mut out = [0u8; 37];
        for (i, &b) in bits.iter().enumerate() {
            if b {
                out[36 - i / 8] |= 1 << (i % 8);
            }
        }
        out
    }
}

/// The answer to one request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyRsp {
    /// The derived key (byte 0 = bits 127:120).
    pub key: [u8; 16],
    /// Its GCM hash subkey H = E_K(0^128).
    pub h: [u8; 16],
    /// Answered in the request's first cycle (a cache hit).
    pub hit: bool,
    /// Cycles from the request's first cycle to the response cycle (0 for a hit).
    pub cycles: u64,
    /// `rsp_rk_o`: the round-key slot the cache names for the key.
    pub rk: usize,
    /// Round-key writes (`rk_we_o`) during the request, `(slot, round)` in order.
    pub rk_writes: Vec<(usize, usize)>,
}

/// Round-key slots (`rocesec_pkg::RkSlots`).
pub const RK_SLOTS: usize = 128;

/// A verilated `rocesec_key_cache`.
pub struct KeyCache {
    sim: Sim,
    req_valid: Port,
    req_tag: Port,
    req_pdkey: Port,
    pre_tag: Port,
    /// Tag driven on `pre_tag_i` from the next clock edge on ([`KeyCache::announce`]).
    next: Option<KeyTag>,
    /// Tag that was on `pre_tag_i` at the last clock edge.
    presented: Option<KeyTag>,
    /// `flush_i` was high at the last clock edge.
    flushed_last: bool,
    rsp_valid: Port,
    rsp_key: Port,
    rsp_h: Port,
    flush: Port,
    busy: Port,
    rsp_rk: Port,
    rk_we: Port,
    rk_slot: Port,
    rk_round: Port,
    rk_data: Port,
    /// Round keys 1..10 of each slot as written on `rk_*` (index 0 unused), a copy of what the
    /// data path's round-key RAMs would hold.
    rk_ram: Vec<[[u8; 16]; 11]>,
    /// Writes since the last request began.
    rk_log: Vec<(usize, usize)>,
}

impl Default for KeyCache {
    fn default() -> Self {
        Self::new()
    }
}

impl KeyCache {
    /// Build the model and reset it.
    pub fn new() -> Self {
        let sim = Sim::new(Top::RocesecKeyCache);
        let mut s = Self {
            req_valid: sim.pin("req_valid_i"),
            req_tag: sim.pin("req_tag_i"),
            req_pdkey: sim.pin("req_pdkey_i"),
            pre_tag: sim.pin("pre_tag_i"),
            next: None,
            presented: None,
            flushed_last: false,
            rsp_valid: sim.pin("rsp_valid_o"),
            rsp_key: sim.pin("rsp_key_o"),
            rsp_h: sim.pin("rsp_h_o"),
            flush: sim.pin("flush_i"),
            busy: sim.pin("busy_o"),
            rsp_rk: sim.pin("rsp_rk_o"),
            rk_we: sim.pin("rk_we_o"),
            rk_slot: sim.pin("rk_slot_o"),
            rk_round: sim.pin("rk_round_o"),
            rk_data: sim.pin("rk_data_o"),
            rk_ram: vec![[[0u8; 16]; 11]; RK_SLOTS],
            rk_log: Vec::new(),
            sim,
        };
        s.sim.set_u64(s.req_valid, 0);
        s.sim.set_u64(s.flush, 0);
        s.sim.set_bytes(s.pre_tag, &[0u8; 37]);
        s.sim.reset();
        s
    }

    /// Drive `t` on `pre_tag_i` from the next clock edge on (in every later cycle until the next
    /// call): the tag of the next request. A request's own cycles may already carry the tag of
    /// the request after it, as a key stage's do.
    pub fn announce(&mut self, t: &KeyTag) {
        self.next = Some(*t);
    }

    /// Idle cycles, with `flush_i` high in the first one when `flush`.
    pub fn idle(&mut self, n: u64, flush: bool) {
        for i in 0..n {
            self.sim.set_u64(self.flush, u64::from(flush && i == 0));
            self.tick();
        }
        self.sim.set_u64(self.flush, 0);
    }

    /// Present `tag` with parent key `pdkey` (K_pd, 16 bytes) and hold it until the response;
    /// `flush_i` is high in the cycles `flush_at` counts from the request's first cycle (0 = the
    /// request cycle itself). The response cycle is a clock edge too; key and H are read after
    /// it (`rsp_key_o`/`rsp_h_o` hold them from the cycle after `rsp_valid_o`).
    ///
    /// A tag not announced in the cycle before gets one idle cycle that announces it first (a
    /// flush just before the request would then no longer be just before it, so that case
    /// panics: announce such a request before the flush).
    ///
    /// # Panics
    /// If no response comes within 2,000 cycles, or in the case above.
    pub fn request(&mut self, tag: &KeyTag, pdkey: &[u8; 16], flush_at: &[u64]) -> KeyRsp {
        if self.presented != Some(*tag) {
            assert!(
                !self.flushed_last,
                "rocesec_key_cache: request after a flush not announced before the flush"
            );
            let after = self.next;
            self.next = Some(*tag);
            self.tick();
            self.next = after;
        }
        self.rk_log.clear();
        self.sim.set_u64(self.req_valid, 1);
        self.sim.set_bytes(self.req_tag, &tag.to_bytes());
        self.sim.set_bytes(self.req_pdkey, pdkey);
        for c in 0..2000u64 {
            self.sim
                .set_u64(self.flush, u64::from(flush_at.contains(&c)));
            self.sim.eval();
            if self.sim.get_u64(self.rsp_valid) != 0 {
                // key and H hold from the cycle after rsp_valid_o until the next request
                self.tick();
                self.sim.set_u64(self.req_valid, 0);
                self.sim.set_u64(self.flush, 0);
                self.sim.eval();
                let mut key = [0u8; 16];
                let mut h = [0u8; 16];
                self.sim.get_bytes(self.rsp_key, &mut key);
                self.sim.get_bytes(self.rsp_h, &mut h);
                return KeyRsp {
                    key,
                    h,
                    hit: c == 0,
                    cycles: c,
                    rk: self.sim.get_u64(self.rsp_rk) as usize,
                    rk_writes: std::mem::take(&mut self.rk_log),
                };
            }
            self.tick();
        }
        panic!("rocesec_key_cache: no response");
    }

    /// One clock edge, recording a round-key write (`rk_we_o`) of this cycle.
    fn tick(&mut self) {
        match self.next {
            Some(t) => self.sim.set_bytes(self.pre_tag, &t.to_bytes()),
            None => self.sim.set_bytes(self.pre_tag, &[0u8; 37]),
        }
        self.presented = self.next;
        self.sim.eval();
        self.flushed_last = self.sim.get_u64(self.flush) != 0;
        if self.sim.get_u64(self.rk_we) != 0 {
            let slot = self.sim.get_u64(self.rk_slot) as usize;
            let round = self.sim.get_u64(self.rk_round) as usize;
            let mut k = [0u8; 16];
            self.sim.get_bytes(self.rk_data, &mut k);
            assert!(
                (1..=10).contains(&round),
                "rocesec_key_cache: round-key write of round {round}"
            );
            self.rk_ram[slot][round] = k;
            self.rk_log.push((slot, round));
        }
        self.sim.tick();
    }

    /// Round keys 1..10 last written to round-key slot `slot` (index 0 is zero).
    pub fn round_keys(&self, slot: usize) -> [[u8; 16]; 11] {
        self.rk_ram[slot]
    }

    /// `busy_o`: a derivation is running.
    pub fn busy(&mut self) -> bool {
        self.sim.get_u64(self.busy) != 0
    }
}
