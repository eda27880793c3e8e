//! `bench`.

use crate::args::{BenchArgs, BlockArg, Format};
use crate::cmd::cosim::cosim_err;
use crate::cmd::thousands;
use crate::{bad, CliResult};
use sim::bench::BenchReport;
use std::process::ExitCode;

pub fn run(a: &BenchArgs) -> CliResult<ExitCode> {
    let spec = a.config.resolve()?;
    let text = a.format == Format::Text;
    let r = match a.block {
        BlockArg::Ot => {
            let stimulus: sim::ot::Stimulus = a.stimulus.parse().map_err(bad)?;
            if text {
                header("ot", &spec, &stimulus.to_string(), a.cycles);
            }
            sim::bench::bench_ot(&spec, &stimulus, a.cycles, a.seed).map_err(cosim_err)?
        }
        BlockArg::WarpedMc => {
            let stimulus: sim::wmc::McStimulus = a.stimulus.parse().map_err(bad)?;
            if text {
                header("warped-mc", &spec, &stimulus.to_string(), a.cycles);
                eprintln!("  (recording the block's inputs from the golden memory system, then measuring; the memory-system rows run every scheduler on HOA warp loads)");
            }
            sim::bench::bench_wmc(&spec, &stimulus, a.cycles, a.seed).map_err(cosim_err)?
        }
        BlockArg::Dispatch => {
            let stimulus: sim::dispatch::DispStimulus = a.stimulus.parse().map_err(cosim_err)?;
            if text {
                header("dispatch", &spec, &stimulus.to_string(), a.cycles);
            }
            sim::bench::bench_dispatch(&spec, &stimulus, a.cycles, a.seed).map_err(cosim_err)?
        }
    };
    match a.format {
        Format::Json => super::print_json(&r)?,
        Format::Text => print(&r),
    }
    Ok(ExitCode::SUCCESS)
}

fn header(block: &str, spec: &spec::Spec, stimulus: &str, cycles: u64) {
    println!(
        "bench {block}  config {} (hash {})  stimulus {stimulus}  {} cycles (same precomputed inputs for every row)",
        spec.name,
        spec.hash,
        thousands(cycles)
    );
}

fn met(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "NOT met"
    }
}

fn print(r: &BenchReport) {
    for m in &r.measures {
        println!(
            "  {:40} {:>12} cycles/s   {:>6.2} x ceiling",
            m.what,
            thousands(m.cycles_per_second as u64),
            m.ratio
        );
    }
    println!(
        "  co-simulation / plain C++ loop = {:.2} (target >= {:.2}: {})",
        r.cosim_ratio,
        r.target,
        met(r.cosim_ratio >= r.target)
    );
    if !r.memory_system.is_empty() {
        println!(
            "  golden memory system, HOA warp loads, one core (fastest of {} runs):",
            sim::bench::THROUGHPUT_RUNS
        );
        for t in &r.memory_system {
            let runs: Vec<String> = t.runs.iter().map(|s| format!("{s:.2}")).collect();
            println!(
                "    {:9} {:>10} requests {:>11} cycles in {:>6.2} s = {:>10} requests/s   {:>5.2} x target ({})   runs {} s",
                t.scheduler,
                thousands(t.requests),
                thousands(t.cycles),
                t.seconds,
                thousands(t.requests_per_second as u64),
                t.ratio,
                met(t.ratio >= 1.0),
                runs.join(" / ")
            );
        }
        println!(
            "    target >= {} requests/s per scheduler",
            thousands(sim::bench::THROUGHPUT_TARGET as u64)
        );
    }
}
