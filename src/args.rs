//! Command-line arguments.

use crate::{bad, CliResult};
use clap::{Args, Parser, Subcommand, ValueEnum};
use sim::registry::BlockEntry;
use spec::{ConfigRequest, Spec, DEFAULT_PRESET};
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "warpsmith",
    version,
    about = "Golden model of a GPU memory system driving SystemVerilog generation and Verilator co-simulation",
    long_about = "warpsmith generates synthesizable SystemVerilog for GPU memory-system blocks from a \
                  validated configuration, co-simulates it cycle by cycle against a Rust golden \
                  model under Verilator, and reports its storage cost.\n\n\
                  Configuration layers: a built-in preset (--preset), then a TOML file (--config), \
                  then --set KEY=VALUE overrides. `warpsmith describe` lists every key.\n\n\
                  Exit codes: 0 success, 1 a check failed (mismatch, uncaught mutant, tool failure), \
                  2 bad input (configuration, stimulus, usage).",
    after_help = "Start with: warpsmith flow   (generate, co-simulate and cost every block on the default preset)"
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
    /// Print every configuration key with its type, default, legal range and meaning
    Describe(DescribeArgs),
    /// Write a block's SystemVerilog (package, module) and manifest.json
    Generate(GenerateArgs),
    /// Run a stimulus through the golden model and print one JSON response per transaction
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
    /// Resolve and validate; writes --emit-config if asked. Bad configurations exit 2.
    pub fn resolve(&self) -> CliResult<Spec> {
        let spec = ConfigRequest {
            preset: Some(self.preset.clone()),
            gpgpusim: self.gpgpusim.clone(),
            file: self.config.clone(),
            overrides: self.sets.clone(),
        }
        .resolve()
        .map_err(bad)?;
        if let Some(path) = &self.emit_config {
            std::fs::write(path, spec.to_toml()).map_err(|e| {
                anyhow::anyhow!("cannot write resolved config {}: {e}", path.display())
            })?;
        }
        Ok(spec)
    }

    /// These options as command-line text (for reproducer commands).
    pub fn as_args(&self) -> String {
        let mut s = format!("--preset {}", self.preset);
        for g in &self.gpgpusim {
            s.push_str(&format!(" --gpgpusim-config {}", g.display()));
        }
        if let Some(c) = &self.config {
            s.push_str(&format!(" --config {}", c.display()));
        }
        for kv in &self.sets {
            s.push_str(&format!(" --set {kv}"));
        }
        s
    }
}

/// One generated block.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockArg {
    /// Observation-table address predictor (seed 000)
    Ot,
    /// Warped-MC memory-controller tables (seed 004)
    WarpedMc,
    /// Locality-aware thread-block dispatcher, decision unit (seed 002)
    Dispatch,
}

impl BlockArg {
    pub fn block(self) -> &'static BlockEntry {
        match self {
            BlockArg::Ot => &sim::ot::ENTRY,
            BlockArg::WarpedMc => &sim::wmc::ENTRY,
            BlockArg::Dispatch => &sim::dispatch::ENTRY,
        }
    }
}

/// One generated block, or all of them.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlocksArg {
    /// Every block
    All,
    /// Observation-table address predictor (seed 000)
    Ot,
    /// Warped-MC memory-controller tables (seed 004)
    WarpedMc,
    /// Locality-aware thread-block dispatcher, decision unit (seed 002)
    Dispatch,
}

impl BlocksArg {
    pub fn blocks(self) -> Vec<&'static BlockEntry> {
        match self {
            BlocksArg::All => sim::registry::BLOCKS.iter().collect(),
            BlocksArg::Ot => vec![&sim::ot::ENTRY],
            BlocksArg::WarpedMc => vec![&sim::wmc::ENTRY],
            BlocksArg::Dispatch => vec![&sim::dispatch::ENTRY],
        }
    }
}

/// What the golden model simulates.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoldenArg {
    /// Observation-table address predictor (seed 000)
    Ot,
    /// The memory system: every channel's controller and DRAM, routed by the address map
    Mc,
    /// Thread-block dispatch (seed 002 locality-aware, seed 003 CTA mapping, RR, BCS)
    Dispatch,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CostFormat {
    Table,
    Json,
}

#[derive(Args)]
pub struct FlowArgs {
    #[command(flatten)]
    pub config: ConfigArgs,
    /// Output folder (RTL goes to DIR/<block>/)
    #[arg(long, value_name = "DIR", default_value = "warpsmith-out")]
    pub out: PathBuf,
    /// Co-simulation cycles per block and stimulus
    #[arg(long, value_name = "N", default_value_t = sim::ot::DEFAULT_CYCLES)]
    pub cycles: u64,
    /// Random-stimulus seed
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
}

#[derive(Args)]
pub struct DescribeArgs {
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

#[derive(Args)]
pub struct GenerateArgs {
    /// Block to generate
    #[arg(long, value_enum, default_value = "all")]
    pub block: BlocksArg,
    #[command(flatten)]
    pub config: ConfigArgs,
    /// Output folder (with --block all, one subfolder per block)
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

#[derive(Args)]
pub struct GoldenArgs {
    #[arg(long, value_enum)]
    pub block: GoldenArg,
    #[command(flatten)]
    pub config: ConfigArgs,
    /// ot: a JSON-lines FILE, `kernel:NAME` or `random`; mc: a JSON-lines FILE, `loa`, `moa`,
    /// `hoa` (generated warp loads; `hoa@2.5` offers 2.5x the random-row service rate, default
    /// 1.3) or `random` (table stress). Required for ot and mc.
    #[arg(long, value_name = "SOURCE")]
    pub stimulus: Option<String>,
    /// dispatch: the kernel (a built-in name, `rowmajor`, `colmajor`, `nolocality`, or a kernel
    /// TOML FILE)
    #[arg(long, value_name = "NAME|FILE")]
    pub kernel: Option<String>,
    /// dispatch: SMs (default: the preset's gpu.sms)
    #[arg(long, value_name = "N")]
    pub sms: Option<u32>,
    /// dispatch: block slots per SM (default: the preset's gpu.ctas_per_sm)
    #[arg(long, value_name = "N")]
    pub slots: Option<u32>,
    /// Cycles to run for the endless sources (random, kernel)
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub cycles: u64,
    /// Seed for random stimulus and kernel scheduling
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// After the responses, print the final table as one JSON array of valid entries (ot)
    #[arg(long)]
    pub dump_state: bool,
    /// mc: `text` prints each request's completion and a summary; `json` one summary object;
    /// dispatch: `text` prints the dispatch order and per-SM shared lines, `json` the same
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// mc: write every issued DRAM command (cycle,channel,bank,CMD,row,col) to FILE
    #[arg(long, value_name = "FILE")]
    pub command_trace: Option<PathBuf>,
}

#[derive(Args)]
pub struct CosimArgs {
    #[arg(long, value_enum)]
    pub block: BlockArg,
    #[command(flatten)]
    pub config: ConfigArgs,
    /// ot: `random`, `kernel:NAME` (built-in kernel, `all`, or a kernel TOML file) or a
    /// JSON-lines FILE; warped-mc: `random` (table stress), `loa`, `moa`, `hoa` (`hoa@2.5`: offered
    /// load 2.5x the random-row service rate) or a FILE; dispatch: `random`, `kernel:NAME` (a
    /// built-in or dispatch kernel such as `colmajor`, or a kernel TOML file) or a JSON-lines FILE
    /// of per-cycle inputs
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
    /// warped-mc: the warp-entry-table group whose block is co-simulated
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub group: usize,
}

#[derive(Args)]
pub struct MutantsArgs {
    #[arg(long, value_enum)]
    pub block: BlockArg,
    #[command(flatten)]
    pub config: ConfigArgs,
    /// Stimulus for every mutant (as for `cosim`)
    #[arg(long, value_name = "SOURCE", default_value = "random")]
    pub stimulus: String,
    /// Cycle budget per mutant
    #[arg(long, value_name = "N", default_value_t = sim::ot::DEFAULT_CYCLES)]
    pub cycles: u64,
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Only this mutant
    #[arg(long, value_name = "NAME")]
    pub only: Option<String>,
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

#[derive(Args)]
pub struct CostArgs {
    #[arg(long, value_enum, default_value = "all")]
    pub block: BlocksArg,
    #[command(flatten)]
    pub config: ConfigArgs,
    #[arg(long, value_enum, default_value = "table")]
    pub format: CostFormat,
}

#[derive(Args)]
pub struct CheckArgs {
    #[arg(long, value_enum, default_value = "all")]
    pub block: BlocksArg,
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
    #[arg(long, value_enum)]
    pub block: BlockArg,
    #[command(flatten)]
    pub config: ConfigArgs,
    /// Cycles per measurement
    #[arg(long, value_name = "N", default_value_t = 1_000_000)]
    pub cycles: u64,
    /// ot: `random` or `kernel:NAME`; warped-mc: `random`, `loa`, `moa` or `hoa`; dispatch:
    /// `random` or `kernel:NAME`
    #[arg(long, value_name = "SOURCE", default_value = "random")]
    pub stimulus: String,
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}
