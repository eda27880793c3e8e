//! microgpusim's benchmarks (romnn/microgpusim, `test-apps/`), at the sizes its own tests use.

use super::super::mem::DeviceMemory;
use super::super::{App, Args, Launch, Param, SuiteError, Workload};
use super::Listing;

pub(super) static VECTORADD_SASS: Listing = Listing::new(
    "vectoradd.sass",
    include_str!("../../../sass/vectoradd.sass"),
);

pub(super) const VECTORADD: Workload = Workload {
    name: "vectoradd",
    suite: "microgpusim",
    source: "romnn/microgpusim test-apps/vectoradd/vectoradd.cu",
    args: &[
        ("n", "100", "elements"),
        ("dtype", "f32", "element type: f32 or f64"),
    ],
    input: "a[i] = sin(i)^2, b[i] = cos(i)^2 (the source's own)",
    make: vectoradd,
};

/// The source's `BLOCK_SIZE`.
const VECTORADD_BLOCK: u32 = 1024;

fn vectoradd(args: &Args, _seed: u64) -> Result<Box<dyn App>, SuiteError> {
    let n = args.int("n", 100, 1, 1 << 28)? as usize;
    let wide = args.choice("dtype", &["f32", "f64"])? == "f64";
    let kernel = VECTORADD_SASS.kernel(if wide {
        "_Z6vecAddIdEvPT_S1_S1_i"
    } else {
        "_Z6vecAddIfEvPT_S1_S1_i"
    })?;
    Ok(Box::new(VectorAdd {
        n,
        wide,
        kernel: Some(kernel),
        ptrs: [0; 3],
    }))
}

struct VectorAdd {
    n: usize,
    wide: bool,
    kernel: Option<std::sync::Arc<super::super::sass::KernelCode>>,
    ptrs: [u64; 3],
}

impl VectorAdd {
    fn inputs(&self) -> (Vec<f64>, Vec<f64>) {
        (0..self.n)
            .map(|i| {
                let x = i as f64;
                (x.sin() * x.sin(), x.cos() * x.cos())
            })
            .unzip()
    }
}

impl App for VectorAdd {
    fn next(&mut self, mem: &mut DeviceMemory) -> Result<Option<Launch>, String> {
        let Some(kernel) = self.kernel.take() else {
            return Ok(None);
        };
        let elem = if self.wide { 8 } else { 4 };
        let bytes = (self.n * elem) as u64;
        self.ptrs = [mem.alloc(bytes), mem.alloc(bytes), mem.alloc(bytes)];
        let (a, b) = self.inputs();
        let e = |f: super::super::mem::Fault| f.to_string();
        if self.wide {
            mem.write_f64(self.ptrs[0], &a).map_err(e)?;
            mem.write_f64(self.ptrs[1], &b).map_err(e)?;
        } else {
            let f = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<_>>();
            mem.write_f32(self.ptrs[0], &f(&a)).map_err(e)?;
            mem.write_f32(self.ptrs[1], &f(&b)).map_err(e)?;
        }
        let grid = (self.n as u32).div_ceil(VECTORADD_BLOCK);
        Ok(Some(Launch {
            kernel,
            grid: [grid, 1, 1],
            block: [VECTORADD_BLOCK, 1, 1],
            dyn_shared: 0,
            params: vec![
                Param::Ptr(self.ptrs[0]),
                Param::Ptr(self.ptrs[1]),
                Param::Ptr(self.ptrs[2]),
                Param::I32(self.n as i32),
            ],
        }))
    }

    fn verify(&self, mem: &DeviceMemory) -> Result<(), String> {
        let (a, b) = self.inputs();
        let got: Vec<f64> = if self.wide {
            mem.read_f64(self.ptrs[2], self.n)
                .map_err(|f| f.to_string())?
        } else {
            mem.read_f32(self.ptrs[2], self.n)
                .map_err(|f| f.to_string())?
                .into_iter()
                .map(f64::from)
                .collect()
        };
        for (i, ((x, y), g)) in a.iter().zip(&b).zip(&got).enumerate() {
            let want = if self.wide {
                x + y
            } else {
                f64::from(*x as f32 + *y as f32)
            };
            if *g != want {
                return Err(format!("c[{i}] = {g}, the host computes {want}"));
            }
        }
        Ok(())
    }
}
