//! The Warped-MC tables (seed 004) in the registry: the golden memory system runs a stimulus
//! under the Warped-MC scheduler, and every cycle one WET group's block inputs and outputs go
//! to the RTL (the golden block is the one inside the system: what is verified is what is
//! simulated); statistics are the memory system's; mutants; the memory system's throughput
//! under every scheduler for `bench`.

use crate::bench::{BenchOptions, Throughput, THROUGHPUT_RUNS, THROUGHPUT_TARGET};
use crate::harness::{Check, CosimStats, Driver, Ended, Stim, StimulusName};
use crate::lockstep::StepFail;
use crate::CosimError;
use golden::mc::open_loop::OpenLoop;
use golden::mc::source::{requests, McStimulus};
use golden::mc::stimulus::{LoadClass, Request};
use golden::mc::system::{GroupCycle, McError, McSummary};
use golden::mc::warped::WmcBlock;
use serde::Serialize;
use spec::{Scheduler, Spec};
use std::cell::RefCell;
use std::sync::Arc;
use std::time::Instant;

/// The spec with the Warped-MC scheduler (co-simulating the tables needs it in charge): the
/// spec itself when it has it, else a variant with `mc.scheduler=warped` as one more layer. A
/// scheduler the user chose explicitly is not replaced: that is an error.
pub fn warped(spec: &Spec) -> Result<Spec, CosimError> {
    if spec.mc.scheduler == Scheduler::Warped {
        return Ok(spec.clone());
    }
    if spec.set_by_user("mc.scheduler") {
        return Err(CosimError::BadInput(format!(
            "co-simulating the Warped-MC tables needs mc.scheduler = warped, but the \
                configuration sets mc.scheduler = {}: drop that setting or use --set \
                mc.scheduler=warped",
            spec.mc.scheduler.name()
        )));
    }
    spec.variant(&["mc.scheduler=warped"])
        .map_err(|e| CosimError::BadInput(e.to_string()))
}

/// The memory system's statistics of a co-simulation.
#[derive(Debug, Clone, Default, Serialize)]
pub struct WmcStats {
    /// The WET group whose block is co-simulated.
    pub group: usize,
    /// Memory-system cycles (each one compared).
    pub cycles: u64,
    /// Requests completed within the run.
    pub requests: u64,
    pub memory: Option<McSummary>,
}

impl CosimStats for WmcStats {
    const CHECKED: &'static str = "request completed";

    fn checked(&self) -> u64 {
        self.requests
    }

    fn summary(&self) -> Vec<String> {
        let mut v = vec![format!(
            "{} cycles of group {}, {} requests completed",
            self.cycles, self.group, self.requests
        )];
        if let Some(m) = &self.memory {
            v.push(format!(
                "memory: bandwidth_util {:.3}  row_hit_rate {:.3}  latency mean {:.1}  divergence \
                    mean {:.1}  warp_time mean {:.1}",
                m.bandwidth_util,
                m.row_hit_rate,
                m.latency.mean,
                m.divergence.mean,
                m.warp_time.mean
            ));
        }
        v
    }
}

/// The Warped-MC co-simulation driver.
#[derive(Clone)]
pub struct WmcDriver {
    spec: Spec,
    kind: McStimulus,
    /// `memory:STIMULUS`: the controllers behind the interconnect and the L2 partitions, in
    /// the memory side's closed loop (else the controllers alone, open loop).
    closed: bool,
    /// `gpu:WORKLOAD`: the controllers inside the whole GPU running a trace or kernel (the
    /// requests are those the controllers accepted, kept for the reproducer).
    gpu: Option<Arc<golden::gpu::run::Target>>,
    gpu_name: String,
    seed: u64,
    group: usize,
    /// The requests (generated for the cycle budget at the first run, or a file's, or the
    /// replayed ones).
    reqs: Option<Arc<Vec<Request>>>,
    /// After a run: the memory system's last cycle and statistics.
    now: u64,
    stats: WmcStats,
}

impl Driver for WmcDriver {
    type Block = WmcBlock;
    type Item = golden::mc::stimulus::McTxn;
    type Stats = WmcStats;

    fn prepare(spec: &Spec) -> Result<Spec, CosimError> {
        warped(spec)
    }

    fn new(spec: &Spec, s: &Stim<'_>) -> Result<WmcDriver, CosimError> {
        let (closed, text) = match s.text.strip_prefix(MEMORY_PREFIX) {
            Some(rest) => (true, rest),
            None => (false, s.text),
        };
        let (gpu, kind) = match super::gpu_target(text) {
            Some(t) => (Some(t?), McStimulus::File(s.text.into())),
            None => (None, McStimulus::parse(text)?),
        };
        let (seed, opts) = (s.seed, s.opts);
        let groups = (spec.dram.channels / spec.wmc.controllers_per_wet) as usize;
        let group = opts.number::<usize>("group")?.unwrap_or(0);
        if group >= groups {
            return Err(CosimError::BadInput(format!(
                "--group {group} does not exist: the configuration has {groups} warp-entry-table \
                    groups (0..={})",
                groups - 1
            )));
        }
        // A file is read and checked now (its errors name the line).
        let reqs = match kind {
            McStimulus::File(_) if gpu.is_none() => Some(Arc::new(requests(spec, &kind, 0, seed)?)),
            _ => None,
        };
        Ok(WmcDriver {
            spec: spec.clone(),
            kind,
            closed,
            gpu_name: s.text.to_string(),
            gpu,
            seed,
            group,
            reqs,
            now: 0,
            stats: WmcStats::default(),
        })
    }

    fn replay(&self, items: Vec<Self::Item>) -> WmcDriver {
        let reqs = golden::mc::stimulus::resolve(&items, &self.spec).unwrap_or_default();
        WmcDriver {
            kind: McStimulus::File("replay".into()),
            reqs: Some(Arc::new(reqs)),
            // A GPU run's requests replay open loop at their arrival cycles.
            closed: self.closed && self.gpu.is_none(),
            gpu: None,
            ..self.clone()
        }
    }

    fn stimulus(&self) -> StimulusName {
        if self.gpu.is_some() {
            return StimulusName::new(&self.gpu_name, false, "requests");
        }
        let prefix = if self.closed { MEMORY_PREFIX } else { "" };
        StimulusName::new(
            format!("{prefix}{}", self.kind),
            self.kind.is_finite(),
            "requests",
        )
    }

    fn replay_stimulus(&self, path: &str) -> String {
        if self.closed && self.gpu.is_none() {
            format!("{MEMORY_PREFIX}{path}")
        } else {
            path.to_string()
        }
    }

    fn run(&mut self, limit: u64, check: &mut Check<'_, Self>) -> Result<Ended, CosimError> {
        if let Some(t) = self.gpu.clone() {
            return self.run_gpu(&t, limit, check);
        }
        let reqs = match &self.reqs {
            Some(r) => r.clone(),
            None => {
                let r = Arc::new(requests(
                    &self.spec,
                    &self.kind,
                    limit.min(50_000_000),
                    self.seed,
                )?);
                self.reqs = Some(r.clone());
                r
            }
        };
        let fail: RefCell<Option<StepFail>> = RefCell::new(None);
        let mut hook = |gc: GroupCycle| -> Result<(), String> {
            check(gc.input, gc.output).map_err(|e| {
                *fail.borrow_mut() = Some(e);
                "mismatch".to_string()
            })
        };
        if self.closed {
            // The budget counts the block's (DRAM) cycles; the core runs as long as it takes.
            let shape = golden::mem::closed_loop::LoopShape {
                max_dram_cycles: limit,
                ..golden::mem::closed_loop::LoopShape::new(
                    self.spec.gpu.sms as usize,
                    golden::mem::closed_loop::DEFAULT_OUTSTANDING,
                    u64::MAX,
                )
            };
            let r = golden::mem::closed_loop::run(
                &self.spec,
                &reqs,
                shape,
                None,
                Some((self.group, &mut hook)),
            );
            let (cycles, requests) = match &r {
                Ok(m) => (m.dram.cycles, m.completed),
                Err(_) => (0, 0),
            };
            self.stats = WmcStats {
                group: self.group,
                cycles,
                requests,
                memory: None,
            };
            return ended(r.map(|_| ()), fail.into_inner(), &self.kind);
        }
        let mut sys = OpenLoop::new(&self.spec, reqs.iter().copied(), None);
        let mut completed = 0u64;
        let r = sys.run(limit, Some((self.group, &mut hook)), &mut |_, _| {
            completed += 1
        });
        self.now = sys.now();
        self.stats = WmcStats {
            group: self.group,
            cycles: sys.now(),
            requests: completed,
            memory: Some(sys.summary()),
        };
        ended(r, fail.into_inner(), &self.kind)
    }

    fn consumed(&self) -> Vec<Self::Item> {
        let reqs = self.reqs.as_deref().map_or(&[][..], |r| &r[..]);
        // The closed loop does not follow the requests' cycles: any of them may have been
        // offered. A GPU run's are those the controllers accepted, at their cycles.
        let arrived: Vec<Request> = reqs
            .iter()
            .copied()
            .filter(|r| self.closed || self.gpu.is_some() || r.cycle <= self.now)
            .collect();
        golden::mc::stimulus::to_txns(&arrived)
    }

    fn stats(&self) -> &WmcStats {
        &self.stats
    }
}

/// The stimulus prefix that runs the controllers inside the memory side's closed loop.
pub const MEMORY_PREFIX: &str = "memory:";

impl WmcDriver {
    /// The whole GPU on `t`, launched again and again until the DRAM has run `limit` cycles,
    /// with the watched group's block compared every cycle.
    fn run_gpu(
        &mut self,
        t: &golden::gpu::run::Target,
        limit: u64,
        check: &mut Check<'_, Self>,
    ) -> Result<Ended, CosimError> {
        use golden::gpu::run::{run_with, GpuError, RunOptions, Watch};
        let fail: RefCell<Option<StepFail>> = RefCell::new(None);
        let mut compared = 0u64;
        let mut hook = |gc: GroupCycle| -> Result<(), String> {
            compared += 1;
            check(gc.input, gc.output).map_err(|e| {
                *fail.borrow_mut() = Some(e);
                "mismatch".to_string()
            })
        };
        let mut o = RunOptions {
            watch: Some(Watch {
                group: self.group,
                hook: &mut hook,
                dram_cycles: limit,
            }),
            log_offers: true,
            trace_cache: super::trace_cache(),
            ..RunOptions::default()
        };
        let r = run_with(&self.spec, t.workload(self.seed), &mut o);
        let offers = std::mem::take(&mut o.offers);
        drop(o);
        self.stats = WmcStats {
            group: self.group,
            cycles: compared,
            requests: offers.len() as u64,
            memory: None,
        };
        self.now = self.stats.cycles;
        self.reqs = Some(Arc::new(offers));
        match (r, fail.into_inner()) {
            (_, Some(f)) => Ok(Ended::Failed(f)),
            (Err(GpuError::Memory(e)), None) => ended(Err(e), None, &self.kind),
            (Err(e), None) => Err(super::gpu_error(&self.gpu_name, e)),
            (Ok(_), None) => Ok(Ended::Completed),
        }
    }
}

/// How a run over `kind` ended, from the memory system's result and the hook's failure.
fn ended(
    r: Result<(), McError>,
    fail: Option<StepFail>,
    kind: &McStimulus,
) -> Result<Ended, CosimError> {
    match (r, fail) {
        (_, Some(f)) => Ok(Ended::Failed(f)),
        (Err(McError::Illegal(e)), None) => Err(CosimError::BadInput(format!(
            "{kind}: a request gives the block an input it refuses: {e}"
        ))),
        (Err(e @ McError::Request { .. }), None) => Err(CosimError::BadInput(e.to_string())),
        (Err(e), None) => Err(CosimError::Model(e.to_string())),
        (Ok(()), None) => Ok(Ended::Completed),
    }
}

/// A warp entry table counter can only saturate if its controllers can hold more pending
/// requests than the counter's maximum.
pub fn counter_never_saturates(s: &Spec) -> Option<String> {
    let most = s.mc.queue_entries * s.wmc.wet_ctrls;
    (most <= s.wmc.pending_max).then(|| {
        format!(
            "equivalent on this configuration: at most {most} requests are pending per warp entry \
             table (mc.queue_entries {} x {} controllers in its scope), so a {}-bit counter never \
             passes {}",
            s.mc.queue_entries, s.wmc.wet_ctrls, s.wmc.pending_bits, s.wmc.pending_max
        )
    })
}

/// The golden memory system's throughput under every scheduler on HOA warp loads of
/// `o.cycles` cycles' worth: system construction and run, fastest of [`THROUGHPUT_RUNS`]
/// runs, every run reported; then the whole memory side (interconnect, L2 partitions and the
/// controllers, closed loop) on the same traffic, at two depths of the loop
/// ([`MEMORY_SIDE_DEPTHS`]).
/// The memory side's closed loop is measured at the default depth (requests in flight per SM
/// port), where it is latency-bound (turing-rtx2060s HOA loads: 4 % of the DRAM bus), and at
/// 64, where it is bound by the channels' bandwidth as the seed's HOA applications are
/// (30 %, against 37 % for the same traffic offered open loop to the controllers alone).
pub const MEMORY_SIDE_DEPTHS: [usize; 2] = [golden::mem::closed_loop::DEFAULT_OUTSTANDING, 64];

fn throughput(what: String, requests: u64, cycles: u64, runs: Vec<f64>, util: f64) -> Throughput {
    let seconds = runs.iter().copied().fold(f64::INFINITY, f64::min);
    let rps = requests as f64 / seconds;
    Throughput {
        what,
        requests,
        cycles,
        seconds,
        runs,
        requests_per_second: rps,
        ratio: rps / THROUGHPUT_TARGET,
        dram_bandwidth: util,
    }
}

pub fn memory_system_throughput(
    spec: &Spec,
    o: &BenchOptions,
) -> Result<Vec<Throughput>, CosimError> {
    let bad = |e: McError| CosimError::Model(e.to_string());
    let mut out = Vec::new();
    for sched in Scheduler::ALL {
        let s = spec
            .variant(&[&format!("mc.scheduler={}", sched.name())])
            .map_err(|e| CosimError::BadInput(e.to_string()))?;
        let reqs = requests(&s, &McStimulus::class(LoadClass::Hoa), o.cycles, o.seed)?;
        let count = reqs.len() as u64;
        let mut runs = Vec::with_capacity(THROUGHPUT_RUNS);
        let (mut sim_cycles, mut util) = (0, 0.0);
        for _ in 0..THROUGHPUT_RUNS {
            let reqs = reqs.clone();
            let t = Instant::now();
            let mut sys = OpenLoop::new(&s, reqs.into_iter(), None);
            sys.run(u64::MAX, None, &mut |_, _| {}).map_err(bad)?;
            runs.push(t.elapsed().as_secs_f64());
            sim_cycles = sys.now();
            util = sys.system().dram_totals().bandwidth_util;
        }
        out.push(throughput(
            sched.name().to_string(),
            count,
            sim_cycles,
            runs,
            util,
        ));
    }
    // The memory side around the controllers (interconnect, L2 partitions), closed loop, on the
    // same traffic under the configuration's own scheduler.
    let reqs = requests(spec, &McStimulus::class(LoadClass::Hoa), o.cycles, o.seed)?;
    let ports = spec.gpu.sms as usize;
    for outstanding in MEMORY_SIDE_DEPTHS {
        let mut runs = Vec::with_capacity(THROUGHPUT_RUNS);
        let (mut cycles, mut util) = (0, 0.0);
        for _ in 0..THROUGHPUT_RUNS {
            let t = Instant::now();
            let shape = golden::mem::closed_loop::LoopShape::new(ports, outstanding, u64::MAX);
            let s = golden::mem::closed_loop::run(spec, &reqs, shape, None, None).map_err(bad)?;
            runs.push(t.elapsed().as_secs_f64());
            cycles = s.cycles;
            util = s.dram.bandwidth_util;
        }
        let what = format!("memory side, {outstanding}/port");
        out.push(throughput(what, reqs.len() as u64, cycles, runs, util));
    }
    Ok(out)
}
