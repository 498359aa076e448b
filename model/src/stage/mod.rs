//! The four stages of the rocesec packet path. Each carries the same name in `rtl/` and
//! `cosim/`: parse → key → crypto → emit.
pub mod crypto;
pub mod emit;
pub mod key;
pub mod parse;
