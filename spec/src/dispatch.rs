//! Thread-block dispatcher parameters (seed 002, seed 003): keys, rules, the validated spec and
//! the decision unit's interface.

use crate::gpu::GpuSpec;
use crate::port::{Elem, Interface, Param, PortSpec};
use crate::schema::{Legal, Rule};
use crate::{clog2, section, word_enum, UserConfig};

word_enum! {
    /// How thread blocks are given to SMs.
    pub enum DispatchPolicy {
        /// Oldest waiting block to the next SM with a free slot (what GPUs ship).
        Rr = "rr",
        /// Block CTA scheduling: two consecutive blocks at once into an SM with two free slots.
        Bcs = "bcs",
        /// Seed 002: the waiting block sharing the most lines with the SM's running blocks.
        Locality = "locality",
        /// Seed 003's balanced mapping along x.
        MapX = "map-x",
        /// Seed 003's balanced mapping along y.
        MapY = "map-y",
        /// Seed 003: the direction Algorithm 1 picks (round-robin without reuse).
        MapAuto = "map-auto",
    }
}

section! {
    /// The thread-block dispatcher.
    pub struct DispatchConfig in "dispatch" {
        policy: DispatchPolicy = Legal::OneOf(DispatchPolicy::NAMES),
            "thread-block dispatch: rr (round-robin), bcs (two consecutive blocks per SM), \
                locality (seed 002), map-x / map-y / map-auto (seed 003 CTA mapping)";
        blocks_per_cycle: u32 = Legal::Range { min: 1, max: 65536 },
            "SMs the queue policies (rr, bcs, map-*) give a block (bcs: two) in one core cycle, \
                each SM at most one: 1 is one dispatch decision a cycle, as seed 002's hardware \
                makes; GPGPU-Sim's issue_block2core serves each of its -gpgpu_n_clusters clusters \
                every cycle. The locality unit ignores it: it decides one block per 2 + \
                ceil(queue_entries / scored_per_cycle) cycles (decisions GPU-35, DSP-3)";
        queue_entries: u32 = Legal::Range { min: 1, max: 1024 },
            "block-queue entries: the waiting blocks the locality-aware dispatcher scores";
        block_cycles: u32 = Legal::Range { min: 1, max: 100_000_000 },
            "base running time of a thread block in the dispatch model (plus up to 25% seeded \
                spread)";
        arrays: u32 = Legal::Range { min: 1, max: 8 },
            "data arrays per kernel: rectangles per block-queue entry (thesis Table 5.2: 3 x 4 B \
                + a 3 B id = 15 B)";
        coord_bits: u32 = Legal::Range { min: 2, max: 16 },
            "width of a rectangle coordinate or extent, in cache lines (thesis: 1 byte)";
        id_bits: u32 = Legal::Range { min: 1, max: 32 },
            "width of a thread-block id in the block queue";
        scored_per_cycle: u32 = Legal::Range { min: 1, max: 1024 },
            "block-queue entries the decision unit scores per cycle (a decision scans \
                ceil(queue_entries / this) cycles)";
    }
}

/// Rules between dispatcher keys.
pub(crate) const RULES: &[Rule] = &[Rule {
    text: "dispatch.scored_per_cycle <= dispatch.queue_entries",
    check: |c: &UserConfig| {
        let d = &c.dispatch;
        if d.scored_per_cycle > d.queue_entries {
            return Err(format!(
                "`dispatch.scored_per_cycle` = {} exceeds `dispatch.queue_entries` = {}",
                d.scored_per_cycle, d.queue_entries
            ));
        }
        Ok(())
    },
}];

/// Validated dispatcher parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DispatchSpec {
    pub policy: DispatchPolicy,
    /// SMs the queue policies serve in one cycle.
    pub blocks_per_cycle: u32,
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
    pub(crate) fn new(d: &DispatchConfig, gpu: &GpuSpec) -> DispatchSpec {
        let (sms, slots) = (gpu.sms, gpu.ctas_per_sm);
        // One overlap is at most 2^(2W); sums over slots x arrays, and over all SMs.
        let area = 2 * d.coord_bits;
        let here_bits = area + clog2(u64::from(slots) * u64::from(d.arrays));
        let else_bits = area + clog2(u64::from(sms) * u64::from(slots) * u64::from(d.arrays));
        DispatchSpec {
            policy: d.policy,
            blocks_per_cycle: d.blocks_per_cycle,
            queue_entries: d.queue_entries,
            block_cycles: d.block_cycles,
            arrays: d.arrays,
            coord_bits: d.coord_bits,
            id_bits: d.id_bits,
            scored_per_cycle: d.scored_per_cycle,
            sms,
            slots,
            sm_bits: clog2(sms.into()).max(1),
            slot_bits: clog2(slots.into()).max(1),
            qidx_bits: clog2(d.queue_entries.into()).max(1),
            scan_cycles: d.queue_entries.div_ceil(d.scored_per_cycle),
            here_bits,
            else_bits,
        }
    }

    /// The decision unit's parameters: the module's and every width derived from them.
    pub fn params(&self) -> Vec<Param> {
        let u = u64::from;
        vec![
            Param::key("num_sms", u(self.sms), "SMs"),
            Param::key("num_slots", u(self.slots), "thread-block slots per SM"),
            Param::key("num_queue", u(self.queue_entries), "block-queue entries"),
            Param::key(
                "num_arrays",
                u(self.arrays),
                "data arrays (rectangles) per block",
            ),
            Param::key(
                "coord_w",
                u(self.coord_bits),
                "rectangle coordinate width, in cache lines",
            ),
            Param::key("id_w", u(self.id_bits), "block id width"),
            Param::key(
                "scored_per_cycle",
                u(self.scored_per_cycle),
                "queue entries scored per cycle",
            ),
            Param::derived(
                "sm_w",
                u(self.sm_bits),
                "SM index width: log2(NumSms), at least 1",
            ),
            Param::derived(
                "slot_w",
                u(self.slot_bits),
                "slot index width: log2(NumSlots), at least 1",
            ),
            Param::derived(
                "q_idx_w",
                u(self.qidx_bits),
                "queue index width: log2(NumQueue), at least 1",
            ),
            Param::derived(
                "q_cnt_w",
                u(clog2(u64::from(self.queue_entries) + 1)),
                "queue occupancy width: log2(NumQueue + 1)",
            ),
            Param::derived(
                "num_chunks",
                u(self.scan_cycles),
                "scoring cycles per decision: ceil(NumQueue / ScoredPerCycle)",
            ),
            Param::derived(
                "chunk_w",
                u(clog2(self.scan_cycles.into()).max(1)),
                "chunk counter width: log2(NumChunks), at least 1",
            ),
            Param::derived(
                "num_run",
                u(self.sms * self.slots),
                "running-table entries: NumSms * NumSlots",
            ),
            Param::derived(
                "num_q_rects",
                u(self.queue_entries * self.arrays),
                "rectangles in the block queue: NumQueue * NumArrays",
            ),
            Param::derived(
                "num_run_rects",
                u(self.sms * self.slots * self.arrays),
                "rectangles in the running table: NumRun * NumArrays",
            ),
            Param::derived("area_w", u(2 * self.coord_bits), "one overlap: 2 * CoordW"),
            Param::derived(
                "here_w",
                u(self.here_bits),
                "score against one SM: AreaW + log2(NumSlots * NumArrays)",
            ),
            Param::derived(
                "else_w",
                u(self.else_bits),
                "score against all SMs: AreaW + log2(NumRun * NumArrays)",
            ),
        ]
    }

    /// The decision unit's interface (per-array ports are packed arrays of `arrays` elements).
    pub fn interface(&self) -> Interface {
        let arr = Some("num_arrays");
        let coord = Elem::Param("coord_w");
        let bit = Elem::Bit;
        Interface::new(self.params(), Vec::new())
            .input(
                "enq_valid_i",
                None,
                bit,
                "a thread block enters the block queue",
            )
            .input("enq_id_i", None, Elem::Param("id_w"), "its block id")
            .input(
                "enq_has_i",
                arr,
                bit,
                "per array: the block reads it (its rectangle is valid)",
            )
            .input("enq_x_i", arr, coord, "per array: first line column")
            .input("enq_y_i", arr, coord, "per array: first row")
            .input("enq_w_i", arr, coord, "per array: width in lines")
            .input("enq_h_i", arr, coord, "per array: height in rows")
            .input("done_valid_i", None, bit, "a running block finished")
            .input("done_sm_i", None, Elem::Param("sm_w"), "its SM")
            .input("done_slot_i", None, Elem::Param("slot_w"), "its slot")
            .input(
                "disp_ready_i",
                None,
                bit,
                "the SM takes the offered block at this edge",
            )
            .output("enq_ready_o", None, bit, "the block queue has room")
            .output("disp_valid_o", None, bit, "a dispatch decision is offered")
            .output(
                "disp_id_o",
                None,
                Elem::Param("id_w"),
                "the block to dispatch",
            )
            .output("disp_sm_o", None, Elem::Param("sm_w"), "to this SM")
            .output(
                "disp_slot_o",
                None,
                Elem::Param("slot_w"),
                "into this free slot",
            )
    }

    /// The decision unit's ports.
    pub fn ports(&self) -> Vec<PortSpec> {
        self.interface().ports
    }
}
