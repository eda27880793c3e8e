#!/usr/bin/env python3
"""Check a workload's trace against its kernel's definition, independently of the emulator.

    scripts/check-workload.py TRACE_DIR WORKLOAD[:ARGS]

TRACE_DIR is what `warpsmith trace --workload WORKLOAD[:ARGS] --out TRACE_DIR` wrote. From the
CUDA source's semantics (re-derived here, by hand, per kernel) and the static shape of its SASS
listing (golden/sass/<app>.sass: where the early EXIT is, how long the loop body is), this
computes what the stream must be and compares the trace with it:
  * the launch: grid and block dimensions, and the blocks in the trace;
  * per warp: its instruction count, and the active lanes of each global memory instruction;
  * per array: the set of 128-byte lines its loads and stores touch;
  * the host's copies (kernelslist.g).
The device addresses are those of the allocator rule (decision WL-4), re-implemented here.
Exit 0 if all agree; 1 naming the first difference; 2 on bad usage. The checks, one module
per suite, are in scripts/workload_checks/; run without a workload to list them.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workload_checks import CHECKS  # noqa: E402
from workload_checks.common import Mismatch, read_trace  # noqa: E402


def usage(message):
    print(f"check-workload: {message}", file=sys.stderr)
    sys.exit(2)


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        usage(f"known workloads: {', '.join(sorted(CHECKS))}")
    folder, spec = sys.argv[1:3]
    name, _, text = spec.partition(":")
    pairs = [p.split("=", 1) for p in text.split(",") if p]
    if any(len(p) != 2 for p in pairs):
        usage(f"write {spec}'s arguments as key=value")
    args = dict(pairs)
    if name not in CHECKS:
        usage(f"no check for {spec} (known: {', '.join(sorted(CHECKS))})")
    copies, kernels = read_trace(folder)
    try:
        CHECKS[name](copies, kernels, args)
    except Mismatch as e:
        print(f"check-workload: {spec}: {e}", file=sys.stderr)
        sys.exit(1)
    print(f"check-workload: {spec}: the trace agrees with the kernel's definition")


if __name__ == "__main__":
    main()
