#!/usr/bin/env bash
# Behaviour fingerprint: one SHA-256 per run of the golden models, the cost model and the RTL
# generator, over every preset. Two builds behave the same where their fingerprints are equal.
#
#   scripts/fingerprint.sh                     # build this tree, print "name hash" lines
#   scripts/fingerprint.sh --check FILE        # ... and compare with a recorded list (exit 1 on a difference;
#                                              # runs the list lacks are reported as new, not compared)
#   WARPSMITH_BIN=/path/to/warpsmith scripts/fingerprint.sh   # fingerprint another build
#
# What is hashed (wall-clock fields, config hashes and reports' provenance removed -- a config
# hash names the whole configuration, which gains keys as the model grows, and a provenance says
# where a result comes from: scripts/strip-clock.py; nothing else is normalised):
#   ot/P/S        `golden --block ot` responses and final table (--dump-state), 20,000 cycles
#   mc/P/S/SCHED  `golden --block mc`: every request's completion (text), the JSON summary and the
#                 DRAM command trace (--command-trace), 30,000 cycles of HOA, MOA and stress traffic
#   memory/P/S/SCHED  `golden --block memory --format json`: the memory side's closed loop (32 requests
#                 per port), 30,000 cycles' worth of HOA, MOA and stress traffic
#   dispatch/P/K/POLICY  `golden --block dispatch --format json`: the dispatch order, shared lines
#   cost/P        `cost --format json` of every block
#   rtl/P/B       the code lines of the generated SystemVerilog (comments and blank lines removed)
#   run/P/W/V     `run --format json`: the GPU on every built-in kernel and on the reference,
#                 built-in and generated traces, under variants V: every warp scheduler, DRAM
#                 scheduler, dispatch policy, prefetcher and address predictor (each set alone
#                 over the preset)
# Inputs are this tree's files (tests/data), so a build of another commit is fingerprinted on
# the same inputs when WARPSMITH_BIN points at it.
set -euo pipefail
cd "$(dirname "$0")/.."
check=""
if [ "${1:-}" = "--check" ]; then
  check=${2:?--check needs a file}
fi
if [ -z "${WARPSMITH_BIN:-}" ]; then
  cargo build --release --quiet
  WARPSMITH_BIN=$PWD/target/release/warpsmith
fi
BIN=$WARPSMITH_BIN
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# JSON on stdin with wall-clock fields removed, canonical key order.
strip_json() { python3 scripts/strip-clock.py; }
# A JSON-lines stream on stdin without its provenance line.
strip_lines() { python3 scripts/strip-clock.py --lines; }

# SystemVerilog code lines of the files named on the command line (in order).
code_lines() {
  python3 -c '
import re, sys
for path in sys.argv[1:]:
    for line in open(path):
        line = re.sub(r"//.*$", "", line).rstrip()
        if line.strip():
            print(line)
' "$@"
}

h() { sha256sum | cut -c1-16; }
out=$tmp/fingerprint.txt
: > "$out"
emit() { printf '%s %s\n' "$1" "$2" | tee -a "$out"; }

PRESETS="fermi-gtx480 turing-rtx2060s tiny"
for p in $PRESETS; do
  for s in random kernel:all tests/data/fig6.jsonl; do
    hash=$("$BIN" golden --block ot --preset "$p" --stimulus "$s" --cycles 20000 --seed 3 --dump-state \
      | strip_lines | h)
    emit "ot/$p/$(basename "$s")" "$hash"
  done
done

for p in $PRESETS; do
  for s in hoa moa random; do
    for sched in fcfs frfcfs warped divfirst; do
      args=(golden --block mc --preset "$p" --stimulus "$s" --cycles 30000 --seed 3 --set "mc.scheduler=$sched")
      text=$("$BIN" "${args[@]}" --command-trace "$tmp/cmds.csv" | h)
      trace=$(h < "$tmp/cmds.csv")
      json=$("$BIN" "${args[@]}" --format json | strip_json | h)
      emit "mc/$p/$s/$sched" "$text-$json-$trace"
    done
  done
done

for p in $PRESETS; do
  for s in hoa moa random; do
    for sched in fcfs frfcfs warped divfirst; do
      hash=$("$BIN" golden --block memory --preset "$p" --stimulus "$s" --cycles 30000 --seed 3 \
        --outstanding 32 --set "mc.scheduler=$sched" --format json | strip_json | h)
      emit "memory/$p/$s/$sched" "$hash"
    done
  done
done

for p in $PRESETS; do
  for k in colmajor rowmajor; do
    for pol in rr bcs locality map-x map-y map-auto; do
      hash=$("$BIN" golden --block dispatch --preset "$p" --kernel "$k" --seed 3 \
        --set "dispatch.policy=$pol" --format json | strip_json | h)
      emit "dispatch/$p/$k/$pol" "$hash"
    done
  done
done

for p in $PRESETS; do
  emit "cost/$p" "$("$BIN" cost --preset "$p" --format json | strip_json | h)"
done

for p in $PRESETS; do
  "$BIN" generate --preset "$p" --out "$tmp/rtl-$p" > /dev/null
  for b in ot warped-mc dispatch mt-hwp lws; do
    emit "rtl/$p/$b" "$(code_lines "$tmp/rtl-$p/$b"/*.sv | h)"
  done
done

TRACES="golden/tests-data/accelsim-traces/rodinia2-lud-kernel8-volta-legacy-format
golden/tests-data/accelsim-traces/pytorch-pow-kernel593-tracer-v5-excerpt/kernel-593-ctx_0x55c28dad19e0.traceg.excerpt-TB0-TB1
golden/kernels/gpu/lonestores $tmp/vectoradd"
python3 scripts/vectoradd-trace.py 100000 "$tmp/vectoradd" > /dev/null
KERNELS="cp scalarprod stencil2d irregular matmul3d lonewarp otedge pfstream rowmajor colmajor nolocality"
for p in $PRESETS; do
  for w in $KERNELS $TRACES; do
    case $w in
      */*) input=(--trace "$w" --no-trace-cache); name=$(basename "$w" | cut -c1-24) ;;
      *) input=(--kernel "$w" --seed 3); name=$w ;;
    esac
    for v in default gpu.scheduler=lrr gpu.scheduler=gto gpu.scheduler=two-level \
      gpu.scheduler=cta-aware gpu.scheduler=programmable gpu.scheduler=locality \
      gpu.scheduler=ccws predictor.kind=cta-aware ot.lec=false \
      prefetch.kind=mt-hwp prefetch.kind=stridepc prefetch.kind=pws-gs prefetch.kind=pws-ip \
      prefetch.kind=stream prefetch.kind=ghb \
      mc.scheduler=fcfs mc.scheduler=frfcfs mc.scheduler=warped mc.scheduler=divfirst \
      dispatch.policy=rr dispatch.policy=bcs dispatch.policy=locality dispatch.policy=map-x \
      dispatch.policy=map-y dispatch.policy=map-auto; do
      sets=()
      [ "$v" = default ] || sets=(--set "$v")
      # The locality policy runs built-in kernels only (a trace has no access ranges).
      case "$w:$v" in */*:dispatch.policy=locality) continue ;; esac
      # A run that is refused is fingerprinted by its exit code and message.
      if json=$("$BIN" run --preset "$p" "${input[@]}" "${sets[@]}" --format json 2>"$tmp/err"); then
        hash=$(strip_json <<< "$json" | h)
      else
        hash=$( (echo "exit $?"; cat "$tmp/err") | h)
      fi
      emit "run/$p/$name/$v" "$hash"
    done
  done
done

echo "runs: $(wc -l < "$out")"
if [ -n "$check" ]; then
  # Runs the recorded list has are compared; runs it lacks (added since) are listed as new.
  python3 - "$check" "$out" <<'EOF'
import sys
def runs(path):
    skip = ("#", "runs:", "fingerprint:")
    return dict(l.split(" ", 1) for l in open(path).read().splitlines() if l and not l.startswith(skip))
ref, now = runs(sys.argv[1]), runs(sys.argv[2])
new = [n for n in now if n not in ref]
missing = [n for n in ref if n not in now]
differ = [n for n in ref if n in now and ref[n] != now[n]]
if new:
    more = " ..." if len(new) > 4 else ""
    print(f"fingerprint: {len(new)} runs not in {sys.argv[1]} (not compared): {' '.join(new[:4])}{more}")
if differ or missing:
    same = len(ref) - len(differ) - len(missing)
    print(f"fingerprint: DIFFERS from {sys.argv[1]}: {same} identical, {len(differ)} differ, {len(missing)} missing")
    for n in differ:
        print(f"  {n}: {ref[n]} -> {now[n]}")
    for n in missing:
        print(f"  {n}: missing")
    sys.exit(1)
print(f"fingerprint: the {len(ref)} runs of {sys.argv[1]} are identical")
EOF
fi
