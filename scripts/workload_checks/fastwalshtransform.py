"""fastwalshtransform: NVIDIA cuda-samples v11.5 Samples/fastWalshTransform/.

Re-derived from fastWalshTransform.cu (main: the allocations d_Kernel then d_Data, both
DATA_SIZE; the copies of KERNEL_SIZE then DATA_SIZE bytes; fwtBatchGPU(d_Data), fwtBatchGPU
(d_Kernel), modulateGPU, fwtBatchGPU(d_Data)) and fastWalshTransform_kernel.cuh (fwtBatchGPU:
radix-4 fwtBatch2Kernel passes, grid (2^log2Data / 1024), 256 threads, while log2N > 11, then
fwtBatch1Kernel<<<M, N/4, 4N>>>; modulateKernel<<<128, 256>>>).

Every launch is divergence-free (every block a multiple of 32 threads, every thread the same
trip counts, modulate's idle warps idle as a whole), so each warp's count is a sum of listing
segments (basic blocks between branches, loop bodies from a backward BRA's target to the BRA)
times trip counts evaluated here from the CUDA source; every global access's lane addresses are
the source's index expressions, compared per warp as a multiset of (opcode, mask, addresses).
Nothing here depends on the data (the transform's values are not in the trace).
"""
import re

from .common import Mismatch, allocate, by_class, lines_of, listing, same
from .listing_shape import (back_branches, find, lines_by_array, mem_accesses, same_accesses,
                            span, target)

APP = "fastwalshtransform"
FULL = 0xFFFFFFFF
ELEMENTARY_LOG2 = 11   # ELEMENTARY_LOG2SIZE
THREAD_N = 256         # fwtBatchGPU's THREAD_N
LOG2_KERNEL = 7        # log2Kernel


# ---- helpers own to this file (the shared ones are listing_shape's) ------------------------

def loop_masks(trips, mask=0xFFFFFFFF):
    """A loop's backward branch: taken by the warp's lanes on every trip but the last."""
    return [mask] * (trips - 1) + [0]


def check_masks(where, code, insts, branches):
    """Every unpredicated instruction runs with all 32 lanes; every predicated BRA or EXIT
    has, per PC in execution order, the lanes whose predicate holds (the trace's mask for a
    predicated instruction is its guard-true lanes), as `branches` {index: [masks]} says.
    (Other predicated instructions, e.g. an integer division's fix-ups, are not checked.)"""
    got = {}
    for pc, mask, _, _ in insts:
        text = code[pc // 16]
        if not text.startswith("@"):
            if mask != FULL:
                raise Mismatch(f"{where}: unpredicated {text!r} at {pc:#x} with mask {mask:#x}")
        elif re.search(r"\b(BRA|EXIT)\b", text):
            got.setdefault(pc // 16, []).append(mask)
    want = {k: v for k, v in branches.items() if v}
    same(f"{where} branch masks {{PC/16: [masks]}}", got, want)


def butterfly(pos, stride):
    """A thread's element indices i0..i3 of a radix-4 butterfly (both fwt kernels)."""
    lo = pos & (stride - 1)
    i0 = ((pos - lo) << 2) + lo
    return [i0, i0 + stride, i0 + 2 * stride, i0 + 3 * stride]


# ---- the kernels ---------------------------------------------------------------------------

def check_batch2(tag, header, blocks, base, n, stride, arrays, touched):
    """fwtBatch2Kernel: straight-line code from the first instruction to the EXIT."""
    code = listing(APP, "_Z15fwtBatch2KernelPfS_i")
    want_n = find(code, r"^EXIT") + 1
    grid = n // (4 * THREAD_N)
    same(f"{tag} grid", header["grid dim"], f"({grid},1,1)")
    same(f"{tag} block", header["block dim"], f"({THREAD_N},1,1)")
    same(f"{tag} shared memory", header.get("shmem"), "0")
    same(f"{tag} blocks", sorted(blocks), [(x, 0, 0) for x in range(grid)])
    for (bx, _, _), warps in blocks.items():
        same(f"{tag} block {bx} warps", sorted(warps), list(range(THREAD_N // 32)))
        for w, insts in warps.items():
            where = f"{tag} block {bx} warp {w}"
            same(f"{where} instructions", len(insts), want_n)
            check_masks(where, code, insts, {})
            idx = [butterfly(bx * THREAD_N + 32 * w + l, stride) for l in range(32)]
            want = []
            for k in range(4):
                addrs = tuple(base + 4 * idx[l][k] for l in range(32))
                want += [("LDG", FULL, addrs), ("STG", FULL, addrs)]
            same_accesses(f"{where} global accesses", mem_accesses(insts), sorted(want))
            same(f"{where} by class", {c: v for c, v in by_class(insts).items()
                                       if c in ("ldg", "stg", "lds", "sts", "bar")},
                 {"ldg": 4, "stg": 4})
            lines_by_array(insts, arrays, "LDG", touched, where)
            lines_by_array(insts, arrays, "STG", touched, where)


def check_batch1(tag, header, blocks, base, m, log2n, arrays, touched):
    """fwtBatch1Kernel<<<m, N/4, 4N>>>: per thread 4 load trips, log2N/2 radix-4 stages, a
    radix-2 stage (2 trips) when log2N is odd, 4 store trips."""
    code = listing(APP, "_Z15fwtBatch1KernelPfS_i")
    n = 1 << log2n
    threads = n // 4
    loops = back_branches(code)
    # The listing's four loops in PC order: the load loop, the radix-4 stages, the radix-2
    # stage's loop, the store loop.
    same("fwtBatch1Kernel listing loops", len(loops), 4)
    (lt, lb), (rt, rb), (qt, qb), (st, sb) = loops
    skip_load = find(code, r"^@P0 BRA")          # pos < N fails for no thread: falls through
    skip_radix4 = find(code, r"^@!P2 BRA", lb)   # N >= 4 always: falls through
    odd_test = find(code, r"^@P1 BRA", rb)       # taken when log2N is even
    skip_radix2 = find(code, r"^@P1 BRA", odd_test + 1)  # pos < N/2 fails for none
    early_exit = find(code, r"^@P0 EXIT", qb)    # the store loop's guard: taken by none
    load_trips = -(-n // threads)
    stages = 0
    s = n >> 2
    while s > 0:
        stages, s = stages + 1, s >> 2
    odd = log2n & 1
    r2_trips = -(-(n // 2) // threads)
    count = (span(0, skip_load)                    # prologue to the guard of the load loop
             + span(skip_load + 1, lt - 1)         # the loop's entry
             + load_trips * span(lt, lb)           # the load loop's body
             + span(lb + 1, skip_radix4)           # BSYNC, the guard of the radix-4 loop
             + span(skip_radix4 + 1, rt - 1)       # its entry
             + stages * span(rt, rb)               # the radix-4 stages
             + span(rb + 1, odd_test))             # the odd-log2N test
    if odd:
        count += (span(odd_test + 1, qt - 1)       # barrier, the radix-2 loop's guard, entry
                  + r2_trips * span(qt, qb)        # its body
                  + span(qb + 1, target(code[odd_test]) - 1))  # its BSYNC
    count += (span(target(code[odd_test]), early_exit)  # barrier, the store loop's guard
              + span(early_exit + 1, st - 1)
              + load_trips * span(st, sb)
              + span(sb + 1, find(code, r"^EXIT$", sb)))
    branches = {skip_load: [0], lb: loop_masks(load_trips), skip_radix4: [0],
                rb: loop_masks(stages), odd_test: [0] if odd else [FULL],
                skip_radix2: [0] if odd else [],
                qb: loop_masks(r2_trips) if odd else [], early_exit: [0],
                sb: loop_masks(load_trips)}
    want_class = {"ldg": load_trips, "stg": load_trips, "bar": stages + odd + 1,
                  "lds": 4 * stages + odd * r2_trips + load_trips,
                  "sts": load_trips + 4 * stages + odd * r2_trips}
    same(f"{tag} grid", header["grid dim"], f"({m},1,1)")
    same(f"{tag} block", header["block dim"], f"({threads},1,1)")
    same(f"{tag} shared memory", header.get("shmem"), str(4 * n))
    same(f"{tag} blocks", sorted(blocks), [(x, 0, 0) for x in range(m)])
    for (bx, _, _), warps in blocks.items():
        same(f"{tag} block {bx} warps", sorted(warps), list(range(threads // 32)))
        for w, insts in warps.items():
            where = f"{tag} block {bx} warp {w}"
            same(f"{where} instructions", len(insts), count)
            check_masks(where, code, insts, branches)
            same(f"{where} by class", {c: v for c, v in by_class(insts).items()
                                       if c in ("ldg", "stg", "lds", "sts", "bar")}, want_class)
            want = []
            for k in range(load_trips):
                addrs = tuple(base + 4 * ((bx << log2n) + 32 * w + l + k * threads)
                              for l in range(32))
                want += [("LDG", FULL, addrs), ("STG", FULL, addrs)]
            same_accesses(f"{where} global accesses", mem_accesses(insts), sorted(want))
            lines_by_array(insts, arrays, "LDG", touched, where)
            lines_by_array(insts, arrays, "STG", touched, where)
            # Shared memory (offsets from 0): s_data[pos] in, the butterflies, s_data[pos] out.
            tids = [32 * w + l for l in range(32)]
            want = []
            for k in range(load_trips):
                addrs = tuple(4 * (t + k * threads) for t in tids)
                want += [("STS", FULL, addrs), ("LDS", FULL, addrs)]
            stride = n >> 2
            while stride > 0:
                idx = [butterfly(t, stride) for t in tids]
                for j in range(4):
                    addrs = tuple(4 * i[j] for i in idx)
                    want += [("LDS", FULL, addrs), ("STS", FULL, addrs)]
                stride >>= 2
            for k in range(r2_trips if odd else 0):
                addrs = tuple(8 * (t + k * threads) for t in tids)  # s_data[2 pos], 64 bits
                want += [("LDS", FULL, addrs), ("STS", FULL, addrs)]
            same_accesses(f"{where} shared accesses", mem_accesses(insts, ("LDS", "STS")),
                          sorted(want))


def check_modulate(tag, header, blocks, d_a, d_b, n, arrays, touched):
    """modulateKernel<<<128, 256>>>(d_Data, d_Kernel, N): each thread t = |range(tid, N,
    32768)| trips; the compiler's loop is a remainder loop of t % 4 trips, then a loop
    unrolled by 4 of t // 4 trips."""
    code = listing(APP, "_Z14modulateKernelPfS_i")
    fast = find(code, r"^@P0 BRA")                 # 1.0f/N's fast path (N a normal float)
    guard = find(code, r"^@P0 EXIT")               # tid < N
    rem_guard = find(code, r"^@!P0 BRA", guard)    # t % 4 == 0 skips the remainder loop
    (rt, rb), (ut, ub) = back_branches(code)[:2]
    tail = find(code, r"^@!P1 EXIT", rb)           # t < 4 leaves here
    last = find(code, r"^EXIT$", ub)
    nthreads = 128 * 256
    same(f"{tag} grid", header["grid dim"], "(128,1,1)")
    same(f"{tag} block", header["block dim"], "(256,1,1)")
    same(f"{tag} shared memory", header.get("shmem"), "0")
    same(f"{tag} blocks", sorted(blocks), [(x, 0, 0) for x in range(128)])
    for (bx, _, _), warps in blocks.items():
        same(f"{tag} block {bx} warps", sorted(warps), list(range(8)))
        for w, insts in warps.items():
            where = f"{tag} block {bx} warp {w}"
            tids = [bx * 256 + 32 * w + l for l in range(32)]
            trips = {len(range(t, n, nthreads)) for t in tids}
            same(f"{where}: one trip count per warp (the source's)", len(trips), 1)
            t = trips.pop()
            count = span(0, fast) + span(target(code[fast]), guard)
            if t:
                count += span(guard + 1, rem_guard)
                if t % 4:
                    count += span(rem_guard + 1, rt - 1) + (t % 4) * span(rt, rb)
                count += span(target(code[rem_guard]), tail)
                if t >= 4:
                    count += (t // 4) * span(ut, ub) + span(ub + 1, last)
            same(f"{where} instructions", len(insts), count)
            branches = {fast: [FULL], guard: [0] if t else [FULL]}
            if t:
                branches[rem_guard] = [0] if t % 4 else [FULL]
                branches[rb] = loop_masks(t % 4) if t % 4 else []
                branches[tail] = [0] if t >= 4 else [FULL]
                branches[ub] = loop_masks(t // 4) if t >= 4 else []
            check_masks(where, code, insts, branches)
            want = []
            for k in range(t):
                pos = [x + k * nthreads for x in tids]
                want += [("LDG", FULL, tuple(d_a + 4 * p for p in pos)),
                         ("LDG", FULL, tuple(d_b + 4 * p for p in pos)),
                         ("STG", FULL, tuple(d_a + 4 * p for p in pos))]
            same_accesses(f"{where} global accesses", mem_accesses(insts), sorted(want))
            lines_by_array(insts, arrays, "LDG", touched, where)
            lines_by_array(insts, arrays, "STG", touched, where)


def check_fastwalshtransform(copies, kernels, args):
    log2data = int(args.get("log2data", 18))
    n = 1 << log2data
    d_kernel, d_data = allocate([4 * n, 4 * n])
    # cudaMemset(d_Kernel, 0) is no copy; then the kernel's 128 floats, the data.
    same("host copies", copies, [(d_kernel, 4 << LOG2_KERNEL), (d_data, 4 * n)])
    arrays = {"d_Data": (d_data, d_data + 4 * n), "d_Kernel": (d_kernel, d_kernel + 4 * n)}

    # fwtBatchGPU's launches, in the host's order.
    def fwt(name, base):
        out, log2n, m = [], log2data, 1
        while log2n > ELEMENTARY_LOG2:
            out.append(("batch2", name, base, (1 << log2n) // 4))
            log2n, m = log2n - 2, m * 4
        out.append(("batch1", name, base, m, log2n))
        return out

    plan = fwt("d_Data", d_data) + fwt("d_Kernel", d_kernel) + [("modulate",)] \
        + fwt("d_Data", d_data)
    names = {"batch2": "_Z15fwtBatch2KernelPfS_i", "batch1": "_Z15fwtBatch1KernelPfS_i",
             "modulate": "_Z14modulateKernelPfS_i"}
    same("launches", [h.get("kernel name") for h, _ in kernels], [names[p[0]] for p in plan])
    touched = {}
    for k, (p, (header, blocks)) in enumerate(zip(plan, kernels)):
        tag = f"launch {k + 1} ({p[0]}{' of ' + p[1] if len(p) > 1 else ''})"
        if p[0] == "batch2":
            check_batch2(tag, header, blocks, p[2], n, p[3], arrays, touched)
        elif p[0] == "batch1":
            check_batch1(tag, header, blocks, p[2], p[3], p[4], arrays, touched)
        else:
            check_modulate(tag, header, blocks, d_data, d_kernel, n, arrays, touched)
    # Every pass reads and writes both whole arrays; modulate reads d_Kernel, rewrites d_Data.
    for name, (lo, hi) in arrays.items():
        whole = lines_of(range(lo, hi, 4))
        same(f"lines {name} loads touch", touched.get((name, "LDG")), whole)
        same(f"lines {name} stores touch", touched.get((name, "STG")), whole)


CHECKS = {"fastwalshtransform": check_fastwalshtransform}
