//! Div-First: FR-FCFS with "the warp's last pending request" (warp entry table count 1) in
//! place of "row hit": per bank, a warp's last pending request first (ignoring row hits), then
//! the bank's oldest request; banks round-robin. It reads the shared warp entry table of its
//! scope only ([`Groups`] without `SELECTS`: a block steps only when watched).
//!
//! The pick does not score every request: a closed bank's activate and an open bank's column
//! command wait for the bank's first bound, its precharge for the second, so a bank past both
//! bounds (or closed and past the first) is ready whichever request it picks, and a bank past
//! neither is not. Banks are tried round-robin; only a tried bank's requests are scanned (up
//! to its first urgent one), and the first tried bank is usually the winner. Unit-test builds
//! check every pick against the scan of every request ([`super::reference::per_bank`]).

use super::super::controller::{Controller, Controllers, Entry, Issued, Pick};
use super::super::system::{GroupCycle, McError};
use super::super::warped::Wet;
use super::counts::RoundRobin;
use super::groups::{groups_hooks, Groups};
use super::Scheduler;
use crate::bitset::members;
use spec::Spec;

/// Div-First; `DF`: demand requests first.
pub(in crate::mc) struct DivFirst<const DF: bool> {
    groups: Groups,
    /// Per controller: its round-robin bank pointer.
    rr: Vec<RoundRobin>,
    /// dram.banks (where the pointer wraps).
    banks: u32,
}

impl<const DF: bool> Scheduler for DivFirst<DF> {
    type DemandFirst = DivFirst<true>;
    const HAS_DEMAND_FIRST: bool = true;
    const EVENTFUL: bool = true;
    const WATCHABLE: bool = true;
    /// The block selects one command a cycle (its RTL), on HBM2 too (decision MEM-25).
    const DUAL_ISSUE: bool = false;

    fn new(spec: &Spec) -> Self {
        DivFirst {
            groups: Groups::new(spec),
            rr: vec![RoundRobin::default(); spec.dram.channels as usize],
            banks: spec.dram.banks,
        }
    }

    fn into_demand_first(self) -> DivFirst<true> {
        let DivFirst { groups, rr, banks } = self;
        DivFirst { groups, rr, banks }
    }

    #[inline]
    fn prepare(&mut self, ctl: &mut Controllers, run: u128, now: u64) -> Result<(), McError> {
        self.groups.prepare::<false>(ctl, run, now)
    }

    #[inline]
    fn pick(&mut self, c: usize, x: &mut Controller, now: u64) -> Pick {
        let (wet, rr) = (self.groups.wet_of(c), self.rr[c]);
        let pick = self.groups.counts[c]
            .demand_first(DF, |req, _, demand| pick_in(wet, rr, x, now, req, demand));
        // Unit tests check the pick against the scan of every request.
        #[cfg(test)]
        assert_eq!(
            pick,
            super::reference::per_bank(x, rr, Some(wet), now, DF),
            "Div-First pick at {now}"
        );
        pick
    }

    /// Per bank with requests of the current mode: the column command and the precharge of an
    /// open bank (its urgency changes with the shared warp entry table), the activate of a
    /// closed one.
    #[inline(always)]
    fn wake(&mut self, c: usize, x: &mut Controller, from: u64) -> u64 {
        x.wake_bound(from, self.groups.counts[c].masks(), true, None)
            .0
    }

    #[inline(always)]
    fn issued(&mut self, c: usize, x: &Controller, ev: &Issued) {
        self.rr[c].after(&ev.cmd, self.banks);
        self.groups.issued::<DF>(c, x, ev);
    }

    groups_hooks!(DF);
}

/// The pick among the requests of the banks of `req` (every request, or the demand requests
/// when `demand`), with urgency from `wet`.
#[inline(always)]
fn pick_in(
    wet: &Wet,
    rr: RoundRobin,
    x: &mut Controller,
    now: u64,
    req: u64,
    demand: bool,
) -> Pick {
    // `sure`: closed, or past both bounds; `maybe`: past one of an open bank's.
    let (f, p) = x.past_bounds(req, now);
    let settled = !x.ch.open_mask() | f & p;
    let sure = req & settled & f;
    let maybe = req & !settled & (f | p);
    let all = sure | maybe;
    let (late, early) = (all & (u64::MAX << rr.0), all & !(u64::MAX << rr.0));
    for b in members(late).chain(members(early)) {
        let i = urgent_or_oldest(x, wet, b, demand)?;
        let ready = sure >> b & 1 != 0 || {
            let [first, pre] = x.bank_times(b);
            match x.ch.open_row(b) {
                Some(r) if r != x.mode_queue()[i].row => pre <= now,
                _ => first <= now,
            }
        };
        if ready {
            return x.serve(i);
        }
    }
    None
}

/// Bank `b`'s first urgent request (its warp's last pending one), else its oldest (among the
/// demand requests when `demand`). The bank's requests are found 64 queue entries at a time
/// as a mask built without a branch per entry (banks interleave in the queue, so a per-entry
/// branch on the bank mispredicts often), then the urgent one among them.
#[inline(always)]
fn urgent_or_oldest(x: &Controller, wet: &Wet, b: u32, demand: bool) -> Option<usize> {
    let q = x.mode_queue();
    let mut oldest = None;
    for (k, chunk) in q.chunks(64).enumerate() {
        let mut m = 0u64;
        for (i, e) in chunk.iter().enumerate() {
            let ours = (e.bank() == b) & !(demand & e.prefetch);
            m |= u64::from(ours) << i;
        }
        while m != 0 {
            let i = 64 * k + m.trailing_zeros() as usize;
            m &= m - 1;
            if wet.get(q[i].gwid) <= 1 {
                return Some(i);
            }
            oldest.get_or_insert(i);
        }
    }
    oldest
}
