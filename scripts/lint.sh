#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `verilator --lint-only -Wall` on every RTL top, one top per file list (rtl/<block>/<top>.f,
# entries relative to the list's folder). Exit non-zero on any warning or error.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root/rtl"
fail=0 n=0
# Each top from its .f list with default parameters, plus the parameter variants below that
# switch generate branches (list | -G arguments).
VARIANTS=(
  "./aes/aes_cipher_pipe.f|-GSboxTower=1'b1"
  "./aes/aes_cipher_pipe.f|-GSboxTower=1'b1 -GSboxLatency=1 -GKeyLen=256"
  "./ghash/ghash_core.f|-GMulStages=3"
  "./roce/roce_parse.f|-GLANES=2"
  "./roce/roce_parse.f|-GLANES=4"
  "./aes/aes_cipher_pipe_rk.f|-GLanes=4"
  "./top/rocesec_key_tables.f|-GEpochFromPolicy=1'b0"
)
lint_one() {  # lint_one <.f list> [-G args...]
    local f=$1 dir top files out
    shift
    dir=$(dirname "$f")
    top=$(basename "$f" .f)
    files=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$f" | sed "s|^|$dir/|")
    # shellcheck disable=SC2086
    if out=$(verilator --lint-only -Wall --top-module "$top" "$@" $files 2>&1); then
        echo "lint ok   $top $*"
    else
        echo "lint FAIL $top $*"; echo "$out" | head -20; fail=$((fail + 1))
    fi
    n=$((n + 1))
}
for f in $(find . -name '*.f' | sort); do
    lint_one "$f"
done
for v in "${VARIANTS[@]}"; do
    # shellcheck disable=SC2086
    lint_one "${v%%|*}" ${v#*|}
done
# The whole tree at once, in name order, as a reader would type it: the packages live in
# rtl/0_pkg/, which sorts before every folder of their users in both orders below (digits before
# letters), so no file list is needed. The tree has three top modules by design (the two
# AXI4-Lite tops and the stand-alone roce_icrc block); each says so with a MULTITOP lint_off at
# its module line, so the plain call elaborates and lints all three, with no -Wno option.
# Two orders: byte order (LC_ALL=C) and dictionary order (sort -df: letters and digits only,
# case folded, close to how en_US-style locales collate).
for order in "sort" "sort -df"; do
    # shellcheck disable=SC2086
    files=$(cd "$root" && find rtl -name '*.sv' | LC_ALL=C $order)
    npkg=$(echo "$files" | grep -c '_pkg\.sv$')
    lead=$(echo "$files" | head -n "$npkg" | grep -c '_pkg\.sv$')
    # shellcheck disable=SC2086
    if out=$(cd "$root" && verilator --lint-only -Wall $files 2>&1); then
        echo "lint ok   all $(echo "$files" | wc -l) files under rtl/ ($order; the first $lead are the $npkg packages)"
    else
        echo "lint FAIL all files under rtl/ ($order)"; echo "$out" | head -20; fail=$((fail + 1))
    fi
    n=$((n + 1))
done
echo "lint: $((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
