// SPDX-License-Identifier: Apache-2.0
//
// rocesec_protect_syn: synthesis-only pin wrapper for the protect top rocesec_protect_axil (its
// ~470 stream and AXI4-Lite ports exceed the 205 user pins of the CABGA381 package). Every wide
// input comes from a register loaded 16 bits per cycle from din_i (so no input is constant and
// nothing is optimized away); tdata out and rdata are XOR-folded to registered pins. The stream
// handshakes, tkeep, tlast and the AXI4-Lite valid/ready/resp signals are real pins. Not part
// of the design.
// The reset comes through syn_reset_glb (synchronizer and DCCA onto a global network).

`resetall
`default_nettype none

module rocesec_protect_syn #(
  parameter int unsigned NumQps = 128  // QP state entries of the top (synthesis sweeps it)
) (
  input  wire logic        clk_i,
  input  wire logic        rst_ni,
  input  wire logic        shift_i,     // shift din_i into the input register
  input  wire logic [15:0] din_i,

  input  wire logic [15:0] s_tkeep_i,
  input  wire logic        s_tlast_i,
  input  wire logic        s_tvalid_i,
  output logic             s_tready_o,
  output logic      [15:0] m_fold_o,
  output logic      [3:0]  m_keep_fold_o,
  output logic             m_tlast_o,
  output logic      [7:0]  m_tuser_o,
  output logic             m_tvalid_o,
  input  wire logic        m_tready_i,

  input  wire logic        awvalid_i,
  output logic             awready_o,
  input  wire logic [3:0]  wstrb_i,
  input  wire logic        wvalid_i,
  output logic             wready_o,
  output logic      [1:0]  bresp_o,
  output logic             bvalid_o,
  input  wire logic        bready_i,
  input  wire logic        arvalid_i,
  output logic             arready_o,
  output logic      [7:0]  rfold_o,
  output logic      [1:0]  rresp_o,
  output logic             rvalid_o,
  input  wire logic        rready_i,
  output logic             kdf_busy_o
);

  // tdata 128 | awaddr 16 | araddr 16 | wdata 32 = 192 bits = 12 shifts
  localparam int unsigned InW = 192;

  logic rst_n;
  syn_reset_glb u_rst (.clk_i(clk_i), .rst_ni(rst_ni), .rst_no(rst_n));

  logic [InW-1:0] in_q;
  always_ff @(posedge clk_i) begin
    if (shift_i) in_q <= {in_q[InW-17:0], din_i};
  end

  logic [127:0] m_tdata;
  logic [15:0]  m_tkeep;
  logic [31:0]  rdata;
  logic         m_tlast, m_tvalid, s_tready;
  logic [7:0]   m_tuser;

  rocesec_protect_axil #(
    .LANES  (1),
    .NumQps (NumQps)
  ) u_dut (
    .clk_i            (clk_i),
    .rst_ni           (rst_n),
    .s_axis_tdata_i   (in_q[127:0]),
    .s_axis_tkeep_i   (s_tkeep_i),
    .s_axis_tlast_i   (s_tlast_i),
    .s_axis_tvalid_i  (s_tvalid_i),
    .s_axis_tready_o  (s_tready),
    .m_axis_tdata_o   (m_tdata),
    .m_axis_tkeep_o   (m_tkeep),
    .m_axis_tlast_o   (m_tlast),
    .m_axis_tuser_o   (m_tuser),
    .m_axis_tvalid_o  (m_tvalid),
    .m_axis_tready_i  (m_tready_i),
    .s_axil_awaddr_i  (in_q[143:128]),
    .s_axil_awprot_i  (3'b000),
    .s_axil_awvalid_i (awvalid_i),
    .s_axil_awready_o (awready_o),
    .s_axil_wdata_i   (in_q[191:160]),
    .s_axil_wstrb_i   (wstrb_i),
    .s_axil_wvalid_i  (wvalid_i),
    .s_axil_wready_o  (wready_o),
    .s_axil_bresp_o   (bresp_o),
    .s_axil_bvalid_o  (bvalid_o),
    .s_axil_bready_i  (bready_i),
    .s_axil_araddr_i  (in_q[159:144]),
    .s_axil_arprot_i  (3'b000),
    .s_axil_arvalid_i (arvalid_i),
    .s_axil_arready_o (arready_o),
    .s_axil_rdata_o   (rdata),
    .s_axil_rresp_o   (rresp_o),
    .s_axil_rvalid_o  (rvalid_o),
    .s_axil_rready_i  (rready_i),
    .kdf_busy_o       (kdf_busy_o)
  );

  logic [15:0] fold_d;
  logic [3:0]  keep_fold_d;
  logic [7:0]  rfold_d;
  always_comb begin
    fold_d = '0;
    for (int i = 0; i < 8; i++) fold_d = fold_d ^ m_tdata[16 * i +: 16];
    keep_fold_d = m_tkeep[3:0] ^ m_tkeep[7:4] ^ m_tkeep[11:8] ^ m_tkeep[15:12];
    rfold_d = rdata[7:0] ^ rdata[15:8] ^ rdata[23:16] ^ rdata[31:24];
  end

  always_ff @(posedge clk_i) begin
    m_fold_o      <= fold_d;
    m_keep_fold_o <= keep_fold_d;
    rfold_o       <= rfold_d;
  end

  assign s_tready_o = s_tready;
  assign m_tlast_o  = m_tlast;
  assign m_tuser_o  = m_tuser;
  assign m_tvalid_o = m_tvalid;

endmodule

`resetall
