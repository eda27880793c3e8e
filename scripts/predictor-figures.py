#!/usr/bin/env python3
"""Seed 000's headline comparison on the workload library: prediction coverage (PCOV) and
accuracy (PACC) of the OT, the OT without LEC (`ot.lec = false`) and the CTA-aware baseline
(`predictor.kind = cta-aware`, under GTO and under its own `cta-aware` warp scheduler), each
scored by the same counts (decision OT-12). Numbers only: no direction is asserted.

Usage: predictor-figures.py [PRESET]   (default: turing-rtx2060s)
Set WARPSMITH to the binary (default target/release/warpsmith; scripts/figures.py).
"""
import sys

from figures import run

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


def main():
    preset = sys.argv[1] if len(sys.argv) > 1 else "turing-rtx2060s"
    print(f"== {preset}: PCOV / PACC (queries)")
    print(f"{'workload':20}" + "".join(f"{name:>30}" for name, _ in VARIANTS))
    for target in WORKLOADS:
        cells = []
        for _, sets in VARIANTS:
            summary, err = run(preset, sets, target)
            if err:
                sys.exit(f"{target[1]} {sets}: {err}")
            o = summary["ot"]
            cells.append(f"{o['pcov']:.3f} / {o['pacc']:.3f} ({o['queries']:,})")
        print(f"{target[1]:20}" + "".join(f"{c:>30}" for c in cells))


if __name__ == "__main__":
    main()
