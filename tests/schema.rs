//! The JSON reports against their committed schemas (docs/schema/): each committed schema is
//! what the types generate now, and reports of every kind of workload validate against it; a
//! report with a field added or removed does not.

mod common;
use common::*;
use serde_json::Value;

/// The committed schema of `report`, checked to be the one this build generates.
fn committed(report: &str) -> Value {
    let path = format!("docs/schema/{report}.schema.json");
    let text =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(&path))
            .unwrap();
    let o = warpsmith(&["schema", report]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap(),
        serde_json::from_slice::<Value>(&o.stdout).unwrap(),
        "{path} is not what the types generate: `warpsmith schema {report} > {path}` \
         (and raise the schema's version in its SCHEMA constant if a field was removed or \
         changed meaning)"
    );
    serde_json::from_str(&text).unwrap()
}

/// The report `args` print, as JSON.
fn report(args: &[&str]) -> Value {
    let o = warpsmith(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn errors(schema: &jsonschema::Validator, v: &Value) -> Vec<String> {
    schema.iter_errors(v).map(|e| e.to_string()).collect()
}

#[test]
fn run_reports_validate_against_the_committed_schema() {
    let schema = jsonschema::validator_for(&committed("run")).unwrap();
    let trace = "golden/tests-data/accelsim-traces/rodinia2-lud-kernel8-volta-legacy-format";
    let runs: [&[&str]; 5] = [
        &["run", "--preset", "tiny", "--kernel", "stencil2d"],
        &["run", "--preset", "turing-rtx2060s", "--trace", trace],
        &[
            "run",
            "--preset",
            "turing-rtx2060s",
            "--workload",
            "vectoradd:n=2000",
        ],
        &[
            "run",
            "--preset",
            "fermi-gtx480",
            "--kernel",
            "pfstream",
            "--set",
            "prefetch.kind=mt-hwp",
        ],
        &[
            "run",
            "--config",
            "configs/turing-rtx2060.toml",
            "--kernel",
            "cp",
        ],
    ];
    for args in runs {
        let mut args = args.to_vec();
        args.extend(["--format", "json"]);
        let r = report(&args);
        assert_eq!(errors(&schema, &r), Vec::<String>::new(), "{args:?}");
        assert_eq!(r["schema"], golden::gpu::run::SCHEMA);
        assert_eq!(r["command_line"][1], "run");
        // Every cause and kind is reported, whatever happened.
        assert_eq!(r["l2"]["by_kind"].as_object().unwrap().len(), 7);
        assert_eq!(
            r["l2"]["reservation_failures"].as_object().unwrap().len(),
            3
        );
        // The breakdowns add up to the totals.
        let sum = |list: &str, key: &str| -> u64 {
            r[list]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x[key].as_u64().unwrap())
                .sum()
        };
        assert_eq!(sum("sms", "thread_instructions"), r["thread_instructions"]);
        assert_eq!(sum("dram_channels", "reads"), r["dram"]["reads"]);
        let l2: u64 = r["l2_slices"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["accesses"].as_u64().unwrap())
            .sum();
        assert_eq!(l2, r["l2"]["accesses"]);
        // The deliberately wrong variants: a field added, a field removed.
        let mut extra = r.clone();
        extra["dram"]["surprise"] = 1.into();
        assert!(
            !errors(&schema, &extra).is_empty(),
            "an unknown field passed"
        );
        let mut missing = r.clone();
        missing.as_object_mut().unwrap().remove("thread_ipc");
        assert!(
            !errors(&schema, &missing).is_empty(),
            "a missing field passed"
        );
    }
}

/// `run --format gpgpusim` read with the line patterns of GPGPU-Sim's statistics as Accel-Sim's
/// statistics scripts match them (`name = value`, the caches' breakdowns indented): every
/// pattern once per kernel, the running totals adding up the kernels, and each figure the
/// JSON report's.
#[test]
fn gpgpusim_text_parses_with_gpgpusims_patterns_and_agrees_with_the_json() {
    let args = [
        "run",
        "--preset",
        "turing-rtx2060s",
        "--workload",
        "babelstream:n=2048",
    ];
    let json = report(&[&args[..], &["--format", "json"]].concat());
    let o = warpsmith(&[&args[..], &["--format", "gpgpusim"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    // Aggregated across kernels (to be differenced), reset each kernel, and rates.
    let patterns = [
        r"^gpu_tot_sim_insn\s*=\s*(.*)$",
        r"^gpu_tot_sim_cycle\s*=\s*(.*)$",
        r"^\s+L2_cache_stats_breakdown\[GLOBAL_ACC_R\]\[HIT\]\s*=\s*(.*)$",
        r"^\s+L2_cache_stats_breakdown\[GLOBAL_ACC_R\]\[TOTAL_ACCESS\]\s*=\s*(.*)$",
        r"^\s+L2_cache_stats_breakdown\[GLOBAL_ACC_W\]\[HIT\]\s*=\s*(.*)$",
        r"^\s+L2_cache_stats_breakdown\[GLOBAL_ACC_W\]\[TOTAL_ACCESS\]\s*=\s*(.*)$",
        r"^\s+Total_core_cache_stats_breakdown\[GLOBAL_ACC_R\]\[TOTAL_ACCESS\]\s*=\s*(.*)$",
        r"^\s+Total_core_cache_stats_breakdown\[GLOBAL_ACC_R\]\[HIT\]\s*=\s*(.*)$",
        r"^\s+Total_core_cache_stats_breakdown\[GLOBAL_ACC_W\]\[HIT\]\s*=\s*(.*)$",
        r"^\s+Total_core_cache_stats_breakdown\[GLOBAL_ACC_W\]\[TOTAL_ACCESS\]\s*=\s*(.*)$",
        r"^gpgpu_n_tot_w_icount\s*=\s*(.*)$",
        r"^total dram reads\s*=\s*(.*)$",
        r"^total dram writes\s*=\s*(.*)$",
        r"^gpu_ipc\s*=\s*(.*)$",
        r"^gpu_tot_ipc\s*=\s*(.*)$",
        r"^gpu_sim_insn\s*=\s*(.*)$",
        r"^gpu_sim_cycle\s*=\s*(.*)$",
        r"^\s+L1D_total_cache_accesses\s*=\s*(.*)$",
        r"^\s+L2_total_cache_misses\s*=\s*(.*)$",
    ];
    let kernels = json["kernels"].as_array().unwrap();
    assert_eq!(
        kernels.len(),
        6,
        "babelstream's init, copy, mul, add, triad and dot"
    );
    let mut values: Vec<Vec<f64>> = Vec::new();
    for p in patterns {
        let re = regex::Regex::new(p).unwrap();
        let found: Vec<f64> = text
            .lines()
            .filter_map(|l| re.captures(l))
            .map(|c| c[1].trim().parse().unwrap())
            .collect();
        assert_eq!(found.len(), kernels.len(), "{p}: once per kernel");
        values.push(found);
    }
    let last = |i: usize| values[i][kernels.len() - 1];
    let sum = |key: &str| -> f64 { kernels.iter().map(|k| k[key].as_f64().unwrap()).sum() };
    assert_eq!(last(0), json["thread_instructions"].as_f64().unwrap());
    assert_eq!(last(0), sum("thread_instructions"));
    assert_eq!(last(1), sum("cycles"));
    assert_eq!(last(10), json["instructions"].as_f64().unwrap());
    let sectors = |key: &str| -> f64 {
        kernels
            .iter()
            .map(|k| k[key].as_u64().unwrap().div_ceil(32) as f64)
            .sum()
    };
    assert_eq!(last(11), sectors("dram_read_bytes"));
    assert_eq!(last(12), sectors("dram_write_bytes"));
    assert_eq!(
        last(3),
        json["l2"]["by_kind"]["read"]["accesses"].as_f64().unwrap()
    );
    assert_eq!(
        last(6),
        json["l1"]["by_kind"]["global_read"]["accesses"]
            .as_f64()
            .unwrap()
    );
    for (i, k) in kernels.iter().enumerate() {
        assert!((values[13][i] - k["thread_ipc"].as_f64().unwrap()).abs() < 1e-4);
        assert_eq!(values[15][i], k["thread_instructions"].as_f64().unwrap());
        assert_eq!(values[16][i], k["cycles"].as_f64().unwrap());
    }
    // The aggregated figures never go back from one kernel to the next.
    for v in &values[..13] {
        assert!(v.windows(2).all(|w| w[0] <= w[1]), "{v:?}");
    }
}

/// `--stats-interval`'s samples, one JSON object a line, validate against their committed
/// schema, and their instructions add up to the report's.
#[test]
fn samples_over_time_validate_against_the_committed_schema() {
    let schema = jsonschema::validator_for(&committed("sample")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("samples.jsonl");
    let r = report(&[
        "run",
        "--preset",
        "fermi-gtx480",
        "--kernel",
        "pfstream",
        "--set",
        "prefetch.kind=mt-hwp",
        "--stats-interval",
        "1000",
        "--stats-out",
        out.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let text = std::fs::read_to_string(&out).unwrap();
    let samples: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(samples.len() >= 5, "{text}");
    for s in &samples {
        assert_eq!(errors(&schema, s), Vec::<String>::new(), "{s}");
    }
    let total: u64 = samples
        .iter()
        .map(|s| s["instructions"].as_u64().unwrap())
        .sum();
    assert_eq!(total, r["instructions"]);
    let mut extra = samples[0].clone();
    extra["surprise"] = 1.into();
    assert!(
        !errors(&schema, &extra).is_empty(),
        "an unknown field passed"
    );
    // --stats-interval without --stats-out is a usage error.
    let o = warpsmith(&["run", "--kernel", "cp", "--stats-interval", "100"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--stats-out"), "{}", stderr(&o));
}

/// A sweep's table rows (table.jsonl), a finished job's and an erred one's, validate against
/// their committed schema.
#[test]
fn sweep_rows_validate_against_the_committed_schema() {
    let schema = jsonschema::validator_for(&committed("sweep")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("x.toml");
    std::fs::write(
        &x,
        "[[run]]\nkernels = [\"cp\"]\npresets = [\"tiny\"]\nmax_cycles = 100\n\n\
         [[run]]\nkernels = [\"matmul3d\"]\npresets = [\"tiny\"]\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let o = warpsmith(&[
        "sweep",
        "--experiment",
        x.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let rows: Vec<Value> = std::fs::read_to_string(out.join("table.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(
        (&rows[0]["status"], &rows[1]["status"]),
        (&"error".into(), &"ok".into())
    );
    for r in &rows {
        assert_eq!(errors(&schema, r), Vec::<String>::new(), "{r}");
        assert_eq!(r["schema"], sim::sweep::table::SCHEMA);
    }
    let mut extra = rows[1].clone();
    extra["surprise"] = 1.into();
    assert!(
        !errors(&schema, &extra).is_empty(),
        "an unknown field passed"
    );
    let mut missing = rows[1].clone();
    missing.as_object_mut().unwrap().remove("config_hash");
    assert!(
        !errors(&schema, &missing).is_empty(),
        "a missing field passed"
    );
}

/// `correlate --format json` and its `--out` report.json validate against the committed schema
/// and carry the provenance.
#[test]
fn correlate_reports_validate_against_the_committed_schema() {
    let schema = jsonschema::validator_for(&committed("correlate")).unwrap();
    let w = "fastwalshtransform:log2data=10";
    let r = report(&[
        "run",
        "--preset",
        "tiny",
        "--workload",
        w,
        "--format",
        "json",
    ]);
    let mut table = "Benchmark,Kernel,Elapsed_Cycles\n".to_string();
    for k in r["kernels"].as_array().unwrap() {
        table += &format!("fwt,{},{}\n", k["name"].as_str().unwrap(), k["cycles"]);
    }
    let dir = tempfile::tempdir().unwrap();
    let hw = dir.path().join("hw.csv");
    std::fs::write(&hw, table).unwrap();
    let out = dir.path().join("out");
    let printed = report(&[
        "correlate",
        "--preset",
        "tiny",
        "--workload",
        w,
        "--hardware",
        hw.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    for v in [&printed, &written] {
        assert_eq!(errors(&schema, v), Vec::<String>::new(), "{v}");
        assert_eq!(v["schema"], sim::correlate::SCHEMA);
        assert_eq!(v["config"], "tiny");
        assert!(!v["pairs"].as_array().unwrap().is_empty());
    }
    let mut extra = printed.clone();
    extra["pairs"][0]["surprise"] = 1.into();
    assert!(
        !errors(&schema, &extra).is_empty(),
        "an unknown field passed"
    );
}

/// How a golden run prints JSON: one object, or JSON lines (the provenance first).
#[derive(Clone, Copy, PartialEq)]
enum Form {
    Object,
    Lines,
}

/// Every golden run's JSON output, on stimuli that reach each kind of line or optional field,
/// validates against its committed schema (`golden-NAME`) and starts with the provenance; a
/// line with a field added or removed does not validate. A golden run the registry gains
/// without a case here fails the test.
#[test]
fn golden_outputs_validate_against_the_committed_schemas() {
    let fig6 = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fig6.jsonl");
    let fig6 = fig6.to_str().unwrap();
    let cases: [(&str, Form, &[&[&str]]); 5] = [
        (
            "ot",
            Form::Lines,
            &[
                &["--stimulus", fig6, "--dump-state"],
                &["--stimulus", "kernel:cp", "--cycles", "500"],
                &[
                    "--preset",
                    "tiny",
                    "--stimulus",
                    "random",
                    "--cycles",
                    "300",
                ],
            ],
        ),
        (
            "mc",
            Form::Object,
            &[
                &["--stimulus", "hoa", "--cycles", "3000"],
                &[
                    "--preset",
                    "tiny",
                    "--stimulus",
                    "random",
                    "--cycles",
                    "3000",
                ],
            ],
        ),
        (
            "memory",
            Form::Object,
            &[&[
                "--preset",
                "turing-rtx2060s",
                "--stimulus",
                "moa",
                "--cycles",
                "2000",
            ]],
        ),
        (
            "dispatch",
            Form::Object,
            &[
                &["--kernel", "rowmajor"],
                &["--kernel", "colmajor", "--set", "dispatch.policy=map-auto"],
            ],
        ),
        (
            "mt-hwp",
            Form::Lines,
            &[&[
                "--preset",
                "tiny",
                "--stimulus",
                "random",
                "--cycles",
                "100000",
            ]],
        ),
    ];
    for (_, g) in sim::blocks::goldens() {
        assert!(
            cases.iter().any(|c| c.0 == g.name),
            "golden {} has no case here",
            g.name
        );
    }
    for (name, form, runs) in cases {
        let schema = jsonschema::validator_for(&committed(&format!("golden-{name}"))).unwrap();
        // The keys each line carries, over all runs: every kind of line is reached.
        let mut shapes = std::collections::BTreeSet::new();
        for run in runs {
            let mut args = vec!["golden", "--block", name];
            args.extend(*run);
            if form == Form::Object {
                args.extend(["--format", "json"]);
            }
            let o = warpsmith(&args);
            assert!(o.status.success(), "{args:?}: {}", stderr(&o));
            let text = stdout(&o);
            let lines: Vec<Value> = match form {
                Form::Object => vec![serde_json::from_str(&text).unwrap()],
                Form::Lines => text
                    .lines()
                    .map(|l| serde_json::from_str(l).unwrap())
                    .collect(),
            };
            let head = &lines[0];
            assert_eq!(
                head["schema"].as_str().unwrap(),
                format!("warpsmith-golden-{name}/1"),
                "{args:?}"
            );
            assert_eq!(head["command_line"][1], "golden", "{args:?}");
            assert!(head["config"].is_string(), "{args:?}");
            for (i, v) in lines.iter().enumerate() {
                assert_eq!(
                    errors(&schema, v),
                    Vec::<String>::new(),
                    "{args:?} line {i}"
                );
                shapes.insert(shape(v));
            }
            // The deliberately wrong variants, on the last line (an event, or the report).
            let last = lines.last().unwrap();
            let mut extra = last.clone();
            match &mut extra {
                Value::Object(m) => {
                    m.insert("surprise".into(), 1.into());
                }
                Value::Array(a) => {
                    a[0]["surprise"] = 1.into();
                }
                _ => unreachable!(),
            }
            assert!(
                !errors(&schema, &extra).is_empty(),
                "{args:?}: an unknown field passed"
            );
            let mut missing = last.clone();
            let m = match &mut missing {
                Value::Object(m) => m,
                Value::Array(a) => a[0].as_object_mut().unwrap(),
                _ => unreachable!(),
            };
            let key = m.keys().find(|k| *k != "op").unwrap().clone();
            m.remove(&key);
            assert!(
                !errors(&schema, &missing).is_empty(),
                "{args:?}: a line without {key} passed"
            );
        }
        let expected: &[&str] = match name {
            "ot" => &["schema", "launch", "predict", "observe", "table"],
            "mt-hwp" => &["schema", "src", "throttle_degree"],
            _ => &["schema"],
        };
        for e in expected {
            assert!(
                shapes.iter().any(|s| s.contains(e)),
                "{name}: no line of kind {e} in {shapes:?}"
            );
        }
    }
}

/// A line's kind, for the test above: its `op`, else its keys (`table` for an array).
fn shape(v: &Value) -> String {
    match v {
        Value::Array(_) => "table".into(),
        Value::Object(m) => match m.get("op") {
            Some(op) => op.as_str().unwrap().to_string(),
            None => m.keys().cloned().collect::<Vec<_>>().join(","),
        },
        _ => "other".into(),
    }
}
