"""pathfinder: Rodinia 3.1 cuda/pathfinder/pathfinder.cu, kernel `dynproc_kernel` (BLOCK_SIZE
256, HALO 1).

Re-derived from the CUDA source. Host (run, calc_path): cudaMalloc gpuResult[0], gpuResult[1]
(cols ints each), copy row 0 of the wall into gpuResult[0], cudaMalloc gpuWall (rows - 1 rows),
copy rows 1.. into it; border = pyramid, small = 256 - 2 pyramid, grid ceil(cols / small)
blocks of 256; for t = 0, pyramid, ... < rows - 1: swap src and dst (src starts at 1, dst 0)
and launch with iteration = min(pyramid, rows - t - 1), startStep = t.

Per thread tx of block bx (the kernel's small block uses the launch's `iteration`, its border
the host's pyramid): xidx = (256 - 2 it) bx - border + tx; validXmin/max, W, E clamped; isValid
= tx in [validXmin, validXmax]; `if (0 <= xidx < cols) prev[tx] = gpuSrc[xidx]`; barrier; `for
i < iteration`: computed = tx in [i + 1, 254 - i] and isValid; a computed thread reads prev[W],
prev[tx], prev[E] and gpuWall[cols (startStep + i) + xidx] and writes result[tx]; barrier;
break at the last step, else the computed threads copy result[tx] into prev[tx]; barrier. The
threads computed at the last step store gpuResults[xidx]. MIN is a min instruction (IMNMX): no
data value steers control, so there is no data-dependent part.

The listing's shape (golden/sass/pathfinder.sass), by pattern: the in-range load skipped by the
first forward branch (to its BSYNC); the loop's skip branch (never taken: iteration >= 1); the
loop body from the backward branch's target to it, its `@P1` lines being the `computed`
condition (the compute, then after the break branch the copy-back); after the loop the
`@!P0 EXIT` of the threads not computed, then the store. Every instruction's mask is checked (a
predicated one's is the lanes whose guard holds, as Accel-Sim writes it); global and shared
addresses per warp as multisets of lane tuples; per array the lines loads and stores touch.
"""
import re

from .common import allocate, by_class, listing, same, same_multiset

BS = 256
FULL = 0xFFFFFFFF
NAME = "_Z14dynproc_kerneliPiS_S_iiii"


def target(t):
    m = re.search(r"\bBRA 0x([0-9a-f]+)$", t)
    return int(m.group(1), 16) // 16 if m else None


def shape(code):
    last = code.index("EXIT")
    pbr = [(k, target(t)) for k, t in enumerate(code[:last]) if t.startswith("@") and target(t)]
    back = [(k, tg) for k, tg in pbr if tg < k]
    assert len(back) == 1, back
    b, head = back[0]
    fwd = [(k, tg) for k, tg in pbr if tg > k]
    # the in-range load's skip, the loop's skip, the break
    (load_skip, join), (loop_skip, after), (brk, after2) = fwd
    assert after == after2 == b + 1 and load_skip < join < loop_skip < head < brk < b
    exit0 = next(k for k in range(b, last) if re.match(r"@!?P\d EXIT$", code[k]))
    return dict(last=last, b=b, head=head, load_skip=load_skip, join=join,
                loop_skip=loop_skip, brk=brk, exit0=exit0)


def check_pathfinder(copies, kernels, args):
    cols = int(args.get("cols", 100000))
    rows = int(args.get("rows", 100))
    pyramid = int(args.get("pyramid", 20))
    code = listing("pathfinder", NAME)
    s = shape(code)
    res0, res1, wall = allocate([4 * cols, 4 * cols, 4 * (rows * cols - cols)])
    same("host copies", copies, [(res0, 4 * cols), (wall, 4 * (rows * cols - cols))])
    border = pyramid
    grid = -(-cols // (BS - 2 * pyramid))
    launches, src, dst = [], 1, 0
    for t in range(0, rows - 1, pyramid):
        src, dst = dst, src
        launches.append((min(pyramid, rows - t - 1), t, (res0, res1)[src], (res0, res1)[dst]))
    same("kernels", len(kernels), len(launches))
    size = {res0: 4 * cols, res1: 4 * cols, wall: 4 * (rows * cols - cols)}
    names = {res0: "gpuResult[0]", res1: "gpuResult[1]", wall: "gpuWall"}
    prev = lambda x: 4 * x                    # prev[256] at 0, result[256] at 0x400 (the
    result = lambda x: 0x400 + 4 * x          # listing's [R15.X4+0x400])
    for n, ((header, blocks), (it, start, gsrc, gdst)) in enumerate(zip(kernels, launches)):
        label = f"launch {n + 1} (iteration {it}, startStep {start})"
        same(f"{label} kernel name", header["kernel name"], NAME)
        same(f"{label} grid", header["grid dim"], f"({grid},1,1)")
        same(f"{label} block", header["block dim"], f"({BS},1,1)")
        same(f"{label} shared memory", header["shmem"], "2048")
        same(f"{label} blocks", sorted(blocks), [(x, 0, 0) for x in range(grid)])
        touched, want_lines = {}, {}
        sb = BS - 2 * it
        for (bx, _, _), warps in sorted(blocks.items()):
            same(f"{label} block {bx} warps", sorted(warps), list(range(BS // 32)))
            blk_x = sb * bx - border
            vmin = -blk_x if blk_x < 0 else 0
            vmax = BS - 1 - (blk_x + BS - 1 - cols + 1) if blk_x + BS - 1 > cols - 1 else BS - 1
            for w, insts in sorted(warps.items()):
                where = f"{label} block {bx} warp {w}"
                txs = [32 * w + lane for lane in range(32)]
                mask = lambda f: sum(1 << k for k, tx in enumerate(txs) if f(tx))
                inside = lambda tx: 0 <= blk_x + tx <= cols - 1

                def comp(i):
                    return lambda tx: i + 1 <= tx <= BS - i - 2 and vmin <= tx <= vmax
                run = lambda a, b, m=FULL: [(k, m) for k in range(a, b)]
                in_m = mask(inside)
                seq = run(0, s["load_skip"]) + [(s["load_skip"], FULL & ~in_m)]
                mem = {"LDG": [], "STG": [], "LDS": [], "STS": []}
                ins = [tx for tx in txs if inside(tx)]
                if in_m:
                    seq += run(s["load_skip"] + 1, s["join"], in_m)
                    mem["LDG"].append(tuple(gsrc + 4 * (blk_x + tx) for tx in ins))
                    mem["STS"].append(tuple(prev(tx) for tx in ins))
                seq += run(s["join"], s["loop_skip"]) + [(s["loop_skip"], 0)]  # iteration >= 1
                seq += run(s["loop_skip"] + 1, s["head"])
                for i in range(it):
                    cm = mask(comp(i))
                    ct = [tx for tx in txs if comp(i)(tx)]
                    # `@P1` lines: `computed` (the compute, then the copy-back)
                    guard = lambda k: cm if code[k].startswith("@P1 ") else FULL
                    seq += [(k, guard(k)) for k in range(s["head"], s["brk"])]
                    if ct:
                        mem["LDS"] += [tuple(prev(max(tx - 1, vmin)) for tx in ct),
                                       tuple(prev(tx) for tx in ct),
                                       tuple(prev(min(tx + 1, vmax)) for tx in ct)]
                        mem["LDG"].append(tuple(wall + 4 * (cols * (start + i) + blk_x + tx)
                                                for tx in ct))
                        mem["STS"].append(tuple(result(tx) for tx in ct))
                        for tx in ct:
                            want_lines.setdefault(("gpuWall", "LDG"), set()).add(
                                (wall + 4 * (cols * (start + i) + blk_x + tx)) // 128)
                    if i == it - 1:
                        seq.append((s["brk"], FULL))              # break
                        break
                    seq.append((s["brk"], 0))
                    seq += [(k, guard(k)) for k in range(s["brk"] + 1, s["b"])]
                    seq.append((s["b"], FULL))                    # i + 1 < iteration: back
                    if ct:
                        mem["LDS"].append(tuple(result(tx) for tx in ct))
                        mem["STS"].append(tuple(prev(tx) for tx in ct))
                cm = mask(comp(it - 1))
                ct = [tx for tx in txs if comp(it - 1)(tx)]
                seq += run(s["b"] + 1, s["exit0"]) + [(s["exit0"], FULL & ~cm)]
                if cm:
                    seq += run(s["exit0"] + 1, s["last"] + 1, cm)
                    mem["LDS"].append(tuple(result(tx) for tx in ct))
                    mem["STG"].append(tuple(gdst + 4 * (blk_x + tx) for tx in ct))
                same(f"{where} instructions", len(insts), len(seq))
                same(f"{where} PCs and masks", [(x[0] // 16, x[1]) for x in insts], seq)
                same(f"{where} barriers", by_class(insts).get("bar", 0), 2 * it)
                for op in mem:
                    same_multiset(f"{where} {op} addresses",
                                  [tuple(x[3]) for x in insts
                                   if x[2].split(".")[0] == op and x[3]], mem[op])
                for x in insts:
                    op = x[2].split(".")[0]
                    if op in ("LDG", "STG"):
                        for a in x[3]:
                            arr = next((b for b in size if b <= a < b + size[b]), None)
                            touched.setdefault((names.get(arr, "no array"), op),
                                               set()).add(a // 128)
                for tx in txs:
                    if inside(tx):
                        want_lines.setdefault((names[gsrc], "LDG"), set()).add(
                            (gsrc + 4 * (blk_x + tx)) // 128)
                    if comp(it - 1)(tx):
                        want_lines.setdefault((names[gdst], "STG"), set()).add(
                            (gdst + 4 * (blk_x + tx)) // 128)
        for key in sorted(set(want_lines) | set(touched)):
            same(f"{label} lines {'loaded' if key[1] == 'LDG' else 'stored'} of {key[0]}",
                 touched.get(key, set()), want_lines.get(key, set()))


CHECKS = {"pathfinder": check_pathfinder}
