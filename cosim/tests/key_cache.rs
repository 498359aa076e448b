//! Co-simulation of `rtl/top/rocesec_key_cache.sv` (stage `key`: derived-key cache + KDF)
//! against the model's key derivations (`rocesec_model::keys::{qp_key, mr_key, node_key}`,
//! SP 800-108 KBKDF with AES-CMAC) and a reference of the cache's documented behaviour: 8
//! entries, round robin, an MR key inserted before the node key derived from it, and a flush
//! (`flush_i`, a PD slot write) that empties the cache and keeps a derivation that overlaps it
//! from inserting anything. Each answer's round-key slot must hold round keys 1..10 of its key
//! as the cache wrote them on `rk_*` (FIPS 197 §5.2 expansion on the test side). The cache compares
//! a request's tag one cycle early, from `pre_tag_i`: each request is announced in the cycle
//! before it (`KeyCache::announce`), as both key stages present their decision's tag.
#![allow(clippy::unwrap_used)]

use rocesec_cosim::rtl::ctr::aes128_round_keys;
use rocesec_cosim::rtl::key_cache::{KeyCache, KeyRsp, KeyTag, KT_NODE, KT_QP, NUM_CACHE};
use rocesec_cosim::rtl::{seed, SplitMix64};
use rocesec_model::gcm::AesGcm;
use rocesec_model::keys::{mr_key, node_key, qp_key, Key};

/// The cache as documented: tags with their key values, round robin.
struct Reference {
    slots: Vec<Option<(KeyTag, [u8; 16])>>,
    next: usize,
}

fn mr_of(t: &KeyTag) -> KeyTag {
    KeyTag {
        typ: rocesec_cosim::rtl::key_cache::KT_MR,
        b: 0,
        index: 0,
        ..*t
    }
}

fn arr(k: &Key) -> [u8; 16] {
    k.bytes().try_into().unwrap()
}

impl Reference {
    fn new() -> Self {
        Self {
            slots: vec![None; NUM_CACHE],
            next: 0,
        }
    }
    fn get(&self, t: &KeyTag) -> Option<[u8; 16]> {
        self.slots
            .iter()
            .flatten()
            .find(|(s, _)| s == t)
            .map(|(_, k)| *k)
    }
    fn insert(&mut self, t: KeyTag, k: [u8; 16]) {
        self.slots[self.next] = Some((t, k));
        self.next = (self.next + 1) % NUM_CACHE;
    }
    fn flush(&mut self) {
        self.slots.iter_mut().for_each(|s| *s = None);
        self.next = 0;
    }
    /// Expected (hit, key) of a request; updates the cache as the RTL must. `flushed`: a flush
    /// came while the request was open.
    fn request(&mut self, t: &KeyTag, pdkey: &[u8; 16], flushed: bool) -> (bool, [u8; 16]) {
        if let Some(k) = self.get(t) {
            if flushed {
                self.flush();
            }
            return (true, k);
        }
        let pk = Key::new(pdkey).unwrap();
        let mut ins = Vec::new();
        let key = if t.typ == KT_NODE {
            let m = mr_of(t);
            let mk = match self.get(&m) {
                Some(k) => k,
                None => {
                    let k = arr(&mr_key(&pk, &t.gid, t.a).unwrap());
                    ins.push((m, k));
                    k
                }
            };
            let level = u8::try_from(t.b).unwrap();
            arr(&node_key(&Key::new(&mk).unwrap(), level, t.index).unwrap())
        } else {
            arr(&qp_key(&pk, &t.gid, t.a, t.b).unwrap())
        };
        ins.push((*t, key));
        if flushed {
            self.flush();
        } else {
            for (t, k) in ins {
                self.insert(t, k);
            }
        }
        (false, key)
    }
}

fn h_of(key: &[u8; 16]) -> [u8; 16] {
    AesGcm::new(key).unwrap().h()
}

fn qp_tag(pd: u32, epoch: u8, qpn: u32, salt: u32) -> KeyTag {
    let mut gid = [0u8; 16];
    gid[10] = 0xff;
    gid[11] = 0xff;
    gid[12..].copy_from_slice(&[10, 0, 0, 2]);
    KeyTag {
        typ: KT_QP,
        pd,
        epoch,
        gid,
        a: qpn,
        b: salt,
        index: 0,
    }
}

fn node_tag(pd: u32, epoch: u8, rkey: u32, level: u32, index: u64) -> KeyTag {
    KeyTag {
        typ: KT_NODE,
        a: rkey,
        b: level,
        index,
        ..qp_tag(pd, epoch, 0, 0)
    }
}

/// The slot the response names holds round keys 1..10 of its key (FIPS 197 §5.2, expanded on
/// the test side), as written on `rk_*` during the key's H computation.
fn check_round_keys(dut: &KeyCache, got: &KeyRsp, key: &[u8; 16], what: &str) {
    // a miss writes rounds 1..10 once each, in order, to the slot it names; a hit writes none
    // (found in review: extra writes, e.g. of a CMAC block's round keys, would go unseen when
    // the H computation overwrites them)
    let want_writes: Vec<(usize, usize)> = if got.hit {
        Vec::new()
    } else {
        (1..=10).map(|r| (got.rk, r)).collect()
    };
    assert_eq!(got.rk_writes, want_writes, "{what}: round-key writes");
    let want = aes128_round_keys(key);
    let have = dut.round_keys(got.rk);
    for r in 1..=10 {
        assert_eq!(have[r], want[r], "{what}: round key {r} in slot {}", got.rk);
    }
}

fn check(
    dut: &mut KeyCache,
    r: &mut Reference,
    t: &KeyTag,
    pd: &[u8; 16],
    flush_at: &[u64],
    what: &str,
) {
    let got = dut.request(t, pd, flush_at);
    let flushed = flush_at.iter().any(|&c| c <= got.cycles);
    let (hit, key) = r.request(t, pd, flushed);
    assert_eq!(got.hit, hit, "{what}: hit ({t:?})");
    assert_eq!(got.key, key, "{what}: key ({t:?})");
    assert_eq!(got.h, h_of(&key), "{what}: H = E_K(0^128) ({t:?})");
    check_round_keys(dut, &got, &key, what);
    assert!(!dut.busy(), "{what}: busy after the response");
}

/// QP keys, MR + node keys, hits, round-robin eviction of the 9th tag.
#[test]
fn derive_hit_evict() {
    let mut dut = KeyCache::new();
    let mut r = Reference::new();
    let p = [0x11u8; 16];
    let tags: Vec<KeyTag> = (0..5)
        .map(|i| qp_tag(1, 0, 0x100 + i, 7))
        .chain((0..3).map(|i| node_tag(1, 0, 0xabcd, 3, i)))
        .collect();
    // 5 QP keys, then 3 node keys of one MR: MR key + 3 node keys = 9 insertions, so the first
    // QP key is evicted by the last node key.
    for t in &tags {
        check(&mut dut, &mut r, t, &p, &[], "first");
    }
    assert!(
        r.get(&tags[0]).is_none(),
        "reference: the first tag was evicted"
    );
    for t in tags.iter().rev() {
        check(&mut dut, &mut r, t, &p, &[], "again");
    }
}

/// A flush in the cycle just before a request. Both key stages read K_pd from the PD slot at
/// their decision and request the key in the next cycle, so a PD slot write in the decision cycle
/// reaches the cache as a flush one cycle before a request that carries the old K_pd. That key
/// must answer its requester and must not be cached. Found in review (session 9): it was
/// inserted, and the next request, with the new K_pd, got the old K_pd's key as a hit.
#[test]
fn flush_just_before_a_request_caches_nothing() {
    let old = [0x44u8; 16];
    let new = [0x55u8; 16];
    for t in [qp_tag(3, 2, 0x61, 4), node_tag(3, 2, 0x99, 6, 7)] {
        let mut dut = KeyCache::new();
        let mut r = Reference::new();
        dut.announce(&t); // a key stage presents the tag in its decision cycle
        dut.idle(1, true); // the decision cycle: flush, K_pd sampled before the write
        let got = dut.request(&t, &old, &[]);
        let (_, want_old) = r.request(&t, &old, true); // derived, not cached
        assert!(!got.hit, "{t:?}: hit after a flush");
        assert_eq!(
            got.key, want_old,
            "{t:?}: the requester gets its K_pd's key"
        );
        let got = dut.request(&t, &new, &[]);
        let (hit, want_new) = r.request(&t, &new, false);
        assert!(!hit);
        assert!(
            !got.hit,
            "{t:?}: the old K_pd's key was cached and answered as a hit"
        );
        assert_eq!(got.key, want_new, "{t:?}: key of the new K_pd");
        // and now it is cached
        let got = dut.request(&t, &new, &[]);
        assert!(
            got.hit && got.key == want_new,
            "{t:?}: the new key is cached"
        );
    }
}

/// A flush during a derivation: the requester gets the key of the K_pd it presented, and the
/// key is not cached, so the next request (with the new K_pd of the rewritten slot) derives
/// again. Before the fix the stale key was inserted after the flush and answered as a hit.
#[test]
fn flush_during_derivation_caches_nothing() {
    let old = [0x22u8; 16];
    let new = [0x33u8; 16];
    let t = qp_tag(2, 1, 0x42, 9);
    let n = node_tag(2, 1, 0x77, 4, 5);
    for at in [0u64, 1, 5, 40, 80] {
        let mut dut = KeyCache::new();
        let mut r = Reference::new();
        check(
            &mut dut,
            &mut r,
            &t,
            &old,
            &[at],
            &format!("QP, flush at {at}"),
        );
        check(
            &mut dut,
            &mut r,
            &t,
            &new,
            &[],
            &format!("QP after flush at {at}"),
        );
        let want = arr(&qp_key(&Key::new(&new).unwrap(), &t.gid, t.a, t.b).unwrap());
        assert_eq!(r.get(&t), Some(want), "reference holds the new key");
        // node key: the MR key is inserted before the flush lands (late flush) or after it
        check(
            &mut dut,
            &mut r,
            &n,
            &old,
            &[at + 60],
            &format!("node, flush at {}", at + 60),
        );
        check(
            &mut dut,
            &mut r,
            &n,
            &new,
            &[],
            &format!("node after flush at {}", at + 60),
        );
    }
}

/// A flush in the exact cycle of the insertion (the last `kdf_cmac` response, one cycle before
/// the answer) wins over it, and a flush in the answer cycle removes the inserted key.
#[test]
fn flush_at_insert_and_answer() {
    let p = [0x44u8; 16];
    let t = qp_tag(3, 0, 0x99, 1);
    let mut probe = KeyCache::new();
    let n = probe.request(&t, &p, &[]).cycles;
    assert!(n > 30, "a derivation takes cycles ({n})");
    for at in [n - 1, n] {
        let mut dut = KeyCache::new();
        let mut r = Reference::new();
        dut.announce(&t); // the request after the answer is announced before a flush in it
        check(
            &mut dut,
            &mut r,
            &t,
            &p,
            &[at],
            &format!("flush at {at} of {n}"),
        );
        assert!(r.get(&t).is_none());
        let again = dut.request(&t, &p, &[]);
        assert!(
            !again.hit,
            "flush at cycle {at} of {n}: the key must not stay cached"
        );
    }
}

/// Random tags from a small pool, random K_pd rewrites (a flush at a random cycle of a request
/// or between requests), checked against the reference.
#[test]
fn random_against_reference() {
    let mut rng = SplitMix64::new(seed(0x6b63_0001));
    let mut dut = KeyCache::new();
    let mut r = Reference::new();
    let pick = |rng: &mut SplitMix64| {
        let pd = rng.below(2) as usize;
        let t = if rng.chance(1, 2) {
            qp_tag(pd as u32, 0, rng.below(3) as u32, 3)
        } else {
            node_tag(pd as u32, 0, 0x500, rng.below(2) as u32, rng.below(2))
        };
        (pd, t)
    };
    // each request's tag is drawn one request ahead and announced (pre_tag_i) during the
    // request before it, as a key stage presents its next decision's tag
    let mut next = pick(&mut rng);
    dut.announce(&next.1);
    let mut pdkeys = [[0u8; 16]; 2];
    for k in &mut pdkeys {
        rng.fill(k);
    }
    let mut hits = 0;
    let mut flushes = 0;
    // a flush in the cycle just before this request (its K_pd may predate the write: no insert)
    let mut adjacent = false;
    for i in 0..600 {
        let (pd, t) = next;
        next = pick(&mut rng);
        dut.announce(&next.1);
        let mut flush_at = Vec::new();
        if rng.chance(1, 20) {
            // the slot of this PD is rewritten during the request
            flush_at.push(rng.below(200));
        }
        let key = pdkeys[pd];
        let got = dut.request(&t, &key, &flush_at);
        let flushed = flush_at.iter().any(|&c| c <= got.cycles);
        let (hit, want) = r.request(&t, &key, flushed || adjacent);
        assert_eq!(
            (got.hit, got.key),
            (hit, want),
            "request {i} {t:?} flush {flush_at:?} adjacent {adjacent}"
        );
        adjacent = flush_at.contains(&got.cycles); // flush in the response cycle
        assert_eq!(got.h, h_of(&want), "request {i}: H");
        check_round_keys(&dut, &got, &want, &format!("request {i}"));
        hits += usize::from(hit);
        if flushed {
            rng.fill(&mut pdkeys[pd]);
            flushes += 1;
        } else if rng.chance(1, 40) {
            rng.fill(&mut pdkeys[pd]);
            let n = 1 + rng.below(3);
            dut.idle(n, true);
            r.flush();
            flushes += 1;
            adjacent = n == 1;
        } else if rng.chance(1, 4) {
            dut.idle(1 + rng.below(3), false);
            adjacent = false;
        }
    }
    eprintln!("key_cache random: 600 requests, {hits} hits, {flushes} flushes");
    assert!(
        hits > 150 && flushes > 10,
        "the mix reaches hits ({hits}) and flushes ({flushes})"
    );
}
