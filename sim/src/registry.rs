//! A block's registry entry: what the block is ([`BlockInfo`]: name, title, seed document,
//! interface, RTL generator) and where each of its other parts lives: its storage cost and
//! golden run (golden), its options, stimuli, mutant catalogue, co-simulation driver and
//! benchmark (its module under `sim/src/blocks/`). The list of entries is
//! [`crate::blocks::BLOCKS`], which every command looks up. Adding a block is adding an entry
//! (docs/architecture.md, "Adding a block").

use crate::bench::{BenchOptions, BenchReport, Throughput};
use crate::block::BlockInfo;
use crate::harness::{CosimOptions, Driver};
use crate::mutants::{Catalogue, Mutant, MutantResult};
use crate::report::CosimReport;
use crate::{CosimError, SimError};
use golden::cost::BlockCost;
use golden::run::{GoldenError, GoldenRun};
use spec::Spec;

/// A command a block option belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmd {
    Golden,
    Cosim,
    Mutants,
    Bench,
}

/// An option only one block takes (`--group`, `--kernel`, ...).
#[derive(Debug, Clone, Copy)]
pub struct BlockOption {
    /// The long name (`group` is `--group`).
    pub name: &'static str,
    /// The value's name in help (`N`); `None`: a flag.
    pub value: Option<&'static str>,
    pub help: &'static str,
    /// The commands it applies to.
    pub commands: &'static [Cmd],
    /// Under `golden`, the golden runs it applies to (`mc`, `memory`); empty: every one.
    pub goldens: &'static [&'static str],
}

/// The golden run of a block (`warpsmith golden --block NAME`).
#[derive(Clone, Copy)]
pub struct GoldenEntry {
    /// The name `golden --block` takes (the memory system around Warped-MC is `mc`).
    pub name: &'static str,
    pub about: &'static str,
    /// The forms of `--stimulus` it takes (help text).
    pub stimuli: &'static str,
    pub run: fn(&Spec, &GoldenRun, &mut dyn std::io::Write) -> Result<(), GoldenError>,
    /// What its JSON output is (help of `warpsmith schema golden-NAME`).
    pub output: &'static str,
    /// The JSON schema of that output (of each line, for JSON lines).
    pub schema: fn() -> serde_json::Value,
}

/// Measures the throughput of the system around a block (`bench`).
pub type SystemThroughput = fn(&Spec, &BenchOptions) -> Result<Vec<Throughput>, CosimError>;

/// The harness instantiated with a block's driver: its co-simulation and its benchmark rows.
/// Built by [`DriverFns::of`], so both always use the same driver.
#[derive(Clone, Copy)]
pub struct DriverFns {
    cosim: fn(&'static BlockInfo, &Spec, &CosimOptions) -> Result<CosimReport, CosimError>,
    bench: fn(&'static BlockInfo, &Spec, &BenchOptions) -> Result<BenchReport, CosimError>,
}

impl DriverFns {
    pub const fn of<D: Driver>() -> DriverFns {
        DriverFns {
            cosim: crate::harness::cosim::<D>,
            bench: crate::bench::bench::<D>,
        }
    }
}

/// One hardware block. It reads as its [`BlockInfo`] (`entry.name`).
pub struct BlockEntry {
    pub info: BlockInfo,
    /// Its storage cost.
    pub cost: fn(&Spec) -> BlockCost,
    /// Its golden run.
    /// Its golden runs: the block's model, or the systems it lives in (Warped-MC: `mc`, the
    /// DRAM controllers alone, and `memory`, the whole memory side).
    pub golden: &'static [GoldenEntry],
    /// The forms of `--stimulus` its co-simulation takes (help text).
    pub stimuli: &'static str,
    /// The stimuli `flow` co-simulates it with.
    pub flow: &'static [&'static str],
    /// The configuration sections whose keys shape its RTL (regressions draw random
    /// configurations from them).
    pub key_sections: &'static [&'static str],
    /// Options only this block takes.
    pub options: &'static [BlockOption],
    /// Deliberately wrong RTL variants co-simulation must catch (`sim/mutants/<block>.toml`).
    pub mutants: Catalogue,
    /// Cycles of its `random` stimulus that catch every mutant on every preset (the default
    /// budget of `mutants` and of regression mutant jobs).
    pub mutant_cycles: u64,
    /// Its co-simulation driver, in the harness.
    pub driver: DriverFns,
    /// Throughput figures of the system around the block, if any (`bench`).
    pub system_throughput: Option<SystemThroughput>,
}

impl std::ops::Deref for BlockEntry {
    type Target = BlockInfo;
    fn deref(&self) -> &BlockInfo {
        &self.info
    }
}

impl BlockEntry {
    /// Co-simulate the block.
    pub fn cosim(&'static self, spec: &Spec, o: &CosimOptions) -> Result<CosimReport, CosimError> {
        (self.driver.cosim)(&self.info, spec, o)
    }

    /// Co-simulate one mutant (no shrinking, no waves) and say whether it was caught.
    pub fn run_mutant(
        &'static self,
        spec: &Spec,
        m: &'static Mutant,
        o: &CosimOptions,
    ) -> Result<MutantResult, CosimError> {
        if let Some(r) = MutantResult::equivalent(&self.mutants, m, spec) {
            return Ok(r);
        }
        let r = self.cosim(
            spec,
            &CosimOptions {
                mutant: Some(m),
                shrink: false,
                waves: None,
                ..o.clone()
            },
        )?;
        Ok(MutantResult::of(m, &r))
    }

    /// Benchmark the block: its rows, and the throughput of the system around it.
    pub fn bench(&'static self, spec: &Spec, o: &BenchOptions) -> Result<BenchReport, CosimError> {
        let mut r = (self.driver.bench)(&self.info, spec, o)?;
        if let Some(f) = self.system_throughput {
            r.system = f(spec, o)?;
        }
        r.met = r.cosim_ratio >= r.target && r.system.iter().all(|t| t.ratio >= 1.0);
        Ok(r)
    }

    /// Its mutants, in catalogue order.
    pub fn mutants(&'static self) -> Result<&'static [Mutant], SimError> {
        self.mutants.mutants()
    }

    /// A mutant by name (an unknown name is bad input).
    pub fn mutant(&'static self, name: &str) -> Result<&'static Mutant, CosimError> {
        let all = self.mutants()?;
        all.iter().find(|m| m.name == name).ok_or_else(|| {
            CosimError::BadInput(
                UnknownName {
                    what: "mutant",
                    name: name.to_string(),
                    of: format!(" of block {}", self.name),
                    known: all.iter().map(|m| m.name.as_str()).collect(),
                }
                .to_string(),
            )
        })
    }

    /// Whether the block takes option `name` in command `cmd`.
    /// The golden runs option `name` is limited to (empty: every one, or no such option).
    pub fn option_goldens(&self, name: &str) -> &'static [&'static str] {
        self.options
            .iter()
            .find(|o| o.name == name)
            .map_or(&[], |o| o.goldens)
    }

    pub fn takes(&self, name: &str, cmd: Cmd) -> bool {
        self.options
            .iter()
            .any(|o| o.name == name && o.commands.contains(&cmd))
    }
}

impl std::fmt::Display for BlockEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl std::fmt::Debug for BlockEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "BlockEntry({})", self.name)
    }
}

/// A name that is not in a list (a block, a mutant).
#[derive(Debug, Clone, thiserror::Error)]
#[error("unknown {what} `{name}`{of}; known: {}", known.join(", "))]
pub struct UnknownName {
    pub what: &'static str,
    pub name: String,
    pub of: String,
    pub known: Vec<&'static str>,
}
