//! Memory controllers, DRAM and the Warped-MC tables (seed 004): configuration and validated
//! specs with every derived width.

use super::keys::check_int;
use super::{clog2, Dir, PortSpec, SpecError, SvWidth};
use serde::{Deserialize, Serialize};

/// DRAM standard (selects bank-group semantics and names the timing set).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DramStandard {
    Gddr5,
    Gddr6,
}

impl DramStandard {
    pub const NAMES: &'static [&'static str] = &["gddr5", "gddr6"];
    pub fn name(self) -> &'static str {
        match self {
            DramStandard::Gddr5 => "gddr5",
            DramStandard::Gddr6 => "gddr6",
        }
    }
}

/// Request scheduler of a memory controller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scheduler {
    /// Oldest request first.
    Fcfs,
    /// Row hits first, then oldest (the GPU baseline).
    Frfcfs,
    /// Warped-MC (seed 004 Algorithm 1).
    Warped,
    /// Divergence-first: a warp's last pending request first, ignoring row hits (seed 004's contrast).
    Divfirst,
}

impl Scheduler {
    pub const NAMES: &'static [&'static str] = &["fcfs", "frfcfs", "warped", "divfirst"];
    pub fn name(self) -> &'static str {
        match self {
            Scheduler::Fcfs => "fcfs",
            Scheduler::Frfcfs => "frfcfs",
            Scheduler::Warped => "warped",
            Scheduler::Divfirst => "divfirst",
        }
    }
}

/// The DRAM behind each memory controller.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DramConfig {
    pub standard: DramStandard,
    pub channels: u32,
    pub sub_partitions: u32,
    pub banks: u32,
    pub bank_groups: u32,
    pub atom_bytes: u32,
    pub clock_mhz: u32,
    pub address_map: String,
    pub bank_xor: bool,
    pub refresh: bool,
    pub t_bl: u32,
    pub t_rcd: u32,
    pub t_rcdwr: u32,
    pub t_rp: u32,
    pub t_ras: u32,
    pub t_rc: u32,
    pub t_cl: u32,
    pub t_cwl: u32,
    pub t_ccds: u32,
    pub t_ccdl: u32,
    pub t_rrds: u32,
    pub t_rrdl: u32,
    pub t_faw: u32,
    pub t_wtrs: u32,
    pub t_wtrl: u32,
    pub t_rtp: u32,
    pub t_wr: u32,
    pub t_rtw: u32,
    pub t_refi: u32,
    pub t_rfc: u32,
}

/// The memory controller.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McConfig {
    pub scheduler: Scheduler,
    pub queue_entries: u32,
    pub write_high: u32,
    pub write_low: u32,
}

/// The Warped-MC tables.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WarpedMcConfig {
    pub pc_bits: u32,
    pub pc_hash_bits: u32,
    pub pending_bits: u32,
    pub rows_tracked: u32,
    pub score_bits: u32,
    pub pt_slots: u32,
    pub controllers_per_wet: u32,
    pub wet_scope: u32,
}

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
    pub refresh: bool,
    /// The timing parameters in command-clock cycles, as configured.
    pub timing: DramTiming,
    /// log2(banks).
    pub bank_bits: u32,
    /// Rows per bank and columns (bytes) per row, as the address map implies.
    pub rows_per_bank: u64,
    pub row_bytes: u64,
}

/// Timing parameters in command-clock cycles (names follow docs/dram-timing.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DramTiming {
    pub t_bl: u32,
    pub t_rcd: u32,
    pub t_rcdwr: u32,
    pub t_rp: u32,
    pub t_ras: u32,
    pub t_rc: u32,
    pub t_cl: u32,
    pub t_cwl: u32,
    pub t_ccds: u32,
    pub t_ccdl: u32,
    pub t_rrds: u32,
    pub t_rrdl: u32,
    pub t_faw: u32,
    pub t_wtrs: u32,
    pub t_wtrl: u32,
    pub t_rtp: u32,
    pub t_wr: u32,
    pub t_rtw: u32,
    pub t_refi: u32,
    pub t_rfc: u32,
}

/// Validated memory-controller parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McSpec {
    pub scheduler: Scheduler,
    pub queue_entries: u32,
    pub write_high: u32,
    pub write_low: u32,
    /// Width of a queue-slot index (at least 1).
    pub slot_bits: u32,
}

/// Validated Warped-MC table parameters with every derived width.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarpedMcSpec {
    pub pc_bits: u32,
    pub pc_hash_bits: u32,
    pub pending_bits: u32,
    pub rows_tracked: u32,
    pub score_bits: u32,
    pub pt_slots: u32,
    pub controllers_per_wet: u32,
    /// Controllers whose enqueues and services every warp entry table counts (`wet_scope`
    /// resolved: 0 becomes every controller). A multiple of `controllers_per_wet`.
    pub wet_ctrls: u32,
    /// Controllers in all (= DRAM channels).
    pub controllers: u32,
    /// Candidate requests scored per controller per cycle (= the pending queue).
    pub candidates: u32,
    pub banks: u32,
    // ---- derived ----
    /// SM id width: log2(gpu.sms) rounded up (at least 1).
    pub sm_bits: u32,
    /// Warp-in-SM width: log2(gpu.warps_per_sm) rounded up (at least 1).
    pub warp_bits: u32,
    /// Global warp id width = sm_bits + warp_bits; the warp entry table has 2^gwid_bits entries.
    pub gwid_bits: u32,
    pub wet_entries: u32,
    pub bank_bits: u32,
    /// Width of a tracked-row index (row mod rows_tracked).
    pub row_idx_bits: u32,
    /// Width of a PT slot index (column slot mod pt_slots).
    pub slot_idx_bits: u32,
    /// Width of a full row number on ports.
    pub row_bits: u32,
    /// Width of a candidate index (at least 1).
    pub cand_bits: u32,
    /// Saturation value of a pending counter.
    pub pending_max: u32,
    /// Saturation value of a row score.
    pub score_max: u32,
}

fn c(key: &'static str, v: u32) -> Result<u32, SpecError> {
    Ok(check_int(key, v.into())? as u32)
}

impl DramSpec {
    pub fn new(d: &DramConfig) -> Result<DramSpec, SpecError> {
        let banks = c("dram.banks", d.banks)?;
        let bank_groups = c("dram.bank_groups", d.bank_groups)?;
        if bank_groups > banks {
            return Err(SpecError::Inconsistent {
                message: format!(
                    "`dram.bank_groups` = {bank_groups} exceeds `dram.banks` = {banks}"
                ),
            });
        }
        let t = DramTiming {
            t_bl: c("dram.t_bl", d.t_bl)?,
            t_rcd: c("dram.t_rcd", d.t_rcd)?,
            t_rcdwr: c("dram.t_rcdwr", d.t_rcdwr)?,
            t_rp: c("dram.t_rp", d.t_rp)?,
            t_ras: c("dram.t_ras", d.t_ras)?,
            t_rc: c("dram.t_rc", d.t_rc)?,
            t_cl: c("dram.t_cl", d.t_cl)?,
            t_cwl: c("dram.t_cwl", d.t_cwl)?,
            t_ccds: c("dram.t_ccds", d.t_ccds)?,
            t_ccdl: c("dram.t_ccdl", d.t_ccdl)?,
            t_rrds: c("dram.t_rrds", d.t_rrds)?,
            t_rrdl: c("dram.t_rrdl", d.t_rrdl)?,
            t_faw: c("dram.t_faw", d.t_faw)?,
            t_wtrs: c("dram.t_wtrs", d.t_wtrs)?,
            t_wtrl: c("dram.t_wtrl", d.t_wtrl)?,
            t_rtp: c("dram.t_rtp", d.t_rtp)?,
            t_wr: c("dram.t_wr", d.t_wr)?,
            t_rtw: c("dram.t_rtw", d.t_rtw)?,
            t_refi: c("dram.t_refi", d.t_refi)?,
            t_rfc: c("dram.t_rfc", d.t_rfc)?,
        };
        // tRC below tRAS + tRP is accepted (seed 004 Table 2 has 62 < 50 + 20): it then never
        // binds, because a PRE waits tRAS after the ACT and the next ACT tRP after the PRE.
        if t.t_ccdl < t.t_ccds || t.t_rrdl < t.t_rrds || t.t_wtrl < t.t_wtrs {
            return Err(SpecError::Inconsistent {
                message: "the same-bank-group timings (`dram.t_ccdl`, `dram.t_rrdl`, `dram.t_wtrl`) must be at least their different-group counterparts (`_s`)".into(),
            });
        }
        if d.refresh && t.t_refi <= t.t_rfc {
            return Err(SpecError::Inconsistent {
                message: format!(
                    "`dram.t_refi` = {} must exceed `dram.t_rfc` = {} (a refresh every tREFI takes tRFC)",
                    t.t_refi, t.t_rfc
                ),
            });
        }
        let channels = c("dram.channels", d.channels)?;
        let sub_partitions = c("dram.sub_partitions", d.sub_partitions)?;
        let map = crate::mc::mapping::AddressMap::parse_gpgpusim(
            &d.address_map,
            channels,
            sub_partitions,
        )
        .map_err(|e| SpecError::Inconsistent {
            message: format!("`dram.address_map`: {e}"),
        })?;
        if map.banks() != banks {
            return Err(SpecError::Inconsistent {
                message: format!(
                    "`dram.address_map` has {} bank bits ({} banks) but `dram.banks` = {banks}",
                    clog2(map.banks().into()),
                    map.banks()
                ),
            });
        }
        if sub_partitions > banks {
            return Err(SpecError::Inconsistent {
                message: format!(
                    "`dram.sub_partitions` = {sub_partitions} exceeds `dram.banks` = {banks}: the lowest bank bits pick the L2 slice"
                ),
            });
        }
        Ok(DramSpec {
            standard: d.standard,
            channels,
            sub_partitions,
            banks,
            bank_groups,
            atom_bytes: c("dram.atom_bytes", d.atom_bytes)?,
            clock_mhz: c("dram.clock_mhz", d.clock_mhz)?,
            address_map: d.address_map.clone(),
            bank_xor: d.bank_xor,
            refresh: d.refresh,
            timing: t,
            bank_bits: clog2(banks.into()),
            rows_per_bank: map.rows(),
            row_bytes: map.columns(),
        })
    }
}

impl McSpec {
    pub fn new(m: &McConfig) -> Result<McSpec, SpecError> {
        let queue_entries = c("mc.queue_entries", m.queue_entries)?;
        let write_high = c("mc.write_high", m.write_high)?;
        let write_low = c("mc.write_low", m.write_low)?;
        if write_high > queue_entries || write_low >= write_high {
            return Err(SpecError::Inconsistent {
                message: format!(
                    "write drain thresholds must satisfy `mc.write_low` ({write_low}) < `mc.write_high` ({write_high}) <= `mc.queue_entries` ({queue_entries})"
                ),
            });
        }
        Ok(McSpec {
            scheduler: m.scheduler,
            queue_entries,
            write_high,
            write_low,
            slot_bits: clog2(queue_entries.into()).max(1),
        })
    }
}

impl WarpedMcSpec {
    pub fn new(
        w: &WarpedMcConfig,
        sms: u32,
        warps_per_sm: u32,
        dram: &DramSpec,
        mc: &McSpec,
    ) -> Result<WarpedMcSpec, SpecError> {
        let sm_bits = clog2(sms.into()).max(1);
        let warp_bits = clog2(warps_per_sm.into()).max(1);
        let gwid_bits = sm_bits + warp_bits;
        let pc_hash_bits = c("warped_mc.pc_hash_bits", w.pc_hash_bits)?;
        if pc_hash_bits > gwid_bits {
            return Err(SpecError::Inconsistent {
                message: format!(
                    "`warped_mc.pc_hash_bits` = {pc_hash_bits} exceeds the global warp id width {gwid_bits} (log2(gpu.sms) + log2(gpu.warps_per_sm))"
                ),
            });
        }
        let pending_bits = c("warped_mc.pending_bits", w.pending_bits)?;
        let controllers_per_wet = c("warped_mc.controllers_per_wet", w.controllers_per_wet)?;
        if !dram.channels.is_multiple_of(controllers_per_wet) {
            return Err(SpecError::Inconsistent {
                message: format!(
                    "`warped_mc.controllers_per_wet` = {controllers_per_wet} must divide `dram.channels` = {}",
                    dram.channels
                ),
            });
        }
        let scope = c("warped_mc.wet_scope", w.wet_scope)?;
        let wet_ctrls = if scope == 0 { dram.channels } else { scope };
        if !wet_ctrls.is_multiple_of(controllers_per_wet)
            || !dram.channels.is_multiple_of(wet_ctrls)
        {
            return Err(SpecError::Inconsistent {
                message: format!(
                    "`warped_mc.wet_scope` = {scope} must be 0 (all controllers) or a multiple of `warped_mc.controllers_per_wet` = {controllers_per_wet} that divides `dram.channels` = {}",
                    dram.channels
                ),
            });
        }
        let rows_tracked = c("warped_mc.rows_tracked", w.rows_tracked)?;
        let pt_slots = c("warped_mc.pt_slots", w.pt_slots)?;
        let score_bits = c("warped_mc.score_bits", w.score_bits)?;
        let row_bits = clog2(dram.rows_per_bank).max(1);
        Ok(WarpedMcSpec {
            pc_bits: c("warped_mc.pc_bits", w.pc_bits)?,
            pc_hash_bits,
            pending_bits,
            rows_tracked,
            score_bits,
            pt_slots,
            controllers_per_wet,
            wet_ctrls,
            controllers: dram.channels,
            candidates: mc.queue_entries,
            banks: dram.banks,
            sm_bits,
            warp_bits,
            gwid_bits,
            wet_entries: 1 << gwid_bits,
            bank_bits: dram.bank_bits.max(1),
            row_idx_bits: clog2(rows_tracked.into()).max(1),
            slot_idx_bits: clog2(pt_slots.into()).max(1),
            row_bits,
            cand_bits: clog2(mc.queue_entries.into()).max(1),
            pending_max: (1u32 << pending_bits) - 1,
            score_max: (1u32 << score_bits) - 1,
        })
    }
}

/// Priority class of a candidate (`cand_class_o`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Class {
    /// No candidate in this slot.
    #[default]
    None = 0,
    /// Row miss, or row hit of a warp with two or more pending requests that the controller
    /// did not service last.
    L = 1,
    /// Row hit of the warp whose request the controller serviced last (Algorithm 1 line 10),
    /// with two or more pending.
    M = 2,
    /// Row hit of a warp's last pending request.
    H = 3,
}

/// Command chosen for a bank (`sel_cmd_o`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BankCmd {
    #[default]
    None = 0,
    /// Column command for candidate `sel_cand_o` (a row hit).
    Cas = 1,
    /// Precharge the open row (no candidate hits it).
    Pre = 2,
    /// Activate row `sel_row_o` for candidate `sel_cand_o`.
    Act = 3,
}

impl Class {
    pub const ALL: [Class; 4] = [Class::None, Class::L, Class::M, Class::H];
    /// SystemVerilog enum member.
    pub fn sv_name(self) -> &'static str {
        match self {
            Class::None => "WmcNone",
            Class::L => "WmcL",
            Class::M => "WmcM",
            Class::H => "WmcH",
        }
    }
}

impl BankCmd {
    pub const ALL: [BankCmd; 4] = [BankCmd::None, BankCmd::Cas, BankCmd::Pre, BankCmd::Act];
    /// SystemVerilog enum member.
    pub fn sv_name(self) -> &'static str {
        match self {
            BankCmd::None => "WmcNoCmd",
            BankCmd::Cas => "WmcCas",
            BankCmd::Pre => "WmcPre",
            BankCmd::Act => "WmcAct",
        }
    }
}

impl WarpedMcSpec {
    /// The block's ports. Enqueue and service ports are packed arrays of `wet_ctrls` elements:
    /// the events of every controller the warp entry table counts (the block's own controllers
    /// and the rest of its WET scope, in any fixed order). Other per-controller ports are packed
    /// arrays of `controllers_per_wet` elements (controller c is element c); per-candidate and
    /// per-bank ports are packed arrays of `controllers_per_wet x candidates` / `x banks`
    /// elements (element c*N + i).
    pub fn ports(&self) -> Vec<PortSpec> {
        use Dir::{In, Out};
        let c = self.controllers_per_wet;
        let wc = self.wet_ctrls;
        let wet = Some("NumWetCtrl");
        let ck = c * self.candidates;
        let cb = c * self.banks;
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
        let ctl = Some("NumCtrl");
        let cand = Some("NumCtrlCand");
        let bank = Some("NumCtrlBank");
        vec![
            p(
                "enq_valid_i",
                In,
                wc,
                1,
                wet,
                bit,
                "a request enters a pending queue of the WET scope",
            ),
            p(
                "enq_sm_i",
                In,
                wc,
                self.sm_bits,
                wet,
                SvWidth::Param("SmW"),
                "its SM",
            ),
            p(
                "enq_warp_i",
                In,
                wc,
                self.warp_bits,
                wet,
                SvWidth::Param("WarpW"),
                "its warp within the SM",
            ),
            p(
                "enq_pc_i",
                In,
                wc,
                self.pc_bits,
                wet,
                SvWidth::Param("PcW"),
                "its load PC",
            ),
            p(
                "svc_valid_i",
                In,
                wc,
                1,
                wet,
                bit,
                "a column command of the WET scope issued last cycle",
            ),
            p(
                "svc_gwid_i",
                In,
                wc,
                self.gwid_bits,
                wet,
                SvWidth::Param("GwidW"),
                "its global warp id",
            ),
            p(
                "act_valid_i",
                In,
                c,
                1,
                ctl,
                bit,
                "a row was activated last cycle",
            ),
            p(
                "act_bank_i",
                In,
                c,
                self.bank_bits,
                ctl,
                SvWidth::Param("BankW"),
                "its bank",
            ),
            p(
                "act_row_i",
                In,
                c,
                self.row_bits,
                ctl,
                SvWidth::Param("RowW"),
                "its row",
            ),
            p(
                "cand_valid_i",
                In,
                ck,
                1,
                cand,
                bit,
                "candidate slot holds a pending request (oldest first)",
            ),
            p(
                "cand_gwid_i",
                In,
                ck,
                self.gwid_bits,
                cand,
                SvWidth::Param("GwidW"),
                "candidate's global warp id",
            ),
            p(
                "cand_bank_i",
                In,
                ck,
                self.bank_bits,
                cand,
                SvWidth::Param("BankW"),
                "candidate's bank",
            ),
            p(
                "cand_row_i",
                In,
                ck,
                self.row_bits,
                cand,
                SvWidth::Param("RowW"),
                "candidate's row",
            ),
            p(
                "cand_slot_i",
                In,
                ck,
                self.slot_idx_bits,
                cand,
                SvWidth::Param("SlotW"),
                "candidate's column slot in the row (mod PtSlots)",
            ),
            p(
                "cand_hit_i",
                In,
                ck,
                1,
                cand,
                bit,
                "candidate hits its bank's open row",
            ),
            p("bank_open_i", In, cb, 1, bank, bit, "bank has an open row"),
            p(
                "cas_ready_i",
                In,
                cb,
                1,
                bank,
                bit,
                "a column command to the bank could issue now",
            ),
            p(
                "pre_ready_i",
                In,
                cb,
                1,
                bank,
                bit,
                "a precharge of the bank could issue now",
            ),
            p(
                "act_ready_i",
                In,
                cb,
                1,
                bank,
                bit,
                "an activate of the bank could issue now",
            ),
            p(
                "cand_class_o",
                Out,
                ck,
                2,
                cand,
                SvWidth::Type("wmc_class_e"),
                "candidate's priority class",
            ),
            p(
                "open_valid_o",
                Out,
                cb,
                1,
                bank,
                bit,
                "a row miss is pending in the bank",
            ),
            p(
                "open_row_o",
                Out,
                cb,
                self.row_bits,
                bank,
                SvWidth::Param("RowW"),
                "row to open: the highest-scoring pending miss",
            ),
            p(
                "open_cand_o",
                Out,
                cb,
                self.cand_bits,
                bank,
                SvWidth::Param("CandW"),
                "the candidate it belongs to",
            ),
            p("sel_valid_o", Out, c, 1, ctl, bit, "a command is chosen"),
            p(
                "sel_bank_o",
                Out,
                c,
                self.bank_bits,
                ctl,
                SvWidth::Param("BankW"),
                "bank to serve (two-level round robin)",
            ),
            p(
                "sel_cmd_o",
                Out,
                c,
                2,
                ctl,
                SvWidth::Type("wmc_cmd_e"),
                "command for that bank",
            ),
            p(
                "sel_cand_o",
                Out,
                c,
                self.cand_bits,
                ctl,
                SvWidth::Param("CandW"),
                "candidate served (CAS) or whose row is opened (ACT)",
            ),
            p(
                "sel_row_o",
                Out,
                c,
                self.row_bits,
                ctl,
                SvWidth::Param("RowW"),
                "row to activate (ACT)",
            ),
        ]
    }
}
