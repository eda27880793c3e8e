//! The MT-HWP prefetch engine's RTL under Verilator (seed 001): co-simulation standalone and in
//! place in the GPU on every preset, its mutants on every preset, a mutant's reproducer, bad
//! input, and its cost beside Table VI.

mod common;
use common::*;

const PRESETS: [&str; 3] = ["tiny", "turing-rtx2060s", "fermi-gtx480"];

#[test]
fn the_engine_cosimulates_standalone_and_in_the_gpu_on_every_preset() {
    for p in PRESETS {
        let r = cosim_passes("mt-hwp", p, "random", 200_000);
        let s = &r["stats"];
        for what in ["gs", "ip", "pws", "promotions", "dropped", "prefetches"] {
            assert!(s[what].as_u64().unwrap() > 0, "{p}: no {what}: {s:#}");
        }
        // (200,000 cycles are 100 of tiny's periods, 2 of the others'.)
        let degrees = s["degree_cycles"].as_array().unwrap();
        let visited = degrees.iter().filter(|c| c.as_u64() > Some(0)).count();
        assert!(
            visited >= if p == "tiny" { 5 } else { 2 },
            "{p}: the throttle visits few degrees: {degrees:?}"
        );
        // In place, with and without the throttle (which on this stream soon stops prefetching).
        cosim_passes("mt-hwp", p, "gpu:pfstream", 50_000);
        let n = "150000";
        let mut args = block_run("cosim", "mt-hwp", p, "gpu:pfstream", n);
        args.extend(["--set", "prefetch.throttle=false"]);
        let r = json_ok(&args);
        assert_eq!(r["verdict"], "pass", "{p}: {r:#}");
        let s = &r["stats"];
        assert!(s["prefetches"].as_u64().unwrap() > 0, "{p}: {s:#}");
    }
}

#[test]
fn every_mutant_is_caught_on_every_preset() {
    for p in PRESETS {
        let r = mutants_report("mt-hwp", p, "random", 1_000_000, &[]);
        let results = r["mutants"].as_array().unwrap();
        assert!(results.len() >= 8, "{r:#}");
        for m in results {
            assert_eq!(m["caught"], true, "{p}: {m:#}");
        }
    }
}

#[test]
fn a_caught_mutant_leaves_a_reproducer_that_fails_only_with_it() {
    let r = mutant_is_reproduced(
        "mt-hwp",
        "tiny",
        "random",
        100_000,
        "ip-wins-double-hit",
        "",
    );
    assert_eq!(r["failure"]["port"], "pf_src_o", "{r:#}");
}

#[test]
fn cost_prints_table_vi() {
    let r = json_ok(&[
        "cost",
        "--block",
        "mt-hwp",
        "--preset",
        "turing-rtx2060s",
        "--format",
        "json",
    ]);
    let c = &r;
    assert_eq!(c["storage_bits"], 32 * 93 + 8 * 52 + 8 * 133, "{c:#}");
    assert_eq!(c["storage_bytes"], 557.0);
    let cmp = &c["comparison"];
    assert_eq!(cmp["paper_bytes_per_unit"], 557.0);
    for row in cmp["rows"].as_array().unwrap() {
        assert_eq!(row["ours_bits"], row["paper_bits"], "{row:#}");
    }
    let text = stdout(&warpsmith(&[
        "cost",
        "--block",
        "mt-hwp",
        "--preset",
        "turing-rtx2060s",
    ]));
    for line in [
        "per-warp stride (PWS) table: 32 entries x 93 bits",
        "global stride (GS) table: 8 entries x 52 bits",
        "inter-thread prefetching (IP) table: 8 entries x 133 bits",
        "table storage: 4456 bits = 557.0 B",
    ] {
        assert!(text.contains(line), "{line}\n{text}");
    }
}

#[test]
fn bad_stimulus_and_settings_are_exit_2_with_the_reason() {
    let dir = scratch("mthwp-bad");
    let f = dir.join("bad.jsonl");
    for (lines, says) in [
        // Line 2 lacks the access's warp id and address.
        (
            "{\"acc\":{\"pc\":1,\"wid\":0,\"addr\":64}}\n{\"acc\":{\"pc\":1}}\n",
            "bad.jsonl:2",
        ),
        // An access in a launch cycle: the golden model refuses it, naming the line.
        (
            "{\"launch\":true,\"acc\":{\"pc\":1,\"wid\":0,\"addr\":64}}\n",
            "launch",
        ),
    ] {
        std::fs::write(&f, lines).unwrap();
        exits_2_saying(
            &tiny("cosim", &["--stimulus", f.to_str().unwrap()], &[]),
            says,
        );
    }
    for (sets, says) in [
        (
            &[
                "prefetch.demand_first=true",
                "prefetch.kind=mt-hwp",
                "mc.scheduler=warped",
            ][..],
            "mc.scheduler",
        ),
        (&["prefetch.addr_bits=16"][..], "prefetch.stride_bits"),
        (&["prefetch.wid_bits=2"][..], "gpu.warps_per_sm"),
    ] {
        exits_2_saying(&tiny("cost", &[], sets), says);
    }
    exits_2_saying(
        &tiny(
            "cosim",
            &["--stimulus", "gpu:pfstream"],
            &["prefetch.kind=none"],
        ),
        "prefetch.kind = none",
    );
    exits_2_saying(
        &tiny(
            "cosim",
            &["--stimulus", "gpu:pfstream"],
            &["prefetch.kind=stream"],
        ),
        "prefetch.kind = stream",
    );
    exits_2_saying(
        &tiny(
            "cosim",
            &["--stimulus", "gpu:pfstream"],
            &["prefetch.kind=ghb"],
        ),
        "prefetch.kind = ghb",
    );
}

/// `warpsmith CMD --block mt-hwp --preset tiny`, then `extra`, then `--set S` for each of `sets`.
fn tiny<'a>(cmd: &'a str, extra: &[&'a str], sets: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![cmd, "--block", "mt-hwp", "--preset", "tiny"];
    args.extend(extra);
    for set in sets {
        args.extend(["--set", set]);
    }
    args
}

/// The generate branches the presets do not take: StridePC (no GS or IP table), no throttle,
/// several prefetches per trigger with a one-bit merge ratio and the farthest distance, a stride
/// as wide as an address. Each lints clean and co-simulates.
#[test]
fn every_generate_branch_lints_and_cosimulates() {
    let v = sim::toolchain::Verilator::find().expect("Verilator >= 5.006 (run scripts/setup.sh)");
    let block = sim::blocks::find("mt-hwp").unwrap();
    for sets in [
        &["prefetch.kind=stridepc"][..],
        &["prefetch.throttle=false"],
        &["prefetch.kind=stridepc", "prefetch.throttle=false"],
        &[
            "prefetch.degree=4",
            "prefetch.merge_frac_bits=1",
            "prefetch.distance=15",
        ],
        &["prefetch.addr_bits=20", "prefetch.stride_bits=20"],
    ] {
        let s = spec("tiny", sets);
        let g = block.generate(&s, "").unwrap();
        let l = sim::tools::lint(&v, &g.rtl(), &g.top).unwrap();
        assert!(l.clean, "{sets:?}: {}", l.messages);
        let mut args = block_run("cosim", "mt-hwp", "tiny", "random", "100000");
        for x in sets {
            args.extend(["--set", x]);
        }
        let r = json_ok(&args);
        assert_eq!(r["verdict"], "pass", "{sets:?}: {r:#}");
        assert!(
            r["stats"]["prefetches"].as_u64().unwrap() > 0,
            "{sets:?}: {r:#}"
        );
    }
}
