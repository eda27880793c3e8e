#!/usr/bin/env bash
# Prove with Yosys that this tree's generated RTL behaves exactly as another build's.
#
#   scripts/rtl-equiv.sh OLD_BIN                  # every block x preset, vs. this tree's build
#   scripts/rtl-equiv.sh OLD_BIN NEW_BIN          # two given builds
#   BLOCKS="ot mt-hwp" PRESETS=tiny scripts/rtl-equiv.sh OLD_BIN
#   EQUIV_TIMEOUT=3600 scripts/rtl-equiv.sh OLD_BIN   # seconds per block x preset (default 1800)
#
# Each build generates every preset's RTL (`generate --preset P --out DIR`). Per block and
# preset, both designs are read with the slang front-end (the native Yosys of `pyosys` that
# scripts/setup.sh installs), their assertions removed (`chformal -remove`, as synthesis does),
# elaborated (`proc`), flattened (primitives inlined), asynchronous resets made synchronous
# (`async2sync`) and memories cut out (their read data shared by both designs, their ports
# compared: `cut_memories` below says why that is sound); registers that moved into a primitive are
# renamed to their old names (RENAMES below) so that state lines up. Then
#   equiv_make gold gate equiv; opt_merge; equiv_struct; equiv_induct; equiv_status -assert
# proves every signal matched by name (every output and register, and the wires between) equal
# in every cycle from any state in which the registers are equal (so from reset): the designs
# are equivalent, not merely equal on some runs. opt_merge only shares identical cells, and
# equiv_struct merges the gold and gate cells that are identical given equal inputs (what did
# not change), so that the induction's SAT problem holds only what did change; equiv_simple,
# which proves each signal from its own cone one cycle back, took hours on the blocks'
# arithmetic. A line per block and preset
# says `proven`, `NOT PROVEN` (with the unproven signals in its log) or `timeout`; the logs are
# kept in $EQUIV_OUT (default: a temporary folder, printed). Exit 0 only when all are proven.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OLD_BIN=${1:?usage: scripts/rtl-equiv.sh OLD_BIN [NEW_BIN]}
NEW_BIN=${2:-}
if [ -z "$NEW_BIN" ]; then
  cargo build --release --quiet
  NEW_BIN=$ROOT/target/release/warpsmith
fi
PY=$ROOT/.tools/yosys/bin/python
"$PY" -c 'from pyosys import libyosys' 2>/dev/null ||
  { echo "rtl-equiv: the native Yosys (pyosys) is missing: run scripts/setup.sh" >&2; exit 2; }
PRESETS=${PRESETS:-fermi-gtx480 turing-rtx2060s tiny}
BLOCKS=${BLOCKS:-ot mt-hwp warped-mc dispatch}
TIMEOUT=${EQUIV_TIMEOUT:-1800}
OUT=${EQUIV_OUT:-$(mktemp -d)}
export EQUIV_OUT=$OUT
mkdir -p "$OUT"
export WARPSMITH_CACHE_DIR=${WARPSMITH_CACHE_DIR:-$OUT/cache}

for p in $PRESETS; do
  rm -rf "$OUT/old/$p" "$OUT/new/$p"
  "$OLD_BIN" generate --preset "$p" --out "$OUT/old/$p" > /dev/null
  "$NEW_BIN" generate --preset "$p" --out "$OUT/new/$p" > /dev/null
  # A proof of a design against itself proves nothing: say so.
  if diff -rq "$OUT/old/$p" "$OUT/new/$p" > /dev/null; then
    echo "rtl-equiv: $p: the two builds generate identical RTL" >&2
  fi
done

# One proof: python DRIVER OLD_DIR NEW_DIR BLOCK (Yosys's log on standard output).
cat > "$OUT/equiv.py" <<'PYEOF'
import json, os, sys
from pyosys import libyosys as ys

old_dir, new_dir, block = sys.argv[1:4]
# Registers that moved into a primitive instance: (new flattened name, old name).
RENAMES = {
    "ot": [("g_repl_lru.u_lru.rank_q", "g_repl_lru.age_q")],
    "mt-hwp": [
        ("u_pws_lru.rank_q", "pws_rank_q"),
        ("g_global.u_gs_lru.rank_q", "g_global.gs_rank_q"),
        ("g_global.u_ip_lru.rank_q", "g_global.ip_rank_q"),
    ],
}

def sources(folder):
    """The sources in compilation order: the folder's filelist when it has one, else the
    package then the module (the manifest's order)."""
    lists = [f for f in os.listdir(folder) if f.endswith(".f")]
    if lists:
        with open(os.path.join(folder, lists[0])) as f:
            return [l.strip() for l in f
                    if l.strip() and not l.startswith("//") and not l.startswith("+")]
    with open(os.path.join(folder, "manifest.json")) as f:
        return [x["name"] for x in json.load(f)["files"] if x["name"].endswith(".sv")]

def top(folder):
    with open(os.path.join(folder, "manifest.json")) as f:
        return json.load(f)["top"]

d = ys.Design()
def run(cmd):
    ys.run_pass(cmd, d)

def cut_memories(t):
    """Each memory of module `t` cut out of the proof: its read data becomes a module input and
    its read and write ports' addresses, data and enables module outputs, all named after the
    memory. equiv_make then gives both designs the same read data and compares what each
    writes and reads, every cycle: if both write the same words at the same addresses and
    read the same addresses, their memories hold and return the same, so proving the rest
    with the read data left free is sound (it assumes less than the memory guarantees).
    Mapping the memories to registers instead made the larger presets' proofs run out of
    memory or time."""
    listing = os.path.join(os.environ.get("EQUIV_OUT", "/tmp"), f"mems-{os.getpid()}.txt")
    run(f"tee -q -o {listing} select -list {t}/t:$mem_v2")
    with open(listing) as f:
        names = [l.strip().split("/", 1)[1] for l in f if "/" in l]
    m = d.module(ys.IdString("\\" + t))
    for n in names:
        c = m.cell(ys.IdString(n if n.startswith("$") else "\\" + n))
        mem = c.getParam(ys.IdString("\\MEMID")).decode_string().lstrip("\\").replace(".", "_")
        ports = {}
        for p in ("RD_DATA", "RD_ADDR", "RD_EN", "RD_ARST", "RD_SRST",
                  "WR_ADDR", "WR_DATA", "WR_EN"):
            pid = ys.IdString("\\" + p)
            if c.hasPort(pid):
                ports[p] = c.getPort(pid)
        m.remove(c)
        for p, sig in ports.items():
            if sig.size() == 0:
                continue
            w = m.addWire(ys.IdString(f"\\eqmem_{mem}_{p}"), sig.size())
            if p == "RD_DATA":
                w.port_input = True
                m.connect(sig, ys.SigSpec(w))
            else:
                w.port_output = True
                m.connect(ys.SigSpec(w), sig)
        m.fixup_ports()

for name, folder in (("gold", old_dir), ("gate", new_dir)):
    t = top(folder)
    os.chdir(folder)
    run(f"read_slang -j 1 {' '.join(sources(folder))} --top {t}")
    run("chformal -remove")
    run("proc")
    run("flatten")
    run("opt_clean")
    run("async2sync")
    run("memory -nomap")
    cut_memories(t)
    run("opt_clean")
    if name == "gate":
        m = d.module(ys.IdString("\\" + t))
        for new, old in RENAMES.get(block, []):
            if m.wire(ys.IdString("\\" + new)) is not None:
                run(f"cd {t}")
                run(f"rename {new} {old}")
                run("cd ..")
    run(f"rename {t} {name}")
    run(f"design -stash {name}")
run("design -copy-from gold -as gold gold")
run("design -copy-from gate -as gate gate")
run("equiv_make gold gate equiv")
run("hierarchy -top equiv")
# Share the logic gold and gate have in common (identical cells on identical inputs), then
# merge what is structurally identical given equal inputs: both sound, and they leave the
# induction only the logic that changed.
run("opt_clean -purge")
run("opt_merge")
run("equiv_struct")
run("equiv_induct")
run("equiv_status -assert")
PYEOF

status=0
printf '%-16s %-10s %-12s %s\n' preset block result time
for p in $PRESETS; do
  for b in $BLOCKS; do
    log=$OUT/$p-$b.log
    start=$(date +%s)
    if timeout "$TIMEOUT" "$PY" "$OUT/equiv.py" "$OUT/old/$p/$b" "$OUT/new/$p/$b" "$b" \
        > "$log" 2>&1; then
      result=proven
    elif [ $? = 124 ]; then
      result=timeout; status=1
    else
      result="NOT PROVEN"; status=1
    fi
    end=$(date +%s)
    cells=$(grep -o 'Found [0-9]* \$equiv cells' "$log" 2>/dev/null | tail -1 | awk '{print $2}' || true)
    unproven=$(grep -o 'Of those cells [0-9]* are proven and [0-9]* are unproven' "$log" \
      2>/dev/null | tail -1 | awk '{print $9}' || true)
    if [ "$result" = proven ]; then
      detail="${cells:-?} equivalence points"
    else
      detail="${unproven:-?} of ${cells:-?} points unproven; the log names them"
    fi
    printf '%-16s %-10s %-12s %s\n' "$p" "$b" "$result" "$((end - start)) s ($detail)"
  done
done
echo "logs: $OUT"
exit $status
