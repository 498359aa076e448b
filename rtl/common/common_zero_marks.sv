// SPDX-License-Identifier: Apache-2.0
//
// common_zero_marks: the zeroing schedule of a RAM that holds key material and has one write
// port: which entry the port writes in each cycle, a data write or zeros.
//
// Data format
// -----------
// we_i / waddr_i: a data write this cycle. zero_i marks entries to be zeroed (each bit marks its
// entry after this edge); a reset marks every entry. addr_o is the entry the port writes this
// cycle: waddr_i for a data write, else the lowest marked entry; zero_o is high when it writes
// zeros there (no data write and some entry marked). The entry written, data or zeros, loses
// its mark at the edge (a mark given in the cycle of the write stays and zeroes it later). So a
// marked entry is zeroed within as many write-free cycles as there are marks ahead of it, and
// zeroing never overwrites data written after the mark. The outputs come from the registered
// marks and we_i / waddr_i only (zero_i reaches only the marks' D).
// Used by common_zero_ram (distributed RAM) and aes_cipher_pipe_rk (block RAM).

`resetall
`default_nettype none

module common_zero_marks #(
  parameter int unsigned Depth = 8  // entries, a power of two >= 2
) (
  input  wire logic                     clk_i,
  input  wire logic                     rst_ni,

  input  wire logic                     we_i,
  input  wire logic [$clog2(Depth)-1:0] waddr_i,
  input  wire logic [Depth-1:0]         zero_i,

  output logic                          zero_o,
  output logic      [$clog2(Depth)-1:0] addr_o
);

  localparam int unsigned AW = $clog2(Depth);

  logic [Depth-1:0] mark_q;
  logic [AW-1:0]    zidx;

  // lowest marked entry
  always_comb begin
    zidx = '0;
    for (int j = Depth - 1; j >= 0; j--) if (mark_q[j]) zidx = AW'(j);
  end

  assign zero_o = !we_i && (|mark_q);
  assign addr_o = we_i ? waddr_i : zidx;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mark_q <= '1;
    end else begin
      mark_q <= (mark_q & ~({Depth{we_i || zero_o}} & (Depth'(1) << addr_o))) | zero_i;
    end
  end

endmodule

`resetall
