//! `reproduce`: each seed's experiment (`sim::reproduce`) swept into `OUT/seed-NNN/` (here or
//! on Slurm), held against its paper, and the report written: `OUT/report.html`,
//! `OUT/report.json`.

use super::regress::{err, submit, Array};
use crate::args::ReproduceArgs;
use crate::{bad, CliResult};
use sim::regress::run::Runner;
use sim::regress::Shard;
use sim::reproduce::{self, SeedDef, SeedResult};
use sim::sweep::{self, run::Options, table};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

const HTML: &str = "report.html";
const JSON: &str = "report.json";
const EXPERIMENT: &str = "experiment.toml";
/// The folder of a seed's runs over time.
const TIMELINE: &str = "timeline";

fn seed_dir(id: &str) -> String {
    format!("seed-{id}")
}

pub fn run(a: &ReproduceArgs) -> CliResult<ExitCode> {
    let seeds: Vec<&'static SeedDef> = if a.seeds.is_empty() {
        reproduce::SEEDS.iter().collect()
    } else {
        a.seeds
            .iter()
            .map(|id| {
                reproduce::seed(id).ok_or_else(|| {
                    bad(anyhow::anyhow!(
                        "no seed `{id}`: give 000, 001, 002, 003 or 004 (or none for all)"
                    ))
                })
            })
            .collect::<Result<_, _>>()?
    };
    super::check_runner(a.jobs, a.timeout)?;
    let dirs: Vec<String> = seeds.iter().map(|s| seed_dir(s.id)).collect();
    let mut names: Vec<&str> = dirs.iter().map(String::as_str).collect();
    names.extend([HTML, JSON]);
    crate::out::claim(&a.out, &names, "--out")?;
    let stop = super::interrupt_flag()?;
    let mut results: Vec<SeedResult> = Vec::new();
    let mut erred = 0;
    for s in &seeds {
        let dir = a.out.join(seed_dir(s.id));
        outln!(
            "== seed {}: {} ({}, {} configurations x {} workloads)",
            s.id,
            s.title,
            s.preset,
            s.variants.len(),
            s.workloads(a.quick).count()
        )?;
        let rows = sweep_seed(s, &dir, a, &stop)?;
        if stop.load(Ordering::SeqCst) {
            note!(
                "interrupted: finish it with `warpsmith reproduce{} --out {} --resume`",
                if a.quick { " --quick" } else { "" },
                shlex::try_quote(&a.out.display().to_string()).unwrap_or_default()
            );
            return Ok(ExitCode::from(130));
        }
        let mut r = reproduce::analyse(s, &rows);
        if s.timeline.is_some() {
            crate::out::claim(&dir, &[TIMELINE], "--out")?;
            r.timelines = reproduce::timeline::run(
                s,
                &rows,
                a.quick,
                &dir.join(TIMELINE),
                &std::env::current_exe()?,
                &stop,
            )
            .map_err(err)?;
        }
        for m in &r.headlines {
            outln!(
                "  {:<62} paper {:<28} ours {:>8}  {}",
                m.claim,
                m.paper,
                m.change
                    .map_or_else(|| "n/a".into(), |c| format!("{:+.1} %", c * 100.0)),
                match m.reproduced {
                    Some(true) => "reproduced",
                    Some(false) => "NOT reproduced",
                    None => "not measured",
                }
            )?;
        }
        erred += r.errors.len();
        results.push(r);
    }
    let command = std::env::args().collect::<Vec<_>>();
    let command =
        shlex::try_join(command.iter().map(String::as_str)).unwrap_or_else(|_| command.join(" "));
    let provenance = format!("warpsmith {}", crate::VERSION);
    let html = reproduce::html::page(&results, &command, &provenance, a.quick);
    let write = |name: &str, text: &str| {
        spec::output::write_file(&a.out.join(name), text.as_bytes()).map_err(|e| {
            bad(anyhow::anyhow!(
                "--out {}: cannot write {name}: {e}",
                a.out.display()
            ))
        })
    };
    write(HTML, &html)?;
    let json = serde_json::json!({
        "schema": "warpsmith-reproduce/1",
        "version": crate::PKG_VERSION,
        "git_rev": crate::GIT_REV,
        "command_line": std::env::args().collect::<Vec<_>>(),
        "quick": a.quick,
        "seeds": results,
    });
    write(JSON, &serde_json::to_string_pretty(&json)?)?;
    outln!(
        "report: {}{}",
        a.out.join(HTML).display(),
        if erred > 0 {
            format!(" ({erred} runs erred: their rows say why)")
        } else {
            String::new()
        }
    )?;
    Ok(if erred == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Write the seed's experiment in `dir` and sweep it there (here, or on Slurm); its table.
fn sweep_seed(
    s: &SeedDef,
    dir: &Path,
    a: &ReproduceArgs,
    stop: &Arc<AtomicBool>,
) -> CliResult<Vec<table::Row>> {
    // Written for `sweep --experiment` (a rerun, the Slurm tasks); read here from its text.
    let text = s.experiment(a.quick);
    let path = spec::output::add_file(dir, EXPERIMENT, text.as_bytes())
        .map_err(|e| bad(anyhow::anyhow!("--out {}: {e}", dir.display())))?;
    let name = path.display().to_string();
    let experiment = sweep::Experiment::parse(&text, &name).map_err(err)?;
    let statistics = experiment.statistics().map_err(err)?;
    let all = sweep::expand(&experiment, dir).map_err(err)?;
    let rows = if a.slurm {
        let array = Array {
            command: "sweep",
            input_flag: "--experiment",
            noun: "experiment",
            input: &name,
            out: dir,
            jobs: all.len(),
            shards: a.shards.min(all.len()),
            slurm_arg: &a.slurm_arg,
            script_only: false,
            timeout: a.timeout,
            resume: a.resume,
            merged: &[
                sim::regress::results::RESULTS,
                table::TABLE_CSV,
                table::TABLE_JSONL,
            ],
        };
        match submit(&array)? {
            Some((out, dirs)) => table::merge(&dirs, &out).map_err(err)?.1,
            // (Only with a script-only submission, which reproduce never asks for.)
            None => Vec::new(),
        }
    } else {
        let o = Options {
            runner: Runner {
                exe: std::env::current_exe()?,
                out: dir.to_path_buf(),
                workers: super::workers(a.jobs),
                resume: a.resume,
                progress: super::show_progress(),
                timeout: a.timeout,
                stop: Arc::clone(stop),
                list: name.clone(),
                shard: Shard::ALL,
                list_ids: all.iter().map(|j| j.key.id.clone()).collect(),
                say: crate::out::stdout_line,
            },
            statistics,
            version: crate::PKG_VERSION.into(),
            git_rev: crate::GIT_REV.into(),
        };
        let out = sweep::run::run(all, &o).map_err(err)?;
        super::note_mended(dir, out.repaired, &out.duplicated);
        out.rows
    };
    Ok(rows)
}
