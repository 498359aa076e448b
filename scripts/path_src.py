# SPDX-License-Identifier: Apache-2.0
#
# path_src.py: name the RTL lines of the critical path that nextpnr-ecp5 reports, from the
# Yosys JSON netlist it placed and routed.
#
# usage: scripts/path_src.py LOG NETLIST.json     (prints one line; exit 0, 1 on an unreadable
#                                                  input, 2 on bad usage)
#        scripts/path_src.py --self-test
#
# Why: in a flattened, ABC-mapped netlist Yosys names a cell after a chain of the nets around
# it, so a cell name says little about what it is: session 35 read the verify top's critical
# path as starting "at a read of the QP-state RAM" because its source flip-flop was named
# `u_key.st_mem.1.28_DO_TRELLIS_FF_Q`; the flip-flop was `d_pn64_q` (rocesec_verify_key.sv, the
# D1 block) and the path ran through the conflict compare into the policy match of
# rocesec_key_tables. Every cell keeps the `src` attribute Yosys gave it (file:line.col of the
# always block, the operator or the assignment it came from), and nextpnr keeps the JSON cell
# names (a carry cell split into `$CCU2_COMB0/1` halves), so the path can be named by line.
#
# What it prints: the path of the last "Critical path report for clock" after "Routing
# complete" (else the last one in the log, marked "(placement estimate)"), as its cells' RTL
# `src` in path order, consecutive netlist cells of one line merged and counted:
#   rtl/top/a.sv:343.3-380.6 [TRELLIS_FF] -> rtl/top/a.sv:522.38-522.69 [24 CCU2C] -> ...
# Cells with no RTL src (Yosys-made LUTs) are counted as "(n cells, no RTL line)".
# Line numbers: Yosys 0.70 (yowasp) counts each `resetall directive as three lines (measured:
# a src after one `resetall is 2 lines below the source line, after two 4), and every file in
# rtl/ starts with one; the src lines are mapped back through the file as it is now (a netlist
# of another tree may be off from the commit it is recorded under).
import json
import os
import re
import sys
import tempfile

_STEP = re.compile(r"^Info:\s+(clk-to-q|logic|routing|setup|source)\s+(-?[0-9.]+)\s+(-?[0-9.]+)\s+Source\s+(\S+)")
_SINK = re.compile(r"^Info:\s+Sink\s+(\S+)")


def last_path(log_text):
    """Cells (names, in path order, without pins, duplicates in a row removed) of the last
    clock critical path after routing, else of the last one in the log; and whether it was
    after routing. Returns ([], False) when the log has no such report."""
    lines = log_text.splitlines()
    routed_at = next((i for i, ln in enumerate(lines) if "Routing complete" in ln), None)
    starts = [i for i, ln in enumerate(lines) if "Critical path report for clock" in ln]
    if not starts:
        return [], False
    after = [i for i in starts if routed_at is not None and i > routed_at]
    i = (after or starts)[-1]
    cells = []
    for ln in lines[i + 1:]:
        if "Critical path report for" in ln or re.search(r"ns logic, .* ns routing", ln):
            break
        m = _STEP.match(ln) or _SINK.match(ln)
        if not m:
            continue
        pinref = m.group(m.lastindex)
        cell = pinref.rsplit(".", 1)[0] if "." in pinref else pinref
        cell = cell.strip("'")
        if not cells or cells[-1] != cell:
            cells.append(cell)
    return cells, bool(after)


def _top(netlist):
    mods = netlist["modules"]
    for mod in mods.values():
        if str(mod.get("attributes", {}).get("top", "0")).strip("0") != "":
            return mod
    raise KeyError("no module with the top attribute")


def cell_src(mod, cell, mods=None):
    """(type, RTL src) of a nextpnr cell in the Yosys top module `mod`: the cell itself, else
    the name without nextpnr's `$...` packing suffix, else (with `mods`, the netlist's modules)
    inside a kept submodule: a prefix of the name up to a '.' that is an instance in `mod`, the
    rest looked up in that instance's module. RTL src: the `src` entries not under /share
    (Yosys' own techmap files), joined by ', '; '' when none; type None when not found."""
    cells = mod.get("cells", {})
    c = cells.get(cell)
    if c is None and "$" in cell:
        c = cells.get(cell.split("$", 1)[0])
    if c is None and mods:
        for k in range(len(cell) - 1, 0, -1):
            if cell[k] != ".":
                continue
            inst = cells.get(cell[:k])
            if inst is not None and inst.get("type") in mods:
                return cell_src(mods[inst["type"]], cell[k + 1:], mods)
    if c is None:
        return None, ""
    src = [fix_src(s) for s in c.get("attributes", {}).get("src", "").split("|")
           if s and not s.startswith("/share")]
    return c.get("type"), ", ".join(src)


_FILES = {}


def real_line(path, reported):
    """The source line of a Yosys src line number `reported` in file `path`: Yosys 0.70 counts
    each `resetall directive before it as 3 lines, so the line r with r + 2 k(r) == reported,
    k(r) the directives above r. `reported` unchanged when the file cannot be read or no line
    fits."""
    if path not in _FILES:
        try:
            with open(path, errors="replace") as fh:
                _FILES[path] = fh.read().splitlines()
        except OSError:
            _FILES[path] = None
    lines = _FILES[path]
    if lines is None:
        return reported
    k = 0
    for r, text in enumerate(lines, 1):
        if r + 2 * k == reported:
            return r
        if text.strip().startswith("`resetall"):
            k += 1
    return reported


def fix_src(src):
    """A src entry 'file:L1.C1-L2.C2' with both lines mapped by real_line."""
    m = re.match(r"^(.*):(\d+)\.(\d+)-(\d+)\.(\d+)$", src)
    if not m:
        return src
    f, l1, c1, l2, c2 = m.groups()
    return f"{f}:{real_line(f, int(l1))}.{c1}-{real_line(f, int(l2))}.{c2}"


def describe(cells, mod, mods=None):
    """One line: the path's cells by RTL src, runs of one src merged (`mods`: see cell_src)."""
    runs = []  # [src, type, count]
    prev = None
    for cell in cells:
        base = cell.split("$", 1)[0]  # the two halves of a carry cell are one netlist cell
        if base == prev:
            continue
        prev = base
        typ, src = cell_src(mod, cell, mods)
        typ = typ or "?"
        key = src or ""
        if runs and runs[-1][0] == key and (key or runs[-1][1] == "-"):
            runs[-1][2] += 1
            if runs[-1][1] not in ("-", typ):
                runs[-1][1] = "cells"
            continue
        runs.append([key, typ if key else "-", 1])
    out = []
    for src, typ, n in runs:
        if not src:
            out.append(f"({n} cell{'s' if n > 1 else ''}, no RTL line)")
        else:
            out.append(f"{src} [{typ if n == 1 else f'{n} {typ}'}]")
    return " -> ".join(out)


def self_test():
    fails = []

    def check(what, ok):
        if not ok:
            fails.append(what)
    net = {"modules": {"sub": {"attributes": {}, "cells": {}},
                       "top": {"attributes": {"top": "00000000000000000000000000000001"}, "cells": {
        "a.ff_Q": {"type": "TRELLIS_FF", "attributes": {"src": "rtl/x.sv:10.3-20.6|/share/lattice/cells_map_trellis.v:63.1-63.2"}},
        "c0": {"type": "CCU2C", "attributes": {"src": "rtl/x.sv:30.5-30.9|/share/lattice/arith_map_ccu2c.v:74.7-80.4"}},
        "c1": {"type": "CCU2C", "attributes": {"src": "rtl/x.sv:30.5-30.9|/share/lattice/arith_map_ccu2c.v:74.7-80.4"}},
        "l1": {"type": "LUT4", "attributes": {"src": "/share/lattice/cells_map_trellis.v:108.23-108.24"}},
        "l2": {"type": "LUT4", "attributes": {}},
        "b.ff": {"type": "TRELLIS_FF", "attributes": {"src": "rtl/y.sv:5.3-9.6"}}}}}}
    log = "\n".join([
        "Info: Max frequency for clock 'clk': 20.00 MHz (FAIL at 100.00 MHz)",
        "Info: Critical path report for clock 'clk' (posedge -> posedge):",
        "Info:   clk-to-q  0.52  0.52 Source l2.Q",
        "Info: 1.00 ns logic, 1.00 ns routing",
        "Info: Routing complete.",
        "Info: Critical path report for clock 'clk' (posedge -> posedge):",
        "Info:       type curr  total name",
        "Info:   clk-to-q  0.52  0.52 Source a.ff_Q.Q",
        "Info:    routing  4.55  5.08 Net n1 (35,36) -> (64,56)",
        "Info:                          Sink c0$CCU2_COMB0.B",
        "Info:      logic  0.45  5.53 Source c0$CCU2_COMB0.FCO",
        "Info:                          Sink c0$CCU2_COMB1.FCI",
        "Info:      logic  0.00  5.53 Source c0$CCU2_COMB1.FCO",
        "Info:                          Sink c1$CCU2_COMB0.FCI",
        "Info:      logic  0.07  5.60 Source c1$CCU2_COMB0.F",
        "Info:                          Sink l1.D",
        "Info:      logic  0.24  5.84 Source l1.F",
        "Info:                          Sink l2.A",
        "Info:      logic  0.24  6.08 Source l2.F",
        "Info:                          Sink b.ff.M",
        "Info:      setup  0.00  6.08 Source b.ff.M",
        "Info: 6.17 ns logic, 24.44 ns routing",
        "Info: Critical path report for cross-domain path 'x':",
        "Info:      logic  0.24  6.08 Source zz.F"])
    cells, routed = last_path(log)
    check("after routing", routed)
    check("cells in order, halves merged", cells == ["a.ff_Q", "c0$CCU2_COMB0", "c0$CCU2_COMB1",
                                                     "c1$CCU2_COMB0", "l1", "l2", "b.ff"])
    d = describe(cells, _top(net))
    want = ("rtl/x.sv:10.3-20.6 [TRELLIS_FF] -> rtl/x.sv:30.5-30.9 [2 CCU2C] -> "
            "(2 cells, no RTL line) -> rtl/y.sv:5.3-9.6 [TRELLIS_FF]")
    check(f"describe: {d!r}", d == want)
    cells, routed = last_path(log.split("Info: Routing complete.")[0])
    check("estimate only", not routed and cells == ["l2"])
    check("no report", last_path("Info: nothing\n") == ([], False))
    check("unknown cell", cell_src(_top(net), "nope") == (None, ""))
    net["modules"]["sub"]["cells"]["r.q"] = {"type": "TRELLIS_FF",
                                             "attributes": {"src": "rtl/s.sv:7.3-8.6"}}
    _top(net)["cells"]["u.v"] = {"type": "sub", "attributes": {}}
    check("kept submodule", cell_src(_top(net), "u.v.r.q", net["modules"]) ==
          ("TRELLIS_FF", "rtl/s.sv:7.3-8.6"))
    # `resetall: Yosys reports a line 2 below per directive above it (d.sv of session 36)
    with tempfile.NamedTemporaryFile("w", suffix=".sv", delete=False) as fh:
        fh.write("`resetall\n`resetall\n\nmodule d;\n  assign y = x;\nendmodule\n")
    check("resetall x2", fix_src(f"{fh.name}:9.14-9.16") == f"{fh.name}:5.14-5.16")
    os.unlink(fh.name)
    check("no file", fix_src("nope.sv:9.1-9.2") == "nope.sv:9.1-9.2")
    if fails:
        print("path_src self-test FAILED: " + "; ".join(fails))
        return 1
    print("path_src self-test ok (9 checks)")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 3 or argv[1].startswith("-"):
        print("usage: path_src.py LOG NETLIST.json | --self-test", file=sys.stderr)
        return 2
    try:
        with open(argv[1], errors="replace") as fh:
            cells, routed = last_path(fh.read())
        if not cells:
            print(f"path_src: {argv[1]}: no critical path report", file=sys.stderr)
            return 1
        with open(argv[2]) as fh:
            netlist = json.load(fh)
        mod = _top(netlist)
    except (OSError, ValueError, KeyError, TypeError) as ex:
        print(f"path_src: {type(ex).__name__}: {ex}", file=sys.stderr)
        return 1
    print(describe(cells, mod, netlist["modules"]) + ("" if routed else " (placement estimate)"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
