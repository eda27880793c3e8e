//! warpsmith co-simulation.
//!
//! * [`toolchain`]: find Verilator (>= 5.006) and the C++ compiler.
//! * [`build`]: `verilator --cc` + a generated C ABI shim into a cached shared library.
//! * [`model`]: the loaded library, one function pointer per port.
//! * [`lockstep`]: block-agnostic lockstep of a golden [`golden::block::CycleModel`] and its RTL,
//!   comparing every output port every cycle.
//! * [`ot`]: the OT co-simulation: stimulus sources, statistics, failure reports, shrinking.
//! * [`mutants`]: deliberately wrong RTL variants that co-simulation must catch.
//! * [`tools`]: lint and Yosys synthesis of generated RTL.

pub mod bench;
pub mod build;
pub mod dispatch;
pub mod lockstep;
pub mod model;
pub mod mutants;
pub mod ot;
pub mod registry;
pub mod report;
pub mod rtl;
pub mod shrink;
pub mod toolchain;
pub mod tools;
pub mod wmc;

use thiserror::Error;

/// Co-simulation failures other than a golden/RTL mismatch (which is a result, not an error).
#[derive(Debug, Error)]
pub enum SimError {
    #[error("Verilator >= 5.006 is required but was not found ({found}); run scripts/setup.sh, or set WARPSMITH_VERILATOR to a verilator binary")]
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
    Mutant { name: &'static str, why: String },
    #[error("{0}")]
    Io(String),
}

/// A co-simulation that could not run: bad input (exit 2 at the CLI) or a tool failure.
#[derive(Debug, Error)]
pub enum CosimError {
    #[error("{0}")]
    BadInput(String),
    #[error(transparent)]
    Sim(#[from] SimError),
}
