//! `bench`.

use crate::args::{BenchArgs, BlockArg, Format};
use crate::cmd::cosim::cosim_err;
use crate::cmd::thousands;
use crate::{bad, CliResult};
use sim::ot::Stimulus;
use std::process::ExitCode;

pub fn run(a: &BenchArgs) -> CliResult<ExitCode> {
    let spec = a.config.resolve()?;
    match a.block {
        BlockArg::Ot => {}
    }
    let stimulus: Stimulus = a.stimulus.parse().map_err(bad)?;
    if a.format == Format::Text {
        println!(
            "bench ot  config {} (hash {})  stimulus {}  {} cycles (same precomputed inputs for every row)",
            spec.name,
            spec.hash,
            stimulus,
            thousands(a.cycles)
        );
    }
    let r = sim::bench::bench_ot(&spec, &stimulus, a.cycles, a.seed).map_err(cosim_err)?;
    match a.format {
        Format::Json => super::print_json(&r)?,
        Format::Text => {
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
                if r.cosim_ratio >= r.target {
                    "met"
                } else {
                    "NOT met"
                }
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
