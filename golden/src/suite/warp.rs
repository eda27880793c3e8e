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

use super::mem::{DeviceMemory, Fault};
use super::sass::{
    AtomOp, Cmp, Comb, Convert, KernelCode, Mufu, Num, Op, Operand, Round, SassInst, ShflMode,
    Space, Special, VoteMode, PT, RZ, URZ,
};
use crate::workload::accelsim::{Inst, LaneAddrs, Srcs};

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
    pub const0: Vec<u8>,
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
        out: &mut Vec<Inst>,
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
        if run != 0 {
            out.push(self.record(code, inst, run, std::mem::take(&mut ctx.addrs)));
        }
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

    /// The trace record of `inst` run by lanes `run`.
    fn record(&self, code: &KernelCode, inst: &SassInst, run: u32, addrs: Vec<u64>) -> Inst {
        let writes = writes_register(inst.op);
        let mut dest = None;
        let mut srcs = Srcs::new();
        for (k, o) in inst.operands.iter().enumerate() {
            let r = match *o {
                Operand::Reg { r, .. } => r,
                Operand::Mem { reg, .. } => reg,
                Operand::Const { reg: Some(r), .. } => r,
                _ => continue,
            };
            if r == RZ {
                continue;
            }
            let first_reg = matches!(o, Operand::Reg { .. })
                && inst.operands[..k]
                    .iter()
                    .all(|p| !matches!(p, Operand::Reg { .. }));
            if writes && first_reg && dest.is_none() {
                dest = Some(r);
            } else {
                srcs.push(r);
            }
        }
        let opcode = &code.opcodes[usize::from(inst.opcode)];
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
            | Op::Bar
            | Op::Bra
            | Op::Bssy
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

fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    (0..32).filter(move |l| mask >> l & 1 == 1)
}

fn cmp_int(c: Cmp, a: u32, b: u32, unsigned: bool) -> Result<bool, String> {
    let (lt, eq) = if unsigned {
        (a < b, a == b)
    } else {
        ((a as i32) < (b as i32), a == b)
    };
    Ok(match c {
        Cmp::Lt => lt,
        Cmp::Le => lt || eq,
        Cmp::Gt => !lt && !eq,
        Cmp::Ge => !lt,
        Cmp::Eq => eq,
        Cmp::Ne => !eq,
        Cmp::True => true,
        Cmp::False => false,
        _ => return Err(format!("{c:?} is not an integer comparison")),
    })
}

fn cmp_float(c: Cmp, a: f64, b: f64) -> bool {
    let un = a.is_nan() || b.is_nan();
    match c {
        Cmp::Lt => a < b,
        Cmp::Le => a <= b,
        Cmp::Gt => a > b,
        Cmp::Ge => a >= b,
        Cmp::Eq => a == b,
        Cmp::Ne => !un && a != b,
        Cmp::Ltu => un || a < b,
        Cmp::Leu => un || a <= b,
        Cmp::Gtu => un || a > b,
        Cmp::Geu => un || a >= b,
        Cmp::Equ => un || a == b,
        Cmp::Neu => un || a != b,
        Cmp::Nan => un,
        Cmp::Num => !un,
        Cmp::True => true,
        Cmp::False => false,
    }
}

fn combine(c: Comb, a: bool, b: bool) -> bool {
    match c {
        Comb::And => a && b,
        Comb::Or => a || b,
        Comb::Xor => a ^ b,
    }
}

/// A three-input lookup table applied bitwise (`LOP3`, `PLOP3`).
fn lut3(lut: u32, a: u32, b: u32, c: u32) -> u32 {
    let mut r = 0;
    for bit in 0..8 {
        if lut >> bit & 1 == 1 {
            let x = if bit & 4 != 0 { a } else { !a };
            let y = if bit & 2 != 0 { b } else { !b };
            let z = if bit & 1 != 0 { c } else { !c };
            r |= x & y & z;
        }
    }
    r
}

impl WarpEmu {
    fn reg(&self, r: u8, lane: usize) -> u32 {
        if r == RZ {
            0
        } else {
            self.regs.get(usize::from(r)).map_or(0, |v| v[lane])
        }
    }

    fn set(&mut self, r: u8, lane: usize, v: u32) -> Result<(), String> {
        if r == RZ {
            return Ok(());
        }
        let n = self.regs.len();
        let slot = self
            .regs
            .get_mut(usize::from(r))
            .ok_or_else(|| format!("writes R{r}, past the kernel's {n} registers"))?;
        slot[lane] = v;
        Ok(())
    }

    fn const_word(
        &self,
        env: &LaunchEnv,
        bank: u8,
        offset: u32,
        lane: usize,
        reg: Option<u8>,
    ) -> Result<u32, String> {
        let off = offset.wrapping_add(reg.map_or(0, |r| self.reg(r, lane))) as usize;
        let data: &[u8] = match bank {
            0 => &env.const0,
            _ => env
                .code
                .consts
                .iter()
                .find(|(b, _)| *b == bank)
                .map(|(_, d)| d.as_slice())
                .ok_or_else(|| {
                    format!("reads constant bank {bank}, which the listing does not fill")
                })?,
        };
        let b = data.get(off..off + 4).ok_or_else(|| {
            format!(
                "reads c[{bank:#x}][{off:#x}], past the bank's {} bytes",
                data.len()
            )
        })?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Operand `o` of lane `lane` as a 32-bit integer (negation and not applied).
    fn int(&self, env: &LaunchEnv, o: &Operand, lane: usize) -> Result<u32, String> {
        Ok(match *o {
            Operand::Reg { r, neg, not, abs } => {
                let mut v = self.reg(r, lane);
                if abs {
                    v = (v as i32).unsigned_abs();
                }
                if neg {
                    v = v.wrapping_neg();
                }
                if not {
                    v = !v;
                }
                v
            }
            Operand::UReg { r, neg, not } => {
                let mut v = if r == URZ {
                    0
                } else {
                    self.uregs[usize::from(r)]
                };
                if neg {
                    v = v.wrapping_neg();
                }
                if not {
                    v = !v;
                }
                v
            }
            Operand::Imm(v) => v as u32,
            Operand::Const {
                bank,
                offset,
                reg,
                neg,
                not,
            } => {
                let mut v = self.const_word(env, bank, offset, lane, reg)?;
                if neg {
                    v = v.wrapping_neg();
                }
                if not {
                    v = !v;
                }
                v
            }
            Operand::Special(s) => self.special(s, lane),
            Operand::FImm(f) => (f as f32).to_bits(),
            _ => return Err(format!("{o:?} is not a value")),
        })
    }

    /// Operand `o` as a 64-bit integer: a register pair, a constant's two words, an immediate.
    fn int64(&self, env: &LaunchEnv, o: &Operand, lane: usize) -> Result<u64, String> {
        Ok(match *o {
            Operand::Reg { r, neg, .. } => {
                let v = if r == RZ {
                    0
                } else {
                    u64::from(self.reg(r, lane)) | u64::from(self.reg(r + 1, lane)) << 32
                };
                if neg {
                    v.wrapping_neg()
                } else {
                    v
                }
            }
            Operand::UReg { r, .. } => {
                if r == URZ {
                    0
                } else {
                    u64::from(self.uregs[usize::from(r)])
                        | u64::from(self.uregs[usize::from(r) + 1]) << 32
                }
            }
            Operand::Const {
                bank,
                offset,
                reg,
                neg,
                not,
            } => {
                let mut v = u64::from(self.const_word(env, bank, offset, lane, reg)?)
                    | u64::from(self.const_word(env, bank, offset + 4, lane, reg)?) << 32;
                if neg {
                    v = v.wrapping_neg();
                }
                if not {
                    v = !v;
                }
                v
            }
            Operand::Imm(v) => u64::from(v as u32),
            Operand::FImm(f) => f.to_bits(),
            _ => return Err(format!("{o:?} is not a 64-bit value")),
        })
    }

    fn f32(&self, env: &LaunchEnv, o: &Operand, lane: usize) -> Result<f32, String> {
        let (neg, abs) = match *o {
            Operand::Reg { neg, abs, .. } => (neg, abs),
            Operand::UReg { neg, .. } | Operand::Const { neg, .. } => (neg, false),
            _ => (false, false),
        };
        let o = &unnegated(o).unwrap_or(*o);
        let mut v = match *o {
            Operand::FImm(f) => f as f32,
            Operand::Reg { r, .. } => f32::from_bits(self.reg(r, lane)),
            Operand::UReg { r, .. } => f32::from_bits(if r == URZ {
                0
            } else {
                self.uregs[usize::from(r)]
            }),
            _ => f32::from_bits(self.int(env, o, lane)?),
        };
        if abs {
            v = v.abs();
        }
        if neg {
            v = -v;
        }
        Ok(v)
    }

    fn f64(&self, env: &LaunchEnv, o: &Operand, lane: usize) -> Result<f64, String> {
        let (neg, abs) = match *o {
            Operand::Reg { neg, abs, .. } => (neg, abs),
            Operand::Const { neg, .. } => (neg, false),
            _ => (false, false),
        };
        let o = &unnegated(o).unwrap_or(*o);
        let mut v = match *o {
            Operand::FImm(f) => f,
            Operand::Reg { r, .. } => f64::from_bits(
                u64::from(self.reg(r, lane)) | u64::from(self.reg(r.saturating_add(1), lane)) << 32,
            ),
            // A 32-bit immediate of a double instruction is the double's high word.
            Operand::Imm(v) => f64::from_bits(v << 32),
            _ => f64::from_bits(self.int64(env, o, lane)?),
        };
        if abs {
            v = v.abs();
        }
        if neg {
            v = -v;
        }
        Ok(v)
    }

    fn set64(&mut self, r: u8, lane: usize, v: u64) -> Result<(), String> {
        if r == RZ {
            return Ok(());
        }
        self.set(r, lane, v as u32)?;
        self.set(r + 1, lane, (v >> 32) as u32)
    }

    fn pred(&self, o: &Operand) -> Result<u32, String> {
        match *o {
            Operand::Pred { p, not, uniform } => {
                let v = if uniform {
                    if self.upreds[usize::from(p)] {
                        u32::MAX
                    } else {
                        0
                    }
                } else {
                    self.preds[usize::from(p)]
                };
                Ok(if not { !v } else { v })
            }
            _ => Err(format!("{o:?} is not a predicate")),
        }
    }

    fn set_pred(&mut self, o: &Operand, lane: usize, v: bool) -> Result<(), String> {
        let Operand::Pred { p, uniform, .. } = *o else {
            return Err(format!("{o:?} is not a predicate to write"));
        };
        if p == PT {
            return Ok(());
        }
        if uniform {
            self.upreds[usize::from(p)] = v;
        } else if v {
            self.preds[usize::from(p)] |= 1 << lane;
        } else {
            self.preds[usize::from(p)] &= !(1 << lane);
        }
        Ok(())
    }

    fn special(&self, s: Special, lane: usize) -> u32 {
        match s {
            Special::Tid(d) => self.tid[lane][d],
            Special::Ctaid(d) => self.ctaid[d],
            Special::LaneId => lane as u32,
            Special::Clock => 0,
        }
    }

    /// A register destination operand's register.
    fn dst(o: Option<&Operand>) -> Result<u8, String> {
        match o {
            Some(Operand::Reg { r, .. }) => Ok(*r),
            Some(Operand::UReg { r, .. }) => Ok(*r | 0x80),
            other => Err(format!("{other:?} is not a register destination")),
        }
    }

    /// Write `v` to destination `d` (a register, or a uniform register: `0x80 | r`).
    fn put(&mut self, d: u8, lane: usize, v: u32) -> Result<(), String> {
        if d & 0x80 != 0 && d != RZ {
            let r = d & 0x7f;
            if r != URZ {
                self.uregs[usize::from(r)] = v;
            }
            return Ok(());
        }
        self.set(d, lane, v)
    }

    fn put64(&mut self, d: u8, lane: usize, v: u64) -> Result<(), String> {
        if d & 0x80 != 0 && d != RZ {
            let r = usize::from(d & 0x7f);
            if r != usize::from(URZ) {
                self.uregs[r] = v as u32;
                self.uregs[r + 1] = (v >> 32) as u32;
            }
            return Ok(());
        }
        self.set64(d, lane, v)
    }

    /// The lanes an instruction writing uniform registers computes for: one, the first that
    /// runs (uniform values are the same in every lane).
    fn lanes_for(&self, d: u8, run: u32) -> Vec<usize> {
        if d & 0x80 != 0 && d != RZ {
            lanes(run).take(1).collect()
        } else {
            lanes(run).collect()
        }
    }

    /// The instruction's effect; where its lanes go next.
    fn exec(
        &mut self,
        c: &mut Ctx<'_>,
        mem: &mut Memories<'_>,
        active: u32,
    ) -> Result<Flow, String> {
        let env = c.env;
        let ops = &c.inst.operands;
        let run = c.run;
        let o = |k: usize| -> Result<&Operand, String> {
            ops.get(k).ok_or_else(|| format!("operand {k} is missing"))
        };
        match c.inst.op {
            Op::Nop | Op::WarpSync => {}
            Op::Mov => {
                let d = Self::dst(ops.first())?;
                for l in self.lanes_for(d, run) {
                    let v = self.int(env, o(1)?, l)?;
                    self.put(d, l, v)?;
                }
            }
            Op::S2r => {
                let d = Self::dst(ops.first())?;
                for l in self.lanes_for(d, run) {
                    let v = self.int(env, o(1)?, l)?;
                    self.put(d, l, v)?;
                }
            }
            Op::Cs2r => {
                // `CS2R R4, SRZ`: a register pair cleared (or a clock read as 0).
                let d = Self::dst(ops.first())?;
                let wide = c.env.code.opcodes[usize::from(c.inst.opcode)].contains(".32") as u8;
                for l in lanes(run) {
                    self.put(d, l, 0)?;
                    if wide == 0 {
                        self.put(d + 1, l, 0)?;
                    }
                }
            }
            Op::Imad {
                wide,
                hi,
                unsigned,
                x,
            } => {
                let d = Self::dst(ops.first())?;
                for l in self.lanes_for(d, run) {
                    let a = self.int(env, o(1)?, l)?;
                    let b = self.int(env, o(2)?, l)?;
                    let prod: u64 = if unsigned {
                        u64::from(a) * u64::from(b)
                    } else {
                        (i64::from(a as i32) * i64::from(b as i32)) as u64
                    };
                    if wide {
                        let cc = self.int64(env, o(3)?, l)?;
                        self.put64(d, l, prod.wrapping_add(cc))?;
                    } else {
                        let cc = self.int(env, o(3)?, l)?;
                        let carry = if x {
                            u32::from(self.pred(o(4)?)? >> l & 1 == 1)
                        } else {
                            0
                        };
                        let base = if hi { (prod >> 32) as u32 } else { prod as u32 };
                        self.put(d, l, base.wrapping_add(cc).wrapping_add(carry))?;
                    }
                }
            }
            Op::Iadd3 { x } => {
                let d = Self::dst(ops.first())?;
                // Carry-out predicates follow the destination; then three sources; then, for
                // `.X`, the carry-in predicates.
                let outs = ops[1..]
                    .iter()
                    .take_while(|p| matches!(p, Operand::Pred { .. }))
                    .count();
                let srcs = 1 + outs;
                for l in self.lanes_for(d, run) {
                    let mut sum: u64 = 0;
                    for k in srcs..srcs + 3 {
                        let op = o(k)?;
                        // A negated source adds its two's complement in full width, so that
                        // the carry out is that of the 64-bit subtraction it is part of.
                        sum += match unnegated(op) {
                            Some(pos) => u64::from(!self.int(env, &pos, l)?) + 1,
                            None => u64::from(self.int(env, op, l)?),
                        };
                    }
                    if x {
                        for k in srcs + 3..ops.len() {
                            sum += u64::from(self.pred(o(k)?)? >> l & 1);
                        }
                    }
                    self.put(d, l, sum as u32)?;
                    let carry = sum >> 32;
                    for k in 0..outs {
                        self.set_pred(o(1 + k)?, l, carry > k as u64)?;
                    }
                }
            }
            Op::Lea { hi, x } => {
                let d = Self::dst(ops.first())?;
                let sx32 = c.env.code.opcodes[usize::from(c.inst.opcode)].contains("SX32");
                let out_pred = matches!(o(1)?, Operand::Pred { .. });
                let s = usize::from(out_pred) + 1;
                for l in self.lanes_for(d, run) {
                    let a = self.int(env, o(s)?, l)?;
                    let b = self.int(env, o(s + 1)?, l)?;
                    let (shift_k, hi_word, pin) = if hi && !sx32 {
                        // LEA.HI d, a, b, a_hi, shift [, carry]
                        (s + 3, self.int(env, o(s + 2)?, l)?, s + 4)
                    } else if hi {
                        (s + 2, ((a as i32) >> 31) as u32, s + 3)
                    } else {
                        (s + 2, 0, s + 3)
                    };
                    let sh = self.int(env, o(shift_k)?, l)? & 63;
                    let wide = (u64::from(hi_word) << 32 | u64::from(a)) << sh;
                    let part = if hi { (wide >> 32) as u32 } else { wide as u32 };
                    let carry = if x {
                        u64::from(self.pred(o(pin)?)? >> l & 1)
                    } else {
                        0
                    };
                    let sum = u64::from(part) + u64::from(b) + carry;
                    self.put(d, l, sum as u32)?;
                    if out_pred {
                        self.set_pred(o(1)?, l, sum >> 32 != 0)?;
                    }
                }
            }
            Op::Shf {
                left,
                hi,
                wide: _,
                signed,
            } => {
                let d = Self::dst(ops.first())?;
                for l in self.lanes_for(d, run) {
                    let lo = self.int(env, o(1)?, l)?;
                    let sh = self.int(env, o(2)?, l)?;
                    let hw = self.int(env, o(3)?, l)?;
                    let v = u64::from(hw) << 32 | u64::from(lo);
                    let r = if left {
                        v.checked_shl(sh).unwrap_or(0)
                    } else if signed {
                        ((v as i64) >> sh.min(63)) as u64
                    } else {
                        v.checked_shr(sh).unwrap_or(0)
                    };
                    self.put(d, l, if hi { (r >> 32) as u32 } else { r as u32 })?;
                }
            }
            Op::Shl => {
                let d = Self::dst(ops.first())?;
                for l in self.lanes_for(d, run) {
                    let a = self.int(env, o(1)?, l)?;
                    let b = self.int(env, o(2)?, l)?;
                    self.put(d, l, a.checked_shl(b).unwrap_or(0))?;
                }
            }
            Op::Shr { signed } => {
                let d = Self::dst(ops.first())?;
                for l in self.lanes_for(d, run) {
                    let a = self.int(env, o(1)?, l)?;
                    let b = self.int(env, o(2)?, l)?;
                    let v = if signed {
                        ((a as i32) >> b.min(31)) as u32
                    } else {
                        a.checked_shr(b).unwrap_or(0)
                    };
                    self.put(d, l, v)?;
                }
            }
            Op::Lop3 => {
                // LOP3.LUT [Pd,] Rd, a, b, c, lut, Pin: Pd says whether the result is non-zero.
                let pout = matches!(o(0)?, Operand::Pred { .. });
                let s = usize::from(pout);
                let d = Self::dst(ops.get(s))?;
                for l in self.lanes_for(d, run) {
                    let a = self.int(env, o(s + 1)?, l)?;
                    let b = self.int(env, o(s + 2)?, l)?;
                    let cc = self.int(env, o(s + 3)?, l)?;
                    let lut = self.int(env, o(s + 4)?, l)?;
                    let r = lut3(lut, a, b, cc);
                    self.put(d, l, r)?;
                    if pout {
                        self.set_pred(o(0)?, l, r != 0)?;
                    }
                }
            }
            Op::Isetp {
                cmp,
                comb,
                unsigned,
                ex,
            } => {
                for l in lanes(run) {
                    let a = self.int(env, o(2)?, l)?;
                    let b = self.int(env, o(3)?, l)?;
                    let pc = self.pred(o(4)?)? >> l & 1 == 1;
                    let r = if ex {
                        // The high words of a 64-bit comparison; the low words' result (an
                        // unsigned comparison of the same kind) is the last operand.
                        let low = self.pred(o(5)?)? >> l & 1 == 1;
                        let eq = a == b;
                        match cmp {
                            Cmp::Eq => eq && low,
                            Cmp::Ne => !eq || low,
                            _ => {
                                let strict = match cmp {
                                    Cmp::Ge | Cmp::Gt => Cmp::Gt,
                                    _ => Cmp::Lt,
                                };
                                cmp_int(strict, a, b, unsigned)? || (eq && low)
                            }
                        }
                    } else {
                        cmp_int(cmp, a, b, unsigned)?
                    };
                    self.set_pred(o(0)?, l, combine(comb, r, pc))?;
                    self.set_pred(o(1)?, l, combine(comb, !r, pc))?;
                }
            }
            Op::Fsetp { cmp, comb } => {
                for l in lanes(run) {
                    let a = f64::from(self.f32(env, o(2)?, l)?);
                    let b = f64::from(self.f32(env, o(3)?, l)?);
                    let pc = self.pred(o(4)?)? >> l & 1 == 1;
                    let r = cmp_float(cmp, a, b);
                    self.set_pred(o(0)?, l, combine(comb, r, pc))?;
                    self.set_pred(o(1)?, l, combine(comb, !r, pc))?;
                }
            }
            Op::Dsetp { cmp, comb } => {
                for l in lanes(run) {
                    let a = self.f64(env, o(2)?, l)?;
                    let b = self.f64(env, o(3)?, l)?;
                    let pc = self.pred(o(4)?)? >> l & 1 == 1;
                    let r = cmp_float(cmp, a, b);
                    self.set_pred(o(0)?, l, combine(comb, r, pc))?;
                    self.set_pred(o(1)?, l, combine(comb, !r, pc))?;
                }
            }
            Op::Plop3 => {
                for l in lanes(run) {
                    let bit = |k: usize| -> Result<u32, String> {
                        Ok(if self.pred(o(k)?)? >> l & 1 == 1 {
                            u32::MAX
                        } else {
                            0
                        })
                    };
                    let (a, b, cc) = (bit(2)?, bit(3)?, bit(4)?);
                    let l1 = self.int(env, o(5)?, l)?;
                    let l2 = self.int(env, o(6)?, l)?;
                    self.set_pred(o(0)?, l, lut3(l1, a, b, cc) & 1 == 1)?;
                    self.set_pred(o(1)?, l, lut3(l2, a, b, cc) & 1 == 1)?;
                }
            }
            Op::Sel | Op::Fsel => {
                let d = Self::dst(ops.first())?;
                for l in self.lanes_for(d, run) {
                    let p = self.pred(o(3)?)? >> l & 1 == 1;
                    let v = if c.inst.op == Op::Fsel {
                        self.f32(env, o(if p { 1 } else { 2 })?, l)?.to_bits()
                    } else {
                        self.int(env, o(if p { 1 } else { 2 })?, l)?
                    };
                    self.put(d, l, v)?;
                }
            }
            Op::Fadd | Op::Fmul | Op::Ffma | Op::Fmnmx => {
                let d = Self::dst(ops.first())?;
                for l in self.lanes_for(d, run) {
                    let a = self.f32(env, o(1)?, l)?;
                    let b = self.f32(env, o(2)?, l)?;
                    let v = match c.inst.op {
                        Op::Fadd => a + b,
                        Op::Fmul => a * b,
                        Op::Ffma => a.mul_add(b, self.f32(env, o(3)?, l)?),
                        _ => {
                            let min = self.pred(o(3)?)? >> l & 1 == 1;
                            if min {
                                a.min(b)
                            } else {
                                a.max(b)
                            }
                        }
                    };
                    self.put(d, l, v.to_bits())?;
                }
            }
            Op::Dadd | Op::Dmul | Op::Dfma => {
                let d = Self::dst(ops.first())?;
                for l in lanes(run) {
                    let a = self.f64(env, o(1)?, l)?;
                    let b = self.f64(env, o(2)?, l)?;
                    let v = match c.inst.op {
                        Op::Dadd => a + b,
                        Op::Dmul => a * b,
                        _ => a.mul_add(b, self.f64(env, o(3)?, l)?),
                    };
                    self.put64(d, l, v.to_bits())?;
                }
            }
            Op::Mufu(f) => {
                let d = Self::dst(ops.first())?;
                for l in lanes(run) {
                    match f {
                        Mufu::Rcp64h | Mufu::Rsq64h => {
                            // The high word of a double's approximate reciprocal (square root):
                            // the operand is that double's high word.
                            let x = f64::from_bits(u64::from(self.int(env, o(1)?, l)?) << 32);
                            let r = if f == Mufu::Rcp64h {
                                1.0 / x
                            } else {
                                1.0 / x.sqrt()
                            };
                            self.put(d, l, (r.to_bits() >> 32) as u32)?;
                        }
                        _ => {
                            let x = self.f32(env, o(1)?, l)?;
                            let r = match f {
                                Mufu::Rcp => 1.0 / x,
                                Mufu::Rsq => 1.0 / x.sqrt(),
                                Mufu::Sqrt => x.sqrt(),
                                Mufu::Ex2 => x.exp2(),
                                Mufu::Lg2 => x.log2(),
                                Mufu::Sin => x.sin(),
                                _ => x.cos(),
                            };
                            self.put(d, l, r.to_bits())?;
                        }
                    }
                }
            }
            Op::Convert(cv) => {
                let d = Self::dst(ops.first())?;
                for l in lanes(run) {
                    self.convert(env, cv, d, o(1)?, l)?;
                }
            }
            Op::Imnmx { unsigned } => {
                let d = Self::dst(ops.first())?;
                for l in self.lanes_for(d, run) {
                    let a = self.int(env, o(1)?, l)?;
                    let b = self.int(env, o(2)?, l)?;
                    let min = self.pred(o(3)?)? >> l & 1 == 1;
                    let v = match (unsigned, min) {
                        (true, true) => a.min(b),
                        (true, false) => a.max(b),
                        (false, true) => (a as i32).min(b as i32) as u32,
                        (false, false) => (a as i32).max(b as i32) as u32,
                    };
                    self.put(d, l, v)?;
                }
            }
            Op::Iabs => {
                let d = Self::dst(ops.first())?;
                for l in self.lanes_for(d, run) {
                    let a = self.int(env, o(1)?, l)?;
                    self.put(d, l, (a as i32).unsigned_abs())?;
                }
            }
            Op::Popc => {
                let d = Self::dst(ops.first())?;
                for l in self.lanes_for(d, run) {
                    let a = self.int(env, o(1)?, l)?;
                    self.put(d, l, a.count_ones())?;
                }
            }
            Op::Flo { unsigned, sh } => {
                let d = Self::dst(ops.first())?;
                for l in self.lanes_for(d, run) {
                    let mut a = self.int(env, o(1)?, l)?;
                    if !unsigned && (a as i32) < 0 {
                        a = !a;
                    }
                    let v = if a == 0 {
                        u32::MAX
                    } else if sh {
                        a.leading_zeros()
                    } else {
                        31 - a.leading_zeros()
                    };
                    self.put(d, l, v)?;
                }
            }
            Op::Prmt => {
                let d = Self::dst(ops.first())?;
                for l in self.lanes_for(d, run) {
                    let a = self.int(env, o(1)?, l)?;
                    let sel = self.int(env, o(2)?, l)?;
                    let b = self.int(env, o(3)?, l)?;
                    let bytes = (u64::from(b) << 32 | u64::from(a)).to_le_bytes();
                    let mut r = 0u32;
                    for k in 0..4 {
                        let s = (sel >> (4 * k)) & 0xf;
                        let mut byte = bytes[(s & 7) as usize];
                        if s & 8 != 0 {
                            byte = if byte & 0x80 != 0 { 0xff } else { 0 };
                        }
                        r |= u32::from(byte) << (8 * k);
                    }
                    self.put(d, l, r)?;
                }
            }
            Op::Ld {
                space,
                bytes,
                signed,
            } => {
                let d = Self::dst(ops.first())?;
                let wide_addr = c.env.code.opcodes[usize::from(c.inst.opcode)].contains(".E");
                for l in lanes(run) {
                    let addr = self.address(env, o(1)?, l, space, wide_addr)?;
                    c.addrs.push(addr);
                    let mut buf = [0u8; 16];
                    let n = bytes as usize;
                    self.load(mem, space, addr, l, &mut buf[..n])?;
                    if n < 4 {
                        let mut v = 0u32;
                        for (k, b) in buf[..n].iter().enumerate() {
                            v |= u32::from(*b) << (8 * k);
                        }
                        if signed && buf[n - 1] & 0x80 != 0 {
                            v |= u32::MAX << (8 * n);
                        }
                        self.put(d, l, v)?;
                    } else {
                        for w in 0..n / 4 {
                            let v =
                                u32::from_le_bytes(buf[4 * w..4 * w + 4].try_into().expect("4"));
                            if d != RZ {
                                self.put(d + w as u8, l, v)?;
                            }
                        }
                    }
                }
            }
            Op::St { space, bytes } => {
                let wide_addr = c.env.code.opcodes[usize::from(c.inst.opcode)].contains(".E");
                let Operand::Reg { r: src, .. } = *o(1)? else {
                    return Err("a store's data must be a register".into());
                };
                for l in lanes(run) {
                    let addr = self.address(env, o(0)?, l, space, wide_addr)?;
                    c.addrs.push(addr);
                    let n = bytes as usize;
                    let mut buf = [0u8; 16];
                    for w in 0..n.div_ceil(4) {
                        let v = if src == RZ {
                            0
                        } else {
                            self.reg(src + w as u8, l)
                        };
                        buf[4 * w..4 * w + 4].copy_from_slice(&v.to_le_bytes());
                    }
                    self.store(mem, space, addr, l, &buf[..n])?;
                }
            }
            Op::Atom {
                space,
                op,
                bytes,
                ret,
            } => {
                // ATOMG Pd?, Rd, [a], b [, c]; RED [a], b; ATOMS Rd, [a], b.
                let wide_addr = c.env.code.opcodes[usize::from(c.inst.opcode)].contains(".E");
                let first_mem = ops
                    .iter()
                    .position(|p| matches!(p, Operand::Mem { .. }))
                    .ok_or("an atomic without an address")?;
                let d = if ret {
                    Some(Self::dst(ops.get(first_mem - 1))?)
                } else {
                    None
                };
                for l in lanes(run) {
                    let addr = self.address(env, o(first_mem)?, l, space, wide_addr)?;
                    c.addrs.push(addr);
                    let n = bytes as usize;
                    let mut buf = [0u8; 8];
                    self.load(mem, space, addr, l, &mut buf[..n])?;
                    let old = u64::from_le_bytes(buf);
                    let b = self.int64(env, o(first_mem + 1)?, l)?;
                    let b = if n == 4 { b & 0xffff_ffff } else { b };
                    let new = match op {
                        AtomOp::Add => old.wrapping_add(b),
                        AtomOp::FAdd => u64::from(
                            (f32::from_bits(old as u32) + f32::from_bits(b as u32)).to_bits(),
                        ),
                        AtomOp::Min => old.min(b),
                        AtomOp::Max => old.max(b),
                        AtomOp::Inc => {
                            if old >= b {
                                0
                            } else {
                                old + 1
                            }
                        }
                        AtomOp::Dec => {
                            if old == 0 || old > b {
                                b
                            } else {
                                old - 1
                            }
                        }
                        AtomOp::And => old & b,
                        AtomOp::Or => old | b,
                        AtomOp::Xor => old ^ b,
                        AtomOp::Exch => b,
                        AtomOp::Cas => {
                            let v = self.int64(env, o(first_mem + 2)?, l)?;
                            if old == b {
                                v
                            } else {
                                old
                            }
                        }
                    };
                    self.store(mem, space, addr, l, &new.to_le_bytes()[..n])?;
                    if let Some(d) = d {
                        if n == 8 {
                            self.put64(d, l, old)?;
                        } else {
                            self.put(d, l, old as u32)?;
                        }
                    }
                }
            }
            Op::Ldc { bytes } => {
                let d = Self::dst(ops.first())?;
                let Operand::Const {
                    bank, offset, reg, ..
                } = *o(1)?
                else {
                    return Err("LDC reads a constant".into());
                };
                for l in self.lanes_for(d, run) {
                    for w in 0..(bytes as usize).div_ceil(4) {
                        let v = self.const_word(env, bank, offset + 4 * w as u32, l, reg)?;
                        self.put(d + w as u8, l, v)?;
                    }
                }
            }
            Op::Shfl(mode) => {
                // SHFL.mode Pd, Rd, a, b, c: lane j's a, with j and the clamp as PTX's
                // shfl.sync computes them.
                let d = Self::dst(ops.get(1))?;
                let vals: Vec<u32> = (0..32)
                    .map(|l| {
                        self.int(env, o(2).unwrap_or(&Operand::Imm(0)), l)
                            .unwrap_or(0)
                    })
                    .collect();
                for l in lanes(run) {
                    let b = self.int(env, o(3)?, l)?;
                    let cc = self.int(env, o(4)?, l)?;
                    let (clamp, seg) = (cc & 0x1f, (cc >> 8) & 0x1f);
                    let lane = l as u32;
                    let max_lane = (lane & seg) | (clamp & !seg);
                    let min_lane = lane & seg;
                    let (j, ok) = match mode {
                        ShflMode::Idx => {
                            let j = min_lane | (b & !seg);
                            (j, j <= max_lane)
                        }
                        ShflMode::Up => {
                            let j = lane.wrapping_sub(b);
                            (j, (j as i32) >= max_lane as i32)
                        }
                        ShflMode::Down => {
                            let j = lane + b;
                            (j, j <= max_lane)
                        }
                        ShflMode::Bfly => {
                            let j = lane ^ b;
                            (j, j <= max_lane)
                        }
                    };
                    let src = if ok && j < 32 && active >> j & 1 == 1 {
                        j
                    } else {
                        lane
                    };
                    self.put(d, l, vals[src as usize])?;
                    self.set_pred(o(0)?, l, ok)?;
                }
            }
            Op::Vote(mode) => {
                // VOTE.ANY Rd, Pd, Pa (Rd: the ballot).
                let Some(src) = ops.last() else {
                    return Err("VOTE needs a predicate".into());
                };
                let ballot = self.pred(src)? & run;
                let d = Self::dst(ops.first()).ok();
                for l in lanes(run) {
                    if let Some(d) = d {
                        self.put(d, l, ballot)?;
                    }
                    let v = match mode {
                        VoteMode::All => ballot == run,
                        VoteMode::Any => ballot != 0,
                        VoteMode::Ballot => ballot >> l & 1 == 1,
                    };
                    if let Some(p) = ops.iter().find(|p| matches!(p, Operand::Pred { .. })) {
                        if !std::ptr::eq(p, src) {
                            self.set_pred(p, l, v)?;
                        }
                    }
                }
            }
            Op::Bar => {
                if run != 0 {
                    return Ok(Flow::Barrier);
                }
            }
            Op::Bra => {
                // BRA [P,] target: lanes whose guard (and condition) hold jump.
                let mut lanes = run;
                if let Some(p @ Operand::Pred { .. }) = ops.first() {
                    lanes &= self.pred(p)?;
                }
                let Some(Operand::Target(_) | Operand::Imm(_)) = ops.last() else {
                    return Err("BRA without a target".into());
                };
                let to = match ops.last() {
                    Some(Operand::Imm(t)) | Some(Operand::Target(t)) => *t,
                    _ => unreachable!("checked"),
                };
                if lanes != 0 {
                    return Ok(Flow::Jump { lanes, to });
                }
            }
            Op::Bssy => {
                let Some(Operand::Barrier(b)) = ops.first() else {
                    return Err("BSSY needs a barrier".into());
                };
                self.barriers[usize::from(*b) & 15] = active;
            }
            Op::Bsync => {}
            Op::Bmov => {
                // BMOV.32.CLEAR Rd, Bn (read and clear); BMOV.32 Bn, Ra (restore).
                match (o(0)?, o(1)?) {
                    (Operand::Reg { r, .. }, Operand::Barrier(b)) => {
                        let v = self.barriers[usize::from(*b) & 15];
                        for l in lanes(run) {
                            self.set(*r, l, v)?;
                        }
                        if c.env.code.opcodes[usize::from(c.inst.opcode)].contains("CLEAR") {
                            self.barriers[usize::from(*b) & 15] = 0;
                        }
                    }
                    (Operand::Barrier(b), src) => {
                        if let Some(l) = lanes(run).next() {
                            self.barriers[usize::from(*b) & 15] = self.int(env, src, l)?;
                        }
                    }
                    _ => return Err("BMOV form not modelled".into()),
                }
            }
            Op::Call => {
                let to = match ops.last() {
                    Some(Operand::Imm(t)) => *t,
                    _ => {
                        return Err("a call through a register (an external function such as \
                                    printf, or a failed assert) is not modelled"
                            .into())
                    }
                };
                if run != 0 {
                    return Ok(Flow::Call { lanes: run, to });
                }
            }
            Op::Lepc => {
                let d = Self::dst(ops.first())?;
                for l in lanes(run) {
                    self.put64(d, l, c.inst.pc)?;
                }
            }
            Op::Ret => {
                if run != 0 {
                    return Ok(Flow::Ret { lanes: run });
                }
            }
            Op::Exit => {
                if run != 0 {
                    return Ok(Flow::Exit { lanes: run });
                }
            }
        }
        Ok(Flow::Next)
    }

    fn convert(
        &mut self,
        env: &LaunchEnv,
        cv: Convert,
        d: u8,
        src: &Operand,
        l: usize,
    ) -> Result<(), String> {
        let x: f64 = match cv.from {
            Num::F32 => f64::from(self.f32(env, src, l)?),
            Num::F64 => self.f64(env, src, l)?,
            Num::U32 => f64::from(self.int(env, src, l)?),
            Num::S32 => f64::from(self.int(env, src, l)? as i32),
            Num::U16 => f64::from(self.int(env, src, l)? as u16),
            Num::S16 => f64::from(self.int(env, src, l)? as i16),
            Num::U8 => f64::from(self.int(env, src, l)? as u8),
            Num::S8 => f64::from(self.int(env, src, l)? as i8),
            Num::U64 => self.int64(env, src, l)? as f64,
            Num::S64 => self.int64(env, src, l)? as i64 as f64,
        };
        let rounded = |x: f64| match cv.round {
            Round::Trunc => x.trunc(),
            Round::Floor => x.floor(),
            Round::Ceil => x.ceil(),
            Round::Nearest => x.round_ties_even(),
        };
        match cv.to {
            Num::F32 => self.put(d, l, (x as f32).to_bits()),
            Num::F64 => self.put64(d, l, x.to_bits()),
            Num::U32 => self.put(d, l, rounded(x) as u32),
            Num::S32 => self.put(d, l, rounded(x) as i32 as u32),
            Num::U64 => self.put64(d, l, rounded(x) as u64),
            Num::S64 => self.put64(d, l, rounded(x) as i64 as u64),
            Num::U16 => self.put(d, l, u32::from(rounded(x) as u16)),
            Num::S16 => self.put(d, l, rounded(x) as i16 as i32 as u32),
            Num::U8 => self.put(d, l, u32::from(rounded(x) as u8)),
            Num::S8 => self.put(d, l, rounded(x) as i8 as i32 as u32),
        }
    }

    /// Lane `l`'s address of memory operand `o`.
    fn address(
        &self,
        env: &LaunchEnv,
        o: &Operand,
        l: usize,
        space: Space,
        wide_addr: bool,
    ) -> Result<u64, String> {
        let Operand::Mem {
            reg,
            ureg,
            offset,
            scale,
            wide,
        } = *o
        else {
            return Err(format!("{o:?} is not an address"));
        };
        // A global address is a 64-bit register pair and a 64-bit uniform pair; a shared or
        // local one 32-bit.
        let global = space == Space::Global && (wide || wide_addr);
        let base = if global {
            self.int64(
                env,
                &Operand::Reg {
                    r: reg,
                    neg: false,
                    abs: false,
                    not: false,
                },
                l,
            )?
        } else {
            u64::from(self.reg(reg, l)) * u64::from(scale)
        };
        let u = match ureg {
            URZ => 0,
            r if global => self.int64(
                env,
                &Operand::UReg {
                    r,
                    neg: false,
                    not: false,
                },
                l,
            )?,
            r => u64::from(self.uregs[usize::from(r)]),
        };
        Ok(base.wrapping_add(u).wrapping_add(offset as u64))
    }

    fn load(
        &mut self,
        mem: &mut Memories<'_>,
        space: Space,
        addr: u64,
        l: usize,
        out: &mut [u8],
    ) -> Result<(), String> {
        match space {
            Space::Global => mem.global.read(addr, out).map_err(|f: Fault| f.to_string()),
            Space::Shared => {
                let a = usize::try_from(addr).map_err(|_| "shared address out of range")?;
                let src = mem.shared.get(a..a + out.len()).ok_or_else(|| {
                    format!(
                        "shared access at {a:#x} past the block's {} bytes",
                        mem.shared.len()
                    )
                })?;
                out.copy_from_slice(src);
                Ok(())
            }
            Space::Local => {
                let buf = self.local_of(l);
                let a = usize::try_from(addr).map_err(|_| "local address out of range")?;
                let n = buf.len();
                let src = buf
                    .get(a..a + out.len())
                    .ok_or_else(|| format!("local access at {a:#x} past the thread's {n} bytes"))?;
                out.copy_from_slice(src);
                Ok(())
            }
        }
    }

    fn store(
        &mut self,
        mem: &mut Memories<'_>,
        space: Space,
        addr: u64,
        l: usize,
        data: &[u8],
    ) -> Result<(), String> {
        match space {
            Space::Global => mem
                .global
                .write(addr, data)
                .map_err(|f: Fault| f.to_string()),
            Space::Shared => {
                let a = usize::try_from(addr).map_err(|_| "shared address out of range")?;
                let n = mem.shared.len();
                let dst = mem
                    .shared
                    .get_mut(a..a + data.len())
                    .ok_or_else(|| format!("shared access at {a:#x} past the block's {n} bytes"))?;
                dst.copy_from_slice(data);
                Ok(())
            }
            Space::Local => {
                let buf = self.local_of(l);
                let n = buf.len();
                let a = usize::try_from(addr).map_err(|_| "local address out of range")?;
                let dst = buf
                    .get_mut(a..a + data.len())
                    .ok_or_else(|| format!("local access at {a:#x} past the thread's {n} bytes"))?;
                dst.copy_from_slice(data);
                Ok(())
            }
        }
    }

    fn local_of(&mut self, l: usize) -> &mut Vec<u8> {
        if self.local.is_empty() {
            self.local = vec![Vec::new(); 32];
        }
        if self.local[l].is_empty() {
            self.local[l] = vec![0; self.local_bytes];
        }
        &mut self.local[l]
    }
}
