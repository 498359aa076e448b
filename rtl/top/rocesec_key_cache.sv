// SPDX-License-Identifier: Apache-2.0
//
// rocesec_key_cache: stage `key`, the derived-key cache and KDF shared by both tops — the
// data-plane half of model/src/keys.rs KeyStore::key: K_qp, K_mr and K_node are derived on a miss
// with SP 800-108r1 KBKDF in counter mode, PRF = AES-CMAC (SP 800-38B), on kdf_cmac (one
// iterative AES), and the GCM hash subkey H = E_K(0^128) (SP 800-38D §6.4) of the packet key is
// computed once per cached key by a raw-encryption request to the same kdf_cmac.
//
// Data format
// -----------
// req_tag_i (rocesec_pkg::key_tag_t) names the key; req_pdkey_i is K_pd of (tag.pd, tag.epoch).
// KDF messages (Label ‖ 0x00 ‖ Context; kdf_cmac adds [i]_32 and [L]_32 = [128]_32), as
// docs/key-hierarchy.md and model keys::{qp_key, mr_key, node_key}:
//   K_qp   = KDF(K_pd, "rocesec qp",     GID(16) ‖ QPN(3) ‖ salt(3))        33 bytes
//   K_mr   = KDF(K_pd, "rocesec mr",     GID(16) ‖ rkey(4))                 31 bytes
//   K_node = KDF(K_mr, "rocesec region", level(1) ‖ index(8))               24 bytes
// Keys and H are 128-bit blocks, byte 0 in the top bits.
//
// Timing
// ------
// A hit answers in the cycle of the request (rsp_valid_o combinational from req_valid_i and the
// hit); the tag was compared in the cycle before (pre_tag_i, registered; see "Lookup one cycle
// early" below). A miss runs 1 (QP key) or 2 (node key, MR key missing) derivations plus one
// encryption, each on kdf_cmac (about 35 cycles per AES block plus the CMAC subkey block for a new
// parent key), then answers with rsp_valid_o from a register; the new key (and an MR key on the
// way) is inserted round robin. A node key whose MR key is cached spends one cycle reading it
// (StMrLoad) before its derivation. In both cases rsp_key_o and rsp_h_o hold the key and H from the
// cycle after rsp_valid_o until the next request: on a hit they are read from the entries at the
// registered hit vector, so the tag compare and the 8-to-1 read of 256 bits never share a cycle
// (session 12: together they limited the cache to 55.8 MHz). The derivation's key material (parent
// keys, the new key and H) is cleared at the next request.
//
// Flush
// -----
// flush_i (a PD slot write) clears every valid bit and the round-robin pointer in the next edge.
// A derivation that is running (or starts) in a flush cycle still answers its requester, which
// asked before the write, but inserts nothing: its K_pd may be the old one, and a stale key must
// not be cached under a tag the new K_pd now owns. So does a derivation that starts in the cycle
// after a flush: the key stages read K_pd at their decision and request one cycle later, so its
// K_pd may predate the write (found in review, session 9; key_cache.rs
// flush_just_before_a_request_caches_nothing). A flush in the cycle of an insertion wins.
// Entries hold their tag and key bits until overwritten; only the valid bits are flushed, so
// the entries need no clear logic. A reset zeroes the tags and, over the NumCache cycles after
// it, the key and H RAMs (common_zero_ram below).
//
// Structure
// ---------
// The tags of distinct valid entries differ (an entry is inserted only after its tag missed), so
// the hit vector is one-hot and the key/H are read from RAMs at its index. The PD, epoch, GID
// and rkey/QPN fields are compared once per entry for both lookups (packet key and, for a node
// key, its MR key); an MR entry is recognised by its type (its level and index are zero).
//
// Lookup one cycle early
// ----------------------
// Every cycle the entries are compared with pre_tag_i and the hit vectors registered
// (pre_hit_v_q, pre_mr_hit_v_q, with the valid bits of that cycle). A request uses them instead
// of comparing req_tag_i, so the compare and the answer (rsp_valid_o, the requester's enables
// behind it) no longer share a cycle (session 38: tag register -> 8-entry compare -> rsp_valid_o
// -> the verify key stage's enables was that stage's critical path). The requester's contract:
// a request's req_tag_i is the pre_tag_i of the cycle before its first cycle (both key stages
// present the tag they register at the decision, dec_tag, and request in the next cycle). The
// answer is then the same as the compare in the request cycle would give: a hit is looked up
// only in StIdle, and StIdle follows StIdle or StRsp, so no insertion (StMrWait/StHWait) happened
// in the cycle before and the entries' tags are unchanged; their valid bits can only have been
// cleared by a flush in that cycle, which flush_q masks. The block test
// (cosim/tests/key_cache.rs) announces every request so.
//
// Round keys
// ----------
// The data path's AES (aes_cipher_pipe_rk in rocesec_ctr) reads round keys 1..10 from RAMs of
// NumRk slots instead of expanding the key next to every block. The cache fills them: while
// kdf_cmac computes H = E_K(0^128) its iterative AES applies round keys 1..10 of K, one every
// 3 cycles, and each goes out on rk_we_o / rk_slot_o / rk_round_o / rk_data_o (registered) to
// slot rk_next_q, which then advances (round robin, whether or not the key is inserted).
// rsp_rk_o names the slot of the answered key: the entry's on a hit, the new slot after a miss.
// A slot is overwritten only NumRk derivations later. A job past the lookup still reads it only
// while it is in the key stage or the emit's job table, and the lookup stage decides one header
// at a time, so few derivations can follow its use: a hit needs the entry valid, so at most
// NumCache - 1 derivations since the slot's (a flush in between clears the entry; a derivation
// dropped by a flush follows the flush), and while the job is in flight at most one per frame
// behind it: the emit's job table (8 at LANES = 1, 32 at LANES = 4), the key stage's verdict queue
// (as many) and stages D and J. With 128 slots: 7 + 32 + 32 + 2 < 128
// (docs/rtl/tops.md, "Round-key RAMs").

`resetall
`default_nettype none

module rocesec_key_cache
#(
  parameter int unsigned NumCache = 8,  // entries (QP, MR and node keys), power of two
  parameter int unsigned NumRk    = 128  // round-key slots of the data path (power of two)
) (
  input  wire logic                  clk_i,
  input  wire logic                  rst_ni,

  // Request (held until rsp_valid_o)
  input  wire logic                  req_valid_i,
  input  wire rocesec_pkg::key_tag_t req_tag_i,
  input  wire logic [127:0]          req_pdkey_i,

  // Lookup one cycle early: the tag of a request that may come in the next cycle
  input  wire rocesec_pkg::key_tag_t pre_tag_i,

  // Response
  output logic                       rsp_valid_o,
  output logic      [127:0]          rsp_key_o,
  output logic      [127:0]          rsp_h_o,
  output logic      [$clog2(NumRk)-1:0] rsp_rk_o,  // round-key slot of rsp_key_o

  // Round keys 1..10 of each derived packet key, to the data path's round-key RAMs
  output logic                       rk_we_o,
  output logic      [$clog2(NumRk)-1:0] rk_slot_o,
  output logic      [3:0]            rk_round_o,
  output logic      [127:0]          rk_data_o,

  input  wire logic                  flush_i,
  output logic                       busy_o      // a derivation is running
);

  localparam int unsigned CW  = $clog2(NumCache);
  localparam int unsigned RW  = $clog2(NumRk);

`ifdef VERILATOR
  if ($bits(rocesec_pkg::key_tag_t) != rocesec_pkg::KeyTagBits) begin : gen_width_check
    $error("rocesec_key_cache: KeyTagBits does not match key_tag_t (instance %m)");
  end
`endif

  /////////////
  // Signals //
  /////////////

  typedef enum logic [3:0] {
    StIdle, StMrLoad, StMrReq, StMrWait, StKeyReq, StKeyWait, StHReq, StHWait, StRsp
  } state_e;

  state_e                 state_q;
  rocesec_pkg::key_tag_t  tag_q, mr_tag;
  logic [127:0]           pkey_q, mkey_q, key_q, h_q;
  logic [CW-1:0]          next_q;
  logic [NumCache-1:0]    valid_q, hit_v, mr_hit_v;
  logic [NumCache-1:0]    pre_hit_v, pre_mr_hit_v;   // pre_tag_i compared in this cycle
  logic [NumCache-1:0]    pre_hit_v_q, pre_mr_hit_v_q;  // pre_tag_i of the cycle before
  logic [NumCache-1:0]    hit_v_q, mr_hit_v_q;   // of the last request (StIdle)
  logic                   from_hit_q;            // the last response was a hit
  logic                   drop_q;
  logic                   flush_q;  // flush_i in the previous cycle
  logic                   hit, mr_hit;
  logic [127:0]           hit_key, hit_h, mr_key;
  logic [RW-1:0]          rk_next_q;             // slot of the next derivation's round keys
  logic [RW-1:0]          rk_miss_q;             // slot of the last miss's key
  logic [RW-1:0]          rk_e_q [NumCache];     // slot of each entry's key
  logic [RW-1:0]          hit_rk;

  ////////////
  // Lookup //
  ////////////

  // In StIdle the request tag is compared directly (hit answered at once). mr_tag is the tag of
  // the MR key a node key of tag_q is derived from.
  always_comb begin
    mr_tag       = tag_q;
    mr_tag.typ   = rocesec_pkg::KtMr;
    mr_tag.b     = '0;
    mr_tag.index = '0;
  end

  // Read of the hit entry and of the MR entry, at the hit vectors registered in the request
  // cycle. The entries do not change until the next request: only a miss inserts, and a flush
  // clears the valid bits alone. The key is read through one port for both: the hit's key is
  // used only after a hit (from_hit_q), the MR key only in StMrLoad, after a miss, when
  // hit_v_q is zero; so the read vector is the hit's after a hit and the MR entry's else (one
  // 128-bit 8-to-1 read fewer, session 15).
  // The vectors are one-hot or zero, so their index is an OR of entry numbers; the key and H
  // are read from the entry RAMs at those indices (session 32: the RAMs replaced 2 x 8 x 128
  // registers and their 8-to-1 AND-OR). An index of a zero vector reads some entry, but then
  // nothing uses the data: rsp_key_o / rsp_h_o show hit_key / hit_h only after a hit
  // (from_hit_q, hit_v_q one-hot), mkey_q loads mr_key only in StMrLoad (mr_hit_v_q one-hot).
  logic [NumCache-1:0] key_rd_v;
  logic [CW-1:0]       key_rd_idx, h_rd_idx;
  assign key_rd_v = hit_v_q | (mr_hit_v_q & {NumCache{!from_hit_q}});

  always_comb begin
    key_rd_idx = '0;
    h_rd_idx   = '0;
    for (int c = 0; c < NumCache; c++) begin
      key_rd_idx = key_rd_idx | ({CW{key_rd_v[c]}} & c[CW-1:0]);
      h_rd_idx   = h_rd_idx   | ({CW{hit_v_q[c]}}  & c[CW-1:0]);
    end
  end
  assign mr_key = hit_key;

  // The hit vectors: the compare registered in the cycle before, with the valid bits a flush in
  // that cycle cleared masked out (no insertion can have come then, see "Lookup one cycle
  // early").
  assign hit_v    = pre_hit_v_q & {NumCache{!flush_q}};
  assign mr_hit_v = pre_mr_hit_v_q & {NumCache{!flush_q}};
  assign hit      = |hit_v;
  assign mr_hit   = |mr_hit_v;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pre_hit_v_q    <= '0;
      pre_mr_hit_v_q <= '0;
    end else begin
      pre_hit_v_q    <= pre_hit_v;
      pre_mr_hit_v_q <= pre_mr_hit_v;
    end
  end

  /////////
  // KDF //
  /////////

  logic         kdf_req_valid, kdf_req_ready, kdf_enc;
  logic [127:0] kdf_key;
  logic [383:0] kdf_msg;
  logic [5:0]   kdf_len;
  logic         kdf_rsp_valid;
  logic [255:0] kdf_rsp;
  logic         enc_rk_valid;
  logic [3:0]   enc_rk_round;
  logic [127:0] enc_rk;

  always_comb begin
    kdf_req_valid = 1'b0;
    kdf_enc       = 1'b0;
    kdf_key       = pkey_q;
    kdf_msg       = {80'("rocesec qp"), 8'h00, tag_q.gid, tag_q.a[23:0], tag_q.b, 120'h0};
    kdf_len       = 6'd33;
    unique case (state_q)
      StMrReq: begin
        kdf_req_valid = 1'b1;
        kdf_msg       = {80'("rocesec mr"), 8'h00, tag_q.gid, tag_q.a, 136'h0};
        kdf_len       = 6'd31;
      end
      StKeyReq: begin
        kdf_req_valid = 1'b1;
        if (tag_q.typ == rocesec_pkg::KtNode) begin
          kdf_key = mkey_q;
          kdf_msg = {112'("rocesec region"), 8'h00, 2'b00, tag_q.b[5:0], tag_q.index, 192'h0};
          kdf_len = 6'd24;
        end
      end
      StHReq: begin
        kdf_req_valid = 1'b1;
        kdf_enc       = 1'b1;
        kdf_key       = key_q;
        kdf_msg       = '0;
        kdf_len       = 6'd16;
      end
      default: ;
    endcase
  end

  kdf_cmac #(
    .KeyLen      (128),
    .MaxMsgBytes (48)
  ) u_kdf (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .req_valid_i   (kdf_req_valid),
    .req_ready_o   (kdf_req_ready),
    .req_key_i     (kdf_key),
    .req_kdf_i     (1'b1),
    .req_enc_i     (kdf_enc),
    .req_out256_i  (1'b0),
    .req_msg_i     (kdf_msg),
    .req_msg_len_i (kdf_len),
    .rsp_valid_o   (kdf_rsp_valid),
    .rsp_key_o     (kdf_rsp),
    .enc_rk_valid_o (enc_rk_valid),
    .enc_rk_round_o (enc_rk_round),
    .enc_rk_o       (enc_rk)
  );

  // Round keys of the H computation (the only encryption request) to slot rk_next_q.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rk_we_o    <= 1'b0;
      rk_slot_o  <= '0;
      rk_round_o <= '0;
      rk_data_o  <= '0;
    end else begin
      rk_we_o    <= enc_rk_valid;
      rk_slot_o  <= rk_next_q;
      rk_round_o <= enc_rk_round;
      rk_data_o  <= enc_rk_valid ? enc_rk : 128'h0;
    end
  end

  /////////////
  // Control //
  /////////////

  assign busy_o      = (state_q != StIdle) && (state_q != StRsp);
  assign rsp_valid_o = (state_q == StIdle && req_valid_i && hit) || (state_q == StRsp);
  assign rsp_key_o   = from_hit_q ? hit_key : key_q;
  assign rsp_h_o     = from_hit_q ? hit_h : h_q;
  assign rsp_rk_o    = from_hit_q ? hit_rk : rk_miss_q;
  assign hit_rk      = rk_e_q[h_rd_idx];

  // cache insertion (MR key after its derivation, packet key after its H), unless a flush came
  // during the derivation (drop_q) or comes now
  logic                  kc_ins, kc_we;
  rocesec_pkg::key_tag_t kc_wtag;
  logic [127:0]          kc_wkey, kc_wh;

  always_comb begin
    kc_ins  = 1'b0;
    kc_wtag = tag_q;
    kc_wkey = key_q;
    kc_wh   = kdf_rsp[255:128];
    if (state_q == StMrWait && kdf_rsp_valid) begin
      kc_ins  = 1'b1;
      kc_wtag = mr_tag;
      kc_wkey = kdf_rsp[255:128];
      kc_wh   = '0;
    end else if (state_q == StHWait && kdf_rsp_valid) begin
      kc_ins = 1'b1;
    end
  end

  assign kc_we = kc_ins && !drop_q && !flush_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
      tag_q   <= '0;
      pkey_q  <= '0;
      mkey_q  <= '0;
      key_q   <= '0;
      h_q     <= '0;
      next_q  <= '0;
      drop_q  <= 1'b0;
      flush_q <= 1'b0;
      hit_v_q    <= '0;
      mr_hit_v_q <= '0;
      from_hit_q <= 1'b0;
      rk_next_q  <= '0;
      rk_miss_q  <= '0;
    end else begin
      flush_q <= flush_i;
      if (flush_i) begin
        next_q <= '0;
      end else if (kc_we) begin
        next_q <= next_q + 1'b1;
      end
      if ((flush_i && (state_q != StIdle || (req_valid_i && !hit))) ||
          (flush_q && state_q == StIdle && req_valid_i && !hit)) begin
        drop_q <= 1'b1;
      end else if (state_q == StRsp) begin
        drop_q <= 1'b0;
      end
      unique case (state_q)
        StIdle: begin
          if (req_valid_i) begin
            // a new request: the last response's key material goes
            hit_v_q    <= hit_v;
            mr_hit_v_q <= mr_hit_v;
            from_hit_q <= hit;
            key_q      <= '0;
            h_q        <= '0;
          end
          // the tag and K_pd are taken whether the request hits or not, so the tag compare
          // does not drive their 474 enables (it was the cache's critical path, session 12);
          // K_pd is zeroed again in the next idle cycle without a request
          tag_q  <= req_tag_i;
          pkey_q <= req_valid_i ? req_pdkey_i : 128'h0;
          if (req_valid_i && !hit) begin
            if (req_tag_i.typ == rocesec_pkg::KtNode && mr_hit) begin
              state_q <= StMrLoad;
            end else if (req_tag_i.typ == rocesec_pkg::KtNode) begin
              state_q <= StMrReq;
            end else begin
              state_q <= StKeyReq;
            end
          end
        end
        StMrLoad: begin
          mkey_q  <= mr_key;
          state_q <= StKeyReq;
        end
        StMrReq:  if (kdf_req_ready) state_q <= StMrWait;
        StMrWait: begin
          if (kdf_rsp_valid) begin
            mkey_q  <= kdf_rsp[255:128];
            state_q <= StKeyReq;
          end
        end
        StKeyReq: if (kdf_req_ready) state_q <= StKeyWait;
        StKeyWait: begin
          if (kdf_rsp_valid) begin
            key_q   <= kdf_rsp[255:128];
            state_q <= StHReq;
          end
        end
        StHReq:   if (kdf_req_ready) state_q <= StHWait;
        StHWait: begin
          if (kdf_rsp_valid) begin
            h_q       <= kdf_rsp[255:128];
            rk_miss_q <= rk_next_q;
            rk_next_q <= rk_next_q + 1'b1;
            state_q   <= StRsp;
          end
        end
        StRsp: begin
          // the requester reads key_q/h_q from the next cycle; clear the parent keys
          pkey_q  <= '0;
          mkey_q  <= '0;
          state_q <= StIdle;
        end
        default: state_q <= StIdle;
      endcase
    end
  end

  //////////////////
  // Cache memory //
  //////////////////

  // PD, epoch, GID and a (QPN / rkey) of a request, compared once per entry for both lookups
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [199:0] tag_base(rocesec_pkg::key_tag_t t);
    tag_base = {t.pd, t.epoch, t.gid, t.a};
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // Keys and H of the entries: two RAMs of NumCache x 128 bits (common_zero_ram: one write
  // port, one asynchronous read port, distributed RAM, no reset). A reset marks every entry,
  // and the RAM writes zeros to the marked entries in the cycles after it, as the reset of the
  // registers they replace did: key material does not outlive a reset even where no port can
  // read it (every read needs a valid bit, and the reset clears those at once). An insertion
  // takes the write port first and clears its entry's mark, so a cached key is never zeroed
  // (after a reset the first insertion comes a derivation, more than 30 cycles, later).
  common_zero_ram #(
    .Width (128),
    .Depth (NumCache)
  ) u_key_ram (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .we_i    (kc_we),
    .waddr_i (next_q),
    .wdata_i (kc_wkey),
    .zero_i  ('0),
    .raddr_i (key_rd_idx),
    .rdata_o (hit_key)
  );

  common_zero_ram #(
    .Width (128),
    .Depth (NumCache)
  ) u_h_ram (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .we_i    (kc_we),
    .waddr_i (next_q),
    .wdata_i (kc_wh),
    .zero_i  ('0),
    .raddr_i (h_rd_idx),
    .rdata_o (hit_h)
  );

  for (genvar c = 0; c < NumCache; c++) begin : gen_kc
    rocesec_pkg::key_tag_t tag;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        valid_q[c] <= 1'b0;
      end else if (flush_i) begin
        valid_q[c] <= 1'b0;
      end else if (kc_we && next_q == c[CW-1:0]) begin
        valid_q[c] <= 1'b1;
      end
    end
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        tag       <= '0;
        rk_e_q[c] <= '0;
      end else if (kc_we && next_q == c[CW-1:0]) begin
        tag       <= kc_wtag;
        rk_e_q[c] <= rk_next_q;  // an MR entry's slot is not read
      end
    end
    logic pre_base_eq;
    assign pre_base_eq     = tag_base(tag) == tag_base(pre_tag_i);
    assign pre_hit_v[c]    = valid_q[c] && pre_base_eq && tag.typ == pre_tag_i.typ &&
                             tag.b == pre_tag_i.b && tag.index == pre_tag_i.index;
    assign pre_mr_hit_v[c] = valid_q[c] && pre_base_eq && tag.typ == rocesec_pkg::KtMr;
  end

  logic unused_sig;
  assign unused_sig = ^{kdf_rsp[127:0]};

endmodule
