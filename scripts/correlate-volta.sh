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
# Each kernel starts with cold caches (`--cache-control all`, decision GPU-33), as under the
# Nsight Compute runs that measured the table, so a kernel's per-launch figures do not depend
# on how many launches came before it: where an application repeats a kernel many times, fewer
# launches are run (srad_v1 2 iterations of the table's 100, dct8x8 and quasirandomGenerator
# the sample's warm-up launch only); the table's rows are means over launches.
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/correlate-volta
if [[ $# -gt 0 && $1 != -- ]]; then out=$1; shift; fi
[[ ${1:-} == -- ]] && shift
bin=${WARPSMITH_BIN:-target/release/warpsmith}
[[ -x $bin ]] || cargo build --quiet --release
workloads=(
  # Rodinia 3.1: b+tree `file mil.txt command command.txt` (j 6000 3000, k 10000).
  "b+tree:keys=1000000,j=6000,k=10000"
  "backprop:in=65536"
  "hotspot:size=1024,pyramid=2,iterations=2"
  "srad_v1:iterations=2,lambda=0.5,rows=502,cols=458"
  # Parboil: sad `large` (1920 x 1072), mri-q `large` (64_64_64: 262,144 voxels, 2,048 samples).
  "sad:width=1920,height=1072"
  "mri-q:numx=262144,numk=2048"
  # CUDA 11.0 samples, default arguments.
  "dct8x8"
  "binomialoptions:options=1024"
  "fastwalshtransform:log2data=23"
  "quasirandomgenerator:n=1048576"
)
args=()
for w in "${workloads[@]}"; do args+=(--workload "$w"); done
mkdir -p "$out"
"$bin" correlate --preset turing-rtx2060s --config configs/volta-v100.toml --cache-control all \
  --hardware ../shared/reference/hardware/volta-v100-kernels.csv \
  "${args[@]}" --out "$out" "$@" | tee "$out/report.txt"
