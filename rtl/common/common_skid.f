# common_skid (one-entry skid buffer, registered ready)
common_skid.sv
