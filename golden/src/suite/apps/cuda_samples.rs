//! The CUDA SDK samples of AccelWattch's validation set (NVIDIA/cuda-samples v11.5,
//! `Samples/<name>/`), each with its own host code's launch sequence, sizes and input
//! generation (the samples' `srand`/`rand` are glibc's, reproduced by [`CRand`]), at a
//! default size small enough to emulate in seconds (each argument's meaning says the sample's).

use super::super::mem::{DeviceMemory, Fault};
use super::super::sass::KernelCode;
use super::super::{App, Args, Launch, Param, SuiteError, Workload};
use super::crand::CRand;
use super::Listing;
use std::collections::VecDeque;
use std::sync::Arc;

const SUITE: &str = "CUDA SDK 11 samples";

pub(super) static HISTOGRAM64_SASS: Listing = Listing::new(
    "histogram64.sass",
    include_str!("../../../sass/histogram64.sass"),
);
pub(super) static HISTOGRAM256_SASS: Listing = Listing::new(
    "histogram256.sass",
    include_str!("../../../sass/histogram256.sass"),
);
pub(super) static FASTWALSHTRANSFORM_SASS: Listing = Listing::new(
    "fastwalshtransform.sass",
    include_str!("../../../sass/fastwalshtransform.sass"),
);
pub(super) static MERGESORT_SASS: Listing = Listing::new(
    "mergesort.sass",
    include_str!("../../../sass/mergesort.sass"),
);
pub(super) static SOBOLQRNG_SASS: Listing = Listing::new(
    "sobolqrng.sass",
    include_str!("../../../sass/sobolqrng.sass"),
);
pub(super) static SCALARPROD_SASS: Listing = Listing::new(
    "scalarprod.sass",
    include_str!("../../../sass/scalarprod.sass"),
);
pub(super) static CONVOLUTIONSEPARABLE_SASS: Listing = Listing::new(
    "convolutionseparable.sass",
    include_str!("../../../sass/convolutionseparable.sass"),
);
pub(super) static QUASIRANDOMGENERATOR_SASS: Listing = Listing::new(
    "quasirandomgenerator.sass",
    include_str!("../../../sass/quasirandomgenerator.sass"),
);
pub(super) static BLACKSCHOLES_SASS: Listing = Listing::new(
    "blackscholes.sass",
    include_str!("../../../sass/blackscholes.sass"),
);
pub(super) static BINOMIALOPTIONS_SASS: Listing = Listing::new(
    "binomialoptions.sass",
    include_str!("../../../sass/binomialoptions.sass"),
);

// ---- the host side shared by the samples ---------------------------------------------------

/// A check of the device memory, run when the host program reaches it.
pub(super) type Check = Box<dyn Fn(&DeviceMemory) -> Result<(), String>>;

/// A host action between launches (a device-to-device copy).
pub(super) type HostOp = Box<dyn FnOnce(&mut DeviceMemory) -> Result<(), String>>;

/// One step of a host program.
pub(super) enum Step {
    Launch(Launch),
    /// Copy results back and compare them with the host's (as the sample does between its
    /// phases, before the next phase overwrites them).
    Check(Check),
    Host(HostOp),
}

/// Sets up the device memory (allocations and input copies): the steps that follow.
pub(super) type Setup = Box<dyn FnOnce(&mut DeviceMemory) -> Result<Vec<Step>, String>>;

/// A host program whose launches do not depend on earlier results: its steps in order, each
/// check run when reached (its failure kept for [`App::verify`]).
pub(super) struct Staged {
    setup: Option<Setup>,
    steps: VecDeque<Step>,
    failure: Option<String>,
}

impl Staged {
    pub(super) fn boxed(setup: Setup) -> Box<dyn App> {
        Box::new(Staged {
            setup: Some(setup),
            steps: VecDeque::new(),
            failure: None,
        })
    }
}

impl App for Staged {
    fn next(&mut self, mem: &mut DeviceMemory) -> Result<Option<Launch>, String> {
        if let Some(setup) = self.setup.take() {
            self.steps = setup(mem)?.into();
        }
        while let Some(step) = self.steps.pop_front() {
            match step {
                Step::Launch(l) => return Ok(Some(l)),
                Step::Host(op) => op(mem)?,
                Step::Check(c) => {
                    if self.failure.is_none() {
                        self.failure = c(mem).err();
                    }
                }
            }
        }
        Ok(None)
    }

    fn verify(&self, _mem: &DeviceMemory) -> Result<(), String> {
        if !self.steps.is_empty() || self.setup.is_some() {
            return Err("the host program did not run to its end".into());
        }
        self.failure.clone().map_or(Ok(()), Err)
    }
}

pub(super) fn launch(
    kernel: &Arc<KernelCode>,
    grid: [u32; 3],
    block: [u32; 3],
    dyn_shared: u32,
    params: Vec<Param>,
) -> Step {
    Step::Launch(Launch {
        kernel: Arc::clone(kernel),
        grid,
        block,
        dyn_shared,
        params,
    })
}

fn fault(f: Fault) -> String {
    f.to_string()
}

/// Compare integer results `got` with the host's `want`, naming the first that differs.
fn compare_exact<T: PartialEq + std::fmt::Display>(
    what: &str,
    got: &[T],
    want: &[T],
) -> Result<(), String> {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if g != w {
            return Err(format!("{what}[{i}] = {g}, the host computes {w}"));
        }
    }
    Ok(())
}

/// The samples' error norm of `got` against the host's `want`: `(sum |got - want|^p / sum
/// |want|^p)^(1/p)` (p = 1: the L1 norm most samples print; p = 2: the L2 norm).
fn norm(got: &[f32], want: &[f64], p: i32) -> f64 {
    let (mut delta, mut sum) = (0.0, 0.0);
    for (g, w) in got.iter().zip(want) {
        delta += (f64::from(*g) - w).abs().powi(p);
        sum += w.abs().powi(p);
    }
    (delta / sum).powf(1.0 / f64::from(p))
}

/// Refuse `got` unless its `p`-norm error against `want` is below `limit` (the sample's
/// criterion).
fn within(what: &str, got: &[f32], want: &[f64], p: i32, limit: f64) -> Result<(), String> {
    let e = norm(got, want, p);
    if e < limit && got.len() == want.len() {
        return Ok(());
    }
    Err(format!(
        "{what}: L{p} error {e:e} against the host's computation (the sample accepts < {limit:e})"
    ))
}

// ---- histogram -----------------------------------------------------------------------------

pub(super) const HISTOGRAM: Workload = Workload {
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
const H64_BINS: u32 = 64;
const H256_BINS: u32 = 256;
const H64_BLOCK: u32 = 64;
const H256_BLOCK: u32 = 6 * 32;
const MERGE_BLOCK: u32 = 256;
const MAX_PARTIAL_H64: u32 = 32768;
const PARTIAL_H256: u32 = 240;
/// Bytes one histogram64 block counts: its threads' 8-bit counters take at most 252 bytes
/// (`iSnapDown(255, sizeof(uint4))`) each.
const H64_BLOCK_BYTES: u32 = H64_BLOCK * 252;

fn histogram(args: &Args, _seed: u64) -> Result<Box<dyn App>, SuiteError> {
    // (histogram64() asserts at most 32768 partial histograms: 528,482,304 bytes.)
    let bytes = args.int(
        "bytes",
        4 << 20,
        16,
        u64::from(MAX_PARTIAL_H64 * H64_BLOCK_BYTES),
    )?;
    args.multiple_of("bytes", bytes, 16, "histogram64 reads the data as uint4")?;
    // (At most 528,482,304: fits.)
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

// ---- fastWalshTransform --------------------------------------------------------------------

pub(super) const FASTWALSHTRANSFORM: Workload = Workload {
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
const FWT_LOG2_KERNEL: u32 = 7;
const FWT_ELEMENTARY_LOG2: u32 = 11;
const FWT_THREADS: u32 = 256;

fn fastwalshtransform(args: &Args, _seed: u64) -> Result<Box<dyn App>, SuiteError> {
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

// ---- mergeSort -----------------------------------------------------------------------------

pub(super) const MERGESORT: Workload = Workload {
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
const MS_SHARED: u32 = 1024;
const MS_SAMPLE_STRIDE: u32 = 128;
const MS_MAX_SAMPLES: u32 = 32768;
const MS_VALUES: u32 = 65536;

fn mergesort(args: &Args, _seed: u64) -> Result<Box<dyn App>, SuiteError> {
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
    let shared = MERGESORT_SASS.kernel("_Z21mergeSortSharedKernelILj1EEvPjS0_S0_S0_j")?;
    let ranks = MERGESORT_SASS.kernel("_Z25generateSampleRanksKernelILj1EEvPjS0_S0_jjj")?;
    let limits = MERGESORT_SASS.kernel("_Z26mergeRanksAndIndicesKernelPjS_jjj")?;
    let merge =
        MERGESORT_SASS.kernel("_Z30mergeElementaryIntervalsKernelILj1EEvPjS0_S0_S0_S0_S0_jj")?;
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
            &shared,
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
        let mut stride = MS_SHARED;
        while stride < n {
            let last = n % (2 * stride);
            let threads = if last > stride {
                (n + 2 * stride - last) / (2 * MS_SAMPLE_STRIDE)
            } else {
                (n - last) / (2 * MS_SAMPLE_STRIDE)
            };
            let grid = [threads.div_ceil(256), 1, 1];
            steps.push(launch(
                &ranks,
                grid,
                [256, 1, 1],
                0,
                vec![
                    Param::Ptr(ranks_a),
                    Param::Ptr(ranks_b),
                    Param::Ptr(ikey),
                    Param::U32(stride),
                    Param::U32(n),
                    Param::U32(threads),
                ],
            ));
            for (l, r) in [(limits_a, ranks_a), (limits_b, ranks_b)] {
                steps.push(launch(
                    &limits,
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
                &merge,
                [pairs, 1, 1],
                [MS_SAMPLE_STRIDE, 1, 1],
                0,
                vec![
                    Param::Ptr(okey),
                    Param::Ptr(oval),
                    Param::Ptr(ikey),
                    Param::Ptr(ival),
                    Param::Ptr(limits_a),
                    Param::Ptr(limits_b),
                    Param::U32(stride),
                    Param::U32(n),
                ],
            ));
            if last <= stride && last > 0 {
                // The last segment has no partner: the host copies it through (device to
                // device; not a host copy).
                let off = u64::from(n - last) * 4;
                let (ik, iv, ok, ov) = (ikey, ival, okey, oval);
                steps.push(Step::Host(Box::new(move |mem| {
                    let mut tail = vec![0; last as usize * 4];
                    for (from, to) in [(ik, ok), (iv, ov)] {
                        mem.read(from + off, &mut tail).map_err(fault)?;
                        mem.write(to + off, &tail).map_err(fault)?;
                    }
                    Ok(())
                })));
            }
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

// ---- SobolQRNG -----------------------------------------------------------------------------

pub(super) const SOBOLQRNG: Workload = Workload {
    name: "sobolqrng",
    suite: SUITE,
    source: "NVIDIA/cuda-samples v11.5 Samples/SobolQRNG/ (sobol_gpu.cu, sobol.cpp, \
             sobol_gold.cpp)",
    args: &[
        (
            "vectors",
            "100000",
            "vectors (points) to generate (the sample's default: 100000)",
        ),
        (
            "dimensions",
            "8",
            "dimensions, 1 to 100 (the sample's default: 100)",
        ),
        (
            "sms",
            "80",
            "the device's multiprocessor count, which the sample's grid depends on (80: the \
             V100 of AccelWattch's runs)",
        ),
    ],
    input: "the Sobol direction numbers of the sample's table (Joe and Kuo's), as \
            initSobolDirectionVectors makes them",
    small: "vectors=1000,dimensions=2,sms=1",
    make: sobolqrng,
};

/// sobol.h's `n_directions`.
const SOBOL_DIRECTIONS: usize = 32;

/// sobol_primitives.cpp's first 100 primitive polynomials (Joe and Kuo's joe-kuo-6.10200
/// set): degree, coefficients `a` and the initial direction numbers `m` (the first, dimension
/// 1, is a special case and unused).
const SOBOL_PRIMITIVES: &[(u32, u32, &[u32])] = &[
    (0, 0, &[]),
    (1, 0, &[1]),
    (2, 1, &[1, 3]),
    (3, 1, &[1, 3, 1]),
    (3, 2, &[1, 1, 1]),
    (4, 1, &[1, 1, 3, 3]),
    (4, 4, &[1, 3, 5, 13]),
    (5, 2, &[1, 1, 5, 5, 17]),
    (5, 4, &[1, 1, 5, 5, 5]),
    (5, 7, &[1, 1, 7, 11, 19]),
    (5, 11, &[1, 1, 5, 1, 1]),
    (5, 13, &[1, 1, 1, 3, 11]),
    (5, 14, &[1, 3, 5, 5, 31]),
    (6, 1, &[1, 3, 3, 9, 7, 49]),
    (6, 13, &[1, 1, 1, 15, 21, 21]),
    (6, 16, &[1, 3, 1, 13, 27, 49]),
    (6, 19, &[1, 1, 1, 15, 7, 5]),
    (6, 22, &[1, 3, 1, 15, 13, 25]),
    (6, 25, &[1, 1, 5, 5, 19, 61]),
    (7, 1, &[1, 3, 7, 11, 23, 15, 103]),
    (7, 4, &[1, 3, 7, 13, 13, 15, 69]),
    (7, 7, &[1, 1, 3, 13, 7, 35, 63]),
    (7, 8, &[1, 3, 5, 9, 1, 25, 53]),
    (7, 14, &[1, 3, 1, 13, 9, 35, 107]),
    (7, 19, &[1, 3, 1, 5, 27, 61, 31]),
    (7, 21, &[1, 1, 5, 11, 19, 41, 61]),
    (7, 28, &[1, 3, 5, 3, 3, 13, 69]),
    (7, 31, &[1, 1, 7, 13, 1, 19, 1]),
    (7, 32, &[1, 3, 7, 5, 13, 19, 59]),
    (7, 37, &[1, 1, 3, 9, 25, 29, 41]),
    (7, 41, &[1, 3, 5, 13, 23, 1, 55]),
    (7, 42, &[1, 3, 7, 3, 13, 59, 17]),
    (7, 50, &[1, 3, 1, 3, 5, 53, 69]),
    (7, 55, &[1, 1, 5, 5, 23, 33, 13]),
    (7, 56, &[1, 1, 7, 7, 1, 61, 123]),
    (7, 59, &[1, 1, 7, 9, 13, 61, 49]),
    (7, 62, &[1, 3, 3, 5, 3, 55, 33]),
    (8, 14, &[1, 3, 1, 15, 31, 13, 49, 245]),
    (8, 21, &[1, 3, 5, 15, 31, 59, 63, 97]),
    (8, 22, &[1, 3, 1, 11, 11, 11, 77, 249]),
    (8, 38, &[1, 3, 1, 11, 27, 43, 71, 9]),
    (8, 47, &[1, 1, 7, 15, 21, 11, 81, 45]),
    (8, 49, &[1, 3, 7, 3, 25, 31, 65, 79]),
    (8, 50, &[1, 3, 1, 1, 19, 11, 3, 205]),
    (8, 52, &[1, 1, 5, 9, 19, 21, 29, 157]),
    (8, 56, &[1, 3, 7, 11, 1, 33, 89, 185]),
    (8, 67, &[1, 3, 3, 3, 15, 9, 79, 71]),
    (8, 70, &[1, 3, 7, 11, 15, 39, 119, 27]),
    (8, 84, &[1, 1, 3, 1, 11, 31, 97, 225]),
    (8, 97, &[1, 1, 1, 3, 23, 43, 57, 177]),
    (8, 103, &[1, 3, 7, 7, 17, 17, 37, 71]),
    (8, 115, &[1, 3, 1, 5, 27, 63, 123, 213]),
    (8, 122, &[1, 1, 3, 5, 11, 43, 53, 133]),
    (9, 8, &[1, 3, 5, 5, 29, 17, 47, 173, 479]),
    (9, 13, &[1, 3, 3, 11, 3, 1, 109, 9, 69]),
    (9, 16, &[1, 1, 1, 5, 17, 39, 23, 5, 343]),
    (9, 22, &[1, 3, 1, 5, 25, 15, 31, 103, 499]),
    (9, 25, &[1, 1, 1, 11, 11, 17, 63, 105, 183]),
    (9, 44, &[1, 1, 5, 11, 9, 29, 97, 231, 363]),
    (9, 47, &[1, 1, 5, 15, 19, 45, 41, 7, 383]),
    (9, 52, &[1, 3, 7, 7, 31, 19, 83, 137, 221]),
    (9, 55, &[1, 1, 1, 3, 23, 15, 111, 223, 83]),
    (9, 59, &[1, 1, 5, 13, 31, 15, 55, 25, 161]),
    (9, 62, &[1, 1, 3, 13, 25, 47, 39, 87, 257]),
    (9, 67, &[1, 1, 1, 11, 21, 53, 125, 249, 293]),
    (9, 74, &[1, 1, 7, 11, 11, 7, 57, 79, 323]),
    (9, 81, &[1, 1, 5, 5, 17, 13, 81, 3, 131]),
    (9, 82, &[1, 1, 7, 13, 23, 7, 65, 251, 475]),
    (9, 87, &[1, 3, 5, 1, 9, 43, 3, 149, 11]),
    (9, 91, &[1, 1, 3, 13, 31, 13, 13, 255, 487]),
    (9, 94, &[1, 3, 3, 1, 5, 63, 89, 91, 127]),
    (9, 103, &[1, 1, 3, 3, 1, 19, 123, 127, 237]),
    (9, 104, &[1, 1, 5, 7, 23, 31, 37, 243, 289]),
    (9, 109, &[1, 1, 5, 11, 17, 53, 117, 183, 491]),
    (9, 122, &[1, 1, 1, 5, 1, 13, 13, 209, 345]),
    (9, 124, &[1, 1, 3, 15, 1, 57, 115, 7, 33]),
    (9, 137, &[1, 3, 1, 11, 7, 43, 81, 207, 175]),
    (9, 138, &[1, 3, 1, 1, 15, 27, 63, 255, 49]),
    (9, 143, &[1, 3, 5, 3, 27, 61, 105, 171, 305]),
    (9, 145, &[1, 1, 5, 3, 1, 3, 57, 249, 149]),
    (9, 152, &[1, 1, 3, 5, 5, 57, 15, 13, 159]),
    (9, 157, &[1, 1, 1, 11, 7, 11, 105, 141, 225]),
    (9, 167, &[1, 3, 3, 5, 27, 59, 121, 101, 271]),
    (9, 173, &[1, 3, 5, 9, 11, 49, 51, 59, 115]),
    (9, 176, &[1, 1, 7, 1, 23, 45, 125, 71, 419]),
    (9, 181, &[1, 1, 3, 5, 23, 5, 105, 109, 75]),
    (9, 182, &[1, 1, 7, 15, 7, 11, 67, 121, 453]),
    (9, 185, &[1, 3, 7, 3, 9, 13, 31, 27, 449]),
    (9, 191, &[1, 3, 1, 15, 19, 39, 39, 89, 15]),
    (9, 194, &[1, 1, 1, 1, 1, 33, 73, 145, 379]),
    (9, 199, &[1, 3, 1, 15, 15, 43, 29, 13, 483]),
    (9, 218, &[1, 1, 7, 3, 19, 27, 85, 131, 431]),
    (9, 220, &[1, 3, 3, 3, 5, 35, 23, 195, 349]),
    (9, 227, &[1, 3, 3, 7, 9, 27, 39, 59, 297]),
    (9, 229, &[1, 1, 3, 9, 11, 17, 13, 241, 157]),
    (9, 230, &[1, 3, 7, 15, 25, 57, 33, 189, 213]),
    (9, 234, &[1, 1, 7, 1, 9, 55, 73, 83, 217]),
    (9, 236, &[1, 3, 3, 13, 19, 27, 23, 113, 249]),
    (9, 241, &[1, 3, 5, 3, 23, 43, 3, 253, 479]),
    (9, 244, &[1, 1, 5, 5, 11, 5, 45, 117, 217]),
];

/// initSobolDirectionVectors: `n_directions` direction numbers per dimension.
fn sobol_directions(dimensions: usize) -> Vec<u32> {
    let mut v = vec![0u32; dimensions * SOBOL_DIRECTIONS];
    for (dim, v) in v.chunks_exact_mut(SOBOL_DIRECTIONS).enumerate() {
        if dim == 0 {
            for (i, x) in v.iter_mut().enumerate() {
                *x = 1 << (31 - i);
            }
            continue;
        }
        let (degree, a, m) = SOBOL_PRIMITIVES[dim];
        let d = degree as usize;
        for i in 0..d {
            v[i] = m[i] << (31 - i);
        }
        for i in d..SOBOL_DIRECTIONS {
            v[i] = v[i - d] ^ (v[i - d] >> d);
            for j in 1..d {
                v[i] ^= ((a >> (d - 1 - j)) & 1) * v[i - j];
            }
        }
    }
    v
}

/// sobol_gpu.cu's and sobol_gold.cpp's `k_2powneg32`.
const K_2POWNEG32: f32 = 2.328_306_4E-10;

fn sobolqrng(args: &Args, _seed: u64) -> Result<Box<dyn App>, SuiteError> {
    let vectors = args.int("vectors", 100_000, 1, 1 << 24)? as u32;
    let dims = args.int("dimensions", 8, 1, SOBOL_PRIMITIVES.len() as u64)? as u32;
    let sms = args.int("sms", 80, 1, 1024)? as u32;
    let kernel = SOBOLQRNG_SASS.kernel("_Z15sobolGPU_kerneljjPjPf")?;
    let directions = sobol_directions(dims as usize);
    // sobolCPU: each dimension's points in Gray-code order.
    let mut want = Vec::with_capacity((vectors * dims) as usize);
    for v in directions.chunks_exact(SOBOL_DIRECTIONS) {
        let mut x = 0u32;
        want.push(0.0);
        for i in 1..vectors {
            x ^= v[(!(i - 1)).trailing_zeros() as usize];
            want.push(f64::from(x as f32 * K_2POWNEG32));
        }
    }
    // sobolGPU's grid: 4 blocks per multiprocessor while the dimensions are fewer than that,
    // no more blocks than the vectors need, rounded up to a power of two.
    const THREADS: u32 = 64;
    let mut target = if dims < 4 * sms { 4 * sms } else { 1 };
    if target > vectors / THREADS {
        target = vectors.div_ceil(THREADS);
    }
    let grid_x = target.next_power_of_two();
    let setup: Setup = Box::new(move |mem| {
        let d_dir = mem.alloc(u64::from(dims) * SOBOL_DIRECTIONS as u64 * 4);
        let d_out = mem.alloc(u64::from(vectors * dims) * 4);
        mem.write_u32(d_dir, &directions).map_err(fault)?;
        let steps = vec![
            launch(
                &kernel,
                [grid_x, dims, 1],
                [THREADS, 1, 1],
                0,
                vec![
                    Param::U32(vectors),
                    Param::U32(dims),
                    Param::Ptr(d_dir),
                    Param::Ptr(d_out),
                ],
            ),
            Step::Check(Box::new(move |mem| {
                let got = mem.read_f32(d_out, want.len()).map_err(fault)?;
                let got: Vec<f64> = got.into_iter().map(f64::from).collect();
                compare_exact("output", &got, &want)
            })),
        ];
        Ok(steps)
    });
    Ok(Staged::boxed(setup))
}

// ---- scalarProd ----------------------------------------------------------------------------

pub(super) const SCALARPROD: Workload = Workload {
    name: "scalarprod",
    suite: SUITE,
    source: "NVIDIA/cuda-samples v11.5 Samples/scalarProd/ (scalarProd.cu, scalarProd_kernel.cuh)",
    args: &[
        (
            "vectors",
            "256",
            "vector pairs (the sample's VECTOR_N: 256)",
        ),
        (
            "elements",
            "4096",
            "elements per vector (the sample's ELEMENT_N: 4096)",
        ),
    ],
    input: "A and B RandFloat(0, 1) after srand(123), interleaved (the sample's own, glibc's \
            rand())",
    small: "vectors=4,elements=1024",
    make: scalarprod,
};

fn scalarprod(args: &Args, _seed: u64) -> Result<Box<dyn App>, SuiteError> {
    let vectors = args.int("vectors", 256, 1, 1 << 16)? as usize;
    // (The kernel multiplies with __mul24: the data below 2^23 elements.)
    let elements = args.int("elements", 4096, 1, (1 << 23) / vectors as u64)? as usize;
    let kernel = SCALARPROD_SASS.kernel("_Z13scalarProdGPUPfS_S_ii")?;
    let n = vectors * elements;
    let mut rng = CRand::new(123);
    let (mut a, mut b) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for _ in 0..n {
        a.push(rng.rand_float(0.0, 1.0));
        b.push(rng.rand_float(0.0, 1.0));
    }
    // scalarProdCPU: each product in float, summed in double.
    let want: Vec<f64> = a
        .chunks_exact(elements)
        .zip(b.chunks_exact(elements))
        .map(|(x, y)| {
            let sum: f64 = x.iter().zip(y).map(|(p, q)| f64::from(p * q)).sum();
            f64::from(sum as f32)
        })
        .collect();
    let setup: Setup = Box::new(move |mem| {
        let d_a = mem.alloc(n as u64 * 4);
        let d_b = mem.alloc(n as u64 * 4);
        let d_c = mem.alloc(vectors as u64 * 4);
        mem.write_f32(d_a, &a).map_err(fault)?;
        mem.write_f32(d_b, &b).map_err(fault)?;
        Ok(vec![
            launch(
                &kernel,
                [128, 1, 1],
                [256, 1, 1],
                0,
                vec![
                    Param::Ptr(d_c),
                    Param::Ptr(d_a),
                    Param::Ptr(d_b),
                    Param::I32(vectors as i32),
                    Param::I32(elements as i32),
                ],
            ),
            Step::Check(Box::new(move |mem| {
                let got = mem.read_f32(d_c, vectors).map_err(fault)?;
                within("the scalar products", &got, &want, 1, 1e-6)
            })),
        ])
    });
    Ok(Staged::boxed(setup))
}

// ---- convolutionSeparable ------------------------------------------------------------------

pub(super) const CONVOLUTIONSEPARABLE: Workload = Workload {
    name: "convolutionseparable",
    suite: SUITE,
    source: "NVIDIA/cuda-samples v11.5 Samples/convolutionSeparable/ (convolutionSeparable.cu, \
             main.cpp)",
    args: &[
        (
            "width",
            "1024",
            "image width, a multiple of 128 (the sample's imageW: 3072)",
        ),
        (
            "height",
            "1024",
            "image height, a multiple of 64 (the sample's imageH: 3072)",
        ),
        (
            "iterations",
            "0",
            "timed row and column passes after the warm-up pass (the sample's iterations: 16)",
        ),
    ],
    input: "a 17-tap kernel (in __constant__ c_Kernel) and an image of rand() % 16 after \
            srand(200) (the sample's own, glibc's rand())",
    small: "width=128,height=64",
    make: convolutionseparable,
};

/// convolutionSeparable_common.h's `KERNEL_RADIUS`, and the kernels' block shapes and steps.
const CONV_RADIUS: usize = 8;
const CONV_LENGTH: usize = 2 * CONV_RADIUS + 1;
const ROWS_BLOCK: [u32; 2] = [16, 4];
const ROWS_STEPS: u32 = 8;
const COLS_BLOCK: [u32; 2] = [16, 8];
const COLS_STEPS: u32 = 8;

fn convolutionseparable(args: &Args, _seed: u64) -> Result<Box<dyn App>, SuiteError> {
    // (convolutionRowsGPU and convolutionColumnsGPU assert these multiples.)
    let w = args.int("width", 1024, 128, 8192)?;
    args.multiple_of(
        "width",
        w,
        u64::from(ROWS_STEPS * ROWS_BLOCK[0]),
        "the rows pass",
    )?;
    let h = args.int("height", 1024, 64, 8192)?;
    args.multiple_of(
        "height",
        h,
        u64::from(COLS_STEPS * COLS_BLOCK[1]),
        "the columns pass",
    )?;
    let iterations = args.int("iterations", 0, 0, 1000)? as usize;
    // (At most 8192 each.)
    let (w, h) = (w as usize, h as usize);
    let rows = CONVOLUTIONSEPARABLE_SASS.kernel("_Z21convolutionRowsKernelPfS_iii")?;
    let cols = CONVOLUTIONSEPARABLE_SASS.kernel("_Z24convolutionColumnsKernelPfS_iii")?;
    let mut rng = CRand::new(200);
    let kernel: Vec<f32> = (0..CONV_LENGTH).map(|_| (rng.rand() % 16) as f32).collect();
    let input: Vec<f32> = (0..w * h).map(|_| (rng.rand() % 16) as f32).collect();
    // convolutionRowCPU then convolutionColumnCPU: integers below 2^24 throughout, so exact
    // in any order of summation.
    let conv = |src: &[f32], along_row: bool| -> Vec<f32> {
        let mut dst = vec![0f32; w * h];
        for y in 0..h {
            for x in 0..w {
                let mut sum = 0f32;
                for k in 0..CONV_LENGTH {
                    let (xx, yy) = if along_row {
                        ((x + k).wrapping_sub(CONV_RADIUS), y)
                    } else {
                        (x, (y + k).wrapping_sub(CONV_RADIUS))
                    };
                    if xx < w && yy < h {
                        sum += src[yy * w + xx] * kernel[CONV_LENGTH - 1 - k];
                    }
                }
                dst[y * w + x] = sum;
            }
        }
        dst
    };
    let want = conv(&conv(&input, true), false);
    let kernel_bytes: Vec<u8> = kernel.iter().flat_map(|k| k.to_le_bytes()).collect();
    let setup: Setup = Box::new(move |mem| {
        let bytes = (w * h) as u64 * 4;
        let d_input = mem.alloc(bytes);
        let d_output = mem.alloc(bytes);
        let d_buffer = mem.alloc(bytes);
        // setConvolutionKernel: cudaMemcpyToSymbol(c_Kernel, ...).
        mem.write_symbol("c_Kernel", &kernel_bytes);
        mem.write_f32(d_input, &input).map_err(fault)?;
        let (wi, hi) = (w as u32, h as u32);
        let dims = |dst: u64, src: u64| {
            vec![
                Param::Ptr(dst),
                Param::Ptr(src),
                Param::I32(wi as i32),
                Param::I32(hi as i32),
                Param::I32(wi as i32),
            ]
        };
        let mut steps = Vec::new();
        for _ in 0..=iterations {
            steps.push(launch(
                &rows,
                [wi / (ROWS_STEPS * ROWS_BLOCK[0]), hi / ROWS_BLOCK[1], 1],
                [ROWS_BLOCK[0], ROWS_BLOCK[1], 1],
                0,
                dims(d_buffer, d_input),
            ));
            steps.push(launch(
                &cols,
                [wi / COLS_BLOCK[0], hi / (COLS_STEPS * COLS_BLOCK[1]), 1],
                [COLS_BLOCK[0], COLS_BLOCK[1], 1],
                0,
                dims(d_output, d_buffer),
            ));
        }
        steps.push(Step::Check(Box::new(move |mem| {
            let got = mem.read_f32(d_output, w * h).map_err(fault)?;
            compare_exact("output", &got, &want)
        })));
        Ok(steps)
    });
    Ok(Staged::boxed(setup))
}

// ---- quasirandomGenerator ------------------------------------------------------------------

pub(super) const QUASIRANDOMGENERATOR: Workload = Workload {
    name: "quasirandomgenerator",
    suite: SUITE,
    source: "NVIDIA/cuda-samples v11.5 Samples/quasirandomGenerator/ \
             (quasirandomGenerator_kernel.cu, quasirandomGenerator.cpp, \
             quasirandomGenerator_gold.cpp)",
    args: &[
        (
            "n",
            "65536",
            "points per dimension (3 dimensions), at least 128 (the sample's N: 1048576; below \
             128 the first points' float rounding alone fails the sample's L1 check)",
        ),
        (
            "iterations",
            "0",
            "timed launches of each kernel after its warm-up launch (the sample's \
             numIterations: 20)",
        ),
    ],
    input: "the Niederreiter base-2 table of the sample's GenerateCJ (in __constant__ c_Table); \
            inverseCND's inputs are evenly spaced (the sample's own)",
    small: "n=128",
    make: quasirandomgenerator,
};

/// quasirandomGenerator_common.h's `QRNG_DIMENSIONS` and `QRNG_RESOLUTION`.
const QRNG_DIMS: usize = 3;
const QRNG_RES: usize = 31;

/// GenerateCJ's first step (`GeneratePolynomials(buffer, false)`): the first `QRNG_DIMS`
/// irreducible polynomials over GF(2), as bit patterns (x is 0b10).
fn qrng_polynomials() -> [i32; QRNG_DIMS] {
    let degree = |p: i32, from: i32| {
        let mut e = from;
        while p & (1 << e) == 0 {
            e -= 1;
        }
        e
    };
    let mut buffer = [0i32; QRNG_DIMS];
    buffer[0] = 0x2;
    for n in 1..QRNG_DIMS {
        let mut p1 = buffer[n - 1] + 1;
        loop {
            let e_p1 = degree(p1, 30);
            // Divide p1 by every polynomial found so far: irreducible when no remainder is 0.
            let mut p2 = 0;
            for &b in &buffer[..n] {
                let e_b = degree(b, e_p1);
                let mut e_p2 = e_p1;
                p2 = (b << (e_p2 - e_b)) ^ p1;
                while p2 >= b {
                    e_p2 = degree(p2, e_p2);
                    p2 ^= b << (e_p2 - e_b);
                }
                if p2 == 0 {
                    break;
                }
            }
            if p2 != 0 {
                buffer[n] = p1;
                break;
            }
            p1 += 1;
        }
    }
    buffer
}

/// GenerateCJ: the 63-bit Niederreiter generator matrix `cjn[bit][dim]` (Bratley, Fox and
/// Niederreiter 1992), as the sample computes it.
fn qrng_cjn() -> [[i64; QRNG_DIMS]; 63] {
    let mut cjn = [[0i64; QRNG_DIMS]; 63];
    for (d, &poly) in qrng_polynomials().iter().enumerate() {
        // The polynomial's coefficients, highest first: p[0] = 1, ..., p[e].
        let mut e = 30;
        while poly & (1 << e) == 0 {
            e -= 1;
        }
        let p: Vec<i32> = (0..=e).rev().map(|k| (poly >> k) & 1).collect();
        let e = e as usize;
        let mut b = vec![1i32];
        let mut m = 0usize;
        let mut v = vec![0i32; 63 + e - 1];
        let mut u = e;
        for j in (0..63).rev() {
            if u == e {
                u = 0;
                // b *= p.
                let t = b.clone();
                let m1 = m;
                m += e;
                b = vec![0; m + 1];
                for (i, bi) in b.iter_mut().enumerate() {
                    // (ip = e - (m - i), it = m1; ip <= e && it >= 0; ++ip, --it.)
                    let mut ip = e as i64 - (m - i) as i64;
                    let mut it = m1 as i64;
                    while ip <= e as i64 && it >= 0 {
                        if ip >= 0 {
                            *bi ^= p[ip as usize] & t[it as usize];
                        }
                        ip += 1;
                        it -= 1;
                    }
                }
                // v: m1 zeros, then ones up to m, then the recurrence of b.
                for (i, vi) in v.iter_mut().enumerate().take(m) {
                    *vi = i32::from(i >= m1);
                }
                for i in m..v.len() {
                    v[i] = (1..=m).fold(0, |acc, it| acc ^ (v[i - it] & b[it]));
                }
            }
            for (i, row) in cjn.iter_mut().enumerate() {
                row[d] |= i64::from(v[i + u]) << j;
            }
            u += 1;
        }
    }
    cjn
}

/// initQuasirandomGenerator: the 31-bit table the kernel reads, `table[dim][bit]`.
fn qrng_table(cjn: &[[i64; QRNG_DIMS]; 63]) -> [[u32; QRNG_RES]; QRNG_DIMS] {
    let mut table = [[0u32; QRNG_RES]; QRNG_DIMS];
    for (dim, row) in table.iter_mut().enumerate() {
        for (bit, t) in row.iter_mut().enumerate() {
            // (Masked to 31 bits: fits.)
            *t = ((cjn[bit][dim] >> 32) & 0x7fff_ffff) as u32;
        }
    }
    table
}

/// quasirandomGenerator_common.h's `INT_SCALE`.
const QRNG_INT_SCALE: f32 = 1.0 / 0x8000_0001u32 as f32;

/// getQuasirandomValue: point `i` of dimension `dim` from the 31-bit table, as the kernel
/// computes it.
fn qrng_value(table: &[[u32; QRNG_RES]; QRNG_DIMS], i: u32, dim: usize) -> f32 {
    let mut result = 0u32;
    for (bit, t) in table[dim].iter().enumerate() {
        if (i >> bit) & 1 == 1 {
            result ^= t;
        }
    }
    (result + 1) as f32 * QRNG_INT_SCALE
}

/// getQuasirandomValue63: the same point from the 63-bit matrix, in double.
fn qrng_value63(cjn: &[[i64; QRNG_DIMS]; 63], i: u32, dim: usize) -> f64 {
    let mut result = 0i64;
    for (bit, row) in cjn.iter().enumerate().take(32) {
        if (u64::from(i) >> bit) & 1 == 1 {
            result ^= row[dim];
        }
    }
    (result + 1) as f64 / 0x8000_0000_0000_0001u64 as f64
}

/// MoroInvCNDcpu: Moro's inverse cumulative normal distribution, in double.
fn moro_inv_cnd(x: u32) -> f64 {
    const A: [f64; 4] = [
        2.50662823884,
        -18.61500062529,
        41.39119773534,
        -25.44106049637,
    ];
    const B: [f64; 4] = [
        -8.4735109309,
        23.08336743743,
        -21.06224101826,
        3.13082909833,
    ];
    const C: [f64; 9] = [
        0.337475482272615,
        0.976169019091719,
        0.160797971491821,
        2.76438810333863E-02,
        3.8405729373609E-03,
        3.951896511919E-04,
        3.21767881768E-05,
        2.888167364E-07,
        3.960315187E-07,
    ];
    let (x, negate) = if x >= 0x8000_0000 {
        (0xffff_ffff - x, true)
    } else {
        (x, false)
    };
    let x1 = 1.0 / f64::from(0xffff_ffffu32);
    let p1 = f64::from(x) * x1 + x1 / 2.0;
    let p2 = p1 - 0.5;
    let z = if p2 > -0.42 {
        let z = p2 * p2;
        p2 * (((A[3] * z + A[2]) * z + A[1]) * z + A[0])
            / ((((B[3] * z + B[2]) * z + B[1]) * z + B[0]) * z + 1.0)
    } else {
        let z = (-p1.ln()).ln();
        -C.iter().rev().fold(0.0, |acc, c| c + z * acc)
    };
    if negate {
        -z
    } else {
        z
    }
}

fn quasirandomgenerator(args: &Args, _seed: u64) -> Result<Box<dyn App>, SuiteError> {
    // (The kernel multiplies with __umul24: indices below 2^24.)
    let n = args.int("n", 65536, 128, 1 << 22)? as u32;
    let iterations = args.int("iterations", 0, 0, 1000)? as usize;
    let qrng = QUASIRANDOMGENERATOR_SASS.kernel("_Z26quasirandomGeneratorKernelPfjj")?;
    let inverse = QUASIRANDOMGENERATOR_SASS.kernel("_Z16inverseCNDKernelPfPjj")?;
    let cjn = qrng_cjn();
    let table = qrng_table(&cjn);
    let points = n as usize * QRNG_DIMS;
    let want_qrng: Vec<f64> = (0..QRNG_DIMS)
        .flat_map(|dim| (0..n).map(move |pos| (dim, pos)))
        .map(|(dim, pos)| f64::from(qrng_value(&table, pos, dim)))
        .collect();
    let want63: Vec<f64> = (0..QRNG_DIMS)
        .flat_map(|dim| (0..n).map(move |pos| (dim, pos)))
        .map(|(dim, pos)| qrng_value63(&cjn, pos, dim))
        .collect();
    let path_n = 3 * n;
    let distance = u32::MAX / (path_n + 1);
    let want_cnd: Vec<f64> = (0..path_n)
        .map(|pos| moro_inv_cnd((pos + 1).wrapping_mul(distance)))
        .collect();
    let table_bytes: Vec<u8> = table
        .iter()
        .flatten()
        .flat_map(|t| t.to_le_bytes())
        .collect();
    let setup: Setup = Box::new(move |mem| {
        let d_out = mem.alloc(points as u64 * 4);
        // initTableGPU: cudaMemcpyToSymbol(c_Table, ...).
        mem.write_symbol("c_Table", &table_bytes);
        // (cudaMemset(d_Output, 0) leaves the fresh allocation as it is.)
        let mut steps = Vec::new();
        for _ in 0..=iterations {
            steps.push(launch(
                &qrng,
                [128, 1, 1],
                [128, QRNG_DIMS as u32, 1],
                0,
                vec![Param::Ptr(d_out), Param::U32(0), Param::U32(n)],
            ));
        }
        steps.push(Step::Check(Box::new(move |mem| {
            let got = mem.read_f32(d_out, points).map_err(fault)?;
            let exact: Vec<f64> = got.iter().map(|&g| f64::from(g)).collect();
            compare_exact("QRNG output", &exact, &want_qrng)?;
            // The sample's own comparison, with the 63-bit generator's values.
            within("QRNG output (63-bit)", &got, &want63, 1, 1e-6)
        })));
        // (The sample clears the output again with cudaMemset: every element is rewritten.)
        for _ in 0..=iterations {
            steps.push(launch(
                &inverse,
                [128, 1, 1],
                [128, 1, 1],
                0,
                vec![Param::Ptr(d_out), Param::Ptr(0), Param::U32(path_n)],
            ));
        }
        steps.push(Step::Check(Box::new(move |mem| {
            let got = mem.read_f32(d_out, points).map_err(fault)?;
            within("inverseCND output", &got, &want_cnd, 1, 1e-6)
        })));
        Ok(steps)
    });
    Ok(Staged::boxed(setup))
}

// ---- BlackScholes --------------------------------------------------------------------------

pub(super) const BLACKSCHOLES: Workload = Workload {
    name: "blackscholes",
    suite: SUITE,
    source: "NVIDIA/cuda-samples v11.5 Samples/BlackScholes/ (BlackScholes.cu, \
             BlackScholes_kernel.cuh, BlackScholes_gold.cpp)",
    args: &[
        (
            "options",
            "262144",
            "options, even (the sample's OPT_N: 4000000); each thread prices two",
        ),
        (
            "iterations",
            "1",
            "launches of the kernel, all alike (the sample's NUM_ITERATIONS: 512)",
        ),
    ],
    input: "stock prices RandFloat(5, 30), strikes RandFloat(1, 100), years RandFloat(0.25, 10) \
            after srand(5347), interleaved per option (the sample's own, glibc's rand()); \
            riskless rate 0.02, volatility 0.30",
    small: "options=4096",
    make: blackscholes,
};

/// BlackScholes.cu's `RISKFREE` and `VOLATILITY`, and its block size.
const BS_RISKFREE: f32 = 0.02;
const BS_VOLATILITY: f32 = 0.30;
const BS_THREADS: u32 = 128;

/// BlackScholes_gold.cpp's `CND`: the polynomial approximation of the cumulative normal
/// distribution, in double.
fn bs_cnd(d: f64) -> f64 {
    const A: [f64; 5] = [
        0.31938153,
        -0.356563782,
        1.781477937,
        -1.821255978,
        1.330274429,
    ];
    const RSQRT2PI: f64 = 0.398_942_280_401_432_7;
    let k = 1.0 / (1.0 + 0.2316419 * d.abs());
    let poly = A.iter().rev().fold(0.0, |acc, a| a + k * acc);
    let cnd = RSQRT2PI * (-0.5 * d * d).exp() * (k * poly);
    if d > 0.0 {
        1.0 - cnd
    } else {
        cnd
    }
}

/// BlackScholesBodyCPU: the call and put prices of one option, in double, rounded to float.
fn bs_body(s: f32, x: f32, t: f32) -> (f32, f32) {
    let (s, x, t) = (f64::from(s), f64::from(x), f64::from(t));
    let (r, v) = (f64::from(BS_RISKFREE), f64::from(BS_VOLATILITY));
    let sqrt_t = t.sqrt();
    let d1 = ((s / x).ln() + (r + 0.5 * v * v) * t) / (v * sqrt_t);
    let d2 = d1 - v * sqrt_t;
    let (cnd1, cnd2) = (bs_cnd(d1), bs_cnd(d2));
    let exp_rt = (-r * t).exp();
    let call = s * cnd1 - x * exp_rt * cnd2;
    let put = x * exp_rt * (1.0 - cnd2) - s * (1.0 - cnd1);
    (call as f32, put as f32)
}

fn blackscholes(args: &Args, _seed: u64) -> Result<Box<dyn App>, SuiteError> {
    let options = args.int("options", 262_144, 2, 1 << 26)?;
    args.multiple_of("options", options, 2, "each thread prices two options")?;
    // (At most 2^26.)
    let n = options as usize;
    let iterations = args.int("iterations", 1, 1, 1000)? as usize;
    let kernel = BLACKSCHOLES_SASS.kernel("_Z15BlackScholesGPUP6float2S0_S0_S0_S0_ffi")?;
    let mut rng = CRand::new(5347);
    let (mut price, mut strike, mut years) = (vec![0f32; n], vec![0f32; n], vec![0f32; n]);
    for i in 0..n {
        price[i] = rng.rand_float(5.0, 30.0);
        strike[i] = rng.rand_float(1.0, 100.0);
        years[i] = rng.rand_float(0.25, 10.0);
    }
    let (want_call, want_put): (Vec<f64>, Vec<f64>) = (0..n)
        .map(|i| {
            let (c, p) = bs_body(price[i], strike[i], years[i]);
            (f64::from(c), f64::from(p))
        })
        .unzip();
    let setup: Setup = Box::new(move |mem| {
        let bytes = n as u64 * 4;
        let d_call = mem.alloc(bytes);
        let d_put = mem.alloc(bytes);
        let d_price = mem.alloc(bytes);
        let d_strike = mem.alloc(bytes);
        let d_years = mem.alloc(bytes);
        mem.write_f32(d_price, &price).map_err(fault)?;
        mem.write_f32(d_strike, &strike).map_err(fault)?;
        mem.write_f32(d_years, &years).map_err(fault)?;
        let mut steps = Vec::new();
        for _ in 0..iterations {
            steps.push(launch(
                &kernel,
                [(n as u32 / 2).div_ceil(BS_THREADS), 1, 1],
                [BS_THREADS, 1, 1],
                0,
                vec![
                    Param::Ptr(d_call),
                    Param::Ptr(d_put),
                    Param::Ptr(d_price),
                    Param::Ptr(d_strike),
                    Param::Ptr(d_years),
                    Param::F32(BS_RISKFREE),
                    Param::F32(BS_VOLATILITY),
                    Param::I32(n as i32),
                ],
            ));
        }
        steps.push(Step::Check(Box::new(move |mem| {
            // The sample checks the calls (L1 < 1e-6); the puts are held to the same.
            let call = mem.read_f32(d_call, n).map_err(fault)?;
            within("the call prices", &call, &want_call, 1, 1e-6)?;
            let put = mem.read_f32(d_put, n).map_err(fault)?;
            within("the put prices", &put, &want_put, 1, 1e-6)
        })));
        Ok(steps)
    });
    Ok(Staged::boxed(setup))
}

// ---- binomialOptions -----------------------------------------------------------------------

pub(super) const BINOMIALOPTIONS: Workload = Workload {
    name: "binomialoptions",
    suite: SUITE,
    source: "NVIDIA/cuda-samples v11.5 Samples/binomialOptions/ (binomialOptions_kernel.cu, \
             binomialOptions.cpp, binomialOptions_gold.cpp)",
    args: &[(
        "options",
        "4",
        "options priced, one block each, 1 to 1024 (the sample's OPT_N: 1024, MAX_OPTIONS); \
         each walks the sample's 2048-step tree",
    )],
    input: "stock prices randData(5, 30), strikes randData(1, 100), years randData(0.25, 10) \
            after srand(123), rate 0.06, volatility 0.10 (the sample's own, glibc's rand()); \
            the host's per-option factors in __constant__ d_OptionData, the results in \
            __device__ d_CallValue",
    small: "options=1",
    make: binomialoptions,
};

/// binomialOptions_common.h's `NUM_STEPS` and `MAX_OPTIONS`, and the kernel's block size.
const BINO_STEPS: usize = 2048;
const BINO_MAX_OPTIONS: u64 = 1024;
const BINO_THREADS: u32 = 128;

/// An option's data as binomialOptionsGPU prepares it for `d_OptionData`: S, X, vDt, puByDf,
/// pdByDf (in float, as the sample's `real`).
fn bino_option_data(s: f32, x: f32, t: f32, r: f32, v: f32) -> [f32; 5] {
    let dt = t / BINO_STEPS as f32;
    let v_dt = v * dt.sqrt();
    let r_dt = r * dt;
    let (i_f, d_f) = (r_dt.exp(), (-r_dt).exp());
    let (u, d) = (v_dt.exp(), (-v_dt).exp());
    let pu = (i_f - d) / (u - d);
    let pd = 1.0 - pu;
    [s, x, v_dt, pu * d_f, pd * d_f]
}

/// binomialOptionsCPU: the call's value by the same tree, in float.
fn bino_cpu(s: f32, x: f32, t: f32, r: f32, v: f32) -> f32 {
    let [_, _, v_dt, pu_by_df, pd_by_df] = bino_option_data(s, x, t, r, v);
    let mut call: Vec<f32> = (0..=BINO_STEPS)
        .map(|i| {
            // (2 * i - NUM_STEPS: whole numbers below 2^12, exact in float.)
            let d = s * (v_dt * (2 * i as i32 - BINO_STEPS as i32) as f32).exp() - x;
            if d > 0.0 {
                d
            } else {
                0.0
            }
        })
        .collect();
    for i in (1..=BINO_STEPS).rev() {
        for j in 0..i {
            call[j] = pu_by_df * call[j + 1] + pd_by_df * call[j];
        }
    }
    call[0]
}

fn binomialoptions(args: &Args, _seed: u64) -> Result<Box<dyn App>, SuiteError> {
    // (At most 1024.)
    let n = args.int("options", 4, 1, BINO_MAX_OPTIONS)? as usize;
    let kernel = BINOMIALOPTIONS_SASS.kernel("_Z21binomialOptionsKernelv")?;
    let (r, v) = (0.06f32, 0.10f32);
    let mut rng = CRand::new(123);
    let mut data = Vec::with_capacity(n * 5);
    let mut want = Vec::with_capacity(n);
    for _ in 0..n {
        let s = rng.rand_float(5.0, 30.0);
        let x = rng.rand_float(1.0, 100.0);
        let t = rng.rand_float(0.25, 10.0);
        data.extend(bino_option_data(s, x, t, r, v));
        want.push(bino_cpu(s, x, t, r, v));
    }
    let data_bytes: Vec<u8> = data.iter().flat_map(|f| f.to_le_bytes()).collect();
    let setup: Setup = Box::new(move |mem| {
        // (The driver allocates the module's __device__ d_CallValue[MAX_OPTIONS].)
        let d_call = mem.device_var("d_CallValue", BINO_MAX_OPTIONS * 4);
        mem.write_symbol("d_OptionData", &data_bytes);
        Ok(vec![
            launch(&kernel, [n as u32, 1, 1], [BINO_THREADS, 1, 1], 0, vec![]),
            Step::Check(Box::new(move |mem| {
                // cudaMemcpyFromSymbol, then the sample's check: the L1 error against the CPU
                // tree below 5e-4.
                let got = mem.read_f32(d_call, n).map_err(fault)?;
                let (mut delta, mut sum) = (0f64, 0f64);
                for (g, w) in got.iter().zip(&want) {
                    delta += f64::from((g - w).abs());
                    sum += f64::from(*w);
                }
                let e = delta / sum;
                if sum > 1e-5 && e > 5e-4 {
                    return Err(format!(
                        "the call values: L1 error {e:e} against the host's binomial tree (the \
                         sample accepts 5e-4)"
                    ));
                }
                Ok(())
            })),
        ])
    });
    Ok(Staged::boxed(setup))
}
