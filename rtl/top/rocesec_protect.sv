// SPDX-License-Identifier: Apache-2.0
//
// rocesec_protect: the protect (TX) top — plain RoCEv2 frames in, rocesec-protected frames out,
// byte for byte as model/src/engine.rs Protector::protect; everything else forwarded unchanged.
//
// Data format
// -----------
// AXI4-Stream, one Ethernet II frame (no FCS) per packet, beats of 16·LANES bytes, tdata byte i
// (bits [8i+7:8i]) is the i-th byte on the wire, tkeep bit i marks it, contiguous from byte 0.
// Output format: docs/wire-format.md §1 (SecHdr §3, AAD §4, IV §5, key §6) with GCM per
// NIST SP 800-38D and the ICRC per IBTA Vol 1 Annex A17.8. m_axis_tuser_o on the last beat:
// [3:0] verdict = model `Reason::code()` (0 = forwarded), [5:4] forward kind (rocesec_pkg);
// a rejected frame still leaves (cut-through) and must be dropped by the MAC.
//
// Microarchitecture (docs/rtl/tops.md): the input feeds a packet FIFO and, as a tap, roce_parse
// (stage parse). Header descriptors go to rocesec_protect_key (stage key: policy, QP state, key
// selection, derived-key cache + KDF, job with the rewritten header); rocesec_protect_emit
// (stages crypto and emit) reads the FIFO behind the job: cut-through, the frame starts leaving
// as soon as its key is known. Register write port: tables of rocesec_protect_key; read port:
// counters.

`resetall
`default_nettype none

module rocesec_protect
#(
  parameter int unsigned LANES      = 1,    // 128-bit blocks per beat (1, 2 or 4)
  parameter int unsigned FifoBeats  = 512,  // packet FIFO depth (beats)
  parameter int unsigned NumQps     = 128   // TX QP state entries (PN, WRITE key)
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

  // Register port (tables and counters, docs/rtl/tops.md)
  input  wire logic                  reg_we_i,
  input  wire logic [15:0]           reg_addr_i,
  input  wire logic [31:0]           reg_wdata_i,
  input  wire logic [15:0]           reg_raddr_i,
  output logic      [31:0]           reg_rdata_o,

  // Status
  output logic                       kdf_busy_o
);

  if (LANES != 1 && LANES != 2 && LANES != 4) begin : gen_param_check
    $error("rocesec_protect: LANES must be 1, 2 or 4 (instance %m)");
  end

  localparam int unsigned DescW    = roce_parse_pkg::DescBits;

`ifdef VERILATOR
  if ($bits(roce_parse_pkg::roce_desc_t) != roce_parse_pkg::DescBits ||
      $bits(rocesec_pkg::job_t) != rocesec_pkg::JobBits ||
      $bits(rocesec_pkg::hdr_fo_t) != rocesec_pkg::HdrFoBits) begin : gen_width_check
    $error("rocesec_protect: DescBits/JobBits/HdrFoBits != struct widths (instance %m)");
  end
`endif
  localparam int unsigned HdrW     = DescW;

  ///////////
  // Input //
  ///////////

  logic fifo_wready;
  logic hq_room;
  logic fire;

  assign s_axis_tready_o = fifo_wready && hq_room;
  assign fire            = s_axis_tvalid_i && s_axis_tready_o;

  logic                 in_valid, in_ready, in_last;
  logic [128*LANES-1:0] in_data;
  logic [16*LANES-1:0]  in_keep;
  logic [16:0]          in_olen;
  logic [$clog2(FifoBeats):0] unused_fifo_count;

  // Each beat carries the output length its frame has if the beat is the frame's last: the
  // input bytes up to and with it (counted here, 16 bits as the emit counted them) + 24, so the
  // emit's last-beat decision compares a FIFO word with a register (session 14: before, the
  // emit counted the head beat's tkeep and added it to its own count in the decision's cycle).
  logic [15:0] w_len_q;  // input bytes of the current frame before this beat
  logic [15:0] w_len;
  logic [16:0] w_olen;
  assign w_len  = w_len_q +
                  16'(rocesec_pkg::keep_bytes(rocesec_pkg::MaxBeatBytes'(s_axis_tkeep_i)));
  assign w_olen = {1'b0, w_len} + 17'(rocesec_pkg::Overhead);
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      w_len_q <= '0;
    end else if (fire) begin
      w_len_q <= s_axis_tlast_i ? 16'd0 : w_len;
    end
  end

  common_fifo_ram #(  // block RAM, same cycle behaviour as common_fifo_sync
    .Width (144 * LANES + 18),
    .Depth (FifoBeats)
  ) u_pkt_fifo (
    .clk_i    (clk_i),
    .rst_ni   (rst_ni),
    .wvalid_i (fire),
    .wready_o (fifo_wready),
    .wdata_i  ({w_olen, s_axis_tlast_i, s_axis_tkeep_i, s_axis_tdata_i}),
    .rvalid_o (in_valid),
    .rready_i (in_ready),
    .rdata_o  ({in_olen, in_last, in_keep, in_data}),
    .count_o  (unused_fifo_count)
  );

  ///////////
  // Parse //
  ///////////

  logic                  p_hdr_valid, p_desc_valid;
  roce_parse_pkg::roce_desc_t            p_desc;
  logic                  unused_parse_ready;

  roce_parse #(
    .LANES (LANES)
  ) u_parse (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .s_axis_tdata_i  (s_axis_tdata_i),
    .s_axis_tkeep_i  (s_axis_tkeep_i),
    .s_axis_tlast_i  (s_axis_tlast_i),
    .s_axis_tvalid_i (fire),
    .s_axis_tready_o (unused_parse_ready),
    .hdr_valid_o     (p_hdr_valid),
    .desc_valid_o    (p_desc_valid),
    .desc_o          (p_desc)
  );

  // Descriptor queues. A frame's pulses reach a queue's count 4 cycles after its last beat is
  // accepted (parse 3 + write 1), so up to DqInFlight frames are accepted that the count does
  // not show yet: 2 with the 16-byte beats of LANES = 1 (a frame has 4 or more), 4 when a
  // frame can be a single beat. Room is kept for them (a queue write is never refused).
  // With frames of 1 or 2 beats the key stage decides one every 2 cycles while their final
  // descriptors arrive early: 16 entries let the input run far enough ahead (LANES > 1).
  localparam int unsigned DqInFlight = (LANES > 1) ? 4 : 2;
  localparam int unsigned DqDepth    = (LANES > 1) ? 16 : 4;
  localparam int unsigned DqCntW     = $clog2(DqDepth) + 1;
  logic            hq_valid, hq_ready;
  logic [HdrW-1:0] hq_data;
  logic [DqCntW-1:0] hq_count;
  logic            fq_valid, fq_ready;
  logic [2:0]      fq_data;
  logic [DqCntW-1:0] fq_count;
  logic            unused_hq_wready, unused_fq_wready;

  assign hq_room = (hq_count < DqCntW'(DqDepth - DqInFlight)) &&
                   (fq_count < DqCntW'(DqDepth - DqInFlight));

  common_fifo_sync #(
    .Width (HdrW),
    .Depth (DqDepth)
  ) u_hdr_q (
    .clk_i    (clk_i),
    .rst_ni   (rst_ni),
    .wvalid_i (p_hdr_valid),
    .wready_o (unused_hq_wready),
    .wdata_i  (p_desc),
    .rvalid_o (hq_valid),
    .rready_i (hq_ready),
    .rdata_o  (hq_data),
    .count_o  (hq_count)
  );

  common_fifo_sync #(
    .Width (3),
    .Depth (DqDepth)
  ) u_fin_q (
    .clk_i    (clk_i),
    .rst_ni   (rst_ni),
    .wvalid_i (p_desc_valid),
    .wready_o (unused_fq_wready),
    .wdata_i  ({p_desc.kind, p_desc.icrc_ok}),
    .rvalid_o (fq_valid),
    .rready_i (fq_ready),
    .rdata_o  (fq_data),
    .count_o  (fq_count)
  );

  /////////
  // Key //
  /////////

  // Frames in flight between the key stage and the output (emit job table, key stage verdict
  // queue). A frame stays about 50 cycles (E_K(J0) and the keystream take 31); 8 cover one
  // frame per 6 cycles (the smallest frame at LANES = 1), 32 one per 2 cycles (LANES = 4).
  localparam int unsigned NumJobs = (LANES > 1) ? 32 : 8;

  logic       job_valid, job_ready;
  logic       rk_we;           // round keys, key cache -> emit AES
  logic [rocesec_pkg::RkW-1:0] rk_slot;
  logic [3:0]   rk_round;
  logic [127:0] rk_data;
  rocesec_pkg::job_t       job;
  logic       done_valid;
  logic [3:0] done_reason;
  logic [1:0] done_fwd;

  rocesec_protect_key #(
    .NumQps      (NumQps),
    .NumVerdicts (NumJobs)
  ) u_key (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .hdr_valid_i   (hq_valid),
    .hdr_ready_o   (hq_ready),
    .hdr_desc_i    (hq_data),
    .fin_valid_i   (fq_valid),
    .fin_ready_o   (fq_ready),
    .fin_kind_i    (fq_data[2:1]),
    .fin_icrc_ok_i (fq_data[0]),
    .job_valid_o   (job_valid),
    .job_ready_i   (job_ready),
    .job_o         (job),
    .done_valid_o  (done_valid),
    .done_reason_o (done_reason),
    .done_fwd_o    (done_fwd),
    .reg_we_i      (reg_we_i),
    .reg_addr_i    (reg_addr_i),
    .reg_wdata_i   (reg_wdata_i),
    .reg_raddr_i   (reg_raddr_i),
    .reg_rdata_o   (reg_rdata_o),
    .kdf_busy_o    (kdf_busy_o),
    .rk_we_o       (rk_we),
    .rk_slot_o     (rk_slot),
    .rk_round_o    (rk_round),
    .rk_data_o     (rk_data)
  );

  //////////
  // Emit //
  //////////

  rocesec_protect_emit #(
    .LANES   (LANES),
    .NumJobs (NumJobs)
  ) u_emit (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .job_valid_i     (job_valid),
    .job_ready_o     (job_ready),
    .job_i           (job),
    .rk_we_i         (rk_we),
    .rk_slot_i       (rk_slot),
    .rk_round_i      (rk_round),
    .rk_data_i       (rk_data),
    .done_valid_i    (done_valid),
    .done_reason_i   (done_reason),
    .done_fwd_i      (done_fwd),
    .in_valid_i      (in_valid),
    .in_ready_o      (in_ready),
    .in_data_i       (in_data),
    .in_keep_i       (in_keep),
    .in_last_i       (in_last),
    .in_olen_i       (in_olen),
    .m_axis_tdata_o  (m_axis_tdata_o),
    .m_axis_tkeep_o  (m_axis_tkeep_o),
    .m_axis_tlast_o  (m_axis_tlast_o),
    .m_axis_tuser_o  (m_axis_tuser_o),
    .m_axis_tvalid_o (m_axis_tvalid_o),
    .m_axis_tready_i (m_axis_tready_i)
  );

  logic unused_sig;
  assign unused_sig = ^{unused_fifo_count, unused_parse_ready, unused_hq_wready,
                        unused_fq_wready};

endmodule
