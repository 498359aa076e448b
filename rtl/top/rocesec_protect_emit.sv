// SPDX-License-Identifier: Apache-2.0
//
// rocesec_protect_emit: stages `crypto` and `emit` of the protect (TX) top — model
// model/src/stage/crypto.rs seal and model/src/stage/emit.rs insert, as sequenced by
// model/src/engine.rs Protector::protect.
//
// Data format
// -----------
// Beats are 16 bytes (LANES = 1), byte i of tdata in bits [8i+7:8i], tkeep contiguous. Each
// frame arrives from the packet FIFO with a job_t from the key stage (same order). A protected
// frame leaves as (docs/wire-format.md §1, offsets o of the output frame, H = job.hoff,
// P = job.poff, E = job.eoff of the plain frame):
//   o <  H + 8        job.ohdr[o] (rewritten headers, SecHdr at [H, H+8))
//   o <  E + 8        in[o - 8]   (extended headers, payload ‖ pad; AES-CTR in AEAD mode)
//   o <  E + 24       ICV = E_K(J0) ^ GHASH_H(...)   (SP 800-38D §7.1 steps 5–6)
//   o <  E + 28       ICRC over the output (IBTA Vol 1 Annex A17.8), little-endian
//   else              in[o - 24]  (L2 trailer)
// Other frames leave unchanged. m_axis_tuser on the last beat: {fwd, reason} of the job's final
// verdict (rocesec_pkg).
//
// GCM (SP 800-38D): IV = job.iv, J0 = IV ‖ 1, keystream block i = E_K(IV ‖ [1+i]_32) aligned to
// the payload start P + 8; AAD = output bytes [ip_off, P + 8) with the ICRC's variant fields
// forced to ones (docs/wire-format.md §4), extended to [ip_off, E + 8) in packet-auth mode;
// GHASH blocks are taken at the range alignment (AAD from ip_off, ciphertext from P + 8) with a
// 32-byte window and a byte shifter, zero padded, then [len(A)]_64 ‖ [len(C)]_64.
//
// Pipeline (valid/ready between stages, each stage one register):
//   S1 splice: job header bytes, input shifted by 8 / 24 bytes (3-beat input window), keystream
//      XOR (two keystream blocks rotated by (P + 8) mod 16).
//   S2 GHASH feed: one block per cycle into ghash_core; holds the beat while more blocks end in
//      it (packet boundaries, final partial block, length block).
//   delay FIFO (DlyBeats): S1/S2 run ahead while S3 waits, hiding the GHASH latency in a stream.
//   S3 ICV: the beat(s) overlapping [E+8, E+24) wait for the hash and E_K(J0).
//   S4 ICRC: every beat feeds roce_parse_icrc on entry and is patched with its combinational
//      result (icrc_now_o) in the same cycle; the last beat waits for the final verdict.
//   S5 output register (m_axis).
// AES: one aes_cipher_pipe generates E_K(J0) and the keystream per job in order, up to KsDepth
// blocks ahead (credit counted: in flight + buffered ≤ KsDepth).

`resetall
`default_nettype none

module rocesec_protect_emit
#(
  parameter int unsigned NumJobs  = 8,   // frames in flight between key stage and output (2^n)
  parameter int unsigned KsDepth  = 32,  // keystream buffer (blocks)
  parameter int unsigned DlyBeats = 8    // delay FIFO between GHASH feed and ICV insert
) (
  input  wire logic          clk_i,
  input  wire logic          rst_ni,

  // Jobs
  input  wire logic          job_valid_i,
  output logic               job_ready_o,
  input  wire rocesec_pkg::job_t          job_i,

  // Final verdicts (job order)
  input  wire logic          done_valid_i,
  input  wire logic [3:0]    done_reason_i,
  input  wire logic [1:0]    done_fwd_i,

  // Frames from the packet FIFO
  input  wire logic          in_valid_i,
  output logic               in_ready_o,
  input  wire logic [127:0]  in_data_i,
  input  wire logic [15:0]   in_keep_i,
  input  wire logic          in_last_i,

  // AXI4-Stream output
  output logic [127:0]       m_axis_tdata_o,
  output logic [15:0]        m_axis_tkeep_o,
  output logic               m_axis_tlast_o,
  output logic [7:0]         m_axis_tuser_o,
  output logic               m_axis_tvalid_o,
  input  wire logic          m_axis_tready_i
);

  localparam int unsigned SlotW   = $clog2(NumJobs);
  localparam int unsigned KsCntW  = $clog2(KsDepth) + 1;

  typedef logic [SlotW-1:0] slot_t;

  ///////////////
  // Job table //
  ///////////////

  logic [rocesec_pkg::JobBits-1:0] jt_q [NumJobs];  // job_t, stored flat
  logic         jt_valid_q  [NumJobs];
  logic         jt_ekj0_v_q [NumJobs];
  logic [127:0] jt_ekj0_q   [NumJobs];
  logic         jt_hash_v_q [NumJobs];
  logic [127:0] jt_hash_q   [NumJobs];
  logic         jt_done_v_q [NumJobs];
  logic [3:0]   jt_reason_q [NumJobs];
  logic [1:0]   jt_fwd_q    [NumJobs];

  slot_t wr_ptr_q, fin_ptr_q, ctr_ptr_q, s1_ptr_q;

  logic  job_fire;
  assign job_ready_o = !jt_valid_q[wr_ptr_q];
  assign job_fire    = job_valid_i && job_ready_o;

  // events written by the stages below
  logic         ekj0_we;
  slot_t        ekj0_slot;
  logic [127:0] ekj0_data;
  logic         hash_we;
  slot_t        hash_slot;
  logic [127:0] hash_data;
  logic         free_we;
  slot_t        free_slot;
  /* verilator lint_off UNUSEDSIGNAL */
  rocesec_pkg::job_t free_job;
  rocesec_pkg::job_t s1q_job;
  /* verilator lint_on UNUSEDSIGNAL */

  always_comb begin
    free_job     = jt_q[free_slot];
    free_job.key = '0;
    free_job.h   = '0;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_ptr_q  <= '0;
      fin_ptr_q <= '0;
      for (int j = 0; j < NumJobs; j++) begin
        jt_valid_q[j]  <= 1'b0;
        jt_ekj0_v_q[j] <= 1'b0;
        jt_hash_v_q[j] <= 1'b0;
        jt_done_v_q[j] <= 1'b0;
        jt_reason_q[j] <= '0;
        jt_fwd_q[j]    <= '0;
        jt_ekj0_q[j]   <= '0;
        jt_hash_q[j]   <= '0;
      end
    end else begin
      if (free_we) begin
        jt_valid_q[free_slot]  <= 1'b0;
        jt_q[free_slot]        <= free_job;  // key material cleared
        jt_ekj0_q[free_slot]   <= '0;
      end
      if (job_fire) begin
        jt_q[wr_ptr_q]        <= job_i;
        jt_valid_q[wr_ptr_q]  <= 1'b1;
        jt_ekj0_v_q[wr_ptr_q] <= 1'b0;
        jt_hash_v_q[wr_ptr_q] <= 1'b0;
        jt_done_v_q[wr_ptr_q] <= 1'b0;
        wr_ptr_q              <= wr_ptr_q + 1'b1;
      end
      if (done_valid_i) begin
        jt_done_v_q[fin_ptr_q] <= 1'b1;
        jt_reason_q[fin_ptr_q] <= done_reason_i;
        jt_fwd_q[fin_ptr_q]    <= done_fwd_i;
        fin_ptr_q              <= fin_ptr_q + 1'b1;
      end
      if (ekj0_we) begin
        jt_ekj0_q[ekj0_slot]   <= ekj0_data;
        jt_ekj0_v_q[ekj0_slot] <= 1'b1;
      end
      if (hash_we) begin
        jt_hash_q[hash_slot]   <= hash_data;
        jt_hash_v_q[hash_slot] <= 1'b1;
      end
    end
  end

  ////////////////////////////////
  // AES: E_K(J0) and keystream //
  ////////////////////////////////

  // job_t values below are read field by field: unused fields are expected.
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [15:0] nks_of(rocesec_pkg::job_t j);  // keystream blocks of a job
    logic [15:0] pl;
    pl = j.eoff - {8'h0, j.poff};
    nks_of = (j.protect && j.mode == rocesec_pkg::ModeAead) ? ((pl + 16'd15) >> 4) : 16'd0;
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  logic              ctr_busy_q;     // issuing for job ctr_ptr_q
  logic [15:0]       ctr_i_q;        // next block index (0 = J0)
  logic [15:0]       ctr_n_q;        // keystream blocks of the job
  logic [KsCntW-1:0] ks_inflight_q;
  logic [KsCntW-1:0] ks_count;
  logic              aes_in_valid;
  logic [127:0]      aes_in_data;
  logic              aes_out_valid;
  logic [SlotW:0]    aes_out_tag;    // {is_j0, slot}
  logic [127:0]      aes_out_data;
  logic              ks_push;
  logic              ks_pop;
  logic              ks_valid;
  logic [127:0]      ks_head;
  logic              ks_room;
  rocesec_pkg::job_t              ctr_job;

  // A job is pending for the CTR generator when it was written and not yet visited.
  logic [SlotW:0] ctr_lag_q;  // jobs written but not yet visited by the CTR generator
  logic       ctr_pending;
  assign ctr_pending = (ctr_lag_q != '0);

  assign ctr_job = jt_q[ctr_ptr_q];
  assign ks_room = ({1'b0, ks_inflight_q} + {1'b0, ks_count}) < (KsCntW+1)'(KsDepth);

  always_comb begin
    logic [31:0] cnt;
    cnt          = 32'(ctr_i_q) + 32'd1;  // J0 has counter 1
    aes_in_valid = ctr_busy_q && (ctr_i_q == 16'd0 || ks_room);
    aes_in_data  = {ctr_job.iv, cnt};
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ctr_ptr_q     <= '0;
      ctr_busy_q    <= 1'b0;
      ctr_i_q       <= '0;
      ctr_n_q       <= '0;
      ks_inflight_q <= '0;
    end else begin
      ks_inflight_q <= ks_inflight_q + KsCntW'(aes_in_valid && ctr_i_q != 16'd0)
                                     - KsCntW'(ks_push);
      if (ctr_busy_q) begin
        if (aes_in_valid) begin
          if (ctr_i_q == ctr_n_q) begin
            ctr_busy_q <= 1'b0;
            ctr_ptr_q  <= ctr_ptr_q + 1'b1;
          end else begin
            ctr_i_q <= ctr_i_q + 16'd1;
          end
        end
      end else if (ctr_pending) begin
        if (ctr_job.protect) begin
          ctr_busy_q <= 1'b1;
          ctr_i_q    <= '0;
          ctr_n_q    <= nks_of(ctr_job);
        end else begin
          ctr_ptr_q <= ctr_ptr_q + 1'b1;
        end
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ctr_lag_q <= '0;
    end else begin
      ctr_lag_q <= ctr_lag_q + (SlotW+1)'(job_fire)
                   - (SlotW+1)'(!ctr_busy_q && ctr_pending && !ctr_job.protect)
                   - (SlotW+1)'(ctr_busy_q && aes_in_valid && ctr_i_q == ctr_n_q);
    end
  end

  aes_cipher_pipe #(
    .KeyLen   (128),
    .TagWidth (SlotW + 1)
  ) u_aes_ctr (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .en_i        (1'b1),
    .in_valid_i  (aes_in_valid),
    .in_tag_i    ({ctr_i_q == 16'd0, ctr_ptr_q}),
    .in_key_i    (ctr_job.key),
    .in_data_i   (aes_in_data),
    .out_valid_o (aes_out_valid),
    .out_tag_o   (aes_out_tag),
    .out_data_o  (aes_out_data)
  );

  assign ekj0_we   = aes_out_valid && aes_out_tag[SlotW];
  assign ekj0_slot = aes_out_tag[SlotW-1:0];
  assign ekj0_data = aes_out_data;
  assign ks_push   = aes_out_valid && !aes_out_tag[SlotW];

  logic unused_ks_ready;

  common_fifo_sync #(
    .Width (128),
    .Depth (KsDepth)
  ) u_ks_fifo (
    .clk_i    (clk_i),
    .rst_ni   (rst_ni),
    .wvalid_i (ks_push),
    .wready_o (unused_ks_ready),
    .wdata_i  (aes_out_data),
    .rvalid_o (ks_valid),
    .rready_i (ks_pop),
    .rdata_o  (ks_head),
    .count_o  (ks_count)
  );

  ///////////////
  // S1 splice //
  ///////////////

  logic         s1_valid_q;
  logic [127:0] s1_data_q;
  logic [15:0]  s1_keep_q;
  logic         s1_last_q;
  slot_t        s1_slot_q;
  logic [11:0]  s1_k_q;
  logic         s1_ready;           // S1 output register may load

  logic         sp_active_q;        // a frame is being spliced
  rocesec_pkg::job_t         sp_job;
  logic [11:0]  sp_k_q;             // output beat index
  logic         sp_in_done_q;       // input tlast consumed
  logic [15:0]  sp_in_len_q;        // input bytes consumed
  logic [127:0] sp_prev1_q, sp_prev2_q;
  logic [127:0] sp_ks_prev_q;
  logic [15:0]  sp_ks_used_q;       // keystream blocks popped for this frame
  logic         sp_drain_q;         // frame ended early: discard the rest of its keystream
  logic         sp_go;              // produce a beat this cycle
  logic         sp_take;            // consume an input beat this cycle
  logic [127:0] sp_data;
  logic [15:0]  sp_keep;
  logic         sp_last;
  logic         sp_ks_pop;

  assign sp_job = jt_q[s1_ptr_q];

  function automatic logic [4:0] popcount16(logic [15:0] k);
    logic [4:0] n;
    n = '0;
    for (int i = 0; i < 16; i++) n = n + {4'h0, k[i]};
    popcount16 = n;
  endfunction

  // S1 may start the job in slot s1_ptr_q once written.
  logic s1_started_q [NumJobs];
  logic s1_job_ready;
  assign s1_job_ready = jt_valid_q[s1_ptr_q] && !s1_started_q[s1_ptr_q];

  // Chain: the next job starts in the cycle the current frame's last beat leaves S1.
  slot_t s1_next;
  logic  sp_drain_need;
  logic  sp_chain;
  assign s1_next       = s1_ptr_q + 1'b1;
  assign sp_drain_need = sp_job.protect && (sp_ks_used_q + 16'(sp_ks_pop) < nks_of(sp_job));
  assign sp_chain      = sp_active_q && !sp_drain_q && sp_go && sp_last && !sp_drain_need &&
                         jt_valid_q[s1_next] && !s1_started_q[s1_next];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int j = 0; j < NumJobs; j++) s1_started_q[j] <= 1'b0;
    end else begin
      if (!sp_active_q && s1_job_ready) s1_started_q[s1_ptr_q] <= 1'b1;
      if (sp_chain) s1_started_q[s1_next] <= 1'b1;
      if (free_we) s1_started_q[free_slot] <= 1'b0;
    end
  end


  always_comb begin
    logic [127:0] cur;
    logic [383:0] win;       // {cur, prev1, prev2}: byte j = input offset 16(k-2) + j
    logic [16:0]  o;
    logic [16:0]  hend, eend, icv_end;
    logic [16:0]  pstart;
    logic [16:0]  olen;
    logic [11:0]  pbeat;
    logic         need_ks;
    logic [3:0]   c;
    logic [255:0] ksw;       // {ks_cur, ks_prev}
    logic [15:0]  nks;
    logic signed [13:0] mk;
    logic [7:0]   b;
    logic [15:0]  len_now;

    o         = '0;
    b         = '0;
    sp_go     = 1'b0;
    sp_take   = 1'b0;
    sp_data   = '0;
    sp_keep   = '0;
    sp_last   = 1'b0;
    sp_ks_pop = 1'b0;

    cur     = sp_in_done_q ? 128'h0 : in_data_i;
    win     = {cur, sp_prev1_q, sp_prev2_q};
    hend    = {9'h0, sp_job.hoff} + 17'd8;
    eend    = {1'b0, sp_job.eoff} + 17'd8;
    icv_end = {1'b0, sp_job.eoff} + 17'd28;
    pstart  = {9'h0, sp_job.poff} + 17'd8;
    c       = pstart[3:0];
    pbeat   = 12'(pstart >> 4);
    mk      = $signed({2'b00, sp_k_q}) - $signed({2'b00, pbeat});
    nks     = nks_of(sp_job);
    need_ks = (mk >= 0) && (16'(mk) < nks);
    for (int j = 0; j < 16; j++) begin  // little-endian view: keystream byte order b0..b15
      ksw[8*j +: 8]        = sp_ks_prev_q[127 - 8*j -: 8];
      ksw[8*(j + 16) +: 8] = ks_head[127 - 8*j -: 8];
    end
    len_now = sp_in_len_q;
    for (int i = 0; i < 16; i++) len_now = len_now + {15'h0, in_keep_i[i]};
    olen    = {1'b0, sp_in_len_q} + 17'(rocesec_pkg::Overhead);

    if (sp_drain_q) begin
      sp_ks_pop = ks_valid;
    end else if (sp_active_q && !sp_job.protect) begin
      // unchanged frame
      sp_data = in_data_i;
      sp_keep = in_keep_i;
      sp_last = in_last_i;
      sp_go   = s1_ready && in_valid_i;
      sp_take = sp_go;
    end else if (sp_active_q) begin
      sp_go     = s1_ready && (sp_in_done_q || in_valid_i) && (!need_ks || ks_valid);
      sp_take   = sp_go && !sp_in_done_q;
      sp_ks_pop = sp_go && need_ks;
      for (int i = 0; i < 16; i++) begin
        o = {1'b0, sp_k_q, 4'h0} + 17'(i);
        if (o < hend) begin
          b = (o < 17'(rocesec_pkg::OHdrBytes)) ? sp_job.ohdr[8*o[6:0] +: 8] : 8'h00;
        end else if (o < eend) begin
          b = win[8*(i + 24) +: 8];
          if (sp_job.mode == rocesec_pkg::ModeAead && o >= pstart) begin
            // keystream byte o - pstart: from ks_head for i >= c, from ks_prev for i < c
            b = b ^ ksw[8*(32'(i) + 16 - 32'(c)) +: 8];
          end
        end else if (o < icv_end) begin
          b = 8'h00;
        end else begin
          b = win[8*(i + 8) +: 8];
        end
        sp_data[8*i +: 8] = b;
      end
      // keep/last: the last output beat comes after the input's last beat
      if (sp_in_done_q && {1'b0, sp_k_q, 4'h0} + 17'd16 >= olen) begin
        sp_last = 1'b1;
        for (int i = 0; i < 16; i++) sp_keep[i] = ({1'b0, sp_k_q, 4'h0} + 17'(i) < olen);
      end else begin
        sp_keep = 16'hFFFF;
      end
    end
  end

  assign in_ready_o = sp_take;
  assign ks_pop     = sp_ks_pop;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sp_active_q  <= 1'b0;
      sp_k_q       <= '0;
      sp_in_done_q <= 1'b0;
      sp_in_len_q  <= '0;
      s1_ptr_q     <= '0;
      sp_prev1_q   <= '0;
      sp_prev2_q   <= '0;
      sp_ks_prev_q <= '0;
      sp_ks_used_q <= '0;
      sp_drain_q   <= 1'b0;
    end else begin
      if (!sp_active_q) begin
        if (s1_job_ready) begin
          sp_active_q  <= 1'b1;
          sp_ks_used_q <= '0;
          sp_k_q       <= '0;
          sp_in_done_q <= 1'b0;
          sp_in_len_q  <= '0;
        end
      end else if (sp_drain_q) begin
        if (ks_valid) begin
          sp_ks_used_q <= sp_ks_used_q + 16'd1;
          if (sp_ks_used_q + 16'd1 >= nks_of(sp_job)) begin
            sp_drain_q  <= 1'b0;
            sp_active_q <= 1'b0;
            s1_ptr_q    <= s1_ptr_q + 1'b1;
          end
        end
      end else if (sp_go) begin
        sp_k_q     <= sp_k_q + 12'd1;
        sp_prev2_q <= sp_prev1_q;
        sp_prev1_q <= sp_in_done_q ? 128'h0 : in_data_i;
        if (sp_ks_pop) begin
          sp_ks_prev_q <= ks_head;
          sp_ks_used_q <= sp_ks_used_q + 16'd1;
        end
        if (sp_take) begin
          sp_in_len_q <= sp_in_len_q + 16'(popcount16(in_keep_i));
          if (in_last_i) sp_in_done_q <= 1'b1;
        end
        if (sp_last) begin
          // A frame shorter than its IP length (malformed at tlast) leaves keystream blocks
          // of its job behind: drain them (one per cycle) before the next frame.
          if (sp_drain_need) begin
            sp_drain_q <= 1'b1;
            if (sp_ks_pop) sp_ks_used_q <= sp_ks_used_q + 16'd1;
          end else if (sp_chain) begin
            s1_ptr_q     <= s1_next;
            sp_ks_used_q <= '0;
            sp_k_q       <= '0;
            sp_in_done_q <= 1'b0;
            sp_in_len_q  <= '0;
          end else begin
            sp_active_q <= 1'b0;
            s1_ptr_q    <= s1_ptr_q + 1'b1;
          end
        end
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s1_valid_q <= 1'b0;
    end else if (s1_ready) begin
      s1_valid_q <= sp_go;
    end
  end

  always_ff @(posedge clk_i) begin
    if (s1_ready && sp_go) begin
      s1_data_q <= sp_data;
      s1_keep_q <= sp_keep;
      s1_last_q <= sp_last;
      s1_slot_q <= s1_ptr_q;
      s1_k_q    <= sp_k_q;
    end
  end

  ////////////////////
  // S2 GHASH feed  //
  ////////////////////

  localparam logic [1:0] PhAad  = 2'd0;
  localparam logic [1:0] PhC    = 2'd1;
  localparam logic [1:0] PhLen  = 2'd2;
  localparam logic [1:0] PhDone = 2'd3;

  logic         s2_valid_q;
  logic [127:0] s2_data_q;
  logic [15:0]  s2_keep_q;
  logic         s2_last_q;
  slot_t        s2_slot_q;
  logic [11:0]  s2_k_q;
  logic         s2_ready;          // S2 register may load
  logic         s2_pass;           // S2 beat moves into the delay FIFO this cycle
  logic         s3_ready;
  logic         dq_wready;

  logic [1:0]   g_phase_q;
  logic [16:0]  g_gp_q;            // next GHASH byte (output offset)
  logic         g_first_q;         // next block is X_1
  logic [127:0] g_prev_q;          // beat k-1 (GHASH copy, masked)
  rocesec_pkg::job_t         g_job;

  logic         gh_valid;
  logic         gh_first;
  logic         gh_last;
  logic [127:0] gh_data;
  logic [1:0]   g_phase_d;
  logic [16:0]  g_gp_d;

  assign g_job   = jt_q[s2_slot_q];
  assign s1q_job = jt_q[s1_slot_q];

  // invariant-field mask of output byte o (docs/wire-format.md §4, Annex A17.8)
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [7:0] aad_mask(rocesec_pkg::job_t j, logic [16:0] o);
    logic [16:0] ip, udp, bth;
    logic [7:0]  m;
    ip  = {9'h0, j.ip_off};
    udp = {9'h0, j.udp_off};
    bth = {9'h0, j.bth_off};
    m   = 8'h00;
    if (j.ipv6) begin
      if (o == ip) m = 8'h0F;
      if (o == ip + 17'd1 || o == ip + 17'd2 || o == ip + 17'd3 || o == ip + 17'd7) m = 8'hFF;
    end else begin
      if (o == ip + 17'd1 || o == ip + 17'd8 || o == ip + 17'd10 || o == ip + 17'd11) m = 8'hFF;
    end
    if (o == udp + 17'd6 || o == udp + 17'd7 || o == bth + 17'd4) m = 8'hFF;
    aad_mask = m;
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  always_comb begin
    logic [127:0] cur;
    logic [255:0] w;          // {cur, prev}: byte j = output offset 16(k-1) + j
    logic [16:0]  base;       // 16(k-1)
    logic [16:0]  re;         // range end
    logic [16:0]  bend;
    logic [16:0]  re_d, bend_d;
    /* verilator lint_off UNUSEDSIGNAL */
    logic [16:0]  shift;      // < 32 by construction
    /* verilator lint_on UNUSEDSIGNAL */
    logic [16:0]  pstart, eend, ipst;
    logic [127:0] blk;
    logic [63:0]  la, lc;
    logic         aead, pauth;

    cur = s2_data_q;
    for (int i = 0; i < 16; i++) begin
      cur[8*i +: 8] = s2_data_q[8*i +: 8] | aad_mask(g_job, {1'b0, s2_k_q, 4'h0} + 17'(i));
    end
    w      = {cur, g_prev_q};
    base   = {1'b0, s2_k_q, 4'h0} - 17'd16;
    ipst   = {9'h0, g_job.ip_off};
    pstart = {9'h0, g_job.poff} + 17'd8;
    eend   = {1'b0, g_job.eoff} + 17'd8;
    aead   = (g_job.mode == rocesec_pkg::ModeAead);
    pauth  = (g_job.mode == rocesec_pkg::ModePacketAuth);
    re     = (g_phase_q == PhAad) ? (pauth ? eend : pstart) : eend;
    bend   = (g_gp_q + 17'd16 < re) ? g_gp_q + 17'd16 : re;
    shift  = g_gp_q - base;

    blk = '0;
    for (int i = 0; i < 16; i++) begin
      // block byte i (b0 = bits [127:120]) is output byte gp + i
      if (g_gp_q + 17'(i) < re) blk[127 - 8*i -: 8] = w[8*(shift[4:0] + 5'(i)) +: 8];
    end
    la = {44'h0, (aead || !pauth) ? pstart - ipst : eend - ipst, 3'b000};
    lc = aead ? {45'h0, g_job.eoff - {8'h0, g_job.poff}, 3'b000} : 64'h0;

    gh_valid  = 1'b0;
    gh_first  = g_first_q;
    gh_last   = 1'b0;
    gh_data   = blk;
    g_phase_d = g_phase_q;
    g_gp_d    = g_gp_q;
    s2_pass   = 1'b0;
    re_d      = re;
    bend_d    = bend;
    if (s2_valid_q) begin
      if ((g_phase_q == PhAad || g_phase_q == PhC) && bend <= {1'b0, s2_k_q, 4'h0} + 17'd16) begin
        gh_valid = 1'b1;
        g_gp_d   = g_gp_q + 17'd16;
        if (g_gp_q + 17'd16 >= re) begin
          if (g_phase_q == PhAad && aead && g_job.eoff != {8'h0, g_job.poff}) begin
            g_phase_d = PhC;
            g_gp_d    = pstart;
          end else begin
            g_phase_d = PhLen;
          end
        end
        // the beat may leave with this block unless another block also ends in it
        re_d    = (g_phase_d == PhAad) ? re : eend;
        bend_d  = (g_gp_d + 17'd16 < re_d) ? g_gp_d + 17'd16 : re_d;
        s2_pass = dq_wready && (g_phase_d == PhDone ||
                  ((g_phase_d == PhAad || g_phase_d == PhC) &&
                   bend_d > {1'b0, s2_k_q, 4'h0} + 17'd16));
      end else if (g_phase_q == PhLen) begin
        gh_valid  = 1'b1;
        gh_last   = 1'b1;
        gh_data   = {la, lc};
        g_phase_d = PhDone;
        s2_pass   = dq_wready;
      end else begin
        s2_pass = dq_wready;
      end
    end
  end

  assign s2_ready = !s2_valid_q || s2_pass;
  assign s1_ready = s2_ready;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s2_valid_q <= 1'b0;
      g_phase_q  <= PhDone;
      g_gp_q     <= '0;
      g_first_q  <= 1'b0;
      g_prev_q   <= '0;
    end else begin
      if (s2_ready) s2_valid_q <= s1_valid_q;
      g_phase_q <= g_phase_d;
      g_gp_q    <= g_gp_d;
      if (gh_valid) g_first_q <= 1'b0;
      if (s2_pass) begin
        for (int i = 0; i < 16; i++) begin
          g_prev_q[8*i +: 8] <= s2_data_q[8*i +: 8] |
                                aad_mask(g_job, {1'b0, s2_k_q, 4'h0} + 17'(i));
        end
      end
      if (s2_ready && s1_valid_q && s1_k_q == 12'd0) begin
        // first beat of a frame: start its GHASH
        g_phase_q <= s1q_job.protect ? PhAad : PhDone;
        g_gp_q    <= {9'h0, s1q_job.ip_off};
        g_first_q <= 1'b1;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (s2_ready && s1_valid_q) begin
      s2_data_q <= s1_data_q;
      s2_keep_q <= s1_keep_q;
      s2_last_q <= s1_last_q;
      s2_slot_q <= s1_slot_q;
      s2_k_q    <= s1_k_q;
    end
  end

  logic       gh_out_valid;
  slot_t      gh_out_tag;

  ghash_core #(
    .MulStages (2),
    .TagWidth  (SlotW)
  ) u_ghash (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (gh_valid),
    .in_first_i  (gh_first),
    .in_last_i   (gh_last),
    .in_tag_i    (s2_slot_q),
    .in_data_i   (gh_data),
    .in_h_i      (g_job.h),
    .out_valid_o (gh_out_valid),
    .out_tag_o   (gh_out_tag),
    .out_hash_o  (hash_data)
  );

  assign hash_we   = gh_out_valid;
  assign hash_slot = gh_out_tag;

  ///////////
  // S3 ICV //
  ///////////

  logic         s3_valid_q;
  logic [127:0] s3_data_q;
  logic [15:0]  s3_keep_q;
  logic         s3_last_q;
  slot_t        s3_slot_q;
  logic [11:0]  s3_k_q;
  logic         s3_go;             // S3 beat moves to S4
  logic         s4_ready;
  logic [127:0] s3_out;
  /* verilator lint_off UNUSEDSIGNAL */
  rocesec_pkg::job_t         s3_job;
  /* verilator lint_on UNUSEDSIGNAL */

  assign s3_job = jt_q[s3_slot_q];

  always_comb begin
    logic [16:0]  o;
    logic [16:0]  icv0;
    logic         overlap;
    logic [127:0] icv;
    icv0    = {1'b0, s3_job.eoff} + 17'd8;
    icv     = jt_hash_q[s3_slot_q] ^ jt_ekj0_q[s3_slot_q];
    overlap = s3_job.protect && ({1'b0, s3_k_q, 4'h0} + 17'd16 > icv0) &&
              ({1'b0, s3_k_q, 4'h0} < icv0 + 17'd16);
    s3_out  = s3_data_q;
    for (int i = 0; i < 16; i++) begin
      o = {1'b0, s3_k_q, 4'h0} + 17'(i);
      if (s3_job.protect && o >= icv0 && o < icv0 + 17'd16) begin
        s3_out[8*i +: 8] = icv[127 - 8*(o - icv0) -: 8];
      end
    end
    s3_go = s3_valid_q && s4_ready &&
            (!overlap || (jt_hash_v_q[s3_slot_q] && jt_ekj0_v_q[s3_slot_q]));
  end

  assign s3_ready = !s3_valid_q || s3_go;

  // Delay FIFO S2 -> S3: lets S1/S2 run ahead while a beat waits for its ICV, so that in a
  // stream the tag of a frame is ready by the time its ICV beat reaches S3.
  localparam int unsigned DqW = 128 + 16 + 1 + SlotW + 12;
  logic           dq_rvalid;
  logic [DqW-1:0] dq_rdata;
  logic [$clog2(DlyBeats):0] unused_dq_count;

  common_fifo_sync #(
    .Width (DqW),
    .Depth (DlyBeats)
  ) u_dly (
    .clk_i    (clk_i),
    .rst_ni   (rst_ni),
    .wvalid_i (s2_pass),
    .wready_o (dq_wready),
    .wdata_i  ({s2_data_q, s2_keep_q, s2_last_q, s2_slot_q, s2_k_q}),
    .rvalid_o (dq_rvalid),
    .rready_i (s3_ready),
    .rdata_o  (dq_rdata),
    .count_o  (unused_dq_count)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s3_valid_q <= 1'b0;
    end else if (s3_ready) begin
      s3_valid_q <= dq_rvalid;
    end
  end

  always_ff @(posedge clk_i) begin
    if (s3_ready && dq_rvalid) begin
      {s3_data_q, s3_keep_q, s3_last_q, s3_slot_q, s3_k_q} <= dq_rdata;
    end
  end

  ////////////
  // S4 ICRC //
  ////////////

  logic         s4_valid_q;
  logic [127:0] s4_data_q;
  logic [15:0]  s4_keep_q;
  logic         s4_last_q;
  slot_t        s4_slot_q;
  logic [11:0]  s4_k_q;
  logic         s4_go;
  logic         s5_ready;
  logic [127:0] s4_out;
  /* verilator lint_off UNUSEDSIGNAL */
  rocesec_pkg::job_t         s4_job;
  /* verilator lint_on UNUSEDSIGNAL */
  /* verilator lint_off UNUSEDSIGNAL */
  rocesec_pkg::job_t         s3_in_job;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [31:0]  crc;
  logic [31:0]  unused_crc_stored;
  logic [31:0]  unused_crc;

  assign s4_job    = jt_q[s4_slot_q];
  assign s3_in_job = jt_q[s3_slot_q];

  // The ICRC engine sees every beat as it enters S4 (layout of that beat's job).
  roce_parse_icrc #(
    .LANES (1)
  ) u_icrc (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .beat_valid_i (s3_go),
    .beat_data_i  (s3_out),
    .beat_keep_i  (s3_keep_q),
    .beat_base_i  ({s3_k_q, 4'h0}),
    .ipv6_i       (s3_in_job.ipv6),
    .ip_off_i     (s3_in_job.ip_off),
    .udp_off_i    (s3_in_job.udp_off),
    .bth_off_i    (s3_in_job.bth_off),
    .icrc_off_i   (s3_in_job.eoff + 16'd24),
    .icrc_o       (unused_crc),
    .icrc_now_o   (crc),
    .stored_o     (unused_crc_stored)
  );

  always_comb begin
    logic [16:0] o;
    logic [16:0] c0;
    c0      = {1'b0, s4_job.eoff} + 17'd24;
    s4_out  = s4_data_q;
    for (int i = 0; i < 16; i++) begin
      o = {1'b0, s4_k_q, 4'h0} + 17'(i);
      if (s4_job.protect && o >= c0 && o < c0 + 17'd4) begin
        s4_out[8*i +: 8] = crc[8*(o - c0) +: 8];
      end
    end
    // crc (icrc_now_o) includes this beat from the cycle it entered S4 on
    s4_go = s4_valid_q && s5_ready && (!s4_last_q || jt_done_v_q[s4_slot_q]);
  end

  assign s4_ready = !s4_valid_q || s4_go;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s4_valid_q <= 1'b0;
    end else if (s4_ready) begin
      s4_valid_q <= s3_go;
    end
  end

  always_ff @(posedge clk_i) begin
    if (s4_ready && s3_go) begin
      s4_data_q <= s3_out;
      s4_keep_q <= s3_keep_q;
      s4_last_q <= s3_last_q;
      s4_slot_q <= s3_slot_q;
      s4_k_q    <= s3_k_q;
    end
  end

  assign free_we   = s4_go && s4_last_q;
  assign free_slot = s4_slot_q;

  ///////////////////
  // S5 output reg //
  ///////////////////

  assign s5_ready = !m_axis_tvalid_o || m_axis_tready_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      m_axis_tvalid_o <= 1'b0;
    end else if (s5_ready) begin
      m_axis_tvalid_o <= s4_go;
    end
  end

  always_ff @(posedge clk_i) begin
    if (s5_ready && s4_go) begin
      m_axis_tdata_o <= s4_out;
      m_axis_tkeep_o <= s4_keep_q;
      m_axis_tlast_o <= s4_last_q;
      m_axis_tuser_o <= s4_last_q ? {2'b00, jt_fwd_q[s4_slot_q], jt_reason_q[s4_slot_q]} : 8'h00;
    end
  end

  logic unused_sig;
  assign unused_sig = ^{unused_dq_count, unused_crc, unused_crc_stored, unused_ks_ready};

endmodule
