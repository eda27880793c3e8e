"""warp_paths: the helpers the checks written as expected paths share (scalarprod, sgemm, stencil,
mri_q, histogram, blackscholes, srad_v1). No checks of its own.

  * Listing: a kernel's SASS listing (index = PC / 16) with pattern lookups (find, all), a
    branch's target, an instruction's opcode and class;
  * Path: a warp's expected stream, built as listing indices in execution order, each with the
    lanes its memory instruction must have (to, goto, guard);
  * compare_warp: a warp's trace against its Path, exactly (count, PC sequence, by-class counts,
    memory instructions' lanes);
  * addresses, same_addresses: a warp's lane addresses of some instruction classes, and their
    comparison as multisets;
  * lines_by_array: each array's set of 128-byte lines the instructions of some classes touch;
  * check_grid: the launch's grid and block dimensions, its blocks and their warps;
  * FULL (all 32 lanes) and MEMORY (the classes whose lanes compare_warp checks).
"""
import re
import sys

from .common import Mismatch, listing, opcode_class, same

FULL = 0xFFFFFFFF
MEMORY = ("ldg", "stg", "lds", "sts", "atoms", "atomg")


class Listing:
    """A kernel's SASS listing (index = PC / 16) with pattern lookups."""

    def __init__(self, app, kernel):
        self.app, self.kernel = app, kernel
        self.text = listing(app, kernel)

    def find(self, pattern, start=0):
        """The index of the first instruction at or after `start` matching `pattern`."""
        for k in range(start, len(self.text)):
            if re.search(pattern, self.text[k]):
                return k
        sys.exit(f"check-workload: {self.app} {self.kernel}: no {pattern!r} after {start}")

    def all(self, pattern, start=0, end=None):
        end = len(self.text) if end is None else end
        return [k for k in range(start, end) if re.search(pattern, self.text[k])]

    def target(self, k):
        """The index a branch at `k` goes to."""
        return int(re.search(r"BRA (?:!?P\d, )?0x([0-9a-f]+)", self.text[k]).group(1), 16) // 16

    def opcode(self, k):
        return [w for w in self.text[k].split() if not w.startswith("@")][0]

    def cls(self, k):
        return opcode_class(self.opcode(k))

    def guarded(self, k):
        """Whether the instruction at `k` has a guard predicate."""
        return self.text[k].startswith("@")


class Path:
    """A warp's expected stream: listing indices in execution order, each with the lanes its
    memory instruction must have (the active lanes, or the guard's lanes where set)."""

    def __init__(self, code):
        self.code, self.items, self.at = code, [], 0

    def to(self, k, mask=FULL):
        """Execute from the cursor through index k (inclusive) with `mask` active."""
        if k < self.at:
            raise AssertionError(f"path runs backwards: {self.at} to {k}")
        self.items.extend([j, mask] for j in range(self.at, k + 1))
        self.at = k + 1

    def goto(self, k):
        self.at = k

    def guard(self, k, mask):
        """The last execution of index k has its guard true on `mask` only."""
        for item in reversed(self.items):
            if item[0] == k:
                item[1] = mask
                return
        raise AssertionError(f"guard: {k} not executed")


def compare_warp(where, insts, path):
    """Count, PC sequence, by-class counts and memory instructions' lanes, exactly."""
    code = path.code
    same(f"{where}: instruction count", len(insts), len(path.items))
    want_cls, got_cls = {}, {}
    for i, (k, _) in zip(insts, path.items):
        c = code.cls(k)
        want_cls[c] = want_cls.get(c, 0) + 1
        c = opcode_class(i[2])
        got_cls[c] = got_cls.get(c, 0) + 1
    same(f"{where}: instructions by class", got_cls, want_cls)
    for n, (i, (k, m)) in enumerate(zip(insts, path.items)):
        if i[0] != 16 * k:
            raise Mismatch(f"{where}: instruction {n} is at PC {i[0]:#x}, the kernel's control "
                           f"flow gives {16 * k:#x} ({code.text[k]})")
        if code.cls(k) in MEMORY and i[1] != m:
            raise Mismatch(f"{where}: lanes of {code.text[k]} (PC {16 * k:#x}, #{n}): the trace "
                           f"has {i[1]:08x}, the kernel's definition gives {m:08x}")


def same_addresses(what, got, want):
    """Two sorted address lists equal, or a Mismatch naming the first address one has and
    the other lacks."""
    if got != want:
        import collections
        g, w = collections.Counter(got), collections.Counter(want)
        extra, missing = sorted((g - w).elements()), sorted((w - g).elements())
        raise Mismatch(f"{what}: {len(got)} in the trace, {len(want)} by the kernel's definition;"
                       f" the trace has {[hex(a) for a in extra[:4]]} not in the definition, "
                       f"lacks {[hex(a) for a in missing[:4]]}")


def addresses(insts, classes):
    """All lane addresses of a warp's instructions of the given classes, sorted."""
    return sorted(a for i in insts if opcode_class(i[2]) in classes for a in i[3])


def lines_by_array(kernels, arrays, classes):
    """{array name: set of 128-byte lines} the instructions of `classes` touch, over all
    kernels; an address in no array is a Mismatch."""
    got = {name: set() for name in arrays}
    for _, blocks in kernels:
        for tb, warps in blocks.items():
            for w, insts in warps.items():
                for i in insts:
                    if opcode_class(i[2]) not in classes:
                        continue
                    for a in i[3]:
                        for name, (base, size) in arrays.items():
                            if base <= a < base + size:
                                got[name].add(a // 128)
                                break
                        else:
                            raise Mismatch(f"block {tb} warp {w} PC {i[0]:#x}: address {a:#x} "
                                           f"is in no array")
    return got


def check_grid(header, blocks, grid, block, threads_per_block=None):
    same("grid dim", header["grid dim"], "({},{},{})".format(*grid))
    same("block dim", header["block dim"], "({},{},{})".format(*block))
    want = sorted((x, y, z) for z in range(grid[2]) for y in range(grid[1])
                  for x in range(grid[0]))
    same("thread blocks", sorted(blocks), want)
    nthreads = block[0] * block[1] * block[2]
    for tb, warps in blocks.items():
        same(f"block {tb} warps", sorted(warps), list(range(-(-nthreads // 32))))
