// SPDX-License-Identifier: Apache-2.0
// Shim for common_fifo_ram (see shim.h).
#define SHIM_PORTS(IN, OUT)                                                                   \
    IN(clk_i) IN(rst_ni) IN(wvalid_i) OUT(wready_o) IN(wdata_i) OUT(rvalid_o) IN(rready_i)     \
    OUT(rdata_o) OUT(count_o)
#include "shim.h"
