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
        "--set",
        "gpu.sms=2",
        "--set",
        "gpu.ctas_per_sm=2",
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
        "--set",
        "gpu.sms=2",
        "--set",
        "gpu.ctas_per_sm=2",
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
        "golden",
        "--block",
        "dispatch",
        "--kernel",
        "cp",
        "--set",
        "gpu.sms=0",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("`gpu.sms` = 0"), "{}", stderr(&o));
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
            assert_eq!(r["verdict"], "pass", "{} {stim}: {r:#}", p.name);
            assert_eq!(r["cycles"], 20_000);
            assert!(
                r["stats"]["dispatched"].as_u64().unwrap() > 50,
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
    let repro = f["reproducer"]["path"].as_str().unwrap();
    let n = f["reproducer"]["items"].as_u64().unwrap();
    assert!(n <= f["cycle"].as_u64().unwrap(), "{r:#}");
    assert!(std::path::Path::new(f["reproducer"]["vcd"].as_str().unwrap()).exists());
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

#[test]
fn the_unit_cosimulates_inside_the_gpu() {
    // The unit inside the whole GPU, dispatching a kernel's blocks as they finish, relaunch
    // after relaunch (one unit for the whole run): its RTL matches every cycle on every preset.
    for p in spec::PRESETS {
        let r = cosim_passes("dispatch", p.name, "gpu:stencil2d", 10_000);
        let n = r["stats"]["dispatched"].as_u64().unwrap();
        assert!(n > 10, "{}: {r:#}", p.name);
    }
    // Every mutant is caught in place, and a reproducer (the unit's inputs, shrunk) fails with
    // its mutant and passes without.
    let r = json_ok(&[
        "mutants",
        "--block",
        "dispatch",
        "--preset",
        "tiny",
        "--stimulus",
        "gpu:stencil2d",
        "--cycles",
        "20000",
        "--format",
        "json",
    ]);
    assert_eq!(r["caught"], r["total"], "{r:#}");
    mutant_is_reproduced(
        "dispatch",
        "tiny",
        "gpu:stencil2d",
        20_000,
        "done-ignored",
        "",
    );
    // A trace carries no access ranges: refused, with what to give instead.
    let o = warpsmith(&[
        "cosim",
        "--block",
        "dispatch",
        "--preset",
        "tiny",
        "--stimulus",
        "gpu:golden/tests-data/accelsim-traces/rodinia2-lud-kernel8-volta-legacy-format",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("give a kernel"), "{}", stderr(&o));
}
