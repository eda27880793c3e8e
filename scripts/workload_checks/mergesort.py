"""mergesort: NVIDIA cuda-samples v11.5 Samples/mergeSort/.

Re-derived from main.cpp (srand(2009), keys rand() % 65536, values 0, 1, ...; cudaMalloc
d_DstKey, d_DstVal, d_BufKey, d_BufVal, d_SrcKey, d_SrcVal, N words each; copies of d_SrcKey
and d_SrcVal; initMergeSort's d_RanksA, d_RanksB, d_LimitsA, d_LimitsB, 32768 words each) and
mergeSort.cu (mergeSort: the ikey/okey parity from the stage count, mergeSortShared, then per
stride 1024, 2048, ... < N: generateSampleRanks, mergeRanksAndIndices for A then B,
mergeElementaryIntervals; the unpaired tail's cudaMemcpyDeviceToDevice is no host copy).

This is a reference run of the algorithm: the input is re-generated with glibc's rand(); the
keys a stage reads are its runs of `stride` keys each sorted stably (what the previous stage
produced, by the sort's definition); each kernel is then run here thread by thread from the
CUDA source (its binary searches over global keys and ranks included), recording per thread
which basic blocks of the listing it runs (the ranges between the kernel's branches, located
by their order in the listing and checked against their targets) and which global words each
load and store reaches. A warp runs a block as many times as its most frequent lane (the
emulator runs a diverged warp's lowest-PC group first and merges groups at one PC, so loops of
different trip counts and skipped `if`s reconverge), with, the k-th time, the lanes that run it
at least k times: the per-warp count, the lanes entering every block, and every global access
(opcode, lanes, addresses) are compared exactly; so are the lines each array's loads and
stores touch.
"""
import re
from collections import Counter

from .common import allocate, glibc_rand, listing, same
from .listing_shape import lines_by_array, mem_accesses, same_accesses, target

APP = "mergesort"
SHARED_LIMIT = 1024
SAMPLE_STRIDE = 128
MAX_SAMPLES = 32768
K_SHARED = "_Z21mergeSortSharedKernelILj1EEvPjS0_S0_S0_j"
K_RANKS = "_Z25generateSampleRanksKernelILj1EEvPjS0_S0_jjj"
K_LIMITS = "_Z26mergeRanksAndIndicesKernelPjS_jjj"
K_MERGE = "_Z30mergeElementaryIntervalsKernelILj1EEvPjS0_S0_S0_S0_S0_jj"


# ---- the source's helpers ------------------------------------------------------------------

def idiv_up(a, b):
    return a // b + (a % b != 0)


def next_pow2(x):
    """nextPowerOfTwo: 1 << (32 - __clz(x - 1))."""
    return 1 << (x - 1).bit_length()


def search(val, L, stride, inclusive, load):
    """binarySearchInclusive/Exclusive<1>: `load(k)` reads data[k] (and records it)."""
    if L == 0:
        return 0
    pos = 0
    while stride > 0:
        new = min(pos + stride, L)
        d = load(new - 1)
        if (d <= val) if inclusive else (d < val):
            pos = new
        stride >>= 1
    return pos


def trips(stride):
    """The binary search loop's trips for a starting stride (a power of two)."""
    return stride.bit_length()


# ---- the listing's blocks ------------------------------------------------------------------

def branch_points(code):
    """Indices of the kernel's BRA and EXIT instructions, without the trailing self-loop."""
    out = [k for k, t in enumerate(code) if re.search(r"\b(BRA|EXIT)\b", t)]
    return [k for k in out if not (code[k].startswith("BRA") and target(code[k]) == k)]


class Lane:
    """What one thread runs: the listing ranges (a, b) in order, and its global accesses as
    (label, opcode, address or None for a predicated-off access)."""

    def __init__(self):
        self.ranges, self.acc, self.shared = [], [], []

    def run(self, a, b, times=1):
        self.ranges += [(a, b)] * times

    def mem(self, label, op, addr):
        self.acc.append((label, op, addr))


def check_warp(where, code, insts, lanes):
    """Compare a warp's trace with its 32 lanes' (None: no thread) runs."""
    times = [Counter(l.ranges) if l else Counter() for l in lanes]
    ranges = set().union(*times)
    count = sum((b - a + 1) * max(t[(a, b)] for t in times) for a, b in ranges)
    same(f"{where} instructions", len(insts), count)
    # The lanes entering each block, each time (at its first unpredicated instruction).
    want_entry, pcs = {}, {}
    for a, b in ranges:
        k = next((k for k in range(a, b + 1) if not code[k].startswith("@")), None)
        if k is None:
            continue
        most = max(t[(a, b)] for t in times)
        want_entry[16 * k] = sorted(sum(1 << l for l in range(32) if times[l][(a, b)] >= j)
                                    for j in range(1, most + 1))
        pcs[16 * k] = []
    for pc, mask, _, _ in insts:
        if pc in pcs:
            pcs[pc].append(mask)
    same(f"{where} lanes entering each block {{PC: [masks]}}",
         {k: sorted(v) for k, v in pcs.items()}, want_entry)
    # Global accesses: a label's k-th access of every lane that has one is one instruction.
    groups = {}
    for l, lane in enumerate(lanes):
        if not lane:
            continue
        seen = Counter()
        for label, op, addr in lane.acc:
            seen[label] += 1
            groups.setdefault((label, seen[label], op), []).append((l, addr))
    want = []
    for (_, _, op), members in groups.items():
        live = [(l, a) for l, a in sorted(members) if a is not None]
        want.append((op, sum(1 << l for l, _ in live), tuple(a for _, a in live)))
    same_accesses(f"{where} global accesses", mem_accesses(insts), sorted(want))
    # The data-dependent shared accesses a kernel's lanes record (merge's searches and
    # scatter: (pc, opcode, address or None)), against the trace's at the PCs they name.
    if any(lane and lane.shared for lane in lanes):
        pcs, groups = set(), {}
        for l, lane in enumerate(lanes):
            seen = Counter()
            for pc, op, addr in (lane.shared if lane else []):
                pcs.add(pc)
                seen[pc] += 1
                groups.setdefault((pc, seen[pc], op), []).append((l, addr))
        want = []
        for (_, _, op), members in groups.items():
            live = [(l, a) for l, a in sorted(members) if a is not None]
            want.append((op, sum(1 << l for l, _ in live), tuple(a for _, a in live)))
        got = sorted((i[2].split(".")[0], i[1], tuple(i[3])) for i in insts if i[0] in pcs)
        same_accesses(f"{where} data-dependent shared accesses", got, sorted(want))


SHARED_BYTES = {K_SHARED: 4 * 2 * SHARED_LIMIT,            # s_key, s_val[1024]
                K_RANKS: 0, K_LIMITS: 0,
                K_MERGE: 4 * 2 * 2 * SAMPLE_STRIDE + 4 * 6}  # s_key, s_val[256], 6 words


def check_launch(tag, header, blocks, name, grid, block, lanes_of):
    same(f"{tag} kernel", header.get("kernel name"), name)
    same(f"{tag} shared memory", header.get("shmem"), str(SHARED_BYTES[name]))
    same(f"{tag} grid", header["grid dim"], f"({grid},1,1)")
    same(f"{tag} block", header["block dim"], f"({block},1,1)")
    same(f"{tag} blocks", sorted(blocks), [(x, 0, 0) for x in range(grid)])
    code = listing(APP, name)
    for (bx, _, _), warps in blocks.items():
        same(f"{tag} block {bx} warps", sorted(warps), list(range(-(-block // 32))))
        lanes = lanes_of(bx)
        for w, insts in warps.items():
            check_warp(f"{tag} block {bx} warp {w}", code, insts, lanes[32 * w:32 * w + 32])


# ---- the kernels, thread by thread ---------------------------------------------------------

def shared_lanes(bx, code, dst_key, dst_val, src_key, src_val):
    """mergeSortSharedKernel<1>(ikey, ival, d_SrcKey, d_SrcVal, 1024), 512 threads: its
    stage loop (stride 1, 2, ..., 512), each stage with two binary searches of log2(stride) + 1
    trips over shared memory (no global access, no data-dependent branch)."""
    b = branch_points(code)
    # b[0] arrayLength < 2 skips the stages; b[1], b[3] L == 0 skip a search; b[2], b[4]
    # the searches' loops; b[5] the stage loop; b[6] the EXIT.
    stage = target(code[b[5]])
    out = []
    for tid in range(SHARED_LIMIT // 2):
        lane, g = Lane(), bx * SHARED_LIMIT + tid
        lane.run(0, b[0])
        lane.run(b[0] + 1, stage - 1)
        stride = 1
        while stride < SHARED_LIMIT:
            lane.run(stage, b[1])
            lane.run(b[1] + 1, target(code[b[2]]) - 1)
            lane.run(target(code[b[2]]), b[2], trips(stride))
            lane.run(b[2] + 1, b[3])
            lane.run(b[3] + 1, target(code[b[4]]) - 1)
            lane.run(target(code[b[4]]), b[4], trips(stride))
            lane.run(b[4] + 1, b[5])
            stride <<= 1
        lane.run(b[5] + 1, b[6])
        for k, half in enumerate((0, SHARED_LIMIT // 2)):
            lane.mem(f"key{k}", "LDG", src_key + 4 * (g + half))
            lane.mem(f"val{k}", "LDG", src_val + 4 * (g + half))
            lane.mem(f"okey{k}", "STG", dst_key + 4 * (g + half))
            lane.mem(f"oval{k}", "STG", dst_val + 4 * (g + half))
        out.append(lane)
    return out


def thread_count(stride, n):
    last = n % (2 * stride)
    return (n + 2 * stride - last) // (2 * SAMPLE_STRIDE) if last > stride \
        else (n - last) // (2 * SAMPLE_STRIDE)


def two_part_ranges(code):
    """generateSampleRanks and mergeRanksAndIndices share a shape: b[0] the pos >= threadCount
    EXIT, b[1] i >= samplesA skips part A, b[2] an empty search skips A's search, b[3] A's
    search loop, b[4] the i >= samplesB EXIT, b[5] B's empty-search skip, b[6] B's search loop,
    b[7] the EXIT."""
    b = branch_points(code)
    same("two-part kernel: branches", len(b), 8)
    same("two-part kernel: A's skip lands after its search", target(code[b[2]]), b[3] + 1)
    return b


def ranks_lanes(bx, code, b, ikey, ranks_a, ranks_b, stride, n, keys, out_ranks):
    """generateSampleRanksKernel<1>(d_RanksA, d_RanksB, ikey, stride, N, threadCount)."""
    tc = thread_count(stride, n)
    lanes = []
    for tid in range(256):
        pos, lane = bx * 256 + tid, Lane()
        lane.run(0, b[0])
        if pos >= tc:
            lanes.append(lane)
            continue
        i = pos & (stride // SAMPLE_STRIDE - 1)
        base = (pos - i) * 2 * SAMPLE_STRIDE
        elems_b = min(stride, n - base - stride)
        samples_a, samples_b = idiv_up(stride, SAMPLE_STRIDE), idiv_up(elems_b, SAMPLE_STRIDE)
        lane.run(b[0] + 1, b[1])
        if i < samples_a:
            lane.run(b[1] + 1, b[2])
            r = base // SAMPLE_STRIDE + i
            lane.mem("rankA", "STG", ranks_a + 4 * r)
            out_ranks[0][r] = i * SAMPLE_STRIDE
            res = 0
            if elems_b:
                lane.run(b[2] + 1, target(code[b[3]]) - 1)
                k = base + i * SAMPLE_STRIDE
                lane.mem("keyA", "LDG", ikey + 4 * k)
                lane.run(target(code[b[3]]), b[3], trips(next_pow2(elems_b)))

                def load(j, lane=lane, at=base + stride):
                    lane.mem("searchA", "LDG", ikey + 4 * (at + j))
                    return keys[at + j]
                res = search(keys[k], elems_b, next_pow2(elems_b), False, load)
            lane.run(b[3] + 1, target(code[b[1]]) - 1)
            lane.mem("rankB", "STG", ranks_b + 4 * r)
            out_ranks[1][r] = res
        lane.run(target(code[b[1]]), b[4])
        if i < samples_b:
            lane.run(b[4] + 1, b[5])
            r = base // SAMPLE_STRIDE + stride // SAMPLE_STRIDE + i
            lane.mem("rankB2", "STG", ranks_b + 4 * r)
            out_ranks[1][r] = i * SAMPLE_STRIDE
            res = 0
            if stride:
                lane.run(b[5] + 1, target(code[b[6]]) - 1)
                k = base + stride + i * SAMPLE_STRIDE
                lane.mem("keyB", "LDG", ikey + 4 * k)
                lane.run(target(code[b[6]]), b[6], trips(next_pow2(stride)))

                def load(j, lane=lane, at=base):
                    lane.mem("searchB", "LDG", ikey + 4 * (at + j))
                    return keys[at + j]
                res = search(keys[k], stride, next_pow2(stride), True, load)
            lane.run(b[6] + 1, b[7])
            lane.mem("rankA2", "STG", ranks_a + 4 * r)
            out_ranks[0][r] = res
        lanes.append(lane)
    return lanes


def limits_lanes(bx, code, b, d_limits, d_ranks, ranks, stride, n, out_limits):
    """mergeRanksAndIndicesKernel(d_Limits, d_Ranks, stride, N, threadCount); `ranks` the
    words generateSampleRanks wrote ({index: value})."""
    tc = thread_count(stride, n)
    lanes = []
    for tid in range(256):
        pos, lane = bx * 256 + tid, Lane()
        lane.run(0, b[0])
        if pos >= tc:
            lanes.append(lane)
            continue
        i = pos & (stride // SAMPLE_STRIDE - 1)
        seg = (pos - i) * 2 * SAMPLE_STRIDE
        base = (pos - i) * 2
        elems_b = min(stride, n - seg - stride)
        samples_a, samples_b = idiv_up(stride, SAMPLE_STRIDE), idiv_up(elems_b, SAMPLE_STRIDE)

        def word(j, label, lane=lane):
            lane.mem(label, "LDG", d_ranks + 4 * (base + j))
            return ranks[base + j]
        lane.run(b[0] + 1, b[1])
        if i < samples_a:
            lane.run(b[1] + 1, b[2])
            val = word(i, "rankA")
            res = 0
            if samples_b:
                lane.run(b[2] + 1, target(code[b[3]]) - 1)
                lane.run(target(code[b[3]]), b[3], trips(next_pow2(samples_b)))
                res = search(val, samples_b, next_pow2(samples_b), False,
                             lambda j: word(samples_a + j, "searchA"))
            lane.run(b[3] + 1, target(code[b[1]]) - 1)
            lane.mem("limitA", "STG", d_limits + 4 * (base + res + i))
            out_limits[base + res + i] = val
        lane.run(target(code[b[1]]), b[4])
        if i < samples_b:
            lane.run(b[4] + 1, b[5])
            val = word(samples_a + i, "rankB")
            res = 0
            if samples_a:
                lane.run(b[5] + 1, target(code[b[6]]) - 1)
                lane.run(target(code[b[6]]), b[6], trips(next_pow2(samples_a)))
                res = search(val, samples_a, next_pow2(samples_a), True,
                             lambda j: word(j, "searchB"))
            lane.run(b[6] + 1, b[7])
            lane.mem("limitB", "STG", d_limits + 4 * (base + res + i))
            out_limits[base + res + i] = val
        lanes.append(lane)
    return lanes


def merge_lanes(bx, code, b, arrays, limits, stride, n, keys):
    """mergeElementaryIntervalsKernel<1>(okey, oval, ikey, ival, d_LimitsA, d_LimitsB, stride,
    N), 128 threads. b[0] tid != 0 skips the limits' reads; b[1], b[2] the A and B loads
    (tid < lenSrcA, lenSrcB); b[3] tid < lenA enters A's search, b[4] lenB == 0 skips it;
    b[5], b[6] likewise for B; b[7] A's stores; b[8] the EXIT of tid >= lenB; b[9] EXIT."""
    okey, oval, ikey, ival, lim_a, lim_b = arrays
    interval = bx & (2 * stride // SAMPLE_STRIDE - 1)
    seg = (bx - interval) * SAMPLE_STRIDE
    elems_b = min(stride, n - seg - stride)
    samples = idiv_up(stride, SAMPLE_STRIDE) + idiv_up(elems_b, SAMPLE_STRIDE)
    start_a, start_b = limits[0][bx], limits[1][bx]
    more = interval + 1 < samples
    end_a = limits[0][bx + 1] if more else stride
    end_b = limits[1][bx + 1] if more else elems_b
    len_a, len_b = end_a - start_a, end_b - start_b
    dst_a = start_a + start_b
    dst_b = dst_a + len_a
    t = lambda k: target(code[b[k]])  # noqa: E731
    # merge()'s data: s_key[0..lenA) the A keys, s_key[128..128 + lenB) the B keys; its
    # searches (unrolled: 8 steps from stride 128, one LDS each, at the listing's LDSs in the
    # search blocks) and the scatter (the predicated STSs after the barrier, key then value).
    key_a = [keys[seg + start_a + j] for j in range(len_a)]
    key_b = [keys[seg + stride + start_b + j] for j in range(len_b)]
    lds_a = [k for k in range(b[4] + 1, t(4)) if code[k].startswith("LDS")]
    lds_b = [k for k in range(b[6] + 1, t(6)) if code[k].startswith("LDS")]
    scatter = [k for k in range(t(5), b[7]) if re.match(r"@!?P\d STS", code[k])]
    same("merge's search steps", (len(lds_a), len(lds_b), len(scatter)), (8, 8, 4))
    lanes = []
    for tid in range(SAMPLE_STRIDE):
        lane = Lane()
        lane.run(0, b[0])
        if tid == 0:
            lane.run(b[0] + 1, t(0) - 1)
            lane.mem("limA", "LDG", lim_a + 4 * bx)
            lane.mem("limB", "LDG", lim_b + 4 * bx)
            # (Predicated: the next limits only when intervalI + 1 < segmentSamples.)
            lane.mem("limA1", "LDG", lim_a + 4 * (bx + 1) if more else None)
            lane.mem("limB1", "LDG", lim_b + 4 * (bx + 1) if more else None)
        lane.run(t(0), b[1])
        if tid < len_a:
            lane.run(b[1] + 1, t(1) - 1)
            lane.mem("keyA", "LDG", ikey + 4 * (seg + start_a + tid))
            lane.mem("valA", "LDG", ival + 4 * (seg + start_a + tid))
        lane.run(t(1), b[2])
        if tid < len_b:
            lane.run(b[2] + 1, t(2) - 1)
            lane.mem("keyB", "LDG", ikey + 4 * (seg + stride + start_b + tid))
            lane.mem("valB", "LDG", ival + 4 * (seg + stride + start_b + tid))
        lane.run(t(2), b[3])
        pos_a = pos_b = None
        if tid < len_a:
            lane.run(b[3] + 1, b[4])
            if len_b:
                lane.run(b[4] + 1, t(4) - 1)
            steps = iter(lds_a)

            def load_b(j, lane=lane, steps=steps):
                lane.shared.append((16 * next(steps), "LDS", 4 * (SAMPLE_STRIDE + j)))
                return key_b[j]
            pos_a = search(key_a[tid], len_b, SAMPLE_STRIDE, False, load_b) + tid
            lane.run(t(4), t(3) - 1)
        lane.run(t(3), b[5])
        if tid < len_b:
            lane.run(b[5] + 1, b[6])
            if len_a:
                lane.run(b[6] + 1, t(6) - 1)
            steps = iter(lds_b)

            def load_a(j, lane=lane, steps=steps):
                lane.shared.append((16 * next(steps), "LDS", 4 * j))
                return key_a[j]
            pos_b = search(key_b[tid], len_a, SAMPLE_STRIDE, True, load_a) + tid
            lane.run(t(6), t(5) - 1)
        lane.run(t(5), b[7])
        # dstKey[dstPosA] = keyA, dstVal[dstPosA] (s_val is 256 words on), then B's.
        for k, (pos, off) in enumerate(((pos_a, 0), (pos_a, 256), (pos_b, 0), (pos_b, 256))):
            lane.shared.append((16 * scatter[k], "STS",
                                None if pos is None else 4 * (pos + off)))
        if tid < len_a:
            lane.run(b[7] + 1, t(7) - 1)
            lane.mem("outKeyA", "STG", okey + 4 * (seg + dst_a + tid))
            lane.mem("outValA", "STG", oval + 4 * (seg + dst_a + tid))
        lane.run(t(7), b[8])
        if tid < len_b:
            lane.run(b[8] + 1, b[9])
            lane.mem("outKeyB", "STG", okey + 4 * (seg + dst_b + tid))
            lane.mem("outValB", "STG", oval + 4 * (seg + dst_b + tid))
        lanes.append(lane)
    return lanes


# ---- the host program ----------------------------------------------------------------------

def check_mergesort(copies, kernels, args):
    n = int(args.get("n", 65536))
    rand = glibc_rand(2009)
    keys = [next(rand) % 65536 for _ in range(n)]
    size = 4 * n
    dst_key, dst_val, buf_key, buf_val, src_key, src_val, ranks_a, ranks_b, lim_a, lim_b = \
        allocate([size] * 6 + [4 * MAX_SAMPLES] * 4)
    same("host copies", copies, [(src_key, size), (src_val, size)])
    arrays = {"d_DstKey": (dst_key, size), "d_DstVal": (dst_val, size),
              "d_BufKey": (buf_key, size), "d_BufVal": (buf_val, size),
              "d_SrcKey": (src_key, size), "d_SrcVal": (src_val, size),
              "d_RanksA": (ranks_a, 4 * MAX_SAMPLES), "d_RanksB": (ranks_b, 4 * MAX_SAMPLES),
              "d_LimitsA": (lim_a, 4 * MAX_SAMPLES), "d_LimitsB": (lim_b, 4 * MAX_SAMPLES)}
    spans = {k: (a, a + s) for k, (a, s) in arrays.items()}
    stages, stride = 0, SHARED_LIMIT
    while stride < n:
        stride, stages = stride * 2, stages + 1
    ikey, ival, okey, oval = (buf_key, buf_val, dst_key, dst_val) if stages & 1 \
        else (dst_key, dst_val, buf_key, buf_val)
    plan = [K_SHARED]
    stride = SHARED_LIMIT
    while stride < n:
        plan += [K_RANKS, K_LIMITS, K_LIMITS, K_MERGE]
        stride *= 2
    same("launches", [h.get("kernel name") for h, _ in kernels], plan)

    want_lines, trace_lines = {}, {}

    def run(tag, k, name, grid, block, lanes_of):
        header, blocks = kernels[k]
        all_lanes = {}

        def cached(bx):
            all_lanes[bx] = lanes_of(bx)
            return all_lanes[bx]
        check_launch(tag, header, blocks, name, grid, block, cached)
        for lanes in all_lanes.values():
            for lane in lanes:
                for _, op, a in lane.acc:
                    if a is None:
                        continue
                    arr = next(nm for nm, (lo, hi) in spans.items() if lo <= a < hi)
                    want_lines.setdefault((arr, op), set()).add(a // 128)
        for warps in blocks.values():
            for w, insts in warps.items():
                lines_by_array(insts, spans, "LDG", trace_lines, tag)
                lines_by_array(insts, spans, "STG", trace_lines, tag)

    code = listing(APP, K_SHARED)
    run("launch 1 (mergeSortShared)", 0, K_SHARED, n // SHARED_LIMIT, SHARED_LIMIT // 2,
        lambda bx: shared_lanes(bx, code, ikey, ival, src_key, src_val))
    # The keys mergeSortShared leaves: each run of 1024 sorted, stably (values = indices).
    order = stable_runs(keys, n, SHARED_LIMIT)
    k, stride = 1, SHARED_LIMIT
    rcode, lcode, mcode = listing(APP, K_RANKS), listing(APP, K_LIMITS), listing(APP, K_MERGE)
    rb, lb = two_part_ranges(rcode), two_part_ranges(lcode)
    mb = branch_points(mcode)
    same("mergeElementaryIntervals: branches", len(mb), 10)
    while stride < n:
        stage_keys = [keys[j] for j in order]
        tc = thread_count(stride, n)
        grid = idiv_up(tc, 256)
        ranks = ({}, {})
        run(f"launch {k + 1} (generateSampleRanks, stride {stride})", k, K_RANKS, grid, 256,
            lambda bx: ranks_lanes(bx, rcode, rb, ikey, ranks_a, ranks_b, stride, n,
                                   stage_keys, ranks))
        limits = ({}, {})
        run(f"launch {k + 2} (mergeRanksAndIndices A, stride {stride})", k + 1, K_LIMITS, grid,
            256, lambda bx: limits_lanes(bx, lcode, lb, lim_a, ranks_a, ranks[0], stride, n,
                                         limits[0]))
        run(f"launch {k + 3} (mergeRanksAndIndices B, stride {stride})", k + 2, K_LIMITS, grid,
            256, lambda bx: limits_lanes(bx, lcode, lb, lim_b, ranks_b, ranks[1], stride, n,
                                         limits[1]))
        last = n % (2 * stride)
        pairs = idiv_up(n, SAMPLE_STRIDE) if last > stride else (n - last) // SAMPLE_STRIDE
        run(f"launch {k + 4} (mergeElementaryIntervals, stride {stride})", k + 3, K_MERGE,
            pairs, SAMPLE_STRIDE,
            lambda bx: merge_lanes(bx, mcode, mb, (okey, oval, ikey, ival, lim_a, lim_b),
                                   limits, stride, n, stage_keys))
        # The stage's result: runs of 2 * stride sorted stably (an unpaired tail, copied, is
        # already sorted).
        order = stable_runs(keys, n, 2 * stride)
        ikey, okey, ival, oval = okey, ikey, oval, ival
        k, stride = k + 4, stride * 2
    same("arrays and lines their loads and stores touch",
         {key: sorted(v) for key, v in trace_lines.items()},
         {key: sorted(v) for key, v in want_lines.items()})


def stable_runs(keys, n, run):
    """The element order after sorting each run of `run` keys stably."""
    out = []
    for s in range(0, n, run):
        out += sorted(range(s, min(n, s + run)), key=lambda j: keys[j])
    return out


CHECKS = {"mergesort": check_mergesort}
