//! The co-simulation harness, written once for every block: options, the cycle budget,
//! progress, the failure report, the reproduce command, shrinking to a minimal reproducer, its
//! waves, and mutant runs. A block supplies a [`Driver`]: its stimulus (open- or closed-loop,
//! with the golden model in charge of the block's inputs), its codec and its statistics.
//!
//! Rules every block follows here: cycles are numbered from 1; input a golden model refuses is
//! bad input (exit 2), named by its file and line or stimulus item; a run that compared nothing
//! that matters is not a pass; a reproducer is named by block, config hash, stimulus, seed,
//! options and mutant, so no two runs overwrite each other's.

use crate::block::BlockInfo;
use crate::lockstep::{Mirror, StepFail};
use crate::mutants::Mutant;
use crate::progress;
use crate::report::{CosimReport, Failure, Reproducer, Timing, Verdict};
use crate::{CosimError, SimError};
use golden::block::{BlockModel, Codec, CycleModel};
use golden::run::BlockOpts;
use serde::Serialize;
use spec::Spec;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Cycles simulated when `--cycles` is not given and the stimulus does not end by itself.
pub const DEFAULT_CYCLES: u64 = 200_000;

/// Items of the stimulus shown in a failure report.
const LAST_ITEMS: usize = 8;

/// How to run a co-simulation.
#[derive(Debug, Clone)]
pub struct CosimOptions {
    /// `--stimulus`, as the block parses it.
    pub stimulus: String,
    /// Cycle budget (`None`: [`DEFAULT_CYCLES`], or the whole stimulus if it ends by itself).
    pub cycles: Option<u64>,
    pub seed: u64,
    /// Write a VCD of the whole run here (builds a traced model).
    pub waves: Option<PathBuf>,
    pub mutant: Option<&'static Mutant>,
    /// Folder for the minimal reproducer and its VCD.
    pub out_dir: PathBuf,
    /// Shrink a failing stimulus to a minimal reproducer.
    pub shrink: bool,
    /// Show progress bars on a terminal.
    pub progress: bool,
    /// The block's own options.
    pub opts: BlockOpts,
    /// The configuration as command-line words (`--preset tiny --set k=v`), for reproduce
    /// commands.
    pub config_args: Vec<String>,
}

impl CosimOptions {
    /// The stimulus a driver is asked for.
    pub fn stim(&self) -> Stim<'_> {
        Stim {
            text: &self.stimulus,
            seed: self.seed,
            opts: &self.opts,
        }
    }

    /// Options for a quiet run of `stimulus` (tests, `flow`, mutants).
    pub fn quiet(stimulus: &str, cycles: Option<u64>, seed: u64) -> CosimOptions {
        CosimOptions {
            stimulus: stimulus.to_string(),
            cycles,
            seed,
            waves: None,
            mutant: None,
            out_dir: PathBuf::from("warpsmith-out"),
            shrink: false,
            progress: false,
            opts: BlockOpts::default(),
            config_args: Vec::new(),
        }
    }
}

/// How a driver's run ended.
#[derive(Debug)]
pub enum Ended {
    /// The cycle budget or the stimulus ran out.
    Completed,
    /// A compared cycle failed.
    Failed(StepFail),
}

/// The block's golden model.
pub type ModelOf<D> = <<D as Driver>::Block as BlockModel>::Model;
/// The block's codec.
pub type CodecOf<D> = <<D as Driver>::Block as BlockModel>::Codec;
/// The block's inputs of one cycle.
pub type In<D> = <ModelOf<D> as CycleModel>::In;
/// The block's outputs of one cycle.
pub type Out<D> = <ModelOf<D> as CycleModel>::Out;

/// The stimulus a driver is asked for: `--stimulus`, the seed, the block's options.
#[derive(Debug, Clone, Copy)]
pub struct Stim<'a> {
    pub text: &'a str,
    pub seed: u64,
    pub opts: &'a BlockOpts,
}
/// A stimulus as reports show it (`hoa@2.5`, a file's path, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StimulusName {
    pub name: String,
    /// It ends by itself (a file, a replay), instead of running until the cycle budget.
    pub finite: bool,
    /// What its items are called (`transactions`, `requests`, `cycle inputs`).
    pub items: &'static str,
}

impl StimulusName {
    pub fn new(name: impl std::fmt::Display, finite: bool, items: &'static str) -> StimulusName {
        StimulusName {
            name: name.to_string(),
            finite,
            items,
        }
    }
}

/// What a driver calls for every compared cycle.
pub type Check<'a, D> = dyn FnMut(&In<D>, &Out<D>) -> Result<(), StepFail> + 'a;

/// A block's co-simulation driver: it produces the block's inputs each cycle (from a stimulus,
/// open loop, or from the golden model's previous outputs, closed loop), steps the golden model
/// and hands both to the harness, which drives the RTL and compares.
pub trait Driver: Sized {
    /// The block: its golden model and codec.
    type Block: BlockModel;
    /// One unit of stimulus; a reproducer file holds one per line, as JSON.
    type Item: Clone + std::fmt::Debug + Serialize;
    /// The block's statistics.
    type Stats: CosimStats;

    /// The configuration the block is co-simulated under: `spec`, or a variant the block needs
    /// (a new layer on top of it, or an error if the user chose against it).
    fn prepare(spec: &Spec) -> Result<Spec, CosimError> {
        Ok(spec.clone())
    }
    /// Parse and check the stimulus up front (a file with its lines), with the block's options.
    fn new(spec: &Spec, s: &Stim<'_>) -> Result<Self, CosimError>;
    /// A driver that runs exactly `items` from reset (shrinking; reproducer files read back
    /// through [`Driver::new`]).
    fn replay(&self, items: Vec<Self::Item>) -> Self;
    /// The stimulus as reports show it, and whether it ends by itself.
    fn stimulus(&self) -> StimulusName;
    /// The `--stimulus` that replays a reproducer file at `path` the way this run ran (a
    /// driver with modes keeps its mode).
    fn replay_stimulus(&self, path: &str) -> String {
        path.to_string()
    }
    /// Run from reset until `limit` compared cycles, the end of the stimulus, or a failed
    /// check. An input the golden model refuses is [`CosimError::BadInput`], naming it.
    fn run(&mut self, limit: u64, check: &mut Check<'_, Self>) -> Result<Ended, CosimError>;
    /// After a run: the stimulus items it consumed (what shrinking cuts down).
    fn consumed(&self) -> Vec<Self::Item>;
    /// The statistics of the last run.
    fn stats(&self) -> &Self::Stats;
}

/// A block's statistics of one co-simulation run.
pub trait CosimStats: Serialize {
    /// The events without which a run checked nothing that matters, as in "no {CHECKED} in
    /// 2000 cycles" (`request completed`).
    const CHECKED: &'static str;
    /// How many of those events the run had: a run with none does not pass.
    fn checked(&self) -> u64;
    /// The statistics as lines of the text report.
    fn summary(&self) -> Vec<String>;
}

fn io(what: &str, path: &Path, e: std::io::Error) -> String {
    format!("cannot {what} {}: {e}", path.display())
}

/// The block's RTL model for the run, built (or fetched) behind a spinner.
fn build(
    block: &BlockInfo,
    spec: &Spec,
    mutant: Option<&Mutant>,
    trace: bool,
    show: bool,
) -> Result<(crate::build::BuiltModel, crate::model::Model), CosimError> {
    let spinner = progress::spinner(
        show,
        &format!(
            "building the Verilator model of {} ({})",
            block.name, spec.name
        ),
    );
    let r = crate::rtl::block_model(spec, block, mutant, trace);
    spinner.finish_and_clear();
    r
}

/// A name part made of `[A-Za-z0-9._-]`.
fn slug(s: &str) -> String {
    let s: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    s.trim_matches('-').to_string()
}

/// The stimulus as a name part: a file by its stem, `hoa@2.5` as `hoa-2.5`.
fn stimulus_slug(stimulus: &str) -> String {
    let p = Path::new(stimulus.strip_prefix("kernel:").unwrap_or(stimulus));
    let kernel = if stimulus.starts_with("kernel:") {
        "kernel-"
    } else {
        ""
    };
    let stem = if p.is_file() || stimulus.ends_with(".toml") || stimulus.ends_with(".jsonl") {
        p.file_stem().map(|s| s.to_string_lossy().into_owned())
    } else {
        None
    };
    slug(&format!(
        "{kernel}{}",
        stem.unwrap_or_else(|| stimulus.strip_prefix("kernel:").unwrap_or(stimulus).into())
    ))
}

/// A co-simulation of `block` with driver `D`.
pub fn cosim<D: Driver>(
    block: &'static BlockInfo,
    spec: &Spec,
    o: &CosimOptions,
) -> Result<CosimReport, CosimError> {
    check_cycles(o.cycles)?;
    let spec = D::prepare(spec)?;
    let mut driver = D::new(&spec, &o.stim())?;
    let stimulus = driver.stimulus();
    let codec = D::Block::codec(&spec)?;
    let limit = match o.cycles {
        Some(n) => n,
        None if stimulus.finite => u64::MAX,
        None => DEFAULT_CYCLES,
    };
    let (built, mut rtl) = build(block, &spec, o.mutant, o.waves.is_some(), o.progress)?;
    if let Some(w) = &o.waves {
        rtl.open_vcd(w)?;
    }
    let mut mirror = Mirror::new(rtl, codec.ports())?;
    let bar = progress::cycles(o.progress, limit);
    let start = Instant::now();
    let ended = driver.run(limit, &mut |i, out| {
        let r = mirror.check(&codec, i, out);
        if mirror.cycle & 0xfff == 0 {
            bar.set_position(mirror.cycle);
        }
        r
    });
    bar.finish_and_clear();
    mirror.rtl.close_vcd();
    let ended = ended?;
    let seconds = start.elapsed().as_secs_f64();
    let cycles = mirror.cycle;
    let stats = driver.stats();
    let (verdict, nothing_checked, failure) = match ended {
        Ended::Failed(fail) => {
            let Some(mut f) = Failure::of(&fail, o.seed) else {
                return Err(match fail {
                    StepFail::Illegal(e) => CosimError::BadInput(format!("{}: {e}", stimulus.name)),
                    StepFail::Rtl { error, .. } => CosimError::Sim(error),
                    StepFail::Mismatch(_) => unreachable!("a mismatch is a failure"),
                });
            };
            let items = driver.consumed();
            f.last_items = items[items.len().saturating_sub(LAST_ITEMS)..]
                .iter()
                .map(|i| serde_json::to_string(i).unwrap_or_default())
                .collect();
            f.reproduce = reproduce(block, o, &stimulus, Some(f.cycle));
            if o.shrink {
                match reproducer::<D>(
                    block,
                    &spec,
                    o,
                    &driver,
                    &codec,
                    &mut mirror,
                    items,
                    f.cycle,
                ) {
                    Ok(r) => f.reproducer = r,
                    Err(e) => f.reproducer_error = Some(e),
                }
            }
            (Verdict::Fail, None, Some(f))
        }
        Ended::Completed => match Verdict::of_run(stats.checked()) {
            Verdict::NothingChecked => (
                Verdict::NothingChecked,
                Some(golden::run::nothing_checked(
                    <D::Stats as CosimStats>::CHECKED,
                    cycles,
                )),
                None,
            ),
            v => (v, None, None),
        },
    };
    Ok(CosimReport {
        block: block.name,
        config: spec.name.clone(),
        config_hash: spec.hash.to_string(),
        stimulus: stimulus.name,
        seed: o.seed,
        mutant: o.mutant.map(|m| m.name.as_str()),
        cycles,
        verdict,
        nothing_checked,
        summary: stats.summary(),
        stats: serde_json::to_value(stats).unwrap_or_default(),
        failure,
        timing: Timing {
            seconds,
            cycles_per_second: cycles as f64 / seconds.max(1e-9),
            build_seconds: built.seconds,
            model_cached: !built.built_now,
        },
    })
}

/// A cycle budget of 0 checks nothing: bad input (callers that write output check it first).
pub fn check_cycles(cycles: Option<u64>) -> Result<(), CosimError> {
    if cycles == Some(0) {
        return Err(CosimError::BadInput(
            "--cycles 0 would check nothing: give at least 1 cycle".into(),
        ));
    }
    Ok(())
}

/// The command that runs `stimulus` again, quoted for the shell.
fn reproduce(
    block: &BlockInfo,
    o: &CosimOptions,
    stimulus: &StimulusName,
    cycles: Option<u64>,
) -> String {
    let mut argv: Vec<String> = ["warpsmith", "cosim", "--block", block.name]
        .iter()
        .map(|s| s.to_string())
        .collect();
    argv.extend(o.config_args.iter().cloned());
    argv.push("--stimulus".into());
    argv.push(stimulus.name.clone());
    if !stimulus.finite {
        argv.push("--seed".into());
        argv.push(o.seed.to_string());
    }
    if let Some(n) = cycles {
        argv.push("--cycles".into());
        argv.push(n.to_string());
    }
    argv.extend(o.opts.args());
    if let Some(m) = o.mutant {
        argv.push("--mutant".into());
        argv.push(m.name.clone());
    }
    shlex::try_join(argv.iter().map(String::as_str)).unwrap_or_else(|_| argv.join(" "))
}

/// Replay `items` from reset against the RTL: whether it fails (mismatch or assertion) within
/// `limit` cycles. Input the golden model refuses does not count as failing.
fn fails<D: Driver>(
    driver: &D,
    codec: &CodecOf<D>,
    mirror: &mut Mirror,
    items: &[D::Item],
    limit: u64,
) -> bool {
    if mirror.reset().is_err() {
        return false;
    }
    let mut d = driver.replay(items.to_vec());
    matches!(
        d.run(limit, &mut |i, out| mirror.check(codec, i, out)),
        Ok(Ended::Failed(
            StepFail::Mismatch(_)
                | StepFail::Rtl {
                    error: SimError::Assertion(_),
                    ..
                }
        ))
    )
}

/// Shrink the failing stimulus, write the minimal reproducer and its VCD into the output
/// folder. An error says why no reproducer could be written; the failure report stands.
#[allow(clippy::too_many_arguments)]
fn reproducer<D: Driver>(
    block: &BlockInfo,
    spec: &Spec,
    o: &CosimOptions,
    driver: &D,
    codec: &CodecOf<D>,
    mirror: &mut Mirror,
    items: Vec<D::Item>,
    cycle: u64,
) -> Result<Option<Reproducer>, String> {
    if !fails(driver, codec, mirror, &items, cycle) {
        return Ok(None);
    }
    let spinner = progress::spinner(o.progress, "shrinking the failing stimulus");
    let minimal = crate::shrink::minimize(&items, |cand| fails(driver, codec, mirror, cand, cycle));
    spinner.finish_and_clear();
    let mut stem = format!(
        "{}-{}-{}-seed{}",
        block.name,
        spec.hash,
        stimulus_slug(&o.stimulus),
        o.seed
    );
    for a in o.opts.args() {
        stem.push('-');
        stem.push_str(&slug(&a));
    }
    if let Some(m) = o.mutant {
        stem.push('-');
        stem.push_str(&m.name);
    }
    // Both files are claimed in the folder's marker: a name a user's file holds is refused.
    let (name, vcd_name) = (format!("{stem}.repro.jsonl"), format!("{stem}.vcd"));
    spec::output::claim(&o.out_dir, &[&name, &vcd_name])
        .map_err(|e| io("write into", &o.out_dir, e))?;
    let path = o.out_dir.join(&name);
    let text: String = minimal
        .iter()
        .map(|i| serde_json::to_string(i).unwrap_or_default() + "\n")
        .collect();
    golden::run::write_file(&path, text.as_bytes()).map_err(|e| io("write", &path, e))?;
    let shown = path.display().to_string();
    let items = driver.stimulus().items;
    let replay = driver.replay_stimulus(&shown);
    let command = reproduce(block, o, &StimulusName::new(&replay, true, items), None);
    // Waves of the reproducer: a traced build of the same RTL.
    let vcd_path = o.out_dir.join(vcd_name);
    let mut vcd = None;
    if let Ok((_, mut traced)) = crate::rtl::block_model(spec, block, o.mutant, true) {
        if traced.open_vcd(&vcd_path).is_ok() {
            if let Ok(mut m) = Mirror::new(traced, codec.ports()) {
                fails(driver, codec, &mut m, &minimal, cycle);
                m.rtl.close_vcd();
                vcd = Some(vcd_path.display().to_string());
            }
        }
    }
    Ok(Some(Reproducer {
        path: shown,
        items: minimal.len(),
        unit: items,
        command,
        vcd,
    }))
}
