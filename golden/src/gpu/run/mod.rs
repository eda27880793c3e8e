//! The GPU on an Accel-Sim trace (the kernels of a `kernelslist.g`, one after another, their
//! blocks streamed from the trace file) or on a built-in or TOML kernel (its blocks generated,
//! [`super::kernel`]): blocks placed by the [`Dispatcher`] under `dispatch.policy` (at most one
//! decision per core cycle, told of every block that finishes), every SM in front of one memory
//! side
//! ([`MemorySide`]: interconnect, L2 partitions, DRAM controllers), stepped across the clock
//! domains. Host-to-device copies are counted, and fill the L2 under `l2.fill_on_copy`
//! (decision MEM-24); they take no time.

mod blocks;
pub mod gpgpusim;
mod gpu;
mod sample;

pub use sample::{Progress, Sample};

use super::kernel::KernelBlocks;
use super::occupancy::Occupancy;
use super::predict::AnyPredictor;
use super::sm::Sm;
use crate::dispatch::{access_ranges, DispatchError, UnitHook};
use crate::mc::stimulus::Request;
use crate::mc::system::{Dist, DramTotals, Hook, McError};
use crate::mem::side::MemorySide;
use crate::mem::slice::SliceStats;
use crate::ot::OtFigures;
use crate::stream::Component;
use crate::workload::accelsim::{read_list, ListEntry, TraceError};
use crate::workload::{KernelDesc, WorkloadError};
use blocks::{Blocks, TraceBlocks};
use gpu::Gpu;
use serde::Serialize;
use spec::{DispatchPolicy, Spec};
use std::path::Path;
use thiserror::Error;

/// Core cycles in which no instruction issued and no reply reached an SM after which a run has
/// stalled. Far beyond the longest wait for one reply (at most 200,000 cycles of ROP and DRAM
/// latency and a few thousand of DRAM timing): while the memory side works, replies arrive.
pub const STALL_CYCLES: u64 = 1_000_000;

/// `run`'s default bound on a run's core cycles ([`RunOptions::max_cycles`]): 0.7 s of
/// simulated time on a 1.4 GHz core, beyond the kernels a cycle-level simulator is run on.
pub const DEFAULT_MAX_CYCLES: u64 = 1_000_000_000;

#[derive(Debug, Error)]
pub enum GpuError {
    #[error(transparent)]
    Trace(#[from] TraceError),
    #[error(
        "{kernel}: a block needs {need} {what}, which does not fit an SM of {key} = {have}; \
        raise it (--set {key}={need})"
    )]
    BlockTooLarge {
        kernel: String,
        /// `warps`, `registers` or `bytes of shared memory`.
        what: &'static str,
        need: u32,
        have: u32,
        key: &'static str,
    },
    #[error(
        "the GPU stalled: no instruction issued and no reply reached an SM from cycle {since} \
        to {now}"
    )]
    Stalled { since: u64, now: u64 },
    #[error(
        "the run reached its bound of {limit} core cycles in kernel {kernel} ({instructions} \
        warp instructions issued so far), before its end: raise the bound (--max-cycles) or run \
        less work"
    )]
    CycleLimit {
        limit: u64,
        kernel: String,
        instructions: u64,
    },
    #[error(transparent)]
    Memory(#[from] McError),
    #[error(transparent)]
    Dispatch(#[from] DispatchError),
    #[error(transparent)]
    Kernel(#[from] Box<WorkloadError>),
    #[error(
        "dispatch.policy = {policy} needs the kernel's access ranges and any block in any \
        order; an Accel-Sim trace runs under rr or bcs (--set dispatch.policy=rr)"
    )]
    TracePolicy { policy: &'static str },
    #[error(
        "gpu.scheduler = {scheduler} reads each warp's access range from the kernel's \
        description (seed 002's address pre-computation), which an Accel-Sim trace or a workload \
        of the library does not carry; run a kernel, or another scheduler (--set \
        gpu.scheduler=gto)"
    )]
    TraceScheduler { scheduler: &'static str },
    /// A co-simulation's hook on a locality unit stopped the run (or the unit is not there).
    #[error("{0}")]
    LwsHook(String),
    #[error(
        "gpu.warp_size = {size}: the GPU runs 32-thread warps (Accel-Sim's lane masks); use \
        --set gpu.warp_size=32"
    )]
    WarpSize { size: u32 },
    #[error("internal: SM {sm}'s {what} holds {len} of {cap} at core cycle {cycle}")]
    Overfull {
        sm: usize,
        what: &'static str,
        len: usize,
        cap: usize,
        cycle: u64,
    },
    #[error("internal: the dispatcher placed block {block} on SM {sm}, which cannot take it")]
    Placement { block: u64, sm: u32 },
    /// A workload of the library could not be made or run (its arguments, its host program,
    /// its kernels' emulation).
    #[error(transparent)]
    Suite(#[from] Box<crate::suite::SuiteError>),
    /// The watch on a prefetch engine stopped the run (a co-simulation mismatch).
    #[error("{0}")]
    PrefetchHook(String),
}

impl GpuError {
    /// A failure of the model itself (a stall, an internal check, the memory system's own
    /// error) rather than of what it was given (a trace, a kernel, a configuration).
    pub fn is_internal(&self) -> bool {
        matches!(
            self,
            GpuError::Stalled { .. }
                | GpuError::Placement { .. }
                | GpuError::Overfull { .. }
                | GpuError::Memory(_)
        ) || matches!(self, GpuError::Suite(e) if e.is_internal())
    }
}

/// One kernel's figures.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct KernelSummary {
    pub name: String,
    pub id: u64,
    pub blocks: u64,
    /// Warp instructions issued, and thread instructions (each warp instruction's active
    /// lanes: GPGPU-Sim's `gpu_sim_insn`).
    pub instructions: u64,
    pub thread_instructions: u64,
    pub cycles: u64,
    /// Warp instructions per core cycle, and thread instructions per core cycle (GPGPU-Sim's
    /// `gpu_ipc`, up to 32 times the first).
    pub ipc: f64,
    pub thread_ipc: f64,
    /// Resident blocks per SM at most, and what bounds them; the most any SM held.
    pub occupancy: Occupancy,
    /// The KB of its L1 when the L1 shares its storage with shared memory (decision GPU-32;
    /// null otherwise: the L1 is `gpu.l1_cache`).
    pub l1_kb: Option<u32>,
    pub peak_blocks_per_sm: u32,
    /// The L1s' (summed) and the L2 slices' counts during this kernel.
    pub l1: SliceStats,
    pub l2: SliceStats,
    /// Bytes the DRAM read and wrote during this kernel (its column commands, launch to end).
    pub dram_read_bytes: u64,
    pub dram_write_bytes: u64,
}

/// The SMs' L1 counters, summed.
fn l1_total(sms: &[Sm<'_>]) -> SliceStats {
    let mut t = SliceStats::default();
    for sm in sms {
        t.add(&sm.l1_stats());
    }
    t
}

/// The schema name and version of `warpsmith run`'s JSON report ([`crate::report`]).
pub const SCHEMA: &str = "warpsmith-run/1";

/// A run's figures.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RunSummary {
    pub kernels: Vec<KernelSummary>,
    /// Host-to-device copies (they take no time; under `l2.fill_on_copy` they fill the L2).
    pub copies: u64,
    pub cycles: u64,
    /// Warp and thread instructions, and each per core cycle (as [`KernelSummary`]'s).
    pub instructions: u64,
    pub thread_instructions: u64,
    pub ipc: f64,
    pub thread_ipc: f64,
    /// The SMs' L1s, summed.
    pub l1: SliceStats,
    /// Global loads, issue to last answer (core cycles).
    pub load_latency: Dist,
    /// Global loads, first answer to last (core cycles): how far a load's accesses diverge.
    pub load_divergence: Dist,
    /// The request and reply networks' counters (packets, flits, stalled input-cycles,
    /// refused offers).
    pub request_net: crate::mem::icnt::IcntStats,
    pub reply_net: crate::mem::icnt::IcntStats,
    pub l2: SliceStats,
    pub dram: DramTotals,
    /// Requests the SMs sent to the memory side, and the replies that came back (to an SM,
    /// or after the last kernel, drained): every request is answered once.
    pub requests: u64,
    pub replies: u64,
    /// The OT predictor (seed 000) snooping the loads' requests to the memory partitions:
    /// its prediction coverage and accuracy over the run.
    pub ot: crate::ot::OtFigures,
    /// The prefetchers (seed 001), summed over SMs (the degree trace is SM 0's), if the GPU
    /// has them.
    pub prefetch: Option<crate::gpu::prefetch::PrefetchStats>,
    /// Per SM, per L2 slice (sub-partition order) and per DRAM channel (with its banks).
    pub sms: Vec<SmFigures>,
    pub l2_slices: Vec<SliceStats>,
    pub dram_channels: Vec<crate::mc::system::ChannelFigures>,
}

/// One SM's figures over the run.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SmFigures {
    pub instructions: u64,
    pub thread_instructions: u64,
    /// Blocks it ran to the end.
    pub blocks: u64,
    pub l1: SliceStats,
    /// Its global loads, issue to last answer (core cycles).
    pub load_latency: Dist,
    /// Requests it sent to the memory side, and replies it took.
    pub requests: u64,
    pub replies: u64,
}

/// What the GPU runs.
#[derive(Debug, Clone, Copy)]
pub enum Workload<'a> {
    /// An Accel-Sim trace folder (or its `kernelslist.g`): its kernels one after another.
    Trace(&'a Path),
    /// A built-in or TOML kernel; `seed` fixes the indices of its irregular loads.
    Kernel { kernel: &'a KernelDesc, seed: u64 },
    /// A workload of the library ([`crate::suite`]), `NAME[:ARGS]`; `seed` fixes its inputs.
    Suite { spec: &'a str, seed: u64 },
}

/// A workload named by one word (`gpu:WORKLOAD` stimulus): a trace folder or list file, a
/// workload of the library (`NAME[:ARGS]`, [`crate::suite`]), or a built-in or TOML kernel.
#[derive(Debug, Clone)]
pub enum Target {
    Trace(std::path::PathBuf),
    Kernel(KernelDesc),
    /// A workload of the library, `NAME[:ARGS]` (its arguments checked when parsed).
    Suite(String),
}

impl Target {
    /// `text`: an existing folder or a file that is not `.toml` is a trace; a built-in
    /// kernel's name or a kernel TOML file a kernel; a name of the workload library, with its
    /// arguments, a workload (`scalarprod`, a built-in kernel's name too, is the workload as
    /// `scalarprod:` or with arguments).
    pub fn parse(text: &str) -> Result<Target, GpuError> {
        let p = Path::new(text);
        if p.is_dir() || (p.is_file() && p.extension().is_none_or(|e| e != "toml")) {
            return Ok(Target::Trace(p.to_path_buf()));
        }
        let kernel = crate::dispatch::kernel(text);
        let name = text.split_once(':').map_or(text, |(n, _)| n);
        if kernel.is_err() && crate::suite::apps::ALL.iter().any(|w| w.name == name) {
            crate::suite::make(text, 1).map_err(Box::new)?;
            return Ok(Target::Suite(text.to_string()));
        }
        Ok(Target::Kernel(kernel?))
    }

    pub fn workload(&self, seed: u64) -> Workload<'_> {
        match self {
            Target::Trace(p) => Workload::Trace(p),
            Target::Kernel(kernel) => Workload::Kernel { kernel, seed },
            Target::Suite(spec) => Workload::Suite { spec, seed },
        }
    }
}

/// How far a watched run moves its data at each new launch, and the window it wraps in: each
/// launch then reaches the DRAM as the first did, rather than hitting in the L2.
pub const RELAUNCH_SHIFT: u64 = 16 << 20;
pub const RELAUNCH_WINDOW: u64 = 1 << 30;

/// Run the trace folder (or list file) `list` on `spec`'s GPU; `progress` sees how far it has
/// got now and then.
pub fn run_trace(
    spec: &Spec,
    list: &Path,
    progress: Option<&dyn Fn(Progress)>,
) -> Result<RunSummary, GpuError> {
    run(spec, Workload::Trace(list), progress)
}

/// Run `w` on `spec`'s GPU, its blocks dispatched under `dispatch.policy`; `progress` sees how
/// far it has got now and then.
pub fn run(
    spec: &Spec,
    w: Workload<'_>,
    progress: Option<&dyn Fn(Progress)>,
) -> Result<RunSummary, GpuError> {
    run_with(
        spec,
        w,
        &mut RunOptions {
            progress,
            ..RunOptions::default()
        },
    )
}

/// A co-simulation's view of one Warped-MC group inside the GPU: the run shows `hook` every
/// cycle of `group` ([`crate::mc::system::MemSystem::probe`]), and the workload runs again and
/// again (a new launch of its
/// kernels each time, its data moved by [`RELAUNCH_SHIFT`]) until the DRAM has run
/// `dram_cycles` cycles, where the run stops.
pub struct Watch<'a, 'h> {
    pub group: usize,
    pub hook: &'a mut Hook<'h>,
    pub dram_cycles: u64,
}

/// A co-simulation's view of the locality unit inside the GPU (`dispatch.policy =
/// locality`): `hook` sees its inputs and outputs every cycle it steps, and the workload runs
/// again and again until it has stepped `cycles` cycles.
pub struct UnitWatch<'a, 'h> {
    pub hook: &'a mut UnitHook<'h>,
    pub cycles: u64,
}

/// A co-simulation's view of one warp scheduler's locality unit (`gpu.scheduler = locality`):
/// `hook` sees its inputs and outputs every cycle it steps, and the kernel runs again and again
/// until it has stepped `cycles` cycles.
pub struct LwsWatch<'a, 'h> {
    pub sm: usize,
    pub scheduler: usize,
    pub hook: &'a mut LwsHook<'h>,
    pub cycles: u64,
}

/// A watch on a locality unit's cycles: its inputs and outputs; an error stops the run.
pub type LwsHook<'h> =
    dyn FnMut(&crate::lws::LwsIn, &crate::lws::LwsOut) -> Result<(), String> + 'h;

/// A co-simulation's view of one SM's prefetch engine (`prefetch.kind` other than none):
/// `probe` sees its inputs and outputs every core cycle (it is installed in the SM,
/// [`Sm::watch_prefetch`]), and the workload runs again and again until it has stepped
/// `cycles` cycles.
pub struct PfWatch<'a, 'h> {
    pub sm: usize,
    pub probe: &'a mut crate::gpu::prefetch::PfProbe<'h>,
    pub cycles: u64,
}

/// How [`run_with`] runs.
#[derive(Default)]
pub struct RunOptions<'a, 'h> {
    /// Shown how far the run has got now and then.
    pub progress: Option<&'a dyn Fn(Progress)>,
    pub watch: Option<Watch<'a, 'h>>,
    pub unit: Option<UnitWatch<'a, 'h>>,
    pub prefetch: Option<PfWatch<'a, 'h>>,
    pub lws: Option<LwsWatch<'a, 'h>>,
    /// Keep the requests the DRAM controllers accept, with their arrival cycles, in `offers`
    /// ([`crate::mc::system::MemSystem::log_offers`]).
    pub log_offers: bool,
    pub offers: Vec<Request>,
    /// Keep the OT predictor's transactions in `ot_txns` (the GPU's stream: a launch per
    /// kernel, a query per global load, an observation per line it sends to the memory
    /// partitions), stopping the run once this many are kept.
    pub keep_ot: Option<usize>,
    pub ot_txns: Vec<crate::ot::OtTxn>,
    /// Check every SM's L1 queues and MSHRs against their sizes every core cycle (property
    /// tests): one over its size is [`GpuError::Overfull`].
    pub check_bounds: bool,
    /// A folder for packed copies of the traces run ([`crate::workload::pack`]): a trace
    /// read whole is packed there, and read from its copy the next time.
    pub trace_cache: Option<std::path::PathBuf>,
    /// The core cycle at which a run that has not ended stops with
    /// [`GpuError::CycleLimit`] (`None`: no bound; `run` gives [`DEFAULT_MAX_CYCLES`]).
    pub max_cycles: Option<u64>,
    /// What the run notes for the user on the way (a bad packed copy deleted, its text read).
    pub notes: Vec<String>,
    /// Step every clock edge and run every SM in every core cycle, rather than letting SMs
    /// sleep until their next work and jumping over idle time (the figures are the same; tests
    /// compare the two).
    pub step_every_cycle: bool,
    /// Start every kernel with every L1 and L2 line invalidated, dirty ones dropped, as Nsight
    /// Compute's default `--cache-control all` flushes the caches before each kernel it
    /// profiles: the condition hardware counter tables taken with it were measured in
    /// (decision GPU-33).
    pub cold_caches: bool,
    /// Take a [`Sample`] into `samples` at the first core cycle at or after each multiple of
    /// this many core cycles, and one at the end (statistics over time; the figures are the
    /// same with or without).
    pub stats_interval: Option<u64>,
    pub samples: Vec<Sample>,
}

impl RunOptions<'_, '_> {
    /// Idle time is jumped over: unless asked not to, and unless a watch sees every cycle.
    fn skips_idle_time(&self) -> bool {
        !self.step_every_cycle
            && self.watch.is_none()
            && self.unit.is_none()
            && self.prefetch.is_none()
            && self.lws.is_none()
    }

    /// The workload runs once (no co-simulation relaunches it until a budget), and what it
    /// wrote drains at the end.
    fn once(&self) -> bool {
        self.watch.is_none()
            && self.unit.is_none()
            && self.prefetch.is_none()
            && self.lws.is_none()
            && self.keep_ot.is_none()
    }
}

/// [`run`] with watches, the controllers' requests kept, and the other [`RunOptions`].
pub fn run_with(
    spec: &Spec,
    w: Workload<'_>,
    opts: &mut RunOptions<'_, '_>,
) -> Result<RunSummary, GpuError> {
    if spec.gpu.warp_size != 32 {
        return Err(GpuError::WarpSize {
            size: spec.gpu.warp_size,
        });
    }
    let mut gpu = Gpu::new(spec, opts)?;
    let (skips, once) = (gpu.skips, gpu.once);
    let mut kernels = Vec::new();
    let mut copies = 0;
    // The launches; the controllers' requests are kept however they end (a co-simulation
    // that fails in the hook makes its reproducer of them).
    let launched = launch_all(&mut gpu, w, opts, &mut kernels, &mut copies);
    if opts.log_offers {
        opts.offers = gpu.side.dram_mut().take_offers();
    }
    launched?;
    if opts.stats_interval.is_some() {
        let now = gpu.side.core_cycle();
        if now > gpu.sampled.cycle() {
            let (last, _) = gpu.sample(now, &gpu.sampled);
            opts.samples.push(last);
        }
    }
    let ot = gpu.ot.figures();
    let Gpu { mut side, sms, .. } = gpu;
    // Written data still in the memory side drains (its acknowledgements are dropped); a
    // watched run ends at its budget.
    let drained = match once {
        true => drain(&mut side, opts, skips, &kernels)?,
        false => 0,
    };
    Ok(summary(&side, &sms, kernels, copies, drained, ot))
}

impl<'s, 'p> Gpu<'s, 'p> {
    /// The GPU of `spec`, with the watches of `opts` (a probe on a prefetcher is moved into its
    /// SM).
    fn new(spec: &'s Spec, opts: &mut RunOptions<'p, '_>) -> Result<Gpu<'s, 'p>, GpuError> {
        let n = spec.gpu.sms as usize;
        let mut gpu = Gpu {
            spec,
            side: MemorySide::new(spec, n),
            sms: (0..n as u32).map(|i| Sm::new(spec, i)).collect(),
            skips: opts.skips_idle_time(),
            once: opts.once(),
            pf_watch: None,
            stopped: false,
            shift: 0,
            unit_cycles: 0,
            pf_cycles: 0,
            lws_cycles: 0,
            kernels_done: 0,
            kernels: None,
            next_sample: opts.stats_interval.unwrap_or(u64::MAX),
            sampled: Default::default(),
            unit: None,
            ot: AnyPredictor::of(spec),
            ot_chunk: Vec::new(),
        };
        for sm in &mut gpu.sms {
            sm.observe_ot(&spec.ot, spec.gpu.line_bytes);
        }
        if let Some(w) = opts.prefetch.take() {
            let watched = gpu
                .sms
                .get_mut(w.sm)
                .is_some_and(|sm| sm.watch_prefetch(w.probe));
            if !watched {
                return Err(GpuError::PrefetchHook(format!(
                    "SM {} has no prefetch engine to watch (prefetch.kind = stridepc or mt-hwp)",
                    w.sm
                )));
            }
            gpu.pf_watch = Some(gpu::PfWatched {
                sm: w.sm,
                cycles: w.cycles,
            });
        }
        if let Some(w) = &opts.lws {
            let watched = w.scheduler < spec.gpu.schedulers as usize
                && gpu.sms.get(w.sm).is_some_and(Sm::reads_ranges);
            if !watched {
                return Err(GpuError::LwsHook(format!(
                    "SM {} has no warp scheduler {} with a locality unit to watch \
                        (gpu.scheduler = locality)",
                    w.sm, w.scheduler
                )));
            }
        }
        if opts.log_offers {
            gpu.side.dram_mut().log_offers();
        }
        gpu.side
            .dram_mut()
            .watch_group(opts.watch.as_ref().map(|w| w.group));
        Ok(gpu)
    }
}

/// The workload's kernels run, one after another, into `kernels` (a trace's host-to-device
/// copies counted in `copies`): once, or again and again until a watch's budget.
fn launch_all(
    gpu: &mut Gpu<'_, '_>,
    w: Workload<'_>,
    opts: &mut RunOptions<'_, '_>,
    kernels: &mut Vec<KernelSummary>,
    copies: &mut u64,
) -> Result<(), GpuError> {
    let spec = gpu.spec;
    while !gpu.stopped {
        match w {
            Workload::Trace(_) | Workload::Suite { .. } if gpu.sms.iter().any(Sm::reads_ranges) => {
                return Err(GpuError::TraceScheduler {
                    scheduler: spec.gpu.scheduler.name(),
                });
            }
            Workload::Trace(list) => {
                let policy = spec.dispatch.policy;
                if !matches!(policy, DispatchPolicy::Rr | DispatchPolicy::Bcs) {
                    return Err(GpuError::TracePolicy {
                        policy: policy.name(),
                    });
                }
                trace_kernels(gpu, list, opts, kernels, copies)?;
            }
            Workload::Suite { spec: text, seed } => {
                let policy = spec.dispatch.policy;
                if !matches!(policy, DispatchPolicy::Rr | DispatchPolicy::Bcs) {
                    return Err(GpuError::TracePolicy {
                        policy: policy.name(),
                    });
                }
                suite_kernels(gpu, text, seed, opts, kernels, copies)?;
            }
            Workload::Kernel { kernel, seed } => {
                gpu.kernels = Some(1);
                let mut src = KernelBlocks::new(kernel, &spec.gpu, seed).map_err(Box::new)?;
                let rects = if spec.dispatch.policy == DispatchPolicy::Locality {
                    access_ranges(kernel, spec.gpu.line_bytes)?
                } else {
                    Vec::new()
                };
                kernels.push(gpu.kernel(&mut src, kernel, &rects, opts)?);
            }
        }
        // Once, unless a watch runs the workload until its cycle budget.
        gpu.stopped |= gpu.once;
        gpu.shift = (gpu.shift + RELAUNCH_SHIFT) % RELAUNCH_WINDOW;
    }
    Ok(())
}

/// The launches of workload `text` (`NAME[:ARGS]`), one after another, each emulated as the
/// GPU asks for its warps' instructions; then the application's results verified.
fn suite_kernels(
    gpu: &mut Gpu<'_, '_>,
    text: &str,
    seed: u64,
    opts: &mut RunOptions<'_, '_>,
    kernels: &mut Vec<KernelSummary>,
    copies: &mut u64,
) -> Result<(), GpuError> {
    use crate::suite::{self, SuiteError};
    use std::{cell::RefCell, rc::Rc};
    let (w, mut app) = suite::make(text, seed).map_err(Box::new)?;
    let host = |message: String| {
        GpuError::Suite(Box::new(SuiteError::Host {
            workload: w.name.into(),
            message,
        }))
    };
    let mem = Rc::new(RefCell::new(suite::mem::DeviceMemory::default()));
    let mut id = 0;
    loop {
        let next = app.next(&mut mem.borrow_mut()).map_err(host)?;
        let Some(l) = next else { break };
        id += 1;
        for (addr, bytes) in mem.borrow_mut().take_copies() {
            *copies += 1;
            gpu.side.host_copy(addr + gpu.shift, bytes);
        }
        let shared = suite::start(&l, id, &mem).map_err(host)?;
        let mut src = suite::launch::LaunchBlocks::new(Rc::clone(&shared));
        let k = gpu.kernel(&mut src, &shell(&shared.header), &[], opts)?;
        if let Some(e) = shared.error.borrow_mut().take() {
            return Err(GpuError::Suite(Box::new(e.into())));
        }
        kernels.push(k);
        if gpu.stopped {
            return Ok(());
        }
    }
    // (A watched run's later launches move their addresses, not the data: the results are
    // checked on the first.)
    if gpu.shift == 0 {
        app.verify(&mem.borrow())
            .map_err(|m| host(format!("wrong result: {m}")))?;
    }
    Ok(())
}

/// What the dispatcher reads of a trace's or a workload's kernel: its name and grid (no access
/// rectangles: no locality).
fn shell(h: &crate::workload::accelsim::KernelHeader) -> KernelDesc {
    KernelDesc {
        name: h.name.clone(),
        grid: h.grid,
        block: h.block,
        loop_trips: 1,
        compute: 0,
        arrays: Vec::new(),
        loads: Vec::new(),
    }
}

/// The kernels of the trace list `list`, one after another.
fn trace_kernels(
    gpu: &mut Gpu<'_, '_>,
    list: &Path,
    opts: &mut RunOptions<'_, '_>,
    kernels: &mut Vec<KernelSummary>,
    copies: &mut u64,
) -> Result<(), GpuError> {
    let list = read_list(list)?;
    gpu.kernels = Some(
        list.iter()
            .filter(|e| matches!(e, ListEntry::Kernel(_)))
            .count(),
    );
    for entry in list {
        let path = match entry {
            ListEntry::Memcpy { addr, bytes } => {
                *copies += 1;
                gpu.side.host_copy(addr + gpu.shift, bytes);
                continue;
            }
            ListEntry::Kernel(path) => path,
        };
        let mut src = TraceBlocks::open(&path, opts.trace_cache.as_deref())?;
        let shell = shell(src.header());
        let k = gpu.kernel(&mut src, &shell, &[], opts);
        opts.notes.append(&mut src.notes);
        kernels.push(k?);
        if gpu.stopped {
            break;
        }
    }
    Ok(())
}

/// The written data still in the memory side after the last kernel drains; the replies it
/// took.
fn drain(
    side: &mut MemorySide,
    opts: &RunOptions<'_, '_>,
    skips: bool,
    kernels: &[KernelSummary],
) -> Result<u64, GpuError> {
    let mut drained = 0u64;
    while side.inside() > 0 {
        if let Some(limit) = opts.max_cycles.filter(|&m| side.core_cycle() >= m) {
            return Err(GpuError::CycleLimit {
                limit,
                kernel: "(its written data draining after the last kernel)".into(),
                instructions: kernels.iter().map(|k| k.instructions).sum(),
            });
        }
        if skips {
            let n = side.next_work().min(opts.max_cycles.unwrap_or(u64::MAX));
            if n > side.core_cycle() + 1 {
                side.skip_to(n);
            }
        }
        side.cycle()?;
        for port in 0..side.ports() {
            while side.pop_reply(port).is_some() {
                drained += 1;
            }
        }
    }
    Ok(drained)
}

/// The run's figures, from its kernels', its SMs' and the memory side's.
fn summary(
    side: &MemorySide,
    sms: &[Sm<'_>],
    kernels: Vec<KernelSummary>,
    copies: u64,
    drained: u64,
    ot: OtFigures,
) -> RunSummary {
    let cycles = side.core_cycle();
    let instructions: u64 = kernels.iter().map(|k| k.instructions).sum();
    let thread_instructions: u64 = kernels.iter().map(|k| k.thread_instructions).sum();
    let mut per_sm = Vec::with_capacity(sms.len());
    let mut l1 = SliceStats::default();
    let mut latency = crate::mc::open_loop::Hist::default();
    let mut divergence = crate::mc::open_loop::Hist::default();
    let (mut requests, mut replies) = (0, drained);
    let mut prefetch: Option<crate::gpu::prefetch::PrefetchStats> = None;
    for sm in sms {
        let s = sm.stats();
        if let Some(p) = &s.prefetch {
            match &mut prefetch {
                Some(t) => t.add(p),
                None => prefetch = Some(p.clone()),
            }
        }
        l1.add(&s.l1);
        per_sm.push(SmFigures {
            instructions: s.instructions,
            thread_instructions: s.thread_instructions,
            blocks: s.blocks,
            l1: s.l1.clone(),
            load_latency: s.load_latency.dist(),
            requests: s.sent,
            replies: s.replies,
        });
        latency.merge(&s.load_latency);
        divergence.merge(&s.divergence);
        requests += s.sent;
        replies += s.replies;
    }
    let (p, request_net, reply_net) = side.stats();
    RunSummary {
        kernels,
        copies,
        cycles,
        instructions,
        thread_instructions,
        ipc: instructions as f64 / cycles.max(1) as f64,
        thread_ipc: thread_instructions as f64 / cycles.max(1) as f64,
        l1,
        load_latency: latency.dist(),
        load_divergence: divergence.dist(),
        request_net,
        reply_net,
        l2: p.slices,
        dram: side.dram().dram_totals(),
        requests,
        replies,
        ot,
        prefetch,
        sms: per_sm,
        l2_slices: side.partitions().slice_stats(),
        dram_channels: side.dram().channel_figures(),
    }
}

#[cfg(test)]
mod tests;
