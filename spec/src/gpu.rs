//! The GPU around the blocks: what the workloads and the blocks sized by the GPU need.

use crate::schema::{Legal, Rule};
use crate::section;

section! {
    /// The GPU around the blocks.
    pub struct GpuConfig in "gpu" {
        sms: u32 = Legal::Range { min: 1, max: 256 },
            "streaming multiprocessors (SMs) in the GPU";
        warps_per_sm: u32 = Legal::Range { min: 1, max: 128 },
            "maximum resident warps per SM";
        ctas_per_sm: u32 = Legal::Range { min: 1, max: 64 },
            "maximum resident thread blocks (CTAs) per SM";
        warp_size: u32 = Legal::Pow2 { min: 1, max: 64 },
            "threads per warp";
        line_bytes: u32 = Legal::Pow2 { min: 16, max: 1024 },
            "cache-line (memory request) size in bytes; the coalescer merges a warp's accesses into requests of this size";
    }
}

/// Rules between GPU keys: none.
pub(crate) const RULES: &[Rule] = &[];

/// Validated GPU-level parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuSpec {
    pub sms: u32,
    pub warps_per_sm: u32,
    pub ctas_per_sm: u32,
    pub warp_size: u32,
    pub line_bytes: u32,
    /// log2(line_bytes).
    pub line_bits: u32,
}

impl GpuSpec {
    pub(crate) fn new(g: &GpuConfig) -> GpuSpec {
        GpuSpec {
            sms: g.sms,
            warps_per_sm: g.warps_per_sm,
            ctas_per_sm: g.ctas_per_sm,
            warp_size: g.warp_size,
            line_bytes: g.line_bytes,
            line_bits: g.line_bytes.trailing_zeros(),
        }
    }
}
