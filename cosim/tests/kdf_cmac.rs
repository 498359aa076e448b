//! Co-simulation of `rtl/kdf/kdf_cmac.sv` against `rocesec_model::kdf::{aes_cmac, derive_key}`:
//! SP 800-38B Appendix D.1/D.3 CMAC examples (inline), then random keys, labels, contexts and
//! message lengths 0..=48 (every block-boundary case), with repeated keys to exercise the
//! subkey cache, for AES-128 and AES-256 parents.
#![allow(clippy::unwrap_used)]

use hex_literal::hex;
use rocesec_cosim::rtl::kdf_cmac::{KdfCmac, KdfOp, MAX_MSG_BYTES};
use rocesec_cosim::rtl::{seed, SplitMix64, Top};
use rocesec_model::gcm::AesGcm;
use rocesec_model::kdf::{aes_cmac, derive_key};

/// SP 800-38B Appendix D.1 (AES-128) examples 1-3 (messages of 0, 16 and 40 bytes).
#[test]
fn sp800_38b_d1_aes128() {
    let key = hex!("2b7e151628aed2a6abf7158809cf4f3c");
    let msg =
        hex!("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411");
    let mut dut = KdfCmac::new(Top::KdfCmac128);
    for (len, tag) in [
        (0, hex!("bb1d6929e95937287fa37d129b756746")),
        (16, hex!("070a16b46b4d4144f79bdd9dd04a287c")),
        (40, hex!("dfa66747de9ae63030ca32611497c827")),
    ] {
        let (out, _) = dut.run(KdfOp::Cmac, &key, &msg[..len], 0);
        assert_eq!(out, tag, "D.1 Mlen = {}", len * 8);
        assert_eq!(aes_cmac(&key, &msg[..len]).unwrap(), tag);
    }
}

/// SP 800-38B Appendix D.3 (AES-256) examples 1-3.
#[test]
fn sp800_38b_d3_aes256() {
    let key = hex!("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4");
    let msg =
        hex!("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411");
    let mut dut = KdfCmac::new(Top::KdfCmac256);
    for (len, tag) in [
        (0, hex!("028962f61b7bf89efc6b551f4667d983")),
        (16, hex!("28a7023f452e8f82bd4bf28d8c37c35c")),
        (40, hex!("aaf3d8f1de5640c232f5b169b9c911e6")),
    ] {
        let (out, _) = dut.run(KdfOp::Cmac, &key, &msg[..len], 0);
        assert_eq!(out, tag, "D.3 Mlen = {}", len * 8);
    }
}

fn random_requests(top: Top, n: usize) {
    let mut rng = SplitMix64::new(seed(0xcdf_0005 ^ top as u64));
    let mut dut = KdfCmac::new(top);
    let kb = dut.key_bytes();
    let mut key = vec![0u8; kb];
    rng.fill(&mut key);
    let mut cycles = Vec::new();
    for i in 0..n {
        if rng.chance(1, 2) {
            rng.fill(&mut key); // otherwise reuse: subkey cache hit
        }
        let op = match rng.below(4) {
            0 => KdfOp::Cmac,
            1 => KdfOp::Derive128,
            2 => KdfOp::Encrypt,
            _ => KdfOp::Derive256,
        };
        let (out, cyc) = if op == KdfOp::Encrypt {
            // raw block encryption; the zero block gives the GCM hash subkey H
            let mut blk = [0u8; 16];
            if rng.chance(1, 2) {
                rng.fill(&mut blk);
            }
            let (out, cyc) = dut.run(op, &key, &blk, rng.below(3) as usize);
            let want = AesGcm::new(&key).unwrap().encrypt_block(&blk);
            assert_eq!(out, want.to_vec(), "encrypt {}", hex::encode(blk));
            (out, cyc)
        } else if op == KdfOp::Cmac {
            let len = (i % (MAX_MSG_BYTES + 1)).min(MAX_MSG_BYTES);
            let mut msg = vec![0u8; len];
            rng.fill(&mut msg);
            let (out, cyc) = dut.run(op, &key, &msg, rng.below(3) as usize);
            assert_eq!(out, aes_cmac(&key, &msg).unwrap(), "CMAC len {len}");
            (out, cyc)
        } else {
            // msg = Label || 0x00 || Context
            let label_len = rng.below(20) as usize;
            let ctx_len = rng.below((MAX_MSG_BYTES - label_len) as u64) as usize;
            let mut label = vec![0u8; label_len];
            let mut ctx = vec![0u8; ctx_len];
            rng.fill(&mut label);
            rng.fill(&mut ctx);
            let mut msg = label.clone();
            msg.push(0);
            msg.extend_from_slice(&ctx);
            let (out, cyc) = dut.run(op, &key, &msg, rng.below(3) as usize);
            let mut want = vec![0u8; out.len()];
            derive_key(&key, &label, &ctx, &mut want).unwrap();
            assert_eq!(out, want, "{op:?} label {label_len} context {ctx_len}");
            (out, cyc)
        };
        assert!(!out.is_empty());
        cycles.push(cyc);
    }
    let (min, max) = (cycles.iter().min().unwrap(), cycles.iter().max().unwrap());
    eprintln!("{}: {n} requests, {min}..{max} cycles each", top.name());
}

#[test]
fn random_cmac_and_derive_aes128_parent() {
    random_requests(Top::KdfCmac128, 150);
}

#[test]
fn random_cmac_and_derive_aes256_parent() {
    random_requests(Top::KdfCmac256, 100);
}
