// SPDX-License-Identifier: Apache-2.0
//
// ghash_mul: pipelined GF(2^128) multiplier, P = X * Y as in SP 800-38D §6.3 Algorithm 1.
//
// Data format
// -----------
// a_i (X), b_i (Y) and p_o (X * Y) are blocks with byte b0 in bits [127:120]; bit x_0 of SP
// 800-38D (MSB of b0) is bit 127 (see ghash_pkg). The product equals rocesec_model::ghash::mul.
//
// Structure and timing
// --------------------
// The combinational core is in ghash_pkg, in polynomial (bit-reversed) order: a three-level
// Karatsuba carry-less multiply (27 products of 16-bit operands, ghash_kara_products), the
// recombination (ghash_kara_combine) and the reduction by a^128 + a^7 + a^2 + a + 1
// (ghash_reduce). NumStages places the pipeline registers:
//   1: everything in one cycle, output register only;
//   2: + register after the 27 products (837 bits) — the balanced split, default;
//   3: + register after the recombination (255 bits), before the reduction.
// Latency is NumStages cycles, throughput one product per cycle, no stall; valid/tag travel
// alongside. Valid flags reset; data registers do not (callers clear their own key registers).
// The schoolbook version (ghash_clmul_part, 16384 AND terms) mapped to 12.6k LUT4 on ECP5; the
// Karatsuba form needs 6912 AND terms.

`resetall
`default_nettype none

module ghash_mul #(
  parameter int unsigned NumStages = 2,  // pipeline stages (= latency), 1..3
  parameter int unsigned TagWidth  = 1   // sideband carried with each product
) (
  input  wire logic                clk_i,
  input  wire logic                rst_ni,

  input  wire logic                valid_i,
  input  wire logic [TagWidth-1:0] tag_i,
  input  wire logic [127:0]        a_i,      // X
  input  wire logic [127:0]        b_i,      // Y

  output logic                     valid_o,
  output logic      [TagWidth-1:0] tag_o,
  output logic      [127:0]        p_o       // X * Y
);

  if (NumStages < 1 || NumStages > 3) begin : gen_param_check
    $error("ghash_mul: NumStages must be 1..3 (instance %m)");
  end

  /////////////
  // Signals //
  /////////////

  logic [836:0] prod_d, prod;   // 27 Karatsuba base products
  logic [254:0] comb_d, comb;   // unreduced product
  logic         valid_a, valid_b;
  logic [TagWidth-1:0] tag_a, tag_b;

  //////////
  // Data //
  //////////

  assign prod_d = ghash_pkg::ghash_kara_products(ghash_pkg::ghash_rev(a_i),
                                                 ghash_pkg::ghash_rev(b_i));

  if (NumStages >= 2) begin : gen_reg_prod
    logic [836:0]        prod_q;
    logic                valid_q;
    logic [TagWidth-1:0] tag_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) valid_q <= 1'b0;
      else         valid_q <= valid_i;
    end
    always_ff @(posedge clk_i) begin
      prod_q <= prod_d;
      tag_q  <= tag_i;
    end
    assign prod    = prod_q;
    assign valid_a = valid_q;
    assign tag_a   = tag_q;
  end else begin : gen_comb_prod
    assign prod    = prod_d;
    assign valid_a = valid_i;
    assign tag_a   = tag_i;
  end

  assign comb_d = ghash_pkg::ghash_kara_combine(prod);

  if (NumStages >= 3) begin : gen_reg_comb
    logic [254:0]        comb_q;
    logic                valid_q;
    logic [TagWidth-1:0] tag_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) valid_q <= 1'b0;
      else         valid_q <= valid_a;
    end
    always_ff @(posedge clk_i) begin
      comb_q <= comb_d;
      tag_q  <= tag_a;
    end
    assign comb    = comb_q;
    assign valid_b = valid_q;
    assign tag_b   = tag_q;
  end else begin : gen_comb_comb
    assign comb    = comb_d;
    assign valid_b = valid_a;
    assign tag_b   = tag_a;
  end

  /////////////
  // Outputs //
  /////////////

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) valid_o <= 1'b0;
    else         valid_o <= valid_b;
  end

  always_ff @(posedge clk_i) begin
    tag_o <= tag_b;
    p_o   <= ghash_pkg::ghash_rev(ghash_pkg::ghash_reduce(comb));
  end

endmodule

`resetall
