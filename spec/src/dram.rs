//! The DRAM behind each memory controller: keys (the timing list written once, in [`Timing`]),
//! the rules between them (exactly what the channel model needs), and the validated spec.

use crate::mapping::AddressMap;
use crate::schema::{Legal, Rule};
use crate::{clog2, section, word_enum, UserConfig};

word_enum! {
    /// DRAM standard: names the timing set, and says whether row and column commands have
    /// command buses of their own ([`DramStandard::dual_command_bus`]; decision MEM-25).
    pub enum DramStandard {
        Gddr5 = "gddr5",
        Gddr6 = "gddr6",
        Gddr5x = "gddr5x",
        Hbm2 = "hbm2",
    }
}

impl DramStandard {
    /// Whether a row command (ACT, PRE, PREA, REF) and a column command (RD, WR, RDA, WRA) may
    /// issue in the same cycle: HBM2's separate row and column command buses (JESD235;
    /// GPGPU-Sim's `-dram_dual_bus_interface 1`, DRAMsim3's `hbm_dual_cmd`). GDDR5, GDDR5X and
    /// GDDR6 have one command bus: one command per cycle.
    pub fn dual_command_bus(self) -> bool {
        matches!(self, DramStandard::Hbm2)
    }
}

word_enum! {
    /// How channel and sub-partition are hashed from an address (GPGPU-Sim's
    /// `-gpgpu_memory_partition_indexing` 0, 1 and 2;
    /// [`crate::mapping::AddressMap::with_partition_hash`]).
    pub enum PartitionHash {
        Linear = "linear",
        Xor = "xor",
        Ipoly = "ipoly",
    }
}

section! {
    /// Timing parameters of one channel in command-clock cycles (names follow
    /// docs/dram-timing.md; rule names R1-R8, C1-C9, F1-F6 are the notes' tables). The keys are
    /// `dram.t_*`.
    #[derive(Copy)]
    pub struct Timing in "dram" {
        t_bl: u32 = Legal::Range { min: 1, max: 64 },
            "data-bus cycles of one burst (burst length / data rate)";
        t_rcd: u32 = Legal::Range { min: 1, max: 1000 },
            "ACT to RD, same bank (GDDR tRCDRD)";
        t_rcdwr: u32 = Legal::Range { min: 1, max: 1000 },
            "ACT to WR, same bank (GDDR tRCDWR)";
        t_rp: u32 = Legal::Range { min: 1, max: 1000 },
            "PRE to ACT, same bank";
        t_ras: u32 = Legal::Range { min: 1, max: 1000 },
            "ACT to PRE, same bank";
        t_rc: u32 = Legal::Range { min: 1, max: 2000 },
            "ACT to ACT, same bank (a value below t_ras + t_rp never binds: the model uses \
                max(t_rc, t_ras + t_rp))";
        t_cl: u32 = Legal::Range { min: 1, max: 1000 },
            "RD to first data (CAS latency)";
        t_cwl: u32 = Legal::Range { min: 1, max: 1000 },
            "WR to first data (CAS write latency)";
        t_ccds: u32 = Legal::Range { min: 1, max: 100 },
            "column to column, different bank group";
        t_ccdl: u32 = Legal::Range { min: 1, max: 100 },
            "column to column, same bank group";
        t_rrds: u32 = Legal::Range { min: 1, max: 100 },
            "ACT to ACT, different bank group";
        t_rrdl: u32 = Legal::Range { min: 1, max: 100 },
            "ACT to ACT, same bank group";
        t_faw: u32 = Legal::Range { min: 1, max: 1000 },
            "four-activate window: at most four ACTs in any t_faw cycles";
        t_wtrs: u32 = Legal::Range { min: 0, max: 100 },
            "end of write data to RD, different bank group";
        t_wtrl: u32 = Legal::Range { min: 0, max: 100 },
            "end of write data to RD, same bank group";
        t_rtp: u32 = Legal::Range { min: 1, max: 100 },
            "RD to PRE, same bank";
        t_wr: u32 = Legal::Range { min: 1, max: 1000 },
            "end of write data to PRE, same bank (write recovery)";
        t_rtw: u32 = Legal::Range { min: 0, max: 100 },
            "extra read-to-write bus turnaround";
        t_refi: u32 = Legal::Range { min: 1, max: 1000000 },
            "average refresh interval";
        t_rfc: u32 = Legal::Range { min: 1, max: 10000 },
            "all-bank refresh cycle time";
    }
}

impl Timing {
    /// The same-bank ACT-to-ACT distance in effect: max(tRC, tRAS + tRP). A tRC below
    /// tRAS + tRP (seed 004 Table 2: 62 < 50 + 20) never binds, because a precharge waits tRAS
    /// after the activate and the next activate tRP after the precharge.
    pub fn t_rc_effective(&self) -> u32 {
        self.t_rc.max(self.t_ras + self.t_rp)
    }
}

section! {
    /// What one channel's devices draw: the datasheet's supply voltage and IDD currents, from
    /// which DRAMPower's method gives each command's energy and the background energy
    /// (decision MEM-28). Currents are per device, in mA; a channel's devices draw alike.
    #[derive(Copy)]
    pub struct DramPower in "dram" {
        vdd_mv: u32 = Legal::Range { min: 100, max: 5000 },
            "supply voltage VDD in millivolts (DRAM energy only)";
        devices: u32 = Legal::Range { min: 1, max: 64 },
            "DRAM devices per channel whose currents add: the channel's bus width over one \
                device's (DRAM energy only)";
        idd0_ma: u32 = Legal::Range { min: 0, max: 100000 },
            "IDD0 in mA: one bank activating and precharging, tRC apart (DRAM energy only)";
        idd2n_ma: u32 = Legal::Range { min: 0, max: 100000 },
            "IDD2N in mA: precharge standby, every bank closed (DRAM energy only)";
        idd3n_ma: u32 = Legal::Range { min: 0, max: 100000 },
            "IDD3N in mA: active standby, a bank open (DRAM energy only)";
        idd4r_ma: u32 = Legal::Range { min: 0, max: 100000 },
            "IDD4R in mA: burst reads (DRAM energy only)";
        idd4w_ma: u32 = Legal::Range { min: 0, max: 100000 },
            "IDD4W in mA: burst writes (DRAM energy only)";
        idd5_ma: u32 = Legal::Range { min: 0, max: 100000 },
            "IDD5 in mA: all-bank refresh (IDD5B; DRAM energy only)";
    }
}

section! {
    /// The DRAM behind each memory controller.
    pub struct DramConfig in "dram" {
        standard: DramStandard = Legal::OneOf(DramStandard::NAMES),
            "DRAM standard of the memory channels: gddr5, gddr6, gddr5x (name the timing set; one \
                command bus) or hbm2 (a row and a column command bus: a row command and a column \
                command may issue in the same cycle); one rank per channel";
        channels: u32 = Legal::Range { min: 1, max: 128 },
            "memory channels, one controller each (seed 000 Table II: 6; seed 004 Table 2: 16)";
        sub_partitions: u32 = Legal::Pow2 { min: 1, max: 8 },
            "L2 slices per channel (GPGPU-Sim -gpgpu_n_sub_partition_per_mchannel); the lowest \
                bank bits pick the slice";
        banks: u32 = Legal::Pow2 { min: 1, max: 64 },
            "banks per channel; must equal the bank bits of dram.address_map";
        bank_groups: u32 = Legal::Pow2 { min: 1, max: 16 },
            "bank groups (bank b is in group b % groups); 1 disables groups: the _s timings apply \
                everywhere";
        atom_bytes: u32 = Legal::Pow2 { min: 8, max: 512 },
            "bytes one column command moves (burst length x bus width x chips)";
        clock_mhz: u32 = Legal::Range { min: 100, max: 20000 },
            "command clock in MHz (for bandwidth in GB/s)";
        address_map: String = Legal::Text,
            "physical address to channel/bank/row/column: a GPGPU-Sim mapping string \
                `[dramid@S;]` + 64 symbols of R B C S D 0";
        bank_xor: bool = Legal::Bool,
            "XOR the bank index with low row bits (GPGPU-Sim -dram_bnk_indexing_policy 1)";
        partition_indexing: PartitionHash = Legal::OneOf(PartitionHash::NAMES),
            "channel and L2 sub-partition hashing: linear, xor (channel ^= the bits above it) or \
                ipoly (the sub-partition IPOLY-hashed with them; 16, 32 or 64 in all); xor and \
                ipoly need a dramid@ map with a power-of-two channel count \
                (-gpgpu_memory_partition_indexing 0, 1, 2)";
        refresh: bool = Legal::Bool,
            "model all-bank refresh (REF every t_refi, blocking t_rfc)";
        @flatten timing: Timing;
        @flatten power: DramPower;
    }
}

/// The address map of a DRAM configuration.
fn map_of(d: &DramConfig) -> Result<AddressMap, String> {
    AddressMap::parse_gpgpusim(&d.address_map, d.channels, d.sub_partitions)
        .map(|m| m.with_bank_xor(d.bank_xor))
        .map_err(|e| format!("`dram.address_map`: {e}"))?
        .with_partition_hash(d.partition_indexing)
        .map_err(|e| format!("`dram.partition_indexing`: {e}"))
}

/// Rules between DRAM keys: what the channel model needs of a timing set and an address map.
pub(crate) const RULES: &[Rule] = &[
    Rule {
        text: "dram.bank_groups <= dram.banks",
        check: |c: &UserConfig| {
            let d = &c.dram;
            if d.bank_groups > d.banks {
                return Err(format!(
                    "`dram.bank_groups` = {} exceeds `dram.banks` = {}",
                    d.bank_groups, d.banks
                ));
            }
            Ok(())
        },
    },
    Rule {
        text: "dram.t_ccdl >= dram.t_ccds, dram.t_rrdl >= dram.t_rrds, dram.t_wtrl >= dram.t_wtrs \
            (same bank group at least as long as different groups)",
        check: |c: &UserConfig| {
            let t = &c.dram.timing;
            for (l, s, ln, sn) in [
                (t.t_ccdl, t.t_ccds, "t_ccdl", "t_ccds"),
                (t.t_rrdl, t.t_rrds, "t_rrdl", "t_rrds"),
                (t.t_wtrl, t.t_wtrs, "t_wtrl", "t_wtrs"),
            ] {
                if l < s {
                    return Err(format!(
                        "`dram.{ln}` = {l} is below `dram.{sn}` = {s}: a same-bank-group timing \
                            must be at least its different-group counterpart"
                    ));
                }
            }
            Ok(())
        },
    },
    Rule {
        text: "max(dram.t_rc, dram.t_ras + dram.t_rp) >= dram.t_rrdl (the same bank cannot \
            activate sooner than its group)",
        check: |c: &UserConfig| {
            let t = &c.dram.timing;
            if t.t_rc_effective() < t.t_rrdl {
                return Err(format!(
                    "`dram.t_rrdl` = {} exceeds the same-bank ACT-to-ACT distance \
                        max(`dram.t_rc`, `dram.t_ras` + `dram.t_rp`) = {}: raise `dram.t_rc` to \
                        at least {}",
                    t.t_rrdl,
                    t.t_rc_effective(),
                    t.t_rrdl
                ));
            }
            Ok(())
        },
    },
    Rule {
        text: "with dram.refresh: dram.t_refi > dram.t_rfc + max(dram.t_rcd, dram.t_rcdwr) \
            (between two refreshes a row can be opened and a column command issued)",
        check: |c: &UserConfig| {
            let d = &c.dram;
            let t = &d.timing;
            let need = u64::from(t.t_rfc) + u64::from(t.t_rcd.max(t.t_rcdwr));
            if d.refresh && u64::from(t.t_refi) <= need {
                return Err(format!(
                    "`dram.t_refi` = {} leaves no room between refreshes: after a refresh the \
                        channel is blocked for `dram.t_rfc` = {} cycles and a column command \
                        needs `dram.t_rcd`/`dram.t_rcdwr` = {} more after its activate, so no \
                        request could ever complete. Raise `dram.t_refi` above {need}, or set \
                        dram.refresh = false",
                    t.t_refi,
                    t.t_rfc,
                    t.t_rcd.max(t.t_rcdwr)
                ));
            }
            Ok(())
        },
    },
    Rule {
        text: "dram.address_map parses for dram.channels and dram.sub_partitions, and has \
            log2(dram.banks) bank bits and at most 2^32 rows",
        check: |c: &UserConfig| {
            let d = &c.dram;
            let map = map_of(d)?;
            if map.banks() != d.banks {
                return Err(format!(
                    "`dram.address_map` has {} bank bits ({} banks) but `dram.banks` = {}",
                    clog2(map.banks().into()),
                    map.banks(),
                    d.banks
                ));
            }
            if map.rows() > 1 << 32 {
                return Err(format!(
                    "`dram.address_map` has {} row bits: at most 32 are modelled",
                    clog2(map.rows())
                ));
            }
            Ok(())
        },
    },
    Rule {
        text: "dram.idd0_ma >= dram.idd3n_ma >= dram.idd2n_ma, and dram.idd4r_ma, dram.idd4w_ma, \
            dram.idd5_ma >= dram.idd3n_ma (no command draws less than the standby it rises from)",
        check: |c: &UserConfig| {
            let p = &c.dram.power;
            for (hi, lo, hn, ln) in [
                (p.idd0_ma, p.idd3n_ma, "idd0_ma", "idd3n_ma"),
                (p.idd3n_ma, p.idd2n_ma, "idd3n_ma", "idd2n_ma"),
                (p.idd4r_ma, p.idd3n_ma, "idd4r_ma", "idd3n_ma"),
                (p.idd4w_ma, p.idd3n_ma, "idd4w_ma", "idd3n_ma"),
                (p.idd5_ma, p.idd3n_ma, "idd5_ma", "idd3n_ma"),
            ] {
                if hi < lo {
                    return Err(format!(
                        "`dram.{hn}` = {hi} is below `dram.{ln}` = {lo}: a command's energy is \
                            its current above that standby current (DRAMPower), so it would be \
                            negative; check the datasheet's values"
                    ));
                }
            }
            Ok(())
        },
    },
    Rule {
        text: "dram.sub_partitions <= dram.banks (the lowest bank bits pick the L2 slice)",
        check: |c: &UserConfig| {
            let d = &c.dram;
            if d.sub_partitions > d.banks {
                return Err(format!(
                    "`dram.sub_partitions` = {} exceeds `dram.banks` = {}: the lowest bank bits \
                        pick the L2 slice",
                    d.sub_partitions, d.banks
                ));
            }
            Ok(())
        },
    },
];

/// Validated DRAM parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DramSpec {
    pub standard: DramStandard,
    pub channels: u32,
    pub sub_partitions: u32,
    pub banks: u32,
    pub bank_groups: u32,
    pub atom_bytes: u32,
    pub clock_mhz: u32,
    pub address_map: String,
    pub bank_xor: bool,
    pub partition_indexing: PartitionHash,
    pub refresh: bool,
    /// The timing parameters in command-clock cycles, as configured.
    pub timing: Timing,
    /// The devices' voltage and currents, for the DRAM energy.
    pub power: DramPower,
    /// The address map (bank XOR applied when `bank_xor`).
    pub map: AddressMap,
    /// log2(banks).
    pub bank_bits: u32,
    /// Rows per bank and columns (bytes) per row, as the address map implies.
    pub rows_per_bank: u64,
    pub row_bytes: u64,
}

impl DramSpec {
    /// Derive from keys that are in range and keep [`RULES`] (which parse the map).
    pub(crate) fn new(d: &DramConfig) -> Result<DramSpec, String> {
        let map = map_of(d)?;
        Ok(DramSpec {
            standard: d.standard,
            channels: d.channels,
            sub_partitions: d.sub_partitions,
            banks: d.banks,
            bank_groups: d.bank_groups,
            atom_bytes: d.atom_bytes,
            clock_mhz: d.clock_mhz,
            address_map: d.address_map.clone(),
            bank_xor: d.bank_xor,
            partition_indexing: d.partition_indexing,
            refresh: d.refresh,
            timing: d.timing,
            power: d.power,
            bank_bits: clog2(d.banks.into()),
            rows_per_bank: map.rows(),
            row_bytes: map.columns(),
            map,
        })
    }
}
