//! Running a sweep's jobs: each one a `warpsmith run --format json` process, `-j` at a time
//! on the regression runner ([`crate::regress::run::drive`]); each finished job's row appended
//! to `results.jsonl` the moment it ends; at the end, the table in the experiment's order
//! ([`super::table`]).

use super::table::{self, Finished, Row, Status};
use super::Job;
use crate::regress::results::{self, RESULTS};
use crate::regress::run::{child, drive, tail, Ended, Runner, JOBS};
use crate::regress::RegressError;
use serde_json::Value;
use std::time::{Duration, Instant};

pub struct Options {
    /// Where and how the jobs run (its `list` is the experiment as given: a built-in name or
    /// its file).
    pub runner: Runner,
    /// The statistics to keep (none: every one).
    pub statistics: Vec<String>,
    /// The version and git revision of this warpsmith, for the rows of jobs that did not
    /// report theirs (errors).
    pub version: String,
    pub git_rev: String,
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

/// Run `jobs` (this shard's) into the runner's folder ([`drive`]), then write the table.
pub fn run(jobs: Vec<Job>, o: &Options) -> Result<Outcome, RegressError> {
    let mut errors = 0;
    let line = |f: &Finished| {
        let r = &f.row;
        if r.status == Status::Error {
            errors += 1;
        }
        let text = format!(
            "{:5} {} {} {}{} seed {} ({:.1} s){}",
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
        (text, format!("{errors} errors"))
    };
    let ran = drive(&jobs, &o.runner, &NAMES, |j| run_job(j, o), line)?;
    let ids: Vec<String> = jobs.iter().map(|j| j.key.id.clone()).collect();
    let rows = table::in_order(&ids, &ran.results);
    table::write(&o.runner.out, &rows)?;
    if let Some(e) = ran.stdout_error {
        return Err(RegressError::Stdout(e));
    }
    Ok(Outcome {
        missing: jobs.len().saturating_sub(rows.len()),
        rows,
        ran: ran.ran,
        resumed: ran.resumed,
        duplicated: ran.duplicated,
        repaired: ran.repaired,
        interrupted: ran.interrupted,
    })
}

/// Run one job; `None` if it was stopped by an interrupt (it has no row).
fn run_job(job: &Job, o: &Options) -> Option<Finished> {
    let r = &o.runner;
    let dir = r.out.join(JOBS).join(&job.key.id);
    let t = Instant::now();
    let limit = Duration::from_secs(r.timeout.unwrap_or(job.timeout));
    let mut args = job.args.clone();
    args.extend(["--format".into(), "json".into()]);
    let ended = child(&r.exe, &args, &dir, limit, &r.stop);
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
