"""scalarprod: NVIDIA cuda-samples v11.5 Samples/scalarProd (scalarProd.cu's host code,
scalarProd_kernel.cuh's scalarProdGPU), re-derived independently of the emulator.

Host (scalarProd.cu): cudaMalloc d_A, d_B (VECTOR_N * ELEMENT_N floats), d_C (VECTOR_N floats);
copy A then B; one launch scalarProdGPU<<<128, 256>>>(d_C, d_A, d_B, vectorN, elementN).

Kernel: for vec = blockIdx.x; vec < vectorN; vec += 128: each thread, for iAccum = tid, tid +
256, ... < 1024 (4 iterations), sums d_A[pos] * d_B[pos] for pos = base + iAccum, += 1024 <
base + elementN; stores accumResult[iAccum]; then a tree reduction (stride 512 .. 1, a barrier
before each) and thread 0 stores d_C[vec].

The expected stream of each warp is built here as the listing indices it must execute, from
those loops' trip counts (evaluated per lane in Python) and the listing's static shape: where the
early EXIT is, the compiler's unrolling of the pos loop (a remainder of t % 4 iterations, then
a 16-times unrolled loop, an 8-times block and a 4-times block), the reduction stages' skip
branches and loop bodies. Compared exactly: the PC sequence (hence the count, and the count by
class), the active lanes of every global and shared memory instruction, the multiset of
addresses each warp loads and stores, and each array's set of 128-byte lines.

The helpers (Listing, Path, compare_warp, lines_by_array, ...) are warp_paths', shared with the
other checks written with it (sgemm, stencil, mri_q, histogram, blackscholes, srad_v1).
"""
import re
import sys

from .common import allocate, lines_of, same
from .warp_paths import (FULL, Listing, Path, addresses, check_grid, compare_warp, lines_by_array,
                         same_addresses)


# ---------------------------------------------------------------------------- scalarProd

def check_scalarprod(copies, kernels, args):
    vectors = int(args.get("vectors", 256))
    elements = int(args.get("elements", 4096))
    if elements % 32:
        # With elementN not a multiple of 32 the pos loop's trip count differs within a warp;
        # this check models warp-uniform trip counts only.
        print("check-workload: scalarprod: elements must be a multiple of 32 here", file=sys.stderr)
        sys.exit(2)
    code = Listing("scalarprod", "_Z13scalarProdGPUPfS_S_ii")
    n = vectors * elements
    d_a, d_b, d_c = allocate([4 * n, 4 * n, 4 * vectors])
    same("host copies", copies, [(d_a, 4 * n), (d_b, 4 * n)])
    same("launches", len(kernels), 1)
    header, blocks = kernels[0]
    same("kernel name", header["kernel name"], "_Z13scalarProdGPUPfS_S_ii")
    same("shared memory", header["shmem"], "4096")
    check_grid(header, blocks, (128, 1, 1), (256, 1, 1))

    # Listing landmarks, by pattern.
    early = code.find(r"EXIT")                      # @P0 EXIT: blockIdx.x >= vectorN
    last = code.find(r"^EXIT")
    vec_back = last - 1                             # @!P0 BRA: vec += gridDim.x loop
    vec_top = code.target(vec_back)
    bras = code.all(r"BRA 0x", vec_top, last)
    skip_accum = bras[0]                            # @P0 BRA: tid > 1023 skips the iAccum loop
    accum_end = code.target(skip_accum)             # BSYNC B1
    accum_back = accum_end - 1                      # @!P0 BRA: iAccum += blockDim.x
    accum_top = code.target(accum_back)
    zero, rem0, rem1, fours, big, big_back, mid, small = bras[1:9]
    inner_end = code.target(zero)                   # BSYNC B0 before STS accumResult
    rem_join = code.target(rem0)                    # BSYNC B2 after the t % 4 remainder
    big_join = code.target(big)                     # BSYNC after the 16-times loop
    big_top = code.target(big_back)
    mid_join = code.target(mid)                     # BSYNC after the 8-times block
    # The reduction stages: a skip branch, a loop body (LDS, LDS +4*stride, FADD, STS), join.
    stages = []
    for k in code.all(r"LDS\.U R6, \[R4\.X4\+0x[0-9a-f]+\]"):
        stride = int(re.search(r"\+0x([0-9a-f]+)", code.text[k]).group(1), 16) // 4
        back = code.find(r"BRA 0x", k)
        skip = max(b for b in code.all(r"BRA 0x", 0, k) if b < code.target(back))
        stages.append((stride, skip, code.target(back), back, code.target(skip)))
    same("reduction strides in the listing", [s[0] for s in stages],
         [512 >> i for i in range(10)])
    lds0 = code.find(r"@!P0 LDS\.U R7, \[RZ\]")
    stg = code.find(r"@!P0 STG")

    for (bx, _, _), warps in blocks.items():
        for w, insts in warps.items():
            where = f"block {bx} warp {w}"
            p = Path(code)
            p.to(early)
            want_loads, want_stores = [], []
            if bx < vectors:
                for vec in range(bx, vectors, 128):
                    base = vec * elements
                    p.to(skip_accum)          # not taken: tid < 256
                    for it in range(4):       # iAccum = tid + 256 * it < 1024
                        if it:
                            p.goto(accum_top)
                        acc = 32 * w + 256 * it
                        # pos loop trip count per lane, uniform in the warp (elements % 32 == 0)
                        trips = {len(range(acc + l, elements, 1024)) for l in range(32)}
                        assert len(trips) == 1
                        t = trips.pop()
                        for l in range(32):
                            for pos in range(acc + l, elements, 1024):
                                want_loads += [d_a + 4 * (base + pos), d_b + 4 * (base + pos)]
                        p.to(zero)            # @P0 BRA: pos >= vectorEnd at once
                        if t:
                            p.to(rem0)        # @!P0 BRA: t % 4 == 0
                            if t % 4:
                                p.to(rem1)    # 1 iteration; @!P0 BRA: t % 4 == 1
                                if t % 4 >= 2:
                                    p.to(rem_join - 1)   # 2 more, the 3rd guarded by t % 4 == 3
                                    g = FULL if t % 4 == 3 else 0
                                    for k in code.all(r"^@P0 LDG", rem1, rem_join):
                                        p.guard(k, g)
                            p.goto(rem_join)
                            p.to(fours)       # @!P1 BRA: fewer than 4 left
                            if t >= 4:
                                pos, end, ran = acc + 1024 * (t % 4), elements, False
                                p.to(big)     # @!P1 BRA: end - pos <= 0x3000 skips the 16x loop
                                if end - pos > 0x3000:
                                    p.to(big_top - 1)
                                    while True:
                                        p.goto(big_top)
                                        p.to(big_back)
                                        pos += 16 * 1024
                                        if not pos < end - 0x3000:
                                            break
                                    ran = True
                                p.goto(big_join)
                                p.to(mid)     # @!P1 BRA: end - pos <= 0x1000 skips 8x
                                if end - pos > 0x1000:
                                    p.to(mid_join - 1)
                                    pos += 8 * 1024
                                    ran = True
                                p.goto(mid_join)
                                p.to(small)   # @!P0 BRA: skip 4x when nothing is left
                                if pos < end or not ran:
                                    p.to(inner_end - 1)
                                    pos += 4 * 1024
                        p.goto(inner_end)
                        p.to(accum_back)
                    p.to(accum_end)
                    for stride, skip, top, back, join in stages:
                        p.to(skip)
                        # lanes' trip counts of: for (i = tid; i < stride; i += 256)
                        tr = [len(range(32 * w + l, stride, 256)) for l in range(32)]
                        if max(tr):
                            p.to(top - 1, mask_of(tr, 1))
                            for it in range(1, max(tr) + 1):
                                p.goto(top)
                                p.to(back, mask_of(tr, it))
                        p.goto(join)
                    p.to(vec_back)
                    g = 1 if w == 0 else 0
                    p.guard(lds0, g)
                    p.guard(stg, g)
                    if w == 0:
                        want_stores.append(d_c + 4 * vec)
                    if vec + 128 < vectors:
                        p.goto(vec_top)
                p.to(last)
            compare_warp(where, insts, p)
            same_addresses(f"{where} load addresses", addresses(insts, ("ldg",)),
                           sorted(want_loads))
            same_addresses(f"{where} store addresses", addresses(insts, ("stg",)),
                           sorted(want_stores))
    got = lines_by_array(kernels, {"d_A": (d_a, 4 * n), "d_B": (d_b, 4 * n),
                                   "d_C": (d_c, 4 * vectors)}, ("ldg",))
    same("lines of d_A loaded", got["d_A"], lines_of(range(d_a, d_a + 4 * n, 4)))
    same("lines of d_B loaded", got["d_B"], lines_of(range(d_b, d_b + 4 * n, 4)))
    same("lines of d_C loaded", got["d_C"], set())
    got = lines_by_array(kernels, {"d_A": (d_a, 4 * n), "d_B": (d_b, 4 * n),
                                   "d_C": (d_c, 4 * vectors)}, ("stg",))
    same("lines of d_C stored", got["d_C"], lines_of(range(d_c, d_c + 4 * vectors, 4)))
    same("lines of d_A, d_B stored", got["d_A"] | got["d_B"], set())


def mask_of(trips, it):
    """The lanes whose trip count reaches iteration `it` (1-based)."""
    return sum(1 << l for l, t in enumerate(trips) if t >= it)


CHECKS = {"scalarprod": check_scalarprod}
