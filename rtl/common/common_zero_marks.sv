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

  // Lowest marked entry (0 when none, as a loop over the entries in order gives), as a binary
  // tree of AW levels: node n of level k covers entries [n * 2^k, (n + 1) * 2^k) and holds
  // whether one is marked and the lowest marked one's index (updated in place: node n of level
  // k overwrites entry n, which node n / 2 read earlier in that level). The loop itself is a
  // priority chain: with Depth = 128 (aes_cipher_pipe_rk) Yosys mapped it to about 25 L6MUX21
  // in series, both tops' critical path in session 34. scripts/equiv.sh proves this module
  // equal to the loop (syn/fixtures/common_zero_marks_ref.sv).
  always_comb begin
    logic [Depth-1:0] any;
    logic [AW-1:0]    idx [Depth];
    any = mark_q;
    for (int j = 0; j < Depth; j++) idx[j] = AW'(j);
    for (int k = 1; k <= AW; k++) begin
      for (int n = 0; n < (Depth >> k); n++) begin
        idx[n] = (!any[2 * n] && any[2 * n + 1]) ? idx[2 * n + 1] : idx[2 * n];
        any[n] = any[2 * n] | any[2 * n + 1];
      end
    end
    zidx = idx[0];
  end

  // The lowest mark as a one-hot, for its own clearing: mark_q & ~(OR of the marks below), the
  // OR as a parallel prefix of AW doubling steps (after step s, pre[j] is the OR of marks
  // j - 2^(s+1) + 1 .. j), so the marks' loop does not go through zidx and a decoder.
  logic [Depth-1:0] low_hot;

  always_comb begin
    logic [Depth-1:0] pre;
    pre = mark_q;
    for (int s = 0; s < AW; s++) pre = pre | (pre << (1 << s));
    low_hot = mark_q & ~(pre << 1);
  end

  assign zero_o = !we_i && (|mark_q);
  assign addr_o = we_i ? waddr_i : zidx;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mark_q <= '1;
    end else if (we_i) begin
      mark_q <= (mark_q & ~(Depth'(1) << waddr_i)) | zero_i;
    end else begin
      mark_q <= (mark_q & ~low_hot) | zero_i;  // (no mark: low_hot is zero)
    end
  end

endmodule

`resetall
