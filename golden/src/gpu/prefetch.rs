//! An SM's prefetcher (seed 001): the MT-HWP engine (the very block model that is
//! co-simulated), its prefetch cache, the prefetches in flight and the events its throttle
//! counts. The SM trains it with every global load, asks it about every demand access before
//! the L1, sends its prefetches when the port has no demand request, and fills it with their
//! replies.
//!
//! * Training: one access per warp global load (its first request's address), queued (up to
//!   [`TRAIN_QUEUE`]) and offered to the engine until it takes it.
//! * A prediction's prefetch addresses are line-aligned and dropped when the line is in the
//!   prefetch cache, the L1, in flight or already queued ("redundant"); the others wait in a
//!   queue of [`PREFETCH_QUEUE`] lines (a full queue drops them). A line is sent in requests
//!   of the L2's fetch unit (four sectors of a 128 B line on a sector L2), marked as
//!   prefetches down to the DRAM controllers.
//! * A demand load that finds its line in the prefetch cache is answered after the ALU
//!   latency (seed 001: "the same latency as other computational instructions"); the line's
//!   first such use is a useful prefetch. A demand load whose line is being prefetched (every
//!   part sent) waits for its part: an intra-core merge, and a late prefetch. A store
//!   invalidates the line.
//! * With `prefetch.into_l1` the prefetch cache is not used: a line whose parts are back is
//!   installed in the L1, and the prefetcher keeps which of its lines the L1 still holds (the
//!   L1 reports its evictions) to count useful prefetches and early evictions.
//! * A prefetched line evicted before any use is an early eviction.
//! * The throttle's events, one of each kind per cycle at most on the engine's ports, are
//!   counted here and fed as they come (a backlog is carried to later cycles): useful
//!   prefetches, early evictions, intra-core merges (a demand load merging in the L1's MSHRs or
//!   with a prefetch in flight) and requests (every request that entered the miss path: sent to
//!   the memory side, or merged).

use crate::block::CycleModel;
use crate::prefetch::{Access, MtHwp, PfIn, PfOut};
use rustc_hash::FxHashMap;
use serde::Serialize;
use spec::{PrefetchKind, Spec};
use std::collections::VecDeque;

/// Training accesses waiting for the engine.
pub const TRAIN_QUEUE: usize = 4;
/// Prefetch lines waiting for the port.
pub const PREFETCH_QUEUE: usize = 16;

/// The throttle's events, in the order of the engine's ports (`ev_*_i`): indices into the
/// backlog.
const USEFUL: usize = 0;
const EARLY: usize = 1;
const MERGE: usize = 2;
const REQUEST: usize = 3;

/// What the prefetcher of one SM (or the GPU) did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PrefetchStats {
    /// Training accesses taken by the engine, and those dropped because its queue was full.
    pub trained: u64,
    pub train_dropped: u64,
    /// Predictions the engine made, and those its throttle dropped.
    pub predictions: u64,
    pub throttled: u64,
    /// Prefetch addresses the engine issued; dropped as redundant or for a full queue.
    pub candidates: u64,
    pub redundant: u64,
    pub queue_dropped: u64,
    /// Prefetches sent to the memory side.
    pub issued: u64,
    /// Prefetched lines whose first demand use came after their fill (timely).
    pub useful: u64,
    /// Demand loads that merged with a prefetch in flight (late prefetches).
    pub late: u64,
    /// Prefetched lines evicted from the prefetch cache (or the L1) before any use.
    pub early_evicted: u64,
    /// Prefetched lines the L1 could not install (their dirty victim found its miss queue
    /// full; prefetching into the L1).
    pub fill_dropped: u64,
    /// Demand loads answered by the prefetch cache.
    pub hits: u64,
    /// Demand global loads (line requests) seen, and those that missed everything.
    pub demand: u64,
    /// Throttle updates, and cycles spent at each degree (summed over SMs).
    pub throttle_updates: u64,
    pub degree_cycles: [u64; 6],
    /// The throttle degree at each update, in order (one SM's, or every SM's in turn).
    pub degree_trace: Vec<u8>,
}

impl PrefetchStats {
    pub fn add(&mut self, o: &PrefetchStats) {
        self.trained += o.trained;
        self.train_dropped += o.train_dropped;
        self.predictions += o.predictions;
        self.throttled += o.throttled;
        self.candidates += o.candidates;
        self.redundant += o.redundant;
        self.queue_dropped += o.queue_dropped;
        self.issued += o.issued;
        self.useful += o.useful;
        self.late += o.late;
        self.early_evicted += o.early_evicted;
        self.fill_dropped += o.fill_dropped;
        self.hits += o.hits;
        self.demand += o.demand;
        self.throttle_updates += o.throttle_updates;
        for (a, b) in self.degree_cycles.iter_mut().zip(o.degree_cycles) {
            *a += b;
        }
    }

    /// Accuracy: prefetches a demand load used (timely or late) per prefetch issued.
    pub fn accuracy(&self) -> f64 {
        (self.useful + self.late) as f64 / self.issued.max(1) as f64
    }

    /// Coverage: demand line requests served by a prefetch (a hit or a late merge) per demand
    /// line request.
    pub fn coverage(&self) -> f64 {
        (self.hits + self.late) as f64 / self.demand.max(1) as f64
    }

    /// The mean throttle degree over the run.
    pub fn mean_degree(&self) -> f64 {
        let n: u64 = self.degree_cycles.iter().sum();
        let s: u64 = self
            .degree_cycles
            .iter()
            .enumerate()
            .map(|(d, c)| d as u64 * c)
            .sum();
        s as f64 / n.max(1) as f64
    }
}

/// One way of the prefetch cache.
#[derive(Debug, Clone, Copy, Default)]
struct Way {
    line: u64,
    valid: bool,
    used: bool,
    stamp: u64,
}

/// The prefetch cache: set-associative, LRU, with a used bit per line (what early evictions
/// and useful prefetches are counted from). Hand-written rather than a `mem::cache::TagArray`,
/// which keeps no such bit.
#[derive(Debug, Clone)]
struct PfCache {
    ways: Vec<Way>,
    assoc: usize,
    sets: u64,
    line_bits: u32,
    clock: u64,
}

impl PfCache {
    fn new(sets: u32, assoc: u32, line_bytes: u32) -> PfCache {
        PfCache {
            ways: vec![Way::default(); (sets * assoc) as usize],
            assoc: assoc as usize,
            sets: sets.into(),
            line_bits: line_bytes.trailing_zeros(),
            clock: 0,
        }
    }

    fn range(&self, line: u64) -> std::ops::Range<usize> {
        let set = ((line >> self.line_bits) % self.sets) as usize;
        set * self.assoc..(set + 1) * self.assoc
    }

    fn find(&self, line: u64) -> Option<usize> {
        self.range(line)
            .find(|&i| self.ways[i].valid && self.ways[i].line == line)
    }

    /// A demand load of `line`: whether it hit, and whether this was the line's first use.
    fn demand(&mut self, line: u64) -> Option<bool> {
        let i = self.find(line)?;
        self.clock += 1;
        let w = &mut self.ways[i];
        w.stamp = self.clock;
        Some(!std::mem::replace(&mut w.used, true))
    }

    /// Fill `line` (already used when a demand load waited for it); whether the victim was an
    /// unused prefetched line.
    fn fill(&mut self, line: u64, used: bool) -> bool {
        self.clock += 1;
        if let Some(i) = self.find(line) {
            self.ways[i].stamp = self.clock;
            self.ways[i].used |= used;
            return false;
        }
        let r = self.range(line);
        let i = r
            .clone()
            .find(|&i| !self.ways[i].valid)
            .unwrap_or_else(|| r.min_by_key(|&i| self.ways[i].stamp).unwrap_or(0));
        let early = self.ways[i].valid && !self.ways[i].used;
        self.ways[i] = Way {
            line,
            valid: true,
            used,
            stamp: self.clock,
        };
        early
    }

    fn invalidate(&mut self, line: u64) {
        if let Some(i) = self.find(line) {
            self.ways[i].valid = false;
        }
    }
}

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

/// A watch on one SM's engine (co-simulation in place): `hook` sees its inputs and outputs
/// every cycle it steps.
pub type PfHook<'h> = dyn FnMut(&PfIn, &PfOut) -> Result<(), String> + 'h;

/// A prefetch in flight: the parts of its line not yet back and those back (a bit per part, at
/// most 64: `gpu.line_bytes` <= 1024, fetch units >= 16 B), whether every part was sent,
/// whether a demand load used it, and the demand loads (payload, part) waiting for a part.
#[derive(Debug, Clone, Default)]
struct InFlight {
    left: u32,
    back: u64,
    sent: bool,
    used: bool,
    waiting: Vec<(u32, u32)>,
}

/// A prefetch reply ([`Prefetcher::fill`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filled {
    pub line: u64,
    /// The demand loads that waited for this part, to be answered.
    pub answer: Vec<u32>,
    /// The line's last part: it fills the prefetch cache, or with `into_l1` the L1 is to
    /// install it (then report with [`Prefetcher::installed`]); `used`: a demand load used it.
    pub complete: bool,
    pub used: bool,
    pub into_l1: bool,
}

/// The prefetcher of one SM.
pub struct Prefetcher {
    engine: MtHwp,
    line_mask: u64,
    pc_mask: u64,
    addr_mask: u64,
    /// A line is fetched in `parts` requests of `part_bytes` (the L2's fetch unit: four 32 B
    /// sectors of a 128 B line in a sector L2, one request in a line L2); `sending`: those of
    /// the queue's head line already sent.
    parts: u32,
    part_bytes: u64,
    sending: u32,
    cache: PfCache,
    /// `prefetch.into_l1`: prefetched lines fill the L1, and `in_l1` holds those the L1 still
    /// has, with whether a demand load used them (the prefetch cache's used bit, for lines
    /// in the L1).
    into_l1: bool,
    in_l1: FxHashMap<u64, bool>,
    train: VecDeque<Access>,
    queue: VecDeque<u64>,
    /// Prefetches in flight, by line.
    inflight: FxHashMap<u64, InFlight>,
    /// Events not yet fed to the engine, by [`USEFUL`], [`EARLY`], [`MERGE`], [`REQUEST`].
    backlog: [u64; 4],
    launch: bool,
    stats: PrefetchStats,
}

impl Prefetcher {
    /// The prefetcher `spec.prefetch` describes (`None` for `kind = none`).
    pub fn new(spec: &Spec) -> Option<Prefetcher> {
        let p = &spec.prefetch;
        if p.kind == PrefetchKind::None {
            return None;
        }
        let line = spec.gpu.line_bytes;
        let part = spec.l2.fetch_bytes().min(line);
        Some(Prefetcher {
            engine: MtHwp::new(p),
            line_mask: !(u64::from(line) - 1),
            pc_mask: crate::block::mask(p.pc_bits),
            addr_mask: crate::block::mask(p.addr_bits),
            parts: (line / part).max(1),
            part_bytes: part.into(),
            sending: 0,
            cache: PfCache::new(p.cache_sets, p.cache_ways, line),
            into_l1: p.into_l1,
            in_l1: FxHashMap::default(),
            train: VecDeque::new(),
            queue: VecDeque::new(),
            inflight: FxHashMap::default(),
            backlog: [0; 4],
            launch: false,
            stats: PrefetchStats::default(),
        })
    }

    pub fn stats(&self) -> &PrefetchStats {
        &self.stats
    }

    /// A kernel launch: the engine's tables are emptied at its next step.
    pub fn launch(&mut self) {
        self.launch = true;
    }

    /// A warp global load issued: `pc`, the warp's slot, its first request's address.
    pub fn train(&mut self, pc: u64, warp: u32, addr: u64) {
        if self.train.len() >= TRAIN_QUEUE {
            self.stats.train_dropped += 1;
            return;
        }
        self.train.push_back(Access {
            pc: pc & self.pc_mask,
            wid: warp,
            addr: addr & self.addr_mask,
        });
    }

    /// A demand load of `addr` (payload `p`) reaches the prefetcher before the L1. Prefetching
    /// into the L1, a load of a prefetched line the L1 holds goes on to the L1 (a miss here)
    /// and counts as a prefetch cache hit would.
    pub fn demand(&mut self, addr: u64, p: u32) -> Demand {
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
                self.backlog[USEFUL] += 1;
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
                    self.backlog[USEFUL] += 1;
                }
                return Demand::Hit;
            }
            if first {
                self.stats.late += 1;
            }
            f.waiting.push((p, part));
            self.backlog[MERGE] += 1;
            self.backlog[REQUEST] += 1;
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
            self.backlog[EARLY] += 1;
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
        self.backlog[MERGE] += merges;
        self.backlog[REQUEST] += merges + sent;
    }

    /// The address of the next prefetch request to send, if any (the caller sends it when the
    /// port is free): the next part of the queue's head line.
    pub fn peek(&self) -> Option<u64> {
        let line = self.queue.front()?;
        Some(line + u64::from(self.sending) * self.part_bytes)
    }

    /// The request [`Prefetcher::peek`] showed was taken by the memory side. A line is in
    /// flight from its first part, leaves the queue with its last, and from then on a demand
    /// load of it waits for it.
    pub fn sent(&mut self) {
        let Some(&line) = self.queue.front() else {
            return;
        };
        self.backlog[REQUEST] += 1;
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
        f.waiting.retain(|&(p, q)| {
            if q == part {
                answer.push(p);
            }
            q != part
        });
        let (complete, used) = (f.left == 0, f.used);
        if complete {
            self.inflight.remove(&line);
            if !self.into_l1 && self.cache.fill(line, used) {
                self.stats.early_evicted += 1;
                self.backlog[EARLY] += 1;
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

    /// One core cycle: the engine steps (training, events, launch), and its prefetches join the
    /// queue unless redundant. `in_l1` says whether the L1 holds a line. `hook` watches the
    /// engine (co-simulation).
    pub fn cycle(
        &mut self,
        in_l1: &dyn Fn(u64) -> bool,
        hook: Option<&mut PfHook<'_>>,
    ) -> Result<(), String> {
        let ready = self.engine.out().acc_ready;
        let launch = std::mem::take(&mut self.launch);
        let mut ev = [false; 4];
        for (e, b) in ev.iter_mut().zip(&mut self.backlog) {
            if *b > 0 {
                *b -= 1;
                *e = true;
            }
        }
        let inp = PfIn {
            launch,
            acc: if launch {
                None
            } else {
                self.train.front().copied()
            },
            useful: ev[USEFUL],
            early: ev[EARLY],
            merge: ev[MERGE],
            request: ev[REQUEST],
        };
        let o = *self
            .engine
            .step(&inp)
            .map_err(|e| format!("the MT-HWP engine refused its input: {e}"))?;
        if let Some(h) = hook {
            h(&inp, &o)?;
        }
        if inp.acc.is_some() && ready {
            self.train.pop_front();
            self.stats.trained += 1;
        }
        let s = &mut self.stats;
        s.degree_cycles[(o.degree as usize).min(5)] += 1;
        if o.update {
            s.throttle_updates += 1;
            s.degree_trace.push(o.degree as u8);
        }
        if o.pf_valid && o.src != spec::PfSource::None {
            s.predictions += 1;
            s.throttled += u64::from(o.drop);
        }
        for &a in o.prefetches() {
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

    fn prefetcher(sets: &[&str]) -> Prefetcher {
        let mut all = vec!["prefetch.kind=mt-hwp"];
        all.extend(sets);
        let s = ConfigRequest::preset("turing-rtx2060s")
            .resolve()
            .unwrap()
            .variant(&all)
            .unwrap();
        Prefetcher::new(&s).unwrap()
    }

    /// Queue `line` and send its parts; the number sent.
    fn send(p: &mut Prefetcher, line: u64) -> Vec<u64> {
        p.queue.push_back(line);
        let mut sent = Vec::new();
        while let Some(a) = p.peek() {
            sent.push(a);
            p.sent();
        }
        sent
    }

    /// A line is fetched in the L2's units (four 32 B sectors of a 128 B line on
    /// turing-rtx2060s), is in flight from its first part, and fills with its last; a demand
    /// load of it after its last part was sent waits for it (late) and is answered with the
    /// fill, one before goes on to the L1.
    #[test]
    fn a_line_is_prefetched_in_parts_and_fills_with_the_last() {
        let mut p = prefetcher(&[]);
        p.queue.push_back(0x1000);
        let mut sent = Vec::new();
        while let Some(a) = p.peek() {
            sent.push(a);
            p.sent();
            if sent.len() == 1 {
                assert_eq!(p.demand(0x1000, 6), Demand::Miss, "parts left to send");
            }
        }
        assert_eq!(sent, [0x1000, 0x1020, 0x1040, 0x1060]);
        assert_eq!(p.stats.issued, 1);
        assert_eq!(p.backlog[REQUEST], 4);
        assert_eq!(p.demand(0x1044, 7), Demand::Merged);
        let f = p.fill(0x1000).unwrap();
        assert!(f.answer.is_empty() && !f.complete);
        // A part back answers its loads as the prefetch cache would.
        assert_eq!(p.demand(0x1010, 8), Demand::Hit);
        assert!(p.fill(0x1060).unwrap().answer.is_empty());
        let f = p.fill(0x1040).unwrap();
        assert_eq!(
            (&f.answer[..], f.complete),
            (&[7][..], false),
            "part 2 answers load 7"
        );
        let f = p.fill(0x1020).unwrap();
        assert_eq!(
            (f.line, f.complete, f.used, f.into_l1),
            (0x1000, true, true, false)
        );
        assert_eq!(
            (p.stats.late, p.stats.useful, p.stats.hits),
            (1, 0, 1),
            "used once: late"
        );
        // Now in the prefetch cache, already used.
        assert_eq!(p.demand(0x1000, 9), Demand::Hit);
        assert_eq!((p.stats.hits, p.stats.useful), (2, 0));
        assert!(p.fill(0x1000).is_none(), "no longer in flight");
    }

    /// Prefetching into the L1: a filled line is for the L1 to install; its first demand load
    /// is a useful prefetch (and goes on to the L1); a line the L1 evicts unused is an early
    /// eviction, a used one or one a store dropped is not; a line the L1 could not install is
    /// counted and forgotten.
    #[test]
    fn prefetching_into_the_l1_counts_useful_and_early_from_the_l1s_lines() {
        let mut p = prefetcher(&["prefetch.into_l1=true"]);
        for line in [0x1000u64, 0x2000, 0x3000, 0x4000] {
            send(&mut p, line);
            let mut filled = None;
            for k in 0..4 {
                filled = p.fill(line + 32 * k);
            }
            let f = filled.unwrap();
            assert!(f.into_l1 && f.complete && f.answer.is_empty() && !f.used);
            p.installed(&f, line != 0x4000);
        }
        assert_eq!(p.stats.fill_dropped, 1);
        assert_eq!(p.demand(0x1010, 1), Demand::Miss, "on to the L1");
        assert_eq!((p.stats.hits, p.stats.useful), (1, 1));
        assert_eq!(p.demand(0x1030, 2), Demand::Miss);
        assert_eq!((p.stats.hits, p.stats.useful), (2, 1), "used once");
        p.store(0x3008);
        for line in [0x1000, 0x2000, 0x3000, 0x4000] {
            p.evicted(line);
        }
        assert_eq!(p.stats.early_evicted, 1, "0x2000 only");
        assert_eq!(p.backlog[EARLY], 1);
        assert!(p.in_l1.is_empty());
        // The prefetch cache was not used.
        assert_eq!(p.demand(0x2000, 3), Demand::Miss);
        assert_eq!(p.stats.hits, 2);
    }
}
