// SPDX-License-Identifier: Apache-2.0
// Shim for kdf_cmac (see shim.h).
#define SHIM_PORTS(IN, OUT) \
    IN(clk_i) IN(rst_ni) IN(req_valid_i) OUT(req_ready_o) IN(req_key_i) IN(req_kdf_i) IN(req_enc_i) \
    IN(req_out256_i) IN(req_msg_i) IN(req_msg_len_i) OUT(rsp_valid_o) OUT(rsp_key_o)
#include "shim.h"
