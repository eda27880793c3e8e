"""Rodinia 3.1 bfs: `Kernel` (kernel.cu) and `Kernel2` (kernel2.cu), launched by bfs.cu's host
loop, re-derived from the CUDA source and the static shape of golden/sass/bfs.sass.

The check needs its own input: a graph file in Rodinia's format, passed with `file=`:

    python3 -m workload_checks.bfs PATH NODES [SEED]     (run in scripts/; writes the graph)
    warpsmith trace --workload bfs:file=PATH --out DIR
    scripts/check-workload.py DIR bfs:file=PATH

(the small run: NODES=2000, four blocks of 512 threads, the last one partial; the other shape:
NODES=300, one block of 300 threads, as the host makes one block of no_of_nodes threads when
there are at most 512, with some vertices given no edges of their own so that `Kernel`'s
zero-edge exit is taken). The check reads the same file (args["file"]); without one it exits 2.

How: a reference BFS from vertex 0 (bfs.cu sets source = 0 whatever the file says) gives
every vertex's level. In the launch pair of level L, `Kernel`'s frontier (g_graph_mask) is
exactly the vertices of level L, and g_graph_visited (written only by `Kernel2`) holds the
vertices of level <= L, so an edge's `if(!g_graph_visited[id])` passes iff id's level is L+1;
`Kernel2`'s g_updating_graph_mask holds the vertices of level L+1. The host loops while
`Kernel2` set `over`, so there are (last level + 1) pairs of launches. From these sets, every
warp's stream is built from the listing's segments: straight runs of instructions, each with
the warp's active lanes; a guarded instruction (`@P0`/`@!P0`) is recorded with the lanes
whose guard holds (mask 0 if none: the generator records it, as microgpusim.py's vectoradd
check also counts); an EXIT removes its lanes; the edge loop (from the backward BRA's target
to the BRA) runs, per iteration j, with the lanes whose vertex has more than j edges, the
lanes that leave wait at the EXIT after the BRA (the lowest PC runs first), where all merge.
Lanes and addresses come from the CUDA source's index expressions, evaluated here per thread.
"""
import random
import re
import sys

from .common import Mismatch, allocate, by_class, lines_of, listing, same

BLOCK = 512  # bfs.cu's MAX_THREADS_PER_BLOCK
KERNEL = "_Z6KernelP4NodePiPbS2_S2_S1_i"
KERNEL2 = "_Z7Kernel2PbS_S_S_i"


def write_graph(path, n, seed=1, sinks=0):
    """A graph as Rodinia's graphgen makes it (vertex i joined to 2 to 4 uniformly chosen
    vertices, both ways), with Python's own random; `sinks` vertices (chosen at random, not 0)
    then lose their own edge lists (they stay reachable through others' edges)."""
    rnd = random.Random(seed)
    adj = [[] for _ in range(n)]
    for i in range(n):
        for _ in range(rnd.randint(2, 4)):
            j = rnd.randrange(n)
            adj[i].append(j)
            adj[j].append(i)
    for v in rnd.sample(range(1, n), sinks):
        adj[v] = []
    with open(path, "w") as f:
        f.write(f"{n}\n")
        start = 0
        for a in adj:
            f.write(f"{start} {len(a)}\n")
            start += len(a)
        f.write("\n0\n\n")
        f.write(f"{start}\n")
        for a in adj:
            for j in a:
                f.write(f"{j} {rnd.randint(1, 10)}\n")


def read_graph(path):
    words = iter(open(path).read().split())
    n = int(next(words))
    nodes = [(int(next(words)), int(next(words))) for _ in range(n)]
    next(words)  # the file's source, which bfs.cu overrides with 0
    m = int(next(words))
    edges = []
    for _ in range(m):
        edges.append(int(next(words)))
        next(words)  # the weight, unread by the kernels
    return nodes, edges


def levels(nodes, edges):
    """The reference run: each vertex's BFS level from vertex 0 (None: unreachable)."""
    level = [None] * len(nodes)
    level[0] = 0
    frontier = [0]
    while frontier:
        nxt = []
        for v in frontier:
            s, c = nodes[v]
            for u in edges[s:s + c]:
                if level[u] is None:
                    level[u] = level[v] + 1
                    nxt.append(u)
        frontier = nxt
    return level


def opcode(t):
    """An instruction's opcode, past its guard."""
    return re.sub(r"^@!?U?P\w+ ", "", t).split()[0]


def target(t):
    m = re.search(r"BRA 0x([0-9a-f]+)$", t)
    return int(m.group(1), 16) // 16 if m else None


class Stream:
    """A warp's expected stream: (pc, mask, addresses) per instruction."""

    def __init__(self, code):
        self.code, self.out = code, []

    def run(self, lo, hi, lanes, guard=frozenset(), addr=None):
        """Instructions lo..hi (inclusive) with `lanes` active; a guarded one with the lanes
        in `guard`; `addr` maps a memory instruction's index to its per-lane address."""
        for k in range(lo, hi + 1):
            live = (lanes & guard) if self.code[k].startswith("@") else lanes
            mask = sum(1 << l for l in live)
            a = [addr[k](l) for l in sorted(live)] if addr and k in addr else []
            self.out.append((16 * k, mask, a))


def mem_indices(code, lo, hi):
    return [k for k in range(lo, hi + 1) if re.search(r"\b(LDG|STG)\.", code[k])]


def check_bfs(copies, kernels, args):
    if "file" not in args:
        print("check-workload: the bfs check needs its own graph: bfs:file=PATH (see "
              "scripts/workload_checks/bfs.py)", file=sys.stderr)
        sys.exit(2)
    nodes, edges = read_graph(args["file"])
    n, m = len(nodes), len(edges)
    level = levels(nodes, edges)
    last = max(v for v in level if v is not None)
    # The reference run's frontier sizes per level.
    frontier = [sum(1 for v in level if v == L) for L in range(last + 1)]

    # bfs.cu's cudaMalloc/cudaMemcpy order: nodes, edges, mask, updating mask, visited, cost,
    # then `over` (malloc'd; copied false before every level's pair of launches).
    d_nodes, d_edges, d_mask, d_upd, d_vis, d_cost, d_over = allocate(
        [8 * n, 4 * m, n, n, n, 4 * n, 1])
    same("host copies", copies,
         [(d_nodes, 8 * n), (d_edges, 4 * m), (d_mask, n), (d_upd, n), (d_vis, n),
          (d_cost, 4 * n)] + [(d_over, 1)] * (last + 1))
    same("launches (two per level)", len(kernels), 2 * (last + 1))
    blocks_n = -(-n // BLOCK) if n > BLOCK else 1
    threads = BLOCK if n > BLOCK else n
    warps_n = -(-threads // 32)

    k1, k2 = listing("bfs", KERNEL), listing("bfs", KERNEL2)
    # Kernel's landmarks: the bounds check's `@P0 EXIT`, the two `@!P0 EXIT`s (mask false;
    # no edges), the edge loop (the backward BRA and its target) and the final EXIT.
    e1 = next(k for k, t in enumerate(k1) if t == "@P0 EXIT")
    e2 = next(k for k in range(e1 + 1, len(k1)) if k1[k] == "@!P0 EXIT")
    e3 = next(k for k in range(e2 + 1, len(k1)) if k1[k] == "@!P0 EXIT")
    bra = next(k for k, t in enumerate(k1) if target(t) is not None and target(t) < k)
    top = target(k1[bra])
    end = bra + 1
    same("Kernel: the instruction after the loop's BRA", k1[end], "EXIT")
    same("Kernel: the loop's guarded instructions", {t.split()[0] for t in k1[top:bra + 1]
                                                     if t.startswith("@")}, {"@!P0"})
    # The memory instructions of each segment, in order, as the CUDA source reads them.
    same("Kernel: loads before the mask test", [k1[k].split()[0] for k in mem_indices(k1, 0, e2)],
         ["LDG.E.U8.SYS"])
    pre = mem_indices(k1, e2 + 1, top - 1)   # mask[tid] = false; nodes[tid].no_of_edges, .starting
    body = mem_indices(k1, top, bra)         # edges[i]; visited[id]; cost[tid]; cost[id]; upd[id];
    same("Kernel: memory instructions before the loop", len(pre), 3)  # nodes[tid] reloaded
    same("Kernel: memory instructions in the loop", len(body), 7)
    # Kernel2's landmarks.
    f1 = next(k for k, t in enumerate(k2) if t == "@P0 EXIT")
    f2 = next(k for k in range(f1 + 1, len(k2)) if k2[k] == "@!P0 EXIT")
    f3 = next(k for k in range(f2 + 1, len(k2)) if k2[k] == "EXIT")
    same("Kernel2: memory instructions", [k2[k].split()[0] for k in mem_indices(k2, 0, f3)],
         ["LDG.E.U8.SYS"] + ["STG.E.U8.SYS"] * 4)
    k2mem = mem_indices(k2, 0, f3)

    lines = {}  # (array, "load"/"store") -> set of lines

    def touch(arr, kind, addrs):
        lines.setdefault((arr, kind), set()).update(lines_of(addrs))

    for L in range(last + 1):
        for phase, (header, blocks) in enumerate(kernels[2 * L:2 * L + 2]):
            tag = f"level {L} {'Kernel' if phase == 0 else 'Kernel2'}"
            same(f"{tag} name", header.get("kernel name"), KERNEL if phase == 0 else KERNEL2)
            same(f"{tag} grid", header["grid dim"], f"({blocks_n},1,1)")
            same(f"{tag} block", header["block dim"], f"({threads},1,1)")
            same(f"{tag} shmem", header.get("shmem"), "0")
            same(f"{tag} blocks", sorted(blocks), [(b, 0, 0) for b in range(blocks_n)])
            passed = 0
            for b in range(blocks_n):
                same(f"{tag} block {b} warps", sorted(blocks[(b, 0, 0)]), list(range(warps_n)))
                for w in range(warps_n):
                    where = f"{tag} block {b} warp {w}"
                    got = blocks[(b, 0, 0)][w]
                    lanes = {l for l in range(32) if 32 * w + l < threads}
                    tid = {l: b * BLOCK + 32 * w + l for l in lanes}
                    s = Stream(k1 if phase == 0 else k2)
                    if phase == 0:
                        passed += kernel_warp(s, k1, (e1, e2, e3, top, bra, end, pre, body),
                                              lanes, tid, n, nodes, edges, level, L,
                                              (d_nodes, d_edges, d_mask, d_upd, d_vis, d_cost))
                    else:
                        passed += kernel2_warp(s, (f1, f2, f3), k2mem, lanes, tid, n, level, L,
                                               (d_mask, d_upd, d_vis, d_over))
                    want = s.out
                    same(f"{where} instructions", len(got), len(want))
                    same(f"{where} instructions by class", by_class(got),
                         by_class([(pc, 0, opcode((k1 if phase == 0 else k2)[pc // 16]), [])
                                   for pc, _, _ in want]))
                    for g, (pc, mask, addrs) in zip(got, want):
                        same(f"{where} pc", g[0], pc)
                        same(f"{where} lanes at {pc:#x}", g[1], mask)
                        if addrs or g[3]:
                            same_addrs(f"{where} addresses at {pc:#x}", g[3], addrs)
                    for g in got:
                        arr, kind = classify(g, (d_nodes, d_edges, d_mask, d_upd, d_vis, d_cost,
                                                 d_over), (8 * n, 4 * m, n, n, n, 4 * n, 1))
                        if arr:
                            touch(arr, kind, g[3])
            # The data-dependent part, stated as the reference run's numbers: the lanes that
            # pass Kernel's frontier test are level L's vertices; Kernel2's, level L+1's.
            want = frontier[L] if phase == 0 else (frontier[L + 1] if L < last else 0)
            same(f"{tag} lanes passing the frontier test (frontier size)", passed, want)
    # Per array, the lines its loads and its stores touch, from the reference run alone.
    reached = [v for v in range(n) if level[v] is not None]
    front = [v for v in reached]                 # every reached vertex is a frontier once
    new = [v for v in reached if v != 0]         # every other reached one is discovered once
    scanned = [i for v in front for i in range(nodes[v][0], nodes[v][0] + nodes[v][1])]
    upd_ids = [edges[i] for v in front for i in range(nodes[v][0], nodes[v][0] + nodes[v][1])
               if level[edges[i]] == level[v] + 1]
    with_edges = [v for v in front if nodes[v][1] >= 1]
    want = {
        ("nodes", "load"): lines_of([d_nodes + 8 * v + o for v in front for o in (0, 4)]),
        ("edges", "load"): lines_of([d_edges + 4 * i for i in scanned]),
        ("mask", "load"): lines_of(range(d_mask, d_mask + n)),
        ("mask", "store"): lines_of([d_mask + v for v in front + new]),
        ("visited", "load"): lines_of([d_vis + edges[i] for i in scanned]),
        ("visited", "store"): lines_of([d_vis + v for v in new]),
        ("cost", "load"): lines_of([d_cost + 4 * v for v in with_edges
                                    if any(level[edges[i]] == level[v] + 1 for i in
                                           range(nodes[v][0], nodes[v][0] + nodes[v][1]))]),
        ("cost", "store"): lines_of([d_cost + 4 * u for u in upd_ids]),
        ("updating", "load"): lines_of(range(d_upd, d_upd + n)),
        ("updating", "store"): lines_of([d_upd + u for u in upd_ids]),
        ("over", "store"): lines_of([d_over] if new else []),
    }
    want = {k: v for k, v in want.items() if v}
    for key in sorted(set(want) | set(lines)):
        same(f"lines of {key[0]} ({key[1]}s)", lines.get(key, set()), want.get(key, set()))


def same_addrs(what, got, want):
    """Compare two lanes' address lists, naming the first lane that differs (in hex)."""
    if got != want:
        k = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
        g = f"{got[k]:#x}" if k < len(got) else "nothing"
        w = f"{want[k]:#x}" if k < len(want) else "nothing"
        raise Mismatch(f"{what}: active lane #{k}: the trace has {g}, the kernel's definition "
                       f"gives {w} ({len(got)} and {len(want)} addresses)")


def classify(inst, bases, sizes):
    """The array (and load/store) an executed memory instruction's addresses fall in."""
    op = inst[2]
    if not inst[3] or not (op.startswith("LDG") or op.startswith("STG")):
        return None, None
    names = ("nodes", "edges", "mask", "updating", "visited", "cost", "over")
    found = set()
    for a in inst[3]:
        hit = [nm for nm, b, s in zip(names, bases, sizes) if b <= a < b + s]
        found.add(hit[0] if hit else "outside every array")
    if len(found) != 1:
        raise Mismatch(f"instruction at {inst[0]:#x} touches {sorted(found)}")
    return found.pop(), "load" if op.startswith("LDG") else "store"


def kernel_warp(s, code, marks, lanes, tid, n, nodes, edges, level, L, d):
    """Kernel (kernel.cu) for one warp at level L; returns how many lanes pass the test."""
    e1, e2, e3, top, bra, end, pre, body = marks
    d_nodes, d_edges, d_mask, d_upd, d_vis, d_cost = d
    # `if (tid < no_of_nodes && g_graph_mask[tid])`: the bounds check's EXIT, then the mask load.
    s.run(0, e1, lanes, guard={l for l in lanes if tid[l] >= n})
    l1 = {l for l in lanes if tid[l] < n}
    if not l1:
        return 0
    mload = mem_indices(code, e1, e2)[0]
    s.run(e1 + 1, e2, l1, guard={l for l in l1 if level[tid[l]] != L},
          addr={mload: lambda l: d_mask + tid[l]})
    l2 = {l for l in l1 if level[tid[l]] == L}
    if not l2:
        return 0
    # g_graph_mask[tid] = false; the loop's bound (no_of_edges + starting) read: the exit of a
    # vertex without edges (`i < starting + 0` fails at once) comes before `starting` is read.
    s.run(e2 + 1, e3, l2, guard={l for l in l2 if nodes[tid[l]][1] < 1},
          addr={pre[0]: lambda l: d_mask + tid[l], pre[1]: lambda l: d_nodes + 8 * tid[l] + 4})
    l3 = {l for l in l2 if nodes[tid[l]][1] >= 1}
    if not l3:
        return len(l2)
    s.run(e3 + 1, top - 1, l3, addr={pre[2]: lambda l: d_nodes + 8 * tid[l]})
    trips = max(nodes[tid[l]][1] for l in l3)
    for j in range(trips):
        a = {l for l in l3 if nodes[tid[l]][1] > j}
        eid = {l: edges[nodes[tid[l]][0] + j] for l in a}
        fresh = {l for l in a if level[eid[l]] == L + 1}  # !g_graph_visited[id]
        s.run(top, bra - 1, a, guard=fresh, addr={
            body[0]: lambda l: d_edges + 4 * (nodes[tid[l]][0] + j),
            body[1]: lambda l: d_vis + eid[l],
            body[2]: lambda l: d_cost + 4 * tid[l],
            body[3]: lambda l: d_cost + 4 * eid[l],
            body[4]: lambda l: d_upd + eid[l],
            body[5]: lambda l: d_nodes + 8 * tid[l] + 4,   # the bound re-read after the stores
            body[6]: lambda l: d_nodes + 8 * tid[l]})
        s.run(bra, bra, a, guard={l for l in a if nodes[tid[l]][1] > j + 1})
    s.run(end, end, l3)
    return len(l2)


def kernel2_warp(s, marks, mem, lanes, tid, n, level, L, d):
    """Kernel2 (kernel2.cu) for one warp after level L's Kernel; returns the lanes that pass."""
    f1, f2, f3 = marks
    d_mask, d_upd, d_vis, d_over = d
    s.run(0, f1, lanes, guard={l for l in lanes if tid[l] >= n})
    l1 = {l for l in lanes if tid[l] < n}
    if not l1:
        return 0
    s.run(f1 + 1, f2, l1, guard={l for l in l1 if level[tid[l]] != L + 1},
          addr={mem[0]: lambda l: d_upd + tid[l]})
    l2 = {l for l in l1 if level[tid[l]] == L + 1}
    if not l2:
        return 0
    s.run(f2 + 1, f3, l2, addr={mem[1]: lambda l: d_mask + tid[l],
                                mem[2]: lambda l: d_vis + tid[l],
                                mem[3]: lambda l: d_over,
                                mem[4]: lambda l: d_upd + tid[l]})
    return len(l2)


CHECKS = {"bfs": check_bfs}

if __name__ == "__main__":
    n = int(sys.argv[2])
    write_graph(sys.argv[1], n, int(sys.argv[3]) if len(sys.argv) > 3 else 1,
                sinks=n // 20 if n <= BLOCK else 0)
