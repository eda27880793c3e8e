//! The GPU on an Accel-Sim trace (the kernels of a `kernelslist.g`, one after another, their
//! blocks streamed from the trace file) or on a built-in or TOML kernel (its blocks generated,
//! [`super::kernel`]): blocks placed by the [`Dispatcher`] under `dispatch.policy` (at most one
//! decision per core cycle, told of every block that finishes), every SM in front of one memory
//! side
//! ([`MemorySide`]: interconnect, L2 partitions, DRAM controllers), stepped across the clock
//! domains. Host-to-device copies of the list are counted, not simulated.

use super::kernel::{KernelBlocks, KernelWarp};
use super::occupancy::{occupancy, Occupancy};
use super::predict::AnyPredictor;
use super::sm::Sm;
use crate::stream::Component;
use crate::workload::opcode::{kind_of, Kind};
use crate::dispatch::{access_ranges, DispatchError, Dispatcher, Rect, UnitHook};
use crate::mc::stimulus::Request;
use crate::mc::system::{Dist, DramTotals, Hook, McError};
use crate::mem::partition::CORE;
use crate::mem::side::MemorySide;
use crate::mem::slice::SliceStats;
use crate::workload::accelsim::{
    read_list, KernelHeader, KernelReader, ListEntry, TraceBlock, TraceError,
};
use crate::workload::pack::{self, PackReader, PackWriter};
use crate::workload::{KernelDesc, WorkloadError};
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
    #[error("{kernel}: a block needs {need} {what}, which does not fit an SM of {key} = {have}; raise it (--set {key}={need})")]
    BlockTooLarge {
        kernel: String,
        /// `warps`, `registers` or `bytes of shared memory`.
        what: &'static str,
        need: u32,
        have: u32,
        key: &'static str,
    },
    #[error("the GPU stalled: no instruction issued and no reply reached an SM from cycle {since} to {now}")]
    Stalled { since: u64, now: u64 },
    #[error("the run reached its bound of {limit} core cycles in kernel {kernel} ({instructions} warp instructions issued so far), before its end: raise the bound (--max-cycles) or run less work")]
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
    #[error("dispatch.policy = {policy} needs the kernel's access ranges and any block in any order; an Accel-Sim trace runs under rr or bcs (--set dispatch.policy=rr)")]
    TracePolicy { policy: &'static str },
    #[error("gpu.warp_size = {size}: the GPU runs 32-thread warps (Accel-Sim's lane masks); use --set gpu.warp_size=32")]
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
        )
    }
}

/// One kernel's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KernelSummary {
    pub name: String,
    pub id: u64,
    pub blocks: u64,
    pub instructions: u64,
    pub cycles: u64,
    pub ipc: f64,
    /// Resident blocks per SM at most, and what bounds them; the most any SM held.
    pub occupancy: Occupancy,
    pub peak_blocks_per_sm: u32,
    /// The L1s' (summed) and the L2 slices' counts during this kernel.
    pub l1: SliceStats,
    pub l2: SliceStats,
}

/// The SMs' L1 counters, summed.
fn l1_total(sms: &[Sm<'_>]) -> SliceStats {
    let mut t = SliceStats::default();
    for sm in sms {
        t.add(&sm.l1_stats());
    }
    t
}

/// A run's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunSummary {
    pub kernels: Vec<KernelSummary>,
    /// Host-to-device copies of the list (not simulated).
    pub copies: u64,
    pub cycles: u64,
    pub instructions: u64,
    pub ipc: f64,
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
}

/// What the GPU runs.
#[derive(Debug, Clone, Copy)]
pub enum Workload<'a> {
    /// An Accel-Sim trace folder (or its `kernelslist.g`): its kernels one after another.
    Trace(&'a Path),
    /// A built-in or TOML kernel; `seed` fixes the indices of its irregular loads.
    Kernel { kernel: &'a KernelDesc, seed: u64 },
}

/// A workload named by one word (`gpu:WORKLOAD` stimulus): a trace folder or list file, or a
/// built-in or TOML kernel.
#[derive(Debug, Clone)]
pub enum Target {
    Trace(std::path::PathBuf),
    Kernel(KernelDesc),
}

impl Target {
    /// `text`: an existing folder or a file that is not `.toml` is a trace; anything else a
    /// kernel (a built-in name or a kernel TOML file).
    pub fn parse(text: &str) -> Result<Target, GpuError> {
        let p = Path::new(text);
        if p.is_dir() || (p.is_file() && p.extension().is_none_or(|e| e != "toml")) {
            return Ok(Target::Trace(p.to_path_buf()));
        }
        Ok(Target::Kernel(crate::dispatch::kernel(text)?))
    }

    pub fn workload(&self, seed: u64) -> Workload<'_> {
        match self {
            Target::Trace(p) => Workload::Trace(p),
            Target::Kernel(kernel) => Workload::Kernel { kernel, seed },
        }
    }
}

/// Where the dispatcher's blocks come from.
trait Blocks {
    fn header(&self) -> &KernelHeader;
    fn opcode(&self, op: u16) -> &str;
    /// Block `linear` of the grid; `None` if the source ended before it.
    fn take(&mut self, linear: u64) -> Result<Option<TraceBlock>, GpuError>;
    /// Per warp of the block last taken, the generator of its later instructions, their
    /// loads moved by `shift` (a generated kernel's; none when the block holds them all).
    fn take_rest(&mut self, _shift: u64) -> Vec<KernelWarp> {
        Vec::new()
    }
}

/// A trace's blocks, streamed from its file in file order: the queue-based policies the GPU
/// runs traces under hand out the oldest waiting block, and file order is the age. With a
/// cache folder, from the file's packed copy when one is there ([`crate::workload::pack`]),
/// else parsed from the text and packed on the way. A copy found bad at any record is deleted
/// and the blocks go on from the text, from the same block: those handed out before it passed
/// their checksums and the text's rules, so they are the text's, and the run's figures are
/// those of a run that never had the copy.
struct TraceBlocks {
    /// The header, and the blocks when there is no packed copy.
    reader: KernelReader<std::io::BufReader<std::fs::File>>,
    packed: Option<PackReader>,
    /// The copy being written (dropped, with its temporary file, if writing it fails or the
    /// run does not read the text to its end).
    packing: Option<PackWriter>,
    /// Where the copy is kept and the key it carries (with a cache folder).
    copy: Option<(std::path::PathBuf, Vec<u8>)>,
    /// Blocks handed out, and blocks read from the text.
    taken: u64,
    parsed: u64,
    /// What the user is told (a bad copy deleted).
    notes: Vec<String>,
}

impl TraceBlocks {
    fn open(path: &std::path::Path, cache: Option<&std::path::Path>) -> Result<Self, GpuError> {
        let reader = KernelReader::open(path)?;
        let copy = cache.and_then(|dir| pack::copy_of(dir, path, reader.file()));
        let packed = copy
            .as_ref()
            .and_then(|(p, key)| PackReader::open(p, key, reader.header()));
        // (A folder that cannot be written to only costs the copy: the run reads the text.)
        let packing = match (&packed, &copy) {
            (None, Some((p, key))) => PackWriter::create(p, key).ok(),
            _ => None,
        };
        Ok(TraceBlocks {
            reader,
            packed,
            packing,
            copy,
            taken: 0,
            parsed: 0,
            notes: Vec::new(),
        })
    }

    /// The text's next block, packed on the way. After the grid's last block the text must
    /// end (a further block would be a second of an id or outside the grid, which the rules
    /// refuse); the copy is kept once the text has been read to its end.
    fn text_block(&mut self) -> Result<Option<TraceBlock>, GpuError> {
        let known = self.reader.opcodes().len();
        let block = self.reader.next_block()?;
        let mut ended = block.is_none();
        if let Some(b) = &block {
            self.parsed += 1;
            if let Some(w) = &mut self.packing {
                if w.block(b, &self.reader.opcodes()[known..]).is_err() {
                    self.packing = None;
                }
            }
            if self.parsed == self.reader.header().blocks() {
                // (`Some` cannot come: the grid's ids are all taken.)
                let _ = self.reader.next_block()?;
                ended = true;
            }
        }
        if ended {
            if let Some(w) = self.packing.take() {
                let _ = w.finish();
            }
        }
        Ok(block)
    }

    /// The copy was found bad: delete it and read the text from its start, packing it again,
    /// up to the blocks already handed out.
    fn fall_back_to_text(&mut self, why: TraceError) -> Result<(), GpuError> {
        if let Some(p) = self.packed.take() {
            self.notes.push(format!(
                "the packed copy {} of {} is bad ({}): it is deleted and the trace's text is \
                 read instead",
                why.file.display(),
                self.reader.path().display(),
                why.message
            ));
            p.discard();
        }
        self.packing = self
            .copy
            .as_ref()
            .and_then(|(p, key)| PackWriter::create(p, key).ok());
        while self.parsed < self.taken {
            if self.text_block()?.is_none() {
                break;
            }
        }
        Ok(())
    }
}

impl Blocks for TraceBlocks {
    fn header(&self) -> &KernelHeader {
        self.reader.header()
    }
    fn opcode(&self, op: u16) -> &str {
        match &self.packed {
            Some(p) => p.opcode(op),
            None => self.reader.opcode(op),
        }
    }
    fn take(&mut self, _linear: u64) -> Result<Option<TraceBlock>, GpuError> {
        let block = match self.packed.as_mut().map(PackReader::next_block) {
            Some(Ok(b)) => b,
            Some(Err(why)) => {
                self.fall_back_to_text(why)?;
                self.text_block()?
            }
            None => self.text_block()?,
        };
        if block.is_some() {
            self.taken += 1;
            // After the grid's last block the copy must end too, as the text must: a bad end
            // record is found (and the copy rebuilt) now, not never.
            if self.taken == self.reader.header().blocks() {
                if let Some(Err(why)) = self.packed.as_mut().map(PackReader::next_block) {
                    self.fall_back_to_text(why)?;
                }
            }
        }
        Ok(block)
    }
}

impl Blocks for KernelBlocks {
    fn header(&self) -> &KernelHeader {
        KernelBlocks::header(self)
    }
    fn opcode(&self, op: u16) -> &str {
        super::kernel::OPCODES
            .get(usize::from(op))
            .copied()
            .unwrap_or("?")
    }
    fn take(&mut self, linear: u64) -> Result<Option<TraceBlock>, GpuError> {
        Ok(Some(KernelBlocks::take(self, linear)))
    }
    fn take_rest(&mut self, shift: u64) -> Vec<KernelWarp> {
        KernelBlocks::take_rest(self, shift)
    }
}

/// The GPU: its SMs in front of one memory side; `'p`: the life of a probe on a prefetcher.
struct Gpu<'s, 'p> {
    spec: &'s Spec,
    side: MemorySide,
    sms: Vec<Sm<'p>>,
    /// Idle time is jumped over ([`RunOptions::skips_idle_time`]).
    skips: bool,
    /// The SM whose prefetcher a probe watches, and the cycles it is to step ([`PfWatch`]).
    pf_watch: Option<(usize, u64)>,
    /// A watched run reached its cycle budget.
    stopped: bool,
    /// Added to every global address (a watched run's later launches, see [`Watch`]).
    shift: u64,
    /// Cycles the locality unit stepped (a [`UnitWatch`]).
    unit_cycles: u64,
    /// Core cycles a watched prefetch engine stepped (a [`PfWatch`]).
    pf_cycles: u64,
    /// The locality policy's decision unit: one for the whole run, kernel after kernel.
    unit: Option<crate::dispatch::DispatchUnit>,
    /// The address predictor in place (the OT), fed the SMs' transactions every cycle.
    ot: AnyPredictor,
    /// The cycle's transactions (a launch, the SMs' queries and observations, in SM order).
    ot_chunk: Vec<crate::ot::GpuTxn>,
}

/// How far a watched run moves its data at each new launch, and the window it wraps in: each
/// launch then reaches the DRAM as the first did, rather than hitting in the L2.
pub const RELAUNCH_SHIFT: u64 = 16 << 20;
pub const RELAUNCH_WINDOW: u64 = 1 << 30;

/// Run the trace folder (or list file) `list` on `spec`'s GPU; `progress` sees the core cycle
/// now and then.
pub fn run_trace(
    spec: &Spec,
    list: &Path,
    progress: Option<&dyn Fn(u64)>,
) -> Result<RunSummary, GpuError> {
    run(spec, Workload::Trace(list), progress)
}

/// Run `w` on `spec`'s GPU, its blocks dispatched under `dispatch.policy`; `progress` sees the
/// core cycle now and then.
pub fn run(
    spec: &Spec,
    w: Workload<'_>,
    progress: Option<&dyn Fn(u64)>,
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

/// A co-simulation's view of one Warped-MC group inside the GPU: the memory side calls `hook`
/// after every cycle of `group`, and the workload runs again and again (a new launch of its
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
    pub progress: Option<&'a dyn Fn(u64)>,
    pub watch: Option<Watch<'a, 'h>>,
    pub unit: Option<UnitWatch<'a, 'h>>,
    pub prefetch: Option<PfWatch<'a, 'h>>,
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
}

impl RunOptions<'_, '_> {
    /// Idle time is jumped over: unless asked not to, and unless a watch sees every cycle.
    fn skips_idle_time(&self) -> bool {
        !self.step_every_cycle
            && self.watch.is_none()
            && self.unit.is_none()
            && self.prefetch.is_none()
    }

    /// The workload runs once (no co-simulation relaunches it until a budget), and what it
    /// wrote drains at the end.
    fn once(&self) -> bool {
        self.watch.is_none()
            && self.unit.is_none()
            && self.prefetch.is_none()
            && self.keep_ot.is_none()
    }
}

/// [`run`] with a watched Warped-MC group and the controllers' requests kept.
pub fn run_with(
    spec: &Spec,
    w: Workload<'_>,
    opts: &mut RunOptions<'_, '_>,
) -> Result<RunSummary, GpuError> {
    let n = spec.gpu.sms as usize;
    if spec.gpu.warp_size != 32 {
        return Err(GpuError::WarpSize {
            size: spec.gpu.warp_size,
        });
    }
    let (skips, once) = (opts.skips_idle_time(), opts.once());
    let mut gpu = Gpu {
        spec,
        side: MemorySide::new(spec, n),
        sms: (0..n as u32).map(|i| Sm::new(spec, i)).collect(),
        skips,
        pf_watch: None,
        stopped: false,
        shift: 0,
        unit_cycles: 0,
        pf_cycles: 0,
        unit: None,
        ot: AnyPredictor::of(spec),
        ot_chunk: Vec::new(),
    };
    for sm in &mut gpu.sms {
        sm.observe_ot(&spec.ot, spec.gpu.line_bytes);
    }
    if let Some(w) = opts.prefetch.take() {
        let watched = gpu.sms.get_mut(w.sm).is_some_and(|sm| sm.watch_prefetch(w.probe));
        if !watched {
            return Err(GpuError::PrefetchHook(format!(
                "SM {} has no prefetch engine to watch (prefetch.kind = stridepc or mt-hwp)",
                w.sm
            )));
        }
        gpu.pf_watch = Some((w.sm, w.cycles));
    }
    if opts.log_offers {
        gpu.side.dram_mut().log_offers();
    }
    let mut kernels = Vec::new();
    let mut copies = 0;
    // The launches; the controllers' requests are kept however they end (a co-simulation
    // that fails in the hook makes its reproducer of them).
    let launched = (|| -> Result<(), GpuError> {
        while !gpu.stopped {
            match w {
                Workload::Trace(list) => {
                    let policy = spec.dispatch.policy;
                    if !matches!(policy, DispatchPolicy::Rr | DispatchPolicy::Bcs) {
                        return Err(GpuError::TracePolicy {
                            policy: policy.name(),
                        });
                    }
                    for entry in read_list(list)? {
                        let path = match entry {
                            ListEntry::Memcpy { .. } => {
                                copies += 1;
                                continue;
                            }
                            ListEntry::Kernel(path) => path,
                        };
                        let mut src = TraceBlocks::open(&path, opts.trace_cache.as_deref())?;
                        let h = src.header();
                        // The dispatcher reads the grid only (no access rectangles: no locality).
                        let shell = KernelDesc {
                            name: h.name.clone(),
                            grid: h.grid,
                            block: h.block,
                            loop_trips: 1,
                            compute: 0,
                            arrays: Vec::new(),
                            loads: Vec::new(),
                        };
                        let k = gpu.kernel(&mut src, &shell, &[], opts);
                        opts.notes.append(&mut src.notes);
                        kernels.push(k?);
                        if gpu.stopped {
                            break;
                        }
                    }
                }
                Workload::Kernel { kernel, seed } => {
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
            gpu.stopped |= once;
            gpu.shift = (gpu.shift + RELAUNCH_SHIFT) % RELAUNCH_WINDOW;
        }
        Ok(())
    })();
    if opts.log_offers {
        opts.offers = gpu.side.dram_mut().take_offers();
    }
    launched?;
    let ot_figures = gpu.ot.figures();
    let Gpu { mut side, sms, .. } = gpu;
    // Written data still in the memory side drains (its acknowledgements are dropped); a
    // watched run ends at its budget.
    let mut drained = 0u64;
    while side.inside() > 0 && once {
        if let Some(limit) = opts.max_cycles.filter(|&m| side.core_cycle() >= m) {
            return Err(GpuError::CycleLimit {
                limit,
                kernel: "(its written data draining after the last kernel)".into(),
                instructions: kernels.iter().map(|k| k.instructions).sum(),
            });
        }
        if skips {
            let n = side.quiet_until().min(opts.max_cycles.unwrap_or(u64::MAX));
            if n > side.core_cycle() + 1 {
                side.skip_to(n);
            }
        }
        side.cycle(None)?;
        for port in 0..n {
            while side.pop_reply(port).is_some() {
                drained += 1;
            }
        }
    }
    let cycles = side.core_cycle();
    let instructions: u64 = kernels.iter().map(|k| k.instructions).sum();
    let mut l1 = SliceStats::default();
    let mut latency = crate::mc::open_loop::Hist::default();
    let mut divergence = crate::mc::open_loop::Hist::default();
    let (mut requests, mut replies) = (0, drained);
    let mut prefetch: Option<crate::gpu::prefetch::PrefetchStats> = None;
    for sm in &sms {
        let s = sm.stats();
        if let Some(p) = &s.prefetch {
            match &mut prefetch {
                Some(t) => t.add(p),
                None => prefetch = Some(p.clone()),
            }
        }
        l1.add(&s.l1);
        latency.merge(&s.load_latency);
        divergence.merge(&s.divergence);
        requests += s.sent;
        replies += s.replies;
    }
    let (p, request_net, reply_net) = side.stats();
    Ok(RunSummary {
        kernels,
        copies,
        cycles,
        instructions,
        ipc: instructions as f64 / cycles.max(1) as f64,
        l1,
        load_latency: latency.dist(),
        load_divergence: divergence.dist(),
        request_net,
        reply_net,
        l2: p.slices,
        dram: side.dram().dram_totals(),
        requests,
        replies,
        ot: ot_figures,
        prefetch,
    })
}

impl Gpu<'_, '_> {
    /// Run one kernel to its end: every block of `k` dispatched (the dispatcher told of every
    /// block that finishes), every SM idle again.
    fn kernel(
        &mut self,
        src: &mut dyn Blocks,
        k: &KernelDesc,
        rects: &[Vec<Option<Rect>>],
        opts: &mut RunOptions<'_, '_>,
    ) -> Result<KernelSummary, GpuError> {
        let spec = self.spec;
        let h = src.header().clone();
        let occupancy = occupancy(&spec.gpu, &h)?;
        let mut d = Dispatcher::with_unit(
            k,
            rects,
            &spec.dispatch,
            spec.dispatch.policy,
            spec.gpu.line_bytes,
            self.unit.take(),
        )?;
        let wpb = h.warps() as usize;
        for sm in self.sms.iter_mut() {
            sm.launch_kernel(occupancy.blocks);
        }
        self.ot_chunk
            .push(crate::ot::GpuTxn::Launch(crate::ot::OtTxn::Launch {
                grid: h.grid.map(u64::from).to_vec(),
                block: h.block.map(u64::from).to_vec(),
            }));
        let sms = &mut self.sms;
        let side = &mut self.side;
        let before: u64 = sms.iter().map(Sm::instructions).sum();
        let (l1_before, l2_before) = (l1_total(sms), side.stats().0.slices);
        let start = side.core_cycle();
        let mut blocks = 0;
        let mut last_work = start;
        let mut placed = Vec::new();
        let mut kinds: Vec<Vec<Kind>> = Vec::new();
        // A queue policy's last cycle placed nothing and no block has finished since: it would
        // place nothing now either ([`Dispatcher::places_by_room_alone`]; the scan of every
        // SM's room each cycle was 1.5 % of a streaming run's host cache misses).
        let mut full = false;
        let mut peak = 0;
        let skips = self.skips;
        loop {
            let hook = opts.watch.as_mut().map(|w| (w.group, &mut *w.hook));
            let mask = side.cycle(hook)?;
            if let Some(w) = &opts.watch {
                if side.dram().now() >= w.dram_cycles {
                    self.stopped = true;
                    break;
                }
            }
            if mask & CORE == 0 {
                continue;
            }
            let now = side.core_cycle();
            // The unit also steps after the last block is placed, until it has taken every
            // finished block (its running table is empty when the kernel ends).
            if (!d.all_placed() || d.events_pending()) && !full {
                placed.clear();
                let room = |s: usize, b: usize| sms[s].room(b, wpb);
                match &mut opts.unit {
                    Some(u) => {
                        d.cycle_watched(&room, &mut placed, Some(&mut *u.hook))?;
                        self.unit_cycles += 1;
                        if self.unit_cycles >= u.cycles {
                            self.stopped = true;
                            break;
                        }
                    }
                    None => d.cycle(&room, &mut placed)?,
                }
                full = placed.is_empty() && d.places_by_room_alone();
                for p in &placed {
                    let Some(mut b) = src.take(p.block)? else {
                        // A trace excerpt: its blocks are the grid.
                        d.end_grid(blocks);
                        break;
                    };
                    // (The kinds' vectors are kept from block to block.)
                    if kinds.len() < b.warps.len() {
                        kinds.resize_with(b.warps.len(), Vec::new);
                    }
                    for (ks, w) in kinds.iter_mut().zip(&b.warps) {
                        ks.clear();
                        ks.extend(w.iter().map(|i| kind_of(src.opcode(i.op), i, &h)));
                    }
                    let kinds = &kinds[..b.warps.len()];
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
                    if !sms[p.sm as usize].launch(b, kinds, rest, p.slot) {
                        return Err(GpuError::Placement {
                            block: p.block,
                            sm: p.sm,
                        });
                    }
                    blocks += 1;
                    peak = peak.max(sms[p.sm as usize].resident() as u32);
                }
            }
            // GPGPU-Sim invalidates the L1 of an SM without threads after its block issue of
            // the cycle, which refills an emptied SM at once while blocks remain: so an SM is
            // invalidated once the kernel has no block left for it (and every SM at its end).
            if spec.gpu.flush_l1 && d.all_placed() {
                flush_empty_l1s(sms, now, side);
            }
            // The earliest of the SMs' next work after this cycle. An SM runs only in a cycle
            // with work of its own, or when something outside it woke it.
            let mut first_wake = u64::MAX;
            for (s, sm) in sms.iter_mut().enumerate() {
                if !opts.step_every_cycle && !sm.due(now, side) {
                    first_wake = first_wake.min(sm.next_work());
                    continue;
                }
                // (An SM issues and takes replies only in its own cycle: progress is seen here,
                // not by summing every SM's counts each cycle.)
                let (issued, replies) = (sm.instructions(), sm.replies());
                sm.cycle(now, side).map_err(GpuError::PrefetchHook)?;
                if let Some((_, cycles)) = self.pf_watch.filter(|&(w, _)| w == s) {
                    self.pf_cycles += 1;
                    if self.pf_cycles >= cycles {
                        self.stopped = true;
                    }
                }
                if sm.instructions() != issued || sm.replies() != replies {
                    last_work = now;
                }
                first_wake = first_wake.min(sm.next_work());
                for slot in sm.take_finished() {
                    d.finished(s as u32, slot);
                    full = false;
                }
                if let Some(t) = sm.take_ot() {
                    self.ot_chunk.extend(t);
                }
            }
            if self.stopped && self.pf_watch.is_some() {
                break;
            }
            if opts.check_bounds {
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
            }
            // The OT predictor takes the cycle's transactions, in SM order.
            if !self.ot_chunk.is_empty() {
                if let Some(most) = opts.keep_ot {
                    opts.ot_txns
                        .extend(self.ot_chunk.iter().map(crate::ot::GpuTxn::txn));
                    if opts.ot_txns.len() >= most {
                        self.stopped = true;
                    }
                }
                self.ot.feed(self.ot_chunk.drain(..));
                if self.stopped {
                    break;
                }
            }
            if d.all_placed() && !d.events_pending() && sms.iter().all(Sm::idle) {
                break;
            }
            if let Some(limit) = opts.max_cycles.filter(|&m| now >= m) {
                return Err(GpuError::CycleLimit {
                    limit,
                    kernel: h.name.clone(),
                    instructions: sms.iter().map(Sm::instructions).sum::<u64>() - before,
                });
            }
            if now - last_work > STALL_CYCLES {
                return Err(GpuError::Stalled {
                    since: last_work,
                    now,
                });
            }
            if now.is_multiple_of(1 << 14) {
                if let Some(p) = opts.progress {
                    p(now);
                }
            }
            // Idle time: when no SM has work before some cycle (and nothing wakes one: no reply
            // is on its way, no port opens), the dispatcher has nothing to do, and the memory
            // side only counts until then, every clock jumps to that cycle and each component
            // counts what the skipped cycles would have (the SMs when they next run). It stays
            // below the cycle of the stall check and of the cycle bound, so that they fire as
            // stepping would.
            let dispatching = (!d.all_placed() || d.events_pending()) && !full;
            if skips && !dispatching && first_wake > now + 1 {
                let n = first_wake
                    .min(side.quiet_until())
                    .min(last_work + STALL_CYCLES + 1)
                    .min(opts.max_cycles.unwrap_or(u64::MAX));
                if n > now + 1 {
                    side.skip_to(n);
                    if let Some(p) = opts.progress.filter(|_| (n - 1) >> 14 != now >> 14) {
                        p(n - 1);
                    }
                }
            }
        }
        if spec.gpu.flush_l1 {
            flush_empty_l1s(sms, side.core_cycle(), side);
        }
        self.unit = d.into_unit();
        let instructions = sms.iter().map(Sm::instructions).sum::<u64>() - before;
        let cycles = side.core_cycle() - start;
        Ok(KernelSummary {
            name: h.name.clone(),
            id: h.id,
            blocks,
            instructions,
            cycles,
            ipc: instructions as f64 / cycles.max(1) as f64,
            occupancy,
            peak_blocks_per_sm: peak,
            l1: l1_total(sms).since(&l1_before),
            l2: side.stats().0.slices.since(&l2_before),
        })
    }
}

/// Invalidate the L1 of every SM without a block (`gpu.flush_l1`), before their cycle at core
/// cycle `now`.
fn flush_empty_l1s(sms: &mut [Sm<'_>], now: u64, side: &mut MemorySide) {
    for sm in sms {
        sm.flush_l1_if_empty(now, side);
    }
}

#[cfg(test)]
#[path = "run_tests.rs"]
mod tests;
