"""simple_matrixmul: microgpusim test-apps/simple_matrixmul/matrixmul.cu, kernel `mult_gpu<T>`.

Re-derived from the CUDA source: one thread per element of C (m x p), blocks of 32 x 32,
grid (ceil(p / 32), ceil(m / 32)); i = blockIdx.y * 32 + threadIdx.y, j = blockIdx.x * 32 +
threadIdx.x; a thread with i >= m or j >= p returns; the others run `for k < n: acc +=
A[i * n + k] * B[k * p + j]` and store C[i * p + j]. The host allocates A (m x n), B (n x p),
C (m x p) in that order and copies A then B (C is not copied).

Instruction counts come from the listing's static shape (golden/sass/simple_matrixmul.sass),
located by pattern: the early `@P0 EXIT` (i >= m || j >= p), the `n == 0` skip, and the k loop
that the compiler unrolled by 4 (a guard skipping it when n < 4, a 4-step body from its backward
branch's target to the branch, run n // 4 times) followed by a remainder loop (a guard skipping
it when n % 4 == 0, a 1-step body run n % 4 times). k is uniform, so every live lane of a warp
follows the same path; the early-EXIT lanes drop out at the EXIT.
"""
import re

from .common import allocate, by_class, global_mem, lines_of, listing, same, same_multiset


def branches(code):
    """[(index, target index, text)] of the listing's branches with a target."""
    out = []
    for k, t in enumerate(code):
        m = re.search(r"\bBRA 0x([0-9a-f]+)$", t)
        if m:
            out.append((k, int(m.group(1), 16) // 16, t))
    return out


def shape(code):
    """The listing's blocks, as indices, found by pattern."""
    early = next(k for k, t in enumerate(code) if re.match(r"@P\d EXIT$", t))
    last = next(k for k, t in enumerate(code) if t == "EXIT")
    br = branches(code)
    fwd = [(k, tg) for k, tg, t in br if tg > k and t.startswith("@")]
    back = [(k, tg) for k, tg, t in br if tg < k and t.startswith("@")]
    assert len(fwd) == 3 and len(back) == 2, (fwd, back)
    (skip, tail), (guard4, rem_guard), (guard_rem, tail2) = fwd
    (b1, t1), (b2, t2) = back
    # The n < 4 guard jumps to the remainder guard, right after the unrolled loop's branch.
    assert rem_guard == b1 + 1 == guard_rem and tail == tail2 and skip < guard4 < t1 < b1 < t2 < b2
    return dict(early=early, skip=skip, tail=tail, last=last, guard4=guard4, t1=t1, b1=b1,
                guard_rem=guard_rem, t2=t2, b2=b2)


def path(s, n, live):
    """The (listing index, trace mask) sequence of a warp whose lanes inside C are `live` (a
    mask), for inner dimension n: the basic blocks walked by the CUDA loop's trip counts. A
    predicated instruction's mask is the active lanes whose guard holds (Accel-Sim's format):
    the early EXIT's is the lanes outside C, a branch's the lanes that take it."""
    full = 0xFFFFFFFF
    seq = [(k, full) for k in range(s["early"])] + [(s["early"], full & ~live)]
    if not live:
        return seq
    run = lambda a, b: [(k, live) for k in range(a, b)]     # straight code, indices a..b-1
    seq += run(s["early"] + 1, s["skip"]) + [(s["skip"], live if n == 0 else 0)]
    if n:
        seq += run(s["skip"] + 1, s["guard4"]) + [(s["guard4"], live if n < 4 else 0)]
        if n >= 4:
            seq += run(s["guard4"] + 1, s["t1"])          # the unrolled loop's set-up
            for trip in range(n // 4):                     # body: target .. backward branch
                seq += run(s["t1"], s["b1"]) + [(s["b1"], live if trip < n // 4 - 1 else 0)]
        seq += [(s["guard_rem"], live if n % 4 == 0 else 0)]
        if n % 4:
            seq += run(s["guard_rem"] + 1, s["t2"])       # the remainder loop's set-up
            for trip in range(n % 4):
                seq += run(s["t2"], s["b2"]) + [(s["b2"], live if trip < n % 4 - 1 else 0)]
    return seq + run(s["tail"], s["last"] + 1)           # the store and EXIT


def check_simple_matrixmul(copies, kernels, args):
    m, n, p = (int(args.get(k, 32)) for k in ("m", "n", "p"))
    f64 = args.get("dtype", "f32") == "f64"
    es = 8 if f64 else 4
    name = "_Z8mult_gpuIdEvPKT_S2_PS0_mmm" if f64 else "_Z8mult_gpuIfEvPKT_S2_PS0_mmm"
    code = listing("simple_matrixmul", name)
    s = shape(code)
    A, B, C = allocate([es * m * n, es * n * p, es * m * p])
    same("host copies", copies, [(A, es * m * n), (B, es * n * p)])
    same("kernels", len(kernels), 1)
    header, blocks = kernels[0]
    same("kernel name", header["kernel name"], name)
    gx, gy = -(-p // 32), -(-m // 32)
    same("grid", header["grid dim"], f"({gx},{gy},1)")
    same("block", header["block dim"], "(32,32,1)")
    same("shared memory", header["shmem"], "0")
    same("blocks", sorted(blocks), sorted((x, y, 0) for x in range(gx) for y in range(gy)))
    got_lines = {"A": set(), "B": set(), "C": set()}
    for (bx, by, _), warps in sorted(blocks.items()):
        same(f"block {bx},{by} warps", sorted(warps), list(range(32)))
        for w, insts in sorted(warps.items()):
            where = f"block {bx},{by} warp {w}"
            i = by * 32 + w                  # threadIdx.y == warp, threadIdx.x == lane
            js = [bx * 32 + lane for lane in range(32)]
            live = [lane for lane in range(32) if i < m and js[lane] < p]
            mask = sum(1 << lane for lane in live)
            want = path(s, n, mask)
            same(f"{where} instructions", len(insts), len(want))
            # Each instruction's PC and mask: the lanes at each branch.
            same(f"{where} PCs and masks", [(x[0] // 16, x[1]) for x in insts], want)
            same(f"{where} by class", {c: v for c, v in by_class(insts).items()
                                        if c in ("ldg", "stg")},
                 {"ldg": 2 * n, "stg": 1} if live else {})
            loads, stores = global_mem(insts, "LDG"), global_mem(insts, "STG")
            # Per warp the loads' lane addresses, as a multiset (their order is the compiler's).
            want_loads = []
            for k in range(n if live else 0):
                want_loads.append(tuple(A + es * (i * n + k) for _ in live))
                want_loads.append(tuple(B + es * (k * p + js[lane]) for lane in live))
            same_multiset(f"{where} load addresses", [tuple(x[3]) for x in loads], want_loads)
            same_multiset(f"{where} store addresses", [tuple(x[3]) for x in stores],
                          [tuple(C + es * (i * p + js[lane]) for lane in live)] if live else [])
            for x in loads + stores:
                for a in x[3]:
                    arr = "A" if A <= a < A + es * m * n else "B" if B <= a < B + es * n * p else \
                        "C" if C <= a < C + es * m * p else "none"
                    got_lines.setdefault(arr, set()).add(a // 128)
    # Per array, the lines of every thread's index expressions.
    want_lines = {
        "A": lines_of(A + es * (i * n + k) for i in range(m) for k in range(n)),
        "B": lines_of(B + es * (k * p + j) for k in range(n) for j in range(p)),
        "C": lines_of(C + es * (i * p + j) for i in range(m) for j in range(p)),
    }
    for arr in got_lines:
        same(f"lines of {arr}", got_lines[arr], want_lines.get(arr, set()))


CHECKS = {"simple_matrixmul": check_simple_matrixmul}
