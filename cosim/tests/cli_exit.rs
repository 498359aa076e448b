//! The `rocesec` binary's exit statuses when its report streams are closed pipes, and
//! `host-stats` on counters that a sum would wrap (both found in session 21 by a newcomer's
//! test of the built binary).

use rocesec_model::pcapio::{self, Record};
use rocesec_model::roce::build::Builder;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rocesec-cli-exit-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("tmp dir");
    d.join(name)
}

/// A pipe whose reader is already gone: every write to it fails with EPIPE (the Rust runtime
/// ignores SIGPIPE), the same for every run, unlike `| head -1`, which races.
fn closed_pipe() -> std::io::PipeWriter {
    let (r, w) = std::io::pipe().expect("pipe");
    drop(r);
    w
}

fn plain_capture() -> PathBuf {
    let p = tmp("plain.pcap");
    let recs: Vec<Record> = (0..8u32)
        .map(|i| Record::new(1, i, Builder::new(0x04, i, &[i as u8; 40]).build()))
        .collect();
    pcapio::write(&p, &recs).expect("write");
    p
}

/// Exit status of `rocesec <args> IN OUT` with stdout / stderr a closed pipe or discarded.
fn status_with(
    args: &[&str],
    input: &Path,
    output: &Path,
    out_closed: bool,
    err_closed: bool,
) -> Option<i32> {
    let io = |closed: bool| {
        if closed {
            Stdio::from(closed_pipe())
        } else {
            Stdio::null()
        }
    };
    Command::new(env!("CARGO_BIN_EXE_rocesec"))
        .args(args)
        .arg(input)
        .arg(output)
        .stdout(io(out_closed))
        .stderr(io(err_closed))
        .status()
        .expect("run rocesec")
        .code()
}

#[test]
fn closed_report_pipes_keep_the_output_and_the_exit_status() {
    let plain = plain_capture();
    for (what, out_closed, err_closed) in [
        ("stderr", false, true),
        ("stdout", true, false),
        ("both", true, true),
    ] {
        // verify on a plain capture: every packet is rejected (policy), exit 1, empty output
        let back = tmp(&format!("back-{what}.pcap"));
        let _ = std::fs::remove_file(&back);
        let st = status_with(
            &["verify", "--mode", "aead"],
            &plain,
            &back,
            out_closed,
            err_closed,
        );
        assert_eq!(st, Some(1), "verify with {what} closed");
        assert_eq!(pcapio::read(&back).expect("output written").len(), 0);
        // protect: exit 0, every frame written
        let prot = tmp(&format!("prot-{what}.pcap"));
        let st = status_with(
            &["protect", "--mode", "aead"],
            &plain,
            &prot,
            out_closed,
            err_closed,
        );
        assert_eq!(st, Some(0), "protect with {what} closed");
        assert_eq!(pcapio::read(&prot).expect("output written").len(), 8);
    }
}

#[test]
fn host_stats_counts_each_failure_counter_on_its_own() {
    let rec = |auth_fail: u64, replay: u64| {
        format!(
            "rocesec-stats {{\"role\":\"x\",\"source\":\"y\",\"stats\":{{\"ok\":1,\
             \"auth_fail\":{auth_fail},\"replay\":{replay},\"stale_epoch\":0,\"malformed\":0,\
             \"refused\":0,\"rotations\":0}}}}\n"
        )
    };
    for (line, want) in [
        (rec(0, 0), 0),
        (rec(0, 1), 1),
        (rec(u64::MAX, 1), 1), // a sum of the counters wraps to 0
    ] {
        let mut c = Command::new(env!("CARGO_BIN_EXE_rocesec"))
            .arg("host-stats")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("run rocesec");
        c.stdin
            .take()
            .expect("stdin")
            .write_all(line.as_bytes())
            .expect("write");
        assert_eq!(c.wait().expect("wait").code(), Some(want), "{line}");
    }
}
