// SPDX-License-Identifier: Apache-2.0
//
// rocesec_protect_key: stage `key` of the protect (TX) top — model/src/stage/key.rs select_tx,
// the TX half of model/src/engine.rs Protector::protect, and the derived-key cache of
// model/src/keys.rs KeyStore.
//
// Data format
// -----------
// Per packet, in order: the parse header descriptor (roce_parse hdr_valid_o: roce_desc_t and
// the header window) is classified exactly as Protector::protect does (NotRoce / CNP /
// already protected → malformed / bypass policy / protect), the key is selected (select_tx:
// PN space, RETH/AtomicETH → sub-region node key of (dest GID, rkey, level, index) with the
// smallest level holding [VA, VA+len), WRITE Middle/Last → the key of the QP's WRITE First,
// else the per-QP key with level 0x3F; IV salt = DETH SrcQP for UD, else the QP's generation),
// the key is fetched from the derived-key cache or derived (SP 800-108 KBKDF-CMAC, labels and
// contexts of docs/key-hierarchy.md) from the PD key slot of (pd, epoch), and a job_t is issued
// with the rewritten header (IPv4 total length / IPv6 payload length and UDP length + 24,
// IPv4 header checksum recomputed as RFC 791 / etherparse does, BTH TVer = 1, SecHdr of
// docs/wire-format.md §3 inserted at eth_off). A frame the stage decides to protect commits
// the QP state (next PN, WRITE continuation) in the cycle of the decision: the protect top is
// cut-through, so a frame rejected later at its end (bad ICRC, truncated) has already left in
// part under its PN, which must never be used again (model: Protector::protect). The final
// parse descriptor of each frame (roce_parse desc_valid_o) then decides its verdict (parse
// errors first, then the key stage's) from a verdict queue, in frame order.
//
// Pipeline (one frame per stage): D holds the header descriptor in d_q for two cycles: D1
// looks up what depends on the header and the tables only (policy entry, QP identity match,
// target range) into registers, D2 decides from them (PD key slot, QP state read at D1's index,
// classification) and commits the QP state in the cycle of the decision; the next header
// enters D as D2 decides, so D decides at most one frame every two cycles; J fetches the key
// (StKey, a cache hit answers in the cycle of the request) and issues the job (StJob); the
// verdict queue pairs each issued job with its final descriptor. A protected frame costs J two
// cycles when its key is cached, a frame forwarded unchanged one.
//
// Tables (written through reg_*; see docs/rtl/tops.md): default policy, NumPolicies policy
// entries keyed by (dest GID, dest QPN), NumPdSlots PD key slots keyed by (PD, epoch). The TX
// QP state table (NumQps entries, allocated by the first packet it protects; the identity in
// registers, compared in parallel, the state in a RAM with an asynchronous read, distributed
// RAM on an FPGA) and the derived-key cache (NumCache entries, round-robin, flushed by any PD slot write) are internal.
// Hardware limits (no model equivalent, verdict unknown-key): QP state table full, no PD slot
// for (pd, epoch). AES-128 key hierarchy only; no rkey allow-list (the model's `mrs: None`).

`resetall
`default_nettype none

module rocesec_protect_key
#(
  parameter int unsigned NumPolicies = 8,
  parameter int unsigned NumPdSlots  = 4,
  parameter int unsigned NumQps      = 16,
  parameter int unsigned NumCache    = 8,
  parameter int unsigned NumVerdicts = 8    // verdict queue: >= the emit's NumJobs (2^n)
) (
  input  wire logic                  clk_i,
  input  wire logic                  rst_ni,

  // Header descriptors (in frame order)
  input  wire logic                  hdr_valid_i,
  output logic                       hdr_ready_o,
  input  wire roce_parse_pkg::roce_desc_t            hdr_desc_i,

  // Final descriptors (same order)
  input  wire logic                  fin_valid_i,
  output logic                       fin_ready_o,
  input  wire logic [1:0]            fin_kind_i,
  input  wire logic                  fin_icrc_ok_i,

  // Jobs to emit
  output logic                       job_valid_o,
  input  wire logic                  job_ready_i,
  output rocesec_pkg::job_t                       job_o,

  // Final verdict of the oldest unfinished job
  output logic                       done_valid_o,
  output logic      [3:0]            done_reason_o,
  output logic      [1:0]            done_fwd_o,

  // Register port
  input  wire logic                  reg_we_i,
  input  wire logic [15:0]           reg_addr_i,
  input  wire logic [31:0]           reg_wdata_i,
  input  wire logic [15:0]           reg_raddr_i,
  output logic      [31:0]           reg_rdata_o,

  // Status
  output logic                       kdf_busy_o,

  // Round keys of derived packet keys, to the emit's AES (rocesec_key_cache)
  output logic                       rk_we_o,
  output logic [rocesec_pkg::RkW-1:0] rk_slot_o,
  output logic      [3:0]            rk_round_o,
  output logic      [127:0]          rk_data_o
);

  /////////////////////
  // Tables (shared) //
  /////////////////////

  typedef struct packed {
    logic         valid;
    logic [127:0] gid;
    logic [23:0]  qpn;
    logic [48:0]  next_pn;   // 49 bits: PN_MAX + 1 means exhausted
    logic         cont_valid;
    logic [31:0]  cont_rkey;
    logic [5:0]   cont_level;
    logic [63:0]  cont_index;
  } txqp_t;

  // The state part of an entry (next_pn .. cont_index), kept in the RAM.
  localparam int unsigned StW = 49 + 1 + 32 + 6 + 64;
  localparam int unsigned QW  = $clog2(NumQps);

  logic                   ld;  // a header enters stage D

  // Stage D1 results (registered; see "Stage D" below)
  logic          d1_ok_q;
  logic [1:0]    p1_mode_q;
  logic [7:0]    p1_epoch_q;
  logic [31:0]   p1_pd_q;
  logic [23:0]   p1_gen_q;
  logic          p1_found_q, p1_free_found_q;
  logic [QW-1:0] p1_match_idx_q, p1_free_idx_q;
  logic          p1_target_q, p1_ovf_q;
  logic [5:0]    p1_lvl_q;

  // Policy of the packet under work (stage D1) and the PD key slot of (its PD, its TX epoch)
  // (stage D2, from D1's registers).
  logic [1:0]   pol_mode;
  logic [7:0]   pol_epoch;
  logic         unused_pol_next;
  logic [31:0]  pol_pd;
  logic [23:0]  pol_gen;
  logic         pd_hit;
  logic [127:0] pd_key;
  logic [NumPdSlots-1:0] pd_match, p1_pd_match_q;  // D1: PD slots of the policy (and epoch)
  logic         pd_write;

  rocesec_key_tables #(
    .NumPolicies (NumPolicies),
    .NumPdSlots  (NumPdSlots)
  ) u_tables (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .reg_we_i    (reg_we_i),
    .reg_addr_i  (reg_addr_i),
    .reg_wdata_i (reg_wdata_i),
    .pd_write_o  (pd_write),
    .pol_load_i  (ld),
    .pol_hold_i  (d_valid_q),
    .pol_ld_gid_i(hdr_desc_i.dest_gid),
    .pol_ld_qpn_i(hdr_desc_i.dest_qp),
    .pol_gid_i   (d_q.dest_gid),
    .pol_qpn_i   (d_q.dest_qp),
    .tbl_stale_o (tbl_stale),
    .pol_mode_o  (pol_mode),
    .pol_epoch_o (pol_epoch),
    .pol_next_o  (unused_pol_next),
    .pol_pd_o    (pol_pd),
    .pol_gen_o   (pol_gen),
    .pd_epoch_i  (8'h0),
    .pd_match_o  (pd_match),
    .pd_sel_i    (p1_pd_match_q),
    .pd_hit_o    (pd_hit),
    .pd_key_o    (pd_key)
  );

  //////////////
  // Counters //
  //////////////

  logic [31:0] cnt_q [24];  // frames, processed, bypass, cnp, not_roce, 3 spare, rejected[16]

  always_comb begin
    reg_rdata_o = 32'h0;
    for (int c = 0; c < 24; c++) begin
      if (reg_raddr_i == rocesec_pkg::RegCountBase + 16'(4 * c)) reg_rdata_o = cnt_q[c];
    end
  end

  ///////////////////
  // Byte helpers  //
  ///////////////////

  // (the length fields and the IPv4 header sum come with the descriptor)

  /////////////////////////////////////////
  // Stage D: the header under decision  //
  /////////////////////////////////////////

  typedef enum logic [1:0] {
    StIdle, StKey, StJob
  } state_e;

  state_e                state_q;  // stage J
  logic                  d_valid_q;
  /* verilator lint_off UNUSEDSIGNAL */
  roce_parse_pkg::roce_desc_t            d_q;      // read field by field
  roce_parse_pkg::roce_desc_t            jd_q;     // stage J's copy (the job's header fields)
  /* verilator lint_on UNUSEDSIGNAL */

  // Stage J takes a decision when it is empty or issues its job in this cycle; the next
  // header enters D in the cycle D hands its frame over.
  logic j_free, dec_take, job_fire, vq_full;
  assign job_fire    = (state_q == StJob) && !vq_full && job_ready_i;
  assign j_free      = (state_q == StIdle) || job_fire;
  assign dec_take    = d_valid_q && d1_ok_q && j_free;
  assign hdr_ready_o = !d_valid_q || dec_take;
  assign ld          = hdr_valid_i && hdr_ready_o;

  // Decision of d_q (combinational; registered into stage J by dec_take)
  logic         dec_protect, dec_protect_q;
  logic [3:0]   dec_reason, dec_reason_q;
  logic [1:0]   dec_fwd, dec_fwd_q;
  logic [1:0]   dec_mode, mode_q;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [48:0]  dec_pn;            // bit 48 is the exhausted flag, checked via st
  /* verilator lint_on UNUSEDSIGNAL */
  logic [47:0]  pn_q;
  logic [7:0]   dec_epoch, epoch_q;
  logic [23:0]  dec_salt, salt_q;
  logic [5:0]   dec_level, level_q;
  logic [31:0]  dec_pd;
  logic [127:0] dec_pdkey, pdkey_q;
  rocesec_pkg::key_tag_t dec_tag, tag_q;
  logic         dec_qp_found;
  logic [$clog2(NumQps)-1:0] dec_qp_idx;
  logic         dec_write_first;

  // Stage D1 (the cycle after d_q is loaded): the lookups that depend only on d_q and the
  // tables, registered for D2. The policy entry and the QP identity match are themselves
  // registered as the header enters D (rocesec_key_tables, rocesec_qp_ident), so D1 selects
  // and encodes. The QP identities and the policy table cannot change between D1 and D2
  // except by a register write to the policy region (then D1 runs again: d1_ok_q stays low
  // while tbl_stale is high) — allocated entries' identities change only at a commit, which is
  // D2 of the frame before (a free entry's follow the frame in D but are not matched), and the
  // QP state is read in D2.
  logic          tbl_stale;
  logic          r_target, r_ovf;
  logic [5:0]    r_lvl;
  logic [63:0]   r_index;
  logic          r_free_found, r_found;
  logic [QW-1:0] r_free_idx, r_match_idx;
  logic          qp_alloc;
  logic [NumQps-1:0] unused_qp_valid, unused_qp_rel;

  rocesec_qp_ident #(
    .NumQps (NumQps)
  ) u_ident (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .load_i       (ld),
    .ld_gid_i     (hdr_desc_i.dest_gid),
    .ld_qpn_i     (hdr_desc_i.dest_qp),
    .alloc_i      (qp_alloc),
    .alloc_idx_i  (dec_qp_idx),
    .cur_gid_i    (d_q.dest_gid),
    .cur_qpn_i    (d_q.dest_qp),
    .free_i       ('0),  // TX entries are kept (their PN counts on)
    .rel_i        (1'b0),  // no TX release: a new entry would count PNs from 1 again
    .found_o      (r_found),
    .match_idx_o  (r_match_idx),
    .free_found_o (r_free_found),
    .free_idx_o   (r_free_idx),
    .valid_o      (unused_qp_valid),
    .rel_o        (unused_qp_rel)
  );

  // Target range: smallest level whose node holds [va, va + max(len, 1)), in three steps so
  // that no cycle holds more than one of them: the last byte's address va + max(len, 1) - 1
  // as the header enters d_q (d_sum_q, a function of the descriptor alone), its level in D1
  // (highest bit where va and the last address differ), the node index va >> (12 + level)
  // in D2.
  logic [64:0] d_sum_q;

  always_comb begin
    logic [63:0] diff;
    r_target = d_q.has_reth || d_q.has_atomic;
    r_ovf    = d_sum_q[64];
    diff     = d_q.va ^ d_sum_q[63:0];
    r_lvl    = 6'd0;  // level = highest differing bit - 11, 0 if none at or above bit 12 (<= 52)
    for (int b = 12; b < 64; b++) if (diff[b]) r_lvl = 6'(b - 11);
  end

  // D2: node index of D1's level (level <= 52; a shift by 64 gives 0, the model's index)
  assign r_index = d_q.va >> (7'd12 + {1'b0, p1_lvl_q});

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      d1_ok_q         <= 1'b0;
      p1_mode_q       <= '0;
      p1_epoch_q      <= '0;
      p1_pd_q         <= '0;
      p1_pd_match_q   <= '0;
      p1_gen_q        <= '0;
      p1_found_q      <= 1'b0;
      p1_free_found_q <= 1'b0;
      p1_match_idx_q  <= '0;
      p1_free_idx_q   <= '0;
      p1_target_q     <= 1'b0;
      p1_ovf_q        <= 1'b0;
      p1_lvl_q        <= '0;
      d_sum_q         <= '0;
    end else begin
      if (ld) d_sum_q <= rocesec_pkg::last_addr(hdr_desc_i.has_reth, hdr_desc_i.dma_len,
                                                hdr_desc_i.va);
      d1_ok_q <= d_valid_q && !dec_take && !ld && !tbl_stale;
      if (d_valid_q) begin
        p1_mode_q       <= pol_mode;
        p1_epoch_q      <= pol_epoch;
        p1_pd_q         <= pol_pd;
        p1_pd_match_q   <= pd_match;
        p1_gen_q        <= pol_gen;
        p1_found_q      <= r_found;
        p1_free_found_q <= r_free_found;
        p1_match_idx_q  <= r_match_idx;
        p1_free_idx_q   <= r_free_idx;
        p1_target_q     <= r_target;
        p1_ovf_q        <= r_ovf;
        p1_lvl_q        <= r_lvl;
      end
    end
  end

  // Stage D2: the QP state of the entry D1 found, read from the RAM at D1's index.
  /* verilator lint_off UNUSEDSIGNAL */
  txqp_t   sel_st;     // read field by field
  /* verilator lint_on UNUSEDSIGNAL */
  logic [QW-1:0] sel_qp_idx;

  always_comb begin
    sel_st       = '0;
    sel_st.valid = 1'b1;
    sel_st.gid   = d_q.dest_gid;
    sel_st.qpn   = d_q.dest_qp;
    {sel_st.next_pn, sel_st.cont_valid, sel_st.cont_rkey, sel_st.cont_level,
     sel_st.cont_index} = st_mem[p1_match_idx_q];
    sel_qp_idx = p1_found_q ? p1_match_idx_q : p1_free_idx_q;
    if (!p1_found_q) begin
      sel_st         = '0;
      sel_st.next_pn = 49'd1;
    end
  end

  /* verilator lint_off UNUSEDSIGNAL */
  always_comb begin
    logic        wcont;
    logic [4:0]  low;
    logic [16:0] ip_len_new;
    logic [16:0] udp_len_new;

    dec_protect     = 1'b0;
    dec_reason      = rocesec_pkg::ReasonOk;
    dec_fwd         = rocesec_pkg::FwdProcessed;
    dec_mode        = rocesec_pkg::ModeBypass;
    dec_pn          = 49'd1;
    dec_epoch       = 8'd0;
    dec_salt        = 24'd0;
    dec_level       = rocesec_pkg::LevelQp;
    dec_pd          = 32'd0;
    dec_pdkey       = 128'h0;
    dec_tag         = '0;
    dec_qp_found    = 1'b0;
    dec_qp_idx      = '0;
    dec_write_first = 1'b0;

    dec_qp_found = p1_found_q;
    dec_qp_idx   = sel_qp_idx;
    dec_pdkey    = pd_key;

    dec_pn    = sel_st.next_pn;
    dec_epoch = p1_epoch_q;  // TX epoch: the policy's, per packet (register map)
    dec_pd    = p1_pd_q;
    dec_mode  = p1_mode_q;
    dec_salt  = (d_q.service == roce_parse_pkg::SvcUd) ? d_q.src_qp : p1_gen_q;

    low   = d_q.opcode[4:0];
    wcont = (d_q.service == roce_parse_pkg::SvcRc || d_q.service == roce_parse_pkg::SvcUc || d_q.service == roce_parse_pkg::SvcXrc) &&
            (low >= 5'h07 && low <= 5'h09);
    dec_write_first = (d_q.service == roce_parse_pkg::SvcRc || d_q.service == roce_parse_pkg::SvcUc ||
                       d_q.service == roce_parse_pkg::SvcXrc) && (low == 5'h06);

    dec_tag.pd    = p1_pd_q;
    dec_tag.epoch = p1_epoch_q;
    dec_tag.gid   = d_q.dest_gid;
    if (p1_target_q) begin
      dec_tag.typ   = rocesec_pkg::KtNode;
      dec_tag.a     = d_q.rkey;
      dec_tag.b     = {18'h0, p1_lvl_q};
      dec_tag.index = r_index;
      dec_level     = p1_lvl_q;
    end else if (wcont) begin
      dec_tag.typ   = rocesec_pkg::KtNode;
      dec_tag.a     = sel_st.cont_rkey;
      dec_tag.b     = {18'h0, sel_st.cont_level};
      dec_tag.index = sel_st.cont_index;
      dec_level     = sel_st.cont_level;
    end else begin
      dec_tag.typ   = rocesec_pkg::KtQp;
      dec_tag.a     = {8'h0, d_q.dest_qp};
      dec_tag.b     = dec_salt;
      dec_level     = rocesec_pkg::LevelQp;
    end

    // new lengths (overflow → emit::insert fails → malformed)
    ip_len_new  = {1'b0, d_q.ip_len} + 17'(rocesec_pkg::Overhead);
    udp_len_new = {1'b0, d_q.udp_len} + 17'(rocesec_pkg::Overhead);

    // classification, in the order of Protector::protect and select_tx
    if (d_q.kind == roce_parse_pkg::KindNotRoce) begin
      dec_fwd = rocesec_pkg::FwdNotRoce;
    end else if (d_q.kind != roce_parse_pkg::KindRoce) begin
      dec_reason = rocesec_pkg::ReasonMalformed;
    end else if (d_q.service == roce_parse_pkg::SvcCnp) begin
      dec_fwd = rocesec_pkg::FwdCnp;
    end else if (d_q.sec_valid) begin
      dec_reason = rocesec_pkg::ReasonMalformed;
    end else if (p1_mode_q == rocesec_pkg::ModeBypass) begin
      dec_fwd = rocesec_pkg::FwdBypass;
    end else if (!dec_qp_found && !p1_free_found_q) begin
      dec_reason = rocesec_pkg::ReasonUnknownKey;  // hardware limit: QP state table full
    end else if (sel_st.next_pn[48]) begin
      dec_reason = rocesec_pkg::ReasonPnExhausted;  // next_pn > PN_MAX
    end else if (p1_target_q && p1_ovf_q) begin
      dec_reason = rocesec_pkg::ReasonOutOfRange;
    end else if (!p1_target_q && wcont && !sel_st.cont_valid) begin
      dec_reason = rocesec_pkg::ReasonUnknownKey;
    end else if (!pd_hit) begin
      dec_reason = rocesec_pkg::ReasonUnknownKey;  // hardware limit: no PD key slot for (pd, epoch)
    end else if (ip_len_new[16] || udp_len_new[16]) begin
      dec_reason = rocesec_pkg::ReasonMalformed;
    end else begin
      dec_protect = 1'b1;
    end
  end
  /* verilator lint_on UNUSEDSIGNAL */

  ////////////////////////////
  // Derived-key cache + KDF //
  ////////////////////////////

  logic         kc_rsp_valid;
  logic [127:0] kc_key, kc_h;
  logic [rocesec_pkg::RkW-1:0] kc_rk;

  rocesec_key_cache #(
    .NumCache (NumCache),
    .NumRk    (rocesec_pkg::RkSlots)
  ) u_cache (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .req_valid_i (state_q == StKey),
    .req_tag_i   (tag_q),
    .req_pdkey_i (pdkey_q),
    .pre_tag_i   (dec_tag),  // a request follows its decision: tag_q is dec_tag then
    .rsp_valid_o (kc_rsp_valid),
    .rsp_key_o   (kc_key),
    .rsp_h_o     (kc_h),
    .rsp_rk_o    (kc_rk),
    .rk_we_o     (rk_we_o),
    .rk_slot_o   (rk_slot_o),
    .rk_round_o  (rk_round_o),
    .rk_data_o   (rk_data_o),
    .flush_i     (pd_write),
    .busy_o      (kdf_busy_o)
  );

  ///////////
  // Jobs  //
  ///////////

  logic         key_ok_q;  // the cache answered this job's key request (kc_key/kc_h hold it)
  rocesec_pkg::job_t job;

  // The rewritten header is applied by the emit stage (rocesec_pkg::hdr_beat): lengths + 24,
  // the IPv4 checksum recomputed over the new header (as etherparse writes it), TVer = 1.
  always_comb begin
    logic [15:0] ipl;
    ipl         = jd_q.ip_len + 16'(rocesec_pkg::Overhead);
    job         = '0;
    job.protect = dec_protect_q;
    job.mode    = mode_q;
    job.key     = key_ok_q ? kc_key : 128'h0;  // the cache holds them until its next request
    job.h       = key_ok_q ? kc_h : 128'h0;
    job.rk      = key_ok_q ? kc_rk : '0;
    job.iv      = {jd_q.dest_qp, salt_q, pn_q};
    job.sechdr  = {mode_q, level_q, epoch_q, pn_q};
    job.ip_len  = ipl;
    job.udp_len = jd_q.udp_len + 16'(rocesec_pkg::Overhead);
    job.ip_csum = rocesec_pkg::ipv4_csum(jd_q.ip_sum, ipl);
    job.hoff    = jd_q.eth_off;
    job.poff    = jd_q.payload_off;
    job.eoff    = jd_q.payload_end;
    job.ipv6    = jd_q.ipv6;
    job.ip_off  = jd_q.ip_off;
    job.udp_off = jd_q.udp_off;
    job.bth_off = jd_q.bth_off;
  end

  assign job_valid_o = (state_q == StJob) && !vq_full;
  assign job_o       = job;

  ///////////////////
  // Verdict queue //
  ///////////////////

  // One entry per issued job: {key stage reason, forward kind}; popped by the frame's final
  // descriptor. Entries never outnumber the emit's job slots (a job is freed after its verdict),
  // so NumVerdicts = the emit's NumJobs never fills; vq_full stalls StJob if it ever did.
  logic [3:0]     vq_reason;
  logic [1:0]     vq_fwd;
  logic           vq_wready, fin_fire;
  logic [$clog2(NumVerdicts):0] unused_vq_count;

  assign vq_full  = !vq_wready;
  assign fin_fire = fin_valid_i && fin_ready_o;

  common_fifo_sync #(
    .Width (6),
    .Depth (NumVerdicts)
  ) u_verdict_q (
    .clk_i    (clk_i),
    .rst_ni   (rst_ni),
    .wvalid_i (job_fire),
    .wready_o (vq_wready),
    .wdata_i  ({dec_reason_q, dec_fwd_q}),
    .rvalid_o (fin_ready_o),
    .rready_i (fin_valid_i),
    .rdata_o  ({vq_reason, vq_fwd}),
    .count_o  (unused_vq_count)
  );

  logic [3:0] fin_reason;

  always_comb begin
    if (fin_kind_i == roce_parse_pkg::KindMalformed)                  fin_reason = rocesec_pkg::ReasonMalformed;
    else if (fin_kind_i == roce_parse_pkg::KindRoce && !fin_icrc_ok_i) fin_reason = rocesec_pkg::ReasonBadIcrc;
    else                                              fin_reason = vq_reason;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      done_valid_o  <= 1'b0;
      done_reason_o <= '0;
      done_fwd_o    <= '0;
      for (int c = 0; c < 24; c++) cnt_q[c] <= '0;
    end else begin
      done_valid_o <= 1'b0;
      if (fin_fire) begin
        done_valid_o  <= 1'b1;
        done_reason_o <= fin_reason;
        done_fwd_o    <= vq_fwd;
        cnt_q[0]      <= cnt_q[0] + 32'd1;
        if (fin_reason != rocesec_pkg::ReasonOk) begin
          cnt_q[8 + fin_reason] <= cnt_q[8 + fin_reason] + 32'd1;
        end else begin
          cnt_q[1 + vq_fwd] <= cnt_q[1 + vq_fwd] + 32'd1;
        end
      end
    end
  end

  //////////////////////
  // Stages D and J   //
  //////////////////////

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q       <= StIdle;
      d_valid_q     <= 1'b0;
      d_q           <= '0;
      jd_q          <= '0;
      dec_protect_q <= 1'b0;
      dec_reason_q  <= '0;
      dec_fwd_q     <= '0;
      mode_q        <= '0;
      pn_q          <= '0;
      epoch_q       <= '0;
      salt_q        <= '0;
      level_q       <= '0;
      pdkey_q       <= '0;
      tag_q         <= '0;
      key_ok_q      <= 1'b0;
    end else begin
      // stage D
      if (ld) begin
        d_q       <= hdr_desc_i;
        d_valid_q <= 1'b1;
      end else if (dec_take) begin
        d_valid_q <= 1'b0;
      end
      // stage J
      if (job_fire) begin
        // key material leaves with the job
        key_ok_q <= 1'b0;
        pdkey_q  <= '0;
        state_q <= StIdle;
      end else if (state_q == StKey && kc_rsp_valid) begin
        key_ok_q <= 1'b1;
        state_q <= StJob;
      end
      if (dec_take) begin
        jd_q          <= d_q;
        dec_protect_q <= dec_protect;
        dec_reason_q  <= dec_reason;
        dec_fwd_q     <= dec_fwd;
        mode_q        <= dec_mode;
        pn_q          <= dec_pn[47:0];
        epoch_q       <= dec_epoch;
        salt_q        <= dec_salt;
        level_q       <= dec_level;
        pdkey_q       <= dec_pdkey;
        tag_q         <= dec_tag;
        state_q       <= dec_protect ? StKey : StJob;
      end
    end
  end

  // TX QP state commit, in the cycle stage D decides to protect a frame (docs/rtl/tops.md):
  // next PN and, for a WRITE First, the continuation key. The entry is the one found (or the
  // free one allocated) by the decision; D's next frame is decided against the new value.
  logic  qp_we;
  /* verilator lint_off UNUSEDSIGNAL */
  txqp_t qp_wdata;  // the state fields are stored (the identity is d_q's)
  /* verilator lint_on UNUSEDSIGNAL */

  always_comb begin
    qp_we          = dec_take && dec_protect;
    qp_alloc       = qp_we && !dec_qp_found;
    qp_wdata       = sel_st;  // the matched entry, or a fresh one (no continuation)
    qp_wdata.next_pn = {1'b0, dec_pn[47:0]} + 49'd1;
    if (dec_write_first) begin
      qp_wdata.cont_valid = 1'b1;
      qp_wdata.cont_rkey  = dec_tag.a;
      qp_wdata.cont_level = dec_tag.b[5:0];
      qp_wdata.cont_index = dec_tag.index;
    end
  end

  // Identity (valid, dest GID, dest QPN): rocesec_qp_ident; the valid bit is set when an entry
  // is allocated (the commit of a frame whose QP was not found, qp_alloc), the identity copied
  // from the frame in D while the entry is free. State: one RAM word per
  // entry, written by every commit, read asynchronously at the matching index (an FPGA maps it
  // to distributed RAM, TRELLIS_DPR16X4 on the ECP5; no reset: an unallocated entry is never
  // read, a fresh one is written before its first read).
  logic [StW-1:0] st_mem [NumQps];

  always_ff @(posedge clk_i) begin
    if (qp_we) begin
      st_mem[dec_qp_idx] <= {qp_wdata.next_pn, qp_wdata.cont_valid, qp_wdata.cont_rkey,
                             qp_wdata.cont_level, qp_wdata.cont_index};
    end
  end


  logic unused_sig;
  assign unused_sig = ^{unused_qp_valid, unused_qp_rel, dec_pd, unused_pol_next, unused_vq_count,
                       reg_addr_i[1:0]};

endmodule
