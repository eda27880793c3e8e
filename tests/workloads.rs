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
    let mut traced = json_ok(&[&["run", "--trace", out][..], &args].concat());
    let mut direct = json_ok(&[&["run", "--workload", w][..], &args].concat());
    // (The same figures from two command lines.)
    for r in [&mut traced, &mut direct] {
        r.as_object_mut().unwrap().remove("command_line");
    }
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

/// `scripts/ubench.py` (decision WL-7) on fermi-gtx480: each chase is served by its level (one
/// L1 hit a measured step for the L1 chase, one L2 hit for the L2 chase, none for DRAM's), the
/// latencies rise from level to level, and the difference method measures what the
/// configuration adds: 50 more cycles of `l2.rop_latency` (a delay every L2 access waits out)
/// make the L2 chase exactly 50 cycles a step slower, and the DRAM chase (whose every miss
/// passes the same queue) about that much. Bandwidths are positive and the L1's is the largest.
#[test]
fn ubench_measures_each_levels_latency_and_bandwidth_by_difference() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let figures = |sets: &[&str]| -> serde_json::Value {
        let mut cmd = std::process::Command::new("python3");
        cmd.arg(root.join("scripts/ubench.py"))
            .args(["--bin", env!("CARGO_BIN_EXE_warpsmith")])
            .args(["--preset", "fermi-gtx480", "--json"])
            .env("WARPSMITH_CACHE_DIR", scratch("ubench-cache"));
        for s in sets {
            cmd.args(["--set", s]);
        }
        let o = cmd.output().expect("python3 runs");
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        serde_json::from_str(&stdout(&o)).unwrap()
    };
    let latency = |f: &serde_json::Value, level: usize, key: &str| -> f64 {
        f["latency"][level][key].as_f64().unwrap()
    };
    let base = figures(&[]);
    let (l1, l2, dram) = (0, 1, 2);
    assert_eq!(latency(&base, l1, "l1_hits_per_step"), 1.0, "{base:#}");
    assert_eq!(latency(&base, l2, "l1_hits_per_step"), 0.0, "{base:#}");
    assert_eq!(latency(&base, l2, "l2_hits_per_step"), 1.0, "{base:#}");
    assert_eq!(latency(&base, dram, "l2_hits_per_step"), 0.0, "{base:#}");
    let cycles = |f: &serde_json::Value, level| latency(f, level, "latency_cycles");
    assert!(cycles(&base, l1) < cycles(&base, l2), "{base:#}");
    assert!(cycles(&base, l2) < cycles(&base, dram), "{base:#}");
    let slower = figures(&["l2.rop_latency=170"]);
    assert_eq!(cycles(&slower, l2) - cycles(&base, l2), 50.0, "{slower:#}");
    // (The DRAM's timing, its refreshes and open rows, shifts with the later arrivals: its
    // step grows by about the 50 cycles, not exactly.)
    let dram_more = cycles(&slower, dram) - cycles(&base, dram);
    assert!((45.0..=55.0).contains(&dram_more), "{dram_more} {slower:#}");
    let bw: Vec<f64> = (0..4)
        .map(|k| base["bandwidth"][k]["bytes_per_cycle"].as_f64().unwrap())
        .collect();
    assert!(bw.iter().all(|b| *b > 0.0), "{bw:?}");
    assert!(bw[1..].iter().all(|b| *b < bw[0]), "{bw:?}");
}
