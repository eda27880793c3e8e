#!/usr/bin/env python3
"""Write the SASS listing warpsmith's workload library reads, from a compiled CUDA cubin.

    scripts/sass-listing.py CUBIN OUT.sass --source TEXT [--keep MANGLED ...]

Runs `cuobjdump -res-usage` (registers, shared, local and stack bytes per kernel), `cuobjdump
-elf` (each kernel's parameter offsets and sizes, EIATTR_KPARAM_INFO, and where the parameters
start in constant bank 0, EIATTR_PARAM_CBANK) and `cuobjdump -sass` (the instructions, branch
and call targets as addresses), all from the CUDA toolchain on PATH (scripts/kernel-sass.sh
installs it), and writes one text file:

    // <source line>
    .kernel <mangled name>
    .regs 12
    .shared 0
    .local 0
    .param_base 0x160
    .param 0x0 8
    .const 2 0x9999999a 0x3fd99999    (initial words of constant bank 2, in order)
    .symbol c_Table 0x0 256           (a `__constant__` variable: its offset and size in bank 3)
    .device d_CallValue 0x0 4096      (a `__device__` variable: where its address is in bank 4,
                                       its size)
    0000 MOV R1, c[0x0][0x28]
    0050 @P0 EXIT
    ...

A kernel without parameters has no EIATTR_PARAM_CBANK: its `.param_base` is 0x160, where
Turing kernels' parameters start (every kernel with parameters of the listings has 0x160, and
a kernel without has a 0x160-byte `.nv.constant0`).

`--keep` limits the listing to the named kernels (a file often instantiates more than its
application launches). Exit 2 on a missing tool or an unexpected format.
"""
import argparse
import json
import re
import subprocess
import sys


def run(cmd):
    try:
        return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    except FileNotFoundError:
        sys.exit(f"sass-listing: {cmd[0]} is not on PATH (scripts/kernel-sass.sh installs it)")
    except subprocess.CalledProcessError as e:
        sys.exit(f"sass-listing: {' '.join(cmd)} failed: {e.stderr.strip()}")


def resources(cubin):
    """Per kernel: REG, SHARED, LOCAL and STACK from `cuobjdump -res-usage`."""
    out, name, res = run(["cuobjdump", "-res-usage", cubin]), None, {}
    for line in out.splitlines():
        m = re.match(r"\s*Function (\S+):", line)
        if m:
            name = m.group(1)
            continue
        if name and "REG:" in line:
            res[name] = {k: int(v) for k, v in re.findall(r"(\w+(?:\[\d\])?):(\d+)", line)}
            name = None
    return res


def params(cubin):
    """Per kernel: where its parameters start in constant bank 0, and (offset, size) of each."""
    out = run(["cuobjdump", "-elf", cubin])
    info, name, attr = {}, None, None
    for line in out.splitlines():
        m = re.match(r"\.nv\.info\.(\S+)$", line.strip())
        if m:
            name = m.group(1)
            info[name] = {"base": None, "params": []}
            continue
        if not name:
            continue
        if line.startswith(".") and not line.startswith(".nv.info."):
            name = None
            continue
        m = re.search(r"Ordinal : (0x[0-9a-f]+)\s+Offset\s+: (0x[0-9a-f]+)\s+Size\s+: (0x[0-9a-f]+)",
                      line)
        if m:
            info[name]["params"].append(tuple(int(x, 16) for x in m.groups()))
        # EIATTR_PARAM_CBANK's value: the bank's section, then (size << 16) | start.
        m = re.match(r"\s*Value:\s+0x[0-9a-f]+ (0x[0-9a-f]+)\s*$", line)
        if m and attr == "EIATTR_PARAM_CBANK":
            info[name]["base"] = int(m.group(1), 16) & 0xFFFF
        m = re.match(r"\s*Attribute:\s+(\S+)", line)
        if m:
            attr = m.group(1)
    return info


def constants(cubin):
    """Per kernel: the initial words of its constant banks other than 0 (bank 2 holds the
    compiler's constants), from `cuobjdump -elf`; the module's bank 3 (its `__constant__`
    variables, shared by every kernel) is under the name ""."""
    out, where, banks = run(["cuobjdump", "-elf", cubin]), None, {}
    for line in out.splitlines():
        m = re.match(r"\.nv\.constant([1-9])(?:\.(\S+))?$", line.strip())
        if m:
            where = (m.group(2) or "", int(m.group(1)))
            banks.setdefault(where[0], {})[where[1]] = []
            continue
        if where and re.match(r"\s*(0x[0-9a-f]{8}\s*)+$", line):
            banks[where[0]][where[1]] += line.split()
        elif where and line.strip() == "":
            continue
        else:
            where = None
    return banks


def symbols(cubin):
    """The module's `__constant__` variables: (name, offset, size) in bank 3, from the ELF's
    symbol table (the objects in section `.nv.constant3`)."""
    out = run(["cuobjdump", "-elf", cubin])
    index = None
    for line in out.splitlines():
        m = re.match(r"\s*([0-9a-f]+)\s+[0-9a-f]+\s+[0-9a-f]+\s+.*\s\.nv\.constant3$", line)
        if m:
            index = int(m.group(1), 16)
    found = []
    for line in out.splitlines():
        f = line.split()
        # Num Value Size Type Bind Vis Other Ndx Name
        if index is not None and len(f) == 9 and f[3] == "OBJECT" and int(f[7], 16) == index:
            found.append((f[8], int(f[1], 16), int(f[2], 16)))
    return sorted(found, key=lambda s: s[1])


def devices(cubin):
    """The module's uninitialised `__device__` variables (the objects of section `.nv.global`)
    whose address the driver puts in constant bank 4: (name, offset, size), the offset that of
    the variable's relocation in section `.rel.nv.constant4`, the size the ELF symbol's.
    (Bank 4 also holds functions' addresses, `__assertfail`'s, and initialised data's, the
    strings of `.nv.global.init`: not modelled, not listed.)"""
    out = run(["cuobjdump", "-elf", cubin])
    index = None
    for line in out.splitlines():
        m = re.match(r"\s*([0-9a-f]+)\s+[0-9a-f]+\s+[0-9a-f]+\s+.*\s\.nv\.global$", line)
        if m:
            index = int(m.group(1), 16)
    sizes, found, in_rel = {}, [], False
    for line in out.splitlines():
        f = line.split()
        if index is not None and len(f) == 9 and f[3] == "OBJECT" and int(f[7], 16) == index:
            sizes[f[8]] = int(f[2], 16)
        if line.startswith(".section"):
            in_rel = line.split()[1] == ".rel.nv.constant4"
            continue
        if in_rel and len(f) == 3 and f[2] == "R_CUDA_64":
            found.append((f[1], int(f[0], 16)))
        elif in_rel and line.strip():
            in_rel = False
    return sorted((name, off, sizes[name]) for name, off in found if name in sizes)


def instructions(cubin):
    """Per kernel: its instructions' text (`[@P] OPCODE OPERANDS`), at PCs 0, 16, ..."""
    out, name, code = run(["cuobjdump", "-sass", cubin]), None, {}
    for line in out.splitlines():
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            name = m.group(1)
            code[name] = []
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", line)
        if m and name:
            pc = int(m.group(1), 16)
            if pc != 16 * len(code[name]):
                sys.exit(f"sass-listing: {name}: PC {pc:#x} out of sequence")
            # One space between words, a comma and a space between operands.
            text = re.sub(r"\s+", " ", m.group(2).strip())
            code[name].append(re.sub(r"\s*,\s*", ", ", text))
    return code


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cubin")
    ap.add_argument("out")
    ap.add_argument("--source", required=True, help="where the CUDA source came from")
    ap.add_argument("--keep", nargs="*", default=None, help="mangled kernel names to keep")
    a = ap.parse_args()
    res, par = resources(a.cubin), params(a.cubin)
    dis = json.loads(run(["nvdisasm", "-json", a.cubin]))
    tool = dis[0][".note.nv.tkinfo"]
    code = instructions(a.cubin)
    banks = constants(a.cubin)
    module = banks.get("", {}).get(3, [])
    while module and int(module[-1], 16) == 0:
        module.pop()
    syms = symbols(a.cubin)
    devs = devices(a.cubin)
    lines = [f"// {a.source}",
             f"// {tool['tki_toolVersion']}; ptxas {tool['tki_toolOptions'].strip()}"]
    found = set()
    for name in sorted(code):
        if a.keep is not None and name not in a.keep:
            continue
        if name not in res or name not in par:
            sys.exit(f"sass-listing: no resource or parameter record for kernel {name}")
        if par[name]["base"] is None:
            if par[name]["params"]:
                sys.exit(f"sass-listing: kernel {name} has parameters but no EIATTR_PARAM_CBANK")
            par[name]["base"] = 0x160
        found.add(name)
        r = res[name]
        lines += [f".kernel {name}", f".regs {r['REG']}", f".shared {r['SHARED']}",
                  f".local {r['LOCAL']}", f".stack {r['STACK']}",
                  f".param_base {par[name]['base']:#x}"]
        for _, off, size in sorted(par[name]["params"]):
            lines.append(f".param {off:#x} {size}")
        own = dict(banks.get(name, {}))
        if module:
            own[3] = module
        for bank, words in sorted(own.items()):
            for k in range(0, len(words), 8):
                lines.append(f".const {bank} {' '.join(words[k:k + 8])}")
        for sym, off, size in syms:
            lines.append(f".symbol {sym} {off:#x} {size}")
        # (The variables this kernel's code addresses: the library's unused ones stay out.)
        for var, off, size in devs:
            if any(f"c[0x4][{off:#x}]" in text for text in code[name]):
                lines.append(f".device {var} {off:#x} {size}")
        for k, text in enumerate(code[name]):
            lines.append(f"{16 * k:04x} {text}")
    missing = set(a.keep or []) - found
    if missing:
        sys.exit(f"sass-listing: {a.cubin} has no kernel {', '.join(sorted(missing))}")
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
