// SPDX-License-Identifier: Apache-2.0
//
// aes_pkg: shared AES constants (S-box ROM, Rcon), GF(2^8) helpers and pipeline latencies.
//
// Data format
// -----------
// A 128-bit block (state, round key) holds bytes b0..b15 with b0 in bits [127:120] and b15 in
// bits [7:0]. This is the FIPS 197 §3.4 input/output order: b[r + 4c] is state s[r,c], so column
// c occupies bits [127-32c -: 32] with row 0 in its most significant byte. A key word w[i]
// (FIPS 197 §5.2) is 32 bits with its first byte in bits [31:24]; key bytes k0..k(4Nk-1) are
// likewise most-significant-first (k0 in the top byte of the key vector). The S-box (FIPS 197
// §5.1.1, Fig. 7) is stored as a 2048-bit constant ROM: entry x lives in bits [8x+7:8x].

`resetall
`default_nettype none

package aes_pkg;

  ////////////
  // S-box  //
  ////////////

  // FIPS 197 Fig. 7, entry x at bits [8x +: 8] (entry 0xff first in the literal).
  localparam logic [2047:0] SBOX = {
    256'h16bb54b00f2d99416842e6bf0d89a18cdf2855cee9871e9b948ed9691198f8e1,
    256'h9e1dc186b95735610ef6034866b53e708a8bbd4b1f74dde8c6b4a61c2e2578ba,
    256'h08ae7a65eaf4566ca94ed58d6d37c8e779e4959162acd3c25c2406490a3a32e0,
    256'hdb0b5ede14b8ee4688902a22dc4f816073195d643d7ea7c41744975fec130ccd,
    256'hd2f3ff1021dab6bcf5389d928f40a351a89f3c507f02f94585334d43fbaaefd0,
    256'hcf584c4a39becb6a5bb1fc20ed00d153842fe329b3d63b52a05a6e1b1a2c8309,
    256'h75b227ebe28012079a059618c323c7041531d871f1e5a534ccf73f362693fdb7,
    256'hc072a49cafa2d4adf04759fa7dc982ca76abd7fe2b670130c56f6bf27b777c63
  };

  // Combinational S-box lookup (LUT logic). The pipelined cores use the registered ROM in
  // aes_sbox instead; this function serves aes_round's CombSbox variant.
  function automatic logic [7:0] aes_sbox_fn(logic [7:0] x);
    aes_sbox_fn = SBOX[{x, 3'b000} +: 8];
  endfunction

  /////////////////////////////////////
  // S-box in the tower field (LUTs) //
  /////////////////////////////////////

  // S(x) = A(x^-1) ^ 0x63 computed in GF((2^4)^2) = GF(16)[Y]/(Y^2 + Y + 8), GF(16) =
  // GF(2)[z]/(z^4 + z + 1): a = ah*Y + al has the inverse (ah*d^-1)*Y + (ah^al)*d^-1 with
  // d = 8*ah^2 ^ ah*al ^ al^2. The isomorphism into the tower (TowerMap: out bit j =
  // parity(x & row j), row j at bits [8j +: 8]) and back out of it with the affine map A folded
  // in (TowerUnmap) are derived and checked against all 256 FIPS 197 values by
  // scripts/derive_sbox_tower.py. Logic only (no ROM), for when block RAM runs out.
  // Row j at bits [8j +: 8].
  localparam logic [63:0] TowerMap   = 64'ha0_ac_d2_70_18_fc_04_a1;
  localparam logic [63:0] TowerUnmap = 64'h06_d0_ee_3b_25_69_3f_45;
  localparam logic [63:0] Gf16Inv = 64'h8_3_4_a_5_c_2_f_6_7_b_d_e_9_1_0;  // entry x at [4x +: 4]

  function automatic logic [7:0] aes_parity_map(logic [63:0] rows, logic [7:0] x);
    for (int j = 0; j < 8; j++) aes_parity_map[j] = ^(x & rows[8 * j +: 8]);
  endfunction

  // Product in GF(16) mod z^4 + z + 1.
  function automatic logic [3:0] aes_gf16_mul(logic [3:0] a, logic [3:0] b);
    logic [6:0] p;
    p = '0;
    for (int k = 0; k < 4; k++) if (b[k]) p = p ^ (7'(a) << k);
    for (int k = 6; k >= 4; k--) if (p[k]) p = p ^ (7'h13 << (k - 4));
    aes_gf16_mul = p[3:0];
  endfunction

  // First half: {ah, al, d} of the tower image of x (12 bits).
  function automatic logic [11:0] aes_sbox_tower_in(logic [7:0] x);
    logic [7:0] t;
    logic [3:0] d;
    t = aes_parity_map(TowerMap, x);
    d = aes_gf16_mul(aes_gf16_mul(t[7:4], t[7:4]), 4'h8) ^ aes_gf16_mul(t[7:4], t[3:0]) ^
        aes_gf16_mul(t[3:0], t[3:0]);
    aes_sbox_tower_in = {t, d};
  endfunction

  // Second half: d^-1, the two products, back out of the tower, affine constant.
  function automatic logic [7:0] aes_sbox_tower_out(logic [11:0] m);
    logic [3:0] di;
    di = Gf16Inv[{m[3:0], 2'b00} +: 4];
    aes_sbox_tower_out = aes_parity_map(TowerUnmap, {aes_gf16_mul(m[11:8], di),
                                                     aes_gf16_mul(m[11:8] ^ m[7:4], di)}) ^ 8'h63;
  endfunction

  ////////////////////
  // GF(2^8) helpers //
  ////////////////////

  // xtime: multiplication by x modulo m(x) = x^8 + x^4 + x^3 + x + 1 (FIPS 197 §4.2.1).
  function automatic logic [7:0] aes_xtime(logic [7:0] b);
    aes_xtime = {b[6:0], 1'b0} ^ (b[7] ? 8'h1b : 8'h00);
  endfunction

  // MixColumns on one column {s0, s1, s2, s3}, s0 in bits [31:24] (FIPS 197 §5.1.3).
  function automatic logic [31:0] aes_mix_column(logic [31:0] col);
    logic [7:0] s0, s1, s2, s3;
    s0 = col[31:24];
    s1 = col[23:16];
    s2 = col[15:8];
    s3 = col[7:0];
    aes_mix_column = {aes_xtime(s0 ^ s1) ^ s1 ^ s2 ^ s3,
            aes_xtime(s1 ^ s2) ^ s0 ^ s2 ^ s3,
            aes_xtime(s2 ^ s3) ^ s0 ^ s1 ^ s3,
            aes_xtime(s3 ^ s0) ^ s0 ^ s1 ^ s2};
  endfunction

  // Byte i of a 128-bit block (b0 = bits [127:120]).
  function automatic logic [7:0] aes_byte(logic [127:0] blk, int unsigned i);
    aes_byte = blk[127 - 8 * i -: 8];
  endfunction

  // ShiftRows (FIPS 197 §5.1.2): s'[r,c] = s[r, (c + r) mod 4], with byte b[r + 4c] = s[r,c].
  function automatic logic [127:0] aes_shift_rows(logic [127:0] s);
    logic [127:0] o;
    for (int unsigned c = 0; c < 4; c++) begin
      for (int unsigned r = 0; r < 4; r++) begin
        o[127 - 8 * (r + 4 * c) -: 8] = s[127 - 8 * (r + 4 * ((c + r) % 4)) -: 8];
      end
    end
    aes_shift_rows = o;
  endfunction

  // MixColumns on a whole state.
  function automatic logic [127:0] aes_mix_columns(logic [127:0] s);
    logic [127:0] o;
    for (int unsigned c = 0; c < 4; c++) begin
      o[127 - 32 * c -: 32] = aes_mix_column(s[127 - 32 * c -: 32]);
    end
    aes_mix_columns = o;
  endfunction

  // Round constant Rcon[i] first byte, i = 1..10 (FIPS 197 §5.2, Table 5).
  function automatic logic [7:0] aes_rcon(int unsigned i);
    logic [7:0] r;
    r = 8'h01;
    for (int unsigned k = 1; k < 11; k++) begin
      if (k < i) r = aes_xtime(r);
    end
    aes_rcon = r;
  endfunction

  //////////////////
  // Key schedule //
  //////////////////

  // Number of rounds Nr for a key length in bits (FIPS 197 §5, Fig. 4).
  function automatic int unsigned aes_num_rounds(int unsigned key_len);
    aes_num_rounds = (key_len == 256) ? 14 : 10;
  endfunction

  // Rcon byte and RotWord flag used to produce round key `rk_idx` (1..Nr). For Nk = 4 every
  // round key starts with SubWord(RotWord(w)) ^ Rcon; for Nk = 8 round key 2j starts with
  // SubWord(RotWord(w)) ^ Rcon[j] and round key 2j+1 with SubWord(w) (FIPS 197 §5.2, Fig. 11).
  function automatic logic [7:0] aes_key_rcon(int unsigned key_len, int unsigned rk_idx);
    if (key_len == 256) aes_key_rcon = (rk_idx % 2 == 0) ? aes_rcon(rk_idx / 2) : 8'h00;
    else aes_key_rcon = aes_rcon(rk_idx);
  endfunction

  function automatic logic aes_key_rot(int unsigned key_len, int unsigned rk_idx);
    aes_key_rot = (key_len == 256) ? (rk_idx % 2 == 0) : 1'b1;
  endfunction

  ////////////////
  // Latencies  //
  ////////////////

  // aes_cipher_pipe: one input register (AddRoundKey 0) plus sbox_latency + 1 stages per round
  // (registered S-box ROM read [+ output register], then ShiftRows/MixColumns/AddRoundKey).
  // Mirrored by rocesec_cosim::rtl::aes_cipher_pipe::latency.
  function automatic int unsigned aes_pipe_latency(int unsigned key_len, int unsigned sbox_latency);
    aes_pipe_latency = 1 + (sbox_latency + 1) * aes_num_rounds(key_len);
  endfunction

  /* verilator lint_off UNUSEDPARAM */
  localparam int unsigned AesPipeLatency128 = 31;  // default SboxLatency = 2
  localparam int unsigned AesPipeLatency256 = 43;
  /* verilator lint_on UNUSEDPARAM */

endpackage

`resetall
