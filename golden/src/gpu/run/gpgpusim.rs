//! A run's figures as GPGPU-Sim prints its statistics at the end of each kernel (`warpsmith run
//! --format gpgpusim`), for Accel-Sim's statistics scripts and anything else written against
//! that output: per kernel a block of `name = value` lines, the per-kernel figures
//! (`gpu_sim_cycle`, `gpu_sim_insn`, `gpu_ipc`) and the running totals GPGPU-Sim keeps across
//! kernels (`gpu_tot_*`, the caches' totals and breakdowns, `total dram reads`), which a script
//! differences between kernels. Decisions on the names:
//! * Instructions are thread instructions (GPGPU-Sim's `gpu_sim_insn`); warp instructions are
//!   `gpgpu_n_tot_w_icount`.
//! * A cache's misses are its misses and sector misses; its pending hits, the requests merged
//!   into an MSHR entry (GPGPU-Sim's `HIT_RESERVED`).
//! * The L1's kinds are GPGPU-Sim's (`GLOBAL_ACC_R`, ...); the L2 sees the L1s' reads and writes
//!   as `GLOBAL_ACC_R` and `GLOBAL_ACC_W` (local accesses are not told apart there) and
//!   prefetches (seed 001) under the name `PREFETCH_ACC_R`, which GPGPU-Sim does not have.
//! * DRAM reads and writes are 32-byte sectors moved, as `correlate` counts them.
//! * Not printed, having no counterpart: `gpu_occupancy` (achieved occupancy is not
//!   measured) and `L2_BW`.

use super::RunSummary;
use crate::mem::slice::{AccessKind, KindStats, SliceStats};
use std::fmt::Write;

/// The L1's kinds, with GPGPU-Sim's names.
const L1_KINDS: [(AccessKind, &str); 4] = [
    (AccessKind::GlobalRead, "GLOBAL_ACC_R"),
    (AccessKind::GlobalWrite, "GLOBAL_ACC_W"),
    (AccessKind::LocalRead, "LOCAL_ACC_R"),
    (AccessKind::LocalWrite, "LOCAL_ACC_W"),
];

/// The L2's kinds, with GPGPU-Sim's names (prefetches: our own).
const L2_KINDS: [(AccessKind, &str); 3] = [
    (AccessKind::Read, "GLOBAL_ACC_R"),
    (AccessKind::Write, "GLOBAL_ACC_W"),
    (AccessKind::Prefetch, "PREFETCH_ACC_R"),
];

/// The text of `r`, a block per kernel.
pub fn text(r: &RunSummary) -> String {
    let mut t = String::new();
    let (mut cycles, mut threads, mut warps, mut blocks) = (0u64, 0u64, 0u64, 0u64);
    let (mut l1, mut l2) = (SliceStats::default(), SliceStats::default());
    let (mut reads, mut writes) = (0u64, 0u64);
    for (i, k) in r.kernels.iter().enumerate() {
        cycles += k.cycles;
        threads += k.thread_instructions;
        warps += k.instructions;
        blocks += k.blocks;
        l1.add(&k.l1);
        l2.add(&k.l2);
        reads += k.dram_read_bytes.div_ceil(32);
        writes += k.dram_write_bytes.div_ceil(32);
        let ipc = |insn: u64, cyc: u64| insn as f64 / cyc.max(1) as f64;
        let _ = writeln!(t, "kernel_name = {}", k.name);
        let _ = writeln!(t, "kernel_launch_uid = {}", i + 1);
        let _ = writeln!(t, "gpu_sim_cycle = {}", k.cycles);
        let _ = writeln!(t, "gpu_sim_insn = {}", k.thread_instructions);
        let _ = writeln!(t, "gpu_ipc = {:12.4}", ipc(k.thread_instructions, k.cycles));
        let _ = writeln!(t, "gpu_tot_sim_cycle = {cycles}");
        let _ = writeln!(t, "gpu_tot_sim_insn = {threads}");
        let _ = writeln!(t, "gpu_tot_ipc = {:12.4}", ipc(threads, cycles));
        let _ = writeln!(t, "gpu_tot_issued_cta = {blocks}");
        totals(&mut t, "L1D", &l1);
        totals(&mut t, "L2", &l2);
        let _ = writeln!(t, "Total_core_cache_stats_breakdown:");
        breakdown(&mut t, "Total_core_cache_stats_breakdown", &l1, &L1_KINDS);
        let _ = writeln!(t, "L2_cache_stats_breakdown:");
        breakdown(&mut t, "L2_cache_stats_breakdown", &l2, &L2_KINDS);
        let _ = writeln!(t, "gpgpu_n_tot_thrd_icount = {threads}");
        let _ = writeln!(t, "gpgpu_n_tot_w_icount = {warps}");
        let _ = writeln!(t, "total dram reads = {reads}");
        let _ = writeln!(t, "total dram writes = {writes}");
        let _ = writeln!(t);
    }
    t
}

/// A cache's `<name>_total_cache_*` lines.
fn totals(t: &mut String, name: &str, c: &SliceStats) {
    let misses = c.misses + c.sector_misses;
    let fails: u64 = c.reservation_failures.values().sum();
    let rate = misses as f64 / c.accesses.max(1) as f64;
    let _ = writeln!(t, "\t{name}_total_cache_accesses = {}", c.accesses);
    let _ = writeln!(t, "\t{name}_total_cache_misses = {misses}");
    let _ = writeln!(t, "\t{name}_total_cache_miss_rate = {rate:.4}");
    let _ = writeln!(t, "\t{name}_total_cache_pending_hits = {}", c.mshr_merges);
    let _ = writeln!(t, "\t{name}_total_cache_reservation_fails = {fails}");
}

/// A cache's `<name>[KIND][STATUS]` lines, for each kind.
fn breakdown(t: &mut String, name: &str, c: &SliceStats, kinds: &[(AccessKind, &str)]) {
    for &(kind, label) in kinds {
        let k: KindStats = c.by_kind.get(&kind).copied().unwrap_or_default();
        for (status, n) in [
            ("HIT", k.hits),
            ("HIT_RESERVED", k.mshr_merges),
            ("MISS", k.misses),
            ("SECTOR_MISS", k.sector_misses),
            ("RESERVATION_FAIL", k.reservation_failures),
            ("TOTAL_ACCESS", k.accesses),
        ] {
            let _ = writeln!(t, "\t{name}[{label}][{status}] = {n}");
        }
    }
}
