//! Locality (`locality`): seed 002's locality-aware two-level warp scheduler, which is the
//! co-simulated block model [`crate::lws::LwsUnit`] over this scheduler's warp slots (local
//! slot `i` is the SM's slot `s + i * gpu.schedulers`). Each cycle it gives the unit which warps
//! can issue and which wait long (as the two-level scheduler counts it: no warp, ended, at a
//! barrier, or its next instruction reads a register a load will write), and issues the warp the
//! unit names. A warp's access range, given when its block is placed, is written into the unit
//! one warp a cycle (the degree table takes one row a cycle, decision LWS-3); until then the warp
//! waits long.

use super::{two_level::waits_long, FromSpec, OwnSlots, Ready, WarpScheduler};
use crate::lws::{LwsIn, LwsOut, LwsUnit, SetWarp, Vector};
use spec::Spec;
use std::collections::VecDeque;

#[derive(Debug, Clone)]
pub struct Locality {
    unit: LwsUnit,
    /// The scheduler's warp slots (local slot `i` is the unit's slot `i`).
    own: OwnSlots,
    /// Vectors waiting to be written, oldest first.
    writes: VecDeque<SetWarp>,
    /// Local slots whose warp's vector is not written yet.
    unwritten: u128,
    /// The inputs and outputs of the cycle it last stepped, until a watch takes them.
    last: Option<(LwsIn, LwsOut)>,
}

impl FromSpec for Locality {
    fn from_spec(spec: &Spec, s: usize) -> Locality {
        Locality {
            unit: LwsUnit::new(&spec.lws),
            own: OwnSlots::of(&spec.gpu, s),
            writes: VecDeque::new(),
            unwritten: 0,
            last: None,
        }
    }
}

impl Locality {
    /// The unit's inputs and outputs of the cycle it last stepped, if not taken yet (a
    /// co-simulation's watch).
    pub fn take_cycle(&mut self) -> Option<(LwsIn, LwsOut)> {
        self.last.take()
    }
}

impl WarpScheduler for Locality {
    const NAME: &'static str = "locality";
    // Demotions and promotions happen every cycle, events or not.
    const SLEEPS: bool = false;
    const READS_RANGES: bool = true;

    fn pick(&mut self, v: &Ready<'_>) -> Option<usize> {
        let (mut ready, mut long) = (0u128, 0u128);
        for i in 0..self.unit.spec().warps as usize {
            // (A unit has the slots of the scheduler with the most; the others' last wait.)
            if i >= self.own.count() {
                long |= 1 << i;
                continue;
            }
            let w = self.own.sm(i);
            if v.ready(w) {
                ready |= 1 << i;
            }
            if self.unwritten >> i & 1 == 1 || waits_long(v.warp(w)) {
                long |= 1 << i;
            }
        }
        let set = self.writes.pop_front();
        if let Some(s) = &set {
            // (A slot refilled before its vector was written has a later write queued.)
            if !self.writes.iter().any(|x| x.slot == s.slot) {
                self.unwritten &= !(1 << s.slot);
            }
        }
        let inp = LwsIn { set, ready, long };
        let out = *self.unit.step_trusted(&inp);
        let pick = out.issue.map(|i| self.own.sm(i as usize));
        self.last = Some((inp, out));
        pick
    }

    fn issued(&mut self, _: usize) {}

    fn placed(&mut self, w: usize, range: &Vector, first: bool) {
        let slot = self.own.local(w) as u32;
        self.unwritten |= 1 << slot;
        self.writes.push_back(SetWarp {
            slot,
            first,
            vector: range.clone(),
        });
    }
}
