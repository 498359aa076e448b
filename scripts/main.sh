#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Set up a fresh machine and run rocesec's main job: the bundled rxe captures through the RTL
# (Verilator) and the golden model, every byte, verdict and cycle compared (`rocesec cosim`).
# Extra arguments go to `rocesec cosim` (e.g. --mode aead --plot latency.svg).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash scripts/setup.sh
echo "main: building rocesec (release; the first build verilates the RTL, several minutes)"
cargo build --release -p rocesec-cosim --bin rocesec
exec "$root/target/release/rocesec" cosim "$@"
