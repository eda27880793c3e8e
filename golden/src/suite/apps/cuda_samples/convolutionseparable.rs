use super::*;

// ---- convolutionSeparable ------------------------------------------------------------------

pub(in crate::suite::apps) const CONVOLUTIONSEPARABLE: Workload = Workload {
    name: "convolutionseparable",
    suite: SUITE,
    source: "NVIDIA/cuda-samples v11.5 Samples/convolutionSeparable/ (convolutionSeparable.cu, \
             main.cpp)",
    args: &[
        (
            "width",
            "1024",
            "image width, a multiple of 128 (the sample's imageW: 3072)",
        ),
        (
            "height",
            "1024",
            "image height, a multiple of 64 (the sample's imageH: 3072)",
        ),
        (
            "iterations",
            "0",
            "timed row and column passes after the warm-up pass (the sample's iterations: 16)",
        ),
    ],
    input: "a 17-tap kernel (in __constant__ c_Kernel) and an image of rand() % 16 after \
            srand(200) (the sample's own, glibc's rand())",
    small: "width=128,height=64",
    make: convolutionseparable,
};

/// convolutionSeparable_common.h's `KERNEL_RADIUS`, and the kernels' block shapes and steps.
pub(super) const CONV_RADIUS: usize = 8;
pub(super) const CONV_LENGTH: usize = 2 * CONV_RADIUS + 1;
pub(super) const ROWS_BLOCK: [u32; 2] = [16, 4];
pub(super) const ROWS_STEPS: u32 = 8;
pub(super) const COLS_BLOCK: [u32; 2] = [16, 8];
pub(super) const COLS_STEPS: u32 = 8;

pub(super) fn convolutionseparable(args: &Args, _seed: u64) -> Result<Box<dyn App>, SuiteError> {
    // (convolutionRowsGPU and convolutionColumnsGPU assert these multiples.)
    let w = args.int("width", 1024, 128, 8192)?;
    args.multiple_of(
        "width",
        w,
        u64::from(ROWS_STEPS * ROWS_BLOCK[0]),
        "the rows pass",
    )?;
    let h = args.int("height", 1024, 64, 8192)?;
    args.multiple_of(
        "height",
        h,
        u64::from(COLS_STEPS * COLS_BLOCK[1]),
        "the columns pass",
    )?;
    let iterations = args.int("iterations", 0, 0, 1000)? as usize;
    // (At most 8192 each.)
    let (w, h) = (w as usize, h as usize);
    let rows = CONVOLUTIONSEPARABLE_SASS.kernel("_Z21convolutionRowsKernelPfS_iii")?;
    let cols = CONVOLUTIONSEPARABLE_SASS.kernel("_Z24convolutionColumnsKernelPfS_iii")?;
    let mut rng = CRand::new(200);
    let kernel: Vec<f32> = (0..CONV_LENGTH).map(|_| (rng.rand() % 16) as f32).collect();
    let input: Vec<f32> = (0..w * h).map(|_| (rng.rand() % 16) as f32).collect();
    // convolutionRowCPU then convolutionColumnCPU: integers below 2^24 throughout, so exact
    // in any order of summation.
    let conv = |src: &[f32], along_row: bool| -> Vec<f32> {
        let mut dst = vec![0f32; w * h];
        for y in 0..h {
            for x in 0..w {
                let mut sum = 0f32;
                for k in 0..CONV_LENGTH {
                    let (xx, yy) = if along_row {
                        ((x + k).wrapping_sub(CONV_RADIUS), y)
                    } else {
                        (x, (y + k).wrapping_sub(CONV_RADIUS))
                    };
                    if xx < w && yy < h {
                        sum += src[yy * w + xx] * kernel[CONV_LENGTH - 1 - k];
                    }
                }
                dst[y * w + x] = sum;
            }
        }
        dst
    };
    let want = conv(&conv(&input, true), false);
    let kernel_bytes: Vec<u8> = kernel.iter().flat_map(|k| k.to_le_bytes()).collect();
    let setup: Setup = Box::new(move |mem| {
        let bytes = (w * h) as u64 * 4;
        let d_input = mem.alloc(bytes);
        let d_output = mem.alloc(bytes);
        let d_buffer = mem.alloc(bytes);
        // setConvolutionKernel: cudaMemcpyToSymbol(c_Kernel, ...).
        mem.write_symbol("c_Kernel", &kernel_bytes);
        mem.write_f32(d_input, &input).map_err(fault)?;
        let (wi, hi) = (w as u32, h as u32);
        let dims = |dst: u64, src: u64| {
            vec![
                Param::Ptr(dst),
                Param::Ptr(src),
                Param::I32(wi as i32),
                Param::I32(hi as i32),
                Param::I32(wi as i32),
            ]
        };
        let mut steps = Vec::new();
        for _ in 0..=iterations {
            steps.push(launch(
                &rows,
                [wi / (ROWS_STEPS * ROWS_BLOCK[0]), hi / ROWS_BLOCK[1], 1],
                [ROWS_BLOCK[0], ROWS_BLOCK[1], 1],
                0,
                dims(d_buffer, d_input),
            ));
            steps.push(launch(
                &cols,
                [wi / COLS_BLOCK[0], hi / (COLS_STEPS * COLS_BLOCK[1]), 1],
                [COLS_BLOCK[0], COLS_BLOCK[1], 1],
                0,
                dims(d_output, d_buffer),
            ));
        }
        steps.push(Step::Check(Box::new(move |mem| {
            let got = mem.read_f32(d_output, w * h).map_err(fault)?;
            compare_exact("output", &got, &want)
        })));
        Ok(steps)
    });
    Ok(Staged::boxed(setup))
}
