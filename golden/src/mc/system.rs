//! The memory system: one controller per DRAM channel ([`super::controller`]: queues, drain,
//! refresh, command issue), each with the request scheduler the spec names ([`super::sched`]:
//! FCFS, FR-FCFS, Warped-MC, Div-First), in front of a [`Channel`](super::dram::Channel) with
//! command-level timing; as a streaming component ([`crate::stream`]): offer a request, cycle,
//! take the completions, and jump over the quiet cycles ([`MemSystem::next_work`]).
//!
//! Warped-MC uses the Warped-MC block ([`WarpedMc`](super::warped::WarpedMc)) of its WET group;
//! both Warped-MC and Div-First read the warp entry table the memory system keeps per WET
//! scope ([`Wet`](super::warped::Wet)). A co-simulation watches one group's block
//! ([`MemSystem::watch_group`]) and takes each of its cycles after the system's
//! ([`MemSystem::take_watched`]).

use super::controller::{Controllers, Entry};
use super::dram::{BankStats, CmdKind, Command, TraceCmd};
use super::energy::{Energy, EnergyModel};
use super::sched::{Policies, Props, Scheduler, Visit};
use super::stimulus::Request;
use super::warped::{gwid, WmcIn, WmcOut};
// `bits`: the members of a controller set, in ascending order.
use crate::bitset::members128 as bits;
use crate::block::IllegalInput;
use crate::stream::{Component, Offer};
use serde::Serialize;
use spec::mapping::AddressMap;
use spec::{Spec, WarpedMcSpec};

pub use super::controller::{STALL_CYCLES, STALL_REFRESHES};

/// A completed request: its column command issued; its data transfer ends at `done`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    /// The tag it was offered with.
    pub tag: u64,
    pub req: Request,
    pub done: u64,
}

/// The DRAM side of a run's statistics ([`MemSystem::dram_totals`]).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct DramTotals {
    pub scheduler: &'static str,
    pub cycles: u64,
    pub bandwidth_util: f64,
    pub row_hit_rate: f64,
    pub commands: u64,
    pub activations: u64,
    pub refreshes: u64,
    /// Read and write column commands, one burst each (GPGPU-Sim's `gpgpu_n_dram_reads` and
    /// `_writes` count its requests, each of which is one burst in its reference files).
    pub reads: u64,
    pub writes: u64,
    /// The channels' energy over the cycles so far ([`super::energy`]).
    pub energy: DramEnergy,
}

/// One channel's figures.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ChannelFigures {
    pub reads: u64,
    pub writes: u64,
    pub activations: u64,
    pub refreshes: u64,
    /// Column commands to a row already used since its ACT, of all column commands.
    pub row_hit_rate: f64,
    /// Cycles its data bus carried a burst, of all cycles.
    pub bandwidth_util: f64,
    pub energy_nj: f64,
    /// Per bank.
    pub banks: Vec<BankStats>,
}

/// The channels' energy (DRAMPower's method, [`super::energy`]).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct DramEnergy {
    /// Every channel's, by part.
    pub total: Energy,
    /// The sum of the parts, in nanojoules.
    pub total_nj: f64,
    /// Average power over the cycles so far, in milliwatts.
    pub power_mw: f64,
    /// Each channel's sum, in nanojoules.
    pub per_channel_nj: Vec<f64>,
}

impl std::fmt::Display for DramEnergy {
    /// One line: the total, the average power, each part's share and the channels' range.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let e = &self.total;
        let all = e.total_pj();
        let share = |pj: f64| if all > 0.0 { 100.0 * pj / all } else { 0.0 };
        let lo = self
            .per_channel_nj
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min);
        let hi = self.per_channel_nj.iter().copied().fold(0.0, f64::max);
        write!(
            f,
            "{:.1} nJ, {:.0} mW: activate {:.1}%, precharge {:.1}%, read {:.1}%, write {:.1}%, \
                refresh {:.1}%, active standby {:.1}%, precharge standby {:.1}%; a channel \
                {:.1}-{:.1} nJ",
            self.total_nj,
            self.power_mw,
            share(e.activate_pj),
            share(e.precharge_pj),
            share(e.read_pj),
            share(e.write_pj),
            share(e.refresh_pj),
            share(e.active_standby_pj),
            share(e.precharge_standby_pj),
            if lo.is_finite() { lo } else { 0.0 },
            hi
        )
    }
}

/// Distribution summary, in cycles.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, schemars::JsonSchema)]
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
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct McSummary {
    /// The DRAM scheduler (`mc.scheduler`).
    pub scheduler: &'static str,
    /// Requests of the stimulus, and the warp loads they belong to.
    pub requests: u64,
    pub warp_loads: u64,
    /// DRAM command-clock cycles of the run (the unit of every latency here).
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
    /// DRAM commands issued, and of them activations and refreshes.
    pub commands: u64,
    pub activations: u64,
    pub refreshes: u64,
    /// The channels' energy over the run.
    pub energy: DramEnergy,
}

/// What one cycle of a WET group did, for co-simulation of its block
/// ([`MemSystem::take_watched`]).
pub struct GroupCycle<'a> {
    pub group: usize,
    pub input: &'a WmcIn,
    pub output: &'a WmcOut,
}

/// A co-simulation's check of the watched WET group's cycles ([`MemSystem::probe`]): an error
/// stops the run.
pub type Hook<'h> = dyn FnMut(GroupCycle) -> Result<(), String> + 'h;

/// A request the system cannot take.
#[derive(Debug, thiserror::Error)]
pub enum McError {
    #[error("{0}")]
    Illegal(#[from] IllegalInput),
    #[error("request {index}: {message}")]
    Request { index: usize, message: String },
    #[error("co-simulation hook: {0}")]
    Hook(String),
    #[error(
        "the memory system stopped making progress: {pending} requests are pending and none \
        completed from cycle {since} to cycle {now}"
    )]
    Stalled {
        pending: usize,
        since: u64,
        now: u64,
    },
}

/// The memory system.
pub struct MemSystem {
    /// The scheduler's name (the `mc.scheduler` value that selects it).
    name: &'static str,
    /// `prefetch.demand_first`, for a scheduler with a demand-first variant: that variant
    /// replaces the plain one when the first prefetch is offered (until then every request is
    /// a demand request and the two pick alike), so traffic without prefetches runs the plain
    /// one.
    demand_first: bool,
    /// The demand-first variant runs.
    demand_first_on: bool,
    /// The scheduler, and what its constants say.
    sched: Policies,
    props: Props,
    /// The controllers (everything but the scheduler).
    ctl: Controllers,
    /// The address map (a request's channel, bank, row and column).
    map: AddressMap,
    /// dram.atom_bytes: a column is this many bytes.
    atom: u64,
    /// Prices the channels' commands and standby cycles.
    energy: EnergyModel,
    /// dram.clock_mhz, for the average power.
    clock_mhz: u32,
    /// warped_mc.pt_slots: a request's column slot is its column modulo this.
    pt_slots: u32,
    /// The Warped-MC tables' spec: a request's global warp id (its warp alias table).
    wmc: WarpedMcSpec,
    /// The requests accepted, with the cycle they arrived ([`MemSystem::log_offers`]).
    offered: Option<Vec<Request>>,
    /// At most this many requests wait per channel for room in its pending queue (unbounded:
    /// an open-loop system, whose arrivals never wait for anything).
    wait_limit: usize,
}

/// [`Controllers::cycle_with`] for the scheduler's type.
struct Cycle<'a>(&'a mut Controllers);

impl<'p> Visit<'p> for Cycle<'_> {
    type Out = Result<(), McError>;
    #[inline(always)]
    fn visit<S: Scheduler>(self, s: &'p mut S) -> Self::Out {
        self.0.cycle_with(s)
    }
}

/// [`Controllers::skip_idle_slow`] for the scheduler's type.
struct SkipIdle<'a>(&'a mut Controllers, u64);

impl<'p> Visit<'p> for SkipIdle<'_> {
    type Out = ();
    fn visit<S: Scheduler>(self, s: &'p mut S) {
        self.0.skip_idle_slow(s, self.1);
    }
}

/// [`Scheduler::watch`].
struct Watch(Option<usize>);

impl<'p> Visit<'p> for Watch {
    type Out = ();
    fn visit<S: Scheduler>(self, s: &'p mut S) {
        s.watch(self.0);
    }
}

/// [`Scheduler::take_watched`].
struct TakeWatched;

impl<'p> Visit<'p> for TakeWatched {
    type Out = Option<GroupCycle<'p>>;
    fn visit<S: Scheduler>(self, s: &'p mut S) -> Self::Out {
        s.take_watched()
    }
}

impl MemSystem {
    /// An idle system for a validated spec: every bank closed at cycle 0, nothing pending.
    pub fn new(spec: &Spec) -> MemSystem {
        let name = spec.mc.scheduler.name();
        MemSystem::with_scheduler(spec, name)
            .unwrap_or_else(|| panic!("scheduler {name} is not registered in mc::sched"))
    }

    /// [`MemSystem::new`] with the registered scheduler named `name` (one of
    /// [`super::sched::NAMES`]) in place of the spec's, or `None` if none is.
    pub(crate) fn with_scheduler(spec: &Spec, name: &str) -> Option<MemSystem> {
        let name = *super::sched::NAMES.iter().find(|n| **n == name)?;
        let mut sched = Policies::of(name, spec)?;
        let props = sched.visit(Props::OF);
        Some(MemSystem {
            name,
            demand_first: spec.prefetch.demand_first && props.has_demand_first,
            demand_first_on: false,
            sched,
            props,
            ctl: Controllers::new(spec),
            map: spec.dram.map.clone(),
            atom: u64::from(spec.dram.atom_bytes),
            energy: EnergyModel::of(&spec.dram),
            clock_mhz: spec.dram.clock_mhz,
            pt_slots: spec.wmc.pt_slots,
            wmc: spec.wmc.clone(),
            offered: None,
            wait_limit: usize::MAX,
        })
    }

    /// Record every issued command (for `--command-trace` and the independent checker).
    pub fn record_commands(&mut self) {
        self.ctl.trace = Some(Vec::new());
    }

    pub fn commands(&self) -> &[TraceCmd] {
        self.ctl.trace.as_deref().unwrap_or(&[])
    }

    pub fn now(&self) -> u64 {
        self.ctl.now
    }

    pub fn address_map(&self) -> &AddressMap {
        &self.map
    }

    /// Requests accepted and not completed.
    pub fn outstanding(&self) -> usize {
        self.ctl.outstanding
    }

    /// The controller (channel) that `addr` goes to.
    pub fn channel_of(&self, addr: u64) -> usize {
        self.map.route(addr).0 as usize
    }

    /// Whether controller `c`'s wait list takes an offer now ([`MemSystem::offer`] refuses
    /// one otherwise). Its room grows only in [`MemSystem::cycle`], so a caller refused can ask
    /// this, not offer again, until it does.
    pub fn has_room(&self, c: usize) -> bool {
        self.ctl.ctrls[c].wait.len() < self.wait_limit
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
        let ctl = &mut self.ctl;
        if ctl.outstanding == 0 {
            // Into an empty system: the stall window opens now.
            (ctl.stall_issued, ctl.stall_since) = (ctl.issued, ctl.now);
        }
        let e = Entry {
            req: 0,
            bank: dec.bank as u8,
            row: dec.row as u32,
            col,
            slot: (col & (self.pt_slots - 1)) as u16,
            write: r.write,
            prefetch: r.prefetch,
            gwid: gwid(&self.wmc, r.sm, r.warp, r.pc),
        };
        if r.prefetch && self.demand_first && !self.demand_first_on {
            // The first prefetch: no request of a queue is one yet, so the demand-first
            // variant's prefetch counts (zero) are current, and so are the wake bounds.
            self.sched.switch_to_demand_first();
            self.demand_first_on = true;
        }
        ctl.ctrls[c].wait.push_back((e, r, tag));
        ctl.waiting |= 1 << c;
        ctl.outstanding += 1;
        if let Some(log) = &mut self.offered {
            log.push(Request {
                cycle: ctl.now,
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
        self.ctl.completions.drain(..)
    }

    /// Jump over the quiet cycles before `until` (the caller's next offer), which would change
    /// nothing. When nothing is pending anywhere (no queued or waiting request, no event for
    /// the scheduler): to `until` or a controller's wake bound (a refresh falling due). When
    /// requests are pending (busy): while no controller may issue (before the earliest wake
    /// bound), no request can enter a pending queue (none waits for a queue with room) and no
    /// event is due, a cycle only counts (schedulers that keep no state across quiet cycles:
    /// not Warped-MC's and Div-First's warp entry tables); the jump goes to the earliest of
    /// `until`, the wake bound and the cycle whose end checks for a stall (so a stall is
    /// reported at the same cycle as without the jump). Does nothing when skipping quiet
    /// cycles is off.
    #[inline]
    pub fn skip_idle(&mut self, until: u64) {
        let ctl = &mut self.ctl;
        if !ctl.skip || ctl.enq_set != 0 || ctl.events {
            return;
        }
        if ctl.outstanding != 0 {
            // Busy (the common case under load). Not with the warp entry tables: a quiet cycle
            // still commits them, and a block reads their values before the last commit after
            // skipped cycles ([`WarpedMc::skipped_idle`](super::warped::WarpedMc::skipped_idle)).
            if self.props.eventful || ctl.now >= ctl.first_wake || until <= ctl.now {
                return;
            }
            for c in bits(ctl.waiting) {
                if ctl.ctrls[c].pending() < ctl.cap {
                    return;
                }
            }
            let to = until
                .min(ctl.first_wake)
                .min(ctl.stall_since.saturating_add(ctl.stall_window));
            ctl.now = ctl.now.max(to);
            return;
        }
        if ctl.waiting != 0 {
            return;
        }
        self.sched.visit(SkipIdle(&mut self.ctl, until));
    }

    /// Jump to cycle `to`, at most [`MemSystem::next_work`]: the cycles before it only count
    /// (and idle controllers issue their refreshes at once), as stepping them would.
    pub fn skip_to(&mut self, to: u64) {
        #[cfg(test)]
        assert!(to <= self.next_work(), "a jump past the next work");
        if to > self.ctl.now {
            self.skip_idle(to);
        }
        #[cfg(test)]
        assert_eq!(self.ctl.now, to, "the jump fell short");
    }

    /// Turn skipping of quiet cycles off or on (on by default). Results are identical either
    /// way (a test checks this); with it off every controller runs its scheduler and (Warped-MC)
    /// every group's block steps every cycle.
    pub fn set_skip_quiet(&mut self, on: bool) {
        self.ctl.skip = on;
    }

    /// One cycle of every controller. Requests offered before it are this cycle's arrivals.
    /// A system that completes nothing for a stall window while requests are pending is
    /// [`McError::Stalled`].
    #[inline]
    pub fn cycle(&mut self) -> Result<(), McError> {
        self.sched.visit(Cycle(&mut self.ctl))
    }

    /// Watch WET group `g` (or none): from the next cycle on, its block steps every cycle,
    /// with every input port filled and checked, and [`MemSystem::take_watched`] gives each
    /// of its cycles (co-simulation of the block). Only under a scheduler that runs the blocks
    /// (Warped-MC, Div-First); under another nothing is watched. Other groups still skip
    /// cycles in which their block would not change.
    pub fn watch_group(&mut self, g: Option<usize>) {
        self.sched.visit(Watch(g));
    }

    /// Whether the scheduler runs Warped-MC blocks, which [`MemSystem::watch_group`] watches.
    pub fn runs_blocks(&self) -> bool {
        self.props.watchable
    }

    /// The watched group's cycle, if it stepped in the last [`MemSystem::cycle`] (once).
    pub fn take_watched(&mut self) -> Option<GroupCycle<'_>> {
        self.sched.visit(TakeWatched)
    }

    /// Show the watched group's last cycle, if any, to `probe` (a co-simulation's check): its
    /// error stops the run ([`McError::Hook`]).
    pub fn probe(&mut self, probe: &mut Hook<'_>) -> Result<(), McError> {
        match self.take_watched() {
            Some(gc) => probe(gc).map_err(McError::Hook),
            None => Ok(()),
        }
    }

    /// The first cycle from which a [`MemSystem::cycle`] may do more than count the cycle, if
    /// nothing is offered before it: the cycle [`MemSystem::skip_idle`] would jump to at the
    /// most, whatever the caller's next arrival ([`crate::stream::NEVER`]: never). The current
    /// cycle while a request waits for a queue with room, an event is due to the scheduler, a
    /// controller may issue, or skipping quiet cycles is off; with requests pending and a
    /// scheduler that keeps warp entry tables, every cycle. Idle, a controller with every bank
    /// closed whose next refresh can issue when due issues its refreshes at once in a jump
    /// (unless every command is recorded), so only the others' wake bounds (their refreshes)
    /// count.
    pub fn next_work(&self) -> u64 {
        let ctl = &self.ctl;
        let now = ctl.now;
        if !ctl.skip || ctl.enq_set != 0 || ctl.events {
            return now;
        }
        if ctl.outstanding != 0 {
            if self.props.eventful || now >= ctl.first_wake {
                return now;
            }
            if bits(ctl.waiting).any(|c| ctl.ctrls[c].pending() < ctl.cap) {
                return now;
            }
            return ctl
                .first_wake
                .min(ctl.stall_since.saturating_add(ctl.stall_window));
        }
        if ctl.waiting != 0 {
            return now;
        }
        // What `skip_idle_slow` leaves: a passed (stale) bound recomputed as the controller's
        // next refresh; a controller that issues its refreshes at once has its bound
        // recomputed after them, beyond the jump.
        let mut at = u64::MAX;
        for (c, x) in ctl.ctrls.iter().enumerate() {
            let due = x.ch.refresh_due_at();
            let wake = if ctl.wake[c] > now {
                ctl.wake[c]
            } else {
                due.map_or(u64::MAX, |d| d.max(now))
            };
            let at_once = due.is_some_and(|d| {
                ctl.trace.is_none()
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

    /// Bytes the channels' column commands have moved so far: (read, written); each moves one
    /// atom (`dram.atom_bytes`).
    pub fn bytes_moved(&self) -> (u64, u64) {
        let (mut read, mut written) = (0, 0);
        for c in &self.ctl.ctrls {
            let (r, w) = reads_writes(&c.ch.stats());
            read += r;
            written += w;
        }
        (read * self.atom, written * self.atom)
    }

    /// The DRAM side of a run's statistics, over the cycles so far.
    pub fn dram_totals(&self) -> DramTotals {
        let cycles = self.ctl.now.max(1);
        let stats: Vec<_> = self.ctl.ctrls.iter().map(|c| c.ch.stats()).collect();
        let (reads, writes) = stats
            .iter()
            .map(reads_writes)
            .fold((0, 0), |(r, w), (r1, w1)| (r + r1, w + w1));
        let acts: u64 = stats.iter().map(|s| s.count(CmdKind::Act)).sum();
        let refreshes: u64 = stats.iter().map(|s| s.count(CmdKind::Ref)).sum();
        let commands: u64 = stats
            .iter()
            .map(|s| CmdKind::ALL.iter().map(|k| s.count(*k)).sum::<u64>())
            .sum();
        let util = stats.iter().map(|s| s.bus_utilization(cycles)).sum::<f64>()
            / stats.len().max(1) as f64;
        DramTotals {
            scheduler: self.name,
            cycles,
            bandwidth_util: util,
            row_hit_rate: row_hit_rate(acts, reads + writes),
            commands,
            activations: acts,
            refreshes,
            reads,
            writes,
            energy: self.dram_energy(),
        }
    }

    /// Each channel's figures so far.
    pub fn channel_figures(&self) -> Vec<ChannelFigures> {
        let cycles = self.ctl.now.max(1);
        let energy = self.dram_energy();
        self.ctl
            .ctrls
            .iter()
            .zip(energy.per_channel_nj)
            .map(|(c, energy_nj)| {
                let s = c.ch.stats();
                let (reads, writes) = reads_writes(&s);
                ChannelFigures {
                    reads,
                    writes,
                    activations: s.count(CmdKind::Act),
                    refreshes: s.count(CmdKind::Ref),
                    row_hit_rate: row_hit_rate(s.count(CmdKind::Act), reads + writes),
                    bandwidth_util: s.bus_utilization(cycles),
                    energy_nj,
                    banks: c.ch.bank_stats().to_vec(),
                }
            })
            .collect()
    }

    /// The channels' energy over the cycles so far.
    fn dram_energy(&self) -> DramEnergy {
        let now = self.ctl.now;
        let per_channel: Vec<Energy> = self
            .ctl
            .ctrls
            .iter()
            .map(|c| {
                self.energy
                    .energy(&c.ch.stats(), c.ch.active_cycles(now), now)
            })
            .collect();
        let total = per_channel
            .iter()
            .fold(Energy::default(), |sum, e| sum.plus(e));
        // pJ over cycles of 1 / clock_mhz microseconds: pJ / µs = µW.
        let power_mw = if now == 0 {
            0.0
        } else {
            total.total_pj() * f64::from(self.clock_mhz) / now as f64 / 1000.0
        };
        DramEnergy {
            total_nj: total.total_pj() / 1000.0,
            power_mw,
            per_channel_nj: per_channel.iter().map(|e| e.total_pj() / 1000.0).collect(),
            total,
        }
    }
}

/// The part of `column` column commands that needed no ACT, `acts` having been issued (0
/// without a column command).
fn row_hit_rate(acts: u64, column: u64) -> f64 {
    if column == 0 {
        0.0
    } else {
        1.0 - acts.min(column) as f64 / column as f64
    }
}

/// A channel's read and write column commands.
fn reads_writes(s: &super::dram::ChannelStats) -> (u64, u64) {
    (
        s.count(CmdKind::Rd) + s.count(CmdKind::Rda),
        s.count(CmdKind::Wr) + s.count(CmdKind::Wra),
    )
}

impl Component for MemSystem {
    /// See [`MemSystem::next_work`].
    fn next_work(&self) -> u64 {
        MemSystem::next_work(self)
    }
}

#[cfg(test)]
#[path = "system_tests.rs"]
mod system_tests;
