//! # rocesec-host — secure RDMA sessions for applications
//!
//! Sets keys up over an authenticated out-of-band handshake ([`handshake`]: TLS 1.3, mutual
//! certificates, exporter secret), derives the rocesec key hierarchy from it ([`keys`], shared
//! with `rocesec-model`), and protects traffic in software where no rocesec engine is present
//! ([`channel`] for SEND/RECV, [`sealed`] for one-sided access to leased memory), over any
//! [`backend::Transport`]: in-process ([`backend::Loopback`]) or, with feature `verbs`, over
//! libibverbs (`verbs`, and the `rocesec-host-demo` binary).
// Without `verbs` nothing in the crate is unsafe; with it, only the `verbs` module is (the
// workspace denies unsafe_code everywhere else).
#![cfg_attr(not(feature = "verbs"), forbid(unsafe_code))]
#![warn(missing_docs)]

pub mod backend;
pub mod channel;
pub mod demo;
pub mod device;
pub mod engine;
pub mod error;
pub mod handshake;
pub mod keys;
pub mod sealed;
pub mod stats;
#[cfg(feature = "verbs")]
#[allow(unsafe_code)]
pub mod verbs;

pub use error::{Error, Result};
