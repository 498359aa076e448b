#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Derive the tower-field (composite GF((2^4)^2)) form of the AES S-box used by rtl/0_pkg/aes_pkg.sv.

The S-box is S(x) = A(x^-1) ^ 0x63 in GF(2^8) mod x^8+x^4+x^3+x+1 (FIPS 197 §5.1.1). Inverting
in GF(2^8) directly is a 256-entry function per output bit; in the isomorphic field
GF((2^4)^2) = GF(16)[Y] / (Y^2 + Y + lambda), with GF(16) = GF(2)[z] / (z^4 + z + 1), the inverse
of a = ah*Y + al is (ah*d^-1)*Y + (ah^al)*d^-1 with d = lambda*ah^2 ^ ah*al ^ al^2, where d^-1 is a
4-input function (one LUT4 per bit). The isomorphism is found by mapping powers of the generator
0x03 of GF(2^8)* onto powers of a generator c of the composite field and keeping the first c for
which the map is additive; its matrix M (into the tower) and A*M^-1 (out of it, with the affine
map folded in) are printed as rows: output bit j = parity(x & row[j]).

Run it to reprint the constants; it asserts all 256 S-box values against the FIPS 197 equation.
With `--check FILE` (CI: rtl/0_pkg/aes_pkg.sv) it also asserts that FILE's TowerMap, TowerUnmap and
Gf16Inv constants are the derived ones, and exits 1 if not.
"""

import re
import sys


def gmul8(a, b, poly=0x11B):
    r = 0
    while b:
        if b & 1:
            r ^= a
        a <<= 1
        if a & 0x100:
            a ^= poly
        b >>= 1
    return r


def ginv8(a):
    return 0 if a == 0 else next(x for x in range(1, 256) if gmul8(a, x) == 1)


def affine(i):
    """FIPS 197 eq. 5.1: b'_k = b_k ^ b_(k+4) ^ b_(k+5) ^ b_(k+6) ^ b_(k+7) (indices mod 8)."""
    s = 0
    for k in range(8):
        bit = (i >> k) ^ (i >> ((k + 4) % 8)) ^ (i >> ((k + 5) % 8)) ^ (i >> ((k + 6) % 8))
        s |= ((bit ^ (i >> ((k + 7) % 8))) & 1) << k
    return s


def sbox_ref(x):
    return affine(ginv8(x)) ^ 0x63


def gmul4(a, b):
    r = 0
    for k in range(4):
        if (b >> k) & 1:
            r ^= a << k
    for k in (6, 5, 4):
        if (r >> k) & 1:
            r ^= 0x13 << (k - 4)
    return r


INV4 = [0] + [next(y for y in range(1, 16) if gmul4(x, y) == 1) for x in range(1, 16)]
LAM = next(l for l in range(16) if all(gmul4(y, y) ^ y ^ l for y in range(16)))


def cmul(a, b):
    ah, al, bh, bl = a >> 4, a & 15, b >> 4, b & 15
    hh = gmul4(ah, bh)
    return ((hh ^ gmul4(ah, bl) ^ gmul4(al, bh)) << 4) | (gmul4(hh, LAM) ^ gmul4(al, bl))


def cinv(a):
    ah, al = a >> 4, a & 15
    d = gmul4(gmul4(ah, ah), LAM) ^ gmul4(ah, al) ^ gmul4(al, al)
    di = INV4[d]
    return (gmul4(ah, di) << 4) | gmul4(ah ^ al, di)


def order(mul, g):
    x, n = g, 1
    while x != 1:
        x, n = mul(x, g), n + 1
    return n


def isomorphism():
    for c in range(2, 256):
        if order(cmul, c) != 255:
            continue
        phi, x, y = {0: 0}, 1, 1
        for _ in range(255):
            phi[x] = y
            x, y = gmul8(x, 3), cmul(y, c)
        if all(phi[a ^ (1 << i)] == phi[a] ^ phi[1 << i] for a in range(256) for i in range(8)):
            return c, phi
    raise SystemExit("no isomorphism found")


def rows(cols):
    return [sum(((cols[i] >> j) & 1) << i for i in range(8)) for j in range(8)]


def parity_map(rws, x):
    return sum((bin(x & r).count("1") & 1) << j for j, r in enumerate(rws))


def main():
    assert order(gmul8, 3) == 255
    c, phi = isomorphism()
    inv = {v: k for k, v in phi.items()}
    m_rows = rows([phi[1 << i] for i in range(8)])
    am_rows = rows([affine(inv[1 << i]) for i in range(8)])
    for x in range(256):
        assert parity_map(am_rows, cinv(parity_map(m_rows, x))) ^ 0x63 == sbox_ref(x), x
    fmt = lambda v: ", ".join("8'h%02x" % r for r in reversed(v))
    print(f"lambda = 4'h{LAM:x}, generator c = 8'h{c:02x}")
    print(f"TowerMapRows    (bit 7 .. bit 0) = '{{{fmt(m_rows)}}}")
    print(f"TowerUnmapRows  (bit 7 .. bit 0) = '{{{fmt(am_rows)}}}")
    print("GF(16) inverse 0..15 =", " ".join("%x" % v for v in INV4))
    print("all 256 S-box values match FIPS 197")
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        text = open(sys.argv[2], encoding="utf-8").read()

        def const(name):
            m = re.search(name + r"\s*=\s*64'h([0-9a-fA-F_]+)", text)
            return int(m.group(1).replace("_", ""), 16) if m else None

        packed = lambda v, w: sum(x << (w * j) for j, x in enumerate(v))
        want = {"TowerMap": packed(m_rows, 8), "TowerUnmap": packed(am_rows, 8),
                "Gf16Inv": packed(INV4, 4)}
        bad = [n for n, v in want.items() if const(n) != v]
        if bad:
            print(f"{sys.argv[2]}: constants differ from the derivation: {', '.join(bad)}")
            sys.exit(1)
        print(f"{sys.argv[2]}: TowerMap, TowerUnmap, Gf16Inv match")


if __name__ == "__main__":
    main()
