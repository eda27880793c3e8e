//! Workloads: CUDA-like kernels described as data, turned into the memory requests a GPU issues.
//!
//! A [`KernelDesc`] gives the grid and block shapes, the arrays a kernel reads (base byte
//! address, element size, optional row pitch and length) and its loads. A load's element index
//! is affine in `blockIdx`, `threadIdx` and the loop counter — enough for the regular kernels of
//! seed 000 (CP, ScalarProd, Stencil2D) — or a seeded hash for irregular (gather) loads.
//! Kernels load from TOML ([`load_kernel_file`]) or come built in ([`builtin`]; each is also
//! shipped as `golden/kernels/<name>.toml`).
//!
//! [`schedule()`] is the reusable core: a lazy iterator of warp-level load instructions
//! ([`WarpLoad`]), each coalesced into its distinct cache-line requests, interleaved the way a
//! GPU runs them — thread blocks (CTAs) dispatched round-robin over the SMs up to the per-SM
//! residency limit, and on every SM a greedy-then-oldest (GTO) warp scheduler issuing at most one
//! load per cycle, with a seeded memory latency between a warp's loads. A block that consumes
//! the stream adapts it itself (`crate::ot::ot_stimulus` turns it into observation-table
//! transactions).

pub mod accelsim;
mod builtin;
mod kernel;
pub mod opcode;
pub mod pack;
mod schedule;

pub use builtin::{builtin, BUILTIN};
pub(crate) use kernel::load_label;
pub use kernel::{
    load_kernel_file, validate, Affine, ArrayDesc, KernelDesc, LoadDesc, LoadInstance, WarpProgram,
    MAX_BLOCK_THREADS,
};
pub use schedule::{schedule, Schedule, WarpLoad, LATENCY_MAX, LATENCY_MIN};

use std::path::PathBuf;
use thiserror::Error;

/// Why a kernel description was rejected. Every variant names the kernel and the offending
/// field or load, and says what is legal.
#[derive(Debug, Error)]
pub enum WorkloadError {
    #[error("cannot read kernel file {path}: {error}")]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("kernel file {path} is not a valid kernel description: {message}")]
    Toml { path: PathBuf, message: String },
    #[error("kernel `{kernel}`: `{field}` = {value} is out of range: legal values are {legal}")]
    OutOfRange {
        kernel: String,
        field: String,
        value: String,
        legal: String,
    },
    #[error("kernel `{kernel}` has no loads: add at least one `[[loads]]` entry")]
    NoLoads { kernel: String },
    #[error(
        "kernel `{kernel}`: array name `{array}` is declared more than once; array names must \
        be unique"
    )]
    DuplicateArray { kernel: String, array: String },
    #[error(
        "kernel `{kernel}`: {load} and loads[{other}] have the same `pc`; every load \
        instruction needs its own PC"
    )]
    DuplicatePc {
        kernel: String,
        load: String,
        other: usize,
    },
    #[error(
        "kernel `{kernel}`: {load} reads array `{array}`, which is not declared; declared \
        arrays: {available}"
    )]
    UnknownArray {
        kernel: String,
        load: String,
        array: String,
        available: String,
    },
    #[error(
        "kernel `{kernel}`: {load} is irregular but array `{array}` has `len` = 0; irregular \
        loads draw element indices in 0..len, so give the array a `len` of at least 1"
    )]
    IrregularNeedsLen {
        kernel: String,
        load: String,
        array: String,
    },
    #[error("kernel `{kernel}`: {load}: {message}")]
    Inconsistent {
        kernel: String,
        load: String,
        message: String,
    },
    #[error(
        "kernel `{kernel}`: {load} indexes array `{array}` at elements {lo}..={hi}, outside \
        its `len` = {len} elements (legal: 0..{len}); fix the index or raise `len` (0 = \
        unbounded)"
    )]
    IndexOutOfBounds {
        kernel: String,
        load: String,
        array: String,
        lo: i128,
        hi: i128,
        len: u64,
    },
    #[error(
        "kernel `{kernel}`: {load} on array `{array}` reaches byte addresses {lo}..={hi}; \
        every address must lie in 0..2^64 (check `base` and the index coefficients)"
    )]
    AddressOutOfRange {
        kernel: String,
        load: String,
        array: String,
        lo: i128,
        hi: i128,
    },
    #[error(
        "kernel `{kernel}` does not fit the observation table: {what} is {value}, but `{key}` \
        = {setting} allows {legal}"
    )]
    Limit {
        kernel: String,
        what: String,
        value: String,
        key: &'static str,
        setting: u32,
        legal: String,
    },
}

#[cfg(test)]
pub(crate) mod tests;
