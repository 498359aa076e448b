// SPDX-License-Identifier: Apache-2.0
//
// ghash_pkg: GF(2^128) arithmetic of GCM (carry-less multiply, reduction, squaring) and latencies.
//
// Data format
// -----------
// A block is 128 bits with byte b0 in bits [127:120] (SP 800-38D §6.1). Bit x_0 of the spec (the
// leftmost bit, MSB of b0) is SystemVerilog bit 127, and the block stands for the field element
// x_0 + x_1*a + .. + x_127*a^127 modulo a^128 + a^7 + a^2 + a + 1 (SP 800-38D §6.3, R =
// 11100001 || 0^120). The functions below work on the bit-reversed "polynomial" form, where bit i
// is the coefficient of a^i (ghash_rev converts), so that carry-less products are plain shifts.

`resetall
`default_nettype none

package ghash_pkg;

  // These functions are written as whole-vector operations, not loops over bits: Yosys
  // elaborates every bit assignment of a function called in an always block on its own, and the
  // bitwise forms made `hierarchy` on a LANES = 4 top take about a minute in ghash_lanes alone.

  // Block order <-> polynomial order (bit i <-> bit 127-i): swap halves, then ever smaller
  // pieces within them (mask m: the low k bits of every 2k).
  function automatic logic [127:0] ghash_rev(input logic [127:0] x);
    logic [127:0] r;
    r = {x[63:0], x[127:64]};
    r = ((r >> 32) & {2{64'h0000_0000_FFFF_FFFF}}) | ((r & {2{64'h0000_0000_FFFF_FFFF}}) << 32);
    r = ((r >> 16) & {4{32'h0000_FFFF}}) | ((r & {4{32'h0000_FFFF}}) << 16);
    r = ((r >> 8) & {8{16'h00FF}}) | ((r & {8{16'h00FF}}) << 8);
    r = ((r >> 4) & {16{8'h0F}}) | ((r & {16{8'h0F}}) << 4);
    r = ((r >> 2) & {32{4'h3}}) | ((r & {32{4'h3}}) << 2);
    r = ((r >> 1) & {32{4'h5}}) | ((r & {32{4'h5}}) << 1);
    ghash_rev = r;
  endfunction

  // Partial carry-less product: acc ^ sum_{i = lo .. lo+n-1, i < 128} a[i] * (b << i), operands in
  // polynomial order, 255-bit unreduced result.
  function automatic logic [254:0] ghash_clmul_part(input logic [254:0] acc, input logic [127:0] a,
                                                    input logic [127:0] b, input int lo,
                                                    input int n);
    logic [254:0] r;
    r = acc;
    for (int i = 0; i < 128; i++) begin
      if (i >= lo && i < lo + n) begin
        r = r ^ (({127'b0, b} << i) & {255{a[i]}});
      end
    end
    ghash_clmul_part = r;
  endfunction

  // Reduction of a 255-bit product modulo a^128 + a^7 + a^2 + a + 1 (polynomial order): the
  // high part h (a^128 and up) folds in as h * (a^7 + a^2 + a + 1), whose own bits at a^128 and
  // up (6 of them) fold in once more.
  function automatic logic [127:0] ghash_reduce(input logic [254:0] p);
    logic [133:0] h, t;
    logic [127:0] o;
    h = {7'b0, p[254:128]};
    t = h ^ (h << 1) ^ (h << 2) ^ (h << 7);
    o = {122'b0, t[133:128]};
    ghash_reduce = p[127:0] ^ t[127:0] ^ o ^ (o << 1) ^ (o << 2) ^ (o << 7);
  endfunction

  // Full product in block order: SP 800-38D §6.3 Algorithm 1, X * Y.
  function automatic logic [127:0] ghash_mul_fn(input logic [127:0] x, input logic [127:0] y);
    ghash_mul_fn = ghash_rev(ghash_reduce(ghash_kara_combine(
        ghash_kara_products(ghash_rev(x), ghash_rev(y)))));
  endfunction

  // Square in block order (X * X): squaring is linear over GF(2), so this is a shallow XOR network
  // (spread bit i to 2i, then reduce).
  function automatic logic [127:0] ghash_sqr_fn(input logic [127:0] x);
    logic [255:0] s;  // bit i of the polynomial to bit 2i, by halving strides (Morton order)
    s = {128'b0, ghash_rev(x)};
    s = (s | (s << 64)) & {2{128'h0000_0000_0000_0000_FFFF_FFFF_FFFF_FFFF}};
    s = (s | (s << 32)) & {4{64'h0000_0000_FFFF_FFFF}};
    s = (s | (s << 16)) & {8{32'h0000_FFFF}};
    s = (s | (s << 8)) & {16{16'h00FF}};
    s = (s | (s << 4)) & {32{8'h0F}};
    s = (s | (s << 2)) & {64{4'h3}};
    s = (s | (s << 1)) & {64{4'h5}};
    ghash_sqr_fn = ghash_rev(ghash_reduce(s[254:0]));
  endfunction

  ///////////////////////////////////////////////
  // Three-level Karatsuba carry-less multiply //
  ///////////////////////////////////////////////

  // A 128 x 128 carry-less product as 27 products of 16-bit operands: at each of three levels an
  // n-bit operand splits into lo, hi and lo ^ hi (digit 0, 1, 2), product index 9*d1 + 3*d2 + d3.
  // 27 * 256 = 6912 AND terms instead of 16384 (schoolbook), which is what makes one multiplier
  // per clock affordable in LUT4 logic. Stage A: ghash_kara_ops + ghash_clmul16 on every pair;
  // stage B: ghash_kara_combine (mid ^= lo ^ hi, overlap-add) and ghash_reduce.

  function automatic logic [431:0] ghash_kara_ops(input logic [127:0] a);
    logic [63:0] a1;
    logic [31:0] a2;
    logic [15:0] a3;
    for (int d1 = 0; d1 < 3; d1++) begin
      a1 = (d1 == 0) ? a[63:0] : (d1 == 1) ? a[127:64] : (a[63:0] ^ a[127:64]);
      for (int d2 = 0; d2 < 3; d2++) begin
        a2 = (d2 == 0) ? a1[31:0] : (d2 == 1) ? a1[63:32] : (a1[31:0] ^ a1[63:32]);
        for (int d3 = 0; d3 < 3; d3++) begin
          a3 = (d3 == 0) ? a2[15:0] : (d3 == 1) ? a2[31:16] : (a2[15:0] ^ a2[31:16]);
          ghash_kara_ops[16 * (9 * d1 + 3 * d2 + d3) +: 16] = a3;
        end
      end
    end
  endfunction

  function automatic logic [30:0] ghash_clmul16(input logic [15:0] a, input logic [15:0] b);
    logic [30:0] r;
    r = '0;
    for (int i = 0; i < 16; i++) r = r ^ (({15'b0, b} << i) & {31{a[i]}});
    ghash_clmul16 = r;
  endfunction

  // All 27 base products (stage A).
  function automatic logic [836:0] ghash_kara_products(input logic [127:0] a,
                                                       input logic [127:0] b);
    logic [431:0] oa, ob;
    oa = ghash_kara_ops(a);
    ob = ghash_kara_ops(b);
    for (int k = 0; k < 27; k++) begin
      ghash_kara_products[31 * k +: 31] = ghash_clmul16(oa[16 * k +: 16], ob[16 * k +: 16]);
    end
  endfunction

  // Recombine the 27 products into the 255-bit product (stage B, before reduction).
  function automatic logic [254:0] ghash_kara_combine(input logic [836:0] p);
    logic [62:0]  r32 [3];
    logic [126:0] r64 [3];
    logic [30:0]  lo16, hi16, mi16;
    logic [62:0]  lo32, hi32, mi32;
    logic [126:0] lo64, hi64, mi64;
    for (int d1 = 0; d1 < 3; d1++) begin
      for (int d2 = 0; d2 < 3; d2++) begin
        lo16 = p[31 * (9 * d1 + 3 * d2 + 0) +: 31];
        hi16 = p[31 * (9 * d1 + 3 * d2 + 1) +: 31];
        mi16 = p[31 * (9 * d1 + 3 * d2 + 2) +: 31] ^ lo16 ^ hi16;
        r32[d2] = {32'b0, lo16} ^ ({32'b0, mi16} << 16) ^ ({32'b0, hi16} << 32);
      end
      lo32 = r32[0];
      hi32 = r32[1];
      mi32 = r32[2] ^ lo32 ^ hi32;
      r64[d1] = {64'b0, lo32} ^ ({64'b0, mi32} << 32) ^ ({64'b0, hi32} << 64);
    end
    lo64 = r64[0];
    hi64 = r64[1];
    mi64 = r64[2] ^ lo64 ^ hi64;
    ghash_kara_combine = {128'b0, lo64} ^ ({128'b0, mi64} << 64) ^ ({128'b0, hi64} << 128);
  endfunction

endpackage

`resetall
