//! Seed 002's locality-aware warp scheduler (§3.4): the warp-level keys (a warp's access range
//! as region indices and sub-region bitmaps), the validated spec of one scheduler's hardware
//! (its warp queue, locality degree table and promotion decision) and that unit's interface.
//!
//! Each warp scheduler of an SM has its own unit over its own warp slots (decision LWS-1): a
//! scheduler only ever compares its own warps, so a per-SM table's entries between warps of two
//! schedulers would never be read.

use crate::gpu::GpuSpec;
use crate::port::{Elem, Interface, Param, PortSpec};
use crate::schema::Legal;
use crate::{clog2, section};

section! {
    /// The locality-aware warp scheduler's warp queue (`gpu.scheduler = locality`).
    pub struct LwsConfig in "lws" {
        arrays: u32 = Legal::Range { min: 1, max: 8 },
            "data arrays a warp's access range describes, one region index and one sub-region \
                bitmap each (thesis section 5.2: 16 B per warp, 6 B of region indices and 10 B of \
                sub-region bitmaps, five arrays of 10 + 16 bits)";
        region_bits: u32 = Legal::Range { min: 1, max: 32 },
            "bits of a warp's region index per array: the array's lines are split into \
                2^region_bits regions (thesis: 10)";
        subregion_bits: u32 = Legal::Range { min: 1, max: 64 },
            "sub-regions per region, one bit each in a warp's bitmap (thesis: 16)";
    }
}

/// The validated spec of one warp scheduler's locality unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LwsSpec {
    /// Warp slots of one scheduler: ceil(`gpu.warps_per_sm` / `gpu.schedulers`).
    pub warps: u32,
    /// Units per SM (`gpu.schedulers`).
    pub units: u32,
    pub arrays: u32,
    pub region_bits: u32,
    pub subregion_bits: u32,
    /// The active group's size at most: `gpu.active_warps`, at most `warps`.
    pub max_active: u32,
    /// A warp starves once more than this many blocks were placed after its own: twice
    /// `gpu.ctas_per_sm` (thesis §3.4.2: 2N).
    pub starve_limit: u32,
    // ---- derived ----
    /// Width of a local warp slot.
    pub slot_bits: u32,
    /// Width of a locality degree: log2(arrays * subregion_bits + 1).
    pub deg_bits: u32,
    /// Width of a warp's summed degree with the active group.
    pub score_bits: u32,
    /// Width of a warp's block age (blocks placed since its own, saturating at
    /// `starve_limit + 1`).
    pub age_bits: u32,
}

impl LwsSpec {
    pub(crate) fn new(c: &LwsConfig, gpu: &GpuSpec) -> LwsSpec {
        let warps = gpu.warps_per_sm.div_ceil(gpu.schedulers);
        let max_active = gpu.active_warps.min(warps);
        let deg_max = u64::from(c.arrays) * u64::from(c.subregion_bits);
        let starve_limit = 2 * gpu.ctas_per_sm;
        LwsSpec {
            warps,
            units: gpu.schedulers,
            arrays: c.arrays,
            region_bits: c.region_bits,
            subregion_bits: c.subregion_bits,
            max_active,
            starve_limit,
            slot_bits: clog2(warps.into()).max(1),
            deg_bits: clog2(deg_max + 1),
            score_bits: clog2(u64::from(max_active) * deg_max + 1),
            age_bits: clog2(u64::from(starve_limit) + 2),
        }
    }

    /// Entries of the locality degree table: one per pair of warp slots.
    pub fn pairs(&self) -> u64 {
        u64::from(self.warps) * u64::from(self.warps - 1) / 2
    }

    /// The unit's parameters: the module's and every width derived from them.
    pub fn params(&self) -> Vec<Param> {
        let u = u64::from;
        vec![
            Param::key(
                "num_warps",
                u(self.warps),
                "warp slots of the scheduler: ceil(warps_per_sm / schedulers)",
            ),
            Param::key("num_arrays", u(self.arrays), "data arrays per warp vector"),
            Param::key("region_w", u(self.region_bits), "region index width"),
            Param::key("num_sub", u(self.subregion_bits), "sub-regions per region"),
            Param::key(
                "max_active",
                u(self.max_active),
                "active group size at most: min(active_warps, NumWarps)",
            ),
            Param::key(
                "starve_limit",
                u(self.starve_limit),
                "a warp starves past this many younger blocks: 2 * ctas_per_sm",
            ),
            Param::derived(
                "slot_w",
                u(self.slot_bits),
                "warp slot width: log2(NumWarps), at least 1",
            ),
            Param::derived(
                "deg_w",
                u(self.deg_bits),
                "locality degree width: log2(NumArrays * NumSub + 1)",
            ),
            Param::derived(
                "score_w",
                u(self.score_bits),
                "degree with the active group: log2(MaxActive * NumArrays * NumSub + 1)",
            ),
            Param::derived(
                "age_w",
                u(self.age_bits),
                "block age width: log2(StarveLimit + 2)",
            ),
            Param::derived(
                "num_pairs",
                self.pairs(),
                "degree table entries: NumWarps * (NumWarps - 1) / 2",
            ),
            Param::derived(
                "deg_rows",
                self.pairs().max(1),
                "degree table rows declared: NumPairs, at least 1 (one warp slot has no pair)",
            ),
            Param::derived(
                "num_vec",
                u(self.warps * self.arrays),
                "vector elements in the warp queue: NumWarps * NumArrays",
            ),
        ]
    }

    /// The unit's interface (per-array and per-warp ports are packed arrays).
    pub fn interface(&self) -> Interface {
        let arr = Some("num_arrays");
        let warps = Some("num_warps");
        let bit = Elem::Bit;
        let slot = Elem::Param("slot_w");
        Interface::new(self.params(), Vec::new())
            .input(
                "set_valid_i",
                None,
                bit,
                "a warp's access range is written (it entered the SM)",
            )
            .input("set_slot_i", None, slot, "its warp slot")
            .input(
                "set_first_i",
                None,
                bit,
                "it is the first warp of a newly placed block: every other warp ages",
            )
            .input(
                "set_region_i",
                arr,
                Elem::Param("region_w"),
                "per array: region index",
            )
            .input(
                "set_sub_i",
                arr,
                Elem::Param("num_sub"),
                "per array: sub-regions of that region the warp touches (none: it reads none)",
            )
            .input(
                "ready_i",
                warps,
                bit,
                "per warp slot: its next instruction can issue now",
            )
            .input(
                "long_i",
                warps,
                bit,
                "per warp slot: it waits long (no warp, ended, at a barrier, on a load, or \
                    its vector is not written yet)",
            )
            .output("issue_valid_o", None, bit, "a warp issues this cycle")
            .output("issue_slot_o", None, slot, "the warp slot that issues")
            .output(
                "active_o",
                warps,
                bit,
                "per warp slot: in the active group this cycle",
            )
    }

    /// The unit's ports.
    pub fn ports(&self) -> Vec<PortSpec> {
        self.interface().ports
    }
}
