//! NIST CAVP vectors against the model, read from files fetched by `scripts/fetch-cavp.sh`.
//!
//! Files (from PyPI `cryptography-vectors`, which ships the CAVP files unchanged), relative to
//! `$ROCESEC_CAVP_DIR`:
//! - `ciphers/AES/GCM/gcmEncryptExtIV128.rsp`, `gcmEncryptExtIV256.rsp` (SP 800-38D GCM-AE)
//! - `ciphers/AES/GCM/gcmDecrypt128.rsp`, `gcmDecrypt256.rsp` (SP 800-38D GCM-AD, with FAIL cases)
//! - `KDF/nist-800-108-KBKDF-CTR.txt` (= `KDFCTR_gen.rsp`, SP 800-108 counter mode)
//!
//! GCM: every case with a 128-bit tag is run; the 96-bit-IV cases go through `seal_in_place` /
//! `open_in_place`, the others through the general-IV variants. Cases with shorter tags are
//! unsupported: they are counted, and `open` must reject them. KBKDF: every `CMAC_AES128` /
//! `CMAC_AES256` case with the counter before the fixed input; other PRFs and counter locations
//! are counted as unsupported.
//!
//! When `ROCESEC_CAVP_DIR` is unset the tests print a skip message and pass; when it is set, a
//! missing file is a failure.

#![allow(clippy::unwrap_used, reason = "tests: a panic is a test failure")]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rocesec_model::gcm::{AesGcm, TagMismatch};
use rocesec_model::kdf::kbkdf_ctr_cmac;

const GCM_FILES: [&str; 4] = [
    "ciphers/AES/GCM/gcmEncryptExtIV128.rsp",
    "ciphers/AES/GCM/gcmEncryptExtIV256.rsp",
    "ciphers/AES/GCM/gcmDecrypt128.rsp",
    "ciphers/AES/GCM/gcmDecrypt256.rsp",
];
const KBKDF_FILE: &str = "KDF/nist-800-108-KBKDF-CTR.txt";

fn cavp_dir(test: &str) -> Option<PathBuf> {
    match std::env::var_os("ROCESEC_CAVP_DIR") {
        Some(d) => Some(PathBuf::from(d)),
        None => {
            println!(
                "{test}: SKIPPED: ROCESEC_CAVP_DIR is unset; run scripts/fetch-cavp.sh and set it \
                 to run the NIST CAVP vectors"
            );
            None
        }
    }
}

/// One `.rsp` record: the `[Name = value]` headers in force plus its own `Name = value` lines,
/// and whether it carries a bare `FAIL` line.
#[derive(Debug, Default, Clone)]
struct Record {
    line: usize,
    fields: BTreeMap<String, String>,
    fail: bool,
}

impl Record {
    fn get(&self, k: &str) -> &str {
        self.fields
            .get(k)
            .unwrap_or_else(|| panic!("line {}: no field {k}", self.line))
    }

    fn hex(&self, k: &str) -> Vec<u8> {
        hex::decode(self.get(k)).unwrap_or_else(|e| panic!("line {}: {k}: {e}", self.line))
    }

    fn num(&self, k: &str) -> usize {
        self.get(k)
            .trim_end_matches("_BITS")
            .parse()
            .unwrap_or_else(|e| panic!("line {}: {k}: {e}", self.line))
    }
}

/// Parses CAVP response files: `[K = v]` / `[K=v]` section headers, records that start with
/// `Count = n` (or `COUNT=n`), `K = v` fields, bare `FAIL`, `#` comments.
fn parse_rsp(path: &Path) -> Vec<Record> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        panic!(
            "ROCESEC_CAVP_DIR is set but {} is unreadable: {e}",
            path.display()
        )
    });
    let mut headers = BTreeMap::new();
    let mut out: Vec<Record> = Vec::new();
    let mut cur: Option<Record> = None;
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(h) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            out.extend(cur.take());
            if let Some((k, v)) = h.split_once('=') {
                headers.insert(k.trim().to_string(), v.trim().to_string());
            }
            continue;
        }
        if line == "FAIL" {
            cur.as_mut().expect("FAIL outside a record").fail = true;
            continue;
        }
        let Some((k, v)) = line.split_once('=') else {
            panic!("{}:{}: unparsed line {line:?}", path.display(), n + 1);
        };
        let (k, v) = (k.trim(), v.trim());
        if k.eq_ignore_ascii_case("count") {
            out.extend(cur.take());
            cur = Some(Record {
                line: n + 1,
                fields: headers.clone(),
                fail: false,
            });
        }
        if let Some(r) = cur.as_mut() {
            r.fields.insert(k.to_string(), v.to_string());
        }
    }
    out.extend(cur);
    out
}

#[derive(Default)]
struct Tally {
    run: usize,
    /// `Some(n)` for GCM tallies: how many of the run cases had a 96-bit IV.
    iv96: Option<usize>,
    /// Expected-FAIL cases (GCM-AD) that were run and rejected.
    rejected: usize,
    /// One message per failed case.
    failed: Vec<String>,
    unsupported: BTreeMap<String, usize>,
}

impl Tally {
    fn print_and_check(&self, name: &str, floor: usize) {
        let unsup: usize = self.unsupported.values().sum();
        let why: Vec<String> = self
            .unsupported
            .iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect();
        let iv = self
            .iv96
            .map(|n| format!(" ({n} with 96-bit IV, {} expected-FAIL)", self.rejected))
            .unwrap_or_default();
        println!(
            "{name}: {} run{iv}, {} failed, {unsup} unsupported ({})",
            self.run,
            self.failed.len(),
            if why.is_empty() {
                "none".into()
            } else {
                why.join(", ")
            }
        );
        for f in self.failed.iter().take(20) {
            println!("  FAILED {f}");
        }
        assert!(
            self.failed.is_empty(),
            "{name}: {} failed",
            self.failed.len()
        );
        assert!(
            self.run >= floor,
            "{name}: only {} run, expected at least {floor}",
            self.run
        );
    }
}

fn run_gcm_file(path: &Path, t: &mut Tally) {
    let records = parse_rsp(path);
    assert!(!records.is_empty(), "{}: no records", path.display());
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    for r in records {
        let id = format!("{name}:{} Count={}", r.line, r.get("Count"));
        let gcm = AesGcm::new(&r.hex("Key")).unwrap_or_else(|_| panic!("{id}: key refused"));
        let (iv, aad, ct, tag) = (r.hex("IV"), r.hex("AAD"), r.hex("CT"), r.hex("Tag"));
        let iv96 = <[u8; 12]>::try_from(&iv[..]).ok();
        let expect_ok = !r.fail;

        if r.num("Taglen") != 128 {
            // Truncated tags are not supported: open must refuse them, buffer untouched.
            let mut buf = ct.clone();
            let res = gcm.open_in_place_iv(&iv, &aad, &mut buf, &tag);
            if res != Err(TagMismatch) || buf != ct {
                t.failed
                    .push(format!("{id}: {}-bit tag accepted", r.num("Taglen")));
            }
            *t.unsupported
                .entry("Taglen != 128".to_string())
                .or_default() += 1;
            continue;
        }
        t.run += 1;
        *t.iv96.get_or_insert(0) += usize::from(iv96.is_some());
        let mut problems = Vec::new();

        // Decrypt (GCM-AD), on every file: the ExtIV files carry PT and are all valid.
        let mut buf = ct.clone();
        let res = match &iv96 {
            Some(iv) => gcm.open_in_place(iv, &aad, &mut buf, &tag),
            None => gcm.open_in_place_iv(&iv, &aad, &mut buf, &tag),
        };
        match (expect_ok, res) {
            (true, Ok(())) if buf == r.hex("PT") => {}
            (true, _) => problems.push("open failed or wrong PT"),
            (false, Err(TagMismatch)) if buf == ct => t.rejected += 1,
            (false, _) => problems.push("FAIL case accepted or buffer modified"),
        }
        // Encrypt (GCM-AE) for every valid case.
        if expect_ok {
            let mut buf = r.hex("PT");
            let got = match &iv96 {
                Some(iv) => Ok(gcm.seal_in_place(iv, &aad, &mut buf)),
                None => gcm.seal_in_place_iv(&iv, &aad, &mut buf),
            };
            if got.map(|g| g.to_vec()) != Ok(tag.clone()) || buf != ct {
                problems.push("seal gave a different CT or Tag");
            }
        }
        if !problems.is_empty() {
            t.failed.push(format!("{id}: {}", problems.join("; ")));
        }
    }
}

#[test]
fn cavp_gcm() {
    let Some(dir) = cavp_dir("cavp_gcm") else {
        return;
    };
    let mut total = Tally::default();
    for f in GCM_FILES {
        let path = dir.join(f);
        assert!(
            path.is_file(),
            "ROCESEC_CAVP_DIR is set but {} is missing",
            path.display()
        );
        let mut t = Tally::default();
        run_gcm_file(&path, &mut t);
        // Each file has 7875 cases, 1125 of them with a 128-bit tag.
        t.print_and_check(path.file_name().unwrap().to_str().unwrap(), 1000);
        total.run += t.run;
        *total.iv96.get_or_insert(0) += t.iv96.unwrap_or(0);
        total.rejected += t.rejected;
        for (k, v) in t.unsupported {
            *total.unsupported.entry(k).or_default() += v;
        }
    }
    total.print_and_check("cavp_gcm total", 4000);
}

#[test]
fn cavp_kbkdf_ctr_cmac() {
    let Some(dir) = cavp_dir("cavp_kbkdf_ctr_cmac") else {
        return;
    };
    let path = dir.join(KBKDF_FILE);
    assert!(
        path.is_file(),
        "ROCESEC_CAVP_DIR is set but {} is missing",
        path.display()
    );
    let mut t = Tally::default();
    for r in parse_rsp(&path) {
        let prf = r.get("PRF");
        let loc = r.get("CTRLOCATION");
        if !matches!(prf, "CMAC_AES128" | "CMAC_AES256") {
            *t.unsupported.entry(format!("PRF={prf}")).or_default() += 1;
            continue;
        }
        if loc != "BEFORE_FIXED" {
            *t.unsupported
                .entry(format!("CTRLOCATION={loc}"))
                .or_default() += 1;
            continue;
        }
        t.run += 1;
        let id = format!(
            "{KBKDF_FILE}:{} [PRF={prf}] COUNT={}",
            r.line,
            r.get("COUNT")
        );
        let l_bits = r.num("L");
        let ko = r.hex("KO");
        assert_eq!(l_bits, ko.len() * 8, "{id}: L");
        let mut out = vec![0u8; ko.len()];
        let res = kbkdf_ctr_cmac(
            &r.hex("KI"),
            r.num("RLEN") as u32,
            &r.hex("FixedInputData"),
            &mut out,
        );
        if res.is_err() || out != ko {
            t.failed.push(id);
        }
    }
    // 320 CMAC_AES128/256 BEFORE_FIXED cases.
    t.print_and_check("cavp_kbkdf_ctr_cmac", 320);
}
