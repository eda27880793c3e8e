"""blackscholes: NVIDIA cuda-samples v11.5 Samples/BlackScholes (BlackScholes.cu's host code,
BlackScholes_kernel.cuh's BlackScholesGPU), re-derived independently of the emulator.

Host: cudaMalloc d_CallResult, d_PutResult, d_StockPrice, d_OptionStrike, d_OptionYears
(OPT_N floats each), copy StockPrice, OptionStrike, OptionYears; `iterations` launches of
BlackScholesGPU<<<DIV_UP(OPT_N / 2, 128), 128>>>.

Kernel: opt = blockDim.x * blockIdx.x + threadIdx.x; if (opt < optN / 2) read the float2
d_StockPrice[opt], d_OptionStrike[opt], d_OptionYears[opt], price two options, store the float2
d_CallResult[opt] and d_PutResult[opt]. Straight-line code but for two things in the listing:
the early `@P0 EXIT` (opt >= optN / 2) and the two `S / X` divisions, each with an FCHK-guarded
call of the slow division subroutine. FCHK asks for the slow path only for operands that are
denormal, infinite, NaN or at the exponent range's ends; the sample's inputs are S in [5, 30]
and X in [1, 100] (RandFloat), so no lane calls it: the `@!P0 BRA` over each call is taken by
every live lane. The lanes with opt < optN / 2 are the live ones; a warp with none exits at the
EXIT (its EXIT's lanes: all).
"""
from .common import allocate, lines_of, same
from .warp_paths import (Listing, Path, addresses, check_grid, compare_warp,
                         lines_by_array, same_addresses)


def check_blackscholes(copies, kernels, args):
    options = int(args.get("options", 262144))
    iterations = int(args.get("iterations", 1))
    name = "_Z15BlackScholesGPUP6float2S0_S0_S0_S0_ffi"
    code = Listing("blackscholes", name)
    nbytes = 4 * options
    call, put, price, strike, years = allocate([nbytes] * 5)
    same("host copies", copies, [(price, nbytes), (strike, nbytes), (years, nbytes)])
    same("launches", len(kernels), iterations)
    half = options // 2
    grid = -(-half // 128)
    early = code.find(r"@P0 EXIT")
    end = code.find(r"^EXIT")
    # The two FCHK-guarded calls: `@!P0 BRA` over `MOV, MOV, MOV, CALL, MOV` to a BSYNC.
    skips = [k for k in code.all(r"BRA 0x", 0, end)
             if "CALL" in code.text[code.target(k) - 2] and
             code.text[code.target(k)].startswith("BSYNC")]
    same("FCHK-guarded calls in the listing", len(skips), 2)
    ldg = code.all(r"LDG", 0, end)
    for n, (header, blocks) in enumerate(kernels):
        same(f"launch {n} kernel name", header["kernel name"], name)
        same(f"launch {n} shared memory", header["shmem"], "0")
        check_grid(header, blocks, (grid, 1, 1), (128, 1, 1))
        for (bx, _, _), warps in blocks.items():
            for w, insts in warps.items():
                where = f"launch {n} block {bx} warp {w}"
                first = 128 * bx + 32 * w
                live = [l for l in range(32) if first + l < half]
                mask = sum(1 << l for l in live)
                p = Path(code)
                p.to(early)
                loads, stores = [], []
                if live:
                    for s in skips:
                        p.to(s, mask)              # the call skipped by every live lane
                        p.goto(code.target(s))
                    p.to(end, mask)
                    for l in live:
                        o = 8 * (first + l)        # float2 index opt
                        loads += [price + o, strike + o, years + o]
                        stores += [call + o, put + o]
                compare_warp(where, insts, p)
                same(f"{where} loads", len([i for i in insts if i[2].startswith("LDG")]),
                     len(ldg) if live else 0)
                same_addresses(f"{where} load addresses", addresses(insts, ("ldg",)),
                               sorted(loads))
                same_addresses(f"{where} store addresses", addresses(insts, ("stg",)),
                               sorted(stores))
        arrays = {"d_CallResult": (call, nbytes), "d_PutResult": (put, nbytes),
                  "d_StockPrice": (price, nbytes), "d_OptionStrike": (strike, nbytes),
                  "d_OptionYears": (years, nbytes)}
        used = lambda base: lines_of(range(base, base + 8 * half, 4))  # noqa: E731
        got = lines_by_array([(header, blocks)], arrays, ("ldg",))
        same(f"launch {n} lines loaded", got, {"d_CallResult": set(), "d_PutResult": set(),
                                               "d_StockPrice": used(price),
                                               "d_OptionStrike": used(strike),
                                               "d_OptionYears": used(years)})
        got = lines_by_array([(header, blocks)], arrays, ("stg",))
        same(f"launch {n} lines stored", got, {"d_CallResult": used(call),
                                               "d_PutResult": used(put),
                                               "d_StockPrice": set(), "d_OptionStrike": set(),
                                               "d_OptionYears": set()})


CHECKS = {"blackscholes": check_blackscholes}
