"""binomialoptions: NVIDIA cuda-samples v11.5 Samples/binomialOptions/.

Re-derived from binomialOptions_kernel.cu (binomialOptionsGPU: the options' factors by
cudaMemcpyToSymbol into __constant__ d_OptionData, no host copy in the trace; one launch
binomialOptionsKernel<<<optN, 128>>>; the results in __device__ d_CallValue[MAX_OPTIONS], which
the driver allocates when the module loads: the first allocation, 1024 floats) and
binomialOptions_common.h (NUM_STEPS 2048; ELEMS_PER_THREAD = 2048 / 128 = 16).

Per thread tid: the 16 expiry values (straight-line), `if (tid == 0)` one more (lane 0 of warp
0), then `for (i = 2048; i > 0; --i)` unrolled by 16 (128 trips of the listing's loop, from
the backward BRA's target to the BRA): each of the 16 steps stores call_exchange[tid], two
barriers, loads call_exchange[tid + 1], then `if (i > final_it)` (final_it = max(0, 16 tid -
1)) skips the step's 16-element update by a forward BRA to the step's BSYNC: the update runs for
the lanes with i > final_it, and is skipped by the warp only when no lane has it. Then `if
(tid == 0) d_CallValue[blockIdx.x] = call[0]` (the other lanes EXIT). The option values do not
change the stream.
"""
import re
from collections import Counter

from .common import allocate, by_class, listing, same
from .listing_shape import back_branches, find, mem_accesses, same_accesses, span, target

APP = "binomialoptions"
FULL = 0xFFFFFFFF
NUM_STEPS = 2048
THREADS = 128
ELEMS = NUM_STEPS // THREADS
MAX_OPTIONS = 1024


def mask_of(lanes):
    return sum(1 << l for l in lanes)


def check_binomialoptions(copies, kernels, args):
    opt_n = int(args.get("options", 4))
    d_call, = allocate([MAX_OPTIONS * 4])
    same("host copies", copies, [])
    same("launches", [h.get("kernel name") for h, _ in kernels], ["_Z21binomialOptionsKernelv"])
    header, blocks = kernels[0]
    same("grid", header["grid dim"], f"({opt_n},1,1)")
    same("block", header["block dim"], f"({THREADS},1,1)")
    same("shared memory", header.get("shmem"), str(4 * (THREADS + 1)))
    same("blocks", sorted(blocks), [(x, 0, 0) for x in range(opt_n)])

    code = listing(APP, "_Z21binomialOptionsKernelv")
    tid0 = find(code, r"^@P2 BRA")                   # tid != 0 skips call_exchange[128] = ...
    (top, bra), = back_branches(code)                # the time loop, unrolled by 16
    skips = [k for k in range(top, bra) if re.match(r"@!?P\d BRA", code[k])]
    same("the time loop's steps (skip branches per trip)", len(skips), ELEMS)
    exit0 = find(code, r"^@P0 EXIT", bra)            # tid != 0 leaves
    last = find(code, r"^EXIT$", exit0)
    trips = NUM_STEPS // ELEMS

    for (bx, _, _), warps in blocks.items():
        same(f"block {bx} warps", sorted(warps), list(range(THREADS // 32)))
        for w, insts in warps.items():
            where = f"block {bx} warp {w}"
            tid = [32 * w + l for l in range(32)]
            final_it = [max(0, ELEMS * t - 1) for t in tid]
            count = span(0, tid0) + span(target(code[tid0]), top - 1)
            if w == 0:
                count += span(tid0 + 1, target(code[tid0]) - 1)
            want_br = {16 * tid0: [FULL & ~1 if w == 0 else FULL],
                       16 * bra: [FULL] * (trips - 1) + [0],
                       16 * exit0: [FULL & ~1 if w == 0 else FULL]}
            for s in skips:
                want_br[16 * s] = []
            for it in range(trips):
                count += span(top, bra)
                for j, s in enumerate(skips):
                    i = NUM_STEPS - ELEMS * it - j
                    idle = [l for l in range(32) if not i > final_it[l]]
                    want_br[16 * s].append(mask_of(idle))
                    if len(idle) == 32:                 # the warp skips the update
                        count -= target(code[s]) - s - 1
            count += span(bra + 1, exit0)
            if w == 0:
                count += span(exit0 + 1, last)
            same(f"{where} instructions", len(insts), count)
            got_br = {}
            for pc, mask, op, _ in insts:
                if pc in want_br:
                    got_br.setdefault(pc, []).append(mask)
            same(f"{where} branch masks {{PC: [masks]}}", got_br, want_br)
            # by class: per step one shared store, one shared load, two barriers.
            want_class = {"sts": NUM_STEPS + (w == 0), "lds": NUM_STEPS, "bar": 2 * NUM_STEPS,
                          "stg": int(w == 0)}
            same(f"{where} by class", {c: v for c, v in by_class(insts).items()
                                       if c in ("ldg", "stg", "sts", "lds", "bar", "atomg")},
                 {c: v for c, v in want_class.items() if v})
            # d_CallValue[blockIdx.x] from lane 0 only.
            want = [("STG", 1, (d_call + 4 * bx,))] if w == 0 else []
            same_accesses(f"{where} global accesses", mem_accesses(insts), want)
            # Shared: call_exchange[tid] stored, call_exchange[tid + 1] loaded, every step by
            # every lane; call_exchange[128] once by tid 0.
            want_sh = Counter({("STS", FULL, tuple(4 * t for t in tid)): NUM_STEPS,
                               ("LDS", FULL, tuple(4 * (t + 1) for t in tid)): NUM_STEPS})
            if w == 0:
                want_sh[("STS", 1, (4 * THREADS,))] += 1
            got_sh = Counter(mem_accesses(insts, ("STS", "LDS")))
            if got_sh != want_sh:
                same_accesses(f"{where} shared accesses", sorted(got_sh.elements()),
                              sorted(want_sh.elements()))


CHECKS = {"binomialoptions": check_binomialoptions}
