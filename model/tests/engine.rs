//! Engine tests on synthetic RoCEv2 frames: protect → verify round trips in the three modes, every
//! authenticated bit flip rejected, replay, out-of-range VA, epochs, policy, and the RoCE pitfalls
//! (pad, zero length, segmentation, PSN wrap, MigReq, IPv6, VLAN).

use rocesec_model::engine::{Protector, Verifier};
use rocesec_model::keys::{gid_of, KeyFile};
use rocesec_model::roce::build::Builder;
use rocesec_model::roce::{self, icrc, Frame, IpVersion, Packet};
use rocesec_model::sechdr::{Mode, OVERHEAD};
use rocesec_model::verdict::{Forward, Reason};

const MODES: [Mode; 3] = [Mode::HeaderAuth, Mode::PacketAuth, Mode::Aead];

fn keys(mode: Mode) -> KeyFile {
    let mut k = KeyFile::demo().expect("demo keys");
    k.force_mode(mode);
    k
}

fn pair(mode: Mode) -> (Protector, Verifier) {
    let k = keys(mode);
    (
        Protector::new(&k).expect("tx"),
        Verifier::new(&k).expect("rx"),
    )
}

fn layout(f: &[u8]) -> Packet {
    match roce::parse(f) {
        Ok(Frame::Roce(p)) => p,
        other => panic!("not RoCE: {other:?}"),
    }
}

/// A mixed message sequence: SEND, WRITE First/Middle/Last, READ request/responses, ACK, atomics.
fn traffic() -> Vec<Vec<u8>> {
    let mut v = Vec::new();
    let psn = std::cell::Cell::new(0xFF_FFFDu32); // crosses the 24-bit PSN wrap
    let next = || {
        let p = psn.get();
        psn.set((p + 1) & 0xFF_FFFF);
        p
    };
    let pl = |n: usize| (0..n).map(|i| (i * 7 + 3) as u8).collect::<Vec<u8>>();
    v.push(Builder::new(0x04, next(), &pl(64)).build()); // SEND Only
    v.push(Builder::new(0x04, next(), &pl(1)).build()); // pad 3
    v.push(Builder::new(0x04, next(), &pl(2)).build()); // pad 2
    v.push(Builder::new(0x04, next(), &pl(3)).build()); // pad 1
    v.push(Builder::new(0x04, next(), &[]).build()); // zero-length SEND
    v.push(
        Builder::new(0x06, next(), &pl(1024))
            .reth(0x7f00_0000_1000, 0x1234, 3000)
            .build(),
    );
    v.push(Builder::new(0x07, next(), &pl(1024)).build());
    v.push(Builder::new(0x08, next(), &pl(952)).build());
    v.push(
        Builder::new(0x0A, next(), &[])
            .reth(0x7f00_0000_0000, 0x1234, 0)
            .build(),
    ); // zero WRITE
    v.push(
        Builder::new(0x0B, next(), &pl(8))
            .reth(0x7f00_0000_2000, 0x1234, 8)
            .build(),
    );
    v.push(
        Builder::new(0x0C, next(), &[])
            .reth(0x7f00_0000_3000, 0x1234, 2048)
            .build(),
    );
    v.push(
        Builder::new(0x0C, next(), &[])
            .reth(0x7f00_0000_3000, 0x1234, 0)
            .build(),
    ); // zero READ
    let rsp = |op: u8, n: usize| {
        let mut b = Builder::new(op, next(), &pl(n));
        b.src = "10.0.0.1".parse().expect("ip");
        b.dst = "10.0.0.2".parse().expect("ip");
        b.bth.dest_qp = 0x12;
        b.build()
    };
    v.push(rsp(0x0D, 1024));
    v.push(rsp(0x0E, 1024));
    v.push(rsp(0x0F, 5));
    v.push(rsp(0x10, 0));
    v.push(rsp(0x11, 0)); // ACK
    v.push(Builder::new(0x13, next(), &[]).build()); // CmpSwap, VA 0
    v.push(Builder::new(0x14, next(), &[]).build()); // FetchAdd
    v.push(rsp(0x12, 0)); // Atomic ACK
    let mut ud = Builder::new(0x64, next(), &pl(100));
    ud.ext[7] = 0x33; // DETH SrcQP
    v.push(ud.build());
    let mut v6 = Builder::new(0x04, next(), &pl(33));
    v6.src = "fd00::2".parse().expect("ip");
    v6.dst = "fd00::1".parse().expect("ip");
    v.push(v6.build());
    let mut vl = Builder::new(0x0A, next(), &pl(16)).reth(0x1000, 0x99, 16);
    vl.vlan = Some(100);
    v.push(vl.build());
    v
}

#[test]
fn synthetic_frames_parse_with_valid_icrc() {
    for f in traffic() {
        let p = layout(&f);
        assert!(icrc::check(&f, &p), "builder ICRC");
    }
}

#[test]
fn protect_verify_round_trips_in_every_mode() {
    for mode in MODES {
        let (mut tx, mut rx) = pair(mode);
        for f in traffic() {
            let (fw, prot) = tx.protect(&f).expect("protect");
            assert_eq!(fw, Forward::Processed);
            assert_eq!(
                prot.len(),
                f.len() + OVERHEAD,
                "overhead is {OVERHEAD} bytes"
            );
            let p = layout(&prot);
            assert!(icrc::check(&prot, &p), "protected frame has a valid ICRC");
            assert_eq!(p.bth.tver, 1);
            let (_, plain) = rx.verify(&prot).unwrap_or_else(|r| panic!("{mode}: {r}"));
            assert_eq!(plain, f, "{mode}: round trip is byte exact");
        }
        assert_eq!(rx.counters.total_rejected(), 0);
    }
}

#[test]
fn aead_hides_payload_and_auth_modes_do_not() {
    let f = Builder::new(0x04, 1, b"attack at dawn, bring the RDMA key").build();
    for mode in MODES {
        let (mut tx, _) = pair(mode);
        let (_, prot) = tx.protect(&f).expect("protect");
        let clear = prot.windows(14).any(|w| w == b"attack at dawn");
        assert_eq!(clear, mode != Mode::Aead, "{mode}");
    }
}

/// Attacker model: flip a bit, then repair what is not cryptographic (IPv4 header checksum,
/// ICRC), so that the rejection comes from rocesec and not from a CRC.
fn flip_and_repair(prot: &[u8], byte: usize, bit: u8) -> Vec<u8> {
    let mut m = prot.to_vec();
    m[byte] ^= 1 << bit;
    if let Ok(Frame::Roce(p)) = roce::parse(&m) {
        if p.ip == IpVersion::V4 {
            let ip = p.ip_off;
            m[ip + 10] = 0;
            m[ip + 11] = 0;
            if let Ok(h) = etherparse::Ipv4HeaderSlice::from_slice(&m[ip..]) {
                let c = h.to_header().calc_header_checksum().to_be_bytes();
                m[ip + 10..ip + 12].copy_from_slice(&c);
            }
        }
        icrc::fix(&mut m, &p);
    }
    m
}

fn masked(p: &Packet, byte: usize) -> bool {
    let ip = p.ip_off;
    let rel = byte.wrapping_sub(ip);
    let in_ip = byte >= ip && byte < p.udp_off;
    let ip_masked = match p.ip {
        IpVersion::V4 => in_ip && matches!(rel, 1 | 8 | 10 | 11),
        IpVersion::V6 => in_ip && (rel < 4 || rel == 7), // version nibble: parse fails anyway
    };
    ip_masked
        || byte == p.udp_off + 6
        || byte == p.udp_off + 7
        || byte == p.bth_off + 4
        || byte >= p.icrc_off()
}

#[test]
fn every_authenticated_bit_flip_is_rejected() {
    let frames = traffic();
    let mut rejected = 0u64;
    for mode in MODES {
        let (mut tx, mut rx) = pair(mode);
        for (i, f) in frames.iter().enumerate() {
            let (_, prot) = tx.protect(f).expect("protect");
            let before = rx.clone();
            assert!(rx.verify(&prot).is_ok());
            if i % 2 == 1 {
                continue; // every other frame keeps the test fast
            }
            let p = layout(&prot);
            let authenticated_end = match mode {
                Mode::HeaderAuth => p.payload_off,
                _ => p.payload_end,
            };
            for byte in p.ip_off..prot.len() {
                let covered = (byte < authenticated_end
                    || (p.payload_end..p.payload_end + 16).contains(&byte))
                    && !masked(&p, byte);
                if !covered {
                    continue;
                }
                for bit in 0..8 {
                    let m = flip_and_repair(&prot, byte, bit);
                    let mut rx = before.clone();
                    // Rejected, or no longer RoCEv2 for anyone (e.g. IHL or UDP port changed):
                    // then it is forwarded as non-RoCE and no RoCE receiver processes it.
                    let v = rx.verify(&m);
                    assert!(
                        matches!(v, Err(_) | Ok((Forward::NotRoce, _))),
                        "{mode}: flip of byte {byte} bit {bit} was accepted"
                    );
                    rejected += 1;
                }
            }
        }
    }
    println!("{rejected} single-bit flips of authenticated bytes, all rejected");
    assert!(rejected > 10_000, "only {rejected} flips tried");
}

#[test]
fn masked_fields_may_change_in_flight() {
    let f = Builder::new(0x04, 7, &[1, 2, 3, 4, 5]).build();
    for mode in MODES {
        let (mut tx, mut rx) = pair(mode);
        let (_, prot) = tx.protect(&f).expect("protect");
        let p = layout(&prot);
        // ECN CE marking (TOS), TTL decrement, FECN/BECN in BTH byte 4.
        let mut m = flip_and_repair(&prot, p.ip_off + 1, 0);
        m = flip_and_repair(&m, p.ip_off + 1, 1);
        m = flip_and_repair(&m, p.ip_off + 8, 3);
        m = flip_and_repair(&m, p.bth_off + 4, 7);
        let (_, plain) = rx.verify(&m).unwrap_or_else(|r| panic!("{mode}: {r}"));
        assert_eq!(
            plain[p.ip_off + 1],
            f[p.ip_off + 1] ^ 3,
            "ECN change passed through"
        );
        assert_eq!(
            plain[p.ip_off + 8],
            f[p.ip_off + 8] ^ 8,
            "TTL change passed through"
        );
    }
}

#[test]
fn replay_is_rejected() {
    let f = Builder::new(0x04, 1, &[9; 40]).build();
    for mode in MODES {
        let (mut tx, mut rx) = pair(mode);
        let (_, prot) = tx.protect(&f).expect("protect");
        assert!(rx.verify(&prot).is_ok());
        assert_eq!(rx.verify(&prot), Err(Reason::Replay));
        assert_eq!(rx.counters.rejected_for(Reason::Replay), 1);
    }
}

/// `Verifier::release_qp` forgets a QP's state: its window (an old frame is accepted once
/// more, the documented price of a release), its WRITE continuation key (a WRITE Last after the
/// release has no key) and nothing of the other QPs.
#[test]
fn a_released_qp_forgets_its_window_and_continuation() {
    let (mut tx, mut rx) = pair(Mode::Aead);
    let mut a = Builder::new(0x04, 1, &[9; 40]);
    a.bth.dest_qp = 0x11;
    let mut b = Builder::new(0x04, 1, &[9; 40]);
    b.bth.dest_qp = 0x22;
    let first = Builder::new(0x06, 2, &[1; 64]).reth(0x2000, 9, 128).build();
    let last = Builder::new(0x08, 3, &[2; 64]).build();
    let (_, pa) = tx.protect(&a.build()).expect("a");
    let (_, pb) = tx.protect(&b.build()).expect("b");
    let (_, pf) = tx.protect(&first).expect("first");
    let (_, pl) = tx.protect(&last).expect("last");
    for f in [&pa, &pb, &pf] {
        assert!(rx.verify(f).is_ok());
    }
    let id = |f: &[u8]| {
        let p = layout(f);
        (p.dest_gid(f), p.bth.dest_qp)
    };
    assert_eq!(rx.verify(&pa), Err(Reason::Replay));
    assert!(rx.release_qp(id(&pa)));
    assert!(!rx.release_qp(id(&pa)), "no state left to release");
    assert!(rx.verify(&pa).is_ok(), "the window went with the state");
    assert_eq!(rx.verify(&pa), Err(Reason::Replay));
    assert_eq!(
        rx.verify(&pb),
        Err(Reason::Replay),
        "another QP keeps its window"
    );
    assert!(rx.release_qp(id(&pf)));
    assert_eq!(rx.verify(&pl), Err(Reason::UnknownKey));
}

#[test]
fn go_back_n_retransmission_gets_a_fresh_pn_and_verifies() {
    // The same PSN sent twice with different payload (go-back-N) never reuses a nonce.
    let a = Builder::new(0x04, 100, &[1; 64]).build();
    let b = Builder::new(0x04, 100, &[2; 64]).build();
    let (mut tx, mut rx) = pair(Mode::Aead);
    let (_, pa) = tx.protect(&a).expect("a");
    let (_, pb) = tx.protect(&b).expect("b");
    let (sa, sb) = (layout(&pa).sec.expect("sec"), layout(&pb).sec.expect("sec"));
    assert_ne!(sa.pn, sb.pn);
    assert_eq!(rx.verify(&pa).map(|v| v.1), Ok(a));
    assert_eq!(rx.verify(&pb).map(|v| v.1), Ok(b));
}

fn set_va(prot: &[u8], va: u64) -> Vec<u8> {
    let p = layout(prot);
    let mut m = prot.to_vec();
    m[p.eth_off..p.eth_off + 8].copy_from_slice(&va.to_be_bytes());
    icrc::fix(&mut m, &p);
    m
}

#[test]
fn va_moved_out_of_the_sub_region_is_rejected() {
    // WRITE of 4 KiB at a 4 KiB-aligned VA: the key is the level-0 node key.
    let f = Builder::new(0x0A, 5, &[0xAB; 256])
        .reth(0x10_0000, 0x77, 256)
        .build();
    for mode in MODES {
        let (mut tx, _) = pair(mode);
        let (_, prot) = tx.protect(&f).expect("protect");
        assert_eq!(layout(&prot).sec.map(|s| s.level), Some(0));
        // Into the neighbouring node: a different node key, so authentication fails.
        let (_, mut rx) = pair(mode);
        assert_eq!(rx.verify(&set_va(&prot, 0x10_1000)), Err(Reason::AuthFail));
        // Across the node boundary: the range check fires first.
        let (_, mut rx) = pair(mode);
        assert_eq!(
            rx.verify(&set_va(&prot, 0x10_0F80)),
            Err(Reason::OutOfRange)
        );
        // Inside the same node: the VA is in the AAD.
        let (_, mut rx) = pair(mode);
        assert_eq!(rx.verify(&set_va(&prot, 0x10_0010)), Err(Reason::AuthFail));
    }
}

#[test]
fn write_middle_without_first_has_no_key() {
    let (mut tx, mut rx) = pair(Mode::Aead);
    let first = Builder::new(0x06, 1, &[1; 1024])
        .reth(0x2000, 9, 2048)
        .build();
    let last = Builder::new(0x08, 2, &[2; 1024]).build();
    let (_, pf) = tx.protect(&first).expect("first");
    let (_, pl) = tx.protect(&last).expect("last");
    assert_eq!(rx.verify(&pl), Err(Reason::UnknownKey));
    assert!(rx.verify(&pf).is_ok());
    assert!(rx.verify(&pl).is_ok());
    let (mut tx2, _) = pair(Mode::Aead);
    assert_eq!(tx2.protect(&last), Err(Reason::UnknownKey));
}

#[test]
fn epochs_rotate_make_before_break() {
    let f = |psn| Builder::new(0x04, psn, &[psn as u8; 32]).build();
    let id = (gid_of("10.0.0.1".parse().expect("ip")), 0x11);
    let (mut tx, mut rx) = pair(Mode::Aead);
    let (_, old) = tx.protect(&f(1)).expect("epoch 0");
    assert!(
        !tx.set_epoch(Some(id), 1),
        "no entry of its own: the default policy governs it"
    );
    assert!(tx.set_epoch(None, 1));
    let (_, new) = tx.protect(&f(2)).expect("epoch 1");
    assert_eq!(
        layout(&new).sec.expect("sec").epoch,
        1,
        "a QP already sending moves with its policy"
    );
    // Receiver without epoch 1 installed: unknown key.
    assert_eq!(rx.verify(&new), Err(Reason::UnknownKey));
    rx.install_next_epoch(id);
    assert!(rx.verify(&new).is_ok());
    assert_eq!(rx.counters.epoch_promotions, 1);
    // The old epoch is retired once the new one was used.
    assert_eq!(rx.verify(&old), Err(Reason::StaleEpoch));
}

/// A receiver that is already running installs epoch + 1 by its policy's next_epoch bit
/// (register-map word 0 bit 26), as a driver does on a live engine: the QPs already verifying
/// accept it too (their state was made with next = false before the write), not only QPs
/// allocated after it. Once a QP is promoted, the policy's bit (for the policy's epoch) no
/// longer applies to it.
#[test]
fn a_live_receiver_installs_the_next_epoch_by_policy() {
    let f = |psn| Builder::new(0x04, psn, &[psn as u8; 32]).build();
    let (mut tx, mut rx) = pair(Mode::Aead);
    let (_, e0) = tx.protect(&f(1)).expect("epoch 0");
    assert!(rx.verify(&e0).is_ok(), "the QP state exists (next = false)");
    assert!(tx.set_epoch(None, 1));
    let (_, e1) = tx.protect(&f(2)).expect("epoch 1");
    assert_eq!(rx.verify(&e1), Err(Reason::UnknownKey), "not installed yet");
    assert!(rx.set_next_epoch(None, true));
    assert!(
        rx.verify(&e1).is_ok(),
        "installed by the policy for a running QP"
    );
    assert_eq!(rx.counters.epoch_promotions, 1);
    let (_, e1b) = tx.protect(&f(3)).expect("epoch 1");
    assert!(rx.verify(&e1b).is_ok());
    assert_eq!(rx.counters.epoch_promotions, 1);
    // The policy still says (epoch 0, next): that installs epoch 1 only, not 2.
    assert!(tx.set_epoch(None, 2));
    let (_, e2) = tx.protect(&f(4)).expect("epoch 2");
    assert_eq!(rx.verify(&e2), Err(Reason::UnknownKey));
    let (_, e0b) = {
        let (mut tx0, _) = pair(Mode::Aead);
        tx0.protect(&f(9)).expect("epoch 0")
    };
    assert_eq!(rx.verify(&e0b), Err(Reason::StaleEpoch));
    // A QP of its own entry: false for a QP without one.
    let id = (gid_of("10.0.0.1".parse().expect("ip")), 0x11);
    assert!(!rx.set_next_epoch(Some(id), true));
}

/// The last step of a receiver's rotation: its policy moves to (epoch + 1, next_epoch clear), so
/// new QPs start at epoch + 1. A QP that was running at the old epoch and has not seen a packet
/// under the new one yet still accepts it (the policy's epoch, one ahead of the QP's), so the
/// step need not wait for every QP to be promoted.
#[test]
fn a_receiver_policy_moved_ahead_still_promotes_lagging_qps() {
    let f = |qpn: u32, psn: u32| {
        let mut b = Builder::new(0x04, psn, &[psn as u8; 32]);
        b.bth.dest_qp = qpn;
        b.build()
    };
    let (mut tx, mut rx) = pair(Mode::Aead);
    for qpn in [0x11, 0x12] {
        let (_, e0) = tx.protect(&f(qpn, 1)).expect("epoch 0");
        assert!(rx.verify(&e0).is_ok());
    }
    assert!(rx.set_next_epoch(None, true));
    assert!(tx.set_epoch(None, 1));
    let (_, x1) = tx.protect(&f(0x11, 2)).expect("epoch 1");
    assert!(rx.verify(&x1).is_ok());
    // the receiver's policy moves on before QP 0x12 saw epoch 1
    assert!(rx.set_epoch(None, 1));
    assert!(rx.set_next_epoch(None, false));
    let (_, y1) = tx.protect(&f(0x12, 2)).expect("epoch 1");
    assert!(
        rx.verify(&y1).is_ok(),
        "a lagging QP accepts the policy's epoch"
    );
    assert_eq!(rx.counters.epoch_promotions, 2);
    // a new QP starts at the policy's epoch
    let (_, z1) = tx.protect(&f(0x13, 1)).expect("epoch 1");
    assert!(rx.verify(&z1).is_ok());
    assert_eq!(rx.counters.epoch_promotions, 2, "a new QP is not promoted");
    // and nothing installs epoch 2 now
    assert!(tx.set_epoch(None, 2));
    let (_, x2) = tx.protect(&f(0x11, 3)).expect("epoch 2");
    assert_eq!(rx.verify(&x2), Err(Reason::UnknownKey));
}

#[test]
fn policy_rejects_plain_on_protected_qp_and_mode_downgrade() {
    let f = Builder::new(0x04, 1, &[5; 20]).build();
    let (mut tx, mut rx) = pair(Mode::Aead);
    assert_eq!(rx.verify(&f), Err(Reason::Policy));
    let (mut tx_ha, _) = pair(Mode::HeaderAuth);
    let (_, ha) = tx_ha.protect(&f).expect("ha");
    assert_eq!(rx.verify(&ha), Err(Reason::Policy));
    let (_, ok) = tx.protect(&f).expect("aead");
    assert!(rx.verify(&ok).is_ok());
}

#[test]
fn bypass_cnp_and_non_roce_pass_unchanged() {
    let mut k = KeyFile::demo().expect("demo");
    k.force_mode(Mode::Bypass);
    let (mut tx, mut rx) = (
        Protector::new(&k).expect("tx"),
        Verifier::new(&k).expect("rx"),
    );
    let f = Builder::new(0x04, 1, &[5; 20]).build();
    assert_eq!(tx.protect(&f), Ok((Forward::Bypass, f.clone())));
    assert_eq!(rx.verify(&f), Ok((Forward::Bypass, f.clone())));
    let cnp = Builder::new(0x81, 0, &[0; 16]).build();
    let (mut tx, mut rx) = pair(Mode::Aead);
    assert_eq!(tx.protect(&cnp), Ok((Forward::Cnp, cnp.clone())));
    assert_eq!(rx.verify(&cnp), Ok((Forward::Cnp, cnp.clone())));
    let arp = [vec![0xFF; 12], vec![0x08, 0x06], vec![0; 28]].concat();
    assert_eq!(rx.verify(&arp), Ok((Forward::NotRoce, arp.clone())));
    assert_eq!(rx.counters.not_roce, 1);
}

#[test]
fn bad_icrc_and_truncation_are_counted() {
    let f = Builder::new(0x04, 1, &[5; 20]).build();
    let (mut tx, mut rx) = pair(Mode::Aead);
    let (_, mut prot) = tx.protect(&f).expect("protect");
    let n = prot.len();
    prot[n - 1] ^= 1;
    assert_eq!(rx.verify(&prot), Err(Reason::BadIcrc));
    for cut in [10, 30, 50, 60] {
        assert_eq!(rx.verify(&f[..cut]), Err(Reason::Malformed), "cut at {cut}");
    }
    assert_eq!(rx.counters.rejected_for(Reason::BadIcrc), 1);
    assert_eq!(rx.counters.rejected_for(Reason::Malformed), 4);
}

#[test]
fn explain_reproduces_the_icv_without_changing_state() {
    for mode in MODES {
        let (mut tx, _) = pair(mode);
        for f in traffic() {
            let e = tx.explain(&f);
            let (fw, prot) = tx.protect(&f).expect("protect");
            let e = e.expect("protected frames have an explanation");
            assert_eq!(fw, Forward::Processed);
            let p = layout(&prot);
            assert_eq!(
                Some(e.sec),
                p.sec,
                "{mode}: explain changed state or disagrees"
            );
            assert_eq!(
                &prot[p.payload_end..p.payload_end + 16],
                &e.trace.tag,
                "{mode}"
            );
        }
    }
}

/// Spec decision from the RTL work: a cut-through TX cannot recompute a UDP checksum (it precedes
/// the payload), so the UDP checksum field is carried unchanged in both directions; the round
/// trip stays byte-exact (rxe sends 0; the ICRC and the ICV cover the packet).
#[test]
fn a_non_zero_udp_checksum_is_carried_unchanged() {
    let mut f = Builder::new(0x04, 9, &[0x11; 48]).build();
    let p = layout(&f);
    f[p.udp_off + 6] = 0xAB;
    f[p.udp_off + 7] = 0xCD;
    icrc::fix(&mut f, &p); // masked anyway; kept for clarity
    for mode in MODES {
        let (mut tx, mut rx) = pair(mode);
        let (_, prot) = tx.protect(&f).expect("protect");
        let q = layout(&prot);
        assert_eq!(&prot[q.udp_off + 6..q.udp_off + 8], &[0xAB, 0xCD], "{mode}");
        assert_eq!(rx.verify(&prot).map(|v| v.1), Ok(f.clone()), "{mode}");
    }
}

/// A frame that stage `key` protects from its header but whose end rejects it (a bad ICRC, or a
/// truncation seen only after the header window) has already left in part, encrypted under its
/// PN: the protect top is cut-through. Its PN is consumed, so the next frame of the QP never
/// reuses the nonce (two ciphertexts under one (key, IV) would give away the keystream and H,
/// NIST SP 800-38D §8). A frame that is malformed on its header descriptor is never encrypted
/// and consumes nothing.
#[test]
fn a_frame_rejected_at_its_end_consumes_its_pn() {
    let good = Builder::new(0x04, 1, &[7; 200]).build(); // 258 B
    let mut bad_icrc = good.clone();
    let n = bad_icrc.len();
    bad_icrc[n - 1] ^= 1;
    let pn_of = |out: &[u8]| layout(out).sec.expect("SecHdr").pn;
    for mode in MODES {
        // LANES = 1 (header window 144 B): cut at 238 and 160 B is seen at tlast only
        let mut tx = Protector::new(&keys(mode)).expect("tx");
        assert_eq!(tx.protect(&bad_icrc), Err(Reason::BadIcrc));
        assert_eq!(tx.protect(&good[..238]), Err(Reason::Malformed));
        assert_eq!(tx.protect(&good[..160]), Err(Reason::Malformed));
        assert_eq!(tx.protect(&good[..120]), Err(Reason::Malformed)); // within the window
        assert_eq!(tx.protect(&good[..50]), Err(Reason::Malformed)); // cut inside the headers
        let (_, out) = tx.protect(&good).expect("protect");
        assert_eq!(
            pn_of(&out),
            4,
            "{mode:?}: PNs 1..=3 were used by the rejected frames"
        );
        assert_eq!(tx.counters.rejected_for(Reason::Malformed), 4);

        // LANES = 4 (header window 192 B): the 160-B frame's descriptor comes at tlast
        let mut tx = Protector::new(&keys(mode)).expect("tx");
        tx.set_header_window(192);
        assert_eq!(tx.protect(&good[..160]), Err(Reason::Malformed));
        assert_eq!(tx.protect(&bad_icrc), Err(Reason::BadIcrc));
        let (_, out) = tx.protect(&good).expect("protect");
        assert_eq!(pn_of(&out), 2, "{mode:?}");
    }
}

/// `f` (an IPv6 frame from `Builder`) with an 8-byte extension header of type `ext` between the
/// IPv6 header and UDP, whose own Next Header is `next` (RFC 8200 §4); lengths and ICRC as a
/// sender would leave them (the ICRC is not recomputed: the frame need not be RoCEv2 any more).
fn with_ipv6_ext(f: &[u8], ext: u8, next: u8) -> Vec<u8> {
    let ip = 14;
    assert_eq!(f[ip] >> 4, 6, "an IPv6 frame");
    let mut g = f.to_vec();
    let plen = u16::from_be_bytes([g[ip + 4], g[ip + 5]]) + 8;
    g[ip + 4..ip + 6].copy_from_slice(&plen.to_be_bytes());
    g[ip + 6] = ext;
    g.splice(ip + 40..ip + 40, [next, 0, 0, 0, 0, 0, 0, 0]);
    g
}

/// Session-21 finding (docs/threat-model.md): a plain SEND behind an IPv6 Hop-by-Hop header was
/// classified not-RoCE and forwarded by `verify` on an AEAD QP, so a receiver whose stack walks
/// the header before its UDP socket could be handed a forged packet. It is now malformed, and so
/// is UDP behind any extension header or a chain of them; other traffic behind an extension
/// header (ICMPv6 after a router alert) is still forwarded as not RoCE.
#[test]
fn udp_behind_an_ipv6_extension_header_is_rejected_not_forwarded() {
    let mut b = Builder::new(0x04, 7, &[0x5A; 40]);
    b.src = "fd00::2".parse().expect("ip");
    b.dst = "fd00::1".parse().expect("ip");
    let plain = b.build();
    let (_, mut rx) = pair(Mode::Aead);
    assert_eq!(
        rx.verify(&plain),
        Err(Reason::Policy),
        "plain SEND on an AEAD QP"
    );
    for ext in [0u8, 43, 44, 51, 60, 135, 139, 140, 253, 254] {
        for next in [17u8, 0, 60, 43] {
            let f = with_ipv6_ext(&plain, ext, next);
            assert_eq!(
                roce::parse(&f),
                Err(roce::ParseError::Ipv6ExtHeader(ext)),
                "ext {ext} next {next}"
            );
            assert_eq!(
                rx.verify(&f),
                Err(Reason::Malformed),
                "ext {ext} next {next}"
            );
        }
        let icmp = with_ipv6_ext(&plain, ext, 58);
        assert_eq!(rx.verify(&icmp), Ok((Forward::NotRoce, icmp.clone())));
    }
    // ESP (50) hides what follows: not RoCEv2 to the engine, whatever its first byte.
    let esp = with_ipv6_ext(&plain, 50, 17);
    assert_eq!(rx.verify(&esp), Ok((Forward::NotRoce, esp.clone())));
    // The extension header's first byte must be in the frame to decide.
    let cut = &with_ipv6_ext(&plain, 0, 17)[..14 + 40];
    assert_eq!(
        roce::parse(cut),
        Err(roce::ParseError::Truncated("IPv6 extension header"))
    );
    assert!(rx.counters.rejected_for(Reason::Malformed) >= 40);
    // The protect side rejects it too, and spends no PN on it: the next SEND gets PN 1.
    let (mut tx, _) = pair(Mode::Aead);
    let hbh = with_ipv6_ext(&plain, 0, 17);
    assert_eq!(tx.protect(&hbh), Err(Reason::Malformed));
    let (_, prot) = tx.protect(&plain).expect("protect");
    assert_eq!(layout(&prot).sec.expect("SecHdr").pn, 1, "no PN consumed");
}

/// A QP's receive state is made by its first authenticated frame. A forged first frame (ICV
/// flipped, ICRC repaired) is rejected and leaves no state: after the receiver's policy moves to
/// epoch 1, the QP's genuine epoch-0 frame meets the policy as it is now and is stale. The
/// control, a genuine first frame, makes the state at epoch 0, and the same epoch-0 frame is
/// then accepted (the policy one epoch ahead installs epoch + 1, the QP stays at 0). Until
/// session 38 the forged frame made the state too (before the key selection) and so held the QP
/// at epoch 0.
#[test]
fn a_forged_first_frame_leaves_no_qp_state() {
    let f = |psn| Builder::new(0x04, psn, &[psn as u8; 32]).build();
    for forge in [true, false] {
        let (mut tx, mut rx) = pair(Mode::Aead);
        let (_, first) = tx.protect(&f(1)).expect("epoch 0");
        let (_, later) = tx.protect(&f(2)).expect("epoch 0");
        if forge {
            let mut m = first.clone();
            let p = layout(&m);
            m[p.icrc_off() - 1] ^= 0x01;
            let q = layout(&m);
            icrc::fix(&mut m, &q);
            assert_eq!(rx.verify(&m), Err(Reason::AuthFail));
        } else {
            assert!(rx.verify(&first).is_ok());
        }
        assert!(rx.set_epoch(None, 1), "the receiver's policy moves on");
        let want = if forge {
            Err(Reason::StaleEpoch)
        } else {
            Ok(())
        };
        assert_eq!(
            rx.verify(&later).map(|_| ()),
            want,
            "forged first frame: {forge}"
        );
    }
}
