//! Validation equals what the models need: every configuration the spec accepts with a key at
//! either bound of its legal range runs through every golden model without a panic, and the
//! memory system completes its requests.

use golden::block::CycleModel;
use golden::mc::open_loop::OpenLoop;
use golden::mc::stimulus;
use golden::ot::{OtModel, Packer};
use spec::schema::Legal;
use spec::{ConfigRequest, Spec, UserConfig};

/// Run each golden model briefly on `spec`.
fn exercise(name: &str, spec: &Spec) {
    // The memory system under every scheduler: stress traffic to completion.
    for sched in spec::Scheduler::NAMES {
        let spec = spec.variant(&[&format!("mc.scheduler={sched}")]).unwrap();
        let reqs = stimulus::stress(&spec, 300, 5);
        let n = reqs.len();
        let mut sys = OpenLoop::new(&spec, reqs.into_iter(), None);
        sys.run(u64::MAX, None, &mut |_, _| {})
            .unwrap_or_else(|e| panic!("{name}, {sched}: {e}"));
        assert!(
            sys.finished(),
            "{name}, {sched}: {n} requests did not complete"
        );
    }
    // The OT predictor: random transactions.
    let mut ot = OtModel::new(&spec.ot);
    for c in Packer::new(golden::ot::random::RandomOt::new(spec, 5)).take(500) {
        let inp = c
            .input(spec.gpu.warp_size)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        ot.step(&inp).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    // The MT-HWP engine: its random closed loop (past a few periods on short ones).
    let mut pf = golden::prefetch::MtHwp::new(&spec.prefetch);
    let mut traffic = golden::prefetch::Traffic::new(&spec.prefetch, spec.gpu.warps_per_sm, 5);
    for _ in 0..2000 {
        let inp = traffic.next(pf.out());
        pf.step(&inp).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    // The dispatch simulation of a small kernel (every policy's code path runs on locality).
    let k = golden::dispatch::kernel("colmajor").unwrap();
    if let Ok(rects) = golden::dispatch::access_ranges(&k, spec.gpu.line_bytes) {
        let times = golden::dispatch::BlockTimes::Model { base: 50, seed: 1 };
        let _ = golden::dispatch::dispatch(
            &k,
            &rects,
            &spec.dispatch,
            spec.dispatch.policy,
            &times,
            spec.gpu.line_bytes,
        );
    }
}

#[test]
fn every_accepted_configuration_at_a_key_bound_runs() {
    let (mut ran, mut refused, mut ints) = (0, 0, 0);
    for k in UserConfig::keys() {
        let (Legal::Range { min, max } | Legal::Pow2 { min, max }) = k.legal else {
            continue;
        };
        ints += 1;
        for v in [min, max] {
            // The first preset on which no rule between keys refuses the bound.
            let accepted = spec::PRESETS.iter().find_map(|p| {
                match ConfigRequest::preset(p.name)
                    .with(&format!("{}={v}", k.key))
                    .resolve()
                {
                    Ok(spec) => Some(spec),
                    Err(spec::SpecError::Inconsistent { .. }) => None,
                    Err(e) => panic!("{} + {} = {v}: {e}", p.name, k.key),
                }
            });
            match accepted {
                Some(spec) => {
                    exercise(&format!("{} + {} = {v}", spec.name, k.key), &spec);
                    ran += 1;
                }
                None => {
                    eprintln!("refused on every preset: {} = {v}", k.key);
                    refused += 1;
                }
            }
        }
    }
    eprintln!("{ran} configurations ran, {refused} refused by a rule between keys on every preset");
    assert_eq!(ran + refused, 2 * ints);
    // The rest set a key beyond what a rule lets the presets' other keys allow (ways above
    // entries, a drain threshold above the queue, ...).
    assert!(ran >= 100, "{ran} of {}", 2 * ints);
}

/// Every DRAM standard on every preset runs every golden model: `dram.standard` has no bounds,
/// but it changes the channel (HBM2's row and column command buses, decision MEM-25).
#[test]
fn every_dram_standard_runs_on_every_preset() {
    for p in spec::PRESETS {
        for standard in spec::DramStandard::NAMES {
            let spec = ConfigRequest::preset(p.name)
                .with(&format!("dram.standard={standard}"))
                .resolve()
                .unwrap_or_else(|e| panic!("{} + dram.standard = {standard}: {e}", p.name));
            exercise(&format!("{} + dram.standard = {standard}", p.name), &spec);
        }
    }
}
