#!/usr/bin/env python3
"""Calibrate a preset's latencies on the pointer-chase microbenchmark, as Accel-Sim's tuner
turns a GPU's measured latencies into configuration values (issue 39).

    scripts/calibrate.py [--preset P] [--config FILE] --gpu NAME [--set K=V ...] [--bin B]
                         [--steps N] [--json]
    scripts/calibrate.py [--preset P] [--config FILE] --target l1=C,l2=C,dram=C ...

The targets are a GPU's published load-to-use latencies per level in core cycles
(shared/reference/hardware/SOURCES.md; `--gpu` names one of that table's GPUs). A level with no
published figure (the RTX 2070's DRAM) has no target: its key is left as it is and its latency
only reported. Each level's
latency is measured with scripts/ubench.py's chase (the difference method), and one key per
level moves it cycle for cycle, in the order the paths nest:
  1. gpu.l1_latency     by the L1 hit's error;
  2. l2.rop_latency     by the L2 hit's error (measured again after step 1);
  3. l2.dram_latency    by the DRAM access's error (measured again after step 2).
Each key is moved by its error rounded to a whole cycle; a round measures all three again, and
the rounds stop when no key moves (at most --rounds). Nothing but the microbenchmark is run: the
applications a preset is judged on never enter its calibration. The derived keys are printed
as TOML for the preset file, with the latencies before and after.

Exit 0 with the keys; 1 if a run fails or a level stays more than 5 % off; 2 on bad usage.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ubench  # noqa: E402

# shared/reference/hardware/SOURCES.md: unloaded load-to-use latencies (pointer chase, core
# cycles) per level.
PUBLISHED = {
    "titan-v": {"l1": 33.73, "l2": 211.07, "dram": 313.46},
    "titan-x-pascal": {"l1": 83.5, "l2": 236.0, "dram": 394.7},
    "gtx-1080": {"l1": 81.0, "l2": 210.1, "dram": 399.7},
    "gtx-980": {"l1": 82.5, "l2": 233.3, "dram": 400.8},
    "a4000": {"l1": 33.0, "l2": 231.7, "dram": 508.1},
    # Its published global-memory figure includes TLB misses: no DRAM target.
    "rtx-2070": {"l1": 32.0, "l2": 236.0},
}
# The key that moves each level's latency one for one, in the order they are fitted.
KEYS = [("l1", "gpu.l1_latency"), ("l2", "l2.rop_latency"), ("dram", "l2.dram_latency")]
LEVELS = ("l1", "l2", "dram")


def latencies(binary, layers, sets, steps):
    """Each level's chase latency on the configuration with `sets` applied."""
    extra = []
    for k, v in sets.items():
        extra += ["--set", f"{k}={v}"]
    gpu = ubench.Gpu(binary, layers + extra)
    return {lv: ubench.chase(gpu, lv, steps)["latency_cycles"] for lv in LEVELS}, gpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--preset", default="turing-rtx2060s")
    ap.add_argument("--config", help="a TOML configuration over the preset")
    ap.add_argument("--set", action="append", default=[], metavar="K=V",
                    help="a key fixed for the calibration (repeatable)")
    which = ap.add_mutually_exclusive_group(required=True)
    which.add_argument("--gpu", choices=sorted(PUBLISHED),
                       help="the GPU whose published latencies are the targets")
    which.add_argument("--target", metavar="l1=C,l2=C,dram=C",
                       help="the target latencies in core cycles (a level left out keeps "
                       "its key)")
    ap.add_argument("--bin", default=os.path.join(ubench.HERE, "..", "target", "release",
                                                  "warpsmith"))
    ap.add_argument("--steps", type=int, default=256, help="N of the chase's N and 2N steps")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if not os.access(a.bin, os.X_OK):
        print(f"calibrate: no warpsmith binary at {a.bin} (build it, or give --bin)",
              file=sys.stderr)
        sys.exit(2)
    if a.gpu:
        target = PUBLISHED[a.gpu]
    else:
        try:
            target = {k: float(v) for k, v in (f.split("=") for f in a.target.split(","))}
        except ValueError:
            ap.error(f"--target {a.target!r}: write l1=C,l2=C,dram=C (cycles)")
        if not target or any(lv not in LEVELS for lv in target):
            ap.error(f"--target {a.target!r}: give some of l1, l2 and dram")
    layers = ["--preset", a.preset] + (["--config", a.config] if a.config else [])
    for kv in a.set:
        layers += ["--set", kv]
    c = ubench.Gpu(a.bin, layers).config
    sets = {k: c[k.split(".")[0]][k.split(".")[1]] for _, k in KEYS}
    start = dict(sets)
    before, _ = latencies(a.bin, layers, sets, a.steps)
    now = before
    for _ in range(a.rounds):
        moved = False
        for level, key in KEYS:
            if level not in target:
                continue
            step = round(target[level] - now[level])
            if step == 0:
                continue
            if sets[key] + step < 0:
                print(f"calibrate: {key} would go below 0 to reach {level} = "
                      f"{target[level]} cycles: the model's path is longer than the GPU's "
                      "without it", file=sys.stderr)
                sys.exit(1)
            sets[key] += step
            moved = True
            now, _ = latencies(a.bin, layers, sets, a.steps)
        if not moved:
            break
    off = {lv: now[lv] / target[lv] - 1 for lv in LEVELS if lv in target}
    out = {"preset": a.preset, "config": a.config, "set": a.set, "target": target, "keys_before": start,
           "keys": sets, "latency_before": before, "latency": now, "error": off}
    if a.json:
        print(json.dumps(out, indent=2))
    else:
        print(f"{a.config or a.preset}: latencies in core cycles (target {a.gpu or a.target})")
        print("level    before    after   target   error")
        for lv in LEVELS:
            if lv in target:
                print(f"{lv:<6} {before[lv]:8.1f} {now[lv]:8.1f} {target[lv]:8.2f} "
                      f"{100 * off[lv]:+6.1f}%")
            else:
                print(f"{lv:<6} {before[lv]:8.1f} {now[lv]:8.1f}        -       -")
        print("keys (TOML):")
        for _, k in KEYS:
            was = "" if start[k] == sets[k] else f"   # was {start[k]}"
            print(f"  {k} = {sets[k]}{was}")
    sys.exit(1 if any(abs(e) > 0.05 for e in off.values()) else 0)


if __name__ == "__main__":
    main()
