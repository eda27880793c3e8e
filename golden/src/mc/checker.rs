//! An independent, table-driven checker of DRAM command traces.
//!
//! It shares nothing with [`super::dram::Channel`] but the [`ChannelTiming`] and the trace format:
//! each timing rule of the notes' tables (`dram-timing-and-frfcfs.md` §4) is one row of
//! [`RULES`] ("command B may issue at `t_B` only if `t_B - t_A >= X`, where A is the most recent
//! (for `window` k: the k-th most recent) command of a `prev` kind in the stated scope"),
//! evaluated by scanning each channel's history backwards. B1 (one command per command bus and
//! cycle) is a row of the table whose scope is the command bus: the channel's one bus for
//! GDDR5/5X/6, and for HBM2 ([`ChannelTiming::dual_bus`]) its row bus (ACT, PRE, PREA, REF)
//! and its column bus (RD, WR, RDA, WRA) apart, so a row and a column command may share a
//! cycle. The structural rules B2 (data bursts never overlap), B3 (bank state) and the refresh
//! rate F3 are checked beside the table.
//!
//! Scope of the all-bank commands PREA and REF: they match `SameBank` (PREA precharges every
//! bank, so R3/C5/C6 of every bank apply to it and R5 applies from it to every bank) and `Rank`,
//! never a group scope.
//!
//! Rules not in the table: R8 tPPD is one cycle for GDDR5 at this speed bin and GDDR6 (B1 covers
//! it; the row documents it); C9 needs several ranks (GDDR has one per channel); F4-F6 are
//! per-bank refresh, which the model does not issue.

use std::collections::BTreeMap;

use super::dram::{CmdKind, TraceCmd};
use super::timing::ChannelTiming;
use CmdKind::{Act, Pre, PreA, Rd, Rda, Ref, Wr, Wra};

/// Which pairs of commands a rule relates (A = earlier, B = later).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The same bank (an all-bank command matches every bank).
    SameBank,
    /// The same bank group, the same bank included.
    SameGroup,
    /// Different bank groups.
    OtherGroup,
    /// Any two commands of the channel (GDDR and HBM2 channels: one rank per channel).
    Rank,
    /// Two commands on the same command bus: any two with one bus; with a row and a column
    /// bus (HBM2), two row commands or two column commands.
    SameBus,
}

/// One row of the rule table.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// Rule id of the notes' tables, then a short description, e.g. `"R1 ACT->RD tRCD"`.
    pub id: &'static str,
    /// Kinds of the earlier command A.
    pub prev: &'static [CmdKind],
    /// Kinds of the later command B.
    pub next: &'static [CmdKind],
    pub scope: Scope,
    /// The minimum distance `t_B - t_A`.
    pub delay: fn(&ChannelTiming) -> u32,
    /// 1: A is the most recent matching command; k: the k-th most recent (tFAW: 4).
    pub window: u32,
}

/// One broken rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Index of the offending command in the checked trace.
    pub index: usize,
    /// Its cycle.
    pub cycle: u64,
    /// The rule id (first word) and description.
    pub rule: &'static str,
    pub message: String,
}

/// B1, checked beside the table (also: cycles going backwards within a channel).
pub const B1_RULE: &str = "B1 one command per command bus and cycle";
/// B2, checked beside the table.
pub const B2_RULE: &str = "B2 data bursts overlap";
/// B3, checked beside the table.
pub const B3_RULE: &str = "B3 bank state";
/// F3: with refresh on, no command later than `tREFI + tRFC` after the previous REF (or cycle 0)
/// unless a REF came in between. The slack tRFC covers closing the banks once the refresh is due
/// (at most tRAS + tRP for the presets, below tRFC); postponing refreshes is not allowed.
pub const F3_RULE: &str = "F3 refresh interval tREFI (+tRFC slack)";

/// The rule id of a rule string: its first word (`"R6"` for `"R6 ACT->ACT same group tRRD_L"`).
pub fn rule_family(rule: &str) -> &str {
    rule.split_whitespace().next().unwrap_or("")
}

/// The F3 slack: how long after tREFI the REF may come.
pub fn refresh_slack(t: &ChannelTiming) -> u64 {
    u64::from(t.t_rfc)
}

const ALL: &[CmdKind] = &[Act, Pre, PreA, Rd, Wr, Rda, Wra, Ref];
const READS: &[CmdKind] = &[Rd, Rda];
const WRITES: &[CmdKind] = &[Wr, Wra];
const PRES: &[CmdKind] = &[Pre, PreA];

/// `_L` value when bank groups are enabled, else the `_S` value.
fn long(t: &ChannelTiming, l: u32, s: u32) -> u32 {
    if t.bank_groups > 1 {
        l
    } else {
        s
    }
}

/// The rule table. One row per (rule, scope) of the notes' tables that applies to GDDR5/GDDR6.
pub static RULES: &[Rule] = &[
    Rule {
        id: "B1 one command per command bus and cycle",
        prev: ALL,
        next: ALL,
        scope: Scope::SameBus,
        delay: |_| 1,
        window: 1,
    },
    Rule {
        id: "R1 ACT->RD tRCD",
        prev: &[Act],
        next: READS,
        scope: Scope::SameBank,
        delay: |t| t.t_rcd,
        window: 1,
    },
    Rule {
        id: "R2 ACT->WR tRCDWR",
        prev: &[Act],
        next: WRITES,
        scope: Scope::SameBank,
        delay: |t| t.t_rcdwr,
        window: 1,
    },
    Rule {
        id: "R3 ACT->PRE tRAS",
        prev: &[Act],
        next: PRES,
        scope: Scope::SameBank,
        delay: |t| t.t_ras,
        window: 1,
    },
    Rule {
        id: "R4 ACT->ACT same bank tRC",
        prev: &[Act],
        next: &[Act],
        scope: Scope::SameBank,
        delay: |t| t.t_rc,
        window: 1,
    },
    Rule {
        id: "R5 PRE->ACT tRP",
        prev: PRES,
        next: &[Act],
        scope: Scope::SameBank,
        delay: |t| t.t_rp,
        window: 1,
    },
    Rule {
        id: "R6 ACT->ACT same group tRRD_L",
        prev: &[Act],
        next: &[Act],
        scope: Scope::SameGroup,
        delay: |t| long(t, t.t_rrdl, t.t_rrds),
        window: 1,
    },
    Rule {
        id: "R6 ACT->ACT other group tRRD_S",
        prev: &[Act],
        next: &[Act],
        scope: Scope::OtherGroup,
        delay: |t| t.t_rrds,
        window: 1,
    },
    Rule {
        id: "R7 ACT->ACT four-activate window tFAW",
        prev: &[Act],
        next: &[Act],
        scope: Scope::Rank,
        delay: |t| t.t_faw,
        window: 4,
    },
    Rule {
        id: "R8 PRE->PRE tPPD (1 cycle)",
        prev: PRES,
        next: PRES,
        scope: Scope::Rank,
        delay: |_| 1,
        window: 1,
    },
    Rule {
        id: "C1 RD->RD same group max(tCCD_L,tBL)",
        prev: READS,
        next: READS,
        scope: Scope::SameGroup,
        delay: |t| long(t, t.t_ccdl, t.t_ccds).max(t.t_bl),
        window: 1,
    },
    Rule {
        id: "C1 RD->RD other group max(tCCD_S,tBL)",
        prev: READS,
        next: READS,
        scope: Scope::OtherGroup,
        delay: |t| t.t_ccds.max(t.t_bl),
        window: 1,
    },
    Rule {
        id: "C2 WR->WR same group max(tCCD_L,tBL)",
        prev: WRITES,
        next: WRITES,
        scope: Scope::SameGroup,
        delay: |t| long(t, t.t_ccdl, t.t_ccds).max(t.t_bl),
        window: 1,
    },
    Rule {
        id: "C2 WR->WR other group max(tCCD_S,tBL)",
        prev: WRITES,
        next: WRITES,
        scope: Scope::OtherGroup,
        delay: |t| t.t_ccds.max(t.t_bl),
        window: 1,
    },
    Rule {
        id: "C3 WR->RD same group tCWL+tBL+tWTR_L",
        prev: WRITES,
        next: READS,
        scope: Scope::SameGroup,
        delay: |t| t.t_cwl + t.t_bl + long(t, t.t_wtrl, t.t_wtrs),
        window: 1,
    },
    Rule {
        id: "C3 WR->RD other group tCWL+tBL+tWTR_S",
        prev: WRITES,
        next: READS,
        scope: Scope::OtherGroup,
        delay: |t| t.t_cwl + t.t_bl + t.t_wtrs,
        window: 1,
    },
    Rule {
        id: "C4 RD->WR tCL+tBL+tRTW-tCWL",
        prev: READS,
        next: WRITES,
        scope: Scope::Rank,
        delay: |t| (t.t_cl + t.t_bl + t.t_rtw).saturating_sub(t.t_cwl),
        window: 1,
    },
    Rule {
        id: "C5 RD->PRE tRTP",
        prev: READS,
        next: PRES,
        scope: Scope::SameBank,
        delay: |t| t.t_rtp,
        window: 1,
    },
    Rule {
        id: "C6 WR->PRE tCWL+tBL+tWR",
        prev: WRITES,
        next: PRES,
        scope: Scope::SameBank,
        delay: |t| t.t_cwl + t.t_bl + t.t_wr,
        window: 1,
    },
    Rule {
        id: "C7 RDA->ACT tRTP+tRP",
        prev: &[Rda],
        next: &[Act],
        scope: Scope::SameBank,
        delay: |t| t.t_rtp + t.t_rp,
        window: 1,
    },
    Rule {
        id: "C8 WRA->ACT tCWL+tBL+tWR+tRP",
        prev: &[Wra],
        next: &[Act],
        scope: Scope::SameBank,
        delay: |t| t.t_cwl + t.t_bl + t.t_wr + t.t_rp,
        window: 1,
    },
    Rule {
        id: "F1 PRE->REF tRP",
        prev: PRES,
        next: &[Ref],
        scope: Scope::Rank,
        delay: |t| t.t_rp,
        window: 1,
    },
    Rule {
        id: "F1 ACT->REF tRC",
        prev: &[Act],
        next: &[Ref],
        scope: Scope::Rank,
        delay: |t| t.t_rc,
        window: 1,
    },
    Rule {
        id: "F1 RDA->REF tRTP+tRP",
        prev: &[Rda],
        next: &[Ref],
        scope: Scope::Rank,
        delay: |t| t.t_rtp + t.t_rp,
        window: 1,
    },
    Rule {
        id: "F1 WRA->REF tCWL+tBL+tWR+tRP",
        prev: &[Wra],
        next: &[Ref],
        scope: Scope::Rank,
        delay: |t| t.t_cwl + t.t_bl + t.t_wr + t.t_rp,
        window: 1,
    },
    Rule {
        id: "F2 REF->ACT/REF tRFC",
        prev: &[Ref],
        next: &[Act, Ref],
        scope: Scope::Rank,
        delay: |t| t.t_rfc,
        window: 1,
    },
];

fn in_scope(scope: Scope, a: &TraceCmd, b: &TraceCmd, t: &ChannelTiming) -> bool {
    let all_bank = a.kind.is_all_bank() || b.kind.is_all_bank();
    let groups = t.bank_groups.max(1);
    match scope {
        Scope::Rank => true,
        Scope::SameBus => !t.dual_bus || a.kind.is_column() == b.kind.is_column(),
        Scope::SameBank => all_bank || a.bank == b.bank,
        Scope::SameGroup => !all_bank && a.bank % groups == b.bank % groups,
        Scope::OtherGroup => !all_bank && a.bank % groups != b.bank % groups,
    }
}

/// Per-channel checker state.
struct ChannelCheck {
    /// Indices (into the trace) of the commands seen so far, in order.
    history: Vec<usize>,
    open: Vec<Option<u32>>,
    last_cycle: Option<u64>,
    /// Cycle of the last REF (0 before the first).
    last_ref: u64,
    refresh_flagged: bool,
}

/// Check a command trace (any number of channels, each in issue order) against `t`. Returns every
/// violation, ordered by trace index; an empty vector means the trace is legal.
///
/// The refresh rate (F3) is checked at each command: a trace that simply stops cannot be blamed
/// for the refreshes after its last command.
pub fn check(trace: &[TraceCmd], t: &ChannelTiming) -> Vec<Violation> {
    let mut out = Vec::new();
    let mut channels: BTreeMap<u32, ChannelCheck> = BTreeMap::new();
    let banks = t.banks as usize;
    for (i, b) in trace.iter().enumerate() {
        let ch = channels.entry(b.channel).or_insert_with(|| ChannelCheck {
            history: Vec::new(),
            open: vec![None; banks],
            last_cycle: None,
            last_ref: 0,
            refresh_flagged: false,
        });
        let mut flag = |rule: &'static str, message: String| {
            out.push(Violation {
                index: i,
                cycle: b.cycle,
                rule,
                message,
            })
        };
        if let Some(last) = ch.last_cycle {
            if b.cycle < last {
                flag(
                    B1_RULE,
                    format!(
                        "{} at cycle {} comes after a command at cycle {last}",
                        b.kind, b.cycle
                    ),
                );
            }
        }
        if !b.kind.is_all_bank() && b.bank as usize >= banks {
            flag(
                B3_RULE,
                format!(
                    "{} to bank {} but the channel has {banks} banks",
                    b.kind, b.bank
                ),
            );
            continue;
        }
        if let Some(m) = state_step(&mut ch.open, b) {
            flag(B3_RULE, m);
        }
        for rule in RULES.iter().filter(|r| r.next.contains(&b.kind)) {
            let delay = u64::from((rule.delay)(t));
            let mut seen = 0;
            for &j in ch.history.iter().rev() {
                let a = &trace[j];
                let dist = b.cycle.saturating_sub(a.cycle);
                if dist >= delay {
                    break;
                }
                if rule.prev.contains(&a.kind) && in_scope(rule.scope, a, b, t) {
                    seen += 1;
                    if seen == rule.window {
                        flag(
                            rule.id,
                            format!(
                                "{} bank {} at cycle {}: {} bank {} at cycle {} (index {j}) \
                                 is {dist} cycles earlier, needs >= {delay}",
                                b.kind, b.bank, b.cycle, a.kind, a.bank, a.cycle,
                            ),
                        );
                        break;
                    }
                }
            }
        }
        if b.kind.is_column() {
            if let Some(m) = bus_overlap(trace, &ch.history, b, t) {
                flag(B2_RULE, m);
            }
        }
        if t.refresh {
            let deadline = ch.last_ref + u64::from(t.t_refi) + refresh_slack(t);
            if b.cycle > deadline && !ch.refresh_flagged {
                flag(
                    F3_RULE,
                    format!(
                        "{} at cycle {} but the last REF was at cycle {} (deadline {deadline})",
                        b.kind, b.cycle, ch.last_ref
                    ),
                );
                ch.refresh_flagged = true;
            }
            if b.kind == Ref {
                ch.last_ref = b.cycle;
                ch.refresh_flagged = false;
            }
        }
        ch.last_cycle = Some(ch.last_cycle.map_or(b.cycle, |l| l.max(b.cycle)));
        ch.history.push(i);
    }
    out.sort_by_key(|v| v.index);
    out
}

/// Apply `b` to the open-row table; the B3 complaint if the state did not allow it.
fn state_step(open: &mut [Option<u32>], b: &TraceCmd) -> Option<String> {
    let bank = b.bank as usize;
    match b.kind {
        Act => {
            let was = open[bank].replace(b.row);
            was.map(|r| format!("ACT bank {} row {} while row {r} is open", b.bank, b.row))
        }
        Pre => open[bank]
            .take()
            .is_none()
            .then(|| format!("PRE bank {} which is closed", b.bank)),
        PreA => {
            open.iter_mut().for_each(|o| *o = None);
            None
        }
        Ref => {
            let open_banks: Vec<usize> = (0..open.len()).filter(|&k| open[k].is_some()).collect();
            (!open_banks.is_empty()).then(|| format!("REF while banks {open_banks:?} are open"))
        }
        Rd | Wr | Rda | Wra => {
            let m = match open[bank] {
                Some(r) if r == b.row => None,
                Some(r) => Some(format!(
                    "{} bank {} row {} while row {r} is open",
                    b.kind, b.bank, b.row
                )),
                None => Some(format!(
                    "{} bank {} row {} to a closed bank",
                    b.kind, b.bank, b.row
                )),
            };
            if b.kind.is_auto_precharge() {
                open[bank] = None;
            }
            m
        }
    }
}

/// B2: the burst of column command `b` against the bursts of the recent column commands.
fn bus_overlap(
    trace: &[TraceCmd],
    history: &[usize],
    b: &TraceCmd,
    t: &ChannelTiming,
) -> Option<String> {
    let burst = |c: &TraceCmd| {
        let lat = if c.kind.is_read() { t.t_cl } else { t.t_cwl };
        let start = c.cycle + u64::from(lat);
        (start, start + u64::from(t.t_bl))
    };
    let (s, e) = burst(b);
    // Older commands' bursts end before `s`.
    let reach = u64::from(t.t_cl.max(t.t_cwl) + t.t_bl);
    for &j in history.iter().rev() {
        let a = &trace[j];
        if b.cycle.saturating_sub(a.cycle) >= reach {
            break;
        }
        if a.kind.is_column() {
            let (sa, ea) = burst(a);
            if s < ea && sa < e {
                return Some(format!(
                    "{} at cycle {} drives data in [{s}, {e}), {} at cycle {} (index {j}) in \
                        [{sa}, {ea})",
                    b.kind, b.cycle, a.kind, a.cycle
                ));
            }
        }
    }
    None
}

#[cfg(test)]
#[path = "checker_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "checker_bus_tests.rs"]
mod bus_tests;
