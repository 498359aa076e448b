// SPDX-License-Identifier: Apache-2.0
// Shim for common_skid (see shim.h).
#define SHIM_PORTS(IN, OUT)                                                                   \
    IN(clk_i) IN(rst_ni) IN(s_valid_i) OUT(s_ready_o) IN(s_data_i) OUT(m_valid_o)             \
    IN(m_ready_i) OUT(m_data_o)
#include "shim.h"
