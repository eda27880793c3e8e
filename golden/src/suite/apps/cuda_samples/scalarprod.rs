use super::*;

// ---- scalarProd ----------------------------------------------------------------------------

pub(in crate::suite::apps) const SCALARPROD: Workload = Workload {
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

pub(super) fn scalarprod(args: &Args, _seed: u64) -> Result<Box<dyn App>, SuiteError> {
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
