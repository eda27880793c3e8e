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

/// `scripts/check-workload.py` over `dir`'s trace of `w`: its exit code and message.
fn check_workload(dir: &std::path::Path, w: &str) -> (i32, String) {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/check-workload.py");
    let o = std::process::Command::new("python3")
        .arg(script)
        .arg(dir)
        .arg(w)
        .output()
        .expect("python3 runs");
    let text = format!("{}{}", stdout(&o), stderr(&o));
    (o.status.code().unwrap_or(-1), text)
}

/// The independent check (written apart from the emulator, from each kernel's CUDA semantics
/// and its listing's shape) agrees with the written traces, and catches a trace with one
/// instruction dropped or one lane's address moved to another line.
#[test]
fn traces_agree_with_the_independent_check_which_catches_a_changed_trace() {
    for w in [
        "vectoradd:n=1500",
        "matrixmul:rows=64",
        "transpose:variant=coalesced,dim=48",
        "transpose:reps=1",
    ] {
        let dir = scratch(&format!("check-{}", w.replace([':', '=', ','], "_")));
        let out = dir.to_str().unwrap();
        expect(0, 120, &["trace", "--workload", w, "--out", out], &[]);
        let (code, text) = check_workload(&dir, w);
        assert_eq!(code, 0, "{w}: {text}");
    }
    let w = "vectoradd:n=1500";
    let dir = scratch("check-mutated");
    let out = dir.to_str().unwrap();
    expect(0, 120, &["trace", "--workload", w, "--out", out], &[]);
    let file = dir.join("kernel-1.traceg");
    let text = std::fs::read_to_string(&file).unwrap();
    // One FADD dropped.
    let fadd = text.find(" FADD ").unwrap();
    let start = text[..fadd].rfind('\n').unwrap() + 1;
    let end = fadd + text[fadd..].find('\n').unwrap() + 1;
    std::fs::write(&file, format!("{}{}", &text[..start], &text[end..])).unwrap();
    let (code, msg) = check_workload(&dir, w);
    assert_eq!(code, 1, "{msg}");
    assert!(msg.contains("instructions"), "{msg}");
    // One load's base moved past the array's end.
    let moved = text.replacen(" 1 0x00007f0000000000 4 0", " 1 0x00007f0000010000 4 0", 1);
    assert_ne!(moved, text);
    std::fs::write(&file, moved).unwrap();
    let (code, msg) = check_workload(&dir, w);
    assert_eq!(code, 1, "{msg}");
    assert!(msg.contains("lines of"), "{msg}");
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
