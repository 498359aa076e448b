//! Co-simulation of `rtl/roce/roce_parse.sv` (stage `parse`) against the model's `roce::parse`
//! and ICRC check (`rocesec_model::stage::parse`).
//!
//! Stimulus: every frame of the rxe corpus `testbench/captures/*.pcap`; synthetic frames from
//! `roce::build::Builder` for all 256 opcode values (reserved ones included), IPv4/IPv6, 0–2
//! VLAN tags, IPv4 options, Ethernet padding, pad counts 0–3; protected frames from
//! `engine::Protector` in the three modes; and mutations (truncation, byte flips, bad TVer,
//! bad SecHdr, bad pad, wrong port/protocol/EtherType, fragments, IPv6 extension headers, bad
//! ICRC). Beats are sent with
//! random tvalid gaps. Every descriptor field is compared with the model.
#![allow(clippy::unwrap_used)]

use std::collections::VecDeque;
use std::net::IpAddr;

use rocesec_cosim::rtl::roce_parse::{beats, kind, Desc, RoceParse, PARSE_LATENCY};
use rocesec_cosim::rtl::{seed, SplitMix64, Top};
use rocesec_model::engine::Protector;
use rocesec_model::keys::KeyFile;
use rocesec_model::roce::build::Builder;
use rocesec_model::roce::{self, icrc, Frame, NotRoce, ParseError, Service};
use rocesec_model::sechdr::Mode;
use rocesec_model::timing::Params;
use rocesec_model::timing_verify::raw_descriptor;

fn service_code(s: Service) -> u128 {
    match s {
        Service::Rc => 0,
        Service::Uc => 1,
        Service::Rd => 2,
        Service::Ud => 3,
        Service::Cnp => 4,
        Service::Xrc => 5,
        Service::Vendor => 6,
    }
}

/// Compare one RTL descriptor with the model. `Err` names the first differing field.
fn check(frame: &[u8], d: &Desc) -> Result<(), String> {
    macro_rules! eq {
        ($f:ident, $v:expr) => {
            if d.$f != ($v) as u128 {
                return Err(format!(
                    "{}: rtl {:#x} model {:#x}",
                    stringify!($f),
                    d.$f,
                    ($v) as u128
                ));
            }
        };
    }
    eq!(frame_len, frame.len());
    match roce::parse(frame) {
        Ok(Frame::NotRoce(n)) => {
            eq!(kind, kind::NOT_ROCE);
            eq!(
                not_roce,
                match n {
                    NotRoce::NotIp(_) => 0,
                    NotRoce::RoceV1 => 1,
                    NotRoce::NotUdp(_) => 2,
                    NotRoce::OtherPort(_) => 3,
                }
            );
        }
        Err(e) => {
            eq!(kind, kind::MALFORMED);
            eq!(
                err,
                match e {
                    ParseError::Truncated(_) => 1,
                    ParseError::Fragmented => 2,
                    ParseError::BadLength(_) => 3,
                    ParseError::BadIpHeader(_) => 4,
                    ParseError::ReservedOpcode(_) => 5,
                    ParseError::UnknownTVer(_) => 6,
                    ParseError::SecHdr(_) => 7,
                    ParseError::BadPad => 8,
                    ParseError::Ipv6ExtHeader(_) => 9,
                }
            );
        }
        Ok(Frame::Roce(p)) => {
            eq!(kind, kind::ROCE);
            eq!(icrc, icrc::compute(frame, &p));
            eq!(icrc_ok, icrc::check(frame, &p));
            eq!(ipv6, p.ip == roce::IpVersion::V6);
            eq!(vlans, p.vlans);
            eq!(ip_off, p.ip_off);
            eq!(ip_hdr_len, p.ip_hdr_len);
            eq!(udp_off, p.udp_off);
            eq!(bth_off, p.bth_off);
            eq!(ip_end, p.end);
            // length fields as received and the IPv4 header sum of the key stages' rewrite:
            // !fold(ip_sum + total length) must be the header checksum (etherparse, RFC 1071)
            let ip = &frame[p.ip_off..];
            let udp = &frame[p.udp_off..];
            eq!(udp_len, u16::from_be_bytes([udp[4], udp[5]]));
            if p.ip == roce::IpVersion::V6 {
                eq!(ip_len, u16::from_be_bytes([ip[4], ip[5]]));
                eq!(ip_sum, 0);
            } else {
                let h = match etherparse::Ipv4HeaderSlice::from_slice(ip) {
                    Ok(h) => h.to_header(),
                    Err(e) => return Err(format!("etherparse: {e}")),
                };
                eq!(ip_len, h.total_len);
                let s = d.ip_sum + u128::from(h.total_len);
                let s = (s & 0xFFFF) + (s >> 16);
                if (!s & 0xFFFF) as u16 != h.calc_header_checksum() {
                    return Err(format!(
                        "ip_sum: rtl {:#x} gives checksum {:#x}, etherparse {:#x}",
                        d.ip_sum,
                        !s & 0xFFFF,
                        h.calc_header_checksum()
                    ));
                }
            }
            eq!(eth_off, p.eth_off);
            eq!(payload_off, p.payload_off);
            eq!(payload_end, p.payload_end);
            eq!(opcode, p.bth.opcode);
            eq!(se, p.bth.se);
            eq!(migreq, p.bth.migreq);
            eq!(pad, p.bth.pad);
            eq!(tver, p.bth.tver);
            eq!(pkey, p.bth.pkey);
            eq!(byte4, p.bth.byte4);
            eq!(dest_qp, p.bth.dest_qp);
            eq!(ack_req, p.bth.ack_req);
            eq!(resv7, p.bth.resv7);
            eq!(psn, p.bth.psn);
            eq!(service, service_code(p.op.service));
            eq!(eth, p.op.eth);
            eq!(sec_valid, p.sec.is_some());
            if let Some(s) = p.sec {
                eq!(sec_mode, s.mode.code().unwrap_or(0));
                eq!(sec_level, s.level);
                eq!(sec_epoch, s.epoch);
                eq!(sec_pn, s.pn);
            }
            let reth = p.reth(frame);
            let atomic = p.atomic_eth(frame);
            eq!(has_reth, reth.is_some());
            eq!(has_atomic, atomic.is_some());
            if let Some(r) = reth {
                eq!(va, r.va);
                eq!(rkey, r.rkey);
                eq!(dma_len, r.dma_len);
            } else if let Some(a) = atomic {
                eq!(va, a.va);
                eq!(rkey, a.rkey);
                eq!(dma_len, 0);
            }
            let deth = p.deth(frame);
            eq!(has_deth, deth.is_some());
            if let Some(dt) = deth {
                eq!(src_qp, dt.src_qp);
            }
            eq!(dest_gid, u128::from_be_bytes(p.dest_gid(frame)));
        }
    }
    Ok(())
}

/// Every frame of at least 110 bytes, whatever its kind: the fields the verify top's
/// decide-ahead check reads (opcode, SecHdr PN, `sec_valid` and the QP) equal
/// `timing_verify::raw_descriptor`, which reads them at ip_off + 4·IHL (+ 40 for IPv6) even
/// where the IP checks fail. (From 110 bytes on every byte it reads is in the frame: UDP at
/// 82 at most, the PN ends at UDP + 28; shorter frames leave older window bytes in the RTL.)
/// `window`: the build's header window in bytes (`timing::Params::header_window`).
fn check_raw(frame: &[u8], d: &Desc, window: usize) -> Result<(), String> {
    if frame.len() < 110 {
        return Ok(());
    }
    let (qp, pn, op) = raw_descriptor(frame, window);
    let rtl = (d.opcode, d.sec_pn, d.sec_valid);
    let model = (u128::from(op), u128::from(pn), u128::from(qp.is_some()));
    if rtl != model {
        return Err(format!(
            "(opcode, sec_pn, sec_valid): rtl {rtl:x?} model {model:x?}"
        ));
    }
    if let Some((gid, qpn)) = qp {
        let rtl = (d.dest_gid, d.dest_qp);
        let model = (u128::from_be_bytes(gid), u128::from(qpn));
        if rtl != model {
            return Err(format!(
                "(dest_gid, dest_qp): rtl {rtl:x?} model {model:x?}"
            ));
        }
    }
    Ok(())
}

/// Header fields that the early `hdr_valid_o` pulse must already carry for a RoCE frame.
fn same_header(a: &Desc, b: &Desc) -> bool {
    let (mut a, mut b) = (a.clone(), b.clone());
    for d in [&mut a, &mut b] {
        d.kind = 0;
        d.err = 0;
        d.not_roce = 0;
        d.frame_len = 0;
        d.icrc = 0;
        d.icrc_ok = 0;
    }
    a == b
}

struct Stats {
    frames: usize,
    roce: usize,
    protected: usize,
    malformed: usize,
    not_roce: usize,
    bad_icrc: usize,
    cycles: u64,
}

/// Stream `frames` through the DUT with random idle cycles; compare every descriptor.
fn run(dut: &mut RoceParse, frames: &[Vec<u8>], rng: &mut SplitMix64, idle: u64) -> Stats {
    let bb = dut.beat_bytes();
    let window = Params::for_lanes(u32::try_from(bb / 16).expect("lanes"))
        .expect("a built LANES")
        .header_window();
    let mut st = Stats {
        frames: 0,
        roce: 0,
        protected: 0,
        malformed: 0,
        not_roce: 0,
        bad_icrc: 0,
        cycles: 0,
    };
    let mut pending: VecDeque<usize> = VecDeque::new();
    let mut hdr_seen: VecDeque<Desc> = VecDeque::new();
    let mut queue: VecDeque<(usize, rocesec_cosim::rtl::roce_parse::Beat)> = frames
        .iter()
        .enumerate()
        .flat_map(|(i, f)| beats(f, bb).into_iter().map(move |b| (i, b)))
        .collect();
    let start = dut.cycles();
    let mut last_sent: Option<usize> = None;
    let mut drain = 0;
    let mut step = 0u64;
    let mut tlast_steps: VecDeque<u64> = VecDeque::new();
    while !queue.is_empty() || !pending.is_empty() {
        let send = !queue.is_empty() && !rng.chance(idle, 16);
        let beat = if send { queue.pop_front() } else { None };
        if let Some((i, _)) = &beat {
            if last_sent != Some(*i) {
                pending.push_back(*i);
                last_sent = Some(*i);
            }
        }
        if beat.as_ref().is_some_and(|(_, b)| b.last) {
            tlast_steps.push_back(step);
        }
        let out = dut.step(beat.as_ref().map(|(_, b)| b));
        step += 1;
        if let Some(h) = out.hdr {
            assert!(pending.front().is_some(), "hdr pulse without a frame");
            hdr_seen.push_back(h);
        }
        if let Some(d) = out.desc {
            let i = pending.pop_front().expect("descriptor without a frame");
            let t = tlast_steps.pop_front().expect("descriptor without tlast");
            assert_eq!(
                step - 1 - t,
                PARSE_LATENCY,
                "frame {i}: tlast to desc_valid_o latency"
            );
            let f = &frames[i];
            if let Err(e) = check(f, &d) {
                panic!(
                    "frame {i} ({} bytes): {e}\n{}\nmodel: {:?}",
                    f.len(),
                    hex::encode(&f[..f.len().min(160)]),
                    roce::parse(f)
                );
            }
            if let Err(e) = check_raw(f, &d, window) {
                panic!(
                    "frame {i} ({} bytes, kind {}): {e}\n{}",
                    f.len(),
                    d.kind,
                    hex::encode(&f[..f.len().min(160)])
                );
            }
            let h = hdr_seen.pop_front().expect("descriptor without hdr pulse");
            if d.kind == kind::ROCE {
                assert!(
                    same_header(&h, &d),
                    "frame {i}: early header differs\n{h:?}\n{d:?}"
                );
            }
            st.frames += 1;
            match d.kind {
                kind::ROCE => {
                    st.roce += 1;
                    st.protected += usize::from(d.sec_valid == 1);
                    st.bad_icrc += usize::from(d.icrc_ok == 0);
                }
                kind::MALFORMED => st.malformed += 1,
                _ => st.not_roce += 1,
            }
        }
        if queue.is_empty() {
            drain += 1;
            assert!(drain < 100, "descriptors missing");
        }
    }
    st.cycles = dut.cycles() - start;
    st
}

fn random_builder(rng: &mut SplitMix64, opcode: u8) -> Builder {
    let len = match rng.below(4) {
        0 => rng.below(4) as usize,
        1 => rng.below(64) as usize,
        _ => rng.below(1100) as usize,
    };
    let mut payload = vec![0u8; len];
    rng.fill(&mut payload);
    let mut b = Builder::new(opcode, rng.below(1 << 24) as u32, &payload);
    rng.fill(&mut b.ext);
    if rng.chance(1, 3) {
        b.src = IpAddr::from([0xfe80, 0, 0, 0, 0, 0, 0, rng.below(0xffff) as u16]);
        b.dst = IpAddr::from([0x2001, 0xdb8, 0, 0, 0, 0, 0, rng.below(0xffff) as u16]);
    } else {
        b.dst = IpAddr::from((rng.next_u64() as u32).to_be_bytes());
    }
    if rng.chance(1, 4) {
        b.vlan = Some(rng.below(4096) as u16);
    }
    b.bth.dest_qp = rng.below(1 << 24) as u32;
    b.bth.pkey = rng.next_u64() as u16;
    b.bth.se = rng.chance(1, 2);
    b.bth.migreq = rng.chance(1, 2);
    b.bth.ack_req = rng.chance(1, 2);
    b.bth.resv7 = rng.below(128) as u8;
    b.bth.byte4 = rng.next_u64() as u8;
    b.sport = rng.next_u64() as u16;
    b
}

/// Re-lay a valid frame: fix the ICRC after an edit (if it still parses as RoCE).
fn fix_icrc(f: &mut [u8]) {
    if let Ok(Frame::Roce(p)) = roce::parse(f) {
        icrc::fix(f, &p);
    }
}

fn ip_off(f: &[u8]) -> usize {
    let mut o = 12;
    while o + 2 <= f.len() && matches!(u16::from_be_bytes([f[o], f[o + 1]]), 0x8100 | 0x88A8) {
        o += 4;
    }
    o + 2
}

/// Structural variants that stay well-formed: IPv4 options, a second VLAN tag, L2 padding.
fn vary(rng: &mut SplitMix64, mut f: Vec<u8>) -> Vec<u8> {
    let ip = ip_off(&f);
    if rng.chance(1, 6) && f.len() > 16 {
        // QinQ: insert an 802.1ad tag in front of the existing EtherType (or tag).
        let t = [0x88, 0xA8, (rng.below(16)) as u8, rng.next_u64() as u8];
        f.splice(12..12, t);
        if ip_off(&f) > 22 {
            f.drain(12..16);
        }
    }
    let ip = ip_off(&f).max(ip);
    if rng.chance(1, 5) && f.len() > ip + 20 && f[ip] >> 4 == 4 {
        // IPv4 options: k words.
        let k = 1 + rng.below(10) as usize;
        let mut opt = vec![0u8; 4 * k];
        rng.fill(&mut opt);
        f.splice(ip + 20..ip + 20, opt);
        f[ip] = 0x45 + k as u8;
        let t = u16::from_be_bytes([f[ip + 2], f[ip + 3]]) + 4 * k as u16;
        f[ip + 2..ip + 4].copy_from_slice(&t.to_be_bytes());
    }
    if rng.chance(1, 4) {
        let n = rng.below(40) as usize;
        f.extend(std::iter::repeat_n(0u8, n));
    }
    fix_icrc(&mut f);
    f
}

/// Put an 8-byte IPv6 extension header of type `ext` (the IPv6 Next Header) whose own Next
/// Header is `next` between the IPv6 header at `ip` and what follows; the payload length grows
/// by 8 (RFC 8200 §4).
fn insert_ipv6_ext(f: &mut Vec<u8>, ip: usize, ext: u8, next: u8) {
    f[ip + 6] = ext;
    let plen = u16::from_be_bytes([f[ip + 4], f[ip + 5]]).wrapping_add(8);
    f[ip + 4..ip + 6].copy_from_slice(&plen.to_be_bytes());
    f.splice(ip + 40..ip + 40, [next, 0, 1, 4, 0, 0, 0, 0]);
}

/// Mutations that make most frames malformed, not RoCE, or fail the ICRC.
fn mutate(rng: &mut SplitMix64, mut f: Vec<u8>) -> Vec<u8> {
    let ip = ip_off(&f);
    let parsed = roce::parse(&f);
    match rng.below(11) {
        0 => {
            let n = 1 + rng.below(f.len() as u64) as usize;
            f.truncate(n);
        }
        1 => {
            let i = rng.below(f.len().min(120) as u64) as usize;
            f[i] ^= 1 << rng.below(8);
        }
        2 => {
            let i = rng.below(f.len() as u64) as usize;
            f[i] ^= 0xFF; // usually a bad ICRC
        }
        3 => {
            if let Ok(Frame::Roce(p)) = &parsed {
                f[p.bth_off + 1] = (f[p.bth_off + 1] & 0xF0) | (rng.below(16) as u8);
                fix_icrc(&mut f);
            }
        }
        4 => {
            if let Ok(Frame::Roce(p)) = &parsed {
                if p.sec.is_some() {
                    f[p.bth_off + 12] = rng.next_u64() as u8;
                }
                fix_icrc(&mut f);
            }
        }
        5 => {
            if let Ok(Frame::Roce(p)) = &parsed {
                f[p.bth_off + 1] |= 0x30; // pad 3
            }
        }
        6 => {
            if let Ok(Frame::Roce(p)) = &parsed {
                f[p.udp_off + 2] ^= 1 << rng.below(8);
            }
        }
        7 => {
            if f.len() > ip + 10 {
                if f[ip] >> 4 == 4 {
                    f[ip + 9] = if rng.chance(1, 2) { 6 } else { 17 };
                    f[ip + 6] |= if rng.chance(1, 2) { 0x20 } else { 0x01 };
                } else {
                    f[ip + 6] = 6;
                }
            }
        }
        10 => {
            // an IPv6 extension header (or ESP, or a non-extension Next Header) in front of UDP,
            // followed by UDP, ICMPv6 or another extension header; sometimes cut inside it
            if f.len() > ip + 40 && f[ip] >> 4 == 6 {
                let ext = [0u8, 43, 44, 50, 51, 60, 135, 253, 6][rng.below(9) as usize];
                let next = [17u8, 58, 0, 60, 6][rng.below(5) as usize];
                insert_ipv6_ext(&mut f, ip, ext, next);
                if rng.chance(1, 4) {
                    f.truncate(ip + 40 + rng.below(2) as usize);
                }
            }
        }
        8 => {
            let t: u16 = [0x0806, 0x8915, 0x88CC, 0x86DD, 0x0800][rng.below(5) as usize];
            f[ip - 2..ip].copy_from_slice(&t.to_be_bytes());
        }
        _ => {
            if f.len() > ip + 6 {
                let i = ip + 2 + 2 * (rng.below(2) as usize);
                f[i + 1] = f[i + 1].wrapping_add(rng.below(9) as u8).wrapping_sub(4);
            }
        }
    }
    f
}

fn protector(mode: Mode) -> Protector {
    let mut k = KeyFile::demo().unwrap();
    k.force_mode(mode);
    Protector::new(&k).unwrap()
}

fn synthetic(rng: &mut SplitMix64, n: usize) -> Vec<Vec<u8>> {
    let mut prot = [
        protector(Mode::HeaderAuth),
        protector(Mode::PacketAuth),
        protector(Mode::Aead),
    ];
    let valid: Vec<u8> = (0..=255u8)
        .filter(|&c| rocesec_model::roce::opcode::info(c).is_some())
        .collect();
    let mut out = Vec::new();
    for i in 0..n {
        let opcode = if i < 256 {
            i as u8
        } else if rng.chance(1, 16) {
            rng.next_u64() as u8
        } else {
            valid[rng.below(valid.len() as u64) as usize]
        };
        let b = random_builder(rng, opcode);
        let mut f = b.build();
        if rng.chance(1, 2) {
            let m = rng.below(3) as usize;
            if let Ok((_, g)) = prot[m].protect(&f) {
                f = g;
            }
        }
        f = vary(rng, f);
        if rng.chance(1, 4) {
            f = mutate(rng, f);
        }
        if f.is_empty() {
            f.push(0);
        }
        out.push(f);
    }
    // Every IPv6 extension-header case of the model (roce::frame::is_ipv6_ext) once: an
    // extension header (or ESP, or TCP) in front of UDP, followed by UDP, ICMPv6, TCP or another
    // extension header, whole and cut after 0 or 1 of its bytes.
    let mut v6 = Builder::new(0x04, 9, &[0xA5; 24]);
    v6.src = "fd00::2".parse().unwrap();
    v6.dst = "fd00::1".parse().unwrap();
    let base = v6.build();
    for ext in [0u8, 43, 44, 50, 51, 60, 135, 139, 140, 253, 254, 6] {
        for next in [17u8, 58, 6, 0, 43, 60, 254] {
            let mut f = base.clone();
            insert_ipv6_ext(&mut f, 14, ext, next);
            out.push(f[..54].to_vec());
            out.push(f[..55].to_vec());
            out.push(f);
        }
    }
    // A few tiny and odd frames.
    for n in [1usize, 13, 14, 17, 18, 21, 33, 34, 41, 53] {
        let mut f = vec![0u8; n];
        rng.fill(&mut f);
        if n >= 14 {
            f[12] = 0x08;
            f[13] = 0x00;
        }
        out.push(f);
    }
    out
}

fn corpus() -> Vec<Vec<u8>> {
    rocesec_model::cli::default_corpus()
        .iter()
        .flat_map(|p| rocesec_model::pcapio::read(p).unwrap())
        .map(|r| r.data)
        .collect()
}

fn report(name: &str, s: &Stats) {
    eprintln!(
        "{name}: {} frames compared ({} RoCE of which {} protected and {} bad ICRC, {} malformed, \
         {} not RoCE) in {} cycles",
        s.frames, s.roce, s.protected, s.bad_icrc, s.malformed, s.not_roce, s.cycles
    );
}

fn corpus_on(top: Top) {
    let frames = corpus();
    assert!(!frames.is_empty(), "no capture corpus");
    let mut rng = SplitMix64::new(seed(0x9a25e));
    let mut dut = RoceParse::new(top);
    let s = run(&mut dut, &frames, &mut rng, 4);
    report(&format!("{top:?} corpus"), &s);
    assert_eq!(s.frames, frames.len());
    assert_eq!(s.bad_icrc, 0, "every captured frame has a valid ICRC");
    // Back to back, no gaps.
    let s = run(&mut dut, &frames, &mut rng, 0);
    assert_eq!(s.frames, frames.len());
}

fn synthetic_on(top: Top) {
    let mut rng = SplitMix64::new(seed(0x0009_a25e_5117));
    let frames = synthetic(&mut rng, 3000);
    let mut dut = RoceParse::new(top);
    let s = run(&mut dut, &frames, &mut rng, 5);
    report(&format!("{top:?} synthetic"), &s);
    assert_eq!(s.frames, frames.len());
    assert!(s.roce > 1000 && s.protected > 300 && s.malformed > 100 && s.not_roce > 50);
    let s = run(&mut dut, &frames, &mut rng, 0);
    assert_eq!(s.frames, frames.len());
}

#[test]
fn corpus_lanes1() {
    corpus_on(Top::RoceParse1);
}

#[test]
fn synthetic_lanes1() {
    synthetic_on(Top::RoceParse1);
}

#[test]
fn corpus_lanes4() {
    corpus_on(Top::RoceParse4);
}

#[test]
fn synthetic_lanes4() {
    synthetic_on(Top::RoceParse4);
}
