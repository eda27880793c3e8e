use super::*;
use crate::rng::Rng;
use std::cell::RefCell;
use std::rc::Rc;

// ---- dct8x8 --------------------------------------------------------------------------------

pub(in crate::suite::apps) const DCT8X8: Workload = Workload {
    name: "dct8x8",
    suite: SUITE,
    source: "NVIDIA/cuda-samples v11.5 Samples/dct8x8/ (dct8x8.cu, dct8x8_kernel1.cuh, \
             dct8x8_kernel2.cuh, dct8x8_kernel_short.cuh, dct8x8_kernel_quantization.cuh)",
    args: &[
        (
            "width",
            "512",
            "image width, a multiple of 32 (the sample's barbara.bmp: 512)",
        ),
        (
            "height",
            "512",
            "image height, a multiple of 32 (the sample's barbara.bmp: 512)",
        ),
        (
            "dct1_runs",
            "1",
            "launches of CUDAkernel1DCT (the sample's BENCHMARK_SIZE: 10)",
        ),
        (
            "dct2_runs",
            "1",
            "launches of CUDAkernel2DCT (the sample's: 101, a warm-up and 100 timed)",
        ),
        (
            "file",
            "",
            "a 24-bit uncompressed BMP read as the sample reads barbara.bmp (its size replaces \
             width and height)",
        ),
    ],
    input: "an image of grey levels uniform in [0, 256), by seed (the sample's barbara.bmp is \
            not in the repository's text); or a BMP file (`file=`)",
    small: "width=32,height=32",
    make: dct8x8,
};

/// Common.h's `BLOCK_SIZE`; dct8x8_kernel2.cuh's and dct8x8_kernel_short.cuh's tiles.
const B: usize = 8;
const KER2_TILE: [u32; 2] = [32, 16];
const KERS_TILE: [u32; 2] = [32, 32];

/// dct8x8_kernel_quantization.cuh's `Q`.
const DCT_Q: [i16; 64] = [
    32, 33, 51, 81, 66, 39, 34, 17, 33, 36, 48, 47, 28, 23, 12, 12, 51, 48, 47, 28, 23, 12, 12, 12,
    81, 47, 28, 23, 12, 12, 12, 12, 66, 28, 23, 12, 12, 12, 12, 12, 39, 23, 12, 12, 12, 12, 12, 12,
    34, 12, 12, 12, 12, 12, 12, 12, 17, 12, 12, 12, 12, 12, 12, 12,
];

/// The pitch `cudaMallocPitch` gives a row of `bytes`: modelled as the next multiple of 512
/// (the driver's rule is not published; 512 is what current GPUs return for narrow rows).
fn pitch_of(bytes: usize) -> usize {
    bytes.next_multiple_of(512)
}

/// A 24-bit uncompressed BMP as the sample's `PreLoadBmp` and `LoadBmpAsGray` read it: the
/// 14-byte file header and 40-byte info header, then the pixels (blue, green, red) bottom row
/// first, each made a grey level by the sample's integer luma formula. (width, height, grey
/// levels row-major top row first.)
pub(super) fn parse_bmp(path: &str, bytes: &[u8]) -> Result<(usize, usize, Vec<u8>), SuiteError> {
    let io = SuiteError::in_file(path);
    if bytes.len() < 54 || &bytes[..2] != b"BM" {
        return Err(io(
            "not a BMP file (no `BM` signature and 54-byte header)".into()
        ));
    }
    let word = |at: usize| [bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]];
    // (BITMAPINFOHEADER's width and height are signed.)
    let (w, h) = (i32::from_le_bytes(word(18)), i32::from_le_bytes(word(22)));
    let depth = u16::from_le_bytes([bytes[28], bytes[29]]);
    if depth != 24 {
        return Err(io(format!("{depth} bits a pixel; the sample reads 24")));
    }
    if u32::from_le_bytes(word(30)) != 0 {
        return Err(io("compressed; the sample reads uncompressed pixels".into()));
    }
    // (The sample's kernels tile the image by 32 x 32 and 32 x 16; 4096 bounds the run.)
    if !(32..=4096).contains(&w) || !(32..=4096).contains(&h) || w % 32 != 0 || h % 32 != 0 {
        return Err(io(format!(
            "image {w} x {h}: each side must be a multiple of 32 from 32 to 4096"
        )));
    }
    // (Bounded above: 32 to 4096.)
    let (w, h) = (w as usize, h as usize);
    let pixels = &bytes[54..];
    if pixels.len() < 3 * w * h {
        return Err(io(format!(
            "{} bytes of pixels after the header; a {w} x {h} image needs {}",
            pixels.len(),
            3 * w * h
        )));
    }
    let mut grey = vec![0u8; w * h];
    for (k, p) in pixels.chunks_exact(3).take(w * h).enumerate() {
        let (b, g, r) = (i32::from(p[0]), i32::from(p[1]), i32::from(p[2]));
        let v = (313524 * r + 615514 * g + 119537 * b + 524288) >> 20;
        // (Rows are stored bottom first.)
        // (Clamped to a byte, as clamp_0_255.)
        grey[(h - 1 - k / w) * w + k % w] = v.clamp(0, 255) as u8;
    }
    Ok((w, h, grey))
}

/// The orthonormal 8-point DCT basis: `basis[i][u]` is frequency `u` at sample `i` (the
/// sample's DCTv8matrix, exactly).
fn dct_basis() -> [[f64; B]; B] {
    let mut m = [[0.0; B]; B];
    for (i, row) in m.iter_mut().enumerate() {
        for (u, v) in row.iter_mut().enumerate() {
            let c = if u == 0 { (1.0f64 / 8.0).sqrt() } else { 0.5 };
            *v = c * ((2 * i + 1) as f64 * u as f64 * std::f64::consts::PI / 16.0).cos();
        }
    }
    m
}

/// The block-wise 2-D DCT (`inverse`: the IDCT) of a `w`-wide plane, in double precision.
fn dct_plane(src: &[f32], w: usize, inverse: bool) -> Vec<f64> {
    let m = dct_basis();
    let mut out = vec![0.0; src.len()];
    for by in (0..src.len() / w).step_by(B) {
        for bx in (0..w).step_by(B) {
            let at = |y: usize, x: usize| f64::from(src[(by + y) * w + bx + x]);
            for y in 0..B {
                for x in 0..B {
                    let mut s = 0.0;
                    for i in 0..B {
                        for j in 0..B {
                            s += if inverse {
                                m[y][i] * at(i, j) * m[x][j]
                            } else {
                                m[i][y] * at(i, j) * m[j][x]
                            };
                        }
                    }
                    out[(by + y) * w + bx + x] = s;
                }
            }
        }
    }
    out
}

/// CUDAkernelQuantizationFloat on the host: `roundf(c / q) * q` in single precision.
fn quantize_float(coef: &[f32], w: usize) -> Vec<f32> {
    coef.iter()
        .enumerate()
        .map(|(k, &c)| {
            let q = f32::from(DCT_Q[(k / w % B) * B + k % B]);
            (c / q).round() * q
        })
        .collect()
}

/// `__mul24`: the product of the low 24 bits of each (signed), its low 32 bits.
fn mul24(a: i32, b: i32) -> i32 {
    ((a << 8) >> 8).wrapping_mul((b << 8) >> 8)
}

fn unfixh(x: i32) -> i16 {
    // (short)((x + 0x8000) >> 16): the low 16 bits.
    (x.wrapping_add(0x8000) >> 16) as i16
}

fn unfixo(x: i32) -> i32 {
    x.wrapping_add(0x1000) >> 13
}

/// dct8x8_kernel_short.cuh's constants.
const SIN_1_4: i32 = 0x5A82;
const COS_1_4: i32 = 0x5A82;
const SIN_1_8: i32 = 0x30FC;
const COS_1_8: i32 = 0x7642;
const OSIN_1_16: i32 = 0x063E;
const OSIN_3_16: i32 = 0x11C7;
const OSIN_5_16: i32 = 0x1A9B;
const OSIN_7_16: i32 = 0x1F63;
const OCOS_1_16: i32 = 0x1F63;
const OCOS_3_16: i32 = 0x1A9B;
const OCOS_5_16: i32 = 0x11C7;
const OCOS_7_16: i32 = 0x063E;

/// `CUDAshortInplaceDCT` of one 8-vector (both of the source's forms compute this).
fn short_dct(v: [i16; B]) -> [i16; B] {
    let i = v.map(i32::from);
    let (t0, t1, t2, t3) = (i[7] + i[0], i[6] + i[1], i[5] + i[2], i[4] + i[3]);
    let (t4, t5, t6, t7) = (i[3] - i[4], i[2] - i[5], i[1] - i[6], i[0] - i[7]);
    let (t10, t11, t12, t13) = (t3 + t0, t2 + t1, t1 - t2, t0 - t3);
    let t16 = unfixo(mul24(t6 + t5, SIN_1_4));
    let t15 = unfixo(mul24(t6 - t5, COS_1_4));
    let (t4, t7) = (t4 << 2, t7 << 2);
    let (t14, t25, t26, t17) = (t4 + t15, t4 - t15, t7 - t16, t7 + t16);
    [
        unfixh(mul24(t10 + t11, SIN_1_4)),
        unfixh(mul24(t17, OCOS_1_16) + mul24(t14, OSIN_1_16)),
        unfixh(mul24(t13, COS_1_8) + mul24(t12, SIN_1_8)),
        unfixh(mul24(t26, OCOS_3_16) - mul24(t25, OSIN_3_16)),
        unfixh(mul24(t10 - t11, COS_1_4)),
        unfixh(mul24(t26, OCOS_5_16) + mul24(t25, OSIN_5_16)),
        unfixh(mul24(t13, SIN_1_8) - mul24(t12, COS_1_8)),
        unfixh(mul24(t17, OCOS_7_16) - mul24(t14, OSIN_7_16)),
    ]
}

/// `CUDAshortInplaceIDCT` of one 8-vector.
fn short_idct(v: [i16; B]) -> [i16; B] {
    let i = v.map(i32::from);
    let t10 = mul24(i[0] + i[4], COS_1_4);
    let t11 = mul24(i[0] - i[4], COS_1_4);
    let t12 = mul24(i[2], SIN_1_8) - mul24(i[6], COS_1_8);
    let t13 = mul24(i[6], SIN_1_8) + mul24(i[2], COS_1_8);
    let (t20, t21, t22, t23) = (t10 + t13, t11 + t12, t11 - t12, t10 - t13);
    let t30 = unfixo(mul24(i[3] + i[5], COS_1_4));
    let t31 = unfixo(mul24(i[3] - i[5], COS_1_4));
    let (in1, in7) = (i[1] << 2, i[7] << 2);
    let (t40, t41, t42, t43) = (in1 + t30, in7 + t31, in1 - t30, in7 - t31);
    let t50 = mul24(t40, OCOS_1_16) + mul24(t41, OSIN_1_16);
    let t51 = mul24(t40, OSIN_1_16) - mul24(t41, OCOS_1_16);
    let t52 = mul24(t42, OCOS_5_16) + mul24(t43, OSIN_5_16);
    let t53 = mul24(t42, OSIN_5_16) - mul24(t43, OCOS_5_16);
    [
        unfixh(t20 + t50),
        unfixh(t21 + t53),
        unfixh(t22 + t52),
        unfixh(t23 + t51),
        unfixh(t23 - t51),
        unfixh(t22 - t52),
        unfixh(t21 - t53),
        unfixh(t20 - t50),
    ]
}

/// The short kernels' block-wise transform of a `w`-wide plane: each 8 x 8 block's columns,
/// then its rows (the kernels' two passes), by `f`.
fn short_plane(src: &[i16], w: usize, f: fn([i16; B]) -> [i16; B]) -> Vec<i16> {
    let mut p = src.to_vec();
    for by in (0..src.len() / w).step_by(B) {
        for bx in (0..w).step_by(B) {
            for x in 0..B {
                let col = f(std::array::from_fn(|y| p[(by + y) * w + bx + x]));
                for (y, v) in col.iter().enumerate() {
                    p[(by + y) * w + bx + x] = *v;
                }
            }
            for y in 0..B {
                let at = (by + y) * w + bx;
                let row = f(std::array::from_fn(|x| p[at + x]));
                p[at..at + B].copy_from_slice(&row);
            }
        }
    }
    p
}

/// CUDAkernelQuantizationShort on the host (the kernel's `short` arithmetic).
fn quantize_short(coef: &[i16], w: usize) -> Vec<i16> {
    coef.iter()
        .enumerate()
        .map(|(k, &c)| {
            let q = DCT_Q[(k / w % B) * B + k % B];
            let (c, q) = (i32::from(c), i32::from(q));
            // (Each step is stored back to a short.)
            let r = if c < 0 {
                let m = i32::from(-c as i16);
                let m = i32::from((m + (q >> 1)) as i16);
                -(m / q)
            } else {
                let m = i32::from((c + (q >> 1)) as i16);
                m / q
            };
            (i32::from(r as i16) * q) as i16
        })
        .collect()
}

/// Compare `got` with `want` element by element within `tol`, naming the first that differs.
fn within_each(what: &str, got: &[f32], want: &[f64], tol: f64) -> Result<(), String> {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if (f64::from(*g) - w).abs() > tol {
            return Err(format!(
                "{what}[{i}] = {g}, the host computes {w} (tolerance {tol})"
            ));
        }
    }
    Ok(())
}

/// A pitched plane of `h` rows at `addr` read back (`row` bytes a row, `pitch` apart).
fn read_plane(
    mem: &DeviceMemory,
    addr: u64,
    pitch: usize,
    row: usize,
    h: usize,
) -> Result<Vec<u8>, String> {
    let mut out = vec![0u8; row * h];
    for (y, r) in out.chunks_exact_mut(row).enumerate() {
        mem.read(addr + (y * pitch) as u64, r).map_err(fault)?;
    }
    Ok(out)
}

/// `values` (`row` bytes a row) copied to a pitched plane at `addr`: `cudaMemcpy2D`.
fn write_plane(
    mem: &mut DeviceMemory,
    addr: u64,
    pitch: usize,
    bytes: &[u8],
    row: usize,
) -> Result<(), String> {
    let mut padded = vec![0u8; bytes.len() / row * pitch];
    for (y, r) in bytes.chunks_exact(row).enumerate() {
        padded[y * pitch..y * pitch + row].copy_from_slice(r);
    }
    mem.copy_in(addr, &padded).map_err(fault)
}

fn floats(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn shorts(bytes: &[u8]) -> Vec<i16> {
    bytes
        .chunks_exact(2)
        .map(|c| i16::from_le_bytes([c[0], c[1]]))
        .collect()
}

/// The tolerance of a float DCT or IDCT against the host's double-precision one (the kernels'
/// single-precision sums of 16 products of values below 2^11).
const DCT_TOL: f64 = 0.01;

pub(super) fn dct8x8(args: &Args, seed: u64) -> Result<Box<dyn App>, SuiteError> {
    let (w, h, grey) = match args.path("file") {
        Some(p) => {
            for key in ["width", "height"] {
                if args.text(key).is_some() {
                    return Err(args.err(key, "the image's size is the file's".into()));
                }
            }
            let bytes =
                std::fs::read(&p).map_err(|e| SuiteError::in_file(p.display())(e.to_string()))?;
            parse_bmp(&p.display().to_string(), &bytes)?
        }
        None => {
            let why = "the CUDA 2 and short kernels tile the image by 32 x 16 and 32 x 32";
            let w = args.int("width", 512, 32, 4096)?;
            args.multiple_of("width", w, 32, why)?;
            let h = args.int("height", 512, 32, 4096)?;
            args.multiple_of("height", h, 32, why)?;
            // (At most 4096 each.)
            let (w, h) = (w as usize, h as usize);
            let mut rng = Rng::new(seed);
            // (below(256) is below 256.)
            (w, h, (0..w * h).map(|_| rng.below(256) as u8).collect())
        }
    };
    let dct1_runs = args.int("dct1_runs", 1, 1, 1000)? as usize;
    let dct2_runs = args.int("dct2_runs", 1, 1, 1000)? as usize;
    let k = |name: &str| DCT8X8_SASS.kernel(name);
    let kernels = [
        k("_Z14CUDAkernel1DCTPfiiiy")?,
        k("_Z27CUDAkernelQuantizationFloatPfi")?,
        k("_Z15CUDAkernel1IDCTPfiiiy")?,
        k("_Z14CUDAkernel2DCTPfS_i")?,
        k("_Z15CUDAkernel2IDCTPfS_i")?,
        k("_Z18CUDAkernelShortDCTPsi")?,
        k("_Z27CUDAkernelQuantizationShortPsi")?,
        k("_Z19CUDAkernelShortIDCTPsi")?,
    ];
    // The float plane (CopyByte2Float, AddFloatPlane(-128)) and the short one.
    let plane: Vec<f32> = grey.iter().map(|&g| f32::from(g) - 128.0).collect();
    let plane_s: Vec<i16> = grey.iter().map(|&g| i16::from(g) - 128).collect();
    let coef_s = short_plane(&plane_s, w, short_dct);
    let quant_s = quantize_short(&coef_s, w);
    let idct_s = short_plane(&quant_s, w, short_idct);
    let dct = Dct {
        w,
        h,
        want_coef: Rc::new(dct_plane(&plane, w, false)),
        plane,
        plane_s,
        want_short: [coef_s, quant_s, idct_s],
        runs: [dct1_runs, dct2_runs],
        kernels,
    };
    let setup: Setup = Box::new(move |mem| {
        let mut steps = Vec::new();
        dct.cuda1(mem, &mut steps)?;
        dct.cuda2(mem, &mut steps)?;
        dct.short(mem, &mut steps)?;
        Ok(steps)
    });
    Ok(Staged::boxed(setup))
}

/// The sample's three wrappers (WrapperCUDA1, WrapperCUDA2, WrapperCUDAshort) on one image.
struct Dct {
    w: usize,
    h: usize,
    plane: Vec<f32>,
    plane_s: Vec<i16>,
    /// The host's double-precision DCT of `plane`.
    want_coef: Rc<Vec<f64>>,
    /// The short pipeline's DCT, quantized coefficients and IDCT, as the kernels compute them.
    want_short: [Vec<i16>; 3],
    /// Launches of CUDAkernel1DCT and of CUDAkernel2DCT.
    runs: [usize; 2],
    /// 1DCT, QuantizationFloat, 1IDCT, 2DCT, 2IDCT, ShortDCT, QuantizationShort, ShortIDCT.
    kernels: [Arc<KernelCode>; 8],
}

impl Dct {
    /// The grid of the 8 x 8 blocks (CUDA 1 and the quantizations).
    fn grid8(&self) -> [u32; 3] {
        // (At most 4096 / 8 each.)
        [self.w as u32 / 8, self.h as u32 / 8, 1]
    }

    /// A pitched float plane of the image, allocated and copied in (`cudaMallocPitch`,
    /// `cudaMemcpy2D`): its address.
    fn float_plane(&self, mem: &mut DeviceMemory, pitch: usize) -> Result<u64, String> {
        let at = mem.alloc((pitch * self.h) as u64);
        let bytes: Vec<u8> = self.plane.iter().flat_map(|v| v.to_le_bytes()).collect();
        write_plane(mem, at, pitch, &bytes, 4 * self.w)?;
        Ok(at)
    }

    /// WrapperCUDA1: the source (a cudaArray read through a texture object in the sample; a
    /// pitched plane of the destination's pitch here, see the patch) and the destination.
    fn cuda1(&self, mem: &mut DeviceMemory, steps: &mut Vec<Step>) -> Result<(), String> {
        let [dct, quant, idct, ..] = &self.kernels;
        let pitch = pitch_of(4 * self.w);
        // (A pitch of at most 16,384 floats.)
        let stride = Param::I32((pitch / 4) as i32);
        let src = self.float_plane(mem, pitch)?;
        let dst = mem.alloc((pitch * self.h) as u64);
        // (The texture object's parameter carries the source plane's address.)
        let params = || {
            let offsets = [Param::I32(0), Param::I32(0)];
            [
                vec![Param::Ptr(dst), stride],
                offsets.to_vec(),
                vec![Param::U64(src)],
            ]
            .concat()
        };
        for _ in 0..self.runs[0] {
            steps.push(launch(dct, self.grid8(), [8, 8, 1], 0, params()));
        }
        let float = FloatChecks::new(&self.want_coef, self.w, self.h, pitch, "CUDA 1");
        steps.push(float.dct(dst));
        let qparams = vec![Param::Ptr(dst), stride];
        steps.push(launch(quant, self.grid8(), [8, 8, 1], 0, qparams));
        steps.push(float.quantized(dst));
        // cudaMemcpy2DToArray(Src, ..., Dst, ..., cudaMemcpyDeviceToDevice): on the device,
        // not a host copy.
        let bytes = pitch * self.h;
        steps.push(Step::Host(Box::new(move |mem| {
            let mut plane = vec![0; bytes];
            mem.read(dst, &mut plane).map_err(fault)?;
            mem.write(src, &plane).map_err(fault)
        })));
        steps.push(launch(idct, self.grid8(), [8, 8, 1], 0, params()));
        steps.push(float.idct(dst));
        Ok(())
    }

    /// WrapperCUDA2: src and dst pitched; DCT dst <- src, quantization of dst, IDCT src <- dst.
    fn cuda2(&self, mem: &mut DeviceMemory, steps: &mut Vec<Step>) -> Result<(), String> {
        let [_, quant, _, dct, idct, ..] = &self.kernels;
        let pitch = pitch_of(4 * self.w);
        // (A pitch of at most 16,384 floats.)
        let stride = Param::I32((pitch / 4) as i32);
        let src = self.float_plane(mem, pitch)?;
        let dst = mem.alloc((pitch * self.h) as u64);
        // (At most 4096 / 16 each.)
        let grid = [
            self.w as u32 / KER2_TILE[0],
            self.h as u32 / KER2_TILE[1],
            1,
        ];
        let block = [8, KER2_TILE[0] / 8, KER2_TILE[1] / 8];
        for _ in 0..self.runs[1] {
            let params = vec![Param::Ptr(dst), Param::Ptr(src), stride];
            steps.push(launch(dct, grid, block, 0, params));
        }
        let float = FloatChecks::new(&self.want_coef, self.w, self.h, pitch, "CUDA 2");
        steps.push(float.dct(dst));
        let qparams = vec![Param::Ptr(dst), stride];
        steps.push(launch(quant, self.grid8(), [8, 8, 1], 0, qparams));
        steps.push(float.quantized(dst));
        let params = vec![Param::Ptr(src), Param::Ptr(dst), stride];
        steps.push(launch(idct, grid, block, 0, params));
        steps.push(float.idct(src));
        Ok(())
    }

    /// WrapperCUDAshort: one pitched plane of shorts, transformed in place; each stage checked
    /// exactly.
    fn short(&self, mem: &mut DeviceMemory, steps: &mut Vec<Step>) -> Result<(), String> {
        let [.., dct, quant, idct] = &self.kernels;
        let (w, h) = (self.w, self.h);
        let pitch = pitch_of(2 * w);
        let at = mem.alloc((pitch * h) as u64);
        let bytes: Vec<u8> = self.plane_s.iter().flat_map(|v| v.to_le_bytes()).collect();
        write_plane(mem, at, pitch, &bytes, 2 * w)?;
        // (A pitch of at most 16,384 shorts; a grid of at most 4096 / 32 each way.)
        let params = vec![Param::Ptr(at), Param::I32((pitch / 2) as i32)];
        let grid = [w as u32 / KERS_TILE[0], h as u32 / KERS_TILE[1], 1];
        let block = [8, KERS_TILE[0] / 8, KERS_TILE[1] / 8];
        let check = |what: &'static str, want: &Vec<i16>| {
            let want = want.clone();
            Step::Check(Box::new(move |mem| {
                let got = shorts(&read_plane(mem, at, pitch, 2 * w, h)?);
                compare_exact(what, &got, &want)
            }))
        };
        let [want_dct, want_quant, want_idct] = &self.want_short;
        steps.push(launch(dct, grid, block, 0, params.clone()));
        steps.push(check("short DCT", want_dct));
        steps.push(launch(quant, self.grid8(), [8, 8, 1], 0, params.clone()));
        steps.push(check("short quantized", want_quant));
        steps.push(launch(idct, grid, block, 0, params));
        steps.push(check("short IDCT", want_idct));
        Ok(())
    }
}

/// The checks of a float pipeline (CUDA 1 or 2): its DCT against the host's, its quantization
/// exactly from the device's own coefficients, its IDCT against the host's IDCT of the
/// device's quantized coefficients (each kept for the next check).
struct FloatChecks {
    want: Rc<Vec<f64>>,
    kept: Rc<RefCell<Vec<f32>>>,
    w: usize,
    h: usize,
    pitch: usize,
    what: &'static str,
}

impl FloatChecks {
    fn new(want: &Rc<Vec<f64>>, w: usize, h: usize, pitch: usize, what: &'static str) -> Self {
        FloatChecks {
            want: Rc::clone(want),
            kept: Rc::default(),
            w,
            h,
            pitch,
            what,
        }
    }

    fn check(&self, at: u64, f: fn(&FloatChecks, Vec<f32>) -> Result<(), String>) -> Step {
        let me = FloatChecks {
            want: Rc::clone(&self.want),
            kept: Rc::clone(&self.kept),
            ..*self
        };
        Step::Check(Box::new(move |mem| {
            let got = floats(&read_plane(mem, at, me.pitch, 4 * me.w, me.h)?);
            f(&me, got)
        }))
    }

    fn dct(&self, at: u64) -> Step {
        self.check(at, |me, got| {
            within_each(&format!("{} DCT", me.what), &got, &me.want, DCT_TOL)?;
            *me.kept.borrow_mut() = got;
            Ok(())
        })
    }

    fn quantized(&self, at: u64) -> Step {
        self.check(at, |me, got| {
            let want = quantize_float(&me.kept.borrow(), me.w);
            compare_exact(&format!("{} quantized", me.what), &got, &want)?;
            *me.kept.borrow_mut() = got;
            Ok(())
        })
    }

    fn idct(&self, at: u64) -> Step {
        self.check(at, |me, got| {
            let want = dct_plane(&me.kept.borrow(), me.w, true);
            within_each(&format!("{} IDCT", me.what), &got, &want, DCT_TOL)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A BMP of `w` x `h` pixels of `depth` bits, compression `comp`, with `pixels` bytes.
    fn bmp(w: i32, h: i32, depth: u16, comp: u32, pixels: usize) -> Vec<u8> {
        let mut b = vec![0u8; 54];
        b[..2].copy_from_slice(b"BM");
        b[18..22].copy_from_slice(&w.to_le_bytes());
        b[22..26].copy_from_slice(&h.to_le_bytes());
        b[28..30].copy_from_slice(&depth.to_le_bytes());
        b[30..34].copy_from_slice(&comp.to_le_bytes());
        b.extend((0..pixels).map(|i| (i * 7 % 256) as u8));
        b
    }

    #[test]
    fn bmp_files_are_read_as_the_sample_reads_them_and_malformed_ones_refused() {
        let (w, h, grey) = parse_bmp("a.bmp", &bmp(32, 64, 24, 0, 3 * 32 * 64)).unwrap();
        assert_eq!((w, h, grey.len()), (32, 64, 32 * 64));
        // The first pixel of the file (blue 0, green 7, red 14) is the bottom row's first.
        let luma = (313524 * 14 + 615514 * 7 + 524288) >> 20;
        assert_eq!(i32::from(grey[63 * 32]), luma);
        let err = |bytes: &[u8]| match parse_bmp("a.bmp", bytes) {
            Err(SuiteError::Io { path, message }) => {
                assert_eq!(path, "a.bmp");
                message
            }
            r => panic!("{:?}", r.map(|g| g.0)),
        };
        assert!(err(b"BM").contains("not a BMP"));
        assert!(err(&bmp(32, 32, 8, 0, 32 * 32)).contains("8 bits a pixel"));
        assert!(err(&bmp(32, 32, 24, 1, 3 * 32 * 32)).contains("compressed"));
        assert!(err(&bmp(40, 32, 24, 0, 3 * 40 * 32)).contains("image 40 x 32"));
        assert!(err(&bmp(32, -32, 24, 0, 3 * 32 * 32)).contains("image 32 x -32"));
        assert!(err(&bmp(32, 32, 24, 0, 100)).contains("100 bytes of pixels"));
        assert!(crate::suite::make("dct8x8:file=/nonexistent/a.bmp", 1).is_err());
        // A file's image is run whole, at its own size.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.bmp");
        std::fs::write(&path, bmp(64, 32, 24, 0, 3 * 64 * 32)).unwrap();
        let spec = format!("dct8x8:file={}", path.display());
        let (wl, mut app) = crate::suite::make(&spec, 1).unwrap();
        crate::suite::emulate(wl.name, app.as_mut(), |_, _| {}).unwrap();
        assert!(crate::suite::make(&format!("{spec},width=64"), 1).is_err());
    }
}
