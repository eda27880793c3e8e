//! FR-FCFS as GPGPU-Sim schedules it: per bank, hits on the open row first, then the bank's
//! oldest request; banks round-robin from a pointer that moves past a bank after a row command.
//!
//! The pick reads the per-bank request and hit masks ([`BankCounts`]): a bank with a hit issues
//! its oldest hit's column command, one without its oldest request's precharge (row open) or
//! activate (closed), so whether a bank is ready needs no request, and the queue is scanned
//! only for the winning bank's request, up to it. Unit-test builds check every pick against
//! the scan of every request ([`super::reference::per_bank`]).

use super::super::controller::{hits, key, Controller, Entry, Issued, Pick};
use super::counts::{BankCounts, RoundRobin};
use super::Scheduler;
use spec::Spec;

/// One controller's FR-FCFS state.
struct PerCtrl {
    counts: BankCounts,
    rr: RoundRobin,
    /// Per bank with a request: the first cycle its command could issue (its bound of the
    /// kind the wake bound counts, raised to the rank-wide part), valid while `ready_ok` (from
    /// a wake bound until the controller next changes).
    ready_at: Box<[u64; 64]>,
    ready_ok: bool,
}

/// FR-FCFS; `DF`: demand requests first.
pub(in crate::mc) struct FrFcfs<const DF: bool> {
    /// Per controller.
    ctrls: Vec<PerCtrl>,
    /// dram.banks (where the round-robin pointer wraps).
    banks: u32,
}

impl<const DF: bool> Scheduler for FrFcfs<DF> {
    type DemandFirst = FrFcfs<true>;
    const HAS_DEMAND_FIRST: bool = true;

    fn new(spec: &Spec) -> Self {
        let banks = spec.dram.banks;
        let ctrls = (0..spec.dram.channels)
            .map(|_| PerCtrl {
                counts: BankCounts::new(banks as usize),
                rr: RoundRobin::default(),
                ready_at: Box::new([u64::MAX; 64]),
                ready_ok: false,
            })
            .collect();
        FrFcfs { ctrls, banks }
    }

    fn into_demand_first(self) -> FrFcfs<true> {
        let FrFcfs { ctrls, banks } = self;
        FrFcfs { ctrls, banks }
    }

    #[inline]
    fn pick(&mut self, c: usize, x: &mut Controller, now: u64) -> Pick {
        let p = &mut self.ctrls[c];
        let pick = p.counts.demand_first(DF, |req, hit, demand| {
            pick_in(
                p.ready_ok.then_some(&*p.ready_at),
                p.rr,
                x,
                now,
                req,
                hit,
                demand,
            )
        });
        // Unit tests check the pick from the bank masks against the scan of every request.
        #[cfg(test)]
        assert_eq!(
            pick,
            super::reference::per_bank(x, p.rr, None, now, DF),
            "FR-FCFS pick at {now}"
        );
        pick
    }

    /// Per bank with requests of the current mode: the column command if one hits the open
    /// row, else a precharge (row open) or an activate (closed); with demand-first scheduling
    /// and prefetches pending, a demand miss's precharge over a prefetch's hit too. The
    /// banks' bounds are kept for the next pick (`ready_at`).
    #[inline(always)]
    fn wake(&mut self, c: usize, x: &mut Controller, from: u64) -> u64 {
        let p = &mut self.ctrls[c];
        let over = DF && p.counts.npf_all != 0;
        let (wake, ok) = x.wake_bound(from, p.counts.masks(), over, Some(&mut *p.ready_at));
        p.ready_ok = ok;
        wake
    }

    #[inline]
    fn joined(&mut self, c: usize, x: &Controller, e: &Entry) {
        self.ctrls[c].counts.joined(x, e, DF);
    }

    #[inline(always)]
    fn issued(&mut self, c: usize, x: &Controller, ev: &Issued) {
        let p = &mut self.ctrls[c];
        p.rr.after(&ev.cmd, self.banks);
        p.counts.issued(x, ev, DF);
    }

    #[inline]
    fn mode_changed(&mut self, c: usize, x: &Controller) {
        self.ctrls[c].counts.recount(x, DF);
    }

    #[inline]
    fn changed(&mut self, c: usize) {
        self.ctrls[c].ready_ok = false;
    }

    #[cfg(test)]
    fn check(&self, c: usize, x: &Controller, now: u64) {
        let what = format!("controller {c} at {now}");
        self.ctrls[c].counts.check(x, DF, &what);
    }
}

/// The pick among the requests of the banks of `req` whose hits are in the banks of `hit_mask`
/// (the counts' masks: of every request, or of the demand requests when `demand`). `kept`: the
/// banks' bounds from the last wake bound, when nothing changed since.
#[inline(always)]
fn pick_in(
    kept: Option<&[u64; 64]>,
    rr: RoundRobin,
    x: &mut Controller,
    now: u64,
    req: u64,
    hit_mask: u64,
    demand: bool,
) -> Pick {
    // A bank with a hit or closed waits for its first bound, one with misses only on an open
    // row for the second (its precharge): the bounds the last wake bound gave each bank, when
    // nothing changed since (unit-test builds check them against the recomputed ones at every
    // such pick).
    let ready = match kept.filter(|_| !demand) {
        Some(ready_at) => {
            let r = ready_from(ready_at, req, now);
            #[cfg(test)]
            {
                let (f, p) = x.past_bounds(req, now);
                let by_first = hit_mask | !x.ch.open_mask();
                let want = req & (by_first & f | !by_first & p);
                assert_eq!(r, want, "ready banks at {now}");
            }
            r
        }
        None => {
            let (f, p) = x.past_bounds(req, now);
            let by_first = hit_mask | !x.ch.open_mask();
            req & (by_first & f | !by_first & p)
        }
    };
    if ready == 0 {
        return None;
    }
    let b = rr.first(ready);
    let hit = hit_mask >> b & 1 != 0;
    let q = x.mode_queue();
    let i = if demand {
        q.iter()
            .position(|e| e.bank() == b && !e.prefetch && (!hit || hits(&x.ch, b, e.row)))?
    } else if hit {
        let k = key(b, x.ch.open_row(b)?);
        first_where(&x.keys, |y| y == k)?
    } else {
        first_where(&x.keys, |y| y >> 32 == u64::from(b))?
    };
    x.serve(i)
}

/// The banks of `req` whose kept bound has come at `now`: every bank compared, 16 at a time
/// without a branch (a loop over the banks of `req` takes a branch and a bit scan a bank),
/// then restricted to `req`.
#[inline(always)]
fn ready_from(ready_at: &[u64; 64], req: u64, now: u64) -> u64 {
    let mut r = 0u64;
    let n = (64 - req.leading_zeros()).div_ceil(16) as usize;
    for (k, chunk) in ready_at.chunks_exact(16).take(n).enumerate() {
        let mut m = 0u64;
        for (i, &t) in chunk.iter().enumerate() {
            m |= u64::from(t <= now) << i;
        }
        r |= m << (16 * k);
    }
    r & req
}

/// The index of the first key `f` holds for. Eight keys are compared at a time, without a
/// branch, and the first match taken from the mask: a scan stopping at the match takes a
/// branch per key, and the one that leaves the loop mispredicts (where the match is follows
/// the requests).
#[inline(always)]
fn first_where(keys: &[u64], f: impl Fn(u64) -> bool) -> Option<usize> {
    let mut chunks = keys.chunks_exact(8);
    let mut base = 0;
    for c in &mut chunks {
        let mut m = 0u32;
        for (i, &x) in c.iter().enumerate() {
            m |= u32::from(f(x)) << i;
        }
        if m != 0 {
            return Some(base + m.trailing_zeros() as usize);
        }
        base += 8;
    }
    let rest = chunks.remainder();
    rest.iter().position(|&x| f(x)).map(|i| base + i)
}
