//! Channel tests beyond the timing rules' tightness: one command per cycle, data completion and
//! bus occupancy, the bank-state rules, bank groups, the closed forms of derived timings, the
//! statistics and the peak streaming bandwidth.

use super::tests::{assert_tight, assert_tight_or_b1, ccd_s, presets, two_open, u, ROW};
use super::*;
use crate::mc::checker::rule_family;
use crate::mc::timing::{peak_bandwidth_gbs, refresh_efficiency, ChannelTiming};

// ---------------------------------------------------------------------------------------------
// Structural and state rules

#[test]
fn b1_one_command_per_cycle() {
    for (name, t) in presets() {
        let mut ch = Channel::new(t);
        ch.issue(&Command::act(0, ROW), 10).unwrap();
        // A bank with nothing pending is still refused in the same cycle, and before it.
        for c in [10, 9, 0] {
            let e = ch.issue(&Command::refresh(), c);
            assert!(e.is_err(), "{name}");
        }
        let e = ch.check_issue(&Command::prea(), 10).unwrap_err();
        // PREA waits for tRAS; the later bound wins.
        assert_eq!(rule_family(e.rule), "R3", "{name}");
        let mut ch = Channel::new(t);
        ch.issue(&Command::refresh(), 10).unwrap();
        let e = ch.issue(&Command::prea(), 10).unwrap_err();
        assert_eq!(rule_family(e.rule), "B1", "{name}");
        assert!(ch.can_issue(&Command::prea(), 11), "{name}");
    }
}

#[test]
fn b2_data_completion_and_bus_occupancy() {
    for (name, t) in presets() {
        let mut ch = Channel::new(t);
        ch.issue(&Command::act(0, ROW), 0).unwrap();
        let rd_at = u(t.t_rcd);
        let done = ch.issue(&Command::rd(0, ROW, 0), rd_at).unwrap();
        assert_eq!(done, Some(rd_at + u(t.t_cl + t.t_bl)), "{name}");
        let wr_at = ch.earliest(&Command::wr(0, ROW, 0), rd_at).unwrap();
        let done = ch.issue(&Command::wr(0, ROW, 0), wr_at).unwrap();
        assert_eq!(done, Some(wr_at + u(t.t_cwl + t.t_bl)), "{name}");
        // The write burst starts after the read burst ends (B2 follows from C4).
        assert!(wr_at + u(t.t_cwl) >= rd_at + u(t.t_cl + t.t_bl), "{name}");
        assert_eq!(ch.stats().data_bus_busy, 2 * u(t.t_bl), "{name}");
        assert_eq!(ch.issue(&Command::act(1, ROW), wr_at + 1000).unwrap(), None);
    }
}

#[test]
fn b3_state_rules() {
    for (name, t) in presets() {
        let mut ch = Channel::new(t);
        let family = |ch: &Channel, cmd: Command, now| {
            let e = ch.check_issue(&cmd, now).unwrap_err();
            assert_eq!(e.earliest, None, "{name}");
            assert_eq!(ch.earliest(&cmd, now), None, "{name}");
            rule_family(e.rule).to_string()
        };
        // Closed bank: no column command, no PRE.
        assert_eq!(family(&ch, Command::rd(0, ROW, 0), 50), "B3");
        assert_eq!(family(&ch, Command::wra(0, ROW, 0), 50), "B3");
        assert_eq!(family(&ch, Command::pre(0), 50), "B3");
        assert_eq!(family(&ch, Command::act(t.banks, ROW), 50), "B3");
        ch.issue(&Command::act(0, ROW), 0).unwrap();
        assert_eq!(ch.open_row(0), Some(ROW));
        // Open bank: no second ACT, no column command to another row, no REF.
        assert_eq!(family(&ch, Command::act(0, ROW + 1), 500), "B3");
        assert_eq!(family(&ch, Command::rd(0, ROW + 1, 0), 500), "B3");
        assert_eq!(family(&ch, Command::refresh(), 500), "B3");
        // PREA is always allowed by state.
        assert!(ch.can_issue(&Command::prea(), 500), "{name}");
        ch.issue(&Command::prea(), 500).unwrap();
        assert!(!ch.any_open());
        assert!(ch.can_issue(&Command::prea(), 501), "{name}");
        assert!(ch.can_issue(&Command::refresh(), 600), "{name}");
    }
}

#[test]
fn bank_groups_disabled_use_short_values() {
    for (name, t) in presets() {
        let t = ChannelTiming {
            bank_groups: 1,
            ..t.with(|t| {
                t.t_rrdl = t.t_rrds + 3;
                t.t_wtrl = t.t_wtrs + 3;
            })
        };
        let setup = [(0, Command::act(0, ROW))];
        assert_tight(name, &t, &setup, Command::act(4, ROW), u(t.t_rrds), "R6");
        let (mut setup, t0) = two_open(&t, 0, 4);
        setup.push((t0, Command::rd(0, ROW, 0)));
        assert_tight_or_b1(
            name,
            &t,
            &setup,
            Command::rd(4, ROW, 0),
            t0 + ccd_s(&t),
            "C1",
        );
    }
}

#[test]
fn closed_forms_match_gpgpusim_derived_values() {
    // Notes §1.5 derived table, GTX480: tRCDWR 7, tRTW 12, tWTR 11, tWTP 18 (from the command).
    let t = ChannelTiming::gddr5_gtx480();
    let mut ch = Channel::new(t);
    ch.issue(&Command::act(0, ROW), 0).unwrap();
    assert_eq!(ch.earliest(&Command::wr(0, ROW, 0), 1), Some(7));
    ch.issue(&Command::wr(0, ROW, 0), 100).unwrap();
    assert_eq!(ch.earliest(&Command::rd(0, ROW, 0), 101), Some(111));
    assert_eq!(ch.earliest(&Command::pre(0), 101), Some(118));
    ch.issue(&Command::rd(0, ROW, 0), 111).unwrap();
    assert_eq!(ch.earliest(&Command::wr(0, ROW, 0), 112), Some(123));
    // GDDR6 with Table 2's CL/RCD and the RTX2060 WL/CDLR: tWTR 22, tRTW 18, tWTP 32, tRCDWR 11.
    let t = ChannelTiming::gddr6_rtx2060s();
    let mut ch = Channel::new(t);
    ch.issue(&Command::act(0, ROW), 0).unwrap();
    assert_eq!(ch.earliest(&Command::wr(0, ROW, 0), 1), Some(11));
    ch.issue(&Command::wr(0, ROW, 0), 100).unwrap();
    assert_eq!(ch.earliest(&Command::rd(0, ROW, 0), 101), Some(122));
    assert_eq!(ch.earliest(&Command::pre(0), 101), Some(132));
    ch.issue(&Command::rd(0, ROW, 0), 122).unwrap();
    assert_eq!(ch.earliest(&Command::wr(0, ROW, 0), 123), Some(140));
}

#[test]
fn stats_count_commands_and_row_hits() {
    let t = ChannelTiming::gddr6_rtx2060s();
    let mut ch = Channel::new(t);
    let mut now = 0;
    let mut go = |ch: &mut Channel, cmd: Command| {
        now = ch.earliest(&cmd, now).unwrap();
        ch.issue(&cmd, now).unwrap();
        now += 1;
    };
    go(&mut ch, Command::act(0, 1));
    go(&mut ch, Command::rd(0, 1, 0));
    go(&mut ch, Command::rd(0, 1, 1));
    go(&mut ch, Command::wra(0, 1, 2));
    go(&mut ch, Command::act(0, 2));
    go(&mut ch, Command::wr(0, 2, 0));
    go(&mut ch, Command::prea());
    go(&mut ch, Command::refresh());
    let s = ch.stats();
    assert_eq!(s.count(CmdKind::Act), 2);
    assert_eq!(s.count(CmdKind::Rd), 2);
    assert_eq!(s.count(CmdKind::Wra), 1);
    assert_eq!(s.count(CmdKind::Wr), 1);
    assert_eq!(s.count(CmdKind::PreA), 1);
    assert_eq!(s.count(CmdKind::Ref), 1);
    assert_eq!(s.count(CmdKind::Pre), 0);
    assert_eq!((s.row_misses, s.row_hits), (2, 2));
    assert_eq!(s.data_bus_busy, 4 * u(t.t_bl));
}

// ---------------------------------------------------------------------------------------------
// Peak streaming bandwidth

/// Open-page streaming reads over every bank: one row per bank stays open; reads go round-robin
/// over the banks (consecutive banks are in different groups); ACTs fill free command slots; when
/// a refresh is due, the stream stops, PREA, REF, and the banks are re-opened. With a row and a
/// column command bus (HBM2) an ACT may follow a read in the same cycle.
fn stream_reads(t: ChannelTiming, cycles: u64) -> ChannelStats {
    let mut ch = Channel::new(t);
    let banks = t.banks;
    let (mut next, mut col) = (0u32, 0u32);
    for now in 0..cycles {
        if ch.refresh_due(now) {
            let cmd = if ch.any_open() {
                Command::prea()
            } else {
                Command::refresh()
            };
            if ch.can_issue(&cmd, now) {
                ch.issue(&cmd, now).unwrap();
            }
            continue;
        }
        let read = (0..banks).map(|k| (next + k) % banks).find_map(|b| {
            let cmd = Command::rd(b, ch.open_row(b)?, col);
            ch.can_issue(&cmd, now).then_some(cmd)
        });
        if let Some(cmd) = read {
            ch.issue(&cmd, now).unwrap();
            next = (cmd.bank + 1) % banks;
            col = (col + 1) % 32;
            if !t.dual_bus {
                continue;
            }
        }
        let act = (0..banks)
            .filter(|&b| ch.open_row(b).is_none())
            .map(|b| Command::act(b, 0))
            .find(|cmd| ch.can_issue(cmd, now));
        if let Some(cmd) = act {
            ch.issue(&cmd, now).unwrap();
        }
    }
    ch.stats()
}

const STREAM_CYCLES: u64 = 1_000_000;
/// Allowed distance (absolute utilisation) between the measured stream with refresh and
/// `refresh_efficiency`: the estimate ignores the few cycles of re-opening the banks.
const REFRESH_TOLERANCE: f64 = 0.005;

#[test]
fn peak_streaming_bandwidth() {
    let standards = [
        ("GDDR5 GTX480", ChannelTiming::gddr5_gtx480(), 64, 924.0, 6),
        (
            "GDDR6 RTX2060S",
            ChannelTiming::gddr6_rtx2060s(),
            32,
            3500.0,
            16,
        ),
        ("HBM2 V100", ChannelTiming::hbm2_v100(), 32, 850.0, 32),
        (
            "GDDR5X TITAN X Pascal",
            ChannelTiming::gddr5x_titanx(),
            64,
            2500.0,
            12,
        ),
    ];
    for (name, t, atom, mhz, channels) in standards {
        let peak = peak_bandwidth_gbs(&t, atom, mhz, channels);
        let per_cycle = f64::from(atom) / f64::from(t.t_bl.max(t.t_ccds));
        println!(
            "{name}: theoretical {per_cycle:.2} B/cycle/channel, {peak:.1} GB/s over {channels} \
                channels"
        );
        for refresh in [false, true] {
            let t = t.with_refresh(refresh);
            let s = stream_reads(t, STREAM_CYCLES);
            let util = s.bus_utilization(STREAM_CYCLES);
            let expected = refresh_efficiency(&t);
            println!(
                "{name} refresh {}: utilisation {util:.4} (expected {expected:.4}), \
                 {:.2} B/cycle/channel, {:.1} GB/s; {} REF, {} ACT, {} RD",
                if refresh { "on " } else { "off" },
                util * per_cycle,
                util * peak,
                s.count(CmdKind::Ref),
                s.count(CmdKind::Act),
                s.count(CmdKind::Rd),
            );
            if refresh {
                assert!(s.count(CmdKind::Ref) >= STREAM_CYCLES / u(t.t_refi + t.t_rfc));
                assert!(
                    (util - expected).abs() <= REFRESH_TOLERANCE,
                    "{name}: utilisation {util} vs expected {expected}"
                );
            } else {
                assert!(util >= 0.97, "{name}: utilisation {util}");
            }
        }
    }
    assert!(
        (peak_bandwidth_gbs(&ChannelTiming::gddr5_gtx480(), 64, 924.0, 6) - 177.408).abs() < 1e-9
    );
    assert!(
        (peak_bandwidth_gbs(&ChannelTiming::gddr6_rtx2060s(), 32, 3500.0, 16) - 448.0).abs() < 1e-9
    );
    // docs/dram-timing.md: 32 B a cycle x 850 MHz x 32; 64 B / 4 cycles x 2500 MHz x 12.
    assert!((peak_bandwidth_gbs(&ChannelTiming::hbm2_v100(), 32, 850.0, 32) - 870.4).abs() < 1e-9);
    assert!(
        (peak_bandwidth_gbs(&ChannelTiming::gddr5x_titanx(), 64, 2500.0, 12) - 480.0).abs() < 1e-9
    );
}
