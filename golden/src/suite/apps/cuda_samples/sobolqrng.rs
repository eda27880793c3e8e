use super::*;

// ---- SobolQRNG -----------------------------------------------------------------------------

pub(in crate::suite::apps) const SOBOLQRNG: Workload = Workload {
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
pub(super) const SOBOL_DIRECTIONS: usize = 32;

/// sobol_primitives.cpp's first 100 primitive polynomials (Joe and Kuo's joe-kuo-6.10200
/// set): degree, coefficients `a` and the initial direction numbers `m` (the first, dimension
/// 1, is a special case and unused).
pub(super) const SOBOL_PRIMITIVES: &[(u32, u32, &[u32])] = &[
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
pub(super) fn sobol_directions(dimensions: usize) -> Vec<u32> {
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
pub(super) const K_2POWNEG32: f32 = 2.328_306_4E-10;

pub(super) fn sobolqrng(args: &Args, _seed: u64) -> Result<Box<dyn App>, SuiteError> {
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
