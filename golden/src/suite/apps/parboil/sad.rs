use super::*;

// ---- sad ------------------------------------------------------------------------------------

pub(in crate::suite::apps) static SAD_SASS: Listing =
    Listing::new("sad.sass", include_str!("../../../../sass/sad.sass"));

pub(in crate::suite::apps) const SAD: Workload = Workload {
    name: "sad",
    suite: "Parboil",
    source: parboil_src!(
        "sad",
        "main.cu, sad4.cu (mb_sad_calc), largerBlocks.cu (larger_sad_calc_8, _16)"
    ),
    args: &[
        (
            "width",
            "64",
            "frame width in pixels, a multiple of 16 (the source refuses others); the large \
             data set AccelWattch ran is 1920 x 1072 (8,040 macroblocks, as its V100 \
             counters' written sectors give)",
        ),
        (
            "height",
            "64",
            "frame height in pixels, a multiple of 16; width x height at most 8,192 \
             macroblocks (the SADs take 89,872 bytes a macroblock)",
        ),
        (
            "reference",
            "",
            "Parboil's reference frame (reference.bin: width and height as 16-bit words, then \
             the pixels as 16-bit words, row by row); its size replaces width and height",
        ),
        (
            "frame",
            "",
            "Parboil's current frame (frame.bin, the same format and size), with reference=",
        ),
    ],
    input: "a reference frame of grey levels uniform in [0, 256) by seed and the current frame \
            as that scene moved by (3, 2) pixels with noise in [-4, 4]; or Parboil's \
            reference.bin and frame.bin (`reference=`, `frame=`)",
    small: "width=16,height=16",
    make: sad,
};

/// Search positions of a 4x4 block (33 x 33 offsets within 16 pixels) and their stride in the
/// SAD arrays (`MAX_POS`, `MAX_POS_PADDED`).
const MAX_POS: usize = 1089;
const MAX_POS_PADDED: usize = 1096;
/// Sub-blocks per macroblock of each block type 1 to 7 (`SAD_TYPE_n_CT`) and where each type's
/// SADs start, in units of `MAX_POS_PADDED * macroblocks` (`SAD_TYPE_n_IX`).
const TYPE_COUNT: [usize; 7] = [1, 2, 2, 4, 8, 8, 16];
const TYPE_START: [usize; 7] = [0, 1, 3, 5, 9, 17, 25];
/// Search positions each thread of `mb_sad_calc` computes (`POS_PER_THREAD`), so its block of
/// `CEIL(MAX_POS, POS_PER_THREAD)` threads.
const POS_PER_THREAD: u32 = 18;
const SAD_THREADS: u32 = (MAX_POS as u32).div_ceil(POS_PER_THREAD);
/// The most macroblocks a frame may have here (the large data set has 120 x 67 = 8,040).
const MAX_MACROBLOCKS: usize = 8192;

/// A frame as Parboil's `load_image` reads it: 16-bit pixels, row by row.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Frame {
    pub width: usize,
    pub height: usize,
    pub pixels: Vec<u16>,
}

/// A Parboil sad frame file's `bytes` (`path` names it in errors): its width and height as
/// little-endian 16-bit words, then width x height 16-bit pixels. The source's own checks
/// (sizes multiples of 16) are made by the caller.
pub(super) fn parse_sad_frame(path: &str, bytes: &[u8]) -> Result<Frame, SuiteError> {
    let io = |message: String| SuiteError::Io {
        path: path.into(),
        message,
    };
    let word = |i: usize| u16::from_le_bytes([bytes[2 * i], bytes[2 * i + 1]]);
    if bytes.len() < 4 {
        return Err(io(format!(
            "{} bytes: the width and height (two 16-bit words) expected",
            bytes.len()
        )));
    }
    let (width, height) = (usize::from(word(0)), usize::from(word(1)));
    if width == 0 || height == 0 {
        return Err(io(format!("frame {width} x {height}: empty")));
    }
    let need = 4 + 2 * width * height;
    if bytes.len() < need {
        return Err(io(format!(
            "{} bytes: a {width} x {height} frame needs {need}",
            bytes.len()
        )));
    }
    let pixels = (0..width * height).map(|i| word(2 + i)).collect();
    Ok(Frame {
        width,
        height,
        pixels,
    })
}

/// The frame in file `path`.
fn read_sad_frame(path: &str) -> Result<Frame, SuiteError> {
    let bytes = std::fs::read(path).map_err(|e| SuiteError::Io {
        path: path.into(),
        message: e.to_string(),
    })?;
    parse_sad_frame(path, &bytes)
}

/// The two frames from the files, refused where the source refuses them (different sizes, a
/// size not a multiple of 16) or where they do not fit.
fn read_frames(args: &Args) -> Result<(Frame, Frame), SuiteError> {
    let (Some(r), Some(c)) = (path_arg(args, "reference"), path_arg(args, "frame")) else {
        let key = if path_arg(args, "reference").is_some() {
            "frame"
        } else {
            "reference"
        };
        return Err(args.err(key, "reference= and frame= go together".into()));
    };
    let (reference, current) = (read_sad_frame(r)?, read_sad_frame(c)?);
    let io = |message: String| SuiteError::Io {
        path: c.into(),
        message,
    };
    if (reference.width, reference.height) != (current.width, current.height) {
        return Err(io(format!(
            "frame {} x {}, the reference {} x {}: the source needs the same size",
            current.width, current.height, reference.width, reference.height
        )));
    }
    let (w, h) = (current.width, current.height);
    if w % 16 != 0 || h % 16 != 0 {
        return Err(io(format!(
            "frame {w} x {h}: the source needs multiples of 16"
        )));
    }
    if (w / 16) * (h / 16) > MAX_MACROBLOCKS {
        return Err(io(format!(
            "frame {w} x {h}: more than {MAX_MACROBLOCKS} macroblocks"
        )));
    }
    Ok((reference, current))
}

/// Generated frames of `width` x `height`: the reference's grey levels uniform in [0, 256),
/// the current frame the same scene moved by (3, 2) pixels (what enters at the edges new
/// grey levels) with noise in [-4, 4], clamped to [0, 255].
fn generated_frames(width: usize, height: usize, seed: u64) -> (Frame, Frame) {
    let mut rng = Rng::new(seed);
    let mut grey = || rng.bits(8) as u16;
    let reference: Vec<u16> = (0..width * height).map(|_| grey()).collect();
    let mut current = Vec::with_capacity(width * height);
    for y in 0..height {
        for x in 0..width {
            let seen = match (x.checked_sub(3), y.checked_sub(2)) {
                (Some(sx), Some(sy)) => reference[sy * width + sx],
                _ => grey(),
            };
            // (Noise: a grey level % 9 - 4, in [-4, 4]; grey levels below 256: the casts are
            // exact.)
            let noise = (grey() % 9) as i32 - 4;
            current.push((i32::from(seen) + noise).clamp(0, 255) as u16);
        }
    }
    let frame = |pixels| Frame {
        width,
        height,
        pixels,
    };
    (frame(reference), frame(current))
}

/// The SAD array on the host as the three kernels leave it (41 x `MAX_POS_PADDED` words a
/// macroblock): the 4x4 SADs of every search position as `mb_sad_calc` computes them (the
/// reference's pixel clamped into the frame, as its texture fetch; 16-bit sums), then the
/// larger blocks from them as `larger_sad_calc_8` and `_16` add them, two 16-bit SADs packed
/// in each 32-bit word. Each block's padding after `MAX_POS` stays 0 (the device's is what the
/// kernel's shared memory held; nothing reads it but the packed sums' upper halves).
pub(super) fn sad_host(reference: &Frame, current: &Frame) -> Vec<u16> {
    let (w, h) = (current.width, current.height);
    let (mbw, mbh) = (w / 16, h / 16);
    let mbs = mbw * mbh;
    let mut sads = vec![0u16; 41 * MAX_POS_PADDED * mbs];
    let ref_at = |x: i64, y: i64| {
        // (Clamped into the frame: the casts back are in range.)
        let (x, y) = (x.clamp(0, w as i64 - 1), y.clamp(0, h as i64 - 1));
        i32::from(reference.pixels[y as usize * w + x as usize])
    };
    for by in 0..h / 4 {
        for bx in 0..w / 4 {
            let (mb, sub) = ((by / 4) * mbw + bx / 4, 4 * (by % 4) + bx % 4);
            let at = (TYPE_START[6] * mbs + mb * 16 + sub) * MAX_POS_PADDED;
            for pos in 0..MAX_POS {
                let (dx, dy) = ((pos % 33) as i64 - 16, (pos / 33) as i64 - 16);
                let mut sad = 0u16;
                for y in 0..4 {
                    for x in 0..4 {
                        let (px, py) = (4 * bx + x, 4 * by + y);
                        let t = ref_at(px as i64 + dx, py as i64 + dy);
                        let c = i32::from(current.pixels[py * w + px]);
                        // (|t - c| < 65536: the cast keeps it; the sum wraps as the
                        // kernel's unsigned short does.)
                        sad = sad.wrapping_add((t - c).unsigned_abs() as u16);
                    }
                }
                sads[at + pos] = sad;
            }
        }
    }
    larger_sads(&mut sads, mbs);
    sads
}

/// `larger_sad_calc_8` then `larger_sad_calc_16` on the host: per macroblock, the sums of
/// pairs of smaller blocks' SADs, two positions at a time as packed 32-bit words.
fn larger_sads(sads: &mut [u16], mbs: usize) {
    let word = |s: &[u16], at: usize| u32::from(s[at]) | (u32::from(s[at + 1]) << 16);
    let put = |s: &mut [u16], at: usize, v: u32| {
        // (The two halves of the word.)
        s[at] = v as u16;
        s[at + 1] = (v >> 16) as u16;
    };
    let p = MAX_POS_PADDED;
    // (Positions 0 to MAX_POS inclusive: (MAX_POS + 1) / 2 words of each block.)
    let words = MAX_POS.div_ceil(2);
    for mb in 0..mbs {
        for (tx, ty) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            let bi = (TYPE_START[6] * mbs + mb * 16 + ty * 8 + tx * 2) * p;
            let bo6 = (TYPE_START[5] * mbs + mb * 8 + ty * 4 + tx * 2) * p;
            let bo5 = (TYPE_START[4] * mbs + mb * 8 + ty * 4 + tx) * p;
            let bo4 = (TYPE_START[3] * mbs + mb * 4 + ty * 2 + tx) * p;
            for k in (0..words).map(|k| 2 * k) {
                let [i00, i01, i10, i11] = [0, 1, 4, 5].map(|b| word(sads, bi + b * p + k));
                put(sads, bo6 + k, i00.wrapping_add(i10));
                put(sads, bo6 + p + k, i01.wrapping_add(i11));
                put(sads, bo5 + k, i00.wrapping_add(i01));
                put(sads, bo5 + 2 * p + k, i10.wrapping_add(i11));
                put(sads, bo4 + k, sum4(i00, i01, i10, i11));
            }
        }
    }
    for mb in 0..mbs {
        let bi = (TYPE_START[3] * mbs + mb * 4) * p;
        let bo3 = (TYPE_START[2] * mbs + mb * 2) * p;
        let bo2 = (TYPE_START[1] * mbs + mb * 2) * p;
        let bo1 = mb * p;
        for k in (0..words).map(|k| 2 * k) {
            let [i00, i01, i10, i11] = [0, 1, 2, 3].map(|b| word(sads, bi + b * p + k));
            put(sads, bo3 + k, i00.wrapping_add(i10));
            put(sads, bo3 + p + k, i01.wrapping_add(i11));
            put(sads, bo2 + k, i00.wrapping_add(i01));
            put(sads, bo2 + p + k, i10.wrapping_add(i11));
            put(sads, bo1 + k, sum4(i00, i01, i10, i11));
        }
    }
}

/// `(i00 + i01) + (i10 + i11)` in 32-bit arithmetic.
fn sum4(i00: u32, i01: u32, i10: u32, i11: u32) -> u32 {
    i00.wrapping_add(i01).wrapping_add(i10.wrapping_add(i11))
}

/// The device's SADs against the host's: every block of every type, positions below
/// `MAX_POS` (the padding after them is not a result).
fn compare_sads(got: &[u16], want: &[u16], mbs: usize) -> Result<(), String> {
    for (t, (&count, &start)) in TYPE_COUNT.iter().zip(&TYPE_START).enumerate() {
        for block in 0..count * mbs {
            let at = (start * mbs + block) * MAX_POS_PADDED;
            for pos in 0..MAX_POS {
                let (g, w) = (got[at + pos], want[at + pos]);
                if g != w {
                    return Err(format!(
                        "the SAD of block type {} (block {} of macroblock {}) at search \
                         position {pos} is {g}, the host computes {w}",
                        t + 1,
                        block % count,
                        block / count
                    ));
                }
            }
        }
    }
    Ok(())
}

pub(super) fn sad(args: &Args, seed: u64) -> Result<Box<dyn App>, SuiteError> {
    let width = args.int("width", 64, 16, 4096)?;
    args.multiple_of("width", width, 16, "the source refuses other frame sizes")?;
    let height = args.int("height", 64, 16, 4096)?;
    args.multiple_of("height", height, 16, "the source refuses other frame sizes")?;
    // (Bounded to 4096 above.)
    let (width, height) = (width as usize, height as usize);
    if (width / 16) * (height / 16) > MAX_MACROBLOCKS {
        return Err(args.err(
            "height",
            format!("{width} x {height}: more than {MAX_MACROBLOCKS} macroblocks"),
        ));
    }
    let (reference, current) =
        if path_arg(args, "reference").is_some() || path_arg(args, "frame").is_some() {
            read_frames(args)?
        } else {
            generated_frames(width, height, seed)
        };
    let want = sad_host(&reference, &current);
    let mb_sad = SAD_SASS.kernel("_Z11mb_sad_calcPtS_ii")?;
    let calc8 = SAD_SASS.kernel("_Z17larger_sad_calc_8Ptii")?;
    let calc16 = SAD_SASS.kernel("_Z18larger_sad_calc_16Ptii")?;
    // (At most 4096 pixels a side, 8,192 macroblocks: every cast below is exact.)
    let (w, h) = (current.width as u32, current.height as u32);
    let (mbw, mbh) = (w / 16, h / 16);
    let mbs = (mbw * mbh) as usize;
    let sads_bytes = (41 * MAX_POS_PADDED * mbs * 2) as u64;
    let setup: Setup = Box::new(move |mem: &mut DeviceMemory| {
        let bytes = |p: &[u16]| -> Vec<u8> { p.iter().flat_map(|v| v.to_le_bytes()).collect() };
        let frame_bytes = u64::from(w * h * 2);
        let d_cur = mem.alloc(frame_bytes);
        // The cudaArray the texture is bound to, as a row-major plane (its layout is the
        // driver's; its address in the patched kernel's `__constant__` pointer `ref`).
        let d_ref = mem.alloc(frame_bytes);
        mem.copy_in(d_cur, &bytes(&current.pixels)).map_err(fault)?;
        mem.copy_in(d_ref, &bytes(&reference.pixels))
            .map_err(fault)?;
        mem.write_symbol("ref", &d_ref.to_le_bytes());
        // (cudaMemset of d_sads to 0: the allocation is zero already.)
        let d_sads = mem.alloc(sads_bytes);
        let dims = |a: u32, b: u32| {
            vec![
                Param::Ptr(d_sads),
                Param::I32(a as i32),
                Param::I32(b as i32),
            ]
        };
        let mut l4 = launch(
            &mb_sad,
            [w / 4, h / 4, 1],
            [SAD_THREADS, 1, 1],
            vec![
                Param::Ptr(d_sads),
                Param::Ptr(d_cur),
                Param::I32(mbw as i32),
                Param::I32(mbh as i32),
            ],
        );
        // SAD_LOC_SIZE_BYTES: one 4x4 block's SADs.
        l4.dyn_shared = (MAX_POS_PADDED * 2) as u32;
        let l8 = launch(&calc8, [mbw, mbh, 1], [32, 4, 1], dims(mbw, mbh));
        let l16 = launch(&calc16, [mbw, mbh, 1], [32, 1, 1], dims(mbw, mbh));
        Ok((vec![d_sads], vec![l4, l8, l16]))
    });
    let verify: Verify = Box::new(move |mem, d| {
        let mut raw = vec![0u8; want.len() * 2];
        mem.read(d[0], &mut raw).map_err(fault)?;
        let got: Vec<u16> = raw
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        compare_sads(&got, &want, mbs)
    });
    Ok(Fixed::boxed(setup, verify))
}
