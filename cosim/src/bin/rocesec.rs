//! `rocesec`: the rocesec command-line tool.
//!
//! ```text
//! rocesec inspect IN.pcap...
//! rocesec protect [--keys KEYS.yaml] [--mode header-auth|packet-auth|aead] IN.pcap OUT.pcap
//! rocesec verify  [--keys KEYS.yaml] IN.pcap OUT.pcap
//! rocesec roundtrip [--keys KEYS.yaml] [--mode M] [PCAP...]
//! ```
//! Exit status: 0 success; 1 a packet was rejected (or, for inspect, has a bad ICRC); 2 error.

use clap::{Parser, Subcommand};
use rocesec_model::cli;
use rocesec_model::sechdr::Mode;
use std::path::PathBuf;
use std::process::ExitCode;

/// rocesec: a line-rate security engine for RoCEv2 — golden model, RTL co-simulation, tools.
#[derive(Parser)]
#[command(name = "rocesec", version, about)]
struct Args {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Print one line per packet (opcode, QPN, PSN, lengths, ICRC, protection) and a summary.
    Inspect {
        /// Capture files (classic pcap, Ethernet).
        #[arg(required = true)]
        pcaps: Vec<PathBuf>,
    },
    /// Protect every RoCEv2 packet of a capture (TX direction).
    Protect {
        /// Key file (YAML, docs/keys.example.yaml); the public demo key set if absent.
        #[arg(long)]
        keys: Option<PathBuf>,
        /// Protection mode for every QP, overriding the key file.
        #[arg(long)]
        mode: Option<Mode>,
        /// Plain capture in.
        input: PathBuf,
        /// Protected capture out.
        output: PathBuf,
    },
    /// Verify every packet of a protected capture and write the recovered plain frames (RX).
    Verify {
        /// Key file (YAML); the public demo key set if absent.
        #[arg(long)]
        keys: Option<PathBuf>,
        /// Protection mode every QP must use, overriding the key file.
        #[arg(long)]
        mode: Option<Mode>,
        /// Protected capture in.
        input: PathBuf,
        /// Plain capture out (rejected packets are not written).
        output: PathBuf,
    },
    /// Protect then verify captures in the model and compare with the input byte for byte.
    Roundtrip {
        /// Captures; the committed rxe corpus (testbench/captures) if none.
        pcaps: Vec<PathBuf>,
        /// Key file (YAML); the public demo key set if absent.
        #[arg(long)]
        keys: Option<PathBuf>,
        /// Only this mode (default: header-auth, packet-auth and aead).
        #[arg(long)]
        mode: Option<Mode>,
    },
}

fn main() -> ExitCode {
    let args = Args::parse();
    let mut out = std::io::stdout().lock();
    let code = match args.cmd {
        Cmd::Inspect { pcaps } => {
            let p: Vec<&std::path::Path> = pcaps.iter().map(|p| p.as_path()).collect();
            cli::inspect(&p, &mut out)
        }
        Cmd::Protect {
            keys,
            mode,
            input,
            output,
        } => match cli::load_keys(keys.as_deref(), mode) {
            Ok(k) => cli::protect(&k, &input, &output, &mut out),
            Err(e) => {
                eprintln!("error: {e}");
                Ok(cli::EXIT_ERROR)
            }
        },
        Cmd::Verify {
            keys,
            mode,
            input,
            output,
        } => match cli::load_keys(keys.as_deref(), mode) {
            Ok(k) => cli::verify(&k, &input, &output, &mut out),
            Err(e) => {
                eprintln!("error: {e}");
                Ok(cli::EXIT_ERROR)
            }
        },
        Cmd::Roundtrip { pcaps, keys, mode } => match cli::load_keys(keys.as_deref(), None) {
            Ok(k) => cli::roundtrip_cmd(&k, &pcaps, mode, &mut out),
            Err(e) => {
                eprintln!("error: {e}");
                Ok(cli::EXIT_ERROR)
            }
        },
    };
    match code {
        Ok(c) => ExitCode::from(c as u8),
        // `rocesec inspect ... | head`: the reader left; not an error of ours.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(cli::EXIT_ERROR as u8)
        }
    }
}
