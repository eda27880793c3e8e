//! Memory-system tests: skipping quiet cycles changes nothing, the independent checker accepts
//! every scheduler's command stream, and the schedulers behave as seed 004 describes.

use super::*;
use crate::mc::checker;
use crate::mc::open_loop::OpenLoop;
use crate::mc::stimulus::{self, LoadClass};
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
    }
}

fn spec(preset: &str, scheduler: &str, extra: &[&str]) -> Spec {
    let mut req = ConfigRequest::preset(preset).with(&format!("mc.scheduler={scheduler}"));
    for kv in extra {
        req = req.with(kv);
    }
    req.resolve().unwrap()
}

/// Completions, command trace and summary of one run.
fn run(
    spec: &Spec,
    reqs: Vec<Request>,
    skip: bool,
    watch: Option<usize>,
) -> (Vec<u64>, Vec<TraceCmd>, u64) {
    let mut done = vec![u64::MAX; reqs.len()];
    let mut sys = OpenLoop::new(spec, reqs.into_iter(), None);
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
    if watch.is_some() && matches!(spec.mc.scheduler, Scheduler::Warped | Scheduler::Divfirst) {
        assert_eq!(steps, sys.now(), "the watched group is seen every cycle");
    }
    (done, sys.system().commands().to_vec(), sys.now())
}

const SCHEDULERS: [&str; 4] = ["fcfs", "frfcfs", "warped", "divfirst"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Quiet-cycle skipping (controllers that cannot issue, Warped-MC blocks with nothing to
    /// do) gives exactly the completions and command stream of stepping everything every
    /// cycle, with and without a watched group.
    #[test]
    fn skipping_quiet_cycles_changes_nothing(
        preset in prop::sample::select(vec!["tiny", "tiny-1", "tiny-local", "fermi-gtx480", "turing-rtx2060s"]),
        sched in prop::sample::select(SCHEDULERS.to_vec()),
        class in prop::sample::select(vec![LoadClass::Loa, LoadClass::Moa, LoadClass::Hoa]),
        intensity in 0.2f64..1.5,
        seed in any::<u64>(),
        stress in any::<bool>(),
    ) {
        // tiny-1: one block per controller, both counted by each block's WET copy (absorbed
        // events); tiny-local: one block and one WET per controller.
        let s = match preset {
            "tiny-1" => spec("tiny", sched, &["warped_mc.controllers_per_wet=1"]),
            "tiny-local" => spec(
                "tiny",
                sched,
                &["warped_mc.controllers_per_wet=1", "warped_mc.wet_scope=1"],
            ),
            p => spec(p, sched, &[]),
        };
        let reqs = if stress {
            stimulus::stress(&s, 600, seed)
        } else {
            stimulus::warp_loads(&s, class, 150, intensity, seed)
        };
        let full = run(&s, reqs.clone(), false, None);
        let skipped = run(&s, reqs.clone(), true, None);
        prop_assert_eq!(&full.0, &skipped.0, "completions differ");
        prop_assert_eq!(&full.1, &skipped.1, "command traces differ");
        prop_assert_eq!(full.2, skipped.2);
        let groups = s.dram.channels / s.wmc.controllers_per_wet;
        let watched = run(&s, reqs, true, Some((seed % u64::from(groups)) as usize));
        prop_assert_eq!(&full.0, &watched.0, "completions differ with a watched group");
        prop_assert_eq!(&full.1, &watched.1, "command traces differ with a watched group");
    }
}

/// Every scheduler's command stream passes the independent checker, refresh included.
#[test]
fn every_scheduler_passes_the_independent_checker() {
    for preset in ["fermi-gtx480", "turing-rtx2060s"] {
        for sched in SCHEDULERS {
            let s = spec(preset, sched, &[]);
            let reqs = stimulus::stress(&s, 3000, 7);
            let (_, trace, _) = run(&s, reqs, true, None);
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
        while sys.system().ctrls.iter().all(|c| c.pending() == 0) {
            sys.run(sys.now() + 1, None, &mut |c, _| {
                done[c.tag as usize] = c.done
            })
            .unwrap();
        }
        for c in &mut sys.system_mut().ctrls {
            c.queue[0].clear();
            c.queue[1].clear();
        }
        let window = sys.system().stall_window;
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
    sys.tick(None).unwrap();
    assert_eq!(sys.offer(r(0x1000), 1).unwrap(), Offer::Accepted);
    let mut done = Vec::new();
    for _ in 0..10_000 {
        sys.tick(None).unwrap();
        done.extend(sys.take_completions().map(|c| c.tag));
    }
    assert_eq!(done, [0, 1]);
    assert_eq!(sys.outstanding(), 0);
}
