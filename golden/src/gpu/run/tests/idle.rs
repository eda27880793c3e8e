//! Jumping over idle time and SMs sleeping give the figures of stepping every edge.

use super::*;

/// A run of the trace in `dir` on `s`, jumping over idle time or stepping every clock edge and
/// every SM's every cycle: its figures, or its error (under a bound of 3,000,000 core cycles, and
/// bounds checks every cycle).
fn jumped_or_stepped(s: &Spec, dir: &Path, step: bool) -> Result<RunSummary, String> {
    let mut o = RunOptions {
        check_bounds: true,
        step_every_cycle: step,
        max_cycles: Some(3_000_000),
        ..RunOptions::default()
    };
    run_with(s, Workload::Trace(dir), &mut o).map_err(|e| e.to_string())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(32))]

    /// Jumping over idle time (and SMs sleeping until their next work) gives exactly the
    /// figures of stepping every edge of every clock and every SM's every cycle (every
    /// per-cycle count: kernel and DRAM cycles, refreshes and bandwidth, stalled
    /// input-cycles and refused offers, reservation failures, full-queue counts), on random
    /// kernels and far-address traces, with long and short stage latencies, small partition
    /// queues (which keep requests retrying), loads through the L1 and around it (held at the
    /// port), every DRAM scheduler and both arbiters, clocks
    /// of one and of different frequencies (a prime one too: no period table), refresh on and
    /// off; and runs that reach their cycle bound stop at the same cycle.
    #[test]
    fn jumping_over_idle_time_is_stepping_every_edge(
        seed in 0u64..1 << 32,
        blocks in 1u32..5,
        warps in 1u32..4,
        far in proptest::bool::ANY,
        preset_pick in 0usize..3,
        dram_latency in proptest::sample::select(vec![0u32, 100, 3_000, 20_000]),
        rop_latency in proptest::sample::select(vec![0u32, 120, 2_000, 9_000]),
        l1_latency in proptest::sample::select(vec![1u32, 30, 700]),
        sched in 0usize..4,
        queue in 1u32..4,
        icnt_khz in proptest::sample::select(vec![700_000u32, 1_000_000, 999_983, 2_500_000]),
        l2_khz in proptest::sample::select(vec![700_000u32, 1_365_000, 1_000_000]),
        refresh in proptest::bool::ANY,
        islip in proptest::bool::ANY,
        skip_l1 in proptest::bool::ANY,
    ) {
        let s = ConfigRequest::preset(spec::PRESETS[preset_pick].name)
            .with(&format!("l2.dram_latency={dram_latency}"))
            .with(&format!("l2.rop_latency={rop_latency}"))
            .with(&format!("gpu.l1_latency={l1_latency}"))
            .with(&format!("mc.scheduler={}", spec::Scheduler::ALL[sched].name()))
            .with(&format!("l2.icnt_to_l2={queue}"))
            .with(&format!("l2.l2_to_icnt={queue}"))
            .with(&format!("l2.dram_to_l2={queue}"))
            .with(&format!("clocks.icnt_khz={icnt_khz}"))
            .with(&format!("clocks.l2_khz={l2_khz}"))
            .with(&format!("dram.refresh={refresh}"))
            .with(&format!("icnt.arbiter={}", if islip { "islip" } else { "rr" }))
            .with(&format!("gpu.skip_l1={skip_l1}"))
            .resolve()
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        if far {
            far_trace(dir.path(), seed, blocks);
        } else {
            random_kernel(dir.path(), seed, blocks, warps);
        }
        let jumped = jumped_or_stepped(&s, dir.path(), false);
        let stepped = jumped_or_stepped(&s, dir.path(), true);
        proptest::prop_assert_eq!(jumped, stepped);
    }
}

/// Four one-warp blocks (one per SM) each loading 128 lines (four loads of 32 lines, then their
/// sum) on tiny with a long DRAM latency, without refresh: while the fetches wait, requests
/// retry at every level (the L1's MSHRs, the SMs' ports, the request network, the L2's MSHRs),
/// cycle after cycle, and the DRAM is idle.
fn waiting_run(step: bool, scheduler: &str) -> RunSummary {
    let s = ConfigRequest::preset("tiny")
        .with("l2.dram_latency=20000")
        .with("dram.refresh=false")
        .with(&format!("mc.scheduler={scheduler}"))
        .resolve()
        .unwrap();
    let body = |b: u64| {
        let mut body: Vec<String> = (0..4u64)
            .map(|i| {
                let base = 0x10_0000 + b * 0x10_0000 + i * 0x1000;
                format!(
                    "{:04x} ffffffff 1 R{} LDG.E.SYS 1 R2 4 1 {base:#x} 128 0",
                    16 * i,
                    4 + i
                )
            })
            .collect();
        body.push("0040 ffffffff 1 R8 IADD3 2 R4 R7 0 0".into());
        body
    };
    let dir = tempfile::tempdir().unwrap();
    blocks_trace(dir.path(), &(0..4).map(body).collect::<Vec<_>>());
    let mut o = RunOptions {
        step_every_cycle: step,
        ..RunOptions::default()
    };
    run_with(&s, Workload::Trace(dir.path()), &mut o).unwrap()
}

#[test]
fn a_wrong_jump_over_idle_time_is_caught() {
    // (Warped-MC: a busy controller never skips a cycle, so every jump is over idle DRAM
    // cycles, and the memory system's own check of a jump's end does not fire first.)
    let stepped = waiting_run(true, "warped");
    // The right jump: the same figures, and the retries were counted.
    assert_eq!(waiting_run(false, "warped"), stepped);
    assert!(
        stepped.request_net.refused > 10_000
            && stepped.l1.reservation_failures.len() == 2
            && stepped.l2.reservation_failures.len() == 1,
        "{stepped:?}"
    );
    // A jump one core cycle too far.
    crate::clock::LAX_JUMP.with(|l| l.set(true));
    let far = waiting_run(false, "warped");
    crate::clock::LAX_JUMP.with(|l| l.set(false));
    assert_ne!(far.cycles, stepped.cycles);
    // An SM that sleeps at a full port without counting its refused offers.
    crate::gpu::sm::LAX_SETTLE.with(|l| l.set(true));
    let uncounted = waiting_run(false, "warped");
    crate::gpu::sm::LAX_SETTLE.with(|l| l.set(false));
    assert_eq!(uncounted.cycles, stepped.cycles);
    assert!(uncounted.request_net.refused < stepped.request_net.refused);
}
