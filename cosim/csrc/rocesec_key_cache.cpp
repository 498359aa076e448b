// SPDX-License-Identifier: Apache-2.0
// Shim for rocesec_key_cache (see shim.h).
#define SHIM_PORTS(IN, OUT)                                                                   \
    IN(clk_i) IN(rst_ni) IN(req_valid_i) IN(req_tag_i) IN(req_pdkey_i) IN(pre_tag_i) OUT(rsp_valid_o)        \
    OUT(rsp_key_o) OUT(rsp_h_o) IN(flush_i) OUT(busy_o) OUT(rsp_rk_o) OUT(rk_we_o) OUT(rk_slot_o)  \
    OUT(rk_round_o) OUT(rk_data_o)
#include "shim.h"
