#!/usr/bin/env python3
"""Seeds 002 and 003's headline comparisons on the built-in kernels (the locality-aware
policies need a kernel's description): core cycles, speed-up over the baseline (round-robin
dispatch, GTO warp scheduling) and L1 miss rate ((misses + sector misses) / accesses) of each
dispatch policy and warp scheduler the seeds compare. Numbers only: no direction is asserted.

Usage: scheduler-figures.py [PRESET ...]   (default: fermi-gtx480, the seeds' Fermi-like GPU)
Set WARPSMITH to the binary (default target/release/warpsmith; scripts/figures.py).
"""
import sys

from figures import run

KERNELS = ["stencil2d", "matmul3d", "colmajor", "rowmajor", "cp"]
# (label, dispatch.policy, gpu.scheduler); the first is the baseline.
SEEDS = {
    "seed 002 (locality-aware block and warp scheduling)": [
        ("rr+gto", "rr", "gto"),
        ("bcs+gto", "bcs", "gto"),
        ("loc+gto", "locality", "gto"),
        ("loc+2lvl", "locality", "two-level"),
        ("rr+lws", "rr", "locality"),
        ("loc+lws", "locality", "locality"),
    ],
    "seed 003 (CTA mapping and the programmable warp scheduler)": [
        ("rr+gto", "rr", "gto"),
        ("map+gto", "map-auto", "gto"),
        ("rr+prog", "rr", "programmable"),
        ("map+prog", "map-auto", "programmable"),
        ("rr+ccws", "rr", "ccws"),
        ("map+ccws", "map-auto", "ccws"),
    ],
}


def main():
    presets = sys.argv[1:] or ["fermi-gtx480"]
    for preset in presets:
        for title, configs in SEEDS.items():
            print(f"== {preset}, {title}: cycles (speed-up over {configs[0][0]}) / L1 miss rate")
            print(f"{'kernel':12}" + "".join(f"{label:>24}" for label, _, _ in configs))
            for k in KERNELS:
                cells, base = [], None
                for _, policy, sched in configs:
                    sets = [f"dispatch.policy={policy}", f"gpu.scheduler={sched}"]
                    s, err = run(preset, sets, ["--kernel", k])
                    if err:
                        sys.exit(f"{k} {sets}: {err}")
                    l1 = s["l1"]
                    miss = (l1["misses"] + l1["sector_misses"]) / max(l1["accesses"], 1)
                    base = base or s["cycles"]
                    cells.append(f"{s['cycles']:,} ({base / s['cycles']:.3f}) / {miss:.3f}")
                print(f"{k:12}" + "".join(f"{c:>24}" for c in cells))
            print()


if __name__ == "__main__":
    main()
