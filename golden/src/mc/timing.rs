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
//!
//! Command buses: one for GDDR5, GDDR5X and GDDR6 (one command per cycle); HBM2 has a row and a
//! column command bus (`dual_bus`), so B1 holds per bus (decision MEM-25).

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
    /// Separate row and column command buses (HBM2): a row command (ACT, PRE, PREA, REF) and a
    /// column command (RD, WR, RDA, WRA) may issue in the same cycle; B1 holds per bus.
    pub dual_bus: bool,
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
            dual_bus: d.standard.dual_command_bus(),
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

    /// The HBM2 of the V100 (docs/dram-timing.md): [`hbm2_v100_spec`]'s channel.
    pub fn hbm2_v100() -> ChannelTiming {
        ChannelTiming::of(&hbm2_v100_spec().dram)
    }

    /// The GDDR5X of the TITAN X Pascal (docs/dram-timing.md): [`gddr5x_titanx_spec`]'s
    /// channel.
    pub fn gddr5x_titanx() -> ChannelTiming {
        ChannelTiming::of(&gddr5x_titanx_spec().dram)
    }

    /// This timing with some parameters changed.
    pub fn with(mut self, f: impl FnOnce(&mut Timing)) -> ChannelTiming {
        f(&mut self.t);
        self
    }
}

/// The V100's HBM2 as `docs/dram-timing.md` lists it, until a Volta preset holds it: the
/// turing-rtx2060s preset with GPGPU-Sim's QV100 files imported (`dram.standard = hbm2` from
/// `-dram_dual_bus_interface 1`; 32 channels of 16 B at 850 MHz, the timing of
/// `-gpgpu_dram_timing_opt`) and the values GPGPU-Sim does not have (tFAW, refresh).
#[cfg(test)]
pub fn hbm2_v100_spec() -> spec::Spec {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../spec/tests-data/gpgpusim-configs/QV100");
    spec::ConfigRequest {
        preset: Some("turing-rtx2060s".into()),
        gpgpusim: vec![dir.join("gpgpusim.config"), dir.join("trace.config")],
        file: None,
        overrides: HBM2_V100_SETS.iter().map(|s| s.to_string()).collect(),
    }
    .resolve()
    .expect("turing-rtx2060s with the QV100 import")
}

/// The keys `docs/dram-timing.md` gives the V100's HBM2 beyond GPGPU-Sim's QV100 files (its
/// refresh, tFAW and DRAMsim3's HBM2 currents).
#[cfg(test)]
pub const HBM2_V100_SETS: &[&str] = &[
    "dram.refresh=true",
    "dram.t_faw=26",
    "dram.t_refi=3315",
    "dram.t_rfc=221",
    "dram.vdd_mv=1200",
    "dram.devices=1",
    "dram.idd0_ma=65",
    "dram.idd2n_ma=40",
    "dram.idd3n_ma=55",
    "dram.idd4r_ma=390",
    "dram.idd4w_ma=500",
    "dram.idd5_ma=250",
];

/// The TITAN X Pascal's GDDR5X as `docs/dram-timing.md` lists it, until a Pascal preset holds
/// it: the turing-rtx2060s preset with these DRAM keys.
#[cfg(test)]
pub fn gddr5x_titanx_spec() -> spec::Spec {
    let mut req = spec::ConfigRequest::preset("turing-rtx2060s");
    for kv in GDDR5X_TITANX_SETS {
        req = req.with(kv);
    }
    req.resolve()
        .expect("turing-rtx2060s with the TITAN X Pascal's GDDR5X")
}

/// The DRAM keys of the TITAN X Pascal's GDDR5X (docs/dram-timing.md): 12 channels of 32 bits,
/// BL16 in QDR mode (64 B per column command, 4 cycles of the 2500 MHz command clock), and
/// DRAMsim3's GDDR5X currents (one x32 device a channel).
#[cfg(test)]
pub const GDDR5X_TITANX_SETS: &[&str] = &[
    "dram.standard=gddr5x",
    "dram.channels=12",
    "dram.atom_bytes=64",
    "dram.clock_mhz=2500",
    "dram.address_map=dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.\
        RBBBCCCC.BCCSSSSS",
    "dram.partition_indexing=linear",
    "dram.banks=16",
    "dram.bank_groups=4",
    "dram.refresh=true",
    "dram.t_bl=4",
    "dram.t_rcd=40",
    "dram.t_rcdwr=34",
    "dram.t_rp=40",
    "dram.t_ras=94",
    "dram.t_rc=134",
    "dram.t_cl=40",
    "dram.t_cwl=12",
    "dram.t_ccds=4",
    "dram.t_ccdl=6",
    "dram.t_rrds=17",
    "dram.t_rrdl=17",
    "dram.t_faw=67",
    "dram.t_wtrs=17",
    "dram.t_wtrl=17",
    "dram.t_rtp=4",
    "dram.t_wr=40",
    "dram.t_rtw=2",
    "dram.t_refi=4750",
    "dram.t_rfc=300",
    "dram.vdd_mv=1350",
    "dram.devices=1",
    "dram.idd0_ma=500",
    "dram.idd2n_ma=260",
    "dram.idd3n_ma=480",
    "dram.idd4r_ma=2160",
    "dram.idd4w_ma=2320",
    "dram.idd5_ma=600",
];
