//! `rocesec-host-demo` on two real Soft-RoCE devices: runs the capture rig
//! (`testbench/rxe-capture`, Debian's kernel under qemu) with the scenario of
//! `testbench/rxe-capture/host-demo.ini`, then checks that every demo check passed on both sides,
//! that the RoCE capture (UDP 4791) holds SEND, WRITE and READ traffic but no byte string of the
//! known plaintext, and that the TCP control channel is TLS records only.
//!
//! Needs root, apt and qemu (as the rig does). `ROCESEC_SKIP_RIG=1` skips it (and says so);
//! without that variable a rig that cannot run is a failure.

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use rocesec_host::demo::MARKER;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const SCENARIO: &str = "rocesec_host_demo_v4";

/// A throwaway CA and two leaf certificates (PEM) in `dir`; never committed.
fn make_certs(dir: &Path) {
    std::fs::create_dir_all(dir).expect("cert dir");
    let mut p = CertificateParams::new(Vec::<String>::new()).expect("params");
    p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let issuer = CertifiedIssuer::self_signed(p, KeyPair::generate().expect("key")).expect("ca");
    std::fs::write(dir.join("ca.pem"), issuer.pem()).expect("ca.pem");
    for (role, name) in [
        ("server", "server.rocesec.test"),
        ("client", "client.rocesec.test"),
    ] {
        let key = KeyPair::generate().expect("key");
        let cert = CertificateParams::new(vec![name.to_string()])
            .expect("params")
            .signed_by(&key, &issuer)
            .expect("sign");
        std::fs::write(dir.join(format!("{role}.pem")), cert.pem()).expect("cert");
        std::fs::write(dir.join(format!("{role}.key")), key.serialize_pem()).expect("key");
    }
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// TCP payloads of a classic pcap (Ethernet or Linux cooked; IPv4), per source port, in order.
fn tcp_streams(pcap: &[u8]) -> Vec<(u16, Vec<u8>)> {
    assert!(pcap.len() >= 24, "pcap too short");
    let le = match &pcap[..4] {
        [0xd4, 0xc3, 0xb2, 0xa1] | [0x4d, 0x3c, 0xb2, 0xa1] => true,
        [0xa1, 0xb2, 0xc3, 0xd4] | [0xa1, 0xb2, 0x3c, 0x4d] => false,
        m => panic!("not a classic pcap: magic {m:02x?}"),
    };
    let u32_at = |b: &[u8], o: usize| {
        let w = [b[o], b[o + 1], b[o + 2], b[o + 3]];
        if le {
            u32::from_le_bytes(w)
        } else {
            u32::from_be_bytes(w)
        }
    };
    let link = u32_at(pcap, 20);
    let l2 = match link {
        1 => 14,
        113 => 16,
        l => panic!("unexpected linktype {l}"),
    };
    let mut streams: Vec<(u16, Vec<u8>)> = Vec::new();
    let mut off = 24;
    while off + 16 <= pcap.len() {
        let incl = u32_at(pcap, off + 8) as usize;
        let frame = &pcap[off + 16..off + 16 + incl];
        off += 16 + incl;
        let Some(ip) = frame.get(l2..) else { continue };
        if ip.len() < 20 || ip[0] >> 4 != 4 || ip[9] != 6 {
            continue;
        }
        let ihl = usize::from(ip[0] & 0x0f) * 4;
        let total = usize::from(u16::from_be_bytes([ip[2], ip[3]])).min(ip.len());
        let tcp = &ip[ihl..total];
        let doff = usize::from(tcp[12] >> 4) * 4;
        let sport = u16::from_be_bytes([tcp[0], tcp[1]]);
        let payload = &tcp[doff..];
        if payload.is_empty() {
            continue;
        }
        match streams.iter_mut().find(|(p, _)| *p == sport) {
            Some((_, s)) => s.extend_from_slice(payload),
            None => streams.push((sport, payload.to_vec())),
        }
    }
    streams
}

/// Walk a byte stream as TLS records; returns the content types seen. Panics on anything else.
fn tls_records(stream: &[u8]) -> Vec<u8> {
    let mut types = Vec::new();
    let mut i = 0;
    while i < stream.len() {
        assert!(i + 5 <= stream.len(), "truncated TLS record header at {i}");
        let (ty, major, len) = (
            stream[i],
            stream[i + 1],
            usize::from(u16::from_be_bytes([stream[i + 3], stream[i + 4]])),
        );
        assert!(
            matches!(ty, 20..=23) && major == 3 && len <= (1 << 14) + 256,
            "not a TLS record at byte {i}: {:02x?}",
            &stream[i..i + 5]
        );
        types.push(ty);
        i += 5 + len;
    }
    assert_eq!(i, stream.len(), "TLS records overrun the stream");
    types
}

#[test]
fn demo_on_two_rxe_devices_under_qemu() {
    if std::env::var("ROCESEC_SKIP_RIG").as_deref() == Ok("1") {
        // Straight to stderr, past the test harness's capture, so the skip is always visible.
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: rocesec-host-demo VM test (ROCESEC_SKIP_RIG=1): needs root, apt and qemu"
        );
        return;
    }
    let t0 = Instant::now();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace")
        .to_path_buf();
    let work: PathBuf =
        std::env::temp_dir().join(format!("rocesec-host-vm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    let certs = work.join("certs");
    let out = work.join("out");
    make_certs(&certs);
    let rig = repo.join("testbench/rxe-capture/rxe-capture");
    let bin = env!("CARGO_BIN_EXE_rocesec-host-demo");
    let o = Command::new("timeout")
        .arg("1200")
        .arg("python3")
        .arg(&rig)
        .arg("--scenarios")
        .arg(repo.join("testbench/rxe-capture/host-demo.ini"))
        .arg("--out")
        .arg(&out)
        .arg("--guest-bin")
        .arg(bin)
        .arg("--guest-files")
        .arg(&certs)
        .arg("--keep-logs")
        .output()
        .expect("cannot run python3 / the rig (set ROCESEC_SKIP_RIG=1 on machines without it)");
    let rig_out = format!(
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    eprintln!("{rig_out}");
    let read = |f: &str| std::fs::read_to_string(out.join(format!("{SCENARIO}.{f}")));
    let (slog, clog) = (read("server.log"), read("client.log"));
    for (role, l) in [("server", &slog), ("client", &clog)] {
        eprintln!(
            "--- {role} log ---\n{}",
            l.as_deref().unwrap_or("(missing)")
        );
    }
    assert!(
        o.status.success(),
        "the rig failed (status {:?}); set ROCESEC_SKIP_RIG=1 on machines without root/qemu",
        o.status
    );
    let (slog, clog) = (slog.expect("server log"), clog.expect("client log"));

    // 1. every check passed, on both sides
    let checks: Vec<&str> = slog
        .lines()
        .chain(clog.lines())
        .filter(|l| l.starts_with("check "))
        .collect();
    for name in [
        "server tls",
        "client tls",
        "server send-c2s",
        "client send-s2c",
        "server rotation",
        "client sealed-rw",
        "server lessor-blind",
        "client tamper",
        "client grant-live",
        "server grant-expire",
        "client grant-expired",
    ] {
        assert!(
            checks
                .iter()
                .any(|l| l.starts_with(&format!("check {name}: ok"))),
            "check {name} did not pass: {checks:#?}"
        );
    }
    assert!(!checks.iter().any(|l| l.contains(": FAIL")), "{checks:#?}");
    assert!(slog.contains("rocesec-host-demo server: ") && slog.contains(" 0 failed"));
    assert!(clog.contains("rocesec-host-demo client: ") && clog.contains(" 0 failed"));
    // the counters published in the logs (what `rocesec host-stats` reads) match the run
    let snaps = rocesec_host::stats::parse_lines(&format!("{slog}\n{clog}")).expect("stats");
    eprintln!("{}", rocesec_host::stats::table(&snaps));
    let get = |role: &str, src: &str| {
        snaps
            .iter()
            .find(|x| x.role == role && x.source == src)
            .map(|x| x.stats.clone())
            .unwrap_or_else(|| panic!("{role} {src} not published"))
    };
    let srx = get("server", "channel-rx");
    assert_eq!((srx.rotations, srx.stale_epoch), (1, 1), "{srx:?}");
    let sealed = get("client", "sealed");
    assert_eq!((sealed.ok, sealed.auth_fail), (1, 1), "{sealed:?}");

    // 2. the RoCE capture carries the traffic, never the plaintext
    let roce = std::fs::read(out.join(format!("{SCENARIO}.pcap"))).expect("RoCE pcap");
    let manifest = std::fs::read_to_string(out.join("manifest.json")).expect("manifest");
    // (the sealed block is 4120 B: WRITE and READ responses span several packets at MTU 1024)
    for op in [
        "\"RC_SEND_ONLY\"",
        "\"RC_RDMA_WRITE_",
        "\"RC_RDMA_READ_REQUEST\"",
        "\"RC_RDMA_READ_RESPONSE_",
        "\"RC_ACKNOWLEDGE\"",
    ] {
        assert!(manifest.contains(op), "no {op} in the RoCE capture");
    }
    let m = MARKER.as_bytes();
    for w in m.windows(8) {
        assert!(
            !contains(&roce, w),
            "plaintext {:?} in the RoCE capture",
            String::from_utf8_lossy(w)
        );
    }

    // 3. the control channel is TLS: records only, nothing of the data path in clear
    let ctl = std::fs::read(out.join(format!("{SCENARIO}.control.pcap"))).expect("control pcap");
    let streams = tcp_streams(&ctl);
    assert_eq!(
        streams.len(),
        2,
        "expected one TCP connection, two directions"
    );
    for (port, s) in &streams {
        let types = tls_records(s);
        assert_eq!(
            types.first(),
            Some(&22),
            "port {port}: no TLS handshake first"
        );
        assert!(
            types.iter().filter(|&&t| t == 23).count() >= 3,
            "port {port}: too few TLS application-data records: {types:?}"
        );
    }
    for needle in [m, b"qpn".as_slice(), b"rkey", b"Hello", b"Grant"] {
        assert!(
            !contains(&ctl, needle),
            "{:?} in clear on the control channel",
            String::from_utf8_lossy(needle)
        );
    }
    let _ = writeln!(
        std::io::stderr(),
        "rocesec-host-demo VM test: all checks passed, wall time {:.0} s",
        t0.elapsed().as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&work);
}
