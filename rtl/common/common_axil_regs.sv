// SPDX-License-Identifier: Apache-2.0
//
// common_axil_regs: AXI4-Lite slave (ARM IHI 0022, AXI4-Lite subset) in front of a simple
// register port: one write strobe with address and data, and a read address with a
// combinational read data return.
//
// Data format
// -----------
// 32-bit data, byte addresses of AddrW bits; the two low address bits are ignored (word
// access). A write needs all four byte strobes: a partial write (wstrb != 4'hF) is not
// performed and answers SLVERR (bresp = 2'b10); a full write answers OKAY. Reads always answer
// OKAY. AW and W may arrive in any order or together; the write reaches reg_we_o one cycle after
// both are held and the response channel is free, and B follows one cycle later. A read puts
// the address on reg_raddr_o (registered), samples reg_rdata_i on the next cycle and presents it
// on R. One write and one read are in flight at most; AWPROT/ARPROT are ignored.
//
// Every output is a register, so the block can sit at the edge of a pipelined top.

`resetall
`default_nettype none

module common_axil_regs #(
  parameter int unsigned AddrW = 16  // byte address width
) (
  input  wire logic             clk_i,
  input  wire logic             rst_ni,

  // AXI4-Lite slave
  input  wire logic [AddrW-1:0] s_axil_awaddr_i,
  input  wire logic [2:0]       s_axil_awprot_i,
  input  wire logic             s_axil_awvalid_i,
  output logic                  s_axil_awready_o,
  input  wire logic [31:0]      s_axil_wdata_i,
  input  wire logic [3:0]       s_axil_wstrb_i,
  input  wire logic             s_axil_wvalid_i,
  output logic                  s_axil_wready_o,
  output logic      [1:0]       s_axil_bresp_o,
  output logic                  s_axil_bvalid_o,
  input  wire logic             s_axil_bready_i,
  input  wire logic [AddrW-1:0] s_axil_araddr_i,
  input  wire logic [2:0]       s_axil_arprot_i,
  input  wire logic             s_axil_arvalid_i,
  output logic                  s_axil_arready_o,
  output logic      [31:0]      s_axil_rdata_o,
  output logic      [1:0]       s_axil_rresp_o,
  output logic                  s_axil_rvalid_o,
  input  wire logic             s_axil_rready_i,

  // Register port
  output logic                  reg_we_o,
  output logic      [AddrW-1:0] reg_addr_o,
  output logic      [31:0]      reg_wdata_o,
  output logic      [AddrW-1:0] reg_raddr_o,
  input  wire logic [31:0]      reg_rdata_i
);

  localparam logic [1:0] RespOkay   = 2'b00;
  localparam logic [1:0] RespSlverr = 2'b10;

  logic unused_bits;
  assign unused_bits = ^{s_axil_awprot_i, s_axil_arprot_i, s_axil_awaddr_i[1:0],
                         s_axil_araddr_i[1:0]};

  ///////////
  // Write //
  ///////////

  logic             aw_full_q, w_full_q, bvalid_q, we_q;
  logic [AddrW-1:0] awaddr_q, waddr_q;
  logic [31:0]      wdata_q, reg_wdata_q;
  logic [3:0]       wstrb_q;
  logic [1:0]       bresp_q;
  logic             aw_hs, w_hs, do_write;

  assign s_axil_awready_o = ~aw_full_q;
  assign s_axil_wready_o  = ~w_full_q;
  assign aw_hs    = s_axil_awvalid_i & ~aw_full_q;
  assign w_hs     = s_axil_wvalid_i & ~w_full_q;
  // Both halves held and the previous response taken.
  assign do_write = aw_full_q & w_full_q & ~bvalid_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      aw_full_q <= 1'b0;
      w_full_q  <= 1'b0;
      bvalid_q  <= 1'b0;
      bresp_q   <= RespOkay;
      we_q      <= 1'b0;
    end else begin
      we_q <= 1'b0;
      if (aw_hs) aw_full_q <= 1'b1;
      if (w_hs)  w_full_q  <= 1'b1;
      if (do_write) begin
        aw_full_q <= 1'b0;
        w_full_q  <= 1'b0;
        we_q      <= (wstrb_q == 4'hF);
        bvalid_q  <= 1'b1;
        bresp_q   <= (wstrb_q == 4'hF) ? RespOkay : RespSlverr;
      end else if (bvalid_q && s_axil_bready_i) begin
        bvalid_q <= 1'b0;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (aw_hs) awaddr_q <= {s_axil_awaddr_i[AddrW-1:2], 2'b00};
    if (w_hs) begin
      wdata_q <= s_axil_wdata_i;
      wstrb_q <= s_axil_wstrb_i;
    end
    if (do_write) begin
      waddr_q     <= awaddr_q;
      reg_wdata_q <= wdata_q;
    end
  end

  assign reg_we_o        = we_q;
  assign reg_addr_o      = waddr_q;
  assign reg_wdata_o     = reg_wdata_q;
  assign s_axil_bvalid_o = bvalid_q;
  assign s_axil_bresp_o  = bresp_q;

  //////////
  // Read //
  //////////

  logic             ar_pend_q, rvalid_q;
  logic [AddrW-1:0] raddr_q;
  logic [31:0]      rdata_q;

  assign s_axil_arready_o = ~ar_pend_q & ~rvalid_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ar_pend_q <= 1'b0;
      rvalid_q  <= 1'b0;
    end else begin
      if (s_axil_arvalid_i && s_axil_arready_o) begin
        ar_pend_q <= 1'b1;
      end else if (ar_pend_q) begin
        ar_pend_q <= 1'b0;
        rvalid_q  <= 1'b1;
      end else if (rvalid_q && s_axil_rready_i) begin
        rvalid_q <= 1'b0;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (s_axil_arvalid_i && s_axil_arready_o) raddr_q <= {s_axil_araddr_i[AddrW-1:2], 2'b00};
    if (ar_pend_q) rdata_q <= reg_rdata_i;
  end

  assign reg_raddr_o     = raddr_q;
  assign s_axil_rvalid_o = rvalid_q;
  assign s_axil_rdata_o  = rdata_q;
  assign s_axil_rresp_o  = RespOkay;

endmodule
