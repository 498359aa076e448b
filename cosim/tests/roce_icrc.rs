//! Co-simulation of `rtl/roce/roce_icrc.sv` against zlib's CRC-32 (`crc32fast::hash`, the CRC of
//! the RoCEv2 ICRC, IBTA Vol 1 Annex A17.8): random packet lengths covering every tkeep value of
//! the last beat (1..=16·Lanes valid bytes), back to back and with random idle cycles, for
//! Lanes = 1 and 4; plus the check value of CRC-32 ("123456789" -> 0xcbf43926).
#![allow(clippy::unwrap_used)]

use std::collections::VecDeque;
use std::time::Instant;

use rocesec_cosim::rtl::roce_icrc::RoceIcrc;
use rocesec_cosim::rtl::{seed, SplitMix64, Top};

fn run(dut: &mut RoceIcrc, packets: &[Vec<u8>], idle: u64, rng: &mut SplitMix64) -> usize {
    let kb = dut.beat_bytes();
    let mut expect: VecDeque<(u32, u64)> = VecDeque::new();
    let mut edge = 0u64;
    let mut bad = 0usize;
    let mut check = |out: Option<u32>, edge: u64, expect: &mut VecDeque<(u32, u64)>| {
        if let Some(c) = out {
            let (e, due) = expect.pop_front().expect("unexpected crc");
            assert_eq!(edge, due, "latency");
            if c != e {
                bad += 1;
            }
        }
        assert!(expect.front().is_none_or(|e| e.1 >= edge), "missing crc");
    };
    for p in packets {
        let beats: Vec<&[u8]> = p.chunks(kb).collect();
        for (i, b) in beats.iter().enumerate() {
            while rng.chance(idle, 8) {
                let out = dut.step(None);
                edge += 1;
                check(out, edge, &mut expect);
            }
            let last = i + 1 == beats.len();
            if last {
                expect.push_back((crc32fast::hash(p), edge + RoceIcrc::LATENCY as u64));
            }
            let out = dut.step(Some((b, last)));
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

#[test]
fn check_value() {
    assert_eq!(crc32fast::hash(b"123456789"), 0xcbf4_3926);
    for top in [Top::RoceIcrc1, Top::RoceIcrc4] {
        let mut dut = RoceIcrc::new(top);
        let mut rng = SplitMix64::new(3);
        assert_eq!(
            run(&mut dut, &[b"123456789".to_vec()], 0, &mut rng),
            0,
            "{}",
            top.name()
        );
    }
}

#[test]
fn random_lengths_all_tkeep() {
    let mut rng = SplitMix64::new(seed(0x1c2c_0004));
    for top in [Top::RoceIcrc1, Top::RoceIcrc4] {
        let mut dut = RoceIcrc::new(top);
        let kb = dut.beat_bytes();
        let mut packets = Vec::new();
        // Every last-beat tkeep (1..=kb bytes) with 1..4 beats, then random lengths up to 4 KiB.
        for beats in 0..4 {
            for k in 1..=kb {
                packets.push(beats * kb + k);
            }
        }
        for _ in 0..300 {
            packets.push(1 + rng.below(4200) as usize);
        }
        let packets: Vec<Vec<u8>> = packets
            .into_iter()
            .map(|n| {
                let mut v = vec![0u8; n];
                rng.fill(&mut v);
                v
            })
            .collect();
        let t = Instant::now();
        assert_eq!(
            run(&mut dut, &packets, 0, &mut rng),
            0,
            "{}: back to back",
            top.name()
        );
        eprintln!(
            "{}: {:.0} cycles/s",
            top.name(),
            dut.cycles() as f64 / t.elapsed().as_secs_f64()
        );
        assert_eq!(
            run(&mut dut, &packets, 3, &mut rng),
            0,
            "{}: idle",
            top.name()
        );
    }
}
