//! Property tests: the model's primitives against independent implementations.
//!
//! - `ghash::mul` (SP 800-38D Algorithm 1, bit-serial) against [`Ghash`] (the `ghash` crate).
//! - `AesGcm` (composed from `aes` + `Ghash`) against the RustCrypto `aes-gcm` crate, AES-128 and
//!   AES-256, 96-bit and 128-bit IVs, AAD and plaintext of 0..300 bytes.
//! - `AesGcm::trace` against `seal_in_place`.
//! - `kdf::derive_key` against a hand-composed `kbkdf_ctr_cmac` / `aes_cmac` (SP 800-108r1 §4.1).

#![allow(clippy::unwrap_used, reason = "tests: a panic is a test failure")]

use aes_gcm::aead::array::typenum::U16;
use aes_gcm::aead::{AeadInOut, KeyInit};
use proptest::prelude::*;
use rocesec_model::gcm::AesGcm;
use rocesec_model::ghash::{mul, Block, Ghash};
use rocesec_model::kdf::{aes_cmac, derive_key, kbkdf_ctr_cmac};

fn key() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 16),
        proptest::collection::vec(any::<u8>(), 32),
    ]
}

fn bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(any::<u8>(), 0..max)
}

/// aes-gcm with the key size picked at run time, 96-bit nonce.
fn reference_seal(key: &[u8], iv: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
    let nonce = (*iv).into();
    let tag = match key.len() {
        16 => aes_gcm::Aes128Gcm::new_from_slice(key)
            .unwrap()
            .encrypt_inout_detached(&nonce, aad, buf.into()),
        _ => aes_gcm::Aes256Gcm::new_from_slice(key)
            .unwrap()
            .encrypt_inout_detached(&nonce, aad, buf.into()),
    };
    tag.unwrap().into()
}

/// aes-gcm with a 128-bit nonce (J0 via GHASH, SP 800-38D §7.1 step 2).
fn reference_seal_iv16(key: &[u8], iv: &[u8; 16], aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
    let nonce = (*iv).into();
    let tag = match key.len() {
        16 => aes_gcm::AesGcm::<aes::Aes128, U16>::new_from_slice(key)
            .unwrap()
            .encrypt_inout_detached(&nonce, aad, buf.into()),
        _ => aes_gcm::AesGcm::<aes::Aes256, U16>::new_from_slice(key)
            .unwrap()
            .encrypt_inout_detached(&nonce, aad, buf.into()),
    };
    tag.unwrap().into()
}

proptest! {
    // Failing seeds are kept beside this file (tests/crypto_proptest.proptest-regressions).
    #![proptest_config(ProptestConfig {
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::WithSource("proptest-regressions"),
        )),
        ..ProptestConfig::default()
    })]

    #[test]
    fn mul_is_one_ghash_step(x in any::<[u8; 16]>(), h in any::<[u8; 16]>()) {
        let mut g = Ghash::new(&h);
        g.update_block(&x);
        prop_assert_eq!(g.state(), mul(&x, &h));
        prop_assert_eq!(mul(&x, &h), mul(&h, &x));
    }

    #[test]
    fn mul_chain_equals_ghash(h in any::<[u8; 16]>(), data in bytes(200)) {
        let mut g = Ghash::new(&h);
        let mut y: Block = [0; 16];
        for chunk in data.chunks(16) {
            let mut x = [0u8; 16];
            x[..chunk.len()].copy_from_slice(chunk);
            y.iter_mut().zip(x).for_each(|(y, x)| *y ^= x);
            y = mul(&y, &h);
            // Block by block through the data path too.
            g.update_padded(chunk);
            prop_assert_eq!(g.state(), y);
        }
        let mut g2 = Ghash::new(&h);
        g2.update_padded(&data);
        prop_assert_eq!(g2.state(), y);
    }

    #[test]
    fn mul_distributes_over_xor(a in any::<[u8; 16]>(), b in any::<[u8; 16]>(), c in any::<[u8; 16]>()) {
        let mut ab = a;
        ab.iter_mut().zip(b).for_each(|(x, y)| *x ^= y);
        let mut rhs = mul(&a, &c);
        rhs.iter_mut().zip(mul(&b, &c)).for_each(|(x, y)| *x ^= y);
        prop_assert_eq!(mul(&ab, &c), rhs);
    }

    #[test]
    fn gcm_matches_aes_gcm_crate(
        key in key(),
        iv in any::<[u8; 12]>(),
        aad in bytes(300),
        pt in bytes(300),
    ) {
        let gcm = AesGcm::new(&key).unwrap();
        let mut ours = pt.clone();
        let tag = gcm.seal_in_place(&iv, &aad, &mut ours);
        let mut theirs = pt.clone();
        let want = reference_seal(&key, &iv, &aad, &mut theirs);
        prop_assert_eq!(&ours, &theirs);
        prop_assert_eq!(tag, want);
        prop_assert_eq!(gcm.seal_in_place_iv(&iv, &aad, &mut pt.clone()), Ok(want));
        if pt.is_empty() {
            prop_assert_eq!(gcm.gmac(&iv, &aad), want);
        }
        gcm.open_in_place(&iv, &aad, &mut ours, &tag).unwrap();
        prop_assert_eq!(ours, pt);
    }

    #[test]
    fn gcm_iv128_matches_aes_gcm_crate(
        key in key(),
        iv in any::<[u8; 16]>(),
        aad in bytes(100),
        pt in bytes(100),
    ) {
        let gcm = AesGcm::new(&key).unwrap();
        let mut ours = pt.clone();
        let tag = gcm.seal_in_place_iv(&iv, &aad, &mut ours).unwrap();
        let mut theirs = pt.clone();
        let want = reference_seal_iv16(&key, &iv, &aad, &mut theirs);
        prop_assert_eq!(&ours, &theirs);
        prop_assert_eq!(tag, want);
        gcm.open_in_place_iv(&iv, &aad, &mut ours, &tag).unwrap();
        prop_assert_eq!(ours, pt);
    }

    #[test]
    fn trace_matches_seal(key in key(), iv in any::<[u8; 12]>(), aad in bytes(80), pt in bytes(80)) {
        let gcm = AesGcm::new(&key).unwrap();
        let tr = gcm.trace(&iv, &aad, &pt);
        let mut ct = pt.clone();
        let tag = gcm.seal_in_place(&iv, &aad, &mut ct);
        prop_assert_eq!(tr.tag, tag);
        prop_assert_eq!(&tr.ct, &ct);
        let last = *tr.ghash.last().unwrap();
        prop_assert_eq!(last, tr.s);
        let mut t = last;
        t.iter_mut().zip(tr.ek_j0).for_each(|(t, e)| *t ^= e);
        prop_assert_eq!(t, tag);
        prop_assert_eq!(tr.ghash.len(), aad.len().div_ceil(16) + pt.len().div_ceil(16) + 1);
        prop_assert_eq!(tr.keystream.len(), pt.len().div_ceil(16));
        prop_assert_eq!(tr.ek_j0, gcm.encrypt_block(&tr.j0));
    }

    #[test]
    fn open_rejects_any_single_bit_flip(
        key in key(),
        iv in any::<[u8; 12]>(),
        aad in bytes(40),
        pt in bytes(40),
        which in 0usize..3,
        bit in any::<usize>(),
    ) {
        let gcm = AesGcm::new(&key).unwrap();
        let mut ct = pt.clone();
        let mut tag = gcm.seal_in_place(&iv, &aad, &mut ct);
        let mut aad = aad;
        let target: &mut [u8] = match which {
            0 => &mut tag,
            1 => &mut ct,
            _ => &mut aad,
        };
        prop_assume!(!target.is_empty());
        let bit = bit % (target.len() * 8);
        target[bit / 8] ^= 1 << (bit % 8);
        let before = ct.clone();
        prop_assert!(gcm.open_in_place(&iv, &aad, &mut ct, &tag).is_err());
        prop_assert_eq!(ct, before);
    }

    #[test]
    fn derive_key_is_kbkdf_with_documented_layout(
        parent in key(),
        label in bytes(40),
        context in bytes(40),
        len in 1usize..80,
    ) {
        let mut got = vec![0u8; len];
        derive_key(&parent, &label, &context, &mut got).unwrap();

        let mut fixed = label.clone();
        fixed.push(0x00);
        fixed.extend_from_slice(&context);
        fixed.extend_from_slice(&((len as u32) * 8).to_be_bytes());
        let mut want = vec![0u8; len];
        kbkdf_ctr_cmac(&parent, 32, &fixed, &mut want).unwrap();
        prop_assert_eq!(&got, &want);

        // And K(i) = CMAC(parent, [i]_32 || fixed), i from 1, truncated to L.
        let mut by_hand = Vec::new();
        for i in 1u32..=(len.div_ceil(16) as u32) {
            let mut msg = i.to_be_bytes().to_vec();
            msg.extend_from_slice(&fixed);
            by_hand.extend_from_slice(&aes_cmac(&parent, &msg).unwrap());
        }
        by_hand.truncate(len);
        prop_assert_eq!(got, by_hand);
    }

    #[test]
    fn kbkdf_counter_width_is_the_only_difference(
        key in key(),
        fixed in bytes(40),
        len in 1usize..70,
        r in prop_oneof![Just(8u32), Just(16), Just(24), Just(32)],
    ) {
        let mut got = vec![0u8; len];
        kbkdf_ctr_cmac(&key, r, &fixed, &mut got).unwrap();
        let mut by_hand = Vec::new();
        for i in 1u32..=(len.div_ceil(16) as u32) {
            let mut msg = i.to_be_bytes()[4 - (r / 8) as usize..].to_vec();
            msg.extend_from_slice(&fixed);
            by_hand.extend_from_slice(&aes_cmac(&key, &msg).unwrap());
        }
        by_hand.truncate(len);
        prop_assert_eq!(got, by_hand);
    }
}
