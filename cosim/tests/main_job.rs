//! The main job (`rocesec cosim`) end to end on real rxe captures: the RTL protect top agrees
//! with the model on every byte and verdict, and a deliberate RTL fault (one flipped S-box bit,
//! `+define+FAULT_SBOX`) is caught with a report that names the frame, the first differing byte
//! and the model's GCM intermediates.
#![allow(clippy::unwrap_used)]

use rocesec_cosim::job::{self, Options};
use rocesec_cosim::rtl::rocesec_protect::Traffic;
use rocesec_cosim::rtl::Top;
use rocesec_model::cli::default_corpus;
use rocesec_model::keys::KeyFile;
use rocesec_model::sechdr::Mode;

fn options(top: Top, verify_top: Option<Top>, names: &[&str]) -> Options {
    let pcaps = default_corpus()
        .into_iter()
        .filter(|p| names.iter().any(|n| p.to_string_lossy().contains(n)))
        .collect::<Vec<_>>();
    assert_eq!(pcaps.len(), names.len(), "captures {names:?} not found");
    Options {
        pcaps,
        modes: vec![Mode::HeaderAuth, Mode::PacketAuth, Mode::Aead],
        seed: 7,
        jobs: 2,
        traffic: Traffic { idle: 3, stall: 3 },
        repro_dir: std::env::temp_dir().join(format!("rocesec-repro-{}", std::process::id())),
        plot: None,
        top,
        timing: rocesec_model::timing::Params::RTL,
        verify_top,
    }
}

#[test]
fn rtl_agrees_with_the_model_on_real_captures() {
    let o = options(
        Top::RocesecProtect1,
        Some(Top::RocesecVerify1),
        &[
            "verbs_rc_imm_mtu1024_v4",
            "verbs_ud_send_v6",
            "perftest_atomic_cas_v4",
        ],
    );
    let mut out = Vec::new();
    let n = job::run(
        &KeyFile::demo().unwrap(),
        &o,
        &mut out,
        &mut std::io::sink(),
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert_eq!(n, 0, "{text}");
    assert!(text.ends_with("mismatches: 0\n"), "{text}");
}

#[test]
fn a_flipped_sbox_bit_in_the_rtl_is_caught_with_a_clear_report() {
    let o = options(
        Top::RocesecProtect1Fault,
        None,
        &["verbs_rc_send_mtu1024_v4"],
    );
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let n = job::run(&KeyFile::demo().unwrap(), &o, &mut out, &mut err).unwrap();
    let (text, report) = (
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    );
    assert_eq!(n, 3, "one mismatch per mode expected:\n{text}\n{report}");
    assert!(text.ends_with("mismatches: 3\n"));
    assert!(
        report.contains("MISMATCH in verbs_rc_send_mtu1024_v4"),
        "{report}"
    );
    assert!(report.contains("differs"), "{report}");
    assert!(
        report.contains("GHASH Y1") && report.contains("H     "),
        "{report}"
    );
    assert!(report.contains("repro pcap: "), "{report}");
}

#[test]
fn a_flipped_sbox_bit_in_the_verify_top_is_caught() {
    let o = options(
        Top::RocesecProtect1,
        Some(Top::RocesecVerify1Fault),
        &["verbs_rc_send_mtu1024_v4"],
    );
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let n = job::run(&KeyFile::demo().unwrap(), &o, &mut out, &mut err).unwrap();
    let (text, report) = (
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    );
    // protect agrees; each verify run (3 modes x genuine/tamper x 2 output modes) disagrees
    assert_eq!(n, 12, "{text}\n{report}");
    assert!(
        report.contains("VERIFY MISMATCH in verbs_rc_send_mtu1024_v4"),
        "{report}"
    );
}
