// Pointer-chase latency microbenchmark of warpsmith's workload library (suite ubench, workload
// ubench-chase). One thread follows j = a[j] for `steps` steps, so each load's address is the
// previous load's value: the warp has one load in flight at a time and each step costs the
// load-to-use latency of the level the array lives in, plus the address arithmetic between
// the loads (the index scaled and added to the base). The host lays the array out as a ring
// with a given stride over a given footprint and checks the final index written to `out`.
//
// chase_ca: ordinary loads (ld.global, cached in the L1 under -dlcm=ca, as the build passes).
// chase_cg: __ldcg (ld.global.cg): cached in the L2 only, the L1 bypassed.
// `#pragma unroll 1` keeps one load per loop iteration; the loop counter's update and
// branch do not depend on the load and issue while it is in flight.

extern "C" __global__ void chase_ca(unsigned *a, unsigned j, unsigned steps, unsigned *out)
{
#pragma unroll 1
    for (unsigned i = 0; i < steps; ++i)
        j = a[j];
    *out = j;
}

extern "C" __global__ void chase_cg(unsigned *a, unsigned j, unsigned steps, unsigned *out)
{
#pragma unroll 1
    for (unsigned i = 0; i < steps; ++i)
        j = __ldcg(a + j);
    *out = j;
}
