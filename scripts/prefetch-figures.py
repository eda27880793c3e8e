#!/usr/bin/env python3
"""Prefetching on the GPU (issue 16, seed 001): IPC, prefetch accuracy and coverage, early
evictions and the throttle's mean degree for no prefetching, StridePC (PWS table only), PWS+GS,
PWS+IP and MT-HWP (StridePC and MT-HWP without and with adaptive throttling), Stream and GHB,
on strided built-in kernels and the reference Accel-Sim traces. Reported, no direction
required.

Usage: prefetch-figures.py [PRESET ...]   (default: turing-rtx2060s fermi-gtx480)
Set WARPSMITH to the binary (default target/release/warpsmith; scripts/figures.py).
"""
import os
import sys
import tempfile

from figures import run

TRACES = "golden/tests-data/accelsim-traces"
LUD = f"{TRACES}/rodinia2-lud-kernel8-volta-legacy-format"
POW = f"{TRACES}/pytorch-pow-kernel593-tracer-v5-excerpt/kernel-593-ctx_0x55c28dad19e0.traceg.excerpt-TB0-TB1"
# Seed 001 Fig. 14's table configurations (PWS = stridepc, PWS+GS, PWS+IP, MT-HWP), without and
# with throttling, and its Stream and GHB baselines.
KINDS = [("none", "false"), ("stridepc", "false"), ("stridepc", "true"),
         ("pws-gs", "false"), ("pws-ip", "false"),
         ("mt-hwp", "false"), ("mt-hwp", "true"), ("stream", "false"), ("ghb", "false")]


def main():
    presets = sys.argv[1:] or ["turing-rtx2060s", "fermi-gtx480"]
    with tempfile.TemporaryDirectory() as d:
        # The excerpt's own list names the whole trace, which is not there: list the excerpt.
        with open(os.path.join(d, "kernelslist.g"), "w") as f:
            f.write(os.path.abspath(POW) + "\n")
        targets = [(k, ["--kernel", k]) for k in ["pfstream", "matmul3d", "stencil2d", "scalarprod", "cp"]]
        targets += [("lud (trace)", ["--trace", LUD]), ("pow (trace)", ["--trace", d])]
        for preset in presets:
            print(f"== {preset}")
            print(f"{'workload':14}{'prefetcher':>12}{'throttle':>9}{'IPC':>8}{'speedup':>8}"
                  f"{'issued':>8}{'useful':>8}{'late':>7}{'early':>7}{'accuracy':>9}{'coverage':>9}{'degree':>7}")
            for name, target in targets:
                base = None
                for kind, thr in KINDS:
                    r, err = run(preset, [f"prefetch.kind={kind}", f"prefetch.throttle={thr}"], target)
                    if r is None:
                        print(f"{name:14}{kind:>12}{thr:>9}  error: {err}")
                        continue
                    ipc = r["ipc"]
                    base = base or ipc
                    p = r.get("prefetch")
                    if p is None:
                        print(f"{name:14}{kind:>12}{'-':>9}{ipc:8.3f}{ipc / base:8.3f}")
                        continue
                    issued = p["issued"]
                    acc = (p["useful"] + p["late"]) / max(1, issued)
                    cov = (p["hits"] + p["late"]) / max(1, p["demand"])
                    n = sum(p["degree_cycles"])
                    deg = sum(i * c for i, c in enumerate(p["degree_cycles"])) / max(1, n)
                    print(f"{name:14}{kind:>12}{thr:>9}{ipc:8.3f}{ipc / base:8.3f}{issued:8}"
                          f"{p['useful']:8}{p['late']:7}{p['early_evicted']:7}{acc:9.3f}{cov:9.3f}{deg:7.2f}")


if __name__ == "__main__":
    main()
