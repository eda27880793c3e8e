#!/usr/bin/env bash
# Side-by-side speed of `warpsmith run` and the peer simulator microgpusim (romnn/microgpusim,
# its binary `gpucachesim`) on the same workloads: simulated cycles, CPU seconds (user+sys of
# the simulator process), simulated cycles per CPU-second and their ratio, and peak RSS.
# warpsmith is measured twice: reading the trace's text (--no-trace-cache) and reading the
# packed copy of it that its trace cache keeps (written by one unmeasured run first, in
# DIR/warpsmith-cache); microgpusim reads its own binary (msgpack) traces.
#
#   scripts/microgpusim-compare.sh [--runs R] [--repeat K] [--sms N]
#                                  [--workloads "vectoradd matrixmul transpose"] [--out DIR]
#
# Workloads are microgpusim's own trace reconstructions (no GPU needed), written once into
# DIR/<w>/native (commands.json + kernel-0.msgpack, which gpucachesim reads) and converted
# with microgpusim's converter to Accel-Sim's text format in DIR/<w>/accelsim (kernelslist.g +
# kernel-1.traceg, which warpsmith reads), so both simulators run the same instruction stream:
#   vectoradd  --length 500000      matrixmul  --rows 128      transpose  --dim 512 --variant naive
# Both get the same SM count (warpsmith --set gpu.sms=N; gpucachesim --num-clusters N
# --cores-per-cluster 1 --fill-l2 false). They run in one sitting, alternately (warpsmith then
# gpucachesim, R times per workload; warpsmith's runs, a fraction of a second each, K times in a
# row per turn, default 5, so that one disturbed run does not decide its median), each pinned
# with `taskset -c $CPU` (default 1). Every run is measured and listed. Prints a
# markdown table per workload and writes the figures to DIR/results.json (default
# target/microgpusim-compare). A failed run stops the script (exit 1) with its command and the
# end of its stderr; no ratio is printed from it.
#
# microgpusim is only fetched, built and run in .tools/microgpusim, never copied into this
# project: cloned from MICROGPUSIM_GIT (default GitHub) at the pinned commit and built with
# `cargo build --release --locked` (gpucachesim, ~17 min on 2 cores; log in build.log). The
# commit has no command that writes a reconstructed trace or converts one, so the script adds
# two small helper binaries of its own to that checkout, calling microgpusim's library:
# write-trace (gpucachesim-benchmarks) and box-to-accelsim (accelsim). MICROGPUSIM_DIR names an
# already built checkout instead (its target/release holds the three binaries). Env: WARPSMITH
# (default target/release/warpsmith), PRESET (default turing-rtx2060s), CPU (default 1). Needs
# git, cargo, taskset and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
runs=3
repeat=5
sms=28
workloads="vectoradd matrixmul transpose"
out=target/microgpusim-compare
need() { [ "$1" -ge 2 ] || { echo "$2 needs a value (see --help)" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) need $# "$1"; runs=$2; shift 2 ;;
    --repeat) need $# "$1"; repeat=$2; shift 2 ;;
    --sms) need $# "$1"; sms=$2; shift 2 ;;
    --workloads) need $# "$1"; workloads=$2; shift 2 ;;
    --out) need $# "$1"; out=$2; shift 2 ;;
    -h|--help) sed -n '2,34p' "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "--runs must be a positive integer, not '$runs'" >&2; exit 2; }
[[ $repeat =~ ^[1-9][0-9]*$ ]] || { echo "--repeat must be a positive integer, not '$repeat'" >&2; exit 2; }
[[ $sms =~ ^[1-9][0-9]*$ ]] || { echo "--sms must be a positive integer, not '$sms'" >&2; exit 2; }
read -ra wl <<<"${workloads//,/ }"
[ ${#wl[@]} -gt 0 ] || { echo "--workloads is empty" >&2; exit 2; }
declare -A gen=([vectoradd]="vectoradd --length 500000" [matrixmul]="matrixmul --rows 128"
  [transpose]="transpose --dim 512 --variant naive")
for w in "${wl[@]}"; do
  [ -n "${gen[$w]:-}" ] || { echo "unknown workload $w (vectoradd, matrixmul or transpose)" >&2; exit 2; }
done
cpu=${CPU:-1}
preset=${PRESET:-turing-rtx2060s}
ws=${WARPSMITH:-$root/target/release/warpsmith}
[ -x "$ws" ] || { echo "no warpsmith binary at $ws: run cargo build --release (or set WARPSMITH)" >&2; exit 2; }
for t in taskset python3; do
  command -v "$t" >/dev/null || { echo "$t is missing" >&2; exit 2; }
done
commit=b3d0c7ee0bbf8744f3520789d8150a162de97afd
bins=(gpucachesim write-trace box-to-accelsim)

# The two helpers the script adds to its checkout (our glue over microgpusim's library API).
# put FILE: standard input into FILE, left untouched when it already holds it (so a rebuild
# after a second run finds nothing changed).
put() {
  local f
  f=$(mktemp)
  cat >"$f"
  mkdir -p "$(dirname "$1")"
  cmp -s "$f" "$1" || cp "$f" "$1"
  rm -f "$f"
}

write_helpers() {
  local dir=$1
  put "$dir/benchmarks/src/bin/write-trace.rs" <<'RS'
//! Added by warpsmith's scripts/microgpusim-compare.sh: reconstructs one of microgpusim's
//! benchmark traces (f32, no GPU) and writes it as gpucachesim reads it (commands.json +
//! kernel-N.msgpack).
//!   write-trace --out DIR vectoradd --length N
//!   write-trace --out DIR matrixmul --rows N
//!   write-trace --out DIR transpose --dim N --variant naive|coalesced|optimized [--repetitions R]
use color_eyre::eyre;
use gpucachesim_benchmarks as benchmarks;
use std::collections::HashMap;

fn usage() -> eyre::Report {
    eyre::eyre!(
        "usage: write-trace --out DIR (vectoradd --length N | matrixmul --rows N | \
         transpose --dim N --variant naive|coalesced|optimized [--repetitions R])"
    )
}

#[tokio::main(flavor = "multi_thread")]
async fn main() -> eyre::Result<()> {
    let mut workload: Option<String> = None;
    let mut opts: HashMap<String, String> = HashMap::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if let Some(key) = arg.strip_prefix("--") {
            let value = args.next().ok_or_else(usage)?;
            opts.insert(key.to_string(), value);
        } else if workload.is_none() {
            workload = Some(arg);
        } else {
            return Err(usage());
        }
    }
    let allowed: &[&str] = match workload.as_deref() {
        Some("vectoradd") => &["out", "length"],
        Some("matrixmul") => &["out", "rows"],
        Some("transpose") => &["out", "dim", "variant", "repetitions"],
        _ => return Err(usage()),
    };
    if let Some(key) = opts.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(eyre::eyre!("unknown option --{key}").wrap_err(usage()));
    }
    let text = |key: &str| opts.get(key).cloned().ok_or_else(usage);
    let number = |key: &str| -> eyre::Result<usize> { Ok(text(key)?.parse()?) };
    let out = std::path::PathBuf::from(text("out")?);
    let (commands, kernel_traces) = match workload.as_deref() {
        Some("vectoradd") => benchmarks::vectoradd::benchmark::<f32>(number("length")?).await?,
        Some("matrixmul") => benchmarks::matrixmul::benchmark::<f32>(number("rows")?).await?,
        _ => {
            let variant: benchmarks::transpose::Variant = text("variant")?.parse()?;
            let repetitions = if opts.contains_key("repetitions") { number("repetitions")? } else { 0 };
            benchmarks::transpose::benchmark::<f32>(number("dim")?, variant, repetitions).await?
        }
    };
    let instructions: usize = kernel_traces.iter().map(|(_, trace)| trace.len()).sum();
    eprintln!(
        "{} command(s), {} kernel(s), {instructions} warp instructions",
        commands.len(),
        kernel_traces.len()
    );
    gpucachesim::exec::write_traces(commands, kernel_traces, &out)?;
    Ok(())
}
RS
  put "$dir/accelsim/src/bin/box-to-accelsim.rs" <<'RS'
//! Added by warpsmith's scripts/microgpusim-compare.sh: converts a gpucachesim trace folder
//! (commands.json + kernel-N.msgpack) to Accel-Sim text traces (box-kernelslist.g +
//! kernel-N.box.traceg) with accelsim::tracegen.
//!   box-to-accelsim NATIVE_DIR OUT_DIR
use color_eyre::eyre;
use std::path::PathBuf;

fn main() -> eyre::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [native, out] = args.as_slice() else {
        return Err(eyre::eyre!("usage: box-to-accelsim NATIVE_DIR OUT_DIR"));
    };
    let (native, out) = (PathBuf::from(native), PathBuf::from(out));
    std::fs::create_dir_all(&out)?;
    accelsim::tracegen::convert_box_to_accelsim_traces(&accelsim::tracegen::Conversion {
        native_commands_path: &native.join("commands.json"),
        box_traces_dir: &native,
        accelsim_traces_dir: &out,
    })?;
    Ok(())
}
RS
}

built() { local b; for b in "${bins[@]}"; do [ -x "$1/target/release/$b" ] || return 1; done; }
if [ -n "${MICROGPUSIM_DIR:-}" ]; then
  mgs=$MICROGPUSIM_DIR
  built "$mgs" || { echo "MICROGPUSIM_DIR=$mgs lacks a built target/release/{gpucachesim,write-trace,box-to-accelsim}" >&2; exit 2; }
else
  mgs=$root/.tools/microgpusim
  if ! built "$mgs"; then
    for t in git cargo; do
      command -v "$t" >/dev/null || { echo "$t is missing (needed to build microgpusim)" >&2; exit 2; }
    done
    url=${MICROGPUSIM_GIT:-https://github.com/romnn/microgpusim.git}
    if [ ! -d "$mgs/.git" ]; then
      mkdir -p "$root/.tools"
      rm -rf "$mgs.clone"
      git clone --quiet --no-checkout "$url" "$mgs.clone" ||
        { echo "could not clone microgpusim from $url (set MICROGPUSIM_GIT or MICROGPUSIM_DIR)" >&2; exit 1; }
      mv "$mgs.clone" "$mgs"
    fi
    git -C "$mgs" cat-file -e "$commit^{commit}" 2>/dev/null || git -C "$mgs" fetch --quiet origin ||
      { echo "could not fetch microgpusim into $mgs" >&2; exit 1; }
    git -C "$mgs" checkout --quiet --force "$commit" ||
      { echo "could not check out microgpusim $commit in $mgs" >&2; exit 1; }
    write_helpers "$mgs"
    echo "building microgpusim ${commit:0:8} (gpucachesim, write-trace, box-to-accelsim):" \
      "about 17 minutes on 2 cores; log in $mgs/build.log" >&2
    ( cd "$mgs" &&
      cargo build --release --locked --target-dir target -p gpucachesim --bin gpucachesim &&
      cargo build --release --locked --target-dir target -p gpucachesim-benchmarks --bin write-trace &&
      cargo build --release --locked --target-dir target -p accelsim --bin box-to-accelsim
    ) >"$mgs/build.log" 2>&1 || { echo "microgpusim did not build: see $mgs/build.log" >&2; exit 1; }
  fi
fi
mgsbin=$mgs/target/release
mgs_commit=$(git -C "$mgs" rev-parse HEAD 2>/dev/null || echo unknown)
[ "$mgs_commit" = "$commit" ] || echo "note: microgpusim at $mgs is at $mgs_commit, not the pinned $commit" >&2

mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out/results.json"
# The workloads, each written once (into *.tmp, renamed when complete).
for w in "${wl[@]}"; do
  d=$out/$w
  mkdir -p "$d"
  if [ ! -f "$d/native/commands.json" ]; then
    read -ra a <<<"${gen[$w]}"
    echo "writing $w: write-trace ${gen[$w]}" >&2
    rm -rf "$d/native.tmp" "$d/native" "$d/accelsim"
    "$mgsbin/write-trace" --out "$d/native.tmp" "${a[@]}" >"$d/write-trace.log" 2>&1 ||
      { echo "write-trace failed on $w (see $d/write-trace.log):" >&2; tail -n 12 "$d/write-trace.log" >&2; exit 1; }
    mv "$d/native.tmp" "$d/native"
  fi
  if [ ! -f "$d/accelsim/kernelslist.g" ]; then
    echo "converting $w to Accel-Sim's format: box-to-accelsim" >&2
    t=$d/accelsim.tmp
    rm -rf "$t"
    "$mgsbin/box-to-accelsim" "$d/native" "$t" >"$d/box-to-accelsim.log" 2>&1 ||
      { echo "box-to-accelsim failed on $w (see $d/box-to-accelsim.log):" >&2; tail -n 12 "$d/box-to-accelsim.log" >&2; exit 1; }
    # Accel-Sim's usual names: kernelslist.g naming kernel-N.traceg.
    for f in "$t"/kernel-*.box.traceg; do mv "$f" "${f%.box.traceg}.traceg"; done
    sed 's/\.box\.traceg$/.traceg/' "$t/box-kernelslist.g" >"$t/kernelslist.g"
    rm "$t/box-kernelslist.g"
    mv "$t" "$d/accelsim"
  fi
done

python3 - "$out" "$runs" "$repeat" "$cpu" "$sms" "$preset" "$ws" "$mgsbin" "$mgs_commit" "${wl[@]}" <<'EOF'
import json, os, re, shlex, statistics, subprocess, sys, time
out, runs, repeat, cpu, sms, preset, ws, mgsbin, commit, *workloads = sys.argv[1:]
runs, repeat = int(runs), int(repeat)

# warpsmith's packed trace copies (see `warpsmith run --help`, --no-trace-cache) for its packed runs.
cache_env = dict(os.environ, WARPSMITH_CACHE_DIR=os.path.abspath(f"{out}/warpsmith-cache"))

def run(w, name, tag, cmd, env=None):
    """One pinned run: its CPU seconds (user+sys), wall seconds, peak RSS (KiB) and output."""
    so, se = f"{out}/{w}/{tag}.out", f"{out}/{w}/{tag}.err"
    with open(so, "w") as fo, open(se, "w") as fe:
        t0 = time.perf_counter()
        p = subprocess.Popen(["taskset", "-c", cpu, *cmd], stdin=subprocess.DEVNULL, stdout=fo, stderr=fe,
                             env=env)
        _, status, ru = os.wait4(p.pid, 0)  # this process's own rusage (taskset execs the simulator)
        wall = time.perf_counter() - t0
    p.returncode = rc = os.waitstatus_to_exitcode(status)
    stdout, stderr = open(so, errors="replace").read(), open(se, errors="replace").read()
    def fail(why):
        tail = "\n".join(stderr.rstrip().splitlines()[-15:]) or "(empty)"
        sys.exit(f"{name} failed on {w}: {why}\n  command: taskset -c {cpu} {shlex.join(cmd)}\n"
                 f"  stdout: {so}\n  stderr: {se}, last lines:\n{tail}")
    if rc != 0:
        fail(f"killed by signal {-rc}" if rc < 0 else f"exit status {rc}")
    if name == "warpsmith":
        try:
            cycles = int(json.loads(stdout)["cycles"])
        except (ValueError, KeyError, TypeError) as e:
            fail(f"no top-level \"cycles\" in its JSON output ({e!r})")
    else:
        m = re.search(r"^\s*cycles: ([0-9]+),", stdout + stderr, re.M)
        if not m:
            fail("no 'cycles: N,' line in its output")
        cycles = int(m.group(1))
    return {"cycles": cycles, "cpu": ru.ru_utime + ru.ru_stime, "user": ru.ru_utime, "sys": ru.ru_stime,
            "wall": wall, "rss_kib": ru.ru_maxrss}

def summary(cmd, rs):
    cyc = [r["cycles"] for r in rs]
    if len(set(cyc)) != 1:
        print(f"note: simulated cycles differ between runs: {cyc}", file=sys.stderr)
    cpu_s = [r["cpu"] for r in rs]
    med = statistics.median(cpu_s)
    return {"command": ["taskset", "-c", cpu, *cmd], "cycles": cyc[0], "cycles_per_run": cyc,
            "cpu_seconds": [round(c, 4) for c in cpu_s], "cpu_seconds_median": round(med, 4),
            "user_seconds": [round(r["user"], 4) for r in rs], "sys_seconds": [round(r["sys"], 4) for r in rs],
            "wall_seconds": [round(r["wall"], 4) for r in rs],
            "cycles_per_cpu_second": cyc[0] / med if med > 0 else None,
            "peak_rss_kib": max(r["rss_kib"] for r in rs)}

results = {"microgpusim_commit": commit, "warpsmith": ws, "preset": preset, "sms": int(sms), "cpu": cpu,
           "runs": runs, "warpsmith_repeat": repeat, "cpu_time": "user+sys seconds of the simulator process", "workloads": {}}
tables = []
for w in workloads:
    d = f"{out}/{w}"
    wcmd = [ws, "run", "--preset", preset, "--set", f"gpu.sms={sms}", "--trace", f"{d}/accelsim", "--format", "json"]
    tcmd = wcmd + ["--no-trace-cache"]
    mcmd = [f"{mgsbin}/gpucachesim", f"{d}/native", "--num-clusters", sms, "--cores-per-cluster", "1",
            "--fill-l2", "false"]
    # warpsmith twice: parsing the trace's text (--no-trace-cache), and reading the packed copy
    # that a first, unmeasured run writes.
    run(w, "warpsmith", "warpsmith-packing", wcmd, cache_env)
    tr, wr, mr = [], [], []
    for i in range(runs):
        print(f"{w}: run {i + 1}/{runs}", file=sys.stderr)
        for _ in range(repeat):
            tr.append(run(w, "warpsmith", "warpsmith-text", tcmd))
        for _ in range(repeat):
            wr.append(run(w, "warpsmith", "warpsmith-packed", wcmd, cache_env))
        mr.append(run(w, "microgpusim", "gpucachesim", mcmd))
    t, a, b = summary(tcmd, tr), summary(wcmd, wr), summary(mcmd, mr)
    if t["cycles"] != a["cycles"]:
        sys.exit(f"warpsmith simulated {t['cycles']} cycles from the text of {w} but {a['cycles']} from its packed copy")
    ratio = lambda x: (x["cycles_per_cpu_second"] / b["cycles_per_cpu_second"]
                       if x["cycles_per_cpu_second"] and b["cycles_per_cpu_second"] else None)
    results["workloads"][w] = {"warpsmith_text": t, "warpsmith_packed": a, "microgpusim": b,
                               "ratio_text": ratio(t), "ratio_packed": ratio(a)}
    f = lambda x, p: "n/a" if x is None else f"{x:,.{p}f}"
    rows = [("simulated cycles", f"{t['cycles']:,}", f"{a['cycles']:,}", f"{b['cycles']:,}"),
            ("CPU s, median", f(t["cpu_seconds_median"], 3), f(a["cpu_seconds_median"], 3), f(b["cpu_seconds_median"], 3)),
            ("CPU s, runs", *(" ".join(f"{c:.3f}" for c in x["cpu_seconds"]) for x in (t, a, b))),
            ("simulated cycles per CPU-second", *(f(x["cycles_per_cpu_second"], 0) for x in (t, a, b))),
            ("peak RSS, MiB", *(f(x["peak_rss_kib"] / 1024, 1) for x in (t, a, b))),
            ("**ratio**, warpsmith cycles/s ÷ microgpusim cycles/s", f"**{f(ratio(t), 2)}**",
             f"**{f(ratio(a), 2)}**", "")]
    tables.append(f"### {w}\n\n| | warpsmith, trace text | warpsmith, packed copy | microgpusim |\n|---|---:|---:|---:|\n"
                  + "\n".join(f"| {' | '.join(r)} |" for r in rows) + "\n")
with open(f"{out}/results.json", "w") as fh:
    json.dump(results, fh, indent=2)
    fh.write("\n")
print(f"warpsmith `run --preset {preset}` ({ws}) against microgpusim {commit[:8]} (gpucachesim), "
      f"{sms} SMs, {runs} alternating turn(s), warpsmith {repeat} run(s) a turn, each pinned to CPU {cpu}; "
      f"CPU s = user+sys of the simulator\n")
print("\n".join(tables))
print(f"figures in {out}/results.json")
EOF
