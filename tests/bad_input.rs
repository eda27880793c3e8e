//! Bad input, tried as an adversarial new user would: one case (at least) of every class of
//! defect issue 12 lists. Each case checks the exit code, that nothing panicked or hung (every
//! command runs under a time limit), that earlier results are intact, and the message's key
//! words.

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;
use std::process::Output;

/// Run warpsmith with a time limit; a run that outlives it is killed and the test fails.
fn run_within(secs: u64, args: &[&str]) -> Output {
    Limited::new(secs, args).run()
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

// ---- Configurations the models cannot run ------------------------------------------------

#[test]
fn configurations_the_dram_model_cannot_run_are_refused_by_validation() {
    // A timing of 0 that `describe` used to call legal.
    expect(
        2,
        30,
        &[
            "golden",
            "--block",
            "mc",
            "--stimulus",
            "hoa",
            "--set",
            "dram.t_cwl=0",
        ],
        &["dram.t_cwl", "1..=1000"],
    );
    // A same-bank-group ACT distance above the same-bank one.
    expect(
        2,
        30,
        &[
            "golden",
            "--block",
            "mc",
            "--preset",
            "tiny",
            "--stimulus",
            "hoa",
            "--set",
            "dram.t_ras=5",
            "--set",
            "dram.t_rp=5",
            "--set",
            "dram.t_rc=10",
            "--set",
            "dram.t_rrds=20",
            "--set",
            "dram.t_rrdl=20",
        ],
        &["dram.t_rrdl", "dram.t_rc"],
    );
    // No room between refreshes: no request could ever complete.
    expect(
        2,
        30,
        &[
            "golden",
            "--block",
            "mc",
            "--preset",
            "tiny",
            "--stimulus",
            "hoa",
            "--set",
            "dram.t_rfc=100",
            "--set",
            "dram.t_refi=103",
        ],
        &["dram.t_refi", "no room between refreshes"],
    );
    // `describe` prints exactly what validation enforces.
    let d: Value =
        serde_json::from_slice(&run_within(30, &["describe", "--format", "json"]).stdout).unwrap();
    let cwl = d["keys"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["key"] == "dram.t_cwl")
        .unwrap()
        .clone();
    assert_eq!(cwl["legal"], "1..=1000");
}

#[test]
fn a_request_at_a_huge_cycle_skips_the_idle_time() {
    let d = scratch("bad-huge-cycle");
    let f = write(
        &d,
        "far.jsonl",
        "{\"cycle\":10,\"op\":\"req\",\"sm\":0,\"warp\":0,\"pc\":0,\"addr\":4096,\"write\":false}\n\
         {\"cycle\":1000000000000000,\"op\":\"req\",\"sm\":1,\"warp\":0,\"pc\":0,\"addr\":8192,\"w\
             rite\":false}\n",
    );
    let o = expect(
        0,
        30,
        &[
            "golden",
            "--block",
            "mc",
            "--stimulus",
            &f,
            "--format",
            "json",
        ],
        &[],
    );
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["requests"], 2);
    assert!(r["cycles"].as_u64().unwrap() > 1_000_000_000_000_000);
    assert!(r["refreshes"].as_u64().unwrap() > 1_000_000_000, "{r:#}");
}

// ---- Outputs written whole ---------------------------------------------------------------

#[test]
fn a_failing_generate_or_flow_leaves_the_earlier_output_intact() {
    let d = scratch("bad-outputs");
    let out = d.join("rtl");
    let out_s = out.to_str().unwrap();
    expect(
        0,
        60,
        &["generate", "--preset", "tiny", "--out", out_s],
        &[],
    );
    let manifest = std::fs::read_to_string(out.join("ot/manifest.json")).unwrap();
    // A bad configuration: nothing written, the earlier output is as it was.
    expect(
        2,
        30,
        &[
            "generate",
            "--preset",
            "tiny",
            "--set",
            "ot.entries=3",
            "--out",
            out_s,
        ],
        &["ot.entries"],
    );
    assert_eq!(
        std::fs::read_to_string(out.join("ot/manifest.json")).unwrap(),
        manifest
    );
    // One block into a folder that held all of them: only that block's files (and the marker
    // naming them) remain.
    expect(
        0,
        60,
        &[
            "generate", "--block", "dispatch", "--preset", "tiny", "--out", out_s,
        ],
        &[],
    );
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            ".warpsmith-output",
            "dispatch.core",
            "dispatch.f",
            "manifest.json",
            "ws_assert.svh",
            "ws_dispatch.sv",
            "ws_dispatch_pkg.sv",
            "ws_prim_first_one.sv",
            "ws_prim_rr_first.sv"
        ]
    );
    // A folder of the user's is written into, and what it held stays; a name its files hold
    // is refused (tests/bad_input_output.rs has the cases).
    let mine = d.join("mine");
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::write(mine.join("notes.txt"), "mine").unwrap();
    std::fs::write(mine.join("manifest.json"), "mine").unwrap();
    expect(
        2,
        30,
        &[
            "generate",
            "--block",
            "ot",
            "--preset",
            "tiny",
            "--out",
            mine.to_str().unwrap(),
        ],
        &["manifest.json", "warpsmith did not write it"],
    );
    for f in ["notes.txt", "manifest.json"] {
        assert_eq!(std::fs::read_to_string(mine.join(f)).unwrap(), "mine");
    }
    // flow with a bad configuration writes nothing either.
    let flow = d.join("flow");
    std::fs::create_dir_all(flow.join("ot")).unwrap();
    std::fs::write(flow.join("ot/manifest.json"), "earlier").unwrap();
    expect(
        2,
        30,
        &[
            "flow",
            "--preset",
            "tiny",
            "--set",
            "dram.t_cwl=0",
            "--out",
            flow.to_str().unwrap(),
        ],
        &["dram.t_cwl"],
    );
    assert_eq!(
        std::fs::read_to_string(flow.join("ot/manifest.json")).unwrap(),
        "earlier"
    );
}

#[test]
fn reproducers_of_different_runs_do_not_overwrite_each_other() {
    let d = scratch("bad-repro-names");
    let mut paths = Vec::new();
    for (stim, mutant) in [
        ("random", "overlap-not-clipped"),
        ("kernel:colmajor", "overlap-not-clipped"),
        ("random", "done-ignored"),
    ] {
        let o = expect(
            1,
            600,
            &[
                "cosim",
                "--block",
                "dispatch",
                "--preset",
                "tiny",
                "--stimulus",
                stim,
                "--cycles",
                "5000",
                "--mutant",
                mutant,
                "--out-dir",
                d.to_str().unwrap(),
                "--format",
                "json",
            ],
            &[],
        );
        let r: Value = serde_json::from_slice(&o.stdout).unwrap();
        let f = &r["failure"];
        // 1-based cycles, the same rule as every block.
        assert!(f["cycle"].as_u64().unwrap() >= 1);
        paths.push(f["reproducer"]["path"].as_str().unwrap().to_string());
    }
    paths.sort();
    paths.dedup();
    assert_eq!(paths.len(), 3, "{paths:?}");
    // Named by the configuration's hash.
    let hash = spec("tiny", &[]).hash.to_string();
    for p in &paths {
        assert!(Path::new(p).is_file(), "{p}");
        assert!(p.contains(&format!("dispatch-{hash}-")), "{p}");
    }
    // A reproduce command quotes what the shell would split: the presets' address maps hold `;`.
    let o = expect(
        1,
        600,
        &[
            "cosim",
            "--block",
            "dispatch",
            "--preset",
            "tiny",
            "--set",
            "dram.address_map=dramid@7;00000000.00000000.00000000.00000000.00000000.0000RRRR.RRRRB\
                BCC.CCCSSSSS",
            "--cycles",
            "5000",
            "--mutant",
            "done-ignored",
            "--no-shrink",
            "--format",
            "json",
        ],
        &[],
    );
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let cmd = r["failure"]["reproduce"].as_str().unwrap();
    assert!(cmd.contains("'dram.address_map=dramid@7;"), "{cmd}");
    let words = shlex::split(cmd).unwrap();
    assert!(
        words
            .iter()
            .any(|w| w.starts_with("dram.address_map=dramid@7;0000")),
        "{words:?}"
    );
}

#[test]
fn unwritable_output_paths_are_refused_before_any_work() {
    let d = scratch("bad-paths");
    let file = write(&d, "a-file", "x");
    // --out-dir is a file: refused at once (nothing built, nothing lost).
    expect(
        2,
        20,
        &[
            "cosim",
            "--block",
            "ot",
            "--preset",
            "tiny",
            "--out-dir",
            &format!("{file}/sub"),
        ],
        &["--out-dir", "cannot be written"],
    );
    expect(
        2,
        20,
        &[
            "cosim",
            "--block",
            "ot",
            "--preset",
            "tiny",
            "--waves",
            "/nonexistent-dir/run.vcd",
        ],
        &["--waves", "cannot be written"],
    );
    expect(
        2,
        20,
        &[
            "golden",
            "--block",
            "mc",
            "--stimulus",
            "hoa",
            "--command-trace",
            "/nonexistent-dir/cmds.csv",
        ],
        &["--command-trace", "cannot be written"],
    );
    expect(
        2,
        20,
        &["cost", "--emit-config", "/nonexistent-dir/c.toml"],
        &["--emit-config", "cannot be written"],
    );
}

// ---- Illegal stimulus, options that do not apply -----------------------------------------

#[test]
fn illegal_stimulus_exits_2_naming_the_input() {
    let d = scratch("bad-stimulus");
    // A dispatch input that finishes a block in an empty slot: bad input with its line, not
    // an RTL failure.
    let f = write(&d, "idle-done.jsonl", "{}\n# a comment\n{\"done\":[0,1]}\n");
    expect(
        2,
        120,
        &[
            "cosim",
            "--block",
            "dispatch",
            "--preset",
            "tiny",
            "--stimulus",
            &f,
        ],
        &["idle-done.jsonl:3"],
    );
    // An OT request outside the launched grid.
    let f = write(
        &d,
        "out-of-grid.jsonl",
        "{\"op\":\"launch\",\"grid\":[2],\"block\":[32]}\n{\"op\":\"observe\",\"pc\":8,\"lec\":0,\
            \"tb\":[5],\"warp\":0,\"addr\":64}\n",
    );
    expect(
        2,
        60,
        &[
            "cosim",
            "--block",
            "ot",
            "--preset",
            "tiny",
            "--stimulus",
            &f,
        ],
        &["out-of-grid.jsonl:2"],
    );
    // A name that is neither a generator nor a file.
    expect(
        2,
        20,
        &[
            "cosim",
            "--block",
            "ot",
            "--preset",
            "tiny",
            "--stimulus",
            "hoa",
        ],
        &["not one the OT block takes", "kernel:NAME"],
    );
}

#[test]
fn options_and_settings_a_block_cannot_use_are_refused() {
    expect(
        2,
        20,
        &["cosim", "--block", "ot", "--preset", "tiny", "--group", "1"],
        &["--group does not apply to --block ot", "warped-mc"],
    );
    expect(
        2,
        20,
        &[
            "golden",
            "--block",
            "ot",
            "--stimulus",
            "random",
            "--kernel",
            "cp",
        ],
        &["--kernel does not apply"],
    );
    // Options of one golden run of a block are refused by its other runs.
    for (run, option, owner) in [
        ("mc", "--ports", "memory"),
        ("mc", "--outstanding", "memory"),
        ("memory", "--command-trace", "mc"),
    ] {
        expect(
            2,
            20,
            &[
                "golden",
                "--block",
                run,
                "--preset",
                "tiny",
                "--stimulus",
                "hoa",
                option,
                "4",
            ],
            &[
                &format!("{option} does not apply to --block {run}"),
                &format!("an option of --block {owner}"),
            ],
        );
    }
    // Warped-MC is co-simulated under its own scheduler; one the user chose is not overridden.
    expect(
        2,
        60,
        &[
            "cosim",
            "--block",
            "warped-mc",
            "--preset",
            "tiny",
            "--set",
            "mc.scheduler=fcfs",
        ],
        &["mc.scheduler", "warped"],
    );
    expect(
        2,
        60,
        &[
            "cosim",
            "--block",
            "warped-mc",
            "--preset",
            "tiny",
            "--group",
            "7",
        ],
        &["--group 7 does not exist"],
    );
}

// ---- Traces the GPU cannot read ----------------------------------------------------------

#[test]
fn bad_traces_exit_2_naming_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nothing");
    expect(
        2,
        20,
        &[
            "run",
            "--preset",
            "tiny",
            "--trace",
            missing.to_str().unwrap(),
        ],
        &["cannot read the kernel list", "kernelslist.g"],
    );
    write(dir.path(), "kernelslist.g", "kernel-1.traceg\n");
    let header = "-kernel name = k\n-block dim = (32,1,1)\n-grid dim = (1,1,1)\n\
                  -accelsim tracer version = 5\n#traces format\n";
    write(
        dir.path(),
        "kernel-1.traceg",
        &format!(
            "{header}#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n0000 ffffffff 0 \
            EXIT 0 0 0\n#END_TB\n"
        ),
    );
    let d = dir.path().to_str().unwrap();
    expect(
        2,
        20,
        &["run", "--preset", "tiny", "--trace", d],
        &["kernel-1.traceg:11:", "insts = 2"],
    );
    // A block larger than an SM holds.
    write(
        dir.path(),
        "kernel-1.traceg",
        &header.replace("(32,1,1)", "(1024,1,1)"),
    );
    expect(
        2,
        20,
        &[
            "run",
            "--preset",
            "tiny",
            "--set",
            "gpu.warps_per_sm=8",
            "--trace",
            d,
        ],
        &["does not fit an SM", "gpu.warps_per_sm"],
    );
    // A trace under a policy that needs a kernel's access ranges.
    write(
        dir.path(),
        "kernel-1.traceg",
        &format!(
            "{header}#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0000 ffffffff 0 \
            EXIT 0 0\n#END_TB\n"
        ),
    );
    expect(
        2,
        20,
        &[
            "run",
            "--preset",
            "tiny",
            "--set",
            "dispatch.policy=locality",
            "--trace",
            d,
        ],
        &["dispatch.policy = locality", "--set dispatch.policy=rr"],
    );
}

#[test]
fn bad_kernels_for_the_gpu_exit_2() {
    // Neither a trace nor a kernel, an unknown kernel, a kernel the dispatcher cannot hold.
    expect(
        2,
        20,
        &["run", "--preset", "tiny"],
        &["--trace", "--kernel"],
    );
    expect(
        2,
        20,
        &["run", "--preset", "tiny", "--kernel", "nosuchkernel"],
        &["unknown kernel `nosuchkernel`", "stencil2d"],
    );
    expect(
        2,
        20,
        &[
            "run",
            "--preset",
            "turing-rtx2060s",
            "--set",
            "dispatch.policy=locality",
            "--kernel",
            "irregular",
        ],
        &["raise dispatch.arrays"],
    );
}

// ---- A run that checked nothing does not pass --------------------------------------------

#[test]
fn a_run_that_checks_nothing_does_not_pass() {
    let d = scratch("bad-vacuous");
    expect(
        2,
        20,
        &[
            "cosim", "--block", "ot", "--preset", "tiny", "--cycles", "0",
        ],
        &["--cycles 0"],
    );
    let empty = write(&d, "empty.jsonl", "\n# nothing\n");
    expect(
        2,
        20,
        &[
            "cosim",
            "--block",
            "ot",
            "--preset",
            "tiny",
            "--stimulus",
            &empty,
        ],
        &["holds no transactions"],
    );
    expect(
        2,
        20,
        &[
            "cosim",
            "--block",
            "dispatch",
            "--preset",
            "tiny",
            "--stimulus",
            &empty,
        ],
        &["holds no cycle inputs"],
    );
    // Launches only: no prediction query or observation, refused before anything runs.
    let launch = write(
        &d,
        "launch.jsonl",
        "{\"op\":\"launch\",\"grid\":[2],\"block\":[32]}\n",
    );
    expect(
        2,
        120,
        &[
            "cosim",
            "--block",
            "ot",
            "--preset",
            "tiny",
            "--stimulus",
            &launch,
        ],
        &["holds no prediction query or observation", "check nothing"],
    );
    // A random stream stopped before its first query: the table's answers were never checked.
    let o = expect(
        2,
        120,
        &[
            "cosim", "--block", "ot", "--preset", "tiny", "--cycles", "1",
        ],
        &["checked nothing"],
    );
    assert!(!stdout(&o).contains("PASS"), "{}", stdout(&o));
    assert!(stdout(&o).contains("NOTHING CHECKED"), "{}", stdout(&o));
    // Two cycles of stress traffic: no request completes.
    expect(
        2,
        120,
        &[
            "cosim",
            "--block",
            "warped-mc",
            "--preset",
            "tiny",
            "--cycles",
            "2",
        ],
        &["no request completed"],
    );
}

// ---- Progress and honest exit codes --------------------------------------------------------

#[test]
fn long_work_shows_progress_on_a_terminal_and_nothing_elsewhere() {
    // Co-simulation: a spinner while the Verilator model is built (or fetched), then a bar
    // of compared cycles.
    let args = [
        "cosim", "--block", "ot", "--preset", "tiny", "--cycles", "60000",
    ];
    let (tty, code) = on_a_terminal(300, &args);
    assert_eq!(code, Some(0), "{tty}");
    assert!(tty.contains("building the Verilator model of ot"), "{tty}");
    assert!(tty.contains("/60,000 cycles, "), "{tty}");
    assert!(!tty.contains("panicked"), "{tty}");
    // A long golden run: a counter of simulated cycles.
    let golden = [
        "golden",
        "--block",
        "mc",
        "--preset",
        "tiny",
        "--stimulus",
        "hoa",
        "--cycles",
        "300000",
    ];
    let (tty, code) = on_a_terminal(300, &golden);
    assert_eq!(code, Some(0), "{}", &tty[..tty.len().min(2000)]);
    assert!(tty.contains(" cycles, "), "no progress counter");
    // Not on a pipe: results only, no drawing.
    let o = run_within(300, &args);
    assert_eq!(o.status.code(), Some(0));
    assert!(!stderr(&o).contains("cycles, "), "{}", stderr(&o));
    assert!(!stdout(&o).contains("building the Verilator model"));
}

#[test]
fn a_benchmark_that_misses_its_target_exits_1() {
    // One cycle: the lockstep run is all set-up, far below the target ratio (about 0.1
    // against 0.6 measured).
    let args = [
        "bench",
        "--block",
        "warped-mc",
        "--preset",
        "tiny",
        "--cycles",
        "1",
    ];
    let o = run_within(300, &args);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("NOT met"), "{}", stdout(&o));
    assert!(!stderr(&o).contains("panicked"));
    let mut json = args.to_vec();
    json.extend(["--format", "json"]);
    let o = run_within(300, &json);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["met"], false, "{r}");
}

// ---- Results are the same run to run -----------------------------------------------------

#[test]
fn results_hold_no_wall_clock_figures_outside_timing() {
    let args = [
        "cosim", "--block", "ot", "--preset", "tiny", "--cycles", "2000", "--format", "json",
    ];
    let strip = |o: Output| {
        let mut v: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert!(v["timing"]["seconds"].is_number(), "{v:#}");
        v.as_object_mut().unwrap().remove("timing");
        serde_json::to_string(&v).unwrap()
    };
    let a = strip(expect(0, 120, &args, &[]));
    let b = strip(expect(0, 120, &args, &[]));
    assert_eq!(a, b);
    let args = [
        "golden",
        "--block",
        "mc",
        "--preset",
        "tiny",
        "--stimulus",
        "hoa",
        "--format",
        "json",
    ];
    let a = strip(expect(0, 30, &args, &[]));
    let b = strip(expect(0, 30, &args, &[]));
    assert_eq!(a, b);
}

// ---- Messages ----------------------------------------------------------------------------

#[test]
fn messages_say_what_was_wrong_once_and_in_words() {
    let d = scratch("bad-messages");
    let o = expect(
        2,
        20,
        &["cost", "--set", "ot.replacement=fifo"],
        &["ot.replacement", "fifo", "one of lru, plru"],
    );
    assert!(!stderr(&o).contains("not a word"), "{}", stderr(&o));
    let o = expect(
        2,
        20,
        &["cost", "--set", "ot.entries=4294967296"],
        &["ot.entries", "out of range", "power of two in 1..=65536"],
    );
    assert!(!stderr(&o).contains("u32"), "{}", stderr(&o));
    // 2^64 in a JSON-lines file: not "a float", and one line number.
    let f = write(
        &d,
        "huge.jsonl",
        "{\"op\":\"observe\",\"pc\":8,\"lec\":0,\"tb\":[0],\"warp\":0,\"addr\":1844674407370955161\
            6}\n",
    );
    let o = expect(
        2,
        20,
        &[
            "golden",
            "--block",
            "ot",
            "--preset",
            "tiny",
            "--stimulus",
            &f,
        ],
        &["huge.jsonl:1", "below 2^64"],
    );
    assert!(!stderr(&o).contains("at line"), "{}", stderr(&o));
    // An OS error once.
    let o = expect(
        2,
        20,
        &["cost", "--config", "/nonexistent.toml"],
        &["/nonexistent.toml"],
    );
    assert_eq!(
        stderr(&o).matches("No such file or directory").count(),
        1,
        "{}",
        stderr(&o)
    );
    // A GPGPU-Sim file given as a TOML configuration.
    let g = write(&d, "gpgpusim.config", "# GPGPU-Sim\n-gpgpu_n_mem 6\n");
    expect(
        2,
        20,
        &["cost", "--config", &g],
        &["--gpgpusim-config", "gpgpusim.config:2"],
    );
}
