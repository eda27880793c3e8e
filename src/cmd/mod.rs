//! One function per subcommand.

mod bench;
mod check;
mod correlate;
mod cosim;
mod cost;
mod describe;
mod flow;
mod generate;
mod golden_cmd;
mod package;
mod regress;
mod run;
mod trace;

use crate::args::{Cli, Command};
use crate::CliResult;
use std::process::ExitCode;

pub fn run(cli: Cli) -> CliResult<ExitCode> {
    match cli.command {
        Command::Flow(a) => flow::run(&a),
        Command::Presets => describe::presets(),
        Command::Workloads => describe::workloads(),
        Command::Trace(a) => trace::run(&a),
        Command::Describe(a) => describe::describe(&a),
        Command::Generate(a) => generate::run(&a),
        Command::Golden(a) => golden_cmd::run(&a),
        Command::Cosim(a) => cosim::run(&a),
        Command::Mutants(a) => cosim::mutants(&a),
        Command::Cost(a) => cost::run(&a),
        Command::Check(a) => check::run(&a),
        Command::Bench(a) => bench::run(&a),
        Command::Run(a) => run::run(&a),
        Command::Correlate(a) => correlate::run(&a),
        Command::Regress(a) => regress::run(&a),
        Command::Schema(a) => package::schema(&a),
        Command::Completions(a) => package::completions(&a),
        Command::Manpages(a) => package::manpages(&a),
    }
}

/// Print JSON to stdout.
pub fn print_json(v: &impl serde::Serialize) -> CliResult {
    outln!("{}", serde_json::to_string_pretty(v)?)?;
    Ok(())
}

/// A number with thousands separators.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Whether progress bars may be drawn (stderr is a terminal; indicatif checks it too).
pub fn show_progress() -> bool {
    std::io::IsTerminal::is_terminal(&std::io::stderr())
}
