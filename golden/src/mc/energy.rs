//! DRAM energy by DRAMPower's method (Chandrasekar et al., "Improved Power Modeling of DDR
//! SDRAMs", DSD 2011; the DRAMPower tool's command energies): each command costs the current it
//! draws above the standby current it rises from, over the cycles it lasts; the rest of the time
//! the devices draw active standby current (IDD3N) while a bank is open and precharge standby
//! current (IDD2N) while none is. Per channel, with `V` = VDD, `d` = devices and `tCK` the
//! command clock's period:
//!
//! | part | energy |
//! |---|---|
//! | activate, per ACT | (IDD0 − IDD3N) · tRAS · V · d · tCK |
//! | precharge, per bank closed | (IDD0 − IDD2N) · tRP · V · d · tCK |
//! | read, per RD or RDA | (IDD4R − IDD3N) · tBL · V · d · tCK |
//! | write, per WR or WRA | (IDD4W − IDD3N) · tBL · V · d · tCK |
//! | refresh, per REF | (IDD5 − IDD3N) · tRFC · V · d · tCK |
//! | active standby | IDD3N · V · d · tCK per cycle with a bank open or a refresh running |
//! | precharge standby | IDD2N · V · d · tCK per other cycle |
//!
//! So a row hit costs one read or write, and a row miss adds an activate and a precharge: the
//! ratio DRAMPower's model gives. What it leaves out (decision MEM-28): I/O and termination
//! energy, power-down and self-refresh (the controllers never power down), and a command's
//! dependence on data. The model owns no state: it prices a channel's counters
//! ([`super::dram::ChannelStats`]) and its active cycles.

use serde::Serialize;
use spec::DramSpec;

use super::dram::{ChannelStats, CmdKind};

/// A channel's energy by part, in picojoules.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Energy {
    pub activate_pj: f64,
    pub precharge_pj: f64,
    pub read_pj: f64,
    pub write_pj: f64,
    pub refresh_pj: f64,
    /// Background while a bank is open or a refresh runs (IDD3N).
    pub active_standby_pj: f64,
    /// Background while every bank is closed (IDD2N).
    pub precharge_standby_pj: f64,
}

impl Energy {
    /// The sum of the parts, in picojoules.
    pub fn total_pj(&self) -> f64 {
        self.activate_pj
            + self.precharge_pj
            + self.read_pj
            + self.write_pj
            + self.refresh_pj
            + self.active_standby_pj
            + self.precharge_standby_pj
    }

    /// Part by part sum of two channels' energies.
    pub fn plus(&self, o: &Energy) -> Energy {
        Energy {
            activate_pj: self.activate_pj + o.activate_pj,
            precharge_pj: self.precharge_pj + o.precharge_pj,
            read_pj: self.read_pj + o.read_pj,
            write_pj: self.write_pj + o.write_pj,
            refresh_pj: self.refresh_pj + o.refresh_pj,
            active_standby_pj: self.active_standby_pj + o.active_standby_pj,
            precharge_standby_pj: self.precharge_standby_pj + o.precharge_standby_pj,
        }
    }
}

/// The energy of each command and of a cycle of each standby state, for one channel of a
/// DRAM spec.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EnergyModel {
    act_pj: f64,
    pre_pj: f64,
    rd_pj: f64,
    wr_pj: f64,
    ref_pj: f64,
    /// Per cycle.
    active_standby_pj: f64,
    precharge_standby_pj: f64,
    /// tRFC in cycles: a refresh's background is active standby.
    t_rfc: u64,
}

impl EnergyModel {
    /// The model of one channel of `d`. Its rules keep every current above the standby current
    /// it is taken from, so no energy is negative.
    pub fn of(d: &DramSpec) -> EnergyModel {
        let p = &d.power;
        let t = &d.timing;
        // mV · mA = µW, and a cycle lasts 1000 / clock_mhz ns: µW · ns / 1000 = pJ, so one
        // cycle at a current costs vdd_mv · ma · devices / clock_mhz picojoules.
        let per_cycle = f64::from(p.vdd_mv) * f64::from(p.devices) / f64::from(d.clock_mhz);
        let above = |hi: u32, lo: u32| f64::from(hi.saturating_sub(lo)) * per_cycle;
        EnergyModel {
            act_pj: above(p.idd0_ma, p.idd3n_ma) * f64::from(t.t_ras),
            pre_pj: above(p.idd0_ma, p.idd2n_ma) * f64::from(t.t_rp),
            rd_pj: above(p.idd4r_ma, p.idd3n_ma) * f64::from(t.t_bl),
            wr_pj: above(p.idd4w_ma, p.idd3n_ma) * f64::from(t.t_bl),
            ref_pj: above(p.idd5_ma, p.idd3n_ma) * f64::from(t.t_rfc),
            active_standby_pj: f64::from(p.idd3n_ma) * per_cycle,
            precharge_standby_pj: f64::from(p.idd2n_ma) * per_cycle,
            t_rfc: u64::from(t.t_rfc),
        }
    }

    /// The energy of a channel whose counters are `s`, `active` of whose first `cycles` cycles
    /// had a bank open ([`super::dram::Channel::active_cycles`]).
    pub fn energy(&self, s: &ChannelStats, active: u64, cycles: u64) -> Energy {
        let n = |kinds: &[CmdKind]| kinds.iter().map(|k| s.count(*k)).sum::<u64>() as f64;
        let refreshes = s.count(CmdKind::Ref);
        // A refresh needs every bank closed and holds off every ACT for tRFC, so its cycles
        // never overlap the open ones; the last may run past `cycles`.
        let busy = active
            .saturating_add(refreshes.saturating_mul(self.t_rfc))
            .min(cycles);
        Energy {
            activate_pj: n(&[CmdKind::Act]) * self.act_pj,
            precharge_pj: s.bank_precharges as f64 * self.pre_pj,
            read_pj: n(&[CmdKind::Rd, CmdKind::Rda]) * self.rd_pj,
            write_pj: n(&[CmdKind::Wr, CmdKind::Wra]) * self.wr_pj,
            refresh_pj: refreshes as f64 * self.ref_pj,
            active_standby_pj: busy as f64 * self.active_standby_pj,
            precharge_standby_pj: (cycles - busy) as f64 * self.precharge_standby_pj,
        }
    }
}

#[cfg(test)]
#[path = "energy_tests.rs"]
mod tests;
