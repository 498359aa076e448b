// SPDX-License-Identifier: Apache-2.0
// Shim for rocesec_verify_axil (see shim.h).
#define SHIM_PORTS(IN, OUT)                                                                   \
    IN(clk_i) IN(rst_ni) IN(s_axis_tdata_i) IN(s_axis_tkeep_i) IN(s_axis_tlast_i)              \
    IN(s_axis_tvalid_i) OUT(s_axis_tready_o) OUT(m_axis_tdata_o) OUT(m_axis_tkeep_o)           \
    OUT(m_axis_tlast_o) OUT(m_axis_tuser_o) OUT(m_axis_tvalid_o) IN(m_axis_tready_i)           \
    IN(s_axil_awaddr_i) IN(s_axil_awprot_i) IN(s_axil_awvalid_i) OUT(s_axil_awready_o)         \
    IN(s_axil_wdata_i) IN(s_axil_wstrb_i) IN(s_axil_wvalid_i) OUT(s_axil_wready_o)             \
    OUT(s_axil_bresp_o) OUT(s_axil_bvalid_o) IN(s_axil_bready_i)                               \
    IN(s_axil_araddr_i) IN(s_axil_arprot_i) IN(s_axil_arvalid_i) OUT(s_axil_arready_o)         \
    OUT(s_axil_rdata_o) OUT(s_axil_rresp_o) OUT(s_axil_rvalid_o) IN(s_axil_rready_i)           \
    OUT(kdf_busy_o)
#include "shim.h"
