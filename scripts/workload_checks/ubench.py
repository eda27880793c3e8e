"""The calibration microbenchmarks (golden/cuda/ubench/chase.cu and bw.cu): ubench-chase and
ubench-bw, derived from the CUDA source and the listing's loops.

ubench-chase: one thread (lane 0) runs `for (i = 0; i < steps; ++i) j = a[j]` from j = 0 over
the ring a[i] = (i + stride/4) mod footprint/4, warm laps of footprint/stride steps first; its
path is the prologue, the loop body (from the backward branch's target to it) once per step,
then the store of j and EXIT; its loads' addresses follow the ring step by step, its store is
to `out`.

ubench-bw: every thread runs the same number of iterations (the workload refuses a footprint
that would leave a partial pass), so every lane of every warp is active at every memory
instruction. bw_block, bw_grid, bw_grid_cg: `reps` passes of the outer loop, each of `trips`
iterations of the inner loop (the listing's convergence code between iterations: VOTE,
YIELD, the uniform back branch), then the store of the thread's sum; the element of
iteration t is first + t * gap (bw_block: first = threadIdx.x, gap = blockDim.x; the grid
kernels: first = the global thread index, gap = gridDim.x * blockDim.x). copy: the loop body
(load and store) `trips` times, leaving by the guarded EXIT; `reps` launches.

Underived: the sums and the copied values (the host program verifies them); the listing's
landmarks are found by pattern (the loops' uniform back branches, the guarded exits)."""
import re

from .common import Mismatch, allocate, same
from .warp_paths import FULL, Listing, Path, check_grid, compare_warp


def target(code, k):
    """The index a branch at `k` goes to (BRA, BRA.U)."""
    m = re.search(r"BRA(?:\.U)? 0x([0-9a-f]+)$", code.text[k])
    if not m:
        raise Mismatch(f"listing: {code.text[k]} at {16 * k:#x} is not a branch")
    return int(m.group(1), 16) // 16


def straight_to_exit(code, p, k, mask=FULL):
    """From index k, the straight-line code to EXIT, following unconditional branches."""
    while True:
        p.to(k, mask)
        if code.text[k] == "EXIT":
            return
        m = re.match(r"BRA 0x([0-9a-f]+)$", code.text[k])
        k = int(m.group(1), 16) // 16 if m else k + 1
        if m:
            p.goto(k)


def mem_sequence(insts):
    """A warp's global memory instructions in order: (pc, addresses)."""
    return [(i[0], i[3]) for i in insts if i[2].startswith(("LDG", "STG"))]


def check_chase(copies, kernels, args):
    cache = args.get("cache", "ca")
    footprint, stride = int(args.get("footprint", 8192)), int(args.get("stride", 128))
    warm, steps = int(args.get("warm", 1)), int(args.get("steps", 256))
    total = warm * (footprint // stride) + steps
    words, step = footprint // 4, stride // 4
    code = Listing("ubench-chase", "chase_cg" if cache == "cg" else "chase_ca")
    back = max(code.all(r"^@!P0 BRA "))
    top = target(code, back)
    ldg, stg = code.find(r"^LDG"), code.find(r"^STG")
    if not top < ldg < back < stg:
        raise Mismatch(f"listing: the chase's loop {top}..{back} does not hold its load {ldg}")
    p = Path(code)
    p.to(back, mask=1)
    for _ in range(total - 1):
        p.goto(top)
        p.to(back, mask=1)
    straight_to_exit(code, p, back + 1, mask=1)
    a, out = allocate([footprint, 4])
    same("host copies", copies, [(a, footprint)])
    same("kernels", len(kernels), 1)
    header, blocks = kernels[0]
    check_grid(header, blocks, (1, 1, 1), (1, 1, 1))
    insts = blocks[(0, 0, 0)][0]
    compare_warp("block 0 warp 0", insts, p)
    want, j = [], 0
    for _ in range(total):
        want.append((16 * ldg, [a + 4 * j]))
        j = (j + step) % words
    want.append((16 * stg, [out]))
    got = mem_sequence(insts)
    for n, (g, w) in enumerate(zip(got, want)):
        if g != w:
            raise Mismatch(f"access {n} of the chase: the trace has {[hex(x) for x in g[1]]} at "
                           f"{g[0]:#x}, the ring gives {[hex(x) for x in w[1]]} at {w[0]:#x}")
    same("accesses of the chase", len(got), len(want))


def loop_path(code, reps, trips):
    """bw_block / bw_grid / bw_grid_cg: the path of a warp whose every lane runs `reps`
    passes of `trips` iterations."""
    o_back = code.find(r"^@!P0 BRA\.U ")
    i_back = code.find(r"^@!P1 BRA\.U ")
    outer_top, inner_top = target(code, o_back), target(code, i_back)
    ldg = code.find(r"^LDG")
    i_exit = code.find(r"^@P1 BRA ", ldg)
    bsync1 = target(code, i_exit)
    last = bsync1 + 1
    if not (outer_top < inner_top <= ldg < i_exit < i_back < bsync1 < last < o_back
            and code.text[last].startswith("@P0 BRA ")):
        raise Mismatch("listing: the loops are not the shape the check derives")
    p = Path(code)
    for r in range(reps):
        if r:
            p.goto(outer_top)
        p.to(inner_top - 1)
        for t in range(trips):
            if t:
                p.to(i_back)
                p.goto(inner_top)
            p.to(i_exit)
        p.goto(bsync1)
        p.to(last)
        if r < reps - 1:
            p.to(o_back)
    p.goto(target(code, last))
    straight_to_exit(code, p, target(code, last))
    return p, ldg


def copy_path(code, trips):
    exit1 = code.find(r"^@P0 EXIT")
    back = code.find(r"^@!P0 BRA\.U ")
    top = target(code, back)
    exit2 = code.find(r"^@P0 EXIT", top)
    if top != exit1 + 1 or not top < exit2 < back:
        raise Mismatch("listing: copy's loop is not the shape the check derives")
    p = Path(code)
    p.to(exit2)
    for _ in range(trips - 1):
        p.to(back)
        p.goto(top)
        p.to(exit2)
    return p


def check_bw(copies, kernels, args):
    level = args.get("level", "l1")
    footprint, reps = int(args.get("footprint", 8192)), int(args.get("reps", 2))
    nblocks, threads = int(args.get("blocks", 16)), int(args.get("threads", 256))
    n = footprint // 16
    kernel = {"l1": "bw_block", "l2": "bw_grid_cg", "dram": "bw_grid", "copy": "copy"}[level]
    code = Listing("ubench-bw", kernel)
    gap = threads if level == "l1" else threads * nblocks
    trips = n // gap
    out_bytes = footprint if level == "copy" else 4 * nblocks * threads
    a, out = allocate([footprint, out_bytes])
    same("host copies", copies, [(a, footprint)])
    same("kernels", len(kernels), reps if level == "copy" else 1)
    if level == "copy":
        path = copy_path(code, trips)
    else:
        path, ldg = loop_path(code, reps, trips)
    stg = code.find(r"^STG")
    for header, blocks in kernels:
        check_grid(header, blocks, (nblocks, 1, 1), (threads, 1, 1))
        for (b, _, _), warps in blocks.items():
            for w, insts in warps.items():
                where = f"block {b} warp {w}"
                compare_warp(where, insts, path)
                tids = [32 * w + lane for lane in range(32)]
                glob = [b * threads + t for t in tids]
                want = []
                if level == "copy":
                    ldg = code.find(r"^LDG")
                    for t in range(trips):
                        elems = [g + t * gap for g in glob]
                        want.append((16 * ldg, [a + 16 * e for e in elems]))
                        want.append((16 * stg, [out + 16 * e for e in elems]))
                else:
                    first = tids if level == "l1" else glob
                    for _ in range(reps):
                        for t in range(trips):
                            want.append((16 * ldg, [a + 16 * (f + t * gap) for f in first]))
                    want.append((16 * stg, [out + 4 * g for g in glob]))
                got = mem_sequence(insts)
                for k, (g, x) in enumerate(zip(got, want)):
                    if g != x:
                        raise Mismatch(f"{where}: access {k} at {g[0]:#x} has lane 0 at "
                                       f"{g[1][0]:#x}, the source gives {x[1][0]:#x} at "
                                       f"{x[0]:#x}")
                same(f"{where}: accesses", len(got), len(want))


CHECKS = {"ubench-chase": check_chase, "ubench-bw": check_bw}
