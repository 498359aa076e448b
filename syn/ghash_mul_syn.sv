// SPDX-License-Identifier: Apache-2.0
//
// ghash_mul_syn: synthesis-only pin wrapper for ghash_mul (operands shifted in serially, product
// XOR-folded to 8 registered pins). Not part of the design.

`resetall
`default_nettype none

module ghash_mul_syn #(
  parameter int unsigned NumStages = 2
) (
  input  wire logic       clk_i,
  input  wire logic       rst_ni,
  input  wire logic       shift_i,
  input  wire logic       din_i,
  input  wire logic       valid_i,
  output logic            valid_o,
  output logic      [7:0] fold_o
);

  logic [255:0] in_q;
  logic         p_valid;
  logic [127:0] p;
  logic         unused_tag;
  logic [7:0]   fold_d;

  always_ff @(posedge clk_i) begin
    if (shift_i) in_q <= {in_q[254:0], din_i};
  end

  ghash_mul #(
    .NumStages (NumStages),
    .TagWidth  (1)
  ) u_dut (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .valid_i (valid_i),
    .tag_i   (1'b0),
    .a_i     (in_q[255:128]),
    .b_i     (in_q[127:0]),
    .valid_o (p_valid),
    .tag_o   (unused_tag),
    .p_o     (p)
  );

  always_comb begin
    fold_d = '0;
    for (int i = 0; i < 16; i++) fold_d = fold_d ^ p[8 * i +: 8];
  end

  always_ff @(posedge clk_i) begin
    valid_o <= p_valid;
    fold_o  <= fold_d;
  end

endmodule

`resetall
