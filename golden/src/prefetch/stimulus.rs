//! Stimulus for the MT-HWP engine: a closed-loop random generator biased to what stresses it
//! (promotion races, LRU pressure in each table, many warps on one PC, inter-warp strides,
//! stride changes, strides at the edge of what fits, period boundaries under every early-eviction
//! and merge profile, launches), JSON-lines files of per-cycle inputs, and the golden run.

use super::model::{Access, MtHwp, PfIn, PfOut};
use super::output::{Line, Lookup, Throttle};
use crate::block::{mask, CycleModel};
use crate::rng::Rng;
use crate::run::{BadInput, GoldenError, GoldenRun, Stimulus};
use serde_json::json;
use spec::{PrefetchSpec, Spec};
use std::io::Write;
use std::path::Path;

/// The forms of `--stimulus` the engine takes.
pub const FORMS: &str = "`random` (a closed loop biased to what stresses the engine: promotion \
    races, LRU pressure, many warps on one PC, inter-warp strides, stride changes, every throttle \
    profile) or a JSON-lines file of per-cycle inputs \
    (`{\"acc\":{\"pc\":N,\"wid\":N,\"addr\":N},\"useful\":true,\"early\":false,\"merge\":false,\
    \"request\":true,\"launch\":false}`, every field optional)";

/// How the accesses of one PC move.
#[derive(Debug, Clone, Copy)]
enum Pattern {
    /// Every warp walks the same stride from its own base (promotion).
    Uniform,
    /// Each warp has its own stride (stays in the PWS table).
    PerWarp,
    /// Warps in turn, each once per round, `stride` apart (inter-thread: the IP table).
    InterWarp,
    /// Anything.
    Random,
}

#[derive(Debug, Clone)]
struct PcPlan {
    pc: u64,
    pattern: Pattern,
    base: u64,
    stride: i64,
    /// Per warp: accesses made.
    iter: Vec<u64>,
    /// InterWarp: the next warp, and each warp's stride from one round to the next.
    next: u32,
    round_stride: i64,
}

/// The closed-loop random generator: each cycle's input from the engine's previous outputs.
pub struct Traffic {
    rng: Rng,
    addr_mask: u64,
    pc_mask: u64,
    stride_bits: u32,
    wid_limit: u32,
    gs_entries: u32,
    pws_entries: u32,
    period: u32,
    plans: Vec<PcPlan>,
    warps: u32,
    p_acc: u64,
    phase_left: u32,
    /// Event probabilities (per mille): useful, early, merge, request.
    events: [u64; 4],
    events_left: u32,
    /// The access being offered until taken.
    offered: Option<Access>,
    /// Event profiles of the opening periods chosen so far.
    opening: usize,
}

impl Traffic {
    pub fn new(spec: &PrefetchSpec, warps_per_sm: u32, seed: u64) -> Traffic {
        Traffic {
            rng: Rng::new(seed),
            addr_mask: mask(spec.addr_bits),
            pc_mask: mask(spec.pc_bits),
            stride_bits: spec.stride_bits,
            wid_limit: warps_per_sm.min(1 << spec.wid_bits.min(16)).max(1),
            gs_entries: spec.gs_entries,
            pws_entries: spec.pws_entries,
            period: spec.period,
            plans: Vec::new(),
            warps: 1,
            p_acc: 500,
            phase_left: 0,
            events: [0; 4],
            events_left: 0,
            offered: None,
            opening: 0,
        }
    }

    /// A stride: mostly small line multiples, now and then at the edge of what fits, zero, or
    /// beyond.
    fn stride(&mut self) -> i64 {
        let r = &mut self.rng;
        let half = 1i64 << (self.stride_bits - 1);
        match r.below(20) {
            0 => half - 1,
            1 => -half,
            2 => half,
            3 => 0,
            4 => r.below(1 << 12) as i64 - (1 << 11),
            _ => (1 + r.below(8) as i64) * if r.chance(200) { -128 } else { 128 },
        }
    }

    fn new_phase(&mut self) {
        self.phase_left = 50 + self.rng.below(3000) as u32;
        // Enough PCs to press each table's LRU now and then.
        let max_pcs = match self.rng.below(4) {
            0 => 1,
            1 => 3,
            2 => self.gs_entries + 2,
            _ => (self.pws_entries / 2).max(2),
        };
        let npcs = 1 + self.rng.below(u64::from(max_pcs)) as u32;
        self.warps = 1 + self.rng.below(u64::from(self.wid_limit.min(48))) as u32;
        self.p_acc = [1000, 700, 300, 80][self.rng.below(4) as usize];
        let keep = self.rng.chance(500);
        if !keep {
            self.plans.clear();
        }
        while self.plans.len() < npcs as usize {
            let pattern = match self.rng.below(8) {
                0..=3 => Pattern::Uniform,
                4 => Pattern::PerWarp,
                5 | 6 => Pattern::InterWarp,
                _ => Pattern::Random,
            };
            let stride = self.stride();
            let round_stride = self.stride();
            let base = if self.rng.chance(100) {
                self.addr_mask - self.rng.below(4096)
            } else {
                self.rng.next_u64() & self.addr_mask & !0x7f
            };
            self.plans.push(PcPlan {
                pc: self.rng.next_u64() & self.pc_mask & !3,
                pattern,
                base,
                stride,
                iter: vec![0; self.wid_limit as usize],
                next: 0,
                round_stride,
            });
        }
        self.plans.truncate(npcs as usize);
        // A stride change on one PC.
        if self.rng.chance(300) {
            let i = self.rng.below(self.plans.len() as u64) as usize;
            let s = self.stride();
            self.plans[i].stride = s;
        }
    }

    fn new_events(&mut self, degree: u32) {
        // Whole periods (the generator starts with the engine's first period), so that each
        // period's rates are the profile's.
        self.events_left = self.period.saturating_mul(1 + self.rng.below(2) as u32);
        // The first three periods visit three rows of Table I in turn, so that a run of a few
        // long periods updates the throttle under each: a medium early-eviction rate with many
        // merges (the degree rises; the merge ratio is averaged), a low rate without merges
        // (the average falls below 15 %: prefetching stops), a low rate with many merges (the
        // degree falls).
        const OPENING: [[u64; 4]; 3] = [[500, 7, 400, 800], [500, 0, 0, 800], [500, 0, 400, 800]];
        if let Some(&e) = OPENING.get(self.opening) {
            self.opening += 1;
            self.events_left = self.period;
            self.events = e;
            return;
        }
        // Most of the time, steer the throttle so that every degree and every row of Table I
        // is visited within a few periods: a low early-eviction rate with many merges lowers
        // the degree, a medium rate raises it, and a low rate without merges (for three periods, as
        // the merge ratio averages over periods) stops prefetching.
        if self.rng.chance(800) {
            self.events = match self.rng.below(3) {
                0 => [500, 0, 400, 800],
                1 => [500, 7, 400, 800],
                _ => {
                    if degree < 5 {
                        self.events_left = self.period.saturating_mul(3);
                    }
                    [500, 0, 0, 800]
                }
            };
            return;
        }
        let useful = [0, 200, 500][self.rng.below(3) as usize];
        // Early evictions per useful prefetch: none, low (< 1%), medium (1-2%), high (> 2%).
        let early = match self.rng.below(4) {
            0 => 0,
            1 => useful / 200,
            2 => useful * 3 / 200,
            _ => useful / 10 + 1,
        };
        let request = [0, 300, 800][self.rng.below(3) as usize];
        let merge = [0, request / 20, request / 2][self.rng.below(3) as usize];
        self.events = [useful, early, merge, request];
    }

    fn access(&mut self) -> Access {
        let i = self.rng.below(self.plans.len() as u64) as usize;
        let warps = self.warps;
        let (addr_mask, wid_limit) = (self.addr_mask, self.wid_limit);
        let r = &mut self.rng;
        let p = &mut self.plans[i];
        let (wid, addr) = match p.pattern {
            Pattern::InterWarp => {
                // Warps in turn, now and then one out of turn (which sends it to the PWS table,
                // where each warp's own rounds train and get promoted: GS and IP then both hit).
                let w = if r.chance(250) {
                    r.below(u64::from(warps)) as u32
                } else {
                    let w = p.next;
                    p.next = (p.next + 1) % warps;
                    w
                };
                let n = p.iter[w as usize];
                p.iter[w as usize] += 1;
                let a = p.base as i128
                    + i128::from(p.stride) * i128::from(w)
                    + i128::from(p.round_stride) * i128::from(n as u32);
                (w, a as u64)
            }
            pat => {
                let w = r.below(u64::from(warps)) as u32;
                let n = p.iter[w as usize];
                p.iter[w as usize] += 1;
                let stride = match pat {
                    Pattern::PerWarp => p.stride * i64::from(1 + w % 3),
                    _ => p.stride,
                };
                let a = match pat {
                    Pattern::Random => r.next_u64(),
                    _ => {
                        (p.base as i128
                            + i128::from(w) * 0x1_0040
                            + i128::from(stride) * i128::from(n as u32))
                            as u64
                    }
                };
                (w, a)
            }
        };
        Access {
            pc: p.pc,
            wid: wid.min(wid_limit - 1),
            addr: addr & addr_mask,
        }
    }

    /// The input of the next cycle, given the outputs after the last edge.
    pub fn next(&mut self, prev: &PfOut) -> PfIn {
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;
        if self.events_left == 0 {
            self.new_events(prev.degree);
        }
        self.events_left -= 1;
        let [u, e, m, q] = self.events;
        let mut inp = PfIn {
            launch: false,
            acc: None,
            useful: self.rng.chance(u),
            early: self.rng.chance(e),
            merge: self.rng.chance(m),
            request: self.rng.chance(q),
        };
        if self.rng.below(10_000) == 0 {
            inp.launch = true;
            return inp;
        }
        if self.offered.is_none() && self.rng.chance(self.p_acc) {
            self.offered = Some(self.access());
        }
        inp.acc = self.offered;
        if prev.acc_ready {
            self.offered = None;
        }
        inp
    }
}

/// Read a JSON-lines input file: each cycle's inputs with its line.
pub fn read_file(path: &Path) -> Result<Vec<(usize, PfIn)>, BadInput> {
    crate::run::read_cycle_inputs(
        path,
        "an MT-HWP input line",
        "{\"acc\":{\"pc\":N,\"wid\":N,\"addr\":N},\"useful\":BOOL,\"early\":BOOL,\"merge\":BOOL,\
         \"request\":BOOL,\"launch\":BOOL}",
    )
}

/// The stimulus of a run: a generator or a file's inputs.
pub enum Inputs {
    Random(Box<Traffic>),
    File(std::path::PathBuf, Vec<(usize, PfIn)>),
}

impl Inputs {
    pub fn new(spec: &Spec, stim: &Stimulus, seed: u64) -> Result<Inputs, BadInput> {
        match stim {
            Stimulus::Random => Ok(Inputs::Random(Box::new(Traffic::new(
                &spec.prefetch,
                spec.gpu.warps_per_sm,
                seed,
            )))),
            Stimulus::File(p) => Ok(Inputs::File(p.clone(), read_file(p)?)),
            Stimulus::Kernel(k) => Err(BadInput(format!(
                "the MT-HWP engine takes no kernel stimulus (`kernel:{k}`): give {FORMS}, or \
                    `gpu:{k}` to co-simulate it inside the GPU"
            ))),
        }
    }

    pub fn is_finite(&self) -> bool {
        matches!(self, Inputs::File(..))
    }

    /// The input of cycle `t` (0-based) and where it came from; `None` at the end of a file.
    pub fn next(&mut self, t: u64, prev: &PfOut) -> Option<(PfIn, String)> {
        match self {
            Inputs::Random(g) => Some((g.next(prev), format!("random, cycle {}", t + 1))),
            Inputs::File(p, v) => v
                .get(t as usize)
                .map(|(l, i)| (*i, format!("{}:{l}", p.display()))),
        }
    }
}

/// `golden --block mt-hwp`: JSON lines: the provenance, then one line per finished lookup and
/// per throttle update, with its cycle ([`Line`]).
pub fn run_golden(spec: &Spec, r: &GoldenRun, out: &mut dyn Write) -> Result<(), GoldenError> {
    let stimulus = r.stimulus.unwrap_or("random");
    let mut inputs = Inputs::new(
        spec,
        &Stimulus::parse(stimulus, "the MT-HWP engine", FORMS)?,
        r.seed,
    )?;
    let limit = if inputs.is_finite() {
        u64::MAX
    } else {
        r.cycles
    };
    let mut model = MtHwp::new(&spec.prefetch);
    let mut prev = *model.out();
    let mut t = 0u64;
    let mut lookups = 0u64;
    let provenance = r.origin.provenance(super::output::SCHEMA, spec);
    writeln!(out, "{}", json!(Line::Provenance(provenance)))?;
    while t < limit {
        let Some((inp, origin)) = inputs.next(t, &prev) else {
            break;
        };
        let o = *model
            .step(&inp)
            .map_err(|e| BadInput(format!("{origin}: {e}")))?;
        t += 1;
        if o.pf_valid {
            lookups += 1;
            writeln!(out, "{}", json!(Line::Lookup(Lookup::of(&o, t))))?;
        }
        if o.update {
            let update = Throttle::of(&o, t, &spec.prefetch);
            writeln!(out, "{}", json!(Line::Throttle(update)))?;
        }
        if let Some(p) = r.progress {
            if t & 0xffff == 0 {
                p(t, limit);
            }
        }
        prev = o;
    }
    if lookups == 0 {
        return Err(BadInput(format!(
            "{}; give more cycles or another stimulus",
            crate::run::nothing_checked(CHECKED, t)
        ))
        .into());
    }
    Ok(())
}

/// What an MT-HWP run checks, as [`crate::run::nothing_checked`] names it: a lookup that
/// finished (its answer is what the engine is for).
pub const CHECKED: &str = "finished lookup";
