//! Thread-block dispatcher parameters (seed 002, seed 003).

use super::keys::check_int;
use super::{clog2, Dir, PortSpec, SpecError, SvWidth};
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
    pub arrays: u32,
    pub coord_bits: u32,
    pub id_bits: u32,
    pub scored_per_cycle: u32,
    pub region_bits: u32,
    pub subregion_bits: u32,
}

/// Validated dispatcher parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DispatchSpec {
    pub policy: DispatchPolicy,
    /// Block-queue entries: the candidates the locality-aware policy scores.
    pub queue_entries: u32,
    /// Base running time of a block in the completion model.
    pub block_cycles: u32,
    /// Data arrays per kernel (rectangles per block-queue entry).
    pub arrays: u32,
    /// Width of a rectangle coordinate or extent, in cache lines.
    pub coord_bits: u32,
    /// Width of a block id.
    pub id_bits: u32,
    /// Queue entries the decision unit scores per cycle.
    pub scored_per_cycle: u32,
    /// Warp level (seed 002 §3.4): region index bits and sub-regions per region.
    pub region_bits: u32,
    pub subregion_bits: u32,
    /// SMs and block slots per SM (`gpu.sms`, `gpu.ctas_per_sm`).
    pub sms: u32,
    pub slots: u32,
    // ---- derived ----
    pub sm_bits: u32,
    pub slot_bits: u32,
    /// Width of a queue index.
    pub qidx_bits: u32,
    /// Cycles a decision scans: ceil(queue_entries / scored_per_cycle).
    pub scan_cycles: u32,
    /// Width of a score against one SM's running blocks, and against all other SMs'.
    pub here_bits: u32,
    pub else_bits: u32,
}

impl DispatchSpec {
    pub fn new(d: &DispatchConfig, sms: u32, slots: u32) -> Result<DispatchSpec, SpecError> {
        let queue_entries = check_int("dispatch.queue_entries", d.queue_entries.into())? as u32;
        let scored = check_int("dispatch.scored_per_cycle", d.scored_per_cycle.into())? as u32;
        if scored > queue_entries {
            return Err(SpecError::Inconsistent {
                message: format!(
                    "`dispatch.scored_per_cycle` = {scored} exceeds `dispatch.queue_entries` = {queue_entries}"
                ),
            });
        }
        let arrays = check_int("dispatch.arrays", d.arrays.into())? as u32;
        let coord_bits = check_int("dispatch.coord_bits", d.coord_bits.into())? as u32;
        // One overlap is at most 2^(2W); sums over slots x arrays, and over all SMs.
        let area = 2 * coord_bits;
        let here_bits = area + clog2(u64::from(slots) * u64::from(arrays));
        let else_bits = area + clog2(u64::from(sms) * u64::from(slots) * u64::from(arrays));
        Ok(DispatchSpec {
            policy: d.policy,
            queue_entries,
            block_cycles: check_int("dispatch.block_cycles", d.block_cycles.into())? as u32,
            arrays,
            coord_bits,
            id_bits: check_int("dispatch.id_bits", d.id_bits.into())? as u32,
            scored_per_cycle: scored,
            region_bits: check_int("dispatch.region_bits", d.region_bits.into())? as u32,
            subregion_bits: check_int("dispatch.subregion_bits", d.subregion_bits.into())? as u32,
            sms,
            slots,
            sm_bits: clog2(sms.into()).max(1),
            slot_bits: clog2(slots.into()).max(1),
            qidx_bits: clog2(queue_entries.into()).max(1),
            scan_cycles: queue_entries.div_ceil(scored),
            here_bits,
            else_bits,
        })
    }

    /// The same parameters for another GPU size (`--sms`, `--slots`).
    pub fn resized(&self, sms: u32, slots: u32) -> Result<DispatchSpec, SpecError> {
        for (key, v) in [("gpu.sms", sms), ("gpu.ctas_per_sm", slots)] {
            check_int(key, v.into())?;
        }
        DispatchSpec::new(
            &DispatchConfig {
                policy: self.policy,
                queue_entries: self.queue_entries,
                block_cycles: self.block_cycles,
                arrays: self.arrays,
                coord_bits: self.coord_bits,
                id_bits: self.id_bits,
                scored_per_cycle: self.scored_per_cycle,
                region_bits: self.region_bits,
                subregion_bits: self.subregion_bits,
            },
            sms,
            slots,
        )
    }

    /// The decision unit's ports (per-array ports are packed arrays of `arrays` elements).
    pub fn ports(&self) -> Vec<PortSpec> {
        use Dir::{In, Out};
        let a = self.arrays;
        let p = |name, dir, elems, elem_bits, sv_elems, sv_bits, meaning| PortSpec {
            name,
            dir,
            elems,
            elem_bits,
            sv_elems,
            sv_bits,
            meaning,
        };
        let arr = Some("NumArrays");
        let coord = SvWidth::Param("CoordW");
        vec![
            p(
                "enq_valid_i",
                In,
                1,
                1,
                None,
                SvWidth::Bit,
                "a thread block enters the block queue",
            ),
            p(
                "enq_id_i",
                In,
                1,
                self.id_bits,
                None,
                SvWidth::Param("IdW"),
                "its block id",
            ),
            p(
                "enq_has_i",
                In,
                a,
                1,
                arr,
                SvWidth::Bit,
                "per array: the block reads it (its rectangle is valid)",
            ),
            p(
                "enq_x_i",
                In,
                a,
                self.coord_bits,
                arr,
                coord,
                "per array: first line column",
            ),
            p(
                "enq_y_i",
                In,
                a,
                self.coord_bits,
                arr,
                coord,
                "per array: first row",
            ),
            p(
                "enq_w_i",
                In,
                a,
                self.coord_bits,
                arr,
                coord,
                "per array: width in lines",
            ),
            p(
                "enq_h_i",
                In,
                a,
                self.coord_bits,
                arr,
                coord,
                "per array: height in rows",
            ),
            p(
                "done_valid_i",
                In,
                1,
                1,
                None,
                SvWidth::Bit,
                "a running block finished",
            ),
            p(
                "done_sm_i",
                In,
                1,
                self.sm_bits,
                None,
                SvWidth::Param("SmW"),
                "its SM",
            ),
            p(
                "done_slot_i",
                In,
                1,
                self.slot_bits,
                None,
                SvWidth::Param("SlotW"),
                "its slot",
            ),
            p(
                "disp_ready_i",
                In,
                1,
                1,
                None,
                SvWidth::Bit,
                "the SM takes the offered block at this edge",
            ),
            p(
                "enq_ready_o",
                Out,
                1,
                1,
                None,
                SvWidth::Bit,
                "the block queue has room",
            ),
            p(
                "disp_valid_o",
                Out,
                1,
                1,
                None,
                SvWidth::Bit,
                "a dispatch decision is offered",
            ),
            p(
                "disp_id_o",
                Out,
                1,
                self.id_bits,
                None,
                SvWidth::Param("IdW"),
                "the block to dispatch",
            ),
            p(
                "disp_sm_o",
                Out,
                1,
                self.sm_bits,
                None,
                SvWidth::Param("SmW"),
                "to this SM",
            ),
            p(
                "disp_slot_o",
                Out,
                1,
                self.slot_bits,
                None,
                SvWidth::Param("SlotW"),
                "into this free slot",
            ),
        ]
    }
}
