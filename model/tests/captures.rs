//! The model on real Soft-RoCE (rxe) traffic: every packet of every committed capture in
//! `testbench/captures/` parses with a valid ICRC; protect → verify round-trips byte for byte in
//! the three modes; single-bit flips of authenticated bytes, replays and VAs moved out of their
//! sub-region are rejected; flips of masked (variant) fields still verify.

use rocesec_model::engine::{Protector, Verifier};
use rocesec_model::keys::KeyFile;
use rocesec_model::pcapio;
use rocesec_model::roce::{self, icrc, Frame, IpVersion, Packet};
use rocesec_model::sechdr::{Mode, ICV_LEN};
use rocesec_model::verdict::{Forward, Reason};

const MODES: [Mode; 3] = [Mode::HeaderAuth, Mode::PacketAuth, Mode::Aead];

/// Frames of every capture, per file.
fn corpus() -> Vec<(String, Vec<Vec<u8>>)> {
    let files = rocesec_model::cli::default_corpus();
    assert!(
        files.len() >= 5,
        "expected the rxe corpus in testbench/captures, found {} pcaps",
        files.len()
    );
    files
        .into_iter()
        .map(|p| {
            let recs = pcapio::read(&p).unwrap_or_else(|e| panic!("{e}"));
            (
                p.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                recs.into_iter().map(|r| r.data).collect(),
            )
        })
        .collect()
}

fn layout(f: &[u8]) -> Option<Packet> {
    match roce::parse(f) {
        Ok(Frame::Roce(p)) => Some(p),
        _ => None,
    }
}

fn engines(mode: Mode) -> (Protector, Verifier) {
    let mut k = KeyFile::demo().expect("demo keys");
    k.force_mode(mode);
    (
        Protector::new(&k).expect("tx"),
        Verifier::new(&k).expect("rx"),
    )
}

#[test]
fn every_captured_packet_parses_with_a_valid_icrc() {
    let (mut roce, mut other) = (0, 0);
    for (name, frames) in corpus() {
        for (i, f) in frames.iter().enumerate() {
            match roce::parse(f) {
                Ok(Frame::Roce(p)) => {
                    assert!(icrc::check(f, &p), "{name} #{i}: bad ICRC");
                    roce += 1;
                }
                Ok(Frame::NotRoce(_)) => other += 1,
                Err(e) => panic!("{name} #{i}: {e}"),
            }
        }
    }
    println!("corpus: {roce} RoCEv2 packets with valid ICRC, {other} other frames");
    assert!(roce > 100);
}

#[test]
fn protect_verify_round_trips_on_captures_in_every_mode() {
    let corpus = corpus();
    for mode in MODES {
        let mut n = 0;
        for (name, frames) in &corpus {
            let (mut tx, mut rx) = engines(mode);
            for (i, f) in frames.iter().enumerate() {
                let (fw, prot) = tx
                    .protect(f)
                    .unwrap_or_else(|r| panic!("{name} #{i}: protect {r}"));
                let (_, back) = rx
                    .verify(&prot)
                    .unwrap_or_else(|r| panic!("{mode} {name} #{i}: verify {r}"));
                assert_eq!(&back, f, "{mode} {name} #{i}: round trip differs");
                if fw == Forward::Processed {
                    n += 1;
                }
            }
        }
        println!("{mode}: {n} captured packets protected and verified byte-exact");
        assert!(n > 100);
    }
}

fn repair(m: &mut [u8]) {
    if let Some(p) = layout(m) {
        if p.ip == IpVersion::V4 {
            let ip = p.ip_off;
            if let Ok(h) = etherparse::Ipv4HeaderSlice::from_slice(&m[ip..]) {
                let c = h.to_header().calc_header_checksum().to_be_bytes();
                m[ip + 10..ip + 12].copy_from_slice(&c);
            }
        }
        icrc::fix(m, &p);
    }
}

/// Authenticated byte offsets of a protected packet in `mode` (masked fields excluded).
fn authenticated(p: &Packet, mode: Mode) -> Vec<usize> {
    let ip = p.ip_off;
    let masked = |b: usize| {
        let r = b - ip;
        let ipm = b < p.udp_off
            && match p.ip {
                IpVersion::V4 => matches!(r, 1 | 8 | 10 | 11),
                IpVersion::V6 => r < 4 || r == 7,
            };
        ipm || b == p.udp_off + 6 || b == p.udp_off + 7 || b == p.bth_off + 4
    };
    let end = if mode == Mode::HeaderAuth {
        p.payload_off
    } else {
        p.payload_end
    };
    (ip..end)
        .chain(p.payload_end..p.payload_end + ICV_LEN)
        .filter(|&b| !masked(b))
        .collect()
}

#[test]
fn tampering_replay_and_out_of_range_are_rejected_on_captures() {
    let corpus = corpus();
    let (mut flips, mut replays, mut ranges, mut masked_ok) = (0u64, 0u64, 0u64, 0u64);
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for mode in MODES {
        for (name, frames) in &corpus {
            let (mut tx, mut rx) = engines(mode);
            for (i, f) in frames.iter().enumerate() {
                let (fw, prot) = tx.protect(f).expect("protect");
                if fw != Forward::Processed {
                    rx.verify(&prot).expect("pass-through");
                    continue;
                }
                let p = layout(&prot).expect("protected RoCE");
                let before = rx.clone();
                // Single-bit flips of authenticated bytes (16 random ones per packet).
                let auth = authenticated(&p, mode);
                for _ in 0..16 {
                    let b = auth[(rnd() % auth.len() as u64) as usize];
                    let mut m = prot.clone();
                    m[b] ^= 1 << (rnd() % 8);
                    repair(&mut m);
                    let v = before.clone().verify(&m);
                    assert!(
                        matches!(v, Err(_) | Ok((Forward::NotRoce, _))),
                        "{mode} {name} #{i}: flip at byte {b} accepted"
                    );
                    flips += 1;
                }
                // A VA moved into the next node, and across the node's edge.
                if let Some(r) = p.reth(&prot) {
                    let level = p.sec.map_or(0, |s| s.level);
                    let size = 1u64 << (12 + level.min(51) as u32);
                    for va in [r.va.wrapping_add(size), (r.va | (size - 1)).wrapping_sub(0)] {
                        if va == r.va {
                            continue;
                        }
                        let mut m = prot.clone();
                        m[p.eth_off..p.eth_off + 8].copy_from_slice(&va.to_be_bytes());
                        repair(&mut m);
                        let v = before.clone().verify(&m);
                        assert!(
                            matches!(v, Err(Reason::OutOfRange) | Err(Reason::AuthFail)),
                            "{mode} {name} #{i}: VA {va:#x} gave {v:?}"
                        );
                        ranges += 1;
                    }
                }
                // Masked fields may change in flight: ECN CE and TTL / hop limit.
                let mut m = prot.clone();
                match p.ip {
                    IpVersion::V4 => {
                        m[p.ip_off + 1] |= 3;
                        m[p.ip_off + 8] = m[p.ip_off + 8].wrapping_sub(1);
                    }
                    IpVersion::V6 => {
                        m[p.ip_off + 1] |= 0x30;
                        m[p.ip_off + 7] = m[p.ip_off + 7].wrapping_sub(1);
                    }
                }
                repair(&mut m);
                assert!(
                    before.clone().verify(&m).is_ok(),
                    "{mode} {name} #{i}: masked change rejected"
                );
                masked_ok += 1;
                // The real packet verifies, then its replay is rejected.
                rx.verify(&prot)
                    .unwrap_or_else(|r| panic!("{mode} {name} #{i}: {r}"));
                assert_eq!(
                    rx.verify(&prot).map(|_| ()),
                    Err(Reason::Replay),
                    "{mode} {name} #{i}"
                );
                replays += 1;
            }
        }
    }
    println!(
        "captures: {flips} bit flips rejected, {replays} replays rejected, {ranges} moved VAs \
         rejected, {masked_ok} masked-field changes accepted"
    );
    assert!(flips > 1000 && replays > 100 && ranges > 10);
}
