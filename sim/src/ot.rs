//! Co-simulation of the OT predictor: stimulus sources, statistics (PCOV, PACC), the failure
//! report (cycle, port, expected/actual, last transactions, reproducer command), shrinking the
//! failing stimulus to a minimal reproducer with proptest, and a VCD of the reproducer.

use crate::build::BuiltModel;
use crate::lockstep::{Lockstep, StepFail};
use crate::model::Model;
use crate::mutants::{always_reachable, Mutant, MutantResult};
use crate::report::Failure;
use crate::{CosimError, SimError};
use golden::ot::random::RandomOt;
use golden::ot::{CycleOps, OtIn, OtModel, OtOut, OtTxn, Packer};
use serde::Serialize;
use spec::{OtEvent, Spec};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// Cycles simulated when `--cycles` is not given (random and kernel stimulus).
pub const DEFAULT_CYCLES: u64 = 200_000;

/// Where transactions come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stimulus {
    /// The biased random generator ([`golden::ot::random`]), endless.
    Random,
    /// A built-in kernel, `all` built-in kernels in turn, or a kernel TOML file; relaunched
    /// with a new scheduling seed each time it completes.
    Kernel(String),
    /// A JSON-lines transaction file, run once.
    File(PathBuf),
}

impl std::str::FromStr for Stimulus {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Stimulus, Self::Err> {
        Ok(if s == "random" {
            Stimulus::Random
        } else if let Some(k) = s.strip_prefix("kernel:") {
            Stimulus::Kernel(k.to_string())
        } else {
            Stimulus::File(PathBuf::from(s))
        })
    }
}

impl std::fmt::Display for Stimulus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stimulus::Random => write!(f, "random"),
            Stimulus::Kernel(k) => write!(f, "kernel:{k}"),
            Stimulus::File(p) => write!(f, "{}", p.display()),
        }
    }
}

/// A validated stimulus source that can be replayed from the start any number of times.
#[derive(Clone)]
pub struct Source {
    spec: Spec,
    kind: Stimulus,
    seed: u64,
    file: Option<Arc<Vec<OtTxn>>>,
    kernels: Vec<Arc<golden::workload::KernelDesc>>,
}

impl Source {
    /// Check the stimulus up front: a file is parsed and validated against the block's rules
    /// (errors name the line), a kernel is found and checked to fit the configuration.
    pub fn new(spec: &Spec, kind: &Stimulus, seed: u64) -> Result<Source, CosimError> {
        let mut s = Source {
            spec: spec.clone(),
            kind: kind.clone(),
            seed,
            file: None,
            kernels: Vec::new(),
        };
        match kind {
            Stimulus::Random => {}
            Stimulus::Kernel(name) => {
                let names: Vec<&str> = if name == "all" {
                    golden::workload::BUILTIN.to_vec()
                } else {
                    vec![name.as_str()]
                };
                for name in names {
                    let k = match golden::workload::builtin(name) {
                        Some(k) => k,
                        None if name.ends_with(".toml") => {
                            golden::workload::load_kernel_file(Path::new(name))
                                .map_err(|e| CosimError::BadInput(e.to_string()))?
                        }
                        None => {
                            return Err(CosimError::BadInput(format!(
                                "unknown kernel `{name}`; built-in kernels: {}, or all (or give a kernel TOML file: kernel:path.toml)",
                                golden::workload::BUILTIN.join(", ")
                            )))
                        }
                    };
                    // Checks that the kernel fits the configuration.
                    golden::workload::check_ot_fit(&k, spec)
                        .map_err(|e| CosimError::BadInput(e.to_string()))?;
                    s.kernels.push(Arc::new(k));
                }
            }
            Stimulus::File(path) => {
                let text = std::fs::read_to_string(path).map_err(|e| {
                    CosimError::BadInput(format!("cannot read stimulus {}: {e}", path.display()))
                })?;
                let name = path.display().to_string();
                let parsed = golden::ot::parse(&text, &name)
                    .map_err(|e| CosimError::BadInput(e.to_string()))?;
                let (lines, txns): (Vec<usize>, Vec<OtTxn>) = parsed.into_iter().unzip();
                golden::ot::validate(
                    &OtModel::new(&spec.ot),
                    &txns,
                    &lines,
                    spec.gpu.warp_size,
                    &name,
                )
                .map_err(|e| CosimError::BadInput(e.to_string()))?;
                if txns.is_empty() {
                    return Err(CosimError::BadInput(format!(
                        "stimulus {name} holds no transactions"
                    )));
                }
                s.file = Some(Arc::new(txns));
            }
        }
        Ok(s)
    }

    /// The transaction stream from its start.
    pub fn iter(&self) -> Box<dyn Iterator<Item = OtTxn> + '_> {
        match (&self.kind, &self.file, &self.kernels) {
            (Stimulus::File(_), Some(txns), _) => Box::new(txns.iter().cloned()),
            (Stimulus::Kernel(_), _, kernels) if !kernels.is_empty() => {
                // Each kernel in turn, each launch with the next scheduling seed.
                let (spec, seed) = (&self.spec, self.seed);
                Box::new((0u64..).flat_map(move |run| {
                    let k = &kernels[(run % kernels.len() as u64) as usize];
                    golden::workload::ot_stimulus(k, spec, seed.wrapping_add(run))
                        .into_iter()
                        .flatten()
                }))
            }
            _ => Box::new(RandomOt::new(&self.spec, self.seed)),
        }
    }

    /// Whether the stream ends by itself.
    pub fn is_finite(&self) -> bool {
        matches!(self.kind, Stimulus::File(_))
    }
}

/// Counters of one co-simulation run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct OtStats {
    pub cycles: u64,
    pub transactions: u64,
    pub launches: u64,
    pub observes: u64,
    /// Prediction queries.
    pub predictions: u64,
    /// Queries answered with addresses.
    pub hits: u64,
    /// Hits whose warp was later observed (the prediction could be checked).
    pub resolved: u64,
    /// Resolved hits whose observed address was among the predicted ones.
    pub correct: u64,
    pub evictions: u64,
    /// Observations by what they did to the table.
    pub events: BTreeMap<&'static str, u64>,
    /// Prediction coverage: hits / queries (seed 000 eq. 3, one query per warp load).
    pub pcov: f64,
    /// Prediction accuracy: correct / resolved hits (seed 000 eq. 4).
    pub pacc: f64,
}

type Key = (u64, u32, [u32; 3], u32);

#[derive(Default)]
struct Tracker {
    stats: OtStats,
    events: [u64; 7],
    pending: HashMap<Key, ([u64; golden::ot::MAX_ADDRS], u32)>,
}

impl Tracker {
    fn record(&mut self, c: &CycleOps, inp: &OtIn, out: &OtOut) {
        let s = &mut self.stats;
        s.cycles += 1;
        s.transactions += c.txns().count() as u64;
        s.launches += u64::from(inp.launch.is_some());
        if inp.launch.is_some() {
            self.pending.clear();
        }
        if let Some(q) = &inp.predict {
            s.predictions += 1;
            if out.pred_hit {
                s.hits += 1;
                if self.pending.len() > 1 << 20 {
                    self.pending.clear();
                }
                self.pending.insert(
                    (q.pc, q.lec, q.tb, q.warp),
                    (out.pred_addrs, out.pred_count),
                );
            }
        }
        if let Some(o) = &inp.observe {
            s.observes += 1;
            self.events[out.upd_event.code() as usize] += 1;
            s.evictions += u64::from(out.upd_evict);
            if let Some((addrs, n)) = self.pending.remove(&(o.pc, o.lec, o.tb, o.warp)) {
                s.resolved += 1;
                s.correct += u64::from(addrs[..n as usize].contains(&o.addr));
            }
        }
    }

    fn finish(mut self) -> OtStats {
        let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        self.stats.pcov = ratio(self.stats.hits, self.stats.predictions);
        self.stats.pacc = ratio(self.stats.correct, self.stats.resolved);
        for e in OtEvent::ALL.iter().skip(1) {
            self.stats
                .events
                .insert(e.name(), self.events[e.code() as usize]);
        }
        self.stats
    }
}

/// Result of a co-simulation.
#[derive(Debug, Clone, Serialize)]
pub struct CosimReport {
    pub block: &'static str,
    pub config: String,
    pub config_hash: String,
    pub stimulus: String,
    pub seed: u64,
    pub mutant: Option<&'static str>,
    pub stats: OtStats,
    pub seconds: f64,
    pub cycles_per_second: f64,
    pub build_seconds: f64,
    pub model_cached: bool,
    /// `pass` or `fail`.
    pub result: &'static str,
    pub failure: Option<Failure>,
}

/// How to run a co-simulation.
pub struct CosimOptions<'a> {
    pub stimulus: Stimulus,
    /// Cycle limit (`None`: [`DEFAULT_CYCLES`], or the whole file for file stimulus).
    pub cycles: Option<u64>,
    pub seed: u64,
    /// Write a VCD of the whole run here (builds a traced model).
    pub waves: Option<PathBuf>,
    pub mutant: Option<&'static Mutant>,
    /// Folder for reproducer files.
    pub out_dir: PathBuf,
    /// The command line that selects block and configuration (`warpsmith cosim --block ot
    /// --preset tiny ...`); the report appends stimulus, seed, cycles and mutant.
    pub command: String,
    /// Shrink a failing stimulus to a minimal reproducer (and write its VCD).
    pub shrink: bool,
    /// Called about once a second with (cycles done, cycle limit, cycles per second).
    pub progress: Option<&'a dyn Fn(u64, u64, f64)>,
}

/// The RTL files of the block, with a mutant applied if asked.
pub fn rtl_files(
    spec: &Spec,
    mutant: Option<&Mutant>,
) -> Result<(String, Vec<(String, String)>), CosimError> {
    crate::rtl::block_rtl(spec, &ENTRY, mutant)
}

/// Build (or fetch) the block's model.
pub fn build_model(
    spec: &Spec,
    mutant: Option<&Mutant>,
    trace: bool,
) -> Result<(BuiltModel, Model), CosimError> {
    crate::rtl::block_model(spec, &ENTRY, mutant, trace)
}

enum RunEnd {
    Done,
    Failed { at_txn: usize, failure: StepFail },
}

fn fail_of(e: StepFail) -> Result<StepFail, CosimError> {
    match e {
        StepFail::Illegal(i) => Err(CosimError::BadInput(format!(
            "stimulus breaks the block's input rules: {i}"
        ))),
        StepFail::Rtl(SimError::Assertion(m)) => Ok(StepFail::Rtl(SimError::Assertion(m))),
        StepFail::Rtl(other) => Err(CosimError::Sim(other)),
        m => Ok(m),
    }
}

/// Run a co-simulation of the OT block.
pub fn cosim(spec: &Spec, opts: &CosimOptions) -> Result<CosimReport, CosimError> {
    let source = Source::new(spec, &opts.stimulus, opts.seed)?;
    let (built, mut rtl) = build_model(spec, opts.mutant, opts.waves.is_some())?;
    if let Some(w) = &opts.waves {
        rtl.open_vcd(w)?;
    }
    let mut ls = Lockstep::new(OtModel::new(&spec.ot), rtl)?;
    let limit = match (opts.cycles, source.is_finite()) {
        (Some(c), _) => c,
        (None, true) => u64::MAX,
        (None, false) => DEFAULT_CYCLES,
    };
    let ws = spec.gpu.warp_size;
    let mut tracker = Tracker::default();
    let mut recent: VecDeque<CycleOps> = VecDeque::with_capacity(9);
    let start = Instant::now();
    let mut next_report = 1.0;
    let mut end = RunEnd::Done;
    for c in Packer::new(source.iter()) {
        if tracker.stats.cycles >= limit {
            break;
        }
        let inp = c
            .input(ws)
            .map_err(|e| CosimError::BadInput(format!("stimulus: {e}")))?;
        match ls.step(&inp) {
            Ok(out) => tracker.record(&c, &inp, &out),
            Err(e) => {
                let at_txn = c.last_index();
                recent.push_back(c);
                end = RunEnd::Failed {
                    at_txn,
                    failure: fail_of(e)?,
                };
                break;
            }
        }
        if recent.len() == 8 {
            recent.pop_front();
        }
        recent.push_back(c);
        if let Some(p) = opts.progress {
            if tracker.stats.cycles & 0x3fff == 0 {
                let t = start.elapsed().as_secs_f64();
                if t >= next_report {
                    next_report = t + 1.0;
                    p(tracker.stats.cycles, limit, tracker.stats.cycles as f64 / t);
                }
            }
        }
    }
    ls.mirror.rtl.close_vcd();
    let seconds = start.elapsed().as_secs_f64();
    let stats = tracker.finish();
    let cycles_per_second = stats.cycles as f64 / seconds.max(1e-9);
    let failure = match end {
        RunEnd::Done => None,
        RunEnd::Failed { at_txn, failure } => Some(report_failure(
            spec, opts, &source, &mut ls, at_txn, failure, &recent,
        )?),
    };
    Ok(CosimReport {
        block: "ot",
        config: spec.name.clone(),
        config_hash: spec.hash.to_string(),
        stimulus: opts.stimulus.to_string(),
        seed: opts.seed,
        mutant: opts.mutant.map(|m| m.name),
        result: if failure.is_none() { "pass" } else { "fail" },
        stats,
        seconds,
        cycles_per_second,
        build_seconds: built.seconds,
        model_cached: !built.built_now,
        failure,
    })
}

fn command_for(
    opts: &CosimOptions,
    stimulus: &str,
    with_seed: bool,
    cycles: Option<u64>,
) -> String {
    let mut c = format!("{} --stimulus {stimulus}", opts.command);
    if with_seed {
        c.push_str(&format!(" --seed {}", opts.seed));
    }
    if let Some(n) = cycles {
        c.push_str(&format!(" --cycles {n}"));
    }
    if let Some(m) = opts.mutant {
        c.push_str(&format!(" --mutant {}", m.name));
    }
    c
}

fn report_failure(
    spec: &Spec,
    opts: &CosimOptions,
    source: &Source,
    ls: &mut Lockstep<OtModel>,
    at_txn: usize,
    failure: StepFail,
    recent: &VecDeque<CycleOps>,
) -> Result<Failure, CosimError> {
    let cycle = ls.cycle() + 1;
    let last_transactions = recent
        .iter()
        .flat_map(|c| c.txns().map(|(_, t)| t.to_json()))
        .collect();
    let mut f = Failure::new(cycle, opts.seed, last_transactions, String::new());
    if let Some(c) = f.record(failure) {
        f.cycle = c;
    }
    f.reproduce = command_for(
        opts,
        &opts.stimulus.to_string(),
        !source.is_finite(),
        Some(f.cycle),
    );
    if !opts.shrink {
        return Ok(f);
    }
    let prefix: Vec<OtTxn> = source.iter().take(at_txn + 1).collect();
    let minimal = shrink(ls, &prefix, spec.gpu.warp_size);
    std::fs::create_dir_all(&opts.out_dir).map_err(|e| {
        CosimError::Sim(SimError::Io(format!(
            "cannot create {}: {e}",
            opts.out_dir.display()
        )))
    })?;
    let stem = format!(
        "ot-{}-seed{}{}",
        spec.hash,
        opts.seed,
        opts.mutant
            .map(|m| format!("-{}", m.name))
            .unwrap_or_default()
    );
    let repro = opts.out_dir.join(format!("{stem}.repro.jsonl"));
    std::fs::write(&repro, golden::ot::to_jsonl(&minimal)).map_err(|e| {
        CosimError::Sim(SimError::Io(format!(
            "cannot write {}: {e}",
            repro.display()
        )))
    })?;
    f.reproducer = Some(repro.display().to_string());
    f.reproducer_transactions = Some(minimal.len());
    f.reproducer_command = Some(command_for(opts, &repro.display().to_string(), false, None));
    // Waves of the reproducer: a traced build of the same RTL.
    let vcd = opts.out_dir.join(format!("{stem}.vcd"));
    if let Ok((_, mut traced)) = build_model(spec, opts.mutant, true) {
        if traced.open_vcd(&vcd).is_ok() {
            if let Ok(mut tl) = Lockstep::new(OtModel::new(&spec.ot), traced) {
                let _ = replay(&mut tl, &minimal, spec.gpu.warp_size);
                tl.mirror.rtl.close_vcd();
                f.vcd = Some(vcd.display().to_string());
            }
        }
    }
    Ok(f)
}

/// Run transactions from reset; `true` if golden and RTL disagree (or the RTL asserts).
fn replay(ls: &mut Lockstep<OtModel>, txns: &[OtTxn], warp_size: u32) -> bool {
    if ls.reset().is_err() {
        return false;
    }
    for c in Packer::new(txns.iter().cloned()) {
        let Ok(inp) = c.input(warp_size) else {
            return false;
        };
        match ls.step(&inp) {
            Ok(_) => {}
            Err(StepFail::Mismatch(_)) | Err(StepFail::Rtl(SimError::Assertion(_))) => return true,
            Err(_) => return false,
        }
    }
    false
}

/// Shrink a failing transaction list to a small one that still fails (bounded: 4096 candidate
/// runs or 60 s). The result is re-checked: a reproducer always reproduces.
pub fn shrink(ls: &mut Lockstep<OtModel>, failing: &[OtTxn], warp_size: u32) -> Vec<OtTxn> {
    crate::shrink::minimize(failing, |txns| replay(ls, txns, warp_size))
}

/// One line of `warpsmith mutants`.
/// Co-simulate one mutant (no shrinking) and say whether it was caught.
pub fn run_mutant(
    spec: &Spec,
    m: &'static Mutant,
    stimulus: &Stimulus,
    cycles: Option<u64>,
    seed: u64,
) -> Result<MutantResult, CosimError> {
    if let Some(r) = MutantResult::equivalent(m, spec) {
        return Ok(r);
    }
    let report = cosim(
        spec,
        &CosimOptions {
            stimulus: stimulus.clone(),
            cycles,
            seed,
            waves: None,
            mutant: Some(m),
            out_dir: PathBuf::from("."),
            command: String::new(),
            shrink: false,
            progress: None,
        },
    )?;
    Ok(MutantResult::of(m, report.failure.as_ref()))
}

/// Deliberately wrong variants of the OT predictor's RTL.
pub const MUTANTS: &[Mutant] = &[
    Mutant {
        name: "lru-not-updated-on-hit",
        description: "replacement state is updated on allocation only, not when an entry is hit",
        file: "ws_ot_predictor.sv",
        find: "assign touch_valid = obs_do;",
        replace: "assign touch_valid = obs_do & ~obs_hit;",
        unreachable: always_reachable,
    },
    Mutant {
        name: "stride-sign-flipped",
        description: "a learned grid-dimension stride is stored negated",
        file: "ws_ot_predictor.sv",
        find: "obs_new.stride[d]       = StrideW'(obs_quot);",
        replace: "obs_new.stride[d]       = StrideW'(-obs_quot);",
        unreachable: always_reachable,
    },
    Mutant {
        name: "inter-warp-stride-not-subtracted",
        description: "step 4: the inter-warp offset is not subtracted before dividing by the block distance",
        file: "ws_ot_predictor.sv",
        find: "obs_known_sum = obs_known_sum + calc_t'(obs_dw) * signed_of(obs_e.iws);",
        replace: "obs_known_sum = obs_known_sum;",
        unreachable: always_reachable,
    },
    Mutant {
        name: "mispredict-counter-stuck",
        description: "the mispredict counter never increments",
        file: "ws_ot_predictor.sv",
        find: "obs_new.mispredicts = obs_e.mispredicts + CntW'(1);",
        replace: "obs_new.mispredicts = obs_e.mispredicts;",
        unreachable: always_reachable,
    },
    Mutant {
        name: "wrong-victim-way",
        description: "a full set replaces the way the policy did not choose",
        file: "ws_ot_predictor.sv",
        find: "(obs_free ? obs_free_way : victim_way);",
        replace: "(obs_free ? obs_free_way : ~victim_way);",
        unreachable: always_reachable,
    },
    Mutant {
        name: "predicted-address-one-bit-short",
        description: "predicted addresses are computed one bit narrower than AddrW (off-by-one width)",
        file: "ws_ot_predictor.sv",
        find: "pred_addr_d[i] = AddrW'(unsigned_of(pred_e.addr[i]) + pred_off);",
        replace: "pred_addr_d[i] = AddrW'((AddrW-1)'(unsigned_of(pred_e.addr[i]) + pred_off));",
        unreachable: always_reachable,
    },
    Mutant {
        name: "threshold-off-by-one",
        description: "an entry stops predicting when its counter reaches the threshold instead of exceeding it",
        file: "ws_ot_predictor.sv",
        find: "(32'(pred_e.mispredicts) <= Threshold);",
        replace: "(32'(pred_e.mispredicts) < Threshold);",
        unreachable: always_reachable,
    },
    Mutant {
        name: "launch-does-not-flush",
        description: "a kernel launch keeps the previous kernel's entries",
        file: "ws_ot_predictor.sv",
        find: "      valid_d     = '{default: '0};\n",
        replace: "      valid_d     = valid_q;\n",
        unreachable: always_reachable,
    },
];

/// The OT predictor in the block registry.
pub const ENTRY: crate::registry::BlockEntry = crate::registry::BlockEntry {
    name: "ot",
    title: "observation-table address predictor (seed 000)",
    seed: "000",
    ports: |s| s.ot.ports(),
    render: rtlgen::ot,
    cost: golden::cost::ot_cost,
    mutants: MUTANTS,
};
