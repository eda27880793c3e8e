#!/usr/bin/env python3
"""Check a workload's trace against its kernel's definition, independently of the emulator.

    scripts/check-workload.py TRACE_DIR WORKLOAD[:ARGS]

TRACE_DIR is what `warpsmith trace --workload WORKLOAD[:ARGS] --out TRACE_DIR` wrote. From the
CUDA source's semantics (re-derived here, by hand, per kernel) and the static shape of its SASS
listing (golden/sass/<app>.sass: where the early EXIT is, how long the loop body is), this
computes what the stream must be and compares the trace with it:
  * the launch: grid and block dimensions, and the blocks in the trace;
  * per warp: its instruction count, and the active lanes of each global memory instruction;
  * per array: the set of 128-byte lines its loads and stores touch;
  * the host's copies (kernelslist.g).
The device addresses are those of the allocator rule (decision WL-4), re-implemented here.
Exit 0 if all agree; 1 naming the first difference; 2 on bad usage. Workloads it knows:
vectoradd, matrixmul, transpose (each dtype f32).
"""
import os
import re
import sys

HEAP_BASE = 0x7F00_0000_0000
SMALL_ALIGN = 512
LARGE = 2 << 20
LINE = 128
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def allocate(sizes):
    """Device addresses of allocations of `sizes` bytes, in order (decision WL-4)."""
    out, end = [], HEAP_BASE
    for s in sizes:
        align = LARGE if s >= LARGE else SMALL_ALIGN
        base = -(-end // align) * align
        out.append(base)
        end = base + s
    return out


def listing(app, kernel):
    """The instructions (text, in PC order) of `kernel` in golden/sass/<app>.sass."""
    insts, inside = [], False
    with open(os.path.join(ROOT, "golden", "sass", f"{app}.sass")) as f:
        for line in f:
            line = line.strip()
            if line.startswith(".kernel "):
                inside = line.split()[1] == kernel
            elif inside and re.match(r"[0-9a-f]{4,} ", line):
                insts.append(line.split(" ", 1)[1])
    if not insts:
        sys.exit(f"check-workload: no kernel {kernel} in {app}.sass")
    return insts


def read_trace(folder):
    """(copies, kernels): each kernel its header dict and blocks {id: [warp insts]}, an
    instruction (pc, mask, opcode, addresses)."""
    copies, kernels = [], []
    with open(os.path.join(folder, "kernelslist.g")) as f:
        for line in f:
            line = line.strip()
            if line.startswith("MemcpyHtoD,"):
                _, a, n = line.split(",")
                copies.append((int(a, 16), int(n)))
            elif line:
                kernels.append(read_kernel(os.path.join(folder, line)))
    return copies, kernels


def read_kernel(path):
    header, blocks, tb, warp = {}, {}, None, None
    with open(path) as f:
        for line in f:
            line = line.strip()
            m = re.match(r"-(.+?) = (.*)", line)
            if m:
                header[m.group(1)] = m.group(2)
            elif line.startswith("thread block = "):
                tb = tuple(int(v) for v in line.split("= ")[1].split(","))
                blocks[tb] = {}
            elif line.startswith("warp = "):
                warp = int(line.split("= ")[1])
                blocks[tb][warp] = []
            elif re.match(r"[0-9a-f]{4} [0-9a-f]{8} ", line):
                blocks[tb][warp].append(parse_inst(line))
    return header, blocks


def parse_inst(line):
    t = line.split()
    pc, mask, k = int(t[0], 16), int(t[1], 16), 2
    k += 1 + int(t[k])
    opcode = t[k]
    k += 1
    k += 1 + int(t[k])
    width, addrs = int(t[k]), []
    k += 1
    if width:
        mode, lanes = t[k], bin(mask).count("1")
        if mode == "1":
            base, stride = int(t[k + 1], 16), int(t[k + 2])
            addrs = [base + i * stride for i in range(lanes)]
        else:
            addrs = [int(a, 16) for a in t[k + 1:k + 1 + lanes]]
    return pc, mask, opcode, addrs


class Mismatch(Exception):
    pass


def same(what, got, want):
    if got != want:
        raise Mismatch(f"{what}: the trace has {short(got)}, the kernel's definition gives {short(want)}")


def short(v):
    s = repr(v)
    return s if len(s) < 200 else s[:200] + "..."


def lines_of(addrs):
    return {a // LINE for a in addrs}


def global_mem(insts, opcode_prefix):
    return [i for i in insts if i[2].startswith(opcode_prefix)]


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
                # Straight-line code (one iteration: TILE_DIM == BLOCK_ROWS) but for the
                # asserts' branches, taken by no lane, and the barrier's subroutine.
                same(f"block {bx},{by} warp {w} exits", insts[-1][2], "EXIT")
                for i in global_mem(insts, "LDG"):
                    loads |= lines_of(i[3])
                for i in global_mem(insts, "STG"):
                    stores |= lines_of(i[3])
                # Each warp: two rows of 16 threads (ty = 2w, 2w + 1), every lane active.
                for i in global_mem(insts, "LDG") + global_mem(insts, "STG"):
                    same(f"block {bx},{by} warp {w} lanes", i[1], 0xFFFFFFFF)
        same("lines read", loads, lines_of(range(src, src + size, 4)))
        same("lines written", stores, lines_of(range(dst, dst + size, 4)))
    _ = code


CHECKS = {"vectoradd": check_vectoradd, "matrixmul": check_matrixmul,
          "transpose": check_transpose}


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    folder, spec = sys.argv[1:3]
    name, _, text = spec.partition(":")
    args = dict(p.split("=", 1) for p in text.split(",") if p)
    if name not in CHECKS or args.get("dtype", "f32") != "f32":
        sys.exit(f"check-workload: no check for {spec} (known: {', '.join(CHECKS)}, f32)")
    copies, kernels = read_trace(folder)
    try:
        CHECKS[name](copies, kernels, args)
    except Mismatch as e:
        print(f"check-workload: {spec}: {e}", file=sys.stderr)
        sys.exit(1)
    print(f"check-workload: {spec}: the trace agrees with the kernel's definition")


if __name__ == "__main__":
    main()
