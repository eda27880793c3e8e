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
pub use package::schema_reports;
mod regress;
mod reproduce;
mod run;
mod sweep;
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
        Command::Sweep(a) => sweep::run(&a),
        Command::Reproduce(a) => reproduce::run(&a),
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

/// Check the runner options `regress`, `sweep` and `reproduce` share: workers and seconds a job.
pub fn check_runner(jobs: Option<usize>, timeout: Option<u64>) -> CliResult {
    if jobs == Some(0) {
        return Err(crate::bad(anyhow::anyhow!(
            "-j 0: give at least one worker"
        )));
    }
    if timeout == Some(0) {
        return Err(crate::bad(anyhow::anyhow!(
            "--timeout 0: give at least one second"
        )));
    }
    Ok(())
}

/// Say what a run of jobs into `out` mended or found in its `results.jsonl`: a last line a
/// kill cut short, removed before anything was appended (its job ran again), and jobs recorded
/// more than once (the first result counts).
pub fn note_mended(out: &std::path::Path, repaired: u64, duplicated: &[String]) {
    let results = out.join(sim::regress::results::RESULTS);
    if repaired > 0 {
        note!(
            "{}: its last line was cut short ({repaired} bytes, a killed run?) and was removed \
                before results were appended; its job ran again",
            results.display()
        );
    }
    if !duplicated.is_empty() {
        note!(
            "{}: {} job(s) recorded more than once (the same job run twice; the first result \
                counts): {}",
            results.display(),
            duplicated.len(),
            duplicated.join(" ")
        );
    }
}

/// Jobs at once: `-j N`, else the machine's cores.
pub fn workers(jobs: Option<usize>) -> usize {
    jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// A flag that Ctrl-C or SIGTERM sets: a runner stops starting jobs and stops the running ones.
pub fn interrupt_flag() -> CliResult<std::sync::Arc<std::sync::atomic::AtomicBool>> {
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, std::sync::Arc::clone(&stop))?;
    }
    Ok(stop)
}
