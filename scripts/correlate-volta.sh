#!/usr/bin/env bash
# The V100 correlation of issue 39: the 15 kernels of AccelWattch's V100 counter table
# (../shared/reference/hardware/volta-v100-kernels.csv) run by `warpsmith correlate` on the V100
# configuration configs/volta-v100.toml, with the arguments of the table's runs (SOURCES.md
# beside it).
#
#   scripts/correlate-volta.sh [OUT_DIR] [-- EXTRA correlate ARGS]
#
# OUT_DIR (default target/correlate-volta) receives report.json, one SVG plot per metric and
# gpgpusim-stats.txt; the text report is printed and kept as OUT_DIR/report.txt. About an hour
# on one core (parboil-sad's 6.5 million-cycle kernel is most of it).
#
# The workloads and their arguments are scripts/volta-workloads.txt. Each kernel starts with cold
# caches (`--cache-control all`, decision GPU-33), as under the Nsight Compute runs that
# measured the table, so a kernel's per-launch figures do not depend on how many launches came
# before it, and fewer launches than the table's runs suffice.
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/correlate-volta
if [[ $# -gt 0 && $1 != -- ]]; then out=$1; shift; fi
[[ ${1:-} == -- ]] && shift
bin=${WARPSMITH_BIN:-target/release/warpsmith}
[[ -x $bin ]] || cargo build --quiet --release
workloads=()
while read -r w; do
  w=${w%%#*}
  if [[ -n ${w// /} ]]; then workloads+=("${w// /}"); fi
done <scripts/volta-workloads.txt
args=()
for w in "${workloads[@]}"; do args+=(--workload "$w"); done
mkdir -p "$out"
"$bin" correlate --preset turing-rtx2060s --config configs/volta-v100.toml --cache-control all \
  --hardware ../shared/reference/hardware/volta-v100-kernels.csv \
  "${args[@]}" --out "$out" "$@" | tee "$out/report.txt"
