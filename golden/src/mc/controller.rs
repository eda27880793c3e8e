//! The memory controllers, without their scheduler: per channel a wait list, a pending queue
//! split by direction, read/write drain, all-bank refresh, command issue to the [`Channel`] and
//! completion; across channels the cycle, compiled once per scheduler
//! ([`Controllers::cycle_with`]), the quiet-cycle bookkeeping (wake bounds), the stall check and
//! the command trace.
//!
//! Per cycle and controller, in this order:
//! 1. requests of this cycle join the channel's wait list (routed by the address map);
//! 2. at most one waiting request moves into the pending queue (if it has room): this is the
//!    *enqueue* of the cycle; it becomes a candidate from the next cycle;
//! 3. a refresh that is due takes the cycle (PREA while any bank is open, then REF);
//! 4. otherwise the scheduler picks at most one command among the requests of the current mode
//!    (reads, or writes while draining) and issues it; a column command completes its request;
//!    with HBM2's row and column command buses, a scheduler that may ([`Scheduler::DUAL_ISSUE`])
//!    then picks again, a command for the other bus;
//! 5. the write-drain mode is updated.
//!
//! The scheduler ([`Scheduler`]) is told of every change it may keep state about: a request
//! joining the current mode's queue, a command issued (and the request it served), a mode
//! change; it says what it picks and when it could next pick anything (its wake bound).

use super::dram::{Channel, Command, TraceCmd};
use super::sched::Scheduler;
use super::stimulus::Request;
use super::system::{Completion, McError};
use super::timing::ChannelTiming;
// `bits`: the members of a controller set, in ascending order.
use crate::bitset::members128 as bits;
use std::collections::VecDeque;

/// What a scheduler picks: the command a controller issues, and the index (among the
/// requests of the current mode) of the request a column command serves.
pub(super) type Pick = Option<(Command, Option<usize>)>;

/// A command a controller issued, as its scheduler is told of it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Issued {
    pub cmd: Command,
    /// Its bank's open row before it.
    pub row_before: Option<u32>,
    /// The request a column command served: its index among the requests of the current
    /// mode, and the request, already removed from the queue.
    pub served: Option<(usize, Entry)>,
}

/// A request in a pending queue, routed. What it came with is in its controller's
/// [`Controller::held`] at `req`: a table as small as the queue, so it stays in cache however
/// long the backlog.
#[derive(Debug, Clone, Copy)]
pub(super) struct Entry {
    pub row: u32,
    pub col: u32,
    pub gwid: u32,
    /// Column slot mod wmc.pt_slots (<= 1024, validated).
    pub slot: u16,
    /// Index into `held` (at most the queue size, 256, plus the entering request).
    pub req: u16,
    /// dram.banks <= 64 (validated): 20 bytes in all, as queues shift on every removal.
    pub bank: u8,
    pub write: bool,
    /// A prefetch (seed 001): with demand-first scheduling, served after demand requests.
    pub prefetch: bool,
}

impl Entry {
    #[inline]
    pub fn bank(&self) -> u32 {
        u32::from(self.bank)
    }

    /// Its bank and row as one word ([`Controller::keys`]).
    #[inline]
    pub fn key(&self) -> u64 {
        key(self.bank(), self.row)
    }
}

/// One memory controller and its channel (what every scheduler reads; what only some read is
/// the scheduler's own state).
#[derive(Debug, Clone)]
pub(super) struct Controller {
    pub ch: Channel,
    /// The pending queue, split by direction (`[reads, writes]`, each oldest first): the
    /// scheduler serves the requests of the current mode, `queue[write_mode]`, and indexes
    /// its requests there (the candidate window has the same order).
    pub queue: [Vec<Entry>; 2],
    /// The bank and row of each request of the current mode, in queue order ([`key`]): the
    /// scans for a bank's requests and its row hits read these 8 bytes a request, in one
    /// array, rather than the 20-byte entries.
    pub keys: Vec<u64>,
    /// Offered requests waiting for room in the pending queue, oldest first.
    pub wait: VecDeque<(Entry, Request, u64)>,
    /// What the requests of the pending queue (and the one entering it) came with: request
    /// and tag, by `Entry::req`; free slots are reused.
    pub held: Vec<(Request, u64)>,
    pub free: Vec<u16>,
    pub write_mode: bool,
    /// Per bank: [`Channel::bank_local`] for the current mode (its own and its bank group's
    /// part of its bounds), valid where `timed` has the bank's bit (cleared for the banks of
    /// [`Channel::stale_local`] after a command, and when the mode changes).
    /// (A fixed array of the largest bank count, indexed by [`slot`]: no bounds check.)
    pub times: Box<[[u64; 2]; 64]>,
    pub timed: u64,
}

impl Controller {
    fn new(timing: ChannelTiming, queue_entries: usize) -> Controller {
        Controller {
            ch: Channel::new(timing),
            queue: [0, 1].map(|_| Vec::with_capacity(queue_entries)),
            keys: Vec::with_capacity(queue_entries),
            wait: VecDeque::new(),
            held: Vec::with_capacity(queue_entries + 1),
            free: Vec::new(),
            write_mode: false,
            times: Box::new([[u64::MAX; 2]; 64]),
            timed: 0,
        }
    }

    /// Rebuild `keys` from the queue of the current mode (after the mode changed).
    pub fn rebuild_keys(&mut self) {
        self.keys.clear();
        let q = &self.queue[usize::from(self.write_mode)];
        self.keys.extend(q.iter().map(Entry::key));
    }

    /// The command a request needs next, given its bank's state.
    pub fn needed(&self, e: &Entry) -> Command {
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

    /// The pick of request `i` of the current mode: its command, and `i` if that is a column
    /// command (which serves it).
    #[inline]
    pub fn serve(&self, i: usize) -> Pick {
        let cmd = self.needed(&self.mode_queue()[i]);
        Some((cmd, cmd.kind.is_column().then_some(i)))
    }

    /// Make `times` valid for every bank of `banks` (a mask), and return it: a scheduler reads
    /// the bounds of every bank with a request, so they are brought up to date in one pass.
    #[inline(always)]
    pub fn times_of(&mut self, banks: u64) -> &[[u64; 2]; 64] {
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
    pub fn past_bounds(&mut self, banks: u64, now: u64) -> (u64, u64) {
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
    pub fn bank_times(&mut self, b: u32) -> [u64; 2] {
        let bit = 1u64 << b;
        if self.timed & bit == 0 {
            self.times[slot(b)] = self.ch.bank_local(b, self.write_mode);
            self.timed |= bit;
        }
        let floor = self.ch.rank_floor(self.write_mode);
        self.ch.with_floor(b, self.times[slot(b)], floor)
    }

    /// A lower bound on the first cycle `>= from` at which this controller could issue any
    /// command, as long as its queue, mode and banks do not change: the earliest of a due
    /// refresh and of the commands its scheduler could pick, given as bank masks `(with a
    /// request, with a hit, with a miss)`. Per bank: the column command if it has a hit, else
    /// a precharge (row open) or an activate (closed); with `over` (a miss may precharge over
    /// a hit) an open bank's precharge counts too. With `ready`, each counted bank's bound is
    /// written there; the second value says whether those bounds are what a pick may read
    /// (not after an early return, nor with `over`, where a bank counted under both kinds
    /// holds the later one).
    #[inline(always)]
    pub fn wake_bound(
        &mut self,
        from: u64,
        (any, hit, miss): (u64, u64, u64),
        over: bool,
        mut ready: Option<&mut [u64; 64]>,
    ) -> (u64, bool) {
        let wake = self.ch.refresh_due_at().unwrap_or(u64::MAX).max(from);
        if wake == from {
            return (from, false);
        }
        let open = self.ch.open_mask();
        // The banks whose first bound counts (closed: its activate; open with a hit: its
        // column command) and those whose precharge counts (open with a miss, unless a hit
        // is served first).
        let by_first = any & (!open | hit);
        let by_pre = any & open & miss & if over { u64::MAX } else { !hit };
        // An open bank with a request counted as neither: no bound, conservatively `from`.
        if any & open & !hit & !miss != 0 {
            return (from, false);
        }
        // Each bank's own part of its bound, raised to the rank-wide part of its kind of
        // command, and the earliest of them. (No branch on whether each bank is open: it
        // would follow the requests and mispredict.)
        self.times_of(by_first | by_pre);
        let [cas_floor, act_floor, any_floor] = self.ch.rank_floor(self.write_mode);
        let times = &self.times;
        let mut keep = |b: usize, r: u64| {
            if let Some(ready) = ready.as_deref_mut() {
                ready[b] = r;
            }
        };
        let t = if over {
            let mut earliest = |mut m: u64, k: usize, floor: u64| {
                let mut t = u64::MAX;
                while m != 0 {
                    let b = slot(m.trailing_zeros());
                    m &= m - 1;
                    let r = times[b][k & 1].max(floor);
                    keep(b, r);
                    t = t.min(r);
                }
                t
            };
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
                keep(slot(b), r);
                t = t.min(r);
            }
            t
        };
        (wake.min(t).max(from), !over)
    }

    /// The pending requests of the current mode, oldest first.
    #[inline]
    pub fn mode_queue(&self) -> &[Entry] {
        &self.queue[usize::from(self.write_mode)]
    }

    /// Pending requests, both directions.
    #[inline]
    pub fn pending(&self) -> usize {
        self.queue[0].len() + self.queue[1].len()
    }

    /// The refresh command due now (PREA while a bank is open, then REF), if it can issue.
    fn refresh_command(&self, now: u64) -> Pick {
        let cmd = if self.ch.any_open() {
            Command::prea()
        } else {
            Command::refresh()
        };
        self.ch.can_issue(&cmd, now).then_some((cmd, None))
    }

    /// Whether the write-drain mode changes, given the queue: reads are served until
    /// `high` writes are pending (or no read is), writes until `low` remain (or none).
    fn drain_flips(&self, high: usize, low: usize) -> bool {
        let (reads, writes) = (self.queue[0].len(), self.queue[1].len());
        if !self.write_mode {
            writes >= high || (reads == 0 && writes > 0)
        } else {
            writes == 0 || (writes <= low && reads > 0)
        }
    }
}

/// Bank `b`'s entry in [`Controller::times`] (64 entries, dram.banks <= 64, validated),
/// masked so that indexing needs no bounds check.
#[inline(always)]
pub(super) fn slot(b: u32) -> usize {
    (b & 63) as usize
}

/// A request's bank and row as one word ([`Controller::keys`]).
#[inline]
pub(super) fn key(bank: u32, row: u32) -> u64 {
    u64::from(bank) << 32 | u64::from(row)
}

/// Whether `row` is the open row of `bank`.
#[inline]
pub(super) fn hits(ch: &Channel, bank: u32, row: u32) -> bool {
    ch.open_row(bank) == Some(row)
}

/// The set of controllers `0..n` (n <= 128).
#[inline]
pub(super) fn set_of(n: usize) -> u128 {
    if n >= 128 {
        u128::MAX
    } else {
        (1u128 << n) - 1
    }
}

/// The controllers whose wake bound has come at `now` (at most 128, validated), built 64 at a
/// time in a `u64` (a `u128` shift per controller costs more).
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

/// Cycles without a completion, while requests are pending, after which a run is stalled
/// (beyond [`STALL_REFRESHES`] refresh intervals too): far longer than any legal configuration
/// needs to complete a request (validation guarantees a request can complete between two
/// refreshes).
pub const STALL_CYCLES: u64 = 1_000_000;

/// See [`STALL_CYCLES`].
pub const STALL_REFRESHES: u64 = 8;

/// Every controller of a memory system, and what they share: the clock, the cycle's
/// enqueues, the wake bounds, the completions, the stall check and the command trace.
pub(super) struct Controllers {
    pub ctrls: Vec<Controller>,
    /// Pending-queue entries per controller.
    pub cap: usize,
    /// Pending writes at which a controller starts draining writes, and at which a drain stops
    /// (`mc.write_high`, `mc.write_low`).
    write_high: usize,
    write_low: usize,
    pub now: u64,
    /// Per controller: the request that enters its pending queue this cycle (valid where
    /// `enq_set` has the controller's bit; a scheduler that keeps events across cycles reads
    /// them until the next cycle's enqueue step).
    pub incoming: Vec<Option<Entry>>,
    /// Controller sets (bit `c` for controller `c`; dram.channels <= 128, validated): an
    /// enqueue this cycle (`incoming`), waiting requests.
    pub enq_set: u128,
    pub waiting: u128,
    /// The scheduler has events for its next cycle (e.g. the Warped-MC block's services and
    /// activations), so that cycle is not quiet.
    pub events: bool,
    /// Per controller: a lower bound on the next cycle it can issue a command (see
    /// [`Controllers::cycle_with`]).
    pub wake: Vec<u64>,
    /// The earliest of `wake` (no controller runs before it).
    pub first_wake: u64,
    /// Skip quiet cycles (off while a co-simulation watches every cycle).
    pub skip: bool,
    /// Requests of the current cycle's column commands, for the caller to take.
    pub completions: Vec<Completion>,
    /// Requests accepted and not completed.
    pub outstanding: usize,
    /// Requests completed so far.
    pub issued: u64,
    /// Every issued command, when recorded (`--command-trace`, the independent checker).
    pub trace: Option<Vec<TraceCmd>>,
    /// Cycles without a completion, while requests are pending, after which a run is stalled:
    /// [`STALL_CYCLES`] plus [`STALL_REFRESHES`] refresh intervals.
    pub stall_window: u64,
    /// Requests completed when the current stall window opened, and that cycle: the system
    /// stalls when no request completes for too long ([`Controllers::check_stall`]).
    pub stall_issued: u64,
    pub stall_since: u64,
}

impl Controllers {
    /// Idle controllers for a validated spec: every bank closed at cycle 0, nothing pending.
    pub fn new(spec: &spec::Spec) -> Controllers {
        let d = &spec.dram;
        let timing = ChannelTiming::of(d);
        let n = d.channels as usize;
        let cap = spec.mc.queue_entries as usize;
        Controllers {
            ctrls: (0..n).map(|_| Controller::new(timing, cap)).collect(),
            cap,
            write_high: spec.mc.write_high as usize,
            write_low: spec.mc.write_low as usize,
            now: 0,
            incoming: vec![None; n],
            enq_set: 0,
            waiting: 0,
            events: false,
            wake: vec![0; n],
            first_wake: 0,
            skip: true,
            completions: Vec::new(),
            outstanding: 0,
            issued: 0,
            trace: None,
            stall_window: STALL_CYCLES
                + if d.refresh {
                    STALL_REFRESHES * u64::from(d.timing.t_refi)
                } else {
                    0
                },
            stall_issued: 0,
            stall_since: 0,
        }
    }

    /// One cycle of every controller under scheduler `s`. Quiet cycles are skipped (unless
    /// `skip` is off): `wake[c]` is a lower bound on the first cycle at which controller `c`
    /// could issue a command, valid while its queue, mode and banks do not change; before it,
    /// its scheduler would find nothing to issue, and the controller does not run it.
    pub fn cycle_with<S: Scheduler>(&mut self, s: &mut S) -> Result<(), McError> {
        let now = self.now;
        // 1. Arrivals: offered before the cycle. 2. Enqueue, visible from the next cycle.
        self.enqueue();
        // 3./4. Decide and issue. `run`: the controllers that run their scheduler.
        let run = if !self.skip {
            set_of(self.ctrls.len())
        } else if now >= self.first_wake {
            due(&self.wake, now)
        } else {
            0
        };
        s.prepare(self, run, now)?;
        let mut rewoken = false;
        for c in bits(run | self.enq_set) {
            let mut changed = false;
            if run >> c & 1 != 0 {
                changed = self.decide(s, c, now)?;
            }
            changed |= self.join(s, c);
            if changed {
                rewoken |= self.changed(s, c, now);
            }
        }
        if rewoken {
            self.first_wake = self.wake.iter().copied().min().unwrap_or(u64::MAX);
        }
        if !S::EVENTFUL {
            // The cycle's enqueues are events for the scheduler only: without one they end
            // now, and the next cycle may be a quiet one.
            for c in bits(self.enq_set) {
                self.incoming[c] = None;
            }
            self.enq_set = 0;
        }
        self.events = s.has_events();
        #[cfg(test)]
        self.check_kept(s, now);
        self.now += 1;
        // Checked once a stall window has passed, not every cycle (the loop is hot).
        if self.now - self.stall_since > self.stall_window {
            self.check_stall()?;
        }
        Ok(())
    }

    /// Step 2: at most one waiting request per controller with room enters its pending queue
    /// (`incoming`, `enq_set`); last cycle's enqueues end.
    #[inline(always)]
    fn enqueue(&mut self) {
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
    }

    /// Steps 3 and 4 for controller `c`: a due refresh, else the scheduler's pick, issued;
    /// with a row and a column command bus (HBM2) and a scheduler that picks more than once a
    /// cycle ([`Scheduler::DUAL_ISSUE`]), then its pick for the other bus (decision MEM-25).
    /// Whether a command issued.
    #[inline(always)]
    fn decide<S: Scheduler>(&mut self, s: &mut S, c: usize, now: u64) -> Result<bool, McError> {
        let x = &mut self.ctrls[c];
        let refresh = x.ch.refresh_due(now);
        let pick = if refresh {
            x.refresh_command(now)
        } else {
            s.pick(c, x, now)
        };
        let Some((cmd, entry)) = pick else {
            return Ok(false);
        };
        self.issue(s, c, cmd, entry, now)?;
        if S::DUAL_ISSUE && !refresh && self.ctrls[c].ch.timing().dual_bus {
            // The first command's bus is taken for this cycle, so what the scheduler picks
            // now, with what it keeps brought up to date, is for the other bus.
            s.changed(c);
            if let Some((cmd, entry)) = s.pick(c, &mut self.ctrls[c], now) {
                self.issue(s, c, cmd, entry, now)?;
            }
        }
        Ok(true)
    }

    /// The request enqueued this cycle at controller `c`, if any, joins its queue (and, in
    /// the current mode, its scheduler's view). Whether one did.
    #[inline(always)]
    fn join<S: Scheduler>(&mut self, s: &mut S, c: usize) -> bool {
        let ctrl = &mut self.ctrls[c];
        let Some(e) = self.incoming[c] else {
            return false;
        };
        ctrl.queue[usize::from(e.write)].push(e);
        if e.write == ctrl.write_mode {
            ctrl.keys.push(e.key());
            s.joined(c, ctrl, &e);
        }
        true
    }

    /// After a change of controller `c`'s queue or banks: step 5 (the write-drain mode follows
    /// the queue), then its wake bound anew. Whether the bound was recomputed.
    ///
    /// The bound is recomputed after a change only: without one, the bound a recomputation
    /// would give is the old one or, once that has passed, the next cycle, and a passed bound
    /// already lets the controller run then.
    #[inline(always)]
    fn changed<S: Scheduler>(&mut self, s: &mut S, c: usize, now: u64) -> bool {
        let ctrl = &mut self.ctrls[c];
        if ctrl.drain_flips(self.write_high, self.write_low) {
            ctrl.write_mode = !ctrl.write_mode;
            ctrl.timed = 0;
            ctrl.rebuild_keys();
            s.mode_changed(c, ctrl);
        }
        s.changed(c);
        if self.skip {
            self.wake[c] = s.wake(c, &mut self.ctrls[c], now + 1);
        }
        self.skip
    }

    /// Issue `cmd` on controller `c`; `entry`: the index among the requests of the current
    /// mode (and in the candidate window) of the request a column command serves, which
    /// completes.
    fn issue<S: Scheduler>(
        &mut self,
        s: &mut S,
        c: usize,
        cmd: Command,
        entry: Option<usize>,
        now: u64,
    ) -> Result<(), McError> {
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
        let mut served = None;
        if let (Some(i), Some(done)) = (entry, done) {
            let e = ctrl.queue[usize::from(ctrl.write_mode)].remove(i);
            ctrl.keys.remove(i);
            let (req, tag) = ctrl.held[e.req as usize];
            ctrl.free.push(e.req);
            self.completions.push(Completion { tag, req, done });
            self.outstanding -= 1;
            self.issued += 1;
            served = Some((i, e));
        }
        let ev = Issued {
            cmd,
            row_before,
            served,
        };
        s.issued(c, ctrl, &ev);
        Ok(())
    }

    /// Jump over the quiet cycles before `target` with nothing pending anywhere (see
    /// [`super::system::MemSystem::skip_idle`]): to `target` or a controller's wake bound (a
    /// refresh falling due). Idle refreshes before `target` issue at once, unless every
    /// command is recorded.
    #[inline(never)]
    pub fn skip_idle_slow<S: Scheduler>(&mut self, s: &mut S, target: u64) {
        if self.trace.is_none() && target != u64::MAX {
            for c in 0..self.ctrls.len() {
                if self.ctrls[c].ch.idle_refreshes(target) > 0 {
                    self.ctrls[c].timed = 0;
                    self.wake[c] = s.wake(c, &mut self.ctrls[c], target);
                }
            }
        }
        // A bound that has passed may be stale (bounds are recomputed after a change only):
        // an idle controller's is its next refresh.
        for c in 0..self.ctrls.len() {
            if self.wake[c] <= self.now {
                self.wake[c] = s.wake(c, &mut self.ctrls[c], self.now);
            }
        }
        let wake = self.wake.iter().copied().min().unwrap_or(u64::MAX);
        self.first_wake = wake;
        let to = target.min(wake);
        if to > self.now {
            self.now = to;
        }
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

    /// Unit tests check what is kept incrementally against its definition every cycle: each
    /// controller's keys, and the scheduler's own state ([`Scheduler::check`]).
    #[cfg(test)]
    fn check_kept<S: Scheduler>(&self, s: &S, now: u64) {
        for (c, x) in self.ctrls.iter().enumerate() {
            let mut y = x.clone();
            y.rebuild_keys();
            assert_eq!(y.keys, x.keys, "controller {c}'s keys at {now}");
            s.check(c, x, now);
        }
    }
}
