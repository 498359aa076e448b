//! Sealed remote memory: a client keeps data in memory leased from a peer that must never see the
//! plaintext, and detects any change on read.
//!
//! Each block of `block` plaintext bytes is stored remotely as
//!
//! ```text
//!  version (4, BE) ‖ reserved (4) ‖ ciphertext (block) ‖ tag (16)        stride = block + 24
//! ```
//!
//! AES-GCM (SP 800-38D) with a key only the client has (HKDF-SHA256 of the client's own secret
//! and the lease id; the lessor's session secret is NOT an input, so the lessor cannot derive
//! it), IV = block index (8, BE) ‖ version (4, BE), AAD = lease id (8) ‖ block index (8) ‖
//! version (4). The client keeps the latest version of every block locally, so a lessor that
//! returns an older block (rollback) or another block (relocation) is detected as well as any
//! bit flip.

use crate::error::{Error, Result};
use crate::stats::Stats;
use ring::aead::{self, Aad, LessSafeKey, Nonce, UnboundKey};
use rocesec_model::kdf::hkdf_sha256;

/// Bytes a sealed block adds to its plaintext.
pub const BLOCK_OVERHEAD: usize = 24;

/// Client-side state of one sealed lease.
pub struct SealedRegion {
    key: LessSafeKey,
    lease: u64,
    block: usize,
    versions: Vec<u32>,
    /// Counters.
    pub stats: Stats,
}

impl SealedRegion {
    /// A lease of `blocks` blocks of `block` bytes; key from the client's `local_secret`.
    ///
    /// # Errors
    /// [`Error::Kdf`] if the key cannot be derived.
    pub fn new(local_secret: &[u8], lease: u64, block: usize, blocks: usize) -> Result<Self> {
        let mut k = [0u8; 16];
        let mut info = b"rocesec sealed memory".to_vec();
        info.extend_from_slice(&lease.to_be_bytes());
        hkdf_sha256(b"rocesec v1 sealed", local_secret, &info, &mut k).map_err(|_| Error::Kdf)?;
        let key =
            LessSafeKey::new(UnboundKey::new(&aead::AES_128_GCM, &k).map_err(|_| Error::Kdf)?);
        Ok(Self {
            key,
            lease,
            block,
            versions: vec![0; blocks],
            stats: Stats::default(),
        })
    }

    /// Bytes one block occupies in remote memory.
    pub fn stride(&self) -> usize {
        self.block + BLOCK_OVERHEAD
    }

    /// Byte offset of block `idx` in the remote MR.
    pub fn offset(&self, idx: usize) -> u64 {
        (idx * self.stride()) as u64
    }

    fn aad(&self, idx: usize, version: u32) -> [u8; 20] {
        let mut a = [0u8; 20];
        a[..8].copy_from_slice(&self.lease.to_be_bytes());
        a[8..16].copy_from_slice(&(idx as u64).to_be_bytes());
        a[16..].copy_from_slice(&version.to_be_bytes());
        a
    }

    fn nonce(idx: usize, version: u32) -> Nonce {
        let mut n = [0u8; 12];
        n[..8].copy_from_slice(&(idx as u64).to_be_bytes());
        n[8..].copy_from_slice(&version.to_be_bytes());
        Nonce::assume_unique_for_key(n)
    }

    /// Seal `data` (exactly one block) as the next version of block `idx`, ready to RDMA WRITE.
    ///
    /// # Errors
    /// [`Error::OutOfRange`] for a bad index or size; [`Error::PnExhausted`] when the block's
    /// 32-bit version space is used up (re-lease with a new lease id).
    pub fn seal(&mut self, idx: usize, data: &[u8]) -> Result<Vec<u8>> {
        if idx >= self.versions.len() || data.len() != self.block {
            return Err(Error::OutOfRange);
        }
        let v = self.versions[idx]
            .checked_add(1)
            .ok_or(Error::PnExhausted)?;
        let mut out = Vec::with_capacity(self.stride());
        out.extend_from_slice(&v.to_be_bytes());
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(data);
        let aad = self.aad(idx, v);
        let tag = self
            .key
            .seal_in_place_separate_tag(Self::nonce(idx, v), Aad::from(&aad[..]), &mut out[8..])
            .map_err(|_| Error::AuthFail)?;
        out.extend_from_slice(tag.as_ref());
        self.versions[idx] = v;
        Ok(out)
    }

    /// Verify and decrypt block `idx` as read back from remote memory.
    ///
    /// # Errors
    /// [`Error::AuthFail`] for any change, an old version (rollback) or another block's
    /// contents; [`Error::OutOfRange`] for a bad index or size. Counted in [`SealedRegion::stats`].
    pub fn open(&mut self, idx: usize, stored: &[u8]) -> Result<Vec<u8>> {
        let r = self.open_inner(idx, stored);
        self.stats.count(&r);
        r
    }

    fn open_inner(&self, idx: usize, stored: &[u8]) -> Result<Vec<u8>> {
        if idx >= self.versions.len() || stored.len() != self.stride() {
            return Err(Error::OutOfRange);
        }
        let v = u32::from_be_bytes([stored[0], stored[1], stored[2], stored[3]]);
        if v != self.versions[idx] || stored[4..8] != [0; 4] {
            return Err(Error::AuthFail);
        }
        let aad = self.aad(idx, v);
        let mut buf = stored[8..].to_vec();
        let pt = self
            .key
            .open_in_place(Self::nonce(idx, v), Aad::from(&aad[..]), &mut buf)
            .map_err(|_| Error::AuthFail)?;
        Ok(pt.to_vec())
    }
}
