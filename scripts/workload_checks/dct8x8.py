"""dct8x8: NVIDIA cuda-samples v11.5 Samples/dct8x8/, re-derived independently of the emulator.

Sources: dct8x8.cu (main, WrapperCUDA1, WrapperCUDA2, WrapperCUDAshort), dct8x8_kernel1.cuh
(CUDAkernel1DCT, CUDAkernel1IDCT; patched by scripts/kernel-patches/dct8x8.patch: the tex2D
fetch at a pixel centre is an __ldg of the same pixel from a plane with the destination's pitch,
whose address is the texture object's parameter), dct8x8_kernel2.cuh (CUDAkernel2DCT,
CUDAkernel2IDCT), dct8x8_kernel_short.cuh (CUDAkernelShortDCT, CUDAkernelShortIDCT),
dct8x8_kernel_quantization.cuh (CUDAkernelQuantizationFloat, CUDAkernelQuantizationShort), and
the static shape of golden/sass/dct8x8.sass.

The check needs its own input for the data-dependent part (a 24-bit BMP, passed with `file=`):

    python3 -m workload_checks.dct8x8 PATH WIDTH HEIGHT [SEED]   (in scripts/; writes it)
    warpsmith trace --workload dct8x8:file=PATH[,dct1_runs=N,dct2_runs=M] --out DIR
    scripts/check-workload.py DIR dct8x8:file=PATH[,dct1_runs=N,dct2_runs=M]

Without `file=` (the library's own generated image) everything is checked but the lanes of the
short quantization's `if (curCoef < 0)`, which are then only checked to split the warp in two.

Host (in the sample's order; the workload's documented model: cudaMallocPitch's pitch = the row
rounded up to 512 bytes; cudaMallocArray = a plane with the destination's pitch; a 2-D host copy
= one copy of pitch x height bytes at the plane's base; the device-to-device copy is not in the
trace; frees are not modelled):
  WrapperCUDA1: Src (array plane), Dst (float pitch); copy Src; dct1_runs x CUDAkernel1DCT,
    CUDAkernelQuantizationFloat(Dst), CUDAkernel1IDCT (grid W/8 x H/8, block 8 x 8);
  WrapperCUDA2: src, dst (float pitch); copy src; dct2_runs x CUDAkernel2DCT(dst, src),
    CUDAkernelQuantizationFloat(dst), CUDAkernel2IDCT(src, dst) (grid W/32 x H/16, block 8x4x2);
  WrapperCUDAshort: SrcDst (short pitch); copy; CUDAkernelShortDCT, CUDAkernelQuantizationShort,
    CUDAkernelShortIDCT (grid W/32 x H/32, block 8 x 4 x 4).

Per warp, the expected stream is a list of listing indices with the lanes each must have, built
from the listing's landmarks (found by pattern) and the source's control flow:
  * kernel1/kernel2 DCT and IDCT: straight-line to the EXIT (fully unrolled loops), all lanes;
  * short DCT/IDCT: `if (OffsThreadInRow < 16)` around the loads is `@P0 BRA` over them (lanes
    16..31 take it; the loads run on lanes 0..15), the one around the stores an `@P0 EXIT`;
  * float quantization: the division's FCHK and `@!P0 BRA` over the CALL to the slow path; no
    lane calls it: the divisor Q is a normal float in [12, 81] and the dividend a float DCT
    coefficient of |c| <= 1024 whose nonzero values are far from the denormal range (the
    products of integer pixels and the DCT constants have no bits below 2^-40). A coefficient
    of exactly zero is assumed not to fail FCHK (the fast path is exact for it); the reference
    run (float64 DCT of the file's image) says how many coefficients could be zero on the
    device (|c| < 1e-3), printed as a note when any;
  * short quantization: `if (curCoef < 0)` is `@!P0 BRA` to the negative side; the lanes of
    each side come from a bit-exact port (Python ints) of CUDAshortInplaceDCT applied as the
    kernel applies it (columns of each 8 x 8 block, then rows) to the file's image - 128. The
    fall-through (non-negative) side is expected first, the other order is accepted too (the
    source does not fix it). Of the guarded instructions inside the integer division, the
    quotient's sign fix (`@!Px IMAD.MOV R4, RZ, RZ, -R4`: the dividend's short negative) and
    the zero-divisor case (`@!P2 LOP3.LUT`) are derived; the reciprocal's corrections are not.
Compared exactly: the PC sequence of every warp (so its count and count by class), the lanes
of every memory instruction, of every unguarded instruction and of the guarded ones named
above, each global instruction's lane addresses (as a multiset of per-instruction address
tuples over the warp), each warp's shared load and shared store addresses (multisets, from
the source's shared index expressions and the listing's layout: CurBlockLocal2 at the offset
the listing's STS uses, CUDAkernel1's 8 CurBlockLocal2 reads merged into two LDS.U.128), and
each array's set of 128-byte lines loaded and stored.
"""
import math
import random
import re
import struct
import sys

from .common import Mismatch, allocate, lines_of, opcode_class, same
from .warp_paths import Listing

APP = "dct8x8"
FULL = 0xFFFFFFFF
LO, HI = 0x0000FFFF, 0xFFFF0000
K1DCT, K1IDCT = "_Z14CUDAkernel1DCTPfiiiy", "_Z15CUDAkernel1IDCTPfiiiy"
K2DCT, K2IDCT = "_Z14CUDAkernel2DCTPfS_i", "_Z15CUDAkernel2IDCTPfS_i"
KSDCT, KSIDCT = "_Z18CUDAkernelShortDCTPsi", "_Z19CUDAkernelShortIDCTPsi"
QF, QS = "_Z27CUDAkernelQuantizationFloatPfi", "_Z27CUDAkernelQuantizationShortPsi"
MEMORY = ("ldg", "stg", "lds", "sts", "atoms", "atomg")
Q = [32, 33, 51, 81, 66, 39, 34, 17, 33, 36, 48, 47, 28, 23, 12, 12,
     51, 48, 47, 28, 23, 12, 12, 12, 81, 47, 28, 23, 12, 12, 12, 12,
     66, 28, 23, 12, 12, 12, 12, 12, 39, 23, 12, 12, 12, 12, 12, 12,
     34, 12, 12, 12, 12, 12, 12, 12, 17, 12, 12, 12, 12, 12, 12, 12]


# ------------------------------------------------------------------ listing and path helpers
# (small copies of the helpers scalarprod.py has, so that this module stands alone)

class Path:
    """A warp's expected stream: listing indices in order, each with its lanes (None: a guarded
    instruction whose guard's lanes are not derived)."""

    def __init__(self, code):
        self.code, self.items, self.at = code, [], 0

    def to(self, k, mask=FULL):
        assert k >= self.at, (self.at, k)
        for j in range(self.at, k + 1):
            self.items.append([j, None if self.code.guarded(j) else mask])
        self.at = k + 1

    def goto(self, k):
        self.at = k

    def guard(self, k, mask):
        """The last execution of index k has its guard true on `mask` (of the active lanes)."""
        for item in reversed(self.items):
            if item[0] == k:
                item[1] = mask
                return
        raise AssertionError(f"guard: {k} not executed")


def compare_path(where, insts, path):
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
        if code.cls(k) in MEMORY and m is None:
            raise AssertionError(f"{where}: a memory instruction's lanes not derived")
        if m is not None and i[1] != m:
            raise Mismatch(f"{where}: lanes of {code.text[k]} (PC {16 * k:#x}, #{n}): the trace "
                           f"has {i[1]:08x}, the kernel's definition gives {m:08x}")


def mask_of(flags):
    return sum(1 << l for l, f in enumerate(flags) if f)


def check_grid(tag, header, blocks, kernel, grid, block, shmem):
    same(f"{tag} kernel name", header.get("kernel name"), kernel)
    same(f"{tag} grid dim", header["grid dim"], "({},{},{})".format(*grid))
    same(f"{tag} block dim", header["block dim"], "({},{},{})".format(*block))
    same(f"{tag} shared memory", header.get("shmem"), str(shmem))
    same(f"{tag} thread blocks", sorted(blocks),
         sorted((x, y, 0) for y in range(grid[1]) for x in range(grid[0])))
    nwarps = block[0] * block[1] * block[2] // 32
    for tb, warps in blocks.items():
        same(f"{tag} block {tb} warps", sorted(warps), list(range(nwarps)))


def accesses(insts, cls):
    """The warp's (mask, lane addresses) of every instruction of class `cls`, sorted."""
    return sorted((i[1], tuple(i[3])) for i in insts if opcode_class(i[2]) == cls)


def addresses(insts, cls):
    return sorted(a for i in insts if opcode_class(i[2]) == cls for a in i[3])


def same_multiset(what, got, want):
    if got != want:
        import collections
        g, w = collections.Counter(got), collections.Counter(want)
        extra, missing = list((g - w).elements()), list((w - g).elements())
        raise Mismatch(f"{what}: {len(got)} in the trace, {len(want)} by the kernel's definition;"
                       f" the trace has {short_list(extra)} not in the definition, lacks "
                       f"{short_list(missing)}")


def short_list(v):
    def fmt(x):
        if isinstance(x, tuple):
            return "(" + ", ".join(fmt(y) for y in x) + ")"
        return hex(x)
    s = "[" + ", ".join(fmt(x) for x in sorted(v)[:3]) + "]"
    return s if len(s) < 400 else s[:400] + "..."


# ------------------------------------------------------------------ input and reference runs

def write_bmp(path, width, height, seed=1):
    """A 24-bit BMP of grey pixels (r = g = b) uniform in [0, 256), rows bottom-up (as
    LoadBmpAsGray reads them: right after the 54 header bytes, no row padding: width % 4 == 0)."""
    rnd = random.Random(seed)
    pixels = [[rnd.randrange(256) for _ in range(width)] for _ in range(height)]
    with open(path, "wb") as f:
        f.write(struct.pack("<2sIHHI", b"BM", 54 + 3 * width * height, 0, 0, 54))
        f.write(struct.pack("<IiiHHIIiiII", 40, width, height, 1, 24, 0, 3 * width * height,
                            0, 0, 0, 0))
        for i in range(height - 1, -1, -1):
            f.write(bytes(v for p in pixels[i] for v in (p, p, p)))


def read_bmp(path):
    """(width, height, grey rows top-down) as PreLoadBmp and LoadBmpAsGray read the file."""
    data = open(path, "rb").read()
    width, height = struct.unpack_from("<ii", data, 18)
    depth, = struct.unpack_from("<H", data, 28)
    if data[:2] != b"BM" or depth != 24:
        sys.exit(f"check-workload: {path}: not a 24-bit BMP")
    img, k = [[0] * width for _ in range(height)], 54
    for i in range(height - 1, -1, -1):
        for j in range(width):
            b, g, r = data[k], data[k + 1], data[k + 2]
            k += 3
            img[i][j] = min(255, max(0, (313524 * r + 615514 * g + 119537 * b + 524288) >> 20))
    return width, height, img


def mul24(a, b):
    """__mul24: the low 24 bits of each operand, signed, multiplied; the low 32 bits, signed."""
    def s24(x):
        x &= 0xFFFFFF
        return x - (1 << 24) if x & 0x800000 else x
    p = (s24(a) * s24(b)) & 0xFFFFFFFF
    return p - (1 << 32) if p & 0x80000000 else p


def to_short(x):
    x &= 0xFFFF
    return x - 0x10000 if x & 0x8000 else x


def unfixh(x):
    return to_short((x + 0x8000) >> 16)


def unfixo(x):
    return (x + 0x1000) >> 13


def short_dct8(v):
    """CUDAshortInplaceDCT (both overloads compute this) on in0..in7, giving out0..out7."""
    in0, in1, in2, in3, in4, in5, in6, in7 = v
    tmp0, tmp1, tmp2, tmp3 = in7 + in0, in6 + in1, in5 + in2, in4 + in3
    tmp4, tmp5, tmp6, tmp7 = in3 - in4, in2 - in5, in1 - in6, in0 - in7
    tmp10, tmp11, tmp12, tmp13 = tmp3 + tmp0, tmp2 + tmp1, tmp1 - tmp2, tmp0 - tmp3
    S14 = C14 = 0x5A82
    S18, C18 = 0x30FC, 0x7642
    OS1, OS3, OS5, OS7 = 0x063E, 0x11C7, 0x1A9B, 0x1F63
    OC1, OC3, OC5, OC7 = 0x1F63, 0x1A9B, 0x11C7, 0x063E
    out = [0] * 8
    out[0] = unfixh(mul24(tmp10 + tmp11, S14))
    out[2] = unfixh(mul24(tmp13, C18) + mul24(tmp12, S18))
    out[4] = unfixh(mul24(tmp10 - tmp11, C14))
    out[6] = unfixh(mul24(tmp13, S18) - mul24(tmp12, C18))
    tmp16 = unfixo(mul24(tmp6 + tmp5, S14))
    tmp15 = unfixo(mul24(tmp6 - tmp5, C14))
    tmp4 <<= 2
    tmp7 <<= 2
    tmp14, tmp25, tmp26, tmp17 = tmp4 + tmp15, tmp4 - tmp15, tmp7 - tmp16, tmp7 + tmp16
    out[1] = unfixh(mul24(tmp17, OC1) + mul24(tmp14, OS1))
    out[3] = unfixh(mul24(tmp26, OC3) - mul24(tmp25, OS3))
    out[5] = unfixh(mul24(tmp26, OC5) + mul24(tmp25, OS5))
    out[7] = unfixh(mul24(tmp17, OC7) - mul24(tmp14, OS7))
    return out


def short_coefficients(img, W, H):
    """CUDAkernelShortDCT's output plane: per 8 x 8 block of (short)pixel - 128, the columns'
    DCT (the first call walks a column with the shared stride), then the rows' (the second
    call's 4 packed ints are a row's 8 shorts)."""
    out = [[0] * W for _ in range(H)]
    for r0 in range(0, H, 8):
        for c0 in range(0, W, 8):
            x = [[img[r0 + r][c0 + c] - 128 for c in range(8)] for r in range(8)]
            cols = [short_dct8([x[r][c] for r in range(8)]) for c in range(8)]
            y = [[cols[c][r] for c in range(8)] for r in range(8)]
            for r in range(8):
                out[r0 + r][c0:c0 + 8] = short_dct8(y[r])
    return out


def float_coefficients(img, W, H):
    """The orthonormal 8 x 8 DCT-II of pixel - 128 in float64 (both float DCTs compute it,
    within float32 rounding)."""
    c = [[(math.sqrt(0.125) if u == 0 else 0.5) * math.cos((2 * x + 1) * u * math.pi / 16)
          for x in range(8)] for u in range(8)]
    out = [[0.0] * W for _ in range(H)]
    for r0 in range(0, H, 8):
        for c0 in range(0, W, 8):
            x = [[img[r0 + r][c0 + k] - 128 for k in range(8)] for r in range(8)]
            t = [[sum(c[u][r] * x[r][k] for r in range(8)) for k in range(8)] for u in range(8)]
            for u in range(8):
                for v in range(8):
                    out[r0 + u][c0 + v] = sum(t[u][k] * c[v][k] for k in range(8))
    return out


# ------------------------------------------------------------------ the kernels' expected streams

def block8_lanes(w):
    """(tx, ty) of the 32 lanes of warp w of an 8 x 8 block."""
    return [(l % 8, 4 * w + l // 8) for l in range(32)]


def check_kernel1(tag, header, blocks, kernel, W, H, pitch, src, dst):
    """CUDAkernel1DCT / CUDAkernel1IDCT(Dst, ImgWidth = pitch / 4, 0, 0, TexSrc = the plane)."""
    code = Listing(APP, kernel)
    check_grid(tag, header, blocks, kernel, (W // 8, H // 8, 1), (8, 8, 1), 512)
    end = code.find(r"^EXIT")                 # straight-line: both 8-term loops unrolled
    # CurBlockLocal2's offset: the STS of the first product, [Rn.X4+OFF].
    local2 = int(re.search(r"\+0x([0-9a-f]+)\]", code.text[code.find(r"^STS .*\+0x")])
                 .group(1), 16)
    # The second product's 8 reads of CurBlockLocal2[ty*8 + i] are two LDS.U.128.
    same(f"{tag} LDS.U.128 in the listing", sum("LDS.U.128" in t for t in code.text), 2)
    wp = pitch // 4
    for (bx, by, _), warps in blocks.items():
        for w, insts in warps.items():
            where = f"{tag} block {bx},{by} warp {w}"
            p = Path(code)
            p.to(end)
            compare_path(where, insts, p)
            lanes = block8_lanes(w)
            off = [(by * 8 + ty) * wp + bx * 8 + tx for tx, ty in lanes]
            want = [(FULL, tuple(src + 4 * o for o in off))]
            same_multiset(f"{where} global loads", accesses(insts, "ldg"), want)
            want = [(FULL, tuple(dst + 4 * o for o in off))]
            same_multiset(f"{where} global stores", accesses(insts, "stg"), want)
            lds = [4 * (i * 8 + tx) for tx, ty in lanes for i in range(8)]
            lds += [local2 + 32 * ty + 16 * h for tx, ty in lanes for h in range(2)]
            lds += [4 * (ty * 8 + tx) for tx, ty in lanes]
            same_multiset(f"{where} shared load addresses", addresses(insts, "lds"), sorted(lds))
            sts = [4 * (ty * 8 + tx) for tx, ty in lanes] * 2
            sts += [local2 + 4 * (ty * 8 + tx) for tx, ty in lanes]
            same_multiset(f"{where} shared store addresses", addresses(insts, "sts"), sorted(sts))


def check_kernel2(tag, header, blocks, kernel, W, H, pitch, src, dst):
    """CUDAkernel2DCT / CUDAkernel2IDCT(dst, src, ImgStride = pitch / 4): block (8, 4, 2), a
    warp per threadIdx.z; shared block[16][33]."""
    code = Listing(APP, kernel)
    check_grid(tag, header, blocks, kernel, (W // 32, H // 16, 1), (8, 4, 2), 16 * 33 * 4)
    end = code.find(r"^EXIT")                 # straight-line: all loops unrolled
    s = pitch // 4
    for (bx, by, _), warps in blocks.items():
        for w, insts in warps.items():
            where = f"{tag} block {bx},{by} warp {w}"
            p = Path(code)
            p.to(end)
            compare_path(where, insts, p)
            z, rows = w, range(32)            # OffsThreadInRow = y * 8 + x = the lane
            base = [(by * 16 + z * 8) * s + bx * 32 + r for r in rows]
            want = [(FULL, tuple(src + 4 * (b + i * s) for b in base)) for i in range(8)]
            same_multiset(f"{where} global loads", accesses(insts, "ldg"), sorted(want))
            want = [(FULL, tuple(dst + 4 * (b + i * s) for b in base)) for i in range(8)]
            same_multiset(f"{where} global stores", accesses(insts, "stg"), sorted(want))
            bl = [z * 8 * 33 + r for r in rows]                       # bl_ptr
            row = [(z * 8 + r % 8) * 33 + r - r % 8 for r in rows]   # the row pass's vector
            col = [4 * (b + 33 * k) for b in bl for k in range(8)]
            rw = [4 * (v + k) for v in row for k in range(8)]
            same_multiset(f"{where} shared load addresses", addresses(insts, "lds"),
                          sorted(rw + col + col))                   # rows, columns, the copy out
            same_multiset(f"{where} shared store addresses", addresses(insts, "sts"),
                          sorted(col + rw + col))                   # the copy in, rows, columns


def check_short(tag, header, blocks, kernel, W, H, pitch, plane):
    """CUDAkernelShortDCT / CUDAkernelShortIDCT(SrcDst, ImgStride = pitch / 2): block (8, 4, 4),
    a warp per threadIdx.z; shared short block[32][34]."""
    code = Listing(APP, kernel)
    check_grid(tag, header, blocks, kernel, (W // 32, H // 32, 1), (8, 4, 4), 32 * 34 * 2)
    skip = code.find(r"^@P0 BRA")            # if (OffsThreadInRow < 16) around the loads
    join = code.target(skip)                  # BSYNC
    early = code.find(r"^@P0 EXIT")           # ... and around the stores
    end = code.find(r"^EXIT")
    s = pitch // 2
    for (bx, by, _), warps in blocks.items():
        for w, insts in warps.items():
            where = f"{tag} block {bx},{by} warp {w}"
            p = Path(code)
            p.to(skip)
            p.guard(skip, HI)                 # OffsThreadInRow = lane > 15 skips
            p.to(join - 1, LO)
            p.to(early)
            p.guard(early, HI)
            p.to(end, LO)
            compare_path(where, insts, p)
            z = w
            base = [2 * ((by * 32 + z * 8) * s + bx * 32 + 2 * l) for l in range(16)]
            for cls, what in (("ldg", "loads"), ("stg", "stores")):
                want = [(LO, tuple(plane + b + 4 * i * (s // 2) for b in base))
                        for i in range(8)]
                same_multiset(f"{where} global {what}", accesses(insts, cls), sorted(want))
            perm = [((r << 1) | ((r >> 4) & 1)) & 0x1F for r in range(32)]
            bl = [2 * (z * 8 * 34 + 2 * l) + 68 * i for l in range(16) for i in range(8)]
            col = [2 * ((z * 8 + k) * 34 + perm[r]) for r in range(32) for k in range(8)]
            row = [2 * (r * 34 + z * 8) + 4 * j for r in range(32) for j in range(4)]
            same_multiset(f"{where} shared load addresses", addresses(insts, "lds"),
                          sorted(col + row + bl))
            same_multiset(f"{where} shared store addresses", addresses(insts, "sts"),
                          sorted(bl + col + row))


def check_quant_float(tag, header, blocks, W, H, pitch, plane, coef, notes):
    """CUDAkernelQuantizationFloat(SrcDst, Stride = pitch / 4): 8 x 8 blocks."""
    code = Listing(APP, QF)
    check_grid(tag, header, blocks, QF, (W // 8, H // 8, 1), (8, 8, 1), 0)
    skip = code.find(r"^@!P0 BRA")            # FCHK passed: over the CALL to the slow path
    join = code.target(skip)
    end = code.find(r"^EXIT")
    s = pitch // 4
    if coef is not None:
        doubtful = sum(abs(v) < 1e-3 for row in coef for v in row)
        if doubtful:
            notes.append(f"{tag}: {doubtful} coefficient(s) may be 0 on the device; FCHK "
                         f"assumed not to fail on them")
    for (bx, by, _), warps in blocks.items():
        for w, insts in warps.items():
            where = f"{tag} block {bx},{by} warp {w}"
            p = Path(code)
            p.to(skip)
            p.guard(skip, FULL)               # every lane skips the CALL
            p.goto(join)
            p.to(end)
            compare_path(where, insts, p)
            off = tuple(plane + 4 * ((by * 8 + ty) * s + bx * 8 + tx) for tx, ty in block8_lanes(w))
            same_multiset(f"{where} global loads", accesses(insts, "ldg"), [(FULL, off)])
            same_multiset(f"{where} global stores", accesses(insts, "stg"), [(FULL, off)])


def check_quant_short(tag, header, blocks, W, H, pitch, plane, coef):
    """CUDAkernelQuantizationShort(SrcDst, Stride = pitch / 2): `if (curCoef < 0)` per lane."""
    code = Listing(APP, QS)
    check_grid(tag, header, blocks, QS, (W // 8, H // 8, 1), (8, 8, 1), 0)
    neg_bra = code.find(r"^@!P0 BRA")         # curCoef < 0 goes to the negative side
    neg = code.target(neg_bra)
    pos_end = neg - 1                         # BRA to the join
    join = code.target(pos_end)               # BSYNC
    end = code.find(r"^EXIT")
    # The derived guards of each side: the quotient's sign fix and the zero divisor.
    fixes = [k for k in range(neg_bra, join) if re.match(r"@!P\d IMAD.MOV R4, RZ, RZ, -R4",
                                                         code.text[k])]
    zeros = [k for k in range(neg_bra, join) if re.match(r"@!P2 LOP3.LUT", code.text[k])]
    same(f"{tag} sign fixes and zero-divisor cases in the listing", (len(fixes), len(zeros)),
         (2, 2))
    s = pitch // 2
    for (bx, by, _), warps in blocks.items():
        for w, insts in warps.items():
            where = f"{tag} block {bx},{by} warp {w}"
            lanes = block8_lanes(w)
            if coef is not None:
                c = [coef[by * 8 + ty][bx * 8 + tx] for tx, ty in lanes]
                m_neg = mask_of([v < 0 for v in c])
                q = [Q[ty * 8 + tx] for tx, ty in lanes]
                # the short dividend: |c| + (q >> 1), negative only if it overflowed
                d = [to_short((-v if v < 0 else v) + (qq >> 1)) for v, qq in zip(c, q)]
            else:
                # Without the input, the lanes are the trace's own, checked for consistency.
                m_neg = next((i[1] for i in insts if i[0] == 16 * neg_bra), 0)
                d = None
            m_pos = FULL & ~m_neg

            def build(order):
                p = Path(code)
                p.to(neg_bra)
                p.guard(neg_bra, m_neg)
                for side in order:
                    if side == "pos" and m_pos:
                        p.goto(neg_bra + 1)
                        p.to(pos_end, m_pos)
                    if side == "neg" and m_neg:
                        p.goto(neg)
                        p.to(join - 1, m_neg)
                p.goto(join)
                p.to(end)
                for k in zeros:
                    if any(it[0] == k for it in p.items):
                        p.guard(k, 0)         # Q has no zero
                for k in fixes:
                    if d is not None and any(it[0] == k for it in p.items):
                        m = m_pos if k < neg else m_neg
                        p.guard(k, m & mask_of([v < 0 for v in d]))
                return p

            try:
                compare_path(where, insts, build(("pos", "neg")))
            except Mismatch as first:
                if not (m_pos and m_neg):
                    raise
                try:
                    compare_path(where, insts, build(("neg", "pos")))
                except Mismatch:
                    raise first from None
            off = tuple(plane + 2 * ((by * 8 + ty) * s + bx * 8 + tx) for tx, ty in lanes)
            same_multiset(f"{where} global loads", accesses(insts, "ldg"), [(FULL, off)])
            same_multiset(f"{where} global stores", accesses(insts, "stg"), [(FULL, off)])


# ------------------------------------------------------------------ the workload

def pitch_of(row_bytes):
    return -(-row_bytes // 512) * 512


def check_dct8x8(copies, kernels, args):
    notes, img = [], None
    if args.get("file"):
        W, H, img = read_bmp(args["file"])
    else:
        W, H = int(args.get("width", 512)), int(args.get("height", 512))
        notes.append("no file=: the short quantization's lanes are not derived (the trace's own)")
    if W % 32 or H % 32:
        print("check-workload: dct8x8: width and height must be multiples of 32", file=sys.stderr)
        sys.exit(2)
    runs1, runs2 = int(args.get("dct1_runs", 1)), int(args.get("dct2_runs", 1))
    pf, ps = pitch_of(4 * W), pitch_of(2 * W)
    a_src, a_dst, b_src, b_dst, c_plane = allocate([pf * H] * 4 + [ps * H])
    same("host copies", copies, [(a_src, pf * H), (b_src, pf * H), (c_plane, ps * H)])
    same("launches", len(kernels), runs1 + 2 + runs2 + 2 + 3)
    fcoef = float_coefficients(img, W, H) if img is not None else None
    scoef = short_coefficients(img, W, H) if img is not None else None
    k = iter(enumerate(kernels, 1))
    for _ in range(runs1):
        n, (h, b) = next(k)
        check_kernel1(f"launch {n} (CUDAkernel1DCT)", h, b, K1DCT, W, H, pf, a_src, a_dst)
    n, (h, b) = next(k)
    check_quant_float(f"launch {n} (CUDAkernelQuantizationFloat)", h, b, W, H, pf, a_dst, fcoef,
                      notes)
    n, (h, b) = next(k)
    check_kernel1(f"launch {n} (CUDAkernel1IDCT)", h, b, K1IDCT, W, H, pf, a_src, a_dst)
    for _ in range(runs2):
        n, (h, b) = next(k)
        check_kernel2(f"launch {n} (CUDAkernel2DCT)", h, b, K2DCT, W, H, pf, b_src, b_dst)
    n, (h, b) = next(k)
    check_quant_float(f"launch {n} (CUDAkernelQuantizationFloat)", h, b, W, H, pf, b_dst, fcoef,
                      notes)
    n, (h, b) = next(k)
    check_kernel2(f"launch {n} (CUDAkernel2IDCT)", h, b, K2IDCT, W, H, pf, b_dst, b_src)
    n, (h, b) = next(k)
    check_short(f"launch {n} (CUDAkernelShortDCT)", h, b, KSDCT, W, H, ps, c_plane)
    n, (h, b) = next(k)
    check_quant_short(f"launch {n} (CUDAkernelQuantizationShort)", h, b, W, H, ps, c_plane,
                      scoef)
    n, (h, b) = next(k)
    check_short(f"launch {n} (CUDAkernelShortIDCT)", h, b, KSIDCT, W, H, ps, c_plane)

    # Per array, the lines its loads and its stores touch: every array is read and written
    # over exactly the image's W x H region of its pitched plane (Src is only read).
    arrays = {"Src": (a_src, pf, 4), "Dst": (a_dst, pf, 4), "src": (b_src, pf, 4),
              "dst": (b_dst, pf, 4), "SrcDst": (c_plane, ps, 2)}
    got = {}
    for _, blocks in kernels:
        for tb, warps in blocks.items():
            for w, insts in warps.items():
                for i in insts:
                    cls = opcode_class(i[2])
                    if cls not in ("ldg", "stg"):
                        continue
                    for a in i[3]:
                        for name, (base, pitch, _) in arrays.items():
                            if base <= a < base + pitch * H:
                                got.setdefault((name, cls), set()).add(a // 128)
                                break
                        else:
                            raise Mismatch(f"block {tb} warp {w} PC {i[0]:#x}: address {a:#x} "
                                           f"is in no array")
    want = {}
    for name, (base, pitch, size) in arrays.items():
        region = lines_of(base + r * pitch + size * c for r in range(H) for c in range(W))
        for cls in ("ldg", "stg"):
            if not (name == "Src" and cls == "stg"):
                want[(name, cls)] = region
    for key in sorted(set(got) | set(want)):
        same(f"lines of {key[0]} {'loaded' if key[1] == 'ldg' else 'stored'}",
             got.get(key, set()), want.get(key, set()))
    for note in notes:
        print(f"check-workload: dct8x8: note: {note}", file=sys.stderr)


CHECKS = {"dct8x8": check_dct8x8}


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5):
        sys.exit("usage: python3 -m workload_checks.dct8x8 PATH WIDTH HEIGHT [SEED]")
    write_bmp(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]),
              int(sys.argv[4]) if len(sys.argv) == 5 else 1)
