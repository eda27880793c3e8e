"""hotspot: Rodinia 3.1 cuda/hotspot/hotspot.cu, kernel `calculate_temp` (BLOCK_SIZE 16).

Re-derived from the CUDA source. Host (run, compute_tran_temp): cudaMalloc MatrixTemp[0],
MatrixTemp[1], copy the temperatures into MatrixTemp[0], cudaMalloc MatrixPower, copy the
power; border = pyramid, small block = 16 - 2 * pyramid, grid ceil(size / small) squared of
16 x 16 blocks; for t = 0, pyramid, ... < iterations: swap src and dst (src starts at 1, dst
at 0) and launch with iteration = min(pyramid, iterations - t).

Per thread (tx, ty) of block (bx, by), as the kernel writes it (its small_block uses the
launch's `iteration`, its border the host's pyramid): yidx = (16 - 2 it) by - border + ty,
likewise xidx; the thread loads temp_src and power at yidx * cols + xidx if inside the grid;
validY/Xmin/max and the N, S, W, E neighbours clamped to them; then `for i < iteration`:
computed = tx, ty in [i + 1, 14 - i] and in the valid range; computed threads write temp_t;
barrier; break at the last step, else the computed threads copy temp_t back; barrier. Threads
computed at the last step store temp_dst[index]. No data value steers control.

The listing's shape (golden/sass/hotspot.sass), found by pattern: straight code to the first
barrier with the `if (IN_RANGE(...))` loads as `@P0` lines; the loop's skip branch (never taken:
iteration >= 1); a set-up whose three forward branches step over the slow paths (the CALLs) of
step / Cap and of 1 / Rx, 1 / Ry, 1 / Rz: those are for operands outside the normal float range,
and the parameters (computed here as the host does) are normal, so every warp branches over
them (asserted); the loop body from the backward branch's target to it, holding the `computed`
skip branch (to the BSYNC), the break branch and the `@P2` copy-back lines; after the loop the
`@!P0 EXIT` of the threads not computed, then the store. Masks checked: every instruction but
predicated arithmetic (whose guard is the compiler's); a predicated instruction's mask is the
lanes whose guard holds (Accel-Sim). Addresses (global and shared) per warp as multisets.
"""
import re
import struct

from .common import allocate, by_class, listing, same, same_multiset

BS = 16
FULL = 0xFFFFFFFF
NAME = "_Z14calculate_tempiPfS_S_iiiiffffff"


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def target(t):
    m = re.search(r"\bBRA (?:!?P\d, )?0x([0-9a-f]+)$", t)
    return int(m.group(1), 16) // 16 if m else None


def shape(code):
    """The listing's landmarks, by pattern."""
    last = code.index("EXIT")
    bar0 = next(k for k, t in enumerate(code) if t.startswith("BAR.SYNC"))
    back = [k for k in range(last) if code[k].startswith("@") and target(code[k]) is not None
            and target(code[k]) < k]
    assert len(back) == 1, back
    b = back[0]
    head = target(code[b])
    skip_loop = next(k for k in range(bar0, head) if code[k].startswith("@")
                     and target(code[k]))
    fwd = [k for k in range(head, b) if code[k].startswith("@") and target(code[k])]
    assert len(fwd) == 2, fwd
    skip_comp, brk = fwd                       # `if (computed-condition)`, `if (i == it - 1)`
    exit0 = next(k for k in range(b, last) if re.match(r"@!?P\d EXIT$", code[k]))
    assert target(code[skip_loop]) == target(code[brk]) == b + 1
    return dict(last=last, bar0=bar0, b=b, head=head, skip_loop=skip_loop,
                skip_comp=skip_comp, join=target(code[skip_comp]), brk=brk, exit0=exit0)


def setup_path(code, a, head):
    """The set-up from a to the loop head, branching over every slow path (a forward branch
    whose skipped lines hold a CALL)."""
    out, k = [], a
    while k < head:
        out.append(k)
        tg = target(code[k])
        if code[k].startswith("@") and tg and tg > k and any("CALL" in t for t in code[k + 1:tg]):
            k = tg
        else:
            assert tg is None, f"unexpected branch {code[k]}"
            k += 1
    return out


def host_params(size):
    """Cap, Rx, Ry, Rz, step as compute_tran_temp computes them (float variables)."""
    t_chip, chip_h, chip_w = f32(0.0005), f32(0.016), f32(0.016)
    gh, gw = f32(chip_h / size), f32(chip_w / size)
    cap = f32(0.5 * 1.75e6 * t_chip * gw * gh)
    rx = f32(gw / (2.0 * 100 * t_chip * gh))
    ry = f32(gh / (2.0 * 100 * t_chip * gw))
    rz = f32(t_chip / (100 * gh * gw))
    step = f32(0.001 / f32(3.0e6 / (0.5 * t_chip * 1.75e6)))
    return cap, rx, ry, rz, step


def check_hotspot(copies, kernels, args):
    size = int(args.get("size", 512))
    pyramid = int(args.get("pyramid", 2))
    total = int(args.get("iterations", 2))
    rows = cols = size
    code = listing("hotspot", NAME)
    s = shape(code)
    setup = setup_path(code, s["skip_loop"] + 1, s["head"])
    # The slow paths are for denormal, huge or special operands; the host's are ordinary.
    cap, rx, ry, rz, step = host_params(size)
    for v in (cap, rx, ry, rz, step, step / cap):
        assert 2.0 ** -100 < abs(v) < 2.0 ** 100, "a parameter outside the modelled range"
    nbytes = 4 * size * size
    temp0, temp1, power = allocate([nbytes] * 3)
    same("host copies", copies, [(temp0, nbytes), (power, nbytes)])
    border = pyramid
    small = BS - 2 * pyramid
    grid = -(-size // small)
    launches, src, dst, t = [], 1, 0, 0
    while t < total:
        src, dst = dst, src
        launches.append((min(pyramid, total - t), (temp0, temp1)[src], (temp0, temp1)[dst]))
        t += pyramid
    same("kernels", len(kernels), len(launches))
    arrays = {temp0: "MatrixTemp[0]", temp1: "MatrixTemp[1]", power: "MatrixPower"}
    for n, ((header, blocks), (it, tsrc, tdst)) in enumerate(zip(kernels, launches)):
        label = f"launch {n + 1} (iteration {it})"
        same(f"{label} kernel name", header["kernel name"], NAME)
        same(f"{label} grid", header["grid dim"], f"({grid},{grid},1)")
        same(f"{label} block", header["block dim"], "(16,16,1)")
        same(f"{label} shared memory", header["shmem"], "3072")
        same(f"{label} blocks", sorted(blocks),
             sorted((x, y, 0) for x in range(grid) for y in range(grid)))
        touched, want_lines = {}, {}
        sb = BS - it * 2                  # the kernel's small_block_rows / cols
        for (bx, by, _), warps in sorted(blocks.items()):
            same(f"{label} block {bx},{by} warps", sorted(warps), list(range(8)))
            blk_y, blk_x = sb * by - border, sb * bx - border
            vymin = -blk_y if blk_y < 0 else 0
            vymax = BS - 1 - (blk_y + BS - 1 - rows + 1) if blk_y + BS - 1 > rows - 1 else BS - 1
            vxmin = -blk_x if blk_x < 0 else 0
            vxmax = BS - 1 - (blk_x + BS - 1 - cols + 1) if blk_x + BS - 1 > cols - 1 else BS - 1
            for w, insts in sorted(warps.items()):
                where = f"{label} block {bx},{by} warp {w}"
                th = [(lane % 16, 2 * w + lane // 16) for lane in range(32)]
                mask = lambda f: sum(1 << k for k, (tx, ty) in enumerate(th) if f(tx, ty))
                inside = lambda tx, ty: (0 <= blk_y + ty <= rows - 1
                                         and 0 <= blk_x + tx <= cols - 1)
                index = lambda tx, ty: cols * (blk_y + ty) + blk_x + tx

                def comp(i):
                    return lambda tx, ty: (i + 1 <= tx <= BS - i - 2 and i + 1 <= ty <= BS - i - 2
                                           and vxmin <= tx <= vxmax and vymin <= ty <= vymax)
                load_m = mask(inside)
                seq = []
                for k in range(s["skip_loop"]):
                    pred = code[k].startswith("@")
                    # Before the barrier the `@P0` lines are the IN_RANGE load block.
                    seq.append((k, (load_m if k < s["bar0"] else None) if pred else FULL))
                seq.append((s["skip_loop"], 0))                    # iteration >= 1
                seq += [(k, FULL) for k in setup]
                mem = {"LDG": [], "STG": [], "LDS": [], "STS": []}
                ins_t = [t for t in th if inside(*t)]
                if ins_t:
                    mem["LDG"] += [tuple(tsrc + 4 * index(*t) for t in ins_t),
                                   tuple(power + 4 * index(*t) for t in ins_t)]
                    mem["STS"] += [tuple(4 * (BS * ty + tx) for tx, ty in ins_t),
                                   tuple(0x400 + 4 * (BS * ty + tx) for tx, ty in ins_t)]
                tcur = lambda y, x: 4 * (BS * y + x)             # temp_on_cuda at 0
                pw = lambda y, x: 0x400 + 4 * (BS * y + x)       # power_on_cuda at 0x400
                tt = lambda y, x: 0x800 + 4 * (BS * y + x)       # temp_t at 0x800
                for i in range(it):
                    cm = mask(comp(i))
                    ct = [t for t in th if comp(i)(*t)]
                    seq += [(k, FULL) for k in range(s["head"], s["skip_comp"])]
                    seq.append((s["skip_comp"], FULL & ~cm))
                    if cm:
                        seq += [(k, cm) for k in range(s["skip_comp"] + 1, s["join"])]
                        # Each distinct element the statement reads is loaded once.
                        for f in (lambda x, y: tcur(y, x),
                                  lambda x, y: tcur(max(y - 1, vymin), x),
                                  lambda x, y: tcur(min(y + 1, vymax), x),
                                  lambda x, y: tcur(y, max(x - 1, vxmin)),
                                  lambda x, y: tcur(y, min(x + 1, vxmax)),
                                  lambda x, y: pw(y, x)):
                            mem["LDS"].append(tuple(f(*t) for t in ct))
                        mem["STS"].append(tuple(tt(y, x) for x, y in ct))
                    seq += [(k, FULL) for k in range(s["join"], s["brk"])]
                    last_step = i == it - 1
                    seq.append((s["brk"], FULL if last_step else 0))
                    if last_step:
                        break
                    for k in range(s["brk"] + 1, s["b"]):
                        pred = code[k].startswith("@")
                        # `if (computed)`: the `@P2` copy-back (and its arithmetic).
                        seq.append((k, cm if pred else FULL))
                    seq.append((s["b"], FULL))               # i + 1 < iteration: back
                    if cm:
                        mem["LDS"].append(tuple(tt(y, x) for x, y in ct))
                        mem["STS"].append(tuple(tcur(y, x) for x, y in ct))
                cm = mask(comp(it - 1))
                ct = [t for t in th if comp(it - 1)(*t)]
                seq += [(k, FULL) for k in range(s["b"] + 1, s["exit0"])]
                seq.append((s["exit0"], FULL & ~cm))             # not computed: leave
                if cm:
                    seq += [(k, cm) for k in range(s["exit0"] + 1, s["last"] + 1)]
                    mem["LDS"].append(tuple(tt(y, x) for x, y in ct))
                    mem["STG"].append(tuple(tdst + 4 * index(*t) for t in ct))
                same(f"{where} instructions", len(insts), len(seq))
                same(f"{where} PCs", [x[0] // 16 for x in insts], [k for k, _ in seq])
                for x, (k, m) in zip(insts, seq):
                    if m is not None:
                        same(f"{where} mask at {16 * k:#06x}", x[1], m)
                same(f"{where} barriers", by_class(insts).get("bar", 0), 1 + 2 * it - 1)
                for op in mem:
                    same_multiset(f"{where} {op} addresses",
                                  [tuple(x[3]) for x in insts
                                   if x[2].split(".")[0] == op and x[3]], mem[op])
                for x in insts:
                    op = x[2].split(".")[0]
                    if op in ("LDG", "STG"):
                        for a in x[3]:
                            arr = next((b for b in arrays if b <= a < b + nbytes), None)
                            touched.setdefault((arrays.get(arr, "no array"), op),
                                               set()).add(a // 128)
                for tx, ty in th:
                    if inside(tx, ty):
                        for arr in (tsrc, power):
                            want_lines.setdefault((arrays[arr], "LDG"), set()).add(
                                (arr + 4 * index(tx, ty)) // 128)
                    if comp(it - 1)(tx, ty):
                        want_lines.setdefault((arrays[tdst], "STG"), set()).add(
                            (tdst + 4 * index(tx, ty)) // 128)
        for key in sorted(set(want_lines) | set(touched)):
            same(f"{label} lines {'loaded' if key[1] == 'LDG' else 'stored'} of {key[0]}",
                 touched.get(key, set()), want_lines.get(key, set()))


CHECKS = {"hotspot": check_hotspot}
