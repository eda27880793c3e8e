//! Memory instructions: their lanes' addresses, and loads and stores in global, shared and local
//! memory.

use super::{lanes, operand, Ctx, LaunchEnv, Memories, WarpEmu};
use crate::suite::mem::Fault;
use crate::suite::sass::{AtomOp, Op, Operand, Space, RZ, URZ};

impl WarpEmu {
    /// Loads, stores and constant loads.
    pub(super) fn memory(&mut self, c: &mut Ctx<'_>, mem: &mut Memories<'_>) -> Result<(), String> {
        let (env, ops, run) = (c.env, &c.inst.operands, c.run);
        let o = |k: usize| operand(ops, k);
        match c.inst.op {
            Op::Ld {
                space,
                bytes,
                signed,
            } => {
                let d = Self::dst(ops.first())?;
                for l in lanes(run) {
                    let addr = self.address(env, o(1)?, l, space)?;
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
                let Operand::Reg { r: src, .. } = *o(1)? else {
                    return Err("a store's data must be a register".into());
                };
                for l in lanes(run) {
                    let addr = self.address(env, o(0)?, l, space)?;
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
            Op::Ldc { bytes, signed } if bytes < 4 => {
                let d = Self::dst(ops.first())?;
                let Operand::Const {
                    bank, offset, reg, ..
                } = *o(1)?
                else {
                    return Err("LDC reads a constant".into());
                };
                // (A byte or a short, extended to the register as a load from memory is.)
                let n = bytes as usize;
                for l in lanes(self.lanes_for(d, run)) {
                    let b = self.const_bytes(env, bank, offset, l, reg, n)?;
                    let mut v = 0u32;
                    for (k, byte) in b.iter().enumerate() {
                        v |= u32::from(*byte) << (8 * k);
                    }
                    if signed && b[n - 1] & 0x80 != 0 {
                        v |= u32::MAX << (8 * n);
                    }
                    self.put(d, l, v)?;
                }
            }
            Op::Ldc { bytes, .. } => {
                let d = Self::dst(ops.first())?;
                let Operand::Const {
                    bank, offset, reg, ..
                } = *o(1)?
                else {
                    return Err("LDC reads a constant".into());
                };
                for l in lanes(self.lanes_for(d, run)) {
                    for w in 0..(bytes as usize).div_ceil(4) {
                        let v = self.const_word(env, bank, offset + 4 * w as u32, l, reg)?;
                        self.put(d + w as u8, l, v)?;
                    }
                }
            }
            _ => return Err(format!("{:?} is not a load or store", c.inst.op)),
        }
        Ok(())
    }

    /// Atomics and reductions, applied lane by lane in lane order.
    pub(super) fn atomic(&mut self, c: &mut Ctx<'_>, mem: &mut Memories<'_>) -> Result<(), String> {
        let (env, ops, run) = (c.env, &c.inst.operands, c.run);
        let o = |k: usize| operand(ops, k);
        match c.inst.op {
            Op::Atom {
                space,
                op,
                bytes,
                ret,
            } => {
                // ATOMG Pd?, Rd, [a], b [, c]; RED [a], b; ATOMS Rd, [a], b.
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
                    let addr = self.address(env, o(first_mem)?, l, space)?;
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
            _ => return Err(format!("{:?} is not an atomic", c.inst.op)),
        }
        Ok(())
    }

    /// Lane `l`'s address of memory operand `o`.
    pub(super) fn address(
        &self,
        env: &LaunchEnv,
        o: &Operand,
        l: usize,
        space: Space,
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
        let global = space == Space::Global && wide;
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

    pub(super) fn load(
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

    pub(super) fn store(
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

    pub(super) fn local_of(&mut self, l: usize) -> &mut Vec<u8> {
        if self.local.is_empty() {
            self.local = vec![Vec::new(); 32];
        }
        if self.local[l].is_empty() {
            self.local[l] = vec![0; self.local_bytes];
        }
        &mut self.local[l]
    }
}
