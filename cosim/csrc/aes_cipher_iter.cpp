// SPDX-License-Identifier: Apache-2.0
// Shim for aes_cipher_iter (see shim.h).
#define SHIM_PORTS(IN, OUT)                                                                   \
    IN(clk_i) IN(rst_ni) IN(start_i) IN(key_i) IN(data_i) OUT(busy_o) OUT(done_o) OUT(data_o)
#include "shim.h"
