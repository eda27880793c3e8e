//! DRAM energy: a short command trace per standard against energies worked out by hand from the
//! datasheet currents (DRAMsim3's device files) and the timing tables of docs/dram-timing.md;
//! the row-hit to row-miss ratio of DRAMPower's model; the active cycles against a cycle-by-cycle
//! account of the banks, on random command streams.

use proptest::prelude::*;

use super::*;
use crate::mc::dram::{Channel, Command};
use crate::mc::timing::{gddr5x_titanx_spec, hbm2_v100_spec, ChannelTiming};

/// A standard's spec and the values its energy is worked out from by hand: VDD in V, devices,
/// the currents in mA (IDD0, IDD2N, IDD3N, IDD4R, IDD4W, IDD5), the command clock in MHz and
/// tRAS, tRP, tBL, tRFC in cycles.
struct Case {
    name: &'static str,
    spec: spec::Spec,
    vdd: f64,
    devices: f64,
    idd: [f64; 6],
    mhz: f64,
    t_ras: f64,
    t_rp: f64,
    t_bl: f64,
    t_rfc: f64,
}

fn preset(name: &str) -> spec::Spec {
    spec::ConfigRequest::preset(name)
        .resolve()
        .expect("built-in preset")
}

/// The four standards: the fermi-gtx480 (GDDR5) and turing-rtx2060s (GDDR6) presets, the V100's
/// HBM2 and the TITAN X Pascal's GDDR5X. Currents: DRAMsim3's GDDR5_8Gb_x32, GDDR6_8Gb_x16,
/// HBM2_8Gb_x128 and GDDR5X_8Gb_x32.
fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "GDDR5",
            spec: preset("fermi-gtx480"),
            vdd: 1.5,
            devices: 2.0,
            idd: [71.0, 60.0, 61.0, 248.0, 231.0, 286.0],
            mhz: 924.0,
            t_ras: 28.0,
            t_rp: 12.0,
            t_bl: 2.0,
            t_rfc: 102.0,
        },
        Case {
            name: "GDDR6",
            spec: preset("turing-rtx2060s"),
            vdd: 1.35,
            devices: 1.0,
            idd: [71.0, 60.0, 61.0, 248.0, 231.0, 286.0],
            mhz: 3500.0,
            t_ras: 50.0,
            t_rp: 20.0,
            t_bl: 4.0,
            t_rfc: 420.0,
        },
        Case {
            name: "HBM2",
            spec: hbm2_v100_spec(),
            vdd: 1.2,
            devices: 1.0,
            idd: [65.0, 40.0, 55.0, 390.0, 500.0, 250.0],
            mhz: 850.0,
            t_ras: 28.0,
            t_rp: 12.0,
            t_bl: 1.0,
            t_rfc: 221.0,
        },
        Case {
            name: "GDDR5X",
            spec: gddr5x_titanx_spec(),
            vdd: 1.35,
            devices: 1.0,
            idd: [500.0, 260.0, 480.0, 2160.0, 2320.0, 600.0],
            mhz: 2500.0,
            t_ras: 94.0,
            t_rp: 40.0,
            t_bl: 4.0,
            t_rfc: 300.0,
        },
    ]
}

/// Issue `cmd` at the earliest legal cycle from `now`; returns that cycle.
fn issue(ch: &mut Channel, cmd: Command, now: u64) -> u64 {
    let at = ch.earliest(&cmd, now).expect("legal in this state");
    ch.issue(&cmd, at).expect("legal at its earliest cycle");
    at
}

/// ACT, RD, WR and PRE to one bank, then a refresh, each at its earliest cycle; the trace ends
/// 100 cycles after the refresh does. Returns the channel, the PRE's cycle (the bank is open
/// from cycle 0 to it) and the trace's length.
fn short_trace(t: ChannelTiming) -> (Channel, u64, u64) {
    let mut ch = Channel::new(t.with_refresh(false));
    let act = issue(&mut ch, Command::act(0, 5), 0);
    let rd = issue(&mut ch, Command::rd(0, 5, 0), act);
    let wr = issue(&mut ch, Command::wr(0, 5, 1), rd);
    let pre = issue(&mut ch, Command::pre(0), wr);
    let rf = issue(&mut ch, Command::refresh(), pre);
    (ch, pre, rf + u64::from(t.t_rfc) + 100)
}

#[test]
fn a_short_trace_costs_what_the_datasheet_currents_say() {
    for c in cases() {
        let model = EnergyModel::of(&c.spec.dram);
        let (ch, pre, cycles) = short_trace(ChannelTiming::of(&c.spec.dram));
        assert_eq!(ch.active_cycles(cycles), pre, "{}", c.name);
        let e = model.energy(&ch.stats(), ch.active_cycles(cycles), cycles);
        // By hand: V · I[mA] · cycles · d / f[MHz] is in pJ (mW · ns).
        let [idd0, idd2n, idd3n, idd4r, idd4w, idd5] = c.idd;
        let pj = |ma: f64, n: f64| c.vdd * ma * n * c.devices / c.mhz * 1000.0;
        let (pre, cycles) = (pre as f64, cycles as f64);
        let want = Energy {
            activate_pj: pj(idd0 - idd3n, c.t_ras),
            precharge_pj: pj(idd0 - idd2n, c.t_rp),
            read_pj: pj(idd4r - idd3n, c.t_bl),
            write_pj: pj(idd4w - idd3n, c.t_bl),
            refresh_pj: pj(idd5 - idd3n, c.t_rfc),
            active_standby_pj: pj(idd3n, pre + c.t_rfc),
            precharge_standby_pj: pj(idd2n, cycles - pre - c.t_rfc),
        };
        let parts = |e: &Energy| {
            [
                e.activate_pj,
                e.precharge_pj,
                e.read_pj,
                e.write_pj,
                e.refresh_pj,
                e.active_standby_pj,
                e.precharge_standby_pj,
            ]
        };
        for (i, (got, want)) in parts(&e).iter().zip(parts(&want)).enumerate() {
            assert!(
                (got - want).abs() <= 1e-9 * want.abs().max(1.0),
                "{} part {i}: {got} pJ, by hand {want} pJ",
                c.name
            );
        }
        assert!((e.total_pj() - parts(&want).iter().sum::<f64>()).abs() < 1e-6);
    }
}

/// One number worked out on paper, so the formula itself is checked and not only restated:
/// the GTX480's GDDR5 activate is (71 − 61) mA · 28 cycles · 1.5 V · 2 devices at 924 MHz
/// = 840 mA·cycles·V / 0.924 GHz = 909.09 pJ; its 102-cycle refresh (286 − 61) mA · 102 ·
/// 1.5 V · 2 / 0.924 GHz = 74,512.99 pJ.
#[test]
fn the_gddr5_activate_and_refresh_on_paper() {
    let model = EnergyModel::of(&preset("fermi-gtx480").dram);
    let (ch, pre, cycles) = short_trace(ChannelTiming::gddr5_gtx480());
    let e = model.energy(&ch.stats(), ch.active_cycles(cycles), cycles);
    assert!((e.activate_pj - 909.0909).abs() < 1e-3, "{}", e.activate_pj);
    assert!((e.refresh_pj - 74_512.987).abs() < 1e-2, "{}", e.refresh_pj);
    assert!(pre > 0);
}

/// The presets and configuration files carry the currents of DRAMsim3's device file for their
/// standard (the cases above); a file that drifts from them fails here.
#[test]
fn the_files_carry_dramsim3s_currents() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for c in cases() {
        let p = &c.spec.dram.power;
        let got = [
            p.idd0_ma, p.idd2n_ma, p.idd3n_ma, p.idd4r_ma, p.idd4w_ma, p.idd5_ma,
        ]
        .map(f64::from);
        assert_eq!(got, c.idd, "{}", c.name);
        assert_eq!(f64::from(p.vdd_mv) / 1000.0, c.vdd, "{}", c.name);
    }
    let volta = spec::ConfigRequest {
        preset: Some("tiny".into()),
        gpgpusim: vec![],
        file: Some(dir.join("configs/volta-v100.toml")),
        overrides: vec![],
    }
    .resolve()
    .expect("configs/volta-v100.toml");
    assert_eq!(volta.dram.power, hbm2_v100_spec().dram.power);
}

/// The command energy (background left out) of `accesses` reads of one bank, each a row hit
/// (`hits`) or each to a new row (PRE, ACT, RD).
fn command_energy(spec: &spec::Spec, accesses: u32, hits: bool) -> f64 {
    let t = ChannelTiming::of(&spec.dram).with_refresh(false);
    let mut ch = Channel::new(t);
    let mut now = issue(&mut ch, Command::act(0, 0), 0);
    for i in 0..accesses {
        if !hits && i > 0 {
            now = issue(&mut ch, Command::pre(0), now);
            now = issue(&mut ch, Command::act(0, i), now);
        }
        now = issue(&mut ch, Command::rd(0, if hits { 0 } else { i }, 0), now);
    }
    let e = EnergyModel::of(&spec.dram).energy(&ch.stats(), 0, 0);
    e.total_pj()
}

/// DRAMPower's ratio: past the first access, a row hit costs a read and a row miss a
/// precharge, an activate and a read, so per access the hit costs
/// E_RD / (E_PRE + E_ACT + E_RD) of a miss.
#[test]
fn a_row_hit_costs_a_read_and_a_row_miss_adds_an_activate_and_a_precharge() {
    for c in cases() {
        let [idd0, idd2n, idd3n, idd4r, ..] = c.idd;
        let rd = (idd4r - idd3n) * c.t_bl;
        let miss = (idd0 - idd2n) * c.t_rp + (idd0 - idd3n) * c.t_ras + rd;
        let hit = command_energy(&c.spec, 11, true) - command_energy(&c.spec, 1, true);
        let missed = command_energy(&c.spec, 11, false) - command_energy(&c.spec, 1, false);
        let ratio = hit / missed;
        assert!(
            (ratio - rd / miss).abs() < 1e-9,
            "{}: {ratio} against {}",
            c.name,
            rd / miss
        );
        assert!(ratio < 1.0, "{}", c.name);
    }
}

/// Commands of a random stream: (kind 0..4: ACT, RD, RDA, WR, PRE), bank, gap.
fn stream() -> impl Strategy<Value = Vec<(u8, u32, u64)>> {
    prop::collection::vec((0u8..5, 0u32..4, 0u64..40), 1..60)
}

proptest! {
    /// The active cycles equal a cycle-by-cycle account: a bank is open from its ACT to its PRE,
    /// or to the internal precharge of its RDA (the later of tRTP after it and tRAS after the
    /// ACT); a cycle counts when any bank is.
    #[test]
    fn active_cycles_are_the_cycles_a_bank_is_open(cmds in stream(), tail in 0u64..200) {
        let t = ChannelTiming::gddr6_rtx2060s().with_refresh(false);
        let mut ch = Channel::new(t);
        let mut intervals: Vec<(u64, u64)> = Vec::new();
        let mut open: [Option<u64>; 4] = [None; 4];
        let mut now = 0;
        for (kind, bank, gap) in cmds {
            now += gap;
            let cmd = match (kind, open[bank as usize]) {
                (_, None) => Command::act(bank, 3),
                (1, Some(_)) => Command::rd(bank, 3, 0),
                (2, Some(_)) => Command::rda(bank, 3, 0),
                (3, Some(_)) => Command::wr(bank, 3, 0),
                _ => Command::pre(bank),
            };
            now = issue(&mut ch, cmd, now);
            let b = bank as usize;
            match cmd.kind {
                CmdKind::Act => open[b] = Some(now),
                CmdKind::Pre => intervals.push((open[b].take().expect("open"), now)),
                CmdKind::Rda => {
                    let act = open[b].take().expect("open");
                    let close = (now + u64::from(t.t_rtp)).max(act + u64::from(t.t_ras));
                    intervals.push((act, close));
                }
                _ => {}
            }
        }
        let end = now + tail;
        intervals.extend(open.iter().flatten().map(|&a| (a, end)));
        let counted = (0..end)
            .filter(|&c| intervals.iter().any(|&(a, z)| a <= c && c < z))
            .count() as u64;
        prop_assert_eq!(ch.active_cycles(end), counted);
    }
}
