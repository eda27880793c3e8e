//! Warp level (seed 002 §3.4): each warp's access range per array as a hierarchical vector — a
//! region index (the array's lines split into 2^`region_bits` regions) and a bitmap of the
//! `subregion_bits` sub-regions of that region the warp touches — and the locality degree table
//! of an SM: for every pair of warps, the number of sub-regions both touch in the same region,
//! summed over arrays (Fig. 3.13/3.14).
//!
//! A region covers `ceil(lines / 2^region_bits)` consecutive lines of the array (in the
//! row-major line order of [`super::ranges`]), a sub-region `ceil(region / subregion_bits)` of
//! them. A warp whose lines span several regions is described by the region of its first line
//! and only the sub-regions it touches there (the thesis gives no rule; the vector has one
//! region field).

use super::ranges::line_of;
use super::DispatchError;
use crate::workload::KernelDesc;

/// A warp's vector for one array: region index and sub-region bitmap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WarpRange {
    pub region: u64,
    pub subregions: u64,
}

/// Locality degree of two warps (Fig. 3.14): per array, 0 for different regions, else the
/// sub-regions both touch; summed over arrays.
pub fn locality_degree(a: &[Option<WarpRange>], b: &[Option<WarpRange>]) -> u32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| match (x, y) {
            (Some(x), Some(y)) if x.region == y.region => {
                (x.subregions & y.subregions).count_ones()
            }
            _ => 0,
        })
        .sum()
}

/// The locality degree table of a set of warps: entry (i, j) for i < j, row-major.
pub fn degree_table(ranges: &[Vec<Option<WarpRange>>]) -> Vec<(usize, usize, u32)> {
    let mut t = Vec::new();
    for i in 0..ranges.len() {
        for j in i + 1..ranges.len() {
            t.push((i, j, locality_degree(&ranges[i], &ranges[j])));
        }
    }
    t
}

/// Every warp's vectors for block `block` of `k` (`[warp][array]`), for arrays spanning
/// `array_lines[a]` lines (row-major line index = y * lines_per_row + x).
pub fn warp_ranges(
    k: &KernelDesc,
    block: [u32; 3],
    line_bytes: u32,
    warp_size: u32,
    region_bits: u32,
    subregion_bits: u32,
) -> Result<Vec<Vec<Option<WarpRange>>>, DispatchError> {
    let line = u64::from(line_bytes);
    let threads: u32 = k.block.iter().product();
    let warps = threads.div_ceil(warp_size);
    // Lines per array and per row (row-major line index).
    let dims: Vec<(u64, u64)> = k
        .arrays
        .iter()
        .map(|a| {
            let elem = u64::from(a.elem_bytes);
            let per_row = if a.row_pitch > 0 {
                (a.base % line + a.row_pitch * elem).div_ceil(line)
            } else {
                (a.base % line + a.len.max(1) * elem).div_ceil(line)
            };
            let rows = if a.row_pitch > 0 {
                a.len.max(1).div_ceil(a.row_pitch)
            } else {
                1
            };
            (per_row.max(1), (per_row * rows).max(1))
        })
        .collect();
    let mut out = vec![vec![None; k.arrays.len()]; warps as usize];
    for (w, ranges) in out.iter_mut().enumerate() {
        // Per array: the first line, then every line the warp touches.
        let mut lines: Vec<Vec<u64>> = vec![Vec::new(); k.arrays.len()];
        for l in k.loads.iter().filter(|l| !l.irregular) {
            let Some(ai) = k.arrays.iter().position(|a| a.name == l.array) else {
                continue;
            };
            let trips = if l.in_loop { k.loop_trips } else { 1 };
            for it in 0..trips {
                for t in w as u32 * warp_size..((w as u32 + 1) * warp_size).min(threads) {
                    let tid = [
                        t % k.block[0],
                        (t / k.block[0]) % k.block[1],
                        t / (k.block[0] * k.block[1]),
                    ];
                    let e = l.index.eval(block, tid, it);
                    let (x, y) = line_of(&k.arrays[ai], e, line).map_err(|message| {
                        DispatchError::Kernel {
                            kernel: k.name.clone(),
                            message,
                        }
                    })?;
                    lines[ai].push(y * dims[ai].0 + x);
                }
            }
        }
        for (ai, ls) in lines.iter().enumerate() {
            let Some(&first) = ls.first() else { continue };
            let region_lines = dims[ai].1.div_ceil(1u64 << region_bits).max(1);
            let sub_lines = region_lines.div_ceil(u64::from(subregion_bits)).max(1);
            let region = first / region_lines;
            let mut subregions = 0u64;
            for &l in ls.iter().filter(|&&l| l / region_lines == region) {
                subregions |= 1 << ((l % region_lines) / sub_lines);
            }
            ranges[ai] = Some(WarpRange { region, subregions });
        }
    }
    Ok(out)
}
