use super::*;

// ---- histo ----------------------------------------------------------------------------------

pub(in crate::suite::apps) static HISTO_SASS: Listing =
    Listing::new("histo.sass", include_str!("../../../../sass/histo.sass"));

pub(in crate::suite::apps) const HISTO: Workload = Workload {
    name: "histo",
    suite: "Parboil",
    source: parboil_src!(
        "histo",
        "main.cu, histo_prescan.cu, histo_intermediates.cu, histo_main.cu, histo_final.cu"
    ),
    args: &[
        (
            "width",
            "512",
            "image width, at most 2046 (one thread per two columns); the data set's sizes \
             are in its img.bin, which is not available here",
        ),
        (
            "height",
            "512",
            "image height, a multiple of 16 (the intermediates kernel writes 16 rows per \
             block); width x height at least 262,144 for the prescan's statistics to be \
             defined (each of its 64 blocks samples 1/8 of its share with 512 threads; a \
             thread without a sample divides 0 by 0)",
        ),
        (
            "hwidth",
            "256",
            "histogram width, at most the image width (the host sizes its arrays by the \
             image's width)",
        ),
        (
            "hheight",
            "1024",
            "histogram height (width x height a multiple of 4; main's blocks each hold 24,576 \
             bins, and the host's arrays must hold every block the prescan's range names)",
        ),
        (
            "iters",
            "1",
            "iterations of the four kernels (the default data set's run AccelWattch traced, \
             `-- 20 4`: 20)",
        ),
        (
            "file",
            "",
            "Parboil's img.bin (image width, height, histogram width, height as 32-bit words, \
             then the image's bins) in place of the four sizes",
        ),
    ],
    input: "each pixel a histogram bin, normally distributed around the histogram's middle \
            (sigma 1/40 of its bins; the data set's values are concentrated in the centre), \
            by seed; or Parboil's img.bin",
    small: "width=64,height=16,hwidth=64,hheight=384",
    make: histo,
};

/// util.h: `KB`, `BINS_PER_BLOCK`, `BLOCK_X`, `PRESCAN_THREADS`, `PRESCAN_BLOCKS_X`, `THREADS`
/// and `UNROLL`.
pub(super) const HISTO_BINS_PER_BLOCK: u32 = 24 * 1024;
pub(super) const HISTO_BLOCK_X: u32 = 14;
pub(super) const PRESCAN_THREADS: u32 = 512;
pub(super) const PRESCAN_BLOCKS_X: u32 = 64;
pub(super) const HISTO_THREADS: u32 = 768;
pub(super) const UNROLL: u32 = 16;

/// The image: its size, the histogram's, and each pixel's bin.
pub(super) struct HistoInput {
    pub(super) width: u32,
    pub(super) height: u32,
    pub(super) hwidth: u32,
    pub(super) hheight: u32,
    pub(super) img: Vec<u32>,
}

pub(super) fn parse_histo_file(path: &str, bytes: &[u8]) -> Result<HistoInput, SuiteError> {
    let io = SuiteError::in_file(path);
    let word = |i: usize| {
        bytes
            .get(4 * i..4 * i + 4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
    };
    let head: Vec<u32> = (0..4).filter_map(word).collect();
    if head.len() != 4 {
        return Err(io(format!(
            "{} bytes: the four sizes (16 bytes) expected first",
            bytes.len()
        )));
    }
    let (width, height, hwidth, hheight) = (head[0], head[1], head[2], head[3]);
    let n = u64::from(width) * u64::from(height);
    if n == 0 || n > 1 << 26 || u64::from(hwidth) * u64::from(hheight) > 1 << 28 {
        return Err(io(format!(
            "image {width} x {height}, histogram {hwidth} x {hheight}: out of range"
        )));
    }
    // (n bounded to 2^26 above.)
    let n = n as usize;
    if bytes.len() < 16 + 4 * n {
        return Err(io(format!(
            "{} bytes: a {width} x {height} image needs {}",
            bytes.len(),
            16 + 4 * n
        )));
    }
    let img: Vec<u32> = (4..4 + n).filter_map(word).collect();
    let bins = hwidth * hheight;
    if let Some(i) = img.iter().position(|&v| v >= bins) {
        return Err(io(format!(
            "pixel {i} is bin {}, past the histogram's {bins}",
            img[i]
        )));
    }
    Ok(HistoInput {
        width,
        height,
        hwidth,
        hheight,
        img,
    })
}

/// The host program: per iteration the prescan, the range read back, the intermediates, main
/// and final kernels (main's grid depends on the range).
pub(super) struct Histo {
    pub(super) input: HistoInput,
    pub(super) kernels: [Arc<KernelCode>; 4],
    pub(super) iters: usize,
    /// Launches made so far.
    pub(super) made: usize,
    /// input, ranges, sm_mappings, global_subhisto, global_histo, global_overflow, final_histo.
    pub(super) d: Vec<u64>,
    /// The range the last prescan found.
    pub(super) range: (u32, u32),
    pub(super) want: Vec<u8>,
}

pub(super) fn histo(args: &Args, seed: u64) -> Result<Box<dyn App>, SuiteError> {
    let iters = args.int("iters", 1, 1, 10000)? as usize;
    let input = match path_arg(args, "file") {
        Some(path) => {
            let bytes = std::fs::read(path).map_err(|e| SuiteError::Io {
                path: path.into(),
                message: e.to_string(),
            })?;
            parse_histo_file(path, &bytes)?
        }
        None => {
            let width = args.int("width", 512, 1, 2046)? as u32;
            let height = args.int("height", 512, 16, 4096)? as u32;
            let hwidth = args.int("hwidth", 256, 1, 2046)? as u32;
            let hheight = args.int("hheight", 1024, 1, 1 << 16)? as u32;
            let bins = u64::from(hwidth) * u64::from(hheight);
            args.multiple_of(
                "hheight",
                bins,
                4,
                "the final kernel reads 4 bins at a time",
            )?;
            if bins > 1 << 28 {
                return Err(args.err("hheight", format!("{bins} bins: at most 2^28")));
            }
            let bins = bins as f64;
            let mut rng = Rng::new(seed);
            // A normal deviate as the sum of 12 uniform ones, less 6.
            let img = (0..width * height)
                .map(|_| {
                    let z: f64 = (0..12)
                        .map(|_| rng.bits(24) as f64 / 16777216.0)
                        .sum::<f64>()
                        - 6.0;
                    (bins / 2.0 + z * bins / 40.0).clamp(0.0, bins - 1.0) as u32
                })
                .collect();
            HistoInput {
                width,
                height,
                hwidth,
                hheight,
                img,
            }
        }
    };
    let HistoInput {
        width,
        height,
        hwidth,
        hheight,
        ..
    } = input;
    let refuse = |key: &str, message: String| -> Result<Box<dyn App>, SuiteError> {
        Err(args.err(key, message))
    };
    if width > 2046 {
        return refuse(
            "width",
            format!("{width}: one block of (width + 1) / 2 threads"),
        );
    }
    if height % UNROLL != 0 {
        return refuse(
            "height",
            format!(
                "{height} is not a multiple of {UNROLL}: the intermediates kernel writes past \
                 the image"
            ),
        );
    }
    if hwidth > width || (hwidth * hheight) % 4 != 0 {
        return refuse(
            "hwidth",
            format!(
                "histogram {hwidth} x {hheight} for an image {width} wide: the host sizes the \
                 histogram's arrays by the image's width, and the final kernel reads 4 bins at \
                 a time"
            ),
        );
    }
    // The host's reference (the base version): each pixel's bin counted, saturating at 255.
    let mut want = vec![0u8; (hwidth * hheight) as usize];
    for &v in &input.img {
        let b = &mut want[v as usize];
        *b = b.saturating_add(1);
    }
    let k = |name: &str| HISTO_SASS.kernel(name);
    let kernels = [
        k("_Z20histo_prescan_kernelPjiS_")?,
        k("_Z26histo_intermediates_kernelP5uint2jjjP6uchar4")?,
        k("_Z17histo_main_kernelP6uchar4jjjjjPjS1_S1_")?,
        k("_Z18histo_final_kerneljjjjPjS_S_S_")?,
    ];
    Ok(Box::new(Histo {
        input,
        kernels,
        iters,
        made: 0,
        d: Vec::new(),
        range: (0, 0),
        want,
    }))
}

impl Histo {
    /// The host's allocations and copies before its loop.
    fn setup(&mut self, mem: &mut DeviceMemory) -> Result<(), String> {
        let i = &self.input;
        let (w, h) = (u64::from(i.width), u64::from(i.height));
        let hh = u64::from(i.hheight);
        let even_width = w.div_ceil(2) * 2;
        let u = u64::from(UNROLL);
        self.d = vec![
            mem.alloc(even_width * h.div_ceil(u) * u * 4),
            mem.alloc(2 * 4),
            mem.alloc(w * h * 4),
            mem.alloc(u64::from(HISTO_BLOCK_X) * w * hh * 4),
            mem.alloc(w * hh * 2),
            mem.alloc(w * hh * 4),
            mem.alloc(w * hh),
        ];
        // (cudaMemset of final_histo: the allocation is zero already.) One copy per row.
        let width = i.width as usize;
        for (y, row) in i.img.chunks_exact(width).enumerate() {
            mem.write_u32(self.d[0] + y as u64 * even_width * 4, row)
                .map_err(fault)?;
        }
        Ok(())
    }
}

impl App for Histo {
    fn next(&mut self, mem: &mut DeviceMemory) -> Result<Option<Launch>, String> {
        if self.made == 0 {
            self.setup(mem)?;
        }
        if self.made == 4 * self.iters {
            return Ok(None);
        }
        let i = &self.input;
        let d = &self.d;
        let (w, h, hw, hh) = (i.width, i.height, i.hwidth, i.hheight);
        let stage = self.made % 4;
        self.made += 1;
        let (min, max) = self.range;
        let l = match stage {
            0 => {
                mem.write_u32(d[1], &[u32::MAX, 0]).map_err(fault)?;
                launch(
                    &self.kernels[0],
                    [PRESCAN_BLOCKS_X, 1, 1],
                    [PRESCAN_THREADS, 1, 1],
                    vec![
                        Param::Ptr(d[0]),
                        Param::I32((h * w) as i32),
                        Param::Ptr(d[1]),
                    ],
                )
            }
            1 => {
                // The range read back; main's grid has a row of blocks per part of it.
                let r = mem.read_u32(d[1], 2).map_err(fault)?;
                let (min, max) = (r[0], r[1]);
                if min > max
                    || u64::from(max) + 1 > u64::from(w * hh) / u64::from(HISTO_BINS_PER_BLOCK)
                {
                    return Err(format!(
                        "the prescan's range of bin blocks {min} to {max} reaches past the \
                         arrays the host sized by the image's width (main and final would \
                         access past them)"
                    ));
                }
                self.range = (min, max);
                // cudaMemset of the first image-width x histogram-height words of
                // global_subhisto.
                mem.write(d[3], &vec![0; (w * hh * 4) as usize])
                    .map_err(fault)?;
                launch(
                    &self.kernels[1],
                    [h.div_ceil(UNROLL), 1, 1],
                    [w.div_ceil(2), 1, 1],
                    vec![
                        Param::Ptr(d[0]),
                        Param::U32(h),
                        Param::U32(w),
                        Param::U32(w.div_ceil(2)),
                        Param::Ptr(d[2]),
                    ],
                )
            }
            2 => launch(
                &self.kernels[2],
                [HISTO_BLOCK_X, max - min + 1, 1],
                [HISTO_THREADS, 1, 1],
                vec![
                    Param::Ptr(d[2]),
                    Param::U32(h * w),
                    Param::U32(min),
                    Param::U32(max),
                    Param::U32(hh),
                    Param::U32(hw),
                    Param::Ptr(d[3]),
                    Param::Ptr(d[4]),
                    Param::Ptr(d[5]),
                ],
            ),
            _ => launch(
                &self.kernels[3],
                [HISTO_BLOCK_X * 3, 1, 1],
                [512, 1, 1],
                vec![
                    Param::U32(min),
                    Param::U32(max),
                    Param::U32(hh),
                    Param::U32(hw),
                    Param::Ptr(d[3]),
                    Param::Ptr(d[4]),
                    Param::Ptr(d[5]),
                    Param::Ptr(d[6]),
                ],
            ),
        };
        Ok(Some(l))
    }

    fn verify(&self, mem: &DeviceMemory) -> Result<(), String> {
        let mut got = vec![0u8; self.want.len()];
        mem.read(self.d[6], &mut got).map_err(|e| e.to_string())?;
        match got.iter().zip(&self.want).position(|(g, w)| g != w) {
            None => Ok(()),
            Some(b) => Err(format!(
                "histogram bin {b} = {}, the host counts {}",
                got[b], self.want[b]
            )),
        }
    }
}
