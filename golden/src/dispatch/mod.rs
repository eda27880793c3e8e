//! Thread-block dispatch (seed 002, with the CTA mapping of seed 003): per-block access
//! rectangles in cache-line coordinates, the dispatch policies users compare (round-robin, BCS,
//! locality-aware, compile-time CTA mapping along x, y or as Algorithm 1 chooses), and a
//! dispatch simulation that reports the order and the lines co-resident blocks share.
//!
//! Decisions the sources leave open are in docs/decisions/dispatch.md.

mod mapping;
mod ranges;
mod run;
mod stream;
mod unit;
mod warps;

pub use mapping::{
    balanced_ranges, balanced_sm, direction, reuse_distances, Direction, MappingOrder,
};
pub use ranges::{access_ranges, block_coords, block_count, overlap, Rect, MAX_EVALUATIONS};
pub use run::{dispatch, BlockTimes, Dispatch, DispatchReport, SCHEMA};
pub use stream::{Dispatcher, Placed, UnitHook};
pub use unit::{unit_rects, DispatchUnit, Entry, UnitBlock, UnitCodec, UnitIn, UnitOut};
pub use warps::{degree_table, locality_degree, warp_ranges, WarpRange};

use crate::workload::{builtin, load_kernel_file, validate, KernelDesc, BUILTIN};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Kernels shipped besides the built-ins: for the dispatcher (`golden/kernels/dispatch/<name>
/// .toml`: row-major, column-major and no inter-block locality; `-large`: row- and
/// column-major grids of a thousand longer blocks, where dispatch matters) and for the GPU
/// (`golden/kernels/gpu/lonewarp.toml`: lone warps keeping many gathers in flight, which fill a
/// Warped-MC pending counter in place; `otedge.toml`: the OT predictor's edges in place —
/// mispredict counters resting on the threshold, more PC and LEC pairs than the table holds,
/// addresses with the stored address's top bit set, relaunches; `pfstream.toml`: a strided
/// stream, the shape of seed 001's stride-type benchmarks).
pub const EXAMPLES: &[(&str, &str)] = &[
    ("lonewarp", include_str!("../../kernels/gpu/lonewarp.toml")),
    ("otedge", include_str!("../../kernels/gpu/otedge.toml")),
    ("pfstream", include_str!("../../kernels/gpu/pfstream.toml")),
    (
        "rowmajor",
        include_str!("../../kernels/dispatch/rowmajor.toml"),
    ),
    (
        "colmajor",
        include_str!("../../kernels/dispatch/colmajor.toml"),
    ),
    (
        "rowmajor-large",
        include_str!("../../kernels/dispatch/rowmajor-large.toml"),
    ),
    (
        "colmajor-large",
        include_str!("../../kernels/dispatch/colmajor-large.toml"),
    ),
    (
        "nolocality",
        include_str!("../../kernels/dispatch/nolocality.toml"),
    ),
];

/// A kernel by name (built-in, dispatch example) or TOML file path.
pub fn kernel(name: &str) -> Result<KernelDesc, DispatchError> {
    if let Some(k) = builtin(name) {
        return Ok(k);
    }
    if let Some((_, text)) = EXAMPLES.iter().find(|(n, _)| *n == name) {
        let k: KernelDesc = toml::from_str(text).map_err(|e| {
            Box::new(crate::workload::WorkloadError::Toml {
                path: PathBuf::from(format!("<kernel {name}>")),
                message: e.to_string(),
            })
        })?;
        validate(&k).map_err(Box::new)?;
        return Ok(k);
    }
    let path = Path::new(name);
    if path.exists() || name.ends_with(".toml") {
        return Ok(load_kernel_file(path).map_err(Box::new)?);
    }
    Err(DispatchError::UnknownKernel {
        name: name.to_string(),
        known: BUILTIN
            .iter()
            .copied()
            .chain(EXAMPLES.iter().map(|(n, _)| *n))
            .collect::<Vec<_>>()
            .join(", "),
    })
}

/// Why a kernel cannot be dispatched by a locality-aware policy.
#[derive(Debug, Error)]
pub enum DispatchError {
    #[error(transparent)]
    Workload(#[from] Box<crate::workload::WorkloadError>),
    #[error("kernel `{kernel}`: {message}")]
    Kernel { kernel: String, message: String },
    #[error("unknown kernel `{name}`; known kernels: {known} (or give a kernel TOML file)")]
    UnknownKernel { name: String, known: String },
    /// A co-simulation's hook on the unit stopped the run.
    #[error("{0}")]
    Hook(String),
}

#[cfg(test)]
mod tests;

/// `warpsmith golden --block dispatch`: a kernel's blocks dispatched by `dispatch.policy`
/// (`--kernel NAME|FILE`, or `--stimulus kernel:NAME`), in order, with the lines co-resident
/// blocks share (text), or the same as one JSON object.
pub fn run_golden(
    spec: &spec::Spec,
    r: &crate::run::GoldenRun,
    out: &mut dyn std::io::Write,
) -> Result<(), crate::run::GoldenError> {
    use crate::run::BadInput;
    let from_stimulus = r.stimulus.map(|s| {
        s.strip_prefix("kernel:").ok_or_else(|| {
            BadInput(format!(
                "stimulus `{s}` is not one golden --block dispatch takes: give --kernel NAME (or \
                    --stimulus kernel:NAME)"
            ))
        })
    });
    let name = match (r.opts.get("kernel"), from_stimulus) {
        (Some(_), Some(_)) => {
            return Err(BadInput(
                "give the kernel once: --kernel NAME or --stimulus kernel:NAME".into(),
            )
            .into())
        }
        (Some(k), None) => k,
        (None, Some(k)) => k?,
        (None, None) => {
            return Err(BadInput(format!(
                "--kernel is required for --block dispatch: a built-in name ({}, {}) or a \
                 kernel TOML file",
                BUILTIN.join(", "),
                EXAMPLES
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
            .into())
        }
    };
    let bad = |e: DispatchError| BadInput(e.to_string());
    let k = kernel(name).map_err(bad)?;
    let rects = access_ranges(&k, spec.gpu.line_bytes).map_err(bad)?;
    let times = BlockTimes::Model {
        base: spec.dispatch.block_cycles.into(),
        seed: r.seed,
    };
    let d = dispatch(
        &k,
        &rects,
        &spec.dispatch,
        spec.dispatch.policy,
        &times,
        spec.gpu.line_bytes,
    )
    .map_err(bad)?;
    if r.json {
        let report = crate::report::Report {
            provenance: r.origin.provenance(SCHEMA, spec),
            figures: &d,
        };
        let text = serde_json::to_string_pretty(&report)
            .map_err(|e| crate::run::GoldenError::Failed(e.to_string()))?;
        writeln!(out, "{text}")?;
        return Ok(());
    }
    writeln!(
        out,
        "dispatch {}  kernel {} (grid {}x{}x{})  {} SMs x {} slots",
        d.policy, d.kernel, k.grid[0], k.grid[1], k.grid[2], d.sms, d.slots
    )?;
    if let (Some((x, y)), Some(dir)) = (d.reuse, d.direction) {
        writeln!(out, "  reuse distance x {x}, y {y}: direction {dir:?}")?;
    }
    writeln!(
        out,
        "  {:>8} {:>12} {:>4} {:>10} {:>7}",
        "block", "(x,y,z)", "sm", "cycle", "shared"
    )?;
    for x in &d.dispatches {
        writeln!(
            out,
            "  {:>8} {:>12} {:>4} {:>10} {:>7}",
            x.block,
            format!("({},{},{})", x.coords[0], x.coords[1], x.coords[2]),
            x.sm,
            x.cycle,
            x.shared
        )?;
    }
    writeln!(out, "  shared lines between co-resident blocks, per SM:")?;
    for (s, v) in d.shared_per_sm.iter().enumerate() {
        writeln!(out, "    sm {s:>3}: {v}")?;
    }
    writeln!(
        out,
        "  total {}  (last block done at cycle {})",
        d.shared_total, d.cycles
    )?;
    Ok(())
}
