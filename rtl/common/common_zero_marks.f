# common_zero_marks (zeroing schedule of a key-material RAM)
common_zero_marks.sv
