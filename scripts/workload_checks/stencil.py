"""stencil: Parboil stencil (src/cuda/main.cu's host code, kernels.cu's
block2D_hybrid_coarsen_x), re-derived independently of the emulator.

Host: cudaMalloc d_A0, d_Anext (nx*ny*nz floats); copy the grid to d_A0 and d_A0 to d_Anext
(the source's device-to-device copy, made by the library as a second host copy of the same
grid); `iters` launches of block2D_hybrid_coarsen_x<<<((nx+63)/64, (ny+3)/4), (32, 4),
64*4*4>>>(c0, c1, A0, Anext, nx, ny, nz), swapping A0 and Anext after each.

Kernel, per thread (a warp is one threadIdx.y row: tx = lane, ty = warp):
i = bx*64 + tx, i2 = i + 32, j = by*4 + ty, sh_id = tx + 64*ty, sh_id2 = sh_id + 32.
Zero sh_A0[sh_id], [sh_id2]; sync; (i<nx && j<ny): bottom = A0[i,j,0], sh[sh_id] = A0[i,j,1];
same for i2; sync; for k = 1 .. nz-2: (i<nx && j<ny) top = A0[i,j,k+1]; if w_region (0<i<nx-1,
0<j<ny-1): a_up from global A0[i,j+1,k] on ty == 3 else sh[sh_id+64], a_down A0[i,j-1,k] on
ty == 0 else sh[sh_id-64], a_left A0[i-1,j,k] on tx == 0 else sh[sh_id-1], reads sh[sh_id+1],
sh[sh_id], stores Anext[i,j,k]; the same for i2 (w_region2: j>0, i2<nx-1, j<ny-1; the right
neighbour A0[i2+1,j,k] on tx == 31 else sh[sh_id2+1]; reads sh[sh_id2-1], sh[sh_id2]); sync;
the swap (LDS, STS of sh_id and sh_id2 by every lane); sync.

Listing shape used: the prologue through `@!P1 EXIT` (nz < 3 ends there); the k loop from the
backward `@!P5 BRA`'s target to it; inside, three forward skips each over a block run by the
lanes of its condition (`@!P2 BRA`: w_region's block, `@!P0 BRA`: top2's load, `@!P1 BRA`:
w_region2's block) and joined at its BSYNC; a block is absent from the stream when no lane of
the warp runs it. The lanes of every global and shared memory instruction are the block's lanes
and its guard (ty, tx tests), evaluated per lane here; addresses per warp as multisets.
"""
import sys

from .common import allocate, lines_of, same
from .warp_paths import (Listing, Path, addresses, check_grid, compare_warp,
                         lines_by_array, same_addresses)


def check_stencil(copies, kernels, args):
    if args.get("file"):
        print("check-workload: stencil: this check takes nx, ny, nz (not file=)", file=sys.stderr)
        sys.exit(2)
    nx, ny, nz = int(args.get("nx", 128)), int(args.get("ny", 128)), int(args.get("nz", 32))
    iters = int(args.get("iters", 1))
    name = "_Z24block2D_hybrid_coarsen_xffPfS_iii"
    code = Listing("stencil", name)
    size = 4 * nx * ny * nz
    d = allocate([size, size])
    same("host copies", copies, [(d[0], size), (d[1], size)])
    same("launches", len(kernels), iters)
    grid = ((nx + 63) // 64, (ny + 3) // 4, 1)

    early = code.find(r"@!P1 EXIT")                  # nz < 3: no k iteration
    end = code.find(r"^EXIT")
    back = end - 1                                   # @!P5 BRA: k < nz - 1
    top = code.target(back)
    skip_w = code.find(r"@!P2 BRA", top)             # over w_region's block
    join_w = code.target(skip_w)
    skip_t2 = code.find(r"@!P0 BRA", join_w)         # over top2's load
    join_t2 = code.target(skip_t2)
    skip_w2 = code.find(r"@!P1 BRA", join_t2)        # over w_region2's block
    join_w2 = code.target(skip_w2)
    # Guarded memory instructions, located by pattern (their guard's meaning from the source).
    pro_p3 = code.all(r"^@P3 (LDG|STS)", 0, early)    # i < nx && j < ny
    pro_p0 = code.all(r"^@P0 (LDG|STS)", 0, early)    # i2 < nx && j < ny
    top_ld = code.find(r"^@P3 LDG", top)             # top = A0[i,j,k+1]

    for t, (header, blocks) in enumerate(kernels):
        a0, anext = d[t % 2], d[(t + 1) % 2]
        same(f"launch {t} kernel name", header["kernel name"], name)
        same(f"launch {t} shared memory", header["shmem"], str(64 * 4 * 4))
        check_grid(header, blocks, grid, (32, 4, 1))
        want_ld, want_st = set(), set()
        for (bx, by, _), warps in blocks.items():
            for w, insts in warps.items():
                where = f"launch {t} block {bx},{by} warp {w}"
                ty = w
                j = by * 4 + ty

                def idx(i, jj, k):
                    return 4 * (i + nx * (jj + ny * k))

                lanes = range(32)
                xs = [bx * 64 + tx for tx in lanes]
                p3 = [xs[l] < nx and j < ny for l in lanes]
                p0 = [xs[l] + 32 < nx and j < ny for l in lanes]
                wr = [0 < xs[l] < nx - 1 and 0 < j < ny - 1 for l in lanes]
                wr2 = [0 < j < ny - 1 and xs[l] + 32 < nx - 1 for l in lanes]
                m = lambda flags: sum(1 << l for l in lanes if flags[l])  # noqa: E731
                M3, M0, W, W2 = m(p3), m(p0), m(wr), m(wr2)
                up, down = ty == 3, ty == 0
                p = Path(code)
                p.to(early)
                for k in pro_p3:
                    p.guard(k, M3)
                for k in pro_p0:
                    p.guard(k, M0)
                ld, st, lds, sts = [], [], [], []
                for l in lanes:
                    sh, sh2 = l + 64 * ty, l + 32 + 64 * ty
                    sts += [4 * sh, 4 * sh2]
                    if p3[l]:
                        ld += [a0 + idx(xs[l], j, 0), a0 + idx(xs[l], j, 1)]
                        sts.append(4 * sh)
                    if p0[l]:
                        ld += [a0 + idx(xs[l] + 32, j, 0), a0 + idx(xs[l] + 32, j, 1)]
                        sts.append(4 * sh2)
                for k in range(1, nz - 1):
                    p.goto(top if k > 1 else early + 1)
                    p.to(skip_w)
                    p.guard(top_ld, M3)
                    if W:
                        p.to(join_w - 1, W)
                        # guards inside: @P6/@!P6 (ty != 3 / == 3: a_up), @P5/@!P5 (ty != 0 /
                        # == 0: a_down), then P6 re-set: tx != 0 / == 0 (a_left_right).
                        blk = range(skip_w + 1, join_w)
                        g_up = [q for q in blk if code.text[q].startswith(("@P6 LDS", "@!P6 LDG"))]
                        g_dn = [q for q in blk if code.text[q].startswith(("@P5 LDS", "@!P5 LDG"))]
                        g_up, g_lr = g_up[:2], g_up[2:]
                        for q in g_up:
                            p.guard(q, W if (up != code.text[q].startswith("@P6")) else 0)
                        for q in g_dn:
                            p.guard(q, W if (down != code.text[q].startswith("@P5")) else 0)
                        for q in g_lr:
                            on = m([l == 0 for l in lanes])
                            p.guard(q, W & (~on if code.text[q].startswith("@P6") else on))
                    p.goto(join_w)
                    p.to(skip_t2)
                    if M0:
                        p.to(join_t2 - 1, M0)
                    p.goto(join_t2)
                    p.to(skip_w2)
                    if W2:
                        p.to(join_w2 - 1, W2)
                        blk = range(skip_w2 + 1, join_w2)
                        right = m([l == 31 for l in lanes])
                        for q in blk:
                            tx_ = code.text[q]
                            if tx_.startswith("@P4 LDS"):
                                p.guard(q, W2 & ~right)
                            elif tx_.startswith("@!P4 LDG"):
                                p.guard(q, W2 & right)
                            elif tx_.startswith(("@P5 LDS", "@!P5 LDG")):   # a_up: ty != 3
                                p.guard(q, W2 if (up != tx_.startswith("@P5")) else 0)
                            elif tx_.startswith(("@P6 LDS", "@!P6 LDG")):   # a_down: ty != 0
                                p.guard(q, W2 if (down != tx_.startswith("@P6")) else 0)
                    p.goto(join_w2)
                    p.to(back)
                    for l in lanes:
                        i, i2 = xs[l], xs[l] + 32
                        sh, sh2 = l + 64 * ty, l + 32 + 64 * ty
                        if p3[l]:
                            ld.append(a0 + idx(i, j, k + 1))
                        if wr[l]:
                            ld += [a0 + idx(i, j + 1, k)] if up else []
                            ld += [a0 + idx(i, j - 1, k)] if down else []
                            ld += [a0 + idx(i - 1, j, k)] if l == 0 else []
                            lds += [4 * (sh + 1), 4 * sh]
                            lds += [] if up else [4 * (sh + 64)]
                            lds += [] if down else [4 * (sh - 64)]
                            lds += [] if l == 0 else [4 * (sh - 1)]
                            st.append(anext + idx(i, j, k))
                        if p0[l]:
                            ld.append(a0 + idx(i2, j, k + 1))
                        if wr2[l]:
                            ld += [a0 + idx(i2 + 1, j, k)] if l == 31 else []
                            ld += [a0 + idx(i2, j + 1, k)] if up else []
                            ld += [a0 + idx(i2, j - 1, k)] if down else []
                            lds += [4 * sh2, 4 * (sh2 - 1)]
                            lds += [] if l == 31 else [4 * (sh2 + 1)]
                            lds += [] if up else [4 * (sh2 + 64)]
                            lds += [] if down else [4 * (sh2 - 64)]
                            st.append(anext + idx(i2, j, k))
                        lds += [4 * sh, 4 * sh2]       # the swap
                        sts += [4 * sh, 4 * sh2]
                if nz >= 3:                  # else the warp ended at `@!P1 EXIT`
                    p.to(end)
                compare_warp(where, insts, p)
                same_addresses(f"{where} global load addresses", addresses(insts, ("ldg",)),
                               sorted(ld))
                same_addresses(f"{where} global store addresses", addresses(insts, ("stg",)),
                               sorted(st))
                same_addresses(f"{where} shared load addresses", addresses(insts, ("lds",)),
                               sorted(lds))
                same_addresses(f"{where} shared store addresses", addresses(insts, ("sts",)),
                               sorted(sts))
                want_ld |= lines_of(ld)
                want_st |= lines_of(st)
        arrays = {"A0": (a0, size), "Anext": (anext, size)}
        same(f"launch {t} lines loaded", lines_by_array(kernels[t:t + 1], arrays, ("ldg",)),
             {"A0": want_ld, "Anext": set()})
        same(f"launch {t} lines stored", lines_by_array(kernels[t:t + 1], arrays, ("stg",)),
             {"A0": set(), "Anext": want_st})


CHECKS = {"stencil": check_stencil}
