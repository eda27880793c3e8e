//! `warpsmith bench`: co-simulation speed against its ceiling.
//!
//! Every measurement runs the same precomputed cycles: (1) a generated plain C++ loop driving
//! the same compiled model (the ceiling), (2) the RTL driven from Rust through the C ABI shim,
//! (3) full lockstep co-simulation (golden step, encode, RTL, compare every output port),
//! (4) the golden model alone. Results are ratios to (1).

use crate::build::bench_executable;
use crate::lockstep::Lockstep;
use crate::model::Model;
use crate::ot::{Source, Stimulus};
use crate::toolchain::Verilator;
use crate::wmc::{self, McStimulus};
use crate::{CosimError, SimError};
use golden::block::{CycleModel, Frame};
use golden::mc::stimulus::LoadClass;
use golden::mc::system::MemSystem;
use golden::mc::warped::{WarpedMc, WmcIn};
use golden::ot::{OtIn, OtModel, Packer};
use serde::Serialize;
use spec::Scheduler;
use spec::{Dir, Spec};
use std::time::Instant;

/// One measurement.
#[derive(Debug, Clone, Serialize)]
pub struct Measure {
    pub what: &'static str,
    pub cycles: u64,
    pub seconds: f64,
    pub cycles_per_second: f64,
    /// Relative to the plain C++ loop.
    pub ratio: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    pub block: &'static str,
    pub config: String,
    pub stimulus: String,
    pub cycles: u64,
    pub measures: Vec<Measure>,
    /// Lockstep co-simulation over the plain C++ loop.
    pub cosim_ratio: f64,
    /// The target for `cosim_ratio`.
    pub target: f64,
    /// Golden memory-system throughput (warped-mc only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub memory_system: Vec<Throughput>,
}

/// Golden memory-system throughput of one scheduler on HOA warp loads.
#[derive(Debug, Clone, Serialize)]
pub struct Throughput {
    pub scheduler: &'static str,
    pub requests: u64,
    pub cycles: u64,
    /// The fastest of [`THROUGHPUT_RUNS`] runs (the one least disturbed by the machine).
    pub seconds: f64,
    /// Every run, in order.
    pub runs: Vec<f64>,
    pub requests_per_second: f64,
    /// Relative to [`THROUGHPUT_TARGET`].
    pub ratio: f64,
}

/// Target golden memory-system throughput, requests per second on one core.
pub const THROUGHPUT_TARGET: f64 = 1_000_000.0;

/// Runs per scheduler of the memory-system throughput measure; the fastest counts.
pub const THROUGHPUT_RUNS: usize = 3;

/// Target ratio of lockstep co-simulation to the plain C++ loop.
pub const TARGET: f64 = 0.6;

/// Measure the generated plain C++ loop driving the compiled model with `frames`.
fn cpp_loop(
    v: &Verilator,
    built: &crate::build::BuiltModel,
    top: &str,
    ports: &[spec::PortSpec],
    frames: &[Frame],
    seed: u64,
) -> Result<Measure, CosimError> {
    let exe = bench_executable(v, built, top, ports)?;
    let path = built.lib.with_file_name(format!(
        "frames-{}-{seed}-{}.bin",
        std::process::id(),
        frames.len()
    ));
    let mut bytes =
        Vec::with_capacity(frames.len() * frames.first().map_or(0, |f| f.all_words().len()) * 4);
    for fr in frames {
        for w in fr.all_words() {
            bytes.extend_from_slice(&w.to_le_bytes());
        }
    }
    std::fs::write(&path, &bytes)
        .map_err(|e| SimError::Io(format!("cannot write {}: {e}", path.display())))?;
    let out = std::process::Command::new(&exe)
        .arg(&path)
        .output()
        .map_err(|e| SimError::Io(format!("cannot run {}: {e}", exe.display())));
    std::fs::remove_file(&path).ok();
    let out = out?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut it = text.split_whitespace();
    let parsed = match (it.next(), it.next()) {
        (Some(c), Some(s)) => c.parse::<u64>().ok().zip(s.parse::<f64>().ok()),
        _ => None,
    };
    let Some((cycles, seconds)) = parsed else {
        return Err(SimError::Io(format!("bench loop printed `{}`", text.trim())).into());
    };
    Ok(Measure {
        what: "plain C++ Verilator loop (ceiling)",
        cycles,
        seconds,
        cycles_per_second: cycles as f64 / seconds,
        ratio: 1.0,
    })
}

/// The four rows every block reports, on the same precomputed `inputs`: the plain C++ loop
/// (the ceiling), the RTL alone through the shim, full lockstep against `golden()`, and the
/// golden model alone (`golden_row` names it).
fn block_rows<M: CycleModel>(
    spec: &Spec,
    block: &crate::registry::BlockEntry,
    inputs: &[M::In],
    golden: impl Fn() -> M,
    golden_row: &'static str,
    seed: u64,
) -> Result<Vec<Measure>, CosimError>
where
    M::Out: Clone,
{
    let n = inputs.len() as u64;
    let ports = (block.ports)(spec);
    let enc = golden();
    let mut frames: Vec<Frame> = Vec::with_capacity(inputs.len());
    let mut f = Frame::new(&ports, Dir::In);
    for i in inputs {
        enc.encode_in(i, &mut f);
        frames.push(f.clone());
    }
    let v = Verilator::find()?;
    let (built, mut rtl) = crate::rtl::block_model(spec, block, None, false)?;
    let top = crate::rtl::block_rtl(spec, block, None)?.0;
    let mut measures = vec![cpp_loop(&v, &built, &top, &ports, &frames, seed)?];
    let cpp_cps = measures[0].cycles_per_second;
    let mut push = |what, secs: f64| {
        let cps = n as f64 / secs;
        measures.push(Measure {
            what,
            cycles: n,
            seconds: secs,
            cycles_per_second: cps,
            ratio: cps / cpp_cps,
        });
    };
    rtl.reset()?;
    let mut out_frame = Frame::new(&ports, Dir::Out);
    let t = Instant::now();
    for fr in &frames {
        rtl.step(fr, &mut out_frame)?;
    }
    push(
        "RTL from Rust through the C ABI shim",
        t.elapsed().as_secs_f64(),
    );
    drop(frames);
    let mut ls = Lockstep::new(golden(), Model::load(&built, &ports)?)?;
    let t = Instant::now();
    for i in inputs {
        if let Err(e) = ls.step(i) {
            return Err(
                SimError::Io(format!("bench stimulus did not co-simulate cleanly: {e:?}")).into(),
            );
        }
    }
    push(
        "lockstep co-simulation, full compare",
        t.elapsed().as_secs_f64(),
    );
    let mut g = golden();
    let t = Instant::now();
    for i in inputs {
        g.step(i).map_err(|e| CosimError::BadInput(e.to_string()))?;
    }
    push(golden_row, t.elapsed().as_secs_f64());
    Ok(measures)
}

pub fn bench_ot(
    spec: &Spec,
    stimulus: &Stimulus,
    cycles: u64,
    seed: u64,
) -> Result<BenchReport, CosimError> {
    let source = Source::new(spec, stimulus, seed)?;
    let ws = spec.gpu.warp_size;
    let inputs: Vec<OtIn> = Packer::new(source.iter())
        .take(cycles as usize)
        .map(|c| c.input(ws))
        .collect::<Result<_, _>>()
        .map_err(|e| CosimError::BadInput(e.to_string()))?;
    let n = inputs.len() as u64;
    let measures = block_rows(
        spec,
        &crate::ot::ENTRY,
        &inputs,
        || OtModel::new(&spec.ot),
        "golden model alone",
        seed,
    )?;
    let cosim_ratio = measures[2].ratio;
    Ok(BenchReport {
        block: "ot",
        config: spec.name.clone(),
        stimulus: stimulus.to_string(),
        cycles: n,
        measures,
        cosim_ratio,
        target: TARGET,
        memory_system: Vec::new(),
    })
}

/// Warped-MC tables: the same four rows as [`bench_ot`] on the inputs group 0's block sees in
/// the golden memory system running `stimulus`, then golden memory-system throughput (every
/// scheduler) on HOA warp loads of `cycles` cycles' worth.
pub fn bench_wmc(
    spec: &Spec,
    stimulus: &McStimulus,
    cycles: u64,
    seed: u64,
) -> Result<BenchReport, CosimError> {
    let wspec = wmc::warped(spec)?;
    let reqs = wmc::requests(&wspec, stimulus, cycles, seed)?;
    let bad = |e: golden::mc::system::McError| CosimError::BadInput(e.to_string());
    let mut sys = MemSystem::new(&wspec, reqs).map_err(bad)?;
    let mut inputs: Vec<WmcIn> = Vec::with_capacity(cycles as usize);
    let mut hook = |gc: golden::mc::system::GroupCycle| -> Result<(), String> {
        inputs.push(gc.input.clone());
        Ok(())
    };
    sys.run(cycles, Some((0, &mut hook))).map_err(bad)?;
    let n = inputs.len() as u64;
    let measures = block_rows(
        &wspec,
        &crate::wmc::ENTRY,
        &inputs,
        || WarpedMc::new(&spec.wmc),
        "golden block alone",
        seed,
    )?;
    drop(inputs);

    // Golden memory-system throughput on HOA warp loads.
    let mut memory_system = Vec::new();
    for sched in [
        Scheduler::Fcfs,
        Scheduler::Frfcfs,
        Scheduler::Warped,
        Scheduler::Divfirst,
    ] {
        let s = spec
            .variant(&[&format!("mc.scheduler={}", sched.name())])
            .map_err(|e| CosimError::BadInput(e.to_string()))?;
        let reqs = wmc::requests(&s, &McStimulus::class(LoadClass::Hoa), cycles, seed)?;
        let count = reqs.len() as u64;
        let mut runs = Vec::with_capacity(THROUGHPUT_RUNS);
        let mut sim_cycles = 0;
        for _ in 0..THROUGHPUT_RUNS {
            let reqs = reqs.clone();
            let t = Instant::now();
            let mut sys = MemSystem::new(&s, reqs).map_err(bad)?;
            sys.run(u64::MAX, None).map_err(bad)?;
            runs.push(t.elapsed().as_secs_f64());
            sim_cycles = sys.now();
        }
        let seconds = runs.iter().copied().fold(f64::INFINITY, f64::min);
        let rps = count as f64 / seconds;
        memory_system.push(Throughput {
            scheduler: sched.name(),
            requests: count,
            cycles: sim_cycles,
            seconds,
            runs,
            requests_per_second: rps,
            ratio: rps / THROUGHPUT_TARGET,
        });
    }

    let cosim_ratio = measures[2].ratio;
    Ok(BenchReport {
        block: "warped-mc",
        config: spec.name.clone(),
        stimulus: stimulus.to_string(),
        cycles: n,
        measures,
        cosim_ratio,
        target: TARGET,
        memory_system,
    })
}

/// The dispatcher's decision unit: the same four rows as [`bench_ot`] on `cycles` cycles of
/// `stimulus` (inputs recorded closed-loop from the golden unit first).
pub fn bench_dispatch(
    spec: &Spec,
    stimulus: &crate::dispatch::DispStimulus,
    cycles: u64,
    seed: u64,
) -> Result<BenchReport, CosimError> {
    use golden::dispatch::DispatchUnit;
    let inputs = crate::dispatch::record_inputs(spec, stimulus, cycles, seed)?;
    let n = inputs.len() as u64;
    let measures = block_rows(
        spec,
        &crate::dispatch::ENTRY,
        &inputs,
        || DispatchUnit::new(&spec.dispatch),
        "golden block alone",
        seed,
    )?;
    let cosim_ratio = measures[2].ratio;
    Ok(BenchReport {
        block: "dispatch",
        config: spec.name.clone(),
        stimulus: stimulus.to_string(),
        cycles: n,
        measures,
        cosim_ratio,
        target: TARGET,
        memory_system: Vec::new(),
    })
}
