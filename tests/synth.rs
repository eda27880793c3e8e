//! Yosys synthesis (slang front-end) of every preset and edge configuration: no warnings, no
//! latches, no unmapped memories, and a flip-flop count exactly equal to the cost model's
//! estimate (stated margin: zero bits). The fermi-gtx480 preset and the largest edge table take
//! minutes each and run with WARPSMITH_LONG=1.

mod common;
use common::*;
use sim::registry::BlockEntry;
use sim::tools::{synth, Yosys};

const LONG_ONLY: &[&str] = &["fermi-gtx480", "tiny+largest-table"];

#[test]
fn synthesis_matches_the_cost_model_bit_for_bit() {
    let y = Yosys::find().expect("Yosys with slang (run scripts/setup.sh)");
    let mut problems = Vec::new();
    for (name, spec) in all_configs() {
        if LONG_ONLY.contains(&name.as_str()) && !long() {
            eprintln!("skipping {name} (set WARPSMITH_LONG=1)");
            continue;
        }
        let g = sim::ot::ENTRY.generate(&spec, "").unwrap();
        let files: Vec<(String, String)> = g
            .files
            .iter()
            .map(|f| (f.name.clone(), f.contents.clone()))
            .collect();
        let r = match synth(&y, &files, &g.top) {
            Ok(r) => r,
            Err(e) => {
                problems.push(format!("{name}: {e}"));
                continue;
            }
        };
        let estimate = golden::cost::ot_cost(&spec).flip_flop_bits;
        eprintln!(
            "{name}: {} flip-flops (estimate {estimate}), {} cells, {:.0} s",
            r.flip_flops, r.cells, r.seconds
        );
        if r.flip_flops != estimate {
            problems.push(format!(
                "{name}: {} flip-flops synthesized, {estimate} estimated (log {})",
                r.flip_flops, r.log
            ));
        }
        if r.latches != 0 || r.memory_bits != 0 || !r.warnings.is_empty() {
            problems.push(format!(
                "{name}: {} latches, {} memory bits, warnings {:?}",
                r.latches, r.memory_bits, r.warnings
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Presets whose Warped-MC and dispatcher synthesis takes minutes (run with WARPSMITH_LONG=1).
const WMC_LONG_ONLY: &[&str] = &["fermi-gtx480", "turing-rtx2060s"];

#[test]
fn warped_mc_synthesis_matches_the_cost_model_bit_for_bit() {
    synth_presets(&sim::wmc::ENTRY);
}

#[test]
fn dispatch_synthesis_matches_the_cost_model_bit_for_bit() {
    synth_presets(&sim::dispatch::ENTRY);
}

/// Synthesize `block` for every preset (the large ones with WARPSMITH_LONG=1).
fn synth_presets(block: &BlockEntry) {
    let y = Yosys::find().expect("Yosys with slang (run scripts/setup.sh)");
    let mut problems = Vec::new();
    for p in spec::PRESETS {
        if WMC_LONG_ONLY.contains(&p.name) && !long() {
            eprintln!("skipping {} (set WARPSMITH_LONG=1)", p.name);
            continue;
        }
        let spec = spec(p.name, &[]);
        let g = block.generate(&spec, "").unwrap();
        let files: Vec<(String, String)> = g
            .files
            .iter()
            .map(|f| (f.name.clone(), f.contents.clone()))
            .collect();
        let r = synth(&y, &files, &g.top).unwrap();
        let estimate = (block.cost)(&spec).flip_flop_bits;
        eprintln!(
            "{block} {}: {} flip-flops (estimate {estimate}), {} cells, {:.0} s",
            p.name, r.flip_flops, r.cells, r.seconds
        );
        if r.flip_flops != estimate
            || r.latches != 0
            || r.memory_bits != 0
            || !r.warnings.is_empty()
        {
            problems.push(format!(
                "{}: {} flip-flops (estimate {estimate}), {} latches, {} memory bits, \
                 warnings {:?}",
                p.name, r.flip_flops, r.latches, r.memory_bits, r.warnings
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
