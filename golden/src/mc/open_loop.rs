//! The open-loop DRAM memory system: requests arrive at the cycles their source gives and never
//! wait for anything (the channels' wait lists are unbounded), as `warpsmith golden --block mc`
//! and the Warped-MC co-simulation run it. A driver over the streaming [`MemSystem`]: before
//! each cycle it offers the requests of that cycle, after it takes the completions, and it skips
//! idle time up to the next arrival. Request statistics are accumulated as completions stream
//! out (latency histograms, one record per open warp load), so memory follows the requests in
//! flight, not the length of the source.

use super::stimulus::Request;
use super::system::{Completion, Dist, Hook, McError, McSummary, MemSystem};
use crate::stream::Offer;
use spec::Spec;
use std::collections::{BTreeMap, VecDeque};

/// Arrivals between two retirements of finished warp loads ([`RequestStats::retire`]).
const RETIRE_EVERY: u64 = 16;

/// Values below this are counted in pages of a table, larger ones in a map. (The table's
/// directory of pages is at most 1 MiB: 2^17 page pointers.)
const PAGED: u64 = 1 << 26;
/// Values per page (a page is 4 KiB of counts).
const PAGE: usize = 512;

/// Exact distribution of integer samples: counts per value. Values below [`PAGED`] are
/// counted in a table of pages, each allocated when a value of it first occurs, so memory
/// follows the values seen and a sample costs one indexed add; the rare larger ones in a map.
/// (An open loop at saturation has latencies of millions of cycles: a table of every value up
/// to the largest would grow to megabytes.)
#[derive(Debug, Clone, Default)]
pub struct Hist {
    pages: Vec<Option<Box<[u64; PAGE]>>>,
    sparse: BTreeMap<u64, u64>,
    n: u64,
    /// (Wide: samples up to u64::MAX add without overflow.)
    sum: u128,
}

impl Hist {
    #[inline]
    pub fn add(&mut self, v: u64) {
        self.add_n(v, 1);
    }

    /// Add `c` samples of value `v`.
    #[inline]
    fn add_n(&mut self, v: u64, c: u64) {
        if v < PAGED {
            let (p, i) = ((v / PAGE as u64) as usize, v as usize % PAGE);
            if p >= self.pages.len() {
                self.pages.resize(p + 1, None);
            }
            self.pages[p].get_or_insert_with(|| Box::new([0; PAGE]))[i] += c;
        } else {
            *self.sparse.entry(v).or_insert(0) += c;
        }
        self.n += c;
        self.sum += u128::from(v) * u128::from(c);
    }

    /// Add every sample of `other`.
    pub fn merge(&mut self, other: &Hist) {
        for (v, c) in other.counts() {
            self.add_n(v, c);
        }
    }

    /// (value, count) in increasing value order.
    fn counts(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.pages
            .iter()
            .enumerate()
            .filter_map(|(p, page)| page.as_ref().map(|page| (p * PAGE, page)))
            .flat_map(|(base, page)| {
                page.iter()
                    .enumerate()
                    .filter(|(_, &c)| c != 0)
                    .map(move |(i, &c)| ((base + i) as u64, c))
            })
            .chain(self.sparse.iter().map(|(&v, &c)| (v, c)))
    }

    /// The same figures as [`Dist::of`] over the samples: the mean, and the samples at rank
    /// `round((n - 1) p)` in sorted order.
    pub fn dist(&self) -> Dist {
        if self.n == 0 {
            return Dist::default();
        }
        let ranks = [0.50, 0.95, 0.99].map(|p| ((self.n - 1) as f64 * p).round() as u64);
        let mut at = [0u64; 3];
        let mut seen = 0u64;
        let mut k = 0;
        let mut max = 0;
        for (v, c) in self.counts() {
            seen += c;
            max = v;
            while k < 3 && ranks[k] < seen {
                at[k] = v;
                k += 1;
            }
        }
        Dist {
            mean: self.sum as f64 / self.n as f64,
            p50: at[0],
            p95: at[1],
            p99: at[2],
            max,
        }
    }
}

/// A warp load whose requests may still arrive or complete.
#[derive(Debug, Clone, Copy)]
struct LoadAcc {
    first_arr: u64,
    first_done: u64,
    last_done: u64,
    /// Requests arrived and not completed.
    pending: u32,
    /// A request of it never arrived (the run stopped first).
    cut: bool,
}

/// Request-side statistics of a run, accumulated as requests arrive and complete.
#[derive(Debug, Clone, Default)]
pub struct RequestStats {
    requests: u64,
    /// 1 + the largest warp-load index seen.
    loads: u64,
    latency: Hist,
    /// The latency of demand reads and of prefetches (seed 001) apart, from the first
    /// prefetch's completion on (a stimulus without prefetches pays nothing for it).
    by_class: Option<[Hist; 2]>,
    divergence: Hist,
    warp_time: Hist,
    /// Loads `base..base + open.len()` (dense indices, new ones in arrival order), `None`
    /// once closed; closed loads leave from the front.
    open: VecDeque<Option<LoadAcc>>,
    base: u32,
    /// Cycles after a load's first request after which no request joins it (the source's
    /// promise), or `None`: loads close only at the end.
    window: Option<u64>,
    /// A deliberately wrong variant for the tests: close loads with requests pending.
    #[cfg(test)]
    close_pending: bool,
}

impl RequestStats {
    fn new(window: Option<u64>) -> RequestStats {
        RequestStats {
            window,
            ..RequestStats::default()
        }
    }

    /// The record of `load`, opened if new; `None` for a load already closed (a source
    /// that broke its window promise: the request counts, its load is not summarised).
    fn acc(&mut self, load: u32, first: u64) -> Option<&mut LoadAcc> {
        let i = load.checked_sub(self.base)? as usize;
        // (Loads are numbered in arrival order: a new one is next, pushed rather than
        // resized to.)
        while i >= self.open.len() {
            self.open.push_back(None);
        }
        Some(self.open[i].get_or_insert(LoadAcc {
            first_arr: first,
            first_done: u64::MAX,
            last_done: 0,
            pending: 0,
            cut: false,
        }))
    }

    fn arrive(&mut self, r: &Request) {
        self.requests += 1;
        self.loads = self.loads.max(u64::from(r.load) + 1);
        if let Some(acc) = self.acc(r.load, r.cycle) {
            acc.first_arr = acc.first_arr.min(r.cycle);
            acc.pending += 1;
        }
    }

    #[inline]
    fn complete(&mut self, c: &Completion, r: &Request) {
        let l = c.done - r.cycle;
        self.latency.add(l);
        if r.prefetch && self.by_class.is_none() {
            self.by_class = Some(Default::default());
        }
        if let (Some(h), false) = (&mut self.by_class, r.write) {
            h[usize::from(r.prefetch)].add(l);
        }
        let i = r.load.wrapping_sub(self.base) as usize;
        if let Some(Some(acc)) = self.open.get_mut(i) {
            acc.pending -= 1;
            acc.first_done = acc.first_done.min(c.done);
            acc.last_done = acc.last_done.max(c.done);
        }
    }

    /// A request of the source that never arrived: its load is incomplete.
    fn never_arrived(&mut self, r: &Request) {
        self.requests += 1;
        self.loads = self.loads.max(u64::from(r.load) + 1);
        if let Some(acc) = self.acc(r.load, r.cycle) {
            acc.cut = true;
        }
    }

    fn close(&mut self, acc: LoadAcc) {
        if acc.pending == 0 && !acc.cut && acc.first_done != u64::MAX {
            self.divergence.add(acc.last_done - acc.first_done);
            self.warp_time.add(acc.last_done - acc.first_arr);
        }
    }

    /// Close the loads at the front that no request can join any more: opened a window
    /// before `next` (the next arrival), with nothing pending.
    fn retire(&mut self, next: u64) {
        let Some(w) = self.window else {
            return;
        };
        while let Some(front) = self.open.front() {
            #[cfg(test)]
            let busy = |a: &LoadAcc| a.pending != 0 && !self.close_pending;
            #[cfg(not(test))]
            let busy = |a: &LoadAcc| a.pending != 0;
            match front {
                Some(a) if busy(a) || a.first_arr.saturating_add(w) > next => break,
                _ => {}
            }
            if let Some(Some(a)) = self.open.pop_front() {
                self.close(a);
            }
            self.base += 1;
        }
    }

    fn finish(&mut self) {
        while let Some(a) = self.open.pop_front() {
            if let Some(a) = a {
                self.close(a);
            }
            self.base += 1;
        }
    }

    /// Loads whose records are kept (open, or waiting for an earlier one to close).
    pub fn open_loads(&self) -> usize {
        self.open.len()
    }
}

/// The open-loop memory system over a request source (requests in non-decreasing cycle order).
pub struct OpenLoop<S: Iterator<Item = Request>> {
    sys: MemSystem,
    src: S,
    /// The source's next request, taken ahead, and its cycle (`u64::MAX` when there is none).
    next: Option<Request>,
    next_cycle: u64,
    /// Requests offered so far (the next one's tag).
    offered: u64,
    stats: RequestStats,
}

impl<S: Iterator<Item = Request>> OpenLoop<S> {
    /// The memory system of `spec` fed by `src`. `window`: cycles after a warp load's first
    /// request after which the source gives no more requests of it (lets finished loads be
    /// summarised and forgotten during the run); `None` keeps every load to the end.
    pub fn new(spec: &Spec, src: S, window: Option<u64>) -> OpenLoop<S> {
        let mut src = src;
        let next = src.next();
        OpenLoop {
            sys: MemSystem::new(spec),
            next_cycle: next.map_or(u64::MAX, |r| r.cycle),
            next,
            src,
            offered: 0,
            stats: RequestStats::new(window),
        }
    }

    pub fn system(&self) -> &MemSystem {
        &self.sys
    }

    pub fn system_mut(&mut self) -> &mut MemSystem {
        &mut self.sys
    }

    /// The request source (what is left of it).
    pub fn source_mut(&mut self) -> &mut S {
        &mut self.src
    }

    pub fn now(&self) -> u64 {
        self.sys.now()
    }

    /// Every request of the source has arrived and completed.
    pub fn finished(&mut self) -> bool {
        self.sys.outstanding() == 0 && self.next.is_none()
    }

    /// When nothing is pending: the cycle the next request arrives (the time up to it is idle
    /// and skipped); else the current cycle.
    pub fn idle_until(&mut self) -> u64 {
        let now = self.sys.now();
        match self.next {
            Some(r) if self.sys.outstanding() == 0 => r.cycle.max(now),
            _ => now,
        }
    }

    /// Requests offered so far.
    pub fn offered(&self) -> u64 {
        self.offered
    }

    /// Run until every request has completed or `max_cycles`. `each` sees every completion
    /// with its request (the tag is the request's index in the source). With a hook `(g, f)`,
    /// WET group `g` is watched ([`MemSystem::watch_group`]) and `f` sees each of its cycles
    /// ([`MemSystem::probe`]); idle time is then stepped, not jumped over.
    pub fn run(
        &mut self,
        max_cycles: u64,
        mut hook: Option<(usize, &mut Hook<'_>)>,
        each: &mut impl FnMut(&Completion, &Request),
    ) -> Result<(), McError> {
        let skip = hook.is_none();
        self.sys.watch_group(hook.as_ref().map(|(g, _)| *g));
        while !self.finished() && self.sys.now() < max_cycles {
            if skip {
                self.sys.skip_idle(self.next_cycle.min(max_cycles));
            }
            let now = self.sys.now();
            // Loads retire on an arrival (the next one's cycle moves), every
            // [`RETIRE_EVERY`]th: closing a load later changes nothing of its figures (a
            // retired load has nothing pending and no request can join it), and the check
            // then runs once per that many arrivals, not on every arrival and completion.
            let mut moved = false;
            while self.next_cycle <= now {
                let Some(r) = self.next else {
                    break;
                };
                self.next = self.src.next();
                self.next_cycle = self.next.map_or(u64::MAX, |r| r.cycle);
                if self.sys.offer(r, self.offered)? == Offer::Refused {
                    // Wait lists are unbounded unless a caller bounded them.
                    return Err(McError::Request {
                        index: self.offered as usize,
                        message: "refused: the open-loop system's wait list is bounded".into(),
                    });
                }
                self.stats.arrive(&r);
                self.offered += 1;
                moved |= self.offered.is_multiple_of(RETIRE_EVERY);
            }
            self.sys.cycle()?;
            if let Some((_, f)) = hook.as_mut() {
                self.sys.probe(&mut **f)?;
            }
            for c in self.sys.take_completions() {
                self.stats.complete(&c, &c.req);
                each(&c, &c.req);
            }
            if moved && self.stats.window.is_some() {
                self.stats.retire(self.next_cycle);
            }
        }
        Ok(())
    }

    /// Statistics over the run so far. Requests of the source that have not arrived count
    /// as requests, and their warp loads as incomplete; reading them ends the source, and
    /// every warp load is closed (the run is over).
    pub fn summary(&mut self) -> McSummary {
        if let Some(r) = self.next.take() {
            self.stats.never_arrived(&r);
            self.next_cycle = u64::MAX;
        }
        for r in self.src.by_ref() {
            self.stats.never_arrived(&r);
        }
        self.stats.finish();
        let st = &self.stats;
        let d = self.sys.dram_totals();
        McSummary {
            scheduler: d.scheduler,
            requests: st.requests,
            warp_loads: st.loads,
            cycles: d.cycles,
            bandwidth_util: d.bandwidth_util,
            row_hit_rate: d.row_hit_rate,
            latency: st.latency.dist(),
            demand_latency: st.by_class.as_ref().map(|h| h[0].dist()),
            prefetch_latency: st.by_class.as_ref().map(|h| h[1].dist()),
            divergence: st.divergence.dist(),
            warp_time: st.warp_time.dist(),
            commands: d.commands,
            activations: d.activations,
            refreshes: d.refreshes,
            energy: d.energy,
        }
    }

    /// Request statistics (for memory accounting in tests).
    pub fn request_stats(&self) -> &RequestStats {
        &self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mc::stimulus::{self, LoadClass};
    use proptest::prelude::*;
    use spec::ConfigRequest;

    proptest! {
        /// The histogram gives exactly the figures of sorting every sample, small and huge.
        #[test]
        fn hist_equals_sorting(v in prop::collection::vec(
            prop_oneof![0u64..5000, PAGED - 3..PAGED + 3, 0u64..u64::MAX / 4], 1..400)) {
            let mut h = Hist::default();
            for &x in &v {
                h.add(x);
            }
            prop_assert_eq!(h.dist(), Dist::of(v));
        }

        /// Closing warp loads during the run (a source that keeps its window promise) gives
        /// the same summary as keeping every load to the end, and keeps few records.
        #[test]
        fn retiring_loads_changes_nothing(
            sched in prop::sample::select(vec!["fcfs", "frfcfs", "warped", "divfirst"]),
            class in prop::sample::select(vec![LoadClass::Loa, LoadClass::Moa, LoadClass::Hoa]),
            seed in any::<u64>(),
        ) {
            let s = ConfigRequest::preset("tiny")
                .with(&format!("mc.scheduler={sched}"))
                .resolve()
                .unwrap();
            let reqs = stimulus::warp_loads(&s, class, 400, 0.8, seed);
            let mut all = OpenLoop::new(&s, reqs.clone().into_iter(), None);
            all.run(u64::MAX, None, &mut |_, _| {}).unwrap();
            let mut windowed = OpenLoop::new(&s, reqs.into_iter(), Some(stimulus::LOAD_WINDOW));
            while !windowed.finished() {
                let to = windowed.now() + 64;
                windowed.run(to, None, &mut |_, _| {}).unwrap();
            }
            prop_assert_eq!(format!("{:?}", all.summary()), format!("{:?}", windowed.summary()));
        }
    }

    /// With a window, the load records follow the loads in flight, not the run's length.
    #[test]
    fn load_records_follow_the_loads_in_flight() {
        let s = ConfigRequest::preset("tiny").resolve().unwrap();
        let reqs = stimulus::warp_loads(&s, LoadClass::Moa, 20_000, 0.3, 2);
        let mut o = OpenLoop::new(&s, reqs.into_iter(), Some(stimulus::LOAD_WINDOW));
        let mut most = 0;
        while !o.finished() {
            let to = o.now() + 256;
            o.run(to, None, &mut |_, _| {}).unwrap();
            most = most.max(o.request_stats().open_loads());
        }
        assert!(
            most < 200,
            "{most} load records kept at once, of 20000 loads"
        );
    }

    /// The check above catches a deliberately wrong retirement (closing loads that still
    /// have requests pending).
    #[test]
    fn closing_busy_loads_changes_the_summary() {
        let s = ConfigRequest::preset("tiny").resolve().unwrap();
        let reqs = stimulus::warp_loads(&s, LoadClass::Hoa, 400, 0.8, 1);
        let mut all = OpenLoop::new(&s, reqs.clone().into_iter(), None);
        all.run(u64::MAX, None, &mut |_, _| {}).unwrap();
        let mut wrong = OpenLoop::new(&s, reqs.into_iter(), Some(stimulus::LOAD_WINDOW));
        wrong.stats.close_pending = true;
        wrong.run(u64::MAX, None, &mut |_, _| {}).unwrap();
        assert_ne!(
            format!("{:?}", all.summary()),
            format!("{:?}", wrong.summary())
        );
    }
}
