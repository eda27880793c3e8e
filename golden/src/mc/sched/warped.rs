//! Warped-MC (seed 004 Algorithm 1): each controller issues the command its group's Warped-MC
//! block selects this cycle, so every group that may issue steps its block ([`Groups`], with
//! `SELECTS`); the memory system runs the very block that is co-simulated. It serves every
//! candidate alike (no demand-first variant: see `spec`'s rule on `prefetch.demand_first`).

use super::super::controller::{Controller, Controllers, Entry, Issued, Pick};
use super::super::dram::Command;
use super::super::system::{GroupCycle, McError};
use super::super::warped::BankCmd;
use super::groups::{groups_hooks, Groups};
use super::Scheduler;
use spec::Spec;

/// Warped-MC.
pub(in crate::mc) struct Warped {
    groups: Groups,
}

impl Scheduler for Warped {
    type DemandFirst = Warped;
    const EVENTFUL: bool = true;
    const WATCHABLE: bool = true;
    /// The block selects one command a cycle (its RTL), on HBM2 too (decision MEM-25).
    const DUAL_ISSUE: bool = false;

    fn new(spec: &Spec) -> Self {
        Warped {
            groups: Groups::new(spec),
        }
    }

    fn into_demand_first(self) -> Warped {
        self
    }

    #[inline]
    fn prepare(&mut self, ctl: &mut Controllers, run: u128, now: u64) -> Result<(), McError> {
        self.groups.prepare::<true>(ctl, run, now)
    }

    /// The command its group's block selected this cycle.
    #[inline]
    fn pick(&mut self, c: usize, x: &mut Controller, _: u64) -> Pick {
        let (bank, cmd, cand, row) = self.groups.sel[c]?;
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

    /// Per bank with requests of the current mode: the column command if one hits the open
    /// row, else a precharge (row open) or an activate (closed).
    #[inline(always)]
    fn wake(&mut self, c: usize, x: &mut Controller, from: u64) -> u64 {
        x.wake_bound(from, self.groups.counts[c].masks(), false, None)
            .0
    }

    #[inline(always)]
    fn issued(&mut self, c: usize, x: &Controller, ev: &Issued) {
        self.groups.issued::<false>(c, x, ev);
    }

    groups_hooks!(false);
}
