#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Set up a fresh machine and run rocesec's main job on the bundled rxe captures.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash scripts/setup.sh
echo "main: building rocesec (release; the first build verilates the RTL, a few minutes)"
cargo build --release -p rocesec-cosim --bin rocesec
exec "$root/target/release/rocesec" roundtrip "$@"
