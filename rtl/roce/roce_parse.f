../0_pkg/roce_parse_pkg.sv
roce_parse_icrc.sv
roce_parse.sv
