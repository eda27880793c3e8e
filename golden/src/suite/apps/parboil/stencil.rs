use super::*;

// ---- stencil --------------------------------------------------------------------------------

pub(in crate::suite::apps) static STENCIL_SASS: Listing = Listing::new(
    "stencil.sass",
    include_str!("../../../../sass/stencil.sass"),
);

pub(in crate::suite::apps) const STENCIL: Workload = Workload {
    name: "stencil",
    suite: "Parboil",
    source: parboil_src!("stencil", "main.cu, kernels.cu (block2D_hybrid_coarsen_x)"),
    args: &[
        (
            "nx",
            "128",
            "grid points along x (the small data set: 128; the default one AccelWattch ran: 512)",
        ),
        (
            "ny",
            "128",
            "grid points along y (small: 128; default: 512)",
        ),
        (
            "nz",
            "32",
            "grid points along z, at least 2 (small: 32; default: 64)",
        ),
        (
            "iters",
            "1",
            "time steps, one launch each (both data sets' runs: 100)",
        ),
        (
            "file",
            "",
            "Parboil's input grid (nx * ny * nz little-endian floats, x fastest), e.g. \
             512x512x64x100.bin with nx=512,ny=512,nz=64",
        ),
    ],
    input: "the grid uniform in [0, 1) by seed, or Parboil's binary grid file",
    small: "nx=64,ny=8,nz=4",
    make: stencil,
};

/// The host's block (`tx` x `ty`; each thread computes two points along x).
pub(super) const STENCIL_TX: u32 = 32;
pub(super) const STENCIL_TY: u32 = 4;

/// The little-endian floats of file `path`, at least `n` of them (the first `n`).
pub(super) fn read_floats(path: &str, n: usize) -> Result<Vec<f32>, SuiteError> {
    let bytes = std::fs::read(path).map_err(|e| SuiteError::Io {
        path: path.into(),
        message: e.to_string(),
    })?;
    if bytes.len() < 4 * n {
        return Err(SuiteError::Io {
            path: path.into(),
            message: format!("{} bytes: {n} floats expected", bytes.len()),
        });
    }
    Ok(bytes[..4 * n]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// One time step of the 7-point stencil on the host, as the kernel computes each interior
/// point: the six neighbours summed in its order (above, below, +y, -y, +x, -x), times `c1`,
/// less the centre times `c0` (one fused multiply-add); the boundary is left as it is.
pub(super) fn stencil_step(a0: &[f32], next: &mut [f32], n: [usize; 3], c0: f32, c1: f32) {
    let [nx, ny, nz] = n;
    let at = |i: usize, j: usize, k: usize| i + nx * (j + ny * k);
    for k in 1..nz.saturating_sub(1) {
        for j in 1..ny.saturating_sub(1) {
            for i in 1..nx.saturating_sub(1) {
                let sum = a0[at(i, j, k + 1)]
                    + a0[at(i, j, k - 1)]
                    + a0[at(i, j + 1, k)]
                    + a0[at(i, j - 1, k)]
                    + a0[at(i + 1, j, k)]
                    + a0[at(i - 1, j, k)];
                next[at(i, j, k)] = sum.mul_add(c1, -(a0[at(i, j, k)] * c0));
            }
        }
    }
}

pub(super) fn stencil(args: &Args, seed: u64) -> Result<Box<dyn App>, SuiteError> {
    let nx = args.int("nx", 128, 1, 4096)? as usize;
    let ny = args.int("ny", 128, 1, 4096)? as usize;
    // (The kernel reads plane 1 before its loop.)
    let nz = args.int("nz", 32, 2, 4096)? as usize;
    let iters = args.int("iters", 1, 1, 1000)? as usize;
    let size = nx * ny * nz;
    if size > 1 << 26 {
        return Err(args.err("nz", format!("{nx} x {ny} x {nz} points: at most 2^26")));
    }
    let a0 = match path_arg(args, "file") {
        Some(path) => read_floats(path, size)?,
        None => unit_floats(size, seed),
    };
    let (c0, c1) = (1.0f32 / 6.0, 1.0f32 / 6.0 / 6.0);
    // The host's reference: the same steps, ping-ponging between two grids that start equal
    // (the source copies A0 to Anext on the device).
    let (mut cur, mut next) = (a0.clone(), a0.clone());
    for _ in 0..iters {
        stencil_step(&cur, &mut next, [nx, ny, nz], c0, c1);
        std::mem::swap(&mut cur, &mut next);
    }
    let want: Vec<f64> = cur.iter().map(|&v| f64::from(v)).collect();
    let kernel = STENCIL_SASS.kernel("_Z24block2D_hybrid_coarsen_xffPfS_iii")?;
    let setup: Setup = Box::new(move |mem: &mut DeviceMemory| {
        let bytes = size as u64 * 4;
        let d = [mem.alloc(bytes), mem.alloc(bytes)];
        mem.write_f32(d[0], &a0).map_err(|f| f.to_string())?;
        // (The source's cudaMemcpy from A0 to Anext on the device, made here as a host copy.)
        mem.write_f32(d[1], &a0).map_err(|f| f.to_string())?;
        // (Dimensions bounded to 4096 above: the casts are exact.)
        let grid = [
            (nx as u32).div_ceil(2 * STENCIL_TX),
            (ny as u32).div_ceil(STENCIL_TY),
            1,
        ];
        let block = [STENCIL_TX, STENCIL_TY, 1];
        let sh_size = 2 * STENCIL_TX * STENCIL_TY * 4;
        let mut ls = Vec::with_capacity(iters);
        let (mut a, mut b) = (d[0], d[1]);
        for _ in 0..iters {
            let params = vec![
                Param::F32(c0),
                Param::F32(c1),
                Param::Ptr(a),
                Param::Ptr(b),
                Param::I32(nx as i32),
                Param::I32(ny as i32),
                Param::I32(nz as i32),
            ];
            let mut l = launch(&kernel, grid, block, params);
            l.dyn_shared = sh_size;
            ls.push(l);
            std::mem::swap(&mut a, &mut b);
        }
        // `a` is now the grid the last step wrote (the source swaps once more and copies back
        // its Anext: the same grid).
        Ok((vec![d[0], d[1], a], ls))
    });
    let verify: Verify =
        Box::new(move |mem, d| compare("A", &Elem::F32.read(mem, d[2], size)?, &want, 0.0));
    Ok(Fixed::boxed(setup, verify))
}
