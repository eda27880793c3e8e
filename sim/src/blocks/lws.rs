//! The locality-aware warp scheduler's unit (seed 002) in the registry: its co-simulation
//! driver (random traffic that stresses the unit, the unit of SM 0's first warp scheduler in
//! place in the whole GPU running a kernel under `gpu.scheduler = locality`, or per-cycle
//! inputs from a file), statistics and mutants.
//!
//! The file format, one cycle's inputs per line (every field optional; blank lines and `#`
//! comments skipped):
//! `{"set":{"slot":N,"first":true,"vector":[{"region":N,"subregions":N},null,...]},
//! "ready":N,"long":N}` (one line; `vector` has one element per data array, `null` where the
//! warp reads none; `ready` and `long` are bit masks over the warp slots).

use crate::harness::{Check, CosimStats, Driver, Ended, Stim, StimulusName};
use crate::CosimError;
use golden::block::{mask, CycleModel};
use golden::dispatch::WarpRange;
use golden::lws::{LwsBlock, LwsIn, LwsOut, LwsUnit, SetWarp};
use golden::rng::Rng;
use golden::run::Stimulus;
use serde::Serialize;
use spec::Spec;
use std::path::Path;
use std::sync::Arc;

/// The forms of `--stimulus` the unit's co-simulation takes.
pub const STIMULI: &str = "`random` (traffic that stresses the unit: vectors sharing regions, \
    blocks placed in bursts until warps starve, demotion storms, readiness droughts), \
    `gpu:KERNEL` (the unit of SM 0's first warp scheduler inside the whole GPU running the \
    kernel under gpu.scheduler = locality, launched again and again until the cycle budget) or a \
    JSON-lines file of per-cycle inputs";

/// Random traffic: each cycle's inputs, in phases.
struct Traffic {
    rng: Rng,
    warps: u32,
    arrays: usize,
    region_max: u64,
    sub_bits: u32,
    /// 0 steady, 1 placement burst (new blocks nearly every cycle, into the upper half of the
    /// slots: the lower half starves), 2 demotion storm
    /// (most warps wait long), 3 drought (few ready), 4 calm (nothing waits long).
    phase: u32,
    phase_left: u32,
}

impl Traffic {
    fn new(spec: &Spec, seed: u64) -> Traffic {
        let l = &spec.lws;
        Traffic {
            rng: Rng::new(seed),
            warps: l.warps,
            arrays: l.arrays as usize,
            region_max: mask(l.region_bits),
            sub_bits: l.subregion_bits,
            phase: 0,
            phase_left: 0,
        }
    }

    /// A mask with each warp slot's bit set with probability `per_mille`.
    fn bits(&mut self, per_mille: u64) -> u128 {
        let mut m = 0;
        for i in 0..self.warps {
            if self.rng.chance(per_mille) {
                m |= 1 << i;
            }
        }
        m
    }

    fn next(&mut self) -> LwsIn {
        if self.phase_left == 0 {
            self.phase = self.rng.below(5) as u32;
            // A burst lasts long enough for the warps it leaves alone to starve, and for their
            // ages to reach the top of their width.
            self.phase_left = match self.phase {
                1 => 50 + self.rng.below(300),
                _ => 10 + self.rng.below(150),
            } as u32;
        }
        self.phase_left -= 1;
        let (p_set, p_first, p_ready, p_long) = match self.phase {
            1 => (900, 700, 500, 200),
            2 => (200, 100, 500, 850),
            3 => (200, 100, 80, 250),
            4 => (200, 100, 700, 0),
            _ => (300, 250, 500, 250),
        };
        let set = self.rng.chance(p_set).then(|| {
            // Few regions, so that vectors share them often; now and then the widest index.
            let region_span = if self.rng.chance(100) {
                self.region_max
            } else {
                3.min(self.region_max)
            };
            let vector = (0..self.arrays)
                .map(|_| {
                    (!self.rng.chance(150)).then(|| WarpRange {
                        region: self.rng.below(region_span + 1),
                        subregions: self.rng.bits(self.sub_bits),
                    })
                })
                .collect();
            // A burst places blocks into the upper half of the slots only: the lower half ages.
            let low = if self.phase == 1 { self.warps / 2 } else { 0 };
            SetWarp {
                slot: (u64::from(low) + self.rng.below(u64::from(self.warps - low))) as u32,
                first: self.rng.chance(p_first),
                vector,
            }
        });
        let ready = self.bits(p_ready);
        let long = self.bits(p_long);
        LwsIn { set, ready, long }
    }
}

/// Read a JSON-lines input file: each cycle's inputs with its line.
pub fn read_file(path: &Path) -> Result<Vec<(usize, LwsIn)>, CosimError> {
    Ok(golden::run::read_cycle_inputs(
        path,
        "a locality-unit input line",
        "{\"set\":{\"slot\":N,\"first\":BOOL,\"vector\":[...]},\"ready\":N,\"long\":N}",
    )?)
}

/// The unit's statistics of a co-simulation.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LwsStats {
    pub cycles: u64,
    /// Vectors written, warps issued, and warps that joined the active group.
    pub writes: u64,
    pub issued: u64,
    pub promoted: u64,
}

impl LwsStats {
    fn record(&mut self, i: &LwsIn, o: &LwsOut, before: u128) {
        self.cycles += 1;
        self.writes += u64::from(i.set.is_some());
        self.issued += u64::from(o.issue.is_some());
        self.promoted += u64::from(o.active & !before != 0);
    }
}

impl CosimStats for LwsStats {
    const CHECKED: &'static str = "warp issued";

    fn checked(&self) -> u64 {
        self.issued
    }

    fn summary(&self) -> Vec<String> {
        vec![format!(
            "{} cycles, {} vectors written, {} warps issued, {} promoted",
            self.cycles, self.writes, self.issued, self.promoted
        )]
    }
}

/// The spec with the locality-aware scheduler (the unit runs in the GPU only under it): the
/// spec itself when it has it, else a variant; a scheduler the user chose is an error.
fn locality(spec: &Spec) -> Result<Spec, CosimError> {
    super::needing(
        spec,
        "gpu.scheduler",
        "locality",
        spec.gpu.scheduler.name(),
        "the locality unit",
    )
}

/// The unit's co-simulation driver.
#[derive(Clone)]
pub struct LwsDriver {
    spec: Spec,
    kind: Stimulus,
    /// `gpu:KERNEL`: the unit inside the whole GPU (its name).
    gpu: Option<(Arc<golden::gpu::run::Target>, String)>,
    seed: u64,
    /// Open loop: each cycle's inputs (with its file line, 0 for replayed ones).
    inputs: Option<Arc<Vec<(usize, LwsIn)>>>,
    stats: LwsStats,
}

impl LwsDriver {
    /// The whole GPU on `t` under the locality scheduler, relaunched until SM 0's first unit
    /// has stepped `limit` cycles, `hook` on every one.
    fn run_gpu(
        &self,
        t: &golden::gpu::run::Target,
        limit: u64,
        hook: &mut golden::gpu::run::LwsHook<'_>,
    ) -> Result<(), CosimError> {
        use golden::gpu::run::{run_with, GpuError, LwsWatch, RunOptions};
        let name = self.gpu.as_ref().map_or("gpu:", |(_, n)| n.as_str());
        let mut o = RunOptions {
            lws: Some(LwsWatch {
                sm: 0,
                scheduler: 0,
                hook,
                cycles: limit,
            }),
            trace_cache: super::trace_cache(),
            ..RunOptions::default()
        };
        match run_with(&self.spec, t.workload(self.seed), &mut o) {
            Ok(_) | Err(GpuError::LwsHook(_)) => Ok(()),
            Err(e) => Err(super::gpu_error(name, e)),
        }
    }
}

impl Driver for LwsDriver {
    type Block = LwsBlock;
    type Item = LwsIn;
    type Stats = LwsStats;

    fn new(spec: &Spec, s: &Stim<'_>) -> Result<LwsDriver, CosimError> {
        if let Some(t) = super::gpu_target(s.text) {
            let t = t?;
            if !matches!(*t, golden::gpu::run::Target::Kernel(_)) {
                return Err(CosimError::BadInput(format!(
                    "{}: the locality unit reads each warp's access range from its kernel's \
                        description, which a trace or a workload of the library does not carry; \
                        give a kernel (gpu:stencil2d, gpu:matmul3d, ...)",
                    s.text
                )));
            }
            return Ok(LwsDriver {
                spec: locality(spec)?,
                kind: Stimulus::File(s.text.into()),
                gpu: Some((t, s.text.to_string())),
                seed: s.seed,
                inputs: None,
                stats: LwsStats::default(),
            });
        }
        let kind = Stimulus::parse(s.text, "the locality unit", STIMULI)?;
        let inputs = match &kind {
            Stimulus::File(p) => Some(Arc::new(read_file(p)?)),
            Stimulus::Random => None,
            other => {
                return Err(CosimError::BadInput(format!(
                    "{other}: the locality unit takes {STIMULI}"
                )))
            }
        };
        Ok(LwsDriver {
            spec: spec.clone(),
            kind,
            gpu: None,
            seed: s.seed,
            inputs,
            stats: LwsStats::default(),
        })
    }

    fn replay(&self, items: Vec<LwsIn>) -> LwsDriver {
        LwsDriver {
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
            let mut s = LwsStats::default();
            let mut before = 0;
            let record = |i: &LwsIn, o: &LwsOut| {
                s.record(i, o, before);
                before = o.active;
            };
            let ended = super::in_gpu(check, record, |hook| self.run_gpu(&t, limit, hook));
            self.stats = s;
            return ended;
        }
        let mut unit = LwsUnit::new(&self.spec.lws);
        let mut traffic = match &self.inputs {
            Some(_) => None,
            None => Some(Traffic::new(&self.spec, self.seed)),
        };
        let mut s = LwsStats::default();
        let mut ended = Ended::Completed;
        for t in 0..limit {
            let (line, inp) = match (&self.inputs, &mut traffic) {
                (Some(v), _) => match v.get(t as usize) {
                    Some((l, i)) => (*l, i.clone()),
                    None => break,
                },
                (None, Some(g)) => (0, g.next()),
                (None, None) => break,
            };
            let before = unit.active();
            let out = *unit
                .step(&inp)
                .map_err(|e| super::refused(&self.kind, line, t, e))?;
            s.record(&inp, &out, before);
            if let Err(f) = check(&inp, &out) {
                ended = Ended::Failed(f);
                break;
            }
        }
        self.stats = s;
        Ok(ended)
    }

    fn consumed(&self) -> Vec<LwsIn> {
        let n = self.stats.cycles as usize;
        if let Some((t, _)) = &self.gpu {
            return super::gpu_inputs(n, |hook| {
                let _ = self.run_gpu(t, n as u64, hook);
            });
        }
        if let Some(v) = &self.inputs {
            return v.iter().take(n).map(|(_, i)| i.clone()).collect();
        }
        // Random traffic is open loop: generated again.
        let mut traffic = Traffic::new(&self.spec, self.seed);
        (0..n).map(|_| traffic.next()).collect()
    }

    fn stats(&self) -> &LwsStats {
        &self.stats
    }
}
