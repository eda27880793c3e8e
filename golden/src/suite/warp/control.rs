//! Control flow and cross-lane instructions.

use super::{lanes, operand, Ctx, Flow, WarpEmu};
use crate::suite::sass::{Op, Operand, ShflMode, VoteMode};

impl WarpEmu {
    /// Instructions across the warp's lanes: shuffles and votes.
    pub(super) fn across(&mut self, c: &Ctx<'_>, active: u32) -> Result<(), String> {
        let (env, ops, run) = (c.env, &c.inst.operands, c.run);
        let o = |k: usize| operand(ops, k);
        match c.inst.op {
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
            _ => return Err(format!("{:?} is not a shuffle or vote", c.inst.op)),
        }
        Ok(())
    }

    /// Barriers, branches, convergence barriers, calls, returns and exits.
    pub(super) fn control(&mut self, c: &Ctx<'_>, active: u32) -> Result<Flow, String> {
        let (env, ops, run) = (c.env, &c.inst.operands, c.run);
        let o = |k: usize| operand(ops, k);
        match c.inst.op {
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
            Op::Break => {
                let Some(Operand::Barrier(b)) =
                    ops.iter().find(|o| matches!(o, Operand::Barrier(_)))
                else {
                    return Err("BREAK needs a barrier".into());
                };
                self.barriers[usize::from(*b) & 15] &= !run;
            }
            Op::Bmov { clear } => {
                // BMOV.32.CLEAR Rd, Bn (read and clear); BMOV.32 Bn, Ra (restore).
                match (o(0)?, o(1)?) {
                    (Operand::Reg { r, .. }, Operand::Barrier(b)) => {
                        let v = self.barriers[usize::from(*b) & 15];
                        for l in lanes(run) {
                            self.set(*r, l, v)?;
                        }
                        if clear {
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
            _ => return Err(format!("{:?} is not control flow", c.inst.op)),
        }
        Ok(Flow::Next)
    }
}
