// SPDX-License-Identifier: Apache-2.0
//
// common_skid: one-entry skid buffer with a registered ready — cuts the combinational ready path
// from a consumer back into its producer's control without adding a cycle of latency.
//
// Data format
// -----------
// s_data_i is passed on unchanged (AXI4-Stream-style valid/ready on both sides; a word moves when
// valid and ready are both high). While the buffer is empty the input falls through to the
// output in the same cycle; a word offered while the consumer is not ready is taken into the
// buffer, and s_ready_o (a register, !buf_v_q) is low until the consumer has taken it. So the
// producer sees a ready that depends on no logic of the consumer, at one word of storage; the
// throughput stays one word per cycle and the output order is the input order.
//
// Timing
// ------
// Compared with a direct connection (s_ready_o = m_ready_i), a producer that offers a word in a
// cycle in which the consumer stalls may offer its next word one cycle earlier; the consumer
// never sees a word later than it would have. The protect top's timing layer models it as one
// `Option` slot (model/src/timing.rs, `Emit::skid`).

`resetall
`default_nettype none

module common_skid #(
  parameter int unsigned Width = 8  // data width
) (
  input  wire logic             clk_i,
  input  wire logic             rst_ni,

  // Input (producer)
  input  wire logic             s_valid_i,
  output logic                  s_ready_o,
  input  wire logic [Width-1:0] s_data_i,

  // Output (consumer)
  output logic                  m_valid_o,
  input  wire logic             m_ready_i,
  output logic      [Width-1:0] m_data_o
);

  /////////////
  // Signals //
  /////////////

  logic             buf_v_q;
  logic [Width-1:0] buf_q;

  /////////////
  // Control //
  /////////////

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      buf_v_q <= 1'b0;
    end else if (buf_v_q) begin
      if (m_ready_i) buf_v_q <= 1'b0;
    end else if (s_valid_i && !m_ready_i) begin
      buf_v_q <= 1'b1;
    end
  end

  //////////
  // Data //
  //////////

  // (no reset: read only while buf_v_q.) Loaded in every cycle the buffer is empty, so its
  // load enable is the register buf_v_q alone: the consumer's ready (often the end of a deep
  // decision) reaches only buf_v_q, not the enable of Width flops. A word loaded while the
  // consumer takes the input directly is never read: buf_v_q stays low.
  always_ff @(posedge clk_i) begin
    if (!buf_v_q) buf_q <= s_data_i;
  end

  /////////////
  // Outputs //
  /////////////

  assign s_ready_o = !buf_v_q;
  assign m_valid_o = buf_v_q || s_valid_i;
  assign m_data_o  = buf_v_q ? buf_q : s_data_i;

endmodule

`resetall
