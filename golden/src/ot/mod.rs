//! The observation-table (OT) address predictor of seed 000.

mod coverage;
mod kernel;
mod model;
pub mod output;
pub mod random;
mod source;
mod txn;

pub use coverage::{Coverage, LoadFigures, OtFigures, OtRun};
pub use kernel::{check_ot_fit, ot_stimulus};
pub use source::{run_golden, Source, Stimulus, FORMS};

pub use output::{Line, Response, TableEntry};

pub use model::{
    Entry, Launch, Observe, OtBlock, OtCodec, OtIn, OtModel, OtOut, Query, MAX_ADDRS, MAX_DIMS,
};
pub use txn::{
    launch_of, parse, tb_of, to_jsonl, validate, CycleOps, GpuTxn, GpuTxnPacker, OtTxn, Packer,
    StimulusError, Tb,
};

use crate::block::{CycleModel, IllegalInput};
use serde_json::{json, Value};

/// What an OT run checks, as [`crate::run::nothing_checked`] names it.
pub const CHECKED: &str = "prediction query or observation";

/// The one rule of what makes an OT run count: a transaction whose outputs the run compares,
/// a prediction query (its hit and addresses) or an observation (the table's update: its event,
/// slot, eviction and readiness; a mutant of the update logic is caught on observations
/// alone). Launches set the grid and answer nothing. A stimulus without one is refused and a
/// run without one checked nothing, in `golden` and `cosim` alike.
pub fn checks(t: &OtTxn) -> bool {
    t.is_predict() || t.is_observe()
}

/// The response to one transaction, as `warpsmith golden` prints it.
pub fn response_json(txn: &OtTxn, out: &OtOut) -> Value {
    json!(Response::of(txn, out))
}

/// The valid entries of the table as JSON, in slot order.
pub fn dump_state(model: &OtModel) -> Value {
    json!(output::table(model))
}

/// Run a whole stimulus through a fresh model; returns one response per transaction.
pub fn run(
    model: &mut OtModel,
    txns: &[OtTxn],
    warp_size: u32,
) -> Result<Vec<Value>, (usize, IllegalInput)> {
    model.reset();
    let mut responses = vec![Value::Null; txns.len()];
    for c in Packer::new(txns.iter().cloned()) {
        let first = c.txns().next().map(|(i, _)| *i).unwrap_or(0);
        let inp = c.input(warp_size).map_err(|e| (first, e))?;
        let out = *model.step(&inp).map_err(|e| (first, e))?;
        for (i, t) in c.txns() {
            responses[*i] = response_json(t, &out);
        }
    }
    Ok(responses)
}

#[cfg(test)]
mod tests;
