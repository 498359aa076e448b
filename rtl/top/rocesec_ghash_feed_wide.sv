// SPDX-License-Identifier: Apache-2.0
//
// rocesec_ghash_feed_wide: stage `crypto`, the GHASH half of GCM for beats of LANES blocks, the
// one GHASH feed both emits instantiate. At LANES = 1 it is rocesec_ghash_feed (one block per
// cycle into ghash_core; h_slot_o and cur_slot_o are then the entering beat's slot, in_slot_i,
// and H and the cur_* parameters are registered with the frame's first beat, so cur_ip_off_i
// is not read: in_ip_off_i is the same field); the rest of this header is LANES > 1. It cuts
// the GHASH input blocks of every frame out of its beat stream and hashes them with
// ghash_lanes: AAD, then ciphertext, then
// [len(A)]_64 ‖ [len(C)]_64 (SP 800-38D §7.1 step 5, §6.4), exactly the message of
// rocesec_ghash_feed.
//
// Data format
// -----------
// Beats are B = 16·LANES bytes, byte i in bits [8i+7:8i]; in_k_i is the beat index in its frame
// (beat k holds frame bytes [B·k, B·k + B)), in_slot_i its job slot. Per frame (offsets in the
// protected frame): AAD = bytes [ip_off, cstart) (packet-auth: [ip_off, cend)) with the ICRC's
// variant fields forced to ones (docs/wire-format.md §4, IBTA Vol 1 Annex A17.8: IPv4 TOS,
// TTL, checksum; IPv6 traffic class, flow label, hop limit; UDP checksum; BTH byte 4); C = bytes
// [cstart, cend) in AEAD mode, else empty. The AAD is never empty (it holds the IP header).
// Blocks are zero padded. in_active_i / in_ip_off_i are sampled with a frame's first beat; the
// other parameters of the registered beat's frame (cur_slot_o) are read back as cur_*, and the
// hash subkey of the message whose first GHASH beat issues (h_slot_o) as h_i.
//
// Cutter
// ------
// Block m of a range [r0, r1) covers [r0 + 16m, min(r0 + 16m + 16, r1)) and is cut from the beat
// holding its last byte, out of the window {beat k, beat k-1}: the window shifted by
// B - ((-r0) mod 16) bytes puts the LANES + 1 candidate blocks of the range that can end in
// beat k on 16-byte lanes. A beat yields at most LANES + 2 data blocks (the last AAD block, the
// first and the last ciphertext blocks can share it), plus the length block after the frame's
// last data block. The blocks of a passing beat enter a block queue (QDepth) in message order.
//
// Packer
// ------
// One ghash_lanes beat per cycle from the queue head: LANES blocks of one message, or fewer when
// they end that message (the length block carries the message's last flag); it waits while
// the head message has fewer than LANES blocks queued and its last block is not among them.
// Per frame of F beats the message has at most LANES·F blocks (AAD and ciphertext padding and
// the length block fit in the Ethernet, ICV and ICRC bytes), so in a stream the packer keeps up
// with one beat per cycle and the queue stays short.
//
// Timing
// ------
// One register stage: a beat leaves (out_*, unchanged) in the cycle its blocks enter the queue;
// it waits only while the queue lacks room for them (count - issued + new > QDepth) or
// out_ready_i is low. The hash leaves ghash_lanes GhashLanesLatency cycles after the beat
// carrying the length block issues, tagged by slot.
//
// Reset: valid flags, queue pointers and counts.

`resetall
`default_nettype none

module rocesec_ghash_feed_wide
#(
  parameter int unsigned LANES  = 4,         // 128-bit blocks per beat (2 or 4)
  parameter int unsigned SlotW  = 3,         // job slot width
  parameter int unsigned QDepth = 4 * LANES  // block queue depth (power of two, >= 2·LANES + 3)
) (
  input  wire logic                  clk_i,
  input  wire logic                  rst_ni,

  // Beats in
  input  wire logic                  in_valid_i,
  output logic                       in_ready_o,
  input  wire logic [128*LANES-1:0]  in_data_i,
  input  wire logic [16*LANES-1:0]   in_keep_i,
  input  wire logic                  in_last_i,
  input  wire logic [SlotW-1:0]      in_slot_i,
  input  wire logic [11:0]           in_k_i,
  input  wire logic                  in_active_i,   // frame of the entering beat is hashed
  input  wire logic [7:0]            in_ip_off_i,

  // Parameters of the registered beat's frame
  output logic      [SlotW-1:0]      cur_slot_o,
  input  wire logic [1:0]            cur_mode_i,
  input  wire logic                  cur_ipv6_i,
  input  wire logic [7:0]            cur_ip_off_i,
  input  wire logic [7:0]            cur_udp_off_i,
  input  wire logic [7:0]            cur_bth_off_i,
  input  wire logic [16:0]           cur_cstart_i,  // payload start
  input  wire logic [16:0]           cur_cend_i,    // payload end

  // Hash subkey of the message at the packer head
  output logic      [SlotW-1:0]      h_slot_o,
  input  wire logic [127:0]          h_i,

  // Beats out
  output logic                       out_valid_o,
  input  wire logic                  out_ready_i,
  output logic      [128*LANES-1:0]  out_data_o,
  output logic      [16*LANES-1:0]   out_keep_o,
  output logic                       out_last_o,
  output logic      [SlotW-1:0]      out_slot_o,
  output logic      [11:0]           out_k_o,

  // GHASH result per frame
  output logic                       hash_valid_o,
  output logic      [SlotW-1:0]      hash_slot_o,
  output logic      [127:0]          hash_o
);

  localparam int unsigned B      = 16 * LANES;       // bytes per beat
  localparam int unsigned LB     = $clog2(B);
  localparam int unsigned NCand  = LANES + 1;        // candidates per range
  localparam int unsigned NIn    = 2 * NCand + 1;    // AAD, C, length
  localparam int unsigned QW     = $clog2(QDepth);
  localparam int unsigned NW     = $clog2(NIn + 1);

  if (LANES > 1 && ((QDepth & (QDepth - 1)) != 0 || QDepth < 2 * LANES + 3)) begin : gen_param_check
    $error("rocesec_ghash_feed_wide: QDepth a power of two >= 2*LANES+3 (%m)");
  end

  // Queue entry {first, last, slot, data} (data: byte b0 in [127:120]), stored flat.
  localparam int unsigned EW     = 2 + SlotW + 128;
  localparam int unsigned EFirst = EW - 1;
  localparam int unsigned ELast  = EW - 2;
  typedef logic [EW-1:0] blk_t;

  // The block queue of the LANES > 1 feed, declared here: Yosys 0.70 does not map a memory
  // declared inside a generate block ("unexpanded memory"). Unused at LANES = 1.
  /* verilator lint_off UNUSEDSIGNAL */
  /* verilator lint_off UNDRIVEN */
  blk_t q_q [QDepth];
  /* verilator lint_on UNDRIVEN */
  /* verilator lint_on UNUSEDSIGNAL */

  if (LANES == 1) begin : gen_serial
    // One block per beat: rocesec_ghash_feed (ghash_core, one block per cycle); it registers
    // the hash subkey and the frame parameters with the entering beat's frame, so h_slot_o
    // and cur_slot_o are that beat's slot.
    assign cur_slot_o = in_slot_i;
    assign h_slot_o   = in_slot_i;
    logic unused_cur_ip_off;  // the entering frame's ip_off is in_ip_off_i
    assign unused_cur_ip_off = ^cur_ip_off_i;
    rocesec_ghash_feed #(
      .SlotW (SlotW)
    ) u_feed (
      .clk_i         (clk_i),
      .rst_ni        (rst_ni),
      .in_valid_i    (in_valid_i),
      .in_ready_o    (in_ready_o),
      .in_data_i     (in_data_i[127:0]),
      .in_keep_i     (in_keep_i[15:0]),
      .in_last_i     (in_last_i),
      .in_slot_i     (in_slot_i),
      .in_k_i        (in_k_i),
      .in_active_i   (in_active_i),
      .in_ip_off_i   (in_ip_off_i),
      .in_h_i        (h_i),
      .in_mode_i     (cur_mode_i),
      .in_ipv6_i     (cur_ipv6_i),
      .in_udp_off_i  (cur_udp_off_i),
      .in_bth_off_i  (cur_bth_off_i),
      .in_cstart_i   (cur_cstart_i),
      .in_cend_i     (cur_cend_i),
      .out_valid_o   (out_valid_o),
      .out_ready_i   (out_ready_i),
      .out_data_o    (out_data_o[127:0]),
      .out_keep_o    (out_keep_o[15:0]),
      .out_last_o    (out_last_o),
      .out_slot_o    (out_slot_o),
      .out_k_o       (out_k_o),
      .hash_valid_o  (hash_valid_o),
      .hash_slot_o   (hash_slot_o),
      .hash_o        (hash_o)
    );
  end else begin : gen_wide
    /////////////
    // Signals //
    /////////////

    logic                 s_valid_q;
    logic [128*LANES-1:0] s_data_q;
    logic [16*LANES-1:0]  s_keep_q;
    logic                 s_last_q;
    logic [SlotW-1:0]     s_slot_q;
    logic [11:0]          s_k_q;
    logic                 act_q;           // the registered beat's frame is hashed
    logic [128*LANES-1:0] prev_q;          // beat k-1, masked
    logic                 s_pass;
    logic                 s_ready;

    blk_t                 cand [NIn];
    logic [NIn-1:0]       cand_v;
    logic [NW-1:0]        n_new;

    logic [QW-1:0]        wp_q, rp_q;
    logic [QW:0]          cnt_q;
    logic [$clog2(LANES+1)-1:0] n_iss;     // blocks issued this cycle
    logic                 room;

    assign cur_slot_o = s_slot_q;

    ////////////////////////////
    // Invariant-field mask   //
    ////////////////////////////

    logic [128*LANES-1:0] masked;

    always_comb begin
      logic [16:0]  base;
      logic [17:0]  d_ip, d_udp, d_bth;
      logic [B-1:0] ff, nib;
      base  = 17'({5'h0, s_k_q} << LB);
      d_ip  = {1'b0, 9'h0, cur_ip_off_i} - {1'b0, base};
      d_udp = {1'b0, 9'h0, cur_udp_off_i} - {1'b0, base};
      d_bth = {1'b0, 9'h0, cur_bth_off_i} - {1'b0, base};
      ff    = B'(rocesec_pkg::lane_at(d_udp + 18'd6)) | B'(rocesec_pkg::lane_at(d_udp + 18'd7)) | B'(rocesec_pkg::lane_at(d_bth + 18'd4));
      nib   = '0;
      if (cur_ipv6_i) begin
        nib = B'(rocesec_pkg::lane_at(d_ip));
        ff  = ff | B'(rocesec_pkg::lane_at(d_ip + 18'd1)) | B'(rocesec_pkg::lane_at(d_ip + 18'd2)) | B'(rocesec_pkg::lane_at(d_ip + 18'd3)) |
              B'(rocesec_pkg::lane_at(d_ip + 18'd7));
      end else begin
        ff  = ff | B'(rocesec_pkg::lane_at(d_ip + 18'd1)) | B'(rocesec_pkg::lane_at(d_ip + 18'd8)) | B'(rocesec_pkg::lane_at(d_ip + 18'd10)) |
              B'(rocesec_pkg::lane_at(d_ip + 18'd11));
      end
      for (int i = 0; i < B; i++) begin
        masked[8*i +: 8] = s_data_q[8*i +: 8] | (ff[i] ? 8'hFF : 8'h00) | (nib[i] ? 8'h0F : 8'h00);
      end
    end

    ////////////
    // Cutter //
    ////////////

    // Candidate blocks of range r ([r0, r1): r = 0 AAD, r = 1 ciphertext) in the beat at base
    // (window w, byte j = frame offset base - B + j): candidate c starts at s = 16c - u
    // (u = (-r0) mod 16) relative to base and is valid when it lies in the range and its last
    // byte is in the beat. Bytes at or past r1 are zeroed.
    always_comb begin
      logic [2*B*8-1:0]        w;
      logic [(2*B+16)*8-1:0]   wz;
      logic [(NCand*16)*8-1:0] view;
      logic [16:0]             base, ipst, a1;
      logic [16:0]             r0 [2];
      logic [16:0]             r1 [2];
      logic                    en [2];
      logic                    aead, pauth, has_c;
      logic [3:0]              u;
      logic signed [18:0]      d0, d1, s, lim, bb;
      logic [127:0]            blk;
      logic [NCand-1:0]        fin [2];
      logic                    first;
      logic [63:0]             la, lc;
      w     = {masked, prev_q};
      wz    = {128'h0, w};
      base  = 17'({5'h0, s_k_q} << LB);
      ipst  = {9'h0, cur_ip_off_i};
      aead  = (cur_mode_i == rocesec_pkg::ModeAead);
      pauth = (cur_mode_i == rocesec_pkg::ModePacketAuth);
      a1    = pauth ? cur_cend_i : cur_cstart_i;
      has_c = aead && (cur_cend_i != cur_cstart_i);
      r0[0] = ipst;
      r1[0] = a1;
      en[0] = act_q;
      r0[1] = cur_cstart_i;
      r1[1] = cur_cend_i;
      en[1] = act_q && has_c;
      bb    = 19'sd16 * $signed(19'(LANES));
      for (int r = 0; r < 2; r++) begin
        u    = 4'(5'd16 - {1'b0, r0[r][3:0]});
        d0   = $signed({2'b00, r0[r]}) - $signed({2'b00, base});
        d1   = $signed({2'b00, r1[r]}) - $signed({2'b00, base});
        view = (NCand*16*8)'(wz >> (8 * (B - 32'(u))));
        lim  = d1 + $signed({15'h0, u});  // view bytes q >= lim are at or past r1
        for (int c = 0; c < NCand; c++) begin
          s     = $signed(19'(16 * c)) - $signed({15'h0, u});
          first = (s == d0);
          fin[r][c] = (d1 <= s + 19'sd16);  // the range's last block
          for (int i = 0; i < 16; i++) begin
            blk[127 - 8*i -: 8] = ($signed(19'(16 * c + i)) < lim) ? view[8*(16*c + i) +: 8] : 8'h00;
          end
          cand[NCand*r + c]   = {first && (r == 0), 1'b0, s_slot_q, blk};
          cand_v[NCand*r + c] = en[r] && (s >= d0) && (s < d1) && (d1 > 19'sd0) &&
                                ((s + 19'sd16 <= bb) || (d1 <= bb));
        end
      end
      la = {44'h0, a1 - ipst, 3'b000};
      lc = aead ? {44'h0, cur_cend_i - cur_cstart_i, 3'b000} : 64'h0;
      // the length block follows the message's last data block
      cand[NIn-1]   = {1'b0, 1'b1, s_slot_q, la, lc};
      cand_v[NIn-1] = has_c ? |(cand_v[NCand +: NCand] & fin[1]) : |(cand_v[0 +: NCand] & fin[0]);
      n_new = '0;
      for (int i = 0; i < NIn; i++) n_new = n_new + NW'(cand_v[i]);
    end

    assign room   = ({1'b0, cnt_q} - (QW+2)'(n_iss) + (QW+2)'(n_new)) <= (QW+2)'(QDepth);
    assign s_pass = s_valid_q && out_ready_i && room;
    assign s_ready = !s_valid_q || s_pass;
    assign in_ready_o = s_ready;

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        s_valid_q <= 1'b0;
        act_q     <= 1'b0;
      end else begin
        if (s_ready) s_valid_q <= in_valid_i;
        if (s_ready && in_valid_i && in_k_i == 12'd0) act_q <= in_active_i;
      end
    end

    always_ff @(posedge clk_i) begin
      if (s_pass) prev_q <= masked;
      if (s_ready && in_valid_i) begin
        s_data_q <= in_data_i;
        s_keep_q <= in_keep_i;
        s_last_q <= in_last_i;
        s_slot_q <= in_slot_i;
        s_k_q    <= in_k_i;
      end
    end

    // in_ip_off_i is read back as cur_ip_off_i for the registered beat
    logic unused_in;
    assign unused_in = ^in_ip_off_i;

    assign out_valid_o = s_pass;
    assign out_data_o  = s_data_q;
    assign out_keep_o  = s_keep_q;
    assign out_last_o  = s_last_q;
    assign out_slot_o  = s_slot_q;
    assign out_k_o     = s_k_q;

    /////////////////
    // Block queue //
    /////////////////

    // Write: the valid candidates of a passing beat, compacted in order.
    always_ff @(posedge clk_i) begin
      logic [NW-1:0] pos;
      pos = '0;
      for (int i = 0; i < NIn; i++) begin
        if (s_pass && cand_v[i]) q_q[QW'(wp_q + QW'(pos))] <= cand[i];
        pos = pos + NW'(cand_v[i]);
      end
    end

    // Read: one ghash_lanes beat from the head.
    logic                 g_valid, g_first, g_last;
    logic [LANES-1:0]     g_keep;
    logic [128*LANES-1:0] g_data;
    logic [SlotW-1:0]     g_tag;

    always_comb begin
      logic        found;
      logic [$clog2(LANES+1)-1:0] n;
      found = 1'b0;
      n     = '0;
      for (int j = 0; j < LANES; j++) begin
        if (!found && (QW+1)'(j) < cnt_q) begin
          n = n + 1'b1;
          if (q_q[QW'(rp_q + QW'(j))][ELast]) found = 1'b1;
        end
      end
      g_valid = found || (cnt_q >= (QW+1)'(LANES));
      n_iss   = g_valid ? n : '0;
      g_last  = found;
      g_first = q_q[rp_q][EFirst];
      g_tag   = q_q[rp_q][128 +: SlotW];
      g_data  = '0;
      g_keep  = '0;
      for (int j = 0; j < LANES; j++) begin
        if (32'(j) < 32'(n)) begin
          g_keep[j]           = 1'b1;
          g_data[128*j +: 128] = q_q[QW'(rp_q + QW'(j))][127:0];
        end
      end
    end

    assign h_slot_o = g_tag;

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        wp_q  <= '0;
        rp_q  <= '0;
        cnt_q <= '0;
      end else begin
        if (s_pass) wp_q <= wp_q + QW'(n_new);
        rp_q  <= rp_q + QW'(n_iss);
        cnt_q <= cnt_q + (s_pass ? (QW+1)'(n_new) : '0) - (QW+1)'(n_iss);
      end
    end

    ///////////
    // GHASH //
    ///////////

    logic [256*LANES-1:0] unused_hpow;
    assign unused_hpow = '0;

    ghash_lanes #(
      .LANES    (LANES),
      .TagWidth (SlotW),
      .PowersIn (0)
    ) u_ghash (
      .clk_i       (clk_i),
      .rst_ni      (rst_ni),
      .in_valid_i  (g_valid),
      .in_first_i  (g_first),
      .in_last_i   (g_last),
      .in_keep_i   (g_keep),
      .in_tag_i    (g_tag),
      .in_data_i   (g_data),
      .in_h_i      (h_i),
      .in_hpow_i   (unused_hpow),
      .out_valid_o (hash_valid_o),
      .out_tag_o   (hash_slot_o),
      .out_hash_o  (hash_o)
    );
  end

endmodule
