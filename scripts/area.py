# SPDX-License-Identifier: Apache-2.0
#
# area.py: split the cells of a Yosys ECP5 netlist (synth_ecp5 -json, flattened or with kept
# hierarchy) by the RTL module they came from, as a table of LUT4, FF, distributed RAM and EBR.
#
# usage: scripts/area.py NETLIST.json [--depth N] [--under PREFIX] [--tsv]
#        scripts/area.py --self-test
#
# Why: the tops are synthesized flattened (scripts/synth.sh: only the AES pipelines, the KDF and
# the FIFO RAMs keep their hierarchy), so Yosys's `stat` gives one total. A `-noflatten` run
# splits it but maps every module on its own (about 30 % more LUT4, docs/rtl/fmax-log.md,
# session 15), so its split is not the netlist that is placed. This reads the placed netlist.
#
# How a cell is attributed. Yosys's flatten keeps the instance path in the names of the nets
# and cells it copies ("u_dut.u_protect.u_emit.jt_q..."), and synth_ecp5 names each mapped cell
# after a net it drives or reads (autoname). The instance path of a name is its leading run of
# levels named u_* (instances) or gen_* (generate scopes, with their [index]); a level of
# another form (a signal) ends it, and a path that starts at an input port (`_i`, `_ni`) is the
# parent's. Then:
#   - a register or RAM (TRELLIS_FF, DPR16X4, DP16KD) goes to the path of its output net's
#     declared name (not an autoname; a name ending in _q first, an input port of another
#     instance last); without one, to the path of its own cell name, except a register that
#     Yosys named after the net it loads ("..._TRELLIS_FF_DI"), which goes as logic does;
#   - logic (LUT4, CCU2C, PFUMX, L6MUX21) goes to the path most of its sinks go to (registers,
#     RAMs, kept instances; other logic by the same rule), so the logic in front of a register
#     is counted with it; logic that feeds nothing attributed, by its own name.
# Cells inside a kept module (a cell whose type is a non-blackbox module of the netlist) are
# split the same way under that instance's path. --depth N keeps N levels below --under
# (default u_dut, the pin wrapper's DUT). The totals are the netlist's exactly; a row is an
# attribution: logic Yosys merged across a boundary goes one way, and rows that share a wide
# interface can trade a few percent of the total from one netlist to the next.
#
# Counting (as scripts/synth.sh): LUT4 = LUT4 cells + 2 per CCU2C (a carry cell is two LUT4s);
# FF = TRELLIS_FF; DPR = TRELLIS_DPR16X4 (16x4 distributed RAM; nextpnr packs each into a slice
# pair's LUTs); EBR = DP16KD + PDPW16KD; PFUMX and L6MUX21 (the slice's wide-function muxes) are
# counted apart, as "mux".
#
# Output: a Markdown table (or TSV with --tsv) sorted by LUT4, then the totals. Exit 0, 1 on a
# netlist it cannot read, 2 on usage errors.
import json
import re
import sys
from collections import defaultdict

LEVEL = re.compile(r"^(u_|gen_)[A-Za-z0-9_]*(\[\d+\])*$")
# where the signal part of a mapped cell's name ends ("wdata_i_TRELLIS_FF_Q_3": net wdata_i)
SUFFIX = re.compile(r"_(?:TRELLIS_FF|TRELLIS_DPR16X4|LUT4|CCU2C|PFUMX|L6MUX21|DP16KD|PDPW16KD)_")
DNAMED = re.compile(r"_TRELLIS_FF_DI(_\d+)?$")  # a register named after its D net
INPUT = re.compile(r"_n?i(\[\d+\])?$")  # an input port (lowRISC names: _i, _ni)
COLS = ("lut4", "ff", "dpr", "ebr", "mux")


def module_path(name):
    """The instance path of a cell name: its leading u_* / gen_* levels, less the last if the
    name starts at an input port of that instance (the logic behind it is its parent's)."""
    parts = name.split(".")
    out = []
    for i, part in enumerate(parts[:-1]):  # the last level is the cell's or signal's own name
        if not LEVEL.match(part):
            break
        out.append(part)
    root = SUFFIX.split(parts[len(out)], 1)[0]  # the net the name starts from
    if out and INPUT.search(root):
        out.pop()
    return out


def kind(ctype):
    if ctype == "LUT4":
        return {"lut4": 1}
    if ctype == "CCU2C":
        return {"lut4": 2}
    if ctype == "TRELLIS_FF":
        return {"ff": 1}
    if ctype == "TRELLIS_DPR16X4":
        return {"dpr": 1}
    if ctype in ("DP16KD", "PDPW16KD"):
        return {"ebr": 1}
    if ctype in ("PFUMX", "L6MUX21"):
        return {"mux": 1}
    return {}


SEQ = {"TRELLIS_FF", "TRELLIS_DPR16X4", "DP16KD", "PDPW16KD"}


def real_names(netnames):
    """bit -> the declared (not autonamed) net names that hold it."""
    out = defaultdict(list)
    for name, v in netnames.items():
        if v.get("hide_name") or SUFFIX.search(name + "_"):
            continue
        for b in v["bits"]:
            if isinstance(b, int):
                out[b].append(name)
    return out


def reg_path(cname, qbits, names):
    """The instance path of a sequential cell: from the declared names of its output net (a
    register's own name such as u_key.d_q first; an input port of another instance last, as its
    parent's), else from its cell name."""
    best = None
    for b in qbits:
        for n in names.get(b, ()):
            parts = n.split(".")
            sig = parts[-1]
            lv = []
            for part in parts[:-1]:
                if not LEVEL.match(part):
                    break
                lv.append(part)
            if sig.endswith("_q") or "_q[" in sig:
                rank = 0
            elif INPUT.search(sig):
                rank, lv = 2, lv[:-1]
            else:
                rank = 1
            key = (rank, -len(lv), n)
            if best is None or key < best[0]:
                best = (key, lv)
        if best is not None:
            break
    return best[1] if best is not None else None


def split(netlist, depth, under):
    """Per module (depth levels below `under`), the counts of each column; and the totals.

    Sequential cells (FF, RAM, EBR) go to the module of their output net's declared name;
    combinational cells (LUT4, CCU2C, PFUMX, L6MUX21), and registers whose output kept no
    declared name, to the module of what they feed (the most frequent among their sinks:
    named registers, kept instances, or other cells so attributed)."""
    mods = netlist["modules"]
    tops = [m for m, v in mods.items() if int(str(v.get("attributes", {}).get("top", "0")), 2)]
    if len(tops) != 1:
        raise ValueError("netlist has %d top modules" % len(tops))
    rows = defaultdict(lambda: defaultdict(int))
    totals = defaultdict(int)

    def add(path, k):
        if under and path[: len(under)] == under:
            key = ".".join(path[len(under): len(under) + depth]) or "(" + ".".join(under) + ")"
        elif under:
            key = "(outside " + ".".join(under) + ")"
        else:
            key = ".".join(path[:depth]) or "(top)"
        for c, n in k.items():
            rows[key][c] += n
            totals[c] += n

    def walk(mod, prefix):
        m = mods[mod]
        names = real_names(m.get("netnames", {}))
        cells = m["cells"]
        info = {}      # cell -> (kind dict, base type)
        sinks = defaultdict(list)  # bit -> consuming cells
        for cname, cell in cells.items():
            ctype = cell["type"]
            sub = mods.get(ctype)
            if sub is not None and "blackbox" not in sub.get("attributes", {}):
                walk(ctype, prefix + cname.split("."))  # a kept module, under its instance path
                info[cname] = (None, "inst")
            else:
                if sub is not None:  # a library cell, maybe a copy ($paramod$...\TRELLIS_FF)
                    ctype = sub.get("attributes", {}).get("hdlname", ctype)
                info[cname] = (kind(ctype), ctype)
            dirs = cell.get("port_directions", {})
            for port, bits in cell.get("connections", {}).items():
                if dirs.get(port) == "input":
                    for b in bits:
                        if isinstance(b, int):
                            sinks[b].append(cname)
        memo = {}

        def path_of(cname):
            k, ctype = info[cname]
            if ctype == "inst":
                return prefix + cname.split(".")
            if ctype in SEQ:
                cell = cells[cname]
                dirs = cell.get("port_directions", {})
                qbits = [b for p, bs in cell.get("connections", {}).items()
                         if dirs.get(p) == "output" for b in bs if isinstance(b, int)]
                rp = reg_path(cname, qbits, names)
                if rp is not None:
                    return prefix + rp
                if DNAMED.search(cname):
                    return None  # named after the net it loads: by its sinks
                return prefix + module_path(cname)
            return None  # combinational: by its sinks

        def outs(c):
            cell = cells[c]
            dirs = cell.get("port_directions", {})
            for p, bs in cell.get("connections", {}).items():
                if dirs.get(p) == "output":
                    for b in bs:
                        if isinstance(b, int):
                            yield from sinks.get(b, ())

        def comb_path(start):
            # post-order over the combinational fanout (no combinational loops in a netlist):
            # each cell takes the most frequent path among its sinks' paths
            stack = [(start, False)]
            active = set()  # on the stack: a loop through an unnamed register ends there
            while stack:
                c, done = stack.pop()
                if c in memo:
                    continue
                if not done:
                    if c in active:
                        continue
                    active.add(c)
                    stack.append((c, True))
                    for t in outs(c):
                        if t not in memo and t not in active and path_of(t) is None:
                            stack.append((t, False))
                    continue
                votes = defaultdict(int)
                for t in outs(c):
                    pt = path_of(t)
                    if pt is None:
                        pt = memo.get(t)
                    if pt is not None:
                        votes[tuple(pt)] += 1
                memo[c] = (list(max(votes.items(), key=lambda kv: (kv[1], kv[0]))[0])
                           if votes else prefix + module_path(c))
            return memo[start]

        for cname in cells:
            k, ctype = info[cname]
            if not k:
                continue
            pt = path_of(cname)
            if pt is None:
                pt = comb_path(cname)
            add(pt, k)

    walk(tops[0], [])
    return rows, totals


def table(rows, totals, tsv):
    order = sorted(rows, key=lambda r: (-rows[r]["lut4"], r))
    lines = []
    if tsv:
        lines.append("module\t" + "\t".join(COLS))
        for r in order:
            lines.append(r + "\t" + "\t".join(str(rows[r][c]) for c in COLS))
        lines.append("(total)\t" + "\t".join(str(totals[c]) for c in COLS))
    else:
        lines.append("| module | LUT4 | % | FF | DPR16X4 | EBR | PFUMX+L6MUX |")
        lines.append("|---|---:|---:|---:|---:|---:|---:|")
        for r in order:
            v = rows[r]
            pct = 100.0 * v["lut4"] / totals["lut4"] if totals["lut4"] else 0.0
            lines.append("| `%s` | %d | %.1f | %d | %d | %d | %d |"
                         % (r, v["lut4"], pct, v["ff"], v["dpr"], v["ebr"], v["mux"]))
        lines.append("| total | %d | 100.0 | %d | %d | %d | %d |"
                     % tuple(totals[c] for c in COLS))
    return "\n".join(lines)


def self_test():
    assert module_path("u_dut.u_emit.jt_q.3.56_DI_LUT4_Z") == ["u_dut", "u_emit"]
    assert module_path("u_dut.u_aes.gen_round[3].u_sbox.x_q_TRELLIS_FF_Q") == \
        ["u_dut", "u_aes", "gen_round[3]", "u_sbox"]
    assert module_path("arready_o_LUT4_Z") == []
    assert module_path("u_dut.st_mem.u_x.y") == ["u_dut"]  # a signal level ends the path
    # a register that drives an input port of u_q is its parent's
    assert module_path("u_dut.u_q.wdata_i_TRELLIS_FF_Q_3") == ["u_dut"]
    assert module_path("u_dut.u_q.rdata_o_LUT4_Z") == ["u_dut", "u_q"]
    assert module_path("u_dut.u_q.mem_q.0.1_DO_LUT4_Z") == ["u_dut", "u_q"]
    net = {"modules": {
        "top": {"attributes": {"top": "00000000000000000000000000000001"}, "cells": {
            "u_dut.u_a.x_LUT4_Z": {"type": "LUT4"},
            "u_dut.u_a.u_b.c_CCU2C": {"type": "CCU2C"},
            "u_dut.u_a.q_TRELLIS_FF_Q": {"type": "TRELLIS_FF"},
            "pin_LUT4_Z": {"type": "LUT4"},
            "u_dut.u_k": {"type": "kept"},
            "u_dut.u_a.p_FF": {"type": "$paramod$0\\TRELLIS_FF"},
        }},
        "LUT4": {"attributes": {"blackbox": "1"}, "cells": {}},
        "$paramod$0\\TRELLIS_FF": {"attributes": {"blackbox": "1", "hdlname": "TRELLIS_FF"},
                                   "cells": {}},
        "kept": {"attributes": {}, "cells": {
            "gen_r[0].rom": {"type": "DP16KD"},
            "gen_r[0].y_LUT4_Z": {"type": "LUT4"},
            "m_PFUMX": {"type": "PFUMX"},
        }},
    }}
    rows, totals = split(net, 1, ["u_dut"])
    assert totals["lut4"] == 5 and totals["ff"] == 2 and totals["ebr"] == 1, totals
    assert rows["u_a"]["lut4"] == 3 and rows["u_a"]["ff"] == 2, dict(rows["u_a"])
    assert rows["u_k"]["lut4"] == 1 and rows["u_k"]["ebr"] == 1 and rows["u_k"]["mux"] == 1
    assert rows["(outside u_dut)"]["lut4"] == 1
    rows, _ = split(net, 2, ["u_dut"])
    assert rows["u_a.u_b"]["lut4"] == 2 and rows["u_a"]["lut4"] == 1
    assert sum(v["lut4"] for v in rows.values()) == 5
    # by connectivity: a LUT named after a net of u_a that feeds a register of u_b is u_b's;
    # a register named after the net it loads (..._TRELLIS_FF_DI) goes by what it feeds; an
    # unnamed register that only feeds itself falls back on its name
    i, o = "input", "output"
    net2 = {"modules": {
        "top": {"attributes": {"top": "1"}, "netnames": {
            "u_dut.u_b.r_q": {"bits": [3]},
            "u_dut.u_a.x_LUT4_Z": {"bits": [2]},  # autonamed: not a declared name
            "u_dut.u_c.s_q": {"bits": [6]},
        }, "cells": {
            "u_dut.u_a.x_LUT4_Z": {"type": "LUT4", "port_directions": {"A": i, "Z": o},
                                   "connections": {"A": [1], "Z": [2]}},
            "u_dut.u_a.r_TRELLIS_FF_Q": {"type": "TRELLIS_FF",
                                         "port_directions": {"DI": i, "Q": o},
                                         "connections": {"DI": [2], "Q": [3]}},
            "u_dut.u_a.m.0_DO_TRELLIS_FF_DI": {"type": "TRELLIS_FF",
                                               "port_directions": {"DI": i, "Q": o},
                                               "connections": {"DI": [3], "Q": [4]}},
            "u_dut.u_a.y_LUT4_Z": {"type": "LUT4", "port_directions": {"A": i, "B": i, "Z": o},
                                   "connections": {"A": [4], "B": [7], "Z": [5]}},
            "u_dut.u_c.s_TRELLIS_FF_Q": {"type": "TRELLIS_FF",
                                         "port_directions": {"DI": i, "Q": o},
                                         "connections": {"DI": [5], "Q": [6]}},
            "u_dut.u_a.l.0_DO_TRELLIS_FF_DI": {"type": "TRELLIS_FF",
                                               "port_directions": {"DI": i, "Q": o},
                                               "connections": {"DI": [8], "Q": [8]}},
        }},
    }}
    rows, totals = split(net2, 1, ["u_dut"])
    assert rows["u_b"]["lut4"] == 1 and rows["u_b"]["ff"] == 1, dict(rows["u_b"])
    assert rows["u_c"]["lut4"] == 1 and rows["u_c"]["ff"] == 2, dict(rows["u_c"])
    assert rows["u_a"]["ff"] == 1 and totals["ff"] == 4 and totals["lut4"] == 2
    print("area.py self-test: ok")


def main(argv):
    if argv[1:] == ["--self-test"]:
        self_test()
        return 0
    args = argv[1:]
    depth, under, tsv, path = 1, None, False, None
    try:
        while args:
            a = args.pop(0)
            if a == "--depth":
                depth = int(args.pop(0))
            elif a == "--under":
                under = [p for p in args.pop(0).split(".") if p]
            elif a == "--tsv":
                tsv = True
            elif path is None and not a.startswith("--"):
                path = a
            else:
                raise ValueError(a)
        if path is None or depth < 1:
            raise ValueError("no netlist")
    except (ValueError, IndexError) as e:
        print("usage: area.py NETLIST.json [--depth N] [--under PREFIX] [--tsv] (%s)" % e,
              file=sys.stderr)
        return 2
    try:
        with open(path) as f:
            netlist = json.load(f)
        if under is None:
            under = ["u_dut"]
        rows, totals = split(netlist, depth, under)
    except (OSError, ValueError, KeyError, TypeError) as e:
        print("area.py: cannot read %s: %s" % (path, e), file=sys.stderr)
        return 1
    print(table(rows, totals, tsv))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
