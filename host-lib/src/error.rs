//! The one error type of `rocesec-host`.

use std::fmt;

/// Everything that can go wrong in the host library.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// TLS handshake or channel failure (rustls), or a peer that is not who it should be.
    Tls(String),
    /// I/O on the out-of-band TCP connection.
    Io(std::io::Error),
    /// A malformed or unexpected control message from the peer.
    Protocol(String),
    /// Authentication of a message or sealed block failed (opaque on purpose: no oracle).
    AuthFail,
    /// A message whose PN was already accepted or is older than the replay window.
    Replay,
    /// A message under an epoch this side no longer (or does not yet) accepts.
    StaleEpoch,
    /// Access outside the granted sub-region.
    OutOfRange,
    /// The grant has expired.
    Expired,
    /// The grant was revoked.
    Revoked,
    /// A buffer is too small for the sealed message or block.
    BufferTooSmall {
        /// Bytes needed.
        need: usize,
        /// Bytes available.
        have: usize,
    },
    /// The 48-bit packet-number space of this sender is used up: rotate the epoch.
    PnExhausted,
    /// No RDMA device; the message says how to create an rxe device.
    NoDevice(String),
    /// A verbs call failed (rdma-sys backend).
    Verbs(String),
    /// Key derivation failed (only for invalid key material).
    Kdf,
    /// A rocesec engine refused or could not take its programming (table full, key size, bus).
    Engine(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Tls(e) => write!(f, "TLS: {e}"),
            Error::Io(e) => write!(f, "I/O: {e}"),
            Error::Protocol(e) => write!(f, "protocol: {e}"),
            Error::AuthFail => f.write_str("authentication failed"),
            Error::Replay => f.write_str("replayed message"),
            Error::StaleEpoch => f.write_str("message under a retired or unknown epoch"),
            Error::OutOfRange => f.write_str("access outside the granted sub-region"),
            Error::Expired => f.write_str("grant expired"),
            Error::Revoked => f.write_str("grant revoked"),
            Error::BufferTooSmall { need, have } => {
                write!(f, "buffer too small: need {need} bytes, have {have}")
            }
            Error::PnExhausted => f.write_str("packet numbers exhausted: rotate the epoch"),
            Error::NoDevice(e) => write!(f, "no RDMA device: {e}"),
            Error::Verbs(e) => write!(f, "verbs: {e}"),
            Error::Kdf => f.write_str("key derivation failed"),
            Error::Engine(e) => write!(f, "rocesec engine: {e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}

impl From<rustls::Error> for Error {
    fn from(e: rustls::Error) -> Self {
        Error::Tls(e.to_string())
    }
}

/// Result with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
