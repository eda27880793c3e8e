//! `flow`: the main job — generate every block's RTL, co-simulate it, print its cost.

use crate::args::FlowArgs;
use crate::cmd::cosim::{cosim_err, print_report, print_wmc_report};
use crate::cmd::thousands;
use crate::CliResult;
use golden::mc::stimulus::LoadClass;
use sim::ot::{CosimOptions, Stimulus};
use sim::wmc::{McStimulus, WmcOptions};
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
    for block in sim::registry::BLOCKS {
        let dir = a.out.join(block.name);
        let g = block.generate(&spec, "")?;
        g.write_to(&dir)?;
        println!("\n[{block}] {}", block.title);
        println!(
            "  generated {} -> {}",
            g.files
                .iter()
                .map(|f| f.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            dir.display()
        );
        match block.name {
            "ot" => {
                for stimulus in [Stimulus::Random, Stimulus::Kernel("all".into())] {
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
                            command: format!(
                                "warpsmith cosim --block {block} {}",
                                a.config.as_args()
                            ),
                            shrink: true,
                            progress: None,
                        },
                    )
                    .map_err(cosim_err)?;
                    print_report(&report, None);
                    all_pass &= report.failure.is_none();
                    summary.push((block, report.stimulus.clone(), report.result));
                }
            }
            "warped-mc" => {
                for stimulus in [McStimulus::Random, McStimulus::class(LoadClass::Hoa)] {
                    println!(
                        "  cosim: stimulus {stimulus}, {} cycles, group 0, scheduler warped",
                        thousands(a.cycles)
                    );
                    let report = sim::wmc::cosim(
                        &spec,
                        &WmcOptions {
                            stimulus,
                            cycles: Some(a.cycles),
                            seed: a.seed,
                            group: 0,
                            waves: None,
                            mutant: None,
                            out_dir: a.out.join("repro"),
                            command: format!(
                                "warpsmith cosim --block {block} {}",
                                a.config.as_args()
                            ),
                            shrink: true,
                            progress: None,
                        },
                    )
                    .map_err(cosim_err)?;
                    print_wmc_report(&report, None);
                    all_pass &= report.failure.is_none();
                    summary.push((block, report.stimulus.clone(), report.result));
                }
            }
            _ => {
                for stimulus in [
                    sim::dispatch::DispStimulus::Random,
                    sim::dispatch::DispStimulus::Kernel("colmajor".into()),
                ] {
                    println!(
                        "  cosim: stimulus {stimulus}, {} cycles",
                        thousands(a.cycles)
                    );
                    let report = sim::dispatch::cosim(
                        &spec,
                        &sim::dispatch::DispOptions {
                            stimulus,
                            cycles: Some(a.cycles),
                            seed: a.seed,
                            waves: None,
                            mutant: None,
                            command: format!(
                                "warpsmith cosim --block {block} {}",
                                a.config.as_args()
                            ),
                            shrink: true,
                            out_dir: a.out.join("repro"),
                            progress: None,
                        },
                    )
                    .map_err(cosim_err)?;
                    crate::cmd::cosim::print_dispatch_report(&report);
                    all_pass &= report.failure.is_none();
                    summary.push((block, report.stimulus.clone(), report.result));
                }
            }
        }
        let cost = (block.cost)(&spec);
        println!();
        crate::cmd::cost::print_table(&cost);
    }
    println!("\nsummary:");
    for (b, s, r) in &summary {
        println!("  {:10} {s:22} {}", b.name, r.to_uppercase());
    }
    Ok(if all_pass {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
