//! The CLI contract: protect then verify gives back the original frames byte for byte; exit
//! statuses 0 / 1 / 2; native InfiniBand captures get a clear "not RoCEv2" error.

use rocesec_model::cli;
use rocesec_model::pcapio::{self, Record};
use rocesec_model::roce::build::Builder;
use rocesec_model::sechdr::Mode;
use std::path::PathBuf;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rocesec-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("tmp dir");
    d.join(name)
}

fn sample() -> Vec<Record> {
    (0..20u32)
        .map(|i| {
            let f = if i % 4 == 3 {
                Builder::new(0x0A, i, &vec![i as u8; i as usize * 13]).reth(
                    0x4000 * i as u64,
                    7,
                    i * 13,
                )
            } else {
                Builder::new(0x04, i, &vec![i as u8; i as usize * 7])
            };
            Record::new(1_700_000_000, i, f.build())
        })
        .collect()
}

#[test]
fn protect_then_verify_restores_the_capture() {
    let plain = tmp("plain.pcap");
    pcapio::write(&plain, &sample()).expect("write");
    for mode in [Mode::HeaderAuth, Mode::PacketAuth, Mode::Aead] {
        let k = cli::load_keys(None, Some(mode)).expect("keys");
        let (prot, back) = (tmp("prot.pcap"), tmp("back.pcap"));
        let mut log = Vec::new();
        assert_eq!(
            cli::protect(&k, &plain, &prot, &mut log, &mut std::io::sink()).expect("io"),
            cli::EXIT_OK
        );
        assert_eq!(
            cli::verify(&k, &prot, &back, &mut log, &mut std::io::sink()).expect("io"),
            cli::EXIT_OK
        );
        assert_eq!(
            pcapio::read(&back).expect("read"),
            pcapio::read(&plain).expect("read")
        );
        let text = String::from_utf8(log).expect("utf8");
        assert!(text.contains("verify: frames=20 processed=20"), "{text}");
        // Verifying the plain capture rejects every packet (policy) with exit status 1.
        let mut log = Vec::new();
        assert_eq!(
            cli::verify(&k, &plain, &back, &mut log, &mut std::io::sink()).expect("io"),
            cli::EXIT_REJECTED
        );
        assert!(String::from_utf8(log)
            .expect("utf8")
            .contains("policy        20"));
    }
}

#[test]
fn inspect_reports_icrc_and_protection() {
    let plain = tmp("inspect.pcap");
    pcapio::write(&plain, &sample()).expect("write");
    let mut log = Vec::new();
    assert_eq!(
        cli::inspect(&[plain.as_path()], &mut log, &mut std::io::sink()).expect("io"),
        cli::EXIT_OK
    );
    let text = String::from_utf8(log).expect("utf8");
    assert!(
        text.contains("summary: roce=20 icrc_ok=20 icrc_bad=0 malformed=0 truncated=0 not_roce=0"),
        "{text}"
    );
    let mut recs = sample();
    let n = recs[0].data.len();
    recs[0].data[n - 1] ^= 0x55;
    pcapio::write(&plain, &recs).expect("write");
    let mut log = Vec::new();
    assert_eq!(
        cli::inspect(&[plain.as_path()], &mut log, &mut std::io::sink()).expect("io"),
        cli::EXIT_REJECTED
    );
    assert!(String::from_utf8(log).expect("utf8").contains("icrc_bad=1"));
}

#[test]
fn native_infiniband_and_garbage_files_are_clear_errors_on_stderr() {
    // Classic pcap header with link type 247 (DLT_INFINIBAND) and no packets.
    let mut ib = vec![0xD4, 0xC3, 0xB2, 0xA1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    ib.extend_from_slice(&65535u32.to_le_bytes());
    ib.extend_from_slice(&247u32.to_le_bytes());
    let p = tmp("ib.pcap");
    std::fs::write(&p, &ib).expect("write");
    let (mut out, mut err) = (Vec::new(), Vec::new());
    assert_eq!(
        cli::inspect(&[p.as_path()], &mut out, &mut err).expect("io"),
        cli::EXIT_ERROR
    );
    assert!(String::from_utf8(err).expect("utf8").contains("not RoCEv2"));
    let g = tmp("garbage.pcap");
    std::fs::write(&g, b"this is not a capture").expect("write");
    let k = cli::load_keys(None, None).expect("keys");
    let mut err = Vec::new();
    assert_eq!(
        cli::verify(&k, &g, &tmp("x.pcap"), &mut Vec::new(), &mut err).expect("io"),
        cli::EXIT_ERROR
    );
    assert!(String::from_utf8(err).expect("utf8").starts_with("error: "));
    assert_eq!(
        cli::inspect(
            &[tmp("missing.pcap").as_path()],
            &mut Vec::new(),
            &mut Vec::new()
        )
        .expect("io"),
        cli::EXIT_ERROR
    );
}

/// Bug reproduced first (newcomer report): pcap-file refused records with orig_len > snaplen,
/// which is how every snaplen-truncated capture looks.
#[test]
fn snaplen_truncated_records_are_read_and_reported_not_refused() {
    let mut recs = sample();
    let full = recs[2].data.len() as u32;
    recs[2].data.truncate(40);
    recs[2].orig_len = full;
    let p = tmp("snap.pcap");
    let hdr = pcap_file::pcap::PcapHeader {
        snaplen: 60,
        ..Default::default()
    };
    pcapio::write_capture(&p, &hdr, &recs).expect("write");
    let (mut out, mut err) = (Vec::new(), Vec::new());
    assert_eq!(
        cli::inspect(&[p.as_path()], &mut out, &mut err).expect("io"),
        cli::EXIT_REJECTED
    );
    let text = String::from_utf8(out).expect("utf8");
    assert!(text.contains("TRUNCATED by the capture: 40 of"), "{text}");
    assert!(
        text.contains("icrc_ok=19 icrc_bad=0 malformed=0 truncated=1"),
        "{text}"
    );
    let k = cli::load_keys(None, Some(Mode::Aead)).expect("keys");
    let mut out = Vec::new();
    assert_eq!(
        cli::protect(&k, &p, &tmp("snap-prot.pcap"), &mut out, &mut Vec::new()).expect("io"),
        cli::EXIT_REJECTED
    );
    let text = String::from_utf8(out).expect("utf8");
    assert!(
        text.contains("frames=20 processed=19") && text.contains("malformed     1"),
        "{text}"
    );
}

#[test]
fn a_damaged_tail_keeps_the_records_before_it_and_exits_2() {
    let p = tmp("tail.pcap");
    pcapio::write(&p, &sample()).expect("write");
    let mut bytes = std::fs::read(&p).expect("read");
    bytes.truncate(bytes.len() - 10);
    std::fs::write(&p, &bytes).expect("write");
    let k = cli::load_keys(None, Some(Mode::Aead)).expect("keys");
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let o = tmp("tail-prot.pcap");
    assert_eq!(
        cli::protect(&k, &p, &o, &mut out, &mut err).expect("io"),
        cli::EXIT_ERROR
    );
    assert!(String::from_utf8(err)
        .expect("utf8")
        .contains("truncated or corrupt after 19 records"));
    assert_eq!(pcapio::read(&o).expect("read").len(), 19);
}

#[test]
fn nanosecond_big_endian_captures_keep_their_header_and_timestamps() {
    let recs: Vec<Record> = sample()
        .into_iter()
        .map(|mut r| {
            r.ts_frac = 529_813_123;
            r
        })
        .collect();
    let hdr = pcap_file::pcap::PcapHeader {
        ts_resolution: pcap_file::TsResolution::NanoSecond,
        endianness: pcap_file::Endianness::Big,
        ..Default::default()
    };
    let (plain, prot, back) = (tmp("ns.pcap"), tmp("ns-prot.pcap"), tmp("ns-back.pcap"));
    pcapio::write_capture(&plain, &hdr, &recs).expect("write");
    let k = cli::load_keys(None, Some(Mode::Aead)).expect("keys");
    let mut sink = Vec::new();
    assert_eq!(
        cli::protect(&k, &plain, &prot, &mut sink, &mut Vec::new()).expect("io"),
        cli::EXIT_OK
    );
    assert_eq!(
        cli::verify(&k, &prot, &back, &mut sink, &mut Vec::new()).expect("io"),
        cli::EXIT_OK
    );
    assert_eq!(
        std::fs::read(&back).expect("back"),
        std::fs::read(&plain).expect("plain")
    );
}

#[test]
fn inspect_counts_malformed_frames_apart_from_icrc() {
    let recs = vec![Record::new(0, 0, vec![]), Record::new(0, 0, vec![0; 5])];
    let p = tmp("zero.pcap");
    pcapio::write(&p, &recs).expect("write");
    let mut out = Vec::new();
    assert_eq!(
        cli::inspect(&[p.as_path()], &mut out, &mut Vec::new()).expect("io"),
        cli::EXIT_REJECTED
    );
    let text = String::from_utf8(out).expect("utf8");
    assert!(
        text.contains("roce=0 icrc_ok=0 icrc_bad=0 malformed=2"),
        "{text}"
    );
}

/// Session 21 (found by a newcomer's test): a write error at the final flush was swallowed by
/// the `BufWriter` drop, so `rocesec protect IN /dev/full` printed its counters and exited 0
/// with nothing written.
#[test]
fn a_write_error_at_the_final_flush_is_an_error() {
    let recs = sample();
    let full = std::path::Path::new("/dev/full");
    let e = pcapio::write(full, &recs[..2]).expect_err("/dev/full takes no bytes");
    assert!(e.to_string().contains("cannot write"), "{e}");
    let plain = tmp("flush-plain.pcap");
    pcapio::write(&plain, &recs[..2]).expect("write");
    let k = cli::load_keys(None, Some(Mode::Aead)).expect("keys");
    let mut err = Vec::new();
    assert_eq!(
        cli::protect(&k, &plain, full, &mut std::io::sink(), &mut err).expect("io"),
        cli::EXIT_ERROR
    );
    let err = String::from_utf8(err).expect("utf8");
    assert!(err.contains("/dev/full: cannot write"), "{err}");
}

/// A diagnostics stream whose reader has gone (`rocesec verify ... 2>&1 | head -1`).
struct ClosedPipe;

impl std::io::Write for ClosedPipe {
    fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
        Err(std::io::ErrorKind::BrokenPipe.into())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Err(std::io::ErrorKind::BrokenPipe.into())
    }
}

/// Session 21 (found by a newcomer's test): a closed stdout or stderr pipe ended protect and
/// verify at the first report line, before the output file was written, and the binary mapped
/// the broken pipe to exit 0, so rejected packets gave exit 0 and no output.
#[test]
fn a_closed_report_pipe_loses_neither_the_output_nor_the_exit_status() {
    let plain = tmp("pipe-plain.pcap");
    pcapio::write(&plain, &sample()).expect("write");
    let k = cli::load_keys(None, Some(Mode::Aead)).expect("keys");
    let back = tmp("pipe-back.pcap");
    let _ = std::fs::remove_file(&back);
    let (mut out, mut err) = (
        cli::PipeSafe::new(ClosedPipe),
        cli::PipeSafe::new(ClosedPipe),
    );
    // every plain packet is rejected (policy): exit 1, and the (empty) output is written
    assert_eq!(
        cli::verify(&k, &plain, &back, &mut out, &mut err).expect("a closed pipe is no error"),
        cli::EXIT_REJECTED
    );
    assert!(out.closed() && err.closed());
    assert_eq!(pcapio::read(&back).expect("output written").len(), 0);
    let prot = tmp("pipe-prot.pcap");
    let (mut out, mut err) = (
        cli::PipeSafe::new(ClosedPipe),
        cli::PipeSafe::new(ClosedPipe),
    );
    assert_eq!(
        cli::protect(&k, &plain, &prot, &mut out, &mut err).expect("io"),
        cli::EXIT_OK
    );
    assert_eq!(pcapio::read(&prot).expect("output written").len(), 20);
    // other errors still reach the caller
    let mut w = cli::PipeSafe::new(std::io::Cursor::new([0u8; 0]));
    assert!(std::io::Write::write_all(&mut w, b"x").is_err());
}

/// Session 21 (found by a newcomer's test): `rocesec roundtrip` on a capture damaged part-way
/// said "those records are processed", then returned before processing any.
#[test]
fn roundtrip_processes_the_records_before_a_damaged_tail_and_exits_2() {
    let p = tmp("rt-tail.pcap");
    pcapio::write(&p, &sample()).expect("write");
    let mut bytes = std::fs::read(&p).expect("read");
    bytes.truncate(bytes.len() - 10);
    std::fs::write(&p, &bytes).expect("write");
    let k = cli::load_keys(None, None).expect("keys");
    let (mut out, mut err) = (Vec::new(), Vec::new());
    assert_eq!(
        cli::roundtrip_cmd(&k, &[p], Some(Mode::Aead), &mut out, &mut err).expect("io"),
        cli::EXIT_ERROR
    );
    let out = String::from_utf8(out).expect("utf8");
    assert!(
        out.contains("rt-tail.pcap") && out.contains("frames: 19 in 1 captures"),
        "{out}"
    );
    assert!(out.contains("mismatches: 0"), "{out}");
}

/// Session 21 (newcomer report): an empty file, a 10-byte file and a directory all gave pcap-file's
/// "Error reading bytes"; they now name what is wrong.
#[test]
fn short_files_and_directories_say_what_is_wrong() {
    for (len, want) in [
        (0usize, "0 bytes, shorter than"),
        (10, "10 bytes, shorter than"),
    ] {
        let p = tmp(&format!("short{len}.pcap"));
        std::fs::write(&p, vec![0xD4; len]).expect("write");
        let mut err = Vec::new();
        assert_eq!(
            cli::inspect(&[p.as_path()], &mut Vec::new(), &mut err).expect("io"),
            cli::EXIT_ERROR
        );
        let err = String::from_utf8(err).expect("utf8");
        assert!(err.contains(want), "{err}");
    }
    let d = tmp("a-dir");
    std::fs::create_dir_all(&d).expect("dir");
    let mut err = Vec::new();
    assert_eq!(
        cli::inspect(&[d.as_path()], &mut Vec::new(), &mut err).expect("io"),
        cli::EXIT_ERROR
    );
    let err = String::from_utf8(err).expect("utf8");
    assert!(
        err.contains("directory") && !err.contains("editcap"),
        "{err}"
    );
}
