// SPDX-License-Identifier: Apache-2.0
//
// rocesec_ghash_feed: stage `crypto`, the GHASH half of GCM shared by both tops — cuts the GHASH
// input blocks of every frame out of its beat stream and hashes them (ghash_core): AAD, then
// ciphertext, then [len(A)]_64 ‖ [len(C)]_64 (SP 800-38D §7.1 step 5, §6.4). The protect top
// feeds it its output stream, the verify top its input stream: both are the protected frame.
//
// Data format
// -----------
// Beats are 16 bytes, byte i in bits [8i+7:8i]; in_k_i is the beat index in its frame (beat k
// holds frame bytes [16k, 16k+16)), in_slot_i its job slot. Per frame (offsets in the protected
// frame): AAD = bytes [ip_off, cstart) (packet-auth: [ip_off, cend)) with the ICRC's variant
// fields forced to ones (docs/wire-format.md §4, IBTA Vol 1 Annex A17.8: IPv4 TOS, TTL,
// checksum; IPv6 traffic class, flow label, hop limit; UDP checksum; BTH byte 4); C = bytes
// [cstart, cend) in AEAD mode, else empty. Blocks are zero padded. The parameters of the frame
// of the beat entering (in_active_i: hash this frame, in_ip_off_i, in_h_i: its hash subkey H,
// in_mode_i .. in_cend_i) are sampled with its first beat into registers (f_*_q) that serve
// every beat of the frame in the register stage: the job-table read is not in series with the
// range comparisons, the block shifter and the masks (until session 19 the registered beat's
// parameters were read back from the job table by slot, cur_*: the protect emit's critical
// path). H is registered the same way, a cycle ahead of ghash_core sampling it with the
// frame's first block.
//
// Timing
// ------
// One register stage: a beat leaves (out_*, unchanged) once every data block ending in it has
// been fed (one block per cycle). The length block is fed from a one-entry register in the cycle
// after the last data block, ahead of any block of the next beat (which then waits that cycle),
// so the beat that ends the range does not wait for it: in a stream of frames the length block
// takes a cycle in which no data block ends (the Ethernet header beat of the next frame, the
// ICV/ICRC beats), and back-to-back frames pass without an idle cycle. The hash leaves ghash_core
// rocesec_pkg::GhashLatency cycles after the length block, tagged by slot.

`resetall
`default_nettype none

module rocesec_ghash_feed
#(
  parameter int unsigned SlotW = 3  // job slot width
) (
  input  wire logic               clk_i,
  input  wire logic               rst_ni,

  // Beats in
  input  wire logic               in_valid_i,
  output logic                    in_ready_o,
  input  wire logic [127:0]       in_data_i,
  input  wire logic [15:0]        in_keep_i,
  input  wire logic               in_last_i,
  input  wire logic [SlotW-1:0]   in_slot_i,
  input  wire logic [11:0]        in_k_i,
  input  wire logic               in_active_i,   // frame of the entering beat is hashed
  // Parameters of the entering beat's frame, sampled with its first beat (in_k_i = 0)
  input  wire logic [7:0]         in_ip_off_i,
  input  wire logic [127:0]       in_h_i,        // H
  input  wire logic [1:0]         in_mode_i,
  input  wire logic               in_ipv6_i,
  input  wire logic [7:0]         in_udp_off_i,
  input  wire logic [7:0]         in_bth_off_i,
  input  wire logic [16:0]        in_cstart_i,   // payload start
  input  wire logic [16:0]        in_cend_i,     // payload end

  // Beats out
  output logic                    out_valid_o,
  input  wire logic               out_ready_i,
  output logic      [127:0]       out_data_o,
  output logic      [15:0]        out_keep_o,
  output logic                    out_last_o,
  output logic      [SlotW-1:0]   out_slot_o,
  output logic      [11:0]        out_k_o,

  // GHASH result per frame
  output logic                    hash_valid_o,
  output logic      [SlotW-1:0]   hash_slot_o,
  output logic      [127:0]       hash_o
);

  localparam logic [1:0] PhAad  = 2'd0;
  localparam logic [1:0] PhC    = 2'd1;
  localparam logic [1:0] PhDone = 2'd3;

  /////////////
  // Signals //
  /////////////

  logic             s_valid_q;
  logic [127:0]     s_data_q;
  logic [15:0]      s_keep_q;
  logic             s_last_q;
  logic [SlotW-1:0] s_slot_q;
  logic [11:0]      s_k_q;
  logic [127:0]     s_h_q;             // H of the registered beat's frame
  // the registered beat's frame parameters (sampled with its first beat)
  logic [1:0]       f_mode_q;
  logic             f_ipv6_q;
  logic [7:0]       f_ip_off_q, f_udp_off_q, f_bth_off_q;
  logic [16:0]      f_cstart_q, f_cend_q;
  logic             s_ready;
  logic             s_pass;            // the beat leaves this cycle

  logic [1:0]       phase_q, phase_d;
  logic [16:0]      gp_q, gp_d;        // next GHASH byte (frame offset)
  logic [16:0]      g16_q, g32_q;      // gp_q + 16, gp_q + 32
  logic [16:0]      base16_q;          // 16(s_k_q + 1): end of the registered beat
  logic             first_q;           // next block is X_1
  logic [127:0]     prev_q;            // beat k-1, masked

  logic             gh_valid, gh_first, gh_last;
  logic [127:0]     gh_data;
  logic [SlotW-1:0] gh_tag;

  // pending length block [len(A)]_64 ‖ [len(C)]_64 of the frame whose last data block was fed
  logic             len_pend_q;
  logic [SlotW-1:0] len_slot_q;
  logic [127:0]     len_blk_q;
  logic             len_set;
  logic [127:0]     len_blk;

  // Invariant-field mask of the registered beat (docs/wire-format.md §4, Annex A17.8): beat k
  // starts at 16k, so a field byte at frame offset y is in it iff y[16:4] == k, in lane y[3:0]
  // (an equality, no subtraction; as in roce_parse_icrc). The header offsets are < 256, so
  // only beats k < 16 hold any.
  logic [127:0] masked;

  function automatic logic [15:0] at16(logic [8:0] y, logic [11:0] k);
    at16 = '0;
    if ({8'h0, y[8:4]} == {1'b0, k}) at16[y[3:0]] = 1'b1;
  endfunction

  always_comb begin
    logic [8:0]  ip, udp, bth;
    logic [15:0] ff, nib;
    ip    = {1'b0, f_ip_off_q};
    udp   = {1'b0, f_udp_off_q};
    bth   = {1'b0, f_bth_off_q};
    ff    = at16(udp + 9'd6, s_k_q) | at16(udp + 9'd7, s_k_q) | at16(bth + 9'd4, s_k_q);
    nib   = '0;
    if (f_ipv6_q) begin
      nib = at16(ip, s_k_q);
      ff  = ff | at16(ip + 9'd1, s_k_q) | at16(ip + 9'd2, s_k_q) | at16(ip + 9'd3, s_k_q) |
            at16(ip + 9'd7, s_k_q);
    end else begin
      ff  = ff | at16(ip + 9'd1, s_k_q) | at16(ip + 9'd8, s_k_q) | at16(ip + 9'd10, s_k_q) |
            at16(ip + 9'd11, s_k_q);
    end
    for (int i = 0; i < 16; i++) begin
      masked[8*i +: 8] = s_data_q[8*i +: 8] | (ff[i] ? 8'hFF : 8'h00) | (nib[i] ? 8'h0F : 8'h00);
    end
  end

  ///////////
  // Feed  //
  ///////////

  // Control. Every comparison below is one carry chain between registers (gp_q, g16_q = gp_q +
  // 16, g32_q = gp_q + 32, base16_q = 16(k + 1)) and the frame's offsets, all in parallel;
  // session 12 replaced five chained additions and comparisons (gp + 16 against the range end,
  // then the next block's end against the beat's end), the deepest path of the protect emit
  // (31.0 MHz alone). With the range end re (AAD: C start, or C end for packet-auth; C: C end)
  // and the beat's bytes [16k, 16k + 16):
  //   a block [gp, gp + 16) ∩ [gp, re) ends in this beat  iff  min(gp + 16, re) <= 16k + 16
  //   it is the range's last                              iff  gp + 16 >= re
  //   another block ends in this beat after it            iff  the same test for the next gp
  // where gp + 16 <= 16k + 16 is gp <= 16k, and gp + 32 <= 16k + 16 is gp + 16 <= 16k.
  logic feed;       // a data block is fed (gp advances)
  logic to_c;       // the AAD range ended: ciphertext next (gp = C start)

  always_comb begin
    logic [255:0] w;          // {cur, prev}: byte j = frame offset 16(k-1) + j
    logic [16:0]  base;       // 16(k-1)
    logic [16:0]  basek;      // 16k
    /* verilator lint_off UNUSEDSIGNAL */
    logic [16:0]  shift;      // < 32 by construction
    logic [17:0]  dce;        // C end - C start (signed)
    /* verilator lint_on UNUSEDSIGNAL */
    logic [16:0]  re;         // range end
    logic [16:0]  pstart, eend, ipst;
    logic [127:0] blk;
    logic [17:0]  nv;         // re - gp (signed): bytes of the block in the range
    logic [63:0]  la, lc;
    logic         aead, pauth, re_is_p;
    logic         g16_lt_p, g16_lt_e, g32_lt_p, g32_lt_e, p_le_b, e_le_b;
    logic         c1, c2, c3, ends, fin, more;

    w       = {masked, prev_q};
    basek   = {1'b0, s_k_q, 4'h0};
    base    = basek - 17'd16;
    ipst    = {9'h0, f_ip_off_q};
    pstart  = f_cstart_q;
    eend    = f_cend_q;
    aead    = (f_mode_q == rocesec_pkg::ModeAead);
    pauth   = (f_mode_q == rocesec_pkg::ModePacketAuth);
    re_is_p = (phase_q == PhAad) && !pauth;
    re      = re_is_p ? pstart : eend;
    shift   = gp_q - base;

    // comparisons (parallel)
    g16_lt_p = g16_q < pstart;
    g16_lt_e = g16_q < eend;
    g32_lt_p = g32_q < pstart;
    g32_lt_e = g32_q < eend;
    p_le_b   = pstart <= base16_q;
    e_le_b   = eend <= base16_q;
    dce      = {1'b0, eend} - {1'b0, pstart};
    c1       = re_is_p ? g16_lt_p : g16_lt_e;                     // gp + 16 < re
    c2       = re_is_p ? g32_lt_p : g32_lt_e;                     // gp + 32 < re
    c3       = !dce[17] && dce > 18'd16;                          // C start + 16 < C end
    ends     = c1 ? (gp_q <= basek) : (re_is_p ? p_le_b : e_le_b);
    fin      = !c1;
    to_c     = fin && phase_q == PhAad && aead && eend != pstart;
    if (to_c)     more = c3 ? (pstart <= basek) : e_le_b;           // C's first block ends here
    else if (fin) more = 1'b0;                                      // done: nothing more
    else          more = c2 ? (g16_q <= basek) : (re_is_p ? p_le_b : e_le_b);

    // bytes of the block inside the range: re - gp, one subtraction (until session 28 one
    // comparison gp + i < re per byte: 16 carry chains)
    nv  = {1'b0, re} - {1'b0, gp_q};
    blk = '0;
    for (int i = 0; i < 16; i++) begin
      // block byte i (b0 = bits [127:120]) is frame byte gp + i
      if (!nv[17] && nv[16:0] > 17'(i)) blk[127 - 8*i -: 8] = w[8*(shift[4:0] + 5'(i)) +: 8];
    end
    la = {44'h0, (aead || !pauth) ? pstart - ipst : eend - ipst, 3'b000};
    lc = aead ? {44'h0, eend - pstart, 3'b000} : 64'h0;

    len_blk  = {la, lc};
    len_set  = 1'b0;
    feed     = 1'b0;
    gh_valid = 1'b0;
    gh_first = first_q;
    gh_last  = 1'b0;
    gh_data  = blk;
    gh_tag   = s_slot_q;
    phase_d  = phase_q;
    gp_d     = gp_q;
    s_pass   = 1'b0;
    if (len_pend_q) begin
      // the previous frame's length block goes first
      gh_valid = 1'b1;
      gh_first = 1'b0;
      gh_last  = 1'b1;
      gh_data  = len_blk_q;
      gh_tag   = len_slot_q;
    end
    if (s_valid_q) begin
      if ((phase_q == PhAad || phase_q == PhC) && ends) begin
        // a data block ends in this beat: fed unless the length block takes the cycle
        if (!len_pend_q) begin
          gh_valid = 1'b1;
          feed     = 1'b1;
          gp_d     = to_c ? pstart : g16_q;
          if (fin) begin
            phase_d = to_c ? PhC : PhDone;
            len_set = !to_c;
          end
          // the beat may leave with this block unless another block also ends in it
          s_pass = out_ready_i && !more;
        end
      end else begin
        s_pass = out_ready_i;
      end
    end
  end

  assign s_ready    = !s_valid_q || s_pass;
  assign in_ready_o = s_ready;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s_valid_q <= 1'b0;
      phase_q   <= PhDone;
      gp_q      <= '0;
      g16_q     <= 17'd16;
      g32_q     <= 17'd32;
      first_q   <= 1'b0;
      prev_q    <= '0;
      len_pend_q <= 1'b0;
    end else begin
      len_pend_q <= len_set;
      if (s_ready) s_valid_q <= in_valid_i;
      phase_q <= phase_d;
      gp_q    <= gp_d;
      if (feed) begin
        g16_q <= to_c ? f_cstart_q + 17'd16 : g32_q;
        g32_q <= to_c ? f_cstart_q + 17'd32 : g32_q + 17'd16;
      end
      if (gh_valid && !len_pend_q) first_q <= 1'b0;
      if (s_pass) prev_q <= masked;
      if (s_ready && in_valid_i && in_k_i == 12'd0) begin
        // first beat of a frame: start its GHASH
        phase_q <= in_active_i ? PhAad : PhDone;
        gp_q    <= {9'h0, in_ip_off_i};
        g16_q   <= {9'h0, in_ip_off_i} + 17'd16;
        g32_q   <= {9'h0, in_ip_off_i} + 17'd32;
        first_q <= 1'b1;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (len_set) begin
      len_slot_q <= s_slot_q;
      len_blk_q  <= len_blk;
    end
    if (s_ready && in_valid_i && in_k_i == 12'd0) begin
      s_h_q       <= in_h_i;
      f_mode_q    <= in_mode_i;
      f_ipv6_q    <= in_ipv6_i;
      f_ip_off_q  <= in_ip_off_i;
      f_udp_off_q <= in_udp_off_i;
      f_bth_off_q <= in_bth_off_i;
      f_cstart_q  <= in_cstart_i;
      f_cend_q    <= in_cend_i;
    end
    if (s_ready && in_valid_i) begin
      s_data_q <= in_data_i;
      s_keep_q <= in_keep_i;
      s_last_q <= in_last_i;
      s_slot_q <= in_slot_i;
      s_k_q    <= in_k_i;
      base16_q <= {1'b0, in_k_i, 4'h0} + 17'd16;
    end
  end

  assign out_valid_o = s_valid_q && s_pass;
  assign out_data_o  = s_data_q;
  assign out_keep_o  = s_keep_q;
  assign out_last_o  = s_last_q;
  assign out_slot_o  = s_slot_q;
  assign out_k_o     = s_k_q;

  ///////////
  // GHASH //
  ///////////

  ghash_core #(
    .MulStages (2),
    .TagWidth  (SlotW)
  ) u_ghash (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (gh_valid),
    .in_first_i  (gh_first),
    .in_last_i   (gh_last),
    .in_tag_i    (gh_tag),
    .in_data_i   (gh_data),
    .in_h_i      (s_h_q),
    .out_valid_o (hash_valid_o),
    .out_tag_o   (hash_slot_o),
    .out_hash_o  (hash_o)
  );

endmodule
