// SPDX-License-Identifier: Apache-2.0
//
// rocesec_qp_ident: stage `key`, the identities of the QP state table shared by both key stages
// (rocesec_protect_key: model/src/engine.rs Protector's TX QP map; rocesec_verify_key: the
// Verifier's RX QP map). An entry is allocated by the frame that first needs it; its state
// lives in the key stage. The key stage may free an entry (free_i; rocesec_verify_key frees an
// RX entry no frame has committed to once no frame refers to it, so forged frames do not fill
// the table, and a released one, rel_i, once the frames decided before its release have left);
// a full table gives the verdict unknown-key (a hardware limit).
//
// Data format
// -----------
// Identity of an entry: (dest GID 128 bits, dest QPN 24 bits), valid bit. Indices QW bits.
// Timing (stage D of the key stages, docs/rtl/tops.md): the match of a header against every
// entry is computed as the header enters stage D (load_i, from ld_*_i) and registered, so that
// stage D1, the next cycle, only ORs the matching index and picks the lowest free entry. An
// allocation in the cycle of the load (the frame before commits as this one enters) is not yet
// in the table the load compared against; its one-hot index is registered with the result of
// comparing the entering identity to the allocated one (cur_*_i), and D1 adds it. While the
// header stays in D no allocation happens (an allocation is D2's commit of the frame in D), so
// the registered match stays valid for D1 run again (after a policy write).
// A free of entry q (free_i[q]: q valid, not the frame in D's match unless that frame enters D
// in this cycle) clears its valid bit and its bit of the registered match, so a header entering
// D as q is freed does not match it.
// A release (rel_i, a cycle without a load: ld_*_i then carry the identity to release) marks the
// entry that matches it as released (rel_o): from the next cycle on no header matches it, and
// its bit of the registered match is cleared, so the header in D looks up again and finds no
// entry (the key stage makes D1 run again). The entry stays allocated, its identity and state
// kept for the frames decided before the release, until the key stage frees it (free_i). So
// two entries may hold one identity, but at most one of them is not released, and only that
// one matches.
// At most one entry matches (an identity is allocated only when not found): the matching
// index is the OR of the matching indices.

`resetall
`default_nettype none

module rocesec_qp_ident
#(
  parameter int unsigned NumQps = 16
) (
  input  wire logic              clk_i,
  input  wire logic              rst_ni,

  // Header entering stage D this cycle and its identity
  input  wire logic              load_i,
  input  wire logic [127:0]      ld_gid_i,
  input  wire logic [23:0]       ld_qpn_i,

  // Allocation of entry alloc_idx_i for the frame in stage D (identity cur_*_i, written into
  // every free entry in every cycle)
  input  wire logic              alloc_i,
  input  wire logic [$clog2(NumQps)-1:0] alloc_idx_i,
  input  wire logic [127:0]      cur_gid_i,
  input  wire logic [23:0]       cur_qpn_i,

  // Entries freed this cycle (each valid and not allocated in this cycle)
  input  wire logic [NumQps-1:0] free_i,

  // Release lookup this cycle (load_i low): the entry matching ld_*_i is released
  input  wire logic              rel_i,

  // Stage D1 lookups of the frame in D (combinational from registers)
  output logic                   found_o,
  output logic      [$clog2(NumQps)-1:0] match_idx_o,
  output logic                   free_found_o,
  output logic      [$clog2(NumQps)-1:0] free_idx_o,

  // Allocated entries (registers; a free entry's state may be written freely) and the released
  // ones among them (registers)
  output logic      [NumQps-1:0] valid_o,
  output logic      [NumQps-1:0] rel_o
);

  localparam int unsigned QW = $clog2(NumQps);

  logic [NumQps-1:0] valid_v;
  logic [NumQps-1:0] rel_v;
  logic [NumQps-1:0] rel_hit;        // the entry released in this cycle (rel_i)
  logic [NumQps-1:0] ld_match;       // the entering identity vs the table (load cycle)
  logic [NumQps-1:0] match_q;        // registered at load
  logic [NumQps-1:0] alloc_hot_q;    // allocation of the cycle before (one-hot)
  logic              same_q;         // entering identity == the identity allocated with it
  logic [NumQps-1:0] match;          // D1: match of the frame in D against the current table

  // A free entry's identity is not used (its one reader, ld_match, is gated by the valid bit),
  // so every free entry takes the identity of the frame in D in every cycle, and an allocation
  // sets only the valid bit: the allocation (a decision, late in its cycle) enables one
  // flip-flop per entry, not 153. In the allocation's cycle the identity written is cur_*_i, as
  // before. This relies on alloc_i naming a free entry (both key stages allocate only the
  // entry of free_idx_o when nothing matched): an allocation of a valid entry would keep its
  // old identity.
  for (genvar q = 0; q < NumQps; q++) begin : gen_qp
    logic         valid_q, rel_q;
    logic [127:0] gid_q;
    logic [23:0]  qpn_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        valid_q <= 1'b0;
        rel_q   <= 1'b0;
      end else if (alloc_i && alloc_idx_i == q[QW-1:0]) begin
        valid_q <= 1'b1;
        rel_q   <= 1'b0;
      end else if (free_i[q]) begin
        valid_q <= 1'b0;
        rel_q   <= 1'b0;
      end else if (rel_hit[q]) begin
        rel_q   <= 1'b1;
      end
    end
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        gid_q <= '0;
        qpn_q <= '0;
      end else if (!valid_q) begin
        gid_q <= cur_gid_i;
        qpn_q <= cur_qpn_i;
      end
    end
    assign valid_v[q]  = valid_q;
    assign rel_v[q]    = rel_q;
    assign ld_match[q] = valid_q && !rel_q && gid_q == ld_gid_i && qpn_q == ld_qpn_i;
  end

  assign valid_o = valid_v;
  assign rel_o   = rel_v;
  assign rel_hit = rel_i ? ld_match : '0;
  assign match = match_q | (alloc_hot_q & {NumQps{same_q}});

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      match_q     <= '0;
      alloc_hot_q <= '0;
      same_q      <= 1'b0;
    end else begin
      alloc_hot_q <= '0;
      if (alloc_i) alloc_hot_q[alloc_idx_i] <= 1'b1;
      if (load_i) begin
        match_q <= ld_match & ~free_i;
        same_q  <= ld_gid_i == cur_gid_i && ld_qpn_i == cur_qpn_i;
      end else begin
        // fold in the allocation of the load cycle (once: none follow); drop a released entry
        match_q <= match & ~free_i & ~rel_hit;
      end
    end
  end

  always_comb begin
    free_idx_o   = '0;
    free_found_o = 1'b0;
    for (int q = NumQps - 1; q >= 0; q--) begin
      if (!valid_v[q]) begin
        free_idx_o   = q[QW-1:0];
        free_found_o = 1'b1;
      end
    end
    found_o     = |match;
    match_idx_o = '0;
    for (int q = 0; q < NumQps; q++) begin
      if (match[q]) match_idx_o = match_idx_o | q[QW-1:0];
    end
  end

endmodule
