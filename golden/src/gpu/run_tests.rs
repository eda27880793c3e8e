use super::*;
use crate::workload::KernelDesc;
use spec::gpu::ExecClass;
use spec::ConfigRequest;
use std::path::PathBuf;

fn traces(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests-data/accelsim-traces")
        .join(dir)
}

fn preset(name: &str) -> Spec {
    ConfigRequest::preset(name).resolve().unwrap()
}

/// Instruction lines of a trace file, counted from its text alone.
fn counted(path: &Path) -> u64 {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::trim)
        .filter(|l| !(l.is_empty() || l.starts_with('#') || l.starts_with('-') || l.contains('=')))
        .count() as u64
}

#[test]
fn the_reference_traces_run_to_completion_instruction_for_instruction() {
    let lud = traces("rodinia2-lud-kernel8-volta-legacy-format");
    let excerpt = traces("pytorch-pow-kernel593-tracer-v5-excerpt")
        .join("kernel-593-ctx_0x55c28dad19e0.traceg.excerpt-TB0-TB1");
    // The excerpt's own list names the whole trace, which is not there: list the excerpt.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("kernelslist.g"),
        format!("{}\n", excerpt.display()),
    )
    .unwrap();
    for p in spec::PRESETS.iter().map(|p| p.name) {
        let s = preset(p);
        let r = run_trace(&s, &lud, None).unwrap();
        assert_eq!(r.kernels.len(), 1);
        assert_eq!(r.instructions, counted(&lud.join("kernel-8.traceg")), "{p}");
        assert_eq!((r.kernels[0].blocks, r.instructions), (1, 1027), "{p}");
        assert!(r.l1.accesses > 0 && r.cycles > 0, "{p}");
        let x = run_trace(&s, dir.path(), None).unwrap();
        assert_eq!(x.instructions, counted(&excerpt), "{p}");
        assert_eq!((x.kernels[0].blocks, x.instructions), (2, 264), "{p}");
    }
}

/// A load of R4 (32 lanes, 4 bytes each, one 128-byte line), then a chain of `n` additions
/// that starts from `first` (R4: waits for the load; R6: does not).
fn load_then_chain(first: u32, n: usize) -> Vec<String> {
    let mut b = vec!["0000 ffffffff 1 R4 LDG.E.SYS 1 R2 4 1 0x10000 4 0".to_string()];
    let mut src = first;
    for k in 0..n {
        let dst = 10 + (k % 2) as u32;
        b.push(format!(
            "{:04x} ffffffff 1 R{dst} IADD3 2 R{src} R255 0 0",
            16 * (k + 1)
        ));
        src = dst;
    }
    b
}

/// A one-warp, one-block kernel: `body` instruction lines, then EXIT.
fn cycles_of(s: &Spec, body: &[String]) -> RunSummary {
    blocks_run(s, &[body.to_vec()])
}

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

#[test]
fn a_coalesced_load_is_one_line_or_four_sectors_and_runs_are_repeatable() {
    for p in spec::PRESETS.iter().map(|p| p.name) {
        let s = preset(p);
        let a = cycles_of(&s, &load_then_chain(4, 1));
        let sector = s.gpu.l1.kind == spec::cache::CacheKind::Sector;
        let want = if sector { 4 } else { 1 };
        assert_eq!((a.l1.accesses, a.l1.hits), (want, 0), "{p}");
        assert_eq!(a, cycles_of(&s, &load_then_chain(4, 1)), "{p}");
    }
}

/// A random kernel: `blocks` blocks of `warps` warps, each warp a random mix of arithmetic,
/// loads, stores and barriers (every warp of a block has the same number of barriers, as a
/// real kernel has), over a few registers and a small address range.
fn random_kernel(dir: &Path, seed: u64, blocks: u32, warps: u32) -> u64 {
    let mut rng = crate::rng::Rng::new(seed);
    // Registers a thread: the SM holds fewer blocks at once (its occupancy, checked every
    // cycle by the runs' bounds check); at most 4 warps x 32 x 128 fit tiny's 16,384.
    let nregs = [0, 32, 64, 128][(seed % 4) as usize];
    let mut t = format!(
        "-kernel name = r\n-kernel id = 1\n-grid dim = ({blocks},1,1)\n-block dim = ({},1,1)\n\
         -nregs = {nregs}\n-accelsim tracer version = 5\n\n#traces format = ...\n\n",
        32 * warps
    );
    let mut total = 0u64;
    let barriers = rng.below(3);
    for b in 0..blocks {
        t += &format!("#BEGIN_TB\nthread block = {b},0,0\n");
        for w in 0..warps {
            let mut lines = Vec::new();
            let mut bars_left = barriers;
            let n = 1 + rng.below(40);
            for k in 0..n {
                let pc = 16 * k;
                let (d, s1) = (rng.below(8), rng.below(8));
                let mask = match rng.below(4) {
                    0 => 0xffff_0000u32,
                    1 => 0,
                    _ => u32::MAX,
                };
                let base = 0x10_0000 + 128 * rng.below(64);
                let stride = [4u64, 8, 128, 0][rng.below(4) as usize];
                let line = match rng.below(10) {
                    0..=3 => format!(
                        "{pc:04x} {mask:08x} 1 R{d} LDG.E.SYS 1 R{s1} 4 1 0x{base:x} {stride} 0"
                    ),
                    4 => format!(
                        "{pc:04x} {mask:08x} 0 STG.E.SYS 2 R{s1} R{d} 4 1 0x{base:x} {stride} 0"
                    ),
                    5 if bars_left > 0 => {
                        bars_left -= 1;
                        format!("{pc:04x} ffffffff 0 BAR.SYNC 0 0 0")
                    }
                    _ => format!("{pc:04x} ffffffff 1 R{d} IADD3 2 R{s1} R255 0 0"),
                };
                lines.push(line);
            }
            for _ in 0..bars_left {
                lines.push(format!(
                    "{:04x} ffffffff 0 BAR.SYNC 0 0 0",
                    16 * lines.len()
                ));
            }
            total += lines.len() as u64;
            t += &format!(
                "warp = {w}\ninsts = {}\n{}\n",
                lines.len(),
                lines.join("\n")
            );
        }
        t += "#END_TB\n";
    }
    std::fs::write(dir.join("kernel-1.traceg"), t).unwrap();
    std::fs::write(dir.join("kernelslist.g"), "kernel-1.traceg\n").unwrap();
    total
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
        crate::gpu::sched::with_policy(policy, || runs_every_instruction_once(&s, seed, blocks, warps))?;
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

    /// Random kernels under every dispatch policy on random presets: every block is dispatched
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
    ) {
        let policy = spec::DispatchPolicy::ALL[policy];
        let s = ConfigRequest::preset(spec::PRESETS[preset_pick].name)
            .with(&format!("dispatch.policy={}", policy.name()))
            .resolve()
            .unwrap();
        let k = affine_kernel([grid.0, grid.1], [block.0, block.1], loads, trips, compute);
        let w = Workload::Kernel { kernel: &k, seed: 1 };
        // (No L1 queue or MSHR ever over its size: checked every cycle.)
        let mut o = RunOptions { check_bounds: true, ..RunOptions::default() };
        let a = run_with(&s, w, &mut o).unwrap();
        proptest::prop_assert_eq!(a.kernels[0].blocks, k.num_blocks());
        proptest::prop_assert_eq!(a.instructions, generated_instructions(&k));
        proptest::prop_assert!(a.requests > 0);
        proptest::prop_assert_eq!(a.requests, a.replies);
        let b = run(&s, w, None).unwrap();
        proptest::prop_assert_eq!(a, b);
    }
}

#[test]
fn a_trace_runs_under_rr_or_bcs_only() {
    let lud = traces("rodinia2-lud-kernel8-volta-legacy-format");
    for p in spec::DispatchPolicy::ALL {
        let s = ConfigRequest::preset("tiny")
            .with(&format!("dispatch.policy={}", p.name()))
            .resolve()
            .unwrap();
        let r = run_trace(&s, &lud, None);
        match p {
            spec::DispatchPolicy::Rr | spec::DispatchPolicy::Bcs => {
                assert_eq!(r.unwrap().instructions, 1027, "{p:?}");
            }
            _ => assert!(matches!(r, Err(GpuError::TracePolicy { .. })), "{p:?}"),
        }
    }
}

/// A trace of `blocks.len()` one-warp blocks, block `b` running `blocks[b]` (then EXIT).
fn blocks_trace(dir: &Path, blocks: &[Vec<String>]) {
    let one_warp: Vec<&[Vec<String>]> = blocks.iter().map(std::slice::from_ref).collect();
    kernel_trace(dir, &one_warp);
}

/// A trace of `blocks.len()` blocks of as many warps as the first has: block `b`'s warp `w`
/// runs `blocks[b][w]` (then EXIT).
fn kernel_trace(dir: &Path, blocks: &[&[Vec<String>]]) {
    let warps = blocks.first().map_or(1, |b| b.len());
    let mut t = format!(
        "-kernel name = k\n-kernel id = 1\n-grid dim = ({},1,1)\n-block dim = ({},1,1)\n\
         -accelsim tracer version = 5\n\n#traces format = ...\n\n",
        blocks.len(),
        32 * warps
    );
    for (b, block) in blocks.iter().enumerate() {
        t += &format!("#BEGIN_TB\nthread block = {b},0,0\n");
        for (w, body) in block.iter().enumerate() {
            t += &format!("warp = {w}\ninsts = {}\n", body.len() + 1);
            for l in body {
                t += l;
                t += "\n";
            }
            t += &format!("{:04x} ffffffff 0 EXIT 0 0 0\n", 16 * body.len());
        }
        t += "#END_TB\n";
    }
    std::fs::write(dir.join("kernel-1.traceg"), t).unwrap();
    std::fs::write(dir.join("kernelslist.g"), "kernel-1.traceg\n").unwrap();
}

fn blocks_run(s: &Spec, blocks: &[Vec<String>]) -> RunSummary {
    let dir = tempfile::tempdir().unwrap();
    blocks_trace(dir.path(), blocks);
    run_trace(s, dir.path(), None).unwrap()
}

/// Lane 0 loads 4 bytes at `addr` into R`dst`.
fn load1(pc: u64, dst: u32, addr: u64) -> String {
    format!("{pc:04x} 00000001 1 R{dst} LDG.E.SYS 1 R2 4 1 {addr:#x} 4 0")
}

/// A chain of `n` additions from R`src` (the first waits for R`src`).
fn chain(pc: u64, src: u32, n: usize) -> Vec<String> {
    (0..n)
        .map(|k| {
            let s = if k == 0 { src } else { 20 + (k as u32 - 1) % 2 };
            format!(
                "{:04x} 00000001 1 R{} IADD3 2 R{s} R255 0 0",
                pc + 16 * k as u64,
                20 + k as u32 % 2
            )
        })
        .collect()
}

/// The memory side's documented unloaded latency (offer at core cycle `c` to the reply at the
/// port; `crate::mem::partition` tests check the memory side against it).
fn side(s: &Spec, c: u64, hit: bool) -> u64 {
    crate::mem::partition::tests::documented_side(s, c.into(), true, hit) as u64
}

#[test]
fn a_single_load_takes_the_documented_sum_of_its_stages() {
    // Every clock at 700 MHz, no refresh, varied stage latencies: a block placed at the first
    // core cycle (1) issues its load then.
    for extra in [
        &[][..],
        &["gpu.l1_latency=9"],
        &["icnt.latency=7"],
        &["l2.rop_latency=50", "l2.dram_latency=30"],
    ] {
        let mut sets = vec![
            "dram.refresh=false",
            "dram.clock_mhz=700",
            "gpu.l1_latency=4",
        ];
        sets.extend_from_slice(extra);
        let s = preset("tiny").variant(&sets).unwrap();
        let l1 = u64::from(s.gpu.l1_latency);
        let t = 1;
        // A DRAM miss: its fetch offered at t + 3, the fill, then the L1's answer.
        let miss = blocks_run(&s, &[vec![load1(0, 4, 0x10000)]]);
        let dram = 3 + side(&s, t + 3, false) + l1 - 1;
        assert_eq!(miss.load_latency.max, dram, "{extra:?} DRAM miss");
        // One access: no divergence; one request and its reply, one packet each way.
        assert_eq!(miss.load_divergence.max, 0, "{extra:?}");
        assert_eq!((miss.requests, miss.replies), (1, 1), "{extra:?}");
        assert_eq!(
            (miss.request_net.packets, miss.reply_net.packets),
            (1, 1),
            "{extra:?}"
        );
        // Then an L1 hit: the same address again once the first load is used.
        let mut b = vec![load1(0, 4, 0x10000)];
        b.extend(chain(0x10, 4, 1));
        b.push(load1(0x20, 8, 0x10000));
        let hit = blocks_run(&s, &[b]);
        assert_eq!((hit.l1.hits, hit.l1.misses), (1, 1), "{extra:?}");
        assert_eq!(hit.load_latency.max, dram, "{extra:?}");
        assert_eq!(
            2.0 * hit.load_latency.mean - dram as f64,
            (1 + l1) as f64,
            "{extra:?} L1 hit"
        );
        // An L2 hit: a second SM (block 1, placed at cycle 2) loads the line after a chain of
        // 60 additions, long after block 0's miss filled the L2; the L1 of its SM misses.
        let mut late = chain(0, 30, 60);
        late.push(load1(0x400, 4, 0x10000));
        let two = blocks_run(&s, &[vec![load1(0, 4, 0x10000)], late]);
        assert_eq!((two.l1.misses, two.l2.hits), (2, 1), "{extra:?}");
        // The side's hit latency does not depend on the offer cycle here (equal clocks).
        let l2 = 3 + side(&s, 100, true) + l1 - 1;
        assert_eq!(side(&s, 100, true), side(&s, 101, true));
        assert_eq!(two.load_latency.max, dram, "{extra:?}");
        assert_eq!(
            2.0 * two.load_latency.mean - dram as f64,
            l2 as f64,
            "{extra:?} L2 hit"
        );
        // Bypassing the L1 (gpu.skip_l1): offered at t + 2, answered at the port.
        let skip = s.variant(&["gpu.skip_l1=true"]).unwrap();
        let by = blocks_run(&skip, &[vec![load1(0, 4, 0x10000)]]);
        assert_eq!(by.l1.accesses, 0, "{extra:?}");
        assert_eq!(
            by.load_latency.max,
            2 + side(&skip, t + 2, false),
            "{extra:?} bypass"
        );
    }
}

#[test]
fn a_footprint_that_fits_in_the_l1_misses_exactly_its_sectors_once() {
    for p in spec::PRESETS.iter().map(|p| p.name) {
        let s = preset(p);
        // Four lines, each loaded whole by a warp (32 lanes x 4 bytes) and used, then again.
        let lines = [0x10000u64, 0x20080, 0x30100, 0x40180];
        let mut b = Vec::new();
        for round in 0..2 {
            for (i, a) in lines.iter().enumerate() {
                let pc = 0x100 * (round * 4 + i as u64);
                b.push(format!(
                    "{pc:04x} ffffffff 1 R4 LDG.E.SYS 1 R2 4 1 {a:#x} 4 0"
                ));
                b.push(format!("{:04x} ffffffff 1 R6 IADD3 2 R4 R255 0 0", pc + 16));
            }
        }
        let r = blocks_run(&s, &[b]);
        let sector = s.gpu.l1.kind == spec::cache::CacheKind::Sector;
        // Compulsory misses: every sector (sector L1) or line (line L1) once; the rest hit.
        // (A sector L1 counts a line's first sector as a miss, the others as sector misses.)
        let per = if sector { 4 } else { 1 };
        assert_eq!((r.l1.misses, r.l1.sector_misses), (4, 4 * (per - 1)), "{p}");
        assert_eq!(r.l1.mshr_merges, 0, "{p}");
        assert_eq!(r.l1.hits, 4 * per, "{p}");
        assert_eq!(r.l1.accesses, 8 * per, "{p}");
    }
}

#[test]
fn a_warp_stalls_exactly_until_its_load_is_answered_and_only_if_it_reads_it() {
    for p in spec::PRESETS.iter().map(|p| p.name) {
        let s = preset(p);
        // A load, then one addition that reads the loaded register (R4) or another (R6).
        let dependent = blocks_run(
            &s,
            &[vec![load1(0, 4, 0x10000), chain(0x10, 4, 1).remove(0)]],
        );
        let free = blocks_run(
            &s,
            &[vec![load1(0, 4, 0x10000), chain(0x10, 6, 1).remove(0)]],
        );
        let lat = free.load_latency.max;
        assert_eq!(dependent.load_latency.max, lat, "{p}");
        // Independent: the addition and EXIT issue at cycles 2 and 3; the block leaves when
        // the load is answered, at 1 + lat. Dependent: the addition issues in the cycle the
        // load is answered, EXIT one cycle later, and the block leaves then.
        assert_eq!(free.kernels[0].cycles, 1 + lat, "{p}");
        assert_eq!(dependent.kernels[0].cycles, 2 + lat, "{p}");
    }
}

/// The Warped-MC block watched inside the GPU sees, cycle for cycle, what it sees when the
/// requests its controllers accepted are offered again at their arrival cycles, open loop:
/// the log of a GPU run reproduces its block's inputs (a co-simulation's reproducer).
#[test]
fn a_watched_warped_mc_group_is_reproduced_by_the_requests_it_accepted() {
    use crate::mc::system::GroupCycle;
    let s = preset("turing-rtx2060s")
        .variant(&["mc.scheduler=warped"])
        .unwrap();
    let k = crate::dispatch::kernel("stencil2d").unwrap();
    let budget = 20_000;
    let mut seen: Vec<String> = Vec::new();
    let mut hook = |g: GroupCycle| -> Result<(), String> {
        seen.push(format!("{:?} {:?}", g.input, g.output));
        Ok(())
    };
    let mut o = RunOptions {
        watch: Some(Watch {
            group: 1,
            hook: &mut hook,
            dram_cycles: budget,
        }),
        log_offers: true,
        ..RunOptions::default()
    };
    let r = run_with(
        &s,
        Workload::Kernel {
            kernel: &k,
            seed: 1,
        },
        &mut o,
    )
    .unwrap();
    let offers = std::mem::take(&mut o.offers);
    drop(o);
    // The workload ran again and again until the budget.
    assert!(
        r.kernels.len() > 1 && r.dram.cycles >= budget,
        "{} kernels",
        r.kernels.len()
    );
    assert!(offers.len() > 1000, "{} requests", offers.len());
    let mut again: Vec<String> = Vec::new();
    let mut hook2 = |g: GroupCycle| -> Result<(), String> {
        again.push(format!("{:?} {:?}", g.input, g.output));
        Ok(())
    };
    let last = offers.last().map_or(0, |r| r.cycle);
    let mut sys = crate::mc::open_loop::OpenLoop::new(&s, offers.into_iter(), None);
    sys.run(budget, Some((1, &mut hook2)), &mut |_, _| {})
        .unwrap();
    // Requests reached the controllers until the end, and every cycle is the same.
    assert!(last > budget / 2, "last request at {last}");
    assert_eq!(again.len(), seen.len());
    let first = (0..again.len()).find(|&i| seen[i] != again[i]);
    assert_eq!(first, None, "cycle {first:?} differs");
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

/// A trace directory whose kernel list runs the LUD kernel twice.
fn lud_twice() -> tempfile::TempDir {
    let k = traces("rodinia2-lud-kernel8-volta-legacy-format").join("kernel-8.traceg");
    let dir = tempfile::tempdir().unwrap();
    let line = format!("{}\n", k.display());
    std::fs::write(dir.path().join("kernelslist.g"), line.repeat(2)).unwrap();
    dir
}

/// Per-kernel L1 and L2 counts add up to the run's (a kernel ends when its stores are
/// acknowledged by the L2, so none is counted after it), and on the two GPUs a kernel run
/// again finds all its data in the caches: every access it makes to the L2 hits.
#[test]
fn per_kernel_cache_counts_add_up_to_the_run() {
    let dir = lud_twice();
    for p in spec::PRESETS.iter().map(|p| p.name) {
        let r = run_trace(&preset(p), dir.path(), None).unwrap();
        assert_eq!(r.kernels.len(), 2);
        let (mut l1, mut l2) = (SliceStats::default(), SliceStats::default());
        for k in &r.kernels {
            l1.add(&k.l1);
            l2.add(&k.l2);
        }
        assert_eq!((l1, l2), (r.l1.clone(), r.l2.clone()), "{p}");
        let (a, b) = (&r.kernels[0].l2, &r.kernels[1].l2);
        assert!(a.misses + a.sector_misses > 0, "{p}: the first run misses");
        assert!(
            b.accesses > 0,
            "{p}: the second run writes through to the L2"
        );
        // (tiny's L2 is too small to keep the kernel's data.)
        if p != "tiny" {
            assert_eq!(
                (b.hits, b.misses, b.sector_misses),
                (b.accesses, 0, 0),
                "{p}"
            );
        }
    }
}

/// With `gpu.flush_l1` (GPGPU-Sim's `-gpgpu_flush_l1_cache`, on in both GPUs' configs) an SM
/// without blocks has its L1 invalidated: a kernel run again finds nothing in the L1 and
/// misses exactly the sectors it missed the first time (the LUD kernel's data fit in the L1
/// of either GPU).
/// Without it the second run finds its data there: the check catches an L1 that keeps its
/// lines across kernels.
#[test]
fn an_sm_without_blocks_has_its_l1_invalidated() {
    let dir = lud_twice();
    let missed = |x: &SliceStats| x.misses + x.sector_misses;
    for p in spec::PRESETS.iter().map(|p| p.name) {
        let on = preset(p).variant(&["gpu.flush_l1=true"]).unwrap();
        let r = run_trace(&on, dir.path(), None).unwrap();
        let (a, b) = (&r.kernels[0].l1, &r.kernels[1].l1);
        assert!(missed(a) > 0 && b.accesses == a.accesses, "{p}");
        assert_eq!(
            missed(b),
            missed(a),
            "{p}: the second run misses what the first did"
        );
        let off = preset(p).variant(&["gpu.flush_l1=false"]).unwrap();
        let r = run_trace(&off, dir.path(), None).unwrap();
        let (a, b) = (&r.kernels[0].l1, &r.kernels[1].l1);
        // (tiny's L1 is too small to keep the kernel's data.)
        if p != "tiny" {
            assert!(
                missed(b) < missed(a),
                "{p}: without invalidation the L1 keeps the data"
            );
        }
    }
    assert!(preset("fermi-gtx480").gpu.flush_l1 && preset("turing-rtx2060s").gpu.flush_l1);
}

/// While blocks remain to be placed, an SM that empties is not invalidated (GPGPU-Sim refills
/// it in the cycle it empties, before its check): three blocks loading one line, one at a time
/// on one SM, miss once; an SM invalidated each time it empties would miss three times.
#[test]
fn an_sm_is_not_invalidated_between_blocks_of_a_kernel() {
    let s = preset("tiny")
        .variant(&["gpu.flush_l1=true", "gpu.sms=1", "gpu.ctas_per_sm=1"])
        .unwrap();
    let r = blocks_run(&s, &vec![vec![load1(0, 4, 0x10000)]; 3]);
    assert_eq!(r.kernels[0].blocks, 3);
    assert_eq!((r.l1.accesses, r.l1.misses, r.l1.hits), (3, 1, 2));
}

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
                assert_eq!(r.requests, r.replies, "{p} {name}: every request answered once");
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
    let r = prefetch_run("tiny", "pfstream", "mt-hwp", &["prefetch.throttle=false"], &mut o);
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

/// One block whose warps run `warps` (instruction lines each, then EXIT).
fn warps_run(s: &Spec, warps: &[Vec<String>]) -> RunSummary {
    let dir = tempfile::tempdir().unwrap();
    kernel_trace(dir.path(), &[warps]);
    run_trace(s, dir.path(), None).unwrap()
}

/// `n` instructions of opcode `op` (every lane): each reading the one before's result
/// (`dependent`), or each on registers of its own.
fn ops(op: &str, n: usize, dependent: bool) -> Vec<String> {
    (0..n)
        .map(|k| {
            let (dst, src) = if dependent {
                let src = if k == 0 { 255 } else { 20 + (k as u32 - 1) % 2 };
                (20 + k as u32 % 2, src)
            } else {
                (20 + k as u32, 255)
            };
            format!("{:04x} ffffffff 1 R{dst} {op} 2 R{src} R255 0 0", 16 * k)
        })
        .collect()
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
                "{p} {class} ({op}): dependent +{dep}, independent +{indep}; latency {lat}, initiation {init}"
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

#[test]
fn a_kernel_ends_when_the_l2_has_acknowledged_its_stores() {
    for p in spec::PRESETS.iter().map(|p| p.name) {
        let s = preset(p);
        // One lane stores 4 bytes (written through the L1, or around it with gpu.skip_l1).
        let store = vec!["0000 00000001 0 STG.E.SYS 2 R2 R4 4 1 0x10000 4 0".to_string()];
        let stores = cycles_of(&s, &store);
        let trip = side(&s, 3, true);
        assert!(
            stores.kernels[0].cycles >= trip,
            "{p}: the kernel ended at {} before the L2 round trip of {trip} cycles",
            stores.kernels[0].cycles
        );
        assert_eq!(stores.l2.accesses, 1, "{p}");
        assert_eq!(
            stores.kernels[0].l2.accesses, 1,
            "{p}: the store counts in its kernel"
        );
    }
}

/// A run with a trace cache packs the trace and gives the same figures as a run of the text;
/// the next run reads the copy (a doctored copy, its first load moved, changes the figures)
/// and gives them again from an untouched one.
#[test]
fn a_packed_copy_runs_as_its_text_and_is_what_the_next_run_reads() {
    let lud = traces("rodinia2-lud-kernel8-volta-legacy-format");
    let s = preset("fermi-gtx480");
    let cache = tempfile::tempdir().unwrap();
    let with_cache = || {
        let mut o = RunOptions {
            trace_cache: Some(cache.path().to_path_buf()),
            ..RunOptions::default()
        };
        run_with(&s, Workload::Trace(&lud), &mut o).unwrap()
    };
    let text = run_trace(&s, &lud, None).unwrap();
    assert_eq!(std::fs::read_dir(cache.path()).unwrap().count(), 0);
    assert_eq!(with_cache(), text, "the run that packs");
    let copies: Vec<_> = std::fs::read_dir(cache.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(copies.len(), 1, "one copy, no temporary file");
    assert_eq!(with_cache(), text, "the run that reads the copy");
    // Doctor the copy: every load of the first warp moved 1 MiB away.
    let kernel = lud.join("kernel-8.traceg");
    let text_reader = crate::workload::accelsim::KernelReader::open(&kernel).unwrap();
    let (copy, key) =
        crate::workload::pack::copy_of(cache.path(), &kernel, text_reader.file()).unwrap();
    assert_eq!(copy, copies[0]);
    let mut r = PackReader::open(&copy, &key, text_reader.header()).unwrap();
    let mut blocks = Vec::new();
    while let Some(b) = r.next_block().unwrap() {
        blocks.push(b);
    }
    let ops = r.opcodes().to_vec();
    for i in &mut blocks[0].warps[0] {
        i.addrs.shift(1 << 20);
    }
    let mut w = PackWriter::create(&copy, &key).unwrap();
    for (k, b) in blocks.iter().enumerate() {
        w.block(b, if k == 0 { &ops } else { &[] }).unwrap();
    }
    w.finish().unwrap();
    assert_ne!(with_cache(), text, "the doctored copy is what runs");
    assert_eq!(
        run_trace(&s, &lud, None).unwrap(),
        text,
        "no cache: the text"
    );
}

/// An address anywhere in the 64-bit space, biased to the edges where a packed or narrowed
/// field would break: near 0, 2^32, 2^48, 2^53, 2^63 and the top.
fn far_address(rng: &mut crate::rng::Rng) -> u64 {
    let edge = [
        0u64,
        1 << 32,
        1 << 48,
        1 << 53,
        1 << 63,
        u64::MAX - (1 << 20),
    ];
    match rng.below(3) {
        0 => rng.next_u64(),
        _ => edge[rng.below(6) as usize].wrapping_add(rng.below(1 << 20)),
    }
}

/// A trace of `blocks` one-warp blocks whose loads and stores are at `far_address`es: lanes
/// strided, scattered (a list of addresses) or on one address, some crossing a line. Returns
/// the instruction count and the memory instructions among them.
fn far_trace(dir: &Path, seed: u64, blocks: u32) -> (u64, u64) {
    let mut rng = crate::rng::Rng::new(seed);
    let mut bodies = Vec::new();
    let (mut total, mut memory) = (0, 0);
    for _ in 0..blocks {
        let mut body = Vec::new();
        for k in 0..1 + rng.below(12) {
            let pc = 16 * k;
            let base = far_address(&mut rng);
            let stride = [0u64, 4, 8, 128, 4096][rng.below(5) as usize];
            let pick = rng.below(4);
            memory += u64::from(pick < 3);
            let line = match pick {
                0 => format!("{pc:04x} ffffffff 1 R1 LDG.E.SYS 1 R2 4 1 {base:#x} {stride} 0"),
                1 => format!("{pc:04x} ffffffff 0 STG.E.SYS 2 R2 R3 4 1 {base:#x} {stride} 0"),
                2 => {
                    let lanes: Vec<String> = (0..32)
                        .map(|_| format!("{:#x}", far_address(&mut rng)))
                        .collect();
                    format!(
                        "{pc:04x} ffffffff 1 R4 LDG.E.SYS 1 R2 4 0 {} 0",
                        lanes.join(" ")
                    )
                }
                _ => format!("{pc:04x} ffffffff 1 R5 IADD3 2 R1 R4 0 0"),
            };
            body.push(line);
        }
        total += body.len() as u64 + 1;
        bodies.push(body);
    }
    blocks_trace(dir, &bodies);
    (total, memory)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// Loads and stores anywhere in the 64-bit address space pass every level (coalescer,
    /// L1 and its MSHRs, the request crossbar, an L2 slice and its MSHR index, the partition's
    /// queues, the DRAM's address decode and controller) and back: every instruction issues,
    /// every request is answered once, on every preset, whatever the dispatch and the L1's
    /// write policy.
    #[test]
    fn every_request_completes_anywhere_in_the_64_bit_address_space(
        seed in 0u64..1 << 32,
        blocks in 1u32..6,
        preset_pick in 0usize..3,
    ) {
        let s = preset(spec::PRESETS[preset_pick].name);
        let dir = tempfile::tempdir().unwrap();
        let (total, memory) = far_trace(dir.path(), seed, blocks);
        let mut o = RunOptions { check_bounds: true, ..RunOptions::default() };
        let a = run_with(&s, Workload::Trace(dir.path()), &mut o).unwrap();
        proptest::prop_assert_eq!(a.instructions, total);
        proptest::prop_assert_eq!(a.requests, a.replies);
        proptest::prop_assert_eq!(a.requests > 0, memory > 0);
    }
}

/// A random trace's run with its packed copy corrupted at one byte: the same figures as the
/// run of its text (the copy is read up to its bad record, then the text from that block on),
/// and the copy is rebuilt whole.
struct Corrupted {
    _dir: tempfile::TempDir,
    trace: PathBuf,
    cache: tempfile::TempDir,
    copy: PathBuf,
    clean: Vec<u8>,
    text: RunSummary,
    spec: Spec,
}

impl Corrupted {
    fn new() -> Corrupted {
        let dir = tempfile::tempdir().unwrap();
        random_kernel(dir.path(), 7, 6, 2);
        let spec = preset("tiny");
        let trace = dir.path().to_path_buf();
        let text = run_trace(&spec, &trace, None).unwrap();
        let cache = tempfile::tempdir().unwrap();
        let c = Corrupted {
            _dir: dir,
            trace,
            cache,
            copy: PathBuf::new(),
            clean: Vec::new(),
            text,
            spec,
        };
        let (r, _) = c.run();
        assert_eq!(r, c.text, "the run that packs");
        let copies: Vec<PathBuf> = std::fs::read_dir(c.cache.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(copies.len(), 1);
        let clean = std::fs::read(&copies[0]).unwrap();
        Corrupted {
            copy: copies[0].clone(),
            clean,
            ..c
        }
    }

    fn run(&self) -> (RunSummary, Vec<String>) {
        let mut o = RunOptions {
            trace_cache: Some(self.cache.path().to_path_buf()),
            ..RunOptions::default()
        };
        let r = run_with(&self.spec, Workload::Trace(&self.trace), &mut o).unwrap();
        (r, o.notes)
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    #[test]
    fn a_run_from_a_corrupted_copy_gives_the_texts_figures(
        at in proptest::prelude::any::<proptest::sample::Index>(),
        byte in proptest::prelude::any::<u8>(),
    ) {
        thread_local!(static C: Corrupted = Corrupted::new());
        C.with(|c| {
            let at = at.index(c.clean.len());
            let mut bad = c.clean.clone();
            bad[at] ^= byte.max(1);
            std::fs::write(&c.copy, &bad).unwrap();
            let (r, notes) = c.run();
            proptest::prop_assert_eq!(&r, &c.text, "byte {} changed", at);
            // A bad record is noted; a changed key or magic only makes the copy foreign.
            proptest::prop_assert!(notes.len() <= 1, "{:?}", notes);
            proptest::prop_assert_eq!(std::fs::read(&c.copy).unwrap(), c.clean.clone(), "the copy is rebuilt");
            proptest::prop_assert_eq!(std::fs::read_dir(c.cache.path()).unwrap().count(), 1);
            Ok(())
        })?;
    }
}

/// A copy bad at its last block record: the blocks before it come from the copy, the rest
/// from the text, and the note names the copy and the trace.
#[test]
fn a_copy_bad_midway_is_left_for_the_text_at_the_same_block() {
    let c = Corrupted::new();
    let mut bad = c.clean.clone();
    // The end record is the last 17 bytes (length, checksum, tag, count): the byte before
    // them is the last block's.
    let at = bad.len() - 18;
    bad[at] ^= 0x40;
    std::fs::write(&c.copy, &bad).unwrap();
    let (r, notes) = c.run();
    assert_eq!(r, c.text);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains("checksum") && notes[0].contains("kernel-1.traceg"),
        "{}",
        notes[0]
    );
    assert_eq!(std::fs::read(&c.copy).unwrap(), c.clean);
}

/// A copy bad only in its end record (read after the grid's last block): found all the same,
/// and the copy rebuilt (without the check after the last block it stayed bad for ever).
#[test]
fn a_copy_bad_in_its_end_record_is_rebuilt() {
    let c = Corrupted::new();
    let mut bad = c.clean.clone();
    let last = bad.len() - 1;
    bad[last] ^= 1;
    std::fs::write(&c.copy, &bad).unwrap();
    let (r, notes) = c.run();
    assert_eq!(r, c.text);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(std::fs::read(&c.copy).unwrap(), c.clean);
}

/// A run of the trace in `dir` on `s`, jumping over idle time or stepping every clock edge and
/// every SM's every cycle: its figures, or its error (under a bound of 3,000,000 core cycles, and bounds checks every
/// cycle).
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

/// A built-in kernel with one of its values changed to a hostile one: a grid, block, loop,
/// arithmetic count, array base, element size, length or pitch, a load's PC, index
/// coefficient or flags, at the edges of their types and beyond what is legal.
fn hostile_kernel(pick: usize, field: usize, at: usize, value: u64) -> KernelDesc {
    let mut k = crate::workload::builtin(crate::workload::BUILTIN[pick]).unwrap();
    let u32s = [
        0,
        1,
        2,
        31,
        32,
        33,
        1024,
        1025,
        65535,
        65536,
        1 << 31,
        u32::MAX,
    ];
    let u64s = [
        0,
        1,
        3,
        4096,
        1 << 32,
        1 << 53,
        1 << 63,
        u64::MAX - 15,
        u64::MAX,
    ];
    let i64s = [0, 1, -1, 1 << 20, i64::MAX, i64::MIN];
    let v32 = u32s[value as usize % u32s.len()];
    let v64 = u64s[value as usize % u64s.len()];
    let vi = i64s[value as usize % i64s.len()];
    let a = at % k.arrays.len();
    let l = at % k.loads.len();
    match field {
        0 => k.grid[at % 3] = v32,
        1 => k.block[at % 3] = v32,
        2 => k.loop_trips = v32,
        3 => k.compute = v32,
        4 => k.arrays[a].base = v64,
        5 => k.arrays[a].elem_bytes = v32,
        6 => k.arrays[a].len = v64,
        7 => k.arrays[a].row_pitch = v64,
        8 => k.loads[l].pc = k.loads[(l + 1) % k.loads.len()].pc,
        9 => k.loads[l].index.bx = vi,
        10 => k.loads[l].index.tx = vi,
        11 => k.loads[l].index.it = vi,
        12 => k.loads[l].in_loop = !k.loads[l].in_loop,
        _ => k.loads[l].irregular = !k.loads[l].irregular,
    }
    k
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

    /// A kernel with a hostile value is refused by validation with the field named, or runs:
    /// to its end or to the run's cycle bound, never to a panic, a stall or an internal error.
    #[test]
    fn a_hostile_kernel_is_refused_naming_its_field_or_runs_to_an_end(
        pick in 0usize..5,
        field in 0usize..14,
        at in 0usize..8,
        value in 0u64..64,
    ) {
        let k = hostile_kernel(pick, field, at, value);
        let s = preset("tiny");
        if let Err(e) = crate::workload::validate(&k) {
            let text = e.to_string();
            proptest::prop_assert!(text.contains(&k.name), "{}", text);
            return Ok(());
        }
        let mut o = RunOptions { max_cycles: Some(20_000), ..RunOptions::default() };
        match run_with(&s, Workload::Kernel { kernel: &k, seed: 1 }, &mut o) {
            Ok(r) => proptest::prop_assert_eq!(r.requests, r.replies),
            Err(e) => proptest::prop_assert!(!e.is_internal(), "{:?}: {}", k, e),
        }
    }
}
