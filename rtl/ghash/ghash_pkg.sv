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

  // Block order <-> polynomial order (bit i <-> bit 127-i).
  function automatic logic [127:0] ghash_rev(input logic [127:0] x);
    for (int i = 0; i < 128; i++) ghash_rev[i] = x[127 - i];
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

  // Reduction of a 255-bit product modulo a^128 + a^7 + a^2 + a + 1 (polynomial order).
  function automatic logic [127:0] ghash_reduce(input logic [254:0] p);
    logic [254:0] r;
    r = p;
    for (int i = 254; i >= 128; i--) begin
      if (r[i]) begin
        r[i - 128] = ~r[i - 128];
        r[i - 127] = ~r[i - 127];
        r[i - 126] = ~r[i - 126];
        r[i - 121] = ~r[i - 121];
      end
    end
    ghash_reduce = r[127:0];
  endfunction

  // Full product in block order: SP 800-38D §6.3 Algorithm 1, X * Y.
  function automatic logic [127:0] ghash_mul_fn(input logic [127:0] x, input logic [127:0] y);
    ghash_mul_fn = ghash_rev(ghash_reduce(ghash_clmul_part('0, ghash_rev(x), ghash_rev(y), 0, 128)));
  endfunction

  // Square in block order (X * X): squaring is linear over GF(2), so this is a shallow XOR network
  // (spread bit i to 2i, then reduce).
  function automatic logic [127:0] ghash_sqr_fn(input logic [127:0] x);
    logic [127:0] p;
    logic [254:0] s;
    p = ghash_rev(x);
    s = '0;
    for (int i = 0; i < 128; i++) s[2 * i] = p[i];
    ghash_sqr_fn = ghash_rev(ghash_reduce(s));
  endfunction

endpackage

`resetall
