#!/usr/bin/env python3
"""First figures of the closed-loop GPU (issue 14): L1 miss rate per dispatch policy on the
built-in and dispatch kernels, and IPC and global-load latency under FR-FCFS vs Warped-MC on
kernels and the reference LUD trace. Reported, no direction required.

Usage: first-figures.py [PRESET ...]   (default: turing-rtx2060s fermi-gtx480)
Set WARPSMITH to the binary (default target/release/warpsmith; scripts/figures.py).
"""
import sys

from figures import run

KERNELS = ["stencil2d", "matmul3d", "cp", "scalarprod", "rowmajor", "colmajor"]
POLICIES = ["rr", "bcs", "locality", "map-x", "map-y", "map-auto"]
LUD = "golden/tests-data/accelsim-traces/rodinia2-lud-kernel8-volta-legacy-format"


def l1_miss(r):
    l1 = r["l1"]
    return 100.0 * (l1["misses"] + l1["sector_misses"]) / max(1, l1["accesses"])


def main():
    presets = sys.argv[1:] or ["turing-rtx2060s", "fermi-gtx480"]
    for preset in presets:
        print(f"== {preset}: L1 miss rate (%, sector and line misses over accesses) / IPC per dispatch policy")
        print(f"{'kernel':12}" + "".join(f"{p:>17}" for p in POLICIES))
        for k in KERNELS:
            row = f"{k:12}"
            for pol in POLICIES:
                r, err = run(preset, [f"dispatch.policy={pol}"], ["--kernel", k])
                row += f"{'(refused)':>17}" if r is None else f"{l1_miss(r):9.1f} / {r['ipc']:5.2f}"
            print(row)
        print(f"== {preset}: FR-FCFS vs Warped-MC: IPC, global-load latency mean / p95 (core cycles)")
        for name, target in [(k, ["--kernel", k]) for k in KERNELS[:4] + ["irregular"]] + [("lud (trace)", ["--trace", LUD])]:
            row = f"{name:12}"
            for sched in ["frfcfs", "warped"]:
                r, err = run(preset, [f"mc.scheduler={sched}"], target)
                if r is None:
                    row += f"  {sched}: {err}"
                else:
                    lat = r["load_latency"]
                    row += f"  {sched:7} IPC {r['ipc']:6.2f} load {lat['mean']:7.1f} / {lat['p95']:5d}"
            print(row)
        ot_figures(preset)


def ot_figures(preset):
    print(f"== {preset}: OT predictor in place (rr dispatch): PCOV / PACC")
    for name, target in [(k, ["--kernel", k]) for k in KERNELS + ["irregular", "otedge"]] + [("lud (trace)", ["--trace", LUD])]:
        r, err = run(preset, [], target)
        if r is None:
            print(f"{name:12}  {err}")
            continue
        o = r["ot"]
        print(f"{name:12}  queries {o['queries']:7d}  PCOV {o['pcov']:.3f}  PACC {o['pacc']:.3f}")


if __name__ == "__main__":
    main()
