#!/usr/bin/env bash
# Speed of two warpsmith builds side by side, in one sitting: each workload is run by build A,
# then build B, alternately, R times each (pinned to one CPU with taskset), and the medians of
# their CPU seconds (user + sys) are compared. Outputs are compared too: a workload whose
# output differs between the builds (wall-clock fields removed) stops the script (exit 1).
#
#   scripts/speed-ab.sh OLD_BIN NEW_BIN [--runs R] [--repeat K] [--only NAME] [--out FILE]
#
# A measurement is K runs of the workload in a row (default 10: most runs take a fraction of
# a second), its CPU time their sum.
# Workloads (turing-rtx2060s unless named):
#   run/vectoradd     `run --trace` on scripts/vectoradd-trace.py's trace of 500,000 elements
#                     (microgpusim's vectoradd --length 500000 reconstruction, the same shape)
#   run/matmul3d, run/stencil2d, run/irregular    `run --kernel` (built-in kernels)
#   run/stencil2d+mt-hwp, run/stencil2d+two-level  the same under a prefetcher / a scheduler
#   bench/ROW         `bench --block warped-mc --format json`: the memory system's throughput
#                     per DRAM scheduler and of the memory side (requests per second of its
#                     fastest run; B/A is then A's time over B's, so below 1 is slower too)
#   golden-mc/SCHED   `golden --block mc --stimulus moa --cycles 300000` per DRAM scheduler
# Prints one markdown table (median CPU seconds of A and B, B/A) and writes it to FILE
# (default target/speed-ab.md). Needs python3 and taskset.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { sed -n '2,19p' "$0"; exit 2; }
A=$1 B=$2; shift 2
runs=5 repeat=10 only="" out=target/speed-ab.md
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=${2:?--runs needs a value}; shift 2 ;;
    --repeat) repeat=${2:?--repeat needs a value}; shift 2 ;;
    --only) only=${2:?--only needs a value}; shift 2 ;;
    --out) out=${2:?--out needs a value}; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
for b in "$A" "$B"; do [ -x "$b" ] || { echo "not an executable: $b" >&2; exit 2; }; done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export WARPSMITH_CACHE_DIR=${WARPSMITH_CACHE_DIR:-$tmp/cache}
python3 scripts/vectoradd-trace.py 500000 "$tmp/vectoradd" > /dev/null
P=(--preset turing-rtx2060s)
declare -A W=(
  [run/vectoradd]="run ${P[*]} --trace $tmp/vectoradd --no-trace-cache --format json"
  [run/matmul3d]="run ${P[*]} --kernel matmul3d --format json"
  [run/stencil2d]="run ${P[*]} --kernel stencil2d --format json"
  [run/irregular]="run ${P[*]} --kernel irregular --format json"
  [run/stencil2d+mt-hwp]="run ${P[*]} --kernel stencil2d --set prefetch.kind=mt-hwp --format json"
  [run/stencil2d+two-level]="run ${P[*]} --kernel stencil2d --set gpu.scheduler=two-level --format json"
)
for s in fcfs frfcfs warped divfirst; do
  W[golden-mc/$s]="golden --block mc ${P[*]} --stimulus moa --cycles 300000 --set mc.scheduler=$s --format json"
done
strip() { python3 scripts/strip-clock.py; }
# CPU seconds of $repeat runs in a row (user + sys), the last one's output kept in $tmp/out.
cpu() {
  local bin=$1; shift
  local total=0 k
  for ((k = 0; k < repeat; k++)); do
    /usr/bin/time -f '%U %S' -o "$tmp/time" taskset -c "${CPU:-1}" "$bin" "$@" \
      > "$tmp/out" 2> "$tmp/err" || { echo "failed: $bin $*" >&2; tail -5 "$tmp/err" >&2; exit 1; }
    total=$(awk -v t="$total" '{print t + $1 + $2}' "$tmp/time")
  done
  echo "$total"
}
median() { python3 -c 'import statistics, sys; print(statistics.median(map(float, sys.argv[1:])))' "$@"; }
{
  echo "| workload | A median s | B median s | B/A | runs |"
  echo "|---|---|---|---|---|"
} > "$tmp/table"
for name in $(printf '%s\n' "${!W[@]}" | sort); do
  [ -z "$only" ] || [ "$only" = "$name" ] || continue
  read -ra cmd <<< "${W[$name]}"
  ta=() tb=()
  for ((r = 0; r < runs; r++)); do
    ta+=("$(cpu "$A" "${cmd[@]}")"); strip < "$tmp/out" > "$tmp/a.json"
    tb+=("$(cpu "$B" "${cmd[@]}")"); strip < "$tmp/out" > "$tmp/b.json"
    cmp -s "$tmp/a.json" "$tmp/b.json" || { echo "$name: the builds' outputs differ" >&2; exit 1; }
  done
  ma=$(median "${ta[@]}") mb=$(median "${tb[@]}")
  ratio=$(python3 -c "print(f'{$mb / $ma:.3f}' if $ma > 0 else 'n/a')")
  line="| $name | $ma | $mb | $ratio | A: ${ta[*]}; B: ${tb[*]} |"
  echo "$line" >> "$tmp/table"
  echo "$line" >&2
done
if [ -z "$only" ] || [ "${only%%/*}" = bench ]; then
  for ((r = 0; r < runs; r++)); do
    for side in a b; do
      bin=$A; [ $side = a ] || bin=$B
      taskset -c "${CPU:-1}" "$bin" bench --block warped-mc "${P[@]}" --cycles 20000 --format json \
        > "$tmp/bench-$side-$r.json" 2> "$tmp/err" || [ $? = 1 ] \
        || { echo "bench failed: $bin" >&2; tail -5 "$tmp/err" >&2; exit 1; }
    done
  done
  python3 - "$tmp" "$runs" >> "$tmp/table" <<'PY'
import json, statistics, sys
tmp, runs = sys.argv[1], int(sys.argv[2])
rows = {}
for side in "ab":
    for r in range(runs):
        for row in json.load(open(f"{tmp}/bench-{side}-{r}.json"))["system"]:
            rows.setdefault(row["what"], {"a": [], "b": []})[side].append(row["requests_per_second"])
for what, v in rows.items():
    ma, mb = statistics.median(v["a"]), statistics.median(v["b"])
    # Throughput: B/A as a time ratio (A's rate over B's), comparable with the rows above.
    print(f"| bench/{what} | {1/ma:.3e} s/req | {1/mb:.3e} s/req | {ma/mb:.3f} | "
          f"A: {' '.join(f'{x:,.0f}' for x in v['a'])}; B: {' '.join(f'{x:,.0f}' for x in v['b'])} req/s |")
PY
fi
mkdir -p "$(dirname "$out")"
cp "$tmp/table" "$out"
cat "$out"
