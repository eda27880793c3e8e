//! Long regressions (WARPSMITH_LONG=1): 1,000,000 cycles of random and of kernel-derived
//! stimulus on every preset with zero mismatches (OT), and of stress and HOA traffic (Warped-MC).

mod common;
use common::*;
use serde_json::Value;

#[test]
fn a_million_cycles_per_preset_and_stimulus() {
    if !long() {
        eprintln!("skipped: set WARPSMITH_LONG=1");
        return;
    }
    for p in spec::PRESETS {
        for stim in ["random", "kernel:all"] {
            let o = warpsmith(&[
                "cosim",
                "--block",
                "ot",
                "--preset",
                p.name,
                "--stimulus",
                stim,
                "--cycles",
                "1000000",
                "--seed",
                "11",
                "--format",
                "json",
            ]);
            let r: Value =
                serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("{}", stderr(&o)));
            assert_eq!(r["result"], "pass", "{} {stim}: {r:#}", p.name);
            assert_eq!(r["stats"]["cycles"], 1_000_000);
            eprintln!(
                "{} {stim}: {} cycles, {:.0} cycles/s, PCOV {:.3}, PACC {:.3}",
                p.name,
                r["stats"]["cycles"],
                r["cycles_per_second"].as_f64().unwrap(),
                r["stats"]["pcov"].as_f64().unwrap(),
                r["stats"]["pacc"].as_f64().unwrap()
            );
        }
    }
}

#[test]
fn a_million_warped_mc_cycles_per_preset() {
    if !long() {
        eprintln!("skipped: set WARPSMITH_LONG=1");
        return;
    }
    for p in spec::PRESETS {
        for stim in ["random", "hoa"] {
            let o = warpsmith(&[
                "cosim",
                "--block",
                "warped-mc",
                "--preset",
                p.name,
                "--stimulus",
                stim,
                "--cycles",
                "1000000",
                "--format",
                "json",
            ]);
            let r: Value =
                serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("{}", stderr(&o)));
            assert_eq!(r["result"], "pass", "{} {stim}: {r:#}", p.name);
            assert_eq!(r["cycles"], 1_000_000);
            eprintln!(
                "{} {stim}: {} requests, {:.0} cycles/s",
                p.name,
                r["requests"],
                r["cycles_per_second"].as_f64().unwrap()
            );
        }
    }
}
