use super::*;

// ---- BlackScholes --------------------------------------------------------------------------

pub(in crate::suite::apps) const BLACKSCHOLES: Workload = Workload {
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
pub(super) const BS_RISKFREE: f32 = 0.02;
pub(super) const BS_VOLATILITY: f32 = 0.30;
pub(super) const BS_THREADS: u32 = 128;

/// BlackScholes_gold.cpp's `CND`: the polynomial approximation of the cumulative normal
/// distribution, in double.
pub(super) fn bs_cnd(d: f64) -> f64 {
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
pub(super) fn bs_body(s: f32, x: f32, t: f32) -> (f32, f32) {
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

pub(super) fn blackscholes(args: &Args, _seed: u64) -> Result<Box<dyn App>, SuiteError> {
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
