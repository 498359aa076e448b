// SPDX-License-Identifier: Apache-2.0
//
// aes_cipher_pipe: fully pipelined AES-128/256 encryption, key schedule carried per block.
//
// Data format
// -----------
// in_data_i / out_data_o are 128-bit blocks with byte b0 in bits [127:120] (FIPS 197 §3.4).
// in_key_i is KeyLen bits with key byte k0 in the most significant byte (FIPS 197 §5.2, the
// order of Appendix A/C). Each accepted block carries its own key: the key schedule (§5.2) runs
// in the pipeline next to the state, so consecutive blocks may use different keys (per-packet
// keys) at one block per clock. in_tag_i is an opaque sideband carried to out_tag_o unchanged.
//
// Timing
// ------
// Stage 0 registers AddRoundKey(in, rk0). Each round r = 1..Nr then takes SboxLatency + 1 stages:
// A (SboxLatency stages) reads SubBytes(state) and SubWord(last key word) from the registered
// S-box ROM (block RAM, plus an output register by default), B computes the round key and
// ShiftRows/MixColumns/AddRoundKey. Latency is aes_pkg::aes_pipe_latency(KeyLen, SboxLatency) =
// 1 + (SboxLatency + 1)*Nr cycles of en_i high: 31 for AES-128 and 43 for AES-256 with the
// default SboxLatency = 2 (21 and 29 with SboxLatency = 1, which P&R showed limited to ~77 MHz by
// the EBR clock-to-output). Throughput is one block per cycle.
// There is no ready: with en_i low the whole pipeline (including the ROM reads) holds and
// in_valid_i is ignored, which is how the enclosing core applies backpressure.
//
// Reset: valid flags and all key/round-key registers are cleared by rst_ni; state registers
// (bulk data) and the ROM read registers are not reset.

`resetall
`default_nettype none

module aes_cipher_pipe #(
  parameter int unsigned KeyLen   = 128,  // 128 (Nr = 10) or 256 (Nr = 14)
  parameter int unsigned TagWidth = 8,    // width of the sideband carried with each block
  parameter int unsigned SboxLatency = 2, // S-box ROM stages per round: 1 (read reg) or 2 (+ out reg)
  parameter bit          SboxTower   = 1'b0 // 1: S-boxes in tower-field logic, no block RAM (aes_sbox)
) (
  input  wire logic                clk_i,
  input  wire logic                rst_ni,
  input  wire logic                en_i,        // global pipeline enable (advance)

  // Input blocks
  input  wire logic                in_valid_i,
  input  wire logic [TagWidth-1:0] in_tag_i,
  input  wire logic [KeyLen-1:0]   in_key_i,
  input  wire logic [127:0]        in_data_i,   // plaintext block

  // Output blocks
  output logic                     out_valid_o,
  output logic      [TagWidth-1:0] out_tag_o,
  output logic      [127:0]        out_data_o   // ciphertext block
);

  localparam int unsigned Nr = aes_pkg::aes_num_rounds(KeyLen);

  if ((KeyLen != 128 && KeyLen != 256) || SboxLatency < 1 || SboxLatency > 2) begin : gen_param_check
    $error("aes_cipher_pipe: KeyLen must be 128 or 256, SboxLatency 1 or 2 (instance %m)");
  end

  /////////////
  // Signals //
  /////////////

  // Registers at the end of stage B of round r (index 0 = input stage).
  logic                valid_q [Nr+1];
  logic [TagWidth-1:0] tag_q   [Nr+1];
  logic [KeyLen-1:0]   key_q   [Nr+1];
  logic [127:0]        state_q [Nr+1];

  /////////////////
  // Input stage //
  /////////////////

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q[0] <= 1'b0;
      key_q[0]   <= '0;
    end else if (en_i) begin
      valid_q[0] <= in_valid_i;
      key_q[0]   <= in_key_i;
    end
  end

  always_ff @(posedge clk_i) begin
    if (en_i) begin
      tag_q[0]   <= in_tag_i;
      state_q[0] <= in_data_i ^ in_key_i[KeyLen-1 -: 128];  // AddRoundKey(rk0)
    end
  end

  ////////////
  // Rounds //
  ////////////

  for (genvar r = 1; r <= Nr; r++) begin : gen_round
    // Does this round derive its key through SubWord? (AES-256 round 1 uses k16..k31 as is.)
    localparam bit KeyStep = !(KeyLen == 256 && r == 1);

    logic                a_valid_q [SboxLatency];
    logic [TagWidth-1:0] a_tag_q   [SboxLatency];
    logic [KeyLen-1:0]   a_key_q   [SboxLatency];
    logic [127:0]        a_sub_bytes;   // SubBytes(state_q[r-1]), from the ROM
    logic [31:0]         a_sub_word;    // SubWord(last key word), from the ROM
    logic [KeyLen-1:0]   b_key;
    logic [127:0]        b_round_key;
    logic [127:0]        b_state;

    // Stage A: registered S-box reads, sideband and key window delayed alongside.
    aes_sbox #(
      .NumBytes (16),
      .Latency  (SboxLatency),
      .Tower    (SboxTower)
    ) u_sbox_state (
      .clk_i  (clk_i),
      .en_i   (en_i),
      .data_i (state_q[r-1]),
      .data_o (a_sub_bytes)
    );

    if (KeyStep) begin : gen_key_sbox
      aes_sbox #(
        .NumBytes (4),
        .Latency  (SboxLatency),
        .Tower    (SboxTower)
      ) u_sbox_key (
        .clk_i  (clk_i),
        .en_i   (en_i),
        .data_i (key_q[r-1][31:0]),
        .data_o (a_sub_word)
      );
    end else begin : gen_no_key_sbox
      assign a_sub_word = 32'h0;
    end

    for (genvar d = 0; d < SboxLatency; d++) begin : gen_delay
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) begin
          a_valid_q[d] <= 1'b0;
          a_key_q[d]   <= '0;
        end else if (en_i) begin
          a_valid_q[d] <= (d == 0) ? valid_q[r-1] : a_valid_q[(d == 0) ? 0 : d - 1];
          a_key_q[d]   <= (d == 0) ? key_q[r-1]   : a_key_q[(d == 0) ? 0 : d - 1];
        end
      end

      always_ff @(posedge clk_i) begin
        if (en_i) begin
          a_tag_q[d] <= (d == 0) ? tag_q[r-1] : a_tag_q[(d == 0) ? 0 : d - 1];
        end
      end
    end

    // Stage B: round key, then ShiftRows/MixColumns/AddRoundKey.
    if (KeyStep) begin : gen_key_step
      aes_key_expand #(
        .KeyLen (KeyLen)
      ) u_key_expand (
        .key_i  (a_key_q[SboxLatency-1]),
        .sub_i  (a_sub_word),
        .rot_i  (aes_pkg::aes_key_rot(KeyLen, r)),
        .rcon_i (aes_pkg::aes_key_rcon(KeyLen, r)),
        .key_o  (b_key),
        .rk_o   (b_round_key)
      );
    end else begin : gen_key_pass
      assign b_key       = a_key_q[SboxLatency-1];
      assign b_round_key = a_key_q[SboxLatency-1][127:0];
      logic unused_sub_word;
      assign unused_sub_word = ^a_sub_word;
    end

    aes_round #(
      .CombSbox (1'b0)
    ) u_round (
      .last_i (r == Nr),
      .data_i (a_sub_bytes),
      .key_i  (b_round_key),
      .data_o (b_state)
    );

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        valid_q[r] <= 1'b0;
        key_q[r]   <= '0;
      end else if (en_i) begin
        valid_q[r] <= a_valid_q[SboxLatency-1];
        key_q[r]   <= b_key;
      end
    end

    always_ff @(posedge clk_i) begin
      if (en_i) begin
        tag_q[r]   <= a_tag_q[SboxLatency-1];
        state_q[r] <= b_state;
      end
    end
  end

  /////////////
  // Outputs //
  /////////////

  assign out_valid_o = valid_q[Nr];
  assign out_tag_o   = tag_q[Nr];
  assign out_data_o  = state_q[Nr];

  // The last stage's key register is not needed (no further round keys).
  logic unused_last_key;
  assign unused_last_key = ^key_q[Nr];

endmodule

`resetall
