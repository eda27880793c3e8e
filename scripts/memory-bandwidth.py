#!/usr/bin/env python3
"""Bandwidth of the memory side against the DRAM alone and against its ports, per preset.

    scripts/memory-bandwidth.py [--preset P]... [--requests N] [--outstanding M]... [--set K=V]...

For each preset (default: fermi-gtx480, turing-rtx2060s):
  * stream: N sequential reads of one L2 unit each (32 bytes for a sector L2, the line for a
    line L2, as the memory side's packets carry; each SM in turn reads a 128-byte line) through
    the memory side's closed loop (`golden --block memory`, M requests in flight per SM
    port, for each M given: 32, 64, 128 and 256 by default), against the DRAM alone (`golden --block mc`) on a sequential stream of DRAM atoms
    all offered at once: both as the DRAM data-bus utilisation they sustain, and their ratio;
  * L2-resident: reads cycling over a quarter of the L2's capacity (the first pass misses, the
    rest hit), in bytes per second of core time, against the ports' limit: every L2 slice
    serving one access per L2 cycle, and every reply-network port moving one flit per
    interconnect cycle (a read's reply is ceil((8 + unit) / flit) flits), the smaller of the two.
Needs a built warpsmith (`cargo build --release`; WARPSMITH overrides the binary).
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--preset", action="append", help="preset (repeatable)")
    ap.add_argument("--requests", type=int, default=200_000, help="requests per workload")
    ap.add_argument("--outstanding", type=int, action="append",
                    help="requests in flight per SM port (repeatable; default 32, 64, 128, 256)")
    ap.add_argument("--set", action="append", default=[], help="key override (repeatable)")
    a = ap.parse_args()
    ws = os.environ.get("WARPSMITH", os.path.join(ROOT, "target", "release", "warpsmith"))
    if not os.access(ws, os.X_OK):
        sys.exit(f"no warpsmith binary at {ws}: run cargo build --release (or set WARPSMITH)")
    presets = a.preset or ["fermi-gtx480", "turing-rtx2060s"]
    sets = [x for kv in a.set for x in ("--set", kv)]
    with tempfile.TemporaryDirectory() as tmp:
        for p in presets:
            for m in a.outstanding or [32, 64, 128, 256]:
                measure(ws, p, sets, a.requests, m, tmp)


def run(ws, args):
    r = subprocess.run([ws, *args], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"warpsmith {' '.join(args)} failed: {r.stderr.strip()}")
    return r.stdout


def write(path, reqs):
    with open(path, "w") as f:
        for sm, addr in reqs:
            f.write(json.dumps({"cycle": 0, "op": "req", "sm": sm, "warp": 0, "pc": 256,
                                "addr": addr, "write": False}) + "\n")


def l2_geometry(cache):
    """Capacity and unit (the sector of a sector cache, else the line) of a GPGPU-Sim cache
    string, `[kind:]sets:line:ways,...`."""
    geo = cache.split(",")[0].split(":")
    sets, line, ways = (int(x) for x in geo[-3:])
    sector = len(geo) == 4 and geo[0] == "S"
    return sets * line * ways, 32 if sector else line


def measure(ws, preset, sets, n, outstanding, tmp):
    cfg_path = os.path.join(tmp, f"{preset}.toml")
    base = ["--preset", preset, *sets]
    run(ws, ["golden", "--block", "mc", *base, "--stimulus", "hoa", "--cycles", "1",
             "--emit-config", cfg_path])
    with open(cfg_path, "rb") as f:
        cfg = tomllib.load(f)
    sms, atom = cfg["gpu"]["sms"], cfg["dram"]["atom_bytes"]
    # A request is one L2 unit (what the memory side's packets carry).
    capacity, unit = l2_geometry(cfg["l2"]["cache"])
    subs = cfg["dram"]["channels"] * cfg["dram"]["sub_partitions"]
    clocks, flit = cfg["clocks"], cfg["icnt"]["flit_bytes"]
    loop = ["--outstanding", str(outstanding), "--format", "json"]

    # Streaming: the memory side against the DRAM alone.
    stream = os.path.join(tmp, "stream.jsonl")
    per_line = max(128 // unit, 1)
    write(stream, [((i // per_line) % sms, i * unit) for i in range(n)])
    side = json.loads(run(ws, ["golden", "--block", "memory", *base, "--stimulus", stream, *loop]))
    atoms = os.path.join(tmp, "atoms.jsonl")
    write(atoms, [(0, i * atom) for i in range(n * unit // atom)])
    alone = json.loads(run(ws, ["golden", "--block", "mc", *base, "--stimulus", atoms,
                                "--format", "json"]))
    s_bw, d_bw = side["dram"]["bandwidth_util"], alone["bandwidth_util"]
    print(f"{preset}: stream of {n:,} {unit}-byte reads, {outstanding} per port: memory side {100 * s_bw:.1f}% "
          f"of the DRAM bus, DRAM alone {100 * d_bw:.1f}%: ratio {s_bw / d_bw:.3f}")

    # L2-resident: a quarter of the L2, read over and over.
    ws_bytes = capacity * subs // 4
    units = ws_bytes // unit
    resident = os.path.join(tmp, "resident.jsonl")
    write(resident, [((i // per_line) % sms, (i % units) * unit) for i in range(n)])
    side = json.loads(run(ws, ["golden", "--block", "memory", *base, "--stimulus", resident, *loop]))
    seconds = side["cycles"] / (clocks["core_khz"] * 1e3)
    got = n * unit / seconds / 1e9
    flits = math.ceil((8 + unit) / flit)
    l2_limit = subs * unit * clocks["l2_khz"] * 1e3 / 1e9
    net_limit = min(subs, sms) * unit / flits * clocks["icnt_khz"] * 1e3 / 1e9
    limit = min(l2_limit, net_limit)
    hits = side["l2"]["hits"] / max(side["l2"]["accesses"], 1)
    print(f"{preset}: {outstanding} per port, L2-resident reads over {ws_bytes // 1024} KB ({100 * hits:.1f}% hits): "
          f"{got:,.0f} GB/s; limit {limit:,.0f} GB/s (L2 slices {l2_limit:,.0f}, reply network "
          f"{net_limit:,.0f}): {got / limit:.3f} of it")


if __name__ == "__main__":
    main()
