//! Oldest-ready (test only): the oldest request of the current mode whose next command can
//! issue now, with no preference for row hits. It keeps no state and scans the queue at every
//! pick and wake bound: it is here to show what adding a scheduler takes (this file and its
//! line in the registry), and the controllers' tests run it like every registered scheduler.

use super::super::controller::{hits, Controller, Pick};
use super::Scheduler;
use spec::Spec;

/// Oldest-ready.
pub(in crate::mc) struct OldestReady;

impl Scheduler for OldestReady {
    type DemandFirst = OldestReady;

    fn new(_: &Spec) -> Self {
        OldestReady
    }

    fn into_demand_first(self) -> OldestReady {
        self
    }

    fn pick(&mut self, _: usize, x: &mut Controller, now: u64) -> Pick {
        let i = x
            .mode_queue()
            .iter()
            .position(|e| x.ch.can_issue(&x.needed(e), now))?;
        x.serve(i)
    }

    /// Every bank with a request: its column command if one hits, its precharge if one misses
    /// an open row (an older miss goes before a younger hit), its activate if closed.
    fn wake(&mut self, _: usize, x: &mut Controller, from: u64) -> u64 {
        let (mut any, mut hit, mut miss) = (0u64, 0u64, 0u64);
        for e in x.mode_queue() {
            let bit = 1u64 << e.bank;
            any |= bit;
            if hits(&x.ch, e.bank(), e.row) {
                hit |= bit;
            } else {
                miss |= bit;
            }
        }
        x.wake_bound(from, (any, hit, miss), true, None).0
    }
}
