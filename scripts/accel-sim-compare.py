#!/usr/bin/env python3
"""warpsmith and Accel-Sim side by side on the same traces and the same configuration.

    scripts/accel-sim-compare.py [--workload W ...] [--launches LIST] [--timeout S]
                                 [--out DIR] [--accel-sim BIN] [--bin WARPSMITH] [--cpu N]

Each workload of the library (default: every line of scripts/volta-workloads.txt, the V100
kernels of AccelWattch's table) is written once as an Accel-Sim trace (`warpsmith trace`), then
run by both simulators, one after the other, each pinned to one CPU (`taskset -c N`, default 1):
  * warpsmith: `run --trace DIR --no-trace-cache --format json` (it reads the trace's text, as
    Accel-Sim does) on `--preset turing-rtx2060s --config configs/volta-v100.toml` with the
    three latencies calibrated on the TITAN V set back to Accel-Sim's QV100 values
    (gpu.l1_latency 20, l2.rop_latency 160, l2.dram_latency 100): the file is then Accel-Sim's
    SM7_QV100 imported key for key (spec test gpu_configurations_are_their_gpgpusim_configurations),
    plus the HBM2 timing GPGPU-Sim has no option for;
  * Accel-Sim: `accel-sim.out -trace DIR/kernelslist.g -config gpgpusim.config -config
    trace.config` in a folder holding its own tested SM7_QV100 configuration.
Accel-Sim's trace.config gets the UDP unit of its SM75_RTX2060 configuration (the library's
kernels are sm_75 SASS, with uniform-datapath instructions; the same timing as the volta file's
gpu.uniform_* keys). Neither flushes the L2 between kernels; both flush the L1
(-gpgpu_flush_l1_cache 1). Host copies do not fill warpsmith's L2 (l2.fill_on_copy=false), since
Accel-Sim's fill misses every line of a trace's copies (NO_COPY_FILL below says why);
--copies-fill-l2 keeps the fill.

Per kernel launch it tabulates cycles, L1D and L2 accesses and misses, DRAM reads and writes (32 B
sectors) of both and their difference (--launches 1,7 keeps only those launches of each trace, in
both simulators, with every host copy: one of each kernel of a long application), and per
workload each simulator's CPU seconds (user + sys of its process) and simulated cycles per
CPU-second. The counters are GPGPU-Sim's totals, read from Accel-Sim's output and mapped from
warpsmith's JSON:
  L1D_total_cache_accesses   l1.accesses (every access kind; HIT, HIT_RESERVED, MISS, SECTOR_MISS)
  L1D_total_cache_misses     l1.misses + l1.sector_misses (MISS + SECTOR_MISS)
  L2_total_cache_accesses    l2.accesses
  L2_total_cache_misses      l2.misses + l2.sector_misses
  total dram reads / writes  dram_read_bytes / 32, dram_write_bytes / 32
GPGPU-Sim prints its cache and DRAM counters summed since the start of the run; a launch's
figure is the difference from the launch before.

Accel-Sim simulates about 100 to 300 cycles a CPU-second on these 80-SM runs: dct8x8,
quasirandomgenerator, backprop, hotspot, srad_v1 and b+tree take it 7 to 18 minutes each (the
figures in docs/correlation.md); sad, mri-q, binomialoptions and fastwalshtransform would take
hours. A run that exceeds --timeout seconds (default 3600) is stopped and reported as such. Writes
DIR/results.json and DIR/table.md (default DIR: target/accel-sim-compare) and prints the table.
Accel-Sim is built by scripts/build-accel-sim.sh when --accel-sim is not given (about 5
minutes, once). Exit 0 when every run finished, 1 when one failed or timed out, 2 on bad usage.
"""
import argparse
import glob
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Accel-Sim's QV100 values of the three latencies configs/volta-v100.toml calibrates.
QV100_LATENCIES = ["gpu.l1_latency=20", "l2.rop_latency=160", "l2.dram_latency=100"]
# Accel-Sim's -gpgpu_perf_sim_memcpy does not fill the lines a trace's copies write: its loop
# (gpgpu_sim::perf_memcpy_to_gpu, gpu-sim.cc) holds the address in a 32-bit `unsigned`, so the
# 0x7f.. device addresses of traces fill lines at their low 32 bits, which no kernel reads. A
# kernel reading copied data then misses the L2 there (dct8x8's first kernel: 65,536 of 65,536
# L2 accesses missed, 32,768 sectors read from DRAM). warpsmith runs without the fill to compare
# like with like; --copies-fill-l2 keeps it (the configuration as written).
NO_COPY_FILL = ["l2.fill_on_copy=false"]
METRICS = [
    # (name, Accel-Sim's line, cumulative in Accel-Sim's output)
    ("cycles", "gpu_sim_cycle", False),
    ("l1_accesses", "L1D_total_cache_accesses", True),
    ("l1_misses", "L1D_total_cache_misses", True),
    ("l2_accesses", "L2_total_cache_accesses", True),
    ("l2_misses", "L2_total_cache_misses", True),
    ("dram_reads", "total dram reads", True),
    ("dram_writes", "total dram writes", True),
]


def warpsmith_launch(k):
    """One launch of warpsmith's JSON as the metrics above."""
    return {
        "name": k["name"],
        "cycles": k["cycles"],
        "l1_accesses": k["l1"]["accesses"],
        "l1_misses": k["l1"]["misses"] + k["l1"]["sector_misses"],
        "l2_accesses": k["l2"]["accesses"],
        "l2_misses": k["l2"]["misses"] + k["l2"]["sector_misses"],
        "dram_reads": k["dram_read_bytes"] // 32,
        "dram_writes": k["dram_write_bytes"] // 32,
    }


def accel_sim_launches(text):
    """Accel-Sim's per-kernel blocks (from `kernel_name = ` to the next), as per-launch figures."""
    blocks = re.split(r"^kernel_name = ", text, flags=re.M)[1:]
    out, before = [], {m: 0 for m, _, _ in METRICS}
    for b in blocks:
        launch = {"name": b.split("\n", 1)[0].strip()}
        for m, line, cumulative in METRICS:
            found = re.findall(r"^\s*" + re.escape(line) + r" = (\d+)", b, flags=re.M)
            if not found:
                raise ValueError(f"Accel-Sim's block for {launch['name']} has no '{line}'")
            v = int(found[-1])
            launch[m] = v - before[m] if cumulative else v
            before[m] = v
        out.append(launch)
    return out


def keep_launches(path, keep):
    """Rewrite a trace's kernelslist.g with only the kernel launches numbered in `keep` (from
    1, in the list's order) and every host copy."""
    with open(path) as f:
        lines = f.read().splitlines()
    out, n = [], 0
    for ln in lines:
        if ln.strip().startswith("Memcpy") or not ln.strip():
            out.append(ln)
            continue
        n += 1
        if n in keep:
            out.append(ln)
    if max(keep) > n:
        print(f"--launches: {path} has {n} launches, not {max(keep)}", file=sys.stderr)
        sys.exit(2)
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def timed(cmd, cwd, timeout, log, env=None):
    """Run cmd; its stdout, CPU seconds (user + sys) and whether it finished in time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.monotonic()
    with open(log, "w") as err:
        p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=err, text=True,
                             env=env)
        try:
            out, _ = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            return None, None, time.monotonic() - wall, "timed out"
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    status = "ok" if p.returncode == 0 else f"exit {p.returncode} (see {log})"
    return out, cpu, time.monotonic() - wall, status


def pct(sim, ref):
    if ref == 0:
        return "" if sim == 0 else "new"
    return f"{100.0 * (sim - ref) / ref:+.1f}%"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.split("\n")[1:]))
    ap.add_argument("--workload", action="append", help="a workload (repeatable)")
    ap.add_argument("--launches", help="comma-separated launch numbers (from 1) to keep of "
                    "each trace, e.g. 1,7 (default: every launch)")
    ap.add_argument("--timeout", type=float, default=3600.0, help="seconds per run")
    ap.add_argument("--out", default=os.path.join(ROOT, "target", "accel-sim-compare"))
    ap.add_argument("--accel-sim", help="accel-sim.out (default: built by build-accel-sim.sh)")
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "warpsmith"))
    ap.add_argument("--cpu", type=int, default=1, help="the CPU both simulators run on")
    ap.add_argument("--copies-fill-l2", action="store_true",
                    help="let warpsmith's host copies fill its L2 as QV100 says (Accel-Sim's "
                         "do not, see NO_COPY_FILL)")
    a = ap.parse_args()
    if a.timeout <= 0:
        ap.error("--timeout must be positive")
    keep = None
    if a.launches is not None:
        try:
            keep = {int(x) for x in a.launches.split(",")}
        except ValueError:
            ap.error(f"--launches `{a.launches}`: expected launch numbers like 1,7")
        if not keep or min(keep) < 1:
            ap.error(f"--launches `{a.launches}`: launch numbers start at 1")
    if not os.access(a.bin, os.X_OK):
        ap.error(f"no warpsmith binary at {a.bin}: run cargo build --release (or give --bin)")
    if shutil.which("taskset") is None:
        ap.error("taskset is missing (util-linux)")
    workloads = a.workload
    if not workloads:
        with open(os.path.join(ROOT, "scripts", "volta-workloads.txt")) as f:
            workloads = [w for w in (ln.split("#")[0].strip() for ln in f) if w]
    asim = a.accel_sim
    if asim is None:
        asim = subprocess.run([os.path.join(ROOT, "scripts", "build-accel-sim.sh")], check=True,
                              stdout=subprocess.PIPE, text=True).stdout.strip()
    if not os.access(asim, os.X_OK):
        ap.error(f"no Accel-Sim binary at {asim}")
    # Its own tested QV100 configuration, in the checkout the binary was built from.
    framework = os.path.abspath(os.path.join(os.path.dirname(asim), "..", "..", ".."))
    gsim_cfg = os.path.join(framework, "gpu-simulator", "gpgpu-sim", "configs", "tested-cfgs",
                            "SM7_QV100")
    trace_cfg = os.path.join(framework, "gpu-simulator", "configs", "tested-cfgs", "SM7_QV100",
                             "trace.config")
    # accel-sim.out links GPGPU-Sim's own libcudart.so, built beside it.
    libs = glob.glob(os.path.join(framework, "gpu-simulator", "gpgpu-sim", "lib", "*", "*",
                                  "release", "libcudart.so"))
    if not libs:
        ap.error(f"no GPGPU-Sim libcudart.so under {framework}/gpu-simulator/gpgpu-sim/lib")
    asim_env = dict(os.environ)
    asim_env["LD_LIBRARY_PATH"] = os.pathsep.join(
        [os.path.dirname(libs[0])] + [p for p in [os.environ.get("LD_LIBRARY_PATH")] if p])
    os.makedirs(a.out, exist_ok=True)
    cfg_dir = os.path.join(a.out, "qv100")
    os.makedirs(cfg_dir, exist_ok=True)
    for f in os.listdir(gsim_cfg):
        shutil.copy(os.path.join(gsim_cfg, f), cfg_dir)
    shutil.copy(trace_cfg, cfg_dir)
    # The library's kernels are sm_75 SASS (CUDA 13 compiles nothing older), whose uniform
    # datapath instructions Accel-Sim sends to a UDP unit that QV100's trace.config lacks (it
    # stops on an assertion): the UDP unit of its SM75_RTX2060 configuration, the timing of
    # configs/volta-v100.toml's gpu.uniform_latency 4 and gpu.uniform_initiation 1.
    with open(os.path.join(cfg_dir, "trace.config"), "a") as f:
        f.write("\n# Added by warpsmith's accel-sim-compare.py for sm_75 traces:\n"
                "-specialized_unit_4 1,4,4,4,4,UDP\n"
                "-trace_opcode_latency_initiation_spec_op_4 4,1\n")
    pin = ["taskset", "-c", str(a.cpu)]

    results, failed = [], False
    for n, w in enumerate(workloads, 1):
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", w)
        tdir = os.path.join(a.out, "traces", slug)
        print(f"[{n}/{len(workloads)}] {w}: writing its trace", file=sys.stderr, flush=True)
        subprocess.run([a.bin, "trace", "--workload", w, "--out", tdir], check=True,
                       stdout=subprocess.DEVNULL)
        if keep is not None:
            keep_launches(os.path.join(tdir, "kernelslist.g"), keep)
        row = {"workload": w}
        print(f"[{n}/{len(workloads)}] {w}: warpsmith", file=sys.stderr, flush=True)
        cmd = pin + [a.bin, "run", "--trace", tdir, "--no-trace-cache", "--format", "json",
                     "--preset", "turing-rtx2060s", "--config",
                     os.path.join(ROOT, "configs", "volta-v100.toml")]
        for s in QV100_LATENCIES + ([] if a.copies_fill_l2 else NO_COPY_FILL):
            cmd += ["--set", s]
        out, cpu, wall, status = timed(cmd, ROOT, a.timeout,
                                       os.path.join(a.out, f"{slug}.warpsmith.log"))
        row["warpsmith"] = {"status": status, "cpu_s": cpu, "wall_s": wall, "command": cmd}
        if status == "ok":
            row["warpsmith"]["launches"] = [warpsmith_launch(k)
                                            for k in json.loads(out)["kernels"]]
        print(f"[{n}/{len(workloads)}] {w}: Accel-Sim", file=sys.stderr, flush=True)
        cmd = pin + [asim, "-trace", os.path.join(os.path.abspath(tdir), "kernelslist.g"),
                     "-config", "gpgpusim.config", "-config", "trace.config"]
        out, cpu, wall, status = timed(cmd, cfg_dir, a.timeout,
                                       os.path.join(a.out, f"{slug}.accel-sim.log"), asim_env)
        row["accel_sim"] = {"status": status, "cpu_s": cpu, "wall_s": wall, "command": cmd}
        if status == "ok":
            with open(os.path.join(a.out, f"{slug}.accel-sim.out"), "w") as f:
                f.write(out)
            try:
                row["accel_sim"]["launches"] = accel_sim_launches(out)
            except ValueError as e:
                row["accel_sim"]["status"] = f"unreadable output: {e}"
        failed |= row["warpsmith"]["status"] != "ok" or row["accel_sim"]["status"] != "ok"
        results.append(row)
        with open(os.path.join(a.out, "results.json"), "w") as f:
            json.dump({"results": results}, f, indent=1)
    table = render(results)
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write(table)
    print(table)
    return 1 if failed else 0


def render(results):
    t = ["| workload | kernel (launch) | simulator | " +
         " | ".join(m for m, _, _ in METRICS) + " |",
         "|---|---|---|" + "---:|" * len(METRICS)]
    speed = ["", "| workload | simulator | status | cycles | CPU s | cycles per CPU-s | ratio |",
             "|---|---|---|---:|---:|---:|---:|"]
    for r in results:
        ws, asim = r["warpsmith"], r["accel_sim"]
        wl, al = ws.get("launches", []), asim.get("launches", [])
        for i in range(max(len(wl), len(al))):
            w = wl[i] if i < len(wl) else None
            s = al[i] if i < len(al) else None
            name = (w or s)["name"]
            if len(name) > 28:
                name = name[:27] + "…"
            for who, x in (("warpsmith", w), ("Accel-Sim", s)):
                cells = [f"{x[m]:,}" if x else "–" for m, _, _ in METRICS]
                t.append(f"| {r['workload']} | {name} ({i + 1}) | {who} | " + " | ".join(cells)
                         + " |")
            if w and s:
                t.append(f"| | | difference | " +
                         " | ".join(pct(w[m], s[m]) for m, _, _ in METRICS) + " |")
        rates = {}
        for who, x in (("warpsmith", ws), ("Accel-Sim", asim)):
            cyc = sum(k["cycles"] for k in x.get("launches", []))
            rate = cyc / x["cpu_s"] if x.get("launches") and x["cpu_s"] else None
            rates[who] = rate
            ratio = ""
            if who == "Accel-Sim" and rate and rates["warpsmith"]:
                ratio = f"{rates['warpsmith'] / rate:,.1f}x"
            cpu = f"{x['cpu_s']:,.1f}" if x["cpu_s"] is not None else f">{x['wall_s']:,.0f} wall"
            per_s = f"{rate:,.0f}" if rate else "–"
            speed.append(f"| {r['workload']} | {who} | {x['status']} | {cyc:,} | {cpu} | "
                         f"{per_s} | {ratio} |")
    return "\n".join(t + speed) + "\n"


if __name__ == "__main__":
    try:
        sys.exit(main())
    except subprocess.CalledProcessError as e:
        print(f"error: {' '.join(map(str, e.cmd))} failed (exit {e.returncode})", file=sys.stderr)
        sys.exit(1)
