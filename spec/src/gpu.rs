//! The GPU around the blocks: what the workloads and the blocks sized by the GPU need.

use crate::cache::CacheString;
use crate::schema::{Legal, Rule};
use crate::{section, word_enum, UserConfig};

word_enum! {
    /// How a warp scheduler picks the warp it issues (GPGPU-Sim's -gpgpu_scheduler).
    pub enum WarpScheduler {
        /// Loose round robin: from the warp after the last one issued.
        Lrr = "lrr",
        /// Greedy then oldest: the last one issued while it can, else the oldest.
        Gto = "gto",
        /// Two-level (GPGPU-Sim's two_level_active:N:0:1): loose round robin among an active
        /// set of `gpu.active_warps` warps; a warp whose next instruction waits on a global
        /// load, or that waits at a barrier or has ended, leaves it for the back of the
        /// pending queue, whose front warps fill the set.
        TwoLevel = "two-level",
        /// CTA-aware (Jeon et al.'s rule, which seed 000's CTA-aware predictor runs with): the
        /// leading warp (warp 0) of each block first, the oldest such warp first, else greedy
        /// then oldest.
        CtaAware = "cta-aware",
        /// Seed 003's programmable warp scheduler: only the warps of the SM's high-priority
        /// group (its oldest blocks, `gpu.priority_warps` warps at most) issue, greedy then
        /// oldest.
        Programmable = "programmable",
        /// Seed 002's locality-aware two-level scheduler (`[lws]`): an active group of
        /// `gpu.active_warps` warps, greedy then the warp sharing the most with the last one
        /// issued; a warp that waits long leaves it and the waiting warp sharing the most with
        /// the group joins; starved warps first.
        Locality = "locality",
        /// Cache-conscious wavefront scheduling (Rogers et al., MICRO 2012; seed 003's
        /// baseline): greedy then oldest, but only the warps with the highest lost-locality
        /// scores, up to a cutoff, may issue loads.
        Ccws = "ccws",
    }
}

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
            "cache-line (memory request) size in bytes; the coalescer merges a warp's accesses \
                into requests of this size";
        l1_cache: String = Legal::Text,
            "the L1 data cache of an SM: a GPGPU-Sim cache string (-gpgpu_cache:dl1), e.g. \
                `S:4:128:64,L:T:m:L:L,A:256:32,16:0,32`";
        l1_latency: u32 = Legal::Range { min: 0, max: 10000 },
            "core cycles from an L1 access to its answer (-gpgpu_l1_latency)";
        l1_banks: u32 = Legal::Pow2 { min: 1, max: 32 },
            "banks of an SM's L1 (-gpgpu_l1_banks): each cycle the LD/ST unit hands the L1, and \
                the L1 takes, up to this many accesses in order, each to another bank; banks \
                interleave 32-byte sectors (bank = address / 32 mod banks, GPGPU-Sim's defaults \
                -gpgpu_l1_banks_byte_interleaving 32 and -gpgpu_l1_banks_hashing_function 0; \
                decision GPU-34)";
        schedulers: u32 = Legal::Range { min: 1, max: 16 },
            "warp schedulers per SM, each issuing one instruction per cycle \
                (-gpgpu_num_sched_per_core); warp w belongs to scheduler w mod schedulers";
        scheduler: WarpScheduler = Legal::OneOf(WarpScheduler::NAMES),
            "warp scheduling policy: lrr (loose round robin), gto (greedy then oldest), \
                two-level (loose round robin within an active set, refilled from a pending queue) \
                (-gpgpu_scheduler), cta-aware (each block's leading warp first, else gto; the rule \
                seed 000's CTA-aware baseline runs with, decision OT-12), programmable (seed \
                003's: only a high-priority group of the oldest blocks issues, decision GPU-36), \
                locality (seed 002's locality-aware two-level scheduler, [lws], decision LWS-2) or \
                ccws (cache-conscious wavefront scheduling, seed 003's baseline, decision GPU-37)";
        active_warps: u32 = Legal::Range { min: 1, max: 128 },
            "warps in each scheduler's active set under the two-level scheduler (-gpgpu_scheduler \
                two_level_active:N:0:1) and the locality-aware one (seed 002)";
        priority_warps: u32 = Legal::Range { min: 1, max: 128 },
            "warps of each SM's high-priority group under the programmable scheduler (seed 003): \
                the oldest resident blocks whose warps fit, the oldest block always (decision \
                GPU-36)";
        ccws_vta_entries: u32 = Legal::Range { min: 1, max: 64 },
            "ccws: victim tags per warp (the lines the warp brought into the L1 that were \
                evicted, most recent kept; Rogers et al.: 8 per warp)";
        ccws_base_score: u32 = Legal::Range { min: 1, max: 1_000_000 },
            "ccws: a warp's lost-locality score at rest; the scores of a warp scheduler's live \
                warps may sum to live warps x this before their loads are cut off";
        ccws_hit_points: u32 = Legal::Range { min: 0, max: 1_000_000 },
            "ccws: points a warp's score gains when one of its L1 misses finds its line in its \
                victim tags (lost intra-warp locality); a score above the base loses one point a \
                core cycle";
        coalesce_arch: u32 = Legal::Range { min: 10, max: 99 },
            "coalescing rules (-gpgpu_coalesce_arch): from 20 to 38, 128- and 64-byte segments \
                through the L1; from 40, 32-byte sectors";
        warp_parts: u32 = Legal::Pow2 { min: 1, max: 32 },
            "sub-warps coalesced apart (-gpgpu_shmem_warp_parts)";
        skip_l1: bool = Legal::Bool,
            "global accesses bypass the L1: 32-byte segments on Fermi and Kepler \
                (-gpgpu_gmem_skip_L1D)";
        flush_l1: bool = Legal::Bool,
            "invalidate an SM's L1 data cache whenever it holds no thread block, dirty lines \
                dropped: at the end of every kernel, and on an SM left without blocks \
                (-gpgpu_flush_l1_cache, which invalidates the L1 of every SM without threads each \
                cycle)";
        alu_latency: u32 = Legal::Range { min: 1, max: 1000 },
            "core cycles before an integer or other ALU result can be read: Accel-Sim's ALU and \
                integer opcodes (IADD3, IMAD, LOP3, ISETP, MOV, SHFL, conversions, ...) and any \
                opcode its tables do not list (-trace_opcode_latency_initiation_int, 1st field; \
                else -ptx_opcode_latency_int, 1st field)";
        alu_initiation: u32 = Legal::Range { min: 1, max: 1000 },
            "core cycles between two ALU-class instructions of one warp scheduler: the initiation \
                interval of its ALU unit (-trace_opcode_latency_initiation_int, 2nd field; else \
                -ptx_opcode_initiation_int, 1st field)";
        sp_latency: u32 = Legal::Range { min: 1, max: 1000 },
            "core cycles before a single- or half-precision floating-point result can be read \
                (FADD, FFMA, FMUL, FSETP, HFMA2, ...) (-trace_opcode_latency_initiation_sp, 1st \
                field; else -ptx_opcode_latency_fp, 1st field)";
        sp_initiation: u32 = Legal::Range { min: 1, max: 1000 },
            "initiation interval of a scheduler's single-precision unit \
                (-trace_opcode_latency_initiation_sp, 2nd field; else -ptx_opcode_initiation_fp, \
                1st field)";
        dp_latency: u32 = Legal::Range { min: 1, max: 1000 },
            "core cycles before a double-precision result can be read (DADD, DFMA, DMUL, DSETP) \
                (-trace_opcode_latency_initiation_dp, 1st field; else -ptx_opcode_latency_dp, 1st \
                field)";
        dp_initiation: u32 = Legal::Range { min: 1, max: 1000 },
            "initiation interval of a scheduler's double-precision unit \
                (-trace_opcode_latency_initiation_dp, 2nd field; else -ptx_opcode_initiation_dp, \
                1st field)";
        sfu_latency: u32 = Legal::Range { min: 1, max: 1000 },
            "core cycles before a special-function result can be read (MUFU) \
                (-trace_opcode_latency_initiation_sfu, 1st field; else -ptx_opcode_latency_sfu)";
        sfu_initiation: u32 = Legal::Range { min: 1, max: 1000 },
            "initiation interval of a scheduler's special-function unit \
                (-trace_opcode_latency_initiation_sfu, 2nd field; else -ptx_opcode_initiation_sfu)";
        tensor_latency: u32 = Legal::Range { min: 1, max: 1000 },
            "core cycles before a tensor-core result can be read (HMMA, IMMA, BMMA) (the \
                specialized unit named TENSOR's -trace_opcode_latency_initiation_spec_op_K, else \
                -trace_opcode_latency_initiation_tensor, 1st field; else \
                -ptx_opcode_latency_tesnor)";
        tensor_initiation: u32 = Legal::Range { min: 1, max: 1000 },
            "initiation interval of a scheduler's tensor-core unit (2nd fields of the same \
                options; else -ptx_opcode_initiation_tensor)";
        branch_latency: u32 = Legal::Range { min: 1, max: 1000 },
            "core cycles before a control instruction's result can be read (BRA, BSSY, BSYNC, \
                CALL, RET, WARPSYNC, ...) (the specialized unit named BRA's \
                -trace_opcode_latency_initiation_spec_op_K, 1st field)";
        branch_initiation: u32 = Legal::Range { min: 1, max: 1000 },
            "initiation interval of a scheduler's branch unit (the same option, 2nd field)";
        tex_latency: u32 = Legal::Range { min: 1, max: 1000 },
            "core cycles before a texture instruction's result can be read (TEX, TLD, TLD4, TMML, \
                TXD, TXQ): a fixed latency, no memory traffic, as Accel-Sim's TEX unit (the \
                specialized unit named TEX's -trace_opcode_latency_initiation_spec_op_K, 1st \
                field)";
        tex_initiation: u32 = Legal::Range { min: 1, max: 1000 },
            "initiation interval of a scheduler's texture unit (the same option, 2nd field)";
        uniform_latency: u32 = Legal::Range { min: 1, max: 1000 },
            "core cycles before a uniform-datapath result can be read (R2UR, S2UR, ULDC, UMOV, \
                UIADD3, VOTEU, ...) (the specialized unit named UDP's \
                -trace_opcode_latency_initiation_spec_op_K, 1st field)";
        uniform_initiation: u32 = Legal::Range { min: 1, max: 1000 },
            "initiation interval of a scheduler's uniform-datapath unit (the same option, 2nd \
                field)";
        shared_latency: u32 = Legal::Range { min: 1, max: 1000 },
            "core cycles before a shared-memory or constant load's result can be read \
                (-gpgpu_smem_latency)";
        registers: u32 = Legal::Range { min: 1, max: 16777216 },
            "32-bit registers per SM: a block of a kernel using r registers a thread takes its \
                threads (padded to whole warps) x r rounded up to 4 (-gpgpu_shader_registers)";
        shmem_bytes: u32 = Legal::Range { min: 0, max: 16777216 },
            "shared memory per SM in bytes: a block takes its kernel's shared memory \
                (-gpgpu_shmem_size)";
        kernel_launch_latency: u32 = Legal::Range { min: 0, max: 100000000 },
            "core cycles from a kernel's launch to the first cycle its blocks may be placed, \
                counted in the kernel's cycles while the memory side goes on \
                (-gpgpu_kernel_launch_latency; decision GPU-30)";
        unified_l1_kb: u32 = Legal::Range { min: 0, max: 4096 },
            "KB of an SM's storage shared by its L1 data cache and its shared memory, as Volta \
                and later have it: each kernel's L1 is what the smallest carve-out \
                (gpu.shmem_carveouts) holding its resident blocks' shared memory leaves, in ways \
                of gpu.l1_cache's sets; 0: every kernel's L1 is gpu.l1_cache \
                (-gpgpu_unified_l1d_size under -gpgpu_adaptive_cache_config 1; decision GPU-32)";
        shmem_carveouts: String = Legal::Text,
            "the shared-memory carve-outs of the unified storage in KB, increasing, e.g. \
                `0,8,16,32,64,96` (-gpgpu_shmem_option); used when gpu.unified_l1_kb is not 0";
    }
}

word_enum! {
    /// The execution unit (functional-unit class) an arithmetic opcode runs on, as
    /// Accel-Sim's trace-driven model classes SASS opcodes: each warp scheduler has one unit of
    /// each class, with its own latency and initiation interval (`gpu.<class>_latency`,
    /// `gpu.<class>_initiation`; the ALU class's keys are `gpu.alu_*`).
    pub enum ExecClass {
        /// Integer and other ALU opcodes, and any opcode not listed.
        Alu = "alu",
        /// Single- and half-precision floating point.
        Sp = "sp",
        /// Double precision.
        Dp = "dp",
        /// Special functions.
        Sfu = "sfu",
        /// Tensor-core matrix multiply-accumulate.
        Tensor = "tensor",
        /// Control flow.
        Branch = "branch",
        /// Texture (a fixed latency).
        Tex = "tex",
        /// Turing's uniform datapath.
        Uniform = "uniform",
    }
}

impl ExecClass {
    /// How many classes there are.
    pub const COUNT: usize = ExecClass::ALL.len();

    /// Its index in [`GpuSpec::exec`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// Its keys' values (latency, initiation).
    fn timing(self, g: &GpuConfig) -> ExecTiming {
        let (latency, initiation) = match self {
            ExecClass::Alu => (g.alu_latency, g.alu_initiation),
            ExecClass::Sp => (g.sp_latency, g.sp_initiation),
            ExecClass::Dp => (g.dp_latency, g.dp_initiation),
            ExecClass::Sfu => (g.sfu_latency, g.sfu_initiation),
            ExecClass::Tensor => (g.tensor_latency, g.tensor_initiation),
            ExecClass::Branch => (g.branch_latency, g.branch_initiation),
            ExecClass::Tex => (g.tex_latency, g.tex_initiation),
            ExecClass::Uniform => (g.uniform_latency, g.uniform_initiation),
        };
        ExecTiming {
            latency,
            initiation,
        }
    }
}

/// One execution unit's timing: an instruction issued at cycle `t` has its result readable at
/// `t + latency`, and the scheduler's unit takes its next instruction at `t + initiation`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExecTiming {
    pub latency: u32,
    pub initiation: u32,
}

/// The L1 cache string of a configuration, decoded.
fn l1_cache(g: &GpuConfig) -> Result<CacheString, String> {
    CacheString::required(&g.l1_cache, "gpu.l1_cache", "the SM model needs an L1")
}

/// The unified L1 and shared-memory storage of a configuration, decoded and checked against
/// its L1 (`None` when `gpu.unified_l1_kb` is 0).
fn unified(g: &GpuConfig, l1: &CacheString) -> Result<Option<UnifiedL1>, String> {
    if g.unified_l1_kb == 0 {
        return Ok(None);
    }
    if g.shmem_carveouts.trim().is_empty() {
        return Err(format!(
            "gpu.unified_l1_kb = {} makes the L1 and shared memory one storage, which needs \
                gpu.shmem_carveouts, the shared-memory sizes it offers (write e.g. \
                `0,8,16,32,64,96`), or gpu.unified_l1_kb = 0",
            g.unified_l1_kb
        ));
    }
    let mut carveouts = Vec::new();
    for f in g.shmem_carveouts.split(',') {
        let kb: u32 = f.trim().parse().map_err(|_| {
            format!(
                "gpu.shmem_carveouts = {:?}: {:?} is not a whole number of KB (write e.g. \
                    `0,8,16,32,64,96`)",
                g.shmem_carveouts, f
            )
        })?;
        if carveouts.last().is_some_and(|&last| kb <= last) {
            return Err(format!(
                "gpu.shmem_carveouts = {:?}: the carve-outs must increase",
                g.shmem_carveouts
            ));
        }
        carveouts.push(kb);
    }
    let largest = carveouts.last().copied().unwrap_or(0);
    if largest >= g.unified_l1_kb {
        return Err(format!(
            "gpu.shmem_carveouts = {:?}: a carve-out of {largest} KB leaves no L1 in \
                gpu.unified_l1_kb = {} KB",
            g.shmem_carveouts, g.unified_l1_kb
        ));
    }
    if u64::from(largest) * 1024 < u64::from(g.shmem_bytes) {
        return Err(format!(
            "gpu.shmem_carveouts = {:?}: the largest carve-out ({largest} KB) is below \
                gpu.shmem_bytes = {}, so a kernel using all of it would have none",
            g.shmem_carveouts, g.shmem_bytes
        ));
    }
    let way_bytes = u64::from(l1.sets) * u64::from(l1.line_bytes);
    let unified = u64::from(g.unified_l1_kb) * 1024;
    let l1_bytes = way_bytes * u64::from(l1.ways);
    if unified % l1_bytes != 0 {
        return Err(format!(
            "gpu.unified_l1_kb = {}: not a whole multiple of gpu.l1_cache's {} bytes (GPGPU-Sim \
                scales the L1's ways by the ratio)",
            g.unified_l1_kb, l1_bytes
        ));
    }
    let max_ways = unified / way_bytes;
    if max_ways > u64::from(crate::cache::MAX_WAYS) {
        return Err(format!(
            "gpu.unified_l1_kb = {}: {max_ways} ways of gpu.l1_cache's sets, above the {} a \
                cache may have",
            g.unified_l1_kb,
            crate::cache::MAX_WAYS
        ));
    }
    Ok(Some(UnifiedL1 {
        bytes: g.unified_l1_kb * 1024,
        carveouts,
        max_ways: u32::try_from(max_ways).map_err(|e| e.to_string())?,
    }))
}

/// Rules between GPU keys.
pub(crate) const RULES: &[Rule] = &[
    Rule {
        text: "gpu.l1_cache is a GPGPU-Sim cache string",
        check: |c: &UserConfig| l1_cache(&c.gpu).map(|_| ()),
    },
    Rule {
        text: "gpu.unified_l1_kb, when not 0, is a whole multiple of gpu.l1_cache's size, and \
            gpu.shmem_carveouts are increasing KB below it, the largest at least \
            gpu.shmem_bytes",
        check: |c: &UserConfig| unified(&c.gpu, &l1_cache(&c.gpu)?).map(|_| ()),
    },
];

/// An SM's storage shared by its L1 and its shared memory (GPGPU-Sim's adaptive cache
/// configuration, decision GPU-32).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnifiedL1 {
    /// Its bytes.
    pub bytes: u32,
    /// The shared-memory carve-outs in KB, increasing.
    pub carveouts: Vec<u32>,
    /// Ways of the L1's sets the whole storage would hold.
    pub max_ways: u32,
}

impl UnifiedL1 {
    /// The L1's ways for a kernel whose resident blocks take `shmem` bytes of an SM's shared
    /// memory: the smallest carve-out holding them (the largest when none does; the
    /// occupancy keeps them within gpu.shmem_bytes, which a rule makes the largest hold), and
    /// the ways of what it leaves rounded to the nearest (half up), as GPGPU-Sim's `max_cta`
    /// sets them.
    pub fn l1_ways(&self, shmem: u64) -> u32 {
        let kb = self
            .carveouts
            .iter()
            .copied()
            .find(|&kb| shmem <= u64::from(kb) * 1024)
            .or(self.carveouts.last().copied())
            .unwrap_or(0);
        let (unified, max_ways) = (u64::from(self.bytes), u64::from(self.max_ways));
        let left = unified.saturating_sub(u64::from(kb) * 1024);
        let ways = (2 * max_ways * left + unified) / (2 * unified);
        // (At most max_ways, a u32.)
        u32::try_from(ways).unwrap_or(self.max_ways)
    }
}

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
    pub l1: CacheString,
    pub l1_latency: u32,
    /// Banks of the L1: accesses a cycle, each to another bank.
    pub l1_banks: u32,
    pub schedulers: u32,
    pub scheduler: WarpScheduler,
    pub active_warps: u32,
    pub priority_warps: u32,
    /// CCWS: victim tags per warp, the score at rest, the points per victim-tag hit.
    pub ccws_vta_entries: u32,
    pub ccws_base_score: u32,
    pub ccws_hit_points: u32,
    pub coalesce_arch: u32,
    pub warp_parts: u32,
    pub skip_l1: bool,
    pub flush_l1: bool,
    /// Per [`ExecClass`] (by [`ExecClass::index`]): its units' timing.
    pub exec: [ExecTiming; ExecClass::COUNT],
    pub shared_latency: u32,
    pub registers: u32,
    pub shmem_bytes: u32,
    /// Core cycles from a kernel's launch to its first block's placement.
    pub kernel_launch_latency: u32,
    /// The storage the L1 shares with shared memory, when each kernel's L1 is sized by it.
    pub unified_l1: Option<UnifiedL1>,
}

impl GpuSpec {
    /// From keys the rules have checked.
    pub(crate) fn new(g: &GpuConfig) -> Result<GpuSpec, String> {
        let l1 = l1_cache(g)?;
        let unified_l1 = unified(g, &l1)?;
        Ok(GpuSpec {
            sms: g.sms,
            warps_per_sm: g.warps_per_sm,
            ctas_per_sm: g.ctas_per_sm,
            warp_size: g.warp_size,
            line_bytes: g.line_bytes,
            line_bits: g.line_bytes.trailing_zeros(),
            l1,
            l1_latency: g.l1_latency,
            l1_banks: g.l1_banks,
            schedulers: g.schedulers,
            scheduler: g.scheduler,
            active_warps: g.active_warps,
            priority_warps: g.priority_warps,
            ccws_vta_entries: g.ccws_vta_entries,
            ccws_base_score: g.ccws_base_score,
            ccws_hit_points: g.ccws_hit_points,
            coalesce_arch: g.coalesce_arch,
            warp_parts: g.warp_parts,
            skip_l1: g.skip_l1,
            flush_l1: g.flush_l1,
            exec: std::array::from_fn(|i| ExecClass::ALL[i].timing(g)),
            shared_latency: g.shared_latency,
            registers: g.registers,
            shmem_bytes: g.shmem_bytes,
            kernel_launch_latency: g.kernel_launch_latency,
            unified_l1,
        })
    }

    /// The timing of `class`'s units.
    pub fn exec(&self, class: ExecClass) -> ExecTiming {
        self.exec[class.index()]
    }
}
