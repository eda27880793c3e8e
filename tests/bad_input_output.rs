//! What warpsmith writes, its results files, its exit codes and messages, tried as a careless
//! and hostile user would (issue 36, classes 6, 7 and 8, and the regression-list part of class
//! 2). Each case runs the binary under a time limit and checks the exit code, the message's key
//! words, that nothing panicked, and that every earlier result and user file in its sandbox is
//! intact (the sandbox is hashed before and after).

mod common;
use common::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Where standard output goes.
enum Out {
    Piped,
    /// `/dev/full`: every write fails with "no space left".
    Full,
}

/// Run warpsmith in `dir` with a time limit; a run that outlives it is killed and the test fails.
fn run_in(dir: &Path, secs: u64, out: Out, args: &[&str]) -> Output {
    let stdout = match out {
        Out::Piped => Stdio::piped(),
        Out::Full => Stdio::from(
            std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .expect("open /dev/full"),
        ),
    };
    Limited::new(secs, args).dir(dir).stdout(stdout).run()
}

/// A run in `dir` that must end with `code` within `secs`, no panic, and every word of
/// `needles` in its standard error.
fn expect_in(dir: &Path, code: i32, secs: u64, args: &[&str], needles: &[&str]) -> Output {
    check(
        run_in(dir, secs, Out::Piped, args),
        code,
        &format!("{args:?}"),
        needles,
    )
}

/// Every entry under `dir` (not following links): a file's SHA-256, a link's target, or what
/// kind of file it is; folders as themselves. Two equal snapshots: nothing was added, removed,
/// changed or replaced.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, String>) {
        use std::os::unix::fs::FileTypeExt;
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let p = e.path();
            let rel = p.strip_prefix(root).unwrap().to_path_buf();
            let t = std::fs::symlink_metadata(&p).unwrap().file_type();
            let what = if t.is_dir() {
                walk(root, &p, out);
                "folder".to_string()
            } else if t.is_symlink() {
                format!("link to {}", std::fs::read_link(&p).unwrap().display())
            } else if t.is_file() {
                rtlgen::sha256_hex(&std::fs::read(&p).unwrap())
            } else if t.is_fifo() {
                "fifo".to_string()
            } else if t.is_char_device() {
                "char device".to_string()
            } else {
                "other".to_string()
            };
            out.insert(rel, what);
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// The entries of `before` are in `after` unchanged (new entries may have been added).
fn kept(before: &BTreeMap<PathBuf, String>, after: &BTreeMap<PathBuf, String>) -> bool {
    before.iter().all(|(k, v)| after.get(k) == Some(v))
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&p, text).unwrap();
    p
}

fn mkfifo(path: &Path) -> bool {
    Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success())
}

/// A character device node inside the sandbox (root only): what `/dev/full` is, without risking
/// the machine's own.
fn mknod_full(path: &Path) -> bool {
    Command::new("mknod")
        .arg(path)
        .args(["c", "1", "7"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn the_sandbox_check_sees_every_kind_of_loss() {
    // The check every case below relies on catches a deleted, a changed and a replaced file.
    let d = scratch("out-snapshot");
    write(&d, "a/b.txt", "b");
    write(&d, "c.txt", "c");
    let fifo = mkfifo(&d.join("f"));
    let before = snapshot(&d);
    assert!(kept(&before, &snapshot(&d)));
    std::fs::write(d.join("c.txt"), "changed").unwrap();
    assert!(!kept(&before, &snapshot(&d)));
    std::fs::write(d.join("c.txt"), "c").unwrap();
    std::fs::remove_file(d.join("a/b.txt")).unwrap();
    assert!(!kept(&before, &snapshot(&d)));
    write(&d, "a/b.txt", "b");
    if fifo {
        std::fs::remove_file(d.join("f")).unwrap();
        std::fs::write(d.join("f"), "").unwrap();
        assert!(!kept(&before, &snapshot(&d)), "a FIFO replaced by a file");
    }
}

// ---- Outputs that destroy data (class 6) -------------------------------------------------

#[test]
fn a_web_project_with_a_manifest_json_keeps_every_file() {
    let d = scratch("out-web");
    write(&d, "web/manifest.json", "{\"name\":\"app\"}");
    write(&d, "web/src/main.js", "console.log(1)");
    let before = snapshot(&d);
    // Its manifest.json is a name generate writes: refused, nothing written.
    expect_in(
        &d,
        2,
        30,
        &[
            "generate", "--block", "ot", "--preset", "tiny", "--out", "web",
        ],
        &["web/manifest.json", "warpsmith did not write it", "--out"],
    );
    assert_eq!(snapshot(&d), before);
    // Every block, each into its own folder: written beside the project, which stays whole.
    expect_in(
        &d,
        0,
        60,
        &["generate", "--preset", "tiny", "--out", "web"],
        &[],
    );
    let after = snapshot(&d);
    assert!(kept(&before, &after));
    assert!(d.join("web/ot/ws_ot_predictor.sv").is_file());
}

#[test]
fn files_a_user_adds_to_an_earlier_output_survive_the_next_generate() {
    let d = scratch("out-added");
    let gen = |prefix: &str| {
        expect_in(
            &d,
            0,
            60,
            &[
                "generate", "--block", "ot", "--preset", "tiny", "--prefix", prefix, "--out", "rtl",
            ],
            &[],
        )
    };
    gen("a_");
    write(&d, "rtl/notes.txt", "mine");
    write(&d, "rtl/tb/top_tb.sv", "module tb; endmodule");
    let users: BTreeMap<_, _> = snapshot(&d)
        .into_iter()
        .filter(|(p, _)| p.starts_with("rtl/notes.txt") || p.starts_with("rtl/tb"))
        .collect();
    gen("b_");
    let after = snapshot(&d);
    assert!(kept(&users, &after), "{after:#?}");
    // Its own earlier files are replaced: the old prefix's are gone, the new ones there.
    assert!(!d.join("rtl/a_ws_ot_predictor.sv").exists());
    assert!(d.join("rtl/b_ws_ot_predictor.sv").is_file());
}

#[test]
fn flow_checks_every_block_folder_before_replacing_any() {
    let d = scratch("out-flow");
    expect_in(
        &d,
        0,
        60,
        &["generate", "--preset", "tiny", "--out", "f"],
        &[],
    );
    // The dispatcher's folder becomes the user's (its marker gone): flow must not write there,
    // and so must not replace the other blocks' folders either.
    std::fs::remove_file(d.join("f/dispatch/.warpsmith-output")).unwrap();
    write(&d, "f/dispatch/manifest.json", "the user's");
    let before = snapshot(&d);
    expect_in(
        &d,
        2,
        60,
        &["flow", "--preset", "tiny", "--cycles", "10", "--out", "f"],
        &["f/dispatch/", "warpsmith did not write it"],
    );
    assert_eq!(snapshot(&d), before, "nothing written, nothing replaced");
}

#[test]
fn emit_config_writes_through_links_and_never_replaces_a_device_or_a_fifo() {
    let d = scratch("out-emit");
    std::os::unix::fs::symlink("real.toml", d.join("link.toml")).unwrap();
    expect_in(
        &d,
        0,
        30,
        &[
            "cost",
            "--block",
            "ot",
            "--preset",
            "tiny",
            "--emit-config",
            "link.toml",
        ],
        &[],
    );
    assert!(std::fs::symlink_metadata(d.join("link.toml"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::read_to_string(d.join("real.toml"))
        .unwrap()
        .contains("[ot]"));
    let mut targets = vec![("dir", "a folder")];
    if mkfifo(&d.join("fifo")) {
        std::os::unix::fs::symlink("fifo", d.join("to-fifo")).unwrap();
        targets.push(("fifo", "FIFO"));
        targets.push(("to-fifo", "FIFO"));
    }
    if mknod_full(&d.join("full")) {
        targets.push(("full", "character device"));
    }
    std::fs::create_dir(d.join("dir")).unwrap();
    let before = snapshot(&d);
    for (target, kind) in targets {
        expect_in(
            &d,
            2,
            20,
            &[
                "cost",
                "--block",
                "ot",
                "--preset",
                "tiny",
                "--emit-config",
                target,
            ],
            &["--emit-config", target, kind],
        );
        assert_eq!(snapshot(&d), before, "{target}");
    }
}

#[test]
fn every_target_is_checked_before_any_is_written() {
    let d = scratch("out-order");
    let fifo = mkfifo(&d.join("waves.vcd"));
    if !fifo {
        std::fs::create_dir(d.join("waves.vcd")).unwrap();
    }
    write(&d, "a-file", "x");
    let before = snapshot(&d);
    // --emit-config is fine, --waves is not: neither is written.
    expect_in(
        &d,
        2,
        20,
        &[
            "cosim",
            "--block",
            "ot",
            "--preset",
            "tiny",
            "--emit-config",
            "c.toml",
            "--waves",
            "waves.vcd",
        ],
        &["--waves", "waves.vcd"],
    );
    // The same with --out-dir under a file, and --command-trace onto a folder.
    expect_in(
        &d,
        2,
        20,
        &[
            "cosim",
            "--block",
            "ot",
            "--preset",
            "tiny",
            "--emit-config",
            "c.toml",
            "--out-dir",
            "a-file/sub",
        ],
        &["--out-dir", "a-file"],
    );
    std::fs::create_dir(d.join("trace-dir")).unwrap();
    let before_trace = snapshot(&d);
    expect_in(
        &d,
        2,
        20,
        &[
            "golden",
            "--block",
            "mc",
            "--preset",
            "tiny",
            "--stimulus",
            "hoa",
            "--emit-config",
            "c.toml",
            "--command-trace",
            "trace-dir",
        ],
        &["--command-trace", "trace-dir", "folder"],
    );
    assert!(!d.join("c.toml").exists());
    assert!(kept(&before, &snapshot(&d)));
    assert_eq!(snapshot(&d), before_trace);
}

#[test]
fn a_write_error_on_standard_output_is_a_message_and_exit_2_not_a_panic() {
    let d = scratch("out-stdout");
    for args in [
        &["describe"][..],
        &["presets"],
        &["cost", "--block", "ot"],
        &["run", "--preset", "tiny", "--kernel", "lonewarp"],
        &[
            "generate", "--block", "ot", "--preset", "tiny", "--out", "rtl",
        ],
        &[
            "golden",
            "--block",
            "ot",
            "--preset",
            "tiny",
            "--stimulus",
            "random",
            "--cycles",
            "100",
        ],
    ] {
        let o = run_in(&d, 60, Out::Full, args);
        check(
            o,
            2,
            &format!("{args:?}"),
            &["standard output cannot be written"],
        );
    }
}

#[test]
fn a_closed_pipe_still_ends_quietly() {
    let d = scratch("out-pipe");
    // Far more output than a pipe holds, so the reader's going away is seen.
    let mut child = Command::new(bin())
        .args([
            "golden",
            "--block",
            "ot",
            "--preset",
            "tiny",
            "--stimulus",
            "random",
        ])
        .args(["--cycles", "10000000"])
        .current_dir(&d)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The reader goes away after one byte, as `| head -c1` does.
    let mut out = child.stdout.take().unwrap();
    let mut one = [0u8; 1];
    std::io::Read::read_exact(&mut out, &mut one).unwrap();
    drop(out);
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(start.elapsed() < Duration::from_secs(60), "hung");
        std::thread::sleep(Duration::from_millis(20));
    }
    let o = child.wait_with_output().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        o.status.signal(),
        Some(13),
        "ended by SIGPIPE: {:?}",
        o.status
    );
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
}

#[test]
fn a_damaged_marker_is_not_trusted_to_remove_anything() {
    let d = scratch("out-marker");
    expect_in(
        &d,
        0,
        60,
        &[
            "generate", "--block", "ot", "--preset", "tiny", "--out", "rtl",
        ],
        &[],
    );
    write(&d, "victim.txt", "precious");
    let marker = d.join("rtl/.warpsmith-output");
    let text = std::fs::read_to_string(&marker).unwrap();
    std::fs::write(&marker, format!("{text}../victim.txt\n")).unwrap();
    let before = snapshot(&d);
    expect_in(
        &d,
        2,
        30,
        &[
            "generate", "--block", "ot", "--preset", "tiny", "--prefix", "x_", "--out", "rtl",
        ],
        &[".warpsmith-output", "not trusted"],
    );
    assert_eq!(snapshot(&d), before);
}

#[test]
fn regression_output_folders_are_checked_and_a_users_files_kept() {
    let d = scratch("out-regress");
    let list = write(
        &d,
        "l.toml",
        "[[entry]]\nblocks = [\"ot\"]\npresets = [\"tiny\"]\nstimuli = [\"random\"]\ncycles = \
            100\n",
    );
    let list = list.to_str().unwrap();
    write(&d, "home/summary.txt", "my summary");
    write(&d, "home/junit.xml", "<mine/>");
    write(&d, "a-file", "x");
    let before = snapshot(&d);
    expect_in(
        &d,
        2,
        30,
        &["regress", "--list", list, "--out", "home"],
        &["home/", "warpsmith did not write it"],
    );
    expect_in(
        &d,
        2,
        30,
        &["regress", "--list", list, "--out", "a-file"],
        &["--out", "a-file"],
    );
    // merge into the user's folder: refused before anything is read or written.
    std::fs::create_dir(d.join("shard")).unwrap();
    expect_in(
        &d,
        2,
        30,
        &["regress", "merge", "shard", "--out", "home"],
        &["home/", "warpsmith did not write it"],
    );
    assert!(kept(&before, &snapshot(&d)));
}

// ---- Results files (class 7) -------------------------------------------------------------

/// A list of `seeds` OT jobs on tiny, each a few hundred cycles.
fn ot_list(dir: &Path, seeds: u64) -> String {
    write(
        dir,
        "ot.toml",
        &format!(
            "[[entry]]\nblocks = [\"ot\"]\npresets = [\"tiny\"]\nstimuli = \
                [\"random\"]\nseed_count = {seeds}\ncycles = 300\n"
        ),
    )
    .to_str()
    .unwrap()
    .to_string()
}

fn result_ids(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("every line is a result");
            v["id"].as_str().unwrap().to_string()
        })
        .collect()
}

#[test]
fn a_cut_last_line_is_repaired_before_the_next_result_is_appended() {
    let d = scratch("out-cut");
    let list = ot_list(&d, 2);
    expect_in(
        &d,
        0,
        600,
        &["regress", "--list", &list, "--out", "rg", "-j", "1"],
        &[],
    );
    let results = d.join("rg/results.jsonl");
    let ids = result_ids(&results);
    assert_eq!(ids.len(), 2);
    // A kill while the second line was written: half of it is on disk.
    let text = std::fs::read_to_string(&results).unwrap();
    let second = text.find('\n').unwrap() + 1;
    std::fs::write(&results, &text[..second + 30]).unwrap();
    let o = expect_in(
        &d,
        0,
        600,
        &[
            "regress", "--list", &list, "--out", "rg", "-j", "1", "--resume",
        ],
        &["cut short", "results.jsonl"],
    );
    assert!(stdout(&o).contains("1 run, 1 resumed"), "{}", stdout(&o));
    // Both results, each a whole line; a further resume has nothing to do and no error.
    assert_eq!(result_ids(&results), ids);
    let o = expect_in(
        &d,
        0,
        600,
        &["regress", "--list", &list, "--out", "rg", "--resume"],
        &[],
    );
    assert!(stdout(&o).contains("0 run, 2 resumed"), "{}", stdout(&o));
}

#[test]
fn duplicated_result_lines_count_once_and_never_underflow() {
    let d = scratch("out-dup");
    let list = ot_list(&d, 2);
    expect_in(
        &d,
        0,
        600,
        &["regress", "--list", &list, "--out", "rg", "-j", "1"],
        &[],
    );
    let results = d.join("rg/results.jsonl");
    let text = std::fs::read_to_string(&results).unwrap();
    let first = text.lines().next().unwrap();
    std::fs::write(&results, format!("{text}{first}\n{first}\n{first}\n")).unwrap();
    let before = snapshot(&d.join("rg"));
    let o = expect_in(
        &d,
        0,
        600,
        &["regress", "--list", &list, "--out", "rg", "--resume"],
        &["recorded more than once", "the first result counts"],
    );
    let out = stdout(&o);
    assert!(!out.contains("have no result"), "{out}");
    assert!(out.contains("0 run, 2 resumed"), "{out}");
    // The recorded results are as they were.
    assert_eq!(
        snapshot(&d.join("rg")).get(Path::new("results.jsonl")),
        before.get(Path::new("results.jsonl"))
    );
}

// ---- Regression lists (class 2) ----------------------------------------------------------

#[test]
fn a_list_that_claims_a_hundred_million_jobs_is_refused_at_once() {
    let d = scratch("out-list");
    let list = write(
        &d,
        "big.toml",
        "# a list\n[[entry]]\nblocks = [\"ot\"]\npresets = [\"tiny\"]\nseed_count = \
            100000000\ncycles = 100\n",
    );
    let before = snapshot(&d);
    let list = list.to_str().unwrap();
    for args in [
        &["regress", "--list", list, "--dry-run"][..],
        &["regress", "--list", list, "--out", "rg"],
    ] {
        // Within a few seconds: nothing is sized by the claim.
        expect_in(
            &d,
            2,
            10,
            args,
            &["big.toml line 5", "`seed_count` = 100000000", "100000"],
        );
    }
    assert_eq!(snapshot(&d), before);
}

// ---- Verdicts and exit codes (class 8) ---------------------------------------------------

#[test]
fn an_ot_stimulus_of_launches_alone_checks_nothing() {
    let d = scratch("out-verdict");
    write(
        &d,
        "launch.jsonl",
        "{\"op\":\"launch\",\"grid\":[2],\"block\":[64]}\n",
    );
    for cmd in ["golden", "cosim"] {
        expect_in(
            &d,
            2,
            120,
            &[
                cmd,
                "--block",
                "ot",
                "--preset",
                "tiny",
                "--stimulus",
                "launch.jsonl",
            ],
            &[
                "launch.jsonl",
                "no prediction query or observation",
                "check nothing",
            ],
        );
    }
    // Observations alone are checked: the table's update outputs are compared every cycle, and
    // a mutant of the update logic is caught on three of them (a reproducer the shrinker made).
    write(
        &d,
        "observe.jsonl",
        "{\"op\":\"observe\",\"pc\":24600,\"lec\":15,\"tb\":[0,0,0],\"warp\":0,\"addr\":15867197}\n\
         {\"op\":\"observe\",\"pc\":24600,\"lec\":15,\"tb\":[5,0,0],\"warp\":0,\"addr\":15883197}\n\
         {\"op\":\"observe\",\"pc\":24600,\"lec\":15,\"tb\":[10,0,0],\"warp\":0,\"addr\":15899197}\
             \n",
    );
    let observe = [
        "cosim",
        "--block",
        "ot",
        "--preset",
        "tiny",
        "--stimulus",
        "observe.jsonl",
    ];
    expect_in(&d, 0, 120, &observe, &[]);
    let mutant = [
        &observe[..],
        &["--mutant", "stride-sign-flipped", "--no-shrink"],
    ]
    .concat();
    expect_in(&d, 1, 120, &mutant, &[]);
    // A random stream cut before its first query: the same rule, at the end of the run.
    expect_in(
        &d,
        2,
        120,
        &[
            "golden",
            "--block",
            "ot",
            "--preset",
            "tiny",
            "--stimulus",
            "random",
            "--cycles",
            "1",
        ],
        &["no prediction query or observation in 1 cycles"],
    );
    let o = expect_in(
        &d,
        2,
        300,
        &[
            "cosim", "--block", "ot", "--preset", "tiny", "--cycles", "1",
        ],
        &["checked nothing", "no prediction query or observation"],
    );
    assert!(stdout(&o).contains("NOTHING CHECKED"), "{}", stdout(&o));
    expect_in(
        &d,
        2,
        60,
        &[
            "golden",
            "--block",
            "mt-hwp",
            "--preset",
            "tiny",
            "--stimulus",
            "random",
            "--cycles",
            "1",
        ],
        &["no finished lookup in 1 cycles"],
    );
}

#[test]
fn unreadable_lists_results_and_output_paths_exit_2() {
    let d = scratch("out-exit");
    std::fs::create_dir(d.join("a-folder.toml")).unwrap();
    let list = ot_list(&d, 1);
    expect_in(
        &d,
        2,
        20,
        &["regress", "--list", "a-folder.toml", "--dry-run"],
        &["a-folder.toml", "folder"],
    );
    if mkfifo(&d.join("fifo.toml")) {
        expect_in(
            &d,
            2,
            20,
            &["regress", "--list", "fifo.toml", "--dry-run"],
            &["fifo.toml", "FIFO"],
        );
    }
    // A results file that is a folder, in an output folder of warpsmith's.
    std::fs::create_dir_all(d.join("rg/results.jsonl")).unwrap();
    write(
        &d,
        "rg/.warpsmith-output",
        "# warpsmith output\nresults.jsonl\n",
    );
    expect_in(
        &d,
        2,
        20,
        &["regress", "--list", &list, "--out", "rg", "--resume"],
        &["results.jsonl", "folder"],
    );
    // merge of a folder whose results cannot be read.
    write(
        &d,
        "shard/plan.json",
        "{\"list\":\"x\",\"shard\":\"1/1\",\"list_ids\":[],\"jobs\":[]}",
    );
    std::fs::create_dir_all(d.join("shard/results.jsonl")).unwrap();
    expect_in(
        &d,
        2,
        20,
        &["regress", "merge", "shard", "--out", "merged"],
        &["results.jsonl", "folder"],
    );
}

#[test]
fn a_gpgpusim_value_that_does_not_fit_names_its_option_file_and_line() {
    let d = scratch("out-gpgpusim");
    let mut text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("spec/tests-data/gpgpusim-configs/RTX2060/gpgpusim.config"),
    )
    .unwrap();
    text.push_str("\n-gpgpu_clock_domains 1365.0:1365.0:1365.0:1e308\n");
    let line = text.lines().count().to_string();
    write(&d, "gpgpusim.config", &text);
    let o = expect_in(
        &d,
        2,
        20,
        &["describe", "--gpgpusim-config", "gpgpusim.config"],
        &[
            "-gpgpu_clock_domains",
            &format!("gpgpusim.config line {line}"),
            "1e308",
            "dram.clock_mhz",
        ],
    );
    assert!(
        !stderr(&o).contains("9223372036854775807"),
        "{}",
        stderr(&o)
    );
}
