../0_pkg/ghash_pkg.sv
ghash_mul.sv
ghash_lanes.sv
