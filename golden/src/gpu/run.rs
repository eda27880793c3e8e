//! The GPU on an Accel-Sim trace: the kernels of a `kernelslist.g`, one after another, their
//! thread blocks dispatched round-robin over the SMs as slots free (one block per SM per
//! cycle, streamed from the trace file), every SM in front of one memory side
//! ([`MemorySide`]: interconnect, L2 partitions, DRAM controllers), stepped across the clock
//! domains. Host-to-device copies of the list are counted, not simulated.

use super::sm::{kind_of, Kind, Sm};
use crate::mc::system::{Dist, DramTotals, McError};
use crate::mem::partition::CORE;
use crate::mem::side::MemorySide;
use crate::mem::slice::SliceStats;
use crate::workload::accelsim::{read_list, KernelReader, ListEntry, TraceError};
use serde::Serialize;
use spec::Spec;
use std::path::Path;
use thiserror::Error;

/// Core cycles without an issued instruction after which a run has stalled.
pub const STALL_CYCLES: u64 = 1_000_000;

#[derive(Debug, Error)]
pub enum GpuError {
    #[error(transparent)]
    Trace(#[from] TraceError),
    #[error("{kernel}: a block of {warps} warps does not fit an SM of gpu.warps_per_sm = {most}; raise it (--set gpu.warps_per_sm={warps})")]
    BlockTooLarge {
        kernel: String,
        warps: u32,
        most: u32,
    },
    #[error("the GPU stalled: no instruction issued from cycle {since} to {now}")]
    Stalled { since: u64, now: u64 },
    #[error(transparent)]
    Memory(#[from] McError),
}

/// One kernel's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KernelSummary {
    pub name: String,
    pub id: u64,
    pub blocks: u64,
    pub instructions: u64,
    pub cycles: u64,
    pub ipc: f64,
}

/// A run's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunSummary {
    pub kernels: Vec<KernelSummary>,
    /// Host-to-device copies of the list (not simulated).
    pub copies: u64,
    pub cycles: u64,
    pub instructions: u64,
    pub ipc: f64,
    /// The SMs' L1s, summed.
    pub l1: SliceStats,
    /// Global loads, issue to last answer (core cycles).
    pub load_latency: Dist,
    pub l2: SliceStats,
    pub dram: DramTotals,
}

/// Run the trace folder (or list file) `list` on `spec`'s GPU; `progress` sees the core cycle
/// now and then.
pub fn run_trace(
    spec: &Spec,
    list: &Path,
    progress: Option<&dyn Fn(u64)>,
) -> Result<RunSummary, GpuError> {
    let n = spec.gpu.sms as usize;
    let mut side = MemorySide::new(spec, n);
    let mut sms: Vec<Sm> = (0..n as u32).map(|i| Sm::new(spec, i)).collect();
    let mut kernels = Vec::new();
    let mut copies = 0;
    let mut rr = 0usize;
    for entry in read_list(list)? {
        let path = match entry {
            ListEntry::Memcpy { .. } => {
                copies += 1;
                continue;
            }
            ListEntry::Kernel(path) => path,
        };
        let mut reader = KernelReader::open(&path)?;
        let h = reader.header().clone();
        if h.warps() > spec.gpu.warps_per_sm {
            return Err(GpuError::BlockTooLarge {
                kernel: h.name.clone(),
                warps: h.warps(),
                most: spec.gpu.warps_per_sm,
            });
        }
        let before: u64 = sms.iter().map(Sm::instructions).sum();
        let start = side.core_cycle();
        let mut next = reader.next_block()?;
        let mut blocks = 0;
        let mut last_work = start;
        let mut seen = before;
        loop {
            let mask = side.step(None)?;
            if mask & CORE == 0 {
                continue;
            }
            let now = side.core_cycle();
            // Dispatch: one block per SM per cycle, round-robin over the SMs.
            for k in 0..n {
                let s = (rr + k) % n;
                let Some(b) = next.take_if(|b| sms[s].fits(b.warps.len())) else {
                    continue;
                };
                let kinds = b
                    .warps
                    .iter()
                    .map(|w| {
                        w.iter()
                            .map(|i| kind_of(reader.opcode(i.op), i, &h))
                            .collect::<Vec<Kind>>()
                    })
                    .collect();
                sms[s].launch(b, kinds);
                blocks += 1;
                rr = s + 1;
                next = reader.next_block()?;
                if next.is_none() {
                    break;
                }
            }
            for sm in &mut sms {
                sm.cycle(now, &mut side);
            }
            if next.is_none() && sms.iter().all(Sm::idle) {
                break;
            }
            let issued: u64 = sms.iter().map(Sm::instructions).sum();
            if issued != seen {
                seen = issued;
                last_work = now;
            }
            if now - last_work > STALL_CYCLES {
                return Err(GpuError::Stalled {
                    since: last_work,
                    now,
                });
            }
            if now.is_multiple_of(1 << 14) {
                if let Some(p) = progress {
                    p(now);
                }
            }
        }
        let instructions = sms.iter().map(Sm::instructions).sum::<u64>() - before;
        let cycles = side.core_cycle() - start;
        kernels.push(KernelSummary {
            name: h.name.clone(),
            id: h.id,
            blocks,
            instructions,
            cycles,
            ipc: instructions as f64 / cycles.max(1) as f64,
        });
    }
    // Written data still in the memory side drains (its acknowledgements are dropped).
    while side.inside() > 0 {
        side.step(None)?;
        for port in 0..n {
            while side.pop_reply(port).is_some() {}
        }
    }
    let cycles = side.core_cycle();
    let instructions: u64 = kernels.iter().map(|k| k.instructions).sum();
    let mut l1 = SliceStats::default();
    let mut latency = crate::mc::open_loop::Hist::default();
    for sm in &sms {
        let s = sm.stats();
        l1.add(&s.l1);
        latency.merge(&s.load_latency);
    }
    let (p, _, _) = side.stats();
    Ok(RunSummary {
        kernels,
        copies,
        cycles,
        instructions,
        ipc: instructions as f64 / cycles.max(1) as f64,
        l1,
        load_latency: latency.dist(),
        l2: p.slices,
        dram: side.dram().dram_totals(),
    })
}

#[cfg(test)]
#[path = "run_tests.rs"]
mod tests;
