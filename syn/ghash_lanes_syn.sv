// SPDX-License-Identifier: Apache-2.0
//
// ghash_lanes_syn: synthesis-only pin wrapper for ghash_lanes (beat, H, keep and, with PowersIn,
// the powers of H shifted in serially, hash XOR-folded to 8 registered pins). Not part of the
// design.

`resetall
`default_nettype none

module ghash_lanes_syn #(
  parameter int unsigned LANES    = 4,
  parameter int unsigned PowersIn = 0
) (
  input  wire logic       clk_i,
  input  wire logic       rst_ni,
  input  wire logic       shift_i,
  input  wire logic       din_i,
  input  wire logic       valid_i,
  input  wire logic       first_i,
  input  wire logic       last_i,
  output logic            valid_o,
  output logic      [7:0] fold_o
);

  localparam int unsigned PowW = (PowersIn != 0) ? 256 * LANES : 1;
  localparam int unsigned InW  = 128 * LANES + 128 + LANES + 8 + PowW;  // {data, h, keep, tag, pow}

  logic [InW-1:0] in_q;
  logic           h_valid;
  logic [7:0]     h_tag;
  logic [127:0]   hash;
  logic [7:0]     fold_d;

  logic [256*LANES-1:0] hpow;
  if (PowersIn != 0) begin : gen_hpow
    assign hpow = in_q[256*LANES-1:0];
  end else begin : gen_no_hpow
    assign hpow = '0;
  end

  always_ff @(posedge clk_i) begin
    if (shift_i) in_q <= {in_q[InW-2:0], din_i};
  end

  ghash_lanes #(
    .LANES    (LANES),
    .TagWidth (8),
    .PowersIn (PowersIn)
  ) u_dut (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (valid_i),
    .in_first_i  (first_i),
    .in_last_i   (last_i),
    .in_keep_i   (in_q[PowW + 8 +: LANES]),
    .in_tag_i    (in_q[PowW +: 8]),
    .in_data_i   (in_q[InW-1 -: 128 * LANES]),
    .in_h_i      (in_q[PowW + 8 + LANES +: 128]),
    .in_hpow_i   (hpow),
    .out_valid_o (h_valid),
    .out_tag_o   (h_tag),
    .out_hash_o  (hash)
  );

  always_comb begin
    fold_d = h_tag;
    for (int i = 0; i < 16; i++) fold_d = fold_d ^ hash[8 * i +: 8];
  end

  always_ff @(posedge clk_i) begin
    valid_o <= h_valid;
    fold_o  <= fold_d;
  end

endmodule

`resetall
