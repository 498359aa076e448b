//! In-process tests of the host library without an RDMA device: mutual-TLS handshake over
//! loopback TCP, encrypted SEND/RECV both ways through the `Loopback` backend, epoch rotation in
//! the middle of traffic, sealed WRITE/READ of leased memory with tampering and rollback, grants
//! that expire or are revoked, and device discovery errors.

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use rocesec_host::backend::{Loopback, RemoteMr, Transport};
use rocesec_host::channel::{EpochKey, Receiver, Sender, OVERHEAD};
use rocesec_host::handshake::{Control, Identity};
use rocesec_host::keys::{GrantTable, MrRef, SessionKeys, DEFAULT_GRANT_LIFETIME};
use rocesec_host::sealed::SealedRegion;
use rocesec_host::{device, Error};
use rocesec_model::keys::gid_of;
use rocesec_model::sechdr::Mode;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use serde::{Deserialize, Serialize};
use std::net::TcpListener;
use std::time::{Duration, SystemTime};

struct Pki {
    ca: CertificateDer<'static>,
    server: Identity,
    client: Identity,
}

fn leaf(
    issuer: &CertifiedIssuer<'_, KeyPair>,
    name: &str,
    ca: &CertificateDer<'static>,
) -> Identity {
    let key = KeyPair::generate().expect("key");
    let cert = CertificateParams::new(vec![name.to_string()])
        .expect("params")
        .signed_by(&key, issuer)
        .expect("sign");
    Identity {
        chain: vec![cert.der().clone()],
        key: PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
        roots: vec![ca.clone()],
    }
}

fn pki() -> Pki {
    let mut p = CertificateParams::new(Vec::<String>::new()).expect("params");
    p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let issuer = CertifiedIssuer::self_signed(p, KeyPair::generate().expect("key")).expect("ca");
    let ca = issuer.der().clone();
    Pki {
        server: leaf(&issuer, "server.rocesec.test", &ca),
        client: leaf(&issuer, "client.rocesec.test", &ca),
        ca,
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct QpInfo {
    qpn: u32,
    psn: u32,
    gid: String,
    mr: RemoteMr,
}

/// Handshake over loopback TCP; returns (client, server) controls.
fn connect(server_id: Identity, client_id: &Identity) -> (Control, Control) {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = l.local_addr().expect("addr");
    let t = std::thread::spawn(move || {
        let (s, _) = l.accept().expect("accept");
        Control::server(s, &server_id)
    });
    let c = Control::client(
        std::net::TcpStream::connect(addr).expect("connect"),
        "server.rocesec.test",
        client_id,
    )
    .expect("client handshake");
    let s = t.join().expect("thread").expect("server handshake");
    (c, s)
}

#[test]
fn mutual_tls_gives_both_sides_the_same_secret_and_a_private_channel() {
    let p = pki();
    let client_id = p.client;
    let (mut c, mut s) = connect(p.server, &client_id);
    assert_eq!(c.secret(), s.secret());
    assert_ne!(c.secret(), &[0u8; 32]);
    let info = QpInfo {
        qpn: 0x11,
        psn: 0xABCDEF,
        gid: "10.0.0.2".into(),
        mr: RemoteMr {
            va: 0x1000,
            rkey: 7,
            len: 4096,
        },
    };
    c.send(&info).expect("send");
    assert_eq!(s.recv::<QpInfo>().expect("recv"), info);
    let _ = p.ca;
}

#[test]
fn a_client_without_a_trusted_certificate_is_refused() {
    let p = pki();
    let other = pki(); // a different CA: the server must not accept its client
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = l.local_addr().expect("addr");
    let server_id = p.server;
    let t = std::thread::spawn(move || {
        let (s, _) = l.accept().expect("accept");
        Control::server(s, &server_id).map(|_| ())
    });
    let mut bad = other.client;
    bad.roots = p.client.roots.clone(); // trusts the right server, but is signed by another CA
    let c = Control::client(
        std::net::TcpStream::connect(addr).expect("connect"),
        "server.rocesec.test",
        &bad,
    );
    let s = t.join().expect("thread");
    assert!(s.is_err(), "server accepted an untrusted client");
    let _ = c;
}

fn channel_pair(secret: &[u8], mode: Mode, epoch: u8) -> (Sender, Receiver) {
    let keys = SessionKeys::new(secret, 16).expect("keys");
    let gid = gid_of("10.0.0.1".parse().expect("ip"));
    let k = keys.qp(1, epoch, &gid, 0x11, 0).expect("qp key");
    let tx = Sender::new(mode, 0x11, 0, EpochKey::new(epoch, k.bytes()).expect("k")).expect("tx");
    let rx = Receiver::new(mode, 0x11, 0, EpochKey::new(epoch, k.bytes()).expect("k"));
    (tx, rx)
}

#[test]
fn encrypted_send_recv_both_ways_over_the_loopback_backend() {
    let p = pki();
    let client_id = p.client;
    let (c, s) = connect(p.server, &client_id);
    let (a, b) = Loopback::pair(0x10_0000, 1 << 16, [0x100, 0x200]);
    for (mut from, mut to, secret) in [
        (a.clone(), b.clone(), c.secret()),
        (b.clone(), a.clone(), s.secret()),
    ] {
        for mode in [Mode::Aead, Mode::PacketAuth] {
            let (mut tx, mut rx) = channel_pair(secret, mode, 0);
            let secret_text = b"the quarterly numbers are 42; do not leak".to_vec();
            let mut wire = vec![0u8; secret_text.len() + OVERHEAD];
            let n = tx.seal_into(&secret_text, &mut wire).expect("seal");
            from.send(&wire[..n]).expect("send");
            let mut got = vec![0u8; 256];
            let m = to.recv(&mut got).expect("recv");
            let leaked = got[..m].windows(8).any(|w| w == &secret_text[..8]);
            assert_eq!(
                leaked,
                mode == Mode::PacketAuth,
                "{mode}: plaintext on the wire"
            );
            let mut app = vec![0u8; 256];
            let k = rx.open_into(&got[..m], &mut app).expect("open");
            assert_eq!(&app[..k], &secret_text[..]);
        }
    }
}

#[test]
fn tampered_replayed_and_stale_messages_are_refused_and_nothing_leaks() {
    let (mut tx, mut rx) = channel_pair(&[7; 32], Mode::Aead, 0);
    let mut wire = vec![0u8; 64 + OVERHEAD];
    let n = tx.seal_into(&[0x5A; 64], &mut wire).expect("seal");
    let mut app = vec![0xEEu8; 128];
    for i in 0..n {
        let mut m = wire[..n].to_vec();
        m[i] ^= 0x04;
        assert!(
            rx.open_into(&m, &mut app).is_err(),
            "flip at byte {i} accepted"
        );
        assert!(
            app.iter().all(|&b| b == 0xEE),
            "unverified bytes reached the application"
        );
    }
    assert!(rx.open_into(&wire[..n], &mut app).is_ok());
    assert!(matches!(
        rx.open_into(&wire[..n], &mut app),
        Err(Error::Replay)
    ));
    assert_eq!(rx.stats.ok, 1);
    assert_eq!(rx.stats.replay, 1);
    assert!(rx.stats.auth_fail + rx.stats.malformed + rx.stats.stale_epoch >= n as u64);
}

#[test]
fn epoch_rotation_in_the_middle_of_traffic_loses_no_message() {
    let secret = [3u8; 32];
    let keys = SessionKeys::new(&secret, 16).expect("keys");
    let gid = gid_of("10.0.0.1".parse().expect("ip"));
    let key =
        |e: u8| EpochKey::new(e, keys.qp(1, e, &gid, 0x11, 0).expect("k").bytes()).expect("k");
    let mut tx = Sender::new(Mode::Aead, 0x11, 0, key(0)).expect("tx");
    let mut rx = Receiver::new(Mode::Aead, 0x11, 0, key(0));
    let (mut a, mut b) = Loopback::pair(0, 0, [1, 2]);
    let mut delivered = 0;
    let mut stale = None;
    for i in 0u32..200 {
        if i == 100 {
            rx.install_next(key(1)); // make...
            tx.rotate(key(1)); // ...before break
        }
        let body = i.to_be_bytes();
        let mut w = [0u8; 4 + OVERHEAD];
        let n = tx.seal_into(&body, &mut w).expect("seal");
        if i == 99 {
            stale = Some(w[..n].to_vec());
        }
        a.send(&w[..n]).expect("send");
        let mut r = [0u8; 64];
        let m = b.recv(&mut r).expect("recv");
        let mut out = [0u8; 4];
        assert_eq!(rx.open_into(&r[..m], &mut out).expect("open"), 4);
        assert_eq!(out, body);
        delivered += 1;
    }
    assert_eq!(delivered, 200);
    assert_eq!(rx.stats.rotations, 1);
    // After the switch the old epoch is retired.
    let mut out = [0u8; 4];
    assert!(matches!(
        rx.open_into(&stale.expect("kept"), &mut out),
        Err(Error::StaleEpoch)
    ));
}

#[test]
fn sealed_write_then_read_detects_tampering_and_rollback_in_leased_memory() {
    let (mut client, lessor) = Loopback::pair(0x7000_0000, 8 * (4096 + 24), [0x11, 0x22]);
    let mr = lessor.local_mr().expect("mr");
    let mut region =
        SealedRegion::new(b"client-local secret, never sent", 42, 4096, 8).expect("region");
    let data: Vec<u8> = (0..4096u32).map(|i| (i * 31) as u8).collect();
    let block = region.seal(3, &data).expect("seal");
    client
        .write(&mr, mr.va + region.offset(3), &block)
        .expect("write");
    // The lessor never sees the plaintext.
    let seen = lessor
        .memory(|m| m.windows(32).any(|w| w == &data[100..132]))
        .expect("mem");
    assert!(!seen, "plaintext visible in leased memory");
    let mut back = vec![0u8; region.stride()];
    client
        .read(&mr, mr.va + region.offset(3), &mut back)
        .expect("read");
    assert_eq!(region.open(3, &back).expect("open"), data);
    // A byte changed in remote memory is detected on READ.
    let off = region.offset(3) as usize + 1000;
    lessor.memory(|m| m[off] ^= 1);
    client
        .read(&mr, mr.va + region.offset(3), &mut back)
        .expect("read");
    assert!(matches!(region.open(3, &back), Err(Error::AuthFail)));
    // Rollback: the lessor keeps version 1 and serves it after version 2 was written.
    let v2 = region.seal(3, &[9u8; 4096]).expect("seal v2");
    assert!(matches!(region.open(3, &block), Err(Error::AuthFail)));
    assert_eq!(region.open(3, &v2).expect("v2"), vec![9u8; 4096]);
    // Relocation: block 3's contents presented as block 4.
    assert!(matches!(region.open(4, &v2), Err(Error::AuthFail)));
    assert_eq!(region.stats.ok, 2);
    assert_eq!(region.stats.auth_fail, 3);
}

#[test]
fn grants_are_bounded_expire_and_can_be_revoked() {
    let keys = SessionKeys::new(&[1; 32], 16).expect("keys");
    let owner = gid_of("10.0.0.1".parse().expect("ip"));
    let now = SystemTime::now();
    let mut table = GrantTable::default();
    let g = table.issue(
        keys.grant(
            &MrRef {
                pd: 1,
                epoch: 0,
                owner,
                rkey: 0x22,
            },
            0x10_0000,
            8192,
            now + DEFAULT_GRANT_LIFETIME,
        )
        .expect("grant"),
    );
    assert_eq!(g.range(), (0x10_0000, 0x10_2000));
    assert!(g.check(0x10_0000, 8192, now).is_ok());
    assert!(matches!(
        g.check(0x10_1000, 8192, now),
        Err(Error::OutOfRange)
    ));
    assert!(matches!(
        g.check(0x0F_F000, 16, now),
        Err(Error::OutOfRange)
    ));
    let later = now + DEFAULT_GRANT_LIFETIME + Duration::from_secs(1);
    assert!(matches!(g.check(0x10_0000, 16, later), Err(Error::Expired)));
    assert!(matches!(table.validate(g.id, later), Err(Error::Expired)));
    assert!(table.validate(g.id, now).is_ok());
    table.revoke(g.id);
    assert!(matches!(table.validate(g.id, now), Err(Error::Revoked)));
    // The node key is the model's: the engine and the model accept what it protects.
    let mr = rocesec_model::keys::mr_key(&keys.pd(1, 0).expect("pd"), &owner, 0x22).expect("mr");
    let node = rocesec_model::keys::node_key(&mr, g.level, g.index).expect("node");
    assert_eq!(node.bytes(), &g.key[..]);
}

#[test]
fn an_expired_grant_is_refused_by_the_owner_deregistering_the_mr() {
    let (mut peer, owner) = Loopback::pair(0x1000, 4096, [1, 2]);
    let mr = owner.local_mr().expect("mr");
    let mut b = [0u8; 16];
    assert!(peer.read(&mr, 0x1000, &mut b).is_ok());
    owner.deregister();
    assert!(matches!(
        peer.read(&mr, 0x1000, &mut b),
        Err(Error::Verbs(_))
    ));
}

#[test]
fn no_rdma_device_says_how_to_create_one() {
    let dir = std::env::temp_dir().join(format!("rocesec-sysfs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    match device::discover(&dir) {
        Err(Error::NoDevice(m)) => assert!(m.contains("rdma link add rxe0 type rxe netdev")),
        other => panic!("{other:?}"),
    }
    std::fs::create_dir_all(dir.join("rxe0")).expect("dev");
    std::fs::create_dir_all(dir.join("rsec0")).expect("dev");
    std::fs::write(dir.join("rsec0/rocesec_engine"), b"1").expect("attr");
    let d = device::discover(&dir).expect("devices");
    assert_eq!(d.len(), 2);
    assert_eq!(d[0].name, "rsec0");
    assert_eq!(d[0].protection, device::Protection::Engine);
    assert_eq!(d[1].protection, device::Protection::Software);
    assert_eq!(d[1].driver, "rdma_rxe");
}

/// A lessor that "forgets" to deregister: the expired grant would still work on the device.
struct LeakyLease(Loopback);

impl rocesec_host::demo::Lease for LeakyLease {
    fn remote(&self) -> Option<RemoteMr> {
        self.0.remote()
    }
    fn read_local(&self, off: usize, out: &mut [u8]) -> rocesec_host::Result<()> {
        self.0.read_local(off, out)
    }
    fn flip_local(&mut self, off: usize, mask: u8) -> rocesec_host::Result<()> {
        self.0.flip_local(off, mask)
    }
    fn deregister(&mut self) -> rocesec_host::Result<()> {
        Ok(())
    }
}

/// The scenario of `rocesec-host-demo` (the VM test runs it on two rxe devices) in-process:
/// mutual TLS over loopback TCP, the Loopback backend, every check on both sides.
fn run_demo<L: rocesec_host::demo::Lease + Send + 'static>(
    lease: impl FnOnce(Loopback) -> L + Send + 'static,
) -> (rocesec_host::demo::Report, rocesec_host::demo::Report) {
    use rocesec_host::backend::Endpoint;
    use rocesec_host::demo::{self, Options, Report, LEASE_LEN};
    let p = pki();
    let client_id = p.client;
    let (mut c, mut s) = connect(p.server, &client_id);
    let (a, b) = Loopback::pair(0x4000_0000, LEASE_LEN, [0x100, 0x200]);
    let wait = Duration::from_secs(10);
    let (a, b) = (a.with_recv_wait(wait), b.with_recv_wait(wait));
    let opts = Options {
        grant_lifetime: Duration::from_millis(300),
        ..Options::default()
    };
    let ep = |qpn: u32, ip: &str| Endpoint {
        qpn,
        psn: 0x123456,
        gid: gid_of(ip.parse().expect("ip")),
        mtu: 1024,
    };
    let so = opts.clone();
    let server = std::thread::spawn(move || {
        let mut rep = Report::new("server", false);
        let mut l = lease(b.clone());
        demo::server(
            &mut s,
            ep(0x12, "10.0.0.1"),
            &mut l,
            |_| Ok(b),
            &so,
            &mut rep,
        )
        .expect("server protocol");
        rep
    });
    let mut rep = Report::new("client", false);
    demo::client(
        &mut c,
        ep(0x11, "10.0.0.2"),
        |_| Ok(a),
        b"local",
        &opts,
        &mut rep,
    )
    .expect("client protocol");
    (server.join().expect("server thread"), rep)
}

#[test]
fn demo_scenario_passes_every_check_over_the_loopback_backend() {
    let (s, c) = run_demo(|l| l);
    let all: Vec<_> = s.lines.iter().chain(&c.lines).collect();
    assert_eq!((s.failed, c.failed), (0, 0), "{all:#?}");
    for name in [
        "server send-c2s",
        "server rotation",
        "server lessor-blind",
        "server grant-expire",
        "client send-s2c",
        "client sealed-rw",
        "client tamper",
        "client grant-live",
        "client grant-expired",
    ] {
        assert!(
            all.iter()
                .any(|l| l.starts_with(&format!("check {name}: ok"))),
            "{name} missing: {all:#?}"
        );
    }
    // the published counters tell the same story (what `rocesec host-stats` shows)
    let get = |r: &rocesec_host::demo::Report, src: &str| {
        r.snapshots
            .iter()
            .find(|x| x.source == src)
            .map(|x| x.stats.clone())
            .unwrap_or_else(|| panic!("{src} not published"))
    };
    let srx = get(&s, "channel-rx");
    assert_eq!((srx.rotations, srx.stale_epoch), (1, 1), "{srx:?}");
    assert!(srx.ok > 0, "{srx:?}");
    let sealed = get(&c, "sealed");
    assert_eq!((sealed.ok, sealed.auth_fail), (1, 1), "{sealed:?}");
    let crx = get(&c, "channel-rx");
    assert_eq!(crx.auth_fail + crx.replay + crx.malformed, 0, "{crx:?}");
}

#[test]
fn demo_scenario_fails_when_the_owner_does_not_revoke_an_expired_grant() {
    let (s, c) = run_demo(LeakyLease);
    assert!(
        c.lines
            .iter()
            .any(|l| l.starts_with("check client grant-expired: FAIL")),
        "{:#?}",
        c.lines
    );
    assert_eq!(c.failed, 1, "{:#?}", c.lines);
    assert_eq!(
        s.failed, 1,
        "the server reports the client's failure: {:#?}",
        s.lines
    );
}
