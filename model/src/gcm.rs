//! AES-GCM and GMAC, NIST SP 800-38D §6–§7, composed explicitly from AES (FIPS 197) and
//! [`Ghash`].
//!
//! The composition is written out, stage by stage, with the spec's names: `H = E_K(0^128)`,
//! `J0` (§7.1 step 2), the counter blocks `inc32^i(J0)` (§6.2, §6.5), `S = GHASH_H(A || 0^v ||
//! C || 0^u || [len(A)]_64 || [len(C)]_64)` and `T = E_K(J0) ⊕ S` (tag length t = 128 only).
//! The `aes-gcm` crate is used only as a cross-check in `tests/crypto_proptest.rs`.
//!
//! Supported keys: AES-128 (16 bytes) and AES-256 (32 bytes). AES-192 is not supported.
//!
//! [`AesGcm::trace`] returns every intermediate, so a disagreeing RTL run can be printed stage by
//! stage.

use core::fmt;

use aes::cipher::{BlockCipherEncrypt, KeyInit};

use crate::ghash::{length_block, mul, Block, Ghash};

/// The key is neither 16 bytes (AES-128) nor 32 bytes (AES-256).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InvalidKeyLength;

impl fmt::Display for InvalidKeyLength {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid key length: expected 16 (AES-128) or 32 (AES-256) bytes")
    }
}

impl std::error::Error for InvalidKeyLength {}

/// Authentication failed (SP 800-38D §7.2 step 8: output FAIL).
///
/// Deliberately opaque: it does not say whether the tag length, the tag value, the IV or a length
/// limit was at fault, so it cannot serve as an oracle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TagMismatch;

impl fmt::Display for TagMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("authentication failed")
    }
}

impl std::error::Error for TagMismatch {}

/// An input length outside SP 800-38D §5.2.1.1: an empty IV, or a plaintext longer than
/// 2^39 − 256 bits, or AAD longer than 2^64 − 1 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InvalidLength;

impl fmt::Display for InvalidLength {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid length: IV must be non-empty, plaintext at most 2^36 - 32 bytes")
    }
}

impl std::error::Error for InvalidLength {}

/// Largest plaintext, in bytes: 2^39 − 256 bits (SP 800-38D §5.2.1.1), i.e. 2^32 − 2 blocks.
pub const MAX_PT_BYTES: u64 = (1 << 36) - 32;

/// `inc32(X)`, SP 800-38D §6.2 (`inc_s` with s = 32): adds 1 modulo 2^32 to the rightmost 32 bits
/// (bytes 12..16, big-endian) and leaves the leftmost 96 bits unchanged. `…ffffffff` wraps to
/// `…00000000` with no carry into byte 11.
pub fn inc32(b: &Block) -> Block {
    let mut out = *b;
    let ctr = u32::from_be_bytes([b[12], b[13], b[14], b[15]]).wrapping_add(1);
    out[12..].copy_from_slice(&ctr.to_be_bytes());
    out
}

/// The AES block cipher of one key size.
#[derive(Clone)]
enum Cipher {
    Aes128(aes::Aes128),
    Aes256(aes::Aes256),
}

/// AES-GCM with a 128-bit tag, keyed once: the block cipher `CIPH_K` and its hash subkey `H`.
///
/// `Debug` does not print key material.
#[derive(Clone)]
pub struct AesGcm {
    cipher: Cipher,
    h: Block,
}

impl fmt::Debug for AesGcm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bits = match self.cipher {
            Cipher::Aes128(_) => 128,
            Cipher::Aes256(_) => 256,
        };
        f.debug_struct("AesGcm")
            .field("key_bits", &bits)
            .finish_non_exhaustive()
    }
}

/// Every intermediate of one GCM encryption with a 96-bit IV (SP 800-38D §7.1), for printing
/// stage by stage when the RTL disagrees with the model.
///
/// `ghash` is computed with the reference [`mul`] (not the `ghash` crate), so comparing
/// [`GcmTrace::tag`] with [`AesGcm::seal_in_place`] also cross-checks the two GHASH
/// implementations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GcmTrace {
    /// Hash subkey `H = E_K(0^128)`.
    pub h: Block,
    /// Pre-counter block `J0 = IV || 0^31 || 1`.
    pub j0: Block,
    /// `Y_i` after every GHASH block, in order: each AAD block (last one zero-padded), each
    /// ciphertext block (last one zero-padded), then the length block. The last entry is `S`.
    pub ghash: Vec<Block>,
    /// Keystream blocks `E_K(inc32^i(J0))` for `i = 1..=ceil(len(P)/128)`.
    pub keystream: Vec<Block>,
    /// The ciphertext `C` (same length as the plaintext).
    pub ct: Vec<u8>,
    /// `S = GHASH_H(A || 0^v || C || 0^u || [len(A)]_64 || [len(C)]_64)`.
    pub s: Block,
    /// `E_K(J0)`, the block XORed onto `S` to make the tag.
    pub ek_j0: Block,
    /// The tag `T = E_K(J0) ⊕ S` (t = 128).
    pub tag: [u8; 16],
}

fn xor_block(a: &Block, b: &Block) -> Block {
    let mut out = *a;
    for (o, x) in out.iter_mut().zip(b) {
        *o ^= x;
    }
    out
}

/// Constant-time equality of a computed tag with a received one of the same length (the caller
/// checked the length, which is public). No early exit on the first differing byte.
fn ct_eq(a: &[u8; 16], b: &[u8]) -> bool {
    let mut diff = 0u8;
    for (x, y) in a.iter().zip(b) {
        diff |= x ^ y;
    }
    core::hint::black_box(diff) == 0
}

/// Length in bits of a slice, for the GCM length block.
///
/// A slice never exceeds `isize::MAX` bytes, so on 32-bit and 64-bit hosts the product fits
/// in a u64 except for slices over 2^61 bytes, which no host can allocate; `wrapping_mul` keeps the
/// function panic-free regardless.
fn bits(len: usize) -> u64 {
    (len as u64).wrapping_mul(8)
}

impl AesGcm {
    /// Keys the cipher: AES-128 for a 16-byte key, AES-256 for a 32-byte key (FIPS 197), and
    /// computes `H = E_K(0^128)` (SP 800-38D §7.1 step 1).
    ///
    /// # Errors
    /// [`InvalidKeyLength`] for any other key length (AES-192 is not supported).
    pub fn new(key: &[u8]) -> Result<Self, InvalidKeyLength> {
        let cipher = match key.len() {
            16 => Cipher::Aes128(aes::Aes128::new_from_slice(key).map_err(|_| InvalidKeyLength)?),
            32 => Cipher::Aes256(aes::Aes256::new_from_slice(key).map_err(|_| InvalidKeyLength)?),
            _ => return Err(InvalidKeyLength),
        };
        let mut this = Self { cipher, h: [0; 16] };
        this.h = this.encrypt_block(&[0; 16]);
        Ok(this)
    }

    /// The raw forward block cipher `CIPH_K(b)` (FIPS 197 §5.1), one 16-byte block.
    pub fn encrypt_block(&self, b: &Block) -> Block {
        let mut arr = aes::Block::from(*b);
        match &self.cipher {
            Cipher::Aes128(c) => c.encrypt_block(&mut arr),
            Cipher::Aes256(c) => c.encrypt_block(&mut arr),
        }
        arr.into()
    }

    /// The hash subkey `H = E_K(0^128)` (SP 800-38D §7.1 step 1), computed once in [`AesGcm::new`].
    pub fn h(&self) -> Block {
        self.h
    }

    /// The pre-counter block `J0` (SP 800-38D §7.1 step 2).
    ///
    /// For a 12-byte (96-bit) IV, `J0 = IV || 0^31 || 1`. For any other length,
    /// `J0 = GHASH_H(IV || 0^(s+64) || [len(IV)]_64)` with `s` the zero pad to a whole block.
    /// An empty IV is not allowed by §5.2.1.1; this function still evaluates the formula (giving
    /// `GHASH_H(0^128) = 0^128`), and the sealing and opening functions reject it.
    pub fn j0(&self, iv: &[u8]) -> Block {
        if let Ok(iv96) = <&[u8; 12]>::try_from(iv) {
            let mut j0 = [0u8; 16];
            j0[..12].copy_from_slice(iv96);
            j0[15] = 1;
            j0
        } else {
            let mut g = Ghash::new(&self.h);
            g.update_padded(iv);
            // The length block 0^64 || [len(IV)]_64 is the GCM length block with len(A) = 0.
            g.finalize_with_lengths(0, bits(iv.len()))
        }
    }

    /// `GCTR_K(inc32(J0), buf)` in place (SP 800-38D §6.5, §7.1 step 3): XORs the keystream
    /// `E_K(inc32^i(J0))`, `i = 1, 2, …`, onto `buf`; the last partial block uses the leftmost
    /// bytes of its keystream block.
    fn gctr_in_place(&self, j0: &Block, buf: &mut [u8]) {
        let mut cb = *j0;
        for chunk in buf.chunks_mut(16) {
            cb = inc32(&cb);
            let ks = self.encrypt_block(&cb);
            for (b, k) in chunk.iter_mut().zip(ks.iter()) {
                *b ^= k;
            }
        }
    }

    /// `T = E_K(J0) ⊕ GHASH_H(A || 0^v || C || 0^u || [len(A)]_64 || [len(C)]_64)` (§7.1 steps
    /// 5–6, t = 128).
    fn tag(&self, j0: &Block, aad: &[u8], ct: &[u8]) -> [u8; 16] {
        let mut g = Ghash::new(&self.h);
        g.update_padded(aad);
        g.update_padded(ct);
        let s = g.finalize_with_lengths(bits(aad.len()), bits(ct.len()));
        xor_block(&self.encrypt_block(j0), &s)
    }

    /// `GCM-AE_K(IV, P, A)` with a 96-bit IV (SP 800-38D §7.1): encrypts `buf` in place
    /// (plaintext in, ciphertext out, same length) and returns the 128-bit tag.
    ///
    /// `buf` may be empty (then this is GMAC over `aad`). Plaintexts beyond the §5.2.1.1 limit of
    /// [`MAX_PT_BYTES`] cannot be allocated on any host this model runs on; use
    /// [`AesGcm::seal_in_place_iv`] for a checked variant.
    pub fn seal_in_place(&self, iv: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        let j0 = self.j0(iv);
        self.gctr_in_place(&j0, buf);
        self.tag(&j0, aad, buf)
    }

    /// `GCM-AD_K(IV, C, A, T)` with a 96-bit IV (SP 800-38D §7.2): verifies `tag` over `aad` and
    /// the ciphertext in `buf`, then decrypts `buf` in place.
    ///
    /// The tag is checked **before** any decryption, with a constant-time compare; on failure
    /// `buf` is left exactly as it was (never partially decrypted).
    ///
    /// # Errors
    /// [`TagMismatch`] if `tag` is not exactly 16 bytes, or does not match.
    pub fn open_in_place(
        &self,
        iv: &[u8; 12],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<(), TagMismatch> {
        self.open_in_place_iv(iv, aad, buf, tag)
    }

    /// `GMAC_K(IV, A)`: GCM with an empty plaintext (SP 800-38D §3, §7.1), 96-bit IV, 128-bit tag.
    pub fn gmac(&self, iv: &[u8; 12], aad: &[u8]) -> [u8; 16] {
        self.seal_in_place(iv, aad, &mut [])
    }

    /// [`AesGcm::seal_in_place`] for an IV of any length (SP 800-38D §7.1; `J0` per
    /// [`AesGcm::j0`]).
    ///
    /// # Errors
    /// [`InvalidLength`] for an empty IV or a plaintext over [`MAX_PT_BYTES`] (§5.2.1.1); `buf` is
    /// then untouched.
    pub fn seal_in_place_iv(
        &self,
        iv: &[u8],
        aad: &[u8],
        buf: &mut [u8],
    ) -> Result<[u8; 16], InvalidLength> {
        if iv.is_empty() || buf.len() as u64 > MAX_PT_BYTES {
            return Err(InvalidLength);
        }
        let j0 = self.j0(iv);
        self.gctr_in_place(&j0, buf);
        Ok(self.tag(&j0, aad, buf))
    }

    /// [`AesGcm::open_in_place`] for an IV of any length (SP 800-38D §7.2).
    ///
    /// # Errors
    /// [`TagMismatch`] (opaque) if the IV is empty, the ciphertext is over [`MAX_PT_BYTES`], `tag`
    /// is not exactly 16 bytes, or the tag does not match. `buf` is untouched in every error case.
    pub fn open_in_place_iv(
        &self,
        iv: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<(), TagMismatch> {
        if iv.is_empty() || buf.len() as u64 > MAX_PT_BYTES || tag.len() != 16 {
            return Err(TagMismatch);
        }
        let j0 = self.j0(iv);
        let expected = self.tag(&j0, aad, buf);
        if !ct_eq(&expected, tag) {
            return Err(TagMismatch);
        }
        self.gctr_in_place(&j0, buf);
        Ok(())
    }

    /// Encrypts `pt` under a 96-bit IV like [`AesGcm::seal_in_place`], recording every
    /// intermediate (see [`GcmTrace`]). GHASH here is chained from the bit-serial reference
    /// [`mul`], independent of the `ghash` crate used by the data path.
    pub fn trace(&self, iv: &[u8; 12], aad: &[u8], pt: &[u8]) -> GcmTrace {
        let h = self.h;
        let j0 = self.j0(iv);

        let mut ct = pt.to_vec();
        let mut keystream = Vec::with_capacity(pt.len().div_ceil(16));
        let mut cb = j0;
        for chunk in ct.chunks_mut(16) {
            cb = inc32(&cb);
            let ks = self.encrypt_block(&cb);
            for (b, k) in chunk.iter_mut().zip(ks.iter()) {
                *b ^= k;
            }
            keystream.push(ks);
        }

        let mut ghash = Vec::with_capacity(aad.len().div_ceil(16) + ct.len().div_ceil(16) + 1);
        let mut y = [0u8; 16];
        let mut absorb = |x: &Block, ghash: &mut Vec<Block>| {
            y = mul(&xor_block(&y, x), &h);
            ghash.push(y);
        };
        for data in [aad, ct.as_slice()] {
            for chunk in data.chunks(16) {
                let mut x = [0u8; 16];
                x[..chunk.len()].copy_from_slice(chunk);
                absorb(&x, &mut ghash);
            }
        }
        absorb(&length_block(bits(aad.len()), bits(ct.len())), &mut ghash);

        let s = y;
        let ek_j0 = self.encrypt_block(&j0);
        let tag = xor_block(&ek_j0, &s);
        GcmTrace {
            h,
            j0,
            ghash,
            keystream,
            ct,
            s,
            ek_j0,
            tag,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inc32_wraps_without_carry() {
        let mut b = [0xab; 16];
        b[12..].copy_from_slice(&[0xff; 4]);
        let mut want = [0xab; 16];
        want[12..].copy_from_slice(&[0; 4]);
        assert_eq!(inc32(&b), want);
    }

    #[test]
    fn bad_key_lengths() {
        for n in [0, 15, 17, 24, 31, 33] {
            assert_eq!(AesGcm::new(&vec![0; n]).err(), Some(InvalidKeyLength));
        }
    }
}
