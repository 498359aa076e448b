//! Co-simulation of `rtl/ghash/ghash_mul.sv` against `rocesec_model::ghash::mul` (SP 800-38D §6.3
//! Algorithm 1): edge operands (0, 1 = `80 00..`, all ones, every single-bit element, the
//! reduction constant R) and random operands, back to back and with random idle cycles, for
//! NumStages = 1, 2, 3. Also the multiplication example of the GCM spec test case 2
//! (McGrew & Viega, "The Galois/Counter Mode of Operation", Appendix B, H * C).
#![allow(clippy::unwrap_used)]

use std::collections::VecDeque;
use std::time::Instant;

use hex_literal::hex;
use rocesec_cosim::rtl::ghash_mul::GhashMul;
use rocesec_cosim::rtl::{seed, SplitMix64, Top};
use rocesec_model::ghash::{mul, Block};

fn edge_operands() -> Vec<Block> {
    let mut v = vec![
        [0u8; 16],
        [0xff; 16],
        hex!("80000000000000000000000000000000"),
        hex!("e1000000000000000000000000000000"),
    ];
    for bit in 0..128 {
        let mut b = [0u8; 16];
        b[bit / 8] = 0x80 >> (bit % 8);
        v.push(b);
    }
    v.push(hex!("00000000000000000000000000000001"));
    v.push(hex!("7fffffffffffffffffffffffffffffff"));
    v
}

/// Drive `pairs` through the DUT, idle cycles with probability `idle`/8; return mismatches.
fn run(dut: &mut GhashMul, pairs: &[(Block, Block)], idle: u64, rng: &mut SplitMix64) -> usize {
    let lat = dut.latency() as u64;
    let mut expect: VecDeque<(u16, Block, u64)> = VecDeque::new();
    let mut sent = 0usize;
    let mut bad = 0usize;
    let mut edge = 0u64;
    while sent < pairs.len() || !expect.is_empty() {
        let send = sent < pairs.len() && !rng.chance(idle, 8);
        let input = send.then(|| {
            let (a, b) = &pairs[sent];
            (sent as u16, a, b)
        });
        if let Some((tag, a, b)) = input {
            expect.push_back((tag, mul(a, b), edge + lat));
            sent += 1;
        }
        let out = dut.step(input);
        edge += 1;
        if let Some((tag, p)) = out {
            let (etag, ep, due) = expect.pop_front().expect("unexpected product");
            assert_eq!(tag, etag, "order/sideband");
            assert_eq!(edge, due, "latency");
            if p != ep {
                bad += 1;
            }
        }
        assert!(
            expect.front().is_none_or(|e| e.2 >= edge),
            "missing product"
        );
    }
    bad
}

#[test]
fn spec_example_gcm_test_case_2() {
    // McGrew & Viega GCM spec, test case 2: H = 66e94bd4ef8a2c3b884cfa59ca342b2e,
    // C = 0388dace60b6a392f328c2b971b2fe78, X1 = C * H = 5e2ec746917062882c85b0685353deb7.
    let h = hex!("66e94bd4ef8a2c3b884cfa59ca342b2e");
    let c = hex!("0388dace60b6a392f328c2b971b2fe78");
    assert_eq!(mul(&c, &h), hex!("5e2ec746917062882c85b0685353deb7"));
    let mut dut = GhashMul::new(Top::GhashMul2);
    let mut rng = SplitMix64::new(1);
    assert_eq!(run(&mut dut, &[(c, h), (h, c)], 0, &mut rng), 0);
}

#[test]
fn edge_and_random_operands() {
    let mut rng = SplitMix64::new(seed(0x6a5_0001));
    let edges = edge_operands();
    let mut pairs: Vec<(Block, Block)> = Vec::new();
    for a in &edges {
        pairs.push((*a, edges[rng.below(edges.len() as u64) as usize]));
        pairs.push((edges[rng.below(edges.len() as u64) as usize], *a));
        pairs.push((*a, rng.block()));
        pairs.push((rng.block(), *a));
    }
    for _ in 0..3000 {
        pairs.push((rng.block(), rng.block()));
    }
    for top in [Top::GhashMul1, Top::GhashMul2, Top::GhashMul3] {
        let mut dut = GhashMul::new(top);
        let t = Instant::now();
        assert_eq!(
            run(&mut dut, &pairs, 0, &mut rng),
            0,
            "{}: back to back",
            top.name()
        );
        let rate = dut.cycles() as f64 / t.elapsed().as_secs_f64();
        eprintln!("{}: {:.0} cycles/s", top.name(), rate);
        assert_eq!(
            run(&mut dut, &pairs, 3, &mut rng),
            0,
            "{}: with idle cycles",
            top.name()
        );
    }
}
