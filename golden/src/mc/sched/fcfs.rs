//! FCFS: oldest request first, strictly; nothing overtakes it (with demand-first scheduling,
//! the oldest demand request, and the oldest prefetch only when no demand request is pending).
//! It keeps no state: it reads its head request only.

use super::super::controller::{hits, Controller, Entry, Pick};
use super::Scheduler;
use spec::Spec;

/// FCFS; `DF`: demand requests first.
pub(in crate::mc) struct Fcfs<const DF: bool>;

impl<const DF: bool> Fcfs<DF> {
    /// The request served next, and its index among the requests of the current mode.
    #[inline]
    fn head(x: &Controller) -> Option<(usize, &Entry)> {
        let q = x.mode_queue();
        let demand = DF.then(|| q.iter().position(|e| !e.prefetch)).flatten();
        let i = demand.unwrap_or(0);
        q.get(i).map(|e| (i, e))
    }
}

impl<const DF: bool> Scheduler for Fcfs<DF> {
    type DemandFirst = Fcfs<true>;
    const HAS_DEMAND_FIRST: bool = true;

    fn new(_: &Spec) -> Self {
        Fcfs
    }

    fn into_demand_first(self) -> Fcfs<true> {
        Fcfs
    }

    #[inline]
    fn pick(&mut self, _: usize, x: &mut Controller, now: u64) -> Pick {
        let (i, e) = Self::head(x)?;
        let cmd = x.needed(e);
        x.ch.can_issue(&cmd, now)
            .then_some((cmd, cmd.kind.is_column().then_some(i)))
    }

    /// Its head request's bank only.
    #[inline(always)]
    fn wake(&mut self, _: usize, x: &mut Controller, from: u64) -> u64 {
        let masks = match Self::head(x) {
            None => (0, 0, 0),
            Some((_, e)) if hits(&x.ch, e.bank(), e.row) => (1u64 << e.bank, 1 << e.bank, 0),
            Some((_, e)) => (1u64 << e.bank, 0, 1 << e.bank),
        };
        x.wake_bound(from, masks, false, None).0
    }
}
