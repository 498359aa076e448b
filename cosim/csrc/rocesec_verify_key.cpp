// SPDX-License-Identifier: Apache-2.0
// Shim for rocesec_verify_key (see shim.h).
#define SHIM_PORTS(IN, OUT)                                                                   \
    IN(clk_i) IN(rst_ni) IN(hdr_valid_i) OUT(hdr_ready_o) IN(hdr_desc_i) IN(fin_valid_i)        \
    OUT(fin_ready_o) IN(fin_kind_i) IN(fin_icrc_ok_i) OUT(job_valid_o) IN(job_ready_i)         \
    OUT(job_o) IN(auth_valid_i) OUT(auth_ready_o) IN(auth_ok_i) OUT(done_valid_o)              \
    OUT(done_reason_o) OUT(done_fwd_o) IN(drop_i) IN(drop_oversize_i) IN(reg_we_i)             \
    IN(reg_addr_i) IN(reg_wdata_i) IN(reg_raddr_i) OUT(reg_rdata_o) OUT(kdf_busy_o)            \
    OUT(rk_we_o) OUT(rk_slot_o) OUT(rk_round_o) OUT(rk_data_o)
#include "shim.h"
