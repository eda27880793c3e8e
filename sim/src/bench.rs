//! `warpsmith bench`: co-simulation speed against its ceiling.
//!
//! Every measurement runs the same precomputed cycles: (1) a generated plain C++ loop driving
//! the same compiled model (the ceiling), (2) the RTL driven from Rust through the C ABI shim,
//! (3) full lockstep co-simulation (golden step, encode, RTL, compare every output port),
//! (4) the golden model alone. Results are ratios to (1).

use crate::build::bench_executable;
use crate::lockstep::Lockstep;
use crate::model::Model;
use crate::ot::{build_model, Source, Stimulus};
use crate::toolchain::Verilator;
use crate::{CosimError, SimError};
use golden::block::{CycleModel, Frame};
use golden::ot::{OtIn, OtModel, Packer};
use golden::spec::{Dir, Spec};
use serde::Serialize;
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
}

/// Target ratio of lockstep co-simulation to the plain C++ loop.
pub const TARGET: f64 = 0.6;

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
    let ports = spec.ot.ports();
    let golden = OtModel::new(&spec.ot);
    let mut frames: Vec<Frame> = Vec::with_capacity(inputs.len());
    let mut f = Frame::new(&ports, Dir::In);
    for i in &inputs {
        golden.encode_in(i, &mut f);
        frames.push(f.clone());
    }

    let v = Verilator::find()?;
    let (built, mut rtl) = build_model(spec, None, false)?;

    // (1) plain C++ loop.
    let exe = bench_executable(&v, &built, rtlgen::OT_TOP, &ports)?;
    let path = built
        .lib
        .with_file_name(format!("frames-{}-{seed}-{n}.bin", std::process::id()));
    let mut bytes =
        Vec::with_capacity(frames.len() * frames.first().map_or(0, |f| f.all_words().len()) * 4);
    for fr in &frames {
        for w in fr.all_words() {
            bytes.extend_from_slice(&w.to_le_bytes());
        }
    }
    std::fs::write(&path, &bytes)
        .map_err(|e| SimError::Io(format!("cannot write {}: {e}", path.display())))?;
    let out = std::process::Command::new(&exe)
        .arg(&path)
        .output()
        .map_err(|e| SimError::Io(format!("cannot run {}: {e}", exe.display())))?;
    std::fs::remove_file(&path).ok();
    let text = String::from_utf8_lossy(&out.stdout);
    let mut it = text.split_whitespace();
    let (Some(c), Some(s)) = (it.next(), it.next()) else {
        return Err(SimError::Io(format!("bench loop printed `{}`", text.trim())).into());
    };
    let cpp_cycles: u64 = c.parse().unwrap_or(0);
    let cpp_secs: f64 = s.parse().unwrap_or(f64::NAN);
    let cpp_cps = cpp_cycles as f64 / cpp_secs;

    let mut measures = vec![Measure {
        what: "plain C++ Verilator loop (ceiling)",
        cycles: cpp_cycles,
        seconds: cpp_secs,
        cycles_per_second: cpp_cps,
        ratio: 1.0,
    }];
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

    // (2) RTL alone through the shim.
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

    // (3) full lockstep.
    let mut ls = Lockstep::new(OtModel::new(&spec.ot), Model::load(&built, &ports)?)?;
    let t = Instant::now();
    for i in &inputs {
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

    // (4) golden alone.
    let mut g = OtModel::new(&spec.ot);
    let t = Instant::now();
    for i in &inputs {
        let _ = g.step(i);
    }
    push("golden model alone", t.elapsed().as_secs_f64());

    let cosim_ratio = measures[2].ratio;
    Ok(BenchReport {
        block: "ot",
        config: spec.name.clone(),
        stimulus: stimulus.to_string(),
        cycles: n,
        measures,
        cosim_ratio,
        target: TARGET,
    })
}
