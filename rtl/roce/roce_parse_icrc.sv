// SPDX-License-Identifier: Apache-2.0
//
// roce_parse_icrc: streaming ICRC of RoCEv2 over AXI4-Stream beats, for the parse stage.
//
// Data format
// -----------
// ICRC (IBTA Vol 1 Annex A17.8): CRC-32 (IEEE 802.3 polynomial, reflected, init and final XOR
// all ones, as zlib/crc32fast) over 8 bytes of 0xFF (the masked LRH), then the IP header with
// its variant fields forced to ones (IPv4: TOS byte 1, TTL byte 8, checksum bytes 10–11; IPv6:
// traffic class and flow label = low nibble of byte 0 and bytes 1–3, hop limit byte 7), the
// UDP header with its checksum (bytes 6–7) forced to ones, the BTH with byte 4 forced to ones,
// and every byte after it up to the ICRC. The ICRC is stored little-endian in the 4 bytes at
// `icrc_off_i` (= end of the IP packet − 4). Model: model/src/roce/icrc.rs.
//
// beat_data_i byte i (bits [8i+7:8i]) is frame byte beat_base_i + i (AXI4-Stream order);
// beat_keep_i bit i marks it valid. beat_base_i is a multiple of BeatBytes (beats are aligned
// to the frame's first byte); its low bits are ignored. The layout inputs (ip_off_i, ipv6_i,
// udp_off_i, bth_off_i, icrc_off_i) must be correct for every byte of the beat they affect;
// bytes outside [ip_off_i, icrc_off_i) are excluded. ip_off_i is 14, 18 or 22 (Ethernet II
// with up to two 802.1Q/802.1ad tags, as roce_parse gives it; only bits [4:2] are read): the
// IP header's lane masks are then constants per tag count, chosen by it, with no addition on
// ip_off_i.
//
// Partial beats use the invertibility of the CRC over zero bytes: excluded leading bytes are
// zeroed and the register is pre-loaded with the state that, after those zero bytes, equals
// the state after the 0xFF prefix; excluded trailing bytes are zeroed and their effect undone
// by the inverse zero-byte step. So one BeatBytes-wide CRC network serves every beat.
//
// Timing: beat sampled at edge T, state (icrc_o, stored_o) updated at T+1, icrc_o from the
// state register. (Until session 14 a combinational icrc_now_o also gave the CRC including the
// beat of the last edge; neither top used it any more, and with the hierarchy kept for
// synthesis its second copy of the trailing-zero undo cost 1.6k LUT4 per instance: 5,115 ->
// 3,521 LUT4 at LANES = 1, docs/rtl/fmax-log.md "Session 14".)
//
// The state register loops through one beat step only (start choice, A c ^ B d): the
// pre-loaded state is registered with the beat (s1_init_q), and the trailing-zero undo is
// applied around the register (icrc_o = ~U_trail state_q, trail_q of the last covered beat):
// its first level (trail mod 4) before it, into a second register (state_u_q), the rest after.
// That is exact because no byte after icrc_off_i is covered, so the beat with trailing
// excluded bytes is the frame's last covered beat.

`resetall
`default_nettype none

module roce_parse_icrc #(
  parameter int unsigned LANES  = 1,    // 128-bit blocks per beat
  parameter bit          Stored = 1'b1  // capture the stored ICRC (stored_o); 0: stored_o = 0
) (
  input  wire logic                  clk_i,
  input  wire logic                  rst_ni,

  // Beat (already accepted by the enclosing stage)
  input  wire logic                  beat_valid_i,
  input  wire logic [128*LANES-1:0]  beat_data_i,
  input  wire logic [16*LANES-1:0]   beat_keep_i,
  input  wire logic [15:0]           beat_base_i,   // frame offset of byte 0 of the beat

  // Packet layout
  input  wire logic                  ipv6_i,
  input  wire logic [7:0]            ip_off_i,
  input  wire logic [7:0]            udp_off_i,
  input  wire logic [7:0]            bth_off_i,
  input  wire logic [15:0]           icrc_off_i,

  // Result
  output logic      [31:0]           icrc_o,        // CRC over the bytes so far (final value)
  output logic      [31:0]           stored_o       // ICRC bytes of the frame, little-endian
                                                    // (zero without Stored)
);

  localparam int unsigned BeatBytes = 16 * LANES;
  localparam logic [31:0] Poly      = 32'hEDB88320;  // reflected 0x04C11DB7

  ///////////////
  // Functions //
  ///////////////

  function automatic logic [31:0] crc_byte(logic [31:0] c, logic [7:0] b);
    logic [31:0] s;
    s = c ^ {24'h0, b};
    for (int k = 0; k < 8; k++) s = s[0] ? ((s >> 1) ^ Poly) : (s >> 1);
    crc_byte = s;
  endfunction

  function automatic logic [31:0] crc_prefix();
    logic [31:0] s;
    s = 32'hFFFF_FFFF;
    for (int i = 0; i < 8; i++) s = crc_byte(s, 8'hFF);
    crc_prefix = s;
  endfunction

  localparam logic [31:0] StatePrefix = crc_prefix();  // after init and the masked LRH

  // The CRC maps as constant GF(2) matrices, so that every output bit is one balanced XOR
  // tree (shallow logic): the state after the BeatBytes bytes of d from state c is A c ^ B d,
  // and n zero bytes are undone by U_n s.
  // Row o of A / B / U_n is the mask of input bits that output bit o depends on.
  localparam int unsigned DW = 128 * LANES;

  // Elaboration cost matters here: Yosys evaluates constant functions by interpretation and
  // copies the whole variable on every write, so building B column by column (a CRC over a
  // whole beat each) with bit writes took minutes at LANES = 4. The matrices are built bit-sliced instead, from the linearity of
  // the CRC: a "state" holds 32 lanes (lane o = bit o of several columns at once), so one
  // shift-register step on the state is one step on every column, and lane o is a piece of
  // row o. With Z = crc_byte(., 8'h00):
  //   column (byte i, bit b) of B = Z^(BeatBytes-1-i) crc_byte(0, 1 << b): one pass from the
  //   last byte down carries the 8 columns of a byte (lanes of 8 bits);
  //   column 8m + b of A = column (byte m, bit b) of B, since crc_byte(c, x) depends on c ^ x
  //   only, and crc_byte(e_j, 8'h00) = e_(j-8) for j >= 8 (no feedback in the first 8 steps);
  //   U_n = n unzero steps from the identity (lanes of 32 bits: the state is the matrix), the
  //   inverse of Z: b = s[31]; s ^= b ? Poly : 0; s = {s[30:0], b}, 8 times.

  function automatic logic [32*DW-1:0] mat_b();
    logic [32*8-1:0] s;     // lane o (8 bits): bit o of the columns of bits 0..7 of a byte
    logic [32*8-1:0] px;    // Poly, bit o widened to lane o
    for (int o = 0; o < 32; o++) px[8*o +: 8] = {8{Poly[o]}};
    s = '0;
    for (int b = 0; b < 8; b++) s[8*b + b] = 1'b1;  // e_b: the byte's bit b, before its steps
    for (int i = BeatBytes - 1; i >= 0; i--) begin
      // one byte: 8 steps of s = s[0] ? (s >> 1) ^ Poly : s >> 1 on every column
      for (int k = 0; k < 8; k++) s = (s >> 8) ^ (px & {32{s[7:0]}});
      for (int o = 0; o < 32; o++) mat_b[DW*o + 8*i +: 8] = s[8*o +: 8];
    end
  endfunction

  localparam logic [32*DW-1:0] MatB = mat_b();

  function automatic logic [32*32-1:0] mat_a();
    for (int o = 0; o < 32; o++) mat_a[32*o +: 32] = MatB[DW*o +: 32];
  endfunction

  // U_n for the base-4 digits of n: level l holds U_(d * 4^l), d = 1..3 (3 matrices per level).
  localparam int unsigned LB      = $clog2(BeatBytes);   // bits of a byte count < BeatBytes
  localparam int unsigned ULevels = (LB + 1) / 2;
  localparam int unsigned UMax    = 3 << (2 * (ULevels - 1));  // largest n: 3 * 4^(ULevels-1)

  // One pass of UMax unzero bytes from the identity, keeping U_n at every n = d * 4^l.
  function automatic logic [ULevels*3*1024-1:0] mat_u();
    logic [32*32-1:0] s;   // lane o (32 bits): row o of U_n
    logic [32*31-1:0] t;   // lanes 0..30 after the conditional XOR (lane 31 is shifted out)
    logic [32*31-1:0] px;  // Poly, bit o widened to lane o (lane 31 is not needed)
    for (int o = 0; o < 31; o++) px[32*o +: 32] = {32{Poly[o]}};
    s  = '0;
    for (int o = 0; o < 32; o++) s[32*o + o] = 1'b1;
    for (int n = 1; n <= int'(UMax); n++) begin
      for (int k = 0; k < 8; k++) begin
        t = s[32*31-1:0] ^ (px & {31{s[32*31 +: 32]}});
        s = {t, s[32*31 +: 32]};
      end
      for (int l = 0; l < int'(ULevels); l++) begin
        for (int d = 1; d < 4; d++) begin
          if (n == d * (1 << (2 * l))) mat_u[1024*(3*l + d - 1) +: 1024] = s;
        end
      end
    end
  endfunction

  localparam logic [32*32-1:0]           MatA = mat_a();
  localparam logic [ULevels*3*1024-1:0]  MatU = mat_u();

  function automatic logic [31:0] beat_fast(logic [31:0] c, logic [DW-1:0] d);
    for (int o = 0; o < 32; o++) begin
      beat_fast[o] = ^(c & MatA[32*o +: 32]) ^ ^(d & MatB[DW*o +: DW]);
    end
  endfunction

  // U_n c as ULevels steps, one per base-4 digit of n (each a 4:1 choice of XOR networks), so
  // 3·ULevels matrices are built instead of BeatBytes − 1. unzero_fast(c, n, lo, hi) applies
  // the digits of levels lo .. hi - 1 only (U_n is the product of its digits' matrices, and
  // they commute, so the levels can be split around a register).
  function automatic logic [31:0] unzero_fast(logic [31:0] c, logic [7:0] n, int unsigned lo,
                                              int unsigned hi);
    logic [31:0] x, y;
    logic [1:0]  d;
    x = c;
    for (int l = 0; l < ULevels; l++) begin
      if (l >= lo && l < hi) begin
        d = n[2*l +: 2];
        y = x;
        for (int k = 1; k < 4; k++) begin
          if (d == 2'(k)) begin
            for (int o = 0; o < 32; o++) y[o] = ^(x & MatU[1024*(3*l + k - 1) + 32*o +: 32]);
          end
        end
        x = y;
      end
    end
    unzero_fast = x;
  endfunction

  /////////////
  // Stage 0 //
  /////////////

  logic [128*LANES-1:0] s0_data;
  logic                 s0_any;      // some byte of the beat is covered
  logic                 s0_start;    // the beat holds ip_off
  logic [31:0]          s0_init;     // state before the covered bytes: U_lead StatePrefix
  logic [7:0]           s0_trail;    // bytes after the last covered one
  logic [3:0]           s0_st_we;    // stored ICRC byte j is in this beat
  logic [31:0]          s0_st_data;

  // Lane masks from the layout relative to the beat. The beat starts at a multiple of
  // BeatBytes, so a frame offset y is in the beat iff its high bits equal the beat's index
  // (an equality, no subtraction) and then sits in lane y[LB-1:0]. Each point is one short
  // addition of a constant to a layout input, then the compare and the lane decode: no chain
  // of carry chains between the layout registers and s1_data_q.
  localparam int unsigned HW = 17 - LB;  // high bits of a 17-bit offset

  // lanes i with i == y - base
  function automatic logic [BeatBytes-1:0] lane_at(logic [16:0] y, logic [HW-1:0] bhi);
    lane_at = '0;
    if (y[16:LB] == bhi) lane_at[y[LB-1:0]] = 1'b1;
  endfunction

  // lanes i with i >= x - base
  function automatic logic [BeatBytes-1:0] lanes_from(logic [16:0] x, logic [HW-1:0] bhi);
    logic lt, eq;
    lt = x[16:LB] < bhi;
    eq = x[16:LB] == bhi;
    for (int i = 0; i < BeatBytes; i++) lanes_from[i] = lt || (eq && x[LB-1:0] <= LB'(i));
  endfunction

  // VLAN tag count of ip_off_i = 14 + 4·ipv (bits [4:2]: 011, 100, 101)
  logic [1:0] ipv;
  logic       unused_ip_off;
  assign unused_ip_off = ^{ip_off_i[7:5], ip_off_i[1:0]};
  always_comb begin
    unique case (ip_off_i[4:2])
      3'b100:  ipv = 2'd1;
      3'b101:  ipv = 2'd2;
      default: ipv = 2'd0;
    endcase
  end

  // Lane masks of the IP header per tag count v, at the constant offset 14 + 4v (v = 3 does not
  // occur), side by side in flat vectors (Yosys 0.70 cannot index a packed 2-D local).
  logic [HW-1:0]          bhi;
  logic [4*BeatBytes-1:0] ipm_from, ipm_nib, ipm_ff4, ipm_ff6;
  logic [3:0]             ipm_start;
  logic [4*32-1:0]        ipm_init;
  assign bhi = {1'b0, beat_base_i[15:LB]};

  always_comb begin
    logic [16:0] ipc;
    for (int v = 0; v < 4; v++) begin
      ipc = 17'(14 + 4 * v);
      ipm_from[BeatBytes*v +: BeatBytes] = lanes_from(ipc, bhi);
      ipm_nib[BeatBytes*v +: BeatBytes]  = lane_at(ipc, bhi);
      ipm_ff6[BeatBytes*v +: BeatBytes]  = lane_at(ipc + 17'd1, bhi) | lane_at(ipc + 17'd2, bhi) |
                                           lane_at(ipc + 17'd3, bhi) | lane_at(ipc + 17'd7, bhi);
      ipm_ff4[BeatBytes*v +: BeatBytes]  = lane_at(ipc + 17'd1, bhi) | lane_at(ipc + 17'd8, bhi) |
                                           lane_at(ipc + 17'd10, bhi) | lane_at(ipc + 17'd11, bhi);
      ipm_start[v] = ipc[16:LB] == bhi;
      // state before the covered bytes when the beat holds ip_off: U_lead StatePrefix
      ipm_init[32*v +: 32] = ipm_start[v] ? unzero_fast(StatePrefix, 8'(ipc[LB-1:0]), 0, ULevels) : StatePrefix;
    end
  end

  always_comb begin
    logic [16:0]          udp, bth, icrc;
    logic [BeatBytes-1:0] incl, ff, nib, at;
    udp  = {9'h0, udp_off_i};
    bth  = {9'h0, bth_off_i};
    icrc = {1'b0, icrc_off_i};
    // covered: [ip_off, icrc_off)
    incl = beat_keep_i & ipm_from[BeatBytes*ipv +: BeatBytes] & ~lanes_from(icrc, bhi);
    // invariant fields forced to ones (Annex A17.8)
    ff  = lane_at(udp + 17'd6, bhi) | lane_at(udp + 17'd7, bhi) | lane_at(bth + 17'd4, bhi) |
          (ipv6_i ? ipm_ff6[BeatBytes*ipv +: BeatBytes] : ipm_ff4[BeatBytes*ipv +: BeatBytes]);
    nib = ipv6_i ? ipm_nib[BeatBytes*ipv +: BeatBytes] : '0;
    s0_data = '0;
    for (int i = 0; i < BeatBytes; i++) begin
      if (incl[i]) begin
        s0_data[8*i +: 8] = beat_data_i[8*i +: 8] | (ff[i] ? 8'hFF : 8'h00) |
                            (nib[i] ? 8'h0F : 8'h00);
      end
    end
    s0_any = |incl;
    // stored ICRC bytes j = 0..3 at icrc_off + j
    s0_st_we   = 4'h0;
    s0_st_data = 32'h0;
    for (int j = 0; j < 4; j++) begin
      at = lane_at(icrc + 17'(j), bhi) & beat_keep_i;
      s0_st_we[j] = |at;
      for (int i = 0; i < BeatBytes; i++) begin
        if (at[i]) s0_st_data[8*j +: 8] = beat_data_i[8*i +: 8];
      end
    end
    s0_start = ipm_start[ipv];
    s0_init  = ipm_init[32*ipv +: 32];
    s0_trail = (icrc[16:LB] == bhi && icrc[LB-1:0] != '0) ?
               8'(9'(BeatBytes) - 9'(icrc[LB-1:0])) : 8'd0;
  end

  /////////////
  // Stage 1 //
  /////////////

  logic                 s1_valid_q;
  logic                 s1_any_q;
  logic                 s1_start_q;
  logic [31:0]          s1_init_q;
  logic [7:0]           s1_trail_q;
  logic [128*LANES-1:0] s1_data_q;
  logic [3:0]           s1_st_we_q;
  logic [31:0]          s1_st_data_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s1_valid_q <= 1'b0;
    end else begin
      s1_valid_q <= beat_valid_i;
    end
  end

  always_ff @(posedge clk_i) begin
    if (beat_valid_i) begin
      s1_any_q     <= s0_any;
      s1_start_q   <= s0_start;
      s1_init_q    <= s0_init;
      s1_trail_q   <= s0_trail;
      s1_data_q    <= s0_data;
      s1_st_we_q   <= s0_st_we;
      s1_st_data_q <= s0_st_data;
    end
  end

  logic [31:0] state_q;     // CRC state after the covered bytes so far, trailing zeros kept
  logic [7:0]  trail_q;     // trailing zero bytes in state_q (of the last covered beat)
  logic [31:0] state_d;
  logic [31:0] stored_q;
  // state_q with the first unzero level applied (U_(trail_q mod 4) state_q), registered with
  // it, so the output computes the remaining levels only: the whole unzero behind state_q was
  // the head of the stage's deepest path, into the ICRC compare of the parse output
  // (session 42)
  logic [31:0] state_u_q;

  assign state_d = beat_fast(s1_start_q ? s1_init_q : state_q, s1_data_q);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q   <= 32'hFFFF_FFFF;
      state_u_q <= 32'hFFFF_FFFF;  // U_0
      trail_q   <= 8'd0;
      stored_q  <= 32'h0;
    end else if (s1_valid_q) begin
      if (s1_any_q) begin
        state_q   <= state_d;
        state_u_q <= unzero_fast(state_d, s1_trail_q, 0, 1);
        trail_q   <= s1_trail_q;
      end
      for (int j = 0; j < 4; j++) begin
        if (s1_st_we_q[j]) stored_q[8*j +: 8] <= s1_st_data_q[8*j +: 8];
      end
    end
  end

  /////////////
  // Outputs //
  /////////////

  // (in always_comb: Yosys 0.70 infers latches for a function's loop variables in an assign)
  always_comb begin
    icrc_o = ~unzero_fast(state_u_q, trail_q, 1, ULevels);
  end
  // Without Stored (the emit's ICRC patch, which writes the field instead of reading it) the
  // capture has no load and synthesis removes it with its byte selection (session 15).
  assign stored_o = Stored ? stored_q : 32'h0;

  logic unused_base_lo;
  assign unused_base_lo = ^beat_base_i[LB-1:0];  // zero: beats are BeatBytes-aligned

endmodule
