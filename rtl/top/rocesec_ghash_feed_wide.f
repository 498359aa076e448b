../0_pkg/roce_parse_pkg.sv
../0_pkg/rocesec_pkg.sv
../0_pkg/ghash_pkg.sv
../ghash/ghash_mul.sv
../ghash/ghash_core.sv
../ghash/ghash_lanes.sv
rocesec_ghash_feed.sv
rocesec_ghash_feed_wide.sv
