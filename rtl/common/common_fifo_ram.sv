// SPDX-License-Identifier: Apache-2.0
//
// common_fifo_ram: synchronous first-word-fall-through FIFO whose storage is a RAM with a
// registered read (maps to block RAM: DP16KD on ECP5), with the same ports and the same
// cycle behaviour as common_fifo_sync (rvalid_o, rdata_o, wready_o and count_o equal, edge for
// edge, for the same inputs), so a deep FIFO can move out of distributed RAM without changing
// any timing.
//
// Data format
// -----------
// wdata_i is stored as is and presented on rdata_o while rvalid_o is high (first word falls
// through: a word written into an empty FIFO is on rdata_o after that edge).
//
// How
// ---
// Every word is written into the RAM at wptr. Queue entries 0 and 1 are kept in registers
// (r0_q = rdata_o, r1_q), entry 2 either in the RAM's output register (read every cycle at the
// address entry 2 will have after this edge) or, for a word written in the same edge, in a
// bypass register. After a pop entry k takes the value of entry k + 1, so the registers refill
// from the next one without a bubble; the RAM is never read at the address written in the same
// edge (that word comes from wdata_i). Depth must be a power of two >= 4. Pointers, the fill
// count and the entry-2 source flag are reset, the storage is not.

`resetall
`default_nettype none

module common_fifo_ram #(
  parameter int unsigned Width = 8,   // data width
  parameter int unsigned Depth = 512  // entries, power of two >= 4
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

  if (Depth < 4 || (1 << AW) != Depth) begin : gen_param_check
    $error("common_fifo_ram: Depth must be a power of two >= 4 (instance %m)");
  end

  logic [Width-1:0] mem_q [Depth];
  logic [Width-1:0] ram_q;           // RAM read register
  logic [Width-1:0] r0_q, r1_q, d_q; // entries 0 and 1; entry 2 when bypassed
  logic             d_ram_q;         // entry 2 is in ram_q (else d_q)
  logic [Width-1:0] r0_d, r1_d, d_d;
  logic             d_ram_d;
  logic [Width-1:0] e2;
  logic [AW-1:0]    wptr_q, rptr_q, raddr;
  logic [AW-1:0]    rp2_q, rp3_q;    // rptr_q + 2, rptr_q + 3: the RAM read address after a
                                     // no-pop or a pop edge (no adder behind rready_i)
  logic [AW:0]      count_q;
  logic             wfire, rfire;

  assign wready_o = (count_q != (AW+1)'(Depth));
  assign rvalid_o = (count_q != '0);
  assign rdata_o  = r0_q;
  assign count_o  = count_q;
  assign wfire    = wvalid_i && wready_o;
  assign rfire    = rvalid_o && rready_i;
  assign e2       = d_ram_q ? ram_q : d_q;

  // New entries k = 0, 1, 2 are the old entries k + rfire; old entry count_q is the word
  // written in this edge.
  always_comb begin
    logic gt, eq;  // old entry 2 + rfire is in the RAM / is the word written now
    r0_d    = r0_q;
    r1_d    = r1_q;
    d_d     = d_q;
    d_ram_d = d_ram_q;
    if (!rfire) begin
      if (count_q == '0 && wfire)           r0_d = wdata_i;
      if (count_q == (AW+1)'(1) && wfire)   r1_d = wdata_i;
    end else begin
      if (count_q >= (AW+1)'(2))            r0_d = r1_q;
      else if (wfire)                       r0_d = wdata_i;
      if (count_q >= (AW+1)'(3))            r1_d = e2;
      else if (count_q == (AW+1)'(2) && wfire) r1_d = wdata_i;
    end
    raddr = rfire ? rp3_q : rp2_q;
    gt    = rfire ? (count_q > (AW+1)'(3)) : (count_q > (AW+1)'(2));
    eq    = rfire ? (count_q == (AW+1)'(3)) : (count_q == (AW+1)'(2));
    if (gt) begin
      d_ram_d = 1'b1;
    end else if (eq && wfire) begin
      d_d     = wdata_i;
      d_ram_d = 1'b0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wptr_q  <= '0;
      rptr_q  <= '0;
      rp2_q   <= AW'(2);
      rp3_q   <= AW'(3);
      count_q <= '0;
      d_ram_q <= 1'b0;
    end else begin
      if (wfire) wptr_q <= wptr_q + 1'b1;
      if (rfire) begin
        rptr_q <= rptr_q + 1'b1;
        rp2_q  <= rp3_q;
        rp3_q  <= rp3_q + 1'b1;
      end
      count_q <= count_q + (AW+1)'(wfire) - (AW+1)'(rfire);
      d_ram_q <= d_ram_d;
    end
  end

  always_ff @(posedge clk_i) begin
    r0_q <= r0_d;
    r1_q <= r1_d;
    d_q  <= d_d;
  end

  // The RAM: one write port, one registered read port (read every cycle).
  always_ff @(posedge clk_i) begin
    if (wfire) mem_q[wptr_q] <= wdata_i;
    ram_q <= mem_q[raddr];
  end

endmodule
