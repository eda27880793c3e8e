#!/usr/bin/env python3
"""CPU time and peak memory of `run --workload` against the same work from its packed trace.

    scripts/workload-speed.py [--bin WARPSMITH] [--only NAME,...] [--runs N]

For each workload of the library at its default arguments (or NAME:ARGS given with --only):
`warpsmith trace --workload` writes its Accel-Sim trace; one `run --trace` packs it into the
cache; then `run --workload` and `run --trace` (now read from the packed copy) are timed
alternately, N times each, and the medians of their CPU time (user + system) and their peak
resident memory are printed with the ratio workload / packed trace. Both runs simulate the same
GPU (--preset, default turing-rtx2060s) on the same instruction stream; the difference is the emulation of the
kernels' SASS against decoding the packed records.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def timed(cmd, env):
    """(CPU seconds, peak RSS in MiB) of running `cmd`, which must succeed."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(p.pid, 0)
    err = p.stderr.read().decode()
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"workload-speed: {' '.join(cmd)} failed: {err.strip()}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def library(binary):
    out = subprocess.run([binary, "workloads"], capture_output=True, text=True, check=True).stdout
    return [line.split()[0] for line in out.splitlines()
            if line and not line[0].isspace() and "  (" in line]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.path.join(HERE, "..", "target", "release", "warpsmith"))
    ap.add_argument("--only", default="", help="comma-separated NAME[:ARGS] (default: all)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--preset", default="turing-rtx2060s",
                    help="the GPU both runs simulate (default: one that holds every kernel)")
    a = ap.parse_args()
    if not os.access(a.bin, os.X_OK) or a.runs < 1:
        sys.exit("workload-speed: give --bin an executable warpsmith and --runs at least 1")
    specs = [s for s in a.only.split(",") if s] or library(a.bin)
    scratch = tempfile.mkdtemp(prefix="workload-speed-")
    env = dict(os.environ, WARPSMITH_CACHE_DIR=os.path.join(scratch, "cache"))
    print(f"{'workload':24} {'workload s':>10} {'packed s':>9} {'ratio':>6} "
          f"{'workload MiB':>12} {'packed MiB':>10}")
    ratios = []
    for spec in specs:
        folder = os.path.join(scratch, "trace")
        shutil.rmtree(folder, ignore_errors=True)
        subprocess.run([a.bin, "trace", "--workload", spec, "--out", folder], check=True,
                       stdout=subprocess.DEVNULL, env=env)
        gpu = ["--preset", a.preset, "--format", "json"]
        trace_run = [a.bin, "run", "--trace", folder] + gpu
        timed(trace_run, env)  # packs the trace
        work, packed = [], []
        for _ in range(a.runs):
            work.append(timed([a.bin, "run", "--workload", spec] + gpu, env))
            packed.append(timed(trace_run, env))
        w = statistics.median(t for t, _ in work)
        p = statistics.median(t for t, _ in packed)
        # (A run under 0.05 s is too short for a ratio to mean anything.)
        ratio = f"{w / p:6.2f}" if p >= 0.05 else "     -"
        if p >= 0.05:
            ratios.append(w / p)
        print(f"{spec:24} {w:10.2f} {p:9.2f} {ratio} {max(m for _, m in work):12.0f} "
              f"{max(m for _, m in packed):10.0f}", flush=True)
    shutil.rmtree(scratch, ignore_errors=True)
    if ratios:
        print(f"median ratio {statistics.median(ratios):.2f}, "
              f"range {min(ratios):.2f} to {max(ratios):.2f} ({len(ratios)} workloads)")


if __name__ == "__main__":
    main()
