#!/usr/bin/env bash
# Jobs per hour of `warpsmith regress --list smoke` at -j 1 and -j 2, in one sitting: a warm-up
# run (builds every model into the cache), then RUNS alternating runs of each; prints each wall
# time and the median speed-up. Usage: scripts/regress-scaling.sh [RUNS] (default 3).
#   WARPSMITH_BIN=/path/to/warpsmith   the binary (default target/release/warpsmith)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${WARPSMITH_BIN:-$PWD/target/release/warpsmith}
RUNS=${1:-3}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
"$BIN" regress --list smoke -j 2 --out "$OUT/warm" >/dev/null
JOBS=$(wc -l < "$OUT/warm/results.jsonl")
declare -A T
for i in $(seq "$RUNS"); do
  for j in 1 2; do
    s=$(date +%s.%N)
    "$BIN" regress --list smoke -j "$j" --out "$OUT/j$j-$i" >/dev/null
    e=$(date +%s.%N)
    T[$j-$i]=$(echo "$e - $s" | bc)
    echo "run $i  -j $j  ${T[$j-$i]} s  ($JOBS jobs)"
  done
done
med() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
m1=$(med $(for i in $(seq "$RUNS"); do echo "${T[1-$i]}"; done))
m2=$(med $(for i in $(seq "$RUNS"); do echo "${T[2-$i]}"; done))
echo "median -j 1 $m1 s, -j 2 $m2 s: -j 2 runs $(echo "scale=2; $m1 / $m2" | bc)x the jobs per hour of -j 1"
