use super::*;
use proptest::prelude::*;

/// The tiny preset's unit (8 warp slots, 3 arrays, starve limit 8) with `sets` on top.
fn spec(sets: &[&str]) -> spec::Spec {
    spec::ConfigRequest::preset("tiny")
        .resolve()
        .unwrap()
        .variant(sets)
        .unwrap()
}

fn unit(sets: &[&str]) -> LwsUnit {
    LwsUnit::new(&spec(sets).lws)
}

/// A vector reading array 0 only, in `region`, sub-regions `subs`.
fn v(region: u64, subs: u64) -> Vector {
    vec![
        Some(WarpRange {
            region,
            subregions: subs,
        }),
        None,
        None,
    ]
}

fn set(u: &mut LwsUnit, slot: u32, first: bool, vector: Vector) {
    // Every slot waits long while the vectors are written: nothing joins the group.
    u.step(&LwsIn {
        set: Some(SetWarp {
            slot,
            first,
            vector,
        }),
        ready: 0,
        long: u128::MAX >> (128 - u.spec().warps),
    })
    .unwrap();
}

fn cycle(u: &mut LwsUnit, ready: u128, long: u128) -> LwsOut {
    *u.step(&LwsIn {
        set: None,
        ready,
        long,
    })
    .unwrap()
}

#[test]
fn the_degree_table_holds_figure_3_13s_example() {
    // Warp 0 (001-1011), warp 1 (001-0011), warp 2 (010-1111): (0, 1) = 2, the rest 0.
    let mut u = unit(&[]);
    set(&mut u, 0, true, v(1, 0b1011));
    set(&mut u, 1, false, v(1, 0b0011));
    set(&mut u, 2, false, v(2, 0b1111));
    assert_eq!(u.degree(0, 1), 2);
    assert_eq!(u.degree(1, 0), 2);
    assert_eq!(u.degree(0, 2), 0, "different regions share nothing");
    assert_eq!(u.degree(1, 2), 0);
    // A slot written again takes its new vector's degrees.
    set(&mut u, 2, false, v(1, 0b0001));
    assert_eq!((u.degree(0, 2), u.degree(1, 2)), (1, 1));
}

/// Four warps: 0 shares 3 sub-regions with 2 and 1 with 1; 3 is in another region.
fn four(sets: &[&str]) -> LwsUnit {
    let mut u = unit(sets);
    set(&mut u, 0, true, v(0, 0b1111));
    set(&mut u, 1, false, v(0, 0b0001));
    set(&mut u, 2, false, v(0, 0b0111));
    set(&mut u, 3, false, v(1, 0b1111));
    u
}

const OTHERS: u128 = !0b1111 & 0xff;

#[test]
fn the_waiting_warp_sharing_the_most_with_the_group_is_promoted() {
    let mut u = four(&["gpu.active_warps=2"]);
    // An empty group: every score is 0, the lowest slot joins; one warp joins a cycle.
    assert_eq!(cycle(&mut u, 0, OTHERS).active, 0b0001);
    // Warp 0 in the group: warp 2 shares 3 sub-regions with it, warp 1 one, warp 3 none.
    assert_eq!(cycle(&mut u, 0, OTHERS).active, 0b0101);
    // Full (two warps): nothing more joins.
    assert_eq!(cycle(&mut u, 0, OTHERS).active, 0b0101);
}

#[test]
fn a_warp_that_waits_long_is_demoted_and_the_best_waiting_one_replaces_it() {
    let mut u = four(&["gpu.active_warps=2"]);
    cycle(&mut u, 0, OTHERS);
    cycle(&mut u, 0, OTHERS);
    // Warp 0 waits on a load: it leaves, and warp 1 (degree 1 with warp 2) beats warp 3
    // (degree 0) for its place.
    let o = cycle(&mut u, 0, OTHERS | 0b0001);
    assert_eq!(o.active, 0b0110);
    // Warp 0's wait ends: it waits outside the full group.
    assert_eq!(cycle(&mut u, 0, OTHERS).active, 0b0110);
    // Both wait long: the group empties but for the one that joins (0 shares 3 with 2, but
    // 2 has left: every score is 0, the lowest slot joins).
    assert_eq!(cycle(&mut u, 0, OTHERS | 0b0110).active, 0b0001);
}

#[test]
fn issue_is_greedy_then_the_warp_sharing_the_most_with_the_last_one() {
    let mut u = four(&["gpu.active_warps=4"]);
    for _ in 0..4 {
        cycle(&mut u, 0, OTHERS);
    }
    assert_eq!(u.active(), 0b1111);
    // Nothing issued yet: the lowest ready slot.
    assert_eq!(cycle(&mut u, 0b1111, OTHERS).issue, Some(0));
    // Greedy: warp 0 again while it is ready.
    assert_eq!(cycle(&mut u, 0b1111, OTHERS).issue, Some(0));
    // Warp 0 stalls briefly (not ready, still in the group): warp 2 shares the most with it.
    assert_eq!(cycle(&mut u, 0b1110, OTHERS).issue, Some(2));
    // Then greedy on warp 2; when it stalls, warp 1 (degree 1 with 2) beats 3 (degree 0).
    assert_eq!(cycle(&mut u, 0b1110, OTHERS).issue, Some(2));
    assert_eq!(cycle(&mut u, 0b1010, OTHERS).issue, Some(1));
    // No ready warp in the group: none issues.
    assert_eq!(cycle(&mut u, 0, OTHERS).issue, None);
}

#[test]
fn a_starved_warp_joins_and_issues_first() {
    // Starve limit: 2 x ctas_per_sm = 8 blocks placed after a warp's own.
    let mut u = four(&["gpu.active_warps=2"]);
    assert_eq!(u.spec().starve_limit, 8);
    // Eight more blocks, one warp each, into slots 4..7 (again and again): warp 3 ages 8.
    for b in 0..8 {
        set(&mut u, 4 + b % 4, true, v(2, 0b1));
    }
    assert_eq!(u.starved(), 0, "age 8 is not past the limit");
    set(&mut u, 4, true, v(2, 0b1));
    assert_eq!(u.starved(), 0b1111, "the first four warps are 9 blocks old");
    // Slots 4..7 were written since: they do not starve.
    let o = cycle(&mut u, 0, 0);
    assert_eq!(o.active, 0b0001, "the lowest starved warp joins first");
    let o = cycle(&mut u, 0b1000_1000, 0);
    assert_eq!(
        o.active, 0b0011,
        "then the next starved one, whatever it shares"
    );
    assert_eq!(o.issue, None, "neither is ready");
    // Writing a slot makes its warp young again.
    set(&mut u, 0, false, v(0, 0b1));
    assert_eq!(u.starved(), 0b1110);
}

#[test]
fn illegal_inputs_are_refused() {
    let mut u = unit(&[]);
    let bad = |s: SetWarp| LwsIn {
        set: Some(s),
        ..LwsIn::default()
    };
    assert!(u
        .step(&bad(SetWarp {
            slot: 8,
            first: false,
            vector: v(0, 1)
        }))
        .is_err());
    assert!(u
        .step(&bad(SetWarp {
            slot: 0,
            first: false,
            vector: vec![None]
        }))
        .is_err());
    assert!(u
        .step(&bad(SetWarp {
            slot: 0,
            first: false,
            vector: v(1 << 10, 1)
        }))
        .is_err());
    assert!(u
        .step(&bad(SetWarp {
            slot: 0,
            first: false,
            vector: v(0, 1 << 16)
        }))
        .is_err());
    let beyond = LwsIn {
        ready: 1 << 8,
        ..LwsIn::default()
    };
    assert!(u.step(&beyond).is_err());
}

fn arb_in(warps: u32) -> impl Strategy<Value = LwsIn> {
    let m = (1u128 << warps) - 1;
    (
        proptest::option::weighted(0.3, (0..warps, any::<bool>(), 0u64..4, 0u64..16)),
        any::<u128>(),
        any::<u128>(),
    )
        .prop_map(move |(s, r, l)| LwsIn {
            set: s.map(|(slot, first, region, subs)| SetWarp {
                slot,
                first,
                vector: v(region, subs),
            }),
            ready: r & m,
            long: l & l.rotate_left(7) & m,
        })
}

proptest! {
    /// Whatever the inputs: the group never exceeds its size nor holds a warp that waits long,
    /// gains at most one warp a cycle, and a warp issues exactly when one of the group is
    /// ready, from the group's ready warps, the last one issued whenever it can.
    #[test]
    fn the_decision_keeps_its_invariants(ins in proptest::collection::vec(arb_in(8), 1..200)) {
        let mut u = unit(&["gpu.active_warps=3"]);
        let mut last = None;
        for i in &ins {
            let before = u.active();
            let o = *u.step(i).unwrap();
            prop_assert!(o.active.count_ones() <= 3);
            prop_assert_eq!(o.active & i.long, 0);
            prop_assert!((o.active & !before).count_ones() <= 1);
            prop_assert_eq!(o.active, u.active());
            let ready = o.active & i.ready;
            prop_assert_eq!(o.issue.is_some(), ready != 0);
            if let Some(w) = o.issue {
                prop_assert_eq!(ready >> w & 1, 1);
                if let Some(l) = last.filter(|&l: &u32| ready >> l & 1 == 1) {
                    prop_assert_eq!(w, l, "greedy");
                }
                last = Some(w);
            }
        }
    }

    /// The table always holds the degree of the vectors last written (Fig. 3.14's rule).
    #[test]
    fn the_table_holds_every_pairs_degree(ins in proptest::collection::vec(arb_in(8), 1..100)) {
        let mut u = unit(&[]);
        let mut vectors = vec![vec![None; 3]; 8];
        for i in &ins {
            u.step(i).unwrap();
            if let Some(s) = &i.set {
                vectors[s.slot as usize] = s.vector.clone();
            }
        }
        for a in 0..8u32 {
            for b in 0..8u32 {
                if a != b {
                    prop_assert_eq!(
                        u.degree(a, b),
                        locality_degree(&vectors[a as usize], &vectors[b as usize])
                    );
                }
            }
        }
    }
}
