ghash_pkg.sv
ghash_mul.sv
