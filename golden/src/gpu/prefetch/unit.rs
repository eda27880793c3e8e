//! What every prefetcher of an SM shares: its training queue, prefetch cache, the prefetches
//! queued and in flight, and the throttle's events (the module documentation of
//! [`super`] says what each does).

use super::cache::PfCache;
use super::{AnyPrefetcher, Events, PrefetchStats, Tick, Train, PREFETCH_QUEUE, TRAIN_QUEUE};
use crate::gpu::sm::warp::Payload;
use crate::prefetch::{PfIn, PfOut};
use rustc_hash::FxHashMap;
use spec::Spec;
use std::collections::VecDeque;

/// What a demand load found at the prefetcher.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Demand {
    /// In the prefetch cache: answered after the ALU latency.
    Hit,
    /// Being prefetched: it waits for the prefetch (merged).
    Merged,
    /// Neither: on to the L1.
    Miss,
}

/// A demand load waiting for one part of a prefetch in flight.
#[derive(Debug, Clone, Copy)]
struct Waiting {
    payload: Payload,
    part: u32,
}

/// A prefetch in flight.
#[derive(Debug, Clone, Default)]
struct InFlight {
    /// The parts of its line not yet back.
    left: u32,
    /// Those back, a bit per part (at most 64: `gpu.line_bytes` <= 1024, fetch units >= 16 B).
    back: u64,
    /// Every part was sent.
    sent: bool,
    /// A demand load used it.
    used: bool,
    /// The demand loads waiting for a part.
    waiting: Vec<Waiting>,
}

/// A prefetch reply ([`PrefetchUnit::fill`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filled {
    pub line: u64,
    /// The demand loads that waited for this part, to be answered.
    pub answer: Vec<Payload>,
    /// The line's last part: it fills the prefetch cache, or with `into_l1` the L1 is to
    /// install it (then report with [`PrefetchUnit::installed`]).
    pub complete: bool,
    /// A demand load used it.
    pub used: bool,
    /// Prefetching into the L1.
    pub into_l1: bool,
}

/// The throttle's events not yet fed to the prefetcher (one of each kind per cycle).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Backlog {
    pub useful: u64,
    pub early: u64,
    pub merge: u64,
    pub request: u64,
}

impl Backlog {
    /// One of each kind waiting, taken.
    fn take_one_each(&mut self) -> Events {
        fn one(n: &mut u64) -> bool {
            let some = *n > 0;
            *n -= u64::from(some);
            some
        }
        Events {
            useful: one(&mut self.useful),
            early: one(&mut self.early),
            merge: one(&mut self.merge),
            request: one(&mut self.request),
        }
    }
}

/// The prefetcher of one SM and what it shares with every other kind.
pub struct PrefetchUnit {
    /// What to prefetch.
    prefetcher: AnyPrefetcher,
    /// Clears the offset within a line.
    line_mask: u64,
    /// A line is fetched in `parts` requests of `part_bytes` (the L2's fetch unit: four 32 B
    /// sectors of a 128 B line in a sector L2, one request in a line L2).
    parts: u32,
    part_bytes: u64,
    /// The parts of the queue's head line already sent.
    sending: u32,
    cache: PfCache,
    /// `prefetch.into_l1`: prefetched lines fill the L1 (the prefetch cache is not used).
    into_l1: bool,
    /// Prefetching into the L1: the prefetched lines the L1 still holds, with whether a demand
    /// load used them (the prefetch cache's used bit, for lines in the L1).
    in_l1: FxHashMap<u64, bool>,
    /// Training accesses waiting for the prefetcher.
    train: VecDeque<Train>,
    /// Lines waiting for the port.
    queue: VecDeque<u64>,
    /// Prefetches in flight, by line.
    inflight: FxHashMap<u64, InFlight>,
    /// Events not yet fed to the prefetcher.
    backlog: Backlog,
    /// A kernel was launched since its last cycle.
    launch: bool,
    stats: PrefetchStats,
}

impl PrefetchUnit {
    /// The prefetcher `spec.prefetch` describes (`None` for `kind = none`).
    pub fn new(spec: &Spec) -> Option<PrefetchUnit> {
        let p = &spec.prefetch;
        let prefetcher = AnyPrefetcher::of(spec)?;
        let line = spec.gpu.line_bytes;
        let part = spec.l2.fetch_bytes().min(line);
        Some(PrefetchUnit {
            prefetcher,
            line_mask: !(u64::from(line) - 1),
            parts: (line / part).max(1),
            part_bytes: part.into(),
            sending: 0,
            cache: PfCache::new(p.cache_sets, p.cache_ways, line),
            into_l1: p.into_l1,
            in_l1: FxHashMap::default(),
            train: VecDeque::new(),
            queue: VecDeque::new(),
            inflight: FxHashMap::default(),
            backlog: Backlog::default(),
            launch: false,
            stats: PrefetchStats::default(),
        })
    }

    pub fn stats(&self) -> &PrefetchStats {
        &self.stats
    }

    /// Let a probe see the MT-HWP engine's ports ([`PrefetchUnit::ports`]); false when the
    /// prefetcher has no such engine.
    pub fn watch(&mut self) -> bool {
        self.prefetcher.watch()
    }

    /// The MT-HWP engine's inputs and outputs of its last cycle, when watched.
    #[inline]
    pub fn ports(&self) -> Option<(&PfIn, &PfOut)> {
        self.prefetcher.ports()
    }

    /// A kernel launch: the prefetcher forgets what it learned at its next cycle.
    pub fn launch(&mut self) {
        self.launch = true;
    }

    /// A warp global load issued: `pc`, the warp's slot, its first request's address.
    pub fn train(&mut self, pc: u64, warp: u32, addr: u64) {
        if self.train.len() >= TRAIN_QUEUE {
            self.stats.train_dropped += 1;
            return;
        }
        self.train.push_back(Train { pc, warp, addr });
    }

    /// A demand load of `addr` (for access `p`) reaches the prefetcher before the L1.
    /// Prefetching into the L1, a load of a prefetched line the L1 holds goes on to the L1 (a
    /// miss here) and counts as a prefetch cache hit would.
    pub fn demand(&mut self, addr: u64, p: Payload) -> Demand {
        let line = addr & self.line_mask;
        self.stats.demand += 1;
        let found = if self.into_l1 {
            self.in_l1
                .get_mut(&line)
                .map(|used| !std::mem::replace(used, true))
        } else {
            self.cache.demand(line)
        };
        if let Some(first) = found {
            self.stats.hits += 1;
            if first {
                self.stats.useful += 1;
                self.backlog.useful += 1;
            }
            return if self.into_l1 {
                Demand::Miss
            } else {
                Demand::Hit
            };
        }
        // (A line whose parts are not all sent yet is no merge: its last parts wait for the
        // port behind every demand request, and a load waiting for them would wait as long.)
        if let Some(f) = self.inflight.get_mut(&line).filter(|f| f.sent) {
            let part = ((addr & !self.line_mask) / self.part_bytes) as u32;
            let first = !std::mem::replace(&mut f.used, true);
            if f.back >> part & 1 != 0 {
                // Its part is back: answered as from the prefetch cache.
                self.stats.hits += 1;
                if first {
                    self.stats.useful += 1;
                    self.backlog.useful += 1;
                }
                return Demand::Hit;
            }
            if first {
                self.stats.late += 1;
            }
            f.waiting.push(Waiting { payload: p, part });
            self.backlog.merge += 1;
            self.backlog.request += 1;
            return Demand::Merged;
        }
        Demand::Miss
    }

    /// A store to `addr`: the prefetch cache drops the line (prefetching into the L1, the line
    /// is no longer a prefetched one: the L1's write policy decides what it keeps).
    pub fn store(&mut self, addr: u64) {
        let line = addr & self.line_mask;
        self.cache.invalidate(line);
        self.in_l1.remove(&line);
    }

    /// The L1 evicted `line` (prefetching into the L1): a prefetched line evicted unused is an
    /// early eviction.
    pub fn evicted(&mut self, line: u64) {
        if self.in_l1.remove(&(line & self.line_mask)) == Some(false) {
            self.stats.early_evicted += 1;
            self.backlog.early += 1;
        }
    }

    /// The L1 installed a prefetched line ([`Filled::into_l1`]), already used when demand
    /// loads waited for it; `taken` false: it could not (its dirty victim found the miss queue
    /// full) and the line is dropped.
    pub fn installed(&mut self, f: &Filled, taken: bool) {
        if taken {
            self.in_l1.insert(f.line, f.used);
        } else {
            self.stats.fill_dropped += 1;
        }
    }

    /// The L1 merged a demand request into an MSHR, or sent `sent` requests to the memory side.
    pub fn l1_events(&mut self, merges: u64, sent: u64) {
        self.backlog.merge += merges;
        self.backlog.request += merges + sent;
    }

    /// The address of the next prefetch request to send, if any (the caller sends it when the
    /// port is free): the next part of the queue's head line.
    pub fn peek(&self) -> Option<u64> {
        let line = self.queue.front()?;
        Some(line + u64::from(self.sending) * self.part_bytes)
    }

    /// The request [`PrefetchUnit::peek`] showed was taken by the memory side. A line is in
    /// flight from its first part, leaves the queue with its last, and from then on a demand
    /// load of it waits for it.
    pub fn sent(&mut self) {
        let Some(&line) = self.queue.front() else {
            return;
        };
        self.backlog.request += 1;
        if self.sending == 0 {
            self.stats.issued += 1;
            self.inflight.insert(
                line,
                InFlight {
                    left: self.parts,
                    ..InFlight::default()
                },
            );
        }
        self.sending += 1;
        if self.sending == self.parts {
            self.sending = 0;
            self.queue.pop_front();
            if let Some(f) = self.inflight.get_mut(&line) {
                f.sent = true;
            }
        }
    }

    /// A prefetch request's reply: the demand loads that waited for its part are answered;
    /// with the line's last part, the line fills the prefetch cache (or, prefetching into the
    /// L1, is for the L1 to install).
    pub fn fill(&mut self, addr: u64) -> Option<Filled> {
        let line = addr & self.line_mask;
        let part = ((addr & !self.line_mask) / self.part_bytes) as u32;
        let f = self.inflight.get_mut(&line)?;
        f.left -= 1;
        f.back |= 1 << part;
        let mut answer = Vec::new();
        f.waiting.retain(|w| {
            if w.part == part {
                answer.push(w.payload);
            }
            w.part != part
        });
        let (complete, used) = (f.left == 0, f.used);
        if complete {
            self.inflight.remove(&line);
            if !self.into_l1 && self.cache.fill(line, used) {
                self.stats.early_evicted += 1;
                self.backlog.early += 1;
            }
        }
        Some(Filled {
            line,
            answer,
            complete,
            used,
            into_l1: self.into_l1,
        })
    }

    /// One core cycle: the prefetcher's (training, events, launch), and its prefetches join
    /// the queue unless redundant. `in_l1` says whether the L1 holds a line.
    pub fn cycle(&mut self, in_l1: impl Fn(u64) -> bool) -> Result<(), String> {
        let launch = std::mem::take(&mut self.launch);
        let tick = Tick {
            launch,
            train: if launch {
                None
            } else {
                self.train.front().copied()
            },
            events: self.backlog.take_one_each(),
        };
        let p = self.prefetcher.cycle(&tick, &mut self.stats)?;
        let s = &mut self.stats;
        if p.took {
            self.train.pop_front();
            s.trained += 1;
        }
        for &a in p.addrs {
            s.candidates += 1;
            let line = a & self.line_mask;
            if self.cache.find(line).is_some()
                || self.inflight.contains_key(&line)
                || self.queue.contains(&line)
                || in_l1(line)
            {
                s.redundant += 1;
            } else if self.queue.len() >= PREFETCH_QUEUE {
                s.queue_dropped += 1;
            } else {
                self.queue.push_back(line);
            }
        }
        Ok(())
    }

    /// Nothing in flight or waiting (the SM may be idle).
    pub fn quiet(&self) -> bool {
        self.inflight.is_empty() && self.queue.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spec::ConfigRequest;

    fn unit(sets: &[&str]) -> PrefetchUnit {
        let mut all = vec!["prefetch.kind=mt-hwp"];
        all.extend(sets);
        let s = ConfigRequest::preset("turing-rtx2060s")
            .resolve()
            .unwrap()
            .variant(&all)
            .unwrap();
        PrefetchUnit::new(&s).unwrap()
    }

    fn p(k: u32) -> Payload {
        Payload::from_bits(k)
    }

    /// Queue `line` and send its parts; the addresses sent.
    fn send(u: &mut PrefetchUnit, line: u64) -> Vec<u64> {
        u.queue.push_back(line);
        let mut sent = Vec::new();
        while let Some(a) = u.peek() {
            sent.push(a);
            u.sent();
        }
        sent
    }

    /// A line is fetched in the L2's units (four 32 B sectors of a 128 B line on
    /// turing-rtx2060s), is in flight from its first part, and fills with its last; a demand
    /// load of it after its last part was sent waits for it (late) and is answered with the
    /// fill, one before goes on to the L1.
    #[test]
    fn a_line_is_prefetched_in_parts_and_fills_with_the_last() {
        let mut u = unit(&[]);
        u.queue.push_back(0x1000);
        let mut sent = Vec::new();
        while let Some(a) = u.peek() {
            sent.push(a);
            u.sent();
            if sent.len() == 1 {
                assert_eq!(u.demand(0x1000, p(6)), Demand::Miss, "parts left to send");
            }
        }
        assert_eq!(sent, [0x1000, 0x1020, 0x1040, 0x1060]);
        assert_eq!(u.stats.issued, 1);
        assert_eq!(u.backlog.request, 4);
        assert_eq!(u.demand(0x1044, p(7)), Demand::Merged);
        let f = u.fill(0x1000).unwrap();
        assert!(f.answer.is_empty() && !f.complete);
        // A part back answers its loads as the prefetch cache would.
        assert_eq!(u.demand(0x1010, p(8)), Demand::Hit);
        assert!(u.fill(0x1060).unwrap().answer.is_empty());
        let f = u.fill(0x1040).unwrap();
        assert_eq!(
            (&f.answer[..], f.complete),
            (&[p(7)][..], false),
            "part 2 answers load 7"
        );
        let f = u.fill(0x1020).unwrap();
        assert_eq!(
            (f.line, f.complete, f.used, f.into_l1),
            (0x1000, true, true, false)
        );
        assert_eq!(
            (u.stats.late, u.stats.useful, u.stats.hits),
            (1, 0, 1),
            "used once: late"
        );
        // Now in the prefetch cache, already used.
        assert_eq!(u.demand(0x1000, p(9)), Demand::Hit);
        assert_eq!((u.stats.hits, u.stats.useful), (2, 0));
        assert!(u.fill(0x1000).is_none(), "no longer in flight");
    }

    /// Prefetching into the L1: a filled line is for the L1 to install; its first demand load
    /// is a useful prefetch (and goes on to the L1); a line the L1 evicts unused is an early
    /// eviction, a used one or one a store dropped is not; a line the L1 could not install is
    /// counted and forgotten.
    #[test]
    fn prefetching_into_the_l1_counts_useful_and_early_from_the_l1s_lines() {
        let mut u = unit(&["prefetch.into_l1=true"]);
        for line in [0x1000u64, 0x2000, 0x3000, 0x4000] {
            send(&mut u, line);
            let mut filled = None;
            for k in 0..4 {
                filled = u.fill(line + 32 * k);
            }
            let f = filled.unwrap();
            assert!(f.into_l1 && f.complete && f.answer.is_empty() && !f.used);
            u.installed(&f, line != 0x4000);
        }
        assert_eq!(u.stats.fill_dropped, 1);
        assert_eq!(u.demand(0x1010, p(1)), Demand::Miss, "on to the L1");
        assert_eq!((u.stats.hits, u.stats.useful), (1, 1));
        assert_eq!(u.demand(0x1030, p(2)), Demand::Miss);
        assert_eq!((u.stats.hits, u.stats.useful), (2, 1), "used once");
        u.store(0x3008);
        for line in [0x1000, 0x2000, 0x3000, 0x4000] {
            u.evicted(line);
        }
        assert_eq!(u.stats.early_evicted, 1, "0x2000 only");
        assert_eq!(u.backlog.early, 1);
        assert!(u.in_l1.is_empty());
        // The prefetch cache was not used.
        assert_eq!(u.demand(0x2000, p(3)), Demand::Miss);
        assert_eq!(u.stats.hits, 2);
    }

    /// The backlog feeds one event of each kind per cycle, the rest later.
    #[test]
    fn the_backlog_feeds_one_of_each_kind_a_cycle() {
        let mut b = Backlog {
            useful: 2,
            early: 0,
            merge: 1,
            request: 3,
        };
        let e = b.take_one_each();
        assert_eq!(
            (e.useful, e.early, e.merge, e.request),
            (true, false, true, true)
        );
        assert_eq!((b.useful, b.early, b.merge, b.request), (1, 0, 0, 2));
    }
}
