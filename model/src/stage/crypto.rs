//! Stage `crypto`: AES-GCM (NIST SP 800-38D) in the three protection modes.
//!
//! | mode        | AAD                                            | encrypted        | ICV             |
//! |-------------|------------------------------------------------|------------------|-----------------|
//! | header-auth | invariant headers (IP/UDP/BTH masked, SecHdr, ext headers) | —    | GMAC(AAD)       |
//! | packet-auth | invariant headers ‖ payload ‖ pad              | —                | GMAC(AAD)       |
//! | aead        | invariant headers                              | payload ‖ pad    | GCM tag         |

use crate::gcm::{AesGcm, TagMismatch};
use crate::keys::Key;
use crate::sechdr::{Mode, ICV_LEN};

/// Protect `payload` in place and return the ICV.
///
/// `hdr_aad` is the invariant header AAD; `payload` is payload ‖ pad.
pub fn seal(
    mode: Mode,
    key: &Key,
    iv: &[u8; 12],
    hdr_aad: &[u8],
    payload: &mut [u8],
) -> [u8; ICV_LEN] {
    let Ok(g) = AesGcm::new(key.bytes()) else {
        // Key is 16 or 32 bytes by construction of `Key`.
        return [0; ICV_LEN];
    };
    match mode {
        Mode::Aead => g.seal_in_place(iv, hdr_aad, payload),
        Mode::PacketAuth => g.gmac(iv, &[hdr_aad, payload].concat()),
        Mode::HeaderAuth | Mode::Bypass => g.gmac(iv, hdr_aad),
    }
}

/// Verify the ICV and, in AEAD mode, decrypt `payload` in place. On failure `payload` is left
/// unchanged: nothing unauthenticated is ever released.
///
/// # Errors
/// [`TagMismatch`] when the ICV does not verify.
pub fn open(
    mode: Mode,
    key: &Key,
    iv: &[u8; 12],
    hdr_aad: &[u8],
    payload: &mut [u8],
    icv: &[u8],
) -> Result<(), TagMismatch> {
    let g = AesGcm::new(key.bytes()).map_err(|_| TagMismatch)?;
    match mode {
        Mode::Aead => g.open_in_place(iv, hdr_aad, payload, icv),
        Mode::PacketAuth => g.open_in_place(iv, &[hdr_aad, payload].concat(), &mut [], icv),
        Mode::HeaderAuth | Mode::Bypass => g.open_in_place(iv, hdr_aad, &mut [], icv),
    }
}
