//! The Warped-MC block and the memory system through the CLI: lockstep co-simulation on every
//! preset (stress and HOA traffic), a second WET group, the mutant catalogue on every preset,
//! scheduler behaviour, the command trace replayed through the independent timing checker, and
//! the memory system's throughput in `bench`.

mod common;
use common::*;
use golden::mc::checker;
use golden::mc::dram::{parse_trace, CmdKind};
use golden::mc::timing::ChannelTiming;
use serde_json::Value;

fn json(args: &[&str]) -> Value {
    let o = warpsmith(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {}", stdout(&o)))
}

#[test]
fn every_preset_cosimulates_stress_and_hoa_traffic() {
    for p in spec::PRESETS {
        for stim in ["random", "hoa"] {
            let r = json(&[
                "cosim",
                "--block",
                "warped-mc",
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
                r["stats"]["requests"].as_u64().unwrap() > 300,
                "{} {stim}: too few requests completed: {r:#}",
                p.name
            );
        }
    }
}

#[test]
fn a_second_wet_group_cosimulates() {
    // tiny has one block for its 2 channels; with one block per controller there are two,
    // each counting both controllers in its WET.
    let r = json(&[
        "cosim",
        "--block",
        "warped-mc",
        "--preset",
        "tiny",
        "--set",
        "warped_mc.controllers_per_wet=1",
        "--group",
        "1",
        "--stimulus",
        "random",
        "--cycles",
        "10000",
        "--format",
        "json",
    ]);
    assert_eq!(r["verdict"], "pass", "{r:#}");
    assert_eq!(r["stats"]["group"], 1);
}

#[test]
fn every_applicable_mutant_is_caught_on_every_preset() {
    for p in spec::PRESETS {
        let r = json(&[
            "mutants",
            "--block",
            "warped-mc",
            "--preset",
            p.name,
            "--format",
            "json",
        ]);
        assert!(r["total"].as_u64().unwrap() >= 6, "{r:#}");
        assert_eq!(r["caught"], r["applicable"], "{}: {r:#}", p.name);
        for m in r["mutants"].as_array().unwrap() {
            if m.get("equivalent").is_some() {
                // Only a counter that cannot reach its limit under the preset's queue sizes.
                assert_eq!(m["name"], "pending-counter-wraps", "{}: {m:#}", p.name);
            }
        }
    }
    // The mutant fermi-gtx480 reports as equivalent is caught where the counter can saturate.
    let args = "cosim --block warped-mc --preset tiny --mutant pending-counter-wraps \
                --stimulus random --cycles 20000 --no-shrink --format json";
    let o = warpsmith(&args.split_whitespace().collect::<Vec<_>>());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["verdict"], "fail", "{r:#}");
}

/// Summary of one golden memory-system run.
fn summary(preset: &str, stim: &str, sched: &str, cycles: &str) -> Value {
    json(&[
        "golden",
        "--block",
        "mc",
        "--preset",
        preset,
        "--stimulus",
        stim,
        "--cycles",
        cycles,
        "--set",
        &format!("mc.scheduler={sched}"),
        "--format",
        "json",
    ])
}

#[test]
fn schedulers_keep_their_character_on_hoa_traffic() {
    let f = |v: &Value, k: &str| v[k].as_f64().unwrap();
    let mean = |v: &Value, k: &str| v[k]["mean"].as_f64().unwrap();
    // Saturating HOA traffic (3x the random-row service rate): bandwidth is what a scheduler
    // can sustain.
    let t = "turing-rtx2060s";
    let fr = summary(t, "hoa@3", "frfcfs", "30000");
    let fcfs = summary(t, "hoa@3", "fcfs", "30000");
    let wmc = summary(t, "hoa@3", "warped", "30000");
    let div = summary(t, "hoa@3", "divfirst", "30000");
    let bw_fr = f(&fr, "bandwidth_util");
    // FCFS loses most of it: every row conflict waits for the oldest request.
    assert!(
        f(&fcfs, "bandwidth_util") < 0.5 * bw_fr,
        "{fcfs:#} vs {fr:#}"
    );
    // Div-First gives up row hits for urgency: fewer hits, less bandwidth.
    assert!(f(&div, "row_hit_rate") < f(&fr, "row_hit_rate") - 0.02);
    assert!(
        f(&div, "bandwidth_util") < 0.95 * bw_fr,
        "{div:#} vs {fr:#}"
    );
    // Warped-MC keeps FR-FCFS's first-ready bandwidth.
    let bw = f(&wmc, "bandwidth_util");
    assert!((bw - bw_fr).abs() < 0.03 * bw_fr, "{bw} vs {bw_fr}");
    // At the default HOA load, Warped-MC lowers divergence and warp time at equal bandwidth.
    let fr = summary(t, "hoa", "frfcfs", "200000");
    let wmc = summary(t, "hoa", "warped", "200000");
    assert!(
        mean(&wmc, "divergence") < 0.99 * mean(&fr, "divergence"),
        "{wmc:#} vs {fr:#}"
    );
    assert!(
        mean(&wmc, "warp_time") < 0.99 * mean(&fr, "warp_time"),
        "{wmc:#} vs {fr:#}"
    );
    let (bw, bw_fr) = (f(&wmc, "bandwidth_util"), f(&fr, "bandwidth_util"));
    assert!((bw - bw_fr).abs() < 0.01 * bw_fr, "{bw} vs {bw_fr}");
}

#[test]
fn the_command_trace_passes_the_independent_checker() {
    let d = scratch("wmc-trace");
    for (preset, sched) in [("fermi-gtx480", "frfcfs"), ("turing-rtx2060s", "warped")] {
        let path = d.join(format!("{preset}.trace"));
        let o = warpsmith(&[
            "golden",
            "--block",
            "mc",
            "--preset",
            preset,
            "--stimulus",
            "random",
            "--cycles",
            "30000",
            "--set",
            &format!("mc.scheduler={sched}"),
            "--format",
            "json",
            "--command-trace",
            path.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let text = std::fs::read_to_string(&path).unwrap();
        let trace = parse_trace(&text).unwrap();
        assert!(trace.len() > 10_000, "{preset}: {} commands", trace.len());
        let s = spec(preset, &[]);
        let v = checker::check(&trace, &ChannelTiming::of(&s.dram));
        assert!(v.is_empty(), "{preset}: {:?}", &v[..v.len().min(3)]);
        // A column command moved to the cycle after its row's activation breaks tRCD.
        let mut bad = trace.clone();
        let (i, j) = (0..bad.len())
            .filter(|&i| bad[i].kind == CmdKind::Act)
            .find_map(|i| {
                (i + 1..bad.len())
                    .find(|&j| bad[j].channel == bad[i].channel && bad[j].bank == bad[i].bank)
                    .filter(|&j| bad[j].kind.is_column())
                    .map(|j| (i, j))
            })
            .unwrap();
        bad[j].cycle = bad[i].cycle + 1;
        bad.sort_by_key(|c| c.cycle);
        assert!(!checker::check(&bad, &ChannelTiming::of(&s.dram)).is_empty());
    }
}

#[test]
fn warped_mc_bench_reports_memory_system_throughput_per_scheduler() {
    let r = bench_report("warped-mc", 20_000);
    let t = r["system"].as_array().unwrap();
    let names: Vec<&str> = t.iter().map(|x| x["what"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "fcfs",
            "frfcfs",
            "warped",
            "divfirst",
            "memory side, 8/port",
            "memory side, 64/port"
        ]
    );
    // The deeper loop keeps the DRAM busier: the two depths measure different traffic.
    let bus = |i: usize| t[i]["dram_bandwidth"].as_f64().unwrap();
    assert!(bus(5) > bus(4) && bus(4) > 0.0, "{} vs {}", bus(5), bus(4));
    for x in t {
        let runs: Vec<f64> = x["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        assert_eq!(runs.len(), 3, "{x}");
        let fastest = runs.iter().copied().fold(f64::INFINITY, f64::min);
        assert_eq!(
            x["seconds"].as_f64().unwrap(),
            fastest,
            "the fastest run counts: {x}"
        );
        let rps = x["requests"].as_f64().unwrap() / fastest;
        assert!(
            (x["requests_per_second"].as_f64().unwrap() - rps).abs() < 1e-6 * rps,
            "{x}"
        );
        assert!(
            (x["ratio"].as_f64().unwrap() - rps / 1e6).abs() < 1e-9 * rps,
            "{x}"
        );
        assert!(x["requests"].as_u64().unwrap() > 0 && x["cycles"].as_u64().unwrap() > 0);
    }
}

#[test]
fn warped_mc_cosimulates_behind_the_l2_in_the_memory_side() {
    // The controllers behind the interconnect and the L2 partitions, closed loop: the block's
    // RTL matches on every preset, and requests reach it with their warps through the L2.
    for p in spec::PRESETS {
        let r = cosim_passes("warped-mc", p.name, "memory:hoa", 20_000);
        let n = r["stats"]["requests"].as_u64().unwrap();
        assert!(n > 300, "{}: {r:#}", p.name);
    }
    // A mutant is caught there too, and its reproducer replays in the same mode: it fails with
    // the mutant and passes without.
    let r = mutant_is_reproduced(
        "warped-mc",
        "tiny",
        "memory:hoa",
        20_000,
        "wet-service-ignored",
        "memory:",
    );
    assert!(
        r["failure"]["reproducer"]["command"]
            .as_str()
            .unwrap()
            .contains("--stimulus memory:"),
        "{r:#}"
    );
}

#[test]
fn warped_mc_cosimulates_inside_the_gpu() {
    // The whole GPU on a kernel (SMs, L1s, interconnect, L2, the controllers): the watched
    // block's RTL matches every cycle on every preset, relaunch after relaunch.
    for p in spec::PRESETS {
        let r = cosim_passes("warped-mc", p.name, "gpu:irregular", 20_000);
        let n = r["stats"]["requests"].as_u64().unwrap();
        assert!(n > 300, "{}: {r:#}", p.name);
    }
    // Its mutants are caught in place on every preset: every one by the gather kernel but the
    // pending counter's wrap, which needs one warp with more requests pending at a controller
    // than the counter holds: a lone warp's stores, which wait for nothing (`lonestores`).
    const WRAPS: &str = "pending-counter-wraps";
    for p in spec::PRESETS {
        let mutants = |stimulus: &str, cycles: u64, only: &[&str]| {
            mutants_report("warped-mc", p.name, stimulus, cycles, only)
        };
        let r = mutants("gpu:irregular", 200_000, &[]);
        let all = r["mutants"].as_array().unwrap();
        assert!(all.len() >= 10, "{r:#}");
        for m in all {
            assert_eq!(m["caught"], m["name"] != WRAPS, "{}: {m:#}", p.name);
        }
        let r = mutants(
            "gpu:golden/kernels/gpu/lonestores",
            100_000,
            &["--only", WRAPS],
        );
        assert_eq!((&r["caught"], &r["total"]), (&1.into(), &1.into()), "{r:#}");
    }
    // A lone warp's loads fill the counter too where the L1's MSHRs let them (turing), and the
    // reproducer (the requests the controllers accepted, shrunk) replays open loop: it fails
    // with the mutant and passes without.
    mutant_is_reproduced(
        "warped-mc",
        "turing-rtx2060s",
        "gpu:lonewarp",
        30_000,
        "pending-counter-wraps",
        "",
    );
}

/// DRAM energy (decision MEM-28) in `golden --block mc` and `run`: the channels add up to the
/// total, and FCFS, whose row conflicts each cost an activate and a precharge, spends more of
/// it on them per column command than FR-FCFS on the same traffic.
#[test]
fn dram_energy_is_reported_and_row_misses_cost_activations() {
    let part = |v: &Value, k: &str| v["energy"]["total"][k].as_f64().unwrap();
    let t = "turing-rtx2060s";
    let fr = summary(t, "hoa@3", "frfcfs", "30000");
    let fcfs = summary(t, "hoa@3", "fcfs", "30000");
    for v in [&fr, &fcfs] {
        let e = &v["energy"];
        let channels: f64 = e["per_channel_nj"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .sum();
        let total = e["total_nj"].as_f64().unwrap();
        assert_eq!(e["per_channel_nj"].as_array().unwrap().len(), 16, "{e:#}");
        assert!((channels - total).abs() < 1e-6 * total, "{e:#}");
        assert!(part(v, "read_pj") > 0.0 && e["power_mw"].as_f64().unwrap() > 0.0);
    }
    // One activate on the RTX 2060 Super's GDDR6: (71 - 61) mA · 50 cycles · 1.35 V / 3.5 GHz.
    for v in [&fr, &fcfs] {
        let per_act = part(v, "activate_pj") / v["activations"].as_f64().unwrap();
        assert!((per_act - 192.857_142_857).abs() < 1e-6, "{per_act}");
    }
    let per_column =
        |v: &Value| (part(v, "activate_pj") + part(v, "precharge_pj")) / part(v, "read_pj");
    let hits = |v: &Value| v["row_hit_rate"].as_f64().unwrap();
    assert!(
        hits(&fcfs) < hits(&fr) && per_column(&fcfs) > per_column(&fr),
        "{} vs {}",
        per_column(&fcfs),
        per_column(&fr)
    );
    let run = json(&[
        "run", "--preset", "tiny", "--kernel", "matmul3d", "--format", "json",
    ]);
    let e = &run["dram"]["energy"];
    assert_eq!(e["per_channel_nj"].as_array().unwrap().len(), 2, "{e:#}");
    assert!(e["total"]["read_pj"].as_f64().unwrap() > 0.0, "{e:#}");
}
