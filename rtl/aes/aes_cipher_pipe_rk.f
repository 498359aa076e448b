../0_pkg/aes_pkg.sv
aes_sbox.sv
aes_round.sv
../common/common_zero_marks.sv
aes_cipher_pipe_rk.sv
