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
echo "lint: $((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
