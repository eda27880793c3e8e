//! Yosys synthesis (slang front-end) of every block of the registry: no warnings, no latches,
//! no unmapped memories, and a flip-flop count exactly equal to the cost model's estimate
//! (stated margin: zero bits), on `tiny`, the Turing preset's OT and every edge configuration.
//! The large configurations take minutes to hours each and are `#[ignore]`d (README,
//! "Long regressions").

mod common;
use common::*;
use sim::blocks::BLOCKS;
use sim::registry::BlockEntry;
use sim::tools::{synth, Yosys};
use spec::Spec;

/// Configurations (block, configuration name) whose synthesis takes minutes or more.
const LARGE: &[(&str, &str)] = &[
    ("ot", "fermi-gtx480"),
    ("ot", "tiny+largest-table"),
    ("warped-mc", "fermi-gtx480"),
    ("warped-mc", "turing-rtx2060s"),
    ("dispatch", "fermi-gtx480"),
    ("dispatch", "turing-rtx2060s"),
];

/// Synthesize every (block, configuration) that `keep` selects; report every difference.
fn synth_all(keep: impl Fn(&BlockEntry, &str) -> bool) {
    let y = Yosys::find().expect("Yosys with slang (run scripts/setup.sh)");
    let mut problems = Vec::new();
    let mut done = 0;
    let configs: Vec<(String, Spec)> = all_configs();
    for block in BLOCKS {
        for (name, spec) in &configs {
            if !keep(block, name) {
                continue;
            }
            let g = block.generate(spec, "").unwrap();
            let r = match synth(&y, &g.rtl(), &g.top) {
                Ok(r) => r,
                Err(e) => {
                    problems.push(format!("{block} {name}: {e}"));
                    continue;
                }
            };
            let estimate = (block.cost)(spec).flip_flop_bits;
            eprintln!(
                "{block} {name}: {} flip-flops (estimate {estimate}), {} cells, {:.0} s",
                r.flip_flops, r.cells, r.seconds
            );
            if r.flip_flops != estimate
                || r.latches != 0
                || r.memory_bits != 0
                || !r.warnings.is_empty()
            {
                problems.push(format!(
                    "{block} {name}: {} flip-flops (estimate {estimate}), {} latches, {} memory \
                        bits, warnings {:?} (log {})",
                    r.flip_flops, r.latches, r.memory_bits, r.warnings, r.log
                ));
            }
            done += 1;
        }
    }
    assert!(done > 0, "nothing was synthesized");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn large(block: &BlockEntry, name: &str) -> bool {
    LARGE.contains(&(block.name, name))
}

#[test]
fn synthesis_matches_the_cost_model_bit_for_bit() {
    // Presets other than tiny only where they are small; every edge configuration once per
    // block whose parameters it changes (the others give tiny's RTL, synthesized already).
    synth_all(|block, name| {
        if large(block, name) {
            return false;
        }
        let Some(edge) = name.strip_prefix("tiny+") else {
            return true;
        };
        let base = spec("tiny", &[]);
        let sets = EDGE_MATRIX.iter().find(|(n, _)| *n == edge).unwrap().1;
        let s = spec("tiny", sets);
        // Same interface (every parameter and derived width), same RTL but for the header.
        (block.interface)(&s) != (block.interface)(&base)
    });
}

#[test]
#[ignore = "hours on 2 cores: cargo test --profile release-tests --test synth -- --ignored"]
fn synthesis_of_the_large_configurations_matches_the_cost_model() {
    synth_all(large);
}
