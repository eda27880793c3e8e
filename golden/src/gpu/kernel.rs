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
use crate::workload::{schedule, KernelDesc, Schedule, WorkloadError};
use spec::GpuSpec;

/// The opcodes of generated instructions, by their index in [`Inst::op`].
pub const OPCODES: [&str; 3] = ["LDG.E", "FFMA", "EXIT"];
const LDG: u16 = 0;
const FFMA: u16 = 1;
const EXIT: u16 = 2;

/// Most loads in one group: their registers `R1..` stay below the zero register `R255`.
pub const MAX_GROUP_LOADS: usize = 254;

/// A kernel's blocks, generated.
pub struct KernelBlocks {
    sched: Schedule,
    header: KernelHeader,
    compute: u32,
    /// Per program step: its register within its group, and whether it ends its group.
    steps: Vec<(Reg, bool)>,
}

impl KernelBlocks {
    /// `k` on the GPU of `gpu`; `seed` fixes the indices of irregular loads.
    pub fn new(k: &KernelDesc, gpu: &GpuSpec, seed: u64) -> Result<KernelBlocks, WorkloadError> {
        let sched = schedule(k, gpu, seed)?;
        let prog = sched.program();
        let group = |i: usize| {
            let l = &k.loads[prog[i].load];
            (l.in_loop, prog[i].iter)
        };
        let mut steps = Vec::with_capacity(prog.len());
        let mut in_group = 0usize;
        for i in 0..prog.len() {
            in_group += 1;
            if in_group > MAX_GROUP_LOADS {
                return Err(WorkloadError::OutOfRange {
                    kernel: k.name.clone(),
                    field: "loads".into(),
                    value: format!("more than {MAX_GROUP_LOADS} in one group"),
                    legal: format!(
                        "at most {MAX_GROUP_LOADS} before the loop and {MAX_GROUP_LOADS} in it (the GPU gives each its own register)"
                    ),
                });
            }
            let last = i + 1 == prog.len() || group(i + 1) != group(i);
            steps.push((in_group as Reg, last));
            if last {
                in_group = 0;
            }
        }
        let header = KernelHeader {
            name: k.name.clone(),
            id: 1,
            grid: k.grid,
            block: k.block,
            ..KernelHeader::default()
        };
        Ok(KernelBlocks {
            sched,
            header,
            compute: k.compute,
            steps,
        })
    }

    pub fn header(&self) -> &KernelHeader {
        &self.header
    }

    pub fn kernel(&self) -> &KernelDesc {
        self.sched.kernel()
    }

    /// Thread block `linear` (`x + y*gx + z*gx*gy`).
    pub fn block(&self, linear: u64) -> TraceBlock {
        let k = self.sched.kernel();
        let tb = k.block_id(linear as u32);
        let warps = (0..self.sched.warps_per_block())
            .map(|w| self.warp(tb, w))
            .collect();
        TraceBlock { id: tb, warps }
    }

    fn warp(&self, tb: [u32; 3], warp: u32) -> Vec<Inst> {
        let prog = self.sched.program();
        let mut insts = Vec::new();
        let mut loaded: Vec<Reg> = Vec::new();
        let mut pc = 0u64;
        for (inst, &(reg, last)) in prog.iter().zip(&self.steps) {
            let (mut mask, mut addrs) = (0u32, Vec::new());
            for (lane, addr) in self.sched.lanes(inst, tb, warp) {
                mask |= 1 << lane;
                addrs.push(addr);
            }
            let l = &self.sched.kernel().loads[inst.load];
            pc = pc.max(l.pc);
            insts.push(Inst {
                pc: l.pc,
                mask,
                op: LDG,
                dest: Some(reg),
                srcs: Srcs::new(),
                mem_bytes: self.sched.elem_bytes(inst.load),
                addrs: LaneAddrs::new(&addrs),
            });
            loaded.push(reg);
            if last {
                for c in 0..self.compute {
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
