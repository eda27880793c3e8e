//! The dispatch simulation: a GPU of `sms` SMs with `slots` block slots each runs a kernel's
//! thread blocks; the dispatcher makes at most one decision per cycle.
//!
//! Per cycle: blocks whose time is up leave their SM; then the dispatcher serves the first SM,
//! round-robin from the SM after the one it served last, that can take what the policy would
//! give it, and dispatches there:
//! * `rr` — the oldest waiting block;
//! * `bcs` — the two oldest waiting blocks together, only into an SM with two free slots (the
//!   last block of the grid alone);
//! * `locality` — the decision unit ([`super::DispatchUnit`], the block the RTL implements)
//!   fed the grid's blocks in order and every finished block (one event per cycle): among the
//!   oldest `queue_entries` waiting blocks, the one sharing the most lines with the blocks
//!   running on the SM it serves; if every candidate shares none, the one sharing the fewest
//!   with the blocks running on the other SMs; ties go to the oldest. A decision takes the
//!   unit's latency;
//! * `map-x`, `map-y`, `map-auto` — each SM takes its own blocks (seed 003's balanced
//!   assignment along x, along y, or in the direction Algorithm 1 picks) in the mapping's
//!   order; `map-auto` without reuse is `rr`.
//!
//! A block dispatched at cycle `t` leaves at `t + duration`. Durations come from a stimulus or
//! from the documented model [`BlockTimes::Model`].

use super::mapping::{balanced_sm, direction, reuse_distances, Direction, MappingOrder};
use super::ranges::{block_coords, block_count, overlap, Rect};
use super::unit::{unit_rects, DispatchUnit, Entry, UnitIn};
use super::DispatchError;
use crate::block::CycleModel;
use crate::workload::KernelDesc;
use spec::{DispatchPolicy, DispatchSpec};
use std::collections::VecDeque;

/// How long each block runs.
#[derive(Debug, Clone)]
pub enum BlockTimes {
    /// `base + h(seed, block) % (base / 4 + 1)` cycles: a fixed time with up to 25% seeded
    /// spread, so blocks finish out of order as on a GPU.
    Model { base: u64, seed: u64 },
    /// Given per block id (a stimulus).
    Given(Vec<u64>),
}

impl BlockTimes {
    /// Cycles block `block` runs.
    pub fn of(&self, block: u64) -> u64 {
        match self {
            BlockTimes::Model { base, seed } => {
                let z = crate::rng::mix64(seed ^ block.wrapping_mul(crate::rng::GOLDEN));
                base + z % (base / 4 + 1)
            }
            BlockTimes::Given(v) => v.get(block as usize).copied().unwrap_or(1).max(1),
        }
    }
}

/// One dispatch decision's block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Dispatch {
    pub block: u64,
    /// Grid coordinates of the block.
    pub coords: [u32; 3],
    pub sm: u32,
    pub cycle: u64,
    /// Lines it shares with the blocks running on its SM when it arrives.
    pub shared: u64,
}

/// The outcome of a run.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DispatchReport {
    pub kernel: String,
    pub policy: &'static str,
    pub sms: u32,
    pub slots: u32,
    /// Reuse distances along x and y and the direction Algorithm 1 picks (mapping policies).
    pub reuse: Option<(u32, u32)>,
    pub direction: Option<Direction>,
    pub dispatches: Vec<Dispatch>,
    /// Per SM: lines shared between co-resident blocks, summed over its dispatches.
    pub shared_per_sm: Vec<u64>,
    pub shared_total: u64,
    /// Cycle at which the last block finished.
    pub cycles: u64,
}

/// Dispatch every block of `k` (rectangles from [`super::access_ranges`]) on the GPU of `unit`
/// (`sms` x `slots`) under `policy`.
pub fn dispatch(
    k: &KernelDesc,
    rects: &[Vec<Option<Rect>>],
    unit: &DispatchSpec,
    policy: DispatchPolicy,
    times: &BlockTimes,
    line_bytes: u32,
) -> Result<DispatchReport, DispatchError> {
    let (sms, slots) = (unit.sms, unit.slots);
    if policy == DispatchPolicy::Locality {
        return with_unit(k, rects, unit, times);
    }
    let n = block_count(k);
    let s_count = sms as usize;
    let gy = u64::from(k.grid[1]);
    // Mapping policies: each SM's own list, in the mapping's order.
    let (mut reuse, mut dir) = (None, None);
    let map_dir = match policy {
        DispatchPolicy::MapX => Some(Direction::X),
        DispatchPolicy::MapY => Some(Direction::Y),
        DispatchPolicy::MapAuto => {
            let (x, y) = reuse_distances(k, line_bytes)?;
            reuse = Some((x, y));
            Some(direction(x, y))
        }
        _ => None,
    };
    dir = map_dir.or(dir);
    let mapped = matches!(map_dir, Some(Direction::X | Direction::Y));
    let mut own: Vec<VecDeque<u64>> = vec![VecDeque::new(); s_count];
    let mut queue: VecDeque<u64> = VecDeque::new();
    if let (true, Some(d)) = (mapped, map_dir) {
        let order = MappingOrder::new(k, d);
        let mut by_pos: Vec<(u64, u64)> = (0..n)
            .map(|b| (order.position(block_coords(k, b), gy), b))
            .collect();
        by_pos.sort_unstable();
        for (_, b) in by_pos {
            let sm = balanced_sm(&order, block_coords(k, b), gy, u64::from(sms));
            own[sm as usize].push_back(b);
        }
    } else {
        queue.extend(0..n);
    }
    let pairs = policy == DispatchPolicy::Bcs;
    let mut running: Vec<Vec<(u64, u64)>> = vec![Vec::new(); s_count];
    let mut dispatches = Vec::with_capacity(n as usize);
    let mut shared_per_sm = vec![0u64; s_count];
    let mut next_sm = 0usize;
    let mut t = 0u64;
    let mut left = n;
    let shared_with = |running: &[(u64, u64)], b: u64| -> u64 {
        running
            .iter()
            .map(|&(r, _)| overlap(&rects[b as usize], &rects[r as usize]))
            .sum()
    };
    loop {
        for r in running.iter_mut() {
            r.retain(|&(_, end)| end > t);
        }
        if left == 0 && running.iter().all(Vec::is_empty) {
            break;
        }
        let wants = |s: usize, running: &[Vec<(u64, u64)>]| -> bool {
            let free = slots as usize - running[s].len();
            if mapped {
                free >= 1 && !own[s].is_empty()
            } else if pairs {
                !queue.is_empty() && (free >= 2 || (free >= 1 && queue.len() == 1))
            } else {
                free >= 1 && !queue.is_empty()
            }
        };
        let Some(s) = (0..s_count)
            .map(|i| (next_sm + i) % s_count)
            .find(|&s| wants(s, &running))
        else {
            // Nothing can be dispatched until a block leaves.
            match running.iter().flatten().map(|&(_, end)| end).min() {
                Some(end) => {
                    t = end;
                    continue;
                }
                None => break,
            }
        };
        let chosen: Vec<u64> = if mapped {
            own[s].pop_front().into_iter().collect()
        } else if pairs {
            (0..2).filter_map(|_| queue.pop_front()).collect()
        } else {
            queue.pop_front().into_iter().collect()
        };
        for b in chosen {
            let shared = shared_with(&running[s], b);
            shared_per_sm[s] += shared;
            running[s].push((b, t + times.of(b)));
            dispatches.push(Dispatch {
                block: b,
                coords: block_coords(k, b),
                sm: s as u32,
                cycle: t,
                shared,
            });
            left -= 1;
        }
        next_sm = (s + 1) % s_count;
        t += 1;
    }
    Ok(DispatchReport {
        kernel: k.name.clone(),
        policy: policy.name(),
        sms,
        slots,
        reuse,
        direction: dir,
        shared_total: shared_per_sm.iter().sum(),
        shared_per_sm,
        dispatches,
        cycles: t,
    })
}

/// The locality-aware policy: the decision unit drives the dispatch.
fn with_unit(
    k: &KernelDesc,
    rects: &[Vec<Option<Rect>>],
    spec: &DispatchSpec,
    times: &BlockTimes,
) -> Result<DispatchReport, DispatchError> {
    let n = block_count(k);
    let mut unit = DispatchUnit::new(spec);
    let entry = |b: u64| -> Result<Entry, DispatchError> {
        let rects =
            unit_rects(spec, b, &rects[b as usize]).map_err(|message| DispatchError::Kernel {
                kernel: k.name.clone(),
                message,
            })?;
        if b > crate::block::mask(spec.id_bits) {
            return Err(DispatchError::Kernel {
                kernel: k.name.clone(),
                message: format!(
                    "{n} blocks need more than {}-bit ids (raise dispatch.id_bits)",
                    spec.id_bits
                ),
            });
        }
        Ok(Entry {
            id: b as u32,
            rects,
        })
    };
    let s_count = spec.sms as usize;
    let mut shared_per_sm = vec![0u64; s_count];
    let mut dispatches = Vec::with_capacity(n as usize);
    // (end cycle, block, sm, slot) of running blocks; finished ones wait to be reported.
    let mut running: Vec<(u64, u64, u32, u32)> = Vec::new();
    let mut done_fifo: VecDeque<(u32, u32)> = VecDeque::new();
    let mut on_sm: Vec<Vec<u64>> = vec![Vec::new(); s_count];
    let mut next_block = 0u64;
    let mut offered: Option<(u32, u32, u32)> = None;
    let mut ready = true;
    let mut t = 0u64;
    while (dispatches.len() as u64) < n || !running.is_empty() || !done_fifo.is_empty() {
        // Blocks that finish now are reported, one per cycle, in order.
        running.sort_unstable();
        while running.first().is_some_and(|r| r.0 <= t) {
            let (_, b, sm, slot) = running.remove(0);
            on_sm[sm as usize].retain(|&x| x != b);
            done_fifo.push_back((sm, slot));
        }
        let enq = if ready && next_block < n {
            next_block += 1;
            Some(entry(next_block - 1)?)
        } else {
            None
        };
        let inp = UnitIn {
            enq,
            done: done_fifo.pop_front(),
            disp_ready: true,
        };
        // The offered decision is committed at this edge.
        if let Some((id, sm, slot)) = offered {
            let b = u64::from(id);
            let shared: u64 = on_sm[sm as usize]
                .iter()
                .map(|&r| overlap(&rects[b as usize], &rects[r as usize]))
                .sum();
            shared_per_sm[sm as usize] += shared;
            on_sm[sm as usize].push(b);
            running.push((t + times.of(b), b, sm, slot));
            dispatches.push(Dispatch {
                block: b,
                coords: block_coords(k, b),
                sm,
                cycle: t,
                shared,
            });
        }
        let out = unit.step(&inp).map_err(|e| DispatchError::Kernel {
            kernel: k.name.clone(),
            message: e.to_string(),
        })?;
        offered = out.disp;
        ready = out.enq_ready;
        t += 1;
    }
    Ok(DispatchReport {
        kernel: k.name.clone(),
        policy: DispatchPolicy::Locality.name(),
        sms: spec.sms,
        slots: spec.slots,
        reuse: None,
        direction: None,
        shared_total: shared_per_sm.iter().sum(),
        shared_per_sm,
        dispatches,
        cycles: t,
    })
}
