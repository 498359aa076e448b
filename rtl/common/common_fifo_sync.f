# common_fifo_sync (distributed-RAM FWFT FIFO)
common_fifo_sync.sv
