//! Checker tests: random legal traffic from a greedy controller on the channel model checks
//! clean; the same traces with one command moved a cycle earlier are caught under the rule the
//! model names; the checker and the model agree on the earliest cycle of random probes; directed
//! B2, B3 and F3 cases; the rule table itself.

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::*;
use crate::mc::dram::{Channel, ChannelStats, Command};
use crate::rng::Rng;

/// A trace from the greedy controller, with the commands that were issued at their earliest
/// cycle and the rule that held them (from `Channel::check_issue` one cycle earlier).
pub(super) struct Traffic {
    pub trace: Vec<TraceCmd>,
    pub tight: Vec<(usize, &'static str)>,
    pub stats: ChannelStats,
}

#[derive(Clone, Copy)]
struct Req {
    bank: u32,
    row: u32,
    col: u32,
    write: bool,
    auto: bool,
}

fn new_req(rng: &mut Rng, t: &ChannelTiming) -> Req {
    Req {
        bank: rng.below(u64::from(t.banks)) as u32,
        row: rng.below(4) as u32,
        col: rng.below(64) as u32,
        write: rng.chance(300),
        auto: rng.chance(150),
    }
}

/// The next command a request needs in the channel's state.
fn next_cmd(ch: &Channel, r: &Req) -> Command {
    match ch.open_row(r.bank) {
        Some(row) if row == r.row => match (r.write, r.auto) {
            (false, false) => Command::rd(r.bank, r.row, r.col),
            (true, false) => Command::wr(r.bank, r.row, r.col),
            (false, true) => Command::rda(r.bank, r.row, r.col),
            (true, true) => Command::wra(r.bank, r.row, r.col),
        },
        Some(_) => Command::pre(r.bank),
        None => Command::act(r.bank, r.row),
    }
}

/// A state-legal random command for probing (what the model's state allows).
fn random_probe(rng: &mut Rng, ch: &Channel, t: &ChannelTiming) -> Command {
    if rng.chance(30) {
        return if ch.any_open() {
            Command::prea()
        } else {
            Command::refresh()
        };
    }
    let bank = rng.below(u64::from(t.banks)) as u32;
    match ch.open_row(bank) {
        Some(row) => match rng.below(5) {
            0 => Command::rd(bank, row, 1),
            1 => Command::wr(bank, row, 1),
            2 => Command::rda(bank, row, 1),
            3 => Command::wra(bank, row, 1),
            _ => Command::pre(bank),
        },
        None => Command::act(bank, rng.below(4) as u32),
    }
}

/// The first request (from a random start) whose next command may issue at `now`.
fn first_legal(ch: &Channel, reqs: &[Req], now: u64, rng: &mut Rng) -> Option<(Command, usize)> {
    let start = rng.below(reqs.len() as u64) as usize;
    (0..reqs.len())
        .map(|k| (start + k) % reqs.len())
        .map(|i| (next_cmd(ch, &reqs[i]), i))
        .find(|(cmd, _)| ch.can_issue(cmd, now))
}

/// A tiny greedy controller: six pending random requests (4 rows per bank, 30 % writes, 15 %
/// auto-precharge); each cycle the first request (from a random start) whose next command is
/// legal issues it; rarely a PREA; when a refresh is due only PREA (if a bank is open) and REF.
/// With a row and a column command bus (HBM2), a second request's command (then for the other
/// bus) may follow in the same cycle. `probe` is called before each cycle's decision.
pub(super) fn greedy(
    t: ChannelTiming,
    cycles: u64,
    seed: u64,
    mut probe: impl FnMut(&Channel, &[TraceCmd], u64, &mut Rng),
) -> Traffic {
    let mut rng = Rng::new(seed);
    let mut ch = Channel::new(t);
    let mut reqs: Vec<Req> = (0..6).map(|_| new_req(&mut rng, &t)).collect();
    let mut trace = Vec::new();
    let mut tight = Vec::new();
    for now in 0..cycles {
        probe(&ch, &trace, now, &mut rng);
        if rng.chance(30) {
            continue;
        }
        let refresh = ch.refresh_due(now);
        let pick = if refresh {
            let cmd = if ch.any_open() {
                Command::prea()
            } else {
                Command::refresh()
            };
            ch.can_issue(&cmd, now).then_some((cmd, None))
        } else if rng.chance(3) && ch.can_issue(&Command::prea(), now) {
            Some((Command::prea(), None))
        } else {
            first_legal(&ch, &reqs, now, &mut rng).map(|(cmd, i)| (cmd, Some(i)))
        };
        let Some((cmd, req)) = pick else { continue };
        let free_before = trace.last().is_none_or(|l: &TraceCmd| l.cycle + 1 < now);
        if now > 0 && free_before {
            if let Err(v) = ch.check_issue(&cmd, now - 1) {
                if !matches!(rule_family(v.rule), "B1" | "B3") {
                    tight.push((trace.len(), v.rule));
                }
            }
        }
        ch.issue(&cmd, now).expect("can_issue said yes");
        trace.push(TraceCmd::new(now, 0, &cmd));
        if let Some(i) = req {
            if cmd.kind.is_column() {
                reqs[i] = new_req(&mut rng, &t);
            }
        }
        if t.dual_bus && !refresh {
            if let Some((cmd, i)) = first_legal(&ch, &reqs, now, &mut rng) {
                assert_ne!(
                    cmd.kind.is_column(),
                    trace[trace.len() - 1].kind.is_column()
                );
                ch.issue(&cmd, now).expect("can_issue said yes");
                trace.push(TraceCmd::new(now, 0, &cmd));
                if cmd.kind.is_column() {
                    reqs[i] = new_req(&mut rng, &t);
                }
            }
        }
    }
    Traffic {
        trace,
        tight,
        stats: ch.stats(),
    }
}

fn presets() -> Vec<(&'static str, ChannelTiming)> {
    vec![
        ("GDDR5", ChannelTiming::gddr5_gtx480()),
        ("GDDR6", ChannelTiming::gddr6_rtx2060s()),
        ("HBM2", ChannelTiming::hbm2_v100()),
        ("GDDR5X", ChannelTiming::gddr5x_titanx()),
    ]
}

/// The presets and variants that make every rule distinct: `_L > _S`, tRC > tRAS + tRP, a
/// binding tFAW, no turnaround term, groups disabled, fewer banks.
fn variants() -> Vec<(&'static str, ChannelTiming)> {
    let g5 = ChannelTiming::gddr5_gtx480();
    let g6 = ChannelTiming::gddr6_rtx2060s();
    let mut v = presets();
    v.push((
        "GDDR5 L>S",
        g5.with(|t| {
            t.t_rrdl = 8;
            t.t_wtrl = 8;
            t.t_rc = 45;
            t.t_faw = 30;
            t.t_rtw = 0;
        }),
    ));
    v.push((
        "GDDR6 no groups",
        ChannelTiming {
            bank_groups: 1,
            ..g6
        },
    ));
    v.push((
        "GDDR6 8 banks 2 groups",
        ChannelTiming {
            banks: 8,
            bank_groups: 2,
            ..g6.with(|t| {
                t.t_wtrs = 6;
                t.t_refi = 3000;
            })
        },
    ));
    v
}

/// How many [`variants`] there are.
const VARIANTS: usize = 7;

const TRAFFIC_CYCLES: u64 = 200_000;

#[test]
fn random_traffic_with_refresh_checks_clean() {
    for (name, t) in presets() {
        let tr = greedy(
            t,
            TRAFFIC_CYCLES,
            0x5EED ^ u64::from(t.t_rcd),
            |_, _, _, _| {},
        );
        let v = check(&tr.trace, &t);
        assert!(
            v.is_empty(),
            "{name}: {} violations, first {:?}",
            v.len(),
            &v[..v.len().min(5)]
        );
        let s = tr.stats;
        println!(
            "{name}: {} commands in {TRAFFIC_CYCLES} cycles: {:?}; row hits {} misses {}; \
             bus utilisation {:.3}",
            tr.trace.len(),
            CmdKind::ALL.map(|k| (k.name(), s.count(k))),
            s.row_hits,
            s.row_misses,
            s.bus_utilization(TRAFFIC_CYCLES)
        );
        for k in CmdKind::ALL {
            assert!(s.count(k) > 0, "{name}: no {k} issued");
        }
        assert!(s.row_hits > 0 && s.row_misses > 0);
        assert!(s.count(CmdKind::Ref) >= TRAFFIC_CYCLES / u64::from(t.t_refi + t.t_rfc));

        // The trace survives the text format.
        let text: String = tr.trace.iter().map(|c| c.to_line() + "\n").collect();
        assert_eq!(crate::mc::dram::parse_trace(&text).unwrap(), tr.trace);
    }
}

#[test]
fn checker_catches_a_command_moved_one_cycle_earlier() {
    for (name, t) in variants() {
        let tr = greedy(t, TRAFFIC_CYCLES, 77, |_, _, _, _| {});
        assert!(check(&tr.trace, &t).is_empty(), "{name}");
        // One pick per rule seen binding, plus random extra picks.
        let mut by_rule: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (i, rule) in &tr.tight {
            by_rule.entry(*rule).or_default().push(*i);
        }
        let mut rng = Rng::new(9);
        let mut picks: Vec<(usize, &str)> = by_rule
            .iter()
            .map(|(rule, idx)| (*rng.pick(idx), *rule))
            .collect();
        for _ in 0..8 {
            let (i, rule) = *rng.pick(&tr.tight);
            picks.push((i, rule));
        }
        for (i, rule) in &picks {
            let mut mutated = tr.trace[..=*i].to_vec();
            mutated[*i].cycle -= 1;
            let v = check(&mutated, &t);
            let family = rule_family(rule);
            assert!(
                v.iter()
                    .any(|v| v.index == *i && rule_family(v.rule) == family),
                "{name}: command {i} {:?} moved to cycle {}: model says `{rule}`, checker says \
                    {v:?}",
                tr.trace[*i].kind,
                mutated[*i].cycle
            );
        }
        let families: std::collections::BTreeSet<&str> =
            by_rule.keys().map(|r| rule_family(r)).collect();
        println!(
            "{name}: binding rules seen and caught: {:?}",
            by_rule.keys().collect::<Vec<_>>()
        );
        for want in [
            "R1", "R2", "R3", "R5", "R6", "C1", "C2", "C3", "C4", "C5", "C6", "F1", "F2",
        ] {
            assert!(
                families.contains(want),
                "{name}: {want} never binding in the traffic"
            );
        }
    }
}

/// Commands within `reach` cycles before `now`: enough history for any timing rule.
fn tail(trace: &[TraceCmd], now: u64, reach: u64) -> Vec<TraceCmd> {
    let from = trace.partition_point(|c| c.cycle + reach < now);
    trace[from..].to_vec()
}

fn max_reach(t: &ChannelTiming) -> u64 {
    let rules = RULES
        .iter()
        .map(|r| u64::from((r.delay)(t)))
        .max()
        .unwrap_or(0);
    rules.max(u64::from(t.t_cl + t.t_cwl + t.t_bl)) + 1
}

/// ChannelTiming verdict of the checker for the last command of `trace` (B3 and F3 left out: the
/// tail starts with closed banks, and the model does not enforce the refresh rate).
fn checker_accepts_last(trace: &[TraceCmd], t: &ChannelTiming) -> bool {
    let last = trace.len() - 1;
    check(trace, t)
        .iter()
        .all(|v| v.index != last || matches!(rule_family(v.rule), "B3" | "F3"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// For random state-legal probes during random traffic, the checker accepts the probe at the
    /// model's earliest cycle and rejects it one cycle before.
    #[test]
    fn checker_and_channel_agree_on_earliest(seed in any::<u64>(), which in 0usize..VARIANTS) {
        let (name, t) = variants()[which];
        let reach = max_reach(&t);
        let mut failures = Vec::new();
        let tr = greedy(t, 4000, seed, |ch, trace, now, rng| {
            if !rng.chance(60) {
                return;
            }
            let p = random_probe(rng, ch, &t);
            let Some(e) = ch.earliest(&p, now) else {
                failures.push(format!("state-legal probe {p:?} has no earliest"));
                return;
            };
            let mut tl = tail(trace, now, reach);
            tl.push(TraceCmd::new(e, 0, &p));
            if !checker_accepts_last(&tl, &t) {
                let last = tl.len() - 1;
                let v: Vec<Violation> =
                    check(&tl, &t).into_iter().filter(|v| v.index == last).collect();
                failures.push(format!("{p:?} at earliest {e} (now {now}): {v:?}"));
            }
            if e > now {
                let n = tl.len() - 1;
                tl[n].cycle = e - 1;
                if checker_accepts_last(&tl, &t) {
                    failures.push(format!("{p:?} accepted at {} before earliest {e}", e - 1));
                }
            }
        });
        prop_assert!(failures.is_empty(), "{}: {:?}", name, &failures[..failures.len().min(3)]);
        let v = check(&tr.trace, &t);
        prop_assert!(v.is_empty(), "{}: {:?}", name, &v[..v.len().min(3)]);
    }

    /// During random traffic, a bank's earliest CAS / PRE / ACT as the schedulers read them
    /// ([`Channel::bank_earliest`]) are those [`Channel::earliest`] gives the commands.
    #[test]
    fn bank_earliest_is_earliest(seed in any::<u64>(), which in 0usize..VARIANTS) {
        let (name, t) = variants()[which];
        let mut failures = Vec::new();
        greedy(t, 2000, seed, |ch, _, now, _| {
            for b in 0..t.banks {
                for write in [false, true] {
                    let at = |cmd: Command| ch.earliest(&cmd, 0).unwrap_or(u64::MAX);
                    let want = match ch.open_row(b) {
                        Some(r) if write => [at(Command::wr(b, r, 0)), at(Command::pre(b))],
                        Some(r) => [at(Command::rd(b, r, 0)), at(Command::pre(b))],
                        None => [at(Command::act(b, 0)), u64::MAX],
                    };
                    let got = ch.bank_earliest(b, write);
                    if got != want {
                        failures.push(format!(
                            "{now}: bank {b} write {write}: {got:?} != {want:?}"
                        ));
                    }
                }
            }
        });
        prop_assert!(failures.is_empty(), "{}: {:?}", name, &failures[..failures.len().min(3)]);
    }

    /// During random traffic, after each command the banks outside
    /// [`Channel::stale_local`] keep their [`Channel::bank_local`] exactly (the rank-wide part
    /// of their bounds is [`Channel::rank_floor`], read whole each time).
    #[test]
    fn banks_outside_stale_local_keep_their_bounds(
        seed in any::<u64>(),
        which in 0usize..VARIANTS,
    ) {
        let (name, t) = variants()[which];
        let snapshot = |ch: &Channel| -> Vec<[u64; 4]> {
            (0..t.banks)
                .map(|b| {
                    let [r0, r1] = ch.bank_local(b, false);
                    let [w0, w1] = ch.bank_local(b, true);
                    [r0, r1, w0, w1]
                })
                .collect()
        };
        let mut failures = Vec::new();
        let mut last: Option<(Vec<[u64; 4]>, usize)> = None;
        let mut checked = 0u32;
        greedy(t, 2000, seed, |ch, trace, _, _| {
            if let Some((before, n)) = &last {
                if trace.len() == n + 1 {
                    let cmd = &trace[*n];
                    let stale = ch.stale_local(cmd.kind, cmd.bank);
                    let after = snapshot(ch);
                    for b in 0..t.banks as usize {
                        if stale >> b & 1 != 0 {
                            continue;
                        }
                        checked += 1;
                        if before[b] != after[b] {
                            failures.push(format!(
                                "{cmd:?}: bank {b} {:?} -> {:?}",
                                before[b], after[b]
                            ));
                        }
                    }
                }
            }
            last = Some((snapshot(ch), trace.len()));
        });
        prop_assert!(failures.is_empty(), "{}: {:?}", name, &failures[..failures.len().min(3)]);
        prop_assert!(checked > 0, "{}: no bank kept its bounds", name);
    }

    #[test]
    fn trace_lines_round_trip(cycle in any::<u64>(), channel in any::<u32>(), bank in any::<u32>(),
                              k in 0usize..8, row in any::<u32>(), col in any::<u32>()) {
        let c = TraceCmd { cycle, channel, bank, kind: CmdKind::ALL[k], row, col };
        prop_assert_eq!(TraceCmd::parse_line(&c.to_line(), 1), Ok(c));
    }
}

fn tr(cycle: u64, cmd: Command) -> TraceCmd {
    TraceCmd::new(cycle, 0, &cmd)
}

fn families(v: &[Violation]) -> Vec<&'static str> {
    v.iter().map(|v| rule_family(v.rule)).collect()
}

#[test]
fn b3_state_violations_are_reported() {
    let t = ChannelTiming::gddr6_rtx2060s();
    let cases: Vec<Vec<TraceCmd>> = vec![
        vec![tr(0, Command::rd(0, 1, 0))],
        vec![tr(0, Command::pre(0))],
        vec![tr(0, Command::act(0, 1)), tr(100, Command::act(0, 2))],
        vec![tr(0, Command::act(0, 1)), tr(100, Command::wr(0, 2, 0))],
        vec![tr(0, Command::act(0, 1)), tr(100, Command::refresh())],
        vec![
            tr(0, Command::act(0, 1)),
            tr(100, Command::rda(0, 1, 0)),
            tr(200, Command::rd(0, 1, 0)),
        ],
        vec![tr(0, Command::act(16, 1))],
    ];
    for trace in cases {
        let v = check(&trace, &t);
        assert_eq!(families(&v), ["B3"], "{trace:?}: {v:?}");
        assert_eq!(v[0].index, trace.len() - 1);
    }
}

#[test]
fn b1_and_b2_violations_are_reported() {
    let t = ChannelTiming::gddr5_gtx480();
    // Two reads to different groups one cycle apart: C1 and an overlapping burst (tBL = 2).
    let trace = [
        tr(0, Command::act(0, 1)),
        tr(6, Command::act(1, 1)),
        tr(100, Command::rd(0, 1, 0)),
        tr(101, Command::rd(1, 1, 0)),
    ];
    let f = families(&check(&trace, &t));
    assert!(f.contains(&"C1") && f.contains(&"B2"), "{f:?}");
    // Same cycle, and backwards.
    let trace = [tr(10, Command::act(0, 1)), tr(10, Command::act(1, 1))];
    assert!(families(&check(&trace, &t)).contains(&"B1"));
    let trace = [tr(10, Command::act(0, 1)), tr(9, Command::act(1, 1))];
    assert!(families(&check(&trace, &t)).contains(&"B1"));
    // Channels are independent.
    let mut trace = vec![tr(10, Command::act(0, 1)), tr(10, Command::act(1, 1))];
    trace[1].channel = 1;
    assert!(check(&trace, &t).is_empty());
}

#[test]
fn f3_refresh_rate_is_checked() {
    let t = ChannelTiming::gddr6_rtx2060s();
    let i = u64::from(t.t_refi);
    let deadline = i + refresh_slack(&t);
    // REF at the deadline, then the next within tREFI + slack of it: clean.
    let ok = [
        tr(deadline, Command::refresh()),
        tr(deadline + i + refresh_slack(&t), Command::refresh()),
    ];
    assert!(check(&ok, &t).is_empty());
    // One cycle late.
    let late = [tr(deadline + 1, Command::refresh())];
    let v = check(&late, &t);
    assert_eq!(families(&v), ["F3"], "{v:?}");
    // Any command after the deadline without a REF is flagged once per missed interval.
    let trace = [
        tr(deadline + 5, Command::act(0, 1)),
        tr(deadline + 500, Command::act(1, 1)),
    ];
    assert_eq!(families(&check(&trace, &t)), ["F3"]);
    assert!(check(&trace, &t.with_refresh(false)).is_empty());
}

#[test]
fn rule_table_is_well_formed() {
    let mut ids = std::collections::BTreeSet::new();
    for r in RULES {
        assert!(ids.insert(r.id), "duplicate rule {}", r.id);
        let fam = rule_family(r.id);
        assert!(
            matches!(fam.as_bytes().first(), Some(b'R' | b'C' | b'F' | b'B')),
            "{}",
            r.id
        );
        assert!(r.window >= 1);
        if matches!(r.scope, Scope::SameGroup | Scope::OtherGroup) {
            assert!(
                !r.prev.iter().chain(r.next).any(|k| k.is_all_bank()),
                "{}: group scope with an all-bank command",
                r.id
            );
        }
        for (_, t) in presets() {
            assert!((r.delay)(&t) >= 1, "{}", r.id);
        }
    }
    assert_eq!(variants().len(), VARIANTS);
    let fams: std::collections::BTreeSet<&str> = RULES.iter().map(|r| rule_family(r.id)).collect();
    let want = [
        "B1", "R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8", "C1", "C2", "C3", "C4", "C5", "C6",
        "C7", "C8", "F1", "F2",
    ];
    assert_eq!(fams, want.into_iter().collect());
}
