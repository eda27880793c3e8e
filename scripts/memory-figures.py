#!/usr/bin/env python3
"""Seed 004's headline comparison: Warped-MC against FR-FCFS (its baseline), FCFS and
Div-First, for performance and DRAM energy (DRAMPower's method, decision MEM-*):
1. the memory system alone on the seed's load mixes (`golden --block mc`, LOA / MOA / HOA warp
   loads): mean warp time (issue of a warp load to its last answer), core cycles, energy;
2. the whole GPU on kernels and workloads of the library: core cycles, DRAM energy.
Each figure with its change against FR-FCFS. Numbers only: no direction is asserted.

Usage: memory-figures.py [PRESET]   (default: turing-rtx2060s, GDDR6 as the seed's Table 2)
Set WARPSMITH to the binary (default target/release/warpsmith; scripts/figures.py).
"""
import json
import subprocess
import sys

from figures import BIN, run

SCHEDULERS = ["frfcfs", "fcfs", "divfirst", "warped"]
MIXES = ["loa", "moa", "hoa"]
GPU = [["--kernel", "irregular"], ["--kernel", "lonewarp"], ["--workload", "bfs"],
       ["--workload", "backprop"]]


def golden_mc(preset, scheduler, mix):
    args = [BIN, "golden", "--block", "mc", "--preset", preset, "--stimulus", mix,
            "--cycles", "20000", "--format", "json", "--set", f"mc.scheduler={scheduler}"]
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(args)}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def change(x, base):
    return f"{(x / base - 1) * 100:+.1f}%"


def main():
    preset = sys.argv[1] if len(sys.argv) > 1 else "turing-rtx2060s"
    print(f"== {preset}: memory system alone, 20,000 cycles of warp loads")
    print(f"{'mix':5}{'scheduler':>10}{'warp time':>12}{'':>8}{'cycles':>9}{'energy nJ':>12}{'':>8}"
          f"{'nJ/request':>11}")
    for mix in MIXES:
        base = None
        for sched in SCHEDULERS:
            r = golden_mc(preset, sched, mix)
            wt, e = r["warp_time"]["mean"], r["energy"]["total_nj"]
            base = base or (wt, e)
            print(f"{mix:5}{sched:>10}{wt:12.1f}{change(wt, base[0]):>9}{r['cycles']:9}"
                  f"{e:12.1f}{change(e, base[1]):>9}{e / max(1, r['requests']):11.3f}")
    print(f"\n== {preset}: the whole GPU")
    print(f"{'workload':12}{'scheduler':>10}{'cycles':>10}{'':>8}{'DRAM nJ':>12}{'':>8}")
    for target in GPU:
        base = None
        for sched in SCHEDULERS:
            r, err = run(preset, [f"mc.scheduler={sched}"], target)
            if err:
                print(f"{target[1]:12}{sched:>10}  error: {err}")
                continue
            c, e = r["cycles"], r["dram"]["energy"]["total_nj"]
            base = base or (c, e)
            print(f"{target[1]:12}{sched:>10}{c:10}{change(c, base[0]):>9}{e:12.1f}"
                  f"{change(e, base[1]):>9}")


if __name__ == "__main__":
    main()
