//! `cosim` and `mutants`.

use crate::args::{CosimArgs, Format, MutantsArgs};
use crate::cmd::thousands;
use crate::{bad, CliResult};
use sim::ot::{CosimOptions, CosimReport, Stimulus};
use sim::report::Failure;
use sim::CosimError;
use std::process::ExitCode;

/// Bad stimulus or configuration exits 2; tool failures exit 1.
pub fn cosim_err(e: CosimError) -> crate::CliError {
    match e {
        CosimError::BadInput(_) => bad(e),
        other => other.into(),
    }
}

fn progress(done: u64, limit: u64, rate: f64) {
    if limit == u64::MAX {
        eprintln!("  ... {} cycles, {:.0} cycles/s", thousands(done), rate);
    } else {
        eprintln!(
            "  ... {}/{} cycles ({:.0}%), {:.0} cycles/s",
            thousands(done),
            thousands(limit),
            100.0 * done as f64 / limit as f64,
            rate
        );
    }
}

pub fn run(a: &CosimArgs) -> CliResult<ExitCode> {
    match a.block {
        crate::args::BlockArg::WarpedMc => return run_wmc(a),
        crate::args::BlockArg::Dispatch => return run_dispatch(a),
        crate::args::BlockArg::Ot => {}
    }
    let spec = a.config.resolve()?;
    let block = a.block.block();
    let mutant = a
        .mutant
        .as_deref()
        .map(|m| block.mutant(m))
        .transpose()
        .map_err(bad)?;
    let stimulus: Stimulus = a.stimulus.parse().map_err(bad)?;
    let command = format!("warpsmith cosim --block {block} {}", a.config.as_args());
    let text = a.format == Format::Text;
    if text {
        println!(
            "cosim {block}  config {} (hash {})  stimulus {}  seed {}{}",
            spec.name,
            spec.hash,
            stimulus,
            a.seed,
            mutant
                .map(|m| format!("  MUTANT {}", m.name))
                .unwrap_or_default()
        );
    }
    let report = sim::ot::cosim(
        &spec,
        &CosimOptions {
            stimulus,
            cycles: a.cycles,
            seed: a.seed,
            waves: a.waves.clone(),
            mutant,
            out_dir: a.out_dir.clone(),
            command,
            shrink: !a.no_shrink,
            progress: if text { Some(&progress) } else { None },
        },
    )
    .map_err(cosim_err)?;
    match a.format {
        Format::Json => super::print_json(&report)?,
        Format::Text => print_report(&report, a.waves.as_deref()),
    }
    Ok(if report.failure.is_none() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn run_wmc(a: &CosimArgs) -> CliResult<ExitCode> {
    let spec = a.config.resolve()?;
    let block = &sim::wmc::ENTRY;
    let mutant = a
        .mutant
        .as_deref()
        .map(|m| block.mutant(m))
        .transpose()
        .map_err(bad)?;
    let stimulus: sim::wmc::McStimulus = a.stimulus.parse().map_err(bad)?;
    let text = a.format == Format::Text;
    if text {
        println!(
            "cosim {block}  config {} (hash {})  stimulus {}  seed {}  group {} (scheduler: warped){}",
            spec.name,
            spec.hash,
            stimulus,
            a.seed,
            a.group,
            mutant.map(|m| format!("  MUTANT {}", m.name)).unwrap_or_default()
        );
    }
    let report = sim::wmc::cosim(
        &spec,
        &sim::wmc::WmcOptions {
            stimulus,
            cycles: a.cycles,
            seed: a.seed,
            group: a.group,
            waves: a.waves.clone(),
            mutant,
            out_dir: a.out_dir.clone(),
            command: format!("warpsmith cosim --block {block} {}", a.config.as_args()),
            shrink: !a.no_shrink,
            progress: if text { Some(&progress) } else { None },
        },
    )
    .map_err(cosim_err)?;
    match a.format {
        Format::Json => super::print_json(&report)?,
        Format::Text => print_wmc_report(&report, a.waves.as_deref()),
    }
    Ok(if report.failure.is_none() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn run_dispatch(a: &CosimArgs) -> CliResult<ExitCode> {
    let spec = a.config.resolve()?;
    let block = &sim::dispatch::ENTRY;
    let mutant = a
        .mutant
        .as_deref()
        .map(|m| block.mutant(m))
        .transpose()
        .map_err(bad)?;
    let stimulus: sim::dispatch::DispStimulus = a.stimulus.parse().map_err(cosim_err)?;
    let text = a.format == Format::Text;
    if text {
        println!(
            "cosim {block}  config {} (hash {})  stimulus {}  seed {}{}",
            spec.name,
            spec.hash,
            stimulus,
            a.seed,
            mutant
                .map(|m| format!("  MUTANT {}", m.name))
                .unwrap_or_default()
        );
    }
    let report = sim::dispatch::cosim(
        &spec,
        &sim::dispatch::DispOptions {
            stimulus,
            cycles: a.cycles,
            seed: a.seed,
            waves: a.waves.clone(),
            mutant,
            command: format!("warpsmith cosim --block {block} {}", a.config.as_args()),
            shrink: !a.no_shrink,
            out_dir: a.out_dir.clone(),
            progress: if text { Some(&progress) } else { None },
        },
    )
    .map_err(cosim_err)?;
    match a.format {
        Format::Json => super::print_json(&report)?,
        Format::Text => {
            print_dispatch_report(&report);
            if let Some(w) = &a.waves {
                println!("  waves: {}", w.display());
            }
        }
    }
    Ok(if report.failure.is_none() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

pub fn print_dispatch_report(report: &sim::dispatch::DispReport) {
    println!(
        "  model: {} in {:.1} s",
        if report.model_cached {
            "cached"
        } else {
            "built"
        },
        report.build_seconds
    );
    match &report.failure {
        None => println!(
            "  PASS  {} cycles ({} blocks enqueued, {} dispatched) in {:.1} s ({} cycles/s); every output port matched every cycle",
            thousands(report.cycles),
            thousands(report.enqueued),
            thousands(report.dispatched),
            report.seconds,
            thousands(report.cycles_per_second as u64)
        ),
        Some(f) => print_failure(f),
    }
}

pub fn print_wmc_report(report: &sim::wmc::WmcReport, waves: Option<&std::path::Path>) {
    println!(
        "  model: {} in {:.1} s",
        if report.model_cached {
            "cached"
        } else {
            "built"
        },
        report.build_seconds
    );
    match &report.failure {
        None => println!(
            "  PASS  {} cycles ({} requests completed) in {:.1} s ({} cycles/s); every output port matched every cycle",
            thousands(report.cycles),
            thousands(report.requests),
            report.seconds,
            thousands(report.cycles_per_second as u64)
        ),
        Some(f) => print_failure(f),
    }
    let m = &report.memory;
    println!(
        "  memory: bandwidth_util {:.3}  row_hit_rate {:.3}  latency mean {:.1}  divergence mean {:.1}  warp_time mean {:.1}",
        m.bandwidth_util, m.row_hit_rate, m.latency.mean, m.divergence.mean, m.warp_time.mean
    );
    if let Some(w) = waves {
        println!("  waves: {}", w.display());
    }
}

fn print_failure(f: &Failure) {
    match f.kind {
        "mismatch" => println!(
            "  FAIL  mismatch at cycle {} on port {}: expected {}, actual {}",
            f.cycle,
            f.port.unwrap_or("?"),
            f.expected.as_deref().unwrap_or("?"),
            f.actual.as_deref().unwrap_or("?")
        ),
        _ => println!(
            "  FAIL  RTL assertion at cycle {}: {}",
            f.cycle,
            f.message.as_deref().unwrap_or("?")
        ),
    }
    if !f.ports.is_empty() {
        println!("  outputs on that cycle:");
        println!(
            "    {:14} {:>24} {:>24}",
            "port", "golden (expected)", "RTL (actual)"
        );
        for p in &f.ports {
            let mark = if p.expected != p.actual { "  <--" } else { "" };
            println!(
                "    {:14} {:>24} {:>24}{mark}",
                p.name, p.expected, p.actual
            );
        }
    }
    println!("  last transactions (the failing cycle's last):");
    for t in &f.last_transactions {
        println!("    {t}");
    }
    println!("  seed: {}", f.seed);
    println!("  reproduce: {}", f.reproduce);
    if let (Some(path), Some(n)) = (&f.reproducer, f.reproducer_transactions) {
        println!("  minimal reproducer ({n} transactions, found by shrinking): {path}");
        if let Some(c) = &f.reproducer_command {
            println!("    run it: {c}");
        }
    }
    if let Some(v) = &f.vcd {
        println!("  waves of the reproducer: {v}");
    }
}

pub fn print_report(r: &CosimReport, waves: Option<&std::path::Path>) {
    println!(
        "  model: {} in {:.1} s",
        if r.model_cached { "cached" } else { "built" },
        r.build_seconds
    );
    let s = &r.stats;
    match &r.failure {
        None => println!(
            "  PASS  {} cycles, {} transactions in {:.1} s ({} cycles/s); every output port matched every cycle",
            thousands(s.cycles),
            thousands(s.transactions),
            r.seconds,
            thousands(r.cycles_per_second as u64)
        ),
        Some(f) => print_failure(f),
    }
    println!(
        "  predictions {}  hits {}  PCOV {:.3}  PACC {:.3} ({} checked)",
        thousands(s.predictions),
        thousands(s.hits),
        s.pcov,
        s.pacc,
        thousands(s.resolved)
    );
    let ev: Vec<String> = s
        .events
        .iter()
        .map(|(k, v)| format!("{k} {}", thousands(*v)))
        .collect();
    println!(
        "  observations {}: {}; evictions {}; launches {}",
        thousands(s.observes),
        ev.join(", "),
        thousands(s.evictions),
        thousands(s.launches)
    );
    if let Some(w) = waves {
        println!("  waves: {}", w.display());
    }
}

pub fn mutants(a: &MutantsArgs) -> CliResult<ExitCode> {
    let spec = a.config.resolve()?;
    let block = a.block.block();
    let list: Vec<_> = match &a.only {
        Some(n) => vec![block.mutant(n).map_err(bad)?],
        None => block.mutants.iter().collect(),
    };
    let text = a.format == Format::Text;
    if text {
        println!(
            "mutants {block}  config {} (hash {})  stimulus {}  seed {}  budget {} cycles each",
            spec.name,
            spec.hash,
            a.stimulus,
            a.seed,
            thousands(a.cycles)
        );
    }
    let mut results = Vec::new();
    for m in list {
        let r = match a.block {
            crate::args::BlockArg::WarpedMc => {
                let stimulus: sim::wmc::McStimulus = a.stimulus.parse().map_err(bad)?;
                sim::wmc::run_mutant(&spec, m, &stimulus, Some(a.cycles), a.seed)
            }
            crate::args::BlockArg::Dispatch => {
                let stimulus: sim::dispatch::DispStimulus =
                    a.stimulus.parse().map_err(cosim_err)?;
                sim::dispatch::run_mutant(&spec, m, &stimulus, Some(a.cycles), a.seed)
            }
            _ => {
                let stimulus: Stimulus = a.stimulus.parse().map_err(bad)?;
                sim::ot::run_mutant(&spec, m, &stimulus, Some(a.cycles), a.seed)
            }
        }
        .map_err(cosim_err)?;
        if text {
            let (status, at) = match (&r.equivalent, r.cycle, r.port, r.kind) {
                (Some(_), ..) => ("equivalent", String::from("not run")),
                (None, Some(c), Some(p), _) => ("caught", format!("cycle {c:>8}  {p}")),
                (None, Some(c), None, Some(k)) => ("caught", format!("cycle {c:>8}  ({k})")),
                _ => ("MISSED", String::from("not caught")),
            };
            println!("  {status:10} {:34} {at:28} {}", r.name, r.description);
            if let Some(why) = &r.equivalent {
                println!("  {:10} {why}", "");
            }
        }
        results.push(r);
    }
    let caught = results.iter().filter(|r| r.caught).count();
    let equivalent = results.iter().filter(|r| r.equivalent.is_some()).count();
    let applicable = results.len() - equivalent;
    match a.format {
        Format::Text => {
            print!("caught {caught}/{applicable}");
            if equivalent > 0 {
                print!(" ({equivalent} equivalent on this configuration, not counted)");
            }
            println!();
        }
        Format::Json => super::print_json(&serde_json::json!({
            "block": block.name,
            "config": spec.name,
            "caught": caught,
            "applicable": applicable,
            "equivalent": equivalent,
            "total": results.len(),
            "mutants": results,
        }))?,
    }
    Ok(if caught == applicable {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
