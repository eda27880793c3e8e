//! Command buses (B1, decision MEM-25): HBM2's row and column command buses let a row and a
//! column command share a cycle, GDDR's one bus does not; the model and the checker agree on
//! exact cases, random dual-issue traffic checks clean, and the checker catches traces that put
//! two commands of one bus in a cycle.

use super::tests::greedy;
use super::*;
use crate::mc::dram::{Channel, Command};
use crate::rng::Rng;

fn tr(cycle: u64, cmd: Command) -> TraceCmd {
    TraceCmd::new(cycle, 0, &cmd)
}

fn families(v: &[Violation]) -> Vec<&'static str> {
    v.iter().map(|v| rule_family(v.rule)).collect()
}

/// The HBM2 timing with one command bus: what a GDDR channel of the same timing allows.
fn one_bus(t: ChannelTiming) -> ChannelTiming {
    ChannelTiming {
        dual_bus: false,
        ..t
    }
}

/// Issue `trace` on a fresh channel; the index and rule family of the first refused command.
fn model_refuses(t: ChannelTiming, trace: &[TraceCmd]) -> Option<(usize, &'static str)> {
    let mut ch = Channel::new(t);
    trace.iter().enumerate().find_map(|(i, c)| {
        ch.issue(&c.command(), c.cycle)
            .err()
            .map(|v| (i, rule_family(v.rule)))
    })
}

#[test]
fn hbm2_timing_is_the_v100s() {
    let t = ChannelTiming::hbm2_v100();
    assert!(t.dual_bus);
    assert!(!ChannelTiming::gddr6_rtx2060s().dual_bus);
    assert!(!ChannelTiming::gddr5x_titanx().dual_bus);
    // docs/dram-timing.md: QV100's -gpgpu_dram_timing_opt at 850 MHz, BL 2 / ratio 2.
    assert_eq!(
        (t.t_bl, t.t_rcd, t.t_rrds, t.t_ccds, t.t_ccdl, t.t_ras, t.t_rp),
        (1, 12, 3, 1, 2, 28, 12)
    );
}

/// ACT bank 0 at 0; at cycle 12 (= tRCD) its RD and an ACT to bank 1 (group 1; tRRD_S = 3 is
/// long past): a row and a column command in one cycle, legal with HBM2's two buses in either
/// order, refused under B1 with one bus (the second of them, earliest cycle 13) by the model
/// and the checker alike. On GDDR6 the same pattern (its tRCD = 20) is refused the same way.
#[test]
fn a_row_and_a_column_command_share_a_cycle_on_hbm2_only() {
    let hbm2 = ChannelTiming::hbm2_v100();
    let rd_then_act = [
        tr(0, Command::act(0, 1)),
        tr(12, Command::rd(0, 1, 0)),
        tr(12, Command::act(1, 1)),
    ];
    let act_then_rd = [rd_then_act[0], rd_then_act[2], rd_then_act[1]];
    for trace in [&rd_then_act, &act_then_rd] {
        assert!(check(trace, &hbm2).is_empty(), "{trace:?}");
        assert_eq!(model_refuses(hbm2, trace), None);
        assert_eq!(families(&check(trace, &one_bus(hbm2))), ["B1"]);
        assert_eq!(model_refuses(one_bus(hbm2), trace), Some((2, "B1")));
        let mut ch = Channel::new(one_bus(hbm2));
        ch.issue(&trace[0].command(), 0).unwrap();
        ch.issue(&trace[1].command(), 12).unwrap();
        assert_eq!(ch.earliest(&trace[2].command(), 12), Some(13));
    }
    let g6 = ChannelTiming::gddr6_rtx2060s();
    let trace = [
        tr(0, Command::act(0, 1)),
        tr(20, Command::rd(0, 1, 0)),
        tr(20, Command::act(1, 1)),
    ];
    assert_eq!(families(&check(&trace, &g6)), ["B1"]);
    assert_eq!(model_refuses(g6, &trace), Some((2, "B1")));
}

/// Two commands of one bus in a cycle stay illegal on HBM2. Row bus: PRE bank 0 at tRAS = 28
/// and ACT bank 1 (no timing rule relates them) in the same cycle: B1 alone. Column bus: RDs
/// to banks 0 and 1 (other groups, opened at 0 and 3) both at 15: B1, C1 (tCCD_S = 1) and B2
/// (both bursts in [27, 28)); the model's earliest for the second is 16.
#[test]
fn two_commands_of_one_bus_never_share_a_cycle() {
    let t = ChannelTiming::hbm2_v100();
    let rows = [
        tr(0, Command::act(0, 1)),
        tr(28, Command::pre(0)),
        tr(28, Command::act(1, 1)),
    ];
    assert_eq!(families(&check(&rows, &t)), ["B1"]);
    assert_eq!(model_refuses(t, &rows), Some((2, "B1")));
    let cols = [
        tr(0, Command::act(0, 1)),
        tr(3, Command::act(1, 1)),
        tr(15, Command::rd(0, 1, 0)),
        tr(15, Command::rd(1, 1, 0)),
    ];
    let f = families(&check(&cols, &t));
    for want in ["B1", "C1", "B2"] {
        assert!(f.contains(&want), "{f:?}");
    }
    let mut ch = Channel::new(t);
    for c in &cols[..3] {
        ch.issue(&c.command(), c.cycle).unwrap();
    }
    assert_eq!(ch.earliest(&cols[3].command(), 15), Some(16));
    assert!(ch.issue(&cols[3].command(), 15).is_err());
    assert_eq!(ch.issue(&cols[3].command(), 16), Ok(Some(16 + 12 + 1)));
}

/// Random dual-issue traffic on HBM2 checks clean and puts a row and a column command in one
/// cycle often; checked as one bus, exactly the second command of each such cycle breaks B1.
/// Deliberately wrong traces (a channel that let two commands of one bus share a cycle: a
/// column command moved onto the cycle of the previous column command, a row command onto
/// that of the previous row command) are caught under B1.
#[test]
fn dual_issue_traffic_checks_clean_and_shared_bus_cycles_are_caught() {
    let t = ChannelTiming::hbm2_v100();
    for seed in [1u64, 2, 3] {
        let tr = greedy(t, 100_000, seed, |_, _, _, _| {});
        let v = check(&tr.trace, &t);
        assert!(v.is_empty(), "seed {seed}: {:?}", &v[..v.len().min(3)]);
        let pairs: Vec<usize> = (1..tr.trace.len())
            .filter(|&i| tr.trace[i].cycle == tr.trace[i - 1].cycle)
            .collect();
        assert!(
            pairs.len() > 1000,
            "seed {seed}: {} shared cycles",
            pairs.len()
        );
        let single = check(&tr.trace, &one_bus(t));
        let b1: Vec<usize> = single
            .iter()
            .filter(|v| rule_family(v.rule) == "B1")
            .map(|v| v.index)
            .collect();
        assert_eq!(b1, pairs, "seed {seed}");

        let mut rng = Rng::new(seed);
        let mut caught = [0u32; 2];
        for _ in 0..200 {
            let j = rng.below(tr.trace.len() as u64) as usize;
            let col = tr.trace[j].kind.is_column();
            // The previous command of the same bus, in an earlier cycle.
            let Some(k) = (0..j).rev().find(|&k| {
                tr.trace[k].kind.is_column() == col && tr.trace[k].cycle < tr.trace[j].cycle
            }) else {
                continue;
            };
            let mut bad = tr.trace[..=k].to_vec();
            bad.push(TraceCmd {
                cycle: tr.trace[k].cycle,
                ..tr.trace[j]
            });
            let v = check(&bad, &t);
            assert!(
                v.iter()
                    .any(|v| v.index == k + 1 && rule_family(v.rule) == "B1"),
                "seed {seed}: {:?} moved onto {:?}: {v:?}",
                tr.trace[j],
                tr.trace[k]
            );
            caught[usize::from(col)] += 1;
        }
        assert!(caught[0] > 20 && caught[1] > 20, "{caught:?}");
    }
}

/// The GDDR5X timing (docs/dram-timing.md): one bus, BL16 in four cycles of the 2500 MHz
/// command clock; its random traffic never shares a cycle.
#[test]
fn gddr5x_has_one_command_bus() {
    let t = ChannelTiming::gddr5x_titanx();
    assert_eq!((t.t_bl, t.t_ccds, t.t_ccdl, t.bank_groups), (4, 4, 6, 4));
    let tr = greedy(t, 50_000, 4, |_, _, _, _| {});
    assert!(check(&tr.trace, &t).is_empty());
    assert!(tr.trace.windows(2).all(|w| w[0].cycle < w[1].cycle));
}
