"""Rodinia 3.1 kmeans: `invert_mapping` and `kmeansPoint` (kmeans_cuda_kernel.cu, patched by
scripts/kernel-patches/kmeans.patch: the texture fetch is a plain load of features[addr]),
launched by kmeans_cuda.cu (allocateMemory, kmeansCuda) under kmeans_clustering.c's loop;
re-derived from the CUDA source and the static shape of golden/sass/kmeans.sass.

The check needs its own input: points in Rodinia's text format, passed with `file=`:

    python3 -m workload_checks.kmeans PATH POINTS FEATURES [SEED]   (in scripts/; writes it)
    warpsmith trace --workload kmeans:file=PATH,clusters=K,c_clusters=set --out DIR
    scripts/check-workload.py DIR kmeans:file=PATH,clusters=K,c_clusters=set

(the small run: 2000 points, 8 features, clusters=3; the other shape: 300 points, 34 features,
clusters=5: a partial block, grid 2 x 2 with a block of no live thread, the 16-wide unrolled
feature loop twice and a remainder of 2). The features written are multiples of 1/1024, so that
atof and a direct float parse agree. The check reads the same file (args["file"]).

How: a reference run of kmeans_clustering: centres = the first K points (its swap loop), then
per round the kernel's assignment computed as the GPU computes it (per feature a float32
FADD, then an FFMA into the sum, in feature order; the first cluster with the strictly least
distance), then the host's float32 centre sums and means, until no point changed (delta >
0.001) or 501 rounds. Without c_clusters=set the __constant__ centres stay zero, every distance
ties and all points go to cluster 0: two rounds. The rounds give the launches and the host's
copies. Each warp's stream is built from the listing's landmarks: the compiler unrolled both
feature loops by 4 (a 16-wide body looped while more than 12 remain, an 8-wide one once if
more than 4 remain, a 4-wide loop, then the remainder); the branches' outcomes follow from the
feature count alone, the same for every live lane, so every instruction's lanes are the
warp's live lanes (or none, for a guarded one whose guard fails). The loads' and stores'
addresses come from the CUDA index expressions, per thread, in the source's loop order.
"""
import math
import random
import re
import struct
import sys
from fractions import Fraction

from .common import Mismatch, allocate, by_class, lines_of, listing, same

THREADS = 256  # THREADS_PER_DIM squared
INVERT = "_Z14invert_mappingPfS_ii"
POINT = "_Z11kmeansPointPfiiiPiS_S_S0_"


def write_points(path, npoints, nfeatures, seed=1):
    rnd = random.Random(seed)
    with open(path, "w") as f:
        for i in range(npoints):
            f.write(f"{i} " + " ".join(repr(rnd.randrange(1024) / 1024) for _ in range(nfeatures))
                    + "\n")


def read_points(path):
    rows = [l.split()[1:] for l in open(path) if l.strip()]
    return [[f32(float(w)) for w in r] for r in rows]


def f32(x):
    """x rounded to float32 (round to nearest even), as a Python float."""
    return struct.unpack("f", struct.pack("f", x))[0]


def f32_exact(q):
    """A Fraction rounded to float32 once (for the FFMA's single rounding)."""
    if q == 0:
        return 0.0
    sign, q = (-1 if q < 0 else 1), abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if Fraction(2) ** e > q:
        e -= 1
    e = max(e, -126)
    scale = Fraction(2) ** (e - 23)
    m = q / scale
    r = math.floor(m)
    if m - r > Fraction(1, 2) or (m - r == Fraction(1, 2) and r % 2):
        r += 1
    return sign * float(r * scale)


def ffma(a, b, c):
    """float32 fma(a, b, c): a*b is exact in a double; the double sum's rounding then rounding to
    float32 is wrong only if the double sum lands on a float32 midpoint, redone exactly then."""
    s = a * b + c
    r = f32(s)
    bits = struct.unpack("<Q", struct.pack("<d", s))[0]
    if s != 0 and (bits & ((1 << 29) - 1)) == 1 << 28:
        r = f32_exact(Fraction(a) * Fraction(b) + Fraction(c))
    return r


def reference(points, k, centres_set):
    """kmeans_clustering's rounds: the list of each round's memberships."""
    n, nf = len(points), len(points[0])
    initial, left, clusters = list(range(n)), n, []
    for i in range(k):  # "randomly pick cluster centers" (the rand() is commented out): n = i
        clusters.append(list(points[initial[i]]))
        initial[i], initial[left - 1] = initial[left - 1], initial[i]
        left -= 1
    membership, rounds, loop = [-1] * n, [], 0
    while True:
        new = []
        for p in points:
            best, index = float("inf"), -1  # FLT_MAX: no float32 distance exceeds it here
            for c in range(k):
                ans = 0.0
                for j in range(nf):
                    d = f32(p[j] - (clusters[c][j] if centres_set else 0.0))
                    ans = ffma(d, d, ans)
                if ans < best:
                    best, index = ans, c
            new.append(index)
        rounds.append(new)
        delta = sum(1 for a, b in zip(new, membership) if a != b)
        membership = new
        sums, lens = [[0.0] * nf for _ in range(k)], [0] * k
        for p, c in zip(points, new):
            lens[c] += 1
            for j in range(nf):
                sums[c][j] = f32(sums[c][j] + p[j])
        for c in range(k):
            if lens[c] > 0:
                clusters[c] = [f32(s / lens[c]) for s in sums[c]]
        if not (delta > 0.001) or not loop < 500:
            break
        loop += 1
    return rounds


def target(t):
    m = re.search(r"BRA 0x([0-9a-f]+)$", t)
    return int(m.group(1), 16) // 16


def guarded_flow(code, lo):
    """Indices of the guarded branches and exits from lo on, in order."""
    return [k for k in range(lo, len(code)) if code[k].startswith("@")
            and re.search(r"\b(BRA|EXIT)\b", code[k])]


class Path:
    """A warp's expected (pc, taken) sequence; `taken` is the guard's value for a guarded
    instruction (uniform over the live lanes here), None for an unguarded one."""

    def __init__(self, code):
        self.code, self.out = code, []

    def run(self, lo, hi, guard=None):
        for k in range(lo, hi + 1):
            self.out.append((k, guard if self.code[k].startswith("@") else None))


def unrolled(p, lo, br, n):
    """The compiler's unrolled-by-4 loop over n (>= 1) iterations, from lo; br: its first seven
    guarded branches (to the remainder if n < 4; to the 4-wide loop if no multiple of 4 (never,
    n >= 4 there); past the 16-wide body if at most 12 remain; the 16-wide body's backward
    BRA; past the 8-wide body if at most 4 remain; to the remainder if no 4 remain after a
    wider body ran; the 4-wide body's backward BRA). Returns where the remainder starts."""
    rem_at = target(p.code[br[0]])
    same("the unrolled loop's two exits to the remainder", target(p.code[br[5]]), rem_at)
    same("the 4-wide loop ends before the remainder", br[6] + 1, rem_at)
    p.run(lo, br[0], n < 4)
    if n < 4:
        return rem_at
    r = n - n % 4
    p.run(br[0] + 1, br[1], False)
    p.run(br[1] + 1, br[2], r <= 12)
    ran, first = False, br[2] + 1    # the first pass starts at the PLOP3 clearing "none ran"
    while r > 12:
        p.run(first, br[3], r - 16 > 12)
        r, ran, first = r - 16, True, target(p.code[br[3]])
    p.run(target(p.code[br[2]]), br[4], r <= 4)
    if r > 4:
        p.run(br[4] + 1, target(p.code[br[4]]) - 1)
        r, ran = r - 8, True
    p.run(target(p.code[br[4]]), br[5], r == 0 and ran)
    if not (r == 0 and ran):
        while r > 0:
            p.run(target(p.code[br[6]]), br[6], r - 4 != 0)
            r -= 4
    return rem_at


def invert_path(code, nf):
    p = Path(code)
    x0 = next(k for k, t in enumerate(code) if t == "@P0 EXIT")
    br = guarded_flow(code, x0 + 1)
    rem = unrolled(p, x0 + 1, br[:7], nf)
    # The remainder: `@!P0 EXIT` if none, then a one-at-a-time loop (its backward BRA).
    same("invert_mapping: the remainder's exit", code[br[7]], "@!P0 EXIT")
    p.run(rem, br[7], nf % 4 == 0)
    if nf % 4:
        top = target(code[br[8]])
        p.run(br[7] + 1, top - 1)
        for t in range(nf % 4):
            p.run(top, br[8], t + 1 < nf % 4)
        p.run(br[8] + 1, next(k for k in range(br[8], len(code)) if code[k] == "EXIT"))
    return x0, p.out


def point_path(code, nf, k):
    p = Path(code)
    x0 = next(k for k, t in enumerate(code) if t == "@P0 EXIT")
    br = guarded_flow(code, x0 + 1)
    # br[0]: skip the loops if nclusters < 1 (not here); br[1]: to the loop over features if
    # nfeatures >= 1 (the other path, for no features, only compares zeros).
    p.run(x0 + 1, br[0], False)
    p.run(br[0] + 1, br[1], True)
    last = br[-1]                                  # the cluster loop's backward BRA
    top = target(code[last])
    p.run(target(code[br[1]]), top - 1)
    inner = [b for b in br if top <= b < last]
    for c in range(k):
        rem = unrolled(p, top, inner[:7], nf)
        end = target(code[inner[7]])
        same("kmeansPoint: the remainder's exits", target(code[inner[8]]), end)
        p.run(rem, inner[7], nf % 4 == 0)          # no remainder
        if nf % 4:
            p.run(inner[7] + 1, inner[8], nf % 4 == 1)   # one
            if nf % 4 > 1:
                p.run(inner[8] + 1, end - 1, nf % 4 == 3)  # two, the third's part guarded
        p.run(end, last, c + 1 < k)
    p.run(last + 1, next(j for j in range(last, len(code)) if code[j] == "EXIT"))
    return x0, p.out


def opcode(t):
    return re.sub(r"^@!?U?P\w+ ", "", t).split()[0]


_WANT = {}


def check_warp(where, got, code, x0, path, live, dead):
    """One warp: the bounds check's EXIT with the dead lanes, then (if any lane is live) the
    path with the live lanes."""
    key = (id(path), live, dead)
    if key not in _WANT:   # the same for every warp with these lanes: built once
        full = live | dead
        want = [(16 * j, full) for j in range(x0)] + [(16 * x0, dead)]
        if live:
            want += [(16 * j, live if g in (None, True) else 0) for j, g in path]
        _WANT[key] = (want, by_class([(pc, 0, opcode(code[pc // 16]), []) for pc, _ in want]))
    want, classes = _WANT[key]
    same(f"{where} instructions", len(got), len(want))
    same(f"{where} instructions by class", by_class(got), classes)
    if [(g[0], g[1]) for g in got] != want:
        for g, (pc, mask) in zip(got, want):
            same(f"{where} pc", g[0], pc)
            same(f"{where} lanes at {pc:#x}", g[1], mask)


def check_kmeans(copies, kernels, args):
    if "file" not in args:
        print("check-workload: the kmeans check needs its own points: kmeans:file=PATH (see "
              "scripts/workload_checks/kmeans.py)", file=sys.stderr)
        sys.exit(2)
    points = read_points(args["file"])
    n, nf, k = len(points), len(points[0]), int(args.get("clusters", 5))
    centres_set = args.get("c_clusters", "unset") == "set"
    rounds = reference(points, k, centres_set)
    blocks = -(-n // THREADS)
    per = int(math.sqrt(blocks))
    while per * per < blocks:
        per += 1
    # allocateMemory: feature_flipped_d (copied), feature_d; membership_d, clusters_d; then per
    # round kmeansCuda copies membership_new and the centres (cudaMemcpyToSymbol's constant
    # copy is not a global-memory copy).
    flipped, feat, memb, clus = allocate([4 * n * nf, 4 * n * nf, 4 * n, 4 * k * nf])
    same("host copies", copies, [(flipped, 4 * n * nf)] + [(memb, 4 * n), (clus, 4 * k * nf)]
         * len(rounds))
    same("launches (invert_mapping, then one kmeansPoint per round)", len(kernels),
         1 + len(rounds))

    inv, pt = listing("kmeans", INVERT), listing("kmeans", POINT)
    ix0, ipath = invert_path(inv, nf)
    px0, ppath = point_path(pt, nf, k)
    lines = {}
    for r, (header, tbs) in enumerate(kernels):
        name = INVERT if r == 0 else POINT
        tag = "invert_mapping" if r == 0 else f"kmeansPoint round {r}"
        same(f"{tag} name", header.get("kernel name"), name)
        grid = f"({per * per},1,1)" if r == 0 else f"({per},{per},1)"
        same(f"{tag} grid", header["grid dim"], grid)
        same(f"{tag} block", header["block dim"], f"({THREADS},1,1)")
        same(f"{tag} shmem", header.get("shmem"), "0")
        ids = ([(b, 0, 0) for b in range(per * per)] if r == 0 else
               [(x, y, 0) for x in range(per) for y in range(per)])
        same(f"{tag} blocks", sorted(tbs), sorted(ids))
        for tb in ids:
            same(f"{tag} block {tb} warps", sorted(tbs[tb]), list(range(THREADS // 32)))
            bid = tb[0] if r == 0 else per * tb[1] + tb[0]   # gridDim.x*blockIdx.y+blockIdx.x
            for w in range(THREADS // 32):
                where = f"{tag} block {tb} warp {w}"
                got = tbs[tb][w]
                pid = {l: bid * THREADS + 32 * w + l for l in range(32)}
                live = sum(1 << l for l in range(32) if pid[l] < n)
                dead = 0xFFFFFFFF & ~live
                if r == 0:
                    check_warp(where, got, inv, ix0, ipath, live, dead)
                else:
                    check_warp(where, got, pt, px0, ppath, live, dead)
                on = [l for l in range(32) if pid[l] < n]
                loads = [i[3] for i in got if i[2].startswith("LDG") and i[1]]
                stores = [i[3] for i in got if i[2].startswith("STG") and i[1]]
                if r == 0:   # output[point_id + npoints*i] = input[point_id*nfeatures + i]
                    wl = [[flipped + 4 * (pid[l] * nf + i) for l in on] for i in range(nf)]
                    ws = [[feat + 4 * (pid[l] + n * i) for l in on] for i in range(nf)]
                    arrays = (("feature_flipped_d", "load", wl), ("feature_d", "store", ws))
                else:        # features[point_id + j*npoints], per cluster; membership[point_id]
                    wl = [[feat + 4 * (pid[l] + j * n) for l in on] for _ in range(k)
                          for j in range(nf)]
                    ws = [[memb + 4 * pid[l] for l in on]] if on else []
                    arrays = (("feature_d", "load", wl), ("membership_d", "store", ws))
                if not on:   # a warp with no live lane exits at the bounds check
                    wl, ws = [], []
                same_addrs(f"{where} load addresses", loads, wl)
                same_addrs(f"{where} store addresses", stores, ws)
                for arr, kind, lists in arrays:
                    for a in lists:
                        lines.setdefault((r, arr, kind), set()).update(lines_of(a))
        # Per array, its lines: the whole arrays (every point's every feature, every point's
        # membership), against what the trace's instructions touched.
        got_lines = {}
        for tb in tbs.values():
            for insts in tb.values():
                for i in insts:
                    if i[3]:
                        kind = "load" if i[2].startswith("LDG") else "store"
                        got_lines.setdefault(kind, set()).update(lines_of(i[3]))
        whole = {"feature_flipped_d": (flipped, 4 * n * nf), "feature_d": (feat, 4 * n * nf),
                 "membership_d": (memb, 4 * n)}
        want_lines = {}
        for (rr, arr, kind), s in lines.items():
            if rr == r:
                base, size = whole[arr]
                same(f"{tag} lines of {arr} ({kind}s)", s, lines_of(range(base, base + size, 4)))
                want_lines.setdefault(kind, set()).update(s)
        for kind in ("load", "store"):
            same(f"{tag} lines {kind}ed", got_lines.get(kind, set()), want_lines.get(kind, set()))


def same_addrs(what, got, want):
    """Compare lists of per-instruction lane addresses, naming the first that differs."""
    if got != want:
        for k, (g, w) in enumerate(zip(got, want)):
            if g != w:
                j = next((i for i, (a, b) in enumerate(zip(g, w)) if a != b), min(len(g), len(w)))
                gs = f"{g[j]:#x}" if j < len(g) else "nothing"
                ws = f"{w[j]:#x}" if j < len(w) else "nothing"
                raise Mismatch(f"{what}: memory instruction #{k}, active lane #{j}: the trace "
                               f"has {gs}, the kernel's definition gives {ws}")
        raise Mismatch(f"{what}: the trace has {len(got)} memory instructions, the kernel's "
                       f"definition gives {len(want)}")


CHECKS = {"kmeans": check_kmeans}

if __name__ == "__main__":
    write_points(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]),
                 int(sys.argv[4]) if len(sys.argv) > 4 else 1)
