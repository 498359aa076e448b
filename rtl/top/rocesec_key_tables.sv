// SPDX-License-Identifier: Apache-2.0
//
// rocesec_key_tables: stage `key`, the control-plane tables shared by both tops — the QP policy
// table (model/src/keys.rs KeyStore::policy: default policy + entries keyed by dest GID and
// QPN) and the PD key slots (K_pd per protection domain and epoch, written by the control plane
// after HKDF-SHA256, model keys::pd_key).
//
// Data format
// -----------
// Register writes (reg_we_i, 32-bit words, byte addresses, docs/rtl/tops.md):
//   0x0000 + 4w            default policy, policy-entry layout (w0, w2, w3)
//   0x0100 + 0x20 i + 4w   policy i: w0 = {valid[31], next_epoch[26], mode[25:24], epoch[23:16]},
//                          w1 = QPN[23:0], w2 = PD, w3 = generation[23:0], w4..w7 = dest GID
//                          bytes 0-15 (big-endian words)
//   0x0400 + 0x20 j + 4w   PD key slot j: w0 = {valid[31], epoch[7:0]}, w2 = PD, w4..w7 = K_pd
//                          bytes 0-15 (FIPS 197 byte order, byte 0 in the top bits)
// next_epoch (RX only): epoch+1 is installed (model QpPolicy::next_epoch).
// Policy lookup: the first valid matching policy entry (lowest index) else the default. The
// match of every entry is registered (pol_match_q): it is computed from pol_ld_*_i in the cycle
// pol_load_i is high (the header entering stage D), and the entry's fields are selected from the
// registers the cycle after. A register write to the policy or PD slot region makes the lookups
// stale for that cycle and the next (tbl_stale_o): the caller looks up again, and in the cycle
// after the write, if a header is held (pol_hold_i), the match is computed again from pol_*_i
// (the header in D) against the written table. Otherwise the match holds: the table and the
// header in D are unchanged (after a write while no header is held the match is stale until
// the next load; the callers use the lookups only while they hold a header). The compare's
// operands are thus selected by registers only (pol_hold_i, the write of the cycle before),
// not by pol_load_i, which a caller decides late in its cycle: pol_load_i only enables
// pol_match_q. This needs the caller not to load while
// it holds a header in the cycle after a write; both key stages satisfy it, since their
// decision needs stage D1 results that were not stale in the cycle before.
// PD slot lookup in two steps. With the policy (stage D1): pd_match_o, the slots whose PD equals
// the selected policy's and whose epoch equals the policy's (EpochFromPolicy, TX) or pd_epoch_i
// (RX: the packet's), from per-policy slot matches registered every cycle (so D1 holds no PD
// compare). The caller registers pd_match_o and returns it as pd_sel_i (stage D2): pd_hit_o and
// the key of the lowest-index selected slot.
// pd_write_o pulses with every write into the PD slot region (the derived-key cache flushes).

`resetall
`default_nettype none

module rocesec_key_tables
#(
  parameter int unsigned NumPolicies = 8,  // policy entries besides the default
  parameter int unsigned NumPdSlots  = 4,  // PD key slots
  parameter bit          EpochFromPolicy = 1'b1  // slot epoch = the policy's (TX), else pd_epoch_i
) (
  input  wire logic                  clk_i,
  input  wire logic                  rst_ni,

  // Register write port
  input  wire logic                  reg_we_i,
  input  wire logic [15:0]           reg_addr_i,
  input  wire logic [31:0]           reg_wdata_i,
  output logic                       pd_write_o,

  // Policy lookup by (dest GID, dest QPN): of the entering header (pol_load_i) or, after a
  // table write, of the header held (pol_hold_i); the fields follow one cycle later
  input  wire logic                  pol_load_i,
  input  wire logic                  pol_hold_i,
  input  wire logic [127:0]          pol_ld_gid_i,
  input  wire logic [23:0]           pol_ld_qpn_i,
  input  wire logic [127:0]          pol_gid_i,
  input  wire logic [23:0]           pol_qpn_i,
  output logic                       tbl_stale_o,
  output logic      [1:0]            pol_mode_o,
  output logic      [7:0]            pol_epoch_o,
  output logic                       pol_next_o,
  output logic      [31:0]           pol_pd_o,
  output logic      [23:0]           pol_gen_o,

  // PD key slot lookup by (PD, epoch): the slots matching the selected policy (with the
  // policy lookup, from the registered match), then the key of the registered selection
  input  wire logic [7:0]            pd_epoch_i,
  output logic      [NumPdSlots-1:0] pd_match_o,
  input  wire logic [NumPdSlots-1:0] pd_sel_i,
  output logic                       pd_hit_o,
  output logic      [127:0]          pd_key_o
);

  /////////////
  // Signals //
  /////////////

  typedef struct packed {
    logic         valid;
    logic         next;
    logic [1:0]   mode;
    logic [7:0]   epoch;
    logic [23:0]  qpn;
    logic [31:0]  pd;
    logic [23:0]  gen;
    logic [127:0] gid;
  } policy_t;

  typedef struct packed {
    logic         valid;
    logic [7:0]   epoch;
    logic [31:0]  pd;
    logic [127:0] key;
  } pdslot_t;

  localparam int unsigned PolW = 1 + 1 + 2 + 8 + 24 + 32 + 24 + 128;
  localparam int unsigned PdW  = 1 + 8 + 32 + 128;

  // Tables: one register per entry (generate blocks), read through flat arrays.
  logic [PolW-1:0]        pol_flat [NumPolicies];
  logic [PdW-1:0]         pds_flat [NumPdSlots];
  logic [NumPolicies-1:0] pol_match, pol_match_q;
  logic [127:0]           m_gid;
  logic [23:0]            m_qpn;
  logic                   tbl_write, tbl_write_q;
  logic                   m_cur;  // match the header held (after a table write)
  // fields read across the tables: per policy (index NumPolicies = the default) and per slot
  logic [31:0]            pol_pd_v  [NumPolicies+1];
  logic [7:0]             pol_ep_v  [NumPolicies+1];
  logic                   pds_val_v [NumPdSlots];
  logic [31:0]            pds_pd_v  [NumPdSlots];
  logic [7:0]             pds_ep_v  [NumPdSlots];
  logic [NumPdSlots-1:0]  pdm_q     [NumPolicies+1];  // slot valid with the policy's PD
  logic [NumPdSlots-1:0]  pem_q     [NumPolicies+1];  // slot epoch = the policy's epoch
  policy_t                dflt_q;
  logic [2:0]             reg_w;

  assign reg_w = reg_addr_i[4:2];

  //////////////
  // Policies //
  //////////////

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      dflt_q <= '0;
    end else if (reg_we_i && reg_addr_i[15:5] == 11'h0) begin
      unique case (reg_w)
        3'd0: begin
          dflt_q.next  <= reg_wdata_i[26];
          dflt_q.mode  <= reg_wdata_i[25:24];
          dflt_q.epoch <= reg_wdata_i[23:16];
        end
        3'd2: dflt_q.pd  <= reg_wdata_i;
        3'd3: dflt_q.gen <= reg_wdata_i[23:0];
        default: ;
      endcase
    end
  end

  for (genvar i = 0; i < NumPolicies; i++) begin : gen_pol
    policy_t q, d;
    logic    sel;
    assign sel = reg_we_i &&
                 reg_addr_i[15:5] == 11'((32'(rocesec_pkg::RegPolicyBase) + 32'h20 * i) >> 5);
    always_comb begin
      d = q;
      if (sel) begin
        unique case (reg_w)
          3'd0: begin
            d.valid = reg_wdata_i[31];
            d.next  = reg_wdata_i[26];
            d.mode  = reg_wdata_i[25:24];
            d.epoch = reg_wdata_i[23:16];
          end
          3'd1:    d.qpn = reg_wdata_i[23:0];
          3'd2:    d.pd  = reg_wdata_i;
          3'd3:    d.gen = reg_wdata_i[23:0];
          default: d.gid = rocesec_pkg::put_word(q.gid, reg_w[1:0], reg_wdata_i);
        endcase
      end
    end
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) q <= '0;
      else         q <= d;
    end
    assign pol_flat[i]  = q;
    assign pol_pd_v[i]  = q.pd;
    assign pol_ep_v[i]  = q.epoch;
    assign pol_match[i] = q.valid && q.gid == m_gid && q.qpn == m_qpn;
  end

  // the header held, in the cycle after a table write (no load then), else the entering one
  assign m_cur     = pol_hold_i && tbl_write_q;
  assign m_gid     = m_cur ? pol_gid_i : pol_ld_gid_i;
  assign m_qpn     = m_cur ? pol_qpn_i : pol_ld_qpn_i;
  assign pol_pd_v[NumPolicies] = dflt_q.pd;
  assign pol_ep_v[NumPolicies] = dflt_q.epoch;
  // a write to the policy (0x0000-0x03FF) or PD slot (0x0400-0x07FF) region
  assign tbl_write = reg_we_i && reg_addr_i[15:11] == 5'h0;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pol_match_q <= '0;
      tbl_write_q <= 1'b0;
    end else begin
      if (pol_load_i || m_cur) pol_match_q <= pol_match;
      tbl_write_q <= tbl_write;
    end
  end

  // Slot matches of every policy, recomputed every cycle from the tables (a write is seen two
  // cycles later: tbl_stale_o covers it).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int i = 0; i <= NumPolicies; i++) begin
        pdm_q[i] <= '0;
        pem_q[i] <= '0;
      end
    end else begin
      for (int i = 0; i <= NumPolicies; i++) begin
        for (int j = 0; j < NumPdSlots; j++) begin
          pdm_q[i][j] <= pds_val_v[j] && pds_pd_v[j] == pol_pd_v[i];
          pem_q[i][j] <= pds_ep_v[j] == pol_ep_v[i];
        end
      end
    end
  end

  // A write in this cycle changes the table next cycle; one in the cycle before changed it
  // after pol_match_q was computed.
  assign tbl_stale_o = tbl_write || tbl_write_q;

  // (struct-typed variables at module level: Yosys has no member access on block locals)
  /* verilator lint_off UNUSEDSIGNAL */
  policy_t pol_sel;  // read field by field
  /* verilator lint_on UNUSEDSIGNAL */

  logic [NumPdSlots-1:0] sel_pdm, sel_pem;

  always_comb begin
    logic hit;
    pol_sel = dflt_q;
    sel_pdm = pdm_q[NumPolicies];
    sel_pem = pem_q[NumPolicies];
    hit     = 1'b0;
    for (int i = 0; i < NumPolicies; i++) begin
      if (!hit && pol_match_q[i]) begin
        pol_sel = pol_flat[i];
        sel_pdm = pdm_q[i];
        sel_pem = pem_q[i];
        hit     = 1'b1;
      end
    end
  end

  always_comb begin
    for (int j = 0; j < NumPdSlots; j++) begin
      pd_match_o[j] = sel_pdm[j] && (EpochFromPolicy ? sel_pem[j] : pds_ep_v[j] == pd_epoch_i);
    end
  end

  assign pol_mode_o  = pol_sel.mode;
  assign pol_epoch_o = pol_sel.epoch;
  assign pol_next_o  = pol_sel.next;
  assign pol_pd_o    = pol_sel.pd;
  assign pol_gen_o   = pol_sel.gen;

  //////////////////
  // PD key slots //
  //////////////////

  for (genvar j = 0; j < NumPdSlots; j++) begin : gen_pd
    pdslot_t q, d;
    logic    sel;
    assign sel = reg_we_i &&
                 reg_addr_i[15:5] == 11'((32'(rocesec_pkg::RegPdBase) + 32'h20 * j) >> 5);
    always_comb begin
      d = q;
      if (sel) begin
        unique case (reg_w)
          3'd0: begin
            d.valid = reg_wdata_i[31];
            d.epoch = reg_wdata_i[7:0];
          end
          3'd2:       d.pd = reg_wdata_i;
          3'd1, 3'd3: ;
          default:    d.key = rocesec_pkg::put_word(q.key, reg_w[1:0], reg_wdata_i);
        endcase
      end
    end
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) q <= '0;
      else         q <= d;
    end
    assign pds_flat[j]  = q;
    assign pds_val_v[j] = q.valid;
    assign pds_pd_v[j]  = q.pd;
    assign pds_ep_v[j]  = q.epoch;
  end

  /* verilator lint_off UNUSEDSIGNAL */
  pdslot_t pd_sel;  // read field by field
  /* verilator lint_on UNUSEDSIGNAL */

  always_comb begin
    pd_sel = '0;
    for (int j = NumPdSlots - 1; j >= 0; j--) begin
      if (pd_sel_i[j]) pd_sel = pds_flat[j];
    end
  end

  assign pd_hit_o = |pd_sel_i;
  assign pd_key_o = pd_sel.key;

  assign pd_write_o = reg_we_i && reg_addr_i[15:10] == rocesec_pkg::RegPdBase[15:10];

  logic unused_sig;
  assign unused_sig = ^{reg_addr_i[1:0], dflt_q.valid, dflt_q.qpn, dflt_q.gid,
                        EpochFromPolicy ? pd_epoch_i : 8'h0};

endmodule
