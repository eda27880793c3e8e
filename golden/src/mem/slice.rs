//! A cache slice as a streaming component (an L2 slice of a memory sub-partition): requests are
//! offered (refused when its input queue is full), each cycle it takes at most one request from
//! that queue into its tag array, and it hands out responses and the fetches and write-backs
//! for the next level (the DRAM), whose fills it takes back.
//!
//! Per cycle (`tick`), the request at the head of the input queue:
//! * to a line or sector with a fill outstanding: merges into its MSHR entry (answered with the
//!   fill); refused when the entry is full (reservation failure, *merge full*; it stays at the
//!   head and is retried next cycle);
//! * otherwise it accesses the tag array: a hit is answered `latency` cycles later; a miss that
//!   fetches takes an MSHR entry and sends the fetch through the miss queue, and the eviction of
//!   a line with dirty sectors sends its write-back; a write that goes on (write-through, no
//!   allocation) is sent too, and is answered after `latency` like a hit. Before the tag array
//!   changes, the resources are checked (an MSHR entry for a fetch, two miss-queue places for a
//!   fetch and a possible write-back): when one is missing the request is refused (reservation
//!   failure by cause) and nothing changes.
//! * A fill frees its MSHR entry and answers every merged request `latency` cycles later.
//! * A prefetch (seed 001) the slice refuses does not hold back the requests behind it: while
//!   it waits at the head, the first request behind it that is not itself a refused prefetch
//!   is served in its place, if it would be taken (decision MEM-29). A demand request keeps
//!   GPGPU-Sim's in-order queue.
//!
//! One access per cycle models a data port at least as wide as a request (32 B sectors on a
//! 32 B port in every reference configuration). A banked slice (an SM's L1 under
//! `gpu.l1_banks`, [`Slice::set_banks`]) takes, after its head, more requests in the same cycle
//! in queue order, each to another bank (32-byte sectors interleaved), while each would be taken;
//! the first that would not, or whose bank is taken, waits for the next cycle (decision GPU-34).

use super::cache::{Eviction, Found, Outcome, TagArray};
use super::mshr::{Added, Lookup, MshrTable};
pub use super::slice_stats::{AccessKind, KindStats, SliceStats, Stall};
use crate::stream::{Component, Offer};
use serde::Serialize;
use spec::cache::CacheString;
use std::collections::VecDeque;

/// A request to the slice; `payload` comes back with its response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SliceRequest<P> {
    pub addr: u64,
    pub write: bool,
    pub payload: P,
    /// What it is, for the statistics by kind (the slice's behaviour depends on `write` only).
    pub kind: AccessKind,
}

/// What an access did, as [`Slice`] counts it.
#[derive(Debug, Clone, Copy)]
enum Counted {
    Hit,
    SectorMiss,
    Miss,
    MshrMerge,
}

/// A request for the next level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fetch<P> {
    pub addr: u64,
    /// A write (a write-back or a write that goes on), else a read fill.
    pub write: bool,
    /// Bytes: a sector, a line, or a write-back's dirty sectors.
    pub bytes: u32,
    /// The request that caused it (none for a write-back of an evicted line): the miss path
    /// keeps who asked (a memory controller scheduling by warp reads it).
    pub origin: Option<P>,
}

/// A cache slice (an L2 slice, or an SM's L1). (Fields in this order, `repr(C)`: those every
/// cycle reads first, the statistics last.)
#[derive(Debug, Clone)]
#[repr(C)]
pub struct Slice<P> {
    now: u64,
    latency: u64,
    input: VecDeque<SliceRequest<P>>,
    miss_queue: VecDeque<Fetch<P>>,
    /// Answers in flight: (cycle ready, payload, who served it), in ready order.
    answering: VecDeque<(u64, P, Served)>,
    input_cap: usize,
    miss_cap: usize,
    /// Banks (accesses a cycle, each to another bank), a power of two.
    banks: u32,
    seen: u8,
    /// The last cycle refused its head ([`Slice::cycle`], [`Slice::repeat`]).
    refused: bool,
    /// A write that goes on to the next level is answered when that level acknowledges it
    /// (by the caller), not by the slice ([`Slice::answer_writes_on_ack`]).
    ack_writes: bool,
    mshr: MshrTable<P>,
    tags: TagArray,
    /// The totals; the counts by kind and the failures by cause are kept in `kinds` (a bit in
    /// `seen` per kind counted) and `stalls`, indexed by the enums' order, and put in the maps
    /// by [`Slice::stats`] (no map lookup per access).
    stats: SliceStats,
    kinds: [KindStats; AccessKind::ALL.len()],
    stalls: [u64; Stall::ALL.len()],
    /// The lines evicted since [`Slice::take_evictions`], when kept ([`Slice::keep_evictions`]).
    evictions: Option<Vec<u64>>,
    /// The reads that missed (a line allocated for them) since [`Slice::take_misses`], when
    /// kept ([`Slice::keep_misses`]): address and requester.
    misses: Option<Vec<(u64, P)>>,
}

/// Where an answered request's data came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Served {
    /// The slice itself: a hit, or a write it took (or sent on) without waiting.
    Slice,
    /// The next level: the request waited for a fill.
    NextLevel,
}

/// What a request's access would do ([`Slice::prepare`]).
#[derive(Debug, Clone, Copy)]
enum Prepared {
    /// Merge into the MSHR entry found.
    Merge(Lookup),
    /// Access the tag array at the way found.
    Access(Lookup, Found),
}

/// What a cycle of a slice with requests queued does ([`Slice::choose`]).
enum Choice {
    /// Serve the request `at` in the input queue, which finds `found`; `passed`: the refusal
    /// of the prefetch at the head it passes (counted).
    Take {
        at: usize,
        found: Prepared,
        passed: Option<Stall>,
    },
    /// Refuse the head (counted), and serve none.
    Refuse(Stall),
}

/// What the next cycle does with the head of a slice's input queue ([`Slice::head`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Head {
    /// No request is queued.
    Empty,
    /// It is refused (a reservation failure of this cause, for an access of this kind), and
    /// will be every cycle until a fill arrives, a fetch is taken or the lines are
    /// invalidated.
    Refused(Stall, AccessKind),
    /// It is taken: the slice changes.
    Taken,
}

impl<P: Copy> Slice<P> {
    /// A slice of cache string `cfg` with `latency` cycles from access to answer and an input
    /// queue of `input_cap` requests. The miss queue holds the string's `mq` (at least 2).
    pub fn new(cfg: CacheString, latency: u64, input_cap: usize) -> Slice<P> {
        Slice {
            mshr: MshrTable::new(&cfg),
            miss_cap: (cfg.miss_queue as usize).max(2),
            tags: TagArray::new(cfg),
            latency,
            input: VecDeque::new(),
            input_cap: input_cap.max(1),
            banks: 1,
            miss_queue: VecDeque::new(),
            answering: VecDeque::new(),
            now: 0,
            stats: SliceStats::default(),
            kinds: [KindStats::default(); AccessKind::ALL.len()],
            seen: 0,
            refused: false,
            stalls: [0; Stall::ALL.len()],
            evictions: None,
            misses: None,
            ack_writes: false,
        }
    }

    /// Give it `banks` banks (a power of two; an SM's L1 under `gpu.l1_banks`): up to that many
    /// accesses a cycle, each to another 32-byte-interleaved bank ([`Slice::bank_of`]).
    pub fn set_banks(&mut self, banks: u32) {
        debug_assert!(banks.is_power_of_two());
        self.banks = banks.max(1);
    }

    /// The bank of `addr`: its 32-byte sector's number modulo the banks (GPGPU-Sim's linear
    /// `-gpgpu_l1_banks_hashing_function 0` at `-gpgpu_l1_banks_byte_interleaving 32`).
    pub fn bank_of(&self, addr: u64) -> u32 {
        (addr >> 5) as u32 & (self.banks - 1)
    }

    /// Its banks ([`Slice::set_banks`]).
    pub fn banks(&self) -> u32 {
        self.banks
    }

    /// Leave a write that goes on to the next level (written through, or into a read-only
    /// cache) unanswered: its requester answers it when the next level acknowledges it (an
    /// SM's L1, whose stores complete at the L2 as GPGPU-Sim's do). Its fetch carries it as
    /// its origin.
    pub fn answer_writes_on_ack(&mut self) {
        self.ack_writes = true;
    }

    /// From now on, keep the address of every line evicted (for [`Slice::take_evictions`]).
    pub fn keep_evictions(&mut self) {
        self.evictions.get_or_insert_with(Vec::new);
    }

    /// The lines evicted since the last call (when kept), in order.
    pub fn take_evictions(&mut self) -> impl Iterator<Item = u64> + '_ {
        self.evictions.iter_mut().flat_map(|v| v.drain(..))
    }

    /// From now on, keep every read that misses (for [`Slice::take_misses`]).
    pub fn keep_misses(&mut self) {
        self.misses.get_or_insert_with(Vec::new);
    }

    /// The reads that missed since the last call (when kept), in order: address and requester.
    pub fn take_misses(&mut self) -> impl Iterator<Item = (u64, P)> + '_ {
        self.misses.iter_mut().flat_map(|v| v.drain(..))
    }

    /// A line left: noted when evictions are kept, and written back when dirty (a place in
    /// the miss queue was checked for it).
    fn evicted(&mut self, e: Eviction) {
        if let Some(v) = &mut self.evictions {
            v.push(e.addr);
        }
        if e.dirty == 0 {
            return;
        }
        let sector = spec::cache::SECTOR_BYTES;
        self.stats.writebacks += 1;
        // Its dirty sectors, or a line cache's whole line (one dirty bit).
        let bytes = match self.tags.config().kind {
            spec::cache::CacheKind::Sector => e.dirty.count_ones() * sector,
            spec::cache::CacheKind::Line => self.tags.config().atom_bytes(),
        };
        self.miss_queue.push_back(Fetch {
            addr: e.addr,
            write: true,
            bytes,
            origin: None,
        });
    }

    /// A prefetched line arrived (seed 001, into the L1): its whole line installed, every sector
    /// valid, as a read miss allocates (LRU victim, written back if dirty), no MSHR entry and
    /// nothing to answer; refused (false, no change) if the victim is dirty and the queue full.
    pub fn install(&mut self, addr: u64) -> bool {
        if self.tags.install_evicts_dirty(addr) && self.miss_queue.len() >= self.miss_cap {
            return false;
        }
        if let Some(e) = self.tags.install(addr) {
            self.evicted(e);
        }
        true
    }

    /// A host copy wrote `addr`'s sector ([`TagArray::fill_copied`], decision MEM-24).
    pub fn fill_copied(&mut self, addr: u64) {
        self.tags.fill_copied(addr);
    }

    pub fn now(&self) -> u64 {
        self.now
    }

    /// Its counters.
    pub fn stats(&self) -> SliceStats {
        let mut s = self.stats.clone();
        for (k, v) in AccessKind::ALL.iter().zip(&self.kinds) {
            if self.seen >> *k as u8 & 1 != 0 {
                s.by_kind.insert(*k, *v);
            }
        }
        for (k, &v) in Stall::ALL.iter().zip(&self.stalls) {
            if v > 0 {
                s.reservation_failures.insert(*k, v);
            }
        }
        s
    }

    /// Requests merged into MSHR entries so far (what [`Slice::stats`] counts, without
    /// building the rest).
    pub fn mshr_merges(&self) -> u64 {
        self.stats.mshr_merges
    }

    /// Requests inside (queued, waiting for a fill, or being answered).
    pub fn busy(&self) -> usize {
        self.input.len() + self.mshr.waiting() + self.answering.len()
    }

    /// Offer a request (it joins the input queue unless that is full).
    pub fn offer(&mut self, r: SliceRequest<P>) -> Offer {
        if self.input.len() >= self.input_cap {
            return Offer::Refused;
        }
        self.input.push_back(r);
        Offer::Accepted
    }

    fn fail(&mut self, why: Stall, kind: AccessKind) {
        self.stalls[why as usize] += 1;
        self.seen |= 1 << kind as u8;
        self.kinds[kind as usize].reservation_failures += 1;
    }

    /// Count one access of `kind` and what it did, in the totals and in its kind's counts.
    fn count(&mut self, kind: AccessKind, what: Counted) {
        let st = &mut self.stats;
        self.seen |= 1 << kind as u8;
        let k = &mut self.kinds[kind as usize];
        st.accesses += 1;
        k.accesses += 1;
        let (total, of_kind) = match what {
            Counted::Hit => (&mut st.hits, &mut k.hits),
            Counted::SectorMiss => (&mut st.sector_misses, &mut k.sector_misses),
            Counted::Miss => (&mut st.misses, &mut k.misses),
            Counted::MshrMerge => (&mut st.mshr_merges, &mut k.mshr_merges),
        };
        *total += 1;
        *of_kind += 1;
    }

    fn answer(&mut self, p: P, by: Served) {
        self.answering.push_back((self.now + self.latency, p, by));
    }

    /// One cycle: the head request's access, or the one served past a refused prefetch (see
    /// the module documentation).
    pub fn cycle(&mut self) {
        let Some(&head) = self.input.front() else {
            self.refused = false;
            self.now += 1;
            return;
        };
        // Unit tests check that the cycle does what `head` says it would.
        #[cfg(test)]
        let (said, stalls) = (self.head(), self.stalls);
        let (refusal, pick) = match self.choose() {
            Choice::Take { at, found, passed } => (passed, Some((at, found))),
            Choice::Refuse(why) => (Some(why), None),
        };
        if let Some(why) = refusal {
            self.fail(why, head.kind);
        }
        let mut taken = false;
        if let Some((i, p)) = pick {
            let r = self.input[i];
            taken = self.take(r, p);
            debug_assert!(taken, "a prepared access was refused");
            if taken {
                if i == 0 {
                    crate::ring::pop_front(&mut self.input);
                } else {
                    self.input.remove(i);
                }
                if self.banks > 1 {
                    self.more_banks(r.addr);
                }
            }
        }
        #[cfg(test)]
        match said {
            Head::Taken => assert!(taken, "a cycle said to take an access took none"),
            Head::Refused(why, _) => {
                assert!(!taken, "a head said to be refused was taken");
                assert_eq!(self.stalls[why as usize], stalls[why as usize] + 1);
            }
            Head::Empty => unreachable!(),
        }
        self.refused = !taken;
        self.now += 1;
    }

    /// What a cycle does with a non-empty input queue: serve the head, or, past a refused
    /// prefetch at the head, the first request behind it that is not a refused prefetch, if it
    /// would be taken (decision MEM-29); else refuse the head.
    fn choose(&self) -> Choice {
        let mut queue = self.input.iter().enumerate();
        let Some((_, head)) = queue.next() else {
            unreachable!("Slice::choose with an empty input queue");
        };
        let why = match self.prepare(head) {
            Ok(found) => {
                return Choice::Take {
                    at: 0,
                    found,
                    passed: None,
                }
            }
            Err(why) => why,
        };
        if head.kind != AccessKind::Prefetch {
            return Choice::Refuse(why);
        }
        for (at, r) in queue {
            match self.prepare(r) {
                Ok(found) => {
                    return Choice::Take {
                        at,
                        found,
                        passed: Some(why),
                    }
                }
                Err(_) if r.kind == AccessKind::Prefetch => {}
                Err(_) => break,
            }
        }
        Choice::Refuse(why)
    }

    /// A banked slice's further accesses of the cycle, after a head to `first`'s bank: the
    /// next requests in order, each to a bank not yet used this cycle and each one that would be
    /// taken ([`Slice::prepare`]; one that would be refused waits, not counted, for its turn
    /// as the head).
    fn more_banks(&mut self, first: u64) {
        let mut used = 1u32 << self.bank_of(first);
        for _ in 1..self.banks {
            let Some(&r) = self.input.front() else {
                return;
            };
            let bank = 1u32 << self.bank_of(r.addr);
            if used & bank != 0 {
                return;
            }
            let Ok(p) = self.prepare(&r) else {
                return;
            };
            used |= bank;
            let taken = self.take(r, p);
            debug_assert!(taken, "a prepared access was refused");
            crate::ring::pop_front(&mut self.input);
        }
    }

    /// Whether its last cycle ([`Slice::cycle`] or [`Slice::repeat`]) refused its head: a
    /// cheap hint for a caller that asks [`Slice::head`] next (a head not refused then, or
    /// queued since, is yet to be tried).
    pub fn refused_last(&self) -> bool {
        self.refused
    }

    /// One cycle without an access (the caller holds the slice back).
    pub fn idle(&mut self) {
        self.now += 1;
    }

    /// What an access of `r` would find now, before anything changes: a read merging into the
    /// MSHR entry of its line (sector) being fetched, or its way in the tag array; or why it
    /// is refused (a reservation failure). Nothing else than an access, a fill, a fetch taken
    /// and an invalidation changes the answer. (Inlined: it is the first half of every access.)
    #[inline(always)]
    fn prepare(&self, r: &SliceRequest<P>) -> Result<Prepared, Stall> {
        // (Each table's index asked once.)
        let m = self.mshr.lookup(r.addr);
        if m.found() && !r.write {
            return match self.mshr.check_at(m) {
                Ok(_) => Ok(Prepared::Merge(m)),
                Err(why) => Err(why.into()),
            };
        }
        // Resources a miss may need, checked before the tag array changes.
        let way = self.tags.lookup(r.addr);
        let present = self.tags.holds_at(way, r.addr);
        if !present {
            if self.miss_cap - self.miss_queue.len() < 2 {
                return Err(Stall::MissQueueFull);
            }
            if !r.write {
                self.mshr.check_at(m)?;
            }
        } else if r.write && self.miss_queue.len() >= self.miss_cap {
            // A write hit may go on (write-through).
            return Err(Stall::MissQueueFull);
        }
        Ok(Prepared::Access(m, way))
    }

    /// What the next [`Slice::cycle`] does with the input queue, if nothing changes the slice
    /// before it: takes an access (the head's, or one past a refused prefetch), or refuses the
    /// head and takes none.
    pub fn head(&self) -> Head {
        let Some(r) = self.input.front() else {
            return Head::Empty;
        };
        match self.choose() {
            Choice::Take { .. } => Head::Taken,
            Choice::Refuse(why) => Head::Refused(why, r.kind),
        }
    }

    /// `n` cycles in which the head of the input queue, if any, is refused ([`Slice::head`]
    /// is not [`Head::Taken`]): `n` [`Slice::cycle`]s at once, each counting its reservation
    /// failure.
    pub fn repeat(&mut self, n: u64) {
        let head = self.head();
        self.refused = n > 0 && matches!(head, Head::Refused(..)) || n == 0 && self.refused;
        match head {
            Head::Refused(why, kind) => {
                self.stalls[why as usize] += n;
                self.seen |= 1 << kind as u8;
                self.kinds[kind as usize].reservation_failures += n;
            }
            Head::Empty => {}
            // (The caller's mistake: unit tests check it.)
            Head::Taken => {
                #[cfg(test)]
                panic!("Slice::repeat with an access it would take");
            }
        }
        self.now += n;
    }

    /// The access of `r`, which [`Slice::prepare`] found `p` for; false when it is refused
    /// after all (nothing changed).
    fn take(&mut self, r: SliceRequest<P>, p: Prepared) -> bool {
        let sector = spec::cache::SECTOR_BYTES;
        let unit = self.tags.config().atom_bytes();
        let (m, way) = match p {
            Prepared::Access(m, way) => (m, way),
            Prepared::Merge(m) => {
                return match self.mshr.add_at(m, r.addr, r.payload) {
                    Ok(_) => {
                        self.count(r.kind, Counted::MshrMerge);
                        true
                    }
                    Err((why, _)) => {
                        self.fail(why.into(), r.kind);
                        false
                    }
                };
            }
        };
        let Ok(a) = self.tags.access_at(r.addr, r.write, way) else {
            // A read-only cache: the write goes on to the next level.
            self.miss_queue.push_back(Fetch {
                addr: r.addr,
                write: true,
                bytes: sector,
                origin: Some(r.payload),
            });
            if !self.ack_writes {
                self.answer(r.payload, Served::Slice);
            }
            return true;
        };
        let fetch = match a.outcome {
            Outcome::Hit => {
                self.count(r.kind, Counted::Hit);
                false
            }
            Outcome::SectorMiss { fetch } => {
                self.count(r.kind, Counted::SectorMiss);
                fetch
            }
            Outcome::Miss { fetch, evicted, .. } => {
                self.count(r.kind, Counted::Miss);
                if let Some(e) = evicted {
                    self.evicted(e);
                }
                if let (Some(v), false) = (&mut self.misses, r.write) {
                    v.push((r.addr, r.payload));
                }
                fetch
            }
        };
        if a.write_through {
            self.miss_queue.push_back(Fetch {
                addr: r.addr,
                write: true,
                bytes: sector,
                origin: Some(r.payload),
            });
        }
        if fetch && !r.write {
            // A read waits for its fill.
            if matches!(self.mshr.add_at(m, r.addr, r.payload), Ok(Added::New)) {
                // The whole unit: a sector, or a line cache's line.
                self.miss_queue.push_back(Fetch {
                    addr: r.addr & !(u64::from(unit) - 1),
                    write: false,
                    bytes: unit,
                    origin: Some(r.payload),
                });
            }
        } else {
            if fetch {
                // A write that allocates and fetches: the fetch fills the rest of the sector;
                // the write itself is done.
                self.miss_queue.push_back(Fetch {
                    addr: r.addr & !(u64::from(unit) - 1),
                    write: false,
                    bytes: unit,
                    origin: Some(r.payload),
                });
            }
            if !(a.write_through && self.ack_writes) {
                self.answer(r.payload, Served::Slice);
            }
        }
        true
    }

    /// Invalidate every line (an idle SM's L1 under `gpu.flush_l1`): nothing is written back,
    /// and the lines leave as evictions where those are kept ([`Slice::keep_evictions`]).
    /// Requests in flight, MSHRs and queues are untouched.
    pub fn invalidate(&mut self) {
        let kept = &mut self.evictions;
        self.tags.invalidate_all(|line| {
            if let Some(v) = kept {
                v.push(line);
            }
        });
    }

    /// Give every set `ways` ways (an L1 resized for a kernel's shared memory, decision
    /// GPU-32): a change invalidates every line as [`Slice::invalidate`] does. The caller
    /// resizes an idle slice only ([`Slice::busy`] 0): no fill is owed to a way.
    pub fn set_ways(&mut self, ways: u32) {
        debug_assert_eq!(self.busy(), 0, "a slice is resized only when idle");
        if ways == self.tags.config().ways {
            return;
        }
        self.invalidate();
        let mut cfg = *self.tags.config();
        cfg.ways = ways;
        self.tags = TagArray::new(cfg);
    }

    /// Its ways a set.
    pub fn ways(&self) -> u32 {
        self.tags.config().ways
    }

    /// The next request for the next level, if any (it stays until [`Slice::pop_fetch`]).
    pub fn peek_fetch(&self) -> Option<&Fetch<P>> {
        self.miss_queue.front()
    }

    /// Whether the slice holds `addr`'s sector (a probe: nothing changes).
    pub fn holds(&self, addr: u64) -> bool {
        self.tags.holds(addr)
    }

    /// The next level took the request [`Slice::peek_fetch`] showed.
    pub fn pop_fetch(&mut self) -> Option<Fetch<P>> {
        crate::ring::pop_front(&mut self.miss_queue)
    }

    /// The next level's data for `addr` arrived: the requests waiting for it are answered.
    pub fn fill(&mut self, addr: u64) {
        // (Each answered as `answer` does, the table borrowed beside the answer queue.)
        let (answering, at) = (&mut self.answering, self.now + self.latency);
        self.mshr
            .fill_with(addr, |p| answering.push_back((at, p, Served::NextLevel)));
    }

    /// `addr`'s fill is coming ([`MshrTable::warm`]: a host cache hint; nothing changes).
    #[inline]
    pub fn warm(&self, addr: u64) {
        self.mshr.warm(addr);
    }

    /// The payload of the oldest answer not yet taken, ready or not.
    #[inline]
    pub fn next_answer(&self) -> Option<P> {
        self.answering.front().map(|&(_, p, _)| p)
    }

    /// The oldest answer ready by now, if any (one per cycle onto a bounded queue).
    pub fn pop_answer(&mut self) -> Option<(P, Served)> {
        match self.answering.front() {
            Some(&(at, p, by)) if at <= self.now => {
                crate::ring::pop_front(&mut self.answering);
                Some((p, by))
            }
            _ => None,
        }
    }

    /// `n` cycles without an access ([`Slice::idle`] `n` times).
    pub fn idle_for(&mut self, n: u64) {
        self.now += n;
    }

    /// Cycles from the current one until its oldest answer is due (0: now; `u64::MAX`: none
    /// in flight).
    pub fn answer_in(&self) -> u64 {
        self.answering
            .front()
            .map_or(u64::MAX, |&(at, _, _)| at.saturating_sub(self.now))
    }

    /// Nothing to do in a cycle but count it: no request queued, no answer in flight, no fetch
    /// to send (pending fills come through [`Slice::fill`]). A caller may then skip the cycle:
    /// the slice's cycle count only times answers relative to their access.
    pub fn quiet(&self) -> bool {
        self.input.is_empty() && self.answering.is_empty() && self.miss_queue.is_empty()
    }

    /// Whether the input queue has room for one more request.
    pub fn has_room(&self) -> bool {
        self.input.len() < self.input_cap
    }

    /// The answers ready by now, in order.
    pub fn take_answers(&mut self, out: &mut Vec<P>) {
        while let Some((p, _)) = self.pop_answer() {
            out.push(p);
        }
    }

    /// Requests waiting in the miss queue (for bounds checks).
    pub fn miss_queue_len(&self) -> usize {
        self.miss_queue.len()
    }

    pub fn miss_queue_cap(&self) -> usize {
        self.miss_cap
    }

    pub fn input_len(&self) -> usize {
        self.input.len()
    }

    pub fn input_cap(&self) -> usize {
        self.input_cap
    }

    pub fn mshr(&self) -> &MshrTable<P> {
        &self.mshr
    }
}

impl<P: Copy> Component for Slice<P> {
    /// The first cycle at which the slice does more than count a refusal, or holds something
    /// for its owner to take: now when its head would be taken ([`Slice::head`]) or a fetch
    /// waits in its miss queue, else when its oldest answer is due. Before it, each cycle
    /// only counts its head's refusal, which [`Slice::repeat`] does for many cycles at once.
    fn next_work(&self) -> u64 {
        if !self.miss_queue.is_empty() || self.head() == Head::Taken {
            return self.now;
        }
        self.now.saturating_add(self.answer_in())
    }
}

#[cfg(test)]
#[path = "slice_tests.rs"]
mod tests;
