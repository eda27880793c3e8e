//! Thread-block dispatcher parameters (seed 002, seed 003).

use super::keys::check_int;
use super::SpecError;
use serde::{Deserialize, Serialize};

/// How thread blocks are given to SMs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DispatchPolicy {
    /// Oldest waiting block to the next SM with a free slot (what GPUs ship).
    Rr,
    /// Block CTA scheduling: two consecutive blocks at once into an SM with two free slots.
    Bcs,
    /// Seed 002: the waiting block sharing the most lines with the SM's running blocks.
    Locality,
    /// Seed 003's balanced mapping along x.
    MapX,
    /// Seed 003's balanced mapping along y.
    MapY,
    /// Seed 003: the direction Algorithm 1 picks (round-robin without reuse).
    MapAuto,
}

impl DispatchPolicy {
    pub const NAMES: &'static [&'static str] =
        &["rr", "bcs", "locality", "map-x", "map-y", "map-auto"];
    pub fn name(self) -> &'static str {
        match self {
            DispatchPolicy::Rr => "rr",
            DispatchPolicy::Bcs => "bcs",
            DispatchPolicy::Locality => "locality",
            DispatchPolicy::MapX => "map-x",
            DispatchPolicy::MapY => "map-y",
            DispatchPolicy::MapAuto => "map-auto",
        }
    }
}

/// What users set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DispatchConfig {
    pub policy: DispatchPolicy,
    pub queue_entries: u32,
    pub block_cycles: u32,
}

/// Validated dispatcher parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DispatchSpec {
    pub policy: DispatchPolicy,
    /// Block-queue entries: the candidates the locality-aware policy scores.
    pub queue_entries: u32,
    /// Base running time of a block in the completion model.
    pub block_cycles: u32,
}

impl DispatchSpec {
    pub fn new(d: &DispatchConfig) -> Result<DispatchSpec, SpecError> {
        Ok(DispatchSpec {
            policy: d.policy,
            queue_entries: check_int("dispatch.queue_entries", d.queue_entries.into())? as u32,
            block_cycles: check_int("dispatch.block_cycles", d.block_cycles.into())? as u32,
        })
    }
}
