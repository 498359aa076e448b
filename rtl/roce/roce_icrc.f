roce_icrc.sv
