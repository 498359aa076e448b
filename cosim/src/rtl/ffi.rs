//! The only `unsafe` code of the crate: bindings to the Verilator models built by `build.rs`.
//!
//! Every model variant exports the same six functions (see `csrc/shim.h`), prefixed with the
//! variant name. [`Model`] owns one instance and exposes them safely: ports are looked up by name
//! once ([`Model::port`]) and then driven or read as little-endian `u32` words (word 0 = bits
//! 31:0), with the word count checked on every call.
#![allow(unsafe_code)]

use std::ffi::{c_char, c_void, CString};
use std::ptr::NonNull;

/// The function table of one model variant.
struct VTable {
    new: unsafe extern "C" fn() -> *mut c_void,
    delete: unsafe extern "C" fn(*mut c_void),
    eval: unsafe extern "C" fn(*mut c_void),
    port: unsafe extern "C" fn(*const c_char, *mut u32) -> i32,
    set: unsafe extern "C" fn(*mut c_void, i32, *const u32),
    get: unsafe extern "C" fn(*mut c_void, i32, *mut u32),
    traceable: unsafe extern "C" fn() -> i32,
    trace_open: unsafe extern "C" fn(*mut c_void, *const c_char) -> i32,
    trace_dump: unsafe extern "C" fn(*mut c_void, u64),
    trace_close: unsafe extern "C" fn(*mut c_void),
}

macro_rules! models {
    ($($variant:ident => $pfx:literal,)*) => {
        /// A Verilator model variant compiled into this crate (name = `build.rs` model name).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Top {
            $(
                #[doc = concat!("`", $pfx, "`")]
                $variant,
            )*
        }

        mod sys {
            use std::ffi::{c_char, c_void};
            $(
                #[allow(non_snake_case)]
                pub mod $variant {
                    use super::{c_char, c_void};
                    extern "C" {
                        #[link_name = concat!($pfx, "_new")]
                        pub fn new() -> *mut c_void;
                        #[link_name = concat!($pfx, "_delete")]
                        pub fn delete(s: *mut c_void);
                        #[link_name = concat!($pfx, "_eval")]
                        pub fn eval(s: *mut c_void);
                        #[link_name = concat!($pfx, "_port")]
                        pub fn port(name: *const c_char, words: *mut u32) -> i32;
                        #[link_name = concat!($pfx, "_set")]
                        pub fn set(s: *mut c_void, idx: i32, w: *const u32);
                        #[link_name = concat!($pfx, "_get")]
                        pub fn get(s: *mut c_void, idx: i32, w: *mut u32);
                        #[link_name = concat!($pfx, "_traceable")]
                        pub fn traceable() -> i32;
                        #[link_name = concat!($pfx, "_trace_open")]
                        pub fn trace_open(s: *mut c_void, path: *const c_char) -> i32;
                        #[link_name = concat!($pfx, "_trace_dump")]
                        pub fn trace_dump(s: *mut c_void, t: u64);
                        #[link_name = concat!($pfx, "_trace_close")]
                        pub fn trace_close(s: *mut c_void);
                    }
                }
            )*
        }

        impl Top {
            fn vtable(self) -> &'static VTable {
                match self {
                    $(
                        Top::$variant => {
                            static VT: VTable = VTable {
                                new: sys::$variant::new,
                                delete: sys::$variant::delete,
                                eval: sys::$variant::eval,
                                port: sys::$variant::port,
                                set: sys::$variant::set,
                                get: sys::$variant::get,
                                traceable: sys::$variant::traceable,
                                trace_open: sys::$variant::trace_open,
                                trace_dump: sys::$variant::trace_dump,
                                trace_close: sys::$variant::trace_close,
                            };
                            &VT
                        }
                    )*
                }
            }

            /// Was the variant verilated with `--trace-fst` (can it write a waveform)?
            pub fn traceable(self) -> bool {
                // SAFETY: `traceable` takes no arguments and only returns a constant.
                unsafe { (self.vtable().traceable)() != 0 }
            }

            /// The variant's name as built by `build.rs`.
            pub fn name(self) -> &'static str {
                match self {
                    $(Top::$variant => $pfx,)*
                }
            }
        }
    };
}

models! {
    AesCipherPipe128 => "aes_cipher_pipe_128",
    AesCipherPipe256 => "aes_cipher_pipe_256",
    AesCipherPipeFault => "aes_cipher_pipe_fault",
    AesCipherPipe128Tower => "aes_cipher_pipe_128_tower",
    AesCipherPipe256TowerL1 => "aes_cipher_pipe_256_tower_l1",
    AesCipherIter128 => "aes_cipher_iter_128",
    AesCipherIter256L1 => "aes_cipher_iter_256_l1",
    CommonFifoRam4 => "common_fifo_ram_4",
    CommonFifoRam16 => "common_fifo_ram_16",
    CommonFifoSync4 => "common_fifo_sync_4",
    CommonFifoSync16 => "common_fifo_sync_16",
    CommonFifoSyncReg4 => "common_fifo_sync_reg_4",
    CommonFifoSyncReg16 => "common_fifo_sync_reg_16",
    CommonSkid => "common_skid",
    GhashMul1 => "ghash_mul_1",
    GhashMul2 => "ghash_mul_2",
    GhashMul3 => "ghash_mul_3",
    GhashCore1 => "ghash_core_1",
    GhashCore2 => "ghash_core_2",
    GhashCore3 => "ghash_core_3",
    GhashLanes1 => "ghash_lanes_1",
    GhashLanes2 => "ghash_lanes_2",
    GhashLanes4 => "ghash_lanes_4",
    GhashLanes4Fault => "ghash_lanes_4_fault",
    GhashLanes4Pow => "ghash_lanes_4_pow",
    RoceIcrc1 => "roce_icrc_1",
    RoceIcrc4 => "roce_icrc_4",
    RoceParse1 => "roce_parse_1",
    RoceParse4 => "roce_parse_4",
    KdfCmac128 => "kdf_cmac_128",
    KdfCmac256 => "kdf_cmac_256",
    RocesecKeyCache => "rocesec_key_cache",
    RocesecKeyTablesTx => "rocesec_key_tables_tx",
    RocesecKeyTablesRx => "rocesec_key_tables_rx",
    RocesecVerifyKey => "rocesec_verify_key",
    RocesecCtr1 => "rocesec_ctr_1",
    RocesecCtr4 => "rocesec_ctr_4",
    RocesecGhashFeedWide2 => "rocesec_ghash_feed_wide_2",
    RocesecGhashFeedWide4 => "rocesec_ghash_feed_wide_4",
    RocesecProtect1 => "rocesec_protect_1",
    RocesecProtect1Fault => "rocesec_protect_1_fault",
    RocesecProtect4 => "rocesec_protect_4",
    RocesecProtect1Trace => "rocesec_protect_1_trace",
    RocesecVerify1 => "rocesec_verify_1",
    RocesecVerify1Fault => "rocesec_verify_1_fault",
    RocesecVerify4 => "rocesec_verify_4",
    RocesecVerify1Trace => "rocesec_verify_1_trace",
    RocesecProtect4Trace => "rocesec_protect_4_trace",
    RocesecVerify4Trace => "rocesec_verify_4_trace",
}

impl Top {
    /// The trace-capable build (`--trace-fst`) of the same RTL, parameters and defines, for
    /// re-running a mismatch with a waveform: the variant itself when it is trace-capable.
    /// `None` when there is none.
    pub fn traced(self) -> Option<Top> {
        if self.traceable() {
            return Some(self);
        }
        match self {
            Top::RocesecProtect1 => Some(Top::RocesecProtect1Trace),
            Top::RocesecVerify1 => Some(Top::RocesecVerify1Trace),
            Top::RocesecProtect4 => Some(Top::RocesecProtect4Trace),
            Top::RocesecVerify4 => Some(Top::RocesecVerify4Trace),
            _ => None,
        }
    }
}

/// A port of a [`Model`]: index into the shim's port table and size in 32-bit words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Port {
    idx: i32,
    words: usize,
}

impl Port {
    /// Size of the port in 32-bit words.
    pub fn words(self) -> usize {
        self.words
    }
}

/// One live Verilator model instance (with its own `VerilatedContext`).
pub struct Model {
    top: Top,
    vt: &'static VTable,
    ptr: NonNull<c_void>,
}

impl Model {
    /// Construct a model instance.
    ///
    /// # Panics
    /// If the C++ constructor returns null (allocation failure).
    pub fn new(top: Top) -> Self {
        let vt = top.vtable();
        // SAFETY: `new` is the shim constructor of this variant; it takes no arguments and
        // returns a heap object owned by the caller (freed in Drop through the same variant's
        // `delete`).
        let raw = unsafe { (vt.new)() };
        let ptr = NonNull::new(raw).expect("Verilator model allocation failed");
        Self { top, vt, ptr }
    }

    /// The variant this instance was built from.
    pub fn top(&self) -> Top {
        self.top
    }

    /// Look a port up by its SystemVerilog name.
    pub fn port(&self, name: &str) -> Option<Port> {
        let cname = CString::new(name).ok()?;
        let mut words = 0u32;
        // SAFETY: `cname` is a valid NUL-terminated string alive for the call and `words` is a
        // valid out-pointer; the function only reads the string and writes one u32.
        let idx = unsafe { (self.vt.port)(cname.as_ptr(), &mut words) };
        (idx >= 0).then_some(Port {
            idx,
            words: words as usize,
        })
    }

    /// Evaluate the model (`eval()`).
    pub fn eval(&mut self) {
        // SAFETY: `ptr` is a live instance of this variant (constructed in `new`, freed only in
        // Drop) and `&mut self` guarantees exclusive access.
        unsafe { (self.vt.eval)(self.ptr.as_ptr()) }
    }

    /// Open an FST waveform at `path` (nothing is recorded until [`trace_dump`](Self::trace_dump)).
    /// Returns false if the variant is not trace-capable or the file cannot be created.
    pub fn trace_open(&mut self, path: &std::path::Path) -> bool {
        let Some(cpath) = path.to_str().and_then(|p| CString::new(p).ok()) else {
            return false;
        };
        // SAFETY: `ptr` is live and exclusively borrowed; `cpath` is a valid NUL-terminated
        // string alive for the call (the writer copies the name).
        unsafe { (self.vt.trace_open)(self.ptr.as_ptr(), cpath.as_ptr()) != 0 }
    }

    /// Record every traced signal at time `t` (ns; must not decrease). No-op when no waveform
    /// is open.
    pub fn trace_dump(&mut self, t: u64) {
        // SAFETY: `ptr` is live and exclusively borrowed; the shim checks that a writer is open.
        unsafe { (self.vt.trace_dump)(self.ptr.as_ptr(), t) }
    }

    /// Flush and close the waveform, if one is open (also done on drop).
    pub fn trace_close(&mut self) {
        // SAFETY: `ptr` is live and exclusively borrowed; closing twice is a no-op in the shim.
        unsafe { (self.vt.trace_close)(self.ptr.as_ptr()) }
    }

    /// Drive an input port. `w` must hold exactly `port.words()` words.
    ///
    /// # Panics
    /// If `w.len() != port.words()`.
    pub fn set(&mut self, port: Port, w: &[u32]) {
        assert_eq!(w.len(), port.words, "port word count");
        // SAFETY: `ptr` is live and exclusively borrowed; `port` came from this variant's port
        // table, and the shim reads exactly `port.words` u32s from `w`, which has that length.
        unsafe { (self.vt.set)(self.ptr.as_ptr(), port.idx, w.as_ptr()) }
    }

    /// Read a port into `w`, which must hold exactly `port.words()` words.
    ///
    /// # Panics
    /// If `w.len() != port.words()`.
    pub fn get(&self, port: Port, w: &mut [u32]) {
        assert_eq!(w.len(), port.words, "port word count");
        // SAFETY: `ptr` is live; the shim only reads model state and writes exactly
        // `port.words` u32s into `w`, which has that length. Reading does not mutate the model.
        unsafe { (self.vt.get)(self.ptr.as_ptr(), port.idx, w.as_mut_ptr()) }
    }
}

impl Drop for Model {
    fn drop(&mut self) {
        // SAFETY: `ptr` was returned by this variant's `new`, is dropped exactly once here, and
        // no reference to it outlives `self`.
        unsafe { (self.vt.delete)(self.ptr.as_ptr()) }
    }
}

// SAFETY-relevant note: `Model` is deliberately neither Send nor Sync (it holds a raw pointer);
// each test thread builds its own instances.
