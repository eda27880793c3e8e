//! Co-simulation of the locality-aware dispatcher's decision unit: the golden
//! [`DispatchUnit`] and its RTL in lockstep, driven by random traffic or by a kernel's blocks.
//!
//! Stimulus:
//! * `random` — seeded traffic that stresses the unit: rectangles from a small window (so
//!   overlaps are common) with some arrays absent; phases of enqueue bursts (the queue fills),
//!   droughts (it empties), bursts of completions, and a consumer that is not always ready;
//! * `kernel:NAME` — a kernel's blocks in order (relaunched until the run ends), each finishing
//!   after the completion model's time, completions reported one per cycle, the SM always
//!   ready: exactly how the dispatch simulation's `locality` policy drives the unit;
//! * a JSON-lines FILE — one cycle's inputs per line, open loop (what a failure's minimal
//!   reproducer is written as): `{"enq":{"id":N,"rects":[{"x":N,"y":N,"w":N,"h":N},null,...]},
//!   "done":[SM,SLOT],"disp_ready":true}` (every field optional).
//!
//! On a mismatch the run's inputs up to the failing cycle are replayed and shrunk (delta
//! debugging over cycles, keeping only input sequences the golden unit accepts) to a minimal
//! reproducer file and its VCD.

use crate::build::BuiltModel;
use crate::lockstep::{Lockstep, StepFail};
use crate::model::Model;
use crate::mutants::{self, always_reachable, Mutant};
use crate::report::Failure;
use crate::{CosimError, SimError};
use golden::block::mask;
use golden::dispatch::{access_ranges, BlockTimes, DispatchUnit, Entry, Rect, UnitIn, UnitOut};
use golden::rng::Rng;
use serde::Serialize;
use spec::Spec;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::time::Instant;

/// Cycles simulated when `--cycles` is not given.
pub const DEFAULT_CYCLES: u64 = 200_000;

/// Where the unit's inputs come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DispStimulus {
    Random,
    Kernel(String),
    File(PathBuf),
}

impl std::str::FromStr for DispStimulus {
    type Err = CosimError;
    fn from_str(s: &str) -> Result<DispStimulus, CosimError> {
        if s == "random" {
            Ok(DispStimulus::Random)
        } else if let Some(k) = s.strip_prefix("kernel:") {
            Ok(DispStimulus::Kernel(k.to_string()))
        } else {
            Ok(DispStimulus::File(PathBuf::from(s)))
        }
    }
}

impl std::fmt::Display for DispStimulus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DispStimulus::Random => write!(f, "random"),
            DispStimulus::Kernel(k) => write!(f, "kernel:{k}"),
            DispStimulus::File(p) => write!(f, "{}", p.display()),
        }
    }
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

/// Produces the unit's input for each cycle from its previous outputs.
struct Driver {
    rng: Rng,
    kind: Kind,
    /// Running blocks the driver knows of: (end cycle, SM, slot) for kernels; (SM, slot) for
    /// random traffic.
    running: Vec<(u64, u32, u32)>,
    done: VecDeque<(u32, u32)>,
    next_id: u64,
    phase: u32,
    phase_left: u32,
}

enum Kind {
    File(VecDeque<UnitIn>),
    Random {
        arrays: usize,
        coord_max: u64,
        id_mask: u64,
    },
    Kernel {
        entries: Vec<Entry>,
        times: BlockTimes,
        id_mask: u64,
    },
}

impl Driver {
    fn new(spec: &Spec, stim: &DispStimulus, seed: u64) -> Result<Driver, CosimError> {
        let d = &spec.dispatch;
        let kind = match stim {
            DispStimulus::File(path) => Kind::File(read_file(path)?.into()),
            DispStimulus::Random => Kind::Random {
                arrays: d.arrays as usize,
                coord_max: mask(d.coord_bits),
                id_mask: mask(d.id_bits),
            },
            DispStimulus::Kernel(name) => {
                let k = golden::dispatch::kernel(name)
                    .map_err(|e| CosimError::BadInput(e.to_string()))?;
                let rects = access_ranges(&k, spec.gpu.line_bytes)
                    .map_err(|e| CosimError::BadInput(e.to_string()))?;
                let entries = rects
                    .iter()
                    .enumerate()
                    .map(|(b, r)| {
                        golden::dispatch::unit_rects(d, b as u64, r)
                            .map(|rects| Entry { id: 0, rects })
                            .map_err(|m| CosimError::BadInput(format!("kernel `{}`: {m}", k.name)))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                Kind::Kernel {
                    entries,
                    times: BlockTimes::Model {
                        base: d.block_cycles.into(),
                        seed,
                    },
                    id_mask: mask(d.id_bits),
                }
            }
        };
        Ok(Driver {
            rng: Rng::new(seed),
            kind,
            running: Vec::new(),
            done: VecDeque::new(),
            next_id: 0,
            phase: 0,
            phase_left: 0,
        })
    }

    /// The input of cycle `t`, given the outputs after the previous edge.
    fn next(&mut self, t: u64, prev: &UnitOut) -> UnitIn {
        if let Kind::File(q) = &mut self.kind {
            return q.pop_front().unwrap_or_default();
        }
        match &self.kind {
            Kind::File(_) => UnitIn::default(),
            Kind::Kernel {
                entries,
                times,
                id_mask,
            } => {
                // The offered block is committed at this edge (the SM is always ready).
                if let Some((id, sm, slot)) = prev.disp {
                    self.running.push((t + times.of(id.into()), sm, slot));
                }
                self.running.sort_unstable();
                while self.running.first().is_some_and(|r| r.0 <= t) {
                    let (_, sm, slot) = self.running.remove(0);
                    self.done.push_back((sm, slot));
                }
                let enq = prev.enq_ready.then(|| {
                    // The grid is relaunched when it runs out; ids count on, wrapping at the id
                    // width.
                    let b = self.next_id % entries.len() as u64;
                    let mut e = entries[b as usize].clone();
                    e.id = (self.next_id & id_mask) as u32;
                    self.next_id += 1;
                    e
                });
                UnitIn {
                    enq,
                    done: self.done.pop_front(),
                    disp_ready: true,
                }
            }
            Kind::Random {
                arrays,
                coord_max,
                id_mask,
            } => {
                let (arrays, coord_max, id_mask) = (*arrays, *coord_max, *id_mask);
                if self.phase_left == 0 {
                    // 0 steady, 1 enqueue burst, 2 drought, 3 completion burst, 4 stalled SMs.
                    self.phase = self.rng.below(5) as u32;
                    self.phase_left = 20 + self.rng.below(200) as u32;
                }
                self.phase_left -= 1;
                let ready = match self.phase {
                    4 => self.rng.chance(100),
                    _ => self.rng.chance(850),
                };
                if let (Some((_, sm, slot)), true) = (prev.disp, ready) {
                    self.running.push((0, sm, slot));
                }
                let p_done = match self.phase {
                    3 => 900,
                    2 => 300,
                    _ => 150,
                };
                // A block finishes only after the edge that dispatched it: pick among those
                // known before this cycle's commit.
                let known = self.running.len() - usize::from(prev.disp.is_some() && ready);
                let done = (known > 0 && self.rng.chance(p_done)).then(|| {
                    let i = self.rng.below(known as u64) as usize;
                    let (_, sm, slot) = self.running.swap_remove(i);
                    (sm, slot)
                });
                let p_enq = match self.phase {
                    1 => 1000,
                    2 => 30,
                    _ => 500,
                };
                let enq = (prev.enq_ready && self.rng.chance(p_enq)).then(|| {
                    // A small window so that rectangles overlap often; now and then the edge
                    // of the coordinate range.
                    let span = if self.rng.chance(50) {
                        coord_max
                    } else {
                        24.min(coord_max)
                    };
                    let rects = (0..arrays)
                        .map(|_| {
                            (!self.rng.chance(150)).then(|| {
                                let x = self.rng.below(span + 1);
                                let y = self.rng.below(span + 1);
                                Rect {
                                    x,
                                    y,
                                    w: 1 + self.rng.below(8.min(coord_max)),
                                    h: 1 + self.rng.below(8.min(coord_max)),
                                }
                            })
                        })
                        .collect();
                    let id = (self.next_id & id_mask) as u32;
                    self.next_id += 1;
                    Entry { id, rects }
                });
                UnitIn {
                    enq,
                    done,
                    disp_ready: ready,
                }
            }
        }
    }
}

/// Parse a JSON-lines input file (one cycle per line; blank lines and `#` comments skipped).
pub fn read_file(path: &std::path::Path) -> Result<Vec<UnitIn>, CosimError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        CosimError::BadInput(format!("cannot read stimulus {}: {e}", path.display()))
    })?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        out.push(serde_json::from_str(line).map_err(|e| {
            CosimError::BadInput(format!(
                "{}:{}: not a dispatcher input line ({e}); expected {{\"enq\":{{\"id\":N,\"rects\":[...]}},\"done\":[SM,SLOT],\"disp_ready\":BOOL}}",
                path.display(),
                n + 1
            ))
        })?);
    }
    Ok(out)
}

/// How to run.
pub struct DispOptions<'a> {
    pub stimulus: DispStimulus,
    pub cycles: Option<u64>,
    pub seed: u64,
    pub waves: Option<PathBuf>,
    pub mutant: Option<&'static Mutant>,
    pub command: String,
    /// Shrink a failure to a minimal reproducer in `out_dir`.
    pub shrink: bool,
    pub out_dir: PathBuf,
    pub progress: Option<&'a dyn Fn(u64, u64, f64)>,
}

/// Result of a co-simulation.
#[derive(Debug, Clone, Serialize)]
pub struct DispReport {
    pub block: &'static str,
    pub config: String,
    pub config_hash: String,
    pub stimulus: String,
    pub seed: u64,
    pub mutant: Option<&'static str>,
    pub cycles: u64,
    /// Blocks enqueued and dispatch decisions committed.
    pub enqueued: u64,
    pub dispatched: u64,
    pub seconds: f64,
    pub cycles_per_second: f64,
    pub build_seconds: f64,
    pub model_cached: bool,
    pub result: &'static str,
    pub failure: Option<Failure>,
}

/// Co-simulate the decision unit.
pub fn cosim(spec: &Spec, opts: &DispOptions) -> Result<DispReport, CosimError> {
    let cycles = opts.cycles.unwrap_or(match &opts.stimulus {
        DispStimulus::File(p) => read_file(p)?.len() as u64,
        _ => DEFAULT_CYCLES,
    });
    let mut driver = Driver::new(spec, &opts.stimulus, opts.seed)?;
    let (built, mut rtl) = build_model(spec, opts.mutant, opts.waves.is_some())?;
    if let Some(w) = &opts.waves {
        rtl.open_vcd(w)?;
    }
    let mut ls = Lockstep::new(DispatchUnit::new(&spec.dispatch), rtl)?;
    let mut prev = UnitOut {
        enq_ready: true,
        disp: None,
    };
    let mut last: VecDeque<String> = VecDeque::new();
    let (mut enqueued, mut dispatched) = (0u64, 0u64);
    let start = Instant::now();
    let mut next_report = 1.0;
    let mut failure = None;
    for t in 0..cycles {
        let inp = driver.next(t, &prev);
        if last.len() == 8 {
            last.pop_front();
        }
        last.push_back(format!(
            "{{\"cycle\":{t},\"in\":{}}}",
            serde_json::to_string(&inp).unwrap_or_default()
        ));
        enqueued += u64::from(inp.enq.is_some());
        dispatched += u64::from(prev.disp.is_some() && inp.disp_ready);
        match ls.step(&inp) {
            Ok(o) => prev = o,
            Err(e) => {
                let mut f = failure_of(spec, opts, t, e, &last);
                if opts.shrink {
                    shrink_failure(spec, opts, t, &mut f)?;
                }
                failure = Some(f);
                break;
            }
        }
        if let Some(p) = opts.progress {
            if t & 0x3fff == 0 {
                let s = start.elapsed().as_secs_f64();
                if s >= next_report {
                    next_report = s + 1.0;
                    p(t, cycles, t as f64 / s);
                }
            }
        }
    }
    ls.mirror.rtl.close_vcd();
    let seconds = start.elapsed().as_secs_f64();
    let done = ls.cycle();
    Ok(DispReport {
        block: "dispatch",
        config: spec.name.clone(),
        config_hash: spec.hash.to_string(),
        stimulus: opts.stimulus.to_string(),
        seed: opts.seed,
        mutant: opts.mutant.map(|m| m.name),
        cycles: done,
        enqueued,
        dispatched,
        seconds,
        cycles_per_second: done as f64 / seconds.max(1e-9),
        build_seconds: built.seconds,
        model_cached: !built.built_now,
        result: if failure.is_none() { "pass" } else { "fail" },
        failure,
    })
}

fn failure_of(
    _spec: &Spec,
    opts: &DispOptions,
    t: u64,
    e: StepFail,
    last: &VecDeque<String>,
) -> Failure {
    let mut reproduce = format!(
        "{} --stimulus {} --seed {} --cycles {}",
        opts.command,
        opts.stimulus,
        opts.seed,
        t + 1
    );
    if let Some(m) = opts.mutant {
        reproduce.push_str(&format!(" --mutant {}", m.name));
    }
    let mut f = Failure::new(t, opts.seed, last.iter().cloned().collect(), reproduce);
    let illegal = matches!(e, StepFail::Illegal(_));
    f.record(e);
    if illegal {
        f.kind = "illegal-input";
    }
    f
}

/// Co-simulate one mutant (no waves) and say whether it was caught.
pub fn run_mutant(
    spec: &Spec,
    m: &'static Mutant,
    stimulus: &DispStimulus,
    cycles: Option<u64>,
    seed: u64,
) -> Result<mutants::MutantResult, CosimError> {
    if let Some(r) = mutants::MutantResult::equivalent(m, spec) {
        return Ok(r);
    }
    let r = cosim(
        spec,
        &DispOptions {
            stimulus: stimulus.clone(),
            cycles,
            seed,
            waves: None,
            mutant: Some(m),
            command: String::new(),
            shrink: false,
            out_dir: PathBuf::from("."),
            progress: None,
        },
    )?;
    Ok(mutants::MutantResult::of(m, r.failure.as_ref()))
}

/// The unit's inputs over `cycles` cycles of `stim`, driven closed-loop by the golden unit
/// (for benchmarks: the same inputs for every measurement).
pub fn record_inputs(
    spec: &Spec,
    stim: &DispStimulus,
    cycles: u64,
    seed: u64,
) -> Result<Vec<UnitIn>, CosimError> {
    use golden::block::CycleModel;
    let mut driver = Driver::new(spec, stim, seed)?;
    let mut unit = DispatchUnit::new(&spec.dispatch);
    let mut prev = UnitOut {
        enq_ready: true,
        disp: None,
    };
    let mut inputs = Vec::with_capacity(cycles as usize);
    for t in 0..cycles {
        let inp = driver.next(t, &prev);
        prev = *unit
            .step(&inp)
            .map_err(|e| CosimError::BadInput(e.to_string()))?;
        inputs.push(inp);
    }
    Ok(inputs)
}

/// Whether `inputs`, from reset, make the RTL disagree with the golden unit (inputs the golden
/// unit refuses do not count).
fn fails(ls: &mut Lockstep<DispatchUnit>, inputs: &[UnitIn]) -> bool {
    if ls.reset().is_err() {
        return false;
    }
    for i in inputs {
        match ls.step(i) {
            Ok(_) => {}
            Err(StepFail::Illegal(_)) => return false,
            Err(_) => return true,
        }
    }
    false
}

/// Replay the failing run's inputs, shrink them, and write the reproducer and its VCD.
fn shrink_failure(
    spec: &Spec,
    opts: &DispOptions,
    t: u64,
    f: &mut Failure,
) -> Result<(), CosimError> {
    let inputs = match &opts.stimulus {
        DispStimulus::File(p) => read_file(p)?.into_iter().take(t as usize + 1).collect(),
        s => record_inputs(spec, s, t + 1, opts.seed)?,
    };
    let (_, rtl) = build_model(spec, opts.mutant, false)?;
    let mut ls = Lockstep::new(DispatchUnit::new(&spec.dispatch), rtl)?;
    if !fails(&mut ls, &inputs) {
        return Ok(());
    }
    let minimal = crate::shrink::minimize(&inputs, |cand| fails(&mut ls, cand));
    std::fs::create_dir_all(&opts.out_dir).map_err(|e| {
        CosimError::Sim(SimError::Io(format!(
            "cannot create {}: {e}",
            opts.out_dir.display()
        )))
    })?;
    let stem = format!("dispatch-repro-seed{}", opts.seed);
    let repro = opts.out_dir.join(format!("{stem}.jsonl"));
    let text: String = minimal
        .iter()
        .map(|i| serde_json::to_string(i).unwrap_or_default() + "\n")
        .collect();
    std::fs::write(&repro, text).map_err(|e| {
        CosimError::Sim(SimError::Io(format!(
            "cannot write {}: {e}",
            repro.display()
        )))
    })?;
    f.reproducer = Some(repro.display().to_string());
    f.reproducer_transactions = Some(minimal.len());
    let mut cmd = format!("{} --stimulus {}", opts.command, repro.display());
    if let Some(m) = opts.mutant {
        cmd.push_str(&format!(" --mutant {}", m.name));
    }
    f.reproducer_command = Some(cmd);
    let vcd = opts.out_dir.join(format!("{stem}.vcd"));
    let (_, mut traced) = build_model(spec, opts.mutant, true)?;
    if traced.open_vcd(&vcd).is_ok() {
        let mut ls = Lockstep::new(DispatchUnit::new(&spec.dispatch), traced)?;
        let _ = fails(&mut ls, &minimal);
        ls.mirror.rtl.close_vcd();
        f.vcd = Some(vcd.display().to_string());
    }
    Ok(())
}

/// Deliberately wrong variants of the decision unit's RTL.
pub const MUTANTS: &[Mutant] = &[
    Mutant {
        name: "here-lowest-wins",
        description: "the entry sharing the fewest lines with the target SM wins",
        file: "ws_dispatch.sv",
        find: "if (!here_valid_n || here > here_best_n) begin",
        replace: "if (!here_valid_n || here < here_best_n) begin",
        unreachable: always_reachable,
    },
    Mutant {
        name: "ties-go-to-youngest",
        description: "among entries sharing as many lines, the youngest wins",
        file: "ws_dispatch.sv",
        find: "if (!here_valid_n || here > here_best_n) begin",
        replace: "if (!here_valid_n || here >= here_best_n) begin",
        unreachable: always_reachable,
    },
    Mutant {
        name: "fallback-most-shared-elsewhere",
        description:
            "without overlap on the target SM, the entry sharing the most with other SMs wins",
        file: "ws_dispatch.sv",
        find: "if (!else_valid_n || elsewhere < else_best_n) begin",
        replace: "if (!else_valid_n || elsewhere > else_best_n) begin",
        unreachable: always_reachable,
    },
    Mutant {
        name: "no-zero-overlap-fallback",
        description: "with no overlap anywhere on the target SM, the fallback rule is skipped",
        file: "ws_dispatch.sv",
        find: "(here_valid_n && here_best_n != '0) ? here_idx_n : else_idx_n;",
        replace: "here_idx_n;",
        unreachable: always_reachable,
    },
    Mutant {
        name: "sm-round-robin-stuck",
        description: "the SM round-robin pointer never moves",
        file: "ws_dispatch.sv",
        find: "rr_sm_d      = SmW'((32'(free_sm) + 1) % NumSms);",
        replace: "rr_sm_d      = rr_sm_q;",
        unreachable: always_reachable,
    },
    Mutant {
        name: "queue-not-compacted",
        description: "a dispatched entry's younger neighbours do not move up",
        file: "ws_dispatch.sv",
        find: "if (q >= 32'(offer_idx_q)) begin",
        replace: "if (q >= 32'(offer_idx_q) + NumQueue) begin",
        unreachable: always_reachable,
    },
    Mutant {
        name: "done-ignored",
        description: "a finished block never frees its slot",
        file: "ws_dispatch.sv",
        find: "run_valid_d[32'(done_sm_i) * NumSlots + 32'(done_slot_i)] = 1'b0;",
        replace: "run_valid_d[32'(done_sm_i) * NumSlots + 32'(done_slot_i)] = 1'b1;",
        unreachable: always_reachable,
    },
    Mutant {
        name: "overlap-not-clipped",
        description: "disjoint rectangles count a wrapped-around overlap",
        file: "ws_dispatch.sv",
        find: "ix = (hi_x > lo_x) ? CoordW'(hi_x - lo_x) : '0;",
        replace: "ix = CoordW'(hi_x - lo_x);",
        unreachable: always_reachable,
    },
    Mutant {
        name: "last-free-slot",
        description: "the decision takes the SM's last free slot instead of its first",
        file: "ws_dispatch.sv",
        find: "if (!slot_found && !run_valid_q[32'(scan_sm_q) * NumSlots + k]) begin",
        replace: "if (!run_valid_q[32'(scan_sm_q) * NumSlots + k]) begin",
        unreachable: always_reachable,
    },
];

/// The dispatcher's decision unit in the block registry.
pub const ENTRY: crate::registry::BlockEntry = crate::registry::BlockEntry {
    name: "dispatch",
    title: "locality-aware thread-block dispatcher (seed 002)",
    seed: "002",
    ports: |s| s.dispatch.ports(),
    render: rtlgen::dispatch,
    cost: golden::cost::dispatch_cost,
    mutants: MUTANTS,
};
