//! `golden`: run a stimulus through the golden model.

use crate::args::{BlockArg, GoldenArgs};
use crate::{bad, CliResult};
use golden::block::CycleModel;
use golden::ot::{dump_state, response_json, OtModel, Packer};
use sim::ot::{Source, Stimulus};
use std::io::Write;
use std::process::ExitCode;

pub fn run(a: &GoldenArgs) -> CliResult<ExitCode> {
    let spec = a.config.resolve()?;
    match a.block {
        BlockArg::Ot => {}
    }
    let kind: Stimulus = a.stimulus.parse().map_err(bad)?;
    let source = Source::new(&spec, &kind, a.seed).map_err(bad)?;
    let limit = if source.is_finite() {
        u64::MAX
    } else {
        a.cycles
    };
    let mut model = OtModel::new(&spec.ot);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for c in Packer::new(source.iter()).take(usize::try_from(limit).unwrap_or(usize::MAX)) {
        let inp = c.input(spec.gpu.warp_size).map_err(bad)?;
        let o = *model.step(&inp).map_err(bad)?;
        for (_, t) in c.txns() {
            writeln!(out, "{}", response_json(t, &o))?;
        }
    }
    if a.dump_state {
        writeln!(out, "{}", dump_state(&model))?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
