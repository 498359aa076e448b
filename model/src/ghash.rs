//! GHASH and multiplication in GF(2^128), NIST SP 800-38D §6.3–§6.4.
//!
//! # Byte and bit order
//!
//! A [`Block`] is 16 bytes in the order of SP 800-38D §6.1: byte 0 is the leftmost byte, and bit
//! `x_0` of the spec is the most significant bit of byte 0. The field element it stands for is
//! `x_0 + x_1·α + … + x_127·α^127` over the polynomial `1 + α + α^2 + α^7 + α^128`, so the constant
//! `R = 11100001 || 0^120` of Algorithm 1 is the block `e1 00 … 00`.
//!
//! # Two implementations, one answer
//!
//! - [`mul`] is SP 800-38D Algorithm 1 written bit-serially, line by line. It is the reference that
//!   the RTL block `ghash_mul` is compared with, and what [`crate::gcm::AesGcm::trace`] uses.
//! - [`Ghash`] is the running hash `GHASH_H` used on the data path. It is backed by the `ghash`
//!   crate (carry-less multiply where the CPU has it); `tests/crypto_proptest.rs` proves it equal to
//!   chaining [`mul`].

use ghash::universal_hash::UniversalHash;

/// One 128-bit block, big-endian as in SP 800-38D §6.1 (byte 0 holds bits `x_0..x_7`).
pub type Block = [u8; 16];

/// The reduction constant `R = 11100001 || 0^120` of SP 800-38D §6.3, as a big-endian integer.
const R: u128 = 0xe1 << 120;

/// Product `x • y` of two blocks in GF(2^128), SP 800-38D §6.3 Algorithm 1.
///
/// Bit-serial, exactly as the spec writes it: `Z_0 = 0^128`, `V_0 = Y`; for `i = 0..=127`,
/// `Z_{i+1} = Z_i ⊕ V_i` when bit `x_i` is set, and `V_{i+1} = V_i >> 1`, reduced by `R` when the
/// bit shifted out (`LSB_1(V_i)`) was set. Returns `Z_128`.
///
/// Commutative, and the multiplicative identity is the block `80 00 … 00` (the element 1).
/// The choices are made with masks rather than branches, but the function is bit-serial and slow:
/// it is the reference, not the data path.
pub fn mul(x: &Block, y: &Block) -> Block {
    let x = u128::from_be_bytes(*x);
    let mut z: u128 = 0;
    let mut v = u128::from_be_bytes(*y);
    for i in 0..128 {
        // x_i is the i-th bit from the left, i.e. bit 127 - i of the big-endian integer.
        let x_i = (x >> (127 - i)) & 1;
        // Z_{i+1} = Z_i if x_i = 0, Z_i ⊕ V_i if x_i = 1 (mask form of the same choice).
        z ^= v & x_i.wrapping_neg();
        // V_{i+1} = V_i >> 1 if LSB_1(V_i) = 0, (V_i >> 1) ⊕ R if LSB_1(V_i) = 1.
        let lsb = v & 1;
        v = (v >> 1) ^ (R & lsb.wrapping_neg());
    }
    z.to_be_bytes()
}

/// The running hash `GHASH_H`, SP 800-38D §6.4 Algorithm 2: `Y_0 = 0^128`,
/// `Y_i = (Y_{i-1} ⊕ X_i) • H`.
///
/// Backed by the `ghash` crate. The GCM length block is appended by
/// [`Ghash::finalize_with_lengths`], so a GCM tag input `S` is
/// `update_padded(A); update_padded(C); finalize_with_lengths(len(A), len(C))`.
#[derive(Clone, Debug)]
pub struct Ghash {
    inner: ghash::GHash,
}

impl Ghash {
    /// A fresh hash (`Y_0 = 0^128`) keyed by the hash subkey `H` (in GCM, `H = E_K(0^128)`).
    pub fn new(h: &Block) -> Self {
        Self {
            inner: ghash::GHash::new(&ghash::Key::from(*h)),
        }
    }

    /// Absorbs one full block `X_i`: `Y_i = (Y_{i-1} ⊕ X_i) • H`.
    pub fn update_block(&mut self, b: &Block) {
        self.inner.update(&[ghash::Block::from(*b)]);
    }

    /// Absorbs `data` as whole blocks, zero-padding the last partial block to 16 bytes, as GCM
    /// does for `A || 0^v` and `C || 0^u` (SP 800-38D §7.1 step 5).
    ///
    /// No pad block is added when `data.len() % 16 == 0` (including when `data` is empty).
    pub fn update_padded(&mut self, data: &[u8]) {
        self.inner.update_padded(data);
    }

    /// The current value `Y_i` (the hash of the blocks absorbed so far, without a length block).
    pub fn state(&self) -> Block {
        self.inner.clone().finalize().into()
    }

    /// Absorbs the GCM length block `[len(A)]_64 || [len(C)]_64` and returns the final `Y_m`.
    ///
    /// Both lengths are in **bits**, big-endian (SP 800-38D §7.1 step 5; §7.2 step 6).
    pub fn finalize_with_lengths(mut self, aad_bits: u64, ct_bits: u64) -> Block {
        self.update_block(&length_block(aad_bits, ct_bits));
        self.inner.finalize().into()
    }
}

/// The GCM length block `[len(A)]_64 || [len(C)]_64`, both lengths in bits, big-endian.
pub fn length_block(aad_bits: u64, ct_bits: u64) -> Block {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&aad_bits.to_be_bytes());
    b[8..].copy_from_slice(&ct_bits.to_be_bytes());
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: Block = [0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];

    #[test]
    fn one_is_identity() {
        let y = [0x5a; 16];
        assert_eq!(mul(&ONE, &y), y);
        assert_eq!(mul(&y, &ONE), y);
    }

    #[test]
    fn alpha_times_alpha127_reduces_to_r() {
        // α = bit x_1; α^127 = bit x_127. α^128 = 1 + α + α^2 + α^7 = R.
        let mut alpha = [0u8; 16];
        alpha[0] = 0x40;
        let mut alpha127 = [0u8; 16];
        alpha127[15] = 0x01;
        let mut r = [0u8; 16];
        r[0] = 0xe1;
        assert_eq!(mul(&alpha, &alpha127), r);
    }
}
