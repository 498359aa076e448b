// SPDX-License-Identifier: Apache-2.0
//
// aes_cipher_iter: iterative (one round at a time) AES-128/256 encryption for control-path users
// such as the KDF; small: one round of logic and 10 S-box block-RAM lookups.
//
// Data format
// -----------
// key_i (KeyLen bits, key byte k0 on top, FIPS 197 §5.2), data_i and data_o (blocks, byte b0 in
// bits [127:120], FIPS 197 §3.4), as in aes_cipher_pipe.
//
// Timing
// ------
// start_i (accepted while !busy_o) loads AddRoundKey(data_i, rk0) and the key window. Each round
// then waits SboxLatency cycles for the registered S-box ROM (aes_sbox) and applies the round in
// the next cycle. done_o pulses and data_o is updated aes_pkg::aes_pipe_latency(KeyLen,
// SboxLatency) clock edges after the edge accepting start_i (31 for AES-128, 43 for AES-256 with
// the default SboxLatency = 2); data_o holds until the next completion. Key registers and the
// state are cleared by reset and the key window is cleared when the block completes.
//
// Round keys: rk_valid_o is high in the cycle that applies round r = rk_round_o (1..Nr), with its
// round key on rk_o (FIPS 197 §5.2 w[4r..4r+3], word 4r in the top bits), combinational. Round
// key 0 is key_i itself. rocesec_key_cache copies them into the data path's round-key RAMs while
// it computes H = E_K(0^128) (aes_cipher_pipe_rk).

`resetall
`default_nettype none

module aes_cipher_iter #(
  parameter int unsigned KeyLen      = 128,  // 128 or 256
  parameter int unsigned SboxLatency = 2     // 1 or 2, see aes_sbox
) (
  input  wire logic              clk_i,
  input  wire logic              rst_ni,

  input  wire logic              start_i,
  input  wire logic [KeyLen-1:0] key_i,
  input  wire logic [127:0]      data_i,
  output logic                   busy_o,

  output logic                   done_o,
  output logic      [127:0]      data_o,

  output logic                   rk_valid_o,
  output logic      [3:0]        rk_round_o,
  output logic      [127:0]      rk_o
);

  localparam int unsigned Nr = aes_pkg::aes_num_rounds(KeyLen);

  if ((KeyLen != 128 && KeyLen != 256) || SboxLatency < 1 || SboxLatency > 2) begin : gen_param_check
    $error("aes_cipher_iter: KeyLen must be 128 or 256, SboxLatency 1 or 2 (instance %m)");
  end

  /////////////
  // Signals //
  /////////////

  logic              busy_q;
  logic [3:0]        round_q;    // current round 1..Nr
  logic [1:0]        phase_q;    // 0..SboxLatency
  logic [127:0]      state_q;
  logic [KeyLen-1:0] key_q;
  logic [127:0]      sub_bytes;
  logic [31:0]       sub_word;
  logic [KeyLen-1:0] key_next;
  logic [127:0]      rk_exp, round_key, state_next;
  logic              key_step, round_done, last_round;

  //////////
  // Data //
  //////////

  aes_sbox #(
    .NumBytes (20),
    .Latency  (SboxLatency)
  ) u_sbox (
    .clk_i  (clk_i),
    .en_i   (1'b1),
    .data_i ({state_q, key_q[31:0]}),
    .data_o ({sub_bytes, sub_word})
  );

  aes_key_expand #(
    .KeyLen (KeyLen)
  ) u_key_expand (
    .key_i  (key_q),
    .sub_i  (sub_word),
    .rot_i  (aes_pkg::aes_key_rot(KeyLen, 32'(round_q))),
    .rcon_i (aes_pkg::aes_key_rcon(KeyLen, 32'(round_q))),
    .key_o  (key_next),
    .rk_o   (rk_exp)
  );

  // AES-256 round 1 uses k16..k31 directly (FIPS 197 §5.2).
  assign key_step  = !(KeyLen == 256 && round_q == 4'd1);
  assign round_key = key_step ? rk_exp : key_q[127:0];

  assign last_round = (round_q == 4'(Nr));

  aes_round #(
    .CombSbox (1'b0)
  ) u_round (
    .last_i (last_round),
    .data_i (sub_bytes),
    .key_i  (round_key),
    .data_o (state_next)
  );

  /////////////
  // Control //
  /////////////

  assign round_done = busy_q && (phase_q == 2'(SboxLatency));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q  <= 1'b0;
      round_q <= 4'd1;
      phase_q <= 2'd0;
      state_q <= '0;
      key_q   <= '0;
      done_o  <= 1'b0;
      data_o  <= '0;
    end else begin
      done_o <= 1'b0;
      if (!busy_q) begin
        if (start_i) begin
          busy_q  <= 1'b1;
          round_q <= 4'd1;
          phase_q <= 2'd0;
          state_q <= data_i ^ key_i[KeyLen-1 -: 128];
          key_q   <= key_i;
        end
      end else if (round_done) begin
        phase_q <= 2'd0;
        if (last_round) begin
          busy_q <= 1'b0;
          done_o <= 1'b1;
          data_o <= state_next;
          key_q  <= '0;
        end else begin
          round_q <= round_q + 4'd1;
          state_q <= state_next;
          key_q   <= key_step ? key_next : key_q;
        end
      end else begin
        phase_q <= phase_q + 2'd1;
      end
    end
  end

  /////////////
  // Outputs //
  /////////////

  assign busy_o = busy_q;

  assign rk_valid_o = round_done;
  assign rk_round_o = round_q;
  assign rk_o       = round_key;

endmodule

`resetall
