"""microgpusim's benchmarks."""
import re
import sys

from .common import allocate, global_mem, lines_of, listing, same


def check_vectoradd(copies, kernels, args):
    n = int(args.get("n", 100))
    code = listing("vectoradd", "_Z6vecAddIfEvPT_S1_S1_i")
    early = next(k for k, t in enumerate(code) if "EXIT" in t) + 1
    full = next(k for k, t in enumerate(code) if t == "EXIT") + 1
    a, b, c = allocate([4 * n] * 3)
    same("host copies", copies, [(a, 4 * n), (b, 4 * n), (c, 4 * n)])
    same("kernels", len(kernels), 1)
    header, blocks = kernels[0]
    grid = -(-n // 1024)
    same("grid", header["grid dim"], f"({grid},1,1)")
    same("blocks", sorted(blocks), [(x, 0, 0) for x in range(grid)])
    touched = {"a": set(), "b": set(), "c": set()}
    for (bx, _, _), warps in blocks.items():
        for w, insts in warps.items():
            first = bx * 1024 + 32 * w
            live = max(0, min(32, n - first))
            same(f"block {bx} warp {w} instructions", len(insts), full if live else early)
            loads, stores = global_mem(insts, "LDG"), global_mem(insts, "STG")
            same(f"block {bx} warp {w} loads", len(loads), 2 if live else 0)
            for i in loads + stores:
                same(f"block {bx} warp {w} lanes at {i[0]:#x}", bin(i[1]).count("1"), live)
            if live:
                touched["b"] |= lines_of(loads[0][3])
                touched["a"] |= lines_of(loads[1][3])
                touched["c"] |= lines_of(stores[0][3])
    for name, base in (("a", a), ("b", b), ("c", c)):
        same(f"lines of {name}", touched[name], lines_of(range(base, base + 4 * n, 4)))


def check_matrixmul(copies, kernels, args):
    rows = int(args.get("rows", 32))
    code = listing("matrixmul", "_Z8mult_gpuIfEvPT_S1_S1_ii")
    # The tile loop: from the backward branch's target to the branch; the rest runs once.
    bra = next(k for k, t in enumerate(code) if re.search(r"BRA 0x([0-9a-f]+)$", t)
               and int(re.search(r"0x([0-9a-f]+)$", t).group(1), 16) < 16 * k)
    top = int(re.search(r"0x([0-9a-f]+)$", code[bra]).group(1), 16) // 16
    end = next(k for k, t in enumerate(code) if t == "EXIT") + 1
    trips = rows // 32
    want = end + (trips - 1) * (bra - top + 1)
    size = 4 * rows * rows
    A, B, C = allocate([size] * 3)
    same("host copies", copies, [(A, size), (B, size)])
    header, blocks = kernels[0]
    g = rows // 32
    same("grid", header["grid dim"], f"({g},{g},1)")
    same("blocks", len(blocks), g * g)
    touched = set()
    for tb, warps in blocks.items():
        same(f"block {tb} warps", len(warps), 32)
        for w, insts in warps.items():
            same(f"block {tb} warp {w} instructions", len(insts), want)
            for i in global_mem(insts, "LDG") + global_mem(insts, "STG"):
                same(f"block {tb} warp {w} lanes at {i[0]:#x}", i[1], 0xFFFFFFFF)
                touched |= lines_of(i[3])
    same("lines touched", touched, lines_of(range(A, A + size, 4)) | lines_of(range(B, B + size, 4))
         | lines_of(range(C, C + size, 4)))


def check_transpose(copies, kernels, args):
    dim = int(args.get("dim", 32))
    variant = args.get("variant", "naive")
    reps = int(args.get("reps", 0))
    name = "_Z14transposeNaivePfS_ii" if variant == "naive" else "_Z18transposeCoalescedPfS_ii"
    code = listing("transpose", name)
    # Straight-line code (one iteration: TILE_DIM == BLOCK_ROWS) but for the asserts on the
    # block's shape (`@!P0 BRA` past the assert's call, taken by every lane: the block is 16 x
    # 16) and the barrier (`BRA.CONV` to the BAR.SYNC: the warp is converged), up to the EXIT.
    path, k = [], 0
    while True:
        path.append(16 * k)
        if code[k] == "EXIT":
            break
        m = re.match(r"(@!P0 BRA|BRA\.CONV) 0x([0-9a-f]+)$", code[k])
        k = int(m.group(2), 16) // 16 if m else k + 1
    size = 4 * dim * dim
    src, dst = allocate([size] * 2)
    same("host copies", copies, [(src, size)])
    same("kernels", len(kernels), 1 + reps)
    for header, blocks in kernels:
        g = dim // 16
        same("grid", header["grid dim"], f"({g},{g},1)")
        same("blocks", len(blocks), g * g)
        loads, stores = set(), set()
        for (bx, by, _), warps in blocks.items():
            same(f"block {bx},{by} warps", len(warps), 8)
            for w, insts in warps.items():
                same(f"block {bx},{by} warp {w} instructions", [i[0] for i in insts], path)
                for i in global_mem(insts, "LDG"):
                    loads |= lines_of(i[3])
                for i in global_mem(insts, "STG"):
                    stores |= lines_of(i[3])
                # Each warp: two rows of 16 threads (ty = 2w, 2w + 1), every lane active.
                for i in global_mem(insts, "LDG") + global_mem(insts, "STG"):
                    same(f"block {bx},{by} warp {w} lanes", i[1], 0xFFFFFFFF)
        same("lines read", loads, lines_of(range(src, src + size, 4)))
        same("lines written", stores, lines_of(range(dst, dst + size, 4)))


def f32_only(check):
    """`check`, refusing (exit 2) an element type other than f32, which it does not derive."""
    def checked(copies, kernels, args):
        if args.get("dtype", "f32") != "f32":
            print(f"check-workload: the check derives dtype=f32 only", file=sys.stderr)
            sys.exit(2)
        check(copies, kernels, args)
    return checked


CHECKS = {"vectoradd": f32_only(check_vectoradd), "matrixmul": f32_only(check_matrixmul),
          "transpose": check_transpose}
