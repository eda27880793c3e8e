#!/usr/bin/env python3
"""Write the SASS listing warpsmith's workload library reads, from a compiled CUDA cubin.

    scripts/sass-listing.py CUBIN OUT.sass --source TEXT [--keep MANGLED ...]

Runs `cuobjdump -res-usage` (registers, shared, local and stack bytes per kernel), `cuobjdump
-elf` (each kernel's parameter offsets and sizes, EIATTR_KPARAM_INFO, and where the parameters
start in constant bank 0, EIATTR_PARAM_CBANK) and `nvdisasm -json` (the instructions), all from
the CUDA toolchain on PATH (scripts/kernel-sass.sh installs it), and writes one text file:

    // <source line>
    .kernel <mangled name>
    .regs 12
    .shared 0
    .local 0
    .param_base 0x160
    .param 0x0 8
    0000 MOV R1, c[0x0][0x28]
    0050 @P0 EXIT
    ...

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
    lines = [f"// {a.source}",
             f"// {tool['tki_toolVersion']}; ptxas {tool['tki_toolOptions'].strip()}"]
    found = set()
    for fn in sorted(dis[1], key=lambda f: f["function-name"]):
        name = fn["function-name"]
        if a.keep is not None and name not in a.keep:
            continue
        if name not in res or name not in par or par[name]["base"] is None:
            sys.exit(f"sass-listing: no resource or parameter record for kernel {name}")
        found.add(name)
        r = res[name]
        lines += [f".kernel {name}", f".regs {r['REG']}", f".shared {r['SHARED']}",
                  f".local {r['LOCAL']}", f".stack {r['STACK']}",
                  f".param_base {par[name]['base']:#x}"]
        for _, off, size in sorted(par[name]["params"]):
            lines.append(f".param {off:#x} {size}")
        pc = 0
        for i in fn["sass-instructions"]:
            text = i["opcode"]
            if "predicate" in i:
                text = f"{i['predicate']} {text}"
            if i.get("operands"):
                text += " " + i["operands"].replace(",", ", ")
            lines.append(f"{pc:04x} {text}")
            pc += 16
    missing = set(a.keep or []) - found
    if missing:
        sys.exit(f"sass-listing: {a.cubin} has no kernel {', '.join(sorted(missing))}")
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
