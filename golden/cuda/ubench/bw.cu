// Bandwidth microbenchmarks of warpsmith's workload library (suite ubench, workload ubench-bw).
// Many warps stream coalesced 16-byte loads (each warp's 32 lanes read 512 consecutive bytes)
// over a footprint, `reps` times, and each thread writes the wrapping sum of the words it read
// to out[thread], which the host checks.
//
// bw_block: every block reads the same n elements (block-stride), so each SM's L1 holds the
//           whole footprint after the first pass: L1 bandwidth.
// bw_grid_cg: the grid reads n elements once between them (grid-stride) with __ldcg (L2 only,
//           the L1 bypassed), `reps` times: L2 bandwidth for a footprint inside the L2.
// bw_grid:  the same with ordinary loads: DRAM bandwidth for a footprint well beyond the L2.
// copy:     b[i] = a[i] over n elements, grid-stride: DRAM read and write bandwidth.

extern "C" __global__ void bw_block(uint4 *a, unsigned n, unsigned reps, unsigned *out)
{
    unsigned s = 0;
    for (unsigned r = 0; r < reps; ++r)
        for (unsigned i = threadIdx.x; i < n; i += blockDim.x) {
            uint4 v = a[i];
            s += v.x + v.y + v.z + v.w;
        }
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

extern "C" __global__ void bw_grid_cg(uint4 *a, unsigned n, unsigned reps, unsigned *out)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned s = 0;
    for (unsigned r = 0; r < reps; ++r)
        for (unsigned i = t; i < n; i += gridDim.x * blockDim.x) {
            uint4 v = __ldcg(a + i);
            s += v.x + v.y + v.z + v.w;
        }
    out[t] = s;
}

extern "C" __global__ void bw_grid(uint4 *a, unsigned n, unsigned reps, unsigned *out)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned s = 0;
    for (unsigned r = 0; r < reps; ++r)
        for (unsigned i = t; i < n; i += gridDim.x * blockDim.x) {
            uint4 v = a[i];
            s += v.x + v.y + v.z + v.w;
        }
    out[t] = s;
}

extern "C" __global__ void copy(uint4 *a, uint4 *b, unsigned n)
{
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        b[i] = a[i];
}
