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

type Key = (u64, u32, [u32; 3], u32);

/// The figures of a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct OtFigures {
    pub queries: u64,
    pub hits: u64,
    pub observations: u64,
    /// Hits whose warp later observed the load, and those whose prediction named the address.
    pub resolved: u64,
    pub correct: u64,
    pub pcov: f64,
    pub pacc: f64,
    /// Why the predictor stopped early (a field wider than its table's), if it did.
    pub refused: Option<String>,
}

/// Counts queries, hits and their resolution, cycle by cycle.
#[derive(Debug, Default)]
pub struct Coverage {
    f: OtFigures,
    pending: FxHashMap<Key, ([u64; super::MAX_ADDRS], u32)>,
}

impl Coverage {
    /// One cycle's inputs and the outputs after it.
    pub fn record(&mut self, inp: &OtIn, out: &OtOut) {
        let f = &mut self.f;
        if inp.launch.is_some() {
            self.pending.clear();
        }
        if let Some(q) = &inp.predict {
            f.queries += 1;
            if out.pred_hit {
                f.hits += 1;
                // A bound on what is kept: hits never resolved (their warp ended) are dropped.
                if self.pending.len() > 1 << 20 {
                    self.pending.clear();
                }
                self.pending.insert(
                    (q.pc, q.lec, q.tb, q.warp),
                    (out.pred_addrs, out.pred_count),
                );
            }
        }
        if let Some(o) = &inp.observe {
            f.observations += 1;
            if let Some((addrs, n)) = self.pending.remove(&(o.pc, o.lec, o.tb, o.warp)) {
                f.resolved += 1;
                f.correct += u64::from(addrs[..n as usize].contains(&o.addr));
            }
        }
    }

    pub fn figures(&self) -> OtFigures {
        let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        OtFigures {
            pcov: ratio(self.f.hits, self.f.queries),
            pacc: ratio(self.f.correct, self.f.resolved),
            ..self.f.clone()
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
