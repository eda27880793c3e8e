//! The observation-table (OT) address predictor of seed 000.

mod coverage;
mod kernel;
mod model;
pub mod random;
mod source;
mod txn;

pub use coverage::{Coverage, LoadFigures, OtFigures, OtRun};
pub use kernel::{check_ot_fit, ot_stimulus};
pub use source::{run_golden, Source, Stimulus, FORMS};

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
    match txn {
        OtTxn::Launch { .. } => json!({"op": "launch"}),
        OtTxn::Predict { .. } => json!({
            "op": "predict",
            "hit": out.pred_hit,
            "addrs": out.pred_addrs[..out.pred_count as usize].to_vec(),
        }),
        OtTxn::Observe { .. } => json!({
            "op": "observe",
            "event": out.upd_event.name(),
            "slot": out.upd_slot,
            "evicted": out.upd_evict,
            "ready": out.upd_ready,
        }),
    }
}

/// The valid entries of the table as JSON, in slot order.
pub fn dump_state(model: &OtModel) -> Value {
    let dims = model.spec().grid_dims as usize;
    let entries: Vec<Value> = model
        .entries()
        .iter()
        .enumerate()
        .filter(|(_, e)| e.valid)
        .map(|(slot, e)| {
            let stride: Vec<Value> = (0..dims)
                .map(|d| {
                    if e.stride_known[d] {
                        json!(e.stride[d])
                    } else {
                        Value::Null
                    }
                })
                .collect();
            json!({
                "slot": slot,
                "pc": e.pc,
                "lec": e.lec,
                "tb": e.tb[..dims].to_vec(),
                "warp": e.warp,
                "addrs": e.addrs[..e.naddrs as usize].to_vec(),
                "stride": stride,
                "inter_warp_stride": if e.iws_known { json!(e.iws) } else { Value::Null },
                "mispredicts": e.mispredicts,
                "ready": model.ready(e),
            })
        })
        .collect();
    Value::Array(entries)
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
