//! The workload library from the command line: `workloads` lists it, `trace --workload` writes
//! a trace that `run --trace` runs as `run --workload` does, and bad arguments exit 2 naming
//! the argument.

mod common;
use common::*;

#[test]
fn workloads_lists_every_workload_with_its_arguments() {
    let o = expect(0, 60, &["workloads"], &[]);
    let text = stdout(&o);
    for w in golden::suite::apps::ALL {
        assert!(text.contains(w.name), "{}", w.name);
        assert!(text.contains(w.source), "{}", w.name);
        for (key, default, _) in w.args {
            assert!(
                text.contains(&format!("{key}={default}")),
                "{} {key}",
                w.name
            );
        }
    }
}

#[test]
fn a_written_trace_runs_as_the_workload_from_the_command_line() {
    let dir = scratch("trace-matrixmul");
    let out = dir.to_str().unwrap();
    let w = "matrixmul:rows=64";
    let o = expect(0, 120, &["trace", "--workload", w, "--out", out], &[]);
    assert!(
        stdout(&o).contains("1 kernel(s), 4 blocks"),
        "{}",
        stdout(&o)
    );
    let args = ["--preset", "turing-rtx2060s", "--format", "json"];
    let traced = json_ok(&[&["run", "--trace", out][..], &args].concat());
    let direct = json_ok(&[&["run", "--workload", w][..], &args].concat());
    assert_eq!(traced, direct);
    assert_eq!(direct["copies"], 2, "A and B copied to the device");
    // Written again over its own output: allowed, the same files.
    expect(0, 120, &["trace", "--workload", w, "--out", out], &[]);
}

#[test]
fn bad_workload_arguments_exit_2_naming_them() {
    exits_2_saying(
        &["run", "--workload", "nosuch"],
        "unknown workload `nosuch`",
    );
    exits_2_saying(
        &["run", "--workload", "matrixmul:rows=33"],
        "argument `rows`: 33 is not a multiple of 32",
    );
    exits_2_saying(
        &["run", "--workload", "matrixmul:cols=3"],
        "argument `cols`: not an argument",
    );
    exits_2_saying(
        &["run", "--workload", "vectoradd:n=x"],
        "argument `n`: `x` is not a whole number",
    );
    exits_2_saying(
        &["run", "--workload", "vectoradd:n=0"],
        "argument `n`: 0 is out of range",
    );
    exits_2_saying(
        &["run", "--workload", "vectoradd:dtype=f16"],
        "`f16` is not one of f32, f64",
    );
    exits_2_saying(
        &["run", "--workload", "vectoradd:n"],
        "write arguments as key=value",
    );
    exits_2_saying(
        &["trace", "--workload", "nosuch", "--out", "/tmp/x"],
        "unknown workload",
    );
    // A block larger than the SM: the GPU's own error.
    exits_2_saying(
        &["run", "--workload", "vectoradd", "--preset", "tiny"],
        "gpu.warps_per_sm",
    );
}

/// The independent checks (scripts/workload_checks/: written apart from the emulator, from each
/// kernel's CUDA semantics, its listing's shape and, for the data-dependent kernels, a reference
/// run of the algorithm on an input the check writes itself) agree with the written traces of
/// every workload of the library, on the small run's shape and on shapes that change the stream;
/// and each check refuses its trace with one instruction dropped and with one address moved.
/// `scripts/check-workloads.py` fails on a workload that has no check.
#[test]
fn every_workloads_trace_agrees_with_its_independent_check_which_catches_a_changed_trace() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let o = std::process::Command::new("python3")
        .arg(root.join("scripts/check-workloads.py"))
        .args(["--bin", env!("CARGO_BIN_EXE_warpsmith")])
        .env("WARPSMITH_CACHE_DIR", scratch("check-workloads-cache"))
        .output()
        .expect("python3 runs");
    let (out, err) = (stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    // Every workload of the library had at least two cases agree, and both changes caught on
    // its first.
    let listed = stdout(&warpsmith(&["workloads"]))
        .lines()
        .filter(|l| l.contains("  (") && !l.starts_with(' '))
        .count();
    let caught = out.matches("caught ").count();
    let agreed = out.lines().filter(|l| l.starts_with("ok ")).count();
    assert!(listed >= 28, "{listed} workloads listed");
    assert!(agreed >= 2 * listed && caught == 2 * listed, "{out}");
}

#[test]
fn a_workload_of_the_library_is_a_stimulus_in_place_in_the_gpu() {
    // The OT snooping a workload's loads, Warped-MC's controllers under a data-dependent one,
    // MT-HWP trained by one: each matches its RTL every cycle, and sees the workload's work.
    let r = cosim_passes("ot", "turing-rtx2060s", "gpu:vectoradd:n=20000", 5_000);
    assert!(r["stats"]["predictions"].as_u64().unwrap() > 100, "{r:#}");
    let r = cosim_passes("warped-mc", "turing-rtx2060s", "gpu:bfs:nodes=4096", 5_000);
    assert!(r["stats"]["requests"].as_u64().unwrap() > 50, "{r:#}");
    cosim_passes("mt-hwp", "turing-rtx2060s", "gpu:hotspot:size=64", 5_000);
    // A workload's bad argument is named before anything runs; the locality unit, which needs
    // a kernel's access ranges, refuses a workload as it refuses a trace.
    exits_2_saying(
        &block_run("cosim", "ot", "tiny", "gpu:bfs:nodes=x", "100"),
        "argument `nodes`",
    );
    exits_2_saying(
        &block_run("cosim", "dispatch", "tiny", "gpu:vectoradd", "100"),
        "a trace or a workload of the library does not carry",
    );
}
