# common_zero_ram (key-material RAM, marked entries zeroed in write-free cycles)
common_zero_marks.sv
common_zero_ram.sv
