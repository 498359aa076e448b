# SPDX-License-Identifier: Apache-2.0
#
# depth.py: the deepest register-to-register paths of a mapped ECP5 netlist, before place and
# route, with the RTL lines they run through.
#
# usage: scripts/depth.py NETLIST.json [--top N] [--min CELLS] [--min-ns NS] [--by-ns]
#                          [--under NAME]
#        scripts/depth.py --self-test
#   NETLIST.json  Yosys JSON after synth_ecp5 (LUT4, PFUMX, L6MUX21, CCU2C, TRELLIS_FF, ...),
#                 hierarchical or flat: instances of modules defined in the file are walked
#                 into, so the stage netlists of scripts/stage-timing.sh (-noflatten) work as
#                 they are.
#   --top N       print the N deepest endpoints (default 15), each with its path
#   --min CELLS   also print how many endpoints have a path of at least CELLS logic cells
#   --min-ns NS   also print how many endpoints have an estimate of at least NS ns
#   --by-ns       list the endpoints by the estimate instead of the cell count (each
#                 endpoint's estimate is that of its deepest path in cells)
#   --under NAME  count and print only endpoints inside instance NAME (e.g.
#                 u_dut.u_verify.u_parse: the parse stage inside a flattened top)
# Exit 0; 1 on an unreadable netlist or a combinational loop; 2 on bad usage.
#
# Why: nextpnr reports one critical path per clock and takes minutes to hours on a stage or a
# top, and the next-worst paths stay hidden until the worst is fixed. At 100 MHz on the
# LFE5U-85F (speed 6) a path has about 10 ns, and routed paths here spend 0.6-1.3 ns per net
# between cells (docs/rtl/fmax-log.md), so a path of more than about 8 logic cells does not
# close whatever the placement. This script lists every endpoint's depth in seconds, from
# the netlist Yosys wrote, to find the paths to cut before placing anything.
#
# Model: a path starts at a flip-flop output, a RAM read port (DP16KD output; TRELLIS_DPR16X4
# read data counts as logic from its read address, as the LUT RAM is asynchronous), or a
# module input of the top, and ends at a flip-flop or RAM input or a top output. Each LUT4,
# PFUMX, L6MUX21 and carry cell (CCU2C) on it is one logic cell, as nextpnr counts them; a carry
# cell entered on CIN adds 0 (the carry runs in dedicated wires, about 0.07 ns a cell), so a
# 16-bit adder costs one cell plus the cells behind its sum. The estimate in ns is a rough
# sum (0.24 ns per LUT4/PFUMX/L6MUX21, 0.45 per carry cell entered outside CIN, 0.7 ns per net
# between cells that leaves a slice; no placement): read it as a ranking, not a timing.
# Cells whose type the script does not know are treated as sequential (a path ends and
# starts there) and named in a warning.
import json
import signal
import sys
from collections import defaultdict

# combinational cells: output port -> input ports it depends on
COMB = {
    "LUT4": {"Z": ["A", "B", "C", "D"]},
    "PFUMX": {"Z": ["ALUT", "BLUT", "C0"]},
    "L6MUX21": {"Z": ["D0", "D1", "SD"]},
    "CCU2C": {
        "S0": ["A0", "B0", "C0", "D0", "CIN"],
        "S1": ["A0", "B0", "C0", "D0", "A1", "B1", "C1", "D1", "CIN"],
        "COUT": ["A0", "B0", "C0", "D0", "A1", "B1", "C1", "D1", "CIN"],
    },
    "TRELLIS_DPR16X4": {"DO": ["RAD"]},
}
# dedicated in-slice connections: no general routing on these inputs
DEDICATED = {("PFUMX", "ALUT"), ("PFUMX", "BLUT"), ("L6MUX21", "D0"), ("L6MUX21", "D1"),
             ("CCU2C", "CIN")}
SEQ = {"TRELLIS_FF", "DP16KD", "TRELLIS_IO", "DCCA", "MULT18X18D", "ALU54B", "EHXPLLL",
       "TRELLIS_DPR16X4", "OSCG", "GSR", "SGSR", "DCSC", "DDRDLLA", "EXTREFB", "DCUA",
       "$scopeinfo"}   # (Yosys's record of a flattened instance: no ports)
LOGIC_NS = {"LUT4": 0.24, "PFUMX": 0.24, "L6MUX21": 0.24, "CCU2C": 0.45, "TRELLIS_DPR16X4": 0.5}
ROUTE_NS = 0.7
CARRY_NS = 0.07


def flatten(netlist, top):
    """Cells of module `top` with instances of modules defined in `netlist` expanded: a list of
    (path name, type, {port: [bit ids]}, src), bit ids made unique per instance; constants
    stay strings ("0", "1", "x")."""
    mods = netlist["modules"]
    cells = []
    names = {}
    counter = [0]
    parent = {}           # nets joined through a submodule's aliased port bits

    def find(x):
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    def union(a, b):
        ra, rb = find(a), find(b)
        if ra != rb:
            if isinstance(rb, str):    # a constant stays the representative
                ra, rb = rb, ra
            parent[rb] = ra

    def walk(mname, prefix, bitmap):
        mod = mods[mname]
        local = {}

        def bit(b):
            if isinstance(b, str):
                return b
            if b in bitmap:
                return bitmap[b]
            if b not in local:
                counter[0] += 1
                local[b] = ("n", counter[0])
            return local[b]

        for nname, n in mod.get("netnames", {}).items():
            if nname.startswith("$") or n.get("hide_name") or any(
                    t in nname for t in ("TRELLIS_", "LUT4", "CCU2C", "PFUMX", "L6MUX")):
                continue         # Yosys's names made of the cells around a net
            for i, b in enumerate(n["bits"]):
                if isinstance(b, int):
                    key = bit(b)
                    label = prefix + nname + ("[%d]" % i if len(n["bits"]) > 1 else "")
                    if key not in names or len(label) < len(names[key]):
                        names[key] = label
        for cname, c in mod.get("cells", {}).items():
            ctype = c["type"]
            conns = {p: [bit(b) for b in bits] for p, bits in c.get("connections", {}).items()}
            if ctype in mods and not mods[ctype].get("attributes", {}).get("blackbox"):
                sub = mods[ctype]
                inner = {}
                for pname, p in sub.get("ports", {}).items():
                    outer = conns.get(pname, [])
                    for i, b in enumerate(p["bits"]):
                        if isinstance(b, int) and i < len(outer):
                            if b in inner:     # one inner net on two ports: one net outside
                                union(inner[b], outer[i])
                            else:
                                inner[b] = outer[i]
                walk(ctype, prefix + cname + ".", inner)
            else:
                src = c.get("attributes", {}).get("src", "")
                cells.append((prefix + cname, ctype, conns, src))

    top_bits = {}
    for pname, p in mods[top].get("ports", {}).items():
        for i, b in enumerate(p["bits"]):
            if isinstance(b, int):
                top_bits[b] = ("port", pname, i, p.get("direction", "input"))
    walk(top, "", top_bits)
    cells = [(n, t, {p: [find(b) for b in bits] for p, bits in conns.items()}, src)
             for n, t, conns, src in cells]
    names = {find(k): v for k, v in names.items()}
    top_bits = {find(v): v for v in top_bits.values()}
    return cells, top_bits, names


def find_top(netlist):
    for name, m in netlist["modules"].items():
        if str(m.get("attributes", {}).get("top", "0")).strip("0") != "":
            return name
    # the module no other module instantiates
    used = {c["type"] for m in netlist["modules"].values() for c in m.get("cells", {}).values()}
    cand = [n for n, m in netlist["modules"].items()
            if n not in used and not m.get("attributes", {}).get("blackbox")]
    return cand[0] if len(cand) == 1 else None


def analyse(cells, top_bits, names=None):
    """Longest paths: returns (endpoints sorted deepest first as (cells, ns, sink name, sink
    port, path), unknown cell types). A path is a list of (cell name, type, label).
    top_bits: net -> ("port", name, index, direction) of the top's ports (outputs are
    endpoints); names: net -> a name Yosys kept."""
    names = names or {}
    driver = {}           # bit -> (cell index, output port)
    unknown = set()
    for idx, (_, ctype, conns, _) in enumerate(cells):
        if ctype in COMB and ctype != "TRELLIS_DPR16X4":
            for out in COMB[ctype]:
                for b in conns.get(out, []):
                    driver[b] = (idx, out)
        elif ctype == "TRELLIS_DPR16X4":
            for b in conns.get("DO", []):
                driver[b] = (idx, "DO")
        elif ctype not in SEQ:
            unknown.add(ctype)
    memo = {}             # (cell, out) -> (depth, ns, prev (cell, out) or None)
    onstack = set()

    def node(key):
        if key in memo:
            return memo[key]
        if key in onstack:
            raise ValueError("combinational loop through %s" % cells[key[0]][0])
        onstack.add(key)
        idx, out = key
        _, ctype, conns, _ = cells[idx]
        best = (0, 0.0, None, None)
        for port in COMB[ctype][out]:
            for b in conns.get(port, []):
                if isinstance(b, str):
                    continue
                d, ns = (0, 0.52) if b not in driver else node(driver[b])[:2]
                prev = driver.get(b)
                if (ctype, port) in DEDICATED:
                    step_d, step_ns = (0 if port == "CIN" else 1), \
                        (CARRY_NS if port == "CIN" else LOGIC_NS[ctype])
                else:
                    step_d, step_ns = 1, LOGIC_NS[ctype] + ROUTE_NS
                cand = (d + step_d, ns + step_ns, prev, b)
                if cand[:2] > best[:2]:
                    best = cand
        onstack.discard(key)
        memo[key] = best
        return best

    def trace(key):
        """Cells from the path's start to `key`, as (cell, type, label): label is the RTL
        name Yosys kept for a bit the cell reads on the path (else its src line); the
        first entry is the start bit itself."""
        path = []
        while key is not None:
            idx, _ = key
            name, ctype, _, src = cells[idx]
            inbit = memo[key][3]
            path.append((name, ctype, names.get(inbit) or short_src(src)))
            key = memo[key][2]
            if key is None and inbit is not None:
                path.append(("", "start", names.get(inbit, str(inbit))))
        return list(reversed(path))

    ends = []
    sys.setrecursionlimit(1000000)
    for idx, (name, ctype, conns, _) in enumerate(cells):
        if ctype in COMB and ctype != "TRELLIS_DPR16X4":
            continue
        for port, bits in conns.items():
            if ctype == "TRELLIS_DPR16X4" and port in ("DO", "RAD"):
                continue
            if ctype != "TRELLIS_DPR16X4" and (port in ("Q", "O") or port.startswith("DO")):
                continue
            best = None
            for b in bits:
                if isinstance(b, str) or b not in driver:
                    continue
                d, ns = node(driver[b])[:2]
                cand = (d, ns + ROUTE_NS, driver[b])
                if best is None or cand[:2] > best[:2]:
                    best = cand
            if best is not None and best[0] > 0:
                p = trace(best[2])
                ends.append((best[0], best[1], name, port, p))
    for net, port in top_bits.items():          # a top output driven by logic
        if port[3] == "output" and net in driver:
            d, ns = node(driver[net])[:2]
            if d > 0:
                ends.append((d, ns + ROUTE_NS, "port %s[%d]" % (port[1], port[2]), "",
                             trace(driver[net])))
    ends.sort(key=lambda e: (-e[0], -e[1]))
    return ends, unknown


def short_src(src):
    """The first file:line of a src attribute, path shortened to rtl/..."""
    if not src:
        return ""
    entries = src.split("|")
    first = next((e for e in entries if "rtl/" in e), entries[0])
    i = first.find("rtl/")
    if i >= 0:
        first = first[i:].replace("rtl/top/../", "rtl/")
    return first.split("-")[0].rsplit(".", 1)[0] if "-" in first else first


def describe(path):
    """Consecutive cells of one RTL line merged: 'file:line [n TYPE]' joined by ' -> '."""
    parts = []
    for name, ctype, label in path:
        s = label or "(no name)"
        if parts and parts[-1][0] == s:
            parts[-1][1].append(ctype)
        else:
            parts.append([s, [ctype]])
    out = []
    for s, types in parts:
        kinds = defaultdict(int)
        for t in types:
            kinds[t] += 1
        out.append("%s [%s]" % (s, ", ".join("%d %s" % (n, t) for t, n in kinds.items())))
    return " -> ".join(out)


def main(argv):
    if len(argv) >= 1 and argv[0] == "--self-test":
        return self_test()
    args = list(argv)
    top_n, min_cells, min_ns, by_ns, path, under = 15, None, None, False, None, None
    while args:
        a = args.pop(0)
        if a == "--top" and args:
            top_n = int(args.pop(0))
        elif a == "--under" and args:
            under = args.pop(0).rstrip(".") + "."
        elif a == "--min" and args:
            min_cells = int(args.pop(0))
        elif a == "--min-ns" and args:
            min_ns = float(args.pop(0))
        elif a == "--by-ns":
            by_ns = True
        elif path is None and not a.startswith("--"):
            path = a
        else:
            print(__doc_usage__, file=sys.stderr)
            return 2
    if path is None:
        print(__doc_usage__, file=sys.stderr)
        return 2
    try:
        with open(path) as f:
            netlist = json.load(f)
    except (OSError, ValueError) as e:
        print("depth.py: cannot read %s: %s" % (path, e), file=sys.stderr)
        return 1
    top = find_top(netlist)
    if top is None:
        print("depth.py: no single top module in %s" % path, file=sys.stderr)
        return 1
    cells, top_bits, names = flatten(netlist, top)
    try:
        ends, unknown = analyse(cells, top_bits, names)
        if under is not None:
            ends = [e for e in ends if e[2].startswith(under)]
    except ValueError as e:
        print("depth.py: %s" % e, file=sys.stderr)
        return 1
    if unknown:
        print("warning: cell types taken as sequential: %s" % ", ".join(sorted(unknown)),
              file=sys.stderr)
    print("top %s: %d cells, %d path endpoints; deepest %d logic cells" %
          (top, len(cells), len(ends), ends[0][0] if ends else 0))
    if min_cells is not None:
        print("endpoints with >= %d logic cells: %d" %
              (min_cells, sum(1 for e in ends if e[0] >= min_cells)))
    if min_ns is not None:
        print("endpoints with an estimate >= %.1f ns: %d" %
              (min_ns, sum(1 for e in ends if e[1] >= min_ns)))
    if by_ns:
        ends = by_estimate(ends)
    seen = set()
    shown = 0
    for d, ns, name, port, p in ends:
        key = describe(p)
        if key in seen:        # one line per distinct path shape (a bus has many bits)
            continue
        seen.add(key)
        print("%3d cells ~%5.1f ns  %s.%s\n      %s" % (d, ns, name, port, key))
        shown += 1
        if shown >= top_n:
            break
    return 0


__doc_usage__ = ("usage: scripts/depth.py NETLIST.json [--top N] [--min CELLS] [--min-ns NS] "
                 "[--by-ns] [--under NAME] | --self-test")


def by_estimate(ends):
    """The endpoints of analyse() ordered by the estimate in ns, then by cells."""
    return sorted(ends, key=lambda e: (-e[1], -e[0]))


def self_test():
    """A two-LUT path between flip-flops, a 3-cell carry chain entered on CIN twice, and a
    PFUMX fed by two LUTs: depths 2, 2 (one LUT + the chain's first cell) and 3."""
    def lut(name, a, z):
        return name, {"type": "LUT4", "connections": {"A": [a], "B": ["0"], "C": ["0"],
                                                          "D": ["0"], "Z": [z]}}

    def ff(name, d, q):
        return name, {"type": "TRELLIS_FF", "connections": {"DI": [d], "Q": [q], "CLK": [1]}}
    cells = dict([ff("r0", 2, 3), lut("l0", 3, 4), lut("l1", 4, 5), ff("r1", 5, 6)])
    cells["c0"] = {"type": "CCU2C", "connections": {"A0": [7], "CIN": ["0"], "COUT": [8],
                                                    "S0": [9], "S1": [10]}}
    cells["c1"] = {"type": "CCU2C", "connections": {"A0": ["0"], "CIN": [8], "COUT": [11],
                                                    "S0": [12], "S1": [13]}}
    cells["c2"] = {"type": "CCU2C", "connections": {"A0": ["0"], "CIN": [11], "COUT": [14],
                                                    "S0": [15], "S1": [16]}}
    cells.update([lut("l2", 6, 7), ff("r2", 15, 17)])
    cells.update([lut("l3", 17, 18), lut("l4", 17, 19)])
    cells["m"] = {"type": "PFUMX", "connections": {"ALUT": [18], "BLUT": [19], "C0": [20],
                                                   "Z": [21]}}
    cells.update([lut("l5", 21, 22), ff("r3", 22, 23)])
    netlist = {"modules": {"t": {"attributes": {"top": 1}, "ports": {"clk": {"bits": [1]}},
                                 "cells": cells}}}
    top = find_top(netlist)
    c, tb, _ = flatten(netlist, top)
    ends, unknown = analyse(c, tb)
    depth = {e[2]: e[0] for e in ends}
    ok = True
    for name, want in (("r1", 2), ("r2", 2), ("r3", 3)):
        if depth.get(name) != want:
            print("self-test FAILED: %s depth %s, want %d" % (name, depth.get(name), want))
            ok = False
    if unknown:
        print("self-test FAILED: unknown %s" % unknown)
        ok = False
    # by the estimate the carry path (a LUT, then a carry cell entered outside CIN, 0.45 ns)
    # outranks the 3-cell path whose PFUMX is fed on a dedicated input (no net), which
    # outranks the two LUTs
    order = [e[2] for e in by_estimate(ends)]
    if order != ["r2", "r3", "r1"]:
        print("self-test FAILED: by estimate %s, want r2, r3, r1" % order)
        ok = False
    # hierarchy: the two-LUT path with its second LUT inside an instance of module "s"
    # (port a in, z out) is still 2 deep; an undefined cell type ends paths, with a warning
    sub = {"ports": {"a": {"direction": "input", "bits": [2]},
                     "z": {"direction": "output", "bits": [3]}},
           "cells": dict([lut("ls", 2, 3)])}
    cells2 = dict([ff("q0", 9, 4), lut("la", 4, 5), ff("q1", 6, 7)])
    cells2["u"] = {"type": "s", "connections": {"a": [5], "z": [6]}}
    cells2["bb"] = {"type": "MYSTERY", "connections": {"I": [7], "O": [8]}}
    cells2.update([lut("lb", 8, 9)])
    hier = {"modules": {"t": {"attributes": {"top": 1}, "ports": {}, "cells": cells2},
                        "s": sub}}
    c, tb, _ = flatten(hier, find_top(hier))
    ends, unknown = analyse(c, tb)
    depth = {e[2]: e[0] for e in ends}
    if depth.get("q1") != 2 or depth.get("q0") != 1 or unknown != {"MYSTERY"}:
        print("self-test FAILED: hierarchy %s, unknown %s" % (depth, unknown))
        ok = False
    # a pass-through submodule whose two ports are one net (assign y = a): FF -> LUT -> u.a,
    # u.y -> LUT -> FF is 2 deep; a top output behind a LUT and a PFUMX select (C0) is an
    # endpoint, 2 deep
    thru = {"ports": {"a": {"direction": "input", "bits": [2]},
                      "y": {"direction": "output", "bits": [2]}}, "cells": {}}
    cells3 = dict([ff("f0", 9, 4), lut("l0", 4, 5), lut("l1", 6, 7), ff("f1", 7, 8),
                   lut("l2", 8, 10)])
    cells3["u"] = {"type": "thru", "connections": {"a": [5], "y": [6]}}
    cells3["m"] = {"type": "PFUMX", "connections": {"ALUT": ["0"], "BLUT": ["0"], "C0": [10],
                                                    "Z": [11]}}
    alias = {"modules": {"t": {"attributes": {"top": 1},
                               "ports": {"o": {"direction": "output", "bits": [11]}},
                               "cells": cells3},
                         "thru": thru}}
    c, tb, _ = flatten(alias, find_top(alias))
    ends, _ = analyse(c, tb)
    depth = {e[2]: e[0] for e in ends}
    if depth.get("f1") != 2 or depth.get("port o[0]") != 2:
        print("self-test FAILED: aliased ports / top output %s" % depth)
        ok = False
    if ok:
        print("depth.py self-test: ok")
    return 0 if ok else 1


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)   # (output piped into head: no traceback)
    sys.exit(main(sys.argv[1:]))
