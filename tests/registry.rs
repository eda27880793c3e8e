//! Every block of the registry: on every preset its generated RTL is lint-clean and a short
//! co-simulation of each of its `flow` stimuli passes (and checked something); on `tiny`
//! every mutant applies and is caught. A block added to the registry is covered here without
//! editing this file. (The OT and Warped-MC mutants run on every preset in their own tests.)

mod common;
use common::*;
use sim::blocks::BLOCKS;
use sim::harness::CosimOptions;
use sim::report::Verdict;
use sim::toolchain::Verilator;

#[test]
fn every_block_generates_lints_cosimulates_and_catches_its_mutants() {
    let v = Verilator::find().expect("Verilator >= 5.006 (run scripts/setup.sh)");
    assert!(BLOCKS.len() >= 3);
    for block in BLOCKS {
        let mutants = block.mutants().unwrap();
        assert!(!mutants.is_empty(), "{block} has no mutants");
        assert!(!block.flow.is_empty(), "{block} has no flow stimuli");
        for p in spec::PRESETS {
            let spec = spec(p.name, &[]);
            let g = block.generate(&spec, "").unwrap();
            let l = sim::tools::lint(&v, &g.rtl(), &g.top).unwrap();
            assert!(l.clean, "{block} {}: {}", p.name, l.messages);
            for stim in block.flow {
                let r = block
                    .cosim(&spec, &CosimOptions::quiet(stim, Some(20_000), 3))
                    .unwrap_or_else(|e| panic!("{block} {} {stim}: {e}", p.name));
                assert_eq!(
                    r.verdict,
                    Verdict::Pass,
                    "{block} {} {stim}: {r:#?}",
                    p.name
                );
                assert_eq!(r.cycles, 20_000, "{block} {} {stim}", p.name);
            }
            // Every mutant applies (its pattern occurs once) on every preset.
            for m in mutants {
                let files = sim::rtl::block_rtl(&spec, block, Some(m));
                assert!(files.is_ok(), "{block} {}: {:?}", p.name, files.err());
            }
            if p.name != "tiny" {
                continue;
            }
            // Unless it is equivalent on this configuration, some flow stimulus catches it.
            for m in mutants {
                let mut caught = false;
                let mut equivalent = false;
                for stim in block.flow {
                    let r = block
                        .run_mutant(&spec, m, &CosimOptions::quiet(stim, None, 1))
                        .unwrap();
                    equivalent |= r.equivalent.is_some();
                    if r.caught {
                        caught = true;
                        break;
                    }
                }
                assert!(
                    caught || equivalent,
                    "{block} {}: mutant {} was not caught by {:?}",
                    p.name,
                    m.name,
                    block.flow
                );
            }
        }
    }
}
