"""mri-q: Parboil mri-q (src/cuda/main.cu's host code, computeQ.cu's ComputePhiMag_GPU,
ComputeQ_GPU, computePhiMag_GPU and computeQ_GPU), re-derived independently of the emulator.

Host (main.cu, GPU sections 1 and 2): setupMemoryGPU (cudaMalloc + copy) phiR, phiI; cudaMalloc
phiMag; launch ComputePhiMag_GPU<<<ceil(numK/512), 512>>>; then setupMemoryGPU x, y, z;
cudaMalloc Qr, Qi (memset, not copies); per tile of 1024 k-space samples (QGrids =
ceil(numK/1024)) ck goes to constant memory (cudaMemcpyToSymbol, not a device copy) and
ComputeQ_GPU<<<ceil(numX/256), 256>>>(numK, QGridBase, x, y, z, Qr, Qi) runs.

ComputePhiMag_GPU: indexK = blockIdx.x*512 + tid; if (indexK < numK) phiMag[indexK] =
phiR[indexK]^2 + phiI[indexK]^2. Listing: `@P0 EXIT` for the others, else straight to EXIT.

ComputeQ_GPU: no bounds check (numX % 256 == 0); every thread loads x, y, z, Qr, Qi[xIndex];
if numK is odd, one sample first (kIndex = 1, kGlobalIndex + 1); then pairs of samples while
kIndex < 1024 && kGlobalIndex < numK; stores Qr, Qi[xIndex]. Listing: the `@P0 BRA` over the
odd sample's block, the `@P0 BRA` that skips the loop when kGlobalIndex >= numK, the loop body
from the backward `@!P0 BRA P1`'s target to it, the two stores and EXIT. The trip count is
evaluated from the source's loop in Python; no divergence (numK, kGlobalIndex are uniform).
"""
import sys

from .common import allocate, lines_of, same
from .warp_paths import (FULL, Listing, Path, addresses, check_grid, compare_warp,
                         lines_by_array, same_addresses)


def check_mri_q(copies, kernels, args):
    if args.get("file"):
        print("check-workload: mri-q: this check takes numx, numk (not file=)", file=sys.stderr)
        sys.exit(2)
    numx, numk = int(args.get("numx", 4096)), int(args.get("numk", 2048))
    phi_name, q_name = "_Z17ComputePhiMag_GPUPfS_S_i", "_Z12ComputeQ_GPUiiPfS_S_S_S_"
    phi_code, q_code = Listing("mri-q", phi_name), Listing("mri-q", q_name)
    k4, x4 = 4 * numk, 4 * numx
    phi_r, phi_i, phi_mag, x, y, z, qr, qi = allocate([k4] * 3 + [x4] * 5)
    same("host copies", copies, [(phi_r, k4), (phi_i, k4), (x, x4), (y, x4), (z, x4)])
    bases = list(range(0, numk, 1024))
    same("launches", len(kernels), 1 + len(bases))

    # ComputePhiMag_GPU
    header, blocks = kernels[0]
    same("launch 0 kernel name", header["kernel name"], phi_name)
    same("launch 0 shared memory", header["shmem"], "0")
    check_grid(header, blocks, (-(-numk // 512), 1, 1), (512, 1, 1))
    early = phi_code.find(r"@P0 EXIT")
    end = phi_code.find(r"^EXIT")
    for (bx, _, _), warps in blocks.items():
        for w, insts in warps.items():
            where = f"ComputePhiMag_GPU block {bx} warp {w}"
            first = 512 * bx + 32 * w
            live = [l for l in range(32) if first + l < numk]
            mask = sum(1 << l for l in live)
            p = Path(phi_code)
            p.to(early)
            if live:
                p.to(end, mask)
            compare_warp(where, insts, p)
            same_addresses(f"{where} load addresses", addresses(insts, ("ldg",)),
                           sorted(b + 4 * (first + l) for l in live for b in (phi_r, phi_i)))
            same_addresses(f"{where} store addresses", addresses(insts, ("stg",)),
                           sorted(phi_mag + 4 * (first + l) for l in live))
    arrays = {"phiR": (phi_r, k4), "phiI": (phi_i, k4), "phiMag": (phi_mag, k4),
              "x": (x, x4), "y": (y, x4), "z": (z, x4), "Qr": (qr, x4), "Qi": (qi, x4)}
    full = {n: lines_of(range(b, b + s, 4)) for n, (b, s) in arrays.items()}
    none = {n: set() for n in arrays}
    same("ComputePhiMag_GPU lines loaded", lines_by_array(kernels[:1], arrays, ("ldg",)),
         {**none, "phiR": full["phiR"], "phiI": full["phiI"]})
    same("ComputePhiMag_GPU lines stored", lines_by_array(kernels[:1], arrays, ("stg",)),
         {**none, "phiMag": full["phiMag"]})

    # ComputeQ_GPU, one launch per tile of 1024 samples
    odd_skip = q_code.find(r"@P0 BRA")                 # numK % 2 == 0 skips the odd sample
    odd_join = q_code.target(odd_skip)
    loop_skip = q_code.find(r"@P0 BRA", odd_join)      # kGlobalIndex >= numK: no loop
    back = q_code.find(r"@!P0 BRA P1")                 # the loop's backward branch
    top = q_code.target(back)
    end = q_code.find(r"^EXIT")
    same("ComputeQ_GPU loop skip target", q_code.target(loop_skip), back + 1)
    for n, base in enumerate(bases, 1):
        header, blocks = kernels[n]
        same(f"launch {n} kernel name", header["kernel name"], q_name)
        same(f"launch {n} shared memory", header["shmem"], "0")
        check_grid(header, blocks, (-(-numx // 256), 1, 1), (256, 1, 1))
        # The source's loop, evaluated: its trip count for this tile.
        k_index, k_global = 0, base
        if numk % 2:
            k_index, k_global = 1, base + 1
        trips = 0
        while k_index < 1024 and k_global < numk:
            trips, k_index, k_global = trips + 1, k_index + 2, k_global + 2
        for (bx, _, _), warps in blocks.items():
            for w, insts in warps.items():
                where = f"ComputeQ_GPU launch {n} block {bx} warp {w}"
                p = Path(q_code)
                p.to(odd_skip)
                if numk % 2:
                    p.to(odd_join - 1)
                p.goto(odd_join)
                p.to(loop_skip)
                for _ in range(trips):
                    p.goto(top)
                    p.to(back)
                p.goto(back + 1)
                p.to(end, FULL)
                compare_warp(where, insts, p)
                idx = [256 * bx + 32 * w + l for l in range(32)]
                same_addresses(f"{where} load addresses", addresses(insts, ("ldg",)),
                               sorted(b + 4 * i for i in idx for b in (x, y, z, qr, qi)))
                same_addresses(f"{where} store addresses", addresses(insts, ("stg",)),
                               sorted(b + 4 * i for i in idx for b in (qr, qi)))
        same(f"ComputeQ_GPU launch {n} lines loaded",
             lines_by_array(kernels[n:n + 1], arrays, ("ldg",)),
             {**none, **{a: full[a] for a in ("x", "y", "z", "Qr", "Qi")}})
        same(f"ComputeQ_GPU launch {n} lines stored",
             lines_by_array(kernels[n:n + 1], arrays, ("stg",)),
             {**none, "Qr": full["Qr"], "Qi": full["Qi"]})


CHECKS = {"mri-q": check_mri_q}
