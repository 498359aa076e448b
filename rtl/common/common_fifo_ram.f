# common_fifo_ram (block-RAM FWFT FIFO)
common_fifo_ram.sv
