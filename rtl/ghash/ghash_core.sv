// SPDX-License-Identifier: Apache-2.0
//
// ghash_core: GHASH_H over a packet at one block per clock with a per-packet hash subkey H.
//
// Data format
// -----------
// in_data_i, in_h_i and out_hash_o are blocks with byte b0 in bits [127:120] (SP 800-38D §6.1).
// A packet is the block sequence X_1..X_n (first flag on X_1, last flag on X_n; a one-block packet
// has both); out_hash_o = GHASH_H(X_1..X_n) = Y_n with Y_0 = 0, Y_i = (Y_{i-1} ^ X_i) * H
// (SP 800-38D §6.4, Algorithm 2). The caller supplies padded AAD/ciphertext blocks and the length
// block [len(A)]_64 || [len(C)]_64 as X_n, exactly like rocesec_model::ghash::Ghash::update_block.
// in_h_i is sampled with the first block; packets may change H every time.
//
// Aggregation
// -----------
// The multiplier (ghash_mul) has MulStages cycles of latency, so the chain is split into L =
// MulStages interleaved streams (block i in stream i mod L): with e_i = min(L, n - i + 1),
//   Y_n = XOR_i X_i * H^(n-i+1) = XOR over streams of ((..(X_a * H^L ^ X_b) * H^L ..) ^ X_z) * H^e_z.
// Block i enters the multiplier as (X_i ^ P_{i-L}) * H^e_i, where P_{i-L} is the product of block
// i-L (zero for i <= L). For L = 2 only the last block uses H^1 and every other block H^2, so the
// exponent is known from in_last_i alone and no look-ahead buffer is needed; H^2 is a squaring
// (a linear XOR network) computed in the input stage, i.e. the H powers cost no extra cycle when
// H changes. The final value is P_n ^ P_{n-1} (P_{n-1} = 0 for n = 1). Per-stream products are
// held in registers, so idle cycles between blocks are allowed. Supported: MulStages = 1 or 2.
//
// Timing
// ------
// Input register (1) + multiplier (MulStages) + output register (1): out_valid_o rises
// MulStages + 2 cycles after the clock edge that accepted the last block (4 for MulStages = 2).
// Throughput one block per clock, no stall, back-to-back packets allowed.
//
// Reset: valid flags, H, H^2 and the stream registers (all key-derived) are cleared.

`resetall
`default_nettype none

module ghash_core #(
  parameter int unsigned MulStages = 2,  // multiplier pipeline depth = interleave factor (1 or 2)
  parameter int unsigned TagWidth  = 8   // sideband carried from the last block to the hash
) (
  input  wire logic                clk_i,
  input  wire logic                rst_ni,

  // Blocks
  input  wire logic                in_valid_i,
  input  wire logic                in_first_i,  // X_1 (samples in_h_i)
  input  wire logic                in_last_i,   // X_n
  input  wire logic [TagWidth-1:0] in_tag_i,    // sampled with the last block
  input  wire logic [127:0]        in_data_i,   // X_i
  input  wire logic [127:0]        in_h_i,      // H, valid with in_first_i

  // Hash
  output logic                     out_valid_o,
  output logic      [TagWidth-1:0] out_tag_o,
  output logic      [127:0]        out_hash_o   // GHASH_H(X_1..X_n)
);

  if (MulStages != 1 && MulStages != 2) begin : gen_param_check
    $error("ghash_core: MulStages must be 1 or 2 (instance %m)");
  end

  localparam int unsigned L = MulStages;
  localparam int unsigned MulTagW = TagWidth + 3;  // {tag, stream, first, last}

  /////////////
  // Signals //
  /////////////

  // Input stage
  logic                in_valid_q, in_first_q, in_last_q, in_stream_q;
  logic [TagWidth-1:0] in_tag_q;
  logic [127:0]        in_data_q;
  logic [127:0]        h_q, h2_q;       // H and H^2 of the packet in the input stage
  logic                pos_q;           // packet position so far: 0 = next block is X_2
  logic                pos_d;

  // Multiplier
  logic                mul_valid;
  logic [MulTagW-1:0]  mul_tag_in, mul_tag;
  logic [127:0]        mul_a, mul_b, mul_p;
  logic                mo_stream, mo_first, mo_last;
  logic [TagWidth-1:0] mo_tag;

  // Stream products P and feedback selects for the block in the input stage
  logic [127:0]        fb_q [2];
  logic                fb_sel_p_q, fb_sel_q0_q, fb_sel_q1_q;
  logic                fb_bypass_d;
  logic                ent_valid_q, ent_stream_q;  // block that entered the multiplier last cycle

  /////////////////
  // Input stage //
  /////////////////

  // Position within the packet: blocks 1 and 2 (1 only for L = 1) have no feedback; the stream of
  // block i is (i - 1) mod L. pos_q counts 0 (after X_1), 1 (after X_2 or later) and is only
  // meaningful inside a packet.
  logic blk_nofb, blk_stream;
  always_comb begin
    if (in_first_i) begin
      blk_nofb   = 1'b1;
      blk_stream = 1'b0;
      pos_d      = 1'b0;
    end else begin
      blk_nofb   = (L == 2) && !pos_q;
      blk_stream = (L == 2) ? ~in_stream_q : 1'b0;
      pos_d      = 1'b1;
    end
  end

  // Will the predecessor's product of the block now being accepted emerge from the multiplier in
  // the very cycle this block enters it? The product emerging at cycle t belongs to the block that
  // was in the input stage at t - L (L = 2: ent_*; L = 1: in_*_q).
  assign fb_bypass_d = (L == 2) ? (ent_valid_q && (ent_stream_q == blk_stream))
                                : (in_valid_q && (in_stream_q == blk_stream));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fb_sel_p_q   <= 1'b0;
      fb_sel_q0_q  <= 1'b0;
      fb_sel_q1_q  <= 1'b0;
      ent_valid_q  <= 1'b0;
      ent_stream_q <= 1'b0;
    end else begin
      ent_valid_q  <= in_valid_q;
      ent_stream_q <= in_stream_q;
      if (in_valid_i) begin
        fb_sel_p_q  <= !blk_nofb && fb_bypass_d;
        fb_sel_q0_q <= !blk_nofb && !fb_bypass_d && (blk_stream == 1'b0);
        fb_sel_q1_q <= !blk_nofb && !fb_bypass_d && (blk_stream == 1'b1);
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_valid_q  <= 1'b0;
      in_first_q  <= 1'b0;
      in_last_q   <= 1'b0;
      in_stream_q <= 1'b0;
      pos_q       <= 1'b0;
      h_q         <= '0;
      h2_q        <= '0;
    end else begin
      in_valid_q <= in_valid_i;
      if (in_valid_i) begin
        in_first_q  <= in_first_i;
        in_last_q   <= in_last_i;
        in_stream_q <= blk_stream;
        pos_q       <= pos_d;
        if (in_first_i) begin
          h_q  <= in_h_i;
          h2_q <= ghash_pkg::ghash_sqr_fn(in_h_i);
        end
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (in_valid_i) begin
      in_tag_q  <= in_tag_i;
      in_data_q <= in_data_i;
    end
  end

  //////////////////////////
  // Multiplier + streams //
  //////////////////////////

  // Feedback P_{i-L}: the product emerging now (bypass, back-to-back blocks) or the held stream
  // register, or nothing (first L blocks). The one-hot selects are registered one cycle ahead so
  // that no compare sits in front of the 128-bit select (P&R showed the combinational bypass
  // compare + mux as the critical path at 74 MHz).
  assign mul_a = in_data_q ^ ({128{fb_sel_p_q}}  & mul_p)
                           ^ ({128{fb_sel_q0_q}} & fb_q[0])
                           ^ ({128{fb_sel_q1_q}} & fb_q[1]);

  assign mul_b      = (L == 1 || in_last_q) ? h_q : h2_q;
  assign mul_tag_in = {in_tag_q, in_stream_q, in_first_q, in_last_q};

  ghash_mul #(
    .NumStages (MulStages),
    .TagWidth  (MulTagW)
  ) u_mul (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .valid_i (in_valid_q),
    .tag_i   (mul_tag_in),
    .a_i     (mul_a),
    .b_i     (mul_b),
    .valid_o (mul_valid),
    .tag_o   (mul_tag),
    .p_o     (mul_p)
  );

  assign {mo_tag, mo_stream, mo_first, mo_last} = mul_tag;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fb_q[0] <= '0;
      fb_q[1] <= '0;
    end else if (mul_valid) begin
      fb_q[mo_stream] <= mul_p;
    end
  end

  /////////////
  // Outputs //
  /////////////

  // Y_n = P_n ^ P_{n-1}; P_{n-1} sits in the other stream's register (n >= 2, L = 2).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      out_valid_o <= 1'b0;
      out_hash_o  <= '0;
    end else begin
      out_valid_o <= mul_valid && mo_last;
      if (mul_valid && mo_last) begin
        out_hash_o <= mul_p ^ ((L == 2 && !mo_first) ? fb_q[~mo_stream] : 128'h0);
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (mul_valid && mo_last) out_tag_o <= mo_tag;
  end

endmodule

`resetall
