//! DRAM timing parameters of one GDDR channel, in command-clock cycles, with the two presets the
//! project targets and the bandwidth figures derived from them.
//!
//! Rule names (R1-R8, C1-C9, B1-B3, F1-F6) are those of the notes' tables
//! (`dram-timing-and-frfcfs.md` §4). Every preset value, its source and every value that had to be
//! chosen is listed in `docs/dram-timing.md`.
//!
//! Bank groups: bank `b` is in group `b % bank_groups` (GPGPU-Sim 4.x
//! `-dram_bnkgrp_indexing_policy 1`, the lower bank bits). With `bank_groups == 1` groups are
//! disabled and the `_S` values apply to every pair of banks (DRAMsim3's `bankgroup_enable=false`).

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Timing of one channel (GDDR: one rank per channel). Every value counts command-clock cycles
/// (the controller's clock). Validate with [`Timing::validate`] before use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Timing {
    /// Banks per channel.
    pub banks: u32,
    /// Bank groups per channel; 1 disables groups. Must divide `banks`.
    pub bank_groups: u32,
    /// Data-bus occupancy of one burst (GPGPU-Sim `BL / dram_data_command_freq_ratio`).
    pub t_bl: u32,
    /// ACT to RD/RDA, same bank (R1; GDDR tRCDRD).
    pub t_rcd: u32,
    /// ACT to WR/WRA, same bank (R2; GDDR tRCDWR).
    pub t_rcdwr: u32,
    /// PRE/PREA to ACT, same bank (R5).
    pub t_rp: u32,
    /// ACT to PRE, same bank (R3); also delays an auto-precharge (GDDR tRAS lockout).
    pub t_ras: u32,
    /// ACT to ACT, same bank (R4); at least `t_ras + t_rp`.
    pub t_rc: u32,
    /// Read latency: RD to first data beat.
    pub t_cl: u32,
    /// Write latency: WR to first data beat (GPGPU-Sim `WL`).
    pub t_cwl: u32,
    /// Column to column, different bank group (C1/C2 `_S`).
    pub t_ccds: u32,
    /// Column to column, same bank group (C1/C2 `_L`).
    pub t_ccdl: u32,
    /// ACT to ACT, different bank group (R6 `_S`).
    pub t_rrds: u32,
    /// ACT to ACT, different bank of the same group (R6 `_L`).
    pub t_rrdl: u32,
    /// Four-activate window (R7): the fifth ACT waits this long after the first of the last four.
    pub t_faw: u32,
    /// End of write data to RD, different bank group (C3 `_S`).
    pub t_wtrs: u32,
    /// End of write data to RD, same bank group (C3 `_L`; GPGPU-Sim `CDLR`).
    pub t_wtrl: u32,
    /// RD to PRE, same bank (C5).
    pub t_rtp: u32,
    /// Write recovery: end of write data to PRE, same bank (C6).
    pub t_wr: u32,
    /// Extra read-to-write bus turnaround of rule C4: RD to WR is `t_cl + t_bl + t_rtw - t_cwl`
    /// (GPGPU-Sim's form uses 2).
    pub t_rtw: u32,
    /// Average refresh interval (F3): a REF is due `t_refi` after the previous one.
    pub t_refi: u32,
    /// All-bank refresh cycle time (F2): REF to ACT/REF.
    pub t_rfc: u32,
    /// Whether refresh is modelled.
    pub refresh: bool,
}

/// A timing set that breaks a rule of [`Timing::validate`].
#[derive(Debug, Clone, Error, PartialEq, Eq)]
#[error("DRAM timing `{param}` = {value}: {reason}")]
pub struct TimingError {
    /// The offending parameter (field name of [`Timing`]).
    pub param: &'static str,
    /// Its value.
    pub value: u64,
    /// What is required.
    pub reason: String,
}

/// GTX480 GDDR5 (seed 002 Table 4.1; GPGPU-Sim `SM2_GTX480`), 924 MHz command clock.
pub mod gddr5 {
    /// Command clock, MHz (GPGPU-Sim GTX480 `-gpgpu_clock_domains ...:924.0`).
    pub const CLOCK_MHZ: f64 = 924.0;
    /// Channels (seed 002 Table 4.1: 6 MCs; GPGPU-Sim `-gpgpu_n_mem 6`).
    pub const CHANNELS: u32 = 6;
    /// Bytes moved by one column command: buswidth 4 B x 2 chips x BL8 (GPGPU-Sim atom).
    pub const ATOM_BYTES: u32 = 64;
    /// Banks (GPGPU-Sim `nbk=16`).
    pub const BANKS: u32 = 16;
    /// Bank groups (GPGPU-Sim `nbkgrp=4`).
    pub const BANK_GROUPS: u32 = 4;
    /// Burst on the data bus: BL 8 / ratio 4 (GPGPU-Sim).
    pub const T_BL: u32 = 2;
    /// Seed 002 Table 4.1 tRCD = 12 (= GPGPU-Sim `RCD`).
    pub const T_RCD: u32 = 12;
    /// GPGPU-Sim derived tRCDWR = RCD - (WL + 1) = 12 - 5.
    pub const T_RCDWR: u32 = 7;
    /// Seed 002 Table 4.1 tRP = 12.
    pub const T_RP: u32 = 12;
    /// Seed 002 Table 4.1 tRAS = 28.
    pub const T_RAS: u32 = 28;
    /// Seed 002 Table 4.1 tRC = 40 (= tRAS + tRP).
    pub const T_RC: u32 = 40;
    /// Seed 002 Table 4.1 tCL = 12.
    pub const T_CL: u32 = 12;
    /// GPGPU-Sim `WL=4`.
    pub const T_CWL: u32 = 4;
    /// GPGPU-Sim `CCD=2` (global column-to-column).
    pub const T_CCDS: u32 = 2;
    /// GPGPU-Sim `CCDL=3` (same bank group).
    pub const T_CCDL: u32 = 3;
    /// Seed 002 Table 4.1 tRRD = 6 (GPGPU-Sim `RRD`, one value for every bank pair).
    pub const T_RRDS: u32 = 6;
    /// GPGPU-Sim and Ramulator 1 GDDR5 have one tRRD: same as [`T_RRDS`].
    pub const T_RRDL: u32 = 6;
    /// 23 ns (Ramulator 1 `GDDR5_4000`: nFAW 23 at tCK 1 ns, the speed bin whose cycle counts equal
    /// GTX480's) at 924 MHz = 21.3 -> 22 cycles. Never binds: 4 x tRRD = 24 > 22.
    pub const T_FAW: u32 = 22;
    /// GPGPU-Sim and Ramulator 1 GDDR5 have one tWTR: same as [`T_WTRL`].
    pub const T_WTRS: u32 = 5;
    /// GPGPU-Sim `CDLR=5` (its tWTR = WL + BL/ratio + CDLR = 11 counts from the WR command).
    pub const T_WTRL: u32 = 5;
    /// GPGPU-Sim: per-bank RTP = BL/ratio = 2 and `RTPL=2`.
    pub const T_RTP: u32 = 2;
    /// GPGPU-Sim `WR=12`.
    pub const T_WR: u32 = 12;
    /// GPGPU-Sim tRTW = CL + BL/ratio + 2 - WL: the turnaround term is 2.
    pub const T_RTW: u32 = 2;
    /// 3.9 us (GDDR5 <= 1 Gb; GTX480 has 12 x 1 Gb chips; Ramulator 1 `REFIL`) at 924 MHz =
    /// 3603.6 -> 3603 cycles (rounded down: it is a maximum).
    pub const T_REFI: u32 = 3603;
    /// 110 ns (Ramulator 1 GDDR5 1 Gb, DDR3-borrowed) at 924 MHz = 101.6 -> 102 cycles.
    pub const T_RFC: u32 = 102;
}

/// RTX 2060 Super-like GDDR6 (seed 004 Table 2; GPGPU-Sim `SM75_RTX2060`), 3500 MHz command
/// clock (GPGPU-Sim's DRAM clock; data rate x4).
pub mod gddr6 {
    /// Command clock, MHz (seed 004 Table 2 "@3500"; GPGPU-Sim RTX2060 `3500.5`).
    pub const CLOCK_MHZ: f64 = 3500.0;
    /// Channels (seed 004 Table 2: 16 channels, one controller each).
    pub const CHANNELS: u32 = 16;
    /// Bytes moved by one column command: buswidth 2 B x 1 chip x BL16 (GPGPU-Sim atom).
    pub const ATOM_BYTES: u32 = 32;
    /// Seed 004 Table 2: 16 banks per chip.
    pub const BANKS: u32 = 16;
    /// GPGPU-Sim RTX2060 `nbkgrp=4`.
    pub const BANK_GROUPS: u32 = 4;
    /// BL 16 / ratio 4 (GPGPU-Sim); equals Table 2 tCCD = 4.
    pub const T_BL: u32 = 4;
    /// Seed 004 Table 2 tRCD = 20.
    pub const T_RCD: u32 = 20;
    /// GPGPU-Sim derived tRCDWR = RCD - (WL + 1) = 20 - 9.
    pub const T_RCDWR: u32 = 11;
    /// Seed 004 Table 2 tRP = 20.
    pub const T_RP: u32 = 20;
    /// Seed 004 Table 2 tRAS = 50.
    pub const T_RAS: u32 = 50;
    /// tRAS + tRP = 70. Table 2 gives tRC = 62 < tRAS + tRP: the same-bank ACT-to-ACT distance is
    /// at least tRAS + tRP anyway (R3 + R5), so 62 could never bind; 70 gives identical timing
    /// and keeps the invariant tRC >= tRAS + tRP.
    pub const T_RC: u32 = 70;
    /// Seed 004 Table 2 tCL = 20.
    pub const T_CL: u32 = 20;
    /// GPGPU-Sim RTX2060 `WL=8` (clock ratio 3500 / 3500.5 keeps the cycle count).
    pub const T_CWL: u32 = 8;
    /// Seed 004 Table 2 tCCD = 4 (GPGPU-Sim `CCD`, global).
    pub const T_CCDS: u32 = 4;
    /// GPGPU-Sim RTX2060 `CCDL=6`.
    pub const T_CCDL: u32 = 6;
    /// Seed 004 Table 2 tRRD = 10 (one value for every bank pair, as in GPGPU-Sim).
    pub const T_RRDS: u32 = 10;
    /// Same as [`T_RRDS`] (GPGPU-Sim has one RRD; Ramulator 2.1 GDDR6 has nRRDL = nRRDS).
    pub const T_RRDL: u32 = 10;
    /// 16 ns (Ramulator 2.1 `GDDR6_2000_1350mV`: nFAW 28 at 570 ps) at 3500 MHz = 56 cycles.
    pub const T_FAW: u32 = 56;
    /// GPGPU-Sim has one channel-wide tWTR: same as [`T_WTRL`].
    pub const T_WTRS: u32 = 10;
    /// GPGPU-Sim RTX2060 `CDLR=10`.
    pub const T_WTRL: u32 = 10;
    /// GPGPU-Sim RTX2060: per-bank RTP = BL/ratio = 4 and `RTPL=4`.
    pub const T_RTP: u32 = 4;
    /// Seed 004 Table 2 tWR = 20.
    pub const T_WR: u32 = 20;
    /// GPGPU-Sim tRTW = CL + BL/ratio + 2 - WL: the turnaround term is 2.
    pub const T_RTW: u32 = 2;
    /// 1.9 us (GDDR6: 16k REF per 32 ms) at 3500 MHz = 6650 cycles.
    pub const T_REFI: u32 = 6650;
    /// 120 ns (GDDR6 8 Gb tRFCab; Ramulator 2.1 preset 210 CK at 570 ps) at 3500 MHz = 420 cycles.
    pub const T_RFC: u32 = 420;
}

impl Timing {
    /// GTX480 GDDR5 (seed 002 Table 4.1 and GPGPU-Sim's GTX480 configuration); see [`gddr5`].
    /// Refresh is on.
    pub fn gddr5_gtx480() -> Timing {
        use gddr5::*;
        Timing {
            banks: BANKS,
            bank_groups: BANK_GROUPS,
            t_bl: T_BL,
            t_rcd: T_RCD,
            t_rcdwr: T_RCDWR,
            t_rp: T_RP,
            t_ras: T_RAS,
            t_rc: T_RC,
            t_cl: T_CL,
            t_cwl: T_CWL,
            t_ccds: T_CCDS,
            t_ccdl: T_CCDL,
            t_rrds: T_RRDS,
            t_rrdl: T_RRDL,
            t_faw: T_FAW,
            t_wtrs: T_WTRS,
            t_wtrl: T_WTRL,
            t_rtp: T_RTP,
            t_wr: T_WR,
            t_rtw: T_RTW,
            t_refi: T_REFI,
            t_rfc: T_RFC,
            refresh: true,
        }
    }

    /// RTX 2060 Super-like GDDR6 (seed 004 Table 2, the rest from GPGPU-Sim's RTX2060
    /// configuration); see [`gddr6`]. Refresh is on.
    pub fn gddr6_rtx2060s() -> Timing {
        use gddr6::*;
        Timing {
            banks: BANKS,
            bank_groups: BANK_GROUPS,
            t_bl: T_BL,
            t_rcd: T_RCD,
            t_rcdwr: T_RCDWR,
            t_rp: T_RP,
            t_ras: T_RAS,
            t_rc: T_RC,
            t_cl: T_CL,
            t_cwl: T_CWL,
            t_ccds: T_CCDS,
            t_ccdl: T_CCDL,
            t_rrds: T_RRDS,
            t_rrdl: T_RRDL,
            t_faw: T_FAW,
            t_wtrs: T_WTRS,
            t_wtrl: T_WTRL,
            t_rtp: T_RTP,
            t_wr: T_WR,
            t_rtw: T_RTW,
            t_refi: T_REFI,
            t_rfc: T_RFC,
            refresh: true,
        }
    }

    /// The same timing with refresh switched on or off.
    pub fn with_refresh(mut self, refresh: bool) -> Timing {
        self.refresh = refresh;
        self
    }

    /// Check the parameters. Rules: `banks` in 1..=64 and a multiple of `bank_groups` (>= 1);
    /// every latency that a rule waits for is >= 1 (`t_faw`, `t_wtrs`, `t_wtrl` and `t_rtw` may be
    /// 0); `_L >= _S` for CCD, RRD and WTR; `t_rc >= t_ras + t_rp` (so the auto-precharge lockout
    /// never outlasts R4) and `t_rc >= t_rrdl`; with refresh, `t_refi > t_rfc >= 1`.
    pub fn validate(&self) -> Result<(), TimingError> {
        let err = |param: &'static str, value: u32, reason: String| TimingError {
            param,
            value: u64::from(value),
            reason,
        };
        if !(1..=64).contains(&self.banks) {
            return Err(err("banks", self.banks, "must be 1 to 64".into()));
        }
        if self.bank_groups == 0 || !self.banks.is_multiple_of(self.bank_groups) {
            return Err(err(
                "bank_groups",
                self.bank_groups,
                format!("must be >= 1 and divide banks = {}", self.banks),
            ));
        }
        let positive = [
            ("t_bl", self.t_bl),
            ("t_rcd", self.t_rcd),
            ("t_rcdwr", self.t_rcdwr),
            ("t_rp", self.t_rp),
            ("t_ras", self.t_ras),
            ("t_rc", self.t_rc),
            ("t_cl", self.t_cl),
            ("t_cwl", self.t_cwl),
            ("t_ccds", self.t_ccds),
            ("t_ccdl", self.t_ccdl),
            ("t_rrds", self.t_rrds),
            ("t_rrdl", self.t_rrdl),
            ("t_rtp", self.t_rtp),
            ("t_wr", self.t_wr),
        ];
        for (name, v) in positive {
            if v == 0 {
                return Err(err(name, v, "must be at least 1".into()));
            }
            if v > 1 << 20 {
                return Err(err(name, v, "must be at most 2^20 cycles".into()));
            }
        }
        for (name, v) in [
            ("t_faw", self.t_faw),
            ("t_wtrs", self.t_wtrs),
            ("t_wtrl", self.t_wtrl),
            ("t_rtw", self.t_rtw),
            ("t_refi", self.t_refi),
            ("t_rfc", self.t_rfc),
        ] {
            if v > 1 << 24 {
                return Err(err(name, v, "must be at most 2^24 cycles".into()));
            }
        }
        let at_least = |name: &'static str, v: u32, min: u32, what: &str| {
            if v < min {
                Err(err(name, v, format!("must be >= {what} = {min}")))
            } else {
                Ok(())
            }
        };
        at_least("t_ccdl", self.t_ccdl, self.t_ccds, "t_ccds")?;
        at_least("t_rrdl", self.t_rrdl, self.t_rrds, "t_rrds")?;
        at_least("t_wtrl", self.t_wtrl, self.t_wtrs, "t_wtrs")?;
        at_least("t_rc", self.t_rc, self.t_ras + self.t_rp, "t_ras + t_rp")?;
        at_least("t_rc", self.t_rc, self.t_rrdl, "t_rrdl")?;
        if self.refresh {
            at_least("t_rfc", self.t_rfc, 1, "1")?;
            at_least("t_refi", self.t_refi, self.t_rfc + 1, "t_rfc + 1")?;
        }
        Ok(())
    }

    /// Bank group of `bank` (`bank % bank_groups`).
    pub fn bank_group(&self, bank: u32) -> u32 {
        bank % self.bank_groups.max(1)
    }

    /// Whether groups are enabled (`bank_groups > 1`); when not, `_S` values apply everywhere.
    pub fn groups_enabled(&self) -> bool {
        self.bank_groups > 1
    }
}

/// Theoretical peak data bandwidth in GB/s (10^9 bytes per second) of `channels` channels: one
/// `atom_bytes` burst per `max(t_bl, t_ccds)` command cycles at `clock_mhz`, refresh not counted.
/// GTX480: 64 B / 2 cycles x 924 MHz x 6 = 177.4 GB/s; GDDR6 of seed 004: 32 B / 4 cycles x
/// 3500 MHz x 16 = 448 GB/s.
pub fn peak_bandwidth_gbs(t: &Timing, atom_bytes: u32, clock_mhz: f64, channels: u32) -> f64 {
    let cycles_per_burst = f64::from(t.t_bl.max(t.t_ccds).max(1));
    f64::from(atom_bytes) / cycles_per_burst * clock_mhz * 1e6 * f64::from(channels) / 1e9
}

/// Fraction of the peak data bandwidth left when refresh is on, for a stream that stops
/// at the moment a refresh is due: per refresh the bus idles for the last read's tRTP, the PREA's
/// tRP, tRFC and the first read's tRCD, and the period is tREFI plus the tRTP + tRP it takes to
/// reach the REF. 1.0 when refresh is off.
pub fn refresh_efficiency(t: &Timing) -> f64 {
    if !t.refresh {
        return 1.0;
    }
    let lost = f64::from(t.t_rtp + t.t_rp + t.t_rfc + t.t_rcd);
    let period = f64::from(t.t_refi + t.t_rtp + t.t_rp);
    1.0 - lost / period
}
