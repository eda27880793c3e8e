"""babelstream: microgpusim test-apps/BabelStream/CUDAStream.cu and main.cpp.

Re-derived from the CUDA source: the constructor allocates a, b, c (n elements each) and sum
(DOT_NUM_BLOCKS = 256 elements), in that order; nothing is copied to the device (init_kernel
writes the starting values). main's run_all launches init_kernel once, then `times` rounds of
copy, mul, add, triad, dot. The first five are one thread per element, n / TBSIZE blocks of
TBSIZE = 1024, straight-line code (one instruction per listing line up to the EXIT):
  init:  a[i], b[i], c[i] = ...     copy: c[i] = a[i]        mul: b[i] = s * c[i]
  add:   c[i] = a[i] + b[i]         triad: a[i] = b[i] + s * c[i]
dot_kernel: 256 blocks of 1024; each thread clears tb_sum[tid], walks i = global id, + 1024 *
256, ... < n accumulating a[i] * b[i] (a do-while loop guarded by a skip branch in the
listing), then the tree reduction over offset = 512, 256, ..., 1 (a barrier, then the lanes with
tid < offset - the listing's `@!P1` instructions - add tb_sum[tid + offset]), and thread 0 stores
sum[blockIdx.x]: the other lanes leave at the listing's `@P0 EXIT`.

The per-warp PC and mask sequences are built from those trip counts and conditions over the
listing's blocks (located by pattern: skip branches, backward branches and their targets,
EXITs); a predicated instruction's mask is the active lanes whose guard holds (Accel-Sim).
Global and shared addresses are compared per warp as multisets of per-lane tuples.
"""
import re

from .common import allocate, by_class, lines_of, listing, same, same_multiset

TBSIZE, DOT_NUM_BLOCKS = 1024, 256
FULL = 0xFFFFFFFF


def branches(code):
    """[(index, target index, text)] of the listing's predicated branches."""
    out = []
    for k, t in enumerate(code):
        m = re.match(r"@!?P\d BRA 0x([0-9a-f]+)$", t)
        if m:
            out.append((k, int(m.group(1), 16) // 16, t))
    return out


def mem(insts, prefix):
    """The lane-address tuples of a warp's `prefix` instructions that have active lanes (an
    instruction predicated off in every lane has none: its mask is checked with the PCs)."""
    return [tuple(i[3]) for i in insts if i[2].split(".")[0] == prefix and i[3]]


# The streaming kernels: (mangled name stem, arrays read, arrays written), from the source.
STREAM = {
    "init": ("_Z11init_kernelI{t}EvPT_S1_S1_S0_S0_S0_", (), ("a", "b", "c")),
    "copy": ("_Z11copy_kernelI{t}EvPKT_PS0_", ("a",), ("c",)),
    "mul": ("_Z10mul_kernelI{t}EvPT_PKS0_", ("c",), ("b",)),
    "add": ("_Z10add_kernelI{t}EvPKT_S2_PS0_", ("a", "b"), ("c",)),
    "triad": ("_Z12triad_kernelI{t}EvPT_PKS0_S3_", ("b", "c"), ("a",)),
}
DOT = "_Z10dot_kernelI{t}EvPKT_S2_PS0_i"


def check_header(what, header, blocks, name, grid, shmem):
    same(f"{what} kernel name", header["kernel name"], name)
    same(f"{what} grid", header["grid dim"], f"({grid},1,1)")
    same(f"{what} block", header["block dim"], f"({TBSIZE},1,1)")
    same(f"{what} shared memory", header["shmem"], str(shmem))
    same(f"{what} blocks", sorted(blocks), [(x, 0, 0) for x in range(grid)])
    for tb, warps in blocks.items():
        same(f"{what} block {tb[0]} warps", sorted(warps), list(range(TBSIZE // 32)))


def check_stream(what, header, blocks, kname, reads, writes, n, es, base, touched):
    code = listing("babelstream", kname)
    end = code.index("EXIT") + 1              # straight-line: every line up to the EXIT
    grid = n // TBSIZE
    check_header(what, header, blocks, kname, grid, 0)
    for (bx, _, _), warps in blocks.items():
        for w, insts in warps.items():
            where = f"{what} block {bx} warp {w}"
            same(f"{where} instructions", len(insts), end)
            same(f"{where} PCs and masks", [(x[0] // 16, x[1]) for x in insts],
                 [(k, FULL) for k in range(end)])
            idx = [bx * TBSIZE + 32 * w + lane for lane in range(32)]
            same(f"{where} by class", {c: v for c, v in by_class(insts).items() if c in
                                        ("ldg", "stg")},
                 {c: v for c, v in (("ldg", len(reads)), ("stg", len(writes))) if v})
            same_multiset(f"{where} loads", mem(insts, "LDG"),
                          [tuple(base[x] + es * i for i in idx) for x in reads])
            same_multiset(f"{where} stores", mem(insts, "STG"),
                          [tuple(base[x] + es * i for i in idx) for x in writes])
            note(touched, base, es, n, "load", mem(insts, "LDG"))
            note(touched, base, es, n, "store", mem(insts, "STG"))
    want = {(x, "load"): lines_of(base[x] + es * i for i in range(n)) for x in reads}
    want.update({(x, "store"): lines_of(base[x] + es * i for i in range(n)) for x in writes})
    return want


def note(touched, base, es, n, kind, accesses):
    """Attribute each lane's address to the array holding it; collect its line."""
    sizes = {"a": n, "b": n, "c": n, "sum": DOT_NUM_BLOCKS}
    for acc in accesses:
        for addr in acc:
            arr = next((x for x in base if base[x] <= addr < base[x] + es * sizes[x]), "none")
            touched.setdefault((arr, kind), set()).add(addr // 128)


def dot_shape(code):
    br = branches(code)
    fwd = [(k, tg) for k, tg, _ in br if tg > k]
    back = [(k, tg) for k, tg, _ in br if tg < k]
    assert len(fwd) == 2 and len(back) == 2, br
    (skip, after), (skip_red, exit0) = fwd
    (b1, t1), (b2, t2) = back
    assert skip < t1 < b1 < after < skip_red < t2 < b2 < exit0
    assert re.match(r"@P0 EXIT$", code[exit0])
    return dict(skip=skip, after=after, t1=t1, b1=b1, skip_red=skip_red, t2=t2, b2=b2,
                exit0=exit0, last=code.index("EXIT"))


def check_dot(what, header, blocks, kname, n, es, base, touched):
    code = listing("babelstream", kname)
    s = dot_shape(code)
    check_header(what, header, blocks, kname, DOT_NUM_BLOCKS, TBSIZE * es)
    stride = TBSIZE * DOT_NUM_BLOCKS
    for (bx, _, _), warps in blocks.items():
        for w, insts in warps.items():
            where = f"{what} block {bx} warp {w}"
            tids = [32 * w + lane for lane in range(32)]
            first = [bx * TBSIZE + t for t in tids]
            trips = [len(range(i, n, stride)) for i in first]
            # n is a multiple of TBSIZE (the constructor's check), so a warp's lanes agree.
            assert len(set(trips)) == 1, "divergent grid-stride loop: not modelled"
            trip = trips[0]
            run = lambda a, b, m=FULL: [(k, m) for k in range(a, b)]
            seq = run(0, s["skip"]) + [(s["skip"], FULL if trip == 0 else 0)]
            lds, sts, ldg = [], [tuple(es * t for t in tids)], []
            if trip:
                seq += run(s["skip"] + 1, s["t1"])
                for t in range(trip):  # body: from the backward branch's target to it
                    seq += run(s["t1"], s["b1"]) + [(s["b1"], FULL if t < trip - 1 else 0)]
                    ldg += [tuple(base[x] + es * (i + t * stride) for i in first)
                            for x in ("a", "b")]
                seq += run(s["b1"] + 1, s["after"])   # BSYNC, the store of the sum
                sts.append(tuple(es * t for t in tids))
            seq += run(s["after"], s["skip_red"]) + [(s["skip_red"], 0)]  # blockDim / 2 != 0
            seq += run(s["skip_red"] + 1, s["t2"])
            offset = TBSIZE // 2
            while offset > 0:
                lanes = [t for t in tids if t < offset]
                mask = sum(1 << (t - 32 * w) for t in lanes)
                for k in range(s["t2"], s["b2"]):
                    # `@!P1` is the `local_i < offset` condition of the source's `if`.
                    seq.append((k, mask if code[k].startswith("@!P1 ") else FULL))
                seq.append((s["b2"], FULL if offset > 1 else 0))
                if lanes:
                    lds.append(tuple(es * t for t in lanes))
                    lds.append(tuple(es * (t + offset) for t in lanes))
                    sts.append(tuple(es * t for t in lanes))
                offset //= 2
            seq.append((s["exit0"], FULL & ~(1 if w == 0 else 0)))   # local_i != 0 leave
            stg = []
            if w == 0:
                seq += run(s["exit0"] + 1, s["last"] + 1, 1)
                lds.append((0,))
                stg.append((base["sum"] + es * bx,))
            same(f"{where} instructions", len(insts), len(seq))
            same(f"{where} PCs and masks", [(x[0] // 16, x[1]) for x in insts], seq)
            same(f"{where} barriers", by_class(insts).get("bar", 0), 10)
            same_multiset(f"{where} global loads", mem(insts, "LDG"), ldg)
            same_multiset(f"{where} global stores", mem(insts, "STG"), stg)
            same_multiset(f"{where} shared loads", mem(insts, "LDS"), lds)
            same_multiset(f"{where} shared stores", mem(insts, "STS"), sts)
            note(touched, base, es, n, "load", mem(insts, "LDG"))
            note(touched, base, es, n, "store", mem(insts, "STG"))
    want = {(x, "load"): lines_of(base[x] + es * i for i in range(n)) for x in ("a", "b")}
    want[("sum", "store")] = lines_of(base["sum"] + es * i for i in range(DOT_NUM_BLOCKS))
    return want


def check_babelstream(copies, kernels, args):
    n = int(args.get("n", 4096))
    times = int(args.get("times", 1))
    f64 = args.get("dtype", "f32") == "f64"
    es, t = (8, "d") if f64 else (4, "f")
    a, b, c, s = allocate([es * n] * 3 + [es * DOT_NUM_BLOCKS])
    base = {"a": a, "b": b, "c": c, "sum": s}
    same("host copies", copies, [])
    order = ["init"] + ["copy", "mul", "add", "triad", "dot"] * times
    same("kernels", len(kernels), len(order))
    for k, (what, (header, blocks)) in enumerate(zip(order, kernels)):
        touched = {}
        label = f"launch {k + 1} ({what})"
        if what == "dot":
            want = check_dot(label, header, blocks, DOT.format(t=t), n, es, base, touched)
        else:
            name, reads, writes = STREAM[what]
            want = check_stream(label, header, blocks, name.format(t=t), reads, writes, n, es,
                                base, touched)
        for key in sorted(set(want) | set(touched)):
            same(f"{label} lines {key[1]} of {key[0]}", touched.get(key, set()),
                 want.get(key, set()))


CHECKS = {"babelstream": check_babelstream}
