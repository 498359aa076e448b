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
// The multiplier has MulStages cycles of latency, so the chain is split into L = MulStages
// interleaved streams (block i in stream (i - 1) mod L): with e_i = min(L, n - i + 1),
//   Y_n = XOR_i X_i * H^(n-i+1) = XOR over streams of ((..(X_a * H^L ^ X_b) * H^L ..) ^ X_z) * H^e_z.
// Block i enters the multiplier as (X_i ^ P_{i-L}) * H^e_i, where P_{i-L} is the product of block
// i-L (zero for i <= L). For L = 2 only the last block uses H^1 and every other block H^2, so the
// exponent is known from in_last_i alone and no look-ahead buffer is needed; H^2 is a squaring
// (a linear XOR network) computed in the input stage, i.e. the H powers cost no extra cycle when
// H changes. The final value is P_n ^ P_{n-1} (P_{n-1} = 0 for n = 1). Per-stream products are
// held in registers, so idle cycles between blocks are allowed.
//
// MulStages = 3
// -------------
// Every block uses H^3 except X_{n-1} (H^2) and X_n (H^1); Y_n = P_n ^ P_{n-1} ^ P_{n-2}. Which
// block is X_{n-1} is known only when X_n arrives, so each block waits in a one-block hold
// register (look-ahead) until the next block arrives (then e = 2 if that one is last, else 3) or,
// if it is X_n itself, for one cycle (e = 1); one block enters and one leaves per cycle at most.
// H^3 = H * H^2 needs a multiplication: a second, feed-forward Karatsuba multiplier computes it
// from the H powers of the hold stage for every released block while the block travels two
// stages along (so packets may change H on every block, no stall). The loop is rebalanced instead
// of using ghash_mul: the Karatsuba operand split of X_i ^ P_{i-3} is done before the loop
// (ops() is linear: a just-in-time P_{i-3} is added as ops(P), registered by the reduction
// stage), so the three loop stages are products | recombination | reduction + ops(P).
//
// Timing
// ------
// MulStages 1, 2: input register (1) + multiplier (MulStages) + output register (1).
// MulStages 3: hold (1) + H^3 products (1) + H^3 recombination (1) + operand split (1) +
// multiplier (3) + output register (1) = 8.
// Counting the clock edge that accepts the last block as edge 1, out_valid_o/out_hash_o are
// registered by edge MulStages + 2 (MulStages 1, 2; 4 for the default 2) or edge 8 (MulStages 3).
// Throughput one block per clock, no stall, back-to-back packets allowed.
//
// Reset: valid flags, H, its powers (and their Karatsuba operands for MulStages = 3) and the stream
// registers (all key-derived) are cleared; pipeline data registers are not.

`resetall
`default_nettype none

module ghash_core #(
  parameter int unsigned MulStages = 2,  // multiplier pipeline depth = interleave factor (1..3)
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

  if (MulStages < 1 || MulStages > 3) begin : gen_param_check
    $error("ghash_core: MulStages must be 1, 2 or 3 (instance %m)");
  end

  if (MulStages <= 2) begin : gen_m12

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

    // The block and its tag load in every cycle, not only with in_valid_i: their one reader is
    // the multiplier, whose products carry in_valid_q along and are used only when it is set
    // (as ghash_mul's own data registers). With the enable, in_valid_i (the feed's block
    // decision, deep control) selected the D of 128 + TagWidth flip-flops; the feed's paths
    // into in_data_q were the deepest of the protect top at e8272a6 (17 cells).
    always_ff @(posedge clk_i) begin
      in_tag_q  <= in_tag_i;
      in_data_q <= in_data_i;
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

  end else begin : gen_m3

    // L = 3: see "MulStages = 3" in the header. Stages (block i, back to back):
    //   hd  hold / look-ahead (exponent decided on release)
    //   pa  power products  H * H^2 (27 Karatsuba products of the packet's H powers)
    //   pb  power recombination; ops(X_i ^ P_{i-3}) into op (P_{i-3} taken in pa or pb)
    //   op  multiplier operands: Karatsuba operand vectors of (X_i ^ F_i) and of H^e_i
    //   mp  27 products  (operand = op_x ^ bypass & ops(P_{i-3}))
    //   mc  recombination
    //   mo  reduction: P_i and ops(P_i)
    // Loop: mo -> (bypass) mp -> mc -> mo, three registers, no operand split inside it.

    localparam int unsigned OpsW = 432;  // 27 Karatsuba operands of 16 bits

    // Hold stage
    logic                hd_valid_q, hd_last_q;
    logic [1:0]          hd_stream_q;  // (i - 1) mod 3
    logic [1:0]          hd_pos_q;     // min(i - 1, 3)
    logic [TagWidth-1:0] hd_tag_q;
    logic [127:0]        hd_data_q;
    logic [127:0]        h_q, h2_q;          // H, H^2 of the packet in the hold stage
    logic [OpsW-1:0]     h_ops_q, h2_ops_q;  // their Karatsuba operands (polynomial order)
    logic [1:0]          blk_stream, blk_pos;
    logic                rel, rel_e1, rel_e3;

    // Power stages
    logic                pa_valid_q, pa_last_q, pa_e3_q;
    logic [1:0]          pa_stream_q, pa_pos_q;
    logic [TagWidth-1:0] pa_tag_q;
    logic [127:0]        pa_data_q, pa_b_q;  // X_i; H or H^2 (used unless e_i = 3)
    logic [836:0]        pa_prod_q;          // Karatsuba products of H * H^2
    logic                pb_valid_q, pb_last_q, pb_e3_q;
    logic [1:0]          pb_stream_q, pb_pos_q;
    logic [TagWidth-1:0] pb_tag_q;
    logic [127:0]        pb_b_q;
    logic [254:0]        pb_comb_q;          // H^3, unreduced
    logic                pa_byp_q, pa_sel_p_q, pa_sel_mo_q;  // one-hot feedback selects
    logic [2:0]          pa_sel_f_q;
    logic                fb_op, fb_mp, fb_mc;  // P_{i-3} now in op / mp / mc (release cycle)
    logic [127:0]        pb_xf_q;            // X_i ^ F_i (F_i taken in pa)
    logic                pb_byp_q, pb_sel_p_q;

    // Multiplier (operands, products, recombination, reduction)
    logic                op_valid_q, op_last_q, op_byp_q;
    logic [1:0]          op_stream_q, op_pos_q;
    logic [TagWidth-1:0] op_tag_q;
    logic [OpsW-1:0]     op_x_q, op_b_q, op_a;
    logic                mp_valid_q, mp_last_q;
    logic [1:0]          mp_stream_q, mp_pos_q;
    logic [TagWidth-1:0] mp_tag_q;
    logic [836:0]        mp_prod_q;
    logic                mc_valid_q, mc_last_q;
    logic [1:0]          mc_stream_q, mc_pos_q;
    logic [TagWidth-1:0] mc_tag_q;
    logic [254:0]        mc_comb_q;
    logic                mo_valid_q, mo_last_q;
    logic [1:0]          mo_stream_q, mo_pos_q;
    logic [TagWidth-1:0] mo_tag_q;
    logic [127:0]        mo_p_q;             // P_i (block order)
    logic [OpsW-1:0]     mo_ops_q;           // ops(P_i) (polynomial order), for the bypass
    logic [127:0]        fb_q [3];           // last product of each stream

    ////////////////
    // Hold stage //
    ////////////////

    // Stream (i - 1) mod 3 and position min(i - 1, 3) of the block being accepted; hd_stream_q and
    // hd_pos_q keep the values of the last accepted block after it has left.
    always_comb begin
      if (in_first_i) begin
        blk_stream = 2'd0;
        blk_pos    = 2'd0;
      end else begin
        blk_stream = (hd_stream_q == 2'd2) ? 2'd0 : hd_stream_q + 2'd1;
        blk_pos    = (hd_pos_q == 2'd3) ? 2'd3 : hd_pos_q + 2'd1;
      end
    end

    // A held block leaves when the next block arrives (then it is X_{n-1} iff that block is the
    // last: H^2, else H^3) or in the cycle after it arrived if it is X_n itself (H^1).
    assign rel    = hd_valid_q && (hd_last_q || in_valid_i);
    assign rel_e1 = hd_last_q;
    assign rel_e3 = !hd_last_q && !in_last_i;

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        hd_valid_q  <= 1'b0;
        hd_last_q   <= 1'b0;
        hd_stream_q <= 2'd0;
        hd_pos_q    <= 2'd0;
        h_q         <= '0;
        h2_q        <= '0;
        h_ops_q     <= '0;
        h2_ops_q    <= '0;
      end else begin
        if (in_valid_i) begin
          hd_valid_q  <= 1'b1;
          hd_last_q   <= in_last_i;
          hd_stream_q <= blk_stream;
          hd_pos_q    <= blk_pos;
          if (in_first_i) begin
            h_q      <= in_h_i;
            h2_q     <= ghash_pkg::ghash_sqr_fn(in_h_i);
            h_ops_q  <= ghash_pkg::ghash_kara_ops(ghash_pkg::ghash_rev(in_h_i));
            h2_ops_q <= ghash_pkg::ghash_kara_ops(ghash_pkg::ghash_rev(
                            ghash_pkg::ghash_sqr_fn(in_h_i)));
          end
        end else if (rel) begin
          hd_valid_q <= 1'b0;
        end
      end
    end

    always_ff @(posedge clk_i) begin
      if (in_valid_i) begin
        hd_tag_q  <= in_tag_i;
        hd_data_q <= in_data_i;
      end
    end

    //////////////////
    // Power stages //
    //////////////////

    // H^3 = H * H^2 for every released block (used when e_i = 3), computed from the H powers of
    // the hold stage while the block travels along: pa = products, pb = recombination, the
    // reduction goes into op_b. Where P_{i-3} is, decided in the release cycle from where block
    // i-3 is then (the only block of stream s in op..mc; X_1..X_3 have no feedback):
    //   in op -> P in mo when block i is in op: bypass (ops(P) added in mp);
    //   in mp -> P in mo when block i is in pb: XORed into op_x;
    //   in mc -> P in mo when block i is in pa: XORed into pb_xf;
    //   else  -> P in fb_q[s] when block i is in pa: XORed into pb_xf.
    // All selects are registered, so no compare sits in front of the 128-bit feedback muxes.
    assign fb_op = op_valid_q && (op_stream_q == hd_stream_q);
    assign fb_mp = mp_valid_q && (mp_stream_q == hd_stream_q);
    assign fb_mc = mc_valid_q && (mc_stream_q == hd_stream_q);

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        pa_valid_q  <= 1'b0;
        pb_valid_q  <= 1'b0;
        pa_byp_q    <= 1'b0;
        pa_sel_p_q  <= 1'b0;
        pa_sel_mo_q <= 1'b0;
        pa_sel_f_q  <= '0;
        pb_byp_q    <= 1'b0;
        pb_sel_p_q  <= 1'b0;
      end else begin
        pa_valid_q  <= rel;
        pb_valid_q  <= pa_valid_q;
        pa_byp_q    <= (hd_pos_q == 2'd3) && fb_op;
        pa_sel_p_q  <= (hd_pos_q == 2'd3) && !fb_op && fb_mp;
        pa_sel_mo_q <= (hd_pos_q == 2'd3) && !fb_op && !fb_mp && fb_mc;
        for (int s = 0; s < 3; s++) begin
          pa_sel_f_q[s] <= (hd_pos_q == 2'd3) && !fb_op && !fb_mp && !fb_mc
                           && (hd_stream_q == 2'(s));
        end
        pb_byp_q    <= pa_byp_q;
        pb_sel_p_q  <= pa_sel_p_q;
      end
    end

    always_ff @(posedge clk_i) begin
      pa_last_q   <= hd_last_q;
      pa_e3_q     <= rel_e3;
      pa_stream_q <= hd_stream_q;
      pa_pos_q    <= hd_pos_q;
      pa_tag_q    <= hd_tag_q;
      pa_data_q   <= hd_data_q;
      pa_b_q      <= rel_e1 ? h_q : h2_q;
      for (int k = 0; k < 27; k++) begin
        pa_prod_q[31 * k +: 31] <= ghash_pkg::ghash_clmul16(h_ops_q[16 * k +: 16],
                                                            h2_ops_q[16 * k +: 16]);
      end
      pb_last_q   <= pa_last_q;
      pb_e3_q     <= pa_e3_q;
      pb_stream_q <= pa_stream_q;
      pb_pos_q    <= pa_pos_q;
      pb_tag_q    <= pa_tag_q;
      pb_xf_q     <= pa_data_q ^ ({128{pa_sel_mo_q}} & mo_p_q) ^ ({128{pa_sel_f_q[0]}} & fb_q[0])
                               ^ ({128{pa_sel_f_q[1]}} & fb_q[1]) ^ ({128{pa_sel_f_q[2]}} & fb_q[2]);
      pb_b_q      <= pa_b_q;
      pb_comb_q   <= ghash_pkg::ghash_kara_combine(pa_prod_q);
    end

    ////////////////
    // Multiplier //
    ////////////////

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        op_valid_q <= 1'b0;
        mp_valid_q <= 1'b0;
        mc_valid_q <= 1'b0;
        mo_valid_q <= 1'b0;
      end else begin
        op_valid_q <= pb_valid_q;
        mp_valid_q <= op_valid_q;
        mc_valid_q <= mp_valid_q;
        mo_valid_q <= mc_valid_q;
      end
    end

    // ops() is linear: ops(X ^ F ^ P) = ops(X ^ F) ^ ops(P).
    assign op_a = op_x_q ^ ({OpsW{op_byp_q}} & mo_ops_q);

    always_ff @(posedge clk_i) begin
      op_last_q   <= pb_last_q;
      op_byp_q    <= pb_byp_q;
      op_stream_q <= pb_stream_q;
      op_pos_q    <= pb_pos_q;
      op_tag_q    <= pb_tag_q;
      op_x_q      <= ghash_pkg::ghash_kara_ops(ghash_pkg::ghash_rev(
                         pb_xf_q ^ ({128{pb_sel_p_q}} & mo_p_q)));
      op_b_q      <= pb_e3_q ? ghash_pkg::ghash_kara_ops(ghash_pkg::ghash_reduce(pb_comb_q))
                             : ghash_pkg::ghash_kara_ops(ghash_pkg::ghash_rev(pb_b_q));
      mp_last_q   <= op_last_q;
      mp_stream_q <= op_stream_q;
      mp_pos_q    <= op_pos_q;
      mp_tag_q    <= op_tag_q;
      for (int k = 0; k < 27; k++) begin
        mp_prod_q[31 * k +: 31] <= ghash_pkg::ghash_clmul16(op_a[16 * k +: 16],
                                                            op_b_q[16 * k +: 16]);
      end
      mc_last_q   <= mp_last_q;
      mc_stream_q <= mp_stream_q;
      mc_pos_q    <= mp_pos_q;
      mc_tag_q    <= mp_tag_q;
      mc_comb_q   <= ghash_pkg::ghash_kara_combine(mp_prod_q);
      mo_last_q   <= mc_last_q;
      mo_stream_q <= mc_stream_q;
      mo_pos_q    <= mc_pos_q;
      mo_tag_q    <= mc_tag_q;
      mo_p_q      <= ghash_pkg::ghash_rev(ghash_pkg::ghash_reduce(mc_comb_q));
      mo_ops_q    <= ghash_pkg::ghash_kara_ops(ghash_pkg::ghash_reduce(mc_comb_q));
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        fb_q[0] <= '0;
        fb_q[1] <= '0;
        fb_q[2] <= '0;
      end else if (mo_valid_q) begin
        fb_q[mo_stream_q] <= mo_p_q;
      end
    end

    /////////////
    // Outputs //
    /////////////

    // Y_n = P_n ^ P_{n-1} ^ P_{n-2} (those that exist); P_{n-1} and P_{n-2} left mo at least one
    // and two cycles earlier and sit in fb_q of streams s - 1 and s - 2 (mod 3).
    logic [1:0] s_m1, s_m2;
    assign s_m1 = (mo_stream_q == 2'd0) ? 2'd2 : mo_stream_q - 2'd1;
    assign s_m2 = (s_m1 == 2'd0) ? 2'd2 : s_m1 - 2'd1;

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        out_valid_o <= 1'b0;
        out_hash_o  <= '0;
      end else begin
        out_valid_o <= mo_valid_q && mo_last_q;
        if (mo_valid_q && mo_last_q) begin
          out_hash_o <= mo_p_q ^ ((mo_pos_q >= 2'd1) ? fb_q[s_m1] : 128'h0)
                               ^ ((mo_pos_q >= 2'd2) ? fb_q[s_m2] : 128'h0);
        end
      end
    end

    always_ff @(posedge clk_i) begin
      if (mo_valid_q && mo_last_q) out_tag_o <= mo_tag_q;
    end

  end

endmodule

`resetall
