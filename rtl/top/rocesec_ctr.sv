// SPDX-License-Identifier: Apache-2.0
//
// rocesec_ctr: stage `crypto`, the AES-CTR generator shared by both tops — E_K(J0) and the GCM
// keystream of every job, in job order (model/src/gcm.rs, SP 800-38D §7.1 steps 2–3 / §6.5).
//
// Data format
// -----------
// Jobs are slots of the caller's job table, visited in order: job_push_i announces one more
// written job; the generator presents job_slot_o and reads that job's job_active_i (the frame is
// processed), job_key_i (AES-128 key, byte 0 in the top bits), job_rk_i (the slot of its round
// keys 1..10 in the round-key RAMs, written beforehand on rk_* by rocesec_key_cache), job_iv_i
// (96-bit IV) and job_nks_i (keystream blocks). For an active job it issues J0 = IV ‖ [1]_32 (one cycle, lane
// 0) and then the counter blocks IV ‖ [2]_32 … IV ‖ [1 + nks]_32 in words of LANES blocks, one
// word per cycle, into one aes_cipher_pipe_rk of LANES lanes (word w, lane j: keystream block
// LANES·w + j; the lanes past nks of the last word carry counters past the end, unused).
// E_K(J0) leaves on ekj0_* with its slot; keystream words (lane j in bits [128j +: 128], byte 0
// of each block in the lane's top bits) go to a KsDepth-word FIFO read with ks_valid_o /
// ks_pop_i. Credit: words in flight + buffered never exceed KsDepth. LANES = 1: one block per
// word, as before the parameter existed.

`resetall
`default_nettype none

module rocesec_ctr
#(
  parameter int unsigned LANES   = 1,   // keystream blocks per word (AES pipelines)
  parameter int unsigned NumJobs = 8,   // job table slots (power of two)
  parameter int unsigned KsDepth = 64,  // keystream FIFO (words)
  parameter int unsigned RkSlots = 128  // round-key slots (rocesec_pkg::RkSlots)
) (
  input  wire logic                       clk_i,
  input  wire logic                       rst_ni,

  // Job table walk
  input  wire logic                       job_push_i,
  output logic      [$clog2(NumJobs)-1:0] job_slot_o,
  input  wire logic                       job_active_i,
  input  wire logic [127:0]               job_key_i,
  input  wire logic [$clog2(RkSlots)-1:0] job_rk_i,
  input  wire logic [95:0]                job_iv_i,
  input  wire logic [15:0]                job_nks_i,

  // E_K(J0) per job
  output logic                            ekj0_valid_o,
  output logic      [$clog2(NumJobs)-1:0] ekj0_slot_o,
  output logic      [127:0]               ekj0_data_o,

  // Keystream
  output logic                            ks_valid_o,
  output logic      [128*LANES-1:0]       ks_data_o,
  input  wire logic                       ks_pop_i,

  // Round-key RAM writes (aes_cipher_pipe_rk)
  input  wire logic                       rk_we_i,
  input  wire logic [$clog2(RkSlots)-1:0] rk_slot_i,
  input  wire logic [3:0]                 rk_round_i,
  input  wire logic [127:0]               rk_data_i
);

  localparam int unsigned SlotW  = $clog2(NumJobs);
  localparam int unsigned KsCntW = $clog2(KsDepth) + 1;

  /////////////
  // Signals //
  /////////////

  logic [SlotW-1:0]  ptr_q;          // job being visited
  logic              busy_q;         // issuing for job ptr_q
  logic [15:0]       i_q;            // next word index (0 = J0)
  logic [15:0]       n_q;            // keystream words of the job
  logic [SlotW:0]    lag_q;          // jobs written but not yet visited
  logic [KsCntW-1:0] inflight_q;
  logic [KsCntW-1:0] ks_count;
  logic              pending, room;
  logic              aes_in_valid;
  logic [128*LANES-1:0] aes_in_data;
  logic [LANES-1:0]  aes_out_valid;
  logic [SlotW:0]    aes_out_tag;          // {is_j0, slot}
  logic [LANES-1:0]  aes_in_lanes;
  logic [128*LANES-1:0] aes_out_data;
  logic [15:0]       nw;             // words of job_nks_i blocks
  logic              ks_push;
  logic              skip, finish;
  logic              open_issue;     // LANES > 1: J0 issued in the cycle that opens the job
  logic              is_j0;          // the AES input this cycle is J0

  assign pending    = (lag_q != '0);
  assign room       = ({1'b0, inflight_q} + {1'b0, ks_count}) < (KsCntW+1)'(KsDepth);
  assign job_slot_o = ptr_q;

  // LANES > 1 opens a job and issues its J0 in one cycle: a separate open cycle would cost the
  // 64-byte beat stream a keystream word per frame. LANES = 1 keeps the open cycle (the timing
  // layer's ctr_start_cycles = 1); 16-byte frames have room for it.
  assign open_issue = (LANES > 1) && !busy_q && pending && job_active_i;
  assign is_j0      = open_issue || (busy_q && i_q == 16'd0);

  always_comb begin
    logic [31:0] cnt;
    aes_in_valid = (busy_q && (i_q == 16'd0 || room)) || open_issue;
    for (int j = 0; j < LANES; j++) begin
      // J0 has counter 1; word w >= 1, lane j: keystream block LANES(w-1) + j, counter + 2
      cnt = is_j0 ? 32'd1 : 32'(LANES) * (32'(i_q) - 32'd1) + 32'(j) + 32'd2;
      aes_in_data[128*j +: 128] = {job_iv_i, cnt};
    end
  end

  // keystream words of a job: ceil(nks / LANES)
  assign nw = 16'((32'(job_nks_i) + 32'(LANES) - 32'd1) / 32'(LANES));

  assign skip   = !busy_q && pending && !job_active_i;
  assign finish = (busy_q && aes_in_valid && i_q == n_q) || (open_issue && nw == 16'd0);

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
      inflight_q <= inflight_q + KsCntW'(aes_in_valid && !is_j0) - KsCntW'(ks_push);
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
        if (job_active_i && LANES > 1) begin
          // J0 issued in this cycle
          if (nw == 16'd0) begin
            ptr_q <= ptr_q + 1'b1;
          end else begin
            busy_q <= 1'b1;
            i_q    <= 16'd1;
            n_q    <= nw;
          end
        end else if (job_active_i) begin
          busy_q <= 1'b1;
          i_q    <= '0;
          n_q    <= nw;
        end else begin
          ptr_q <= ptr_q + 1'b1;
        end
      end
    end
  end

  /////////
  // AES //
  /////////

  // lane 0 only in the J0 cycle
  assign aes_in_lanes = is_j0 ? LANES'(aes_in_valid) : {LANES{aes_in_valid}};

  aes_cipher_pipe_rk #(
    .Lanes    (LANES),
    .TagWidth (SlotW + 1),
    .RkSlots  (RkSlots)
  ) u_aes (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .rk_we_i     (rk_we_i),
    .rk_slot_i   (rk_slot_i),
    .rk_round_i  (rk_round_i),
    .rk_data_i   (rk_data_i),
    .in_valid_i  (aes_in_lanes),
    .in_tag_i    ({is_j0, ptr_q}),
    .in_key_i    (job_key_i),
    .in_rk_i     (job_rk_i),
    .in_data_i   (aes_in_data),
    .out_valid_o (aes_out_valid),
    .out_tag_o   (aes_out_tag),
    .out_data_o  (aes_out_data)
  );

  // All lanes run in lockstep (same valid except in the J0 cycle, lane 0 only).
  assign ekj0_valid_o = aes_out_valid[0] && aes_out_tag[SlotW];
  assign ekj0_slot_o  = aes_out_tag[SlotW-1:0];
  assign ekj0_data_o  = aes_out_data[127:0];
  assign ks_push      = aes_out_valid[0] && !aes_out_tag[SlotW];

  logic unused_ks_ready;

  common_fifo_ram #(
    .Width (128 * LANES),
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
  assign unused_sig = unused_ks_ready ^ (^aes_out_valid);

endmodule
