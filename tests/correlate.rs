//! `warpsmith correlate` end to end: a table holding a run's own figures correlates exactly, a
//! table off by a known factor gives exactly that error, and bad input exits 2 naming it.

mod common;
use common::*;

const W: &str = "fastwalshtransform:log2data=10";

/// The run's kernels (name -> per-launch mean of cycles, L2 read hits, DRAM read sectors),
/// from `run --format json`.
fn means() -> Vec<(String, f64, f64, f64)> {
    let r = json_ok(&[
        "run",
        "--preset",
        "turing-rtx2060s",
        "--workload",
        W,
        "--format",
        "json",
    ]);
    let mut out: Vec<(String, f64, f64, f64, f64)> = Vec::new();
    for k in r["kernels"].as_array().unwrap() {
        let name = k["name"].as_str().unwrap().to_string();
        let l2 = k["l2"]["by_kind"]["Read"]["hits"].as_f64().unwrap_or(0.0);
        let dram = k["dram_read_bytes"].as_f64().unwrap() / 32.0;
        let cycles = k["cycles"].as_f64().unwrap();
        match out.iter_mut().find(|o| o.0 == name) {
            Some(o) => {
                o.1 += cycles;
                o.2 += l2;
                o.3 += dram;
                o.4 += 1.0;
            }
            None => out.push((name, cycles, l2, dram, 1.0)),
        }
    }
    out.into_iter()
        .map(|(n, c, l, d, k)| (n, c / k, l / k, d / k))
        .collect()
}

fn correlate(table: &str, extra: &[&str]) -> std::process::Output {
    // (A folder per call: the tests run at once.)
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = scratch(&format!("correlate-{call}"));
    let path = dir.join("hw.csv");
    std::fs::write(&path, table).unwrap();
    let path = path.to_str().unwrap().to_string();
    let mut args = vec![
        "correlate",
        "--preset",
        "turing-rtx2060s",
        "--workload",
        W,
        "--hardware",
        &path,
    ];
    args.extend_from_slice(extra);
    warpsmith(&args)
}

#[test]
fn a_table_of_the_runs_own_figures_correlates_exactly_and_a_scaled_one_by_its_factor() {
    let m = means();
    assert!(m.len() >= 2, "{m:?}");
    let table = |scale: f64| {
        let mut t = "Benchmark,Kernel,Elapsed_Cycles,L2_RH,DRAM_Rd\n".to_string();
        for (n, c, l, d) in &m {
            t += &format!("fwt,{n},{},{l},{d}\n", c * scale);
        }
        t
    };
    // (`run` keeps the caches between kernels: so does `--cache-control none`.)
    let none = ["--cache-control", "none"];
    let o = correlate(&table(1.0), &["--format", "json", none[0], none[1]]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["cold_caches"], false);
    let cycles = &r["metrics"][0];
    assert_eq!(cycles["metric"], "cycles");
    assert_eq!(cycles["mape"].as_f64(), Some(0.0));
    assert_eq!(cycles["within_10"].as_u64(), Some(m.len() as u64));
    assert!((cycles["pearson"].as_f64().unwrap() - 1.0).abs() < 1e-9);
    assert!(r["unmatched_hardware"].as_array().unwrap().is_empty());
    // Measured twice as long: every simulated kernel is 50 % short.
    let o = correlate(&table(2.0), &["--format", "json", none[0], none[1]]);
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!((r["metrics"][0]["mape"].as_f64().unwrap() - 50.0).abs() < 1e-9);
    for p in r["pairs"].as_array().unwrap() {
        let e = p["figures"][0]["error"].as_f64().unwrap();
        assert!((e + 0.5).abs() < 1e-12, "{p}");
    }
    // Text, and the files of --out.
    let out = scratch("correlate-out");
    let _ = std::fs::remove_dir_all(&out);
    let o = correlate(
        &table(1.0),
        &["--out", out.to_str().unwrap(), none[0], none[1]],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("cycles") && stdout(&o).contains("MAPE"));
    assert!(stdout(&o).contains("caches kept"), "{}", stdout(&o));
    for f in [
        "report.json",
        "gpgpusim-stats.txt",
        "cycles.svg",
        "dram_read_sectors.svg",
    ] {
        assert!(out.join(f).is_file(), "{f}");
    }
    let stats = std::fs::read_to_string(out.join("gpgpusim-stats.txt")).unwrap();
    assert!(stats.contains(&format!("kernel_name = {}\n", m[0].0)));
}

#[test]
fn by_default_every_kernel_starts_with_the_caches_flushed_as_under_nsight_compute() {
    // Each kernel of the transform reads what the one before wrote: kept, some of it is in
    // the L2; flushed (the default, GPU-33), only what the kernel itself brought in is, and
    // fewer reads hit.
    let m = means();
    let mut t = "Kernel,L2_RH,L2_RM\n".to_string();
    for (n, _, l, _) in &m {
        t += &format!("{n},{l},1\n");
    }
    let hits = |extra: &[&str]| -> Vec<f64> {
        let mut args = vec!["--format", "json"];
        args.extend_from_slice(extra);
        let o = correlate(&t, &args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        r["pairs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["figures"][5]["simulated"].as_f64().unwrap())
            .collect()
    };
    let kept = hits(&["--cache-control", "none"]);
    let flushed = hits(&[]);
    assert!(kept.iter().sum::<f64>() > 0.0, "{kept:?}");
    // (turing-rtx2060s's host copies do not fill the L2: the first kernel starts empty
    // either way; its repeated launches do not, kept.)
    assert!(
        flushed.iter().sum::<f64>() < kept.iter().sum::<f64>(),
        "{flushed:?} {kept:?}"
    );
}

#[test]
fn bad_tables_and_workloads_exit_2_naming_the_problem() {
    let o = correlate("Benchmark,Kernel,Elapsed_Cycles\nx,k,soon\n", &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("hw.csv line 2") && stderr(&o).contains("Elapsed_Cycles"));
    // No kernel of the run in the table: nothing compared is not a success.
    let o = correlate("Kernel,Elapsed_Cycles\nsomething_else,5\n", &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("nothing was compared"),
        "{}",
        stderr(&o)
    );
    let table = scratch("correlate-table").join("hw.csv");
    std::fs::write(&table, "Kernel,Elapsed_Cycles\nk,5\n").unwrap();
    exits_2_saying(
        &[
            "correlate",
            "--preset",
            "tiny",
            "--workload",
            "nosuchworkload",
            "--hardware",
            table.to_str().unwrap(),
        ],
        "nosuchworkload",
    );
    exits_2_saying(
        &[
            "correlate",
            "--preset",
            "tiny",
            "--workload",
            W,
            "--hardware",
            "/nonexistent.csv",
        ],
        "/nonexistent.csv",
    );
}
