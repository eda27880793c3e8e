#!/usr/bin/env python3
"""Run the independent check of every workload of the library on its cases, and show that each
check catches a changed trace.

    scripts/check-workloads.py [--bin WARPSMITH] [--only NAME,...] [--no-mutations]

For each case below: `warpsmith trace --workload NAME:ARGS` into a scratch folder, then
`scripts/check-workload.py` on it (which must agree, exit 0). On the first case of each
workload, two changed copies of the trace must then be refused (exit 1): one with an
instruction dropped from the middle of a warp, one with a memory instruction's first address
moved a gigabyte away (past every array). Workloads whose inputs the check must know (a graph, a
matrix, an image) get an input written here by the check's own module, passed with `file=`.

Every workload `warpsmith workloads` lists must have cases here and a check; one without is a
failure. Exit 0 if all agree and every change is caught, 1 otherwise (each failure named), 2 on
bad usage.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from workload_checks import CHECKS  # noqa: E402
from workload_checks import bfs, bplustree, dct8x8, histo, kmeans, spmv, srad_v1  # noqa: E402

# Inputs written by the checks' own modules: name -> (writer, its arguments after the path).
INPUTS = {
    "graph2000": (bfs.write_graph, (2000, 1), {"sinks": 0}),
    "graph300": (bfs.write_graph, (300, 1), {"sinks": 15}),
    "points2000x8": (kmeans.write_points, (2000, 8, 1), {}),
    "points300x34": (kmeans.write_points, (300, 34, 1), {}),
    "matrix700": (spmv.write_matrix, (700, 1), {}),
    "matrix2000": (spmv.write_matrix, (2000, 1), {}),
    "histo64": (histo.write_image, (64, 16, 64, 384), {"seed": 1}),
    "histo255": (histo.write_image, (255, 48, 64, 768), {"seed": 1}),
    "image": (srad_v1.write_image, (1, False), {}),
    "special": (srad_v1.write_image, (2, True), {}),
    "bmp32": (dct8x8.write_bmp, (32, 32, 1), {}),
    "bmp160x96": (dct8x8.write_bmp, (160, 96, 1), {}),
    "btkeys40000": (bplustree.write_keys, (40000,), {}),
    "btj3k4": (bplustree.write_commands, ("j 3 3", "k 4"), {}),
    "btkeys3000r": (bplustree.write_keys, (3000, "random", 1), {"count": 4000}),
    "btk6j5": (bplustree.write_commands, ("k 6", "j5 40"), {}),
    "btkeys200": (bplustree.write_keys, (200,), {}),
    "btj2k3": (bplustree.write_commands, ("j 2 2", "k 3"), {}),
}

# Per workload, its cases: the small run's shape first, then shapes that change the stream
# (partial blocks, more launches, other unrolled remainders). `{name}` is an input above.
CASES = {
    "vectoradd": ["n=1500", "n=2000"],
    "matrixmul": ["rows=64"],
    "simple_matrixmul": ["m=20,n=7,p=45", "m=70,n=3,p=33"],
    "transpose": ["variant=coalesced,dim=48", "reps=1"],
    "babelstream": ["n=2048", "n=3072,times=2", "n=2048,dtype=f64"],
    "backprop": ["in=512", "in=4112"],
    "hotspot": ["size=64,pyramid=2,iterations=4", "size=50,pyramid=3,iterations=5"],
    "pathfinder": ["cols=1000,rows=10,pyramid=4", "cols=777,rows=8,pyramid=3"],
    "bfs": ["file={graph2000}", "file={graph300}"],
    "srad_v1": ["iterations=1,rows=64,cols=40,file={image}",
                "iterations=1,rows=100,cols=37,file={special}",
                "iterations=2,rows=29,cols=53,file={image}"],
    "b+tree": ["file={btkeys40000},command={btj3k4}", "file={btkeys3000r},command={btk6j5}",
               "file={btkeys200},command={btj2k3}"],
    "kmeans": ["file={points2000x8},clusters=3,c_clusters=set",
               "file={points300x34},clusters=5,c_clusters=set",
               "file={points300x34},clusters=5"],
    "sgemm": ["m=128,n=32,k=16", "m=256,n=48,k=24"],
    "spmv": ["file={matrix700}", "file={matrix2000},sms=1,iters=2"],
    "stencil": ["nx=64,ny=8,nz=4", "nx=100,ny=10,nz=5,iters=2", "nx=64,ny=8,nz=2"],
    "histo": ["file={histo64}", "file={histo255}"],
    "mri-q": ["numx=256,numk=21", "numx=512,numk=1030"],
    "sad": ["width=16,height=16", "width=48,height=32"],
    "histogram": ["bytes=16", "bytes=262144,runs=1"],
    "fastwalshtransform": ["log2data=10", "log2data=13"],
    "mergesort": ["n=2048", "n=3072", "n=7168"],
    "sobolqrng": ["vectors=1000,dimensions=2,sms=1", "vectors=5000,dimensions=3,sms=2"],
    "scalarprod": ["vectors=4,elements=1024", "vectors=5,elements=4000"],
    "convolutionseparable": ["width=128,height=64", "width=256,height=128,iterations=1"],
    "quasirandomgenerator": ["n=128", "n=16500,iterations=1"],
    "blackscholes": ["options=4096", "options=4100,iterations=2"],
    "binomialoptions": ["options=1", "options=3"],
    "dct8x8": ["file={bmp32}", "file={bmp160x96},dct1_runs=2,dct2_runs=3",
               "width=64,height=96,dct1_runs=2"],
    "ubench-chase": ["footprint=2048,steps=32",
                     "cache=cg,footprint=4096,stride=256,warm=2,steps=7",
                     "footprint=8192,stride=4096,warm=0,steps=5"],
    "ubench-bw": ["footprint=4096,reps=1,blocks=2,threads=64",
                  "level=l2,footprint=8192,reps=2,blocks=2,threads=64",
                  "level=dram,footprint=4096,reps=1,blocks=2,threads=64",
                  "level=copy,footprint=8192,reps=2,blocks=2,threads=128"],
}

INST = re.compile(r"^[0-9a-f]{4} [0-9a-f]{8} ")


def library(binary):
    """The workloads `warpsmith workloads` lists."""
    out = subprocess.run([binary, "workloads"], capture_output=True, text=True, check=True)
    return [m.group(1) for m in re.finditer(r"^(\S+)  \(", out.stdout, re.M)]


def check(folder, spec):
    """check-workload.py's exit code and message on `folder`'s trace of `spec`."""
    r = subprocess.run([sys.executable, os.path.join(HERE, "check-workload.py"), folder, spec],
                       capture_output=True, text=True)
    return r.returncode, (r.stdout + r.stderr).strip()


def kernel_files(folder):
    return sorted(f for f in os.listdir(folder) if f.endswith(".traceg"))


def mutated(folder, scratch, change):
    """A copy of `folder` whose first kernel file's lines are changed by `change` (lines ->
    lines, or None if it finds nothing to change)."""
    copy = os.path.join(scratch, "mutated")
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(folder, copy)
    path = os.path.join(copy, kernel_files(copy)[0])
    with open(path) as f:
        lines = f.read().split("\n")
    changed = change(lines)
    if changed is None:
        return None
    with open(path, "w") as f:
        f.write("\n".join(changed))
    return copy


def drop_one(lines):
    """The middle instruction of the middle warp of the kernel removed."""
    warps, cur = [], None
    for k, line in enumerate(lines):
        if line.startswith("warp = "):
            cur = []
            warps.append(cur)
        elif cur is not None and INST.match(line):
            cur.append(k)
    warps = [w for w in warps if w]
    if not warps:
        return None
    w = warps[len(warps) // 2]
    k = w[len(w) // 2]
    return lines[:k] + lines[k + 1:]


def move_one(lines):
    """The first memory instruction with addresses has its first address moved by 1 GiB (one
    some lane runs: a memory instruction no lane runs has a base address that means nothing)."""
    for k, line in enumerate(lines):
        if INST.match(line) and line.split()[1] != "00000000":
            m = re.search(r" (0x[0-9a-f]{16})", line)
            if m:
                moved = f" 0x{int(m.group(1), 16) + (1 << 30):016x}"
                return lines[:k] + [line[:m.start()] + moved + line[m.end():]] + lines[k + 1:]
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.path.join(HERE, "..", "target", "release", "warpsmith"))
    ap.add_argument("--only", default="", help="comma-separated workloads (default: all)")
    ap.add_argument("--no-mutations", action="store_true")
    a = ap.parse_args()
    if not os.access(a.bin, os.X_OK):
        print(f"check-workloads: no warpsmith binary at {a.bin} (build it, or give --bin)",
              file=sys.stderr)
        sys.exit(2)
    names = library(a.bin)
    only = [n for n in a.only.split(",") if n]
    unknown = [n for n in only if n not in names]
    if unknown:
        print(f"check-workloads: not in the library: {', '.join(unknown)}", file=sys.stderr)
        sys.exit(2)
    failures = [f"{n}: no cases or no check" for n in names
                if (not only or n in only) and (n not in CASES or n not in CHECKS)]
    scratch = tempfile.mkdtemp(prefix="check-workloads-")
    env = dict(os.environ, WARPSMITH_CACHE_DIR=os.path.join(scratch, "cache"))
    inputs = {}
    for name in [n for n in names if n in CASES and (not only or n in only)]:
        for i, case in enumerate(CASES[name]):
            for key in re.findall(r"\{(\w+)\}", case):
                if key not in inputs:
                    writer, pos, kw = INPUTS[key]
                    inputs[key] = os.path.join(scratch, key)
                    writer(inputs[key], *pos, **kw)
            spec = f"{name}:{case.format(**inputs)}"
            folder = os.path.join(scratch, "trace")
            shutil.rmtree(folder, ignore_errors=True)
            start = time.time()
            r = subprocess.run([a.bin, "trace", "--workload", spec, "--out", folder],
                               capture_output=True, text=True, env=env)
            if r.returncode != 0:
                failures.append(f"{spec}: trace failed: {r.stderr.strip()}")
                continue
            code, text = check(folder, spec)
            took = time.time() - start
            if code != 0:
                failures.append(f"{spec}: {text}")
                print(f"FAIL  {spec} ({took:.1f} s)", flush=True)
                continue
            print(f"ok    {spec} ({took:.1f} s)", flush=True)
            if i > 0 or a.no_mutations:
                continue
            for what, change in (("an instruction dropped", drop_one),
                                 ("an address moved", move_one)):
                copy = mutated(folder, scratch, change)
                if copy is None:
                    failures.append(f"{spec}: no place to try {what}")
                    continue
                code, text = check(copy, spec)
                if code != 1:
                    failures.append(f"{spec}: {what}, the check exits {code}: {text}")
                else:
                    print(f"      caught {what}: {text.splitlines()[-1][:150]}", flush=True)
    shutil.rmtree(scratch, ignore_errors=True)
    for f in failures:
        print(f"check-workloads: {f}", file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
