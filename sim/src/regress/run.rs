//! Running a regression's jobs: each one a `warpsmith cosim` process (a crash or a hang in one
//! job cannot take the others down), `-j` at a time; each result appended to `results.jsonl`
//! the moment its job ends.

use super::results::{self, JobResult, JobVerdict, Plan, Planned, Record, RESULTS};
use super::{random, Job, RegressError, Shard};
use serde_json::Value;
use std::collections::{HashSet, VecDeque};
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};
use wait_timeout::ChildExt;

/// Bytes of a failed job's standard error kept in its result.
const STDERR_TAIL: usize = 2000;
/// How often a running job checks for an interrupt.
const POLL: Duration = Duration::from_millis(200);

/// What a run of `warpsmith` jobs is given, a regression's and a sweep's alike.
pub struct Runner {
    /// The `warpsmith` binary the jobs run.
    pub exe: PathBuf,
    pub out: PathBuf,
    /// Jobs at once.
    pub workers: usize,
    /// Skip the jobs `results.jsonl` already holds (else an existing one is an error).
    pub resume: bool,
    pub progress: bool,
    /// Seconds per job, overriding the list's.
    pub timeout: Option<u64>,
    /// Set on an interrupt: no job is started, running ones are stopped (and not recorded).
    pub stop: Arc<AtomicBool>,
    /// The list (or experiment) as given, the shard of it this run is, and the ids of the
    /// whole list (every shard's), in its order: the plan.
    pub list: String,
    pub shard: Shard,
    pub list_ids: Vec<String>,
    /// Prints one line of progress (the CLI's standard output); an error stops the run like
    /// an interrupt (the results so far are recorded) and is the run's error.
    pub say: fn(&str) -> std::io::Result<()>,
}

/// The results of [`drive`].
pub struct Ran<R> {
    /// Every result of these jobs: those `results.jsonl` already held (resumed), then this
    /// run's in the order they finished; how many of each.
    pub results: Vec<R>,
    pub resumed: usize,
    pub ran: usize,
    /// Jobs recorded more than once in `results.jsonl` (the first result counts).
    pub duplicated: Vec<String>,
    /// Bytes of a last line of `results.jsonl` cut short by a kill, removed before appending.
    pub repaired: u64,
    pub interrupted: bool,
    /// Why a progress line could not be printed (the run stopped there, as on an interrupt).
    pub stdout_error: Option<std::io::Error>,
}

/// Run `jobs` (this shard's) into `r.out`, claiming `names` there: the results of an earlier
/// run resumed (or refused), the plan written, every job not yet done run by `run_job` on
/// [`pool`], each result appended to `results.jsonl` the moment it arrives and then its
/// progress line printed (`[N/TOTAL] ` and the line `line` gives, with the progress bar's
/// message after it: its tallies).
pub fn drive<J, R>(
    jobs: &[J],
    r: &Runner,
    names: &[&str],
    run_job: impl Fn(&J) -> Option<R> + Sync,
    mut line: impl FnMut(&R) -> (String, String),
) -> Result<Ran<R>, RegressError>
where
    J: Planned + serde::Serialize + Clone + Send + Sync,
    R: Record + Send,
{
    results::refuse_earlier(&r.out, r.resume)?;
    spec::output::claim(&r.out, names)
        .map_err(|e| RegressError::Write(r.out.display().to_string(), e))?;
    let results_path = r.out.join(RESULTS);
    // A line a kill cut short would have the next result appended to it: cut it off first.
    let repaired = results::repair::<R>(&results_path)?;
    let planned: HashSet<&str> = jobs.iter().map(Planned::id).collect();
    let recorded = results::read::<R>(&results_path)?;
    let earlier: Vec<R> = recorded
        .results
        .into_iter()
        .filter(|x| planned.contains(x.id()))
        .collect();
    let done: HashSet<String> = earlier.iter().map(|x| x.id().to_string()).collect();
    let plan = Plan {
        list: r.list.clone(),
        shard: r.shard.to_string(),
        list_ids: r.list_ids.clone(),
        jobs: jobs.to_vec(),
    };
    let plan_text = serde_json::to_string_pretty(&plan)
        .map_err(|e| RegressError::Internal(format!("cannot encode the plan: {e}")))?;
    results::write_file(&r.out.join(results::PLAN), &plan_text)?;
    let todo: VecDeque<J> = jobs
        .iter()
        .filter(|j| !done.contains(j.id()))
        .cloned()
        .collect();
    let total = todo.len();
    let bar = crate::progress::jobs(r.progress, total as u64);
    let mut fresh = Vec::new();
    let mut write_error = None;
    let mut stdout_error = None;
    pool(todo, r.workers, &r.stop, run_job, |x: R| {
        // Recorded before anything else: a kill from here on loses nothing of it.
        if let Err(e) = results::append(&results_path, &x) {
            write_error.get_or_insert(e);
            r.stop.store(true, Ordering::SeqCst);
        }
        let (text, message) = line(&x);
        let text = format!("[{}/{total}] {text}", fresh.len() + 1);
        if r.progress {
            bar.println(text);
        } else if let Err(e) = (r.say)(&text) {
            stdout_error.get_or_insert(e);
            r.stop.store(true, Ordering::SeqCst);
        }
        bar.set_message(message);
        bar.inc(1);
        fresh.push(x);
    });
    bar.finish_and_clear();
    if let Some(e) = write_error {
        return Err(e);
    }
    let (resumed, ran) = (earlier.len(), fresh.len());
    let mut results = earlier;
    results.extend(fresh);
    Ok(Ran {
        results,
        resumed,
        ran,
        duplicated: recorded.duplicated,
        repaired,
        interrupted: r.stop.load(Ordering::SeqCst),
        stdout_error,
    })
}

/// The names a run writes in its output folder (claimed in its marker before anything runs).
pub const NAMES: [&str; 5] = [
    RESULTS,
    results::PLAN,
    results::JUNIT,
    results::SUMMARY,
    JOBS,
];

/// The folder of the jobs' own output (`jobs/<id>/`).
pub const JOBS: &str = "jobs";

/// What a run did.
pub struct Outcome {
    /// Every result of this run's jobs: earlier ones (resumed) and this run's.
    pub results: Vec<JobResult>,
    pub ran: usize,
    pub resumed: usize,
    /// Jobs without a result (interrupted): the jobs given that no result names.
    pub missing: usize,
    /// Jobs recorded more than once in `results.jsonl` (the first result counts).
    pub duplicated: Vec<String>,
    /// Bytes of a last line of `results.jsonl` cut short by a kill, removed before appending.
    pub repaired: u64,
    pub interrupted: bool,
    pub summary: String,
}

impl Outcome {
    pub fn all_passed(&self) -> bool {
        self.missing == 0 && self.results.iter().all(|r| r.verdict == JobVerdict::Pass)
    }
}

/// Run `jobs` (this shard's) into `o.out` ([`drive`]), then write the reports.
pub fn run(jobs: Vec<Job>, o: &Runner) -> Result<Outcome, RegressError> {
    let (mut failed, mut errors) = (0, 0);
    let line = |r: &JobResult| {
        match r.verdict {
            JobVerdict::Pass => {}
            JobVerdict::Fail => failed += 1,
            JobVerdict::Error => errors += 1,
        }
        let text = format!(
            "{:5} {} {} {} ({:.1} s){}",
            match r.verdict {
                JobVerdict::Pass => "PASS",
                JobVerdict::Fail => "FAIL",
                JobVerdict::Error => "ERROR",
            },
            r.block,
            r.preset,
            r.name(),
            r.seconds,
            if r.verdict == JobVerdict::Pass {
                String::new()
            } else {
                format!(": {}", r.message)
            }
        );
        (text, format!("{failed} failed, {errors} errors"))
    };
    let ran = drive(&jobs, o, &NAMES, |job| run_job(job, o), line)?;
    let all = ran.results;
    // The jobs given that no result names: counted from the jobs, never by subtracting counts
    // that can disagree.
    let recorded: HashSet<&str> = all.iter().map(|r| r.id.as_str()).collect();
    let missing = jobs
        .iter()
        .filter(|j| !recorded.contains(j.id.as_str()))
        .count();
    let summary = results::write_reports(&o.out, &o.list, &all, missing)?;
    if let Some(e) = ran.stdout_error {
        return Err(RegressError::Stdout(e));
    }
    Ok(Outcome {
        results: all,
        ran: ran.ran,
        resumed: ran.resumed,
        missing,
        duplicated: ran.duplicated,
        repaired: ran.repaired,
        interrupted: ran.interrupted,
        summary,
    })
}

/// Run every job of `todo` with `work` on `workers` threads, handing each result to `done` on
/// the calling thread the moment it is ready (where it is recorded before the next one is
/// taken). A job `work` returns `None` for (stopped by the interrupt) has no result; no job
/// starts once `stop` is set.
pub fn pool<J: Send, R: Send>(
    todo: VecDeque<J>,
    workers: usize,
    stop: &AtomicBool,
    work: impl Fn(&J) -> Option<R> + Sync,
    mut done: impl FnMut(R),
) {
    let threads = workers.max(1).min(todo.len().max(1));
    let queue = Mutex::new(todo);
    let (tx, rx) = mpsc::channel::<R>();
    std::thread::scope(|s| {
        for _ in 0..threads {
            let tx = tx.clone();
            let (queue, work) = (&queue, &work);
            s.spawn(move || loop {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let Some(job) = queue.lock().ok().and_then(|mut q| q.pop_front()) else {
                    break;
                };
                if let Some(r) = work(&job) {
                    if tx.send(r).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        rx.into_iter().for_each(&mut done);
    });
}

/// The last `STDERR_TAIL` bytes of a file, at a character boundary.
pub fn tail(path: &Path) -> String {
    let text = std::fs::read(path).unwrap_or_default();
    let start = text.len().saturating_sub(STDERR_TAIL);
    String::from_utf8_lossy(&text[start..]).trim().to_string()
}

/// How a child `warpsmith` process ended.
pub enum Ended {
    Exited(std::process::ExitStatus),
    /// Stopped by the interrupt (no result).
    Stopped,
    TimedOut,
    /// It could not be started or waited for.
    Failed(String),
}

/// Run `exe ARGS` with its output in `DIR/stdout.json` and `DIR/stderr.txt` (files rather than
/// pipes: nothing to drain while waiting, and they stay for a look), stopping it at `limit` or
/// when `stop` is set (the interrupt).
pub fn child<S: AsRef<OsStr>>(
    exe: &Path,
    args: &[S],
    dir: &Path,
    limit: Duration,
    stop: &AtomicBool,
) -> Ended {
    let t = Instant::now();
    let files = std::fs::create_dir_all(dir)
        .and_then(|_| spec::output::create(&dir.join("stdout.json")))
        .and_then(|a| Ok((a, spec::output::create(&dir.join("stderr.txt"))?)));
    let (out_file, err_file) = match files {
        Ok(f) => f,
        Err(e) => return Ended::Failed(format!("cannot create {}: {e}", dir.display())),
    };
    let spawned = Command::new(exe)
        .args(args)
        .stdin(Stdio::null())
        .stdout(out_file)
        .stderr(err_file)
        .spawn();
    let mut c = match spawned {
        Ok(c) => c,
        Err(e) => return Ended::Failed(format!("cannot start {}: {e}", exe.display())),
    };
    loop {
        if stop.load(Ordering::SeqCst) {
            let _ = c.kill();
            let _ = c.wait();
            return Ended::Stopped;
        }
        match c.wait_timeout(POLL) {
            // A job killed by the interrupt's signal did not finish: it has no result.
            Ok(Some(s)) if stop.load(Ordering::SeqCst) && s.code().is_none() => {
                return Ended::Stopped
            }
            Ok(Some(s)) => return Ended::Exited(s),
            Ok(None) if t.elapsed() >= limit => {
                let _ = c.kill();
                let _ = c.wait();
                return Ended::TimedOut;
            }
            Ok(None) => {}
            Err(e) => return Ended::Failed(format!("cannot wait for the job: {e}")),
        }
    }
}

/// Run the co-simulation `warpsmith ARGS --format json --out-dir DIR/repro` ([`child`]).
fn cosim(args: &[String], dir: &Path, limit: Duration, o: &Runner) -> Ended {
    let mut all: Vec<OsString> = args.iter().map(OsString::from).collect();
    all.extend(["--format", "json", "--out-dir"].map(OsString::from));
    all.push(dir.join("repro").into_os_string());
    child(&o.exe, &all, dir, limit, &o.stop)
}

/// Whether the configuration `sets` of a random-configuration job still fails (shrinking).
fn still_fails(job: &Job, sets: &[String], dir: &Path, o: &Runner) -> bool {
    let mut args = job.args_with_sets(sets);
    args.push("--no-shrink".into());
    let limit = Duration::from_secs(o.timeout.unwrap_or(job.timeout));
    match cosim(&args, dir, limit, o) {
        Ended::Exited(s) if s.code() == Some(1) => std::fs::read(dir.join("stdout.json"))
            .ok()
            .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
            .is_some_and(|r| r["verdict"] == "fail"),
        _ => false,
    }
}

/// Run one job; `None` if it was stopped by an interrupt (it has no result).
fn run_job(job: &Job, o: &Runner) -> Option<JobResult> {
    let dir = o.out.join(JOBS).join(&job.id);
    let t = Instant::now();
    let err = |msg: String, stderr: String| {
        Some(JobResult::error(
            job,
            msg,
            t.elapsed().as_secs_f64(),
            stderr,
        ))
    };
    let (out_path, err_path) = (dir.join("stdout.json"), dir.join("stderr.txt"));
    let limit = Duration::from_secs(o.timeout.unwrap_or(job.timeout));
    let status = match cosim(&job.args, &dir, limit, o) {
        Ended::Exited(s) => s,
        Ended::Stopped => return None,
        Ended::TimedOut => {
            return err(
                format!("timed out after {} s (stopped)", limit.as_secs()),
                tail(&err_path),
            )
        }
        Ended::Failed(why) => return err(why, tail(&err_path)),
    };
    let seconds = t.elapsed().as_secs_f64();
    let report: Option<Value> = std::fs::read(&out_path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok());
    let Some(code) = status.code() else {
        return err(format!("crashed ({status})"), tail(&err_path));
    };
    let verdict = report.as_ref().and_then(|r| r["verdict"].as_str());
    let (verdict, message) = match (code, verdict, &job.mutant) {
        (0, Some("pass"), None) => (JobVerdict::Pass, "passed".to_string()),
        (0, Some("pass"), Some(_)) => (
            JobVerdict::Fail,
            "the mutant was not caught (the co-simulation passed)".to_string(),
        ),
        (1, Some("fail"), m) => {
            let f = report.as_ref().map(|r| &r["failure"]);
            let what = f.map_or(String::new(), |f| {
                format!(
                    "{} at cycle {}{}",
                    f["kind"].as_str().unwrap_or("failure"),
                    f["cycle"],
                    f["port"]
                        .as_str()
                        .map(|p| format!(" on {p}"))
                        .unwrap_or_default()
                )
            });
            if m.is_some() {
                (JobVerdict::Pass, format!("mutant caught: {what}"))
            } else {
                (JobVerdict::Fail, what)
            }
        }
        _ => {
            let last = tail(&err_path);
            let line = last.lines().last().unwrap_or("").to_string();
            return err(
                format!(
                    "exit {code}: {}",
                    if line.is_empty() { "no message" } else { &line }
                ),
                last,
            );
        }
    };
    let r = report.unwrap_or(Value::Null);
    let f = &r["failure"];
    let s = |v: &Value| v.as_str().map(str::to_string);
    // A random configuration that fails: the fewest of its keys that still fail.
    let shrunk = (verdict == JobVerdict::Fail && job.random).then(|| {
        let mut k = 0;
        random::shrink(&job.preset, &job.sets, |sets| {
            k += 1;
            still_fails(job, sets, &dir.join(format!("shrink-{k}")), o)
        })
    });
    let message = match &shrunk {
        Some(keys) if keys.is_empty() => {
            format!("{message}; it fails at the preset's values too (no key of it is needed)")
        }
        Some(keys) => format!(
            "{message}; it fails with only {}",
            keys.iter()
                .map(|kv| format!("--set {kv}"))
                .collect::<Vec<_>>()
                .join(" ")
        ),
        None => message,
    };
    Some(JobResult {
        cycles_run: r["cycles"].as_u64().unwrap_or(0),
        cycles_per_second: r["timing"]["cycles_per_second"].as_f64().unwrap_or(0.0),
        reproduce: (verdict != JobVerdict::Pass)
            .then(|| s(&f["reproduce"]).unwrap_or_else(|| job.command())),
        reproducer: s(&f["reproducer"]["path"]),
        vcd: s(&f["reproducer"]["vcd"]),
        shrunk_sets: shrunk,
        ..JobResult::of(job, verdict, message, seconds)
    })
}
