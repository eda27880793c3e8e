//! Access rectangles (seed 002 §3.3.1): for every thread block and data array, the bounding box
//! of the cache lines the block's loads touch, as start (x, y), width and height in lines.
//!
//! An array with a row pitch is 2-D: element `e` is at row `e / row_pitch`, column
//! `e % row_pitch`; its line coordinates are `y = row` and `x = (base % line + column *
//! elem_bytes) / line` (rows are assumed to start at the same offset within a line, as they do
//! when the pitch is a whole number of lines). A 1-D array has `y = 0` and `x` = the line
//! index relative to the array's first line. The box is exact: every thread and loop iteration
//! of the block is evaluated (the thesis takes the first and last thread, which is wrong for
//! column-major or transposed indexing). Irregular loads have no rectangle and are ignored.

use super::DispatchError;
use crate::workload::{validate, KernelDesc};

/// Most index evaluations [`access_ranges`] performs for one kernel.
pub const MAX_EVALUATIONS: u64 = 1 << 28;

/// A rectangle of cache lines: columns `x..x + w`, rows `y..y + h` (`w`, `h` >= 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rect {
    pub x: u64,
    pub y: u64,
    pub w: u64,
    pub h: u64,
}

impl Rect {
    /// Lines both rectangles cover.
    pub fn overlap(&self, o: &Rect) -> u64 {
        let ix = (self.x + self.w)
            .min(o.x + o.w)
            .saturating_sub(self.x.max(o.x));
        let iy = (self.y + self.h)
            .min(o.y + o.h)
            .saturating_sub(self.y.max(o.y));
        ix * iy
    }
}

/// Lines two blocks share: the overlap of their rectangles, summed over the arrays (seed 002's
/// "inter-block locality").
pub fn overlap(a: &[Option<Rect>], b: &[Option<Rect>]) -> u64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| match (x, y) {
            (Some(x), Some(y)) => x.overlap(y),
            _ => 0,
        })
        .sum()
}

/// Thread blocks of a kernel.
pub fn block_count(k: &KernelDesc) -> u64 {
    k.grid.iter().map(|&g| u64::from(g)).product()
}

/// Block id → (x, y, z), CUDA's linear order (x fastest).
pub fn block_coords(k: &KernelDesc, id: u64) -> [u32; 3] {
    let gx = u64::from(k.grid[0]);
    let gy = u64::from(k.grid[1]);
    [
        (id % gx) as u32,
        ((id / gx) % gy) as u32,
        (id / (gx * gy)) as u32,
    ]
}

/// The line (x, y) of element `e` of array `a`.
pub(crate) fn line_of(
    a: &crate::workload::ArrayDesc,
    e: i128,
    line: u64,
) -> Result<(u64, u64), String> {
    let e =
        u64::try_from(e).map_err(|_| format!("array `{}`: negative element index {e}", a.name))?;
    let elem = u64::from(a.elem_bytes);
    Ok(
        match (e.checked_div(a.row_pitch), e.checked_rem(a.row_pitch)) {
            (Some(row), Some(col)) => ((a.base % line + col * elem) / line, row),
            _ => ((a.base + e * elem) / line - a.base / line, 0),
        },
    )
}

/// Call `f(block id, block coordinates, array index, x, y)` for every line a block's affine
/// loads touch, every thread and loop iteration (a line repeated by consecutive threads of one
/// load is reported once). Refuses kernels needing more than [`MAX_EVALUATIONS`] evaluations.
pub(crate) fn for_each_line(
    k: &KernelDesc,
    line_bytes: u32,
    mut f: impl FnMut(u64, [u32; 3], usize, u64, u64),
) -> Result<(), DispatchError> {
    validate(k).map_err(Box::new)?;
    let line = u64::from(line_bytes);
    let threads: u64 = k.block.iter().map(|&b| u64::from(b)).product();
    let trips_of = |in_loop: bool| if in_loop { k.loop_trips } else { 1 };
    let per_block: u64 = k
        .loads
        .iter()
        .filter(|l| !l.irregular)
        .map(|l| threads * u64::from(trips_of(l.in_loop)))
        .sum();
    let blocks = block_count(k);
    if per_block.saturating_mul(blocks) > MAX_EVALUATIONS {
        return Err(DispatchError::Kernel {
            kernel: k.name.clone(),
            message: format!(
                "{blocks} blocks x {per_block} index evaluations each exceed {MAX_EVALUATIONS}; \
                 use a smaller grid, block or loop_trips"
            ),
        });
    }
    for id in 0..blocks {
        let b = block_coords(k, id);
        for l in k.loads.iter().filter(|l| !l.irregular) {
            // Validation guarantees the array exists.
            let Some(ai) = k.arrays.iter().position(|a| a.name == l.array) else {
                continue;
            };
            let a = &k.arrays[ai];
            let mut last = None;
            for it in 0..trips_of(l.in_loop) {
                for tz in 0..k.block[2] {
                    for ty in 0..k.block[1] {
                        for tx in 0..k.block[0] {
                            let e = l.index.eval(b, [tx, ty, tz], it);
                            let xy =
                                line_of(a, e, line).map_err(|message| DispatchError::Kernel {
                                    kernel: k.name.clone(),
                                    message,
                                })?;
                            if last != Some(xy) {
                                last = Some(xy);
                                f(id, b, ai, xy.0, xy.1);
                            }
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// Every block's rectangle per array (`[block][array]`, arrays in declaration order; `None`
/// where the block does not read the array with an affine load).
pub fn access_ranges(
    k: &KernelDesc,
    line_bytes: u32,
) -> Result<Vec<Vec<Option<Rect>>>, DispatchError> {
    // Per block and array: (min x, max x, min y, max y).
    type Bbox = (u64, u64, u64, u64);
    let mut boxes: Vec<Vec<Option<Bbox>>> = Vec::new();
    for_each_line(k, line_bytes, |id, _, ai, x, y| {
        if boxes.len() <= id as usize {
            boxes.resize(id as usize + 1, vec![None; k.arrays.len()]);
        }
        let bb = boxes[id as usize][ai].get_or_insert((x, x, y, y));
        bb.0 = bb.0.min(x);
        bb.1 = bb.1.max(x);
        bb.2 = bb.2.min(y);
        bb.3 = bb.3.max(y);
    })?;
    // Blocks that touch no line still get their (empty) row.
    boxes.resize(block_count(k) as usize, vec![None; k.arrays.len()]);
    Ok(boxes
        .into_iter()
        .map(|bbox| {
            bbox.into_iter()
                .map(|bb| {
                    bb.map(|(x0, x1, y0, y1)| Rect {
                        x: x0,
                        y: y0,
                        w: x1 - x0 + 1,
                        h: y1 - y0 + 1,
                    })
                })
                .collect()
        })
        .collect())
}
