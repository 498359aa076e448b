// SPDX-License-Identifier: Apache-2.0
//
// kdf_cmac_syn: synthesis-only pin wrapper for kdf_cmac (key and message shifted in serially,
// derived key XOR-folded to 8 registered pins). Not part of the design.

`resetall
`default_nettype none

module kdf_cmac_syn #(
  parameter int unsigned KeyLen      = 128,
  parameter int unsigned MaxMsgBytes = 48
) (
  input  wire logic       clk_i,
  input  wire logic       rst_ni,
  input  wire logic       shift_i,
  input  wire logic       din_i,
  input  wire logic       valid_i,
  input  wire logic       kdf_i,
  input  wire logic       out256_i,
  output logic            ready_o,
  output logic            valid_o,
  output logic      [7:0] fold_o
);

  localparam int unsigned LenW = $clog2(MaxMsgBytes + 1);
  localparam int unsigned InW  = KeyLen + 8 * MaxMsgBytes + LenW;

  logic [InW-1:0] in_q;
  logic           rsp_valid;
  logic [255:0]   rsp_key;
  logic [7:0]     fold_d;

  always_ff @(posedge clk_i) begin
    if (shift_i) in_q <= {in_q[InW-2:0], din_i};
  end

  kdf_cmac #(
    .KeyLen      (KeyLen),
    .MaxMsgBytes (MaxMsgBytes)
  ) u_dut (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .req_valid_i   (valid_i),
    .req_ready_o   (ready_o),
    .req_key_i     (in_q[InW-1 -: KeyLen]),
    .req_kdf_i     (kdf_i),
    .req_enc_i     (1'b0),
    .req_out256_i  (out256_i),
    .req_msg_i     (in_q[LenW +: 8 * MaxMsgBytes]),
    .req_msg_len_i (in_q[LenW-1:0]),
    .rsp_valid_o   (rsp_valid),
    .rsp_key_o     (rsp_key)
  );

  always_comb begin
    fold_d = '0;
    for (int i = 0; i < 32; i++) fold_d = fold_d ^ rsp_key[8 * i +: 8];
  end

  always_ff @(posedge clk_i) begin
    valid_o <= rsp_valid;
    fold_o  <= fold_d;
  end

endmodule

`resetall
