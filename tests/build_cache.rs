//! The caches behind every Verilator build, in a cache folder of their own: a model is keyed by
//! its RTL less the header lines naming the configuration, so a configuration change that leaves
//! a block alone keeps the block's build; a mutant's build takes the objects of the units it does
//! not change from the object cache, and is still the mutant (co-simulation catches it).

mod common;
use common::*;
use sim::blocks::BLOCKS;
use sim::harness::CosimOptions;
use sim::rtl::block_model;

#[test]
fn a_build_is_reused_across_configurations_and_a_mutant_reuses_its_unchanged_units() {
    // The only test of this binary, so no other test sees the variable.
    std::env::set_var("WARPSMITH_CACHE_DIR", scratch("build-cache"));
    let tiny = spec("tiny", &[]);
    let ot = BLOCKS
        .iter()
        .find(|b| b.name == "ot")
        .expect("the OT block");
    let (original, _) = block_model(&tiny, ot, None, false).expect("tiny's OT builds");
    assert!(original.built_now);
    assert_eq!(
        original.units_reused, 0,
        "an empty cache has nothing to reuse"
    );

    // A change to another block's keys: the same build, although the headers differ.
    let other = spec("tiny", &["dispatch.queue_entries=8"]);
    assert_ne!(other.hash, tiny.hash);
    let (same, _) = block_model(&other, ot, None, false).expect("builds");
    assert!(!same.built_now, "a dispatch key rebuilt the OT");
    assert_eq!(same.key, original.key);
    // A change to the block's own keys is another build (the wrong variant of the above).
    let (wider, _) = block_model(&spec("tiny", &["ot.ways=2"]), ot, None, false).expect("builds");
    assert!(wider.built_now);
    assert_ne!(wider.key, original.key);

    // A mutant: a new build that reuses most of the original's objects ...
    let m = ot
        .mutants()
        .expect("the OT catalogue")
        .iter()
        .find(|m| m.equivalent_when.is_none())
        .expect("an OT mutant that is never equivalent");
    let (mutant, _) = block_model(&tiny, ot, Some(m), false).expect("the mutant builds");
    assert!(mutant.built_now);
    assert_ne!(mutant.key, original.key);
    assert!(
        mutant.units_reused >= 3,
        "mutant {} reused {} units",
        m.name,
        mutant.units_reused
    );
    // ... and whose changed unit was compiled anew: co-simulation tells it from the golden model.
    let r = ot
        .run_mutant(&tiny, m, &CosimOptions::quiet("random", None, 1))
        .expect("the mutant runs");
    assert!(r.caught, "mutant {} was not caught: {r:?}", m.name);
}
