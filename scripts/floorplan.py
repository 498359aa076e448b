# SPDX-License-Identifier: Apache-2.0
#
# floorplan.py: nextpnr-ecp5 Python hook (`--pre-place scripts/floorplan.py`) that places each
# round of the AES pipelines (rtl/aes/aes_cipher_pipe.sv) in its own stretch of a block-RAM row,
# the rounds one after another along the row, so that the 128-bit state and key that each round
# hands to the next cross a few columns, not the die.
#
# Why: scripts/congestion.py on the protect top (docs/rtl/fmax-log.md, sessions 23 and 24) found
# the AES pipeline to make 41 % of the routing demand in the hottest tiles from 15 % of the nets,
# with 1,214 nets crossing 40 tiles or more: HeAP spread the 100 DP16KD of its ten rounds over
# the LFE5U-85F's four EBR rows (y = 22, 46, 70, 82; 52 sites each, x = 4..120), and the S-box
# read of round 1 at y = 46 fed its output register at y = 12.
#
# What it constrains, per pipeline instance (a cell name holding "<inst>.u_aes.gen_round[r]."):
#   - the DP16KD of round r: to a region of one EBR row, the r-th group of EBR_PER_ROUND sites
#     along the snake (rows in FLOORPLAN_ROWS order, left to right, then right to left, ...);
#   - with FLOORPLAN_SBOX_FF=1, the flip-flops that each DP16KD's read data feeds (the S-box
#     output register, fabric FFs unless scripts/ebr_outreg.py folded them into the EBR, as
#     scripts/synth.sh does since session 25; then there are none): to the round's
#     stretch of columns ± FLOORPLAN_MARGIN_X and the row ± FLOORPLAN_FF_MARGIN_Y (default 4).
#     Unconstrained, HeAP put them a mean 27 tiles (half-perimeter) from their EBR in the
#     protect top and 52 in the verify top (session 24);
#   - with FLOORPLAN_LOGIC=1, every other cell of round r (the S-box output registers, the key
#     expansion, ShiftRows, MixColumns, AddRoundKey, the round's registers): to that stretch of
#     columns widened by FLOORPLAN_MARGIN_X columns and FLOORPLAN_MARGIN_Y rows each side of the
#     EBR row. Off by default: on the protect top HeAP found no legal place for a round-8 LUT
#     (session 24), most likely one packed beside a cell of another region or of none; the
#     DP16KD alone are anchors the placer pulls each round's logic towards.
# Cells that Yosys named after a net outside gen_round (some state and key registers) are left to
# the placer: a region is a constraint the placer must meet, a name is only a hint of where a cell
# belongs, so the script constrains only what its name places beyond doubt.
#
# Env: FLOORPLAN_ROWS (default "46,70"), FLOORPLAN_X ("x0,x1": use only the EBR sites with x in
# that range, e.g. around the die centre; default all), FLOORPLAN_LOGIC (default 0), FLOORPLAN_MARGIN_X
# (default 2), FLOORPLAN_MARGIN_Y (default 10), FLOORPLAN_DRY=1 to print the plan and stop.
# Prints one line per round: instance, round, cells, DP16KD, the region.
import os
import re
import sys
from collections import defaultdict

ROWS = [int(v) for v in os.environ.get("FLOORPLAN_ROWS", "46,70").split(",")]
MX = int(os.environ.get("FLOORPLAN_MARGIN_X", "2"))
MY = int(os.environ.get("FLOORPLAN_MARGIN_Y", "10"))
LOGIC = os.environ.get("FLOORPLAN_LOGIC", "0") == "1"
SBOX_FF = os.environ.get("FLOORPLAN_SBOX_FF", "0") == "1"
FMY = int(os.environ.get("FLOORPLAN_FF_MARGIN_Y", "4"))
XWIN = [int(v) for v in os.environ["FLOORPLAN_X"].split(",")] if os.environ.get("FLOORPLAN_X") \
    else None
ROUND = re.compile(r"^(.*)\.u_aes\.gen_round\[(\d+)\]\.")


def ebr_sites(xwin=None):
    """{row y: sorted x of the DP16KD sites in that row} of the device (x in xwin if given)."""
    rows = defaultdict(list)
    for bel in ctx.getBels():
        if ctx.getBelType(bel) == "DP16KD":
            loc = ctx.getBelLocation(bel)
            if xwin is None or xwin[0] <= loc.x <= xwin[1]:
                rows[loc.y].append(loc.x)
    return {y: sorted(xs) for y, xs in rows.items()}


def snake(sites, rows, per_round, rounds):
    """Site stretches for rounds 1..rounds: [(y, x_first, x_last)], along rows in order,
    alternating direction, per_round sites each; None if the rows hold too few sites."""
    out = []
    for i, y in enumerate(rows):
        xs = sites[y] if i % 2 == 0 else list(reversed(sites[y]))
        for k in range(len(xs) // per_round):
            grp = xs[k * per_round:(k + 1) * per_round]
            out.append((y, min(grp), max(grp)))
            if len(out) == rounds:
                return out
    return None


def read_ffs(ebr):
    """Names of the TRELLIS_FF cells that an EBR's read-data ports (DOA*, DOB*) feed directly:
    the S-box output register (aes_sbox Latency 2), found by connectivity, not by name."""
    out = []
    for pname, port in ctx.cells[ebr].ports:
        if not (pname.startswith("DOA") or pname.startswith("DOB")) or port.net is None:
            continue
        for u in port.net.users:
            if u.cell is not None and u.cell.type == "TRELLIS_FF":
                out.append(u.cell.name)
    return out


def plan(names_types):
    """{(inst, r): [cell names]} and {(inst, r): DP16KD count} from (name, type) pairs."""
    cells = defaultdict(list)
    ebrs = defaultdict(int)
    for name, typ in names_types:
        m = ROUND.match(name)
        if m is None:
            continue
        key = (m.group(1), int(m.group(2)))
        cells[key].append((name, typ))
        if typ == "DP16KD":
            ebrs[key] += 1
    return cells, ebrs


def self_test():
    """Known answers on a made-up device and netlist (no nextpnr needed)."""
    sites = {10: [1, 3, 5, 7, 9, 11], 20: [1, 3, 5, 7, 9, 11]}
    # 2 sites per round, 5 rounds: row 10 left to right (3 stretches), then row 20 right to left
    assert snake(sites, [10, 20], 2, 5) == [(10, 1, 3), (10, 5, 7), (10, 9, 11), (20, 9, 11),
                                            (20, 5, 7)], snake(sites, [10, 20], 2, 5)
    # a row's leftover sites (6 // 4 = 1 stretch per row) are skipped, not split across rows
    assert snake(sites, [10, 20], 4, 2) == [(10, 1, 7), (20, 5, 11)]
    assert snake(sites, [10, 20], 4, 3) is None
    cells, ebrs = plan([("a.u_aes.gen_round[1].u_sbox_state.rom.0.0", "DP16KD"),
                        ("a.u_aes.gen_round[1].u_round.x_LUT4_Z", "TRELLIS_COMB"),
                        ("a.u_aes.gen_round[12].b_q", "TRELLIS_FF"),
                        ("a.u_aes.state_q[2]_TRELLIS_FF_Q", "TRELLIS_FF"),
                        ("b.u_aes.gen_round[1].k_q", "TRELLIS_FF")])
    assert sorted(cells) == [("a", 1), ("a", 12), ("b", 1)], sorted(cells)
    assert ebrs == {("a", 1): 1}, dict(ebrs)
    print("floorplan.py --self-test: ok")


if "ctx" in globals():
    sites = ebr_sites(XWIN)
    missing = [y for y in ROWS if y not in sites]
    if missing:
        sys.exit("floorplan.py: no EBR row at y = %s (rows: %s)" % (missing, sorted(sites)))
    cells, ebrs = plan([(n, c.type) for n, c in ctx.cells])
    insts = sorted({i for i, _ in cells})
    row_of = {}
    at = 0
    for inst in insts:
        rounds = max(r for i, r in cells if i == inst)
        per_round = max(ebrs[(inst, r)] for r in range(1, rounds + 1))
        # each instance continues the snake where the previous one stopped
        flat = snake(sites, ROWS, per_round, at + rounds)
        if flat is None:
            sys.exit("floorplan.py: rows %s hold fewer than %d stretches of %d EBR sites"
                     % (ROWS, at + rounds, per_round))
        for r in range(1, rounds + 1):
            row_of[(inst, r)] = flat[at + r - 1]
        at += rounds
    for (inst, r), (y, x0, x1) in sorted(row_of.items()):
        ebr_region = "fp_ebr_%d" % len([k for k in row_of if k < (inst, r)])
        log_region = ebr_region.replace("ebr", "logic")
        ctx.createRectangularRegion(ebr_region, x0, y, x1, y)
        if LOGIC:
            ctx.createRectangularRegion(log_region, max(0, x0 - MX), max(0, y - MY), x1 + MX,
                                        y + MY)
        ff_region = ebr_region.replace("ebr", "ff")
        if SBOX_FF:
            ctx.createRectangularRegion(ff_region, max(0, x0 - MX), max(0, y - FMY), x1 + MX,
                                        y + FMY)
        n_ff = 0
        for name, typ in cells[(inst, r)]:
            if typ == "DP16KD":
                ctx.constrainCellToRegion(name, ebr_region)
                if SBOX_FF:
                    for ff in read_ffs(name):
                        ctx.constrainCellToRegion(ff, ff_region)
                        n_ff += 1
            elif LOGIC:
                ctx.constrainCellToRegion(name, log_region)
        print("floorplan.py: %s round %d: %d cells, %d DP16KD -> EBR row y=%d x=%d..%d%s%s"
              % (inst, r, len(cells[(inst, r)]), ebrs[(inst, r)], y, x0, x1,
                 ", logic x=%d..%d y=%d..%d" % (max(0, x0 - MX), x1 + MX, max(0, y - MY), y + MY)
                 if LOGIC else "",
                 ", %d read-data FFs y=%d..%d" % (n_ff, max(0, y - FMY), y + FMY)
                 if SBOX_FF else ""))
    sys.stdout.flush()
    if os.environ.get("FLOORPLAN_DRY") == "1":
        os._exit(0)
elif sys.argv[1:] == ["--self-test"]:
    self_test()
else:
    sys.exit("usage: nextpnr-ecp5 ... --pre-place scripts/floorplan.py (env: see the header), "
             "or python3 scripts/floorplan.py --self-test")
