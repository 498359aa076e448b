// SPDX-License-Identifier: Apache-2.0
//
// roce_icrc: CRC-32 (IEEE 802.3, reflected, as zlib crc32) over a packet streamed in beats of
// 16*Lanes bytes with tkeep, one beat per clock: the arithmetic of the RoCEv2 ICRC.
//
// Data format
// -----------
// A beat carries Kb = 16*Lanes bytes. Byte 0 (first on the wire) is s_axis_tdata_i[W-1 -: 8], the
// same most-significant-first order as a GCM block (SP 800-38D §6.1); tkeep bit j qualifies
// tdata[8j+7:8j], so byte 0 is qualified by tkeep[Kb-1]. Valid bytes are contiguous from byte 0
// (tkeep = 1..10..0); only the last beat of a packet may be partial. crc_o is the zlib value:
// register preset to 0xFFFFFFFF, polynomial 0x04C11DB7 processed LSB first (reflected 0xEDB88320),
// final complement. IBTA Vol 1 Annex A17.8: the ICRC field is crc_o transmitted least significant
// byte first; masking the variant fields (LRH stand-in, IP TOS/TTL/checksum, UDP checksum, BTH
// reserved byte) to ones is the caller's job (roce_icrc only sees the bytes it is given).
//
// Partial beats
// -------------
// A beat with k valid bytes is right-aligned (shifted by m = Kb - k bytes, zeros in front) in an
// input register. CRC is linear, so with S the running register,
//   CRC_S(d) = CRC_0(zeros(m) || (d ^ S_bytes)) ^ (k < 4 ? S >> 8k : 0),
// where S_bytes are S's four bytes (LSB first) XORed onto the first valid bytes: leading zeros do
// not change a zero CRC register. One CRC network of Kb bytes therefore serves every tkeep value
// and only the 32-bit S placement depends on m.
//
// Timing
// ------
// Stage 1 registers the masked, right-aligned beat; stage 2 places S and applies CRC_0 as a
// constant GF(2) matrix (computed at elaboration: one XOR tree per CRC bit). crc_valid_o/crc_o rise two
// clock edges after the edge accepting the last beat (counting that edge as 1). No backpressure:
// the block is a tap next to the data path. Valid/packet-state flops and S are reset.

`resetall
`default_nettype none

// One of the tree's three tops by design: no MULTITOP when all of rtl/ is linted in one call.
/* verilator lint_off MULTITOP */
module roce_icrc #(
  parameter int unsigned Lanes = 1  // beat = 128 * Lanes bits
) (
  input  wire logic                  clk_i,
  input  wire logic                  rst_ni,

  // Packet beats (tap, no tready)
  input  wire logic                  s_axis_tvalid_i,
  input  wire logic [128*Lanes-1:0]  s_axis_tdata_i,
  input  wire logic [16*Lanes-1:0]   s_axis_tkeep_i,
  input  wire logic                  s_axis_tlast_i,

  // CRC of the packet
  output logic                       crc_valid_o,
  output logic      [31:0]           crc_o
);

  localparam int unsigned W  = 128 * Lanes;
  localparam int unsigned Kb = 16 * Lanes;
  localparam int unsigned MW = $clog2(Kb + 1);
  localparam logic [31:0] Poly = 32'hEDB88320;

  if (Lanes < 1 || Lanes > 8) begin : gen_param_check
    $error("roce_icrc: Lanes must be 1..8 (instance %m)");
  end

  /////////////
  // Signals //
  /////////////

  logic [MW-1:0] keep_cnt;   // k: number of valid bytes
  logic [W-1:0]  keep_mask;
  logic [W-1:0]  beat_sh;    // masked, right-aligned beat
  logic          in_pkt_q;   // inside a packet (previous beat had no tlast)

  logic          s1_valid_q, s1_first_q, s1_last_q;
  logic [MW-1:0] s1_k_q;
  logic [W-1:0]  s1_data_q;

  logic [31:0]   crc_q, crc_in, crc_d, crc_blk;
  logic [W-1:0]  blk, s_place;

  ///////////////////////
  // CRC_0 matrix rows //
  ///////////////////////

  // Processing one byte v from state s (reflected, LSB first).
  function automatic logic [31:0] crc_byte(input logic [31:0] s, input logic [7:0] v);
    logic [31:0] r;
    r = s;
    for (int t = 0; t < 8; t++) r = {1'b0, r[31:1]} ^ ((r[0] ^ v[t]) ? Poly : 32'h0);
    crc_byte = r;
  endfunction

  // Row j (bits [W*j +: W]): which beat bits feed bit j of CRC_0(beat). The column of beat bit
  // (byte p, bit t) is the CRC of that single bit followed by Kb-1-p zero bytes; built from the
  // last byte backwards. Flat vectors keep the constant function within Verilator 5.006's and
  // Yosys's constant evaluation.
  function automatic logic [32*W-1:0] crc_rows();
    logic [32*W-1:0] rows;
    logic [255:0]    col;
    for (int t = 0; t < 8; t++) col[32 * t +: 32] = crc_byte(32'h0, 8'(1 << t));
    for (int p = Kb - 1; p >= 0; p--) begin
      for (int t = 0; t < 8; t++) begin
        for (int j = 0; j < 32; j++) rows[W * j + W - 8 - 8 * p + t] = col[32 * t + j];
        col[32 * t +: 32] = crc_byte(col[32 * t +: 32], 8'h00);
      end
    end
    crc_rows = rows;
  endfunction

  localparam logic [32*W-1:0] CrcRows = crc_rows();

  /////////////
  // Stage 1 //
  /////////////

  always_comb begin
    keep_cnt  = '0;
    keep_mask = '0;
    for (int j = 0; j < Kb; j++) begin
      keep_cnt = keep_cnt + MW'(s_axis_tkeep_i[j]);
      keep_mask[8 * j +: 8] = {8{s_axis_tkeep_i[j]}};
    end
  end

  // Right-align: shift by m = Kb - k bytes.
  assign beat_sh = (s_axis_tdata_i & keep_mask) >> {(MW'(Kb) - keep_cnt), 3'b000};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s1_valid_q <= 1'b0;
      s1_first_q <= 1'b0;
      s1_last_q  <= 1'b0;
      in_pkt_q   <= 1'b0;
    end else begin
      s1_valid_q <= s_axis_tvalid_i;
      if (s_axis_tvalid_i) begin
        s1_first_q <= !in_pkt_q;
        s1_last_q  <= s_axis_tlast_i;
        in_pkt_q   <= !s_axis_tlast_i;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (s_axis_tvalid_i) begin
      s1_k_q    <= keep_cnt;
      s1_data_q <= beat_sh;
    end
  end

  /////////////
  // Stage 2 //
  /////////////

  assign crc_in = s1_first_q ? 32'hFFFFFFFF : crc_q;

  // Place S's bytes (S[7:0] first) on the first four valid byte positions m..m+3; bytes pushed
  // past the end of the beat (k < 4) are covered by the carry term below.
  assign s_place = {crc_in[7:0], crc_in[15:8], crc_in[23:16], crc_in[31:24], {(W - 32){1'b0}}}
                   >> {(MW'(Kb) - s1_k_q), 3'b000};
  assign blk     = s1_data_q ^ s_place;

  // CRC_0 over the whole block as a constant GF(2) matrix: one XOR tree per output bit.
  always_comb begin
    for (int j = 0; j < 32; j++) crc_blk[j] = ^(blk & CrcRows[W * j +: W]);
  end

  // Carry of S for k < 4 bytes.
  always_comb begin
    case (s1_k_q)
      MW'(1):  crc_d = crc_blk ^ {8'h00, crc_in[31:8]};
      MW'(2):  crc_d = crc_blk ^ {16'h0000, crc_in[31:16]};
      MW'(3):  crc_d = crc_blk ^ {24'h000000, crc_in[31:24]};
      default: crc_d = crc_blk;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      crc_q       <= '0;
      crc_valid_o <= 1'b0;
      crc_o       <= '0;
    end else begin
      crc_valid_o <= s1_valid_q && s1_last_q;
      if (s1_valid_q) begin
        crc_q <= crc_d;
        if (s1_last_q) crc_o <= ~crc_d;
      end
    end
  end

endmodule

`resetall
