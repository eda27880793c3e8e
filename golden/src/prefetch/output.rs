//! What `warpsmith golden --block mt-hwp` prints, a JSON line each: the provenance, every
//! finished lookup and every throttle update; the types the lines are written from and their
//! schema generated from (`warpsmith schema golden-mt-hwp`).

use super::model::PfOut;
use crate::report::{words_schema, Provenance};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Serialize;
use spec::{PfSource, PrefetchSpec};

/// The schema of the output's lines, name and version.
pub const SCHEMA: &str = "warpsmith-golden-mt-hwp/1";

/// A line of the output.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Line {
    /// The first line: where the run comes from.
    Provenance(Provenance),
    Lookup(Lookup),
    Throttle(Throttle),
}

/// A finished lookup: which table trained the prediction and what it prefetches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Lookup {
    /// The cycle after the one the lookup finished in.
    pub cycle: u64,
    #[schemars(schema_with = "source_schema")]
    pub src: &'static str,
    /// The throttle dropped the prediction's prefetches.
    pub drop: bool,
    /// The prefetch addresses issued.
    pub prefetch: Vec<u64>,
    /// The PWS table promoted the PC's stride to the GS table.
    pub promote: bool,
}

fn source_schema(_: &mut SchemaGenerator) -> Schema {
    words_schema("The table the prediction came from", PfSource::MEMBERS)
}

/// A throttle update, at the end of a period.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Throttle {
    pub cycle: u64,
    /// The throttle degree from now on: of every five predictions the first this many are
    /// dropped (0: none).
    pub throttle_degree: u32,
    /// The period's merge ratio (Table I), from the engine's fixed-point register.
    pub merge_ratio: f64,
}

impl Lookup {
    /// The lookup that `out` finishes, in cycle `cycle`.
    pub fn of(out: &PfOut, cycle: u64) -> Lookup {
        Lookup {
            cycle,
            src: out.src.name(),
            drop: out.drop,
            prefetch: out.prefetches().to_vec(),
            promote: out.promote,
        }
    }
}

impl Throttle {
    /// The update `out` makes, in cycle `cycle`, under `spec`'s fixed-point merge ratio.
    pub fn of(out: &PfOut, cycle: u64, spec: &PrefetchSpec) -> Throttle {
        Throttle {
            cycle,
            throttle_degree: out.degree,
            merge_ratio: out.merge as f64 / f64::from(1u32 << spec.merge_frac_bits),
        }
    }
}
