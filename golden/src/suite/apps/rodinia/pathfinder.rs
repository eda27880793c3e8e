use super::*;

// ---- pathfinder ----------------------------------------------------------------------------

pub(in crate::suite::apps) const PATHFINDER: Workload = Workload {
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
pub(super) const PF_BLOCK: u32 = 256;

pub(super) fn pathfinder(args: &Args, _seed: u64) -> Result<Box<dyn App>, SuiteError> {
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
