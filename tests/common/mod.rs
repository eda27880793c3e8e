//! Shared helpers of the integration tests.
#![allow(dead_code)]

use spec::{ConfigRequest, Spec, PRESETS};
use std::path::PathBuf;
use std::process::{Command, Output};

/// The `warpsmith` binary under test.
pub fn warpsmith(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpsmith"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run warpsmith")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A scratch folder under target/ for one test.
pub fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target/ws-test")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("create scratch dir");
    d
}

pub fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

pub fn spec(preset: &str, sets: &[&str]) -> Spec {
    let mut r = ConfigRequest::preset(preset);
    for s in sets {
        r = r.with(s);
    }
    r.resolve().expect("valid test configuration")
}

/// Degenerate and extreme parameter sets (on top of `tiny`): where generated RTL breaks.
pub const EDGE_MATRIX: &[(&str, &[&str])] = &[
    ("direct-mapped", &["ot.ways=1"]),
    ("2-way-lru", &["ot.ways=2", "ot.replacement=lru"]),
    (
        "2-way-plru-2d-3addr",
        &[
            "ot.ways=2",
            "ot.replacement=plru",
            "ot.grid_dims=2",
            "ot.addrs_per_entry=3",
        ],
    ),
    (
        "16-way-lru-1d",
        &["ot.ways=16", "ot.replacement=lru", "ot.grid_dims=1"],
    ),
    (
        "1-entry-widest-fields",
        &[
            "ot.entries=1",
            "ot.ways=1",
            "ot.addr_bits=64",
            "ot.stride_bits=64",
            "ot.pc_bits=64",
            "ot.lec_bits=32",
            "ot.tb_bits=31",
            "ot.warp_bits=10",
            "ot.counter_bits=16",
            "ot.mispredict_threshold=1000",
            "ot.addrs_per_entry=4",
        ],
    ),
    (
        "narrowest-fields",
        &[
            "ot.ways=8",
            "ot.grid_dims=1",
            "ot.addrs_per_entry=1",
            "ot.pc_bits=1",
            "ot.lec_bits=1",
            "ot.tb_bits=1",
            "ot.warp_bits=1",
            "ot.addr_bits=8",
            "ot.stride_bits=2",
            "ot.counter_bits=1",
            "ot.mispredict_threshold=0",
        ],
    ),
    (
        "largest-table",
        &["ot.entries=4096", "ot.ways=8", "ot.replacement=plru"],
    ),
];

/// Every preset and every edge configuration, named.
pub fn all_configs() -> Vec<(String, Spec)> {
    let mut v: Vec<(String, Spec)> = PRESETS
        .iter()
        .map(|p| (p.name.to_string(), spec(p.name, &[])))
        .collect();
    for (name, sets) in EDGE_MATRIX {
        v.push((format!("tiny+{name}"), spec("tiny", sets)));
    }
    v
}

/// Whether long regressions were asked for (`WARPSMITH_LONG=1`).
pub fn long() -> bool {
    std::env::var("WARPSMITH_LONG").is_ok_and(|v| v == "1")
}
