#!/usr/bin/env python3
"""Write the Accel-Sim trace `golden/kernels/gpu/lonestores/` (kernelslist.g + kernel-1.traceg,
tracer v4, base+stride addresses): two thread blocks of one warp, each 128 global stores
(`STG.E`) whose 32 lanes write 32 lines 0x10080 bytes apart, from a base spread by a
multiplicative hash, then EXIT. A store waits for nothing, so one warp keeps every store in
flight to the DRAM controllers, past what an L1's MSHRs limit loads to: more requests of one
warp pending at a controller than a Warped-MC warp entry table counter holds
(`cosim --block warped-mc --stimulus gpu:golden/kernels/gpu/lonestores`, on every preset).

Usage: lonestores-trace.py [OUT_DIR]   (default: golden/kernels/gpu/lonestores)
"""
import os
import sys

BLOCKS, STORES, STRIDE = 2, 128, 0x10080


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "golden/kernels/gpu/lonestores"
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "kernelslist.g"), "w") as f:
        f.write("kernel-1.traceg\n")
    with open(os.path.join(out, "kernel-1.traceg"), "w") as f:
        f.write(
            f"-kernel name = lonestores\n-kernel id = 1\n-grid dim = ({BLOCKS},1,1)\n"
            "-block dim = (32,1,1)\n-shmem = 0\n-nregs = 8\n-binary version = 75\n"
            "-cuda stream id = 0\n-shmem base_addr = 0x0000000000000000\n"
            "-local mem base_addr = 0x0000000000000000\n-nvbit version = none\n"
            "-accelsim tracer version = 4\n-enable lineinfo = 0\n\n"
            "#traces format = PC mask dest_num [reg_dests] opcode src_num [reg_srcs] "
            "mem_width [adrrescompress?] [mem_addresses]\n\n"
        )
        for b in range(BLOCKS):
            f.write(f"#BEGIN_TB\n\nthread block = {b},0,0\n\nwarp = 0\ninsts = {STORES + 1}\n")
            for i in range(STORES):
                base = 0x10000000 + ((i * 2654435761 + b * 40503) % (1 << 24)) * 128
                f.write(f"{16 * i:04x} ffffffff 0 STG.E 2 R2 R3 4 1 0x{base:x} {STRIDE}\n")
            f.write(f"{16 * STORES:04x} ffffffff 0 EXIT 0 0\n\n#END_TB\n\n")


if __name__ == "__main__":
    main()
