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
# splits it but maps every module on its own (22 % more LUT4 for the protect top and 16 % for
# verify, docs/rtl/fmax-log.md, session 15), so its split is not the netlist that is placed.
# This reads the placed netlist.
#
# How a cell is attributed. Yosys's flatten keeps the instance path in the names of the nets
# and cells it copies ("u_dut.u_protect.u_emit.jt_q..."), and synth_ecp5 names each mapped cell
# after a net it drives or reads (autoname). The instance path of a name is its leading run of
# levels named u_* (instances) or gen_* (generate scopes, with their [index]); a level of
# another form (a signal) ends it, and a path that starts at an input port (`_i`, `_ni`) is the
# parent's. Then:
#   - a register or RAM (TRELLIS_FF, DPR16X4, DP16KD) goes to the path of its output net's
#     declared name (not an autoname; its own register name (_q) or output port first, then
#     other names, another instance's input port last, as its parent's; the deeper path first
#     among equals);
#   - a register whose output kept no declared name (about 60 % of the FFs of a whole top:
#     Yosys keeps few register names) goes to the path most of the declared names near it
#     point to: a breadth-first walk over nets, not through nets of more than FANOUT_CAP cells
#     (clocks, resets, wide enables), each name weighted 1 / (1 + nets away), until NEAR_ENOUGH
#     weight or NEAR_HOPS nets; a port name points to the module on the walking cell's side
#     of it (reading u_x.p_i or driving u_x.p_o: u_x; else u_x's parent); with no name in
#     reach, to the path of its own cell name;
#   - logic (LUT4, CCU2C, PFUMX, L6MUX21) goes to the path most of its sinks go to (registers,
#     RAMs, kept instances; other logic by the same rule), so the logic in front of a register
#     is counted with it, also when it is the parent's logic feeding a child's registers; logic
#     that feeds nothing attributed, by its own name.
# Cells inside a kept module (a cell whose type is a non-blackbox module of the netlist) are
# split the same way under that instance's path. --depth N keeps N levels below --under
# (default u_dut, the pin wrapper's DUT). The totals are the netlist's exactly; a row is an
# attribution. Measured on the protect and verify netlists of ebad3bb, 8708760 and 2fd7c4b
# (the RTL differs by one register per emit, and at 2fd7c4b by rocesec_job_slots, which moved
# about 1.8 % of the LUT4 total from u_emit to u_emit.u_slots): every other row stayed within 2.9 %
# of the total (protect's parse). Stable is not right: the names that win are partly Yosys's
# RAM port names ("u_hdr_q.mem_q.0.29_DO_3"), and the key stage kept almost no names of its
# own, so (found in review, session 31) u_hdr_q's row is mostly the QP identity table of
# u_key.u_ident (16 entries of GID + QPN + valid, 153 bits), which has no row, and
# u_key.u_verdict_q's row holds the key stage's counters. Read the key stage as the sum of u_key, its children and u_hdr_q.
# Ignoring RAM port and clock names in the walk moved that logic to the top's glue instead: the
# netlist does not carry the information to split the key stage.
#
# Counting (as scripts/synth.sh): LUT4 = LUT4 cells + 2 per CCU2C (a carry cell is two LUT4s);
# FF = TRELLIS_FF; DPR = TRELLIS_DPR16X4 (16x4 distributed RAM; nextpnr packs each into a slice
# pair's LUTs); EBR = DP16KD + PDPW16KD; PFUMX and L6MUX21 (the slice's wide-function muxes) are
# counted apart, as "mux".
#
# --compare N1 N2 ... prints each row's share of the LUT4 total in every netlist and its swing
# (how the stability above was measured).
#
# Output: a Markdown table (or TSV with --tsv) sorted by LUT4, then the totals. Exit 0; 1 on a
# netlist it cannot read or one with no cell under --under; 2 on usage errors.
import json
import re
import sys
from collections import defaultdict

LEVEL = re.compile(r"^(u_|gen_)[A-Za-z0-9_]*(\[\d+\])*$")
# where the signal part of a mapped cell's name ends ("wdata_i_TRELLIS_FF_Q_3": net wdata_i)
SUFFIX = re.compile(r"_(?:TRELLIS_FF|TRELLIS_DPR16X4|LUT4|CCU2C|PFUMX|L6MUX21|DP16KD|PDPW16KD)_")
OUTPUT = re.compile(r"_o(\[\d+\])?$")  # an output port
INPUT = re.compile(r"_n?i(\[\d+\])?$")  # an input port (lowRISC names: _i, _ni)
COLS = ("lut4", "ff", "dpr", "ebr", "mux")


def module_path(name):
    """The instance path of a cell name: its leading u_* / gen_* levels, less the last if the
    name starts at an input port of that instance (the logic behind it is its parent's)."""
    out, _ = name_levels(name)  # (the last level is the cell's or signal's own name)
    root = SUFFIX.split(name.split(".")[len(out)], 1)[0]  # the net the name starts from
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


NEAR_HOPS = 10      # nets walked from an unnamed register, at most
NEAR_ENOUGH = 4.0   # weighted names that end the walk early
FANOUT_CAP = 64     # nets with more cells than this are not walked through


def name_levels(name):
    """(the leading u_* / gen_* levels of a hierarchical name, its last component)."""
    parts = name.split(".")
    lv = []
    for part in parts[:-1]:
        if not LEVEL.match(part):
            break
        lv.append(part)
    return lv, parts[-1]


def near_name(ns, drives):
    """The instance path that the declared names ns of one net point to, for a cell that drives
    the net (drives) or reads it: a port name is the module on the cell's side of it (reading
    an input port u_x.p_i or driving an output port u_x.p_o: u_x; else u_x's parent), a
    register's name (_q) its module, both first; another name its module, the deeper first.
    None without a declared name."""
    best = None
    for n in ns:
        lv, sig = name_levels(n)
        if INPUT.search(sig):
            rank, lv = (0, lv) if not drives else (2, lv[:-1])
        elif OUTPUT.search(sig):
            rank, lv = (0, lv) if drives else (2, lv[:-1])
        elif sig.endswith("_q") or "_q[" in sig:
            rank = 0
        else:
            rank = 1
        key = (rank, -len(lv), n)
        if best is None or key < best[0]:
            best = (key, lv)
    return None if best is None else best[1]


def reg_path(qbits, names):
    """The instance path of a sequential cell from the declared names of its output net, which
    it drives (near_name: its own register name or output port first, another instance's input
    port last, as its parent's), or None if it kept none."""
    for b in qbits:
        path = near_name(names.get(b, ()), True)
        if path is not None:
            return path
    return None


def majority(votes):
    """The path with the most votes (ties: the greater path, so the result is deterministic)."""
    return list(max(votes.items(), key=lambda kv: (kv[1], kv[0]))[0])


def check_netlist(netlist):
    """Raise ValueError unless netlist has the shape of Yosys's write_json output (the parts
    this script reads)."""
    mods = netlist.get("modules") if isinstance(netlist, dict) else None
    if not isinstance(mods, dict):
        raise ValueError("no 'modules' object")
    for name, m in mods.items():
        if not isinstance(m, dict) or not isinstance(m.get("cells", {}), dict) or \
                not isinstance(m.get("netnames", {}), dict) or \
                not isinstance(m.get("attributes", {}), dict):
            raise ValueError("module %s is not a module object" % name)
        for cname, c in m.get("cells", {}).items():
            if not isinstance(c, dict) or not isinstance(c.get("type"), str) or \
                    not isinstance(c.get("connections", {}), dict) or \
                    not isinstance(c.get("port_directions", {}), dict) or \
                    not all(isinstance(v, list) for v in c.get("connections", {}).values()):
                raise ValueError("cell %s of %s is not a cell object" % (cname, name))
        for nname, n in m.get("netnames", {}).items():
            if not isinstance(n, dict) or not isinstance(n.get("bits"), list):
                raise ValueError("net %s of %s is not a net object" % (nname, name))


def split(netlist, depth, under):
    """Per module (depth levels below `under`), the counts of each column; and the totals.

    Sequential cells (FF, RAM, EBR) go to the module of their output net's declared name, or
    without one of the declared names near them; combinational cells (LUT4, CCU2C, PFUMX,
    L6MUX21) to the module of what they feed (the most frequent among their sinks: registers,
    kept instances, or other cells so attributed). See the header."""
    check_netlist(netlist)
    mods = netlist["modules"]
    tops = [m for m, v in mods.items() if str(v.get("attributes", {}).get("top", "0")).strip("0")]
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

    def walk(mod, prefix, stack=()):
        if mod in stack:
            raise ValueError("module %s instantiates itself" % mod)
        stack = stack + (mod,)
        m = mods[mod]
        names = real_names(m.get("netnames", {}))
        cells = m.get("cells", {})
        info = {}                      # cell -> (kind dict, base type)
        sinks = defaultdict(list)      # bit -> consuming cells
        bit_cells = defaultdict(list)  # bit -> every cell on it (for the walk in near_path)
        for cname, cell in cells.items():
            ctype = cell["type"]
            sub = mods.get(ctype)
            if sub is not None and "blackbox" not in sub.get("attributes", {}):
                walk(ctype, prefix + cname.split("."), stack)  # a kept module, under its path
                info[cname] = (None, "inst")
            else:
                if sub is not None:  # a library cell, maybe a copy ($paramod$...\TRELLIS_FF)
                    ctype = sub.get("attributes", {}).get("hdlname", ctype)
                info[cname] = (kind(ctype), ctype)
            dirs = cell.get("port_directions", {})
            for port, bits in cell.get("connections", {}).items():
                for b in bits:
                    if isinstance(b, int):
                        bit_cells[b].append(cname)
                        if dirs.get(port) == "input":
                            sinks[b].append(cname)
        memo = {}      # combinational cell -> path
        seq_memo = {}  # sequential cell -> path

        def near_path(cname):
            """The instance path most of the declared net names near a cell have: a breadth-
            first walk over nets (not through nets of more than FANOUT_CAP cells: clocks,
            resets, enables), up to NEAR_HOPS nets away, each name weighted 1 / (1 + hops)."""
            votes = defaultdict(float)
            seen_bits, seen_cells = set(), {cname}
            frontier = [cname]
            for hop in range(NEAR_HOPS):
                nxt = []
                for c in frontier:
                    dirs = cells[c].get("port_directions", {})
                    for port, bits in cells[c].get("connections", {}).items():
                        for b in bits:
                            if not isinstance(b, int) or b in seen_bits:
                                continue
                            seen_bits.add(b)
                            best = near_name(names.get(b, ()), dirs.get(port) == "output")
                            if best is not None:
                                votes[tuple(best)] += 1.0 / (1 + hop)
                            if len(bit_cells[b]) <= FANOUT_CAP:
                                for t in bit_cells[b]:
                                    if t not in seen_cells:
                                        seen_cells.add(t)
                                        nxt.append(t)
                if sum(votes.values()) >= NEAR_ENOUGH:
                    break
                frontier = nxt
            return majority(votes) if votes else module_path(cname)

        def path_of(cname):
            k, ctype = info[cname]
            if ctype == "inst":
                return prefix + cname.split(".")
            if ctype in SEQ:
                if cname not in seq_memo:
                    cell = cells[cname]
                    dirs = cell.get("port_directions", {})
                    qbits = [b for p, bs in cell.get("connections", {}).items()
                             if dirs.get(p) == "output" for b in bs if isinstance(b, int)]
                    rp = reg_path(qbits, names)
                    seq_memo[cname] = prefix + (rp if rp is not None else near_path(cname))
                return seq_memo[cname]
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
            # post-order over the combinational fanout: each cell takes the most frequent path
            # among its sinks' paths (registers end the walk; `active` guards against a
            # combinational loop, which a netlist should not have)
            stack = [(start, False)]
            active = set()
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
                memo[c] = majority(votes) if votes else prefix + module_path(c)
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
    """Small netlists with known answers; 0 if all hold, else 1 (explicit checks, so that
    python3 -O runs them too)."""
    failures = []

    def check(cond, what):
        if not cond:
            failures.append(what)

    # names
    check(module_path("u_dut.u_emit.jt_q.3.56_DI_LUT4_Z") == ["u_dut", "u_emit"], "path")
    check(module_path("u_dut.u_aes.gen_round[3].u_sbox.x_q_TRELLIS_FF_Q") ==
          ["u_dut", "u_aes", "gen_round[3]", "u_sbox"], "generate scope")
    check(module_path("arready_o_LUT4_Z") == [], "top-level name")
    check(module_path("u_dut.st_mem.u_x.y") == ["u_dut"], "a signal level ends the path")
    check(module_path("u_dut.u_q.wdata_i_TRELLIS_FF_Q_3") == ["u_dut"], "input port: parent")
    check(module_path("u_dut.u_q.rdata_o_LUT4_Z") == ["u_dut", "u_q"], "output port: own")

    i, o = "input", "output"

    def ff(d, q):
        return {"type": "TRELLIS_FF", "port_directions": {"DI": i, "Q": o},
                "connections": {"DI": [d], "Q": [q]}}

    def lut(ins, z):
        dirs = {"Z": o}
        conns = {"Z": [z]}
        for n, b in zip("ABCD", ins):
            dirs[n], conns[n] = i, [b]
        return {"type": "LUT4", "port_directions": dirs, "connections": conns}

    # counting and kept hierarchy: CCU2C counts 2, a library blackbox with cells inside (as
    # Yosys writes DP16KD) is one EBR, a kept module's cells go under its instance path, a
    # parameterized copy of a library cell counts as the cell
    net1 = {"modules": {
        "top": {"attributes": {"top": "00000000000000000000000000000001"}, "cells": {
            "u_dut.u_a.x_LUT4_Z": {"type": "LUT4"},
            "u_dut.u_a.u_b.c_CCU2C": {"type": "CCU2C"},
            "u_dut.u_a.p_FF": {"type": "$paramod$0\\TRELLIS_FF"},
            "pin_LUT4_Z": {"type": "LUT4"},
            "u_dut.u_k": {"type": "kept"},
            "u_dut.u_e.rom": {"type": "DP16KD"},
        }},
        "kept": {"attributes": {}, "cells": {
            "gen_r[0].y_LUT4_Z": {"type": "LUT4"},
            "m_PFUMX": {"type": "PFUMX"},
        }},
        "DP16KD": {"attributes": {"blackbox": "1"}, "cells": {"inner": {"type": "LUT4"}}},
        "$paramod$0\\TRELLIS_FF": {"attributes": {"blackbox": "1", "hdlname": "TRELLIS_FF"},
                                   "cells": {}},
    }}
    rows, totals = split(net1, 1, ["u_dut"])
    check(dict(totals) == {"lut4": 5, "ff": 1, "ebr": 1, "mux": 1}, "net1 totals %s" % totals)
    check(rows["u_a"]["lut4"] == 3 and rows["u_a"]["ff"] == 1, "net1 u_a")
    check(rows["u_k"]["lut4"] == 1 and rows["u_k"]["mux"] == 1, "net1 kept module")
    check(rows["u_e"]["ebr"] == 1, "net1 EBR")
    check(rows["(outside u_dut)"]["lut4"] == 1, "net1 outside")
    rows, _ = split(net1, 2, ["u_dut"])
    check(rows["u_a.u_b"]["lut4"] == 2 and rows["u_a"]["lut4"] == 1, "net1 depth 2")

    # registers by their output's declared names; logic by what it feeds
    net2 = {"modules": {"top": {"attributes": {"top": "1"}, "netnames": {
        "u_dut.u_b.r_q": {"bits": [3]},
        "u_dut.u_a.x_LUT4_Z": {"bits": [2]},           # an autoname: not a declared name
        "u_dut.u_c.s_q": {"bits": [6]},
        "u_dut.u_x.data_i": {"bits": [10, 12]},        # input port of u_x: its parent's
        "u_dut.u_y.r_q": {"bits": [10]},               # _q beats the port
        "u_dut.u_y.plain": {"bits": [12]},             # a plain name beats the port
        "u_dut.u_a.w": {"bits": [13]},
        "u_dut.u_a.u_d.w": {"bits": [13]},             # the deeper of two plain names
        "u_dut.u_h.h_q": {"bits": [14], "hide_name": 1},
        "u_dut.u_z.z_TRELLIS_FF_Q": {"bits": [15]},    # an autoname on Q: ignored
        "u_dut.u_m.mem_q": {"bits": [16]},
        "u_dut.u_v.only_i": {"bits": [21]},
        "u_dut.u_k.in_i": {"bits": [42]},
        "u_dut.u_c2.p_q": {"bits": [72]},
        "u_dut.u_b2.p1_q": {"bits": [73]},
        "u_dut.u_b2.p2_q": {"bits": [74]},
        "u_dut.u_p.out_o": {"bits": [50]},             # read: the reader is outside u_p
        "u_dut.u_r.x_q": {"bits": [52]},               # near a register name and a deeper
        "u_dut.u_s.u_t.plain": {"bits": [52]},         # plain one: the register's
        "u_dut.u_e2.w": {"bits": [54]},                # two plain names: the deeper
        "u_dut.u_e2.u_f.w": {"bits": [54]},
        "u_dut.u_g.g_q": {"bits": [22]},              # _q beats a deeper plain name
        "u_dut.u_w.u_deep.g": {"bits": [22]},
    }, "cells": {
        "u_dut.u_a.x_LUT4_Z": lut([1], 2),
        "u_dut.u_a.r_TRELLIS_FF_Q": ff(2, 3),
        "u_dut.u_a.m.0_DO_TRELLIS_FF_DI": ff(3, 4),     # named after its D net: by its sinks
        "u_dut.u_a.y_LUT4_Z": lut([4], 5),
        "u_dut.u_c.s_TRELLIS_FF_Q": ff(5, 6),
        "u_dut.u_a.l.0_DO_TRELLIS_FF_DI": ff(8, 8),     # feeds only itself: by its name
        # a LUT whose sinks are u_c (first), then u_b twice: the majority wins
        "u_dut.u_c.v_LUT4_Z": lut([6], 9),
        "u_dut.u_c.t_TRELLIS_FF_Q": ff(9, 30),
        "u_dut.u_b.t1_TRELLIS_FF_Q": ff(9, 3),
        "u_dut.u_b.t2_TRELLIS_FF_Q": ff(9, 3),
        "u_dut.u_n.a_TRELLIS_FF_Q": ff(0, 10),
        "u_dut.u_n.b_TRELLIS_FF_Q": ff(0, 12),
        "u_dut.u_n.c_TRELLIS_FF_Q": ff(0, 13),
        "u_dut.u_n.d_TRELLIS_FF_Q": ff(40, 14),       # nothing named near: by its cell name
        "u_dut.u_n.e_TRELLIS_FF_Q": ff(41, 15),
        # an unnamed register that reads an input port of u_k is u_k's (its nearest name)
        "u_dut.u_a.k_TRELLIS_FF_Q": ff(42, 43),
        "u_dut.u_a.o_TRELLIS_FF_Q": ff(50, 51),
        "u_dut.u_a.r_TRELLIS_FF_Q_2": ff(52, 53),
        "u_dut.u_a.w_TRELLIS_FF_Q": ff(54, 55),
        # the only name in reach is across a net of more than FANOUT_CAP cells: by cell name
        "u_dut.u_own.x_TRELLIS_FF_Q": ff(60, 61),
        # a LUT feeding one named register of u_c2 and two of u_b2: u_b2's
        "u_dut.u_c2.w_LUT4_Z": lut([70], 71),
        "u_dut.u_c2.p_TRELLIS_FF_Q": ff(71, 72),
        "u_dut.u_b2.p1_TRELLIS_FF_Q": ff(71, 73),
        "u_dut.u_b2.p2_TRELLIS_FF_Q": ff(71, 74),
        "u_dut.u_n.f_TRELLIS_FF_Q": ff(0, 21),
        "u_dut.u_n.g_TRELLIS_FF_Q": ff(0, 22),
        "u_dut.u_n.ram": {"type": "TRELLIS_DPR16X4", "port_directions": {"DO": o},
                          "connections": {"DO": [16]}},
    }}}}
    for j in range(FANOUT_CAP + 1):
        net2["modules"]["top"]["cells"]["u_dut.u_far.l%d_LUT4_Z" % j] = lut([60], 100 + j)
        net2["modules"]["top"]["netnames"]["u_dut.u_far.n%d_q" % j] = {"bits": [100 + j]}
    rows, totals = split(net2, 2, ["u_dut"])
    check(rows["u_b"]["lut4"] == 2, "logic goes with the register it feeds")
    check(rows["u_b2"]["lut4"] == 1, "logic goes with the registers it feeds, by majority")
    check(rows["u_c"]["lut4"] == 1 and rows["u_c"]["ff"] == 2, "u_c %s" % dict(rows["u_c"]))
    check(rows["u_b"]["ff"] == 4, "an unnamed register goes with the names next to it (u_b.r_q)")
    check(rows["u_k"]["ff"] == 1, "an unnamed register that reads u_k's input port is u_k's")
    check(rows["u_a"]["ff"] == 1, "a register feeding only itself keeps its name's module")
    check(rows["u_y"]["ff"] == 2, "a _q name and a plain name beat an input port")
    check(rows["u_a.u_d"]["ff"] == 1, "the deeper of two plain names")
    check(rows["u_n"]["ff"] == 2, "hidden and autonamed Q nets fall back on the cell name")
    check(rows["(u_dut)"]["ff"] == 2, "an input port alone, or reading an output port: parent")
    check(rows["u_r"]["ff"] == 1, "near: a register's name beats a deeper plain one")
    check(rows["u_e2.u_f"]["ff"] == 1, "near: the deeper of two plain names")
    check(rows["u_own"]["ff"] == 1, "near: no walk through a net of more than FANOUT_CAP cells")
    check(rows["u_m"]["dpr"] == 1, "a RAM by its output's name")
    check(rows["u_g"]["ff"] == 1, "a _q name beats a deeper plain one")
    check(totals["ff"] == 22 and totals["lut4"] == 4 + FANOUT_CAP + 1 and totals["dpr"] == 1,
          "net2 totals %s" % dict(totals))
    c = compare([({"a": {"lut4": 30}, "b": {"lut4": 70}}, {"lut4": 100}),
                 ({"a": {"lut4": 50}, "b": {"lut4": 50}}, {"lut4": 100})])
    check(c.endswith("largest swing: 20.0 % of the LUT4 total"), "compare: the largest swing")
    if failures:
        for f in failures:
            print("area.py self-test FAILED: " + f, file=sys.stderr)
        return 1
    print("area.py self-test: ok")
    return 0


USAGE = ("usage: area.py NETLIST.json [--depth N] [--under PREFIX] [--tsv] | "
         "--compare NETLIST.json... [--depth N] [--under PREFIX] | --self-test")


def compare(tables):
    """Rows as % of each netlist's LUT4 total, side by side, with each row's swing (max - min)
    and the largest swing: how far the attribution moves between netlists."""
    pcts = []
    for rows, totals in tables:
        t = totals["lut4"] or 1
        pcts.append({r: 100.0 * v["lut4"] / t for r, v in rows.items()})
    keys = sorted(set().union(*pcts), key=lambda r: (-max(p.get(r, 0.0) for p in pcts), r))
    lines, worst = [], 0.0
    for r in keys:
        v = [p.get(r, 0.0) for p in pcts]
        swing = max(v) - min(v)
        worst = max(worst, swing)
        lines.append("%-36s %s  swing %.1f" % (r, " ".join("%5.1f" % x for x in v), swing))
    lines.append("largest swing: %.1f %% of the LUT4 total" % worst)
    return "\n".join(lines)


def main(argv):
    args = argv[1:]
    if args == ["--self-test"]:
        return self_test()
    if args and args[0] in ("-h", "--help"):
        print(USAGE)
        return 0
    depth, under, tsv, path = 1, ["u_dut"], False, None
    paths = []
    cmp_mode = bool(args) and args[0] == "--compare"
    if cmp_mode:
        args.pop(0)
    try:
        while args:
            a = args.pop(0)
            if a in ("--depth", "--under") and not args:
                raise ValueError("missing value for " + a)
            if a == "--depth":
                depth = int(args.pop(0))
                if depth < 1:
                    raise ValueError("--depth must be 1 or more")
            elif a == "--under":
                under = [p for p in args.pop(0).split(".") if p]
            elif a == "--tsv":
                tsv = True
            elif cmp_mode and not a.startswith("-"):
                paths.append(a)
            elif path is None and not a.startswith("-"):
                path = a
            else:
                raise ValueError("unexpected argument " + a)
        if cmp_mode and len(paths) < 2:
            raise ValueError("--compare needs two netlists or more")
        if not cmp_mode and path is None:
            raise ValueError("no netlist named")
    except ValueError as e:
        print("%s (%s)" % (USAGE, e), file=sys.stderr)
        return 2
    if cmp_mode:
        tables = []
        for p in paths:
            try:
                with open(p) as f:
                    tables.append(split(json.load(f), depth, under))
            except (OSError, ValueError, RecursionError) as e:
                print("area.py: cannot read %s: %s" % (p, e), file=sys.stderr)
                return 1
        print(compare(tables))
        return 0
    try:
        with open(path) as f:
            netlist = json.load(f)
        rows, totals = split(netlist, depth, under)
    except (OSError, ValueError, RecursionError) as e:
        print("area.py: cannot read %s: %s" % (path, e), file=sys.stderr)
        return 1
    if under and all(r.startswith("(outside ") for r in rows):
        print("area.py: no cell of %s is under %s" % (path, ".".join(under)), file=sys.stderr)
        return 1
    print(table(rows, totals, tsv))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
