// SPDX-License-Identifier: Apache-2.0
//
// aes_cipher_pipe_rk_syn: synthesis-only pin wrapper for aes_cipher_pipe_rk (one lane). Round
// key 0, slot, block, tag and the round-key write (slot, round, data) are shifted in serially
// into registers; the ciphertext is XOR-folded to 8 registered pins. Not part of the design.

`resetall
`default_nettype none

module aes_cipher_pipe_rk_syn #(
  parameter int unsigned RkSlots = 128
) (
  input  wire logic       clk_i,
  input  wire logic       rst_ni,
  input  wire logic       shift_i,   // shift din_i into the input register
  input  wire logic       din_i,
  input  wire logic       valid_i,
  input  wire logic       rk_we_i,
  output logic            valid_o,
  output logic      [7:0] fold_o
);

  localparam int unsigned SW  = $clog2(RkSlots);
  localparam int unsigned InW = 128 + SW + 128 + 8 + SW + 4 + 128;

  logic [InW-1:0] in_q;
  logic           out_valid;
  logic [7:0]     out_tag;
  logic [127:0]   out_data;
  logic [7:0]     fold_d;

  always_ff @(posedge clk_i) begin
    if (shift_i) in_q <= {in_q[InW-2:0], din_i};
  end

  aes_cipher_pipe_rk #(
    .Lanes    (1),
    .TagWidth (8),
    .RkSlots  (RkSlots)
  ) u_dut (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .rk_we_i     (rk_we_i),
    .rk_data_i   (in_q[0 +: 128]),
    .rk_round_i  (in_q[128 +: 4]),
    .rk_slot_i   (in_q[132 +: SW]),
    .in_valid_i  (valid_i),
    .in_tag_i    (in_q[132 + SW +: 8]),
    .in_data_i   (in_q[140 + SW +: 128]),
    .in_rk_i     (in_q[268 + SW +: SW]),
    .in_key_i    (in_q[268 + 2 * SW +: 128]),
    .out_valid_o (out_valid),
    .out_tag_o   (out_tag),
    .out_data_o  (out_data)
  );

  always_comb begin
    fold_d = out_tag;
    for (int i = 0; i < 16; i++) fold_d = fold_d ^ out_data[8 * i +: 8];
  end

  always_ff @(posedge clk_i) begin
    valid_o <= out_valid;
    fold_o  <= fold_d;
  end

endmodule

`resetall
