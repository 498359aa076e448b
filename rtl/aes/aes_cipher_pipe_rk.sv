// SPDX-License-Identifier: Apache-2.0
//
// aes_cipher_pipe_rk: fully pipelined AES-128 encryption of Lanes blocks per cycle whose round
// keys 1..10 are read from round-key RAMs, one per round, at a slot index carried with the
// block, instead of being expanded next to every block as aes_cipher_pipe does.
//
// Data format
// -----------
// in_data_i / out_data_o hold Lanes 128-bit blocks, lane l in bits [128l +: 128], byte b0 of each
// in its top bits (FIPS 197 §3.4). in_key_i is round key 0, the AES-128 key itself (FIPS 197
// §5.2, byte k0 on top); in_rk_i names the slot that holds round keys 1..10 of the same key.
// Round-key write port: rk_we_i writes rk_data_i as round key rk_round_i (1..10; other values
// write nothing) of slot rk_slot_i. Its inputs are registered here, then the RAMs' write port
// is driven from a second set of registers (session 33: the zeroing's priority encoder had
// reached the write address of all 40 block RAMs in one cycle, the protect top's critical path):
// a written round key is read by blocks that reach that round 3 or more cycles after rk_we_i.
// A caller must not overwrite a slot while a block that reads it is in the pipeline (the key
// cache's rule: docs/rtl/tops.md, "Round-key RAMs"). in_tag_i rides to out_tag_o unchanged;
// in_valid_i has one bit per lane, and so does out_valid_o.
//
// Timing
// ------
// The same pipeline as aes_cipher_pipe with KeyLen 128 and SboxLatency 2, so the same latency,
// aes_pkg::aes_pipe_latency(128, 2) = 31 cycles, one word of Lanes blocks per cycle, no stall:
// stage 0 registers AddRoundKey(in, in_key_i); each round r = 1..10 reads SubBytes from the S-box
// ROMs and round key r from its RAM at the slot of the block in the same two cycles (address
// register and output register of the block RAM), then applies the round. All lanes share the
// round-key reads (they run in lockstep with one slot per word).
//
// Why: the key window of aes_cipher_pipe (128 bits x 3 registers per round and the expansion's
// SubWord ROM and logic) is about 3.2k FF and 20 DP16KD per pipeline after synthesis; ten
// RkSlots x 128 RAMs are 40 DP16KD for any RkSlots up to 512 (docs/rtl/aes.md). Round keys
// are key material: a reset marks every slot, and in each cycle without a write the port writes
// zeros to the lowest marked slot in all ten RAMs; a write clears its slot's mark
// (common_zero_marks, the schedule common_zero_ram uses too).
//
// Reset: valid flags, the write registers and the marks; state registers and RAM reads are not.

`resetall
`default_nettype none

module aes_cipher_pipe_rk #(
  parameter int unsigned Lanes    = 1,   // blocks per word
  parameter int unsigned TagWidth = 8,   // sideband carried with each word
  parameter int unsigned RkSlots  = 128  // round-key slots (power of two, <= 512)
) (
  input  wire logic                       clk_i,
  input  wire logic                       rst_ni,

  // Round-key write port
  input  wire logic                       rk_we_i,
  input  wire logic [$clog2(RkSlots)-1:0] rk_slot_i,
  input  wire logic [3:0]                 rk_round_i,
  input  wire logic [127:0]               rk_data_i,

  // Input words
  input  wire logic [Lanes-1:0]           in_valid_i,
  input  wire logic [TagWidth-1:0]        in_tag_i,
  input  wire logic [127:0]               in_key_i,    // round key 0
  input  wire logic [$clog2(RkSlots)-1:0] in_rk_i,     // slot of round keys 1..10
  input  wire logic [128*Lanes-1:0]       in_data_i,

  // Output words
  output logic      [Lanes-1:0]           out_valid_o,
  output logic      [TagWidth-1:0]        out_tag_o,
  output logic      [128*Lanes-1:0]       out_data_o
);

  localparam int unsigned Nr = 10;
  localparam int unsigned SW = $clog2(RkSlots);

  /////////////////////
  // Round-key write //
  /////////////////////

  logic               wr_we_q;
  logic [SW-1:0]      wr_slot_q;
  logic [3:0]         wr_round_q;
  logic [127:0]       wr_data_q;
  logic [SW-1:0]      ram_slot;
  logic               zero;
  // the RAMs' write port, registered
  logic               p_we_q, p_zero_q;
  logic [SW-1:0]      p_slot_q;
  logic [3:0]         p_round_q;
  logic [127:0]       p_data_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_we_q    <= 1'b0;
      wr_slot_q  <= '0;
      wr_round_q <= '0;
      wr_data_q  <= '0;
    end else begin
      wr_we_q    <= rk_we_i;
      wr_slot_q  <= rk_slot_i;
      wr_round_q <= rk_round_i;
      wr_data_q  <= rk_we_i ? rk_data_i : 128'h0;  // the copies hold no key after the write
    end
  end

  // this cycle's write: the round key, or zeros to the lowest slot marked since the reset
  common_zero_marks #(
    .Depth (RkSlots)
  ) u_marks (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .we_i    (wr_we_q),
    .waddr_i (wr_slot_q),
    .zero_i  ('0),
    .zero_o  (zero),
    .addr_o  (ram_slot)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      p_we_q    <= 1'b0;
      p_zero_q  <= 1'b0;
      p_slot_q  <= '0;
      p_round_q <= '0;
      p_data_q  <= '0;
    end else begin
      p_we_q    <= wr_we_q;
      p_zero_q  <= zero;
      p_slot_q  <= ram_slot;
      p_round_q <= wr_round_q;
      p_data_q  <= wr_data_q;  // zero unless wr_we_q
    end
  end

  /////////////////
  // Input stage //
  /////////////////

  // Registers at the end of round r (index 0 = input stage).
  logic [Lanes-1:0]     valid_q [Nr+1];
  logic [TagWidth-1:0]  tag_q   [Nr+1];
  logic [SW-1:0]        rk_q    [Nr+1];
  logic [128*Lanes-1:0] state_q [Nr+1];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) valid_q[0] <= '0;
    else         valid_q[0] <= in_valid_i;
  end

  always_ff @(posedge clk_i) begin
    tag_q[0] <= in_tag_i;
    rk_q[0]  <= in_rk_i;
    for (int l = 0; l < Lanes; l++) begin
      state_q[0][128*l +: 128] <= in_data_i[128*l +: 128] ^ in_key_i;  // AddRoundKey(rk0)
    end
  end

  ////////////
  // Rounds //
  ////////////

  for (genvar r = 1; r <= Nr; r++) begin : gen_round
    // Round key r of every slot: one write port (the registered write or the zeroing), one read
    // port with address register and output register (DP16KD, REGMODE OUTREG after
    // scripts/ebr_outreg.py).
    (* ram_style = "block", no_rw_check *) logic [127:0] rk_mem [RkSlots];
    logic [127:0]         rk_rd_q, rk_out_q;
    logic [Lanes-1:0]     a_valid_q [2];
    logic [TagWidth-1:0]  a_tag_q   [2];
    logic [SW-1:0]        a_rk_q    [2];
    logic [128*Lanes-1:0] a_sub_bytes;

    always_ff @(posedge clk_i) begin
      if ((p_we_q && p_round_q == 4'(r)) || p_zero_q) begin
        rk_mem[p_slot_q] <= p_data_q;
      end
    end

    always_ff @(posedge clk_i) begin
      rk_rd_q  <= rk_mem[rk_q[r-1]];
      rk_out_q <= rk_rd_q;
    end

    for (genvar l = 0; l < Lanes; l++) begin : gen_lane
      aes_sbox #(
        .NumBytes (16),
        .Latency  (2),
        .Tower    (1'b0)
      ) u_sbox (
        .clk_i  (clk_i),
        .en_i   (1'b1),
        .data_i (state_q[r-1][128*l +: 128]),
        .data_o (a_sub_bytes[128*l +: 128])
      );

      logic [127:0] b_state;

      aes_round #(
        .CombSbox (1'b0)
      ) u_round (
        .last_i (r == Nr),
        .data_i (a_sub_bytes[128*l +: 128]),
        .key_i  (rk_out_q),
        .data_o (b_state)
      );

      always_ff @(posedge clk_i) begin
        state_q[r][128*l +: 128] <= b_state;
      end
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        a_valid_q[0] <= '0;
        a_valid_q[1] <= '0;
        valid_q[r]   <= '0;
      end else begin
        a_valid_q[0] <= valid_q[r-1];
        a_valid_q[1] <= a_valid_q[0];
        valid_q[r]   <= a_valid_q[1];
      end
    end

    always_ff @(posedge clk_i) begin
      a_tag_q[0] <= tag_q[r-1];
      a_tag_q[1] <= a_tag_q[0];
      a_rk_q[0]  <= rk_q[r-1];
      a_rk_q[1]  <= a_rk_q[0];
      tag_q[r]   <= a_tag_q[1];
      rk_q[r]    <= a_rk_q[1];
    end
  end

  /////////////
  // Outputs //
  /////////////

  assign out_valid_o = valid_q[Nr];
  assign out_tag_o   = tag_q[Nr];
  assign out_data_o  = state_q[Nr];

  // The last stage's slot is not needed (no further round keys).
  logic unused_last_rk;
  assign unused_last_rk = ^rk_q[Nr];

endmodule

`resetall
