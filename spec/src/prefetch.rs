//! The many-thread-aware hardware prefetcher (MT-HWP) of seed 001: its keys, the validated spec
//! with every derived width, and the interface of its per-SM prefetch engine (the PWS, GS and IP
//! tables with their training, promotion and lookup, and the adaptive throttle).

use crate::gpu::GpuSpec;
use crate::ot::FieldSpec;
use crate::port::{Elem, EnumDecl, Interface, Param, PortSpec};
use crate::schema::{Legal, Rule};
use crate::{clog2, section, word_enum, UserConfig};

word_enum! {
    /// The prefetcher the GPU runs.
    pub enum PrefetchKind {
        /// No prefetching (the baseline).
        None = "none",
        /// Seed 001's "enhanced StridePC": the per-warp stride (PWS) table only.
        Stridepc = "stridepc",
        /// Seed 001's MT-HWP: the PWS, GS and IP tables.
        MtHwp = "mt-hwp",
        /// MT-HWP without its IP table (seed 001 Fig. 14's PWS+GS): golden model only.
        PwsGs = "pws-gs",
        /// MT-HWP without its GS table (seed 001 Fig. 14's PWS+IP): golden model only.
        PwsIp = "pws-ip",
        /// Seed 001's Stream baseline (the POWER5 stream prefetcher it cites), trained per warp:
        /// golden model only, no RTL.
        Stream = "stream",
        /// Seed 001's GHB baseline (AC/DC: a global history buffer with delta correlation in
        /// concentration zones), trained per warp: golden model only, no RTL.
        Ghb = "ghb",
    }
}

section! {
    /// The many-thread-aware hardware prefetcher of seed 001 (one engine and prefetch cache per
    /// SM).
    pub struct PrefetchConfig in "prefetch" {
        kind: PrefetchKind = Legal::OneOf(PrefetchKind::NAMES),
            "the GPU's prefetcher: none, stridepc (PWS table only, seed 001's enhanced StridePC), \
                mt-hwp (PWS, GS and IP tables), pws-gs or pws-ip (MT-HWP with two of its tables, \
                seed 001 Fig. 14; golden models only), stream or ghb (seed 001's Stream and GHB \
                AC/DC baselines trained per warp, golden models only); the generated RTL is \
                MT-HWP unless this is stridepc";
        throttle: bool = Legal::Bool,
            "adaptive prefetch throttling (seed 001 section V): early-eviction rate and merge \
                ratio per period, Table I";
        pws_entries: u32 = Legal::Range { min: 2, max: 256 },
            "per-warp stride (PWS) table entries, fully associative by PC and warp id, LRU (seed \
                001: 32)";
        gs_entries: u32 = Legal::Range { min: 2, max: 64 },
            "global stride (GS) table entries, fully associative by PC, LRU (seed 001: 8)";
        ip_entries: u32 = Legal::Range { min: 2, max: 64 },
            "inter-thread prefetching (IP) table entries, fully associative by PC, LRU (seed 001: \
                8)";
        promote_count: u32 = Legal::Range { min: 1, max: 16 },
            "trained PWS entries of one PC holding the same stride that promote it to the GS \
                table (seed 001: three)";
        distance: u32 = Legal::Range { min: 1, max: 15 },
            "prefetch distance: the first prefetch is this many strides ahead of the triggering \
                access (seed 001: 1)";
        degree: u32 = Legal::Range { min: 1, max: 8 },
            "prefetch degree: prefetches per trigger, at distance, distance + 1, ... strides \
                (seed 001: 1)";
        pc_bits: u32 = Legal::Range { min: 1, max: 64 },
            "width of a stored PC (seed 001 Table VI: 4 B)";
        wid_bits: u32 = Legal::Range { min: 1, max: 16 },
            "width of a stored warp id (seed 001 Table VI: 1 B); must hold every warp of an SM";
        addr_bits: u32 = Legal::Range { min: 8, max: 64 },
            "width of a stored address (seed 001 Table VI: 4 B); prefetch addresses wrap modulo \
                2^addr_bits";
        stride_bits: u32 = Legal::Range { min: 2, max: 32 },
            "width of a signed stride (seed 001 Table VI: 20 b); a difference that does not fit \
                is never learned";
        period: u32 = Legal::Range { min: 2, max: 16_777_216 },
            "throttle period in core cycles: the metrics are updated at the end of each (seed \
                001: 100,000)";
        initial_throttle: u32 = Legal::Range { min: 0, max: 5 },
            "throttle degree at reset: 0 keeps every prefetch, 5 drops them all (seed 001: 2)";
        early_high_permille: u32 = Legal::Range { min: 0, max: 1000 },
            "early-eviction rate (eq. 5) above this, in thousandths, is high (seed 001: 0.02 = 20)";
        early_low_permille: u32 = Legal::Range { min: 0, max: 1000 },
            "early-eviction rate below this, in thousandths, is low (seed 001: 0.01 = 10)";
        merge_high_permille: u32 = Legal::Range { min: 0, max: 1000 },
            "merge ratio (eq. 8) above this, in thousandths, is high (seed 001: 15% = 150)";
        merge_frac_bits: u32 = Legal::Range { min: 1, max: 16 },
            "fraction bits of the merge ratio the throttle keeps (its serial divider takes this \
                many cycles, and one more to update)";
        cache_kb: u32 = Legal::Pow2 { min: 1, max: 1024 },
            "prefetch cache per SM, KiB (seed 001 Table II: 16)";
        cache_ways: u32 = Legal::Pow2 { min: 1, max: 64 },
            "prefetch cache associativity (seed 001 Table II: 8)";
        into_l1: bool = Legal::Bool,
            "fill prefetched lines into the L1 instead of a separate prefetch cache (then \
                `cache_kb` and `cache_ways` are unused)";
        stream_entries: u32 = Legal::Range { min: 1, max: 4096 },
            "stream prefetcher (`kind = stream`): streams tracked per SM, fully associative by \
                warp and line, LRU (seed 001 Table V: 512)";
        stream_window: u32 = Legal::Range { min: 1, max: 64 },
            "stream prefetcher: a warp's access within this many lines of one of its streams \
                trains that stream, and its direction is confirmed by the next such access \
                (decision HWP-13)";
        ghb_entries: u32 = Legal::Range { min: 2, max: 65536 },
            "GHB prefetcher (`kind = ghb`): lines its global history buffer holds, a FIFO (seed \
                001 Table V: 1024)";
        ghb_index_entries: u32 = Legal::Range { min: 1, max: 4096 },
            "GHB prefetcher: (warp, concentration zone) entries of its index table, LRU (seed 001 \
                Table V: 128)";
        ghb_czone_bits: u32 = Legal::Range { min: 1, max: 63 },
            "GHB prefetcher: a concentration zone is the address above these low bits (seed 001 \
                Table V: 12-bit CZone; decision HWP-14)";
        demand_first: bool = Legal::Bool,
            "the DRAM controllers serve demand requests before prefetches (seed 001 Table II): \
                FCFS, FR-FCFS and Div-First try the demand requests' commands first; not with \
                Warped-MC";
    }
}

/// Rules between prefetcher keys.
pub(crate) const RULES: &[Rule] = &[
    Rule {
        text: "prefetch.early_low_permille <= prefetch.early_high_permille",
        check: |c: &UserConfig| {
            let p = &c.prefetch;
            if p.early_low_permille > p.early_high_permille {
                return Err(format!(
                    "`prefetch.early_low_permille` = {} exceeds `prefetch.early_high_permille` = \
                        {}: a rate cannot be both low and high",
                    p.early_low_permille, p.early_high_permille
                ));
            }
            Ok(())
        },
    },
    Rule {
        text: "prefetch.merge_frac_bits + 1 < prefetch.period (the throttle's update ends before \
            the next period does)",
        check: |c: &UserConfig| {
            let p = &c.prefetch;
            if p.merge_frac_bits + 1 >= p.period {
                return Err(format!(
                    "`prefetch.period` = {} is not longer than the {} cycles the throttle's \
                        update takes (`prefetch.merge_frac_bits` + 1): lengthen the period",
                    p.period,
                    p.merge_frac_bits + 1
                ));
            }
            Ok(())
        },
    },
    Rule {
        text: "prefetch.stride_bits <= prefetch.addr_bits (a stride spans at most the address \
            space)",
        check: |c: &UserConfig| {
            let p = &c.prefetch;
            if p.stride_bits > p.addr_bits {
                return Err(format!(
                    "`prefetch.stride_bits` = {} exceeds `prefetch.addr_bits` = {}: a stride \
                        wider than an address adds nothing; lower it to at most {}",
                    p.stride_bits, p.addr_bits, p.addr_bits
                ));
            }
            Ok(())
        },
    },
    Rule {
        text: "prefetch.demand_first = false when a prefetcher runs under mc.scheduler = warped \
            (the Warped-MC block selects among every candidate)",
        check: |c: &UserConfig| {
            let p = &c.prefetch;
            if p.demand_first
                && p.kind != PrefetchKind::None
                && c.mc.scheduler == crate::Scheduler::Warped
            {
                return Err(
                    "`prefetch.demand_first` = true cannot hold under `mc.scheduler` = \
                    warped: the Warped-MC block selects among all its candidates, prefetches \
                    included; set `prefetch.demand_first=false`, or use the fcfs, frfcfs or \
                    divfirst scheduler"
                        .into(),
                );
            }
            Ok(())
        },
    },
    Rule {
        text: "prefetch.promote_count <= prefetch.pws_entries",
        check: |c: &UserConfig| {
            let p = &c.prefetch;
            if p.promote_count > p.pws_entries {
                return Err(format!(
                    "`prefetch.promote_count` = {} exceeds `prefetch.pws_entries` = {}: no stride \
                        could ever be promoted",
                    p.promote_count, p.pws_entries
                ));
            }
            Ok(())
        },
    },
    Rule {
        text: "2^prefetch.wid_bits >= gpu.warps_per_sm (a stored warp id names every warp of an \
            SM)",
        check: |c: &UserConfig| {
            let p = &c.prefetch;
            if u64::from(c.gpu.warps_per_sm) > 1u64 << p.wid_bits {
                return Err(format!(
                    "`prefetch.wid_bits` = {} cannot name the {} warps of an SM \
                        (`gpu.warps_per_sm`): raise it to {}",
                    p.wid_bits,
                    c.gpu.warps_per_sm,
                    clog2(c.gpu.warps_per_sm.into())
                ));
            }
            Ok(())
        },
    },
    Rule {
        text: "prefetch.cache_kb * 1024 >= prefetch.cache_ways * gpu.line_bytes (the prefetch \
            cache has a set)",
        check: |c: &UserConfig| {
            let p = &c.prefetch;
            let bytes = u64::from(p.cache_kb) * 1024;
            let way_line = u64::from(p.cache_ways) * u64::from(c.gpu.line_bytes);
            if bytes < way_line {
                return Err(format!(
                    "a {} KiB prefetch cache cannot hold {} ways of {} B lines: lower \
                        `prefetch.cache_ways` or raise `prefetch.cache_kb`",
                    p.cache_kb, p.cache_ways, c.gpu.line_bytes
                ));
            }
            Ok(())
        },
    },
];

/// Where a prefetch engine's prediction came from, on `pf_src_o`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum PfSource {
    /// No table predicted (or no lookup finished this cycle).
    None,
    /// The global stride table (a promoted stride).
    Gs,
    /// The inter-thread prefetching table.
    Ip,
    /// The per-warp stride table.
    Pws,
}

impl PfSource {
    pub const ALL: [PfSource; 4] = [PfSource::None, PfSource::Gs, PfSource::Ip, PfSource::Pws];
    pub const BITS: u32 = 2;
    pub const MEMBERS: &'static [(&'static str, u64)] =
        &[("none", 0), ("gs", 1), ("ip", 2), ("pws", 3)];

    pub fn code(self) -> u32 {
        self as u32
    }

    pub fn name(self) -> &'static str {
        PfSource::MEMBERS[self as usize].0
    }
}

/// The prefetcher, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrefetchSpec {
    pub kind: PrefetchKind,
    pub throttle: bool,
    pub pws_entries: u32,
    pub gs_entries: u32,
    pub ip_entries: u32,
    pub promote_count: u32,
    pub distance: u32,
    pub degree: u32,
    pub pc_bits: u32,
    pub wid_bits: u32,
    pub addr_bits: u32,
    pub stride_bits: u32,
    pub period: u32,
    pub initial_throttle: u32,
    pub early_high_permille: u32,
    pub early_low_permille: u32,
    pub merge_high_permille: u32,
    pub merge_frac_bits: u32,
    pub cache_kb: u32,
    pub cache_ways: u32,
    pub into_l1: bool,
    pub stream_entries: u32,
    pub stream_window: u32,
    pub ghb_entries: u32,
    pub ghb_index_entries: u32,
    pub ghb_czone_bits: u32,
    pub demand_first: bool,
    /// Line size of the GPU (`gpu.line_bytes`).
    pub line_bytes: u32,

    // ---- derived ----
    /// The RTL holds the PWS table only (`kind = stridepc`).
    pub pws_only: bool,
    /// The engine uses its GS table (promotion and lookup) and its IP table (training and
    /// lookup): as the RTL holds them (both but under stridepc); the GPU's pws-gs and pws-ip
    /// engines turn one off.
    pub gs_table: bool,
    pub ip_table: bool,
    /// LRU rank width of each table: log2(entries).
    pub pws_rank_bits: u32,
    pub gs_rank_bits: u32,
    pub ip_rank_bits: u32,
    /// Width of a per-period event counter (at most one event a cycle): log2(period + 1).
    pub count_bits: u32,
    /// Width of the period's cycle counter: log2(period).
    pub period_bits: u32,
    /// Width of the prefetch count on the output: log2(degree + 1).
    pub pf_count_bits: u32,
    /// The merge ratio in fixed point: merge_frac_bits fraction bits and one integer bit.
    pub merge_bits: u32,
    /// The merge ratio is high when its fixed-point value exceeds this:
    /// floor(merge_high_permille * 2^merge_frac_bits / 1000).
    pub merge_high_thr: u64,
    /// Width of the divider's step counter (merge_frac_bits steps, then the update):
    /// log2(merge_frac_bits + 2).
    pub div_count_bits: u32,
    /// Width of the early-eviction rate comparisons (eq. 5, 7: a per-period count times 1000 or
    /// a permille): count_bits + 10 (1000 < 2^10).
    pub mul_bits: u32,
    /// The merge ratio 1 in fixed point: 2^merge_frac_bits.
    pub merge_one: u64,
    /// Prefetch-cache sets: cache_kb KiB / (ways * line).
    pub cache_sets: u32,
}

/// Width of the throttle degree (0..=5).
pub const THROTTLE_BITS: u32 = 3;
/// The throttle degree that drops every prefetch.
pub const THROTTLE_MAX: u32 = 5;

impl PrefetchSpec {
    pub(crate) fn new(c: &PrefetchConfig, gpu: &GpuSpec) -> PrefetchSpec {
        let rank = |n: u32| clog2(n.into());
        PrefetchSpec {
            kind: c.kind,
            throttle: c.throttle,
            pws_entries: c.pws_entries,
            gs_entries: c.gs_entries,
            ip_entries: c.ip_entries,
            promote_count: c.promote_count,
            distance: c.distance,
            degree: c.degree,
            pc_bits: c.pc_bits,
            wid_bits: c.wid_bits,
            addr_bits: c.addr_bits,
            stride_bits: c.stride_bits,
            period: c.period,
            initial_throttle: c.initial_throttle,
            early_high_permille: c.early_high_permille,
            early_low_permille: c.early_low_permille,
            merge_high_permille: c.merge_high_permille,
            merge_frac_bits: c.merge_frac_bits,
            cache_kb: c.cache_kb,
            cache_ways: c.cache_ways,
            into_l1: c.into_l1,
            stream_entries: c.stream_entries,
            stream_window: c.stream_window,
            ghb_entries: c.ghb_entries,
            ghb_index_entries: c.ghb_index_entries,
            ghb_czone_bits: c.ghb_czone_bits,
            demand_first: c.demand_first,
            line_bytes: gpu.line_bytes,
            pws_only: c.kind == PrefetchKind::Stridepc,
            gs_table: c.kind != PrefetchKind::Stridepc,
            ip_table: c.kind != PrefetchKind::Stridepc,
            pws_rank_bits: rank(c.pws_entries),
            gs_rank_bits: rank(c.gs_entries),
            ip_rank_bits: rank(c.ip_entries),
            count_bits: clog2(u64::from(c.period) + 1),
            period_bits: clog2(c.period.into()),
            pf_count_bits: clog2(u64::from(c.degree) + 1),
            merge_bits: c.merge_frac_bits + 1,
            merge_high_thr: (u64::from(c.merge_high_permille) << c.merge_frac_bits) / 1000,
            div_count_bits: clog2(u64::from(c.merge_frac_bits) + 2),
            mul_bits: clog2(u64::from(c.period) + 1) + 10,
            merge_one: 1u64 << c.merge_frac_bits,
            cache_sets: (c.cache_kb * 1024) / (c.cache_ways * gpu.line_bytes),
        }
    }

    /// The PWS entry's fields (seed 001 Table VI: PC 4 B, wid 1 B, train 1 b, last 4 B,
    /// stride 20 b = 93 bits).
    pub fn pws_fields(&self) -> Vec<FieldSpec> {
        vec![
            f("pc", self.pc_bits, 1, "load PC (tag, with the warp id)"),
            f("wid", self.wid_bits, 1, "warp id (tag, with the PC)"),
            f(
                "train",
                1,
                1,
                "the stride repeated: the entry predicts and may be promoted",
            ),
            f(
                "last",
                self.addr_bits,
                1,
                "the warp's last address at this PC",
            ),
            f("stride", self.stride_bits, 1, "signed stride"),
        ]
    }

    /// The GS entry's fields (Table VI: PC 4 B, stride 20 b = 52 bits).
    pub fn gs_fields(&self) -> Vec<FieldSpec> {
        vec![
            f("pc", self.pc_bits, 1, "load PC (tag)"),
            f("stride", self.stride_bits, 1, "promoted signed stride"),
        ]
    }

    /// The IP entry's fields (Table VI: PC 4 B, stride 20 b, train 1 b, 2 warp ids 2 B,
    /// 2 addresses 8 B = 133 bits).
    pub fn ip_fields(&self) -> Vec<FieldSpec> {
        vec![
            f("pc", self.pc_bits, 1, "load PC (tag)"),
            f(
                "stride",
                self.stride_bits,
                1,
                "signed stride between the last two warps' accesses",
            ),
            f(
                "train",
                1,
                1,
                "three warps in a row showed the stride: the entry predicts",
            ),
            f(
                "wid",
                self.wid_bits,
                2,
                "warp ids of the last two accesses (newest first)",
            ),
            f(
                "addr",
                self.addr_bits,
                2,
                "addresses of the last two accesses (newest first)",
            ),
        ]
    }

    /// The engine's parameters: the module's, every width derived from them, entry sizes.
    pub fn params(&self) -> Vec<Param> {
        let u = u64::from;
        let bits = |v: Vec<FieldSpec>| v.iter().map(|x| u64::from(x.bits * x.count)).sum::<u64>();
        vec![
            Param::key(
                "pws_only",
                u(u32::from(self.pws_only)),
                "1: the PWS table only (StridePC); 0: PWS, GS and IP (MT-HWP)",
            ),
            Param::key(
                "throttle",
                u(u32::from(self.throttle)),
                "1: adaptive throttling; 0: every prefetch is kept",
            ),
            Param::key("num_pws", u(self.pws_entries), "PWS table entries"),
            Param::key("num_gs", u(self.gs_entries), "GS table entries"),
            Param::key("num_ip", u(self.ip_entries), "IP table entries"),
            Param::key(
                "promote_count",
                u(self.promote_count),
                "agreeing trained PWS entries that promote a stride",
            ),
            Param::key(
                "distance",
                u(self.distance),
                "prefetch distance, in strides",
            ),
            Param::key("degree", u(self.degree), "prefetches per trigger"),
            Param::key("pc_w", u(self.pc_bits), "PC width"),
            Param::key("wid_w", u(self.wid_bits), "warp id width"),
            Param::key("addr_w", u(self.addr_bits), "address width"),
            Param::key("stride_w", u(self.stride_bits), "signed stride width"),
            Param::key("period", u(self.period), "throttle period, cycles"),
            Param::key(
                "init_throttle",
                u(self.initial_throttle),
                "throttle degree at reset",
            ),
            Param::key(
                "early_high_pm",
                u(self.early_high_permille),
                "early-eviction rate above this (thousandths) is high",
            ),
            Param::key(
                "early_low_pm",
                u(self.early_low_permille),
                "early-eviction rate below this (thousandths) is low",
            ),
            Param::key(
                "merge_frac_w",
                u(self.merge_frac_bits),
                "merge-ratio fraction bits",
            ),
            Param::key(
                "merge_high_pm",
                u(self.merge_high_permille),
                "merge ratio above this (thousandths) is high",
            ),
            Param::derived(
                "merge_high_thr",
                self.merge_high_thr,
                "the merge ratio in fixed point is high above this: MergeHighPm * 2^MergeFracW / \
                    1000",
            ),
            Param::derived("thr_w", u(THROTTLE_BITS), "throttle degree width (0..5)"),
            Param::derived(
                "pws_rank_w",
                u(self.pws_rank_bits),
                "PWS LRU rank width: log2(NumPws)",
            ),
            Param::derived(
                "gs_rank_w",
                u(self.gs_rank_bits),
                "GS LRU rank width: log2(NumGs)",
            ),
            Param::derived(
                "ip_rank_w",
                u(self.ip_rank_bits),
                "IP LRU rank width: log2(NumIp)",
            ),
            Param::derived(
                "cnt_w",
                u(self.count_bits),
                "per-period event counter width: log2(Period + 1)",
            ),
            Param::derived(
                "per_w",
                u(self.period_bits),
                "period cycle counter width: log2(Period)",
            ),
            Param::derived(
                "pf_cnt_w",
                u(self.pf_count_bits),
                "prefetch count width: log2(Degree + 1)",
            ),
            Param::derived(
                "merge_w",
                u(self.merge_bits),
                "merge ratio width: MergeFracW + 1",
            ),
            Param::derived(
                "div_cnt_w",
                u(self.div_count_bits),
                "divider step counter width: log2(MergeFracW + 2)",
            ),
            Param::derived(
                "mul_w",
                u(self.mul_bits),
                "early-eviction rate comparison width (eq. 5, 7): CntW + 10",
            ),
            Param::derived(
                "merge_one",
                self.merge_one,
                "the merge ratio 1 in fixed point: 2^MergeFracW",
            ),
            Param::info(
                "pws_entry_bits",
                bits(self.pws_fields()),
                "bits of a PWS entry",
            ),
            Param::info(
                "gs_entry_bits",
                bits(self.gs_fields()),
                "bits of a GS entry",
            ),
            Param::info(
                "ip_entry_bits",
                bits(self.ip_fields()),
                "bits of an IP entry",
            ),
        ]
    }

    /// The enumerations on the interface.
    pub fn enums(&self) -> Vec<EnumDecl> {
        vec![EnumDecl {
            name: "pf_src",
            bits: PfSource::BITS,
            members: PfSource::MEMBERS,
            meaning: "the table a prediction came from (pf_src_o)",
        }]
    }

    /// The prefetch engine's interface (clock and reset excluded).
    pub fn interface(&self) -> Interface {
        let p = Elem::Param;
        let bit = Elem::Bit;
        Interface::new(self.params(), self.enums())
            .input(
                "launch_i",
                None,
                bit,
                "kernel launch: empty the three tables (the throttle keeps its state); never with \
                    acc_valid_i",
            )
            .input(
                "acc_valid_i",
                None,
                bit,
                "a warp's global load (its first line request) trains the engine; taken when \
                    acc_ready_o",
            )
            .input("acc_pc_i", None, p("pc_w"), "the load's PC")
            .input("acc_wid_i", None, p("wid_w"), "the warp id")
            .input("acc_addr_i", None, p("addr_w"), "the address")
            .input(
                "ev_useful_i",
                None,
                bit,
                "throttle: a prefetched line had its first demand use",
            )
            .input(
                "ev_early_i",
                None,
                bit,
                "throttle: a prefetched line was evicted before any use",
            )
            .input(
                "ev_merge_i",
                None,
                bit,
                "throttle: a request merged with one in flight in this core's MSHRs",
            )
            .input(
                "ev_request_i",
                None,
                bit,
                "throttle: a request (demand or prefetch) reached this core's MSHRs",
            )
            .output(
                "acc_ready_o",
                None,
                bit,
                "an access is taken next cycle (low while the PWS table is looked up for the last \
                    one)",
            )
            .output(
                "pf_valid_o",
                None,
                bit,
                "a taken access's lookup finished (one cycle after it on a GS or IP hit, two \
                    otherwise)",
            )
            .output(
                "pf_src_o",
                None,
                Elem::Enum("pf_src"),
                "the table that predicted (none: no prediction)",
            )
            .output(
                "pf_drop_o",
                None,
                bit,
                "the throttle dropped the prediction",
            )
            .output(
                "pf_count_o",
                None,
                p("pf_cnt_w"),
                "prefetch addresses issued (0 or Degree)",
            )
            .output(
                "pf_addr_o",
                Some("degree"),
                p("addr_w"),
                "prefetch addresses: access + stride * (Distance + k); zero when not issued",
            )
            .output(
                "pf_promote_o",
                None,
                bit,
                "the PWS lookup promoted the PC's stride to the GS table",
            )
            .output(
                "thr_degree_o",
                None,
                p("thr_w"),
                "throttle degree: of every 5 predictions, this many are dropped",
            )
            .output(
                "thr_update_o",
                None,
                bit,
                "the throttle degree was updated at this edge (a period's end plus the divider)",
            )
            .output(
                "thr_merge_o",
                None,
                p("merge_w"),
                "the current merge ratio, MergeFracW fraction bits (eq. 8)",
            )
    }

    /// The engine's ports.
    pub fn ports(&self) -> Vec<PortSpec> {
        self.interface().ports
    }
}

fn f(name: &'static str, bits: u32, count: u32, meaning: &'static str) -> FieldSpec {
    FieldSpec {
        name,
        bits,
        count,
        meaning,
    }
}
