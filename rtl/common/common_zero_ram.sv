// SPDX-License-Identifier: Apache-2.0
//
// common_zero_ram: a RAM for key material, Depth x Width bits, one write port and one
// asynchronous read port (distributed RAM: TRELLIS_DPR16X4 on ECP5), whose entries are zeroed
// when their content is no longer wanted, without a second write port.
//
// Data format
// -----------
// we_i writes wdata_i at waddr_i; rdata_o is the entry at raddr_i (combinational).
// zero_i marks entries to be zeroed: each bit marks its entry after this edge. A reset marks
// every entry. In every cycle without a write the port writes zeros to the lowest marked entry
// and clears its mark; a write clears the mark of its entry (the write wins over an older mark,
// but a mark given in the cycle of the write still zeroes it later). So a marked entry is zeroed
// within as many write-free cycles as there are marks ahead of it, and the zeroing never
// overwrites data written after the mark. Reads see an entry's old content until it is zeroed;
// the callers do not use a marked entry (they mark what they no longer read).
// The schedule is common_zero_marks. Used by rocesec_key_cache (reset marks only) and
// rocesec_job_slots (a job's free).

`resetall
`default_nettype none

module common_zero_ram #(
  parameter int unsigned Width = 128,
  parameter int unsigned Depth = 8  // a power of two >= 2
) (
  input  wire logic                     clk_i,
  input  wire logic                     rst_ni,

  input  wire logic                     we_i,
  input  wire logic [$clog2(Depth)-1:0] waddr_i,
  input  wire logic [Width-1:0]         wdata_i,
  input  wire logic [Depth-1:0]         zero_i,

  input  wire logic [$clog2(Depth)-1:0] raddr_i,
  output logic      [Width-1:0]         rdata_o
);

  localparam int unsigned AW = $clog2(Depth);

  (* ram_style = "distributed" *) logic [Width-1:0] mem_q [Depth];
  logic [AW-1:0]    addr;
  logic             zero;

  common_zero_marks #(
    .Depth (Depth)
  ) u_marks (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .we_i    (we_i),
    .waddr_i (waddr_i),
    .zero_i  (zero_i),
    .zero_o  (zero),
    .addr_o  (addr)
  );

  always_ff @(posedge clk_i) begin
    if (we_i || zero) mem_q[addr] <= we_i ? wdata_i : '0;
  end

  assign rdata_o = mem_q[raddr_i];

endmodule

`resetall
