// SPDX-License-Identifier: Apache-2.0
//
// roce_parse_pkg: descriptor type, codes and opcode table of the parse stage (roce_parse).
//
// Data format
// -----------
// roce_desc_t is the hardware form of the model's `roce::parse` result
// (model/src/roce/frame.rs `Frame` / `ParseError` / `Packet`) plus the ICRC check of
// model/src/stage/parse.rs. Offsets are byte offsets from the first byte of the Ethernet frame;
// multi-byte header fields are stored as numbers (the wire is big-endian, IBTA Vol 1 §9.2–9.3).
// The opcode table is IBTA Vol 1 §9.2 Table 38 (plus CNP, Annex A17.9.3, and FLUSH / ATOMIC
// WRITE of rel. 1.5), mirrored from model/src/roce/opcode.rs. Extended-header bit set
// (`eth` field): bit 0 XRCETH, 1 DETH, 2 FETH, 3 RETH, 4 AtomicETH, 5 AETH, 6 AtomicAckETH,
// 7 ImmDt, 8 IETH (wire order, model `opcode::eth`).
//
// The field order of roce_desc_t is mirrored by cosim/src/rtl/roce_parse.rs (DESC_FIELDS):
// change both together.

`resetall
`default_nettype none

package roce_parse_pkg;

  ///////////////
  // Constants //
  ///////////////

  // Not every user needs every code.
  /* verilator lint_off UNUSEDPARAM */

  localparam logic [15:0] EtherTypeIpv4 = 16'h0800;
  localparam logic [15:0] EtherTypeIpv6 = 16'h86DD;
  localparam logic [15:0] EtherTypeVlan = 16'h8100;
  localparam logic [15:0] EtherTypeQinq = 16'h88A8;
  localparam logic [15:0] EtherTypeIb   = 16'h8915;
  localparam logic [15:0] RocePort      = 16'd4791;  // Annex A17.2.2

  // Largest byte offset + 1 that field extraction reads: Eth 14 + 2 VLAN tags 8 + IPv4 with
  // options 60 + UDP 8 + BTH 12 + SecHdr 8 + extended headers 32 (XRCETH + AtomicETH).
  localparam int unsigned HdrBytes = 142;

  // desc.kind
  localparam logic [1:0] KindNotRoce   = 2'd0;  // Frame::NotRoce
  localparam logic [1:0] KindRoce      = 2'd1;  // Frame::Roce
  localparam logic [1:0] KindMalformed = 2'd2;  // Err(ParseError)

  // desc.not_roce (model NotRoce)
  localparam logic [1:0] NotRoceNotIp     = 2'd0;
  localparam logic [1:0] NotRoceRoceV1    = 2'd1;
  localparam logic [1:0] NotRoceNotUdp    = 2'd2;
  localparam logic [1:0] NotRoceOtherPort = 2'd3;

  // desc.err (model ParseError)
  localparam logic [3:0] ErrNone        = 4'd0;
  localparam logic [3:0] ErrTruncated   = 4'd1;
  localparam logic [3:0] ErrFragmented  = 4'd2;
  localparam logic [3:0] ErrBadLength   = 4'd3;
  localparam logic [3:0] ErrBadIpHeader = 4'd4;
  localparam logic [3:0] ErrReservedOp  = 4'd5;
  localparam logic [3:0] ErrUnknownTVer = 4'd6;
  localparam logic [3:0] ErrSecHdr      = 4'd7;
  localparam logic [3:0] ErrBadPad      = 4'd8;
  localparam logic [3:0] ErrIpv6Ext     = 4'd9;  // UDP or a 2nd header behind an IPv6 ext. header

  // Service (opcode bits 7:5; model opcode::Service)
  localparam logic [2:0] SvcRc     = 3'd0;
  localparam logic [2:0] SvcUc     = 3'd1;
  localparam logic [2:0] SvcRd     = 3'd2;
  localparam logic [2:0] SvcUd     = 3'd3;
  localparam logic [2:0] SvcCnp    = 3'd4;
  localparam logic [2:0] SvcXrc    = 3'd5;
  localparam logic [2:0] SvcVendor = 3'd6;

  // Extended header bits
  localparam int unsigned EthXrc       = 0;
  localparam int unsigned EthDeth      = 1;
  localparam int unsigned EthFeth      = 2;
  localparam int unsigned EthReth      = 3;
  localparam int unsigned EthAtomic    = 4;
  localparam int unsigned EthAeth      = 5;
  localparam int unsigned EthAtomicAck = 6;
  localparam int unsigned EthImmDt     = 7;
  localparam int unsigned EthIeth      = 8;

  /* verilator lint_on UNUSEDPARAM */

  ///////////
  // Types //
  ///////////

  typedef struct packed {
    logic        valid;    // opcode is not reserved
    logic [2:0]  service;
    logic [8:0]  eth;      // extended headers present
    logic [5:0]  eth_len;  // their total length in bytes
  } op_info_t;

  typedef struct packed {
    // classification
    logic [1:0]   kind;
    logic [1:0]   not_roce;
    logic [3:0]   err;
    logic         icrc_ok;      // valid with desc_valid only
    logic [31:0]  icrc;         // computed ICRC (as crc32fast returns it)
    // layout (model Packet)
    logic         ipv6;
    logic [1:0]   vlans;
    logic [7:0]   ip_off;
    logic [7:0]   ip_hdr_len;
    logic [7:0]   udp_off;
    logic [7:0]   bth_off;
    logic [15:0]  ip_end;       // Packet::end
    logic [7:0]   eth_off;
    logic [7:0]   payload_off;
    logic [15:0]  payload_end;
    logic [15:0]  frame_len;
    // BTH (model Bth)
    logic [7:0]   opcode;
    logic         se;
    logic         migreq;
    logic [1:0]   pad;
    logic [3:0]   tver;
    logic [15:0]  pkey;
    logic [7:0]   byte4;
    logic [23:0]  dest_qp;
    logic         ack_req;
    logic [6:0]   resv7;
    logic [23:0]  psn;
    // opcode facts
    logic [2:0]   service;
    logic [8:0]   eth;
    // SecHdr (model SecHdr), when sec_valid
    logic         sec_valid;
    logic [1:0]   sec_mode;
    logic [5:0]   sec_level;
    logic [7:0]   sec_epoch;
    logic [47:0]  sec_pn;
    // RETH or AtomicETH target
    logic         has_reth;
    logic         has_atomic;
    logic [63:0]  va;
    logic [31:0]  rkey;
    logic [31:0]  dma_len;      // RETH DMA length (0 for AtomicETH)
    // DETH
    logic         has_deth;
    logic [23:0]  src_qp;
    // Packet::dest_gid
    logic [127:0] dest_gid;
    // Length fields as received and the IPv4 header sum, for the length/checksum rewrite of
    // the key stages (model emit::insert / emit::strip via etherparse)
    logic [15:0]  ip_len;       // IPv4 total length / IPv6 payload length field
    logic [15:0]  udp_len;      // UDP length field
    logic [15:0]  ip_sum;       // IPv4: RFC 1071 ones'-complement sum (folded, not inverted) of
                                // the header words except total length (1) and checksum (5)
  } roce_desc_t;

  // $bits(roce_desc_t) (Yosys cannot take $bits of a type; checked against it under Verilator)
  /* verilator lint_off UNUSEDPARAM */
  localparam int unsigned DescBits = 644;
  /* verilator lint_on UNUSEDPARAM */

  ///////////////
  // Functions //
  ///////////////

  // Total length of the extended headers in `eth` (model opcode::eth::len).
  function automatic logic [5:0] eth_len(logic [8:0] eth);
    logic [5:0] l;
    l = 6'd0;
    if (eth[EthXrc])       l = l + 6'd4;
    if (eth[EthDeth])      l = l + 6'd8;
    if (eth[EthFeth])      l = l + 6'd4;
    if (eth[EthReth])      l = l + 6'd16;
    if (eth[EthAtomic])    l = l + 6'd28;
    if (eth[EthAeth])      l = l + 6'd4;
    if (eth[EthAtomicAck]) l = l + 6'd8;
    if (eth[EthImmDt])     l = l + 6'd4;
    if (eth[EthIeth])      l = l + 6'd4;
    eth_len = l;
  endfunction

  // Extended headers of an RC/UC/XRC opcode by its low five bits (Table 38).
  function automatic logic [9:0] rc_row(logic [4:0] low);  // {reserved, eth[8:0]}
    logic [9:0] r;
    unique case (low)
      5'h00, 5'h01, 5'h02, 5'h04, 5'h07, 5'h08, 5'h0E: r = {1'b0, 9'h000};
      5'h03, 5'h05, 5'h09:                             r = {1'b0, 9'h080};  // ImmDt
      5'h06, 5'h0A, 5'h0C, 5'h1D:                      r = {1'b0, 9'h008};  // RETH
      5'h0B:                                           r = {1'b0, 9'h088};  // RETH ImmDt
      5'h0D, 5'h0F, 5'h10, 5'h11:                      r = {1'b0, 9'h020};  // AETH
      5'h12:                                           r = {1'b0, 9'h060};  // AETH AtomicAck
      5'h13, 5'h14:                                    r = {1'b0, 9'h010};  // AtomicETH
      5'h16, 5'h17:                                    r = {1'b0, 9'h100};  // IETH
      5'h1C:                                           r = {1'b0, 9'h00C};  // FETH RETH
      5'h15, 5'h18, 5'h19, 5'h1A, 5'h1B, 5'h1E, 5'h1F: r = {1'b1, 9'h000};  // reserved
      default:                                         r = {1'b1, 9'h000};
    endcase
    rc_row = r;
  endfunction

  // Opcode facts (model opcode::info).
  function automatic op_info_t op_info(logic [7:0] code);
    op_info_t   o;
    logic [9:0] row;
    logic [4:0] low;
    low       = code[4:0];
    row       = rc_row(low);
    o.valid   = 1'b0;
    o.service = code[7:5];
    o.eth     = 9'h000;
    unique case (code[7:5])
      3'd0: begin  // RC
        o.valid = !row[9];
        o.eth   = row[8:0];
      end
      3'd5: begin  // XRC: requests carry an XRCETH, responses (0x0D..0x12) do not
        o.valid = !row[9];
        o.eth   = row[8:0] | ((low >= 5'h0D && low <= 5'h12) ? 9'h000 : 9'h001);
      end
      3'd1: begin  // UC: SEND and RDMA WRITE only (0x20..0x2B)
        o.valid = (low <= 5'h0B);
        o.eth   = row[8:0];
      end
      3'd3: begin  // UD
        o.valid = (low == 5'h04) || (low == 5'h05);
        o.eth   = (low == 5'h05) ? 9'h082 : 9'h002;
      end
      3'd4: begin  // CNP
        o.valid = (code == 8'h81);
        o.eth   = 9'h000;
      end
      default: begin  // RD, vendor
        o.valid   = 1'b0;
        o.service = (code[7:5] == 3'd2) ? SvcRd : SvcVendor;
      end
    endcase
    if (!o.valid) o.eth = 9'h000;
    o.eth_len = eth_len(o.eth);
    op_info = o;
  endfunction

endpackage
