#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Set up a fresh machine and run every rocesec test (what CI runs).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash scripts/setup.sh
export ROCESEC_CAVP_DIR="$root/.cache/vectors"
# The committed rxe corpus: pcaps parse, ICRCs verify, manifest counts match (independent checker).
python3 testbench/rxe-capture/check_corpus.py testbench/captures
cargo test --workspace --release --no-fail-fast
