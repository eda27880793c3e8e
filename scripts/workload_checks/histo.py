"""Parboil histo: histo_prescan_kernel (histo_prescan.cu), histo_intermediates_kernel
(histo_intermediates.cu), histo_main_kernel (histo_main.cu), histo_final_kernel (histo_final.cu),
launched by src/cuda/main.cu, re-derived from that source (util.h's constants: KB 24,
BINS_PER_BLOCK 24576, BLOCK_X 14, THREADS 768, PRESCAN 64 x 512, UNROLL 16) and the static
shape of golden/sass/histo.sass.

The check needs its own image, Parboil's img.bin (width, height, histogram width, height as
32-bit words, then one bin per pixel), passed with `file=`:

    python3 -m workload_checks.histo PATH WIDTH HEIGHT HWIDTH HHEIGHT [SEED]   (in scripts/)
    warpsmith trace --workload histo:file=PATH --out DIR
    scripts/check-workload.py DIR histo:file=PATH

(the small run's shape: 64 16 64 384 (one block of bins, every thread of main at most one
element); the other shape: 255 48 64 768: an odd width (the intermediates' last thread skips
its second pixel), 12,240 pixels (main's threads run one or two iterations), two blocks of bins
(the pixels of the second take main's global-atomic path)).

The reference run: the image's bins, mapped as calculateBin maps them (block, indexhi, indexlo,
offset) and placed where the intermediates kernel puts them (pixel (r, 2c) at r*width + c, pixel
(r, 2c+1) at r*width + c + blockDim.x). The prescan's range: below 64 * 512 * 8 pixels some
prescan threads have no sample (count 0), their average is 0/0 = NaN, the block's sums are NaN
and (unsigned int)NaN converts to 0 on the GPU (F2I): the range is [0, 0], main's grid is
(14, 1). This check accepts only such images (it exits 2 otherwise) and only images where no
bin is hit 255 times (so main's overflow paths and the global path's saturation test are never
taken: the writer below makes such images). Then, per bin of block 0, the number of lanes whose
shared atomic lands on its word (per main block) and, per bin of other blocks, the number of
global atomics on its 32-bit word, against the reference counts.

Each warp's stream is built as listing indices with masks (a guarded instruction: the active
lanes whose guard holds, 0 if none), from the CUDA source's control flow: loop trip counts per
lane (a lane that leaves a loop waits at its exit; the lowest PC runs first), the branches'
outcomes from the reference data. Compared exactly per warp: the PC sequence (hence the count,
and the count by class), the mask of every instruction, and the sorted addresses of its global
loads, stores and atomics and of its shared accesses (sorted because the compiler reorders the
14 unrolled loads of histo_final_kernel's middle loop). Per array, the 128-byte lines loads,
stores and atomics touch. Not modelled exactly: in histo_prescan_kernel, the bodies of the
division and square-root slow-path subroutines (after the kernel's last EXIT; value-dependent
branches inside): instructions at those PCs are left out of the exact comparison (28 % of the
prescan's instructions at the small run); the CALLs into them and everything else are compared
exactly, and warps whose lanes are in the same classes (no sample / samples all equal / differing)
must run identical subroutine instructions (a consistency check, not a derivation).
"""
import random
import re
import struct
import sys

from .common import Mismatch, allocate, by_class, lines_of, listing, opcode_class, same

KB, BPB, BLOCK_X, THREADS, PRE_X, PRE_T, UNROLL = 24, 24 * 1024, 14, 768, 64, 512, 16
PRESCAN = "_Z20histo_prescan_kernelPjiS_"
INTER = "_Z26histo_intermediates_kernelP5uint2jjjP6uchar4"
MAIN = "_Z17histo_main_kernelP6uchar4jjjjjPjS1_S1_"
FINAL = "_Z18histo_final_kerneljjjjPjS_S_S_"


def write_image(path, w, h, hw, hh, seed=1):
    """Bins: 30 % from 40 popular bins, the rest uniform over the histogram; no bin reaches 200."""
    rnd = random.Random(seed)
    popular = [rnd.randrange(hw * hh) for _ in range(40)]
    while True:
        img = [rnd.choice(popular) if rnd.random() < 0.3 else rnd.randrange(hw * hh)
               for _ in range(w * h)]
        if max(img.count(b) for b in popular) < 200:
            break
    with open(path, "wb") as f:
        f.write(struct.pack(f"<4I{w * h}I", w, h, hw, hh, *img))


def read_image(path):
    data = open(path, "rb").read()
    w, h, hw, hh = struct.unpack_from("<4I", data)
    return w, h, hw, hh, list(struct.unpack_from(f"<{w * h}I", data, 16))


def target(t):
    return int(re.search(r"BRA(?:\.U)? (?:!?P\d, )?0x([0-9a-f]+)", t).group(1), 16) // 16


class Stream:
    """A warp's expected stream: (index, mask) per instruction, and its memory addresses."""

    def __init__(self, code):
        self.code, self.out, self.mem = code, [], {}
        self.default = None     # addresses of the instructions a run is given none for

    def run(self, lo, hi, lanes, guard=frozenset(), addr=None, uniform=False):
        """uniform: a guarded instruction's guard is a warp-uniform fact not evaluated here
        (mask: 0 or all of `lanes`, either accepted)."""
        for k in range(lo, hi + 1):
            if uniform and self.code[k].startswith("@"):
                self.out.append((k, ("0 or", sum(1 << l for l in lanes))))
                continue
            live = [l for l in sorted(lanes) if l in guard] if self.code[k].startswith("@") \
                else sorted(lanes)
            self.out.append((k, sum(1 << l for l in live)))
            f = addr[k] if addr and k in addr else (self.default or {}).get(k)
            if f:
                c = kind(self.code[k])
                self.mem.setdefault(c, []).extend(f(l) for l in live)

    def loop(self, top, back, trips, addr_of):
        """Iterations of a loop body top..back (back: the backward branch, guarded by `more`):
        iteration it with the lanes whose trip count exceeds it."""
        for it in range(max(trips.values(), default=0)):
            a = {l for l, t in trips.items() if t > it}
            self.run(top, back, a, guard={l for l in a if trips[l] > it + 1},
                     addr=addr_of(it) if addr_of else None)


def kind(text):
    """The class a memory instruction's addresses are compared in."""
    op = [w for w in text.split() if not w.startswith("@")][0]
    c = opcode_class(op)
    return {"lds": "shared", "sts": "shared", "atoms": "shared"}.get(c, c)


def check_warp(where, got, s, skip_from=None):
    """The trace's warp against the stream; instructions at indices >= skip_from (subroutine
    bodies) are left out of the trace first."""
    code = s.code
    if skip_from is not None:
        got = [g for g in got if g[0] < 16 * skip_from]
    same(f"{where} instructions", len(got), len(s.out))
    same(f"{where} instructions by class", by_class(got),
         by_class([(16 * k, 0, [w for w in code[k].split() if not w.startswith("@")][0], [])
                   for k, _ in s.out]))
    for g, (k, mask) in zip(got, s.out):
        if g[0] != 16 * k:
            raise Mismatch(f"{where}: PC {g[0]:#x} in the trace where the kernel's control flow "
                           f"gives {16 * k:#x} ({code[k]})")
        if isinstance(mask, tuple):
            if g[1] not in (0, mask[1]):
                raise Mismatch(f"{where}: lanes at {16 * k:#x} ({code[k]}): the trace has "
                               f"{g[1]:08x}, a warp-uniform guard gives 0 or {mask[1]:08x}")
        elif g[1] != mask:
            raise Mismatch(f"{where}: lanes at {16 * k:#x} ({code[k]}): the trace has "
                           f"{g[1]:08x}, the kernel's definition gives {mask:08x}")
    have = {}
    for g in got:
        if g[3]:
            have.setdefault(kind(code[g[0] // 16]), []).extend(g[3])
    for c in sorted(set(have) | set(s.mem)):
        a, b = sorted(have.get(c, [])), sorted(s.mem.get(c, []))
        if a != b:
            extra = sorted(set(a) - set(b))[:3]
            missing = sorted(set(b) - set(a))[:3]
            raise Mismatch(f"{where}: {c} addresses: the trace has {len(a)}, the kernel's "
                           f"definition {len(b)}; the trace's {[hex(x) for x in extra]} are not "
                           f"the definition's, lacks {[hex(x) for x in missing]}")


def mapping(bin_):
    """calculateBin: (block (unsigned char), indexhi, indexlo, offset)."""
    return (bin_ // BPB) % 256, (bin_ >> 10) % KB, (bin_ >> 2) % 256, (bin_ % 4) * 8


def check_histo(copies, kernels, args):
    if "file" not in args:
        print("check-workload: the histo check needs its own image: histo:file=PATH (see "
              "scripts/workload_checks/histo.py)", file=sys.stderr)
        sys.exit(2)
    w, h, hw, hh, img = read_image(args["file"])
    iters = int(args.get("iters", 1))
    n = w * h
    if n >= PRE_X * PRE_T * 8 or h % UNROLL or max(img.count(b) for b in set(img)) >= 255:
        print("check-workload: histo: this check models images below 262,144 pixels, height a "
              "multiple of 16, no bin hit 255 times", file=sys.stderr)
        sys.exit(2)
    rmin, rmax = 0, 0                       # the prescan's NaN range (see the docstring)
    even = (w + 1) // 2 * 2
    bd = (w + 1) // 2                       # the intermediates' blockDim.x (and input pitch)
    # main.cu's cudaMalloc order.
    d_in, d_rng, d_sm, d_sub, d_gh, d_ov, d_fin = allocate(
        [even * (-(-h // UNROLL) * UNROLL) * 4, 8, n * 4, BLOCK_X * w * hh * 4, w * hh * 2,
         w * hh * 4, w * hh])
    same("host copies", copies, [(d_in + 4 * y * even, 4 * w) for y in range(h)]
         + [(d_rng, 8)] * iters)
    same("launches (four per iteration)", len(kernels), 4 * iters)
    # The reference: sm_mappings[e] for every element e, and the bins' counts.
    sm = [None] * n
    for r in range(h):
        for c in range(w):
            e = r * w + (c // 2 if c % 2 == 0 else c // 2 + bd)
            sm[e] = mapping(img[r * w + c])
    same("every element of sm_mappings written once", sum(1 for v in sm if v is None), 0)

    want_lines, got_lines = {}, {}
    arrays = {"input": (d_in, even * (-(-h // UNROLL) * UNROLL) * 4), "ranges": (d_rng, 8),
              "sm_mappings": (d_sm, 4 * n), "global_subhisto": (d_sub, BLOCK_X * w * hh * 4),
              "global_histo": (d_gh, w * hh * 2), "global_overflow": (d_ov, w * hh * 4),
              "final_histo": (d_fin, w * hh)}
    for it in range(iters):
        ks = kernels[4 * it:4 * it + 4]
        names = [hd.get("kernel name") for hd, _ in ks]
        same(f"iteration {it} kernels", names, [PRESCAN, INTER, MAIN, FINAL])
        launch(ks[0], (PRE_X, 1), PRE_T, "4096")
        launch(ks[1], (h // UNROLL, 1), bd, "0")
        launch(ks[2], (BLOCK_X, rmax - rmin + 1), THREADS, str(4 * KB * 256))
        launch(ks[3], (BLOCK_X * 3, 1), 512, "0")
        check_prescan(ks[0][1], img, n, d_in, d_rng)
        check_inter(ks[1][1], h, w, bd, d_in, d_sm)
        counts = check_main(ks[2][1], sm, n, rmin, rmax, hh, hw, d_sm, d_sub, d_gh)
        check_final(ks[3][1], rmin, rmax, hh, hw, d_sub, d_gh, d_ov, d_fin)
        # The reference run's bin counts against the trace's atomics.
        ref_local, ref_global = {}, {}
        for b in img:
            blk, hi, lo, off = mapping(b)
            if rmin <= blk <= rmax:
                ref_local[(blk, hi * 256 + lo)] = ref_local.get((blk, hi * 256 + lo), 0) + 1
            else:
                ref_global[b // 2] = ref_global.get(b // 2, 0) + 1
        same(f"iteration {it}: per shared word of the bins' block, the lanes adding to it",
             counts[0], ref_local)
        same(f"iteration {it}: per global_histo word, the atomics adding to it", counts[1],
             ref_global)
        for hd, blocks in ks:
            for tb, warps in blocks.items():
                for wp, insts in warps.items():
                    for g in insts:
                        if g[3] and kind(g[2]) not in ("shared",):
                            nm = [a for a, (b, s) in arrays.items() if b <= g[3][0] < b + s]
                            key = (nm[0] if nm else "outside", kind(g[2]))
                            got_lines.setdefault(key, set()).update(lines_of(g[3]))
        # Per array, from the source's index expressions (all threads), apart from the warps.
        add = lambda nm, c, addrs: want_lines.setdefault((nm, c), set()).update(lines_of(addrs))
        stride = n // PRE_X
        add("input", "ldg", [d_in + 4 * a for b in range(PRE_X)
                             for a in range(b * stride, b * stride + stride // 8)])
        add("ranges", "atomg", [d_rng, d_rng + 4])
        add("input", "ldg", [d_in + 8 * ((r) * bd + t) for r in range(h) for t in range(bd)])
        add("sm_mappings", "stg", [d_sm + 4 * e for e in range(n)])
        add("sm_mappings", "ldg", [d_sm + 4 * e for e in range(n)])
        glob = [d_gh + 4 * (b // 2) for b in img if not rmin <= mapping(b)[0] <= rmax]
        if glob:
            add("global_histo", "ldg", glob)
            add("global_histo", "atomg", glob)
        add("global_subhisto", "stg", [d_sub + 4 * (bx * (hh * hw // 4) + r * BPB // 4 + i)
                                       for bx in range(BLOCK_X) for r in range(rmin, rmax + 1)
                                       for i in range(BPB // 4)])
        lo, mid, total = rmin * BPB // 4, (rmin + (rmax - rmin + 1)) * BPB // 4, hh * hw // 4
        outer = list(range(0, lo)) + list(range(mid, total))
        add("global_histo", "ldg", [d_gh + 8 * i for i in outer])
        add("global_histo", "stg", [d_gh + 8 * i for i in outer])
        add("global_overflow", "ldg", [d_ov + 16 * i for i in range(lo, mid)])
        add("global_overflow", "stg", [d_ov + 16 * i for i in range(lo, mid)])
        add("global_subhisto", "ldg", [d_sub + 4 * (i + j * hh * hw // 4) for i in range(lo, mid)
                                       for j in range(BLOCK_X)])
        add("final_histo", "stg", [d_fin + 4 * i for i in range(total)])
    for key in sorted(set(want_lines) | set(got_lines)):
        same(f"lines of {key[0]} ({key[1]})", got_lines.get(key, set()), want_lines.get(key, set()))


def launch(k, grid, block, shmem):
    header, blocks = k
    name = header.get("kernel name")
    same(f"{name} grid", header["grid dim"], f"({grid[0]},{grid[1]},1)")
    same(f"{name} block", header["block dim"], f"({block},1,1)")
    same(f"{name} shmem", header.get("shmem"), shmem)
    same(f"{name} blocks", sorted(blocks), sorted((x, y, 0) for x in range(grid[0])
                                                  for y in range(grid[1])))
    for tb, warps in blocks.items():
        same(f"{name} block {tb} warps", sorted(warps), list(range(-(-block // 32))))


# --------------------------------------------------------------------------------- prescan

def check_prescan(blocks, img, n, d_in, d_rng):
    code = listing("histo", PRESCAN)
    last = max(k for k, t in enumerate(code) if t == "EXIT")
    sub = last + 1                          # the subroutines start after the kernel's last EXIT
    skip1 = next(k for k, t in enumerate(code) if t.startswith("@P2 BRA"))
    back1 = next(k for k in range(skip1, sub) if " BRA " in code[k] and target(code[k]) < k)
    top1 = target(code[back1])
    join1 = target(code[skip1])             # BSYNC B0 after the first loop
    fast1 = next(k for k in range(join1, sub) if code[k].startswith("@!P0 BRA"))
    skip2 = next(k for k in range(fast1, sub) if code[k].startswith("@P2 BRA"))
    back2 = next(k for k in range(skip2, sub) if " BRA " in code[k] and target(code[k]) < k)
    fast2 = next(k for k in range(back2 + 1, sub) if code[k].startswith("@!P0 BRA"))
    top2 = target(code[back2])
    fastq = next(k for k in range(fast2 + 1, sub) if code[k].startswith("@!P0 BRA"))
    slowq_end = next(k for k in range(fastq, sub) if re.match(r"BRA 0x", code[k]))
    joinq = target(code[slowq_end])
    stride = n // PRE_X
    seen = {}
    for (bx, _, _), warps in blocks.items():
        for wp, got in warps.items():
            tids = {l: 32 * wp + l for l in range(32)}
            shared = {}
            for k in range(sub):
                if re.search(r"\b(LDS|STS)\b", code[k]):
                    o = re.search(r"\[(R0\.X4)?\+?(0x[0-9a-f]+)?\]|\[RZ\]", code[k])
                    o = int(o.group(2), 16) if o and o.group(2) else 0
                    shared[k] = ((lambda l, o=o: 4 * tids[l] + o) if "R0.X4" in code[k]
                                 else (lambda l, o=o: o))
            lanes = set(tids)
            addrs = {l: list(range(bx * stride + tids[l], bx * stride + stride // 8, PRE_T))
                     for l in lanes}
            trips = {l: len(addrs[l]) for l in lanes}
            s0 = {l for l in lanes if trips[l] == 0}     # no sample: 0/0
            s1 = lanes - s0
            # stddev is 0 (sqrt's slow path) unless the lane's samples differ
            sq_fast = {l for l in s1 if len({img[a] for a in addrs[l]}) > 1}
            s = Stream(code)
            s.default = shared        # Avg[threadIdx.x] = avg and the like: [R0.X4+offset]
            ld = lambda it: {k: (lambda l, it=it: d_in + 4 * addrs[l][it])
                             for k in range(len(code)) if "LDG" in code[k]}
            # size / gridDim.x: the integer division's correction steps (@P0, @P1, @!P2 before
            # the first loop's test) are guarded by uniform facts of the launch, not evaluated
            s.run(0, skip1 - 1, lanes, uniform=True)
            s.run(skip1, skip1, lanes, guard=s0)
            if s1:
                s.run(skip1 + 1, top1 - 1, s1)
                s.loop(top1, back1, {l: trips[l] for l in s1}, ld)
                s.run(back1 + 1, join1 - 1, s1)
            s.run(join1, fast1, lanes, guard=s1)          # FCHK passes where count > 0
            if s0:
                s.run(fast1 + 1, target(code[fast1]) - 1, s0)   # to the CALL; the body skipped
            s.run(target(code[fast1]), skip2, lanes, guard=s0)
            if s1:
                s.run(skip2 + 1, top2 - 1, s1)
                s.loop(top2, back2, {l: trips[l] for l in s1}, ld)
            s.run(target(code[skip2]), fast2, lanes, guard=s1)
            if s0:
                s.run(fast2 + 1, target(code[fast2]) - 1, s0)
            s.run(target(code[fast2]), fastq, lanes, guard=sq_fast)
            slow = lanes - sq_fast
            if slow:
                s.run(fastq + 1, slowq_end, slow)
            if sq_fast:
                s.run(target(code[fastq]), joinq - 1, sq_fast)
            # The reduction: straight-line code, each guard a test of tid against a constant
            # set by an ISETP on R0 (= threadIdx.x) in this stretch.
            pred = {}
            for k in range(joinq, last + 1):
                t = code[k]
                m = re.match(r"ISETP\.(GT|NE)(?:\.U32)?\.AND (P\d), PT, R0(?:\.reuse)?, "
                             r"(0x[0-9a-f]+|RZ), PT", t)
                g = re.match(r"@(!?)(P\d) ", t)
                if g:
                    test = pred[g.group(2)]
                    guard = {l for l in lanes if test(tids[l]) != (g.group(1) == "!")}
                else:
                    guard = set()
                a = None
                if t.startswith("RED"):
                    a = {k: (lambda l, o=(4 if "+0x4" in t else 0): d_rng + o)}
                if t == "@P0 EXIT":          # every thread but thread 0 leaves
                    s.run(k, k, lanes, guard=guard)
                    lanes = lanes - guard
                    if not lanes:
                        break
                    continue
                s.run(k, k, lanes, guard=guard, addr=a)
                if m:
                    c = 0 if m.group(3) == "RZ" else int(m.group(3), 16)
                    pred[m.group(2)] = ((lambda v, c=c: v > c) if m.group(1) == "GT"
                                        else (lambda v, c=c: v != c))
            check_warp(f"histo_prescan_kernel block {bx} warp {wp}", got, s, skip_from=sub)
            # The subroutine bodies are not modelled; but they depend only on the values divided
            # (0/0 for a lane without sample) and square-rooted, so warps whose lanes fall in the
            # same classes must run them identically: a consistency check across warps.
            key = (frozenset(s0), frozenset(sq_fast), frozenset(lanes))
            body = [(g[0], g[1]) for g in got if g[0] >= 16 * sub]
            first = seen.setdefault(key, (body, f"block {bx} warp {wp}"))
            if first[0] != body:
                raise Mismatch(f"histo_prescan_kernel block {bx} warp {wp}: its division/sqrt "
                               f"subroutine instructions ({len(body)}) differ from {first[1]}'s "
                               f"({len(first[0])}), whose lanes are in the same classes")


# --------------------------------------------------------------------------- intermediates

def check_inter(blocks, h, w, bd, d_in, d_sm):
    code = listing("histo", INTER)
    end = next(k for k, t in enumerate(code) if t == "EXIT")
    # The unrolled rows: LDG (uint2), STG (x's mapping), `@P0 STG` (y's, if !skip); in the last
    # row the compiler makes the skip an exit: `@!P0 EXIT` before the last STG.
    ex = next(k for k, t in enumerate(code) if t == "@!P0 EXIT")
    mem = [k for k in range(end) if re.search(r"\b(LDG|STG)\.", code[k])]
    same("intermediates: the memory instructions' pattern",
         [code[k].split()[0] for k in mem],
         ["LDG.E.64.SYS", "STG.E.SYS", "@P0"] * (UNROLL - 1) + ["LDG.E.64.SYS", "STG.E.SYS",
                                                                 "STG.E.SYS"])
    same("intermediates: the exit before the last STG", mem[-2] < ex < mem[-1], True)
    for (bx, _, _), warps in blocks.items():
        for wp, got in warps.items():
            lanes = {l for l in range(32) if 32 * wp + l < bd}
            t = {l: 32 * wp + l for l in lanes}
            keep = {l for l in lanes if not (w % 2 and t[l] == bd - 1)}   # !skip
            addr = {}
            for i in range(UNROLL):
                row = UNROLL * bx + i
                addr[mem[3 * i]] = lambda l, row=row: d_in + 8 * (row * bd + t[l])
                addr[mem[3 * i + 1]] = lambda l, row=row: d_sm + 4 * (row * w + t[l])
                addr[mem[3 * i + 2]] = lambda l, row=row: d_sm + 4 * (row * w + t[l] + bd)
            s = Stream(code)
            s.run(0, ex - 1, lanes, guard=keep, addr=addr)
            s.run(ex, ex, lanes, guard=lanes - keep)
            if keep:
                s.run(ex + 1, end, keep, addr=addr)
            check_warp(f"histo_intermediates_kernel block {bx} warp {wp}", got, s)


# ------------------------------------------------------------------------------------ main

def check_main(blocks, sm, n, rmin, rmax, hh, hw, d_sm, d_sub, d_gh):
    code = listing("histo", MAIN)
    end = max(k for k, t in enumerate(code) if t == "EXIT")
    c_skip = next(k for k, t in enumerate(code) if t.startswith("@P1 BRA"))  # tid > 6143
    c_back = next(k for k in range(c_skip, end) if " BRA " in code[k] and target(code[k]) < k)
    c_top = target(code[c_back])
    y_br = next(k for k in range(c_back + 1, end) if code[k].startswith("@!P0 BRA"))  # y == 0
    after = None
    counts_local, counts_global = {}, {}
    step = THREADS * BLOCK_X
    for (bx, by, _), warps in blocks.items():
        y0 = by == 0
        lo = target(code[y_br]) if y0 else y_br + 1
        z = next(k for k in range(lo, end) if code[k].startswith("@P0 BRA"))
        bu = next(k for k in range(z, end) if "BRA.U" in code[k])
        top = target(code[bu])
        after = target(code[z])
        m1 = next(k for k in range(top, bu) if code[k].startswith("@P0 BRA"))
        o1 = next(k for k in range(m1 + 1, bu) if code[k].startswith("@P0 BRA"))
        join = target(code[m1])
        same("main: the overflow test's skip joins the range test's", target(code[o1]), join)
        p3 = next(k for k in range(join, bu) if code[k].startswith("@P3 BRA"))
        if y0:
            g = next(k for k in range(join, p3) if re.match(r"@!P0 BRA P2,", code[k]))
            g2 = next(k for k in range(g + 1, p3) if code[k].startswith("@P0 BRA"))
        x1 = next(k for k in range(after, end) if code[k] == "@P1 EXIT")
        cp_back = next(k for k in range(x1, end) if " BRA " in code[k] and target(code[k]) < k)
        myrange = rmin + by
        store_index = bx * (hh * hw // 4) + myrange * BPB // 4
        for wp, got in warps.items():
            lanes = set(range(32))
            tid = {l: 32 * wp + l for l in lanes}
            s = Stream(code)
            s.run(0, c_skip, lanes, guard=set())
            s.run(c_skip + 1, c_top - 1, lanes)
            tr = {l: len(range(tid[l], BPB // 4, THREADS)) for l in lanes}
            s.loop(c_top, c_back, tr, lambda it: {k: (lambda l, it=it: 4 * (tid[l] + THREADS * it))
                                                   for k in range(c_top, c_back + 1)
                                                   if "STS" in code[k]})
            s.run(c_back + 1, y_br, lanes, guard=lanes if y0 else set())
            elems = {l: list(range(bx * THREADS + tid[l], n, step)) for l in lanes}
            trips = {l: len(elems[l]) for l in lanes}
            s.run(lo, z, lanes, guard={l for l in lanes if trips[l] == 0})
            first = z + 1
            for it in range(max(trips.values())):
                a = {l for l in lanes if trips[l] > it}
                e = {l: elems[l][it] for l in a}
                ld = next(k for k in range(first, m1) if "LDG" in code[k])
                match = {l for l in a if sm[e[l]][0] == myrange}
                s.run(first, m1, a, guard=a - match, addr={ld: lambda l: d_sm + 4 * e[l]})
                if match:
                    at = next(k for k in range(m1, o1) if "ATOMS" in code[k])
                    sh = {l: 4 * (sm[e[l]][1] * 256 + sm[e[l]][2]) for l in match}
                    s.run(m1 + 1, o1, match, guard=match, addr={at: lambda l: sh[l]})
                    for l in match:
                        key = (myrange, sh[l] // 4)
                        counts_local[key] = counts_local.get(key, 0) + 1
                if y0:
                    out = {l for l in a if not rmin <= sm[e[l]][0] <= rmax}
                    s.run(join, g, a, guard=a - out)
                    if out:
                        word = {}
                        for l in out:
                            blk, hi, lo_, off = sm[e[l]]
                            word[l] = (blk * BPB + off // 8 + (lo_ << 2) + (hi << 10)) // 2
                            counts_global[word[l]] = counts_global.get(word[l], 0) + 1
                        gl = {k: (lambda l: d_gh + 4 * word[l]) for k in range(g, target(code[g]))
                              if re.search(r"\b(LDG|RED)\.", code[k])}
                        s.run(g + 1, g2, out, guard=set(), addr=gl)
                        s.run(g2 + 1, target(code[g]) - 1, out, addr=gl)
                    s.run(target(code[g]), p3, a, guard={l for l in a if trips[l] == it + 1})
                else:
                    s.run(join, p3, a, guard={l for l in a if trips[l] == it + 1})
                more = {l for l in a if trips[l] > it + 1}
                if more:
                    s.run(p3 + 1, bu, more, guard=more)
                first = top
            s.run(after, x1, lanes, guard=set())
            s.loop(x1 + 1, cp_back, tr, lambda it: {
                k: (lambda l, it=it, k=k: (4 * (tid[l] + THREADS * it)) if "LDS" in code[k]
                    else d_sub + 4 * (store_index + tid[l] + THREADS * it))
                for k in range(x1 + 1, cp_back + 1) if re.search(r"\b(LDS|STG)\b", code[k])})
            s.run(cp_back + 1, end, lanes)
            check_warp(f"histo_main_kernel block {(bx, by)} warp {wp}", got, s)
    return counts_local, counts_global


# ----------------------------------------------------------------------------------- final

def check_final(blocks, rmin, rmax, hh, hw, d_sub, d_gh, d_ov, d_fin):
    code = listing("histo", FINAL)
    end = max(k for k, t in enumerate(code) if t == "EXIT")
    backs = [k for k in range(end) if " BRA " in code[k] and target(code[k]) < k]
    same("final: three loops", len(backs), 3)
    skips = [k for k in range(end) if re.match(r"@P0 (BRA|EXIT)", code[k])]
    same("final: three loop entry tests", len(skips), 3)
    G = BLOCK_X * 3 * 512
    low, mid = rmin * BPB // 4, (rmin * BPB + (rmax - rmin + 1) * BPB) // 4
    total = hh * hw // 4
    bounds = [(0, low), (low, mid), (mid, total)]
    for (bx, _, _), warps in blocks.items():
        for wp, got in warps.items():
            lanes = set(range(32))
            gid = {l: bx * 512 + 32 * wp + l for l in lanes}
            s = Stream(code)
            at = 0
            for r, ((b0, b1), skip, back) in enumerate(zip(bounds, skips, backs)):
                idx = {l: list(range(b0 + gid[l], b1, G)) for l in lanes}
                trips = {l: len(idx[l]) for l in lanes}
                live = {l for l in lanes if trips[l]}
                s.run(at, skip, lanes, guard=lanes - live)
                top = target(code[back])

                def addr_of(it, r=r, idx=idx):
                    out, j = {}, 0
                    for k in range(top, back + 1):
                        t = code[k]
                        if not re.search(r"\b(LDG|STG)\.", t):
                            continue
                        if r != 1:   # ushort4 global_histo[i] load and clear; uchar4 final[i]
                            base = d_fin if t.startswith("STG.E.SYS") else d_gh
                            sz = 4 if base == d_fin else 8
                        elif ".128" in t:   # uint4 global_overflow[i] load and clear
                            base, sz = d_ov, 16
                        elif t.startswith("STG"):
                            base, sz = d_fin, 4
                        else:        # global_subhisto[i + j * hh * hw / 4], j = 0..13
                            out[k] = (lambda l, j=j: d_sub + 4 * (idx[l][it] + j * total))
                            j += 1
                            continue
                        out[k] = (lambda l, base=base, sz=sz: base + sz * idx[l][it])
                    return out

                if r < 2:
                    if live:
                        s.run(skip + 1, top - 1, live)
                        s.loop(top, back, trips, addr_of)
                    at = target(code[skip])
                else:        # @P0 EXIT: lanes without work leave; the others loop, then EXIT
                    lanes = live
                    if live:
                        s.loop(top, back, trips, addr_of)
                        s.run(back + 1, end, live)
            check_warp(f"histo_final_kernel block {bx} warp {wp}", got, s)


CHECKS = {"histo": check_histo}

if __name__ == "__main__":
    a = [int(v) for v in sys.argv[2:]]
    write_image(sys.argv[1], *a[:4], seed=a[4] if len(a) > 4 else 1)
