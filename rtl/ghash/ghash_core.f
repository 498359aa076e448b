ghash_pkg.sv
ghash_core.sv
