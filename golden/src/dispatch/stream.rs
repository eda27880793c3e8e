//! The dispatcher as a streaming component: told which blocks finished, asked once per cycle
//! which blocks it dispatches where. The dispatch simulation ([`super::dispatch`]) and the GPU
//! ([`crate::gpu`]) drive the same [`Dispatcher`], so the locality-aware policy the GPU runs
//! is the cycle-level [`DispatchUnit`] that is co-simulated.
//!
//! Per cycle ([`Dispatcher::cycle`]), given which SMs can take blocks now:
//! * `rr`, `bcs`, `map-*`: the first SM, round-robin from the one after the SM served last,
//!   that can take what the policy would give it, gets it (the oldest waiting block; BCS: the
//!   two oldest together, into an SM that can take two, the last block of the grid alone; a
//!   mapping: the SM's own next block in the mapping's order); then, up to
//!   `dispatch.blocks_per_cycle` SMs a cycle, the next such SM round-robin, each SM served at
//!   most once a cycle (GPGPU-Sim's `issue_block2core` serves every cluster each cycle;
//!   decision GPU-35);
//! * `locality`: the unit's offered decision is committed when its SM can take a block (the
//!   unit's `disp_ready_i`), then the unit steps with the next block of the grid (while it has
//!   room) and one reported finished block.

use super::mapping::{balanced_ranges, direction, reuse_distances, Direction, MappingOrder};
use super::ranges::{block_count, Rect};
use super::unit::{unit_rects, DispatchUnit, Entry, UnitIn};
use super::DispatchError;
use crate::block::CycleModel;
use crate::workload::KernelDesc;
use spec::{DispatchPolicy, DispatchSpec};
use std::collections::VecDeque;

/// Called with the locality unit's inputs and outputs of each cycle it steps.
pub type UnitHook<'h> = dyn FnMut(&UnitIn, &super::UnitOut) -> Result<(), String> + 'h;

/// A block placed by the dispatcher.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placed {
    /// Linear block id (`x + y*gx + z*gx*gy`).
    pub block: u64,
    pub sm: u32,
    /// The SM's block slot the locality unit chose (the other policies leave it to the SM).
    pub slot: Option<u32>,
}

/// The locality-aware policy's state around its decision unit.
struct Locality<'a> {
    unit: DispatchUnit,
    rects: &'a [Vec<Option<Rect>>],
    /// The next block of the grid to enqueue.
    next: u64,
    /// The unit accepts an enqueue this cycle.
    ready: bool,
    /// (block, SM, slot) the unit offers.
    offered: Option<(u32, u32, u32)>,
    /// Finished blocks not yet reported to the unit (one per cycle).
    done: VecDeque<(u32, u32)>,
}

/// Which blocks a queue-based policy hands out.
enum Queues {
    /// One queue, oldest first (`rr`, `bcs`, `map-auto` without reuse): the blocks not yet
    /// handed out, in linear order (a range, not a list: a trace's header may claim a grid of
    /// 2^47 blocks, and memory follows what the run holds, not what it claims).
    Shared(std::ops::Range<u64>),
    /// Per SM, its blocks in the mapping's order (`order`): ranges of positions in it
    /// ([`balanced_ranges`]), not lists of blocks.
    Own {
        order: MappingOrder,
        own: Vec<VecDeque<std::ops::Range<u64>>>,
    },
}

enum Mode<'a> {
    Queues { queues: Queues, pairs: bool },
    Unit(Box<Locality<'a>>),
}

/// A streaming thread-block dispatcher for one kernel.
pub struct Dispatcher<'a> {
    kernel: &'a KernelDesc,
    policy: DispatchPolicy,
    sms: usize,
    next_sm: usize,
    /// SMs a queue policy may serve in one cycle (`dispatch.blocks_per_cycle`).
    per_cycle: usize,
    mode: Mode<'a>,
    blocks: u64,
    placed: u64,
    /// Reuse distances along x and y (`map-auto`) and the direction the mapping follows.
    pub reuse: Option<(u32, u32)>,
    pub direction: Option<Direction>,
}

impl<'a> Dispatcher<'a> {
    /// The dispatcher of kernel `k` (its blocks' access rectangles `rects`, from
    /// [`super::access_ranges`], are read by the locality-aware policy only) on the GPU of
    /// `unit` (`sms` SMs) under `policy`.
    pub fn new(
        k: &'a KernelDesc,
        rects: &'a [Vec<Option<Rect>>],
        unit: &DispatchSpec,
        policy: DispatchPolicy,
        line_bytes: u32,
    ) -> Result<Dispatcher<'a>, DispatchError> {
        Dispatcher::with_unit(k, rects, unit, policy, line_bytes, None)
    }

    /// [`Dispatcher::new`] whose locality policy runs `hw` (a unit that dispatched earlier
    /// kernels and keeps its state, as the hardware does; else a unit from reset). Take it
    /// back with [`Dispatcher::into_unit`].
    pub fn with_unit(
        k: &'a KernelDesc,
        rects: &'a [Vec<Option<Rect>>],
        unit: &DispatchSpec,
        policy: DispatchPolicy,
        line_bytes: u32,
        hw: Option<DispatchUnit>,
    ) -> Result<Dispatcher<'a>, DispatchError> {
        let n = block_count(k);
        let sms = unit.sms as usize;
        let (mut reuse, mut dir) = (None, None);
        let mode = match policy {
            DispatchPolicy::Locality => {
                let hw = hw.unwrap_or_else(|| DispatchUnit::new(unit));
                let last = hw.last_out();
                Mode::Unit(Box::new(Locality {
                    unit: hw,
                    rects,
                    next: 0,
                    ready: last.enq_ready,
                    offered: last.disp,
                    done: VecDeque::new(),
                }))
            }
            _ => {
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
                dir = map_dir;
                let queues = match map_dir {
                    Some(d @ (Direction::X | Direction::Y)) => {
                        let order = MappingOrder::new(k, d);
                        let own = (0..sms as u64)
                            .map(|s| {
                                balanced_ranges(&order, s, sms as u64)
                                    .into_iter()
                                    .filter(|r| !r.is_empty())
                                    .collect()
                            })
                            .collect();
                        Queues::Own { order, own }
                    }
                    _ => Queues::Shared(0..n),
                };
                Mode::Queues {
                    queues,
                    pairs: policy == DispatchPolicy::Bcs,
                }
            }
        };
        Ok(Dispatcher {
            kernel: k,
            policy,
            sms,
            next_sm: 0,
            per_cycle: unit.blocks_per_cycle as usize,
            mode,
            blocks: n,
            placed: 0,
            reuse,
            direction: dir,
        })
    }

    /// The locality policy's unit, with its state (for the next kernel).
    pub fn into_unit(self) -> Option<DispatchUnit> {
        match self.mode {
            Mode::Unit(l) => Some(l.unit),
            Mode::Queues { .. } => None,
        }
    }

    pub fn policy(&self) -> DispatchPolicy {
        self.policy
    }

    /// Whether it places by the SMs' room and its own queues alone (the queue policies, not
    /// the locality unit, which steps every cycle): then a cycle after one that placed nothing
    /// places nothing either until an SM gains room (a block finishes).
    pub fn places_by_room_alone(&self) -> bool {
        matches!(self.mode, Mode::Queues { .. })
    }

    /// Every block of the grid has been placed.
    pub fn all_placed(&self) -> bool {
        self.placed == self.blocks
    }

    /// Blocks of the grid.
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// The source of the blocks ended after `launched` of them (an excerpt of a trace): the
    /// grid ends there, and nothing more is placed.
    pub fn end_grid(&mut self, launched: u64) {
        self.blocks = launched;
        self.placed = launched;
        match &mut self.mode {
            Mode::Queues { queues, .. } => match queues {
                Queues::Shared(q) => q.start = q.end,
                Queues::Own { own, .. } => own.iter_mut().for_each(VecDeque::clear),
            },
            Mode::Unit(l) => {
                l.next = self.blocks;
                l.offered = None;
            }
        }
    }

    /// Whether a cycle that placed nothing is followed by cycles that place nothing until a
    /// block finishes (the queue-based policies; the unit works through its queue meanwhile).
    pub fn waits_for_finish(&self) -> bool {
        matches!(self.mode, Mode::Queues { .. })
    }

    /// Finished-block events not yet taken by the unit.
    pub fn events_pending(&self) -> bool {
        match &self.mode {
            Mode::Unit(l) => !l.done.is_empty(),
            Mode::Queues { .. } => false,
        }
    }

    /// The block that ran in slot `slot` of SM `sm` finished (the locality unit frees the
    /// slot in its running table; the other policies read the SMs' room each cycle).
    pub fn finished(&mut self, sm: u32, slot: u32) {
        if let Mode::Unit(l) = &mut self.mode {
            l.done.push_back((sm, slot));
        }
    }

    /// One cycle: the blocks placed, appended to `out`. `room(sm, blocks)`: SM `sm` can take
    /// `blocks` more blocks of this kernel now.
    pub fn cycle(
        &mut self,
        room: &dyn Fn(usize, usize) -> bool,
        out: &mut Vec<Placed>,
    ) -> Result<(), DispatchError> {
        self.cycle_watched(room, out, None)
    }

    /// [`Dispatcher::cycle`], with `hook` called on the locality unit's inputs and outputs of
    /// the cycle (a co-simulation of the unit in place); its error ends the cycle.
    pub fn cycle_watched(
        &mut self,
        room: &dyn Fn(usize, usize) -> bool,
        out: &mut Vec<Placed>,
        hook: Option<&mut UnitHook<'_>>,
    ) -> Result<(), DispatchError> {
        let before = out.len();
        match &mut self.mode {
            Mode::Queues { queues, pairs } => {
                // Each round serves the first SM, round-robin from the one after the SM served
                // last, that wants a block; later rounds look only at the SMs the earlier ones
                // passed over, so no SM gets two in a cycle.
                let mut unscanned = self.sms;
                for _ in 0..self.per_cycle {
                    let wants = |s: usize| -> bool {
                        match &*queues {
                            Queues::Own { own, .. } => !own[s].is_empty() && room(s, 1),
                            Queues::Shared(q) if *pairs => {
                                !q.is_empty()
                                    && (room(s, 2) || (q.end - q.start == 1 && room(s, 1)))
                            }
                            Queues::Shared(q) => !q.is_empty() && room(s, 1),
                        }
                    };
                    // (From the next SM round: without a division per SM, a scan per cycle.)
                    let Some((step, s)) = (self.next_sm..self.sms)
                        .chain(0..self.next_sm)
                        .take(unscanned)
                        .enumerate()
                        .find(|&(_, s)| wants(s))
                    else {
                        break;
                    };
                    unscanned -= step + 1;
                    let take = if *pairs { 2 } else { 1 };
                    let mut next = || match queues {
                        Queues::Own { order, own } => {
                            let q = &mut own[s];
                            let pos = q.front_mut()?.next()?;
                            if q.front().is_some_and(|r| r.is_empty()) {
                                q.pop_front();
                            }
                            Some(order.block_at(pos))
                        }
                        Queues::Shared(q) => q.next(),
                    };
                    for block in (0..take).map_while(|_| next()) {
                        out.push(Placed {
                            block,
                            sm: s as u32,
                            slot: None,
                        });
                    }
                    self.next_sm = (s + 1) % self.sms;
                }
            }
            Mode::Unit(l) => {
                let k = self.kernel;
                let enq = if l.ready && l.next < self.blocks {
                    l.next += 1;
                    Some(entry(k, l.unit.spec(), l.rects, l.next - 1)?)
                } else {
                    None
                };
                // The offered decision is committed at this edge if its SM has room.
                // (Without an offer the input is don't-care; it is driven high, as the
                // dispatch simulation always drove it.)
                let disp_ready = l.offered.is_none_or(|(_, sm, _)| room(sm as usize, 1));
                if let (true, Some((id, sm, slot))) = (disp_ready, l.offered) {
                    out.push(Placed {
                        block: u64::from(id),
                        sm,
                        slot: Some(slot),
                    });
                }
                let inp = UnitIn {
                    enq,
                    done: l.done.pop_front(),
                    disp_ready,
                };
                let o = *l.unit.step(&inp).map_err(|e| DispatchError::Kernel {
                    kernel: k.name.clone(),
                    message: e.to_string(),
                })?;
                if let Some(h) = hook {
                    h(&inp, &o).map_err(DispatchError::Hook)?;
                }
                l.offered = o.disp;
                l.ready = o.enq_ready;
            }
        }
        self.placed += (out.len() - before) as u64;
        Ok(())
    }
}

/// Block `b` as the decision unit queues it.
fn entry(
    k: &KernelDesc,
    spec: &DispatchSpec,
    rects: &[Vec<Option<Rect>>],
    b: u64,
) -> Result<Entry, DispatchError> {
    let bad = |message: String| DispatchError::Kernel {
        kernel: k.name.clone(),
        message,
    };
    let none = Vec::new();
    let rects = unit_rects(spec, b, rects.get(b as usize).unwrap_or(&none)).map_err(bad)?;
    if b > crate::block::mask(spec.id_bits) {
        return Err(bad(format!(
            "{} blocks need more than {}-bit ids (raise dispatch.id_bits)",
            block_count(k),
            spec.id_bits
        )));
    }
    Ok(Entry {
        id: b as u32,
        rects,
    })
}
