//! Seed 002's locality-aware warp scheduler (§3.4) as a cycle-level block with the RTL's
//! interface: one warp scheduler's warp queue (each warp slot's access range, one region index
//! and one sub-region bitmap per array), its locality degree table (one entry per pair of
//! slots), each warp's block age, and the two-level decision. The SM's `locality` warp
//! scheduler (`gpu::sched::locality`) runs this very model.
//!
//! In one cycle, from the state before the edge (outputs are combinational, decision LWS-2):
//! 1. **Demotion**: the active warps that wait long (`long_i`) leave the active group.
//! 2. **Promotion**: if the group holds fewer than `max_active` warps, one waiting warp that
//!    does not wait long joins it: a starved one if any (the lowest slot), else the one whose
//!    degrees with the group's warps sum highest (the lowest slot on ties).
//! 3. **Issue**: greedy, the warp issued last if it is in the group and ready (`ready_i`); else
//!    a starved ready warp of the group (the lowest slot); else the ready warp of the group
//!    sharing the most with the warp issued last (the lowest slot on ties).
//!
//! At the edge the group and the warp issued are kept, and `set_valid_i` writes a warp's
//! vector and its row of the degree table (degrees with every other slot's vector as it was
//! before the edge) and zeroes its block age; with `set_first_i` every other slot's age
//! advances (saturating past `starve_limit`). A warp starves once its age exceeds
//! `starve_limit` (thesis: `Age_new - Age_current > 2N`).

pub mod codec;
#[cfg(test)]
mod tests;

use crate::block::{mask, CycleModel, IllegalInput};
use crate::dispatch::{locality_degree, warp_ranges, DispatchError, WarpRange};
use crate::workload::KernelDesc;
use spec::{GpuSpec, LwsSpec};

pub use codec::{LwsBlock, LwsCodec};

/// A warp's access range as the unit is given it: per array, `None` where it reads none.
pub type Vector = Vec<Option<WarpRange>>;

/// The vectors of block `block`'s warps of kernel `k` as the unit holds them (seed 002's
/// address pre-computation, [`warp_ranges`]): one element per array of the unit, `None` past
/// the kernel's arrays. The error names the key to raise.
pub fn vectors(
    spec: &LwsSpec,
    k: &KernelDesc,
    block: [u32; 3],
    gpu: &GpuSpec,
) -> Result<Vec<Vector>, DispatchError> {
    if k.arrays.len() > spec.arrays as usize {
        return Err(DispatchError::Kernel {
            kernel: k.name.clone(),
            message: format!(
                "{} arrays, a warp's access range describes {} (raise lws.arrays)",
                k.arrays.len(),
                spec.arrays
            ),
        });
    }
    let mut v = warp_ranges(
        k,
        block,
        gpu.line_bytes,
        gpu.warp_size,
        spec.region_bits,
        spec.subregion_bits,
    )?;
    for w in &mut v {
        w.resize(spec.arrays as usize, None);
    }
    Ok(v)
}

/// A warp vector written at an edge.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetWarp {
    pub slot: u32,
    /// The first warp of a newly placed block: every other warp ages.
    #[serde(default)]
    pub first: bool,
    /// One element per array of the unit.
    pub vector: Vector,
}

/// Inputs of one cycle.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LwsIn {
    #[serde(default)]
    pub set: Option<SetWarp>,
    /// Per warp slot (bit `i`): its next instruction can issue now.
    #[serde(default)]
    pub ready: u128,
    /// Per warp slot: it waits long.
    #[serde(default)]
    pub long: u128,
}

/// Outputs of one cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LwsOut {
    /// The warp slot that issues.
    pub issue: Option<u32>,
    /// The active group this cycle.
    pub active: u128,
}

/// The unit.
#[derive(Debug, Clone)]
pub struct LwsUnit {
    spec: LwsSpec,
    /// Per slot, its vector (all `None` after reset).
    vectors: Vec<Vector>,
    /// Degrees, `deg[i][j]` for every pair (kept symmetric; the diagonal is unused).
    deg: Vec<Vec<u32>>,
    /// Per slot, blocks placed since its own (saturating at `starve_limit + 1`).
    age: Vec<u32>,
    active: u128,
    last: Option<u32>,
    out: LwsOut,
}

/// Bits `0..n`.
fn low(n: u32) -> u128 {
    if n >= 128 {
        u128::MAX
    } else {
        (1u128 << n) - 1
    }
}

/// The member of `set` with the highest `score`, the lowest one on ties.
fn best(set: u128, score: impl Fn(u32) -> u64) -> Option<u32> {
    let mut pick: Option<(u64, u32)> = None;
    for i in crate::bitset::members128(set) {
        let (i, s) = (i as u32, score(i as u32));
        if pick.is_none_or(|(b, _)| s > b) {
            pick = Some((s, i));
        }
    }
    pick.map(|(_, i)| i)
}

/// The lowest member of `set`.
fn lowest(set: u128) -> Option<u32> {
    (set != 0).then(|| set.trailing_zeros())
}

impl LwsUnit {
    pub fn new(spec: &LwsSpec) -> LwsUnit {
        let mut u = LwsUnit {
            spec: spec.clone(),
            vectors: Vec::new(),
            deg: Vec::new(),
            age: Vec::new(),
            active: 0,
            last: None,
            out: LwsOut::default(),
        };
        u.reset();
        u
    }

    pub fn spec(&self) -> &LwsSpec {
        &self.spec
    }

    /// The locality degree of slots `i` and `j` held in the table.
    pub fn degree(&self, i: u32, j: u32) -> u32 {
        self.deg[i as usize][j as usize]
    }

    /// The active group after the last edge.
    pub fn active(&self) -> u128 {
        self.active
    }

    /// The slots that starve now.
    pub fn starved(&self) -> u128 {
        let mut s = 0;
        for (i, &a) in self.age.iter().enumerate() {
            if a > self.spec.starve_limit {
                s |= 1 << i;
            }
        }
        s
    }

    /// Check inputs against what the RTL asserts.
    pub fn check(&self, inp: &LwsIn) -> Result<(), IllegalInput> {
        let s = &self.spec;
        let outside = !low(s.warps);
        if (inp.ready | inp.long) & outside != 0 {
            return Err(IllegalInput(format!(
                "ready or long bits beyond the unit's {} warp slots",
                s.warps
            )));
        }
        if let Some(w) = &inp.set {
            if w.slot >= s.warps {
                return Err(IllegalInput(format!(
                    "vector written to warp slot {}, the unit has {}",
                    w.slot, s.warps
                )));
            }
            if w.vector.len() != s.arrays as usize {
                return Err(IllegalInput(format!(
                    "{} arrays given, the unit has {}",
                    w.vector.len(),
                    s.arrays
                )));
            }
            for r in w.vector.iter().flatten() {
                if r.region > mask(s.region_bits) || r.subregions > mask(s.subregion_bits) {
                    return Err(IllegalInput(format!(
                        "{r:?} does not fit {} region bits and {} sub-regions",
                        s.region_bits, s.subregion_bits
                    )));
                }
            }
        }
        Ok(())
    }

    /// The summed degree of slot `j` with the members of `group`.
    fn score(&self, group: u128, j: u32) -> u64 {
        crate::bitset::members128(group)
            .map(|i| u64::from(self.deg[i][j as usize]))
            .sum()
    }

    /// One edge without [`LwsUnit::check`].
    pub fn step_trusted(&mut self, inp: &LwsIn) -> &LwsOut {
        let all = low(self.spec.warps);
        let starved = self.starved();
        // 1. Demotion.
        let mut group = self.active & !inp.long;
        // 2. Promotion: at most one a cycle.
        if group.count_ones() < self.spec.max_active {
            let waiting = all & !group & !inp.long;
            let joins =
                lowest(waiting & starved).or_else(|| best(waiting, |j| self.score(group, j)));
            if let Some(j) = joins {
                group |= 1 << j;
            }
        }
        // 3. Issue.
        let ready = group & inp.ready;
        let issue = match self.last {
            Some(l) if ready >> l & 1 == 1 => Some(l),
            last => lowest(ready & starved).or_else(|| {
                best(ready, |j| {
                    last.map_or(0, |l| u64::from(self.deg[l as usize][j as usize]))
                })
            }),
        };
        // The edge.
        self.active = group;
        self.last = issue.or(self.last);
        if let Some(w) = &inp.set {
            let n = w.slot as usize;
            if w.first {
                for (i, a) in self.age.iter_mut().enumerate() {
                    if i != n {
                        *a = (*a + 1).min(self.spec.starve_limit + 1);
                    }
                }
            }
            self.age[n] = 0;
            for i in 0..self.vectors.len() {
                if i != n {
                    let d = locality_degree(&w.vector, &self.vectors[i]);
                    self.deg[i][n] = d;
                    self.deg[n][i] = d;
                }
            }
            self.vectors[n] = w.vector.clone();
        }
        self.out = LwsOut {
            issue,
            active: group,
        };
        &self.out
    }
}

impl CycleModel for LwsUnit {
    type In = LwsIn;
    type Out = LwsOut;

    fn reset(&mut self) {
        let s = &self.spec;
        let n = s.warps as usize;
        self.vectors = vec![vec![None; s.arrays as usize]; n];
        self.deg = vec![vec![0; n]; n];
        self.age = vec![0; n];
        self.active = 0;
        self.last = None;
        self.out = LwsOut::default();
    }

    fn step(&mut self, inp: &LwsIn) -> Result<&LwsOut, IllegalInput> {
        self.check(inp)?;
        Ok(self.step_trusted(inp))
    }
}
