//! The applications of the library, one module per suite, and [`ALL`], the list
//! `warpsmith workloads` prints.

mod crand;
mod cuda_samples;
mod microgpusim;
mod parboil;
mod rodinia;
mod ubench;

use super::sass::{parse, KernelCode};
use super::{SuiteError, Workload};
use std::sync::{Arc, OnceLock};

/// A device fault (or another host-side failure) as an [`super::App`] reports it.
fn fault(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// The whitespace-separated words of an input file's `text`, each with its line number (from
/// 1), for the suites' text-file readers.
fn words(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .flat_map(|(i, l)| l.split_whitespace().map(move |w| (i + 1, w)))
}

/// Every workload, in the order `warpsmith workloads` lists them.
pub static ALL: &[Workload] = &[
    microgpusim::VECTORADD,
    microgpusim::MATRIXMUL,
    microgpusim::SIMPLE_MATRIXMUL,
    microgpusim::TRANSPOSE,
    microgpusim::BABELSTREAM,
    rodinia::BACKPROP,
    rodinia::HOTSPOT,
    rodinia::PATHFINDER,
    rodinia::BFS,
    rodinia::SRAD_V1,
    rodinia::KMEANS,
    rodinia::BPLUSTREE,
    parboil::SGEMM,
    parboil::SPMV,
    parboil::STENCIL,
    parboil::HISTO,
    parboil::MRIQ,
    parboil::SAD,
    cuda_samples::HISTOGRAM,
    cuda_samples::FASTWALSHTRANSFORM,
    cuda_samples::MERGESORT,
    cuda_samples::SOBOLQRNG,
    cuda_samples::SCALARPROD,
    cuda_samples::CONVOLUTIONSEPARABLE,
    cuda_samples::QUASIRANDOMGENERATOR,
    cuda_samples::BLACKSCHOLES,
    cuda_samples::BINOMIALOPTIONS,
    cuda_samples::DCT8X8,
    ubench::CHASE,
    ubench::BW,
];

/// A committed listing (`golden/sass/<file>`), parsed at its first use.
pub(crate) struct Listing {
    file: &'static str,
    text: &'static str,
    parsed: OnceLock<Result<Vec<Arc<KernelCode>>, super::sass::SassError>>,
}

impl Listing {
    pub const fn new(file: &'static str, text: &'static str) -> Listing {
        Listing {
            file,
            text,
            parsed: OnceLock::new(),
        }
    }

    /// Its kernels.
    pub fn kernels(&self) -> Result<&[Arc<KernelCode>], SuiteError> {
        self.parsed
            .get_or_init(|| {
                parse(self.file, self.text).map(|l| l.kernels.into_iter().map(Arc::new).collect())
            })
            .as_deref()
            .map_err(|e| SuiteError::Sass(e.clone()))
    }

    /// Its kernel `name` (mangled).
    pub fn kernel(&self, name: &str) -> Result<Arc<KernelCode>, SuiteError> {
        self.kernels()?
            .iter()
            .find(|k| k.name == name)
            .cloned()
            .ok_or_else(|| SuiteError::Host {
                workload: self.file.into(),
                message: format!("the listing has no kernel {name} (run scripts/kernel-sass.sh)"),
            })
    }
}

/// The listings (tests parse every one).
#[cfg(test)]
pub(crate) fn listings() -> Vec<&'static Listing> {
    vec![
        &microgpusim::VECTORADD_SASS,
        &microgpusim::MATRIXMUL_SASS,
        &microgpusim::SIMPLE_MATRIXMUL_SASS,
        &microgpusim::TRANSPOSE_SASS,
        &microgpusim::BABELSTREAM_SASS,
        &rodinia::BACKPROP_SASS,
        &rodinia::HOTSPOT_SASS,
        &rodinia::PATHFINDER_SASS,
        &rodinia::BFS_SASS,
        &rodinia::SRAD_SASS,
        &rodinia::KMEANS_SASS,
        &rodinia::BT_FINDK_SASS,
        &rodinia::BT_FINDRANGEK_SASS,
        &parboil::SGEMM_SASS,
        &parboil::SPMV_SASS,
        &parboil::STENCIL_SASS,
        &parboil::HISTO_SASS,
        &parboil::MRIQ_SASS,
        &parboil::SAD_SASS,
        &cuda_samples::HISTOGRAM64_SASS,
        &cuda_samples::HISTOGRAM256_SASS,
        &cuda_samples::FASTWALSHTRANSFORM_SASS,
        &cuda_samples::MERGESORT_SASS,
        &cuda_samples::SOBOLQRNG_SASS,
        &cuda_samples::SCALARPROD_SASS,
        &cuda_samples::CONVOLUTIONSEPARABLE_SASS,
        &cuda_samples::QUASIRANDOMGENERATOR_SASS,
        &cuda_samples::BLACKSCHOLES_SASS,
        &cuda_samples::BINOMIALOPTIONS_SASS,
        &cuda_samples::DCT8X8_SASS,
        &ubench::CHASE_SASS,
        &ubench::BW_SASS,
    ]
}
