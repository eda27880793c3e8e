//! `run`: the GPU (SMs, L1s, the memory side) on an Accel-Sim trace or a kernel.

use crate::args::{RunArgs, RunFormat};
use crate::cmd::thousands;
use crate::{bad, CliResult};
use golden::gpu::run::{Progress, RunOptions, RunSummary, Workload};
use std::cell::Cell;
use std::process::ExitCode;

pub fn run(a: &RunArgs) -> CliResult<ExitCode> {
    let (spec, ()) = a.config.resolve_with(|_| match &a.stats_out {
        Some(path) => crate::out::check_file(path, "--stats-out"),
        None => Ok(()),
    })?;
    let bar = sim::progress::fraction(super::show_progress());
    // The kernel shown last: the ETA starts again with each kernel when the kernels are not
    // known ahead (the bar then shows the running kernel's part).
    let shown = Cell::new(0);
    let progress = |p: Progress| {
        if p.kernels.is_none() && p.kernels_done != shown.replace(p.kernels_done) {
            bar.reset_eta();
        }
        // (A message that changes only with the kernel: setting it and the position may each
        // draw the bar.)
        let kernel = p.kernels_done + 1;
        bar.set_message(match p.kernels {
            Some(n) => format!("kernel {} of {n}", kernel.min(n)),
            None => format!("kernel {kernel}, by its blocks"),
        });
        bar.set_position((p.fraction() * sim::progress::FRACTION as f64) as u64);
    };
    let kernel = match &a.kernel {
        Some(name) => Some(golden::dispatch::kernel(name).map_err(bad)?),
        None => None,
    };
    let w = match (&a.trace, &kernel, &a.workload) {
        (Some(t), None, None) => Workload::Trace(t),
        (None, Some(k), None) => Workload::Kernel {
            kernel: k,
            seed: a.seed,
        },
        (None, None, Some(spec)) => Workload::Suite { spec, seed: a.seed },
        // clap requires exactly one of the three.
        _ => {
            return Err(bad(anyhow::anyhow!(
                "give one of --trace DIR, --kernel NAME and --workload NAME"
            )))
        }
    };
    let mut opts = RunOptions {
        progress: Some(&progress),
        trace_cache: (!a.no_trace_cache).then(|| sim::build::cache_root().join("traces")),
        max_cycles: Some(a.max_cycles),
        stats_interval: a.stats_interval,
        ..RunOptions::default()
    };
    let r = golden::gpu::run::run_with(&spec, w, &mut opts);
    bar.finish_and_clear();
    for note in &opts.notes {
        eprintln!("note: {note}");
    }
    let r = match r {
        Ok(r) => r,
        Err(e) if !e.is_internal() => return Err(bad(e)),
        Err(e) => return Err(anyhow::Error::new(e).context("the GPU run failed").into()),
    };

    if let Some(path) = &a.stats_out {
        let mut lines = String::new();
        for s in &opts.samples {
            lines += &serde_json::to_string(s)?;
            lines.push('\n');
        }
        crate::out::write_file(path, lines.as_bytes(), "--stats-out")?;
    }
    match a.format {
        RunFormat::Json => super::print_json(&golden::report::Report {
            provenance: crate::provenance(golden::gpu::run::SCHEMA, &spec),
            figures: r,
        })?,
        RunFormat::Gpgpusim => out!("{}", golden::gpu::run::gpgpusim::text(&r))?,
        RunFormat::Text => print(&spec, &r)?,
    }
    Ok(ExitCode::SUCCESS)
}

fn pct(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        100.0 * a as f64 / b as f64
    }
}

/// Loads the text report scores one by one.
const LOADS_SHOWN: usize = 8;

fn print(spec: &spec::Spec, r: &RunSummary) -> CliResult {
    let config = &spec.name;
    outln!(
        "GPU run  config {config}  {} kernel(s), {} host copies ({})",
        r.kernels.len(),
        r.copies,
        if spec.l2.fill_on_copy {
            "filling the L2, taking no time"
        } else {
            "not simulated"
        }
    )?;
    outln!(
        "  {:>6} {:>8} {:>14} {:>12} {:>7} {:>9} {:>9}  {:<22}  kernel",
        "id",
        "blocks",
        "instructions",
        "cycles",
        "IPC",
        "L1 hits",
        "L2 hits",
        "blocks/SM (bound by)"
    )?;
    for k in &r.kernels {
        let o = &k.occupancy;
        outln!(
            "  {:>6} {:>8} {:>14} {:>12} {:>7.3} {:>8.1}% {:>8.1}%  {:<22}  {}",
            k.id,
            thousands(k.blocks),
            thousands(k.instructions),
            thousands(k.cycles),
            k.ipc,
            pct(k.l1.hits, k.l1.accesses),
            pct(k.l2.hits, k.l2.accesses),
            format!("{} ({})", o.blocks, o.limit.name()),
            k.name
        )?;
    }
    for k in &r.kernels {
        if let Some(kb) = k.l1_kb {
            outln!(
                "  note: kernel {} runs with a {kb} KB L1: what its {} bytes of shared memory \
                    per SM leave of the unified storage (gpu.unified_l1_kb)",
                k.id,
                thousands(k.occupancy.shmem_per_sm(k.blocks, spec.gpu.sms))
            )?;
        }
        if let Some(n) = k.occupancy.ignored_regs {
            outln!(
                "  note: kernel {} declares {n} registers a thread (more than {}): not used for \
                    its occupancy",
                k.id,
                golden::gpu::occupancy::MAX_REGS_PER_THREAD
            )?;
        }
    }
    outln!(
        "  total: {} warp instructions in {} core cycles, IPC {:.3}; {} thread instructions, \
            thread IPC {:.2}",
        thousands(r.instructions),
        thousands(r.cycles),
        r.ipc,
        thousands(r.thread_instructions),
        r.thread_ipc
    )?;
    for (name, c) in [("L1", &r.l1), ("L2", &r.l2)] {
        let fails: u64 = c.reservation_failures.values().sum();
        let causes: Vec<String> = c
            .reservation_failures
            .iter()
            .map(|(why, n)| format!("{} {}", why.name(), thousands(*n)))
            .collect();
        let causes = if causes.is_empty() {
            String::new()
        } else {
            format!(" ({})", causes.join(", "))
        };
        outln!(
            "  {name}: {} accesses, {} hits ({:.1}%), {} sector misses, {} misses, {} MSHR \
                merges, {} reservation failures{causes}",
            thousands(c.accesses),
            thousands(c.hits),
            pct(c.hits, c.accesses),
            thousands(c.sector_misses),
            thousands(c.misses),
            thousands(c.mshr_merges),
            thousands(fails)
        )?;
        for (kind, k) in &c.by_kind {
            outln!(
                "      {}: {} accesses, {} hits ({:.1}%), {} sector misses, {} misses, {} MSHR \
                    merges, {} reservation failures",
                kind.name(),
                thousands(k.accesses),
                thousands(k.hits),
                pct(k.hits, k.accesses),
                thousands(k.sector_misses),
                thousands(k.misses),
                thousands(k.mshr_merges),
                thousands(k.reservation_failures)
            )?;
        }
    }
    for (what, d) in [
        ("issue to last answer", &r.load_latency),
        ("first answer to last", &r.load_divergence),
    ] {
        outln!(
            "  global loads, {what} (core cycles): mean {:.1}  p50 {}  p95 {}  p99 {}",
            d.mean,
            d.p50,
            d.p95,
            d.p99
        )?;
    }
    for (what, n) in [("request", &r.request_net), ("reply", &r.reply_net)] {
        outln!(
            "  {what} network: {} packets, {} flits, {} stalled input-cycles, {} refused offers",
            thousands(n.packets),
            thousands(n.flits),
            thousands(n.stalled),
            thousands(n.refused)
        )?;
    }
    outln!(
        "  DRAM ({}): {} reads, {} writes, {} activations; bandwidth {:.1}%, row hits {:.1}%",
        r.dram.scheduler,
        thousands(r.dram.reads),
        thousands(r.dram.writes),
        thousands(r.dram.activations),
        100.0 * r.dram.bandwidth_util,
        100.0 * r.dram.row_hit_rate
    )?;
    outln!("  DRAM energy: {}", r.dram.energy)?;
    let o = &r.ot;
    outln!(
        "  address predictor ({}{}): {} queries, {} hits: PCOV {:.3}; {} hits resolved, {} \
            correct: PACC {:.3}{}",
        spec.predictor.kind.name(),
        if spec.ot.lec { "" } else { ", without LEC" },
        thousands(o.queries),
        thousands(o.hits),
        o.pcov,
        thousands(o.resolved),
        thousands(o.correct),
        o.pacc,
        o.refused
            .as_ref()
            .map(|e| format!(" (stopped early: {e})"))
            .unwrap_or_default()
    )?;
    // The loads queried most, each scored as the total is (all of them: `--format json`).
    let mut loads: Vec<_> = o.per_load.iter().collect();
    loads.sort_by_key(|l| std::cmp::Reverse(l.queries));
    for l in loads.iter().take(LOADS_SHOWN) {
        outln!(
            "    load {:#x}: {} queries, PCOV {:.3}, PACC {:.3}",
            l.pc,
            thousands(l.queries),
            l.pcov,
            l.pacc
        )?;
    }
    if loads.len() > LOADS_SHOWN {
        outln!(
            "    ({} more loads: --format json lists every one)",
            loads.len() - LOADS_SHOWN
        )?;
    }
    if let Some(p) = &r.prefetch {
        outln!(
            "  prefetcher: {} loads trained ({} dropped: queue full), {} predictions ({} dropped \
                by the throttle), {} prefetch addresses ({} redundant, {} dropped: queue full), \
                {} issued",
            thousands(p.trained),
            thousands(p.train_dropped),
            thousands(p.predictions),
            thousands(p.throttled),
            thousands(p.candidates),
            thousands(p.redundant),
            thousands(p.queue_dropped),
            thousands(p.issued)
        )?;
        outln!(
            "  prefetches into the {}: {} useful, {} late (merged), {} early-evicted{}; accuracy \
                {:.3}, coverage {:.3} ({} of {} demand line requests served)",
            if spec.prefetch.into_l1 {
                "L1"
            } else {
                "prefetch cache"
            },
            thousands(p.useful),
            thousands(p.late),
            thousands(p.early_evicted),
            if p.fill_dropped > 0 {
                format!(
                    ", {} not installed (dirty victim, miss queue full)",
                    thousands(p.fill_dropped)
                )
            } else {
                String::new()
            },
            p.accuracy(),
            p.coverage(),
            thousands(p.hits + p.late),
            thousands(p.demand)
        )?;
        let trace: Vec<String> = p.degree_trace.iter().map(u8::to_string).collect();
        outln!(
            "  throttle: mean degree {:.2}; {} updates; SM 0's degree after each period: {}",
            p.mean_degree(),
            thousands(p.throttle_updates),
            if trace.is_empty() {
                "-".to_string()
            } else {
                trace.join(" ")
            }
        )?;
    }
    Ok(())
}
