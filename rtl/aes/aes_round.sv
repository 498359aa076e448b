// SPDX-License-Identifier: Apache-2.0
//
// aes_round: combinational AES round body: [SubBytes,] ShiftRows, [MixColumns,] AddRoundKey.
//
// Data format
// -----------
// data_i, key_i and data_o are 128-bit blocks, byte b0 in bits [127:120] (FIPS 197 §3.4).
// With CombSbox = 0 (default, used by the pipelined and iterative cores) data_i already holds
// SubBytes(state) read from the registered aes_sbox ROM, and this module performs the rest of
// FIPS 197 §5.1: data_o = AddRoundKey(MixColumns(ShiftRows(data_i)), key_i). With CombSbox = 1
// SubBytes is done here in LUT logic from the same ROM constant. last_i = 1 skips MixColumns
// (the final round, FIPS 197 §5.1, Fig. 5); tie it to a constant where the round is fixed.

`resetall
`default_nettype none

module aes_round #(
  parameter bit CombSbox = 1'b0  // 1: apply SubBytes here (LUT S-boxes); 0: data_i is SubBytes'd
) (
  input  wire logic         last_i,  // final round: no MixColumns
  input  wire logic [127:0] data_i,  // state (CombSbox) or SubBytes(state)
  input  wire logic [127:0] key_i,   // round key
  output logic      [127:0] data_o   // state after the round
);

  logic [127:0] sub_bytes, shift_rows, mix_columns;

  if (CombSbox) begin : gen_comb_sbox
    always_comb begin
      for (int unsigned i = 0; i < 16; i++) begin
        sub_bytes[127 - 8 * i -: 8] = aes_pkg::aes_sbox_fn(data_i[127 - 8 * i -: 8]);
      end
    end
  end else begin : gen_ext_sbox
    assign sub_bytes = data_i;
  end

  assign shift_rows  = aes_pkg::aes_shift_rows(sub_bytes);
  assign mix_columns = last_i ? shift_rows : aes_pkg::aes_mix_columns(shift_rows);
  assign data_o      = mix_columns ^ key_i;

endmodule

`resetall
