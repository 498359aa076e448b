// SPDX-License-Identifier: Apache-2.0
// Shim for ghash_lanes (see shim.h).
#define SHIM_PORTS(IN, OUT) \
    IN(clk_i) IN(rst_ni) IN(in_valid_i) IN(in_first_i) IN(in_last_i) IN(in_keep_i) IN(in_tag_i) \
    IN(in_data_i) IN(in_h_i) IN(in_hpow_i) OUT(out_valid_o) OUT(out_tag_o) OUT(out_hash_o)
#include "shim.h"
