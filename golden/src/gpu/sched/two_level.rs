//! Two-level (`two-level`, GPGPU-Sim's `two_level_active:N:0:1`): loose round robin within an
//! active set of `gpu.active_warps` warp slots, refilled in order from a pending queue.
//! Before it picks, the active warps that wait long (on a global or local load, at a
//! barrier, ended, or no warp at all) go, in their order, to the back of the pending queue, and
//! the queue's front fills the set, ready or not; after an issue the set turns so that the warp
//! after the one issued comes first. Every slot of the scheduler is in one of the two, resident
//! or not. The sets change every cycle, events or not, so it never sleeps.

use super::{FromSpec, OwnSlots, Ready, WarpScheduler};
use crate::gpu::sm::warp::Warp;
#[cfg(test)]
use crate::gpu::sm::warp::RZ;
use spec::Spec;
use std::collections::VecDeque;

#[derive(Debug, Clone)]
pub struct TwoLevel {
    /// The active set's size at most.
    active_warps: usize,
    /// The active set, in loose round-robin order (from the warp after the last one issued).
    active: VecDeque<usize>,
    /// The pending queue.
    pending: VecDeque<usize>,
}

#[cfg(test)]
thread_local! {
    /// Wrong two-level schedulers for the tests: 1, a warp waiting on an arithmetic result
    /// leaves the active set too; 2, a warp waiting on a load keeps it.
    pub(crate) static LAX_TWO_LEVEL: std::cell::Cell<u8> = const { std::cell::Cell::new(0) };
}

/// Whether the warp in a slot (`None`: none) waits for more than a short latency (GPGPU-Sim's
/// `waiting()` or a source register awaiting a long operation): no warp, an ended warp, one
/// at a barrier, or one whose next instruction reads a register a load will write. A wait on
/// an arithmetic result does not count.
pub(super) fn waits_long(x: Option<&Warp>) -> bool {
    let Some(x) = x else {
        return true;
    };
    let Some(i) = x.insts.get(x.next).filter(|_| !x.done && !x.at_barrier) else {
        return true;
    };
    #[cfg(test)]
    match LAX_TWO_LEVEL.with(|l| l.get()) {
        1 => {
            return i
                .srcs
                .iter()
                .any(|&r| x.loads_into(r) || r != RZ && x.writing.iter().any(|w| w.reg == r))
        }
        2 => return false,
        _ => {}
    }
    i.srcs.iter().any(|&r| x.loads_into(r))
}

impl FromSpec for TwoLevel {
    fn from_spec(spec: &Spec, s: usize) -> TwoLevel {
        let g = &spec.gpu;
        TwoLevel {
            active_warps: g.active_warps as usize,
            active: VecDeque::new(),
            pending: OwnSlots::of(g, s).iter().collect(),
        }
    }
}

impl WarpScheduler for TwoLevel {
    const NAME: &'static str = "two-level";
    const SLEEPS: bool = false;

    fn pick(&mut self, v: &Ready<'_>) -> Option<usize> {
        let pending = &mut self.pending;
        self.active.retain(|&w| {
            let waits = waits_long(v.warp(w));
            if waits {
                pending.push_back(w);
            }
            !waits
        });
        while self.active.len() < self.active_warps {
            match self.pending.pop_front() {
                Some(w) => self.active.push_back(w),
                None => break,
            }
        }
        self.active.iter().copied().find(|&w| v.ready(w))
    }

    fn issued(&mut self, w: usize) {
        if let Some(i) = self.active.iter().position(|&x| x == w) {
            self.active.rotate_left(i + 1);
        }
    }
}
