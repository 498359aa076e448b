//! The rocesec key hierarchy (see `docs/key-hierarchy.md`) and the key file.
//!
//! ```text
//! session secret ──HKDF-SHA256 (RFC 5869)──▶ K_pd(pd, epoch)            control plane (software)
//! K_pd ──KBKDF-CMAC (SP 800-108r1)──▶ K_qp(dest GID, dest QPN, salt)     data plane (hardware)
//! K_pd ──KBKDF-CMAC──▶ K_mr(owner GID, rkey)
//! K_mr ──KBKDF-CMAC──▶ K_node(level, index)   node = [index·2^(12+level), (index+1)·2^(12+level))
//! ```
//!
//! A node key authorizes exactly its address range and can be handed to a peer as a capability:
//! the holder can protect RDMA requests whose `[VA, VA+len)` lies in the node, nothing else.

use crate::gcm::InvalidKeyLength;
use crate::kdf::{derive_key, hkdf_sha256, KdfError};
use crate::sechdr::{Mode, LEVEL_MAX};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt;
use std::net::IpAddr;

/// HKDF salt for protection-domain keys.
pub const PD_SALT: &[u8] = b"rocesec v1 pd";
/// SP 800-108 label of per-QP keys.
pub const LABEL_QP: &[u8] = b"rocesec qp";
/// SP 800-108 label of memory-region keys.
pub const LABEL_MR: &[u8] = b"rocesec mr";
/// SP 800-108 label of sub-region (address-tree node) keys.
pub const LABEL_NODE: &[u8] = b"rocesec region";
/// Leaf size of the address tree: 4 KiB (level 0).
pub const LEAF_SHIFT: u32 = 12;

/// A 16-byte GID: an IPv6 address, or an IPv4 address in its IPv4-mapped form (::ffff:a.b.c.d),
/// as RoCEv2 GIDs are (Annex A17.4.5).
pub type Gid = [u8; 16];

/// An AES key of 16 or 32 bytes.
#[derive(Clone, PartialEq, Eq)]
pub struct Key(Vec<u8>);

impl Key {
    /// Wrap key bytes.
    ///
    /// # Errors
    /// [`InvalidKeyLength`] unless 16 or 32 bytes.
    pub fn new(b: &[u8]) -> Result<Self, InvalidKeyLength> {
        match b.len() {
            16 | 32 => Ok(Self(b.to_vec())),
            _ => Err(InvalidKeyLength),
        }
    }
    /// The key bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print key material by accident; the fingerprint is enough to compare.
        write!(
            f,
            "Key({} bits, {:02x}{:02x}..)",
            self.0.len() * 8,
            self.0[0],
            self.0[1]
        )
    }
}

/// Node of the address tree that contains `va` at `level`: its index.
pub fn node_index(va: u64, level: u8) -> u64 {
    let s = LEAF_SHIFT + level as u32;
    if s >= 64 {
        0
    } else {
        va >> s
    }
}

/// True when `[va, va+len)` lies inside one node of `level` (a zero length is a point at `va`).
pub fn range_in_node(va: u64, len: u32, level: u8) -> bool {
    if level > LEVEL_MAX {
        return false;
    }
    let Some(last) = va.checked_add((len as u64).saturating_sub(1)) else {
        return false;
    };
    node_index(va, level) == node_index(last, level)
}

/// Smallest level whose node holds `[va, va+len)`; `None` if the range wraps past 2^64.
pub fn smallest_level(va: u64, len: u32) -> Option<u8> {
    (0..=LEVEL_MAX).find(|&l| range_in_node(va, len, l))
}

/// Protection-domain key for (`pd`, `epoch`): HKDF-SHA256(salt = [`PD_SALT`], IKM = session
/// secret, info = pd (4 bytes BE) ‖ epoch (1 byte), L = `key_len`).
///
/// # Errors
/// [`KdfError`] when `key_len` is not 16 or 32.
pub fn pd_key(secret: &[u8], pd: u32, epoch: u8, key_len: usize) -> Result<Key, KdfError> {
    if key_len != 16 && key_len != 32 {
        return Err(KdfError);
    }
    let mut info = pd.to_be_bytes().to_vec();
    info.push(epoch);
    let mut out = vec![0u8; key_len];
    hkdf_sha256(PD_SALT, secret, &info, &mut out)?;
    Key::new(&out).map_err(|_| KdfError)
}

/// Per-QP key: KBKDF(K_pd, [`LABEL_QP`], dest GID (16) ‖ dest QPN (3) ‖ salt (3)).
/// `salt` is the connection generation (RC/UC) or the SrcQP of the DETH (UD).
///
/// # Errors
/// [`KdfError`] only if `pd` has an invalid length (never for a [`Key`]).
pub fn qp_key(pd: &Key, gid: &Gid, qpn: u32, salt: u32) -> Result<Key, KdfError> {
    let mut ctx = gid.to_vec();
    ctx.extend_from_slice(&qpn.to_be_bytes()[1..]);
    ctx.extend_from_slice(&salt.to_be_bytes()[1..]);
    derive(pd, LABEL_QP, &ctx)
}

/// Memory-region key: KBKDF(K_pd, [`LABEL_MR`], owner GID (16) ‖ rkey (4)).
///
/// # Errors
/// As [`qp_key`].
pub fn mr_key(pd: &Key, owner: &Gid, rkey: u32) -> Result<Key, KdfError> {
    let mut ctx = owner.to_vec();
    ctx.extend_from_slice(&rkey.to_be_bytes());
    derive(pd, LABEL_MR, &ctx)
}

/// Sub-region key of node (`level`, `index`): KBKDF(K_mr, [`LABEL_NODE`], level (1) ‖ index (8)).
///
/// # Errors
/// As [`qp_key`]; also [`KdfError`] for `level` > [`LEVEL_MAX`].
pub fn node_key(mr: &Key, level: u8, index: u64) -> Result<Key, KdfError> {
    if level > LEVEL_MAX {
        return Err(KdfError);
    }
    let mut ctx = vec![level];
    ctx.extend_from_slice(&index.to_be_bytes());
    derive(mr, LABEL_NODE, &ctx)
}

fn derive(parent: &Key, label: &[u8], ctx: &[u8]) -> Result<Key, KdfError> {
    let mut out = vec![0u8; parent.bytes().len()];
    derive_key(parent.bytes(), label, ctx, &mut out)?;
    Key::new(&out).map_err(|_| KdfError)
}

/// Convert an IP address to a GID.
pub fn gid_of(ip: IpAddr) -> Gid {
    match ip {
        IpAddr::V4(a) => a.to_ipv6_mapped().octets(),
        IpAddr::V6(a) => a.octets(),
    }
}

/// Per-QP policy from the key file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QpPolicy {
    /// Protection mode.
    #[serde(with = "mode_serde")]
    pub mode: Mode,
    /// Protection domain number.
    #[serde(default = "one")]
    pub pd: u32,
    /// Connection generation (IV salt and QP-key context of RC/UC QPs); bump when a QPN is
    /// reused for a new connection under the same PD key.
    #[serde(default)]
    pub gen: u32,
    /// Current key epoch (TX uses it; RX accepts it).
    #[serde(default)]
    pub epoch: u8,
    /// Whether epoch+1 is installed (RX accepts it and promotes on first use).
    #[serde(default)]
    pub next_epoch: bool,
}

fn one() -> u32 {
    1
}

mod mode_serde {
    use crate::sechdr::Mode;
    use serde::{Deserialize, Deserializer, Serializer};
    pub fn serialize<S: Serializer>(m: &Mode, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(m.name())
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Mode, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// One QP entry of the key file: the policy of packets sent to (`gid`, `qpn`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QpEntry {
    /// Destination IP address of the packets (the QP's host).
    pub gid: IpAddr,
    /// Destination QP number.
    pub qpn: u32,
    /// Its policy.
    #[serde(flatten)]
    pub policy: QpPolicy,
}

/// One memory region of the allow-list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MrEntry {
    /// Address of the host that owns the MR.
    pub gid: IpAddr,
    /// Its rkey.
    pub rkey: u32,
}

/// The key file (`--keys KEYS.yaml`). See `docs/keys.example.yaml`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyFile {
    /// Format version; must be 1.
    pub version: u32,
    /// AES key size in bits of every key in the hierarchy: 128 or 256.
    pub aes: u32,
    /// Session secret, hex (16..=64 bytes). In production the TLS 1.3 exporter (RFC 8446 §7.5).
    pub session_secret: String,
    /// Policy of QPs not listed in `qps`.
    pub default: QpPolicy,
    /// Per-QP policies.
    #[serde(default)]
    pub qps: Vec<QpEntry>,
    /// Memory-region allow-list; when absent, any rkey is accepted (its key is derived).
    #[serde(default)]
    pub mrs: Option<Vec<MrEntry>>,
}

/// A key file that cannot be used.
#[derive(Debug)]
pub enum KeyFileError {
    /// YAML syntax or schema error.
    Yaml(String),
    /// A value is out of range; the message says which.
    Invalid(String),
}

impl fmt::Display for KeyFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyFileError::Yaml(e) => write!(f, "key file: {e}"),
            KeyFileError::Invalid(e) => write!(f, "key file: {e}"),
        }
    }
}

impl std::error::Error for KeyFileError {}

/// The documented demo key set used when no `--keys` is given (identical to
/// `docs/keys.example.yaml`). Its secret is public: for tests and demos only.
pub const DEMO_KEYS_YAML: &str = include_str!("../../docs/keys.example.yaml");

impl KeyFile {
    /// Parse and validate YAML.
    ///
    /// # Errors
    /// [`KeyFileError`] on syntax errors, unknown fields, a bad secret or AES size.
    pub fn from_yaml(s: &str) -> Result<Self, KeyFileError> {
        let k: KeyFile =
            serde_norway::from_str(s).map_err(|e| KeyFileError::Yaml(e.to_string()))?;
        if k.version != 1 {
            return Err(KeyFileError::Invalid(format!(
                "version {} (expected 1)",
                k.version
            )));
        }
        if k.aes != 128 && k.aes != 256 {
            return Err(KeyFileError::Invalid(format!(
                "aes: {} (expected 128 or 256)",
                k.aes
            )));
        }
        let check24 = |what: &str, v: u32| {
            if v > 0xFF_FFFF {
                Err(KeyFileError::Invalid(format!(
                    "{what} {v:#x} does not fit 24 bits"
                )))
            } else {
                Ok(())
            }
        };
        check24("default gen", k.default.gen)?;
        let mut seen = std::collections::HashSet::new();
        for q in &k.qps {
            check24("qpn", q.qpn)?;
            check24("gen", q.policy.gen)?;
            if !seen.insert((gid_of(q.gid), q.qpn)) {
                return Err(KeyFileError::Invalid(format!(
                    "qps: {} qpn {:#x} listed twice",
                    q.gid, q.qpn
                )));
            }
        }
        let sec = k.secret()?;
        if !(16..=64).contains(&sec.len()) {
            return Err(KeyFileError::Invalid(
                "session_secret must be 16..64 bytes".into(),
            ));
        }
        Ok(k)
    }

    /// The demo key set.
    ///
    /// # Errors
    /// Never in practice (the demo file is tested); kept fallible for uniformity.
    pub fn demo() -> Result<Self, KeyFileError> {
        Self::from_yaml(DEMO_KEYS_YAML)
    }

    /// Decoded session secret.
    ///
    /// # Errors
    /// [`KeyFileError::Invalid`] when not hex.
    pub fn secret(&self) -> Result<Vec<u8>, KeyFileError> {
        hex::decode(self.session_secret.trim())
            .map_err(|e| KeyFileError::Invalid(format!("session_secret: {e}")))
    }

    /// Key length in bytes.
    pub fn key_len(&self) -> usize {
        self.aes as usize / 8
    }

    /// Set every QP's mode (the command line's `--mode`).
    pub fn force_mode(&mut self, mode: Mode) {
        self.default.mode = mode;
        for q in &mut self.qps {
            q.policy.mode = mode;
        }
    }
}

/// Derived keys, cached (the model of the RTL's derived-key cache), with a count of KDF runs.
#[derive(Clone, Debug)]
pub struct KeyStore {
    secret: Vec<u8>,
    key_len: usize,
    policies: HashMap<(Gid, u32), QpPolicy>,
    default: QpPolicy,
    mrs: Option<Vec<(Gid, u32)>>,
    pd: HashMap<(u32, u8), Key>,
    qp: HashMap<(u32, u8, Gid, u32, u32), Key>,
    mr: HashMap<(u32, u8, Gid, u32), Key>,
    node: HashMap<(u32, u8, Gid, u32, u8, u64), Key>,
    /// Number of SP 800-108 derivations run (cache misses), for the timing model.
    pub kdf_runs: u64,
}

/// Which key protects a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyRef {
    /// Per-QP key of (dest GID, dest QPN) with IV salt.
    Qp {
        /// Destination GID.
        gid: Gid,
        /// Destination QPN.
        qpn: u32,
        /// Connection generation or UD SrcQP.
        salt: u32,
    },
    /// Sub-region key of a node of MR (owner GID, rkey).
    Node {
        /// Owner GID.
        gid: Gid,
        /// rkey.
        rkey: u32,
        /// Tree level.
        level: u8,
        /// Node index.
        index: u64,
    },
}

impl KeyStore {
    /// Build from a validated key file.
    ///
    /// # Errors
    /// [`KeyFileError::Invalid`] for a bad secret.
    pub fn new(k: &KeyFile) -> Result<Self, KeyFileError> {
        Ok(Self {
            secret: k.secret()?,
            key_len: k.key_len(),
            policies: k
                .qps
                .iter()
                .map(|q| ((gid_of(q.gid), q.qpn), q.policy.clone()))
                .collect(),
            default: k.default.clone(),
            mrs: k
                .mrs
                .as_ref()
                .map(|v| v.iter().map(|m| (gid_of(m.gid), m.rkey)).collect()),
            pd: HashMap::new(),
            qp: HashMap::new(),
            mr: HashMap::new(),
            node: HashMap::new(),
            kdf_runs: 0,
        })
    }

    /// Policy of packets to (`gid`, `qpn`).
    pub fn policy(&self, gid: &Gid, qpn: u32) -> &QpPolicy {
        self.policies.get(&(*gid, qpn)).unwrap_or(&self.default)
    }

    /// The policy of entry `id` (`None`: the default policy), if it has one of its own.
    fn policy_mut(&mut self, id: Option<&(Gid, u32)>) -> Option<&mut QpPolicy> {
        match id {
            None => Some(&mut self.default),
            Some(id) => self.policies.get_mut(id),
        }
    }

    /// Set the epoch of the policy entry of `id` (`None`: the default policy). Returns false
    /// when `id` has no entry of its own.
    pub fn set_epoch(&mut self, id: Option<&(Gid, u32)>, epoch: u8) -> bool {
        let Some(p) = self.policy_mut(id) else {
            return false;
        };
        p.epoch = epoch;
        true
    }

    /// Set or clear the RX next_epoch bit of a policy (`None`: the default policy) on a live
    /// key store; returns false (and changes nothing) when `id` has no policy entry of its own.
    pub fn set_next_epoch(&mut self, id: Option<&(Gid, u32)>, on: bool) -> bool {
        let Some(p) = self.policy_mut(id) else {
            return false;
        };
        p.next_epoch = on;
        true
    }

    /// Whether the MR (`gid`, `rkey`) may be used (allow-list, if any).
    pub fn mr_allowed(&self, gid: &Gid, rkey: u32) -> bool {
        self.mrs.as_ref().is_none_or(|l| l.contains(&(*gid, rkey)))
    }

    fn pd_key(&mut self, pd: u32, epoch: u8) -> Result<Key, KdfError> {
        if let Some(k) = self.pd.get(&(pd, epoch)) {
            return Ok(k.clone());
        }
        let k = pd_key(&self.secret, pd, epoch, self.key_len)?;
        self.pd.insert((pd, epoch), k.clone());
        Ok(k)
    }

    /// The key `r` of protection domain `pd` at `epoch`, derived (and cached) on demand.
    ///
    /// # Errors
    /// [`KdfError`] for an out-of-range level (callers check ranges first).
    pub fn key(&mut self, pd: u32, epoch: u8, r: &KeyRef) -> Result<Key, KdfError> {
        match *r {
            KeyRef::Qp { gid, qpn, salt } => {
                let id = (pd, epoch, gid, qpn, salt);
                if let Some(k) = self.qp.get(&id) {
                    return Ok(k.clone());
                }
                let p = self.pd_key(pd, epoch)?;
                let k = qp_key(&p, &gid, qpn, salt)?;
                self.kdf_runs += 1;
                self.qp.insert(id, k.clone());
                Ok(k)
            }
            KeyRef::Node {
                gid,
                rkey,
                level,
                index,
            } => {
                let id = (pd, epoch, gid, rkey, level, index);
                if let Some(k) = self.node.get(&id) {
                    return Ok(k.clone());
                }
                let mid = (pd, epoch, gid, rkey);
                let m = match self.mr.get(&mid) {
                    Some(m) => m.clone(),
                    None => {
                        let p = self.pd_key(pd, epoch)?;
                        let m = mr_key(&p, &gid, rkey)?;
                        self.kdf_runs += 1;
                        self.mr.insert(mid, m.clone());
                        m
                    }
                };
                let k = node_key(&m, level, index)?;
                self.kdf_runs += 1;
                self.node.insert(id, k.clone());
                Ok(k)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_ranges() {
        assert!(range_in_node(0x1000, 0x1000, 0));
        assert!(!range_in_node(0x1000, 0x1001, 0));
        assert_eq!(smallest_level(0x1000, 0x1001), Some(2)); // 0x1000..=0x2000 crosses 8 KiB
        assert_eq!(smallest_level(0x2FFF, 2), Some(1)); // 0x2FFF..=0x3000 stays in 8 KiB node 1
        assert_eq!(smallest_level(0x1234, 0), Some(0));
        assert_eq!(smallest_level(u64::MAX, 2), None);
        assert_eq!(smallest_level(u64::MAX - 1, 2), Some(0));
        assert_eq!(smallest_level(0, u32::MAX), Some(20));
        assert_eq!(node_index(u64::MAX, LEVEL_MAX), 0);
    }

    #[test]
    fn demo_keys_parse_and_keys_differ_by_context() {
        let k = KeyFile::demo().expect("demo keys");
        let mut s = KeyStore::new(&k).expect("store");
        let g = gid_of("10.0.0.1".parse().expect("ip"));
        let a = s
            .key(
                1,
                0,
                &KeyRef::Qp {
                    gid: g,
                    qpn: 17,
                    salt: 0,
                },
            )
            .expect("k");
        let b = s
            .key(
                1,
                0,
                &KeyRef::Qp {
                    gid: g,
                    qpn: 18,
                    salt: 0,
                },
            )
            .expect("k");
        let c = s
            .key(
                1,
                1,
                &KeyRef::Qp {
                    gid: g,
                    qpn: 17,
                    salt: 0,
                },
            )
            .expect("k");
        let d = s
            .key(
                1,
                0,
                &KeyRef::Node {
                    gid: g,
                    rkey: 5,
                    level: 0,
                    index: 1,
                },
            )
            .expect("k");
        let e = s
            .key(
                1,
                0,
                &KeyRef::Node {
                    gid: g,
                    rkey: 5,
                    level: 0,
                    index: 2,
                },
            )
            .expect("k");
        assert_ne!(a, b);
        assert_ne!(a, c);
        assert_ne!(d, e);
        assert_eq!(s.kdf_runs, 6); // 3 QP keys, 1 MR key shared by 2 node keys
        let again = s
            .key(
                1,
                0,
                &KeyRef::Qp {
                    gid: g,
                    qpn: 17,
                    salt: 0,
                },
            )
            .expect("k");
        assert_eq!(a, again);
        assert_eq!(s.kdf_runs, 6);
    }

    #[test]
    fn bad_key_files_are_rejected_with_a_reason() {
        let good = DEMO_KEYS_YAML;
        assert!(KeyFile::from_yaml(&good.replace("aes: 128", "aes: 192")).is_err());
        assert!(KeyFile::from_yaml(&good.replace("version: 1", "version: 2")).is_err());
        assert!(KeyFile::from_yaml("version: 1\naes: 128\n").is_err());
        assert!(KeyFile::from_yaml(&format!("{good}\nbogus: 1\n")).is_err());
        // Bug reproduced first (newcomer report): values wider than their 24-bit wire fields
        // were silently truncated, and duplicate QP entries silently overrode each other.
        let q = |entries: &str| good.replace("qps: []", &format!("qps: [{entries}]"));
        let e = "{ gid: 10.0.0.1, qpn: 0x22, mode: aead }";
        assert!(KeyFile::from_yaml(&q(e)).is_ok());
        assert!(KeyFile::from_yaml(&q("{ gid: 10.0.0.1, qpn: 0x1000022, mode: aead }")).is_err());
        assert!(KeyFile::from_yaml(&q(
            "{ gid: 10.0.0.1, qpn: 0x22, mode: aead, gen: 0x1000000 }"
        ))
        .is_err());
        assert!(KeyFile::from_yaml(&q(&format!("{e}, {e}"))).is_err());
        assert!(KeyFile::from_yaml(&good.replace("gen: 0 ", "gen: 0x1000000 ")).is_err());
    }
}
