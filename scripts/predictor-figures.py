#!/usr/bin/env python3
"""Seed 000's headline comparison on the workload library: prediction coverage (PCOV) and
accuracy (PACC) of the OT, the OT without LEC (`ot.lec = false`) and the CTA-aware baseline
(`predictor.kind = cta-aware`, under GTO and under its own `cta-aware` warp scheduler), each
scored by the same counts (decision OT-12). Numbers only: no direction is asserted.

Usage: predictor-figures.py [PRESET]   (default: turing-rtx2060s)
Set WARPSMITH to the binary (default target/release/warpsmith).
"""
import json
import os
import subprocess
import sys

BIN = os.environ.get("WARPSMITH", "target/release/warpsmith")
# Seed 000 Fig. 10's benchmarks that the library has (BFS, Histogram, ScalarProd, Stencil),
# at the library's defaults, and the built-in 2-D stencil kernel.
WORKLOADS = [
    ["--workload", "bfs"],
    ["--workload", "histogram"],
    ["--workload", "scalarprod"],
    ["--workload", "stencil"],
    ["--kernel", "stencil2d"],
]
VARIANTS = [
    ("OT", []),
    ("OT without LEC", ["ot.lec=false"]),
    ("CTA-aware (GTO)", ["predictor.kind=cta-aware", "gpu.scheduler=gto"]),
    ("CTA-aware (CTA-aware sched.)", ["predictor.kind=cta-aware", "gpu.scheduler=cta-aware"]),
]


def run(preset, sets, target):
    args = [BIN, "run", "--preset", preset, "--format", "json"] + target
    for s in sets:
        args += ["--set", s]
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(args)}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def main():
    preset = sys.argv[1] if len(sys.argv) > 1 else "turing-rtx2060s"
    print(f"== {preset}: PCOV / PACC (queries)")
    print(f"{'workload':20}" + "".join(f"{name:>30}" for name, _ in VARIANTS))
    for target in WORKLOADS:
        cells = []
        for _, sets in VARIANTS:
            o = run(preset, sets, target)["ot"]
            cells.append(f"{o['pcov']:.3f} / {o['pacc']:.3f} ({o['queries']:,})")
        print(f"{target[1]:20}" + "".join(f"{c:>30}" for c in cells))


if __name__ == "__main__":
    main()
