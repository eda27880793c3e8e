//! Reading and writing a warp's operands: registers (per lane), uniform registers, predicates,
//! constants, immediates and special registers, as integers or floating-point values.

use super::{unnegated, LaunchEnv, WarpEmu};
use crate::suite::sass::{Operand, Special, PT, RZ, URZ};

impl WarpEmu {
    pub(super) fn reg(&self, r: u8, lane: usize) -> u32 {
        if r == RZ {
            0
        } else {
            self.regs.get(usize::from(r)).map_or(0, |v| v[lane])
        }
    }

    pub(super) fn set(&mut self, r: u8, lane: usize, v: u32) -> Result<(), String> {
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

    pub(super) fn const_word(
        &self,
        env: &LaunchEnv,
        bank: u8,
        offset: u32,
        lane: usize,
        reg: Option<u8>,
    ) -> Result<u32, String> {
        let b = self.const_bytes(env, bank, offset, lane, reg, 4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// The `n` bytes of constant bank `bank` at `offset` (plus register `reg`'s value).
    pub(super) fn const_bytes<'e>(
        &self,
        env: &'e LaunchEnv,
        bank: u8,
        offset: u32,
        lane: usize,
        reg: Option<u8>,
        n: usize,
    ) -> Result<&'e [u8], String> {
        let off = offset.wrapping_add(reg.map_or(0, |r| self.reg(r, lane))) as usize;
        let data: &[u8] = match bank {
            0 => &env.const0,
            _ => env
                .consts
                .iter()
                .find(|(b, _)| *b == bank)
                .map(|(_, d)| d.as_slice())
                .ok_or_else(|| {
                    format!("reads constant bank {bank}, which the listing does not fill")
                })?,
        };
        data.get(off..off + n).ok_or_else(|| {
            format!(
                "reads c[{bank:#x}][{off:#x}], past the bank's {} bytes",
                data.len()
            )
        })
    }

    /// Operand `o` of lane `lane` as a 32-bit integer (negation and not applied).
    pub(super) fn int(&self, env: &LaunchEnv, o: &Operand, lane: usize) -> Result<u32, String> {
        // (The common case first: a plain register.)
        if let Operand::Reg {
            r,
            neg: false,
            not: false,
            abs: false,
        } = *o
        {
            return Ok(self.reg(r, lane));
        }
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
    pub(super) fn int64(&self, env: &LaunchEnv, o: &Operand, lane: usize) -> Result<u64, String> {
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

    pub(super) fn f32(&self, env: &LaunchEnv, o: &Operand, lane: usize) -> Result<f32, String> {
        // (The common case first: a plain register.)
        if let Operand::Reg {
            r,
            neg: false,
            abs: false,
            ..
        } = *o
        {
            return Ok(f32::from_bits(self.reg(r, lane)));
        }
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

    pub(super) fn f64(&self, env: &LaunchEnv, o: &Operand, lane: usize) -> Result<f64, String> {
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

    pub(super) fn set64(&mut self, r: u8, lane: usize, v: u64) -> Result<(), String> {
        if r == RZ {
            return Ok(());
        }
        self.set(r, lane, v as u32)?;
        self.set(r + 1, lane, (v >> 32) as u32)
    }

    pub(super) fn pred(&self, o: &Operand) -> Result<u32, String> {
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

    pub(super) fn set_pred(&mut self, o: &Operand, lane: usize, v: bool) -> Result<(), String> {
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

    pub(super) fn special(&self, s: Special, lane: usize) -> u32 {
        match s {
            Special::Tid(d) => self.tid[lane][d],
            Special::Ctaid(d) => self.ctaid[d],
            Special::LaneId => lane as u32,
            Special::Clock => 0,
        }
    }

    /// A register destination operand's register.
    pub(super) fn dst(o: Option<&Operand>) -> Result<u8, String> {
        match o {
            Some(Operand::Reg { r, .. }) => Ok(*r),
            Some(Operand::UReg { r, .. }) => Ok(*r | 0x80),
            other => Err(format!("{other:?} is not a register destination")),
        }
    }

    /// Write `v` to destination `d` (a register, or a uniform register: `0x80 | r`).
    pub(super) fn put(&mut self, d: u8, lane: usize, v: u32) -> Result<(), String> {
        if d & 0x80 != 0 && d != RZ {
            let r = d & 0x7f;
            if r != URZ {
                self.uregs[usize::from(r)] = v;
            }
            return Ok(());
        }
        self.set(d, lane, v)
    }

    pub(super) fn put64(&mut self, d: u8, lane: usize, v: u64) -> Result<(), String> {
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
    pub(super) fn lanes_for(&self, d: u8, run: u32) -> u32 {
        if d & 0x80 != 0 && d != RZ {
            run & run.wrapping_neg()
        } else {
            run
        }
    }
}
