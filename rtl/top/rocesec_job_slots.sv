// SPDX-License-Identifier: Apache-2.0
//
// rocesec_job_slots: stage `emit`, the slot bookkeeping of the job table that both emits
// (rocesec_protect_emit, rocesec_verify_emit) keep per frame in flight — model/src/timing.rs
// and timing_verify.rs, `emit.jobs` slots.
//
// Data format
// -----------
// NumJobs slots (a power of two >= 2), filled in order at wr_ptr_o by the key stage's jobs
// (job_valid_i / job_ready_o), freed in any order by the emit's last output beat of the job
// (free_we_i at free_slot_i). Per slot:
//   valid      the slot holds a job (set by its job, cleared by its free);
//   ekj0_v     E_K(J0) of the job has been written (ekj0_we_i), cleared by a new job;
//   hash_v     the frame's GHASH has been written (hash_we_i), cleared by a new job;
//   done_v     the final verdict has come (done_valid_i, in job order: the oldest job without
//              one), cleared by a new job; with its reason (4 bits) and forwarding (2 bits);
//   kh         {key, H} of the job (2 x 128 bits, byte 0 in the top bits);
//   ekj0       E_K(J0), the encrypted pre-counter block that masks the tag (SP 800-38D §7.1,
//              step 6).
// The key material is held in three common_zero_ram instances of NumJobs x 128 bits (key, H,
// E_K(J0); distributed RAM, since session 32 in place of 3,072 registers) and zeroed after the
// job leaves: a free marks the slot's entries, and each RAM writes zeros to its lowest marked
// entry in every cycle it has no data to write (key and H: a job; E_K(J0): ekj0_we_i). The
// zeroing is decided from the registered marks alone, so free_we_i (late in the cycle: it
// comes from the output's tready) reaches only the marks' D, not the RAMs' write ports. A
// reset marks every entry. Between a free and the zeroing a read port may show the old entry
// where the registers showed zeros (the keystream generator reads the key of a job freed
// early, a truncated frame, while it drains that job's words), but no such read reaches an
// output: the generator's words of a freed job are dropped, and H and E_K(J0) are read only
// for a valid job that has written them.
//
// Timing
// ------
// job_ready_o comes from a register: it holds !valid[wr_ptr_o], computed a cycle early from the
// table's next state (free_we_i clears a slot, a job fills slot wr_ptr_o and moves wr_ptr_o on),
// so the key stage's job handshake starts at a flop, not at a NumJobs:1 read of the valid bits
// (the start of both whole tops' critical path at ebad3bb, docs/rtl/fmax-log.md "Session 29").
// It is the same value every cycle for NumJobs >= 2: no cycle differs from the read.
// done_next_o is the D of every slot's done bit (a verdict's set wins over a new job's clear),
// for the ICRC patch's registered verdict wait (rocesec_icrc_patch done_next_i), and job_fire_o
// is job_valid_i && job_ready_o; the bit vectors are registers, the read ports asynchronous
// reads of the RAMs and of register arrays indexed by the slot (read as packed vectors indexed
// by slot·width, Yosys mapped the same reads with about 600 LUT4 and 600 PFUMX more in the
// protect top, session 31).

`resetall
`default_nettype none

module rocesec_job_slots
#(
  parameter int unsigned NumJobs = 8  // slots: a power of two >= 2
) (
  input  wire logic                        clk_i,
  input  wire logic                        rst_ni,

  // Jobs from the key stage
  input  wire logic                        job_valid_i,
  output logic                             job_ready_o,
  input  wire logic [127:0]                job_key_i,
  input  wire logic [127:0]                job_h_i,
  output logic                             job_fire_o,     // job_valid_i && job_ready_o
  output logic      [$clog2(NumJobs)-1:0]  wr_ptr_o,       // the slot a job fills

  // Events from the emit's stages
  input  wire logic                        free_we_i,      // the job of free_slot_i has left
  input  wire logic [$clog2(NumJobs)-1:0]  free_slot_i,
  input  wire logic                        done_valid_i,   // the oldest job's final verdict
  input  wire logic [3:0]                  done_reason_i,
  input  wire logic [1:0]                  done_fwd_i,
  input  wire logic                        ekj0_we_i,
  input  wire logic [$clog2(NumJobs)-1:0]  ekj0_slot_i,
  input  wire logic [127:0]                ekj0_data_i,
  input  wire logic                        hash_we_i,
  input  wire logic [$clog2(NumJobs)-1:0]  hash_slot_i,

  // Slot state: every slot's bits
  output logic      [NumJobs-1:0]          valid_o,
  output logic      [NumJobs-1:0]          ekj0_v_o,
  output logic      [NumJobs-1:0]          hash_v_o,
  output logic      [NumJobs-1:0]          done_next_o,

  // Read ports (asynchronous): the key and H, E_K(J0) and the verdict of the slot named
  input  wire logic [$clog2(NumJobs)-1:0]  key_slot_i,
  output logic      [127:0]                key_o,
  input  wire logic [$clog2(NumJobs)-1:0]  h_slot_i,
  output logic      [127:0]                h_o,
  input  wire logic [$clog2(NumJobs)-1:0]  ekj0_rd_slot_i,
  output logic      [127:0]                ekj0_o,
  input  wire logic [$clog2(NumJobs)-1:0]  verdict_slot_i,
  output logic      [3:0]                  reason_o,
  output logic      [1:0]                  fwd_o
);

`ifdef VERILATOR
  if (NumJobs < 2 || (NumJobs & (NumJobs - 1)) != 0) begin : gen_param_check
    $error("rocesec_job_slots: NumJobs must be a power of two >= 2 (instance %m)");
  end
`endif

  localparam int unsigned SlotW = $clog2(NumJobs);

  logic [SlotW-1:0]   wr_ptr_q, fin_ptr_q, wr_ptr_inc;
  logic [NumJobs-1:0] valid_q, ekj0_v_q, hash_v_q, done_v_q;
  logic               job_ready_q, job_ready_d, job_fire;
  logic [3:0]         reason_q [NumJobs];
  logic [1:0]         fwd_q    [NumJobs];

  assign job_fire   = job_valid_i && job_ready_q;
  assign wr_ptr_inc = wr_ptr_q + 1'b1;

  // Both candidate slots are read from registers; job_fire only picks between them.
  always_comb begin
    if (job_fire) begin
      job_ready_d = !valid_q[wr_ptr_inc] || (free_we_i && free_slot_i == wr_ptr_inc);
    end else begin
      job_ready_d = !valid_q[wr_ptr_q] || (free_we_i && free_slot_i == wr_ptr_q);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      job_ready_q <= 1'b1;  // the table is empty
      wr_ptr_q    <= '0;
      fin_ptr_q   <= '0;
      valid_q     <= '0;
      ekj0_v_q    <= '0;
      hash_v_q    <= '0;
      done_v_q    <= '0;
      for (int j = 0; j < NumJobs; j++) begin
        reason_q[j] <= '0;
        fwd_q[j]    <= '0;
      end
    end else begin
      job_ready_q <= job_ready_d;
      if (free_we_i) valid_q[free_slot_i] <= 1'b0;
      if (job_fire) begin
        valid_q[wr_ptr_q]  <= 1'b1;
        ekj0_v_q[wr_ptr_q] <= 1'b0;
        hash_v_q[wr_ptr_q] <= 1'b0;
        done_v_q[wr_ptr_q] <= 1'b0;
        wr_ptr_q           <= wr_ptr_inc;
      end
      if (done_valid_i) begin
        done_v_q[fin_ptr_q] <= 1'b1;
        reason_q[fin_ptr_q] <= done_reason_i;
        fwd_q[fin_ptr_q]    <= done_fwd_i;
        fin_ptr_q           <= fin_ptr_q + 1'b1;
      end
      if (ekj0_we_i) ekj0_v_q[ekj0_slot_i] <= 1'b1;
      if (hash_we_i) hash_v_q[hash_slot_i] <= 1'b1;
    end
  end

  // Key material: common_zero_ram (no reset, marked entries zeroed in write-free cycles).
  // A free marks its slot in all three, also in the cycle of a data write to it: a job cannot
  // fill a slot in the cycle it is freed (job_ready_q is low while the slot is valid), and an
  // E_K(J0) written then is the leaving job's. So is one written to a slot that is not valid,
  // should a job leave before its E_K(J0) comes out of the AES pipeline (the co-simulation's
  // cut frames leave after it): zeroed after as well.
  logic [NumJobs-1:0] free_v, ej_zero_v;
  assign free_v    = {NumJobs{free_we_i}} & (NumJobs'(1) << free_slot_i);
  assign ej_zero_v = free_v | ({NumJobs{ekj0_we_i && !valid_q[ekj0_slot_i]}} &
                               (NumJobs'(1) << ekj0_slot_i));

  common_zero_ram #(
    .Width (128),
    .Depth (NumJobs)
  ) u_key_ram (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .we_i    (job_fire),
    .waddr_i (wr_ptr_q),
    .wdata_i (job_key_i),
    .zero_i  (free_v),
    .raddr_i (key_slot_i),
    .rdata_o (key_o)
  );

  common_zero_ram #(
    .Width (128),
    .Depth (NumJobs)
  ) u_h_ram (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .we_i    (job_fire),
    .waddr_i (wr_ptr_q),
    .wdata_i (job_h_i),
    .zero_i  (free_v),
    .raddr_i (h_slot_i),
    .rdata_o (h_o)
  );

  common_zero_ram #(
    .Width (128),
    .Depth (NumJobs)
  ) u_ekj0_ram (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .we_i    (ekj0_we_i),
    .waddr_i (ekj0_slot_i),
    .wdata_i (ekj0_data_i),
    .zero_i  (ej_zero_v),
    .raddr_i (ekj0_rd_slot_i),
    .rdata_o (ekj0_o)
  );

  // The done bits after this edge, as the process above writes them.
  always_comb begin
    for (int j = 0; j < NumJobs; j++) begin
      done_next_o[j] = (done_valid_i && fin_ptr_q == SlotW'(j)) ||
                       (done_v_q[j] && !(job_fire && wr_ptr_q == SlotW'(j)));
    end
  end

  assign job_ready_o = job_ready_q;
  assign job_fire_o  = job_fire;
  assign wr_ptr_o    = wr_ptr_q;
  assign valid_o     = valid_q;
  assign ekj0_v_o    = ekj0_v_q;
  assign hash_v_o    = hash_v_q;
  assign reason_o    = reason_q[verdict_slot_i];
  assign fwd_o       = fwd_q[verdict_slot_i];

endmodule
