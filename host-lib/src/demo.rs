//! The end-to-end scenario of `rocesec-host-demo`, generic over the [`Transport`] and the leased
//! memory ([`Lease`]), so that the very same checks run on two rxe devices (binary, feature
//! `verbs`) and in-process over [`Loopback`] (unit tests, no device).
//!
//! Both sides hold an authenticated [`Control`] channel (mutual TLS 1.3). Everything that
//! addresses the data path (QPNs, PSNs, GIDs, rkeys, VAs, grants) crosses only that channel. Then:
//!
//! 1. `send-c2s` / `send-s2c`: AEAD-protected SEND/RECV both ways ([`channel`]) with
//!    [`MARKER`] in every plaintext;
//! 2. `rotation`: the receiver installs epoch 1 while a SEND stream is in flight, the sender
//!    switches in the middle of it; every message arrives, in order, and an epoch-0 message sent
//!    after the switch is refused;
//! 3. `sealed-rw`: a [`SealedRegion`] block is RDMA-written to the server's leased MR and read
//!    back; `lessor-blind`: the lessor's memory holds no plaintext;
//! 4. `tamper`: the lessor flips one byte of the block in its own memory; the client's READ
//!    detects it;
//! 5. `grant-live` / `grant-expired`: a grant with a short lifetime allows a READ; when it
//!    expires the owner deregisters the MR and a READ under the expired grant fails (the library
//!    refuses it, and so does the device).
//!
//! Each check prints one line: `check <role> <name>: ok|FAIL (<detail>)`.

use crate::backend::{Endpoint, Loopback, RemoteMr, Transport};
use crate::channel::{EpochKey, Receiver, Sender, OVERHEAD};
use crate::error::{Error, Result};
use crate::handshake::Control;
use crate::keys::{Grant, GrantTable, MrRef, SessionKeys};
use crate::sealed::SealedRegion;
use rocesec_model::sechdr::Mode;
use serde::{Deserialize, Serialize};
use std::time::{Duration, SystemTime};

/// The known plaintext carried by every protected message and sealed block; a capture of the
/// data path must never contain it.
pub const MARKER: &str = "ROCESEC-PLAINTEXT-MARKER-3141592653";
/// Protection domain number used in the key hierarchy.
pub const PD: u32 = 1;
/// Plaintext bytes of one sealed block.
pub const SEALED_BLOCK: usize = 4096;
/// Sealed blocks in the leased MR.
pub const SEALED_BLOCKS: usize = 4;
/// Bytes of the leased MR the server registers.
pub const LEASE_LEN: usize = SEALED_BLOCKS * (SEALED_BLOCK + crate::sealed::BLOCK_OVERHEAD);
/// Largest message the scenario sends (protected), for sizing receive buffers.
pub const MAX_MESSAGE: usize = 256;

/// The leased memory region of the server (the lessor), as the scenario needs it.
pub trait Lease {
    /// The MR as advertised to the peer (inside TLS); `None` once deregistered.
    fn remote(&self) -> Option<RemoteMr>;
    /// Copy bytes of the owner's own memory at `off`.
    ///
    /// # Errors
    /// [`Error::OutOfRange`] outside the region.
    fn read_local(&self, off: usize, out: &mut [u8]) -> Result<()>;
    /// XOR `mask` into the byte at `off` of the owner's own memory (a malicious lessor).
    ///
    /// # Errors
    /// [`Error::OutOfRange`] outside the region.
    fn flip_local(&mut self, off: usize, mask: u8) -> Result<()>;
    /// Deregister the MR: its rkey stops working for remote access.
    ///
    /// # Errors
    /// [`Error::Verbs`] if the device refuses.
    fn deregister(&mut self) -> Result<()>;
}

impl Lease for Loopback {
    fn remote(&self) -> Option<RemoteMr> {
        self.local_mr()
    }
    fn read_local(&self, off: usize, out: &mut [u8]) -> Result<()> {
        self.memory(|m| {
            let src = m.get(off..off + out.len()).ok_or(Error::OutOfRange)?;
            out.copy_from_slice(src);
            Ok(())
        })
        .unwrap_or(Err(Error::Verbs("poisoned".into())))
    }
    fn flip_local(&mut self, off: usize, mask: u8) -> Result<()> {
        self.memory(|m| {
            let b = m.get_mut(off).ok_or(Error::OutOfRange)?;
            *b ^= mask;
            Ok(())
        })
        .unwrap_or(Err(Error::Verbs("poisoned".into())))
    }
    fn deregister(&mut self) -> Result<()> {
        Loopback::deregister(self);
        Ok(())
    }
}

/// Scenario parameters.
#[derive(Clone, Debug)]
pub struct Options {
    /// Messages per direction in `send-c2s` / `send-s2c`.
    pub messages: usize,
    /// Messages before and after the epoch switch in `rotation`.
    pub rotation_half: usize,
    /// Lifetime of the grant in `grant-live` / `grant-expired`.
    pub grant_lifetime: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            messages: 8,
            rotation_half: 16,
            grant_lifetime: Duration::from_secs(2),
        }
    }
}

/// The checks of one side, printed as they complete.
#[derive(Debug)]
pub struct Report {
    role: &'static str,
    echo: bool,
    /// Every line printed, in order.
    pub lines: Vec<String>,
    /// Checks that passed.
    pub passed: usize,
    /// Checks that failed.
    pub failed: usize,
    /// Counter sets published with [`Report::stats`].
    pub snapshots: Vec<crate::stats::Snapshot>,
}

impl Report {
    /// A report for `role` (`server` / `client`); `echo` prints each line to stdout.
    pub fn new(role: &'static str, echo: bool) -> Self {
        Self {
            role,
            echo,
            lines: Vec::new(),
            passed: 0,
            failed: 0,
            snapshots: Vec::new(),
        }
    }

    /// Record check `name` with its outcome (`Ok(detail)` / `Err(detail)`).
    pub fn check(&mut self, name: &str, r: std::result::Result<String, String>) {
        let line = match &r {
            Ok(d) => format!("check {} {name}: ok ({d})", self.role),
            Err(d) => format!("check {} {name}: FAIL ({d})", self.role),
        };
        if r.is_ok() {
            self.passed += 1;
        } else {
            self.failed += 1;
        }
        if self.echo {
            println!("{line}");
        }
        self.lines.push(line);
    }

    /// Publish the counters of `source` (printed as a `rocesec-stats` line when echoing; read
    /// them with `rocesec host-stats`).
    pub fn stats(&mut self, source: &str, stats: &crate::stats::Stats) {
        let snap = crate::stats::Snapshot {
            role: self.role.into(),
            source: source.into(),
            stats: stats.clone(),
        };
        if self.echo {
            println!("{}", snap.line());
        }
        self.snapshots.push(snap);
    }

    /// The closing line.
    pub fn summary(&self) -> String {
        format!(
            "rocesec-host-demo {}: {} checks ok, {} failed",
            self.role, self.passed, self.failed
        )
    }
}

/// Control messages of the scenario (JSON inside TLS).
#[derive(Debug, Serialize, Deserialize)]
enum Msg {
    Hello {
        ep: Endpoint,
        lease: Option<RemoteMr>,
    },
    Ready,
    NextInstalled {
        epoch: u8,
    },
    Sealed {
        offset: u64,
        len: u64,
    },
    Tampered {
        offset: u64,
    },
    Grant(Grant),
    GrantUsed,
    Expired {
        id: u64,
    },
    Done {
        failed: usize,
    },
}

fn expect(ctrl: &mut Control, what: &str) -> Result<Msg> {
    let m: Msg = ctrl.recv()?;
    let name = format!("{m:?}");
    if name.starts_with(what) {
        Ok(m)
    } else {
        Err(Error::Protocol(format!("expected {what}, got {name}")))
    }
}

/// The protected channels of one side: a sender to the peer's QP and a receiver for its own.
struct Channels {
    keys: SessionKeys,
    tx: Sender,
    rx: Receiver,
}

impl Channels {
    fn new(secret: &[u8], me: &Endpoint, peer: &Endpoint) -> Result<Self> {
        let keys = SessionKeys::new(secret, 16)?;
        let tx = Sender::new(Mode::Aead, peer.qpn, 0, qp_key(&keys, peer, 0)?)?;
        let rx = Receiver::new(Mode::Aead, me.qpn, 0, qp_key(&keys, me, 0)?);
        Ok(Self { keys, tx, rx })
    }
}

/// K_qp of the receiving QP `ep` under `epoch` (generation 0), as an [`EpochKey`].
fn qp_key(keys: &SessionKeys, ep: &Endpoint, epoch: u8) -> Result<EpochKey> {
    let k = keys.qp(PD, epoch, &ep.gid, ep.qpn, 0)?;
    EpochKey::new(epoch, k.bytes())
}

fn send_msg<T: Transport>(t: &mut T, tx: &mut Sender, body: &[u8]) -> Result<Vec<u8>> {
    let mut wire = vec![0u8; body.len() + OVERHEAD];
    let n = tx.seal_into(body, &mut wire)?;
    wire.truncate(n);
    t.send(&wire)?;
    Ok(wire)
}

fn recv_msg<T: Transport>(t: &mut T, rx: &mut Receiver) -> Result<Vec<u8>> {
    let mut wire = vec![0u8; MAX_MESSAGE + OVERHEAD];
    let n = t.recv(&mut wire)?;
    let mut out = vec![0u8; n];
    let m = rx.open_into(&wire[..n], &mut out)?;
    out.truncate(m);
    Ok(out)
}

fn body(dir: &str, i: usize) -> Vec<u8> {
    format!("{MARKER} {dir} message #{i}").into_bytes()
}

/// Receive `n` messages and compare them with `body(dir, first..first+n)`.
fn recv_stream<T: Transport>(
    t: &mut T,
    rx: &mut Receiver,
    dir: &str,
    range: std::ops::Range<usize>,
) -> std::result::Result<usize, String> {
    let mut good = 0;
    for i in range {
        let got = recv_msg(t, rx).map_err(|e| format!("message #{i}: {e}"))?;
        if got != body(dir, i) {
            return Err(format!("message #{i} differs (out of order or corrupted)"));
        }
        good += 1;
    }
    Ok(good)
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

fn sealed_plaintext() -> Vec<u8> {
    let mut v = Vec::with_capacity(SEALED_BLOCK);
    while v.len() < SEALED_BLOCK {
        v.extend_from_slice(MARKER.as_bytes());
        v.push(b' ');
    }
    v.truncate(SEALED_BLOCK);
    v
}

/// The server (lessor) side: `local` is its endpoint, `lease` the MR it leases, `connect` brings
/// the transport up once the peer's endpoint is known.
///
/// # Errors
/// A failed control exchange or transport set-up ([`Error::Protocol`], [`Error::Tls`],
/// [`Error::Io`], [`Error::Verbs`]); failed checks are in `rep`, not errors.
pub fn server<T: Transport, L: Lease>(
    ctrl: &mut Control,
    local: Endpoint,
    lease: &mut L,
    connect: impl FnOnce(&Endpoint) -> Result<T>,
    opts: &Options,
    rep: &mut Report,
) -> Result<()> {
    let Msg::Hello { ep: peer, .. } = expect(ctrl, "Hello")? else {
        unreachable!("expect checked the variant")
    };
    let mr = lease
        .remote()
        .ok_or(Error::Protocol("lease not registered".into()))?;
    ctrl.send(&Msg::Hello {
        ep: local,
        lease: Some(mr),
    })?;
    let mut t = connect(&peer)?;
    ctrl.send(&Msg::Ready)?;
    let mut ch = Channels::new(ctrl.secret(), &local, &peer)?;

    // 1. client -> server
    let r = recv_stream(&mut t, &mut ch.rx, "c2s", 0..opts.messages).map(|n| {
        format!(
            "{n}/{} AEAD messages authenticated, decrypted, marker intact",
            opts.messages
        )
    });
    rep.check("send-c2s", r);
    // 2. server -> client
    for i in 0..opts.messages {
        send_msg(&mut t, &mut ch.tx, &body("s2c", i))?;
    }
    // 3. rotation: receive a few, install epoch 1 (make), tell the sender to switch (break)
    let half = opts.rotation_half;
    let early = half.min(4);
    let r = (|| {
        let mut got = recv_stream(&mut t, &mut ch.rx, "rot", 0..early)?;
        ch.rx
            .install_next(qp_key(&ch.keys, &local, 1).map_err(|e| e.to_string())?);
        ctrl.send(&Msg::NextInstalled { epoch: 1 })
            .map_err(|e| e.to_string())?;
        got += recv_stream(&mut t, &mut ch.rx, "rot", early..2 * half)?;
        let rotations = ch.rx.stats.rotations;
        let stale = match recv_msg(&mut t, &mut ch.rx) {
            Err(Error::StaleEpoch) => "epoch-0 message after the switch refused (stale-epoch)",
            Err(e) => return Err(format!("epoch-0 message after the switch: {e}")),
            Ok(_) => return Err("epoch-0 message accepted after the switch".into()),
        };
        if rotations != 1 {
            return Err(format!("{rotations} rotations seen, expected 1"));
        }
        Ok(format!(
            "{got}/{} delivered in order across epoch 0 -> 1, {stale}",
            2 * half
        ))
    })();
    rep.check("rotation", r);
    // 4. sealed block: the lessor sees only ciphertext, then tampers with it
    let Msg::Sealed { offset, len } = expect(ctrl, "Sealed")? else {
        unreachable!("expect checked the variant")
    };
    let mut mem = vec![0u8; len as usize];
    let r = lease
        .read_local(offset as usize, &mut mem)
        .map_err(|e| e.to_string())
        .and_then(|()| {
            let probe = &MARKER.as_bytes()[..16];
            if contains(&mem, probe) {
                Err("plaintext visible in the lessor's memory".into())
            } else if mem.iter().all(|&b| b == 0) {
                Err("block not written".into())
            } else {
                Ok(format!("{len} bytes at offset {offset} hold no plaintext"))
            }
        });
    rep.check("lessor-blind", r);
    let flip = offset + 8 + 100; // a ciphertext byte of the block
    lease.flip_local(flip as usize, 0x01)?;
    ctrl.send(&Msg::Tampered { offset: flip })?;
    // 5. a grant with a short lifetime; deregister the MR when it expires
    let keys = SessionKeys::new(ctrl.secret(), 16)?;
    let mut table = GrantTable::default();
    let g = table.issue(keys.grant(
        &MrRef {
            pd: PD,
            epoch: 0,
            owner: local.gid,
            rkey: mr.rkey,
        },
        mr.va,
        u32::try_from(mr.len).unwrap_or(u32::MAX),
        SystemTime::now() + opts.grant_lifetime,
    )?);
    let id = g.id;
    ctrl.send(&Msg::Grant(g))?;
    expect(ctrl, "GrantUsed")?;
    let r = loop {
        match table.validate(id, SystemTime::now()) {
            Ok(()) => std::thread::sleep(Duration::from_millis(50)),
            Err(Error::Expired) => break lease.deregister().map_err(|e| e.to_string()),
            Err(e) => break Err(e.to_string()),
        }
    };
    let r = r.map(|()| {
        format!(
            "grant {id} expired after {:?}: MR deregistered",
            opts.grant_lifetime
        )
    });
    rep.check("grant-expire", r);
    ctrl.send(&Msg::Expired { id })?;
    let Msg::Done { failed } = expect(ctrl, "Done")? else {
        unreachable!("expect checked the variant")
    };
    ctrl.send(&Msg::Done { failed: rep.failed })?;
    if failed > 0 {
        rep.check(
            "peer",
            Err(format!("client reported {failed} failed checks")),
        );
    }
    rep.stats("channel-rx", &ch.rx.stats);
    Ok(())
}

/// The client side: `local` is its endpoint, `connect` brings the transport up; `local_secret`
/// keys the sealed region (never sent).
///
/// # Errors
/// As [`server`].
pub fn client<T: Transport>(
    ctrl: &mut Control,
    local: Endpoint,
    connect: impl FnOnce(&Endpoint) -> Result<T>,
    local_secret: &[u8],
    opts: &Options,
    rep: &mut Report,
) -> Result<()> {
    ctrl.send(&Msg::Hello {
        ep: local,
        lease: None,
    })?;
    let Msg::Hello { ep: peer, lease } = expect(ctrl, "Hello")? else {
        unreachable!("expect checked the variant")
    };
    let mr = lease.ok_or(Error::Protocol("server advertised no lease".into()))?;
    let mut t = connect(&peer)?;
    expect(ctrl, "Ready")?;
    let mut ch = Channels::new(ctrl.secret(), &local, &peer)?;

    // 1. client -> server
    for i in 0..opts.messages {
        send_msg(&mut t, &mut ch.tx, &body("c2s", i))?;
    }
    // 2. server -> client
    let r = recv_stream(&mut t, &mut ch.rx, "s2c", 0..opts.messages).map(|n| {
        format!(
            "{n}/{} AEAD messages authenticated, decrypted, marker intact",
            opts.messages
        )
    });
    rep.check("send-s2c", r);
    // 3. rotation in the middle of the stream
    let half = opts.rotation_half;
    let mut last_old = Vec::new();
    for i in 0..half {
        last_old = send_msg(&mut t, &mut ch.tx, &body("rot", i))?;
    }
    let Msg::NextInstalled { epoch } = expect(ctrl, "NextInstalled")? else {
        unreachable!("expect checked the variant")
    };
    ch.tx.rotate(qp_key(&ch.keys, &peer, epoch)?);
    for i in half..2 * half {
        send_msg(&mut t, &mut ch.tx, &body("rot", i))?;
    }
    t.send(&last_old)?; // an epoch-0 message after the switch: must be refused
    rep.check(
        "rotation-switch",
        Ok(format!(
            "sender switched to epoch {} after {half} of {} messages",
            ch.tx.epoch(),
            2 * half
        )),
    );
    // 4. sealed WRITE then READ of leased memory
    let mut region = SealedRegion::new(local_secret, 1, SEALED_BLOCK, SEALED_BLOCKS)?;
    let idx = 1;
    let data = sealed_plaintext();
    let off = region.offset(idx);
    let va = mr.va + off;
    let r = (|| -> Result<String> {
        let block = region.seal(idx, &data)?;
        t.write(&mr, va, &block)?;
        let mut back = vec![0u8; region.stride()];
        t.read(&mr, va, &mut back)?;
        if region.open(idx, &back)? != data {
            return Err(Error::AuthFail);
        }
        Ok(format!(
            "block {idx} ({} B sealed) written at va {va:#x}, read back and verified",
            back.len()
        ))
    })();
    rep.check("sealed-rw", r.map_err(|e| e.to_string()));
    ctrl.send(&Msg::Sealed {
        offset: off,
        len: region.stride() as u64,
    })?;
    let Msg::Tampered { offset } = expect(ctrl, "Tampered")? else {
        unreachable!("expect checked the variant")
    };
    let mut back = vec![0u8; region.stride()];
    let r = match t.read(&mr, va, &mut back).map(|()| region.open(idx, &back)) {
        Ok(Err(Error::AuthFail)) => Ok(format!(
            "byte flipped by the lessor at offset {offset} detected on READ (auth-fail)"
        )),
        Ok(Err(e)) => Err(format!("unexpected error {e}")),
        Ok(Ok(_)) => Err("tampered block accepted".into()),
        Err(e) => Err(format!("READ failed: {e}")),
    };
    rep.check("tamper", r);
    // 5. grant: allowed while live, refused once expired
    let Msg::Grant(g) = expect(ctrl, "Grant")? else {
        unreachable!("expect checked the variant")
    };
    let r = g
        .check(va, region.stride() as u64, SystemTime::now())
        .and_then(|()| t.read(&mr, va, &mut back))
        .map(|()| format!("grant {} in force: READ of {} B allowed", g.id, back.len()));
    rep.check("grant-live", r.map_err(|e| e.to_string()));
    ctrl.send(&Msg::GrantUsed)?;
    let Msg::Expired { id } = expect(ctrl, "Expired")? else {
        unreachable!("expect checked the variant")
    };
    let lib = g.check(va, region.stride() as u64, SystemTime::now());
    // A client that ignores the library's refusal still cannot read: the MR is gone.
    let dev = t.read(&mr, va, &mut back);
    let r = match (lib, dev) {
        (Err(Error::Expired), Err(e @ Error::Verbs(_))) => Ok(format!(
            "grant {id}: library refused (expired), device READ failed ({e})"
        )),
        (lib, dev) => Err(format!("library {lib:?}, device READ {dev:?}")),
    };
    rep.check("grant-expired", r);
    ctrl.send(&Msg::Done { failed: rep.failed })?;
    let Msg::Done { failed } = expect(ctrl, "Done")? else {
        unreachable!("expect checked the variant")
    };
    if failed > 0 {
        rep.check(
            "peer",
            Err(format!("server reported {failed} failed checks")),
        );
    }
    rep.stats("channel-rx", &ch.rx.stats);
    rep.stats("sealed", &region.stats);
    Ok(())
}
