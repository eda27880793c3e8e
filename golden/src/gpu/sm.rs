//! One streaming multiprocessor (SM): resident thread blocks and their warps, warp schedulers
//! with in-order issue and a register scoreboard, the LD/ST unit and the L1 data cache in front
//! of the memory side's port.
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
//!    to scheduler `w % schedulers`), picked loosely round-robin (`lrr`: from the warp after
//!    the last one issued) or greedy-then-oldest (`gto`: the last one issued while it can,
//!    else the oldest) or two-level (`two-level`: loose round robin within an active set of
//!    `gpu.active_warps` warps; before it picks, the active warps that wait long, on a global
//!    load, at a barrier or ended, go to the back of its pending queue, whose front warps
//!    fill the set); a warp issues its next instruction when no source or destination
//!    register awaits a result, it is not at a barrier, and (a global memory instruction) the
//!    LD/ST unit is free;
//! 6. a block whose warps all wait at a barrier passes it; a block whose warps have exited and
//!    whose memory instructions are answered leaves.
//!
//! Latencies: an arithmetic result is readable its execution unit's latency after issue
//! (`gpu.<class>_latency`, the unit of its opcode's class: [`exec_class`]), and each warp
//! scheduler's unit of that class takes its next instruction `gpu.<class>_initiation` cycles
//! after (a warp whose next instruction's unit is busy does not issue); a shared memory or
//! constant load's result is readable `gpu.shared_latency` cycles after issue; a global
//! load's when its last access is answered. Stores do not hold their warp; a store is
//! answered when the L2 acknowledges it, and its block leaves only then. Unloaded, a
//! one-access load issued at cycle `t` is answered (tests: `a_single_load_takes_the_documented_sum_of_its_stages`):
//! * an L1 hit: at `t + 1 + gpu.l1_latency` (into the L1 at `t + 1`, looked up at `t + 2`, the
//!   answer `l1_latency - 1` cycles after the lookup);
//! * an L1 miss: its fetch is offered at `c = t + 3`, the reply reaches the port `side(c)`
//!   cycles later (the memory side's documented sum, an L2 hit or a DRAM access), fills the
//!   L1, and the answer follows `l1_latency - 1` cycles after the fill;
//! * bypassing the L1: offered at `c = t + 2`, answered when the reply reaches the port.

use super::coalesce::{coalesce_chunks, coalesce_strided, CoalesceRules, Space};
use super::kernel::KernelWarp;
use super::prefetch::{Demand, PfHook, PrefetchStats, Prefetcher};
use crate::bitset::{from128, members, members128};
use crate::mc::open_loop::Hist;
use crate::mem::partition::MemRequest;
use crate::mem::side::MemorySide;
use crate::mem::slice::{AccessKind, Head, Slice, SliceRequest, SliceStats};
use crate::ot::{GpuTxn, Observe, Query};
use crate::stream::Offer;
use crate::workload::accelsim::{Inst, LaneAddrs, Reg, TraceBlock};
use crate::workload::opcode::Kind;
use spec::gpu::{ExecClass, ExecTiming, WarpScheduler};
use spec::Spec;
use std::collections::VecDeque;

/// The zero register: never waits.
const RZ: Reg = 255;

/// A memory instruction whose accesses are not all answered.
#[derive(Debug, Clone)]
struct Pending {
    id: u16,
    dest: Option<Reg>,
    /// A load (its latency and divergence are counted), not an atomic.
    load: bool,
    left: u32,
    issued: u64,
    /// The cycle its first access was answered.
    first: Option<u64>,
    /// Its PC and load execution count, and the lines the OT predictor has observed of it
    /// (inline: most loads touch one or two lines, and a list allocated per load was 1 % of a
    /// streaming run).
    pc: u64,
    lec: u32,
    observed: smallvec::SmallVec<[u64; 2]>,
}

/// What the schedulers and the issue stage read of an instruction, 16 bytes, built at launch
/// (when the block's instructions were just read): its kind, destination and first four
/// sources (`RZ` where there is none), and whether it has more sources (a built-in kernel's
/// sum over its loads), which are then read from the instruction. (Read from `Inst`, 80 bytes
/// reached through each warp's own vector, the next instruction's first read mostly missed
/// the host's caches: a tenth of a compute-heavy run.)
#[derive(Debug, Clone, Copy)]
struct Step {
    kind: Kind,
    dest: Reg,
    srcs: [Reg; 4],
    more: bool,
}

impl Step {
    fn of(i: &Inst, kind: Kind) -> Step {
        let mut srcs = [RZ; 4];
        for (s, &r) in srcs.iter_mut().zip(&i.srcs) {
            *s = r;
        }
        Step {
            kind,
            dest: i.dest.unwrap_or(RZ),
            srcs,
            more: i.srcs.len() > 4,
        }
    }
}

#[derive(Debug)]
struct Warp {
    /// Its instructions (a generated kernel's warp: the next [`super::kernel::CHUNK`] of them,
    /// `more` making the rest as it reaches them), and what the schedulers read of each.
    insts: Vec<Inst>,
    steps: Vec<Step>,
    more: Option<Box<KernelWarp>>,
    next: usize,
    /// Launch order (GTO's age).
    age: u64,
    done: bool,
    at_barrier: bool,
    /// Registers awaiting a load, and arithmetic results not yet readable (register, cycle).
    loading: [u64; 4],
    writing: Vec<(Reg, u64)>,
    /// The next instruction as the schedulers check it, kept by [`Warp::prepare`] when
    /// `next` or `writing` changes (at launch and at issue; nothing else changes them): the
    /// registers it reads or writes (`RZ` not) as a bit set, the cycle from which none of
    /// them awaits an arithmetic result, and its kind (`None`: no next instruction). (Read
    /// through the instruction at every check, it was most of a compute-heavy run's
    /// scheduling.)
    need: [u64; 4],
    ready_at: u64,
    next_kind: Option<Kind>,
    /// The next instruction's destination (`RZ` not).
    next_dest: Option<Reg>,
    pending: Vec<Pending>,
    next_id: u16,
    /// Its block's coordinates, its index in the block, and per PC the times it executed it
    /// (the load execution count, seed 000).
    tb: [u32; 3],
    in_block: u32,
    lec: Vec<(u64, u32)>,
    /// Its block's slot.
    slot: usize,
}

impl Warp {
    /// A warp at its first instruction, launched `age`-th, warp `in_block` of block `tb`.
    fn new(
        insts: Vec<Inst>,
        steps: Vec<Step>,
        more: Option<KernelWarp>,
        age: u64,
        tb: [u32; 3],
        in_block: u32,
    ) -> Warp {
        let mut w = Warp {
            done: insts.is_empty(),
            insts,
            steps,
            more: more.filter(|g| !g.ended()).map(Box::new),
            next: 0,
            age,
            at_barrier: false,
            loading: [0; 4],
            writing: Vec::new(),
            need: [0; 4],
            ready_at: 0,
            next_kind: None,
            next_dest: None,
            pending: Vec::new(),
            next_id: 0,
            tb,
            in_block,
            lec: Vec::new(),
            slot: 0,
        };
        w.prepare();
        w
    }

    /// Take a retired warp's buffers (emptied) for this new one's.
    fn reuse(&mut self, mut old: Warp) {
        old.pending.clear();
        old.lec.clear();
        old.writing.clear();
        self.pending = old.pending;
        self.lec = old.lec;
        self.writing = old.writing;
    }

    /// Past its last instruction held: the next ones from its generator, if it has more.
    /// (`kinds` is scratch space.)
    fn refill(&mut self, kinds: &mut Vec<Kind>) {
        let Some(g) = self.more.as_mut() else {
            return;
        };
        self.insts.clear();
        kinds.clear();
        g.fill(&mut self.insts, kinds);
        self.steps.clear();
        self.steps.extend(
            self.insts
                .iter()
                .zip(kinds.iter())
                .map(|(i, &k)| Step::of(i, k)),
        );
        self.next = 0;
        if g.ended() {
            self.more = None;
        }
    }

    /// Set `need`, `ready_at` and `next_kind` for the instruction at `next`.
    fn prepare(&mut self) {
        self.need = [0; 4];
        self.ready_at = 0;
        self.next_kind = None;
        self.next_dest = None;
        let Some(&step) = self.steps.get(self.next) else {
            return;
        };
        self.next_kind = Some(step.kind);
        self.next_dest = Some(step.dest).filter(|&r| r != RZ);
        let more = match step.more {
            true => &self.insts[self.next].srcs[4..],
            false => &[],
        };
        for &r in step.srcs.iter().chain(more).chain([&step.dest]) {
            if r != RZ {
                self.need[usize::from(r / 64)] |= 1 << (r % 64);
            }
        }
        let need = self.need;
        self.ready_at = self
            .writing
            .iter()
            .filter(|&&(r, _)| need[usize::from(r / 64)] >> (r % 64) & 1 != 0)
            .map(|&(_, t)| t)
            .max()
            .unwrap_or(0);
    }

    /// Whether the next instruction reads or writes a register a load will write, or one an
    /// arithmetic result not readable at `now` will.
    #[cfg(test)]
    fn waits(&self, now: u64) -> bool {
        (0..4).any(|k| self.loading[k] & self.need[k] != 0) || self.ready_at > now
    }

    /// Whether it could issue but for time (an arithmetic input not yet readable, a busy
    /// unit): it has a next instruction, is not at a barrier, and no register of that
    /// instruction awaits a load. Only events change this (see [`Gates`]).
    fn eligible(&self) -> bool {
        self.next_kind.is_some()
            && !self.done
            && !self.at_barrier
            && (0..4).all(|k| self.loading[k] & self.need[k] == 0)
    }

    /// Register `r` awaits a load (a long wait, to the two-level scheduler).
    fn loads_into(&self, r: Reg) -> bool {
        r != RZ && self.loading[usize::from(r / 64)] >> (r % 64) & 1 != 0
    }
}

/// A resident thread block: its warps' slots.
#[derive(Debug)]
struct Block {
    warps: Vec<usize>,
    /// Its warps not ended; of those, the ones at the barrier; and its warps not ended or
    /// with a memory instruction unanswered (the block is finished at 0). Kept at the events
    /// that change them, so that step 6 does not visit every warp of every block.
    live: u32,
    waiting: u32,
    unfinished: u32,
}

/// A memory instruction in the LD/ST unit: its warp slot, its pending id, its requests
/// (address, write) not yet moved on, and whether they bypass the L1.
type Unit = (usize, u16, VecDeque<(u64, bool)>, bool, Space);

/// The tag bit of a request that bypassed the L1 (its low 32 bits: warp slot << 16 | pending
/// id); the L1's own fetches carry tag 0.
const BYPASS: u64 = 1 << 32;
/// The tag bit of a prefetch (seed 001).
const PREFETCH: u64 = 1 << 33;
/// The tag bit of a store the L1 wrote through (its low 32 bits: the access's payload), whose
/// acknowledgement answers it.
const WRITE_ACK: u64 = 1 << 34;

/// Counters of one SM.
#[derive(Debug, Clone, Default)]
pub struct SmStats {
    pub instructions: u64,
    pub blocks: u64,
    pub l1: SliceStats,
    /// Cycles from a global load's issue to its last answer.
    pub load_latency: Hist,
    /// Cycles from a global load's first answered access to its last (memory divergence).
    pub divergence: Hist,
    /// Requests the port sent to the memory side, and replies it took back.
    pub sent: u64,
    pub replies: u64,
    /// Its prefetcher (seed 001), if the GPU has one.
    pub prefetch: Option<PrefetchStats>,
}

/// What the OT predictor sees of an SM, and how it narrows it (as `ot_stimulus` does).
struct OtTap {
    txns: Vec<GpuTxn>,
    /// (`ot.lec_bits` is at most 32.)
    lec_mask: u32,
    addr_mask: u64,
    line_mask: u64,
}

/// Warp slots (bit per slot, at most 128) whose warp is [`Warp::eligible`], and those whose
/// next instruction is a global memory one (it waits for the LD/ST unit too).
#[derive(Debug, Clone, Copy, Default)]
struct Gates {
    eligible: u128,
    global: u128,
}

impl Gates {
    /// Slot `w`'s bits from its warp (`None`: no warp).
    fn set(&mut self, w: usize, x: Option<&Warp>) {
        let bit = 1u128 << w;
        self.eligible &= !bit;
        self.global &= !bit;
        if let Some(x) = x {
            if x.eligible() {
                self.eligible |= bit;
            }
            if matches!(x.next_kind, Some(Kind::Global { .. })) {
                self.global |= bit;
            }
        }
    }
}

/// One SM. (Fields in this order, `repr(C)`: those every cycle reads come first, side by side
/// in few host cache lines, then its L1's: 4 % fewer host L1 misses in a streaming run.)
#[repr(C)]
pub struct Sm {
    id: u32,
    /// The last core cycle it ran or counted as skipped ([`Sm::settle`]).
    last_cycle: u64,
    /// The block slots (bit per slot, at most 64) in which a warp reached a barrier or ended,
    /// or a memory instruction was answered, or a block arrived, since step 6 last looked.
    changed: u64,
    schedulers: usize,
    policy: WarpScheduler,
    /// The LD/ST unit's front access was looked up at the prefetcher already (it missed, and
    /// waits for the L1 or the port).
    pf_checked: bool,
    /// The prefetcher (`prefetch.kind` other than none), and the demand loads its cache
    /// answered: (cycle due, payload), in due order.
    pf: Option<Box<Prefetcher>>,
    /// The port's register: a request the memory side has not taken yet (offered again next
    /// cycle), and the payload of the access it is for.
    held: Option<(MemRequest, Option<u32>)>,
    /// The LD/ST unit: the memory instruction it holds.
    unit: Option<Unit>,
    /// Block slots freed this cycle and not yet taken ([`Sm::take_finished`]).
    finished: Vec<u32>,
    /// The OT predictor's view ([`Sm::observe_ot`]): its transactions of this SM, taken by
    /// [`Sm::take_ot`].
    ot: Option<OtTap>,
    pf_answers: VecDeque<(u64, u32)>,
    /// Per scheduler that found no ready warp: the cycle from which an arithmetic result or a
    /// free unit may ready one (0: it looks every cycle). Cleared by an event that can ready
    /// one of its warps (a load of one answered) or any warp (a free LD/ST unit, a launch, a
    /// barrier passed). (A plain cycle, not an option in a small vector: it is read every SM
    /// cycle.)
    idle: Vec<u64>,
    own: Vec<u128>,
    last: Vec<Option<usize>>,
    /// Which warps may issue, kept at the events that change it; per scheduler, its slots. A
    /// scheduler looks only at these (scanning its every warp was a tenth of a streaming run's
    /// instructions).
    gates: Gates,
    warps: Vec<Option<Warp>>,
    l1: Slice<u32>,
    stats: SmStats,
    blocks: Vec<Option<Block>>,
    busy: Vec<[u64; ExecClass::COUNT]>,
    /// Per execution-unit class: its timing; per scheduler and class, the first cycle its unit
    /// takes another instruction.
    exec: [ExecTiming; ExecClass::COUNT],
    /// Free block slots and warp slots (what [`Sm::room`] reads every cycle).
    free: (usize, usize),
    /// Resident blocks of the running kernel at most (its occupancy).
    max_blocks: usize,
    launched: u64,
    rules: CoalesceRules,
    /// The L1 is a sector cache (requests per 32-byte chunk) rather than a line cache.
    l1_sector: bool,
    shared_latency: u64,
    /// Two-level scheduling: the active set's size, and per scheduler its active set (in loose
    /// round-robin order, from the warp after the last one issued) and its pending queue, of
    /// its warp slots (every slot is in one of the two, resident or not).
    active_warps: usize,
    active: Vec<VecDeque<usize>>,
    pending: Vec<VecDeque<usize>>,
    /// The emptied request queue of the unit's last instruction, reused by the next (one
    /// allocation per memory instruction was 1 % of a streaming run).
    spare: VecDeque<(u64, bool)>,
    /// Scratch space for the kinds of a generated warp's next instructions ([`Warp::refill`]).
    kinds: Vec<Kind>,
    /// Warps whose block finished, kept for their buffers (steps, pending accesses, load
    /// counts, results in flight): a launch reuses them (a block's warps allocated six
    /// vectors each, a sixtieth of a streaming run's time in the allocator).
    retired: Vec<Warp>,
}

#[cfg(test)]
thread_local! {
    /// A deliberately wrong variant for the tests (on this thread): SMs take blocks beyond
    /// their kernel's occupancy.
    pub(crate) static LAX_OCCUPANCY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Another: warps issue to a busy execution unit (initiation intervals ignored).
    pub(crate) static LAX_INITIATION: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Wrong two-level schedulers: 1, a warp waiting on an arithmetic result leaves the active
    /// set too; 2, a warp waiting on a load keeps it.
    pub(crate) static LAX_TWO_LEVEL: std::cell::Cell<u8> = const { std::cell::Cell::new(0) };
    /// Another: an answered load does not update its warp's gates (the warp is left as
    /// waiting on it).
    pub(crate) static LAX_GATES: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Another: an SM that slept with a request held at a full port does not count the
    /// refusals of the cycles it skipped.
    pub(crate) static LAX_SETTLE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the tests' wrong variant forgets a sleeping SM's refused offers (never outside unit
/// tests).
#[inline(always)]
fn lax_settle() -> bool {
    #[cfg(test)]
    return LAX_SETTLE.with(|l| l.get());
    #[cfg(not(test))]
    false
}

/// Whether the tests' wrong variant ignores initiation intervals (never outside unit tests).
#[inline(always)]
fn lax_initiation() -> bool {
    #[cfg(test)]
    return LAX_INITIATION.with(|l| l.get());
    #[cfg(not(test))]
    false
}

impl Sm {
    pub fn new(spec: &Spec, id: u32) -> Sm {
        let g = &spec.gpu;
        Sm {
            id,
            l1: {
                let mut l1 = Slice::new(g.l1, u64::from(g.l1_latency), 8);
                // A store completes when the L2 acknowledges it.
                l1.answer_writes_on_ack();
                if spec.prefetch.kind != spec::PrefetchKind::None && spec.prefetch.into_l1 {
                    // The prefetcher tracks which of its lines the L1 still holds.
                    l1.keep_evictions();
                }
                l1
            },
            warps: (0..g.warps_per_sm).map(|_| None).collect(),
            blocks: (0..g.ctas_per_sm).map(|_| None).collect(),
            schedulers: g.schedulers as usize,
            policy: g.scheduler,
            last: vec![None; g.schedulers as usize],
            active_warps: g.active_warps as usize,
            active: vec![VecDeque::new(); g.schedulers as usize],
            pending: (0..g.schedulers as usize)
                .map(|s| {
                    (s..g.warps_per_sm as usize)
                        .step_by(g.schedulers as usize)
                        .collect()
                })
                .collect(),
            rules: CoalesceRules {
                arch: g.coalesce_arch,
                warp_parts: g.warp_parts,
                skip_l1: g.skip_l1,
            },
            l1_sector: g.l1.kind == spec::cache::CacheKind::Sector,
            exec: g.exec,
            busy: vec![[0; ExecClass::COUNT]; g.schedulers as usize],
            shared_latency: u64::from(g.shared_latency),
            unit: None,
            spare: VecDeque::new(),
            kinds: Vec::new(),
            retired: Vec::new(),
            held: None,
            ot: None,
            launched: 0,
            finished: Vec::new(),
            changed: 0,
            last_cycle: 0,
            free: (g.ctas_per_sm as usize, g.warps_per_sm as usize),
            max_blocks: g.ctas_per_sm as usize,
            idle: vec![0; g.schedulers as usize],
            gates: Gates::default(),
            own: (0..g.schedulers as usize)
                .map(|s| {
                    (s..g.warps_per_sm as usize)
                        .step_by(g.schedulers as usize)
                        .fold(0, |m, w| m | 1 << w)
                })
                .collect(),
            pf: Prefetcher::new(spec).map(Box::new),
            pf_answers: VecDeque::new(),
            pf_checked: false,
            stats: SmStats::default(),
        }
    }

    /// Warp instructions issued so far (what [`Sm::stats`] counts, without copying the rest).
    pub fn instructions(&self) -> u64 {
        self.stats.instructions
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
    /// [`occupancy`](super::occupancy)): the prefetch engine empties its tables.
    pub fn launch_kernel(&mut self, max_blocks: u32) {
        self.max_blocks = max_blocks as usize;
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

    /// Count the cycles it skipped before core cycle `now` ([`Sm::next_busy`]): each would
    /// have done what its last one left to do again, and changed nothing else. Its L1 takes
    /// the cycles (refusing its head access each, if it has one), and the port refuses its
    /// held request each.
    fn settle(&mut self, now: u64, side: &mut MemorySide) {
        if now > self.last_cycle + 1 {
            let n = now - self.last_cycle - 1;
            self.l1.repeat(n);
            if self.held.is_some() && !lax_settle() {
                side.refused(n);
            }
            self.last_cycle = now - 1;
        }
    }

    /// Whether something outside it ends its sleep ([`Sm::next_busy`]) this core cycle: a
    /// reply landed at its port, or its port would take its held request.
    pub fn woken(&self, side: &MemorySide) -> bool {
        side.reply_at(self.id as usize) || self.held.is_some_and(|(m, _)| side.would_take(&m))
    }

    /// Blocks resident now.
    pub fn resident(&self) -> usize {
        self.blocks.len() - self.free.0
    }

    /// Whether `blocks` more blocks of `warps` warps each fit now (free block slots and warp
    /// slots, and the kernel's occupancy).
    pub fn room(&self, blocks: usize, warps: usize) -> bool {
        #[cfg(test)]
        if LAX_OCCUPANCY.with(std::cell::Cell::get) {
            return self.free.0 >= blocks && self.free.1 >= blocks * warps;
        }
        self.free.0 >= blocks
            && self.free.1 >= blocks * warps
            && self.resident() + blocks <= self.max_blocks
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
            && self.unit.is_none()
            && self.held.is_none()
            && self.l1.quiet()
            && self.l1.busy() == 0
            && self.pf.as_deref().is_none_or(Prefetcher::quiet)
            && self.pf_answers.is_empty()
    }

    /// Make `block` resident in block slot `slot` (the locality unit's choice) or the first
    /// free one; `kinds` classify its warps' instructions. The caller checked [`Sm::room`];
    /// `false` (nothing launched) if the slot is taken or the warps do not fit.
    #[must_use]
    /// Launch `block` (its instructions' kinds `kinds`, per warp; `rest`, per warp, the
    /// generator of its later instructions, if any) into block slot `slot` (`None`: the first
    /// free one). False if it does not fit.
    pub fn launch(
        &mut self,
        block: TraceBlock,
        kinds: &[Vec<Kind>],
        rest: Vec<KernelWarp>,
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
            let mut x = Warp::new(
                insts,
                steps,
                more,
                self.launched,
                block.id,
                ids.len() as u32,
            );
            if let Some(o) = old {
                x.reuse(o);
            }
            x.slot = slot;
            self.gates.set(w, Some(&x));
            self.warps[w] = Some(x);
            self.launched += 1;
            ids.push(w);
        }
        self.free.0 -= 1;
        self.free.1 -= ids.len();
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
        true
    }

    /// One core cycle at cycle `now`, against the memory side.
    pub fn cycle(&mut self, now: u64, side: &mut MemorySide) {
        // (Without a hook the prefetch engine cannot fail: its inputs are legal by
        // construction.)
        let _ = self.cycle_watched(now, side, None);
    }

    /// [`Sm::cycle`], with `hook` watching the prefetch engine (co-simulation in place); the
    /// hook's error ends the cycle.
    pub fn cycle_watched(
        &mut self,
        now: u64,
        side: &mut MemorySide,
        hook: Option<&mut PfHook<'_>>,
    ) -> Result<(), String> {
        let port = self.id as usize;
        self.settle(now, side);
        self.last_cycle = now;
        // 1. A reply fills the L1, answers an access that bypassed it, or fills the prefetch
        // cache (answering the loads that waited for the prefetch).
        if let Some((r, _)) = side.pop_reply(port) {
            self.stats.replies += 1;
            if r.tag & PREFETCH != 0 {
                let filled = self.pf.as_mut().and_then(|p| p.fill(r.addr));
                if let (Some(f), Some(pf)) = (&filled, &mut self.pf) {
                    if f.complete && f.into_l1 {
                        pf.installed(f, self.l1.install(f.line));
                    }
                }
                for p in filled.map(|f| f.answer).unwrap_or_default() {
                    self.answered(p, now);
                }
            } else if r.tag & (BYPASS | WRITE_ACK) != 0 {
                self.answered(r.tag as u32, now);
            } else if !r.write {
                self.l1.fill(r.addr);
            }
        }
        // 2. The L1's oldest miss to the memory side.
        if self.held.is_none() {
            if let Some(f) = self.l1.pop_fetch() {
                let m = MemRequest {
                    tag: match f.origin {
                        Some(p) if f.write => WRITE_ACK | u64::from(p),
                        _ => 0,
                    },
                    addr: f.addr,
                    write: f.write,
                    sm: self.id as u16,
                    warp: f.origin.map_or(0, |p| (p >> 16) as u16),
                    pc: 0,
                    prefetch: false,
                };
                self.held = Some((m, f.origin));
            }
        }
        // A prefetch when no demand request waits for the port.
        if let (None, Some(pf)) = (&self.held, &self.pf) {
            if let Some(line) = pf.peek() {
                let m = MemRequest {
                    tag: PREFETCH,
                    addr: line,
                    write: false,
                    sm: self.id as u16,
                    warp: 0,
                    pc: 0,
                    prefetch: true,
                };
                self.held = Some((m, None));
            }
        }
        if let Some((m, origin)) = self.held {
            if side.offer(m) == Offer::Accepted {
                self.stats.sent += 1;
                self.held = None;
                if let (Some(p), false) = (origin, m.write) {
                    self.observed(p, m.addr);
                }
                if let Some(pf) = &mut self.pf {
                    if m.tag & PREFETCH != 0 {
                        pf.sent();
                    } else if !m.write && m.tag & BYPASS == 0 {
                        pf.l1_events(0, 1);
                    }
                }
            }
        }
        // 3. The L1's access and its answers; the prefetch cache's answers.
        let merges = self.l1.mshr_merges();
        self.l1.cycle();
        if let Some(pf) = &mut self.pf {
            pf.l1_events(self.l1.mshr_merges() - merges, 0);
            // (Kept only when prefetching into the L1.)
            for line in self.l1.take_evictions() {
                pf.evicted(line);
            }
        }
        while let Some((p, _)) = self.l1.pop_answer() {
            self.answered(p, now);
        }
        // The next answer's warp is asked for ahead (a host cache hint).
        if let Some(p) = self.l1.next_answer() {
            if let Some(x) = self.warps.get((p >> 16) as usize) {
                crate::hint::prefetch(x);
            }
        }
        while self.pf_answers.front().is_some_and(|&(t, _)| t <= now) {
            if let Some((_, p)) = self.pf_answers.pop_front() {
                self.answered(p, now);
            }
        }
        // 4. The LD/ST unit's next access.
        if let Some((w, id, accesses, bypass, space)) = &mut self.unit {
            if let Some(&(addr, write)) = accesses.front() {
                let payload = (*w as u32) << 16 | u32::from(*id);
                // The prefetcher sees every global access first: a load its cache holds, or
                // one whose prefetch is in flight, goes no further; a store drops its line.
                let at_pf = match &mut self.pf {
                    _ if self.pf_checked => Demand::Miss,
                    Some(pf) if write => {
                        pf.store(addr);
                        Demand::Miss
                    }
                    Some(pf) => pf.demand(addr, payload),
                    None => Demand::Miss,
                };
                let before = accesses.len();
                if at_pf != Demand::Miss {
                    if at_pf == Demand::Hit {
                        let alu = self.exec[ExecClass::Alu.index()].latency;
                        self.pf_answers.push_back((now + u64::from(alu), payload));
                    }
                    accesses.pop_front();
                } else if *bypass {
                    // Straight to the memory side, through the port's register.
                    if self.held.is_none() {
                        let m = MemRequest {
                            tag: BYPASS | u64::from(payload),
                            addr,
                            write,
                            sm: self.id as u16,
                            warp: *w as u16,
                            pc: 0,
                            prefetch: false,
                        };
                        self.held = Some((m, Some(payload)));
                        accesses.pop_front();
                    }
                } else {
                    let kind = match (*space, write) {
                        (Space::Global, false) => AccessKind::GlobalRead,
                        (Space::Global, true) => AccessKind::GlobalWrite,
                        (Space::Local, false) => AccessKind::LocalRead,
                        (Space::Local, true) => AccessKind::LocalWrite,
                    };
                    let r = SliceRequest {
                        addr,
                        write,
                        payload,
                        kind,
                    };
                    if self.l1.offer(r) == Offer::Accepted {
                        accesses.pop_front();
                    }
                }
                // Looked up, and still waiting: not again.
                self.pf_checked = accesses.len() == before;
            }
            if accesses.is_empty() {
                if let Some(u) = self.unit.take() {
                    self.spare = u.2;
                }
                self.idle.fill(0);
            }
        }
        // The prefetch engine's cycle: training, the throttle's events, its prefetches.
        if let Some(pf) = &mut self.pf {
            let l1 = &self.l1;
            pf.cycle(&|line| l1.holds(line), hook)?;
        }
        // 5. Issue. A scheduler that found no ready warp finds none again until something
        // that readies one of its warps happens (`idle`) or an arithmetic result it waits on matures.
        // (Not under the two-level scheduler: its sets change every cycle, events or not.)
        let two_level = self.policy == WarpScheduler::TwoLevel;
        for s in 0..self.schedulers {
            if now < self.idle[s] {
                continue;
            }
            if two_level {
                self.order_two_level(s);
            }
            match self.pick(s, now) {
                Some(w) => {
                    self.issue(w, s, now);
                    self.last[s] = Some(w);
                    self.idle[s] = 0;
                    if two_level {
                        // Loose round robin: the warp after it comes first next time.
                        let a = &mut self.active[s];
                        if let Some(i) = a.iter().position(|&x| x == w) {
                            a.rotate_left(i + 1);
                        }
                    }
                }
                None if two_level => {}
                None => self.idle[s] = self.next_result(s, now),
            }
        }
        // 6. Barriers and finished blocks: only in the blocks where a warp reached a barrier or
        // ended, or a memory instruction was answered (nothing else can pass a barrier or end a
        // block), in slot order.
        let changed = std::mem::take(&mut self.changed);
        for slot in members(changed).map(|b| b as usize) {
            let Some(b) = &mut self.blocks[slot] else {
                continue;
            };
            // A block whose live warps all wait at the barrier passes it.
            if b.live > 0 && b.waiting == b.live {
                b.waiting = 0;
                for &w in &b.warps {
                    if let Some(x) = self.warps[w].as_mut().filter(|x| !x.done) {
                        x.at_barrier = false;
                        self.idle[w % self.schedulers] = 0;
                        self.gates.set(w, Some(x));
                    }
                }
            }
            let Some(b) = &self.blocks[slot] else {
                continue;
            };
            #[cfg(test)]
            self.check_block(b);
            if b.unfinished == 0 {
                for &w in &b.warps {
                    self.retired.extend(self.warps[w].take());
                    self.gates.set(w, None);
                    self.free.1 += 1;
                }
                self.blocks[slot] = None;
                self.free.0 += 1;
                self.finished.push(slot as u32);
                self.stats.blocks += 1;
            }
        }
        Ok(())
    }

    /// The block's counters are its warps' states (the tests' check of the kept counts).
    #[cfg(test)]
    fn check_block(&self, b: &Block) {
        let xs = || b.warps.iter().filter_map(|&w| self.warps[w].as_ref());
        let live = xs().filter(|x| !x.done).count() as u32;
        let waiting = xs().filter(|x| !x.done && x.at_barrier).count() as u32;
        let unfinished = xs().filter(|x| !x.done || !x.pending.is_empty()).count() as u32;
        assert_eq!(
            (b.live, b.waiting, b.unfinished),
            (live, waiting, unfinished)
        );
    }

    /// After its cycle at `now`: the first core cycle at which it has work of its own, unless
    /// something outside it changes first ([`Sm::woken`]: a reply lands at its port, or its
    /// port would take its held request; or a block is launched on it). A cycle before it
    /// would do what this one left to do again and change nothing: offer its held request to
    /// a port that refuses it, retry an L1 access the MSHRs or the miss queue refuse (a
    /// reservation failure each time), offer the LD/ST unit's next access to a full L1 input
    /// queue or (bypassing the L1) to the taken port register, and count the L1's clock
    /// ([`Sm::settle`] counts them when it runs again). `now + 1` while it has work or a
    /// prefetcher: a fetch for a free port register, an access the L1 or the port would take,
    /// an answer due, a block to look at, a scheduler that may find a warp to issue, or
    /// something outside that has already woken it.
    pub fn next_busy(&self, now: u64, side: &MemorySide) -> u64 {
        if self.pf.is_some() || !self.pf_answers.is_empty() || self.changed != 0 {
            return now + 1;
        }
        // Without a held request, the L1's next fetch takes the port register. An L1 head
        // access not refused in this cycle is yet to be tried.
        if self.held.is_none() && self.l1.miss_queue_len() > 0
            || self.l1.input_len() > 0 && !self.l1.refused_last()
        {
            return now + 1;
        }
        if let Some((_, _, accesses, bypass, _)) = &self.unit {
            let waits = if *bypass {
                self.held.is_some()
            } else {
                !self.l1.has_room()
            };
            if accesses.is_empty() || !waits {
                return now + 1;
            }
        }
        let mut at = u64::MAX;
        for &until in &self.idle {
            if until <= now {
                return now + 1;
            }
            at = at.min(until);
        }
        match self.l1.answer_in() {
            0 => return now + 1,
            d => at = at.min(now.saturating_add(d)),
        }
        if self.l1.head() == Head::Taken || self.woken(side) {
            return now + 1;
        }
        at.max(now + 1)
    }

    /// Let the OT predictor see this SM (seed 000): a query for every global load a warp
    /// issues, and an observation of every line a load's requests to the memory partitions
    /// name (once per line per instruction), with the load's PC, LEC, block and warp.
    pub fn observe_ot(&mut self, ot: &spec::OtSpec, line_bytes: u32) {
        self.ot = Some(OtTap {
            txns: Vec::new(),
            lec_mask: crate::block::mask(ot.lec_bits) as u32,
            addr_mask: crate::block::mask(ot.addr_bits),
            line_mask: !(u64::from(line_bytes.max(1)) - 1),
        });
    }

    /// The OT transactions since the last call, in the order they happened.
    pub fn take_ot(&mut self) -> Option<std::vec::Drain<'_, GpuTxn>> {
        // (None when there are none: extending by an empty drain, per SM per cycle, was 3 %
        // of a streaming run's time.)
        self.ot
            .as_mut()
            .filter(|t| !t.txns.is_empty())
            .map(|t| t.txns.drain(..))
    }

    /// A request for access `p` (warp slot << 16 | pending id) at `addr` entered the memory
    /// side: the OT observes its line.
    fn observed(&mut self, p: u32, addr: u64) {
        let Some(t) = &mut self.ot else {
            return;
        };
        let (w, id) = ((p >> 16) as usize, (p & 0xffff) as u16);
        let Some(x) = self.warps[w].as_mut() else {
            return;
        };
        let Some(e) = x.pending.iter_mut().find(|e| e.id == id) else {
            return;
        };
        let line = addr & t.line_mask;
        if e.observed.contains(&line) {
            return;
        }
        e.observed.push(line);
        t.txns.push(GpuTxn::Observe(Observe {
            pc: e.pc,
            lec: e.lec & t.lec_mask,
            tb: x.tb,
            warp: x.in_block,
            addr: line & t.addr_mask,
        }));
    }

    /// An access of warp slot `p >> 16`'s memory instruction `p & 0xffff` is answered.
    fn answered(&mut self, p: u32, now: u64) {
        let (w, id) = ((p >> 16) as usize, (p & 0xffff) as u16);
        let Some(warp) = self.warps[w].as_mut() else {
            return;
        };
        let Some(i) = warp.pending.iter().position(|x| x.id == id) else {
            return;
        };
        warp.pending[i].left -= 1;
        warp.pending[i].first.get_or_insert(now);
        if warp.pending[i].left == 0 {
            self.changed |= 1 << warp.slot;
            self.idle[w % self.schedulers] = 0;
            let done = warp.pending.swap_remove(i);
            if let Some(r) = done.dest {
                warp.loading[usize::from(r / 64)] &= !(1 << (r % 64));
            }
            if done.dest.is_some() && done.load {
                self.stats.load_latency.add(now - done.issued);
                self.stats.divergence.add(now - done.first.unwrap_or(now));
            }
            if warp.done && warp.pending.is_empty() {
                if let Some(b) = &mut self.blocks[warp.slot] {
                    b.unfinished -= 1;
                }
            }
            #[cfg(test)]
            if LAX_GATES.with(std::cell::Cell::get) {
                return;
            }
            self.gates.set(w, Some(warp));
        }
    }

    /// Whether warp slot `w` (of scheduler `s`) can issue its next instruction at `now`.
    #[inline]
    fn ready(&self, w: usize, s: usize, now: u64) -> bool {
        // (The tests check the kept bit against the warp's state.)
        #[cfg(test)]
        {
            let mut g = self.gates;
            g.set(w, self.warps[w].as_ref());
            assert_eq!(
                (g.eligible ^ self.gates.eligible | g.global ^ self.gates.global) >> w & 1,
                0,
                "warp slot {w}'s gates at {now}"
            );
        }
        if self.gates.eligible >> w & 1 == 0 {
            return false;
        }
        let Some(x) = &self.warps[w] else {
            return false;
        };
        let Some(kind) = x.next_kind else {
            return false;
        };
        if x.ready_at > now {
            return false;
        }
        match kind {
            Kind::Global { .. } => self.unit.is_none(),
            Kind::Alu(c) => self.busy[s][c.index()] <= now || lax_initiation(),
            _ => true,
        }
    }

    /// The first cycle after `now` at which one of scheduler `s`'s eligible warps may become
    /// ready without an event: its arithmetic inputs readable, or one of the scheduler's
    /// execution units free again (`u64::MAX`: none). (A warp that is not eligible needs an
    /// event first, and every such event wakes its scheduler.)
    fn next_result(&self, s: usize, now: u64) -> u64 {
        members128(self.candidates(s))
            .filter_map(|w| self.warps[w].as_ref())
            .map(|x| x.ready_at)
            .chain(self.busy[s].iter().copied())
            .filter(|&t| t > now)
            .min()
            .unwrap_or(u64::MAX)
    }

    /// Whether warp slot `w` waits for more than a short latency, as the two-level scheduler
    /// sees it (GPGPU-Sim's `waiting()` or a source register awaiting a long operation): no
    /// warp, an ended warp, one at a barrier, or one whose next instruction reads a register a
    /// global or local load will write.
    fn waits_long(&self, w: usize) -> bool {
        let Some(x) = &self.warps[w] else {
            return true;
        };
        let Some(i) = x.insts.get(x.next).filter(|_| !x.done && !x.at_barrier) else {
            return true;
        };
        #[cfg(test)]
        match LAX_TWO_LEVEL.with(|l| l.get()) {
            1 => {
                return i
                    .srcs
                    .iter()
                    .any(|&r| x.loads_into(r) || r != RZ && x.writing.iter().any(|&(w, _)| w == r))
            }
            2 => return false,
            _ => {}
        }
        i.srcs.iter().any(|&r| x.loads_into(r))
    }

    /// The two-level scheduler's sets of scheduler `s` before it picks: the active warps that
    /// wait long go, in order, to the back of the pending queue; the queue's front warps fill
    /// the active set (GPGPU-Sim's two_level_active with outer SRR: whether or not they are
    /// ready).
    fn order_two_level(&mut self, s: usize) {
        let mut active = std::mem::take(&mut self.active[s]);
        active.retain(|&w| {
            let waits = self.waits_long(w);
            if waits {
                self.pending[s].push_back(w);
            }
            !waits
        });
        while active.len() < self.active_warps {
            match self.pending[s].pop_front() {
                Some(w) => active.push_back(w),
                None => break,
            }
        }
        self.active[s] = active;
    }

    /// Scheduler `s`'s warps that may issue but for time: eligible ones, without those whose
    /// global memory instruction waits for the busy LD/ST unit (it frees with an event).
    fn candidates(&self, s: usize) -> u128 {
        let mut c = self.gates.eligible & self.own[s];
        if self.unit.is_some() {
            c &= !self.gates.global;
        }
        c
    }

    /// Scheduler `s`'s pick.
    fn pick(&self, s: usize, now: u64) -> Option<usize> {
        // Its eligible warps, ascending (the others cannot issue).
        let own = self.candidates(s);
        #[cfg(test)]
        for w in members128(self.own[s] & !own) {
            assert!(!self.ready(w, s, now));
        }
        match self.policy {
            WarpScheduler::Lrr => {
                // From the warp after the last one issued, round the SM's warps.
                let from = from128(self.last[s].map_or(0, |w| w + 1));
                members128(own & from)
                    .chain(members128(own & !from))
                    .find(|&w| self.ready(w, s, now))
            }
            WarpScheduler::Gto => {
                if let Some(w) = self.last[s].filter(|&w| self.ready(w, s, now)) {
                    return Some(w);
                }
                members128(own)
                    .filter(|&w| self.ready(w, s, now))
                    .min_by_key(|&w| self.warps[w].as_ref().map_or(u64::MAX, |x| x.age))
            }
            WarpScheduler::TwoLevel => self.active[s]
                .iter()
                .copied()
                .find(|&w| self.ready(w, s, now)),
        }
    }

    /// Warp slot `w` (of scheduler `s`) issues its next instruction.
    fn issue(&mut self, w: usize, s: usize, now: u64) {
        let rules = self.rules;
        let (shared, sector) = (self.shared_latency, self.l1_sector);
        let skip_l1 = rules.skip_l1;
        let Some(x) = self.warps[w].as_mut() else {
            return;
        };
        let idx = x.next;
        let (Some(kind), dest) = (x.next_kind, x.next_dest) else {
            return;
        };
        // A global instruction's requests to the L1: one per coalesced access (a line L1), or
        // one per 32-byte chunk an access touches (a sector L1).
        let mut parts = VecDeque::new();
        if let Kind::Global {
            space,
            write,
            l2_only,
        } = kind
        {
            parts = std::mem::take(&mut self.spare);
            let i = &x.insts[idx];
            // The active lanes with their addresses, as a stride or an iterator (not listed
            // first).
            let size = i.mem_bytes;
            let accesses = match &i.addrs {
                &LaneAddrs::Strided { base, stride, n } => coalesce_strided(
                    rules,
                    i.mask,
                    base,
                    stride,
                    usize::from(n),
                    size,
                    space,
                    l2_only,
                ),
                LaneAddrs::List(l) => {
                    let lanes = members(u64::from(i.mask));
                    coalesce_chunks(rules, lanes.zip(l.iter().copied()), size, space, l2_only)
                }
                LaneAddrs::Empty => Default::default(),
            };
            for a in accesses {
                if !sector {
                    parts.push_back((a.addr, write));
                    continue;
                }
                let block = a.addr & !127;
                for c in 0..4u64 {
                    let at = block + 32 * c;
                    if a.chunks >> c & 1 != 0 && at >= a.addr && at < a.addr + u64::from(a.size) {
                        parts.push_back((at, write));
                    }
                }
            }
        }
        x.next += 1;
        self.stats.instructions += 1;
        x.writing.retain(|&(_, t)| t > now);
        match kind {
            // A warp ends when its trace does: an EXIT of some lanes is followed by the others'
            // instructions (Accel-Sim's trace-driven warps end the same way).
            Kind::Exit => {}
            Kind::Barrier => {
                x.at_barrier = true;
                self.changed |= 1 << x.slot;
            }
            Kind::Alu(c) => {
                let t = self.exec[c.index()];
                self.busy[s][c.index()] = now + u64::from(t.initiation);
                if let Some(r) = dest {
                    x.writing.push((r, now + u64::from(t.latency)));
                }
            }
            Kind::Shared => {
                if let Some(r) = dest {
                    x.writing.push((r, now + shared));
                }
            }
            Kind::Global {
                write,
                space,
                l2_only,
            } => {
                if !parts.is_empty() {
                    let id = x.next_id;
                    x.next_id = x.next_id.wrapping_add(1);
                    // A store writes no register; an atomic returns the old value into its
                    // destination (a reduction has none), which waits for the reply.
                    let dest = dest.filter(|_| !write || l2_only);
                    if let Some(r) = dest {
                        x.loading[usize::from(r / 64)] |= 1 << (r % 64);
                    }
                    let pc = x.insts[idx].pc;
                    let lec = match x.lec.iter_mut().find(|(p, _)| *p == pc) {
                        Some(e) => {
                            e.1 += 1;
                            e.1 - 1
                        }
                        None => {
                            x.lec.push((pc, 1));
                            0
                        }
                    };
                    if let (Some(pf), false, Some(&(first, _))) =
                        (&mut self.pf, write, parts.front())
                    {
                        if space == Space::Global {
                            pf.train(pc, w as u32, first);
                        }
                    }
                    if let (Some(t), false) = (&mut self.ot, write) {
                        t.txns.push(GpuTxn::Predict(Query {
                            pc,
                            lec: lec & t.lec_mask,
                            tb: x.tb,
                            warp: x.in_block,
                        }));
                    }
                    x.pending.push(Pending {
                        id,
                        dest,
                        load: !write,
                        left: parts.len() as u32,
                        issued: now,
                        first: None,
                        pc,
                        lec,
                        observed: Default::default(),
                    });
                    // Atomics and reductions go to the L2; with gpu.skip_l1 global
                    // accesses do too (GPGPU-Sim's -gpgpu_gmem_skip_L1D).
                    let bypass = l2_only || (skip_l1 && space == Space::Global);
                    self.unit = Some((w, id, parts, bypass, space));
                }
            }
        }
        if x.next == x.insts.len() {
            x.refill(&mut self.kinds);
        }
        x.prepare();
        if x.next >= x.insts.len() {
            x.done = true;
            self.changed |= 1 << x.slot;
        }
        if let Some(b) = &mut self.blocks[x.slot] {
            if x.done {
                b.live -= 1;
                b.unfinished -= u32::from(x.pending.is_empty());
            } else if x.at_barrier {
                b.waiting += 1;
            }
        }
        self.gates.set(w, Some(x));
    }
}

#[cfg(test)]
mod step_tests {
    use super::*;
    use crate::workload::accelsim::Srcs;
    use proptest::prelude::*;

    /// A warp whose next instruction is `i`, prepared; `lax`: its step built without the
    /// sources past the fourth (a deliberately wrong variant).
    fn warp(i: Inst, writing: Vec<(Reg, u64)>, lax: bool) -> Warp {
        let mut step = Step::of(&i, Kind::Alu(ExecClass::Alu));
        step.more &= !lax;
        let mut w = Warp::new(vec![i], vec![step], None, 0, [0; 3], 0);
        w.writing = writing;
        w.prepare();
        w
    }

    type Case = (Vec<Reg>, Option<Reg>, Vec<(Reg, u64)>, u64);

    fn case() -> impl Strategy<Value = Case> {
        (
            proptest::collection::vec(prop_oneof![0u8..8, Just(RZ)], 0..9),
            proptest::option::of(prop_oneof![0u8..8, Just(RZ)]),
            proptest::collection::vec((0u8..12, 0u64..50), 0..6),
            0u64..60,
        )
    }

    /// What `prepare` keeps of the next instruction is what reading the instruction gives:
    /// every register it reads or writes (`RZ` not, sources past the fourth included), whether
    /// an arithmetic result for one of them is in flight at `now`, and its destination.
    fn prepared_as_read((srcs, dest, writing, now): Case, lax: bool) -> Result<(), TestCaseError> {
        let i = Inst {
            pc: 0,
            mask: 1,
            op: 0,
            dest,
            srcs: Srcs::from_vec(srcs.clone()),
            mem_bytes: 0,
            addrs: Default::default(),
        };
        let w = warp(i, writing.clone(), lax);
        let regs: Vec<Reg> = srcs
            .iter()
            .chain(&dest)
            .copied()
            .filter(|&r| r != RZ)
            .collect();
        for r in 0..=Reg::MAX {
            let held = w.need[usize::from(r / 64)] >> (r % 64) & 1 != 0;
            prop_assert_eq!(held, regs.contains(&r), "register {}", r);
        }
        let waits = writing.iter().any(|&(r, t)| regs.contains(&r) && t > now);
        prop_assert_eq!(w.waits(now), waits);
        prop_assert_eq!(w.next_dest, dest.filter(|&r| r != RZ));
        Ok(())
    }

    proptest! {
        #[test]
        fn the_prepared_instruction_is_the_instruction(c in case()) {
            prepared_as_read(c, false)?;
        }
    }

    /// Without the sources past the fourth (a built-in kernel's sum over its loads), a warp
    /// would issue before its fifth load's register is written: the check above catches it.
    #[test]
    fn a_step_without_its_fifth_source_is_caught() {
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let caught = runner.run(&case(), |c| prepared_as_read(c, true));
        assert!(caught.is_err(), "the lax step was not caught");
    }
}
