//! `trace`: a workload of the library written as an Accel-Sim trace.

use crate::args::TraceArgs;
use crate::{bad, CliResult};
use std::process::ExitCode;

pub fn run(a: &TraceArgs) -> CliResult<ExitCode> {
    // The workload and its arguments first, then the folder, before anything is written.
    golden::suite::make(&a.workload, a.seed).map_err(bad)?;
    crate::out::check_claim(&a.out, &["kernelslist.g"], "--out")?;
    let mut open = |name: &str| -> std::io::Result<Box<dyn std::io::Write>> {
        spec::output::claim(&a.out, &[name])?;
        Ok(Box::new(spec::output::create(&a.out.join(name))?))
    };
    let written = golden::suite::trace::write_trace(&a.workload, a.seed, &mut open);
    let n = match written {
        Ok(n) => n,
        Err(e @ golden::suite::SuiteError::Io { .. }) => {
            return Err(bad(anyhow::Error::new(e).context("--out")))
        }
        Err(e) if !e.is_internal() => return Err(bad(e)),
        Err(e) => return Err(anyhow::Error::new(e).context("the workload failed").into()),
    };
    outln!(
        "{}: {} kernel(s), {} blocks, {} warp instructions -> {}",
        a.workload,
        n.kernels,
        n.blocks,
        n.instructions,
        a.out.join("kernelslist.g").display()
    )?;
    Ok(ExitCode::SUCCESS)
}
