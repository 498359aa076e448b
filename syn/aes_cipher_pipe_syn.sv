// SPDX-License-Identifier: Apache-2.0
//
// aes_cipher_pipe_syn: synthesis-only pin wrapper for aes_cipher_pipe (the 400 data ports exceed
// the package pins). Key, block and tag are shifted in serially into registers; the ciphertext
// is XOR-folded to 8 registered pins. Not part of the design.

`resetall
`default_nettype none

module aes_cipher_pipe_syn #(
  parameter int unsigned KeyLen    = 128,
  parameter bit          SboxTower = 1'b0
) (
  input  wire logic       clk_i,
  input  wire logic       rst_ni,
  input  wire logic       en_i,
  input  wire logic       shift_i,   // shift din_i into the input register
  input  wire logic       din_i,
  input  wire logic       valid_i,
  output logic            valid_o,
  output logic      [7:0] fold_o
);

  localparam int unsigned InW = KeyLen + 128 + 8;

  logic [InW-1:0] in_q;
  logic           out_valid;
  logic [7:0]     out_tag;
  logic [127:0]   out_data;
  logic [7:0]     fold_d;

  always_ff @(posedge clk_i) begin
    if (shift_i) in_q <= {in_q[InW-2:0], din_i};
  end

  aes_cipher_pipe #(
    .KeyLen    (KeyLen),
    .TagWidth  (8),
    .SboxTower (SboxTower)
  ) u_dut (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .en_i        (en_i),
    .in_valid_i  (valid_i),
    .in_tag_i    (in_q[7:0]),
    .in_key_i    (in_q[8 +: KeyLen]),
    .in_data_i   (in_q[8 + KeyLen +: 128]),
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
