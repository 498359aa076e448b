//! Embed the committed rxe corpus (`testbench/captures/*.pcap`) into the crate, so that the
//! `rocesec` binary runs its default job from any directory (`rocesec_model::corpus`).
#![allow(missing_docs)]

use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let dir = manifest.join("../testbench/captures");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "pcap"));
    files.sort();
    let mut src =
        String::from("/// The committed rxe corpus: (file name, pcap bytes), sorted by name.\n");
    src += "pub static EMBEDDED: &[(&str, &[u8])] = &[\n";
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let abs = f.canonicalize().unwrap_or_else(|_| f.clone());
        let _ = writeln!(
            src,
            "    ({name:?}, include_bytes!({:?})),",
            abs.display().to_string()
        );
    }
    src += "];\n";
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join("corpus.rs");
    std::fs::write(out, src).expect("write corpus.rs");
}
