//! Thread-block dispatch (seed 002, with the CTA mapping of seed 003): per-block access
//! rectangles in cache-line coordinates, the dispatch policies users compare (round-robin, BCS,
//! locality-aware, compile-time CTA mapping along x, y or as Algorithm 1 chooses), and a
//! dispatch simulation that reports the order and the lines co-resident blocks share.
//!
//! Decisions the sources leave open are in docs/decisions.md ("Thread-block dispatch").

mod mapping;
mod ranges;
mod run;
mod unit;
mod warps;

pub use mapping::{balanced_sm, direction, reuse_distances, Direction, MappingOrder};
pub use ranges::{access_ranges, block_coords, block_count, overlap, Rect, MAX_EVALUATIONS};
pub use run::{dispatch, BlockTimes, Dispatch, DispatchReport};
pub use unit::{unit_rects, DispatchUnit, Entry, UnitIn, UnitOut};
pub use warps::{degree_table, locality_degree, warp_ranges, WarpRange};

use crate::workload::{builtin, load_kernel_file, validate, KernelDesc, BUILTIN};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Kernels shipped for the dispatcher (`golden/kernels/dispatch/<name>.toml`): row-major,
/// column-major and no inter-block locality.
pub const EXAMPLES: &[(&str, &str)] = &[
    (
        "rowmajor",
        include_str!("../../kernels/dispatch/rowmajor.toml"),
    ),
    (
        "colmajor",
        include_str!("../../kernels/dispatch/colmajor.toml"),
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
}

#[cfg(test)]
mod tests;
