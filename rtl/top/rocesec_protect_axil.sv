// SPDX-License-Identifier: Apache-2.0
//
// rocesec_protect_axil: the protect (TX) top as delivered — rocesec_protect behind an AXI4-Lite
// register interface (common_axil_regs). This is the module to instantiate in a NIC or FPGA
// design; rocesec_protect is the same engine with the simple register port used by the block
// tests.
//
// Data format
// -----------
// AXI4-Stream as rocesec_protect (LANES x 128-bit beats, byte i of the frame in tdata bits
// [8i+7:8i], tuser on the last output beat: [3:0] verdict = model Reason::code(), [5:4] forward
// kind). AXI4-Lite: 16-bit byte addresses, 32-bit words, register map in docs/register-map.md
// (tables written, counters read; partial-strobe writes answer SLVERR and are not performed).

`resetall
`default_nettype none

// One of the tree's three tops by design: no MULTITOP when all of rtl/ is linted in one call.
/* verilator lint_off MULTITOP */
module rocesec_protect_axil
#(
  parameter int unsigned LANES     = 1,    // 128-bit blocks per beat (1, 2 or 4)
  parameter int unsigned FifoBeats = 512,  // packet FIFO depth (beats)
  parameter int unsigned NumQps    = 128   // TX QP state entries
) (
  input  wire logic                  clk_i,
  input  wire logic                  rst_ni,

  // AXI4-Stream input (plain frames)
  input  wire logic [128*LANES-1:0]  s_axis_tdata_i,
  input  wire logic [16*LANES-1:0]   s_axis_tkeep_i,
  input  wire logic                  s_axis_tlast_i,
  input  wire logic                  s_axis_tvalid_i,
  output logic                       s_axis_tready_o,

  // AXI4-Stream output (protected frames)
  output logic [128*LANES-1:0]       m_axis_tdata_o,
  output logic [16*LANES-1:0]        m_axis_tkeep_o,
  output logic                       m_axis_tlast_o,
  output logic [7:0]                 m_axis_tuser_o,
  output logic                       m_axis_tvalid_o,
  input  wire logic                  m_axis_tready_i,

  // AXI4-Lite register interface (docs/register-map.md)
  input  wire logic [15:0]           s_axil_awaddr_i,
  input  wire logic [2:0]            s_axil_awprot_i,
  input  wire logic                  s_axil_awvalid_i,
  output logic                       s_axil_awready_o,
  input  wire logic [31:0]           s_axil_wdata_i,
  input  wire logic [3:0]            s_axil_wstrb_i,
  input  wire logic                  s_axil_wvalid_i,
  output logic                       s_axil_wready_o,
  output logic      [1:0]            s_axil_bresp_o,
  output logic                       s_axil_bvalid_o,
  input  wire logic                  s_axil_bready_i,
  input  wire logic [15:0]           s_axil_araddr_i,
  input  wire logic [2:0]            s_axil_arprot_i,
  input  wire logic                  s_axil_arvalid_i,
  output logic                       s_axil_arready_o,
  output logic      [31:0]           s_axil_rdata_o,
  output logic      [1:0]            s_axil_rresp_o,
  output logic                       s_axil_rvalid_o,
  input  wire logic                  s_axil_rready_i,

  // Status
  output logic                       kdf_busy_o
);

  logic        reg_we;
  logic [15:0] reg_addr, reg_raddr;
  logic [31:0] reg_wdata, reg_rdata;

  common_axil_regs #(
    .AddrW (16)
  ) u_regs (
    .clk_i            (clk_i),
    .rst_ni           (rst_ni),
    .s_axil_awaddr_i  (s_axil_awaddr_i),
    .s_axil_awprot_i  (s_axil_awprot_i),
    .s_axil_awvalid_i (s_axil_awvalid_i),
    .s_axil_awready_o (s_axil_awready_o),
    .s_axil_wdata_i   (s_axil_wdata_i),
    .s_axil_wstrb_i   (s_axil_wstrb_i),
    .s_axil_wvalid_i  (s_axil_wvalid_i),
    .s_axil_wready_o  (s_axil_wready_o),
    .s_axil_bresp_o   (s_axil_bresp_o),
    .s_axil_bvalid_o  (s_axil_bvalid_o),
    .s_axil_bready_i  (s_axil_bready_i),
    .s_axil_araddr_i  (s_axil_araddr_i),
    .s_axil_arprot_i  (s_axil_arprot_i),
    .s_axil_arvalid_i (s_axil_arvalid_i),
    .s_axil_arready_o (s_axil_arready_o),
    .s_axil_rdata_o   (s_axil_rdata_o),
    .s_axil_rresp_o   (s_axil_rresp_o),
    .s_axil_rvalid_o  (s_axil_rvalid_o),
    .s_axil_rready_i  (s_axil_rready_i),
    .reg_we_o         (reg_we),
    .reg_addr_o       (reg_addr),
    .reg_wdata_o      (reg_wdata),
    .reg_raddr_o      (reg_raddr),
    .reg_rdata_i      (reg_rdata)
  );

  rocesec_protect #(
    .LANES     (LANES),
    .FifoBeats (FifoBeats),
    .NumQps    (NumQps)
  ) u_protect (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .s_axis_tdata_i  (s_axis_tdata_i),
    .s_axis_tkeep_i  (s_axis_tkeep_i),
    .s_axis_tlast_i  (s_axis_tlast_i),
    .s_axis_tvalid_i (s_axis_tvalid_i),
    .s_axis_tready_o (s_axis_tready_o),
    .m_axis_tdata_o  (m_axis_tdata_o),
    .m_axis_tkeep_o  (m_axis_tkeep_o),
    .m_axis_tlast_o  (m_axis_tlast_o),
    .m_axis_tuser_o  (m_axis_tuser_o),
    .m_axis_tvalid_o (m_axis_tvalid_o),
    .m_axis_tready_i (m_axis_tready_i),
    .reg_we_i        (reg_we),
    .reg_addr_i      (reg_addr),
    .reg_wdata_i     (reg_wdata),
    .reg_raddr_i     (reg_raddr),
    .reg_rdata_o     (reg_rdata),
    .kdf_busy_o      (kdf_busy_o)
  );

endmodule
