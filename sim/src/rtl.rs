//! A block's RTL for a spec, with a mutant applied if asked, and its Verilated model.

use crate::block::BlockInfo;
use crate::build::{build, BuildRequest, BuiltModel};
use crate::model::Model;
use crate::mutants::Mutant;
use crate::toolchain::Verilator;
use crate::{CosimError, SimError};
use spec::Spec;

/// The RTL files of a block (top module, (name, contents)), with a mutant applied if asked.
pub fn block_rtl(
    spec: &Spec,
    block: &BlockInfo,
    mutant: Option<&Mutant>,
) -> Result<(String, Vec<(String, String)>), CosimError> {
    let g = block
        .generate(spec, "")
        .map_err(|e| CosimError::Sim(SimError::Build(e.to_string())))?;
    let files = g.rtl();
    let files = match mutant {
        Some(m) => crate::mutants::apply(m, &files)?,
        None => files,
    };
    Ok((g.top, files))
}

/// Build (or fetch from the cache) a block's Verilated model and load it.
pub fn block_model(
    spec: &Spec,
    block: &BlockInfo,
    mutant: Option<&Mutant>,
    trace: bool,
) -> Result<(BuiltModel, Model), CosimError> {
    let v = Verilator::find()?;
    let (top, files) = block_rtl(spec, block, mutant)?;
    let ports = block.ports(spec);
    let built = build(
        &v,
        &BuildRequest {
            files: &files,
            top: &top,
            ports: &ports,
            trace,
        },
    )?;
    let model = Model::load(&built, &ports)?;
    Ok((built, model))
}
