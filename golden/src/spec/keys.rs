//! The parameter schema: every configuration key with its type, legal range and meaning.
//!
//! This table is the one place legal ranges are written. Validation checks every key of a
//! resolved configuration against it, `warpsmith describe` prints it, and a test checks that it
//! names exactly the keys of [`super::UserConfig`].

use super::SpecError;

/// What values a key accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Legal {
    /// An integer in `min..=max`.
    Range { min: u64, max: u64 },
    /// A power of two in `min..=max`.
    Pow2 { min: u64, max: u64 },
    /// One of the listed words.
    OneOf(&'static [&'static str]),
    /// `true` or `false`.
    Bool,
    /// Free text, checked by its own parser (named in `meaning`).
    Text,
}

impl std::fmt::Display for Legal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Legal::Range { min, max } => write!(f, "{min}..={max}"),
            Legal::Pow2 { min, max } => write!(f, "a power of two in {min}..={max}"),
            Legal::OneOf(words) => write!(f, "one of {}", words.join(", ")),
            Legal::Bool => write!(f, "true or false"),
            Legal::Text => write!(f, "text"),
        }
    }
}

/// One configuration key.
#[derive(Debug, Clone, Copy)]
pub struct KeyInfo {
    pub key: &'static str,
    pub ty: &'static str,
    pub legal: Legal,
    pub meaning: &'static str,
}

const INT: &str = "integer";
const WORD: &str = "string";
const BOOL: &str = "boolean";
const TEXT: &str = "string";

/// Every key of [`super::UserConfig`], in file order.
pub const KEYS: &[KeyInfo] = &[
    KeyInfo {
        key: "gpu.sms",
        ty: INT,
        legal: Legal::Range { min: 1, max: 256 },
        meaning: "streaming multiprocessors (SMs) in the GPU",
    },
    KeyInfo {
        key: "gpu.warps_per_sm",
        ty: INT,
        legal: Legal::Range { min: 1, max: 128 },
        meaning: "maximum resident warps per SM",
    },
    KeyInfo {
        key: "gpu.ctas_per_sm",
        ty: INT,
        legal: Legal::Range { min: 1, max: 64 },
        meaning: "maximum resident thread blocks (CTAs) per SM",
    },
    KeyInfo {
        key: "gpu.warp_size",
        ty: INT,
        legal: Legal::Pow2 { min: 1, max: 64 },
        meaning: "threads per warp",
    },
    KeyInfo {
        key: "gpu.line_bytes",
        ty: INT,
        legal: Legal::Pow2 { min: 16, max: 1024 },
        meaning: "cache-line (memory request) size in bytes; the coalescer merges a warp's accesses into requests of this size",
    },
    KeyInfo {
        key: "ot.entries",
        ty: INT,
        legal: Legal::Pow2 { min: 1, max: 65536 },
        meaning: "observation-table entries (seed 000 Table III: 1024)",
    },
    KeyInfo {
        key: "ot.ways",
        ty: INT,
        legal: Legal::Pow2 { min: 1, max: 65536 },
        meaning: "associativity: ways per set; ways = entries is fully associative (the paper's table), 1 is direct-mapped",
    },
    KeyInfo {
        key: "ot.replacement",
        ty: WORD,
        legal: Legal::OneOf(super::Replacement::NAMES),
        meaning: "replacement policy within a set: true LRU (as in the paper) or tree pseudo-LRU",
    },
    KeyInfo {
        key: "ot.addrs_per_entry",
        ty: INT,
        legal: Legal::Range { min: 1, max: 4 },
        meaning: "request addresses stored per entry (the reference warp's line requests; the paper stores up to 4)",
    },
    KeyInfo {
        key: "ot.mispredict_threshold",
        ty: INT,
        legal: Legal::Range { min: 0, max: 65534 },
        meaning: "an entry stops predicting once its mispredict counter exceeds this (paper: 64); must be below 2^counter_bits - 1",
    },
    KeyInfo {
        key: "ot.grid_dims",
        ty: INT,
        legal: Legal::Range { min: 1, max: 3 },
        meaning: "grid dimensions the table stores thread-block ids and strides for (1-D, 2-D or 3-D grids)",
    },
    KeyInfo {
        key: "ot.pc_bits",
        ty: INT,
        legal: Legal::Range { min: 1, max: 64 },
        meaning: "width of the load PC field",
    },
    KeyInfo {
        key: "ot.lec_bits",
        ty: INT,
        legal: Legal::Range { min: 1, max: 32 },
        meaning: "width of the load execution count (LEC) field; the per-warp count wraps at 2^lec_bits",
    },
    KeyInfo {
        key: "ot.tb_bits",
        ty: INT,
        legal: Legal::Range { min: 1, max: 31 },
        meaning: "width of each thread-block id component; grids may have up to 2^tb_bits blocks per dimension",
    },
    KeyInfo {
        key: "ot.warp_bits",
        ty: INT,
        legal: Legal::Range { min: 1, max: 10 },
        meaning: "width of the local warp id (warp within its thread block)",
    },
    KeyInfo {
        key: "ot.addr_bits",
        ty: INT,
        legal: Legal::Range { min: 8, max: 64 },
        meaning: "width of a stored request address (byte address; predictions wrap modulo 2^addr_bits)",
    },
    KeyInfo {
        key: "ot.stride_bits",
        ty: INT,
        legal: Legal::Range { min: 2, max: 64 },
        meaning: "width of each signed stride (per grid dimension and inter-warp); strides that do not fit are not learned",
    },
    KeyInfo {
        key: "ot.counter_bits",
        ty: INT,
        legal: Legal::Range { min: 1, max: 16 },
        meaning: "width of the saturating mispredict counter",
    },
    KeyInfo {
        key: "dram.standard",
        ty: WORD,
        legal: Legal::OneOf(super::DramStandard::NAMES),
        meaning: "DRAM standard of the memory channels (names the timing set; GDDR has one rank per channel)",
    },
    KeyInfo {
        key: "dram.channels",
        ty: INT,
        legal: Legal::Range { min: 1, max: 128 },
        meaning: "memory channels, one controller each (seed 000 Table II: 6; seed 004 Table 2: 16)",
    },
    KeyInfo {
        key: "dram.sub_partitions",
        ty: INT,
        legal: Legal::Pow2 { min: 1, max: 8 },
        meaning: "L2 slices per channel (GPGPU-Sim -gpgpu_n_sub_partition_per_mchannel); the lowest bank bits pick the slice",
    },
    KeyInfo {
        key: "dram.banks",
        ty: INT,
        legal: Legal::Pow2 { min: 1, max: 64 },
        meaning: "banks per channel; must equal the bank bits of dram.address_map",
    },
    KeyInfo {
        key: "dram.bank_groups",
        ty: INT,
        legal: Legal::Pow2 { min: 1, max: 16 },
        meaning: "bank groups (bank b is in group b % groups); 1 disables groups: the _s timings apply everywhere",
    },
    KeyInfo {
        key: "dram.atom_bytes",
        ty: INT,
        legal: Legal::Pow2 { min: 8, max: 512 },
        meaning: "bytes one column command moves (burst length x bus width x chips)",
    },
    KeyInfo {
        key: "dram.clock_mhz",
        ty: INT,
        legal: Legal::Range { min: 100, max: 20000 },
        meaning: "command clock in MHz (for bandwidth in GB/s)",
    },
    KeyInfo {
        key: "dram.address_map",
        ty: TEXT,
        legal: Legal::Text,
        meaning: "physical address to channel/bank/row/column: a GPGPU-Sim mapping string `[dramid@S;]` + 64 symbols of R B C S D 0",
    },
    KeyInfo {
        key: "dram.bank_xor",
        ty: BOOL,
        legal: Legal::Bool,
        meaning: "XOR the bank index with low row bits (GPGPU-Sim -dram_bnk_indexing_policy 1)",
    },
    KeyInfo {
        key: "dram.refresh",
        ty: BOOL,
        legal: Legal::Bool,
        meaning: "model all-bank refresh (REF every t_refi, blocking t_rfc)",
    },
    KeyInfo {
        key: "dram.t_bl",
        ty: INT,
        legal: Legal::Range { min: 1, max: 64 },
        meaning: "data-bus cycles of one burst (burst length / data rate)",
    },
    KeyInfo {
        key: "dram.t_rcd",
        ty: INT,
        legal: Legal::Range { min: 1, max: 1000 },
        meaning: "ACT to RD, same bank (GDDR tRCDRD)",
    },
    KeyInfo {
        key: "dram.t_rcdwr",
        ty: INT,
        legal: Legal::Range { min: 1, max: 1000 },
        meaning: "ACT to WR, same bank (GDDR tRCDWR)",
    },
    KeyInfo {
        key: "dram.t_rp",
        ty: INT,
        legal: Legal::Range { min: 1, max: 1000 },
        meaning: "PRE to ACT, same bank",
    },
    KeyInfo {
        key: "dram.t_ras",
        ty: INT,
        legal: Legal::Range { min: 1, max: 1000 },
        meaning: "ACT to PRE, same bank",
    },
    KeyInfo {
        key: "dram.t_rc",
        ty: INT,
        legal: Legal::Range { min: 1, max: 2000 },
        meaning: "ACT to ACT, same bank (at least t_ras + t_rp)",
    },
    KeyInfo {
        key: "dram.t_cl",
        ty: INT,
        legal: Legal::Range { min: 1, max: 1000 },
        meaning: "RD to first data (CAS latency)",
    },
    KeyInfo {
        key: "dram.t_cwl",
        ty: INT,
        legal: Legal::Range { min: 0, max: 1000 },
        meaning: "WR to first data (CAS write latency)",
    },
    KeyInfo {
        key: "dram.t_ccds",
        ty: INT,
        legal: Legal::Range { min: 1, max: 100 },
        meaning: "column to column, different bank group",
    },
    KeyInfo {
        key: "dram.t_ccdl",
        ty: INT,
        legal: Legal::Range { min: 1, max: 100 },
        meaning: "column to column, same bank group",
    },
    KeyInfo {
        key: "dram.t_rrds",
        ty: INT,
        legal: Legal::Range { min: 1, max: 100 },
        meaning: "ACT to ACT, different bank group",
    },
    KeyInfo {
        key: "dram.t_rrdl",
        ty: INT,
        legal: Legal::Range { min: 1, max: 100 },
        meaning: "ACT to ACT, same bank group",
    },
    KeyInfo {
        key: "dram.t_faw",
        ty: INT,
        legal: Legal::Range { min: 1, max: 1000 },
        meaning: "four-activate window: at most four ACTs in any t_faw cycles",
    },
    KeyInfo {
        key: "dram.t_wtrs",
        ty: INT,
        legal: Legal::Range { min: 0, max: 100 },
        meaning: "end of write data to RD, different bank group",
    },
    KeyInfo {
        key: "dram.t_wtrl",
        ty: INT,
        legal: Legal::Range { min: 0, max: 100 },
        meaning: "end of write data to RD, same bank group",
    },
    KeyInfo {
        key: "dram.t_rtp",
        ty: INT,
        legal: Legal::Range { min: 1, max: 100 },
        meaning: "RD to PRE, same bank",
    },
    KeyInfo {
        key: "dram.t_wr",
        ty: INT,
        legal: Legal::Range { min: 1, max: 1000 },
        meaning: "end of write data to PRE, same bank (write recovery)",
    },
    KeyInfo {
        key: "dram.t_rtw",
        ty: INT,
        legal: Legal::Range { min: 0, max: 100 },
        meaning: "extra read-to-write bus turnaround",
    },
    KeyInfo {
        key: "dram.t_refi",
        ty: INT,
        legal: Legal::Range { min: 1, max: 1000000 },
        meaning: "average refresh interval",
    },
    KeyInfo {
        key: "dram.t_rfc",
        ty: INT,
        legal: Legal::Range { min: 1, max: 10000 },
        meaning: "all-bank refresh cycle time",
    },
    KeyInfo {
        key: "mc.scheduler",
        ty: WORD,
        legal: Legal::OneOf(super::Scheduler::NAMES),
        meaning: "request scheduler: fcfs, frfcfs (row hits first), warped (Warped-MC, seed 004), divfirst (a warp's last request first)",
    },
    KeyInfo {
        key: "mc.queue_entries",
        ty: INT,
        legal: Legal::Range { min: 1, max: 256 },
        meaning: "pending-queue entries per controller (seed 002 Table 4.1: 16); also the candidates Warped-MC scores per cycle",
    },
    KeyInfo {
        key: "mc.write_high",
        ty: INT,
        legal: Legal::Range { min: 1, max: 256 },
        meaning: "pending writes at which the controller starts draining writes",
    },
    KeyInfo {
        key: "mc.write_low",
        ty: INT,
        legal: Legal::Range { min: 0, max: 255 },
        meaning: "pending writes at which a write drain stops",
    },
    KeyInfo {
        key: "warped_mc.pc_bits",
        ty: INT,
        legal: Legal::Range { min: 1, max: 64 },
        meaning: "width of the load PC hashed into the global warp id",
    },
    KeyInfo {
        key: "warped_mc.pc_hash_bits",
        ty: INT,
        legal: Legal::Range { min: 0, max: 32 },
        meaning: "PC bits XOR-folded into the low bits of the global warp id (0: id = SM, warp)",
    },
    KeyInfo {
        key: "warped_mc.pending_bits",
        ty: INT,
        legal: Legal::Range { min: 1, max: 16 },
        meaning: "width of a warp entry table counter of pending requests (seed 004: 6, up to 32 requests)",
    },
    KeyInfo {
        key: "warped_mc.rows_tracked",
        ty: INT,
        legal: Legal::Pow2 { min: 1, max: 4096 },
        meaning: "row scores per bank in the row scoreboard (row id mod this; seed 004: 64)",
    },
    KeyInfo {
        key: "warped_mc.score_bits",
        ty: INT,
        legal: Legal::Range { min: 1, max: 16 },
        meaning: "width of a saturating row score (seed 004: 4)",
    },
    KeyInfo {
        key: "warped_mc.pt_slots",
        ty: INT,
        legal: Legal::Pow2 { min: 1, max: 1024 },
        meaning: "bits per priority-table entry: one per column slot of the open row (seed 004: 64 for 1 KB rows)",
    },
    KeyInfo {
        key: "warped_mc.controllers_per_wet",
        ty: INT,
        legal: Legal::Range { min: 1, max: 128 },
        meaning: "controllers whose candidates one Warped-MC block (and its warp entry table) serves (1: a block and a WET per controller, as Table 3 counts it)",
    },
    KeyInfo {
        key: "warped_mc.wet_scope",
        ty: INT,
        legal: Legal::Range { min: 0, max: 128 },
        meaning: "controllers whose enqueues and services every warp entry table counts (0: all, the paper's global WET, each block holding a copy; else a multiple of controllers_per_wet dividing dram.channels)",
    },
    KeyInfo {
        key: "dispatch.policy",
        ty: WORD,
        legal: Legal::OneOf(super::DispatchPolicy::NAMES),
        meaning: "thread-block dispatch: rr (round-robin), bcs (two consecutive blocks per SM), locality (seed 002), map-x / map-y / map-auto (seed 003 CTA mapping)",
    },
    KeyInfo {
        key: "dispatch.queue_entries",
        ty: INT,
        legal: Legal::Range { min: 1, max: 1024 },
        meaning: "block-queue entries: the waiting blocks the locality-aware dispatcher scores",
    },
    KeyInfo {
        key: "dispatch.block_cycles",
        ty: INT,
        legal: Legal::Range { min: 1, max: 100_000_000 },
        meaning: "base running time of a thread block in the dispatch model (plus up to 25% seeded spread)",
    },
    KeyInfo {
        key: "dispatch.arrays",
        ty: INT,
        legal: Legal::Range { min: 1, max: 8 },
        meaning: "data arrays per kernel: rectangles per block-queue entry (thesis Table 5.2: 3 x 4 B + a 3 B id = 15 B)",
    },
    KeyInfo {
        key: "dispatch.coord_bits",
        ty: INT,
        legal: Legal::Range { min: 2, max: 16 },
        meaning: "width of a rectangle coordinate or extent, in cache lines (thesis: 1 byte)",
    },
    KeyInfo {
        key: "dispatch.id_bits",
        ty: INT,
        legal: Legal::Range { min: 1, max: 32 },
        meaning: "width of a thread-block id in the block queue",
    },
    KeyInfo {
        key: "dispatch.scored_per_cycle",
        ty: INT,
        legal: Legal::Range { min: 1, max: 1024 },
        meaning: "block-queue entries the decision unit scores per cycle (a decision scans ceil(queue_entries / this) cycles)",
    },
    KeyInfo {
        key: "dispatch.region_bits",
        ty: INT,
        legal: Legal::Range { min: 1, max: 32 },
        meaning: "warp level (seed 002 section 3.4): bits of a warp's region index per array (thesis: 10)",
    },
    KeyInfo {
        key: "dispatch.subregion_bits",
        ty: INT,
        legal: Legal::Range { min: 1, max: 64 },
        meaning: "warp level: sub-regions per region, one bit each in a warp's vector (thesis: 16)",
    },
];

/// Look a key up by its dotted name.
pub fn key_info(key: &str) -> Option<&'static KeyInfo> {
    KEYS.iter().find(|k| k.key == key)
}

/// The closest known key to a misspelt one (for "did you mean" hints).
pub fn closest_key(key: &str) -> Option<&'static str> {
    KEYS.iter()
        .map(|k| (edit_distance(k.key, key), k.key))
        .filter(|(d, _)| *d <= 3)
        .min()
        .map(|(_, k)| k)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Check one integer value against its key's legal range.
pub fn check_int(key: &'static str, value: u64) -> Result<u64, SpecError> {
    let info = key_info(key).ok_or(SpecError::UnknownKey {
        key: key.to_string(),
        hint: String::new(),
    })?;
    let ok = match info.legal {
        Legal::Range { min, max } => (min..=max).contains(&value),
        Legal::Pow2 { min, max } => value.is_power_of_two() && (min..=max).contains(&value),
        Legal::OneOf(_) | Legal::Bool | Legal::Text => false,
    };
    if ok {
        Ok(value)
    } else {
        Err(SpecError::OutOfRange {
            key,
            value: value.to_string(),
            legal: info.legal.to_string(),
        })
    }
}
