// SPDX-License-Identifier: Apache-2.0
// Shim for roce_icrc (see shim.h).
#define SHIM_PORTS(IN, OUT) \
    IN(clk_i) IN(rst_ni) IN(s_axis_tvalid_i) IN(s_axis_tdata_i) IN(s_axis_tkeep_i) \
    IN(s_axis_tlast_i) OUT(crc_valid_o) OUT(crc_o)
#include "shim.h"
