//! Co-simulation of the Warped-MC tables: the golden memory system runs a stimulus with the
//! Warped-MC scheduler; every cycle, the table events and queries of one WET group (its
//! enqueues, services, activations, candidate window and bank readiness) go to both the golden
//! block inside the system and the generated RTL, and every output is compared.

use crate::build::BuiltModel;
use crate::lockstep::{Mirror, StepFail};
use crate::model::Model;
use crate::mutants::{always_reachable, counter_never_saturates, Mutant, MutantResult};
use crate::report::Failure;
use crate::{CosimError, SimError};
use golden::mc::stimulus::{self, LoadClass, Request};
use golden::mc::system::{GroupCycle, McSummary, MemSystem};
use golden::mc::warped::WarpedMc;
use serde::Serialize;
use spec::{Scheduler, Spec};
use std::cell::RefCell;
use std::path::PathBuf;
use std::time::Instant;

/// Cycles simulated when `--cycles` is not given.
pub const DEFAULT_CYCLES: u64 = 200_000;

/// Where requests come from.
#[derive(Debug, Clone, PartialEq)]
pub enum McStimulus {
    /// Traffic that stresses the tables ([`stimulus::stress`]).
    Random,
    /// Warp loads of one class ([`stimulus::warp_loads`]) offered at an intensity (relative to
    /// the random-row service rate; `hoa` is [`INTENSITY`], `hoa@2.5` is 2.5).
    Class(LoadClass, f64),
    /// A JSON-lines request file.
    File(PathBuf),
}

impl McStimulus {
    /// Warp loads of one class at the default intensity.
    pub fn class(c: LoadClass) -> McStimulus {
        McStimulus::Class(c, INTENSITY)
    }
}

/// Legal offered intensities of the class generators.
pub const INTENSITY_RANGE: std::ops::RangeInclusive<f64> = 0.05..=20.0;

/// A stimulus name that does not parse.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BadStimulusName(String);

impl std::str::FromStr for McStimulus {
    type Err = BadStimulusName;
    fn from_str(s: &str) -> Result<McStimulus, Self::Err> {
        if s == "random" {
            return Ok(McStimulus::Random);
        }
        let (name, level) = match s.split_once('@') {
            Some((n, l)) => (n, Some(l)),
            None => (s, None),
        };
        match (LoadClass::from_name(name), level) {
            (Some(c), None) => Ok(McStimulus::class(c)),
            (Some(c), Some(l)) => match l.parse::<f64>() {
                Ok(x) if INTENSITY_RANGE.contains(&x) => Ok(McStimulus::Class(c, x)),
                _ => Err(BadStimulusName(format!(
                    "stimulus `{s}`: the intensity after `@` must be a number in {}..={} \
                     (offered load relative to the random-row service rate; default {INTENSITY})",
                    INTENSITY_RANGE.start(),
                    INTENSITY_RANGE.end()
                ))),
            },
            _ => Ok(McStimulus::File(PathBuf::from(s))),
        }
    }
}

impl std::fmt::Display for McStimulus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            McStimulus::Random => write!(f, "random"),
            McStimulus::Class(c, x) if *x == INTENSITY => write!(f, "{}", c.name()),
            McStimulus::Class(c, x) => write!(f, "{}@{x}", c.name()),
            McStimulus::File(p) => write!(f, "{}", p.display()),
        }
    }
}

/// Offered load of the class generators, relative to the random-row service rate.
pub const INTENSITY: f64 = 1.3;

/// The requests of a stimulus, enough for `cycles` cycles (a file gives what it holds).
pub fn requests(
    spec: &Spec,
    kind: &McStimulus,
    cycles: u64,
    seed: u64,
) -> Result<Vec<Request>, CosimError> {
    Ok(match kind {
        McStimulus::Random => stimulus::stress(spec, cycles.max(64) as usize, seed),
        McStimulus::Class(c, intensity) => {
            // Enough loads to keep the channels busy for `cycles` cycles.
            let mean = match c {
                LoadClass::Loa => 1.0,
                LoadClass::Moa => 5.0,
                LoadClass::Hoa => 20.5,
            };
            let per_cycle =
                stimulus::random_service_rate(spec) * f64::from(spec.dram.channels) * intensity;
            let loads = ((cycles as f64 * per_cycle / mean) as usize).max(1);
            stimulus::warp_loads(spec, *c, loads, *intensity, seed)
        }
        McStimulus::File(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| {
                CosimError::BadInput(format!("cannot read stimulus {}: {e}", path.display()))
            })?;
            stimulus::parse(&text, &path.display().to_string(), spec)
                .map_err(|e| CosimError::BadInput(e.to_string()))?
        }
    })
}

/// The spec with the Warped-MC scheduler (co-simulating the tables needs it in charge): the
/// spec itself when it has it, else a variant with `mc.scheduler=warped` as one more layer. A
/// scheduler the user chose explicitly is not replaced: that is an error.
pub fn warped(spec: &Spec) -> Result<Spec, CosimError> {
    if spec.mc.scheduler == Scheduler::Warped {
        return Ok(spec.clone());
    }
    if spec.set_by_user("mc.scheduler") {
        return Err(CosimError::BadInput(format!(
            "co-simulating the Warped-MC tables needs mc.scheduler = warped, but the configuration sets mc.scheduler = {}: drop that setting or use --set mc.scheduler=warped",
            spec.mc.scheduler.name()
        )));
    }
    spec.variant(&["mc.scheduler=warped"])
        .map_err(|e| CosimError::BadInput(e.to_string()))
}

/// The RTL files of the block, with a mutant applied if asked.
pub fn rtl_files(
    spec: &Spec,
    mutant: Option<&Mutant>,
) -> Result<(String, Vec<(String, String)>), CosimError> {
    crate::rtl::block_rtl(spec, &ENTRY, mutant)
}

/// Build (or fetch) the block's model.
pub fn build_model(
    spec: &Spec,
    mutant: Option<&Mutant>,
    trace: bool,
) -> Result<(BuiltModel, Model), CosimError> {
    crate::rtl::block_model(spec, &ENTRY, mutant, trace)
}

/// How to run.
pub struct WmcOptions<'a> {
    pub stimulus: McStimulus,
    pub cycles: Option<u64>,
    pub seed: u64,
    /// The WET group whose block is co-simulated.
    pub group: usize,
    pub waves: Option<PathBuf>,
    pub mutant: Option<&'static Mutant>,
    pub out_dir: PathBuf,
    pub command: String,
    pub shrink: bool,
    pub progress: Option<&'a dyn Fn(u64, u64, f64)>,
}

/// Result of a co-simulation.
#[derive(Debug, Clone, Serialize)]
pub struct WmcReport {
    pub block: &'static str,
    pub config: String,
    pub config_hash: String,
    pub stimulus: String,
    pub seed: u64,
    pub group: usize,
    pub mutant: Option<&'static str>,
    /// Cycles of the memory system (each one compared).
    pub cycles: u64,
    /// Requests completed within the run.
    pub requests: u64,
    pub memory: McSummary,
    pub seconds: f64,
    pub cycles_per_second: f64,
    pub build_seconds: f64,
    pub model_cached: bool,
    pub result: &'static str,
    pub failure: Option<Failure>,
}

/// Run the memory system with the group's block mirrored in RTL. Returns the first failure.
fn run_mirrored(
    spec: &Spec,
    reqs: Vec<Request>,
    cycles: u64,
    group: usize,
    mirror: &mut Mirror,
    progress: Option<&dyn Fn(u64, u64, f64)>,
) -> Result<(MemSystem, Option<StepFail>), CosimError> {
    let encoder = WarpedMc::new(&spec.wmc);
    let mut sys = MemSystem::new(spec, reqs).map_err(|e| CosimError::BadInput(e.to_string()))?;
    mirror.reset()?;
    let fail: RefCell<Option<StepFail>> = RefCell::new(None);
    let start = Instant::now();
    let mut next_report = 1.0;
    let mut hook = |gc: GroupCycle| -> Result<(), String> {
        match mirror.check(&encoder, gc.input, gc.output) {
            Ok(()) => {
                if let Some(p) = progress {
                    if mirror.cycle & 0x3fff == 0 {
                        let t = start.elapsed().as_secs_f64();
                        if t >= next_report {
                            next_report = t + 1.0;
                            p(mirror.cycle, cycles, mirror.cycle as f64 / t);
                        }
                    }
                }
                Ok(())
            }
            Err(e) => {
                *fail.borrow_mut() = Some(e);
                Err("mismatch".into())
            }
        }
    };
    let r = sys.run(cycles, Some((group, &mut hook)));
    let fail = fail.into_inner();
    match (r, fail) {
        (_, Some(f)) => Ok((sys, Some(f))),
        (Err(e), None) => Err(CosimError::BadInput(e.to_string())),
        (Ok(()), None) => Ok((sys, None)),
    }
}

/// Co-simulate the Warped-MC tables.
pub fn cosim(spec: &Spec, opts: &WmcOptions) -> Result<WmcReport, CosimError> {
    let spec = warped(spec)?;
    let groups = (spec.dram.channels / spec.wmc.controllers_per_wet) as usize;
    if opts.group >= groups {
        return Err(CosimError::BadInput(format!(
            "--group {} does not exist: the configuration has {groups} warp-entry-table groups (0..{})",
            opts.group,
            groups - 1
        )));
    }
    let limit = opts.cycles.unwrap_or(match opts.stimulus {
        McStimulus::File(_) => u64::MAX,
        _ => DEFAULT_CYCLES,
    });
    let reqs = requests(&spec, &opts.stimulus, limit.min(50_000_000), opts.seed)?;
    let (built, mut rtl) = build_model(&spec, opts.mutant, opts.waves.is_some())?;
    if let Some(w) = &opts.waves {
        rtl.open_vcd(w)?;
    }
    let mut mirror = Mirror::new(rtl, &spec.wmc.ports())?;
    let start = Instant::now();
    let (sys, fail) = run_mirrored(
        &spec,
        reqs.clone(),
        limit,
        opts.group,
        &mut mirror,
        opts.progress,
    )?;
    mirror.rtl.close_vcd();
    let seconds = start.elapsed().as_secs_f64();
    let cycles = sys.now();
    let failure = match fail {
        None => None,
        Some(f) => Some(report_failure(&spec, opts, &reqs, &sys, &mut mirror, f)?),
    };
    Ok(WmcReport {
        block: "warped-mc",
        config: spec.name.clone(),
        config_hash: spec.hash.to_string(),
        stimulus: opts.stimulus.to_string(),
        seed: opts.seed,
        group: opts.group,
        mutant: opts.mutant.map(|m| m.name),
        cycles,
        requests: sys.completions().iter().filter(|&&c| c != u64::MAX).count() as u64,
        memory: sys.summary(),
        seconds,
        cycles_per_second: cycles as f64 / seconds.max(1e-9),
        build_seconds: built.seconds,
        model_cached: !built.built_now,
        result: if failure.is_none() { "pass" } else { "fail" },
        failure,
    })
}

fn command_for(opts: &WmcOptions, stimulus: &str, generated: bool, cycles: Option<u64>) -> String {
    let mut c = format!("{} --stimulus {stimulus}", opts.command);
    if generated {
        c.push_str(&format!(" --seed {}", opts.seed));
    }
    if let Some(n) = cycles {
        c.push_str(&format!(" --cycles {n}"));
    }
    if opts.group != 0 {
        c.push_str(&format!(" --group {}", opts.group));
    }
    if let Some(m) = opts.mutant {
        c.push_str(&format!(" --mutant {}", m.name));
    }
    c
}

fn report_failure(
    spec: &Spec,
    opts: &WmcOptions,
    reqs: &[Request],
    sys: &MemSystem,
    mirror: &mut Mirror,
    fail: StepFail,
) -> Result<Failure, CosimError> {
    let now = sys.now();
    let generated = !matches!(opts.stimulus, McStimulus::File(_));
    // The requests that had arrived by the failing cycle.
    let arrived: Vec<Request> = reqs.iter().copied().filter(|r| r.cycle <= now).collect();
    let last_transactions = stimulus::to_jsonl(&arrived[arrived.len().saturating_sub(8)..])
        .lines()
        .map(str::to_string)
        .collect();
    let mut f = Failure::new(
        mirror.cycle,
        opts.seed,
        last_transactions,
        command_for(opts, &opts.stimulus.to_string(), generated, Some(now + 1)),
    );
    if let Some(c) = f.record(fail) {
        f.cycle = c;
    }
    if !opts.shrink {
        return Ok(f);
    }
    let group = opts.group;
    let minimal = crate::shrink::minimize(&arrived, |cand| {
        matches!(
            run_mirrored(spec, cand.to_vec(), now + 1, group, mirror, None),
            Ok((_, Some(_)))
        )
    });
    std::fs::create_dir_all(&opts.out_dir).map_err(|e| {
        CosimError::Sim(SimError::Io(format!(
            "cannot create {}: {e}",
            opts.out_dir.display()
        )))
    })?;
    let stem = format!(
        "warped-mc-{}-seed{}{}",
        spec.hash,
        opts.seed,
        opts.mutant
            .map(|m| format!("-{}", m.name))
            .unwrap_or_default()
    );
    let repro = opts.out_dir.join(format!("{stem}.repro.jsonl"));
    std::fs::write(&repro, stimulus::to_jsonl(&minimal)).map_err(|e| {
        CosimError::Sim(SimError::Io(format!(
            "cannot write {}: {e}",
            repro.display()
        )))
    })?;
    f.reproducer = Some(repro.display().to_string());
    f.reproducer_transactions = Some(minimal.len());
    f.reproducer_command = Some(command_for(opts, &repro.display().to_string(), false, None));
    let vcd = opts.out_dir.join(format!("{stem}.vcd"));
    if let Ok((_, mut traced)) = build_model(spec, opts.mutant, true) {
        if traced.open_vcd(&vcd).is_ok() {
            if let Ok(mut m) = Mirror::new(traced, &spec.wmc.ports()) {
                let _ = run_mirrored(spec, minimal, now + 1, group, &mut m, None);
                m.rtl.close_vcd();
                f.vcd = Some(vcd.display().to_string());
            }
        }
    }
    Ok(f)
}

/// Co-simulate one mutant (no shrinking) and say whether it was caught.
pub fn run_mutant(
    spec: &Spec,
    m: &'static Mutant,
    stimulus: &McStimulus,
    cycles: Option<u64>,
    seed: u64,
) -> Result<MutantResult, CosimError> {
    if let Some(r) = MutantResult::equivalent(m, spec) {
        return Ok(r);
    }
    let r = cosim(
        spec,
        &WmcOptions {
            stimulus: stimulus.clone(),
            cycles,
            seed,
            group: 0,
            waves: None,
            mutant: Some(m),
            out_dir: PathBuf::from("."),
            command: String::new(),
            shrink: false,
            progress: None,
        },
    )?;
    Ok(MutantResult::of(m, r.failure.as_ref()))
}

/// Deliberately wrong variants of the Warped-MC RTL.
pub const MUTANTS: &[Mutant] = &[
    Mutant {
        name: "wet-service-ignored",
        description: "serviced requests never decrement the warp entry table",
        file: "ws_warped_mc.sv",
        find: "port_valid[2 * c + 1] = svc_valid_i[c];",
        replace: "port_valid[2 * c + 1] = 1'b0;",
        unreachable: always_reachable,
    },
    Mutant {
        name: "class-h-at-two-pending",
        description: "a row hit counts as a warp's last request while two are still pending",
        file: "ws_warped_mc.sv",
        find: "<= PendW'(1)) ? WmcH :",
        replace: "<= PendW'(2)) ? WmcH :",
        unreachable: always_reachable,
    },
    Mutant {
        name: "score-kept-on-activate",
        description: "activating a row does not clear its row score",
        file: "ws_warped_mc.sv",
        find: "rs_d[rs_idx(c, act_bank_i[c], RowIdxW'(act_row_i[c]))] = '0;",
        replace: "rs_d[rs_idx(c, act_bank_i[c], RowIdxW'(act_row_i[c]))] = rs_q[rs_idx(c, act_bank_i[c], RowIdxW'(act_row_i[c]))];",
        unreachable: always_reachable,
    },
    Mutant {
        name: "round-robin-stuck",
        description: "the bank round-robin pointer never moves",
        file: "ws_warped_mc.sv",
        find: "BankW'((32'(sel_bank_o[c]) + 1) % NumBanks) : rr_q[c];",
        replace: "rr_q[c] : rr_q[c];",
        unreachable: always_reachable,
    },
    Mutant {
        name: "priority-pool-ignored",
        description: "banks in the priority table's high pool get no precedence",
        file: "ws_warped_mc.sv",
        find: "pt_q[c * NumBanks + 32'(b)] != '0) begin",
        replace: "1'b0) begin",
        unreachable: always_reachable,
    },
    Mutant {
        name: "lowest-score-row-opened",
        description: "a row miss opens the lowest-scoring pending row",
        file: "ws_warped_mc.sv",
        find: "cand_score[c * NumCand + k] > miss_score) begin",
        replace: "cand_score[c * NumCand + k] < miss_score) begin",
        unreachable: always_reachable,
    },
    Mutant {
        name: "pending-counter-wraps",
        description: "the pending-request counter wraps instead of saturating",
        file: "ws_warped_mc.sv",
        find: "(count > int'(PendMax)) ? PendMax : PendW'(count);",
        replace: "PendW'(count);",
        unreachable: counter_never_saturates,
    },
    Mutant {
        name: "m-before-h",
        description: "among a bank's row hits, other requests go before a warp's last one",
        file: "ws_warped_mc.sv",
        find: "cand_class[c * NumCand + k] > hit_cls) begin",
        replace: "cand_class[c * NumCand + k] < hit_cls) begin",
        unreachable: always_reachable,
    },
    Mutant {
        name: "last-warp-not-recorded",
        description: "a service does not record its warp, so that warp's further hits stay L",
        file: "ws_warped_mc.sv",
        find: "last_gwid_d[c]  = svc_valid_i[c] ? svc_gwid_i[c] : last_gwid_q[c];",
        replace: "last_gwid_d[c]  = last_gwid_q[c];",
        unreachable: always_reachable,
    },
    Mutant {
        name: "remote-service-as-own",
        description: "services of other controllers of the WET scope count as the controller's own",
        file: "ws_warped_mc.sv",
        find: "last_gwid_d[c]  = svc_valid_i[c] ? svc_gwid_i[c] : last_gwid_q[c];",
        replace: "last_gwid_d[c]  = svc_valid_i[NumWetCtrl - 1 - c] ? svc_gwid_i[NumWetCtrl - 1 - c] : last_gwid_q[c];",
        unreachable: always_reachable,
    },
];

/// The Warped-MC tables in the block registry.
pub const ENTRY: crate::registry::BlockEntry = crate::registry::BlockEntry {
    name: "warped-mc",
    title: "Warped-MC warp-aware memory-controller tables (seed 004)",
    seed: "004",
    ports: |s| s.wmc.ports(),
    render: rtlgen::warped_mc,
    cost: golden::cost::wmc_cost,
    mutants: MUTANTS,
};
