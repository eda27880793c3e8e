//! The CUDA SDK samples of AccelWattch's validation set (NVIDIA/cuda-samples v11.5,
//! `Samples/<name>/`), each with its own host code's launch sequence, sizes and input
//! generation (the samples' `srand`/`rand` are glibc's, reproduced by [`CRand`]), at a
//! default size small enough to emulate in seconds (each argument's meaning says the sample's).

use super::super::{App, Args, Launch, Param, SuiteError, Workload};
use super::crand::CRand;
use super::{fault, Listing};
use crate::suite::mem::DeviceMemory;
use crate::suite::sass::KernelCode;
use std::collections::VecDeque;
use std::sync::Arc;

const SUITE: &str = "CUDA SDK 11 samples";

pub(super) static HISTOGRAM64_SASS: Listing = Listing::new(
    "histogram64.sass",
    include_str!("../../../../sass/histogram64.sass"),
);
pub(super) static HISTOGRAM256_SASS: Listing = Listing::new(
    "histogram256.sass",
    include_str!("../../../../sass/histogram256.sass"),
);
pub(super) static FASTWALSHTRANSFORM_SASS: Listing = Listing::new(
    "fastwalshtransform.sass",
    include_str!("../../../../sass/fastwalshtransform.sass"),
);
pub(super) static MERGESORT_SASS: Listing = Listing::new(
    "mergesort.sass",
    include_str!("../../../../sass/mergesort.sass"),
);
pub(super) static SOBOLQRNG_SASS: Listing = Listing::new(
    "sobolqrng.sass",
    include_str!("../../../../sass/sobolqrng.sass"),
);
pub(super) static SCALARPROD_SASS: Listing = Listing::new(
    "scalarprod.sass",
    include_str!("../../../../sass/scalarprod.sass"),
);
pub(super) static CONVOLUTIONSEPARABLE_SASS: Listing = Listing::new(
    "convolutionseparable.sass",
    include_str!("../../../../sass/convolutionseparable.sass"),
);
pub(super) static QUASIRANDOMGENERATOR_SASS: Listing = Listing::new(
    "quasirandomgenerator.sass",
    include_str!("../../../../sass/quasirandomgenerator.sass"),
);
pub(super) static BLACKSCHOLES_SASS: Listing = Listing::new(
    "blackscholes.sass",
    include_str!("../../../../sass/blackscholes.sass"),
);
pub(super) static DCT8X8_SASS: Listing =
    Listing::new("dct8x8.sass", include_str!("../../../../sass/dct8x8.sass"));
pub(super) static BINOMIALOPTIONS_SASS: Listing = Listing::new(
    "binomialoptions.sass",
    include_str!("../../../../sass/binomialoptions.sass"),
);

// ---- the host side shared by the samples ---------------------------------------------------

/// A check of the device memory, run when the host program reaches it.
pub(super) type Check = Box<dyn Fn(&DeviceMemory) -> Result<(), String>>;

/// A host action between launches (a device-to-device copy).
pub(super) type HostOp = Box<dyn FnOnce(&mut DeviceMemory) -> Result<(), String>>;

/// One step of a host program.
pub(super) enum Step {
    Launch(Launch),
    /// Copy results back and compare them with the host's (as the sample does between its
    /// phases, before the next phase overwrites them).
    Check(Check),
    Host(HostOp),
}

/// Sets up the device memory (allocations and input copies): the steps that follow.
pub(super) type Setup = Box<dyn FnOnce(&mut DeviceMemory) -> Result<Vec<Step>, String>>;

/// A host program whose launches do not depend on earlier results: its steps in order, each
/// check run when reached (its failure kept for [`App::verify`]).
pub(super) struct Staged {
    setup: Option<Setup>,
    steps: VecDeque<Step>,
    failure: Option<String>,
}

impl Staged {
    pub(super) fn boxed(setup: Setup) -> Box<dyn App> {
        Box::new(Staged {
            setup: Some(setup),
            steps: VecDeque::new(),
            failure: None,
        })
    }
}

impl App for Staged {
    fn next(&mut self, mem: &mut DeviceMemory) -> Result<Option<Launch>, String> {
        if let Some(setup) = self.setup.take() {
            self.steps = setup(mem)?.into();
        }
        while let Some(step) = self.steps.pop_front() {
            match step {
                Step::Launch(l) => return Ok(Some(l)),
                Step::Host(op) => op(mem)?,
                Step::Check(c) => {
                    if self.failure.is_none() {
                        self.failure = c(mem).err();
                    }
                }
            }
        }
        Ok(None)
    }

    fn verify(&self, _mem: &DeviceMemory) -> Result<(), String> {
        if !self.steps.is_empty() || self.setup.is_some() {
            return Err("the host program did not run to its end".into());
        }
        self.failure.clone().map_or(Ok(()), Err)
    }
}

pub(super) fn launch(
    kernel: &Arc<KernelCode>,
    grid: [u32; 3],
    block: [u32; 3],
    dyn_shared: u32,
    params: Vec<Param>,
) -> Step {
    Step::Launch(Launch {
        kernel: Arc::clone(kernel),
        grid,
        block,
        dyn_shared,
        params,
    })
}

/// Compare integer results `got` with the host's `want`, naming the first that differs.
fn compare_exact<T: PartialEq + std::fmt::Display>(
    what: &str,
    got: &[T],
    want: &[T],
) -> Result<(), String> {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if g != w {
            return Err(format!("{what}[{i}] = {g}, the host computes {w}"));
        }
    }
    Ok(())
}

/// The samples' error norm of `got` against the host's `want`: `(sum |got - want|^p / sum
/// |want|^p)^(1/p)` (p = 1: the L1 norm most samples print; p = 2: the L2 norm).
fn norm(got: &[f32], want: &[f64], p: i32) -> f64 {
    let (mut delta, mut sum) = (0.0, 0.0);
    for (g, w) in got.iter().zip(want) {
        delta += (f64::from(*g) - w).abs().powi(p);
        sum += w.abs().powi(p);
    }
    (delta / sum).powf(1.0 / f64::from(p))
}

/// Refuse `got` unless its `p`-norm error against `want` is below `limit` (the sample's
/// criterion).
fn within(what: &str, got: &[f32], want: &[f64], p: i32, limit: f64) -> Result<(), String> {
    let e = norm(got, want, p);
    if e < limit && got.len() == want.len() {
        return Ok(());
    }
    Err(format!(
        "{what}: L{p} error {e:e} against the host's computation (the sample accepts < {limit:e})"
    ))
}

mod binomialoptions;
mod blackscholes;
mod convolutionseparable;
mod dct8x8;
mod fastwalshtransform;
mod histogram;
mod mergesort;
mod quasirandomgenerator;
mod scalarprod;
mod sobolqrng;
pub(super) use binomialoptions::*;
pub(super) use blackscholes::*;
pub(super) use convolutionseparable::*;
pub(super) use dct8x8::*;
pub(super) use fastwalshtransform::*;
pub(super) use histogram::*;
pub(super) use mergesort::*;
pub(super) use quasirandomgenerator::*;
pub(super) use scalarprod::*;
pub(super) use sobolqrng::*;
