# SPDX-License-Identifier: Apache-2.0
#
# congestion.py: nextpnr-ecp5 Python hook (`--pre-route scripts/congestion.py`) that estimates,
# from the placement alone, where the routing demand is and which RTL modules make it, then
# stops nextpnr before routing.
#
# Why: no router has finished a whole top on a 2-core machine in a session (docs/rtl/fmax-log.md),
# so the router's own overuse is not available per net; this gives an answer in the placer's
# time. The estimate is RUDY (Spindler and Johannes, "Fast and accurate routing demand
# estimation for efficient routability-driven placement", DATE 2007): each net spreads
# (w + h) / (w * h) wire units per tile over its bounding box (w, h in tiles, at least 1), so a
# tile's demand is the expected number of wires crossing it. The hottest tiles (top HOT_FRAC of
# tiles by demand) are then split by the module that drives each net, named by the first
# DEPTH levels of the driver cell's hierarchical name (Yosys keeps "u_emit.u_feed...." when it
# flattens).
#
# Output (to stdout and to $CONGESTION_OUT if set, a TSV):
#   - demand quantiles over all tiles with any demand;
#   - per module: nets, mean fanout, total RUDY demand, its share of the demand in the hot tiles,
#     and the number of nets with a bounding box half-perimeter >= 40 tiles (die crossers).
# Env: CONGESTION_DEPTH (default 2), CONGESTION_HOT (default 0.02), CONGESTION_CONTINUE=1 to let
# nextpnr go on routing after the report, CONGESTION_NETS=file to save every placed net (driver
# cell, fanout, bounding box) so that `python3 scripts/congestion.py --nets file` reports again
# at another depth without placing again.
import os
import sys
from collections import defaultdict

DEPTH = int(os.environ.get("CONGESTION_DEPTH", "2"))
HOT_FRAC = float(os.environ.get("CONGESTION_HOT", "0.02"))


def module_of(name, depth=DEPTH):
    # "u_emit.u_feed.x_q_TRELLIS_FF_Q_3" -> "u_emit.u_feed" (DEPTH levels, the last level is the
    # cell's own name, so it is dropped; generate scopes such as gen_round[1] count as levels)
    parts = name.split(".")[:-1]
    return ".".join(parts[:depth]) if parts else "(top)"


def loc_of(cell):
    bel = cell.bel
    if bel is None:
        return None
    loc = ctx.getBelLocation(bel)
    return (loc.x, loc.y)


def collect():
    """The placed nets of ctx as (module, fanout, (x0, y0, x1, y1), RUDY density)."""
    per_net = []
    for name, net in ctx.nets:
        drv = net.driver
        if drv is None or drv.cell is None:
            continue
        if "$PACKER_GND" in name or "$PACKER_VCC" in name or name.startswith("$glbnet"):
            continue
        pts = []
        p = loc_of(drv.cell)
        if p is not None:
            pts.append(p)
        n_users = 0
        for u in net.users:
            n_users += 1
            q = loc_of(u.cell)
            if q is not None:
                pts.append(q)
        if len(pts) < 2:
            continue
        x0 = min(p[0] for p in pts)
        x1 = max(p[0] for p in pts)
        y0 = min(p[1] for p in pts)
        y1 = max(p[1] for p in pts)
        w = x1 - x0 + 1
        h = y1 - y0 + 1
        per_net.append((drv.cell.name, n_users, (x0, y0, x1, y1), (w + h) / float(w * h)))
    return per_net


def save(per_net, path):
    """Write nets for load(): driver cell, fanout, x0, y0, x1, y1 (tab separated, one per line)."""
    with open(path, "w") as f:
        for c, fan, (x0, y0, x1, y1), _ in per_net:
            f.write("%s\t%d\t%d\t%d\t%d\t%d\n" % (c, fan, x0, y0, x1, y1))


def load(path):
    """Nets saved by CONGESTION_NETS: driver cell, fanout, x0, y0, x1, y1 (tab separated)."""
    per_net = []
    with open(path) as f:
        for line in f:
            c, fan, x0, y0, x1, y1 = line.rstrip("\n").split("\t")
            x0, y0, x1, y1 = int(x0), int(y0), int(x1), int(y1)
            w = x1 - x0 + 1
            h = y1 - y0 + 1
            per_net.append((c, int(fan), (x0, y0, x1, y1), (w + h) / float(w * h)))
    return per_net


def demand_map(per_net):
    """RUDY demand per tile, dem[x][y], from the nets' bounding boxes and densities."""

    # demand per tile: a 2-D difference array over the bounding boxes, then prefix sums
    W = max(b[2] for _, _, b, _ in per_net) + 2
    H = max(b[3] for _, _, b, _ in per_net) + 2
    diff = [[0.0] * (H + 1) for _ in range(W + 1)]
    for _, _, (x0, y0, x1, y1), d in per_net:
        diff[x0][y0] += d
        diff[x1 + 1][y0] -= d
        diff[x0][y1 + 1] -= d
        diff[x1 + 1][y1 + 1] += d
    dem = [[0.0] * H for _ in range(W)]
    for x in range(W):
        for y in range(H):
            v = diff[x][y]
            if x:
                v += dem[x - 1][y]
            if y:
                v += dem[x][y - 1]
            if x and y:
                v -= dem[x - 1][y - 1]
            dem[x][y] = v
    # dem now holds prefix sums of the difference array = the demand per tile
    return dem


def report(per_net, hot_frac):
    """The report text and, per module, its share (%) of the demand in the hot tiles."""
    if not per_net:
        return "congestion.py: no placed nets\n", {}
    dem = demand_map(per_net)
    W = len(dem)
    H = len(dem[0])
    tiles = sorted(v for col in dem for v in col if v > 1e-9)
    q = lambda f: tiles[min(len(tiles) - 1, int(f * len(tiles)))]
    thr = q(1.0 - hot_frac)
    # prefix-sum count of hot tiles, so that each net's hot tiles are counted in O(1)
    hc = [[0] * (H + 1) for _ in range(W + 1)]
    hot = []
    for x in range(W):
        for y in range(H):
            is_hot = 1 if dem[x][y] >= thr and dem[x][y] > 1e-9 else 0
            if is_hot:
                hot.append((x, y))
            hc[x + 1][y + 1] = is_hot + hc[x][y + 1] + hc[x + 1][y] - hc[x][y]

    mod_nets = defaultdict(int)
    mod_fan = defaultdict(int)
    mod_total = defaultdict(float)
    mod_hot = defaultdict(float)
    mod_long = defaultdict(int)
    hot_total = 0.0
    for mod, fan, (x0, y0, x1, y1), dens in per_net:
        mod_nets[mod] += 1
        mod_fan[mod] += fan
        mod_total[mod] += dens * (x1 - x0 + 1) * (y1 - y0 + 1)
        if (x1 - x0) + (y1 - y0) >= 40:
            mod_long[mod] += 1
        n_hot = hc[x1 + 1][y1 + 1] - hc[x0][y1 + 1] - hc[x1 + 1][y0] + hc[x0][y0]
        mod_hot[mod] += dens * n_hot
        hot_total += dens * n_hot

    lines = []
    lines.append("# nets: %d; tiles with demand: %d; demand quantiles p50 %.1f p90 %.1f p98 %.1f"
                 " max %.1f; hot tiles (top %.0f%%): %d, threshold %.1f"
                 % (len(per_net), len(tiles), q(0.5), q(0.9), q(0.98), tiles[-1],
                    hot_frac * 100, len(hot), thr))
    if hot:
        lines.append("# hot tiles span x %d..%d, y %d..%d"
                     % (min(t[0] for t in hot), max(t[0] for t in hot),
                        min(t[1] for t in hot), max(t[1] for t in hot)))
    lines.append("module\tnets\tmean_fanout\trudy_total\thot_share_pct\tlong_nets")
    for mod in sorted(mod_nets, key=lambda m: -mod_hot[m]):
        lines.append("%s\t%d\t%.2f\t%.0f\t%.2f\t%d"
                     % (mod, mod_nets[mod], mod_fan[mod] / float(mod_nets[mod]), mod_total[mod],
                        100.0 * mod_hot[mod] / hot_total if hot_total else 0.0, mod_long[mod]))
    text = "\n".join(lines) + "\n"
    shares = {m: (100.0 * mod_hot[m] / hot_total if hot_total else 0.0) for m in mod_nets}
    return text, shares


def self_test():
    """Known answers from the RUDY definition on a hand-made placement (no nextpnr needed)."""
    # net a: tiles (0,0)-(1,0), w 2 h 1: (2 + 1) / 2 = 1.5 per tile; net b: tile (2,2) alone,
    # w = h = 1: 2; net c: (0,0)-(0,1), w 1 h 2: 1.5 per tile, so tile (0,0) carries 3.0
    nets = [("top.a", 1, (0, 0, 1, 0), 1.5), ("top.b", 2, (2, 2, 2, 2), 2.0),
            ("top.c", 1, (0, 0, 0, 1), 1.5)]
    dem = demand_map(nets)
    want = {(0, 0): 3.0, (1, 0): 1.5, (0, 1): 1.5, (2, 2): 2.0}
    for x in range(len(dem)):
        for y in range(len(dem[0])):
            got = dem[x][y]
            exp = want.get((x, y), 0.0)
            assert abs(got - exp) < 1e-9, "tile (%d,%d): demand %.3f, expected %.3f" % (x, y, got, exp)
    # hot tiles: the top 25 % of the 4 tiles with demand is tile (0,0) alone, which a and c
    # share equally (1.5 each) and b does not reach; modules are named by module_of
    named = [(module_of(n, 2), f, box, d) for n, f, box, d in
             [("m1.a_q", 1, (0, 0, 1, 0), 1.5), ("m2.b_q", 2, (2, 2, 2, 2), 2.0),
              ("m3.c_q", 1, (0, 0, 0, 1), 1.5)]]
    _, shares = report(named, 0.25)
    assert shares == {"m1": 50.0, "m2": 0.0, "m3": 50.0}, shares
    # with b's demand the largest, b alone is hot
    _, shares = report([("m1", 1, (0, 0, 0, 0), 1.0), ("m2", 1, (1, 1, 1, 1), 2.0)], 0.5)
    assert shares == {"m1": 0.0, "m2": 100.0}, shares
    assert module_of("u_dut.u_emit.u_feed.x_q", 2) == "u_dut.u_emit"
    assert module_of("x_q", 2) == "(top)"
    # saved and loaded nets give the same densities and the same report (the --nets path)
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "nets.tsv")
        save(nets, path)
        back = load(path)
    assert back == nets, back
    assert report(back, 0.25) == report(nets, 0.25)
    print("congestion.py --self-test: ok")


if "ctx" in globals():
    nets = collect()
    if os.environ.get("CONGESTION_NETS"):
        save(nets, os.environ["CONGESTION_NETS"])
    text, _ = report([(module_of(c), fan, box, d) for c, fan, box, d in nets], HOT_FRAC)
    sys.stdout.write(text)
    out = os.environ.get("CONGESTION_OUT")
    if out:
        with open(out, "w") as f:
            f.write(text)
    sys.stdout.flush()
    if os.environ.get("CONGESTION_CONTINUE") != "1":
        os._exit(0)
elif sys.argv[1:] == ["--self-test"]:
    self_test()
elif len(sys.argv) == 3 and sys.argv[1] == "--nets":
    # the report again from saved nets, at another CONGESTION_DEPTH or CONGESTION_HOT
    nets = load(sys.argv[2])
    text, _ = report([(module_of(c), fan, box, d) for c, fan, box, d in nets], HOT_FRAC)
    sys.stdout.write(text)
else:
    sys.exit("usage: nextpnr-ecp5 ... --pre-route scripts/congestion.py (env: see the header), "
             "python3 scripts/congestion.py --nets FILE, or python3 scripts/congestion.py "
             "--self-test")
