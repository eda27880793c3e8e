//! Running a sweep's jobs: each one a `warpsmith run --format json` process, `-j` at a time
//! ([`crate::regress::run::pool`]); each finished job's row appended to `results.jsonl` the
//! moment it ends; at the end, the table in the experiment's order ([`super::table`]).

use super::table::{self, Finished, Row, Status};
use super::Job;
use crate::regress::results::{self, Plan, RESULTS};
use crate::regress::run::{child, pool, tail, Ended, JOBS};
use crate::regress::{RegressError, Shard};
use serde_json::Value;
use std::collections::{HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub struct Options {
    /// The `warpsmith` binary the jobs run.
    pub exe: PathBuf,
    pub out: PathBuf,
    /// Jobs at once.
    pub workers: usize,
    /// Skip the jobs `results.jsonl` already holds (else an existing one is an error).
    pub resume: bool,
    pub progress: bool,
    /// Seconds per job, overriding the experiment's.
    pub timeout: Option<u64>,
    /// Set on an interrupt: no job is started, running ones are stopped (and not recorded).
    pub stop: Arc<AtomicBool>,
    /// The experiment as given (a built-in name or its file).
    pub experiment: String,
    pub shard: Shard,
    /// The ids of the whole experiment (every shard's), in its order.
    pub all_ids: Vec<String>,
    /// The statistics to keep (none: every one).
    pub statistics: Vec<String>,
    /// The version and git revision of this warpsmith, for the rows of jobs that did not
    /// report theirs (errors).
    pub version: String,
    pub git_rev: String,
    /// Prints one line of progress (the CLI's standard output); an error stops the run like
    /// an interrupt.
    pub say: fn(&str) -> std::io::Result<()>,
}

/// The names a sweep writes in its output folder (claimed before anything runs).
pub const NAMES: [&str; 5] = [
    RESULTS,
    results::PLAN,
    table::TABLE_CSV,
    table::TABLE_JSONL,
    JOBS,
];

/// What a sweep did.
pub struct Outcome {
    /// The table: this shard's rows, in the experiment's order (resumed ones and this run's).
    pub rows: Vec<Row>,
    pub ran: usize,
    pub resumed: usize,
    /// Jobs without a row (interrupted).
    pub missing: usize,
    /// Jobs recorded more than once in `results.jsonl` (the first counts).
    pub duplicated: Vec<String>,
    /// Bytes of a last line cut short by a kill, removed before appending.
    pub repaired: u64,
    pub interrupted: bool,
}

impl Outcome {
    pub fn errors(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| r.status == Status::Error)
            .count()
    }
}

/// Run `jobs` (this shard's) into `o.out`.
pub fn run(jobs: Vec<Job>, o: &Options) -> Result<Outcome, RegressError> {
    results::refuse_earlier(&o.out, o.resume)?;
    spec::output::claim(&o.out, &NAMES)
        .map_err(|e| RegressError::Write(o.out.display().to_string(), e))?;
    let results_path = o.out.join(RESULTS);
    let repaired = results::repair::<Finished>(&results_path)?;
    let planned: HashSet<&str> = jobs.iter().map(|j| j.key.id.as_str()).collect();
    let recorded = results::read::<Finished>(&results_path)?;
    let earlier: Vec<Finished> = recorded
        .results
        .into_iter()
        .filter(|f| planned.contains(f.row.key.id.as_str()))
        .collect();
    let done: HashSet<String> = earlier.iter().map(|f| f.row.key.id.clone()).collect();
    let plan = Plan {
        list: o.experiment.clone(),
        shard: o.shard.to_string(),
        list_ids: o.all_ids.clone(),
        jobs: jobs.clone(),
    };
    let plan_text = serde_json::to_string_pretty(&plan)
        .map_err(|e| RegressError::Internal(format!("cannot encode the plan: {e}")))?;
    results::write_file(&o.out.join(results::PLAN), &plan_text)?;
    let todo: VecDeque<Job> = jobs
        .iter()
        .filter(|j| !done.contains(&j.key.id))
        .cloned()
        .collect();
    let total = todo.len();
    let bar = crate::progress::jobs(o.progress, total as u64);
    let mut fresh: Vec<Finished> = Vec::new();
    let mut write_error = None;
    let mut stdout_error = None;
    let mut errors = 0;
    pool(
        todo,
        o.workers,
        &o.stop,
        |j| run_job(j, o),
        |f: Finished| {
            // Recorded before anything else: a kill from here on loses nothing of it.
            if let Err(e) = results::append(&results_path, &f) {
                write_error.get_or_insert(e);
                o.stop.store(true, Ordering::SeqCst);
            }
            let r = &f.row;
            if r.status == Status::Error {
                errors += 1;
            }
            let line = format!(
                "[{}/{total}] {:5} {} {} {}{} seed {} ({:.1} s){}",
                fresh.len() + 1,
                if r.status == Status::Ok {
                    "OK"
                } else {
                    "ERROR"
                },
                r.key.workload,
                r.key.preset,
                r.key.config_hash,
                if r.key.sets.is_empty() {
                    String::new()
                } else {
                    format!(" [{}]", r.key.sets.join(" "))
                },
                r.key.seed,
                f.seconds,
                if r.status == Status::Ok {
                    String::new()
                } else {
                    format!(": {}", r.message)
                }
            );
            if o.progress {
                bar.println(line);
            } else if let Err(e) = (o.say)(&line) {
                stdout_error.get_or_insert(e);
                o.stop.store(true, Ordering::SeqCst);
            }
            bar.set_message(format!("{errors} errors"));
            bar.inc(1);
            fresh.push(f);
        },
    );
    bar.finish_and_clear();
    if let Some(e) = write_error {
        return Err(e);
    }
    let (ran, resumed) = (fresh.len(), earlier.len());
    let mut all = earlier;
    all.extend(fresh);
    let ids: Vec<String> = jobs.iter().map(|j| j.key.id.clone()).collect();
    let rows = table::in_order(&ids, &all);
    table::write(&o.out, &rows)?;
    if let Some(e) = stdout_error {
        return Err(RegressError::Stdout(e));
    }
    Ok(Outcome {
        missing: jobs.len().saturating_sub(rows.len()),
        rows,
        ran,
        resumed,
        duplicated: recorded.duplicated,
        repaired,
        interrupted: o.stop.load(Ordering::SeqCst),
    })
}

/// Run one job; `None` if it was stopped by an interrupt (it has no row).
fn run_job(job: &Job, o: &Options) -> Option<Finished> {
    let dir = o.out.join(JOBS).join(&job.key.id);
    let t = Instant::now();
    let limit = Duration::from_secs(o.timeout.unwrap_or(job.timeout));
    let mut args = job.args.clone();
    args.extend(["--format".into(), "json".into()]);
    let ended = child(&o.exe, &args, &dir, limit, &o.stop);
    let seconds = t.elapsed().as_secs_f64();
    let row = |status, message: String, report: Option<&Value>| {
        let s = |k: &str, or: &str| report.and_then(|r| r[k].as_str()).unwrap_or(or).to_string();
        Row {
            schema: table::SCHEMA.into(),
            key: job.key.clone(),
            version: s("version", &o.version),
            git_rev: s("git_rev", &o.git_rev),
            status,
            message,
            command: job.command(),
            statistics: report
                .map_or_else(Default::default, |r| table::statistics(r, &o.statistics)),
        }
    };
    let error = |why: String| {
        let last = tail(&dir.join("stderr.txt"));
        let line = last.lines().last().unwrap_or("no message").to_string();
        row(Status::Error, format!("{why}: {line}"), None)
    };
    let row = match ended {
        Ended::Stopped => return None,
        Ended::TimedOut => error(format!("timed out after {} s (stopped)", limit.as_secs())),
        Ended::Failed(why) => row(Status::Error, why, None),
        Ended::Exited(s) if s.code() == Some(0) => {
            let report = std::fs::read(dir.join("stdout.json"))
                .ok()
                .and_then(|b| serde_json::from_slice::<Value>(&b).ok());
            match report {
                Some(r) => row(Status::Ok, String::new(), Some(&r)),
                None => error("exit 0 without a JSON report".into()),
            }
        }
        Ended::Exited(s) => match s.code() {
            Some(code) => error(format!("exit {code}")),
            None => error(format!("crashed ({s})")),
        },
    };
    Some(Finished { row, seconds })
}
