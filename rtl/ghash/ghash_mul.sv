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
// The combinational core is ghash_pkg: a 128 x 128 carry-less product (ghash_clmul_part) and the
// reduction by a^128 + a^7 + a^2 + a + 1 (ghash_reduce). The pipeline splits the 128 bits of X into
// NumStages digits: stage s adds digit s's partial products into a 255-bit accumulator; the last
// stage also reduces and registers p_o. Latency is NumStages cycles, throughput one product per
// cycle, no stall. valid/tag travel alongside. Valid flags reset; data registers do not (Y may be
// a hash subkey power: callers clear their own key registers).

`resetall
`default_nettype none

module ghash_mul #(
  parameter int unsigned NumStages = 2,  // pipeline stages (= latency), 1..8
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

  if (NumStages < 1 || NumStages > 8) begin : gen_param_check
    $error("ghash_mul: NumStages must be 1..8 (instance %m)");
  end

  localparam int unsigned Digit = (128 + NumStages - 1) / NumStages;

  /////////////
  // Signals //
  /////////////

  // Inputs of stage s (index 0 = module inputs, polynomial order).
  logic                valid_s [NumStages];
  logic [TagWidth-1:0] tag_s   [NumStages];
  logic [127:0]        a_s     [NumStages];
  logic [127:0]        b_s     [NumStages];
  logic [254:0]        acc_s   [NumStages];
  logic [254:0]        acc_d   [NumStages];

  assign valid_s[0] = valid_i;
  assign tag_s[0]   = tag_i;
  assign a_s[0]     = ghash_pkg::ghash_rev(a_i);
  assign b_s[0]     = ghash_pkg::ghash_rev(b_i);
  assign acc_s[0]   = '0;

  //////////
  // Data //
  //////////

  for (genvar s = 0; s < NumStages; s++) begin : gen_stage
    assign acc_d[s] = ghash_pkg::ghash_clmul_part(acc_s[s], a_s[s], b_s[s], s * Digit, Digit);

    if (s < NumStages - 1) begin : gen_reg
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) valid_s[s+1] <= 1'b0;
        else         valid_s[s+1] <= valid_s[s];
      end
      always_ff @(posedge clk_i) begin
        tag_s[s+1] <= tag_s[s];
        a_s[s+1]   <= a_s[s];
        b_s[s+1]   <= b_s[s];
        acc_s[s+1] <= acc_d[s];
      end
    end
  end

  /////////////
  // Outputs //
  /////////////

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) valid_o <= 1'b0;
    else         valid_o <= valid_s[NumStages-1];
  end

  always_ff @(posedge clk_i) begin
    tag_o <= tag_s[NumStages-1];
    p_o   <= ghash_pkg::ghash_rev(ghash_pkg::ghash_reduce(acc_d[NumStages-1]));
  end

endmodule

`resetall
