use super::*;

// ---- histogram -----------------------------------------------------------------------------

pub(in crate::suite::apps) const HISTOGRAM: Workload = Workload {
    name: "histogram",
    suite: SUITE,
    source: "NVIDIA/cuda-samples v11.5 Samples/histogram/ (histogram64.cu, histogram256.cu, \
             main.cpp)",
    args: &[
        (
            "bytes",
            "4194304",
            "bytes of data, a multiple of 16 (the sample's byteCount: 67108864 = 64 MiB, times \
             its sizemult)",
        ),
        (
            "runs",
            "0",
            "timed runs of each histogram after its warm-up run (the sample's numRuns: 16)",
        ),
    ],
    input: "bytes rand() % 256 after srand(2009) (the sample's own, glibc's rand())",
    small: "bytes=16",
    make: histogram,
};

/// histogram_common.h's and the .cu files' sizes.
pub(super) const H64_BINS: u32 = 64;
pub(super) const H256_BINS: u32 = 256;
pub(super) const H64_BLOCK: u32 = 64;
pub(super) const H256_BLOCK: u32 = 6 * 32;
pub(super) const MERGE_BLOCK: u32 = 256;
pub(super) const MAX_PARTIAL_H64: u32 = 32768;
pub(super) const PARTIAL_H256: u32 = 240;
/// Bytes one histogram64 block counts: its threads' 8-bit counters take at most 240 bytes
/// each (`iSnapDown(255, sizeof(data_t))`, 255 rounded down to a multiple of a `uint4`'s 16).
pub(super) const H64_BLOCK_BYTES: u32 = H64_BLOCK * 240;

pub(super) fn histogram(args: &Args, _seed: u64) -> Result<Box<dyn App>, SuiteError> {
    // (histogram64() asserts at most 32768 partial histograms: 503,316,480 bytes.)
    let bytes = args.int(
        "bytes",
        4 << 20,
        16,
        u64::from(MAX_PARTIAL_H64 * H64_BLOCK_BYTES),
    )?;
    args.multiple_of("bytes", bytes, 16, "histogram64 reads the data as uint4")?;
    // (At most 503,316,480: fits.)
    let bytes = bytes as u32;
    let runs = args.int("runs", 0, 0, 1000)? as usize;
    let h64 = HISTOGRAM64_SASS.kernel("_Z17histogram64KernelPjP5uint4j")?;
    let merge64 = HISTOGRAM64_SASS.kernel("_Z22mergeHistogram64KernelPjS_j")?;
    let h256 = HISTOGRAM256_SASS.kernel("_Z18histogram256KernelPjS_j")?;
    let merge256 = HISTOGRAM256_SASS.kernel("_Z23mergeHistogram256KernelPjS_j")?;
    let mut rng = CRand::new(2009);
    let data: Vec<u8> = (0..bytes).map(|_| (rng.rand() % 256) as u8).collect();
    // histogram64CPU and histogram256CPU: the top 6 bits of each byte, and the whole byte.
    let mut want64 = vec![0u32; H64_BINS as usize];
    let mut want256 = vec![0u32; H256_BINS as usize];
    for &b in &data {
        want64[usize::from(b >> 2)] += 1;
        want256[usize::from(b)] += 1;
    }
    let setup: Setup = Box::new(move |mem| {
        let d_data = mem.alloc(bytes.into());
        let d_hist = mem.alloc(u64::from(H256_BINS) * 4);
        mem.copy_in(d_data, &data).map_err(fault)?;
        let mut steps = Vec::new();
        // initHistogram64, then the warm-up run and the timed ones.
        let partial64 = mem.alloc(u64::from(MAX_PARTIAL_H64 * H64_BINS) * 4);
        let count64 = bytes.div_ceil(H64_BLOCK_BYTES);
        for _ in 0..=runs {
            steps.push(launch(
                &h64,
                [count64, 1, 1],
                [H64_BLOCK, 1, 1],
                0,
                vec![
                    Param::Ptr(partial64),
                    Param::Ptr(d_data),
                    Param::U32(bytes / 16),
                ],
            ));
            steps.push(launch(
                &merge64,
                [H64_BINS, 1, 1],
                [MERGE_BLOCK, 1, 1],
                0,
                vec![
                    Param::Ptr(d_hist),
                    Param::Ptr(partial64),
                    Param::U32(count64),
                ],
            ));
        }
        steps.push(Step::Check(Box::new(move |mem| {
            let got = mem.read_u32(d_hist, H64_BINS as usize).map_err(fault)?;
            compare_exact("histogram64", &got, &want64)
        })));
        // initHistogram256 (closeHistogram64's free is not modelled: a new allocation).
        let partial256 = mem.alloc(u64::from(PARTIAL_H256 * H256_BINS) * 4);
        for _ in 0..=runs {
            steps.push(launch(
                &h256,
                [PARTIAL_H256, 1, 1],
                [H256_BLOCK, 1, 1],
                0,
                vec![
                    Param::Ptr(partial256),
                    Param::Ptr(d_data),
                    Param::U32(bytes / 4),
                ],
            ));
            steps.push(launch(
                &merge256,
                [H256_BINS, 1, 1],
                [MERGE_BLOCK, 1, 1],
                0,
                vec![
                    Param::Ptr(d_hist),
                    Param::Ptr(partial256),
                    Param::U32(PARTIAL_H256),
                ],
            ));
        }
        steps.push(Step::Check(Box::new(move |mem| {
            let got = mem.read_u32(d_hist, H256_BINS as usize).map_err(fault)?;
            compare_exact("histogram256", &got, &want256)
        })));
        Ok(steps)
    });
    Ok(Staged::boxed(setup))
}
