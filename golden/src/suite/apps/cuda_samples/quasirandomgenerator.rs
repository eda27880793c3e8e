use super::*;

// ---- quasirandomGenerator ------------------------------------------------------------------

pub(in crate::suite::apps) const QUASIRANDOMGENERATOR: Workload = Workload {
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
pub(super) const QRNG_DIMS: usize = 3;
pub(super) const QRNG_RES: usize = 31;

/// GenerateCJ's first step (`GeneratePolynomials(buffer, false)`): the first `QRNG_DIMS`
/// irreducible polynomials over GF(2), as bit patterns (x is 0b10).
pub(super) fn qrng_polynomials() -> [i32; QRNG_DIMS] {
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
pub(super) fn qrng_cjn() -> [[i64; QRNG_DIMS]; 63] {
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
pub(super) fn qrng_table(cjn: &[[i64; QRNG_DIMS]; 63]) -> [[u32; QRNG_RES]; QRNG_DIMS] {
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
pub(super) const QRNG_INT_SCALE: f32 = 1.0 / 0x8000_0001u32 as f32;

/// getQuasirandomValue: point `i` of dimension `dim` from the 31-bit table, as the kernel
/// computes it.
pub(super) fn qrng_value(table: &[[u32; QRNG_RES]; QRNG_DIMS], i: u32, dim: usize) -> f32 {
    let mut result = 0u32;
    for (bit, t) in table[dim].iter().enumerate() {
        if (i >> bit) & 1 == 1 {
            result ^= t;
        }
    }
    (result + 1) as f32 * QRNG_INT_SCALE
}

/// getQuasirandomValue63: the same point from the 63-bit matrix, in double.
pub(super) fn qrng_value63(cjn: &[[i64; QRNG_DIMS]; 63], i: u32, dim: usize) -> f64 {
    let mut result = 0i64;
    for (bit, row) in cjn.iter().enumerate().take(32) {
        if (u64::from(i) >> bit) & 1 == 1 {
            result ^= row[dim];
        }
    }
    (result + 1) as f64 / 0x8000_0000_0000_0001u64 as f64
}

/// MoroInvCNDcpu: Moro's inverse cumulative normal distribution, in double.
pub(super) fn moro_inv_cnd(x: u32) -> f64 {
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

pub(super) fn quasirandomgenerator(args: &Args, _seed: u64) -> Result<Box<dyn App>, SuiteError> {
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
