//! Memory controllers and the Warped-MC tables (seed 004): keys, rules, validated specs with
//! every derived width, and the Warped-MC block's interface.

use crate::dram::DramSpec;
use crate::gpu::GpuSpec;
use crate::port::{Elem, EnumDecl, Interface, Param, PortSpec};
use crate::schema::{Legal, Rule};
use crate::{clog2, section, word_enum, UserConfig};

word_enum! {
    /// Request scheduler of a memory controller.
    pub enum Scheduler {
        /// Oldest request first.
        Fcfs = "fcfs",
        /// Row hits first, then oldest (the GPU baseline).
        Frfcfs = "frfcfs",
        /// Warped-MC (seed 004 Algorithm 1).
        Warped = "warped",
        /// Divergence-first: a warp's last pending request first, ignoring row hits (seed 004's
        /// contrast).
        Divfirst = "divfirst",
    }
}

section! {
    /// The memory controller.
    pub struct McConfig in "mc" {
        scheduler: Scheduler = Legal::OneOf(Scheduler::NAMES),
            "request scheduler: fcfs, frfcfs (row hits first), warped (Warped-MC, seed 004), \
                divfirst (a warp's last request first)";
        queue_entries: u32 = Legal::Range { min: 1, max: 256 },
            "pending-queue entries per controller (seed 002 Table 4.1: 16); also the candidates \
                Warped-MC scores per cycle";
        write_high: u32 = Legal::Range { min: 1, max: 256 },
            "pending writes at which the controller starts draining writes";
        write_low: u32 = Legal::Range { min: 0, max: 255 },
            "pending writes at which a write drain stops";
    }
}

section! {
    /// The Warped-MC tables.
    pub struct WarpedMcConfig in "warped_mc" {
        pc_bits: u32 = Legal::Range { min: 1, max: 64 },
            "width of the load PC hashed into the global warp id";
        pc_hash_bits: u32 = Legal::Range { min: 0, max: 32 },
            "PC bits XOR-folded into the low bits of the global warp id (0: id = SM, warp)";
        pending_bits: u32 = Legal::Range { min: 2, max: 16 },
            "width of a warp entry table counter of pending requests (seed 004: 6, up to 32 \
                requests; at least 2: a 1-bit counter cannot tell a warp's last request from \
                others)";
        rows_tracked: u32 = Legal::Pow2 { min: 1, max: 4096 },
            "row scores per bank in the row scoreboard (row id mod this; seed 004: 64)";
        score_bits: u32 = Legal::Range { min: 1, max: 16 },
            "width of a saturating row score (seed 004: 4)";
        pt_slots: u32 = Legal::Pow2 { min: 1, max: 1024 },
            "bits per priority-table entry: one per column slot of the open row (seed 004: 64 for \
                1 KB rows)";
        controllers_per_wet: u32 = Legal::Range { min: 1, max: 128 },
            "controllers whose candidates one Warped-MC block (and its warp entry table) serves \
                (1: a block and a WET per controller, as Table 3 counts it)";
        wet_scope: u32 = Legal::Range { min: 0, max: 128 },
            "controllers whose enqueues and services every warp entry table counts (0: all, the \
                paper's global WET, each block holding a copy; else a multiple of \
                controllers_per_wet dividing dram.channels)";
    }
}

/// Rules between memory-controller keys.
pub(crate) const MC_RULES: &[Rule] = &[Rule {
    text: "mc.write_low < mc.write_high <= mc.queue_entries",
    check: |c: &UserConfig| {
        let m = &c.mc;
        if m.write_high > m.queue_entries || m.write_low >= m.write_high {
            return Err(format!(
                "write drain thresholds must satisfy `mc.write_low` ({}) < `mc.write_high` ({}) \
                    <= `mc.queue_entries` ({})",
                m.write_low, m.write_high, m.queue_entries
            ));
        }
        Ok(())
    },
}];

/// Width of the global warp id: log2(gpu.sms) + log2(gpu.warps_per_sm), each at least 1.
fn gwid_bits(c: &UserConfig) -> u32 {
    clog2(c.gpu.sms.into()).max(1) + clog2(c.gpu.warps_per_sm.into()).max(1)
}

/// Rules between Warped-MC keys.
pub(crate) const WMC_RULES: &[Rule] = &[
    Rule {
        text: "warped_mc.pc_hash_bits <= log2(gpu.sms) + log2(gpu.warps_per_sm) (the global warp \
            id width)",
        check: |c: &UserConfig| {
            let w = &c.warped_mc;
            if w.pc_hash_bits > gwid_bits(c) {
                return Err(format!(
                    "`warped_mc.pc_hash_bits` = {} exceeds the global warp id width {} \
                        (log2(gpu.sms) + log2(gpu.warps_per_sm))",
                    w.pc_hash_bits,
                    gwid_bits(c)
                ));
            }
            Ok(())
        },
    },
    Rule {
        text: "warped_mc.controllers_per_wet divides dram.channels",
        check: |c: &UserConfig| {
            let per = c.warped_mc.controllers_per_wet;
            if !c.dram.channels.is_multiple_of(per) {
                return Err(format!(
                    "`warped_mc.controllers_per_wet` = {per} must divide `dram.channels` = {}",
                    c.dram.channels
                ));
            }
            Ok(())
        },
    },
    Rule {
        text: "warped_mc.wet_scope is 0 or a multiple of warped_mc.controllers_per_wet that \
            divides dram.channels",
        check: |c: &UserConfig| {
            let w = &c.warped_mc;
            let scope = if w.wet_scope == 0 {
                c.dram.channels
            } else {
                w.wet_scope
            };
            if !scope.is_multiple_of(w.controllers_per_wet)
                || !c.dram.channels.is_multiple_of(scope)
            {
                return Err(format!(
                    "`warped_mc.wet_scope` = {} must be 0 (all controllers) or a multiple of \
                        `warped_mc.controllers_per_wet` = {} that divides `dram.channels` = {}",
                    w.wet_scope, w.controllers_per_wet, c.dram.channels
                ));
            }
            Ok(())
        },
    },
];

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

impl McSpec {
    pub(crate) fn new(m: &McConfig) -> McSpec {
        McSpec {
            scheduler: m.scheduler,
            queue_entries: m.queue_entries,
            write_high: m.write_high,
            write_low: m.write_low,
            slot_bits: clog2(m.queue_entries.into()).max(1),
        }
    }
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

impl WarpedMcSpec {
    pub(crate) fn new(
        w: &WarpedMcConfig,
        gpu: &GpuSpec,
        dram: &DramSpec,
        mc: &McSpec,
    ) -> WarpedMcSpec {
        let sm_bits = clog2(gpu.sms.into()).max(1);
        let warp_bits = clog2(gpu.warps_per_sm.into()).max(1);
        let gwid_bits = sm_bits + warp_bits;
        WarpedMcSpec {
            pc_bits: w.pc_bits,
            pc_hash_bits: w.pc_hash_bits,
            pending_bits: w.pending_bits,
            rows_tracked: w.rows_tracked,
            score_bits: w.score_bits,
            pt_slots: w.pt_slots,
            controllers_per_wet: w.controllers_per_wet,
            wet_ctrls: if w.wet_scope == 0 {
                dram.channels
            } else {
                w.wet_scope
            },
            controllers: dram.channels,
            candidates: mc.queue_entries,
            banks: dram.banks,
            sm_bits,
            warp_bits,
            gwid_bits,
            wet_entries: 1 << gwid_bits,
            bank_bits: dram.bank_bits.max(1),
            row_idx_bits: clog2(w.rows_tracked.into()).max(1),
            slot_idx_bits: clog2(w.pt_slots.into()).max(1),
            row_bits: clog2(dram.rows_per_bank).max(1),
            cand_bits: clog2(mc.queue_entries.into()).max(1),
            pending_max: (1u32 << w.pending_bits) - 1,
            score_max: (1u32 << w.score_bits) - 1,
        }
    }

    /// Whether a row score can ever decide anything: the scores only rank a controller's
    /// candidates against each other (the row to open on a miss), so with one candidate per
    /// controller they are never read into an output and synthesis removes the row scoreboard
    /// (decision BLK-7).
    pub fn scores_decide(&self) -> bool {
        self.candidates > 1
    }

    /// The block's parameters: the module's, every width derived from them.
    pub fn params(&self) -> Vec<Param> {
        let u = u64::from;
        let c = self.controllers_per_wet;
        vec![
            Param::key(
                "num_ctrl",
                u(c),
                "controllers whose candidates the block serves",
            ),
            Param::key(
                "num_wet_ctrl",
                u(self.wet_ctrls),
                "controllers whose requests the warp entry table counts",
            ),
            Param::key(
                "num_cand",
                u(self.candidates),
                "candidate requests per controller (its pending queue)",
            ),
            Param::key("num_banks", u(self.banks), "banks per controller"),
            Param::key("sm_w", u(self.sm_bits), "SM id width"),
            Param::key("warp_w", u(self.warp_bits), "warp-in-SM id width"),
            Param::key("pc_w", u(self.pc_bits), "load PC width"),
            Param::key(
                "pc_hash_w",
                u(self.pc_hash_bits),
                "PC bits folded into the global warp id",
            ),
            Param::key(
                "pend_w",
                u(self.pending_bits),
                "pending-request counter width",
            ),
            Param::key("rows_tracked", u(self.rows_tracked), "row scores per bank"),
            Param::key("score_w", u(self.score_bits), "row score width"),
            Param::key("pt_slots", u(self.pt_slots), "priority-table bits per bank"),
            Param::key("row_w", u(self.row_bits), "row number width"),
            Param::derived(
                "gwid_w",
                u(self.gwid_bits),
                "global warp id width: SmW + WarpW",
            ),
            Param::derived(
                "wet_entries",
                u(self.wet_entries),
                "warp entry table entries: 2^GwidW",
            ),
            Param::derived(
                "bank_w",
                u(self.bank_bits),
                "bank index width: log2(NumBanks), at least 1",
            ),
            Param::derived(
                "cand_w",
                u(self.cand_bits),
                "candidate index width: log2(NumCand), at least 1",
            ),
            Param::derived(
                "row_idx_w",
                u(self.row_idx_bits),
                "tracked-row index width: log2(RowsTracked), at least 1",
            ),
            Param::derived(
                "slot_w",
                u(self.slot_idx_bits),
                "priority-table slot width: log2(PtSlots), at least 1",
            ),
            Param::derived(
                "hash_w",
                u(self.pc_hash_bits.max(1)),
                "PC fold width on wires: PcHashW, at least 1",
            ),
            Param::derived(
                "ctrl_w",
                u(clog2(c.into()).max(1)),
                "controller index width: log2(NumCtrl), at least 1",
            ),
            Param::derived(
                "num_ctrl_cand",
                u(c * self.candidates),
                "candidates of all the block's controllers: NumCtrl * NumCand",
            ),
            Param::derived(
                "num_ctrl_bank",
                u(c * self.banks),
                "banks of all the block's controllers: NumCtrl * NumBanks",
            ),
            Param::derived(
                "num_ports",
                u(2 * self.wet_ctrls),
                "warp entry table update ports: 2 * NumWetCtrl",
            ),
            Param::derived(
                "num_scores",
                u(c * self.banks * self.rows_tracked),
                "row scores: NumCtrl * NumBanks * RowsTracked",
            ),
        ]
    }

    /// The enumerations on the interface.
    pub fn enums(&self) -> Vec<EnumDecl> {
        vec![
            EnumDecl {
                name: "wmc_class",
                bits: 2,
                members: Class::MEMBERS,
                meaning: "priority class of a candidate request (cand_class_o)",
            },
            EnumDecl {
                name: "wmc_cmd",
                bits: 2,
                members: BankCmd::MEMBERS,
                meaning: "command chosen for the selected bank (sel_cmd_o)",
            },
        ]
    }

    /// The block's interface. Enqueue and service ports are packed arrays of `wet_ctrls`
    /// elements: the events of every controller the warp entry table counts (the block's own
    /// controllers and the rest of its WET scope, in any fixed order). Other per-controller
    /// ports are packed arrays of `controllers_per_wet` elements (controller c is element c);
    /// per-candidate and per-bank ports are packed arrays of `controllers_per_wet x candidates`
    /// / `x banks` elements (element c*N + i).
    pub fn interface(&self) -> Interface {
        let wet = Some("num_wet_ctrl");
        let ctl = Some("num_ctrl");
        let cand = Some("num_ctrl_cand");
        let bank = Some("num_ctrl_bank");
        let p = Elem::Param;
        let bit = Elem::Bit;
        Interface::new(self.params(), self.enums())
            .input(
                "enq_valid_i",
                wet,
                bit,
                "a request enters a pending queue of the WET scope",
            )
            .input("enq_sm_i", wet, p("sm_w"), "its SM")
            .input("enq_warp_i", wet, p("warp_w"), "its warp within the SM")
            .input("enq_pc_i", wet, p("pc_w"), "its load PC")
            .input(
                "svc_valid_i",
                wet,
                bit,
                "a column command of the WET scope issued last cycle",
            )
            .input("svc_gwid_i", wet, p("gwid_w"), "its global warp id")
            .input("act_valid_i", ctl, bit, "a row was activated last cycle")
            .input("act_bank_i", ctl, p("bank_w"), "its bank")
            .input("act_row_i", ctl, p("row_w"), "its row")
            .input(
                "cand_valid_i",
                cand,
                bit,
                "candidate slot holds a pending request (oldest first)",
            )
            .input(
                "cand_gwid_i",
                cand,
                p("gwid_w"),
                "candidate's global warp id",
            )
            .input("cand_bank_i", cand, p("bank_w"), "candidate's bank")
            .input("cand_row_i", cand, p("row_w"), "candidate's row")
            .input(
                "cand_slot_i",
                cand,
                p("slot_w"),
                "candidate's column slot in the row (mod PtSlots)",
            )
            .input(
                "cand_hit_i",
                cand,
                bit,
                "candidate hits its bank's open row",
            )
            .input("bank_open_i", bank, bit, "bank has an open row")
            .input(
                "cas_ready_i",
                bank,
                bit,
                "a column command to the bank could issue now",
            )
            .input(
                "pre_ready_i",
                bank,
                bit,
                "a precharge of the bank could issue now",
            )
            .input(
                "act_ready_i",
                bank,
                bit,
                "an activate of the bank could issue now",
            )
            .output(
                "cand_class_o",
                cand,
                Elem::Enum("wmc_class"),
                "candidate's priority class",
            )
            .output(
                "open_valid_o",
                bank,
                bit,
                "a row miss is pending in the bank",
            )
            .output(
                "open_row_o",
                bank,
                p("row_w"),
                "row to open: the highest-scoring pending miss",
            )
            .output(
                "open_cand_o",
                bank,
                p("cand_w"),
                "the candidate it belongs to",
            )
            .output("sel_valid_o", ctl, bit, "a command is chosen")
            .output(
                "sel_bank_o",
                ctl,
                p("bank_w"),
                "bank to serve (two-level round robin)",
            )
            .output(
                "sel_cmd_o",
                ctl,
                Elem::Enum("wmc_cmd"),
                "command for that bank",
            )
            .output(
                "sel_cand_o",
                ctl,
                p("cand_w"),
                "candidate served (CAS) or whose row is opened (ACT)",
            )
            .output("sel_row_o", ctl, p("row_w"), "row to activate (ACT)")
    }

    /// The block's ports.
    pub fn ports(&self) -> Vec<PortSpec> {
        self.interface().ports
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

impl Class {
    pub const ALL: [Class; 4] = [Class::None, Class::L, Class::M, Class::H];
    /// Words and codes, in code order.
    pub const MEMBERS: &'static [(&'static str, u64)] =
        &[("none", 0), ("l", 1), ("m", 2), ("h", 3)];
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

impl BankCmd {
    pub const ALL: [BankCmd; 4] = [BankCmd::None, BankCmd::Cas, BankCmd::Pre, BankCmd::Act];
    /// Words and codes, in code order.
    pub const MEMBERS: &'static [(&'static str, u64)] =
        &[("no_cmd", 0), ("cas", 1), ("pre", 2), ("act", 3)];
}
