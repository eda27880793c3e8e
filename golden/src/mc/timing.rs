//! A channel's timing as the model uses it: the spec's [`Timing`] (the one list of timing
//! parameters, validated by the spec against exactly what the model needs) with the channel's
//! geometry and refresh switch, and the bandwidth figures derived from them.
//!
//! Rule names (R1-R8, C1-C9, B1-B3, F1-F6) are those of the notes' tables
//! (`dram-timing-and-frfcfs.md` §4). Every preset value, its source and every value that had to be
//! chosen is listed in `docs/dram-timing.md`.
//!
//! Bank groups: bank `b` is in group `b % bank_groups` (GPGPU-Sim 4.x
//! `-dram_bnkgrp_indexing_policy 1`, the lower bank bits). With `bank_groups == 1` groups are
//! disabled and the `_S` values apply to every pair of banks (DRAMsim3's `bankgroup_enable=false`).

use spec::DramSpec;
pub use spec::Timing;

/// One channel's timing (every value in command-clock cycles) and geometry. It reads as its
/// [`Timing`] (`t.t_rcd`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChannelTiming {
    /// Banks per channel.
    pub banks: u32,
    /// Bank groups per channel; 1 disables groups.
    pub bank_groups: u32,
    /// Whether refresh is modelled.
    pub refresh: bool,
    /// The timing, with tRC in effect ([`Timing::t_rc_effective`]).
    pub t: Timing,
}

impl std::ops::Deref for ChannelTiming {
    type Target = Timing;
    fn deref(&self) -> &Timing {
        &self.t
    }
}

impl ChannelTiming {
    /// The timing of a validated spec's DRAM. A tRC below tRAS + tRP (seed 004 Table 2: 62 <
    /// 50 + 20) never binds, because a precharge waits tRAS after the activate and the next
    /// activate tRP after the precharge; the model uses the effective max(tRC, tRAS + tRP).
    pub fn of(d: &DramSpec) -> ChannelTiming {
        ChannelTiming {
            banks: d.banks,
            bank_groups: d.bank_groups,
            refresh: d.refresh,
            t: Timing {
                t_rc: d.timing.t_rc_effective(),
                ..d.timing
            },
        }
    }

    /// The same timing with refresh switched on or off.
    pub fn with_refresh(mut self, refresh: bool) -> ChannelTiming {
        self.refresh = refresh;
        self
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
pub fn peak_bandwidth_gbs(
    t: &ChannelTiming,
    atom_bytes: u32,
    clock_mhz: f64,
    channels: u32,
) -> f64 {
    let cycles_per_burst = f64::from(t.t_bl.max(t.t_ccds).max(1));
    f64::from(atom_bytes) / cycles_per_burst * clock_mhz * 1e6 * f64::from(channels) / 1e9
}

/// Fraction of the peak data bandwidth left when refresh is on, for a stream that stops
/// at the moment a refresh is due: per refresh the bus idles for the last read's tRTP, the PREA's
/// tRP, tRFC and the first read's tRCD, and the period is tREFI plus the tRTP + tRP it takes to
/// reach the REF. 1.0 when refresh is off.
pub fn refresh_efficiency(t: &ChannelTiming) -> f64 {
    if !t.refresh {
        return 1.0;
    }
    let lost = f64::from(t.t_rtp + t.t_rp + t.t_rfc + t.t_rcd);
    let period = f64::from(t.t_refi + t.t_rtp + t.t_rp);
    1.0 - lost / period
}

#[cfg(test)]
impl ChannelTiming {
    fn preset(name: &str) -> ChannelTiming {
        let spec = spec::ConfigRequest::preset(name)
            .resolve()
            .expect("built-in preset");
        ChannelTiming::of(&spec.dram)
    }

    /// The GDDR5 of the fermi-gtx480 preset (GTX480; docs/dram-timing.md).
    pub fn gddr5_gtx480() -> ChannelTiming {
        ChannelTiming::preset("fermi-gtx480")
    }

    /// The GDDR6 of the turing-rtx2060s preset (RTX 2060 Super; docs/dram-timing.md).
    pub fn gddr6_rtx2060s() -> ChannelTiming {
        ChannelTiming::preset("turing-rtx2060s")
    }

    /// This timing with some parameters changed.
    pub fn with(mut self, f: impl FnOnce(&mut Timing)) -> ChannelTiming {
        f(&mut self.t);
        self
    }
}
