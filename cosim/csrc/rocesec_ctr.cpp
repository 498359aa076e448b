// SPDX-License-Identifier: Apache-2.0
// Shim for rocesec_ctr (see shim.h).
#define SHIM_PORTS(IN, OUT)                                                                   \
    IN(clk_i) IN(rst_ni) IN(job_push_i) OUT(job_slot_o) IN(job_active_i) IN(job_key_i)          \
    IN(job_rk_i) IN(job_iv_i) IN(job_nks_i) OUT(ekj0_valid_o) OUT(ekj0_slot_o) OUT(ekj0_data_o) \
    OUT(ks_valid_o) OUT(ks_data_o) IN(ks_pop_i) IN(rk_we_i) IN(rk_slot_i) IN(rk_round_i)           \
    IN(rk_data_i)
#include "shim.h"
