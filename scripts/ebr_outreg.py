# SPDX-License-Identifier: Apache-2.0
#
# ebr_outreg.py: fold the fabric flip-flops that register a DP16KD read port into the block RAM's
# own output register (REGMODE_A/B = "OUTREG"), in a Yosys JSON netlist for nextpnr-ecp5.
#
# usage: scripts/ebr_outreg.py IN.json [OUT.json]   (OUT defaults to IN: rewritten in place)
#        scripts/ebr_outreg.py --self-test
#
# Why: the AES S-box ROMs (rtl/aes/aes_sbox.sv, Latency = 2) read through the EBR's address
# register and then an output register. Yosys 0.70's memory mapping for ECP5 (techlibs/lattice/
# brams_16kd.txt) has no output-register option, so synth_ecp5 leaves REGMODE = NOREG and keeps
# the output register as one TRELLIS_FF per read-data bit. That costs 16 FFs per DP16KD and, worse,
# one net per bit from the EBR to a flip-flop that the placer puts with the round's logic: the
# EBR's NOREG clock-to-output (5.83 ns on speed grade 6) plus that net is the critical path of
# the AES pipeline (docs/synthesis.md, aes_cipher_pipe_128), and in the whole tops those 1,600
# nets are the longest of the pipeline (docs/rtl/fmax-log.md, session 24).
#
# What it does, per module and per DP16KD read port P in {A, B} with REGMODE_P = "NOREG": if every
# DOP bit that has a load drives exactly one load, the DI of a TRELLIS_FF, and all those FFs
#   - are clocked by the EBR's CLKP net with the same polarity (FF CLKMUX "CLK", EBR CLKPMUX
#     "CLKP"),
#   - share one clock enable (CEMUX "CE" on one net, or CEMUX "1" for all),
#   - have no set/reset (LSR tied to constant 0 with LSRMUX "LSR") and power up as 0 (REGSET
#     "RESET"), with GSR equal to the EBR's GSR,
# and the EBR's RSTP is tied to 0 and OCEP to 1 (unused), and no DOP bit is a module port, then:
# REGMODE_P := "OUTREG", OCEP := the FFs' clock enable, each DOP bit := the FF's Q net (netnames
# of the old DOP net become aliases of Q), and the FFs are removed. Anything else is left alone and
# counted by reason. The behaviour is the same cycle for cycle: the OUTREG register loads the read
# data when OCEP is high, as the FF did when CE was high (Lattice TN1264, ECP5 Memory Usage Guide,
# "Output register"; nextpnr-ecp5 times a DP16KD by its REGMODE pair).
#
# A DP16KD that Yosys made of a wide RAM (DATA_WIDTH 36: port A writes, port B reads 36 bits
# that leave on DOA0..17 and DOB0..17, OCEA tied to 0) is one read port: both halves are folded
# together (REGMODE_A and REGMODE_B, OCEA and OCEB alike) or neither, since which port's REGMODE
# registers the DOA half in that mode is not documented for DP16KD (PDPW16KD, the 36-bit
# primitive, has a single REGMODE); set alike, every bit is registered exactly once either way.
# Until session 33 only port B's half was folded, and a netlist with the round-key RAMs
# (rtl/aes/aes_cipher_pipe_rk.sv) could register half of each round key twice in silicon.
#
# Prints one line: ports folded, FFs removed, DP16KD seen, ports left and why. Exit 0 on success
# (including nothing to fold), 1 on a malformed netlist, 2 on usage errors.
import json
import os
import sys
from collections import Counter, defaultdict


def pstr(v):
    """A Yosys JSON string parameter without the trailing space Yosys adds to 0/1/x/z strings."""
    return v.rstrip(" ") if isinstance(v, str) else v


def width(v):
    """A DATA_WIDTH parameter as an int (Yosys JSON writes integers as 32-bit binary strings)."""
    if isinstance(v, int):
        return v
    v = pstr(v)
    try:
        return int(v, 2) if set(v) <= {"0", "1"} and len(v) > 8 else int(v)
    except ValueError:
        return -1


def fold_module(mod, why):
    """Fold the foldable read ports of the DP16KD cells of one module (a Yosys JSON module dict,
    modified in place). Returns (ports folded, FFs removed, DP16KD seen); why counts the reasons
    a port was left (Counter)."""
    cells = mod.get("cells", {})
    port_bits = set()
    for p in mod.get("ports", {}).values():
        port_bits.update(b for b in p["bits"] if isinstance(b, int))
    loads = defaultdict(list)  # net bit -> [(cell name, port)] for every input pin it drives
    for name, c in cells.items():
        dirs = c.get("port_directions", {})
        for port, bits in c["connections"].items():
            if dirs.get(port, "input") != "output":  # inout counts as a load
                for b in bits:
                    if isinstance(b, int):
                        loads[b].append((name, port))
    folded = removed = seen = 0
    rename = {}  # old DOP bit -> FF Q bit
    dead = set()
    def candidates(used):
        """([(pin, FF name, FF cell)], None) if every used read-data bit drives exactly one
        flip-flop's DI, else ([], the reason)."""
        ffs = []
        for pin, b in used:
            ld = loads[b]
            if b in port_bits:
                return [], "read data is a module port"
            if len(ld) != 1:
                return [], "read data has more than one load"
            fname, fport = ld[0]
            f = cells[fname]
            if f["type"] != "TRELLIS_FF" or fport != "DI":
                return [], "read data feeds logic, not a flip-flop"
            ffs.append((pin, fname, f))
        return ffs, None

    def take(e, ports, ffs):
        """Fold ffs into the output register of the ports named (REGMODE, OCE := the FFs' CE)."""
        prm, con = e["parameters"], e["connections"]
        f0 = ffs[0][2]
        ce = ["1"] if pstr(f0["parameters"].get("CEMUX", "1")) == "1" else f0["connections"]["CE"]
        for P in ports:
            prm[f"REGMODE_{P}"] = "OUTREG"
            con[f"OCE{P}"] = list(ce)
        for pin, fname, f in ffs:
            q = f["connections"]["Q"][0]
            rename[con[pin][0]] = q
            con[pin] = [q]
            dead.add(fname)

    for ename, e in list(cells.items()):
        if e["type"] != "DP16KD":
            continue
        seen += 1
        prm, con = e["parameters"], e["connections"]
        # A read port is one port's DO bits, or, in 36-bit pseudo dual port mode (Yosys's
        # PDPW16KD mapping: port A writes, port B reads 36 bits that leave on DOA0..17 and
        # DOB0..17), both ports' together: which port's REGMODE registers the DOA half in that
        # mode is not documented for DP16KD (PDPW16KD has one REGMODE), so the halves are folded
        # together, both ports set alike, or not at all; each bit is then registered once either
        # way.
        wide = 36 in (width(prm.get("DATA_WIDTH_A", 18)), width(prm.get("DATA_WIDTH_B", 18)))
        for ports in (["AB"] if wide else ["A", "B"]):
            if any(pstr(prm.get(f"REGMODE_{P}", "NOREG")) != "NOREG" for P in ports):
                why["already OUTREG"] += 1
                continue
            dos = [(f"DO{P}{i}", con.get(f"DO{P}{i}", ["x"])[0]) for P in ports for i in range(18)]
            used = [(pin, b) for pin, b in dos if isinstance(b, int) and (loads[b] or b in port_bits)]
            if not used:
                why["read port unused"] += 1
                continue
            ffs, reason = candidates(used)
            if not reason and wide:
                if con.get("RSTA", ["0"]) != ["0"]:
                    reason = "EBR reset in use"
                elif con.get("CLKA") != con.get("CLKB") or \
                        pstr(prm.get("CLKAMUX", "CLKA")) != "CLKA":
                    reason = "36-bit EBR with two clocks"
            if not reason:
                reason = check_ffs(e, ports[-1], ffs)  # the read port: B in 36-bit mode
            if reason:
                why[f"36-bit: {reason}" if wide else reason] += 1
                continue
            take(e, ports, ffs)
            folded += 1
            removed += len(ffs)
    for fname in dead:
        del cells[fname]
    if rename:
        for n in mod.get("netnames", {}).values():
            n["bits"] = [rename.get(b, b) if isinstance(b, int) else b for b in n["bits"]]
    return folded, removed, seen


def check_ffs(e, P, ffs):
    """None if the flip-flops ffs [(DO pin, name, cell)] behave as port P's output register would,
    else the reason they do not."""
    prm, con = e["parameters"], e["connections"]
    if con.get(f"RST{P}", ["0"]) != ["0"]:
        return "EBR reset in use"
    if con.get(f"OCE{P}", ["1"]) != ["1"]:
        return "EBR output enable in use"
    if pstr(prm.get(f"CLK{P}MUX", f"CLK{P}")) != f"CLK{P}":
        return "EBR clock inverted"
    ces = set()
    for _pin, _n, f in ffs:
        fp, fc = f["parameters"], f["connections"]
        if fc.get("CLK") != con.get(f"CLK{P}") or pstr(fp.get("CLKMUX", "CLK")) != "CLK":
            return "flip-flop on another clock"
        if pstr(fp.get("REGSET", "RESET")) != "RESET" or \
                pstr(fp.get("GSR", "ENABLED")) != pstr(prm.get("GSR", "ENABLED")):
            return "flip-flop initial value differs"
        if fc.get("LSR", ["0"]) != ["0"] or pstr(fp.get("LSRMUX", "LSR")) != "LSR":
            return "flip-flop has a set/reset"
        cemux = pstr(fp.get("CEMUX", "1"))
        if cemux == "1":
            ces.add(("1",))
        elif cemux == "CE":
            ces.add(tuple(fc.get("CE", ["1"])))
        else:
            return "flip-flop clock enable inverted or constant 0"
    if len(ces) != 1:
        return "flip-flops differ in clock enable"
    return None


def instances(netlist):
    """{module name: number of times it occurs in the design below the top} of a hierarchical
    netlist (synth_ecp5 -noflatten or a keep list); the top counts 1. Modules under no top
    (e.g. cell libraries) count 1 as well, so that a netlist without a top attribute still
    reports per module."""
    mods = netlist.get("modules", {})
    # Yosys writes the top attribute as a binary string ("000...01"): any 1 marks the top.
    tops = [n for n, m in mods.items() if "1" in str(m.get("attributes", {}).get("top", ""))]
    if not tops:
        return {n: 1 for n in mods}
    count = Counter()

    def walk(name, k):
        count[name] += k
        for c in mods[name].get("cells", {}).values():
            if c["type"] in mods:
                walk(c["type"], k)
    for t in tops:
        walk(t, 1)
    return {n: count.get(n, 0) for n in mods}


def fold(netlist):
    """Fold every module of a Yosys JSON netlist in place; returns (folded, removed, seen, why),
    the counts over the design's instances (a module used n times counts n times: a hierarchical
    netlist folds the module once and every instance has it)."""
    why = Counter()
    tot = [0, 0, 0]
    inst = instances(netlist)
    for name, mod in netlist.get("modules", {}).items():
        w = Counter()
        r = fold_module(mod, w)
        k = inst.get(name, 1)
        tot = [a + b * k for a, b in zip(tot, r)]
        for reason, n in w.items():
            why[reason] += n * k
    return tot[0], tot[1], tot[2], why


def summary(folded, removed, seen, why):
    left = ", ".join(f"{n} {r}" for r, n in sorted(why.items())) or "none"
    return (f"ebr_outreg: {folded} read ports folded into REGMODE OUTREG, {removed} flip-flops "
            f"removed, {seen} DP16KD seen; ports left: {left}")


# ---------------------------------------------------------------------------------------------
# Self-test: synthetic netlists, one per rule.

def _ebr(base, width=2, **over):
    """A DP16KD whose DOA bits are base..base+width-1 and DOB bits base+100..; clock net 2."""
    con = {"CLKA": [2], "CLKB": [2], "CEA": [4], "CEB": [4], "OCEA": ["1"], "OCEB": ["1"],
           "RSTA": ["0"], "RSTB": ["0"]}
    for i in range(18):
        con[f"DOA{i}"] = [base + i] if i < width else ["x"]
        con[f"DOB{i}"] = [base + 100 + i] if i < width else ["x"]
    dirs = {p: ("output" if p.startswith("DO") else "input") for p in con}
    e = {"type": "DP16KD", "parameters": {"REGMODE_A": "NOREG", "REGMODE_B": "NOREG",
                                          "GSR": "DISABLED", "CLKAMUX": "CLKA", "CLKBMUX": "CLKB"},
         "connections": con, "port_directions": dirs}
    e["parameters"].update(over)
    return e


def _ff(d, q, ce=4, clk=2, **over):
    p = {"CEMUX": "CE", "CLKMUX": "CLK", "GSR": "DISABLED", "LSRMUX": "LSR", "REGSET": "RESET"}
    p.update(over)
    return {"type": "TRELLIS_FF", "parameters": p,
            "connections": {"CE": [ce], "CLK": [clk], "DI": [d], "LSR": ["0"], "Q": [q]},
            "port_directions": {"CE": "input", "CLK": "input", "DI": "input", "LSR": "input",
                                "Q": "output"}}


def _lut(a, z):
    return {"type": "LUT4", "parameters": {}, "connections": {"A": [a], "Z": [z]},
            "port_directions": {"A": "input", "Z": "output"}}


def _case(ffs_a, ffs_b=None, extra=None, ports=None, ebr_over=None):
    cells = {"e": _ebr(1000, **(ebr_over or {}))}
    for i, f in enumerate(ffs_a):
        cells[f"fa{i}"] = f
    for i, f in enumerate(ffs_b or []):
        cells[f"fb{i}"] = f
    cells.update(extra or {})
    return {"modules": {"m": {"ports": ports or {}, "cells": cells, "netnames": {
        "rd": {"bits": [1000, 1001]}, "q": {"bits": [2000, 2001]}}}}}


def self_test():
    fails = []

    def check(name, cond):
        if not cond:
            fails.append(name)

    # 1. Both ports foldable: A on CE net 4, B with CEMUX "1".
    n = _case([_ff(1000, 2000), _ff(1001, 2001)],
              [_ff(1100, 2100, CEMUX="1"), _ff(1101, 2101, CEMUX="1")],
              extra={"l": _lut(2000, 3000)})
    f, r, s, why = fold(n)
    m = n["modules"]["m"]
    e = m["cells"]["e"]
    check("fold counts", (f, r, s) == (2, 4, 1) and not why)
    check("regmode", e["parameters"]["REGMODE_A"] == "OUTREG" and
          e["parameters"]["REGMODE_B"] == "OUTREG")
    check("OCEA is the FF clock enable", e["connections"]["OCEA"] == [4])
    check("OCEB constant 1", e["connections"]["OCEB"] == ["1"])
    check("DOA0 drives the old Q net", e["connections"]["DOA0"] == [2000] and
          e["connections"]["DOB1"] == [2101])
    check("FFs removed", not any(k.startswith("f") for k in m["cells"]))
    check("netname alias", m["netnames"]["rd"]["bits"] == [2000, 2001])
    check("LUT untouched", m["cells"]["l"]["connections"]["A"] == [2000])
    # 2. Idempotent: a second pass folds nothing.
    f2, r2, _s, why2 = fold(n)
    check("second pass", (f2, r2) == (0, 0) and why2["already OUTREG"] == 2)
    # 3. Rules that must leave port A alone (port B has no loads).
    bad = {
        "read data has more than one load": dict(extra={"l": _lut(1001, 3000)}),
        "read data feeds logic, not a flip-flop": dict(ffs=[_ff(1000, 2000)],
                                                       extra={"l": _lut(1001, 3000)}),
        "read data is a module port": dict(ports={"o": {"direction": "output", "bits": [1001]}}),
        "flip-flop on another clock": dict(ffs=[_ff(1000, 2000), _ff(1001, 2001, clk=9)]),
        "flip-flop has a set/reset": dict(ffs=[_ff(1000, 2000), _ff(1001, 2001, LSRMUX="INV")]),
        "flip-flop initial value differs": dict(ffs=[_ff(1000, 2000), _ff(1001, 2001, REGSET="SET")]),
        "flip-flops differ in clock enable": dict(ffs=[_ff(1000, 2000), _ff(1001, 2001, ce=7)]),
        "flip-flop clock enable inverted or constant 0": dict(
            ffs=[_ff(1000, 2000), _ff(1001, 2001, CEMUX="INV")]),
        "EBR clock inverted": dict(ebr_over={"CLKAMUX": "INV"}),
    }
    for reason, kw in bad.items():
        ffs = kw.get("ffs", [_ff(1000, 2000), _ff(1001, 2001)])
        n = _case(ffs, extra=kw.get("extra"), ports=kw.get("ports"), ebr_over=kw.get("ebr_over"))
        before = json.dumps(n, sort_keys=True)
        f, r, _s, why = fold(n)
        check(f"left: {reason}", f == 0 and r == 0 and why[reason] == 1 and
              json.dumps(n, sort_keys=True) == before)
    # 4. The set/reset pin in use (not constant 0).
    ff = _ff(1001, 2001)
    ff["connections"]["LSR"] = [8]
    n = _case([_ff(1000, 2000), ff])
    check("LSR net", fold(n)[3]["flip-flop has a set/reset"] == 1)
    # 5. Hierarchy: a module holding one foldable port, instantiated three times under the top.
    n = _case([_ff(1000, 2000), _ff(1001, 2001)])
    sub = n["modules"].pop("m")
    n["modules"]["sub"] = sub
    n["modules"]["top"] = {"attributes": {"top": "00000000000000000000000000000001"}, "ports": {},
                           "netnames": {}, "cells": {f"u{i}": {"type": "sub", "connections": {},
                                                                "port_directions": {}}
                                                     for i in range(3)}}
    f, r, s, _why = fold(n)
    check("hierarchy counts instances", (f, r, s) == (3, 6, 3))
    # 6. 36-bit pseudo dual port (DATA_WIDTH 36, as Yosys maps a wide RAM; OCEA tied 0 on the
    # write side): both halves fold together, both ports set alike, or neither.
    w36 = {"DATA_WIDTH_A": "00000000000000000000000000100100",
           "DATA_WIDTH_B": "00000000000000000000000000100100"}

    def case36(ffs_b, **kw):
        n = _case([_ff(1000, 2000), _ff(1001, 2001)], ffs_b, ebr_over=dict(w36), **kw)
        n["modules"]["m"]["cells"]["e"]["connections"]["OCEA"] = ["0"]
        return n
    n = case36([_ff(1100, 2100), _ff(1101, 2101)])
    f, r, _s, why = fold(n)
    e = n["modules"]["m"]["cells"]["e"]
    check("36-bit folds as one port", (f, r) == (1, 4) and not why)
    check("36-bit: both REGMODEs", e["parameters"]["REGMODE_A"] == "OUTREG" and
          e["parameters"]["REGMODE_B"] == "OUTREG")
    check("36-bit: both OCEs are the FF clock enable", e["connections"]["OCEA"] == [4] and
          e["connections"]["OCEB"] == [4])
    # a half that cannot fold keeps the other half unfolded too (session 33: only port B was
    # folded, so half of each word would be registered twice if port B's REGMODE governs all 36)
    n = case36([_ff(1100, 2100)], extra={"l": _lut(1101, 3000)})
    before = json.dumps(n, sort_keys=True)
    f, r, _s, why = fold(n)
    check("36-bit: half foldable, nothing folded", (f, r) == (0, 0) and
          why["36-bit: read data feeds logic, not a flip-flop"] == 1 and
          json.dumps(n, sort_keys=True) == before)
    n = case36([_ff(1100, 2100), _ff(1101, 2101)])
    n["modules"]["m"]["cells"]["e"]["connections"]["CLKA"] = [9]
    f, r, _s, why = fold(n)
    check("36-bit: two clocks", (f, r) == (0, 0) and why["36-bit: 36-bit EBR with two clocks"] == 1)
    if fails:
        print("ebr_outreg self-test FAILED: " + "; ".join(fails))
        return 1
    print(f"ebr_outreg self-test ok ({len(bad) + 8} cases)")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) not in (2, 3) or argv[1].startswith("-"):
        print("usage: ebr_outreg.py IN.json [OUT.json] | --self-test", file=sys.stderr)
        return 2
    src, dst = argv[1], argv[2] if len(argv) == 3 else argv[1]
    try:
        with open(src) as fh:
            netlist = json.load(fh)
        res = fold(netlist)
    except (OSError, ValueError, KeyError, TypeError, IndexError) as ex:
        print(f"ebr_outreg: {src}: {type(ex).__name__}: {ex}", file=sys.stderr)
        return 1
    tmp = dst + ".tmp"
    with open(tmp, "w") as fh:
        json.dump(netlist, fh)
    os.replace(tmp, dst)
    print(summary(*res))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
