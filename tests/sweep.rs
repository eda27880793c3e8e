//! `warpsmith sweep`: an experiment's `run` jobs into one table, whose rows are the runs' own
//! reports; the same table from shards merged, from a resumed sweep and from a real Slurm job
//! array; errors recorded as rows; bad experiments refused with their file and line.

mod common;
use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn rows(dir: &Path) -> Vec<Value> {
    read(&dir.join("table.jsonl"))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Sweep `experiment` into `out` with `extra` arguments; the output.
fn sweep(experiment: &str, out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["sweep", "--experiment", experiment, "--out", path(out)];
    args.extend(extra);
    warpsmith(&args)
}

/// An experiment of 4 x 3 small runs (the built-in example's kernels and schedulers) written in
/// `dir`, with a kernel given as a file relative to it.
fn experiment(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir.join("k")).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("golden/kernels/dispatch/rowmajor.toml"),
        dir.join("k/mine.toml"),
    )
    .unwrap();
    let p = dir.join("x.toml");
    std::fs::write(
        &p,
        "description = \"test\"\nstatistics = [\"cycles\", \"ipc\", \"l1\", \"dram.reads\"]\n\
         [[run]]\nkernels = [\"cp\", \"matmul3d\", \"k/mine.toml\"]\npresets = [\"tiny\"]\n\
         set = { \"mc.scheduler\" = [\"fcfs\", \"frfcfs\", \"warped\", \"divfirst\"] }\n",
    )
    .unwrap();
    p
}

#[test]
fn every_row_is_its_runs_report_and_the_table_is_the_same_however_it_is_run() {
    let d = scratch("sweep-local");
    let x = experiment(&d);
    let whole = d.join("whole");
    let o = sweep(path(&x), &whole, &["-j", "2"]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let table = rows(&whole);
    assert_eq!(table.len(), 12);
    for r in &table {
        assert_eq!(r["status"], "ok", "{r}");
        // The row's statistics are the run's report, run again by the row's own command.
        let cmd = shlex::split(r["command"].as_str().unwrap()).unwrap();
        assert_eq!(cmd[0], "warpsmith");
        let args: Vec<&str> = cmd[1..].iter().map(String::as_str).collect();
        let report = json_ok(&args);
        assert_eq!(report["config_hash"], r["config_hash"]);
        let s = &r["statistics"];
        assert_eq!(s["cycles"], report["cycles"]);
        assert_eq!(s["ipc"], report["ipc"]);
        assert_eq!(s["dram.reads"], report["dram"]["reads"]);
        assert_eq!(s["l1.misses"], report["l1"]["misses"]);
        // Only the experiment's statistics: nothing of l2, nor dram.writes.
        let keys = s.as_object().unwrap();
        assert!(keys
            .keys()
            .all(|k| k == "cycles" || k == "ipc" || k == "dram.reads" || k.starts_with("l1.")));
        assert!(keys.len() > 10, "{keys:?}");
    }
    // Each scheduler is its own configuration.
    let hashes: std::collections::HashSet<_> =
        table.iter().map(|r| r["config_hash"].clone()).collect();
    assert_eq!(hashes.len(), 4);
    let csv = read(&whole.join("table.csv"));
    assert_eq!(csv.lines().count(), 13);

    // Shards, each from another folder, merged: the same table.
    let cwd = d.join("elsewhere");
    std::fs::create_dir_all(&cwd).unwrap();
    for s in ["1/3", "2/3", "3/3"] {
        let out = d.join(format!("shard-{}", &s[..1]));
        let o = Command::new(env!("CARGO_BIN_EXE_warpsmith"))
            .args(["sweep", "--experiment", "../x.toml", "--shard", s])
            .args(["--out", path(&out)])
            .current_dir(&cwd)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let merged = d.join("merged");
    let dirs: Vec<String> = (1..=3)
        .map(|i| path(&d.join(format!("shard-{i}"))).to_string())
        .collect();
    let mut args = vec!["sweep", "merge", "--out", path(&merged)];
    args.extend(dirs.iter().map(String::as_str));
    let o = warpsmith(&args);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(read(&merged.join("table.csv")), csv);
    assert_eq!(
        read(&merged.join("table.jsonl")),
        read(&whole.join("table.jsonl"))
    );
    // A merge missing a shard says which jobs it lacks, and fails.
    let o = warpsmith(&[
        "sweep",
        "merge",
        "--out",
        path(&d.join("m2")),
        &dirs[0],
        &dirs[1],
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("4 jobs missing"), "{}", stdout(&o));

    // A sweep whose results lost their last five jobs (and whose last line a kill cut short),
    // resumed: only those run again, and the table is the same.
    let resumed = d.join("resumed");
    let o = sweep(path(&x), &resumed, &["-j", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<String> = read(&resumed.join("results.jsonl"))
        .lines()
        .map(str::to_string)
        .collect();
    let mut kept = lines[..7].join("\n");
    kept.push('\n');
    kept.push_str(&lines[7][..40]);
    std::fs::write(resumed.join("results.jsonl"), kept).unwrap();
    let o = sweep(path(&x), &resumed, &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--resume"), "{}", stderr(&o));
    let o = sweep(path(&x), &resumed, &["--resume", "-j", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("results.jsonl: its last line was cut short (40 bytes"),
        "{}",
        stderr(&o)
    );
    assert!(
        stdout(&o).contains("12 rows (5 run, 7 resumed"),
        "{}",
        stdout(&o)
    );
    assert_eq!(read(&resumed.join("table.csv")), csv);
}

#[test]
fn a_job_that_errs_is_a_row_saying_why_and_the_sweep_fails() {
    let d = scratch("sweep-errors");
    let x = d.join("x.toml");
    std::fs::write(
        &x,
        "[[run]]\nkernels = [\"cp\"]\npresets = [\"tiny\"]\nmax_cycles = 100\n\n\
         [[run]]\nkernels = [\"matmul3d\"]\npresets = [\"tiny\"]\n",
    )
    .unwrap();
    let out = d.join("out");
    let o = sweep(path(&x), &out, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let table = rows(&out);
    assert_eq!(table.len(), 2);
    assert_eq!(table[0]["status"], "error");
    let msg = table[0]["message"].as_str().unwrap();
    assert!(msg.starts_with("exit 2: ") && msg.contains("100"), "{msg}");
    assert_eq!(table[0]["statistics"], serde_json::json!({}));
    assert_eq!(table[1]["status"], "ok");
    // With no `statistics`, every figure of the report.
    assert!(table[1]["statistics"]["dram_channels.0.banks.0.activations"].is_number());
    assert!(table[1]["statistics"]["sms.0.l1.hits"].is_number());
}

#[test]
fn bad_experiments_are_refused_with_their_file_and_line() {
    let d = scratch("sweep-bad");
    let x = d.join("x.toml");
    let refused = |text: &str, says: &[&str]| {
        std::fs::write(&x, text).unwrap();
        let o = sweep(path(&x), &d.join("out"), &[]);
        check(o, 2, text, says);
        assert!(!d.join("out/results.jsonl").exists());
    };
    refused(
        "[[run]]\nkernels = [\"cp\"]\npresets = [\"tiny\"]\n\n[[run]]\nkernels = \
         [\"nope\"]\npresets = [\"tiny\"]\n",
        &["run 2", "line 5", "nope"],
    );
    refused(
        "statistics = [\"ipc\",\n  \"l2.hitz\"]\n[[run]]\nkernels = [\"cp\"]\npresets = \
         [\"tiny\"]\n",
        &["line 2", "`l2.hitz`", "warpsmith schema run"],
    );
    refused(
        "[[run]]\nkernels = [\"cp\"]\npresets = [\"tiny\"]\nset = { \"mc.scheduler\" = \
         [\"lifo\"] }\n",
        &["run 1", "mc.scheduler", "lifo"],
    );
    refused(
        "[[run]]\nworkloads = [\"vectoradd:n=-1\"]\npresets = [\"tiny\"]\n",
        &["run 1", "vectoradd"],
    );
    refused("[[run]]\nkernels = [\"cp\"]\n", &["presets"]);
    refused("description = 3\n", &["description"]);
    exits_2_saying(
        &["sweep", "--experiment", path(&d.join("none.toml"))],
        "no experiment",
    );
}

#[test]
fn a_sweep_on_a_real_slurm_makes_the_local_table() {
    let d = scratch("sweep-slurm");
    let x = experiment(&d);
    let local = d.join("local");
    let o = sweep(path(&x), &local, &["-j", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let slurm = Slurm::up();
    let conf = &slurm.conf;
    let on_slurm = d.join("slurm");
    let o = Command::new(env!("CARGO_BIN_EXE_warpsmith"))
        .args([
            "sweep",
            "--experiment",
            path(&x),
            "--slurm",
            "--shards",
            "4",
        ])
        .args(["--slurm-arg=--time=10:00", "--out", path(&on_slurm)])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("SLURM_CONF", conf)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("merged 12 rows (0 errors) from 4 folders"),
        "{}",
        stdout(&o)
    );
    let script = read(&on_slurm.join("slurm/sweep.sh"));
    assert!(script.contains("sweep --experiment"), "{script}");
    for i in 1..=4 {
        let log = read(&on_slurm.join(format!("slurm/shard-{i}.log")));
        assert!(log.contains(&format!("shard {i}/4  3 of 12 jobs")), "{log}");
    }
    assert_eq!(
        read(&on_slurm.join("table.csv")),
        read(&local.join("table.csv"))
    );
    assert_eq!(
        read(&on_slurm.join("table.jsonl")),
        read(&local.join("table.jsonl"))
    );
}
