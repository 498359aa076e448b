../0_pkg/aes_pkg.sv
../aes/aes_sbox.sv
../aes/aes_round.sv
../aes/aes_key_expand.sv
../aes/aes_cipher_iter.sv
../0_pkg/kdf_pkg.sv
kdf_cmac.sv
