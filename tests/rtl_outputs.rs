//! What `generate` writes for each block beside its RTL, and how wide generated lines are. On
//! every preset: no generated line is wider than 100 columns; every block's filelist lints
//! clean (`verilator --lint-only -Wall -f <block>.f` in its folder, `-F` from elsewhere); FuseSoC
//! lists every block's core and lints it (`fusesoc run --target=lint`, Verilator with -Wall);
//! the manifest names every file of the folder.

mod common;
use common::*;
use sim::blocks::BLOCKS;
use sim::toolchain::Verilator;
use sim::tools::FuseSoc;
use std::path::{Path, PathBuf};
use std::process::Output;

/// `warpsmith generate --preset P --out ROOT/P` for every preset; ROOT.
fn generate_every_preset(name: &str) -> PathBuf {
    let root = scratch(name);
    for p in spec::PRESETS {
        let out = root.join(p.name);
        let o = warpsmith(&[
            "generate",
            "--preset",
            p.name,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}: {}", p.name, stderr(&o));
    }
    root
}

/// Every block folder under ROOT: (preset, block, folder).
fn folders(root: &Path) -> Vec<(&'static str, &'static str, PathBuf)> {
    let mut v = Vec::new();
    for p in spec::PRESETS {
        for b in BLOCKS {
            v.push((p.name, b.name, root.join(p.name).join(b.name)));
        }
    }
    v
}

/// Verilator's complaints in a lint run: empty when it exited 0 and printed no %Warning or
/// %Error (newer Verilators print a report even when linting).
fn complaints(o: &Output) -> String {
    let text = format!("{}{}", stderr(o), stdout(o));
    if o.status.success() && !text.contains("%Warning") && !text.contains("%Error") {
        String::new()
    } else {
        format!("exit {:?}\n{text}", o.status.code())
    }
}

#[test]
fn no_generated_line_is_wider_than_100_columns() {
    assert_eq!(rtlgen::MAX_COLUMNS, 100);
    let mut wide = Vec::new();
    let mut lines = 0;
    for p in spec::PRESETS {
        let spec = spec(p.name, &[]);
        for block in BLOCKS {
            let g = block.generate(&spec, "").unwrap();
            // Every file but the manifest (JSON data, the resolved configuration on one line).
            for (name, text) in g.all_files() {
                if name == "manifest.json" {
                    continue;
                }
                for (i, line) in text.lines().enumerate() {
                    lines += 1;
                    let n = line.chars().count();
                    if n > 100 {
                        wide.push(format!("{} {block} {name}:{}: {n} columns", p.name, i + 1));
                    }
                }
            }
        }
    }
    assert!(lines > 10_000, "{lines}");
    assert!(
        wide.is_empty(),
        "{} lines are wider than 100 columns:\n{}",
        wide.len(),
        wide.join("\n")
    );
}

#[test]
fn every_filelist_lints_clean_with_verilator_f() {
    let v = Verilator::find().expect("Verilator >= 5.006 (run scripts/setup.sh)");
    let root = generate_every_preset("filelists");
    for (preset, block, dir) in folders(&root) {
        let list = format!("{block}.f");
        assert!(dir.join(&list).is_file(), "{preset} {block}: no {list}");
        // `-f`: the paths are relative to the working folder, the block's.
        let o = std::process::Command::new(&v.bin)
            .args(["--lint-only", "-Wall", "-f", &list])
            .current_dir(&dir)
            .output()
            .unwrap();
        let c = complaints(&o);
        assert!(c.is_empty(), "{preset} {block}: -f {list}:\n{c}");
        // `-F`: the paths are relative to the filelist's folder, from anywhere.
        let o = std::process::Command::new(&v.bin)
            .args(["--lint-only", "-Wall", "-F"])
            .arg(dir.join(&list))
            .current_dir(&root)
            .output()
            .unwrap();
        let c = complaints(&o);
        assert!(c.is_empty(), "{preset} {block}: -F {list}:\n{c}");
    }
}

#[test]
fn the_manifest_names_every_file_of_the_folder() {
    let root = generate_every_preset("manifest-files");
    for (preset, block, dir) in folders(&root) {
        let m: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
        let mut listed: Vec<String> = m["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["name"].as_str().unwrap().to_string())
            .collect();
        listed.sort();
        let mut present: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != "manifest.json" && n != ".warpsmith-output")
            .collect();
        present.sort();
        assert_eq!(listed, present, "{preset} {block}");
        assert_eq!(m["filelist"], format!("{block}.f"), "{preset} {block}");
        assert_eq!(
            m["core"],
            format!("warpsmith:{preset}:{block}:{}", rtlgen::VERSION),
            "{preset} {block}"
        );
    }
}

#[test]
fn fusesoc_lists_and_lints_every_core() {
    let v = Verilator::find().expect("Verilator >= 5.006 (run scripts/setup.sh)");
    let fs = FuseSoc::find().expect("FuseSoC (run scripts/setup.sh)");
    let root = generate_every_preset("fusesoc");
    let work = scratch("fusesoc-work");
    let list = fs
        .command(&v, &work)
        .arg("--cores-root")
        .arg(&root)
        .args(["core", "list"])
        .output()
        .unwrap();
    assert!(list.status.success(), "core list: {}", stderr(&list));
    let listed = stdout(&list);
    let mut cores = Vec::new();
    for (preset, block, _) in folders(&root) {
        let core = format!("warpsmith:{preset}:{block}:{}", rtlgen::VERSION);
        assert!(listed.contains(&core), "{core} is not listed:\n{listed}");
        cores.push(core);
    }
    for core in &cores {
        let o = fs
            .command(&v, &work)
            .arg("--cores-root")
            .arg(&root)
            .args(["run", "--target=lint", core])
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{core}: fusesoc run --target=lint failed:\n{}{}",
            stdout(&o),
            stderr(&o)
        );
    }
    // The lint target does lint: a core whose module has a signal nobody reads (a -Wall warning)
    // fails it.
    let bad = scratch("fusesoc-bad");
    let tiny_ot = root.join("tiny").join("ot");
    for e in std::fs::read_dir(&tiny_ot).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), bad.join(e.file_name())).unwrap();
    }
    let top = bad.join("ws_ot_predictor.sv");
    let text = std::fs::read_to_string(&top).unwrap();
    let text = text.replacen(");\n", ");\n  logic never_read;\n", 1);
    std::fs::write(&top, text).unwrap();
    let o = fs
        .command(&v, &work)
        .arg("--cores-root")
        .arg(&bad)
        .args(["run", "--target=lint"])
        .arg(format!("warpsmith:tiny:ot:{}", rtlgen::VERSION))
        .output()
        .unwrap();
    assert!(
        !o.status.success(),
        "a lint warning passed the core's lint target:\n{}{}",
        stdout(&o),
        stderr(&o)
    );
}
