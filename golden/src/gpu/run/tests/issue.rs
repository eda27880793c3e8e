//! Issue: the scoreboard, the gates, every registered warp scheduler, execution units and their
//! timing, the two-level scheduler, atomics.

use super::*;

#[test]
fn a_warp_waits_for_its_load_only_when_it_reads_the_loaded_register() {
    for p in spec::PRESETS.iter().map(|p| p.name) {
        let s = preset(p);
        let n = 60;
        let chain = u64::from(s.gpu.exec(ExecClass::Alu).latency) * (n as u64 - 1);
        let waits = cycles_of(&s, &load_then_chain(4, n));
        let free = cycles_of(&s, &load_then_chain(6, n));
        let load = waits.load_latency.mean as u64;
        assert_eq!(
            (waits.instructions, free.instructions),
            (n as u64 + 2, n as u64 + 2)
        );
        // Dependent: the chain starts after the load; independent: it runs beside it.
        assert!(
            waits.kernels[0].cycles >= load + chain,
            "{p}: {} < load {load} + chain {chain}",
            waits.kernels[0].cycles
        );
        assert!(
            free.kernels[0].cycles + chain.min(load) <= waits.kernels[0].cycles + 8,
            "{p}: independent {} vs dependent {} (load {load}, chain {chain})",
            free.kernels[0].cycles,
            waits.kernels[0].cycles
        );
    }
}

/// The schedulers look only at the warps their gates mark as able to issue; the tests check
/// the gates against the warps' states at every look. A wrong variant that leaves a warp
/// gated as waiting on its answered load is caught.
#[test]
fn a_warp_left_gated_after_its_load_is_answered_is_caught() {
    let s = preset("tiny");
    crate::gpu::sm::LAX_GATES.with(|l| l.set(true));
    let lax = std::panic::catch_unwind(|| cycles_of(&s, &load_then_chain(4, 3)));
    crate::gpu::sm::LAX_GATES.with(|l| l.set(false));
    let e = lax.expect_err("the stale gate was not caught");
    let msg = e
        .downcast_ref::<String>()
        .map(String::as_str)
        .unwrap_or_default();
    assert!(msg.contains("gates"), "{msg}");
    assert_eq!(cycles_of(&s, &load_then_chain(4, 3)).instructions, 5);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// Random kernels on random presets and warp schedulers (every registered policy;
    /// two-level with random active sets): [`runs_every_instruction_once`].
    #[test]
    fn random_kernels_run_every_instruction_once(
        seed in 0u64..1 << 32,
        blocks in 1u32..6,
        warps in 1u32..5,
        preset_pick in 0usize..3,
        policy in 0usize..crate::gpu::sched::NAMES.len(),
        active in 1u32..5,
    ) {
        let name = spec::PRESETS[preset_pick].name;
        let s = ConfigRequest::preset(name)
            .with(&format!("gpu.active_warps={active}"))
            .resolve()
            .unwrap();
        let policy = crate::gpu::sched::NAMES[policy];
        crate::gpu::sched::with_policy(policy, || {
            runs_every_instruction_once(&s, seed, blocks, warps)
        })?;
    }
}

/// A random kernel (`seed`, `blocks` of `warps`) on `s`: the run ends, every instruction of
/// the trace issues exactly once, every block leaves, every request to the memory side is
/// answered once, the caches' counts by kind add up, and a second run is identical.
fn runs_every_instruction_once(
    s: &Spec,
    seed: u64,
    blocks: u32,
    warps: u32,
) -> Result<(), proptest::test_runner::TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let total = random_kernel(dir.path(), seed, blocks, warps);
    let mut o = RunOptions {
        check_bounds: true,
        ..RunOptions::default()
    };
    if crate::gpu::sched::Scheduler::of(s, 0).reads_ranges() {
        // A trace carries no access ranges: the run is refused (kernels run it instead:
        // every_block_runs_once_under_every_dispatch_policy).
        let e = run_with(s, Workload::Trace(dir.path()), &mut o).unwrap_err();
        proptest::prop_assert!(matches!(e, GpuError::TraceScheduler { .. }), "{e}");
        return Ok(());
    }
    let a = run_with(s, Workload::Trace(dir.path()), &mut o).unwrap();
    proptest::prop_assert_eq!(a.instructions, total);
    proptest::prop_assert_eq!(a.kernels[0].blocks, u64::from(blocks));
    proptest::prop_assert_eq!(a.requests, a.replies);
    // Each level's kinds its own.
    use crate::mem::slice::AccessKind as K;
    let l1 = [K::GlobalRead, K::GlobalWrite, K::LocalRead, K::LocalWrite];
    proptest::prop_assert_eq!(a.l1.kinds_add_up(&l1), Ok(()));
    proptest::prop_assert_eq!(a.l2.kinds_add_up(&[K::Read, K::Write, K::Prefetch]), Ok(()));
    let b = run_trace(s, dir.path(), None).unwrap();
    proptest::prop_assert_eq!(a, b);
    Ok(())
}

/// Every registered warp scheduler (test-only ones included), on every preset, runs a random
/// kernel of loads, stores, arithmetic and barriers over several blocks and warps as
/// [`runs_every_instruction_once`] says.
#[test]
fn every_registered_scheduler_runs_every_instruction_once() {
    for &policy in crate::gpu::sched::NAMES {
        for p in spec::PRESETS {
            let s = preset(p.name);
            crate::gpu::sched::with_policy(policy, || runs_every_instruction_once(&s, 7, 3, 4))
                .unwrap_or_else(|e| panic!("{policy} on {}: {e}", p.name));
        }
    }
}

/// An opcode of each execution-unit class (with modifiers, as traces write them).
const CLASS_OPS: [(ExecClass, &str); 8] = [
    (ExecClass::Alu, "IMAD.MOV.U32"),
    (ExecClass::Sp, "FFMA.FTZ"),
    (ExecClass::Dp, "DFMA"),
    (ExecClass::Sfu, "MUFU.RCP"),
    (ExecClass::Tensor, "HMMA.16816.F32"),
    (ExecClass::Branch, "BSSY"),
    (ExecClass::Tex, "TLD4.R"),
    (ExecClass::Uniform, "ULDC.64"),
];

/// Per class, what one more instruction costs one warp: a dependent one waits for the last
/// one's result and for the unit, `max(latency, initiation)` cycles; an independent one for
/// the unit only, `initiation` cycles. `Err` names the first class that differs.
fn extra_instruction_costs(p: &str, s: &Spec) -> Result<(), String> {
    let kernel =
        |op: &str, n: usize, dep: bool| blocks_run(s, &[ops(op, n, dep)]).kernels[0].cycles;
    for (class, op) in CLASS_OPS {
        let t = s.gpu.exec(class);
        let (lat, init) = (u64::from(t.latency), u64::from(t.initiation));
        let dep = kernel(op, 9, true) - kernel(op, 8, true);
        let indep = kernel(op, 9, false) - kernel(op, 8, false);
        if (dep, indep) != (lat.max(init), init) {
            return Err(format!(
                "{p} {class} ({op}): dependent +{dep}, independent +{indep}; latency {lat}, \
                    initiation {init}"
            ));
        }
    }
    Ok(())
}

#[test]
fn each_opcode_class_takes_its_latency_and_initiation_interval() {
    for p in spec::PRESETS.iter().map(|p| p.name) {
        let s = preset(p);
        extra_instruction_costs(p, &s).unwrap();
        // Every class at other figures, initiation above latency included.
        let mut req = ConfigRequest::preset(p);
        for (k, c) in ExecClass::ALL.iter().enumerate() {
            let key = if *c == ExecClass::Alu {
                "alu".to_string()
            } else {
                c.to_string()
            };
            req = req
                .with(&format!("gpu.{key}_latency={}", 3 + 5 * k))
                .with(&format!("gpu.{key}_initiation={}", 1 + 3 * (7 - k)));
        }
        let s = req.resolve().unwrap();
        extra_instruction_costs(p, &s).unwrap();
    }
}

#[test]
fn the_latency_check_catches_warps_that_ignore_initiation_intervals() {
    let s = preset("turing-rtx2060s");
    crate::gpu::sched::LAX_INITIATION.with(|l| l.set(true));
    let lax = extra_instruction_costs("turing-rtx2060s", &s);
    crate::gpu::sched::LAX_INITIATION.with(|l| l.set(false));
    let e = lax.expect_err("warps issuing to a busy unit must be caught");
    assert!(e.contains("independent +1"), "{e}");
}

#[test]
fn each_scheduler_has_its_own_units() {
    // turing-rtx2060s: 4 schedulers, MUFU's unit takes one instruction every 8 cycles.
    let s = preset("turing-rtx2060s");
    let (n, init) = (10, u64::from(s.gpu.exec(ExecClass::Sfu).initiation));
    assert_eq!(s.gpu.schedulers, 4);
    let idle = Vec::new();
    let mufu = ops("MUFU.EX2", n, false);
    let alone = warps_run(&s, std::slice::from_ref(&mufu)).kernels[0].cycles;
    // Warps 0 and 1 are on schedulers 0 and 1; warps 0 and 4 share scheduler 0.
    let apart = warps_run(&s, &[mufu.clone(), mufu.clone()]).kernels[0].cycles;
    let mut shared = vec![idle; 5];
    shared[0] = mufu.clone();
    shared[4] = mufu;
    let shared = warps_run(&s, &shared).kernels[0].cycles;
    assert_eq!(apart, alone, "two schedulers' units work side by side");
    assert_eq!(
        shared - alone,
        n as u64 * init,
        "one scheduler's unit serves both warps in turn"
    );
}

/// Kernel cycles of one block of `warps` warps on one scheduler of tiny under the two-level
/// scheduler with `active` active warps: warp 0 runs `first`, the others a chain of `n`
/// dependent additions each; `extra`: more configuration.
fn two_level_run(active: u32, warps: usize, first: &[String], n: usize, extra: &[&str]) -> u64 {
    let active = format!("gpu.active_warps={active}");
    let mut sets = vec!["gpu.schedulers=1", "gpu.scheduler=two-level", &active];
    sets.extend_from_slice(extra);
    let s = preset("tiny").variant(&sets).unwrap();
    let mut bodies = vec![first.to_vec()];
    bodies.extend((1..warps).map(|_| chain(0, 255, n)));
    warps_run(&s, &bodies).kernels[0].cycles
}

/// What the two-level scheduler must do, or why not: with one active warp, warps that wait only
/// on arithmetic keep the set (their chains run one after another), and a warp waiting on a
/// load leaves it (the others run meanwhile); with every warp active, chains interleave.
fn two_level_checks() -> Result<(), String> {
    let lat = u64::from(preset("tiny").gpu.exec(ExecClass::Alu).latency);
    let n = 12;
    let chains = chain(0, 255, n);
    let one: Vec<u64> = (1..=3)
        .map(|w| two_level_run(1, w, &chains, n, &[]))
        .collect();
    let all: Vec<u64> = (1..=3)
        .map(|w| two_level_run(3, w, &chains, n, &[]))
        .collect();
    let serial = (n as u64 - 1) * lat;
    if one[2] - one[1] != one[1] - one[0] || one[1] - one[0] < serial {
        return Err(format!(
            "one active warp: {one:?}, each chain {serial} cycles at least"
        ));
    }
    if all[2] - all[1] >= lat {
        return Err(format!(
            "every warp active: {all:?} (chains of {lat}-cycle steps)"
        ));
    }
    // Warp 0 loads (over a slow network: longer than both chains) and uses the value at once:
    // the chains run while it waits (at least one of them hidden).
    let slow = ["icnt.latency=100"];
    let load = [
        load1(0, 4, 0x10000),
        "0010 00000001 1 R5 IADD3 2 R4 R255 0 0".to_string(),
    ];
    let alone = two_level_run(1, 1, &load, n, &slow);
    let with_chains = two_level_run(1, 3, &load, n, &slow);
    if alone < 2 * serial || with_chains >= alone + serial {
        return Err(format!(
            "the loading warp kept the set: {with_chains} cycles, {alone} for its load alone"
        ));
    }
    Ok(())
}

#[test]
fn the_two_level_scheduler_keeps_short_waits_and_demotes_long_ones() {
    two_level_checks().unwrap();
    for lax in [1, 2] {
        crate::gpu::sched::LAX_TWO_LEVEL.with(|l| l.set(lax));
        let r = two_level_checks();
        crate::gpu::sched::LAX_TWO_LEVEL.with(|l| l.set(0));
        assert!(r.is_err(), "variant {lax} must be caught");
    }
}

#[test]
fn an_atomic_holds_its_destination_until_its_reply_and_a_reduction_holds_nothing() {
    for p in spec::PRESETS.iter().map(|p| p.name) {
        let s = preset(p);
        let op = |dst: &str, op: &str| format!("0000 00000001 {dst} {op} 1 R2 4 1 0x10000 4 0");
        let cycles = |body: Vec<String>| cycles_of(&s, &body).kernels[0].cycles;
        let atom = op("1 R4", "ATOMG.E.ADD.STRONG.GPU");
        let red = op("0", "RED.E.ADD.STRONG.GPU");
        // After the atomic, a chain of additions as long as the L2 round trip, from the
        // atomic's value (it waits for the reply) or from another register (it runs beside).
        let trip = side(&s, 1, true);
        let lat = u64::from(s.gpu.exec(ExecClass::Alu).latency);
        let n = (trip / lat) as usize + 1;
        let body = |first: &str, src: u32| {
            let mut b = vec![first.to_string()];
            b.extend(chain(16, src, n));
            b
        };
        let waits = cycles(body(&atom, 4));
        let free = cycles(body(&atom, 6));
        assert!(
            waits >= free + trip / 2,
            "{p}: {waits} vs {free} (L2 round trip {trip})"
        );
        // A reduction returns nothing: the same chain from R4 does not wait.
        assert_eq!(cycles(body(&red, 4)), free, "{p}");
        // Atomics are not loads in the load statistics.
        let r = cycles_of(&s, &body(&atom, 4));
        assert_eq!((r.load_latency.mean, r.load_latency.max), (0.0, 0), "{p}");
    }
}
