//! The memory path: coalescing, the documented latency of each stage, the L1, its invalidation,
//! stores and the Warped-MC watch.

use super::*;

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
        // load is answered, EXIT one cycle later, and the block leaves then. (After the
        // launch latency, GPU-30.)
        let launch = u64::from(s.gpu.kernel_launch_latency);
        assert_eq!(free.kernels[0].cycles, launch + 1 + lat, "{p}");
        assert_eq!(dependent.kernels[0].cycles, launch + 2 + lat, "{p}");
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

/// A banked L1 (`gpu.l1_banks`, decision GPU-34): the LD/ST unit hands it, and it takes, one
/// access a bank a cycle, so loads of whole lines (four sectors, four banks) finish sooner with
/// four banks than with one, with the same accesses and misses; loads of one sector each, one
/// instruction's access a cycle either way, take exactly the same cycles.
#[test]
fn a_banked_l1_takes_a_lines_four_sectors_in_one_cycle() {
    // turing-rtx2060s: its L1 has sectors and room for the lines (tiny's 16 lines are bound by
    // its miss queue; fermi's L1 has whole lines).
    let one = preset("turing-rtx2060s");
    assert_eq!(one.gpu.l1_banks, 1);
    let four = ConfigRequest::preset("turing-rtx2060s")
        .with("gpu.l1_banks=4")
        .resolve()
        .unwrap();
    // Eight independent loads of a whole line each (32 lanes, 4 bytes apart), twice: the
    // second time they hit.
    let line = |k: u64| {
        format!(
            "{:04x} ffffffff 1 R{} LDG.E.SYS 1 R2 4 1 {:#x} 4 0",
            16 * k,
            20 + k % 8,
            0x10000 + 0x1000 * (k % 8)
        )
    };
    let wide: Vec<String> = (0..16).map(line).collect();
    let (a, b) = (
        blocks_run(&one, std::slice::from_ref(&wide)),
        blocks_run(&four, &[wide]),
    );
    let counts = |r: &RunSummary| (r.l1.accesses, r.l1.hits, r.l1.misses, r.l1.sector_misses);
    assert_eq!(counts(&a), counts(&b));
    assert_eq!(a.l1.accesses, 64);
    assert!(
        b.kernels[0].cycles < a.kernels[0].cycles,
        "{} with four banks, {} with one",
        b.kernels[0].cycles,
        a.kernels[0].cycles
    );
    let narrow: Vec<String> = (0..16)
        .map(|k| load1(16 * k, 20 + k as u32 % 8, 0x10000 + 0x1000 * (k % 8)))
        .collect();
    let (a, b) = (
        blocks_run(&one, std::slice::from_ref(&narrow)),
        blocks_run(&four, &[narrow]),
    );
    assert_eq!(a.kernels[0].cycles, b.kernels[0].cycles);
    assert_eq!(counts(&a), counts(&b));
}
