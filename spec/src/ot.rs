//! The observation-table (OT) address predictor of seed 000: its keys, the validated spec with
//! every derived width, and its interface.

use crate::port::{Elem, EnumDecl, Interface, Param, ParamValue, PortSpec};
use crate::schema::{Legal, Rule};
use crate::{clog2, section, word_enum, UserConfig};

word_enum! {
    /// Replacement policy of a set-associative table.
    pub enum Replacement {
        /// True LRU, kept as a per-way age (rank) counter.
        Lru = "lru",
        /// Tree pseudo-LRU, ways - 1 bits per set.
        Plru = "plru",
    }
}

section! {
    /// The observation-table (OT) address predictor of seed 000.
    pub struct OtConfig in "ot" {
        entries: u32 = Legal::Pow2 { min: 1, max: 65536 },
            "observation-table entries (seed 000 Table III: 1024)";
        ways: u32 = Legal::Pow2 { min: 1, max: 65536 },
            "associativity: ways per set; ways = entries is fully associative (the paper's \
                table), 1 is direct-mapped";
        replacement: Replacement = Legal::OneOf(Replacement::NAMES),
            "replacement policy within a set: true LRU (as in the paper) or tree pseudo-LRU";
        addrs_per_entry: u32 = Legal::Range { min: 1, max: 4 },
            "request addresses stored per entry (the reference warp's line requests; the paper \
                stores up to 4)";
        mispredict_threshold: u32 = Legal::Range { min: 0, max: 65534 },
            "an entry stops predicting once its mispredict counter exceeds this (paper: 64); must \
                be below 2^counter_bits - 1";
        grid_dims: u32 = Legal::Range { min: 1, max: 3 },
            "grid dimensions the table stores thread-block ids and strides for (1-D, 2-D or 3-D \
                grids)";
        pc_bits: u32 = Legal::Range { min: 1, max: 64 },
            "width of the load PC field";
        lec_bits: u32 = Legal::Range { min: 1, max: 32 },
            "width of the load execution count (LEC) field; the per-warp count wraps at 2^lec_bits";
        lec: bool = Legal::Bool,
            "the SMs tell the predictor each load's execution count; false tells it 0 for every \
                load, seed 000's 'without LEC' variant (the table and its RTL are unchanged; \
                decision OT-13)";
        tb_bits: u32 = Legal::Range { min: 1, max: 31 },
            "width of each thread-block id component; grids may have up to 2^tb_bits blocks per \
                dimension";
        warp_bits: u32 = Legal::Range { min: 1, max: 10 },
            "width of the local warp id (warp within its thread block)";
        addr_bits: u32 = Legal::Range { min: 8, max: 64 },
            "width of a stored request address (byte address; predictions wrap modulo 2^addr_bits)";
        stride_bits: u32 = Legal::Range { min: 2, max: 64 },
            "width of each signed stride (per grid dimension and inter-warp); strides that do not \
                fit are not learned";
        counter_bits: u32 = Legal::Range { min: 1, max: 16 },
            "width of the saturating mispredict counter";
    }
}

/// Rules between OT keys.
pub(crate) const RULES: &[Rule] = &[
    Rule {
        text: "ot.ways <= ot.entries (ways = entries is fully associative)",
        check: |c: &UserConfig| {
            let o = &c.ot;
            if o.ways > o.entries {
                return Err(format!(
                    "`ot.ways` = {} exceeds `ot.entries` = {}: ways must be at most the number of \
                        entries (ways = entries is fully associative)",
                    o.ways, o.entries
                ));
            }
            Ok(())
        },
    },
    Rule {
        text: "ot.mispredict_threshold <= 2^ot.counter_bits - 2 (the saturating counter must be \
            able to exceed it)",
        check: |c: &UserConfig| {
            let o = &c.ot;
            let counter_max = (1u32 << o.counter_bits) - 1;
            if o.mispredict_threshold >= counter_max {
                return Err(format!(
                    "`ot.mispredict_threshold` = {} cannot be exceeded by a {}-bit counter \
                        (`ot.counter_bits`): the threshold must be at most {}, or raise \
                        `ot.counter_bits` to {}",
                    o.mispredict_threshold,
                    o.counter_bits,
                    counter_max.saturating_sub(1),
                    clog2(u64::from(o.mispredict_threshold) + 2)
                ));
            }
            Ok(())
        },
    },
    Rule {
        text: "max(ot.pc_bits, ot.lec_bits) >= log2(ot.entries / ot.ways) (the set index is \
            folded from the PC and the LEC)",
        check: |c: &UserConfig| {
            let o = &c.ot;
            let sets = o.entries / o.ways.max(1);
            let set_bits = clog2(sets.into());
            if o.pc_bits.max(o.lec_bits) < set_bits {
                return Err(format!(
                    "{sets} sets need a {set_bits}-bit set index, but it is folded from \
                        `ot.pc_bits` = {} and `ot.lec_bits` = {}: only {} sets could ever be \
                        used. Widen one of them to at least {set_bits} bits or raise `ot.ways`",
                    o.pc_bits,
                    o.lec_bits,
                    1u64 << o.pc_bits.max(o.lec_bits)
                ));
            }
            Ok(())
        },
    },
];

/// One storage field of an OT entry, as the cost model and the RTL entry struct see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldSpec {
    /// Field name (also the SystemVerilog struct member name).
    pub name: &'static str,
    /// Bits of one instance.
    pub bits: u32,
    /// Instances per entry (e.g. `addrs_per_entry` addresses, `grid_dims` strides).
    pub count: u32,
    /// What the field holds.
    pub meaning: &'static str,
}

impl FieldSpec {
    pub fn total(&self) -> u32 {
        self.bits * self.count
    }
}

/// The observation table, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OtSpec {
    pub entries: u32,
    pub ways: u32,
    pub sets: u32,
    pub replacement: Replacement,
    pub addrs_per_entry: u32,
    pub threshold: u32,
    pub grid_dims: u32,
    pub pc_bits: u32,
    pub lec_bits: u32,
    /// The SMs tell the predictor each load's execution count (`ot.lec`).
    pub lec: bool,
    pub tb_bits: u32,
    pub warp_bits: u32,
    pub addr_bits: u32,
    pub stride_bits: u32,
    pub counter_bits: u32,

    // ---- derived ----
    /// log2(sets): set-index width (0 for a fully associative table).
    pub set_bits: u32,
    /// log2(ways): way-index width (0 for a direct-mapped table).
    pub way_bits: u32,
    /// Width of a table-slot number on ports (at least 1).
    pub slot_bits: u32,
    /// Width of the stored-address count (0..=addrs_per_entry).
    pub count_bits: u32,
    /// Saturation value of the mispredict counter (threshold + 1 fits below it).
    pub counter_max: u32,
    /// Replacement state bits per set: LRU keeps a log2(ways)-bit age per way, PLRU ways - 1 bits.
    pub repl_bits_per_set: u32,
    /// Signed thread-block id difference width.
    pub tb_diff_bits: u32,
    /// Signed warp id difference width.
    pub warp_diff_bits: u32,
    /// Width of one stride product (a block or warp difference times a stride).
    pub prod_bits: u32,
    /// Exact width of the stride arithmetic (address difference minus up to four products).
    pub calc_bits: u32,
}

impl OtSpec {
    /// What the SMs tell the predictor of a load's execution count: its low `lec_bits` bits
    /// (the counter wraps there), or nothing at all without `ot.lec`.
    pub fn lec_mask(&self) -> u32 {
        match self.lec {
            false => 0,
            true => u32::MAX >> (32 - self.lec_bits),
        }
    }

    /// Derive every width from keys that are in range and keep [`RULES`].
    pub(crate) fn new(c: &OtConfig) -> OtSpec {
        let sets = c.entries / c.ways;
        let way_bits = clog2(c.ways.into());
        let repl_bits_per_set = match c.replacement {
            Replacement::Lru => c.ways * way_bits,
            Replacement::Plru => c.ways - 1,
        };
        let tb_diff_bits = c.tb_bits + 1;
        let warp_diff_bits = c.warp_bits + 1;
        let prod_bits = tb_diff_bits.max(warp_diff_bits) + c.stride_bits;
        OtSpec {
            entries: c.entries,
            ways: c.ways,
            sets,
            replacement: c.replacement,
            addrs_per_entry: c.addrs_per_entry,
            threshold: c.mispredict_threshold,
            grid_dims: c.grid_dims,
            pc_bits: c.pc_bits,
            lec_bits: c.lec_bits,
            lec: c.lec,
            tb_bits: c.tb_bits,
            warp_bits: c.warp_bits,
            addr_bits: c.addr_bits,
            stride_bits: c.stride_bits,
            counter_bits: c.counter_bits,
            set_bits: clog2(sets.into()),
            way_bits,
            slot_bits: clog2(c.entries.into()).max(1),
            count_bits: clog2(u64::from(c.addrs_per_entry) + 1),
            counter_max: (1u32 << c.counter_bits) - 1,
            repl_bits_per_set,
            tb_diff_bits,
            warp_diff_bits,
            prod_bits,
            calc_bits: (c.addr_bits + 1).max(prod_bits) + 3,
        }
    }

    /// The fields of one entry, in the order of the RTL entry struct (most significant first).
    pub fn entry_fields(&self) -> Vec<FieldSpec> {
        let d = self.grid_dims;
        let f = |name, bits, count, meaning| FieldSpec {
            name,
            bits,
            count,
            meaning,
        };
        vec![
            f("valid", 1, 1, "entry holds a load"),
            f("pc", self.pc_bits, 1, "load PC (tag, with LEC)"),
            f(
                "lec",
                self.lec_bits,
                1,
                "load execution count (tag, with PC)",
            ),
            f(
                "tb",
                self.tb_bits,
                d,
                "reference thread-block id, per grid dimension",
            ),
            f("warp", self.warp_bits, 1, "reference local warp id"),
            f("naddrs", self.count_bits, 1, "addresses stored"),
            f(
                "addr",
                self.addr_bits,
                self.addrs_per_entry,
                "reference warp's request addresses",
            ),
            f(
                "stride",
                self.stride_bits,
                d,
                "signed stride per grid dimension",
            ),
            f("stride_known", 1, d, "stride of that dimension learned"),
            f("iws", self.stride_bits, 1, "signed inter-warp stride"),
            f("iws_known", 1, 1, "inter-warp stride learned"),
            f(
                "mispredicts",
                self.counter_bits,
                1,
                "saturating mispredict counter",
            ),
        ]
    }

    /// Bits of one entry (without replacement state).
    pub fn entry_bits(&self) -> u32 {
        self.entry_fields().iter().map(FieldSpec::total).sum()
    }

    /// The block's parameters: the module's, every width derived from them, and the entry size.
    pub fn params(&self) -> Vec<Param> {
        let u = u64::from;
        vec![
            Param::key("num_entries", u(self.entries), "table entries"),
            Param::key(
                "num_ways",
                u(self.ways),
                "ways per set (NumEntries: fully associative)",
            ),
            Param {
                name: "replacement",
                value: ParamValue::Word {
                    ty: "ot_repl",
                    word: self.replacement.name(),
                },
                role: crate::port::Role::Key,
                meaning: "replacement policy within a set",
            },
            Param::key(
                "max_addrs",
                u(self.addrs_per_entry),
                "addresses stored per entry",
            ),
            Param::key(
                "threshold",
                u(self.threshold),
                "an entry predicts while mispredicts <= Threshold",
            ),
            Param::key("num_dims", u(self.grid_dims), "grid dimensions tracked"),
            Param::key("pc_w", u(self.pc_bits), "load PC width"),
            Param::key("lec_w", u(self.lec_bits), "load execution count width"),
            Param::key(
                "tb_w",
                u(self.tb_bits),
                "thread-block id width per dimension",
            ),
            Param::key("warp_w", u(self.warp_bits), "local warp id width"),
            Param::key("addr_w", u(self.addr_bits), "address width"),
            Param::key("stride_w", u(self.stride_bits), "signed stride width"),
            Param::key("cnt_w", u(self.counter_bits), "mispredict counter width"),
            Param::derived("num_sets", u(self.sets), "sets: NumEntries / NumWays"),
            Param::derived(
                "set_bits",
                u(self.set_bits),
                "set-index bits: log2(NumSets)",
            ),
            Param::derived(
                "set_w",
                u(self.set_bits.max(1)),
                "set-index width on wires (at least 1)",
            ),
            Param::derived("way_bits", u(self.way_bits), "way bits: log2(NumWays)"),
            Param::derived(
                "way_w",
                u(self.way_bits.max(1)),
                "way-index width on wires (at least 1)",
            ),
            Param::derived(
                "plru_nodes",
                u(self.ways - 1),
                "tree pseudo-LRU node bits per set: NumWays - 1",
            ),
            Param::derived(
                "slot_w",
                u(self.slot_bits),
                "table-slot width: log2(NumEntries), at least 1",
            ),
            Param::derived(
                "count_w",
                u(self.count_bits),
                "stored-address count width: log2(MaxAddrs + 1)",
            ),
            Param::derived(
                "tb_diff_w",
                u(self.tb_diff_bits),
                "signed thread-block id difference: TbW + 1",
            ),
            Param::derived(
                "warp_diff_w",
                u(self.warp_diff_bits),
                "signed warp id difference: WarpW + 1",
            ),
            Param::derived(
                "prod_w",
                u(self.prod_bits),
                "one stride product: max(TbDiffW, WarpDiffW) + StrideW",
            ),
            Param::derived(
                "calc_w",
                u(self.calc_bits),
                "exact stride arithmetic: max(AddrW + 1, ProdW) + 3",
            ),
            Param::info("entry_bits", u(self.entry_bits()), "bits of one entry"),
            Param::info(
                "repl_bits_per_set",
                u(self.repl_bits_per_set),
                "replacement state bits per set",
            ),
        ]
    }

    /// The enumerations on the interface.
    pub fn enums(&self) -> Vec<EnumDecl> {
        vec![
            EnumDecl {
                name: "ot_repl",
                bits: 1,
                members: &[("lru", 0), ("plru", 1)],
                meaning: "replacement policy within a set",
            },
            EnumDecl {
                name: "ot_event",
                bits: OtEvent::BITS,
                members: OtEvent::MEMBERS,
                meaning: "what an observation did to the table (upd_event_o)",
            },
        ]
    }

    /// The block's interface: parameters, enumerations and ports (clock and reset excluded), in
    /// declaration order.
    pub fn interface(&self) -> Interface {
        let dims = Some("num_dims");
        let p = Elem::Param;
        Interface::new(self.params(), self.enums())
            .input(
                "launch_valid_i",
                None,
                Elem::Bit,
                "kernel launch: flush the table and latch the grid shape",
            )
            .input(
                "launch_tb_last_i",
                dims,
                p("tb_w"),
                "launch: last thread-block id per grid dimension (grid size - 1)",
            )
            .input(
                "launch_warp_last_i",
                None,
                p("warp_w"),
                "launch: last local warp id (warps per block - 1)",
            )
            .input("obs_valid_i", None, Elem::Bit, "snooped load request valid")
            .input("obs_pc_i", None, p("pc_w"), "snooped request: load PC")
            .input(
                "obs_lec_i",
                None,
                p("lec_w"),
                "snooped request: load execution count",
            )
            .input(
                "obs_tb_i",
                dims,
                p("tb_w"),
                "snooped request: thread-block id",
            )
            .input(
                "obs_warp_i",
                None,
                p("warp_w"),
                "snooped request: local warp id",
            )
            .input("obs_addr_i", None, p("addr_w"), "snooped request: address")
            .input("pred_valid_i", None, Elem::Bit, "prediction query valid")
            .input("pred_pc_i", None, p("pc_w"), "query: load PC")
            .input(
                "pred_lec_i",
                None,
                p("lec_w"),
                "query: load execution count",
            )
            .input(
                "pred_tb_i",
                dims,
                p("tb_w"),
                "query: target thread-block id",
            )
            .input(
                "pred_warp_i",
                None,
                p("warp_w"),
                "query: target local warp id",
            )
            .output(
                "pred_valid_o",
                None,
                Elem::Bit,
                "prediction response valid (one cycle after the query)",
            )
            .output(
                "pred_hit_o",
                None,
                Elem::Bit,
                "a ready entry below the mispredict threshold answered",
            )
            .output(
                "pred_count_o",
                None,
                p("count_w"),
                "predicted addresses (0 on a miss)",
            )
            .output(
                "pred_addr_o",
                Some("max_addrs"),
                p("addr_w"),
                "predicted addresses; element i valid for i < pred_count_o, zero otherwise",
            )
            .output(
                "upd_valid_o",
                None,
                Elem::Bit,
                "observation processed (one cycle after it)",
            )
            .output(
                "upd_event_o",
                None,
                Elem::Enum("ot_event"),
                "what the observation did",
            )
            .output(
                "upd_slot_o",
                None,
                p("slot_w"),
                "table slot (set * ways + way) the observation used",
            )
            .output(
                "upd_evict_o",
                None,
                Elem::Bit,
                "the allocation replaced a valid entry",
            )
            .output(
                "upd_ready_o",
                None,
                Elem::Bit,
                "the entry has every stride the launched grid needs",
            )
    }

    /// The block's ports.
    pub fn ports(&self) -> Vec<PortSpec> {
        self.interface().ports
    }
}

/// What an observation did to the table, reported on `upd_event_o` one cycle later.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OtEvent {
    /// No observation last cycle.
    None,
    /// Miss: a new entry was allocated (Fig. 6 steps 1 and 6).
    Alloc,
    /// Same thread block and warp as the reference: the address was appended (step 2).
    Append,
    /// Exactly one stride or the inter-warp stride was unknown and has been learned (steps 3, 4, 5,
    /// 7).
    Learn,
    /// Every stride involved was known and the address matched the entry's prediction.
    Hit,
    /// Every stride involved was known and the address did not match: mispredict counter + 1.
    Mispredict,
    /// Entry matched but nothing could be learned (duplicate or overflowing address, two or more
    /// unknowns, a non-integral or unrepresentable stride).
    Ignore,
}

impl OtEvent {
    pub const ALL: [OtEvent; 7] = [
        OtEvent::None,
        OtEvent::Alloc,
        OtEvent::Append,
        OtEvent::Learn,
        OtEvent::Hit,
        OtEvent::Mispredict,
        OtEvent::Ignore,
    ];
    /// Width of the event code.
    pub const BITS: u32 = 3;
    /// Every event's word and code, in code order.
    pub const MEMBERS: &'static [(&'static str, u64)] = &[
        ("none", 0),
        ("alloc", 1),
        ("append", 2),
        ("learn", 3),
        ("hit", 4),
        ("mispredict", 5),
        ("ignore", 6),
    ];

    pub fn code(self) -> u32 {
        self as u32
    }

    pub fn from_code(code: u64) -> Option<OtEvent> {
        OtEvent::ALL.get(usize::try_from(code).ok()?).copied()
    }

    /// Lower-case name (JSON, reports).
    pub fn name(self) -> &'static str {
        OtEvent::MEMBERS[self as usize].0
    }
}
