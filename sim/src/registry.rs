//! The block registry: one entry per hardware block, which every command looks up. An entry
//! says what the block is (name, title, seed document) and where each of its parts lives: its
//! interface (spec), its RTL generator (rtlgen), its storage cost and golden run (golden), its
//! options, stimuli, mutant catalogue, co-simulation driver and benchmark (its module under
//! `sim/src/blocks/`). Adding a block is adding an entry (docs/architecture.md, "Adding a
//! block").

use crate::bench::{BenchOptions, BenchReport, Throughput};
use crate::harness::CosimOptions;
use crate::mutants::Mutant;
use crate::report::CosimReport;
use crate::CosimError;
use golden::cost::BlockCost;
use golden::run::{GoldenError, GoldenRun};
use rtlgen::{GenError, Generated, Target};
use spec::{Interface, PortSpec, Spec};

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
}

/// Measures the throughput of the system around a block (`bench`).
pub type SystemThroughput = fn(&Spec, &BenchOptions) -> Result<Vec<Throughput>, CosimError>;

/// One hardware block.
pub struct BlockEntry {
    /// Name on the command line (`--block NAME`).
    pub name: &'static str,
    /// One-line description (reports, file headers).
    pub title: &'static str,
    /// The source document, `../shared/seeds/NNN_*.txt`.
    pub seed: &'static str,
    /// The block's interface: parameters, enumerations, ports (clock and reset excluded).
    pub interface: fn(&Spec) -> Interface,
    /// Its RTL.
    pub render: fn(&Spec, &Target) -> Result<Generated, GenError>,
    /// Its storage cost.
    pub cost: fn(&Spec) -> BlockCost,
    /// Its golden run.
    pub golden: GoldenEntry,
    /// The forms of `--stimulus` its co-simulation takes (help text).
    pub stimuli: &'static str,
    /// The stimuli `flow` co-simulates it with.
    pub flow: &'static [&'static str],
    /// Options only this block takes.
    pub options: &'static [BlockOption],
    /// Deliberately wrong RTL variants co-simulation must catch.
    pub mutants: &'static [Mutant],
    /// Its co-simulation (the harness with the block's driver).
    pub cosim: fn(&'static BlockEntry, &Spec, &CosimOptions) -> Result<CosimReport, CosimError>,
    /// Its benchmark (the harness's rows with the block's driver).
    pub bench: fn(&'static BlockEntry, &Spec, &BenchOptions) -> Result<BenchReport, CosimError>,
    /// Throughput figures of the system around the block, if any (`bench`).
    pub system_throughput: Option<SystemThroughput>,
}

impl BlockEntry {
    /// The block's ports (clock and reset excluded).
    pub fn ports(&self, spec: &Spec) -> Vec<PortSpec> {
        (self.interface)(spec).ports
    }

    /// The block's RTL, module and package names prefixed with `prefix` (may be empty).
    pub fn generate(&self, spec: &Spec, prefix: &str) -> Result<Generated, GenError> {
        (self.render)(
            spec,
            &Target {
                block: self.name,
                title: self.title,
                prefix,
            },
        )
    }

    /// A mutant by name.
    pub fn mutant(&self, name: &str) -> Result<&'static Mutant, UnknownName> {
        self.mutants
            .iter()
            .find(|m| m.name == name)
            .ok_or_else(|| UnknownName {
                what: "mutant",
                name: name.to_string(),
                of: format!(" of block {}", self.name),
                known: self.mutants.iter().map(|m| m.name).collect(),
            })
    }

    /// Whether the block takes option `name` in command `cmd`.
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

/// Every block, in the order `flow` runs them.
pub static BLOCKS: &[BlockEntry] = &[
    crate::blocks::ot::ENTRY,
    crate::blocks::wmc::ENTRY,
    crate::blocks::dispatch::ENTRY,
];

/// A block by name.
pub fn find(name: &str) -> Result<&'static BlockEntry, UnknownName> {
    BLOCKS
        .iter()
        .find(|b| b.name == name)
        .ok_or_else(|| UnknownName {
            what: "block",
            name: name.to_string(),
            of: String::new(),
            known: BLOCKS.iter().map(|b| b.name).collect(),
        })
}

/// A block by the name of its golden run (`mc` for Warped-MC's memory system).
pub fn find_golden(name: &str) -> Result<&'static BlockEntry, UnknownName> {
    BLOCKS
        .iter()
        .find(|b| b.golden.name == name)
        .ok_or_else(|| UnknownName {
            what: "golden model",
            name: name.to_string(),
            of: String::new(),
            known: BLOCKS.iter().map(|b| b.golden.name).collect(),
        })
}
