//! Benchmark of the software data path against OpenSSL's AES-128-GCM, same machine, same run.
//!
//! `cargo run --release -p rocesec-host --example bench [-- --quick]`
//!
//! For each message size: rocesec's SEND path (encrypt-while-copy `seal_into` + verify-decrypt
//! `open_into`, AES-128-GCM via `ring`), the golden model's RustCrypto GCM (`rocesec_model::gcm`),
//! and OpenSSL EVP AES-128-GCM (encrypt + decrypt into separate buffers). Prints MB/s and the
//! ratio to OpenSSL on one core. Goal: ring path ≥ 0.9× OpenSSL at 4 KiB.

use openssl::cipher::Cipher;
use openssl::cipher_ctx::CipherCtx;
use rocesec_host::channel::{EpochKey, Receiver, Sender, OVERHEAD};
use rocesec_model::gcm::AesGcm;
use rocesec_model::sechdr::Mode;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Run `f` repeatedly for about `budget` and return bytes per second for `bytes` per call.
fn rate(bytes: usize, budget: Duration, mut f: impl FnMut()) -> f64 {
    for _ in 0..8 {
        f();
    }
    let mut n = 0u64;
    let t = Instant::now();
    while t.elapsed() < budget {
        for _ in 0..16 {
            f();
        }
        n += 16;
    }
    (bytes as f64 * n as f64) / t.elapsed().as_secs_f64()
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let budget = Duration::from_millis(if quick { 100 } else { 500 });
    let key = [0x42u8; 16];
    let iv = [7u8; 12];
    println!(
        "AES-128-GCM encrypt+decrypt, one core, {} ms per point",
        budget.as_millis()
    );
    println!(
        "{:>8} {:>12} {:>12} {:>12} {:>10} {:>10}",
        "bytes", "rocesec MB/s", "RustCrypto", "OpenSSL", "ring/ossl", "RC/ossl"
    );
    for size in [64usize, 1024, 4096, 65536] {
        let body = vec![0xA5u8; size];
        // rocesec SEND path (ring). Fresh sender/receiver per measurement run; PN increases.
        let mut tx =
            Sender::new(Mode::Aead, 1, 0, EpochKey::new(0, &key).expect("key")).expect("tx");
        let mut rx = Receiver::new(Mode::Aead, 1, 0, EpochKey::new(0, &key).expect("key"));
        let mut wire = vec![0u8; size + OVERHEAD];
        let mut app = vec![0u8; size];
        let ours = rate(size, budget, || {
            let n = tx.seal_into(black_box(&body), &mut wire).expect("seal");
            rx.open_into(&wire[..n], &mut app).expect("open");
        });
        // Golden model (RustCrypto aes + ghash).
        let g = AesGcm::new(&key).expect("key");
        let mut buf = body.clone();
        let rc = rate(size, budget, || {
            let tag = g.seal_in_place(&iv, b"hdr", &mut buf);
            g.open_in_place(&iv, b"hdr", &mut buf, &tag).expect("open");
        });
        // OpenSSL EVP with the key schedule set up once and only the IV set per message, as an
        // application that keeps its EVP_CIPHER_CTX would do.
        let mut enc = CipherCtx::new().expect("ctx");
        enc.encrypt_init(Some(Cipher::aes_128_gcm()), Some(&key), None)
            .expect("init");
        let mut dec = CipherCtx::new().expect("ctx");
        dec.decrypt_init(Some(Cipher::aes_128_gcm()), Some(&key), None)
            .expect("init");
        let mut ct = Vec::with_capacity(size + 16);
        let mut pt = Vec::with_capacity(size + 16);
        let mut tag = [0u8; 16];
        let ossl = rate(size, budget, || {
            ct.clear();
            enc.encrypt_init(None, None, Some(&iv)).expect("iv");
            enc.cipher_update(b"hdr", None).expect("aad");
            enc.cipher_update_vec(black_box(&body), &mut ct)
                .expect("enc");
            enc.cipher_final_vec(&mut ct).expect("final");
            enc.tag(&mut tag).expect("tag");
            pt.clear();
            dec.decrypt_init(None, None, Some(&iv)).expect("iv");
            dec.set_tag(&tag).expect("tag");
            dec.cipher_update(b"hdr", None).expect("aad");
            dec.cipher_update_vec(&ct, &mut pt).expect("dec");
            dec.cipher_final_vec(&mut pt).expect("verify");
            black_box(&pt);
        });
        println!(
            "{size:>8} {:>12.0} {:>12.0} {:>12.0} {:>9.2}x {:>9.2}x",
            ours / 1e6,
            rc / 1e6,
            ossl / 1e6,
            ours / ossl,
            rc / ossl
        );
    }
}
