"""quasirandomgenerator: NVIDIA cuda-samples v11.5 Samples/quasirandomGenerator/.

Re-derived from quasirandomGenerator.cpp (one cudaMalloc of 3N floats, d_Output; the table by
cudaMemcpyToSymbol and a cudaMemset: no host copy in the trace; 1 + iterations launches of
quasirandomGeneratorGPU(d_Output, 0, N), then 1 + iterations of inverseCNDgpu(d_Output, NULL,
3N)) and quasirandomGenerator_kernel.cu:

* quasirandomGeneratorKernel<<<128, (128, 3)>>>: thread (tx, ty) of block b runs the grid-stride
  loop pos = 128 b + tx, += 16384, while pos < N, storing d_Output[ty N + pos]; per pos its
  31-bit loop `if (data & 1) result ^= dimBase[bit]` is unrolled into 31 predicated LDCs, one
  per bit (the LDC's constant offset / 4 is the bit), whose lanes are those whose pos has the
  bit set (seed 0).
* inverseCNDKernel<<<128, 128>>> with d_Input NULL: the `else` loop, pos < 3N, d = (pos + 1)
  distance, then MoroInvCNDgpu's `if (p2 > -0.42f)`, evaluated here per lane in float32
  exactly as the source writes it (x1 = 1/0xffffffff as a float is 2^-32, x2 = 2^-33, p1 = x x1
  + x2, p2 = p1 - 0.5), so each iteration runs the logarithmic path for the lanes that fail it
  and the rational one for those that pass.

Per warp the instruction count is: the prologue up to the early EXIT, then per loop trip the
body's segments (the listing's loop from the backward BRA's target to the BRA; in inverseCND
the common head, the log path if any lane takes it, the rational path if any lane takes it,
the common tail), and one EXIT: lanes that leave the loop early wait at the EXIT after it
until the others get there (the emulator runs a diverged warp's group with the lowest PC
first and merges groups at the same PC, docs/architecture.md), so the EXIT runs once, with
every lane that entered the loop. The one data-dependent detail not evaluated here is the
division's FCHK slow path (a CALL to a subroutine): it is taken only for a zero or extreme
numerator; the check finds the lanes with p2 == 0 (numerator 0) and for such a warp (none at
the sizes tried) allows 2 % on its count instead of exactness.
"""
import struct

from .common import Mismatch, allocate, lines_of, listing, same
from .listing_shape import back_branches, find, mem_accesses, same_accesses, span, target

APP = "quasirandomgenerator"
FULL = 0xFFFFFFFF
THREAD_N = 128 * 128          # blockDim.x * gridDim.x of both kernels


def f32(v):
    """Round a double to the nearest float32 (the device's float arithmetic)."""
    return struct.unpack("f", struct.pack("f", v))[0]


def mask_of(lanes):
    return sum(1 << l for l in lanes)


def masks_by_pc(insts, pcs):
    """{pc: sorted [masks]} of the warp's instructions at the given PCs."""
    out = {}
    for pc, mask, _, _ in insts:
        if pc in pcs:
            out.setdefault(pc, []).append(mask)
    return {k: sorted(v) for k, v in out.items()}


def check_generator(tag, header, blocks, n, d_out, touched):
    code = listing(APP, "_Z26quasirandomGeneratorKernelPfjj")
    early = find(code, r"^@P0 EXIT")                  # pos = tid < N fails: leave
    (top, bra), = back_branches(code)                # the grid-stride loop
    last = find(code, r"^EXIT$", bra)
    # The 31 predicated LDCs of the unrolled bit loop: PC -> the bit it reads.
    ldc = {}
    for k in range(top, bra):
        if " LDC " in f" {code[k]} ":
            off = code[k].split("[R4")[1].split("]")[0]
            ldc[16 * k] = int(off, 16) // 4 if off else 0
    same("quasirandomGeneratorKernel's bit loads (bits)", sorted(ldc.values()), list(range(31)))
    same(f"{tag} grid", header["grid dim"], "(128,1,1)")
    same(f"{tag} block", header["block dim"], "(128,3,1)")
    same(f"{tag} shared memory", header.get("shmem"), "0")
    same(f"{tag} blocks", sorted(blocks), [(x, 0, 0) for x in range(128)])
    for (bx, _, _), warps in blocks.items():
        same(f"{tag} block {bx} warps", sorted(warps), list(range(12)))
        for w, insts in warps.items():
            where = f"{tag} block {bx} warp {w}"
            ty, tx0 = w // 4, 32 * (w % 4)
            tid = [128 * bx + tx0 + l for l in range(32)]
            trips = [len(range(t, n, THREAD_N)) for t in tid]
            most = max(trips)
            count = span(0, early)
            want_br = {16 * early: [mask_of(l for l in range(32) if trips[l] == 0)]}
            want_ldc, want_st = {pc: [] for pc in ldc}, []
            if most:
                count += span(early + 1, top - 1) + most * span(top, bra) + 1
                want_br[16 * bra] = []
                for k in range(most):
                    live = [l for l in range(32) if trips[l] > k]
                    pos = {l: tid[l] + k * THREAD_N for l in live}
                    for pc, bit in ldc.items():
                        want_ldc[pc].append(mask_of(l for l in live if pos[l] >> bit & 1))
                    want_st.append(("STG", mask_of(live),
                                    tuple(d_out + 4 * (ty * n + pos[l]) for l in live)))
                    want_br[16 * bra].append(mask_of(l for l in range(32) if trips[l] > k + 1))
                want_br[16 * last] = [mask_of(l for l in range(32) if trips[l])]
            same(f"{where} instructions", len(insts), count)
            same(f"{where} branch and exit masks", masks_by_pc(insts, set(want_br)),
                 {k: sorted(v) for k, v in want_br.items() if v})
            same(f"{where} bit-load masks (PC: masks)", masks_by_pc(insts, set(ldc)),
                 {k: sorted(v) for k, v in want_ldc.items() if v})
            same_accesses(f"{where} global accesses", mem_accesses(insts), sorted(want_st))
            for i in insts:
                if i[2].startswith("STG"):
                    touched |= lines_of(i[3])


def check_inverse(tag, header, blocks, n, d_out, touched):
    code = listing(APP, "_Z16inverseCNDKernelPfPjj")
    path_n = 3 * n
    distance = 0xFFFFFFFF // (path_n + 1)
    null_test = find(code, r"^@!P0 BRA")             # d_Input == NULL: to the `else` loop
    else_at = target(code[null_test])
    early = find(code, r"^@P0 EXIT", else_at)        # pos < pathN fails: leave
    loops = [lp for lp in back_branches(code) if lp[0] > else_at]
    (top, bra), = loops                              # the `else` loop
    rational = find(code, r"^@P0 BRA", top)          # p2 > -0.42f: to the rational path
    log_end = find(code, r"^BRA ", rational)         # the log path's jump to the join
    fchk = find(code, r"^@!P0 BRA", target(code[rational]))  # FCHK: skip the slow division
    last = find(code, r"^EXIT$", bra)
    head = span(top, rational)
    log_path = span(rational + 1, log_end)
    rat_path = span(target(code[rational]), fchk) + 1    # ... and its BSYNC (fchk's target)
    tail = span(target(code[log_end]), bra)
    x1 = f32(1.0 / 0xFFFFFFFF)
    x2 = f32(x1 / 2.0)
    limit = f32(-0.42)
    same(f"{tag} grid", header["grid dim"], "(128,1,1)")
    same(f"{tag} block", header["block dim"], "(128,1,1)")
    same(f"{tag} shared memory", header.get("shmem"), "0")
    same(f"{tag} blocks", sorted(blocks), [(x, 0, 0) for x in range(128)])
    for (bx, _, _), warps in blocks.items():
        same(f"{tag} block {bx} warps", sorted(warps), list(range(4)))
        for w, insts in warps.items():
            where = f"{tag} block {bx} warp {w}"
            tid = [128 * bx + 32 * w + l for l in range(32)]
            trips = [len(range(t, path_n, THREAD_N)) for t in tid]
            most = max(trips)
            count = span(0, null_test) + span(else_at, early)
            want_br = {16 * null_test: [FULL],
                       16 * early: [mask_of(l for l in range(32) if trips[l] == 0)]}
            want_st, zero = [], False
            if most:
                count += span(early + 1, top - 1) + 1
                want_br.update({16 * rational: [], 16 * fchk: [], 16 * bra: []})
                for k in range(most):
                    live = [l for l in range(32) if trips[l] > k]
                    pos = {l: tid[l] + k * THREAD_N for l in live}
                    rat = []
                    for l in live:
                        d = ((pos[l] + 1) * distance) & 0xFFFFFFFF
                        x = 0xFFFFFFFF - d if d >= 0x80000000 else d
                        p1 = f32(f32(x) * x1 + x2)   # exact in double, then one rounding
                        p2 = f32(p1 - 0.5)
                        if p2 > limit:
                            rat.append(l)
                            zero |= p2 == 0.0
                    logl = [l for l in live if l not in rat]
                    count += head + tail + (log_path if logl else 0) + (rat_path if rat else 0)
                    want_br[16 * rational].append(mask_of(rat))
                    if rat:   # FCHK passes for all: the skip of the slow path is taken
                        want_br[16 * fchk].append(mask_of(rat))
                    want_br[16 * bra].append(mask_of(l for l in range(32) if trips[l] > k + 1))
                    want_st.append(("STG", mask_of(live), tuple(d_out + 4 * pos[l]
                                                               for l in live)))
                want_br[16 * last] = [mask_of(l for l in range(32) if trips[l])]
            if zero:
                # A lane with p2 == 0 may take the FCHK slow path (a subroutine): 2 %.
                if abs(len(insts) - count) > 0.02 * count:
                    raise Mismatch(f"{where} instructions: the trace has {len(insts)}, the "
                                   f"kernel's definition gives {count} (within 2 %)")
                want_br.pop(16 * fchk, None)
            else:
                same(f"{where} instructions", len(insts), count)
            same(f"{where} branch and exit masks", masks_by_pc(insts, set(want_br)),
                 {k: sorted(v) for k, v in want_br.items() if v})
            same_accesses(f"{where} global accesses", mem_accesses(insts), sorted(want_st))
            for i in insts:
                if i[2].startswith("STG"):
                    touched |= lines_of(i[3])


def check_quasirandomgenerator(copies, kernels, args):
    n = int(args.get("n", 65536))
    iterations = int(args.get("iterations", 0))
    d_out, = allocate([3 * n * 4])
    same("host copies", copies, [])
    names = (["_Z26quasirandomGeneratorKernelPfjj"] * (1 + iterations)
             + ["_Z16inverseCNDKernelPfPjj"] * (1 + iterations))
    same("launches", [h.get("kernel name") for h, _ in kernels], names)
    whole = lines_of(range(d_out, d_out + 12 * n, 4))
    for k, (header, blocks) in enumerate(kernels):
        touched = set()
        if k <= iterations:
            check_generator(f"launch {k + 1} (generator)", header, blocks, n, d_out, touched)
        else:
            check_inverse(f"launch {k + 1} (inverseCND)", header, blocks, n, d_out, touched)
        same(f"launch {k + 1}: lines d_Output's stores touch", touched, whole)


CHECKS = {"quasirandomgenerator": check_quasirandomgenerator}
