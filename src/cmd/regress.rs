//! `regress`: expand a regression list and run its jobs (`sim::regress`), or merge shard folders.

use crate::args::{Format, MergeArgs, RegressArgs, RegressCommand};
use crate::{bad, CliError, CliResult};
use sim::regress::{self, run::RunOptions, RegressError, Shard};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

fn err(e: RegressError) -> CliError {
    match e {
        RegressError::BadInput(_) | RegressError::List(..) => bad(e),
        RegressError::Io(..) => e.into(),
    }
}

pub fn run(a: &RegressArgs) -> CliResult<ExitCode> {
    if let Some(RegressCommand::Merge(m)) = &a.command {
        return merge(m);
    }
    let (list, dir) = regress::load(&a.list).map_err(err)?;
    let all = regress::expand(&list, &dir).map_err(err)?;
    let shard = match &a.shard {
        Some(s) => Shard::parse(s).map_err(err)?,
        None => Shard::ALL,
    };
    let jobs = shard.select(&all);
    if a.dry_run {
        return dry_run(a, &jobs, all.len(), shard);
    }
    if jobs.is_empty() {
        return Err(bad(anyhow::anyhow!(
            "the list `{}` has no jobs{}: nothing would be checked",
            a.list,
            if shard == Shard::ALL {
                String::new()
            } else {
                format!(" in shard {shard}")
            }
        )));
    }
    if a.jobs == Some(0) {
        return Err(bad(anyhow::anyhow!("-j 0: give at least one worker")));
    }
    if a.timeout == Some(0) {
        return Err(bad(anyhow::anyhow!(
            "--timeout 0: give at least one second"
        )));
    }
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, Arc::clone(&stop))?;
    }
    let workers = a
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    println!(
        "warpsmith regress  list {}  shard {shard}  {} of {} jobs  -j {workers}  -> {}",
        a.list,
        jobs.len(),
        all.len(),
        a.out.display()
    );
    let o = RunOptions {
        exe: std::env::current_exe()?,
        out: a.out.clone(),
        workers,
        resume: a.resume,
        progress: super::show_progress(),
        timeout: a.timeout,
        stop,
        list: a.list.clone(),
        shard,
        list_ids: all.iter().map(|j| j.id.clone()).collect(),
    };
    let out = regress::run::run(jobs, &o).map_err(err)?;
    println!();
    print!("{}", out.summary);
    println!(
        "{} run, {} resumed from an earlier run{}; results: {}, {}",
        out.ran,
        out.resumed,
        if out.missing > 0 {
            format!(", {} not run", out.missing)
        } else {
            String::new()
        },
        a.out.join(regress::results::RESULTS).display(),
        a.out.join(regress::results::JUNIT).display()
    );
    Ok(if out.interrupted {
        eprintln!(
            "interrupted: finish it with `warpsmith regress --list {} --out {} --resume`",
            shlex::try_quote(&a.list).unwrap_or_default(),
            shlex::try_quote(&a.out.display().to_string()).unwrap_or_default()
        );
        ExitCode::from(130)
    } else if out.all_passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn dry_run(
    a: &RegressArgs,
    jobs: &[regress::Job],
    total: usize,
    shard: Shard,
) -> CliResult<ExitCode> {
    match a.format {
        Format::Json => super::print_json(&jobs)?,
        Format::Text => {
            for j in jobs {
                println!("{}  {}", j.id, j.command());
            }
            println!(
                "{} jobs (shard {shard} of a list of {total}) in list {}",
                jobs.len(),
                a.list
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn merge(m: &MergeArgs) -> CliResult<ExitCode> {
    let (rep, summary) = regress::results::merge(&m.dirs, &m.out).map_err(err)?;
    print!("{summary}");
    println!(
        "merged {} results from {} folders into {}",
        rep.results,
        rep.folders,
        m.out.display()
    );
    for (what, ids) in [
        ("missing (no result in any folder)", &rep.missing),
        ("recorded twice (the first kept)", &rep.duplicated),
        ("not in any folder's plan", &rep.unplanned),
    ] {
        if !ids.is_empty() {
            println!("{} jobs {what}: {}", ids.len(), ids.join(" "));
        }
    }
    let clean = rep.missing.is_empty() && rep.duplicated.is_empty() && rep.unplanned.is_empty();
    let passed = regress::results::read(&m.out.join(regress::results::RESULTS))
        .map_err(err)?
        .iter()
        .all(|r| r.verdict == regress::results::JobVerdict::Pass);
    Ok(if clean && passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
