// SPDX-License-Identifier: Apache-2.0
//
// syn_reset_glb: synthesis-only reset for the top pin wrappers, as on a board: the rst_ni pin
// goes through a synchronizer (asynchronous assertion, release two clk_i edges later) and an
// ECP5 DCCA onto a global network, which reaches the LSR input of every slice. Yosys maps the
// tops' active-low asynchronous resets to active-high LSR through an inverter; rst_no is the
// complement of the global net, so after flattening the two inversions cancel and the LSR pins
// hang on the global itself. Until session 28 the tops got the pin directly: one fabric net
// from an inverter LUT to 13,837 LSR pins (protect), routed like any data net. Not part of the
// design.

`resetall
`default_nettype none

module syn_reset_glb (
  input  wire logic clk_i,
  input  wire logic rst_ni,   // pin, asynchronous
  output logic      rst_no    // to the top's rst_ni
);

  logic [1:0] rst_sync_q;
  logic       rst_p, rst_glb;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) rst_sync_q <= 2'b00;
    else         rst_sync_q <= {rst_sync_q[0], 1'b1};
  end

  assign rst_p = ~rst_sync_q[1];
  DCCA u_rst_glb (.CLKI(rst_p), .CE(1'b1), .CLKO(rst_glb));
  assign rst_no = ~rst_glb;

endmodule

`resetall
