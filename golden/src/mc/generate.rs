//! Generators of memory-controller stimulus: warp-load traffic in the three classes of seed 004
//! (LOA, MOA, HOA), and stress traffic for the Warped-MC tables.

use super::stimulus::Request;
use crate::rng::Rng;
use spec::Spec;
use std::collections::HashMap;

/// Off-chip requests per warp load (seed 004 §3: LOA < 1, MOA 2-8, HOA > 8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadClass {
    Loa,
    Moa,
    Hoa,
}

impl LoadClass {
    pub const NAMES: &'static [&'static str] = &["loa", "moa", "hoa"];

    pub fn from_name(s: &str) -> Option<LoadClass> {
        match s {
            "loa" => Some(LoadClass::Loa),
            "moa" => Some(LoadClass::Moa),
            "hoa" => Some(LoadClass::Hoa),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            LoadClass::Loa => "loa",
            LoadClass::Moa => "moa",
            LoadClass::Hoa => "hoa",
        }
    }
}

/// Requests per cycle one channel sustains on random rows: one activate per
/// max(tRRD_S, tFAW / 4, tBL) cycles.
pub fn random_service_rate(spec: &Spec) -> f64 {
    let t = &spec.dram.timing;
    let per_act = f64::from(t.t_rrds)
        .max(f64::from(t.t_faw) / 4.0)
        .max(f64::from(t.t_bl));
    1.0 / per_act
}

/// Warp-load traffic of one class: `loads` warp loads from random warps, each producing its
/// class's number of line requests on consecutive cycles (0 or 1 cycle apart). A load's
/// requests fall in a few rows (one per four requests), half of them drawn from a shared set of
/// hot rows, so requests of one load and of different warps share rows. Loads arrive at
/// `intensity` times the rate the channels sustain on random rows
/// ([`random_service_rate`]). 10% of the loads are writes.
pub fn warp_loads(
    spec: &Spec,
    class: LoadClass,
    loads: usize,
    intensity: f64,
    seed: u64,
) -> Vec<Request> {
    let mut rng = Rng::new(seed);
    let d = &spec.dram;
    let atom = u64::from(d.atom_bytes);
    let (lo, hi) = match class {
        LoadClass::Loa => (1u64, 1u64),
        LoadClass::Moa => (2, 8),
        LoadClass::Hoa => (9, 32),
    };
    let mean = (lo + hi) as f64 / 2.0;
    let rate = random_service_rate(spec) * f64::from(d.channels) * intensity.max(0.01);
    let gap = mean / rate;
    // Rows are addressed as (row, channel) stripes of `row_bytes` each.
    let row_span = d.row_bytes.max(atom);
    let stripes = u64::from(d.channels * d.banks) * 64;
    let hot: Vec<u64> = (0..64).map(|_| rng.below(stripes)).collect();
    let pcs: Vec<u64> = (0..8)
        .map(|i| (0x100 + 0x40 * i) & crate::block::mask(spec.wmc.pc_bits))
        .collect();
    let mut out = Vec::new();
    let mut cycle = 0u64;
    let mut acc = 0.0f64;
    for load in 0..loads {
        let sm = rng.below(spec.gpu.sms.into()) as u32;
        let warp = rng.below(spec.gpu.warps_per_sm.into()) as u32;
        let pc = *rng.pick(&pcs);
        let n = rng.range(lo, hi);
        let write = rng.chance(100);
        let rows: Vec<u64> = (0..n.div_ceil(4))
            .map(|_| {
                if rng.chance(500) {
                    *rng.pick(&hot)
                } else {
                    rng.below(stripes)
                }
            })
            .collect();
        let mut t = cycle;
        for _ in 0..n {
            let stripe = *rng.pick(&rows);
            let addr = stripe * row_span + rng.below(row_span / atom) * atom;
            out.push(Request {
                cycle: t,
                sm,
                warp,
                pc,
                addr,
                write,
                load: load as u32,
                prefetch: false,
            });
            t += rng.below(2);
        }
        acc += gap;
        let step = acc.floor();
        acc -= step;
        cycle += step as u64;
    }
    out.sort_by_key(|r| r.cycle);
    out
}

/// Traffic that stresses the Warped-MC tables, in phases: heavy warp loads on hot rows; one warp
/// flooding one channel past the pending counter's range (saturation); one SM/warp issuing
/// loads with different PCs at once (global warp id aliasing); many warps on one row; bursts
/// over every bank; idle gaps long enough for refreshes.
pub fn stress(spec: &Spec, requests: usize, seed: u64) -> Vec<Request> {
    let mut g = Stress::new(spec, requests, seed);
    while g.out.len() < requests {
        let phase = g.rng.below(6);
        let sm = g.rng.below(spec.gpu.sms.into()) as u32;
        let warp = g.rng.below(spec.gpu.warps_per_sm.into()) as u32;
        match phase {
            0 => g.saturation(sm, warp),
            1 => g.aliasing(sm, warp),
            2 => g.one_row(sm, warp),
            3 => g.every_bank(sm, warp),
            4 => {
                // Idle: long enough for a refresh.
                let refi = u64::from(spec.dram.timing.t_refi);
                g.cycle += refi / 2 + g.rng.below(refi);
            }
            _ => g.heavy(sm, warp),
        }
    }
    let mut out = g.out;
    out.truncate(requests);
    out.sort_by_key(|r| r.cycle);
    // Loads must be dense and numbered in order of first appearance.
    let mut remap = HashMap::new();
    for r in &mut out {
        let n = remap.len() as u32;
        r.load = *remap.entry(r.load).or_insert(n);
    }
    out
}

/// The state of [`stress`]'s generator: its random stream, what the spec fixes, the requests
/// so far, the cycle and the next load label.
struct Stress<'s> {
    spec: &'s Spec,
    rng: Rng,
    atom: u64,
    /// Bytes of one row of one bank (addresses `stripe * row_span ..` share a row).
    row_span: u64,
    stripes: u64,
    pc_mask: u64,
    /// Requests of a saturating warp load: past the pending counter's range when the queues
    /// of a WET scope can hold that many.
    sat: u64,
    out: Vec<Request>,
    cycle: u64,
    load: u32,
}

impl Stress<'_> {
    fn new(spec: &Spec, requests: usize, seed: u64) -> Stress<'_> {
        let d = &spec.dram;
        let atom = u64::from(d.atom_bytes);
        let held = u64::from(spec.mc.queue_entries * spec.wmc.wet_ctrls);
        let counter = u64::from(spec.wmc.pending_max);
        Stress {
            spec,
            rng: Rng::new(seed),
            atom,
            row_span: d.row_bytes.max(atom),
            stripes: u64::from(d.channels * d.banks) * 16,
            pc_mask: crate::block::mask(spec.wmc.pc_bits),
            sat: if held > counter {
                counter + 1 + u64::from(spec.mc.queue_entries) / 2
            } else {
                held + 8
            },
            out: Vec::with_capacity(requests),
            cycle: 0,
            load: 0,
        }
    }

    /// A request at `t` to a random column of row `stripe`.
    fn push(&mut self, t: u64, sm: u32, warp: u32, pc: u64, stripe: u64, load: u32) {
        let addr = stripe * self.row_span + self.rng.below(self.row_span / self.atom) * self.atom;
        self.out.push(Request {
            cycle: t,
            sm,
            warp,
            pc: pc & self.pc_mask,
            addr,
            write: self.rng.chance(80),
            load,
            prefetch: false,
        });
    }

    /// Saturation: one warp floods the channels of one WET scope, all at once, with more
    /// requests than its pending counter holds (when the queues can hold that many), on few
    /// rows so that row hits keep being classified while the counter is high.
    fn saturation(&mut self, sm: u32, warp: u32) {
        let d = &self.spec.dram;
        let (row_span, atom) = (self.row_span, self.atom);
        let per = self.spec.wmc.wet_ctrls.max(1);
        let rng = &mut self.rng;
        let target = rng.below(u64::from(d.channels / per)) as u32;
        let mut rows = Vec::with_capacity(4);
        for _ in 0..4096 {
            let st = rng.below(self.stripes);
            if d.map.decode(st * row_span).channel / per == target {
                rows.push(st);
                if rows.len() == 4 {
                    break;
                }
            }
        }
        if rows.is_empty() {
            rows.push(rng.below(self.stripes));
        }
        for _ in 0..self.sat {
            let st = *rng.pick(&rows);
            let mut addr = st * row_span;
            for _ in 0..16 {
                let a = st * row_span + rng.below(row_span / atom) * atom;
                if d.map.decode(a).channel / per == target {
                    addr = a;
                    break;
                }
            }
            self.out.push(Request {
                cycle: self.cycle,
                sm,
                warp,
                pc: 0x40 & self.pc_mask,
                addr,
                write: rng.chance(80),
                load: self.load,
                prefetch: false,
            });
        }
        self.load += 1;
        self.cycle += self.sat;
    }

    /// Aliasing: one warp, several PCs interleaved.
    fn aliasing(&mut self, sm: u32, warp: u32) {
        for i in 0..24u64 {
            let pc = 0x100 + 0x40 * (i % 3);
            let st = self.rng.below(self.stripes);
            let load = self.load + (i % 3) as u32;
            self.push(self.cycle + i / 2, sm, warp, pc, st, load);
        }
        self.load += 3;
        self.cycle += 12;
    }

    /// Many warps on one row.
    fn one_row(&mut self, sm: u32, warp: u32) {
        let stripe = self.rng.below(self.stripes);
        for w in 0..16u32 {
            let warp = (warp + w) % self.spec.gpu.warps_per_sm;
            for _ in 0..self.rng.range(1, 3) {
                self.push(self.cycle, sm, warp, 0x200, stripe, self.load);
            }
            self.load += 1;
            self.cycle += 1;
        }
    }

    /// Every bank of every channel.
    fn every_bank(&mut self, sm: u32, warp: u32) {
        let n = u64::from(self.spec.dram.channels * self.spec.dram.banks);
        for b in 0..n * 2 {
            let st = self.rng.below(self.stripes);
            self.push(self.cycle + b / 4, sm, warp, 0x300, st, self.load);
        }
        self.load += 1;
        self.cycle += n / 2;
    }

    /// A heavy warp load.
    fn heavy(&mut self, sm: u32, warp: u32) {
        let rows: Vec<u64> = (0..3).map(|_| self.rng.below(self.stripes)).collect();
        for i in 0..self.rng.range(9, 32) {
            let st = *self.rng.pick(&rows);
            self.push(self.cycle + i / 2, sm, warp, 0x80, st, self.load);
        }
        self.load += 1;
        self.cycle += 8;
    }
}
