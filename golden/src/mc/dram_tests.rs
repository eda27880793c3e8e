//! Channel tests: one tightness test per timing rule (illegal at t-1, legal at t, in the model
//! and in the independent checker), refresh bookkeeping included; the helpers the other channel
//! tests (`dram_state_tests.rs`) share.

use super::*;
use crate::mc::checker::{self, rule_family};
use crate::mc::timing::ChannelTiming;

/// The two presets, and the HBM2 and GDDR5X timing sets of docs/dram-timing.md.
pub(super) fn presets() -> Vec<(&'static str, ChannelTiming)> {
    vec![
        ("GDDR5", ChannelTiming::gddr5_gtx480()),
        ("GDDR6", ChannelTiming::gddr6_rtx2060s()),
        ("HBM2", ChannelTiming::hbm2_v100()),
        ("GDDR5X", ChannelTiming::gddr5x_titanx()),
    ]
}

/// The presets plus variants whose `_L` and `_S` values differ for every bank-group rule (the
/// presets, like GPGPU-Sim, have one tRRD and one tWTR).
fn with_group_variants() -> Vec<(&'static str, ChannelTiming)> {
    let mut v = presets();
    for (name, t) in presets() {
        let d = t.with(|t| {
            t.t_rrdl = t.t_rrds + 2;
            t.t_wtrl = t.t_wtrs + 3;
            t.t_rc += 2;
        });
        let name = match name {
            "GDDR5" => "GDDR5 L>S",
            "GDDR6" => "GDDR6 L>S",
            "HBM2" => "HBM2 L>S",
            _ => "GDDR5X L>S",
        };
        v.push((name, d));
    }
    v
}

pub(super) fn u(x: u32) -> u64 {
    u64::from(x)
}

/// tRRD / tCCD / tWTR that apply within a group.
fn rrd_l(t: &ChannelTiming) -> u64 {
    u(if t.bank_groups > 1 {
        t.t_rrdl
    } else {
        t.t_rrds
    })
}
fn ccd_l(t: &ChannelTiming) -> u64 {
    u(if t.bank_groups > 1 {
        t.t_ccdl
    } else {
        t.t_ccds
    }
    .max(t.t_bl))
}
pub(super) fn ccd_s(t: &ChannelTiming) -> u64 {
    u(t.t_ccds.max(t.t_bl))
}
fn wtr_l(t: &ChannelTiming) -> u64 {
    u(if t.bank_groups > 1 {
        t.t_wtrl
    } else {
        t.t_wtrs
    })
}
fn wr_pre(t: &ChannelTiming) -> u64 {
    u(t.t_cwl + t.t_bl + t.t_wr)
}

pub(super) const ROW: u32 = 7;

/// Issue `setup` on a fresh channel, then check that `probe` is refused at `at - 1` under rule
/// `family` (channel unchanged) and accepted at `at`; and that the independent checker accepts the
/// trace with the probe at `at` and reports `family` with the probe at `at - 1`.
#[track_caller]
pub(super) fn assert_tight(
    name: &str,
    t: &ChannelTiming,
    setup: &[(u64, Command)],
    probe: Command,
    at: u64,
    family: &str,
) {
    let ctx = format!("{name}: {probe:?} at {at} after {setup:?}");
    let mut ch = Channel::new(*t);
    for (c, cmd) in setup {
        if let Err(e) = ch.issue(cmd, *c) {
            panic!("{ctx}: setup command refused: {e}");
        }
    }
    let last = setup.last().map(|s| s.0);
    assert!(
        at >= 1 && last.is_none_or(|l| at - 1 > l),
        "{ctx}: probe too close to the setup to test t-1"
    );
    let from = last.map_or(0, |l| l + 1);
    assert_eq!(ch.earliest(&probe, from), Some(at), "{ctx}: earliest");
    assert!(!ch.can_issue(&probe, at - 1), "{ctx}: legal at t-1");
    let before = ch.clone();
    let e = match ch.issue(&probe, at - 1) {
        Err(e) => e,
        Ok(_) => panic!("{ctx}: issue at t-1 accepted"),
    };
    assert_eq!(ch, before, "{ctx}: refused issue changed the channel");
    assert_eq!(rule_family(e.rule), family, "{ctx}: rule {}", e.rule);
    assert_eq!(e.earliest, Some(at), "{ctx}");
    assert!(ch.can_issue(&probe, at), "{ctx}: not legal at t");
    if let Err(e) = ch.issue(&probe, at) {
        panic!("{ctx}: issue at t refused: {e}");
    }

    let mut trace: Vec<TraceCmd> = setup
        .iter()
        .map(|(c, cmd)| TraceCmd::new(*c, 0, cmd))
        .collect();
    trace.push(TraceCmd::new(at, 0, &probe));
    let ok = checker::check(&trace, t);
    assert!(
        ok.is_empty(),
        "{ctx}: checker rejects the legal trace: {ok:?}"
    );
    let idx = trace.len() - 1;
    trace[idx].cycle = at - 1;
    let bad = checker::check(&trace, t);
    assert!(
        bad.iter()
            .any(|v| v.index == idx && rule_family(v.rule) == family),
        "{ctx}: checker does not report {family} at t-1: {bad:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Row rules

#[test]
fn r1_act_to_rd_is_tight() {
    for (name, t) in presets() {
        let setup = [(0, Command::act(0, ROW))];
        assert_tight(name, &t, &setup, Command::rd(0, ROW, 0), u(t.t_rcd), "R1");
        assert_tight(name, &t, &setup, Command::rda(0, ROW, 3), u(t.t_rcd), "R1");
    }
}

#[test]
fn r2_act_to_wr_is_tight() {
    for (name, t) in presets() {
        let setup = [(0, Command::act(0, ROW))];
        assert_tight(name, &t, &setup, Command::wr(0, ROW, 0), u(t.t_rcdwr), "R2");
        assert_tight(
            name,
            &t,
            &setup,
            Command::wra(0, ROW, 0),
            u(t.t_rcdwr),
            "R2",
        );
    }
}

#[test]
fn r3_act_to_pre_is_tight() {
    for (name, t) in presets() {
        let setup = [(0, Command::act(3, ROW))];
        assert_tight(name, &t, &setup, Command::pre(3), u(t.t_ras), "R3");
        assert_tight(name, &t, &setup, Command::prea(), u(t.t_ras), "R3");
    }
}

#[test]
fn r4_act_to_act_same_bank_is_tight() {
    for (name, t) in presets() {
        // In the presets tRC = tRAS + tRP: R4 and R5 bind together; R4 (set first) is named.
        let setup = [(0, Command::act(0, ROW)), (u(t.t_ras), Command::pre(0))];
        assert_eq!(t.t_rc, t.t_ras + t.t_rp, "{name}");
        assert_tight(name, &t, &setup, Command::act(0, 1), u(t.t_rc), "R4");
        // With tRC > tRAS + tRP, R4 alone binds.
        let t = t.with(|t| {
            t.t_rc = t.t_ras + t.t_rp + 6;
        });
        assert_tight(name, &t, &setup, Command::act(0, 1), u(t.t_rc), "R4");
    }
}

#[test]
fn r5_pre_to_act_is_tight() {
    for (name, t) in presets() {
        let p = u(t.t_ras) + 5;
        let setup = [(0, Command::act(0, ROW)), (p, Command::pre(0))];
        assert_tight(name, &t, &setup, Command::act(0, 1), p + u(t.t_rp), "R5");
        let setup = [(0, Command::act(0, ROW)), (p, Command::prea())];
        assert_tight(name, &t, &setup, Command::act(0, 1), p + u(t.t_rp), "R5");
        // PREA closes every bank: an idle bank also waits tRP.
        assert_tight(name, &t, &setup, Command::act(9, 1), p + u(t.t_rp), "R5");
    }
}

#[test]
fn r6_act_to_act_same_group_is_tight() {
    for (name, t) in with_group_variants() {
        assert_eq!(t.bank_group(0), t.bank_group(4));
        let setup = [(0, Command::act(0, ROW))];
        assert_tight(name, &t, &setup, Command::act(4, ROW), rrd_l(&t), "R6");
    }
}

#[test]
fn r6_act_to_act_other_group_is_tight() {
    for (name, t) in with_group_variants() {
        assert_ne!(t.bank_group(0), t.bank_group(1));
        let setup = [(0, Command::act(0, ROW))];
        assert_tight(name, &t, &setup, Command::act(1, ROW), u(t.t_rrds), "R6");
    }
}

#[test]
fn r7_faw_is_tight() {
    for (name, t) in with_group_variants() {
        let r = u(t.t_rrds);
        // The GDDR5 preset's tFAW (22) is below 4 x tRRD (24) and never binds: show that, then
        // widen it to exercise the window.
        if u(t.t_faw) <= 4 * r {
            let mut ch = Channel::new(t);
            for b in 0..4 {
                ch.issue(&Command::act(b, ROW), u(b) * r).unwrap();
            }
            assert_eq!(ch.earliest(&Command::act(4, ROW), 0), Some(4 * r), "{name}");
        }
        // ACTs 2 cycles further apart than tRRD_S, so that the rolling window alone binds the
        // sixth ACT too.
        let g = r + 2;
        let t = t.with(|t| {
            t.t_faw = t.t_faw.max(t.t_rrds * 4 + 8);
        });
        let faw = u(t.t_faw);
        assert!(faw > 3 * g + r, "{name}");
        // Five ACTs to banks 0, 1, 2, 3, 4: groups 0, 1, 2, 3, 0.
        let setup: Vec<(u64, Command)> = (0..4).map(|b| (u(b) * g, Command::act(b, ROW))).collect();
        assert_tight(name, &t, &setup, Command::act(4, ROW), faw, "R7");
        // The window rolls: the sixth ACT waits tFAW after the second.
        let mut setup6 = setup.clone();
        setup6.push((faw, Command::act(4, ROW)));
        assert_tight(name, &t, &setup6, Command::act(5, ROW), g + faw, "R7");
    }
}

#[test]
fn r8_pre_to_pre_is_one_cycle() {
    for (name, t) in presets() {
        let mut ch = Channel::new(t);
        ch.issue(&Command::act(0, ROW), 0).unwrap();
        ch.issue(&Command::act(1, ROW), u(t.t_rrds)).unwrap();
        let p = 200;
        ch.issue(&Command::pre(0), p).unwrap();
        let e = ch.issue(&Command::pre(1), p).unwrap_err();
        assert_eq!(rule_family(e.rule), "B1", "{name}");
        assert_eq!(ch.earliest(&Command::pre(1), p), Some(p + 1), "{name}");
        ch.issue(&Command::pre(1), p + 1).unwrap();

        let tr = |c, cmd: Command| TraceCmd::new(c, 0, &cmd);
        let mut trace = vec![
            tr(0, Command::act(0, ROW)),
            tr(u(t.t_rrds), Command::act(1, ROW)),
            tr(p, Command::pre(0)),
            tr(p + 1, Command::pre(1)),
        ];
        assert!(checker::check(&trace, &t).is_empty());
        trace[3].cycle = p;
        let fams: Vec<&str> = checker::check(&trace, &t)
            .iter()
            .map(|v| rule_family(v.rule))
            .collect();
        assert!(
            fams.contains(&"B1") && fams.contains(&"R8"),
            "{name}: {fams:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Column rules

/// ACT banks `a` and `b` (a first) as early as possible; returns the setup and the first cycle
/// both accept a column command of either direction.
/// [`assert_tight`], except for a distance of one cycle from the last setup command (HBM2's
/// tCCD_S = tBL = 1): B1 (one command per bus and cycle) then binds at the same cycle, as it does
/// for R8's tPPD, so the probe in the cycle of that command is refused with earliest `at` under
/// `family` or B1 (the model names the rule it checks first on a tie) and caught under both by
/// the checker, and is legal at `at`.
pub(super) fn assert_tight_or_b1(
    name: &str,
    t: &ChannelTiming,
    setup: &[(u64, Command)],
    probe: Command,
    at: u64,
    family: &str,
) {
    let last = setup.last().expect("a setup").0;
    if at - 1 > last {
        return assert_tight(name, t, setup, probe, at, family);
    }
    let ctx = format!("{name}: {probe:?} at {at} after {setup:?}");
    assert_eq!(at, last + 1, "{ctx}");
    let mut ch = Channel::new(*t);
    for (c, cmd) in setup {
        ch.issue(cmd, *c).unwrap();
    }
    let e = ch.check_issue(&probe, last).unwrap_err();
    assert_eq!(e.earliest, Some(at), "{ctx}");
    assert!([family, "B1"].contains(&rule_family(e.rule)), "{ctx}: {e}");
    ch.issue(&probe, at).unwrap();
    let mut trace: Vec<TraceCmd> = setup
        .iter()
        .map(|(c, cmd)| TraceCmd::new(*c, 0, cmd))
        .collect();
    trace.push(TraceCmd::new(at, 0, &probe));
    assert!(checker::check(&trace, t).is_empty(), "{ctx}");
    trace.last_mut().unwrap().cycle = last;
    let v = checker::check(&trace, t);
    let f: Vec<&str> = v.iter().map(|v| rule_family(v.rule)).collect();
    assert!(f.contains(&"B1") && f.contains(&family), "{ctx}: {v:?}");
}

pub(super) fn two_open(t: &ChannelTiming, a: u32, b: u32) -> (Vec<(u64, Command)>, u64) {
    let mut ch = Channel::new(*t);
    ch.issue(&Command::act(a, ROW), 0).unwrap();
    let x = ch.earliest(&Command::act(b, ROW), 1).unwrap();
    let setup = vec![(0, Command::act(a, ROW)), (x, Command::act(b, ROW))];
    (setup, x + u(t.t_rcd.max(t.t_rcdwr)))
}

#[test]
fn c1_rd_to_rd_same_group_is_tight() {
    for (name, t) in with_group_variants() {
        let (mut setup, t0) = two_open(&t, 0, 4);
        setup.push((t0, Command::rd(0, ROW, 0)));
        assert_tight(
            name,
            &t,
            &setup,
            Command::rd(4, ROW, 0),
            t0 + ccd_l(&t),
            "C1",
        );
        assert_tight(
            name,
            &t,
            &setup,
            Command::rd(0, ROW, 1),
            t0 + ccd_l(&t),
            "C1",
        );
        assert_tight(
            name,
            &t,
            &setup,
            Command::rda(4, ROW, 1),
            t0 + ccd_l(&t),
            "C1",
        );
    }
}

#[test]
fn c1_rd_to_rd_other_group_is_tight() {
    for (name, t) in with_group_variants() {
        let (mut setup, t0) = two_open(&t, 0, 1);
        setup.push((t0, Command::rd(0, ROW, 0)));
        assert_tight_or_b1(
            name,
            &t,
            &setup,
            Command::rd(1, ROW, 0),
            t0 + ccd_s(&t),
            "C1",
        );
    }
}

#[test]
fn c2_wr_to_wr_same_group_is_tight() {
    for (name, t) in with_group_variants() {
        let (mut setup, t0) = two_open(&t, 0, 4);
        setup.push((t0, Command::wr(0, ROW, 0)));
        assert_tight(
            name,
            &t,
            &setup,
            Command::wr(4, ROW, 0),
            t0 + ccd_l(&t),
            "C2",
        );
        assert_tight(
            name,
            &t,
            &setup,
            Command::wra(0, ROW, 1),
            t0 + ccd_l(&t),
            "C2",
        );
    }
}

#[test]
fn c2_wr_to_wr_other_group_is_tight() {
    for (name, t) in with_group_variants() {
        let (mut setup, t0) = two_open(&t, 0, 1);
        setup.push((t0, Command::wr(0, ROW, 0)));
        assert_tight_or_b1(
            name,
            &t,
            &setup,
            Command::wr(1, ROW, 0),
            t0 + ccd_s(&t),
            "C2",
        );
    }
}

#[test]
fn c3_wr_to_rd_same_group_is_tight() {
    for (name, t) in with_group_variants() {
        let (mut setup, t0) = two_open(&t, 0, 4);
        setup.push((t0, Command::wr(0, ROW, 0)));
        let at = t0 + u(t.t_cwl + t.t_bl) + wtr_l(&t);
        assert_tight(name, &t, &setup, Command::rd(4, ROW, 0), at, "C3");
        assert_tight(name, &t, &setup, Command::rd(0, ROW, 0), at, "C3");
    }
}

#[test]
fn c3_wr_to_rd_other_group_is_tight() {
    for (name, t) in with_group_variants() {
        let (mut setup, t0) = two_open(&t, 0, 1);
        setup.push((t0, Command::wr(0, ROW, 0)));
        let at = t0 + u(t.t_cwl + t.t_bl + t.t_wtrs);
        assert_tight(name, &t, &setup, Command::rd(1, ROW, 0), at, "C3");
    }
}

#[test]
fn c4_rd_to_wr_is_tight() {
    for (name, t) in with_group_variants() {
        let (mut setup, t0) = two_open(&t, 0, 1);
        setup.push((t0, Command::rd(0, ROW, 0)));
        let at = t0 + u(t.t_cl + t.t_bl + t.t_rtw - t.t_cwl);
        assert_tight(name, &t, &setup, Command::wr(1, ROW, 0), at, "C4");
        assert_tight(name, &t, &setup, Command::wr(0, ROW, 0), at, "C4");
    }
}

#[test]
fn c5_rd_to_pre_is_tight() {
    for (name, t) in presets() {
        let r = u(t.t_ras);
        let setup = [(0, Command::act(2, ROW)), (r, Command::rd(2, ROW, 0))];
        assert_tight(name, &t, &setup, Command::pre(2), r + u(t.t_rtp), "C5");
        assert_tight(name, &t, &setup, Command::prea(), r + u(t.t_rtp), "C5");
    }
}

#[test]
fn c6_wr_to_pre_is_tight() {
    for (name, t) in presets() {
        let r = u(t.t_ras);
        let setup = [(0, Command::act(2, ROW)), (r, Command::wr(2, ROW, 0))];
        assert_tight(name, &t, &setup, Command::pre(2), r + wr_pre(&t), "C6");
        assert_tight(name, &t, &setup, Command::prea(), r + wr_pre(&t), "C6");
    }
}

#[test]
fn c7_rda_auto_precharge_is_tight() {
    for (name, t) in presets() {
        // Late RDA: the internal precharge is at t_RDA + tRTP.
        let r = u(t.t_ras);
        let setup = [(0, Command::act(5, ROW)), (r, Command::rda(5, ROW, 0))];
        assert_tight(
            name,
            &t,
            &setup,
            Command::act(5, 1),
            r + u(t.t_rtp + t.t_rp),
            "C7",
        );
        // Early RDA: tRAS lockout holds the precharge until t_ACT + tRAS; with tRC = tRAS + tRP
        // R4 binds at the same cycle.
        let setup = [
            (0, Command::act(5, ROW)),
            (u(t.t_rcd), Command::rda(5, ROW, 0)),
        ];
        assert_tight(
            name,
            &t,
            &setup,
            Command::act(5, 1),
            u(t.t_ras + t.t_rp),
            "R4",
        );
        // The bank is closed by the RDA at once.
        let mut ch = Channel::new(t);
        ch.issue(&Command::act(5, ROW), 0).unwrap();
        ch.issue(&Command::rda(5, ROW, 0), u(t.t_rcd)).unwrap();
        assert_eq!(ch.open_row(5), None);
        assert_eq!(ch.earliest(&Command::rd(5, ROW, 0), 100), None);
        assert_eq!(ch.earliest(&Command::pre(5), 100), None);
    }
}

#[test]
fn c8_wra_auto_precharge_is_tight() {
    for (name, t) in presets() {
        let r = u(t.t_ras);
        let setup = [(0, Command::act(5, ROW)), (r, Command::wra(5, ROW, 0))];
        let at = r + wr_pre(&t) + u(t.t_rp);
        assert_tight(name, &t, &setup, Command::act(5, 1), at, "C8");
        // Early WRA: write recovery ends before tRAS, the lockout binds (with R4).
        let w = u(t.t_rcdwr);
        assert!(w + wr_pre(&t) < r, "{name}");
        let setup = [(0, Command::act(5, ROW)), (w, Command::wra(5, ROW, 0))];
        assert_tight(
            name,
            &t,
            &setup,
            Command::act(5, 1),
            u(t.t_ras + t.t_rp),
            "R4",
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Refresh

#[test]
fn f1_ref_after_prea_is_tight() {
    for (name, t) in presets() {
        let r = u(t.t_ras);
        let setup = [(0, Command::act(0, ROW)), (r, Command::prea())];
        assert_tight(name, &t, &setup, Command::refresh(), r + u(t.t_rp), "F1");
        let setup = [(0, Command::act(0, ROW)), (r, Command::pre(0))];
        assert_tight(name, &t, &setup, Command::refresh(), r + u(t.t_rp), "F1");
        let setup = [(0, Command::act(0, ROW)), (r, Command::rda(0, ROW, 0))];
        assert_tight(
            name,
            &t,
            &setup,
            Command::refresh(),
            r + u(t.t_rtp + t.t_rp),
            "F1",
        );
        let setup = [(0, Command::act(0, ROW)), (r, Command::wra(0, ROW, 0))];
        let at = r + wr_pre(&t) + u(t.t_rp);
        assert_tight(name, &t, &setup, Command::refresh(), at, "F1");
        // ACT -> REF needs tRC (visible when tRC > tRAS + tRP).
        let t = t.with(|t| {
            t.t_rc = t.t_ras + t.t_rp + 5;
        });
        let setup = [(0, Command::act(0, ROW)), (r, Command::pre(0))];
        assert_tight(name, &t, &setup, Command::refresh(), u(t.t_rc), "F1");
    }
}

#[test]
fn f2_act_after_ref_is_tight() {
    for (name, t) in presets() {
        let setup = [(5, Command::refresh())];
        assert_tight(name, &t, &setup, Command::act(0, ROW), 5 + u(t.t_rfc), "F2");
        assert_tight(name, &t, &setup, Command::refresh(), 5 + u(t.t_rfc), "F2");
        // REF does not hold PREA.
        let mut ch = Channel::new(t);
        ch.issue(&Command::refresh(), 5).unwrap();
        assert!(ch.can_issue(&Command::prea(), 6), "{name}");
    }
}

#[test]
fn f3_refresh_is_due_every_trefi_until_issued() {
    for (name, t) in presets() {
        let i = u(t.t_refi);
        let mut ch = Channel::new(t);
        assert_eq!(ch.refresh_due_at(), Some(i));
        assert!(!ch.refresh_due(i - 1), "{name}");
        assert!(ch.refresh_due(i), "{name}");
        assert!(ch.refresh_due(i + 1000), "{name}: stays due");
        ch.issue(&Command::refresh(), i + 3).unwrap();
        assert!(!ch.refresh_due(i + 4), "{name}");
        assert!(!ch.refresh_due(2 * i + 2), "{name}");
        assert!(ch.refresh_due(2 * i + 3), "{name}");

        let ch = Channel::new(t.with_refresh(false));
        assert_eq!(ch.refresh_due_at(), None);
        assert!(!ch.refresh_due(100 * i), "{name}");
    }
}
