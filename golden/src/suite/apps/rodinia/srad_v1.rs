use super::*;

// ---- srad_v1 -------------------------------------------------------------------------------

pub(in crate::suite::apps) const SRAD_V1: Workload = Workload {
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
pub(super) const SRAD_THREADS: usize = 512;
/// The source image's size.
pub(super) const SRAD_ORIG: (usize, usize) = (502, 458);

/// One step of srad's host program.
pub(super) enum SradStep {
    Launch(Launch),
    /// Read the reductions' totals back and launch `srad` with the image's `q0sqr`.
    Srad,
}

pub(super) struct Srad {
    pub(super) rows: usize,
    pub(super) cols: usize,
    pub(super) lambda: f32,
    pub(super) image: Vec<f32>,
    pub(super) steps: std::collections::VecDeque<SradStep>,
    /// image, iN, iS, jE, jW, sums, sums2, dN, dS, dW, dE, c.
    pub(super) d: Vec<u64>,
    pub(super) iterations: usize,
    /// Each iteration's `q0sqr`, from the device's reductions.
    pub(super) q0sqr: Vec<f32>,
}

/// A grey-level image file (ASCII PGM, `P2`): the first three lines are its header, then
/// `rows x cols` whole numbers, stored column-major (`image[c * rows + r]`) as the source
/// reads it.
pub(super) fn read_pgm(path: &Path, rows: usize, cols: usize) -> Result<Vec<f32>, SuiteError> {
    let io = SuiteError::in_file(path.display());
    let text = std::fs::read_to_string(path).map_err(|e| io(e.to_string()))?;
    let mut words = words(&text).filter(|&(line, _)| line > 3);
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

pub(super) fn srad_v1(args: &Args, seed: u64) -> Result<Box<dyn App>, SuiteError> {
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
    fn kernel(name: &str) -> Result<std::sync::Arc<crate::suite::sass::KernelCode>, String> {
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
pub(super) fn srad_reduction(values: &[f32]) -> (f64, f64) {
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
