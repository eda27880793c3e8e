"""sobolqrng: NVIDIA cuda-samples v11.5 Samples/SobolQRNG/.

Re-derived from sobol.cpp (cudaMalloc d_directions, dims * 32 words, then d_output, n * dims
floats; one copy, the directions) and sobol_gpu.cu (sobolGPU's grid: y = dims; x = 4 * SMs if
dims < 4 * SMs else 1, capped at ceil(n / 64) when it exceeds n / 64, rounded up to a power of
two; 64 threads; sobolGPU_kernel).

Per thread of block (bx, by): `if (tx < 32) v[tx] = d_directions[32 by + tx]` (a predicated
load and shared store), a barrier, a first loop of L = __ffs(stride) - 1 trips (stride =
64 gridDim.x, the same for every thread: the compiler unrolls it by 16, 8 and 4 with a
remainder loop; which pieces run and how often is a function of L alone, evaluated below from
the listing's pieces), `if (i0 < n) d_output[n by + i0] = ...` (predicated), the early EXIT of
the lanes with i0 + stride >= n, and the second loop i = i0 + stride, += stride, while i < n,
storing d_output[n by + i] and reading v[__ffs(~((i - stride) | (stride - 1))) - 1] (checked
per lane as a shared address). Lanes leaving the second loop early wait at the EXIT after it
(the emulator runs the lowest-PC group first and merges groups at one PC), so one EXIT.
"""
from .common import allocate, by_class, lines_of, listing, same
from .listing_shape import (back_branches, find, lines_by_array, mem_accesses,
                            same_accesses, span, target)

APP = "sobolqrng"
FULL = 0xFFFFFFFF
THREADS = 64


def mask_of(lanes):
    return sum(1 << l for l in lanes)


def ffs(x):
    """CUDA's __ffs: the 1-based position of the lowest set bit, 0 for 0."""
    return (x & -x).bit_length()


def first_loop(code, L):
    """Instructions from the start to the early EXIT for a first loop of L trips, and the
    masks {index: [mask]} of the uniform branches on the way (taken: all lanes; not: none)."""
    skip_all = find(code, r"^@!P0 BRA")                  # L == 0: no loop at all
    small = find(code, r"^@!P0 BRA", skip_all + 1)       # L < 4: only the remainder loop
    no_main = find(code, r"^@!P0 BRA", small + 1)        # L - L % 4 == 0 (never, L >= 4)
    no16 = find(code, r"^@!P1 BRA", no_main + 1)         # no trip of the 16-unrolled loop
    loops = back_branches(code)
    (top16, bra16), (top4, bra4), (top1, bra1), (top2, bra2) = loops
    no8 = find(code, r"^@!P1 BRA", bra16 + 1)            # no 8-unrolled block
    no4 = find(code, r"^@!P0 BRA", no8 + 1)              # no trip of the 4-unrolled loop
    norem = find(code, r"^@!P0 BRA", bra4 + 1)           # L % 4 == 0: no remainder loop
    early = find(code, r"^@P1 EXIT")
    br = {}

    def branch(k, taken, n=1):
        br.setdefault(k, []).extend([FULL if taken else 0] * n)

    c = span(0, skip_all)
    branch(skip_all, L == 0)
    if L:
        c += span(skip_all + 1, small)
        branch(small, L < 4)
        if L >= 4:
            r20, fresh = L - L % 4, True
            c += span(small + 1, no_main) + span(no_main + 1, no16)
            branch(no_main, False)
            branch(no16, r20 <= 12)
            if r20 > 12:
                trips = 0
                while True:
                    trips, r20 = trips + 1, r20 - 16
                    if r20 <= 12:
                        break
                c += span(no16 + 1, top16 - 1) + trips * span(top16, bra16)
                br[bra16] = [FULL] * (trips - 1) + [0]
                fresh = False
            c += span(target(code[no16]), no8)
            branch(no8, r20 <= 4)
            if r20 > 4:
                c += span(no8 + 1, target(code[no8]) - 1)
                r20, fresh = r20 - 8, False
            c += span(target(code[no8]), no4)
            branch(no4, not (r20 != 0 or fresh))
            if r20 != 0 or fresh:
                c += (r20 // 4) * span(top4, bra4)
                br[bra4] = [FULL] * (r20 // 4 - 1) + [0]
        c += span(target(code[small]), norem)
        branch(norem, L % 4 == 0)
        if L % 4:
            c += span(norem + 1, top1 - 1) + (L % 4) * span(top1, bra1)
            br[bra1] = [FULL] * (L % 4 - 1) + [0]
    c += span(target(code[skip_all]), early)
    return c, br, (early, top2, bra2)


def check_sobolqrng(copies, kernels, args):
    n = int(args.get("vectors", 100000))
    dims = int(args.get("dimensions", 8))
    sms = int(args.get("sms", 80))
    d_dir, d_out = allocate([dims * 32 * 4, n * dims * 4])
    same("host copies", copies, [(d_dir, dims * 32 * 4)])
    # sobolGPU's grid.
    gx = 4 * sms if dims < 4 * sms else 1
    if gx > n // THREADS:
        gx = (n + THREADS - 1) // THREADS
    target_x, gx = gx, 1
    while gx < target_x:
        gx *= 2
    stride = gx * THREADS
    L = ffs(stride) - 1
    code = listing(APP, "_Z15sobolGPU_kerneljjPjPf")
    head, head_br, (early, top2, bra2) = first_loop(code, L)
    last = find(code, r"^EXIT$", bra2)
    same("launches", [h.get("kernel name") for h, _ in kernels], ["_Z15sobolGPU_kerneljjPjPf"])
    header, blocks = kernels[0]
    same("grid", header["grid dim"], f"({gx},{dims},1)")
    same("block", header["block dim"], f"({THREADS},1,1)")
    same("shared memory", header.get("shmem"), "128")
    same("blocks", sorted(blocks), sorted((x, y, 0) for x in range(gx) for y in range(dims)))
    arrays = {"d_directions": (d_dir, d_dir + dims * 128),
              "d_output": (d_out, d_out + 4 * n * dims)}
    touched = {}
    for (bx, by, _), warps in blocks.items():
        same(f"block {bx},{by} warps", sorted(warps), [0, 1])
        for w, insts in warps.items():
            where = f"block {bx},{by} warp {w}"
            tx = [32 * w + l for l in range(32)]
            i0 = [bx * THREADS + t for t in tx]
            trips = [len(range(i + stride, n, stride)) for i in i0]
            most = max(trips)
            count = head + (span(early + 1, top2 - 1) + most * span(top2, bra2) + 1
                            if most else 0)
            same(f"{where} instructions", len(insts), count)
            # Branch masks: the first loop's uniform ones, the early EXIT (lanes without a
            # second-loop trip), the second loop's BRA (lanes going on), the final EXIT.
            want_br = {16 * k: v for k, v in head_br.items()}
            want_br[16 * early] = [mask_of(l for l in range(32) if not trips[l])]
            if most:
                want_br[16 * bra2] = [mask_of(l for l in range(32) if trips[l] > k + 1)
                                      for k in range(most)]
                want_br[16 * last] = [mask_of(l for l in range(32) if trips[l])]
            got_br = {}
            for pc, mask, op, _ in insts:
                if op in ("BRA", "EXIT") and (code[pc // 16].startswith("@") or pc == 16 * last):
                    got_br.setdefault(pc, []).append(mask)
            same(f"{where} branch masks {{PC: [masks]}}", got_br, want_br)
            # Global accesses, per lane.
            load = [l for l in range(32) if tx[l] < 32]
            want = [("LDG", mask_of(load), tuple(d_dir + 4 * (32 * by + tx[l]) for l in load))]
            first = [l for l in range(32) if i0[l] < n]
            want.append(("STG", mask_of(first), tuple(d_out + 4 * (n * by + i0[l])
                                                      for l in first)))
            # v[__ffs(stride) - 2], read once by the lanes that go on to the second loop.
            going = [l for l in range(32) if trips[l]]
            want_lds = [("LDS", mask_of(going), tuple(4 * (L - 1) for _ in going))] if most \
                else []
            for k in range(most):
                live = [l for l in range(32) if trips[l] > k]
                i = {l: i0[l] + (k + 1) * stride for l in live}
                want.append(("STG", mask_of(live), tuple(d_out + 4 * (n * by + i[l])
                                                         for l in live)))
                want_lds.append(("LDS", mask_of(live), tuple(
                    4 * (ffs(~((i[l] - stride) | (stride - 1)) & 0xFFFFFFFF) - 1)
                    for l in live)))
            same_accesses(f"{where} global accesses", mem_accesses(insts), sorted(want))
            # The shared loads after the early EXIT: v[L - 1] before the second loop, and
            # the loop's lane-dependent v[__ffs(~((i - stride) | (stride - 1))) - 1].
            got_lds = [("LDS", m, tuple(a)) for pc, m, op, a in insts
                       if op.startswith("LDS") and early < pc // 16 <= bra2]
            same_accesses(f"{where} shared loads after the early EXIT", sorted(got_lds),
                          sorted(want_lds))
            same(f"{where} shared stores, barriers",
                 (by_class(insts).get("sts"), by_class(insts).get("bar")), (1, 1))
            lines_by_array(insts, arrays, "LDG", touched, where)
            lines_by_array(insts, arrays, "STG", touched, where)
    same("lines d_directions' loads touch", touched.get(("d_directions", "LDG")),
         lines_of(range(d_dir, d_dir + dims * 128, 4)))
    same("lines d_output's stores touch", touched.get(("d_output", "STG")),
         lines_of(range(d_out, d_out + 4 * n * dims, 4)))
    same("arrays touched", sorted(touched), [("d_directions", "LDG"), ("d_output", "STG")])


CHECKS = {"sobolqrng": check_sobolqrng}
