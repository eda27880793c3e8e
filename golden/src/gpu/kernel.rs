//! A built-in or TOML kernel ([`KernelDesc`]) as the SMs run it: every thread block's warps
//! as instruction lists, the same [`TraceBlock`]s an Accel-Sim trace gives, made on demand (any
//! block, in any order, as the dispatch policy asks).
//!
//! A warp runs the kernel's program ([`KernelDesc::warp_program`]) in groups: the loads before
//! the loop, then each loop iteration's loads. Each load is one `LDG` of the array's element
//! size, its lanes' addresses those of [`crate::workload::Schedule::lanes`] (so the OT
//! stimulus and the GPU see the same addresses), writing its own register (`R1`, `R2`, ... in
//! the group). After each group come `compute` arithmetic instructions: the first reads every
//! register the group loaded (the use: a warp waits there until its loads are answered) and the
//! accumulator `R0`, each writes `R0` and the others read it (a dependent chain). The warp ends
//! with `EXIT`.

use crate::workload::accelsim::{Inst, KernelHeader, LaneAddrs, Reg, Srcs, TraceBlock};
use crate::workload::opcode::{kind_of, Kind};
use crate::workload::{schedule, KernelDesc, Schedule, WorkloadError};
use spec::GpuSpec;
use std::sync::Arc;

/// The opcodes of generated instructions, by their index in [`Inst::op`].
pub const OPCODES: [&str; 3] = ["LDG.E", "FFMA", "EXIT"];
const LDG: u16 = 0;
const FFMA: u16 = 1;
const EXIT: u16 = 2;

/// Most loads in one group: their registers `R1..` stay below the zero register `R255`.
pub const MAX_GROUP_LOADS: usize = 254;

/// Instructions of a warp generated at a time: a warp holds at most this many (and the
/// generator's state), however long its program.
pub const CHUNK: usize = 64;

/// A kernel's blocks, generated.
pub struct KernelBlocks {
    gen: Arc<Generator>,
    /// The generators of the later instructions of the block last made ([`KernelBlocks::take`]).
    rest: Vec<KernelWarp>,
}

/// What every warp's generator reads: the schedule (each load's lane addresses) and the
/// kernel's header (the instructions' kinds).
struct Generator {
    sched: Schedule,
    header: KernelHeader,
    compute: u32,
}

impl KernelBlocks {
    /// `k` on the GPU of `gpu`; `seed` fixes the indices of irregular loads.
    pub fn new(k: &KernelDesc, gpu: &GpuSpec, seed: u64) -> Result<KernelBlocks, WorkloadError> {
        let sched = schedule(k, gpu, seed)?;
        if sched.program().largest_group() > MAX_GROUP_LOADS {
            return Err(WorkloadError::OutOfRange {
                kernel: k.name.clone(),
                field: "loads".into(),
                value: format!("more than {MAX_GROUP_LOADS} in one group"),
                legal: format!(
                    "at most {MAX_GROUP_LOADS} before the loop and {MAX_GROUP_LOADS} in it (the \
                        GPU gives each its own register)"
                ),
            });
        }
        let header = KernelHeader {
            name: k.name.clone(),
            id: 1,
            grid: k.grid,
            block: k.block,
            ..KernelHeader::default()
        };
        Ok(KernelBlocks {
            gen: Arc::new(Generator {
                sched,
                header,
                compute: k.compute,
            }),
            rest: Vec::new(),
        })
    }

    pub fn header(&self) -> &KernelHeader {
        &self.gen.header
    }

    pub fn kernel(&self) -> &KernelDesc {
        self.gen.sched.kernel()
    }

    /// Thread block `linear` (`x + y*gx + z*gx*gy`): each warp's first instructions (at most
    /// [`CHUNK`]), and per warp the generator of the rest.
    pub fn block(&self, linear: u64) -> (TraceBlock, Vec<KernelWarp>) {
        let k = self.gen.sched.kernel();
        let tb = k.block_id(linear as u32);
        let mut gens: Vec<KernelWarp> = (0..self.gen.sched.warps_per_block())
            .map(|w| KernelWarp::new(&self.gen, tb, w))
            .collect();
        let mut kinds = Vec::new();
        let warps = gens
            .iter_mut()
            .map(|g| {
                let mut insts = Vec::new();
                g.fill(&mut insts, &mut kinds);
                insts
            })
            .collect();
        (TraceBlock { id: tb, warps }, gens)
    }

    /// [`KernelBlocks::block`], keeping the generators for [`KernelBlocks::take_rest`].
    pub fn take(&mut self, linear: u64) -> TraceBlock {
        let (b, rest) = self.block(linear);
        self.rest = rest;
        b
    }

    /// The generators of the later instructions of the block last taken, their loads'
    /// addresses moved by `shift` (as its first instructions were).
    pub fn take_rest(&mut self, shift: u64) -> Vec<KernelWarp> {
        let mut rest = std::mem::take(&mut self.rest);
        for g in &mut rest {
            g.shift = shift;
        }
        rest
    }
}

/// The generator of a warp's later instructions: a built-in kernel's, or a benchmark kernel's
/// warp run by emulation ([`crate::suite`]).
#[derive(Debug)]
pub enum WarpGen {
    Kernel(KernelWarp),
    Suite(crate::suite::launch::SuiteWarp),
}

impl WarpGen {
    /// Whether it has generated the warp's last instruction.
    pub fn ended(&self) -> bool {
        match self {
            WarpGen::Kernel(g) => g.ended(),
            WarpGen::Suite(g) => g.ended(),
        }
    }

    /// Append the warp's next instructions (at most [`CHUNK`]) to `insts`, and their kinds
    /// to `kinds`.
    pub fn fill(&mut self, insts: &mut Vec<Inst>, kinds: &mut Vec<Kind>) {
        match self {
            WarpGen::Kernel(g) => g.fill(insts, kinds),
            WarpGen::Suite(g) => g.fill(insts, kinds),
        }
    }
}

/// Where a warp's generator is in its program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// At program step `step` (a load).
    Load,
    /// After a group's loads: `left` of its arithmetic instructions to come.
    Compute { left: u32 },
    /// Past its `EXIT`.
    Ended,
}

/// One warp's instructions, generated as the warp reaches them, [`CHUNK`] at a time: the
/// warp's program ([`crate::workload::WarpProgram`]) in groups, each load followed, at the end
/// of its group, by the kernel's `compute` arithmetic instructions, then `EXIT`.
pub struct KernelWarp {
    gen: Arc<Generator>,
    tb: [u32; 3],
    warp: u32,
    step: u64,
    phase: Phase,
    /// The registers the current group's loads wrote (read by its first arithmetic
    /// instruction).
    loaded: Srcs,
    /// The highest PC so far (arithmetic instructions and `EXIT` follow it), the active lanes
    /// of the last load and of the first.
    pc: u64,
    mask: u32,
    first_mask: Option<u32>,
    /// Added to every load's addresses (a watched run's later launches).
    shift: u64,
}

impl std::fmt::Debug for KernelWarp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KernelWarp")
            .field("tb", &self.tb)
            .field("warp", &self.warp)
            .field("step", &self.step)
            .field("phase", &self.phase)
            .finish_non_exhaustive()
    }
}

impl KernelWarp {
    fn new(gen: &Arc<Generator>, tb: [u32; 3], warp: u32) -> KernelWarp {
        KernelWarp {
            gen: Arc::clone(gen),
            tb,
            warp,
            step: 0,
            phase: Phase::Load,
            loaded: Srcs::new(),
            pc: 0,
            mask: 0,
            first_mask: None,
            shift: 0,
        }
    }

    /// Whether it has generated the warp's last instruction.
    pub fn ended(&self) -> bool {
        self.phase == Phase::Ended
    }

    /// Append the warp's next instructions (at most [`CHUNK`]) to `insts`, and their kinds
    /// to `kinds`.
    pub fn fill(&mut self, insts: &mut Vec<Inst>, kinds: &mut Vec<Kind>) {
        #[cfg(test)]
        if tests::LAX.with(std::cell::Cell::get) {
            self.loaded.clear();
        }
        let gen = Arc::clone(&self.gen);
        let (sched, h) = (&gen.sched, &gen.header);
        let prog = sched.program();
        for _ in 0..CHUNK {
            let inst = match self.phase {
                Phase::Ended => return,
                Phase::Load => match prog.get(self.step) {
                    Some(load) => {
                        let (mut mask, mut addrs) = (0u32, Vec::new());
                        for (lane, addr) in sched.lanes(&load, self.tb, self.warp) {
                            mask |= 1 << lane;
                            addrs.push(addr.wrapping_add(self.shift));
                        }
                        let l = &sched.kernel().loads[load.load];
                        self.pc = self.pc.max(l.pc);
                        self.mask = mask;
                        self.first_mask.get_or_insert(mask);
                        let (at, group) = prog.place(self.step);
                        let reg = (at + 1) as Reg;
                        self.loaded.push(reg);
                        self.step += 1;
                        if at + 1 == group {
                            self.phase = Phase::Compute { left: gen.compute };
                        }
                        Inst {
                            pc: l.pc,
                            mask,
                            op: LDG,
                            dest: Some(reg),
                            srcs: Srcs::new(),
                            mem_bytes: sched.elem_bytes(load.load),
                            addrs: LaneAddrs::new(&addrs),
                        }
                    }
                    None => {
                        self.phase = Phase::Ended;
                        Inst {
                            pc: self.pc + 16,
                            mask: self.first_mask.unwrap_or(0),
                            op: EXIT,
                            dest: None,
                            srcs: Srcs::new(),
                            mem_bytes: 0,
                            addrs: LaneAddrs::Empty,
                        }
                    }
                },
                Phase::Compute { left: 0 } => {
                    self.loaded.clear();
                    self.phase = Phase::Load;
                    continue;
                }
                Phase::Compute { left } => {
                    // The first reads every register the group loaded, and each the
                    // accumulator R0 (a dependent chain).
                    let mut srcs = Srcs::from_slice(&[0]);
                    if left == gen.compute {
                        srcs.extend(self.loaded.drain(..));
                    }
                    self.pc += 16;
                    self.phase = Phase::Compute { left: left - 1 };
                    alu(self.pc, self.mask, srcs)
                }
            };
            kinds.push(kind_of(OPCODES[usize::from(inst.op)], &inst, h));
            insts.push(inst);
        }
    }
}

/// An arithmetic instruction writing the accumulator `R0`.
fn alu(pc: u64, mask: u32, srcs: Srcs) -> Inst {
    Inst {
        pc,
        mask,
        op: FFMA,
        dest: Some(0),
        srcs,
        mem_bytes: 0,
        addrs: LaneAddrs::Empty,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::builtin;
    use proptest::prelude::*;

    thread_local! {
        /// A deliberately wrong variant: each chunk starts its group afresh (the registers
        /// loaded before the chunk's start are forgotten).
        pub(super) static LAX: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    /// The warp's instructions made whole, the way they are defined (the module doc): every
    /// program step's load, each group followed by its arithmetic, then `EXIT`.
    fn whole(kb: &KernelBlocks, tb: [u32; 3], warp: u32) -> Vec<Inst> {
        let (sched, compute) = (&kb.gen.sched, kb.gen.compute);
        let prog = sched.program();
        let (mut insts, mut loaded, mut pc) = (Vec::new(), Vec::new(), 0u64);
        for (i, inst) in prog.iter().enumerate() {
            let (mut mask, mut addrs) = (0u32, Vec::new());
            for (lane, addr) in sched.lanes(&inst, tb, warp) {
                mask |= 1 << lane;
                addrs.push(addr);
            }
            let l = &sched.kernel().loads[inst.load];
            pc = pc.max(l.pc);
            let (at, group) = prog.place(i as u64);
            insts.push(Inst {
                pc: l.pc,
                mask,
                op: LDG,
                dest: Some((at + 1) as Reg),
                srcs: Srcs::new(),
                mem_bytes: sched.elem_bytes(inst.load),
                addrs: LaneAddrs::new(&addrs),
            });
            loaded.push((at + 1) as Reg);
            if at + 1 == group {
                for c in 0..compute {
                    let mut srcs = Srcs::from_slice(&[0]);
                    if c == 0 {
                        srcs.extend(loaded.drain(..));
                    }
                    pc += 16;
                    insts.push(alu(pc, mask, srcs));
                }
                loaded.clear();
            }
        }
        let mask = insts.first().map_or(0, |i| i.mask);
        insts.push(Inst {
            pc: pc + 16,
            mask,
            op: EXIT,
            dest: None,
            srcs: Srcs::new(),
            mem_bytes: 0,
            addrs: LaneAddrs::Empty,
        });
        insts
    }

    /// Every warp of block `linear` as the SM receives it: the block's first instructions,
    /// then its generator's chunks (each at most [`CHUNK`]) to the end.
    fn streamed(kb: &KernelBlocks, linear: u64) -> Vec<Vec<Inst>> {
        let (b, rest) = kb.block(linear);
        b.warps
            .into_iter()
            .zip(rest)
            .map(|(mut insts, mut g)| {
                assert!(insts.len() <= CHUNK);
                let mut kinds = Vec::new();
                while !g.ended() {
                    let (before, mut chunk) = (insts.len(), Vec::new());
                    g.fill(&mut chunk, &mut kinds);
                    assert!(chunk.len() <= CHUNK && insts.len() == before);
                    insts.extend(chunk);
                }
                insts
            })
            .collect()
    }

    /// A built-in kernel with its loop run `trips` times and `compute` arithmetic instructions
    /// after each group (its arrays unbounded, but for those irregular loads draw from).
    fn kernel(pick: usize, trips: u32, compute: u32) -> KernelDesc {
        let mut k = builtin(crate::workload::BUILTIN[pick]).unwrap();
        k.loop_trips = trips;
        k.compute = compute;
        for a in &mut k.arrays {
            if !k.loads.iter().any(|l| l.irregular && l.array == a.name) {
                a.len = 0;
            }
        }
        k
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// A warp generated a chunk at a time is the warp made whole, instruction for
        /// instruction, across every chunk boundary, for any loop length and arithmetic.
        #[test]
        fn a_warp_made_in_chunks_is_the_warp_made_whole(
            pick in 0usize..5,
            trips in 1u32..40,
            compute in 0u32..7,
            block in any::<u64>(),
        ) {
            let k = kernel(pick, trips, compute);
            let gpu = spec::ConfigRequest::preset("tiny").resolve().unwrap().gpu.clone();
            let kb = KernelBlocks::new(&k, &gpu, 3).unwrap();
            let linear = block % k.num_blocks();
            let tb = k.block_id(linear as u32);
            for (w, insts) in streamed(&kb, linear).into_iter().enumerate() {
                prop_assert_eq!(insts, whole(&kb, tb, w as u32));
            }
        }
    }

    #[test]
    fn a_generator_that_forgets_a_group_at_a_chunk_boundary_is_caught() {
        // scalarprod's loop holds two loads; with 60 arithmetic instructions a group is 62
        // instructions, so the second iteration's loads straddle the first chunk's end: a
        // generator that forgets the load before the boundary (its group's first arithmetic
        // instruction would not wait for it) makes another warp.
        let k = kernel(1, 4, 60);
        let gpu = spec::ConfigRequest::preset("tiny")
            .resolve()
            .unwrap()
            .gpu
            .clone();
        let kb = KernelBlocks::new(&k, &gpu, 3).unwrap();
        let good = whole(&kb, [0; 3], 0);
        assert_eq!(streamed(&kb, 0)[0], good);
        LAX.with(|l| l.set(true));
        let wrong = streamed(&kb, 0).remove(0);
        LAX.with(|l| l.set(false));
        assert_ne!(wrong, good);
    }
}
