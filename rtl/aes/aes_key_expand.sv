// SPDX-License-Identifier: Apache-2.0
//
// aes_key_expand: combinational AES key-expansion step producing the next round key.
//
// Data format
// -----------
// The key window key_i/key_o is KeyLen bits. For KeyLen = 128 it is the latest round key
// {w[4r], .., w[4r+3]}; for KeyLen = 256 it is the two latest round keys {rk(r-1), rk(r)} with
// rk(r) in bits [127:0]. Words are 32 bits with the first byte on top (FIPS 197 §5.2). sub_i is
// SubWord(w) of the last word of the window (bits [31:0]) read from the registered aes_sbox;
// rot_i applies RotWord after the substitution (byte-wise SubWord commutes with RotWord) and
// rcon_i is the first byte of Rcon (zero where FIPS 197 Fig. 11 uses no Rcon). The step computes
//   t = (rot_i ? RotWord(sub_i) : sub_i) ^ {rcon_i, 24'h0}
//   w'[0] = w[0] ^ t, w'[j] = w[j] ^ w'[j-1]  (w = the oldest 128 bits of the window),
// and rk_o = {w'[0..3]} is the new round key; key_o is the shifted window.

`resetall
`default_nettype none

module aes_key_expand #(
  parameter int unsigned KeyLen = 128  // 128 or 256
) (
  input  wire logic [KeyLen-1:0] key_i,   // key window (see header)
  input  wire logic [31:0]       sub_i,   // SubWord(last word of key_i)
  input  wire logic              rot_i,   // apply RotWord
  input  wire logic [7:0]        rcon_i,  // Rcon byte
  output logic      [KeyLen-1:0] key_o,   // next key window
  output logic      [127:0]      rk_o     // new round key
);

  if (KeyLen != 128 && KeyLen != 256) begin : gen_param_check
    $error("aes_key_expand: KeyLen must be 128 or 256 (instance %m)");
  end

  logic [31:0]  t;
  logic [127:0] old_rk;

  assign t      = (rot_i ? {sub_i[23:0], sub_i[31:24]} : sub_i) ^ {rcon_i, 24'h000000};
  assign old_rk = key_i[KeyLen-1 -: 128];

  logic [31:0] w0, w1, w2, w3;

  assign w0   = old_rk[127:96] ^ t;
  assign w1   = old_rk[95:64]  ^ w0;
  assign w2   = old_rk[63:32]  ^ w1;
  assign w3   = old_rk[31:0]   ^ w2;
  assign rk_o = {w0, w1, w2, w3};

  if (KeyLen == 256) begin : gen_window_256
    assign key_o = {key_i[127:0], rk_o};
  end else begin : gen_window_128
    assign key_o = rk_o;
  end

endmodule

`resetall
