//! Register map of the rocesec engine (docs/register-map.md): what a driver writes to program
//! the tables of the protect (TX) top and what it reads back as counters.
//!
//! The verify (RX) top has the same tables plus [`CTRL`] and the next-epoch policy bit
//! ([`rx_program`]).
//!
//! One source for everyone who talks to the registers: the co-simulation drivers
//! (`cosim/src/rtl/`), the host library's engine backend (`host-lib/src/engine.rs`) and the
//! test that checks these constants against `rtl/0_pkg/rocesec_pkg.sv`. The hardware side is
//! `rtl/top/rocesec_protect_key.sv` (decoders) behind `rtl/common/common_axil_regs.sv`
//! (AXI4-Lite: 16-bit byte addresses, 32-bit words, full-word writes only).
//!
//! Programming order matters because the engine is live while it is programmed: a table entry
//! is written with its valid bit clear, then its fields, then its first word with the valid bit
//! set ([`policy_writes`], [`pd_slot_writes`]), so a frame never sees half an entry.

use std::collections::BTreeSet;
use std::fmt;

use crate::keys::{gid_of, pd_key, Gid, KeyFile, QpPolicy};
use crate::sechdr::Mode;
use crate::verdict::Counters;

/// Default policy (policy-entry layout; its QPN and GID words are ignored).
pub const DEFAULT: u16 = 0x0000;
/// First policy entry; entry `i` at `POLICY + POLICY_STRIDE * i`.
pub const POLICY: u16 = 0x0100;
/// Bytes per policy entry (8 words).
pub const POLICY_STRIDE: u16 = 0x20;
/// Policy entries in the TX top.
pub const NUM_POLICIES: usize = 8;
/// First PD key slot; slot `j` at `PD + PD_STRIDE * j`.
pub const PD: u16 = 0x0400;
/// Bytes per PD key slot (8 words).
pub const PD_STRIDE: u16 = 0x20;
/// PD key slots (one per (PD, epoch) in use).
pub const NUM_PD: usize = 4;
/// First counter word; counter `c` at `COUNT + 4 * c` (32 bits, wrapping, read-only).
pub const COUNT: u16 = 0x0800;
/// Counter words: 0 frames, 1 processed, 2 bypass, 3 CNP, 4 not RoCE, 8 + r rejected with
/// `Reason::code()` r.
pub const NUM_COUNTERS: usize = 24;

/// Verify (RX) top only: control register, bit 0 = store-and-forward ([`CTRL_STORE_FORWARD`];
/// 0 = cut-through). Readable.
pub const CTRL: u16 = 0x0C00;
/// [`CTRL`] bit: store-and-forward (a rejected frame never leaves the verify top).
pub const CTRL_STORE_FORWARD: u32 = 1;
/// Policy word 0 bit, RX only: epoch + 1 is installed (`QpPolicy::next_epoch`).
pub const NEXT_EPOCH: u32 = 1 << 26;
/// RX counter: frames dropped by store-and-forward (every rejection in that mode).
pub const CNT_DROPPED: usize = 5;
/// RX counter: epoch promotions (first authenticated packet under epoch + 1).
pub const CNT_PROMOTIONS: usize = 6;
/// RX counter: frames dropped because they exceed the output frame FIFO (store-and-forward).
pub const CNT_OVERSIZE: usize = 7;
/// Verify (RX) top only: the QP release block (8 words, write-only; layout of a policy entry:
/// word 1 = QPN, words 4..7 = GID, word 0 bit 31 = release). See [`qp_release_writes`].
pub const RELEASE: u16 = 0x0C20;
/// [`RELEASE`] word 0 bit: release the RX state of the identity in words 1 and 4..7.
pub const RELEASE_GO: u32 = 1 << 31;

/// One 32-bit register write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegWrite {
    /// Byte address (word aligned).
    pub addr: u16,
    /// Data.
    pub data: u32,
}

/// Why a key set cannot be programmed into the engine's tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegMapError {
    /// The engine implements the AES-128 hierarchy only.
    NotAes128(u32),
    /// More QP policies than policy entries.
    TooManyPolicies {
        /// Policies asked for.
        wanted: usize,
        /// Entries in the engine.
        have: usize,
    },
    /// More distinct (PD, epoch) pairs than PD key slots.
    TooManyPdKeys {
        /// Pairs asked for.
        wanted: usize,
        /// Slots in the engine.
        have: usize,
    },
    /// The engine has no rkey allow-list (`mrs:` in the key file).
    RkeyAllowListUnsupported,
    /// A field does not fit its register (name, value).
    FieldTooWide(&'static str, u64),
    /// Deriving a PD key failed.
    Kdf(String),
}

impl fmt::Display for RegMapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegMapError::NotAes128(b) => {
                write!(
                    f,
                    "the engine implements AES-128 keys only (key file: aes {b})"
                )
            }
            RegMapError::TooManyPolicies { wanted, have } => {
                write!(
                    f,
                    "{wanted} QP policies do not fit the engine's {have} policy entries"
                )
            }
            RegMapError::TooManyPdKeys { wanted, have } => write!(
                f,
                "{wanted} (PD, epoch) keys do not fit the engine's {have} PD key slots"
            ),
            RegMapError::RkeyAllowListUnsupported => {
                write!(
                    f,
                    "the engine has no rkey allow-list (remove `mrs:` from the key file)"
                )
            }
            RegMapError::FieldTooWide(n, v) => write!(f, "{n} = {v:#x} does not fit its register"),
            RegMapError::Kdf(e) => write!(f, "PD key derivation failed: {e}"),
        }
    }
}

impl std::error::Error for RegMapError {}

/// Policy mode code of the register map: 0 bypass, 1 header-auth, 2 packet-auth, 3 AEAD
/// (the SecHdr Mode field, docs/wire-format.md §3).
pub fn mode_code(m: Mode) -> u32 {
    m.code().map_or(0, u32::from)
}

/// Word 0 of a policy entry or PD slot.
fn word0_policy(valid: bool, p: &QpPolicy) -> u32 {
    (u32::from(valid) << 31) | (mode_code(p.mode) << 24) | (u32::from(p.epoch) << 16)
}

fn gid_words(gid: &Gid) -> [u32; 4] {
    let mut w = [0u32; 4];
    for (i, c) in gid.chunks_exact(4).enumerate() {
        w[i] = u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
    }
    w
}

/// Words 4..7 of the 8-word block at `base` (a policy entry, the release block): the GID.
fn gid_writes(base: u16, gid: &Gid) -> impl Iterator<Item = RegWrite> {
    gid_words(gid)
        .into_iter()
        .enumerate()
        .map(move |(w, d)| RegWrite {
            addr: base + 16 + 4 * w as u16,
            data: d,
        })
}

/// The writes that install a policy at `base` (the default policy at [`DEFAULT`], entry `i` at
/// `POLICY + POLICY_STRIDE * i`) for destination `gid` / `qpn`: word 0 cleared, words 1..7,
/// then word 0 = {valid, mode[25:24], epoch[23:16]}. Word 1 = QPN[23:0], 2 = PD, 3 =
/// generation[23:0], 4..7 = GID bytes 0..15 as big-endian words.
///
/// # Errors
/// [`RegMapError::FieldTooWide`] for a QPN or generation above 24 bits.
pub fn policy_writes(
    base: u16,
    gid: &Gid,
    qpn: u32,
    p: &QpPolicy,
) -> Result<Vec<RegWrite>, RegMapError> {
    if qpn > 0xFF_FFFF {
        return Err(RegMapError::FieldTooWide("qpn", qpn.into()));
    }
    if p.gen > 0xFF_FFFF {
        return Err(RegMapError::FieldTooWide("gen", p.gen.into()));
    }
    let mut v = vec![RegWrite {
        addr: base,
        data: 0,
    }];
    v.push(RegWrite {
        addr: base + 4,
        data: qpn,
    });
    v.push(RegWrite {
        addr: base + 8,
        data: p.pd,
    });
    v.push(RegWrite {
        addr: base + 12,
        data: p.gen,
    });
    v.extend(gid_writes(base, gid));
    v.push(RegWrite {
        addr: base,
        data: word0_policy(true, p),
    });
    Ok(v)
}

/// The writes that release the RX QP state of (`gid`, `qpn`) on a verify top (QP destroy;
/// model: `Verifier::release_qp`): word 1 = QPN, words 4..7 = GID (big-endian words), then word
/// 0 = [`RELEASE_GO`]. The release takes effect between two of the key stage's decisions:
/// frames decided before it commit to the old state, which is then freed; later frames meet
/// the state of a new QP. Only after the QP's key can no longer be used (docs/threat-model.md):
/// the replay window is forgotten.
///
/// # Errors
/// [`RegMapError::FieldTooWide`] for a QPN above 24 bits.
pub fn qp_release_writes(gid: &Gid, qpn: u32) -> Result<Vec<RegWrite>, RegMapError> {
    if qpn > 0xFF_FFFF {
        return Err(RegMapError::FieldTooWide("qpn", qpn.into()));
    }
    let mut v = vec![RegWrite {
        addr: RELEASE + 4,
        data: qpn,
    }];
    v.extend(gid_writes(RELEASE, gid));
    v.push(RegWrite {
        addr: RELEASE,
        data: RELEASE_GO,
    });
    Ok(v)
}

/// The writes that install PD key slot `slot` (< [`NUM_PD`]): word 0 cleared, word 2 = PD,
/// words 4..7 = K_pd bytes 0..15 (big-endian words), then word 0 = {valid[31], epoch[7:0]}.
/// Every write to a PD slot flushes the engine's derived-key cache.
pub fn pd_slot_writes(slot: usize, pd: u32, epoch: u8, key: &[u8; 16]) -> Vec<RegWrite> {
    let base = PD + PD_STRIDE * slot as u16;
    let mut v = vec![RegWrite {
        addr: base,
        data: 0,
    }];
    v.push(RegWrite {
        addr: base + 8,
        data: pd,
    });
    for (w, c) in key.chunks_exact(4).enumerate() {
        v.push(RegWrite {
            addr: base + 16 + 4 * w as u16,
            data: u32::from_be_bytes([c[0], c[1], c[2], c[3]]),
        });
    }
    v.push(RegWrite {
        addr: base,
        data: (1 << 31) | u32::from(epoch),
    });
    v
}

/// The writes that remove PD key slot `slot` (frames under its (PD, epoch) then get
/// unknown-key): word 0 cleared and the key words zeroed.
pub fn pd_slot_clear(slot: usize) -> Vec<RegWrite> {
    let base = PD + PD_STRIDE * slot as u16;
    let mut v = vec![RegWrite {
        addr: base,
        data: 0,
    }];
    v.extend((0..4).map(|w| RegWrite {
        addr: base + 16 + 4 * w,
        data: 0,
    }));
    v
}

/// The full TX program for a key file: default policy, one entry per QP policy, and a PD key
/// slot for every distinct (PD, epoch) the policies use (K_pd by HKDF-SHA256 of the session
/// secret, `keys::pd_key`, as the control plane computes it: the engine never sees the secret).
/// Unused entries are not written (they reset invalid).
///
/// # Errors
/// [`RegMapError`] when the key file does not fit the engine: not AES-128, more QP policies
/// than [`NUM_POLICIES`], more (PD, epoch) pairs than [`NUM_PD`], an rkey allow-list, a field
/// too wide, or a key-file secret that cannot be read.
pub fn tx_program(k: &KeyFile) -> Result<Vec<RegWrite>, RegMapError> {
    program(k, false)
}

/// The full RX (verify top) program for a key file: as [`tx_program`], with word 0 of every
/// policy carrying [`NEXT_EPOCH`] where `next_epoch` is set and a PD key slot for
/// (PD, epoch + 1) of those policies too (the receiver accepts epoch + 1 before the sender
/// moves: make before break), then [`CTRL`] = `store_forward`.
///
/// # Errors
/// As [`tx_program`].
pub fn rx_program(k: &KeyFile, store_forward: bool) -> Result<Vec<RegWrite>, RegMapError> {
    let mut v = program(k, true)?;
    v.push(RegWrite {
        addr: CTRL,
        data: if store_forward { CTRL_STORE_FORWARD } else { 0 },
    });
    Ok(v)
}

fn program(k: &KeyFile, rx: bool) -> Result<Vec<RegWrite>, RegMapError> {
    // the last write of a policy is its word 0 (valid): RX adds the next-epoch bit there
    let with_next = |mut w: Vec<RegWrite>, p: &QpPolicy| {
        if rx && p.next_epoch {
            if let Some(last) = w.last_mut() {
                last.data |= NEXT_EPOCH;
            }
        }
        w
    };
    if k.aes != 128 {
        return Err(RegMapError::NotAes128(k.aes));
    }
    if k.qps.len() > NUM_POLICIES {
        return Err(RegMapError::TooManyPolicies {
            wanted: k.qps.len(),
            have: NUM_POLICIES,
        });
    }
    if k.mrs.is_some() {
        return Err(RegMapError::RkeyAllowListUnsupported);
    }
    let mut v = with_next(policy_writes(DEFAULT, &[0; 16], 0, &k.default)?, &k.default);
    for (i, q) in k.qps.iter().enumerate() {
        let base = POLICY + POLICY_STRIDE * i as u16;
        v.extend(with_next(
            policy_writes(base, &gid_of(q.gid), q.qpn, &q.policy)?,
            &q.policy,
        ));
    }
    let pds: BTreeSet<(u32, u8)> = std::iter::once(&k.default)
        .chain(k.qps.iter().map(|q| &q.policy))
        .flat_map(|p| {
            let next = (rx && p.next_epoch).then(|| (p.pd, p.epoch.wrapping_add(1)));
            std::iter::once((p.pd, p.epoch)).chain(next)
        })
        .collect();
    if pds.len() > NUM_PD {
        return Err(RegMapError::TooManyPdKeys {
            wanted: pds.len(),
            have: NUM_PD,
        });
    }
    let secret = k.secret().map_err(|e| RegMapError::Kdf(e.to_string()))?;
    for (j, (pd, epoch)) in pds.into_iter().enumerate() {
        let key = pd_key(&secret, pd, epoch, 16).map_err(|e| RegMapError::Kdf(e.to_string()))?;
        let mut kb = [0u8; 16];
        kb.copy_from_slice(key.bytes());
        v.extend(pd_slot_writes(j, pd, epoch, &kb));
    }
    Ok(v)
}

/// A 32-bit register bus (the AXI4-Lite port of an engine, a simulated device, or a driver's
/// MMIO mapping).
pub trait RegBus {
    /// Transport error.
    type Error;
    /// Write one word at byte address `addr`.
    ///
    /// # Errors
    /// The bus's own (e.g. an AXI SLVERR response).
    fn write32(&mut self, addr: u16, data: u32) -> Result<(), Self::Error>;
    /// Read one word at byte address `addr`.
    ///
    /// # Errors
    /// The bus's own.
    fn read32(&mut self, addr: u16) -> Result<u32, Self::Error>;
}

/// Perform `writes` in order.
///
/// # Errors
/// The first bus error; the writes after it are not performed.
pub fn apply<B: RegBus + ?Sized>(bus: &mut B, writes: &[RegWrite]) -> Result<(), B::Error> {
    for w in writes {
        bus.write32(w.addr, w.data)?;
    }
    Ok(())
}

/// Read the engine's counters into a [`Counters`]: words 0..4, the rejections 8 + r and, from
/// a verify top, `epoch_promotions` ([`CNT_PROMOTIONS`]; the protect top reads 0 there). The
/// verify top's drops are [`read_rx_drops`]. The hardware counters are 32 bits and wrap; a
/// driver that polls more often than every 2^32 frames extends them. (Until session 17 this
/// left `epoch_promotions` at 0 on every engine.)
///
/// # Errors
/// The first bus error.
pub fn read_counters<B: RegBus + ?Sized>(bus: &mut B) -> Result<Counters, B::Error> {
    let mut w = [0u64; NUM_COUNTERS];
    for (c, x) in w.iter_mut().enumerate() {
        *x = u64::from(bus.read32(COUNT + 4 * c as u16)?);
    }
    let mut c = Counters {
        frames: w[0],
        processed: w[1],
        bypass: w[2],
        cnp: w[3],
        not_roce: w[4],
        epoch_promotions: w[CNT_PROMOTIONS],
        ..Counters::default()
    };
    c.rejected.copy_from_slice(&w[8..24]);
    Ok(c)
}

/// Frames a verify (RX) top dropped rather than released, by cause.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RxDrops {
    /// Rejected frames dropped in store-and-forward mode ([`CNT_DROPPED`]; every rejection
    /// in that mode, also counted by reason in [`Counters::rejected`]).
    pub store_forward: u64,
    /// Frames dropped because they exceed the output frame FIFO ([`CNT_OVERSIZE`]).
    pub oversize: u64,
}

/// Read a verify top's drop counters (32 bits, wrapping; a protect top reads zeros).
///
/// # Errors
/// The first bus error.
pub fn read_rx_drops<B: RegBus + ?Sized>(bus: &mut B) -> Result<RxDrops, B::Error> {
    Ok(RxDrops {
        store_forward: u64::from(bus.read32(COUNT + 4 * CNT_DROPPED as u16)?),
        oversize: u64::from(bus.read32(COUNT + 4 * CNT_OVERSIZE as u16)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The constants above are the RTL's (rtl/0_pkg/rocesec_pkg.sv), read from the source.
    #[test]
    fn constants_match_rocesec_pkg() {
        let pkg = include_str!("../../rtl/0_pkg/rocesec_pkg.sv");
        let find = |name: &str| -> u16 {
            let line = pkg
                .lines()
                .find(|l| l.contains(&format!(" {name} ")) && l.contains("16'h"))
                .unwrap_or_else(|| panic!("{name} not in rocesec_pkg.sv"));
            let hex = line.split("16'h").nth(1).expect("16'h");
            u16::from_str_radix(&hex[..4], 16).expect("hex")
        };
        assert_eq!(find("RegDefaultBase"), DEFAULT);
        assert_eq!(find("RegPolicyBase"), POLICY);
        assert_eq!(find("RegPdBase"), PD);
        assert_eq!(find("RegCountBase"), COUNT);
        assert_eq!(find("RegCtrl"), CTRL);
        assert_eq!(find("RegRelease"), RELEASE);
    }

    #[test]
    fn a_release_names_its_qp_before_it_goes() {
        let gid: Gid = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 2];
        let w = qp_release_writes(&gid, 0x12_3456).expect("24-bit QPN");
        let at = |a: u16| w.iter().position(|x| x.addr == a).expect("written");
        assert_eq!(w[at(RELEASE + 4)].data, 0x12_3456);
        assert_eq!(w[at(RELEASE + 28)].data, 0x0a00_0002);
        assert_eq!(w[at(RELEASE + 24)].data, 0x0000_ffff);
        assert_eq!(
            w.last(),
            Some(&RegWrite {
                addr: RELEASE,
                data: RELEASE_GO
            })
        );
        assert_eq!(w.iter().filter(|x| x.addr == RELEASE).count(), 1);
        assert!(matches!(
            qp_release_writes(&gid, 1 << 24),
            Err(RegMapError::FieldTooWide("qpn", _))
        ));
    }

    fn with_qps(n: u32, distinct_pds: bool) -> KeyFile {
        let mut k = KeyFile::demo().expect("demo");
        k.qps = (0..n)
            .map(|i| crate::keys::QpEntry {
                gid: std::net::IpAddr::from([10, 0, 0, 2]),
                qpn: 0x100 + i,
                policy: QpPolicy {
                    mode: Mode::PacketAuth,
                    pd: if distinct_pds { 100 + i } else { 1 },
                    gen: i,
                    epoch: 0,
                    next_epoch: false,
                },
            })
            .collect();
        k
    }

    #[test]
    fn rx_program_installs_next_epoch_and_its_pd_slot() {
        let mut k = with_qps(2, false);
        k.qps[1].policy.next_epoch = true;
        let tx = tx_program(&k).expect("fits");
        let rx = rx_program(&k, true).expect("fits");
        // TX never sets the RX-only bit nor the control register
        assert!(tx.iter().all(|w| w.addr != CTRL));
        assert!(tx
            .iter()
            .filter(|w| w.addr < PD && w.addr & 0x1F == 0)
            .all(|w| w.data & NEXT_EPOCH == 0));
        let e1 = POLICY + POLICY_STRIDE;
        let w0 = rx.iter().rev().find(|w| w.addr == e1).expect("word 0");
        assert_ne!(w0.data & NEXT_EPOCH, 0);
        let w0 = rx.iter().rev().find(|w| w.addr == POLICY).expect("word 0");
        assert_eq!(w0.data & NEXT_EPOCH, 0);
        // PD slots for (1, 0) and (1, 1), valid last
        let valid: Vec<u32> = rx
            .iter()
            .filter(|w| w.addr & !0xFF == PD & !0xFF && w.addr & 0x1F == 0 && w.data != 0)
            .map(|w| w.data)
            .collect();
        assert_eq!(valid, vec![1 << 31, (1 << 31) | 1]);
        assert_eq!(
            rx.last(),
            Some(&RegWrite {
                addr: CTRL,
                data: CTRL_STORE_FORWARD
            })
        );
        assert_eq!(
            rx_program(&k, false).expect("fits").last(),
            Some(&RegWrite {
                addr: CTRL,
                data: 0
            })
        );
    }

    #[test]
    fn entries_are_made_valid_last() {
        let k = with_qps(3, false);
        let v = tx_program(&k).expect("fits");
        for base in std::iter::once(DEFAULT).chain((0..3).map(|i| POLICY + POLICY_STRIDE * i)) {
            let ws: Vec<_> = v.iter().filter(|w| w.addr & !0x1F == base).collect();
            assert_eq!(ws.len(), 9, "entry {base:#x}");
            assert_eq!(ws.first().map(|w| (w.addr, w.data)), Some((base, 0)));
            let last = ws.last().expect("writes");
            assert_eq!(last.addr, base);
            assert_ne!(last.data >> 31, 0);
        }
        // one (PD, epoch) pair in use: one slot, valid last
        let pd: Vec<_> = v.iter().filter(|w| w.addr & !0xFF == PD & !0xFF).collect();
        assert_eq!(pd.len(), 7);
        assert_eq!((pd[0].data, pd[6].data), (0, 1 << 31));
    }

    #[test]
    fn too_big_key_sets_are_refused_with_the_limit() {
        assert!(tx_program(&with_qps(8, false)).is_ok());
        assert_eq!(
            tx_program(&with_qps(9, false)),
            Err(RegMapError::TooManyPolicies { wanted: 9, have: 8 })
        );
        assert!(tx_program(&with_qps(3, true)).is_ok());
        assert_eq!(
            tx_program(&with_qps(4, true)),
            Err(RegMapError::TooManyPdKeys {
                wanted: 5,
                have: NUM_PD
            })
        );
        let mut k = with_qps(1, false);
        k.aes = 256;
        assert_eq!(tx_program(&k), Err(RegMapError::NotAes128(256)));
        let mut k = with_qps(1, false);
        k.qps[0].qpn = 0x100_0000;
        assert!(matches!(
            tx_program(&k),
            Err(RegMapError::FieldTooWide("qpn", _))
        ));
        let mut k = with_qps(1, false);
        k.mrs = Some(vec![]);
        assert_eq!(tx_program(&k), Err(RegMapError::RkeyAllowListUnsupported));
    }

    struct Mem(std::collections::BTreeMap<u16, u32>);
    impl RegBus for Mem {
        type Error = ();
        fn write32(&mut self, a: u16, d: u32) -> Result<(), ()> {
            self.0.insert(a, d);
            Ok(())
        }
        fn read32(&mut self, a: u16) -> Result<u32, ()> {
            Ok(self.0.get(&a).copied().unwrap_or(0))
        }
    }

    #[test]
    fn counters_decode_by_word() {
        let mut m = Mem(Default::default());
        m.write32(COUNT, 10).expect("w");
        m.write32(COUNT + 4, 7).expect("w");
        m.write32(COUNT + 4 * (8 + 7), 3).expect("w");
        m.write32(COUNT + 4 * CNT_PROMOTIONS as u16, 5).expect("w");
        let c = read_counters(&mut m).expect("r");
        assert_eq!((c.frames, c.processed), (10, 7));
        assert_eq!(c.epoch_promotions, 5, "RX counter 6");
        m.write32(COUNT + 4 * CNT_DROPPED as u16, 4).expect("w");
        m.write32(COUNT + 4 * CNT_OVERSIZE as u16, 2).expect("w");
        let d = read_rx_drops(&mut m).expect("r");
        assert_eq!((d.store_forward, d.oversize), (4, 2));
        assert_eq!(c.rejected_for(crate::verdict::Reason::Replay), 3);
        assert_eq!(c.total_rejected(), 3);
    }
}
