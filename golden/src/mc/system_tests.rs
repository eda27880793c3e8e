//! Memory-system tests: skipping quiet cycles changes nothing, the independent checker accepts
//! every scheduler's command stream, and the schedulers behave as seed 004 describes.

use super::*;
use crate::mc::checker;
use crate::mc::open_loop::OpenLoop;
use crate::mc::stimulus::{self, LoadClass};
use crate::mc::timing::ChannelTiming;
use proptest::prelude::*;
use spec::ConfigRequest;

/// A read of SM 0, warp 0 arriving at `cycle`.
fn read_at(cycle: u64, addr: u64) -> stimulus::Request {
    stimulus::Request {
        cycle,
        sm: 0,
        warp: 0,
        pc: 0,
        addr,
        write: false,
        load: 0,
        prefetch: false,
    }
}

/// Every registered scheduler (test-only ones too): the tests that take `SCHEDULERS` run each.
const SCHEDULERS: &[&str] = crate::mc::sched::NAMES;

/// `preset` with `extra` and, if `scheduler` is one of the spec's, `mc.scheduler` (a test-only
/// scheduler is not: [`run`] builds its system with it).
fn spec(preset: &str, scheduler: &str, extra: &[&str]) -> Spec {
    let mut req = ConfigRequest::preset(preset);
    if spec::Scheduler::NAMES.contains(&scheduler) {
        req = req.with(&format!("mc.scheduler={scheduler}"));
    }
    for kv in extra {
        req = req.with(kv);
    }
    req.resolve().unwrap()
}

/// Completions, command trace and summary of one run under the registered scheduler `sched`.
fn run(
    spec: &Spec,
    sched: &str,
    reqs: Vec<Request>,
    skip: bool,
    watch: Option<usize>,
) -> (Vec<u64>, Vec<TraceCmd>, u64) {
    let mut done = vec![u64::MAX; reqs.len()];
    let mut sys = OpenLoop::new(spec, reqs.into_iter(), None);
    *sys.system_mut() = MemSystem::with_scheduler(spec, sched).expect("registered");
    sys.system_mut().record_commands();
    sys.system_mut().set_skip_quiet(skip);
    let mut steps = 0u64;
    let mut f = |_: GroupCycle| -> Result<(), String> {
        steps += 1;
        Ok(())
    };
    let mut each = |c: &Completion, _: &Request| done[c.tag as usize] = c.done;
    match watch {
        Some(g) => sys.run(2_000_000, Some((g, &mut f)), &mut each).unwrap(),
        None => sys.run(2_000_000, None, &mut each).unwrap(),
    }
    assert!(sys.finished(), "run did not finish");
    if watch.is_some() && sys.system().runs_blocks() {
        assert_eq!(steps, sys.now(), "the watched group is seen every cycle");
    }
    (done, sys.system().commands().to_vec(), sys.now())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Quiet-cycle skipping (controllers that cannot issue, Warped-MC blocks with nothing to
    /// do) gives exactly the completions and command stream of stepping everything every
    /// cycle, with and without a watched group.
    #[test]
    fn skipping_quiet_cycles_changes_nothing(
        preset in prop::sample::select(vec![
            "tiny",
            "tiny-1",
            "tiny-local",
            "fermi-gtx480",
            "turing-rtx2060s",
            "tiny-hbm2",
        ]),
        sched in prop::sample::select(SCHEDULERS.to_vec()),
        class in prop::sample::select(vec![LoadClass::Loa, LoadClass::Moa, LoadClass::Hoa]),
        intensity in 0.2f64..1.5,
        seed in any::<u64>(),
        stress in any::<bool>(),
        demand_first in any::<bool>(),
    ) {
        // tiny-1: one block per controller, both counted by each block's WET copy (absorbed
        // events); tiny-local: one block and one WET per controller.
        // Demand-first scheduling of a mix of demand requests and prefetches (checked against
        // the reference scan of every request each cycle, as the picks always are in tests).
        let df = format!("prefetch.demand_first={demand_first}");
        let s = match preset {
            "tiny-1" => spec("tiny", sched, &["warped_mc.controllers_per_wet=1", &df]),
            "tiny-local" => spec(
                "tiny",
                sched,
                &["warped_mc.controllers_per_wet=1", "warped_mc.wet_scope=1", &df],
            ),
            // Two command buses: the controllers' second pick of a cycle (decision MEM-25).
            "tiny-hbm2" => spec("tiny", sched, &["dram.standard=hbm2", &df]),
            p => spec(p, sched, &[&df]),
        };
        let mut reqs = if stress {
            stimulus::stress(&s, 600, seed)
        } else {
            stimulus::warp_loads(&s, class, 150, intensity, seed)
        };
        if demand_first {
            mark_prefetches(&mut reqs, seed);
        }
        let full = run(&s, sched, reqs.clone(), false, None);
        let skipped = run(&s, sched, reqs.clone(), true, None);
        prop_assert_eq!(&full.0, &skipped.0, "completions differ");
        prop_assert_eq!(&full.1, &skipped.1, "command traces differ");
        prop_assert_eq!(full.2, skipped.2);
        let groups = s.dram.channels / s.wmc.controllers_per_wet;
        let watched = run(&s, sched, reqs, true, Some((seed % u64::from(groups)) as usize));
        prop_assert_eq!(&full.0, &watched.0, "completions differ with a watched group");
        prop_assert_eq!(&full.1, &watched.1, "command traces differ with a watched group");
    }
}

/// Every scheduler the spec names is registered ([`MemSystem::new`] finds it).
#[test]
fn every_spec_scheduler_is_registered() {
    for s in spec::Scheduler::ALL {
        assert!(
            SCHEDULERS.contains(&s.name()),
            "{} is not registered",
            s.name()
        );
    }
}

/// Every scheduler's command stream passes the independent checker, refresh included.
#[test]
fn every_scheduler_passes_the_independent_checker() {
    for preset in ["fermi-gtx480", "turing-rtx2060s"] {
        for &sched in SCHEDULERS {
            let s = spec(preset, sched, &[]);
            let reqs = stimulus::stress(&s, 3000, 7);
            let (_, trace, _) = run(&s, sched, reqs, true, None);
            let timing = ChannelTiming::of(&s.dram);
            let refs = trace.iter().filter(|c| c.kind == CmdKind::Ref).count();
            assert!(
                refs > 0,
                "{preset} {sched}: the stress stimulus covers refresh"
            );
            let v = checker::check(&trace, &timing);
            assert!(v.is_empty(), "{preset} {sched}: {:?}", v.first());
        }
    }
}

/// On the V100's HBM2 and the TITAN X Pascal's GDDR5X (docs/dram-timing.md), every
/// scheduler's command stream passes the independent checker, refresh included. On HBM2 the
/// schedulers that may pick twice a cycle put a row and a column command in one cycle, the
/// Warped-MC block's one selection a cycle never does (decision MEM-25); GDDR5X never does.
#[test]
fn hbm2_and_gddr5x_streams_pass_the_independent_checker() {
    let hbm2 = crate::mc::timing::hbm2_v100_spec();
    let gddr5x = crate::mc::timing::gddr5x_titanx_spec();
    for base in [&hbm2, &gddr5x] {
        let timing = ChannelTiming::of(&base.dram);
        for &sched in SCHEDULERS {
            let s = match spec::Scheduler::NAMES.contains(&sched) {
                true => base.variant(&[&format!("mc.scheduler={sched}")]).unwrap(),
                false => base.clone(),
            };
            let reqs = stimulus::stress(&s, 3000, 7);
            let (_, trace, _) = run(&s, sched, reqs, true, None);
            let name = format!("{} {sched}", s.dram.standard.name());
            assert!(
                trace.iter().any(|c| c.kind == CmdKind::Ref),
                "{name}: the stress stimulus covers refresh"
            );
            let v = checker::check(&trace, &timing);
            assert!(v.is_empty(), "{name}: {:?}", v.first());
            let shared = trace
                .windows(2)
                .filter(|w| w[0].cycle == w[1].cycle && w[0].channel == w[1].channel)
                .count();
            let dual = timing.dual_bus && !matches!(sched, "warped" | "divfirst");
            assert_eq!(shared > 0, dual, "{name}: {shared} shared cycles");
        }
    }
}

#[test]
fn idle_time_is_skipped_and_changes_nothing() {
    // A request arriving at a huge cycle: the run jumps over the idle time (refreshes keep
    // their cycles) instead of stepping it, and the request is served as if the channel had
    // been idle all along: the same latency as the same request after a shorter idle time
    // that is a whole number of refresh intervals shorter.
    for refresh in [false, true] {
        let s = ConfigRequest::preset("tiny")
            .with(&format!("dram.refresh={refresh}"))
            .resolve()
            .unwrap();
        let at = |cycle| read_at(cycle, 0x1000);
        let far = 1_000_000_000_000_000u64;
        let mut a = OpenLoop::new(&s, vec![at(100), at(far)].into_iter(), None);
        let t = std::time::Instant::now();
        let mut done = [u64::MAX; 2];
        a.run(u64::MAX, None, &mut |c, _| done[c.tag as usize] = c.done)
            .unwrap();
        assert!(
            t.elapsed().as_secs() < 10,
            "refresh {refresh}: idle time was stepped"
        );
        assert!(a.finished());
        let lat = done[1] - far;
        assert!(lat > 0 && lat < 1000, "refresh {refresh}: latency {lat}");
    }
}

#[test]
fn a_lost_request_stops_the_run_as_stalled() {
    // A deliberately broken system: the first request vanishes from its controller's queue
    // after it was enqueued. The run must stop with `Stalled` within two stall windows of the
    // last completion (the second request's), not hang or claim to have finished.
    for refresh in [false, true] {
        let s = ConfigRequest::preset("tiny")
            .with("mc.scheduler=fcfs")
            .with(&format!("dram.refresh={refresh}"))
            .resolve()
            .unwrap();
        let mut sys = OpenLoop::new(
            &s,
            vec![read_at(10, 0x1000), read_at(5_000, 0x2000)].into_iter(),
            None,
        );
        let mut done = [u64::MAX; 2];
        while sys.system().ctl.ctrls.iter().all(|c| c.pending() == 0) {
            sys.run(sys.now() + 1, None, &mut |c, _| {
                done[c.tag as usize] = c.done
            })
            .unwrap();
        }
        for c in &mut sys.system_mut().ctl.ctrls {
            c.queue[0].clear();
            c.queue[1].clear();
            c.keys.clear();
        }
        let window = sys.system().ctl.stall_window;
        match sys.run(u64::MAX, None, &mut |c, _| done[c.tag as usize] = c.done) {
            Err(McError::Stalled {
                pending,
                since,
                now,
            }) => {
                assert_eq!(pending, 1, "refresh {refresh}");
                let last = done[1];
                assert!(
                    last < 10_000 && since >= last,
                    "refresh {refresh}: {last} {since}"
                );
                assert!(
                    now - since > window && now - last <= 2 * window + 1,
                    "refresh {refresh}: since {since}, now {now}, window {window}"
                );
            }
            other => panic!("refresh {refresh}: {other:?}"),
        }
    }
}

#[test]
fn a_full_wait_list_refuses_and_a_refused_request_is_taken_later() {
    // Wait list of 1 per channel: a second request to the same channel in one cycle is
    // refused and nothing of it is kept; offered again later it is accepted and completes.
    let s = ConfigRequest::preset("tiny")
        .with("mc.scheduler=fcfs")
        .resolve()
        .unwrap();
    let r = |addr| read_at(0, addr);
    let mut sys = MemSystem::new(&s);
    sys.set_wait_limit(1);
    assert_eq!(sys.offer(r(0x1000), 0).unwrap(), Offer::Accepted);
    assert_eq!(sys.offer(r(0x1000), 1).unwrap(), Offer::Refused);
    assert_eq!(sys.outstanding(), 1);
    sys.cycle().unwrap();
    assert_eq!(sys.offer(r(0x1000), 1).unwrap(), Offer::Accepted);
    let mut done = Vec::new();
    for _ in 0..10_000 {
        sys.cycle().unwrap();
        done.extend(sys.take_completions().map(|c| c.tag));
    }
    assert_eq!(done, [0, 1]);
    assert_eq!(sys.outstanding(), 0);
}

/// Mark about a third of `reqs` as prefetches (seeded).
fn mark_prefetches(reqs: &mut [Request], seed: u64) {
    let mut rng = crate::rng::Rng::new(seed ^ 0x5eed);
    for r in reqs.iter_mut().filter(|r| !r.write) {
        r.prefetch = rng.below(3) == 0;
    }
}

/// Addresses of three different rows of one bank of address 0's channel.
fn same_bank_three_rows(s: &Spec) -> [u64; 3] {
    let map = &s.dram.map;
    let d0 = map.decode(0);
    let step = u64::from(s.dram.atom_bytes);
    let mut rows = vec![(0u64, d0.row)];
    for x in (1..1u64 << 24).map(|k| k * step) {
        let d = map.decode(x);
        if d.channel == d0.channel && d.bank == d0.bank && rows.iter().all(|r| r.1 != d.row) {
            rows.push((x, d.row));
            if rows.len() == 3 {
                break;
            }
        }
    }
    assert_eq!(rows.len(), 3, "three rows of one bank");
    [rows[0].0, rows[1].0, rows[2].0]
}

/// The tags of a run's requests in completion order; with `wrong`, the scheduler is built
/// without demand-first scheduling whatever the spec says (a scheduler that ignores the
/// classes).
fn completion_order(s: &Spec, reqs: Vec<Request>, wrong: bool) -> Vec<u64> {
    let mut sys = MemSystem::new(s);
    if wrong {
        sys.demand_first = false;
    }
    let mut order = Vec::new();
    let mut next = reqs.into_iter().enumerate().peekable();
    for _ in 0..100_000 {
        while let Some((i, r)) = next.next_if(|(_, r)| r.cycle <= sys.now()) {
            assert_eq!(sys.offer(r, i as u64).unwrap(), Offer::Accepted);
        }
        sys.cycle().unwrap();
        order.extend(sys.take_completions().map(|c| c.tag));
        if next.peek().is_none() && sys.outstanding() == 0 {
            break;
        }
    }
    order
}

/// Seed 001 Table II: demand requests have priority over prefetches in the DRAM controllers.
/// A demand read opens row C of a bank; while it is served, a prefetch to row A and then a
/// demand read to row B of the same bank arrive. With demand-first scheduling the younger
/// demand read is served (its row opened) before the older prefetch under FCFS, FR-FCFS and
/// Div-First; without it, and in a scheduler that ignores the classes (the deliberately wrong
/// variant), the older prefetch is.
#[test]
fn demand_first_serves_a_younger_demand_read_before_an_older_prefetch() {
    for sched in ["fcfs", "frfcfs", "divfirst"] {
        for df in [false, true] {
            let s = spec("tiny", sched, &[&format!("prefetch.demand_first={df}")]);
            let [c, a, b] = same_bank_three_rows(&s);
            let reqs = vec![
                read_at(0, c),
                Request {
                    prefetch: true,
                    warp: 1,
                    ..read_at(1, a)
                },
                Request {
                    warp: 2,
                    ..read_at(2, b)
                },
            ];
            let want: Vec<u64> = if df { vec![0, 2, 1] } else { vec![0, 1, 2] };
            assert_eq!(
                completion_order(&s, reqs.clone(), false),
                want,
                "{sched}, demand_first={df}"
            );
            if df {
                assert_eq!(
                    completion_order(&s, reqs, true),
                    [0, 1, 2],
                    "{sched}: the wrong variant is told apart"
                );
            }
        }
    }
}

/// Under load (the stress stimulus, a third of its reads prefetches), demand-first scheduling
/// lowers the demand reads' mean latency below the prefetches', and below what it is without
/// it; every command stream passes the independent checker.
#[test]
fn demand_first_lowers_the_demand_latency_under_load() {
    for sched in ["fcfs", "frfcfs", "divfirst"] {
        let mut mean = Vec::new();
        for df in [false, true] {
            let s = spec(
                "turing-rtx2060s",
                sched,
                &[&format!("prefetch.demand_first={df}")],
            );
            let mut reqs = stimulus::stress(&s, 4000, 11);
            mark_prefetches(&mut reqs, 11);
            let mut lat = [(0u64, 0u64); 2];
            let mut sys = OpenLoop::new(&s, reqs.into_iter(), None);
            sys.system_mut().record_commands();
            sys.run(10_000_000, None, &mut |c, r| {
                if !r.write {
                    let l = &mut lat[usize::from(r.prefetch)];
                    l.0 += c.done - r.cycle;
                    l.1 += 1;
                }
            })
            .unwrap();
            assert!(sys.finished(), "{sched}");
            let v = checker::check(sys.system().commands(), &ChannelTiming::of(&s.dram));
            assert!(v.is_empty(), "{sched} df={df}: {:?}", v.first());
            let [d, p] = lat.map(|(sum, n)| sum as f64 / n.max(1) as f64);
            mean.push((d, p));
        }
        let [(d0, _), (d1, p1)] = [mean[0], mean[1]];
        assert!(
            d1 < p1,
            "{sched}: demand {d1:.0} vs prefetch {p1:.0} cycles"
        );
        assert!(
            d1 < d0,
            "{sched}: demand {d1:.0} with priority vs {d0:.0} without"
        );
    }
}

/// The run summary splits the latency by class once the stimulus has prefetches (and only
/// then): under demand-first FR-FCFS, the demand reads' mean is below the prefetches'.
#[test]
fn the_summary_splits_latency_by_class_when_there_are_prefetches() {
    let s = spec("turing-rtx2060s", "frfcfs", &[]);
    assert!(s.prefetch.demand_first, "the preset's default (Table II)");
    let plain = stimulus::stress(&s, 2000, 5);
    let mut sys = OpenLoop::new(&s, plain.clone().into_iter(), None);
    sys.run(10_000_000, None, &mut |_, _| {}).unwrap();
    let m = sys.summary();
    assert!(m.demand_latency.is_none() && m.prefetch_latency.is_none());
    let mut mixed = plain;
    mark_prefetches(&mut mixed, 5);
    let mut sys = OpenLoop::new(&s, mixed.into_iter(), None);
    sys.run(10_000_000, None, &mut |_, _| {}).unwrap();
    let m = sys.summary();
    let (d, p) = (m.demand_latency.unwrap(), m.prefetch_latency.unwrap());
    assert!(d.mean < p.mean, "{d:?} {p:?}");
}
