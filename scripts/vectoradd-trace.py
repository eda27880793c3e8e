#!/usr/bin/env python3
"""Write an Accel-Sim trace (kernelslist.g + kernel-1.traceg, tracer v4 lines with the
base+stride address mode) of vectoradd on N floats: c[i] = a[i] + b[i], blocks of 1024 threads,
per warp LDG a, LDG b, FADD, STG c, EXIT. For measuring `warpsmith run` on large traces
(`scripts/vectoradd-trace.py 20000000 /tmp/va20m` is 3.1 million warps, 15.6 million warp
instructions) without a GPU.

Usage: vectoradd-trace.py N OUT_DIR
"""
import os
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    n, out = int(sys.argv[1]), sys.argv[2]
    os.makedirs(out, exist_ok=True)
    threads = 1024
    blocks = (n + threads - 1) // threads
    a, b, c = 0xC0000000, 0xC0000000 + 4 * n, 0xC0000000 + 8 * n
    a, b, c = (x + 255 & ~255 for x in (a, b, c))
    with open(os.path.join(out, "kernelslist.g"), "w") as f:
        f.write("kernel-1.traceg\n")
    with open(os.path.join(out, "kernel-1.traceg"), "w", buffering=1 << 22) as f:
        f.write(
            f"-kernel name = vectoradd\n-kernel id = 1\n-grid dim = ({blocks},1,1)\n"
            f"-block dim = ({threads},1,1)\n-shmem = 0\n-nregs = 8\n-binary version = 75\n"
            "-cuda stream id = 0\n-shmem base_addr = 0x0000000000000000\n"
            "-local mem base_addr = 0x0000000000000000\n-nvbit version = none\n"
            "-accelsim tracer version = 4\n-enable lineinfo = 0\n\n"
            "#traces format = PC mask dest_num [reg_dests] opcode src_num [reg_srcs] "
            "mem_width [adrrescompress?] [mem_addresses]\n\n"
        )
        for blk in range(blocks):
            f.write(f"#BEGIN_TB\n\nthread block = {blk},0,0\n\n")
            for w in range(threads // 32):
                first = blk * threads + w * 32
                live = max(0, min(32, n - first))
                mask = (1 << live) - 1 if live < 32 else 0xFFFFFFFF
                f.write(f"warp = {w}\ninsts = 5\n")
                if live == 0:
                    f.write("0000 00000000 0 LDG.E 0 0\n0010 00000000 0 LDG.E 0 0\n")
                else:
                    f.write(f"0000 {mask:08x} 1 R2 LDG.E 1 R4 4 1 0x{a + 4 * first:x} 4\n")
                    f.write(f"0010 {mask:08x} 1 R3 LDG.E 1 R6 4 1 0x{b + 4 * first:x} 4\n")
                f.write(f"0020 {mask:08x} 1 R2 FADD 2 R2 R3 0\n")
                if live == 0:
                    f.write("0030 00000000 0 STG.E 0 0\n")
                else:
                    f.write(f"0030 {mask:08x} 0 STG.E 2 R8 R2 4 1 0x{c + 4 * first:x} 4\n")
                f.write(f"0040 {mask:08x} 0 EXIT 0 0\n\n")
            f.write("#END_TB\n\n")


if __name__ == "__main__":
    main()
