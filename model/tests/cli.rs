//! The CLI contract: protect then verify gives back the original frames byte for byte; exit
//! statuses 0 / 1 / 2; native InfiniBand captures get a clear "not RoCEv2" error.

use rocesec_model::cli;
use rocesec_model::pcapio::{self, Record};
use rocesec_model::roce::build::Builder;
use rocesec_model::sechdr::Mode;
use std::path::PathBuf;
use std::time::Duration;

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
            Record {
                ts: Duration::from_micros(i as u64),
                data: f.build(),
                orig_len: 0,
            }
        })
        .map(|mut r| {
            r.orig_len = r.data.len() as u32;
            r
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
            cli::protect(&k, &plain, &prot, &mut log).expect("io"),
            cli::EXIT_OK
        );
        assert_eq!(
            cli::verify(&k, &prot, &back, &mut log).expect("io"),
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
            cli::verify(&k, &plain, &back, &mut log).expect("io"),
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
        cli::inspect(&[plain.as_path()], &mut log).expect("io"),
        cli::EXIT_OK
    );
    let text = String::from_utf8(log).expect("utf8");
    assert!(
        text.contains("summary: roce=20 icrc_ok=20 icrc_bad=0 not_roce=0"),
        "{text}"
    );
    let mut recs = sample();
    let n = recs[0].data.len();
    recs[0].data[n - 1] ^= 0x55;
    pcapio::write(&plain, &recs).expect("write");
    let mut log = Vec::new();
    assert_eq!(
        cli::inspect(&[plain.as_path()], &mut log).expect("io"),
        cli::EXIT_REJECTED
    );
    assert!(String::from_utf8(log).expect("utf8").contains("icrc_bad=1"));
}

#[test]
fn native_infiniband_and_garbage_files_are_clear_errors() {
    // Classic pcap header with link type 247 (DLT_INFINIBAND) and no packets.
    let mut ib = vec![0xD4, 0xC3, 0xB2, 0xA1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    ib.extend_from_slice(&65535u32.to_le_bytes());
    ib.extend_from_slice(&247u32.to_le_bytes());
    let p = tmp("ib.pcap");
    std::fs::write(&p, &ib).expect("write");
    let mut log = Vec::new();
    assert_eq!(
        cli::inspect(&[p.as_path()], &mut log).expect("io"),
        cli::EXIT_ERROR
    );
    assert!(String::from_utf8(log).expect("utf8").contains("not RoCEv2"));
    let g = tmp("garbage.pcap");
    std::fs::write(&g, b"this is not a capture").expect("write");
    let mut log = Vec::new();
    let k = cli::load_keys(None, None).expect("keys");
    assert_eq!(
        cli::verify(&k, &g, &tmp("x.pcap"), &mut log).expect("io"),
        cli::EXIT_ERROR
    );
    assert_eq!(
        cli::inspect(&[tmp("missing.pcap").as_path()], &mut Vec::new()).expect("io"),
        cli::EXIT_ERROR
    );
}
