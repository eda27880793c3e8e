//! What users set: the serde configuration types.
//!
//! Every field is documented in [`super::keys::KEYS`] (type, legal range, meaning); the
//! defaults are the values of the default preset (`fermi-gtx480`), defined once in
//! `golden/presets/`. Nothing here is derived: derivation happens once, in [`super::Spec`].

use serde::{Deserialize, Serialize};

/// The complete user configuration. Presets give every key; files and `--set` override keys.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserConfig {
    pub gpu: GpuConfig,
    pub ot: OtConfig,
    pub dram: super::mc::DramConfig,
    pub mc: super::mc::McConfig,
    pub warped_mc: super::mc::WarpedMcConfig,
    pub dispatch: super::dispatch::DispatchConfig,
}

/// The GPU around the blocks: what the workload module and the full-system model need.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuConfig {
    pub sms: u32,
    pub warps_per_sm: u32,
    pub ctas_per_sm: u32,
    pub warp_size: u32,
    pub line_bytes: u32,
}

/// Replacement policy of a set-associative table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Replacement {
    /// True LRU, kept as a per-way age (rank) counter.
    Lru,
    /// Tree pseudo-LRU, ways - 1 bits per set.
    Plru,
}

impl Replacement {
    pub const NAMES: &'static [&'static str] = &["lru", "plru"];
    pub fn name(self) -> &'static str {
        match self {
            Replacement::Lru => "lru",
            Replacement::Plru => "plru",
        }
    }
}

/// The observation-table (OT) address predictor of seed 000.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OtConfig {
    pub entries: u32,
    pub ways: u32,
    pub replacement: Replacement,
    pub addrs_per_entry: u32,
    pub mispredict_threshold: u32,
    pub grid_dims: u32,
    pub pc_bits: u32,
    pub lec_bits: u32,
    pub tb_bits: u32,
    pub warp_bits: u32,
    pub addr_bits: u32,
    pub stride_bits: u32,
    pub counter_bits: u32,
}
