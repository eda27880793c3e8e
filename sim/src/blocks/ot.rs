//! The OT predictor (seed 000) in the registry: its co-simulation driver (stimulus from the
//! random generator, kernels or a file, packed into cycles), statistics (PCOV, PACC, events)
//! and mutants.

use crate::harness::{Check, CosimStats, Driver, Ended, Stim, StimulusName};
use crate::CosimError;
use golden::block::CycleModel;
use golden::ot::{CycleOps, OtBlock, OtIn, OtModel, OtOut, OtTxn, Packer, Source, Stimulus};
use serde::Serialize;
use spec::{OtEvent, Spec};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// Counters of one co-simulation run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct OtStats {
    pub cycles: u64,
    pub transactions: u64,
    pub launches: u64,
    pub observes: u64,
    /// Prediction queries.
    pub predictions: u64,
    /// Queries answered with addresses.
    pub hits: u64,
    /// Hits whose warp was later observed (the prediction could be checked).
    pub resolved: u64,
    /// Resolved hits whose observed address was among the predicted ones.
    pub correct: u64,
    pub evictions: u64,
    /// Observations by what they did to the table.
    pub events: BTreeMap<&'static str, u64>,
    /// Prediction coverage: hits / queries (seed 000 eq. 3, one query per warp load).
    pub pcov: f64,
    /// Prediction accuracy: correct / resolved hits (seed 000 eq. 4).
    pub pacc: f64,
}

impl CosimStats for OtStats {
    const CHECKED: &'static str = "observation or prediction query";

    fn checked(&self) -> u64 {
        self.observes + self.predictions
    }

    fn summary(&self) -> Vec<String> {
        let ev: Vec<String> = self
            .events
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        vec![
            format!("{} cycles, {} transactions", self.cycles, self.transactions),
            format!(
                "predictions {}  hits {}  PCOV {:.3}  PACC {:.3} ({} checked)",
                self.predictions, self.hits, self.pcov, self.pacc, self.resolved
            ),
            format!(
                "observations {}: {}; evictions {}; launches {}",
                self.observes,
                ev.join(", "),
                self.evictions,
                self.launches
            ),
        ]
    }
}

type Key = (u64, u32, [u32; 3], u32);

#[derive(Default)]
struct Tracker {
    stats: OtStats,
    events: [u64; 7],
    pending: HashMap<Key, ([u64; golden::ot::MAX_ADDRS], u32)>,
}

impl Tracker {
    fn record(&mut self, c: &CycleOps, inp: &OtIn, out: &OtOut) {
        let s = &mut self.stats;
        s.cycles += 1;
        s.transactions += c.txns().count() as u64;
        s.launches += u64::from(inp.launch.is_some());
        if inp.launch.is_some() {
            self.pending.clear();
        }
        if let Some(q) = &inp.predict {
            s.predictions += 1;
            if out.pred_hit {
                s.hits += 1;
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
            s.observes += 1;
            self.events[out.upd_event.code() as usize] += 1;
            s.evictions += u64::from(out.upd_evict);
            if let Some((addrs, n)) = self.pending.remove(&(o.pc, o.lec, o.tb, o.warp)) {
                s.resolved += 1;
                s.correct += u64::from(addrs[..n as usize].contains(&o.addr));
            }
        }
    }

    fn finish(mut self) -> OtStats {
        let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        self.stats.pcov = ratio(self.stats.hits, self.stats.predictions);
        self.stats.pacc = ratio(self.stats.correct, self.stats.resolved);
        for e in OtEvent::ALL.iter().skip(1) {
            self.stats
                .events
                .insert(e.name(), self.events[e.code() as usize]);
        }
        self.stats
    }
}

/// The OT predictor's co-simulation driver.
#[derive(Clone)]
pub struct OtDriver {
    spec: Spec,
    source: Source,
    /// Replaying exactly these transactions instead of the source.
    replay: Option<Arc<Vec<OtTxn>>>,
    /// After a run: transactions consumed, and the statistics.
    consumed: usize,
    stats: OtStats,
}

impl OtDriver {
    fn txns(&self) -> Box<dyn Iterator<Item = OtTxn> + '_> {
        match &self.replay {
            Some(v) => Box::new(v.iter().cloned()),
            None => self.source.iter(),
        }
    }

    fn origin(&self, i: usize) -> String {
        match &self.replay {
            Some(_) => format!("replayed transaction {}", i + 1),
            None => self.source.origin(i),
        }
    }
}

impl Driver for OtDriver {
    type Block = OtBlock;
    type Item = OtTxn;
    type Stats = OtStats;

    fn new(spec: &Spec, s: &Stim<'_>) -> Result<OtDriver, CosimError> {
        let source = Source::new(
            spec,
            &Stimulus::parse(s.text, "the OT block", golden::ot::FORMS)?,
            s.seed,
        )?;
        Ok(OtDriver {
            spec: spec.clone(),
            source,
            replay: None,
            consumed: 0,
            stats: OtStats::default(),
        })
    }

    fn replay(&self, items: Vec<OtTxn>) -> OtDriver {
        OtDriver {
            replay: Some(Arc::new(items)),
            ..self.clone()
        }
    }

    fn stimulus(&self) -> StimulusName {
        let finite = self.replay.is_some() || self.source.is_finite();
        StimulusName::new(self.source.kind(), finite, "transactions")
    }

    fn run(&mut self, limit: u64, check: &mut Check<'_, Self>) -> Result<Ended, CosimError> {
        let ws = self.spec.gpu.warp_size;
        let mut model = OtModel::new(&self.spec.ot);
        let mut tracker = Tracker::default();
        let mut consumed = 0;
        let mut ended = Ended::Completed;
        for c in Packer::new(self.txns()) {
            if tracker.stats.cycles >= limit {
                break;
            }
            let bad = |e: golden::block::IllegalInput| {
                CosimError::BadInput(format!("{}: {e}", self.origin(c.last_index())))
            };
            let inp = c.input(ws).map_err(bad)?;
            let out = *model.step(&inp).map_err(bad)?;
            consumed = c.last_index() + 1;
            if let Err(f) = check(&inp, &out) {
                ended = Ended::Failed(f);
                break;
            }
            tracker.record(&c, &inp, &out);
        }
        self.consumed = consumed;
        self.stats = tracker.finish();
        Ok(ended)
    }

    fn consumed(&self) -> Vec<OtTxn> {
        self.txns().take(self.consumed).collect()
    }

    fn stats(&self) -> &OtStats {
        &self.stats
    }
}
