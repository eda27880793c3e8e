//! Dispatch under every policy, occupancy, and the OT predictor in place.

use super::*;

/// A random affine kernel: a 2-D grid, `loads` loads of one array (some in the loop), and
/// `compute` arithmetic instructions per group of loads.
fn affine_kernel(
    grid: [u32; 2],
    block: [u32; 2],
    loads: usize,
    trips: u32,
    compute: u32,
) -> KernelDesc {
    use crate::workload::{Affine, ArrayDesc, LoadDesc};
    let index = Affine {
        bx: i64::from(block[0]),
        by: i64::from(grid[0] * block[0]) * i64::from(block[1]),
        tx: 1,
        ty: i64::from(grid[0] * block[0]),
        ..Affine::default()
    };
    KernelDesc {
        name: "affine".into(),
        grid: [grid[0], grid[1], 1],
        block: [block[0], block[1], 1],
        loop_trips: trips,
        compute,
        arrays: vec![ArrayDesc {
            name: "a".into(),
            base: 0x10_0000,
            elem_bytes: 4,
            row_pitch: 0,
            len: 0,
        }],
        loads: (0..loads)
            .map(|i| LoadDesc {
                pc: 0x100 + 8 * i as u64,
                array: "a".into(),
                index: Affine {
                    c: 32 * i as i64,
                    it: if i % 2 == 1 { 8 } else { 0 },
                    ..index
                },
                in_loop: i % 2 == 1,
                irregular: false,
            })
            .collect(),
    }
}

/// Warp instructions of a generated kernel, counted from its description alone: per warp,
/// every load instance, `compute` per group (the group before the loop if it has loads, and
/// every iteration if the loop has loads), and the EXIT.
fn generated_instructions(k: &KernelDesc) -> u64 {
    let before = k.loads.iter().filter(|l| !l.in_loop).count() as u64;
    let inside = k.loads.len() as u64 - before;
    let trips = u64::from(k.loop_trips);
    let groups = u64::from(before > 0) + if inside > 0 { trips } else { 0 };
    let per_warp = before + inside * trips + u64::from(k.compute) * groups + 1;
    let warps = u64::from(k.warps_per_block(32));
    per_warp * warps * k.num_blocks()
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// Random kernels under every dispatch policy and every registered warp scheduler (those
    /// that read warps' access ranges included) on random presets: every block is dispatched
    /// and runs exactly once (its warps' instructions, counted from the description, all issue
    /// once), and a second run is identical.
    #[test]
    fn every_block_runs_once_under_every_dispatch_policy(
        grid in (1u32..7, 1u32..7),
        block in (1u32..40, 1u32..3),
        loads in 1usize..4,
        trips in 1u32..3,
        compute in 0u32..4,
        preset_pick in 0usize..3,
        policy in 0usize..spec::DispatchPolicy::ALL.len(),
        scheduler in 0usize..crate::gpu::sched::NAMES.len(),
    ) {
        crate::gpu::sched::with_policy(crate::gpu::sched::NAMES[scheduler], || {
            every_block_runs_once(grid, block, loads, trips, compute, preset_pick, policy)
        })?;
    }
}

/// The body of [`every_block_runs_once_under_every_dispatch_policy`].
fn every_block_runs_once(
    grid: (u32, u32),
    block: (u32, u32),
    loads: usize,
    trips: u32,
    compute: u32,
    preset_pick: usize,
    policy: usize,
) -> Result<(), proptest::test_runner::TestCaseError> {
    {
        let policy = spec::DispatchPolicy::ALL[policy];
        let s = ConfigRequest::preset(spec::PRESETS[preset_pick].name)
            .with(&format!("dispatch.policy={}", policy.name()))
            .resolve()
            .unwrap();
        let k = affine_kernel([grid.0, grid.1], [block.0, block.1], loads, trips, compute);
        let w = Workload::Kernel {
            kernel: &k,
            seed: 1,
        };
        // (No L1 queue or MSHR ever over its size: checked every cycle.)
        let mut o = RunOptions {
            check_bounds: true,
            ..RunOptions::default()
        };
        let a = run_with(&s, w, &mut o).unwrap();
        proptest::prop_assert_eq!(a.kernels[0].blocks, k.num_blocks());
        proptest::prop_assert_eq!(a.instructions, generated_instructions(&k));
        proptest::prop_assert!(a.requests > 0);
        proptest::prop_assert_eq!(a.requests, a.replies);
        let b = run(&s, w, None).unwrap();
        proptest::prop_assert_eq!(a, b);
    }
    Ok(())
}

/// The OT predictor in place sees one query per global load a warp issues (counted from the
/// kernel's description), observes only lines sent to the memory partitions, and reports its
/// coverage and accuracy.
#[test]
fn the_ot_predictor_in_place_sees_every_load_once() {
    for p in spec::PRESETS.iter().map(|p| p.name) {
        let s = preset(p);
        for name in ["stencil2d", "scalarprod", "matmul3d"] {
            let k = crate::dispatch::kernel(name).unwrap();
            let r = run(
                &s,
                Workload::Kernel {
                    kernel: &k,
                    seed: 1,
                },
                None,
            )
            .unwrap();
            let loads = k.warp_program().len();
            let warps = u64::from(k.warps_per_block(32)) * k.num_blocks();
            let o = &r.ot;
            assert_eq!(o.queries, loads * warps, "{p} {name}");
            assert!(o.refused.is_none(), "{p} {name}: {:?}", o.refused);
            // Observations are the lines of L1 misses and sector misses, each at most once.
            assert!(
                o.observations > 0 && o.observations <= r.l1.misses + r.l1.sector_misses,
                "{p} {name}: {o:?}"
            );
            assert!(o.hits <= o.queries && o.correct <= o.resolved && o.resolved <= o.hits);
            // (On tiny matmul3d has no hits, as with its kernel stimulus: golden --block ot
            // --preset tiny --stimulus kernel:matmul3d.)
            if p != "tiny" {
                assert!(o.pcov > 0.0 && o.pacc > 0.9, "{p} {name}: {o:?}");
            }
        }
    }
}

/// Every address predictor watches the same stream and changes no timing; each is scored
/// by the same counts, per load as in total. On scalarprod's iterated loads the OT with its
/// LEC covers more than without (seed 000 Fig. 10's direction), and the CTA-aware baseline
/// predicts.
#[test]
fn every_address_predictor_is_scored_on_the_same_stream() {
    let s = preset("turing-rtx2060s");
    let w = Workload::Suite {
        spec: "scalarprod",
        seed: 1,
    };
    let runs: Vec<RunSummary> = [
        "predictor.kind=ot",
        "predictor.kind=cta-aware",
        "ot.lec=false",
    ]
    .iter()
    .map(|v| run(&s.variant(&[v]).unwrap(), w, None).unwrap())
    .collect();
    for r in &runs {
        let o = &r.ot;
        assert_eq!(r.kernels, runs[0].kernels);
        assert_eq!(
            (o.queries, o.observations),
            (runs[0].ot.queries, runs[0].ot.observations)
        );
        let sum = |f: fn(&crate::ot::LoadFigures) -> u64| o.per_load.iter().map(f).sum::<u64>();
        assert_eq!(
            [
                sum(|l| l.queries),
                sum(|l| l.hits),
                sum(|l| l.resolved),
                sum(|l| l.correct)
            ],
            [o.queries, o.hits, o.resolved, o.correct]
        );
        assert!(o.per_load.windows(2).all(|w| w[0].pc < w[1].pc) && !o.per_load.is_empty());
    }
    let [ot, cta, no_lec] = [&runs[0].ot, &runs[1].ot, &runs[2].ot];
    assert!(ot.pcov > no_lec.pcov + 0.2, "{ot:?} {no_lec:?}");
    assert!(cta.hits > 0 && cta.correct > 0, "{cta:?}");
}

/// The address predictor's stream of one run of `w`: its launch, queries and observations.
/// (A run that keeps them relaunches the workload until it has kept as many as asked.)
fn predictor_stream(s: &Spec, w: Workload<'_>) -> Vec<crate::ot::OtTxn> {
    let once = run(s, w, None).unwrap().ot;
    let mut o = RunOptions {
        keep_ot: Some(usize::try_from(1 + once.queries + once.observations).unwrap()),
        ..RunOptions::default()
    };
    run_with(s, w, &mut o).unwrap();
    o.ot_txns
}

/// Under the `cta-aware` scheduler each block's leading warp runs each load before the
/// block's other warps (what gives the CTA-aware predictor its bases); under greedy then
/// oldest, the rule it changes (as under lrr and two-level), some block's other warp runs one
/// first.
#[test]
fn the_cta_aware_scheduler_runs_each_blocks_leading_warp_first() {
    let w = Workload::Suite {
        spec: "scalarprod",
        seed: 1,
    };
    let leads = |scheduler: &str| {
        let s = preset("tiny")
            .variant(&[&format!("gpu.scheduler={scheduler}")])
            .unwrap();
        // Per (block, load PC), whether warp 0 queried it first.
        let mut first = std::collections::HashMap::new();
        for t in &predictor_stream(&s, w) {
            if let crate::ot::OtTxn::Predict { pc, tb, warp, .. } = t {
                first.entry((tb.clone(), *pc)).or_insert(*warp == 0);
            }
        }
        first.values().all(|&lead| lead)
    };
    assert!(leads("cta-aware"));
    assert!(!leads("gto"));
}

/// The programmable scheduler with a group of one block's warps runs an SM's blocks one after
/// another, oldest first: on one SM, each block's loads form one unbroken run of the load
/// stream. Greedy then oldest with the same blocks (no group) interleaves them.
#[test]
fn the_programmable_scheduler_runs_its_group_alone() {
    let k = crate::dispatch::kernel("scalarprod").unwrap();
    let w = Workload::Kernel {
        kernel: &k,
        seed: 1,
    };
    let group = format!("gpu.priority_warps={}", k.warps_per_block(32));
    let runs_alone = |scheduler: &str| {
        let s = preset("tiny")
            .variant(&["gpu.sms=1", &group, &format!("gpu.scheduler={scheduler}")])
            .unwrap();
        let mut order: Vec<crate::ot::Tb> = Vec::new();
        for t in &predictor_stream(&s, w) {
            if let crate::ot::OtTxn::Predict { tb, .. } = t {
                if order.last() != Some(tb) {
                    order.push(tb.clone());
                }
            }
        }
        let mut blocks = order.clone();
        blocks.sort();
        blocks.dedup();
        assert_eq!(
            u64::try_from(blocks.len()).unwrap(),
            k.num_blocks(),
            "{scheduler}"
        );
        blocks.len() == order.len()
    };
    assert!(runs_alone("programmable"));
    assert!(!runs_alone("gto"));
}

/// A kernel of `blocks` one-warp blocks, each a load and a chain that reads it, declaring
/// `nregs` registers a thread and `shmem` bytes of shared memory, on one SM of `preset_name`.
fn occupancy_run(preset_name: &str, blocks: u32, nregs: u32, shmem: u32) -> RunSummary {
    let body: Vec<String> = std::iter::once(load1(0, 4, 0x1_0000))
        .chain(chain(16, 4, 20))
        .collect();
    one_sm_run(preset_name, &vec![body; blocks as usize], nregs, shmem).unwrap()
}

/// `blocks` (one warp each) declaring `nregs` and `shmem`, on one SM, with the bounds check.
fn one_sm_run(
    preset_name: &str,
    blocks: &[Vec<String>],
    nregs: u32,
    shmem: u32,
) -> Result<RunSummary, GpuError> {
    let dir = tempfile::tempdir().unwrap();
    blocks_trace(dir.path(), blocks);
    let path = dir.path().join("kernel-1.traceg");
    let t = std::fs::read_to_string(&path).unwrap().replacen(
        "-block dim = (32,1,1)\n",
        &format!("-block dim = (32,1,1)\n-shmem = {shmem}\n-nregs = {nregs}\n"),
        1,
    );
    std::fs::write(&path, t).unwrap();
    let s = ConfigRequest::preset(preset_name)
        .with("gpu.sms=1")
        .resolve()
        .unwrap();
    let mut o = RunOptions {
        check_bounds: true,
        ..RunOptions::default()
    };
    run_with(&s, Workload::Trace(dir.path()), &mut o)
}

#[test]
fn an_sm_holds_as_many_blocks_as_its_registers_and_shared_memory_allow() {
    // tiny: 4 block slots, 16 warps, 16,384 registers, 16 KB of shared memory.
    for (nregs, shmem, blocks, limit) in [
        (0, 0, 4, crate::gpu::occupancy::Limit::BlockSlots),
        (128, 0, 4, crate::gpu::occupancy::Limit::BlockSlots),
        // 32 threads x 200 registers = 6,400: two blocks.
        (200, 0, 2, crate::gpu::occupancy::Limit::Registers),
        // 170 rounds up to 172: 5,504 a block gives two, where 5,440 would give three.
        (170, 0, 2, crate::gpu::occupancy::Limit::Registers),
        (0, 6000, 2, crate::gpu::occupancy::Limit::SharedMemory),
        (0, 16384, 1, crate::gpu::occupancy::Limit::SharedMemory),
    ] {
        let r = occupancy_run("tiny", 12, nregs, shmem);
        let k = &r.kernels[0];
        assert_eq!(
            (k.occupancy.blocks, k.occupancy.limit),
            (blocks, limit),
            "{nregs} regs, {shmem} B"
        );
        // The SM fills up to it and no further (the bounds check ran every cycle).
        assert_eq!(k.peak_blocks_per_sm, blocks, "{nregs} regs, {shmem} B");
        assert_eq!((k.blocks, r.instructions), (12, 12 * 22));
    }
    // Fewer blocks at once take longer.
    let wide = occupancy_run("tiny", 12, 0, 0).cycles;
    let narrow = occupancy_run("tiny", 12, 0, 16384).cycles;
    assert!(narrow > wide, "one block at a time {narrow} vs four {wide}");
}

#[test]
fn the_bounds_check_catches_an_sm_beyond_its_occupancy() {
    crate::gpu::sm::LAX_OCCUPANCY.with(|l| l.set(true));
    let e = one_sm_run("tiny", &vec![chain(0, 6, 20); 8], 0, 16384);
    crate::gpu::sm::LAX_OCCUPANCY.with(|l| l.set(false));
    match e {
        Err(GpuError::Overfull { what, len, cap, .. }) => {
            assert!(what.contains("occupancy"), "{what}");
            assert_eq!(cap, 1);
            assert!(len > 1);
        }
        other => panic!("the lax variant was not caught: {other:?}"),
    }
}
