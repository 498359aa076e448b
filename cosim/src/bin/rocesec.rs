//! `rocesec`: the rocesec command-line tool.
//!
//! ```text
//! rocesec inspect IN.pcap...
//! rocesec protect [--keys KEYS.yaml] [--mode header-auth|packet-auth|aead] IN.pcap OUT.pcap
//! rocesec verify  [--keys KEYS.yaml] [--mode MODE] IN.pcap OUT.pcap
//! rocesec roundtrip [--keys KEYS.yaml] [--mode M] [PCAP...]
//! rocesec cosim [PCAP...] [--keys KEYS.yaml] [--lanes 1|4] [--mode M] [--seed N] [--jobs N] [--plot FILE.svg] [--no-waves]
//! ```
//! Exit status: 0 success; 1 a packet was rejected (or, for inspect, has a bad ICRC); 2 error.

use clap::{Parser, Subcommand};
use rocesec_cosim::job;
use rocesec_cosim::rtl::rocesec_protect::Traffic;
use rocesec_model::cli;
use rocesec_model::keys::KeyFile;
use rocesec_model::sechdr::Mode;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// rocesec: a line-rate security engine for RoCEv2 — golden model, RTL co-simulation, tools.
#[derive(Parser)]
#[command(name = "rocesec", version, about)]
struct Args {
    #[command(subcommand)]
    cmd: Cmd,
}

/// Key file and mode options shared by the commands that protect or verify.
#[derive(clap::Args)]
struct KeyArgs {
    /// Key file (YAML, docs/keys.example.yaml); the public demo key set if absent.
    #[arg(long)]
    keys: Option<PathBuf>,
    /// Protection mode for every QP, overriding the key file (roundtrip: only this mode):
    /// header-auth, packet-auth, aead or bypass.
    #[arg(long)]
    mode: Option<Mode>,
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
        #[command(flatten)]
        k: KeyArgs,
        /// Plain capture in.
        input: PathBuf,
        /// Protected capture out.
        output: PathBuf,
    },
    /// Verify every packet of a protected capture and write the recovered plain frames (RX).
    Verify {
        #[command(flatten)]
        k: KeyArgs,
        /// Protected capture in.
        input: PathBuf,
        /// Plain capture out (rejected packets are not written).
        output: PathBuf,
    },
    /// The main job: captures through the RTL protect top and the golden model, every byte,
    /// verdict and cycle compared. Last line `mismatches: N`; exit status 0 only when N = 0.
    Cosim {
        /// Captures; the committed rxe corpus (testbench/captures, embedded in the binary) if none.
        pcaps: Vec<PathBuf>,
        #[command(flatten)]
        k: KeyArgs,
        /// 128-bit lanes per beat: 1 (16-byte beats) or 4 (64-byte beats).
        #[arg(long, default_value_t = 1)]
        lanes: u32,
        /// Stimulus seed (input gaps, output backpressure).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Worker threads (default: one per core).
        #[arg(long, default_value_t = 0)]
        jobs: usize,
        /// SVG plot of latency against frame size.
        #[arg(long)]
        plot: Option<PathBuf>,
        /// Do not re-run a mismatching unit to write its FST waveform (cosim-repro/*.fst).
        #[arg(long)]
        no_waves: bool,
    },
    /// The host library's counters: read `rocesec-stats` lines from logs (e.g. the output of
    /// rocesec-host-demo) or stdin and print them as a table. Exit 1 when any authentication
    /// failure, replay, stale epoch, malformed message or refused access was counted, 2 when
    /// no record was found or a record is damaged.
    HostStats {
        /// Logs to read (stdin if none).
        logs: Vec<PathBuf>,
    },
    /// Protect then verify captures in the model and compare with the input byte for byte.
    Roundtrip {
        /// Captures; the committed rxe corpus (testbench/captures, embedded in the binary) if none.
        pcaps: Vec<PathBuf>,
        #[command(flatten)]
        k: KeyArgs,
    },
}

/// Load the key file (with `mode` applied if `apply_mode`) and run `f`, or report the error.
fn with_keys(
    k: &KeyArgs,
    apply_mode: bool,
    f: impl FnOnce(&KeyFile) -> std::io::Result<i32>,
) -> std::io::Result<i32> {
    match cli::load_keys(k.keys.as_deref(), if apply_mode { k.mode } else { None }) {
        Ok(keys) => f(&keys),
        Err(e) => {
            // (not eprintln!: it panics when stderr is closed)
            let _ = writeln!(std::io::stderr(), "error: {e}");
            Ok(cli::EXIT_ERROR)
        }
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    // a report reader that leaves (`| head`) changes neither the output files nor the exit status
    let mut out = cli::PipeSafe::new(std::io::stdout().lock());
    let mut err = cli::PipeSafe::new(std::io::stderr().lock());
    let code = match args.cmd {
        Cmd::Inspect { pcaps } => {
            let p: Vec<&std::path::Path> = pcaps.iter().map(|p| p.as_path()).collect();
            cli::inspect(&p, &mut out, &mut err)
        }
        Cmd::Protect { k, input, output } => with_keys(&k, true, |keys| {
            cli::protect(keys, &input, &output, &mut out, &mut err)
        }),
        Cmd::Verify { k, input, output } => with_keys(&k, true, |keys| {
            cli::verify(keys, &input, &output, &mut out, &mut err)
        }),
        Cmd::HostStats { logs } => Ok(host_stats(&logs, &mut out, &mut err)),
        Cmd::Roundtrip { pcaps, k } => with_keys(&k, false, |keys| {
            cli::roundtrip_cmd(keys, &pcaps, k.mode, &mut out, &mut err)
        }),
        Cmd::Cosim {
            pcaps,
            k,
            lanes,
            seed,
            jobs,
            plot,
            no_waves,
        } => with_keys(&k, false, |keys| {
            cosim(
                keys, pcaps, k.mode, lanes, seed, jobs, plot, !no_waves, &mut out, &mut err,
            )
        }),
    };
    match code {
        Ok(c) => ExitCode::from(c as u8),
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "error: {e}");
            ExitCode::from(cli::EXIT_ERROR as u8)
        }
    }
}

/// `rocesec cosim`.
#[allow(clippy::too_many_arguments)]
fn cosim(
    keys: &KeyFile,
    pcaps: Vec<PathBuf>,
    mode: Option<Mode>,
    lanes: u32,
    seed: u64,
    jobs: usize,
    plot: Option<PathBuf>,
    waves: bool,
    out: &mut dyn std::io::Write,
    err: &mut dyn std::io::Write,
) -> std::io::Result<i32> {
    use rocesec_cosim::rtl::Top;
    let (top, verify_top) = match lanes {
        1 => (Top::RocesecProtect1, Top::RocesecVerify1),
        4 => (Top::RocesecProtect4, Top::RocesecVerify4),
        _ => {
            writeln!(
                err,
                "error: --lanes {lanes}: the tops are built with LANES 1 and 4"
            )?;
            return Ok(cli::EXIT_ERROR);
        }
    };
    let (Some(timing), Some(verify_timing)) = (
        rocesec_model::timing::Params::for_lanes(lanes),
        rocesec_model::timing_verify::Params::for_lanes(lanes),
    ) else {
        writeln!(
            err,
            "error: --lanes {lanes}: no timing layer for this width"
        )?;
        return Ok(cli::EXIT_ERROR);
    };
    let modes = match mode {
        Some(m) => vec![m],
        None => vec![Mode::HeaderAuth, Mode::PacketAuth, Mode::Aead],
    };
    let o = job::Options {
        pcaps,
        modes,
        seed,
        jobs,
        traffic: Traffic { idle: 2, stall: 2 },
        repro_dir: PathBuf::from("cosim-repro"),
        plot,
        top,
        timing,
        verify_timing,
        lanes,
        verify_top: Some(verify_top),
        waves,
    };
    match job::run(keys, &o, out, err) {
        Ok(0) => Ok(cli::EXIT_OK),
        Ok(_) => Ok(cli::EXIT_REJECTED),
        Err(e) => {
            writeln!(err, "error: {e}")?;
            Ok(cli::EXIT_ERROR)
        }
    }
}

/// `rocesec host-stats`: see [`Cmd::HostStats`].
fn host_stats(logs: &[PathBuf], out: &mut dyn std::io::Write, err: &mut dyn std::io::Write) -> i32 {
    use rocesec_host::stats;
    let mut text = String::new();
    if logs.is_empty() {
        if let Err(e) = std::io::Read::read_to_string(&mut std::io::stdin(), &mut text) {
            let _ = writeln!(err, "error: stdin: {e}");
            return cli::EXIT_ERROR;
        }
    }
    for l in logs {
        match std::fs::read_to_string(l) {
            Ok(t) => text += &t,
            Err(e) => {
                let _ = writeln!(err, "error: {}: {e}", l.display());
                return cli::EXIT_ERROR;
            }
        }
    }
    let snaps = match stats::parse_lines(&text) {
        Ok(v) if v.is_empty() => {
            let _ = writeln!(err, "error: no {}records found", stats::LINE_PREFIX);
            return cli::EXIT_ERROR;
        }
        Ok(v) => v,
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            return cli::EXIT_ERROR;
        }
    };
    let _ = write!(out, "{}", stats::table(&snaps));
    // each counter on its own: a sum could wrap (found in session 21: auth_fail = 2^64 - 1 and
    // replay = 1 summed to 0, exit 0)
    let bad = snaps.iter().any(|s| {
        let t = &s.stats;
        [t.auth_fail, t.replay, t.stale_epoch, t.malformed, t.refused]
            .iter()
            .any(|&n| n > 0)
    });
    i32::from(bad)
}
