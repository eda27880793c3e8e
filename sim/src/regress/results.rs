//! What a regression leaves: `results.jsonl` (one line per finished job, appended as it ends),
//! `plan.json` (the jobs it was given), `junit.xml` and `summary.txt`; and the merge of shard
//! folders.

use super::{Job, JobKey, RegressError};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

pub const RESULTS: &str = "results.jsonl";
pub const PLAN: &str = "plan.json";
pub const JUNIT: &str = "junit.xml";
pub const SUMMARY: &str = "summary.txt";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JobVerdict {
    /// The co-simulation passed (a mutant job: the mutant was caught).
    Pass,
    /// A mismatch or assertion (a mutant job: the mutant was not caught).
    Fail,
    /// The job could not give a verdict: bad input, a run that checked nothing, a crash, a
    /// timeout.
    Error,
}

/// One finished job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobResult {
    #[serde(flatten)]
    pub key: JobKey,
    pub verdict: JobVerdict,
    /// What happened, in one line.
    pub message: String,
    /// Cycles compared.
    pub cycles_run: u64,
    /// Wall-clock time the job took; a recorded value that is not a duration (negative, not
    /// finite, or more than [`MAX_JOB_SECONDS`]) makes the line unreadable.
    #[serde(deserialize_with = "job_seconds")]
    pub seconds: f64,
    pub cycles_per_second: f64,
    /// Runs the job again (quoted for the shell).
    pub command: String,
    /// Re-runs the failure exactly (quoted for the shell), for a failure.
    pub reproduce: Option<String>,
    /// The shrunk reproducer file and the waves of a run of it, if written.
    pub reproducer: Option<String>,
    pub vcd: Option<String>,
    /// The end of the job's standard error, for errors.
    pub stderr_tail: Option<String>,
    /// A failing random configuration shrunk: the fewest `--set` values that still fail.
    #[serde(default)]
    pub shrunk_sets: Option<Vec<String>>,
}

/// The longest job time a results line may record: a year, far beyond any job's time limit.
pub const MAX_JOB_SECONDS: f64 = 365.0 * 24.0 * 3600.0;

fn job_seconds<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    let s = f64::deserialize(d)?;
    if (0.0..=MAX_JOB_SECONDS).contains(&s) {
        Ok(s)
    } else {
        // In exponent form: a value like 1e308 is not echoed as 309 digits.
        Err(serde::de::Error::custom(format!(
            "`seconds` is {s:e}, not a job's time (0 to {MAX_JOB_SECONDS:e})"
        )))
    }
}

impl std::ops::Deref for JobResult {
    type Target = JobKey;
    fn deref(&self) -> &JobKey {
        &self.key
    }
}

impl JobResult {
    /// A result of `job` with nothing measured yet.
    pub fn of(job: &Job, verdict: JobVerdict, message: String, seconds: f64) -> JobResult {
        JobResult {
            key: job.key.clone(),
            verdict,
            message,
            cycles_run: 0,
            seconds,
            cycles_per_second: 0.0,
            command: job.command(),
            reproduce: None,
            reproducer: None,
            vcd: None,
            stderr_tail: None,
            shrunk_sets: None,
        }
    }

    /// A result that is not a co-simulation's (crash, timeout, unreadable output).
    pub fn error(job: &Job, message: String, seconds: f64, stderr_tail: String) -> JobResult {
        JobResult {
            stderr_tail: Some(stderr_tail),
            ..JobResult::of(job, JobVerdict::Error, message, seconds)
        }
    }

    /// The testcase name: what distinguishes it within its block and preset.
    pub fn name(&self) -> String {
        let mut n = format!("{} seed {}", self.stimulus, self.seed);
        if !self.sets.is_empty() {
            n = format!("{n} [{}]", self.sets.join(" "));
        }
        if let Some(m) = &self.mutant {
            n = format!("mutant {m}: {n}");
        }
        n
    }
}

/// The jobs a run was given: the whole list's ids and its shard's (a regression's jobs, or a
/// sweep's: `crate::sweep::Job`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Plan<J = Job> {
    pub list: String,
    pub shard: String,
    pub list_ids: Vec<String>,
    pub jobs: Vec<J>,
}

fn writing(path: &Path) -> impl FnOnce(std::io::Error) -> RegressError {
    let what = path.display().to_string();
    move |e| RegressError::Write(what, e)
}

/// A line of a results file: one finished job, named by its job's id. A regression's lines
/// are [`JobResult`]s; a sweep's are its rows (`crate::sweep::Row`).
pub trait Record: Serialize + serde::de::DeserializeOwned {
    fn id(&self) -> &str;
}

impl Record for JobResult {
    fn id(&self) -> &str {
        &self.key.id
    }
}

fn encode<R: Record>(r: &R) -> Result<String, RegressError> {
    serde_json::to_string(r)
        .map_err(|e| RegressError::Internal(format!("cannot encode a result: {e}")))
}

/// Refuse to write into a folder whose `results.jsonl` already holds results, unless the run
/// resumes it: results are never overwritten, nor two runs mixed.
pub fn refuse_earlier(dir: &Path, resume: bool) -> Result<(), RegressError> {
    let path = dir.join(RESULTS);
    if !resume && std::fs::metadata(&path).is_ok_and(|m| m.len() > 0) {
        return Err(RegressError::BadInput(format!(
            "{} already holds results: give --resume to finish that run, or another --out",
            path.display()
        )));
    }
    Ok(())
}

/// Cut off a last line that a kill left unfinished (it has no newline and is not a whole
/// result: its job's result was never wholly written, and that job runs again), so that the
/// next result starts a line of its own; a last line that lacks only its newline is a whole
/// result, kept, and given its newline. Returns the bytes cut (0 when the file ends with a
/// whole line or does not exist).
pub fn repair<R: Record>(path: &Path) -> Result<u64, RegressError> {
    use std::io::{Read, Seek, SeekFrom};
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(RegressError::Read(path.display().to_string(), e)),
    };
    if !meta.is_file() || meta.len() == 0 {
        return Ok(0);
    }
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(writing(path))?;
    // The last newline, read backwards a block at a time.
    let len = meta.len();
    let mut end = len;
    let mut keep = 0;
    let mut buf = vec![0u8; 64 * 1024];
    while end > 0 {
        let start = end.saturating_sub(buf.len() as u64);
        let n = usize::try_from(end - start).unwrap_or(buf.len());
        f.seek(SeekFrom::Start(start))
            .and_then(|_| f.read_exact(&mut buf[..n]))
            .map_err(|e| RegressError::Read(path.display().to_string(), e))?;
        if end == len && buf[n - 1] == b'\n' {
            return Ok(0);
        }
        if let Some(i) = buf[..n].iter().rposition(|&b| b == b'\n') {
            keep = start + i as u64 + 1;
            break;
        }
        end = start;
    }
    let mut last = Vec::new();
    f.seek(SeekFrom::Start(keep))
        .and_then(|_| f.read_to_end(&mut last))
        .map_err(|e| RegressError::Read(path.display().to_string(), e))?;
    if serde_json::from_slice::<R>(&last).is_ok() {
        use std::io::Write;
        f.write_all(b"\n")
            .and_then(|_| f.sync_data())
            .map_err(writing(path))?;
        return Ok(0);
    }
    f.set_len(keep)
        .and_then(|_| f.sync_data())
        .map_err(writing(path))?;
    Ok(len - keep)
}

/// Append one result as one line, flushed to disk before returning: a kill after this loses
/// nothing of it. (A cut line before it is repaired when the run starts: [`repair`].)
pub fn append<R: Record>(path: &Path, r: &R) -> Result<(), RegressError> {
    let mut line = encode(r)?;
    line.push('\n');
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(writing(path))?;
    // One write of the whole line (O_APPEND): lines of concurrent writers never interleave.
    f.write_all(line.as_bytes())
        .and_then(|_| f.sync_data())
        .map_err(writing(path))
}

/// What a `results.jsonl` holds.
#[derive(Debug, Clone)]
pub struct Recorded<R = JobResult> {
    /// Each job's first result, in the file's order.
    pub results: Vec<R>,
    /// Jobs recorded more than once (each id once, in the file's order). A job's id is the hash
    /// of its command line, so two lines of one id are the same job run twice (a copied line,
    /// two runs resuming one folder): the first counts, the later ones are reported, not
    /// counted.
    pub duplicated: Vec<String>,
    /// Bytes of a last line cut short by a kill (not a result: its job runs again).
    pub cut: usize,
}

/// The results recorded in `path` (none if it does not exist). A last line cut short by a kill
/// is left out (its job is not finished); any other unreadable line is an error naming its
/// line.
pub fn read<R: Record>(path: &Path) -> Result<Recorded<R>, RegressError> {
    let mut out = Recorded {
        results: Vec::new(),
        duplicated: Vec::new(),
        cut: 0,
    };
    let text = match spec::input::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(RegressError::Read(path.display().to_string(), e)),
    };
    let complete = text.ends_with('\n');
    let lines: Vec<&str> = text.lines().collect();
    let mut seen = HashSet::new();
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<R>(line) {
            Ok(r) if !seen.insert(r.id().to_string()) => {
                if !out.duplicated.iter().any(|d| d == r.id()) {
                    out.duplicated.push(r.id().to_string());
                }
            }
            Ok(r) => out.results.push(r),
            Err(_) if i + 1 == lines.len() && !complete => out.cut = line.len(),
            Err(e) => {
                return Err(RegressError::BadInput(format!(
                    "{}:{}: not a result line ({e}); move the file away or fix the line",
                    path.display(),
                    i + 1
                )))
            }
        }
    }
    Ok(out)
}

/// Write `path` whole (through a temporary file renamed over it; never over anything but a
/// regular file).
pub fn write_file(path: &Path, text: &str) -> Result<(), RegressError> {
    spec::output::write_file(path, text.as_bytes()).map_err(writing(path))
}

/// JUnit XML: one test suite per block and preset, one testcase per job; a failure carries the
/// reproduce command.
pub fn junit(name: &str, results: &[JobResult]) -> Result<String, RegressError> {
    use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
    let mut report = Report::new(format!("warpsmith regress {name}"));
    let mut suites: BTreeMap<(String, String), Vec<&JobResult>> = BTreeMap::new();
    for r in results {
        suites
            .entry((r.block.clone(), r.preset.clone()))
            .or_default()
            .push(r);
    }
    for ((block, preset), rs) in suites {
        let mut suite = TestSuite::new(format!("{block}.{preset}"));
        for r in rs {
            let status = match r.verdict {
                JobVerdict::Pass => TestCaseStatus::success(),
                JobVerdict::Fail | JobVerdict::Error => {
                    let kind = if r.verdict == JobVerdict::Fail {
                        NonSuccessKind::Failure
                    } else {
                        NonSuccessKind::Error
                    };
                    let mut s = TestCaseStatus::non_success(kind);
                    s.set_message(r.message.clone());
                    let mut text =
                        format!("reproduce: {}", r.reproduce.as_ref().unwrap_or(&r.command));
                    if let Some(p) = &r.reproducer {
                        text.push_str(&format!("\nreproducer: {p}"));
                    }
                    if let Some(t) = &r.stderr_tail {
                        text.push_str(&format!("\nstderr:\n{t}"));
                    }
                    s.set_description(text);
                    s
                }
            };
            let mut case = TestCase::new(r.name(), status);
            case.set_classname(format!("{block}.{preset}"));
            // Read values are checked against MAX_JOB_SECONDS; the clamp keeps a measured one safe.
            let seconds = r.seconds.clamp(0.0, MAX_JOB_SECONDS);
            case.set_time(std::time::Duration::try_from_secs_f64(seconds).unwrap_or_default());
            suite.add_test_case(case);
        }
        report.add_test_suite(suite);
    }
    report
        .to_string()
        .map_err(|e| RegressError::Internal(format!("cannot encode the JUnit XML: {e}")))
}

/// Counts per block and preset.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    pub jobs: u64,
    pub passed: u64,
    pub failed: u64,
    pub errors: u64,
    pub cycles: u64,
}

impl Tally {
    fn add(&mut self, r: &JobResult) {
        self.jobs += 1;
        match r.verdict {
            JobVerdict::Pass => self.passed += 1,
            JobVerdict::Fail => self.failed += 1,
            JobVerdict::Error => self.errors += 1,
        }
        self.cycles += r.cycles_run;
    }
}

/// Per block and preset, and in all.
pub fn tally(results: &[JobResult]) -> (BTreeMap<(String, String), Tally>, Tally) {
    let mut per = BTreeMap::new();
    let mut all = Tally::default();
    for r in results {
        per.entry((r.block.clone(), r.preset.clone()))
            .or_insert_with(Tally::default)
            .add(r);
        all.add(r);
    }
    (per, all)
}

/// The summary table (and the jobs that did not pass, with how to reproduce them).
pub fn summary(results: &[JobResult], missing: usize) -> String {
    use comfy_table::{presets::ASCII_MARKDOWN, CellAlignment, Table};
    let (per, all) = tally(results);
    let mut t = Table::new();
    t.load_style(ASCII_MARKDOWN);
    t.set_header([
        "block", "preset", "jobs", "passed", "failed", "errors", "cycles",
    ]);
    let row = |b: &str, p: &str, x: &Tally| {
        [
            b.to_string(),
            p.to_string(),
            x.jobs.to_string(),
            x.passed.to_string(),
            x.failed.to_string(),
            x.errors.to_string(),
            x.cycles.to_string(),
        ]
    };
    for ((b, p), x) in &per {
        t.add_row(row(b, p, x));
    }
    t.add_row(row("all", "", &all));
    for c in 2..7 {
        if let Some(col) = t.column_mut(c) {
            col.set_cell_alignment(CellAlignment::Right);
        }
    }
    let mut out = format!("{t}\n");
    if missing > 0 {
        out.push_str(&format!("{missing} job(s) of the list have no result\n"));
    }
    for r in results.iter().filter(|r| r.verdict != JobVerdict::Pass) {
        out.push_str(&format!(
            "{} {} {} {}: {}\n  reproduce: {}\n",
            match r.verdict {
                JobVerdict::Fail => "FAIL ",
                _ => "ERROR",
            },
            r.block,
            r.preset,
            r.name(),
            r.message,
            r.reproduce.as_ref().unwrap_or(&r.command)
        ));
    }
    out
}

/// Write `junit.xml` and `summary.txt` of `results` into `dir`; returns the summary.
pub fn write_reports(
    dir: &Path,
    name: &str,
    results: &[JobResult],
    missing: usize,
) -> Result<String, RegressError> {
    write_file(&dir.join(JUNIT), &junit(name, results)?)?;
    let s = summary(results, missing);
    write_file(&dir.join(SUMMARY), &s)?;
    Ok(s)
}

/// What merging shard folders found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MergeReport {
    pub folders: usize,
    pub results: usize,
    /// Jobs of the list with no result in any folder.
    pub missing: Vec<String>,
    /// Jobs with a result in more than one folder (the first is kept).
    pub duplicated: Vec<String>,
    /// Results of jobs no plan lists.
    pub unplanned: Vec<String>,
    /// Merged results that did not pass.
    pub not_passed: usize,
}

/// A job of a plan: what its results are matched by.
pub trait Planned: serde::de::DeserializeOwned {
    fn id(&self) -> &str;
}

impl Planned for Job {
    fn id(&self) -> &str {
        &self.key.id
    }
}

/// What the shard folders of one run hold ([`gather`]).
pub struct Gathered<R> {
    /// The list (or experiment) as given, and every job's id, from the folders' plans.
    pub list: String,
    pub list_ids: Vec<String>,
    /// The jobs the folders' plans gave them.
    pub planned: HashSet<String>,
    /// Each job's first result, folder by folder in the order given.
    pub results: Vec<R>,
    /// Jobs recorded more than once, within a folder or across folders (the first is kept).
    pub duplicated: Vec<String>,
}

/// Read the plans and results of shard folders written by `warpsmith COMMAND` (whose input is
/// a NOUN: `list`, `experiment`), checked to be shards of one input. The merges of `regress`
/// and `sweep` are this and their own reports.
pub fn gather<J: Planned, R: Record>(
    dirs: &[PathBuf],
    command: &str,
    noun: &str,
) -> Result<Gathered<R>, RegressError> {
    let mut g = Gathered {
        list: String::new(),
        list_ids: Vec::new(),
        planned: HashSet::new(),
        results: Vec::new(),
        duplicated: Vec::new(),
    };
    let mut seen = HashSet::new();
    let twice = |id: &str, duplicated: &mut Vec<String>| {
        if !duplicated.iter().any(|d| d == id) {
            duplicated.push(id.to_string());
        }
    };
    for d in dirs {
        let plan_path = d.join(PLAN);
        let text = spec::input::read_to_string(&plan_path).map_err(|e| {
            RegressError::BadInput(format!(
                "{}: {e}; is {} a `warpsmith {command}` output folder?",
                plan_path.display(),
                d.display()
            ))
        })?;
        let plan: Plan<J> = serde_json::from_str(&text).map_err(|e| {
            RegressError::BadInput(format!(
                "{}: not a plan of `warpsmith {command}` ({e})",
                plan_path.display()
            ))
        })?;
        if g.list_ids.is_empty() {
            g.list_ids = plan.list_ids.clone();
            g.list = plan.list.clone();
        } else if plan.list_ids != g.list_ids {
            return Err(RegressError::BadInput(format!(
                "{} holds a shard of another {noun} than {} (`{}`)",
                d.display(),
                dirs[0].display(),
                g.list
            )));
        }
        g.planned
            .extend(plan.jobs.iter().map(|j| j.id().to_string()));
        let recorded = read::<R>(&d.join(RESULTS))?;
        for id in &recorded.duplicated {
            twice(id, &mut g.duplicated);
        }
        for r in recorded.results {
            if seen.insert(r.id().to_string()) {
                g.results.push(r);
            } else {
                twice(r.id(), &mut g.duplicated);
            }
        }
    }
    Ok(g)
}

/// Results as the lines of a results file.
pub fn lines<R: Record>(results: &[R]) -> Result<String, RegressError> {
    let mut text = String::new();
    for r in results {
        text.push_str(&encode(r)?);
        text.push('\n');
    }
    Ok(text)
}

/// Merge the results of shard folders (each with `results.jsonl` and `plan.json`) into `out`.
pub fn merge(dirs: &[PathBuf], out: &Path) -> Result<(MergeReport, String), RegressError> {
    // The output is checked before anything is read or written.
    let names = [RESULTS, JUNIT, SUMMARY];
    spec::output::check_claim(out, &names).map_err(writing(out))?;
    let g = gather::<Job, JobResult>(dirs, "regress", "list")?;
    let (name, list_ids, planned, merged) = (g.list, g.list_ids, g.planned, g.results);
    let mut rep = MergeReport {
        folders: dirs.len(),
        duplicated: g.duplicated,
        ..MergeReport::default()
    };
    let ids: HashSet<&String> = merged.iter().map(|r| &r.id).collect();
    rep.missing = list_ids
        .iter()
        .filter(|id| !ids.contains(id))
        .cloned()
        .collect();
    rep.unplanned = merged
        .iter()
        .filter(|r| !planned.contains(&r.id))
        .map(|r| r.id.clone())
        .collect();
    rep.results = merged.len();
    rep.not_passed = merged
        .iter()
        .filter(|r| r.verdict != JobVerdict::Pass)
        .count();
    spec::output::claim(out, &names).map_err(writing(out))?;
    let text = lines(&merged)?;
    write_file(&out.join(RESULTS), &text)?;
    let s = write_reports(out, &name, &merged, rep.missing.len())?;
    Ok((rep, s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A result of the job with id `id`.
    fn result(id: &str) -> JobResult {
        let job = Job {
            key: JobKey {
                id: id.to_string(),
                block: "ot".into(),
                preset: "tiny".into(),
                config: "tiny".into(),
                config_hash: "0".into(),
                sets: Vec::new(),
                stimulus: "random".into(),
                seed: 1,
                cycles: 100,
                mutant: None,
            },
            random: false,
            timeout: 1,
            args: Vec::new(),
        };
        JobResult::of(&job, JobVerdict::Pass, "passed".into(), 0.5)
    }

    fn ids(r: &Recorded) -> Vec<String> {
        r.results.iter().map(|r| r.id.clone()).collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// A kill may cut the file anywhere; the next run repairs it and appends: every result
        /// whose line was whole is kept, the new one is read back, and the file reads cleanly.
        #[test]
        fn a_cut_anywhere_then_an_append_loses_nothing(
            n in 1usize..6,
            cut in any::<prop::sample::Index>(),
        ) {
            let d = tempfile::tempdir().unwrap();
            let path = d.path().join(RESULTS);
            for i in 0..n {
                append(&path, &result(&format!("job{i}"))).unwrap();
            }
            let text = std::fs::read(&path).unwrap();
            let at = cut.index(text.len() + 1);
            std::fs::write(&path, &text[..at]).unwrap();
            let whole = ids(&read(&path).unwrap());
            let cut_bytes = repair::<JobResult>(&path).unwrap();
            // A line that lost only its newline is whole: kept, not cut.
            let only_newline = at < text.len() && text[at] == b'\n';
            prop_assert_eq!(cut_bytes > 0, at > 0 && text[at - 1] != b'\n' && !only_newline);
            append(&path, &result("new")).unwrap();
            let after = read(&path).unwrap();
            let mut want = whole.clone();
            want.push("new".into());
            prop_assert_eq!(ids(&after), want);
            prop_assert_eq!(after.cut, 0);
        }
    }

    #[test]
    fn a_last_line_missing_only_its_newline_is_kept() {
        // Cut exactly before the last newline: the result is whole; cutting it off (the wrong
        // variant of the repair) would run its job again and lose the recorded result.
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join(RESULTS);
        append(&path, &result("a")).unwrap();
        append(&path, &result("b")).unwrap();
        let text = std::fs::read(&path).unwrap();
        std::fs::write(&path, &text[..text.len() - 1]).unwrap();
        assert_eq!(repair::<JobResult>(&path).unwrap(), 0);
        assert_eq!(std::fs::read(&path).unwrap(), text);
        append(&path, &result("new")).unwrap();
        assert_eq!(ids(&read(&path).unwrap()), ["a", "b", "new"]);
    }

    #[test]
    fn without_the_repair_the_next_result_is_lost() {
        // The wrong variant the repair replaces: appending after a cut line glues the new
        // result onto the fragment; read then drops it (or fails on it).
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join(RESULTS);
        append(&path, &result("a")).unwrap();
        append(&path, &result("b")).unwrap();
        let text = std::fs::read(&path).unwrap();
        std::fs::write(&path, &text[..text.len() - 10]).unwrap();
        append(&path, &result("new")).unwrap();
        let got = read(&path).map(|r| ids(&r));
        assert!(
            got.as_ref()
                .map_or(true, |ids| !ids.contains(&"new".to_string())),
            "{got:?}"
        );
    }

    #[test]
    fn a_job_recorded_twice_counts_once_and_is_reported() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join(RESULTS);
        for id in ["a", "b", "a", "a", "c", "b"] {
            append(&path, &result(id)).unwrap();
        }
        let r: Recorded = read(&path).unwrap();
        assert_eq!(ids(&r), ["a", "b", "c"]);
        assert_eq!(r.duplicated, ["a", "b"]);
    }

    #[test]
    fn a_recorded_time_that_is_no_duration_is_refused_naming_its_line() {
        // 1e308 seconds once reached the JUnit writer and panicked in Duration::from_secs_f64.
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join(RESULTS);
        append(&path, &result("a")).unwrap();
        let good = std::fs::read_to_string(&path).unwrap();
        for bad in ["1e308", "-1.0", "31536001.0"] {
            let mut line = serde_json::to_value(result("b")).unwrap();
            line["seconds"] = serde_json::from_str(bad).unwrap();
            std::fs::write(&path, format!("{good}{line}\n")).unwrap();
            let e = read::<JobResult>(&path).unwrap_err().to_string();
            assert!(e.contains(":2:") && e.contains("`seconds`"), "{bad}: {e}");
        }
        let mut line = serde_json::to_value(result("b")).unwrap();
        line["seconds"] = serde_json::json!(MAX_JOB_SECONDS);
        std::fs::write(&path, format!("{good}{line}\n")).unwrap();
        assert_eq!(ids(&read(&path).unwrap()), ["a", "b"]);
    }
}
