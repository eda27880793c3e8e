//! What `warpsmith golden --block ot` prints, a JSON line each: the provenance, the response
//! to every transaction, and with `--dump-state` the final table; the types the lines are
//! written from and their schema generated from (`warpsmith schema golden-ot`).

use super::model::{OtModel, OtOut};
use super::txn::OtTxn;
use crate::report::{words_schema, Provenance};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Serialize;
use spec::OtEvent;

/// The schema of the output's lines, name and version.
pub const SCHEMA: &str = "warpsmith-golden-ot/1";

/// A line of the output.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Line {
    /// The first line: where the run comes from.
    Provenance(Provenance),
    /// The response to one transaction, in the stimulus's order.
    Response(Response),
    /// With `--dump-state`, the last line: the table's valid entries in slot order.
    Table(Vec<TableEntry>),
}

/// The response to one transaction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Response {
    /// A launch sets the grid and answers nothing.
    Launch,
    /// A prediction query.
    Predict {
        /// An entry predicted the warp's addresses.
        hit: bool,
        /// The predicted addresses (empty on a miss).
        addrs: Vec<u64>,
    },
    /// An observation: what it did to the table.
    Observe {
        #[schemars(schema_with = "event_schema")]
        event: &'static str,
        /// The entry it allocated or updated.
        slot: u32,
        /// It evicted a valid entry.
        evicted: bool,
        /// The entry has every stride the launched grid needs.
        ready: bool,
    },
}

fn event_schema(_: &mut SchemaGenerator) -> Schema {
    words_schema("What the observation did to the table", OtEvent::MEMBERS)
}

/// A valid entry of the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct TableEntry {
    pub slot: u64,
    /// The load's PC and its load execution count.
    pub pc: u64,
    pub lec: u32,
    /// The reference thread block's coordinates (one per grid dimension) and warp.
    pub tb: Vec<u32>,
    pub warp: u32,
    /// The reference warp's addresses.
    pub addrs: Vec<u64>,
    /// The stride per grid dimension; null: not learned.
    pub stride: Vec<Option<i64>>,
    /// The inter-warp stride; null: not learned.
    pub inter_warp_stride: Option<i64>,
    pub mispredicts: u32,
    /// The entry has every stride the launched grid needs.
    pub ready: bool,
}

impl Response {
    /// The response to `txn`, from the cycle's outputs `out`.
    pub fn of(txn: &OtTxn, out: &OtOut) -> Response {
        match txn {
            OtTxn::Launch { .. } => Response::Launch,
            OtTxn::Predict { .. } => Response::Predict {
                hit: out.pred_hit,
                addrs: out.pred_addrs[..out.pred_count as usize].to_vec(),
            },
            OtTxn::Observe { .. } => Response::Observe {
                event: out.upd_event.name(),
                slot: out.upd_slot,
                evicted: out.upd_evict,
                ready: out.upd_ready,
            },
        }
    }
}

/// The valid entries of the table, in slot order.
pub fn table(model: &OtModel) -> Vec<TableEntry> {
    let dims = model.spec().grid_dims as usize;
    model
        .entries()
        .iter()
        .zip(0u64..)
        .filter(|(e, _)| e.valid)
        .map(|(e, slot)| TableEntry {
            slot,
            pc: e.pc,
            lec: e.lec,
            tb: e.tb[..dims].to_vec(),
            warp: e.warp,
            addrs: e.addrs[..e.naddrs as usize].to_vec(),
            stride: (0..dims)
                .map(|d| e.stride_known[d].then_some(e.stride[d]))
                .collect(),
            inter_warp_stride: e.iws_known.then_some(e.iws),
            mispredicts: e.mispredicts,
            ready: model.ready(e),
        })
        .collect()
}
