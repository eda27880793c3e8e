//! `flow`: the main job — generate every block's RTL, co-simulate it, print its cost.

use crate::args::FlowArgs;
use crate::cmd::cosim::{cosim_err, options, print_report};
use crate::cmd::thousands;
use crate::CliResult;
use sim::blocks::BLOCKS;
use sim::report::Verdict;
use std::process::ExitCode;

pub fn run(a: &FlowArgs) -> CliResult<ExitCode> {
    let spec = a.config.resolve()?;
    // Before anything is written: a run that would check nothing replaces no earlier output.
    sim::harness::check_cycles(Some(a.cycles)).map_err(cosim_err)?;
    println!(
        "warpsmith flow  config {} (hash {})  -> {}",
        spec.name,
        spec.hash,
        a.out.display()
    );
    // Every block's RTL is rendered before anything is written; each block's folder is then
    // replaced whole.
    let mut generated = Vec::new();
    for block in BLOCKS {
        generated.push(block.generate(&spec, "")?);
    }
    crate::out::writable_dir(&a.out, "--out")?;
    for (block, g) in BLOCKS.iter().zip(&generated) {
        crate::out::replace_dir(&a.out.join(block.name), |dir| Ok(g.write_to(dir)?))?;
    }
    let mut all_pass = true;
    let mut summary = Vec::new();
    for (block, g) in BLOCKS.iter().zip(&generated) {
        println!("\n[{block}] {}", block.title);
        println!(
            "  generated {} -> {}",
            g.files
                .iter()
                .map(|f| f.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            a.out.join(block.name).display()
        );
        for stimulus in block.flow {
            println!(
                "  cosim: stimulus {stimulus}, {} cycles",
                thousands(a.cycles)
            );
            let o = sim::harness::CosimOptions {
                out_dir: a.out.join("repro"),
                ..options(
                    &a.config,
                    stimulus,
                    Some(a.cycles),
                    a.seed,
                    golden::run::BlockOpts::default(),
                )
            };
            let report = block.cosim(&spec, &o).map_err(cosim_err)?;
            print_report(&report);
            all_pass &= report.verdict == Verdict::Pass;
            summary.push((block.name, report.stimulus.clone(), report.verdict));
        }
        let cost = (block.cost)(&spec);
        println!();
        crate::cmd::cost::print_table(&cost);
    }
    println!("\nsummary:");
    for (b, s, v) in &summary {
        println!("  {b:10} {s:22} {}", v.word());
    }
    Ok(if all_pass {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
