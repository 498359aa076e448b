// SPDX-License-Identifier: Apache-2.0
//
// rocesec_pkg: constants shared by the rocesec tops: verdict codes, tuser layout, register map
// and the fixed stage latencies.
//
// Data format
// -----------
// Verdict codes are model/src/verdict.rs `Reason::code()` (docs/wire-format.md §7); forward
// kinds are `Forward`. m_axis_tuser (on every beat, meaningful with tlast):
//   [3:0] reason code (0: forwarded), [5:4] forward kind (valid when reason = 0).
// SecHdr (docs/wire-format.md §3): Mode(2) Level(6) | Epoch(8) | PN(48), big-endian. IV
// (§5, SP 800-38D §8.2.1): DestQP(24) ‖ QpSalt(24) ‖ PN(48); J0 = IV ‖ 0x00000001
// (SP 800-38D §7.1 step 2).
// Register map (write port reg_*): see docs/rtl/tops.md.

`resetall
`default_nettype none

package rocesec_pkg;

  /* verilator lint_off UNUSEDPARAM */

  // Reason (verdict) codes
  localparam logic [3:0] ReasonOk          = 4'd0;
  localparam logic [3:0] ReasonAuthFail    = 4'd1;
  localparam logic [3:0] ReasonBadIcrc     = 4'd2;
  localparam logic [3:0] ReasonMalformed   = 4'd3;
  localparam logic [3:0] ReasonOutOfRange  = 4'd4;
  localparam logic [3:0] ReasonPnExhausted = 4'd5;
  localparam logic [3:0] ReasonPolicy      = 4'd6;
  localparam logic [3:0] ReasonReplay      = 4'd7;
  localparam logic [3:0] ReasonStaleEpoch  = 4'd8;
  localparam logic [3:0] ReasonUnknownKey  = 4'd9;

  // Forward kinds
  localparam logic [1:0] FwdProcessed = 2'd0;
  localparam logic [1:0] FwdBypass    = 2'd1;
  localparam logic [1:0] FwdCnp       = 2'd2;
  localparam logic [1:0] FwdNotRoce   = 2'd3;

  // Protection modes (SecHdr Mode field; 0 = bypass in the policy table)
  localparam logic [1:0] ModeBypass     = 2'd0;
  localparam logic [1:0] ModeHeaderAuth = 2'd1;
  localparam logic [1:0] ModePacketAuth = 2'd2;
  localparam logic [1:0] ModeAead       = 2'd3;

  localparam logic [5:0] LevelQp = 6'h3F;
  localparam int unsigned SecHdrBytes = 8;
  localparam int unsigned IcvBytes    = 16;
  localparam int unsigned Overhead    = SecHdrBytes + IcvBytes;

  // Register map (byte addresses, 32-bit words)
  localparam logic [15:0] RegDefaultBase = 16'h0000;  // default policy (as a policy entry)
  localparam logic [15:0] RegPolicyBase  = 16'h0100;  // policy entry i at + 0x20*i
  localparam logic [15:0] RegPdBase      = 16'h0400;  // PD key slot j at + 0x20*j
  localparam logic [15:0] RegCountBase   = 16'h0800;  // counters (read)
  localparam logic [15:0] RegCtrl        = 16'h0C00;  // verify: bit 0 store-and-forward
  localparam logic [15:0] RegRelease     = 16'h0C20;  // verify: QP release (8 words, as a policy)

  // Word w (register word 4 + w) of a 128-bit register field (GID, key) written with d: words
  // 4..7 hold bytes 0-3 .. 12-15, big-endian (model/src/regmap.rs gid_words)
  function automatic logic [127:0] put_word(logic [127:0] v, logic [1:0] w, logic [31:0] d);
    logic [127:0] r;
    r = v;
    unique case (w)
      2'd0:    r[127:96] = d;
      2'd1:    r[95:64]  = d;
      2'd2:    r[63:32]  = d;
      default: r[31:0]   = d;
    endcase
    put_word = r;
  endfunction

  // Stage latencies in clock cycles (mirrored by model/src/timing.rs Params::RTL)
  localparam int unsigned ParseLatency = 2;  // tlast edge -> desc_valid_o
  localparam int unsigned GhashLatency = 4;  // ghash_core, MulStages = 2
  localparam int unsigned IcrcLatency  = 2;  // roce_parse_icrc beat -> icrc_o

  // $bits(job_t) (Yosys cannot take $bits of a type; checked against it under Verilator)
  localparam int unsigned JobBits = 531;

  // Round-key slots of the data path's AES (rocesec_key_cache, aes_cipher_pipe_rk)
  // (more than the derivations that can follow a slot's last use: rocesec_key_cache, "Round keys")
  localparam int unsigned RkSlots = 128;
  localparam int unsigned RkW     = 7;   // $clog2(RkSlots)

  // Derived-key cache entry types (key_tag_t.typ)
  localparam logic [1:0] KtQp   = 2'd0;  // K_qp(pd, epoch, gid, qpn = a, salt = b)
  localparam logic [1:0] KtMr   = 2'd1;  // K_mr(pd, epoch, gid, rkey = a)
  localparam logic [1:0] KtNode = 2'd2;  // K_node(pd, epoch, gid, rkey = a, level = b, index)

  // $bits(key_tag_t)
  localparam int unsigned KeyTagBits = 290;

  /* verilator lint_on UNUSEDPARAM */

  // One packet's work order from the key stage to the emit stage.
  typedef struct packed {
    logic                   protect;   // insert SecHdr/ICV (else forward unchanged)
    logic [1:0]             mode;
    logic [127:0]           key;       // AES-128 packet key (round key 0)
    logic [RkW-1:0]         rk;        // round-key slot of key (round keys 1..10)
    logic [127:0]           h;         // E_key(0^128)
    logic [95:0]            iv;
    logic [63:0]            sechdr;    // protect: SecHdr bytes 0-7 (byte 0 in [63:56]) at hoff
    logic [15:0]            ip_len;    // rewritten IP length field (IPv4 total / IPv6 payload)
    logic [15:0]            udp_len;   // rewritten UDP length field
    logic [15:0]            ip_csum;   // rewritten IPv4 header checksum
    logic [7:0]             hoff;      // SecHdr offset: protect insertion point (plain eth_off),
                                       // verify its offset in the protected frame (bth_off + 12)
    logic [7:0]             poff;      // plain payload_off
    logic [15:0]            eoff;      // plain payload_end (start of the plain ICRC)
    logic                   ipv6;
    logic [7:0]             ip_off;
    logic [7:0]             udp_off;
    logic [7:0]             bth_off;
  } job_t;

  // Widest beat (LANES = 4): the lane helpers below work on MaxBeatBytes lanes; a caller with
  // B-byte beats uses bits [B-1:0] (the lanes past B are never set for offsets inside its beat).
  localparam int unsigned MaxBeatBytes = 64;

  // Byte lanes of a beat whose first byte is at frame offset `base` (a multiple of the beat
  // size): the offset x relative to the beat is computed once, then decoded per lane (no
  // comparator per lane against a moving offset). lane_at: lane base + i == x; lanes_ge: lanes
  // base + i >= x.
  function automatic logic [17:0] lane_rel(logic [16:0] x, logic [16:0] base);
    lane_rel = {1'b0, x} - {1'b0, base};
  endfunction

  function automatic logic [MaxBeatBytes-1:0] lane_at(logic [17:0] d);
    lane_at = '0;
    if (!d[17] && d < 18'(MaxBeatBytes)) lane_at[d[5:0]] = 1'b1;
  endfunction

  function automatic logic [MaxBeatBytes-1:0] lanes_ge(logic [17:0] d);
    for (int i = 0; i < MaxBeatBytes; i++) lanes_ge[i] = d[17] || d <= 18'(i);
  endfunction

  // lane_at(lane_rel(y, base)) on the beat's lanes, for a header offset y (< 512) and a beat
  // at base, a multiple of the beat size 2^lb bytes (lb constant at the call): y is in that
  // beat iff y and base agree above bit lb, in lane y mod 2^lb. An equality, no subtraction
  // (as roce_parse_icrc's lane_at): lanes at or above 2^lb are left zero.
  function automatic logic [MaxBeatBytes-1:0] lane_of(logic [8:0] y, logic [16:0] base,
                                                      int unsigned lb);
    logic [16:0] y17;
    y17    = {8'h0, y};
    lane_of = '0;
    if ((y17 >> lb) == (base >> lb)) lane_of[y[5:0] & 6'((1 << lb) - 1)] = 1'b1;
  endfunction

  // Frame offsets of the header fields that hdr_beat rewrites (each field's first byte; model
  // emit::insert / strip, docs/wire-format.md §1), computed from a job by hdr_fo once, when
  // the job is written, so that the emit's per-beat job-table read feeds lane equalities only
  // (until session 21 hdr_beat added each field's constant to the read: the protect emit's
  // critical path at e676e22). Header offsets are even (ip_off = 14 + 4 per VLAN tag, udp_off
  // = ip_off + 4 IHL or + 40, bth_off = udp_off + 8), so a 16-bit field's low byte is in the
  // lane after its high byte, in the same beat: only the high byte's offset is kept.
  typedef struct packed {
    logic       v4;    // IPv4: the header checksum is rewritten
    logic [8:0] len;   // IP length field: ip_off + 2 (IPv4 total length) / + 4 (IPv6 payload)
    logic [8:0] csum;  // IPv4 header checksum: ip_off + 10
    logic [8:0] ulen;  // UDP length: udp_off + 4
    logic [8:0] tver;  // BTH byte 1 (TVer in bits 3:0): bth_off + 1
  } hdr_fo_t;

  // $bits(hdr_fo_t) (as JobBits: checked against the struct under Verilator)
  /* verilator lint_off UNUSEDPARAM */
  localparam int unsigned HdrFoBits = 37;
  /* verilator lint_on UNUSEDPARAM */

  /* verilator lint_off UNUSEDSIGNAL */
  function automatic hdr_fo_t hdr_fo(job_t j);  // reads ipv6, ip_off, udp_off, bth_off
    logic [8:0] ip;
    hdr_fo_t    f;
    ip     = {1'b0, j.ip_off};
    f.v4   = !j.ipv6;
    f.len  = ip + (j.ipv6 ? 9'd4 : 9'd2);
    f.csum = ip + 9'd10;
    f.ulen = {1'b0, j.udp_off} + 9'd4;
    f.tver = {1'b0, j.bth_off} + 9'd1;
    hdr_fo = f;
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // The beat at frame offset base (bytes before hoff of a processed frame) with the length
  // fields, the IPv4 checksum and BTH TVer rewritten from the job (model emit::insert / strip;
  // docs/wire-format.md §1). Both emit stages apply it to their header beats (bits
  // [8B-1:0] for B-byte beats, the rest zero). Each field's lanes: its frame offset from fo
  // (hdr_fo of the job) decoded against the beat by lane_of, no adder (until session 19:
  // lane_rel, then the field's constant added to that difference, two carry chains in series:
  // the verify emit's critical path at cf2dd26; until session 21 one adder per field).
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [8*MaxBeatBytes-1:0] hdr_beat(job_t j, hdr_fo_t fo,
                                                         logic [16:0] base,
                                                         logic [8*MaxBeatBytes-1:0] beat,
                                                         logic [3:0] tver,   // j: by field
                                                         int unsigned lb);   // log2 beat bytes
    logic [MaxBeatBytes-1:0] m_lh, m_ll, m_ch, m_cl, m_uh, m_ul, m_tv;
    logic [8*MaxBeatBytes-1:0] r;
    m_lh  = lane_of(fo.len, base, lb);
    m_ll  = m_lh << 1;
    m_ch  = fo.v4 ? lane_of(fo.csum, base, lb) : '0;
    m_cl  = m_ch << 1;
    m_uh  = lane_of(fo.ulen, base, lb);
    m_ul  = m_uh << 1;
    m_tv  = lane_of(fo.tver, base, lb);
    r     = beat;
    for (int i = 0; i < MaxBeatBytes; i++) begin
      if (m_lh[i]) r[8*i +: 8] = j.ip_len[15:8];
      if (m_ll[i]) r[8*i +: 8] = j.ip_len[7:0];
      if (m_ch[i]) r[8*i +: 8] = j.ip_csum[15:8];
      if (m_cl[i]) r[8*i +: 8] = j.ip_csum[7:0];
      if (m_uh[i]) r[8*i +: 8] = j.udp_len[15:8];
      if (m_ul[i]) r[8*i +: 8] = j.udp_len[7:0];
      if (m_tv[i]) r[8*i +: 8] = {beat[8*i + 4 +: 4], tver};
    end
    hdr_beat = r;
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // IPv4 header checksum from the descriptor's ip_sum and the new total length (RFC 1071).
  function automatic logic [15:0] ipv4_csum(logic [15:0] ip_sum, logic [15:0] total_len);
    logic [16:0] s;
    s = {1'b0, ip_sum} + {1'b0, total_len};
    s = {1'b0, s[15:0]} + {16'h0, s[16]};
    ipv4_csum = ~s[15:0];
  endfunction

  // Address of the last byte a RETH / AtomicETH targets: va + max(len, 1) - 1, 65 bits (bit 64:
  // the range wraps past 2^64, out of range). len = the RETH DMA length, 8 for an AtomicETH
  // (has_reth low). Model: keys.rs range_in_node and smallest_level.
  function automatic logic [64:0] last_addr(logic has_reth, logic [31:0] dma_len,
                                            logic [63:0] va);
    logic [31:0] len;
    len       = has_reth ? dma_len : 32'd8;
    last_addr = {1'b0, va} + {33'h0, (len == 32'd0) ? 32'd0 : len - 32'd1};
  endfunction

  // Keystream of a job (AES-CTR, SP 800-38D §6.5): AES blocks over the payload [P, E) in AEAD
  // mode, else 0 (job_nks); the same in words of `lanes` blocks, rounded up (job_nw). Shared by
  // both emit stages and their CTR generators.
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [15:0] job_nks(job_t j);  // reads protect, mode, poff, eoff
    logic [15:0] pl;
    pl      = j.eoff - {8'h0, j.poff};
    job_nks = (j.protect && j.mode == ModeAead) ? ((pl + 16'd15) >> 4) : 16'd0;
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  function automatic logic [15:0] job_nw(job_t j, int unsigned lanes);
    job_nw = 16'((32'(job_nks(j)) + 32'(lanes) - 32'd1) / 32'(lanes));
  endfunction

  // Bytes of a beat marked by its tkeep (contiguous or not), for beats of up to MaxBeatBytes
  // bytes (callers with B-byte beats pass their keep zero-extended).
  function automatic logic [7:0] keep_bytes(logic [MaxBeatBytes-1:0] k);
    logic [7:0] n;
    n = '0;
    for (int i = 0; i < MaxBeatBytes; i++) n = n + 8'(k[i]);
    keep_bytes = n;
  endfunction

  // Identity of a derived key (model/src/keys.rs KeyRef with its PD and epoch).
  typedef struct packed {
    logic [1:0]   typ;
    logic [31:0]  pd;
    logic [7:0]   epoch;
    logic [127:0] gid;
    logic [31:0]  a;      // QP: qpn, MR/NODE: rkey
    logic [23:0]  b;      // QP: salt, NODE: level
    logic [63:0]  index;  // NODE
  } key_tag_t;

endpackage
