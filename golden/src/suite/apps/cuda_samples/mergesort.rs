use super::*;

// ---- mergeSort -----------------------------------------------------------------------------

pub(in crate::suite::apps) const MERGESORT: Workload = Workload {
    name: "mergesort",
    suite: SUITE,
    source: "NVIDIA/cuda-samples v11.5 Samples/mergeSort/ (mergeSort.cu, main.cpp)",
    args: &[(
        "n",
        "65536",
        "keys to sort, a multiple of 1024 up to 4194304 (the sample's N: 4194304)",
    )],
    input: "keys rand() % 65536 after srand(2009), values 0, 1, 2, ... (the sample's own, \
            glibc's rand())",
    small: "n=2048",
    make: mergesort,
};

/// mergeSort_common.h's `SHARED_SIZE_LIMIT` and `SAMPLE_STRIDE`, mergeSort.cu's
/// `MAX_SAMPLE_COUNT`, main.cpp's `numValues`.
pub(super) const MS_SHARED: u32 = 1024;
pub(super) const MS_SAMPLE_STRIDE: u32 = 128;
pub(super) const MS_MAX_SAMPLES: u32 = 32768;
pub(super) const MS_VALUES: u32 = 65536;

pub(super) fn mergesort(args: &Args, _seed: u64) -> Result<Box<dyn App>, SuiteError> {
    // (mergeSort() asserts N <= SAMPLE_STRIDE * MAX_SAMPLE_COUNT and N % SHARED_SIZE_LIMIT == 0.)
    let n = args.int(
        "n",
        65536,
        u64::from(MS_SHARED),
        u64::from(MS_SAMPLE_STRIDE * MS_MAX_SAMPLES),
    )?;
    args.multiple_of("n", n, MS_SHARED.into(), "mergeSort() asserts it")?;
    // (At most 4194304: fits.)
    let n = n as u32;
    let kernels = MergeKernels {
        shared: MERGESORT_SASS.kernel("_Z21mergeSortSharedKernelILj1EEvPjS0_S0_S0_j")?,
        ranks: MERGESORT_SASS.kernel("_Z25generateSampleRanksKernelILj1EEvPjS0_S0_jjj")?,
        limits: MERGESORT_SASS.kernel("_Z26mergeRanksAndIndicesKernelPjS_jjj")?,
        merge: MERGESORT_SASS
            .kernel("_Z30mergeElementaryIntervalsKernelILj1EEvPjS0_S0_S0_S0_S0_jj")?,
    };
    let mut rng = CRand::new(2009);
    let keys: Vec<u32> = (0..n).map(|_| rng.rand() % MS_VALUES).collect();
    let vals: Vec<u32> = (0..n).collect();
    // The sort is stable (the sample checks it and reports it): the keys in order, equal keys
    // in their source order.
    let mut want_vals = vals.clone();
    want_vals.sort_by_key(|&i| keys[i as usize]);
    let want_keys: Vec<u32> = want_vals.iter().map(|&i| keys[i as usize]).collect();
    let setup: Setup = Box::new(move |mem| {
        let bytes = u64::from(n) * 4;
        let [dst_key, dst_val, buf_key, buf_val, src_key, src_val] =
            [(); 6].map(|_| mem.alloc(bytes));
        mem.write_u32(src_key, &keys).map_err(fault)?;
        mem.write_u32(src_val, &vals).map_err(fault)?;
        // initMergeSort.
        let [ranks_a, ranks_b, limits_a, limits_b] =
            [(); 4].map(|_| mem.alloc(u64::from(MS_MAX_SAMPLES) * 4));
        let mut stages = 0;
        let mut stride = MS_SHARED;
        while stride < n {
            stride <<= 1;
            stages += 1;
        }
        let (mut ikey, mut ival, mut okey, mut oval) = if stages % 2 == 1 {
            (buf_key, buf_val, dst_key, dst_val)
        } else {
            (dst_key, dst_val, buf_key, buf_val)
        };
        let mut steps = vec![launch(
            &kernels.shared,
            [n / MS_SHARED, 1, 1],
            [MS_SHARED / 2, 1, 1],
            0,
            vec![
                Param::Ptr(ikey),
                Param::Ptr(ival),
                Param::Ptr(src_key),
                Param::Ptr(src_val),
                Param::U32(MS_SHARED),
            ],
        )];
        let scratch = MergeScratch {
            ranks: [ranks_a, ranks_b],
            limits: [limits_a, limits_b],
        };
        let mut stride = MS_SHARED;
        while stride < n {
            let (input, output) = ([ikey, ival], [okey, oval]);
            steps.extend(merge_stage(&kernels, &scratch, input, output, stride, n));
            std::mem::swap(&mut ikey, &mut okey);
            std::mem::swap(&mut ival, &mut oval);
            stride <<= 1;
        }
        steps.push(Step::Check(Box::new(move |mem| {
            let len = n as usize;
            compare_exact(
                "keys",
                &mem.read_u32(dst_key, len).map_err(fault)?,
                &want_keys,
            )?;
            compare_exact(
                "values",
                &mem.read_u32(dst_val, len).map_err(fault)?,
                &want_vals,
            )
        })));
        Ok(steps)
    });
    Ok(Staged::boxed(setup))
}

/// The four kernels mergeSort launches.
struct MergeKernels {
    shared: Arc<KernelCode>,
    ranks: Arc<KernelCode>,
    limits: Arc<KernelCode>,
    merge: Arc<KernelCode>,
}

/// initMergeSort's arrays: the sample ranks and limits of the A and B halves of each pair.
struct MergeScratch {
    ranks: [u64; 2],
    limits: [u64; 2],
}

/// One pass of mergeSort's host loop: the sorted runs of `stride` keys in `input` (keys,
/// values) merged in pairs into `output`: generateSampleRanks, mergeRanksAndIndices for A and
/// B, mergeElementaryIntervals, and the unpaired tail's copy.
fn merge_stage(
    k: &MergeKernels,
    s: &MergeScratch,
    [ikey, ival]: [u64; 2],
    [okey, oval]: [u64; 2],
    stride: u32,
    n: u32,
) -> Vec<Step> {
    let last = n % (2 * stride);
    let threads = if last > stride {
        (n + 2 * stride - last) / (2 * MS_SAMPLE_STRIDE)
    } else {
        (n - last) / (2 * MS_SAMPLE_STRIDE)
    };
    let grid = [threads.div_ceil(256), 1, 1];
    let mut steps = vec![launch(
        &k.ranks,
        grid,
        [256, 1, 1],
        0,
        vec![
            Param::Ptr(s.ranks[0]),
            Param::Ptr(s.ranks[1]),
            Param::Ptr(ikey),
            Param::U32(stride),
            Param::U32(n),
            Param::U32(threads),
        ],
    )];
    for (l, r) in s.limits.into_iter().zip(s.ranks) {
        steps.push(launch(
            &k.limits,
            grid,
            [256, 1, 1],
            0,
            vec![
                Param::Ptr(l),
                Param::Ptr(r),
                Param::U32(stride),
                Param::U32(n),
                Param::U32(threads),
            ],
        ));
    }
    let pairs = if last > stride {
        n.div_ceil(MS_SAMPLE_STRIDE)
    } else {
        (n - last) / MS_SAMPLE_STRIDE
    };
    steps.push(launch(
        &k.merge,
        [pairs, 1, 1],
        [MS_SAMPLE_STRIDE, 1, 1],
        0,
        vec![
            Param::Ptr(okey),
            Param::Ptr(oval),
            Param::Ptr(ikey),
            Param::Ptr(ival),
            Param::Ptr(s.limits[0]),
            Param::Ptr(s.limits[1]),
            Param::U32(stride),
            Param::U32(n),
        ],
    ));
    if last <= stride && last > 0 {
        // The last segment has no partner: the host copies it through (device to
        // device; not a host copy).
        let off = u64::from(n - last) * 4;
        steps.push(Step::Host(Box::new(move |mem| {
            let mut tail = vec![0; last as usize * 4];
            for (from, to) in [(ikey, okey), (ival, oval)] {
                mem.read(from + off, &mut tail).map_err(fault)?;
                mem.write(to + off, &tail).map_err(fault)?;
            }
            Ok(())
        })));
    }
    steps
}
