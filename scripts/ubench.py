#!/usr/bin/env python3
"""Calibration microbenchmarks on a GPU configuration: load-to-use latency and bandwidth of
the L1, the L2 and DRAM, from the workload library's `ubench-chase` and `ubench-bw` (our own
CUDA sources, golden/cuda/ubench/; decision WL-7), as Accel-Sim's tuner measures a GPU.

    scripts/ubench.py --preset P [--config FILE] [--set K=V ...] [--bin B] [--json]
                      [--steps N]

The configuration is resolved once (`run --emit-config`) for its sizes and clock; every run is
`warpsmith run --workload ... --format json` on it, and a run's cycles are its kernels'.

Latency (core cycles per step), per level, by the difference method: one thread chases
j = a[j] (ubench-chase) for N and for 2N steps after the same warm-up, and
latency = (cycles(2N) - cycles(N)) / N, so the launch, the warm-up lap and the drain cancel.
  * L1: cache=ca, a ring of one index per 128-byte line over a quarter of the L1 (at most
    8 KiB), warmed by one lap: every measured step hits the L1.
  * L2: cache=cg (`__ldcg`), a ring over four L1s (at least 64 KiB, at most a quarter of the
    L2), warmed by one lap: every measured step misses the L1 and hits the L2. The model does
    not decode a load's cache operator (`LDG.E.STRONG.GPU` is cached in the L1 like any
    load), so these runs set `gpu.skip_l1=true`, which sends global loads past the L1 as the
    hardware does `ld.global.cg`.
  * DRAM: cache=ca, no warm-up, one index every 64 KiB + 128 B (each step another DRAM row
    and another channel) over 2N + 1 of them (at least eight L2s): every step a cold miss.
The figures printed with each latency (L1 and L2 hits per measured step, DRAM row-hit rate)
show which level the steps were served by.

A hardware pointer chase measures the same thing: per step, the load-to-use latency of the
level plus the address arithmetic between the loads. In the compiled chase
(golden/sass/ubench-chase.sass) five instructions sit between two loads: IADD3 and ISETP
(the loop counter), the loop's BRA, IMAD.MOV (the constant 4) and IMAD.WIDE.U32 (the next
address from the loaded index); only the IMAD.WIDE.U32 depends on the load, so a step is the
load's latency plus one integer multiply-add's (gpu.alu_latency) plus the cycles to issue it.
Published hardware chases (shared/reference/hardware/SOURCES.md) are of the same shape: a
dependent load and one or two address instructions per step, so their figures compare with
these directly, up to the one multiply-add.

Bandwidth, per level, in bytes per core cycle and GB/s at the configuration's core clock
(clocks.core_khz): many warps (gpu.warps_per_sm / 8 blocks of 256 threads per SM; for the
L1 of a configuration whose half L1 is below 4 KiB, smaller blocks) stream
coalesced 16-byte loads (ubench-bw). The figure is the steady rate: the bytes the larger of
two runs moves beyond the smaller over the cycles it takes beyond it (so the launch and the
first, cold pass cancel); the plain bytes over cycles of the larger run is printed beside it.
  * L1: level=l1, every block reads the same footprint (half the L1): L1 hits after the
    first pass, 8 and 16 passes.
  * L2: level=l2 (`__ldcg`, gpu.skip_l1=true as above), the grid reads a quarter of the L2
    between its threads, 2 and 4 passes.
  * DRAM: level=dram, one pass over 4 L2s and over twice that; copy: level=copy (read and
    write, 2 bytes moved a byte of footprint), over 2 L2s and twice that (each footprint
    rounded up to whole passes of the grid).

Exit 0 with the figures; 1 if a run fails; 2 on bad usage.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
THREADS = 256
DRAM_STRIDE = 65536 + 128


def cache_bytes(text):
    """A GPGPU-Sim cache string's capacity: sets x line x ways (an `S:` prefix: sectored)."""
    fields = text.split(",")[0].split(":")
    if fields[0] in ("S", "N"):
        fields = fields[1:]
    sets, line, ways = (int(f) for f in fields[:3])
    return sets * line * ways


class Gpu:
    """The resolved configuration and the runs on it."""

    def __init__(self, binary, layers):
        self.binary, self.layers = binary, layers
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "config.toml")
            subprocess.run([binary, "run", "--kernel", "cp", "--max-cycles", "1",
                            "--emit-config", path] + layers, capture_output=True, text=True)
            if not os.path.exists(path):
                sys.exit(f"ubench: the configuration does not resolve: {' '.join(layers)}")
            with open(path, "rb") as f:
                c = tomllib.load(f)
        self.config = c
        g, dram = c["gpu"], c["dram"]
        self.core_khz = c["clocks"]["core_khz"]
        self.sms, self.warps = g["sms"], g["warps_per_sm"]
        self.l1 = cache_bytes(g["l1_cache"])
        self.l2 = cache_bytes(c["l2"]["cache"]) * dram["channels"] * dram["sub_partitions"]
        if g["unified_l1_kb"]:
            # The L1 a kernel without shared memory gets of the unified storage (decision
            # GPU-32), as the model sizes it: a one-step chase's kernel reports it.
            chase = self.run("ubench-chase:footprint=512,stride=128,warm=0,steps=1")
            self.l1 = chase["kernels"][0]["l1_kb"] * 1024

    def run(self, workload, skip_l1=False):
        """The run's figures (its JSON), the kernels' cycles summed as `cycles`."""
        extra = ["--set", "gpu.skip_l1=true"] if skip_l1 else []
        cmd = [self.binary, "run", "--workload", workload, "--format", "json"]
        r = subprocess.run(cmd + self.layers + extra, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"ubench: {workload}: {r.stderr.strip()}", file=sys.stderr)
            sys.exit(1)
        d = json.loads(r.stdout)
        d["cycles"] = sum(k["cycles"] for k in d["kernels"])
        return d

    def gbps(self, bytes_per_cycle):
        return bytes_per_cycle * self.core_khz / 1e6


def chase(gpu, level, steps):
    """The latency of `level` by the difference method, and what served the steps."""
    if level == "l1":
        footprint, stride, cache, warm, skip = min(gpu.l1 // 4, 8192), 128, "ca", 1, False
    elif level == "l2":
        footprint = min(max(4 * gpu.l1, 65536), gpu.l2 // 4)
        stride, cache, warm, skip = 128, "cg", 1, True
    else:
        stride, cache, warm, skip = DRAM_STRIDE, "ca", 0, False
        footprint = DRAM_STRIDE * max(2 * steps + 1, -(-8 * gpu.l2 // DRAM_STRIDE))
    footprint -= footprint % stride
    runs = []
    for n in (steps, 2 * steps):
        spec = (f"ubench-chase:cache={cache},footprint={footprint},stride={stride},"
                f"warm={warm},steps={n}")
        runs.append((spec, gpu.run(spec, skip)))
    (_, a), (_, b) = runs
    latency = (b["cycles"] - a["cycles"]) / steps
    return {
        "level": level,
        "latency_cycles": latency,
        "latency_ns": latency / gpu.core_khz * 1e6,
        "l1_hits_per_step": (b["l1"]["hits"] - a["l1"]["hits"]) / steps,
        "l2_hits_per_step": (b["l2"]["hits"] - a["l2"]["hits"]) / steps,
        "dram_row_hit_rate": b["dram"]["row_hit_rate"],
        "runs": {spec: r["cycles"] for spec, r in runs},
    }


def bandwidth(gpu, level):
    """The steady bandwidth of `level` from two runs, and the plain rate of the larger."""
    threads = THREADS
    if level == "l1":
        # Half the L1, with fewer threads a block where 16 bytes a thread of 256 would not fit.
        threads = max(32, min(THREADS, (gpu.l1 // 2) // 16 // 32 * 32))
    blocks = gpu.sms * max(1, gpu.warps // (threads // 32))
    grid = 16 * threads * blocks
    if level == "l1":
        fp = max(1, (gpu.l1 // 2) // (16 * threads)) * 16 * threads
        sizes = [(fp, reps, blocks * fp * reps) for reps in (8, 16)]
    elif level == "l2":
        fp = max(grid, (gpu.l2 // 4) // grid * grid)
        sizes = [(fp, reps, fp * reps) for reps in (2, 4)]
    else:
        # One pass over 4 and 8 L2s (dram), 2 and 4 (copy: read and written); the larger
        # twice the smaller, each a whole number of the grid's passes.
        fp = -(-(4 if level == "dram" else 2) * gpu.l2 // grid) * grid
        per_byte = 1 if level == "dram" else 2
        sizes = [(f, 1, per_byte * f) for f in (fp, 2 * fp)]
    runs = []
    for fp, reps, moved in sizes:
        spec = (f"ubench-bw:level={level},footprint={fp},reps={reps},blocks={blocks},"
                f"threads={threads}")
        runs.append((spec, moved, gpu.run(spec, skip_l1=level == "l2")))
    (_, m1, a), (_, m2, b) = runs
    steady = (m2 - m1) / (b["cycles"] - a["cycles"])
    plain = m2 / b["cycles"]
    return {
        "level": level,
        "bytes_per_cycle": steady,
        "gbps": gpu.gbps(steady),
        "plain_bytes_per_cycle": plain,
        "plain_gbps": gpu.gbps(plain),
        "runs": {spec: {"bytes": moved, "cycles": r["cycles"]} for spec, moved, r in runs},
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--preset", required=True)
    ap.add_argument("--config")
    ap.add_argument("--set", action="append", default=[], metavar="K=V")
    ap.add_argument("--bin", default=os.path.join(HERE, "..", "target", "release", "warpsmith"))
    ap.add_argument("--steps", type=int, default=256, help="N of the chase's N and 2N steps")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    a = ap.parse_args()
    if not os.access(a.bin, os.X_OK):
        print(f"ubench: no warpsmith binary at {a.bin} (build it, or give --bin)",
              file=sys.stderr)
        sys.exit(2)
    if a.steps < 1:
        ap.error("--steps must be at least 1")
    layers = ["--preset", a.preset] + (["--config", a.config] if a.config else [])
    for kv in a.set:
        layers += ["--set", kv]
    gpu = Gpu(a.bin, layers)
    out = {
        "preset": a.preset,
        "config": a.config,
        "set": a.set,
        "core_mhz": gpu.core_khz / 1000,
        "l1_bytes": gpu.l1,
        "l2_bytes": gpu.l2,
        "latency": [chase(gpu, lv, a.steps) for lv in ("l1", "l2", "dram")],
        "bandwidth": [bandwidth(gpu, lv) for lv in ("l1", "l2", "dram", "copy")],
    }
    if a.json:
        print(json.dumps(out, indent=2))
        return
    print(f"{a.preset}{' ' + ' '.join(layers[2:]) if layers[2:] else ''}: core clock "
          f"{gpu.core_khz / 1000:g} MHz, L1 {gpu.l1 // 1024} KiB, L2 {gpu.l2 // 1024} KiB")
    print("latency   cycles     ns   L1 hits/step  L2 hits/step  DRAM row hits")
    for r in out["latency"]:
        print(f"{r['level']:<8} {r['latency_cycles']:7.1f} {r['latency_ns']:6.1f}   "
              f"{r['l1_hits_per_step']:12.2f}  {r['l2_hits_per_step']:12.2f}  "
              f"{r['dram_row_hit_rate']:13.2f}")
    print("bandwidth  B/cycle    GB/s   (plain: B/cycle   GB/s)")
    for r in out["bandwidth"]:
        print(f"{r['level']:<8} {r['bytes_per_cycle']:9.1f} {r['gbps']:7.1f}   "
              f"({r['plain_bytes_per_cycle']:9.1f} {r['plain_gbps']:7.1f})")


if __name__ == "__main__":
    main()
