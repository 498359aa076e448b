// SPDX-License-Identifier: Apache-2.0
//
// rocesec_pkg: constants shared by the rocesec tops: verdict codes, tuser layout, register map
// and the fixed stage latencies.
//
// Data format
// -----------
// Verdict codes are model/src/verdict.rs `Reason::code()` (docs/wire-format.md §7); forward
// kinds are `Forward`. m_axis_tuser (on every beat, meaningful with tlast):
//   [3:0] reason code (0: forwarded), [5:4] forward kind (valid when reason = 0).
// SecHdr (docs/wire-format.md §3): Mode(2) Level(6) | Epoch(8) | PN(48), big-endian. IV
// (§5, SP 800-38D §8.2.1): DestQP(24) ‖ QpSalt(24) ‖ PN(48); J0 = IV ‖ 0x00000001
// (SP 800-38D §7.1 step 2).
// Register map (write port reg_*): see docs/rtl/tops.md.

`resetall
`default_nettype none

package rocesec_pkg;

  /* verilator lint_off UNUSEDPARAM */

  // Reason (verdict) codes
  localparam logic [3:0] ReasonOk          = 4'd0;
  localparam logic [3:0] ReasonAuthFail    = 4'd1;
  localparam logic [3:0] ReasonBadIcrc     = 4'd2;
  localparam logic [3:0] ReasonMalformed   = 4'd3;
  localparam logic [3:0] ReasonOutOfRange  = 4'd4;
  localparam logic [3:0] ReasonPnExhausted = 4'd5;
  localparam logic [3:0] ReasonPolicy      = 4'd6;
  localparam logic [3:0] ReasonReplay      = 4'd7;
  localparam logic [3:0] ReasonStaleEpoch  = 4'd8;
  localparam logic [3:0] ReasonUnknownKey  = 4'd9;

  // Forward kinds
  localparam logic [1:0] FwdProcessed = 2'd0;
  localparam logic [1:0] FwdBypass    = 2'd1;
  localparam logic [1:0] FwdCnp       = 2'd2;
  localparam logic [1:0] FwdNotRoce   = 2'd3;

  // Protection modes (SecHdr Mode field; 0 = bypass in the policy table)
  localparam logic [1:0] ModeBypass     = 2'd0;
  localparam logic [1:0] ModeHeaderAuth = 2'd1;
  localparam logic [1:0] ModePacketAuth = 2'd2;
  localparam logic [1:0] ModeAead       = 2'd3;

  localparam logic [5:0] LevelQp = 6'h3F;
  localparam int unsigned SecHdrBytes = 8;
  localparam int unsigned IcvBytes    = 16;
  localparam int unsigned Overhead    = SecHdrBytes + IcvBytes;

  // Register map (byte addresses, 32-bit words)
  localparam logic [15:0] RegDefaultBase = 16'h0000;  // default policy (as a policy entry)
  localparam logic [15:0] RegPolicyBase  = 16'h0100;  // policy entry i at + 0x20*i
  localparam logic [15:0] RegPdBase      = 16'h0400;  // PD key slot j at + 0x20*j
  localparam logic [15:0] RegCountBase   = 16'h0800;  // counters (read)
  localparam logic [15:0] RegCtrl        = 16'h0C00;  // verify: bit 0 store-and-forward

  // Stage latencies in clock cycles (mirrored by model/src/timing.rs Params::RTL)
  localparam int unsigned ParseLatency = 2;  // tlast edge -> desc_valid_o
  localparam int unsigned GhashLatency = 4;  // ghash_core, MulStages = 2
  localparam int unsigned IcrcLatency  = 2;  // roce_parse_icrc beat -> icrc_o

  // Output header bytes kept per job: everything up to the end of the inserted SecHdr
  // (eth_off <= 22 + 60 + 8 + 12 = 102, + 8).
  localparam int unsigned OHdrBytes = 112;

  // $bits(job_t) (Yosys cannot take $bits of a type; checked against it under Verilator)
  localparam int unsigned JobBits = 1308;

  // Derived-key cache entry types (key_tag_t.typ)
  localparam logic [1:0] KtQp   = 2'd0;  // K_qp(pd, epoch, gid, qpn = a, salt = b)
  localparam logic [1:0] KtMr   = 2'd1;  // K_mr(pd, epoch, gid, rkey = a)
  localparam logic [1:0] KtNode = 2'd2;  // K_node(pd, epoch, gid, rkey = a, level = b, index)

  // $bits(key_tag_t)
  localparam int unsigned KeyTagBits = 290;

  /* verilator lint_on UNUSEDPARAM */

  // One packet's work order from the key stage to the emit stage.
  typedef struct packed {
    logic                   protect;   // insert SecHdr/ICV (else forward unchanged)
    logic [1:0]             mode;
    logic [127:0]           key;       // AES-128 packet key
    logic [127:0]           h;         // E_key(0^128)
    logic [95:0]            iv;
    logic [8*OHdrBytes-1:0] ohdr;      // output bytes [0, hoff + 8), byte i in [8i+7:8i]
    logic [7:0]             hoff;      // SecHdr insertion point (plain eth_off)
    logic [7:0]             poff;      // plain payload_off
    logic [15:0]            eoff;      // plain payload_end (start of the plain ICRC)
    logic                   ipv6;
    logic [7:0]             ip_off;
    logic [7:0]             udp_off;
    logic [7:0]             bth_off;
  } job_t;

  // Identity of a derived key (model/src/keys.rs KeyRef with its PD and epoch).
  typedef struct packed {
    logic [1:0]   typ;
    logic [31:0]  pd;
    logic [7:0]   epoch;
    logic [127:0] gid;
    logic [31:0]  a;      // QP: qpn, MR/NODE: rkey
    logic [23:0]  b;      // QP: salt, NODE: level
    logic [63:0]  index;  // NODE
  } key_tag_t;

endpackage
