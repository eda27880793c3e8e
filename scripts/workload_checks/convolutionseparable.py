"""convolutionseparable: NVIDIA cuda-samples v11.5 Samples/convolutionSeparable/.

Re-derived from main.cpp (cudaMalloc d_Input, d_Output, d_Buffer, each W*H floats; c_Kernel by
cudaMemcpyToSymbol, no copy in the trace; the one copy of d_Input; then 1 + iterations passes of
convolutionRowsGPU(d_Buffer, d_Input) and convolutionColumnsGPU(d_Output, d_Buffer)) and
convolutionSeparable.cu (the two kernels, their block shapes, RESULT_STEPS 8, HALO_STEPS 1,
KERNEL_RADIUS 8).

Both kernels are fully unrolled: their listings are straight-line from the first instruction to
the EXIT, so every warp runs that many instructions. The only divergence is the halo loads'
conditions (`baseX >= 0`, `imageW - baseX > 144` in rows; `baseY >= 0`, `imageH - baseY > 72`
in columns), compiled to predicated LDGs whose trace mask is the lanes for which the source's
condition holds; the lane addresses of every load and store are the source's index expressions.
The values (the image) do not change the stream.
"""
from .common import allocate, by_class, lines_of, listing, same
from .listing_shape import find, lines_by_array, mem_accesses, same_accesses

APP = "convolutionseparable"
FULL = 0xFFFFFFFF
RADIUS = 8
RESULT_STEPS = 8
HALO_STEPS = 1


def mask_of(flags):
    return sum(1 << l for l, f in enumerate(flags) if f)


def check_pass(tag, header, blocks, kind, W, H, src, dst, arrays, touched):
    """One launch of convolutionRowsKernel (kind "rows") or convolutionColumnsKernel."""
    if kind == "rows":
        name, bx_, by_ = "_Z21convolutionRowsKernelPfS_iii", 16, 4
        grid = (W // (RESULT_STEPS * bx_), H // by_)
    else:
        name, bx_, by_ = "_Z24convolutionColumnsKernelPfS_iii", 16, 8
        grid = (W // bx_, H // (RESULT_STEPS * by_))
    code = listing(APP, name)
    # Straight-line code: every warp runs from the first instruction to the EXIT.
    want_n = find(code, r"^EXIT$") + 1
    same(f"{tag} kernel", header.get("kernel name"), name)
    same(f"{tag} grid", header["grid dim"], f"({grid[0]},{grid[1]},1)")
    same(f"{tag} block", header["block dim"], f"({bx_},{by_},1)")
    # s_Data: rows [4][(8 + 2) * 16] floats, columns [16][(8 + 2) * 8 + 1].
    shared = 4 * (by_ * (RESULT_STEPS + 2 * HALO_STEPS) * bx_ if kind == "rows"
                  else bx_ * ((RESULT_STEPS + 2 * HALO_STEPS) * by_ + 1))
    same(f"{tag} shared memory", header.get("shmem"), str(shared))
    same(f"{tag} blocks", sorted(blocks),
         sorted((x, y, 0) for x in range(grid[0]) for y in range(grid[1])))
    nwarps = bx_ * by_ // 32
    # Per warp, by class: 10 loads (8 + 2 halo, predicated), 8 stores, 10 shared stores, one
    # barrier, and one shared load per distinct s_Data word the 8 x 17 taps read (the
    # compiler reads each once: the taps of output i span i * step + j, i = 1..8, j = -8..8,
    # 7 * step + 17 words: 129 in rows (step 16), 73 in columns (step 8)).
    distinct = (RESULT_STEPS - 1) * (bx_ if kind == "rows" else by_) + 2 * RADIUS + 1
    want_class = {"ldg": 10, "stg": 8, "sts": 10, "lds": distinct, "bar": 1}
    for (bx, by, _), warps in blocks.items():
        same(f"{tag} block {bx},{by} warps", sorted(warps), list(range(nwarps)))
        for w, insts in warps.items():
            where = f"{tag} block {bx},{by} warp {w}"
            same(f"{where} instructions", len(insts), want_n)
            same(f"{where} by class", {c: v for c, v in by_class(insts).items()
                                       if c in want_class}, want_class)
            tx = [l % 16 for l in range(32)]
            ty = [2 * w + l // 16 for l in range(32)]
            if kind == "rows":
                baseX = [(bx * RESULT_STEPS - HALO_STEPS) * 16 + x for x in tx]
                baseY = [by * 4 + y for y in ty]
                step = 16                           # d_Src[i * ROWS_BLOCKDIM_X]
                top = [x >= 0 for x in baseX]
                bottom = [W - x > 9 * 16 for x in baseX]
            else:
                baseX = [bx * 16 + x for x in tx]
                baseY = [(by * RESULT_STEPS - HALO_STEPS) * 8 + y for y in ty]
                step = 8 * W                        # d_Src[i * COLUMNS_BLOCKDIM_Y * pitch]
                top = [y >= 0 for y in baseY]
                bottom = [H - y > 9 * 8 for y in baseY]
            at = [baseY[l] * W + baseX[l] for l in range(32)]
            want = []
            for i in range(1, 9):
                want.append(("LDG", FULL, tuple(src + 4 * (a + i * step) for a in at)))
                want.append(("STG", FULL, tuple(dst + 4 * (a + i * step) for a in at)))
            want.append(("LDG", mask_of(top), tuple(src + 4 * at[l] for l in range(32)
                                                    if top[l])))
            want.append(("LDG", mask_of(bottom), tuple(src + 4 * (at[l] + 9 * step)
                                                       for l in range(32) if bottom[l])))
            same_accesses(f"{where} global accesses", mem_accesses(insts), sorted(want))
            # The other instructions: unpredicated ones run on all lanes; predicated ones
            # (the halo loads and their address arithmetic) on a halo condition's lanes.
            for pc, mask, _, _ in insts:
                text = code[pc // 16]
                ok = {mask_of(top), mask_of(bottom)} if text.startswith("@") else {FULL}
                if mask not in ok:
                    same(f"{where} mask of {text!r} at {pc:#x}", f"{mask:#x}",
                         " or ".join(f"{m:#x}" for m in sorted(ok)))
            lines_by_array(insts, arrays, "LDG", touched, where)
            lines_by_array(insts, arrays, "STG", touched, where)


def check_convolutionseparable(copies, kernels, args):
    W, H = int(args.get("width", 1024)), int(args.get("height", 1024))
    iterations = int(args.get("iterations", 0))
    size = 4 * W * H
    d_input, d_output, d_buffer = allocate([size] * 3)
    same("host copies", copies, [(d_input, size)])
    same("launches", len(kernels), 2 * (1 + iterations))
    arrays = {"d_Input": (d_input, d_input + size), "d_Output": (d_output, d_output + size),
              "d_Buffer": (d_buffer, d_buffer + size)}
    touched = {}
    for k, (header, blocks) in enumerate(kernels):
        if k % 2 == 0:
            check_pass(f"launch {k + 1} (rows)", header, blocks, "rows", W, H, d_input,
                       d_buffer, arrays, touched)
        else:
            check_pass(f"launch {k + 1} (columns)", header, blocks, "columns", W, H, d_buffer,
                       d_output, arrays, touched)
    # Every pixel is read by the pass that reads its array and written by the one that
    # writes it (the halo loads stay inside the image): whole arrays.
    whole = {n: lines_of(range(lo, hi, 4)) for n, (lo, hi) in arrays.items()}
    same("lines d_Input loads touch", touched.get(("d_Input", "LDG")), whole["d_Input"])
    same("lines d_Buffer loads touch", touched.get(("d_Buffer", "LDG")), whole["d_Buffer"])
    same("lines d_Buffer stores touch", touched.get(("d_Buffer", "STG")), whole["d_Buffer"])
    same("lines d_Output stores touch", touched.get(("d_Output", "STG")), whole["d_Output"])
    same("arrays touched", sorted(touched), [("d_Buffer", "LDG"), ("d_Buffer", "STG"),
                                             ("d_Input", "LDG"), ("d_Output", "STG")])


CHECKS = {"convolutionseparable": check_convolutionseparable}
