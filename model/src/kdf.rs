//! Key derivation: AES-CMAC (NIST SP 800-38B), KBKDF in counter mode with AES-CMAC as PRF
//! (NIST SP 800-108r1 §4.1), and HKDF-SHA256 (RFC 5869).
//!
//! The data plane of rocesec derives per-flow keys with [`derive_key`], a KBKDF that hardware can
//! run with the same AES core as GCM. [`hkdf_sha256`] is there for the control plane and for
//! interoperability.

use core::fmt;

use cmac::{Cmac, KeyInit, Mac};
use sha2::Sha256;

use crate::gcm::InvalidKeyLength;

/// A KDF input is out of range: the key is not 16 or 32 bytes, the counter width is not 8, 16, 24
/// or 32 bits, or the requested output length is 0 or larger than the KDF can produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KdfError;

impl fmt::Display for KdfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "KDF input out of range: invalid key length (16 or 32 bytes), counter width, \
             or output length out of range",
        )
    }
}

impl std::error::Error for KdfError {}

/// A keyed AES-CMAC of either key size.
#[derive(Clone)]
enum AesCmac {
    Aes128(Cmac<aes::Aes128>),
    Aes256(Cmac<aes::Aes256>),
}

impl AesCmac {
    fn new(key: &[u8]) -> Result<Self, InvalidKeyLength> {
        match key.len() {
            16 => Cmac::<aes::Aes128>::new_from_slice(key)
                .map(Self::Aes128)
                .map_err(|_| InvalidKeyLength),
            32 => Cmac::<aes::Aes256>::new_from_slice(key)
                .map(Self::Aes256)
                .map_err(|_| InvalidKeyLength),
            _ => Err(InvalidKeyLength),
        }
    }

    fn update(&mut self, data: &[u8]) {
        match self {
            Self::Aes128(m) => m.update(data),
            Self::Aes256(m) => m.update(data),
        }
    }

    fn finalize(self) -> [u8; 16] {
        match self {
            Self::Aes128(m) => m.finalize().into_bytes().into(),
            Self::Aes256(m) => m.finalize().into_bytes().into(),
        }
    }
}

/// AES-CMAC of `msg` under `key` (NIST SP 800-38B §6.2), full 128-bit tag, via the `cmac` crate.
///
/// `key` is 16 bytes (AES-128) or 32 bytes (AES-256); `msg` may be empty.
///
/// # Errors
/// [`InvalidKeyLength`] for any other key length.
pub fn aes_cmac(key: &[u8], msg: &[u8]) -> Result<[u8; 16], InvalidKeyLength> {
    let mut mac = AesCmac::new(key)?;
    mac.update(msg);
    Ok(mac.finalize())
}

/// KBKDF in counter mode (NIST SP 800-108r1 §4.1) with PRF = AES-CMAC, counter before the fixed
/// input.
///
/// Fills `out` (L = `out.len()` bytes) with the leftmost L bytes of
/// `K(1) || K(2) || … || K(n)`, `n = ceil(L / 16)`, where `K(i) = CMAC(key, [i]_r || fixed_input)`
/// and `[i]_r` is `i` as an r-bit (`counter_bits`) big-endian integer, `i` counting from 1.
/// `fixed_input` is passed as is (it carries Label, Context and `[L]` in whatever layout the
/// caller chose); this raw form is what the NIST CAVP `KDFCTR_gen.rsp` vectors exercise.
///
/// # Errors
/// [`KdfError`] if `key` is not 16 or 32 bytes, `counter_bits` is not 8, 16, 24 or 32, `out` is
/// empty, or `n > 2^r − 1` (§4.1 step 2). `out` is untouched on error.
pub fn kbkdf_ctr_cmac(
    key: &[u8],
    counter_bits: u32,
    fixed_input: &[u8],
    out: &mut [u8],
) -> Result<(), KdfError> {
    if !matches!(counter_bits, 8 | 16 | 24 | 32) {
        return Err(KdfError);
    }
    let prf = AesCmac::new(key).map_err(|_| KdfError)?;
    let n = out.len().div_ceil(16) as u64;
    let max_blocks = (1u64 << counter_bits) - 1;
    if n == 0 || n > max_blocks {
        return Err(KdfError);
    }
    let r_bytes = (counter_bits / 8) as usize;
    // i runs from 1 to n <= 2^r - 1 <= u32::MAX, so it fits in a u32 and never wraps.
    for (i, chunk) in (1u32..).zip(out.chunks_mut(16)) {
        let mut mac = prf.clone();
        mac.update(&i.to_be_bytes()[4 - r_bytes..]);
        mac.update(fixed_input);
        let k_i = mac.finalize();
        chunk.copy_from_slice(&k_i[..chunk.len()]);
    }
    Ok(())
}

/// The data-plane KDF of rocesec: KBKDF in counter mode with AES-CMAC (NIST SP 800-108r1 §4.1),
/// r = 32, and the fixed input laid out as SP 800-108r1 §4 suggests:
///
/// `fixed_input = Label || 0x00 || Context || [L]_32`, with `L = 8 · out.len()` (bits, big-endian).
///
/// So block i is `CMAC(parent, [i]_32 || Label || 0x00 || Context || [L]_32)`. This is the
/// hardware-friendly choice of PSP and UEC-style engines: one AES core serves both GCM and the KDF,
/// and a 128- or 256-bit key takes one or two CMAC invocations.
///
/// # Errors
/// [`KdfError`] if `parent` is not 16 or 32 bytes, `out` is empty, or L does not fit in 32 bits.
pub fn derive_key(
    parent: &[u8],
    label: &[u8],
    context: &[u8],
    out: &mut [u8],
) -> Result<(), KdfError> {
    let l_bits = u32::try_from(out.len())
        .ok()
        .and_then(|n| n.checked_mul(8))
        .ok_or(KdfError)?;
    let mut fixed = Vec::with_capacity(label.len() + 1 + context.len() + 4);
    fixed.extend_from_slice(label);
    fixed.push(0x00);
    fixed.extend_from_slice(context);
    fixed.extend_from_slice(&l_bits.to_be_bytes());
    kbkdf_ctr_cmac(parent, 32, &fixed, out)
}

/// Largest HKDF-SHA256 output: 255 · HashLen = 8160 bytes (RFC 5869 §2.3).
pub const HKDF_SHA256_MAX_OUT: usize = 255 * 32;

/// HKDF-SHA256 (RFC 5869 §2.2 extract, §2.3 expand), via the `hkdf` crate.
///
/// Writes exactly L = `out.len()` bytes of OKM. An empty `salt` is the RFC's "not provided" (a
/// string of HashLen zeros: HMAC pads either to the same key).
///
/// # Errors
/// [`KdfError`] if L = 0 or L > 8160 ([`HKDF_SHA256_MAX_OUT`]). `out` is untouched on error.
pub fn hkdf_sha256(salt: &[u8], ikm: &[u8], info: &[u8], out: &mut [u8]) -> Result<(), KdfError> {
    if out.is_empty() || out.len() > HKDF_SHA256_MAX_OUT {
        return Err(KdfError);
    }
    hkdf::Hkdf::<Sha256>::new(Some(salt), ikm)
        .expand(info, out)
        .map_err(|_| KdfError)
}
