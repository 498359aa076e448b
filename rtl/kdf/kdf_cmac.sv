// SPDX-License-Identifier: Apache-2.0
//
// kdf_cmac: AES-CMAC (SP 800-38B) and the rocesec key derivation, KBKDF in counter mode with
// AES-CMAC as PRF (SP 800-108r1 §4.1), on one iterative AES core.
//
// Data format
// -----------
// req_key_i: parent key, KeyLen bits, key byte k0 on top (FIPS 197 §5.2). req_msg_i: MaxMsgBytes
// bytes, byte 0 in the top byte; only the first req_msg_len_i bytes are used (the rest is masked).
// Blocks are most-significant-byte first (SP 800-38B §5.3 strings).
//   req_kdf_i = 0: rsp_key_o[255:128] = CMAC(K, msg) (SP 800-38B §6.2, full 128-bit tag);
//                  rsp_key_o[127:0] = 0.
//   req_kdf_i = 1: msg is Label || 0x00 || Context; the engine appends [L]_32 (L = 128 or 256 by
//                  req_out256_i) and computes K(i) = CMAC(K, [i]_32 || msg || [L]_32) for
//                  i = 1..L/128, rsp_key_o = K(1) || K(2) (K(2) = 0 for L = 128), as
//                  rocesec_model::kdf::derive_key.
//   req_enc_i = 1: raw one-block encryption (FIPS 197 Cipher), rsp_key_o[255:128] = AES_K(M_1)
//                  with M_1 the first 16 message bytes (req_kdf_i ignored; rsp_key_o[127:0] = 0).
//                  Used for the GCM hash subkey H = E_K(0^128) of a derived key (SP 800-38D
//                  §6.4); leaves the cached CMAC subkeys untouched.
// The subkeys K1/K2 (SP 800-38B §6.1) are cached for the last parent key, so a request with the
// same key skips the AES(K, 0^128) step.
//
// Timing
// ------
// Iterative: each AES block takes aes_pkg::aes_pipe_latency(KeyLen, 2) cycles (31 or 43) plus one
// cycle of control. A request takes (subkey miss ? 1 : 0) + N_out * N_blk AES blocks, with
// N_blk = max(1, ceil(len(M) / 16)), len(M) = msg_len (+ 8 in KDF mode); e.g. a 128-bit key from
// a 16-byte message with a cached subkey: 2 blocks, about 70 cycles. An encryption request is
// one AES block (about 35 cycles). req_ready_o is high while
// idle; rsp_valid_o pulses for one cycle with rsp_key_o, which holds until the next response.
// Reset clears all key-dependent registers (key, subkeys, chaining value).
//
// Round keys of an encryption request: while it runs, enc_rk_valid_o is high in the cycle that
// applies round enc_rk_round_o (1..Nr) and enc_rk_o is its round key (aes_cipher_iter rk_o,
// combinational); low for every other request. rocesec_key_cache copies them for the data path.

`resetall
`default_nettype none

module kdf_cmac #(
  parameter int unsigned KeyLen      = 128,  // parent key length: 128 or 256
  parameter int unsigned MaxMsgBytes = 48    // maximum Label || 0x00 || Context (CMAC msg) bytes
) (
  input  wire logic                       clk_i,
  input  wire logic                       rst_ni,

  // Request
  input  wire logic                       req_valid_i,
  output logic                            req_ready_o,
  input  wire logic [KeyLen-1:0]          req_key_i,
  input  wire logic                       req_kdf_i,     // 1: KBKDF, 0: plain CMAC
  input  wire logic                       req_enc_i,     // 1: raw AES_K(first block)
  input  wire logic                       req_out256_i,  // KBKDF output length 256 (else 128)
  input  wire logic [8*MaxMsgBytes-1:0]   req_msg_i,
  input  wire logic [$clog2(MaxMsgBytes+1)-1:0] req_msg_len_i,

  // Response
  output logic                            rsp_valid_o,
  output logic      [255:0]               rsp_key_o,

  // Round keys of an encryption request
  output logic                            enc_rk_valid_o,
  output logic      [3:0]                 enc_rk_round_o,
  output logic      [127:0]               enc_rk_o
);

  localparam int unsigned MBytes = MaxMsgBytes + 8;       // [i]_32 || msg || [L]_32
  localparam int unsigned NBlk   = (MBytes + 15) / 16;    // blocks of the longest M
  localparam int unsigned QW     = 128 * NBlk;            // message store (msg || [L]_32 || 0..)
  localparam int unsigned IdxW   = $clog2(NBlk + 1);
  localparam int unsigned LenW   = $clog2(MBytes + 1);

  if (KeyLen != 128 && KeyLen != 256) begin : gen_param_check
    $error("kdf_cmac: KeyLen must be 128 or 256 (instance %m)");
  end

  typedef enum logic [2:0] {
    StIdle,
    StSubkey,    // AES(K, 0) running
    StBlock,     // start AES on the next message block
    StWait,      // AES running on a message block
    StRespond
  } state_e;

  /////////////
  // Signals //
  /////////////

  state_e            state_q;
  logic [KeyLen-1:0] key_q;
  logic              kdf_q, out256_q, enc_q;
  logic [QW-1:0]     msg_q;        // msg || [L]_32 (KDF) at byte 0, zero padded
  logic [IdxW-1:0]   blk_idx_q;    // index of the next block of M
  logic [LenW-1:0]   mlen_q;       // len(M) in bytes
  logic [LenW-1:0]   rem_q;        // bytes of M not yet consumed
  logic [1:0]        ctr_q;        // KBKDF counter i (1 or 2)
  logic [127:0]      x_q;          // CBC-MAC chaining value
  logic [127:0]      k1_q, k2_q;
  logic [KeyLen-1:0] cache_key_q;
  logic              cache_valid_q;
  logic              cache_hit;      // the subkeys are those of key_q (compared in StSubkey)

  logic              aes_start, aes_busy, aes_done;
  logic [127:0]      aes_in, aes_out;

  logic [QW-1:0]     msg_init;
  logic [LenW-1:0]   mlen_init;
  logic [QW+31:0]    msg_ext;      // [i]_32 || msg_q
  logic [127:0]      blk, blk_last;
  logic              is_last, complete;

  //////////////////
  // Request data //
  //////////////////

  // msg_q byte b: message byte b below req_msg_len_i, else 0; in KDF mode [L]_32 follows the
  // message (L = 128: byte len+3 = 0x80; L = 256: byte len+2 = 0x01). Per-byte decode, no shifter.
  always_comb begin
    for (int b = 0; b < QW / 8; b++) begin
      logic [7:0] v;
      v = (b < MaxMsgBytes && b < int'(req_msg_len_i)) ? req_msg_i[8 * MaxMsgBytes - 1 - 8 * ((b < MaxMsgBytes) ? b : 0) -: 8]
                                                      : 8'h00;
      if (req_kdf_i && !req_enc_i && !req_out256_i && b == int'(req_msg_len_i) + 3) v = v | 8'h80;
      if (req_kdf_i && !req_enc_i &&  req_out256_i && b == int'(req_msg_len_i) + 2) v = v | 8'h01;
      msg_init[QW - 1 - 8 * b -: 8] = v;
    end
  end

  assign mlen_init = req_kdf_i ? LenW'(req_msg_len_i) + LenW'(8) : LenW'(req_msg_len_i);

  ///////////////////
  // Message block //
  ///////////////////

  // Block j of M: KDF M = [i]_32 || msg_q, so block j is bits [top - 128j] of msg_ext; CMAC
  // M = msg_q, i.e. the same window 32 bits lower. Fixed offsets: a (2 NBlk):1 block mux.
  assign msg_ext = {(kdf_q ? {30'h0, ctr_q} : 32'h0), msg_q};
  always_comb begin
    blk = '0;
    for (int j = 0; j < NBlk; j++) begin
      if (int'(blk_idx_q) == j) blk = kdf_q ? msg_ext[QW + 31 - 128 * j -: 128]
                                            : msg_ext[QW - 1 - 128 * j -: 128];
    end
  end

  assign is_last  = (rem_q <= LenW'(16));
  assign complete = (rem_q == LenW'(16));
  // Last block: complete -> ^ K1; else pad 10* (byte rem_q = 0x80, rest already zero) and ^ K2.
  assign blk_last = complete ? (blk ^ k1_q)
                             : (blk ^ k2_q ^ (128'h80 << (8 * (15 - int'(rem_q[3:0])))));
  assign aes_in   = (state_q == StIdle || state_q == StSubkey) ? 128'h0
                  : enc_q ? blk
                  : (x_q ^ (is_last ? blk_last : blk));

  logic aes_rk_valid;

  aes_cipher_iter #(
    .KeyLen      (KeyLen),
    .SboxLatency (2)
  ) u_aes (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .start_i (aes_start),
    .key_i   (key_q),
    .data_i  (aes_in),
    .busy_o  (aes_busy),
    .done_o  (aes_done),
    .data_o  (aes_out),
    .rk_valid_o (aes_rk_valid),
    .rk_round_o (enc_rk_round_o),
    .rk_o       (enc_rk_o)
  );

  // only an encryption request's block runs in StWait with enc_q
  assign enc_rk_valid_o = aes_rk_valid && enc_q && (state_q == StWait);

  /////////////
  // Control //
  /////////////

  assign req_ready_o = (state_q == StIdle);
  // Registered key against registered key: the request's key mux (req_key_i) only loads key_q.
  assign cache_hit   = cache_valid_q && (cache_key_q == key_q);
  assign aes_start   = (state_q == StBlock) ||
                       (state_q == StSubkey && !aes_busy && !aes_done && !cache_hit);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q       <= StIdle;
      key_q         <= '0;
      kdf_q         <= 1'b0;
      out256_q      <= 1'b0;
      enc_q         <= 1'b0;
      msg_q         <= '0;
      blk_idx_q     <= '0;
      mlen_q        <= '0;
      rem_q         <= '0;
      ctr_q         <= 2'd1;
      x_q           <= '0;
      k1_q          <= '0;
      k2_q          <= '0;
      cache_key_q   <= '0;
      cache_valid_q <= 1'b0;
      rsp_valid_o   <= 1'b0;
      rsp_key_o     <= '0;
    end else begin
      rsp_valid_o <= 1'b0;
      unique case (state_q)
        StIdle: begin
          if (req_valid_i) begin
            key_q      <= req_key_i;
            kdf_q      <= req_kdf_i && !req_enc_i;
            enc_q      <= req_enc_i;
            out256_q   <= req_out256_i;
            msg_q      <= msg_init;
            blk_idx_q  <= '0;
            mlen_q     <= mlen_init;
            rem_q      <= mlen_init;
            ctr_q      <= 2'd1;
            x_q        <= '0;
            rsp_key_o  <= '0;
            if (req_enc_i) begin
              state_q <= StBlock;  // no subkeys; the cache stays valid for its key
            end else begin
              state_q <= StSubkey;
            end
          end
        end
        StSubkey: begin
          // Cached subkeys for this key: go straight to the message.
          if (cache_hit) begin
            state_q <= StBlock;
          end else if (aes_done) begin
            k1_q          <= kdf_pkg::kdf_dbl(aes_out);
            k2_q          <= kdf_pkg::kdf_dbl(kdf_pkg::kdf_dbl(aes_out));
            cache_key_q   <= key_q;
            cache_valid_q <= 1'b1;
            state_q       <= StBlock;
          end
        end
        StBlock: begin
          state_q <= StWait;
        end
        StWait: begin
          if (aes_done) begin
            if (enc_q) begin
              rsp_key_o[255:128] <= aes_out;
              state_q            <= StRespond;
            end else if (!is_last) begin
              x_q       <= aes_out;
              blk_idx_q <= blk_idx_q + IdxW'(1);
              rem_q     <= rem_q - LenW'(16);
              state_q <= StBlock;
            end else begin
              // K(ctr) complete.
              if (ctr_q == 2'd1) rsp_key_o[255:128] <= aes_out;
              else               rsp_key_o[127:0]   <= aes_out;
              if (kdf_q && out256_q && ctr_q == 2'd1) begin
                ctr_q     <= 2'd2;
                x_q       <= '0;
                blk_idx_q <= '0;
                rem_q     <= mlen_q;
                state_q <= StBlock;
              end else begin
                state_q <= StRespond;
              end
            end
          end
        end
        StRespond: begin
          rsp_valid_o <= 1'b1;
          x_q         <= '0;
          key_q       <= '0;
          state_q     <= StIdle;
        end
        default: state_q <= StIdle;
      endcase
    end
  end

endmodule

`resetall
