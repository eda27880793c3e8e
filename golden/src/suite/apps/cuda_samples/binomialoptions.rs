use super::*;

// ---- binomialOptions -----------------------------------------------------------------------

pub(in crate::suite::apps) const BINOMIALOPTIONS: Workload = Workload {
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
pub(super) const BINO_STEPS: usize = 2048;
pub(super) const BINO_MAX_OPTIONS: u64 = 1024;
pub(super) const BINO_THREADS: u32 = 128;

/// An option's data as binomialOptionsGPU prepares it for `d_OptionData`: S, X, vDt, puByDf,
/// pdByDf (in float, as the sample's `real`).
pub(super) fn bino_option_data(s: f32, x: f32, t: f32, r: f32, v: f32) -> [f32; 5] {
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
pub(super) fn bino_cpu(s: f32, x: f32, t: f32, r: f32, v: f32) -> f32 {
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

pub(super) fn binomialoptions(args: &Args, _seed: u64) -> Result<Box<dyn App>, SuiteError> {
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
