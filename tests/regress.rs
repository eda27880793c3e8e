//! `warpsmith regress`: a list run in parallel with a progress bar, results read back by an
//! independent JUnit reader, shards merged, a killed run resumed, a forced bug found exactly
//! where it is and reproduced from the printed commands, bad input.

mod common;
use common::*;
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// A list file in `dir`: the OT on tiny (random stimulus, `seeds` seeds of `cycles` cycles, its
/// mutants), and the dispatcher on tiny (one seed).
fn small_list(dir: &Path, seeds: u64, cycles: u64, mutants: bool) -> PathBuf {
    let p = dir.join("small.toml");
    std::fs::write(
        &p,
        format!(
            "[[entry]]\nblocks = [\"ot\"]\npresets = [\"tiny\"]\nstimuli = [\"random\"]\n\
             seed_count = {seeds}\ncycles = {cycles}\nmutants = {mutants}\n\
             mutant_cycles = 20000\n\n\
             [[entry]]\nblocks = [\"dispatch\"]\npresets = [\"tiny\"]\nstimuli = [\"random\"]\n\
             cycles = {cycles}\n"
        ),
    )
    .unwrap();
    p
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The expanded jobs of a list (`--dry-run --format json`), of one shard.
fn dry_run(list: &str, shard: Option<&str>) -> Vec<Value> {
    let mut args = vec!["regress", "--list", list, "--dry-run", "--format", "json"];
    if let Some(s) = shard {
        args.extend(["--shard", s]);
    }
    json_ok(&args).as_array().unwrap().clone()
}

fn results(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn verdicts(dir: &Path) -> BTreeMap<String, String> {
    results(dir)
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap().into(),
                r["verdict"].as_str().unwrap().into(),
            )
        })
        .collect()
}

/// junit.xml as `junitparser` (not ours) reads it: testcases, failures, errors.
fn junit_counts(file: &Path) -> (u64, u64, u64) {
    let py = Path::new(env!("CARGO_MANIFEST_DIR")).join(".tools/py/bin/python");
    let script = "import sys, junitparser\n\
                  x = junitparser.JUnitXml.fromfile(sys.argv[1])\n\
                  cases = [c for s in x for c in s]\n\
                  bad = lambda k: sum(1 for c in cases for r in c.result if isinstance(r, k))\n\
                  print(len(cases), bad(junitparser.Failure), bad(junitparser.Error))";
    let o = Command::new(&py)
        .args(["-c", script, path(file)])
        .output()
        .expect("junitparser in .tools/py (run scripts/setup.sh)");
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Vec<u64> = stdout(&o)
        .split_whitespace()
        .map(|x| x.parse().unwrap())
        .collect();
    (v[0], v[1], v[2])
}

/// `regress --list LIST --out OUT --resume`.
fn resume(list: &Path, out: &Path) -> std::process::Output {
    warpsmith(&[
        "regress",
        "--list",
        path(list),
        "--out",
        path(out),
        "--resume",
    ])
}

/// `regress --list LIST -j 2 --out OUT` with the OT mutant `bug` forced into every
/// co-simulation without `--mutant` (the test hook standing for a build with that bug).
fn regress_with_bug(list: &Path, out: &Path, bug: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_warpsmith"))
        .args([
            "regress",
            "--list",
            path(list),
            "-j",
            "2",
            "--out",
            path(out),
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("WARPSMITH_FORCE_MUTANT", bug)
        .output()
        .unwrap()
}

#[test]
fn a_list_runs_in_parallel_with_progress_and_writes_results_junit_and_summary() {
    let d = scratch("regress-run");
    let list = small_list(&d, 2, 3000, true);
    let jobs = dry_run(path(&list), None);
    // 2 OT seeds + the OT's 8 mutants + 1 dispatch seed.
    assert_eq!(jobs.len(), 11, "{jobs:#?}");
    let out = d.join("out");
    // At a terminal: the bar of finished jobs.
    let (tty, code) = on_a_terminal(
        900,
        &[
            "regress",
            "--list",
            path(&list),
            "-j",
            "2",
            "--out",
            path(&out),
        ],
    );
    assert_eq!(code, Some(0), "{tty}");
    assert!(tty.contains("/11 jobs, "), "{tty}");
    assert!(
        tty.contains("| ot       | tiny   |   10 |     10 |      0 |      0 |"),
        "{tty}"
    );
    // One result per job, each with its verdict and how to run it again.
    let rs = results(&out);
    let ids: HashSet<&str> = rs.iter().map(|r| r["id"].as_str().unwrap()).collect();
    let want: HashSet<&str> = jobs.iter().map(|j| j["id"].as_str().unwrap()).collect();
    assert_eq!(ids, want);
    assert_eq!(rs.len(), jobs.len());
    for r in &rs {
        assert_eq!(r["verdict"], "pass", "{r:#}");
        assert!(r["cycles_run"].as_u64().unwrap() > 0, "{r:#}");
        assert!(r["command"]
            .as_str()
            .unwrap()
            .starts_with("warpsmith cosim --block "));
        if r["mutant"].is_string() {
            assert!(r["message"]
                .as_str()
                .unwrap()
                .starts_with("mutant caught: mismatch"));
        }
    }
    assert_eq!(junit_counts(&out.join("junit.xml")), (11, 0, 0));
    let summary = std::fs::read_to_string(out.join("summary.txt")).unwrap();
    assert!(
        summary.contains("| dispatch | tiny   |    1 |      1 |"),
        "{summary}"
    );
    // A second run into the same folder would mix two runs: refused, nothing lost.
    let o = warpsmith(&["regress", "--list", path(&list), "--out", path(&out)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--resume"), "{}", stderr(&o));
    assert_eq!(results(&out).len(), 11);
    // --resume with everything done runs nothing and reports the same.
    let o = resume(&list, &out);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("0 run, 11 resumed"), "{}", stdout(&o));
}

#[test]
fn shards_split_the_list_and_their_merge_equals_the_whole_run() {
    let d = scratch("regress-shards");
    let list = small_list(&d, 3, 2000, true);
    let all = dry_run(path(&list), None);
    let ids = |v: &[Value]| -> Vec<String> {
        v.iter()
            .map(|j| j["id"].as_str().unwrap().to_string())
            .collect()
    };
    for n in [1, 2, 3, 7] {
        let mut seen = Vec::new();
        for i in 1..=n {
            seen.extend(ids(&dry_run(path(&list), Some(&format!("{i}/{n}")))));
        }
        let distinct: HashSet<&String> = seen.iter().collect();
        assert_eq!(distinct.len(), seen.len(), "{n} shards share a job");
        let mut a = seen.clone();
        let mut b = ids(&all);
        a.sort();
        b.sort();
        assert_eq!(a, b, "{n} shards do not cover the list");
    }
    let whole = d.join("whole");
    let o = warpsmith(&[
        "regress",
        "--list",
        path(&list),
        "-j",
        "2",
        "--out",
        path(&whole),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut dirs = Vec::new();
    for i in 1..=3 {
        let dir = d.join(format!("shard{i}"));
        let o = warpsmith(&[
            "regress",
            "--list",
            path(&list),
            "--shard",
            &format!("{i}/3"),
            "-j",
            "2",
            "--out",
            path(&dir),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        dirs.push(dir);
    }
    let merged = d.join("merged");
    let mut args = vec!["regress", "merge", "--out", path(&merged)];
    args.extend(dirs.iter().map(|p| path(p)));
    let o = warpsmith(&args);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(verdicts(&merged), verdicts(&whole));
    assert_eq!(junit_counts(&merged.join("junit.xml")).0, all.len() as u64);
    // Two shards only: the third's jobs are reported missing, and the merge fails.
    let o = warpsmith(&[
        "regress",
        "merge",
        "--out",
        path(&d.join("partial")),
        path(&dirs[0]),
        path(&dirs[1]),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let missing = dry_run(path(&list), Some("3/3")).len();
    assert!(
        stdout(&o).contains(&format!("{missing} jobs missing")),
        "{}",
        stdout(&o)
    );
    // The same shard twice: its jobs are reported recorded twice.
    let o = warpsmith(&[
        "regress",
        "merge",
        "--out",
        path(&d.join("twice")),
        path(&dirs[0]),
        path(&dirs[1]),
        path(&dirs[2]),
        path(&dirs[0]),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("recorded twice"), "{}", stdout(&o));
}

#[test]
fn a_killed_run_resumes_without_losing_or_repeating_a_result() {
    let d = scratch("regress-kill");
    let list = small_list(&d, 6, 1_000_000, false);
    let jobs = dry_run(path(&list), None);
    let out = d.join("out");
    let results_file = out.join("results.jsonl");
    // In its own process group, so that the kill takes its workers too (a lost machine).
    let child = {
        use std::os::unix::process::CommandExt;
        Command::new(env!("CARGO_BIN_EXE_warpsmith"))
            .args([
                "regress",
                "--list",
                path(&list),
                "-j",
                "1",
                "--out",
                path(&out),
            ])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap()
    };
    let lines = || {
        std::fs::read_to_string(&results_file)
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    let start = Instant::now();
    while lines() < 2 {
        assert!(
            start.elapsed() < Duration::from_secs(600),
            "no result in 600 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let killed = Command::new("kill")
        .args(["-KILL", "--", &format!("-{}", child.id())])
        .status()
        .unwrap();
    assert!(killed.success());
    let mut child = child;
    child.wait().unwrap();
    // The results whose lines are whole (a line the kill cut short is not a result: it is
    // removed on resume and its job runs again).
    let text = std::fs::read_to_string(&results_file).unwrap();
    let before = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
    let done = before.lines().count();
    assert!(
        done >= 2 && done < jobs.len(),
        "killed midway: {done} of {}",
        jobs.len()
    );
    let o = resume(&list, &out);
    assert!(o.status.success(), "{}", stderr(&o));
    let after = std::fs::read_to_string(&results_file).unwrap();
    // Nothing finished was lost or rewritten; every job has exactly one result.
    assert!(after.starts_with(before));
    let rs = results(&out);
    let ids: Vec<&str> = rs.iter().map(|r| r["id"].as_str().unwrap()).collect();
    let distinct: HashSet<&str> = ids.iter().copied().collect();
    assert_eq!(ids.len(), jobs.len(), "{after}");
    assert_eq!(distinct.len(), jobs.len());
    assert!(
        stdout(&o).contains(&format!("{} run, {done} resumed", jobs.len() - done)),
        "{}",
        stdout(&o)
    );
}

#[test]
fn a_forced_bug_fails_exactly_its_jobs_and_each_printed_reproducer_reproduces_it() {
    let d = scratch("regress-forced");
    let list = small_list(&d, 2, 3000, false);
    let out = d.join("out");
    // The harness's mutant mechanism stands for a build with an OT bug: the OT jobs fail, the
    // dispatcher's pass.
    let o = regress_with_bug(&list, &out, "stride-sign-flipped");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let rs = results(&out);
    assert_eq!(rs.len(), 3);
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_warpsmith")).parent().unwrap();
    let shell_path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for r in &rs {
        let ot = r["block"] == "ot";
        assert_eq!(r["verdict"], if ot { "fail" } else { "pass" }, "{r:#}");
        if !ot {
            continue;
        }
        // As printed, in a shell (without the hook): it fails the same way.
        let cmd = r["reproduce"].as_str().unwrap();
        assert!(cmd.contains("--mutant stride-sign-flipped"), "{cmd}");
        let o = Command::new("sh")
            .args(["-c", &format!("{cmd} --format json")])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("PATH", &shell_path)
            .env_remove("WARPSMITH_FORCE_MUTANT")
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{cmd}: {}", stderr(&o));
        let rep: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(rep["verdict"], "fail");
        assert_eq!(
            rep["failure"]["cycle"].as_u64(),
            r["cycles_run"].as_u64(),
            "{cmd}"
        );
        // The shrunk reproducer was written and named.
        assert!(
            Path::new(r["reproducer"].as_str().unwrap()).exists(),
            "{r:#}"
        );
    }
    let (cases, failures, errors) = junit_counts(&out.join("junit.xml"));
    assert_eq!((cases, failures, errors), (3, 2, 0));
    let junit = std::fs::read_to_string(out.join("junit.xml")).unwrap();
    assert!(
        junit.contains("reproduce: warpsmith cosim --block ot"),
        "{junit}"
    );
}

#[test]
fn bad_regression_input_exits_2_and_says_why() {
    let d = scratch("regress-bad");
    let list = small_list(&d, 1, 1000, false);
    let cases: &[(&[&str], &str)] = &[
        (
            &["regress", "--list", "nosuchlist"],
            "no regression list `nosuchlist`",
        ),
        (&["regress", "--list", path(&list), "-j", "0"], "-j 0"),
        (
            &["regress", "--list", path(&list), "--shard", "4/3"],
            "--shard `4/3`",
        ),
        (
            &["regress", "--list", path(&list), "--timeout", "0"],
            "--timeout 0",
        ),
        (&["regress", "merge", path(&d)], "plan.json"),
    ];
    for (args, words) in cases {
        let o = warpsmith(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(words), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"));
    }
    let bad = d.join("bad.toml");
    std::fs::write(
        &bad,
        "[[entry]]\nblocks = [\"ot\"]\npresets = [\"tiny\"]\ncycles = 10\nset = \
        { \"ot.ways\" = [3] }\n",
    )
    .unwrap();
    let o = warpsmith(&["regress", "--list", path(&bad), "--dry-run"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("entry 1") && stderr(&o).contains("ot.ways"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_list_runs_as_a_job_array_on_a_real_slurm_and_merges_to_the_local_verdicts() {
    let d = scratch("regress-slurm");
    let list = small_list(&d, 3, 2000, true);
    // The script only: nothing submitted.
    let only = d.join("script-only");
    let o = warpsmith(&[
        "regress",
        "--list",
        path(&list),
        "--slurm",
        "--shards",
        "4",
        "--slurm-arg=--time=10:00",
        "--slurm-script-only",
        "--out",
        path(&only),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let script = std::fs::read_to_string(only.join("slurm/regress.sh")).unwrap();
    assert!(
        script.contains("#SBATCH --array=1-4\n#SBATCH --output="),
        "{script}"
    );
    assert!(script.contains("#SBATCH --time=10:00\n"), "{script}");
    assert!(
        stdout(&o).contains("sbatch --parsable --wait"),
        "{}",
        stdout(&o)
    );
    assert!(!only.join("results.jsonl").exists());
    // The real scheduler: brought up here, stopped whatever happens.
    let slurm = Slurm::up();
    let conf = &slurm.conf;
    let local = d.join("local");
    let o = warpsmith(&[
        "regress",
        "--list",
        path(&list),
        "-j",
        "2",
        "--out",
        path(&local),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let on_slurm = d.join("slurm");
    let o = Command::new(env!("CARGO_BIN_EXE_warpsmith"))
        .args(["regress", "--list", path(&list), "--slurm", "--shards", "4"])
        .args(["--out", path(&on_slurm)])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("SLURM_CONF", conf)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("merged 12 results from 4 folders"),
        "{}",
        stdout(&o)
    );
    assert_eq!(verdicts(&on_slurm), verdicts(&local));
    for i in 1..=4 {
        // Each array task ran its own shard.
        let log = std::fs::read_to_string(on_slurm.join(format!("slurm/shard-{i}.log"))).unwrap();
        assert!(log.contains(&format!("shard {i}/4")), "{log}");
    }
    assert_eq!(junit_counts(&on_slurm.join("junit.xml")), (12, 0, 0));
}

#[test]
fn random_configurations_are_legal_jobs_and_a_failing_one_is_shrunk() {
    let d = scratch("regress-random");
    let list = d.join("random.toml");
    std::fs::write(
        &list,
        "[[entry]]\nblocks = [\"ot\"]\npresets = [\"tiny\"]\nstimuli = [\"random\"]\n\
         cycles = 3000\nrandom_configs = 2\nrandom_seed = 9\n",
    )
    .unwrap();
    // (Seed 9 draws two configurations wide enough for the bug below to show within 3000
    // cycles; the draws change when keys are added to the section.)
    let jobs = dry_run(path(&list), None);
    assert_eq!(jobs.len(), 2);
    for j in &jobs {
        assert!(j["random"].as_bool().unwrap());
        assert!(!j["sets"].as_array().unwrap().is_empty(), "{j:#}");
    }
    // A bug independent of the configuration: each failing random configuration shrinks to no
    // key at all, and says so.
    let out = d.join("out");
    let o = regress_with_bug(&list, &out, "stride-sign-flipped");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    for r in results(&out) {
        assert_eq!(r["verdict"], "fail", "{r:#}");
        assert_eq!(r["shrunk_sets"], serde_json::json!([]), "{r:#}");
        assert!(r["message"]
            .as_str()
            .unwrap()
            .contains("no key of it is needed"));
    }
}

#[test]
fn the_smoke_list_passes() {
    // What CI runs: every block x preset x its flow stimuli, and every mutant caught.
    let d = scratch("regress-smoke");
    let jobs = dry_run("smoke", None);
    let out = d.join("out");
    let o = warpsmith(&["regress", "--list", "smoke", "-j", "2", "--out", path(&out)]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let rs = results(&out);
    assert_eq!(rs.len(), jobs.len());
    assert!(rs.iter().all(|r| r["verdict"] == "pass"));
    let mutant_jobs = rs.iter().filter(|r| r["mutant"].is_string()).count();
    let total: usize = sim::blocks::BLOCKS
        .iter()
        .map(|b| b.mutants().unwrap().len())
        .sum();
    // Every mutant on every preset (none is equivalent on a preset).
    assert_eq!(mutant_jobs, total * spec::PRESETS.len());
    assert_eq!(
        junit_counts(&out.join("junit.xml")),
        (jobs.len() as u64, 0, 0)
    );
}

#[test]
fn a_job_past_its_time_limit_is_an_error_result_and_the_run_goes_on() {
    let d = scratch("regress-timeout");
    let list = d.join("slow.toml");
    std::fs::write(
        &list,
        "[[entry]]\nblocks = [\"ot\"]\npresets = [\"tiny\"]\nstimuli = [\"random\"]\n\
         seeds = [1, 2]\ncycles = 500000000\n",
    )
    .unwrap();
    let out = d.join("out");
    let t = Instant::now();
    let o = warpsmith(&[
        "regress",
        "--list",
        path(&list),
        "-j",
        "2",
        "--timeout",
        "2",
        "--out",
        path(&out),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(t.elapsed() < Duration::from_secs(120));
    let rs = results(&out);
    assert_eq!(rs.len(), 2);
    for r in &rs {
        assert_eq!(r["verdict"], "error", "{r:#}");
        assert_eq!(r["message"], "timed out after 2 s (stopped)", "{r:#}");
        assert!(r["stderr_tail"].is_string());
    }
    assert_eq!(junit_counts(&out.join("junit.xml")), (2, 0, 2));
}
