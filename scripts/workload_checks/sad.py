"""sad: Parboil sad (src/cuda/main.cu's host code, sad4.cu's mb_sad_calc, largerBlocks.cu's
larger_sad_calc_8 and larger_sad_calc_16; sad4.cu patched by scripts/kernel-patches/sad.patch:
the reference frame's tex2D is a __ldg of the same pixel clamped into the frame), re-derived
independently of the emulator.

Host (W x H pixels, multiples of 16; mbw = W/16, mbh = H/16, mbs = mbw*mbh macroblocks):
cudaMalloc d_cur_image (W*H shorts), the reference's cudaArray (W*H shorts, a plane here),
copy the current frame, then the reference; cudaMalloc d_sads (41 * 1096 * mbs shorts),
cudaMemset (no copy); then
  mb_sad_calc<<<(W/4, H/4), 61, 1096*2>>>(d_sads, d_cur_image, mbw, mbh)
  larger_sad_calc_8<<<(mbw, mbh), (32, 4)>>>(d_sads, mbw, mbh)
  larger_sad_calc_16<<<(mbw, mbh), (32, 1)>>>(d_sads, mbw, mbh)

mb_sad_calc, one block per 4x4 block (bx, by), 61 threads (CEIL(1089, 18)): warp 0 all 32
lanes, warp 1 lanes 0..28. Threads 0..15 (warp 0's lanes 0..15) copy the block's pixel
frame[(4by + t/4) * W + 4bx + t%4] into frame_loc[t] (shared offset 2t); barrier; thread t
computes search positions base = 18t .. min(base + 18, 1089) three at a time (6 iterations;
thread 60, warp 1's lane 28, 3), each iteration fetching ref[clamp(y) * W + clamp(x)] for the 6
columns x = 4bx - 16 + base%33 + (3 per iteration, wrapping at 33) + 0..5 and the 4 rows
y = 4by - 16 + row + 0..3, and storing its three SADs to sad_loc[pos .. pos+2] (shared, after
the 32 bytes of frame_loc: offset 32 + 2*pos); barrier; warp 0 copies sad_loc as 274 8-byte
words to d_sads + 2*((25*mbs + mb*16 + 4*(by%4) + bx%4) * 1096) (mb = (by/4)*mbw + bx/4),
word index = lane, lane + 32, ... < 274.

larger_sad_calc_8, one block per macroblock, warp w = threadIdx.y (tx = w&1, ty = w>>1); each
lane handles 32-bit words sp = lane, lane + 32, ... < 545: loads the 4x4 SAD words of
sub-blocks (2ty, 2tx) and its right, lower and lower-right neighbours (word offsets 0, 548,
4*548, 5*548 from bi), stores block types 6 (two), 5 (two) and 4 (one). larger_sad_calc_16,
one warp per macroblock: loads the four 8x8 SAD words (0, 548, 2*548, 3*548 from bi), stores
types 3 (two), 2 (two), 1 (one). The pointers, in shorts, as the source computes them.

Listing shape used (every loop located by its backward BRA, every skip by its forward BRA's
target): mb_sad_calc's prologue to the `@P0 BRA` that sends threads 16.. past the pixel copy
(to its BSYNC), the search loop (from the first backward BRA's target to it) once per
iteration with the lanes still iterating (a lane that has left waits at the BSYNC after it;
divergent paths run lowest PC first), the barrier, the `@P0 EXIT` of threads 32.. (warp 1), and
the copy loop as the compiler unrolled it: a 4-word loop (entered past `@!P1 BRA` while 4 or
more words remain), a 2-word step (past the next `@!P1 BRA`), and a last word after
`@!P0 EXIT`. larger_sad_calc_8 and _16: a 1-word loop for the trip count modulo 4 (skipped
past `@!P1 BRA`), the `@!P0 EXIT` of lanes with fewer than 4 trips, then the 4-word loop. The
branches the source makes always taken or never here (valid macroblocks: the grid covers the
frame exactly; `ty < 100`; threadIdx.x > 544; base < end) are followed as such.

Compared exactly: the host copies; each launch (name, grid, block, shared memory, every block
and its warps); per warp the PC sequence (count, by class) and the lanes of every memory
instruction; per warp the multisets of global load and store addresses and of shared load and
store addresses (the 16 frame_loc pixels are read once per search iteration: the listing's loop
body has 16 LDS, a listing fact); each array's lines loaded and stored over the three kernels.
Not derived: the values (SADs), which steer no branch or address.
"""
import sys

from .common import allocate, lines_of, same
from .listing_shape import back_branches
from .warp_paths import (Listing, Path, addresses, check_grid, compare_warp, lines_by_array,
                         same_addresses)

MAX_POS, PADDED, PER_THREAD = 1089, 1096, 18
THREADS = -(-MAX_POS // PER_THREAD)              # 61
WORDS8 = PADDED // 4                             # sad_loc's 8-byte words: 274
HALF = PADDED // 2                               # a block's 32-bit words apart: 548
PAIRS = (MAX_POS + 1) // 2                       # the larger kernels' words: 545
FRAME_LOC = 32                                   # static shared bytes before sad_loc
MB_SAD = "_Z11mb_sad_calcPtS_ii"
CALC8 = "_Z17larger_sad_calc_8Ptii"
CALC16 = "_Z18larger_sad_calc_16Ptii"


def mask_of(lanes):
    return sum(1 << l for l in lanes)


def loops(code):
    """The listing's loops, (top, backward BRA), without the final `BRA` to itself."""
    return [(t, b) for t, b in back_branches(code.text) if t < b]


def mb_sad_path(code, lanes, warp):
    """mb_sad_calc's stream for a warp whose active lanes are `lanes` (thread 32*warp + lane):
    the Path, and per lane its search trip count. Warp 0 (threadIdx.x >> 5 == 0) copies the
    SADs out; warp 1 ends at the `@P0 EXIT` after the barrier."""
    (top_s, bra_s), (top4, bra4) = loops(code)[:2]
    copy_skip = code.find(r"^@P0 BRA")                    # threads 16..: no pixel copy
    bar2 = code.find(r"BAR\.SYNC", code.find(r"BAR\.SYNC") + 1)
    exit_warp = code.find(r"^@P0 EXIT", bar2)             # threads 32..: no SAD copy
    skip4 = code.find(r"^@!P1 BRA", exit_warp)            # fewer than 4 words: no 4-word loop
    skip2 = code.find(r"^@!P1 BRA", code.target(skip4))   # fewer than 2 left: no 2-word step
    last = code.find(r"^@!P0 EXIT", code.target(skip2))   # no word left
    end = code.find(r"^EXIT", last)
    p = Path(code)
    p.to(copy_skip)
    copiers = [l for l in lanes if 32 * warp + l < 16]
    if copiers:
        p.to(code.target(copy_skip) - 1, mask_of(copiers))
    p.goto(code.target(copy_skip))
    p.to(top_s - 1)
    trips = {}
    for l in lanes:
        base = (32 * warp + l) * PER_THREAD
        trips[l] = len(range(base, min(base + PER_THREAD, MAX_POS), 3))
    for k in range(max(trips.values())):
        p.goto(top_s)
        p.to(bra_s, mask_of(l for l in lanes if trips[l] > k))
    p.goto(bra_s + 1)
    p.to(exit_warp)
    if warp == 0:
        # Words lane, lane + 32, ... < 274 per lane: 4-word iterations while 4 or more remain,
        # then 2, then 1.
        n = {l: len(range(l, WORDS8, 32)) for l in lanes}
        n4 = {l: n[l] // 4 for l in lanes}
        rem = {l: n[l] - 4 * n4[l] for l in lanes}
        p.to(skip4)
        if any(n4.values()):
            p.to(top4 - 1, mask_of(l for l in lanes if n4[l]))
            for k in range(max(n4.values())):
                p.goto(top4)
                p.to(bra4, mask_of(l for l in lanes if n4[l] > k))
        p.goto(code.target(skip4))
        p.to(skip2)
        twos = [l for l in lanes if rem[l] >= 2]
        if twos:
            p.to(code.target(skip2) - 1, mask_of(twos))
        p.goto(code.target(skip2))
        p.to(last)
        ones = [l for l in lanes if rem[l] % 2]
        if ones:
            p.to(end, mask_of(ones))
    return p, trips


def larger_path(code, lanes):
    """larger_sad_calc_8's or _16's stream for a full warp: the 1-word loop for each lane's
    trip count modulo 4, then the 4-word loop."""
    (top1, bra1), (top4, bra4) = loops(code)[:2]
    skip1 = code.find(r"^@!P1 BRA")                       # trip count a multiple of 4
    few = code.find(r"^@!P0 EXIT", code.target(skip1))    # fewer than 4 trips
    end = code.find(r"^EXIT", bra4)
    n = {l: len(range(l, PAIRS, 32)) for l in lanes}
    r1 = {l: n[l] % 4 for l in lanes}
    p = Path(code)
    p.to(skip1)
    if any(r1.values()):
        p.to(top1 - 1, mask_of(l for l in lanes if r1[l]))
        for k in range(max(r1.values())):
            p.goto(top1)
            p.to(bra1, mask_of(l for l in lanes if r1[l] > k))
    p.goto(code.target(skip1))
    p.to(few)
    fours = [l for l in lanes if n[l] >= 4]
    if fours:
        p.to(top4 - 1, mask_of(fours))
        for k in range(max(n[l] // 4 for l in fours)):
            p.goto(top4)
            p.to(bra4, mask_of(l for l in fours if n[l] // 4 > k))
        p.to(end, mask_of(fours))
    return p


def check_mb_sad(header, blocks, W, H, d_cur, d_ref, d_sads, touched):
    mbw, mbh = W // 16, H // 16
    mbs = mbw * mbh
    code = Listing("sad", MB_SAD)
    same("mb_sad_calc kernel name", header["kernel name"], MB_SAD)
    same("mb_sad_calc shared memory", header["shmem"], str(FRAME_LOC + 2 * PADDED))
    check_grid(header, blocks, (W // 4, H // 4, 1), (THREADS, 1, 1))

    def ref_at(x, y):
        return d_ref + 2 * (min(max(y, 0), H - 1) * W + min(max(x, 0), W - 1))

    for (bx, by, _), warps in blocks.items():
        for w, insts in warps.items():
            where = f"mb_sad_calc block {bx},{by} warp {w}"
            lanes = [l for l in range(32) if 32 * w + l < THREADS]
            p, trips = mb_sad_path(code, lanes, w)
            compare_warp(where, insts, p)
            ld, st, lds, sts = [], [], [], []
            for l in lanes:
                t = 32 * w + l
                if t < 16:
                    ld.append(d_cur + 2 * ((4 * by + t // 4) * W + 4 * bx + t % 4))
                    sts.append(2 * t)
                base = t * PER_THREAD
                for it in range(trips[l]):
                    pos = base + 3 * it
                    x0, y0 = 4 * bx - 16 + pos % 33, 4 * by - 16 + pos // 33
                    ld += [ref_at(x0 + c, y0 + r) for r in range(4) for c in range(6)]
                    lds += [2 * k for k in range(16)]
                    sts += [FRAME_LOC + 2 * (pos + j) for j in range(3)]
                if w == 0:
                    at = d_sads + 2 * (25 * mbs + ((by // 4) * mbw + bx // 4) * 16
                                       + 4 * (by % 4) + bx % 4) * PADDED
                    idx = range(l, WORDS8, 32)
                    lds += [FRAME_LOC + 8 * i for i in idx]
                    st += [at + 8 * i for i in idx]
            same_addresses(f"{where} global loads", addresses(insts, ("ldg",)), sorted(ld))
            same_addresses(f"{where} global stores", addresses(insts, ("stg",)), sorted(st))
            same_addresses(f"{where} shared loads", addresses(insts, ("lds",)), sorted(lds))
            same_addresses(f"{where} shared stores", addresses(insts, ("sts",)), sorted(sts))
            touched["ld"] |= lines_of(ld)
            touched["st"] |= lines_of(st)


def check_larger(which, header, blocks, W, H, d_sads, touched):
    mbw, mbh = W // 16, H // 16
    mbs = mbw * mbh
    name = CALC8 if which == 8 else CALC16
    code = Listing("sad", name)
    same(f"larger_sad_calc_{which} kernel name", header["kernel name"], name)
    same(f"larger_sad_calc_{which} shared memory", header["shmem"], "0")
    check_grid(header, blocks, (mbw, mbh, 1), (32, 4 if which == 8 else 1, 1))
    for (bx, by, _), warps in blocks.items():
        mbi = (by * mbw + bx) * PADDED
        for w, insts in warps.items():
            where = f"larger_sad_calc_{which} block {bx},{by} warp {w}"
            if which == 8:
                tx, ty = w & 1, w >> 1
                bi = (25 * mbs + ty * 8 + tx * 2) * PADDED + mbi * 16
                bo6 = (17 * mbs + ty * 4 + tx * 2) * PADDED + mbi * 8
                bo5 = (9 * mbs + ty * 4 + tx) * PADDED + mbi * 8
                bo4 = (5 * mbs + ty * 2 + tx) * PADDED + mbi * 4
                loads = [0, HALF, 4 * HALF, 5 * HALF]
                stores = [(bo6, 0), (bo6, HALF), (bo5, 0), (bo5, 2 * HALF), (bo4, 0)]
            else:
                M = mbs * PADDED
                bi = ((M + mbi) << 2) + M
                bo3 = ((M + mbi) << 1) + M
                bo2 = M + mbi * 2
                loads = [0, HALF, 2 * HALF, 3 * HALF]
                stores = [(bo3, 0), (bo3, HALF), (bo2, 0), (bo2, HALF), (mbi, 0)]
            compare_warp(where, insts, larger_path(code, list(range(32))))
            ld, st = [], []
            for l in range(32):
                for sp in range(l, PAIRS, 32):
                    ld += [d_sads + 2 * bi + 4 * (sp + o) for o in loads]
                    st += [d_sads + 2 * b + 4 * (sp + o) for b, o in stores]
            same_addresses(f"{where} global loads", addresses(insts, ("ldg",)), sorted(ld))
            same_addresses(f"{where} global stores", addresses(insts, ("stg",)), sorted(st))
            touched["ld"] |= lines_of(ld)
            touched["st"] |= lines_of(st)


def check_sad(copies, kernels, args):
    if args.get("reference") or args.get("frame"):
        print("check-workload: sad: this check takes width, height (not files)",
              file=sys.stderr)
        sys.exit(2)
    W, H = int(args.get("width", 64)), int(args.get("height", 64))
    mbs = (W // 16) * (H // 16)
    frame = 2 * W * H
    sads = 2 * 41 * PADDED * mbs
    d_cur, d_ref, d_sads = allocate([frame, frame, sads])
    same("host copies", copies, [(d_cur, frame), (d_ref, frame)])
    same("launches", len(kernels), 3)
    touched = {"ld": set(), "st": set()}
    check_mb_sad(*kernels[0], W, H, d_cur, d_ref, d_sads, touched)
    check_larger(8, *kernels[1], W, H, d_sads, touched)
    check_larger(16, *kernels[2], W, H, d_sads, touched)
    # Each array's lines (the allocations are 512-byte aligned: no line is in two arrays).
    arrays = {"cur": (d_cur, frame), "ref": (d_ref, frame), "sads": (d_sads, sads)}

    def split(lines):
        return {a: {ln for ln in lines if base // 128 <= ln <= (base + size - 1) // 128}
                for a, (base, size) in arrays.items()}
    same("lines loaded", lines_by_array(kernels, arrays, ("ldg",)), split(touched["ld"]))
    same("lines stored", lines_by_array(kernels, arrays, ("stg",)), split(touched["st"]))

CHECKS = {"sad": check_sad}
