//! `flow`: the main job — generate every block's RTL, co-simulate it, print its cost.

use crate::args::FlowArgs;
use crate::cmd::cosim::{cosim_err, print_report};
use crate::cmd::thousands;
use crate::CliResult;
use golden::cost::block_cost;
use golden::spec::Block;
use sim::ot::{CosimOptions, Stimulus};
use std::process::ExitCode;

pub fn run(a: &FlowArgs) -> CliResult<ExitCode> {
    let spec = a.config.resolve()?;
    println!(
        "warpsmith flow  config {} (hash {})  -> {}",
        spec.name,
        spec.hash,
        a.out.display()
    );
    let mut all_pass = true;
    let mut summary = Vec::new();
    for block in Block::ALL {
        let dir = a.out.join(block.name());
        let g = rtlgen::generate(&spec, *block)?;
        g.write_to(&dir)?;
        println!("\n[{block}] {}", block.title());
        println!(
            "  generated {} -> {}",
            g.files
                .iter()
                .map(|f| f.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            dir.display()
        );
        let stimuli = match block {
            Block::Ot => vec![Stimulus::Random, Stimulus::Kernel("all".into())],
            Block::WarpedMc => vec![],
        };
        for stimulus in stimuli {
            println!(
                "  cosim: stimulus {stimulus}, {} cycles",
                thousands(a.cycles)
            );
            let report = sim::ot::cosim(
                &spec,
                &CosimOptions {
                    stimulus,
                    cycles: Some(a.cycles),
                    seed: a.seed,
                    waves: None,
                    mutant: None,
                    out_dir: a.out.join("repro"),
                    command: format!("warpsmith cosim --block {block} {}", a.config.as_args()),
                    shrink: true,
                    progress: None,
                },
            )
            .map_err(cosim_err)?;
            print_report(&report, None);
            all_pass &= report.failure.is_none();
            summary.push((block, report.stimulus.clone(), report.result));
        }
        let cost = block_cost(&spec, *block);
        println!();
        crate::cmd::cost::print_table(&cost);
    }
    println!("\nsummary:");
    for (b, s, r) in &summary {
        println!("  {b:4} {s:22} {}", r.to_uppercase());
    }
    Ok(if all_pass {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
