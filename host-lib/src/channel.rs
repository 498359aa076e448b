//! Software protection of two-sided traffic (SEND/RECV) for devices without a rocesec engine.
//!
//! Wire format of one protected message (inside the SEND payload):
//!
//! ```text
//!  0        1      2       3         4 .. 12      12 .. 12+n       last 16
//!  Version  Mode   Epoch   reserved  PN (64, BE)  body (n bytes)   tag
//! ```
//!
//! Version = 1. Mode = 2 (packet-auth: body in clear, GMAC over header ‖ body) or 3 (AEAD:
//! body encrypted, header as AAD), as in the SecHdr of `docs/wire-format.md`. The key is the
//! receiving QP's K_qp of the rocesec key hierarchy; the 96-bit IV is DestQP ‖ QpSalt ‖ PN[47:0]
//! exactly as on the wire (NIST SP 800-38D §8.2.1). The sender encrypts while copying into the
//! registered send buffer (one pass); the receiver verifies before decrypting into the
//! application's buffer, and never hands over unverified bytes.

use crate::error::{Error, Result};
use crate::stats::Stats;
use ring::aead::{self, Aad, LessSafeKey, Nonce, UnboundKey};
use rocesec_model::sechdr::{iv, Mode, PN_MAX};
use rocesec_model::stage::key::ReplayWindow;

/// Bytes of clear header before the body.
pub const HEADER_LEN: usize = 12;
/// Bytes of tag after the body.
pub const TAG_LEN: usize = 16;
/// Bytes a protected message adds to its body.
pub const OVERHEAD: usize = HEADER_LEN + TAG_LEN;
/// Message format version.
pub const VERSION: u8 = 1;

fn ring_key(key: &[u8]) -> Result<LessSafeKey> {
    let alg = match key.len() {
        16 => &aead::AES_128_GCM,
        32 => &aead::AES_256_GCM,
        _ => return Err(Error::Kdf),
    };
    Ok(LessSafeKey::new(
        UnboundKey::new(alg, key).map_err(|_| Error::Kdf)?,
    ))
}

/// One key epoch of a direction: the key and the IV fixed field.
pub struct EpochKey {
    /// Epoch number (mod 256).
    pub epoch: u8,
    key: LessSafeKey,
}

impl EpochKey {
    /// Wrap raw key bytes (16 or 32) for `epoch`.
    ///
    /// # Errors
    /// [`Error::Kdf`] for a key of another length.
    pub fn new(epoch: u8, key: &[u8]) -> Result<Self> {
        Ok(Self {
            epoch,
            key: ring_key(key)?,
        })
    }
}

/// Sending side of a protected QP.
pub struct Sender {
    mode: Mode,
    dest_qp: u32,
    salt: u32,
    next_pn: u64,
    current: EpochKey,
}

impl Sender {
    /// A sender to `dest_qp` with IV salt `salt` (connection generation), starting at PN 1.
    ///
    /// # Errors
    /// [`Error::Protocol`] for a mode other than packet-auth or AEAD.
    pub fn new(mode: Mode, dest_qp: u32, salt: u32, key: EpochKey) -> Result<Self> {
        if !matches!(mode, Mode::PacketAuth | Mode::Aead) {
            return Err(Error::Protocol(format!(
                "software SEND path supports packet-auth and aead, not {mode}"
            )));
        }
        Ok(Self {
            mode,
            dest_qp,
            salt,
            next_pn: 1,
            current: key,
        })
    }

    /// Switch to a new epoch key (make-before-break: the receiver must have installed it).
    pub fn rotate(&mut self, key: EpochKey) {
        self.current = key;
    }

    /// Current epoch.
    pub fn epoch(&self) -> u8 {
        self.current.epoch
    }

    /// Protect `body` while copying it into `out` (the registered send buffer); returns the
    /// number of bytes written (`body.len() + OVERHEAD`).
    ///
    /// # Errors
    /// [`Error::BufferTooSmall`]; [`Error::PnExhausted`] after 2^48 − 1 messages.
    pub fn seal_into(&mut self, body: &[u8], out: &mut [u8]) -> Result<usize> {
        let n = body.len() + OVERHEAD;
        if out.len() < n {
            return Err(Error::BufferTooSmall {
                need: n,
                have: out.len(),
            });
        }
        if self.next_pn > PN_MAX {
            return Err(Error::PnExhausted);
        }
        let pn = self.next_pn;
        let (hdr, rest) = out.split_at_mut(HEADER_LEN);
        hdr[0] = VERSION;
        hdr[1] = self.mode.code().unwrap_or(0);
        hdr[2] = self.current.epoch;
        hdr[3] = 0;
        hdr[4..12].copy_from_slice(&pn.to_be_bytes());
        let (dst, tail) = rest.split_at_mut(body.len());
        dst.copy_from_slice(body);
        let nonce = Nonce::assume_unique_for_key(iv(self.dest_qp, self.salt, pn));
        let tag = match self.mode {
            Mode::Aead => self
                .current
                .key
                .seal_in_place_separate_tag(nonce, Aad::from(&hdr[..]), dst)
                .map_err(|_| Error::AuthFail)?,
            _ => {
                // GMAC: AES-GCM with the whole message as AAD and nothing to encrypt.
                let mut aad = Vec::with_capacity(HEADER_LEN + body.len());
                aad.extend_from_slice(hdr);
                aad.extend_from_slice(body);
                self.current
                    .key
                    .seal_in_place_separate_tag(nonce, Aad::from(&aad[..]), &mut [])
                    .map_err(|_| Error::AuthFail)?
            }
        };
        tail[..TAG_LEN].copy_from_slice(tag.as_ref());
        self.next_pn += 1;
        Ok(n)
    }
}

/// Receiving side of a protected QP: two key slots (current and next epoch) and a replay window.
pub struct Receiver {
    mode: Mode,
    my_qp: u32,
    salt: u32,
    current: EpochKey,
    next: Option<EpochKey>,
    window: ReplayWindow,
    /// Counters of this receiver.
    pub stats: Stats,
}

impl Receiver {
    /// A receiver for QP `my_qp` (the sender's DestQP) with `salt`.
    pub fn new(mode: Mode, my_qp: u32, salt: u32, key: EpochKey) -> Self {
        Self {
            mode,
            my_qp,
            salt,
            current: key,
            next: None,
            window: ReplayWindow::default(),
            stats: Stats::default(),
        }
    }

    /// Install the next epoch's key; both are accepted until the first message under it.
    pub fn install_next(&mut self, key: EpochKey) {
        self.next = Some(key);
    }

    /// Verify `msg` and, only if it authenticates, decrypt its body into `out`; returns the body
    /// length. Nothing is written to `out` for a message that fails.
    ///
    /// # Errors
    /// [`Error::Protocol`] (bad header), [`Error::StaleEpoch`], [`Error::Replay`],
    /// [`Error::AuthFail`], [`Error::BufferTooSmall`]. Each is counted in [`Receiver::stats`].
    pub fn open_into(&mut self, msg: &[u8], out: &mut [u8]) -> Result<usize> {
        let r = self.open_inner(msg, out);
        self.stats.count(&r);
        r
    }

    fn open_inner(&mut self, msg: &[u8], out: &mut [u8]) -> Result<usize> {
        if msg.len() < OVERHEAD || msg[0] != VERSION || msg[3] != 0 {
            return Err(Error::Protocol("not a rocesec v1 message".into()));
        }
        if Mode::from_code(msg[1]) != Some(self.mode) {
            return Err(Error::Protocol(
                "message mode differs from the QP's mode".into(),
            ));
        }
        let n = msg.len() - OVERHEAD;
        if out.len() < n {
            return Err(Error::BufferTooSmall {
                need: n,
                have: out.len(),
            });
        }
        let epoch = msg[2];
        let use_next = match (&self.next, epoch) {
            (_, e) if e == self.current.epoch => false,
            (Some(k), e) if e == k.epoch => true,
            _ => return Err(Error::StaleEpoch),
        };
        let mut pnb = [0u8; 8];
        pnb.copy_from_slice(&msg[4..12]);
        let pn = u64::from_be_bytes(pnb);
        if pn > PN_MAX {
            return Err(Error::Protocol("PN wider than 48 bits".into()));
        }
        if !self.window.check(pn) {
            return Err(Error::Replay);
        }
        let key = if use_next {
            self.next.as_ref().map_or(&self.current.key, |k| &k.key)
        } else {
            &self.current.key
        };
        let nonce = Nonce::assume_unique_for_key(iv(self.my_qp, self.salt, pn));
        let (hdr, rest) = msg.split_at(HEADER_LEN);
        let (body, tag) = rest.split_at(n);
        match self.mode {
            Mode::Aead => {
                // Verify-then-decrypt in a scratch copy, so `out` never holds unverified bytes.
                let mut buf = Vec::with_capacity(n + TAG_LEN);
                buf.extend_from_slice(body);
                buf.extend_from_slice(tag);
                let pt = key
                    .open_in_place(nonce, Aad::from(hdr), &mut buf)
                    .map_err(|_| Error::AuthFail)?;
                out[..n].copy_from_slice(pt);
            }
            _ => {
                let mut t = tag.to_vec();
                key.open_in_place(nonce, Aad::from(&msg[..HEADER_LEN + n]), &mut t)
                    .map_err(|_| Error::AuthFail)?;
                out[..n].copy_from_slice(body);
            }
        }
        self.window.update(pn);
        if use_next {
            if let Some(k) = self.next.take() {
                self.current = k;
                self.stats.rotations += 1;
            }
        }
        Ok(n)
    }
}
