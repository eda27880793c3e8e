//! The validated observation-table spec: user values plus every derived width.

use super::config::{OtConfig, Replacement};
use super::keys::check_int;
use super::{clog2, SpecError};

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
    /// Exact width of the stride arithmetic (address difference minus up to four products).
    pub calc_bits: u32,
}

impl OtSpec {
    pub fn new(c: &OtConfig) -> Result<OtSpec, SpecError> {
        let entries = check_int("ot.entries", c.entries.into())? as u32;
        let ways = check_int("ot.ways", c.ways.into())? as u32;
        if ways > entries {
            return Err(SpecError::Inconsistent {
                message: format!(
                    "`ot.ways` = {ways} exceeds `ot.entries` = {entries}: ways must be at most the number of entries (ways = entries is fully associative)"
                ),
            });
        }
        let addrs_per_entry = check_int("ot.addrs_per_entry", c.addrs_per_entry.into())? as u32;
        let grid_dims = check_int("ot.grid_dims", c.grid_dims.into())? as u32;
        let pc_bits = check_int("ot.pc_bits", c.pc_bits.into())? as u32;
        let lec_bits = check_int("ot.lec_bits", c.lec_bits.into())? as u32;
        let tb_bits = check_int("ot.tb_bits", c.tb_bits.into())? as u32;
        let warp_bits = check_int("ot.warp_bits", c.warp_bits.into())? as u32;
        let addr_bits = check_int("ot.addr_bits", c.addr_bits.into())? as u32;
        let stride_bits = check_int("ot.stride_bits", c.stride_bits.into())? as u32;
        let counter_bits = check_int("ot.counter_bits", c.counter_bits.into())? as u32;
        let threshold = check_int("ot.mispredict_threshold", c.mispredict_threshold.into())? as u32;
        let counter_max = (1u32 << counter_bits) - 1;
        if threshold >= counter_max {
            return Err(SpecError::Inconsistent {
                message: format!(
                    "`ot.mispredict_threshold` = {threshold} cannot be exceeded by a {counter_bits}-bit counter (`ot.counter_bits`): the threshold must be at most {}, or raise `ot.counter_bits` to {}",
                    counter_max.saturating_sub(1),
                    clog2(u64::from(threshold) + 2)
                ),
            });
        }
        let sets = entries / ways;
        let set_bits = clog2(sets.into());
        if pc_bits.max(lec_bits) < set_bits {
            return Err(SpecError::Inconsistent {
                message: format!(
                    "{sets} sets need a {set_bits}-bit set index, but it is folded from `ot.pc_bits` = {pc_bits} and `ot.lec_bits` = {lec_bits}: only {} sets could ever be used. Widen one of them to at least {set_bits} bits or raise `ot.ways`",
                    1u64 << pc_bits.max(lec_bits)
                ),
            });
        }
        let way_bits = clog2(ways.into());
        let repl_bits_per_set = match c.replacement {
            Replacement::Lru => ways * way_bits,
            Replacement::Plru => ways - 1,
        };
        let tb_diff_bits = tb_bits + 1;
        let warp_diff_bits = warp_bits + 1;
        let prod_bits = tb_diff_bits.max(warp_diff_bits) + stride_bits;
        let calc_bits = (addr_bits + 1).max(prod_bits) + 3;
        Ok(OtSpec {
            entries,
            ways,
            sets,
            replacement: c.replacement,
            addrs_per_entry,
            threshold,
            grid_dims,
            pc_bits,
            lec_bits,
            tb_bits,
            warp_bits,
            addr_bits,
            stride_bits,
            counter_bits,
            set_bits,
            way_bits,
            slot_bits: clog2(entries.into()).max(1),
            count_bits: clog2(u64::from(addrs_per_entry) + 1),
            counter_max,
            repl_bits_per_set,
            tb_diff_bits,
            warp_diff_bits,
            calc_bits,
        })
    }

    /// The fields of one entry, in the order of the RTL entry struct (most significant first).
    pub fn entry_fields(&self) -> Vec<FieldSpec> {
        let d = self.grid_dims;
        vec![
            FieldSpec {
                name: "valid",
                bits: 1,
                count: 1,
                meaning: "entry holds a load",
            },
            FieldSpec {
                name: "pc",
                bits: self.pc_bits,
                count: 1,
                meaning: "load PC (tag, with LEC)",
            },
            FieldSpec {
                name: "lec",
                bits: self.lec_bits,
                count: 1,
                meaning: "load execution count (tag, with PC)",
            },
            FieldSpec {
                name: "tb",
                bits: self.tb_bits,
                count: d,
                meaning: "reference thread-block id, per grid dimension",
            },
            FieldSpec {
                name: "warp",
                bits: self.warp_bits,
                count: 1,
                meaning: "reference local warp id",
            },
            FieldSpec {
                name: "naddrs",
                bits: self.count_bits,
                count: 1,
                meaning: "addresses stored",
            },
            FieldSpec {
                name: "addr",
                bits: self.addr_bits,
                count: self.addrs_per_entry,
                meaning: "reference warp's request addresses",
            },
            FieldSpec {
                name: "stride",
                bits: self.stride_bits,
                count: d,
                meaning: "signed stride per grid dimension",
            },
            FieldSpec {
                name: "stride_known",
                bits: 1,
                count: d,
                meaning: "stride of that dimension learned",
            },
            FieldSpec {
                name: "iws",
                bits: self.stride_bits,
                count: 1,
                meaning: "signed inter-warp stride",
            },
            FieldSpec {
                name: "iws_known",
                bits: 1,
                count: 1,
                meaning: "inter-warp stride learned",
            },
            FieldSpec {
                name: "mispredicts",
                bits: self.counter_bits,
                count: 1,
                meaning: "saturating mispredict counter",
            },
        ]
    }

    /// Bits of one entry (without replacement state).
    pub fn entry_bits(&self) -> u32 {
        self.entry_fields().iter().map(FieldSpec::total).sum()
    }

    /// Largest value of a `bits`-wide unsigned field.
    pub fn mask(bits: u32) -> u64 {
        if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        }
    }
}

/// Direction of a block port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    In,
    Out,
}

/// One port of a generated block: the interface the golden model, the RTL and the
/// co-simulation binding share. `elems > 1` marks a packed array of `elems` x `elem_bits`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortSpec {
    pub name: &'static str,
    pub dir: Dir,
    pub elems: u32,
    pub elem_bits: u32,
    /// SystemVerilog parameter sizing the packed array (`None` for a scalar port).
    pub sv_elems: Option<&'static str>,
    /// How one element is typed in SystemVerilog.
    pub sv_bits: SvWidth,
    pub meaning: &'static str,
}

/// The SystemVerilog type of one port element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SvWidth {
    /// A single `logic` bit.
    Bit,
    /// `logic [Param-1:0]`.
    Param(&'static str),
    /// A named type from the block's package (an enum).
    Type(&'static str),
}

impl PortSpec {
    pub fn width(&self) -> u32 {
        self.elems * self.elem_bits
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
    /// Exactly one stride or the inter-warp stride was unknown and has been learned (steps 3, 4, 5, 7).
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

    pub fn code(self) -> u32 {
        self as u32
    }

    pub fn from_code(code: u64) -> Option<OtEvent> {
        OtEvent::ALL.get(usize::try_from(code).ok()?).copied()
    }

    /// Lower-case name (JSON, reports).
    pub fn name(self) -> &'static str {
        match self {
            OtEvent::None => "none",
            OtEvent::Alloc => "alloc",
            OtEvent::Append => "append",
            OtEvent::Learn => "learn",
            OtEvent::Hit => "hit",
            OtEvent::Mispredict => "mispredict",
            OtEvent::Ignore => "ignore",
        }
    }

    /// SystemVerilog enum member name.
    pub fn sv_name(self) -> &'static str {
        match self {
            OtEvent::None => "OtEvNone",
            OtEvent::Alloc => "OtEvAlloc",
            OtEvent::Append => "OtEvAppend",
            OtEvent::Learn => "OtEvLearn",
            OtEvent::Hit => "OtEvHit",
            OtEvent::Mispredict => "OtEvMispredict",
            OtEvent::Ignore => "OtEvIgnore",
        }
    }
}

impl OtSpec {
    /// The block's ports (clock and reset excluded), in declaration order.
    pub fn ports(&self) -> Vec<PortSpec> {
        use Dir::{In, Out};
        let d = self.grid_dims;
        let p = |name, dir, elems, elem_bits, sv_elems, sv_bits, meaning| PortSpec {
            name,
            dir,
            elems,
            elem_bits,
            sv_elems,
            sv_bits,
            meaning,
        };
        let bit = SvWidth::Bit;
        let one = 1;
        let dims = Some("NumDims");
        vec![
            p(
                "launch_valid_i",
                In,
                one,
                1,
                None,
                bit,
                "kernel launch: flush the table and latch the grid shape",
            ),
            p(
                "launch_tb_last_i",
                In,
                d,
                self.tb_bits,
                dims,
                SvWidth::Param("TbW"),
                "launch: last thread-block id per grid dimension (grid size - 1)",
            ),
            p(
                "launch_warp_last_i",
                In,
                one,
                self.warp_bits,
                None,
                SvWidth::Param("WarpW"),
                "launch: last local warp id (warps per block - 1)",
            ),
            p(
                "obs_valid_i",
                In,
                one,
                1,
                None,
                bit,
                "snooped load request valid",
            ),
            p(
                "obs_pc_i",
                In,
                one,
                self.pc_bits,
                None,
                SvWidth::Param("PcW"),
                "snooped request: load PC",
            ),
            p(
                "obs_lec_i",
                In,
                one,
                self.lec_bits,
                None,
                SvWidth::Param("LecW"),
                "snooped request: load execution count",
            ),
            p(
                "obs_tb_i",
                In,
                d,
                self.tb_bits,
                dims,
                SvWidth::Param("TbW"),
                "snooped request: thread-block id",
            ),
            p(
                "obs_warp_i",
                In,
                one,
                self.warp_bits,
                None,
                SvWidth::Param("WarpW"),
                "snooped request: local warp id",
            ),
            p(
                "obs_addr_i",
                In,
                one,
                self.addr_bits,
                None,
                SvWidth::Param("AddrW"),
                "snooped request: address",
            ),
            p(
                "pred_valid_i",
                In,
                one,
                1,
                None,
                bit,
                "prediction query valid",
            ),
            p(
                "pred_pc_i",
                In,
                one,
                self.pc_bits,
                None,
                SvWidth::Param("PcW"),
                "query: load PC",
            ),
            p(
                "pred_lec_i",
                In,
                one,
                self.lec_bits,
                None,
                SvWidth::Param("LecW"),
                "query: load execution count",
            ),
            p(
                "pred_tb_i",
                In,
                d,
                self.tb_bits,
                dims,
                SvWidth::Param("TbW"),
                "query: target thread-block id",
            ),
            p(
                "pred_warp_i",
                In,
                one,
                self.warp_bits,
                None,
                SvWidth::Param("WarpW"),
                "query: target local warp id",
            ),
            p(
                "pred_valid_o",
                Out,
                one,
                1,
                None,
                bit,
                "prediction response valid (one cycle after the query)",
            ),
            p(
                "pred_hit_o",
                Out,
                one,
                1,
                None,
                bit,
                "a ready entry below the mispredict threshold answered",
            ),
            p(
                "pred_count_o",
                Out,
                one,
                self.count_bits,
                None,
                SvWidth::Param("CountW"),
                "predicted addresses (0 on a miss)",
            ),
            p(
                "pred_addr_o",
                Out,
                self.addrs_per_entry,
                self.addr_bits,
                Some("MaxAddrs"),
                SvWidth::Param("AddrW"),
                "predicted addresses; element i valid for i < pred_count_o, zero otherwise",
            ),
            p(
                "upd_valid_o",
                Out,
                one,
                1,
                None,
                bit,
                "observation processed (one cycle after it)",
            ),
            p(
                "upd_event_o",
                Out,
                one,
                OtEvent::BITS,
                None,
                SvWidth::Type("ot_event_e"),
                "what the observation did",
            ),
            p(
                "upd_slot_o",
                Out,
                one,
                self.slot_bits,
                None,
                SvWidth::Param("SlotW"),
                "table slot (set * ways + way) the observation used",
            ),
            p(
                "upd_evict_o",
                Out,
                one,
                1,
                None,
                bit,
                "the allocation replaced a valid entry",
            ),
            p(
                "upd_ready_o",
                Out,
                one,
                1,
                None,
                bit,
                "the entry has every stride the launched grid needs",
            ),
        ]
    }
}
