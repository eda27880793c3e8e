//! Prediction coverage and accuracy of the OT predictor over a run (seed 000 eqs. 3 and 4):
//! PCOV = hit queries / queries (one query per warp load), PACC = hits whose prediction
//! holds the address the warp's next observation of that load names / hits so resolved.

use super::model::{OtIn, OtModel, OtOut};
#[cfg(doc)]
use super::txn::Packer;
use super::txn::{GpuTxn, GpuTxnPacker};
use crate::block::{CycleModel, IllegalInput};
use rustc_hash::FxHashMap;
use serde::Serialize;

/// A load instance: its PC and LEC, its warp's block and index in it.
type Key = (u64, u32, [u32; 3], u32);

/// The figures of a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, schemars::JsonSchema)]
pub struct OtFigures {
    pub queries: u64,
    pub hits: u64,
    pub observations: u64,
    /// Hits whose warp later observed the load, and those whose prediction named the address.
    pub resolved: u64,
    pub correct: u64,
    pub pcov: f64,
    pub pacc: f64,
    /// The same figures per load PC, in PC order.
    pub per_load: Vec<LoadFigures>,
    /// Why the predictor stopped early (a field wider than its table's), if it did.
    pub refused: Option<String>,
}

/// The figures of one load PC.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, schemars::JsonSchema)]
pub struct LoadFigures {
    pub pc: u64,
    pub queries: u64,
    pub hits: u64,
    pub resolved: u64,
    pub correct: u64,
    pub pcov: f64,
    pub pacc: f64,
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// Counts queries, hits and their resolution, in total and per load PC: the one scoring of
/// every address predictor (seed 000 eqs. 3 and 4).
#[derive(Debug, Default)]
pub struct Coverage {
    /// Counts per load PC (the totals are their sums).
    per_load: FxHashMap<u64, LoadFigures>,
    observations: u64,
    pending: FxHashMap<Key, ([u64; super::MAX_ADDRS], u32)>,
}

impl Coverage {
    /// One cycle of the OT: its inputs and the outputs after it.
    pub fn record(&mut self, inp: &OtIn, out: &OtOut) {
        if inp.launch.is_some() {
            self.launch();
        }
        if let Some(q) = &inp.predict {
            let hit = out
                .pred_hit
                .then_some(&out.pred_addrs[..out.pred_count as usize]);
            self.query((q.pc, q.lec, q.tb, q.warp), hit);
        }
        if let Some(o) = &inp.observe {
            self.observe((o.pc, o.lec, o.tb, o.warp), o.addr);
        }
    }

    /// A kernel launch: predictions still unresolved are dropped.
    pub fn launch(&mut self) {
        self.pending.clear();
    }

    /// A query for load instance `key`, and the addresses predicted for it if it hit.
    pub fn query(&mut self, key: Key, hit: Option<&[u64]>) {
        let l = self.per_load.entry(key.0).or_default();
        l.queries += 1;
        let Some(addrs) = hit else {
            return;
        };
        l.hits += 1;
        // A bound on what is kept: hits never resolved (their warp ended) are dropped.
        if self.pending.len() > 1 << 20 {
            self.pending.clear();
        }
        let mut kept = [0; super::MAX_ADDRS];
        let n = addrs.len().min(kept.len());
        kept[..n].copy_from_slice(&addrs[..n]);
        self.pending.insert(key, (kept, n as u32));
    }

    /// An observation of load instance `key` at line `addr`: the first one after a hit
    /// resolves it.
    pub fn observe(&mut self, key: Key, addr: u64) {
        self.observations += 1;
        if let Some((addrs, n)) = self.pending.remove(&key) {
            let l = self.per_load.entry(key.0).or_default();
            l.resolved += 1;
            l.correct += u64::from(addrs[..n as usize].contains(&addr));
        }
    }

    pub fn figures(&self) -> OtFigures {
        let mut per_load: Vec<LoadFigures> = self
            .per_load
            .iter()
            .map(|(&pc, l)| LoadFigures {
                pc,
                pcov: ratio(l.hits, l.queries),
                pacc: ratio(l.correct, l.resolved),
                ..*l
            })
            .collect();
        per_load.sort_by_key(|l| l.pc);
        let sum = |count: fn(&LoadFigures) -> u64| per_load.iter().map(count).sum::<u64>();
        let (hits, queries) = (sum(|l| l.hits), sum(|l| l.queries));
        let (correct, resolved) = (sum(|l| l.correct), sum(|l| l.resolved));
        OtFigures {
            queries,
            hits,
            observations: self.observations,
            resolved,
            correct,
            pcov: ratio(hits, queries),
            pacc: ratio(correct, resolved),
            per_load,
            refused: None,
        }
    }
}

/// The OT predictor fed a stream as it comes (the GPU's, chunk by chunk), counting its
/// coverage. Packing transactions into cycles never changes what one sees, so chunks may
/// be cut anywhere.
pub struct OtRun {
    model: OtModel,
    coverage: Coverage,
    warp_size: u32,
    /// The first transaction the table refused (a field wider than the table's): the
    /// predictor stops there, and the figures count up to it.
    refused: Option<String>,
}

impl OtRun {
    pub fn new(spec: &spec::Spec) -> OtRun {
        OtRun {
            model: OtModel::new(&spec.ot),
            coverage: Coverage::default(),
            warp_size: spec.gpu.warp_size,
            refused: None,
        }
    }

    /// Feed `events` (in order); after a refusal, nothing more is fed.
    pub fn feed(&mut self, events: impl Iterator<Item = GpuTxn>) {
        if self.refused.is_some() {
            return;
        }
        if let Err(e) = self.try_feed(events) {
            self.refused = Some(e.to_string());
        }
    }

    /// Packed into cycles as [`Packer`] packs their stimulus form ([`GpuTxn::txn`]), by
    /// [`GpuTxnPacker`], without building the stimulus form.
    fn try_feed(&mut self, events: impl Iterator<Item = GpuTxn>) -> Result<(), IllegalInput> {
        for inp in GpuTxnPacker::new(events, self.warp_size) {
            let inp = inp?;
            let out = *self.model.step(&inp)?;
            self.coverage.record(&inp, &out);
        }
        Ok(())
    }

    pub fn figures(&self) -> OtFigures {
        OtFigures {
            refused: self.refused.clone(),
            ..self.coverage.figures()
        }
    }
}
