//! Compile-time CTA mapping (seed 003): Algorithm 1 chooses the direction from the largest
//! inter-CTA reuse distance along x and along y; the balanced assignment then gives each SM
//! whole rows (or columns) of CTAs while that divides evenly and splits the rest evenly.
//!
//! Reuse distance along x (seed 003 eqs. (1)-(4)): the largest `|bidx' - bidx|` over pairs of
//! accesses by two blocks with the same `bidy` (and `bidz`) that touch the same cache line (same
//! row, same line of the innermost dimension: the lines of [`super::ranges`]). Pairs include
//! two executions of the same load (matmul's reuse is of that kind). Found exactly by
//! enumerating every access once: per (array, line, bidy, bidz) the smallest and largest bidx
//! that touch it. Along y likewise with (array, line, bidx, bidz).

use super::ranges::for_each_line;
use super::DispatchError;
use crate::workload::KernelDesc;
use std::collections::HashMap;

/// The mapping direction Algorithm 1 chooses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    X,
    Y,
    /// No inter-CTA reuse: round-robin.
    RoundRobin,
}

/// Largest inter-CTA reuse distance along x and along y (0: none).
pub fn reuse_distances(k: &KernelDesc, line_bytes: u32) -> Result<(u32, u32), DispatchError> {
    // (array, line x, line y, other block coordinate, bidz) -> (min, max) of the varying one.
    type Key = (usize, u64, u64, u32, u32);
    let mut along_x: HashMap<Key, (u32, u32)> = HashMap::new();
    let mut along_y: HashMap<Key, (u32, u32)> = HashMap::new();
    let widen = |m: &mut HashMap<Key, (u32, u32)>, key: Key, v: u32| {
        let e = m.entry(key).or_insert((v, v));
        e.0 = e.0.min(v);
        e.1 = e.1.max(v);
    };
    for_each_line(k, line_bytes, |_, b, ai, x, y| {
        widen(&mut along_x, (ai, x, y, b[1], b[2]), b[0]);
        widen(&mut along_y, (ai, x, y, b[0], b[2]), b[1]);
    })?;
    let span = |m: &HashMap<Key, (u32, u32)>| m.values().map(|(lo, hi)| hi - lo).max().unwrap_or(0);
    Ok((span(&along_x), span(&along_y)))
}

/// Algorithm 1: round-robin without reuse, else the direction of the larger distance (x on a
/// tie, as the printed comparison `max_y > max_x` gives).
pub fn direction(max_x: u32, max_y: u32) -> Direction {
    if max_x == 0 && max_y == 0 {
        Direction::RoundRobin
    } else if max_y > max_x {
        Direction::Y
    } else {
        Direction::X
    }
}

/// The order in which a mapping lays out CTAs: row-major for x (`x + gx * row`), column-major
/// for y (`row + rows * x`), where `row = y + gy * z` (the z planes stack as further rows).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MappingOrder {
    pub dir: Direction,
    pub gx: u64,
    pub rows: u64,
}

impl MappingOrder {
    pub fn new(k: &KernelDesc, dir: Direction) -> MappingOrder {
        MappingOrder {
            dir,
            gx: k.grid[0].into(),
            rows: u64::from(k.grid[1]) * u64::from(k.grid[2]),
        }
    }

    /// (position in the mapping's order, index of its row or column, rows or columns in all,
    /// CTAs per row or column).
    fn place(&self, c: [u32; 3], gy: u64) -> (u64, u64, u64, u64) {
        let row = u64::from(c[1]) + gy * u64::from(c[2]);
        let x = u64::from(c[0]);
        match self.dir {
            Direction::Y => (row + self.rows * x, x, self.gx, self.rows),
            _ => (x + self.gx * row, row, self.rows, self.gx),
        }
    }

    /// Position of a CTA in the mapping's order.
    pub fn position(&self, c: [u32; 3], gy: u64) -> u64 {
        self.place(c, gy).0
    }

    /// The linear block id (`x + gx * row`) of the CTA at position `pos` (the inverse of
    /// [`MappingOrder::position`]).
    pub fn block_at(&self, pos: u64) -> u64 {
        match self.dir {
            Direction::Y => pos / self.rows.max(1) + self.gx * (pos % self.rows.max(1)),
            _ => pos,
        }
    }

    /// Lines (rows, or columns along y) in all, and CTAs per line.
    fn lines(&self) -> (u64, u64) {
        match self.dir {
            Direction::Y => (self.gx, self.rows),
            _ => (self.rows, self.gx),
        }
    }
}

/// The CTAs [`balanced_sm`] gives SM `sm` of `sms`, as positions in the mapping's order: its
/// whole lines, then its chunk of the rest, each a contiguous range (either may be empty). So
/// a mapping's queues take no memory per CTA, however large the grid.
pub fn balanced_ranges(order: &MappingOrder, sm: u64, sms: u64) -> [std::ops::Range<u64>; 2] {
    let (lines, per_line) = order.lines();
    let a = lines / sms;
    let whole = sm * a * per_line..(sm + 1) * a * per_line;
    let done = a * sms * per_line;
    let rest = lines * per_line - done;
    let (q, r) = (rest / sms, rest % sms);
    let start = done + sm * q + sm.min(r);
    let len = q + u64::from(sm < r);
    [whole, start..start + len]
}

/// The SM of a CTA under the balanced assignment of seed 003 §4, read from its two rules (the
/// printed Algorithm 3 has index typos; decision DSP-8): with `a = lines / sms` whole rows
/// (columns) per SM, SM `i` gets lines `i*a .. (i+1)*a`; the remaining CTAs, in the mapping's
/// order, are cut into `sms` contiguous chunks whose sizes differ by at most one (the first
/// `rest % sms` chunks one larger).
pub fn balanced_sm(order: &MappingOrder, c: [u32; 3], gy: u64, sms: u64) -> u64 {
    let (pos, line, lines, per_line) = order.place(c, gy);
    let a = lines / sms;
    if line < a * sms {
        return line / a;
    }
    let done = a * sms * per_line;
    let e = pos - done;
    let rest = lines * per_line - done;
    let (q, r) = (rest / sms, rest % sms);
    if e < r * (q + 1) {
        e / (q + 1)
    } else {
        r + (e - r * (q + 1)) / q
    }
}
