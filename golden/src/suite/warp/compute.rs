//! Arithmetic, logic, comparison and conversion instructions, lane by lane.

use super::{lanes, operand, unnegated, Ctx, LaunchEnv, WarpEmu};
use crate::suite::sass::{Cmp, Comb, Convert, Mufu, Num, Op, Operand, Round, PT};

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

/// The register and bit shift of `R2P`'s and `P2R`'s byte operand (`R8.B1`; `R8` is byte 0).
fn byte_of(o: &Operand) -> Result<(u8, u32), String> {
    match *o {
        Operand::RegByte { r, byte } => Ok((r, 8 * u32::from(byte))),
        Operand::Reg {
            r,
            neg: false,
            abs: false,
            not: false,
        } => Ok((r, 0)),
        _ => Err(format!("{o:?} is not a register or a register's byte")),
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
    /// Moves, selects and single-operand integer instructions.
    pub(super) fn moves(&mut self, c: &Ctx<'_>) -> Result<(), String> {
        let (env, ops, run) = (c.env, &c.inst.operands, c.run);
        let o = |k: usize| operand(ops, k);
        match c.inst.op {
            Op::Mov | Op::S2r => self.unary(c, |a| a)?,
            Op::Cs2r { pair } => {
                // `CS2R R4, SRZ`: a register pair cleared (or a clock read as 0).
                let d = Self::dst(ops.first())?;
                for l in lanes(run) {
                    self.put(d, l, 0)?;
                    if pair {
                        self.put(d + 1, l, 0)?;
                    }
                }
            }
            Op::Sel | Op::Fsel => {
                let d = Self::dst(ops.first())?;
                for l in lanes(self.lanes_for(d, run)) {
                    let p = self.pred(o(3)?)? >> l & 1 == 1;
                    let v = if c.inst.op == Op::Fsel {
                        self.f32(env, o(if p { 1 } else { 2 })?, l)?.to_bits()
                    } else {
                        self.int(env, o(if p { 1 } else { 2 })?, l)?
                    };
                    self.put(d, l, v)?;
                }
            }
            Op::Imnmx { unsigned } => {
                let d = Self::dst(ops.first())?;
                for l in lanes(self.lanes_for(d, run)) {
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
            Op::Iabs => self.unary(c, |a| (a as i32).unsigned_abs())?,
            Op::Popc => self.unary(c, u32::count_ones)?,
            Op::Brev => self.unary(c, u32::reverse_bits)?,
            Op::Flo { unsigned, sh } => self.unary(c, |a| {
                // The highest set bit (of the complement, for a negative signed operand),
                // counted from the top with `.SH`; none: all ones.
                let a = if !unsigned && (a as i32) < 0 { !a } else { a };
                if a == 0 {
                    u32::MAX
                } else if sh {
                    a.leading_zeros()
                } else {
                    31 - a.leading_zeros()
                }
            })?,
            Op::R2p | Op::P2r => self.predicate_moves(c)?,
            _ => {
                return Err(format!(
                    "{:?} is not a move or single-operand instruction",
                    c.inst.op
                ))
            }
        }
        Ok(())
    }

    /// `d = f(a)` in every lane that runs: moves and the single-operand instructions.
    fn unary(&mut self, c: &Ctx<'_>, f: impl Fn(u32) -> u32) -> Result<(), String> {
        let ops = &c.inst.operands;
        let (d, a) = (Self::dst(ops.first())?, operand(ops, 1)?);
        for l in lanes(self.lanes_for(d, c.run)) {
            let v = f(self.int(c.env, a, l)?);
            self.put(d, l, v)?;
        }
        Ok(())
    }

    /// R2P and P2R: predicates from a register's byte, and back.
    fn predicate_moves(&mut self, c: &Ctx<'_>) -> Result<(), String> {
        let (env, ops, run) = (c.env, &c.inst.operands, c.run);
        let o = |k: usize| operand(ops, k);
        match c.inst.op {
            Op::R2p => {
                let Operand::PredRegs = o(0)? else {
                    return Err("R2P writes PR".into());
                };
                let (r, shift) = byte_of(o(1)?)?;
                for l in lanes(run) {
                    let mask = self.int(env, o(2)?, l)?;
                    let bits = self.reg(r, l) >> shift;
                    for p in (0..PT).filter(|p| mask >> p & 1 == 1) {
                        let pred = Operand::Pred {
                            p,
                            not: false,
                            uniform: false,
                        };
                        self.set_pred(&pred, l, bits >> p & 1 == 1)?;
                    }
                }
            }
            Op::P2r => {
                let d = Self::dst(ops.first())?;
                let Operand::PredRegs = o(1)? else {
                    return Err("P2R reads PR".into());
                };
                let (r, shift) = byte_of(o(2)?)?;
                for l in lanes(self.lanes_for(d, run)) {
                    // (Only P0 to P6 exist: bit 7 of the byte is never a predicate's.)
                    let mask = (self.int(env, o(3)?, l)? & 0x7f) << shift;
                    let preds = (0..PT).fold(0u32, |acc, p| {
                        acc | (self.preds[usize::from(p)] >> l & 1) << p
                    });
                    let v = (self.reg(r, l) & !mask) | (preds << shift & mask);
                    self.put(d, l, v)?;
                }
            }
            _ => return Err(format!("{:?} is not R2P or P2R", c.inst.op)),
        }
        Ok(())
    }

    /// Integer multiply-adds, three-input adds and shifted adds, with their carries.
    pub(super) fn arith(&mut self, c: &Ctx<'_>) -> Result<(), String> {
        let (env, ops, run) = (c.env, &c.inst.operands, c.run);
        let o = |k: usize| operand(ops, k);
        match c.inst.op {
            Op::Imad {
                wide,
                hi,
                unsigned,
                x,
            } => {
                let d = Self::dst(ops.first())?;
                for l in lanes(self.lanes_for(d, run)) {
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
                    } else if hi {
                        // The addend of `.HI` is 64-bit (a register pair, its high word the
                        // next register): the compiler's `__umulhi(a, b) + c` puts `c` in the
                        // pair's high word and zero in its low one.
                        if x {
                            return Err("IMAD.HI.X is not modelled".into());
                        }
                        let cc = self.int64(env, o(3)?, l)?;
                        self.put(d, l, (prod.wrapping_add(cc) >> 32) as u32)?;
                    } else {
                        let cc = self.int(env, o(3)?, l)?;
                        let carry = if x {
                            u32::from(self.pred(o(4)?)? >> l & 1 == 1)
                        } else {
                            0
                        };
                        self.put(d, l, (prod as u32).wrapping_add(cc).wrapping_add(carry))?;
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
                for l in lanes(self.lanes_for(d, run)) {
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
            Op::Lea { hi, x, sx32 } => {
                let d = Self::dst(ops.first())?;
                let out_pred = matches!(o(1)?, Operand::Pred { .. });
                let s = usize::from(out_pred) + 1;
                for l in lanes(self.lanes_for(d, run)) {
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
            _ => return Err(format!("{:?} is not an integer add", c.inst.op)),
        }
        Ok(())
    }

    /// Shifts, logic and byte permutes.
    pub(super) fn logic(&mut self, c: &Ctx<'_>) -> Result<(), String> {
        let (env, ops, run) = (c.env, &c.inst.operands, c.run);
        let o = |k: usize| operand(ops, k);
        match c.inst.op {
            Op::Shf {
                left,
                hi,
                wide: _,
                signed,
            } => {
                let d = Self::dst(ops.first())?;
                for l in lanes(self.lanes_for(d, run)) {
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
                for l in lanes(self.lanes_for(d, run)) {
                    let a = self.int(env, o(1)?, l)?;
                    let b = self.int(env, o(2)?, l)?;
                    self.put(d, l, a.checked_shl(b).unwrap_or(0))?;
                }
            }
            Op::Shr { signed } => {
                let d = Self::dst(ops.first())?;
                for l in lanes(self.lanes_for(d, run)) {
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
                for l in lanes(self.lanes_for(d, run)) {
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
            Op::Prmt => {
                let d = Self::dst(ops.first())?;
                for l in lanes(self.lanes_for(d, run)) {
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
            _ => {
                return Err(format!(
                    "{:?} is not a shift or logic instruction",
                    c.inst.op
                ))
            }
        }
        Ok(())
    }

    /// Comparisons and predicate logic.
    pub(super) fn compare(&mut self, c: &Ctx<'_>) -> Result<(), String> {
        let (env, ops, run) = (c.env, &c.inst.operands, c.run);
        let o = |k: usize| operand(ops, k);
        match c.inst.op {
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
            Op::Fchk => {
                for l in lanes(run) {
                    let a = self.f32(env, o(1)?, l)?;
                    let b = self.f32(env, o(2)?, l)?;
                    self.set_pred(o(0)?, l, division_out_of_range(a, b))?;
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
            _ => return Err(format!("{:?} is not a comparison", c.inst.op)),
        }
        Ok(())
    }

    /// Floating-point arithmetic, special functions and conversions.
    pub(super) fn float(&mut self, c: &Ctx<'_>) -> Result<(), String> {
        let (env, ops, run) = (c.env, &c.inst.operands, c.run);
        let o = |k: usize| operand(ops, k);
        match c.inst.op {
            Op::Fadd { .. } | Op::Fmul { .. } | Op::Ffma { .. } | Op::Fmnmx => {
                let d = Self::dst(ops.first())?;
                for l in lanes(self.lanes_for(d, run)) {
                    let a = self.f32(env, o(1)?, l)?;
                    let b = self.f32(env, o(2)?, l)?;
                    let v = match c.inst.op {
                        Op::Fadd { trunc: false, sat } => saturate(a + b, sat),
                        Op::Fadd { trunc: true, sat } => saturate(add_toward_zero(a, b), sat),
                        Op::Fmul { sat } => saturate(a * b, sat),
                        Op::Ffma { sat } => saturate(a.mul_add(b, self.f32(env, o(3)?, l)?), sat),
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
                                // Since Volta the operand is in periods: the compiler
                                // multiplies a sine's argument by 1/(2 pi) first (`FMUL.RZ`
                                // by 0.15915494, as mri-q's listing shows), where older GPUs
                                // reduced it with `RRO`.
                                Mufu::Sin => (f64::from(x) * std::f64::consts::TAU).sin() as f32,
                                _ => (f64::from(x) * std::f64::consts::TAU).cos() as f32,
                            };
                            self.put(d, l, r.to_bits())?;
                        }
                    }
                }
            }
            Op::Frnd(round) => {
                let d = Self::dst(ops.first())?;
                for l in lanes(run) {
                    let x = self.f32(env, o(1)?, l)?;
                    let r = match round {
                        Round::Trunc => x.trunc(),
                        Round::Floor => x.floor(),
                        Round::Ceil => x.ceil(),
                        Round::Nearest => x.round_ties_even(),
                    };
                    self.put(d, l, r.to_bits())?;
                }
            }
            Op::Convert(cv) => {
                let d = Self::dst(ops.first())?;
                for l in lanes(run) {
                    self.convert(env, cv, d, o(1)?, l)?;
                }
            }
            _ => {
                return Err(format!(
                    "{:?} is not a floating-point instruction",
                    c.inst.op
                ))
            }
        }
        Ok(())
    }

    pub(super) fn convert(
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
}

/// `a + b` rounded toward zero (`FADD.RZ`; CUDA's `__fadd_rz`). The sum in double precision and
/// its exact error (Knuth's two-sum) locate the exact sum against its nearest float, which is
/// then stepped one unit toward zero when it lies farther from zero than the exact sum.
pub(super) fn add_toward_zero(a: f32, b: f32) -> f32 {
    let (x, y) = (f64::from(a), f64::from(b));
    let s = x + y;
    if !s.is_finite() {
        return a + b;
    }
    let bb = s - x;
    let e = (x - (s - bb)) + (y - bb);
    // (The nearest float; infinite when the sum is beyond the largest float's half unit.)
    let r = s as f32;
    let beyond = match f64::from(r).partial_cmp(&s) {
        Some(std::cmp::Ordering::Equal) | None => e != 0.0 && (e > 0.0) != (r > 0.0),
        Some(o) => (o == std::cmp::Ordering::Greater) == (r > 0.0),
    };
    if beyond && r != 0.0 {
        // (One unit less in magnitude: the bit pattern less one, for either sign.)
        f32::from_bits(r.to_bits() - 1)
    } else {
        r
    }
}

/// `FCHK`'s test: whether `a / b` by the fast path (a reciprocal and two fused multiply-adds)
/// could be inexact or wrong: an operand not finite, a zero or subnormal divisor, a subnormal
/// dividend, or exponents so far apart that the reciprocal or the quotient leaves the normal
/// range. (The hardware's exact bounds are not published; these keep every in-range division
/// on the fast path and send every special case to the exact one, so the quotient is right
/// either way.)
fn division_out_of_range(a: f32, b: f32) -> bool {
    let exp = |v: f32| i32::from(((v.to_bits() >> 23) & 0xff) as u8) - 127;
    if !a.is_finite() || !b.is_finite() || b == 0.0 || b.is_subnormal() || a.is_subnormal() {
        return true;
    }
    let (ea, eb) = (exp(a), exp(b));
    a != 0.0 && !(-125..=125).contains(&(ea - eb)) || !(-125..=125).contains(&eb)
}

/// `v` clamped to [0, 1] (a NaN to 0) when `sat`: the `.SAT` of FADD, FMUL and FFMA.
fn saturate(v: f32, sat: bool) -> f32 {
    if !sat {
        v
    } else if v.is_nan() {
        0.0
    } else {
        v.clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::add_toward_zero;

    /// `FADD.RZ` truncates where rounding to nearest would round away: roundf's
    /// `trunc(x + copysign(0.5, x))` of the float below 0.5 is 0, not 1.
    #[test]
    fn fadd_rz_rounds_toward_zero() {
        let below_half = f32::from_bits(0.5f32.to_bits() - 1);
        assert_eq!(below_half + 0.5, 1.0);
        assert_eq!(
            add_toward_zero(below_half, 0.5),
            f32::from_bits(1.0f32.to_bits() - 1)
        );
        assert_eq!(
            add_toward_zero(-below_half, -0.5),
            -f32::from_bits(1.0f32.to_bits() - 1)
        );
        // Exact sums are unchanged; a tiny addend of the other sign steps one unit down.
        assert_eq!(add_toward_zero(1.5, 2.25), 3.75);
        assert_eq!(
            add_toward_zero(1.0, -1e-30),
            f32::from_bits(1.0f32.to_bits() - 1)
        );
        assert_eq!(
            add_toward_zero(-1.0, 1e-30),
            -f32::from_bits(1.0f32.to_bits() - 1)
        );
        assert_eq!(add_toward_zero(1.0, 1e-30), 1.0);
        // Overflow stops at the largest float; zeros keep IEEE's signs.
        assert_eq!(add_toward_zero(f32::MAX, f32::MAX), f32::MAX);
        assert_eq!(add_toward_zero(-f32::MAX, -f32::MAX), -f32::MAX);
        assert!(add_toward_zero(2.0, -2.0).is_sign_positive());
        assert!(add_toward_zero(-0.0, -0.0).is_sign_negative());
        assert!(add_toward_zero(f32::NAN, 1.0).is_nan());
    }
}
