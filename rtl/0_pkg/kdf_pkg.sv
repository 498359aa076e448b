// SPDX-License-Identifier: Apache-2.0
//
// kdf_pkg: helpers of the AES-CMAC (SP 800-38B) / KBKDF (SP 800-108r1) engine.
//
// Data format
// -----------
// Blocks are 128 bits with byte b0 in bits [127:120]; the CMAC subkey doubling of SP 800-38B
// §6.1 is a left shift of that 128-bit big-endian string with R_128 = 0^120 || 10000111.

`resetall
`default_nettype none

package kdf_pkg;

  // SP 800-38B §6.1 step 2/3: K1 = L << 1 (^ R_128 if MSB(L)), K2 = K1 << 1 (^ R_128 if MSB(K1)).
  function automatic logic [127:0] kdf_dbl(input logic [127:0] x);
    kdf_dbl = {x[126:0], 1'b0} ^ (x[127] ? 128'h87 : 128'h0);
  endfunction

endpackage

`resetall
