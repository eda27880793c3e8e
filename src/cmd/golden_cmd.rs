//! `golden`: run a stimulus through a block's golden model (the registry's golden run).

use crate::args::{Format, GoldenArgs};
use crate::{bad, CliResult};
use golden::run::{GoldenError, GoldenRun};
use std::process::ExitCode;

pub fn run(a: &GoldenArgs) -> CliResult<ExitCode> {
    let (block, golden) = sim::blocks::find_golden(&a.block).map_err(bad)?;
    let opts = a.block_args.for_golden(block, golden.name)?;
    let (spec, ()) = a.config.resolve_with(|_| match opts.get("command-trace") {
        Some(t) => crate::out::check_file(std::path::Path::new(t), "--command-trace"),
        None => Ok(()),
    })?;
    let bar = sim::progress::cycles(super::show_progress(), u64::MAX);
    let progress = |done: u64, _: u64| bar.set_position(done);
    let mut out = crate::out::Stdout::new();
    let origin = crate::origin();
    let r = (golden.run)(
        &spec,
        &GoldenRun {
            stimulus: a.stimulus.as_deref(),
            cycles: a.cycles,
            seed: a.seed,
            json: a.format == Format::Json,
            opts: &opts,
            progress: Some(&progress),
            origin: &origin,
        },
        &mut out,
    );
    bar.finish_and_clear();
    match r {
        Ok(()) => {}
        Err(GoldenError::Io(e)) if out.failed => return Err(crate::out::stdout_failed(e)),
        Err(GoldenError::BadInput(e)) => return Err(bad(e)),
        Err(e) => return Err(e.into()),
    }
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}
