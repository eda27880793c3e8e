//! `regress`: expand a regression list and run its jobs (`sim::regress`), or merge shard folders.

use crate::args::{Format, MergeArgs, RegressArgs, RegressCommand};
use crate::{bad, CliError, CliResult};
use sim::regress::{self, run::Runner, RegressError, Shard};
use std::process::ExitCode;

/// The folder of `--out` that holds the job-array script and the tasks' logs.
const SLURM: &str = "slurm";

/// Bad input or an output that cannot be written exits 2; warpsmith's own failure exits 1.
pub(crate) fn err(e: RegressError) -> CliError {
    if e.is_bad_input() {
        bad(e)
    } else {
        e.into()
    }
}

pub fn run(a: &RegressArgs) -> CliResult<ExitCode> {
    if let Some(RegressCommand::Merge(m)) = &a.command {
        return merge(m);
    }
    let (list, dir) = regress::load(&a.list).map_err(err)?;
    let all = regress::expand(&list, &dir).map_err(err)?;
    let shard = match &a.runner.shard {
        Some(s) => Shard::parse(s).map_err(err)?,
        None => Shard::ALL,
    };
    if a.runner.slurm {
        return slurm(a, all.len());
    }
    let jobs = shard.select(&all);
    // No jobs is refused, for a dry run too: it shows what the run would do.
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
    if a.runner.dry_run {
        return dry_run(a, &jobs, all.len(), shard);
    }
    super::check_runner(a.runner.jobs, a.runner.timeout)?;
    // The output folder is checked before anything runs.
    regress::results::refuse_earlier(&a.out, a.runner.resume).map_err(err)?;
    crate::out::check_claim(&a.out, &regress::run::NAMES, "--out")?;
    let stop = super::interrupt_flag()?;
    let workers = super::workers(a.runner.jobs);
    outln!(
        "warpsmith regress  list {}  shard {shard}  {} of {} jobs  -j {workers}  -> {}",
        a.list,
        jobs.len(),
        all.len(),
        a.out.display()
    )?;
    let o = Runner {
        exe: std::env::current_exe()?,
        out: a.out.clone(),
        workers,
        resume: a.runner.resume,
        progress: super::show_progress(),
        timeout: a.runner.timeout,
        stop,
        list: a.list.clone(),
        shard,
        list_ids: all.iter().map(|j| j.id.clone()).collect(),
        say: crate::out::stdout_line,
    };
    let out = regress::run::run(jobs, &o).map_err(err)?;
    super::note_mended(&a.out, out.repaired, &out.duplicated);
    outln!()?;
    out!("{}", out.summary)?;
    outln!(
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
    )?;
    Ok(if out.interrupted {
        note!(
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

/// Write the job-array script; unless only the script is asked for, submit it, wait for it and
/// merge its shards into `--out`.
fn slurm(a: &RegressArgs, jobs: usize) -> CliResult<ExitCode> {
    let array = Array {
        command: "regress",
        input_flag: "--list",
        noun: "list",
        input: &a.list,
        out: &a.out,
        jobs,
        shards: a.runner.shards,
        slurm_arg: &a.runner.slurm_arg,
        script_only: a.runner.slurm_script_only,
        timeout: a.runner.timeout,
        resume: a.runner.resume,
        merged: &[
            regress::results::RESULTS,
            regress::results::JUNIT,
            regress::results::SUMMARY,
        ],
    };
    match submit(&array)? {
        Some((out, dirs)) => merge(&MergeArgs { dirs, out }),
        None => Ok(ExitCode::SUCCESS),
    }
}

/// A run on Slurm, as `regress --slurm` and `sweep --slurm` make it: a job array of `shards`
/// tasks, task I running `warpsmith COMMAND INPUT_FLAG INPUT --shard I/N` into `OUT/shard-I`.
pub(crate) struct Array<'a> {
    pub command: &'a str,
    pub input_flag: &'a str,
    /// What the input is called in messages (`list`, `experiment`).
    pub noun: &'a str,
    pub input: &'a str,
    pub out: &'a std::path::Path,
    /// Jobs of the whole input.
    pub jobs: usize,
    pub shards: usize,
    pub slurm_arg: &'a [String],
    pub script_only: bool,
    pub timeout: Option<u64>,
    pub resume: bool,
    /// The files the merge writes in OUT.
    pub merged: &'a [&'a str],
}

/// Write the job-array script in `OUT/slurm/`; unless only the script is asked for
/// (`Ok(None)`), submit it with `sbatch --wait` and return the absolute OUT and the shard
/// folders to merge, each checked to hold a plan.
pub(crate) fn submit(
    a: &Array,
) -> CliResult<Option<(std::path::PathBuf, Vec<std::path::PathBuf>)>> {
    use anyhow::Context;
    if a.shards == 0 {
        return Err(bad(anyhow::anyhow!(
            "--shards 0: give at least one array task"
        )));
    }
    if a.jobs == 0 {
        return Err(bad(anyhow::anyhow!(
            "the {} `{}` has no jobs",
            a.noun,
            a.input
        )));
    }
    if a.shards > a.jobs {
        return Err(bad(anyhow::anyhow!(
            "--shards {}: the {} `{}` has only {} jobs; give at most that many array tasks",
            a.shards,
            a.noun,
            a.input,
            a.jobs
        )));
    }
    let out = std::path::absolute(a.out).with_context(|| format!("--out {}", a.out.display()))?;
    regress::results::refuse_earlier(&out, a.resume).map_err(err)?;
    // What the run writes in OUT: the script's folder, the shards' folders, the merged results.
    let shard_names: Vec<String> = (1..=a.shards).map(regress::slurm::shard_name).collect();
    let mut names: Vec<&str> = shard_names.iter().map(String::as_str).collect();
    names.push(SLURM);
    names.extend(a.merged);
    crate::out::claim(&out, &names, "--out")?;
    // A file is named by its absolute path: the tasks start in another folder.
    let input = if std::path::Path::new(a.input).exists() {
        std::path::absolute(a.input)?.display().to_string()
    } else {
        a.input.to_string()
    };
    let exe = std::env::current_exe()?;
    let text = regress::slurm::script(&regress::slurm::SlurmJob {
        exe: &exe,
        command: a.command,
        input_flag: a.input_flag,
        input: &input,
        out: &out,
        shards: a.shards,
        args: a.slurm_arg,
        timeout: a.timeout,
    });
    let dir = out.join(SLURM);
    let script = spec::output::add_file(&dir, &format!("{}.sh", a.command), text.as_bytes())
        .map_err(|e| {
            bad(anyhow::anyhow!(
                "--out {} cannot be written: {e}",
                dir.display()
            ))
        })?;
    let submit = format!(
        "sbatch --parsable --wait {}",
        shlex::try_quote(&script.display().to_string()).unwrap_or_default()
    );
    if a.script_only {
        outln!(
            "wrote {} ({} jobs in {} array tasks)",
            script.display(),
            a.jobs,
            a.shards
        )?;
        outln!("submit it with: {submit}")?;
        outln!(
            "then merge:     warpsmith {} merge {}/shard-* --out {}",
            a.command,
            out.display(),
            out.display()
        )?;
        return Ok(None);
    }
    outln!(
        "warpsmith {}  {} {}  {} jobs in {} Slurm array tasks  -> {}",
        a.command,
        a.noun,
        a.input,
        a.jobs,
        a.shards,
        out.display()
    )?;
    let spin = sim::progress::spinner(
        super::show_progress(),
        &format!("waiting for the Slurm job array ({submit})"),
    );
    // `--wait` returns when every task has ended; its status is non-zero when a task failed,
    // which a failing job makes it: the merged results say what happened.
    let o = std::process::Command::new("sbatch")
        .args(["--parsable", "--wait"])
        .arg(&script)
        .output();
    spin.finish_and_clear();
    let o = o.map_err(|e| {
        anyhow::anyhow!(
            "cannot run sbatch ({e}): is Slurm's client installed? \
        `--slurm-script-only` writes the script without submitting it"
        )
    })?;
    let id = String::from_utf8_lossy(&o.stdout).trim().to_string();
    if id.is_empty() {
        return Err(anyhow::anyhow!(
            "sbatch did not submit the job array: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        )
        .into());
    }
    outln!("Slurm job {id} ended; merging its {} shards", a.shards)?;
    let dirs: Vec<_> = (1..=a.shards)
        .map(|i| regress::slurm::shard_dir(&out, i))
        .collect();
    let missing_dirs: Vec<_> = dirs
        .iter()
        .filter(|d| !d.join(regress::results::PLAN).exists())
        .map(|d| d.display().to_string())
        .collect();
    if !missing_dirs.is_empty() {
        return Err(anyhow::anyhow!(
            "array tasks wrote no results in {} (their logs: {}/shard-*.log)",
            missing_dirs.join(", "),
            dir.display()
        )
        .into());
    }
    Ok(Some((out, dirs)))
}

fn dry_run(
    a: &RegressArgs,
    jobs: &[regress::Job],
    total: usize,
    shard: Shard,
) -> CliResult<ExitCode> {
    match a.runner.format {
        Format::Json => super::print_json(&jobs)?,
        Format::Text => {
            for j in jobs {
                outln!("{}  {}", j.id, j.command())?;
            }
            outln!(
                "{} jobs (shard {shard} of a list of {total}) in list {}",
                jobs.len(),
                a.list
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn merge(m: &MergeArgs) -> CliResult<ExitCode> {
    let (rep, summary) = regress::results::merge(&m.dirs, &m.out).map_err(err)?;
    out!("{summary}")?;
    outln!(
        "merged {} results from {} folders into {}",
        rep.results,
        rep.folders,
        m.out.display()
    )?;
    for (what, ids) in [
        ("missing (no result in any folder)", &rep.missing),
        ("recorded twice (the first kept)", &rep.duplicated),
        ("not in any folder's plan", &rep.unplanned),
    ] {
        if !ids.is_empty() {
            outln!("{} jobs {what}: {}", ids.len(), ids.join(" "))?;
        }
    }
    let clean = rep.missing.is_empty() && rep.duplicated.is_empty() && rep.unplanned.is_empty();
    Ok(if clean && rep.not_passed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
