//! Session keys, memory-region grants with expiry, epoch rotation and revocation, on top of the
//! key hierarchy of `rocesec-model` (`docs/key-hierarchy.md`): the same derivations the engine
//! and the golden model use, so software-protected and engine-protected peers interoperate.

use crate::error::{Error, Result};
use rocesec_model::keys::{self as mk, Gid, Key};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::time::{Duration, SystemTime};

/// Default lifetime of a delegated grant (1 hour).
pub const DEFAULT_GRANT_LIFETIME: Duration = Duration::from_secs(3600);

/// Keys of one session: the TLS exporter secret and the AES key size.
pub struct SessionKeys {
    secret: Vec<u8>,
    key_len: usize,
}

impl SessionKeys {
    /// From the session secret (TLS 1.3 exporter, RFC 8446 §7.5) and key size in bytes (16/32).
    ///
    /// # Errors
    /// [`Error::Kdf`] for a key size other than 16 or 32.
    pub fn new(secret: &[u8], key_len: usize) -> Result<Self> {
        if key_len != 16 && key_len != 32 {
            return Err(Error::Kdf);
        }
        Ok(Self {
            secret: secret.to_vec(),
            key_len,
        })
    }

    /// K_pd(pd, epoch): HKDF-SHA256 of the session secret.
    ///
    /// # Errors
    /// [`Error::Kdf`] only for invalid sizes.
    pub fn pd(&self, pd: u32, epoch: u8) -> Result<Key> {
        mk::pd_key(&self.secret, pd, epoch, self.key_len).map_err(|_| Error::Kdf)
    }

    /// K_qp of the receiving QP (`gid`, `qpn`) with connection generation `gen`.
    ///
    /// # Errors
    /// [`Error::Kdf`] only for invalid sizes.
    pub fn qp(&self, pd: u32, epoch: u8, gid: &Gid, qpn: u32, gen: u32) -> Result<Key> {
        mk::qp_key(&self.pd(pd, epoch)?, gid, qpn, gen).map_err(|_| Error::Kdf)
    }

    /// Issue a grant: the key of the smallest address node holding `[va, va+len)` of `mr`,
    /// valid for `mr.epoch` until `expires`.
    ///
    /// # Errors
    /// [`Error::OutOfRange`] when the range wraps past 2^64.
    pub fn grant(&self, mr: &MrRef, va: u64, len: u32, expires: SystemTime) -> Result<Grant> {
        let level = mk::smallest_level(va, len).ok_or(Error::OutOfRange)?;
        let index = mk::node_index(va, level);
        let k_mr =
            mk::mr_key(&self.pd(mr.pd, mr.epoch)?, &mr.owner, mr.rkey).map_err(|_| Error::Kdf)?;
        let key = mk::node_key(&k_mr, level, index).map_err(|_| Error::Kdf)?;
        Ok(Grant {
            rkey: mr.rkey,
            level,
            index,
            epoch: mr.epoch,
            expires,
            key: key.bytes().to_vec(),
            id: 0,
        })
    }
}

/// A memory region as the key hierarchy names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MrRef {
    /// Protection domain.
    pub pd: u32,
    /// Epoch.
    pub epoch: u8,
    /// GID of the host that owns the MR.
    pub owner: Gid,
    /// rkey.
    pub rkey: u32,
}

/// A delegated sub-region capability: the node key and the range it covers. Sent to the peer
/// inside the TLS channel only.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grant {
    /// Grant id in the issuer's table.
    pub id: u64,
    /// rkey of the MR.
    pub rkey: u32,
    /// Node level (size 4 KiB · 2^level).
    pub level: u8,
    /// Node index.
    pub index: u64,
    /// Epoch the key belongs to.
    pub epoch: u8,
    /// Expiry time.
    pub expires: SystemTime,
    /// Node key bytes.
    pub key: Vec<u8>,
}

impl Grant {
    /// The address range `[start, end)` the grant covers (end saturates at 2^64 − 1).
    pub fn range(&self) -> (u64, u64) {
        let shift = 12 + self.level as u32;
        if shift >= 64 {
            return (0, u64::MAX);
        }
        let start = self.index << shift;
        (start, start.saturating_add(1u64 << shift))
    }

    /// Check an access of `len` bytes at `va` at time `now`.
    ///
    /// # Errors
    /// [`Error::Expired`] after expiry; [`Error::OutOfRange`] outside the node.
    pub fn check(&self, va: u64, len: u64, now: SystemTime) -> Result<()> {
        if now >= self.expires {
            return Err(Error::Expired);
        }
        let (s, e) = self.range();
        let end = va.checked_add(len).ok_or(Error::OutOfRange)?;
        if va < s || end > e {
            return Err(Error::OutOfRange);
        }
        Ok(())
    }
}

/// The issuer's table of grants, for expiry and revocation.
#[derive(Default)]
pub struct GrantTable {
    next: u64,
    live: HashMap<u64, SystemTime>,
}

impl GrantTable {
    /// Record `g` and assign its id.
    pub fn issue(&mut self, mut g: Grant) -> Grant {
        self.next += 1;
        g.id = self.next;
        self.live.insert(g.id, g.expires);
        g
    }

    /// Revoke grant `id` (the owner then rotates the MR's epoch or re-registers the MR so the
    /// key stops working in the data path; the table makes the library refuse it at once).
    pub fn revoke(&mut self, id: u64) {
        self.live.remove(&id);
    }

    /// Whether grant `id` is still valid at `now`.
    ///
    /// # Errors
    /// [`Error::Revoked`] or [`Error::Expired`].
    pub fn validate(&self, id: u64, now: SystemTime) -> Result<()> {
        match self.live.get(&id) {
            None => Err(Error::Revoked),
            Some(&exp) if now >= exp => Err(Error::Expired),
            Some(_) => Ok(()),
        }
    }
}

/// When to rotate the epoch: a fixed period (default 1 hour, configurable).
#[derive(Clone, Debug)]
pub struct RotationPolicy {
    /// Period between rotations.
    pub period: Duration,
    last: SystemTime,
}

impl RotationPolicy {
    /// A policy with `period`, counting from `now`.
    pub fn new(period: Duration, now: SystemTime) -> Self {
        Self { period, last: now }
    }

    /// True (once per period) when a rotation is due at `now`.
    pub fn due(&mut self, now: SystemTime) -> bool {
        if now
            .duration_since(self.last)
            .is_ok_and(|d| d >= self.period)
        {
            self.last = now;
            true
        } else {
            false
        }
    }
}
