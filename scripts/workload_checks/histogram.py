"""histogram: NVIDIA cuda-samples v11.5 Samples/histogram (main.cpp's host code, histogram64.cu's
histogram64Kernel and mergeHistogram64Kernel, histogram256.cu's histogram256Kernel and
mergeHistogram256Kernel), re-derived independently of the emulator from the CUDA source and the
static shape of golden/sass/histogram64.sass and histogram256.sass.

Host (main.cpp): bytes h_Data[i] = rand() % 256 after srand(2009) (glibc's rand, through
common.glibc_rand); cudaMalloc d_Data (byteCount), d_Histogram (256 uints); copy d_Data;
initHistogram64 mallocs d_PartialHistograms64 (32768 * 64 uints); warm-up plus `runs` calls of
histogram64() = histogram64Kernel<<<histogramCount, 64>>> (histogramCount = ceil(byteCount /
(64 * 240)), dataCount = byteCount / 16 uint4s), mergeHistogram64Kernel<<<64, 256>>>; then
initHistogram256 mallocs d_PartialHistograms256 (240 * 256 uints; the library does not model
closeHistogram64's free, docs/workloads.md) and the same for histogram256Kernel<<<240, 192>>>
(dataCount = byteCount / 4 uints), mergeHistogram256Kernel<<<256, 256>>>(.., 240).

Per warp, the expected stream is built as listing indices (warp_paths.Path) from the kernels'
loops evaluated per lane in Python:
  * histogram64Kernel: straight-line clear (16 STS), barrier, the grid-stride loop (`@P1 BRA`
    skips it, body from the backward `@!P1 BRA`'s target to it; per iteration one LDG.128 and
    16 LDS.U8/STS.U8 pairs, in the source's addByte order: x, y, z, w, low byte first), the
    barrier, `@P0 EXIT` (threadIdx.x >= 64: nobody), the 64 LDS.U8 row sum (i-major, byte
    minor, as the listing's offsets show) and one STG.
  * histogram256Kernel: clear (8 STS), barrier, the grid-stride loop (entry skip `@P0 BRA`, body
    to the loop's exit test `@P0 BRA`, then the continuing lanes' VOTE/YIELD/`@!P0 BRA.U` back
    edge; the BRA.U is always taken, VOTE.ANY and VOTEU.ANY of the same lanes agree), BSYNC,
    `BRA.CONV` to the barrier (the warp is converged after the BSYNC: the CALL to the barrier
    subroutine is for divergent warps and is not run), then the bin loop (bin = tid; bin < 256;
    bin += 192), compiled as a dead peel (lanes with tid >= 256), a 4x-unrolled loop, a 2x block
    and a 1x tail reached through `@!P0 EXIT`.
  * the merge kernels: the loop (i = tid; i < histogramCount; i += 256) compiled as the same
    shape (a peeled iteration guarded by tid >= histogramCount, never true there: recorded with
    mask 0; a 4x-unrolled loop while 4 or more remain; a 2x block; a 1x block), then the tree
    reduction of guarded LDS/STS (stride 128 .. 2, each after a barrier, the stride read from
    the second LDS's offset), `@P1 EXIT` for tid != 0, and thread 0's last stage and STG.
Compared exactly: the host copies, the launches (name, grid, block, shared memory, every block
with its warps), every warp's PC sequence (hence its count and count by class), the lanes of
every global and shared memory and atomic instruction, the lane addresses of every instruction
of the data loops (LDG, LDS.U8/STS.U8, ATOMS) and of the clears, the multiset of the other
addresses each warp loads and stores, and each array's 128-byte lines loaded and stored.

The reference run: the bin counts of the input. For histogram64Kernel the per-thread byte
counters are at shared byte threadPos + 64 * bin, so the loop's STS.U8 to address a counts one
byte of bin a // 64; for histogram256Kernel the ATOMS.ADD to word a / 4 counts bin (a / 4) % 256.
Both are compared per bin with histogram64CPU / histogram256CPU's counts of the data.

Runs: the small run `histogram:bytes=16` (one histogram64 block, 4 words for histogram256:
mostly idle warps) and `histogram:bytes=212000` (14 histogram64 blocks whose lanes run 14 or 15
iterations, block 11's first warp diverging; histogram256's block 36 with lanes of 2 and 1
iterations). Sizes where ceil(bytes / 15360) > 256 also exercise the merge64 loop's 2x block.
"""
import re

from .common import Mismatch, allocate, glibc_rand, lines_of, opcode_class, same
from .warp_paths import Listing, Path, check_grid, compare_warp, lines_by_array, same_addresses

H64, M64 = "_Z17histogram64KernelPjP5uint4j", "_Z22mergeHistogram64KernelPjS_j"
K256, M256 = "_Z18histogram256KernelPjS_j", "_Z23mergeHistogram256KernelPjS_j"
MAX_PARTIAL64, PARTIAL256 = 32768, 240


def target(code, k):
    """The index any branch (BRA, BRA.U, BRA.CONV) at k goes to."""
    return int(re.search(r"BRA[.A-Z]* (?:!?P\d, )?0x([0-9a-f]+)", code.text[k]).group(1), 16) // 16


def lanes(pred):
    """The mask of lanes l (0..31) for which pred(l)."""
    return sum(1 << l for l in range(32) if pred(l))


def input_bytes(n):
    r = glibc_rand(2009)
    return bytes(next(r) % 256 for _ in range(n))


def word(data, i):
    """The i-th little-endian uint of the data."""
    return int.from_bytes(data[4 * i:4 * i + 4], "little")


# ------------------------------------------------------------------ the shared loop shape

class Unrolled:
    """The compiler's shape of `for (i = start; i < end; i += step)` seen in the merge
    kernels and in histogram256Kernel's bin loop (from the first `BSSY` after `first`):
    a peel guarded by `start >= end` (dead: run only by lanes the preceding test already sent
    away), a 4x-unrolled loop run while 4 or more iterations remain, a 2x block while 2 or
    more remain, and a 1x tail. Landmarks by pattern:
      skip4  the first `@P2 BRA`/`@P1 BRA` whose test is `<= 0x{3*step}` (skips the 4x loop),
      back4  the backward `@!P1 BRA` (the 4x loop's body is from its target to it),
      skip2  the next `@P1 BRA` (skips the 2x block; its target is the BSYNC after it),
      tail   the `@!P0 BRA` / `@!P0 EXIT` before the 1x tail."""

    def __init__(self, code, first, step):
        self.code = code
        t = code.text
        le3 = code.find(rf"ISETP\.LE\.U32\.OR P\d, PT, R\d+, {hex(3 * step)}", first)
        self.skip4 = code.find(r"^@P\d BRA 0x", le3)
        self.join4 = target(code, self.skip4)
        self.back4 = self.join4 - 1
        assert re.match(r"@!P1 BRA 0x", t[self.back4]), t[self.back4]
        self.top4 = target(code, self.back4)
        le1 = code.find(rf"ISETP\.LE\.U32\.OR P\d, PT, R\d+, {hex(step)}", self.join4)
        self.skip2 = code.find(r"^@P\d BRA 0x", le1)
        self.join2 = target(code, self.skip2)
        self.tail = code.find(r"^@!P0 (BRA|EXIT)", self.join2)

    def run(self, p, trips):
        """Append to Path p the loop's stream for per-lane trip counts `trips` (lanes with
        t >= 1 enter here), returning the lanes that reach the 1x tail."""
        m1 = lanes(lambda l: trips[l] >= 1)
        n4 = [t // 4 for t in trips]
        r = [t % 4 for t in trips]
        p.to(self.skip4, m1)
        if max(n4):
            p.to(self.top4 - 1, lanes(lambda l: n4[l] >= 1))   # the 4x loop's preheader
            for it in range(1, max(n4) + 1):
                p.goto(self.top4)
                p.to(self.back4, lanes(lambda l: n4[l] >= it))
        p.goto(self.join4)
        p.to(self.skip2, m1)
        m2 = lanes(lambda l: r[l] >= 2)
        if m2:
            p.to(self.join2 - 1, m2)
        p.goto(self.join2)
        p.to(self.tail, m1)
        return lanes(lambda l: r[l] % 2 == 1)


# ------------------------------------------------------------------ histogram64Kernel

def check_histogram64(header, blocks, data, d_data, d_partial, nblocks):
    code = Listing("histogram64", H64)
    count = len(data) // 16
    same("histogram64Kernel name", header["kernel name"], H64)
    same("histogram64Kernel shared memory", header["shmem"], str(64 * 64))
    check_grid(header, blocks, (nblocks, 1, 1), (64, 1, 1))
    # Landmarks: the loop's entry skip, its backward branch (the body is from the branch's
    # target to it), the BSYNC it all reconverges at, the `@P0 EXIT` (threadIdx.x >= 64).
    skip = code.find(r"^@P1 BRA 0x")
    join = target(code, skip)
    back = join - 1
    assert re.match(r"@!P1 BRA", code.text[back])
    top = target(code, back)
    early = code.find(r"^@P0 EXIT")
    last = code.find(r"^EXIT")
    clears = code.all(r"^STS \[R0\.X4")                    # s_Hist[tid + 64 i] = 0, i = 0..15
    loop_lds, loop_sts = code.all(r"LDS\.U\.U8", top, back), code.all(r"STS\.U8", top, back)
    ldg = code.find(r"LDG\.E\.128", skip)
    sums = code.all(r"LDS\.U\.U8", early)
    stg = code.find(r"^STG", early)
    same("histogram64Kernel listing: clears, byte updates, row reads",
         (len(clears), len(loop_lds), len(loop_sts), len(sums)), (16, 16, 16, 64))
    bins = [0] * 64
    for (bx, _, _), warps in blocks.items():
        for w, insts in warps.items():
            where = f"histogram64Kernel block {bx} warp {w}"
            tid = [32 * w + l for l in range(32)]
            pos0 = [bx * 64 + t for t in tid]
            stride = 64 * nblocks
            trips = [len(range(q, count, stride)) for q in pos0]
            p = Path(code)
            p.to(skip)
            want = {k: [] for k in clears + loop_lds + loop_sts + [ldg]}
            for i, k in enumerate(clears):
                want[k].append([4 * (t + 64 * i) for t in tid])
            if max(trips):
                p.to(top - 1, lanes(lambda l: trips[l] >= 1))
                for it in range(1, max(trips) + 1):
                    p.goto(top)
                    act = [l for l in range(32) if trips[l] >= it]
                    p.to(back, lanes(lambda l: trips[l] >= it))
                    pos = {l: pos0[l] + (it - 1) * stride for l in act}
                    want[ldg].append([d_data + 16 * pos[l] for l in act])
                    # threadPos: the source's bit permutation of threadIdx.x
                    tpos = {l: (tid[l] & ~63) | ((tid[l] & 15) << 2) | ((tid[l] & 48) >> 4)
                            for l in act}
                    for j in range(16):   # addWord(x), (y), (z), (w); bytes low to high
                        a = [tpos[l] + 64 * ((word(data, 4 * pos[l] + j // 4) >> (2 + 8 * (j % 4)))
                                             & 63) for l in act]
                        want[loop_lds[j]].append(a)
                        want[loop_sts[j]].append(a)
            p.goto(join)
            p.to(early)              # threadIdx.x < 64 for every thread: nobody exits
            p.to(last)
            compare_warp(where, insts, p)
            # the row sum: s_Hist[tid * 64 + ((4 (tid & 15) + 4 i) & 63) + j], in the
            # listing's order i-major, byte j minor (its offsets +0x0..+0x3 per row pointer)
            for n, k in enumerate(sums):
                i, j = divmod(n, 4)
                want[k] = [[t * 64 + ((4 * (t & 15) + 4 * i) & 63) + j for t in tid]]
            want[stg] = [[d_partial + 4 * (bx * 64 + t) for t in tid]]
            exact_addresses(where, code, insts, want)
            for i in insts:
                if i[0] // 16 in loop_sts:
                    for a in i[3]:
                        bins[a // 64] += 1
    ref = [0] * 64
    for b in data:
        ref[b >> 2] += 1
    compare_bins("histogram64Kernel: byte-counter updates (STS.U8) per bin", bins, ref)


def exact_addresses(where, code, insts, want):
    """Each listed instruction's executions, in order, have exactly the wanted lane
    addresses (the active lanes' in lane order)."""
    got = {k: [] for k in want}
    for i in insts:
        if i[0] // 16 in got:
            got[i[0] // 16].append(i[3])
    for k in want:
        if got[k] != want[k]:
            n = next((n for n, (g, w) in enumerate(zip(got[k], want[k])) if g != w),
                     min(len(got[k]), len(want[k])))
            g = got[k][n] if n < len(got[k]) else None
            w = want[k][n] if n < len(want[k]) else None
            if g is None or w is None:
                detail = "is missing" if g is None else "is not in the definition"
            elif len(g) != len(w):
                detail = f"has {len(g)} lane addresses, the definition {len(w)}"
            else:
                j = next(j for j in range(len(g)) if g[j] != w[j])
                detail = (f"has {g[j]:#x} at its active lane #{j}, the kernel's definition "
                          f"gives {w[j]:#x}")
            raise Mismatch(f"{where}: execution {n} of {code.text[k]} (PC {16 * k:#x}) {detail}")


def compare_bins(what, got, want):
    if got != want:
        b = next(b for b in range(len(want)) if got[b] != want[b])
        raise Mismatch(f"{what}: bin {b} has {got[b]} in the trace, the reference run of the "
                       f"input gives {want[b]} (total {sum(got)} against {sum(want)})")


# ------------------------------------------------------------------ histogram256Kernel

def check_histogram256(header, blocks, data, d_data, d_partial):
    code = Listing("histogram256", K256)
    count = len(data) // 4
    same("histogram256Kernel name", header["kernel name"], K256)
    same("histogram256Kernel shared memory", header["shmem"], str(6 * 256 * 4))
    check_grid(header, blocks, (PARTIAL256, 1, 1), (192, 1, 1))
    # Landmarks. The data loop: `@P0 BRA` skips it (target: the BSYNC), a 3-instruction
    # preheader, the body from the BRA.U's target to the second `@P0 BRA` (the exit test,
    # pos >= dataCount), then the continuing lanes' VOTE .. `@!P0 BRA.U` back edge.
    skip = code.find(r"^@P0 BRA 0x")
    join = target(code, skip)
    exit_test = code.find(r"^@P0 BRA 0x", skip + 1)
    assert target(code, exit_test) == join and exit_test < join
    bra_u = code.find(r"BRA\.U 0x")
    top = target(code, bra_u)
    assert exit_test < bra_u < join
    conv = code.find(r"^BRA\.CONV 0x")                      # converged: to the BAR.SYNC
    bar = target(code, conv)
    early = code.find(r"^@P0 EXIT", bar)                    # threadIdx.x > 255: nobody
    peel = code.find(r"^@!P1 BRA 0x", early)                # the dead peel (tid >= 256)
    peel_join = target(code, peel)
    loop = Unrolled(code, peel_join, 192)
    last = code.find(r"^EXIT", loop.tail)
    clears = code.all(r"^STS \[R3\.X4")                     # s_Hist[tid + 192 i] = 0
    ldg = code.find(r"^LDG", top)
    atoms = code.all(r"^ATOMS\.ADD", top, exit_test)
    merge_lds = code.all(r"^LDS", bar)
    same("histogram256Kernel listing: clears, atomics", (len(clears), len(atoms)), (8, 4))
    bins = [0] * 256
    for (bx, _, _), warps in blocks.items():
        for w, insts in warps.items():
            where = f"histogram256Kernel block {bx} warp {w}"
            tid = [32 * w + l for l in range(32)]
            pos0 = [bx * 192 + t for t in tid]
            stride = 192 * PARTIAL256
            trips = [len(range(q, count, stride)) for q in pos0]
            want = {k: [] for k in clears + atoms + [ldg]}
            for i, k in enumerate(clears):
                want[k].append([4 * (t + 192 * i) for t in tid])
            p = Path(code)
            p.to(skip)
            if max(trips):
                p.to(exit_test, lanes(lambda l: trips[l] >= 1))
                for it in range(1, max(trips) + 1):
                    act = [l for l in range(32) if trips[l] >= it]
                    if it > 1:
                        p.to(bra_u, lanes(lambda l: trips[l] >= it))
                        p.goto(top)
                        p.to(exit_test, lanes(lambda l: trips[l] >= it))
                    pos = {l: pos0[l] + (it - 1) * stride for l in act}
                    want[ldg].append([d_data + 4 * pos[l] for l in act])
                    for j, k in enumerate(atoms):   # addByte(s_WarpHist, (data >> 8j) & 255)
                        want[k].append([4 * (w * 256 + ((word(data, pos[l]) >> (8 * j)) & 255))
                                        for l in act])
            p.goto(join)
            p.to(conv)
            p.goto(bar)
            p.to(early)
            # the bin loop: for (bin = tid; bin < 256; bin += 192)
            p.to(peel)
            p.goto(peel_join)
            btrips = [len(range(t, 256, 192)) for t in tid]
            tail = loop.run(p, btrips)
            if tail:
                p.to(last, tail)
            compare_warp(where, insts, p)
            exact_addresses(where, code, insts, want)
            lds_want, stg_want = [], []
            for t in tid:
                for b in range(t, 256, 192):
                    lds_want += [4 * (b + 256 * i) for i in range(6)]
                    stg_want.append(d_partial + 4 * (bx * 256 + b))
            same_addresses(f"{where}: merge's shared load addresses",
                           sorted(a for i in insts if i[0] // 16 in merge_lds for a in i[3]),
                           sorted(lds_want))
            same_addresses(f"{where}: store addresses", addresses_of(insts, "stg"),
                           sorted(stg_want))
            for i in insts:
                if i[0] // 16 in atoms:
                    for a in i[3]:
                        bins[(a // 4) % 256] += 1
    ref = [0] * 256
    for b in data:
        ref[b] += 1
    compare_bins("histogram256Kernel: shared atomic adds (ATOMS.ADD) per bin", bins, ref)


def addresses_of(insts, cls):
    return sorted(a for i in insts if opcode_class(i[2]) == cls for a in i[3])


# ------------------------------------------------------------------ the merge kernels

def check_merge(name, app, header, blocks, bins, d_hist, d_partial, count):
    """mergeHistogram{64,256}Kernel<<<bins, 256>>>(d_Histogram, d_Partial, count)."""
    code = Listing(app, name)
    same(f"{name} name", header["kernel name"], name)
    same(f"{name} shared memory", header["shmem"], str(256 * 4))
    check_grid(header, blocks, (bins, 1, 1), (256, 1, 1))
    skip = code.find(r"^@P0 BRA 0x")                        # tid >= count: no iteration
    join = target(code, skip)
    peel_ldg = code.find(r"^@P1 LDG")                       # guard tid >= count: never here
    loop = Unrolled(code, skip, 256)
    assert target(code, loop.tail) == join
    bars = code.all(r"^BAR\.SYNC", join)
    exit1 = code.find(r"^@P1 EXIT", bars[-1])               # tid != 0
    last = code.find(r"^EXIT", exit1)
    # the reduction stages: after barrier s, guarded LDS/STS of lanes tid < stride, the
    # stride from the stage's second LDS offset (+4 * stride)
    stages = []
    for b0, b1 in zip(bars, bars[1:]):
        mem = [k for k in range(b0, b1) if code.cls(k) in ("lds", "sts")]
        off = int(re.search(r"\+0x([0-9a-f]+)\]", code.text[mem[1]]).group(1), 16)
        stages.append((off // 4, mem))
    same(f"{name} listing: reduction strides", [s for s, _ in stages],
         [128 >> i for i in range(7)])
    for (bx, _, _), warps in blocks.items():
        for w, insts in warps.items():
            where = f"{name} block {bx} warp {w}"
            tid = [32 * w + l for l in range(32)]
            trips = [len(range(t, count, 256)) for t in tid]
            p = Path(code)
            p.to(skip)
            if max(trips):
                p.to(loop.skip4 - 1, lanes(lambda l: trips[l] >= 1))
                p.guard(peel_ldg, 0)
                tail = loop.run(p, trips)
                if tail:
                    p.to(join - 1, tail)
            p.goto(join)
            p.to(bars[0])
            for stride, mem in stages:
                for k in mem:
                    p.to(k)
                    p.guard(k, lanes(lambda l: tid[l] < stride))
            p.to(exit1)
            if w == 0:
                p.to(last, 1)                               # thread 0 only
            compare_warp(where, insts, p)
            ldg_want = [d_partial + 4 * (bx + i * bins) for t in tid for i in range(t, count, 256)]
            same_addresses(f"{where}: load addresses", addresses_of(insts, "ldg"),
                           sorted(ldg_want))
            lds_want = [4 * t + 4 * s * o for s, _ in stages for t in tid if t < s for o in (0, 1)]
            sts_want = [4 * t for t in tid] + [4 * t for s, _ in stages for t in tid if t < s]
            stg_want = []
            if w == 0:   # the last stage, stride 1, thread 0: data[0] += data[1]; store data[0]
                lds_want += [4, 0, 0]
                sts_want += [0]
                stg_want = [d_hist + 4 * bx]
            same_addresses(f"{where}: shared load addresses", addresses_of(insts, "lds"),
                           sorted(lds_want))
            same_addresses(f"{where}: shared store addresses", addresses_of(insts, "sts"),
                           sorted(sts_want))
            same_addresses(f"{where}: store addresses", addresses_of(insts, "stg"), stg_want)


# ------------------------------------------------------------------ the workload

def check_histogram(copies, kernels, args):
    nbytes = int(args.get("bytes", 4194304))
    runs = int(args.get("runs", 0))
    data = input_bytes(nbytes)
    d_data, d_hist, p64, p256 = allocate([nbytes, 256 * 4, MAX_PARTIAL64 * 64 * 4,
                                          PARTIAL256 * 256 * 4])
    same("host copies", copies, [(d_data, nbytes)])
    same("launches", len(kernels), 4 * (1 + runs))
    # histogram64()'s histogramCount = iDivUp(byteCount, 64 * iSnapDown(255, sizeof(data_t))),
    # data_t = uint4: iSnapDown(255, 16) = 240 (the source's own note: 32768 partial
    # histograms "amount to max. 480MB", 32768 * 64 * 240 bytes)
    h64 = -(-nbytes // (64 * 240))
    arrays = {"d_Data": (d_data, nbytes), "d_Histogram": (d_hist, 256 * 4),
              "d_PartialHistograms64": (p64, MAX_PARTIAL64 * 64 * 4),
              "d_PartialHistograms256": (p256, PARTIAL256 * 256 * 4)}
    span = lambda base, n: lines_of(range(base, base + n, 4))  # noqa: E731
    n = 1 + runs
    for r in range(n):
        k64, m64 = kernels[2 * r], kernels[2 * r + 1]
        k256, m256 = kernels[2 * n + 2 * r], kernels[2 * n + 2 * r + 1]
        check_histogram64(*k64, data, d_data, p64, h64)
        check_merge(M64, "histogram64", *m64, 64, d_hist, p64, h64)
        check_histogram256(*k256, data, d_data, p256)
        check_merge(M256, "histogram256", *m256, 256, d_hist, p256, PARTIAL256)
        # per array, the 128-byte lines each kernel loads and stores
        want = {
            "histogram64Kernel": ({"d_Data": span(d_data, nbytes)},
                                  {"d_PartialHistograms64": span(p64, 4 * 64 * h64)}),
            "mergeHistogram64Kernel": ({"d_PartialHistograms64": span(p64, 4 * 64 * h64)},
                                       {"d_Histogram": span(d_hist, 4 * 64)}),
            "histogram256Kernel": ({"d_Data": span(d_data, nbytes)},
                                   {"d_PartialHistograms256": span(p256, 4 * 256 * PARTIAL256)}),
            "mergeHistogram256Kernel": ({"d_PartialHistograms256":
                                         span(p256, 4 * 256 * PARTIAL256)},
                                        {"d_Histogram": span(d_hist, 4 * 256)}),
        }
        for kern, name in ((k64, "histogram64Kernel"), (m64, "mergeHistogram64Kernel"),
                           (k256, "histogram256Kernel"), (m256, "mergeHistogram256Kernel")):
            for cls, w in zip(("ldg", "stg"), want[name]):
                got = lines_by_array([kern], arrays, (cls,))
                for arr in arrays:
                    same(f"launch {name} (run {r}): lines of {arr} "
                         f"{'loaded' if cls == 'ldg' else 'stored'}", got[arr],
                         w.get(arr, set()))
            # nothing in global memory is touched by atomics
            same(f"launch {name}: global atomics", lines_by_array([kern], arrays, ("atomg",)),
                 {a: set() for a in arrays})


CHECKS = {"histogram": check_histogram}
