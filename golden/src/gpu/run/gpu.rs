//! The GPU's core-cycle loop over one kernel: the memory side steps across the clock domains;
//! at each core edge the dispatcher places blocks, the SMs with work run, the address
//! predictor takes their transactions, and idle time is jumped over.

use super::blocks::Blocks;
use super::{l1_total, GpuError, KernelSummary, RunOptions, STALL_CYCLES};
use crate::dispatch::{Dispatcher, Placed, Rect};
use crate::gpu::occupancy::occupancy;
use crate::gpu::predict::{AnyPredictor, SmTxn};
use crate::gpu::sm::Sm;
use crate::mem::partition::CORE;
use crate::mem::side::MemorySide;
use crate::stream::Component;
use crate::workload::accelsim::KernelHeader;
use crate::workload::opcode::{kind_of, Kind};
use crate::workload::KernelDesc;
use spec::Spec;

/// The GPU: its SMs in front of one memory side; `'p`: the life of a probe on a prefetcher.
pub(super) struct Gpu<'s, 'p> {
    pub spec: &'s Spec,
    pub side: MemorySide,
    pub sms: Vec<Sm<'p>>,
    /// Idle time is jumped over ([`RunOptions::skips_idle_time`]).
    pub skips: bool,
    /// The workload runs once ([`RunOptions::once`]; read before a probe is moved out of the
    /// options).
    pub once: bool,
    /// The SM whose prefetcher a probe watches ([`super::PfWatch`]).
    pub pf_watch: Option<PfWatched>,
    /// A watched run reached its cycle budget.
    pub stopped: bool,
    /// Added to every global address (a watched run's later launches, see [`super::Watch`]).
    pub shift: u64,
    /// Cycles the locality unit stepped (a [`super::UnitWatch`]).
    pub unit_cycles: u64,
    /// Core cycles a watched prefetch engine stepped.
    pub pf_cycles: u64,
    /// Cycles a watched locality unit stepped (a [`super::LwsWatch`]).
    pub lws_cycles: u64,
    /// The locality policy's decision unit: one for the whole run, kernel after kernel.
    pub unit: Option<crate::dispatch::DispatchUnit>,
    /// Kernels finished, and the kernels of the run if known ahead ([`super::Progress`]).
    pub kernels_done: usize,
    pub kernels: Option<usize>,
    /// Statistics over time ([`super::RunOptions::stats_interval`]): the core cycle of the
    /// next sample, and the counts at the last.
    pub next_sample: u64,
    pub sampled: super::sample::Counts,
    /// The address predictor in place (`predictor.kind`), fed the SMs' transactions every
    /// cycle.
    pub ot: AnyPredictor,
    /// The cycle's transactions (a launch, the SMs' queries and observations, in SM order),
    /// each with its SM ([`crate::gpu::predict::SmTxn`]).
    pub ot_chunk: Vec<SmTxn>,
}

/// The SM whose prefetcher a probe watches, and the cycles its engine is to step.
#[derive(Debug, Clone, Copy)]
pub(super) struct PfWatched {
    pub sm: usize,
    pub cycles: u64,
}

/// One kernel's run: the dispatcher and what the loop keeps from cycle to cycle.
struct KernelRun<'k> {
    d: Dispatcher<'k>,
    h: KernelHeader,
    /// Warps per block.
    wpb: usize,
    /// Blocks launched, the most resident on one SM.
    blocks: u64,
    peak: u32,
    /// The last core cycle an instruction issued or a reply reached an SM.
    last_work: u64,
    /// The dispatcher's placements of the cycle.
    placed: Vec<Placed>,
    /// Per warp of the block being launched, its instructions' kinds (kept from block to
    /// block).
    kinds: Vec<Vec<Kind>>,
    /// A queue policy's last cycle placed nothing and no block has finished since: it would
    /// place nothing now either ([`Dispatcher::places_by_room_alone`]).
    full: bool,
    /// Warp and thread instructions issued before the kernel.
    before: u64,
    threads_before: u64,
    /// The first core cycle the dispatcher may place a block: the kernel's launch plus
    /// `gpu.kernel_launch_latency` (decision GPU-30).
    opens: u64,
    /// The kernel whose warps' access ranges the warp schedulers read, if they read them.
    ranges_of: Option<&'k KernelDesc>,
}

impl KernelRun<'_> {
    /// The dispatcher has work in core cycle `now`: the launch latency is over, and there are
    /// blocks to place, or (the locality unit) finished blocks to take, and not a queue policy
    /// known to place nothing.
    fn dispatching(&self, now: u64) -> bool {
        now >= self.opens && (!self.d.all_placed() || self.d.events_pending()) && !self.full
    }
}

/// What a step of the memory side was.
enum Edge {
    /// A core edge, at this core cycle.
    Core(u64),
    /// An edge of another domain only.
    Other,
    /// A watch's budget is reached: the run stops.
    Stop,
}

impl Gpu<'_, '_> {
    /// Run one kernel to its end: every block of `k` dispatched (the dispatcher told of every
    /// block that finishes), every SM idle again.
    pub fn kernel(
        &mut self,
        src: &mut dyn Blocks,
        k: &KernelDesc,
        rects: &[Vec<Option<Rect>>],
        opts: &mut RunOptions<'_, '_>,
    ) -> Result<KernelSummary, GpuError> {
        let spec = self.spec;
        let h = src.header().clone();
        let occupancy = occupancy(&spec.gpu, &h)?;
        let d = Dispatcher::with_unit(
            k,
            rects,
            &spec.dispatch,
            spec.dispatch.policy,
            spec.gpu.line_bytes,
            self.unit.take(),
        )?;
        // Volta's L1 takes what the kernel's shared memory leaves of the storage they share
        // (decision GPU-32).
        let l1_ways = spec
            .gpu
            .unified_l1
            .as_ref()
            .map(|u| u.l1_ways(occupancy.shmem_per_sm(h.blocks(), spec.gpu.sms)));
        for sm in self.sms.iter_mut() {
            sm.launch_kernel(occupancy.blocks, l1_ways);
        }
        let launch = crate::ot::OtTxn::Launch {
            grid: h.grid.map(u64::from).to_vec(),
            block: h.block.map(u64::from).to_vec(),
        };
        self.ot_chunk.push((0, crate::ot::GpuTxn::Launch(launch)));
        let start = self.side.core_cycle();
        if opts.cold_caches {
            // (Every SM is idle between kernels, so every L1 is flushed.)
            flush_empty_l1s(&mut self.sms, start, &mut self.side);
            self.side.invalidate_l2();
        }
        // (GPGPU-Sim places the first block in the core cycle after `latency` cycles of
        // waiting, as the first cycle after the launch is when it places it without one.)
        let opens = start + 1 + u64::from(spec.gpu.kernel_launch_latency);
        let (l1_before, l2_before) = (l1_total(&self.sms), self.side.stats().0.slices);
        let dram_before = self.side.dram().bytes_moved();
        let mut kr = KernelRun {
            d,
            wpb: h.warps() as usize,
            h,
            blocks: 0,
            peak: 0,
            // (The wait for the launch is not a stall.)
            last_work: opens - 1,
            placed: Vec::new(),
            kinds: Vec::new(),
            full: false,
            before: self.sms.iter().map(Sm::instructions).sum(),
            threads_before: self.sms.iter().map(Sm::thread_instructions).sum(),
            opens,
            ranges_of: self.sms.iter().any(Sm::reads_ranges).then_some(k),
        };
        while self.cycle(&mut kr, src, opts)? {}
        if spec.gpu.flush_l1 {
            let now = self.side.core_cycle();
            flush_empty_l1s(&mut self.sms, now, &mut self.side);
        }
        self.unit = kr.d.into_unit();
        self.kernels_done += 1;
        let instructions = self.sms.iter().map(Sm::instructions).sum::<u64>() - kr.before;
        let thread_instructions =
            self.sms.iter().map(Sm::thread_instructions).sum::<u64>() - kr.threads_before;
        let cycles = self.side.core_cycle() - start;
        let dram = self.side.dram().bytes_moved();
        Ok(KernelSummary {
            name: kr.h.name.clone(),
            id: kr.h.id,
            blocks: kr.blocks,
            instructions,
            thread_instructions,
            cycles,
            ipc: instructions as f64 / cycles.max(1) as f64,
            thread_ipc: thread_instructions as f64 / cycles.max(1) as f64,
            occupancy,
            l1_kb: l1_ways.map(|w| {
                let l1 = &spec.gpu.l1;
                w * l1.sets * l1.line_bytes / 1024
            }),
            peak_blocks_per_sm: kr.peak,
            l1: l1_total(&self.sms).since(&l1_before),
            l2: self.side.stats().0.slices.since(&l2_before),
            dram_read_bytes: dram.0 - dram_before.0,
            dram_write_bytes: dram.1 - dram_before.1,
        })
    }

    /// One step of the memory side and, at a core edge, of the GPU; false when the kernel
    /// has ended (or a watch stopped the run).
    fn cycle(
        &mut self,
        kr: &mut KernelRun<'_>,
        src: &mut dyn Blocks,
        opts: &mut RunOptions<'_, '_>,
    ) -> Result<bool, GpuError> {
        let now = match self.edge(opts)? {
            Edge::Core(now) => now,
            Edge::Other => return Ok(true),
            Edge::Stop => return Ok(false),
        };
        // The unit also steps after the last block is placed, until it has taken every
        // finished block (its running table is empty when the kernel ends).
        if kr.dispatching(now) && !self.dispatch(kr, src, opts)? {
            return Ok(false);
        }
        // GPGPU-Sim invalidates the L1 of an SM without threads after its block issue of the
        // cycle, which refills an emptied SM at once while blocks remain: so an SM is
        // invalidated once the kernel has no block left for it (and every SM at its end).
        if self.spec.gpu.flush_l1 && kr.d.all_placed() {
            flush_empty_l1s(&mut self.sms, now, &mut self.side);
        }
        let first_wake = self.run_sms(kr, opts, now)?;
        if self.stopped && (self.pf_watch.is_some() || opts.lws.is_some()) {
            return Ok(false);
        }
        if opts.check_bounds {
            check_bounds(&self.sms, now)?;
        }
        if !self.feed_predictor(opts) {
            return Ok(false);
        }
        if kr.d.all_placed() && !kr.d.events_pending() && self.sms.iter().all(Sm::idle) {
            return Ok(false);
        }
        self.check_progress(kr, opts, now)?;
        if let Some(n) = opts.stats_interval.filter(|_| now >= self.next_sample) {
            let (s, counts) = self.sample(now, &self.sampled);
            opts.samples.push(s);
            self.sampled = counts;
            self.next_sample = (now / n + 1) * n;
        }
        if now.is_multiple_of(1 << 14) {
            if let Some(p) = opts.progress {
                p(self.progress(kr, now));
            }
        }
        if self.skips && !kr.dispatching(now) && first_wake > now + 1 {
            // (Until the launch latency is over, the dispatcher's first cycle is a wake.)
            let wake = if now < kr.opens {
                first_wake.min(kr.opens)
            } else {
                first_wake
            };
            self.jump(kr, opts, now, wake);
        }
        Ok(true)
    }

    /// The memory side steps to its next clock edge (the Warped-MC watch on its group).
    fn edge(&mut self, opts: &mut RunOptions<'_, '_>) -> Result<Edge, GpuError> {
        let side = &mut self.side;
        let mask = side.cycle()?;
        if let Some(w) = &mut opts.watch {
            side.dram_mut().probe(&mut *w.hook)?;
            if side.dram().now() >= w.dram_cycles {
                self.stopped = true;
                return Ok(Edge::Stop);
            }
        }
        if mask & CORE == 0 {
            return Ok(Edge::Other);
        }
        Ok(Edge::Core(side.core_cycle()))
    }

    /// The dispatcher's cycle, and the blocks it placed launched; false when the locality
    /// unit's watch reached its budget.
    fn dispatch(
        &mut self,
        kr: &mut KernelRun<'_>,
        src: &mut dyn Blocks,
        opts: &mut RunOptions<'_, '_>,
    ) -> Result<bool, GpuError> {
        kr.placed.clear();
        let (sms, wpb) = (&self.sms, kr.wpb);
        let room = |s: usize, b: usize| sms[s].room(b, wpb);
        match &mut opts.unit {
            Some(u) => {
                kr.d.cycle_watched(&room, &mut kr.placed, Some(&mut *u.hook))?;
                self.unit_cycles += 1;
                if self.unit_cycles >= u.cycles {
                    self.stopped = true;
                    return Ok(false);
                }
            }
            None => kr.d.cycle(&room, &mut kr.placed)?,
        }
        kr.full = kr.placed.is_empty() && kr.d.places_by_room_alone();
        let placed = std::mem::take(&mut kr.placed);
        for p in &placed {
            if !self.launch(kr, src, p)? {
                break;
            }
        }
        kr.placed = placed;
        Ok(true)
    }

    /// Launch the block of placement `p` on its SM; false when the source has no such block (a
    /// trace excerpt: its blocks are the grid).
    fn launch(
        &mut self,
        kr: &mut KernelRun<'_>,
        src: &mut dyn Blocks,
        p: &Placed,
    ) -> Result<bool, GpuError> {
        let Some(mut b) = src.take(p.block)? else {
            kr.d.end_grid(kr.blocks);
            return Ok(false);
        };
        if kr.kinds.len() < b.warps.len() {
            kr.kinds.resize_with(b.warps.len(), Vec::new);
        }
        for (ks, w) in kr.kinds.iter_mut().zip(&b.warps) {
            ks.clear();
            ks.extend(w.iter().map(|i| kind_of(src.opcode(i.op), i, &kr.h)));
        }
        let kinds = &kr.kinds[..b.warps.len()];
        if self.shift != 0 {
            for (w, ks) in b.warps.iter_mut().zip(kinds) {
                for (i, k) in w.iter_mut().zip(ks) {
                    if matches!(k, Kind::Global { .. }) {
                        i.addrs.shift(self.shift);
                    }
                }
            }
        }
        let rest = src.take_rest(self.shift);
        let ranges = match kr.ranges_of {
            Some(k) => crate::lws::vectors(&self.spec.lws, k, b.id, &self.spec.gpu)?,
            None => Vec::new(),
        };
        let sm = &mut self.sms[p.sm as usize];
        if !sm.launch(b, kinds, rest, &ranges, p.slot) {
            return Err(GpuError::Placement {
                block: p.block,
                sm: p.sm,
            });
        }
        kr.blocks += 1;
        kr.peak = kr.peak.max(sm.resident() as u32);
        Ok(true)
    }

    /// Every SM due in core cycle `now` runs (an SM runs only in a cycle with work of its own,
    /// or when something outside it woke it); the earliest of the SMs' next work after it.
    fn run_sms(
        &mut self,
        kr: &mut KernelRun<'_>,
        opts: &mut RunOptions<'_, '_>,
        now: u64,
    ) -> Result<u64, GpuError> {
        let side = &mut self.side;
        let mut first_wake = u64::MAX;
        for (s, sm) in self.sms.iter_mut().enumerate() {
            if !opts.step_every_cycle && !sm.due(now, side) {
                first_wake = first_wake.min(sm.next_work());
                continue;
            }
            // (An SM issues and takes replies only in its own cycle: progress is seen here,
            // not by summing every SM's counts each cycle.)
            let (issued, replies) = (sm.instructions(), sm.replies());
            sm.cycle(now, side).map_err(GpuError::PrefetchHook)?;
            if let Some(w) = self.pf_watch.filter(|w| w.sm == s) {
                self.pf_cycles += 1;
                if self.pf_cycles >= w.cycles {
                    self.stopped = true;
                }
            }
            if let Some(w) = opts.lws.as_mut().filter(|w| w.sm == s) {
                if let Some((i, o)) = sm.take_lws_cycle(w.scheduler) {
                    (w.hook)(&i, &o).map_err(GpuError::LwsHook)?;
                    self.lws_cycles += 1;
                    if self.lws_cycles >= w.cycles {
                        self.stopped = true;
                    }
                }
            }
            if sm.instructions() != issued || sm.replies() != replies {
                kr.last_work = now;
            }
            first_wake = first_wake.min(sm.next_work());
            for slot in sm.take_finished() {
                kr.d.finished(s as u32, slot);
                kr.full = false;
            }
            if let Some(t) = sm.take_ot() {
                self.ot_chunk.extend(t.map(|t| (s as u32, t)));
            }
        }
        Ok(first_wake)
    }

    /// The address predictor takes the cycle's transactions, in SM order (and a watch keeps
    /// them); false when the watch has kept as many as it wanted.
    fn feed_predictor(&mut self, opts: &mut RunOptions<'_, '_>) -> bool {
        if self.ot_chunk.is_empty() {
            return true;
        }
        if let Some(most) = opts.keep_ot {
            opts.ot_txns
                .extend(self.ot_chunk.iter().map(|(_, t)| t.txn()));
            if opts.ot_txns.len() >= most {
                self.stopped = true;
            }
        }
        self.ot.feed(self.ot_chunk.drain(..));
        !self.stopped
    }

    /// How far the run has got at core cycle `now`.
    fn progress(&self, kr: &KernelRun<'_>, now: u64) -> super::Progress {
        let resident: u64 = self.sms.iter().map(|sm| sm.resident() as u64).sum();
        super::Progress {
            cycle: now,
            kernels_done: self.kernels_done,
            kernels: self.kernels,
            blocks_done: kr.blocks.saturating_sub(resident),
            blocks: kr.d.blocks(),
        }
    }

    /// The run's bound on core cycles, and the stall check.
    fn check_progress(
        &self,
        kr: &KernelRun<'_>,
        opts: &RunOptions<'_, '_>,
        now: u64,
    ) -> Result<(), GpuError> {
        if let Some(limit) = opts.max_cycles.filter(|&m| now >= m) {
            return Err(GpuError::CycleLimit {
                limit,
                kernel: kr.h.name.clone(),
                instructions: self.sms.iter().map(Sm::instructions).sum::<u64>() - kr.before,
            });
        }
        if now.saturating_sub(kr.last_work) > STALL_CYCLES {
            return Err(GpuError::Stalled {
                since: kr.last_work,
                now,
            });
        }
        Ok(())
    }

    /// Idle time: when no SM has work before `first_wake` (and nothing wakes one: no reply is
    /// on its way, no port opens), the dispatcher has nothing to do, and the memory side only
    /// counts until then, every clock jumps to that cycle and each component counts what the
    /// skipped cycles would have (the SMs when they next run). It stays below the cycle of the
    /// stall check and of the cycle bound, so that they fire as stepping would.
    fn jump(&mut self, kr: &KernelRun<'_>, opts: &RunOptions<'_, '_>, now: u64, first_wake: u64) {
        let n = first_wake
            .min(self.side.next_work())
            .min(kr.last_work + STALL_CYCLES + 1)
            .min(opts.max_cycles.unwrap_or(u64::MAX));
        if n > now + 1 {
            self.side.skip_to(n);
            if let Some(p) = opts.progress.filter(|_| (n - 1) >> 14 != now >> 14) {
                p(self.progress(kr, n - 1));
            }
        }
    }
}

/// Every SM's residency and L1 queues and MSHRs within their sizes at core cycle `now`.
fn check_bounds(sms: &[Sm<'_>], now: u64) -> Result<(), GpuError> {
    const WHAT: [&str; 4] = [
        "L1 input queue",
        "L1 miss queue",
        "L1 MSHR table",
        "L1 MSHR entry",
    ];
    for (s, sm) in sms.iter().enumerate() {
        if sm.resident() > sm.max_blocks() {
            return Err(GpuError::Overfull {
                sm: s,
                what: "resident blocks (the kernel's occupancy)",
                len: sm.resident(),
                cap: sm.max_blocks(),
                cycle: now,
            });
        }
        for (what, (len, cap)) in WHAT.iter().zip(sm.fill_levels()) {
            if len > cap {
                return Err(GpuError::Overfull {
                    sm: s,
                    what,
                    len,
                    cap,
                    cycle: now,
                });
            }
        }
    }
    Ok(())
}

/// Invalidate the L1 of every SM without a block (`gpu.flush_l1`), before their cycle at core
/// cycle `now`.
fn flush_empty_l1s(sms: &mut [Sm<'_>], now: u64, side: &mut MemorySide) {
    for sm in sms {
        sm.flush_l1_if_empty(now, side);
    }
}
