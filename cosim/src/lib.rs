//! # rocesec-cosim — Verilator co-simulation of the rocesec RTL against the golden model
#![warn(missing_docs)]
pub mod job;
pub mod job_verify;
pub mod rtl;
pub mod waves;
