//! `sweep`: expand an experiment into `warpsmith run` jobs and run them into one table
//! (`sim::sweep`), on this machine or a Slurm job array; or merge shard folders.

use super::regress::{err, submit, Array};
use crate::args::{Format, SweepArgs, SweepCommand, SweepMergeArgs};
use crate::{bad, CliResult};
use sim::regress::run::Runner;
use sim::regress::Shard;
use sim::sweep::{self, run::Options, table};
use std::process::ExitCode;

pub fn run(a: &SweepArgs) -> CliResult<ExitCode> {
    if let Some(SweepCommand::Merge(m)) = &a.command {
        return merge(m);
    }
    let Some(name) = &a.experiment else {
        return Err(bad(anyhow::anyhow!(
            "give the experiment: --experiment NAME|FILE"
        )));
    };
    let (experiment, dir) = sweep::load(name).map_err(err)?;
    let statistics = experiment.statistics().map_err(err)?;
    let all = sweep::expand(&experiment, &dir).map_err(err)?;
    let shard = match &a.runner.shard {
        Some(s) => Shard::parse(s).map_err(err)?,
        None => Shard::ALL,
    };
    super::check_runner(a.runner.jobs, a.runner.timeout)?;
    if a.runner.slurm {
        let array = Array {
            command: "sweep",
            input_flag: "--experiment",
            noun: "experiment",
            input: name,
            out: &a.out,
            jobs: all.len(),
            shards: a.runner.shards,
            slurm_arg: &a.runner.slurm_arg,
            script_only: a.runner.slurm_script_only,
            timeout: a.runner.timeout,
            resume: a.runner.resume,
            merged: &[
                sim::regress::results::RESULTS,
                table::TABLE_CSV,
                table::TABLE_JSONL,
            ],
        };
        return match submit(&array)? {
            Some((out, dirs)) => merge(&SweepMergeArgs { dirs, out }),
            None => Ok(ExitCode::SUCCESS),
        };
    }
    let jobs = shard.select(&all);
    if jobs.is_empty() {
        return Err(bad(anyhow::anyhow!(
            "the experiment `{name}` has no jobs in shard {shard}: nothing would run"
        )));
    }
    if a.runner.dry_run {
        match a.runner.format {
            Format::Json => super::print_json(&jobs)?,
            Format::Text => {
                for j in &jobs {
                    outln!("{}  {}", j.key.id, j.command())?;
                }
                outln!(
                    "{} jobs (shard {shard} of an experiment of {}) in {name}",
                    jobs.len(),
                    all.len()
                )?;
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    sim::regress::results::refuse_earlier(&a.out, a.runner.resume).map_err(err)?;
    crate::out::check_claim(&a.out, &sweep::run::NAMES, "--out")?;
    let stop = super::interrupt_flag()?;
    let workers = super::workers(a.runner.jobs);
    outln!(
        "warpsmith sweep  experiment {name}  shard {shard}  {} of {} jobs  -j {workers}  -> {}",
        jobs.len(),
        all.len(),
        a.out.display()
    )?;
    let o = Options {
        runner: Runner {
            exe: std::env::current_exe()?,
            out: a.out.clone(),
            workers,
            resume: a.runner.resume,
            progress: super::show_progress(),
            timeout: a.runner.timeout,
            stop,
            list: name.clone(),
            shard,
            list_ids: all.iter().map(|j| j.key.id.clone()).collect(),
            say: crate::out::stdout_line,
        },
        statistics,
        version: crate::PKG_VERSION.into(),
        git_rev: crate::GIT_REV.into(),
    };
    let out = sweep::run::run(jobs, &o).map_err(err)?;
    super::note_mended(&a.out, out.repaired, &out.duplicated);
    let errors = out.errors();
    outln!(
        "{} rows ({} run, {} resumed from an earlier sweep), {errors} errors{}; table: {}, {}",
        out.rows.len(),
        out.ran,
        out.resumed,
        if out.missing > 0 {
            format!(", {} not run", out.missing)
        } else {
            String::new()
        },
        a.out.join(table::TABLE_CSV).display(),
        a.out.join(table::TABLE_JSONL).display()
    )?;
    Ok(if out.interrupted {
        note!(
            "interrupted: finish it with `warpsmith sweep --experiment {} --out {} --resume`",
            shlex::try_quote(name).unwrap_or_default(),
            shlex::try_quote(&a.out.display().to_string()).unwrap_or_default()
        );
        ExitCode::from(130)
    } else if errors == 0 && out.missing == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn merge(m: &SweepMergeArgs) -> CliResult<ExitCode> {
    let (rep, _) = table::merge(&m.dirs, &m.out).map_err(err)?;
    outln!(
        "merged {} rows ({} errors) from {} folders into {}",
        rep.rows,
        rep.errors,
        rep.folders,
        m.out.join(table::TABLE_CSV).display()
    )?;
    for (what, ids) in [
        ("missing (no row in any folder)", &rep.missing),
        ("recorded twice (the first kept)", &rep.duplicated),
    ] {
        if !ids.is_empty() {
            outln!("{} jobs {what}: {}", ids.len(), ids.join(" "))?;
        }
    }
    let clean = rep.missing.is_empty() && rep.duplicated.is_empty();
    Ok(if clean && rep.errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
