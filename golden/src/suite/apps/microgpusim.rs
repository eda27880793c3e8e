//! microgpusim's benchmarks (romnn/microgpusim, `test-apps/`): vector add, matrix multiply with
//! and without shared-memory tiles, matrix transpose (naive and coalesced) and BabelStream, at
//! the sizes its own tests use by default.

use super::super::mem::DeviceMemory;
use super::super::sass::KernelCode;
use super::super::{App, Args, Launch, Param, SuiteError, Workload};
use super::{fault, Listing};
use crate::rng::Rng;
use std::collections::VecDeque;
use std::sync::Arc;

pub(super) static VECTORADD_SASS: Listing = Listing::new(
    "vectoradd.sass",
    include_str!("../../../sass/vectoradd.sass"),
);
pub(super) static MATRIXMUL_SASS: Listing = Listing::new(
    "matrixmul.sass",
    include_str!("../../../sass/matrixmul.sass"),
);
pub(super) static SIMPLE_MATRIXMUL_SASS: Listing = Listing::new(
    "simple_matrixmul.sass",
    include_str!("../../../sass/simple_matrixmul.sass"),
);
pub(super) static TRANSPOSE_SASS: Listing = Listing::new(
    "transpose.sass",
    include_str!("../../../sass/transpose.sass"),
);
pub(super) static BABELSTREAM_SASS: Listing = Listing::new(
    "babelstream.sass",
    include_str!("../../../sass/babelstream.sass"),
);

const DTYPE: (&str, &str, &str) = ("dtype", "f32", "element type: f32 or f64");

/// A host array of `f32` or `f64` elements, held as `f64`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Elem {
    F32,
    F64,
}

impl Elem {
    pub(super) fn of(args: &Args) -> Result<Elem, SuiteError> {
        Ok(match args.choice("dtype", &["f32", "f64"])? {
            "f64" => Elem::F64,
            _ => Elem::F32,
        })
    }

    pub(super) fn bytes(self) -> u64 {
        match self {
            Elem::F32 => 4,
            Elem::F64 => 8,
        }
    }

    /// `(f32 kernel, f64 kernel)`: this type's.
    fn pick<'a>(self, names: (&'a str, &'a str)) -> &'a str {
        match self {
            Elem::F32 => names.0,
            Elem::F64 => names.1,
        }
    }

    /// `v` rounded to this type.
    fn round(self, v: f64) -> f64 {
        match self {
            Elem::F32 => f64::from(v as f32),
            Elem::F64 => v,
        }
    }

    pub(super) fn write(self, mem: &mut DeviceMemory, at: u64, v: &[f64]) -> Result<(), String> {
        match self {
            Elem::F32 => mem.write_f32(at, &v.iter().map(|&x| x as f32).collect::<Vec<_>>()),
            Elem::F64 => mem.write_f64(at, v),
        }
        .map_err(fault)
    }

    pub(super) fn read(self, mem: &DeviceMemory, at: u64, n: usize) -> Result<Vec<f64>, String> {
        match self {
            Elem::F32 => mem
                .read_f32(at, n)
                .map(|v| v.into_iter().map(f64::from).collect()),
            Elem::F64 => mem.read_f64(at, n),
        }
        .map_err(fault)
    }

    fn param(self, v: f64) -> Param {
        match self {
            Elem::F32 => Param::F32(v as f32),
            Elem::F64 => Param::F64(v),
        }
    }
}

/// `n` values uniform in [1, 2), as the sources' `rand() / RAND_MAX + 1`, from `seed`.
pub(super) fn uniform(n: usize, seed: u64, elem: Elem) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| elem.round(1.0 + rng.bits(24) as f64 / f64::from(1u32 << 24)))
        .collect()
}

/// Whether `got` is within `tol` (relative to the larger magnitude, at least 1) of `want`.
pub(super) fn near(got: f64, want: f64, tol: f64) -> bool {
    (got - want).abs() <= tol * want.abs().max(got.abs()).max(1.0)
}

/// Compare result array `got` with the host's `want`, naming the first element that differs.
pub(super) fn compare(what: &str, got: &[f64], want: &[f64], tol: f64) -> Result<(), String> {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if !near(*g, *w, tol) {
            return Err(format!("{what}[{i}] = {g}, the host computes {w}"));
        }
    }
    Ok(())
}

/// Sets up the device memory (allocations and input copies): the allocations' addresses and the
/// launches.
pub(super) type Setup =
    Box<dyn FnOnce(&mut DeviceMemory) -> Result<(Vec<u64>, Vec<Launch>), String>>;
/// Checks the device memory, given the allocations' addresses.
pub(super) type Verify = Box<dyn Fn(&DeviceMemory, &[u64]) -> Result<(), String>>;

/// A host program whose launches do not depend on earlier launches' results: it sets up the
/// memory, launches, and checks the results at the end.
pub(super) struct Fixed {
    setup: Option<Setup>,
    ptrs: Vec<u64>,
    launches: VecDeque<Launch>,
    verify: Verify,
}

impl Fixed {
    pub(super) fn boxed(setup: Setup, verify: Verify) -> Box<dyn App> {
        Box::new(Fixed {
            setup: Some(setup),
            ptrs: Vec::new(),
            launches: VecDeque::new(),
            verify,
        })
    }
}

impl App for Fixed {
    fn next(&mut self, mem: &mut DeviceMemory) -> Result<Option<Launch>, String> {
        if let Some(setup) = self.setup.take() {
            let (ptrs, launches) = setup(mem)?;
            self.ptrs = ptrs;
            self.launches = launches.into();
        }
        Ok(self.launches.pop_front())
    }

    fn verify(&self, mem: &DeviceMemory) -> Result<(), String> {
        (self.verify)(mem, &self.ptrs)
    }
}

pub(super) fn launch(
    kernel: &Arc<KernelCode>,
    grid: [u32; 3],
    block: [u32; 3],
    params: Vec<Param>,
) -> Launch {
    Launch {
        kernel: Arc::clone(kernel),
        grid,
        block,
        dyn_shared: 0,
        params,
    }
}

// ---- vectoradd ---------------------------------------------------------------------------

pub(super) const VECTORADD: Workload = Workload {
    name: "vectoradd",
    suite: "microgpusim",
    source: "romnn/microgpusim test-apps/vectoradd/vectoradd.cu",
    args: &[("n", "100", "elements (the source's default)"), DTYPE],
    input: "a[i] = sin(i)^2, b[i] = cos(i)^2 (the source's own)",
    small: "n=2000",
    make: vectoradd,
};

/// The source's `BLOCK_SIZE`.
const VECTORADD_BLOCK: u32 = 1024;

fn vectoradd(args: &Args, _seed: u64) -> Result<Box<dyn App>, SuiteError> {
    let n = args.int("n", 100, 1, 1 << 27)? as usize;
    let elem = Elem::of(args)?;
    let kernel =
        VECTORADD_SASS.kernel(elem.pick(("_Z6vecAddIfEvPT_S1_S1_i", "_Z6vecAddIdEvPT_S1_S1_i")))?;
    let (a, b): (Vec<f64>, Vec<f64>) = (0..n)
        .map(|i| {
            let x = i as f64;
            (elem.round(x.sin() * x.sin()), elem.round(x.cos() * x.cos()))
        })
        .unzip();
    let want: Vec<f64> = a.iter().zip(&b).map(|(x, y)| elem.round(x + y)).collect();
    let setup: Setup = Box::new(move |mem| {
        let bytes = n as u64 * elem.bytes();
        let d = vec![mem.alloc(bytes), mem.alloc(bytes), mem.alloc(bytes)];
        elem.write(mem, d[0], &a)?;
        elem.write(mem, d[1], &b)?;
        // (The source copies its zeroed result array too.)
        elem.write(mem, d[2], &vec![0.0; n])?;
        let grid = (n as u32).div_ceil(VECTORADD_BLOCK);
        let params = vec![
            Param::Ptr(d[0]),
            Param::Ptr(d[1]),
            Param::Ptr(d[2]),
            Param::I32(n as i32),
        ];
        let l = launch(&kernel, [grid, 1, 1], [VECTORADD_BLOCK, 1, 1], params);
        Ok((d, vec![l]))
    });
    let verify: Verify =
        Box::new(move |mem, d| compare("c", &elem.read(mem, d[2], n)?, &want, 0.0));
    Ok(Fixed::boxed(setup, verify))
}

// ---- matrixmul: tiled in shared memory -----------------------------------------------------

pub(super) const MATRIXMUL: Workload = Workload {
    name: "matrixmul",
    suite: "microgpusim",
    source: "romnn/microgpusim test-apps/matrixmul/matrixmul.cu (32 x 32 tiles in shared memory)",
    args: &[
        (
            "rows",
            "32",
            "rows (and columns) of the square matrices, a multiple of 32",
        ),
        DTYPE,
    ],
    input: "A and B uniform in [1, 2) (the source's rand() / RAND_MAX + 1), by seed",
    small: "rows=32",
    make: matrixmul,
};

/// The source's `BLOCK_SIZE` (the tile's side).
const TILE: u32 = 32;

fn matrixmul(args: &Args, seed: u64) -> Result<Box<dyn App>, SuiteError> {
    let rows = args.int("rows", 32, 32, 4096)? as usize;
    args.multiple_of(
        "rows",
        rows as u64,
        TILE.into(),
        "the kernel has no bounds check",
    )?;
    let elem = Elem::of(args)?;
    let kernel = MATRIXMUL_SASS
        .kernel(elem.pick(("_Z8mult_gpuIfEvPT_S1_S1_ii", "_Z8mult_gpuIdEvPT_S1_S1_ii")))?;
    let a = uniform(rows * rows, seed, elem);
    let b = uniform(rows * rows, seed ^ 0x5eed, elem);
    let want = matmul(&a, &b, rows, rows, rows, elem);
    let setup: Setup = Box::new(move |mem| {
        let bytes = (rows * rows) as u64 * elem.bytes();
        let d = vec![mem.alloc(bytes), mem.alloc(bytes), mem.alloc(bytes)];
        elem.write(mem, d[0], &a)?;
        elem.write(mem, d[1], &b)?;
        let g = (rows as u32).div_ceil(TILE);
        let params = vec![
            Param::Ptr(d[0]),
            Param::Ptr(d[1]),
            Param::Ptr(d[2]),
            Param::I32(rows as i32),
            Param::I32(rows as i32),
        ];
        Ok((d, vec![launch(&kernel, [g, g, 1], [TILE, TILE, 1], params)]))
    });
    let n = rows * rows;
    let verify: Verify =
        Box::new(move |mem, d| compare("C", &elem.read(mem, d[2], n)?, &want, 1e-5));
    Ok(Fixed::boxed(setup, verify))
}

/// `A (m x n) * B (n x p)`, accumulated in `elem`'s precision.
fn matmul(a: &[f64], b: &[f64], m: usize, n: usize, p: usize, elem: Elem) -> Vec<f64> {
    let mut c = vec![0.0; m * p];
    for i in 0..m {
        for j in 0..p {
            let mut s = 0.0;
            for k in 0..n {
                s = elem.round(a[i * n + k].mul_add(b[k * p + j], s));
            }
            c[i * p + j] = s;
        }
    }
    c
}

// ---- simple_matrixmul: one thread per element, no tiles ------------------------------------

pub(super) const SIMPLE_MATRIXMUL: Workload = Workload {
    name: "simple_matrixmul",
    suite: "microgpusim",
    source: "romnn/microgpusim test-apps/simple_matrixmul/matrixmul.cu (naive, 32 x 32 blocks)",
    args: &[
        ("m", "32", "rows of A and C"),
        ("n", "32", "columns of A, rows of B"),
        ("p", "32", "columns of B and C"),
        DTYPE,
    ],
    input: "A and B uniform in [1, 2), by seed",
    small: "m=20,n=7,p=45",
    make: simple_matrixmul,
};

/// The source's `BLOCK_DIM`.
const SIMPLE_BLOCK: u32 = 32;

fn simple_matrixmul(args: &Args, seed: u64) -> Result<Box<dyn App>, SuiteError> {
    let m = args.int("m", 32, 1, 8192)? as usize;
    let n = args.int("n", 32, 1, 8192)? as usize;
    let p = args.int("p", 32, 1, 8192)? as usize;
    let elem = Elem::of(args)?;
    let kernel = SIMPLE_MATRIXMUL_SASS.kernel(elem.pick((
        "_Z8mult_gpuIfEvPKT_S2_PS0_mmm",
        "_Z8mult_gpuIdEvPKT_S2_PS0_mmm",
    )))?;
    let a = uniform(m * n, seed, elem);
    let b = uniform(n * p, seed ^ 0x5eed, elem);
    // The kernel accumulates in a float whatever the element type (the source's `float
    // acc_sum`).
    let want = matmul(&a, &b, m, n, p, Elem::F32);
    let setup: Setup = Box::new(move |mem| {
        let e = elem.bytes();
        let d = vec![
            mem.alloc((m * n) as u64 * e),
            mem.alloc((n * p) as u64 * e),
            mem.alloc((m * p) as u64 * e),
        ];
        elem.write(mem, d[0], &a)?;
        elem.write(mem, d[1], &b)?;
        let grid = [
            (p as u32).div_ceil(SIMPLE_BLOCK),
            (m as u32).div_ceil(SIMPLE_BLOCK),
            1,
        ];
        let params = vec![
            Param::Ptr(d[0]),
            Param::Ptr(d[1]),
            Param::Ptr(d[2]),
            Param::U64(m as u64),
            Param::U64(n as u64),
            Param::U64(p as u64),
        ];
        Ok((
            d,
            vec![launch(
                &kernel,
                grid,
                [SIMPLE_BLOCK, SIMPLE_BLOCK, 1],
                params,
            )],
        ))
    });
    // The source's own check: within 1e-2 of the host's product.
    let verify: Verify =
        Box::new(move |mem, d| compare("C", &elem.read(mem, d[2], m * p)?, &want, 1e-4));
    Ok(Fixed::boxed(setup, verify))
}

// ---- transpose: naive and coalesced ---------------------------------------------------------

pub(super) const TRANSPOSE: Workload = Workload {
    name: "transpose",
    suite: "microgpusim (CUDA SDK transpose)",
    source: "romnn/microgpusim test-apps/transpose/transpose.cu (16 x 16 tiles)",
    args: &[
        (
            "dim",
            "32",
            "rows and columns of the square matrix, a multiple of 16",
        ),
        (
            "variant",
            "naive",
            "naive or coalesced (through a shared-memory tile)",
        ),
        (
            "reps",
            "0",
            "timed launches after the first (the source's default is 100)",
        ),
    ],
    input: "in[i] = i (the source's own)",
    small: "variant=coalesced",
    make: transpose,
};

/// The source's `TILE_DIM` and `BLOCK_ROWS`.
const TDIM: u32 = 16;

fn transpose(args: &Args, _seed: u64) -> Result<Box<dyn App>, SuiteError> {
    let dim = args.int("dim", 32, 16, 16384)? as usize;
    args.multiple_of("dim", dim as u64, TDIM.into(), "the source refuses others")?;
    let variant = args.choice("variant", &["naive", "coalesced"])?;
    let reps = args.int("reps", 0, 0, 1000)? as usize;
    let kernel = TRANSPOSE_SASS.kernel(if variant == "naive" {
        "_Z14transposeNaivePfS_ii"
    } else {
        "_Z18transposeCoalescedPfS_ii"
    })?;
    let input: Vec<f64> = (0..dim * dim).map(|i| f64::from(i as f32)).collect();
    let want: Vec<f64> = (0..dim * dim)
        .map(|i| input[(i % dim) * dim + i / dim])
        .collect();
    let setup: Setup = Box::new(move |mem| {
        let bytes = (dim * dim) as u64 * 4;
        let d = vec![mem.alloc(bytes), mem.alloc(bytes)];
        Elem::F32.write(mem, d[0], &input)?;
        let g = dim as u32 / TDIM;
        let params = vec![
            Param::Ptr(d[1]),
            Param::Ptr(d[0]),
            Param::I32(dim as i32),
            Param::I32(dim as i32),
        ];
        let l = launch(&kernel, [g, g, 1], [TDIM, TDIM, 1], params);
        Ok((d, vec![l; 1 + reps]))
    });
    let verify: Verify =
        Box::new(move |mem, d| compare("out", &Elem::F32.read(mem, d[1], dim * dim)?, &want, 0.0));
    Ok(Fixed::boxed(setup, verify))
}

// ---- BabelStream ----------------------------------------------------------------------------

pub(super) const BABELSTREAM: Workload = Workload {
    name: "babelstream",
    suite: "microgpusim (BabelStream)",
    source: "romnn/microgpusim test-apps/BabelStream/CUDAStream.cu and main.cpp",
    args: &[
        (
            "n",
            "4096",
            "elements per array, a multiple of 1024 (the source's default is 2^25)",
        ),
        (
            "times",
            "1",
            "iterations of copy, mul, add, triad and dot (the source's default is 100)",
        ),
        DTYPE,
    ],
    input: "a = 0.1, b = 0.2, c = 0.0, scalar 0.4 (the source's own)",
    small: "n=2048,dtype=f64",
    make: babelstream,
};

/// The source's `TBSIZE` and `DOT_NUM_BLOCKS`.
const TBSIZE: u32 = 1024;
const DOT_BLOCKS: u32 = 256;
const START: [f64; 3] = [0.1, 0.2, 0.0];
const SCALAR: f64 = 0.4;

fn babelstream(args: &Args, _seed: u64) -> Result<Box<dyn App>, SuiteError> {
    let n = args.int("n", 4096, 1024, 1 << 27)? as usize;
    args.multiple_of(
        "n",
        n as u64,
        TBSIZE.into(),
        "the kernels have no bounds check",
    )?;
    let times = args.int("times", 1, 1, 1000)? as usize;
    let elem = Elem::of(args)?;
    let k = |base: &str| -> Result<Arc<KernelCode>, SuiteError> {
        let t = elem.pick(("f", "d"));
        BABELSTREAM_SASS.kernel(&base.replace('@', t))
    };
    let init = k("_Z11init_kernelI@EvPT_S1_S1_S0_S0_S0_")?;
    let copy = k("_Z11copy_kernelI@EvPKT_PS0_")?;
    let mul = k("_Z10mul_kernelI@EvPT_PKS0_")?;
    let add = k("_Z10add_kernelI@EvPKT_S2_PS0_")?;
    let triad = k("_Z12triad_kernelI@EvPT_PKS0_S3_")?;
    let dot = k("_Z10dot_kernelI@EvPKT_S2_PS0_i")?;
    // The host's reference: the same operations on one element (every element is alike).
    let r = |v: f64| elem.round(v);
    let (mut a, mut b, mut c) = (r(START[0]), r(START[1]), r(START[2]));
    let s = r(SCALAR);
    for _ in 0..times {
        c = a;
        b = r(s * c);
        c = r(a + b);
        a = r(b + r(s * c));
    }
    let setup: Setup = Box::new(move |mem| {
        let bytes = n as u64 * elem.bytes();
        let d = vec![
            mem.alloc(bytes),
            mem.alloc(bytes),
            mem.alloc(bytes),
            mem.alloc(u64::from(DOT_BLOCKS) * elem.bytes()),
        ];
        let (pa, pb, pc, ps) = (
            Param::Ptr(d[0]),
            Param::Ptr(d[1]),
            Param::Ptr(d[2]),
            Param::Ptr(d[3]),
        );
        let grid = [n as u32 / TBSIZE, 1, 1];
        let block = [TBSIZE, 1, 1];
        let mut ls = vec![launch(
            &init,
            grid,
            block,
            vec![
                pa,
                pb,
                pc,
                elem.param(START[0]),
                elem.param(START[1]),
                elem.param(START[2]),
            ],
        )];
        for _ in 0..times {
            ls.push(launch(&copy, grid, block, vec![pa, pc]));
            ls.push(launch(&mul, grid, block, vec![pb, pc]));
            ls.push(launch(&add, grid, block, vec![pa, pb, pc]));
            ls.push(launch(&triad, grid, block, vec![pa, pb, pc]));
            ls.push(launch(
                &dot,
                [DOT_BLOCKS, 1, 1],
                block,
                vec![pa, pb, ps, Param::I32(n as i32)],
            ));
        }
        Ok((d, ls))
    });
    let verify: Verify = Box::new(move |mem, d| {
        for (name, at, want) in [("a", d[0], a), ("b", d[1], b), ("c", d[2], c)] {
            compare(name, &elem.read(mem, at, n)?, &vec![want; n], 1e-6)?;
        }
        // The dot product's partial sums add up to n * a * b.
        let sum: f64 = elem.read(mem, d[3], DOT_BLOCKS as usize)?.iter().sum();
        let want = n as f64 * a * b;
        if !near(sum, want, 1e-4) {
            return Err(format!(
                "the dot product is {sum}, the host computes {want}"
            ));
        }
        Ok(())
    });
    Ok(Fixed::boxed(setup, verify))
}
