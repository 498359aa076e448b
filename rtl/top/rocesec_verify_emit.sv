// SPDX-License-Identifier: Apache-2.0
//
// rocesec_verify_emit: stages `crypto` and `emit` of the verify (RX) top — model
// model/src/stage/crypto.rs open and model/src/stage/emit.rs strip, as sequenced by
// model/src/engine.rs Verifier::verify.
//
// Data format
// -----------
// Beats are B = 16·LANES bytes, byte i of tdata in bits [8i+7:8i], tkeep contiguous. Each
// frame arrives from the packet FIFO with a job_t from the key stage (same order). For a
// processed (job.protect = 1) protected frame of length L (offsets of the protected input:
// H = job.hoff SecHdr, P = job.poff payload, E = job.eoff ICV), the plain frame leaves as
// (docs/wire-format.md §1, output offsets o):
//   o <  H           in[o] with lengths - 24, the IPv4 checksum and BTH TVer = 0
//                    (rocesec_pkg::hdr_beat, values from the job)
//   o <  E - 8       in[o + 8]    (extended headers, payload ‖ pad; AES-CTR decrypted in AEAD)
//   o <  E - 4       ICRC over the output (IBTA Vol 1 Annex A17.8), little-endian
//   o <  L - 24      in[o + 24]   (L2 trailer)
// Other frames leave unchanged. The ICV = in[E, E+16) is compared with E_K(J0) ^ GHASH_H(A, C)
// (SP 800-38D §7.2 steps 7–8) over the input: A = in[ip_off, P) masked (packet-auth:
// in[ip_off, E)), C = in[P, E) (AEAD). m_axis_tuser on the last beat: {fwd, reason} of the final
// verdict (rocesec_pkg).
//
// Pipeline (valid/ready between stages):
//   G   input walker + rocesec_ghash_feed over the input beats (tags each beat with its job slot
//       and beat index; a frame enters once its job is written); ICV bytes are captured from its
//       output into the job table.
//   delay FIFO (DlyBeats).
//   S1  strip/splice: an input window of 1 + ceil(24 / B) beats, output beat m from input beats
//       m .. m + ceil(24 / B) (shifts 8 and 24 are constants), keystream XOR (words of LANES
//       blocks rotated by (P - 8) mod B, rocesec_ctr).
//   S4  rocesec_icrc_patch (stages A, U, P; 3 cycles): ICRC regenerated; the last beat waits
//       for the final verdict.
//   S5  output frame FIFO (FrameBeats): cut-through commits every beat as written; in
//       store-and-forward (saf_i, sampled per frame) a frame is committed on a good verdict and
//       its write pointer rewound on a bad one (Forencich axis_fifo DROP_BAD_FRAME), so a rejected
//       frame never releases a byte. A frame larger than the FIFO is dropped in
//       store-and-forward (drop_oversize_o).
// Authentication results go back to the key stage in job order (auth_*): every job gets one
// once its frame passed G and E_K(J0) and the hash (if the frame holds them) are known; a frame
// that ends before its ICV reports a failure (its parse verdict is malformed anyway).

`resetall
`default_nettype none

module rocesec_verify_emit
#(
  parameter int unsigned LANES      = 1,    // 128-bit blocks per beat (1, 2 or 4)
  parameter int unsigned NumJobs    = 8,    // frames in flight (2^n)
  parameter int unsigned KsDepth    = 64,   // keystream buffer (words of LANES blocks)
  parameter int unsigned DlyBeats   = (LANES > 1) ? 16 : 8,  // delay FIFO, GHASH feed -> splice
  parameter int unsigned FrameBeats = 512   // output frame FIFO (beats, 2^n)
) (
  input  wire logic          clk_i,
  input  wire logic          rst_ni,

  input  wire logic          saf_i,         // store-and-forward (else cut-through)

  // Jobs
  input  wire logic          job_valid_i,
  output logic               job_ready_o,
  input  wire rocesec_pkg::job_t job_i,

  // Round keys of derived packet keys (rocesec_key_cache), into the AES round-key RAMs
  input  wire logic          rk_we_i,
  input  wire logic [rocesec_pkg::RkW-1:0] rk_slot_i,
  input  wire logic [3:0]    rk_round_i,
  input  wire logic [127:0]  rk_data_i,

  // Authentication results (job order)
  output logic               auth_valid_o,
  input  wire logic          auth_ready_i,
  output logic               auth_ok_o,

  // Final verdicts (job order)
  input  wire logic          done_valid_i,
  input  wire logic [3:0]    done_reason_i,
  input  wire logic [1:0]    done_fwd_i,

  // Frames from the packet FIFO
  input  wire logic          in_valid_i,
  output logic               in_ready_o,
  input  wire logic [128*LANES-1:0] in_data_i,
  input  wire logic [16*LANES-1:0]  in_keep_i,
  input  wire logic          in_last_i,

  // AXI4-Stream output
  output logic [128*LANES-1:0] m_axis_tdata_o,
  output logic [16*LANES-1:0]  m_axis_tkeep_o,
  output logic               m_axis_tlast_o,
  output logic [7:0]         m_axis_tuser_o,
  output logic               m_axis_tvalid_o,
  input  wire logic          m_axis_tready_i,

  output logic               drop_o,          // pulse: a frame was dropped (store-and-forward)
  output logic               drop_oversize_o  // pulse: ... because it did not fit the FIFO
);

  localparam int unsigned SlotW = $clog2(NumJobs);
  localparam int unsigned FAW   = $clog2(FrameBeats);
  localparam int unsigned B     = 16 * LANES;        // bytes per beat
  localparam int unsigned LB    = $clog2(B);
  localparam int unsigned NPrev = (24 + B - 1) / B;  // input beats of look-ahead in S1
  localparam int unsigned KW    = 128 * LANES;       // beat / keystream word width

  if (FrameBeats < 2 || (FrameBeats & (FrameBeats - 1)) != 0) begin : gen_param_check
    $error("rocesec_verify_emit: FrameBeats must be a power of two >= 2 (instance %m)");
  end

  typedef logic [SlotW-1:0] slot_t;

  ///////////////
  // Job table //
  ///////////////

  (* ram_style = "distributed" *)  // (few words, many readers: Yosys would pick registers)
  logic [rocesec_pkg::JobBits-1:0] jt_q [NumJobs];  // job_t, stored flat
  logic [127:0] jt_hash_q   [NumJobs];
  logic [127:0] jt_icv_q    [NumJobs];
  logic         jt_gend_q   [NumJobs];   // the frame has passed G
  // Its length against the ICV offset E (valid with gend): length >= E + 16 (the whole ICV is
  // in the frame) and length >= E. Compared as the frame leaves G and kept as two bits, not
  // the 17-bit length compared in the authentication walk: that walk's output is the key
  // stage's verdict input, and the two compares behind the job-table read were the head of
  // the verify top's critical path (session 39 route; session 42).
  logic         jt_icv_in_q [NumJobs];
  logic         jt_e_in_q   [NumJobs];

  slot_t wr_ptr, auth_ptr_q, g_ptr_q, ctr_ptr;
  logic [SlotW:0] auth_lag_q;   // jobs written, authentication not yet reported
  logic [SlotW:0] g_lag_q;      // jobs written, frame not yet entered G

  logic  job_fire;

  logic         ekj0_we;
  slot_t        ekj0_slot;
  logic [127:0] ekj0_data;
  logic         hash_we;
  slot_t        hash_slot;
  logic [127:0] hash_data;
  logic         free_we;
  slot_t        free_slot;

  // Slot bookkeeping (valid, E_K(J0) / hash / verdict written, the verdict, the key material),
  // shared with the protect emit (which also reads the valid bits).
  // the read ports' slots (set by the stages below)
  slot_t h_slot;     // frame whose hash subkey the GHASH feed reads
  slot_t s4_slot;    // S4's frame (its verdict)
  logic [NumJobs-1:0] jt_valid, jt_ekj0_v, jt_hash_v, jt_done_nx;
  logic [127:0]       jt_key, jt_h, jt_ekj0;  // at ctr_ptr, h_slot, the ICV's slot
  logic [3:0]         jt_reason;              // at s4_slot
  logic [1:0]         jt_fwd;

  rocesec_job_slots #(
    .NumJobs (NumJobs)
  ) u_slots (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .job_valid_i   (job_valid_i),
    .job_ready_o   (job_ready_o),
    .job_key_i     (job_i.key),
    .job_h_i       (job_i.h),
    .job_fire_o    (job_fire),
    .wr_ptr_o      (wr_ptr),
    .free_we_i     (free_we),
    .free_slot_i   (free_slot),
    .done_valid_i  (done_valid_i),
    .done_reason_i (done_reason_i),
    .done_fwd_i    (done_fwd_i),
    .ekj0_we_i     (ekj0_we),
    .ekj0_slot_i   (ekj0_slot),
    .ekj0_data_i   (ekj0_data),
    .hash_we_i     (hash_we),
    .hash_slot_i   (hash_slot),
    .valid_o       (jt_valid),
    .ekj0_v_o      (jt_ekj0_v),
    .hash_v_o      (jt_hash_v),
    .done_next_o   (jt_done_nx),
    .key_slot_i    (ctr_ptr),
    .key_o         (jt_key),
    .h_slot_i      (h_slot),
    .h_o           (jt_h),
    .ekj0_rd_slot_i (auth_ptr_q),
    .ekj0_o        (jt_ekj0),
    .verdict_slot_i (s4_slot),
    .reason_o      (jt_reason),
    .fwd_o         (jt_fwd)
  );

  logic         icv_we;       // G output beat: capture ICV bytes / frame end
  slot_t        icv_slot;
  logic [127:0] icv_wdata;
  logic         gend_we;
  logic [16:0]  gend_len;
  /* verilator lint_off UNUSEDSIGNAL */
  /* verilator lint_on UNUSEDSIGNAL */

  // jt_q holds the job_t without its key material (the key and h fields are written as
  // zeros; u_slots keeps them, zeroed after the job leaves).
  rocesec_pkg::job_t job_nokey;

  always_comb begin
    job_nokey     = job_i;
    job_nokey.key = '0;
    job_nokey.h   = '0;
  end

  // The job table proper (job_t without key and h): written once per job, read asynchronously
  // by the stages; no reset (a slot's word is used only while its job is in the table), so an
  // FPGA maps it to distributed RAM, one copy per read port.
  always_ff @(posedge clk_i) begin
    if (job_fire) jt_q[wr_ptr] <= job_nokey;
  end

  // Keystream words of each job, {nw - 1, nw} (rocesec_pkg::job_nw), computed once when the
  // job is written so that S1's accounting reads a number instead of doing arithmetic on it.
  (* ram_style = "distributed" *)
  logic [31:0] jt_nw_q [NumJobs];
  logic [15:0] job_nw;
  assign job_nw = rocesec_pkg::job_nw(job_i, LANES);
  always_ff @(posedge clk_i) begin
    if (job_fire) jt_nw_q[wr_ptr] <= {job_nw - 16'd1, job_nw};
  end

  // S1's splice offsets in the output frame, job_so = {H, E - 8, E - 4, P - 8} (SecHdr
  // offset = end of the kept header, end of the plain payload, ICRC, payload start), and the
  // S1 step at which each one's output beat is spliced, NPrev + offset / B (job_sn), for S1's
  // registered beat flags (sp_so_lt_q / sp_so_eq_q); jt_ksn_q keeps which of them is step 1,
  // the first step of a frame. The step of P - 8 is ksn, where the keystream starts: its flags
  // are S1's "n >= ksn" (sp_ks_on, a register of its own until session 21).
  localparam int unsigned SoN = 4;
  logic [16:0] job_so [SoN];
  logic [12:0] job_sn [SoN];
  logic [SoN-1:0] job_sn1;
  assign job_so[0] = {9'h0, job_i.hoff};
  assign job_so[1] = {1'b0, job_i.eoff} - 17'd8;
  assign job_so[2] = {1'b0, job_i.eoff} - 17'd4;
  assign job_so[3] = {9'h0, job_i.poff} - 17'd8;
  always_comb begin
    for (int j = 0; j < SoN; j++) begin
      job_sn[j]  = 13'(NPrev) + 13'(job_so[j] >> LB);
      job_sn1[j] = job_sn[j] == 13'd1;
    end
  end
  (* ram_style = "distributed" *)
  logic [SoN-1:0] jt_ksn_q [NumJobs];  // sn == 1 of each offset
  always_ff @(posedge clk_i) begin
    if (job_fire) jt_ksn_q[wr_ptr] <= job_sn1;
  end
  (* ram_style = "distributed" *)
  logic [13*SoN-1:0] jt_sn_q [NumJobs];
  always_ff @(posedge clk_i) begin
    if (job_fire) jt_sn_q[wr_ptr] <= {job_sn[3], job_sn[2], job_sn[1], job_sn[0]};
  end

  // S1's splice offsets in the output frame, {P - 8, E - 4, E - 8} (payload start, ICRC,
  // end of the plain payload), and the header field offsets of hdr_beat
  // (rocesec_pkg::hdr_fo), computed once when the job is written: S1 reads them at its
  // registered slot and compares them with its beat offset (lane_rel, lane_of), so
  // they are stored pre-subtracted (pre-added) rather than computed there.
  (* ram_style = "distributed" *)
  logic [51+rocesec_pkg::HdrFoBits-1:0] jt_soff_q [NumJobs];
  always_ff @(posedge clk_i) begin
    if (job_fire) jt_soff_q[wr_ptr] <= {job_so[3], job_so[2], job_so[1],
                                        rocesec_pkg::hdr_fo(job_i)};
  end

  // The frame's GHASH (written by G's hash output) and its received ICV (bytes [E, E + 16) of
  // the input, merged in as beats leave G): RAMs without reset too. The hash is read only with
  // its valid bit, the ICV only when the frame had all 16 bytes (so every byte was written).
  always_ff @(posedge clk_i) begin
    if (hash_we) jt_hash_q[hash_slot] <= hash_data;
    if (icv_we)  jt_icv_q[icv_slot]   <= icv_wdata;
  end

  // The frame has passed G (cleared by a new job, set with its length by G's last beat).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int j = 0; j < NumJobs; j++) begin
        jt_gend_q[j]   <= 1'b0;
        jt_icv_in_q[j] <= 1'b0;
        jt_e_in_q[j]   <= 1'b0;
      end
    end else begin
      if (job_fire) jt_gend_q[wr_ptr] <= 1'b0;
      if (gend_we) begin
        jt_gend_q[icv_slot]   <= 1'b1;
        jt_icv_in_q[icv_slot] <= gend_len >= {1'b0, go_job.eoff} + 17'd16;
        jt_e_in_q[icv_slot]   <= gend_len >= {1'b0, go_job.eoff};
      end
    end
  end

  ////////////////////////////////
  // AES: E_K(J0) and keystream //
  ////////////////////////////////

  logic              ks_pop;
  logic              ks_valid;
  logic [KW-1:0]     ks_head;
  /* verilator lint_off UNUSEDSIGNAL */
  rocesec_pkg::job_t ctr_job;
  /* verilator lint_on UNUSEDSIGNAL */

  always_comb begin
    ctr_job     = jt_q[ctr_ptr];
    ctr_job.key = jt_key;
  end

  rocesec_ctr #(
    .LANES   (LANES),
    .NumJobs (NumJobs),
    .KsDepth (KsDepth),
    .RkSlots (rocesec_pkg::RkSlots)
  ) u_ctr (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .job_push_i   (job_fire),
    .job_slot_o   (ctr_ptr),
    .job_active_i (ctr_job.protect),
    .job_key_i    (ctr_job.key),
    .job_rk_i     (ctr_job.rk),
    .job_iv_i     (ctr_job.iv),
    .job_nks_i    (rocesec_pkg::job_nks(ctr_job)),
    .ekj0_valid_o (ekj0_we),
    .ekj0_slot_o  (ekj0_slot),
    .ekj0_data_o  (ekj0_data),
    .ks_valid_o   (ks_valid),
    .ks_data_o    (ks_head),
    .ks_pop_i     (ks_pop),
    .rk_we_i      (rk_we_i),
    .rk_slot_i    (rk_slot_i),
    .rk_round_i   (rk_round_i),
    .rk_data_i    (rk_data_i)
  );

  ////////////////////////////
  // G: input walker + GHASH //
  ////////////////////////////

  logic         g0_mid_q;       // inside a frame
  logic [11:0]  g0_k_q;         // beat index
  logic         g0_valid, g0_ready;
  /* verilator lint_off UNUSEDSIGNAL */
  rocesec_pkg::job_t g0_job;
  rocesec_pkg::job_t g_job;
  rocesec_pkg::job_t go_job;
  /* verilator lint_on UNUSEDSIGNAL */
  slot_t        g_cur;
  logic         g_valid;
  logic [KW-1:0] g_data;
  logic [B-1:0] g_keep;
  logic         g_last;
  slot_t        g_slot;
  logic [11:0]  g_k;
  logic         dq_wready;

  assign g0_job     = jt_q[g_ptr_q];
  assign g0_valid   = in_valid_i && (g0_mid_q || g_lag_q != '0);
  assign in_ready_o = g0_ready && (g0_mid_q || g_lag_q != '0);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      g_lag_q <= '0;
    end else begin
      g_lag_q <= g_lag_q + (SlotW+1)'(job_fire) - (SlotW+1)'(g0_valid && g0_ready && !g0_mid_q);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      g0_mid_q <= 1'b0;
      g0_k_q   <= '0;
      g_ptr_q  <= '0;
    end else if (g0_valid && g0_ready) begin
      if (in_last_i) begin
        g0_mid_q <= 1'b0;
        g0_k_q   <= '0;
        g_ptr_q  <= g_ptr_q + 1'b1;
      end else begin
        g0_mid_q <= 1'b1;
        g0_k_q   <= (g0_k_q == 12'hFFF) ? g0_k_q : g0_k_q + 12'd1;
      end
    end
  end

  assign g_job = jt_q[g_cur];

  // Input frame coordinates: AAD from ip_off, ciphertext [P, E).
  // One feed at every LANES (rocesec_ghash_feed_wide delegates to rocesec_ghash_feed at 1).
  rocesec_ghash_feed_wide #(
    .LANES (LANES),
    .SlotW (SlotW)
  ) u_ghash_feed (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .in_valid_i    (g0_valid),
    .in_ready_o    (g0_ready),
    .in_data_i     (in_data_i),
    .in_keep_i     (in_keep_i),
    .in_last_i     (in_last_i),
    .in_slot_i     (g_ptr_q),
    .in_k_i        (g0_k_q),
    .in_active_i   (g0_job.protect),
    .in_ip_off_i   (g0_job.ip_off),
    .cur_slot_o    (g_cur),
    .cur_mode_i    (g_job.mode),
    .cur_ipv6_i    (g_job.ipv6),
    .cur_ip_off_i  (g_job.ip_off),
    .cur_udp_off_i (g_job.udp_off),
    .cur_bth_off_i (g_job.bth_off),
    .cur_cstart_i  ({9'h0, g_job.poff}),
    .cur_cend_i    ({1'b0, g_job.eoff}),
    .h_slot_o      (h_slot),
    .h_i           (jt_h),
    .out_valid_o   (g_valid),
    .out_ready_i   (dq_wready),
    .out_data_o    (g_data),
    .out_keep_o    (g_keep),
    .out_last_o    (g_last),
    .out_slot_o    (g_slot),
    .out_k_o       (g_k),
    .hash_valid_o  (hash_we),
    .hash_slot_o   (hash_slot),
    .hash_o        (hash_data)
  );

  // ICV capture (bytes [E, E + 16) of the input) and frame length, as beats leave G.
  logic [16:0] go_len_q;        // bytes of the current frame before this beat
  logic [7:0]  g_nb;            // bytes of the beat
  assign g_nb = rocesec_pkg::keep_bytes(rocesec_pkg::MaxBeatBytes'(g_keep));

  assign go_job = jt_q[g_slot];

  // ICV byte j is lane d + j of the beat (d = E - beat offset, may be negative or >= B): one
  // B-to-1 byte mux per ICV byte, no per-lane compare (the per-lane demux it replaces cost
  // 0.9 kLUT4 more at LANES = 1).
  always_comb begin
    logic [17:0] d;
    logic [17:0] idx;
    d         = rocesec_pkg::lane_rel({1'b0, go_job.eoff}, 17'({5'h0, g_k} << LB));
    icv_slot  = g_slot;
    icv_we    = g_valid;
    icv_wdata = jt_icv_q[g_slot];
    for (int j = 0; j < 16; j++) begin
      idx = d + 18'(j);
      if (!idx[17] && idx < 18'(B) && g_keep[idx[LB-1:0]]) begin
        icv_wdata[127 - 8*j -: 8] = g_data[8*idx[LB-1:0] +: 8];
      end
    end
    gend_we  = g_valid && g_last;
    gend_len = ((g_k == 12'd0) ? 17'd0 : go_len_q) + 17'(g_nb);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      go_len_q <= '0;
    end else if (g_valid) begin
      go_len_q <= g_last ? 17'd0 : ((g_k == 12'd0) ? 17'd0 : go_len_q) + 17'(g_nb);
    end
  end

  //////////////////////////
  // Authentication walk  //
  //////////////////////////

  /* verilator lint_off UNUSEDSIGNAL */
  rocesec_pkg::job_t a_job;
  /* verilator lint_on UNUSEDSIGNAL */

  assign a_job = jt_q[auth_ptr_q];

  // The result for the slot at auth_ptr_q is computed from the job table and registered
  // (auth_valid_q, auth_ok_q), so the key stage's verdict starts at flip-flops (session 43:
  // the LUT-RAM reads, the 128-bit tag compare, the verdict, the QP-state commit and its
  // bypass into the key stage's read registers were one path, 22 cells, the deepest of the
  // 1491c9f verify top). A result is reported a cycle after its inputs are in, and not in the
  // cycle after a pop (auth_valid_q is then cleared; auth_ok_q holds the old slot's result,
  // unused): the timing layer models both (model/src/timing_verify.rs, `Emit::auth_valid`).
  logic auth_valid_d, auth_ok_d, auth_valid_q, auth_ok_q, auth_pop;

  always_comb begin
    logic [127:0] tag;
    tag          = jt_hash_q[auth_ptr_q] ^ jt_ekj0;
    auth_valid_d = 1'b0;
    auth_ok_d    = 1'b0;
    if (auth_lag_q != '0) begin
      if (!a_job.protect) begin
        auth_valid_d = 1'b1;
        auth_ok_d    = 1'b1;
      end else if (jt_gend_q[auth_ptr_q] && jt_ekj0_v[auth_ptr_q]) begin
        if (jt_icv_in_q[auth_ptr_q]) begin
          auth_valid_d = jt_hash_v[auth_ptr_q];
          auth_ok_d    = (tag == jt_icv_q[auth_ptr_q]);
        end else if (jt_e_in_q[auth_ptr_q]) begin
          auth_valid_d = jt_hash_v[auth_ptr_q];  // wait for the hash: it will come
        end else begin
          auth_valid_d = 1'b1;                      // truncated: no hash
        end
      end
    end
  end

  assign auth_valid_o = auth_valid_q;
  assign auth_ok_o    = auth_ok_q;
  assign auth_pop     = auth_valid_q && auth_ready_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      auth_ptr_q   <= '0;
      auth_lag_q   <= '0;
      auth_valid_q <= 1'b0;
      auth_ok_q    <= 1'b0;
    end else begin
      auth_lag_q   <= auth_lag_q + (SlotW+1)'(job_fire) - (SlotW+1)'(auth_pop);
      auth_valid_q <= auth_valid_d && !auth_pop;
      auth_ok_q    <= auth_ok_d;
      if (auth_pop) auth_ptr_q <= auth_ptr_q + 1'b1;
    end
  end

  /////////////////
  // Delay FIFO  //
  /////////////////

  // Each beat carries, instead of its index, the output length it implies: the input bytes of
  // its frame up to and with it (gend_len, counted as the beat leaves G) minus 24, so that S1's
  // last-beat decision compares a FIFO word with a register (session 14: before, S1 counted
  // the head beat's tkeep and added it to its own count, the verify emit's deepest path).
  // The job's protect bit rides along too (read at G's registered slot), so that S1's
  // pass/splice decision for a frame at the head of the FIFO needs no job-table read behind
  // the FIFO read.
  localparam int unsigned DqW = KW + B + 1 + SlotW + 18 + 1;
  logic           dq_rvalid, dq_rready;
  logic [DqW-1:0] dq_rdata;
  logic [KW-1:0]  d_data;
  logic [B-1:0]   d_keep;
  logic           d_last;
  slot_t          d_slot;
  logic           d_pass;           // the beat's frame is forwarded unchanged (!job.protect)
  logic signed [17:0] d_olen;       // output bytes of the frame if this beat is its last
  logic signed [17:0] g_olen;
  logic [$clog2(DlyBeats):0] unused_dq_count;

  assign g_olen = $signed({2'b00, gend_len[15:0]}) - 18'sd24;

  common_fifo_sync #(
    .Width (DqW),
    .Depth (DlyBeats)
  ) u_dly (
    .clk_i    (clk_i),
    .rst_ni   (rst_ni),
    .wvalid_i (g_valid),
    .wready_o (dq_wready),
    .wdata_i  ({g_data, g_keep, g_last, g_slot, g_olen, !go_job.protect}),
    .rvalid_o (dq_rvalid),
    .rready_i (dq_rready),
    .rdata_o  (dq_rdata),
    .count_o  (unused_dq_count)
  );

  assign {d_data, d_keep, d_last, d_slot, d_olen, d_pass} = dq_rdata;

  ///////////////
  // S1 splice //
  ///////////////

  logic         s1_valid_q;
  logic [KW-1:0] s1_data_q;
  logic [B-1:0] s1_keep_q;
  logic         s1_last_q;
  slot_t        s1_slot_q;
  logic [11:0]  s1_k_q;
  logic         s1_ready;

  logic         sp_active_q;        // a frame is being spliced
  slot_t        sp_slot_q;
  /* verilator lint_off UNUSEDSIGNAL */
  rocesec_pkg::job_t sp_ajob;        // job at sp_slot_q: the frame being spliced
  rocesec_pkg::hdr_fo_t sp_fo;       // its header field offsets (hdr_beat)
  /* verilator lint_on UNUSEDSIGNAL */
  logic [12:0]  sp_n_q;             // steps (input beats consumed, incl. zero steps)
  logic [SoN-1:0] sp_so_lt_q;       // job_sn[j] < sp_n_q: offset j is in an earlier output beat
  logic [SoN-1:0] sp_so_eq_q;       // job_sn[j] == sp_n_q: offset j is in this output beat
  logic         sp_ks_on;           // sp_n_q >= ksn of the frame: its beats take keystream
  logic         sp_in_done_q;
  logic signed [17:0] sp_olen_q;    // d_olen of the frame's last beat taken
  logic [KW-1:0] sp_prev_q [NPrev]; // input beats n-1 .. n-NPrev
  logic [KW-1:0] sp_ks_prev_q;
  logic [15:0]  sp_ks_left_q;       // keystream words of this frame not yet popped
  logic [15:0]  sp_ks_left1_q;      // sp_ks_left_q - 1
  logic         sp_ks_left_nz;      // sp_ks_left_q > 0
  logic         sp_ks_left_gt1;     // sp_ks_left_q > 1
  logic         sp_drain_q;
  logic         sp_step;            // one step this cycle
  logic         sp_take;            // consume an input beat this cycle
  logic         sp_emit;            // produce an output beat this cycle
  logic [KW-1:0] sp_data;
  logic [B-1:0] sp_keep;
  logic         sp_last;
  logic         sp_ks_pop;
  logic         sp_pass;            // unchanged frame
  logic [11:0]  sp_m;
  slot_t        sp_slot;

  // The frame at the head of the delay FIFO starts when S1 is idle.
  assign sp_slot = sp_active_q ? sp_slot_q : d_slot;
  // A protected frame emits only after its NPrev priming steps, so S1 builds an output beat
  // of it only while it is active: the splice reads the job (header fields, mode, offsets)
  // at the registered slot, not behind the delay-FIFO read and the idle/active slot mux
  // (that chain was the head of the verify emit's critical path at b6fee71). An idle S1
  // takes the pass bit of the head frame from the FIFO word.
  assign sp_ajob = jt_q[sp_slot_q];
  assign sp_fo  = jt_soff_q[sp_slot_q][rocesec_pkg::HdrFoBits-1:0];  // hdr_beat's offsets
  // Lane masks of S1's output beat m = n - NPrev: lanes B·m + i >= job_so[j], from the beat
  // flags and the offset's lane (as lanes_ge(lane_rel(job_so[j], B·m)), no subtraction);
  // meaningful while S1 emits (n >= NPrev).
  logic [LB-1:0] sp_so_lane [SoN];
  logic [B-1:0]  sp_m_so [SoN];
  always_comb begin
    sp_so_lane[0] = sp_ajob.hoff[LB-1:0];
    for (int j = 1; j < SoN; j++) begin
      sp_so_lane[j] = jt_soff_q[sp_slot_q][rocesec_pkg::HdrFoBits + 17*(j-1) +: LB];
    end
    for (int j = 0; j < SoN; j++) begin
      for (int i = 0; i < B; i++) begin
        sp_m_so[j][i] = sp_so_lt_q[j] || (sp_so_eq_q[j] && sp_so_lane[j] <= LB'(i));
      end
    end
  end
  assign sp_pass = sp_active_q ? !sp_ajob.protect : d_pass;
  assign sp_ks_on       = sp_so_lt_q[3] || sp_so_eq_q[3];  // step of P - 8 reached (ksn)
  assign sp_ks_left_nz  = (sp_ks_left_q != '0);
  assign sp_ks_left_gt1 = sp_ks_left_nz && (sp_ks_left1_q != '0);

  always_comb begin
    logic [KW-1:0] cur;
    logic [(NPrev+1)*KW-1:0] win;  // {cur, prev[0], ..}: byte b = input offset B m + b
    logic signed [17:0] olen;
    logic signed [17:0] obase;
    logic         need_ks;
    logic [LB-1:0] c;
    logic [2*KW-1:0] ksw;    // {ks_cur, ks_prev}, little-endian keystream bytes
    logic [7:0]   b;
    logic         have_in;
    logic         done_now;
    logic [16:0]  ob17;
    logic [B-1:0] m_hend, m_eend, m_crc, m_p;
    logic [KW-1:0] hp;

    b         = '0;
    ob17      = '0;
    m_hend    = '0;
    m_eend    = '0;
    m_crc     = '0;
    m_p       = '0;
    hp        = '0;
    obase     = '0;
    sp_step   = 1'b0;
    sp_take   = 1'b0;
    sp_emit   = 1'b0;
    sp_data   = '0;
    sp_keep   = '0;
    sp_last   = 1'b0;
    sp_ks_pop = 1'b0;
    sp_m      = sp_n_q[11:0] - 12'(NPrev);

    have_in  = dq_rvalid && !sp_in_done_q;
    cur      = sp_in_done_q ? '0 : d_data;
    win[NPrev*KW +: KW] = cur;
    for (int j = 0; j < NPrev; j++) win[(NPrev-1-j)*KW +: KW] = sp_prev_q[j];
    c        = sp_so_lane[3];  // lane of P - 8
    // output beats from P - 8 on (steps n >= ksn, sp_ks_on) pop keystream words until the
    // job's nw are used
    need_ks  = sp_ks_on && sp_ks_left_nz;
    for (int j = 0; j < B; j++) begin  // little-endian view: keystream byte order b0, b1, ..
      ksw[8*j +: 8]       = sp_ks_prev_q[128*(j/16) + 127 - 8*(j%16) -: 8];
      ksw[8*(j + B) +: 8] = ks_head[128*(j/16) + 127 - 8*(j%16) -: 8];
    end
    done_now = sp_in_done_q || (have_in && d_last);
    olen     = sp_in_done_q ? sp_olen_q : d_olen;

    if (sp_drain_q) begin
      sp_ks_pop = ks_valid;
    end else if ((sp_active_q || dq_rvalid) && sp_pass) begin
      // unchanged frame
      sp_data = d_data;
      sp_keep = d_keep;
      sp_last = d_last;
      sp_emit = s1_ready && dq_rvalid;
      sp_take = sp_emit;
      sp_step = sp_emit;
    end else if (sp_active_q || dq_rvalid) begin
      sp_step   = (sp_n_q < 13'(NPrev)) ? (have_in || sp_in_done_q)
                                   : (s1_ready && (sp_in_done_q || dq_rvalid) && (!need_ks || ks_valid));
      sp_take   = sp_step && !sp_in_done_q;
      sp_emit   = sp_step && (sp_n_q >= 13'(NPrev));
      sp_ks_pop = sp_emit && need_ks;
      // lane masks of the beat at output offset B·m (sp_m_so)
      ob17   = 17'({5'h0, sp_m} << LB);
      m_hend = sp_m_so[0];
      m_eend = sp_m_so[1];
      m_crc  = sp_m_so[2];
      m_p    = sp_m_so[3];
      hp     = KW'(rocesec_pkg::hdr_beat(sp_ajob, sp_fo, ob17,
                                        (8*rocesec_pkg::MaxBeatBytes)'(win[KW-1:0]),
                                        4'h0, LB));  // in[o] for o < hoff
      for (int i = 0; i < B; i++) begin
        if (!m_hend[i]) begin
          b = hp[8*i +: 8];
        end else if (!m_eend[i]) begin
          b = win[8*(i + 8) +: 8];
          if (sp_ajob.mode == rocesec_pkg::ModeAead && m_p[i]) begin
            // keystream byte o - pstart: from ks_head for i >= c, from ks_prev for i < c
            b = b ^ ksw[8*(32'(i) + B - 32'(c)) +: 8];
          end
        end else if (!m_crc[i]) begin
          b = 8'h00;
        end else begin
          b = win[8*(i + 24) +: 8];
        end
        sp_data[8*i +: 8] = b;
      end
      obase = $signed({1'b0, ob17});
      if (done_now && obase + $signed(18'(B)) >= olen) begin
        sp_last = 1'b1;
        for (int i = 0; i < B; i++) sp_keep[i] = (obase + $signed(18'(i)) < olen);
        if (sp_keep == '0) sp_keep = B'(1);
      end else begin
        sp_keep = '1;
      end
    end
  end

  assign ks_pop    = sp_ks_pop;

  logic sp_drain_need;
  // keystream words left after this cycle's pop > 0: both candidates from registers, the pop
  // only selects
  assign sp_drain_need = !sp_pass && (sp_ks_pop ? sp_ks_left_gt1 : sp_ks_left_nz);

  // A last beat made without input (the frame's input is all in the window) is also the
  // first priming step of the next frame, when that frame is processed: its first beat is
  // taken in the same cycle, so frames whose input is not longer than their output by NPrev
  // beats leave back to back (before, one idle cycle per frame).
  logic sp_chain;
  assign sp_chain = sp_emit && sp_last && sp_in_done_q && !sp_pass && !sp_drain_need &&
                    dq_rvalid && !d_pass;

  assign dq_rready = sp_take || sp_chain;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sp_active_q  <= 1'b0;
      sp_slot_q    <= '0;
      sp_n_q       <= '0;
      sp_so_lt_q   <= '0;
      sp_so_eq_q   <= '0;
      sp_in_done_q <= 1'b0;
      sp_olen_q    <= '0;
      for (int j = 0; j < NPrev; j++) sp_prev_q[j] <= '0;
      sp_ks_prev_q <= '0;
      sp_ks_left_q  <= '0;
      sp_ks_left1_q <= '1;
      sp_drain_q   <= 1'b0;
    end else begin
      if (sp_drain_q) begin
        if (ks_valid) begin
          sp_ks_left_q  <= sp_ks_left1_q;
          sp_ks_left1_q <= sp_ks_left1_q - 16'd1;
          if (!sp_ks_left_gt1) begin
            sp_drain_q  <= 1'b0;
            sp_active_q <= 1'b0;
          end
        end
      end else if (sp_step) begin
        if (!sp_active_q) begin
          sp_active_q  <= 1'b1;
          sp_slot_q    <= d_slot;
        end
        sp_n_q     <= sp_n_q + 13'd1;
        // n + 1 reaches a splice offset's step (from idle n + 1 = 1: which of them are step 1)
        if (!sp_active_q) begin
          sp_so_lt_q <= '0;
          sp_so_eq_q <= jt_ksn_q[d_slot];
        end else begin
          for (int j = 0; j < SoN; j++) begin
            sp_so_lt_q[j] <= sp_so_lt_q[j] || sp_so_eq_q[j];
            sp_so_eq_q[j] <= sp_n_q + 13'd1 == jt_sn_q[sp_slot_q][13*j +: 13];
          end
        end
        for (int j = NPrev - 1; j > 0; j--) sp_prev_q[j] <= sp_prev_q[j-1];
        sp_prev_q[0] <= sp_in_done_q ? '0 : d_data;
        if (sp_ks_pop) begin
          sp_ks_prev_q  <= ks_head;
          sp_ks_left_q  <= sp_ks_left1_q;
          sp_ks_left1_q <= sp_ks_left1_q - 16'd1;
        end
        if (sp_take) begin
          sp_olen_q <= d_olen;
          if (d_last) sp_in_done_q <= 1'b1;
        end
        if (sp_emit && sp_last) begin
          sp_n_q       <= '0;
          sp_so_lt_q   <= '0;
          sp_so_eq_q   <= '0;
          sp_in_done_q <= 1'b0;
          for (int j = 0; j < NPrev; j++) sp_prev_q[j] <= '0;
          if (sp_drain_need) begin
            // A frame shorter than its IP length leaves keystream blocks of its job behind.
            sp_drain_q <= 1'b1;
          end else if (sp_chain) begin
            sp_slot_q    <= d_slot;
            sp_n_q       <= 13'd1;
            sp_so_eq_q   <= jt_ksn_q[d_slot];
            sp_prev_q[0] <= d_data;
            sp_olen_q    <= d_olen;
            sp_in_done_q <= d_last;
            {sp_ks_left1_q, sp_ks_left_q} <= jt_nw_q[d_slot];
          end else begin
            sp_active_q  <= 1'b0;
          end
        end
      end
      // idle: the counts of the frame at the head of the delay FIFO (it starts with priming
      // steps, NPrev >= 1, so no keystream is popped before this load is in place)
      if (!sp_active_q && !sp_drain_q) {sp_ks_left1_q, sp_ks_left_q} <= jt_nw_q[d_slot];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s1_valid_q <= 1'b0;
    end else if (s1_ready) begin
      s1_valid_q <= sp_emit;
    end
  end

  always_ff @(posedge clk_i) begin
    if (s1_ready && sp_emit) begin
      s1_data_q <= sp_data;
      s1_keep_q <= sp_keep;
      s1_last_q <= sp_last;
      s1_slot_q <= sp_slot;
      s1_k_q    <= sp_pass ? sp_n_q[11:0] : sp_m;
    end
  end

  ////////////
  // S4 ICRC //
  ////////////

  logic         s4_valid;
  logic [KW-1:0] s4_out;
  logic [B-1:0] s4_keep;
  logic         s4_last;
  slot_t        s4_cur;
  logic         s5_ready;
  /* verilator lint_off UNUSEDSIGNAL */
  rocesec_pkg::job_t s4_job;
  rocesec_pkg::job_t s1q_job;
  /* verilator lint_on UNUSEDSIGNAL */

  assign s4_job  = jt_q[s4_cur];
  assign s1q_job = jt_q[s1_slot_q];

  rocesec_icrc_patch #(
    .LANES (LANES),
    .SlotW (SlotW)
  ) u_icrc_patch (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .in_valid_i     (s1_valid_q),
    .in_ready_o     (s1_ready),
    .in_data_i      (s1_data_q),
    .in_keep_i      (s1_keep_q),
    .in_last_i      (s1_last_q),
    .in_slot_i      (s1_slot_q),
    .in_k_i         (s1_k_q),
    .in_ipv6_i      (s1q_job.ipv6),
    .in_ip_off_i    (s1q_job.ip_off),
    .in_udp_off_i   (s1q_job.udp_off),
    .in_bth_off_i   (s1q_job.bth_off),
    .in_icrc_off_i  (s1q_job.eoff - 16'd8),
    .cur_slot_o     (s4_cur),
    .cur_patch_i    (s4_job.protect),
    .cur_icrc_off_i (s4_job.eoff - 16'd8),
    .done_next_i    (jt_done_nx),
    .out_valid_o    (s4_valid),
    .out_ready_i    (s5_ready),
    .out_data_o     (s4_out),
    .out_keep_o     (s4_keep),
    .out_last_o     (s4_last),
    .out_slot_o     (s4_slot)
  );

  assign free_we   = s4_valid && s5_ready && s4_last;
  assign free_slot = s4_slot;

  //////////////////////////////
  // S5 output frame FIFO      //
  //////////////////////////////

  localparam int unsigned FW = KW + B + 1 + 8;

  logic [FW-1:0] fo_mem [FrameBeats];
  logic [FAW:0]  fo_wr_q, fo_cm_q, fo_rd_q;
  logic          fo_mid_q;     // inside a frame (its mode sampled)
  logic          fo_saf_q;     // store-and-forward for the frame being written
  logic          fo_ovf_q;     // the frame did not fit: discard it
  logic          fo_saf;       // mode of the beat being written
  logic          fo_we;
  logic          fo_bad;       // last beat: rejected frame in store-and-forward
  logic [7:0]    fo_tuser;
  logic          out_ready;
  logic          ovf_now;

  // The two pointer comparisons that start the S5 -> S4 ready chain are registers, computed
  // from the pointers' next values (fo_*_d), so s5_ready is one LUT of flops and saf_i:
  //   fo_full_q: wr - rd == FrameBeats (2^FAW) mod 2^(FAW+1), the pointers differ in their
  //              wrap bit only;
  //   fo_cmrd_q: cm == rd, nothing committed is left to read.
  // Both equal the comparisons of the current pointers (logic-equivalent to computing them
  // from fo_*_q, one cycle of every timing layer unchanged).
  logic [FAW:0]  fo_wr_d, fo_cm_d, fo_rd_d;
  logic          fo_full_q, fo_cmrd_q;
  logic          fo_rd_go;     // a committed beat is read this cycle

  assign fo_saf    = fo_mid_q ? fo_saf_q : saf_i;
  assign fo_tuser  = s4_last ? {2'b00, jt_fwd, jt_reason} : 8'h00;
  assign fo_bad    = fo_saf && s4_last && (jt_reason != rocesec_pkg::ReasonOk);
  // Store-and-forward: a frame filling the whole FIFO can never be committed.
  assign ovf_now   = fo_saf && fo_full_q && fo_cmrd_q;
  assign s5_ready  = !fo_full_q || fo_ovf_q || ovf_now;
  assign fo_we     = s4_valid && s5_ready && !fo_ovf_q && !ovf_now && !fo_bad;

  always_comb begin
    fo_wr_d = fo_wr_q;
    fo_cm_d = fo_cm_q;
    if (s4_valid && s5_ready) begin
      if (fo_we) fo_wr_d = fo_wr_q + 1'b1;
      if (!fo_saf) begin
        fo_cm_d = fo_wr_q + 1'b1;                  // cut-through: every beat is committed
      end else if (s4_last) begin
        if (fo_bad || fo_ovf_q || ovf_now) begin
          fo_wr_d = fo_cm_q;                       // rewind: the frame never leaves
        end else begin
          fo_cm_d = fo_wr_q + 1'b1;                // commit
        end
      end
    end
    fo_rd_d = fo_rd_go ? fo_rd_q + 1'b1 : fo_rd_q;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fo_wr_q         <= '0;
      fo_cm_q         <= '0;
      fo_full_q       <= 1'b0;
      fo_cmrd_q       <= 1'b1;
      fo_mid_q        <= 1'b0;
      fo_saf_q        <= 1'b0;
      fo_ovf_q        <= 1'b0;
      drop_o          <= 1'b0;
      drop_oversize_o <= 1'b0;
    end else begin
      fo_wr_q         <= fo_wr_d;
      fo_cm_q         <= fo_cm_d;
      fo_full_q       <= (fo_wr_d[FAW] != fo_rd_d[FAW]) &&
                         (fo_wr_d[FAW-1:0] == fo_rd_d[FAW-1:0]);
      fo_cmrd_q       <= (fo_cm_d == fo_rd_d);
      drop_o          <= 1'b0;
      drop_oversize_o <= 1'b0;
      if (s4_valid && s5_ready) begin
        fo_mid_q <= !s4_last;
        if (!fo_mid_q) fo_saf_q <= saf_i;
        if (ovf_now) fo_ovf_q <= 1'b1;
        if (fo_saf && s4_last) begin
          if (fo_bad || fo_ovf_q || ovf_now) begin
            drop_o  <= 1'b1;
            drop_oversize_o <= fo_ovf_q || ovf_now;
          end
          fo_ovf_q <= 1'b0;
        end
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (fo_we) fo_mem[fo_wr_q[FAW-1:0]] <= {s4_out, s4_keep, s4_last, fo_tuser};
  end

  // Read side: registered read into the output register.
  assign out_ready = !m_axis_tvalid_o || m_axis_tready_i;
  assign fo_rd_go  = out_ready && !fo_cmrd_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fo_rd_q         <= '0;
      m_axis_tvalid_o <= 1'b0;
    end else begin
      fo_rd_q <= fo_rd_d;
      if (out_ready) m_axis_tvalid_o <= !fo_cmrd_q;
    end
  end

  always_ff @(posedge clk_i) begin
    if (fo_rd_go) begin
      {m_axis_tdata_o, m_axis_tkeep_o, m_axis_tlast_o, m_axis_tuser_o} <= fo_mem[fo_rd_q[FAW-1:0]];
    end
  end

  logic unused_sig;
  assign unused_sig = ^{unused_dq_count, jt_valid};  // read by the protect emit only

endmodule
