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
