//! One streaming multiprocessor (SM): resident thread blocks and their warps, warp schedulers
//! with in-order issue and a register scoreboard, the LD/ST unit and the L1 data cache in front
//! of the memory side's port.
//!
//! Its parts: [`warp`] (warps, their scoreboard and the gates of which may issue), `issue`
//! (the issue stage, over the warp schedulers of [`crate::gpu::sched`]), `ldst` (the LD/ST
//! unit and the answers to memory instructions), `port` (the port to the memory side: replies
//! taken, requests sent), `cycle` (the cycle and its idle-skipping bound) and `ot_tap` (what the
//! OT predictor sees). Its prefetcher is [`crate::gpu::prefetch`].
//!
//! Per core cycle, in this order ([`Sm::cycle`]):
//! 1. one reply from the memory side fills the L1, answers a store the L1 wrote through (a
//!    store completes when the L2 acknowledges it, as in GPGPU-Sim), or answers an access
//!    that bypassed the L1;
//! 2. the port's register (an access that bypasses the L1), else the L1's oldest miss (a
//!    fetch or written data), is offered to the memory side;
//! 3. the L1 takes one access from its input queue; its ready answers complete their
//!    instructions' accesses, and a load whose accesses are all answered frees its register;
//! 4. the LD/ST unit moves one access of the memory instruction it holds into the L1's input
//!    queue, if it has room, or (atomics and reductions; global accesses with `gpu.skip_l1`)
//!    into the port's register, if it is free;
//! 5. each warp scheduler issues at most one instruction of one of its warps (warp `w` belongs
//!    to scheduler `w % schedulers`), picked by the policy `gpu.scheduler` names; a warp issues
//!    its next instruction when no source or destination register awaits a result, it is not
//!    at a barrier, its execution unit is free and (a global memory instruction) the LD/ST
//!    unit is free;
//! 6. a block whose warps all wait at a barrier passes it; a block whose warps have exited and
//!    whose memory instructions are answered leaves.
//!
//! Latencies: an arithmetic result is readable its execution unit's latency after issue
//! (`gpu.<class>_latency`, the unit of its opcode's class:
//! [`exec_class`](crate::workload::opcode::exec_class)), and each warp scheduler's unit of that
//! class takes its next instruction `gpu.<class>_initiation` cycles after; a shared memory or
//! constant load's result is readable `gpu.shared_latency` cycles after issue; a global
//! load's when its last access is answered. Stores do not hold their warp; a store is
//! answered when the L2 acknowledges it, and its block leaves only then. Unloaded, a
//! one-access load issued at cycle `t` is answered (tests:
//! `a_single_load_takes_the_documented_sum_of_its_stages`):
//! * an L1 hit: at `t + 1 + gpu.l1_latency` (into the L1 at `t + 1`, looked up at `t + 2`, the
//!   answer `l1_latency - 1` cycles after the lookup);
//! * an L1 miss: its fetch is offered at `c = t + 3`, the reply reaches the port `side(c)`
//!   cycles later (the memory side's documented sum, an L2 hit or a DRAM access), fills the
//!   L1, and the answer follows `l1_latency - 1` cycles after the fill;
//! * bypassing the L1: offered at `c = t + 2`, answered when the reply reaches the port.

mod cycle;
mod issue;
mod ldst;
mod ot_tap;
mod port;
pub(crate) mod warp;

use super::coalesce::CoalesceRules;
use super::kernel::WarpGen;
use super::prefetch::{PfProbe, PrefetchStats, PrefetchUnit};
use super::sched::{OwnSlots, Scheduler};
use crate::mc::open_loop::Hist;
use crate::mem::side::MemorySide;
use crate::mem::slice::{Slice, SliceStats};
use crate::stream::Component;
use crate::workload::accelsim::TraceBlock;
use crate::workload::opcode::Kind;
use ldst::LdstUnit;
use ot_tap::OtTap;
use port::Held;
use spec::gpu::{ExecClass, ExecTiming};
use spec::Spec;
use std::collections::VecDeque;
use warp::{Block, Gates, Step, Warp};

pub use warp::Payload;

#[cfg(test)]
pub(crate) use cycle::LAX_SETTLE;
#[cfg(test)]
pub(crate) use ldst::LAX_GATES;

/// Counters of one SM.
#[derive(Debug, Clone, Default)]
pub struct SmStats {
    /// Warp instructions issued.
    pub instructions: u64,
    /// Thread instructions issued: each warp instruction's active lanes (GPGPU-Sim's
    /// `gpu_sim_insn`).
    pub thread_instructions: u64,
    /// Blocks that finished.
    pub blocks: u64,
    pub l1: SliceStats,
    /// Cycles from a global load's issue to its last answer.
    pub load_latency: Hist,
    /// Cycles from a global load's first answered access to its last (memory divergence).
    pub divergence: Hist,
    /// Requests the port sent to the memory side.
    pub sent: u64,
    /// Replies it took back.
    pub replies: u64,
    /// Its prefetcher (seed 001), if the GPU has one.
    pub prefetch: Option<PrefetchStats>,
}

/// Free slots of an SM.
#[derive(Debug, Clone, Copy)]
struct Free {
    blocks: usize,
    warps: usize,
}

/// A demand load the prefetch cache answered, due at a cycle.
#[derive(Debug, Clone, Copy)]
struct PfAnswer {
    at: u64,
    payload: Payload,
}

/// One SM; `'p` is the life of a probe on its prefetcher ([`Sm::watch_prefetch`]).
pub struct Sm<'p> {
    /// Its index, and its port on the memory side.
    id: u32,
    /// The last core cycle it ran or counted as skipped ([`Sm::settle`]).
    last_cycle: u64,
    /// The first core cycle it has work of its own, after its last ([`Component::next_work`]).
    wake: u64,
    /// The block slots (bit per slot, at most 64) in which a warp reached a barrier or ended,
    /// or a memory instruction was answered, or a block arrived, since step 6 last looked.
    changed: u64,
    /// Its warp schedulers: warp slot `w` belongs to scheduler `w % sched.len()`.
    sched: Vec<Scheduler>,
    /// Per scheduler, its warp slots.
    own: Vec<u128>,
    /// Per scheduler that found no ready warp: the cycle from which an arithmetic result or a
    /// free unit may ready one (0: it looks every cycle). Cleared by an event that can ready
    /// one of its warps (a load of one answered) or any warp (a free LD/ST unit, a launch, a
    /// barrier passed).
    idle: Vec<u64>,
    /// Per scheduler and execution-unit class, the first cycle its unit takes another
    /// instruction.
    busy: Vec<[u64; ExecClass::COUNT]>,
    /// Per execution-unit class, its timing.
    exec: [ExecTiming; ExecClass::COUNT],
    /// Which warps may issue, kept at the events that change it.
    gates: Gates,
    /// The warp slots.
    warps: Vec<Option<Warp>>,
    /// The block slots.
    blocks: Vec<Option<Block>>,
    /// Free block and warp slots (what [`Sm::room`] reads every cycle).
    free: Free,
    /// Resident blocks of the running kernel at most (its occupancy).
    max_blocks: usize,
    /// Warps launched so far (the next one's age).
    launched: u64,
    /// The LD/ST unit.
    ldst: LdstUnit,
    /// The port's register: a request the memory side has not taken yet (offered again next
    /// cycle).
    held: Option<Held>,
    l1: Slice<Payload>,
    /// How its global accesses coalesce.
    rules: CoalesceRules,
    /// The L1 is a sector cache (requests per 32-byte chunk) rather than a line cache.
    l1_sector: bool,
    /// A shared memory or constant load's latency.
    shared_latency: u64,
    /// The prefetcher (`prefetch.kind` other than none).
    pf: Option<Box<PrefetchUnit>>,
    /// The demand loads the prefetch cache answered, in due order.
    pf_answers: VecDeque<PfAnswer>,
    /// A probe on the prefetcher's engine (co-simulation in place).
    probe: Option<&'p mut PfProbe<'p>>,
    /// The OT predictor's view ([`Sm::observe_ot`]).
    ot: Option<OtTap>,
    /// Block slots freed and not yet taken ([`Sm::take_finished`]).
    finished: Vec<u32>,
    /// Scratch space for the kinds of a generated warp's next instructions ([`Warp::refill`]).
    kinds: Vec<Kind>,
    /// Warps whose block finished, kept for their buffers (steps, outstanding accesses, load
    /// counts, results in flight): a launch reuses them.
    retired: Vec<Warp>,
    stats: SmStats,
}

#[cfg(test)]
thread_local! {
    /// A deliberately wrong variant for the tests (on this thread): SMs take blocks beyond
    /// their kernel's occupancy.
    pub(crate) static LAX_OCCUPANCY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

impl<'p> Sm<'p> {
    pub fn new(spec: &Spec, id: u32) -> Sm<'p> {
        let g = &spec.gpu;
        let schedulers = g.schedulers as usize;
        let pf = PrefetchUnit::new(spec).map(Box::new);
        let mut l1 = Slice::new(g.l1, u64::from(g.l1_latency), 8);
        l1.set_banks(g.l1_banks);
        // A store completes when the L2 acknowledges it.
        l1.answer_writes_on_ack();
        if pf.is_some() && spec.prefetch.into_l1 {
            // The prefetcher tracks which of its lines the L1 still holds.
            l1.keep_evictions();
        }
        let sched: Vec<Scheduler> = (0..schedulers).map(|s| Scheduler::of(spec, s)).collect();
        if sched.iter().any(Scheduler::watches_l1) {
            // The scheduler tracks which warp brought each line and what left (CCWS).
            l1.keep_evictions();
            l1.keep_misses();
        }
        Sm {
            id,
            last_cycle: 0,
            wake: 0,
            changed: 0,
            sched,
            own: (0..schedulers)
                .map(|s| OwnSlots::of(g, s).iter().fold(0, |m, w| m | 1 << w))
                .collect(),
            idle: vec![0; schedulers],
            busy: vec![[0; ExecClass::COUNT]; schedulers],
            exec: g.exec,
            gates: Gates::default(),
            warps: (0..g.warps_per_sm).map(|_| None).collect(),
            blocks: (0..g.ctas_per_sm).map(|_| None).collect(),
            free: Free {
                blocks: g.ctas_per_sm as usize,
                warps: g.warps_per_sm as usize,
            },
            max_blocks: g.ctas_per_sm as usize,
            launched: 0,
            ldst: LdstUnit::default(),
            held: None,
            l1,
            rules: CoalesceRules {
                arch: g.coalesce_arch,
                warp_parts: g.warp_parts,
                skip_l1: g.skip_l1,
            },
            l1_sector: g.l1.kind == spec::cache::CacheKind::Sector,
            shared_latency: u64::from(g.shared_latency),
            pf,
            pf_answers: VecDeque::new(),
            probe: None,
            ot: None,
            finished: Vec::new(),
            kinds: Vec::new(),
            retired: Vec::new(),
            stats: SmStats::default(),
        }
    }

    /// Let `probe` see its prefetcher's MT-HWP engine every cycle; its error ends the SM's
    /// cycle and stops the run. False (and no probe) without such an engine.
    #[must_use]
    pub fn watch_prefetch(&mut self, probe: &'p mut PfProbe<'p>) -> bool {
        if !self.pf.as_mut().is_some_and(|p| p.watch()) {
            return false;
        }
        self.probe = Some(probe);
        true
    }

    /// Warp instructions issued so far (what [`Sm::stats`] counts, without copying the rest).
    pub fn instructions(&self) -> u64 {
        self.stats.instructions
    }

    /// Thread instructions issued so far.
    pub fn thread_instructions(&self) -> u64 {
        self.stats.thread_instructions
    }

    /// Its prefetch throttle's degree at its last update, if it has a prefetcher that has
    /// updated it.
    pub fn prefetch_degree(&self) -> Option<u8> {
        self.pf.as_ref()?.stats().degree_trace.last().copied()
    }

    /// Requests waiting in its L1's MSHRs now.
    pub fn l1_mshr_waiting(&self) -> usize {
        self.l1.mshr().waiting()
    }

    /// Replies it has taken from the memory side.
    pub fn replies(&self) -> u64 {
        self.stats.replies
    }

    /// Its L1's counters (what [`Sm::stats`] copies with the rest).
    pub fn l1_stats(&self) -> SliceStats {
        self.l1.stats()
    }

    pub fn stats(&self) -> SmStats {
        let mut s = self.stats.clone();
        s.l1 = self.l1.stats();
        s.prefetch = self.pf.as_ref().map(|p| p.stats().clone());
        s
    }

    /// A kernel is launched whose blocks an SM holds `max_blocks` of at most (its
    /// [`occupancy`](super::occupancy)): the prefetcher forgets what it learned.
    pub fn launch_kernel(&mut self, max_blocks: u32, l1_ways: Option<u32>) {
        self.max_blocks = max_blocks as usize;
        if let Some(w) = l1_ways {
            self.l1.set_ways(w);
        }
        if let Some(p) = &mut self.pf {
            p.launch();
        }
    }

    /// Invalidate the L1 data cache if no block is resident (`gpu.flush_l1`, GPGPU-Sim's
    /// `-gpgpu_flush_l1_cache`: the L1 of an SM without threads is invalidated), before its
    /// cycle at core cycle `now`. The cycles it skipped before are counted first: they saw the
    /// lines as they were.
    pub fn flush_l1_if_empty(&mut self, now: u64, side: &mut MemorySide) {
        if self.resident() == 0 {
            self.settle(now, side);
            self.l1.invalidate();
        }
    }

    /// Warp scheduler `s`'s locality unit's inputs and outputs of the cycle it last stepped, if
    /// not taken yet ([`Scheduler::take_lws_cycle`]).
    pub fn take_lws_cycle(&mut self, s: usize) -> Option<(crate::lws::LwsIn, crate::lws::LwsOut)> {
        self.sched.get_mut(s)?.take_lws_cycle()
    }

    /// Whether its warp schedulers read each warp's access range ([`Sm::launch`]).
    pub fn reads_ranges(&self) -> bool {
        self.sched.iter().any(Scheduler::reads_ranges)
    }

    /// Blocks resident now.
    pub fn resident(&self) -> usize {
        self.blocks.len() - self.free.blocks
    }

    /// Whether `blocks` more blocks of `warps` warps each fit now (free block slots and warp
    /// slots, and the kernel's occupancy).
    pub fn room(&self, blocks: usize, warps: usize) -> bool {
        let slots = self.free.blocks >= blocks && self.free.warps >= blocks * warps;
        #[cfg(test)]
        if LAX_OCCUPANCY.with(std::cell::Cell::get) {
            return slots;
        }
        slots && self.resident() + blocks <= self.max_blocks
    }

    /// The running kernel's occupancy (resident blocks at most).
    pub fn max_blocks(&self) -> usize {
        self.max_blocks
    }

    /// Its L1's queues and MSHRs as (fill, size) pairs: the input queue, the miss queue, the
    /// MSHR entries, and the most requests merged into one entry. (Bounds checks.)
    pub fn fill_levels(&self) -> [(usize, usize); 4] {
        let [m, w] = self.l1.mshr().fill_levels();
        [
            (self.l1.input_len(), self.l1.input_cap()),
            (self.l1.miss_queue_len(), self.l1.miss_queue_cap()),
            m,
            w,
        ]
    }

    /// The block slots freed since the last call (blocks that finished), in order.
    pub fn take_finished(&mut self) -> std::vec::Drain<'_, u32> {
        self.finished.drain(..)
    }

    /// Whether nothing is resident and nothing is in flight.
    pub fn idle(&self) -> bool {
        self.blocks.iter().all(Option::is_none)
            && self.ldst.is_free()
            && self.held.is_none()
            && self.l1.quiet()
            && self.l1.busy() == 0
            && self.pf.as_deref().is_none_or(PrefetchUnit::quiet)
            && self.pf_answers.is_empty()
    }

    /// Launch `block` (its instructions' kinds `kinds`, per warp; `rest`, per warp, the
    /// generator of its later instructions, if any; `ranges`, per warp, its access range, for a
    /// warp scheduler that reads them) into block slot `slot` (the locality unit's choice;
    /// `None`: the first free one). The caller checked [`Sm::room`]; false (nothing launched)
    /// if the slot is taken or the warps do not fit.
    #[must_use]
    pub fn launch(
        &mut self,
        block: TraceBlock,
        kinds: &[Vec<Kind>],
        rest: Vec<WarpGen>,
        ranges: &[crate::lws::Vector],
        slot: Option<u32>,
    ) -> bool {
        let slot = match slot {
            Some(s) => s as usize,
            None => match self.blocks.iter().position(Option::is_none) {
                Some(s) => s,
                None => return false,
            },
        };
        if self.blocks.get(slot).is_none_or(Option::is_some) || !self.room(1, block.warps.len()) {
            return false;
        }
        let mut ids = Vec::new();
        let mut rest = rest.into_iter();
        for (insts, kinds) in block.warps.into_iter().zip(kinds) {
            let Some(w) = self.warps.iter().position(Option::is_none) else {
                break;
            };
            let mut old = self.retired.pop();
            let mut steps = old
                .as_mut()
                .map(|o| std::mem::take(&mut o.steps))
                .unwrap_or_default();
            steps.clear();
            steps.extend(insts.iter().zip(kinds).map(|(i, &k)| Step::of(i, k)));
            let more = rest.next();
            let in_block = ids.len() as u32;
            let mut x = Warp::new(insts, steps, more, self.launched, block.id, in_block);
            if let Some(o) = old {
                x.reuse(o);
            }
            x.slot = slot;
            self.gates.set(w, Some(&x));
            self.warps[w] = Some(x);
            self.launched += 1;
            ids.push(w);
        }
        // Each scheduler that reads access ranges gets its warps' (`first`: the first warp of
        // the block it holds).
        let mut took = 0u32;
        for (&w, r) in ids.iter().zip(ranges) {
            let s = w % self.sched.len();
            self.sched[s].placed(w, r, took >> s & 1 == 0);
            took |= 1 << s;
        }
        self.free.blocks -= 1;
        self.free.warps -= ids.len();
        let live = ids
            .iter()
            .filter(|&&w| self.warps[w].as_ref().is_some_and(|x| !x.done))
            .count() as u32;
        self.blocks[slot] = Some(Block {
            warps: ids,
            live,
            waiting: 0,
            unfinished: live,
        });
        // (A block may arrive with nothing to run.)
        self.changed |= 1 << slot;
        self.idle.fill(0);
        self.wake = 0;
        true
    }
}

impl Component for Sm<'_> {
    /// The first core cycle at which it has work of its own ([`Sm::cycle`] says what).
    /// Something outside it may bring its next cycle earlier: [`Sm::due`] says when it runs.
    fn next_work(&self) -> u64 {
        self.wake
    }
}
