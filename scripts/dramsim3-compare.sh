#!/usr/bin/env bash
# Side-by-side measurement of warpsmith's DRAM model against DRAMsim3 on the matched GDDR6
# configuration of ../shared/reference/dramsim3-matched/ (2 channels x 16 banks in 4 groups,
# 1 KB rows, 64 B requests, the turing-rtx2060s timing in command-clock cycles).
#
#   scripts/dramsim3-compare.sh [--requests N] [--runs R] [--out DIR]
#
# Builds DRAMsim3 (umd-memsys/DRAMsim3 at the kit's commit, with -O3 -DNDEBUG) into
# .tools/dramsim3 (cloned from DRAMSIM3_GIT, default GitHub) unless DRAMSIM3 names a
# `dramsim3main` binary; writes the kit's two traces
# (random over 1 GiB and a sequential stream, ~95 % of the random-row service rate); runs
# warpsmith (FR-FCFS, `golden --block mc --format json`) and DRAMsim3 on each, alternately,
# R times; and prints requests per CPU-second (medians), their ratio, bandwidth and mean read
# latency (arrival to the end of the data) of both. Needs git, g++, make, python3 and a built
# warpsmith (`cargo build --release`); WARPSMITH overrides the binary.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
requests=1000000
runs=3
out=target/dramsim3-compare
while [ $# -gt 0 ]; do
  case "$1" in
    --requests) requests=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
kit=${KIT:-$root/../shared/reference/dramsim3-matched}
[ -f "$kit/gen.py" ] || { echo "the DRAMsim3 kit is not at $kit (set KIT)" >&2; exit 2; }
ws=${WARPSMITH:-$root/target/release/warpsmith}
[ -x "$ws" ] || { echo "no warpsmith binary at $ws: run cargo build --release (or set WARPSMITH)" >&2; exit 2; }
commit=2981759
if [ -z "${DRAMSIM3:-}" ]; then
  src=$root/.tools/dramsim3
  if [ ! -x "$src/dramsim3main.out" ]; then
    if [ ! -d "$src/.git" ]; then
      git clone --quiet "${DRAMSIM3_GIT:-https://github.com/umd-memsys/DRAMsim3.git}" "$src"
    fi
    git -C "$src" checkout --quiet "$commit"
    inc="-Isrc/ -Iext/fmt/include -Iext/headers"
    make -C "$src" -j2 dramsim3main.out CXXFLAGS="-O3 -DNDEBUG -fPIC -std=c++11 $inc -DFMT_HEADER_ONLY=1" \
      >"$src/build.log" 2>&1 || { echo "DRAMsim3 did not build: see $src/build.log" >&2; exit 1; }
  fi
  DRAMSIM3=$src/dramsim3main.out
fi
mkdir -p "$out"
cd "$out"
# The matched warpsmith configuration (the kit's README).
cfg=(--preset turing-rtx2060s --set dram.channels=2 --set dram.atom_bytes=64
  --set dram.address_map=00000000.00000000.00000000.00000000.00RRRRRR.RRRRRRRR.RBBBBDCC.CCSSSSSS
  --set mc.scheduler=frfcfs)
# ~95 % load: saturated, warpsmith serves random rows at one request per 7.6 cycles on the two
# channels and a stream at one per 2.25 cycles.
declare -A period=([random]=8 [stream]=2.37)
for kind in random stream; do
  [ -f "$kind.jsonl" ] && [ "$(wc -l < "$kind.jsonl")" -eq "$requests" ] ||
    python3 "$kit/gen.py" --n "$requests" --period "${period[$kind]}" "$kind" "$kind" >/dev/null
done
for kind in random stream; do
  # Simulated cycles (for DRAMsim3's -c) and figures from one warpsmith run.
  "$ws" golden --block mc "${cfg[@]}" --stimulus "$kind.jsonl" > "$kind.ws.txt"
  "$ws" golden --block mc "${cfg[@]}" --stimulus "$kind.jsonl" --format json > "$kind.ws.json"
  cycles=$(python3 -c "import json,sys; print(json.load(open('$kind.ws.json'))['cycles'])")
  dcycles=$(( cycles + cycles / 20 + 10000 ))
  : > "$kind.times"
  mkdir -p "ds3-$kind"
  for i in $(seq "$runs"); do
    w=$( { /usr/bin/time -f '%U %M' "$ws" golden --block mc "${cfg[@]}" --stimulus "$kind.jsonl" --format json >/dev/null; } 2>&1 | tail -1)
    d=$( { /usr/bin/time -f '%U %M' "$DRAMSIM3" "$kit/matched_gddr6_2ch.ini" -c "$dcycles" -t "$kind.trace" -o "ds3-$kind" >/dev/null; } 2>&1 | tail -1)
    echo "$i $w $d" >> "$kind.times"
  done
done
python3 - "$requests" <<'EOF'
import json, statistics, sys
n = int(sys.argv[1])
clock_ghz = 3.5  # command clock of the matched configuration
print(f"{n} requests per trace; CPU user seconds, medians of the alternating runs")
print(f"{'trace':7} {'warpsmith s':>11} {'DRAMsim3 s':>10} {'ratio':>6}  {'ws MB':>6} {'ds3 MB':>6}  "
      f"{'ws GB/s':>8} {'ds3 GB/s':>8}  {'ws lat':>7} {'ds3 lat':>7}")
for kind in ["random", "stream"]:
    rows = [l.split() for l in open(f"{kind}.times")]
    ws = statistics.median(float(r[1]) for r in rows)
    ds = statistics.median(float(r[3]) for r in rows)
    ws_mb = max(int(r[2]) for r in rows) / 1024
    ds_mb = max(int(r[4]) for r in rows) / 1024
    summary = json.load(open(f"{kind}.ws.json"))
    ws_bw = n * 64 / (summary["cycles"] / clock_ghz)  # bytes per ns = GB/s
    lat = [int(l.split()[10]) for l in open(f"{kind}.ws.txt")
           if not l.startswith("#") and l.split()[8] == "0"]
    ws_lat = sum(lat) / len(lat)
    d = json.load(open(f"ds3-{kind}/dramsim3.json"))
    chans = [v for v in d.values() if isinstance(v, dict)]
    ds_bw = sum(c["average_bandwidth"] for c in chans)
    reads = [c["num_reads_done"] for c in chans]
    ds_lat = sum(c["average_read_latency"] * r for c, r in zip(chans, reads)) / max(sum(reads), 1)
    print(f"{kind:7} {ws:11.2f} {ds:10.2f} {ds / ws:6.1f}  {ws_mb:6.1f} {ds_mb:6.1f}  "
          f"{ws_bw:8.2f} {ds_bw:8.2f}  {ws_lat:7.1f} {ds_lat:7.1f}")
print("ratio: warpsmith requests per CPU-second over DRAMsim3's (target >= 10)")
EOF
