// SPDX-License-Identifier: Apache-2.0
//
// rocesec_verify_key: stage `key` of the verify (RX) top — model/src/stage/key.rs select_rx and
// ReplayWindow, the RX half of model/src/engine.rs Verifier::verify, with the shared tables
// (rocesec_key_tables) and derived-key cache + KDF (rocesec_key_cache).
//
// Data format
// -----------
// Per packet, in order: the parse header descriptor (roce_parse hdr_valid_o: roce_desc_t and
// the header window) is classified exactly as Verifier::verify does: NotRoce → forward; CNP →
// forward if plain, policy if protected; plain packet → bypass QP forwards, else policy; then
// select_rx: policy (bypass QP or SecHdr mode ≠ QP mode), epoch (current, or epoch+1 when
// installed; else stale-epoch within 127 behind, else unknown-key), key scope (RETH/AtomicETH →
// node key (dest GID, rkey, SecHdr level, VA >> (12 + level)) with [VA, VA+len) inside the node,
// level 0x3F malformed; WRITE Middle/Last → the key of the QP's authenticated WRITE First; else
// the per-QP key, level must be 0x3F), replay window (64 PNs, RFC 4303 §3.4.3). The key is
// fetched from the derived-key cache (K_pd from the PD key slot of (pd, SecHdr epoch)), and a
// job_t is issued with the restored header (IPv4 total length / IPv6 payload length and UDP
// length - 24, IPv4 header checksum recomputed (RFC 791 / etherparse), BTH TVer = 0), and the
// frame joins the verdict queue (VqDepth frames). At the queue head, the final parse descriptor
// and the frame's authentication result (rocesec_verify_emit) decide the verdict (parse errors
// first, then the key stage's, then auth-fail) and, for an authenticated frame only, commit the
// RX QP state as a read-modify-write: replay window update, epoch promotion (make before break)
// and WRITE continuation key — as the model commits only after the ICV verified.
//
// Decisions run ahead of verdicts: frame N+1 is decided against the committed state while
// earlier frames wait for their tags, unless an earlier pending frame of the same QP could, by
// committing, change N+1's decision: the same PN, a PN >= N+1's PN + 64 (it would push N+1
// out of the window), an epoch promotion, a WRITE First before a WRITE Middle/Last, or (the
// QP's entry still fresh) a policy epoch or next_epoch other than the pending frame's. Then
// N+1 waits in stage D until that frame's verdict. Every decision therefore equals the one
// made after all earlier frames committed (the model's sequential semantics).
//
// Tables: policy entries and PD key slots (rocesec_key_tables, register map docs/rtl/tops.md), RX
// QP state (NumQps entries keyed by (dest GID, dest QPN), allocated when the first frame of the QP
// is decided to be processed; the identity, epoch and next in registers, the replay window and
// WRITE key in a RAM with asynchronous reads, see gen_qp). The state itself is made by the QP's
// first authenticated frame (its commit): until then the entry is fresh and every decision for it
// uses RxQp::new of the policy as it is then, so a frame that fails (a forgery, a bad ICRC) leaves
// nothing behind (session 38), and a fresh entry no frame refers to any more is freed (session 39:
// "Reclaiming fresh entries"); a driver releases the entry of a destroyed QP (session 40: "QP
// release"). Epoch + 1 is accepted when the QP's next bit is
// set, when the policy's next_epoch bit is set now and the QP is at the policy's epoch, or when the
// policy's epoch is epoch + 1 (select_rx), so a driver installs it on a live receiver with one
// write and may move the policy on before every QP was promoted. Hardware limits (verdict
// unknown-key): QP state table full, no PD slot for (pd, epoch). AES-128 only; no rkey allow-list.
//
// Counters (register read port, 32 bit): 0 frames, 1 processed, 2 bypass, 3 CNP, 4 not RoCE,
// 5 dropped by store-and-forward, 6 epoch promotions, 7 dropped as oversize, 8 + r rejected
// with reason r.

`resetall
`default_nettype none

module rocesec_verify_key
#(
  parameter int unsigned NumPolicies = 8,
  parameter int unsigned NumPdSlots  = 4,
  parameter int unsigned NumQps      = 16,
  parameter int unsigned NumCache    = 8,
  parameter int unsigned VqDepth     = 4    // frames decided, verdict pending (2^n)
) (
  input  wire logic                  clk_i,
  input  wire logic                  rst_ni,

  // Header descriptors (in frame order)
  input  wire logic                  hdr_valid_i,
  output logic                       hdr_ready_o,
  input  wire roce_parse_pkg::roce_desc_t hdr_desc_i,

  // Final descriptors (same order)
  input  wire logic                  fin_valid_i,
  output logic                       fin_ready_o,
  input  wire logic [1:0]            fin_kind_i,
  input  wire logic                  fin_icrc_ok_i,

  // Jobs to emit
  output logic                       job_valid_o,
  input  wire logic                  job_ready_i,
  output rocesec_pkg::job_t          job_o,

  // Authentication results from emit (job order)
  input  wire logic                  auth_valid_i,
  output logic                       auth_ready_o,
  input  wire logic                  auth_ok_i,

  // Final verdict of the oldest unfinished job
  output logic                       done_valid_o,
  output logic      [3:0]            done_reason_o,
  output logic      [1:0]            done_fwd_o,

  // Store-and-forward drops (from emit) and the mode (for the counters)
  input  wire logic                  drop_i,
  input  wire logic                  drop_oversize_i,

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

  ////////////////////
  // RX QP state    //
  ////////////////////

  typedef struct packed {
    logic         valid;
    logic [127:0] gid;
    logic [23:0]  qpn;
    logic [7:0]   epoch;
    logic         next;
    logic [47:0]  top;       // highest accepted PN (0: none)
    logic [63:0]  bits;      // bit p mod 64: PN p in [top - 63, top] accepted (see below)
    logic         cont_valid;
    logic [31:0]  cont_rkey;
    logic [5:0]   cont_level;
    logic [63:0]  cont_index;
  } rxqp_t;

  // The RAM part of an entry (top .. cont_index); identity, epoch and next are registers.
  localparam int unsigned StW = 48 + 64 + 1 + 32 + 6 + 64;
  localparam int unsigned QW  = $clog2(NumQps);

  logic [NumQps-1:0] qp_fresh_v;   // free, or allocated and not yet committed: the RAM word reads as zero
  logic [7:0]        qp_epoch_v [NumQps];
  logic              qp_next_v  [NumQps];
  logic [StW-1:0]    st_mem     [NumQps];

  /////////////////////////
  // Packet under work   //
  /////////////////////////

  // Two stages, as in rocesec_protect_key: stage D holds the header under decision (d_q) for
  // at least two cycles (D1: policy entry, QP identity match and key-scope range registered,
  // the matched entry's QP state read and registered; D2: PD key slot, classification) and
  // decides when D1's results are ready, stage J is free and no conflict holds; stage J
  // (state_q, jd_q) fetches the key and issues the job. A frame with its key cached costs 2 cycles in J.
  typedef enum logic [1:0] {
    StIdle, StKey, StJob
  } state_e;

  state_e                state_q;
  logic                  d_valid_q;
  /* verilator lint_off UNUSEDSIGNAL */
  roce_parse_pkg::roce_desc_t d_q;      // stage D (read field by field)
  roce_parse_pkg::roce_desc_t jd_q;     // stage J's copy (the job's and the queue's fields)
  /* verilator lint_on UNUSEDSIGNAL */
  logic                  fin_take;
  logic                  j_free, dec_take;
  logic                  ld;        // a header enters stage D

  /////////////////////
  // Tables (shared) //
  /////////////////////

  logic [1:0]   pol_mode;
  logic [7:0]   pol_epoch;
  logic         pol_next;
  logic [31:0]  pol_pd;
  logic [23:0]  pol_gen;

  // Stage D1 results (registered; see "Stage D1" below)
  logic          d1_ok_q;
  logic [1:0]    p1_mode_q;
  logic [7:0]    p1_epoch_q;
  logic          p1_next_q;
  logic [31:0]   p1_pd_q;
  logic [23:0]   p1_gen_q;
  logic          p1_found_q, p1_free_found_q;
  logic          p1_fresh_q;   // the matched entry has no commit yet (its state: RxQp::new)
  logic [QW-1:0] p1_match_idx_q, p1_free_idx_q;
  logic          p1_in_node_q;
  logic [63:0]   p1_index_q;
  logic          p1_replay_ok_q;  // the replay check on the matched entry's word (see D1)
  logic         pd_hit;
  logic [127:0] pd_key;
  logic [NumPdSlots-1:0] pd_match, p1_pd_match_q;  // D1: PD slots of the policy (and epoch)
  logic         pd_write;

  rocesec_key_tables #(
    .NumPolicies (NumPolicies),
    .NumPdSlots  (NumPdSlots),
    .EpochFromPolicy (1'b0)
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
    .pol_next_o  (pol_next),
    .pol_pd_o    (pol_pd),
    .pol_gen_o   (pol_gen),
    .pd_epoch_i  (d_q.sec_epoch),
    .pd_match_o  (pd_match),
    .pd_sel_i    (p1_pd_match_q),
    .pd_hit_o    (pd_hit),
    .pd_key_o    (pd_key)
  );

  //////////////
  // Counters //
  //////////////

  logic [31:0] cnt_q [24];
  logic        done_promote_q;  // last cycle's verdict: processed, at an epoch other than the entry's

  always_comb begin
    reg_rdata_o = 32'h0;
    for (int c = 0; c < 24; c++) begin
      if (reg_raddr_i == rocesec_pkg::RegCountBase + 16'(4 * c)) reg_rdata_o = cnt_q[c];
    end
  end

  //////////////////
  // Byte helpers //
  //////////////////

  // (the length fields and the IPv4 header sum come with the descriptor)

  // Verdict queue: decided frames in order, waiting for their parse and authentication results.
  localparam int unsigned VW = $clog2(VqDepth);
  logic [VW:0]     vq_count_q;
  logic [VW-1:0]   vq_head_q, vq_tail_q;
  logic            vq_v_q       [VqDepth];  // slot holds a queued verdict (head .. tail - 1)
  logic            vq_process_q [VqDepth];
  logic [3:0]      vq_reason_q  [VqDepth];
  logic [1:0]      vq_fwd_q     [VqDepth];
  logic [QW-1:0]   vq_idx_q     [VqDepth];
  logic [47:0]     vq_pn_q      [VqDepth];
  logic [7:0]      vq_epoch_q   [VqDepth];
  logic            vq_promote_q [VqDepth];
  logic            vq_wfirst_q  [VqDepth];
  logic [31:0]     vq_rkey_q    [VqDepth];
  logic [5:0]      vq_level_q   [VqDepth];
  logic [63:0]     vq_index_q   [VqDepth];
  logic            vq_push, vq_room, conflict_d, conflict_q;
  logic            v_process;
  logic [3:0]      v_reason;
  logic [1:0]      v_fwd;
  logic [QW-1:0]   v_idx;
  // The head's QP index, PN and PN - 64, and its entry's state, registered (see "Verdict queue
  // head" below)
  logic [QW-1:0]   vh_idx_q;
  logic [47:0]     vh_pn_q;
  logic [48:0]     vh_pnm_q;

  assign vq_room     = (vq_count_q != (VW+1)'(VqDepth));
  assign fin_take    = (vq_count_q != '0) && fin_valid_i && auth_valid_i;
  assign fin_ready_o = fin_take;
  assign auth_ready_o = fin_take;
  assign v_process   = vq_process_q[vq_head_q];
  assign v_reason    = vq_reason_q[vq_head_q];
  assign v_fwd       = vq_fwd_q[vq_head_q];
  assign v_idx       = vh_idx_q;  // (= vq_idx_q[vq_head_q] while the queue holds a frame)

  // Decision of d_q (combinational; registered into stage J by dec_take)
  logic         dec_process, process_q;
  logic [3:0]   dec_reason, dec_reason_q;
  logic [1:0]   dec_fwd, dec_fwd_q;
  logic [23:0]  dec_salt, salt_q;
  logic [127:0] dec_pdkey, pdkey_q;
  rocesec_pkg::key_tag_t dec_tag, tag_q;
  logic         dec_qp_found, qp_found_q;
  logic [QW-1:0] dec_qp_idx, qp_idx_q;
  logic         dec_write_first, write_first_q;
  logic         dec_promote, promote_q;
  /* verilator lint_off UNUSEDSIGNAL */
  rxqp_t        sel_st;           // read field by field
  /* verilator lint_on UNUSEDSIGNAL */
  logic         sel_qp_found, sel_qp_free_found;
  logic [QW-1:0] sel_qp_idx;

  // Entry state (identity not included) at three read ports, 0: D1's identity match, 1: the
  // entry of the slot after the verdict queue's head, 2: stage J's entry; the reads are
  // registered (p1_word_q; vh_word_q from port 1 or 2).
  // Epoch and next come from the registers, the rest from the RAM (zero while the entry is
  // fresh, RxQp::new); together they are the low fields of rxqp_t.
  localparam int unsigned RdW = 8 + 1 + StW;
  logic [QW-1:0]  match_idx;
  logic [QW-1:0]  rd_idx  [3];
  logic [RdW-1:0] vh_word_q;             // the head's entry (epoch, next, RAM part)
  logic [RdW-1:0] p1_word_q;             // D1: the matched entry's state (see "Stage D2")
  logic [RdW-1:0] rd_word [3];           // each port's read, this cycle's commit bypassed in
  rxqp_t          sel_rd, cur_rd;

  // Stage D1 (the cycle after d_q is loaded): what depends only on d_q and the tables. The
  // policy entry and the QP identity match are registered as the header enters D
  // (rocesec_key_tables, rocesec_qp_ident), so D1 selects and encodes. The identities of
  // allocated entries change only when D2 allocates (the frame before; a free entry's follow
  // the frame in D but are not matched), the policy table only by a register write to
  // its region (then D1 runs again: d1_ok_q stays low while tbl_stale is high); the QP state
  // (epoch, replay window, WRITE key), which commits change, is read at D1's match with each
  // cycle's commit bypassed in and registered in every cycle (p1_word_q, p1_replay_ok_q).
  logic          tbl_stale;
  logic          r_free_found, r_found, r_in_node, r_replay_ok;
  logic [QW-1:0] r_free_idx;
  logic [63:0]   r_index;
  logic [NumQps-1:0] qp_valid_v;
  logic [NumQps-1:0] qp_rel_v;  // released entries (see "QP release")
  logic [NumQps-1:0] qp_free;   // entries freed this cycle (see "Reclaiming fresh entries")
  logic [NumQps-1:0] pend_v;    // entries a processed frame in stage J or the queue will commit

  // QP release (QP destroy on the receiver; model: Verifier::release_qp). A write of word 0 of
  // the release block (RegRelease: word 1 the QPN, words 4..7 the GID, as in a policy entry)
  // with bit 31 set releases the RX QP state of that identity. The write is taken like a table
  // write: it keeps D1 from being ready in the next cycle (rel_wr), and in that next cycle
  // (rel_go_q) no header enters D and nothing is decided; the identity registers, which hold
  // what was written before the go (a write in the go's cycle is the go itself), are
  // compared with the table through rocesec_qp_ident's load port (its one comparator per
  // entry; the header's identity is muxed out for the cycle) and the matching entry is
  // released: no header matches it any more and D1 runs again, so a frame decided after the
  // release meets RxQp::new, and frames decided before it commit to the released entry, which
  // is freed when the last of them leaves ("Reclaiming fresh entries"). The release is thereby
  // ordered between two decisions, as the model's is between two frames.
  logic [127:0] rel_gid_q;
  logic [23:0]  rel_qpn_q;
  logic         rel_wr, rel_go_q;
  logic [127:0] id_gid;
  logic [23:0]  id_qpn;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rel_gid_q <= '0;
      rel_qpn_q <= '0;
      rel_go_q  <= 1'b0;
    end else begin
      rel_go_q  <= rel_wr;
      if (reg_we_i && reg_addr_i[15:5] == rocesec_pkg::RegRelease[15:5]) begin
        unique case (reg_addr_i[4:2])
          3'd0:    ;  // the go (rel_wr)
          3'd1:    rel_qpn_q <= reg_wdata_i[23:0];
          3'd2, 3'd3: ;
          default: rel_gid_q <= rocesec_pkg::put_word(rel_gid_q, reg_addr_i[3:2], reg_wdata_i);
        endcase
      end
    end
  end

  // (rel_wr also holds the decision in the lookup cycle. That is conservative: a frame decided
  // there is ordered before the release, and rocesec_qp_ident matches an entry allocated in the
  // same cycle. The mutant without it passes every release test; it keeps the ordering
  // argument to "nothing is decided while the release looks up".)
  assign rel_wr = reg_we_i && reg_addr_i[15:2] == rocesec_pkg::RegRelease[15:2] && reg_wdata_i[31];
  assign id_gid = rel_go_q ? rel_gid_q : hdr_desc_i.dest_gid;
  assign id_qpn = rel_go_q ? rel_qpn_q : hdr_desc_i.dest_qp;

  rocesec_qp_ident #(
    .NumQps (NumQps)
  ) u_ident (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .load_i       (ld),
    .ld_gid_i     (id_gid),
    .ld_qpn_i     (id_qpn),
    .alloc_i      (alloc_we),
    .alloc_idx_i  (sel_qp_idx),
    .cur_gid_i    (d_q.dest_gid),
    .cur_qpn_i    (d_q.dest_qp),
    .free_i       (qp_free),
    .rel_i        (rel_go_q),
    .found_o      (r_found),
    .match_idx_o  (match_idx),
    .free_found_o (r_free_found),
    .free_idx_o   (r_free_idx),
    .valid_o      (qp_valid_v),
    .rel_o        (qp_rel_v)
  );

  // Key scope: [va, va + max(len, 1)) inside node (level, va >> (12 + level)). The last
  // byte's address va + max(len, 1) - 1 is computed as the header enters d_q (d_sum_q, a
  // function of the descriptor alone); D1 checks that va and it agree above bit 12 + level
  // (no differing bit there: a mask, not two shifts and a compare) and shifts out the index.
  logic [64:0] d_sum_q;
  // PN + 64 of the header in d_q, computed as it enters d_q, so that D2's replay check
  // (age < 64: pn + 64 > top) and conflict rule compare registers and add nothing.
  logic [48:0] d_pn64_q;

  always_comb begin
    logic [6:0]  sh;
    logic [63:0] hi;
    sh = 7'd12 + {1'b0, d_q.sec_level};
    for (int b = 0; b < 64; b++) hi[b] = (7'(b) >= sh);
    r_in_node = !d_sum_q[64] && (d_q.sec_level <= 6'd52) &&
                (((d_q.va ^ d_sum_q[63:0]) & hi) == 64'h0);
    r_index   = d_q.va >> sh;  // (a shift by 64 or more gives 0)
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      d1_ok_q         <= 1'b0;
      p1_mode_q       <= '0;
      p1_epoch_q      <= '0;
      p1_next_q       <= 1'b0;
      p1_pd_q         <= '0;
      p1_pd_match_q   <= '0;
      p1_gen_q        <= '0;
      p1_found_q      <= 1'b0;
      p1_fresh_q      <= 1'b0;
      p1_free_found_q <= 1'b0;
      p1_match_idx_q  <= '0;
      p1_free_idx_q   <= '0;
      p1_in_node_q    <= 1'b0;
      p1_index_q      <= '0;
      p1_replay_ok_q  <= 1'b0;
      p1_word_q       <= '0;
      d_sum_q         <= '0;
      d_pn64_q        <= '0;
    end else begin
      if (ld) d_sum_q <= rocesec_pkg::last_addr(hdr_desc_i.has_reth, hdr_desc_i.dma_len,
                                                hdr_desc_i.va);
      if (ld) d_pn64_q <= {1'b0, hdr_desc_i.sec_pn} + 49'd64;
      d1_ok_q <= d_valid_q && !dec_take && !ld && !tbl_stale && !rel_wr && !rel_go_q;
      if (d_valid_q) begin
        p1_mode_q       <= pol_mode;
        p1_epoch_q      <= pol_epoch;
        p1_next_q       <= pol_next;
        p1_pd_q         <= pol_pd;
        p1_pd_match_q   <= pd_match;
        p1_gen_q        <= pol_gen;
        p1_found_q      <= r_found;
        p1_fresh_q      <= qp_fresh_v[match_idx] && !(qp_we && v_idx == match_idx);
        p1_free_found_q <= r_free_found;
        p1_match_idx_q  <= match_idx;
        p1_free_idx_q   <= r_free_idx;
        p1_in_node_q    <= r_in_node;
        p1_index_q      <= r_index;
        p1_replay_ok_q  <= r_replay_ok;
        p1_word_q       <= rd_word[0];
      end
    end
  end

  // The matched entry's state, read in D1 at the identity match's index and registered with
  // D1's results (p1_word_q), with this cycle's commit bypassed into it when it writes that
  // entry; D2 uses the register. The D1 registers load in every cycle the header is in D, so
  // in D2 and in every later cycle the header waits the register holds the entry's state
  // after every commit made before that cycle: the value the RAM read at D1's index in that
  // cycle gave before (at d30da39: the read, D2's window compares and classification, in one
  // cycle). Ports 1 and 2: the candidates for the verdict queue's next head (vh_word_q).
  assign rd_idx[0] = match_idx;

  for (genvar p = 0; p < 3; p++) begin : gen_rd
    assign rd_word[p] = (qp_we && v_idx == rd_idx[p]) ? qp_wword :
                        {qp_epoch_v[rd_idx[p]], qp_next_v[rd_idx[p]],
                         qp_fresh_v[rd_idx[p]] ? StW'(0) : st_mem[rd_idx[p]]};
  end

  // The replay check (ReplayWindow::check) on the same word, made here and registered with it
  // (p1_replay_ok_q), so that D2 only classifies (at 9397135 the stage's critical path: D1's
  // registers, the 48-bit pn > top compare, the classification, stage J's loads). It holds for
  // D2 in every cycle as p1_word_q does. The window's bits are kept by PN mod 64, not by age:
  // the bit of pn is selected by registered bits of d_q, in parallel with the two compares;
  // age < 64 is pn + 64 > top. D2 uses it only when D1 found an entry (a fresh entry's word
  // reads as zero: top 0, as for a QP with no entry).
  localparam int unsigned TopLsb = StW - 48;  // top and bits: the RAM word's high fields
  logic [47:0] r_top;
  logic [63:0] r_bits;
  assign r_top       = rd_word[0][TopLsb +: 48];
  assign r_bits      = rd_word[0][TopLsb - 64 +: 64];
  assign r_replay_ok = (d_q.sec_pn != 48'd0) &&
                       ((d_q.sec_pn > r_top) ||
                        (d_pn64_q > {1'b0, r_top} && !r_bits[d_q.sec_pn[5:0]]));

  assign sel_rd = {{(1 + 128 + 24){1'b0}}, p1_word_q};
  assign cur_rd = {{(1 + 128 + 24){1'b0}}, vh_word_q};

  always_comb begin
    sel_qp_found      = p1_found_q;
    sel_qp_free_found = p1_free_found_q;
    sel_st            = sel_rd;
    sel_st.valid      = 1'b1;
    sel_st.gid        = d_q.dest_gid;
    sel_st.qpn        = d_q.dest_qp;
    sel_qp_idx        = p1_found_q ? p1_match_idx_q : p1_free_idx_q;
    if (!p1_found_q || p1_fresh_q) begin
      // RxQp::new(policy): no entry, or one no frame has committed to yet (a QP's state is
      // made by its first authenticated frame; until then the policy as it is now decides)
      sel_st       = '0;
      sel_st.valid = 1'b1;
      sel_st.gid   = d_q.dest_gid;
      sel_st.qpn   = d_q.dest_qp;
      sel_st.epoch = p1_epoch_q;
      sel_st.next  = p1_next_q;
    end
  end

  // The header's kind for the key scope, shared by the decision, new_process and the conflict
  // rule: a target (RETH/AtomicETH), the QP level, a WRITE Middle/Last or First (RC/UC/XRC).
  logic d_target, d_level_qp, d_wcont, d_wfirst;
  always_comb begin
    logic rw;
    rw         = d_q.service == roce_parse_pkg::SvcRc || d_q.service == roce_parse_pkg::SvcUc ||
                 d_q.service == roce_parse_pkg::SvcXrc;
    d_target   = d_q.has_reth || d_q.has_atomic;
    d_level_qp = (d_q.sec_level == rocesec_pkg::LevelQp);
    d_wcont    = rw && d_q.opcode[4:0] >= 5'h07 && d_q.opcode[4:0] <= 5'h09;
    d_wfirst   = rw && d_q.opcode[4:0] == 5'h06;
  end

  /* verilator lint_off UNUSEDSIGNAL */
  always_comb begin
    logic [7:0]  ediff;
    logic        ep_ok, ep_stale, ep_next;
    logic [47:0] pn;
    logic        replay_ok;

    dec_process     = 1'b0;
    dec_reason      = rocesec_pkg::ReasonOk;
    dec_fwd         = rocesec_pkg::FwdProcessed;
    dec_tag         = '0;
    dec_write_first = 1'b0;
    dec_qp_found    = sel_qp_found;
    dec_qp_idx      = sel_qp_idx;
    dec_pdkey       = pd_key;
    dec_salt        = (d_q.service == roce_parse_pkg::SvcUd) ? d_q.src_qp : p1_gen_q;

    // epoch (select_rx): epoch + 1 is installed by the QP's state (the policy's bit at its
    // allocation) or by the policy now: its next_epoch bit for a QP at the policy's epoch (a
    // driver setting it on a live receiver: the QPs already running accept epoch + 1 too), or
    // its epoch one ahead of the QP's (the policy moved on before this QP saw the new epoch)
    ep_next  = sel_st.next || (p1_next_q && p1_epoch_q == sel_st.epoch) ||
               (p1_epoch_q == sel_st.epoch + 8'd1);
    ediff    = sel_st.epoch - d_q.sec_epoch;
    ep_ok    = (d_q.sec_epoch == sel_st.epoch) ||
               (ep_next && d_q.sec_epoch == sel_st.epoch + 8'd1);
    ep_stale = (ediff >= 8'd1) && (ediff < 8'd128);
    dec_promote = (d_q.sec_epoch != sel_st.epoch);

    // key scope (D1: p1_in_node_q, p1_index_q)
    dec_write_first = d_wfirst;

    dec_tag.pd    = p1_pd_q;
    dec_tag.epoch = d_q.sec_epoch;
    dec_tag.gid   = d_q.dest_gid;
    if (d_target) begin
      dec_tag.typ   = rocesec_pkg::KtNode;
      dec_tag.a     = d_q.rkey;
      dec_tag.b     = {18'h0, d_q.sec_level};
      dec_tag.index = p1_index_q;
    end else if (d_wcont) begin
      dec_tag.typ   = rocesec_pkg::KtNode;
      dec_tag.a     = sel_st.cont_rkey;
      dec_tag.b     = {18'h0, sel_st.cont_level};
      dec_tag.index = sel_st.cont_index;
    end else begin
      dec_tag.typ   = rocesec_pkg::KtQp;
      dec_tag.a     = {8'h0, d_q.dest_qp};
      dec_tag.b     = dec_salt;
    end

    // replay window (ReplayWindow::check), made in D1 (p1_replay_ok_q); no entry: top 0
    pn        = d_q.sec_pn;
    replay_ok = p1_found_q ? p1_replay_ok_q : (pn != 48'd0);

    // classification, in the order of Verifier::verify and select_rx
    if (d_q.kind == roce_parse_pkg::KindNotRoce) begin
      dec_fwd = rocesec_pkg::FwdNotRoce;
    end else if (d_q.kind != roce_parse_pkg::KindRoce) begin
      dec_reason = rocesec_pkg::ReasonMalformed;
    end else if (d_q.service == roce_parse_pkg::SvcCnp) begin
      if (d_q.sec_valid) dec_reason = rocesec_pkg::ReasonPolicy;
      else               dec_fwd    = rocesec_pkg::FwdCnp;
    end else if (!d_q.sec_valid) begin
      if (p1_mode_q == rocesec_pkg::ModeBypass) dec_fwd    = rocesec_pkg::FwdBypass;
      else                                     dec_reason = rocesec_pkg::ReasonPolicy;
    end else if (p1_mode_q == rocesec_pkg::ModeBypass || d_q.sec_mode != p1_mode_q) begin
      dec_reason = rocesec_pkg::ReasonPolicy;
    end else if (!sel_qp_found && !sel_qp_free_found) begin
      dec_reason = rocesec_pkg::ReasonUnknownKey;  // hardware limit: QP state table full
    end else if (!ep_ok) begin
      dec_reason = ep_stale ? rocesec_pkg::ReasonStaleEpoch : rocesec_pkg::ReasonUnknownKey;
    end else if (d_target && d_level_qp) begin
      dec_reason = rocesec_pkg::ReasonMalformed;
    end else if (d_target && !p1_in_node_q) begin
      dec_reason = rocesec_pkg::ReasonOutOfRange;
    end else if (!d_target && d_wcont && !sel_st.cont_valid) begin
      dec_reason = rocesec_pkg::ReasonUnknownKey;
    end else if (!d_target && !d_wcont && !d_level_qp) begin
      dec_reason = rocesec_pkg::ReasonMalformed;
    end else if (!replay_ok) begin
      dec_reason = rocesec_pkg::ReasonReplay;
    end else if (!pd_hit) begin
      dec_reason = rocesec_pkg::ReasonUnknownKey;  // hardware limit: no PD key slot for (pd, epoch)
    end else begin
      dec_process = 1'b1;
    end
  end
  /* verilator lint_on UNUSEDSIGNAL */

  // The decision for a QP not in the table (D1 found no entry): the classification above with
  // sel_st = RxQp::new(policy) (replay window empty: top 0; no WRITE key; epoch and next_epoch
  // the policy's), written out so that the allocation's enable does not run through the
  // QP-state RAM read, which it never uses (the stage's critical path at 6bc54c0: the RAM read
  // at D1's index, the classification, alloc_i, the identity table's valid enables). It must
  // equal dec_process whenever !p1_found_q: scripts/equiv.sh proves it (the co-simulation does
  // not see an allocation made for a frame that is then rejected).
  logic new_process;
  always_comb begin
    logic ep_ok, scope_ok;
    // select_rx with the QP at the policy's epoch: epoch + 1 only by the policy's next bit
    ep_ok    = (d_q.sec_epoch == p1_epoch_q) ||
               (p1_next_q && d_q.sec_epoch == p1_epoch_q + 8'd1);
    // key scope: a target needs a node level and the range inside it; a WRITE continuation
    // needs the QP's WRITE key (none yet); anything else the QP level
    scope_ok = d_target ? (!d_level_qp && p1_in_node_q) : (!d_wcont && d_level_qp);
    new_process = (d_q.kind == roce_parse_pkg::KindRoce) &&
                  (d_q.service != roce_parse_pkg::SvcCnp) && d_q.sec_valid &&
                  (p1_mode_q != rocesec_pkg::ModeBypass) && (d_q.sec_mode == p1_mode_q) &&
                  p1_free_found_q && ep_ok && scope_ok &&
                  (d_q.sec_pn != 48'd0) &&  // replay window empty: pn > 0
                  pd_hit;
  end

  // A frame may be decided while earlier frames of the same QP wait for their verdicts (in
  // the verdict queue, or in stage J) only if none of their possible commits changes this
  // decision: same or much newer PN (replay window), an epoch promotion, or a WRITE First
  // before a continuation.
  //
  // The rule is registered (conflict_q): computed in every cycle for the frame pending in the
  // next one, so the decision's enable (dec_take: the load of stage J and of stage D, the
  // policy match enable, ~1,500 flip-flops) starts at a flip-flop, not behind the 49-bit
  // compares. It equals the rule computed in the deciding cycle whenever D may decide
  // (d1_ok_q, which needs the cycle before without a load, a decision or a table write):
  //   - the header in D, its PN and PN + 64 are the same (no load);
  //   - its QP index: D1's match (rocesec_qp_ident, combinational from registers), which
  //     p1_match_idx_q registers in the same cycle, and which stays while the header stays;
  //   - the frames pending: stage J's frame stays in J or moves to the verdict queue's tail
  //     (vq_push) with the same fields; none enters J (no decision); the queue head leaves
  //     when its verdict is taken (fin_take), so that slot is left out here;
  //   - the policy (pol_epoch, pol_next: what D1 registers in this cycle for D2 in the next),
  //     which only a table write changes; a fresh entry's epoch and next, which change only
  //     by a commit (it clears the fresh bit: the term may hold one cycle longer than needed)
  //     or by `follow`, which needs no commit pending (the term is 0 then).
  always_comb begin
    logic [47:0] pn;
    logic        hit;
    pn    = d_q.sec_pn;
    hit   = r_found && d_q.sec_valid;
    conflict_d = (state_q != StIdle) && process_q && hit && qp_idx_q == match_idx &&
                 (jd_q.sec_pn == pn || {1'b0, jd_q.sec_pn} >= d_pn64_q ||
                  promote_q || (write_first_q && d_wcont));
    // a fresh entry (no commit yet) with a commit pending, and the policy's epoch or
    // next_epoch moved since the pending frame was decided (a register write): this frame's
    // decision (RxQp::new of the policy as it is now) is the sequential one only if that
    // commit fails, so it waits for the verdict (session 41; no wait while the policy stays)
    if (hit && qp_fresh_v[match_idx] && pend_v[match_idx] &&
        (qp_epoch_v[match_idx] != pol_epoch || qp_next_v[match_idx] != pol_next)) begin
      conflict_d = 1'b1;
    end
    // every occupied slot, in any order (no rotation by the head: an OR of per-slot terms)
    for (int j = 0; j < VqDepth; j++) begin
      if (vq_v_q[j] && vq_process_q[j] && hit && vq_idx_q[j] == match_idx &&
          !(fin_take && vq_head_q == VW'(j)) &&
          (vq_pn_q[j] == pn || {1'b0, vq_pn_q[j]} >= d_pn64_q ||
           vq_promote_q[j] || (vq_wfirst_q[j] && d_wcont))) begin
        conflict_d = 1'b1;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) conflict_q <= 1'b0;
    else         conflict_q <= conflict_d;
  end

  ////////////////////////////
  // Derived-key cache + KDF //
  ////////////////////////////

  logic         kc_rsp_valid;
  logic [127:0] kc_key, kc_h;
  logic [rocesec_pkg::RkW-1:0] kc_rk;
  logic         key_ok_q;  // the cache answered this job's key request (kc_key/kc_h hold it)

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

  //////////
  // Jobs //
  //////////

  rocesec_pkg::job_t job;

  // The restored header is applied by the emit stage (rocesec_pkg::hdr_beat): lengths - 24,
  // the IPv4 checksum recomputed over the restored header, TVer = 0.
  always_comb begin
    logic [15:0] ipl;
    ipl         = jd_q.ip_len - 16'(rocesec_pkg::Overhead);
    job         = '0;
    job.protect = process_q;
    job.mode    = jd_q.sec_mode;
    job.key     = key_ok_q ? kc_key : 128'h0;  // the cache holds them until its next request
    job.h       = key_ok_q ? kc_h : 128'h0;
    job.rk      = key_ok_q ? kc_rk : '0;
    job.iv      = {jd_q.dest_qp, salt_q, jd_q.sec_pn};
    job.ip_len  = ipl;
    job.udp_len = jd_q.udp_len - 16'(rocesec_pkg::Overhead);
    job.ip_csum = rocesec_pkg::ipv4_csum(jd_q.ip_sum, ipl);
    job.hoff    = jd_q.bth_off + 8'd12;  // SecHdr (eth_off is past it)
    job.poff    = jd_q.payload_off;
    job.eoff    = jd_q.payload_end;
    job.ipv6    = jd_q.ipv6;
    job.ip_off  = jd_q.ip_off;
    job.udp_off = jd_q.udp_off;
    job.bth_off = jd_q.bth_off;
  end

  assign job_valid_o = (state_q == StJob) && vq_room;
  assign job_o       = job;

  //////////////////////////
  // Stage D and stage J  //
  //////////////////////////

  logic [3:0] fin_reason;

  always_comb begin
    if (fin_kind_i == roce_parse_pkg::KindMalformed)                   fin_reason = rocesec_pkg::ReasonMalformed;
    else if (fin_kind_i == roce_parse_pkg::KindRoce && !fin_icrc_ok_i) fin_reason = rocesec_pkg::ReasonBadIcrc;
    else if (v_reason != rocesec_pkg::ReasonOk)                        fin_reason = v_reason;
    else if (v_process && !auth_ok_i)                                  fin_reason = rocesec_pkg::ReasonAuthFail;
    else                                                               fin_reason = rocesec_pkg::ReasonOk;
  end

  // Stage J is free when idle or issuing its job; stage D decides then unless a conflict holds,
  // and takes the next header in the same cycle.
  assign vq_push     = job_valid_o && job_ready_i;
  assign j_free      = (state_q == StIdle) || vq_push;
  assign dec_take    = d_valid_q && d1_ok_q && j_free && !conflict_q;
  assign hdr_ready_o = (!d_valid_q || dec_take) && !rel_go_q;  // (a release's lookup cycle)
  assign ld          = hdr_valid_i && hdr_ready_o;

  // Stage D and stage J
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q       <= StIdle;
      d_valid_q     <= 1'b0;
      d_q           <= '0;
      jd_q          <= '0;
      process_q     <= 1'b0;
      dec_reason_q  <= '0;
      dec_fwd_q     <= '0;
      salt_q        <= '0;
      pdkey_q       <= '0;
      tag_q         <= '0;
      qp_found_q    <= 1'b0;
      qp_idx_q      <= '0;
      write_first_q <= 1'b0;
      promote_q     <= 1'b0;
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
      if (vq_push) begin
        key_ok_q <= 1'b0;
        pdkey_q  <= '0;
        state_q <= StIdle;
      end else if (state_q == StKey && kc_rsp_valid) begin
        key_ok_q <= 1'b1;
        state_q <= StJob;
      end
      if (dec_take) begin
        jd_q          <= d_q;
        process_q     <= dec_process;
        dec_reason_q  <= dec_reason;
        dec_fwd_q     <= dec_fwd;
        salt_q        <= dec_salt;
        pdkey_q       <= dec_pdkey;
        tag_q         <= dec_tag;
        qp_found_q    <= dec_qp_found;
        qp_idx_q      <= dec_qp_idx;
        write_first_q <= dec_write_first;
        promote_q     <= dec_promote;
        state_q       <= dec_process ? StKey : StJob;
      end
    end
  end

  // Verdict queue and verdicts (in order)
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      vq_count_q    <= '0;
      vq_head_q     <= '0;
      vq_tail_q     <= '0;
      done_valid_o  <= 1'b0;
      done_reason_o <= '0;
      done_fwd_o    <= '0;
      done_promote_q <= 1'b0;
      for (int j = 0; j < VqDepth; j++) vq_v_q[j] <= 1'b0;
      for (int c = 0; c < 24; c++) cnt_q[c] <= '0;
    end else begin
      // push and take never name the same slot (take needs count > 0, push count < VqDepth)
      if (vq_push) vq_v_q[vq_tail_q] <= 1'b1;
      if (fin_take) vq_v_q[vq_head_q] <= 1'b0;
      done_valid_o <= 1'b0;
      vq_count_q   <= vq_count_q + (VW+1)'(vq_push) - (VW+1)'(fin_take);
      if (vq_push) vq_tail_q <= vq_tail_q + 1'b1;
      if (drop_i)          cnt_q[5] <= cnt_q[5] + 32'd1;
      if (drop_oversize_i) cnt_q[7] <= cnt_q[7] + 32'd1;
      done_promote_q <= 1'b0;
      if (fin_take) begin
        vq_head_q      <= vq_head_q + 1'b1;
        done_valid_o   <= 1'b1;
        done_reason_o  <= fin_reason;
        done_fwd_o     <= v_fwd;
        done_promote_q <= v_process && c_promote;
      end
      // The verdict counters count the registered verdict (done_*), a cycle after it is taken:
      // the verdict's reason, from the authentication result, then only selects among 24
      // registers' enables from a flip-flop (at cef4004 it was the verify_key stage's critical
      // path: auth_ok_i, the reason, the 24 x 32 counter enables). A register read sees a
      // verdict one cycle later than before.
      if (done_valid_o) begin
        cnt_q[0] <= cnt_q[0] + 32'd1;
        if (done_reason_o != rocesec_pkg::ReasonOk) begin
          cnt_q[8 + done_reason_o] <= cnt_q[8 + done_reason_o] + 32'd1;
        end else begin
          cnt_q[1 + done_fwd_o] <= cnt_q[1 + done_fwd_o] + 32'd1;
          if (done_promote_q) cnt_q[6] <= cnt_q[6] + 32'd1;
        end
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (vq_push) begin
      vq_process_q[vq_tail_q] <= process_q;
      vq_reason_q[vq_tail_q]  <= dec_reason_q;
      vq_fwd_q[vq_tail_q]     <= dec_fwd_q;
      vq_idx_q[vq_tail_q]     <= qp_idx_q;
      vq_pn_q[vq_tail_q]      <= jd_q.sec_pn;
      vq_epoch_q[vq_tail_q]   <= jd_q.sec_epoch;
      vq_promote_q[vq_tail_q] <= promote_q;
      vq_wfirst_q[vq_tail_q]  <= write_first_q;
      vq_rkey_q[vq_tail_q]    <= tag_q.a;
      vq_level_q[vq_tail_q]   <= tag_q.b[5:0];
      vq_index_q[vq_tail_q]   <= tag_q.index;
    end
  end


  // RX QP state: a new QP's entry is allocated when its first frame is decided to be processed
  // (fresh: RxQp::new from the policy); an authenticated frame commits (model: Verifier::verify
  // after crypto::open) as a read-modify-write of the entry's current value.
  logic  qp_we, alloc_we;
  /* verilator lint_off UNUSEDSIGNAL */
  rxqp_t qp_wdata;  // the state fields are written (the identity stays)
  /* verilator lint_on UNUSEDSIGNAL */
  rxqp_t cur_e;
  logic [RdW-1:0] qp_wword;  // the commit's entry state as read: epoch, next, the RAM word
  logic  c_promote;

  assign alloc_we = dec_take && new_process && !sel_qp_found;  // (new_process: see above)
  assign cur_e    = cur_rd;
  assign c_promote = (vq_epoch_q[vq_head_q] != cur_e.epoch);

  // ReplayWindow::update, with the window kept by PN mod 64: bit j holds the PN p in
  // [top - 63, top] with p mod 64 = j (the model's bit i is bit (top - i) mod 64 here). A PN
  // above top by d < 64 clears the d bits after top's (those PNs left the window: top + 1 - 64
  // .. pn - 64) and sets its own; by 64 or more it leaves only its own; at or below top (age
  // < 64: the decision checked it, and the conflict rule kept every frame that could move top
  // by 64 past it waiting) it sets its own. No subtraction and no shift by a difference: two
  // compares (pn > top, pn - 64 >= top) and 6-bit decodes of top mod 64 and pn mod 64.
  always_comb begin
    logic [47:0] pn;
    logic [48:0] pnm;
    logic        gt, far;
    logic [5:0]  t, p;
    logic [63:0] gt_t, le_p, clr, own;
    pn       = vh_pn_q;
    pnm      = vh_pnm_q;
    qp_we    = fin_take && fin_reason == rocesec_pkg::ReasonOk && v_process;
    qp_wdata = cur_e;
    gt       = pn > cur_e.top;
    far      = !pnm[48] && pnm[47:0] >= cur_e.top;
    t        = cur_e.top[5:0];
    p        = pn[5:0];
    for (int j = 0; j < 64; j++) begin
      gt_t[j] = 6'(j) > t;
      le_p[j] = 6'(j) <= p;
      own[j]  = 6'(j) == p;
    end
    clr = (t < p) ? (gt_t & le_p) : (gt_t | le_p);  // (t, p] around the circle
    if (gt) begin
      qp_wdata.bits = (far ? 64'h0 : (cur_e.bits & ~clr)) | own;
      qp_wdata.top  = pn;
    end else begin
      qp_wdata.bits = cur_e.bits | own;
    end
    // epoch promotion (make before break)
    if (c_promote) begin
      qp_wdata.epoch = vq_epoch_q[vq_head_q];
      qp_wdata.next  = 1'b0;
    end
    if (vq_wfirst_q[vq_head_q]) begin
      qp_wdata.cont_valid = 1'b1;
      qp_wdata.cont_rkey  = vq_rkey_q[vq_head_q];
      qp_wdata.cont_level = vq_level_q[vq_head_q];
      qp_wdata.cont_index = vq_index_q[vq_head_q];
    end
  end

  assign qp_wword = {qp_wdata.epoch, qp_wdata.next, qp_wdata.top, qp_wdata.bits,
                     qp_wdata.cont_valid, qp_wdata.cont_rkey, qp_wdata.cont_level,
                     qp_wdata.cont_index};

  // Verdict queue head, registered. The commit is a read-modify-write of the head's entry
  // (vh_word_q, vh_pn_q, vh_pnm_q: registers → the window's two compares → the write), so it
  // does not run through a RAM read (at d30da39 the stage's critical path: the head's index,
  // the read, the compare, the write). The registers load only when the head changes: when it
  // leaves (fin_take) they take the slot after it, or stage J's frame when that is pushed into
  // that slot; when the queue is empty they take a frame pushed into the head slot; else they
  // hold. Both candidates are read every cycle at indices that come from registers (port 1:
  // the entry of the slot after the head, port 2: stage J's entry), with this cycle's commit
  // bypassed in when it writes the same entry, so the verdict (fin_take, qp_we) only selects
  // and enables (session 43; until then the index of the next head was chosen by fin_take and
  // then read: auth_ok_i → fin_take → the slot → the index → the RAM read → the bypass →
  // vh_word_q, 23 cells, the deepest path of the 4a01841 verify top). Holding is exact for
  // every head whose commit can happen (a processed frame): its entry was allocated when the
  // frame was decided, before its push, and from then on only its own
  // commits change it, and a commit needs the frame at the head, where it leaves. For other
  // heads (an unused value) the registers may hold anything.
  logic [VW-1:0] vh_next;   // the slot after the head
  logic [QW-1:0] vh_idx_n;  // its entry
  logic          vh_load;   // the head changes at this edge
  logic          vh_from_j; // ... to stage J's frame, pushed into the new head's slot
  logic [47:0]   vh_pn_n;
  logic [48:0]   vh_pnm_n, vh_pnm_j;
  assign vh_next   = vq_head_q + 1'b1;
  assign vh_idx_n  = vq_idx_q[vh_next];
  assign vh_pn_n   = vq_pn_q[vh_next];
  assign vh_pnm_n  = {1'b0, vh_pn_n} - 49'd64;  // (bit 48 set: PN < 64)
  assign vh_pnm_j  = {1'b0, jd_q.sec_pn} - 49'd64;
  // a push into the head's own slot needs an empty queue (tail = head and room), so no fin_take
  assign vh_load   = fin_take || (vq_push && vq_tail_q == vq_head_q);
  assign vh_from_j = vq_push && (fin_take ? vq_tail_q == vh_next : 1'b1);
  assign rd_idx[1] = vh_idx_n;
  assign rd_idx[2] = qp_idx_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      vh_idx_q  <= '0;
      vh_pn_q   <= '0;
      vh_pnm_q  <= '0;
      vh_word_q <= '0;
    end else if (vh_load) begin
      vh_idx_q  <= vh_from_j ? qp_idx_q    : vh_idx_n;
      vh_word_q <= vh_from_j ? rd_word[2]  : rd_word[1];
      vh_pn_q   <= vh_from_j ? jd_q.sec_pn : vh_pn_n;
      vh_pnm_q  <= vh_from_j ? vh_pnm_j    : vh_pnm_n;
    end
  end

  // Reclaiming fresh entries. An entry no frame has committed to (fresh) holds no state: every
  // decision for it is RxQp::new of the policy, as for a QP not in the table. So once no frame
  // refers to it, it is freed, and a forged or corrupted first frame does not keep its entry
  // (else NumQps forged frames naming as many QPs would fill the table and every new QP after
  // them would get unknown-key). The frames that refer to an entry: the one in stage J and
  // those in the verdict queue that are processed (their commit writes it), and the header in
  // stage D whose identity matched it (D2 may decide with it). The entry is freed in the cycle
  // after the last of them leaves: a frame decided into J is in J in the cycle after its
  // decision, and moves from J to the queue in one edge. Freeing changes no verdict but a full
  // table's unknown-key: a freed entry and a fresh one decide alike, and a free entry only adds
  // room. The header entering D as an entry is freed does not match it (rocesec_qp_ident). A
  // released entry ("QP release") is freed likewise, committed or not, once the frames decided
  // before its release have left (no header matches it after the release, so only stage J and
  // the queue can refer to it). From registers only.
  always_comb begin
    pend_v = '0;
    if (state_q != StIdle && process_q) pend_v[qp_idx_q] = 1'b1;
    for (int j = 0; j < VqDepth; j++) begin
      if (vq_v_q[j] && vq_process_q[j]) pend_v[vq_idx_q[j]] = 1'b1;
    end
  end

  always_comb begin
    logic [NumQps-1:0] refd;
    refd = pend_v;
    if (d_valid_q && r_found) refd[match_idx] = 1'b1;
    qp_free = qp_valid_v & (qp_fresh_v | qp_rel_v) & ~refd;
  end

  // An entry's identity (valid, dest GID, dest QPN; rocesec_qp_ident) is set by its
  // allocation (until then a free entry's identity follows the frame in D, and its epoch, next
  // and fresh bit RxQp::new from D1's policy registers); its state
  // (epoch, next, replay window, continuation key) by the allocation (RxQp::new) and by every
  // commit. Allocation and commit never address the same entry in one cycle (a free one, a
  // valid one). The replay window and continuation key live in a RAM written by commits only
  // and read asynchronously at three indices (D1's match; the slot after the verdict queue's
  // head and stage J's entry, the candidates for the head's registers): an FPGA maps it to
  // distributed RAM (TRELLIS_DPR16X4 on the ECP5), one copy per read port.
  // An allocation sets the entry's fresh bit instead of writing the RAM, and its first commit
  // clears it. The RAM has no reset: a word is read only after a commit wrote it.
  always_ff @(posedge clk_i) begin
    if (qp_we) begin
      st_mem[v_idx] <= {qp_wdata.top, qp_wdata.bits, qp_wdata.cont_valid, qp_wdata.cont_rkey,
                        qp_wdata.cont_level, qp_wdata.cont_index};
    end
  end

  for (genvar q = 0; q < NumQps; q++) begin : gen_qp
    logic         next_q, fresh_q;
    logic [7:0]   epoch_q;
    logic         wr_commit, follow;
    assign wr_commit = qp_we && v_idx == q[QW-1:0];
    // a free entry, or an allocated one still fresh whose QP's frame is in D2 while no decided
    // frame will commit to it (so its first commit finds the policy that frame's decision
    // used). A fresh entry with a pending commit keeps the policy of the decision that made
    // the commit pending: a policy write while that frame waits for its verdict must not
    // move it (model: the frame committed before the write).
    assign follow    = !qp_valid_v[q] ||
                       (fresh_q && !pend_v[q] && p1_found_q && p1_match_idx_q == q[QW-1:0]);
    // A free entry (not allocated: never committed, and a read of it is never used: sel_st is
    // replaced when D1 found no entry, the commit and the promotion count need a processed
    // frame) takes RxQp::new from D1's policy registers (p1_epoch_q, p1_next_q) in every cycle,
    // so the allocation's cycle writes the same values as before without an enable from the
    // decision.
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        epoch_q <= '0;
        next_q  <= 1'b0;
        fresh_q <= 1'b1;
      end else if (wr_commit) begin
        epoch_q <= qp_wdata.epoch;
        next_q  <= qp_wdata.next;
        fresh_q <= 1'b0;
      end else if (follow) begin  // RxQp::new(policy)
        epoch_q <= p1_epoch_q;
        next_q  <= p1_next_q;
        fresh_q <= 1'b1;
      end
    end
    assign qp_epoch_v[q] = epoch_q;
    assign qp_next_v[q]  = next_q;
    assign qp_fresh_v[q] = fresh_q;
  end

  logic unused_sig;
  assign unused_sig = ^{qp_found_q, reg_addr_i[1:0], promote_q};

endmodule
