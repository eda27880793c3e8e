#!/usr/bin/env python3
"""Prove the parts of the dispatcher that the primitive refactoring changed, alone.

    scripts/rtl-equiv-parts.py OLD_DISPATCH_DIR NEW_DISPATCH_DIR

For a preset whose whole dispatcher is too large for scripts/rtl-equiv.sh (decision RTL-8:
`turing-rtx2060s`' older design alone runs Yosys past 23 GiB). Between the two generated
designs only two pieces of logic differ, besides declarations and assertion macros: the search
for the first SM with a free slot, round-robin from `rr_sm_q` (`p_free_sm`, now
`p_sm_has_free` and a `ws_prim_rr_first`), and the search for the first free slot of
`scan_sm_q` (`p_free_slot`, now `p_scan_free` and a `ws_prim_first_one`). This script checks
that claim (the two files' code lines, with those pieces and the declarations they need
removed, must be identical but for the names of two array sizes that the new design's
`$error` checks tie to the old expressions), then cuts each piece out of its design into a
module whose inputs are what it reads (`run_valid_q`, `rr_sm_q`, `scan_sm_q`) and whose outputs
are what the rest reads (`free_found`, `free_sm`, `slot_found`, `slot_free`), and proves each
old piece equivalent to the new one with Yosys (`miter -equiv`, `sat -prove`) over every
input. Exit 0 when the rest is identical and both pieces are proven.
"""
import os
import re
import subprocess
import sys
import tempfile


def code_lines(text):
    out = []
    for line in text.splitlines():
        line = re.sub(r"//.*$", "", line).rstrip()
        if line.strip():
            out.append(line)
    return out


def block(lines, start, end_pred):
    """The lines from the first matching `start` to the one `end_pred` accepts, inclusive."""
    i = next(k for k, l in enumerate(lines) if re.search(start, l))
    j = next(k for k in range(i + 1, len(lines)) if end_pred(lines[k]))
    return i, j


def pieces(lines, markers):
    """`lines` with the pieces whose (start, end) regexes are `markers` cut out; the pieces."""
    cut, rest = [], list(lines)
    for start, end in markers:
        i, j = block(rest, start, lambda l, e=end: re.search(e, l) is not None)
        cut.append("\n".join(rest[i:j + 1]))
        del rest[i:j + 1]
    return rest, cut


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    old_dir, new_dir = sys.argv[1:3]
    read = lambda d, f: open(os.path.join(d, f)).read()
    old = code_lines(read(old_dir, "ws_dispatch.sv"))
    new = code_lines(read(new_dir, "ws_dispatch.sv"))
    old_rest, old_parts = pieces(old, [
        (r"^  logic           free_found;", r"^  logic \[SmW-1:0\] free_sm;"),
        (r"always_comb begin : p_free_sm", r"^  end$"),
        (r"^  logic             slot_found;", r"^  logic \[SlotW-1:0\] slot_free;"),
        (r"always_comb begin : p_free_slot", r"^  end$"),
    ])
    new_rest, new_parts = pieces(new, [
        (r"^  logic \[NumSms-1:0\] sm_has_free;", r"^  logic \[SmW-1:0\]    free_sm;"),
        (r"always_comb begin : p_sm_has_free", r"^  end$"),
        (r"ws_prim_rr_first #\(", r"^  \);$"),
        (r"^  logic \[NumSlots-1:0\] scan_free;", r"^  logic \[SlotW-1:0\]    slot_free;"),
        (r"always_comb begin : p_scan_free", r"^  end$"),
        (r"ws_prim_first_one #\(", r"^  \);$"),
    ])
    # The rest: identical but for the array-size names, the include of the assertion macros,
    # the two `$error` checks that tie the names to the old expressions, and the assertions
    # (written with macros now; synthesis removes both forms).
    def normal(lines):
        text = "\n".join(lines)
        text = text.replace("[NumQRects]", "[NumQueue * NumArrays]")
        text = text.replace("[NumRunRects]", "[NumRun * NumArrays]")
        text = re.sub(r"`include \"ws_assert.svh\"\n", "", text)
        text = re.sub(r"  localparam int unsigned Num(Q|Run)Rects = \w+,\n", "", text)
        text = re.sub(r"  if \(Num(Q|Run)Rects != [^\n]*\n[^\n]*\n[^\n]*\n  end\n", "", text)
        # Assertions, old and new forms, to the end of the module.
        text = re.sub(r"\n  (initial begin : p_param_checks|`WS_ASSERT_INIT).*(?=\nendmodule)", "",
                      text, flags=re.S)
        return text
    a, b = normal(old_rest), normal(new_rest)
    if a != b:
        for k, (x, y) in enumerate(zip(a.splitlines(), b.splitlines())):
            if x != y:
                sys.exit(f"rtl-equiv-parts: the designs differ outside the two pieces, at code "
                         f"line {k}:\n  old: {x}\n  new: {y}")
        sys.exit("rtl-equiv-parts: the designs differ outside the two pieces (in length)")
    print("rtl-equiv-parts: outside the two searches the designs' code is identical")
    pkg = read(new_dir, "ws_dispatch_pkg.sv")
    val = lambda n: int(re.search(rf"localparam int unsigned Disp{n} = (\d+);", pkg).group(1))
    p = {n: val(n) for n in ("NumSms", "NumSlots", "SmW", "SlotW", "NumRun")}
    ports = (f"#(parameter int unsigned NumSms = {p['NumSms']}, NumSlots = {p['NumSlots']},\n"
             f"  SmW = {p['SmW']}, SlotW = {p['SlotW']}, NumRun = {p['NumRun']})\n"
             "(input logic run_valid_q [NumRun], input logic [SmW-1:0] rr_sm_q,\n"
             " input logic [SmW-1:0] scan_sm_q, output logic free_found,\n"
             " output logic [SmW-1:0] free_sm, output logic slot_found,\n"
             " output logic [SlotW-1:0] slot_free);\n")
    sv = (f"module part_old {ports}" + "\n".join(old_parts[i] for i in (1, 3))
          + "\nendmodule\n"
          + f"module part_new {ports}" + "\n".join(new_parts[i] for i in (0, 1, 2, 3, 4, 5))
          .replace("  logic              free_found;\n", "").replace("  logic [SmW-1:0]    free_sm;\n", "")
          .replace("  logic                slot_found;\n", "").replace("  logic [SlotW-1:0]    slot_free;\n", "")
          + "\nendmodule\n")
    work = tempfile.mkdtemp()
    with open(os.path.join(work, "parts.sv"), "w") as f:
        f.write(sv)
    prims = [os.path.join(new_dir, f) for f in ("ws_prim_first_one.sv", "ws_prim_rr_first.sv")]
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    py = os.path.join(root, ".tools", "yosys", "bin", "python")
    script = f"""
from pyosys import libyosys as ys
d = ys.Design()
for c in ["read_slang {' '.join(prims)} {os.path.join(work, 'parts.sv')} --top part_old --top part_new",
          "proc", "opt_clean",
          "miter -equiv -flatten -make_assert part_old part_new miter",
          "hierarchy -top miter", "opt -fast",
          "sat -verify -prove-asserts -show-ports miter"]:
    ys.run_pass(c, d)
"""
    r = subprocess.run([py, "-c", script], capture_output=True, text=True)
    log = os.path.join(work, "yosys.log")
    with open(log, "w") as f:
        f.write(r.stdout + r.stderr)
    if r.returncode != 0 or "SUCCESS!" not in r.stdout:
        sys.exit(f"rtl-equiv-parts: the pieces are NOT proven equivalent (log: {log})")
    print(f"rtl-equiv-parts: the two searches are proven equivalent over every input (log: {log})")


if __name__ == "__main__":
    main()
