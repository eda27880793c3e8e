//! Rodinia 3.1 (accel-sim/gpu-app-collection, `src/cuda/rodinia/3.1/cuda/`): the applications
//! of AccelWattch's Volta validation set and those the seeds evaluate.

use super::super::mem::DeviceMemory;
use super::super::{App, Args, Launch, Param, SuiteError, Workload};
use super::crand::CRand;
use super::microgpusim::{compare, launch, near, Fixed, Setup, Verify};
use super::Listing;
use crate::rng::Rng;
use std::path::Path;

pub(super) static BACKPROP_SASS: Listing =
    Listing::new("backprop.sass", include_str!("../../../sass/backprop.sass"));
pub(super) static HOTSPOT_SASS: Listing =
    Listing::new("hotspot.sass", include_str!("../../../sass/hotspot.sass"));
pub(super) static PATHFINDER_SASS: Listing = Listing::new(
    "pathfinder.sass",
    include_str!("../../../sass/pathfinder.sass"),
);
pub(super) static BFS_SASS: Listing =
    Listing::new("bfs.sass", include_str!("../../../sass/bfs.sass"));
pub(super) static KMEANS_SASS: Listing =
    Listing::new("kmeans.sass", include_str!("../../../sass/kmeans.sass"));
pub(super) static SRAD_SASS: Listing =
    Listing::new("srad_v1.sass", include_str!("../../../sass/srad_v1.sass"));

/// A device fault or a host error as the `App` reports it.
fn fault(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Read a file of one number per line (Rodinia's temperature and power files: `%f` per line),
/// `n` of them: each line's first word.
fn read_floats(path: &Path, n: usize) -> Result<Vec<f32>, SuiteError> {
    let io = SuiteError::in_file(path.display());
    let text = std::fs::read_to_string(path).map_err(|e| io(e.to_string()))?;
    let mut out = Vec::with_capacity(n);
    for (i, line) in text.lines().enumerate().take(n) {
        let word = line.split_whitespace().next().unwrap_or("");
        let v: f32 = word
            .parse()
            .map_err(|_| io(format!("line {}: `{word}` is not a number", i + 1)))?;
        out.push(v);
    }
    if out.len() < n {
        return Err(io(format!(
            "{} lines, the grid needs {n} (one value per cell, row by row)",
            out.len()
        )));
    }
    Ok(out)
}

// ---- backprop ------------------------------------------------------------------------------

pub(super) const BACKPROP: Workload = Workload {
    name: "backprop",
    suite: "Rodinia 3.1",
    source: "rodinia/3.1/cuda/backprop (backprop_cuda.cu, backprop_cuda_kernel.cu, facetrain.c)",
    args: &[(
        "in",
        "65536",
        "input layer units, a multiple of 16 (AccelWattch's validation run: 65536)",
    )],
    input: "the source's own: weights and inputs from glibc rand() after srand(7)",
    small: "in=512",
    make: backprop,
};

/// The source's `HEIGHT`/`WIDTH` (a block is 16 x 16 threads), hidden and output units.
const BP_TILE: u32 = 16;
const BP_HIDDEN: usize = 16;
const BP_OUT: usize = 1;
const ETA: f64 = 0.3;
const MOMENTUM: f64 = 0.3;

/// The network as `bpnn_create` and `load` make it.
struct Net {
    inputs: usize,
    /// Input units `0..=in` (unit 0, never read by the kernels, is 0 here: the source leaves
    /// it uninitialised).
    input_units: Vec<f32>,
    /// `(in + 1) x (hid + 1)` input-to-hidden weights, row by row.
    input_weights: Vec<f32>,
    /// `(hid + 1) x (out + 1)` hidden-to-output weights.
    hidden_weights: Vec<f32>,
}

impl Net {
    fn new(inputs: usize) -> Net {
        let mut r = CRand::new(7);
        let input_weights = (0..(inputs + 1) * (BP_HIDDEN + 1))
            .map(|_| r.unit_f32())
            .collect();
        let hidden_weights = (0..(BP_HIDDEN + 1) * (BP_OUT + 1))
            .map(|_| r.unit_f32())
            .collect();
        let mut input_units = vec![0.0; inputs + 1];
        for u in &mut input_units[1..] {
            *u = r.unit_f32();
        }
        Net {
            inputs,
            input_units,
            input_weights,
            hidden_weights,
        }
    }

    /// The hidden layer's error (`hidden_delta`, units `0..=hid`) from the partial sums the
    /// first kernel left: the host's part of `bpnn_train_cuda` between the two kernels.
    fn hidden_delta(&self, partial: &[f32]) -> Vec<f32> {
        let blocks = self.inputs / BP_TILE as usize;
        let mut hidden = [0f32; BP_HIDDEN + 1];
        hidden[0] = 1.0;
        for j in 1..=BP_HIDDEN {
            let mut sum = 0f32;
            for k in 0..blocks {
                sum += partial[k * BP_HIDDEN + j - 1];
            }
            sum += self.input_weights[j];
            hidden[j] = (1.0 / (1.0 + (-f64::from(sum)).exp())) as f32;
        }
        // bpnn_layerforward (hidden to output), bpnn_output_error (target 0.1),
        // bpnn_hidden_error.
        let who = |j: usize, k: usize| self.hidden_weights[j * (BP_OUT + 1) + k];
        let mut delta_o = [0f32; BP_OUT + 1];
        for (k, d) in delta_o.iter_mut().enumerate().skip(1) {
            let sum: f32 = (0..=BP_HIDDEN).map(|j| who(j, k) * hidden[j]).sum();
            let o = (1.0 / (1.0 + (-f64::from(sum)).exp())) as f32;
            *d = (f64::from(o) * (1.0 - f64::from(o)) * (0.1 - f64::from(o))) as f32;
        }
        let mut delta_h = vec![0f32; BP_HIDDEN + 1];
        for j in 1..=BP_HIDDEN {
            let sum: f32 = (1..=BP_OUT).map(|k| delta_o[k] * who(j, k)).sum();
            let h = f64::from(hidden[j]);
            delta_h[j] = (h * (1.0 - h) * f64::from(sum)) as f32;
        }
        delta_h
    }
}

/// backprop's host program: the forward kernel, the host's error computation on its partial
/// sums, the weight-adjusting kernel.
struct Backprop {
    net: Net,
    step: u8,
    /// input, input_hidden weights, partial sums, hidden delta, previous weights.
    d: Vec<u64>,
    delta: Vec<f32>,
}

fn backprop(args: &Args, _seed: u64) -> Result<Box<dyn App>, SuiteError> {
    let inputs = args.int("in", 65536, 16, 1 << 22)?;
    args.multiple_of("in", inputs, BP_TILE.into(), "the source refuses others")?;
    BACKPROP_SASS.kernels()?;
    Ok(Box::new(Backprop {
        net: Net::new(inputs as usize),
        step: 0,
        d: Vec::new(),
        delta: Vec::new(),
    }))
}

impl App for Backprop {
    fn next(&mut self, mem: &mut DeviceMemory) -> Result<Option<Launch>, String> {
        let n = &self.net;
        let blocks = (n.inputs / BP_TILE as usize) as u32;
        let (grid, block) = ([1, blocks, 1], [BP_TILE, BP_TILE, 1]);
        let weights = ((n.inputs + 1) * (BP_HIDDEN + 1)) as u64 * 4;
        self.step += 1;
        match self.step {
            1 => {
                let input = mem.alloc((n.inputs as u64 + 1) * 4);
                let output_hidden = mem.alloc((BP_HIDDEN as u64 + 1) * 4);
                let input_hidden = mem.alloc(weights);
                let partial = mem.alloc(u64::from(blocks) * u64::from(BP_TILE) * 4);
                mem.write_f32(input, &n.input_units).map_err(fault)?;
                mem.write_f32(input_hidden, &n.input_weights)
                    .map_err(fault)?;
                self.d = vec![input, input_hidden, partial];
                let k = BACKPROP_SASS
                    .kernel("_Z22bpnn_layerforward_CUDAPfS_S_S_ii")
                    .map_err(fault)?;
                let params = vec![
                    Param::Ptr(input),
                    Param::Ptr(output_hidden),
                    Param::Ptr(input_hidden),
                    Param::Ptr(partial),
                    Param::I32(n.inputs as i32),
                    Param::I32(BP_HIDDEN as i32),
                ];
                Ok(Some(launch(&k, grid, block, params)))
            }
            2 => {
                let partial = mem
                    .read_f32(self.d[2], blocks as usize * BP_TILE as usize)
                    .map_err(fault)?;
                check_partial_sums(n, &partial)?;
                self.delta = n.hidden_delta(&partial);
                let delta = mem.alloc((BP_HIDDEN as u64 + 1) * 4);
                let prev = mem.alloc(weights);
                mem.write_f32(delta, &self.delta).map_err(fault)?;
                mem.write_f32(prev, &vec![0.0; (n.inputs + 1) * (BP_HIDDEN + 1)])
                    .map_err(fault)?;
                mem.write_f32(self.d[1], &n.input_weights).map_err(fault)?;
                self.d.extend([delta, prev]);
                let k = BACKPROP_SASS
                    .kernel("_Z24bpnn_adjust_weights_cudaPfiS_iS_S_")
                    .map_err(fault)?;
                let params = vec![
                    Param::Ptr(delta),
                    Param::I32(BP_HIDDEN as i32),
                    Param::Ptr(self.d[0]),
                    Param::I32(n.inputs as i32),
                    Param::Ptr(self.d[1]),
                    Param::Ptr(prev),
                ];
                Ok(Some(launch(&k, grid, block, params)))
            }
            _ => Ok(None),
        }
    }

    fn verify(&self, mem: &DeviceMemory) -> Result<(), String> {
        // bpnn_adjust_weights_cuda: w += ETA * delta[j] * ly[i] + MOMENTUM * oldw (oldw is 0),
        // in double, for rows 1..=in; row 0 by the first block's first row of threads.
        let n = &self.net;
        let cols = BP_HIDDEN + 1;
        let got = mem
            .read_f32(self.d[1], (n.inputs + 1) * cols)
            .map_err(fault)?;
        let mut want = n.input_weights.clone();
        for (i, row) in want.chunks_exact_mut(cols).enumerate() {
            let ly = if i == 0 {
                1.0
            } else {
                f64::from(n.input_units[i])
            };
            for (j, w) in row.iter_mut().enumerate().skip(1) {
                let dw = ETA * f64::from(self.delta[j]) * ly + MOMENTUM * 0.0;
                *w = (f64::from(*w) + dw) as f32;
            }
        }
        let got: Vec<f64> = got.into_iter().map(f64::from).collect();
        let want: Vec<f64> = want.into_iter().map(f64::from).collect();
        compare("input_weights", &got, &want, 1e-6)
    }
}

/// The forward kernel's partial sums against the host's: block `b`'s column `j` is the sum of
/// its 16 input rows' `weight * input`.
fn check_partial_sums(n: &Net, partial: &[f32]) -> Result<(), String> {
    let cols = BP_HIDDEN + 1;
    for (b, sums) in partial.chunks_exact(BP_HIDDEN).enumerate() {
        for (j, &got) in sums.iter().enumerate() {
            let want: f64 = (0..BP_TILE as usize)
                .map(|r| {
                    let i = b * BP_TILE as usize + r + 1;
                    f64::from(n.input_weights[i * cols + j + 1]) * f64::from(n.input_units[i])
                })
                .sum();
            if !near(f64::from(got), want, 1e-5) {
                return Err(format!(
                    "hidden_partial_sum[{}] = {got}, the host computes {want}",
                    b * BP_HIDDEN + j
                ));
            }
        }
    }
    Ok(())
}

// ---- hotspot -------------------------------------------------------------------------------

pub(super) const HOTSPOT: Workload = Workload {
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
const HS_BLOCK: i64 = 16;

fn hotspot(args: &Args, seed: u64) -> Result<Box<dyn App>, SuiteError> {
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
fn hotspot_host(t0: &[f32], power: &[f32], size: usize, iterations: u64, c: [f32; 5]) -> Vec<f64> {
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

// ---- pathfinder ----------------------------------------------------------------------------

pub(super) const PATHFINDER: Workload = Workload {
    name: "pathfinder",
    suite: "Rodinia 3.1",
    source: "rodinia/3.1/cuda/pathfinder/pathfinder.cu",
    args: &[
        (
            "cols",
            "100000",
            "columns (row_len; AccelWattch's validation run: 100000)",
        ),
        ("rows", "100", "rows (col_len; validation run: 100)"),
        (
            "pyramid",
            "20",
            "pyramid height: rows per launch (validation run: 20)",
        ),
    ],
    input: "the source's own: wall[i][j] = rand() % 10 after srand(9) (glibc)",
    small: "cols=1000,rows=10,pyramid=4",
    make: pathfinder,
};

/// The source's `BLOCK_SIZE`.
const PF_BLOCK: u32 = 256;

fn pathfinder(args: &Args, _seed: u64) -> Result<Box<dyn App>, SuiteError> {
    let cols = args.int("cols", 100_000, 1, 1 << 26)? as usize;
    let rows = args.int("rows", 100, 2, 1 << 16)? as usize;
    let pyramid = args.int("pyramid", 20, 1, 127)? as usize;
    let kernel = PATHFINDER_SASS.kernel("_Z14dynproc_kerneliPiS_S_iiii")?;
    let mut r = CRand::new(9);
    let wall: Vec<u32> = (0..rows * cols).map(|_| r.rand() % 10).collect();
    // The host's reference: the shortest path's cost to each column of the last row.
    let mut want: Vec<u32> = wall[..cols].to_vec();
    for row in wall.chunks_exact(cols).skip(1) {
        want = (0..cols)
            .map(|x| {
                let left = want[x.saturating_sub(1)];
                let right = want[(x + 1).min(cols - 1)];
                want[x].min(left).min(right) + row[x]
            })
            .collect();
    }
    let small = PF_BLOCK as usize - 2 * pyramid;
    let blocks = cols.div_ceil(small) as u32;
    let setup: Setup = Box::new(move |mem| {
        let d = [
            mem.alloc(cols as u64 * 4),
            mem.alloc(cols as u64 * 4),
            mem.alloc(((rows - 1) * cols) as u64 * 4),
        ];
        mem.write_u32(d[0], &wall[..cols]).map_err(fault)?;
        mem.write_u32(d[2], &wall[cols..]).map_err(fault)?;
        let mut ls = Vec::new();
        let (mut src, mut dst) = (1, 0);
        let mut t = 0;
        while t < rows - 1 {
            std::mem::swap(&mut src, &mut dst);
            let params = vec![
                Param::I32(pyramid.min(rows - t - 1) as i32),
                Param::Ptr(d[2]),
                Param::Ptr(d[src]),
                Param::Ptr(d[dst]),
                Param::I32(cols as i32),
                Param::I32(rows as i32),
                Param::I32(t as i32),
                Param::I32(pyramid as i32),
            ];
            ls.push(launch(&kernel, [blocks, 1, 1], [PF_BLOCK, 1, 1], params));
            t += pyramid;
        }
        Ok((vec![d[dst], d[0], d[1], d[2]], ls))
    });
    let verify: Verify = Box::new(move |mem, d| {
        let got = mem.read_u32(d[0], cols).map_err(fault)?;
        match got.iter().zip(&want).position(|(g, w)| g != w) {
            None => Ok(()),
            Some(i) => Err(format!(
                "result[{i}] = {}, the host computes {}",
                got[i], want[i]
            )),
        }
    });
    Ok(Fixed::boxed(setup, verify))
}

// ---- bfs -----------------------------------------------------------------------------------

pub(super) const BFS: Workload = Workload {
    name: "bfs",
    suite: "Rodinia 3.1",
    source: "rodinia/3.1/cuda/bfs (bfs.cu, kernel.cu, kernel2.cu)",
    args: &[
        (
            "nodes",
            "65536",
            "vertices of the generated graph (the suite's graph65536; graph1MW_6 has 1000000)",
        ),
        (
            "file",
            "",
            "a graph in Rodinia's format (graphgen's output) in place of the generated one",
        ),
    ],
    input: "a graph as Rodinia's graphgen makes it: each vertex joined to 2 to 4 uniformly \
        chosen others, both ways (mean degree 6), by seed; or a Rodinia graph file",
    small: "nodes=2000",
    make: bfs,
};

/// The source's `MAX_THREADS_PER_BLOCK`.
const BFS_BLOCK: usize = 512;

/// A graph in Rodinia's form: per vertex its first edge and edge count, and the edge list.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Graph {
    pub nodes: Vec<(u32, u32)>,
    pub edges: Vec<u32>,
}

impl Graph {
    /// As Rodinia's graphgen makes one: vertex `i` gets 2 to 4 edges to uniformly chosen
    /// vertices, each added in both directions (weights are drawn and dropped, as BFS reads
    /// none).
    pub fn generate(n: usize, seed: u64) -> Graph {
        let mut rng = Rng::new(seed);
        let mut adj: Vec<Vec<u32>> = vec![Vec::new(); n];
        for i in 0..n {
            let k = 2 + rng.below(3);
            for _ in 0..k {
                let j = rng.below(n as u64) as usize;
                adj[i].push(j as u32);
                adj[j].push(i as u32);
            }
        }
        let mut nodes = Vec::with_capacity(n);
        let mut edges = Vec::new();
        for a in adj {
            nodes.push((edges.len() as u32, a.len() as u32));
            edges.extend(a);
        }
        Graph { nodes, edges }
    }

    /// Read a graph file in Rodinia's format: the vertex count, a `start count` pair per
    /// vertex, the source vertex, the edge count, a `destination weight` pair per edge.
    pub fn read(path: &Path) -> Result<Graph, SuiteError> {
        let io = SuiteError::in_file(path.display());
        let text = std::fs::read_to_string(path).map_err(|e| io(e.to_string()))?;
        let mut words = text
            .lines()
            .enumerate()
            .flat_map(|(i, l)| l.split_whitespace().map(move |w| (i + 1, w)));
        let mut next = |what: &str| -> Result<u64, SuiteError> {
            let (line, w) = words
                .next()
                .ok_or_else(|| io(format!("ends before the {what}")))?;
            w.parse().map_err(|_| {
                io(format!(
                    "line {line}: the {what} `{w}` is not a whole number"
                ))
            })
        };
        let n = next("vertex count")?;
        if n == 0 || n > 1 << 26 {
            return Err(io(format!("line 1: {n} vertices (1 to 2^26 are accepted)")));
        }
        let mut nodes = Vec::new();
        for _ in 0..n {
            let start = next("first edge of a vertex")?;
            let count = next("edge count of a vertex")?;
            nodes.push((start, count));
        }
        next("source vertex")?;
        let m = next("edge count")?;
        if m > 1 << 28 {
            return Err(io(format!("{m} edges (at most 2^28 are accepted)")));
        }
        let mut edges = Vec::new();
        for _ in 0..m {
            let dest = next("edge's destination")?;
            next("edge's weight")?;
            if dest >= n {
                return Err(io(format!("an edge to vertex {dest}, of {n}")));
            }
            edges.push(dest as u32);
        }
        let nodes = nodes
            .into_iter()
            .enumerate()
            .map(|(i, (s, c))| {
                if s + c > m {
                    return Err(io(format!(
                        "vertex {i}'s edges {s}..{} pass the {m} edges",
                        s + c
                    )));
                }
                Ok((s as u32, c as u32))
            })
            .collect::<Result<_, _>>()?;
        Ok(Graph { nodes, edges })
    }

    /// Each vertex's BFS level from vertex 0 (`-1`: unreachable), and the frontier's size at
    /// each level: the host's reference run.
    pub fn levels(&self) -> (Vec<i32>, Vec<usize>) {
        let mut cost = vec![-1i32; self.nodes.len()];
        cost[0] = 0;
        let mut frontier = vec![0u32];
        let mut sizes = Vec::new();
        while !frontier.is_empty() {
            sizes.push(frontier.len());
            let mut next = Vec::new();
            for &v in &frontier {
                let (s, c) = self.nodes[v as usize];
                for &u in &self.edges[s as usize..(s + c) as usize] {
                    if cost[u as usize] < 0 {
                        cost[u as usize] = cost[v as usize] + 1;
                        next.push(u);
                    }
                }
            }
            frontier = next;
        }
        (cost, sizes)
    }
}

/// bfs's host program: the two kernels once per level until no vertex was updated (the
/// `over` flag read back after each pair).
struct Bfs {
    graph: Graph,
    /// nodes, edges, mask, updating mask, visited, cost, over.
    d: Vec<u64>,
    /// The next launch: 0 the first kernel, 1 the second.
    phase: u8,
    levels: usize,
}

fn bfs(args: &Args, seed: u64) -> Result<Box<dyn App>, SuiteError> {
    let graph = match args.path("file") {
        Some(p) => Graph::read(&p)?,
        None => Graph::generate(args.int("nodes", 65536, 1, 1 << 24)? as usize, seed),
    };
    BFS_SASS.kernels()?;
    Ok(Box::new(Bfs {
        graph,
        d: Vec::new(),
        phase: 0,
        levels: 0,
    }))
}

impl App for Bfs {
    fn next(&mut self, mem: &mut DeviceMemory) -> Result<Option<Launch>, String> {
        let n = self.graph.nodes.len();
        if self.d.is_empty() {
            let nodes: Vec<u32> = self.graph.nodes.iter().flat_map(|&(s, c)| [s, c]).collect();
            let d_nodes = mem.alloc(n as u64 * 8);
            mem.write_u32(d_nodes, &nodes).map_err(fault)?;
            let d_edges = mem.alloc(self.graph.edges.len().max(1) as u64 * 4);
            mem.write_u32(d_edges, &self.graph.edges).map_err(fault)?;
            let mut flags = vec![0u8; n];
            flags[0] = 1;
            let mask = mem.alloc(n as u64);
            mem.copy_in(mask, &flags).map_err(fault)?;
            let updating = mem.alloc(n as u64);
            mem.copy_in(updating, &vec![0; n]).map_err(fault)?;
            let visited = mem.alloc(n as u64);
            mem.copy_in(visited, &flags).map_err(fault)?;
            let mut cost = vec![u32::MAX; n];
            cost[0] = 0;
            let d_cost = mem.alloc(n as u64 * 4);
            mem.write_u32(d_cost, &cost).map_err(fault)?;
            let over = mem.alloc(1);
            self.d = vec![d_nodes, d_edges, mask, updating, visited, d_cost, over];
        }
        let d = &self.d;
        let (blocks, threads) = if n > BFS_BLOCK {
            (n.div_ceil(BFS_BLOCK) as u32, BFS_BLOCK as u32)
        } else {
            (1, n as u32)
        };
        let (grid, block) = ([blocks, 1, 1], [threads, 1, 1]);
        if self.phase == 0 {
            if self.levels > 0 {
                let mut over = [0u8];
                mem.read(d[6], &mut over).map_err(fault)?;
                if over[0] == 0 {
                    return Ok(None);
                }
            }
            mem.copy_in(d[6], &[0]).map_err(fault)?;
            self.phase = 1;
            self.levels += 1;
            let k = BFS_SASS
                .kernel("_Z6KernelP4NodePiPbS2_S2_S1_i")
                .map_err(fault)?;
            let params = [d[0], d[1], d[2], d[3], d[4], d[5]].map(Param::Ptr);
            let mut params = params.to_vec();
            params.push(Param::I32(n as i32));
            Ok(Some(launch(&k, grid, block, params)))
        } else {
            self.phase = 0;
            let k = BFS_SASS.kernel("_Z7Kernel2PbS_S_S_i").map_err(fault)?;
            let mut params = [d[2], d[3], d[4], d[6]].map(Param::Ptr).to_vec();
            params.push(Param::I32(n as i32));
            Ok(Some(launch(&k, grid, block, params)))
        }
    }

    fn verify(&self, mem: &DeviceMemory) -> Result<(), String> {
        let (want, sizes) = self.graph.levels();
        // The device runs one level more than the frontier has: the last finds nothing new.
        if self.levels != sizes.len() {
            return Err(format!(
                "the host loop ran {} levels, the reference BFS has {} (frontiers {sizes:?})",
                self.levels,
                sizes.len()
            ));
        }
        let got = mem.read_u32(self.d[5], want.len()).map_err(fault)?;
        match got.iter().zip(&want).position(|(g, w)| *g as i32 != *w) {
            None => Ok(()),
            Some(i) => Err(format!(
                "cost[{i}] = {}, the reference BFS gives {}",
                got[i] as i32, want[i]
            )),
        }
    }
}

// ---- kmeans --------------------------------------------------------------------------------

pub(super) const KMEANS: Workload = Workload {
    name: "kmeans",
    suite: "Rodinia 3.1",
    source: "rodinia/3.1/cuda/kmeans (kmeans_cuda.cu, kmeans_cuda_kernel.cu, kmeans_clustering.c)",
    args: &[
        (
            "points",
            "65536",
            "points (AccelWattch's validation run: 819200.txt, 819,200 points)",
        ),
        (
            "features",
            "34",
            "features per point (the suite's files: 34)",
        ),
        ("clusters", "5", "clusters (the source's default -n 5 -m 5)"),
        (
            "c_clusters",
            "unset",
            "unset: the host's cudaMemcpyToSymbol(\"c_clusters\", ...) names the symbol by a \
            string, which CUDA 5 and later refuse, so the centres stay zero (as on the V100 \
            runs); set: the centres copied as the source intends",
        ),
        (
            "file",
            "",
            "points in Rodinia's text format (a line per point: an index, then its features)",
        ),
    ],
    input: "features uniform in [0, 1) by seed (the suite's 819200.txt has 34 features a \
        point); or a Rodinia kmeans text file",
    small: "points=2000,features=8,clusters=3,c_clusters=set",
    make: kmeans,
};

/// The source's threads per block (`THREADS_PER_DIM` squared) and its `ASSUMED_NR_CLUSTERS`
/// times 34 features, the size of `c_clusters`.
const KM_THREADS: usize = 256;
const KM_CONST_FLOATS: usize = 32 * 34;

/// Read a kmeans text file: each line an index then the point's features.
fn read_kmeans(path: &Path) -> Result<(Vec<f32>, usize), SuiteError> {
    let io = SuiteError::in_file(path.display());
    let text = std::fs::read_to_string(path).map_err(|e| io(e.to_string()))?;
    let (mut points, mut width) = (Vec::new(), None);
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let row: Vec<f32> = line
            .split_whitespace()
            .skip(1)
            .map(|w| {
                w.parse()
                    .map_err(|_| io(format!("line {}: `{w}` is not a number", i + 1)))
            })
            .collect::<Result<_, _>>()?;
        match width {
            None if row.is_empty() => return Err(io(format!("line {}: no features", i + 1))),
            None => width = Some(row.len()),
            Some(w) if w != row.len() => {
                return Err(io(format!(
                    "line {}: {} features, the first line has {w}",
                    i + 1,
                    row.len()
                )))
            }
            Some(_) => {}
        }
        points.extend(row);
    }
    let width = width.ok_or_else(|| io("no points".into()))?;
    Ok((points, width))
}

struct Kmeans {
    /// Points row-major (`npoints x nfeatures`).
    points: Vec<f32>,
    nfeatures: usize,
    nclusters: usize,
    write_centres: bool,
    /// The cluster centres the next launch uses (`nclusters x nfeatures`).
    centres: Vec<f32>,
    /// The membership the last launch left (`-1` before the first).
    membership: Vec<i32>,
    /// feature_flipped_d, feature_d, membership_d, clusters_d.
    d: Vec<u64>,
    /// Launches of kmeansPoint so far, and whether the loop has ended.
    iterations: usize,
    done: bool,
}

fn kmeans(args: &Args, seed: u64) -> Result<Box<dyn App>, SuiteError> {
    let (points, nfeatures) = match args.path("file") {
        Some(p) => read_kmeans(&p)?,
        None => {
            let n = args.int("points", 65536, 1, 1 << 24)? as usize;
            let f = args.int("features", 34, 1, 34)? as usize;
            let mut rng = Rng::new(seed);
            let v = (0..n * f)
                .map(|_| rng.bits(24) as f32 / (1u32 << 24) as f32)
                .collect();
            (v, f)
        }
    };
    let npoints = points.len() / nfeatures;
    let nclusters = (args.int("clusters", 5, 1, 32)? as usize).min(npoints);
    if nclusters * nfeatures > KM_CONST_FLOATS {
        return Err(args.err(
            "clusters",
            format!(
                "{nclusters} clusters of {nfeatures} features pass c_clusters' {KM_CONST_FLOATS} \
                floats"
            ),
        ));
    }
    let write_centres = args.choice("c_clusters", &["unset", "set"])? == "set";
    KMEANS_SASS.kernels()?;
    // kmeans_clustering's initial centres: the first points.
    let centres = points[..nclusters * nfeatures].to_vec();
    Ok(Box::new(Kmeans {
        membership: vec![-1; npoints],
        points,
        nfeatures,
        nclusters,
        write_centres,
        centres,
        d: Vec::new(),
        iterations: 0,
        done: false,
    }))
}

impl Kmeans {
    fn npoints(&self) -> usize {
        self.points.len() / self.nfeatures
    }

    /// allocateMemory's grid: enough blocks of 256 threads, rounded up to a square.
    fn blocks_per_dim(&self) -> u32 {
        let blocks = self.npoints().div_ceil(KM_THREADS);
        let mut per = (blocks as f64).sqrt() as usize;
        while per * per < blocks {
            per += 1;
        }
        per as u32
    }

    /// The host's part of an iteration after kmeansPoint: the membership read back, checked
    /// (each point in a nearest cluster of the centres the kernel saw), the changes counted
    /// and the centres moved to their members' means.
    fn after_launch(&mut self, mem: &DeviceMemory) -> Result<(), String> {
        let (n, f, k) = (self.npoints(), self.nfeatures, self.nclusters);
        let got = mem.read_u32(self.d[2], n).map_err(fault)?;
        let seen = if self.write_centres {
            self.centres.clone()
        } else {
            vec![0.0; k * f]
        };
        let mut delta = 0usize;
        let mut sums = vec![0f32; k * f];
        let mut lens = vec![0usize; k];
        for (i, &g) in got.iter().enumerate() {
            let p = &self.points[i * f..(i + 1) * f];
            let dist = |c: usize| -> f64 {
                p.iter()
                    .zip(&seen[c * f..(c + 1) * f])
                    .map(|(x, y)| (f64::from(*x) - f64::from(*y)).powi(2))
                    .sum()
            };
            let best = (0..k).map(dist).fold(f64::INFINITY, f64::min);
            let c = g as usize;
            if c >= k || dist(c) > best + 1e-4 * best.max(1e-30) {
                return Err(format!(
                    "iteration {}: point {i} put in cluster {}, not a nearest one",
                    self.iterations, g as i32
                ));
            }
            if self.membership[i] != g as i32 {
                delta += 1;
                self.membership[i] = g as i32;
            }
            lens[c] += 1;
            for (s, x) in sums[c * f..(c + 1) * f].iter_mut().zip(p) {
                *s += x;
            }
        }
        for c in 0..k {
            if lens[c] > 0 {
                for j in 0..f {
                    self.centres[c * f + j] = sums[c * f + j] / lens[c] as f32;
                }
            }
        }
        // `while ((delta > threshold) && (loop++ < 500))`, threshold 0.001.
        self.done = delta == 0 || self.iterations > 500;
        Ok(())
    }
}

impl App for Kmeans {
    fn next(&mut self, mem: &mut DeviceMemory) -> Result<Option<Launch>, String> {
        let (n, f, k) = (self.npoints(), self.nfeatures, self.nclusters);
        let per = self.blocks_per_dim();
        if self.d.is_empty() {
            let bytes = (n * f) as u64 * 4;
            let flipped = mem.alloc(bytes);
            mem.write_f32(flipped, &self.points).map_err(fault)?;
            let features = mem.alloc(bytes);
            let membership = mem.alloc(n as u64 * 4);
            let clusters = mem.alloc((k * f) as u64 * 4);
            self.d = vec![flipped, features, membership, clusters];
            let kernel = KMEANS_SASS
                .kernel("_Z14invert_mappingPfS_ii")
                .map_err(fault)?;
            let params = vec![
                Param::Ptr(flipped),
                Param::Ptr(features),
                Param::I32(n as i32),
                Param::I32(f as i32),
            ];
            let g = [per * per, 1, 1];
            return Ok(Some(launch(&kernel, g, [KM_THREADS as u32, 1, 1], params)));
        }
        if self.iterations > 0 {
            self.after_launch(mem)?;
        }
        if self.done {
            return Ok(None);
        }
        self.iterations += 1;
        let membership: Vec<u32> = self.membership.iter().map(|&m| m as u32).collect();
        mem.write_u32(self.d[2], &membership).map_err(fault)?;
        mem.write_f32(self.d[3], &self.centres).map_err(fault)?;
        if self.write_centres {
            let bytes: Vec<u8> = self.centres.iter().flat_map(|v| v.to_le_bytes()).collect();
            mem.write_symbol("c_clusters", &bytes);
        }
        let kernel = KMEANS_SASS
            .kernel("_Z11kmeansPointPfiiiPiS_S_S0_")
            .map_err(fault)?;
        // (block_clusters_d and block_deltas_d are never allocated: the build reduces on the
        // host, and the kernel reads neither.)
        let params = vec![
            Param::Ptr(self.d[1]),
            Param::I32(f as i32),
            Param::I32(n as i32),
            Param::I32(k as i32),
            Param::Ptr(self.d[2]),
            Param::Ptr(self.d[3]),
            Param::Ptr(0),
            Param::Ptr(0),
        ];
        Ok(Some(launch(
            &kernel,
            [per, per, 1],
            [KM_THREADS as u32, 1, 1],
            params,
        )))
    }

    fn verify(&self, mem: &DeviceMemory) -> Result<(), String> {
        // The inverted points (column-major), and the loop ended as the source's does.
        let (n, f) = (self.npoints(), self.nfeatures);
        let inverted = mem.read_f32(self.d[1], n * f).map_err(fault)?;
        for i in 0..n {
            for j in 0..f {
                if inverted[j * n + i] != self.points[i * f + j] {
                    return Err(format!(
                        "feature_d[{}] is not point {i}'s feature {j}",
                        j * n + i
                    ));
                }
            }
        }
        if !self.done {
            return Err("the clustering loop did not end".into());
        }
        Ok(())
    }
}

// ---- srad_v1 -------------------------------------------------------------------------------

pub(super) const SRAD_V1: Workload = Workload {
    name: "srad_v1",
    suite: "Rodinia 3.1",
    source: "rodinia/3.1/cuda/srad/srad_v1 (main.cu and its kernels)",
    args: &[
        (
            "iterations",
            "2",
            "diffusion iterations (AccelWattch's validation run: 100)",
        ),
        (
            "lambda",
            "0.5",
            "update step (the validation run's 0.5), as a decimal",
        ),
        (
            "rows",
            "502",
            "image rows after resizing (validation run: 502)",
        ),
        (
            "cols",
            "458",
            "image columns after resizing (validation run: 458)",
        ),
        (
            "file",
            "",
            "the suite's image (ASCII PGM, 502 x 458, read column-major as the source does)",
        ),
    ],
    input: "a 502 x 458 image of uniform grey levels 0 to 255 by seed (the suite's image.pgm \
        is an ultrasound image), resized by tiling as the source does; or the suite's file",
    small: "iterations=1,rows=64,cols=40",
    make: srad_v1,
};

/// The source's `NUMBER_THREADS`.
const SRAD_THREADS: usize = 512;
/// The source image's size.
const SRAD_ORIG: (usize, usize) = (502, 458);

/// One step of srad's host program.
enum SradStep {
    Launch(Launch),
    /// Read the reductions' totals back and launch `srad` with the image's `q0sqr`.
    Srad,
}

struct Srad {
    rows: usize,
    cols: usize,
    lambda: f32,
    image: Vec<f32>,
    steps: std::collections::VecDeque<SradStep>,
    /// image, iN, iS, jE, jW, sums, sums2, dN, dS, dW, dE, c.
    d: Vec<u64>,
    iterations: usize,
    /// Each iteration's `q0sqr`, from the device's reductions.
    q0sqr: Vec<f32>,
}

/// A grey-level image file (ASCII PGM, `P2`): the first three lines are its header, then
/// `rows x cols` whole numbers, stored column-major (`image[c * rows + r]`) as the source
/// reads it.
fn read_pgm(path: &Path, rows: usize, cols: usize) -> Result<Vec<f32>, SuiteError> {
    let io = SuiteError::in_file(path.display());
    let text = std::fs::read_to_string(path).map_err(|e| io(e.to_string()))?;
    let mut words = text
        .lines()
        .enumerate()
        .skip(3)
        .flat_map(|(i, l)| l.split_whitespace().map(move |w| (i + 1, w)));
    let mut image = vec![0.0; rows * cols];
    for r in 0..rows {
        for c in 0..cols {
            let (line, w) = words.next().ok_or_else(|| {
                io(format!(
                    "ends after {} pixels, the image has {}",
                    r * cols + c,
                    rows * cols
                ))
            })?;
            let v: i32 = w
                .parse()
                .map_err(|_| io(format!("line {line}: `{w}` is not a grey level")))?;
            image[c * rows + r] = v as f32;
        }
    }
    Ok(image)
}

fn srad_v1(args: &Args, seed: u64) -> Result<Box<dyn App>, SuiteError> {
    let iterations = args.int("iterations", 2, 1, 10_000)? as usize;
    let lambda: f32 = match args.text("lambda") {
        None => 0.5,
        Some(v) => v
            .parse()
            .ok()
            .filter(|l: &f32| l.is_finite() && *l > 0.0)
            .ok_or_else(|| args.err("lambda", format!("`{v}` is not a positive number")))?,
    };
    let rows = args.int("rows", 502, 2, 1 << 14)? as usize;
    let cols = args.int("cols", 458, 2, 1 << 14)? as usize;
    let (or, oc) = SRAD_ORIG;
    let orig = match args.path("file") {
        Some(p) => read_pgm(&p, or, oc)?,
        None => {
            let mut rng = Rng::new(seed);
            (0..or * oc).map(|_| rng.below(256) as f32).collect()
        }
    };
    // resize (column-major): tile the original.
    let mut image = vec![0.0; rows * cols];
    for c in 0..cols {
        for r in 0..rows {
            image[c * rows + r] = orig[(c % oc) * or + r % or];
        }
    }
    SRAD_SASS.kernels()?;
    Ok(Box::new(Srad {
        rows,
        cols,
        lambda,
        image,
        steps: Default::default(),
        d: Vec::new(),
        iterations,
        q0sqr: Vec::new(),
    }))
}

impl Srad {
    fn kernel(name: &str) -> Result<std::sync::Arc<super::super::sass::KernelCode>, String> {
        SRAD_SASS.kernel(name).map_err(fault)
    }

    /// The launches of the whole program, the `srad` ones left to be made when their turn
    /// comes (they need the reductions' results).
    fn plan(&mut self, mem: &mut DeviceMemory) -> Result<(), String> {
        let (nr, nc) = (self.rows, self.cols);
        let ne = nr * nc;
        let i32s = |v: Vec<usize>| v.into_iter().map(|x| x as u32).collect::<Vec<_>>();
        let mut north: Vec<usize> = (0..nr).map(|i| i.saturating_sub(1)).collect();
        let south: Vec<usize> = (0..nr).map(|i| (i + 1).min(nr - 1)).collect();
        let west: Vec<usize> = (0..nc).map(|j| j.saturating_sub(1)).collect();
        let east: Vec<usize> = (0..nc).map(|j| (j + 1).min(nc - 1)).collect();
        north[0] = 0;
        let fbytes = ne as u64 * 4;
        let d_i = mem.alloc(fbytes);
        let d_in = mem.alloc(nr as u64 * 4);
        mem.write_u32(d_in, &i32s(north)).map_err(fault)?;
        let d_is = mem.alloc(nr as u64 * 4);
        mem.write_u32(d_is, &i32s(south)).map_err(fault)?;
        let d_je = mem.alloc(nc as u64 * 4);
        mem.write_u32(d_je, &i32s(east)).map_err(fault)?;
        let d_jw = mem.alloc(nc as u64 * 4);
        mem.write_u32(d_jw, &i32s(west)).map_err(fault)?;
        let rest: Vec<u64> = (0..7).map(|_| mem.alloc(fbytes)).collect();
        mem.write_f32(d_i, &self.image).map_err(fault)?;
        self.d = [d_i, d_in, d_is, d_je, d_jw]
            .into_iter()
            .chain(rest)
            .collect();
        let d = &self.d;
        let blocks = ne.div_ceil(SRAD_THREADS) as u32;
        let (grid, block) = ([blocks, 1, 1], [SRAD_THREADS as u32, 1, 1]);
        let ne_p = Param::U64(ne as u64);
        let mut steps = vec![SradStep::Launch(launch(
            &Self::kernel("_Z7extractlPf")?,
            grid,
            block,
            vec![ne_p, Param::Ptr(d[0])],
        ))];
        let prepare = Self::kernel("_Z7preparelPfS_S_")?;
        let reduce = Self::kernel("_Z6reduceliiPfS_")?;
        let srad2 = Self::kernel("_Z5srad2fiilPiS_S_S_PfS0_S0_S0_S0_S0_")?;
        for _ in 0..self.iterations {
            steps.push(SradStep::Launch(launch(
                &prepare,
                grid,
                block,
                vec![ne_p, Param::Ptr(d[0]), Param::Ptr(d[5]), Param::Ptr(d[6])],
            )));
            // The host's reduction loop: blocks of 512 partial sums until one is left.
            let (mut b2, mut no, mut mul) = (blocks as usize, ne, 1usize);
            while b2 != 0 {
                let params = vec![
                    ne_p,
                    Param::I32(no as i32),
                    Param::I32(mul as i32),
                    Param::Ptr(d[5]),
                    Param::Ptr(d[6]),
                ];
                steps.push(SradStep::Launch(launch(
                    &reduce,
                    [b2 as u32, 1, 1],
                    block,
                    params,
                )));
                no = b2;
                if b2 == 1 {
                    b2 = 0;
                } else {
                    mul *= SRAD_THREADS;
                    b2 = b2.div_ceil(SRAD_THREADS);
                }
            }
            steps.push(SradStep::Srad);
            let mut params = self.common_params();
            params.extend([d[11], d[0]].map(Param::Ptr));
            steps.push(SradStep::Launch(launch(&srad2, grid, block, params)));
        }
        steps.push(SradStep::Launch(launch(
            &Self::kernel("_Z8compresslPf")?,
            grid,
            block,
            vec![ne_p, Param::Ptr(d[0])],
        )));
        self.steps = steps.into();
        Ok(())
    }

    /// `srad`'s and `srad2`'s parameters up to the derivatives.
    fn common_params(&self) -> Vec<Param> {
        let d = &self.d;
        let mut p = vec![
            Param::F32(self.lambda),
            Param::I32(self.rows as i32),
            Param::I32(self.cols as i32),
            Param::U64((self.rows * self.cols) as u64),
        ];
        p.extend([d[1], d[2], d[3], d[4], d[7], d[8], d[9], d[10]].map(Param::Ptr));
        p
    }

    /// The host's reference: the same diffusion in double precision, with each iteration's
    /// `q0sqr` as the device's reductions gave it (the source's `reduce` mis-indexes the
    /// leftover partial sums of its last block, so its totals are not the image's; tested
    /// apart by `srad_reduction_is_the_sources`).
    fn reference(&self) -> Vec<f64> {
        let (nr, nc) = (self.rows, self.cols);
        let ne = nr * nc;
        let mut img: Vec<f64> = self
            .image
            .iter()
            .map(|&v| (f64::from(v) / 255.0).exp())
            .collect();
        let lambda = f64::from(self.lambda);
        let (mut dn, mut ds, mut dw, mut de, mut c) = (
            vec![0.0; ne],
            vec![0.0; ne],
            vec![0.0; ne],
            vec![0.0; ne],
            vec![0.0; ne],
        );
        for &q0 in &self.q0sqr {
            let q0 = f64::from(q0);
            for col in 0..nc {
                for row in 0..nr {
                    let e = col * nr + row;
                    let jc = img[e];
                    dn[e] = img[col * nr + row.saturating_sub(1)] - jc;
                    ds[e] = img[col * nr + (row + 1).min(nr - 1)] - jc;
                    dw[e] = img[col.saturating_sub(1) * nr + row] - jc;
                    de[e] = img[(col + 1).min(nc - 1) * nr + row] - jc;
                    let g2 =
                        (dn[e] * dn[e] + ds[e] * ds[e] + dw[e] * dw[e] + de[e] * de[e]) / (jc * jc);
                    let l = (dn[e] + ds[e] + dw[e] + de[e]) / jc;
                    let num = 0.5 * g2 - (1.0 / 16.0) * (l * l);
                    let den = 1.0 + 0.25 * l;
                    let qsqr = num / (den * den);
                    let den = (qsqr - q0) / (q0 * (1.0 + q0));
                    c[e] = (1.0 / (1.0 + den)).clamp(0.0, 1.0);
                }
            }
            for col in 0..nc {
                for row in 0..nr {
                    let e = col * nr + row;
                    let cs = c[col * nr + (row + 1).min(nr - 1)];
                    let ce = c[(col + 1).min(nc - 1) * nr + row];
                    let div = c[e] * dn[e] + cs * ds[e] + c[e] * dw[e] + ce * de[e];
                    img[e] += 0.25 * lambda * div;
                }
            }
        }
        img.into_iter().map(|v| v.ln() * 255.0).collect()
    }
}

/// The totals (of the values and of their squares) srad's `reduce` launches leave in
/// `d_sums[0]`, `d_sums2[0]`, as the source computes them: blocks of 512 partial sums, its
/// last block (when partial) summing its largest power-of-two prefix as a tree and then the
/// rest from `d_sums[bx * 512 + df ..]` — the source indexes the leftovers without the stride
/// `mul`, so from the second launch on it adds elements of the first level's array instead of
/// block results.
fn srad_reduction(values: &[f32]) -> (f64, f64) {
    let ne = values.len();
    let mut sums: Vec<f64> = values.iter().map(|&v| f64::from(v)).collect();
    let mut sums2: Vec<f64> = values
        .iter()
        .map(|&v| f64::from(v) * f64::from(v))
        .collect();
    let t = SRAD_THREADS;
    let (mut blocks, mut no, mut mul) = (ne.div_ceil(t), ne, 1usize);
    loop {
        let nf = t - (blocks * t - no);
        for bx in 0..blocks {
            let at = |i: usize| (bx * t + i) * mul;
            let (count, tail) = if nf == t || bx != blocks - 1 {
                (t, 0..0)
            } else {
                let df = (1..=9)
                    .map(|k| 1usize << k)
                    .filter(|&i| nf >= i)
                    .max()
                    .unwrap_or(0);
                if df == 0 {
                    // (No thread writes a result: tx == df - 1 never holds.)
                    continue;
                }
                (df, bx * t + df..bx * t + nf)
            };
            let (mut a, mut b) = (0.0, 0.0);
            for i in 0..count {
                a += sums[at(i)];
                b += sums2[at(i)];
            }
            for i in tail {
                a += sums[i];
                b += sums2[i];
            }
            sums[bx * mul * t] = a;
            sums2[bx * mul * t] = b;
        }
        no = blocks;
        if blocks == 1 {
            return (sums[0], sums2[0]);
        }
        mul *= t;
        blocks = blocks.div_ceil(t);
    }
}

impl App for Srad {
    fn next(&mut self, mem: &mut DeviceMemory) -> Result<Option<Launch>, String> {
        if self.d.is_empty() {
            self.plan(mem)?;
        }
        match self.steps.pop_front() {
            None => Ok(None),
            Some(SradStep::Launch(l)) => Ok(Some(l)),
            Some(SradStep::Srad) => {
                let ne = (self.rows * self.cols) as f32;
                let total = mem.read_f32(self.d[5], 1).map_err(fault)?[0];
                let total2 = mem.read_f32(self.d[6], 1).map_err(fault)?[0];
                let mean = total / ne;
                let mean2 = mean * mean;
                let q0sqr = (total2 / ne - mean2) / mean2;
                self.q0sqr.push(q0sqr);
                // The reductions' totals against the source's algorithm run on the host.
                let image = mem
                    .read_f32(self.d[0], self.rows * self.cols)
                    .map_err(fault)?;
                let want = srad_reduction(&image);
                if !near(f64::from(total), want.0, 1e-4) || !near(f64::from(total2), want.1, 1e-4) {
                    return Err(format!(
                        "reduce gave totals {total} and {total2}, the source's reduction {want:?}"
                    ));
                }
                let mut params = self.common_params();
                params.push(Param::F32(q0sqr));
                params.extend([self.d[11], self.d[0]].map(Param::Ptr));
                let blocks = (self.rows * self.cols).div_ceil(SRAD_THREADS) as u32;
                let k = Self::kernel("_Z4sradfiilPiS_S_S_PfS0_S0_S0_fS0_S0_")?;
                Ok(Some(launch(
                    &k,
                    [blocks, 1, 1],
                    [SRAD_THREADS as u32, 1, 1],
                    params,
                )))
            }
        }
    }

    fn verify(&self, mem: &DeviceMemory) -> Result<(), String> {
        let got: Vec<f64> = mem
            .read_f32(self.d[0], self.rows * self.cols)
            .map_err(fault)?
            .into_iter()
            .map(f64::from)
            .collect();
        // Single against double precision over the iterations: within a thousandth of the
        // 0-255 range.
        let want = self.reference();
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            if (g - w).abs() > 0.25 {
                return Err(format!("image[{i}] = {g}, the host computes {w}"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grid_file_is_read_and_a_bad_one_named_with_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("t");
        std::fs::write(&good, "1.5\n2\t9\n-3e1\n4\n").unwrap();
        assert_eq!(read_floats(&good, 4).unwrap(), vec![1.5, 2.0, -30.0, 4.0]);
        let short = read_floats(&good, 5).unwrap_err().to_string();
        assert!(short.contains("4 lines, the grid needs 5"), "{short}");
        let bad = dir.path().join("b");
        std::fs::write(&bad, "1\nx\n").unwrap();
        let e = read_floats(&bad, 2).unwrap_err().to_string();
        assert!(e.contains("line 2: `x` is not a number"), "{e}");
        let e = read_floats(&dir.path().join("none"), 1).unwrap_err();
        assert!(matches!(e, SuiteError::Io { .. }));
    }

    #[test]
    fn a_rodinia_graph_file_is_read_and_a_bad_one_named_with_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("g.txt");
        // Three vertices, 0 - 1 - 2 (each edge both ways), source 0.
        std::fs::write(&p, "3\n0 1\n1 2\n3 1\n\n0\n\n4\n1 5\n0 5\n2 3\n1 3\n").unwrap();
        let g = Graph::read(&p).unwrap();
        assert_eq!(g.nodes, vec![(0, 1), (1, 2), (3, 1)]);
        assert_eq!(g.edges, vec![1, 0, 2, 1]);
        assert_eq!(g.levels(), (vec![0, 1, 2], vec![1, 1, 1]));
        for (text, needle) in [
            ("3\n0 1\n1 x\n", "line 3: the edge count of a vertex `x`"),
            ("3\n0 1\n1 2\n", "ends before the first edge of a vertex"),
            ("2\n0 1\n1 1\n0\n2\n1 1\n7 1\n", "an edge to vertex 7, of 2"),
            (
                "2\n0 3\n1 1\n0\n2\n1 1\n0 1\n",
                "vertex 0's edges 0..3 pass the 2 edges",
            ),
        ] {
            std::fs::write(&p, text).unwrap();
            let e = Graph::read(&p).unwrap_err().to_string();
            assert!(e.contains(needle), "{text:?}: {e}");
        }
    }

    #[test]
    fn a_kmeans_file_is_read_and_a_bad_one_named_with_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("k.txt");
        std::fs::write(&p, "1 0.5 2\n2 3 4e-1\n\n").unwrap();
        assert_eq!(read_kmeans(&p).unwrap(), (vec![0.5, 2.0, 3.0, 0.4], 2));
        for (text, needle) in [
            ("1 0.5 2\n2 3\n", "line 2: 1 features, the first line has 2"),
            ("1 0.5 x\n", "line 1: `x` is not a number"),
            ("1\n", "line 1: no features"),
            ("", "no points"),
        ] {
            std::fs::write(&p, text).unwrap();
            let e = read_kmeans(&p).unwrap_err().to_string();
            assert!(e.contains(needle), "{text:?}: {e}");
        }
    }

    #[test]
    fn a_generated_graph_has_graphgens_degrees() {
        let g = Graph::generate(10_000, 1);
        // Each vertex adds 2 to 4 edges both ways: 6 per vertex on average, at least 2 each.
        let mean = g.edges.len() as f64 / 10_000.0;
        assert!((5.8..6.2).contains(&mean), "{mean}");
        assert!(g.nodes.iter().all(|&(_, c)| c >= 2));
        assert_eq!(Graph::generate(10_000, 1), g);
        assert_ne!(Graph::generate(10_000, 2), g);
    }
}
