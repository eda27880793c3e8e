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

use super::mapping::Direction;
use super::ranges::{block_coords, overlap, Rect};
use super::stream::Dispatcher;
use super::DispatchError;
use crate::workload::KernelDesc;
use spec::{DispatchPolicy, DispatchSpec};

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
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Dispatch {
    /// The block's index in the grid (x fastest).
    pub block: u64,
    /// Grid coordinates of the block.
    pub coords: [u32; 3],
    /// The SM it went to, and the cycle.
    pub sm: u32,
    pub cycle: u64,
    /// Lines it shares with the blocks running on its SM when it arrives.
    pub shared: u64,
}

/// The schema of `golden --block dispatch --format json`, name and version.
pub const SCHEMA: &str = "warpsmith-golden-dispatch/1";

/// The outcome of a run.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct DispatchReport {
    /// The kernel's name and the policy (`dispatch.policy`).
    pub kernel: String,
    pub policy: &'static str,
    /// SMs, and block slots on each.
    pub sms: u32,
    pub slots: u32,
    /// Reuse distances along x and y and the direction Algorithm 1 picks (mapping policies).
    pub reuse: Option<(u32, u32)>,
    pub direction: Option<Direction>,
    /// Every block, in dispatch order.
    pub dispatches: Vec<Dispatch>,
    /// Per SM: lines shared between co-resident blocks, summed over its dispatches.
    pub shared_per_sm: Vec<u64>,
    /// Their sum.
    pub shared_total: u64,
    /// Cycle at which the last block finished.
    pub cycles: u64,
}

/// Dispatch every block of `k` (rectangles from [`super::access_ranges`]) on the GPU of `unit`
/// (`sms` x `slots`) under `policy`, each block running for its [`BlockTimes`]: the
/// [`Dispatcher`] driven by block-finished events, as the GPU drives it.
pub fn dispatch(
    k: &KernelDesc,
    rects: &[Vec<Option<Rect>>],
    unit: &DispatchSpec,
    policy: DispatchPolicy,
    times: &BlockTimes,
    line_bytes: u32,
) -> Result<DispatchReport, DispatchError> {
    let mut d = Dispatcher::new(k, rects, unit, policy, line_bytes)?;
    let (sms, slots) = (unit.sms as usize, unit.slots as usize);
    let mut dispatches = Vec::with_capacity(d.blocks() as usize);
    let mut shared_per_sm = vec![0u64; sms];
    // (end cycle, block, SM, slot) of running blocks, and the blocks on each SM.
    let mut running: Vec<(u64, u64, u32, u32)> = Vec::new();
    let mut on_sm: Vec<Vec<u64>> = vec![Vec::new(); sms];
    let mut placed = Vec::new();
    let mut t = 0u64;
    loop {
        // Blocks that finish now leave their SM, in (end, block) order.
        running.sort_unstable();
        while running.first().is_some_and(|r| r.0 <= t) {
            let (_, b, sm, slot) = running.remove(0);
            on_sm[sm as usize].retain(|&x| x != b);
            d.finished(sm, slot);
        }
        if d.all_placed() && running.is_empty() && !d.events_pending() {
            break;
        }
        placed.clear();
        d.cycle(&|s, n| slots - on_sm[s].len() >= n, &mut placed)?;
        if placed.is_empty() && d.waits_for_finish() {
            // Nothing can be dispatched until a block leaves.
            match running.iter().map(|r| r.0).min() {
                Some(end) => {
                    t = end;
                    continue;
                }
                None => break,
            }
        }
        for p in &placed {
            let b = p.block;
            let on = &mut on_sm[p.sm as usize];
            let shared: u64 = on
                .iter()
                .map(|&r| overlap(&rects[b as usize], &rects[r as usize]))
                .sum();
            shared_per_sm[p.sm as usize] += shared;
            on.push(b);
            // The slot matters to the locality unit only (its `finished` events).
            running.push((t + times.of(b), b, p.sm, p.slot.unwrap_or(0)));
            dispatches.push(Dispatch {
                block: b,
                coords: block_coords(k, b),
                sm: p.sm,
                cycle: t,
                shared,
            });
        }
        t += 1;
    }
    Ok(DispatchReport {
        kernel: k.name.clone(),
        policy: policy.name(),
        sms: unit.sms,
        slots: unit.slots,
        reuse: d.reuse,
        direction: d.direction,
        shared_total: shared_per_sm.iter().sum(),
        shared_per_sm,
        dispatches,
        cycles: t,
    })
}
