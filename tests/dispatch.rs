//! Thread-block dispatch through the CLI: orders, shared lines, Algorithm 1, bad input.

mod common;
use common::*;
use serde_json::Value;

fn run(kernel: &str, policy: &str) -> Value {
    let o = warpsmith(&[
        "golden",
        "--block",
        "dispatch",
        "--kernel",
        kernel,
        "--sms",
        "2",
        "--slots",
        "2",
        "--set",
        &format!("dispatch.policy={policy}"),
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn every_policy_dispatches_every_block_once() {
    for policy in ["rr", "bcs", "locality", "map-x", "map-y", "map-auto"] {
        for kernel in ["rowmajor", "colmajor", "nolocality", "stencil2d"] {
            let r = run(kernel, policy);
            let mut blocks: Vec<u64> = r["dispatches"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d["block"].as_u64().unwrap())
                .collect();
            blocks.sort();
            let n = blocks.len() as u64;
            assert!(n > 0);
            assert_eq!(blocks, (0..n).collect::<Vec<_>>(), "{policy} {kernel}");
        }
    }
}

#[test]
fn locality_shares_more_than_bcs_on_column_major() {
    let l = run("colmajor", "locality");
    let b = run("colmajor", "bcs");
    let r = run("colmajor", "rr");
    let t = |v: &Value| v["shared_total"].as_u64().unwrap();
    assert!(t(&l) > t(&b), "{} vs {}", t(&l), t(&b));
    assert!(t(&l) > t(&r));
    let auto = run("colmajor", "map-auto");
    assert_eq!(auto["direction"], "y");
}

#[test]
fn text_output_lists_the_order_and_per_sm_sums() {
    let o = warpsmith(&[
        "golden",
        "--block",
        "dispatch",
        "--kernel",
        "rowmajor",
        "--sms",
        "2",
        "--slots",
        "2",
        "--set",
        "dispatch.policy=bcs",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    assert!(s.contains("dispatch bcs  kernel rowmajor"), "{s}");
    assert!(s.contains("sm   0:") && s.contains("total"), "{s}");
}

#[test]
fn bad_kernels_and_flags_exit_2_with_the_reason() {
    let o = warpsmith(&["golden", "--block", "dispatch", "--kernel", "nope"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unknown kernel `nope`"),
        "{}",
        stderr(&o)
    );
    let d = scratch("dispatch-bad-kernel");
    let f = d.join("k.toml");
    std::fs::write(
        &f,
        "name = \"k\"\ngrid = [0, 1, 1]\nblock = [1, 1, 1]\narrays = []\nloads = []\n",
    )
    .unwrap();
    let o = warpsmith(&[
        "golden",
        "--block",
        "dispatch",
        "--kernel",
        f.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("grid[0]"), "{}", stderr(&o));
    let o = warpsmith(&[
        "golden", "--block", "dispatch", "--kernel", "cp", "--sms", "0",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--sms = 0"), "{}", stderr(&o));
    let o = warpsmith(&["golden", "--block", "dispatch"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--kernel is required"),
        "{}",
        stderr(&o)
    );
    let o = warpsmith(&[
        "golden",
        "--block",
        "dispatch",
        "--kernel",
        "cp",
        "--set",
        "dispatch.policy=fifo",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("dispatch.policy"), "{}", stderr(&o));
}

fn json_ok(args: &[&str]) -> Value {
    let o = warpsmith(args);
    assert!(o.status.success(), "{args:?}: {}{}", stdout(&o), stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn the_decision_unit_cosimulates_on_every_preset() {
    for p in spec::PRESETS {
        for stim in ["random", "kernel:colmajor", "kernel:stencil2d"] {
            let r = json_ok(&[
                "cosim",
                "--block",
                "dispatch",
                "--preset",
                p.name,
                "--stimulus",
                stim,
                "--cycles",
                "20000",
                "--format",
                "json",
            ]);
            assert_eq!(r["result"], "pass", "{} {stim}: {r:#}", p.name);
            assert_eq!(r["cycles"], 20_000);
            assert!(
                r["dispatched"].as_u64().unwrap() > 50,
                "{} {stim}: {r:#}",
                p.name
            );
        }
    }
}

#[test]
fn every_dispatch_mutant_is_caught() {
    for stim in ["random", "kernel:colmajor"] {
        let r = json_ok(&[
            "mutants",
            "--block",
            "dispatch",
            "--preset",
            "tiny",
            "--stimulus",
            stim,
            "--cycles",
            "50000",
            "--format",
            "json",
        ]);
        assert!(r["total"].as_u64().unwrap() >= 6, "{r:#}");
        assert_eq!(r["caught"], r["total"], "{stim}: {r:#}");
    }
}

#[test]
fn the_decision_unit_is_lint_clean_on_every_preset() {
    for p in spec::PRESETS {
        let o = warpsmith(&["check", "--block", "dispatch", "--preset", p.name]);
        assert!(
            o.status.success(),
            "{}: {}{}",
            p.name,
            stdout(&o),
            stderr(&o)
        );
    }
}

#[test]
fn cost_compares_with_table_5_2() {
    let o = warpsmith(&["cost", "--block", "dispatch", "--preset", "fermi-gtx480"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    assert!(s.contains("Table 5.2"), "{s}");
    assert!(
        s.contains("per block-queue entry: ours 15.38 B, paper 15.00 B"),
        "{s}"
    );
    assert!(s.contains("(16 block-queue entries)"), "{s}");
}

/// Degenerate decision units (on top of `tiny`): where generated RTL breaks.
const DISPATCH_EDGES: &[(&str, &[&str])] = &[
    ("1-sm", &["gpu.sms=1"]),
    ("1-slot", &["gpu.ctas_per_sm=1"]),
    ("1-array", &["dispatch.arrays=1"]),
    (
        "1-entry",
        &["dispatch.queue_entries=1", "dispatch.scored_per_cycle=1"],
    ),
    (
        "5-entries-2-per-cycle",
        &["dispatch.queue_entries=5", "dispatch.scored_per_cycle=2"],
    ),
    (
        "3-sms-3-slots-7-entries-3-per-cycle",
        &[
            "gpu.sms=3",
            "gpu.ctas_per_sm=3",
            "dispatch.queue_entries=7",
            "dispatch.scored_per_cycle=3",
        ],
    ),
];

#[test]
fn edge_configurations_lint_synthesize_and_cosimulate() {
    let y = sim::tools::Yosys::find().expect("Yosys with slang (run scripts/setup.sh)");
    for (name, sets) in DISPATCH_EDGES {
        let mut args = vec!["--preset", "tiny"];
        for s in *sets {
            args.extend(["--set", s]);
        }
        let lint = warpsmith(&[&["check", "--block", "dispatch"], &args[..]].concat());
        assert!(lint.status.success(), "{name}: {}", stdout(&lint));
        let r = json_ok(
            &[
                &[
                    "cosim",
                    "--block",
                    "dispatch",
                    "--stimulus",
                    "random",
                    "--cycles",
                    "20000",
                ],
                &args[..],
                &["--format", "json"],
            ]
            .concat(),
        );
        assert_eq!(r["result"], "pass", "{name}: {r:#}");
        let s = spec("tiny", sets);
        let g = sim::dispatch::ENTRY.generate(&s, "").unwrap();
        let files: Vec<(String, String)> = g
            .files
            .iter()
            .map(|f| (f.name.clone(), f.contents.clone()))
            .collect();
        let syn = sim::tools::synth(&y, &files, &g.top).unwrap();
        let estimate = golden::cost::dispatch_cost(&s).flip_flop_bits;
        assert_eq!(syn.flip_flops, estimate, "{name}: log {}", syn.log);
        assert!(
            syn.latches == 0 && syn.warnings.is_empty(),
            "{name}: {:?}",
            syn.warnings
        );
    }
}

#[test]
fn a_dispatch_mismatch_is_shrunk_to_a_reproducer_with_waves() {
    let d = scratch("dispatch-mismatch");
    let o = warpsmith(&[
        "cosim",
        "--block",
        "dispatch",
        "--preset",
        "tiny",
        "--mutant",
        "overlap-not-clipped",
        "--stimulus",
        "random",
        "--cycles",
        "5000",
        "--out-dir",
        d.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let f = &r["failure"];
    assert_eq!(f["kind"], "mismatch", "{r:#}");
    let repro = f["reproducer"].as_str().unwrap();
    let n = f["reproducer_transactions"].as_u64().unwrap();
    assert!(n <= f["cycle"].as_u64().unwrap() + 1, "{r:#}");
    assert!(std::path::Path::new(f["vcd"].as_str().unwrap()).exists());
    // The reproducer fails with the mutant and passes without it.
    let with = warpsmith(&[
        "cosim",
        "--block",
        "dispatch",
        "--preset",
        "tiny",
        "--mutant",
        "overlap-not-clipped",
        "--stimulus",
        repro,
        "--no-shrink",
    ]);
    assert_eq!(with.status.code(), Some(1), "{}", stdout(&with));
    let without = warpsmith(&[
        "cosim",
        "--block",
        "dispatch",
        "--preset",
        "tiny",
        "--stimulus",
        repro,
    ]);
    assert!(without.status.success(), "{}", stdout(&without));
    // A malformed input file is refused with its line.
    let bad = d.join("bad.jsonl");
    std::fs::write(&bad, "{\"enq\": 5}\n").unwrap();
    let o = warpsmith(&[
        "cosim",
        "--block",
        "dispatch",
        "--preset",
        "tiny",
        "--stimulus",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bad.jsonl:1"), "{}", stderr(&o));
}
