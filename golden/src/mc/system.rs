//! The memory system: one controller per DRAM channel, each with a bounded pending queue, a
//! request scheduler (FCFS, FR-FCFS, Warped-MC, Div-First), read/write drain and all-bank
//! refresh, in front of a [`Channel`] with command-level timing.
//!
//! Per cycle and controller, in this order:
//! 1. requests of this cycle join the channel's wait list (routed by the address map);
//! 2. at most one waiting request moves into the pending queue (if it has room): this is the
//!    *enqueue* of the cycle; it becomes a candidate from the next cycle;
//! 3. a refresh that is due takes the cycle (PREA while any bank is open, then REF);
//! 4. otherwise the scheduler picks at most one command among the requests of the current mode
//!    (reads, or writes while draining) and issues it; a column command completes its request;
//! 5. the write-drain mode is updated.
//!
//! Warped-MC uses the Warped-MC block ([`WarpedMc`]) of its WET group: every cycle it gets the
//! group's enqueues, last cycle's column commands (`svc`) and activations (`act`), the
//! candidates and the per-bank readiness, and Warped-MC issues the command it selects. Both
//! Warped-MC and Div-First read the warp entry table the memory system keeps per WET scope
//! ([`Wet`]); Div-First needs nothing else of the block, so its blocks step only when
//! co-simulated (the watched group).

use super::dram::{Channel, CmdKind, Command, TraceCmd};
use super::stimulus::Request;
use super::timing::ChannelTiming;
use super::warped::{BankCmd, Cand, CtrlIn, Enq, OwnEvents, WarpedMc, Wet, WmcIn, WmcOut};
// `bits`: the members of a controller set, in ascending order.
use crate::bitset::{members, members128 as bits};
use crate::block::{CycleModel, IllegalInput};
use crate::stream::Offer;
use serde::Serialize;
use spec::mapping::AddressMap;
use spec::{Scheduler, Spec};
use std::collections::VecDeque;

#[path = "sched.rs"]
mod sched;
use sched::Policy;

/// What a scheduler picks: the command a controller issues, and the index (among the
/// requests of the current mode) of the request a column command serves.
type Pick = Option<(Command, Option<usize>)>;

/// A request in a pending queue, routed. What it came with is in its controller's
/// [`Controller::held`] at `req`: a table as small as the queue, so it stays in cache however
/// long the backlog.
#[derive(Debug, Clone, Copy)]
struct Entry {
    row: u32,
    col: u32,
    gwid: u32,
    /// Column slot mod wmc.pt_slots (<= 1024, validated).
    slot: u16,
    /// Index into `held` (at most the queue size, 256, plus the entering request).
    req: u16,
    /// dram.banks <= 64 (validated): 20 bytes in all, as queues shift on every removal.
    bank: u8,
    write: bool,
    /// A prefetch (seed 001): with demand-first scheduling, served after demand requests.
    prefetch: bool,
}

impl Entry {
    #[inline]
    fn bank(&self) -> u32 {
        u32::from(self.bank)
    }

    /// Its bank and row as one word ([`Controller::keys`]).
    #[inline]
    fn key(&self) -> u64 {
        key(self.bank(), self.row)
    }
}

/// A completed request: its column command issued; its data transfer ends at `done`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    /// The tag it was offered with.
    pub tag: u64,
    pub req: Request,
    pub done: u64,
}

/// The DRAM side of a run's statistics ([`MemSystem::dram_totals`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DramTotals {
    pub scheduler: &'static str,
    pub cycles: u64,
    pub bandwidth_util: f64,
    pub row_hit_rate: f64,
    pub commands: u64,
    pub activations: u64,
    pub refreshes: u64,
}

/// One memory controller and its channel.
#[derive(Debug, Clone)]
struct Controller {
    ch: Channel,
    /// The pending queue, split by direction (`[reads, writes]`, each oldest first): the
    /// scheduler serves the requests of the current mode, `queue[write_mode]`, and indexes
    /// its requests there (the candidate window has the same order).
    queue: [Vec<Entry>; 2],
    /// The bank and row of each request of the current mode, in queue order ([`key`]): the
    /// scans for a bank's requests and its row hits read these 8 bytes a request, in one
    /// array, rather than the 20-byte entries.
    keys: Vec<u64>,
    /// Offered requests waiting for room in the pending queue, oldest first.
    wait: VecDeque<(Entry, Request, u64)>,
    /// What the requests of the pending queue (and the one entering it) came with: request
    /// and tag, by `Entry::req`; free slots are reused.
    held: Vec<(Request, u64)>,
    free: Vec<u16>,
    write_mode: bool,
    /// Round-robin bank pointer of FR-FCFS and Div-First (GPGPU-Sim's `prio`).
    prio: u32,
    /// Events reported to the Warped-MC block in the next cycle.
    svc: Option<u32>,
    act: Option<(u32, u32)>,
    /// Per bank: pending requests of the current mode, and those of them hitting the open row
    /// (kept for every scheduler but FCFS, which looks at its oldest request only).
    nreq: Vec<u16>,
    nhit: Vec<u16>,
    /// Per bank: [`Channel::bank_local`] for the current mode (its own and its bank group's
    /// part of its bounds), valid where `timed` has the bank's bit (cleared for the banks of
    /// [`Channel::stale_local`] after a command, and when the mode changes).
    /// (A fixed array of the largest bank count, indexed by [`slot`]: no bounds check.)
    times: Box<[[u64; 2]; 64]>,
    timed: u64,
    /// Per bank with a request: the first cycle its scheduler's command could issue (its
    /// bound of the kind [`MemSystem::wake_bound`] counts, raised to the rank-wide part),
    /// valid while `ready_ok` (from a wake bound until the controller next changes).
    ready_at: Box<[u64; 64]>,
    ready_ok: bool,
    /// Bit masks over banks (dram.banks <= 64, validated), following `nreq` and `nhit`: banks
    /// with a request, with a hit, with a miss (more requests than hits).
    req_mask: u64,
    hit_mask: u64,
    miss_mask: u64,
    /// With demand-first scheduling (`prefetch.demand_first`, not under Warped-MC: the
    /// policy's [`sched::Policy::DEMAND_FIRST`], passed as `df` to the methods that keep them):
    /// per bank, the pending prefetches of the current mode and those of them hitting the open
    /// row (kept like `nreq` and `nhit`), and their total. Prefetches rather than demand
    /// requests are counted, so that traffic without prefetches costs nothing more.
    npf: Vec<u16>,
    npf_hit: Vec<u16>,
    npf_all: u32,
}

impl Controller {
    /// Recount `nreq` and `nhit` (and with `df` the prefetch counts) of every bank from the
    /// queue (after the mode or every bank's row changed; one bank's row:
    /// [`Controller::recount_hits`]).
    #[inline]
    fn recount(&mut self, df: bool) {
        self.nreq.fill(0);
        self.nhit.fill(0);
        if df {
            self.npf.fill(0);
            self.npf_hit.fill(0);
            self.npf_all = 0;
        }
        for e in &self.queue[usize::from(self.write_mode)] {
            let (b, hit) = (
                e.bank() as usize,
                u16::from(hits(&self.ch, e.bank(), e.row)),
            );
            self.nreq[b] += 1;
            self.nhit[b] += hit;
            if df && e.prefetch {
                self.npf[b] += 1;
                self.npf_hit[b] += hit;
                self.npf_all += 1;
            }
        }
        for b in 0..self.nreq.len() as u32 {
            self.mark(b);
        }
    }

    /// Rebuild `keys` from the queue of the current mode (after the mode changed).
    fn rebuild_keys(&mut self) {
        self.keys.clear();
        let q = &self.queue[usize::from(self.write_mode)];
        self.keys.extend(q.iter().map(Entry::key));
    }

    /// Recount the hits (and with `df` the prefetch hits) of bank `b`, whose row changed, from
    /// the queue: its request counts are unchanged. One pass without a branch per request
    /// (half the instructions of [`Controller::recount`] for one bank, which runs on every
    /// activation).
    #[inline]
    fn recount_hits(&mut self, b: u32, df: bool) {
        let Some(row) = self.ch.open_row(b) else {
            self.clear_hits(b, df);
            return;
        };
        let i = b as usize;
        if self.nreq[i] == 1 {
            // The bank's one request: an activation opens the row of one of the bank's
            // requests of the current mode (every scheduler's), so it hits. (No scan: with
            // requests spread over the banks, most activated banks hold one.)
            self.nhit[i] = 1;
            if df {
                self.npf_hit[i] = self.npf[i];
            }
            self.mark(b);
            return;
        }
        let k = key(b, row);
        self.nhit[i] = self.keys.iter().map(|&x| u16::from(x == k)).sum();
        if df {
            self.npf_hit[i] = self
                .mode_queue()
                .iter()
                .map(|e| u16::from((e.bank() == b) & (e.row == row) & e.prefetch))
                .sum();
        }
        self.mark(b);
    }

    /// The command a request needs next, given its bank's state.
    fn needed(&self, e: &Entry) -> Command {
        match self.ch.open_row(e.bank()) {
            Some(r) if r == e.row => {
                if e.write {
                    Command::wr(e.bank(), e.row, e.col)
                } else {
                    Command::rd(e.bank(), e.row, e.col)
                }
            }
            Some(_) => Command::pre(e.bank()),
            None => Command::act(e.bank(), e.row),
        }
    }

    /// Make `times` valid for every bank of `banks` (a mask), and return it: a scheduler reads
    /// the bounds of every bank with a request, so they are brought up to date in one pass.
    #[inline(always)]
    fn times_of(&mut self, banks: u64) -> &[[u64; 2]; 64] {
        let mut stale = banks & !self.timed;
        while stale != 0 {
            let b = stale.trailing_zeros();
            stale &= stale - 1;
            self.times[slot(b)] = self.ch.bank_local(b, self.write_mode);
        }
        self.timed |= banks;
        &self.times
    }

    /// The banks of `banks` (a mask; dram.banks <= 64, validated) past their first bound
    /// (column command if open, activate if closed) and past their second (precharge) at
    /// `now`, as masks. Built without a branch per bank: which banks are ready follows the
    /// requests, so a branch per bank mispredicts often, and the schedulers combine the masks
    /// with the open banks instead. The rank-wide part of the bounds
    /// ([`Channel::rank_floor`]) is compared once, the banks' own parts one by one.
    #[inline(always)]
    fn past_bounds(&mut self, banks: u64, now: u64) -> (u64, u64) {
        let [cas, act, any] = self.ch.rank_floor(self.write_mode);
        let open = self.ch.open_mask();
        let (mut f, mut p) = (0u64, 0u64);
        let mut m = banks;
        let times = self.times_of(banks);
        while m != 0 {
            let b = m.trailing_zeros();
            m &= m - 1;
            let [first, pre] = times[slot(b)];
            f |= u64::from(first <= now) << b;
            p |= u64::from(pre <= now) << b;
        }
        let all = |ok: bool| 0u64.wrapping_sub(u64::from(ok));
        let floor_f = open & all(cas <= now) | !open & all(act <= now);
        (f & floor_f, p & all(any <= now))
    }

    /// Bank `b`'s [`Channel::bank_earliest`], from `times` (computed if not valid) and the
    /// rank-wide part.
    #[inline]
    fn bank_times(&mut self, b: u32) -> [u64; 2] {
        let bit = 1u64 << b;
        if self.timed & bit == 0 {
            self.times[slot(b)] = self.ch.bank_local(b, self.write_mode);
            self.timed |= bit;
        }
        let floor = self.ch.rank_floor(self.write_mode);
        self.ch.with_floor(b, self.times[slot(b)], floor)
    }

    /// Count request `e` of the current mode in (`add`) or out; `hit`: it hits the open row.
    #[inline]
    fn tally(&mut self, e: &Entry, add: bool, hit: bool, df: bool) {
        let b = e.bank() as usize;
        let h = u16::from(hit);
        if add {
            self.nreq[b] += 1;
            self.nhit[b] += h;
        } else {
            self.nreq[b] -= 1;
            self.nhit[b] -= h;
        }
        if df && e.prefetch {
            if add {
                self.npf[b] += 1;
                self.npf_hit[b] += h;
                self.npf_all += 1;
            } else {
                self.npf[b] -= 1;
                self.npf_hit[b] -= h;
                self.npf_all -= 1;
            }
        }
        self.mark(e.bank());
    }

    /// Bank `b`'s bits of the masks, from its counts.
    #[inline]
    fn mark(&mut self, b: u32) {
        let (n, h) = (self.nreq[b as usize], self.nhit[b as usize]);
        let keep = !(1u64 << b);
        self.req_mask = self.req_mask & keep | u64::from(n != 0) << b;
        self.hit_mask = self.hit_mask & keep | u64::from(h != 0) << b;
        self.miss_mask = self.miss_mask & keep | u64::from(n > h) << b;
    }

    /// Bank `b` closed: it has no hits.
    #[inline]
    fn clear_hits(&mut self, b: u32, df: bool) {
        self.nhit[b as usize] = 0;
        if df {
            self.npf_hit[b as usize] = 0;
        }
        self.mark(b);
    }

    /// The bank masks of the demand requests (with demand-first scheduling): banks with one,
    /// and banks with one hitting the open row.
    #[inline(never)]
    fn demand_masks(&self) -> (u64, u64) {
        let (mut req, mut hit) = (0u64, 0u64);
        for b in members(self.req_mask) {
            let i = b as usize;
            req |= u64::from(self.nreq[i] > self.npf[i]) << b;
            hit |= u64::from(self.nhit[i] > self.npf_hit[i]) << b;
        }
        (req, hit)
    }

    /// FR-FCFS's pick ([`MemSystem::per_bank`] without urgency) from the bank masks: a bank
    /// with a hit issues its oldest hit's column command, one without issues its oldest
    /// request's precharge (row open) or activate (closed), so whether a bank is ready needs
    /// no request, and the queue is scanned only for the winning bank's request, up to it.
    /// The scan of every request each cycle ([`MemSystem::per_bank`]'s, still Div-First's, and
    /// FR-FCFS's reference in unit tests) was the largest cost of a loaded FR-FCFS controller.
    /// With demand-first scheduling, the same pick among the demand requests comes first
    /// ([`Controller::demand_first`]).
    #[inline(always)]
    fn frfcfs_pick(&mut self, now: u64, df: bool) -> Pick {
        self.demand_first(df, |x, req, hit, demand| {
            x.frfcfs_pick_in(now, req, hit, demand)
        })
    }

    /// `pick(self, requests, hits, demand)` (bank masks) among the demand requests, when `df`
    /// and prefetches are pending, then, if that picked nothing, among all requests: with
    /// demand-first scheduling a demand request's command comes first, and a prefetch's is
    /// taken only when none of those can issue. (Always inlined: `df` is the policy's
    /// constant.)
    #[inline(always)]
    fn demand_first(
        &mut self,
        df: bool,
        mut pick: impl FnMut(&mut Self, u64, u64, bool) -> Pick,
    ) -> Pick {
        // (Without a pending prefetch, every request is a demand request.)
        if df && self.npf_all != 0 {
            let (req, hit) = self.demand_masks();
            if req != 0 {
                if let Some(p) = pick(self, req, hit, true) {
                    return Some(p);
                }
            }
        }
        pick(self, self.req_mask, self.hit_mask, false)
    }

    /// [`Controller::frfcfs_pick`] among the requests of the banks of `req` whose hits are in
    /// the banks of `hit` (the counts' masks: of every request, or of the demand requests
    /// when `demand`).
    #[inline(always)]
    fn frfcfs_pick_in(&mut self, now: u64, req: u64, hit_mask: u64, demand: bool) -> Pick {
        // A bank with a hit or closed waits for its first bound, one with misses only on an
        // open row for the second (its precharge): the bounds the last wake bound gave each
        // bank, when nothing changed since (unit-test builds check them against the
        // recomputed ones at every such pick).
        let ready = if self.ready_ok && !demand {
            // Every bank compared, 16 at a time without a branch (a loop over the banks of
            // `req` took a branch and a bit scan a bank), then restricted to `req`.
            let mut r = 0u64;
            let n = (64 - req.leading_zeros()).div_ceil(16) as usize;
            for (k, chunk) in self.ready_at.chunks_exact(16).take(n).enumerate() {
                let mut m = 0u64;
                for (i, &t) in chunk.iter().enumerate() {
                    m |= u64::from(t <= now) << i;
                }
                r |= m << (16 * k);
            }
            let r = r & req;
            #[cfg(test)]
            {
                let (f, p) = self.past_bounds(req, now);
                let by_first = hit_mask | !self.ch.open_mask();
                assert_eq!(
                    r,
                    req & (by_first & f | !by_first & p),
                    "ready banks at {now}"
                );
            }
            r
        } else {
            let (f, p) = self.past_bounds(req, now);
            let by_first = hit_mask | !self.ch.open_mask();
            req & (by_first & f | !by_first & p)
        };
        if ready == 0 {
            return None;
        }
        let from = ready & (u64::MAX << self.prio);
        let b = if from != 0 { from } else { ready }.trailing_zeros();
        let hit = hit_mask >> b & 1 != 0;
        let q = self.mode_queue();
        let i = if demand {
            q.iter()
                .position(|e| e.bank() == b && !e.prefetch && (!hit || hits(&self.ch, b, e.row)))?
        } else if hit {
            let k = key(b, self.ch.open_row(b)?);
            first_where(&self.keys, |x| x == k)?
        } else {
            first_where(&self.keys, |x| x >> 32 == u64::from(b))?
        };
        let cmd = self.needed(&q[i]);
        Some((cmd, cmd.kind.is_column().then_some(i)))
    }

    /// Div-First's pick ([`MemSystem::per_bank`] with urgency from `wet`) without scoring
    /// every request: a closed bank's activate and an open bank's column command wait for the
    /// bank's first bound, its precharge for the second, so a bank past both bounds (or closed
    /// and past the first) is ready whichever request it picks, and a bank past neither is not.
    /// Banks are tried round-robin from `prio`; only a tried bank's requests are scanned (up to
    /// its first urgent one), and the first tried bank is usually the winner.
    /// With demand-first scheduling, the same pick among the demand requests comes first.
    #[inline(always)]
    fn divfirst_pick(&mut self, wet: &Wet, now: u64, df: bool) -> Pick {
        self.demand_first(df, |x, req, _, demand| {
            x.divfirst_pick_in(wet, now, req, demand)
        })
    }

    /// [`Controller::divfirst_pick`] among the requests of the banks of `req` (every request,
    /// or the demand requests when `demand`).
    #[inline(always)]
    fn divfirst_pick_in(&mut self, wet: &Wet, now: u64, req: u64, demand: bool) -> Pick {
        // `sure`: closed, or past both bounds; `maybe`: past one of an open bank's.
        let (f, p) = self.past_bounds(req, now);
        let settled = !self.ch.open_mask() | f & p;
        let sure = req & settled & f;
        let maybe = req & !settled & (f | p);
        let all = sure | maybe;
        let (late, early) = (
            all & (u64::MAX << self.prio),
            all & !(u64::MAX << self.prio),
        );
        for b in members(late).chain(members(early)) {
            let q = self.mode_queue();
            let mut oldest = None;
            let mut pick = None;
            // The bank's requests, 64 queue entries at a time as a mask built without a
            // branch per entry (banks interleave in the queue, so a per-entry branch on the
            // bank mispredicts often), then the urgent one among them.
            'scan: for (k, chunk) in q.chunks(64).enumerate() {
                let mut m = 0u64;
                for (i, e) in chunk.iter().enumerate() {
                    let ours = (e.bank() == b) & !(demand & e.prefetch);
                    m |= u64::from(ours) << i;
                }
                while m != 0 {
                    let i = 64 * k + m.trailing_zeros() as usize;
                    m &= m - 1;
                    if wet.get(q[i].gwid) <= 1 {
                        pick = Some(i);
                        break 'scan;
                    }
                    oldest.get_or_insert(i);
                }
            }
            let i = pick.or(oldest)?;
            let ready = sure >> b & 1 != 0 || {
                let [first, pre] = self.bank_times(b);
                let q = self.mode_queue();
                match self.ch.open_row(b) {
                    Some(r) if r != q[i].row => pre <= now,
                    _ => first <= now,
                }
            };
            if ready {
                let cmd = self.needed(&self.mode_queue()[i]);
                return Some((cmd, cmd.kind.is_column().then_some(i)));
            }
        }
        None
    }

    /// Its candidate window, from its queue and banks, written into `w`: its occupied slots
    /// only (the block reads missing slots as empty, see [`WarpedMc::step_trusted`]).
    fn window(&self, w: &mut Vec<Option<Cand>>) {
        w.clear();
        w.extend(self.mode_queue().iter().map(|e| Some(cand(&self.ch, e))));
    }

    /// The pending requests of the current mode, oldest first.
    #[inline]
    fn mode_queue(&self) -> &[Entry] {
        &self.queue[usize::from(self.write_mode)]
    }

    /// Pending requests, both directions.
    #[inline]
    fn pending(&self) -> usize {
        self.queue[0].len() + self.queue[1].len()
    }
}

/// Bank `b`'s entry in [`Controller::times`] (64 entries, dram.banks <= 64, validated),
/// masked so that indexing needs no bounds check.
#[inline(always)]
fn slot(b: u32) -> usize {
    (b & 63) as usize
}

/// The index of the first key `f` holds for. Eight keys are compared at a time, without a
/// branch, and the first match taken from the mask: a scan stopping at the match took a
/// branch per key, and the one that left the loop mispredicted (where the match is follows
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

/// A request's bank and row as one word ([`Controller::keys`]).
#[inline]
fn key(bank: u32, row: u32) -> u64 {
    u64::from(bank) << 32 | u64::from(row)
}

/// The controllers whose wake bound has come at `now` (at most 128, validated). Built 64 at a
/// time in a `u64`: a `u128` shift per controller was 2 % of the instructions of a loaded
/// Warped-MC run (callgrind, turing-rtx2060s HOA loads).
#[inline]
fn due(wake: &[u64], now: u64) -> u128 {
    let mut run = 0u128;
    for (k, chunk) in wake.chunks(64).enumerate() {
        let mut m = 0u64;
        for (i, &w) in chunk.iter().enumerate() {
            m |= u64::from(now >= w) << i;
        }
        run |= u128::from(m) << (64 * k);
    }
    run
}

/// The set of controllers `0..n` (n <= 128).
#[inline]
fn set_of(n: usize) -> u128 {
    if n >= 128 {
        u128::MAX
    } else {
        (1u128 << n) - 1
    }
}

/// Move a group's candidate windows into its block input, or back.
fn swap_windows(windows: &mut [Vec<Option<Cand>>], inp: &mut WmcIn) {
    for (w, ci) in windows.iter_mut().zip(inp.ctrl.iter_mut()) {
        std::mem::swap(w, &mut ci.cands);
    }
}

/// Whether `row` is the open row of `bank`.
#[inline]
fn hits(ch: &Channel, bank: u32, row: u32) -> bool {
    ch.open_row(bank) == Some(row)
}

/// Candidate-window entry of a pending request, given its channel's open rows.
#[inline]
fn cand(ch: &Channel, e: &Entry) -> Cand {
    Cand {
        gwid: e.gwid,
        bank: e.bank(),
        row: e.row,
        slot: e.slot.into(),
        hit: hits(ch, e.bank(), e.row),
    }
}

/// Distribution summary, in cycles.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Dist {
    pub mean: f64,
    pub p50: u64,
    pub p95: u64,
    pub p99: u64,
    pub max: u64,
}

impl Dist {
    pub fn of(mut v: Vec<u64>) -> Dist {
        if v.is_empty() {
            return Dist::default();
        }
        v.sort_unstable();
        let pct = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
        Dist {
            mean: v.iter().map(|&x| u128::from(x)).sum::<u128>() as f64 / v.len() as f64,
            p50: pct(0.50),
            p95: pct(0.95),
            p99: pct(0.99),
            max: v[v.len() - 1],
        }
    }
}

/// Results of a memory-system run.
#[derive(Debug, Clone, Serialize)]
pub struct McSummary {
    pub scheduler: &'static str,
    pub requests: u64,
    pub warp_loads: u64,
    pub cycles: u64,
    /// Data-bus busy fraction, averaged over channels (0-1).
    pub bandwidth_util: f64,
    /// Column commands that found their row open, over all column commands (0-1).
    pub row_hit_rate: f64,
    /// Per request: completion - arrival.
    pub latency: Dist,
    /// When the stimulus has prefetches (seed 001): the latency of the demand reads and of the
    /// prefetches apart, from the first prefetch's completion on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub demand_latency: Option<Dist>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefetch_latency: Option<Dist>,
    /// Per warp load: last completion - first completion of its requests.
    pub divergence: Dist,
    /// Per warp load: last completion - first arrival.
    pub warp_time: Dist,
    pub commands: u64,
    pub activations: u64,
    pub refreshes: u64,
}

/// What one cycle of a WET group did, for co-simulation of its block.
pub struct GroupCycle<'a> {
    pub group: usize,
    pub input: &'a WmcIn,
    pub output: &'a WmcOut,
}

/// Called after each cycle of the watched WET group (co-simulation of its block).
pub type Hook<'h> = dyn FnMut(GroupCycle) -> Result<(), String> + 'h;

/// The memory system.
pub struct MemSystem {
    scheduler: Scheduler,
    /// `prefetch.demand_first` (not under Warped-MC): the scheduler's demand-first variant
    /// replaces the plain one when the first prefetch is offered (until then every request is
    /// a demand request and the two pick alike), so traffic without prefetches runs the plain
    /// one.
    demand_first: bool,
    /// The scheduler's implementation: this system's cycle, compiled for it.
    imp: sched::Impl,
    map: AddressMap,
    atom: u64,
    cap: usize,
    write_high: usize,
    write_low: usize,
    ctrls: Vec<Controller>,
    groups: Vec<WarpedMc>,
    per_group: usize,
    /// Requests of the current cycle's column commands, for the caller to take.
    completions: Vec<Completion>,
    /// The requests accepted, with the cycle they arrived ([`MemSystem::log_offers`]).
    offered: Option<Vec<Request>>,
    /// At most this many requests wait per channel for room in its pending queue (unbounded:
    /// an open-loop system, whose arrivals never wait for anything).
    wait_limit: usize,
    pt_slots: u32,
    now: u64,
    trace: Option<Vec<TraceCmd>>,
    banks: usize,
    /// Per cycle working storage, kept to avoid allocating every cycle.
    incoming: Vec<Option<Entry>>,
    inputs: Vec<WmcIn>,
    /// Per controller: the command its group's block selected this cycle.
    sel: Vec<Option<(u32, BankCmd, u32, u32)>>,
    /// Per controller: a lower bound on the next cycle it can issue a command (see
    /// [`MemSystem::cycle`]).
    wake: Vec<u64>,
    /// The earliest of `wake` (no controller runs before it).
    first_wake: u64,
    /// Controller sets (bit `c` for controller `c`; dram.channels <= 128, validated): waiting
    /// requests, an enqueue this cycle (`incoming`), a service / an activation last cycle
    /// (`svc` / `act` of the controller).
    waiting: u128,
    enq_set: u128,
    svc_set: u128,
    act_set: u128,
    /// Per group: 1 + the last cycle its block was stepped or absorbed a cycle (0: never).
    touched: Vec<u64>,
    /// Requests accepted and not completed.
    outstanding: usize,
    /// Requests completed so far.
    issued: u64,
    /// Skip quiet cycles (off while a co-simulation hook watches every cycle).
    skip: bool,
    /// Controllers in one WET scope.
    wet_ctrls: usize,
    /// Cycles without a completion, while requests are pending, after which a run is stalled:
    /// [`STALL_CYCLES`] plus [`STALL_REFRESHES`] refresh intervals.
    stall_window: u64,
    /// Requests completed when the current stall window opened, and that cycle: the system
    /// stalls when no request completes for too long ([`STALL_CYCLES`];
    /// [`MemSystem::check_stall`]).
    stall_issued: u64,
    stall_since: u64,
    /// Per group: its WET scope.
    group_scope: Vec<usize>,
    /// Per controller (Warped-MC and Div-First): its candidate window, the pending requests of
    /// the current mode oldest first (occupied slots only; padded to the queue size only for a
    /// watched group's checked step); kept current as
    /// requests enter and leave and banks open and close, rebuilt when the mode changes.
    cands: Vec<Vec<Option<Cand>>>,
    /// Per controller and global warp id (flat, `wet_entries` per controller): the requests of
    /// the warp in the controller's candidate window; kept with the windows (Warped-MC and
    /// Div-First). A service can raise a row score only in a window holding its warp.
    present: Vec<u16>,
    wet_entries: usize,
    /// Per WET scope: this cycle's WET change per warp id (enqueues minus services), and the
    /// global warp ids of its services.
    scope_sum: Vec<Vec<(u32, i64)>>,
    scope_svc: Vec<Vec<u32>>,
    /// Per WET scope: its warp entry table, shared by the scope's blocks (their copies would
    /// hold the same values, see [`Wet`]); a watched block keeps and checks its own.
    wets: Vec<Wet>,
    /// Working storage: the own events of a block that absorbs a cycle.
    own: Vec<OwnEvents>,
}

/// A request the system cannot take.
#[derive(Debug, thiserror::Error)]
pub enum McError {
    #[error("{0}")]
    Illegal(#[from] IllegalInput),
    #[error("request {index}: {message}")]
    Request { index: usize, message: String },
    #[error("co-simulation hook: {0}")]
    Hook(String),
    #[error("the memory system stopped making progress: {pending} requests are pending and none completed from cycle {since} to cycle {now}")]
    Stalled {
        pending: usize,
        since: u64,
        now: u64,
    },
}

/// Cycles without a completion, while requests are pending, after which a run is stalled
/// (beyond [`STALL_REFRESHES`] refresh intervals too): far longer than any legal configuration
/// needs to complete a request (validation guarantees a request can complete between two
/// refreshes).
pub const STALL_CYCLES: u64 = 1_000_000;

/// See [`STALL_CYCLES`].
pub const STALL_REFRESHES: u64 = 8;

impl MemSystem {
    /// An idle system for a validated spec: every bank closed at cycle 0, nothing pending.
    pub fn new(spec: &Spec) -> MemSystem {
        let d = &spec.dram;
        let map = d.map.clone();
        let timing = ChannelTiming::of(d);
        let ctrls = (0..d.channels)
            .map(|_| Controller {
                ch: Channel::new(timing),
                queue: [0, 1].map(|_| Vec::with_capacity(spec.mc.queue_entries as usize)),
                keys: Vec::with_capacity(spec.mc.queue_entries as usize),
                wait: VecDeque::new(),
                held: Vec::with_capacity(spec.mc.queue_entries as usize + 1),
                free: Vec::new(),
                write_mode: false,
                prio: 0,
                svc: None,
                act: None,
                nreq: vec![0; d.banks as usize],
                nhit: vec![0; d.banks as usize],
                times: Box::new([[u64::MAX; 2]; 64]),
                timed: 0,
                ready_at: Box::new([u64::MAX; 64]),
                ready_ok: false,
                req_mask: 0,
                hit_mask: 0,
                miss_mask: 0,
                npf: vec![0; d.banks as usize],
                npf_hit: vec![0; d.banks as usize],
                npf_all: 0,
            })
            .collect();
        let per_group = spec.wmc.controllers_per_wet as usize;
        let groups = (0..d.channels as usize / per_group)
            .map(|_| WarpedMc::new(&spec.wmc))
            .collect::<Vec<_>>();
        let atom = u64::from(d.atom_bytes);
        let groups_n = groups.len();
        let imp = sched::of(spec.mc.scheduler, false);
        MemSystem {
            scheduler: spec.mc.scheduler,
            demand_first: spec.prefetch.demand_first && spec.mc.scheduler != Scheduler::Warped,
            imp,
            map,
            atom,
            cap: spec.mc.queue_entries as usize,
            write_high: spec.mc.write_high as usize,
            write_low: spec.mc.write_low as usize,
            ctrls,
            groups,
            per_group,
            completions: Vec::new(),
            offered: None,
            wait_limit: usize::MAX,
            pt_slots: spec.wmc.pt_slots,
            now: 0,
            trace: None,
            banks: spec.dram.banks as usize,
            incoming: vec![None; d.channels as usize],
            inputs: Vec::new(),
            sel: vec![None; d.channels as usize],
            wake: vec![0; d.channels as usize],
            first_wake: 0,
            waiting: 0,
            enq_set: 0,
            svc_set: 0,
            act_set: 0,
            touched: vec![0; groups_n],
            outstanding: 0,
            issued: 0,
            skip: true,
            wet_ctrls: spec.wmc.wet_ctrls as usize,
            stall_issued: 0,
            stall_since: 0,
            stall_window: STALL_CYCLES
                + if d.refresh {
                    STALL_REFRESHES * u64::from(d.timing.t_refi)
                } else {
                    0
                },
            group_scope: (0..groups_n)
                .map(|g| g * per_group / spec.wmc.wet_ctrls as usize)
                .collect(),
            cands: vec![Vec::with_capacity(spec.mc.queue_entries as usize); d.channels as usize],
            scope_sum: vec![Vec::new(); (d.channels / spec.wmc.wet_ctrls) as usize],
            scope_svc: vec![Vec::new(); (d.channels / spec.wmc.wet_ctrls) as usize],
            wets: vec![Wet::new(&spec.wmc); (d.channels / spec.wmc.wet_ctrls) as usize],
            own: Vec::new(),
            present: if imp.uses_block {
                vec![0; d.channels as usize * spec.wmc.wet_entries as usize]
            } else {
                Vec::new()
            },
            wet_entries: spec.wmc.wet_entries as usize,
        }
    }

    /// Record every issued command (for `--command-trace` and the independent checker).
    pub fn record_commands(&mut self) {
        self.trace = Some(Vec::new());
    }

    pub fn commands(&self) -> &[TraceCmd] {
        self.trace.as_deref().unwrap_or(&[])
    }

    pub fn now(&self) -> u64 {
        self.now
    }

    pub fn address_map(&self) -> &AddressMap {
        &self.map
    }

    /// Requests accepted and not completed.
    pub fn outstanding(&self) -> usize {
        self.outstanding
    }

    /// The controller (channel) that `addr` goes to.
    pub fn channel_of(&self, addr: u64) -> usize {
        self.map.route(addr).0 as usize
    }

    /// Whether controller `c`'s wait list takes an offer now ([`MemSystem::offer`] refuses
    /// one otherwise). Its room grows only in [`MemSystem::cycle`], so a caller refused can ask
    /// this, not offer again, until it does.
    pub fn has_room(&self, c: usize) -> bool {
        self.ctrls[c].wait.len() < self.wait_limit
    }

    /// Refuse an offer when `limit` requests already wait for room in its channel's pending
    /// queue (unbounded by default: the open-loop DRAM system).
    pub fn set_wait_limit(&mut self, limit: usize) {
        self.wait_limit = limit.max(1);
    }

    /// Offer a request at the current cycle (`r.cycle` is when it arrived, for its latency);
    /// `tag` comes back with its completion. Refused when its channel's wait list is full. A
    /// request the address map cannot place is an error naming `tag`.
    pub fn offer(&mut self, r: Request, tag: u64) -> Result<Offer, McError> {
        let dec = self.map.decode(r.addr);
        let c = dec.channel as usize;
        if !self.has_room(c) {
            return Ok(Offer::Refused);
        }
        if dec.row > u64::from(u32::MAX) {
            return Err(McError::Request {
                index: tag as usize,
                message: format!("row {} of address {:#x} is too large", dec.row, r.addr),
            });
        }
        // (Powers of two, validated: a shift and a mask, not two divisions per request.)
        let col = (dec.col >> self.atom.trailing_zeros()) as u32;
        let gwid = self
            .groups
            .first()
            .map_or(0, |g| g.gwid(r.sm, r.warp, r.pc));
        if self.outstanding == 0 {
            // Into an empty system: the stall window opens now.
            (self.stall_issued, self.stall_since) = (self.issued, self.now);
        }
        let e = Entry {
            req: 0,
            bank: dec.bank as u8,
            row: dec.row as u32,
            col,
            slot: (col & (self.pt_slots - 1)) as u16,
            write: r.write,
            prefetch: r.prefetch,
            gwid,
        };
        if r.prefetch && self.demand_first && !self.imp.demand_first {
            // The first prefetch: no request of a queue is one yet, so the demand-first
            // variant's prefetch counts (zero) are current, and so are the wake bounds.
            self.imp = sched::of(self.scheduler, true);
        }
        self.ctrls[c].wait.push_back((e, r, tag));
        self.waiting |= 1 << c;
        self.outstanding += 1;
        if let Some(log) = &mut self.offered {
            log.push(Request {
                cycle: self.now,
                ..r
            });
        }
        Ok(Offer::Accepted)
    }

    /// From now on, keep every accepted request with the cycle it arrived: offered again at
    /// those cycles to a system of the same configuration (open loop), they give its
    /// controllers the same inputs (a reproducer of a run inside the GPU).
    pub fn log_offers(&mut self) {
        self.offered.get_or_insert_with(Vec::new);
    }

    /// The requests kept since [`MemSystem::log_offers`] (or the last call).
    pub fn take_offers(&mut self) -> Vec<Request> {
        self.offered
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// The requests completed since the last call, in the order their column commands issued
    /// (each with the cycle its data transfer ends, which may be after the current cycle).
    pub fn take_completions(&mut self) -> std::vec::Drain<'_, Completion> {
        self.completions.drain(..)
    }

    /// A stall window has passed since `stall_since`: a completion since then, or nothing
    /// pending now, opens the next window; else the system is stalled. With the window opened
    /// again by every offer into an empty system, requests were pending all through it, so a
    /// stall is reported between one and two windows after the last completion, and never
    /// while the system makes progress.
    #[cold]
    fn check_stall(&mut self) -> Result<(), McError> {
        if self.issued != self.stall_issued || self.outstanding == 0 {
            (self.stall_issued, self.stall_since) = (self.issued, self.now);
            return Ok(());
        }
        Err(McError::Stalled {
            pending: self.outstanding,
            since: self.stall_since,
            now: self.now,
        })
    }

    /// Jump over the quiet cycles before `until` (the caller's next offer), which would change
    /// nothing. When nothing is pending anywhere (no queued or waiting request, no event for
    /// the blocks): to `until` or a controller's wake bound (a refresh falling due). When
    /// requests are pending (busy): while no controller may issue (before the earliest wake
    /// bound), no request can enter a pending queue (none waits for a queue with room) and no
    /// event is due to the blocks, a cycle only counts (schedulers without the Warped-MC
    /// block and its warp entry tables: FCFS and FR-FCFS); the jump goes to the earliest of
    /// `until`, the wake bound and the cycle whose end checks for a stall (so a stall is
    /// reported at the same cycle as without the jump). Does nothing when skipping quiet
    /// cycles is off.
    #[inline]
    pub fn skip_idle(&mut self, until: u64) {
        if !self.skip {
            return;
        }
        if self.enq_set != 0 || self.svc_set != 0 || self.act_set != 0 {
            return;
        }
        if self.outstanding != 0 {
            // Busy (the common case under load). Not with the blocks: a quiet cycle still
            // commits their warp entry tables, whose values before the last commit a block
            // reads after skipped cycles ([`WarpedMc::skipped_idle`]).
            if self.imp.uses_block || self.now >= self.first_wake || until <= self.now {
                return;
            }
            for c in bits(self.waiting) {
                if self.ctrls[c].pending() < self.cap {
                    return;
                }
            }
            let to = until
                .min(self.first_wake)
                .min(self.stall_since.saturating_add(self.stall_window));
            self.now = self.now.max(to);
            return;
        }
        if self.waiting != 0 {
            return;
        }
        (self.imp.skip_idle)(self, until);
    }

    /// The first cycle from which a [`MemSystem::cycle`] may do more than count the cycle, if
    /// nothing is offered before it: the cycle [`MemSystem::skip_idle`] would jump to at the
    /// most, whatever the caller's next arrival (`u64::MAX`: never). The current cycle while a
    /// request waits for a queue with room, an event is due to the blocks, a controller may
    /// issue, or skipping quiet cycles is off; with requests pending and the Warped-MC block
    /// or Div-First, every cycle. Idle, a controller with every bank closed whose next refresh
    /// can issue when due issues its refreshes at once in a jump (unless every command is
    /// recorded), so only the others' wake bounds (their refreshes) count.
    pub fn next_work(&self) -> u64 {
        let now = self.now;
        if !self.skip || self.enq_set != 0 || self.svc_set != 0 || self.act_set != 0 {
            return now;
        }
        if self.outstanding != 0 {
            if self.imp.uses_block || now >= self.first_wake {
                return now;
            }
            if bits(self.waiting).any(|c| self.ctrls[c].pending() < self.cap) {
                return now;
            }
            return self
                .first_wake
                .min(self.stall_since.saturating_add(self.stall_window));
        }
        if self.waiting != 0 {
            return now;
        }
        // What `skip_idle_slow` leaves: a passed (stale) bound recomputed as the controller's
        // next refresh; a controller that issues its refreshes at once has its bound
        // recomputed after them, beyond the jump.
        let mut at = u64::MAX;
        for (c, x) in self.ctrls.iter().enumerate() {
            let due = x.ch.refresh_due_at();
            let wake = if self.wake[c] > now {
                self.wake[c]
            } else {
                due.map_or(u64::MAX, |d| d.max(now))
            };
            let at_once = due.is_some_and(|d| {
                self.trace.is_none()
                    && d > now
                    && !x.ch.any_open()
                    && x.ch.can_issue(&Command::refresh(), d)
            });
            if !at_once || due.is_some_and(|d| wake < d) {
                at = at.min(wake);
            }
        }
        at
    }

    /// Jump to cycle `to`, at most [`MemSystem::next_work`]: the cycles before it only count
    /// (and idle controllers issue their refreshes at once), as stepping them would.
    pub fn skip_to(&mut self, to: u64) {
        #[cfg(test)]
        assert!(to <= self.next_work(), "a jump past the next work");
        if to > self.now {
            self.skip_idle(to);
        }
        #[cfg(test)]
        assert_eq!(self.now, to, "the jump fell short");
    }

    /// [`MemSystem::skip_idle`] past its quick checks (kept out of the per-cycle loop).
    #[inline(never)]
    fn skip_idle_slow<P: Policy>(&mut self, target: u64) {
        // Refreshes before the next arrival are issued at once, unless every command is
        // recorded.
        if self.trace.is_none() && target != u64::MAX {
            for c in 0..self.ctrls.len() {
                if self.ctrls[c].ch.idle_refreshes(target) > 0 {
                    self.ctrls[c].timed = 0;
                    self.wake[c] = self.wake_bound::<P>(c, target);
                }
            }
        }
        // A bound that has passed may be stale (bounds are recomputed after a change only):
        // an idle controller's is its next refresh.
        for c in 0..self.ctrls.len() {
            if self.wake[c] <= self.now {
                self.wake[c] = self.wake_bound::<P>(c, self.now);
            }
        }
        let wake = self.wake.iter().copied().min().unwrap_or(u64::MAX);
        self.first_wake = wake;
        let to = target.min(wake);
        if to > self.now {
            self.now = to;
        }
    }

    /// Turn skipping of quiet cycles off or on (on by default). Results are identical either
    /// way (a test checks this); with it off every controller runs its scheduler and (Warped-MC)
    /// every group's block steps every cycle.
    pub fn set_skip_quiet(&mut self, on: bool) {
        self.skip = on;
    }

    /// One cycle of every controller. Requests offered before it are this cycle's arrivals.
    /// With a hook `(g, f)`, WET group `g` steps its block every cycle and `f` sees each of
    /// its cycles (co-simulation); other groups skip cycles in which their block would not
    /// change. A system that completes nothing for a stall window while requests are pending
    /// is [`McError::Stalled`].
    pub fn cycle(&mut self, hook: Option<(usize, &mut Hook<'_>)>) -> Result<(), McError> {
        (self.imp.tick)(self, hook)
    }

    /// [`MemSystem::cycle`] for policy `P`.
    fn tick_with<P: Policy>(
        &mut self,
        mut hook: Option<(usize, &mut Hook<'_>)>,
    ) -> Result<(), McError> {
        let now = self.now;
        // 1. Arrivals: offered before the cycle.
        // 2. Enqueue (one per controller), visible from the next cycle.
        for c in bits(self.enq_set) {
            self.incoming[c] = None;
        }
        self.enq_set = 0;
        for c in bits(self.waiting) {
            let ctrl = &mut self.ctrls[c];
            if ctrl.pending() < self.cap {
                if let Some((mut e, r, tag)) = crate::ring::pop_front(&mut ctrl.wait) {
                    e.req = match ctrl.free.pop() {
                        Some(i) => {
                            ctrl.held[i as usize] = (r, tag);
                            i
                        }
                        None => {
                            ctrl.held.push((r, tag));
                            (ctrl.held.len() - 1) as u16
                        }
                    };
                    self.incoming[c] = Some(e);
                    self.enq_set |= 1 << c;
                }
                if ctrl.wait.is_empty() {
                    self.waiting &= !(1 << c);
                }
            }
        }
        // 3./4. Decide and issue.
        //
        // Quiet cycles are skipped (unless `skip` is off). `wake[c]` is a lower bound on the
        // first cycle at which controller `c` could issue a command, valid while its queue,
        // mode and banks do not change. Before it, no scheduler would find anything to issue.
        // A Warped-MC group evaluates its block when one of its controllers may issue;
        // otherwise the step would select nothing and [`WarpedMc::absorb`] takes the cycle's
        // events instead. `run`: the controllers that run their scheduler.
        let run = if !self.skip {
            set_of(self.ctrls.len())
        } else if now >= self.first_wake {
            due(&self.wake, now)
        } else {
            0
        };
        let events = self.enq_set | self.svc_set | self.act_set;
        if P::USES_BLOCK {
            let wc = self.wet_ctrls;
            for (sc, (sum, svc)) in self
                .scope_sum
                .iter_mut()
                .zip(self.scope_svc.iter_mut())
                .enumerate()
            {
                sum.clear();
                svc.clear();
                let scope = ((self.enq_set | self.svc_set) >> (sc * wc)) & set_of(wc);
                for c in bits(scope).map(|k| sc * wc + k) {
                    let ev = [
                        self.incoming[c].map(|e| (e.gwid, 1)),
                        self.ctrls[c].svc.map(|g| (g, -1)),
                    ];
                    for (g, d) in ev.into_iter().flatten() {
                        Wet::add(sum, g, d);
                    }
                    svc.extend(self.ctrls[c].svc);
                }
                self.wets[sc].stage(sum);
            }
            // The groups visited: those with a controller that runs or has events, those with
            // a window holding a warp whose service may raise a row score (it leaves the warp
            // one pending request), and the watched one. A group left out has no events of its
            // own and no service could raise its row scores; its block catches up at its next
            // step ([`WarpedMc::skipped_idle`]).
            // A policy the block does not select for (Div-First, which schedules on the shared
            // WET alone) visits the watched block only.
            let per = self.per_group;
            let mut active = run | events;
            for (sc, w) in self.wets.iter().enumerate() {
                if !P::BLOCK_SELECTS || !w.leaves_one() {
                    continue;
                }
                for &g in &self.scope_svc[sc] {
                    if w.staged(g) == Some(1) {
                        for c in sc * wc..(sc + 1) * wc {
                            let holds = self.present[c * self.wet_entries + g as usize] != 0;
                            active |= u128::from(holds) << c;
                        }
                    }
                }
            }
            let mut visit = if per == 1 && P::BLOCK_SELECTS {
                active
            } else {
                0
            };
            if per > 1 && P::BLOCK_SELECTS {
                for g in 0..self.groups.len() {
                    visit |= u128::from(active >> (g * per) & set_of(per) != 0) << g;
                }
            }
            if let Some((hg, _)) = &hook {
                visit |= 1 << hg;
            }
            let mut inputs = std::mem::take(&mut self.inputs);
            inputs.resize_with(self.groups.len(), WmcIn::default);
            for g in bits(visit) {
                let inp = &mut inputs[g];
                let cs = g * per..(g + 1) * per;
                let watched = hook.as_ref().is_some_and(|(hg, _)| *hg == g);
                let sc = self.scope(g);
                let own = set_of(per) << cs.start;
                if !watched && run & own == 0 {
                    self.touched[g] = now + 1;
                    self.own.clear();
                    if events & own != 0 {
                        self.own.extend(cs.clone().map(|c| OwnEvents {
                            enq: self.incoming[c].is_some(),
                            svc: self.ctrls[c].svc,
                            act: self.ctrls[c].act,
                        }));
                    }
                    self.groups[g].absorb_shared(
                        &self.scope_svc[sc],
                        &self.own,
                        &self.cands[cs],
                        &self.wets[sc],
                    );
                    continue;
                }
                if self.touched[g] != now {
                    self.groups[g].skipped_idle();
                }
                self.touched[g] = now + 1;
                self.fill_group_input(g, now, inp, watched);
                let out = if watched {
                    // The RTL's window has every slot: the checked step and the hook see them.
                    for ci in &mut inp.ctrl {
                        ci.cands.resize(self.cap, None);
                    }
                    self.groups[g].step(inp)
                } else {
                    Ok(self.groups[g].step_shared(inp, &self.scope_svc[sc], &self.wets[sc]))
                };
                // The candidate windows go back to their cache (the hook has seen them below).
                let out = match out {
                    Ok(o) => o,
                    Err(e) => {
                        swap_windows(&mut self.cands[cs], inp);
                        return Err(e.into());
                    }
                };
                for (k, co) in out.ctrl.iter().enumerate() {
                    self.sel[g * per + k] = co.sel;
                }
                let seen = match hook.as_mut().filter(|(hg, _)| *hg == g) {
                    Some((_, h)) => h(GroupCycle {
                        group: g,
                        input: inp,
                        output: out,
                    }),
                    None => Ok(()),
                };
                if watched {
                    for ci in &mut inp.ctrl {
                        let n = ci.cands.iter().position(Option::is_none);
                        ci.cands.truncate(n.unwrap_or(ci.cands.len()));
                    }
                }
                swap_windows(&mut self.cands[cs], inp);
                seen.map_err(McError::Hook)?;
            }
            self.inputs = inputs;
            for w in &mut self.wets {
                w.commit();
            }
            // Unit tests check that a watched block's own WET copy is the shared one.
            #[cfg(test)]
            if let Some((g, _)) = &hook {
                let sc = self.scope(*g);
                assert_eq!(
                    self.groups[*g].wet().values(),
                    self.wets[sc].values(),
                    "group {g}'s WET copy at {now}"
                );
            }
        }
        // Last cycle's events have reached the blocks.
        for c in bits(self.svc_set | self.act_set) {
            self.ctrls[c].svc = None;
            self.ctrls[c].act = None;
        }
        (self.svc_set, self.act_set) = (0, 0);
        let mut rewoken = false;
        for c in bits(run | self.enq_set) {
            let mut changed = false;
            if run >> c & 1 != 0 {
                let pick = if self.ctrls[c].ch.refresh_due(now) {
                    self.refresh_command(c, now)
                } else {
                    P::pick(self, c, now)
                };
                if let Some((cmd, entry)) = pick {
                    self.issue::<P>(c, cmd, entry, now)?;
                    changed = true;
                }
            }
            // Enqueued requests join their queues; write-drain mode follows the queue.
            let (track, counted) = (P::USES_BLOCK, P::COUNTED);
            let ctrl = &mut self.ctrls[c];
            if let Some(e) = self.incoming[c] {
                ctrl.queue[usize::from(e.write)].push(e);
                changed = true;
                if e.write == ctrl.write_mode {
                    ctrl.keys.push(e.key());
                    if counted {
                        let hit = hits(&ctrl.ch, e.bank(), e.row);
                        ctrl.tally(&e, true, hit, P::DEMAND_FIRST);
                    }
                    if track {
                        self.cands[c].push(Some(cand(&ctrl.ch, &e)));
                        self.present[c * self.wet_entries + e.gwid as usize] += 1;
                    }
                }
            }
            if changed {
                let (reads, writes) = (ctrl.queue[0].len(), ctrl.queue[1].len());
                let flip = if !ctrl.write_mode {
                    writes >= self.write_high || (reads == 0 && writes > 0)
                } else {
                    writes == 0 || (writes <= self.write_low && reads > 0)
                };
                if flip {
                    ctrl.write_mode = !ctrl.write_mode;
                    ctrl.timed = 0;
                    ctrl.rebuild_keys();
                    if counted {
                        ctrl.recount(P::DEMAND_FIRST);
                    }
                    if track {
                        self.rebuild_cands(c);
                    }
                }
            }
            // The bound is recomputed after a change only: without one, the bound a
            // recomputation would give is the old one or, once that has passed, the next
            // cycle, and a passed bound already lets the controller run then.
            if changed {
                self.ctrls[c].ready_ok = false;
            }
            if self.skip && changed {
                self.wake[c] = self.wake_bound::<P>(c, now + 1);
                rewoken = true;
            }
        }
        if rewoken {
            self.first_wake = self.wake.iter().copied().min().unwrap_or(u64::MAX);
        }
        if !P::USES_BLOCK {
            // The cycle's enqueues are events for the blocks only: without one they end now,
            // and the next cycle may be a quiet one ([`MemSystem::skip_idle`]).
            for c in bits(self.enq_set) {
                self.incoming[c] = None;
            }
            self.enq_set = 0;
        }
        // Unit tests check the incrementally kept candidate windows every cycle.
        #[cfg(test)]
        for c in 0..self.ctrls.len() {
            if P::USES_BLOCK {
                let mut w = Vec::new();
                self.ctrls[c].window(&mut w);
                assert_eq!(self.cands[c], w, "controller {c}'s window at {now}");
                let mut present = vec![0u16; self.wet_entries];
                for x in w.iter().flatten() {
                    present[x.gwid as usize] += 1;
                }
                let kept = &self.present[c * self.wet_entries..(c + 1) * self.wet_entries];
                assert_eq!(kept, &present[..], "controller {c}'s warps at {now}");
            }
            let mut x = self.ctrls[c].clone();
            x.rebuild_keys();
            assert_eq!(x.keys, self.ctrls[c].keys, "controller {c}'s keys at {now}");
            if P::COUNTED {
                x.recount(P::DEMAND_FIRST);
            }
            let y = &self.ctrls[c];
            assert_eq!(
                (&x.nreq, &x.nhit, x.req_mask, x.hit_mask, x.miss_mask),
                (&y.nreq, &y.nhit, y.req_mask, y.hit_mask, y.miss_mask),
                "controller {c}'s bank counts at {now}"
            );
            assert_eq!(
                (&x.npf, &x.npf_hit, x.npf_all),
                (&y.npf, &y.npf_hit, y.npf_all),
                "controller {c}'s prefetch counts at {now}"
            );
        }
        self.now += 1;
        // Checked once a stall window has passed, not every cycle (the loop is hot).
        if self.now - self.stall_since > self.stall_window {
            self.check_stall()?;
        }
        Ok(())
    }

    /// A lower bound on the first cycle `>= from` at which controller `c` could issue any
    /// command, as long as its queue, mode and banks do not change: the earliest of a due
    /// refresh and of the commands its scheduler could pick. FCFS: the oldest request's
    /// command. FR-FCFS and Warped-MC, per bank with requests of the current mode: the column
    /// command if one hits the open row, else a precharge (row open) or an activate (closed).
    /// Div-First (whose urgency changes with the shared warp entry table): the column command
    /// and the precharge of an open bank, the activate of a closed one.
    // Always inlined: it runs in every cycle's loop, and with its other call site (skipping
    // idle time) the compiler would otherwise keep it out of line: 6% more instructions in
    // `MemSystem::run` (callgrind, turing-rtx2060s HOA loads, every scheduler).
    #[inline(always)]
    fn wake_bound<P: Policy>(&mut self, c: usize, from: u64) -> u64 {
        // The banks' bounds are kept only from a full computation below.
        self.ctrls[c].ready_ok = false;
        let x = &self.ctrls[c];
        let wake = x.ch.refresh_due_at().unwrap_or(u64::MAX).max(from);
        if wake == from {
            return from;
        }
        // Per bank (dram.banks <= 64, validated): has a request, has a hit, has a miss.
        let (any, hit, miss) = P::wake_masks(x);
        let x = &mut self.ctrls[c];
        let open = x.ch.open_mask();
        // The banks whose first bound counts (closed: its activate; open with a hit: its
        // column command) and those whose precharge counts (open with a miss, unless a hit
        // is served first). (Demand first: a demand miss may precharge over a prefetch's hit,
        // when prefetches are pending.)
        let over = P::PRE_OVER_HITS || P::DEMAND_FIRST && x.npf_all != 0;
        let by_first = any & (!open | hit);
        let by_pre = any & open & miss & if over { u64::MAX } else { !hit };
        // An open bank with a request counted as neither: no bound, conservatively `from`.
        if any & open & !hit & !miss != 0 {
            return from;
        }
        // Each bank's own part of its bound, raised to the rank-wide part of its kind of
        // command, and the earliest of them; the raised bounds are kept for the next pick
        // (FR-FCFS's readiness without the bounds' recomputation: `ready_at`).
        // (No branch on whether each bank is open: it would follow the requests and
        // mispredict.)
        x.times_of(by_first | by_pre);
        let [cas_floor, act_floor, any_floor] = x.ch.rank_floor(x.write_mode);
        let (times, ready) = (&x.times, &mut x.ready_at);
        let mut earliest = |mut m: u64, k: usize, floor: u64| {
            let mut t = u64::MAX;
            while m != 0 {
                let b = slot(m.trailing_zeros());
                m &= m - 1;
                let r = times[b][k & 1].max(floor);
                ready[b] = r;
                t = t.min(r);
            }
            t
        };
        let t = if over {
            earliest(by_first & open, 0, cas_floor)
                .min(earliest(by_first & !open, 0, act_floor))
                .min(earliest(by_pre, 1, any_floor))
        } else {
            // The kinds are disjoint (a precharge counts only for a bank without a hit): one
            // loop, each bank's kind and floor picked without a branch. (Three loops, one per
            // kind, each left at a count that follows the requests.)
            let floors = [act_floor, cas_floor, any_floor, any_floor];
            let (mut m, mut t) = (by_first | by_pre, u64::MAX);
            while m != 0 {
                let b = m.trailing_zeros();
                m &= m - 1;
                let pre = (by_pre >> b & 1) as usize;
                let k = (2 * pre) | (open >> b & 1) as usize;
                let r = times[slot(b)][pre].max(floors[k]);
                ready[slot(b)] = r;
                t = t.min(r);
            }
            t
        };
        // (A bank counted by both kinds, when a demand miss may precharge over a prefetch's
        // hit, holds the later one; the picks read the bounds only when none is.)
        x.ready_ok = !over;
        wake.min(t).max(from)
    }

    /// The WET scope of group `g`.
    fn scope(&self, g: usize) -> usize {
        self.group_scope[g]
    }

    /// The controllers of group `g`'s WET scope, in port order: the group's own controllers
    /// first, then the rest of the scope in channel order.
    fn scope_of(&self, g: usize) -> impl Iterator<Item = usize> + Clone {
        let own = g * self.per_group..(g + 1) * self.per_group;
        let first = own.start / self.wet_ctrls * self.wet_ctrls;
        let rest = (first..first + self.wet_ctrls).filter(move |c| !own.contains(c));
        (g * self.per_group..(g + 1) * self.per_group).chain(rest)
    }

    /// Rebuild controller `c`'s candidate window (its pending queue of the current mode, oldest
    /// first, with hit flags) after its mode changed.
    fn rebuild_cands(&mut self, c: usize) {
        let present = &mut self.present[c * self.wet_entries..(c + 1) * self.wet_entries];
        for x in self.cands[c].iter().flatten() {
            present[x.gwid as usize] -= 1;
        }
        self.ctrls[c].window(&mut self.cands[c]);
        for x in self.cands[c].iter().flatten() {
            present[x.gwid as usize] += 1;
        }
    }

    /// This cycle's enqueue of controller `c`, as the warp alias table sees it.
    fn enq_of(&self, c: usize) -> Option<Enq> {
        self.incoming[c].map(|e| {
            let r = &self.ctrls[c].held[e.req as usize].0;
            Enq {
                sm: r.sm,
                warp: r.warp,
                pc: r.pc,
            }
        })
    }

    /// The Warped-MC block inputs of one group this cycle, written into `inp` (the group's
    /// candidate windows are current). The windows move into `inp`; the caller moves them back
    /// after the step.
    /// `inp.enq` and the other controllers' `inp.svc` are filled only for a watched group (the
    /// others take the shared WET and the scope's service list).
    fn fill_group_input(&mut self, g: usize, now: u64, inp: &mut WmcIn, watched: bool) {
        let first = g * self.per_group;
        inp.ctrl.resize_with(self.per_group, CtrlIn::default);
        if watched {
            inp.enq.resize(self.wet_ctrls, None);
            inp.svc.resize(self.wet_ctrls, None);
            for (i, c) in self.scope_of(g).enumerate() {
                inp.enq[i] = self.enq_of(c);
                inp.svc[i] = self.ctrls[c].svc;
            }
        } else {
            // The block reads its own controllers' services only (they come first).
            inp.enq.clear();
            inp.svc.clear();
            inp.svc.extend(
                self.ctrls[first..first + self.per_group]
                    .iter()
                    .map(|x| x.svc),
            );
        }
        swap_windows(&mut self.cands[first..first + self.per_group], inp);
        for (c, ci) in (first..first + self.per_group).zip(inp.ctrl.iter_mut()) {
            let x = &mut self.ctrls[c];
            ci.act = x.act;
            ci.bank_open = x.ch.open_mask();
            ci.cas_ready = 0;
            ci.pre_ready = 0;
            ci.act_ready = 0;
            if x.ch.refresh_due(now) {
                continue;
            }
            // Readiness of the banks holding candidates: past the first bound (`f`: CAS if
            // open, ACT if closed) and past the second (`p`: PRE).
            let req = x.req_mask;
            let (f, p) = x.past_bounds(req, now);
            let open = ci.bank_open & req;
            ci.cas_ready = open & f;
            ci.pre_ready = open & p;
            ci.act_ready = req & !ci.bank_open & f;
        }
    }

    fn refresh_command(&self, c: usize, now: u64) -> Pick {
        let ch = &self.ctrls[c].ch;
        let cmd = if ch.any_open() {
            Command::prea()
        } else {
            Command::refresh()
        };
        ch.can_issue(&cmd, now).then_some((cmd, None))
    }

    /// Per bank, the request a GPGPU-Sim-style scheduler serves next: with `urgent` (a WET
    /// scope: Div-First) a warp's last pending request first, else (FR-FCFS) the oldest hit on
    /// the open row, else the bank's oldest request. Banks are scanned round-robin from
    /// `prio`; the first bank whose command can issue wins. It scores every request each
    /// call: the reference the schedulers' picks ([`Controller::frfcfs_pick`],
    /// [`Controller::divfirst_pick`]) are checked against in unit tests. With demand-first
    /// scheduling, the pick among the demand requests comes first.
    #[cfg(test)]
    fn per_bank(&mut self, c: usize, now: u64, urgent: Option<usize>, df: bool) -> Pick {
        if df {
            let pick = self.per_bank_of(c, now, urgent, true);
            if pick.is_some() {
                return pick;
            }
        }
        self.per_bank_of(c, now, urgent, false)
    }

    /// [`MemSystem::per_bank`] among every request, or the demand requests (`demand`).
    #[cfg(test)]
    fn per_bank_of(&mut self, c: usize, now: u64, urgent: Option<usize>, demand: bool) -> Pick {
        let wet = urgent.map(|sc| &self.wets[sc]);
        let x = &mut self.ctrls[c];
        // Per bank (dram.banks <= 64, validated): the entry index picked (valid where `has`
        // has the bank's bit), and whether it is preferred (bit of `pref`). Queues hold at most
        // 256 entries (validated).
        let mut pick = [0u16; 64];
        let (mut has, mut pref) = (0u64, 0u64);
        for (i, e) in x.mode_queue().iter().enumerate() {
            let bit = 1u64 << e.bank();
            if pref & bit != 0 || demand && e.prefetch {
                continue;
            }
            let p = match wet {
                Some(w) => w.get(e.gwid) <= 1,
                None => hits(&x.ch, e.bank(), e.row),
            };
            if has & bit == 0 || p {
                pick[e.bank() as usize] = i as u16;
                has |= bit;
                if p {
                    pref |= bit;
                }
            }
        }
        // The banks whose picked request's command can issue now (the bounds of the bank's
        // state, see `bank_times`), then the first from the pointer.
        let mut ready = 0u64;
        let mut m = has;
        while m != 0 {
            let b = m.trailing_zeros();
            m &= m - 1;
            let row = x.mode_queue()[usize::from(pick[b as usize])].row;
            let [first, pre] = x.bank_times(b);
            let t = match x.ch.open_row(b) {
                Some(r) if r != row => pre,
                _ => first,
            };
            ready |= u64::from(t <= now) << b;
        }
        if ready == 0 {
            return None;
        }
        let from = ready & (u64::MAX << x.prio);
        let b = if from != 0 { from } else { ready }.trailing_zeros();
        let i = usize::from(pick[b as usize]);
        let cmd = x.needed(&x.mode_queue()[i]);
        Some((cmd, cmd.kind.is_column().then_some(i)))
    }

    /// Issue `cmd` on controller `c`; `entry`: the index among the requests of the current
    /// mode (and in the candidate window) of the request a column command serves.
    fn issue<P: Policy>(
        &mut self,
        c: usize,
        cmd: Command,
        entry: Option<usize>,
        now: u64,
    ) -> Result<(), McError> {
        let (track, counted) = (P::USES_BLOCK, P::COUNTED);
        let ctrl = &mut self.ctrls[c];
        let row_before = ctrl.ch.open_row(cmd.bank);
        let done = ctrl.ch.issue(&cmd, now).map_err(|v| McError::Request {
            index: 0,
            message: format!("controller {c} issued an illegal command: {v}"),
        })?;
        ctrl.timed &= !ctrl.ch.stale_local(cmd.kind, cmd.bank);
        if let Some(t) = &mut self.trace {
            t.push(TraceCmd::new(now, c as u32, &cmd));
        }
        if track && cmd.kind == CmdKind::Act {
            ctrl.act = Some((cmd.bank, cmd.row));
            self.act_set |= 1 << c;
        }
        if matches!(cmd.kind, CmdKind::Act | CmdKind::Pre) {
            // (Wrapped by a compare, not `%`: a division on every activate and precharge.)
            let next = cmd.bank + 1;
            ctrl.prio = if next == self.banks as u32 { 0 } else { next };
        }
        let w = &mut self.cands[c];
        if let (Some(i), Some(done)) = (entry, done) {
            if track {
                if let Some(x) = w.remove(i) {
                    self.present[c * self.wet_entries + x.gwid as usize] -= 1;
                }
            }
            let e = ctrl.queue[usize::from(ctrl.write_mode)].remove(i);
            ctrl.keys.remove(i);
            if counted {
                ctrl.tally(&e, false, row_before == Some(e.row), P::DEMAND_FIRST);
            }
            let (req, tag) = ctrl.held[e.req as usize];
            ctrl.free.push(e.req);
            self.completions.push(Completion { tag, req, done });
            if track {
                ctrl.svc = Some(e.gwid);
                self.svc_set |= 1 << c;
            }
            self.outstanding -= 1;
            self.issued += 1;
        }
        // The hit counts and flags follow the banks' open rows. A row command to one bank
        // recounts its hits from the window (the requests of the current mode) when it has one.
        let all = matches!(cmd.kind, CmdKind::PreA | CmdKind::Ref);
        let moved = ctrl.ch.open_row(cmd.bank) != row_before;
        let from_window = track && !all && !cmd.kind.is_column();
        if from_window {
            let mut n = 0u16;
            for x in w.iter_mut().flatten() {
                if x.bank == cmd.bank {
                    x.hit = hits(&ctrl.ch, x.bank, x.row);
                    n += u16::from(x.hit);
                }
            }
            if moved && P::DEMAND_FIRST {
                // (The window keeps no request class: the demand hits are counted anew.)
                ctrl.recount_hits(cmd.bank, true);
            } else if moved {
                ctrl.nhit[cmd.bank as usize] = n;
                ctrl.mark(cmd.bank);
            }
        } else if track && all {
            for x in w.iter_mut().flatten() {
                x.hit = hits(&ctrl.ch, x.bank, x.row);
            }
        }
        if counted && all {
            ctrl.recount(P::DEMAND_FIRST);
        } else if counted && moved && !from_window {
            // (A closed bank has no hits: nothing to count.)
            ctrl.recount_hits(cmd.bank, P::DEMAND_FIRST);
        }
        Ok(())
    }

    /// The DRAM side of a run's statistics, over the cycles so far.
    pub fn dram_totals(&self) -> DramTotals {
        let cycles = self.now.max(1);
        let stats: Vec<_> = self.ctrls.iter().map(|c| c.ch.stats()).collect();
        let column: u64 = stats
            .iter()
            .map(|s| {
                CmdKind::ALL
                    .iter()
                    .filter(|k| k.is_column())
                    .map(|k| s.count(*k))
                    .sum::<u64>()
            })
            .sum();
        let acts: u64 = stats.iter().map(|s| s.count(CmdKind::Act)).sum();
        let refreshes: u64 = stats.iter().map(|s| s.count(CmdKind::Ref)).sum();
        let commands: u64 = stats
            .iter()
            .map(|s| CmdKind::ALL.iter().map(|k| s.count(*k)).sum::<u64>())
            .sum();
        let util = stats.iter().map(|s| s.bus_utilization(cycles)).sum::<f64>()
            / stats.len().max(1) as f64;
        DramTotals {
            scheduler: self.scheduler.name(),
            cycles,
            bandwidth_util: util,
            row_hit_rate: if column == 0 {
                0.0
            } else {
                1.0 - acts.min(column) as f64 / column as f64
            },
            commands,
            activations: acts,
            refreshes,
        }
    }
}

#[cfg(test)]
#[path = "system_tests.rs"]
mod system_tests;
