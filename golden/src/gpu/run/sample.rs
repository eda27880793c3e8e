//! Statistics over time (`warpsmith run --stats-interval N`): a [`Sample`] at the first core
//! cycle at or after each multiple of N (idle stretches the run jumps over are covered by the
//! sample after them, which says how many cycles it covers), each the figures of the cycles
//! since the last sample: IPC, the L1s' and L2's hit rates, DRAM traffic, what is in flight,
//! and the prefetch throttle's degree. And a run's [`Progress`], for a progress display.

use super::gpu::Gpu;
use super::Sm;
use crate::mem::slice::SliceStats;
use serde::Serialize;

/// How far a run has got, for a progress display (now and then, [`RunOptions::progress`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// The core cycle.
    pub cycle: u64,
    /// Kernels finished.
    pub kernels_done: usize,
    /// Kernels the run launches, when known ahead: one for a kernel, a trace's list; a
    /// workload of the library launches as its host code decides.
    pub kernels: Option<usize>,
    /// Blocks of the running kernel finished, and its grid's blocks.
    pub blocks_done: u64,
    pub blocks: u64,
}

impl Progress {
    /// The part of the run done, from 0 to 1, counting each kernel alike and a kernel by its
    /// finished blocks (of the running kernel alone when the kernels are not known ahead).
    pub fn fraction(&self) -> f64 {
        let kernel = self.blocks_done as f64 / self.blocks.max(1) as f64;
        match self.kernels {
            Some(n) => ((self.kernels_done as f64 + kernel) / n.max(1) as f64).min(1.0),
            None => kernel,
        }
    }
}

/// The figures of the cycles since the previous sample (or the run's start).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Sample {
    /// The core cycle it was taken at, and the cycles it covers.
    pub cycle: u64,
    pub cycles: u64,
    /// Kernels finished before it.
    pub kernels_done: usize,
    /// Warp and thread instructions issued, and each per cycle.
    pub instructions: u64,
    pub thread_instructions: u64,
    pub ipc: f64,
    pub thread_ipc: f64,
    /// The L1s' (summed) and L2 slices' accesses and hits, and the hit rate (0 without an
    /// access).
    pub l1_accesses: u64,
    pub l1_hit_rate: f64,
    pub l2_accesses: u64,
    pub l2_hit_rate: f64,
    /// Bytes the DRAM read and wrote, and both per core cycle.
    pub dram_read_bytes: u64,
    pub dram_write_bytes: u64,
    pub dram_bytes_per_cycle: f64,
    /// At the sample: requests waiting in the L1s' MSHRs (summed), and inside the memory side
    /// (networks and partitions).
    pub l1_mshr_waiting: usize,
    pub memory_inside: usize,
    /// SM 0's prefetch throttle degree at its last update (`null`: no prefetcher, or no
    /// update yet).
    pub prefetch_degree: Option<u8>,
}

/// The cumulative counts a sample is the difference of.
#[derive(Debug, Clone, Default)]
pub(super) struct Counts {
    cycle: u64,
    instructions: u64,
    threads: u64,
    l1: (u64, u64),
    l2: (u64, u64),
    dram: (u64, u64),
}

impl Counts {
    /// The core cycle they were taken at.
    pub(super) fn cycle(&self) -> u64 {
        self.cycle
    }
}

fn accesses_hits(s: &SliceStats) -> (u64, u64) {
    (s.accesses, s.hits)
}

fn rate(part: u64, of: u64) -> f64 {
    if of == 0 {
        0.0
    } else {
        part as f64 / of as f64
    }
}

impl Gpu<'_, '_> {
    fn counts(&self, now: u64) -> Counts {
        let l1 = self.sms.iter().map(|sm| accesses_hits(&sm.l1_stats()));
        Counts {
            cycle: now,
            instructions: self.sms.iter().map(Sm::instructions).sum(),
            threads: self.sms.iter().map(Sm::thread_instructions).sum(),
            l1: l1.fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1)),
            l2: accesses_hits(&self.side.stats().0.slices),
            dram: self.side.dram().bytes_moved(),
        }
    }

    /// The sample at core cycle `now`, and the counts it leaves for the next.
    pub(super) fn sample(&self, now: u64, last: &Counts) -> (Sample, Counts) {
        let c = self.counts(now);
        let cycles = now - last.cycle;
        let instructions = c.instructions - last.instructions;
        let thread_instructions = c.threads - last.threads;
        let (l1a, l1h) = (c.l1.0 - last.l1.0, c.l1.1 - last.l1.1);
        let (l2a, l2h) = (c.l2.0 - last.l2.0, c.l2.1 - last.l2.1);
        let (read, written) = (c.dram.0 - last.dram.0, c.dram.1 - last.dram.1);
        let sample = Sample {
            cycle: now,
            cycles,
            kernels_done: self.kernels_done,
            instructions,
            thread_instructions,
            ipc: rate(instructions, cycles),
            thread_ipc: rate(thread_instructions, cycles),
            l1_accesses: l1a,
            l1_hit_rate: rate(l1h, l1a),
            l2_accesses: l2a,
            l2_hit_rate: rate(l2h, l2a),
            dram_read_bytes: read,
            dram_write_bytes: written,
            dram_bytes_per_cycle: rate(read + written, cycles),
            l1_mshr_waiting: self.sms.iter().map(Sm::l1_mshr_waiting).sum(),
            memory_inside: self.side.inside(),
            prefetch_degree: self.sms.first().and_then(Sm::prefetch_degree),
        };
        (sample, c)
    }
}
