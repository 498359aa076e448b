// SPDX-License-Identifier: Apache-2.0
// Shim for rocesec_protect (see shim.h).
#define SHIM_PORTS(IN, OUT)                                                                   \
    IN(clk_i) IN(rst_ni) IN(s_axis_tdata_i) IN(s_axis_tkeep_i) IN(s_axis_tlast_i)              \
    IN(s_axis_tvalid_i) OUT(s_axis_tready_o) OUT(m_axis_tdata_o) OUT(m_axis_tkeep_o)           \
    OUT(m_axis_tlast_o) OUT(m_axis_tuser_o) OUT(m_axis_tvalid_o) IN(m_axis_tready_i)           \
    IN(reg_we_i) IN(reg_addr_i) IN(reg_wdata_i) IN(reg_raddr_i) OUT(reg_rdata_o)               \
    OUT(kdf_busy_o)
#include "shim.h"
