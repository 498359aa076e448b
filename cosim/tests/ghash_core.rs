//! Co-simulation of `rtl/ghash/ghash_core.sv` against `rocesec_model::ghash::Ghash`
//! (SP 800-38D §6.4): random packets of 1..40 blocks with a fresh or repeated H per packet,
//! back to back and with random idle cycles, for MulStages = 1, 2 and 3; plus the GHASH of GCM
//! spec test cases 2, 3 and 4 (McGrew & Viega, Appendix B), and the documented latency.
#![allow(clippy::unwrap_used)]

use std::collections::VecDeque;
use std::time::Instant;

use hex_literal::hex;
use rocesec_cosim::rtl::ghash_core::{GhashCore, GhashIn};
use rocesec_cosim::rtl::{seed, SplitMix64, Top};
use rocesec_model::ghash::{Block, Ghash};

/// Every `ghash_core` variant.
const TOPS: [Top; 3] = [Top::GhashCore1, Top::GhashCore2, Top::GhashCore3];

struct Packet {
    h: Block,
    blocks: Vec<Block>,
}

fn expected(p: &Packet) -> Block {
    let mut g = Ghash::new(&p.h);
    for b in &p.blocks {
        g.update_block(b);
    }
    g.state()
}

/// Run packets; `idle` = probability (x/8) of an idle cycle before each block. Returns mismatches.
fn run(dut: &mut GhashCore, packets: &[Packet], idle: u64, rng: &mut SplitMix64) -> usize {
    let lat = dut.latency() as u64;
    let mut expect: VecDeque<(u16, Block, u64)> = VecDeque::new();
    let mut bad = 0usize;
    let mut edge = 0u64;
    let mut check =
        |out: Option<(u16, Block)>, edge: u64, expect: &mut VecDeque<(u16, Block, u64)>| {
            if let Some((tag, h)) = out {
                let (etag, eh, due) = expect.pop_front().expect("unexpected hash");
                assert_eq!(tag, etag, "order/sideband");
                assert_eq!(edge, due, "latency");
                if h != eh {
                    bad += 1;
                }
            }
            assert!(expect.front().is_none_or(|e| e.2 >= edge), "missing hash");
        };
    for (n, p) in packets.iter().enumerate() {
        for (i, b) in p.blocks.iter().enumerate() {
            while rng.chance(idle, 8) {
                let out = dut.step(None);
                edge += 1;
                check(out, edge, &mut expect);
            }
            let last = i + 1 == p.blocks.len();
            let input = GhashIn {
                first: i == 0,
                last,
                tag: n as u16,
                data: *b,
                h: p.h,
            };
            if last {
                expect.push_back((n as u16, expected(p), edge + lat));
            }
            let out = dut.step(Some(&input));
            edge += 1;
            check(out, edge, &mut expect);
        }
    }
    while !expect.is_empty() {
        let out = dut.step(None);
        edge += 1;
        check(out, edge, &mut expect);
    }
    bad
}

fn random_packets(rng: &mut SplitMix64, n: usize) -> Vec<Packet> {
    let mut h = rng.block();
    (0..n)
        .map(|_| {
            if rng.chance(3, 4) {
                h = rng.block();
            }
            let len = match rng.below(4) {
                0 => 1 + rng.below(3) as usize,
                _ => 1 + rng.below(40) as usize,
            };
            Packet {
                h,
                blocks: (0..len).map(|_| rng.block()).collect(),
            }
        })
        .collect()
}

#[test]
fn gcm_spec_test_case_2() {
    // GHASH(H, A = {}, C) for test case 2: X = C || [0]_64 || [128]_64 ->
    // f38cbb1ad69223dcc3457ae5b6b0f885 (McGrew & Viega, Appendix B).
    let p = Packet {
        h: hex!("66e94bd4ef8a2c3b884cfa59ca342b2e"),
        blocks: vec![
            hex!("0388dace60b6a392f328c2b971b2fe78"),
            hex!("00000000000000000000000000000080"),
        ],
    };
    assert_eq!(expected(&p), hex!("f38cbb1ad69223dcc3457ae5b6b0f885"));
    for top in TOPS {
        let mut dut = GhashCore::new(top);
        let mut rng = SplitMix64::new(2);
        assert_eq!(
            run(&mut dut, std::slice::from_ref(&p), 0, &mut rng),
            0,
            "{}",
            top.name()
        );
    }
}

/// GCM spec test cases 3 and 4 (McGrew & Viega, Appendix B): H =
/// b83b533708bf535d0aa6e52980d53b78; case 3 hashes C (4 blocks) and the length block, case 4 the
/// AAD (20 bytes, 2 blocks), C (60 bytes, 4 blocks) and the length block. 5 and 7 blocks use H^3
/// at MulStages = 3. Back to back, then with idle cycles (probability 1/2 before each block).
#[test]
fn gcm_spec_test_cases_3_and_4() {
    let h = hex!("b83b533708bf535d0aa6e52980d53b78");
    let c: [Block; 4] = [
        hex!("42831ec2217774244b7221b784d0d49c"),
        hex!("e3aa212f2c02a4e035c17e2329aca12e"),
        hex!("21d514b25466931c7d8f6a5aac84aa05"),
        hex!("1ba30b396a0aac973d58e091473f5985"),
    ];
    let mut c4 = c;
    c4[3][12..].fill(0);
    let case3 = Packet {
        h,
        blocks: vec![
            c[0],
            c[1],
            c[2],
            c[3],
            hex!("00000000000000000000000000000200"),
        ],
    };
    let case4 = Packet {
        h,
        blocks: vec![
            hex!("feedfacedeadbeeffeedfacedeadbeef"),
            hex!("abaddad2000000000000000000000000"),
            c4[0],
            c4[1],
            c4[2],
            c4[3],
            hex!("00000000000000a000000000000001e0"),
        ],
    };
    assert_eq!(expected(&case3), hex!("7f1b32b81b820d02614f8895ac1d4eac"));
    assert_eq!(expected(&case4), hex!("698e57f70e6ecc7fd9463b7260a9ae5f"));
    let both = [case3, case4];
    for top in TOPS {
        let mut dut = GhashCore::new(top);
        let mut rng = SplitMix64::new(3);
        assert_eq!(run(&mut dut, &both, 0, &mut rng), 0, "{}", top.name());
        assert_eq!(run(&mut dut, &both, 4, &mut rng), 0, "{}: idle", top.name());
    }
}

/// The latency documented in the header of ghash_core.sv, independent of `GhashCore::latency`:
/// a one-block packet (X_1 = 1, H = 1, so the hash is 1) is presented exactly that many edges
/// after the accepting edge (counted as 1), and nothing comes earlier.
#[test]
fn documented_latency() {
    for (top, lat) in [
        (Top::GhashCore1, 3),
        (Top::GhashCore2, 4),
        (Top::GhashCore3, 8),
    ] {
        let mut dut = GhashCore::new(top);
        assert_eq!(dut.latency(), lat, "{}", top.name());
        let mut one = [0u8; 16];
        one[0] = 0x80;
        let input = GhashIn {
            first: true,
            last: true,
            tag: 0x5a5a,
            data: one,
            h: one,
        };
        let mut out = dut.step(Some(&input));
        let mut edge = 1;
        while out.is_none() && edge < 20 {
            out = dut.step(None);
            edge += 1;
        }
        assert_eq!(out, Some((0x5a5a, one)), "{}", top.name());
        assert_eq!(edge, lat, "{}: latency", top.name());
    }
}

#[test]
fn random_packets_back_to_back_and_idle() {
    let mut rng = SplitMix64::new(seed(0x6c0_0002));
    let packets = random_packets(&mut rng, 400);
    for top in TOPS {
        let mut dut = GhashCore::new(top);
        let t = Instant::now();
        assert_eq!(
            run(&mut dut, &packets, 0, &mut rng),
            0,
            "{}: back to back",
            top.name()
        );
        let rate = dut.cycles() as f64 / t.elapsed().as_secs_f64();
        eprintln!("{}: {:.0} cycles/s", top.name(), rate);
        assert_eq!(
            run(&mut dut, &packets, 2, &mut rng),
            0,
            "{}: idle 1/4",
            top.name()
        );
        assert_eq!(
            run(&mut dut, &packets, 6, &mut rng),
            0,
            "{}: idle 3/4",
            top.name()
        );
    }
}
