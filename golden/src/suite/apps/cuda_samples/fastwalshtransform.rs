use super::*;

// ---- fastWalshTransform --------------------------------------------------------------------

pub(in crate::suite::apps) const FASTWALSHTRANSFORM: Workload = Workload {
    name: "fastwalshtransform",
    suite: SUITE,
    source: "NVIDIA/cuda-samples v11.5 Samples/fastWalshTransform/ (fastWalshTransform.cu, \
             fastWalshTransform_kernel.cuh)",
    args: &[(
        "log2data",
        "18",
        "log2 of the data length, 7 to 23 (the sample's log2Data: 23); the kernel is 2^7 long",
    )],
    input: "kernel and data rand() / RAND_MAX after srand(2007) (the sample's own, glibc's \
            rand())",
    small: "log2data=10",
    make: fastwalshtransform,
};

/// fastWalshTransform.cu's `log2Kernel`, and its kernels' `ELEMENTARY_LOG2SIZE` and
/// `THREAD_N`.
pub(super) const FWT_LOG2_KERNEL: u32 = 7;
pub(super) const FWT_ELEMENTARY_LOG2: u32 = 11;
pub(super) const FWT_THREADS: u32 = 256;

pub(super) fn fastwalshtransform(args: &Args, _seed: u64) -> Result<Box<dyn App>, SuiteError> {
    // (At most 23: every size below fits in 32 bits.)
    let log2data = args.int("log2data", 18, u64::from(FWT_LOG2_KERNEL), 23)? as u32;
    let batch2 = FASTWALSHTRANSFORM_SASS.kernel("_Z15fwtBatch2KernelPfS_i")?;
    let batch1 = FASTWALSHTRANSFORM_SASS.kernel("_Z15fwtBatch1KernelPfS_i")?;
    let modulate = FASTWALSHTRANSFORM_SASS.kernel("_Z14modulateKernelPfS_i")?;
    let data_n = 1usize << log2data;
    let kernel_n = 1usize << FWT_LOG2_KERNEL;
    let mut rng = CRand::new(2007);
    let h_kernel: Vec<f32> = (0..kernel_n).map(|_| rng.unit_f32()).collect();
    let h_data: Vec<f32> = (0..data_n).map(|_| rng.unit_f32()).collect();
    // dyadicConvolutionCPU: the straightforward dyadic convolution, summed in double.
    let want: Vec<f64> = (0..data_n)
        .map(|i| {
            let sum: f64 = (0..kernel_n)
                .map(|j| f64::from(h_data[i ^ j] * h_kernel[j]))
                .sum();
            f64::from(sum as f32)
        })
        .collect();
    let setup: Setup = Box::new(move |mem| {
        let bytes = data_n as u64 * 4;
        let d_kernel = mem.alloc(bytes);
        let d_data = mem.alloc(bytes);
        // (cudaMemset(d_Kernel, 0) leaves the fresh allocation as it is: zero.)
        mem.write_f32(d_kernel, &h_kernel).map_err(fault)?;
        mem.write_f32(d_data, &h_data).map_err(fault)?;
        // fwtBatchGPU(d, 1, log2Data): radix-4 passes through global memory while the length
        // exceeds the elementary size, then one in-shared-memory pass per remaining block.
        let fwt = |d: u64, steps: &mut Vec<Step>| {
            let mut log2n = log2data;
            let mut m = 1u32;
            // (The grid is computed once, from the whole length.)
            let grid = [(1u32 << log2n) / (4 * FWT_THREADS), 1, 1];
            while log2n > FWT_ELEMENTARY_LOG2 {
                let stride = (1i32 << log2n) / 4;
                steps.push(launch(
                    &batch2,
                    grid,
                    [FWT_THREADS, 1, 1],
                    0,
                    vec![Param::Ptr(d), Param::Ptr(d), Param::I32(stride)],
                ));
                log2n -= 2;
                m <<= 2;
            }
            let n = 1u32 << log2n;
            steps.push(launch(
                &batch1,
                [m, 1, 1],
                [n / 4, 1, 1],
                n * 4,
                vec![Param::Ptr(d), Param::Ptr(d), Param::I32(log2n as i32)],
            ));
        };
        let mut steps = Vec::new();
        fwt(d_data, &mut steps);
        fwt(d_kernel, &mut steps);
        steps.push(launch(
            &modulate,
            [128, 1, 1],
            [256, 1, 1],
            0,
            vec![
                Param::Ptr(d_data),
                Param::Ptr(d_kernel),
                Param::I32(data_n as i32),
            ],
        ));
        fwt(d_data, &mut steps);
        steps.push(Step::Check(Box::new(move |mem| {
            let got = mem.read_f32(d_data, data_n).map_err(fault)?;
            within("the dyadic convolution", &got, &want, 2, 1e-6)
        })));
        Ok(steps)
    });
    Ok(Staged::boxed(setup))
}
