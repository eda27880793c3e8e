#!/usr/bin/env bash
# Side-by-side measurement of warpsmith's DRAM model against DRAMsim3 on the matched GDDR6
# configuration of ../shared/reference/dramsim3-matched/ (2 channels x 16 banks in 4 groups,
# 1 KB rows, 64 B requests, the turing-rtx2060s timing in command-clock cycles).
#
#   scripts/dramsim3-compare.sh [--requests N] [--runs R] [--out DIR]
#
# Builds DRAMsim3 (umd-memsys/DRAMsim3 at the kit's commit, cloned from DRAMSIM3_GIT, default
# GitHub, into .tools/dramsim3) twice:
#   kit     as the kit says and DRAMsim3's README does: CMake, Release (-O3 -DNDEBUG), the
#           simulator a shared library that dramsim3main links; cmake from PATH, else Debian's
#           package (as root), else the pinned PyPI wheel into .tools/cmake;
#   static  one executable from its Makefile with -O3 -DNDEBUG: the library's calls inlined
#           across files, about a tenth faster than the kit build.
# DRAMSIM3_KIT and DRAMSIM3 name prebuilt `dramsim3main` binaries of each instead. Writes the
# kit's two traces (random over 1 GiB and a sequential stream, ~95 % of the random-row service
# rate); runs warpsmith (FR-FCFS, `golden --block mc --format json`) and both DRAMsim3 builds
# on each, alternately, R times; and prints requests per CPU-second (medians), their ratios,
# bandwidth and mean read latency (arrival to the end of the data) of both simulators. Needs
# git, g++, make, python3 and a built warpsmith (`cargo build --release`); WARPSMITH overrides
# the binary.
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
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
kit=${KIT:-$root/../shared/reference/dramsim3-matched}
[ -f "$kit/gen.py" ] || { echo "the DRAMsim3 kit is not at $kit (set KIT)" >&2; exit 2; }
ws=${WARPSMITH:-$root/target/release/warpsmith}
[ -x "$ws" ] || { echo "no warpsmith binary at $ws: run cargo build --release (or set WARPSMITH)" >&2; exit 2; }
commit=2981759
CMAKE_WHEEL=3.31.6
src=$root/.tools/dramsim3
checkout() {
  if [ ! -d "$src/.git" ]; then
    git clone --quiet "${DRAMSIM3_GIT:-https://github.com/umd-memsys/DRAMsim3.git}" "$src"
  fi
  git -C "$src" checkout --quiet "$commit"
}
if [ -z "${DRAMSIM3:-}" ]; then
  if [ ! -x "$src/dramsim3main.out" ]; then
    checkout
    inc="-Isrc/ -Iext/fmt/include -Iext/headers"
    make -C "$src" -j2 dramsim3main.out CXXFLAGS="-O3 -DNDEBUG -fPIC -std=c++11 $inc -DFMT_HEADER_ONLY=1" \
      >"$src/build.log" 2>&1 || { echo "DRAMsim3 did not build: see $src/build.log" >&2; exit 1; }
  fi
  DRAMSIM3=$src/dramsim3main.out
fi
if [ -z "${DRAMSIM3_KIT:-}" ]; then
  if [ ! -x "$src/build-kit/dramsim3main" ]; then
    checkout
    cmake=$(command -v cmake || true)
    if [ -z "$cmake" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cmake >/dev/null 2>&1 || true
      cmake=$(command -v cmake || true)
    fi
    if [ -z "$cmake" ]; then
      [ -x "$root/.tools/cmake/cmake/data/bin/cmake" ] ||
        python3 -m pip install --quiet --target "$root/.tools/cmake" "cmake==$CMAKE_WHEEL" >/dev/null 2>&1 ||
        { echo "cmake is missing and could not be installed (Debian package or PyPI cmake==$CMAKE_WHEEL)" >&2; exit 1; }
      cmake=$root/.tools/cmake/cmake/data/bin/cmake
    fi
    { "$cmake" -S "$src" -B "$src/build-kit" -DCMAKE_BUILD_TYPE=Release &&
      "$cmake" --build "$src/build-kit" -j2 --target dramsim3main; } >"$src/build-kit.log" 2>&1 ||
      { echo "DRAMsim3 (CMake) did not build: see $src/build-kit.log" >&2; exit 1; }
  fi
  DRAMSIM3_KIT=$src/build-kit/dramsim3main
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
  mkdir -p "ds3-$kind" "ds3kit-$kind"
  for i in $(seq "$runs"); do
    w=$( { /usr/bin/time -f '%U %M' "$ws" golden --block mc "${cfg[@]}" --stimulus "$kind.jsonl" --format json >/dev/null; } 2>&1 | tail -1)
    d=$( { /usr/bin/time -f '%U %M' "$DRAMSIM3" "$kit/matched_gddr6_2ch.ini" -c "$dcycles" -t "$kind.trace" -o "ds3-$kind" >/dev/null; } 2>&1 | tail -1)
    k=$( { /usr/bin/time -f '%U %M' "$DRAMSIM3_KIT" "$kit/matched_gddr6_2ch.ini" -c "$dcycles" -t "$kind.trace" -o "ds3kit-$kind" >/dev/null; } 2>&1 | tail -1)
    echo "$i $w $d $k" >> "$kind.times"
  done
done
python3 - "$requests" <<'EOF'
import json, statistics, sys
n = int(sys.argv[1])
clock_ghz = 3.5  # command clock of the matched configuration
print(f"{n} requests per trace; CPU user seconds, medians of the alternating runs")
print("DRAMsim3 kit: CMake Release (the kit's build); static: one -O3 executable (faster)")
print(f"{'trace':7} {'warpsmith s':>11} {'kit s':>6} {'ratio':>6} {'static s':>8} {'ratio':>6}  "
      f"{'ws MB':>6} {'ds3 MB':>6}  {'ws GB/s':>8} {'ds3 GB/s':>8}  {'ws lat':>7} {'ds3 lat':>7}")
for kind in ["random", "stream"]:
    rows = [l.split() for l in open(f"{kind}.times")]
    ws = statistics.median(float(r[1]) for r in rows)
    ds = statistics.median(float(r[3]) for r in rows)
    dk = statistics.median(float(r[5]) for r in rows)
    ws_mb = max(int(r[2]) for r in rows) / 1024
    ds_mb = max(int(r[4]) for r in rows) / 1024
    summary = json.load(open(f"{kind}.ws.json"))
    ws_bw = n * 64 / (summary["cycles"] / clock_ghz)  # bytes per ns = GB/s
    lat = [int(l.split()[10]) for l in open(f"{kind}.ws.txt")
           if not l.startswith("#") and l.split()[8] == "0"]
    ws_lat = sum(lat) / len(lat)
    figures = []
    for d in [f"ds3-{kind}", f"ds3kit-{kind}"]:
        j = json.load(open(f"{d}/dramsim3.json"))
        chans = [v for v in j.values() if isinstance(v, dict)]
        reads = [c["num_reads_done"] for c in chans]
        figures.append((sum(c["average_bandwidth"] for c in chans),
                        sum(c["average_read_latency"] * r for c, r in zip(chans, reads))
                        / max(sum(reads), 1)))
    # (Both builds simulate alike: their figures must agree.)
    assert all(abs(a - b) <= 1e-6 * max(abs(a), 1) for a, b in zip(*figures)), figures
    ds_bw, ds_lat = figures[0]
    print(f"{kind:7} {ws:11.2f} {dk:6.2f} {dk / ws:6.1f} {ds:8.2f} {ds / ws:6.1f}  "
          f"{ws_mb:6.1f} {ds_mb:6.1f}  {ws_bw:8.2f} {ds_bw:8.2f}  {ws_lat:7.1f} {ds_lat:7.1f}")
print("ratio: warpsmith requests per CPU-second over DRAMsim3's (target >= 10)")
EOF
