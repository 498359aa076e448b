//! # rocesec-model — the golden reference of the rocesec RoCEv2 security engine
//!
//! This crate is the specification in executable form. The RTL in `rtl/` and the co-simulation in
//! `cosim/` are judged against it, byte for byte and cycle for cycle.
//!
//! The packet path has four stages that carry the same names in `model/`, `rtl/` and `cosim/`:
//!
//! | stage   | model                | what it does                                                  |
//! |---------|----------------------|---------------------------------------------------------------|
//! | parse   | [`stage::parse`]     | Ethernet/802.1Q/IPv4/IPv6/UDP/BTH/ext headers/SecHdr          |
//! | key     | [`stage::key`]       | QP/MR context lookup, key slot by epoch, KDF, replay window   |
//! | crypto  | [`stage::crypto`]    | AES-GCM / GMAC over AAD and payload, ICV                      |
//! | emit    | [`stage::emit`]      | SecHdr insert/strip, length and checksum fix-up, ICRC         |
//!
//! Primitive building blocks: [`ghash`] (GF(2^128), NIST SP 800-38D §6.3), [`gcm`] (AES-GCM
//! composed explicitly, SP 800-38D §7), [`kdf`] (SP 800-108 KBKDF with AES-CMAC, SP 800-38B; and
//! HKDF-SHA256, RFC 5869), [`roce`] (RoCEv2 headers and ICRC, IBTA Vol 1 Annex A17).
//!
//! [`timing`] is the cycle-approximate timing layer of the protect top, [`timing_verify`] that of
//! the verify top (docs/timing.md).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod cli;
pub mod corpus;
pub mod engine;
pub mod gcm;
pub mod ghash;
pub mod kdf;
pub mod keys;
pub mod pcapio;
pub mod regmap;
pub mod roce;
pub mod sechdr;
pub mod stage;
pub mod timing;
pub mod timing_verify;
pub mod verdict;
