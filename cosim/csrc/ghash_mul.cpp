// SPDX-License-Identifier: Apache-2.0
// Shim for ghash_mul (see shim.h).
#define SHIM_PORTS(IN, OUT) \
    IN(clk_i) IN(rst_ni) IN(valid_i) IN(tag_i) IN(a_i) IN(b_i) OUT(valid_o) OUT(tag_o) OUT(p_o)
#include "shim.h"
