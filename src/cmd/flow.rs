//! `flow`: the main job — generate every block's RTL, co-simulate it, print its cost.

use crate::args::FlowArgs;
use crate::cmd::cosim::{cosim_err, options, print_report};
use crate::cmd::thousands;
use crate::out::files_of;
use crate::CliResult;
use sim::blocks::BLOCKS;
use sim::report::Verdict;
use std::process::ExitCode;

/// The folder of `--out` that takes the reproducers of failures.
const REPRO: &str = "repro";

pub fn run(a: &FlowArgs) -> CliResult<ExitCode> {
    // Every block's RTL is rendered and every target checked before anything is written: a
    // run that would check nothing, or that cannot write one block's folder, writes none.
    let mut names: Vec<&str> = BLOCKS.iter().map(|b| b.name).collect();
    names.push(REPRO);
    let (spec, generated) = a.config.resolve_with(|spec| {
        sim::harness::check_cycles(Some(a.cycles)).map_err(cosim_err)?;
        crate::out::check_claim(&a.out, &names, "--out")?;
        let mut generated = Vec::new();
        for block in BLOCKS {
            let g = block.generate(spec, "")?;
            crate::out::check_folder(&a.out.join(block.name), &files_of(&g), "--out")?;
            generated.push(g);
        }
        Ok(generated)
    })?;
    outln!(
        "warpsmith flow  config {} (hash {})  -> {}",
        spec.name,
        spec.hash,
        a.out.display()
    )?;
    // The folder `--out` keeps whatever else it holds; each block's folder is replaced.
    crate::out::claim(&a.out, &names, "--out")?;
    for (block, g) in BLOCKS.iter().zip(&generated) {
        crate::out::replace_folder(&a.out.join(block.name), &files_of(g), "--out")?;
    }
    let mut summary = Vec::new();
    for (block, g) in BLOCKS.iter().zip(&generated) {
        outln!("\n[{block}] {}", block.title)?;
        outln!(
            "  generated {} -> {}",
            g.files
                .iter()
                .map(|f| f.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            a.out.join(block.name).display()
        )?;
        for stimulus in block.flow {
            outln!(
                "  cosim: stimulus {stimulus}, {} cycles",
                thousands(a.cycles)
            )?;
            let o = sim::harness::CosimOptions {
                out_dir: a.out.join(REPRO),
                ..options(
                    &a.config,
                    stimulus,
                    Some(a.cycles),
                    a.seed,
                    golden::run::BlockOpts::default(),
                )
            };
            let report = block.cosim(&spec, &o).map_err(cosim_err)?;
            print_report(&report)?;
            summary.push((block.name, report.stimulus.clone(), report.verdict));
        }
        let cost = (block.cost)(&spec);
        outln!()?;
        crate::cmd::cost::print_table(&cost)?;
    }
    outln!("\nsummary:")?;
    for (b, s, v) in &summary {
        outln!("  {b:10} {s:22} {}", v.word())?;
    }
    // A failure exits 1; else a run that checked nothing exits 2 (as `cosim` does).
    Ok(ExitCode::from(
        Verdict::of_all(summary.iter().map(|(_, _, v)| *v)).exit_code(),
    ))
}
