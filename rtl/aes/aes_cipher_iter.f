../0_pkg/aes_pkg.sv
aes_sbox.sv
aes_round.sv
aes_key_expand.sv
aes_cipher_iter.sv
