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
// The multiply takes L = MulStages clock stages, so the chain is split into L interleaved
// streams (block i in stream (i-1) mod L): with e_i = min(L, n - i + 1),
//   Y_n = XOR_i X_i * H^(n-i+1),   block i is multiplied as (X_i ^ P_{i-L}) * H^e_i,
// where P_{i-L} is the product of block i-L of the same stream (zero for i <= L). For L = 2 only
// the last block uses H^1 and every other block H^2, so the exponent is known from in_last_i
// alone (no look-ahead, n need not be known in advance); H^2 is a squaring (linear, a shallow XOR
// network) computed in the input stage, so an H change costs no cycle. Y_n = P_n ^ P_{n-1}.
//
// Datapath
// --------
// The multiply is the three-level Karatsuba of ghash_pkg (27 products of 16-bit operands). The
// operand split is linear, ops(X ^ P) = ops(X) ^ ops(P), so it is taken out of the feedback loop:
//   input stage : ops(X_i), ops(H), ops(H^2), one-hot feedback selects          (registered)
//   stage A     : a = ops(X_i) ^ ops(P_{i-L}); 27 x clmul16(a, ops(H^e_i))       (registered)
//   stage B     : P_i = reduce(combine(.)); per-stream registers <= P_i, ops(P_i)
//   stage C     : out_hash_o <= P_n ^ P_{n-1} (from the stream registers)
// The per-stream registers are written at the end of stage B, in time for block i+L entering
// stage A back to back, so no bypass mux sits in the loop. (A first version fed X ^ P through a
// bypass mux into ghash_mul: 74 MHz, then 92 MHz with registered selects.) MulStages = 1 merges
// stages A and B (no product register).
//
// Timing
// ------
// out_valid_o/out_hash_o are registered MulStages + 2 clock edges after the edge that accepted
// the last block, counting that edge as 1 (4 for MulStages = 2, rocesec_pkg::GhashLatency). One block per clock, no stall,
// back-to-back packets and arbitrary idle cycles allowed.
//
// Reset: valid flags and everything derived from H (H powers, stream registers) are cleared.

`resetall
`default_nettype none

module ghash_core #(
  parameter int unsigned MulStages = 2,  // multiply stages = interleave factor (1 or 2)
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

  /////////////
  // Signals //
  /////////////

  // Input stage (block i)
  logic                in_valid_q, in_first_q, in_last_q, in_stream_q;
  logic [TagWidth-1:0] in_tag_q;
  logic [431:0]        x_ops_q;            // Karatsuba operands of X_i
  logic [431:0]        h_ops_q, h2_ops_q;  // of H and H^2 (polynomial order)
  logic                sel0_q, sel1_q;     // XOR in stream register 0 / 1
  logic                pos_q, pos_d;
  logic                blk_nofb, blk_stream;

  // Stage A
  logic [431:0]        a_ops, b_ops;
  logic [836:0]        prod_d;

  // Stage B (block that finished stage A)
  logic                b_valid, b_first, b_last, b_stream;
  logic [TagWidth-1:0] b_tag;
  logic [836:0]        b_prod;
  logic [127:0]        b_p;                // P_i, polynomial order

  // Stream registers: P and ops(P)
  logic [127:0]        p_q     [2];
  logic [431:0]        p_ops_q [2];

  /////////////////
  // Input stage //
  /////////////////

  // Position in the packet: blocks 1..L have no feedback; block i is in stream (i-1) mod L.
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

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_valid_q  <= 1'b0;
      in_first_q  <= 1'b0;
      in_last_q   <= 1'b0;
      in_stream_q <= 1'b0;
      sel0_q      <= 1'b0;
      sel1_q      <= 1'b0;
      pos_q       <= 1'b0;
      h_ops_q     <= '0;
      h2_ops_q    <= '0;
    end else begin
      in_valid_q <= in_valid_i;
      if (in_valid_i) begin
        in_first_q  <= in_first_i;
        in_last_q   <= in_last_i;
        in_stream_q <= blk_stream;
        sel0_q      <= !blk_nofb && (blk_stream == 1'b0);
        sel1_q      <= !blk_nofb && (blk_stream == 1'b1);
        pos_q       <= pos_d;
        if (in_first_i) begin
          h_ops_q  <= ghash_pkg::ghash_kara_ops(ghash_pkg::ghash_rev(in_h_i));
          h2_ops_q <= ghash_pkg::ghash_kara_ops(ghash_pkg::ghash_rev(
                          ghash_pkg::ghash_sqr_fn(in_h_i)));
        end
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (in_valid_i) begin
      in_tag_q <= in_tag_i;
      x_ops_q  <= ghash_pkg::ghash_kara_ops(ghash_pkg::ghash_rev(in_data_i));
    end
  end

  /////////////
  // Stage A //
  /////////////

  assign a_ops = x_ops_q ^ ({432{sel0_q}} & p_ops_q[0]) ^ ({432{sel1_q}} & p_ops_q[1]);
  assign b_ops = (L == 1 || in_last_q) ? h_ops_q : h2_ops_q;

  always_comb begin
    for (int k = 0; k < 27; k++) begin
      prod_d[31 * k +: 31] = ghash_pkg::ghash_clmul16(a_ops[16 * k +: 16], b_ops[16 * k +: 16]);
    end
  end

  if (L == 2) begin : gen_stage_a_reg
    logic                valid_q, first_q, last_q, stream_q;
    logic [TagWidth-1:0] tag_q;
    logic [836:0]        prod_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) valid_q <= 1'b0;
      else         valid_q <= in_valid_q;
    end
    always_ff @(posedge clk_i) begin
      first_q  <= in_first_q;
      last_q   <= in_last_q;
      stream_q <= in_stream_q;
      tag_q    <= in_tag_q;
      prod_q   <= prod_d;
    end
    assign {b_valid, b_first, b_last, b_stream, b_tag, b_prod} =
        {valid_q, first_q, last_q, stream_q, tag_q, prod_q};
  end else begin : gen_stage_a_comb
    assign {b_valid, b_first, b_last, b_stream, b_tag, b_prod} =
        {in_valid_q, in_first_q, in_last_q, in_stream_q, in_tag_q, prod_d};
  end

  /////////////
  // Stage B //
  /////////////

  assign b_p = ghash_pkg::ghash_reduce(ghash_pkg::ghash_kara_combine(b_prod));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      p_q[0]     <= '0;
      p_q[1]     <= '0;
      p_ops_q[0] <= '0;
      p_ops_q[1] <= '0;
    end else if (b_valid) begin
      p_q[b_stream]     <= b_p;
      p_ops_q[b_stream] <= ghash_pkg::ghash_kara_ops(b_p);
    end
  end

  /////////////
  // Outputs //
  /////////////

  // Stage C: one cycle after block n left stage B, p_q[stream_n] = P_n and the other stream's
  // register holds P_{n-1} (n >= 2, L = 2); Y_n = P_n ^ P_{n-1}. Keeping this XOR out of stage B
  // also keeps the latency at MulStages + 2 (rocesec_pkg::GhashLatency).
  logic                c_valid_q, c_first_q, c_stream_q;
  logic [TagWidth-1:0] c_tag_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      c_valid_q   <= 1'b0;
      c_first_q   <= 1'b0;
      c_stream_q  <= 1'b0;
      out_valid_o <= 1'b0;
      out_hash_o  <= '0;
    end else begin
      c_valid_q <= b_valid && b_last;
      if (b_valid && b_last) begin
        c_first_q  <= b_first;
        c_stream_q <= b_stream;
      end
      out_valid_o <= c_valid_q;
      if (c_valid_q) begin
        out_hash_o <= ghash_pkg::ghash_rev(p_q[c_stream_q] ^
                                           ((L == 2 && !c_first_q) ? p_q[~c_stream_q] : 128'h0));
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (b_valid && b_last) c_tag_q <= b_tag;
    if (c_valid_q) out_tag_o <= c_tag_q;
  end

endmodule

`resetall
