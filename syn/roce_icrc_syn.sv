// SPDX-License-Identifier: Apache-2.0
//
// roce_icrc_syn: synthesis-only pin wrapper for roce_icrc (beat and tkeep shifted in serially,
// CRC XOR-folded to 8 registered pins). Not part of the design.

`resetall
`default_nettype none

module roce_icrc_syn #(
  parameter int unsigned Lanes = 1
) (
  input  wire logic       clk_i,
  input  wire logic       rst_ni,
  input  wire logic       shift_i,
  input  wire logic       din_i,
  input  wire logic       valid_i,
  input  wire logic       last_i,
  output logic            valid_o,
  output logic      [7:0] fold_o
);

  localparam int unsigned InW = 144 * Lanes;

  logic [InW-1:0] in_q;
  logic           crc_valid;
  logic [31:0]    crc;

  always_ff @(posedge clk_i) begin
    if (shift_i) in_q <= {in_q[InW-2:0], din_i};
  end

  roce_icrc #(
    .Lanes (Lanes)
  ) u_dut (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .s_axis_tvalid_i (valid_i),
    .s_axis_tdata_i  (in_q[InW-1 -: 128 * Lanes]),
    .s_axis_tkeep_i  (in_q[16 * Lanes - 1:0]),
    .s_axis_tlast_i  (last_i),
    .crc_valid_o     (crc_valid),
    .crc_o           (crc)
  );

  always_ff @(posedge clk_i) begin
    valid_o <= crc_valid;
    fold_o  <= crc[31:24] ^ crc[23:16] ^ crc[15:8] ^ crc[7:0];
  end

endmodule

`resetall
