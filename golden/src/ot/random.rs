//! Random OT stimulus, biased to what stresses the block.
//!
//! The stream is a sequence of phases, each a few hundred to a few thousand transactions:
//! * `Learn` — a few strided loads (1-D, 2-D or 3-D, positive and negative strides, several lines
//!   per warp) observed at random blocks and warps with a little noise, with prediction queries
//!   in between: entries are built, strides learned, predictions checked;
//! * `Iterated` — one PC with many LECs (an iterated load), each instance its own entry;
//! * `Pressure` — more distinct (PC, LEC) keys than the table holds: allocation and eviction;
//! * `Storm` — random addresses for learned keys: mispredict counters climb and saturate and
//!   entries stop predicting;
//! * `Edge` — extreme field values: all-ones PCs and LECs, the last block and warp of the grid,
//!   addresses that wrap, strides that do not fit or do not divide.
//!
//! A new launch (random 1-D/2-D/3-D grid and block) starts every few phases.

use super::txn::{OtTxn, Tb};
use crate::block::mask;
use crate::rng::Rng;
use spec::Spec;
use std::collections::VecDeque;

#[derive(Debug, Clone)]
struct Load {
    pc: u64,
    lec: u64,
    base: u64,
    stride: [i64; 3],
    iws: i64,
    lines: u64,
    step: i64,
    noise: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Learn,
    Iterated,
    Pressure,
    Storm,
    Edge,
}

/// An endless, seeded random transaction stream.
#[derive(Debug, Clone)]
pub struct RandomOt {
    rng: Rng,
    dims: usize,
    tb_bits: u32,
    warp_bits: u32,
    pc_bits: u32,
    lec_bits: u32,
    addr_bits: u32,
    stride_bits: u32,
    addrs_per_entry: u64,
    entries: u64,
    warp_size: u64,
    line: u64,
    grid: [u64; 3],
    warps: u64,
    loads: Vec<Load>,
    phase: Phase,
    left: u64,
    phases_since_launch: u32,
    queue: VecDeque<OtTxn>,
}

impl RandomOt {
    pub fn new(spec: &Spec, seed: u64) -> RandomOt {
        let s = &spec.ot;
        let mut r = RandomOt {
            rng: Rng::new(seed),
            dims: s.grid_dims as usize,
            tb_bits: s.tb_bits,
            warp_bits: s.warp_bits,
            pc_bits: s.pc_bits,
            lec_bits: s.lec_bits,
            addr_bits: s.addr_bits,
            stride_bits: s.stride_bits,
            addrs_per_entry: s.addrs_per_entry.into(),
            entries: s.entries.into(),
            warp_size: spec.gpu.warp_size.into(),
            line: spec.gpu.line_bytes.into(),
            grid: [1; 3],
            warps: 1,
            loads: Vec::new(),
            phase: Phase::Learn,
            left: 0,
            phases_since_launch: 0,
            queue: VecDeque::new(),
        };
        r.launch();
        r
    }

    fn launch(&mut self) {
        let used = self.rng.range(1, self.dims as u64) as usize;
        let max_tb = 1u64 << self.tb_bits.min(20);
        for d in 0..3 {
            self.grid[d] = if d >= used {
                1
            } else if self.rng.chance(100) {
                max_tb
            } else {
                self.rng.range(1, max_tb.min(24))
            };
        }
        let max_w = 1u64 << self.warp_bits.min(6);
        self.warps = if self.rng.chance(100) {
            max_w
        } else {
            self.rng.range(1, max_w.min(8))
        };
        let threads = self.warps * self.warp_size - self.rng.below(self.warp_size);
        self.queue.push_back(OtTxn::Launch {
            grid: self.grid.to_vec(),
            block: vec![threads, 1, 1],
        });
        self.loads.clear();
        self.phases_since_launch = 0;
    }

    fn stride(&mut self) -> i64 {
        let lim = 1i64 << (self.stride_bits - 1).min(62);
        let line = self.line as i64;
        let v = match self.rng.below(10) {
            0 => 0,
            1 => self.rng.range(1, 64) as i64,        // sub-line
            2 => lim - 1 - self.rng.below(4) as i64,  // near the limit
            3 => (lim as u64).wrapping_mul(3) as i64, // does not fit
            _ => line * self.rng.range(1, 64) as i64, // whole lines
        };
        if self.rng.chance(300) {
            v.wrapping_neg()
        } else {
            v
        }
    }

    fn new_load(&mut self) -> Load {
        let lines = if self.rng.chance(150) {
            self.addrs_per_entry + 1
        } else {
            self.rng.range(1, self.addrs_per_entry)
        };
        Load {
            pc: self.rng.bits(self.pc_bits) & !7 & mask(self.pc_bits),
            lec: self.rng.bits(self.lec_bits),
            base: self.rng.bits(self.addr_bits),
            stride: [self.stride(), self.stride(), self.stride()],
            iws: self.stride(),
            lines,
            step: self.line as i64 * self.rng.range(1, 4) as i64,
            noise: *self.rng.pick(&[0, 0, 5, 50]),
        }
    }

    fn random_tb(&mut self) -> [u64; 3] {
        [
            self.rng.below(self.grid[0]),
            self.rng.below(self.grid[1]),
            self.rng.below(self.grid[2]),
        ]
    }

    fn addr(&self, l: &Load, tb: &[u64; 3], warp: u64, line: u64) -> u64 {
        let mut a = i128::from(l.base);
        for (t, stride) in tb.iter().zip(&l.stride) {
            a += i128::from(*t) * i128::from(*stride);
        }
        a += i128::from(warp) * i128::from(l.iws) + i128::from(line) * i128::from(l.step);
        (a as u64) & mask(self.addr_bits)
    }

    fn query(&mut self, l: &Load, tb: &[u64; 3], warp: u64) {
        self.queue.push_back(OtTxn::Predict {
            pc: l.pc,
            lec: l.lec,
            tb: Tb::from_slice(tb),
            warp,
        });
    }

    fn request(&mut self, l: &Load, tb: &[u64; 3], warp: u64, addr: u64) {
        self.queue.push_back(OtTxn::Observe {
            pc: l.pc,
            lec: l.lec,
            tb: Tb::from_slice(tb),
            warp,
            addr,
        });
    }

    /// Queue one warp's requests for a load (optionally preceded by a query).
    fn warp_access(&mut self, l: &Load, storm: bool) {
        let tb = self.random_tb();
        let warp = self.rng.below(self.warps);
        if self.rng.chance(500) {
            self.query(l, &tb, warp);
        }
        for j in 0..l.lines {
            let addr = if storm || self.rng.chance(l.noise) {
                self.rng.bits(self.addr_bits)
            } else {
                self.addr(l, &tb, warp, j)
            };
            self.request(l, &tb, warp, addr);
        }
    }

    fn next_phase(&mut self) {
        self.phases_since_launch += 1;
        if self.phases_since_launch > 4 && self.rng.chance(400) {
            self.launch();
        }
        self.phase = *self.rng.pick(&[
            Phase::Learn,
            Phase::Learn,
            Phase::Learn,
            Phase::Iterated,
            Phase::Pressure,
            Phase::Storm,
            Phase::Edge,
        ]);
        self.left = match self.phase {
            Phase::Pressure => self.entries * 2 + self.rng.below(64),
            _ => self.rng.range(50, 1500),
        };
        if self.phase == Phase::Learn || self.loads.is_empty() {
            let n = self.rng.range(1, 8);
            self.loads = (0..n).map(|_| self.new_load()).collect();
        }
    }

    fn refill(&mut self) {
        if self.left == 0 {
            self.next_phase();
        }
        self.left -= 1;
        match self.phase {
            Phase::Learn => {
                let l = self.rng.pick(&self.loads).clone();
                self.warp_access(&l, false);
            }
            Phase::Iterated => {
                let mut l = self.loads[0].clone();
                l.lec = self.rng.bits(self.lec_bits);
                l.base =
                    l.base.wrapping_add(l.lec.wrapping_mul(self.line * 4)) & mask(self.addr_bits);
                self.warp_access(&l, false);
            }
            Phase::Pressure => {
                let l = self.new_load();
                self.warp_access(&l, false);
            }
            Phase::Storm => {
                let l = self.rng.pick(&self.loads).clone();
                let storm = self.rng.chance(700);
                self.warp_access(&l, storm);
            }
            Phase::Edge => {
                let mut l = self.rng.pick(&self.loads).clone();
                if self.rng.chance(300) {
                    l.pc = mask(self.pc_bits);
                    l.lec = mask(self.lec_bits);
                }
                if self.rng.chance(300) {
                    l.base = mask(self.addr_bits).saturating_sub(self.rng.below(self.line * 4));
                }
                let tb = [self.grid[0] - 1, self.grid[1] - 1, self.grid[2] - 1];
                let warp = self.warps - 1;
                self.query(&l, &tb, warp);
                let addr = self.addr(&l, &tb, warp, 0);
                self.request(&l, &tb, warp, addr);
                self.warp_access(&l, false);
            }
        }
    }
}

impl Iterator for RandomOt {
    type Item = OtTxn;

    fn next(&mut self) -> Option<OtTxn> {
        while self.queue.is_empty() {
            self.refill();
        }
        self.queue.pop_front()
    }
}
