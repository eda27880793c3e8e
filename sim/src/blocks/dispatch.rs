//! The locality-aware dispatcher's decision unit (seed 002) in the registry: its co-simulation
//! driver, closed loop (each cycle's inputs from the unit's previous outputs: random traffic
//! with enqueue bursts, droughts, completion bursts and stalled SMs, or a kernel's blocks with
//! the completion model, exactly as the dispatch simulation's `locality` policy drives it) or
//! open loop from a file; statistics; mutants.
//!
//! The file format, one cycle's inputs per line (every field optional; blank lines and `#`
//! comments skipped):
//! `{"enq":{"id":N,"rects":[{"x":N,"y":N,"w":N,"h":N},null,...]},"done":[SM,SLOT],
//! "disp_ready":true}` (one line)
//! (`rects` has one element per data array, `null` where the block does not read it).

use crate::harness::{Check, CosimStats, Driver, Ended, Stim, StimulusName};
use crate::CosimError;
use golden::block::{mask, CycleModel};
use golden::dispatch::{
    access_ranges, BlockTimes, DispatchUnit, Entry, Rect, UnitBlock, UnitIn, UnitOut,
};
use golden::rng::Rng;
use golden::run::Stimulus;
use serde::Serialize;
use spec::Spec;
use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;

/// The forms of `--stimulus` the dispatcher's co-simulation takes.
pub const STIMULI: &str = "`random` (traffic that stresses the unit), `kernel:NAME` (a built-in \
    or dispatch kernel such as `colmajor`, or a kernel TOML file), `gpu:KERNEL` (the unit inside \
    the whole GPU dispatching the kernel's blocks under dispatch.policy = locality, launched \
    again and again until the cycle budget) or a JSON-lines file of per-cycle inputs";

/// Produces the unit's input for each cycle from its previous outputs.
struct Traffic {
    rng: Rng,
    kind: Kind,
    /// Running blocks the driver knows of: (end cycle, SM, slot) for kernels; (SM, slot) for
    /// random traffic.
    running: Vec<(u64, u32, u32)>,
    done: VecDeque<(u32, u32)>,
    next_id: u64,
    phase: u32,
    phase_left: u32,
}

enum Kind {
    Random {
        arrays: usize,
        coord_max: u64,
        id_mask: u64,
    },
    Kernel {
        entries: Vec<Entry>,
        times: BlockTimes,
        id_mask: u64,
    },
}

impl Traffic {
    fn new(spec: &Spec, stim: &Stimulus, seed: u64) -> Result<Traffic, CosimError> {
        let d = &spec.dispatch;
        let kind = match stim {
            Stimulus::File(_) => {
                return Err(CosimError::BadInput(
                    "a dispatcher input file is replayed as it is, not generated".into(),
                ))
            }
            Stimulus::Random => Kind::Random {
                arrays: d.arrays as usize,
                coord_max: mask(d.coord_bits),
                id_mask: mask(d.id_bits),
            },
            Stimulus::Kernel(name) => {
                let k = golden::dispatch::kernel(name)
                    .map_err(|e| CosimError::BadInput(e.to_string()))?;
                let rects = access_ranges(&k, spec.gpu.line_bytes)
                    .map_err(|e| CosimError::BadInput(e.to_string()))?;
                let entries = rects
                    .iter()
                    .enumerate()
                    .map(|(b, r)| {
                        golden::dispatch::unit_rects(d, b as u64, r)
                            .map(|rects| Entry { id: 0, rects })
                            .map_err(|m| CosimError::BadInput(format!("kernel `{}`: {m}", k.name)))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                Kind::Kernel {
                    entries,
                    times: BlockTimes::Model {
                        base: d.block_cycles.into(),
                        seed,
                    },
                    id_mask: mask(d.id_bits),
                }
            }
        };
        Ok(Traffic {
            rng: Rng::new(seed),
            kind,
            running: Vec::new(),
            done: VecDeque::new(),
            next_id: 0,
            phase: 0,
            phase_left: 0,
        })
    }

    /// The input of cycle `t`, given the outputs after the previous edge.
    fn next(&mut self, t: u64, prev: &UnitOut) -> UnitIn {
        match &self.kind {
            Kind::Kernel {
                entries,
                times,
                id_mask,
            } => {
                // The offered block is committed at this edge (the SM is always ready).
                if let Some((id, sm, slot)) = prev.disp {
                    self.running.push((t + times.of(id.into()), sm, slot));
                }
                self.running.sort_unstable();
                while self.running.first().is_some_and(|r| r.0 <= t) {
                    let (_, sm, slot) = self.running.remove(0);
                    self.done.push_back((sm, slot));
                }
                let enq = prev.enq_ready.then(|| {
                    // The grid is relaunched when it runs out; ids count on, wrapping at the id
                    // width.
                    let b = self.next_id % entries.len() as u64;
                    let mut e = entries[b as usize].clone();
                    e.id = (self.next_id & id_mask) as u32;
                    self.next_id += 1;
                    e
                });
                UnitIn {
                    enq,
                    done: self.done.pop_front(),
                    disp_ready: true,
                }
            }
            Kind::Random {
                arrays,
                coord_max,
                id_mask,
            } => {
                let (arrays, coord_max, id_mask) = (*arrays, *coord_max, *id_mask);
                if self.phase_left == 0 {
                    // 0 steady, 1 enqueue burst, 2 drought, 3 completion burst, 4 stalled SMs.
                    self.phase = self.rng.below(5) as u32;
                    self.phase_left = 20 + self.rng.below(200) as u32;
                }
                self.phase_left -= 1;
                let ready = match self.phase {
                    4 => self.rng.chance(100),
                    _ => self.rng.chance(850),
                };
                if let (Some((_, sm, slot)), true) = (prev.disp, ready) {
                    self.running.push((0, sm, slot));
                }
                let p_done = match self.phase {
                    3 => 900,
                    2 => 300,
                    _ => 150,
                };
                // A block finishes only after the edge that dispatched it: pick among those
                // known before this cycle's commit.
                let known = self.running.len() - usize::from(prev.disp.is_some() && ready);
                let done = (known > 0 && self.rng.chance(p_done)).then(|| {
                    let i = self.rng.below(known as u64) as usize;
                    let (_, sm, slot) = self.running.swap_remove(i);
                    (sm, slot)
                });
                let p_enq = match self.phase {
                    1 => 1000,
                    2 => 30,
                    _ => 500,
                };
                let enq = (prev.enq_ready && self.rng.chance(p_enq)).then(|| {
                    // A small window so that rectangles overlap often; now and then the edge
                    // of the coordinate range.
                    let span = if self.rng.chance(50) {
                        coord_max
                    } else {
                        24.min(coord_max)
                    };
                    let rects = (0..arrays)
                        .map(|_| {
                            (!self.rng.chance(150)).then(|| {
                                let x = self.rng.below(span + 1);
                                let y = self.rng.below(span + 1);
                                Rect {
                                    x,
                                    y,
                                    w: 1 + self.rng.below(8.min(coord_max)),
                                    h: 1 + self.rng.below(8.min(coord_max)),
                                }
                            })
                        })
                        .collect();
                    let id = (self.next_id & id_mask) as u32;
                    self.next_id += 1;
                    Entry { id, rects }
                });
                UnitIn {
                    enq,
                    done,
                    disp_ready: ready,
                }
            }
        }
    }
}

/// Read a JSON-lines input file: each cycle's inputs with its line.
pub fn read_file(path: &Path) -> Result<Vec<(usize, UnitIn)>, CosimError> {
    Ok(golden::run::read_cycle_inputs(
        path,
        "a dispatcher input line",
        "{\"enq\":{\"id\":N,\"rects\":[...]},\"done\":[SM,SLOT],\"disp_ready\":BOOL}",
    )?)
}

/// The decision unit's statistics of a co-simulation.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DispStats {
    pub cycles: u64,
    /// Blocks enqueued and dispatch decisions committed.
    pub enqueued: u64,
    pub dispatched: u64,
}

impl CosimStats for DispStats {
    const CHECKED: &'static str = "dispatch decision committed";

    fn checked(&self) -> u64 {
        self.dispatched
    }

    fn summary(&self) -> Vec<String> {
        vec![format!(
            "{} cycles, {} blocks enqueued, {} dispatched",
            self.cycles, self.enqueued, self.dispatched
        )]
    }
}

/// The spec with the locality-aware policy (the unit dispatches only under it): the spec
/// itself when it has it, else a variant; a policy the user chose explicitly is an error.
fn locality(spec: &Spec) -> Result<Spec, CosimError> {
    super::needing(
        spec,
        "dispatch.policy",
        "locality",
        spec.dispatch.policy.name(),
        "the decision unit",
    )
}

impl DispDriver {
    /// The whole GPU on `t` under the locality policy, relaunched until its unit has stepped
    /// `limit` cycles, `hook` on every one.
    fn run_gpu(
        &self,
        t: &golden::gpu::run::Target,
        limit: u64,
        hook: &mut golden::dispatch::UnitHook<'_>,
    ) -> Result<(), CosimError> {
        use golden::gpu::run::{run_with, GpuError, RunOptions, UnitWatch};
        let name = self.gpu.as_ref().map_or("gpu:", |(_, n)| n.as_str());
        let mut o = RunOptions {
            unit: Some(UnitWatch {
                hook,
                cycles: limit,
            }),
            trace_cache: super::trace_cache(),
            ..RunOptions::default()
        };
        match run_with(&self.spec, t.workload(self.seed), &mut o) {
            Ok(_) | Err(GpuError::Dispatch(golden::dispatch::DispatchError::Hook(_))) => Ok(()),
            Err(e) => Err(super::gpu_error(name, e)),
        }
    }
}

/// The decision unit's co-simulation driver.
#[derive(Clone)]
pub struct DispDriver {
    spec: Spec,
    kind: Stimulus,
    /// `gpu:WORKLOAD`: the unit inside the whole GPU dispatching a kernel's blocks (its name).
    gpu: Option<(Arc<golden::gpu::run::Target>, String)>,
    seed: u64,
    /// Open loop: each cycle's inputs (with its file line, 0 for replayed ones).
    inputs: Option<Arc<Vec<(usize, UnitIn)>>>,
    stats: DispStats,
}

impl Driver for DispDriver {
    type Block = UnitBlock;
    type Item = UnitIn;
    type Stats = DispStats;

    fn new(spec: &Spec, s: &Stim<'_>) -> Result<DispDriver, CosimError> {
        if let Some(t) = super::gpu_target(s.text) {
            let t = t?;
            if !matches!(*t, golden::gpu::run::Target::Kernel(_)) {
                return Err(CosimError::BadInput(format!(
                    "{}: the locality unit dispatches a kernel's blocks by their access ranges, \
                        which a trace or a workload of the library does not carry; give a kernel \
                        (gpu:colmajor, gpu:stencil2d, ...)",
                    s.text
                )));
            }
            return Ok(DispDriver {
                spec: locality(spec)?,
                kind: Stimulus::File(s.text.into()),
                gpu: Some((t, s.text.to_string())),
                seed: s.seed,
                inputs: None,
                stats: DispStats::default(),
            });
        }
        let (kind, seed) = (Stimulus::parse(s.text, "the dispatcher", STIMULI)?, s.seed);
        let inputs = match &kind {
            Stimulus::File(p) => Some(Arc::new(read_file(p)?)),
            // Check a generator's stimulus (the kernel) now.
            k => {
                Traffic::new(spec, k, seed)?;
                None
            }
        };
        Ok(DispDriver {
            spec: spec.clone(),
            kind,
            gpu: None,
            seed,
            inputs,
            stats: DispStats::default(),
        })
    }

    fn replay(&self, items: Vec<UnitIn>) -> DispDriver {
        DispDriver {
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
            let mut s = DispStats::default();
            let mut prev: Option<(u32, u32, u32)> = None;
            let record = |i: &UnitIn, o: &UnitOut| {
                s.cycles += 1;
                s.enqueued += u64::from(i.enq.is_some());
                s.dispatched += u64::from(prev.is_some() && i.disp_ready);
                prev = o.disp;
            };
            let ended = super::in_gpu(check, record, |hook| self.run_gpu(&t, limit, hook));
            self.stats = s;
            return ended;
        }
        let mut unit = DispatchUnit::new(&self.spec.dispatch);
        let mut traffic = match &self.inputs {
            Some(_) => None,
            None => Some(Traffic::new(&self.spec, &self.kind, self.seed)?),
        };
        let mut prev = UnitOut {
            enq_ready: true,
            disp: None,
        };
        let mut s = DispStats::default();
        let mut ended = Ended::Completed;
        for t in 0..limit {
            let (line, inp) = match (&self.inputs, &mut traffic) {
                (Some(v), _) => match v.get(t as usize) {
                    Some((l, i)) => (*l, i.clone()),
                    None => break,
                },
                (None, Some(g)) => (0, g.next(t, &prev)),
                (None, None) => break,
            };
            s.enqueued += u64::from(inp.enq.is_some());
            s.dispatched += u64::from(prev.disp.is_some() && inp.disp_ready);
            let out = *unit
                .step(&inp)
                .map_err(|e| super::refused(&self.kind, line, t, e))?;
            s.cycles = t + 1;
            if let Err(f) = check(&inp, &out) {
                ended = Ended::Failed(f);
                break;
            }
            prev = out;
        }
        self.stats = s;
        Ok(ended)
    }

    fn consumed(&self) -> Vec<UnitIn> {
        let n = self.stats.cycles as usize;
        if let Some((t, _)) = &self.gpu {
            return super::gpu_inputs(n, |hook| {
                let _ = self.run_gpu(t, n as u64, hook);
            });
        }
        if let Some(v) = &self.inputs {
            return v.iter().take(n).map(|(_, i)| i.clone()).collect();
        }
        // A generator is closed loop: replay it against a golden unit.
        let mut out = Vec::with_capacity(n);
        let Ok(mut traffic) = Traffic::new(&self.spec, &self.kind, self.seed) else {
            return out;
        };
        let mut unit = DispatchUnit::new(&self.spec.dispatch);
        let mut prev = UnitOut {
            enq_ready: true,
            disp: None,
        };
        for t in 0..n as u64 {
            let inp = traffic.next(t, &prev);
            match unit.step(&inp) {
                Ok(o) => prev = *o,
                Err(_) => break,
            }
            out.push(inp);
        }
        out
    }

    fn stats(&self) -> &DispStats {
        &self.stats
    }
}
