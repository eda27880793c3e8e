//! `warpsmith bench`: co-simulation speed against its ceiling.
//!
//! Every measurement runs the same precomputed cycles: (1) a generated plain C++ loop driving
//! the same compiled model (the ceiling), (2) the RTL driven from Rust through the C ABI shim,
//! (3) full lockstep co-simulation (golden step, encode, RTL, compare every output port),
//! (4) the golden model alone. Results are ratios to (1). A block may add the throughput of the
//! system around it ([`crate::registry::BlockEntry::system_throughput`]).

use crate::block::BlockInfo;
use crate::build::bench_executable;
use crate::harness::{Driver, In};
use crate::lockstep::Lockstep;
use crate::model::Model;
use crate::toolchain::Verilator;
use crate::{CosimError, SimError};
use golden::block::{BlockModel, Codec, CycleModel, Frame};
use golden::run::BlockOpts;
use serde::Serialize;
use spec::{Dir, Spec};
use std::time::Instant;

/// How to run a benchmark.
#[derive(Debug, Clone)]
pub struct BenchOptions {
    pub stimulus: String,
    /// Cycles per measurement.
    pub cycles: u64,
    pub seed: u64,
    pub opts: BlockOpts,
    pub progress: bool,
}

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
    /// Whether every target was met (lockstep ratio and every throughput).
    pub met: bool,
    /// Throughput of the system around the block, per configuration (Warped-MC: the golden
    /// memory system under every scheduler).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub system: Vec<Throughput>,
}

/// Throughput of the system around a block in one configuration (Warped-MC: the golden memory
/// system under one scheduler on HOA warp loads).
#[derive(Debug, Clone, Serialize)]
pub struct Throughput {
    /// The configuration measured (`frfcfs`, `memory side, 8/port`).
    pub what: String,
    pub requests: u64,
    pub cycles: u64,
    /// The fastest of [`THROUGHPUT_RUNS`] runs (the one least disturbed by the machine).
    pub seconds: f64,
    /// Every run, in order.
    pub runs: Vec<f64>,
    pub requests_per_second: f64,
    /// Relative to [`THROUGHPUT_TARGET`].
    pub ratio: f64,
    /// DRAM data-bus utilisation the run reached (0-1): how heavy the traffic was.
    pub dram_bandwidth: f64,
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
    ports: &[spec::PortSpec],
    frames: &[Frame],
    seed: u64,
) -> Result<Measure, CosimError> {
    let exe = bench_executable(v, built, ports)?;
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
/// (the ceiling), the RTL alone through the shim, full lockstep against the golden model, and
/// the golden model alone.
fn block_rows<D: Driver>(
    block: &BlockInfo,
    spec: &Spec,
    inputs: &[In<D>],
    seed: u64,
) -> Result<Vec<Measure>, CosimError> {
    let n = inputs.len() as u64;
    let codec = D::Block::codec(spec)?;
    let ports = codec.ports().to_vec();
    let mut frames: Vec<Frame> = Vec::with_capacity(inputs.len());
    let mut f = Frame::new(&ports, Dir::In);
    for i in inputs {
        codec.encode_in(i, &mut f);
        frames.push(f.clone());
    }
    let v = Verilator::find()?;
    let (built, mut rtl) = crate::rtl::block_model(spec, block, None, false)?;
    let mut measures = vec![cpp_loop(&v, &built, &ports, &frames, seed)?];
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
    let mut ls = Lockstep::new(D::Block::model(spec), codec, Model::load(&built, &ports)?)?;
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
    let mut g = D::Block::model(spec);
    let t = Instant::now();
    for i in inputs {
        g.step(i).map_err(|e| CosimError::BadInput(e.to_string()))?;
    }
    push("golden model alone", t.elapsed().as_secs_f64());
    Ok(measures)
}

/// A block's benchmark rows: the four rows on `o.cycles` cycles of its stimulus (the inputs
/// its driver produces, recorded first). The registry adds the system's throughput.
pub fn bench<D: Driver>(
    block: &'static BlockInfo,
    spec: &Spec,
    o: &BenchOptions,
) -> Result<BenchReport, CosimError> {
    let spec = D::prepare(spec)?;
    let stim = crate::harness::Stim {
        text: &o.stimulus,
        seed: o.seed,
        opts: &o.opts,
    };
    let mut d = D::new(&spec, &stim)?;
    let mut inputs: Vec<In<D>> = Vec::with_capacity(o.cycles.min(1 << 24) as usize);
    d.run(o.cycles, &mut |i, _| {
        inputs.push(i.clone());
        Ok(())
    })?;
    let n = inputs.len() as u64;
    let measures = block_rows::<D>(block, &spec, &inputs, o.seed)?;
    drop(inputs);
    let cosim_ratio = measures[2].ratio;
    Ok(BenchReport {
        block: block.name,
        config: spec.name.clone(),
        stimulus: d.stimulus().name,
        cycles: n,
        met: false, // judged with the system's throughput: `BlockEntry::bench`
        measures,
        cosim_ratio,
        target: TARGET,
        system: Vec::new(),
    })
}
