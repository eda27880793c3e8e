use super::*;

// ---- mri-q ----------------------------------------------------------------------------------

pub(in crate::suite::apps) static MRIQ_SASS: Listing =
    Listing::new("mri-q.sass", include_str!("../../../../sass/mri-q.sass"));

pub(in crate::suite::apps) const MRIQ: Workload = Workload {
    name: "mri-q",
    suite: "Parboil",
    source: parboil_src!(
        "mri-q",
        "main.cu, computeQ.cu, file.cc (built with --use_fast_math)"
    ),
    args: &[
        (
            "numx",
            "4096",
            "voxels (x, y, z positions), a multiple of 256 (the kernel has no bounds check; the \
             large data set AccelWattch ran, 64_64_64: 262144)",
        ),
        (
            "numk",
            "2048",
            "k-space samples (the source's command-line limit on them; an odd count at most \
             1024, as the kernel reads past its 1024-entry constant array for a larger one)",
        ),
        (
            "file",
            "",
            "Parboil's dataset.bin (numK, numX as 32-bit integers, then kx, ky, kz, x, y, z, \
             phiR, phiI as floats) in place of the generated data; numk= then limits its \
             samples as the source's argument does",
        ),
    ],
    input: "voxel positions on a 64 x 64 x 64 grid (centred, x fastest), k-space samples and \
            phi uniform in [-0.5, 0.5) by seed; or Parboil's dataset.bin",
    small: "numx=256,numk=21",
    make: mri_q,
};

/// computeQ.cu: `KERNEL_PHI_MAG_THREADS_PER_BLOCK`, `KERNEL_Q_THREADS_PER_BLOCK` and
/// `KERNEL_Q_K_ELEMS_PER_GRID` (the length of the `__constant__` array `ck`).
pub(super) const PHI_MAG_THREADS: u32 = 512;
pub(super) const Q_THREADS: u32 = 256;
pub(super) const Q_K_ELEMS: usize = 1024;

/// An MRI-Q data set: the k-space samples, the voxels and phi (complex).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct MriQInput {
    pub(super) k: [Vec<f32>; 3],
    pub(super) x: [Vec<f32>; 3],
    pub(super) phi: [Vec<f32>; 2],
}

/// Parboil's dataset file `path`, read as `inputData` reads it.
pub(super) fn parse_mriq_file(path: &str, bytes: &[u8]) -> Result<MriQInput, SuiteError> {
    let io = SuiteError::in_file(path);
    let word = |i: usize| {
        bytes
            .get(4 * i..4 * i + 4)
            .map(|c| [c[0], c[1], c[2], c[3]])
    };
    let (Some(nk), Some(nx)) = (word(0), word(1)) else {
        return Err(io(format!(
            "{} bytes: numK and numX (8 bytes) expected first",
            bytes.len()
        )));
    };
    let (nk, nx) = (i32::from_le_bytes(nk), i32::from_le_bytes(nx));
    let count = |n: i32, what: &str| {
        usize::try_from(n)
            .ok()
            .filter(|&n| (1..=1 << 24).contains(&n))
            .ok_or_else(|| io(format!("{what} = {n}: 1 to 2^24 expected")))
    };
    let (nk, nx) = (count(nk, "numK")?, count(nx, "numX")?);
    let need = 8 + 4 * (5 * nk + 3 * nx);
    if bytes.len() < need {
        return Err(io(format!(
            "{} bytes: numK {nk} and numX {nx} need {need}",
            bytes.len()
        )));
    }
    let mut at = 2;
    let mut floats = |n: usize| {
        let v: Vec<f32> = (at..at + n)
            .filter_map(word)
            .map(f32::from_le_bytes)
            .collect();
        at += n;
        v
    };
    let k = [floats(nk), floats(nk), floats(nk)];
    let x = [floats(nx), floats(nx), floats(nx)];
    let phi = [floats(nk), floats(nk)];
    Ok(MriQInput { k, x, phi })
}

pub(super) fn mri_q(args: &Args, seed: u64) -> Result<Box<dyn App>, SuiteError> {
    let mut input = match path_arg(args, "file") {
        Some(path) => {
            let bytes = std::fs::read(path).map_err(|e| SuiteError::Io {
                path: path.into(),
                message: e.to_string(),
            })?;
            parse_mriq_file(path, &bytes)?
        }
        None => {
            let numx = args.int("numx", 4096, 1, 1 << 18)? as usize;
            let numk = args.int("numk", 2048, 1, 1 << 16)? as usize;
            let mut rng = Rng::new(seed);
            // 24 random bits: exactly a float in [-0.5, 0.5).
            let mut uniform = |n: usize| -> Vec<f32> {
                (0..n)
                    .map(|_| rng.bits(24) as f32 / (1u32 << 24) as f32 - 0.5)
                    .collect()
            };
            let k = [uniform(numk), uniform(numk), uniform(numk)];
            let phi = [uniform(numk), uniform(numk)];
            // The voxels of a 64^3 grid, centred on 0, x fastest (numx bounded to 2^18: the
            // casts are exact).
            let coord = |axis: u32| -> Vec<f32> {
                (0..numx)
                    .map(|i| ((i >> (6 * axis)) % 64) as f32 - 32.0)
                    .collect()
            };
            MriQInput {
                k,
                x: [coord(0), coord(1), coord(2)],
                phi,
            }
        }
    };
    let numx = input.x[0].len();
    // The source's argument limits the samples to the first numK (the count bounded by the
    // parser or the generator: the casts are exact).
    let numk = args.int("numk", input.k[0].len() as u64, 1, 1 << 24)? as usize;
    let numk = numk.min(input.k[0].len());
    for v in input.k.iter_mut().chain(input.phi.iter_mut()) {
        v.truncate(numk);
    }
    args.multiple_of(
        "numx",
        numx as u64,
        Q_THREADS.into(),
        "the kernel has no bounds check",
    )?;
    if numk % 2 == 1 && numk > Q_K_ELEMS {
        return Err(args.err(
            "numk",
            format!(
                "{numk}: for an odd count above {Q_K_ELEMS} the kernel reads past its \
                 constant array ck"
            ),
        ));
    }
    let phi_mag_kernel = MRIQ_SASS.kernel("_Z17ComputePhiMag_GPUPfS_S_i")?;
    let q_kernel = MRIQ_SASS.kernel("_Z12ComputeQ_GPUiiPfS_S_S_S_")?;
    let setup: StagedSetup = Box::new(move |mem: &mut DeviceMemory| {
        let (nk, nx) = (numk as u64, numx as u64);
        // GPU section 1: phiR, phiI and phiMag; phiMag copied back (numk bounded: the casts
        // are exact).
        let phi_r = mem.alloc(nk * 4);
        mem.write_f32(phi_r, &input.phi[0]).map_err(fault)?;
        let phi_i = mem.alloc(nk * 4);
        mem.write_f32(phi_i, &input.phi[1]).map_err(fault)?;
        let phi_mag = mem.alloc(nk * 4);
        let mut steps = vec![staged_launch(
            &phi_mag_kernel,
            [(numk as u32).div_ceil(PHI_MAG_THREADS), 1, 1],
            [PHI_MAG_THREADS, 1, 1],
            0,
            vec![
                Param::Ptr(phi_r),
                Param::Ptr(phi_i),
                Param::Ptr(phi_mag),
                Param::I32(numk as i32),
            ],
        )];
        // GPU section 2: x, y, z and Qr, Qi (zeroed), then a launch per 1024 samples, each
        // after its tile of kVals (the device's phiMag) is copied to ck.
        let xs: Vec<u64> = input
            .x
            .iter()
            .map(|v| {
                let d = mem.alloc(nx * 4);
                mem.write_f32(d, v).map(|()| d)
            })
            .collect::<Result<_, _>>()
            .map_err(fault)?;
        let (qr, qi) = (mem.alloc(nx * 4), mem.alloc(nx * 4));
        let k = input.k.clone();
        for base in (0..numk).step_by(Q_K_ELEMS) {
            let k = k.clone();
            let tile = base..numk.min(base + Q_K_ELEMS);
            steps.push(Step::Host(Box::new(move |mem: &mut DeviceMemory| {
                let mag = mem.read_f32(phi_mag, numk).map_err(fault)?;
                let bytes: Vec<u8> = tile
                    .flat_map(|j| [k[0][j], k[1][j], k[2][j], mag[j]])
                    .flat_map(f32::to_le_bytes)
                    .collect();
                mem.write_symbol("ck", &bytes);
                Ok(())
            })));
            steps.push(staged_launch(
                &q_kernel,
                [numx as u32 / Q_THREADS, 1, 1],
                [Q_THREADS, 1, 1],
                0,
                vec![
                    Param::I32(numk as i32),
                    Param::I32(base as i32),
                    Param::Ptr(xs[0]),
                    Param::Ptr(xs[1]),
                    Param::Ptr(xs[2]),
                    Param::Ptr(qr),
                    Param::Ptr(qi),
                ],
            ));
        }
        let check: Check = Box::new(move |mem: &DeviceMemory| {
            let mag = mem.read_f32(phi_mag, numk).map_err(fault)?;
            let want_mag: Vec<f64> = (0..numk)
                .map(|j| {
                    let (r, i) = (f64::from(input.phi[0][j]), f64::from(input.phi[1][j]));
                    r * r + i * i
                })
                .collect();
            let got: Vec<f64> = mag.iter().map(|&m| f64::from(m)).collect();
            compare("phiMag", &got, &want_mag, 1e-6)?;
            let (want_r, want_i) = mri_q_host(&input, &mag);
            let read = |d: u64| -> Result<Vec<f64>, String> {
                Ok(mem
                    .read_f32(d, numx)
                    .map_err(fault)?
                    .into_iter()
                    .map(f64::from)
                    .collect())
            };
            compare("Qr", &read(qr)?, &want_r, MRIQ_TOL)?;
            compare("Qi", &read(qi)?, &want_i, MRIQ_TOL)
        });
        steps.push(Step::Check(check));
        Ok(steps)
    });
    Ok(Staged::boxed(setup))
}

/// Qr and Qi's tolerance (relative, at least absolute). The host follows the kernel's
/// single-precision steps (below), but the emulator rounds `FMUL.RZ` to nearest (directed
/// rounding on FADD/FMUL/FFMA is not decoded: an emulator gap), so each sample's angle can
/// differ by one unit in the last place of its period count (about 2.4e-5 radians here),
/// which over 2,048 samples moved Qr by 6e-5 (measured); the kernel also flushes subnormal
/// values to zero (`.FTZ`), which a data file's values could reach, and the hardware's sine and
/// cosine are approximations (the emulator's are exact, WL-1).
pub(super) const MRIQ_TOL: f64 = 5e-4;

/// `a * b` rounded toward zero, as `FMUL.RZ` (the product of two floats is exact in a double).
pub(super) fn mul_rz(a: f32, b: f32) -> f32 {
    let p = f64::from(a) * f64::from(b);
    let r = p as f32;
    if f64::from(r).abs() > p.abs() {
        // One step towards zero (r is not zero here: |r| > |p| >= 0).
        f32::from_bits(r.to_bits() - 1)
    } else {
        r
    }
}

/// The host's Q, as the compiled kernel computes it (`--use_fast_math`): for each voxel and
/// sample in order, the argument `kx x + ky y + kz z` (the kernel's multiply-adds: y first,
/// then x, then z), times 2 pi, then in periods (times 1/(2 pi) rounded toward zero: the
/// hardware's sine and cosine take periods), and Qr += phiMag cos, Qi += phiMag sin (fused).
/// Every sample is taken once whether numK is even or odd (odd: each launch's first sample
/// alone, then pairs); phiMag is the device's, as the host copies it back into kVals.
pub(super) fn mri_q_host(input: &MriQInput, mag: &[f32]) -> (Vec<f64>, Vec<f64>) {
    let [kx, ky, kz] = &input.k;
    let [x, y, z] = &input.x;
    let two_pi = std::f32::consts::TAU;
    let inv_two_pi = 0.159_154_94_f32;
    let mut qr = Vec::with_capacity(x.len());
    let mut qi = Vec::with_capacity(x.len());
    for v in 0..x.len() {
        let (mut r, mut i) = (0.0f32, 0.0f32);
        for j in 0..mag.len() {
            let arg = z[v].mul_add(kz[j], x[v].mul_add(kx[j], y[v] * ky[j])) * two_pi;
            let periods = f64::from(mul_rz(arg, inv_two_pi)) * std::f64::consts::TAU;
            r = (periods.cos() as f32).mul_add(mag[j], r);
            i = (periods.sin() as f32).mul_add(mag[j], i);
        }
        qr.push(f64::from(r));
        qi.push(f64::from(i));
    }
    (qr, qi)
}
