//! The CTA-aware predictor (`cta-aware`) of Jeon et al., the baseline seed 000 compares its OT
//! with (decision OT-12). Each SM has its own, and learns from its own loads only:
//! - its **DIST table** holds, per load PC (`predictor.cta_loads` of them, LRU), the stride
//!   between consecutive warps of a block and a mispredict counter;
//! - its **per-CTA table** holds, per resident block (`gpu.ctas_per_sm`, LRU) and load PC, the
//!   base: the lines the block's leading warp (warp 0, which the `cta-aware` warp scheduler
//!   issues first) observed at its latest execution of the load, up to `ot.addrs_per_entry`.
//!
//! A trailing warp `w` of a block whose base is known, for a load with a stride, is predicted
//! at `base + w × stride`, line by line; the leading warp is never predicted (it names the
//! base), and no warp is before its block's leading warp has executed the load: the
//! first-warp rule the seed criticises. The stride is learned once, from the first line a
//! trailing warp observes after its block's base is known, when the distance divides evenly by
//! its warp index. A predicted warp whose first line is not among the predicted ones counts a
//! mispredict; past `predictor.cta_mispredict_threshold` the SM stops predicting the load,
//! while the other SMs go on. It does not see the LEC: a trailing warp that runs an older
//! iteration of a loop than its leading warp is predicted from the newer base.

use super::{AddressPredictor, SmTxn};
use crate::gpu::prefetch::insert_replacing_lru;
use crate::ot::{Coverage, GpuTxn, Observe, OtFigures, Query};
use spec::Spec;

/// The warp of a block whose loads name the block's bases.
const LEADING: u32 = 0;

pub struct CtaAware {
    sms: Vec<SmTables>,
    coverage: Coverage,
    /// DIST entries per SM, blocks per SM, lines per base.
    loads: usize,
    blocks: usize,
    lines: usize,
    threshold: u32,
    /// Predicted addresses wrap to the OT's address field, the width the SMs report.
    addr_bits: u32,
}

/// One SM's tables.
#[derive(Default)]
struct SmTables {
    dist: Vec<Dist>,
    blocks: Vec<Block>,
    /// Counts queries and observations: when an entry was last used.
    now: u64,
}

/// A DIST table entry: a load PC's stride between consecutive warps, once learned.
struct Dist {
    pc: u64,
    stride: Option<i128>,
    mispredicts: u32,
    used: u64,
}

/// A per-CTA table entry: a resident block's bases, and its warps' open load instances.
struct Block {
    tb: [u32; 3],
    used: u64,
    bases: Vec<Base>,
    open: Vec<Instance>,
}

/// The lines the leading warp observed at its latest execution of load `pc`.
struct Base {
    pc: u64,
    lines: Vec<u64>,
    used: u64,
}

/// A warp's latest execution of a load: lines observed so far, and what was predicted.
struct Instance {
    warp: u32,
    pc: u64,
    seen: u32,
    predicted: Option<Vec<u64>>,
}

impl AddressPredictor for CtaAware {
    const NAME: &'static str = "cta-aware";

    fn new(spec: &Spec) -> CtaAware {
        let to_usize = |n: u32| usize::try_from(n).unwrap_or(usize::MAX);
        CtaAware {
            sms: (0..spec.gpu.sms).map(|_| SmTables::default()).collect(),
            coverage: Coverage::default(),
            loads: to_usize(spec.predictor.cta_loads),
            blocks: to_usize(spec.gpu.ctas_per_sm),
            lines: to_usize(spec.ot.addrs_per_entry),
            threshold: spec.predictor.cta_mispredict_threshold,
            addr_bits: spec.ot.addr_bits,
        }
    }

    fn feed(&mut self, txns: impl Iterator<Item = SmTxn>) {
        for (sm, t) in txns {
            match t {
                GpuTxn::Launch(_) => {
                    self.coverage.launch();
                    self.sms.iter_mut().for_each(|s| *s = SmTables::default());
                }
                GpuTxn::Predict(q) => self.query(sm, &q),
                GpuTxn::Observe(o) => self.observe(sm, &o),
            }
        }
    }

    fn figures(&self) -> OtFigures {
        self.coverage.figures()
    }
}

impl CtaAware {
    /// The tables of SM `sm` (an SM outside the GPU's count gets none: its transactions are
    /// scored but not learned from).
    fn tables(&mut self, sm: u32) -> Option<&mut SmTables> {
        self.sms.get_mut(usize::try_from(sm).ok()?)
    }

    fn query(&mut self, sm: u32, q: &Query) {
        let (blocks, lines, threshold, addr_bits) =
            (self.blocks, self.lines, self.threshold, self.addr_bits);
        let predicted = self.tables(sm).and_then(|t| {
            t.now += 1;
            let block = block_of(&mut t.blocks, q.tb, t.now, blocks);
            block.open.retain(|i| (i.warp, i.pc) != (q.warp, q.pc));
            let base = block.bases.iter_mut().find(|b| b.pc == q.pc);
            let dist = t.dist.iter_mut().find(|d| d.pc == q.pc);
            let predicted = match (q.warp, base, dist) {
                (LEADING, _, _) | (_, None, _) | (_, _, None) => None,
                (w, Some(base), Some(d)) => {
                    base.used = t.now;
                    d.used = t.now;
                    let known = &base.lines[..base.lines.len().min(lines)];
                    d.stride
                        .filter(|_| d.mispredicts <= threshold && !known.is_empty())
                        .map(|stride| {
                            let step = stride * i128::from(w);
                            known
                                .iter()
                                .map(|&a| wrap(i128::from(a) + step, addr_bits))
                                .collect()
                        })
                }
            };
            block.open.push(Instance {
                warp: q.warp,
                pc: q.pc,
                seen: 0,
                predicted: predicted.clone(),
            });
            predicted
        });
        self.coverage
            .query((q.pc, q.lec, q.tb, q.warp), predicted.as_deref());
    }

    fn observe(&mut self, sm: u32, o: &Observe) {
        self.coverage.observe((o.pc, o.lec, o.tb, o.warp), o.addr);
        let (loads, blocks, lines) = (self.loads, self.blocks, self.lines);
        let Some(t) = self.tables(sm) else {
            return;
        };
        t.now += 1;
        let now = t.now;
        let block = block_of(&mut t.blocks, o.tb, now, blocks);
        let Some(i) = block
            .open
            .iter_mut()
            .find(|i| (i.warp, i.pc) == (o.warp, o.pc))
        else {
            return;
        };
        let k = i.seen;
        i.seen += 1;
        if o.warp == LEADING {
            // The leading warp's lines make the block's base for the load.
            match block.bases.iter_mut().find(|b| b.pc == o.pc) {
                Some(b) => {
                    if k == 0 {
                        b.lines.clear();
                    }
                    if b.lines.len() < lines {
                        b.lines.push(o.addr);
                    }
                    b.used = now;
                }
                None => insert_replacing_lru(
                    &mut block.bases,
                    loads,
                    Base {
                        pc: o.pc,
                        lines: vec![o.addr],
                        used: now,
                    },
                    |b| b.used,
                ),
            }
            if !t.dist.iter().any(|d| d.pc == o.pc) {
                let d = Dist {
                    pc: o.pc,
                    stride: None,
                    mispredicts: 0,
                    used: now,
                };
                insert_replacing_lru(&mut t.dist, loads, d, |d| d.used);
            }
            return;
        }
        if k != 0 {
            return;
        }
        // A trailing warp's first line: it checks a prediction, or teaches the stride.
        let predicted = i.predicted.take();
        let base = block
            .bases
            .iter()
            .find(|b| b.pc == o.pc)
            .and_then(|b| b.lines.first());
        let Some(d) = t.dist.iter_mut().find(|d| d.pc == o.pc) else {
            return;
        };
        match (predicted, d.stride, base) {
            (Some(p), _, _) if !p.contains(&o.addr) => {
                d.mispredicts = d.mispredicts.saturating_add(1);
            }
            (None, None, Some(&base)) => {
                let distance = i128::from(o.addr) - i128::from(base);
                let w = i128::from(o.warp);
                if distance % w == 0 {
                    d.stride = Some(distance / w);
                }
            }
            _ => {}
        }
    }
}

/// Block `tb`'s entry in a per-CTA table of `capacity` blocks, made in place of the least
/// recently used one if it has none; used at `now`.
fn block_of(table: &mut Vec<Block>, tb: [u32; 3], now: u64, capacity: usize) -> &mut Block {
    if !table.iter().any(|b| b.tb == tb) {
        let b = Block {
            tb,
            used: now,
            bases: Vec::new(),
            open: Vec::new(),
        };
        insert_replacing_lru(table, capacity, b, |b| b.used);
    }
    let i = table.iter().position(|b| b.tb == tb).unwrap_or_default();
    let b = &mut table[i];
    b.used = now;
    b
}

/// `a` modulo `2^bits` (bits at most 64), as the SMs report addresses.
fn wrap(a: i128, bits: u32) -> u64 {
    let m = 1i128 << bits;
    u64::try_from(a.rem_euclid(m)).unwrap_or(u64::MAX)
}

#[cfg(test)]
#[path = "cta_aware_tests.rs"]
mod tests;
