//! The command line: configuration layers, exit codes, the golden verb, cost and generation.

mod common;
use common::*;
use serde_json::{json, Value};

#[test]
fn presets_and_describe_list_everything() {
    let o = warpsmith(&["presets"]);
    assert!(o.status.success());
    let s = stdout(&o);
    assert!(
        s.contains("fermi-gtx480") && s.contains("(default)") && s.contains("tiny"),
        "{s}"
    );
    let o = warpsmith(&["describe", "--format", "json"]);
    assert!(o.status.success());
    let d: Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = d["keys"].as_array().unwrap();
    assert_eq!(rows.len(), spec::UserConfig::keys().len());
    let rules = d["rules"].as_array().unwrap();
    assert_eq!(rules.len(), spec::UserConfig::rules().count());
    assert!(rules
        .iter()
        .any(|r| r.as_str().unwrap().contains("dram.t_refi")));
    let entries = rows.iter().find(|r| r["key"] == "ot.entries").unwrap();
    assert_eq!(entries["default"], "1024");
    assert_eq!(entries["type"], "integer");
    assert!(entries["legal"].as_str().unwrap().contains("power of two"));
    assert!(rows
        .iter()
        .all(|r| !r["meaning"].as_str().unwrap().is_empty()));
}

fn expect_bad(args: &[&str], needles: &[&str]) {
    let o = warpsmith(args);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "args {args:?}: stderr {e}");
    for n in needles {
        assert!(e.contains(n), "args {args:?}: `{n}` missing from: {e}");
    }
    assert!(!e.contains("panicked"), "{e}");
}

#[test]
fn bad_configurations_exit_2_naming_key_value_and_range() {
    expect_bad(
        &["cost", "--set", "ot.entries=1000"],
        &["ot.entries", "1000", "power of two"],
    );
    expect_bad(
        &["cost", "--set", "ot.ways=0"],
        &["ot.ways", "0", "power of two"],
    );
    expect_bad(
        &["cost", "--set", "ot.addr_bits=65"],
        &["ot.addr_bits", "65", "8..=64"],
    );
    expect_bad(
        &["cost", "--set", "ot.ways=2048"],
        &["ot.ways", "ot.entries"],
    );
    expect_bad(
        &["cost", "--set", "ot.replacment=lru"],
        &["ot.replacment", "did you mean `ot.replacement`"],
    );
    expect_bad(&["cost", "--set", "ot.entries"], &["KEY=VALUE"]);
    expect_bad(&["cost", "--preset", "volta"], &["volta", "fermi-gtx480"]);
    let bad = data("bad-config.toml");
    expect_bad(
        &["cost", "--config", bad.to_str().unwrap()],
        &["ot.entries", "1000"],
    );
    let unknown = data("unknown-key.toml");
    expect_bad(
        &[
            "generate",
            "--out",
            "/nonexistent",
            "--config",
            unknown.to_str().unwrap(),
        ],
        &["ot.entrys", "ot.entries"],
    );
    expect_bad(
        &["cost", "--config", "no/such/file.toml"],
        &["no/such/file.toml"],
    );
}

#[test]
fn malformed_stimulus_exits_2_naming_file_and_line() {
    let f = data("bad-json.jsonl");
    expect_bad(
        &["golden", "--block", "ot", "--stimulus", f.to_str().unwrap()],
        &["bad-json.jsonl:3:"],
    );
    let f = data("bad-op.jsonl");
    expect_bad(
        &["golden", "--block", "ot", "--stimulus", f.to_str().unwrap()],
        &["bad-op.jsonl:2:", "prefetch", "launch, observe, predict"],
    );
    let f = data("out-of-grid.jsonl");
    expect_bad(
        &["golden", "--block", "ot", "--stimulus", f.to_str().unwrap()],
        &["out-of-grid.jsonl:4:", "outside the launched grid"],
    );
    let f = data("too-wide.jsonl");
    expect_bad(
        &["golden", "--block", "ot", "--stimulus", f.to_str().unwrap()],
        &["too-wide.jsonl:1:", "ot.addr_bits"],
    );
    expect_bad(
        &["golden", "--block", "ot", "--stimulus", "missing.jsonl"],
        &["missing.jsonl"],
    );
    expect_bad(
        &["golden", "--block", "ot", "--stimulus", "kernel:nbody"],
        &["nbody", "cp"],
    );
    // The same checks guard co-simulation, before any model is built.
    let f = data("out-of-grid.jsonl");
    expect_bad(
        &[
            "cosim",
            "--block",
            "ot",
            "--preset",
            "tiny",
            "--stimulus",
            f.to_str().unwrap(),
        ],
        &["out-of-grid.jsonl:4:"],
    );
    expect_bad(
        &[
            "cosim", "--block", "ot", "--preset", "tiny", "--mutant", "nope",
        ],
        &["nope", "stride-sign-flipped"],
    );
}

#[test]
fn golden_runs_the_fig6_walkthrough() {
    let f = data("fig6.jsonl");
    let o = warpsmith(&[
        "golden",
        "--block",
        "ot",
        "--stimulus",
        f.to_str().unwrap(),
        "--dump-state",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines.len(),
        13,
        "the provenance, 11 responses and the final table"
    );
    assert_eq!(lines[0]["schema"], golden::ot::output::SCHEMA);
    let lines = &lines[1..];
    let events: Vec<&str> = lines[1..8]
        .iter()
        .map(|r| r["event"].as_str().unwrap())
        .collect();
    assert_eq!(
        events,
        ["alloc", "append", "learn", "learn", "learn", "alloc", "learn"]
    );
    let a1 = 4096u64;
    assert_eq!(
        lines[8],
        json!({"op": "predict", "hit": true, "addrs": [a1 + 16, a1 + 20]})
    );
    assert_eq!(
        lines[9],
        json!({"op": "predict", "hit": true, "addrs": [a1 + 22, a1 + 26]})
    );
    assert_eq!(
        lines[10],
        json!({"op": "predict", "hit": false, "addrs": []})
    );
    let table = lines[11].as_array().unwrap();
    assert_eq!(table.len(), 2);
    assert_eq!(table[0]["stride"], json!([4, 12, null]));
    assert_eq!(table[0]["inter_warp_stride"], json!(2));
    assert_eq!(table[1]["stride"], json!([4, null, null]));
    for key in [
        "pc",
        "lec",
        "tb",
        "warp",
        "addrs",
        "stride",
        "inter_warp_stride",
        "mispredicts",
        "ready",
    ] {
        assert!(table[0].get(key).is_some(), "state lacks {key}");
    }
}

#[test]
fn golden_runs_kernel_and_random_stimulus() {
    let o = warpsmith(&[
        "golden",
        "--block",
        "ot",
        "--stimulus",
        "kernel:cp",
        "--cycles",
        "500",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let first: Value = serde_json::from_str(stdout(&o).lines().nth(1).unwrap()).unwrap();
    assert_eq!(
        first,
        json!({"op": "launch"}),
        "the first line after the provenance"
    );
    let o = warpsmith(&[
        "golden",
        "--block",
        "ot",
        "--preset",
        "tiny",
        "--stimulus",
        "random",
        "--cycles",
        "300",
        "--seed",
        "9",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).lines().count() >= 300);
}

#[test]
fn emitted_config_reproduces_the_same_spec() {
    let d = scratch("emit");
    let f = d.join("resolved.toml");
    let o = warpsmith(&[
        "cost",
        "--block",
        "ot",
        "--format",
        "json",
        "--preset",
        "tiny",
        "--config",
        data("custom.toml").to_str().unwrap(),
        "--set",
        "ot.ways=4",
        "--emit-config",
        f.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let first: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(first["tables"][0]["entries"], 256);
    let o = warpsmith(&[
        "cost",
        "--block",
        "ot",
        "--format",
        "json",
        "--config",
        f.to_str().unwrap(),
    ]);
    let again: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(first["config_hash"], again["config_hash"]);
    assert_eq!(first["tables"], again["tables"]);
}

#[test]
fn cost_json_has_one_object_per_table() {
    let o = warpsmith(&["cost", "--block", "ot", "--format", "json"]);
    assert!(o.status.success());
    let c: Value = serde_json::from_slice(&o.stdout).unwrap();
    let tables = c["tables"].as_array().unwrap();
    assert_eq!(tables.len(), 2, "observation table and replacement state");
    for t in tables {
        for k in [
            "entries",
            "bits_per_entry",
            "total_bits",
            "total_bytes",
            "fields",
        ] {
            assert!(t.get(k).is_some(), "{k} missing");
        }
        let sum: u64 = t["fields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["bits"].as_u64().unwrap())
            .sum();
        assert_eq!(sum, t["bits_per_entry"].as_u64().unwrap());
        assert_eq!(
            t["total_bits"].as_u64().unwrap(),
            t["entries"].as_u64().unwrap() * sum
        );
    }
    assert_eq!(tables[0]["entries"], 1024);
    assert_eq!(c["comparison"]["paper_bytes_per_unit"], 46.0);
}

#[test]
fn cost_table_compares_with_table_iii() {
    let o = warpsmith(&["cost", "--block", "ot"]);
    let s = stdout(&o);
    assert!(o.status.success());
    for needle in [
        "observation table: 1024 entries x 364 bits",
        "seed 000 Table III",
        "46 B",
        "47104 B",
        "lec",
        "ot.lec_bits",
    ] {
        assert!(s.contains(needle), "`{needle}` missing:\n{s}");
    }
}

#[test]
fn generation_is_deterministic_and_writes_a_manifest() {
    let a = scratch("gen-a");
    let b = scratch("gen-b");
    for d in [&a, &b] {
        let o = warpsmith(&[
            "generate",
            "--block",
            "ot",
            "--preset",
            "tiny",
            "--out",
            d.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    for f in ["ws_ot_pkg.sv", "ws_ot_predictor.sv", "manifest.json"] {
        assert_eq!(
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
            "{f}"
        );
    }
    let m: Value =
        serde_json::from_slice(&std::fs::read(a.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["top"], "ws_ot_predictor");
    for f in m["files"].as_array().unwrap() {
        let text = std::fs::read(a.join(f["name"].as_str().unwrap())).unwrap();
        assert_eq!(f["sha256"], rtlgen::sha256_hex(&text));
    }
    let top = std::fs::read_to_string(a.join("ws_ot_predictor.sv")).unwrap();
    assert!(top.contains(&format!(
        "config hash {}",
        m["config_hash"].as_str().unwrap()
    )));
    assert!(top.contains(&format!("warpsmith {}", rtlgen::VERSION)));
}

#[test]
fn run_help_names_every_kernel_it_knows() {
    // The names in `run --help` are written out: every built-in and shipped kernel is there.
    let help = stdout(&warpsmith(&["run", "--help"]));
    let known = golden::workload::BUILTIN
        .iter()
        .copied()
        .chain(golden::dispatch::EXAMPLES.iter().map(|(n, _)| *n));
    for name in known {
        assert!(
            help.contains(name),
            "run --help does not name `{name}`:\n{help}"
        );
    }
}

#[test]
fn a_closed_pipe_ends_output_quietly() {
    // `warpsmith regress --list nightly --dry-run | head -1`: the reader goes away after one
    // line of about 90 KB, more than a pipe holds; warpsmith ends without a panic message
    // (before the fix it panicked in `println!`, exit 101).
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_warpsmith"))
        .args(["regress", "--list", "nightly", "--dry-run"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(!line.is_empty());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_ne!(out.status.code(), Some(101), "{err}");
}

/// Packaging: the version names the git revision; the completion scripts and manual pages are
/// generated from the command line, every command in them.
#[test]
fn version_completions_and_manual_pages_come_from_the_command_line() {
    let o = warpsmith(&["--version"]);
    assert!(o.status.success());
    let v = stdout(&o);
    assert!(
        v.starts_with(&format!("warpsmith {} (git ", env!("CARGO_PKG_VERSION"))),
        "{v}"
    );
    let o = warpsmith(&["completions", "bash"]);
    assert!(o.status.success());
    let script = stdout(&o);
    for word in ["_warpsmith()", "regress", "--max-cycles", "--stimulus"] {
        assert!(
            script.contains(word),
            "{word} missing from the bash completions"
        );
    }
    expect_bad(&["completions", "tcsh"], &["tcsh"]);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("man");
    let o = warpsmith(&["manpages", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = std::fs::read_to_string(out.join("warpsmith-run.1")).unwrap();
    assert!(page.contains("\n.TH warpsmith-run 1 "), "{page}");
    assert!(page.contains("max\\-cycles"), "{page}");
    let subcommands = warpsmith(&["--help"]);
    let help = stdout(&subcommands);
    let commands = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help");
    for c in commands {
        assert!(
            out.join(format!("warpsmith-{c}.1")).exists(),
            "no page for {c}"
        );
    }
}
