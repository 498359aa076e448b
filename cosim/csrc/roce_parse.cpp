// SPDX-License-Identifier: Apache-2.0
// Shim for roce_parse (see shim.h).
#define SHIM_PORTS(IN, OUT)                                                                   \
    IN(clk_i) IN(rst_ni) IN(s_axis_tdata_i) IN(s_axis_tkeep_i) IN(s_axis_tlast_i)              \
    IN(s_axis_tvalid_i) OUT(s_axis_tready_o) OUT(hdr_valid_o) OUT(desc_valid_o) OUT(desc_o)
#include "shim.h"
