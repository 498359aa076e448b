//! Driver for `rtl/roce/roce_parse.sv` (stage `parse`), plus the AXI4-Stream beat helpers the
//! top-level drivers share.
//!
//! The descriptor port `desc_o` is the packed struct `roce_parse_pkg::roce_desc_t`;
//! [`DESC_FIELDS`] mirrors its field order (first = most significant) and widths.

use super::{Port, Sim, Top};

/// Clock edges from the edge accepting tlast to `desc_valid_o` (mirrors
/// `rocesec_pkg::ParseLatency`).
pub const PARSE_LATENCY: u64 = 2;

/// One AXI4-Stream beat: `data[i]` is tdata byte i (bits [8i+7:8i]), `keep` bit i its tkeep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Beat {
    /// Beat bytes (16·LANES), invalid bytes zero.
    pub data: Vec<u8>,
    /// tkeep.
    pub keep: u64,
    /// tlast.
    pub last: bool,
}

/// Split a frame into beats of `beat_bytes` bytes (tkeep contiguous from byte 0).
///
/// # Panics
/// If `frame` is empty or `beat_bytes` is not in 1..=64.
pub fn beats(frame: &[u8], beat_bytes: usize) -> Vec<Beat> {
    assert!(!frame.is_empty() && (1..=64).contains(&beat_bytes));
    let n = frame.len().div_ceil(beat_bytes);
    frame
        .chunks(beat_bytes)
        .enumerate()
        .map(|(i, c)| {
            let mut data = c.to_vec();
            data.resize(beat_bytes, 0);
            let keep = if c.len() == 64 {
                u64::MAX
            } else {
                (1u64 << c.len()) - 1
            };
            Beat {
                data,
                keep,
                last: i + 1 == n,
            }
        })
        .collect()
}

/// Drive a little-endian byte vector (byte 0 in bits 7:0) onto a port.
pub fn set_le(sim: &mut Sim, p: Port, bytes: &[u8]) {
    let mut be: Vec<u8> = bytes.to_vec();
    be.reverse();
    sim.set_bytes(p, &be);
}

/// Read a port as a little-endian byte vector of `n` bytes (byte 0 = bits 7:0).
pub fn get_le(sim: &mut Sim, p: Port, n: usize) -> Vec<u8> {
    let mut be = vec![0u8; n];
    sim.get_bytes(p, &mut be);
    be.reverse();
    be
}

/// Read bits `[lsb + width - 1 : lsb]` of a vector given as little-endian bytes.
pub fn bits(le: &[u8], lsb: usize, width: usize) -> u128 {
    let mut v = 0u128;
    for k in (0..width).rev() {
        let b = lsb + k;
        v = (v << 1) | u128::from((le[b / 8] >> (b % 8)) & 1);
    }
    v
}

/// Write `v` into bits `[lsb + width - 1 : lsb]` of a vector given as little-endian bytes.
///
/// # Panics
/// If `v` does not fit `width` bits (`name` says which field).
fn put_bits(le: &mut [u8], lsb: usize, width: usize, v: u128, name: &str) {
    assert!(
        width >= 128 || v >> width == 0,
        "{name} = {v:#x} does not fit {width} bits"
    );
    for k in 0..width {
        let b = lsb + k;
        if (v >> k) & 1 == 1 {
            le[b / 8] |= 1 << (b % 8);
        } else {
            le[b / 8] &= !(1 << (b % 8));
        }
    }
}

macro_rules! desc {
    ($($name:ident : $w:expr),* $(,)?) => {
        /// The decoded `roce_desc_t` (see `rtl/0_pkg/roce_parse_pkg.sv` for meanings and codes).
        #[derive(Clone, Debug, Default, PartialEq, Eq)]
        #[allow(missing_docs)]
        pub struct Desc {
            $(pub $name: u128,)*
        }

        /// (name, width) of the `roce_desc_t` fields, most significant first.
        pub const DESC_FIELDS: &[(&str, usize)] = &[$((stringify!($name), $w),)*];

        impl Desc {
            /// Decode from the port value (little-endian bytes).
            pub fn decode(le: &[u8]) -> Self {
                let total: usize = DESC_FIELDS.iter().map(|f| f.1).sum();
                let mut top = total;
                let mut d = Desc::default();
                $(
                    top -= $w;
                    d.$name = bits(le, top, $w);
                )*
                let _ = top;
                d
            }

            /// Encode into a port value (little-endian bytes, `desc_width()` bits rounded up to
            /// whole bytes): the inverse of [`decode`](Self::decode), for driving a descriptor
            /// input (`rocesec_verify_key` `hdr_desc_i`).
            ///
            /// # Panics
            /// If a field's value does not fit its width (a harness bug).
            pub fn encode(&self) -> Vec<u8> {
                let total = desc_width();
                let mut le = vec![0u8; total.div_ceil(8)];
                let mut top = total;
                $(
                    top -= $w;
                    put_bits(&mut le, top, $w, self.$name, stringify!($name));
                )*
                let _ = top;
                le
            }
        }
    };
}

desc! {
    kind: 2, not_roce: 2, err: 4, icrc_ok: 1, icrc: 32,
    ipv6: 1, vlans: 2, ip_off: 8, ip_hdr_len: 8, udp_off: 8, bth_off: 8, ip_end: 16,
    eth_off: 8, payload_off: 8, payload_end: 16, frame_len: 16,
    opcode: 8, se: 1, migreq: 1, pad: 2, tver: 4, pkey: 16, byte4: 8, dest_qp: 24, ack_req: 1,
    resv7: 7, psn: 24, service: 3, eth: 9,
    sec_valid: 1, sec_mode: 2, sec_level: 6, sec_epoch: 8, sec_pn: 48,
    has_reth: 1, has_atomic: 1, va: 64, rkey: 32, dma_len: 32,
    has_deth: 1, src_qp: 24, dest_gid: 128,
    ip_len: 16, udp_len: 16, ip_sum: 16,
}

/// `desc.kind` codes.
pub mod kind {
    /// `Frame::NotRoce`.
    pub const NOT_ROCE: u128 = 0;
    /// `Frame::Roce`.
    pub const ROCE: u128 = 1;
    /// `ParseError`.
    pub const MALFORMED: u128 = 2;
}

/// Width of `roce_desc_t` in bits.
pub fn desc_width() -> usize {
    DESC_FIELDS.iter().map(|f| f.1).sum()
}

/// What one clock edge produced.
#[derive(Clone, Debug, Default)]
pub struct Out {
    /// `hdr_valid_o` pulse: header fields of the current frame.
    pub hdr: Option<Desc>,
    /// `desc_valid_o` pulse: the complete descriptor.
    pub desc: Option<Desc>,
}

/// A verilated `roce_parse` instance.
pub struct RoceParse {
    sim: Sim,
    beat_bytes: usize,
    tdata: Port,
    tkeep: Port,
    tlast: Port,
    tvalid: Port,
    tready: Port,
    hdr_valid: Port,
    desc_valid: Port,
    desc: Port,
}

impl RoceParse {
    /// Build and reset.
    pub fn new(top: Top) -> Self {
        let sim = Sim::new(top);
        let tdata = sim.pin("s_axis_tdata_i");
        let desc = sim.pin("desc_o");
        assert_eq!(
            desc.words(),
            desc_width().div_ceil(32),
            "roce_desc_t layout drifted"
        );
        let mut s = Self {
            beat_bytes: tdata.words() * 4,
            tdata,
            tkeep: sim.pin("s_axis_tkeep_i"),
            tlast: sim.pin("s_axis_tlast_i"),
            tvalid: sim.pin("s_axis_tvalid_i"),
            tready: sim.pin("s_axis_tready_o"),
            hdr_valid: sim.pin("hdr_valid_o"),
            desc_valid: sim.pin("desc_valid_o"),
            desc,
            sim,
        };
        s.sim.set_u64(s.tvalid, 0);
        s.sim.reset();
        s
    }

    /// Bytes per beat (16·LANES).
    pub fn beat_bytes(&self) -> usize {
        self.beat_bytes
    }

    /// One clock edge with `beat` on the bus (or an idle cycle).
    pub fn step(&mut self, beat: Option<&Beat>) -> Out {
        match beat {
            Some(b) => {
                set_le(&mut self.sim, self.tdata, &b.data);
                self.sim.set_u64(self.tkeep, b.keep);
                self.sim.set_u64(self.tlast, u64::from(b.last));
                self.sim.set_u64(self.tvalid, 1);
            }
            None => self.sim.set_u64(self.tvalid, 0),
        }
        self.sim.eval();
        assert_eq!(
            self.sim.get_u64(self.tready),
            1,
            "roce_parse is always ready"
        );
        self.sim.tick();
        let mut out = Out::default();
        let h = self.sim.get_u64(self.hdr_valid) != 0;
        let d = self.sim.get_u64(self.desc_valid) != 0;
        if h || d {
            let n = self.desc.words() * 4;
            let le = get_le(&mut self.sim, self.desc, n);
            let desc = Desc::decode(&le);
            if h {
                out.hdr = Some(desc.clone());
            }
            if d {
                out.desc = Some(desc);
            }
        }
        out
    }

    /// Clock edges so far.
    pub fn cycles(&self) -> u64 {
        self.sim.cycles()
    }
}
