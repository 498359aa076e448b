// SPDX-License-Identifier: Apache-2.0
//
// rocesec_key_kdf: SP 800-108r1 KBKDF (counter mode, PRF = AES-CMAC of SP 800-38B) for one
// AES-128 output block, plus the GCM hash subkey H = E_K'(0^128) of the derived key K'
// (SP 800-38D §6.4). Sequences an external AES pipeline (aes_cipher_pipe) one block at a time.
//
// Data format
// -----------
// msg_i is the whole PRF input [1]_32 ‖ Label ‖ 0x00 ‖ Context ‖ [L]_32 (model/src/kdf.rs
// derive_key, r = 32, L = 128), byte 0 in bits [383:376], msg_len_i bytes (17..48), zero after.
// CMAC (SP 800-38B §6.2): L = E_K(0), K1 = dbl(L), K2 = dbl(K1); the last block is M_n ^ K1 if
// complete, else (M_n ‖ 10*) ^ K2; T = CBC-MAC. key_i/key_o/h_o are blocks with byte 0 in the
// most significant bits (FIPS 197 order). AES calls: 1 (L) + n (CBC) + 1 (H), each waiting for
// the pipeline result (no fixed latency assumed).
//
// Note: stands in for rtl/kdf/kdf_cmac.sv until that block lands; same arithmetic.

`resetall
`default_nettype none

module rocesec_key_kdf (
  input  wire logic         clk_i,
  input  wire logic         rst_ni,

  input  wire logic         start_i,
  input  wire logic [127:0] key_i,      // parent key (K_pd or K_mr)
  input  wire logic [383:0] msg_i,
  input  wire logic [5:0]   msg_len_i,
  output logic              busy_o,
  output logic              done_o,     // pulse: key_o and h_o valid (held until next start)
  output logic      [127:0] key_o,
  output logic      [127:0] h_o,

  // AES pipeline port
  output logic              aes_valid_o,
  output logic      [127:0] aes_key_o,
  output logic      [127:0] aes_data_o,
  input  wire logic         aes_valid_i,
  input  wire logic [127:0] aes_data_i
);

  function automatic logic [127:0] dbl(logic [127:0] x);
    dbl = {x[126:0], 1'b0} ^ (x[127] ? 128'h87 : 128'h0);
  endfunction

  typedef enum logic [2:0] {
    StIdle, StIssueL, StWaitL, StIssueBlk, StWaitBlk, StIssueH, StWaitH
  } state_e;

  state_e       state_q;
  logic [127:0] pkey_q;      // parent key (cleared when idle)
  logic [383:0] msg_q;
  logic [1:0]   nblk_q;      // number of blocks - 1
  logic [1:0]   blk_q;       // current block index
  logic         full_q;      // last block complete
  logic [127:0] k1_q, k2_q;
  logic [127:0] x_q;         // CBC chain value
  logic [127:0] mblk;

  always_comb begin
    logic [127:0] m;
    m = msg_q[383 - 128*blk_q -: 128];
    if (blk_q == nblk_q) m = m ^ (full_q ? k1_q : k2_q);
    mblk = m;
  end

  assign busy_o = (state_q != StIdle);

  always_comb begin
    aes_valid_o = 1'b0;
    aes_key_o   = pkey_q;
    aes_data_o  = 128'h0;
    unique case (state_q)
      StIssueL:   aes_valid_o = 1'b1;
      StIssueBlk: begin
        aes_valid_o = 1'b1;
        aes_data_o  = x_q ^ mblk;
      end
      StIssueH: begin
        aes_valid_o = 1'b1;
        aes_key_o   = key_o;
      end
      default: ;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
      pkey_q  <= '0;
      msg_q   <= '0;
      nblk_q  <= '0;
      blk_q   <= '0;
      full_q  <= 1'b0;
      k1_q    <= '0;
      k2_q    <= '0;
      x_q     <= '0;
      key_o   <= '0;
      h_o     <= '0;
      done_o  <= 1'b0;
    end else begin
      done_o <= 1'b0;
      unique case (state_q)
        StIdle: begin
          if (start_i) begin
            pkey_q  <= key_i;
            msg_q   <= msg_i;
            if (msg_len_i[3:0] != 4'd0) begin
              msg_q[383 - 8*msg_len_i -: 8] <= 8'h80;  // 10* padding
            end
            nblk_q  <= 2'(({2'b0, msg_len_i} + 8'd15) / 8'd16 - 8'd1);
            full_q  <= (msg_len_i[3:0] == 4'd0);
            blk_q   <= '0;
            x_q     <= '0;
            state_q <= StIssueL;
          end
        end
        StIssueL: state_q <= StWaitL;
        StWaitL: begin
          if (aes_valid_i) begin
            k1_q    <= dbl(aes_data_i);
            k2_q    <= dbl(dbl(aes_data_i));
            state_q <= StIssueBlk;
          end
        end
        StIssueBlk: state_q <= StWaitBlk;
        StWaitBlk: begin
          if (aes_valid_i) begin
            x_q <= aes_data_i;
            if (blk_q == nblk_q) begin
              key_o   <= aes_data_i;
              state_q <= StIssueH;
            end else begin
              blk_q   <= blk_q + 2'd1;
              state_q <= StIssueBlk;
            end
          end
        end
        StIssueH: state_q <= StWaitH;
        StWaitH: begin
          if (aes_valid_i) begin
            h_o     <= aes_data_i;
            done_o  <= 1'b1;
            state_q <= StIdle;
            // clear intermediate key material
            pkey_q  <= '0;
            k1_q    <= '0;
            k2_q    <= '0;
            x_q     <= '0;
          end
        end
        default: state_q <= StIdle;
      endcase
    end
  end

endmodule
