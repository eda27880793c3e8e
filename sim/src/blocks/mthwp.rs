//! The MT-HWP prefetch engine (seed 001) in the registry: its co-simulation driver (closed loop
//! from the random generator, or open loop from a file of per-cycle inputs), statistics and
//! mutants.

use crate::harness::{Check, CosimStats, Driver, Ended, Stim, StimulusName};
use crate::CosimError;
use golden::block::CycleModel;
use golden::prefetch::{Inputs, MtHwp, PfBlock, PfIn, PfOut};
use golden::run::Stimulus;
use serde::Serialize;
use spec::{PfSource, Spec};
use std::sync::Arc;

/// The forms of `--stimulus` the engine's co-simulation takes.
pub const STIMULI: &str = "`random` (a closed loop biased to what stresses the engine: promotion \
    races, LRU pressure, many warps on one PC, inter-warp strides, stride changes, every throttle \
    profile), `gpu:KERNEL_WORKLOAD_OR_TRACE_DIR` (`gpu:stencil2d`, `gpu:hotspot`: SM 0's engine \
    in place in the whole GPU, trained by its loads and fed its prefetch cache's and MSHRs' \
    events, launched again and again until the cycle budget; prefetch.kind = mt-hwp unless the \
    configuration sets it) or a JSON-lines file of per-cycle inputs \
    (`{\"acc\":{\"pc\":N,\"wid\":N,\"addr\":N},\"useful\":true,\"early\":false,\"merge\":false,\
    \"request\":true,\"launch\":false}`, every field optional)";

/// The engine's statistics of a co-simulation.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PfStats {
    pub cycles: u64,
    /// Accesses taken (lookups started) and lookups finished.
    pub accesses: u64,
    pub lookups: u64,
    /// Predictions by table.
    pub gs: u64,
    pub ip: u64,
    pub pws: u64,
    pub dropped: u64,
    pub prefetches: u64,
    pub promotions: u64,
    pub launches: u64,
    pub throttle_updates: u64,
    /// Cycles spent at each throttle degree (0..=5).
    pub degree_cycles: [u64; 6],
}

impl PfStats {
    fn record(&mut self, prev: &PfOut, i: &PfIn, o: &PfOut) {
        self.cycles += 1;
        self.accesses += u64::from(i.acc.is_some() && prev.acc_ready && !i.launch);
        self.launches += u64::from(i.launch);
        if o.pf_valid {
            self.lookups += 1;
            match o.src {
                PfSource::Gs => self.gs += 1,
                PfSource::Ip => self.ip += 1,
                PfSource::Pws => self.pws += 1,
                PfSource::None => {}
            }
        }
        self.dropped += u64::from(o.drop);
        self.prefetches += u64::from(o.count);
        self.promotions += u64::from(o.promote);
        self.throttle_updates += u64::from(o.update);
        if let Some(c) = self.degree_cycles.get_mut(o.degree as usize) {
            *c += 1;
        }
    }
}

impl CosimStats for PfStats {
    const CHECKED: &'static str = golden::prefetch::stimulus::CHECKED;

    fn checked(&self) -> u64 {
        self.lookups
    }

    fn summary(&self) -> Vec<String> {
        vec![
            format!(
                "{} cycles, {} accesses, {} lookups finished, {} launches",
                self.cycles, self.accesses, self.lookups, self.launches
            ),
            format!(
                "predictions: GS {}, IP {}, PWS {}; {} dropped by the throttle; {} prefetches; {} \
                    promotions",
                self.gs, self.ip, self.pws, self.dropped, self.prefetches, self.promotions
            ),
            format!(
                "throttle: {} updates; cycles at degree 0..5: {:?}",
                self.throttle_updates, self.degree_cycles
            ),
        ]
    }
}

/// The engine's co-simulation driver.
#[derive(Clone)]
pub struct PfDriver {
    spec: Spec,
    kind: Stimulus,
    seed: u64,
    /// Open loop: each cycle's inputs (with its file line, 0 for replayed ones).
    inputs: Option<Arc<Vec<(usize, PfIn)>>>,
    /// `gpu:WORKLOAD`: SM 0's engine inside the whole GPU (the workload and its name).
    gpu: Option<(Arc<golden::gpu::run::Target>, String)>,
    stats: PfStats,
}

/// The spec with a prefetcher in the GPU: the spec itself when it has one, else a variant
/// with MT-HWP (the same RTL); `prefetch.kind = none` set explicitly is an error, and so is a
/// prefetcher the RTL is not (`stream`, `ghb`, and the two-table `pws-gs`, `pws-ip`).
fn with_prefetcher(spec: &Spec) -> Result<Spec, CosimError> {
    use spec::PrefetchKind;
    match spec.prefetch.kind {
        PrefetchKind::Stridepc | PrefetchKind::MtHwp => return Ok(spec.clone()),
        kind @ (PrefetchKind::Stream
        | PrefetchKind::Ghb
        | PrefetchKind::PwsGs
        | PrefetchKind::PwsIp) => {
            return Err(CosimError::BadInput(format!(
                "co-simulating the prefetch engine in the GPU needs the engine, but the \
                    configuration sets prefetch.kind = {kind}, a golden model with no RTL: set \
                    stridepc or mt-hwp"
            )))
        }
        PrefetchKind::None => {}
    }
    if spec.set_by_user("prefetch.kind") {
        return Err(CosimError::BadInput(
            "co-simulating the prefetch engine in the GPU needs a prefetcher, but the \
                configuration sets prefetch.kind = none: drop that setting or set stridepc or \
                mt-hwp"
                .into(),
        ));
    }
    spec.variant(&["prefetch.kind=mt-hwp"])
        .map_err(|e| CosimError::BadInput(e.to_string()))
}

impl PfDriver {
    /// The whole GPU on `t`, relaunched until SM 0's engine has stepped `limit` cycles, `probe`
    /// on every one.
    fn run_gpu(
        &self,
        t: &golden::gpu::run::Target,
        limit: u64,
        probe: &mut golden::gpu::prefetch::PfProbe<'_>,
    ) -> Result<(), CosimError> {
        use golden::gpu::run::{run_with, GpuError, PfWatch, RunOptions};
        let name = self.gpu.as_ref().map_or("gpu:", |(_, n)| n.as_str());
        let mut o = RunOptions {
            prefetch: Some(PfWatch {
                sm: 0,
                probe,
                cycles: limit,
            }),
            trace_cache: super::trace_cache(),
            ..RunOptions::default()
        };
        match run_with(&self.spec, t.workload(self.seed), &mut o) {
            Ok(_) | Err(GpuError::PrefetchHook(_)) => Ok(()),
            Err(e) => Err(super::gpu_error(name, e)),
        }
    }
}

impl Driver for PfDriver {
    type Block = PfBlock;
    type Item = PfIn;
    type Stats = PfStats;

    fn new(spec: &Spec, s: &Stim<'_>) -> Result<PfDriver, CosimError> {
        if let Some(t) = super::gpu_target(s.text) {
            return Ok(PfDriver {
                spec: with_prefetcher(spec)?,
                kind: Stimulus::File(s.text.into()),
                seed: s.seed,
                inputs: None,
                gpu: Some((t?, s.text.to_string())),
                stats: PfStats::default(),
            });
        }
        let kind = Stimulus::parse(s.text, "the MT-HWP engine", STIMULI)?;
        let inputs = match Inputs::new(spec, &kind, s.seed)? {
            Inputs::File(_, v) => Some(Arc::new(v)),
            Inputs::Random(_) => None,
        };
        Ok(PfDriver {
            spec: spec.clone(),
            kind,
            seed: s.seed,
            inputs,
            gpu: None,
            stats: PfStats::default(),
        })
    }

    fn replay(&self, items: Vec<PfIn>) -> PfDriver {
        PfDriver {
            inputs: super::replayed(items),
            gpu: None,
            ..self.clone()
        }
    }

    fn stimulus(&self) -> StimulusName {
        super::cycle_stimulus_name(&self.gpu, &self.kind, self.inputs.is_some())
    }

    fn run(&mut self, limit: u64, check: &mut Check<'_, Self>) -> Result<Ended, CosimError> {
        if let Some((t, _)) = self.gpu.clone() {
            let mut s = PfStats::default();
            let mut prev = *MtHwp::new(&self.spec.prefetch).out();
            let record = |i: &PfIn, o: &PfOut| {
                s.record(&prev, i, o);
                prev = *o;
            };
            let ended = super::in_gpu(check, record, |hook| self.run_gpu(&t, limit, hook));
            self.stats = s;
            return ended;
        }
        let mut model = MtHwp::new(&self.spec.prefetch);
        let mut gen = match &self.inputs {
            Some(_) => None,
            None => Some(Inputs::new(&self.spec, &self.kind, self.seed)?),
        };
        let mut prev = *model.out();
        let mut s = PfStats::default();
        let mut ended = Ended::Completed;
        for t in 0..limit {
            let (inp, origin) = match (&self.inputs, &mut gen) {
                (Some(v), _) => match v.get(t as usize) {
                    Some((l, i)) => (*i, format!("{}:{l}", self.kind)),
                    None => break,
                },
                (None, Some(g)) => match g.next(t, &prev) {
                    Some(x) => x,
                    None => break,
                },
                (None, None) => break,
            };
            let out = *model
                .step(&inp)
                .map_err(|e| CosimError::BadInput(format!("{origin}: {e}")))?;
            if let Err(f) = check(&inp, &out) {
                s.cycles = t + 1;
                ended = Ended::Failed(f);
                break;
            }
            s.record(&prev, &inp, &out);
            prev = out;
        }
        self.stats = s;
        Ok(ended)
    }

    fn consumed(&self) -> Vec<PfIn> {
        let n = self.stats.cycles as usize;
        if let Some((t, _)) = &self.gpu {
            return super::gpu_inputs(n, |hook| {
                let _ = self.run_gpu(t, n as u64, hook);
            });
        }
        if let Some(v) = &self.inputs {
            return v.iter().take(n).map(|(_, i)| *i).collect();
        }
        // A generator is closed loop: replay it against a golden engine.
        let mut out = Vec::with_capacity(n);
        let Ok(mut gen) = Inputs::new(&self.spec, &self.kind, self.seed) else {
            return out;
        };
        let mut model = MtHwp::new(&self.spec.prefetch);
        let mut prev = *model.out();
        for t in 0..n as u64 {
            let Some((inp, _)) = gen.next(t, &prev) else {
                break;
            };
            match model.step(&inp) {
                Ok(o) => prev = *o,
                Err(_) => break,
            }
            out.push(inp);
        }
        out
    }

    fn stats(&self) -> &PfStats {
        &self.stats
    }
}

/// Mutant condition: the generated RTL has no GS or IP table (`prefetch.kind = stridepc`).
pub fn pws_only(s: &Spec) -> Option<String> {
    s.prefetch.pws_only.then(|| {
        "equivalent on this configuration: prefetch.kind = stridepc generates the PWS table \
         alone"
            .into()
    })
}

/// Mutant condition: the generated RTL has no throttle (`prefetch.throttle = false`).
pub fn no_throttle(s: &Spec) -> Option<String> {
    (!s.prefetch.throttle).then(|| {
        "equivalent on this configuration: prefetch.throttle = false generates no throttle".into()
    })
}
