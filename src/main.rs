//! `warpsmith`: generate RTL for the GPU memory-system blocks, co-simulate it against the golden
//! model under Verilator, and estimate its storage cost — from one command line.
//!
//! Exit codes: 0 success; 1 a check failed (mismatch, uncaught mutant, tool failure, a target
//! not met) or an internal failure of the model; 2 bad input (configuration, stimulus, kernel,
//! trace, regression list or results file, command-line usage), an output that cannot be
//! written (a path, a full disk, standard output), or a run that checked nothing.

#[macro_use]
mod out;
mod args;
mod cmd;

use clap::FromArgMatches;
use std::process::ExitCode;

/// mimalloc rather than the system allocator (see the workspace Cargo.toml).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The version `--version` prints and every result records: the package's, with the git
/// revision it was built from (build.rs).
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (git ",
    env!("WARPSMITH_GIT_REV"),
    ")"
);

/// The version alone, and the git revision (`VERSION` has both).
pub const PKG_VERSION: &str = env!("CARGO_PKG_VERSION");
pub const GIT_REV: &str = env!("WARPSMITH_GIT_REV");

/// This build and this command line, the origin of every report.
pub fn origin() -> golden::report::Origin {
    golden::report::Origin {
        version: PKG_VERSION.to_string(),
        git_rev: GIT_REV.to_string(),
        command_line: std::env::args().collect(),
    }
}

/// The provenance of a JSON report of `schema` on `spec`: this build and this command line.
pub fn provenance(schema: &str, spec: &spec::Spec) -> golden::report::Provenance {
    origin().provenance(schema, spec)
}

/// An error with the exit code it maps to.
pub struct CliError {
    pub code: u8,
    pub err: anyhow::Error,
}

impl<E: Into<anyhow::Error>> From<E> for CliError {
    fn from(e: E) -> CliError {
        CliError {
            code: 1,
            err: e.into(),
        }
    }
}

/// Bad input: exit code 2.
pub fn bad(e: impl Into<anyhow::Error>) -> CliError {
    CliError {
        code: 2,
        err: e.into(),
    }
}

pub type CliResult<T = ()> = Result<T, CliError>;

fn main() -> ExitCode {
    // Rust ignores SIGPIPE, so a write to a closed pipe (`warpsmith describe | head`) would be
    // an error on every later print and a panic in `println!`; restore the default action, which
    // ends the process quietly as other command-line tools do. (Results a regression has
    // recorded are on disk already.)
    #[cfg(unix)]
    // SAFETY: called first in main, before any thread exists; SIG_DFL is a valid action.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = match args::Cli::from_arg_matches(&args::command().get_matches()) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    match cmd::run(cli).and_then(|code| out::flush().map(|()| code)) {
        Ok(code) => code,
        Err(e) => {
            note!("error: {:#}", e.err);
            ExitCode::from(e.code)
        }
    }
}
