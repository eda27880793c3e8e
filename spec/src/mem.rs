//! The memory side between the interconnect and the DRAM controllers: the memory partitions
//! (per channel, `dram.sub_partitions` sub-partitions, each an L2 slice with GPGPU-Sim's queues
//! around it) and the clock domains. Keys, rules and the validated spec.
//!
//! A sub-partition follows GPGPU-Sim's `memory_sub_partition` (l2cache.cc): a request from the
//! interconnect waits `rop_latency` core cycles in the ROP delay queue, then enters the
//! icnt-to-L2 queue; the L2 slice takes one request per L2 cycle from it; misses and write-backs
//! leave through the L2-to-DRAM queue, wait `dram_latency` core cycles and enter the channel's
//! controller; DRAM data comes back through the DRAM-to-L2 queue; answers leave through the
//! L2-to-icnt queue. The latencies count core cycles, as GPGPU-Sim's do.

use crate::cache::CacheString;
use crate::schema::{Legal, Rule};
use crate::{section, UserConfig};

section! {
    /// The memory partitions: an L2 slice per sub-partition and the queues around it.
    pub struct L2Config in "l2" {
        cache: String = Legal::Text,
            "the L2 slice of one sub-partition: a GPGPU-Sim cache string (-gpgpu_cache:dl2), e.g. \
                `S:64:128:16,L:B:m:L:P,A:192:4,32:0,32`";
        rop_latency: u32 = Legal::Range { min: 0, max: 100000 },
            "core cycles a request spends in the ROP delay queue between the interconnect and the \
                L2 (-gpgpu_l2_rop_latency)";
        dram_latency: u32 = Legal::Range { min: 0, max: 100000 },
            "core cycles a request spends in the delay queue between the L2-to-DRAM queue and the \
                controller (-dram_latency)";
        icnt_to_l2: u32 = Legal::Range { min: 1, max: 4096 },
            "icnt-to-L2 queue entries per sub-partition (-gpgpu_dram_partition_queues, 1st field)";
        l2_to_dram: u32 = Legal::Range { min: 1, max: 4096 },
            "L2-to-DRAM queue entries per sub-partition (-gpgpu_dram_partition_queues, 2nd field)";
        dram_to_l2: u32 = Legal::Range { min: 1, max: 4096 },
            "DRAM-to-L2 queue entries per sub-partition (-gpgpu_dram_partition_queues, 3rd field)";
        l2_to_icnt: u32 = Legal::Range { min: 1, max: 4096 },
            "L2-to-icnt queue entries per sub-partition (-gpgpu_dram_partition_queues, 4th field)";
        fill_on_copy: bool = Legal::Bool,
            "a host-to-device copy fills the L2 with the data it writes, every 32-byte sector of \
                it valid and clean in its sub-partition's slice, taking no time \
                (-gpgpu_perf_sim_memcpy; decision MEM-24)";
    }
}

section! {
    /// Clock domains (-gpgpu_clock_domains); the DRAM command clock is `dram.clock_mhz`.
    pub struct ClockConfig in "clocks" {
        core_khz: u32 = Legal::Range { min: 1000, max: 10000000 },
            "SM (core) clock in kHz (-gpgpu_clock_domains, 1st field); the partitions' latencies \
                count its cycles";
        icnt_khz: u32 = Legal::Range { min: 1000, max: 10000000 },
            "interconnect clock in kHz (-gpgpu_clock_domains, 2nd field)";
        l2_khz: u32 = Legal::Range { min: 1000, max: 10000000 },
            "L2 clock in kHz (-gpgpu_clock_domains, 3rd field): one access per slice per cycle";
    }
}

/// The L2 cache string of a configuration, decoded.
fn l2_cache(c: &UserConfig) -> Result<CacheString, String> {
    CacheString::required(
        &c.l2.cache,
        "l2.cache",
        "the memory partitions need an L2 slice",
    )
}

/// Rules between the memory-side keys.
pub(crate) const RULES: &[Rule] = &[Rule {
    text: "l2.cache is a GPGPU-Sim cache string with MSHRs and a miss queue of at least 2",
    check: |c: &UserConfig| {
        let s = l2_cache(c)?;
        if s.mshr_entries == 0 || s.mshr_merge == 0 {
            return Err(format!(
                "`l2.cache` = `{}` has {} MSHR entries merging {}: an L2 slice needs at least \
                        one of each",
                c.l2.cache, s.mshr_entries, s.mshr_merge
            ));
        }
        if s.miss_queue < 2 {
            return Err(format!(
                "`l2.cache` = `{}` has a miss queue of {}: a miss may send a fetch and a \
                        write-back at once, so at least 2",
                c.l2.cache, s.miss_queue
            ));
        }
        Ok(())
    },
}];

/// The validated memory partitions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct L2Spec {
    pub cache: CacheString,
    pub rop_latency: u32,
    pub dram_latency: u32,
    /// Queue entries per sub-partition: icnt-to-L2, L2-to-DRAM, DRAM-to-L2, L2-to-icnt.
    pub icnt_to_l2: u32,
    pub l2_to_dram: u32,
    pub dram_to_l2: u32,
    pub l2_to_icnt: u32,
    /// Host-to-device copies fill the L2 (`l2.fill_on_copy`).
    pub fill_on_copy: bool,
}

impl L2Spec {
    /// From keys the rules have checked.
    pub(crate) fn new(c: &UserConfig) -> Result<L2Spec, String> {
        let cache = l2_cache(c)?;
        let l = &c.l2;
        Ok(L2Spec {
            cache,
            rop_latency: l.rop_latency,
            dram_latency: l.dram_latency,
            icnt_to_l2: l.icnt_to_l2,
            l2_to_dram: l.l2_to_dram,
            dram_to_l2: l.dram_to_l2,
            l2_to_icnt: l.l2_to_icnt,
            fill_on_copy: l.fill_on_copy,
        })
    }

    /// Bytes one L2 fetch brings from DRAM: the slice's atom (a sector, or a line L2's line).
    pub fn fetch_bytes(&self) -> u32 {
        self.cache.atom_bytes()
    }
}

/// The validated clock domains, in kHz (the DRAM's from `dram.clock_mhz`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockSpec {
    pub core_khz: u64,
    pub icnt_khz: u64,
    pub l2_khz: u64,
    pub dram_khz: u64,
}

impl ClockSpec {
    pub(crate) fn new(c: &UserConfig) -> ClockSpec {
        ClockSpec {
            core_khz: u64::from(c.clocks.core_khz),
            icnt_khz: u64::from(c.clocks.icnt_khz),
            l2_khz: u64::from(c.clocks.l2_khz),
            dram_khz: u64::from(c.dram.clock_mhz) * 1000,
        }
    }
}

crate::word_enum! {
    /// Arbitration of the interconnect's crossbar.
    pub enum IcntArbiter {
        /// Inputs round-robin from a pointer that moves every cycle (GPGPU-Sim NAIVE_RR).
        Rr = "rr",
        /// Each output round-robin from its own pointer, moved past the input it granted
        /// (one iteration of iSLIP, GPGPU-Sim's default).
        Islip = "islip",
    }
}

section! {
    /// The interconnect: a request and a reply crossbar between the SMs and the sub-partitions.
    pub struct IcntConfig in "icnt" {
        flit_bytes: u32 = Legal::Range { min: 1, max: 4096 },
            "bytes per flit; a packet is ceil(bytes / flit) flits, one crossing per port per \
                cycle (-icnt_flit_size, or the .icnt file's flit_size)";
        in_buffer: u32 = Legal::Range { min: 1, max: 65536 },
            "flits an input port buffers (-icnt_in_buffer_limit; .icnt: input_buffer_size, else \
                vc_buf_size x num_vcs)";
        out_buffer: u32 = Legal::Range { min: 1, max: 65536 },
            "flits an output port buffers (-icnt_out_buffer_limit; .icnt: ejection_buffer_size, \
                else vc_buf_size x num_vcs)";
        arbiter: IcntArbiter = Legal::OneOf(IcntArbiter::NAMES),
            "crossbar arbitration: rr or islip (-icnt_arbiter_algo 0 / 1; .icnt: sw_allocator)";
        latency: u32 = Legal::Range { min: 0, max: 1000 },
            "interconnect cycles a packet takes beyond its flits' serialisation (.icnt: \
                routing_delay + vc_alloc_delay + sw_alloc_delay; GPGPU-Sim's built-in crossbar: 0)";
        speedup: u32 = Legal::Range { min: 1, max: 8 },
            "switch steps per interconnect cycle: a packet crosses the switch at this many flits \
                per cycle and leaves its output at one (.icnt: internal_speedup; GPGPU-Sim's \
                built-in crossbar: 1)";
    }
}

/// Bytes of a packet's header (GPGPU-Sim's control size: a read request is this alone).
pub const PACKET_HEADER_BYTES: u32 = 8;

/// The validated interconnect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IcntSpec {
    pub flit_bytes: u32,
    pub in_buffer: u32,
    pub out_buffer: u32,
    pub arbiter: IcntArbiter,
    pub latency: u32,
    pub speedup: u32,
}

impl IcntSpec {
    pub(crate) fn new(c: &UserConfig) -> IcntSpec {
        let i = &c.icnt;
        IcntSpec {
            flit_bytes: i.flit_bytes,
            in_buffer: i.in_buffer,
            out_buffer: i.out_buffer,
            arbiter: i.arbiter,
            latency: i.latency,
            speedup: i.speedup,
        }
    }

    /// Flits of a packet carrying `data` bytes after its header.
    pub fn flits(&self, data: u32) -> u32 {
        (PACKET_HEADER_BYTES + data).div_ceil(self.flit_bytes)
    }
}

/// Rules between the interconnect keys and the rest.
pub(crate) const ICNT_RULES: &[Rule] = &[Rule {
    text: "an interconnect buffer holds the largest packet (a line and its header)",
    check: |c: &UserConfig| {
        let line = c
            .gpu
            .line_bytes
            .max(l2_cache(c).map_or(0, |s| s.line_bytes));
        let flits = (PACKET_HEADER_BYTES + line).div_ceil(c.icnt.flit_bytes);
        let smallest = c.icnt.in_buffer.min(c.icnt.out_buffer);
        if flits > smallest {
            return Err(format!(
                "a {line}-byte line's packet is {flits} flits of `icnt.flit_bytes` = {} but \
                    `icnt.in_buffer` = {} and `icnt.out_buffer` = {}: a buffer must hold it",
                c.icnt.flit_bytes, c.icnt.in_buffer, c.icnt.out_buffer
            ));
        }
        Ok(())
    },
}];
