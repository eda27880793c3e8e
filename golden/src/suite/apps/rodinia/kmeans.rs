use super::*;

// ---- kmeans --------------------------------------------------------------------------------

pub(in crate::suite::apps) const KMEANS: Workload = Workload {
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
pub(super) const KM_THREADS: usize = 256;
pub(super) const KM_CONST_FLOATS: usize = 32 * 34;

/// Read a kmeans text file: each line an index then the point's features.
pub(super) fn read_kmeans(path: &Path) -> Result<(Vec<f32>, usize), SuiteError> {
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

pub(super) struct Kmeans {
    /// Points row-major (`npoints x nfeatures`).
    pub(super) points: Vec<f32>,
    pub(super) nfeatures: usize,
    pub(super) nclusters: usize,
    pub(super) write_centres: bool,
    /// The cluster centres the next launch uses (`nclusters x nfeatures`).
    pub(super) centres: Vec<f32>,
    /// The membership the last launch left (`-1` before the first).
    pub(super) membership: Vec<i32>,
    /// feature_flipped_d, feature_d, membership_d, clusters_d.
    pub(super) d: Vec<u64>,
    /// Launches of kmeansPoint so far, and whether the loop has ended.
    pub(super) iterations: usize,
    pub(super) done: bool,
}

pub(super) fn kmeans(args: &Args, seed: u64) -> Result<Box<dyn App>, SuiteError> {
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
