//! `rtl/top/rocesec_ghash_feed_wide.sv` (stage `crypto`, GHASH for beats of LANES > 1 blocks)
//! against the model's GHASH (`rocesec_model::ghash`, SP 800-38D §6.4).
//!
//! - Protected corpus frames (all three modes, from the model's `Protector`): the expected
//!   message is built with the model's own AAD (`stage::emit::header_aad`, the invariant view of
//!   IBTA Vol 1 Annex A17.8), back to back: every hash, every byte out, 1.000 beat/cycle.
//! - Random layouts (IPv4/IPv6, VLAN tags, IPv4 options, every payload alignment and length
//!   0..300, idle input and output backpressure), LANES 2 and 4.
//! - Worst-case beats: layouts where LANES + 2 data blocks and the length block end in one beat,
//!   back to back, must not stall.

use rocesec_cosim::rtl::ghash_feed_wide::{FeedFrame, FeedRun, GhashFeedWide};
use rocesec_cosim::rtl::{SplitMix64, Top};
use rocesec_model::ghash::Ghash;
use rocesec_model::keys::KeyFile;
use rocesec_model::roce::{self, Frame, IpVersion};
use rocesec_model::sechdr::Mode;
use rocesec_model::stage::emit::header_aad;

fn corpus() -> Vec<Vec<u8>> {
    rocesec_model::cli::default_corpus()
        .iter()
        .flat_map(|p| rocesec_model::pcapio::read(p).expect("corpus pcap"))
        .map(|r| r.data)
        .collect()
}

/// GHASH_H(A ‖ pad ‖ C ‖ pad ‖ [len A]_64 ‖ [len C]_64) with the model's GHASH.
fn ghash(h: &[u8; 16], a: &[u8], c: &[u8]) -> [u8; 16] {
    let mut g = Ghash::new(h);
    g.update_padded(a);
    g.update_padded(c);
    g.finalize_with_lengths(8 * a.len() as u64, 8 * c.len() as u64)
}

/// A protected frame as the block sees it, with the model's expected GHASH.
fn from_protected(b: &[u8], h: [u8; 16]) -> (FeedFrame, [u8; 16]) {
    let Ok(Frame::Roce(p)) = roce::parse(b) else {
        panic!("protected frame does not parse");
    };
    let sec = p.sec.expect("SecHdr");
    let mut aad = header_aad(b, &p);
    let pay = &b[p.payload_off..p.payload_end];
    let exp = match sec.mode {
        Mode::HeaderAuth => ghash(&h, &aad, &[]),
        Mode::PacketAuth => {
            aad.extend_from_slice(pay);
            ghash(&h, &aad, &[])
        }
        Mode::Aead => ghash(&h, &aad, pay),
        Mode::Bypass => unreachable!(),
    };
    let f = FeedFrame {
        bytes: b.to_vec(),
        active: true,
        mode: sec.mode.code().unwrap_or(0),
        ipv6: p.ip == IpVersion::V6,
        ip_off: p.ip_off as u8,
        udp_off: p.udp_off as u8,
        bth_off: p.bth_off as u8,
        cstart: p.payload_off as u32,
        cend: p.payload_end as u32,
        h,
    };
    (f, exp)
}

/// The expected GHASH of a synthetic frame: the invariant fields forced to ones
/// (docs/wire-format.md §4), AAD [ip_off, cstart) or [ip_off, cend), C [cstart, cend) in AEAD.
fn expected(f: &FeedFrame) -> [u8; 16] {
    let mut m = f.bytes.clone();
    let ip = usize::from(f.ip_off);
    if f.ipv6 {
        m[ip] |= 0x0F;
        for o in [1, 2, 3, 7] {
            m[ip + o] = 0xFF;
        }
    } else {
        for o in [1, 8, 10, 11] {
            m[ip + o] = 0xFF;
        }
    }
    m[usize::from(f.udp_off) + 6] = 0xFF;
    m[usize::from(f.udp_off) + 7] = 0xFF;
    m[usize::from(f.bth_off) + 4] = 0xFF;
    let (cs, ce) = (f.cstart as usize, f.cend as usize);
    match f.mode {
        1 => ghash(&f.h, &m[ip..cs], &[]),
        2 => ghash(&f.h, &m[ip..ce], &[]),
        _ => ghash(&f.h, &m[ip..cs], &m[cs..ce]),
    }
}

fn random_frame(rng: &mut SplitMix64) -> FeedFrame {
    let vlans = rng.below(3) as usize;
    let ipv6 = rng.chance(1, 3);
    let ip_off = 14 + 4 * vlans;
    let ip_len = if ipv6 {
        40
    } else {
        20 + 4 * rng.below(11) as usize
    };
    let udp_off = ip_off + ip_len;
    let bth_off = udp_off + 8;
    // SecHdr (8) and 0..32 bytes of extended headers
    let cstart = bth_off + 12 + 8 + 4 * rng.below(9) as usize;
    let plen = if rng.chance(1, 4) {
        0
    } else {
        rng.below(300) as usize
    };
    let cend = cstart + plen;
    let trailer = rng.below(24) as usize;
    let len = cend + 20 + trailer;
    let mut bytes = vec![0u8; len];
    rng.fill(&mut bytes);
    FeedFrame {
        bytes,
        active: !rng.chance(1, 8),
        mode: 1 + rng.below(3) as u8,
        ipv6,
        ip_off: ip_off as u8,
        udp_off: udp_off as u8,
        bth_off: bth_off as u8,
        cstart: cstart as u32,
        cend: cend as u32,
        h: rng.block(),
    }
}

/// Every hash in frame order with the expected value, every frame out unchanged.
fn check(name: &str, frames: &[FeedFrame], exp: &[Option<[u8; 16]>], r: &FeedRun) {
    assert_eq!(r.out.len(), frames.len(), "{name}: frames out");
    for (i, (o, f)) in r.out.iter().zip(frames).enumerate() {
        assert_eq!(o, &f.bytes, "{name}: frame {i} changed on its way through");
    }
    assert_eq!(r.bad_sideband, 0, "{name}: slot / beat index out of step");
    let want: Vec<(usize, [u8; 16])> = exp
        .iter()
        .enumerate()
        .filter_map(|(i, e)| e.map(|h| (i, h)))
        .collect();
    assert_eq!(r.hashes.len(), want.len(), "{name}: number of hashes");
    for (g, w) in r.hashes.iter().zip(&want) {
        assert_eq!(g.0, w.0, "{name}: hash order");
        assert_eq!(g.1, w.1, "{name}: GHASH of frame {}", w.0);
    }
}

fn corpus_run(top: Top, mode: Mode, take: usize, seed: u64) {
    let mut keys = KeyFile::demo().expect("demo key file");
    keys.force_mode(mode);
    let plain: Vec<Vec<u8>> = corpus().into_iter().take(take).collect();
    let prot = rocesec_cosim::job_verify::protect_all(&keys, &plain);
    assert!(prot.len() > take / 2, "too few protected frames");
    let mut rng = SplitMix64::new(seed);
    let (frames, exp): (Vec<FeedFrame>, Vec<[u8; 16]>) =
        prot.iter().map(|b| from_protected(b, rng.block())).unzip();
    let exp: Vec<Option<[u8; 16]>> = exp.into_iter().map(Some).collect();
    let mut dut = GhashFeedWide::new(top);
    let r = dut.run(&frames, (0, 1), (0, 1), seed);
    let name = format!("{} {mode:?}", top.name());
    check(&name, &frames, &exp, &r);
    let bpc = r.in_beats as f64 / r.in_span as f64;
    println!(
        "{name}: {} frames, {} beats in {} cycles: {bpc:.3} beats/cycle, queue stalls {}, \
         hash latency {}..{} cycles",
        frames.len(),
        r.in_beats,
        r.in_span,
        r.queue_stalls,
        r.hash_latency.iter().min().unwrap_or(&0),
        r.hash_latency.iter().max().unwrap_or(&0)
    );
    assert_eq!(r.slot_waits, 0, "{name}: the driver's job table was full");
    assert_eq!(r.queue_stalls, 0, "{name}: the block stalled the stream");
    assert_eq!(r.in_beats, r.in_span, "{name}: not 1 beat/cycle");
}

#[test]
fn corpus_lanes_4_all_modes_line_rate() {
    for (i, mode) in [Mode::Aead, Mode::PacketAuth, Mode::HeaderAuth]
        .into_iter()
        .enumerate()
    {
        corpus_run(
            Top::RocesecGhashFeedWide4,
            mode,
            700,
            0x6a5f_0001 + i as u64,
        );
    }
}

#[test]
fn corpus_lanes_2_aead_line_rate() {
    corpus_run(Top::RocesecGhashFeedWide2, Mode::Aead, 500, 0x6a5f_0002);
}

fn random_run(top: Top, n: usize, idle: (u64, u64), stall: (u64, u64), seed: u64) {
    let mut rng = SplitMix64::new(seed);
    let frames: Vec<FeedFrame> = (0..n).map(|_| random_frame(&mut rng)).collect();
    let exp: Vec<Option<[u8; 16]>> = frames
        .iter()
        .map(|f| f.active.then(|| expected(f)))
        .collect();
    let mut dut = GhashFeedWide::new(top);
    let r = dut.run(&frames, idle, stall, seed);
    check(
        &format!("{} idle {idle:?} stall {stall:?}", top.name()),
        &frames,
        &exp,
        &r,
    );
}

#[test]
fn random_layouts_lanes_4() {
    random_run(Top::RocesecGhashFeedWide4, 400, (0, 1), (0, 1), 0x6a5f_1001);
    random_run(Top::RocesecGhashFeedWide4, 300, (1, 4), (1, 3), 0x6a5f_1002);
    random_run(Top::RocesecGhashFeedWide4, 200, (3, 4), (3, 4), 0x6a5f_1003);
}

#[test]
fn random_layouts_lanes_2() {
    random_run(Top::RocesecGhashFeedWide2, 400, (0, 1), (0, 1), 0x6a5f_2001);
    random_run(Top::RocesecGhashFeedWide2, 300, (1, 4), (1, 3), 0x6a5f_2002);
}

/// The densest beats: with one VLAN tag (ip_off 18) and LANES = 4, beat 1 (bytes 64..128) can
/// hold AAD blocks ending at 66 and 82, the last AAD block ending at 84, ciphertext blocks
/// ending at 100 and 116, the last ciphertext block and the length block: LANES + 3 blocks.
/// Swept over 0–2 VLAN tags, every extended-header length and every payload length up to a
/// beat and more, back to back: no stall allowed.
#[test]
fn dense_beats_back_to_back() {
    for top in [Top::RocesecGhashFeedWide4, Top::RocesecGhashFeedWide2] {
        let bb = 16 * GhashFeedWide::new(top).lanes();
        let mut rng = SplitMix64::new(0x6a5f_3001);
        let mut frames = Vec::new();
        for (vlans, ext) in (0..3usize).flat_map(|v| (0..9usize).map(move |e| (v, e))) {
            for plen in 0..=(bb + 20) {
                let ip_off = 14 + 4 * vlans;
                let udp_off = ip_off + 20;
                let bth_off = udp_off + 8;
                let cstart = bth_off + 20 + 4 * ext;
                let cend = cstart + plen;
                let mut bytes = vec![0u8; cend + 20];
                rng.fill(&mut bytes);
                frames.push(FeedFrame {
                    bytes,
                    active: true,
                    mode: 3,
                    ipv6: false,
                    ip_off: ip_off as u8,
                    udp_off: udp_off as u8,
                    bth_off: bth_off as u8,
                    cstart: cstart as u32,
                    cend: cend as u32,
                    h: rng.block(),
                });
            }
        }
        let exp: Vec<Option<[u8; 16]>> = frames.iter().map(|f| Some(expected(f))).collect();
        let mut dut = GhashFeedWide::new(top);
        let r = dut.run(&frames, (0, 1), (0, 1), 1);
        let name = format!("{} dense", top.name());
        check(&name, &frames, &exp, &r);
        println!(
            "{name}: {} frames, {} beats in {} cycles, queue stalls {}",
            frames.len(),
            r.in_beats,
            r.in_span,
            r.queue_stalls
        );
        assert_eq!(r.queue_stalls, 0, "{name}: the block stalled the stream");
        assert_eq!(r.slot_waits, 0, "{name}: the driver's job table was full");
        assert_eq!(r.in_beats, r.in_span, "{name}: not 1 beat/cycle");
    }
}
