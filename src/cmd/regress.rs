//! `regress`: expand a regression list and run its jobs (`sim::regress`), or merge shard folders.

use crate::args::{Format, MergeArgs, RegressArgs, RegressCommand};
use crate::{bad, CliError, CliResult};
use sim::regress::{self, run::RunOptions, RegressError, Shard};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// The folder of `--out` that holds the job-array script and the tasks' logs.
const SLURM: &str = "slurm";

/// Bad input or an output that cannot be written exits 2; warpsmith's own failure exits 1.
fn err(e: RegressError) -> CliError {
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
    let shard = match &a.shard {
        Some(s) => Shard::parse(s).map_err(err)?,
        None => Shard::ALL,
    };
    if a.slurm {
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
    if a.dry_run {
        return dry_run(a, &jobs, all.len(), shard);
    }
    if a.jobs == Some(0) {
        return Err(bad(anyhow::anyhow!("-j 0: give at least one worker")));
    }
    if a.timeout == Some(0) {
        return Err(bad(anyhow::anyhow!(
            "--timeout 0: give at least one second"
        )));
    }
    // The output folder is checked before anything runs.
    regress::results::refuse_earlier(&a.out, a.resume).map_err(err)?;
    crate::out::check_claim(&a.out, &regress::run::NAMES, "--out")?;
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, Arc::clone(&stop))?;
    }
    let workers = a
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    outln!(
        "warpsmith regress  list {}  shard {shard}  {} of {} jobs  -j {workers}  -> {}",
        a.list,
        jobs.len(),
        all.len(),
        a.out.display()
    )?;
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
        say: crate::out::stdout_line,
    };
    let out = regress::run::run(jobs, &o).map_err(err)?;
    let results = a.out.join(regress::results::RESULTS);
    if out.repaired > 0 {
        note!(
            "{}: its last line was cut short ({} bytes, a killed run?) and was removed before \
                results were appended; its job ran again",
            results.display(),
            out.repaired
        );
    }
    if !out.duplicated.is_empty() {
        note!(
            "{}: {} job(s) recorded more than once (the same job run twice; the first result \
                counts): {}",
            results.display(),
            out.duplicated.len(),
            out.duplicated.join(" ")
        );
    }
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
    use anyhow::Context;
    if a.shards == 0 {
        return Err(bad(anyhow::anyhow!(
            "--shards 0: give at least one array task"
        )));
    }
    if jobs == 0 {
        return Err(bad(anyhow::anyhow!("the list `{}` has no jobs", a.list)));
    }
    if a.shards > jobs {
        return Err(bad(anyhow::anyhow!(
            "--shards {}: the list `{}` has only {jobs} jobs; give at most that many array tasks",
            a.shards,
            a.list
        )));
    }
    let out = std::path::absolute(&a.out).with_context(|| format!("--out {}", a.out.display()))?;
    regress::results::refuse_earlier(&out, a.resume).map_err(err)?;
    // What the run writes in OUT: the script's folder, the shards' folders, the merged results.
    let shard_names: Vec<String> = (1..=a.shards).map(regress::slurm::shard_name).collect();
    let mut names: Vec<&str> = shard_names.iter().map(String::as_str).collect();
    names.extend([
        SLURM,
        regress::results::RESULTS,
        regress::results::JUNIT,
        regress::results::SUMMARY,
    ]);
    crate::out::claim(&out, &names, "--out")?;
    // A list file is named by its absolute path: the tasks start in another folder.
    let list = if std::path::Path::new(&a.list).exists() {
        std::path::absolute(&a.list)?.display().to_string()
    } else {
        a.list.clone()
    };
    let exe = std::env::current_exe()?;
    let text = regress::slurm::script(&regress::slurm::SlurmJob {
        exe: &exe,
        list: &list,
        out: &out,
        shards: a.shards,
        args: &a.slurm_arg,
        timeout: a.timeout,
    });
    let dir = out.join(SLURM);
    let script = spec::output::add_file(&dir, "regress.sh", text.as_bytes()).map_err(|e| {
        bad(anyhow::anyhow!(
            "--out {} cannot be written: {e}",
            dir.display()
        ))
    })?;
    let submit = format!(
        "sbatch --parsable --wait {}",
        shlex::try_quote(&script.display().to_string()).unwrap_or_default()
    );
    if a.slurm_script_only {
        outln!(
            "wrote {} ({} jobs in {} array tasks)",
            script.display(),
            jobs,
            a.shards
        )?;
        outln!("submit it with: {submit}")?;
        outln!(
            "then merge:     warpsmith regress merge {}/shard-* --out {}",
            out.display(),
            out.display()
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    outln!(
        "warpsmith regress  list {}  {jobs} jobs in {} Slurm array tasks  -> {}",
        a.list,
        a.shards,
        out.display()
    )?;
    let spin = sim::progress::spinner(
        super::show_progress(),
        &format!("waiting for the Slurm job array ({submit})"),
    );
    // `--wait` returns when every task has ended; its status is non-zero when a task failed,
    // which a failing co-simulation makes it: the merged results say what happened.
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
    merge(&MergeArgs { dirs, out })
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
