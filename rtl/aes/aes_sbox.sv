// SPDX-License-Identifier: Apache-2.0
//
// aes_sbox: registered (synchronous-read) AES S-box ROM for NumBytes parallel byte lookups.
//
// Data format
// -----------
// data_i/data_o hold NumBytes bytes, byte j in bits [8*NumBytes-1-8j -: 8] (byte 0 on top, as
// FIPS 197 §3.4 orders a state). data_o = SubBytes(data_i) (FIPS 197 §5.1.1) Latency clocks of
// en_i high after data_i was presented (1: the ROM read register; 2: plus an output register that
// takes the slow EBR clock-to-output off the next logic path); with en_i low data_o holds. Lookups are grouped in pairs
// that share one ROM with two read ports, so synth_ecp5 maps each pair onto one DP16KD block RAM
// (256 x 8 of its 2048 x 9, both ports used); the read register is the EBR's own address
// register, so no LUTs are spent on the substitution. Yosys 0.70 does not fold the output register
// into the DP16KD (REGMODE stays NOREG, 8 fabric FFs per lookup); scripts/ebr_outreg.py does, on
// the netlist before nextpnr (REGMODE OUTREG). The ROM contents are not reset (the output is a
// data path register, like the EBR it becomes).
//
// Tower = 1 computes each lookup in logic instead (aes_pkg::aes_sbox_tower_in/_out, the inverse in
// GF((2^4)^2)), for when block RAM runs out (four AES pipes at LANES = 4 would need 400 DP16KD,
// the LFE5U-85F has 208). Same ports, same Latency: with Latency 2 the first register holds the
// 12-bit middle value {tower image, d} (splitting the logic depth about in half), the second the
// result; with Latency 1 the whole function sits before one register.
//
// FAULT_SBOX (test-only define): flips bit 0 of entry 0x53 in every ROM copy (and of the tower
// result for input 0x53) so the co-simulation can prove that a wrong S-box is detected.

`resetall
`default_nettype none

module aes_sbox #(
  parameter int unsigned NumBytes = 16,  // number of parallel lookups, even
  parameter int unsigned Latency  = 2,   // 1: ROM read register only; 2: plus an output register
  parameter bit          Tower    = 1'b0  // 0: DP16KD ROM pairs; 1: tower-field logic (no ROM)
) (
  input  wire logic                    clk_i,
  input  wire logic                    en_i,
  input  wire logic [8*NumBytes-1:0]   data_i,
  output logic      [8*NumBytes-1:0]   data_o
);

  if (NumBytes % 2 != 0 || NumBytes == 0 || Latency < 1 || Latency > 2) begin : gen_param_check
    $error("aes_sbox: NumBytes must be even and > 0, Latency 1 or 2 (instance %m)");
  end

  if (Tower) begin : gen_tower
    for (genvar b = 0; b < NumBytes; b++) begin : gen_byte
      logic [7:0]  x;
      logic [11:0] mid;
      logic [7:0]  y;
      assign x = data_i[8 * NumBytes - 1 - 8 * b -: 8];
      if (Latency == 2) begin : gen_two
        logic [11:0] mid_q;
        logic [7:0]  out_q;
        always_ff @(posedge clk_i) begin
          if (en_i) begin
            mid_q <= aes_pkg::aes_sbox_tower_in(x);
            out_q <= y;
          end
        end
        assign mid = mid_q;
        assign data_o[8 * NumBytes - 1 - 8 * b -: 8] = out_q;
      end else begin : gen_one
        logic [7:0] out_q;
        always_ff @(posedge clk_i) begin
          if (en_i) out_q <= y;
        end
        assign mid = aes_pkg::aes_sbox_tower_in(x);
        assign data_o[8 * NumBytes - 1 - 8 * b -: 8] = out_q;
      end
`ifdef FAULT_SBOX
      // The middle value of 0x53 identifies it (the tower map is a bijection).
      assign y = aes_pkg::aes_sbox_tower_out(mid) ^
                 {7'h0, mid == aes_pkg::aes_sbox_tower_in(8'h53)};
`else
      assign y = aes_pkg::aes_sbox_tower_out(mid);
`endif
    end
  end else begin : gen_rom_pairs
    for (genvar p = 0; p < NumBytes / 2; p++) begin : gen_rom
      // One ROM, two synchronous read ports (bytes 2p and 2p+1).
      (* ram_style = "block", rom_style = "block" *)
      logic [7:0] rom [256];
      logic [7:0] rd_a_q, rd_b_q;

      initial begin
        for (int i = 0; i < 256; i++) begin
          rom[i] = aes_pkg::SBOX[8 * i +: 8];
        end
`ifdef FAULT_SBOX
        rom[8'h53] = aes_pkg::SBOX[8 * 8'h53 +: 8] ^ 8'h01;
`endif
      end

      always_ff @(posedge clk_i) begin
        if (en_i) begin
          rd_a_q <= rom[data_i[8 * NumBytes - 1 - 16 * p -: 8]];
          rd_b_q <= rom[data_i[8 * NumBytes - 9 - 16 * p -: 8]];
        end
      end

      if (Latency == 2) begin : gen_out_reg
        // Output register: absorbed into the DP16KD (REGMODE OUTREG) or placed next to it, it takes
        // the slow EBR clock-to-output (about 6 ns on ECP5-6) off the logic path.
        logic [7:0] out_a_q, out_b_q;
        always_ff @(posedge clk_i) begin
          if (en_i) begin
            out_a_q <= rd_a_q;
            out_b_q <= rd_b_q;
          end
        end
        assign data_o[8 * NumBytes - 1 - 16 * p -: 8] = out_a_q;
        assign data_o[8 * NumBytes - 9 - 16 * p -: 8] = out_b_q;
      end else begin : gen_no_out_reg
        assign data_o[8 * NumBytes - 1 - 16 * p -: 8] = rd_a_q;
        assign data_o[8 * NumBytes - 9 - 16 * p -: 8] = rd_b_q;
      end
    end
  end

endmodule

`resetall
