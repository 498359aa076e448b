#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Check the committed RoCEv2 capture corpus (testbench/captures/) or any rxe-capture output folder.

For every capture listed in manifest.json this parses the classic pcap (linktype Ethernet), every
IPv4 / IPv6 UDP datagram to port 4791, and the InfiniBand Base Transport Header (BTH); it
recomputes every packet's invariant CRC and compares the capture with its manifest entry
(size, SHA-256, packet counts, BTH opcode counts). A pcap present in the folder but absent from the
manifest is an error too.

ICRC (IBTA Annex A17.8, Linux drivers/infiniband/sw/rxe/rxe_icrc.c): CRC-32 over
  8 bytes of 0xFF (the masked LRH)
  | the IP header with the variant fields set to all ones
      IPv4: TOS, TTL, header checksum;  IPv6: traffic class, flow label, hop limit
  | the UDP header with the checksum set to 0xFFFF
  | the BTH with its reserved byte 4 set to 0xFF
  | the rest of the IB headers, the payload and the pad,
stored little-endian in the last 4 bytes of the UDP payload.

This checker is deliberately independent of the Rust model (stdlib only: struct + zlib).

Usage: check_corpus.py [DIR] [--coverage | --no-coverage] [--quiet]
  DIR defaults to testbench/captures next to this tool; for that folder --coverage is implied: the
  corpus must hold every required opcode, IPv4 and IPv6, RoCE MTU 1024 and 4096, a
  retransmission and an atomic. The last line is always `N passed, M failed`.
Exit status: 0 when every capture passes (and coverage holds when asked), 1 otherwise.
"""
import hashlib
import json
import os
import struct
import sys
import zlib
from collections import Counter

ROCEV2_PORT = 4791

# BTH opcode names (IBTA vol 1, table 38), transport prefix + operation.
_OPS = {
    0x00: "SEND_FIRST", 0x01: "SEND_MIDDLE", 0x02: "SEND_LAST",
    0x03: "SEND_LAST_WITH_IMMEDIATE", 0x04: "SEND_ONLY", 0x05: "SEND_ONLY_WITH_IMMEDIATE",
    0x06: "RDMA_WRITE_FIRST", 0x07: "RDMA_WRITE_MIDDLE", 0x08: "RDMA_WRITE_LAST",
    0x09: "RDMA_WRITE_LAST_WITH_IMMEDIATE", 0x0A: "RDMA_WRITE_ONLY",
    0x0B: "RDMA_WRITE_ONLY_WITH_IMMEDIATE", 0x0C: "RDMA_READ_REQUEST",
    0x0D: "RDMA_READ_RESPONSE_FIRST", 0x0E: "RDMA_READ_RESPONSE_MIDDLE",
    0x0F: "RDMA_READ_RESPONSE_LAST", 0x10: "RDMA_READ_RESPONSE_ONLY", 0x11: "ACKNOWLEDGE",
    0x12: "ATOMIC_ACKNOWLEDGE", 0x13: "COMPARE_SWAP", 0x14: "FETCH_ADD",
    0x16: "SEND_LAST_WITH_INVALIDATE", 0x17: "SEND_ONLY_WITH_INVALIDATE",
}
OPCODE_NAMES = {}
for _base, _pfx, _allowed in ((0x00, "RC", None), (0x20, "UC", range(0x00, 0x0C)),
                              (0x40, "RD", None), (0x60, "UD", (0x04, 0x05))):
    for _low, _name in _OPS.items():
        if _allowed is None or _low in _allowed:
            OPCODE_NAMES[_base | _low] = f"{_pfx}_{_name}"
OPCODE_NAMES[0x81] = "CNP"


def opcode_name(op):
    return OPCODE_NAMES.get(op, f"OPCODE_0x{op:02X}")


def ext_header_len(op):
    """Bytes of extension headers between the BTH and the payload for this BTH opcode."""
    t, low = op & 0xE0, op & 0x1F
    n = 0
    if t == 0x40:
        n += 4  # RDETH
    if t in (0x40, 0x60):
        n += 8  # DETH
    if low in (0x06, 0x0A, 0x0B, 0x0C):
        n += 16  # RETH
    if low in (0x13, 0x14):
        n += 28  # AtomicETH
    if low in (0x0D, 0x0F, 0x10, 0x11, 0x12):
        n += 4  # AETH
    if low == 0x12:
        n += 8  # AtomicAckETH
    if low in (0x03, 0x05, 0x09, 0x0B):
        n += 4  # ImmDt
    if low in (0x16, 0x17):
        n += 4  # IETH
    return n


def is_request(op):
    return (op & 0x1F) not in (0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x12) and op != 0x81


def aeth_kind(syndrome):
    kind = (syndrome >> 5) & 3
    if kind == 0:
        return "ACK"
    if kind == 1:
        return "RNR_NAK"
    if kind == 3:
        code = syndrome & 0x1F
        return {0: "NAK_PSN_SEQUENCE_ERROR", 1: "NAK_INVALID_REQUEST",
                2: "NAK_REMOTE_ACCESS_ERROR", 3: "NAK_REMOTE_OPERATIONAL_ERROR",
                4: "NAK_INVALID_RD_REQUEST"}.get(code, f"NAK_{code}")
    return "AETH_RESERVED"


class PcapError(Exception):
    pass


def read_pcap(path):
    """Yield (index, frame bytes) of a classic pcap with linktype Ethernet."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        raise PcapError("file shorter than a pcap global header")
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        e = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        e = ">"
    elif magic == b"\x0a\x0d\x0d\x0a":
        raise PcapError("pcapng, not classic pcap")
    else:
        raise PcapError(f"bad pcap magic {magic.hex()}")
    linktype = struct.unpack(e + "I", data[20:24])[0] & 0x0FFFFFFF
    if linktype != 1:
        raise PcapError(f"linktype {linktype}, expected 1 (Ethernet)")
    off, i = 24, 0
    while off < len(data):
        if off + 16 > len(data):
            raise PcapError(f"truncated record header at offset {off}")
        _, _, incl, orig = struct.unpack(e + "IIII", data[off:off + 16])
        off += 16
        if off + incl > len(data):
            raise PcapError(f"truncated frame {i} at offset {off}")
        if incl != orig:
            raise PcapError(f"frame {i} snapped ({incl} of {orig} bytes): ICRC unverifiable")
        yield i, data[off:off + incl]
        off += incl
        i += 1


def icrc(masked_ip, udp, ib):
    """ICRC over the masked pseudo headers; ib is the UDP payload including its 4 ICRC bytes."""
    udph = bytearray(udp)
    udph[6:8] = b"\xff\xff"
    bth = bytearray(ib[:12])
    bth[4] = 0xFF
    return zlib.crc32(b"\xff" * 8 + masked_ip + bytes(udph) + bytes(bth) + ib[12:-4]) & 0xFFFFFFFF


def parse_roce(frame):
    """Return a dict for a RoCEv2 frame, None for other frames; raise ValueError if malformed."""
    if len(frame) < 14:
        return None
    eth_type = struct.unpack("!H", frame[12:14])[0]
    l3 = frame[14:]
    if eth_type == 0x0800:
        if len(l3) < 20 or l3[0] >> 4 != 4:
            return None
        ihl = (l3[0] & 0x0F) * 4
        total = struct.unpack("!H", l3[2:4])[0]
        if l3[9] != 17:
            return None
        ip = bytearray(l3[:ihl])
        ip[1] = 0xFF  # TOS
        ip[8] = 0xFF  # TTL
        ip[10:12] = b"\xff\xff"  # header checksum
        l4, ipver = l3[ihl:total], 4
        if struct.unpack("!H", l3[6:8])[0] & 0x3FFF:
            raise ValueError("fragmented IPv4 datagram")
    elif eth_type == 0x86DD:
        if len(l3) < 40 or l3[6] != 17:
            return None
        plen = struct.unpack("!H", l3[4:6])[0]
        ip = bytearray(l3[:40])
        ip[0] = (ip[0] & 0xF0) | 0x0F  # traffic class, high nibble
        ip[1:4] = b"\xff\xff\xff"  # traffic class low nibble + flow label
        ip[7] = 0xFF  # hop limit
        l4, ipver = l3[40:40 + plen], 6
    else:
        return None
    if len(l4) < 8:
        return None
    dport = struct.unpack("!H", l4[2:4])[0]
    if dport != ROCEV2_PORT:
        return None
    ulen = struct.unpack("!H", l4[4:6])[0]
    if ulen > len(l4) or ulen < 8:
        raise ValueError(f"UDP length {ulen} beyond the frame ({len(l4)})")
    ib = l4[8:ulen]
    if len(ib) < 16:
        raise ValueError("UDP payload shorter than BTH + ICRC")
    op = ib[0]
    pad = (ib[1] >> 4) & 3
    dqp = int.from_bytes(ib[5:8], "big")
    psn = int.from_bytes(ib[9:12], "big") & 0xFFFFFF
    ext = ext_header_len(op)
    payload = len(ib) - 12 - ext - 4 - pad
    if payload < 0:
        raise ValueError(f"{opcode_name(op)}: {len(ib)} bytes too short for its headers")
    calc = icrc(bytes(ip), l4[:8], ib)
    got = struct.unpack("<I", ib[-4:])[0]
    r = {"ipver": ipver, "op": op, "dqp": dqp, "psn": psn, "pad": pad, "payload": payload,
         "icrc_ok": calc == got, "icrc_calc": calc, "icrc_got": got}
    low = op & 0x1F
    if low in (0x0D, 0x0F, 0x10, 0x11, 0x12):
        r["aeth"] = aeth_kind(ib[12 + (4 if op & 0xE0 == 0x40 else 0)])
    return r


def analyse(path):
    """Parse one capture; return its statistics and a list of problems."""
    st = {"packets": 0, "roce_packets": 0, "icrc_valid": 0, "opcodes": Counter(),
          "aeth": Counter(), "ip_versions": set(), "pad_counts": Counter(),
          "zero_length": Counter(), "retransmitted_requests": 0, "psn_wrap": False}
    problems = []
    seen = set()
    last_psn = {}
    try:
        for i, fr in read_pcap(path):
            st["packets"] += 1
            try:
                r = parse_roce(fr)
            except ValueError as exc:
                problems.append(f"frame {i}: {exc}")
                continue
            if r is None:
                continue
            st["roce_packets"] += 1
            name = opcode_name(r["op"])
            st["opcodes"][name] += 1
            st["ip_versions"].add(r["ipver"])
            st["pad_counts"][r["pad"]] += 1
            if r["payload"] == 0 and is_request(r["op"]) and r["op"] & 0x1F not in (0x0C, 0x13, 0x14):
                st["zero_length"][name] += 1
            if "aeth" in r:
                st["aeth"][r["aeth"]] += 1
            if r["icrc_ok"]:
                st["icrc_valid"] += 1
            else:
                problems.append(f"frame {i}: {name} PSN {r['psn']:#08x}: ICRC "
                                f"{r['icrc_got']:#010x}, computed {r['icrc_calc']:#010x}")
            if is_request(r["op"]) and r["op"] & 0xE0 in (0x00, 0x20):
                key = (r["dqp"], r["psn"], r["op"])
                if key in seen:
                    st["retransmitted_requests"] += 1
                seen.add(key)
                prev = last_psn.get(r["dqp"])
                if prev is not None and prev >= 0xFFFF00 and r["psn"] < 0x100:
                    st["psn_wrap"] = True
                last_psn[r["dqp"]] = r["psn"]
    except (OSError, PcapError) as exc:
        problems.append(str(exc))
    return st, problems


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for blk in iter(lambda: f.read(1 << 20), b""):
            h.update(blk)
    return h.hexdigest()


def summary(st):
    """The manifest fields derived from a capture (what check_entry compares)."""
    return {
        "packets": st["packets"],
        "roce_packets": st["roce_packets"],
        "icrc_valid": st["icrc_valid"],
        "opcodes": dict(sorted(st["opcodes"].items())),
        "aeth": dict(sorted(st["aeth"].items())),
        "ip_versions": sorted(st["ip_versions"]),
        "pad_counts": {str(k): v for k, v in sorted(st["pad_counts"].items())},
        "zero_length": dict(sorted(st["zero_length"].items())),
        "retransmitted_requests": st["retransmitted_requests"],
        "psn_wrap": st["psn_wrap"],
    }


def check_entry(folder, ent):
    path = os.path.join(folder, ent["file"])
    if not os.path.isfile(path):
        return None, [f"{ent['file']}: missing"]
    st, problems = analyse(path)
    got = summary(st)
    for k in ("bytes", "sha256", "packets", "roce_packets", "opcodes", "tshark_opcodes",
              "roce_mtu", "ip_version", "commands", "kernel", "rdma_core"):
        if k not in ent:
            problems.append(f"manifest entry lacks {k!r}")
    if st["roce_packets"] == 0:
        problems.append("no RoCEv2 packets")
    if os.path.getsize(path) != ent.get("bytes"):
        problems.append(f"size {os.path.getsize(path)} != manifest {ent.get('bytes')}")
    if "sha256" in ent and sha256(path) != ent["sha256"]:
        problems.append("sha256 differs from the manifest (captures are regenerated, not edited)")
    for k, v in got.items():
        if k in ent and ent[k] != v:
            problems.append(f"{k}: file has {v}, manifest says {ent[k]}")
    if "tshark_opcodes" in ent and ent["tshark_opcodes"] != got["opcodes"]:
        problems.append(f"tshark opcode counts {ent['tshark_opcodes']} != parsed {got['opcodes']}")
    return st, problems


# What the committed corpus must cover (issue 3).
REQUIRED_OPCODES = [
    "RC_SEND_FIRST", "RC_SEND_MIDDLE", "RC_SEND_LAST", "RC_SEND_ONLY",
    "RC_SEND_LAST_WITH_IMMEDIATE", "RC_SEND_ONLY_WITH_IMMEDIATE",
    "RC_RDMA_WRITE_FIRST", "RC_RDMA_WRITE_MIDDLE", "RC_RDMA_WRITE_LAST", "RC_RDMA_WRITE_ONLY",
    "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE", "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE",
    "RC_RDMA_READ_REQUEST", "RC_RDMA_READ_RESPONSE_FIRST", "RC_RDMA_READ_RESPONSE_MIDDLE",
    "RC_RDMA_READ_RESPONSE_LAST", "RC_RDMA_READ_RESPONSE_ONLY", "RC_ACKNOWLEDGE",
    "RC_ATOMIC_ACKNOWLEDGE", "RC_COMPARE_SWAP", "RC_FETCH_ADD", "UD_SEND_ONLY",
    # beyond the list, produced by the rig and kept covered
    "RC_SEND_LAST_WITH_INVALIDATE", "RC_SEND_ONLY_WITH_INVALIDATE", "UD_SEND_ONLY_WITH_IMMEDIATE",
    "UC_SEND_FIRST", "UC_SEND_LAST",
]
REQUIRED_AETH = ["ACK", "NAK_PSN_SEQUENCE_ERROR", "RNR_NAK"]


def coverage(manifest, stats):
    missing = []
    ops = Counter()
    ipv, mtus = set(), set()
    retrans = naks = 0
    aeth = Counter()
    wrap = False
    for ent in manifest["captures"]:
        st = stats.get(ent["file"])
        if not st:
            continue
        ops.update(st["opcodes"])
        ipv |= st["ip_versions"]
        mtus.add(ent.get("roce_mtu"))
        retrans += st["retransmitted_requests"]
        naks += sum(v for k, v in st["aeth"].items() if k.startswith("NAK"))
        aeth.update(st["aeth"])
        wrap |= st["psn_wrap"]
    missing += [f"opcode {o}" for o in REQUIRED_OPCODES if not ops[o]]
    missing += [f"IPv{v}" for v in (4, 6) if v not in ipv]
    missing += [f"RoCE MTU {m}" for m in (1024, 4096) if m not in mtus]
    missing += [f"AETH {a}" for a in REQUIRED_AETH if not aeth[a]]
    if not retrans:
        missing.append("a retransmitted request")
    if not wrap:
        missing.append("a 24-bit PSN wrap")
    return missing, ops, retrans, naks


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    default = os.path.normpath(os.path.join(here, "..", "captures"))
    args = [a for a in argv if not a.startswith("--")]
    quiet = "--quiet" in argv
    folder = args[0] if args else default
    is_corpus = os.path.realpath(folder) == os.path.realpath(default)
    want_cov = ("--coverage" in argv or is_corpus) and "--no-coverage" not in argv
    mpath = os.path.join(folder, "manifest.json")
    passed = failed = 0
    try:
        with open(mpath) as f:
            manifest = json.load(f)
    except (OSError, ValueError) as exc:
        print(f"{mpath}: {exc}")
        print("0 passed, 1 failed")
        return 1
    stats = {}
    listed = set()
    for ent in manifest.get("captures", []):
        listed.add(ent["file"])
        st, problems = check_entry(folder, ent)
        if st:
            stats[ent["file"]] = st
        if problems:
            failed += 1
            print(f"FAIL {ent['file']}")
            for p in problems[:20]:
                print(f"     {p}")
            if len(problems) > 20:
                print(f"     ... {len(problems) - 20} more")
        else:
            passed += 1
            if not quiet:
                ops = ", ".join(f"{k}={v}" for k, v in sorted(st["opcodes"].items()))
                print(f"ok   {ent['file']}: {st['roce_packets']} RoCEv2 packets, ICRC ok, {ops}")
    for fn in sorted(os.listdir(folder)):
        if fn.endswith((".pcap", ".pcapng")) and fn not in listed:
            failed += 1
            print(f"FAIL {fn}: not in manifest.json")
    if not manifest.get("captures"):
        failed += 1
        print("FAIL manifest.json lists no captures")
    rc = 1 if failed else 0
    if want_cov:
        missing, ops, retrans, naks = coverage(manifest, stats)
        print(f"coverage: {sum(ops.values())} RoCEv2 packets, {len(ops)} opcodes, "
              f"{retrans} retransmitted requests, {naks} NAKs")
        if missing:
            print("coverage FAIL: missing " + "; ".join(missing))
            rc = 1
    print(f"{passed} passed, {failed} failed")
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
