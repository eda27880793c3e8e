"""sgemm: Parboil sgemm (src/cuda/main.cu's host code, sgemm_kernel.cu's mysgemmNT and
regtileSgemm), re-derived independently of the emulator.

Host: cudaMalloc dA (m*k floats), dB (k*n), dC (m*n); copy A, then B (transposed, n x k);
one launch mysgemmNT<<<(m/128, n/16), (16, 8)>>>(A, lda=m, B, ldb=n, C, ldc=m, k, 1, 0).

Kernel: mid = ty*16 + tx, m = bx*128 + mid, n = by*16 + tx; for i = 0; i < k; i += 8:
b_s[ty][tx] = B[n + (i+ty)*ldb]; sync; for j < 8: a = A[m + (i+j)*lda] and 16 FMAs reading
b_s[j][0..15]; sync. Then for i < 16: C[t + i*ldc] = C[t + i*ldc]*beta + alpha*c[i] with
t = ldc*by*16 + m. No bounds checks and no divergence (m % 128 == 0, n % 16 == 0): every lane of
every warp is active throughout; the stream is the listing's prologue up to the `@!P0 BRA` that
skips the loop when k <= 0, the lines before the loop's top, ceil(k/8) times the loop body (from
the backward `@!P0 BRA`'s target to it), and the epilogue to EXIT. Compared exactly: the PC
sequence (count, by class), the lanes of every memory instruction, the multiset of global
addresses each warp loads and stores, of shared addresses it writes (b_s[ty][tx]) and reads
(b_s[j][kk], a float4 per 4 kk, the same for all lanes), and each array's lines.
"""
import re
import sys

from .common import allocate, lines_of, same
from .warp_paths import (Listing, Path, addresses, check_grid, compare_warp, lines_by_array,
                         same_addresses)


def check_sgemm(copies, kernels, args):
    if args.get("a") or args.get("b"):
        print("check-workload: sgemm: this check takes m, n, k (not files)", file=sys.stderr)
        sys.exit(2)
    M, N, K = int(args.get("m", 256)), int(args.get("n", 256)), int(args.get("k", 256))
    name = "_Z9mysgemmNTPKfiS0_iPfiiff"
    code = Listing("sgemm", name)
    dA, dB, dC = allocate([4 * M * K, 4 * K * N, 4 * M * N])
    same("host copies", copies, [(dA, 4 * M * K), (dB, 4 * K * N)])
    same("launches", len(kernels), 1)
    header, blocks = kernels[0]
    same("kernel name", header["kernel name"], name)
    same("shared memory", header["shmem"], str(8 * 16 * 4))
    check_grid(header, blocks, (M // 128, N // 16, 1), (16, 8, 1))
    end = code.find(r"^EXIT")
    skip = code.find(r"@!P0 BRA")                   # k <= 0: straight to the epilogue
    back = end - 1
    while "BRA" not in code.text[back]:
        back -= 1                                   # the loop's backward branch
    top = code.target(back)
    epilogue = code.target(skip)
    trips = len(range(0, K, 8))
    # b_s[j][kk] read as float4s, in the listing's order per trip (the loop body's LDS.128s).
    lds_offsets = [int(re.search(r"\[(0x[0-9a-f]+|RZ)\]", code.text[k]).group(1)
                       .replace("RZ", "0x0"), 16) for k in code.all(r"LDS\.U\.128", top, back)]
    same("b_s float4 reads per trip (listing)", sorted(lds_offsets),
         [4 * (j * 16 + kk) for j in range(8) for kk in range(0, 16, 4)])
    for (bx, by, _), warps in blocks.items():
        for w, insts in warps.items():
            where = f"block {bx},{by} warp {w}"
            p = Path(code)
            p.to(skip)
            if trips:
                for _ in range(trips):
                    p.to(back)
                    p.goto(top)
            p.goto(epilogue)
            p.to(end)
            compare_warp(where, insts, p)
            loads, stores, sts, lds = [], [], [], []
            for lane in range(32):
                mid = 32 * w + lane
                tx, ty = mid % 16, mid // 16
                m, n = bx * 128 + mid, by * 16 + tx
                for i in range(0, K, 8):
                    loads.append(dB + 4 * (n + (i + ty) * N))
                    sts.append(4 * (ty * 16 + tx))
                    for j in range(8):
                        loads.append(dA + 4 * (m + (i + j) * M))
                    lds += [4 * (j * 16 + kk) for j in range(8) for kk in range(0, 16, 4)]
                t = M * by * 16 + m
                for i in range(16):
                    loads.append(dC + 4 * (t + i * M))
                    stores.append(dC + 4 * (t + i * M))
            same_addresses(f"{where} global load addresses", addresses(insts, ("ldg",)),
                           sorted(loads))
            same_addresses(f"{where} global store addresses", addresses(insts, ("stg",)),
                           sorted(stores))
            same_addresses(f"{where} shared store addresses", addresses(insts, ("sts",)),
                           sorted(sts))
            same_addresses(f"{where} shared load addresses", addresses(insts, ("lds",)),
                           sorted(lds))
    arrays = {"A": (dA, 4 * M * K), "B": (dB, 4 * K * N), "C": (dC, 4 * M * N)}
    full = {x: lines_of(range(b, b + s, 4)) for x, (b, s) in arrays.items()}
    # Every element of A, B and C is read when K > 0 (C once per element, beta * C).
    same("lines loaded", lines_by_array(kernels, arrays, ("ldg",)),
         {"A": full["A"] if trips else set(), "B": full["B"] if trips else set(),
          "C": full["C"]})
    same("lines stored", lines_by_array(kernels, arrays, ("stg",)),
         {"A": set(), "B": set(), "C": full["C"]})


CHECKS = {"sgemm": check_sgemm}
