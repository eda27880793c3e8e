"""Rodinia 3.1 srad_v1 (srad/srad_v1/main.cu with extract_kernel.cu, prepare_kernel.cu,
reduce_kernel.cu, srad_kernel.cu, srad2_kernel.cu, compress_kernel.cu; NUMBER_THREADS = 512),
re-derived from the CUDA source and the static shape of golden/sass/srad_v1.sass.

The check needs its own input: the 502 x 458 ASCII PGM image the host reads (column-major), passed
with `file=`:

    python3 -m workload_checks.srad_v1 PATH [SEED] [special]   (in scripts/; writes the image)
    warpsmith trace --workload srad_v1:iterations=1,rows=64,cols=40,file=PATH --out DIR
    scripts/check-workload.py DIR srad_v1:iterations=1,rows=64,cols=40,file=PATH

(the small run, on a plain image (`PATH 1`): 64 x 40 = 2560 pixels, five full blocks, so
`reduce`'s first launch takes the all-blocks-full path and its second one block of 5 sums; the
other shape: rows=100,cols=37,iterations=1 on a `special` image (`PATH 2 special`): 3700
pixels, eight blocks, the last holding 116, so `reduce`'s last block runs df = 64 and 52
leftovers through the 16-times unrolled loop and the 4-times block, and `srad`'s divisions
meet x/0, 0/0, NaN operands, an infinite quotient and a subnormal divisor (the scaled path,
overflowing), so that 16 lanes take the slow division paths; also run: rows=29,cols=53,
iterations=2 on the plain image: 1537 pixels, the last block holding one sum (df = 0: nobody
stores it, as the source does), two iterations). The `special` image's NaNs reach the second
iteration's totals, which the workload's own verification then refuses (it compares NaN with
NaN), so it is run for one iteration.

How: a reference run of the program in float32 (Python floats rounded through struct; exp by
the C library, rounded): extract, then per iteration prepare, the host's chain of `reduce`
launches (the source's sums, including its last block's leftovers read at d_sums[i] whatever
d_mul is), the host's q0sqr, `srad` per pixel, `srad2`; then compress. From it, per lane of
`srad`, which of its four float divisions (the `FCHK` guard: an operand not finite, zero or
subnormal divisor, subnormal dividend, or exponents more than 125 apart, the emulator's
documented rule in docs/decisions/workloads.md; the data here are nowhere near that bound) go
to the division subroutine, and which case of it each takes (NaN operand; 0/0 or inf/inf; zero
result; infinite result; the scaled general path), and whether the double reciprocal
1.0/(1.0+d_den) takes its slow path (the listing's test on the high word; zero, infinite or NaN
here) and which case. Every lane's path is then a walk over the listing (straight runs, a
branch taken or not as the lane's case says, CALL into and RET out of the subroutine); a warp
executes the union of its lanes' paths in PC order (the kernels branch forward only, the called
subroutines' instructions sit between their CALL and its return point; lanes that skip a call
wait at the BSYNC that follows it), each instruction with the lanes whose path has it (a
guarded one: the lanes whose guard holds, where the CUDA semantics give it; the integer
division's fix-up steps and the subroutines' guarded arithmetic are left unchecked).
`reduce` is built by hand from its landmarks: the nine unrolled levels (one per BAR.SYNC,
guard (tx+1) % i == 0), the last block's divisibility loop and its remainder loop (unrolled:
remainder of (nf-df) % 4, a 16-times loop while more than 12 remain, an 8-times block if more
than 4 remain, a 4-times block).

Compared exactly: the host copies, the launches (names, grid, block, shared memory, every block
and warp), per warp the PC sequence (so the count, and the count by class), the lanes of every
instruction whose guard is known (all memory instructions), every global load and store's lane
addresses (from the CUDA index expressions), per array the lines loaded and stored, and the
reference run's data-dependent facts (the lanes that take each slow division path).
"""
import math
import random
import re
import struct
import sys

from .common import Mismatch, allocate, lines_of, opcode_class, same
from .warp_paths import Listing

THREADS = 512
ORIG = (502, 458)
NAMES = {"extract": "_Z7extractlPf", "prepare": "_Z7preparelPfS_S_",
         "reduce": "_Z6reduceliiPfS_", "srad": "_Z4sradfiilPiS_S_S_PfS0_S0_S0_fS0_S0_",
         "srad2": "_Z5srad2fiilPiS_S_S_PfS0_S0_S0_S0_S0_", "compress": "_Z8compresslPf"}
# Grey levels above -22261 only: below it, 0.5 + (I/255) log2(e) / 252 in extract's exp goes
# negative and the listing's FFMA.SAT clamps it to 0 (see the report: the emulator does not
# saturate there).
TINY_GREY = -20000
SUBNORMAL_GREY = -11740


# ------------------------------------------------------------------------------- the input

def write_image(path, seed=1, special=False):
    """A 502 x 458 PGM of uniform grey levels (Python's random); `special` adds negative grey
    levels (fscanf("%d") reads them) in the top-left 64 x 37 corner, the part both runs' tiling
    uses: TINY_GREY, whose exp(I/255) ~ 9e-35 is a normal float with a square that underflows
    to 0, and SUBNORMAL_GREY, whose exp ~ 1e-20 has a subnormal square."""
    rnd = random.Random(seed)
    rows, cols = ORIG
    img = [[rnd.randrange(256) for _ in range(cols)] for _ in range(rows)]
    if special:
        z = TINY_GREY
        img[10][10] = z                                  # alone: x/0 (G2), then NaNs
        for r, c in ((19, 20), (21, 20), (20, 19), (20, 21)):
            img[r][c] = z                                # around (20,20): L = -4, den = 0
        for r in range(40, 43):
            for c in range(5, 8):
                img[r][c] = z                            # 3 x 3: the centre's G2 is 0/0
        img[0][15] = z                                   # on the border (iN[0] = 0)
        img[30][3] = SUBNORMAL_GREY                      # a subnormal divisor: the scaled path
        for r in range(50, 54):
            for c in range(30, 34):
                img[r][c] = 77                           # flat: zero derivatives
    with open(path, "w") as f:
        f.write(f"P2\n{cols} {rows}\n255\n")
        for row in img:
            f.write(" ".join(map(str, row)) + "\n")


def read_image(path):
    """read_graphics(..., 502, 458, major=1): skip three lines, then row by row into
    image[c * rows + r]."""
    rows, cols = ORIG
    text = open(path).read().split("\n", 3)[3]
    words = iter(text.split())
    img = [0.0] * (rows * cols)
    for r in range(rows):
        for c in range(cols):
            img[c * rows + r] = float(int(next(words)))
    return img


# ------------------------------------------------------------------------ float32 arithmetic

INF, NAN = float("inf"), float("nan")


def f32(x):
    """x rounded to float32 (nearest even), as a Python float."""
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return math.copysign(INF, x)


def bits(x):
    return struct.unpack("I", struct.pack("f", x))[0]


def div(a, b):
    """IEEE a / b (the quotient of two float32 is rounded once to double, exactly enough to
    round to float32 again)."""
    if b == 0:
        return NAN if a == 0 or a != a else math.copysign(INF, a) * math.copysign(1, b)
    return a / b


def fdiv(a, b):
    return f32(div(a, b))


def fma(a, b, c):
    """Fused a*b + c in float32: the product is exact in double; the sum is rounded to double,
    then to float (a double rounding that can differ from the device in the last bit, which no
    branch here depends on)."""
    return f32(a * b + c)


def exp32(x):
    try:
        return f32(math.exp(x))
    except OverflowError:
        return INF


def subnormal(x):
    return x != 0 and math.isfinite(x) and abs(x) < 2.0 ** -126


def exponent(x):
    return ((bits(x) >> 23) & 0xFF) - 127


def fchk(a, b):
    """Whether the fast float division a / b is out of range (the slow path runs)."""
    if not (math.isfinite(a) and math.isfinite(b)) or b == 0 or subnormal(a) or subnormal(b):
        return True
    ea, eb = exponent(a), exponent(b)
    return (a != 0 and not -125 <= ea - eb <= 125) or not -125 <= eb <= 125


def div_case(a, b):
    """The division subroutine's case for a / b (source: the compiler's __internal_fdiv)."""
    if a != a or b != b:
        return "nan"
    if a == 0 and b == 0:
        return "zero/zero"            # the NaN result
    if math.isinf(a) and math.isinf(b):
        return "inf/inf"              # the NaN result
    normal = lambda v: v != 0 and math.isfinite(v) and not subnormal(v)
    if normal(a) and normal(b):
        return main_case(a, b)
    if a == 0 or math.isinf(b):
        return "zero"
    if math.isinf(a) or b == 0:
        return "inf"
    return "scaled-" + main_case(a, b)  # a subnormal operand, scaled, then the general path


def main_case(a, b):
    """The general path's outcome by the quotient's (unbounded) biased exponent."""
    e = math.frexp(a / b)[1] - 1 + 127
    if 1 <= e <= 254:
        return "normal"
    if e > 254:
        return "overflow"
    return "denormal" if e >= -24 else "underflow"


def recip64_case(x):
    """1.0 / x in double: the listing's fast-path test (the high word plus 0x300402, as a
    float, at least 0x400402 in magnitude) fails for zero, subnormal, huge, infinite or NaN x."""
    if x != x:
        return "nan"
    if x == 0 or math.isinf(x):
        return "infzero"
    hi = struct.unpack("Q", struct.pack("d", x))[0] >> 32
    v = (hi + 0x300402) & 0x7FFFFFFF
    if v >= 0x400402 and v < 0x7F800000 or v > 0x7F800000:
        return None                   # fast (a NaN compare is unordered: GEU holds)
    return "tiny" if abs(x) < 2.0 ** -1000 else "huge"


# --------------------------------------------------------------------- the reference run

class Reference:
    """The program in float32: the image after extract, then per iteration the sums, q0sqr
    and each lane's division cases in srad."""

    def __init__(self, grey, rows, cols, iterations, lam):
        self.rows, self.cols, self.ne = rows, cols, rows * cols
        orows, ocols = ORIG
        # resize (column-major): output[j*rows + i] = input[(j % 458) * 502 + i % 502]
        img = [grey[(j % ocols) * orows + i % orows] for j in range(cols) for i in range(rows)]
        # extract: exp(I / 255); every grey is an integer, FCHK(I, 255) never holds
        assert not any(fchk(v, 255.0) for v in img)
        self.I = [exp32(fdiv(f32(v), 255.0)) for v in img]
        self.iterations, self.srad_cases, self.reduce_plans = [], [], []
        for _ in range(iterations):
            sums = list(self.I)
            sums2 = [f32(v * v) for v in self.I]
            plans = reduce_plan(self.ne)
            for grid, no, mul in plans:
                reduce_run(sums, sums2, grid, no, mul)
            self.reduce_plans.append(plans)
            n = f32(float(self.ne))
            mean = fdiv(sums[0], n)
            mean2 = f32(mean * mean)
            var = f32(fdiv(sums2[0], n) - mean2)
            q0 = fdiv(var, mean2)
            self.srad_cases.append(self.srad(q0, lam))

    def index(self, ei):
        r, c = ei % self.rows, ei // self.rows
        return (max(r - 1, 0) + self.rows * c, min(r + 1, self.rows - 1) + self.rows * c,
                r + self.rows * max(c - 1, 0), r + self.rows * min(c + 1, self.cols - 1))

    def srad(self, q0, lam):
        """srad per pixel (the listing's operation order), then srad2; the division cases."""
        I, cases = self.I, []
        dN, dS, dW, dE, cc = [], [], [], [], []
        for ei in range(self.ne):
            n, s, w, e = self.index(ei)
            jc = I[ei]
            d_n, d_s, d_w, d_e = (f32(I[n] - jc), f32(I[s] - jc), f32(I[w] - jc),
                                  f32(I[e] - jc))
            g2n = fma(d_e, d_e, fma(d_w, d_w, fma(d_n, d_n, f32(d_s * d_s))))
            jc2 = f32(jc * jc)
            g2 = fdiv(g2n, jc2)
            lsum = f32(f32(f32(d_n + d_s) + d_w) + d_e)
            L = fdiv(lsum, jc)
            num = f32(g2 * 0.5 + f32(L * L) * -0.0625)   # DMUL, DFMA in double: exact
            den = f32(L * 0.25 + 1.0)
            den2 = f32(den * den)
            qsqr = fdiv(num, den2)
            top = f32(qsqr - q0)
            bottom = f32(f32(q0 + 1.0) * q0)
            dden = fdiv(top, bottom)
            x = dden + 1.0                                   # DADD in double, exact
            c = f32(div(1.0, x))
            c = c if not (c < 0) and not (c > 1) else (0.0 if c < 0 else 1.0)
            lane = []
            for a, b in ((g2n, jc2), (lsum, jc), (num, den2), (top, bottom)):
                lane.append(div_case(a, b) if fchk(a, b) else None)
            lane.append(recip64_case(x))
            cases.append(lane)
            dN.append(d_n), dS.append(d_s), dW.append(d_w), dE.append(d_e), cc.append(c)
        # srad2: D = fma(dE, cE, fma(cW, dW, fma(dN, cN, dS * cS))); I += 0.25 lambda D
        scale = lam * 0.25
        new = []
        for ei in range(self.ne):
            n, s, w, e = self.index(ei)
            D = fma(dE[ei], cc[e], fma(cc[ei], dW[ei], fma(dN[ei], cc[ei],
                                                           f32(dS[ei] * cc[s]))))
            new.append(f32(scale * D + I[ei]))
        self.I = new
        return cases


def reduce_plan(ne):
    """The host's reduce launches: (grid, no, mul)."""
    out, blocks, no, mul = [], -(-ne // THREADS), ne, 1
    while blocks:
        out.append((blocks, no, mul))
        no = blocks
        if blocks == 1:
            blocks = 0
        else:
            mul *= THREADS
            blocks = -(-blocks // THREADS)
    return out


def divisibility(nf):
    """df: the largest power of two 2..512 not above nf (0 if none)."""
    df = 0
    i = 2
    while i <= THREADS:
        if nf >= i:
            df = i
        i *= 2
    return df


def reduce_run(sums, sums2, grid, no, mul):
    """reduce_kernel.cu in float32, block after block (as the emulation runs them)."""
    nf = THREADS - (grid * THREADS - no)
    for bx in range(grid):
        ps = [sums[(bx * THREADS + t) * mul] if bx * THREADS + t < no else 0.0
              for t in range(THREADS)]
        ps2 = [sums2[(bx * THREADS + t) * mul] if bx * THREADS + t < no else 0.0
               for t in range(THREADS)]
        if nf == THREADS or bx != grid - 1:
            top, last = THREADS, THREADS - 1
        else:
            top = divisibility(nf)
            last = top - 1
        i = 2
        while i <= top:
            for t in range(i - 1, top, i):
                ps[t] = f32(ps[t] + ps[t - i // 2])
                ps2[t] = f32(ps2[t] + ps2[t - i // 2])
            i *= 2
        if last < 0:
            continue
        if not (nf == THREADS or bx != grid - 1):
            for k in range(bx * THREADS + top, bx * THREADS + nf):
                ps[last] = f32(ps[last] + sums[k])
                ps2[last] = f32(ps2[last] + sums2[k])
        sums[bx * mul * THREADS] = ps[last]
        sums2[bx * mul * THREADS] = ps2[last]


# ------------------------------------------------------------------ streams and comparison

def op(text):
    return [w for w in text.split() if not w.startswith("@")][0]


def walk(code, decide, start=0):
    """One lane's path: [(order key, index, guard)], from `start` to its EXIT. decide(k) gives,
    at a guarded instruction in the subroutine called at `call` (or None), whether its guard
    holds for the lane (a branch: taken; an EXIT: the lane leaves), or None where the CUDA
    semantics do not say (integer division fix-ups, the subroutines' guarded arithmetic), or
    (None, taken) for a branch taken or not whose recorded lanes are not checked. A
    subroutine's instruction is keyed after its CALL and before the return point."""
    out, k, call = [], start, None
    while True:
        t = code.text[k]
        g = taken = decide(k, call) if t.startswith("@") else None
        if isinstance(g, tuple):
            g, taken = None, g[1]         # taken, but its recorded lanes are not checked
        out.append(((k, 0) if call is None else (call, 1 + k), k, g))
        o = op(t)
        if o == "EXIT" and (not t.startswith("@") or taken):
            return out
        if o == "BRA" and (not t.startswith("@") or taken):
            k = code.target(k)
        elif o.startswith("CALL"):
            call, k = k, int(re.search(r"0x([0-9a-f]+)$", t).group(1), 16) // 16
        elif o.startswith("RET"):
            k, call = call + 1, None
        else:
            k += 1


def union(code, paths, addr):
    """A warp's stream from its lanes' paths {lane: path}: (index, lanes or None, addresses)."""
    acc = {}
    for lane, path in paths.items():
        for key, k, g in path:
            e = acc.setdefault(key, [k, 0, 0, True])
            e[1] |= 1 << lane
            if g is None:
                e[3] = False
            elif g:
                e[2] |= 1 << lane
    items = []
    for key in sorted(acc):
        k, m, taken, known = acc[key]
        if code.text[k].startswith("@"):
            m = taken if known else None
        items.append((k, m, addr.get(k)))
    return items


class Stream:
    """A hand-built stream: run(lo, hi, lanes, guard) appends indices lo..hi with `lanes`
    active; a guarded instruction gets lanes & guard (guard None: unchecked)."""

    def __init__(self, code):
        self.code, self.items = code, []

    def run(self, lo, hi, lanes, guard=None, addr=None):
        for k in range(lo, hi + 1):
            m = lanes
            if self.code.text[k].startswith("@"):
                g = guard(k) if callable(guard) else guard
                m = None if g is None else lanes & g
            self.items.append((k, m, (addr or {}).get(k)))


def compare(where, code, insts, items, lane_ei):
    """Count, by class, PCs, known lanes and every global access's addresses, exactly."""
    same(f"{where}: instruction count", len(insts), len(items))
    want, got = {}, {}
    for i, (k, _, _) in zip(insts, items):
        c = opcode_class(op(code.text[k]))
        want[c] = want.get(c, 0) + 1
        c = opcode_class(i[2])
        got[c] = got.get(c, 0) + 1
    same(f"{where}: instructions by class", got, want)
    for n, (i, (k, m, a)) in enumerate(zip(insts, items)):
        if i[0] != 16 * k:
            raise Mismatch(f"{where}: instruction {n} is at PC {i[0]:#x}, the kernel's control "
                           f"flow gives {16 * k:#x} ({code.text[k]})")
        if m is not None and i[1] != m:
            raise Mismatch(f"{where}: lanes of {code.text[k]} (PC {16 * k:#x}, #{n}): the trace "
                           f"has {i[1]:08x}, the kernel's definition gives {m:08x}")
        cls = opcode_class(op(code.text[k]))
        if cls in ("ldg", "stg"):
            if a is None:
                raise AssertionError(f"no address rule for {code.text[k]}")
            lanes = [l for l in range(32) if i[1] >> l & 1]
            wa = [a(lane_ei(l)) if callable(a) else a[l] for l in lanes]
            if i[3] != wa:
                bad = next((j for j, (x, y) in enumerate(zip(i[3], wa)) if x != y), 0)
                raise Mismatch(f"{where}: addresses of {code.text[k]} (PC {16 * k:#x}, #{n}), "
                               f"lane #{bad}: the trace has "
                               f"{[hex(x) for x in i[3][bad:bad + 2]]}, the kernel's "
                               f"definition gives {[hex(x) for x in wa[bad:bad + 2]]}")


def check_launch(where, header, blocks, name, grid, shmem):
    same(f"{where} name", header.get("kernel name"), NAMES[name])
    same(f"{where} grid", header["grid dim"], f"({grid},1,1)")
    same(f"{where} block", header["block dim"], f"({THREADS},1,1)")
    same(f"{where} shared memory", header.get("shmem"), str(shmem))
    same(f"{where} blocks", sorted(blocks), [(b, 0, 0) for b in range(grid)])
    for b in range(grid):
        same(f"{where} block {b} warps", sorted(blocks[(b, 0, 0)]), list(range(THREADS // 32)))


# ------------------------------------------------------------------------------ the check

def check_srad_v1(copies, kernels, args):
    if "file" not in args:
        print("check-workload: the srad_v1 check needs its own image: srad_v1:file=PATH (see "
              "scripts/workload_checks/srad_v1.py)", file=sys.stderr)
        sys.exit(2)
    iterations = int(args.get("iterations", 2))
    lam = f32(float(args.get("lambda", 0.5)))
    rows, cols = int(args.get("rows", 502)), int(args.get("cols", 458))
    ne = rows * cols
    ref = Reference(read_image(args["file"]), rows, cols, iterations, lam)

    # main.cu's cudaMalloc order: I, iN, iS, jE, jW, sums, sums2, dN, dS, dW, dE, c; copies:
    # iN, iS, jE, jW as each is allocated, then the image once all are.
    big, ri, cj = 4 * ne, 4 * rows, 4 * cols
    (d_I, d_iN, d_iS, d_jE, d_jW, d_sums, d_sums2, d_dN, d_dS, d_dW, d_dE,
     d_c) = allocate([big, ri, ri, cj, cj] + [big] * 7)
    same("host copies", copies, [(d_iN, ri), (d_iS, ri), (d_jE, cj), (d_jW, cj), (d_I, big)])
    arrays = {"I": (d_I, big), "iN": (d_iN, ri), "iS": (d_iS, ri), "jE": (d_jE, cj),
              "jW": (d_jW, cj), "sums": (d_sums, big), "sums2": (d_sums2, big),
              "dN": (d_dN, big), "dS": (d_dS, big), "dW": (d_dW, big), "dE": (d_dE, big),
              "c": (d_c, big)}
    grid = -(-ne // THREADS)
    plan = [("extract", None)]
    for it in range(iterations):
        plan.append(("prepare", None))
        plan += [("reduce", p) for p in ref.reduce_plans[it]]
        plan += [("srad", it), ("srad2", None)]
    plan.append(("compress", None))
    same("launches", [k[0].get("kernel name") for k in kernels], [NAMES[p[0]] for p in plan])

    codes = {n: Listing("srad_v1", NAMES[n]) for n in NAMES}
    lines = {}

    def touch(kind, insts):
        for i in insts:
            cls = opcode_class(i[2])
            if cls not in ("ldg", "stg"):
                continue
            for a in i[3]:
                name = next((n for n, (b, s) in arrays.items() if b <= a < b + s), None)
                if name is None:
                    raise Mismatch(f"{kind} PC {i[0]:#x}: address {a:#x} is in no array")
                lines.setdefault((name, cls), set()).add(a // 128)

    slow_seen = {}
    for n, ((header, blocks), (name, extra)) in enumerate(zip(kernels, plan)):
        where = f"launch {n + 1} ({name})"
        code = codes[name]
        if name == "reduce":
            g, no, mul = extra
            check_launch(where, header, blocks, name, g, 4096)
            check_reduce(where, code, blocks, g, no, mul, d_sums, d_sums2)
        else:
            check_launch(where, header, blocks, name, grid, 0)
            cases = ref.srad_cases[extra] if name == "srad" else None
            addr = addresses(name, code, ref, rows, arrays)
            decide_for = DECIDERS[name](code, ne, cases)
            for b in range(grid):
                for w in range(THREADS // 32):
                    eis = {l: b * THREADS + 32 * w + l for l in range(32)}
                    paths, memo = {}, {}
                    for l, ei in eis.items():
                        sig, decide = decide_for(ei)
                        if sig not in memo:
                            memo[sig] = walk(code, decide)
                        paths[l] = memo[sig]
                        if name == "srad" and ei < ne:
                            for d, c in enumerate(cases[ei]):
                                if c:
                                    key = (extra, d, c)
                                    slow_seen[key] = slow_seen.get(key, 0) + 1
                    items = union(code, paths, addr)
                    compare(f"{where} block {b} warp {w}", code, blocks[(b, 0, 0)][w], items,
                            lambda l, eis=eis: eis[l])
        for warps in blocks.values():
            for insts in warps.values():
                touch(where, insts)
    # The data-dependent part, as counts: the lanes of each slow path the reference run gives
    # (the per-warp comparison above already placed each lane's path).
    if slow_seen:
        print("check-workload: srad_v1: slow paths (iteration, division, case: lanes): "
              + ", ".join(f"{k}: {v}" for k, v in sorted(slow_seen.items())), file=sys.stderr)

    # Per array, the lines its loads and its stores touch, from the index expressions.
    rng = lambda base, cnt: lines_of(range(base, base + 4 * cnt, 4))
    want = {("I", "ldg"): rng(d_I, ne), ("I", "stg"): rng(d_I, ne),
            ("iN", "ldg"): rng(d_iN, rows), ("iS", "ldg"): rng(d_iS, rows),
            ("jE", "ldg"): rng(d_jE, cols), ("jW", "ldg"): rng(d_jW, cols),
            ("sums", "stg"): rng(d_sums, ne), ("sums2", "stg"): rng(d_sums2, ne),
            ("c", "ldg"): rng(d_c, ne), ("c", "stg"): rng(d_c, ne)}
    for a in ("dN", "dS", "dW", "dE"):
        want[(a, "ldg")] = want[(a, "stg")] = rng(arrays[a][0], ne)
    # reduce reads sums[ei * mul] (ei < no) and the last block's leftovers sums[i].
    red = set()
    for g, no, mul in ref.reduce_plans[0]:
        red |= {e * mul for e in range(no)}
        nf = THREADS - (g * THREADS - no)
        if nf != THREADS:
            df = divisibility(nf)
            if df:
                red |= set(range((g - 1) * THREADS + df, (g - 1) * THREADS + nf))
    for a, base in (("sums", d_sums), ("sums2", d_sums2)):
        want[(a, "ldg")] = lines_of(base + 4 * e for e in red)
    for key in sorted(set(want) | set(lines)):
        same(f"lines of {key[0]} ({'loads' if key[1] == 'ldg' else 'stores'})",
             lines.get(key, set()), want.get(key, set()))


def addresses(name, code, ref, rows, arrays):
    """Per global memory instruction (in listing order), its address per element index, from
    the CUDA source's index expressions."""
    A = {n: b for n, (b, _) in arrays.items()}
    row, col = (lambda ei: ei % rows), (lambda ei: ei // rows)
    el = lambda arr: (lambda ei: A[arr] + 4 * ei)
    if name in ("extract", "compress"):
        rules = [el("I"), el("I")]                               # d_I[ei] read, written
    elif name == "prepare":
        rules = [el("I"), el("sums"), el("I"), el("sums2")]      # I, sums = I, I, sums2 = I*I
    elif name == "srad":
        nb = lambda k: (lambda ei: A["I"] + 4 * ref.index(ei)[k])
        # loads: iS[row], iN[row], jW[col], jE[col], I[ei], I[iS[row] + Nr col],
        # I[iN[row] + Nr col], I[row + Nr jW[col]], I[row + Nr jE[col]];
        # stores: dN, dS, the kernel's d_dW (the host's d_dE: main.cu passes dN, dS, dW, dE
        # where srad's parameters are dN, dS, dE, dW), its d_dE (the host's d_dW), c.
        rules = [lambda ei: A["iS"] + 4 * row(ei), lambda ei: A["iN"] + 4 * row(ei),
                 lambda ei: A["jW"] + 4 * col(ei), lambda ei: A["jE"] + 4 * col(ei),
                 el("I"), nb(1), nb(0), nb(2), nb(3),
                 el("dN"), el("dS"), el("dE"), el("dW"), el("c")]
    else:  # srad2 (the same parameter order as srad)
        cS = lambda ei: A["c"] + 4 * ref.index(ei)[1]
        cE = lambda ei: A["c"] + 4 * ref.index(ei)[3]
        rules = [lambda ei: A["iS"] + 4 * row(ei), lambda ei: A["jE"] + 4 * col(ei),
                 el("dS"), el("dN"), cS, el("c"), el("dE"), cE, el("dW"), el("I"), el("I")]
    mem = [k for k, t in enumerate(code.text) if re.search(r"\b(LDG|STG)\.", t)]
    same(f"{name}: global memory instructions in the listing", len(mem), len(rules))
    return dict(zip(mem, rules))


# Per kernel: decide_for(ei) -> (signature, decide(k)) for a lane.

def straight(code, ne, _cases):
    """extract, prepare, srad2, compress: the `if (ei < d_Ne)` EXIT, then straight code (their
    other guarded instructions are data-dependent arithmetic, unchecked)."""
    exit_k = code.find(r"^@P0 EXIT")
    # extract's I / 255: its FCHK never holds for an integer grey level (asserted in the
    # reference run), so the branch over the division subroutine's CALL is always taken.
    fast = {code.find(r"^@!P0 BRA", k) for k in code.all(r"^FCHK ")}

    def decide_for(ei):
        out = ei >= ne
        return out, lambda k, call: out if k == exit_k else (True if k in fast else None)
    return decide_for


def srad_decider(code, ne, cases):
    exit_k = code.find(r"^@P0 EXIT")
    fchk = code.all(r"^FCHK ")
    fast = [code.find(r"^@!P0 BRA", k) for k in fchk]          # taken: the fast path
    same("srad: float divisions", len(fast), 4)
    dfast = code.find(r"^@P0 BRA", code.find(r"MUFU\.RCP64H"))  # the double reciprocal's test
    calls = code.all(r"CALL\.REL")
    fsub = int(re.search(r"0x([0-9a-f]+)$", code.text[calls[0]]).group(1), 16) // 16
    dsub = int(re.search(r"0x([0-9a-f]+)$", code.text[calls[-1]]).group(1), 16) // 16
    fret = code.find(r"^RET", fsub)
    dret = code.find(r"^RET", dsub)
    # The float subroutine's conditional branches, in order (__internal_fdiv's case tests).
    fb = [k for k in range(fsub, fret) if re.match(r"@!?P\d BRA", code.text[k])]
    same("srad: the division subroutine's branches", [code.text[k].split()[0] for k in fb],
         ["@!P0", "@P0", "@!P0", "@!P1", "@P1", "@P0", "@!P0", "@P0", "@P0", "@!P0"])
    db = [k for k in range(dsub, dret) if re.match(r"@!?P\d BRA", code.text[k])]
    same("srad: the reciprocal subroutine's branches", [code.text[k].split()[0] for k in db],
         ["@P0", "@P0", "@!P0"])
    both_normal, is_nan, zero_zero, inf_inf, zero_res, inf_res, res_normal, res_over, \
        res_ge1, res_under = fb

    def float_branches(case):
        """The float subroutine's branch outcomes for a case."""
        general = case.replace("scaled-", "")
        return {both_normal: case in ("normal", "overflow", "denormal", "underflow"),
                is_nan: case == "nan", zero_zero: case == "zero/zero",
                # `@!P1 BRA !P2`: taken for inf/inf; its recorded lanes (the guard !P1 alone,
                # an infinite divisor) are not checked
                inf_inf: (None, case == "inf/inf"),
                zero_res: case == "zero", inf_res: case == "inf",
                res_normal: general == "normal", res_over: general == "overflow",
                res_ge1: False, res_under: general == "underflow"}

    call_of = {c: d for d, c in enumerate(calls)}   # four float divisions, then the double
    same("srad: calls", len(calls), 5)

    def decide_for(ei):
        if ei >= ne:
            return "out", lambda k, call: True if k == exit_k else None
        lane = cases[ei]
        decisions = {exit_k: False, dfast: lane[4] is None}
        for d in range(4):
            decisions[fast[d]] = lane[d] is None
        sub = {d: float_branches(lane[d]) for d in range(4) if lane[d]}
        dcase = lane[4]
        dt = {db[0]: dcase == "nan", db[1]: dcase == "infzero", db[2]: dcase == "tiny"}

        def decide(k, call):
            if call is None:
                return decisions.get(k)
            d = call_of[call]
            return sub[d].get(k) if d < 4 else dt.get(k)
        return tuple(map(str, lane)), decide
    return decide_for


DECIDERS = {"extract": straight, "prepare": straight, "srad2": straight,
            "compress": straight, "srad": srad_decider}


# ------------------------------------------------------------------------------- reduce

def check_reduce(where, code, blocks, grid, no, mul, d_sums, d_sums2):
    """reduce_kernel.cu for one launch, every warp built from the listing's landmarks."""
    nf = THREADS - (grid * THREADS - no)
    full_bra = code.find(r"^@!P0 BRA")                 # nf == NUMBER_THREADS: the rare case
    last_bra = code.find(r"^@!P0 BRA", full_bra + 1)   # bx == gridDim.x - 1
    full_top, last_top = code.target(full_bra), code.target(last_bra)
    bars = code.all(r"BAR\.SYNC")
    # Prologue: through the first barrier (loads into shared memory when ei < d_no).
    pro_end = bars[0]
    pro_ld = code.all(r"LDG", 0, pro_end)              # sums[ei*mul], sums2[ei*mul]
    # The unrolled level blocks: from a path's start to its ninth barrier; then @P EXIT,
    # thread 511 stores.
    for b in range(grid):
        for w in range(THREADS // 32):
            s = Stream(code)
            tx = [32 * w + l for l in range(32)]
            ei = [b * THREADS + t for t in tx]
            every = 0xFFFFFFFF
            live = mask(l for l in range(32) if ei[l] < no)
            addr = {pro_ld[0]: [d_sums + 4 * e * mul for e in ei],
                    pro_ld[1]: [d_sums2 + 4 * e * mul for e in ei]}
            s.run(0, full_bra, every, lambda k: live if k < pro_end else
                  (every if nf == THREADS else 0), addr)
            if nf == THREADS or b != grid - 1:
                if nf == THREADS:
                    top = full_top
                else:
                    s.run(full_bra + 1, last_bra, every, 0)
                    top = last_bra + 1
                levels(s, code, top, tx, b, mul, d_sums, d_sums2)
            else:
                s.run(full_bra + 1, last_bra, every, every)
                last_block(s, code, last_top, tx, b, nf, mul, d_sums, d_sums2)
            compare(f"{where} block {b} warp {w}", code, blocks[(b, 0, 0)][w], s.items,
                    lambda l: l)


def mask(lanes):
    return sum(1 << l for l in lanes)


def levels(s, code, top, tx, b, mul, d_sums, d_sums2):
    """Nine levels i = 2..512, each ending at its BAR.SYNC, guarded by (tx+1) % i == 0; then
    `@P EXIT` for tx != 511 and thread 511's two loads from shared memory and two stores."""
    k, i = top, 2
    for _ in range(9):
        bar = code.find(r"BAR\.SYNC", k)
        g = mask(l for l in range(32) if (tx[l] + 1) % i == 0)
        s.run(k, bar, 0xFFFFFFFF, g)
        k, i = bar + 1, 2 * i
    ex = code.find(r"EXIT", k)
    stay = mask(l for l in range(32) if tx[l] == THREADS - 1)
    s.run(k, ex, 0xFFFFFFFF, 0xFFFFFFFF & ~stay)
    if stay:
        end = code.find(r"^EXIT", ex + 1)
        st = code.all(r"STG", ex, end)
        s.run(ex + 1, end, stay, None, {st[0]: {31: d_sums + 4 * b * mul * THREADS},
                                         st[1]: {31: d_sums2 + 4 * b * mul * THREADS}})


def last_block(s, code, top, tx, b, nf, mul, d_sums, d_sums2):
    """The last, not full, block: df by the SEL chain; the loop i = 2..df (the test
    (tx+1) % i == 0 && tx < df, a forward branch over the sum); `@P0 EXIT` but for tx == df-1;
    the leftovers i = bx*512+df .. bx*512+nf-1 summed from d_sums[i], d_sums2[i]."""
    every = 0xFFFFFFFF
    df = divisibility(nf)
    skip = code.find(r"^@!P0 BRA", top)                 # df < 2: no loop
    s.run(top, skip, every, every if df < 2 else 0)
    back = code.find(r"^@!P0 BRA", skip + 1)
    while code.target(back) > back:
        back = code.find(r"^@!P0 BRA", back + 1)
    head = code.target(back)                             # the loop's first instruction
    after = code.target(skip)
    if df >= 2:
        s.run(skip + 1, head - 1, every)
        i = 2
        while i <= df:
            test = code.find(r"^@P0 BRA", head)
            join = code.target(test)
            passing = mask(l for l in range(32) if (tx[l] + 1) % i == 0 and tx[l] < df)
            s.run(head, test, every, lambda k: None if k != test else every & ~passing)
            if passing:
                s.run(test + 1, join - 1, passing)
            s.run(join, back, every, every if 2 * i <= df else 0)
            i *= 2
    ex = code.find(r"EXIT", after)
    stay = mask(l for l in range(32) if tx[l] == df - 1)
    s.run(after, ex, every, every & ~stay)
    if not stay:
        return
    lane = stay.bit_length() - 1
    start, end = b * THREADS + df, b * THREADS + nf
    seq = [a for i in range(start, end) for a in (d_sums + 4 * i, d_sums2 + 4 * i)]
    loads = iter(seq)
    stores = code.all(r"^STG", ex)
    sts = code.find(r"^STS", ex)
    # the block's result: d_sums[bx * d_mul * NUMBER_THREADS], d_sums2[...]
    final = {stores[0]: {lane: d_sums + 4 * b * mul * THREADS},
             stores[1]: {lane: d_sums2 + 4 * b * mul * THREADS}}
    none = code.find(r"^@P0 BRA", ex)                    # df >= nf: no leftovers
    s.run(ex + 1, none, stay, stay if start >= end else 0)

    def run_loads(lo, hi, guard=None):
        addr = {k: {lane: next(loads)} for k in range(lo, hi + 1)
                if re.search(r"\bLDG\.", code.text[k])}
        s.run(lo, hi, stay, guard, addr)

    trip = end - start
    if trip:
        rem_bra = code.find(r"^@!P1 BRA", none)          # (nf - df) % 4 == 0: no remainder
        rem = trip % 4
        s.run(none + 1, rem_bra, stay, 0 if rem else stay)
        four = code.target(rem_bra)                      # `@!P0 BRA`: fewer than 4 in all
        if rem:
            rback = four - 1
            rtop = code.target(rback)
            s.run(rem_bra + 1, rtop - 1, stay)
            for j in range(rem):
                run_loads(rtop, rback, stay if j < rem - 1 else 0)
        s.run(four, four, stay, stay if trip < 4 else 0)
        if trip >= 4:
            pos = start + rem
            big = code.find(r"^@!P1 BRA", four + 1)      # more than 12 left: the 16x loop
            s.run(four + 1, big, stay, stay if end - pos <= 12 else 0)
            ran = False
            if end - pos > 12:
                btop = code.find(r"LDG", big)
                bback = code.find(r"^@!P1 BRA", btop)
                s.run(big + 1, btop - 1, stay)
                while True:
                    pos += 16
                    run_loads(btop, bback, stay if pos < end - 12 else 0)
                    if not pos < end - 12:
                        break
                ran = True
            mid_at = code.target(big)
            mid = code.find(r"^@!P1 BRA", mid_at)        # more than 4 left: the 8x block
            s.run(mid_at, mid, stay, stay if end - pos <= 4 else 0)
            small_at = code.target(mid)
            if end - pos > 4:
                run_loads(mid + 1, small_at - 1)
                pos += 8
                ran = True
            small = code.find(r"^@!P0 BRA", small_at)    # the 4x block unless nothing is left
            go = pos < end or not ran
            s.run(small_at, small, stay, 0 if go else stay)
            if go:
                run_loads(small + 1, code.target(small) - 1)
                pos += 4
            same("reduce: the unrolled leftovers' count", pos, end)
        s.run(sts, code.find(r"^EXIT", sts), stay, None, final)
    else:
        s.run(code.target(none), code.find(r"^EXIT", stores[0]), stay, None, final)
    if next(loads, None) is not None:
        raise AssertionError("leftover loads not all placed")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: python3 -m workload_checks.srad_v1 PATH [SEED] [special]")
    write_image(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1,
                "special" in sys.argv[3:])

CHECKS = {"srad_v1": check_srad_v1}
