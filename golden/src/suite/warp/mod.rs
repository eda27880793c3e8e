//! One warp running a kernel's SASS, lane by lane: its registers, predicates and divergent
//! thread groups, every instruction's effect on them and on memory, and the trace record of
//! each instruction it executes (as the Accel-Sim tracer would write it on a real GPU).
//!
//! Divergence (decision WL-2): the warp's lanes form groups, each at its own PC. The group at
//! the lowest PC runs first, except one waiting at a `BSYNC` whose convergence barrier (set by
//! its `BSSY`) still has lanes elsewhere; groups at the same PC merge. For the structured code
//! CUDA compiles to, this reconverges where the compiler's `BSSY`/`BSYNC` say and otherwise at
//! the immediate post-dominator, as a SIMT stack would; the order in which two divergent paths
//! run is the compiler's layout order (fall-through first), which a real GPU may not follow.

use super::mem::DeviceMemory;
use super::sass::{KernelCode, Op, Operand, SassInst, PT};
use crate::workload::accelsim::{Inst, LaneAddrs, Srcs};

/// Most source registers a trace line lists (the reader's bound).
pub const MAX_SRCS: usize = 4;

/// Why a warp could not go on: the kernel, the instruction and what went wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("kernel {kernel}, PC {pc:#06x} (`{text}`): {message}")]
pub struct EmuError {
    pub kernel: String,
    pub pc: u64,
    pub text: String,
    pub message: String,
}

/// What the launch gives every warp: the code, the launch shape, constant bank 0 (the driver's
/// words and the parameters) and the constant banks the module fills.
#[derive(Debug, Clone)]
pub struct LaunchEnv {
    pub code: std::sync::Arc<KernelCode>,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Shared bytes per block (static and dynamic).
    pub shared: u32,
    /// Constant bank 0 (the launch's dimensions and parameters).
    pub const0: Vec<u8>,
    /// The other constant banks (`(bank, bytes)`): the kernel's, with the host's writes to
    /// its `__constant__` variables in bank 3.
    pub consts: Vec<(u8, Vec<u8>)>,
}

/// What one step did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stepped {
    /// Ran an instruction.
    Ran,
    /// Ran a block-wide barrier (`BAR.SYNC`): it goes on once every warp of its block has.
    Barrier,
    /// Every lane has exited.
    Exited,
}

/// A group of lanes at one PC.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Group {
    pc: u64,
    mask: u32,
    /// Return PCs of the subroutines it is in (`CALL.REL`).
    calls: Vec<u64>,
}

/// One warp's state.
#[derive(Debug, Clone)]
pub struct WarpEmu {
    /// Register `r` of lane `l` at `regs[r][l]`.
    regs: Vec<[u32; 32]>,
    uregs: [u32; 64],
    /// Predicate `p`'s lanes as a bit mask; `PT` (7) is every lane.
    preds: [u32; 8],
    upreds: [bool; 8],
    groups: Vec<Group>,
    /// The convergence barriers' lane masks (`BSSY`).
    barriers: [u32; 16],
    /// Each lane's thread index in the block.
    tid: [[u32; 3]; 32],
    ctaid: [u32; 3],
    /// Per lane, its local memory (`LDL`/`STL`), allocated at its first use.
    local: Vec<Vec<u8>>,
    local_bytes: usize,
}

/// Memory a step may touch: the device's, and the block's shared memory.
pub struct Memories<'a> {
    pub global: &'a mut DeviceMemory,
    pub shared: &'a mut [u8],
}

impl WarpEmu {
    /// Warp `warp` of block `ctaid` at the kernel's first instruction.
    pub fn new(env: &LaunchEnv, ctaid: [u32; 3], warp: u32) -> WarpEmu {
        let [bx, by, bz] = env.block;
        let threads = bx * by * bz;
        let mut mask = 0u32;
        let mut tid = [[0; 3]; 32];
        for (lane, t) in tid.iter_mut().enumerate() {
            let linear = warp * 32 + lane as u32;
            if linear < threads {
                mask |= 1 << lane;
                *t = [linear % bx, (linear / bx) % by, linear / (bx * by)];
            }
        }
        let regs = env.code.regs.max(1) as usize;
        let local_bytes = (env.code.local + env.code.stack) as usize;
        let mut preds = [0; 8];
        preds[usize::from(PT)] = u32::MAX;
        let mut upreds = [false; 8];
        upreds[usize::from(PT)] = true;
        WarpEmu {
            regs: vec![[0; 32]; regs],
            uregs: [0; 64],
            preds,
            upreds,
            groups: vec![Group {
                pc: 0,
                mask,
                calls: Vec::new(),
            }],
            barriers: [0; 16],
            tid,
            ctaid,
            local: Vec::new(),
            local_bytes,
        }
    }

    /// Whether every lane has exited.
    pub fn exited(&self) -> bool {
        self.groups.is_empty()
    }

    /// The group to run: the lowest PC of those not waiting at a `BSYNC` for lanes elsewhere.
    fn pick(&self, code: &KernelCode) -> Option<usize> {
        // (Converged: nothing to choose.)
        if self.groups.len() == 1 {
            return Some(0);
        }
        let alive: u32 = self.groups.iter().map(|g| g.mask).fold(0, |a, m| a | m);
        let waiting = |g: &Group| -> bool {
            let Some(i) = code.at(g.pc) else { return false };
            if i.op != Op::Bsync {
                return false;
            }
            let Some(Operand::Barrier(b)) = i.operands.first() else {
                return false;
            };
            let want = self.barriers[usize::from(*b) & 15] & alive;
            let here: u32 = self
                .groups
                .iter()
                .filter(|h| h.pc == g.pc)
                .fold(0, |a, h| a | h.mask);
            want & !here != 0
        };
        let ready = (0..self.groups.len())
            .filter(|&i| !waiting(&self.groups[i]))
            .min_by_key(|&i| self.groups[i].pc);
        // Deadlock guard: if every group waits, run the lowest (a barrier whose lanes can no
        // longer arrive, which compiled code does not make).
        ready.or_else(|| (0..self.groups.len()).min_by_key(|&i| self.groups[i].pc))
    }

    /// Merge groups at the same PC (and in the same subroutines).
    fn merge(&mut self) {
        if let [g] = self.groups.as_slice() {
            if g.mask == 0 {
                self.groups.clear();
            }
            return;
        }
        self.groups.sort_by_key(|g| g.pc);
        let mut out: Vec<Group> = Vec::with_capacity(self.groups.len());
        for g in self.groups.drain(..) {
            match out.last_mut() {
                Some(l) if l.pc == g.pc && l.calls == g.calls => l.mask |= g.mask,
                _ => out.push(g),
            }
        }
        out.retain(|g| g.mask != 0);
        self.groups = out;
    }

    /// Run one instruction of the warp, appending its trace record (if any lane runs it) to
    /// `out`.
    pub fn step(
        &mut self,
        env: &LaunchEnv,
        mem: &mut Memories<'_>,
        out: &mut impl Extend<Inst>,
    ) -> Result<Stepped, EmuError> {
        let code = &*env.code;
        let Some(gi) = self.pick(code) else {
            return Ok(Stepped::Exited);
        };
        let g = self.groups[gi].clone();
        let inst = code.at(g.pc).ok_or_else(|| EmuError {
            kernel: code.name.clone(),
            pc: g.pc,
            text: String::new(),
            message: "the warp ran past the kernel's last instruction".into(),
        })?;
        let err = |message: String| EmuError {
            kernel: code.name.clone(),
            pc: inst.pc,
            text: code.opcodes[usize::from(inst.opcode)].clone(),
            message,
        };
        let run = g.mask & self.guard(inst);
        let mut ctx = Ctx {
            env,
            inst,
            run,
            addrs: Vec::new(),
        };
        let flow = self.exec(&mut ctx, mem, g.mask).map_err(err)?;
        out.extend([self.record(code, inst, run, std::mem::take(&mut ctx.addrs))]);
        // Where each lane goes next.
        let next = inst.pc + 16;
        let group = &mut self.groups[gi];
        let mut stepped = Stepped::Ran;
        match flow {
            Flow::Next => group.pc = next,
            Flow::Jump { lanes, to } => {
                let stay = group.mask & !lanes;
                group.pc = to;
                group.mask &= lanes;
                if stay != 0 {
                    let calls = group.calls.clone();
                    self.groups.push(Group {
                        pc: next,
                        mask: stay,
                        calls,
                    });
                }
            }
            Flow::Call { lanes, to } => {
                let stay = group.mask & !lanes;
                let mut calls = group.calls.clone();
                group.calls.push(next);
                group.pc = to;
                group.mask &= lanes;
                if stay != 0 {
                    calls.shrink_to_fit();
                    self.groups.push(Group {
                        pc: next,
                        mask: stay,
                        calls,
                    });
                }
            }
            Flow::Ret { lanes } => {
                let stay = group.mask & !lanes;
                let mut back = group.clone();
                let to = back
                    .calls
                    .pop()
                    .ok_or_else(|| err("`RET` outside a subroutine".into()))?;
                group.pc = next;
                group.mask = stay;
                back.pc = to;
                back.mask = lanes & g.mask;
                self.groups.push(back);
            }
            Flow::Exit { lanes } => {
                group.mask &= !lanes;
                group.pc = next;
            }
            Flow::Barrier => {
                group.pc = next;
                stepped = Stepped::Barrier;
            }
        }
        self.merge();
        if self.groups.is_empty() {
            return Ok(Stepped::Exited);
        }
        Ok(stepped)
    }

    /// The lanes whose guard predicate holds.
    fn guard(&self, inst: &SassInst) -> u32 {
        match inst.guard {
            None => u32::MAX,
            Some(g) => {
                let v = if g.uniform {
                    if self.upreds[usize::from(g.p)] {
                        u32::MAX
                    } else {
                        0
                    }
                } else {
                    self.preds[usize::from(g.p)]
                };
                if g.not {
                    !v
                } else {
                    v
                }
            }
        }
    }

    /// The trace record of `inst` run by lanes `run` (none, for an instruction whose guard no
    /// lane passes: the tracer records it, with an empty mask). Its registers as the tracer
    /// lists them: the first register operand of an instruction that writes one is its
    /// destination, the others (`RZ` as R255, address registers included) its sources, at most
    /// [`MAX_SRCS`].
    fn record(&self, code: &KernelCode, inst: &SassInst, run: u32, addrs: Vec<u64>) -> Inst {
        let writes = writes_register(inst.op);
        let mut dest = None;
        let mut srcs = Srcs::new();
        for (k, o) in inst.operands.iter().enumerate() {
            let r = match *o {
                Operand::Reg { r, .. } | Operand::RegByte { r, .. } => r,
                Operand::Mem { reg, .. } => reg,
                Operand::Const { reg: Some(r), .. } => r,
                _ => continue,
            };
            // The destination: a register operand that only predicates come before.
            let first_reg = matches!(o, Operand::Reg { .. })
                && inst.operands[..k]
                    .iter()
                    .all(|p| matches!(p, Operand::Pred { .. }));
            if writes && first_reg {
                dest = Some(r);
            } else if srcs.len() < MAX_SRCS {
                srcs.push(r);
            }
        }
        let opcode = &code.opcodes[usize::from(inst.opcode)];
        // A memory instruction no lane runs keeps its width and has no addresses: Accel-Sim's
        // tracer writes the width of every instruction with a memory operand, whatever its mask
        // (Accel-Sim stops on a memory opcode without one).
        let is_mem = matches!(inst.op, Op::Ld { .. } | Op::St { .. } | Op::Atom { .. });
        Inst {
            pc: inst.pc,
            mask: run,
            op: inst.opcode,
            dest,
            srcs,
            mem_bytes: if is_mem {
                crate::workload::accelsim::access_bytes(opcode)
            } else {
                0
            },
            addrs: LaneAddrs::new(&addrs),
        }
    }
}

/// `o` without its negation, if it has one (a subtraction's operand, or a float's sign flip).
fn unnegated(o: &Operand) -> Option<Operand> {
    let mut p = *o;
    match &mut p {
        Operand::Reg { neg, .. } | Operand::UReg { neg, .. } | Operand::Const { neg, .. }
            if *neg =>
        {
            *neg = false;
            Some(p)
        }
        _ => None,
    }
}

/// Whether an instruction's first register operand is written (rather than read).
fn writes_register(op: Op) -> bool {
    !matches!(
        op,
        Op::St { .. }
            | Op::Atom { ret: false, .. }
            | Op::Isetp { .. }
            | Op::Fsetp { .. }
            | Op::Dsetp { .. }
            | Op::Fchk
            | Op::Plop3
            | Op::R2p
            | Op::Bar
            | Op::Bra
            | Op::Bssy
            | Op::Break
            | Op::Bsync
            | Op::WarpSync
            | Op::Call
            | Op::Ret
            | Op::Exit
            | Op::Nop
    )
}

/// Where the lanes go after an instruction.
enum Flow {
    Next,
    Jump { lanes: u32, to: u64 },
    Call { lanes: u32, to: u64 },
    Ret { lanes: u32 },
    Exit { lanes: u32 },
    Barrier,
}

/// One instruction being run.
struct Ctx<'a> {
    env: &'a LaunchEnv,
    inst: &'a SassInst,
    /// The lanes that run it (active and guard true).
    run: u32,
    /// The memory addresses of its lanes, in lane order.
    addrs: Vec<u64>,
}

/// The lanes of `mask`, lowest first.
fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    let mut m = mask;
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            l
        })
    })
}

/// Operand `k` of `ops`.
fn operand(ops: &[Operand], k: usize) -> Result<&Operand, String> {
    ops.get(k).ok_or_else(|| format!("operand {k} is missing"))
}

impl WarpEmu {
    /// The instruction's effect; where its lanes go next.
    fn exec(
        &mut self,
        c: &mut Ctx<'_>,
        mem: &mut Memories<'_>,
        active: u32,
    ) -> Result<Flow, String> {
        match c.inst.op {
            Op::Nop | Op::WarpSync | Op::Bsync => {}
            Op::Mov
            | Op::S2r
            | Op::Cs2r { .. }
            | Op::Sel
            | Op::Fsel
            | Op::Imnmx { .. }
            | Op::Iabs
            | Op::Popc
            | Op::Brev
            | Op::Flo { .. }
            | Op::R2p
            | Op::P2r => self.moves(c)?,
            Op::Imad { .. } | Op::Iadd3 { .. } | Op::Lea { .. } => self.arith(c)?,
            Op::Shf { .. } | Op::Shl | Op::Shr { .. } | Op::Lop3 | Op::Prmt => self.logic(c)?,
            Op::Isetp { .. } | Op::Fsetp { .. } | Op::Dsetp { .. } | Op::Fchk | Op::Plop3 => {
                self.compare(c)?
            }
            Op::Fadd { .. }
            | Op::Fmul { .. }
            | Op::Ffma { .. }
            | Op::Fmnmx
            | Op::Dadd
            | Op::Dmul
            | Op::Dfma
            | Op::Mufu(_)
            | Op::Frnd(_)
            | Op::Convert(_) => self.float(c)?,
            Op::Ld { .. } | Op::St { .. } | Op::Ldc { .. } => self.memory(c, mem)?,
            Op::Atom { .. } => self.atomic(c, mem)?,
            Op::Shfl(_) | Op::Vote(_) => self.across(c, active)?,
            Op::Bar
            | Op::Bra
            | Op::Bssy
            | Op::Break
            | Op::Bmov { .. }
            | Op::Call
            | Op::Lepc
            | Op::Ret
            | Op::Exit => return self.control(c, active),
        }
        Ok(Flow::Next)
    }
}

mod access;
mod compute;
mod control;
mod operand;
