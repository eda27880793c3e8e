"""Rodinia 3.1 b+tree: `findRangeK` (kernel/kernel_gpu_cuda_2.cu, the `j` command) and `findK`
(kernel/kernel_gpu_cuda.cu, the `k` command), launched by their wrappers (kernel_gpu_cuda_wrapper
_2.cu, kernel_gpu_cuda_wrapper.cu) as main.c reads its command file; re-derived from the CUDA
and C sources and the static shape of golden/sass/b+tree-findrangek.sass and
b+tree-findk.sass. (The module is bplustree.py: `b+tree` is not a Python name.)

The check needs its own input: a keys file and a command file in Rodinia's format, passed with
`file=` and `command=`:

    python3 -m workload_checks.bplustree keys PATH N [random SEED]   (in scripts/; writes keys)
    python3 -m workload_checks.bplustree command PATH 'j 3 3' 'k 4'  (writes a command file)
    warpsmith trace --workload b+tree:file=KEYS,command=COMMANDS --out DIR
    scripts/check-workload.py DIR b+tree:file=KEYS,command=COMMANDS

(the small run: keys 1 to 40,000 in increasing order, `j 3 3` then `k 4`: a tree of height 2;
the other shapes: 3,000 keys in random order with gaps and repeats under a count of 4,000,
`k 6` then `j5 40`: a tree of height 1, queries that miss; 200 keys: one leaf, height 0, the
descent loop skipped). The check reads both files (args["file"], args["command"]).

How: the reference run is main.c's own host code ported here: `insert` of every key (order
256, DEFAULT_ORDER: a leaf split at cut(255), an internal node at cut(256), duplicates
ignored), `transform_to_cuda`'s knodes (breadth-first; keys between INT_MIN and INT_MAX, INT_MAX
up to the order, keys[256] unwritten and 0; each child's or record's index beside its key,
then the next node's index) and records, the command file read character by character as main.c
does (a number is read where the pointer is, which then moves only to the next space: `j 3 3`
is 3 queries of range 3 read from the first number), and the queries drawn from glibc's rand()
unseeded (srand(1)) as `(rand() / (float)RAND_MAX) * size` in float. Each query's descent is
main.c's `find_leaf` on the pointer tree, mapped to the knodes' indices, and it is also the
kernel's: at each level the one thread t with keys[t] <= key < keys[t+1] moves the block to
indices[t]; at the leaf the thread whose key equals the query answers.

Each warp's stream is built from the listing's landmarks, found by pattern: three forward
`@!P0 BRA`s (no level: to the final part F; fewer levels than the unrolled loop's factor: to
the remainder R; no remainder: to F), the backward `@P0 BRA`s (the unrolled loop; findK's
remainder loop), and the `BSSY`/`BSYNC` regions in the loop bodies: a region with two branches to
its BSYNC is one key's test at one level (all lanes run to the first, `@P0` = keys[t] > key;
the other lanes run to the second, `@!P0` = keys[t+1] <= key; the one lane left runs to the
BSYNC, its `@!P0` store guarded by indices[t] < knodes_elem; all lanes run the BSYNC); a region
with one `@P1 BRA` is thread 0's update (`@!P1` elsewhere is thread 0 too). The unroll factor
is the test regions in the unrolled body over the tests of one level (findK 1, findRangeK 2):
findRangeK's pairs of levels run at height 2 (the small run); findK's unrolled-by-4 loop needs
height 4 (hundreds of millions of keys at order 256) and is walked the same way, never run.
Every instruction's PC and lanes are compared (a guarded one with the lanes whose guard holds,
0 if none). The loads and stores are compared per warp as multisets of lane-address lists,
from the CUDA source's expressions: the compiled code reads currKnode[bid], the key and the
node's keys[thid] once before the loop and again after each level's second barrier (so h + 1
times), findRangeK's lastKnode[bid], end and keys[thid] at each level's `end` test and once
more at the end. Per array, the lines loads and stores touch; the host's copies; each launch;
and, stated as the reference run's numbers, each block's knodes visited (from its warp 0's
keys[thid] loads) and which queries find their keys.
"""
import random
import re
import struct
import sys
from collections import Counter

from .common import Mismatch, allocate, by_class, lines_of, listing, opcode_class, same

ORDER = 256                          # DEFAULT_ORDER
# sizeof(knode): location, indices[ORDER + 1], keys[ORDER + 1], is_leaf (padded), num_keys
KNODE = 4 + 2 * 4 * (ORDER + 1) + 4 + 4
INDICES, KEYS = 4, 4 + 4 * (ORDER + 1)    # offsets of indices[] and keys[] in a knode
INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1
RAND_MAX = (1 << 31) - 1
FULL = 0xFFFFFFFF
WARPS = ORDER // 32                  # threadsPerBlock = order < 1024 ? order : 1024
FINDK, FINDRANGEK = "findK", "findRangeK"


# ---- inputs ---------------------------------------------------------------------------------

def write_keys(path, n, order="increasing", seed=1, count=None):
    """A keys file: `count` (default n), then n keys one a line: 1..n in increasing order, or
    (order="random") n keys drawn from [-50, 4n/3) in random order, with repeats and gaps."""
    if order == "increasing":
        keys = list(range(1, n + 1))
    else:
        rnd = random.Random(seed)
        keys = [rnd.randrange(-50, 4 * n // 3) for _ in range(n)]
    with open(path, "w") as f:
        f.write(f"{count if count is not None else n}\n")
        f.write("".join(f"{k}\n" for k in keys))


def write_commands(path, *lines):
    with open(path, "w") as f:
        f.write("".join(f"{l}\n" for l in lines))


def read_keys(path):
    words = open(path).read().split()
    return int(words[0]), [int(w) for w in words[1:]]


def read_commands(path):
    """main.c's command loop over the file's bytes: ('j', count, rSize) and ('k', count)."""
    buf = open(path, "rb").read()

    def scan(at):   # sscanf(p, "%d")
        m = re.match(rb"\s*([-+]?\d+)", buf[at:])
        return int(m.group(1))

    def to_space(at):   # while (*p != 32 && p != '\n') p++;
        while at < len(buf) and buf[at] != 32:
            at += 1
        return at

    out, at = [], 0
    while at < len(buf):
        c = chr(buf[at])
        at += 1
        if c == "k":
            count = scan(at)
            at = to_space(at)
            out.append(("k", count))
        elif c == "j":
            count = scan(at)
            at = to_space(at)
            r = scan(at)
            at = to_space(at)
            out.append(("j", count, r))
    return out


# ---- main.c's B+ tree -----------------------------------------------------------------------

class Node:
    def __init__(self, leaf):
        self.leaf, self.keys, self.pointers, self.parent = leaf, [], [], None


class Tree:
    """main.c's insert, with its splits (keys, and pointers: children of an internal node)."""

    def __init__(self):
        self.root = None

    def find_leaf(self, key):
        c = self.root
        while c is not None and not c.leaf:
            i = 0
            while i < len(c.keys) and key >= c.keys[i]:
                i += 1
            c = c.pointers[i]
        return c

    def find(self, key):
        c = self.find_leaf(key)
        return c is not None and key in c.keys

    def insert(self, key):
        if self.find(key):
            return
        if self.root is None:
            self.root = Node(True)
            self.root.keys = [key]
            return
        leaf = self.find_leaf(key)
        if len(leaf.keys) < ORDER - 1:
            i = 0
            while i < len(leaf.keys) and leaf.keys[i] < key:
                i += 1
            leaf.keys.insert(i, key)
            return
        # insert_into_leaf_after_splitting: order keys in temp, cut(order - 1) stay.
        temp = sorted(leaf.keys + [key])
        split = cut(ORDER - 1)
        new = Node(True)
        leaf.keys, new.keys = temp[:split], temp[split:]
        new.parent = leaf.parent
        self.insert_into_parent(leaf, new.keys[0], new)

    def insert_into_parent(self, left, key, right):
        parent = left.parent
        if parent is None:
            root = Node(False)
            root.keys, root.pointers = [key], [left, right]
            left.parent = right.parent = root
            self.root = root
            return
        li = parent.pointers.index(left)
        if len(parent.keys) < ORDER - 1:
            parent.pointers.insert(li + 1, right)
            parent.keys.insert(li, key)
            return
        # insert_into_node_after_splitting: split = cut(order); split - 1 keys stay, the key at
        # split - 1 goes up, the rest (and their children) move right.
        tp = parent.pointers[:li + 1] + [right] + parent.pointers[li + 1:]
        tk = parent.keys[:li] + [key] + parent.keys[li:]
        split = cut(ORDER)
        new = Node(False)
        parent.keys, parent.pointers = tk[:split - 1], tp[:split]
        k_prime = tk[split - 1]
        new.keys, new.pointers = tk[split:], tp[split:]
        new.parent = parent.parent
        for c in new.pointers:
            c.parent = new
        self.insert_into_parent(parent, k_prime, new)

    def height(self):
        h, c = 0, self.root
        while not c.leaf:
            c, h = c.pointers[0], h + 1
        return h


def cut(length):
    return length // 2 if length % 2 == 0 else length // 2 + 1


def transform(tree):
    """transform_to_cuda: the knodes (keys[257], indices[257], leaf) in breadth-first order,
    each pointer node's index, and each key's record index."""
    knodes, index, record = [], {}, {}
    queue, nodeindex = [tree.root], 1
    index[id(tree.root)] = 0
    while queue:
        n = queue.pop(0)
        q = len(knodes)
        nk = len(n.keys) + 2
        keys, idx = [0] * (ORDER + 1), [0] * (ORDER + 1)
        keys[0], keys[nk - 1] = INT_MIN, INT_MAX
        for i in range(nk, ORDER):
            keys[i] = INT_MAX
        if not n.leaf:
            idx[0] = nodeindex
            index[id(n.pointers[0])] = nodeindex
            nodeindex += 1
            for i in range(1, nk - 1):
                keys[i] = n.keys[i - 1]
                idx[i] = nodeindex
                index[id(n.pointers[i])] = nodeindex
                nodeindex += 1
            queue.extend(n.pointers)
        else:
            for i in range(1, nk - 1):
                keys[i] = n.keys[i - 1]
                idx[i] = len(record)
                record[n.keys[i - 1]] = len(record)
        idx[nk - 1] = q + 1
        knodes.append((keys, idx))
    return knodes, index, record


def draws(size):
    """`(rand() / (float)RAND_MAX) * size` as an int, with glibc's rand() unseeded."""
    from .common import glibc_rand
    f = lambda x: struct.unpack("f", struct.pack("f", x))[0]
    for r in glibc_rand(1):
        yield int(f(f(f(r) / f(RAND_MAX)) * f(size)))


def descent(knodes, h, key):
    """The kernel's descent for `key`: the node at each level 0..h (findK's loop: the thread t
    with keys[t] <= key < keys[t+1] moves the block to indices[t] if below knodes_elem)."""
    path = [0]
    for _ in range(h):
        keys, idx = knodes[path[-1]]
        nxt = path[-1]
        for t in range(ORDER):
            if keys[t] <= key < keys[t + 1] and idx[t] < len(knodes):
                nxt = idx[t]
        path.append(nxt)
    return path


# ---- the listing's shape and each warp's path -------------------------------------------------

GUARD = re.compile(r"^@(!?U?P\w+) ")


def target(text):
    m = re.search(r"\bBRA (?:!?U?P\d, )?0x([0-9a-f]+)$", text)
    return int(m.group(1), 16) // 16 if m else None


class Shape:
    """A kernel's landmarks in its listing (indices = PC / 16)."""

    def __init__(self, app, kernel, tests_per_level):
        c = self.code = listing(app, kernel)
        # (A branch to a BSYNC is inside a region, not a skip.)
        skips = [k for k, t in enumerate(c) if t.startswith("@!P0 BRA") and target(t) > k
                 and not c[target(t)].startswith("BSYNC")]
        same(f"{kernel}: forward @!P0 branches (no level, unrolled loop skipped, no remainder)",
             len(skips), 3)
        self.s1, self.s2, self.s3 = skips
        self.F, self.R = target(c[self.s1]), target(c[self.s2])
        same(f"{kernel}: the remainder check's target", target(c[self.s3]), self.F)
        back = [k for k, t in enumerate(c) if t.startswith("@P0 BRA") and target(t) < k]
        self.unrolled = next(k for k in back if self.s2 < k < self.R)
        same(f"{kernel}: the unrolled loop ends just before the remainder check",
             self.unrolled + 1, self.R)
        self.U = target(c[self.unrolled])
        rest = [k for k in back if self.s3 < k < self.F]
        self.remainder = rest[0] if rest else None
        self.T = target(c[rest[0]]) if rest else None
        tests = len([k for k in range(self.U, self.unrolled) if self.region(k) == "test"])
        self.u = tests // tests_per_level
        same(f"{kernel}: test regions of the unrolled body, a multiple of a level's", tests,
             self.u * tests_per_level)

    def bsync(self, k):
        """The BSYNC closing the BSSY at k (the instruction before the BSSY's target)."""
        y = int(self.code[k].split("0x")[1], 16) // 16 - 1
        same(f"the instruction before BSSY {16 * k:#x}'s target", self.code[y], "BSYNC B0")
        return y

    def region(self, k):
        """A BSSY's region: "test" (two branches to its BSYNC), "thread0" (one `@P1`)."""
        if not self.code[k].startswith("BSSY"):
            return None
        y = self.bsync(k)
        to_y = [j for j in range(k, y) if target(self.code[j]) == y]
        if len(to_y) == 2:
            return "test"
        if len(to_y) == 1 and self.code[to_y[0]].startswith("@P1 BRA"):
            return "thread0"
        raise Mismatch(f"a BSSY region at {16 * k:#x} of an unknown shape")


class Walk:
    """A warp's expected stream: (listing index, mask) in execution order."""

    def __init__(self, shape, warp, tests):
        self.s, self.code, self.items = shape, shape.code, []
        self.lane0 = 1 if warp == 0 else 0      # thread 0's lane, if in this warp
        self.tests = iter(tests)                # per test region: (l1, l2, stored) masks

    def step(self, k, mask, guards=None):
        m = GUARD.match(self.code[k])
        if m:
            if not guards or m.group(1) not in guards:
                raise Mismatch(f"unexpected guard at {16 * k:#x}: {self.code[k]}")
            mask &= guards[m.group(1)]
        self.items.append((k, mask))

    def run(self, lo, hi, mask=FULL, guards=None):
        for k in range(lo, hi + 1):
            self.step(k, mask, guards)

    def body(self, lo, hi, loop=None):
        """lo..hi with its regions; `loop` the lanes taking hi's backward branch."""
        k = lo
        while k <= hi:
            kind = self.s.region(k)
            if kind is None:
                g = {"!P1": self.lane0}
                if k == hi and loop is not None:
                    g["P0"] = loop
                self.step(k, FULL, g)
                k += 1
                continue
            y = self.s.bsync(k)
            brs = [j for j in range(k, y) if target(self.code[j]) == y]
            if kind == "test":
                l1, l2, stored = next(self.tests)
                self.run(k, brs[0], FULL, {"P0": FULL & ~l1})
                if l1:
                    self.run(brs[0] + 1, brs[1], l1, {"!P0": l1 & ~l2})
                if l2:
                    self.run(brs[1] + 1, y - 1, l2, {"!P0": stored})
            else:
                self.run(k, brs[0], FULL, {"P1": FULL & ~self.lane0})
                if self.lane0:
                    self.run(brs[0] + 1, y - 1, self.lane0)
            self.step(y, FULL)
            k = y + 1

    def descend(self, h):
        """From the start to F: the level loop for height h."""
        s = self.s
        self.run(0, s.s1, guards={"!P0": FULL if h < 1 else 0})
        if h < 1:
            return
        self.run(s.s1 + 1, s.s2, guards={"!P0": FULL if h < s.u else 0})
        if h >= s.u:
            self.run(s.s2 + 1, s.U - 1)
            trips = h // s.u
            for n in range(trips):
                self.body(s.U, s.unrolled, FULL if n < trips - 1 else 0)
        self.run(s.R, s.s3, guards={"!P0": FULL if h % s.u == 0 else 0})
        if h % s.u == 0:
            return
        if s.remainder is None:
            same("a remainder without its loop runs one level", h % s.u, 1)
            self.body(s.s3 + 1, s.F - 1)
        else:
            self.run(s.s3 + 1, s.T - 1)
            for n in range(h % s.u):
                self.body(s.T, s.remainder, FULL if n < h % s.u - 1 else 0)
            same("findK's remainder loop ends before F", s.remainder + 1, s.F)

    def final(self, start_match, keep):
        """F to the EXIT: `@!P0` = lanes whose key matches the start (findRangeK), `@P0 EXIT`
        removes the lanes that do not match (`keep` stay)."""
        cur = FULL
        for k in range(self.s.F, len(self.code)):
            t = self.code[k]
            if t == "@P0 EXIT":
                self.step(k, cur & ~keep, {"P0": FULL})
                cur &= keep
                if not cur:
                    return
            elif t == "EXIT":
                self.step(k, cur)
                return
            else:
                self.step(k, cur, {"!P0": start_match})


def mask_of(f, warp):
    return sum(1 << l for l in range(32) if f(32 * warp + l))


def compare(where, got, walk, want_acc):
    """A warp's trace against its walk (PCs, lanes, by class) and expected accesses."""
    code = walk.code
    same(f"{where}: instruction count", len(got), len(walk.items))
    op = lambda k: GUARD.sub("", code[k]).split()[0]
    same(f"{where}: instructions by class", by_class(got),
         by_class([(16 * k, m, op(k), []) for k, m in walk.items]))
    for n, (g, (k, m)) in enumerate(zip(got, walk.items)):
        if g[0] != 16 * k:
            raise Mismatch(f"{where}: instruction {n} is at PC {g[0]:#x}, the kernel's control "
                           f"flow gives {16 * k:#x} ({code[k]})")
        if g[1] != m:
            raise Mismatch(f"{where}: lanes of {code[k]} (PC {16 * k:#x}, #{n}): the trace has "
                           f"{g[1]:08x}, the kernel's definition gives {m:08x}")
    acc = sorted((opcode_class(g[2]), tuple(g[3])) for g in got if g[3])
    want = sorted(want_acc)
    if acc != want:
        extra = list((Counter(acc) - Counter(want)).elements())
        missing = list((Counter(want) - Counter(acc)).elements())
        show = lambda a: f"{a[0]} {[hex(x) for x in a[1][:2]]}..." if a else "nothing"
        raise Mismatch(f"{where}: {len(acc)} loads and stores in the trace, {len(want)} by the "
                       f"kernel's definition; the trace has {show(extra[0] if extra else None)} "
                       f"not in the definition, lacks {show(missing[0] if missing else None)}")


# ---- the check ------------------------------------------------------------------------------

def lanes(f, warp):
    """The lane values of threads 32 warp .. 32 warp + 31 (all live: 256 threads a block)."""
    return tuple(f(32 * warp + l) for l in range(32))


def on(mask, f, warp):
    return tuple(f(32 * warp + l) for l in range(32) if mask >> l & 1)


def check_bplustree(copies, kernels, args):
    if "file" not in args or "command" not in args:
        print("check-workload: the b+tree check needs its own inputs: b+tree:file=KEYS,"
              "command=COMMANDS (see scripts/workload_checks/bplustree.py)", file=sys.stderr)
        sys.exit(2)
    size, keys = read_keys(args["file"])
    commands = read_commands(args["command"])
    tree = Tree()
    for k in keys:
        tree.insert(k)
    knodes, index, record = transform(tree)
    h, elem = tree.height(), len(knodes)
    present = set(record)
    draw = draws(size)
    shapes = {FINDK: Shape("b+tree-findk", FINDK, 1),
              FINDRANGEK: Shape("b+tree-findrangek", FINDRANGEK, 2)}
    same("launches (one per command)", len(kernels), len(commands))

    # Each wrapper's cudaMallocs, then its copies, in order; memory is never reused (the
    # library's allocator does not model the wrappers' frees).
    sizes, want_copies, plans = [], [], []
    kn_mem = elem * KNODE
    for c in commands:
        n = c[1]
        if c[0] == "j":
            part = [kn_mem, 8 * n, 8 * n, 8 * n, 8 * n, 4 * n, 4 * n, 4 * n, 4 * n]
        else:
            part = [4 * size, kn_mem, 8 * n, 8 * n, 4 * n, 4 * n]
        sizes += part
        plans.append(len(part))
    bases = allocate(sizes)
    at = 0
    arrays = {}   # name -> (base, bytes)
    launches = []
    for i, (c, np_) in enumerate(zip(commands, plans)):
        b, s = bases[at:at + np_], sizes[at:at + np_]
        at += np_
        want_copies += list(zip(b, s))
        n = c[1]
        if c[0] == "j":
            names = ["knodes", "currKnode", "offset", "lastKnode", "offset_2", "start", "end",
                     "Recstart", "Reclen"]
            start, end = [], []
            for _ in range(n):
                st = next(draw)
                en = st + c[2]
                if en >= size:
                    st -= en - size
                    en = size - 1
                start.append(st)
                end.append(en)
            q = (start, end)
        else:
            names = ["records", "knodes", "currKnode", "offset", "keys", "ans"]
            q = ([next(draw) for _ in range(n)],)
        arrays.update({f"{nm} ({i + 1})": (bb, ss) for nm, bb, ss in zip(names, b, s)})
        launches.append((c[0], n, dict(zip(names, b)), q, i + 1))
    same("host copies", copies, want_copies)

    got_lines, want_lines = {}, {}

    def note(store, name, addrs):
        store.setdefault(name, set()).update(lines_of(addrs))

    def array_of(a):
        for nm, (b, s) in arrays.items():
            if b <= a < b + s:
                return nm
        return None

    for (header, blocks), (kind, n, d, q, no) in zip(kernels, launches):
        name = FINDRANGEK if kind == "j" else FINDK
        tag = f"launch {no} ({name})"
        same(f"{tag} kernel name", header.get("kernel name"), name)
        same(f"{tag} grid", header["grid dim"], f"({n},1,1)")
        same(f"{tag} block", header["block dim"], f"({ORDER},1,1)")
        same(f"{tag} shmem", header.get("shmem"), "0")
        same(f"{tag} blocks", sorted(blocks), [(b, 0, 0) for b in range(n)])
        shape = shapes[name]
        node_keys = lambda node, t: d["knodes"] + KNODE * node + KEYS + 4 * t
        node_idx = lambda node, t: d["knodes"] + KNODE * node + INDICES + 4 * t
        found = 0
        for b in range(n):
            keys_of = [q[0][b]] if kind == "k" else [q[0][b], q[1][b]]
            paths = [descent(knodes, h, key) for key in keys_of]
            # The reference run: main.c's find_leaf on the pointer tree.
            for key, p in zip(keys_of, paths):
                leaf = tree.find_leaf(key)
                if index[id(leaf)] != p[-1]:
                    raise Mismatch(f"{tag} block {b}: the kernel's descent for {key} ends at "
                                   f"knode {p[-1]}, main.c's find_leaf at {index[id(leaf)]}")
            # The knodes the block visits, from its warp 0's keys[thid] loads (lane 0's address).
            w0 = blocks[(b, 0, 0)].get(0, [])
            visited = [(g[3][0] - d["knodes"] - KEYS) // KNODE for g in w0
                       if g[2].startswith("LDG") and g[1] == FULL and len(g[3]) == 32
                       and g[3][1] - g[3][0] == 4
                       and (g[3][0] - d["knodes"] - KEYS) % KNODE == 0]
            if kind == "k":
                want_visit = paths[0]
            else:   # currKnode's node before each level, lastKnode's at its `end` test
                want_visit = [x for i in range(h + 1) for x in (paths[0][i], paths[1][i])]
            same(f"{tag} block {b}: knodes visited for {keys_of}", visited, want_visit)
            found += keys_of[0] in present
            same(f"{tag} block {b} warps", sorted(blocks[(b, 0, 0)]), list(range(WARPS)))
            for w in range(WARPS):
                where = f"{tag} block {b} warp {w}"
                tests, acc = [], []
                uni = lambda addr: tuple([addr] * 32)
                for i in range(h):
                    for j, (key, p) in enumerate(zip(keys_of, paths)):
                        kk, ix = knodes[p[i]]
                        l1 = mask_of(lambda t: kk[t] <= key, w)
                        l2 = l1 & mask_of(lambda t: kk[t + 1] > key, w)
                        stored = l2 & mask_of(lambda t: ix[t] < elem, w)
                        tests.append((l1, l2, stored))
                        node = p[i]
                        off = d["offset"] if j == 0 else d["offset_2"]
                        if kind == "j" and j == 1:   # lastKnode, end, keys[thid] at this test
                            acc += [("ldg", uni(d["lastKnode"] + 8 * b)),
                                    ("ldg", uni(d["end"] + 4 * b)),
                                    ("ldg", lanes(lambda t: node_keys(node, t), w))]
                        if l1:
                            acc.append(("ldg", on(l1, lambda t: node_keys(node, t + 1), w)))
                        if l2:
                            if kind == "k":   # knodesD[offsetD[bid]].indices[thid]
                                acc.append(("ldg", on(l2, lambda t: off + 8 * b, w)))
                            acc.append(("ldg", on(l2, lambda t: node_idx(node, t), w)))
                        if stored:
                            acc.append(("stg", on(stored, lambda t: off + 8 * b, w)))
                    if w == 0:   # thread 0: currKnode = offset (lastKnode = offset_2)
                        acc += [("ldg", (d["offset"] + 8 * b,)),
                                ("stg", (d["currKnode"] + 8 * b,))]
                        if kind == "j":
                            acc += [("ldg", (d["offset_2"] + 8 * b,)),
                                    ("stg", (d["lastKnode"] + 8 * b,))]
                # currKnode[bid], the key, keys[thid]: before the loop and after each level.
                key_arr = "keys" if kind == "k" else "start"
                for i in range(h + 1):
                    node = paths[0][i]
                    acc += [("ldg", uni(d["currKnode"] + 8 * b)),
                            ("ldg", uni(d[key_arr] + 4 * b)),
                            ("ldg", lanes(lambda t: node_keys(node, t), w))]
                leaf = paths[0][h]
                kk, ix = knodes[leaf]
                m0 = mask_of(lambda t: kk[t] == keys_of[0], w)
                if kind == "k":
                    if m0:
                        acc += [("ldg", on(m0, lambda t: node_idx(leaf, t), w)),
                                ("ldg", on(m0, lambda t: d["records"] + 4 * ix[t], w)),
                                ("stg", on(m0, lambda t: d["ans"] + 4 * b, w))]
                    keep, start_match = m0, 0
                else:
                    last = paths[1][h]
                    lk, lx = knodes[last]
                    m1 = mask_of(lambda t: lk[t] == keys_of[1], w)
                    if m0:
                        acc += [("ldg", on(m0, lambda t: node_idx(leaf, t), w)),
                                ("stg", on(m0, lambda t: d["Recstart"] + 4 * b, w))]
                    acc += [("ldg", uni(d["lastKnode"] + 8 * b)),
                            ("ldg", uni(d["end"] + 4 * b)),
                            ("ldg", lanes(lambda t: node_keys(last, t), w))]
                    if m1:
                        acc += [("ldg", on(m1, lambda t: node_idx(last, t), w)),
                                ("ldg", on(m1, lambda t: d["Recstart"] + 4 * b, w)),
                                ("stg", on(m1, lambda t: d["Reclen"] + 4 * b, w))]
                    keep, start_match = m1, m0
                walk = Walk(shape, w, tests)
                walk.descend(h)
                walk.final(start_match, keep)
                got = blocks[(b, 0, 0)][w]
                compare(where, got, walk, acc)
                for cls, addrs in acc:
                    note(want_lines, (array_of(addrs[0]), cls), addrs)
                for g in got:
                    if g[3]:
                        cls = opcode_class(g[2])
                        for a in g[3]:
                            nm = array_of(a)
                            if nm is None:
                                raise Mismatch(f"{where}: PC {g[0]:#x} address {a:#x} is in "
                                               f"no array")
                            note(got_lines, (nm, cls), [a])
        # Which queries find their key (findK's answers; findRangeK's start records), from the
        # reference run, against the blocks whose answer store the trace has.
        stores = "ans" if kind == "k" else "Recstart"
        base = d[stores]
        answered = {(a - base) // 4 for (_, blocks_) in [(header, blocks)]
                    for warps in blocks_.values() for insts in warps.values()
                    for g in insts if g[2].startswith("STG") for a in g[3]
                    if base <= a < base + 4 * n}
        same(f"{tag}: queries whose key is found (stores to {stores})", len(answered), found)
    for key in sorted(set(got_lines) | set(want_lines), key=str):
        same(f"lines of {key[0]} ({key[1]})", got_lines.get(key, set()),
             want_lines.get(key, set()))


CHECKS = {"b+tree": check_bplustree}

if __name__ == "__main__":
    if sys.argv[1] == "keys":
        extra = sys.argv[4:]
        write_keys(sys.argv[2], int(sys.argv[3]), *(extra[:1]),
                   *([int(extra[1])] if len(extra) > 1 else []))
    else:
        write_commands(sys.argv[2], *sys.argv[3:])
