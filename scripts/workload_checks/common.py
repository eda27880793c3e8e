"""What every check shares: the trace reader, the allocator rule, the listing reader, the
comparison that raises a Mismatch naming what differs."""
import os
import re
import sys

HEAP_BASE = 0x7F00_0000_0000
SMALL_ALIGN = 512
LARGE = 2 << 20
LINE = 128
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


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
        raise Mismatch(f"{what}: the trace has {short(got)}, the kernel's definition gives "
                       f"{short(want)}")


def short(v):
    s = repr(v)
    return s if len(s) < 200 else s[:200] + "..."


def lines_of(addrs):
    return {a // LINE for a in addrs}


def global_mem(insts, opcode_prefix):
    return [i for i in insts if i[2].startswith(opcode_prefix)]




def glibc_rand(seed):
    """The C library's own rand() after srand(seed), through ctypes: the host programs that seed
    rand with a constant get their inputs from it, and calling glibc itself keeps this check
    apart from the library's re-implementation of it. A generator of rand()'s values."""
    import ctypes

    libc = ctypes.CDLL("libc.so.6")
    libc.srand(ctypes.c_uint(seed))
    while True:
        yield libc.rand()


def opcode_class(opcode):
    """The class of an instruction by its opcode's first word: global load or store, shared
    load or store, atomic, barrier, branch/exit, or other (arithmetic and the rest)."""
    op = opcode.split(".")[0]
    return {"LDG": "ldg", "STG": "stg", "LD": "ldg", "ST": "stg", "LDS": "lds", "STS": "sts",
            "ATOMS": "atoms", "ATOMG": "atomg", "ATOM": "atomg", "RED": "atomg", "BAR": "bar",
            "BRA": "branch", "EXIT": "branch", "RET": "branch", "BSSY": "branch",
            "BSYNC": "branch", "LDC": "ldc", "LDL": "ldl", "STL": "stl"}.get(op, "other")


def by_class(insts):
    """A warp's instruction counts by class (opcode_class), as a dict."""
    counts = {}
    for i in insts:
        c = opcode_class(i[2])
        counts[c] = counts.get(c, 0) + 1
    return counts


def same_multiset(what, got, want):
    """Compare two lists of lane-address tuples as multisets; a Mismatch naming the first lane
    whose address differs where one access has an odd lane out."""
    got, want = sorted(got), sorted(want)
    if got != want:
        extra = [x for x in got if x not in want]
        missing = [x for x in want if x not in got]
        if extra and missing and len(extra[0]) == len(missing[0]):
            lane = next(k for k, (a, b) in enumerate(zip(extra[0], missing[0])) if a != b)
            detail = (f"active lane #{lane} at {extra[0][lane]:#x} where the definition has "
                      f"{missing[0][lane]:#x}")
        else:
            detail = f"{len(extra)} accesses not in the definition, {len(missing)} missing"
        raise Mismatch(f"{what}: {len(got)} accesses in the trace, {len(want)} by the "
                       f"definition; {detail}")
