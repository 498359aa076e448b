#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Set up a fresh machine and run every rocesec test (what CI runs).
# Env: ROCESEC_SKIP_RIG=1 skips the live rxe capture and the host-lib VM test under qemu (both
# need root and apt).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# Wall time of each step, printed as it ends (CI time: docs/testplan.md, "CI time").
step() { echo "[test.sh] $1: ${SECONDS} s since start"; }
bash scripts/setup.sh
# NIST CAVP vectors (not committed): pinned cryptography-vectors wheel from PyPI.
bash scripts/fetch-cavp.sh "$root/.cache/vectors" >/dev/null
export ROCESEC_CAVP_DIR="$root/.cache/vectors"
step "setup"

# 1. The committed rxe corpus: pcaps parse, ICRCs verify, manifest counts match (independent
#    Python checker; the model re-checks with its own ICRC in cargo test).
python3 testbench/rxe-capture/check_corpus.py testbench/captures
# The tower-field S-box constants in aes_pkg.sv are the derived ones (all 256 values vs FIPS 197).
python3 scripts/derive_sbox_tower.py --check rtl/0_pkg/aes_pkg.sv >/dev/null
python3 scripts/congestion.py --self-test
python3 scripts/floorplan.py --self-test
python3 scripts/ebr_outreg.py --self-test
python3 scripts/area.py --self-test
python3 scripts/path_src.py --self-test
python3 scripts/depth.py --self-test

# 2. Live capture: boot Debian's kernel under qemu, run the quick rxe scenarios, check them.
fresh="$root/.cache/ci-quick"
if [[ "${ROCESEC_SKIP_RIG:-0}" != 1 ]]; then
    rm -rf "$fresh"
    timeout 1200 testbench/rxe-capture/rxe-capture --quick --out "$fresh" --vm-timeout 400
    python3 testbench/rxe-capture/check_corpus.py "$fresh"
fi
step "corpus checks and live capture"

# 3. RTL lint: verilator --lint-only -Wall on every top (rtl/**/<top>.f); then Yosys 0.70
#    (yowasp, pinned, cached in .cache/) reads and elaborates every synthesis target, each top
#    included, and asserts that no latch is inferred (self-tested on syn/fixtures/latch_bad.sv).
#    Full synthesis and place-and-route (scripts/synth.sh --pnr) stay out of CI: tens of minutes.
bash scripts/lint.sh
step "lint"
bash scripts/synth.sh --check
step "yosys check"
# Modules rewritten for timing are proven equal to their plain reference (Yosys equivalence
# checking and a SAT property, about 3 minutes; the script self-checks that wrong references fail).
bash scripts/equiv.sh
step "equivalence"

# 4. Every Rust test: model (vectors, engine, captures, fuzz), RTL co-simulation, host library
#    with its libibverbs backend (host-lib/tests/vm.rs runs rocesec-host-demo on two rxe devices
#    under qemu through the rig; ROCESEC_SKIP_RIG=1 skips it too).
marker=$(mktemp)
cargo test --workspace --release --no-fail-fast --features rocesec-host/verbs --no-run
step "cargo build"
# Per-model Verilator + C++ times of the models this build rebuilt (cosim/build.rs), longest first.
find target/release/build -name '*.build-time' -newer "$marker" -exec cat {} + 2>/dev/null |
    sort -k7,7 -n -r | awk '{ print; v += $3; c += $7 } END { if (NR) printf "[test.sh] %d models: verilate %.0f s, C++ %.0f s (wall, 2 at once)\n", NR, v, c }'
rm -f "$marker"
cargo test --workspace --release --no-fail-fast --features rocesec-host/verbs
step "cargo test"

# 5. The model on the traffic just captured: protect → verify in all modes, byte-exact.
if compgen -G "$fresh/*.pcap" >/dev/null; then
    cargo run --release -q -p rocesec-cosim --bin rocesec -- roundtrip "$fresh"/*.pcap
fi
step "done"
