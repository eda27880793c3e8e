use super::*;

// ---- hotspot -------------------------------------------------------------------------------

pub(in crate::suite::apps) const HOTSPOT: Workload = Workload {
    name: "hotspot",
    suite: "Rodinia 3.1",
    source: "rodinia/3.1/cuda/hotspot/hotspot.cu",
    args: &[
        (
            "size",
            "512",
            "grid rows and columns (AccelWattch's validation run: 1024)",
        ),
        ("pyramid", "2", "pyramid height: time steps per launch"),
        ("iterations", "2", "time steps in all (sim_time)"),
        (
            "temp",
            "",
            "temperature file (one value per line, row by row); generated when empty",
        ),
        ("power", "", "power file, as temp; generated when empty"),
    ],
    input: "temperatures uniform in [323, 343) K and power uniform in [0, 0.01) W per cell \
        (the suite's temp_N/power_N files' ranges), by seed; or the suite's files",
    small: "size=64,pyramid=2,iterations=4",
    make: hotspot,
};

/// The source's `BLOCK_SIZE`.
pub(super) const HS_BLOCK: i64 = 16;

pub(super) fn hotspot(args: &Args, seed: u64) -> Result<Box<dyn App>, SuiteError> {
    let size = args.int("size", 512, 1, 16384)? as usize;
    let pyramid = args.int("pyramid", 2, 1, 7)?;
    let iterations = args.int("iterations", 2, 1, 10_000)?;
    let kernel = HOTSPOT_SASS.kernel("_Z14calculate_tempiPfS_S_iiiiffffff")?;
    let n = size * size;
    let mut rng = Rng::new(seed);
    let mut gen = |lo: f32, span: f32| -> Vec<f32> {
        (0..n)
            .map(|_| lo + span * (rng.bits(24) as f32 / (1u32 << 24) as f32))
            .collect()
    };
    let temp = match args.path("temp") {
        Some(p) => read_floats(&p, n)?,
        None => gen(323.0, 20.0),
    };
    let power = match args.path("power") {
        Some(p) => read_floats(&p, n)?,
        None => gen(0.0, 0.01),
    };
    // The host's parameters, in single precision as the source computes them.
    let (chip_h, chip_w, t_chip) = (0.016f32, 0.016f32, 0.0005f32);
    let grid_h = chip_h / size as f32;
    let grid_w = chip_w / size as f32;
    let cap = (0.5 * 1.75e6 * f64::from(t_chip) * f64::from(grid_w) * f64::from(grid_h)) as f32;
    let rx = (f64::from(grid_w) / (2.0 * 100.0 * f64::from(t_chip) * f64::from(grid_h))) as f32;
    let ry = (f64::from(grid_h) / (2.0 * 100.0 * f64::from(t_chip) * f64::from(grid_w))) as f32;
    let rz = (f64::from(t_chip) / (100.0 * f64::from(grid_h) * f64::from(grid_w))) as f32;
    let max_slope = (3.0e6 / (0.5 * f64::from(t_chip) * 1.75e6)) as f32;
    let step = (0.001 / f64::from(max_slope)) as f32;
    let want = hotspot_host(&temp, &power, size, iterations, [cap, rx, ry, rz, step]);
    let small = HS_BLOCK - 2 * pyramid as i64;
    let blocks = (size as i64 + small - 1) / small;
    let setup: Setup = Box::new(move |mem| {
        let bytes = n as u64 * 4;
        let d = [mem.alloc(bytes), mem.alloc(bytes), mem.alloc(bytes)];
        mem.write_f32(d[0], &temp).map_err(fault)?;
        mem.write_f32(d[2], &power).map_err(fault)?;
        let mut ls = Vec::new();
        let (mut src, mut dst) = (1, 0);
        let mut t = 0;
        while t < iterations {
            std::mem::swap(&mut src, &mut dst);
            let params = vec![
                Param::I32(pyramid.min(iterations - t) as i32),
                Param::Ptr(d[2]),
                Param::Ptr(d[src]),
                Param::Ptr(d[dst]),
                Param::I32(size as i32),
                Param::I32(size as i32),
                Param::I32(pyramid as i32),
                Param::I32(pyramid as i32),
                Param::F32(cap),
                Param::F32(rx),
                Param::F32(ry),
                Param::F32(rz),
                Param::F32(step),
                Param::F32(0.001),
            ];
            let g = [blocks as u32, blocks as u32, 1];
            let b = [HS_BLOCK as u32, HS_BLOCK as u32, 1];
            ls.push(launch(&kernel, g, b, params));
            t += pyramid;
        }
        // The result is in d[dst]: keep it first.
        Ok((vec![d[dst], d[0], d[1], d[2]], ls))
    });
    let verify: Verify = Box::new(move |mem, d| {
        let got: Vec<f64> = mem
            .read_f32(d[0], n)
            .map_err(fault)?
            .into_iter()
            .map(f64::from)
            .collect();
        compare("temperature", &got, &want, 1e-5)
    });
    Ok(Fixed::boxed(setup, verify))
}

/// `iterations` time steps of the hotspot stencil on the host: each cell from itself, its four
/// neighbours (a missing one at the edge is the cell itself), its power and the ambient 80 K.
pub(super) fn hotspot_host(
    t0: &[f32],
    power: &[f32],
    size: usize,
    iterations: u64,
    c: [f32; 5],
) -> Vec<f64> {
    let [cap, rx, ry, rz, step] = c;
    let step_div_cap = step / cap;
    let (rx1, ry1, rz1) = (1.0 / rx, 1.0 / ry, 1.0 / rz);
    let mut t = t0.to_vec();
    let mut next = t.clone();
    for _ in 0..iterations {
        for y in 0..size {
            for x in 0..size {
                let at = |yy: usize, xx: usize| f64::from(t[yy * size + xx]);
                let c0 = at(y, x);
                let (n, s) = (at(y.saturating_sub(1), x), at((y + 1).min(size - 1), x));
                let (w, e) = (at(y, x.saturating_sub(1)), at(y, (x + 1).min(size - 1)));
                let v = c0
                    + f64::from(step_div_cap)
                        * (f64::from(power[y * size + x])
                            + (s + n - 2.0 * c0) * f64::from(ry1)
                            + (e + w - 2.0 * c0) * f64::from(rx1)
                            + (80.0 - c0) * f64::from(rz1));
                next[y * size + x] = v as f32;
            }
        }
        std::mem::swap(&mut t, &mut next);
    }
    t.into_iter().map(f64::from).collect()
}
