use super::*;

// ---- sgemm ----------------------------------------------------------------------------------

pub(in crate::suite::apps) const SGEMM: Workload = Workload {
    name: "sgemm",
    suite: "Parboil",
    source: parboil_src!(
        "sgemm",
        "main.cu, sgemm_kernel.cu (mysgemmNT, register tiles)"
    ),
    args: &[
        (
            "m",
            "256",
            "rows of A and C, a multiple of 128 (the medium data set AccelWattch ran: 1024)",
        ),
        (
            "n",
            "256",
            "columns of B and C, a multiple of 16 (medium: 1056)",
        ),
        (
            "k",
            "256",
            "columns of A, rows of B, a multiple of 8 (medium: 992)",
        ),
        (
            "a",
            "",
            "Parboil's matrix1.txt (A, column-major, `rows cols` first), in place of m and k",
        ),
        (
            "b",
            "",
            "Parboil's matrix2t.txt (B transposed, n x k, column-major), with a=, in place of n",
        ),
    ],
    input: "A and B uniform in [0, 1) by seed (the data files' sizes), or Parboil's files",
    small: "m=128,n=32,k=16",
    make: sgemm,
};

/// The kernel's `TILE_N` and `TILE_TB_HEIGHT`, and `TILE_M`, their product.
pub(super) const TILE_N: u32 = 16;
pub(super) const TILE_TB_HEIGHT: u32 = 8;
pub(super) const TILE_M: u32 = TILE_N * TILE_TB_HEIGHT;

/// A matrix as Parboil's `readColMajorMatrixFile` reads it: rows, columns and the values in
/// column-major order.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ColMajor {
    pub(super) rows: usize,
    pub(super) cols: usize,
    pub(super) values: Vec<f32>,
}

/// Parboil's matrix file `path`: `rows cols`, then `rows * cols` numbers, column by column.
pub(super) fn read_col_major(path: &str) -> Result<ColMajor, SuiteError> {
    parse_col_major(path, &read_text(path)?)
}

pub(super) fn parse_col_major(path: &str, text: &str) -> Result<ColMajor, SuiteError> {
    let io = SuiteError::in_file(path);
    let mut w = words(text);
    let mut dim = |what: &str| -> Result<usize, SuiteError> {
        let (line, word) = w
            .next()
            .ok_or_else(|| io(format!("the file ends before its number of {what}")))?;
        word.parse::<usize>()
            .ok()
            .filter(|&d| d > 0 && d <= 1 << 16)
            .ok_or_else(|| {
                io(format!(
                    "line {line}: `{word}` is not a number of {what} (1 to 65536)"
                ))
            })
    };
    let rows = dim("rows")?;
    let cols = dim("columns")?;
    let mut values = Vec::with_capacity(rows * cols);
    for (line, word) in w {
        let v: f32 = word
            .parse()
            .map_err(|_| io(format!("line {line}: `{word}` is not a number")))?;
        values.push(v);
    }
    if values.len() != rows * cols {
        return Err(io(format!(
            "{} values for a {rows} x {cols} matrix ({} expected)",
            values.len(),
            rows * cols
        )));
    }
    Ok(ColMajor { rows, cols, values })
}

pub(super) fn sgemm(args: &Args, seed: u64) -> Result<Box<dyn App>, SuiteError> {
    let (a, bt) = match (path_arg(args, "a"), path_arg(args, "b")) {
        (Some(pa), Some(pb)) => {
            let (a, bt) = (read_col_major(pa)?, read_col_major(pb)?);
            if a.cols != bt.cols {
                return Err(SuiteError::Io {
                    path: pb.into(),
                    message: format!(
                        "B transposed has {} columns, A has {}: they must agree",
                        bt.cols, a.cols
                    ),
                });
            }
            (a, bt)
        }
        (None, None) => {
            let m = args.int("m", 256, 1, 8192)? as usize;
            let n = args.int("n", 256, 1, 8192)? as usize;
            let k = args.int("k", 256, 1, 8192)? as usize;
            let a = ColMajor {
                rows: m,
                cols: k,
                values: unit_floats(m * k, seed),
            };
            let bt = ColMajor {
                rows: n,
                cols: k,
                values: unit_floats(n * k, seed ^ 0x5eed),
            };
            (a, bt)
        }
        _ => {
            return Err(args.err(
                "a",
                "give both a= (matrix1.txt) and b= (matrix2t.txt), or neither".into(),
            ))
        }
    };
    let (m, n, k) = (a.rows, bt.rows, a.cols);
    // The kernel has no bounds checks: the host (`regtileSgemm`) warns of sizes that are not
    // multiples of the tiles, and the loop over k steps by TILE_TB_HEIGHT rows of B.
    let why = "the kernel has no bounds check";
    args.multiple_of("m", m as u64, TILE_M.into(), why)?;
    args.multiple_of("n", n as u64, TILE_N.into(), why)?;
    args.multiple_of("k", k as u64, TILE_TB_HEIGHT.into(), why)?;
    let kernel = SGEMM_SASS.kernel("_Z9mysgemmNTPKfiS0_iPfiiff")?;
    // C = A * B in column-major order, each element's sum in the kernel's order (fused
    // multiply-adds over k), then `C * beta + alpha * c` with alpha 1, beta 0.
    let mut want = vec![0.0; m * n];
    for j in 0..n {
        for i in 0..m {
            let mut c = 0.0f32;
            for l in 0..k {
                c = a.values[i + l * m].mul_add(bt.values[j + l * n], c);
            }
            want[i + j * m] = f64::from(c);
        }
    }
    let setup: Setup = Box::new(move |mem: &mut DeviceMemory| {
        let d = vec![
            mem.alloc((m * k * 4) as u64),
            mem.alloc((k * n * 4) as u64),
            mem.alloc((m * n * 4) as u64),
        ];
        mem.write_f32(d[0], &a.values).map_err(|f| f.to_string())?;
        mem.write_f32(d[1], &bt.values).map_err(|f| f.to_string())?;
        // (Sizes bounded to 8192 above: the casts below are exact.)
        let grid = [m as u32 / TILE_M, n as u32 / TILE_N, 1];
        let params = vec![
            Param::Ptr(d[0]),
            Param::I32(m as i32),
            Param::Ptr(d[1]),
            Param::I32(n as i32),
            Param::Ptr(d[2]),
            Param::I32(m as i32),
            Param::I32(k as i32),
            Param::F32(1.0),
            Param::F32(0.0),
        ];
        let l = launch(&kernel, grid, [TILE_N, TILE_TB_HEIGHT, 1], params);
        Ok((d, vec![l]))
    });
    let verify: Verify =
        Box::new(move |mem, d| compare("C", &Elem::F32.read(mem, d[2], m * n)?, &want, 0.0));
    Ok(Fixed::boxed(setup, verify))
}
