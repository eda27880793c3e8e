//! Long regressions (`#[ignore]`d; README, "Long regressions"): 1,000,000 cycles of every
//! block's `flow` stimuli on every preset, with zero mismatches.

mod common;
use common::*;
use serde_json::Value;

#[test]
#[ignore = "an hour on 2 cores: cargo test --profile release-tests --test long -- --ignored"]
fn a_million_cycles_per_block_preset_and_stimulus() {
    for block in sim::blocks::BLOCKS {
        for p in spec::PRESETS {
            for stim in block.flow {
                let o = warpsmith(&[
                    "cosim",
                    "--block",
                    block.name,
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
                assert_eq!(r["verdict"], "pass", "{block} {} {stim}: {r:#}", p.name);
                assert_eq!(r["cycles"], 1_000_000);
                eprintln!(
                    "{block} {} {stim}: {:.0} cycles/s: {}",
                    p.name,
                    r["timing"]["cycles_per_second"].as_f64().unwrap(),
                    r["stats"]
                );
            }
        }
    }
}
