//! Coalescing and scheduling: a kernel as the stream of warp-level load instructions a GPU issues.
//!
//! * **Warps.** A warp is `gpu.warp_size` consecutive linear thread ids of a block (linear tid =
//!   `tx + ty*bx + tz*bx*by`); threads past the block's thread count are inactive, so the last
//!   warp may be partial.
//! * **Coalescing.** A thread's byte address is `base + index*elem_bytes`; its line address
//!   clears the low `log2(gpu.line_bytes)` bits. One load of one warp requests its distinct line
//!   addresses, in ascending order. (Bases are multiples of the element size and elements are at
//!   most 16 bytes, so no element straddles two lines.)
//! * **CTA dispatch.** Blocks are taken in linear block-id order (`x + y*gx + z*gx*gy`) and
//!   handed out round-robin over the SMs — slot 0 of SM 0, SM 1, ..., then slot 1 of each — until
//!   every SM holds its limit of `min(gpu.ctas_per_sm, gpu.warps_per_sm / warps_per_block)` CTAs
//!   (at least 1). Afterwards, when a CTA finishes, the next waiting block goes to that SM (SMs
//!   freed in the same cycle are served in SM order).
//! * **Warp scheduling.** Each SM issues at most one load instruction per cycle, chosen greedy-
//!   then-oldest (GTO): the warp it issued last if that one is ready, else the oldest ready warp
//!   (earliest dispatched CTA first, then lowest local warp id). After issuing, a warp waits a
//!   memory latency drawn uniformly from [`LATENCY_MIN`]`..=`[`LATENCY_MAX`] cycles by a
//!   [`Rng`] seeded with the schedule seed, one draw per issued load in issue (cycle, SM) order.
//!   A warp that has issued its whole program retires when
//!   its last latency has elapsed; a CTA finishes when all its warps retired, and its slot is
//!   refilled in that same cycle (the new CTA's warps may issue in that cycle).
//!
//! Cycles in which no SM can issue are skipped (the cycle numbers stay exact).

use super::kernel::{load_label, validate, KernelDesc, LoadInstance, WarpProgram};
use super::WorkloadError;
use crate::rng::Rng;
use spec::GpuSpec;
use std::collections::VecDeque;

/// Fewest cycles a warp waits after issuing a load before it can issue the next.
pub const LATENCY_MIN: u64 = 20;
/// Most cycles a warp waits after issuing a load.
pub const LATENCY_MAX: u64 = 200;

/// One warp-level load instruction and the line requests it produces.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct WarpLoad {
    /// Cycle the SM issued it.
    pub cycle: u64,
    /// SM that issued it.
    pub sm: u32,
    /// Linear block id (`x + y*gx + z*gx*gy`).
    pub block_linear: u32,
    /// Block id (x, y, z).
    pub tb: [u32; 3],
    /// Local warp id (warp within its block).
    pub warp: u32,
    /// PC of the load.
    pub pc: u64,
    /// Load execution count: how many times this warp executed this PC before.
    pub lec: u32,
    /// Distinct line addresses the warp requests, ascending.
    pub lines: Vec<u64>,
}

/// A load resolved against its array.
#[derive(Debug, Clone)]
struct CLoad {
    pc: u64,
    base: u64,
    elem_bytes: u64,
    len: u64,
    index: super::Affine,
    irregular: bool,
}

#[derive(Debug, Clone)]
struct WarpState {
    /// Next program step to issue.
    next: u64,
    /// Cycle from which the warp may issue again.
    ready_at: u64,
    retired: bool,
}

#[derive(Debug, Clone)]
struct Cta {
    block: u32,
    tb: [u32; 3],
    warps: Vec<WarpState>,
    live: u32,
}

#[derive(Debug, Clone, Default)]
struct Sm {
    /// Resident CTAs, oldest (earliest dispatched) first.
    ctas: VecDeque<Cta>,
    /// The warp issued last, as (block, local warp).
    greedy: Option<(u32, u32)>,
}

/// The lazy stream of [`WarpLoad`]s of one kernel run, in (cycle, SM) order. Create it with
/// [`schedule`]; it ends when every block has finished.
#[derive(Debug, Clone)]
pub struct Schedule {
    kernel: KernelDesc,
    loads: Vec<CLoad>,
    program: WarpProgram,
    warp_size: u32,
    line_mask: u64,
    threads: u32,
    warps_per_block: u32,
    cta_limit: usize,
    seed: u64,
    rng: Rng,
    sms: Vec<Sm>,
    next_block: u64,
    num_blocks: u64,
    cycle: u64,
    out: VecDeque<WarpLoad>,
}

/// Schedule a kernel on the GPU `gpu`. `seed` fixes the memory latencies and the indices of
/// irregular loads: the same seed gives the same stream.
pub fn schedule(k: &KernelDesc, gpu: &GpuSpec, seed: u64) -> Result<Schedule, WorkloadError> {
    validate(k)?;
    let mut loads = Vec::with_capacity(k.loads.len());
    for (i, l) in k.loads.iter().enumerate() {
        // `validate` checked that every load names a declared array.
        let a = k
            .array(&l.array)
            .ok_or_else(|| WorkloadError::UnknownArray {
                kernel: k.name.clone(),
                load: load_label(i, l),
                array: l.array.clone(),
                available: k
                    .arrays
                    .iter()
                    .map(|a| a.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })?;
        loads.push(CLoad {
            pc: l.pc,
            base: a.base,
            elem_bytes: a.elem_bytes.into(),
            len: a.len,
            index: l.index,
            irregular: l.irregular,
        });
    }
    let warp_size = gpu.warp_size.max(1);
    let warps_per_block = k.warps_per_block(warp_size);
    let by_warps = gpu.warps_per_sm / warps_per_block;
    let cta_limit = gpu.ctas_per_sm.min(by_warps).max(1) as usize;
    let mut s = Schedule {
        kernel: k.clone(),
        loads,
        program: k.warp_program(),
        warp_size,
        line_mask: !(u64::from(gpu.line_bytes.max(1)) - 1),
        threads: k.threads_per_block(),
        warps_per_block,
        cta_limit,
        seed,
        rng: Rng::new(seed),
        sms: vec![Sm::default(); gpu.sms.max(1) as usize],
        next_block: 0,
        num_blocks: k.num_blocks(),
        cycle: 0,
        out: VecDeque::new(),
    };
    s.dispatch();
    Ok(s)
}

/// A 64-bit hash of the inputs of an irregular index (SplitMix64 finalizer over each word).
fn hash(words: [u64; 5]) -> u64 {
    let mut h = 0x243F_6A88_85A3_08D3u64;
    for w in words {
        h ^= w;
        h = crate::rng::splitmix64(&mut h);
    }
    h
}

impl Schedule {
    /// The kernel being scheduled.
    pub fn kernel(&self) -> &KernelDesc {
        &self.kernel
    }

    /// Most CTAs resident on one SM at a time.
    pub fn cta_limit(&self) -> u32 {
        self.cta_limit as u32
    }

    /// Warps per thread block.
    pub fn warps_per_block(&self) -> u32 {
        self.warps_per_block
    }

    /// The program every warp runs.
    pub fn program(&self) -> &WarpProgram {
        &self.program
    }

    /// Linear ids of the blocks resident on `sm` now (oldest first; empty for an unknown SM).
    pub fn resident(&self, sm: u32) -> Vec<u32> {
        self.sms
            .get(sm as usize)
            .map(|s| s.ctas.iter().map(|c| c.block).collect())
            .unwrap_or_default()
    }

    /// The line requests of warp `warp` of block `tb` for one load instance.
    pub fn lines(&self, inst: &LoadInstance, tb: [u32; 3], warp: u32) -> Vec<u64> {
        let mut lines: Vec<u64> = self
            .lanes(inst, tb, warp)
            .map(|(_, addr)| addr & self.line_mask)
            .collect();
        lines.sort_unstable();
        lines.dedup();
        lines
    }

    /// The byte address each active lane (thread of the warp) of warp `warp` of block `tb`
    /// reads in one load instance, in lane order: `base + index * elem_bytes`, the index
    /// affine in the block, thread and iteration, or (an irregular load) a hash of the seed,
    /// PC, block, thread and iteration modulo the array's length.
    pub fn lanes(
        &self,
        inst: &LoadInstance,
        tb: [u32; 3],
        warp: u32,
    ) -> impl Iterator<Item = (u32, u64)> + '_ {
        let l = &self.loads[inst.load];
        let block_linear = self.kernel.block_linear(tb);
        let first = warp * self.warp_size;
        let last = (first + self.warp_size).min(self.threads);
        let iter = inst.iter;
        (first..last).map(move |tid| {
            let index = if l.irregular {
                let h = hash([
                    self.seed,
                    l.pc,
                    block_linear.into(),
                    tid.into(),
                    iter.into(),
                ]);
                i128::from(h % l.len)
            } else {
                l.index.eval(tb, self.kernel.thread_id(tid), iter)
            };
            // `validate` proved every address of every thread lies in 0..2^64.
            let addr = i128::from(l.base) + index * i128::from(l.elem_bytes);
            (tid - first, addr as u64)
        })
    }

    /// Bytes per element of load `load`'s array.
    pub fn elem_bytes(&self, load: usize) -> u32 {
        self.loads[load].elem_bytes as u32
    }

    /// Hand waiting blocks to SMs with a free slot, one per SM per round, in SM order.
    fn dispatch(&mut self) {
        loop {
            let mut placed = false;
            for sm in &mut self.sms {
                if self.next_block >= self.num_blocks {
                    return;
                }
                if sm.ctas.len() < self.cta_limit {
                    // Validated: the grid has at most u32::MAX blocks.
                    let block = self.next_block as u32;
                    self.next_block += 1;
                    sm.ctas.push_back(Cta {
                        block,
                        tb: self.kernel.block_id(block),
                        warps: vec![
                            WarpState {
                                next: 0,
                                ready_at: self.cycle,
                                retired: false,
                            };
                            self.warps_per_block as usize
                        ],
                        live: self.warps_per_block,
                    });
                    placed = true;
                }
            }
            if !placed {
                return;
            }
        }
    }

    /// Retire finished warps and remove finished CTAs.
    fn retire(&mut self) {
        let (now, len) = (self.cycle, self.program.len());
        for sm in &mut self.sms {
            for cta in &mut sm.ctas {
                for w in &mut cta.warps {
                    if !w.retired && w.next == len && w.ready_at <= now {
                        w.retired = true;
                        cta.live -= 1;
                    }
                }
            }
            sm.ctas.retain(|c| c.live > 0);
        }
    }

    /// GTO choice on one SM: (CTA position, local warp id) of the warp to issue, if any.
    fn pick(&self, sm: &Sm) -> Option<(usize, u32)> {
        let (now, len) = (self.cycle, self.program.len());
        let ready = |w: &WarpState| w.next < len && w.ready_at <= now;
        if let Some((block, warp)) = sm.greedy {
            if let Some(pos) = sm.ctas.iter().position(|c| c.block == block) {
                if ready(&sm.ctas[pos].warps[warp as usize]) {
                    return Some((pos, warp));
                }
            }
        }
        sm.ctas
            .iter()
            .enumerate()
            .find_map(|(pos, c)| c.warps.iter().position(ready).map(|w| (pos, w as u32)))
    }

    /// Simulate one cycle (at `self.cycle`), queueing what it issues; then advance the clock to
    /// the next cycle in which something can happen. False once every block has finished.
    fn step(&mut self) -> bool {
        self.retire();
        self.dispatch();
        if self.sms.iter().all(|s| s.ctas.is_empty()) {
            return false;
        }
        for i in 0..self.sms.len() {
            let Some((pos, warp)) = self.pick(&self.sms[i]) else {
                continue;
            };
            let cta = &self.sms[i].ctas[pos];
            let (block, tb) = (cta.block, cta.tb);
            // (`pick` takes only warps with a step left.)
            let Some(inst) = self.program.get(cta.warps[warp as usize].next) else {
                continue;
            };
            let lines = self.lines(&inst, tb, warp);
            let latency = self.rng.range(LATENCY_MIN, LATENCY_MAX);
            let sm = &mut self.sms[i];
            let w = &mut sm.ctas[pos].warps[warp as usize];
            w.next += 1;
            w.ready_at = self.cycle + latency;
            sm.greedy = Some((block, warp));
            self.out.push_back(WarpLoad {
                cycle: self.cycle,
                sm: i as u32,
                block_linear: block,
                tb,
                warp,
                pc: self.loads[inst.load].pc,
                lec: inst.lec,
                lines,
            });
        }
        let next = self
            .sms
            .iter()
            .flat_map(|s| s.ctas.iter())
            .flat_map(|c| c.warps.iter())
            .filter(|w| !w.retired)
            .map(|w| w.ready_at)
            .min()
            .unwrap_or(self.cycle);
        self.cycle = next.max(self.cycle + 1);
        true
    }
}

impl Iterator for Schedule {
    type Item = WarpLoad;

    fn next(&mut self) -> Option<WarpLoad> {
        loop {
            if let Some(w) = self.out.pop_front() {
                return Some(w);
            }
            if !self.step() {
                return None;
            }
        }
    }
}
