#!/usr/bin/env bash
# Prove with Yosys that this tree's generated RTL behaves exactly as another build's.
#
#   scripts/rtl-equiv.sh OLD_BIN                  # every block x preset, vs. this tree's build
#   scripts/rtl-equiv.sh OLD_BIN NEW_BIN          # two given builds
#   scripts/rtl-equiv.sh OLD_HW hw                # two generated trees (<preset>/<block>/)
#   BLOCKS="ot mt-hwp" PRESETS=tiny scripts/rtl-equiv.sh OLD_BIN
#   EQUIV_TIMEOUT=7200 scripts/rtl-equiv.sh OLD_BIN   # seconds per block x preset (default 3600)
#   EQUIV_NO_MEMORIES=1 ...     # arrays as registers, no memory inference (see read_slang below)
#
# Each build generates every preset's RTL (`generate --preset P --out DIR`). Per block and
# preset, both designs are read with the slang front-end (the native Yosys of `pyosys` that
# scripts/setup.sh installs), their assertions removed (`chformal -remove`, as synthesis does),
# elaborated (`proc`) and flattened (primitives inlined). Registers that moved into a primitive
# are renamed to their old names (RENAMES below) and every flip-flop is named after the
# register it drives. Then the designs are cut at their state, as a logic-equivalence checker
# does with matched key points: asynchronous resets made synchronous (`async2sync`), enables
# and synchronous resets turned into logic (`dffunmap`), each memory cut out (`cut_memories`
# says why that is sound) and each flip-flop cut (`evert_ffs`: its output a new input, its next
# state a new output). What is left of each design is the logic from (inputs, registers, memory
# read data) to (outputs, next state, memory ports). `miter -equiv` pairs the two by name (a
# register, memory or port that one design has and the other lacks, or of another width, is an
# error); the costly cells both designs share become cut points (`cut_shared`); ABC's `iprove`
# proves the miter unsatisfiable: for every input and every state the two designs share, they
# give the same outputs, the same next state and the same memory accesses, so from any state
# they share (so from reset) they behave alike in every cycle. Constants left undefined (x)
# become free inputs, separately in each design, so an x cannot hide a difference. A line per
# block and preset says `proven`, `NOT EQUIVALENT` (ABC found a difference; with cut points it
# may be one no real state reaches: the miter is kept to examine), `undecided` or `timeout`;
# the logs are kept in $EQUIV_OUT (default: a temporary folder, printed). Exit 0 only when all
# are proven. Decision RTL-8 has the measurements.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: scripts/rtl-equiv.sh OLD_BIN|OLD_HW [NEW_BIN|NEW_HW]" >&2; exit 2; }
OLD_BIN=$(realpath -e "$1") || { echo "rtl-equiv: $1 does not exist" >&2; exit 2; }
NEW_BIN=
if [ $# -ge 2 ]; then
  NEW_BIN=$(realpath -e "$2") || { echo "rtl-equiv: $2 does not exist" >&2; exit 2; }
fi
cd "$(dirname "$0")/.."
ROOT=$PWD
if [ -z "$NEW_BIN" ]; then
  cargo build --release --quiet
  NEW_BIN=$ROOT/target/release/warpsmith
fi
PY=$ROOT/.tools/yosys/bin/python
"$PY" -c 'from pyosys import libyosys' 2>/dev/null ||
  { echo "rtl-equiv: the native Yosys (pyosys) is missing: run scripts/setup.sh" >&2; exit 2; }
# ABC as pyosys ships it.
ABC=$("$PY" -c 'import os, pyosys
print(os.path.join(os.path.dirname(pyosys.__file__), "yosys-abc"))')
PRESETS=${PRESETS:-fermi-gtx480 turing-rtx2060s tiny}
BLOCKS=${BLOCKS:-ot mt-hwp warped-mc dispatch}
TIMEOUT=${EQUIV_TIMEOUT:-3600}
OUT=${EQUIV_OUT:-$(mktemp -d)}
mkdir -p "$OUT"
export WARPSMITH_CACHE_DIR=${WARPSMITH_CACHE_DIR:-$OUT/cache}

# RTL of preset $2 from $1 (a warpsmith binary, or a folder already holding <preset>/<block>/)
# into folder $3.
rtl_of() {
  rm -rf "$3"
  mkdir -p "$(dirname "$3")"
  if [ -d "$1" ]; then
    [ -d "$1/$2" ] || { echo "rtl-equiv: $1 has no folder $2" >&2; exit 2; }
    cp -r "$1/$2" "$3"
  else
    "$1" generate --preset "$2" --out "$3" > /dev/null
  fi
}
for p in $PRESETS; do
  rtl_of "$OLD_BIN" "$p" "$OUT/old/$p"
  rtl_of "$NEW_BIN" "$p" "$OUT/new/$p"
  # A proof of a design against itself proves nothing: say so.
  if diff -rq "$OUT/old/$p" "$OUT/new/$p" > /dev/null; then
    echo "rtl-equiv: $p: the two sides have identical RTL" >&2
  fi
done

# One miter: python DRIVER OLD_DIR NEW_DIR BLOCK MITER (Yosys's log on standard output) writes
# MITER.aig (output 0 says the designs differ; one output per compared signal after it) and
# MITER.map (the AIGER map naming them).
cat > "$OUT/equiv.py" <<'PYEOF'
import json, os, re, sys
from pyosys import libyosys as ys

# Two steps, each its own process so that one design's elaboration never shares the memory
# with the other's (turing-rtx2060s' older dispatcher ran both out of 24 GiB together):
#   equiv.py prep NAME DIR BLOCK OUT   one design (NAME gold or gate) cut at its state, written
#                                      to OUT.il, its memories' parameters to OUT.json
#   equiv.py miter BLOCK MITER         the two prepared designs (MITER.gold.*, MITER.gate.*)
#                                      paired into MITER.aig and MITER.map
mode = sys.argv[1]
# Registers that moved into a primitive instance: (new flattened name, old name), renamed in
# whichever design has them.
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

# Internal signals both designs have that the proof is cut at (`expose -cut`: the signal's
# driver feeds a new output, compared like the others, and its readers a new input both designs
# share). Sound for the same reason as a register. They split a proof ABC does not finish in one
# piece: fermi-gtx480's 1,024-way OT, whose way searches the primitives rewrote (a priority
# search from the top down became one from the bottom up) and whose LRU ranks moved into a
# primitive (cut at its inputs and its victim, the identical update logic between them is
# merged, not proven).
KEY_WIRES = {"ot": ["obs_hit_way", "obs_free_way", "pred_way",
                    "touch_valid", "touch_set", "touch_way", "victim_way"]}

def top(folder):
    with open(os.path.join(folder, "manifest.json")) as f:
        return json.load(f)["top"]

d = ys.Design()
def run(cmd):
    ys.run_pass(cmd, d)

def module(t):
    return d.module(ys.IdString("\\" + t))

def run_in(t, cmd):
    """A pass that works on the selected module: `cmd` run inside module `t`."""
    run(f"cd {t}")
    run(cmd)
    run("cd ..")

def name_ffs(t):
    """Each flip-flop renamed eqff_<the register bits it drives>, the key point by which the
    miter pairs gold's and gate's."""
    m = module(t)
    seen = set()
    for c in list(m.cells_.values()):
        if not c.is_builtin_ff():
            continue
        q = ys.log_signal(c.getPort(ys.IdString("\\Q"))).lstrip("\\")
        n = "eqff_" + re.sub(r"[^A-Za-z0-9_.]", "_", q)
        if n in seen:
            sys.exit(f"rtl-equiv: two flip-flops would be named {n}")
        seen.add(n)
        m.rename(c, ys.IdString("\\" + n))

def cut_memories(t):
    """Each memory cut out: its read data becomes a module input and its read and write ports'
    addresses, data and enables module outputs, all named after the memory. The miter then
    gives both designs the same read data and compares what each writes and reads: if both
    write the same words at the same addresses and read the same addresses, in every cycle,
    their memories hold and return the same, so proving the rest with the read data left free
    is sound (it assumes less than the memory guarantees). Returns each memory's parameters
    (size, widths, clocking, transparency), which must be the same in both designs for that
    argument to hold. Mapping the memories to registers instead made the larger presets' proofs
    run out of memory or time."""
    listing = os.path.join(os.path.dirname(miter), f"mems-{os.getpid()}.txt")
    run(f"tee -q -o {listing} select -list {t}/t:$mem_v2")
    with open(listing) as f:
        names = [l.strip().split("/", 1)[1] for l in f if "/" in l]
    m = module(t)
    params = {}
    for n in names:
        c = m.cell(ys.IdString(n if n.startswith("$") else "\\" + n))
        mem = c.getParam(ys.IdString("\\MEMID")).decode_string().lstrip("\\").replace(".", "_")
        params[mem] = {k.str(): str(v) for k, v in c.parameters.items() if k.str() != "\\MEMID"}
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
    return params

def evert_ffs(t):
    """Each flip-flop cut: its output becomes a module input <name>.q and its next state a
    module output <name>.d, leaving the module's logic from state to next state."""
    m = module(t)
    for c in list(m.cells_.values()):
        if not c.is_builtin_ff():
            continue
        n = c.name.str().lstrip("\\")
        if c.type.str() != "$dff" or not n.startswith("eqff_"):
            sys.exit(f"rtl-equiv: {n} ({c.type.str()}) is not a plain flip-flop after dffunmap")
        q, nxt = c.getPort(ys.IdString("\\Q")), c.getPort(ys.IdString("\\D"))
        m.remove(c)
        wq = m.addWire(ys.IdString(f"\\{n}.q"), q.size())
        wq.port_input = True
        wd = m.addWire(ys.IdString(f"\\{n}.d"), nxt.size())
        wd.port_output = True
        m.connect(q, ys.SigSpec(wq))
        m.connect(ys.SigSpec(wd), nxt)
    m.fixup_ports()

# Cells that cost much once bit-blasted: wide multiplexers (the read multiplexers of register
# arrays), shifts and multipliers. Not division and remainder: their range matters (a remainder
# by the SM count indexes the SMs, and a free one reads out of range, a difference no real state
# reaches: `fermi-gtx480`'s dispatcher failed so).
COSTLY = {"$shiftx", "$shift", "$shr", "$shl", "$sshr", "$sshl", "$bmux", "$pmux", "$demux",
          "$mul"}

def side(c):
    """Which design a cell of the miter came from: 1 gold, 2 gate, 0 the miter's own."""
    n = c.name.str()
    return 1 if "gold." in n else 2 if "gate." in n else 0

def cut_shared():
    """Cut points: after `opt -fast` has merged the cells gold and gate have in common (same
    cell, same inputs: what the change left alone), a cell is shared when both designs read
    its output, directly or through other shared cells. Each costly shared cell gets its
    output replaced by a new miter input. Sound: both designs then read the same free value
    where they read the same computed one, which allows every behaviour the cell allowed and
    more, so a miter proven unsatisfiable with the cuts is unsatisfiable without them (a
    counterexample found with them may be one the cell could not produce). It spares
    bit-blasting the identical read multiplexers of the larger presets' register arrays,
    which ran Yosys out of memory; cheap shared logic stays, as the proof may need it (cutting
    every shared cell made the tiny MT-HWP fail)."""
    m = module("miter")
    y_port = ys.IdString("\\Y")
    def key(b):
        return (b.wire.hashidx_, b.offset)
    alias = {}
    for lhs, rhs in m.connections_:
        for a, b in zip(lhs.to_sigbit_vector(), rhs.to_sigbit_vector()):
            if a.wire is not None and b.wire is not None:
                alias[key(a)] = key(b)
    def canon(k):
        seen = 0
        while k in alias and seen < 64:
            k, seen = alias[k], seen + 1
        return k
    driver, readers, inputs = {}, {}, {}
    for c in m.cells_.values():
        ins = []
        for port, sig in c.connections_.items():
            for b in sig.to_sigbit_vector():
                if b.wire is None:
                    continue
                k = canon(key(b))
                if c.input(port):
                    ins.append(k)
                    readers[k] = readers.get(k, 0) | side(c)
                else:
                    driver[k] = c
        inputs[c.name.str()] = ins
    work = [c for c in m.cells_.values() if side(c) != 0 and c.hasPort(y_port) and any(
        b.wire is not None and readers.get(canon(key(b)), 0) == 3
        for b in c.getPort(y_port).to_sigbit_vector())]
    shared = {c.name.str(): c for c in work}
    while work:
        c = work.pop()
        for k in inputs[c.name.str()]:
            d = driver.get(k)
            if d is not None and side(d) != 0 and d.name.str() not in shared:
                shared[d.name.str()] = d
                work.append(d)
    cut = [c for c in shared.values() if c.type.str() in COSTLY and c.hasPort(y_port)]
    for k, c in enumerate(cut):
        y = c.getPort(y_port)
        m.remove(c)
        w = m.addWire(ys.IdString(f"\\eqcut_{k}"), y.size())
        w.port_input = True
        m.connect(y, ys.SigSpec(w))
    m.fixup_ports()
    print(f"rtl-equiv: {len(shared)} cells both designs read, {len(cut)} costly ones cut")

if mode == "prep":
    name, folder, block, out = sys.argv[2:6]
    t = top(folder)
    os.chdir(folder)
    # The older dispatcher's loops over every SM's slots and rectangles unroll past slang's
    # default limit (4,000) on turing-rtx2060s.
    # EQUIV_NO_MEMORIES=1: arrays stay registers (no memory inference), for a design whose
    # memories' many write ports Yosys cannot analyse in memory (turing-rtx2060s' older
    # dispatcher: `memory -nomap` alone ran out of 24 GiB).
    flat = " --no-implicit-memories" if os.environ.get("EQUIV_NO_MEMORIES") == "1" else ""
    run(f"read_slang -j 1 --unroll-limit 1000000{flat} {' '.join(sources(folder))} --top {t}")
    run("chformal -remove")
    run("proc")
    run("flatten")
    run("opt_clean")
    for new, old in RENAMES.get(block, []):
        if module(t).wire(ys.IdString("\\" + new)) is not None:
            run_in(t, f"rename {new} {old}")
    keys = [w for w in KEY_WIRES.get(block, [])
            if module(t).wire(ys.IdString("\\" + w)) is not None]
    if keys:
        run_in(t, "expose -cut " + " ".join(f"w:{w}" for w in keys))
    name_ffs(t)
    run("async2sync")
    run("memory -nomap")
    miter = out
    with open(out + ".json", "w") as f:
        json.dump(cut_memories(t), f)
    run("opt_clean")
    run_in(t, "dffunmap")
    evert_ffs(t)
    run(f"rename {t} {name}")
    run(f"write_rtlil {out}.il")
    sys.exit(0)

block, miter = sys.argv[2:4]
memories = {}
for name in ("gold", "gate"):
    with open(f"{miter}.{name}.json") as f:
        memories[name] = json.load(f)
for mem in sorted(set(memories["gold"]) & set(memories["gate"])):
    if memories["gold"][mem] != memories["gate"][mem]:
        sys.exit(f"rtl-equiv: memory {mem} has other parameters: {memories['gold'][mem]} in "
                 f"the old design, {memories['gate'][mem]} in the new")
run(f"read_rtlil {miter}.gold.il")
run(f"read_rtlil {miter}.gate.il")
# Pairs every port by name (an unpaired one is an error); output 0 (trigger) is 1 when any
# pair differs, and -make_outcmp adds an output per pair (1 where it agrees), to examine one.
run("miter -equiv -flatten -make_outcmp gold gate miter")
run("hierarchy -top miter")
run("opt -fast")
cut_shared()
# Bit-level from here: names of internal wires are dropped (-purge) to spare memory.
run("opt_clean -purge")
run("techmap")
run("setundef -anyseq")
run("aigmap")
run(f"write_aiger -map {miter}.map {miter}.aig")
PYEOF

status=0
printf '%-16s %-10s %-15s %s\n' preset block result time
for p in $PRESETS; do
  for b in $BLOCKS; do
    log=$OUT/$p-$b.log
    miter=$OUT/$p-$b.miter
    start=$(date +%s)
    rm -f "$miter".*
    detail=
    # The miter (Yosys), then its proof (ABC), within one time limit.
    if timeout "$TIMEOUT" bash -c '"$1" "$2" prep gold "$3" "$5" "$6.gold" &&
        "$1" "$2" prep gate "$4" "$5" "$6.gate" && "$1" "$2" miter "$5" "$6"' _ \
        "$PY" "$OUT/equiv.py" "$OUT/old/$p/$b" "$OUT/new/$p/$b" "$b" "$miter" > "$log" 2>&1; then
      left=$((TIMEOUT - ($(date +%s) - start)))
      [ "$left" -gt 0 ] || left=1
      if timeout "$left" "$ABC" -c "read_aiger $miter.aig; strash; cone -O 0; print_stats; iprove" \
          >> "$log" 2>&1; then
        if grep -q '^UNSATISFIABLE' "$log"; then
          result=proven
        elif grep -q '^SATISFIABLE' "$log"; then
          result="NOT EQUIVALENT"
          detail="ABC found inputs and a state on which they differ; $miter.map names the"
          detail="$detail miter's outputs (cmp_<signal>: 1 where the pair agrees)"
        else
          result=undecided
        fi
      else
        [ $? = 124 ] && result=timeout || result=error
      fi
    elif [ $? = 124 ]; then
      result=timeout
    else
      result=error
      detail=$(grep -m1 -E '^(ERROR|rtl-equiv):' "$log" || true)
    fi
    [ "$result" = proven ] || status=1
    end=$(date +%s)
    size=$(grep -ao 'and = *[0-9]*' "$log" 2>/dev/null | head -1 | tr -dc '0-9' || true)
    [ -n "$detail" ] || detail="${size:-?} AND gates"
    printf '%-16s %-10s %-15s %s\n' "$p" "$b" "$result" "$((end - start)) s ($detail)"
  done
done
echo "logs: $OUT"
exit $status
