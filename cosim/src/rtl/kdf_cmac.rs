//! Driver for `rtl/kdf/kdf_cmac.sv` (AES-CMAC and SP 800-108 counter-mode KDF engine).

use super::{Port, Sim, Top};

/// `MaxMsgBytes` of the test builds.
pub const MAX_MSG_BYTES: usize = 48;

/// What to compute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KdfOp {
    /// `CMAC(K, msg)` (SP 800-38B).
    Cmac,
    /// `derive_key(K, msg = Label || 0x00 || Context)` with a 16-byte output.
    Derive128,
    /// `derive_key(K, msg = Label || 0x00 || Context)` with a 32-byte output.
    Derive256,
    /// Raw AES encryption of the first 16 message bytes, `AES_K(M_1)` (the GCM hash subkey
    /// H = E_K(0) of a derived key).
    Encrypt,
}

/// A verilated `kdf_cmac` instance.
pub struct KdfCmac {
    sim: Sim,
    key_bytes: usize,
    req_valid: Port,
    req_ready: Port,
    req_key: Port,
    req_kdf: Port,
    req_enc: Port,
    req_out256: Port,
    req_msg: Port,
    req_msg_len: Port,
    rsp_valid: Port,
    rsp_key: Port,
}

impl KdfCmac {
    /// Build a `kdf_cmac` variant and reset it.
    ///
    /// # Panics
    /// If `top` is not a `kdf_cmac` variant.
    pub fn new(top: Top) -> Self {
        let key_bytes = match top {
            Top::KdfCmac128 => 16,
            Top::KdfCmac256 => 32,
            _ => panic!("{} is not a kdf_cmac variant", top.name()),
        };
        let sim = Sim::new(top);
        let mut s = Self {
            key_bytes,
            req_valid: sim.pin("req_valid_i"),
            req_ready: sim.pin("req_ready_o"),
            req_key: sim.pin("req_key_i"),
            req_kdf: sim.pin("req_kdf_i"),
            req_enc: sim.pin("req_enc_i"),
            req_out256: sim.pin("req_out256_i"),
            req_msg: sim.pin("req_msg_i"),
            req_msg_len: sim.pin("req_msg_len_i"),
            rsp_valid: sim.pin("rsp_valid_o"),
            rsp_key: sim.pin("rsp_key_o"),
            sim,
        };
        s.sim.set_u64(s.req_valid, 0);
        s.sim.reset();
        s
    }

    /// Parent key length of this build in bytes.
    pub fn key_bytes(&self) -> usize {
        self.key_bytes
    }

    /// Run one request to completion after `idle` idle cycles; returns the 16- or 32-byte result
    /// and the cycles from request acceptance to the response.
    ///
    /// # Panics
    /// If the key length or message length is out of range, or no response arrives.
    pub fn run(&mut self, op: KdfOp, key: &[u8], msg: &[u8], idle: usize) -> (Vec<u8>, u64) {
        assert_eq!(key.len(), self.key_bytes, "key length");
        assert!(msg.len() <= MAX_MSG_BYTES, "message too long");
        for _ in 0..idle {
            self.sim.tick();
        }
        while self.sim.get_u64(self.req_ready) == 0 {
            self.sim.tick();
        }
        let mut m = [0xa5u8; MAX_MSG_BYTES]; // bytes past the length must be ignored
        m[..msg.len()].copy_from_slice(msg);
        self.sim.set_u64(self.req_valid, 1);
        self.sim.set_bytes(self.req_key, key);
        self.sim.set_u64(
            self.req_kdf,
            u64::from(op != KdfOp::Cmac && op != KdfOp::Encrypt),
        );
        self.sim
            .set_u64(self.req_enc, u64::from(op == KdfOp::Encrypt));
        self.sim
            .set_u64(self.req_out256, u64::from(op == KdfOp::Derive256));
        self.sim.set_bytes(self.req_msg, &m);
        self.sim.set_u64(self.req_msg_len, msg.len() as u64);
        self.sim.tick();
        self.sim.set_u64(self.req_valid, 0);
        let start = self.sim.cycles();
        for _ in 0..2000 {
            self.sim.tick();
            if self.sim.get_u64(self.rsp_valid) != 0 {
                let mut out = [0u8; 32];
                self.sim.get_bytes(self.rsp_key, &mut out);
                let n = if op == KdfOp::Derive256 { 32 } else { 16 };
                return (out[..n].to_vec(), self.sim.cycles() - start + 1);
            }
        }
        panic!("kdf_cmac: no response");
    }
}
