//! One GDDR or HBM2 channel (one rank), cycle-level: bank state, every command timing rule of
//! the notes' tables (`dram-timing-and-frfcfs.md` §4) and refresh bookkeeping. The model never
//! issues a command itself; a controller asks [`Channel::earliest`] / [`Channel::can_issue`]
//! and calls [`Channel::issue`].
//!
//! Implementation (notes §4.6): per scope node (bank, bank group, rank) one "earliest cycle"
//! register per next-command class, raised to `max(earliest, t_A + X)` on every issue; a ring of
//! the last four ACT cycles for tFAW; the data-bus end for B2. Each register also remembers which
//! rule raised it, so a refused command names its rule. [`Channel::earliest`],
//! [`Channel::can_issue`] and [`Channel::issue`] do not allocate and are O(1) except PREA
//! (O(banks)).
//!
//! Decisions (see `docs/dram-timing.md`):
//! * PRE needs its bank open; PREA is always allowed by state and waits for R3/C5/C6 of every bank.
//! * RDA/WRA close the bank at once (state); the internal precharge happens at
//!   `max(t + tRTP | t + tCWL + tBL + tWR, t_ACT + tRAS)` and the next ACT of the bank waits tRP
//!   after it.
//! * REF needs every bank closed; it holds ACT and REF for tRFC (F2). PREA is not held by REF.
//! * tPPD (R8) is one cycle, which B1 already enforces.
//! * B1 holds per command bus: one for GDDR5/5X/6; HBM2's row bus (ACT, PRE, PREA, REF) and
//!   column bus (RD, WR, RDA, WRA) each take one command a cycle (decision MEM-25).

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::timing::ChannelTiming;

pub use super::command::{parse_trace, CmdKind, Command, CommandTrace, TraceCmd, TraceError};

/// A command refused by [`Channel::issue`]; the channel is unchanged.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
#[error("{kind} to bank {bank} at cycle {cycle} breaks {rule}{}", match earliest {
    Some(e) => format!(" (earliest legal cycle {e})"),
    None => " (not legal in the current bank state)".to_string(),
})]
pub struct TimingViolation {
    /// The rule, e.g. `"R1 ACT->RD tRCD"`; the first word is the rule id of the notes' tables.
    pub rule: &'static str,
    pub kind: CmdKind,
    pub bank: u32,
    /// The cycle the command was attempted at.
    pub cycle: u64,
    /// The earliest legal cycle, or `None` when the bank state forbids the command.
    pub earliest: Option<u64>,
}

/// Counters of one bank of a channel.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct BankStats {
    /// ACT commands.
    pub activations: u64,
    /// Read column commands (RD, RDA): one burst each.
    pub reads: u64,
    /// Write column commands (WR, WRA).
    pub writes: u64,
    /// Column commands to a row an earlier one had used since its ACT.
    pub row_hits: u64,
}

/// Counters of one channel.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChannelStats {
    /// Issued commands, indexed by [`CmdKind::index`].
    pub commands: [u64; 8],
    /// Cycles the data bus carries a burst (tBL per column command; bursts never overlap, B2).
    pub data_bus_busy: u64,
    /// Column commands to a row that an earlier column command had already used since its ACT.
    pub row_hits: u64,
    /// Column commands that are the first to use their row since its ACT (they needed the ACT).
    pub row_misses: u64,
    /// Banks precharged: one a PRE, RDA or WRA, one for each bank a PREA finds open.
    pub bank_precharges: u64,
    /// Cycles with a bank open, up to the last time every bank closed (a bank an RDA or WRA
    /// closes counts as open until its internal precharge). [`Channel::active_cycles`] adds the
    /// open period still running.
    pub active_cycles: u64,
}

impl ChannelStats {
    /// Issued commands of one kind.
    pub fn count(&self, kind: CmdKind) -> u64 {
        self.commands[kind.index()]
    }

    /// Data-bus utilisation over `cycles` cycles.
    pub fn bus_utilization(&self, cycles: u64) -> f64 {
        if cycles == 0 {
            0.0
        } else {
            self.data_bus_busy as f64 / cycles as f64
        }
    }
}

// State rules (a command the bank state forbids). The first word is the id of the notes' tables.
const B3_ROW: &str = "B3 column command needs its row open";
const B3_ACT: &str = "B3 ACT needs the bank closed";
const B3_PRE: &str = "B3 PRE needs the bank open";
const B3_REF: &str = "B3 REF needs every bank closed";
const B3_BANK: &str = "B3 bank out of range";

/// Declares the timing rules once: the [`Rule`] a bound register remembers (one byte) and its
/// label.
macro_rules! timing_rules {
    ($($name:ident => $label:literal,)*) => {
        /// A timing rule, as a bound register remembers the one that raised it (one byte: the
        /// registers are written on every command, and a 16-byte label in each doubled the
        /// bytes written).
        #[allow(clippy::upper_case_acronyms, non_camel_case_types)]
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[repr(u8)]
        enum Rule {
            /// No rule yet (a register at 0).
            Reset,
            $($name,)*
        }

        impl Rule {
            /// Its label; the first word is the id of the notes' tables.
            fn label(self) -> &'static str {
                match self {
                    Rule::Reset => "",
                    $(Rule::$name => $label,)*
                }
            }
        }
    };
}

timing_rules! {
    B1 => "B1 one command per command bus and cycle",
    B2 => "B2 data bus busy",
    R1 => "R1 ACT->RD tRCD",
    R2 => "R2 ACT->WR tRCDWR",
    R3 => "R3 ACT->PRE tRAS",
    R4 => "R4 ACT->ACT same bank tRC",
    R5 => "R5 PRE->ACT tRP",
    R6L => "R6 ACT->ACT same group tRRD_L",
    R6S => "R6 ACT->ACT other group tRRD_S",
    R7 => "R7 four-activate window tFAW",
    C1L => "C1 RD->RD same group tCCD_L",
    C1S => "C1 RD->RD other group tCCD_S",
    C2L => "C2 WR->WR same group tCCD_L",
    C2S => "C2 WR->WR other group tCCD_S",
    C3L => "C3 WR->RD same group tCWL+tBL+tWTR_L",
    C3S => "C3 WR->RD other group tCWL+tBL+tWTR_S",
    C4 => "C4 RD->WR tCL+tBL+tRTW-tCWL",
    C5 => "C5 RD->PRE tRTP",
    C6 => "C6 WR->PRE tCWL+tBL+tWR",
    C7 => "C7 RDA->ACT tRTP+tRP",
    C8 => "C8 WRA->ACT tCWL+tBL+tWR+tRP",
    F1_PRE => "F1 PRE->REF tRP",
    F1_ACT => "F1 ACT->REF tRC",
    F1_RDA => "F1 RDA->REF tRTP+tRP",
    F1_WRA => "F1 WRA->REF tCWL+tBL+tWR+tRP",
    F2 => "F2 REF->ACT/REF tRFC",
}

use Rule::*;

/// An "earliest cycle" register and the rule that set it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Bound {
    at: u64,
    rule: Rule,
}

impl Bound {
    const ZERO: Bound = Bound {
        at: 0,
        rule: Rule::Reset,
    };

    /// `max(self, at)`; on a tie the older rule stays.
    #[inline]
    fn raise(&mut self, at: u64, rule: Rule) {
        if at > self.at {
            *self = Bound { at, rule };
        }
    }

    #[inline]
    fn max(self, other: Bound) -> Bound {
        if other.at > self.at {
            other
        } else {
            self
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct BankState {
    open_row: Option<u32>,
    /// Its bank group ([`ChannelTiming::bank_group`]).
    group: u32,
    /// Cycle of the last ACT (for the tRAS lockout of an auto-precharge).
    act_at: u64,
    /// Whether a column command used the open row since its ACT.
    used: bool,
    act: Bound,
    pre: Bound,
    rd: Bound,
    wr: Bound,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct GroupState {
    act: Bound,
    rd: Bound,
    wr: Bound,
}

/// Derived delays, computed once per channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Delays {
    rd_rd_l: u64,
    rd_rd_s: u64,
    wr_rd_l: u64,
    wr_rd_s: u64,
    rd_wr: u64,
    wr_pre: u64,
    rrd_l: u64,
    rrd_s: u64,
}

impl Delays {
    fn new(t: &ChannelTiming) -> Delays {
        let u = u64::from;
        let (ccdl, rrdl, wtrl) = if t.groups_enabled() {
            (t.t_ccdl, t.t_rrdl, t.t_wtrl)
        } else {
            (t.t_ccds, t.t_rrds, t.t_wtrs)
        };
        Delays {
            rd_rd_l: u(ccdl.max(t.t_bl)),
            rd_rd_s: u(t.t_ccds.max(t.t_bl)),
            wr_rd_l: u(t.t_cwl + t.t_bl + wtrl),
            wr_rd_s: u(t.t_cwl + t.t_bl + t.t_wtrs),
            rd_wr: u((t.t_cl + t.t_bl + t.t_rtw).saturating_sub(t.t_cwl)),
            wr_pre: u(t.t_cwl + t.t_bl + t.t_wr),
            rrd_l: u(rrdl),
            rrd_s: u(t.t_rrds),
        }
    }
}

/// One GDDR or HBM2 channel: banks, bank groups, one rank. See the module documentation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Channel {
    t: ChannelTiming,
    d: Delays,
    banks: Vec<BankState>,
    groups: Vec<GroupState>,
    /// Per bank group: the mask of its banks.
    group_banks: Vec<u64>,
    /// Bit `b` set: bank `b` has a row open.
    open_mask: u64,
    /// Rank-wide registers: `_S` delays and C4 / F1 / F2; B1 per command bus (`rank_any` for
    /// row commands, `col_any` for column commands: the same register value with one bus).
    rank_act: Bound,
    rank_rd: Bound,
    rank_wr: Bound,
    rank_prea: Bound,
    rank_ref: Bound,
    rank_any: Bound,
    col_any: Bound,
    /// Cycles of the last four ACTs (ring; `faw_len` valid entries, oldest at `faw_head`).
    faw: [u64; 4],
    faw_head: usize,
    faw_len: usize,
    /// First cycle after the last scheduled burst on the data bus.
    bus_free: u64,
    last_ref: Option<u64>,
    /// The period a bank has been open in, for the active-standby energy: from `open_from`; it
    /// ends at `open_until` once every bank is closed (the latest precharge, an RDA's or WRA's
    /// internal one included), and an ACT before that continues it.
    open_from: u64,
    open_until: u64,
    stats: ChannelStats,
    /// Per bank.
    bank_stats: Vec<BankStats>,
}

impl Channel {
    /// A channel with every bank closed at cycle 0. The timing comes from a validated spec
    /// ([`ChannelTiming::of`]), whose rules are what the model needs.
    pub fn new(t: ChannelTiming) -> Channel {
        let t_banks = t.banks as usize;
        let bank = BankState {
            open_row: None,
            group: 0,
            act_at: 0,
            used: false,
            act: Bound::ZERO,
            pre: Bound::ZERO,
            rd: Bound::ZERO,
            wr: Bound::ZERO,
        };
        let group = GroupState {
            act: Bound::ZERO,
            rd: Bound::ZERO,
            wr: Bound::ZERO,
        };
        Channel {
            d: Delays::new(&t),
            banks: (0..t.banks)
                .map(|b| BankState {
                    group: t.bank_group(b),
                    ..bank.clone()
                })
                .collect(),
            groups: vec![group; t.bank_groups as usize],
            group_banks: (0..t.bank_groups.max(1))
                .map(|g| {
                    (0..t.banks)
                        .filter(|&b| t.bank_group(b) == g)
                        .fold(0u64, |m, b| m | 1 << b)
                })
                .collect(),
            t,
            open_mask: 0,
            rank_act: Bound::ZERO,
            rank_rd: Bound::ZERO,
            rank_wr: Bound::ZERO,
            rank_prea: Bound::ZERO,
            rank_ref: Bound::ZERO,
            rank_any: Bound::ZERO,
            col_any: Bound::ZERO,
            faw: [0; 4],
            faw_head: 0,
            faw_len: 0,
            bus_free: 0,
            last_ref: None,
            open_from: 0,
            open_until: 0,
            stats: ChannelStats::default(),
            bank_stats: vec![BankStats::default(); t_banks],
        }
    }

    /// The channel's timing.
    pub fn timing(&self) -> &ChannelTiming {
        &self.t
    }

    /// The open row of `bank` (`None`: closed, or no such bank).
    pub fn open_row(&self, bank: u32) -> Option<u32> {
        self.banks.get(bank as usize).and_then(|b| b.open_row)
    }

    /// The banks with a row open (bit `b` for bank `b`).
    #[inline]
    pub fn open_mask(&self) -> u64 {
        self.open_mask
    }

    /// Whether any bank has a row open.
    pub fn any_open(&self) -> bool {
        self.open_mask != 0
    }

    /// The counters so far.
    pub fn stats(&self) -> ChannelStats {
        self.stats
    }

    /// Each bank's counters so far.
    pub fn bank_stats(&self) -> &[BankStats] {
        &self.bank_stats
    }

    /// Cycles before `now` with a bank open (DRAMPower's active cycles): the closed periods of
    /// [`ChannelStats::active_cycles`] and the one still running.
    pub fn active_cycles(&self, now: u64) -> u64 {
        let end = if self.open_mask != 0 {
            now
        } else {
            self.open_until.min(now)
        };
        self.stats.active_cycles + end.saturating_sub(self.open_from)
    }

    /// Book a bank opening at `now` into the open period.
    fn opened(&mut self, now: u64) {
        if self.open_mask == 0 && now > self.open_until {
            self.stats.active_cycles += self.open_until - self.open_from;
            self.open_from = now;
            self.open_until = now;
        }
    }

    /// Book `banks` banks precharged, the last at `at`, into the counters and the open period.
    fn precharged(&mut self, banks: u64, at: u64) {
        self.stats.bank_precharges += banks;
        self.open_until = self.open_until.max(at);
    }

    /// Earliest cycle `>= now` at which `cmd` satisfies every timing rule and the state rules
    /// (B3: a column command needs its row open; ACT needs the bank closed; PRE needs it open;
    /// REF needs every bank closed). `None` if the state forbids it regardless of time.
    pub fn earliest(&self, cmd: &Command, now: u64) -> Option<u64> {
        self.bound(cmd).ok().map(|b| b.at.max(now))
    }

    /// Whether `cmd` may issue at `now`: `earliest == Some(now)`, at most one command per
    /// command bus and cycle (B1) included.
    pub fn can_issue(&self, cmd: &Command, now: u64) -> bool {
        matches!(self.bound(cmd), Ok(b) if b.at <= now)
    }

    /// Why `cmd` may not issue at `now` (the binding rule), or `Ok(())` if it may.
    pub fn check_issue(&self, cmd: &Command, now: u64) -> Result<(), TimingViolation> {
        let refuse = |rule, earliest| TimingViolation {
            rule,
            kind: cmd.kind,
            bank: cmd.bank,
            cycle: now,
            earliest,
        };
        match self.bound(cmd) {
            Err(rule) => Err(refuse(rule, None)),
            Ok(b) if b.at > now => Err(refuse(b.rule.label(), Some(b.at))),
            Ok(_) => Ok(()),
        }
    }

    /// Issue `cmd` at `now`. Returns for RD/RDA the cycle its data completes
    /// (`now + tCL + tBL`), for WR/WRA `now + tCWL + tBL`, else `None`. A refused command leaves
    /// the channel unchanged.
    pub fn issue(&mut self, cmd: &Command, now: u64) -> Result<Option<u64>, TimingViolation> {
        self.check_issue(cmd, now)?;
        Ok(self.apply(cmd, now))
    }

    /// Whether a refresh is due: refresh is on and `now` is at least tREFI after the last REF
    /// (or after reset). Stays true until a REF issues. The channel never issues commands itself.
    pub fn refresh_due(&self, now: u64) -> bool {
        self.refresh_due_at().is_some_and(|due| now >= due)
    }

    /// The refreshes an idle channel issues before `until`, issued at once: with every bank
    /// closed and the next refresh able to issue the cycle it falls due, the refreshes fall at
    /// that cycle and every tREFI after it (tREFI > tRFC is validated), and nothing else
    /// happens. The registers end as the last of them leaves them (earlier raises are below
    /// it). Returns how many were issued (0 when the channel is not in that state). For
    /// skipping idle time without stepping it; a caller recording commands steps instead.
    pub fn idle_refreshes(&mut self, until: u64) -> u64 {
        let Some(due) = self.refresh_due_at() else {
            return 0;
        };
        if self.open_mask != 0 || due >= until || !self.can_issue(&Command::refresh(), due) {
            return 0;
        }
        let refi = u64::from(self.t.t_refi);
        let k = (until - 1 - due) / refi + 1;
        let last = due + (k - 1) * refi;
        self.apply(&Command::refresh(), last);
        self.stats.commands[CmdKind::Ref.index()] += k - 1;
        k
    }

    /// The cycle the next refresh becomes due (`None` with refresh off).
    pub fn refresh_due_at(&self) -> Option<u64> {
        self.t
            .refresh
            .then(|| self.last_ref.unwrap_or(0) + u64::from(self.t.t_refi))
    }

    /// For a scheduler's readiness and wake-up: the earliest cycles of the command bank `b`'s
    /// requests need first, `[CAS to its open row (WR if `write`, else RD), PRE]` with a row
    /// open, `[ACT, u64::MAX]` with the bank closed. The values [`Channel::earliest`] gives
    /// these commands at cycle 0 (a proptest checks it), read from the bound registers directly
    /// without building the commands: [`Channel::bank_local`] raised to
    /// [`Channel::rank_floor`]. `b` must be a bank of the channel.
    #[inline]
    pub fn bank_earliest(&self, b: u32, write: bool) -> [u64; 2] {
        self.with_floor(b, self.bank_local(b, write), self.rank_floor(write))
    }

    /// Bank `b`'s [`Channel::bank_local`] value `local` raised to the rank-wide part `floor`
    /// ([`Channel::rank_floor`]) of its state's commands: [`Channel::bank_earliest`], for a
    /// caller that keeps `local` and reads `floor` once for many banks.
    #[inline]
    pub fn with_floor(&self, b: u32, local: [u64; 2], floor: [u64; 3]) -> [u64; 2] {
        let ([first, pre], [cas, act, any]) = (local, floor);
        if self.open_mask >> b & 1 != 0 {
            [first.max(cas), pre.max(any)]
        } else {
            [first.max(act), u64::MAX]
        }
    }

    /// Bank `b`'s own and its bank group's part of [`Channel::bank_earliest`]: with a row
    /// open, `[the bank's and group's CAS bounds, the bank's PRE bound]`; closed, `[the bank's
    /// and group's ACT bounds, u64::MAX]`. Schedulers keep these per bank and combine them
    /// with the rank-wide part, which every command moves, so that a command makes only the
    /// banks of [`Channel::stale_local`] recompute theirs.
    #[inline]
    pub fn bank_local(&self, b: u32, write: bool) -> [u64; 2] {
        let bank = &self.banks[b as usize];
        let group = &self.groups[bank.group as usize];
        if bank.open_row.is_some() {
            let cas = if write {
                bank.wr.at.max(group.wr.at)
            } else {
                bank.rd.at.max(group.rd.at)
            };
            [cas, bank.pre.at]
        } else {
            [bank.act.at.max(group.act.at), u64::MAX]
        }
    }

    /// The rank-wide part of [`Channel::bank_earliest`], the same for every bank:
    /// `[CAS to an open bank (WR if `write`, else RD; rank bounds, data bus, one command per
    /// cycle on its bus), ACT to a closed bank (rank bounds, tFAW), PRE (one command per cycle
    /// on its bus)]`.
    #[inline]
    pub fn rank_floor(&self, write: bool) -> [u64; 3] {
        let any = self.rank_any.at;
        let col_any = self.col_any.at;
        let (lat, cas) = if write {
            (self.t.t_cwl, self.rank_wr.at)
        } else {
            (self.t.t_cl, self.rank_rd.at)
        };
        let bus = self.bus_free.saturating_sub(u64::from(lat));
        let mut act = self.rank_act.at.max(any);
        if self.faw_len == 4 {
            act = act.max(self.faw[self.faw_head] + u64::from(self.t.t_faw));
        }
        [cas.max(col_any).max(bus), act, any]
    }

    /// The banks whose [`Channel::bank_local`] may have changed when a `kind` command to
    /// `bank` was issued (a proptest checks the others keep theirs): a column command moves
    /// its bank's PRE bound and its bank group's CAS bounds (and closes its bank with auto-
    /// precharge); an ACT opens its bank and moves its group's ACT bound; a PRE closes its
    /// bank; PREA closes every bank; REF moves rank-wide bounds only.
    pub fn stale_local(&self, kind: CmdKind, bank: u32) -> u64 {
        let group = self.group_banks[self.banks[bank as usize].group as usize];
        match kind {
            CmdKind::Pre => 1u64 << bank,
            CmdKind::Rd | CmdKind::Wr | CmdKind::Rda | CmdKind::Wra | CmdKind::Act => group,
            CmdKind::PreA => crate::block::mask(self.t.banks),
            CmdKind::Ref => 0,
        }
    }

    /// The binding bound of `cmd` (not clamped to any `now`), or the state rule forbidding it.
    #[inline]
    fn bound(&self, cmd: &Command) -> Result<Bound, &'static str> {
        let mut b = if cmd.kind.is_column() {
            self.col_any
        } else {
            self.rank_any
        };
        match cmd.kind {
            CmdKind::PreA => return Ok(self.rank_prea.max(b)),
            CmdKind::Ref => {
                if self.open_mask != 0 {
                    return Err(B3_REF);
                }
                return Ok(self.rank_ref.max(b));
            }
            _ => {}
        }
        let bank = self.banks.get(cmd.bank as usize).ok_or(B3_BANK)?;
        let group = &self.groups[bank.group as usize];
        match cmd.kind {
            CmdKind::Act => {
                if bank.open_row.is_some() {
                    return Err(B3_ACT);
                }
                b = bank.act.max(group.act).max(self.rank_act).max(b);
                if self.faw_len == 4 {
                    b = b.max(Bound {
                        at: self.faw[self.faw_head] + u64::from(self.t.t_faw),
                        rule: R7,
                    });
                }
            }
            CmdKind::Pre => {
                if bank.open_row.is_none() {
                    return Err(B3_PRE);
                }
                b = bank.pre.max(b);
            }
            CmdKind::Rd | CmdKind::Rda | CmdKind::Wr | CmdKind::Wra => {
                if bank.open_row != Some(cmd.row) {
                    return Err(B3_ROW);
                }
                let (lat, reg) = if cmd.kind.is_read() {
                    (self.t.t_cl, bank.rd.max(group.rd).max(self.rank_rd))
                } else {
                    (self.t.t_cwl, bank.wr.max(group.wr).max(self.rank_wr))
                };
                b = reg.max(b).max(Bound {
                    at: self.bus_free.saturating_sub(u64::from(lat)),
                    rule: B2,
                });
            }
            CmdKind::PreA | CmdKind::Ref => unreachable!("handled above"),
        }
        Ok(b)
    }

    /// Update every register for `cmd` issued at `now` (already checked legal).
    fn apply(&mut self, cmd: &Command, now: u64) -> Option<u64> {
        // (The timing is read in place, not copied.)
        let u = u64::from;
        self.stats.commands[cmd.kind.index()] += 1;
        if let Some(bank) = self.bank_stats.get_mut(cmd.bank as usize) {
            match cmd.kind {
                CmdKind::Act => bank.activations += 1,
                CmdKind::Rd | CmdKind::Rda => bank.reads += 1,
                CmdKind::Wr | CmdKind::Wra => bank.writes += 1,
                _ => {}
            }
        }
        let next = Bound {
            at: now + 1,
            rule: B1,
        };
        // B1: the command's bus (both, with one bus) is taken for this cycle.
        if !self.t.dual_bus || !cmd.kind.is_column() {
            self.rank_any = next;
        }
        if !self.t.dual_bus || cmd.kind.is_column() {
            self.col_any = next;
        }
        match cmd.kind {
            CmdKind::PreA => {
                self.precharged(u64::from(self.open_mask.count_ones()), now);
                for bank in &mut self.banks {
                    bank.open_row = None;
                    bank.act.raise(now + u(self.t.t_rp), R5);
                }
                self.open_mask = 0;
                self.rank_ref.raise(now + u(self.t.t_rp), F1_PRE);
                return None;
            }
            CmdKind::Ref => {
                self.rank_act.raise(now + u(self.t.t_rfc), F2);
                self.rank_ref.raise(now + u(self.t.t_rfc), F2);
                self.last_ref = Some(now);
                return None;
            }
            _ => {}
        }
        let b = cmd.bank as usize;
        let g = self.banks[b].group as usize;
        match cmd.kind {
            CmdKind::Act => {
                self.opened(now);
                let bank = &mut self.banks[b];
                bank.open_row = Some(cmd.row);
                bank.act_at = now;
                bank.used = false;
                bank.rd.raise(now + u(self.t.t_rcd), R1);
                bank.wr.raise(now + u(self.t.t_rcdwr), R2);
                bank.pre.raise(now + u(self.t.t_ras), R3);
                bank.act.raise(now + u(self.t.t_rc), R4);
                self.open_mask |= 1 << b;
                self.groups[g].act.raise(now + self.d.rrd_l, R6L);
                self.rank_act.raise(now + self.d.rrd_s, R6S);
                self.rank_prea.raise(now + u(self.t.t_ras), R3);
                self.rank_ref.raise(now + u(self.t.t_rc), F1_ACT);
                if self.faw_len < 4 {
                    self.faw[(self.faw_head + self.faw_len) % 4] = now;
                    self.faw_len += 1;
                } else {
                    self.faw[self.faw_head] = now;
                    self.faw_head = (self.faw_head + 1) % 4;
                }
                None
            }
            CmdKind::Pre => {
                self.precharged(1, now);
                let bank = &mut self.banks[b];
                bank.open_row = None;
                bank.act.raise(now + u(self.t.t_rp), R5);
                self.open_mask &= !(1 << b);
                self.rank_ref.raise(now + u(self.t.t_rp), F1_PRE);
                None
            }
            CmdKind::Rd | CmdKind::Rda => {
                let group = &mut self.groups[g];
                group.rd.raise(now + self.d.rd_rd_l, C1L);
                self.rank_rd.raise(now + self.d.rd_rd_s, C1S);
                self.rank_wr.raise(now + self.d.rd_wr, C4);
                self.rank_prea.raise(now + u(self.t.t_rtp), C5);
                let bank = &mut self.banks[b];
                bank.pre.raise(now + u(self.t.t_rtp), C5);
                if cmd.kind == CmdKind::Rda {
                    // Internal precharge, held back until tRAS after the ACT (lockout).
                    let pre_at = (now + u(self.t.t_rtp)).max(bank.act_at + u(self.t.t_ras));
                    // When the lockout binds, pre_at + tRP <= t_ACT + tRC (validated), so R4
                    // keeps its label on a tie.
                    bank.act.raise(pre_at + u(self.t.t_rp), C7);
                    self.rank_ref.raise(pre_at + u(self.t.t_rp), F1_RDA);
                    self.precharged(1, pre_at);
                }
                Some(self.column_done(cmd, now, self.t.t_cl))
            }
            CmdKind::Wr | CmdKind::Wra => {
                let group = &mut self.groups[g];
                group.wr.raise(now + self.d.rd_rd_l, C2L);
                group.rd.raise(now + self.d.wr_rd_l, C3L);
                self.rank_wr.raise(now + self.d.rd_rd_s, C2S);
                self.rank_rd.raise(now + self.d.wr_rd_s, C3S);
                self.rank_prea.raise(now + self.d.wr_pre, C6);
                let bank = &mut self.banks[b];
                bank.pre.raise(now + self.d.wr_pre, C6);
                if cmd.kind == CmdKind::Wra {
                    let pre_at = (now + self.d.wr_pre).max(bank.act_at + u(self.t.t_ras));
                    bank.act.raise(pre_at + u(self.t.t_rp), C8);
                    self.rank_ref.raise(pre_at + u(self.t.t_rp), F1_WRA);
                    self.precharged(1, pre_at);
                }
                Some(self.column_done(cmd, now, self.t.t_cwl))
            }
            CmdKind::PreA | CmdKind::Ref => unreachable!("handled above"),
        }
    }

    /// Common part of a column command: data bus, row-hit statistics, auto-precharge state.
    fn column_done(&mut self, cmd: &Command, now: u64, latency: u32) -> u64 {
        let b = cmd.bank as usize;
        let bl = u64::from(self.t.t_bl);
        let done = now + u64::from(latency) + bl;
        self.bus_free = self.bus_free.max(done);
        self.stats.data_bus_busy += bl;
        let bank = &mut self.banks[b];
        if bank.used {
            self.stats.row_hits += 1;
            self.bank_stats[b].row_hits += 1;
        } else {
            self.stats.row_misses += 1;
        }
        bank.used = true;
        if cmd.kind.is_auto_precharge() {
            bank.open_row = None;
            self.open_mask &= !(1 << b);
        }
        done
    }
}

#[cfg(test)]
#[path = "dram_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "dram_state_tests.rs"]
mod state_tests;
