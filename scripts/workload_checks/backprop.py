"""backprop: Rodinia 3.1 cuda/backprop (backprop_cuda.cu's bpnn_train_cuda, the kernels in
backprop_cuda_kernel.cu; facetrain.c fixes the net at `in` inputs, 16 hidden units, 1 output).

Re-derived from the CUDA source. Host order (bpnn_train_cuda): cudaMalloc input_cuda (in + 1),
output_hidden_cuda (hid + 1), input_hidden_cuda ((in + 1) x (hid + 1)), hidden_partial_sum
(in / 16 x WIDTH); copy input_cuda, input_hidden_cuda; launch bpnn_layerforward_CUDA; later
cudaMalloc hidden_delta_cuda (hid + 1), input_prev_weights_cuda ((in + 1) x (hid + 1)); copy
hidden_delta, input_prev_weights, input_hidden again; launch bpnn_adjust_weights_cuda. Both
launches: grid (1, in / 16), blocks of 16 x 16 (a warp: ty = 2w, 2w + 1, tx = lane % 16).

Neither kernel has a loop or a data-dependent branch: the layerforward's `for i <= log2(16)` is
unrolled in the listing (four reduction steps, one per barrier-delimited segment, each with
its `if (ty % power_two == 0)` as a predicate on the shared accesses), so every warp runs the
listing's lines in order to its final EXIT, except that at the `@P0 EXIT` the lanes with
tx != 0 (layerforward) or with ty != 0 or by != 0 (adjust_weights) leave. The masks checked:
every unpredicated instruction (the warp's live lanes), every memory instruction, barrier and
EXIT; the masks of predicated arithmetic are the compiler's (its expansion of `%`) and are not
derived. Addresses (global and shared) are compared per warp as multisets of lane tuples; per
array the lines loads and stores touch against the source's index expressions over all threads.
The data do not steer anything (no data-dependent part).
"""
import re

from .common import allocate, by_class, lines_of, listing, same, same_multiset

HID, HEIGHT, WIDTH = 16, 16, 16
FULL = 0xFFFFFFFF
MEMORY = ("LDG", "STG", "LDS", "STS")


def kind(text):
    """The memory kind of a listing line (LDG, STG, LDS, STS) or None."""
    op = re.sub(r"^@!?P\d ", "", text).split()[0].split(".")[0]
    return op if op in MEMORY else None


def lanes_mask(pred, threads):
    """The mask of a warp's lanes (threads: [(tx, ty)] by lane) for which pred holds."""
    return sum(1 << k for k, t in enumerate(threads) if pred(*t))


def compare_warp(where, insts, want_masks, want_mem):
    """want_masks: per listing line in order, its mask or None (not derived); want_mem: per
    kind, the list of lane-address tuples."""
    same(f"{where} instructions", len(insts), len(want_masks))
    same(f"{where} PCs", [x[0] // 16 for x in insts], [k for k, _ in want_masks])
    for x, (k, m) in zip(insts, want_masks):
        if m is not None:
            same(f"{where} mask at {16 * k:#06x}", x[1], m)
    for op in MEMORY:
        same_multiset(f"{where} {op} addresses",
                      [tuple(x[3]) for x in insts if x[2].split(".")[0] == op and x[3]],
                      want_mem.get(op, []))


def layerforward(code, by, w, base):
    """The expected masks and accesses of warp w of block (0, by) of bpnn_layerforward_CUDA."""
    threads = [(lane % 16, 2 * w + lane // 16) for lane in range(32)]
    hid = HID
    index = lambda tx, ty: (hid + 1) * HEIGHT * by + (hid + 1) * ty + tx + 1 + (hid + 1)
    index_in = lambda tx, ty: HEIGHT * by + ty + 1
    # The shared arrays in declaration order: input_node[16] at 0, weight_matrix[16][16] at
    # 0x40 (the listing's last `LDS.U R7, [R5.X4+0x40]` reads weight_matrix[0][ty]).
    node = lambda ty: 4 * ty
    wm = lambda ty, tx: 0x40 + 4 * (WIDTH * ty + tx)
    tx0 = lanes_mask(lambda tx, ty: tx == 0, threads)
    exit_at = next(k for k, t in enumerate(code) if re.match(r"@P\d EXIT$", t))
    last = code.index("EXIT")
    masks, mem = [], {"LDG": [], "STG": [], "LDS": [], "STS": []}
    bars = [k for k, t in enumerate(code) if t.startswith("BAR.SYNC")]
    step_of = {}                       # barrier segment -> power_two of its reduction step
    for k, t in enumerate(code):
        m = re.match(r"@!?P\d LDS\S* R\d+, \[R\d+\+0x([0-9a-f]+)\]", t)
        if m:   # weight_matrix[ty + power_two / 2][tx]: a row is 0x40 bytes
            seg = sum(1 for b in bars if b < k)
            step_of[seg] = 2 * int(m.group(1), 16) // 0x40
    for k in range(last + 1):
        t = code[k]
        live = FULL if k <= exit_at else tx0
        pred = re.match(r"@(!?)P\d ", t)
        seg = sum(1 for b in bars if b < k)
        op = kind(t)
        if k == exit_at:
            masks.append((k, FULL & ~tx0))       # `if (tx == 0)`: the others leave
            continue
        if not pred:
            masks.append((k, live))
        elif seg == 0 and op:                   # `if (tx == 0) input_node[ty] = ...`
            masks.append((k, tx0))
        elif seg in step_of and op:             # `if (ty % power_two == 0)`
            p = step_of[seg]
            masks.append((k, lanes_mask(lambda tx, ty: ty % p == 0, threads)))
        else:
            masks.append((k, None))              # predicated arithmetic: not derived
    # The accesses, statement by statement.
    live_t = threads
    tx0_t = [t for t in threads if t[0] == 0]
    mem["LDG"].append(tuple(base["input"] + 4 * index_in(*t) for t in tx0_t))
    mem["STS"].append(tuple(node(t[1]) for t in tx0_t))
    mem["LDG"].append(tuple(base["input_hidden"] + 4 * index(*t) for t in live_t))
    mem["STS"].append(tuple(wm(t[1], t[0]) for t in live_t))
    mem["LDS"].append(tuple(wm(t[1], t[0]) for t in live_t))
    mem["LDS"].append(tuple(node(t[1]) for t in live_t))
    mem["STS"].append(tuple(wm(t[1], t[0]) for t in live_t))
    for i in range(1, 5):
        p = 2 ** i
        act = [t for t in threads if t[1] % p == 0]
        if act:
            mem["LDS"].append(tuple(wm(t[1], t[0]) for t in act))
            mem["LDS"].append(tuple(wm(t[1] + p // 2, t[0]) for t in act))
            mem["STS"].append(tuple(wm(t[1], t[0]) for t in act))
    mem["LDS"].append(tuple(wm(t[1], t[0]) for t in live_t))
    mem["STG"].append(tuple(base["input_hidden"] + 4 * index(*t) for t in live_t))
    mem["LDS"].append(tuple(wm(t[0], t[1]) for t in tx0_t))      # weight_matrix[tx][ty]
    mem["STG"].append(tuple(base["partial"] + 4 * (by * hid + t[1]) for t in tx0_t))
    return masks, mem


def adjust(code, by, w, base):
    """The expected masks and accesses of warp w of block (0, by) of bpnn_adjust_weights."""
    threads = [(lane % 16, 2 * w + lane // 16) for lane in range(32)]
    hid = HID
    index = lambda tx, ty: (hid + 1) * HEIGHT * by + (hid + 1) * ty + tx + 1 + (hid + 1)
    index_y = lambda tx, ty: HEIGHT * by + ty + 1
    index_x = lambda tx, ty: tx + 1
    tail = [t for t in threads if t[1] == 0 and by == 0]            # `ty == 0 && by == 0`
    tail_mask = lanes_mask(lambda tx, ty: ty == 0 and by == 0, threads)
    exit_at = next(k for k, t in enumerate(code) if re.match(r"@P\d EXIT$", t))
    last = code.index("EXIT")
    end = last if tail else exit_at
    masks = [(k, FULL) for k in range(exit_at)] + [(exit_at, FULL & ~tail_mask)]
    masks += [(k, tail_mask) for k in range(exit_at + 1, end + 1)]
    g = lambda arr, f, ts: tuple(base[arr] + 4 * f(*t) for t in ts)
    # w[index] += ETA * delta[x] * ly[y] + MOMENTUM * oldw[index]: reads delta, ly, oldw, w;
    # oldw[index] = ETA * delta[x] * ly[y] + MOMENTUM * oldw[index]: reads delta, ly, oldw.
    mem = {"LDG": [g("delta", index_x, threads), g("ly", index_y, threads),
                   g("oldw", index, threads), g("w", index, threads),
                   g("delta", index_x, threads), g("ly", index_y, threads),
                   g("oldw", index, threads)],
           "STG": [g("w", index, threads), g("oldw", index, threads)]}
    if tail:
        # w[x] += ETA * delta[x] + MOMENTUM * oldw[x]; oldw[x] = ETA * delta[x] + M * oldw[x]
        mem["LDG"] += [g("delta", index_x, tail), g("oldw", index_x, tail),
                       g("w", index_x, tail), g("delta", index_x, tail),
                       g("oldw", index_x, tail)]
        mem["STG"] += [g("w", index_x, tail), g("oldw", index_x, tail)]
    return masks, mem


def check_backprop(copies, kernels, args):
    n_in = int(args.get("in", 65536))
    hid = HID
    blocks_y = n_in // 16
    weights = (n_in + 1) * (hid + 1) * 4
    inp, out_h, in_hid, partial, delta, prev = allocate(
        [(n_in + 1) * 4, (hid + 1) * 4, weights, blocks_y * WIDTH * 4, (hid + 1) * 4, weights])
    same("host copies", copies, [(inp, (n_in + 1) * 4), (in_hid, weights),
                                 (delta, (hid + 1) * 4), (prev, weights), (in_hid, weights)])
    same("kernels", len(kernels), 2)
    size = {inp: (n_in + 1) * 4, out_h: (hid + 1) * 4, in_hid: weights,
            partial: blocks_y * WIDTH * 4, delta: (hid + 1) * 4, prev: weights}
    names = ["_Z22bpnn_layerforward_CUDAPfS_S_S_ii", "_Z24bpnn_adjust_weights_cudaPfiS_iS_S_"]
    bases = [{"input": inp, "input_hidden": in_hid, "partial": partial},
             {"delta": delta, "ly": inp, "w": in_hid, "oldw": prev}]
    shmem = ["1088", "0"]    # input_node[16] + weight_matrix[16][16] floats; none
    for kn, ((header, blocks), name, base, sh) in enumerate(zip(kernels, names, bases, shmem)):
        label = f"launch {kn + 1}"
        code = listing("backprop", name)
        same(f"{label} kernel name", header["kernel name"], name)
        same(f"{label} grid", header["grid dim"], f"(1,{blocks_y},1)")
        same(f"{label} block", header["block dim"], "(16,16,1)")
        same(f"{label} shared memory", header["shmem"], sh)
        same(f"{label} blocks", sorted(blocks), [(0, y, 0) for y in range(blocks_y)])
        touched = {}
        for (_, by, _), warps in sorted(blocks.items()):
            same(f"{label} block {by} warps", sorted(warps), list(range(8)))
            for w, insts in sorted(warps.items()):
                if kn == 0:
                    masks, mem = layerforward(code, by, w, base)
                else:
                    masks, mem = adjust(code, by, w, base)
                where = f"{label} block (0,{by}) warp {w}"
                compare_warp(where, insts, masks, mem)
                # __syncthreads: layerforward 3, one per unrolled step (4), one before
                # the tail; adjust_weights 1
                same(f"{where} barriers", by_class(insts).get("bar", 0), 8 if kn == 0 else 1)
                for x in insts:
                    op = x[2].split(".")[0]
                    if op in ("LDG", "STG"):
                        for a in x[3]:
                            arr = next((b for b in size if b <= a < b + size[b]), None)
                            touched.setdefault((arr, op), set()).add(a // 128)
        # Per array, its lines from the index expressions over every thread of the grid.
        every = [(tx, ty, by) for by in range(blocks_y) for ty in range(16) for tx in range(16)]
        idx = lambda tx, ty, by: (hid + 1) * HEIGHT * by + (hid + 1) * ty + tx + 1 + (hid + 1)
        if kn == 0:
            want = {(inp, "LDG"): lines_of(inp + 4 * (HEIGHT * by + ty + 1)
                                           for tx, ty, by in every if tx == 0),
                    (in_hid, "LDG"): lines_of(in_hid + 4 * idx(*t) for t in every),
                    (in_hid, "STG"): lines_of(in_hid + 4 * idx(*t) for t in every),
                    (partial, "STG"): lines_of(partial + 4 * (by * hid + ty)
                                               for tx, ty, by in every if tx == 0)}
        else:
            xs = range(1, 17)
            want = {(delta, "LDG"): lines_of(delta + 4 * x for x in xs),
                    (inp, "LDG"): lines_of(inp + 4 * (HEIGHT * by + ty + 1)
                                           for tx, ty, by in every)}
            for arr in (in_hid, prev):
                for op in ("LDG", "STG"):
                    want[(arr, op)] = lines_of([arr + 4 * idx(*t) for t in every]
                                               + [arr + 4 * x for x in xs])
        names_of = {inp: "input_cuda", out_h: "output_hidden_cuda", in_hid: "input_hidden_cuda",
                    partial: "hidden_partial_sum", delta: "hidden_delta_cuda",
                    prev: "input_prev_weights_cuda", None: "no array"}
        for key in sorted(set(want) | set(touched), key=lambda k: (k[0] or 0, k[1])):
            same(f"{label} lines {'loaded' if key[1] == 'LDG' else 'stored'} of "
                 f"{names_of[key[0]]}", touched.get(key, set()), want.get(key, set()))


CHECKS = {"backprop": check_backprop}
