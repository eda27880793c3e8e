//! Command-line arguments. Blocks, and the options only one block takes, come from the block
//! registry: nothing here names a block.

use crate::{bad, CliResult};
use clap::builder::PossibleValuesParser;
use clap::{Arg, ArgAction, ArgMatches, Args, CommandFactory, Parser, Subcommand, ValueEnum};
use golden::run::BlockOpts;
use sim::blocks::BLOCKS;
use sim::registry::{BlockEntry, Cmd, GoldenEntry};
use spec::{ConfigRequest, Spec, DEFAULT_PRESET};
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "warpsmith",
    version = crate::VERSION,
    about = "Golden model of a GPU memory system driving SystemVerilog generation and Verilator \
        co-simulation",
    long_about = "warpsmith generates synthesizable SystemVerilog for GPU memory-system blocks \
                  from a validated configuration, co-simulates it cycle by cycle against a Rust \
                  golden model under Verilator, and reports its storage cost.\n\n\
                  Configuration layers: a built-in preset (--preset), then GPGPU-Sim option files \
                  (--gpgpusim-config), then a TOML file (--config), then --set KEY=VALUE \
                  overrides. `warpsmith describe` lists every key and the rules between keys.\n\n\
                  Exit codes: 0 success, 1 a check failed (mismatch, uncaught mutant, tool \
                  failure, target not met) or an internal failure, 2 bad input (configuration, \
                  stimulus, trace, regression list or results file, usage), an output that cannot \
                  be written (a path, a full disk, standard output), or a run that checked \
                  nothing.",
    after_help = "Start with: warpsmith flow   (generate, co-simulate and cost every block on the \
                  default preset)"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Generate every block's RTL, co-simulate it against the golden model, print its storage cost
    Flow(FlowArgs),
    /// List the built-in presets
    Presets,
    /// List the workload library's benchmark applications: suite, source, arguments, input
    Workloads,
    /// Write a workload of the library as an Accel-Sim trace (kernelslist.g and a tracer-v5
    /// kernel-<id>.traceg per launch), which `run --trace`, Accel-Sim and microgpusim run
    Trace(TraceArgs),
    /// Print every configuration key (type, default, legal range, meaning) and the rules between
    /// keys
    Describe(DescribeArgs),
    /// Write a block's SystemVerilog (package, module) and manifest.json
    Generate(GenerateArgs),
    /// Run a stimulus through a golden model and print its results
    Golden(GoldenArgs),
    /// Co-simulate the generated RTL against the golden model, comparing every output every cycle
    Cosim(CosimArgs),
    /// Co-simulate every deliberately wrong RTL variant; each must be caught
    Mutants(MutantsArgs),
    /// Print a block's storage cost field by field, with the paper's figure beside it
    Cost(CostArgs),
    /// Lint the generated RTL with Verilator and synthesize it with Yosys (slang front-end)
    Check(CheckArgs),
    /// Measure co-simulation speed against golden-only and a plain C++ Verilator loop
    Bench(BenchArgs),
    /// Run the GPU (SMs with warp schedulers and L1s, interconnect, L2 partitions, DRAM, the OT
    /// predictor in place) on an Accel-Sim trace or a kernel
    Run(RunArgs),
    /// Run workloads of the library on the GPU and hold their kernels' counters against a table
    /// of hardware counters: per kernel and metric the error, per metric MAPE and correlation;
    /// text or JSON, and with --out an SVG scatter plot per metric and GPGPU-Sim's stat names
    Correlate(CorrelateArgs),
    /// Run a co-simulation regression list: its jobs in parallel, each result appended to
    /// results.jsonl as it ends, then junit.xml and a summary (resumable, shardable)
    Regress(RegressArgs),
    /// Run an experiment: `warpsmith run` jobs over workloads, presets and a --set matrix, in
    /// parallel (resumable, shardable, on Slurm), into one table (CSV and JSON lines) with a
    /// row per job: its configuration hash and keys, the tool's version, every statistic
    Sweep(SweepArgs),
    /// Rerun each seed's headline comparisons on the workload library against its baselines
    /// (a sweep per seed) and write a one-page HTML report with plots: per headline the
    /// paper's value beside ours, the direction verdict and the commands behind each number
    Reproduce(ReproduceArgs),
    /// Print the JSON schema of a report (`run --format json`), generated from its types: its
    /// name and version are in every report's `schema` field (docs/schema/ holds each)
    Schema(SchemaArgs),
    /// Print the shell completion script for SHELL (bash: `source <(warpsmith completions
    /// bash)`; zsh, fish, elvish, powershell)
    Completions(CompletionsArgs),
    /// Write the manual pages, warpsmith.1 and warpsmith-<command>.1 for each command, to DIR
    /// (read one with `man -l DIR/warpsmith-run.1`)
    Manpages(ManpagesArgs),
}

/// The command line, with the help that comes from the block registry: each block's forms of
/// `--stimulus`.
pub fn command() -> clap::Command {
    let per_block =
        |f: &dyn Fn(&BlockEntry) -> String| BLOCKS.iter().map(f).collect::<Vec<_>>().join("; ");
    let cosim = format!(
        "The stimulus. {} (file formats: README, \"Stimulus\")",
        per_block(&|b| format!("{}: {}", b.name, b.stimuli))
    );
    let per_golden = |f: &dyn Fn(&GoldenEntry) -> String| {
        sim::blocks::goldens()
            .map(|(_, g)| f(g))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let golden = format!(
        "The stimulus (required but for dispatch). {}",
        per_golden(&|g| format!("{}: {}", g.name, g.stimuli))
    );
    let blocks = format!(
        "The block. {}",
        per_block(&|b| format!("{}: {}", b.name, b.title))
    );
    let goldens = format!(
        "The golden model. {}",
        per_golden(&|g| format!("{}: {}", g.name, g.about))
    );
    let mut cmd = Cli::command();
    for sub in ["cosim", "mutants", "bench"] {
        let (c, b) = (cosim.clone(), blocks.clone());
        cmd = cmd.mut_subcommand(sub, move |s| {
            s.mut_arg("stimulus", |a| a.help(c))
                .mut_arg("block", |a| a.help(b))
        });
    }
    for sub in ["generate", "cost", "check"] {
        let b = format!("{blocks}; all: every block");
        cmd = cmd.mut_subcommand(sub, move |s| s.mut_arg("block", |a| a.help(b)));
    }
    let reports = crate::cmd::schema_reports()
        .into_iter()
        .map(|r| clap::builder::PossibleValue::new(r.name).help(r.help));
    let reports = clap::builder::PossibleValuesParser::new(reports);
    cmd.mut_subcommand("golden", |s| {
        s.mut_arg("stimulus", |a| a.help(golden))
            .mut_arg("block", |a| a.help(goldens))
    })
    .mut_subcommand("schema", |s| {
        s.mut_arg("report", |a| a.help("The report").value_parser(reports))
    })
}

/// Where the configuration comes from.
#[derive(Args, Clone, Debug)]
pub struct ConfigArgs {
    /// Built-in preset to start from (see `warpsmith presets`)
    #[arg(long, value_name = "NAME", default_value = DEFAULT_PRESET)]
    pub preset: String,
    /// GPGPU-Sim option file whose DRAM, address-map, controller and SM options override the
    /// preset's keys (repeatable: `gpgpusim.config` then `trace.config`, layered in order)
    #[arg(long = "gpgpusim-config", value_name = "FILE")]
    pub gpgpusim: Vec<PathBuf>,
    /// TOML file whose keys override the preset's (and the GPGPU-Sim files')
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Override one key, e.g. `--set ot.entries=256` (repeatable; applied last)
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// Write the resolved configuration (loadable with --config) to FILE
    #[arg(long, value_name = "FILE")]
    pub emit_config: Option<PathBuf>,
}

impl ConfigArgs {
    /// Resolve and validate the configuration, and write `--emit-config` if asked (after
    /// checking it can be written). Bad configurations and unwritable paths exit 2.
    pub fn resolve(&self) -> CliResult<Spec> {
        self.resolve_with(|_| Ok(())).map(|(spec, ())| spec)
    }

    /// Resolve and validate the configuration; then `check`, which checks every other target
    /// the command writes (and may prepare what it writes there); then write `--emit-config`.
    /// So a command that cannot write one of its outputs has written none.
    pub fn resolve_with<T>(
        &self,
        check: impl FnOnce(&Spec) -> CliResult<T>,
    ) -> CliResult<(Spec, T)> {
        if let Some(path) = &self.emit_config {
            crate::out::check_file(path, "--emit-config")?;
        }
        let spec = ConfigRequest {
            preset: Some(self.preset.clone()),
            gpgpusim: self.gpgpusim.clone(),
            file: self.config.clone(),
            overrides: self.sets.clone(),
        }
        .resolve()
        .map_err(bad)?;
        if let Some(r) = spec.import_report() {
            note!(
                "{}: imported {} keys, {} kept from the layers below, {} options ignored (see \
                    `warpsmith describe --gpgpusim-config ...`)",
                self.gpgpusim
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(" + "),
                r.imported.len(),
                r.kept.len(),
                r.ignored.len()
            );
        }
        let checked = check(&spec)?;
        if let Some(path) = &self.emit_config {
            crate::out::write_file(path, spec.to_toml().as_bytes(), "--emit-config")?;
        }
        Ok((spec, checked))
    }

    /// These options as command-line words (for reproduce commands).
    pub fn as_args(&self) -> Vec<String> {
        let mut v = vec!["--preset".to_string(), self.preset.clone()];
        for g in &self.gpgpusim {
            v.push("--gpgpusim-config".into());
            v.push(g.display().to_string());
        }
        if let Some(c) = &self.config {
            v.push("--config".into());
            v.push(c.display().to_string());
        }
        for kv in &self.sets {
            v.push("--set".into());
            v.push(kv.clone());
        }
        v
    }
}

fn block_names() -> PossibleValuesParser {
    PossibleValuesParser::new(BLOCKS.iter().map(|b| b.name))
}

fn blocks_or_all() -> PossibleValuesParser {
    PossibleValuesParser::new(std::iter::once("all").chain(BLOCKS.iter().map(|b| b.name)))
}

fn golden_names() -> PossibleValuesParser {
    PossibleValuesParser::new(sim::blocks::goldens().map(|(_, g)| g.name))
}

/// The block named on the command line (a registry name; clap has checked it).
pub fn block(name: &str) -> CliResult<&'static BlockEntry> {
    sim::blocks::find(name).map_err(bad)
}

/// The blocks `--block` selects (`all`: every block).
pub fn blocks(name: &str) -> CliResult<Vec<&'static BlockEntry>> {
    if name == "all" {
        Ok(BLOCKS.iter().collect())
    } else {
        Ok(vec![block(name)?])
    }
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

/// What the caches hold when a kernel starts, named as Nsight Compute's `--cache-control`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheControl {
    /// Every L1 and L2 line invalidated before each kernel (dirty ones dropped), as Nsight
    /// Compute flushes them before each kernel it profiles by default
    All,
    /// A kernel finds the caches as the one before left them, as an unprofiled run does
    None,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CostFormat {
    Table,
    Json,
}

/// Options only some block takes, for command `C` (0 golden, 1 cosim, 2 mutants, 3 bench):
/// every block's options of that command are accepted by the parser, and the command then
/// refuses those the chosen block does not take.
#[derive(Clone, Debug, Default)]
pub struct BlockArgs<const C: u8> {
    given: Vec<(&'static str, String)>,
}

const fn cmd_of(c: u8) -> Cmd {
    match c {
        0 => Cmd::Golden,
        1 => Cmd::Cosim,
        2 => Cmd::Mutants,
        _ => Cmd::Bench,
    }
}

fn options_of(cmd: Cmd) -> Vec<&'static sim::registry::BlockOption> {
    let mut v: Vec<&'static sim::registry::BlockOption> = Vec::new();
    for b in BLOCKS {
        for o in b.options {
            if o.commands.contains(&cmd) && !v.iter().any(|x| x.name == o.name) {
                v.push(o);
            }
        }
    }
    v
}

impl<const C: u8> clap::FromArgMatches for BlockArgs<C> {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut given = Vec::new();
        for o in options_of(cmd_of(C)) {
            match o.value {
                None if m.get_flag(o.name) => given.push((o.name, "true".to_string())),
                Some(_) => {
                    if let Some(v) = m.get_one::<String>(o.name) {
                        given.push((o.name, v.clone()));
                    }
                }
                None => {}
            }
        }
        Ok(BlockArgs { given })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl<const C: u8> clap::Args for BlockArgs<C> {
    fn augment_args(mut cmd: clap::Command) -> clap::Command {
        for o in options_of(cmd_of(C)) {
            let arg = Arg::new(o.name).long(o.name).help(o.help);
            cmd = cmd.arg(match o.value {
                Some(v) => arg.value_name(v).action(ArgAction::Set),
                None => arg.action(ArgAction::SetTrue),
            });
        }
        cmd
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

impl<const C: u8> BlockArgs<C> {
    /// The options given, checked to be ones `block` takes in this command.
    pub fn for_block(&self, block: &BlockEntry) -> CliResult<BlockOpts> {
        let mut opts = BlockOpts::default();
        for (name, value) in &self.given {
            if !block.takes(name, cmd_of(C)) {
                let takers: Vec<&str> = BLOCKS
                    .iter()
                    .filter(|b| b.takes(name, cmd_of(C)))
                    .map(|b| b.name)
                    .collect();
                return Err(bad(anyhow::anyhow!(
                    "--{name} does not apply to --block {block}: it is an option of --block {}",
                    takers.join(", ")
                )));
            }
            opts.set(name, value);
        }
        Ok(opts)
    }

    /// [`BlockArgs::for_block`] for `golden --block NAME`: also checked to be options of that
    /// golden run (`--ports` is `memory`'s, not `mc`'s).
    pub fn for_golden(&self, block: &BlockEntry, golden: &str) -> CliResult<BlockOpts> {
        let opts = self.for_block(block)?;
        for (name, _) in &self.given {
            let runs = block.option_goldens(name);
            if !runs.is_empty() && !runs.contains(&golden) {
                return Err(bad(anyhow::anyhow!(
                    "--{name} does not apply to --block {golden}: it is an option of --block {}",
                    runs.join(", ")
                )));
            }
        }
        Ok(opts)
    }
}

#[derive(Args)]
pub struct FlowArgs {
    #[command(flatten)]
    pub config: ConfigArgs,
    /// Output folder (RTL goes to DIR/<block>/, reproducers of failures to DIR/repro/)
    #[arg(long, value_name = "DIR", default_value = "warpsmith-out")]
    pub out: PathBuf,
    /// Co-simulation cycles per block and stimulus
    #[arg(long, value_name = "N", default_value_t = sim::harness::DEFAULT_CYCLES)]
    pub cycles: u64,
    /// Random-stimulus seed
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
}

#[derive(Args)]
pub struct DescribeArgs {
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Instead of the keys: what these GPGPU-Sim option files import (every key set, every
    /// key kept from the preset, every option ignored), on top of --preset
    #[arg(long = "gpgpusim-config", value_name = "FILE")]
    pub gpgpusim: Vec<PathBuf>,
    /// The preset the GPGPU-Sim files are layered on
    #[arg(long, value_name = "NAME", default_value = DEFAULT_PRESET)]
    pub preset: String,
}

#[derive(Args)]
pub struct SchemaArgs {
    /// The report (its possible values come from `crate::cmd::schema_reports`)
    pub report: String,
}

#[derive(Args)]
pub struct CompletionsArgs {
    /// The shell
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Args)]
pub struct ManpagesArgs {
    /// Folder to write the pages to (created if missing)
    #[arg(long, value_name = "DIR", default_value = "warpsmith-out/man")]
    pub out: PathBuf,
}

#[derive(Args)]
pub struct GenerateArgs {
    /// Block to generate (`all`: every block, one subfolder each)
    #[arg(long, default_value = "all", value_parser = blocks_or_all())]
    pub block: String,
    #[command(flatten)]
    pub config: ConfigArgs,
    /// Output folder (with --block all, one subfolder per block); replaced as a whole
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Prefix of module and package names, so two configurations of a block can be elaborated
    /// together (`cfg_a_` gives `cfg_a_ws_ot_predictor`)
    #[arg(long, value_name = "PREFIX", default_value = "")]
    pub prefix: String,
}

#[derive(Args)]
pub struct GoldenArgs {
    /// The golden model to run
    #[arg(long, value_parser = golden_names())]
    pub block: String,
    #[command(flatten)]
    pub config: ConfigArgs,
    #[arg(long, value_name = "SOURCE")]
    pub stimulus: Option<String>,
    /// Cycles to run for the endless sources (random, kernel, generated loads)
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub cycles: u64,
    /// Seed for random stimulus and kernel scheduling
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// `text` or `json`: one report with its provenance (`warpsmith schema golden-NAME`); ot
    /// and mt-hwp print JSON lines either way, their provenance first
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    #[command(flatten)]
    pub block_args: BlockArgs<0>,
}

#[derive(Args)]
pub struct CosimArgs {
    #[arg(long, value_parser = block_names())]
    pub block: String,
    #[command(flatten)]
    pub config: ConfigArgs,
    #[arg(long, value_name = "SOURCE", default_value = "random")]
    pub stimulus: String,
    /// Cycles to simulate (default 200000 for generated stimulus; a file runs to its end)
    #[arg(long, value_name = "N")]
    pub cycles: Option<u64>,
    /// Seed for random stimulus and kernel scheduling
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Write the waves of the whole run to FILE.vcd (about 3x slower)
    #[arg(long, value_name = "FILE.vcd")]
    pub waves: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Co-simulate a deliberately wrong RTL variant (see `warpsmith mutants`)
    #[arg(long, value_name = "NAME")]
    pub mutant: Option<String>,
    /// Folder for the minimal reproducer and its VCD written on a mismatch
    #[arg(long, value_name = "DIR", default_value = "warpsmith-out")]
    pub out_dir: PathBuf,
    /// On a mismatch, skip shrinking the stimulus to a minimal reproducer
    #[arg(long)]
    pub no_shrink: bool,
    #[command(flatten)]
    pub block_args: BlockArgs<1>,
}

#[derive(Args)]
pub struct MutantsArgs {
    #[arg(long, value_parser = block_names())]
    pub block: String,
    #[command(flatten)]
    pub config: ConfigArgs,
    /// Stimulus for every mutant (as for `cosim`)
    #[arg(long, value_name = "SOURCE", default_value = "random")]
    pub stimulus: String,
    /// Cycle budget per mutant (default: the block's, which catches every mutant on every preset
    /// with `random`: 200000; mt-hwp 400000, four of its throttle periods)
    #[arg(long, value_name = "N")]
    pub cycles: Option<u64>,
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Only this mutant
    #[arg(long, value_name = "NAME")]
    pub only: Option<String>,
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    #[command(flatten)]
    pub block_args: BlockArgs<2>,
}

#[derive(Args)]
#[command(group(
    clap::ArgGroup::new("source").required(true).args(["trace", "kernel", "workload"])
))]
pub struct RunArgs {
    #[command(flatten)]
    pub config: ConfigArgs,
    /// Accel-Sim trace folder (holding kernelslist.g and the kernel-*.traceg it names) or list
    /// file; its blocks are dispatched under rr or bcs
    #[arg(long, value_name = "DIR")]
    pub trace: Option<PathBuf>,
    /// A built-in kernel (cp, scalarprod, stencil2d, irregular, matmul3d; rowmajor, colmajor,
    /// rowmajor-large, colmajor-large, nolocality; lonewarp, otedge, pfstream) or a kernel TOML
    /// file; its blocks are dispatched under dispatch.policy
    #[arg(long, value_name = "NAME|FILE")]
    pub kernel: Option<String>,
    /// A benchmark application of the workload library, run from its compiled kernels, with
    /// optional arguments (`vectoradd:n=100000,dtype=f64`; `warpsmith workloads` lists them); its
    /// blocks are dispatched under rr or bcs
    #[arg(long, value_name = "NAME[:ARGS]")]
    pub workload: Option<String>,
    /// Seed of a kernel's irregular loads and of a workload's generated input
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Read every kernel trace's text: neither read nor write packed copies (by default a trace
    /// read whole is packed into $WARPSMITH_CACHE_DIR/traces, keyed by its path, device and inode,
    /// size, modification and change times and a hash of its first and last 64 KiB, and later runs
    /// read the copy; a copy found bad is deleted and the text read instead)
    #[arg(long)]
    pub no_trace_cache: bool,
    /// Stop a run that has not ended by this core cycle, with an error (exit 2) and no figures:
    /// every run ends, whatever its input (the default, 10^9 core cycles, is 0.7 s of simulated
    /// time at 1.4 GHz; raise it for longer work)
    #[arg(long, value_name = "CYCLES", default_value_t = golden::gpu::run::DEFAULT_MAX_CYCLES,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_cycles: u64,
    /// Statistics over time: a sample of the figures (IPC, hit rates, DRAM bytes, requests in
    /// flight, throttle degree) every N core cycles, one JSON object a line in --stats-out
    /// (schema: `warpsmith schema sample`)
    #[arg(long, value_name = "N", requires = "stats_out",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub stats_interval: Option<u64>,
    /// The JSON-lines file of --stats-interval's samples
    #[arg(long, value_name = "FILE", requires = "stats_interval")]
    pub stats_out: Option<PathBuf>,
    /// text: a readable report; json: every figure, with the run's provenance (schema:
    /// `warpsmith schema run`); gpgpusim: GPGPU-Sim's statistics lines per kernel, for
    /// Accel-Sim's statistics scripts
    #[arg(long, value_enum, default_value = "text")]
    pub format: RunFormat,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunFormat {
    Text,
    Json,
    Gpgpusim,
}

#[derive(Args)]
pub struct CorrelateArgs {
    #[command(flatten)]
    pub config: ConfigArgs,
    /// The hardware counter table (CSV with a `Kernel` column and metric columns named as
    /// AccelWattch's Nsight table, e.g. ../shared/reference/hardware/volta-v100-kernels.csv, or
    /// as the metrics: cycles, l1_read_hits, l1_read_misses, l1_write_hits, l1_write_misses,
    /// l2_read_hits, l2_read_misses, l2_write_hits, l2_write_misses, dram_read_sectors,
    /// dram_write_sectors); one row per kernel, its mean over launches
    #[arg(long, value_name = "FILE")]
    pub hardware: PathBuf,
    /// A workload of the library to run, with its arguments (repeat for more); its kernels are
    /// matched with the table's by name, their launches averaged
    #[arg(long, value_name = "NAME[:ARGS]", required = true)]
    pub workload: Vec<String>,
    /// Also write report.json, an SVG scatter plot per metric (simulated against measured, log
    /// axes, the y = x line) and gpgpusim-stats.txt (the counters in GPGPU-Sim's names) here
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Seed of the workloads' generated input
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// What the caches hold when each kernel starts: `all` flushes them first, as Nsight
    /// Compute does by default before each kernel it profiles (how AccelWattch's V100 table was
    /// measured); `none` leaves them as the previous kernel did (decision GPU-33)
    #[arg(long, value_enum, default_value = "all")]
    pub cache_control: CacheControl,
    /// Stop a workload's run that has not ended by this core cycle, with an error (exit 2)
    #[arg(long, value_name = "CYCLES", default_value_t = golden::gpu::run::DEFAULT_MAX_CYCLES,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_cycles: u64,
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

#[derive(Args)]
pub struct TraceArgs {
    /// The workload, with optional arguments (`matrixmul:rows=128`; `warpsmith workloads` lists
    /// them)
    #[arg(long, value_name = "NAME[:ARGS]")]
    pub workload: String,
    /// The folder to write (created if absent; only files warpsmith wrote there are replaced)
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Seed of the workload's generated input
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

#[derive(Args)]
pub struct CostArgs {
    #[arg(long, default_value = "all", value_parser = blocks_or_all())]
    pub block: String,
    #[command(flatten)]
    pub config: ConfigArgs,
    #[arg(long, value_enum, default_value = "table")]
    pub format: CostFormat,
}

#[derive(Args)]
pub struct CheckArgs {
    #[arg(long, default_value = "all", value_parser = blocks_or_all())]
    pub block: String,
    #[command(flatten)]
    pub config: ConfigArgs,
    /// Also synthesize with Yosys (slang front-end) and compare flip-flops with the estimate
    #[arg(long)]
    pub synth: bool,
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

#[derive(Args)]
pub struct BenchArgs {
    #[arg(long, value_parser = block_names())]
    pub block: String,
    #[command(flatten)]
    pub config: ConfigArgs,
    /// Cycles per measurement
    #[arg(long, value_name = "N", default_value_t = 1_000_000)]
    pub cycles: u64,
    #[arg(long, value_name = "SOURCE", default_value = "random")]
    pub stimulus: String,
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    #[command(flatten)]
    pub block_args: BlockArgs<3>,
}

#[derive(Args)]
#[command(
    args_conflicts_with_subcommands = true,
    after_help = "Built-in lists: smoke (every block x preset x its flow stimuli, and every \
                  mutant; what CI runs), nightly (1,000,000 cycles, 8 seeds, every mutant). A list \
                  file is TOML: [[entry]] blocks, presets, configs, set (a --set matrix), stimuli, \
                  seeds or seed_count, cycles, mutants (README, \"Regressions\").\n\n\
                  Exit codes: 0 every job passed; 1 a job failed or erred; 2 bad input; 130 \
                  interrupted (the finished jobs' results, junit.xml and the summary are written)."
)]
pub struct RegressArgs {
    #[command(subcommand)]
    pub command: Option<RegressCommand>,
    /// The list: a built-in one (smoke, nightly) or a TOML file
    #[arg(long, value_name = "NAME|FILE", default_value = "smoke")]
    pub list: String,
    /// Output folder: results.jsonl, plan.json, junit.xml, summary.txt, jobs/<id>/
    #[arg(long, value_name = "DIR", default_value = "regress-out")]
    pub out: PathBuf,
    #[command(flatten)]
    pub runner: RunnerArgs,
}

/// How `regress` and `sweep` run their jobs: here (in parallel, a shard, resumed) or on Slurm.
#[derive(Args)]
pub struct RunnerArgs {
    /// Print the expanded jobs and run nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Jobs run at once (default: the machine's cores)
    #[arg(short = 'j', long = "jobs", value_name = "N")]
    pub jobs: Option<usize>,
    /// Finish an earlier run into the same --out: skip the jobs its results.jsonl holds
    #[arg(long)]
    pub resume: bool,
    /// Run only shard I of N (1-based): every N-th job from the I-th
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// Seconds a job may run before it is stopped and recorded as an error (default: the list's
    /// or the experiment's, else 1800)
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<u64>,
    /// Output of --dry-run
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Run on Slurm: a job array of --shards tasks (each this command with --shard I/N into
    /// OUT/shard-I), submitted with sbatch, waited for, then merged into OUT
    #[arg(long, conflicts_with_all = ["shard", "dry_run"])]
    pub slurm: bool,
    /// With --slurm: array tasks (shards)
    #[arg(long, value_name = "N", default_value_t = 4, requires = "slurm")]
    pub shards: usize,
    /// With --slurm: a line `#SBATCH ARG` in the script (repeatable), e.g.
    /// --slurm-arg=--partition=gpu
    #[arg(
        long,
        value_name = "ARG",
        requires = "slurm",
        allow_hyphen_values = true
    )]
    pub slurm_arg: Vec<String>,
    /// With --slurm: write the job-array script (OUT/slurm/regress.sh or sweep.sh) and the
    /// sbatch command, submit nothing
    #[arg(long, requires = "slurm")]
    pub slurm_script_only: bool,
}

#[derive(Args)]
#[command(
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    after_help = "Built-in experiments: example (the four DRAM schedulers on three built-in \
                  kernels, 4 x 3 jobs). An experiment file is TOML: description, statistics (the \
                  run report's keys to keep; default all), and [[run]] entries of kernels, \
                  workloads, traces, presets, configs, set (a --set matrix), seeds, max_cycles, \
                  timeout (README, \"Sweeps\").\n\n\
                  Output: OUT/table.csv and OUT/table.jsonl (a row per job, in the experiment's \
                  order; schema: `warpsmith schema sweep`), results.jsonl (rows as jobs end, \
                  with their time), plan.json, jobs/<id>/ (each run's report and stderr).\n\n\
                  Exit codes: 0 every job ran; 1 a job erred; 2 bad input; 130 interrupted \
                  (the finished jobs' rows and the table so far are written)."
)]
pub struct SweepArgs {
    #[command(subcommand)]
    pub command: Option<SweepCommand>,
    /// The experiment: a built-in one (example) or a TOML file
    #[arg(long, value_name = "NAME|FILE", required = true)]
    pub experiment: Option<String>,
    /// Output folder: table.csv, table.jsonl, results.jsonl, plan.json, jobs/<id>/
    #[arg(long, value_name = "DIR", default_value = "sweep-out")]
    pub out: PathBuf,
    #[command(flatten)]
    pub runner: RunnerArgs,
}

#[derive(Args)]
#[command(
    after_help = "Seeds: 000 (OT address predictor), 001 (MT-HWP prefetching), 002 \
                  (locality-aware dispatch and warp scheduling), 003 (CTA mapping), 004 \
                  (Warped-MC).\n\n\
                  Output: OUT/report.html (self-contained: inline SVG, no script), \
                  OUT/report.json (every headline's figures), OUT/seed-NNN/ (each seed's \
                  experiment.toml and its sweep: table.csv, table.jsonl, results.jsonl).\n\n\
                  Exit codes: 0 every run finished (whatever the verdicts); 1 a run erred; 2 \
                  bad input; 130 interrupted (finish with --resume)."
)]
pub struct ReproduceArgs {
    /// The seeds (000 to 004; default all)
    #[arg(value_name = "SEED")]
    pub seeds: Vec<String>,
    /// The small size (fewer workloads, about a minute on 2 cores): what CI runs
    #[arg(long)]
    pub quick: bool,
    /// Output folder: report.html, report.json, seed-NNN/
    #[arg(long, value_name = "DIR", default_value = "reproduce-out")]
    pub out: PathBuf,
    /// Runs at once (default: the machine's cores)
    #[arg(short = 'j', long = "jobs", value_name = "N")]
    pub jobs: Option<usize>,
    /// Finish an earlier reproduction into the same --out: rerun only the runs it lacks
    #[arg(long)]
    pub resume: bool,
    /// Seconds a run may take before it is stopped and recorded as an error (default 1800)
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<u64>,
    /// Run each seed's sweep on Slurm, as `sweep --slurm` (a job array of --shards tasks)
    #[arg(long)]
    pub slurm: bool,
    /// With --slurm: array tasks per seed
    #[arg(long, value_name = "N", default_value_t = 4, requires = "slurm")]
    pub shards: usize,
    /// With --slurm: a line `#SBATCH ARG` in the scripts (repeatable)
    #[arg(
        long,
        value_name = "ARG",
        requires = "slurm",
        allow_hyphen_values = true
    )]
    pub slurm_arg: Vec<String>,
}

#[derive(Subcommand)]
pub enum SweepCommand {
    /// Merge shard folders of one experiment into one table (and results.jsonl); report jobs
    /// missing from every shard and jobs recorded twice
    Merge(SweepMergeArgs),
}

#[derive(Args)]
pub struct SweepMergeArgs {
    /// The shard folders (each written by `warpsmith sweep --shard I/N --out DIR`)
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Output folder of the merged table
    #[arg(long, value_name = "DIR", default_value = "sweep-merged")]
    pub out: PathBuf,
}

#[derive(Subcommand)]
pub enum RegressCommand {
    /// Merge shard folders into one results.jsonl, junit.xml and summary; report jobs of the
    /// list missing from every shard and jobs recorded twice
    Merge(MergeArgs),
}

#[derive(Args)]
pub struct MergeArgs {
    /// The shard folders (each written by `warpsmith regress --shard I/N --out DIR`)
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Output folder of the merged results
    #[arg(long, value_name = "DIR", default_value = "regress-merged")]
    pub out: PathBuf,
}
