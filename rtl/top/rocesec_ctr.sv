// SPDX-License-Identifier: Apache-2.0
//
// rocesec_ctr: stage `crypto`, the AES-CTR generator shared by both tops — E_K(J0) and the GCM
// keystream of every job, in job order (model/src/gcm.rs, SP 800-38D §7.1 steps 2–3 / §6.5).
//
// Data format
// -----------
// Jobs are slots of the caller's job table, visited in order: job_push_i announces one more
// written job; the generator presents job_slot_o and reads that job's job_active_i (the frame is
// processed), job_key_i (AES-128 key, byte 0 in the top bits), job_iv_i (96-bit IV) and
// job_nks_i (keystream blocks). For an active job it issues J0 = IV ‖ [1]_32 and then the counter
// blocks IV ‖ [2]_32 … IV ‖ [1 + nks]_32 into one aes_cipher_pipe. E_K(J0) leaves on ekj0_*
// with its slot; keystream blocks (byte 0 in the top bits) go to a KsDepth-block FIFO read with
// ks_valid_o / ks_pop_i. Credit: blocks in flight + buffered never exceed KsDepth.

`resetall
`default_nettype none

module rocesec_ctr
#(
  parameter int unsigned NumJobs = 8,   // job table slots (power of two)
  parameter int unsigned KsDepth = 64   // keystream FIFO (blocks)
) (
  input  wire logic                       clk_i,
  input  wire logic                       rst_ni,

  // Job table walk
  input  wire logic                       job_push_i,
  output logic      [$clog2(NumJobs)-1:0] job_slot_o,
  input  wire logic                       job_active_i,
  input  wire logic [127:0]               job_key_i,
  input  wire logic [95:0]                job_iv_i,
  input  wire logic [15:0]                job_nks_i,

  // E_K(J0) per job
  output logic                            ekj0_valid_o,
  output logic      [$clog2(NumJobs)-1:0] ekj0_slot_o,
  output logic      [127:0]               ekj0_data_o,

  // Keystream
  output logic                            ks_valid_o,
  output logic      [127:0]               ks_data_o,
  input  wire logic                       ks_pop_i
);

  localparam int unsigned SlotW  = $clog2(NumJobs);
  localparam int unsigned KsCntW = $clog2(KsDepth) + 1;

  /////////////
  // Signals //
  /////////////

  logic [SlotW-1:0]  ptr_q;          // job being visited
  logic              busy_q;         // issuing for job ptr_q
  logic [15:0]       i_q;            // next block index (0 = J0)
  logic [15:0]       n_q;            // keystream blocks of the job
  logic [SlotW:0]    lag_q;          // jobs written but not yet visited
  logic [KsCntW-1:0] inflight_q;
  logic [KsCntW-1:0] ks_count;
  logic              pending, room;
  logic              aes_in_valid;
  logic [127:0]      aes_in_data;
  logic              aes_out_valid;
  logic [SlotW:0]    aes_out_tag;    // {is_j0, slot}
  logic [127:0]      aes_out_data;
  logic              ks_push;
  logic              skip, finish;

  assign pending    = (lag_q != '0);
  assign room       = ({1'b0, inflight_q} + {1'b0, ks_count}) < (KsCntW+1)'(KsDepth);
  assign job_slot_o = ptr_q;

  always_comb begin
    logic [31:0] cnt;
    cnt          = 32'(i_q) + 32'd1;  // J0 has counter 1
    aes_in_valid = busy_q && (i_q == 16'd0 || room);
    aes_in_data  = {job_iv_i, cnt};
  end

  assign skip   = !busy_q && pending && !job_active_i;
  assign finish = busy_q && aes_in_valid && i_q == n_q;

  /////////////
  // Control //
  /////////////

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ptr_q      <= '0;
      busy_q     <= 1'b0;
      i_q        <= '0;
      n_q        <= '0;
      lag_q      <= '0;
      inflight_q <= '0;
    end else begin
      inflight_q <= inflight_q + KsCntW'(aes_in_valid && i_q != 16'd0) - KsCntW'(ks_push);
      lag_q      <= lag_q + (SlotW+1)'(job_push_i) - (SlotW+1)'(skip) - (SlotW+1)'(finish);
      if (busy_q) begin
        if (aes_in_valid) begin
          if (i_q == n_q) begin
            busy_q <= 1'b0;
            ptr_q  <= ptr_q + 1'b1;
          end else begin
            i_q <= i_q + 16'd1;
          end
        end
      end else if (pending) begin
        if (job_active_i) begin
          busy_q <= 1'b1;
          i_q    <= '0;
          n_q    <= job_nks_i;
        end else begin
          ptr_q <= ptr_q + 1'b1;
        end
      end
    end
  end

  /////////
  // AES //
  /////////

  aes_cipher_pipe #(
    .KeyLen   (128),
    .TagWidth (SlotW + 1)
  ) u_aes (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .en_i        (1'b1),
    .in_valid_i  (aes_in_valid),
    .in_tag_i    ({i_q == 16'd0, ptr_q}),
    .in_key_i    (job_key_i),
    .in_data_i   (aes_in_data),
    .out_valid_o (aes_out_valid),
    .out_tag_o   (aes_out_tag),
    .out_data_o  (aes_out_data)
  );

  assign ekj0_valid_o = aes_out_valid && aes_out_tag[SlotW];
  assign ekj0_slot_o  = aes_out_tag[SlotW-1:0];
  assign ekj0_data_o  = aes_out_data;
  assign ks_push      = aes_out_valid && !aes_out_tag[SlotW];

  logic unused_ks_ready;

  common_fifo_ram #(
    .Width (128),
    .Depth (KsDepth)
  ) u_ks_fifo (
    .clk_i    (clk_i),
    .rst_ni   (rst_ni),
    .wvalid_i (ks_push),
    .wready_o (unused_ks_ready),
    .wdata_i  (aes_out_data),
    .rvalid_o (ks_valid_o),
    .rready_i (ks_pop_i),
    .rdata_o  (ks_data_o),
    .count_o  (ks_count)
  );

  logic unused_sig;
  assign unused_sig = unused_ks_ready;

endmodule
