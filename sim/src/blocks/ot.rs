//! The OT predictor (seed 000) in the registry: its co-simulation driver (stimulus from the
//! random generator, kernels or a file, packed into cycles), statistics (PCOV, PACC, events)
//! and mutants.

use crate::harness::{Check, CosimStats, Driver, Ended, Stim, StimulusName};
use crate::CosimError;
use golden::block::CycleModel;
use golden::ot::{CycleOps, OtBlock, OtIn, OtModel, OtOut, OtTxn, Packer, Source, Stimulus};
use serde::Serialize;
use spec::{OtEvent, Spec};
use std::collections::BTreeMap;
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
    /// Transactions that make the run count ([`golden::ot::checks`]).
    #[serde(skip)]
    pub checked: u64,
    /// Prediction accuracy: correct / resolved hits (seed 000 eq. 4).
    pub pacc: f64,
}

impl CosimStats for OtStats {
    const CHECKED: &'static str = golden::ot::CHECKED;

    fn checked(&self) -> u64 {
        self.checked
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

#[derive(Default)]
struct Tracker {
    stats: OtStats,
    events: [u64; 7],
    coverage: golden::ot::Coverage,
}

impl Tracker {
    fn record(&mut self, c: &CycleOps, inp: &OtIn, out: &OtOut) {
        let s = &mut self.stats;
        s.cycles += 1;
        s.transactions += c.txns().count() as u64;
        s.checked += c.txns().filter(|(_, t)| golden::ot::checks(t)).count() as u64;
        s.launches += u64::from(inp.launch.is_some());
        if inp.observe.is_some() {
            self.events[out.upd_event.code() as usize] += 1;
            s.evictions += u64::from(out.upd_evict);
        }
        self.coverage.record(inp, out);
    }

    fn finish(mut self) -> OtStats {
        let f = self.coverage.figures();
        let s = &mut self.stats;
        (s.predictions, s.hits, s.observes) = (f.queries, f.hits, f.observations);
        (s.resolved, s.correct, s.pcov, s.pacc) = (f.resolved, f.correct, f.pcov, f.pacc);
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
    /// `gpu:WORKLOAD`: the predictor in place in the whole GPU (the workload and its name),
    /// and the GPU's transactions once run.
    gpu: Option<(Arc<golden::gpu::run::Target>, String)>,
    gpu_txns: Option<Arc<Vec<OtTxn>>>,
    /// After a run: transactions consumed, and the statistics.
    consumed: usize,
    stats: OtStats,
}

impl OtDriver {
    fn txns(&self) -> Box<dyn Iterator<Item = OtTxn> + '_> {
        match (&self.replay, &self.gpu_txns) {
            (Some(v), _) | (None, Some(v)) => Box::new(v.iter().cloned()),
            (None, None) => self.source.iter(),
        }
    }

    fn origin(&self, i: usize) -> String {
        match (&self.replay, &self.gpu) {
            (Some(_), _) => format!("replayed transaction {}", i + 1),
            (None, Some((_, name))) => format!("{name}, transaction {}", i + 1),
            (None, None) => self.source.origin(i),
        }
    }

    /// The GPU's transactions for a run of `limit` cycles (the predictor takes at most two a
    /// cycle), from as many launches of the workload as that takes.
    fn gpu_stream(&mut self, limit: u64) -> Result<(), CosimError> {
        use golden::gpu::run::{run_with, RunOptions};
        let Some((t, name)) = self.gpu.clone() else {
            return Ok(());
        };
        let want = limit.saturating_mul(2).saturating_add(16).min(1 << 28) as usize;
        if self.gpu_txns.as_ref().is_some_and(|v| v.len() >= want) {
            return Ok(());
        }
        let mut o = RunOptions {
            keep_ot: Some(want),
            trace_cache: super::trace_cache(),
            ..RunOptions::default()
        };
        run_with(&self.spec, t.workload(1), &mut o).map_err(|e| super::gpu_error(&name, e))?;
        self.gpu_txns = Some(Arc::new(std::mem::take(&mut o.ot_txns)));
        Ok(())
    }
}

impl Driver for OtDriver {
    type Block = OtBlock;
    type Item = OtTxn;
    type Stats = OtStats;

    fn new(spec: &Spec, s: &Stim<'_>) -> Result<OtDriver, CosimError> {
        if let Some(t) = super::gpu_target(s.text) {
            let t = t?;
            return Ok(OtDriver {
                spec: spec.clone(),
                // (Not read: the GPU's transactions stand in for a source.)
                source: Source::new(
                    spec,
                    &Stimulus::parse("random", "the OT block", golden::ot::FORMS)?,
                    s.seed,
                )?,
                replay: None,
                gpu: Some((t, s.text.to_string())),
                gpu_txns: None,
                consumed: 0,
                stats: OtStats::default(),
            });
        }
        let source = Source::new(
            spec,
            &Stimulus::parse(s.text, "the OT block", golden::ot::FORMS)?,
            s.seed,
        )?;
        Ok(OtDriver {
            spec: spec.clone(),
            source,
            replay: None,
            gpu: None,
            gpu_txns: None,
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
        if let (None, Some((_, name))) = (&self.replay, &self.gpu) {
            return StimulusName::new(name, false, "transactions");
        }
        let finite = self.replay.is_some() || self.source.is_finite();
        StimulusName::new(self.source.kind(), finite, "transactions")
    }

    fn run(&mut self, limit: u64, check: &mut Check<'_, Self>) -> Result<Ended, CosimError> {
        if self.replay.is_none() {
            self.gpu_stream(limit)?;
        }
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
