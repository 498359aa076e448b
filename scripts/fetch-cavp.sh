#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fetch the NIST CAVP vectors used by model/tests/cavp.rs into a local cache (not committed).
#
# Source: the PyPI package `cryptography-vectors` (pinned version and SHA-256 below), which ships
# the CAVP files unchanged:
#   cryptography_vectors/ciphers/AES/GCM/gcm{EncryptExtIV,Decrypt}{128,192,256}.rsp  (SP 800-38D)
#   cryptography_vectors/KDF/nist-800-108-KBKDF-CTR.txt  (= KDFCTR_gen.rsp, SP 800-108)
#
# Usage:  scripts/fetch-cavp.sh [DEST]      (DEST defaults to <repo>/.cache/vectors)
# then:   ROCESEC_CAVP_DIR=<DEST> cargo test -p rocesec-model --test cavp
#
# Idempotent: a stamp file records the extracted version; a second run does nothing.
set -euo pipefail

VERSION=50.0.2
SHA256=51641f03a3eb4edbe9fb68e3a3574d25f86aa502d06391fffa886330d02778a0

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
dest=${1:-$root/.cache/vectors}
stamp="$dest/.cryptography-vectors-$VERSION"

if [[ -f "$stamp" ]]; then
    echo "fetch-cavp: cryptography-vectors $VERSION already in $dest"
    echo "ROCESEC_CAVP_DIR=$dest"
    exit 0
fi

python=$(command -v python3 || command -v python || true)
if [[ -z "$python" ]] || ! "$python" -m pip --version >/dev/null 2>&1; then
    echo "fetch-cavp: python3 with pip is required" >&2
    exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$python" -m pip download --quiet --no-deps --only-binary=:all: \
    "cryptography-vectors==$VERSION" -d "$tmp"
wheel=$(ls "$tmp"/cryptography_vectors-"$VERSION"-*.whl)
echo "$SHA256  $wheel" | sha256sum --check --quiet -

mkdir -p "$dest"
# Extract only the files the tests read, without needing `unzip`.
"$python" - "$wheel" "$dest" <<'PY'
import sys, zipfile, pathlib
wheel, dest = sys.argv[1], pathlib.Path(sys.argv[2])
prefix = "cryptography_vectors/"
wanted = ("ciphers/AES/GCM/", "KDF/nist-800-108-KBKDF-CTR.txt")
n = 0
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        rel = name[len(prefix):] if name.startswith(prefix) else None
        if rel and not name.endswith("/") and rel.startswith(wanted):
            out = dest / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(z.read(name))
            n += 1
if n == 0:
    sys.exit("fetch-cavp: no vector files found in the wheel")
print(f"fetch-cavp: extracted {n} files")
PY
touch "$stamp"
echo "ROCESEC_CAVP_DIR=$dest"
