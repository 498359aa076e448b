../0_pkg/rocesec_pkg.sv
rocesec_key_tables.sv
