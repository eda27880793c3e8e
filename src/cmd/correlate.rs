//! `correlate`: workloads of the library on the GPU, held against a table of hardware counters.

use crate::args::{CacheControl, CorrelateArgs, Format};
use crate::{bad, CliResult};
use golden::gpu::run::{RunOptions, Workload};
use sim::correlate::{self, Report, METRICS};
use std::process::ExitCode;

/// The files `--out` receives: the report, the GPGPU-Sim stats, a plot per metric.
fn out_names() -> Vec<String> {
    let mut names = vec!["report.json".to_string(), "gpgpusim-stats.txt".to_string()];
    names.extend(METRICS.iter().map(|m| format!("{}.svg", m.name)));
    names
}

pub fn run(a: &CorrelateArgs) -> CliResult<ExitCode> {
    // Everything the user named is checked before the first run.
    let spec = a.config.resolve()?;
    let table = correlate::read_table(&a.hardware).map_err(bad)?;
    for w in &a.workload {
        golden::suite::make(w, a.seed)
            .map_err(|e| bad(anyhow::Error::new(e).context(w.clone())))?;
    }
    let names = out_names();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    if let Some(dir) = &a.out {
        crate::out::check_claim(dir, &names, "--out")?;
    }
    let cold_caches = a.cache_control == CacheControl::All;
    let mut sim = Vec::new();
    let n = a.workload.len();
    for (i, w) in a.workload.iter().enumerate() {
        let bar = sim::progress::cycles(super::show_progress(), u64::MAX);
        bar.set_message(format!("{w} ({} of {n})", i + 1));
        let progress = |p: golden::gpu::run::Progress| bar.set_position(p.cycle);
        let mut opts = RunOptions {
            progress: Some(&progress),
            max_cycles: Some(a.max_cycles),
            cold_caches,
            ..RunOptions::default()
        };
        let r = golden::gpu::run::run_with(
            &spec,
            Workload::Suite {
                spec: w,
                seed: a.seed,
            },
            &mut opts,
        );
        bar.finish_and_clear();
        let r = match r {
            Ok(r) => r,
            Err(e) if !e.is_internal() => {
                return Err(bad(anyhow::Error::new(e).context(w.clone())))
            }
            Err(e) => {
                return Err(anyhow::Error::new(e)
                    .context(format!("the GPU run of {w} failed"))
                    .into())
            }
        };
        sim.extend(correlate::sim_kernels(w, &r.kernels));
    }
    let report = correlate::compare(
        &spec.name,
        &a.hardware.display().to_string(),
        &table,
        &sim,
        cold_caches,
    );
    if report.pairs.is_empty() {
        return Err(bad(anyhow::anyhow!(
            "no kernel of the workloads run ({}) is in {} ({}): nothing was compared",
            sim.iter()
                .map(|s| s.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            a.hardware.display(),
            table
                .iter()
                .map(|h| h.kernel.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let json = golden::report::Report {
        provenance: crate::provenance(correlate::SCHEMA, &spec),
        figures: &report,
    };
    if let Some(dir) = &a.out {
        crate::out::claim(dir, &names, "--out")?;
        let write = |name: &str, text: String| -> CliResult {
            crate::out::write_file(&dir.join(name), text.as_bytes(), "--out")
        };
        write("report.json", serde_json::to_string_pretty(&json)? + "\n")?;
        write("gpgpusim-stats.txt", correlate::gpgpusim_stats(&sim))?;
        for (m, metric) in METRICS.iter().enumerate() {
            write(
                &format!("{}.svg", metric.name),
                correlate::scatter_svg(&report, m),
            )?;
        }
    }
    match a.format {
        Format::Json => super::print_json(&json)?,
        Format::Text => print(&report)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// A figure with its error, `sim / hw (+e%)`.
fn cell(f: &correlate::Figure) -> String {
    match (f.measured, f.error) {
        (None, _) => format!("{:.0} / -", f.simulated),
        (Some(h), Some(e)) => format!("{:.0} / {h:.0} ({:+.0}%)", f.simulated, 100.0 * e),
        (Some(h), None) => format!("{:.0} / {h:.0}", f.simulated),
    }
}

fn print(r: &Report) -> CliResult {
    outln!(
        "correlate  config {}  hardware {}  caches {} at each kernel's start",
        r.config,
        r.table,
        if r.cold_caches { "flushed" } else { "kept" }
    )?;
    // Per kernel, the metrics the table measures for some kernel.
    let shown: Vec<usize> = r
        .metrics
        .iter()
        .enumerate()
        .filter(|(_, m)| m.kernels > 0)
        .map(|(i, _)| i)
        .collect();
    for p in &r.pairs {
        outln!(
            "  {} {}  ({}, {} launch(es)): simulated / measured (error)",
            p.benchmark,
            p.kernel,
            p.workload,
            p.launches
        )?;
        for &m in &shown {
            outln!("      {:<20} {}", METRICS[m].name, cell(&p.figures[m]))?;
        }
    }
    outln!(
        "  {:<20} {:>7} {:>9} {:>8} {:>10} {:>10}",
        "metric",
        "kernels",
        "MAPE",
        "Pearson",
        "within 10%",
        "within 25%"
    )?;
    for &m in &shown {
        let s = &r.metrics[m];
        outln!(
            "  {:<20} {:>7} {:>9} {:>8} {:>10} {:>10}",
            s.metric,
            s.kernels,
            s.mape.map_or("-".into(), |v| format!("{v:.1}%")),
            s.pearson.map_or("-".into(), |v| format!("{v:.3}")),
            format!("{}/{}", s.within_10, s.nonzero),
            format!("{}/{}", s.within_25, s.nonzero)
        )?;
    }
    for h in &r.unmatched_hardware {
        outln!("  not run: {h}")?;
    }
    for s in &r.unmatched_simulated {
        outln!("  not in the table: {s}")?;
    }
    Ok(())
}
