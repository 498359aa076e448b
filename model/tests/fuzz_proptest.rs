//! Arbitrary bytes never panic the parser, `protect` or `verify`; neither do valid frames with
//! random byte edits, truncations and extensions.

use proptest::prelude::*;
use rocesec_model::engine::{Protector, Verifier};
use rocesec_model::keys::KeyFile;
use rocesec_model::roce::{self, build::Builder, icrc, Frame};

fn engines() -> (Protector, Verifier) {
    let k = KeyFile::demo().expect("demo keys");
    (
        Protector::new(&k).expect("tx"),
        Verifier::new(&k).expect("rx"),
    )
}

fn seed(op_idx: usize, len: usize) -> Vec<u8> {
    const OPS: [u8; 12] = [
        0x04, 0x06, 0x07, 0x0A, 0x0B, 0x0C, 0x0D, 0x11, 0x12, 0x13, 0x64, 0x81,
    ];
    let op = OPS[op_idx % OPS.len()];
    Builder::new(op, 1, &vec![0x5A; len])
        .reth(0x1000, 1, len as u32)
        .build()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let (mut tx, mut rx) = engines();
        let _ = roce::parse(&bytes);
        let _ = tx.protect(&bytes);
        let _ = rx.verify(&bytes);
        prop_assert_eq!(rx.counters.frames, 1);
    }

    #[test]
    fn mutated_frames_never_panic(
        op in 0usize..12,
        len in 0usize..300,
        edits in proptest::collection::vec((any::<u16>(), any::<u8>()), 0..6),
        cut in any::<u16>(),
        extend in proptest::collection::vec(any::<u8>(), 0..8),
        protect_first in any::<bool>(),
        fix_icrc in any::<bool>(),
    ) {
        let (mut tx, mut rx) = engines();
        let mut f = seed(op, len);
        if protect_first {
            if let Ok((_, p)) = tx.protect(&f) { f = p; }
        }
        for (pos, val) in edits {
            if !f.is_empty() { let i = pos as usize % f.len(); f[i] = val; }
        }
        if fix_icrc {
            if let Ok(Frame::Roce(p)) = roce::parse(&f) { icrc::fix(&mut f, &p); }
        }
        f.truncate(cut as usize % (f.len() + 1) + if cut % 2 == 0 { f.len() } else { 0 });
        f.extend_from_slice(&extend);
        let _ = tx.protect(&f);
        let v = rx.verify(&f);
        // Whatever the bytes, exactly one verdict is counted.
        prop_assert_eq!(rx.counters.frames, 1);
        prop_assert_eq!(rx.counters.total_rejected(), u64::from(v.is_err()));
    }
}
