// SPDX-License-Identifier: Apache-2.0
// Shim for aes_cipher_pipe (see shim.h).
#define SHIM_PORTS(IN, OUT) \
    IN(clk_i) IN(rst_ni) IN(en_i) IN(in_valid_i) IN(in_tag_i) IN(in_key_i) IN(in_data_i) \
    OUT(out_valid_o) OUT(out_tag_o) OUT(out_data_o)
#include "shim.h"
