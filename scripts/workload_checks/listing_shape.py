"""listing_shape: the helpers the checks written as listing segments times trip counts share
(fastwalshtransform, binomialoptions, convolutionseparable, mergesort, quasirandomgenerator,
sobolqrng). No checks of its own. A listing here is the list of a kernel's instruction texts
(index = PC / 16), as common.listing gives it.

  * target, find, back_branches, span: the listing's static shape (a branch's target index, the
    first instruction matching a pattern, the loops as (top, backward BRA), a segment's length);
  * mem_accesses, same_accesses: a warp's memory accesses as a sorted list of (opcode, mask,
    addresses), and two such lists compared as multisets naming the first difference;
  * lines_by_array: the 128-byte lines a warp's accesses of one opcode touch, per array.
"""
import re
from collections import Counter

from .common import Mismatch


def target(text):
    """A branch's target as an instruction index."""
    return int(re.search(r"\bBRA\b.*?0x([0-9a-f]+)", text).group(1), 16) // 16


def find(code, pattern, start=0):
    """Index of the first instruction from `start` matching `pattern` (a regex)."""
    for k in range(start, len(code)):
        if re.search(pattern, code[k]):
            return k
    raise Mismatch(f"listing: no instruction /{pattern}/ after {16 * start:#x}")


def back_branches(code):
    """The loops: (top, bra) for every BRA whose target is at or before it, in PC order."""
    out = []
    for k, t in enumerate(code):
        if re.search(r"\bBRA\b", t) and target(t) < k:
            out.append((target(t), k))
    return out


def span(a, b):
    """Instructions a..b inclusive."""
    return b - a + 1


def mem_accesses(insts, prefixes=("LDG", "STG")):
    """A warp's global accesses as a sorted list of (opcode, mask, addresses)."""
    return sorted((i[2].split(".")[0], i[1], tuple(i[3])) for i in insts
                  if i[2].split(".")[0] in prefixes)


def same_accesses(what, got, want):
    """`same` for two access lists as multisets, naming an access the trace has that the
    source does not, and one the source has that the trace lacks."""
    if got == want:
        return
    extra, missing = Counter(got) - Counter(want), Counter(want) - Counter(got)

    def show(acc):
        return f"{acc[0]} mask {acc[1]:#x} lanes from {acc[2][0]:#x}" if acc[2] else acc[0]
    if extra and missing:
        e = min(extra)
        m = min(missing, key=lambda m: (m[:2] != e[:2], sum(a != b for a, b in zip(m[2], e[2]))))
        lanes = [k for k, (a, b) in enumerate(zip(e[2], m[2])) if a != b]
        if e[:2] == m[:2] and lanes:
            k = lanes[0]
            raise Mismatch(f"{what}: the trace's {e[0]} (mask {e[1]:#x}) has lane {k} at "
                           f"{e[2][k]:#x}, the source's {m[2][k]:#x} ({len(lanes)} lanes differ)")
    raise Mismatch(f"{what}: {len(got)} in the trace, {len(want)} from the source; "
                   + (f"the trace's {show(min(extra))} is not the source's; " if extra else "")
                   + (f"the source's {show(min(missing))} is not in the trace"
                      if missing else ""))


def lines_by_array(insts, arrays, op, touched, where):
    """Add the lines of the warp's `op` accesses to touched[array]; an address in no array is
    a difference."""
    for i in insts:
        if i[2].split(".")[0] != op:
            continue
        for a in i[3]:
            for name, (lo, hi) in arrays.items():
                if lo <= a < hi:
                    touched.setdefault((name, op), set()).add(a // 128)
                    break
            else:
                raise Mismatch(f"{where}: {op} at {i[0]:#x} touches {a:#x}, in no array")
