//! Request schedulers: one [`Policy`] implementation per [`spec::Scheduler`]. The controller
//! ([`MemSystem`]) holds no scheduler `match`: its cycle is compiled once per policy
//! (`MemSystem::tick_with::<P>`), so what a policy does not use (bank counts, candidate
//! windows, the Warped-MC blocks) costs nothing in the loop, and the one choice, from the
//! spec's scheduler to its implementation, is made here, when the system is built.
//!
//! A policy decides which command a controller issues when no refresh is due
//! ([`Policy::pick`]), and tells the controller which of its state it reads (the associated
//! constants) and which commands it could pick ([`Policy::wake_masks`]), so that the
//! controller can skip cycles in which the policy would find nothing to issue.

use super::{hits, Hook};
use super::{Controller, Entry, McError, MemSystem, Pick};
use crate::mc::dram::Command;
use crate::mc::warped::BankCmd;
use spec::Scheduler;

/// A memory controller's request scheduler.
pub(super) trait Policy {
    /// It reads the per-bank request and hit counts (`Controller::nreq`, `nhit` and their
    /// masks), which the controller then keeps current.
    const COUNTED: bool;
    /// It reads the warp entry tables and the candidate windows, which the controller then
    /// keeps current.
    const USES_BLOCK: bool;
    /// Its command is the one the Warped-MC block selects, so every group that may issue steps
    /// its block; without it only a co-simulated (watched) block steps.
    const BLOCK_SELECTS: bool;
    /// It may precharge a bank whose open row has requests (Div-First's urgent requests
    /// overtake row hits), so its wake bound counts those precharges.
    const PRE_OVER_HITS: bool;
    /// It serves demand requests before prefetches (`prefetch.demand_first`): the controller
    /// keeps per-bank prefetch counts for it (then a demand request's precharge may come before
    /// a prefetch's row hit, and the wake bound counts it too). A constant, so that a
    /// scheduler without it pays nothing for it in the loop (a run-time flag cost 3-5 % of
    /// an FR-FCFS run).
    const DEMAND_FIRST: bool;

    /// The command controller `c` issues at `now` with no refresh due, and the index (among
    /// the requests of the current mode) of the request a column command serves.
    fn pick(sys: &mut MemSystem, c: usize, now: u64) -> Pick;

    /// Bank masks `(with a request, with a hit, with a miss)` of the commands the policy could
    /// pick, for the wake bound.
    #[inline]
    fn wake_masks(x: &Controller) -> (u64, u64, u64) {
        (x.req_mask, x.hit_mask, x.miss_mask)
    }
}

/// Oldest request first, strictly: nothing overtakes it (with demand-first scheduling, the
/// oldest demand request, and the oldest prefetch only when no demand request is pending).
pub(super) struct Fcfs<const DF: bool>;

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

impl<const DF: bool> Policy for Fcfs<DF> {
    const COUNTED: bool = false;
    const USES_BLOCK: bool = false;
    const BLOCK_SELECTS: bool = false;
    const PRE_OVER_HITS: bool = false;
    const DEMAND_FIRST: bool = DF;

    fn pick(sys: &mut MemSystem, c: usize, now: u64) -> Pick {
        let x = &sys.ctrls[c];
        let (i, e) = Self::head(x)?;
        let cmd = x.needed(e);
        x.ch.can_issue(&cmd, now)
            .then_some((cmd, cmd.kind.is_column().then_some(i)))
    }

    /// Its head request's bank only.
    #[inline]
    fn wake_masks(x: &Controller) -> (u64, u64, u64) {
        match Self::head(x) {
            None => (0, 0, 0),
            Some((_, e)) if hits(&x.ch, e.bank(), e.row) => (1u64 << e.bank, 1 << e.bank, 0),
            Some((_, e)) => (1u64 << e.bank, 0, 1 << e.bank),
        }
    }
}

/// FR-FCFS as GPGPU-Sim schedules it: per bank, hits on the open row first, then the bank's
/// oldest request; banks round-robin.
pub(super) struct FrFcfs<const DF: bool>;

impl<const DF: bool> Policy for FrFcfs<DF> {
    const COUNTED: bool = true;
    const USES_BLOCK: bool = false;
    const BLOCK_SELECTS: bool = false;
    const PRE_OVER_HITS: bool = false;
    const DEMAND_FIRST: bool = DF;

    fn pick(sys: &mut MemSystem, c: usize, now: u64) -> Pick {
        let pick = sys.ctrls[c].frfcfs_pick(now, DF);
        // Unit tests check the pick from the bank masks against the scan of every request.
        #[cfg(test)]
        assert_eq!(
            pick,
            sys.per_bank(c, now, None, DF),
            "FR-FCFS pick at {now}"
        );
        pick
    }
}

/// Div-First: per bank, a warp's last pending request first (ignoring row hits), then the
/// bank's oldest request; banks round-robin. It reads the shared warp entry table only.
pub(super) struct DivFirst<const DF: bool>;

impl<const DF: bool> Policy for DivFirst<DF> {
    const COUNTED: bool = true;
    const USES_BLOCK: bool = true;
    const BLOCK_SELECTS: bool = false;
    const PRE_OVER_HITS: bool = true;
    const DEMAND_FIRST: bool = DF;

    fn pick(sys: &mut MemSystem, c: usize, now: u64) -> Pick {
        let scope = sys.scope(c / sys.per_group);
        let pick = sys.ctrls[c].divfirst_pick(&sys.wets[scope], now, DF);
        // Unit tests check the pick against the scan of every request.
        #[cfg(test)]
        assert_eq!(
            pick,
            sys.per_bank(c, now, Some(scope), DF),
            "Div-First pick at {now}"
        );
        pick
    }
}

/// Warped-MC: the command its group's block selected this cycle.
pub(super) struct WarpedMc;

impl Policy for WarpedMc {
    const COUNTED: bool = true;
    const USES_BLOCK: bool = true;
    const BLOCK_SELECTS: bool = true;
    const PRE_OVER_HITS: bool = false;
    /// (Its block selects among every candidate: see `spec`'s rule on `prefetch.demand_first`.)
    const DEMAND_FIRST: bool = false;

    fn pick(sys: &mut MemSystem, c: usize, _now: u64) -> Pick {
        let (bank, cmd, cand, row) = sys.sel[c]?;
        let x = &sys.ctrls[c];
        match cmd {
            BankCmd::None => None,
            BankCmd::Pre => Some((Command::pre(bank), None)),
            BankCmd::Act => Some((Command::act(bank, row), None)),
            BankCmd::Cas => {
                let i = cand as usize;
                Some((x.needed(x.mode_queue().get(i)?), Some(i)))
            }
        }
    }
}

/// A system's cycle and idle skip, compiled for one policy.
pub(super) type TickFn = fn(&mut MemSystem, Option<(usize, &mut Hook<'_>)>) -> Result<(), McError>;
pub(super) type SkipFn = fn(&mut MemSystem, u64);

/// The implementation of a scheduler, as the system calls it.
#[derive(Clone, Copy)]
pub(super) struct Impl {
    pub tick: TickFn,
    pub skip_idle: SkipFn,
    pub uses_block: bool,
    pub demand_first: bool,
}

impl Impl {
    fn of<P: Policy>() -> Impl {
        Impl {
            tick: MemSystem::tick_with::<P>,
            skip_idle: MemSystem::skip_idle_slow::<P>,
            uses_block: P::USES_BLOCK,
            demand_first: P::DEMAND_FIRST,
        }
    }
}

/// The implementation of scheduler `s`, serving demand requests first when `demand_first`
/// (ignored by Warped-MC).
pub(super) fn of(s: Scheduler, demand_first: bool) -> Impl {
    match (s, demand_first) {
        (Scheduler::Fcfs, false) => Impl::of::<Fcfs<false>>(),
        (Scheduler::Fcfs, true) => Impl::of::<Fcfs<true>>(),
        (Scheduler::Frfcfs, false) => Impl::of::<FrFcfs<false>>(),
        (Scheduler::Frfcfs, true) => Impl::of::<FrFcfs<true>>(),
        (Scheduler::Divfirst, false) => Impl::of::<DivFirst<false>>(),
        (Scheduler::Divfirst, true) => Impl::of::<DivFirst<true>>(),
        (Scheduler::Warped, _) => Impl::of::<WarpedMc>(),
    }
}
