//! `cosim` and `mutants`: one path for every block (the registry's co-simulation), one report
//! printer.

use crate::args::{block, ConfigArgs, CosimArgs, Format, MutantsArgs};
use crate::cmd::thousands;
use crate::{bad, CliError, CliResult};
use sim::harness::CosimOptions;
use sim::report::{CosimReport, Failure, FailureKind, Verdict};
use sim::CosimError;
use std::process::ExitCode;

/// Bad stimulus or configuration exits 2; a golden model or tool failure exits 1.
pub fn cosim_err(e: CosimError) -> CliError {
    match e {
        CosimError::BadInput(_) => bad(e),
        other => other.into(),
    }
}

/// The harness options of a command line.
pub fn options(
    config: &ConfigArgs,
    stimulus: &str,
    cycles: Option<u64>,
    seed: u64,
    opts: golden::run::BlockOpts,
) -> CosimOptions {
    CosimOptions {
        shrink: true,
        progress: super::show_progress(),
        opts,
        config_args: config.as_args(),
        ..CosimOptions::quiet(stimulus, cycles, seed)
    }
}

pub fn run(a: &CosimArgs) -> CliResult<ExitCode> {
    let block = block(&a.block)?;
    let opts = a.block_args.for_block(block)?;
    // Output paths are checked before anything is built or written.
    let (spec, ()) = a.config.resolve_with(|_| {
        if let Some(w) = &a.waves {
            crate::out::check_file(w, "--waves")?;
        }
        if !a.no_shrink {
            crate::out::check_claim(&a.out_dir, &[], "--out-dir")?;
        }
        Ok(())
    })?;
    let mutant = match a.mutant.as_deref() {
        Some(m) => Some(block.mutant(m).map_err(cosim_err)?),
        None => forced_mutant(block),
    };
    let text = a.format == Format::Text;
    let o = CosimOptions {
        waves: a.waves.clone(),
        mutant,
        out_dir: a.out_dir.clone(),
        shrink: !a.no_shrink,
        progress: text && super::show_progress(),
        ..options(&a.config, &a.stimulus, a.cycles, a.seed, opts)
    };
    let report = block.cosim(&spec, &o).map_err(cosim_err)?;
    match a.format {
        Format::Json => super::print_json(&report)?,
        Format::Text => {
            print_report(&report)?;
            if let Some(w) = &a.waves {
                outln!("  waves: {}", w.display())?;
            }
        }
    }
    finish(&report)
}

/// The test hook `WARPSMITH_FORCE_MUTANT=NAME`: a co-simulation of a block that has a mutant of
/// that name, given no `--mutant`, runs that mutant (said on stderr; its failure's reproduce
/// command names it). Regression tests use it to stand for a build with a bug.
pub const FORCE_MUTANT: &str = "WARPSMITH_FORCE_MUTANT";

fn forced_mutant(
    block: &'static sim::registry::BlockEntry,
) -> Option<&'static sim::mutants::Mutant> {
    let name = std::env::var(FORCE_MUTANT).ok()?;
    let m = block.mutants().ok()?.iter().find(|m| m.name == name)?;
    note!(
        "{FORCE_MUTANT}: co-simulating the mutant {name} of block {} (a test hook)",
        block.name
    );
    Some(m)
}

/// After the report: an output that could not be written is an error (exit 1), a run that
/// checked nothing exits 2.
pub fn finish(r: &CosimReport) -> CliResult<ExitCode> {
    if let Some(e) = r.failure.as_ref().and_then(|f| f.reproducer_error.as_ref()) {
        return Err(anyhow::anyhow!("the failure above could not be saved: {e}").into());
    }
    if let Some(why) = &r.nothing_checked {
        return Err(bad(anyhow::anyhow!(
            "the run checked nothing: {why}; give more cycles or another stimulus"
        )));
    }
    Ok(ExitCode::from(r.verdict.exit_code()))
}

/// The text report of a co-simulation.
pub fn print_report(r: &CosimReport) -> CliResult {
    outln!(
        "cosim {}  config {} (hash {})  stimulus {}  seed {}{}",
        r.block,
        r.config,
        r.config_hash,
        r.stimulus,
        r.seed,
        r.mutant
            .map(|m| format!("  MUTANT {m}"))
            .unwrap_or_default()
    )?;
    outln!(
        "  model: {} in {:.1} s",
        if r.timing.model_cached {
            "cached"
        } else {
            "built"
        },
        r.timing.build_seconds
    )?;
    match (&r.failure, r.verdict) {
        (Some(f), _) => print_failure(f)?,
        (None, Verdict::NothingChecked) => outln!(
            "  NOTHING CHECKED  {} cycles in {:.1} s: {}",
            thousands(r.cycles),
            r.timing.seconds,
            r.nothing_checked.as_deref().unwrap_or("")
        )?,
        (None, _) => outln!(
            "  PASS  {} cycles in {:.1} s ({} cycles/s); every output port matched every cycle",
            thousands(r.cycles),
            r.timing.seconds,
            thousands(r.timing.cycles_per_second as u64)
        )?,
    }
    for line in &r.summary {
        outln!("  {line}")?;
    }
    Ok(())
}

fn print_failure(f: &Failure) -> CliResult {
    match f.kind {
        FailureKind::Mismatch => outln!(
            "  FAIL  mismatch at cycle {} on port {}: expected {}, actual {}",
            f.cycle,
            f.port.unwrap_or("?"),
            f.expected.as_deref().unwrap_or("?"),
            f.actual.as_deref().unwrap_or("?")
        )?,
        FailureKind::Assertion => outln!(
            "  FAIL  RTL assertion at cycle {}: {}",
            f.cycle,
            f.message.as_deref().unwrap_or("?")
        )?,
    }
    if !f.ports.is_empty() {
        outln!("  outputs on that cycle:")?;
        outln!(
            "    {:14} {:>24} {:>24}",
            "port",
            "golden (expected)",
            "RTL (actual)"
        )?;
        for p in &f.ports {
            let mark = if p.expected != p.actual { "  <--" } else { "" };
            outln!(
                "    {:14} {:>24} {:>24}{mark}",
                p.name,
                p.expected,
                p.actual
            )?;
        }
    }
    outln!("  last stimulus (the failing cycle's last):")?;
    for t in &f.last_items {
        outln!("    {t}")?;
    }
    outln!("  seed: {}", f.seed)?;
    outln!("  reproduce: {}", f.reproduce)?;
    if let Some(r) = &f.reproducer {
        outln!(
            "  minimal reproducer ({} {}, found by shrinking): {}",
            r.items,
            r.unit,
            r.path
        )?;
        outln!("    run it: {}", r.command)?;
        if let Some(v) = &r.vcd {
            outln!("  waves of the reproducer: {v}")?;
        }
    }
    Ok(())
}

pub fn mutants(a: &MutantsArgs) -> CliResult<ExitCode> {
    let block = block(&a.block)?;
    let opts = a.block_args.for_block(block)?;
    let spec = a.config.resolve()?;
    let list: Vec<_> = match &a.only {
        Some(n) => vec![block.mutant(n).map_err(cosim_err)?],
        None => block
            .mutants()
            .map_err(CosimError::from)
            .map_err(cosim_err)?
            .iter()
            .collect(),
    };
    let text = a.format == Format::Text;
    let cycles = a.cycles.unwrap_or(block.mutant_cycles);
    if text {
        outln!(
            "mutants {block}  config {} (hash {})  stimulus {}  seed {}  budget {} cycles each",
            spec.name,
            spec.hash,
            a.stimulus,
            a.seed,
            thousands(cycles)
        )?;
    }
    let o = CosimOptions {
        shrink: false,
        ..options(&a.config, &a.stimulus, Some(cycles), a.seed, opts)
    };
    let mut results = Vec::new();
    for m in list {
        let r = block.run_mutant(&spec, m, &o).map_err(cosim_err)?;
        if text {
            let (status, at) = match (&r.equivalent, &r.nothing_checked, r.cycle, r.port, r.kind) {
                (Some(_), ..) => ("equivalent", String::from("not run")),
                (None, Some(_), ..) => ("NOT RUN", String::from("the run checked nothing")),
                (None, None, Some(c), Some(p), _) => ("caught", format!("cycle {c:>8}  {p}")),
                (None, None, Some(c), None, Some(_)) => {
                    ("caught", format!("cycle {c:>8}  (assertion)"))
                }
                _ => ("MISSED", String::from("not caught")),
            };
            outln!("  {status:10} {:34} {at:28} {}", r.name, r.description)?;
            if let Some(why) = r.equivalent.as_ref().or(r.nothing_checked.as_ref()) {
                outln!("  {:10} {why}", "")?;
            }
        }
        results.push(r);
    }
    let caught = results.iter().filter(|r| r.caught).count();
    let equivalent = results.iter().filter(|r| r.equivalent.is_some()).count();
    let applicable = results.len() - equivalent;
    match a.format {
        Format::Text => {
            out!("caught {caught}/{applicable}")?;
            if equivalent > 0 {
                out!(" ({equivalent} equivalent on this configuration, not counted)")?;
            }
            outln!()?;
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
    if applicable == 0 {
        return Err(bad(anyhow::anyhow!(
            "no mutant could be run on this configuration: nothing was checked"
        )));
    }
    Ok(if caught == applicable {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
