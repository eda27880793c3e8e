//! Prefetching: every registered prefetcher changes timing only; the stride prefetchers help.

use super::*;

/// A run of `kernel` on `preset` with the prefetcher `name` (`none`, or a registered one) and
/// `sets`, bounds checked.
fn prefetch_run(
    preset: &str,
    kernel: &str,
    name: &'static str,
    sets: &[&str],
    opts: &mut RunOptions,
) -> RunSummary {
    let k = crate::dispatch::kernel(kernel).unwrap();
    let mut all: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    if spec::PrefetchKind::from_name(name).is_some() {
        all.insert(0, format!("prefetch.kind={name}"));
    }
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    let s = ConfigRequest::preset(preset)
        .resolve()
        .unwrap()
        .variant(&all)
        .unwrap();
    opts.check_bounds = true;
    let w = Workload::Kernel {
        kernel: &k,
        seed: 1,
    };
    crate::gpu::prefetch::with_prefetcher(name, || run_with(&s, w, opts).unwrap())
}

/// Runs of `kernel` on `preset` with `sets`: without a prefetcher, then with every registered
/// prefetcher (test-only ones included), by name.
fn prefetch_runs(preset: &str, kernel: &str, sets: &[&str]) -> Vec<(&'static str, RunSummary)> {
    std::iter::once("none")
        .chain(crate::gpu::prefetch::NAMES.iter().copied())
        .map(|name| {
            let r = prefetch_run(preset, kernel, name, sets, &mut RunOptions::default());
            (name, r)
        })
        .collect()
}

/// The run with prefetcher `name` of [`prefetch_runs`].
fn run_of<'a>(runs: &'a [(&str, RunSummary)], name: &str) -> &'a RunSummary {
    &runs.iter().find(|(n, _)| *n == name).unwrap().1
}

/// Prefetching changes when loads are answered, never what runs: every instruction issues
/// once, every request is answered once, with or without a prefetcher, throttled or not.
#[test]
fn a_prefetcher_changes_timing_only() {
    for p in ["tiny", "turing-rtx2060s"] {
        for sets in [
            &["prefetch.throttle=true"][..],
            &["prefetch.throttle=false"],
            &["prefetch.into_l1=true", "prefetch.demand_first=true"],
        ] {
            let runs = prefetch_runs(p, "pfstream", sets);
            let none = run_of(&runs, "none");
            assert!(none.prefetch.is_none());
            for (name, r) in &runs {
                assert_eq!(r.instructions, none.instructions, "{p} {name}");
                assert_eq!(
                    r.requests, r.replies,
                    "{p} {name}: every request answered once"
                );
                // A second run is identical.
                let again = prefetch_run(p, "pfstream", name, sets, &mut RunOptions::default());
                assert_eq!(r, &again, "{p} {name}");
                if *name == "none" {
                    continue;
                }
                let f = r.prefetch.as_ref().unwrap();
                // Every issued prefetch was sent and came back (nothing left in flight).
                assert!(f.useful + f.late <= f.issued, "{p} {name}: {f:?}");
                assert!(f.hits + f.late <= f.demand, "{p} {name}: {f:?}");
                assert_eq!(
                    f.trained + f.train_dropped,
                    8192,
                    "{p} {name}: one per warp load"
                );
            }
        }
    }
}

/// Both stride prefetchers of `runs` ([`prefetch_runs`]) prefetch accurately, cover a good
/// part of the demand and make the kernel faster than without prefetching.
fn prefetching_helps(runs: &[(&str, RunSummary)]) {
    let none = run_of(runs, "none");
    for kind in ["stridepc", "mt-hwp"] {
        let r = run_of(runs, kind);
        let f = r.prefetch.as_ref().unwrap();
        assert!(
            f.accuracy() > 0.8 && f.coverage() > 0.3,
            "{kind}: accuracy {:.3} coverage {:.3}",
            f.accuracy(),
            f.coverage()
        );
        assert!(r.ipc > none.ipc, "{kind}: IPC {} vs {}", r.ipc, none.ipc);
    }
}

/// On a strided stream without throttling, both prefetchers predict, prefetch accurately, cover
/// a good part of the demand and make the kernel faster; the check catches a prefetcher whose
/// prefetches are off by one line (a deliberately wrong distance: accuracy collapses).
#[test]
fn stride_prefetching_helps_a_strided_stream() {
    let runs = prefetch_runs("turing-rtx2060s", "pfstream", &["prefetch.throttle=false"]);
    prefetching_helps(&runs);
    let mt = run_of(&runs, "mt-hwp").prefetch.as_ref().unwrap();
    let pc = run_of(&runs, "stridepc").prefetch.as_ref().unwrap();
    assert!(mt.predictions > pc.predictions / 2);
    // Wrong distance: 15 strides (7.5 KiB) ahead is mostly past each block's 8 KiB chunk.
    let wrong = prefetch_run(
        "turing-rtx2060s",
        "pfstream",
        "mt-hwp",
        &["prefetch.throttle=false", "prefetch.distance=15"],
        &mut RunOptions::default(),
    );
    let f = wrong.prefetch.as_ref().unwrap();
    assert!(f.accuracy() < mt.accuracy(), "{:.3}", f.accuracy());
}

/// Prefetching into the L1 (`prefetch.into_l1`): prefetched lines fill the L1, so on a strided
/// stream the L1 hits more often than without prefetching, and the prefetches are accurate,
/// cover a good part of the demand and make the kernel faster. The prefetch cache is not used.
#[test]
fn prefetching_into_the_l1_fills_the_l1() {
    let runs = prefetch_runs(
        "turing-rtx2060s",
        "pfstream",
        &["prefetch.throttle=false", "prefetch.into_l1=true"],
    );
    prefetching_helps(&runs);
    let none = run_of(&runs, "none");
    for kind in ["stridepc", "mt-hwp"] {
        let r = run_of(&runs, kind);
        let f = r.prefetch.as_ref().unwrap();
        assert!(
            r.l1.hits > none.l1.hits + f.useful / 2,
            "{kind}: L1 hits {} vs {} without prefetching ({} useful)",
            r.l1.hits,
            none.l1.hits,
            f.useful
        );
    }
}

/// Prefetches reach the DRAM controllers as prefetches (what demand-first scheduling needs):
/// with a prefetcher some DRAM requests are marked, at most a line's parts per prefetch
/// issued; without one none are.
#[test]
fn prefetches_reach_the_dram_marked() {
    let mut o = RunOptions {
        log_offers: true,
        ..RunOptions::default()
    };
    let r = prefetch_run(
        "tiny",
        "pfstream",
        "mt-hwp",
        &["prefetch.throttle=false"],
        &mut o,
    );
    let marked = o.offers.iter().filter(|r| r.prefetch).count() as u64;
    let f = r.prefetch.as_ref().unwrap();
    // tiny: 128 B lines over a sector L2, four DRAM-atom requests per 32 B sector at most.
    assert!(
        marked > 0 && marked <= f.issued * 4 * 4,
        "{marked} of {}",
        f.issued
    );
    let mut o = RunOptions {
        log_offers: true,
        ..RunOptions::default()
    };
    prefetch_run("tiny", "pfstream", "none", &[], &mut o);
    assert!(o.offers.iter().all(|r| !r.prefetch));
}

/// A probe on SM 0's engine sees every cycle the engine steps, the workload launched again and
/// again until the probe's budget (here three times one run's cycles), and a probe's error
/// stops the run with it.
#[test]
fn a_probe_on_a_prefetch_engine_sees_its_budget_of_cycles_and_can_stop_the_run() {
    let s = preset("tiny").variant(&["prefetch.kind=mt-hwp"]).unwrap();
    let k = crate::dispatch::kernel("pfstream").unwrap();
    let w = Workload::Kernel {
        kernel: &k,
        seed: 1,
    };
    let once = run_with(&s, w, &mut RunOptions::default()).unwrap();
    let budget = 3 * once.cycles;
    let mut seen = 0u64;
    let mut probe = |_: &crate::prefetch::PfIn, _: &crate::prefetch::PfOut| {
        seen += 1;
        Ok(())
    };
    let mut o = RunOptions {
        prefetch: Some(PfWatch {
            sm: 0,
            probe: &mut probe,
            cycles: budget,
        }),
        ..RunOptions::default()
    };
    run_with(&s, w, &mut o).unwrap();
    assert_eq!(seen, budget);
    let mut probe =
        |_: &crate::prefetch::PfIn, _: &crate::prefetch::PfOut| Err("a mismatch".to_string());
    let mut o = RunOptions {
        prefetch: Some(PfWatch {
            sm: 0,
            probe: &mut probe,
            cycles: budget,
        }),
        ..RunOptions::default()
    };
    let e = run_with(&s, w, &mut o).unwrap_err();
    assert!(
        matches!(&e, GpuError::PrefetchHook(m) if m == "a mismatch"),
        "{e}"
    );
}
