//! Verilate the rocesec RTL test tops and compile them into this crate (no make, no verilated.mk).
//!
//! For every entry of [`MODELS`]: `verilator --cc -O3` into `$OUT_DIR/<name>` with class prefix
//! `V<name>`, then the generated C++ is compiled with the `cc` crate (fast files at
//! `ROCESEC_VSIM_OPT`, default -O2 even in dev builds; `__Slow`/`__Syms` at -O0), together with the
//! per-top shim `csrc/<module>.cpp` (symbols prefixed `<name>_`). The Verilator runtime
//! (`verilated.cpp`, `verilated_threads.cpp`) is compiled once. A model is rebuilt only when the
//! contents of its sources, its shim, its parameters/defines or the environment below changed
//! (stamp file `$OUT_DIR/<name>.stamp`), so editing one block does not re-verilate the others.
//!
//! Environment:
//! - `VERILATOR`: the binary (default `verilator`); `VERILATOR_ROOT`: its root (default: asked
//!   from `verilator --getenv VERILATOR_ROOT`).
//! - `ROCESEC_FAULT=sbox`: build every AES model with `+define+FAULT_SBOX` (one flipped S-box bit)
//!   so the ordinary comparison tests must fail. The `aes_cipher_pipe_fault` model always has it.
//! - `ROCESEC_VSIM_OPT`: C++ optimisation level of the fast model files (default 2; at most 1
//!   for the trace twins and the [`LIGHT`] models).
//!
//! Models marked `trace` are verilated with `--trace-fst` and compiled with `VM_TRACE=1`; the
//! FST writer (`verilated_fst_c.cpp`) is then compiled once too and zlib linked (Debian package
//! zlib1g-dev, installed by scripts/setup.sh). See docs/cosim.md, "Waveforms".
#![allow(missing_docs)]

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One Verilator model variant.
struct Model {
    /// Variant name: Verilator class `V<name>`, shim symbol prefix `<name>_`.
    name: &'static str,
    /// RTL top module (its shim is `csrc/<module>.cpp`).
    module: &'static str,
    /// File list, relative to `rtl/`; entries are relative to the list's folder.
    filelist: &'static str,
    /// `-G` parameter overrides.
    params: &'static [(&'static str, &'static str)],
    /// `+define+` macros.
    defines: &'static [&'static str],
    /// Trace-capable (`--trace-fst`, [`TRACE_DEPTH`]): the shim can write an FST waveform at
    /// run time (`<name>_trace_open`); off until opened.
    trace: bool,
}

/// `--trace-depth` of trace-capable models: the wrapper's ports and every level below it down to
/// the AES rounds (TOP, `*_axil`, `rocesec_*`, `*_emit`/`*_key`, `rocesec_ctr`/`ghash_feed`/
/// `key_cache`, `aes_cipher_pipe`/`ghash_core`/`kdf_cmac`, their generate blocks and rounds).
const TRACE_DEPTH: u32 = 8;

const MODELS: &[Model] = &[
    Model {
        name: "aes_cipher_pipe_128",
        module: "aes_cipher_pipe",
        filelist: "aes/aes_cipher_pipe.f",
        params: &[("KeyLen", "128"), ("TagWidth", "16")],
        defines: &[],
        trace: false,
    },
    Model {
        name: "aes_cipher_pipe_256",
        module: "aes_cipher_pipe",
        filelist: "aes/aes_cipher_pipe.f",
        params: &[("KeyLen", "256"), ("TagWidth", "16")],
        defines: &[],
        trace: false,
    },
    Model {
        name: "aes_cipher_pipe_128_tower",
        module: "aes_cipher_pipe",
        filelist: "aes/aes_cipher_pipe.f",
        params: &[("KeyLen", "128"), ("TagWidth", "16"), ("SboxTower", "1'b1")],
        defines: &[],
        trace: false,
    },
    Model {
        name: "aes_cipher_pipe_256_tower_l1",
        module: "aes_cipher_pipe",
        filelist: "aes/aes_cipher_pipe.f",
        params: &[
            ("KeyLen", "256"),
            ("TagWidth", "16"),
            ("SboxTower", "1'b1"),
            ("SboxLatency", "1"),
        ],
        defines: &[],
        trace: false,
    },
    Model {
        name: "aes_cipher_pipe_fault",
        module: "aes_cipher_pipe",
        filelist: "aes/aes_cipher_pipe.f",
        params: &[("KeyLen", "128"), ("TagWidth", "16")],
        defines: &["FAULT_SBOX"],
        trace: false,
    },
    Model {
        name: "aes_cipher_iter_128",
        module: "aes_cipher_iter",
        filelist: "aes/aes_cipher_iter.f",
        params: &[("KeyLen", "128"), ("SboxLatency", "2")],
        defines: &[],
        trace: false,
    },
    Model {
        name: "aes_cipher_iter_256_l1",
        module: "aes_cipher_iter",
        filelist: "aes/aes_cipher_iter.f",
        params: &[("KeyLen", "256"), ("SboxLatency", "1")],
        defines: &[],
        trace: false,
    },
    Model {
        name: "ghash_mul_1",
        module: "ghash_mul",
        filelist: "ghash/ghash_mul.f",
        params: &[("NumStages", "1"), ("TagWidth", "16")],
        defines: &[],
        trace: false,
    },
    Model {
        name: "ghash_mul_2",
        module: "ghash_mul",
        filelist: "ghash/ghash_mul.f",
        params: &[("NumStages", "2"), ("TagWidth", "16")],
        defines: &[],
        trace: false,
    },
    Model {
        name: "ghash_mul_3",
        module: "ghash_mul",
        filelist: "ghash/ghash_mul.f",
        params: &[("NumStages", "3"), ("TagWidth", "16")],
        defines: &[],
        trace: false,
    },
    Model {
        name: "common_fifo_ram_4",
        module: "common_fifo_ram",
        filelist: "common/common_fifo_ram.f",
        params: &[("Width", "16"), ("Depth", "4")],
        defines: &[],
        trace: false,
    },
    Model {
        name: "common_fifo_ram_16",
        module: "common_fifo_ram",
        filelist: "common/common_fifo_ram.f",
        params: &[("Width", "16"), ("Depth", "16")],
        defines: &[],
        trace: false,
    },
    Model {
        name: "common_fifo_sync_4",
        module: "common_fifo_sync",
        filelist: "common/common_fifo_sync.f",
        params: &[("Width", "16"), ("Depth", "4")],
        defines: &[],
        trace: false,
    },
    Model {
        name: "common_fifo_sync_16",
        module: "common_fifo_sync",
        filelist: "common/common_fifo_sync.f",
        params: &[("Width", "16"), ("Depth", "16")],
        defines: &[],
        trace: false,
    },
    Model {
        name: "common_fifo_sync_reg_4",
        module: "common_fifo_sync",
        filelist: "common/common_fifo_sync.f",
        params: &[("Width", "16"), ("Depth", "4"), ("RegOut", "1")],
        defines: &[],
        trace: false,
    },
    Model {
        name: "common_fifo_sync_reg_16",
        module: "common_fifo_sync",
        filelist: "common/common_fifo_sync.f",
        params: &[("Width", "16"), ("Depth", "16"), ("RegOut", "1")],
        defines: &[],
        trace: false,
    },
    Model {
        name: "common_skid",
        module: "common_skid",
        filelist: "common/common_skid.f",
        params: &[("Width", "16")],
        defines: &[],
        trace: false,
    },
    Model {
        name: "rocesec_ctr_1",
        module: "rocesec_ctr",
        filelist: "top/rocesec_ctr.f",
        params: &[("LANES", "1")],
        defines: &[],
        trace: false,
    },
    Model {
        name: "rocesec_ctr_4",
        module: "rocesec_ctr",
        filelist: "top/rocesec_ctr.f",
        params: &[("LANES", "4")],
        defines: &[],
        trace: false,
    },
    Model {
        name: "rocesec_ghash_feed_wide_2",
        module: "rocesec_ghash_feed_wide",
        filelist: "top/rocesec_ghash_feed_wide.f",
        params: &[("LANES", "2"), ("QDepth", "8")],
        defines: &[],
        trace: false,
    },
    Model {
        name: "rocesec_ghash_feed_wide_4",
        module: "rocesec_ghash_feed_wide",
        filelist: "top/rocesec_ghash_feed_wide.f",
        params: &[("LANES", "4")],
        defines: &[],
        trace: false,
    },
    Model {
        name: "rocesec_key_cache",
        module: "rocesec_key_cache",
        filelist: "top/rocesec_key_cache.f",
        params: &[],
        defines: &[],
        trace: false,
    },
    // The policy table and PD key slots of both key stages: TX (slot epoch from the policy, as
    // in rocesec_protect_key) and RX (slot epoch from the packet, as in rocesec_verify_key).
    Model {
        name: "rocesec_key_tables_tx",
        module: "rocesec_key_tables",
        filelist: "top/rocesec_key_tables.f",
        params: &[
            ("NumPolicies", "8"),
            ("NumPdSlots", "4"),
            ("EpochFromPolicy", "1'b1"),
        ],
        defines: &[],
        trace: false,
    },
    Model {
        name: "rocesec_key_tables_rx",
        module: "rocesec_key_tables",
        filelist: "top/rocesec_key_tables.f",
        params: &[
            ("NumPolicies", "8"),
            ("NumPdSlots", "4"),
            ("EpochFromPolicy", "1'b0"),
        ],
        defines: &[],
        trace: false,
    },
    // The RX key stage alone (decisions, verdict queue, RX QP state), for the verdicts of one
    // QP in consecutive cycles that the whole verify top never produces (cosim/tests/verify_key.rs).
    Model {
        name: "rocesec_verify_key",
        module: "rocesec_verify_key",
        filelist: "top/rocesec_verify_key.f",
        params: &[
            ("NumPolicies", "8"),
            ("NumPdSlots", "4"),
            ("NumQps", "16"),
            ("NumCache", "8"),
            ("VqDepth", "4"),
        ],
        defines: &[],
        trace: false,
    },
    Model {
        name: "ghash_core_1",
        module: "ghash_core",
        filelist: "ghash/ghash_core.f",
        params: &[("MulStages", "1"), ("TagWidth", "16")],
        defines: &[],
        trace: false,
    },
    Model {
        name: "ghash_core_2",
        module: "ghash_core",
        filelist: "ghash/ghash_core.f",
        params: &[("MulStages", "2"), ("TagWidth", "16")],
        defines: &[],
        trace: false,
    },
    Model {
        name: "ghash_core_3",
        module: "ghash_core",
        filelist: "ghash/ghash_core.f",
        params: &[("MulStages", "3"), ("TagWidth", "16")],
        defines: &[],
        trace: false,
    },
    Model {
        name: "ghash_lanes_1",
        module: "ghash_lanes",
        filelist: "ghash/ghash_lanes.f",
        params: &[("LANES", "1"), ("TagWidth", "16")],
        defines: &[],
        trace: false,
    },
    Model {
        name: "ghash_lanes_2",
        module: "ghash_lanes",
        filelist: "ghash/ghash_lanes.f",
        params: &[("LANES", "2"), ("TagWidth", "16")],
        defines: &[],
        trace: false,
    },
    Model {
        name: "ghash_lanes_4",
        module: "ghash_lanes",
        filelist: "ghash/ghash_lanes.f",
        params: &[("LANES", "4"), ("TagWidth", "16")],
        defines: &[],
        trace: false,
    },
    Model {
        name: "ghash_lanes_4_pow",
        module: "ghash_lanes",
        filelist: "ghash/ghash_lanes.f",
        params: &[("LANES", "4"), ("TagWidth", "16"), ("PowersIn", "1")],
        defines: &[],
        trace: false,
    },
    // ghash_lanes' proof that its tests can fail: one product bit flips (rtl/ghash/ghash_lanes.sv).
    Model {
        name: "ghash_lanes_4_fault",
        module: "ghash_lanes",
        filelist: "ghash/ghash_lanes.f",
        params: &[("LANES", "4"), ("TagWidth", "16")],
        defines: &["FAULT_GHASH"],
        trace: false,
    },
    Model {
        name: "roce_icrc_1",
        module: "roce_icrc",
        filelist: "roce/roce_icrc.f",
        params: &[("Lanes", "1")],
        defines: &[],
        trace: false,
    },
    Model {
        name: "roce_icrc_4",
        module: "roce_icrc",
        filelist: "roce/roce_icrc.f",
        params: &[("Lanes", "4")],
        defines: &[],
        trace: false,
    },
    Model {
        name: "roce_parse_1",
        module: "roce_parse",
        filelist: "roce/roce_parse.f",
        params: &[("LANES", "1")],
        defines: &[],
        trace: false,
    },
    Model {
        name: "roce_parse_4",
        module: "roce_parse",
        filelist: "roce/roce_parse.f",
        params: &[("LANES", "4")],
        defines: &[],
        trace: false,
    },
    Model {
        name: "kdf_cmac_128",
        module: "kdf_cmac",
        filelist: "kdf/kdf_cmac.f",
        params: &[("KeyLen", "128"), ("MaxMsgBytes", "48")],
        defines: &[],
        trace: false,
    },
    Model {
        name: "kdf_cmac_256",
        module: "kdf_cmac",
        filelist: "kdf/kdf_cmac.f",
        params: &[("KeyLen", "256"), ("MaxMsgBytes", "48")],
        defines: &[],
        trace: false,
    },
    Model {
        name: "rocesec_protect_1",
        module: "rocesec_protect_axil",
        filelist: "top/rocesec_protect_axil.f",
        params: &[("LANES", "1")],
        defines: &[],
        trace: false,
    },
    Model {
        name: "rocesec_verify_4",
        module: "rocesec_verify_axil",
        filelist: "top/rocesec_verify_axil.f",
        params: &[("LANES", "4")],
        defines: &[],
        trace: false,
    },
    // LANES = 4 (64-byte beats): bytes, verdicts and line rate against the model.
    Model {
        name: "rocesec_protect_4",
        module: "rocesec_protect_axil",
        filelist: "top/rocesec_protect_axil.f",
        params: &[("LANES", "4")],
        defines: &[],
        trace: false,
    },
    // The main job's proof that it can fail: one flipped S-box bit (rtl/0_pkg/aes_pkg.sv).
    Model {
        name: "rocesec_protect_1_fault",
        module: "rocesec_protect_axil",
        filelist: "top/rocesec_protect_axil.f",
        params: &[("LANES", "1")],
        defines: &["FAULT_SBOX"],
        trace: true,
    },
    // Trace-capable build of rocesec_protect_1 for the main job's waveform of a mismatch
    // (cosim/src/waves.rs): the main model stays without tracing, which costs ~9 % run time
    // even with tracing off (docs/rtl/cosim.md, "Waveforms").
    Model {
        name: "rocesec_protect_1_trace",
        module: "rocesec_protect_axil",
        filelist: "top/rocesec_protect_axil.f",
        params: &[("LANES", "1")],
        defines: &[],
        trace: true,
    },
    Model {
        name: "rocesec_verify_1",
        module: "rocesec_verify_axil",
        filelist: "top/rocesec_verify_axil.f",
        params: &[("LANES", "1")],
        defines: &[],
        trace: false,
    },
    // Proof that the verify comparison can fail: one flipped S-box bit (rtl/0_pkg/aes_pkg.sv).
    Model {
        name: "rocesec_verify_1_fault",
        module: "rocesec_verify_axil",
        filelist: "top/rocesec_verify_axil.f",
        params: &[("LANES", "1")],
        defines: &["FAULT_SBOX"],
        trace: true,
    },
    // Trace-capable build of rocesec_verify_1 for the main job's waveform of a mismatch
    // (cosim/src/waves.rs): the main model stays without tracing, which costs ~9 % run time
    // even with tracing off (docs/rtl/cosim.md, "Waveforms").
    Model {
        name: "rocesec_verify_1_trace",
        module: "rocesec_verify_axil",
        filelist: "top/rocesec_verify_axil.f",
        params: &[("LANES", "1")],
        defines: &[],
        trace: true,
    },
    // Trace-capable builds of the LANES = 4 tops, for `rocesec cosim --lanes 4` waveforms.
    Model {
        name: "rocesec_protect_4_trace",
        module: "rocesec_protect_axil",
        filelist: "top/rocesec_protect_axil.f",
        params: &[("LANES", "4")],
        defines: &[],
        trace: true,
    },
    Model {
        name: "rocesec_verify_4_trace",
        module: "rocesec_verify_axil",
        filelist: "top/rocesec_verify_axil.f",
        params: &[("LANES", "4")],
        defines: &[],
        trace: true,
    },
];

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let rtl = manifest
        .join("../rtl")
        .canonicalize()
        .expect("rtl/ next to cosim/");
    let csrc = manifest.join("csrc");
    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    let verilator = env::var("VERILATOR").unwrap_or_else(|_| "verilator".into());
    let fault = env::var("ROCESEC_FAULT").unwrap_or_default();
    for v in [
        "VERILATOR",
        "VERILATOR_ROOT",
        "ROCESEC_FAULT",
        "ROCESEC_VSIM_OPT",
    ] {
        println!("cargo:rerun-if-env-changed={v}");
    }
    println!("cargo:rerun-if-changed={}", rtl.display());
    println!("cargo:rerun-if-changed={}", csrc.display());
    for dir in walk(&rtl) {
        println!("cargo:rerun-if-changed={}", dir.display());
    }

    let root = match env::var("VERILATOR_ROOT") {
        Ok(r) if !r.is_empty() => PathBuf::from(r),
        _ => {
            let o = Command::new(&verilator)
                .args(["--getenv", "VERILATOR_ROOT"])
                .output()
                .expect(
                    "cannot run verilator: install it (apt-get install verilator) or set VERILATOR",
                );
            PathBuf::from(String::from_utf8_lossy(&o.stdout).trim())
        }
    };
    let inc = root.join("include");
    let opt: u32 = env::var("ROCESEC_VSIM_OPT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);

    let base = |o: u32, trace: bool| {
        let mut b = cc::Build::new();
        b.cpp(true)
            .std("c++17")
            .opt_level(o)
            .debug(false)
            .warnings(false)
            .cargo_metadata(true)
            .include(&inc)
            .include(inc.join("vltstd"))
            .define("VM_TRACE", if trace { "1" } else { "0" })
            .define("VM_TRACE_FST", if trace { "1" } else { "0" })
            .define("VM_COVERAGE", "0")
            .define("VM_SC", "0")
            .flag_if_supported("-faligned-new")
            .flag_if_supported("-fcf-protection=none")
            .flag_if_supported("-Wno-bool-operation")
            .flag_if_supported("-Wno-unused-parameter");
        b
    };

    // Verilator runtime, compiled once per Verilator installation.
    let rt_stamp = format!("rt {} opt2", root.display());
    if !fresh(
        &out,
        "rocesec_verilated_rt",
        &rt_stamp,
        &["rocesec_verilated_rt"],
    ) {
        base(2, false)
            .file(inc.join("verilated.cpp"))
            .file(inc.join("verilated_threads.cpp"))
            .compile("rocesec_verilated_rt");
        write_stamp(&out, "rocesec_verilated_rt", &rt_stamp);
    }
    // The FST writer (with its bundled fastlz/lz4 and the system zlib), only when a model traces.
    if MODELS.iter().any(|m| m.trace) {
        let fst_stamp = format!("fst {} opt2", root.display());
        if !fresh(
            &out,
            "rocesec_verilated_fst",
            &fst_stamp,
            &["rocesec_verilated_fst"],
        ) {
            base(2, true)
                .file(inc.join("verilated_fst_c.cpp"))
                .compile("rocesec_verilated_fst");
            write_stamp(&out, "rocesec_verilated_fst", &fst_stamp);
        }
        println!("cargo:rustc-link-lib=z");
    }

    // Models are independent: verilate and compile them on `NUM_JOBS` worker threads (cargo's
    // -j; each `cc` compile also takes jobserver tokens for its own files). Verilator is single-
    // threaded, so one model at a time left a core idle for most of the build. The heaviest models
    // (the tops, listed last) start first.
    let jobs = env::var("NUM_JOBS")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
        .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
        .unwrap_or(1)
        .clamp(1, MODELS.len());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let ctx = Ctx {
        rtl: &rtl,
        csrc: &csrc,
        out: &out,
        verilator: &verilator,
        fault: &fault,
        root: &root,
        opt,
        base: &base,
    };
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= MODELS.len() {
                    break;
                }
                build_model(&MODELS[MODELS.len() - 1 - i], &ctx);
            });
        }
    });
    println!("cargo:rustc-link-lib=stdc++");
    println!("cargo:rustc-link-lib=pthread");
}

/// Models whose tests are short (known-answer vectors, one capture with a fault), built at -O1
/// at most like the trace twins: their C++ compile costs far more than their run time (the
/// tower S-box pipelines took about 63 and 110 s at -O2 by file times, 38 s each at -O1 in the
/// session 9 CI run, for tests of well under 1 s).
const LIGHT: &[&str] = &[
    "aes_cipher_pipe_128_tower",
    "aes_cipher_pipe_256_tower_l1",
    "aes_cipher_pipe_fault",
    "ghash_lanes_4_fault",
    "rocesec_protect_1_fault",
    "rocesec_verify_1_fault",
];

/// What every model build needs from `main`.
struct Ctx<'a> {
    rtl: &'a Path,
    csrc: &'a Path,
    out: &'a Path,
    verilator: &'a str,
    fault: &'a str,
    root: &'a Path,
    opt: u32,
    base: &'a (dyn Fn(u32, bool) -> cc::Build + Sync),
}

/// Verilate one model and compile it into `lib<name>_fast.a` / `lib<name>_slow.a`, unless its
/// stamp says the libraries are up to date (then only tell cargo to link them).
fn build_model(m: &Model, c: &Ctx) {
    let t0 = std::time::Instant::now();
    let (rtl, csrc, out, verilator, fault, root, base) =
        (c.rtl, c.csrc, c.out, c.verilator, c.fault, c.root, c.base);
    let opt = c.opt;
    // The trace twins only re-run one stream up to a mismatch window, and the LIGHT models run
    // short tests: -O1 builds them faster.
    let opt = if m.name.ends_with("_trace") || LIGHT.contains(&m.name) {
        opt.min(1)
    } else {
        opt
    };
    let mdir = out.join(m.name);
    let sources = read_filelist(&rtl.join(m.filelist));
    let shim = csrc.join(format!("{}.cpp", m.module));
    let mut defines: Vec<&str> = m.defines.to_vec();
    if fault == "sbox" && m.module.starts_with("aes") {
        defines.push("FAULT_SBOX");
    }
    // Rebuild a model only when its inputs changed (sources, shim, parameters, defines).
    let mut stamp = format!(
        "{} {} {:?} {:?} opt={} root={} trace={}",
        m.name,
        m.module,
        m.params,
        defines,
        opt,
        root.display(),
        if m.trace { TRACE_DEPTH } else { 0 }
    );
    for f in sources.iter().chain([&shim, &csrc.join("shim.h")]) {
        stamp.push_str(&format!(" {}:{:016x}", f.display(), content_hash(f)));
    }
    let libs = [format!("{}_fast", m.name), format!("{}_slow", m.name)];
    let lib_refs: Vec<&str> = libs.iter().map(String::as_str).collect();
    if fresh(out, m.name, &stamp, &lib_refs) {
        return;
    }
    let _ = fs::remove_dir_all(&mdir);
    let class = format!("V{}", m.name);
    let mut cmd = Command::new(verilator);
    cmd.args([
        "--cc",
        "-O3",
        "--x-assign",
        "fast",
        "--x-initial",
        "fast",
        "--noassert",
    ])
    .args(["-Wall", "-Wno-fatal", "--quiet-exit"])
    .arg("--Mdir")
    .arg(&mdir)
    .arg("--prefix")
    .arg(&class)
    .arg("--top-module")
    .arg(m.module);
    for (k, v) in m.params {
        cmd.arg(format!("-G{k}={v}"));
    }
    for d in &defines {
        cmd.arg(format!("+define+{d}"));
    }
    if m.trace {
        cmd.args(["--trace-fst", "--trace-structs", "--trace-depth"])
            .arg(TRACE_DEPTH.to_string());
    }
    for f in &sources {
        cmd.arg(f);
    }
    let st = cmd.status().expect("run verilator");
    assert!(st.success(), "verilator failed for {}", m.name);
    let t_verilate = t0.elapsed().as_secs_f64();

    let (mut fast, mut slow) = (base(opt, m.trace), base(0, m.trace));
    for b in [&mut fast, &mut slow] {
        b.include(&mdir).include(csrc);
    }
    let mut cpps: Vec<PathBuf> = fs::read_dir(&mdir)
        .expect("read Mdir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cpp"))
        .collect();
    cpps.sort();
    for p in cpps {
        let n = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if n.contains("__Slow") || n.contains("__Syms") {
            slow.file(&p);
        } else {
            fast.file(&p);
        }
    }
    fast.file(&shim)
        .define("VTOP", class.as_str())
        .define("VTOP_H", format!("\"{class}.h\"").as_str())
        .define("PFX", m.name);
    fast.compile(&libs[0]);
    slow.compile(&libs[1]);
    write_stamp(out, m.name, &stamp);
    // Wall time of the model's last build (two models build at once on two cores, so about its
    // CPU time): `$OUT_DIR/<name>.build-time`, summed up in docs/testplan.md "CI time".
    let line = format!(
        "{:<30} verilate {:>6.1} s  C++ -O{opt} {:>6.1} s\n",
        m.name,
        t_verilate,
        t0.elapsed().as_secs_f64() - t_verilate
    );
    let _ = fs::write(out.join(format!("{}.build-time", m.name)), line);
}

/// Is the build of `name` (stamp file `<out>/<name>.stamp`) up to date with `stamp`, and do its
/// static libraries exist? If so, tell cargo to link them as `cc` would have.
fn fresh(out: &Path, name: &str, stamp: &str, libs: &[&str]) -> bool {
    let ok = fs::read_to_string(out.join(format!("{name}.stamp"))).is_ok_and(|s| s == stamp)
        && libs.iter().all(|l| out.join(format!("lib{l}.a")).exists());
    if ok {
        println!("cargo:rustc-link-search=native={}", out.display());
        for l in libs {
            println!("cargo:rustc-link-lib=static={l}");
        }
    }
    ok
}

fn write_stamp(out: &Path, name: &str, stamp: &str) {
    fs::write(out.join(format!("{name}.stamp")), stamp).expect("write build stamp");
}

/// FNV-1a of a file's contents (change detection only).
fn content_hash(f: &Path) -> u64 {
    let bytes = fs::read(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Absolute paths of the sources named by a `.f` file list (one path per line, relative to the
/// list's folder; `#`/`//` comments and blank lines ignored).
fn read_filelist(f: &Path) -> Vec<PathBuf> {
    let dir = f.parent().expect("file list folder");
    let text = fs::read_to_string(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with("//"))
        .map(|l| {
            dir.join(l)
                .canonicalize()
                .unwrap_or_else(|e| panic!("{l}: {e}"))
        })
        .collect()
}

/// Every folder under `root` (for rerun-if-changed on added files).
fn walk(root: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![root.to_path_buf()];
    let mut i = 0;
    while i < dirs.len() {
        if let Ok(rd) = fs::read_dir(&dirs[i]) {
            for e in rd.flatten() {
                if e.path().is_dir() {
                    dirs.push(e.path());
                }
            }
        }
        i += 1;
    }
    dirs
}
