//! Hardware storage cost, derived from the same [`Spec`] the RTL is generated from.
//!
//! Storage is what the papers count: the tables. The generated block also has a few registers
//! that are not table storage (the latched grid shape, the registered outputs); they are listed
//! separately so that the flip-flop count Yosys reports can be checked against the estimate
//! exactly.
//!
//! One module per block: [`ot_cost`] (seed 000 Table III, with the reconstruction of its
//! breakdown), [`mthwp_cost`] (seed 001 Table VI), [`dispatch_cost`] (seed 002's decision unit)
//! and [`wmc_cost`] (seed 004 Table 3).

mod dispatch;
mod lws;
mod mthwp;
mod ot;
mod wmc;

pub use dispatch::dispatch_cost;
pub use lws::lws_cost;
pub use mthwp::mthwp_cost;
pub use ot::ot_cost;
pub use wmc::wmc_cost;

use serde::Serialize;
use spec::Spec;

/// One field of a table entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldCost {
    pub name: String,
    /// Bits of one instance.
    pub width: u32,
    /// Instances per entry.
    pub count: u32,
    /// `width * count`.
    pub bits: u32,
    pub meaning: String,
}

/// One table of a block.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TableCost {
    pub name: String,
    pub entries: u64,
    pub bits_per_entry: u64,
    pub total_bits: u64,
    pub total_bytes: f64,
    pub fields: Vec<FieldCost>,
}

/// A register that is not table storage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RegisterCost {
    pub name: String,
    pub bits: u64,
    pub meaning: String,
}

/// One line of the comparison with a published figure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ComparisonRow {
    pub field: String,
    pub ours_bits: u32,
    pub paper_bits: u32,
    pub why: String,
}

/// Our estimate next to a published one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub source: String,
    /// What the per-unit figures count ("entry", "controller").
    pub unit: String,
    pub paper_bytes_per_unit: f64,
    pub paper_units: u64,
    pub paper_total_bytes: f64,
    pub ours_bytes_per_unit: f64,
    pub ours_total_bytes: f64,
    pub note: String,
    pub rows: Vec<ComparisonRow>,
}

/// The storage cost of one block.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BlockCost {
    pub block: String,
    pub config: String,
    pub config_hash: String,
    pub tables: Vec<TableCost>,
    /// Table storage, all tables.
    pub storage_bits: u64,
    pub storage_bytes: f64,
    /// Other registers of the generated RTL.
    pub registers: Vec<RegisterCost>,
    /// Every flip-flop bit of the generated RTL (storage + registers).
    pub flip_flop_bits: u64,
    pub comparison: Option<Comparison>,
    /// Storage the paper counts next to this block but that is not part of its generated RTL
    /// (not in `storage_bits` or `flip_flop_bits`).
    pub related: Vec<TableCost>,
}

pub(crate) fn table(name: &str, entries: u64, fields: Vec<FieldCost>) -> TableCost {
    let bits_per_entry: u64 = fields.iter().map(|f| u64::from(f.bits)).sum();
    TableCost {
        name: name.to_string(),
        entries,
        bits_per_entry,
        total_bits: bits_per_entry * entries,
        total_bytes: (bits_per_entry * entries) as f64 / 8.0,
        fields,
    }
}

pub(crate) fn field(name: &str, width: u32, count: u32, meaning: &str) -> FieldCost {
    FieldCost {
        name: name.to_string(),
        width,
        count,
        bits: width * count,
        meaning: meaning.to_string(),
    }
}

/// The cost fields of a spec's entry fields.
pub(crate) fn fields_of(v: Vec<spec::FieldSpec>) -> Vec<FieldCost> {
    v.into_iter()
        .map(|f| field(f.name, f.bits, f.count, f.meaning))
        .collect()
}

pub(crate) fn finish(
    spec: &Spec,
    block: &str,
    tables: Vec<TableCost>,
    registers: Vec<RegisterCost>,
    comparison: Option<Comparison>,
) -> BlockCost {
    let storage_bits: u64 = tables.iter().map(|t| t.total_bits).sum();
    let reg_bits: u64 = registers.iter().map(|r| r.bits).sum();
    BlockCost {
        block: block.to_string(),
        config: spec.name.clone(),
        config_hash: spec.hash.to_string(),
        storage_bits,
        storage_bytes: storage_bits as f64 / 8.0,
        tables,
        registers,
        flip_flop_bits: storage_bits + reg_bits,
        comparison,
        related: Vec::new(),
    }
}

#[cfg(test)]
mod tests;
