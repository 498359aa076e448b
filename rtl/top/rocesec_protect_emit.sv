// SPDX-License-Identifier: Apache-2.0
//
// rocesec_protect_emit: stages `crypto` and `emit` of the protect (TX) top — model
// model/src/stage/crypto.rs seal and model/src/stage/emit.rs insert, as sequenced by
// model/src/engine.rs Protector::protect.
//
// Data format
// -----------
// Beats are B = 16·LANES bytes, byte i of tdata in bits [8i+7:8i], tkeep contiguous. Each
// frame arrives from the packet FIFO with a job_t from the key stage (same order). A protected
// frame leaves as (docs/wire-format.md §1, offsets o of the output frame, H = job.hoff,
// P = job.poff, E = job.eoff of the plain frame):
//   o <  H            in[o] with the lengths, IPv4 checksum and TVer rewritten
//                     (rocesec_pkg::hdr_beat, values from the job)
//   o <  H + 8        job.sechdr
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
//   skid (common_skid): S1 loads on a registered ready, one beat of slack before S2.
//   S2 GHASH feed: one block per cycle into ghash_core; holds the beat while more blocks end in
//      it (packet boundaries, final partial block, length block).
//   delay FIFO (DlyBeats): S1/S2 run ahead while S3 waits, hiding the GHASH latency in a stream.
//   S3 ICV: the beat(s) overlapping [E+8, E+24) wait for the hash and E_K(J0).
//   S4 ICRC (rocesec_icrc_patch): stage A feeds the beat to roce_parse_icrc, stage U registers
//      the CRC and the ICRC lanes, stage P patches; the last beat waits for the final verdict.
//   S5 output register (m_axis).
// AES: one aes_cipher_pipe generates E_K(J0) and the keystream per job in order, up to KsDepth
// blocks ahead (credit counted: in flight + buffered ≤ KsDepth).

`resetall
`default_nettype none

module rocesec_protect_emit
#(
  parameter int unsigned LANES    = 1,   // 128-bit blocks per beat (1, 2 or 4)
  parameter int unsigned NumJobs  = 8,   // frames in flight between key stage and output (2^n)
  parameter int unsigned KsDepth  = 64,  // keystream buffer (words of LANES blocks)
  parameter int unsigned DlyBeats = (LANES > 1) ? 16 : 8  // delay FIFO, GHASH feed -> ICV
) (
  input  wire logic          clk_i,
  input  wire logic          rst_ni,

  // Jobs
  input  wire logic          job_valid_i,
  output logic               job_ready_o,
  input  wire rocesec_pkg::job_t          job_i,

  // Round keys of derived packet keys (rocesec_key_cache), into the AES round-key RAMs
  input  wire logic                       rk_we_i,
  input  wire logic [rocesec_pkg::RkW-1:0] rk_slot_i,
  input  wire logic [3:0]                 rk_round_i,
  input  wire logic [127:0]               rk_data_i,

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
  input  wire logic [16:0]   in_olen_i,   // output length if this beat is its frame's last

  // AXI4-Stream output
  output logic [128*LANES-1:0] m_axis_tdata_o,
  output logic [16*LANES-1:0]  m_axis_tkeep_o,
  output logic               m_axis_tlast_o,
  output logic [7:0]         m_axis_tuser_o,
  output logic               m_axis_tvalid_o,
  input  wire logic          m_axis_tready_i
);

  localparam int unsigned SlotW   = $clog2(NumJobs);
  localparam int unsigned B       = 16 * LANES;          // bytes per beat
  localparam int unsigned LB      = $clog2(B);
  localparam int unsigned NPrev   = (24 + B - 1) / B;    // input beats kept for the splice
  localparam int unsigned KW      = 128 * LANES;         // beat / keystream word width

  typedef logic [SlotW-1:0] slot_t;

  ///////////////
  // Job table //
  ///////////////

  (* ram_style = "distributed" *)  // (few words, many readers: Yosys would pick registers)
  logic [rocesec_pkg::JobBits-1:0] jt_q [NumJobs];  // job_t, stored flat
  logic [127:0] jt_hash_q   [NumJobs];

  slot_t wr_ptr, ctr_ptr, s1_ptr_q;
  logic  job_fire;

  // events written by the stages below
  logic         ekj0_we;
  slot_t        ekj0_slot;
  logic [127:0] ekj0_data;
  logic         hash_we;
  slot_t        hash_slot;
  logic [127:0] hash_data;
  logic         free_we;
  slot_t        free_slot;

  // Slot bookkeeping (valid, E_K(J0) / hash / verdict written, the verdict, the key material),
  // shared with the verify emit.
  // the read ports' slots (set by the stages below)
  slot_t h_slot;     // frame whose hash subkey the GHASH feed reads
  slot_t s3_slot_q;  // S3's frame (its ICV)
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
    .ekj0_rd_slot_i (s3_slot_q),
    .ekj0_o        (jt_ekj0),
    .verdict_slot_i (s4_slot),
    .reason_o      (jt_reason),
    .fwd_o         (jt_fwd)
  );

  /* verilator lint_off UNUSEDSIGNAL */
  rocesec_pkg::job_t s1q_job;
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

  // Which of S1's splice offsets (SoN of them, see jt_soff_q) fall in output beat 0, for its
  // registered beat flags (sp_so_lt_q / sp_so_eq_q). Offset 4, P + 8, is where the keystream
  // starts: its flags are S1's "beat index >= pbeat" (sp_ks_on, a register until session 21),
  // so no subtraction of a job-table read is in S1's go decision (session 14).
  localparam int unsigned SoN = 5;  // splice offsets: H, H + 8, E + 8, E + 28, P + 8
  (* ram_style = "distributed" *)
  logic [SoN-1:0] jt_pb_q [NumJobs];
  logic [16:0] job_pstart;
  logic [16:0] job_so [SoN];
  logic [SoN-1:0] job_so_z;
  assign job_pstart = {9'h0, job_i.poff} + 17'd8;
  assign job_so[0]  = {9'h0, job_i.hoff};
  assign job_so[1]  = {9'h0, job_i.hoff} + 17'd8;
  assign job_so[2]  = {1'b0, job_i.eoff} + 17'd8;
  assign job_so[3]  = {1'b0, job_i.eoff} + 17'd28;
  assign job_so[4]  = job_pstart;
  always_comb begin
    for (int j = 0; j < SoN; j++) job_so_z[j] = (job_so[j] >> LB) == 17'd0;
  end
  always_ff @(posedge clk_i) begin
    if (job_fire) jt_pb_q[wr_ptr] <= job_so_z;
  end

  // S1's splice offsets in the output frame, job_so = {H, H + 8, E + 8, E + 28, P + 8}
  // (SecHdr, end of the SecHdr, start and end of the ICV, keystream start), and the header
  // field offsets of hdr_beat (rocesec_pkg::hdr_fo), computed once when the job is written:
  // S1 reads them at its registered slot, no adder behind the read (until session 21 the
  // adders followed S1's job-table read: the stage's critical path at e676e22, 56.6 MHz).
  (* ram_style = "distributed" *)
  logic [17*SoN+rocesec_pkg::HdrFoBits-1:0] jt_soff_q [NumJobs];
  always_ff @(posedge clk_i) begin
    if (job_fire) begin
      jt_soff_q[wr_ptr] <= {job_so[4], job_so[3], job_so[2], job_so[1], job_so[0],
                            rocesec_pkg::hdr_fo(job_i)};
    end
  end

  // The ciphertext range of each job in output coordinates, {E + 8, P + 8} (the SecHdr moves
  // the payload by 8), for the GHASH feed's comparisons: no adder behind the job-table read.
  (* ram_style = "distributed" *)
  logic [33:0] jt_crange_q [NumJobs];
  always_ff @(posedge clk_i) begin
    if (job_fire) jt_crange_q[wr_ptr] <= {{1'b0, job_i.eoff} + 17'd8, {9'h0, job_i.poff} + 17'd8};
  end

  // The ICV beat range of each job, {cross, lane, last, first} with I = E + 8 its output
  // offset: first = I / B, last = (I + 15) / B, lane = I mod B, cross = (last != first); or
  // {0, 0, 0, 8191} (no beat) for a frame forwarded unprotected. A beat k overlaps the ICV iff
  // k·B + B > I and k·B < I + 16, i.e. I / B <= k <= (I + 15) / B; the ICV's 16 bytes span at
  // most two beats (B >= 16), so k overlaps iff k == first or (cross and k == last): S3 tests
  // two equalities of its beat index with a RAM word and takes its lanes from `lane` (until
  // session 14 it added to the job-table read and compared 17-bit byte offsets, 48.8 MHz; until
  // session 21 it compared the range and took the lanes from lane_rel(E + 8, k·B): the stage's
  // critical path at 154f5a9, 56.0 MHz).
  (* ram_style = "distributed" *)
  logic [26+LB:0] jt_irange_q [NumJobs];
  logic [16:0] job_icv0;
  logic [12:0] job_icv_first, job_icv_last;
  assign job_icv0      = {1'b0, job_i.eoff} + 17'd8;
  assign job_icv_first = 13'(job_icv0 >> LB);
  assign job_icv_last  = 13'((job_icv0 + 17'd15) >> LB);
  always_ff @(posedge clk_i) begin
    if (job_fire) begin
      jt_irange_q[wr_ptr] <= job_i.protect ? {job_icv_last != job_icv_first,
                                              job_icv0[LB-1:0], job_icv_last, job_icv_first}
                                           : {1'b0, LB'(0), 13'd0, 13'h1FFF};
    end
  end

  // The frame's GHASH (written by G's hash output): a RAM without reset too, read by S3 only
  // with its valid bit.
  always_ff @(posedge clk_i) begin
    if (hash_we) jt_hash_q[hash_slot] <= hash_data;
  end

  ////////////////////////////////
  // AES: E_K(J0) and keystream //
  ////////////////////////////////

  logic              ks_pop;
  logic              ks_valid;
  logic [KW-1:0]     ks_head;
  rocesec_pkg::job_t ctr_job;

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

  ///////////////
  // S1 splice //
  ///////////////

  logic         s1_valid_q;
  logic [KW-1:0] s1_data_q;
  logic [B-1:0] s1_keep_q;
  logic         s1_last_q;
  slot_t        s1_slot_q;
  logic [11:0]  s1_k_q;
  logic         s1_ready;           // S1 output register may load

  logic         sp_active_q;        // a frame is being spliced
  rocesec_pkg::job_t         sp_job;
  rocesec_pkg::hdr_fo_t      sp_fo;
  logic [11:0]  sp_k_q;             // output beat index
  logic [16:0]  sp_so [SoN];        // the job's splice offsets (job_so)
  logic [SoN-1:0] sp_so_lt_q;       // sp_so[j] / B < sp_k_q: offset j is in an earlier beat
  logic [SoN-1:0] sp_so_eq_q;       // sp_so[j] / B == sp_k_q: offset j is in this beat
  logic         sp_ks_on;           // sp_k_q >= the job's pbeat: its beats take keystream
  logic         sp_in_done_q;       // input tlast consumed
  logic [16:0]  sp_olen_q;          // in_olen_i of the frame's last input beat taken
  logic [KW-1:0] sp_prev_q [NPrev]; // input beats k-1 .. k-NPrev
  logic [KW-1:0] sp_ks_prev_q;
  logic [15:0]  sp_ks_left_q;       // keystream words of this frame not yet popped
  logic [15:0]  sp_ks_left1_q;      // sp_ks_left_q - 1
  logic         sp_ks_left_nz;      // sp_ks_left_q > 0
  logic         sp_ks_left_gt1;     // sp_ks_left_q > 1
  logic         sp_drain_q;         // frame ended early: discard the rest of its keystream
  logic         sp_go;              // produce a beat this cycle
  logic         sp_take;            // consume an input beat this cycle
  logic [KW-1:0] sp_data;
  logic [B-1:0] sp_keep;
  logic         sp_last;
  logic         sp_ks_pop;

  assign sp_job = jt_q[s1_ptr_q];
  assign sp_fo  = jt_soff_q[s1_ptr_q][rocesec_pkg::HdrFoBits-1:0];  // hdr_beat's offsets
  always_comb begin
    for (int j = 0; j < SoN; j++) begin
      sp_so[j] = jt_soff_q[s1_ptr_q][rocesec_pkg::HdrFoBits + 17*j +: 17];
    end
  end
  // Lane masks of S1's beat at output offset B·k: lanes B·k + i >= sp_so[j], from the beat
  // flags and the offset's lane (as lanes_ge(lane_rel(sp_so[j], B·k)), with no subtraction)
  logic [B-1:0] sp_m_so [SoN];
  always_comb begin
    for (int j = 0; j < SoN; j++) begin
      for (int i = 0; i < B; i++) begin
        sp_m_so[j][i] = sp_so_lt_q[j] || (sp_so_eq_q[j] && sp_so[j][LB-1:0] <= LB'(i));
      end
    end
  end
  assign sp_ks_on       = sp_so_lt_q[4] || sp_so_eq_q[4];  // beat of P + 8 reached
  assign sp_ks_left_nz  = (sp_ks_left_q != '0);
  assign sp_ks_left_gt1 = sp_ks_left_nz && (sp_ks_left1_q != '0);

  // S1 may start the job in slot s1_ptr_q once written.
  logic s1_started_q [NumJobs];
  logic s1_job_ready;
  assign s1_job_ready = jt_valid[s1_ptr_q] && !s1_started_q[s1_ptr_q];

  // Chain: the next job starts in the cycle the current frame's last beat leaves S1.
  slot_t s1_next;
  logic  sp_drain_need;
  logic  sp_chain;
  assign s1_next       = s1_ptr_q + 1'b1;
  // keystream words left after this cycle's pop > 0: both candidates from registers, the pop
  // only selects
  assign sp_drain_need = sp_job.protect && (sp_ks_pop ? sp_ks_left_gt1 : sp_ks_left_nz);
  assign sp_chain      = sp_active_q && !sp_drain_q && sp_go && sp_last && !sp_drain_need &&
                         jt_valid[s1_next] && !s1_started_q[s1_next];

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
    logic [KW-1:0] cur;
    logic [(NPrev+1)*KW-1:0] win;  // {cur, prev[0], ..}: byte j = input offset B(k-NPrev) + j
    logic [16:0]  olen;
    logic         done_now;  // the input's last beat is consumed (or is being consumed)
    logic         need_ks;
    logic [LB-1:0] c;
    logic [2*KW-1:0] ksw;    // {ks_cur, ks_prev}, little-endian keystream bytes
    logic [7:0]   b;
    logic [2:0]   sd;        // SecHdr byte index
    logic [16:0]  obase;
    logic [B-1:0] m_h, m_hend, m_eend, m_icv, m_p;
    logic [KW-1:0] hp;

    b         = '0;
    sd        = '0;
    obase     = '0;
    m_h       = '0;
    m_hend    = '0;
    m_eend    = '0;
    m_icv     = '0;
    m_p       = '0;
    hp        = '0;
    sp_go     = 1'b0;
    sp_take   = 1'b0;
    sp_data   = '0;
    sp_keep   = '0;
    sp_last   = 1'b0;
    sp_ks_pop = 1'b0;

    cur     = sp_in_done_q ? '0 : in_data_i;
    win[NPrev*KW +: KW] = cur;
    for (int j = 0; j < NPrev; j++) win[(NPrev-1-j)*KW +: KW] = sp_prev_q[j];
    c       = sp_so[4][LB-1:0];
    // beats k - pbeat = 0, 1, .. pop keystream words until the job's nw are used
    need_ks = sp_ks_on && sp_ks_left_nz;
    for (int j = 0; j < B; j++) begin  // little-endian view: keystream byte order b0, b1, ..
      ksw[8*j +: 8]       = sp_ks_prev_q[128*(j/16) + 127 - 8*(j%16) -: 8];
      ksw[8*(j + B) +: 8] = ks_head[128*(j/16) + 127 - 8*(j%16) -: 8];
    end
    // output length: the input bytes so far (with this beat's) + SecHdr + ICV; with beats of
    // more than 24 bytes the output can end in the beat that takes the input's last beat
    done_now = sp_in_done_q || in_last_i;
    olen     = sp_in_done_q ? sp_olen_q : in_olen_i;

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
      // lane masks of the beat at output offset B·k (sp_m_so)
      obase  = 17'({5'h0, sp_k_q} << LB);
      m_h    = sp_m_so[0];
      m_hend = sp_m_so[1];
      m_eend = sp_m_so[2];
      m_icv  = sp_m_so[3];
      m_p    = sp_m_so[4];
      hp     = KW'(rocesec_pkg::hdr_beat(sp_job, sp_fo, obase,
                                         (8*rocesec_pkg::MaxBeatBytes)'(cur),
                                         4'h1, LB));  // in[o] for o < hoff
      for (int i = 0; i < B; i++) begin
        sd = 3'(i) - sp_job.hoff[2:0];  // SecHdr byte o - hoff
        if (!m_h[i]) begin
          b = hp[8*i +: 8];
        end else if (!m_hend[i]) begin
          b = sp_job.sechdr[8*(3'd7 - sd) +: 8];
        end else if (!m_eend[i]) begin
          b = win[8*(i + B*NPrev - 8) +: 8];
          if (sp_job.mode == rocesec_pkg::ModeAead && m_p[i]) begin
            // keystream byte o - pstart: from ks_head for i >= c, from ks_prev for i < c
            b = b ^ ksw[8*(32'(i) + B - 32'(c)) +: 8];
          end
        end else if (!m_icv[i]) begin
          b = 8'h00;
        end else begin
          b = win[8*(i + B*NPrev - 24) +: 8];
        end
        sp_data[8*i +: 8] = b;
      end
      // keep/last: the last output beat is the input's last beat or comes after it
      if (done_now && obase + 17'(B) >= olen) begin
        sp_last = 1'b1;
        for (int i = 0; i < B; i++) sp_keep[i] = (obase + 17'(i) < olen);
      end else begin
        sp_keep = '1;
      end
    end
  end

  assign in_ready_o = sp_take;
  assign ks_pop     = sp_ks_pop;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sp_active_q  <= 1'b0;
      sp_k_q       <= '0;
      sp_so_lt_q   <= '0;
      sp_so_eq_q   <= '0;
      sp_in_done_q <= 1'b0;
      sp_olen_q    <= '0;
      s1_ptr_q     <= '0;
      for (int j = 0; j < NPrev; j++) sp_prev_q[j] <= '0;
      sp_ks_prev_q <= '0;
      sp_ks_left_q  <= '0;
      sp_ks_left1_q <= '1;
      sp_drain_q   <= 1'b0;
    end else begin
      if (!sp_active_q) begin
        if (s1_job_ready) begin
          sp_active_q  <= 1'b1;
          {sp_ks_left1_q, sp_ks_left_q} <= jt_nw_q[s1_ptr_q];
          sp_k_q       <= '0;
          sp_so_lt_q   <= '0;
          sp_so_eq_q   <= jt_pb_q[s1_ptr_q];
          sp_in_done_q <= 1'b0;
          sp_olen_q    <= '0;
        end
      end else if (sp_drain_q) begin
        if (ks_valid) begin
          sp_ks_left_q  <= sp_ks_left1_q;
          sp_ks_left1_q <= sp_ks_left1_q - 16'd1;
          if (!sp_ks_left_gt1) begin
            sp_drain_q  <= 1'b0;
            sp_active_q <= 1'b0;
            s1_ptr_q    <= s1_ptr_q + 1'b1;
          end
        end
      end else if (sp_go) begin
        sp_k_q     <= sp_k_q + 12'd1;
        for (int j = 0; j < SoN; j++) begin
          sp_so_lt_q[j] <= sp_so_lt_q[j] || sp_so_eq_q[j];
          sp_so_eq_q[j] <= (sp_so[j] >> LB) == ({5'h0, sp_k_q} + 17'd1);
        end
        for (int j = NPrev - 1; j > 0; j--) sp_prev_q[j] <= sp_prev_q[j-1];
        sp_prev_q[0] <= sp_in_done_q ? '0 : in_data_i;
        if (sp_ks_pop) begin
          sp_ks_prev_q  <= ks_head;
          sp_ks_left_q  <= sp_ks_left1_q;
          sp_ks_left1_q <= sp_ks_left1_q - 16'd1;
        end
        if (sp_take) begin
          sp_olen_q <= in_olen_i;
          if (in_last_i) sp_in_done_q <= 1'b1;
        end
        if (sp_last) begin
          // A frame shorter than its IP length (malformed at tlast) leaves keystream blocks
          // of its job behind: drain them (one per cycle) before the next frame.
          if (sp_drain_need) begin
            sp_drain_q <= 1'b1;
          end else if (sp_chain) begin
            s1_ptr_q     <= s1_next;
            {sp_ks_left1_q, sp_ks_left_q} <= jt_nw_q[s1_next];
            sp_k_q       <= '0;
            sp_so_lt_q   <= '0;
            sp_so_eq_q   <= jt_pb_q[s1_next];
            sp_in_done_q <= 1'b0;
            sp_olen_q    <= '0;
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

  logic         s2_ready;          // the GHASH feed may take the S1 beat
  logic         s3_ready;
  logic         dq_wready;
  logic         g_valid;
  logic [KW-1:0] g_data;
  logic [B-1:0] g_keep;
  logic         g_last;
  slot_t        g_slot;
  logic [11:0]  g_k;
  slot_t        g_cur;
  /* verilator lint_off UNUSEDSIGNAL */
  rocesec_pkg::job_t g_job;  // read field by field
  /* verilator lint_on UNUSEDSIGNAL */

  // Skid between S1 and S2 (common_skid): S1 loads on a registered ready, so the feed's
  // decision whether it holds its beat (comparisons of the job's ranges) does not reach S1's
  // keystream pop and counters in the same cycle (session 14: the path of the protect emit).
  localparam int unsigned SkW = KW + B + 1 + SlotW + 12;
  logic          k_valid;
  logic [KW-1:0] k_data;
  logic [B-1:0]  k_keep;
  logic          k_last;
  slot_t         k_slot;
  logic [11:0]   k_k;

  common_skid #(
    .Width (SkW)
  ) u_s1_skid (
    .clk_i     (clk_i),
    .rst_ni    (rst_ni),
    .s_valid_i (s1_valid_q),
    .s_ready_o (s1_ready),
    .s_data_i  ({s1_data_q, s1_keep_q, s1_last_q, s1_slot_q, s1_k_q}),
    .m_valid_o (k_valid),
    .m_ready_i (s2_ready),
    .m_data_o  ({k_data, k_keep, k_last, k_slot, k_k})
  );

  assign g_job   = jt_q[g_cur];
  assign s1q_job = jt_q[k_slot];

  // Output frame coordinates: AAD from ip_off, ciphertext [P + 8, E + 8).
  // One feed at every LANES (rocesec_ghash_feed_wide delegates to rocesec_ghash_feed at 1).
  rocesec_ghash_feed_wide #(
    .LANES (LANES),
    .SlotW (SlotW)
  ) u_ghash_feed (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .in_valid_i    (k_valid),
    .in_ready_o    (s2_ready),
    .in_data_i     (k_data),
    .in_keep_i     (k_keep),
    .in_last_i     (k_last),
    .in_slot_i     (k_slot),
    .in_k_i        (k_k),
    .in_active_i   (s1q_job.protect),
    .in_ip_off_i   (s1q_job.ip_off),
    .cur_slot_o    (g_cur),
    .cur_mode_i    (g_job.mode),
    .cur_ipv6_i    (g_job.ipv6),
    .cur_ip_off_i  (g_job.ip_off),
    .cur_udp_off_i (g_job.udp_off),
    .cur_bth_off_i (g_job.bth_off),
    .cur_cstart_i  (jt_crange_q[g_cur][16:0]),
    .cur_cend_i    (jt_crange_q[g_cur][33:17]),
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

  ///////////
  // S3 ICV //
  ///////////

  logic         s3_valid_q;
  logic [KW-1:0] s3_data_q;
  logic [B-1:0] s3_keep_q;
  logic         s3_last_q;
  logic [11:0]  s3_k_q;
  logic         s3_can;            // S3 beat may move to S4
  logic         s3_go;             // S3 beat moves to S4
  logic         s4_ready;
  logic [KW-1:0] s3_out;
  /* verilator lint_off UNUSEDSIGNAL */
  rocesec_pkg::job_t         s3_job;
  /* verilator lint_on UNUSEDSIGNAL */

  assign s3_job = jt_q[s3_slot_q];

  always_comb begin
    logic [B-1:0] m_in;
    logic [3:0]   ib;
    logic         overlap;
    logic         in_first, in_last;  // the beat holds the ICV's first / (other) last bytes
    logic [LB-1:0] l0;                // lane of the ICV's first byte in beat `first`
    logic [127:0] icv;
    icv      = jt_hash_q[s3_slot_q] ^ jt_ekj0;
    l0       = jt_irange_q[s3_slot_q][26 +: LB];
    in_first = {1'b0, s3_k_q} == jt_irange_q[s3_slot_q][12:0];
    in_last  = jt_irange_q[s3_slot_q][26+LB] &&
               ({1'b0, s3_k_q} == jt_irange_q[s3_slot_q][25:13]);
    overlap  = in_first || in_last;
    // lanes [I, I + 16) of the beat: lanes >= l0 (below l0 + 16) of beat `first`, lanes below
    // l0 + 16 - B of the next; ICV byte o - I = (i - l0) mod 16 in both (B is a multiple of 16)
    s3_out   = s3_data_q;
    for (int i = 0; i < B; i++) begin
      m_in[i] = (in_first && LB'(i) >= l0 && 32'(i) < 32'(l0) + 32'd16) ||
                (in_last && 32'(i) + 32'(B) < 32'(l0) + 32'd16);
      ib = 4'(i) - 4'(l0);
      if (s3_job.protect && m_in[i]) s3_out[8*i +: 8] = icv[127 - 8*ib -: 8];
    end
    s3_can = s3_valid_q &&
             (!overlap || (jt_hash_v[s3_slot_q] && jt_ekj0_v[s3_slot_q]));
  end

  assign s3_go    = s3_can && s4_ready;
  assign s3_ready = !s3_valid_q || s3_go;

  // Delay FIFO S2 -> S3: lets S1/S2 run ahead while a beat waits for its ICV, so that in a
  // stream the tag of a frame is ready by the time its ICV beat reaches S3.
  localparam int unsigned DqW = KW + B + 1 + SlotW + 12;
  logic           dq_rvalid;
  logic [DqW-1:0] dq_rdata;
  logic [$clog2(DlyBeats):0] unused_dq_count;

  common_fifo_sync #(
    .Width (DqW),
    .Depth (DlyBeats)
  ) u_dly (
    .clk_i    (clk_i),
    .rst_ni   (rst_ni),
    .wvalid_i (g_valid),
    .wready_o (dq_wready),
    .wdata_i  ({g_data, g_keep, g_last, g_slot, g_k}),
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

  logic         s4_valid;
  logic [KW-1:0] s4_out;
  logic [B-1:0] s4_keep;
  logic         s4_last;
  slot_t        s4_cur;
  logic         s4_go;
  logic         s5_ready;
  /* verilator lint_off UNUSEDSIGNAL */
  rocesec_pkg::job_t s4_job;
  rocesec_pkg::job_t s3_in_job;
  /* verilator lint_on UNUSEDSIGNAL */

  assign s4_job    = jt_q[s4_cur];
  assign s3_in_job = jt_q[s3_slot_q];

  rocesec_icrc_patch #(
    .LANES (LANES),
    .SlotW (SlotW)
  ) u_icrc_patch (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .in_valid_i     (s3_can),
    .in_ready_o     (s4_ready),
    .in_data_i      (s3_out),
    .in_keep_i      (s3_keep_q),
    .in_last_i      (s3_last_q),
    .in_slot_i      (s3_slot_q),
    .in_k_i         (s3_k_q),
    .in_ipv6_i      (s3_in_job.ipv6),
    .in_ip_off_i    (s3_in_job.ip_off),
    .in_udp_off_i   (s3_in_job.udp_off),
    .in_bth_off_i   (s3_in_job.bth_off),
    .in_icrc_off_i  (s3_in_job.eoff + 16'd24),
    .cur_slot_o     (s4_cur),
    .cur_patch_i    (s4_job.protect),
    .cur_icrc_off_i (s4_job.eoff + 16'd24),
    .done_next_i    (jt_done_nx),
    .out_valid_o    (s4_valid),
    .out_ready_i    (s5_ready),
    .out_data_o     (s4_out),
    .out_keep_o     (s4_keep),
    .out_last_o     (s4_last),
    .out_slot_o     (s4_slot)
  );

  assign s4_go     = s4_valid && s5_ready;
  assign free_we   = s4_go && s4_last;
  assign free_slot = s4_slot;

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
      m_axis_tkeep_o <= s4_keep;
      m_axis_tlast_o <= s4_last;
      m_axis_tuser_o <= s4_last ? {2'b00, jt_fwd, jt_reason} : 8'h00;
    end
  end

  logic unused_sig;
  assign unused_sig = ^{unused_dq_count};

endmodule
