// SPDX-License-Identifier: Apache-2.0
//
// common_fifo_sync: synchronous first-word-fall-through FIFO with valid/ready on both sides.
//
// Data format
// -----------
// wdata_i is stored as is and presented on rdata_o while rvalid_o is high (first word falls
// through: no read latency). Depth must be a power of two. The storage is a plain array (maps to
// distributed or block RAM); pointers and the fill count are reset, the storage is not.

`resetall
`default_nettype none

module common_fifo_sync #(
  parameter int unsigned Width = 8,   // data width
  parameter int unsigned Depth = 16,  // entries, power of two >= 2
  // 1: rdata_o from a register (the head, read a cycle ahead: same values in every cycle as
  // with 0, but the consumer's path starts at a flip-flop, not at the storage's read)
  parameter bit          RegOut = 1'b0
) (
  input  wire logic             clk_i,
  input  wire logic             rst_ni,

  input  wire logic             wvalid_i,
  output logic                  wready_o,
  input  wire logic [Width-1:0] wdata_i,

  output logic                  rvalid_o,
  input  wire logic             rready_i,
  output logic      [Width-1:0] rdata_o,

  output logic [$clog2(Depth):0] count_o
);

  localparam int unsigned AW = $clog2(Depth);

  if (Depth < 2 || (1 << AW) != Depth) begin : gen_param_check
    $error("common_fifo_sync: Depth must be a power of two >= 2 (instance %m)");
  end

  logic [Width-1:0] mem_q [Depth];
  logic [AW-1:0]    wptr_q, rptr_q;
  logic [AW:0]      count_q;
  logic             wfire, rfire;

  assign wready_o = (count_q != (AW+1)'(Depth));
  assign rvalid_o = (count_q != '0);
  assign count_o  = count_q;
  assign wfire    = wvalid_i && wready_o;
  assign rfire    = rvalid_o && rready_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wptr_q  <= '0;
      rptr_q  <= '0;
      count_q <= '0;
    end else begin
      if (wfire) wptr_q <= wptr_q + 1'b1;
      if (rfire) rptr_q <= rptr_q + 1'b1;
      count_q <= count_q + (AW+1)'(wfire) - (AW+1)'(rfire);
    end
  end

  always_ff @(posedge clk_i) begin
    if (wfire) mem_q[wptr_q] <= wdata_i;
  end

  if (RegOut) begin : gen_reg_out
    // The head after the edge, mem[rptr'] with this cycle's write: both candidates (the head
    // stays, or the next entry becomes it) read from registered addresses, and rfire, the
    // consumer's handshake, only chooses between them at the end.
    logic [AW-1:0]    rptr1_q;  // rptr_q + 1
    logic [Width-1:0] head_q, stay, next;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        rptr1_q <= AW'(1);
      end else if (rfire) begin
        rptr1_q <= rptr1_q + 1'b1;
      end
    end
    assign stay = (wfire && wptr_q == rptr_q)  ? wdata_i : mem_q[rptr_q];
    assign next = (wfire && wptr_q == rptr1_q) ? wdata_i : mem_q[rptr1_q];
    always_ff @(posedge clk_i) begin
      head_q <= rfire ? next : stay;
    end
    assign rdata_o = head_q;
  end else begin : gen_comb_out
    assign rdata_o = mem_q[rptr_q];
  end

endmodule
