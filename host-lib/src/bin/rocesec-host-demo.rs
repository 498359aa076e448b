//! `rocesec-host-demo`: the host library end to end on a real RDMA device (feature `verbs`).
//!
//! ```text
//! rocesec-host-demo --server [--listen ADDR] --device DEV [--gid-index N] --certs DIR
//! rocesec-host-demo --client ADDR            --device DEV [--gid-index N] --certs DIR
//!   [--port N] [--server-name NAME] [--grant-secs S] [--timeout-secs S]
//!   [--ca PEM] [--cert PEM] [--key PEM]         (instead of --certs DIR)
//! ```
//!
//! `--certs DIR` reads `ca.pem` and `<role>.pem` / `<role>.key` (PEM). Mutual TLS 1.3 over TCP,
//! then the checks of [`rocesec_host::demo`] over one RC QP: one line per check, exit status 0
//! when all pass, 1 when any fails, 2 for a usage or set-up error.

use ring::rand::{SecureRandom, SystemRandom};
use rocesec_host::demo::{self, Options, Report, LEASE_LEN, MAX_MESSAGE};
use rocesec_host::handshake::{Control, Identity};
use rocesec_host::verbs::{Access, ConnConfig, Connection, Context, MemoryRegion, Pd};
use rocesec_host::{Error, Result};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

struct Args {
    server: bool,
    addr: String,
    device: String,
    port: u8,
    gid_index: u8,
    ca: PathBuf,
    cert: PathBuf,
    key: PathBuf,
    server_name: String,
    grant: Duration,
    timeout: Duration,
}

fn usage(msg: &str) -> Error {
    Error::Protocol(format!(
        "{msg}\nusage: rocesec-host-demo (--server [--listen ADDR] | --client ADDR) --device DEV \
         [--port N] [--gid-index N] (--certs DIR | --ca PEM --cert PEM --key PEM) \
         [--server-name NAME] [--grant-secs S] [--timeout-secs S]"
    ))
}

fn parse() -> Result<Args> {
    let mut it = std::env::args().skip(1);
    let (mut server, mut client, mut listen) = (false, None, "0.0.0.0:7471".to_string());
    let (mut device, mut port, mut gid_index) = (None, 1u8, 1u8);
    let (mut certs, mut ca, mut cert, mut key) = (None, None, None, None);
    let mut server_name = "server.rocesec.test".to_string();
    let (mut grant, mut timeout) = (2u64, 20u64);
    while let Some(a) = it.next() {
        let mut val = || {
            it.next()
                .ok_or_else(|| usage(&format!("{a} needs a value")))
        };
        let num = |v: String| {
            v.parse::<u64>()
                .map_err(|_| usage(&format!("{a}: not a number: {v}")))
        };
        match a.as_str() {
            "--server" => server = true,
            "--client" => client = Some(val()?),
            "--listen" => listen = val()?,
            "--device" => device = Some(val()?),
            "--port" => port = u8::try_from(num(val()?)?).map_err(|_| usage("--port"))?,
            "--gid-index" => {
                gid_index = u8::try_from(num(val()?)?).map_err(|_| usage("--gid-index"))?;
            }
            "--certs" => certs = Some(PathBuf::from(val()?)),
            "--ca" => ca = Some(PathBuf::from(val()?)),
            "--cert" => cert = Some(PathBuf::from(val()?)),
            "--key" => key = Some(PathBuf::from(val()?)),
            "--server-name" => server_name = val()?,
            "--grant-secs" => grant = num(val()?)?,
            "--timeout-secs" => timeout = num(val()?)?,
            "-h" | "--help" => return Err(usage("")),
            _ => return Err(usage(&format!("unknown argument {a}"))),
        }
    }
    if server == client.is_some() {
        return Err(usage("give exactly one of --server and --client ADDR"));
    }
    let role = if server { "server" } else { "client" };
    let from_dir = |f: &str| certs.as_ref().map(|d| d.join(f));
    Ok(Args {
        server,
        addr: client.unwrap_or(listen),
        device: device.ok_or_else(|| usage("--device missing"))?,
        port,
        gid_index,
        ca: ca
            .or_else(|| from_dir("ca.pem"))
            .ok_or_else(|| usage("--ca or --certs missing"))?,
        cert: cert
            .or_else(|| from_dir(&format!("{role}.pem")))
            .ok_or_else(|| usage("--cert or --certs missing"))?,
        key: key
            .or_else(|| from_dir(&format!("{role}.key")))
            .ok_or_else(|| usage("--key or --certs missing"))?,
        server_name,
        grant: Duration::from_secs(grant),
        timeout: Duration::from_secs(timeout),
    })
}

fn identity(a: &Args) -> Result<Identity> {
    let pem_err =
        |p: &PathBuf, e: rustls::pki_types::pem::Error| Error::Tls(format!("{}: {e}", p.display()));
    let certs = |p: &PathBuf| -> Result<Vec<CertificateDer<'static>>> {
        CertificateDer::pem_file_iter(p)
            .map_err(|e| pem_err(p, e))?
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| pem_err(p, e))
    };
    Ok(Identity {
        chain: certs(&a.cert)?,
        key: PrivateKeyDer::from_pem_file(&a.key).map_err(|e| pem_err(&a.key, e))?,
        roots: certs(&a.ca)?,
    })
}

/// Connect, retrying while the server is not listening yet (it starts first, but sets its
/// device up before it listens).
fn connect_retry(addr: &str, timeout: Duration) -> Result<TcpStream> {
    let t0 = std::time::Instant::now();
    loop {
        match TcpStream::connect(addr) {
            Ok(s) => return Ok(s),
            Err(e) if t0.elapsed() < timeout => {
                if e.kind() != std::io::ErrorKind::ConnectionRefused {
                    return Err(e.into());
                }
                std::thread::sleep(Duration::from_millis(200));
            }
            Err(e) => return Err(e.into()),
        }
    }
}

fn run(a: &Args, rep: &mut Report) -> Result<()> {
    let id = identity(a)?;
    let rng = SystemRandom::new();
    let mut r4 = [0u8; 4];
    rng.fill(&mut r4).map_err(|_| Error::Kdf)?;
    let ctx = Context::open(&a.device)?;
    let pd = Pd::new(&ctx)?;
    let cfg = ConnConfig {
        port: a.port,
        gid_index: a.gid_index,
        max_msg: LEASE_LEN.max(MAX_MESSAGE * 2),
        recv_depth: 64,
        timeout: a.timeout,
        psn: u32::from_be_bytes(r4) & 0xFF_FFFF,
    };
    let mut conn = Connection::new(&pd, cfg)?;
    let local = conn.local();
    let opts = Options {
        grant_lifetime: a.grant,
        ..Options::default()
    };
    let (sock, who) = if a.server {
        let l = TcpListener::bind(&a.addr)?;
        println!(
            "rocesec-host-demo server: listening on {} ({} QPN {:#x})",
            a.addr, a.device, local.qpn
        );
        let (s, peer) = l.accept()?;
        (s, peer.to_string())
    } else {
        (connect_retry(&a.addr, a.timeout)?, a.addr.clone())
    };
    sock.set_read_timeout(Some(a.timeout * 3))?;
    let mut ctrl = if a.server {
        Control::server(sock, &id)
    } else {
        Control::client(sock, &a.server_name, &id)
    };
    rep.check(
        "tls",
        ctrl.as_ref()
            .map(|_| {
                format!(
                    "TLS 1.3 mutual certificate authentication with {who}, exporter secret derived"
                )
            })
            .map_err(|e| e.to_string()),
    );
    let ctrl = ctrl.as_mut().map_err(|e| Error::Tls(e.to_string()))?;
    let connect = move |peer: &rocesec_host::backend::Endpoint| -> Result<Connection> {
        conn.connect(peer)?;
        Ok(conn)
    };
    if a.server {
        let mut lease = MemoryRegion::new(&pd, LEASE_LEN, Access::RemoteReadWrite)?;
        demo::server(ctrl, local, &mut lease, connect, &opts, rep)
    } else {
        let mut secret = [0u8; 32];
        rng.fill(&mut secret).map_err(|_| Error::Kdf)?;
        demo::client(ctrl, local, connect, &secret, &opts, rep)
    }
}

fn main() -> ExitCode {
    let a = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("rocesec-host-demo: {e}");
            return ExitCode::from(2);
        }
    };
    let mut rep = Report::new(if a.server { "server" } else { "client" }, true);
    let r = run(&a, &mut rep);
    if let Err(e) = &r {
        rep.check("run", Err(format!("aborted: {e}")));
    }
    println!("{}", rep.summary());
    if rep.failed == 0 && rep.passed > 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
