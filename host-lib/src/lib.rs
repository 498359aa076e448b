//! # rocesec-host — secure RDMA sessions for applications
//!
//! Sets keys up over an authenticated out-of-band handshake ([`handshake`]: TLS 1.3, mutual
//! certificates, exporter secret), derives the rocesec key hierarchy from it ([`keys`], shared
//! with `rocesec-model`), and protects traffic in software where no rocesec engine is present
//! ([`channel`] for SEND/RECV, [`sealed`] for one-sided access to leased memory), over any
//! [`backend::Transport`].
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod backend;
pub mod channel;
pub mod device;
pub mod error;
pub mod handshake;
pub mod keys;
pub mod sealed;
pub mod stats;

pub use error::{Error, Result};
