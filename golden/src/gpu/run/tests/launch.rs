//! What happens around a kernel: its launch latency (decision GPU-30), the host's copies
//! filling the L2 (decision MEM-24), its L1's share of unified storage (GPU-32) and caches
//! flushed before it (GPU-33).

use super::*;

/// Every clock at 1 GHz and no refresh (tiny): shifting a kernel's start moves nothing else.
fn quiet() -> Spec {
    preset("tiny").variant(&["dram.refresh=false"]).unwrap()
}

/// Two blocks: one misses to DRAM and uses the value, the other runs a chain and then loads
/// the same line from the L2.
fn two_blocks() -> Vec<Vec<String>> {
    let mut first = vec![load1(0, 4, 0x10000)];
    first.extend(chain(0x10, 4, 3));
    let mut late = chain(0, 30, 60);
    late.push(load1(0x400, 4, 0x10000));
    vec![first, late]
}

/// A trace folder launching the kernel of [`two_blocks`] twice.
fn two_blocks_twice() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    blocks_trace(dir.path(), &two_blocks());
    std::fs::write(
        dir.path().join("kernelslist.g"),
        "kernel-1.traceg\nkernel-1.traceg\n",
    )
    .unwrap();
    dir
}

#[test]
fn a_kernel_waits_exactly_its_launch_latency_and_then_runs_as_without_it() {
    let s = quiet();
    assert_eq!(s.gpu.kernel_launch_latency, 0);
    let at_once = blocks_run(&s, &two_blocks());
    // (2,000,000: longer than a stall, which waiting for the launch is not.)
    for latency in [1u64, 37, 5000, 2_000_000] {
        let l = s
            .variant(&[&format!("gpu.kernel_launch_latency={latency}")])
            .unwrap();
        let late = blocks_run(&l, &two_blocks());
        assert_eq!(late.cycles, at_once.cycles + latency, "{latency}");
        assert_eq!(late.kernels[0].cycles, at_once.kernels[0].cycles + latency);
        // Everything else is the same run, moved.
        assert_eq!(late.instructions, at_once.instructions);
        assert_eq!(late.load_latency, at_once.load_latency, "{latency}");
        assert_eq!(
            (late.l1.clone(), late.l2.clone()),
            (at_once.l1.clone(), at_once.l2.clone())
        );
    }
}

#[test]
fn each_kernel_of_a_list_waits_its_launch_latency() {
    // The same kernel twice: the second starts after the first has ended, every store
    // acknowledged, and waits again.
    let s = quiet();
    let dir = two_blocks_twice();
    let at_once = run_trace(&s, dir.path(), None).unwrap();
    let l = s.variant(&["gpu.kernel_launch_latency=900"]).unwrap();
    let late = run_trace(&l, dir.path(), None).unwrap();
    assert_eq!(late.kernels.len(), 2);
    for (a, b) in at_once.kernels.iter().zip(&late.kernels) {
        assert_eq!(b.cycles, a.cycles + 900);
    }
    assert_eq!(late.cycles, at_once.cycles + 1800);
}

/// A kernel whose lane 0 loads 4 bytes at each of `addrs`, one after another (each load's
/// value used before the next), after the host copied `copy` (address, bytes).
fn after_copy(s: &Spec, copy: (u64, u64), addrs: &[u64]) -> RunSummary {
    let dir = tempfile::tempdir().unwrap();
    let mut body = Vec::new();
    for (k, &a) in addrs.iter().enumerate() {
        let pc = 0x40 * k as u64;
        body.push(load1(pc, 4, a));
        body.extend(chain(pc + 0x10, 4, 1));
    }
    blocks_trace(dir.path(), &[body]);
    std::fs::write(
        dir.path().join("kernelslist.g"),
        format!("MemcpyHtoD,{:#x},{}\nkernel-1.traceg\n", copy.0, copy.1),
    )
    .unwrap();
    run_trace(s, dir.path(), None).unwrap()
}

#[test]
fn a_host_copy_fills_exactly_the_sectors_it_writes_into_the_l2_when_configured() {
    let off = quiet();
    assert!(!off.l2.fill_on_copy);
    let on = off.variant(&["l2.fill_on_copy=true"]).unwrap();
    // 33 bytes from 0x10010: the sectors at 0x10000 and 0x10020; not 0x10040, nor a line of
    // another sub-partition.
    let addrs = [0x10000, 0x10020, 0x10040, 0x20000];
    let copy = (0x10010, 33);
    let without = after_copy(&off, copy, &addrs);
    let with = after_copy(&on, copy, &addrs);
    assert_eq!(without.copies, 1);
    assert_eq!(with.copies, 1);
    // (0x10020 and 0x10040 are sector misses of 0x10000's line.)
    let l2 = &without.l2;
    assert_eq!((l2.hits, l2.misses, l2.sector_misses), (0, 2, 2));
    // (Under tiny's L2 string a read of a present line's missing sector is a sector miss.)
    assert_eq!(with.l2.hits, 2, "{:?}", with.l2);
    assert_eq!(with.l2.misses + with.l2.sector_misses, 2, "{:?}", with.l2);
    // Each read the copy served takes the L2's hit latency; the others take what they take
    // without the copy (one load a run).
    let l2 = 3 + side(&on, 100, true) + u64::from(on.gpu.l1_latency) - 1;
    for (k, &a) in addrs.iter().enumerate() {
        let alone = after_copy(&off, copy, &[a]).load_latency.max;
        let filled = after_copy(&on, copy, &[a]).load_latency.max;
        assert_eq!(filled, if k < 2 { l2 } else { alone }, "{a:#x}");
        assert!(l2 < alone);
    }
    // The copy takes no time: a kernel that reads nothing it copied is the same run.
    let elsewhere = after_copy(&on, (0x80000, 4096), &addrs);
    assert_eq!(elsewhere.cycles, without.cycles);
    assert_eq!(elsewhere.l2.hits, 0);
}

#[test]
fn a_workloads_host_copies_fill_the_l2_before_its_kernel() {
    // vectoradd, 2,048 floats: the host copies a, b and c (8 KB each, as the source does),
    // the kernel reads a and b and writes c. With the copies filling the L2, no read reaches
    // the DRAM. (Its 1,024-thread blocks do not fit tiny's SM.)
    let off = preset("turing-rtx2060s");
    let on = off.variant(&["l2.fill_on_copy=true"]).unwrap();
    let w = Workload::Suite {
        spec: "vectoradd:n=2048",
        seed: 1,
    };
    let cold = run(&off, w, None).unwrap();
    let warm = run(&on, w, None).unwrap();
    assert_eq!((cold.copies, warm.copies), (3, 3));
    let reads = |r: &RunSummary| r.l2.by_kind[&crate::mem::slice::AccessKind::Read];
    // 2 arrays x 8 KB / 32-byte sectors.
    assert_eq!(reads(&cold).accesses, 512);
    assert_eq!(reads(&cold).hits, 0);
    assert_eq!(reads(&warm).hits, 512, "{:?}", warm.l2);
    assert!(warm.cycles < cold.cycles);
}

/// Lane 0 of one warp loads `lines` lines of L1 set 0 (512 bytes apart on tiny's 4 sets of
/// 128-byte lines) in order, twice, each value used before the next load; the kernel declares
/// `shmem` bytes of shared memory.
fn twice_through_one_set(s: &Spec, lines: u64, shmem: u32) -> RunSummary {
    let dir = tempfile::tempdir().unwrap();
    let mut body = Vec::new();
    for k in 0..2 * lines {
        let pc = 0x40 * k;
        body.push(load1(pc, 4, 0x10000 + 512 * (k % lines)));
        body.extend(chain(pc + 0x10, 4, 1));
    }
    blocks_trace(dir.path(), &[body]);
    let path = dir.path().join("kernel-1.traceg");
    let t = std::fs::read_to_string(&path).unwrap().replacen(
        "-block dim = (32,1,1)\n",
        &format!("-block dim = (32,1,1)\n-shmem = {shmem}\n"),
        1,
    );
    std::fs::write(&path, t).unwrap();
    run_trace(s, dir.path(), None).unwrap()
}

#[test]
fn each_kernels_l1_is_what_its_shared_memory_leaves_of_the_unified_storage() {
    // tiny's L1 is 4 ways of 4 sets of 128 bytes (2 KB); 8 KB unified is 16 ways at most.
    let fixed = quiet()
        .variant(&["gpu.sms=1", "gpu.shmem_bytes=6144"])
        .unwrap();
    let unified = fixed
        .variant(&["gpu.unified_l1_kb=8", "gpu.shmem_carveouts=0,2,6"])
        .unwrap();
    let hits = |r: &RunSummary| r.l1.hits;
    // (shared memory a block, KB of L1, lines the second pass hits of 8 and of 14.) The
    // carve-out holds the shared memory of as many blocks as the SM gets: the grid's one block
    // here, though the SM could hold up to 6 of 1,024 bytes (GPGPU-Sim's max_cta cut to the
    // grid), so 1,024 bytes take the 2 KB carve-out, not 6 KB; 3,072 bytes take the 6 KB.
    for (shmem, kb, of8, of14) in [
        (0, 8, 8, 14),
        (512, 6, 8, 0),
        (1024, 6, 8, 0),
        (3072, 2, 0, 0),
    ] {
        let r8 = twice_through_one_set(&unified, 8, shmem);
        let r14 = twice_through_one_set(&unified, 14, shmem);
        assert_eq!(r8.kernels[0].l1_kb, Some(kb), "{shmem}");
        assert_eq!((hits(&r8), hits(&r14)), (of8, of14), "{shmem}");
        // Without the unified storage the L1 is gpu.l1_cache's 4 ways, whatever the kernel.
        let f8 = twice_through_one_set(&fixed, 8, shmem);
        assert_eq!(f8.kernels[0].l1_kb, None);
        assert_eq!(hits(&f8), 0, "{shmem}");
    }
    // The 4-way L1 of the last row is gpu.l1_cache's own: the same run as without.
    let (a, b) = (
        twice_through_one_set(&unified, 8, 3072),
        twice_through_one_set(&fixed, 8, 3072),
    );
    assert_eq!((a.cycles, a.l1.clone()), (b.cycles, b.l1.clone()));
}

#[test]
fn cold_caches_start_each_kernel_with_nothing_cached() {
    // The same kernel twice: its second launch finds the first's lines in the L2 (tiny keeps
    // the L1 between kernels), unless every kernel starts cold, as under Nsight Compute.
    let s = quiet();
    let dir = two_blocks_twice();
    let go = |cold_caches: bool| {
        let mut o = RunOptions {
            cold_caches,
            ..RunOptions::default()
        };
        run_with(&s, Workload::Trace(dir.path()), &mut o).unwrap()
    };
    let (warm, cold) = (go(false), go(true));
    let first = &warm.kernels[0];
    // The first launch is the same either way.
    assert_eq!(cold.kernels[0].cycles, first.cycles);
    assert_eq!(cold.kernels[0].l2, first.l2);
    // Warm, the second launch's line is cached (an L1 hit on tiny, which keeps its L1); cold,
    // it runs exactly as the first.
    assert!(warm.kernels[1].l1.hits > 0, "{:?}", warm.kernels[1].l1);
    assert!(warm.kernels[1].cycles < first.cycles);
    assert_eq!(cold.kernels[1].cycles, first.cycles);
    assert_eq!(cold.kernels[1].l1, first.l1);
    assert_eq!(cold.kernels[1].l2, first.l2);
}

/// The progress a run shows: a trace's kernels known ahead, each kernel counted alike, its
/// part done never going back, and the second kernel's launch wait shown at half the run.
#[test]
fn a_runs_progress_counts_its_kernels_and_never_goes_back() {
    let s = quiet()
        .variant(&["gpu.kernel_launch_latency=40000"])
        .unwrap();
    let dir = two_blocks_twice();
    let seen = std::cell::RefCell::new(Vec::new());
    let record = |p: Progress| seen.borrow_mut().push(p);
    let r = run_trace(&s, dir.path(), Some(&record)).unwrap();
    let seen = seen.into_inner();
    assert!(seen.len() >= 2, "{seen:?}");
    assert!(seen.iter().all(|p| p.kernels == Some(2) && p.blocks == 2));
    assert!(seen.windows(2).all(|w| w[0].cycle < w[1].cycle));
    assert!(seen.windows(2).all(|w| w[0].fraction() <= w[1].fraction()));
    assert!(seen.iter().all(|p| p.cycle < r.cycles));
    let second = seen.iter().filter(|p| p.kernels_done == 1).count();
    assert!(second > 0 && seen.iter().all(|p| p.kernels_done < 2));
    for p in seen.iter().filter(|p| p.kernels_done == 1) {
        assert_eq!((p.blocks_done, p.fraction()), (0, 0.5), "{p:?}");
    }
    let p = |kernels_done, kernels, blocks_done| Progress {
        cycle: 0,
        kernels_done,
        kernels,
        blocks_done,
        blocks: 10,
    };
    assert_eq!(p(1, Some(4), 5).fraction(), 0.375);
    assert_eq!(
        p(2, None, 5).fraction(),
        0.5,
        "the running kernel's part alone"
    );
}

/// Statistics over time: the samples cover the run without a gap, add up to its figures, and
/// taking them changes nothing.
#[test]
fn samples_over_time_add_up_to_the_run_and_change_nothing() {
    let s = preset("tiny").variant(&["prefetch.kind=mt-hwp"]).unwrap();
    let k = crate::dispatch::kernel("pfstream").unwrap();
    let w = Workload::Kernel {
        kernel: &k,
        seed: 1,
    };
    let plain = run(&s, w, None).unwrap();
    let mut opts = RunOptions {
        stats_interval: Some(500),
        ..RunOptions::default()
    };
    let sampled = run_with(&s, w, &mut opts).unwrap();
    assert_eq!(plain, sampled, "sampling changed the run");
    let x = &opts.samples;
    assert!(x.len() >= 4, "{} samples", x.len());
    assert!(x.windows(2).all(|w| w[1].cycle == w[0].cycle + w[1].cycles));
    assert_eq!(x[0].cycle, x[0].cycles);
    assert!(x.iter().all(|s| s.cycles > 0));
    assert!(x[..x.len() - 1]
        .iter()
        .enumerate()
        .all(|(i, s)| s.cycle >= 500 * (i as u64 + 1)));
    let sum = |f: fn(&Sample) -> u64| x.iter().map(f).sum::<u64>();
    assert_eq!(sum(|s| s.cycles), plain.cycles);
    assert_eq!(sum(|s| s.instructions), plain.instructions);
    assert_eq!(sum(|s| s.thread_instructions), plain.thread_instructions);
    assert_eq!(sum(|s| s.l1_accesses), plain.l1.accesses);
    assert_eq!(sum(|s| s.l2_accesses), plain.l2.accesses);
    assert_eq!(sum(|s| s.dram_read_bytes), plain.kernels[0].dram_read_bytes);
    assert_eq!(x.last().unwrap().kernels_done, 1);
    assert!(x
        .iter()
        .any(|s| s.l1_mshr_waiting > 0 && s.memory_inside > 0));
}
