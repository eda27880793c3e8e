//! The memory partitions as one streaming component ([`Partitions`]): per DRAM channel,
//! `dram.sub_partitions` sub-partitions, each an L2 [`Slice`] with GPGPU-Sim's queues around it
//! (`memory_sub_partition`, l2cache.cc), in front of the channel's controller (one
//! [`MemSystem`] serves every channel). Requests keep their SM, warp and PC through the miss
//! path: the DRAM requests of a fetch carry those of the request that caused it, so a Warped-MC
//! controller behind the L2 schedules by warp as it does alone.
//!
//! Per sub-partition, per L2 cycle, in GPGPU-Sim's order (`cache_cycle`):
//! 1. one answer ready in the slice (a fill's) goes to the L2-to-icnt queue, if it has room;
//! 2. the head of the DRAM-to-L2 queue fills the slice;
//! 3. one fetch or write-back of the slice's miss queue moves to the L2-to-DRAM queue, if it has
//!    room (`baseline_cache::cycle`);
//! 4. if the L2-to-DRAM and L2-to-icnt queues have room, the slice accesses the head of the
//!    icnt-to-L2 queue (its input queue): a hit's answer goes to the L2-to-icnt queue at once,
//!    a miss takes an MSHR and queues its fetch; a reservation failure retries next cycle;
//! 5. the head of the ROP delay queue moves to the icnt-to-L2 queue once `l2.rop_latency` core
//!    cycles have passed since it arrived, if the queue has room.
//!
//! Per channel, per DRAM cycle (`dram_cycle`):
//! 1. at most one completed fetch returns to its sub-partition's DRAM-to-L2 queue (if it has
//!    room; write-backs and written data complete without returning);
//! 2. the controller steps one cycle ([`MemSystem::cycle`]);
//! 3. one request of the sub-partitions' L2-to-DRAM queues, round-robin after the last served,
//!    enters the channel's DRAM latency queue, ready `l2.dram_latency` core cycles later;
//! 4. the head of the latency queue, once ready, is offered to the controller: one DRAM
//!    request per `dram.atom_bytes` of the fetch (a 128 B line fetch on 32 B atoms is four),
//!    each refused while the channel's wait list is full; the fetch completes when all have.
//!
//! A request is offered at a core cycle into its sub-partition's ROP queue, accepted when the
//! icnt-to-L2 queue has room (GPGPU-Sim's `full()` check), and answered through the L2-to-icnt
//! queue ([`Partitions::pop_reply`]). Clock domains advance by [`ClockDomains`]; at an instant
//! with several edges the DRAM steps before the L2 (GPGPU-Sim's order), and the core edge
//! comes last (the caller's interconnect and SMs step between [`Partitions::cycle`] calls).
//!
//! Not modelled (decision MEM-14): the DRAM credits between
//! sub-partitions (GPGPU-Sim lends a shared pool; here a full wait list refuses), the L2's
//! data-port bandwidth beyond one access per cycle, and texture-only L2s. Channel and
//! sub-partition hashing (`dram.partition_indexing`) is the address map's.

use super::slice::{AccessKind, Fetch, Head, Served, Slice, SliceRequest, SliceStats};
use crate::bitset::BitSet;
use crate::clock::ClockDomains;
use crate::mc::stimulus::Request;
use crate::mc::system::{McError, MemSystem};
use crate::stream::{Component, Offer};
use spec::Spec;
use std::collections::VecDeque;

/// A memory request from an SM port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemRequest {
    /// Chosen by the sender; comes back with the reply.
    pub tag: u64,
    pub addr: u64,
    pub write: bool,
    /// Its SM and warp slot (16 bits: `gpu.sms` is at most 256 and `gpu.warps_per_sm` 128, so
    /// that the request is 32 bytes rather than 40: it is copied several times on its way).
    pub sm: u16,
    pub warp: u16,
    pub pc: u64,
    /// A prefetch (seed 001), not a demand request.
    pub prefetch: bool,
}

/// Clock domains of [`Partitions::cycle`] (bits of its result).
pub const CORE: u32 = 1;
pub const ICNT: u32 = 2;
pub const L2: u32 = 4;
pub const DRAM: u32 = 8;

/// The same domains' indices in the partitions' [`ClockDomains`] (and in the edge counts of
/// [`Partitions::skip_to`]).
pub const CORE_CLOCK: usize = 0;
pub const ICNT_CLOCK: usize = 1;
pub const L2_CLOCK: usize = 2;
pub const DRAM_CLOCK: usize = 3;

/// What a busy sub-partition's L2 cycles do while nothing changes it ([`Partitions::lull_of`]):
/// each is the same, counting the same things.
#[derive(Debug, Clone, Copy)]
struct Lull {
    /// The core cycle count from which it may change (its ROP queue's head ready, or its next
    /// answer due), as [`Partitions::next_work`](Component::next_work) gives it.
    until: u64,
    /// Its slice takes a cycle (refusing its head, if any), else it idles.
    ticks: bool,
    /// It counts a ready ROP head refused by a full slice input.
    icnt_to_l2_full: bool,
}

/// A fetch in flight to the DRAM.
#[derive(Debug, Clone, Copy)]
struct InFlight {
    addr: u64,
    /// DRAM cycle the last completed part's data ends.
    last_done: u64,
    sub: u32,
    /// DRAM requests it takes, and completed so far.
    parts: u32,
    done: u32,
    write: bool,
}

#[derive(Debug, Clone)]
struct SubPartition {
    /// ROP delay queue: (core cycle it is ready, request).
    rop: VecDeque<(u64, MemRequest)>,
    slice: Slice<MemRequest>,
    l2_to_dram: VecDeque<Fetch<MemRequest>>,
    /// Completed fetches (read fills) for the slice.
    dram_to_l2: VecDeque<u64>,
    l2_to_icnt: VecDeque<(MemRequest, Served)>,
}

#[derive(Debug, Clone, Default)]
struct ChannelSide {
    /// DRAM latency queue: (core cycle it is ready, its sub-partition, fetch). A fetch takes
    /// its in-flight slot (`fetches`) when it reaches the head ready (`head`), not when it
    /// enters: the slot is then written rather than read back from a line the host cache had
    /// dropped over the latency (a miss per fetch in a saturated run).
    latency: VecDeque<(u64, usize, Fetch<MemRequest>)>,
    /// The in-flight slot of the latency queue's head once it is being offered, and the
    /// DRAM requests of it offered so far.
    head: Option<usize>,
    offered: u32,
    /// Read fetches whose last DRAM request has issued, waiting to return: (DRAM cycle its
    /// data has arrived, sub-partition, address), in issue order (a read's data follows its
    /// column command by a fixed time, so this is also arrival order). Its in-flight slot is
    /// free by then.
    returning: VecDeque<(u64, usize, u64)>,
    /// The sub-partition (local index) served last.
    last: usize,
    /// Fetches in its sub-partitions' L2-to-DRAM queues.
    to_dram: usize,
    /// The core cycle from which steps 3 and 4 have work: 0 while a sub-partition holds a
    /// fetch for it, else when its latency queue's head is ready (`u64::MAX`: empty).
    wake: u64,
    /// The DRAM controller whose full wait list refused the latency queue's head (its next
    /// part) last: until it has room, the head is not offered again (it would be refused:
    /// under a saturated DRAM, two offers in three were, each decoding its address).
    refused_by: Option<usize>,
}

/// Counters over the run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PartitionStats {
    pub slices: SliceStats,
    /// Cycles a full queue held something back, by queue: ROP → icnt-to-L2, slice → L2-to-DRAM,
    /// DRAM → DRAM-to-L2, answer → L2-to-icnt.
    pub icnt_to_l2_full: u64,
    pub l2_to_dram_full: u64,
    pub dram_to_l2_full: u64,
    pub l2_to_icnt_full: u64,
    /// DRAM requests refused by a full controller wait list.
    pub dram_refused: u64,
}

/// Every memory partition of a spec.
pub struct Partitions {
    subs: Vec<SubPartition>,
    per_channel: usize,
    /// log2 of `per_channel` and of `atom` (powers of two, validated): shifts, not divisions,
    /// on every fetch.
    per_channel_bits: u32,
    atom_bits: u32,
    chans: Vec<ChannelSide>,
    dram: MemSystem,
    fetches: Vec<Option<InFlight>>,
    free: Vec<usize>,
    clocks: ClockDomains,
    /// Core cycles passed (the partitions' latencies count them).
    core: u64,
    rop_latency: u64,
    dram_latency: u64,
    caps: [usize; 4],
    atom: u64,
    stats: PartitionStats,
    /// Requests accepted and not yet answered (reads) or accepted (writes, answered at once by
    /// the slice too).
    inside: usize,
    /// Read fetches in the channels' `returning` lists.
    returning: usize,
    /// Working storage: fetches whose every DRAM request completed this cycle.
    completed: Vec<usize>,
    /// Per sub-partition: it may have work in an L2 cycle (something in its ROP or DRAM-to-L2
    /// queue, or its slice not quiet), as a bit set (64 a word): an L2 cycle visits only these.
    busy: BitSet,
    /// The sub-partitions with a reply in their L2-to-icnt queue (what the interconnect visits
    /// each cycle, not every sub-partition's queue).
    replying: BitSet,
    /// Per sub-partition: the core cycle before which its only work is waiting for its ROP
    /// queue's head (an L2 cycle then changes nothing but the slice's cycle count, which
    /// only times answers, and it has none); 0 when it has other work.
    asleep: Vec<u64>,
}

impl Partitions {
    /// The idle partitions of a validated spec, every clock at its first edge.
    pub fn new(spec: &Spec) -> Partitions {
        let l2 = &spec.l2;
        let n = (spec.dram.channels * spec.dram.sub_partitions) as usize;
        let subs = (0..n)
            .map(|_| SubPartition {
                rop: VecDeque::new(),
                slice: Slice::new(l2.cache, 0, l2.icnt_to_l2 as usize),
                l2_to_dram: VecDeque::new(),
                dram_to_l2: VecDeque::new(),
                l2_to_icnt: VecDeque::new(),
            })
            .collect();
        let mut dram = MemSystem::new(spec);
        // A fetch's parts wait for room in the pending queue; more are refused.
        dram.set_wait_limit((l2.fetch_bytes() / spec.dram.atom_bytes).max(1) as usize);
        let c = &spec.clocks;
        Partitions {
            subs,
            per_channel: spec.dram.sub_partitions as usize,
            per_channel_bits: spec.dram.sub_partitions.trailing_zeros(),
            atom_bits: spec.dram.atom_bytes.trailing_zeros(),
            chans: vec![ChannelSide::default(); spec.dram.channels as usize],
            dram,
            fetches: Vec::new(),
            free: Vec::new(),
            clocks: ClockDomains::new(&[c.core_khz, c.icnt_khz, c.l2_khz, c.dram_khz]),
            core: 0,
            rop_latency: u64::from(l2.rop_latency),
            dram_latency: u64::from(l2.dram_latency),

            caps: [l2.icnt_to_l2, l2.l2_to_dram, l2.dram_to_l2, l2.l2_to_icnt].map(|v| v as usize),
            atom: u64::from(spec.dram.atom_bytes),
            stats: PartitionStats::default(),
            inside: 0,
            returning: 0,
            completed: Vec::new(),
            busy: BitSet::new(n),
            replying: BitSet::new(n),
            asleep: vec![0; n],
        }
    }

    /// Sub-partitions (global index: channel × sub-partitions per channel + local index).
    pub fn len(&self) -> usize {
        self.subs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.subs.is_empty()
    }

    /// The sub-partition an address belongs to (the address map's decoding).
    pub fn sub_of(&self, addr: u64) -> usize {
        self.dram.address_map().route(addr).1 as usize
    }

    /// Sub-partition `s`'s L2 slice (what acts on the L2 between kernels: host copies and
    /// flushes, [`super::side::MemorySide`]).
    pub fn slice_mut(&mut self, s: usize) -> &mut Slice<MemRequest> {
        &mut self.subs[s].slice
    }

    /// Core cycles passed.
    pub fn core_cycle(&self) -> u64 {
        self.core
    }

    /// Requests inside (accepted, not yet popped as replies).
    pub fn inside(&self) -> usize {
        self.inside
    }

    pub fn dram(&self) -> &MemSystem {
        &self.dram
    }

    pub fn dram_mut(&mut self) -> &mut MemSystem {
        &mut self.dram
    }

    /// Offer a request to its sub-partition at the current core cycle: refused when the
    /// sub-partition's icnt-to-L2 queue is full.
    pub fn offer(&mut self, r: MemRequest) -> Offer {
        self.offer_to(self.sub_of(r.addr), r)
    }

    /// [`Partitions::offer`] of a request whose sub-partition, `s`, the caller has (the
    /// interconnect's output it landed at).
    pub fn offer_to(&mut self, s: usize, r: MemRequest) -> Offer {
        debug_assert_eq!(s, self.sub_of(r.addr), "request {r:?} at sub-partition {s}");
        let sp = &mut self.subs[s];
        if !sp.slice.has_room() {
            return Offer::Refused;
        }
        sp.rop.push_back((self.core + self.rop_latency, r));
        self.busy.insert(s);
        self.inside += 1;
        Offer::Accepted
    }

    /// The sub-partitions with a reply, 64 a word: [`BitSet::word_members`] of word `k` of
    /// `words` (taking a reply while visiting them is allowed).
    pub fn replying_words(&self) -> usize {
        self.replying.words()
    }

    pub fn replying(&self, k: usize) -> impl Iterator<Item = usize> {
        self.replying.word_members(k)
    }

    /// The oldest reply of sub-partition `s` without taking it.
    pub fn peek_reply(&self, s: usize) -> Option<&(MemRequest, Served)> {
        self.subs[s].l2_to_icnt.front()
    }

    /// The oldest reply of sub-partition `s`, if any, and whether the L2 served it or it
    /// waited for the DRAM (a network port takes one per cycle).
    pub fn pop_reply(&mut self, s: usize) -> Option<(MemRequest, Served)> {
        let r = crate::ring::pop_front(&mut self.subs[s].l2_to_icnt);
        if r.is_some() {
            self.inside -= 1;
            if self.subs[s].l2_to_icnt.is_empty() {
                self.replying.remove(s);
            }
        }
        r
    }

    /// Advance to the next clock edge: the DRAM and L2 domains with an edge then step (in that
    /// order), then the core cycle count moves on if the core has one. Returns the domains that
    /// had an edge ([`CORE`], [`ICNT`], [`L2`], [`DRAM`]) for the caller's interconnect and SMs.
    /// A co-simulation inside the memory side watches a Warped-MC group of the controllers
    /// ([`MemSystem::watch_group`], through [`Partitions::dram_mut`]).
    pub fn cycle(&mut self) -> Result<u32, McError> {
        let mask = self.clocks.advance();
        let mask = mask_bits(mask);
        if mask & DRAM != 0 {
            self.dram_cycle()?;
        }
        if mask & L2 != 0 {
            let l2i = self.caps[3];
            // A sub-partition with nothing queued anywhere would change nothing, nor one
            // whose only work is its ROP queue's head, until that is ready.
            for k in 0..self.busy.words() {
                for s in self.busy.word_members(k) {
                    if self.core < self.asleep[s] {
                        continue;
                    }
                    self.cache_cycle(s);
                    let sp = &self.subs[s];
                    let waits = sp.dram_to_l2.is_empty() && sp.slice.quiet();
                    if sp.rop.is_empty() && waits {
                        self.busy.remove(s);
                    }
                    self.asleep[s] = match sp.rop.front() {
                        Some(&(ready, _)) if waits && sp.l2_to_icnt.len() < l2i => ready,
                        _ => 0,
                    };
                }
            }
        }
        if mask & CORE != 0 {
            self.core += 1;
        }
        // Unit tests check the set of replying sub-partitions against their queues, and the
        // core cycles against the clock's edges.
        #[cfg(test)]
        assert_eq!(self.core, self.clocks.edges(CORE_CLOCK));
        #[cfg(test)]
        for (s, sp) in self.subs.iter().enumerate() {
            assert_eq!(
                self.replying.contains(s),
                !sp.l2_to_icnt.is_empty(),
                "sub-partition {s}'s replies"
            );
        }
        Ok(mask)
    }

    /// Whether sub-partition `s` takes a request now ([`Partitions::offer_to`] accepts).
    pub fn has_room(&self, s: usize) -> bool {
        self.subs[s].slice.has_room()
    }

    /// Whether a sub-partition has a reply for the interconnect.
    pub fn any_replying(&self) -> bool {
        self.replying.iter().next().is_some()
    }

    /// The core cycle count after the last core edge at or before domain `d`'s edge `e`
    /// (domains as [`CORE_CLOCK`] ...): a jump to it ([`Partitions::skip_to`]) stops before
    /// that edge.
    pub fn core_count_by(&self, d: usize, e: u64) -> u64 {
        self.clocks.last_edge_by(CORE_CLOCK, d, e).saturating_add(1)
    }

    /// Whether busy sub-partition `s`'s L2 cycles, from the next one on, do the same thing
    /// every time, and what they count (`None`: the next one may change it). Its next cycle
    /// (see [`Partitions::cache_cycle`]) changes nothing when: nothing comes from the DRAM,
    /// no fetch waits to leave and no reply for the interconnect; no answer is due; the
    /// slice's head, if it takes a cycle, is refused (each refusal counted); the ROP queue's
    /// head is not ready, or it is and the slice's input is full (counted). A quiet slice
    /// changes too: the sub-partition falls asleep or leaves the busy set after the cycle.
    fn lull_of(&self, s: usize) -> Option<Lull> {
        let l2d = self.caps[1];
        let sp = &self.subs[s];
        if !sp.dram_to_l2.is_empty()
            || sp.slice.miss_queue_len() > 0
            || !sp.l2_to_icnt.is_empty()
            || sp.slice.quiet()
        {
            return None;
        }
        let ticks = sp.l2_to_dram.len() < l2d;
        if ticks && sp.slice.head() == Head::Taken {
            return None;
        }
        // Its next answer leaves in the cycle it is due (after the access, when the slice
        // ticks: one cycle earlier).
        let mut until = match sp.slice.answer_in() {
            u64::MAX => u64::MAX,
            d => self.core_count_by(L2_CLOCK, self.clocks.edges(L2_CLOCK) + d.saturating_sub(1)),
        };
        let rop_full = match sp.rop.front() {
            Some(&(ready, _)) if ready <= self.core => {
                if sp.slice.has_room() {
                    return None;
                }
                true
            }
            Some(&(ready, _)) => {
                until = until.min(ready);
                false
            }
            None => false,
        };
        Some(Lull {
            until,
            ticks,
            icnt_to_l2_full: rop_full,
        })
    }

    /// Jump to core cycle count `n - 1`, at most [`Partitions::next_work`](Component::next_work):
    /// every clock takes its edges before the core's edge `n - 1` at once (the next
    /// [`Partitions::cycle`] is that instant, after which the count is `n`), and every component
    /// counts what its skipped cycles would have: the busy sub-partitions their lulls' counts and
    /// slice cycles, the controllers their cycles (and idle refreshes). Returns the edges skipped
    /// per domain (indexed by [`CORE_CLOCK`] ...), for the interconnect's part.
    pub fn skip_to(&mut self, n: u64) -> [u64; 4] {
        #[cfg(test)]
        assert!(
            n <= self.next_work(),
            "a jump past the partitions' next change"
        );
        let before = [0, 1, 2, 3].map(|d| self.clocks.edges(d));
        if n <= self.core + 1 {
            return [0; 4];
        }
        self.clocks.skip_to(CORE_CLOCK, n - 1);
        let k = [0, 1, 2, 3].map(|d| self.clocks.edges(d) - before[d]);
        let l2 = k[L2_CLOCK];
        for s in self.busy.iter() {
            if self.core < self.asleep[s] {
                continue;
            }
            // (Always a lull: the caller stays within `next_work`.)
            let Some(l) = self.lull_of(s) else {
                continue;
            };
            let sp = &mut self.subs[s];
            if l.ticks {
                sp.slice.repeat(l2);
            } else {
                sp.slice.idle_for(l2);
            }
            if l.icnt_to_l2_full {
                self.stats.icnt_to_l2_full += l2;
            }
        }
        self.core += k[CORE_CLOCK];
        self.dram.skip_to(self.dram.now() + k[DRAM_CLOCK]);
        k
    }

    fn cache_cycle(&mut self, s: usize) {
        let [_, l2d, _, l2i] = self.caps;
        let core = self.core;
        let sp = &mut self.subs[s];
        // 1. A fill's answer out.
        if sp.l2_to_icnt.len() < l2i {
            if let Some(p) = sp.slice.pop_answer() {
                sp.l2_to_icnt.push_back(p);
                self.replying.insert(s);
            }
        } else {
            self.stats.l2_to_icnt_full += 1;
        }
        // 2. A fill in.
        if let Some(addr) = crate::ring::pop_front(&mut sp.dram_to_l2) {
            sp.slice.fill(addr);
        }
        // 3. The miss queue's head on towards the DRAM.
        if sp.l2_to_dram.len() < l2d {
            if let Some(f) = sp.slice.pop_fetch() {
                sp.l2_to_dram.push_back(f);
                let ch = &mut self.chans[s >> self.per_channel_bits];
                ch.to_dram += 1;
                ch.wake = 0;
            }
        } else if sp.slice.peek_fetch().is_some() {
            self.stats.l2_to_dram_full += 1;
        }
        // 4. One access, if its answer or its fetch could leave.
        if sp.l2_to_dram.len() < l2d && sp.l2_to_icnt.len() < l2i {
            sp.slice.cycle();
            if sp.l2_to_icnt.len() < l2i {
                if let Some(p) = sp.slice.pop_answer() {
                    sp.l2_to_icnt.push_back(p);
                    self.replying.insert(s);
                }
            }
        } else {
            sp.slice.idle();
        }
        // 5. The ROP queue's head into the icnt-to-L2 queue.
        if let Some(&(ready, r)) = sp.rop.front() {
            if ready <= core {
                let kind = if r.prefetch {
                    AccessKind::Prefetch
                } else {
                    AccessKind::of(r.write)
                };
                let taken = sp.slice.offer(SliceRequest {
                    addr: r.addr,
                    write: r.write,
                    payload: r,
                    kind,
                });
                if taken == Offer::Accepted {
                    crate::ring::pop_front(&mut sp.rop);
                } else {
                    self.stats.icnt_to_l2_full += 1;
                }
            }
        }
    }

    fn dram_cycle(&mut self) -> Result<(), McError> {
        let [_, _, d2l, _] = self.caps;
        let now = self.dram.now();
        // 1. One completed fetch back to its sub-partition (channels visited only when one
        // has a fetch returning).
        let visited = if self.returning > 0 {
            self.chans.len()
        } else {
            0
        };
        for c in 0..visited {
            let Some(&(at, sub, addr)) = self.chans[c].returning.front() else {
                continue;
            };
            if at > now {
                continue;
            }
            let sp = &mut self.subs[sub];
            if sp.dram_to_l2.len() < d2l {
                sp.dram_to_l2.push_back(addr);
                sp.slice.warm(addr);
                self.busy.insert(sub);
                self.asleep[sub] = 0;
                crate::ring::pop_front(&mut self.chans[c].returning);
                self.returning -= 1;
            } else {
                self.stats.dram_to_l2_full += 1;
            }
        }
        // 2. The controllers.
        self.dram.cycle()?;
        // (Fetches whose every part has completed, their slots freed after the loop.)
        let mut completed = std::mem::take(&mut self.completed);
        for done in self.dram.take_completions() {
            let id = done.tag as usize;
            let Some(f) = self.fetches[id].as_mut() else {
                continue;
            };
            f.done += 1;
            f.last_done = f.last_done.max(done.done);
            if f.done == f.parts {
                completed.push(id);
                // Written data completes without returning.
                if !f.write {
                    let c = f.sub as usize >> self.per_channel_bits;
                    let at = (f.last_done, f.sub as usize, f.addr);
                    self.chans[c].returning.push_back(at);
                    self.returning += 1;
                }
            }
        }
        for id in completed.drain(..) {
            self.release(id);
        }
        self.completed = completed;
        let now = self.dram.now();
        // 3. and 4. per channel.
        for c in 0..self.chans.len() {
            if self.core < self.chans[c].wake {
                continue;
            }
            self.channel_cycle(c, now)?;
            let ch = &mut self.chans[c];
            ch.wake = match (ch.to_dram, ch.latency.front()) {
                (0, None) => u64::MAX,
                (0, Some(&(ready, _, _))) => ready,
                _ => 0,
            };
        }
        Ok(())
    }

    /// Steps 3 and 4 of a DRAM cycle for channel `c`.
    fn channel_cycle(&mut self, c: usize, now: u64) -> Result<(), McError> {
        let first = c * self.per_channel;
        // The sub-partitions are searched only when one has a fetch for the DRAM.
        let (searched, last) = match self.chans[c].to_dram {
            0 => (0, 0),
            _ => (self.per_channel, self.chans[c].last),
        };
        for k in 1..=searched {
            let mut local = last + k;
            if local >= self.per_channel {
                local -= self.per_channel;
            }
            if let Some(f) = crate::ring::pop_front(&mut self.subs[first + local].l2_to_dram) {
                let ch = &mut self.chans[c];
                ch.to_dram -= 1;
                ch.latency
                    .push_back((self.core + self.dram_latency, first + local, f));
                ch.last = local;
                break;
            }
        }
        let Some(&(ready, sub, fetch)) = self.chans[c].latency.front() else {
            return Ok(());
        };
        if ready > self.core {
            return Ok(());
        }
        if let Some(dc) = self.chans[c].refused_by {
            if !self.dram.has_room(dc) {
                self.stats.dram_refused += 1;
                return Ok(());
            }
            self.chans[c].refused_by = None;
        }
        let parts = ((u64::from(fetch.bytes) + self.atom - 1) >> self.atom_bits).max(1) as u32;
        let id = match self.chans[c].head {
            Some(id) => id,
            None => {
                let id = match self.free.pop() {
                    Some(i) => i,
                    None => {
                        self.fetches.push(None);
                        self.fetches.len() - 1
                    }
                };
                self.fetches[id] = Some(InFlight {
                    addr: fetch.addr,
                    last_done: 0,
                    sub: sub as u32,
                    parts,
                    done: 0,
                    write: fetch.write,
                });
                self.chans[c].head = Some(id);
                self.chans[c].offered = 0;
                id
            }
        };
        let origin = fetch.origin;
        let mut offered = self.chans[c].offered;
        while offered < parts {
            let addr = fetch.addr + u64::from(offered) * self.atom;
            let req = Request {
                cycle: now,
                sm: origin.map_or(0, |o| o.sm.into()),
                warp: origin.map_or(0, |o| o.warp.into()),
                pc: origin.map_or(0, |o| o.pc),
                addr,
                write: fetch.write,
                load: 0,
                prefetch: origin.is_some_and(|o| o.prefetch),
            };
            match self.dram.offer(req, id as u64)? {
                Offer::Accepted => offered += 1,
                Offer::Refused => {
                    self.stats.dram_refused += 1;
                    self.chans[c].refused_by = Some(self.dram.channel_of(addr));
                    break;
                }
            }
        }
        self.chans[c].offered = offered;
        if offered == parts {
            crate::ring::pop_front(&mut self.chans[c].latency);
            self.chans[c].head = None;
        }
        Ok(())
    }

    fn release(&mut self, id: usize) {
        self.fetches[id] = None;
        self.free.push(id);
    }

    /// Counters so far (the slices' summed).
    pub fn stats(&self) -> PartitionStats {
        let mut s = self.stats.clone();
        for sp in &self.subs {
            s.slices.add(&sp.slice.stats());
        }
        s
    }

    /// Each L2 slice's counters, in sub-partition order.
    pub fn slice_stats(&self) -> Vec<SliceStats> {
        self.subs.iter().map(|sp| sp.slice.stats()).collect()
    }

    /// Every queue's length against its size, per sub-partition (for bounds checks):
    /// `[icnt-to-L2, L2-to-DRAM, DRAM-to-L2, L2-to-icnt]` as (length, size).
    pub fn queue_fill(&self, s: usize) -> [(usize, usize); 4] {
        let sp = &self.subs[s];
        let [i2l, l2d, d2l, l2i] = self.caps;
        [
            (sp.slice.input_len(), i2l),
            (sp.l2_to_dram.len(), l2d),
            (sp.dram_to_l2.len(), d2l),
            (sp.l2_to_icnt.len(), l2i),
        ]
    }
}

impl Component for Partitions {
    /// A core cycle count `n` such that, if nothing is offered to the partitions, every
    /// instant before the core edge that makes the count `n` (its edge `n - 1`) would only
    /// count: no sub-partition, channel or controller changes before then
    /// ([`Partitions::skip_to`] jumps there). At most the current count when the next instant
    /// may change something; `u64::MAX` when nothing ever would.
    fn next_work(&self) -> u64 {
        let core = self.core;
        let mut n = u64::MAX;
        // DRAM cycles: a fetch returning, the controllers.
        let mut dram = self.dram.next_work();
        if self.returning > 0 {
            for ch in &self.chans {
                if let Some(&(at, _, _)) = ch.returning.front() {
                    dram = dram.min(at.max(self.dram.now()));
                }
            }
        }
        if dram != u64::MAX {
            n = n.min(self.core_count_by(DRAM_CLOCK, dram));
        }
        // A channel's fetches: one waiting in a sub-partition, or its latency queue's head
        // ready.
        for ch in &self.chans {
            n = n.min(ch.wake);
        }
        if n <= core {
            return core;
        }
        // L2 cycles of the busy sub-partitions.
        for s in self.busy.iter() {
            if core < self.asleep[s] {
                n = n.min(self.asleep[s]);
                continue;
            }
            match self.lull_of(s) {
                Some(l) => n = n.min(l.until),
                None => return core,
            }
        }
        n
    }
}

/// The domain bits of a [`ClockDomains::advance`] mask (domains in the order core, icnt, L2,
/// DRAM, as [`Partitions::new`] builds them).
fn mask_bits(m: u32) -> u32 {
    m & (CORE | ICNT | L2 | DRAM)
}

#[cfg(test)]
#[path = "partition_tests.rs"]
pub(crate) mod tests;
