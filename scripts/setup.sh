#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Install everything rocesec's build and tests need on a fresh Debian machine. Idempotent: checks
# before it installs. Env: ROCESEC_SKIP_APT=1 skips the Debian packages (non-root machines).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Debian packages: verilator (RTL co-simulation), zlib1g-dev (Verilator's FST waveform writer,
# linked into the trace-capable models), tshark/tcpdump (capture checks), python3-venv
# (synthesis tools from PyPI), g++ (Verilator's C++); libibverbs-dev, librdmacm-dev, libclang-dev,
# clang, pkg-config (rdma-sys: bindgen over the verbs headers, feature rocesec-host/verbs);
# libssl-dev (openssl dev-dependency of host-lib's benchmark).
pkgs=(verilator zlib1g-dev tshark tcpdump python3-venv g++ make
      libibverbs-dev librdmacm-dev libclang-dev clang pkg-config libssl-dev)
missing=()
for p in "${pkgs[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 && "${ROCESEC_SKIP_APT:-0}" != 1 ]]; then
    echo "setup: installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
command -v cargo >/dev/null || { echo "setup: cargo not found (install Rust with rustup)" >&2; exit 2; }
echo "setup: ok"
