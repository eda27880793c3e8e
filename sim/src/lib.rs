//! warpsmith co-simulation.
//!
//! * [`registry`]: one entry per block; every command looks blocks up there.
//! * [`harness`]: the co-simulation written once: budget, progress, failure report, reproduce
//!   command, shrinking, waves, mutant runs; [`blocks`] holds each block's driver.
//! * [`lockstep`]: block-agnostic lockstep of a golden model and its RTL through the block's
//!   codec, comparing every output port every cycle; [`report`]: what a run reports.
//! * [`toolchain`], [`build`], [`model`]: find Verilator, build a Verilated model with a C ABI
//!   shim into a cached shared library, load it.
//! * [`rtl`]: a block's RTL for a spec, with a mutant applied ([`mutants`]).
//! * [`tools`]: lint and Yosys synthesis of generated RTL; [`bench`]: speed against a plain
//!   C++ Verilator loop.
//! * [`block`]: what the harness needs of a block; [`regress`]: regression lists, run on one
//!   machine or Slurm; [`shrink`]: shrinking a failing stimulus; [`progress`]: progress bars.
//! * [`correlate`]: a run's kernels held against a table of hardware counters.
//! * [`sweep`]: experiments, `warpsmith run` jobs on the regression runner, into one table;
//!   [`reproduce`]: each seed's headline comparisons as a sweep, held against its paper.

pub mod bench;
pub mod block;
pub mod blocks;
pub mod build;
pub mod correlate;
pub mod harness;
pub mod lockstep;
pub mod model;
pub mod mutants;
pub mod progress;
pub mod registry;
pub mod regress;
pub mod report;
pub mod reproduce;
pub mod rtl;
pub mod shrink;
pub mod sweep;
pub mod toolchain;
pub mod tools;

use thiserror::Error;

/// Co-simulation failures other than a golden/RTL mismatch (which is a result, not an error).
#[derive(Debug, Error)]
pub enum SimError {
    #[error(
        "Verilator >= 5.006 is required but was not found ({found}); run scripts/setup.sh, or \
        set WARPSMITH_VERILATOR to a verilator binary"
    )]
    NoVerilator { found: String },
    #[error("model build failed: {0}")]
    Build(String),
    #[error("generated RTL does not match the spec's interface: {0}")]
    PortMismatch(String),
    #[error("cannot load model: {0}")]
    Load(String),
    #[error("RTL assertion failed: {0}")]
    Assertion(String),
    #[error("mutant {name} does not apply: {why}")]
    Mutant { name: String, why: String },
    #[error("mutant catalogue {path} is malformed: {why}")]
    Catalogue { path: &'static str, why: String },
    #[error("{0}")]
    Io(String),
}

/// A co-simulation that could not run: bad input (exit 2 at the CLI), a golden model that
/// stopped, or a tool failure.
#[derive(Debug, Error)]
pub enum CosimError {
    #[error("{0}")]
    BadInput(String),
    #[error("the golden model stopped: {0}")]
    Model(String),
    #[error(transparent)]
    Sim(#[from] SimError),
}

impl From<golden::run::BadInput> for CosimError {
    fn from(e: golden::run::BadInput) -> CosimError {
        CosimError::BadInput(e.0)
    }
}

impl From<golden::block::CodecError> for CosimError {
    fn from(e: golden::block::CodecError) -> CosimError {
        CosimError::Sim(SimError::PortMismatch(e.to_string()))
    }
}
