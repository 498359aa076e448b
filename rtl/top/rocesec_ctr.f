../0_pkg/aes_pkg.sv
../aes/aes_sbox.sv
../aes/aes_round.sv
../common/common_zero_marks.sv
../aes/aes_cipher_pipe_rk.sv
../common/common_fifo_ram.sv
rocesec_ctr.sv
