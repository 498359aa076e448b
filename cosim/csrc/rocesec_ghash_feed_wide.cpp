// SPDX-License-Identifier: Apache-2.0
// Shim for rocesec_ghash_feed_wide (see shim.h).
#define SHIM_PORTS(IN, OUT)                                                                   \
    IN(clk_i) IN(rst_ni) IN(in_valid_i) OUT(in_ready_o) IN(in_data_i) IN(in_keep_i)             \
    IN(in_last_i) IN(in_slot_i) IN(in_k_i) IN(in_active_i) IN(in_ip_off_i) OUT(cur_slot_o)      \
    IN(cur_mode_i) IN(cur_ipv6_i) IN(cur_ip_off_i) IN(cur_udp_off_i) IN(cur_bth_off_i)          \
    IN(cur_cstart_i) IN(cur_cend_i) OUT(h_slot_o) IN(h_i) OUT(out_valid_o) IN(out_ready_i)      \
    OUT(out_data_o) OUT(out_keep_o) OUT(out_last_o) OUT(out_slot_o) OUT(out_k_o)                \
    OUT(hash_valid_o) OUT(hash_slot_o) OUT(hash_o)
#include "shim.h"
