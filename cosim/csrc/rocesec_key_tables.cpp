// SPDX-License-Identifier: Apache-2.0
// Shim for rocesec_key_tables (see shim.h).
#define SHIM_PORTS(IN, OUT)                                                                   \
    IN(clk_i) IN(rst_ni) IN(reg_we_i) IN(reg_addr_i) IN(reg_wdata_i) OUT(pd_write_o)           \
    IN(pol_load_i) IN(pol_hold_i) IN(pol_ld_gid_i) IN(pol_ld_qpn_i) IN(pol_gid_i) IN(pol_qpn_i) \
    OUT(tbl_stale_o) OUT(pol_mode_o) OUT(pol_epoch_o) OUT(pol_next_o) OUT(pol_pd_o)            \
    OUT(pol_gen_o) IN(pd_epoch_i) OUT(pd_match_o) IN(pd_sel_i) OUT(pd_hit_o) OUT(pd_key_o)
#include "shim.h"
