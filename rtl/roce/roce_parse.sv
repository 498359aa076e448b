// SPDX-License-Identifier: Apache-2.0
//
// roce_parse: stage `parse` — header window capture, RoCEv2 field extraction and ICRC check of
// one Ethernet frame per AXI4-Stream packet (model: model/src/stage/parse.rs, roce::parse in
// model/src/roce/frame.rs).
//
// Data format
// -----------
// s_axis_tdata_i byte i (bits [8i+7:8i]) is the i-th byte of the beat on the wire, tkeep bit i
// marks it valid (contiguous from byte 0; all ones except on the last beat). A packet is one
// Ethernet II frame without FCS: optional 802.1Q/802.1ad tags (≤ 2), IPv4 (RFC 791, options
// allowed) or IPv6 (RFC 8200, no extension headers: UDP or a further extension header behind
// one is malformed, err 9, docs/threat-model.md), UDP to port 4791 (IBTA Vol 1 Annex
// A17.2.2), BTH (§9.2), the rocesec SecHdr when BTH TVer = 1 (docs/wire-format.md §3), the
// extended transport headers of the opcode (§9.3), payload, pad and ICRC (Annex A17.8).
//
// The module is a tap: it is always ready and never stalls the stream. The first WinBytes bytes
// (ceil(HdrBytes / beat) beats: every header byte the descriptor needs, whatever the VLAN and
// IP option layout) are captured in a window register; fields are extracted from the window
// with a 3-way choice (IP header, by VLAN count) and a word shifter (UDP header, by a registered
// offset). The ICRC is computed on the fly by
// roce_parse_icrc with the layout known from the bytes seen so far.
//
// Outputs (roce_parse_pkg::roce_desc_t, see there for fields and codes):
// - hdr_valid_o: one pulse per frame, two cycles after the beat that completes the window (or
//   after tlast for a shorter frame). desc_o header fields are final; kind/err are
//   provisional: length checks assume the frame holds its whole IP packet (frame_len = 0xFFFF).
// - desc_valid_o: one pulse per frame, two cycles after tlast. desc_o is complete: kind, err,
//   frame_len and icrc_ok are final and equal the model's `roce::parse` and ICRC check.
// desc_o holds its value until the next pulse.

`resetall
`default_nettype none

module roce_parse
#(
  parameter int unsigned LANES = 1,  // 128-bit blocks per beat (datapath 128*LANES bits)
  // Header window: whole beats covering roce_parse_pkg::HdrBytes (derived, do not override)
  localparam int unsigned WinBytes = ((roce_parse_pkg::HdrBytes + 16 * LANES - 1) / (16 * LANES)) * 16 * LANES
) (
  input  wire logic                  clk_i,
  input  wire logic                  rst_ni,

  // AXI4-Stream input (tap: always ready)
  input  wire logic [128*LANES-1:0]  s_axis_tdata_i,
  input  wire logic [16*LANES-1:0]   s_axis_tkeep_i,
  input  wire logic                  s_axis_tlast_i,
  input  wire logic                  s_axis_tvalid_i,
  output logic                       s_axis_tready_o,

  // Descriptor
  output logic                       hdr_valid_o,
  output logic                       desc_valid_o,
  output roce_parse_pkg::roce_desc_t                 desc_o
);

  localparam int unsigned BeatBytes = 16 * LANES;
  localparam int unsigned BeatBits  = 8 * BeatBytes;
  localparam int unsigned WinBeats  = (roce_parse_pkg::HdrBytes + BeatBytes - 1) / BeatBytes;
  localparam int unsigned MaxBeat   = 65536 / BeatBytes - 1;  // beat index saturates here
  localparam int unsigned ViewBytes = 64;
  // Bytes of the view from the first extended header that e1 reads: RETH or AtomicETH at word
  // 0, 1 or 2 (behind an XRCETH and/or FETH: VA, rkey, DMA length end at byte 8 + 16), DETH
  // at word 0 or 1 (source QP in its bytes 5..7; word 1 only for the XRC opcodes, which carry
  // no DETH but whose descriptor still reads the field there). max_eth_words() checks both
  // bounds over all 256 opcodes at elaboration. Until session 26 the whole 64-byte view was
  // registered and the selects were 16-way.
  localparam int unsigned EthViewBytes = 24;

  if (LANES < 1 || LANES > 8) begin : gen_param_check
    $error("roce_parse: LANES must be 1..8 (instance %m)");
  end

  ///////////////
  // Functions //
  ///////////////

  function automatic logic [7:0] vb(logic [8*ViewBytes-1:0] v, int unsigned i);
    vb = v[8*i +: 8];
  endfunction

  function automatic logic [15:0] vbe16(logic [8*ViewBytes-1:0] v, int unsigned i);
    vbe16 = {v[8*i +: 8], v[8*(i+1) +: 8]};
  endfunction

  function automatic logic [23:0] vbe24(logic [8*ViewBytes-1:0] v, int unsigned i);
    vbe24 = {v[8*i +: 8], v[8*(i+1) +: 8], v[8*(i+2) +: 8]};
  endfunction

  function automatic logic [31:0] vbe32(logic [8*ViewBytes-1:0] v, int unsigned i);
    vbe32 = {vbe16(v, i), vbe16(v, i + 2)};
  endfunction

  // The extended-header view (EthViewBytes) from 4-byte word `word` (0..2) on, as a ViewBytes
  // view for vb/vbe24/vbe32.
  function automatic logic [8*ViewBytes-1:0] eth_words(logic [8*EthViewBytes-1:0] v,
                                                       logic [1:0] word);
    unique case (word)
      2'd1:    eth_words = (8*ViewBytes)'(v) >> 32;
      2'd2:    eth_words = (8*ViewBytes)'(v) >> 64;
      default: eth_words = (8*ViewBytes)'(v);
    endcase
  endfunction

  function automatic logic [15:0] wbe16(logic [8*WinBytes-1:0] w, int unsigned i);
    wbe16 = {w[8*i +: 8], w[8*(i+1) +: 8]};
  endfunction

  function automatic logic is_vlan(logic [15:0] t);
    is_vlan = (t == roce_parse_pkg::EtherTypeVlan) || (t == roce_parse_pkg::EtherTypeQinq);
  endfunction

  // IPv6 extension header types whose first byte is their Next Header (model
  // roce::frame::is_ipv6_ext: RFC 8200 §4, AH, Mobility, HIP, Shim6, experimental).
  function automatic logic is_v6_ext(logic [7:0] nh);
    case (nh)
      8'd0, 8'd43, 8'd44, 8'd51, 8'd60, 8'd135, 8'd139, 8'd140, 8'd253, 8'd254: is_v6_ext = 1'b1;
      default: is_v6_ext = 1'b0;
    endcase
  endfunction

  // ViewBytes bytes of the window from the IP header: ip_off is 14 + 4·vlans (l2_of), so a
  // 3-way choice instead of a byte shifter.
  function automatic logic [8*ViewBytes-1:0] l3_of(logic [8*WinBytes-1:0] w, logic [1:0] vlans);
    unique case (vlans)
      2'd1:    l3_of = (8*ViewBytes)'(w >> (8 * 18));
      2'd2:    l3_of = (8*ViewBytes)'(w >> (8 * 22));
      default: l3_of = (8*ViewBytes)'(w >> (8 * 14));
    endcase
  endfunction

  // ViewBytes bytes of the window from the UDP header. udp_off = ip_off + 4·IHL (or + 40 for
  // IPv6) with ip_off 14, 18 or 22 and the IHL nibble 0 .. 15 is 2 mod 4 and 14 .. 82 for
  // every frame, whatever its kind (a frame the IP checks reject still has its L4 fields read
  // at that offset, and the model's timing layer reads them there too:
  // timing_verify::raw_descriptor): view k = (udp_off - 14) / 4 (0 .. 17) at byte 14 + 4k.
  // It is taken in two steps, each an AND-OR by a one-hot register (udp_oh_of): 16 bytes times
  // k / 4 (5 choices), then 4 bytes times k mod 4 (4 choices), 9 select terms per bit where
  // one 18-way AND-OR had 18 (session 26). One-hot, not binary: each select bit drives only
  // its own view's AND gates, not every leaf of a 512-bit mux as the 6-bit udp_off[7:2] did
  // (the fan-out that was the stage's critical path, session 22).
  localparam int unsigned UdpHi = 5;  // k / 4
  localparam int unsigned UdpLo = 4;  // k mod 4
  localparam int unsigned MidBytes = ViewBytes + 12;  // the first step's view

  function automatic logic [8*ViewBytes-1:0] l4_of(logic [8*WinBytes-1:0] w,
                                                   logic [UdpHi+UdpLo-1:0] oh);
    logic [8*MidBytes-1:0] m;
    m = '0;
    for (int h = 0; h < UdpHi; h++) begin
      m |= {(8*MidBytes){oh[UdpLo + h]}} & (8*MidBytes)'(w >> (8 * (14 + 16 * h)));
    end
    l4_of = '0;
    for (int l = 0; l < UdpLo; l++) begin
      l4_of |= {(8*ViewBytes){oh[l]}} & (8*ViewBytes)'(m >> (8 * 4 * l));
    end
  endfunction

  // The one-hot selects of l4_of for udp_off (bits [7:2]: k + 3, k = 0 .. 17 for every
  // frame): {k / 4, k mod 4}. Any other value selects view 5, as the 6-bit case's default did
  // (never taken).
  function automatic logic [UdpHi+UdpLo-1:0] udp_oh_of(logic [5:0] udp_w);
    logic [4:0] k;  // 0 .. 17
    k = (udp_w < 6'd3 || udp_w > 6'd20) ? 5'd5 : udp_w[4:0] - 5'd3;
    for (int h = 0; h < UdpHi; h++) udp_oh_of[UdpLo + h] = (k[4:2] == 3'(h));
    for (int l = 0; l < UdpLo; l++) udp_oh_of[l] = (k[1:0] == 2'(l));
  endfunction

  // Offset of extended header `flag` among those in `eth` (model opcode::eth::offset).
  function automatic logic [5:0] eth_offset(logic [8:0] eth, int unsigned flag);
    logic [8:0] prior;
    prior = eth & ((9'h1 << flag) - 9'h1);
    eth_offset = roce_parse_pkg::eth_len(prior);
  endfunction

  // Byte offsets of the RETH (or else AtomicETH) and of the DETH among the extended headers
  // `eth`, {target, deth}: the e1 selects' offsets (x_eth_ro, x_eth_do) and max_eth_words.
  function automatic logic [11:0] eth_target_offsets(logic [8:0] eth);
    eth_target_offsets = {eth[roce_parse_pkg::EthReth] ? eth_offset(eth, roce_parse_pkg::EthReth) :
                                                         eth_offset(eth, roce_parse_pkg::EthAtomic),
                          eth_offset(eth, roce_parse_pkg::EthDeth)};
  endfunction

`ifndef SYNTHESIS
  // The largest word offsets of RETH/AtomicETH (ro, [7:4]) and of DETH (do, [3:0]) in the
  // extended-header view, over all 256 opcodes (x_eth_ro, x_eth_do below; elaboration only:
  // the lint and every co-simulation build (Verilator) evaluate it; Yosys 0.70 cannot evaluate
  // op_info in a constant function, so synthesis skips the check).
  function automatic logic [7:0] max_eth_words();
    logic [7:0] m;
    /* verilator lint_off UNUSEDSIGNAL */
    logic [5:0] ro;   // the low bits are 0, the high ones checked by the caller
    logic [5:0] dof;
    logic [11:0] off;
    roce_parse_pkg::op_info_t o;  // only .eth
    /* verilator lint_on UNUSEDSIGNAL */
    m = 8'h00;
    for (int c = 0; c < 256; c++) begin
      o   = roce_parse_pkg::op_info(8'(c));
      off = eth_target_offsets(o.eth);
      ro  = off[11:6];
      dof = off[5:0];
      if (ro[5:2] > m[7:4]) m[7:4] = ro[5:2];
      if (dof[5:2] > m[3:0]) m[3:0] = dof[5:2];
    end
    max_eth_words = m;
  endfunction

  localparam logic [7:0] MaxEthWords = max_eth_words();

  if (MaxEthWords[7:4] > 4'd2 || MaxEthWords[3:0] > 4'd1) begin : gen_eth_view_check
    $error("roce_parse: an opcode puts RETH/AtomicETH past word 2 or DETH past word 1 (instance %m)");
  end
`endif

  // L2 view shared by the ICRC layout and the extraction.
  typedef struct packed {
    logic [1:0]  vlans;
    logic [7:0]  ip_off;
    logic [15:0] ethertype;
  } l2_t;

  function automatic l2_t l2_of(logic [8*WinBytes-1:0] w);
    l2_t r;
    r.vlans     = 2'd0;
    r.ethertype = wbe16(w, 12);
    if (is_vlan(r.ethertype)) begin
      r.vlans     = 2'd1;
      r.ethertype = wbe16(w, 16);
      if (is_vlan(r.ethertype)) begin
        r.vlans     = 2'd2;
        r.ethertype = wbe16(w, 20);
      end
    end
    r.ip_off = 8'd14 + {4'h0, r.vlans, 2'b00};
    l2_of = r;
  endfunction

  /////////////////////////
  // Beat and window     //
  /////////////////////////

  logic                fire;
  logic [15:0]         beat_idx_q;
  logic [15:0]         len_q;        // bytes of the frame before this beat
  logic [15:0]         len_now;      // bytes including this beat
  logic [7:0]          beat_len;
  logic [8*WinBytes-1:0] win_q;
  logic [8*WinBytes-1:0] cur_win;    // window with the current beat merged in

  assign s_axis_tready_o = 1'b1;
  assign fire            = s_axis_tvalid_i;

  // Bytes of the beat: a balanced adder tree over the tkeep bits (a loop of additions would
  // be one chain of BeatBytes carry chains).
  function automatic logic [7:0] popcount(logic [16*LANES-1:0] k);
    logic [7:0] v [2*16*LANES];
    for (int i = 0; i < 16 * LANES; i++) v[16 * LANES + i] = {7'h0, k[i]};
    for (int i = 16 * LANES - 1; i >= 1; i--) v[i] = v[2*i] + v[2*i + 1];
    popcount = v[1];
  endfunction

  assign beat_len = popcount(s_axis_tkeep_i);

  always_comb begin
    logic [16:0] sum;
    sum     = {1'b0, len_q} + {9'h0, beat_len};
    len_now = sum[16] ? 16'hFFFF : sum[15:0];
  end

  // Which window beat the current beat is, one-hot (bit b: beat_idx_q == b; all zero past the
  // window): the window merge and write select by one register bit each, not by a 16-bit
  // comparison of beat_idx_q whose output fans out to every window bit (session 42: that
  // comparison headed the stage's deepest paths, through cur_win into the layout registers).
  logic [WinBeats-1:0] win_oh_q;

  always_comb begin
    cur_win = win_q;
    for (int b = 0; b < WinBeats; b++) begin
      if (win_oh_q[b]) cur_win[b*BeatBits +: BeatBits] = s_axis_tdata_i;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      beat_idx_q <= 16'd0;
      len_q      <= 16'd0;
      win_oh_q   <= WinBeats'(1);
    end else if (fire) begin
      if (s_axis_tlast_i) begin
        beat_idx_q <= 16'd0;
        len_q      <= 16'd0;
        win_oh_q   <= WinBeats'(1);
      end else begin
        if (beat_idx_q != 16'(MaxBeat)) beat_idx_q <= beat_idx_q + 16'd1;
        len_q    <= len_now;
        win_oh_q <= win_oh_q << 1;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    for (int b = 0; b < WinBeats; b++) begin
      if (fire && win_oh_q[b]) win_q[b*BeatBits +: BeatBits] <= s_axis_tdata_i;
    end
  end

  // UDP offset of the window after this beat (the extraction's l4 shifter reads it)
  // udp_off as the one-hot select of l4_of (eight copies of it, one per 8 bytes of the view,
  // kept apart in Yosys, gave no measurable gain: docs/rtl/fmax-log.md, session 22) ...
  logic [UdpHi+UdpLo-1:0] x_udph_q;
  always_ff @(posedge clk_i) begin
    if (fire) x_udph_q <= c_udph_d;
  end
  // ... and as a number: the extraction's udp_off (= ip_off + IP header length of win_q, which
  // changes only on fire, as this register), so the UDP, BTH, ETH and payload offsets are not
  // behind the IHL arithmetic (session 22)
  logic [7:0] x_udp_off_q;
  always_ff @(posedge clk_i) begin
    if (fire) x_udp_off_q <= c_udp_off_d;
  end
  // ... and the VLAN count (one-hot: 0, 1, 2 tags) and IPv4 IHL of the window after this beat,
  // so that the IPv4 header sum adds the words of one layout chosen by registers (session 26:
  // until then three sums, one per VLAN count, were added and one was picked afterwards)
  logic [2:0] x_vlan_oh_q;
  logic [3:0] x_ihl_q;
  // ... and the window's EtherType class (IPv4, IPv6, RoCEv1), so that the extraction's checks
  // start from registers, not from the tag comparisons on win_q (session 42; l2_of(win_q) is
  // what c_l2 was when win_q was written). The VLAN count and IP offset follow from
  // x_vlan_oh_q (x_vlans, x_ip_off).
  logic       x_v4_q, x_v6_q, x_ib_q;
  logic [1:0] x_vlans;
  logic [7:0] x_ip_off;
  always_ff @(posedge clk_i) begin
    if (fire) begin
      x_vlan_oh_q <= 3'b001 << c_l2.vlans;
      x_ihl_q     <= c_vihl[3:0];
      x_v4_q      <= c_l2.ethertype == roce_parse_pkg::EtherTypeIpv4;
      x_v6_q      <= c_ipv6;
      x_ib_q      <= c_l2.ethertype == roce_parse_pkg::EtherTypeIb;
    end
  end
  assign x_vlans  = {x_vlan_oh_q[2], x_vlan_oh_q[1]};
  assign x_ip_off = 8'd14 + {4'h0, x_vlans, 2'b00};

  //////////
  // ICRC //
  //////////

  // Layout from the bytes seen so far. Every byte it affects comes after the bytes it depends
  // on (or in the same beat), so it is exact where it matters (see roce_parse_icrc).
  //
  // The UDP, BTH and ICRC offsets depend on bytes up to DepByte (the Ethernet type and tags,
  // the IP version/IHL byte and the IP length field: ip_off + 5 <= 27) and mark only bytes from
  // UseByte on (UDP checksum: udp_off + 6 >= 14 + 20 + 6; BTH byte 4 and the ICRC later still).
  // When those are always in different beats (RegLayout: LANES <= 2), the three offsets are
  // computed after each beat from the window and registered, so beat k uses the bytes of beats
  // 0 .. k-1 (no path from tdata through the length arithmetic into the lane masks); until
  // the beat that completes byte DepByte they hold LayoutFar (marks nothing that early).
  // Otherwise (LANES = 4: one 64-byte beat can hold both) they are taken from the current beat.
  localparam int unsigned DepByte   = 27;
  localparam int unsigned UseByte   = 40;
  localparam int unsigned DepBeat   = DepByte / BeatBytes;
  localparam bit          RegLayout = (DepByte / BeatBytes) < (UseByte / BeatBytes);

  logic        c_ipv6;
  logic [7:0]  c_ip_off;
  logic [7:0]  c_udp_off;
  logic [7:0]  c_bth_off;
  logic [15:0] c_icrc_off;

  l2_t        c_l2;
  logic [7:0] c_vihl;
  logic [7:0]  c_udp_off_d;
  logic [7:0]  c_bth_off_d;
  logic [15:0] c_icrc_rel_d;  // icrc_off - ip_off (mod 2^16)

  logic [UdpHi+UdpLo-1:0] c_udph_d;  // udp_oh_of(c_udp_off_d[7:2])

  // One candidate layout per VLAN count v (IP header at the constant offset 14 + 4v), all
  // computed side by side from cur_win, then one chosen by the tag comparisons (l2_of). Until
  // session 42 the IP header view was chosen first and the arithmetic done on the choice, so
  // the tag comparisons headed every path into the layout registers.
  always_comb begin
    logic [8*ViewBytes-1:0] l3;
    logic [15:0]         et;
    logic [15:0]         len;
    logic                v6;
    logic                short;
    logic [7:0]          vihl;
    logic [7:0]          hl;
    logic [7:0]          udp;
    logic [3*8-1:0]      cv_vihl, cv_udp, cv_bth;
    logic [3*16-1:0]     cv_rel;
    logic [3*(UdpHi+UdpLo)-1:0] cv_oh;
    logic [2:0]          cv_ipv6;
    logic [1:0]          v_sel;
    c_l2   = l2_of(cur_win);
    for (int v = 0; v < 3; v++) begin
      l3    = (8*ViewBytes)'(cur_win >> (8 * (14 + 4 * v)));
      et    = wbe16(cur_win, 32'(12 + 4 * v));
      v6    = (et == roce_parse_pkg::EtherTypeIpv6);
      vihl  = vb(l3, 0);
      hl    = v6 ? 8'd40 : {2'b00, vihl[3:0], 2'b00};
      udp   = 8'(14 + 4 * v) + hl;
      // icrc_off = ip_end - 4, ip_end = ip_off + total length (IPv4) or + 40 + payload
      // length (IPv6). A parseable packet ends at least 44 bytes after ip_off; clamping to
      // ip_off + 40 keeps stale bytes of not-yet-received length fields from cutting the CRC
      // short. The clamp is a compare of the length field with a constant (ip_end < ip_off +
      // 44 is len < 44, or len < 4 for IPv6), so the offset relative to ip_off needs no
      // ip_off and one addition of ip_off follows.
      len   = v6 ? vbe16(l3, 4) : vbe16(l3, 2);
      short = v6 ? (len < 16'd4) : (len < 16'd44);
      cv_ipv6[v]          = v6;
      cv_vihl[8*v +: 8]   = vihl;
      cv_udp[8*v +: 8]    = udp;
      cv_bth[8*v +: 8]    = udp + 8'd8;
      cv_oh[(UdpHi+UdpLo)*v +: (UdpHi+UdpLo)] = udp_oh_of(udp[7:2]);
      cv_rel[16*v +: 16]  = short ? 16'd40 : (v6 ? len + 16'd36 : len - 16'd4);
    end
    unique case (c_l2.vlans)
      2'd1:    v_sel = 2'd1;
      2'd2:    v_sel = 2'd2;
      default: v_sel = 2'd0;
    endcase
    c_ipv6       = cv_ipv6[v_sel];
    c_ip_off     = c_l2.ip_off;
    c_vihl       = cv_vihl[8*v_sel +: 8];
    c_udp_off_d  = cv_udp[8*v_sel +: 8];
    c_bth_off_d  = cv_bth[8*v_sel +: 8];
    c_udph_d     = cv_oh[(UdpHi+UdpLo)*v_sel +: (UdpHi+UdpLo)];
    c_icrc_rel_d = cv_rel[16*v_sel +: 16];
  end

  if (RegLayout) begin : gen_lay_q
    localparam logic [7:0]  FarOff  = 8'hFF;     // udp/bth: +6, +7, +4 land past DepByte's beat
    localparam logic [15:0] FarIcrc = 16'hFFFF;
    logic [7:0]  lay_udp_q;
    logic [7:0]  lay_bth_q;
    logic [15:0] lay_icrc_q;
    logic        dep_beat;  // beat_idx_q has reached the beat that completes byte DepByte
    if (DepBeat == 0) begin : gen_dep_0
      assign dep_beat = 1'b1;
    end else begin : gen_dep_n
      // beat_idx_q >= DepBeat, as a register (the 16-bit comparison was the head of the
      // stage's critical path at 0d95497): beat_idx_q counts up from 0 by one per beat,
      // saturates at MaxBeat >= DepBeat and returns to 0 after a last beat.
      logic dep_q;
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) begin
          dep_q <= 1'b0;
        end else if (fire) begin
          dep_q <= !s_axis_tlast_i && (dep_q || beat_idx_q == 16'(DepBeat - 1));
        end
      end
      assign dep_beat = dep_q;
    end
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        lay_udp_q  <= FarOff;
        lay_bth_q  <= FarOff;
      end else if (fire) begin
        if (s_axis_tlast_i) begin
          lay_udp_q  <= FarOff;
          lay_bth_q  <= FarOff;
        end else if (dep_beat) begin
          lay_udp_q  <= c_udp_off_d;
          lay_bth_q  <= c_bth_off_d;
        end
      end
    end

    // The ICRC offset marks bytes from ip_off + 40 >= 54 on (the first stored ICRC byte of
    // the shortest parseable packet). When that is two beats past DepByte's beat (IcrcLate:
    // LANES = 1), it takes one more register stage: the length field and the clamp after
    // the beat, the addition of ip_off after the next one, so beat k uses bytes of beats
    // 0 .. k-2. Until then it is FarIcrc, which marks the same bytes (all of them are
    // before the clamped offset).
    localparam int unsigned IcrcUseByte = 14 + 40;
    localparam bit          IcrcLate    = (DepBeat + 2) <= (IcrcUseByte / BeatBytes);
    if (IcrcLate) begin : gen_icrc_2
      logic        lay_rel_vld_q;
      logic [7:0]  lay_ipo_q;
      logic [15:0] lay_rel_q;
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) begin
          lay_rel_vld_q <= 1'b0;
          lay_ipo_q     <= 8'h0;
          lay_rel_q     <= 16'h0;
          lay_icrc_q    <= FarIcrc;
        end else if (fire) begin
          if (s_axis_tlast_i) begin
            lay_rel_vld_q <= 1'b0;
            lay_icrc_q    <= FarIcrc;
          end else begin
            if (dep_beat) begin
              lay_rel_vld_q <= 1'b1;
              lay_ipo_q     <= c_ip_off;
              lay_rel_q     <= c_icrc_rel_d;
            end
            if (lay_rel_vld_q) lay_icrc_q <= {8'h0, lay_ipo_q} + lay_rel_q;
          end
        end
      end
    end else begin : gen_icrc_1
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) begin
          lay_icrc_q <= FarIcrc;
        end else if (fire) begin
          if (s_axis_tlast_i) lay_icrc_q <= FarIcrc;
          else if (dep_beat)  lay_icrc_q <= {8'h0, c_ip_off} + c_icrc_rel_d;
        end
      end
    end
    assign c_udp_off  = lay_udp_q;
    assign c_bth_off  = lay_bth_q;
    assign c_icrc_off = lay_icrc_q;
  end else begin : gen_lay_comb
    assign c_udp_off  = c_udp_off_d;
    assign c_bth_off  = c_bth_off_d;
    assign c_icrc_off = {8'h0, c_ip_off} + c_icrc_rel_d;
  end

  logic [31:0] icrc;
  logic [31:0] icrc_stored;
  logic [15:0] beat_base;

  assign beat_base = beat_idx_q * 16'(BeatBytes);  // < 2^16 by the saturation of beat_idx_q

  roce_parse_icrc #(
    .LANES (LANES)
  ) u_icrc (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .beat_valid_i (fire),
    .beat_data_i  (s_axis_tdata_i),
    .beat_keep_i  (s_axis_tkeep_i),
    .beat_base_i  (beat_base),
    .ipv6_i       (c_ipv6),
    .ip_off_i     (c_ip_off),
    .udp_off_i    (c_udp_off),
    .bth_off_i    (c_bth_off),
    .icrc_off_i   (c_icrc_off),
    .icrc_o       (icrc),
    .stored_o     (icrc_stored)
  );

  ////////////
  // Events //
  ////////////

  logic        ev_valid_q;   // extraction in this cycle (window in win_q)
  logic        ev_hdr_q;
  logic        ev_eof_q;
  logic [15:0] ev_len_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ev_valid_q <= 1'b0;
      ev_hdr_q   <= 1'b0;
      ev_eof_q   <= 1'b0;
      ev_len_q   <= 16'd0;
    end else begin
      ev_hdr_q   <= fire && ((beat_idx_q == 16'(WinBeats - 1)) ||
                             (s_axis_tlast_i && beat_idx_q < 16'(WinBeats)));
      ev_eof_q   <= fire && s_axis_tlast_i;
      ev_valid_q <= fire && ((beat_idx_q == 16'(WinBeats - 1)) || s_axis_tlast_i);
      // Before tlast the frame is assumed long enough: the early descriptor's kind is what
      // the final one will be unless the frame turns out shorter than its IP length.
      if (fire) ev_len_q <= s_axis_tlast_i ? len_now : 16'hFFFF;
    end
  end

  ////////////////
  // Extraction //
  ////////////////

  // Four partial sums of the selected IPv4 header words (words 8i .. 8i + 7, 30 in all), each a
  // balanced tree of three levels (< 8 · 2^16: 19 bits).
  function automatic logic [4*19-1:0] ip_part_sums(logic [29:0] sel, logic [30*16-1:0] w);
    logic [18:0] v [32];
    for (int i = 0; i < 32; i++) v[i] = (i < 30 && sel[i]) ? {3'h0, w[16*i +: 16]} : 19'h0;
    for (int g = 0; g < 4; g++) begin
      ip_part_sums[19*g +: 19] = ((v[8*g]     + v[8*g + 1]) + (v[8*g + 2] + v[8*g + 3])) +
                                 ((v[8*g + 4] + v[8*g + 5]) + (v[8*g + 6] + v[8*g + 7]));
    end
  endfunction

  // Per-opcode constants: eth_len + 20 (UDP and BTH) and eth_len + 28 (UDP, BTH and SecHdr),
  // 6 bits each (eth_len <= 32). op_info of a constant folds at elaboration, so the payload
  // offset is a table read by the opcode and one addition, not eth_len's chain of additions
  // behind the l4 view.
  logic [6*256-1:0] op_pay20, op_pay28;
  for (genvar o = 0; o < 256; o++) begin : gen_op_pay
    roce_parse_pkg::op_info_t oi;
    logic                     unused_oi;
    assign oi        = roce_parse_pkg::op_info(8'(o));
    assign unused_oi = ^{oi.valid, oi.service, oi.eth};
    assign op_pay20[6*o +: 6] = oi.eth_len + 6'd20;
    assign op_pay28[6*o +: 6] = oi.eth_len + 6'd28;
  end

  // IPv4 header words and which of them the header sum takes (not total length, checksum, nor
  // words past IHL): for each VLAN count v the IP header is at the constant offset 14 + 4v, so
  // each word is an AND-OR of three fixed window words by the registered VLAN count
  // (x_vlan_oh_q), and the IHL is registered too (x_ihl_q): one set of adders, no view shifter
  // and no IHL arithmetic in front of them. Partial sums here, finished in the e1 cycle
  // (ip_words_sum).
  logic [4*19-1:0] x_ipps_l;  // ip_part_sums of the window's layout
  always_comb begin
    logic [30*16-1:0] w;    // word j in bits [16j+15:16j]
    logic [29:0]      sel;
    for (int j = 0; j < 30; j++) begin
      w[16*j +: 16] = 16'h0;
      for (int v = 0; v < 3; v++) begin
        w[16*j +: 16] |= {16{x_vlan_oh_q[v]}} & wbe16(win_q, 32'(14 + 4*v + 2*j));
      end
      sel[j] = j != 1 && j != 5 && 5'(j) < {x_ihl_q, 1'b0};
    end
    x_ipps_l = ip_part_sums(sel, w);
  end

  roce_parse_pkg::roce_desc_t ext;
  logic [1:0] ext_unused_frag;  // IPv4 reserved and DF flags: not checked by the model

  roce_parse_pkg::op_info_t x_op;
  logic                     unused_x_op_len;  // the payload offset reads op_pay20/op_pay28
  assign unused_x_op_len = ^x_op.eth_len;
  logic [4*19-1:0]          x_ipps;  // partial sums of words 8i .. 8i + 7 (ip_part_sums)
  logic                     x_done;      // Ethernet / IP checks decided the kind
  logic                     x_port_ok;   // UDP destination port 4791
  logic                     x_op_valid;  // BTH opcode defined
  logic [8*EthViewBytes-1:0] x_eth_bytes; // the view from the first extended header on
  // offsets of RETH (or AtomicETH) and of DETH in x_eth_bytes, in 4-byte words: every
  // extended header is a whole number of words, so eth_offset's low bits are 0, and no opcode
  // has them past word 2 and word 1 (MaxEthWords), so the e1 selects are 3-way and 2-way
  logic [1:0]               x_eth_ro;
  logic                     x_eth_do;
  logic                     unused_eth_off;

  always_comb begin
    logic [8*ViewBytes-1:0] l3;
    logic [8*ViewBytes-1:0] l4;
    logic [16:0]            len;
    logic [16:0]            ip_off;
    logic [16:0]            hl;
    logic [16:0]            ip_end;
    logic [7:0]             udp_off;   // < 256: ip_off <= 22, hl <= 60
    logic [7:0]             bth_off;
    logic [7:0]             eth_off;   // < 256 as pay_off
    logic [7:0]             pay_off;   // < 256: eth_off <= 110, extended headers <= 44 bytes
    logic [15:0]            pay_end;   // checked in e1 (late_class) only where it is >= 0
    logic [16:0]            trailer;
    logic [16:0]            total;
    logic [3:0]             ihl;
    logic                   done;
    logic [7:0]             vihl;
    logic [7:0]             frag;
    logic [7:0]             bth1;
    logic [7:0]             bth8;
    logic [7:0]             sec0;
    logic [5:0]             ro;        // offset of RETH (or AtomicETH) after the BTH (+ SecHdr)
    logic [5:0]             dof;       // offset of DETH there

    ext     = '0;
    done    = 1'b0;
    len     = {1'b0, ev_len_q};
    ip_off  = {9'h0, x_ip_off};
    l3      = l3_of(win_q, x_vlans);
    vihl    = vb(l3, 0);
    frag    = vb(l3, 6);
    ihl     = vihl[3:0];
    ext_unused_frag = frag[7:6];
    ext.ipv6       = x_v6_q;
    ext.vlans      = x_vlans;
    ext.ip_off     = x_ip_off;
    ext.frame_len  = ev_len_q;
    hl      = ext.ipv6 ? 17'd40 : {11'h0, ihl, 2'b00};
    total   = 17'd0;
    ip_end  = 17'd0;

    // Ethernet II and 802.1Q / 802.1ad tags
    if (len < 17'd14) begin
      ext.kind = roce_parse_pkg::KindMalformed;
      ext.err  = roce_parse_pkg::ErrTruncated;
      done     = 1'b1;
    end else if ((x_vlans != 2'd0 && len < 17'd18) ||  // a tag at byte 12
                 (x_vlans == 2'd2 && len < 17'd22)) begin
      ext.kind = roce_parse_pkg::KindMalformed;
      ext.err  = roce_parse_pkg::ErrTruncated;
      done     = 1'b1;
    end

    // IP
    if (!done) begin
      if (x_v4_q) begin
        total = {1'b0, vbe16(l3, 2)};
        if (len < ip_off + 17'd20 || vihl[7:4] != 4'd4 || ihl < 4'd5 ||
            len < ip_off + hl) begin
          ext.kind = roce_parse_pkg::KindMalformed;
          ext.err  = roce_parse_pkg::ErrBadIpHeader;
          done     = 1'b1;
        end else if (vb(l3, 9) != 8'd17) begin
          ext.kind     = roce_parse_pkg::KindNotRoce;
          ext.not_roce = roce_parse_pkg::NotRoceNotUdp;
          done         = 1'b1;
        end else if (frag[5] || {frag[4:0], vb(l3, 7)} != 13'd0) begin
          ext.kind = roce_parse_pkg::KindMalformed;
          ext.err  = roce_parse_pkg::ErrFragmented;
          done     = 1'b1;
        end else if (total < hl || ip_off + total > len) begin
          ext.kind = roce_parse_pkg::KindMalformed;
          ext.err  = roce_parse_pkg::ErrBadLength;
          done     = 1'b1;
        end
        ip_end = ip_off + total;
      end else if (x_v6_q) begin
        total = {1'b0, vbe16(l3, 4)} + 17'd40;
        if (len < ip_off + 17'd40 || vihl[7:4] != 4'd6) begin
          ext.kind = roce_parse_pkg::KindMalformed;
          ext.err  = roce_parse_pkg::ErrBadIpHeader;
          done     = 1'b1;
        end else if (is_v6_ext(vb(l3, 6)) && len < ip_off + 17'd41) begin
          // the extension header's Next Header is not in the frame
          ext.kind = roce_parse_pkg::KindMalformed;
          ext.err  = roce_parse_pkg::ErrTruncated;
          done     = 1'b1;
        end else if (is_v6_ext(vb(l3, 6)) && (vb(l3, 40) == 8'd17 || is_v6_ext(vb(l3, 40)))) begin
          // UDP (or more headers) behind an extension header: RoCEv2 could hide there, so it
          // is rejected, not forwarded as not RoCE (docs/threat-model.md)
          ext.kind = roce_parse_pkg::KindMalformed;
          ext.err  = roce_parse_pkg::ErrIpv6Ext;
          done     = 1'b1;
        end else if (vb(l3, 6) != 8'd17) begin
          ext.kind     = roce_parse_pkg::KindNotRoce;
          ext.not_roce = roce_parse_pkg::NotRoceNotUdp;
          done         = 1'b1;
        end else if (ip_off + total > len) begin
          ext.kind = roce_parse_pkg::KindMalformed;
          ext.err  = roce_parse_pkg::ErrBadLength;
          done     = 1'b1;
        end
        ip_end = ip_off + total;
      end else begin
        ext.kind     = roce_parse_pkg::KindNotRoce;
        ext.not_roce = x_ib_q ? roce_parse_pkg::NotRoceRoceV1 : roce_parse_pkg::NotRoceNotIp;
        done         = 1'b1;
      end
    end
    ext.ip_hdr_len = hl[7:0];
    ext.ip_end     = ip_end[15:0];
    ext.ip_len     = ext.ipv6 ? vbe16(l3, 4) : vbe16(l3, 2);
    ext.ip_sum     = 16'h0;  // in the next cycle (e1), from x_ipps
    // the IPv4 header sum (none for IPv6)
    x_ipps = ext.ipv6 ? '0 : x_ipps_l;
    // dest_gid: GID byte 0 (first address byte on the wire) in bits [127:120].
    for (int i = 0; i < 16; i++) begin
      if (ext.ipv6)   ext.dest_gid[127 - 8*i -: 8] = vb(l3, 24 + i);
      else if (i < 10) ext.dest_gid[127 - 8*i -: 8] = 8'h00;
      else if (i < 12) ext.dest_gid[127 - 8*i -: 8] = 8'hFF;
      else             ext.dest_gid[127 - 8*i -: 8] = vb(l3, 16 + i - 12);
    end

    // UDP
    udp_off     = x_udp_off_q;  // = 8'(ip_off + hl)
    bth_off     = udp_off + 8'd8;
    ext.udp_off = udp_off;
    ext.bth_off = bth_off;
    // the same UDP offset, registered when the beat that completed this window arrived
    // (x_udph_q): the view choice is not behind the IHL arithmetic
    l4          = l4_of(win_q, x_udph_q);
    ext.udp_len = vbe16(l4, 4);
    x_port_ok   = (vbe16(l4, 2) == roce_parse_pkg::RocePort);

    // BTH (view l4 bytes 8..19)
    bth1        = vb(l4, 9);
    bth8        = vb(l4, 16);
    sec0        = vb(l4, 20);
    ext.opcode  = vb(l4, 8);
    ext.se      = bth1[7];
    ext.migreq  = bth1[6];
    ext.pad     = bth1[5:4];
    ext.tver    = bth1[3:0];
    ext.pkey    = vbe16(l4, 10);
    ext.byte4   = vb(l4, 12);
    ext.dest_qp = vbe24(l4, 13);
    ext.ack_req = bth8[7];
    ext.resv7   = bth8[6:0];
    ext.psn     = vbe24(l4, 17);
    x_op        = roce_parse_pkg::op_info(ext.opcode);
    ext.service = x_op.service;
    ext.eth     = x_op.eth;

    // SecHdr (view l4 bytes 20..27)
    ext.sec_mode  = sec0[7:6];
    ext.sec_level = sec0[5:0];
    ext.sec_epoch = vb(l4, 21);
    ext.sec_pn    = {vbe16(l4, 22), vbe32(l4, 24)};
    ext.sec_valid = (ext.tver == 4'd1);
    eth_off       = bth_off + (ext.sec_valid ? 8'd20 : 8'd12);

    // Extended headers, payload, pad: payload offset = udp_off + 8 (UDP) + 12 (BTH) [+ 8
    // (SecHdr)] + eth_len, one addition of a per-opcode constant (op_pay20/op_pay28)
    pay_off         = udp_off + {2'b00, ext.sec_valid ? op_pay28[6*ext.opcode +: 6] :
                                                          op_pay20[6*ext.opcode +: 6]};
    trailer         = ext.sec_valid ? 17'd20 : 17'd4;
    pay_end         = 16'(ip_end - trailer);
    ext.eth_off     = eth_off;
    ext.payload_off = pay_off;
    ext.payload_end = pay_end;
    // The checks from the UDP header on are made in the e1 cycle from the registered fields
    // (late_class); `done` says whether one of the checks above decided the kind.
    x_done = done;
    x_op_valid = x_op.valid;

    // Extended headers: the bytes after the BTH (and SecHdr) and the offsets of RETH/AtomicETH
    // and DETH among them are registered here; VA, rkey, DMA length and source QP are read
    // from them in e1 (x_eth_*; until session 22 the opcode decode, the offset and the 32-bit
    // selects behind the view select made this cycle the parse stage's critical path)
    x_eth_bytes    = ext.sec_valid ? (8*EthViewBytes)'(l4 >> (8 * 28)) :
                                         (8*EthViewBytes)'(l4 >> (8 * 20));
    ext.has_reth   = x_op.eth[roce_parse_pkg::EthReth];
    ext.has_atomic = x_op.eth[roce_parse_pkg::EthAtomic];
    ext.has_deth   = x_op.eth[roce_parse_pkg::EthDeth];
    {ro, dof}      = eth_target_offsets(x_op.eth);
    x_eth_ro       = ro[3:2];
    x_eth_do       = dof[2];
    unused_eth_off = ^{ro[5:4], ro[1:0], dof[5:3], dof[1:0]};  // 0, and bounded: MaxEthWords
    ext.va         = '0;
    ext.rkey       = '0;
    ext.dma_len    = '0;
    ext.src_qp     = '0;
  end

  ///////////////////////
  // Output registers  //
  ///////////////////////

  logic                  e1_valid_q;
  logic                  e1_hdr_q;
  logic                  e1_eof_q;
  roce_parse_pkg::roce_desc_t            e1_desc_q;
  logic [4*19-1:0]                       e1_ipps_q;
  logic                                  e1_done_q;
  logic                                  e1_port_ok_q;
  logic                                  e1_op_valid_q;
  logic [8*EthViewBytes-1:0]             e1_eth_bytes_q;
  logic [1:0]                            e1_eth_ro_q;
  logic                                  e1_eth_do_q;

  // RFC 1071 sum of the selected words (28 at most: < 2^21): the extraction cycle adds them in
  // four balanced trees of 8 (3 levels, 19-bit sums), e1 adds the four and folds the carries
  // twice (end-around carry).
  function automatic logic [15:0] ip_words_sum(logic [4*19-1:0] ps);
    logic [20:0] t;
    t = (21'(ps[0 +: 19]) + 21'(ps[19 +: 19])) + (21'(ps[38 +: 19]) + 21'(ps[57 +: 19]));
    t = {5'h0, t[15:0]} + {16'h0, t[20:16]};
    t = {5'h0, t[15:0]} + {16'h0, t[20:16]};
    ip_words_sum = t[15:0];
  endfunction

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      e1_valid_q   <= 1'b0;
      e1_hdr_q     <= 1'b0;
      e1_eof_q     <= 1'b0;
      hdr_valid_o  <= 1'b0;
      desc_valid_o <= 1'b0;
    end else begin
      e1_valid_q   <= ev_valid_q;
      e1_hdr_q     <= ev_valid_q && ev_hdr_q;
      e1_eof_q     <= ev_valid_q && ev_eof_q;
      hdr_valid_o  <= e1_hdr_q;
      desc_valid_o <= e1_eof_q;
    end
  end

  roce_parse_pkg::roce_desc_t desc_d;
  logic [8*ViewBytes-1:0] e1_reth;  // from RETH (or AtomicETH) on
  logic [8*ViewBytes-1:0] e1_deth;  // from DETH on
  assign e1_reth = eth_words(e1_eth_bytes_q, e1_eth_ro_q);
  assign e1_deth = eth_words(e1_eth_bytes_q, {1'b0, e1_eth_do_q});

  // The checks from the UDP header on (model roce::parse, in its order), from the registered
  // descriptor fields. When they run, the IP checks passed: ip_end <= frame_len < 2^16 and
  // every offset below is < 256, so the 8/16-bit fields are the values.
  function automatic roce_parse_pkg::roce_desc_t late_class(roce_parse_pkg::roce_desc_t d,
                                                            logic port_ok, logic op_valid);
    roce_parse_pkg::roce_desc_t r;  // (Yosys: no field writes to the function's result)
    logic [16:0] len, ip_end, udp_off, bth_off, eth_off, pay_off, pay_end, trailer;
    len     = {1'b0, d.frame_len};
    ip_end  = {1'b0, d.ip_end};
    udp_off = {9'h0, d.udp_off};
    bth_off = {9'h0, d.bth_off};
    eth_off = {9'h0, d.eth_off};
    pay_off = {9'h0, d.payload_off};
    pay_end = {1'b0, d.payload_end};
    trailer = d.sec_valid ? 17'd20 : 17'd4;
    r = d;
    if (udp_off + 17'd8 > len) begin
      r.kind = roce_parse_pkg::KindMalformed;
      r.err  = roce_parse_pkg::ErrTruncated;
    end else if (!port_ok) begin
      r.kind     = roce_parse_pkg::KindNotRoce;
      r.not_roce = roce_parse_pkg::NotRoceOtherPort;
    end else if (udp_off + {1'b0, d.udp_len} != ip_end) begin
      r.kind = roce_parse_pkg::KindMalformed;
      r.err  = roce_parse_pkg::ErrBadLength;
    end else if (bth_off + 17'd12 > ip_end) begin
      r.kind = roce_parse_pkg::KindMalformed;
      r.err  = roce_parse_pkg::ErrTruncated;
    end else if (!op_valid) begin
      r.kind = roce_parse_pkg::KindMalformed;
      r.err  = roce_parse_pkg::ErrReservedOp;
    end else if (d.tver > 4'd1) begin
      r.kind = roce_parse_pkg::KindMalformed;
      r.err  = roce_parse_pkg::ErrUnknownTVer;
    end else if (d.sec_valid && eth_off > ip_end) begin
      r.kind = roce_parse_pkg::KindMalformed;
      r.err  = roce_parse_pkg::ErrTruncated;
    end else if (d.sec_valid && (d.sec_mode == 2'd0 ||
                 (d.sec_level > 6'd52 && d.sec_level != 6'h3F))) begin
      r.kind = roce_parse_pkg::KindMalformed;
      r.err  = roce_parse_pkg::ErrSecHdr;
    end else if (pay_off + trailer > ip_end) begin
      r.kind = roce_parse_pkg::KindMalformed;
      r.err  = roce_parse_pkg::ErrTruncated;
    end else if ({15'h0, d.pad} > pay_end - pay_off) begin
      r.kind = roce_parse_pkg::KindMalformed;
      r.err  = roce_parse_pkg::ErrBadPad;
    end else begin
      r.kind = roce_parse_pkg::KindRoce;
    end
    late_class = r;
  endfunction

  always_comb begin
    desc_d         = e1_done_q ? e1_desc_q : late_class(e1_desc_q, e1_port_ok_q, e1_op_valid_q);
    // extended-header fields (late_class does not read them)
    desc_d.va      = {vbe32(e1_reth, 0), vbe32(e1_reth, 4)};
    desc_d.rkey    = vbe32(e1_reth, 8);
    desc_d.dma_len = e1_desc_q.has_reth ? vbe32(e1_reth, 12) : 32'h0;
    desc_d.src_qp  = vbe24(e1_deth, 5);
    desc_d.ip_sum  = ip_words_sum(e1_ipps_q);
    desc_d.icrc    = icrc;
    desc_d.icrc_ok = e1_eof_q && (icrc == icrc_stored);
  end

  always_ff @(posedge clk_i) begin
    if (ev_valid_q) begin
      e1_desc_q     <= ext;
      e1_ipps_q     <= x_ipps;
      e1_done_q     <= x_done;
      e1_port_ok_q  <= x_port_ok;
      e1_op_valid_q <= x_op_valid;
      e1_eth_bytes_q <= x_eth_bytes;
      e1_eth_ro_q    <= x_eth_ro;
      e1_eth_do_q    <= x_eth_do;
    end
    if (e1_valid_q) begin
      desc_o <= desc_d;
    end
  end

  ////////////
  // Unused //
  ////////////

  logic unused_sig;
  assign unused_sig = ^{c_l2.vlans, c_vihl[7:4], ext_unused_frag};

endmodule
