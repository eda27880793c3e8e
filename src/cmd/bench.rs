//! `bench`: the registry's benchmark of a block. A target not met exits 1.

use crate::args::{block, BenchArgs, Format};
use crate::cmd::cosim::cosim_err;
use crate::cmd::thousands;
use crate::CliResult;
use sim::bench::{BenchOptions, BenchReport};
use std::process::ExitCode;

pub fn run(a: &BenchArgs) -> CliResult<ExitCode> {
    let block = block(&a.block)?;
    let opts = a.block_args.for_block(block)?;
    let spec = a.config.resolve()?;
    if a.cycles == 0 {
        return Err(crate::bad(anyhow::anyhow!(
            "--cycles 0 would measure nothing: give at least 1 cycle"
        )));
    }
    let text = a.format == Format::Text;
    if text {
        outln!(
            "bench {block}  config {} (hash {})  stimulus {}  {} cycles (same precomputed inputs \
                for every row)",
            spec.name,
            spec.hash,
            a.stimulus,
            thousands(a.cycles)
        )?;
    }
    let r = block
        .bench(
            &spec,
            &BenchOptions {
                stimulus: a.stimulus.clone(),
                cycles: a.cycles,
                seed: a.seed,
                opts,
                progress: text && super::show_progress(),
            },
        )
        .map_err(cosim_err)?;
    match a.format {
        Format::Json => super::print_json(&r)?,
        Format::Text => print(&r)?,
    }
    Ok(if r.met {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn met(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "NOT met"
    }
}

fn print(r: &BenchReport) -> CliResult {
    for m in &r.measures {
        outln!(
            "  {:40} {:>12} cycles/s   {:>6.2} x ceiling",
            m.what,
            thousands(m.cycles_per_second as u64),
            m.ratio
        )?;
    }
    outln!(
        "  co-simulation / plain C++ loop = {:.2} (target >= {:.2}: {})",
        r.cosim_ratio,
        r.target,
        met(r.cosim_ratio >= r.target)
    )?;
    if !r.system.is_empty() {
        outln!(
            "  the system around the block, one core (fastest of {} runs):",
            sim::bench::THROUGHPUT_RUNS
        )?;
        for t in &r.system {
            let runs: Vec<String> = t.runs.iter().map(|s| format!("{s:.2}")).collect();
            outln!(
                "    {:21} {:>10} requests {:>11} cycles (DRAM bus {:>4.1}%) in {:>6.2} s = \
                    {:>10} requests/s   {:>5.2} x target ({})   runs {} s",
                t.what,
                thousands(t.requests),
                thousands(t.cycles),
                100.0 * t.dram_bandwidth,
                t.seconds,
                thousands(t.requests_per_second as u64),
                t.ratio,
                met(t.ratio >= 1.0),
                runs.join(" / ")
            )?;
        }
        outln!(
            "    target >= {} requests/s each",
            thousands(sim::bench::THROUGHPUT_TARGET as u64)
        )?;
    }
    Ok(())
}
