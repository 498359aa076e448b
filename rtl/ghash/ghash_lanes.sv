// SPDX-License-Identifier: Apache-2.0
//
// ghash_lanes: GHASH_H over a message at one beat of LANES blocks per clock (LANES = 1, 2, 4),
// per-message hash subkey H, aggregated reduction.
//
// Data format
// -----------
// in_data_i[128*j +: 128] is block j of the beat (lane j; lane 0 is the earliest block in message
// order), each block with byte b0 in bits [127:120] of its lane (SP 800-38D §6.1, as ghash_core).
// in_keep_i[j] marks block j valid; all ones except on the last beat of a message, where it is
// contiguous from lane 0 (2^n - 1, n = 1..LANES). A message X_1..X_N is a sequence of beats
// (in_first_i on the first, in_last_i on the last; a one-beat message has both); out_hash_o =
// GHASH_H(X_1..X_N) = Y_N, Y_0 = 0, Y_i = (Y_{i-1} ^ X_i) * H (SP 800-38D §6.4, Algorithm 2),
// equal to rocesec_model::ghash::Ghash::update_block over the blocks. in_h_i (H, as a block) is
// sampled with in_first_i; every message may use a different H.
//
// Aggregation
// -----------
// Per beat t with blocks B_{t,0..n-1}: X' = (X ^ B_0) * H^n ^ B_1 * H^(n-1) ^ .. ^ B_{n-1} * H.
// The multiply has two pipeline stages, so the recurrence is unrolled by two beats: beats go to
// two interleaved streams (even/odd beat of the message) and block j of beat t is multiplied by
//   H^(2*LANES - j)      steady state (its sum is added into lane 0 of beat t+2),
//   H^(n + LANES - j)    if beat t+1 is the last beat (n valid blocks),
//   H^(n - j)            if beat t is the last beat (lanes j >= n are zeroed),
// and Y_N = P_T ^ P_{T-1}, P_t being the sum of the products of beat t. Which of the three applies
// is known only when the next beat (or the last flag) arrives, so each beat waits in a one-beat
// look-ahead register until then: this adds one cycle of latency, never a stall.
// The LANES products of a beat are summed before recombination and reduction (both linear), so
// the datapath is one Karatsuba product stage per lane (ghash_pkg, 27 x 16-bit products each), a
// LANES-way XOR of the 837-bit product vectors, one recombination and one reduction.
//
// Powers of H
// -----------
// H^1..H^(2*LANES) are computed per message by a pipelined power unit (ghash_mul, NumStages = 2)
// that takes in_h_i with the first beat, while the beats pass a delay line of PowLat registers:
//   LANES = 1: H, H^2 (squaring)                                      PowLat = 0
//   LANES = 2: + H^3 = H * H^2, H^4 = (H^2)^2                         PowLat = 2 (1 multiplier)
//   LANES = 4: + H^5 = H * H^4, H^6 = (H^3)^2, H^7 = H^3 * H^4, H^8   PowLat = 4 (3 multipliers)
// Squarings are linear XOR networks. The unit accepts a new H every cycle, so back-to-back
// messages with different H (down to one beat each) never stall: the power computation overlaps
// the previous message completely and costs PowLat cycles of latency. With PowersIn = 1 the powers
// are inputs instead (in_hpow_i with the first beat, e.g. cached with the key): no power unit, no
// delay line, PowLat = 0.
//
// Timing
// ------
// Valid-only interface (no backpressure), one beat per clock sustained, arbitrary idle cycles.
// out_valid_o rises Latency cycles after the edge that accepted the last beat, counting that edge
// as 1: delay line (PowLat) + look-ahead (1, not for LANES = 1) + multiplier input (1) + products
// (1) + sum (1) + output (1), i.e. 4, 7, 9 for LANES = 1, 2, 4 (LANES = 1: as ghash_core), and
// 4, 5, 5 with PowersIn = 1.
//
// Reset: valid flags, the power registers and the stream registers are cleared.
//
// Sources: NIST SP 800-38D §6.3 (multiplication), §6.4 (GHASH); aggregated reduction as in
// Gueron & Kounavis, "Intel Carry-Less Multiplication Instruction and its Usage for Computing the
// GCM Mode" (2010), §"aggregated reduction".

`resetall
`default_nettype none

module ghash_lanes #(
  parameter int unsigned LANES    = 4,  // blocks per beat: 1, 2 or 4
  parameter int unsigned TagWidth = 8,  // sideband carried from the last beat to the hash
  parameter int unsigned PowersIn = 0   // 1: H^1..H^(2*LANES) come on in_hpow_i (no power unit)
) (
  input  wire logic                   clk_i,
  input  wire logic                   rst_ni,

  // Beats
  input  wire logic                   in_valid_i,
  input  wire logic                   in_first_i,  // first beat (samples in_h_i)
  input  wire logic                   in_last_i,   // last beat
  input  wire logic [LANES-1:0]       in_keep_i,   // valid blocks (all ones unless last)
  input  wire logic [TagWidth-1:0]    in_tag_i,    // sampled with the last beat
  input  wire logic [128*LANES-1:0]   in_data_i,   // lane j = block j of the beat
  input  wire logic [127:0]           in_h_i,      // H, valid with in_first_i (PowersIn = 0)
  input  wire logic [256*LANES-1:0]   in_hpow_i,   // H^k in [128*(k-1) +: 128] (PowersIn = 1)

  // Hash
  output logic                        out_valid_o,
  output logic      [TagWidth-1:0]    out_tag_o,
  output logic      [127:0]           out_hash_o   // GHASH_H(X_1..X_N)
);

  if (LANES != 1 && LANES != 2 && LANES != 4) begin : gen_param_check
    $error("ghash_lanes: LANES must be 1, 2 or 4 (instance %m)");
  end

  localparam int unsigned NumPow = 2 * LANES;                          // H^1..H^NumPow
  localparam int unsigned PowLat = (PowersIn != 0 || LANES == 1) ? 0 : (LANES == 2) ? 2 : 4;
  localparam int unsigned DlyW   = 2 + LANES + TagWidth + 128 * LANES; // {first,last,keep,tag,data}
  localparam int unsigned CntW   = 3;                                  // holds 0..LANES

  /////////////
  // Signals //
  /////////////

  // Beat after the delay line (aligned with its powers)
  logic                   dv;
  logic [DlyW-1:0]        dbeat;
  logic                   dfirst, dlast;
  logic [LANES-1:0]       dkeep;
  logic [TagWidth-1:0]    dtag;
  logic [128*LANES-1:0]   ddata;
  logic [128*NumPow-1:0]  pw_src;     // H^k in [128*(k-1) +: 128], valid with a delayed first

  // Look-ahead register (a pass-through for LANES = 1)
  logic                   la_first, la_last;
  logic [LANES-1:0]       la_keep;
  logic [TagWidth-1:0]    la_tag;
  logic [128*LANES-1:0]   la_data;
  logic [128*NumPow-1:0]  pw_q;       // powers of the message in the look-ahead register
  logic [128*NumPow-1:0]  pw_cur;     // powers of the beat in the look-ahead register
  logic                   release_d;  // the look-ahead beat moves to the multiplier input

  // Multiplier input
  logic                   mi_valid_q, mi_first_q, mi_last_q, mi_stream_q;
  logic [TagWidth-1:0]    mi_tag_q;
  logic [128*LANES-1:0]   mi_a_q, mi_b_q;
  logic [128*LANES-1:0]   mi_a_d, mi_b_d;
  logic                   pos_q, pos_d;              // 0: the next beat is the message's second
  logic                   rel_nofb, rel_stream;
  logic                   fb_sel_p_q, fb_sel_s0_q, fb_sel_s1_q;
  logic                   fb_bypass_d;
  logic                   ent_valid_q, ent_stream_q; // beat in the multiplier input a cycle ago

  // Products and sum
  logic [837*LANES-1:0]   prod_q;
  logic                   pr_valid_q, pr_first_q, pr_last_q, pr_stream_q;
  logic [TagWidth-1:0]    pr_tag_q;
  logic [836:0]           prod_sum;
  logic [127:0]           sum_q;
  logic                   sum_valid_q, sum_first_q, sum_last_q, sum_stream_q;
  logic [TagWidth-1:0]    sum_tag_q;
  logic [127:0]           fb_q [2];                  // P of the latest beat of each stream
  logic [127:0]           fb;

  ////////////////
  // Delay line //
  ////////////////

  // PowLat stages of {valid, first, last, keep, tag, data}, so that a first beat leaves the line in
  // the cycle its powers leave the power unit.
  if (PowLat == 0) begin : gen_no_dly
    assign dv    = in_valid_i;
    assign dbeat = {in_first_i, in_last_i, in_keep_i, in_tag_i, in_data_i};
  end else begin : gen_dly
    logic [PowLat-1:0]      dly_valid_q;
    logic [DlyW*PowLat-1:0] dly_q;   // stage s in [DlyW*s +: DlyW]
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) dly_valid_q <= '0;
      else         dly_valid_q <= {dly_valid_q[PowLat-2:0], in_valid_i};
    end
    always_ff @(posedge clk_i) begin
      dly_q <= {dly_q[DlyW*(PowLat-1)-1:0], in_first_i, in_last_i, in_keep_i, in_tag_i, in_data_i};
    end
    assign dv    = dly_valid_q[PowLat-1];
    assign dbeat = dly_q[DlyW*(PowLat-1) +: DlyW];
  end

  assign {dfirst, dlast, dkeep, dtag, ddata} = dbeat;

  ////////////////
  // Power unit //
  ////////////////

  if (PowersIn != 0) begin : gen_pow_in
    logic unused_h;
    assign unused_h = ^in_h_i;
    assign pw_src   = in_hpow_i;
  end else if (LANES == 1) begin : gen_pow_1
    logic unused_hpow;
    assign unused_hpow = ^in_hpow_i;
    assign pw_src      = {ghash_pkg::ghash_sqr_fn(in_h_i), in_h_i};
  end else if (LANES == 2) begin : gen_pow_2
    logic unused_hpow;
    assign unused_hpow = ^in_hpow_i;
    // Edge 0: H^3 product stage, H and H^2 registered; edge 1: H^3 out, H^4 = (H^2)^2.
    logic [127:0] h_a_q, h2_a_q, h_b_q, h2_b_q, h4_b_q, h3;
    logic         unused_v;
    logic         unused_t;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        h_a_q  <= '0;
        h2_a_q <= '0;
        h_b_q  <= '0;
        h2_b_q <= '0;
        h4_b_q <= '0;
      end else begin
        h_a_q  <= in_h_i;
        h2_a_q <= ghash_pkg::ghash_sqr_fn(in_h_i);
        h_b_q  <= h_a_q;
        h2_b_q <= h2_a_q;
        h4_b_q <= ghash_pkg::ghash_sqr_fn(h2_a_q);
      end
    end
    ghash_mul #(
      .NumStages (2),
      .TagWidth  (1)
    ) u_pow3 (
      .clk_i   (clk_i),
      .rst_ni  (rst_ni),
      .valid_i (1'b0),
      .tag_i   (1'b0),
      .a_i     (in_h_i),
      .b_i     (ghash_pkg::ghash_sqr_fn(in_h_i)),
      .valid_o (unused_v),
      .tag_o   (unused_t),
      .p_o     (h3)
    );
    assign pw_src = {h4_b_q, h3, h2_b_q, h_b_q};
  end else begin : gen_pow_4
    logic unused_hpow;
    assign unused_hpow = ^in_hpow_i;
    // Edge 0: H^3, H^5 product stage, H, H^2, H^4 registered; edge 1: H^3, H^5 out, H^8;
    // edge 2: H^7 = H^3 * H^4 product stage, H^6 = (H^3)^2; edge 3: H^7 out.
    // h<k>_q: H^k in [128*s +: 128] after stage s.
    logic [511:0] h1_q, h2_q, h4_q;
    logic [383:0] h8_q;
    logic [255:0] h3_q, h5_q, h6_q;
    logic [127:0] h3, h5, h7;
    logic [2:0]   unused_v;
    logic [2:0]   unused_t;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        h1_q <= '0;
        h2_q <= '0;
        h4_q <= '0;
        h8_q <= '0;
        h3_q <= '0;
        h5_q <= '0;
        h6_q <= '0;
      end else begin
        h1_q <= {h1_q[383:0], in_h_i};
        h2_q <= {h2_q[383:0], ghash_pkg::ghash_sqr_fn(in_h_i)};
        h4_q <= {h4_q[383:0], ghash_pkg::ghash_sqr_fn(ghash_pkg::ghash_sqr_fn(in_h_i))};
        h8_q <= {h8_q[255:0], ghash_pkg::ghash_sqr_fn(h4_q[127:0])};
        h3_q <= {h3_q[127:0], h3};
        h5_q <= {h5_q[127:0], h5};
        h6_q <= {h6_q[127:0], ghash_pkg::ghash_sqr_fn(h3)};
      end
    end
    ghash_mul #(
      .NumStages (2),
      .TagWidth  (1)
    ) u_pow3 (
      .clk_i   (clk_i),
      .rst_ni  (rst_ni),
      .valid_i (1'b0),
      .tag_i   (1'b0),
      .a_i     (in_h_i),
      .b_i     (ghash_pkg::ghash_sqr_fn(in_h_i)),
      .valid_o (unused_v[0]),
      .tag_o   (unused_t[0]),
      .p_o     (h3)
    );
    ghash_mul #(
      .NumStages (2),
      .TagWidth  (1)
    ) u_pow5 (
      .clk_i   (clk_i),
      .rst_ni  (rst_ni),
      .valid_i (1'b0),
      .tag_i   (1'b0),
      .a_i     (in_h_i),
      .b_i     (ghash_pkg::ghash_sqr_fn(ghash_pkg::ghash_sqr_fn(in_h_i))),
      .valid_o (unused_v[1]),
      .tag_o   (unused_t[1]),
      .p_o     (h5)
    );
    // Sampled at edge 2: H^3 (out at edge 1) and H^4 (stage 1).
    ghash_mul #(
      .NumStages (2),
      .TagWidth  (1)
    ) u_pow7 (
      .clk_i   (clk_i),
      .rst_ni  (rst_ni),
      .valid_i (1'b0),
      .tag_i   (1'b0),
      .a_i     (h3),
      .b_i     (h4_q[255:128]),
      .valid_o (unused_v[2]),
      .tag_o   (unused_t[2]),
      .p_o     (h7)
    );
    assign pw_src = {h8_q[383:256], h7, h6_q[255:128], h5_q[255:128], h4_q[511:384],
                     h3_q[255:128], h2_q[511:384], h1_q[511:384]};
  end

  ////////////////
  // Look-ahead //
  ////////////////

  // A beat leaves the look-ahead register when it is the last of its message (the cycle after it
  // arrived) or when the next beat arrives; only then are its exponents known. With LANES = 1 the
  // exponent is 1 for the last block and 2 otherwise, so no look-ahead is needed: the delayed beat
  // goes straight to the multiplier input (latency as ghash_core).
  if (LANES == 1) begin : gen_no_la
    assign la_first  = dfirst;
    assign la_last   = dlast;
    assign la_keep   = dkeep;
    assign la_tag    = dtag;
    assign la_data   = ddata;
    assign pw_cur    = dfirst ? pw_src : pw_q;
    assign release_d = dv;
  end else begin : gen_la
    logic                 la_valid_q, la_first_q, la_last_q;
    logic [LANES-1:0]     la_keep_q;
    logic [TagWidth-1:0]  la_tag_q;
    logic [128*LANES-1:0] la_data_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        la_valid_q <= 1'b0;
        la_first_q <= 1'b0;
        la_last_q  <= 1'b0;
        la_keep_q  <= '0;
      end else begin
        if (dv) begin
          la_valid_q <= 1'b1;
          la_first_q <= dfirst;
          la_last_q  <= dlast;
          la_keep_q  <= dkeep;
        end else if (release_d) begin
          la_valid_q <= 1'b0;
        end
      end
    end
    always_ff @(posedge clk_i) begin
      if (dv) begin
        la_tag_q  <= dtag;
        la_data_q <= ddata;
      end
    end
    assign la_first  = la_first_q;
    assign la_last   = la_last_q;
    assign la_keep   = la_keep_q;
    assign la_tag    = la_tag_q;
    assign la_data   = la_data_q;
    assign pw_cur    = pw_q;
    assign release_d = la_valid_q && (la_last_q || dv);
  end

  // Powers of the message whose beats are in the look-ahead register (or arriving, LANES = 1).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni)            pw_q <= '0;
    else if (dv && dfirst) pw_q <= pw_src;
  end

  //////////////////////////////////
  // Exponents, multiplier inputs //
  //////////////////////////////////

  // Exponent of lane j: 2*LANES - j (steady), n + LANES - j (next beat is the last, n blocks),
  // n - j (this beat is the last); lanes j >= n of a last beat are zeroed.
  logic [CntW-1:0] n_la, n_d;
  int              e;
  always_comb begin
    n_la = '0;
    n_d  = '0;
    for (int j = 0; j < LANES; j++) begin
      n_la = n_la + CntW'(la_keep[j]);
      n_d  = n_d + CntW'(dkeep[j]);
    end
    for (int j = 0; j < LANES; j++) begin
      if (la_last)  e = int'(n_la) - j;
      else if (dlast) e = int'(n_d) + LANES - j;
      else            e = 2 * LANES - j;
      mi_a_d[128 * j +: 128] = '0;
      mi_b_d[128 * j +: 128] = '0;
      if (!la_last || la_keep[j]) begin
        mi_a_d[128 * j +: 128] = la_data[128 * j +: 128];
        for (int k = 1; k <= NumPow; k++) begin
          if (e == k) mi_b_d[128 * j +: 128] = pw_cur[128 * (k - 1) +: 128];
        end
      end
    end
  end

  // Stream of the released beat (beat 1: 0, beat 2: 1, then alternating); beats 1 and 2 of a
  // message have no feedback.
  always_comb begin
    if (la_first) begin
      rel_nofb   = 1'b1;
      rel_stream = 1'b0;
      pos_d      = 1'b0;
    end else begin
      rel_nofb   = !pos_q;
      rel_stream = ~mi_stream_q;
      pos_d      = 1'b1;
    end
  end

  // Feedback P_{t-2}: bypass when beat t-2 entered the multiplier input two cycles before beat t
  // (its sum is in sum_q just as beat t is sampled by the product stage), else its stream register.
  assign fb_bypass_d = ent_valid_q && (ent_stream_q == rel_stream);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mi_valid_q   <= 1'b0;
      mi_first_q   <= 1'b0;
      mi_last_q    <= 1'b0;
      mi_stream_q  <= 1'b0;
      pos_q        <= 1'b0;
      fb_sel_p_q   <= 1'b0;
      fb_sel_s0_q  <= 1'b0;
      fb_sel_s1_q  <= 1'b0;
      ent_valid_q  <= 1'b0;
      ent_stream_q <= 1'b0;
    end else begin
      mi_valid_q   <= release_d;
      ent_valid_q  <= mi_valid_q;
      ent_stream_q <= mi_stream_q;
      if (release_d) begin
        mi_first_q  <= la_first;
        mi_last_q   <= la_last;
        mi_stream_q <= rel_stream;
        pos_q       <= pos_d;
        fb_sel_p_q  <= !rel_nofb && fb_bypass_d;
        fb_sel_s0_q <= !rel_nofb && !fb_bypass_d && (rel_stream == 1'b0);
        fb_sel_s1_q <= !rel_nofb && !fb_bypass_d && (rel_stream == 1'b1);
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (release_d) begin
      mi_tag_q <= la_tag;
      mi_a_q   <= mi_a_d;
      mi_b_q   <= mi_b_d;
    end
  end

  //////////////////////////
  // Products, sum, loop  //
  //////////////////////////

  assign fb = ({128{fb_sel_p_q}}  & sum_q)
            ^ ({128{fb_sel_s0_q}} & fb_q[0])
            ^ ({128{fb_sel_s1_q}} & fb_q[1]);

  for (genvar j = 0; j < LANES; j++) begin : gen_lane
    logic [127:0] a;
    logic [836:0] p;
    assign a = (j == 0) ? (mi_a_q[127:0] ^ fb) : mi_a_q[128 * j +: 128];
    always_comb begin
      p = ghash_pkg::ghash_kara_products(ghash_pkg::ghash_rev(a),
                                         ghash_pkg::ghash_rev(mi_b_q[128 * j +: 128]));
`ifdef FAULT_GHASH
      // Test-only fault: one product bit of the last lane flips when two operand bits are set.
      if (j == LANES - 1) p[0] = p[0] ^ (a[0] & mi_b_q[128 * j]);
`endif
    end
    always_ff @(posedge clk_i) begin
      prod_q[837 * j +: 837] <= p;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pr_valid_q <= 1'b0;
    end else begin
      pr_valid_q <= mi_valid_q;
    end
  end

  always_ff @(posedge clk_i) begin
    pr_first_q  <= mi_first_q;
    pr_last_q   <= mi_last_q;
    pr_stream_q <= mi_stream_q;
    pr_tag_q    <= mi_tag_q;
  end

  // Recombination and reduction are linear: reduce(combine(sum of lane products)) = sum of the
  // lane products X_j * H^e_j.
  always_comb begin
    prod_sum = '0;
    for (int j = 0; j < LANES; j++) prod_sum = prod_sum ^ prod_q[837 * j +: 837];
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sum_valid_q <= 1'b0;
      fb_q[0]     <= '0;
      fb_q[1]     <= '0;
    end else begin
      sum_valid_q <= pr_valid_q;
      if (sum_valid_q) fb_q[sum_stream_q] <= sum_q;
    end
  end

  always_ff @(posedge clk_i) begin
    sum_q        <= ghash_pkg::ghash_rev(ghash_pkg::ghash_reduce(
                        ghash_pkg::ghash_kara_combine(prod_sum)));
    sum_first_q  <= pr_first_q;
    sum_last_q   <= pr_last_q;
    sum_stream_q <= pr_stream_q;
    sum_tag_q    <= pr_tag_q;
  end

  /////////////
  // Outputs //
  /////////////

  // Y_N = P_T ^ P_{T-1}; P_{T-1} is the other stream's register (T >= 2).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      out_valid_o <= 1'b0;
      out_hash_o  <= '0;
    end else begin
      out_valid_o <= sum_valid_q && sum_last_q;
      if (sum_valid_q && sum_last_q) begin
        out_hash_o <= sum_q ^ (sum_first_q ? 128'h0 : fb_q[~sum_stream_q]);
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (sum_valid_q && sum_last_q) out_tag_o <= sum_tag_q;
  end

endmodule

`resetall
