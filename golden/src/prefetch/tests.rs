//! The seed's rules on worked examples, and the engine's invariants under random input.

use super::*;
use crate::block::CycleModel;
use proptest::prelude::*;
use spec::{ConfigRequest, PfSource, Spec};

/// The seed's configuration (Table VI tables, distance 1, degree 1, a 100,000-cycle period),
/// with `sets` on top.
fn spec(sets: &[&str]) -> Spec {
    let mut r = ConfigRequest::preset("turing-rtx2060s");
    for s in sets {
        r = r.with(s);
    }
    r.resolve().expect("a legal configuration")
}

fn acc(pc: u64, wid: u32, addr: u64) -> PfIn {
    PfIn {
        acc: Some(Access { pc, wid, addr }),
        ..PfIn::default()
    }
}

const IDLE: PfIn = PfIn {
    launch: false,
    acc: None,
    useful: false,
    early: false,
    merge: false,
    request: false,
};

/// Offer `a` until it is taken, then step until its lookup finishes; that lookup's outputs.
fn lookup(m: &mut MtHwp, a: PfIn) -> PfOut {
    while !m.out().acc_ready {
        m.step(&IDLE).unwrap();
    }
    let mut o = *m.step(&a).unwrap();
    while !o.pf_valid {
        o = *m.step(&IDLE).unwrap();
    }
    o
}

#[test]
fn a_stride_is_promoted_by_three_agreeing_warps_and_not_two() {
    // Throttling off so that no prediction is dropped.
    let s = spec(&["prefetch.throttle=false"]);
    let mut m = MtHwp::new(&s.prefetch);
    // Each warp walks the PC with stride 0x100 from its own base: three accesses train its PWS
    // entry (the second sets the stride, the third repeats it). The bases are not evenly spaced,
    // so the IP table does not train.
    let base = |w: u32| 0x10_0000 + u64::from(w * w) * 0x1_0000;
    for w in 0..2 {
        for i in 0..3 {
            let o = lookup(&mut m, acc(0x40, w, base(w) + i * 0x100));
            assert!(!o.promote, "warp {w} access {i} must not promote");
        }
    }
    assert_eq!(
        m.gs.entries.iter().filter(|g| g.valid).count(),
        0,
        "two trained warps do not promote"
    );
    let o0 = lookup(&mut m, acc(0x40, 2, base(2)));
    let o1 = lookup(&mut m, acc(0x40, 2, base(2) + 0x100));
    assert!(!o0.promote && !o1.promote, "warp 2 is not trained yet");
    let o = lookup(&mut m, acc(0x40, 2, base(2) + 0x200));
    assert!(o.promote, "the third trained warp promotes");
    assert_eq!(
        (o.src, o.prefetches()),
        (PfSource::Pws, &[base(2) + 0x300][..])
    );
    let g: Vec<_> = m.gs.entries.iter().filter(|g| g.valid).collect();
    assert_eq!(g.len(), 1);
    assert_eq!((g[0].pc, g[0].stride), (0x40, 0x100));
    // A yet untrained warp now prefetches at once from the GS table, one cycle after its access.
    m.step(&acc(0x40, 7, 0x90_0000)).unwrap();
    let o = *m.out();
    assert!(o.pf_valid && o.acc_ready);
    assert_eq!((o.src, o.prefetches()), (PfSource::Gs, &[0x90_0100][..]));
}

#[test]
fn warps_with_different_strides_stay_in_the_pws_table() {
    let s = spec(&["prefetch.throttle=false"]);
    let mut m = MtHwp::new(&s.prefetch);
    for w in 0..6u32 {
        let stride = 0x80 * u64::from(w + 1);
        for i in 0..3 {
            let o = lookup(
                &mut m,
                acc(0x40, w, 0x10_0000 * u64::from(w + 1) + i * stride),
            );
            assert!(!o.promote);
        }
    }
    assert!(m.gs.entries.iter().all(|g| !g.valid));
}

#[test]
fn ip_trains_on_three_accesses_from_three_warps() {
    let s = spec(&["prefetch.throttle=false"]);
    let mut m = MtHwp::new(&s.prefetch);
    // Warps 0, 1, 2 at the same PC, 0x200 apart: the third access trains the IP entry and
    // predicts for the warp after it.
    let o = lookup(&mut m, acc(0x80, 0, 0x1000));
    assert_eq!(o.src, PfSource::None);
    let o = lookup(&mut m, acc(0x80, 1, 0x1200));
    assert_eq!(o.src, PfSource::None, "two accesses do not train");
    // The same warp again does not count (it goes on to the PWS table).
    let o = lookup(&mut m, acc(0x80, 1, 0x1400));
    assert_eq!(o.src, PfSource::None, "a warp already seen does not count");
    m.step(&acc(0x80, 2, 0x1400)).unwrap();
    let o = *m.out();
    assert!(o.pf_valid, "an IP hit answers one cycle after the access");
    assert_eq!((o.src, o.prefetches()), (PfSource::Ip, &[0x1600][..]));
    // A warp among the last two does not hit a trained entry (it is a loop's next iteration).
    let o = lookup(&mut m, acc(0x80, 2, 0x1800));
    assert_ne!(o.src, PfSource::Ip);
    // A fourth warp keeping the stride hits again; a fifth breaking it untrains the entry.
    let o = lookup(&mut m, acc(0x80, 3, 0x1600));
    assert_eq!((o.src, o.prefetches()), (PfSource::Ip, &[0x1800][..]));
    let o = lookup(&mut m, acc(0x80, 4, 0x3000));
    assert_ne!(o.src, PfSource::Ip);
    assert!(m.ip.entries.iter().all(|e| !e.train));
}

/// Seed 001 Fig. 14's configurations (the GPU's `stridepc`, `pws-gs`, `pws-ip`, `mt-hwp`): on
/// one access stream that promotes a stride and trains the IP table, each prefetches from the
/// tables it has and from no other.
#[test]
fn each_table_configuration_prefetches_from_its_tables_only() {
    let s = spec(&["prefetch.throttle=false"]);
    let base = |w: u32| 0x10_0000 + u64::from(w * w) * 0x1_0000;
    let mut stream: Vec<PfIn> = Vec::new();
    for w in 0..3 {
        for i in 0..3 {
            stream.push(acc(0x40, w, base(w) + i * 0x100));
        }
    }
    stream.push(acc(0x40, 7, 0x90_0000));
    for (w, addr) in [(0, 0x1000), (1, 0x1200), (2, 0x1400)] {
        stream.push(acc(0x80, w, addr));
    }
    for (gs, ip) in [(false, false), (true, false), (false, true), (true, true)] {
        let p = spec::PrefetchSpec {
            gs_table: gs,
            ip_table: ip,
            ..s.prefetch.clone()
        };
        let mut m = MtHwp::new(&p);
        let sources: Vec<PfSource> = stream.iter().map(|a| lookup(&mut m, *a).src).collect();
        let has = |src| sources.contains(&src);
        assert!(has(PfSource::Pws), "{gs} {ip}: {sources:?}");
        assert_eq!(has(PfSource::Gs), gs, "GS table {gs}: {sources:?}");
        assert_eq!(has(PfSource::Ip), ip, "IP table {ip}: {sources:?}");
        assert_eq!(
            m.gs.entries.iter().any(|g| g.valid),
            gs,
            "promotion needs the GS table"
        );
    }
}

#[test]
fn gs_wins_a_double_hit() {
    let s = spec(&["prefetch.throttle=false"]);
    let mut m = MtHwp::new(&s.prefetch);
    // Train the IP entry of PC 0x80 with stride 0x40 across warps 0..3 ...
    for w in 0..3u32 {
        lookup(&mut m, acc(0x80, w, 0x4000 + u64::from(w) * 0x40));
    }
    assert!(m
        .ip
        .entries
        .iter()
        .any(|e| e.valid && e.pc == 0x80 && e.train));
    // ... and plant a promoted stride of 0x1000 for the same PC.
    m.gs.entries[0] = GsEntry {
        valid: true,
        pc: 0x80,
        stride: 0x1000,
    };
    m.step(&acc(0x80, 3, 0x4000 + 3 * 0x40)).unwrap();
    // (Warp 3 keeps the inter-warp stride, so the IP table hits too.)
    let o = *m.out();
    assert!(
        m.ip.entries
            .iter()
            .any(|e| e.valid && e.pc == 0x80 && e.train),
        "the IP entry still hits"
    );
    assert_eq!(
        (o.src, o.prefetches()),
        (PfSource::Gs, &[0x40c0 + 0x1000][..])
    );
}

#[test]
fn the_pws_table_is_looked_up_the_cycle_after_a_miss() {
    let s = spec(&["prefetch.throttle=false"]);
    let mut m = MtHwp::new(&s.prefetch);
    let o = *m.step(&acc(0x10, 0, 0x100)).unwrap();
    assert!(!o.pf_valid && !o.acc_ready, "busy with the PWS lookup");
    // An access offered while busy is not taken.
    let o = *m.step(&acc(0x10, 5, 0x900)).unwrap();
    assert!(o.pf_valid && o.acc_ready && o.src == PfSource::None);
    assert!(!m.pws.entries.iter().any(|e| e.valid && e.wid == 5));
}

#[test]
fn distance_and_degree_place_the_prefetches() {
    let s = spec(&[
        "prefetch.throttle=false",
        "prefetch.distance=3",
        "prefetch.degree=4",
    ]);
    let mut m = MtHwp::new(&s.prefetch);
    lookup(&mut m, acc(0x10, 0, 0x1000));
    lookup(&mut m, acc(0x10, 0, 0x0f80));
    let o = lookup(&mut m, acc(0x10, 0, 0x0f00));
    assert_eq!(o.src, PfSource::Pws);
    // Stride -0x80: 3, 4, 5 and 6 strides ahead.
    assert_eq!(o.prefetches(), &[0x0d80, 0x0d00, 0x0c80, 0x0c00]);
}

#[test]
fn a_launch_empties_the_tables_and_cancels_a_lookup() {
    let s = spec(&["prefetch.throttle=false"]);
    let mut m = MtHwp::new(&s.prefetch);
    for i in 0..3 {
        lookup(&mut m, acc(0x10, 0, 0x1000 + i * 0x80));
    }
    m.step(&acc(0x10, 0, 0x1180)).unwrap();
    let launch = PfIn {
        launch: true,
        ..PfIn::default()
    };
    let o = *m.step(&launch).unwrap();
    assert!(o.pf_valid && o.src == PfSource::None && o.acc_ready);
    assert!(m.pws.entries.iter().all(|e| !e.valid));
    let bad = PfIn {
        launch: true,
        ..acc(1, 1, 1)
    };
    assert!(m.step(&bad).is_err(), "launch with an access is illegal");
}

/// A throttled engine, its period's events fed, and its state at the end of the update.
fn throttle_after(
    sets: &[&str],
    degree: u32,
    merge: u64,
    events: &[(u32, bool, bool, bool, bool)],
) -> (MtHwp, u64) {
    let mut all = vec!["prefetch.throttle=true", "prefetch.period=1000"];
    all.extend_from_slice(sets);
    let s = spec(&all);
    let mut m = MtHwp::new(&s.prefetch);
    m.throttle.degree = degree;
    m.throttle.merge = merge;
    let mut cycle = 0u64;
    for &(n, useful, early, merge_ev, request) in events {
        for _ in 0..n {
            m.step(&PfIn {
                useful,
                early,
                merge: merge_ev,
                request,
                ..PfIn::default()
            })
            .unwrap();
            cycle += 1;
        }
    }
    // Idle to the period's end and through the divider.
    let mut updated_at = None;
    while updated_at.is_none() {
        let o = *m.step(&IDLE).unwrap();
        cycle += 1;
        if o.update {
            updated_at = Some(cycle);
        }
    }
    (m, updated_at.unwrap_or(0))
}

#[test]
fn table_i_high_early_eviction_stops_prefetching() {
    // 3 early evictions per 100 useful prefetches: 0.03 > 0.02.
    let (m, _) = throttle_after(
        &[],
        1,
        0,
        &[
            (100, true, false, false, false),
            (3, false, true, false, false),
        ],
    );
    assert_eq!(m.throttle.degree, 5);
}

#[test]
fn table_i_medium_early_eviction_throttles_one_step_more() {
    // 0.015: medium.
    let (m, _) = throttle_after(
        &[],
        2,
        0,
        &[
            (200, true, false, false, false),
            (3, false, true, false, false),
        ],
    );
    assert_eq!(m.throttle.degree, 3);
    let (m, _) = throttle_after(
        &[],
        5,
        0,
        &[
            (200, true, false, false, false),
            (3, false, true, false, false),
        ],
    );
    assert_eq!(m.throttle.degree, 5, "saturates at 5");
}

#[test]
fn table_i_low_early_eviction_and_high_merge_throttles_less() {
    // No early eviction; 40 merges in 100 requests (0.4), previous ratio 0:
    // (0 + 0.4) / 2 = 0.2 > 0.15.
    let (m, _) = throttle_after(
        &[],
        2,
        0,
        &[
            (100, true, false, false, true),
            (40, false, false, true, false),
        ],
    );
    assert_eq!(m.throttle.degree, 1);
    let (m, _) = throttle_after(
        &[],
        0,
        0,
        &[
            (100, true, false, false, true),
            (40, false, false, true, false),
        ],
    );
    assert_eq!(m.throttle.degree, 0, "saturates at 0");
}

#[test]
fn table_i_low_early_eviction_and_low_merge_stops_prefetching() {
    // 20 merges in 100 requests (0.2) averaged with 0: 0.1, low.
    let (m, _) = throttle_after(
        &[],
        1,
        0,
        &[
            (100, true, false, false, true),
            (20, false, false, true, false),
        ],
    );
    assert_eq!(m.throttle.degree, 5);
}

#[test]
fn the_merge_ratio_averages_the_previous_period_eq_8() {
    let f = 10;
    // Previous 0.5 (512), monitored 0.25 (256): current 0.375 (384).
    let (m, at) = throttle_after(
        &[],
        2,
        512,
        &[
            (100, false, false, false, true),
            (25, false, false, true, false),
        ],
    );
    assert_eq!(m.throttle.merge, 384);
    assert_eq!(m.out().merge, 384);
    // The update lands merge_frac_bits + 1 edges after the period's last edge (edge 1000).
    assert_eq!(at, 1000 + f + 1);
    // No request at all: a monitored ratio of 0; 0.375 halves.
    let (m, _) = throttle_after(&[], 2, 384, &[]);
    assert_eq!(m.throttle.merge, 192);
}

#[test]
fn the_early_eviction_rate_is_the_monitored_one_eq_7() {
    // A high rate in one period does not carry over: the next period's low rate stands alone.
    let s = spec(&["prefetch.throttle=true", "prefetch.period=100"]);
    let mut m = MtHwp::new(&s.prefetch);
    let ev = |early: bool| PfIn {
        useful: !early,
        early,
        request: true,
        merge: true,
        ..PfIn::default()
    };
    // The update lands merge_frac_bits + 1 = 11 cycles after each period's end.
    for c in 0..100 {
        m.step(&ev(c < 10)).unwrap();
    }
    for _ in 0..11 {
        m.step(&ev(false)).unwrap();
    }
    assert_eq!(m.throttle.degree, 5, "0.1 early evictions per useful: high");
    for _ in 11..100 {
        m.step(&ev(false)).unwrap();
    }
    for _ in 0..11 {
        m.step(&ev(false)).unwrap();
    }
    // Low rate, merge ratio (1 + 1) / 2 = 1 > 0.15: one step less.
    assert_eq!(m.throttle.degree, 4);
}

#[test]
fn the_throttle_drops_degree_predictions_of_every_five() {
    for degree in 0..=5u32 {
        let s = spec(&["prefetch.throttle=true"]);
        let mut m = MtHwp::new(&s.prefetch);
        m.throttle.degree = degree;
        // A promoted stride so that every access predicts one cycle later.
        m.gs.entries[0] = GsEntry {
            valid: true,
            pc: 0x40,
            stride: 0x80,
        };
        let dropped: u32 = (0..10)
            .map(|i| u32::from(m.step(&acc(0x40, i, 0x1000)).unwrap().drop))
            .sum();
        assert_eq!(dropped, 2 * degree, "degree {degree}");
    }
}

fn arb_input() -> impl Strategy<Value = PfIn> {
    (
        0u8..10,
        0u64..4,
        0u32..6,
        0u64..64,
        proptest::array::uniform4(proptest::bool::weighted(0.2)),
    )
        .prop_map(|(kind, pc, wid, step, ev)| PfIn {
            launch: kind == 0,
            acc: (kind >= 3).then_some(Access {
                pc: 0x100 + pc * 8,
                wid,
                addr: 0x8000 + u64::from(wid) * 0x400 + step * 0x80,
            }),
            useful: ev[0],
            early: ev[1],
            merge: ev[2],
            request: ev[3],
        })
}

proptest! {
    /// Every taken access finishes exactly once, one or two cycles later; a prediction issues
    /// either nothing or `degree` prefetches; no PC is twice in the GS table; the LRU ranks stay
    /// a permutation; the throttle degree stays within 0..=5.
    #[test]
    fn every_taken_access_finishes_once(
        inputs in proptest::collection::vec(arb_input(), 1..400),
        tiny in proptest::bool::ANY,
    ) {
        let s = if tiny {
            ConfigRequest::preset("tiny").with("prefetch.period=50").resolve().unwrap()
        } else {
            spec(&["prefetch.period=50", "prefetch.degree=3"])
        };
        let mut m = MtHwp::new(&s.prefetch);
        let mut in_flight = 0u32;
        for inp in inputs {
            let ready = m.out().acc_ready;
            let o = *m.step(&inp).unwrap();
            if inp.launch {
                prop_assert!(in_flight <= 1);
                prop_assert_eq!(o.pf_valid, in_flight == 1);
                in_flight = 0;
            } else {
                in_flight += u32::from(ready && inp.acc.is_some());
                if o.pf_valid {
                    prop_assert_eq!(in_flight, 1);
                    in_flight = 0;
                }
                prop_assert!(in_flight <= 1);
            }
            prop_assert!(o.count == 0 || o.count == s.prefetch.degree);
            prop_assert!(o.count == 0 || (o.src != PfSource::None && !o.drop));
            prop_assert!(o.degree <= 5);
            let mut pcs: Vec<u64> = m.gs.entries.iter().filter(|g| g.valid).map(|g| g.pc).collect();
            pcs.sort_unstable();
            let n = pcs.len();
            pcs.dedup();
            prop_assert_eq!(pcs.len(), n);
            for r in [&m.pws.rank, &m.gs.rank, &m.ip.rank] {
                let mut r = r.clone();
                r.sort_unstable();
                prop_assert!(r.iter().enumerate().all(|(i, x)| *x == i as u32));
            }
        }
    }
}
