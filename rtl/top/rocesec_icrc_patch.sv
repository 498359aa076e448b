// SPDX-License-Identifier: Apache-2.0
//
// rocesec_icrc_patch: stage `emit`, the ICRC regeneration shared by both tops — every outgoing
// beat feeds roce_parse_icrc on entry, and the beat holding the ICRC field gets the CRC of the
// bytes before it (IBTA Vol 1 Annex A17.8; model roce::icrc::fix), then the frame's last beat
// waits for its final verdict.
//
// Data format
// -----------
// Beats are B = 16·LANES bytes, byte i in bits [8i+7:8i], in_k_i = beat index in the frame.
// The layout of the entering beat's frame (in_ipv6_i, in_*_off_i, in_icrc_off_i = offset of the ICRC field in
// the outgoing frame) drives the CRC; for the beat in stage U (cur_slot_o) the caller returns
// cur_patch_i (the frame is rewritten: patch its ICRC) and cur_icrc_off_i; done_next_i is every
// slot's "final verdict known" bit as it will be after this edge (the D of the caller's
// register), from which the patch keeps the bits of its own slots in registers. The ICRC is
// stored little-endian (crc32fast order) and, 4-aligned, never straddles a beat.
//
// Timing
// ------
// Three register stages: A (the beat enters roce_parse_icrc with it), U (the CRC) and P
// (patch). When a beat moves from A to U the CRC state register already includes it, so U
// takes roce_parse_icrc's icrc_o (the trailing-zero undo after the state register) in its first
// cycle, or a copy (crc_u_q) made then if it has to wait, and registers it with the beat's
// patch lanes into P; P only selects bytes. The state stays valid through U's first cycle: the
// next covered beat enters A at the earliest in that cycle and reaches the state one edge
// later. History: until session 13 the patch took a combinational CRC (beat register -> CRC
// step -> undo -> patch); until session 22 P took icrc_o in its own first cycle, and the undo,
// the job-table read of the ICRC offset and the byte mux into the caller's output register
// were the critical path of both emits (docs/rtl/fmax-log.md). Latency 3 cycles (the timing
// layers S4a, S4u, S4), one beat per cycle. out_valid_o (registered beat, not a
// last beat waiting for its verdict) does not depend on out_ready_i.

`resetall
`default_nettype none

module rocesec_icrc_patch
#(
  parameter int unsigned LANES = 1, // 128-bit blocks per beat
  parameter int unsigned SlotW = 3  // job slot width
) (
  input  wire logic               clk_i,
  input  wire logic               rst_ni,

  // Beats in
  input  wire logic               in_valid_i,
  output logic                    in_ready_o,
  input  wire logic [128*LANES-1:0] in_data_i,
  input  wire logic [16*LANES-1:0]  in_keep_i,
  input  wire logic               in_last_i,
  input  wire logic [SlotW-1:0]   in_slot_i,
  input  wire logic [11:0]        in_k_i,
  input  wire logic               in_ipv6_i,
  input  wire logic [7:0]         in_ip_off_i,
  input  wire logic [7:0]         in_udp_off_i,
  input  wire logic [7:0]         in_bth_off_i,
  input  wire logic [15:0]        in_icrc_off_i,

  // Registered beat's frame
  output logic      [SlotW-1:0]   cur_slot_o,
  input  wire logic               cur_patch_i,
  input  wire logic [15:0]        cur_icrc_off_i,
  input  wire logic [2**SlotW-1:0] done_next_i,  // every slot's final-verdict bit after this edge

  // Beats out
  output logic                    out_valid_o,
  input  wire logic               out_ready_i,
  output logic      [128*LANES-1:0] out_data_o,
  output logic      [16*LANES-1:0]  out_keep_o,
  output logic                    out_last_o,
  output logic      [SlotW-1:0]   out_slot_o
);

  localparam int unsigned B  = 16 * LANES;  // bytes per beat
  localparam int unsigned LB = $clog2(B);

  // stage A: the beat feeds the CRC
  logic                 a_valid_q;
  logic [128*LANES-1:0] a_data_q;
  logic [16*LANES-1:0]  a_keep_q;
  logic                 a_last_q;
  logic [SlotW-1:0]     a_slot_q;
  logic [11:0]          a_k_q;
  logic                 a_ready;
  // stage U: the CRC and the patch lanes of the beat
  logic                 u_valid_q;
  logic                 u_fresh_q;   // first cycle in U: icrc_o is this beat's CRC
  logic [31:0]          crc_u_q;     // icrc_o of that cycle
  logic [128*LANES-1:0] u_data_q;
  logic [16*LANES-1:0]  u_keep_q;
  logic                 u_last_q;
  logic [SlotW-1:0]     u_slot_q;
  logic [11:0]          u_k_q;
  logic                 u_ready;
  logic [31:0]          u_crc;
  logic [B-1:0]         u_m;         // lanes of the ICRC field (none without cur_patch_i)
  logic [1:0]           u_d;         // CRC byte of lane i: (i - u_d) mod 4
  // stage P: the patch
  logic                 s_valid_q;
  logic [128*LANES-1:0] s_data_q;
  logic [16*LANES-1:0]  s_keep_q;
  logic                 s_last_q;
  logic [SlotW-1:0]     s_slot_q;
  logic [31:0]          s_crc_q;
  logic [B-1:0]         s_m_q;
  logic [1:0]           s_d_q;
  logic                 s_go, s_ready;
  logic [31:0]          crc_reg;
  logic [31:0]          unused_crc_stored;

  assign cur_slot_o = u_slot_q;

  roce_parse_icrc #(
    .LANES  (32'(LANES)),  // unsigned, as roce_parse passes it
    .Stored (1'b0)         // the patch writes the ICRC field, it does not read it
  ) u_icrc (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .beat_valid_i (in_valid_i && a_ready),
    .beat_data_i  (in_data_i),
    .beat_keep_i  (in_keep_i),
    .beat_base_i  (16'({4'h0, in_k_i} << LB)),
    .ipv6_i       (in_ipv6_i),
    .ip_off_i     (in_ip_off_i),
    .udp_off_i    (in_udp_off_i),
    .bth_off_i    (in_bth_off_i),
    .icrc_off_i   (in_icrc_off_i),
    .icrc_o       (crc_reg),
    .stored_o     (unused_crc_stored)
  );

  assign u_crc = u_fresh_q ? crc_reg : crc_u_q;

  // lanes [icrc_off, icrc_off + 4) of U's beat; CRC byte o - icrc_off = (i - d) mod 4
  always_comb begin
    logic [17:0] d;
    d   = rocesec_pkg::lane_rel({1'b0, cur_icrc_off_i}, 17'({5'h0, u_k_q} << LB));
    u_m = cur_patch_i ? B'(rocesec_pkg::lanes_ge(d) & ~rocesec_pkg::lanes_ge(d + 18'd4)) : '0;
    u_d = d[1:0];
  end

  always_comb begin
    logic [1:0] ib;
    out_data_o = s_data_q;
    for (int i = 0; i < B; i++) begin
      ib = 2'(i) - s_d_q;
      if (s_m_q[i]) out_data_o[8*i +: 8] = s_crc_q[8*ib +: 8];
    end
  end

  // The verdict bit of P's slot, registered (session 15; before, the caller's done bit was
  // read at P's slot, an 8-to-1 mux between P's slot register and out_valid_o that was the
  // verify emit's critical path, 43.8 MHz): the next done bit of U's slot and of P's slot is
  // registered every cycle, and which of them is P's follows whether the beat moved U -> P.
  logic done_u_q, done_s_q, moved_q, cur_done;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      done_u_q <= 1'b0;
      done_s_q <= 1'b0;
      moved_q  <= 1'b0;
    end else begin
      done_u_q <= done_next_i[u_slot_q];
      done_s_q <= done_next_i[s_slot_q];
      moved_q  <= s_ready && u_valid_q;
    end
  end

  assign cur_done    = moved_q ? done_u_q : done_s_q;
  assign out_valid_o = s_valid_q && (!s_last_q || cur_done);
  assign s_go        = out_valid_o && out_ready_i;
  assign s_ready     = !s_valid_q || s_go;
  assign u_ready     = !u_valid_q || s_ready;
  assign a_ready     = !a_valid_q || u_ready;
  assign in_ready_o  = a_ready;
  assign out_keep_o  = s_keep_q;
  assign out_last_o  = s_last_q;
  assign out_slot_o  = s_slot_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      a_valid_q <= 1'b0;
      u_valid_q <= 1'b0;
      s_valid_q <= 1'b0;
      u_fresh_q <= 1'b0;
    end else begin
      if (a_ready) a_valid_q <= in_valid_i;
      if (u_ready) u_valid_q <= a_valid_q;
      if (s_ready) s_valid_q <= u_valid_q;
      u_fresh_q <= u_ready && a_valid_q;
    end
  end

  always_ff @(posedge clk_i) begin
    if (a_ready && in_valid_i) begin
      a_data_q <= in_data_i;
      a_keep_q <= in_keep_i;
      a_last_q <= in_last_i;
      a_slot_q <= in_slot_i;
      a_k_q    <= in_k_i;
    end
    if (u_ready && a_valid_q) begin
      u_data_q <= a_data_q;
      u_keep_q <= a_keep_q;
      u_last_q <= a_last_q;
      u_slot_q <= a_slot_q;
      u_k_q    <= a_k_q;
    end
    if (u_fresh_q) crc_u_q <= crc_reg;
    if (s_ready && u_valid_q) begin
      s_data_q <= u_data_q;
      s_keep_q <= u_keep_q;
      s_last_q <= u_last_q;
      s_slot_q <= u_slot_q;
      s_crc_q  <= u_crc;
      s_m_q    <= u_m;
      s_d_q    <= u_d;
    end
  end

  logic unused_sig;
  assign unused_sig = ^{unused_crc_stored};

endmodule
