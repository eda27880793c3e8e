//! Dispatch tests: rectangles, overlap, Algorithm 1 directions, the balanced mapping, and
//! hand-checked dispatch orders of every policy on row-major and column-major kernels.

use super::*;
use crate::workload::{load_kernel_file, KernelDesc};
use proptest::prelude::*;
use spec::DispatchPolicy;

fn kernel(name: &str) -> KernelDesc {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("kernels/dispatch")
        .join(format!("{name}.toml"));
    load_kernel_file(&path).unwrap()
}

/// `tiny` with a 16-entry block queue scored in one cycle, on `sms` x `slots`.
fn unit_request(sms: u32, slots: u32) -> spec::ConfigRequest {
    spec::ConfigRequest::preset("tiny")
        .with("dispatch.queue_entries=16")
        .with("dispatch.scored_per_cycle=16")
        .with(&format!("gpu.sms={sms}"))
        .with(&format!("gpu.ctas_per_sm={slots}"))
}

/// The decision unit of [`unit_request`].
fn unit_spec(sms: u32, slots: u32) -> spec::DispatchSpec {
    unit_request(sms, slots).resolve().unwrap().dispatch.clone()
}

/// Run a policy on 2 SMs x 2 slots with every block taking 100 cycles.
fn run(k: &KernelDesc, policy: DispatchPolicy) -> DispatchReport {
    let rects = access_ranges(k, 128).unwrap();
    let n = block_count(k) as usize;
    dispatch(
        k,
        &rects,
        &unit_spec(2, 2),
        policy,
        &BlockTimes::Given(vec![100; n]),
        128,
    )
    .unwrap()
}

/// (block, sm, cycle) of the first `n` dispatches.
fn first(r: &DispatchReport, n: usize) -> Vec<(u64, u32, u64)> {
    r.dispatches
        .iter()
        .take(n)
        .map(|d| (d.block, d.sm, d.cycle))
        .collect()
}

#[test]
fn rectangles_are_the_lines_a_block_touches() {
    let r = access_ranges(&kernel("rowmajor"), 128).unwrap();
    // Block (1, 2) = id 17: lines x 1..=2, rows 8..=11.
    assert_eq!(
        r[17],
        vec![Some(Rect {
            x: 1,
            y: 8,
            w: 2,
            h: 4
        })]
    );
    let c = access_ranges(&kernel("colmajor"), 128).unwrap();
    // Block (1, 2) = id 9: line x 1, rows 8..=15.
    assert_eq!(
        c[9],
        vec![Some(Rect {
            x: 1,
            y: 8,
            w: 1,
            h: 8
        })]
    );
    // Neighbours along x share 4 lines in rowmajor, along y in colmajor.
    assert_eq!(overlap(&r[0], &r[1]), 4);
    assert_eq!(overlap(&r[0], &r[8]), 0);
    assert_eq!(overlap(&c[0], &c[1]), 0);
    assert_eq!(overlap(&c[0], &c[4]), 4);
}

#[test]
fn overlap_is_symmetric_and_bounded() {
    let a = Rect {
        x: 2,
        y: 3,
        w: 4,
        h: 5,
    };
    let b = Rect {
        x: 5,
        y: 0,
        w: 3,
        h: 4,
    };
    assert_eq!(a.overlap(&b), 1);
    assert_eq!(b.overlap(&a), 1);
    assert_eq!(a.overlap(&a), 20);
    let far = Rect {
        x: 6,
        y: 3,
        w: 1,
        h: 1,
    };
    assert_eq!(a.overlap(&far), 0, "touching edges share nothing");
}

#[test]
fn algorithm_1_picks_x_y_or_round_robin() {
    let (x, y) = reuse_distances(&kernel("rowmajor"), 128).unwrap();
    assert_eq!((x, y), (1, 0));
    assert_eq!(direction(x, y), Direction::X);
    let (x, y) = reuse_distances(&kernel("colmajor"), 128).unwrap();
    assert_eq!((x, y), (0, 1));
    assert_eq!(direction(x, y), Direction::Y);
    let (x, y) = reuse_distances(&kernel("nolocality"), 128).unwrap();
    assert_eq!((x, y), (0, 0));
    assert_eq!(direction(x, y), Direction::RoundRobin);
    // A matmul-like row reference read by every block of a row: distance gdimx - 1.
    let mut k = kernel("nolocality");
    k.loads[0].index.bx = 0;
    let (x, y) = reuse_distances(&k, 128).unwrap();
    assert_eq!((x, y), (7, 0));
    // Equal non-zero distances: x, as the printed comparison gives.
    assert_eq!(direction(3, 3), Direction::X);
}

#[test]
fn balanced_mapping_examples() {
    // 5x5 grid on 4 SMs along x: rows 0-3 to SMs 0-3, row 4 split 2/1/1/1.
    let k = KernelDesc {
        grid: [5, 5, 1],
        ..kernel("nolocality")
    };
    let o = MappingOrder::new(&k, Direction::X);
    let sm = |x: u32, y: u32| balanced_sm(&o, [x, y, 0], 5, 4);
    assert_eq!((0..5).map(|x| sm(x, 0)).collect::<Vec<_>>(), vec![0; 5]);
    assert_eq!((0..5).map(|x| sm(x, 3)).collect::<Vec<_>>(), vec![3; 5]);
    assert_eq!(
        (0..5).map(|x| sm(x, 4)).collect::<Vec<_>>(),
        vec![0, 0, 1, 2, 3]
    );
    // Along y: columns to SMs.
    let o = MappingOrder::new(&k, Direction::Y);
    let sm = |x: u32, y: u32| balanced_sm(&o, [x, y, 0], 5, 4);
    assert_eq!((0..5).map(|y| sm(2, y)).collect::<Vec<_>>(), vec![2; 5]);
    assert_eq!(
        (0..5).map(|y| sm(4, y)).collect::<Vec<_>>(),
        vec![0, 0, 1, 2, 3]
    );
}

proptest! {
    /// Every CTA gets exactly one SM in range, and per-SM counts differ by at most one.
    #[test]
    fn balanced_mapping_assigns_every_block_once_evenly(
        gx in 1u32..40, gy in 1u32..40, gz in 1u32..3, sms in 1u64..20, along_y in any::<bool>(),
    ) {
        let k = KernelDesc { grid: [gx, gy, gz], ..kernel("nolocality") };
        let o = MappingOrder::new(&k, if along_y { Direction::Y } else { Direction::X });
        let mut count = vec![0u64; sms as usize];
        let mut seen = std::collections::HashSet::new();
        for id in 0..block_count(&k) {
            let c = block_coords(&k, id);
            prop_assert!(seen.insert(o.position(c, gy.into())), "positions are unique");
            let s = balanced_sm(&o, c, gy.into(), sms);
            prop_assert!(s < sms);
            count[s as usize] += 1;
        }
        let (lo, hi) = (count.iter().min().unwrap(), count.iter().max().unwrap());
        prop_assert!(hi - lo <= 1, "counts {count:?}");
    }

    /// Each SM's position ranges hold exactly the CTAs `balanced_sm` gives it, in the
    /// mapping's order, and a position names the CTA at it.
    #[test]
    fn an_sms_ranges_are_its_balanced_blocks_in_order(
        gx in 1u32..40, gy in 1u32..40, gz in 1u32..3, sms in 1u64..20, along_y in any::<bool>(),
    ) {
        let k = KernelDesc { grid: [gx, gy, gz], ..kernel("nolocality") };
        let o = MappingOrder::new(&k, if along_y { Direction::Y } else { Direction::X });
        let gy = u64::from(gy);
        let mut by_pos: Vec<(u64, u64)> = (0..block_count(&k))
            .map(|id| (o.position(block_coords(&k, id), gy), id))
            .collect();
        by_pos.sort_unstable();
        for s in 0..sms {
            let want: Vec<u64> = by_pos
                .iter()
                .filter(|&&(_, id)| balanced_sm(&o, block_coords(&k, id), gy, sms) == s)
                .map(|&(_, id)| id)
                .collect();
            let got: Vec<u64> = balanced_ranges(&o, s, sms)
                .into_iter()
                .flatten()
                .map(|p| o.block_at(p))
                .collect();
            prop_assert_eq!(got, want, "SM {}", s);
        }
    }
}

#[test]
fn round_robin_and_bcs_orders() {
    let k = kernel("rowmajor");
    let r = run(&k, DispatchPolicy::Rr);
    assert_eq!(
        first(&r, 4),
        vec![(0, 0, 0), (1, 1, 1), (2, 0, 2), (3, 1, 3)]
    );
    // All four slots busy until cycle 100; block 0 leaves first.
    assert_eq!(first(&r, 6)[4..], [(4, 0, 100), (5, 1, 101)]);
    let b = run(&k, DispatchPolicy::Bcs);
    assert_eq!(
        first(&b, 4),
        vec![(0, 0, 0), (1, 0, 0), (2, 1, 1), (3, 1, 1)]
    );
    assert_eq!(r.dispatches.len(), 32);
    assert_eq!(b.dispatches.len(), 32);
}

/// `dispatch.blocks_per_cycle` (decision GPU-35, GPGPU-Sim's `issue_block2core`): up to that
/// many SMs get a block (BCS: two) in a cycle, round-robin from the one after the SM served
/// last, and no SM two in one cycle; the locality unit decides one a cycle whatever it is.
#[test]
fn several_sms_get_a_block_a_cycle_and_none_gets_two() {
    let k = kernel("rowmajor");
    let rects = access_ranges(&k, 128).unwrap();
    let n = block_count(&k) as usize;
    let go = |per: u32, policy| {
        let unit = unit_request(3, 2)
            .with(&format!("dispatch.blocks_per_cycle={per}"))
            .resolve()
            .unwrap()
            .dispatch
            .clone();
        let times = BlockTimes::Given(vec![100; n]);
        dispatch(&k, &rects, &unit, policy, &times, 128).unwrap()
    };
    let r = go(2, DispatchPolicy::Rr);
    assert_eq!(
        first(&r, 6),
        vec![
            (0, 0, 0),
            (1, 1, 0),
            (2, 2, 1),
            (3, 0, 1),
            (4, 1, 2),
            (5, 2, 2)
        ]
    );
    // Blocks 0 and 1 end at cycle 100: their SMs get the next two together.
    assert_eq!(first(&r, 8)[6..], [(6, 0, 100), (7, 1, 100)]);
    // More than the SMs: each SM once a cycle, the first SM again in the next.
    assert_eq!(
        first(&go(8, DispatchPolicy::Rr), 6),
        vec![
            (0, 0, 0),
            (1, 1, 0),
            (2, 2, 0),
            (3, 0, 1),
            (4, 1, 1),
            (5, 2, 1)
        ]
    );
    assert_eq!(
        first(&go(2, DispatchPolicy::Bcs), 6),
        vec![
            (0, 0, 0),
            (1, 0, 0),
            (2, 1, 0),
            (3, 1, 0),
            (4, 2, 1),
            (5, 2, 1)
        ]
    );
    let one = go(1, DispatchPolicy::Locality);
    assert_eq!(go(3, DispatchPolicy::Locality).dispatches, one.dispatches);
}

#[test]
fn locality_matches_bcs_on_row_major_and_beats_it_on_column_major() {
    let k = kernel("rowmajor");
    let l = run(&k, DispatchPolicy::Locality);
    // First decision: nothing runs, oldest block. Second: SM 1 has nothing; block 1 would share
    // with SM 0's block 0, so the oldest block sharing nothing elsewhere, block 2. Then each
    // SM takes its running block's right neighbour. The decision unit enqueues block 0 at
    // cycle 0, starts at 1, scans the 16 entries in one cycle (2), offers, and the dispatch is
    // committed at 3: a decision every three cycles.
    assert_eq!(
        first(&l, 4),
        vec![(0, 0, 3), (2, 1, 6), (1, 0, 9), (3, 1, 12)]
    );
    // The same co-resident pairs as BCS ({0, 1} and {2, 3}), and at least BCS's sharing over
    // the run (it also chains a block onto a still-running neighbour: 80 lines against 64).
    let b = run(&k, DispatchPolicy::Bcs);
    let pairs = |r: &DispatchReport| {
        let mut p: Vec<Vec<u64>> = (0..2)
            .map(|s| {
                let mut v: Vec<u64> = r.dispatches[..4]
                    .iter()
                    .filter(|d| d.sm == s)
                    .map(|d| d.block)
                    .collect();
                v.sort();
                v
            })
            .collect();
        p.sort();
        p
    };
    assert_eq!(pairs(&l), pairs(&b));
    assert_eq!((l.shared_total, b.shared_total), (80, 64));
    let r = run(&k, DispatchPolicy::Rr);
    assert_eq!(
        r.shared_total, 0,
        "round-robin never co-locates neighbours here"
    );

    let k = kernel("colmajor");
    let l = run(&k, DispatchPolicy::Locality);
    // Block 4 = (0, 1) is below block 0; block 5 below block 1.
    assert_eq!(
        first(&l, 4),
        vec![(0, 0, 3), (1, 1, 6), (4, 0, 9), (5, 1, 12)]
    );
    let b = run(&k, DispatchPolicy::Bcs);
    assert!(
        l.shared_total > b.shared_total,
        "{} vs {}",
        l.shared_total,
        b.shared_total
    );
}

#[test]
fn mapping_policies_follow_the_balanced_assignment() {
    let k = kernel("colmajor");
    let y = run(&k, DispatchPolicy::MapY);
    // 4 columns on 2 SMs: columns 0-1 to SM 0, 2-3 to SM 1, each in column-major order:
    // SM 0 takes (0,0) = 0, (0,1) = 4, ...; SM 1 takes (2,0) = 2, (2,1) = 6, ...
    assert_eq!(
        first(&y, 4),
        vec![(0, 0, 0), (2, 1, 1), (4, 0, 2), (6, 1, 3)]
    );
    let auto = run(&k, DispatchPolicy::MapAuto);
    assert_eq!(auto.direction, Some(Direction::Y));
    assert_eq!(auto.reuse, Some((0, 1)));
    assert_eq!(first(&auto, 8), first(&y, 8));
    for d in &y.dispatches {
        assert_eq!(
            u32::from(d.coords[0] >= 2),
            d.sm,
            "column {} on SM {}",
            d.coords[0],
            d.sm
        );
    }
    let none = run(&kernel("nolocality"), DispatchPolicy::MapAuto);
    assert_eq!(none.direction, Some(Direction::RoundRobin));
    assert_eq!(
        first(&none, 8),
        first(&run(&kernel("nolocality"), DispatchPolicy::Rr), 8)
    );
}

fn entry(id: u32, x: u64) -> Entry {
    Entry {
        id,
        rects: vec![
            Some(Rect {
                x,
                y: 0,
                w: 2,
                h: 1,
            }),
            None,
            None,
        ],
    }
}

#[test]
fn a_decision_takes_two_cycles_plus_the_scan() {
    for (q, p) in [(4u32, 1u32), (4, 2), (4, 4), (16, 3)] {
        let spec = spec::ConfigRequest::preset("tiny")
            .with(&format!("dispatch.queue_entries={q}"))
            .with(&format!("dispatch.scored_per_cycle={p}"))
            .resolve()
            .unwrap()
            .dispatch
            .clone();
        let mut u = DispatchUnit::new(&spec);
        let mut t = 0u32;
        let mut inp = UnitIn {
            enq: Some(entry(7, 0)),
            done: None,
            disp_ready: false,
        };
        let offered = loop {
            let out = *crate::block::CycleModel::step(&mut u, &inp).unwrap();
            inp.enq = None;
            t += 1;
            if let Some(d) = out.disp {
                break d;
            }
            assert!(t < 100);
        };
        assert_eq!(offered, (7, 0, 0));
        // Offered after the edge of cycle 1 + scan; committed at the next edge.
        assert_eq!(t, 2 + q.div_ceil(p), "queue {q}, {p} per cycle");
        assert_eq!(spec.scan_cycles, q.div_ceil(p));
        inp.disp_ready = true;
        let out = *crate::block::CycleModel::step(&mut u, &inp).unwrap();
        assert_eq!(out.disp, None);
        assert_eq!(u.queued(), 0);
    }
}

#[test]
fn the_unit_refuses_what_the_rtl_asserts() {
    let spec = spec::ConfigRequest::preset("tiny")
        .resolve()
        .unwrap()
        .dispatch
        .clone();
    let mut u = DispatchUnit::new(&spec);
    use crate::block::CycleModel;
    let done = UnitIn {
        done: Some((0, 0)),
        ..UnitIn::default()
    };
    assert!(u.step(&done).is_err(), "a done event for an empty slot");
    let big = UnitIn {
        enq: Some(Entry {
            id: 1,
            rects: vec![
                Some(Rect {
                    x: 256,
                    y: 0,
                    w: 1,
                    h: 1,
                }),
                None,
                None,
            ],
        }),
        ..UnitIn::default()
    };
    assert!(u.step(&big).is_err(), "a coordinate wider than 8 bits");
    for i in 0..spec.queue_entries {
        let e = UnitIn {
            enq: Some(entry(i, 0)),
            ..UnitIn::default()
        };
        // Nothing is taken (no ready), and with every SM slot free the engine offers but the
        // queue keeps filling.
        u.step(&e).unwrap();
    }
    let over = UnitIn {
        enq: Some(entry(99, 0)),
        ..UnitIn::default()
    };
    assert!(u.step(&over).is_err(), "an enqueue into a full queue");
}

proptest! {
    /// Under random traffic the unit only offers waiting blocks into free slots, keeps every
    /// block once, and dispatches everything it is given.
    #[test]
    fn the_unit_dispatches_every_block_once_into_free_slots(
        seed in any::<u64>(), p in 1u32..5, ready_pct in 30u64..100,
    ) {
        use crate::block::CycleModel;
        let spec = spec::ConfigRequest::preset("tiny")
            .with(&format!("dispatch.scored_per_cycle={p}"))
            .resolve()
            .unwrap()
            .dispatch
            .clone();
        let mut rng = crate::rng::Rng::new(seed);
        let mut u = DispatchUnit::new(&spec);
        let total = 40u32;
        let (mut next, mut out) = (0u32, UnitOut { enq_ready: true, disp: None });
        let mut busy: Vec<Vec<Option<u32>>> =
            vec![vec![None; spec.slots as usize]; spec.sms as usize];
        let mut seen = std::collections::HashSet::new();
        for _ in 0..5000 {
            let ready = rng.below(100) < ready_pct;
            // A block finishes only after the edge that dispatched it.
            let running: Vec<(u32, u32)> = busy
                .iter()
                .enumerate()
                .flat_map(|(s, v)| {
                    v.iter()
                        .enumerate()
                        .filter(|(_, b)| b.is_some())
                        .map(move |(k, _)| (s as u32, k as u32))
                })
                .collect();
            let done = (!running.is_empty() && rng.chance(300)).then(|| *rng.pick(&running));
            if let (Some((id, sm, slot)), true) = (out.disp, ready) {
                prop_assert!(busy[sm as usize][slot as usize].is_none(), "offered a busy slot");
                prop_assert!(seen.insert(id), "block {id} dispatched twice");
                busy[sm as usize][slot as usize] = Some(id);
            }
            let enq = (out.enq_ready && next < total && rng.chance(600)).then(|| {
                next += 1;
                entry(next - 1, rng.below(20))
            });
            out = *u.step(&UnitIn { enq, done, disp_ready: ready }).unwrap();
            if let Some((sm, slot)) = done {
                busy[sm as usize][slot as usize] = None;
            }
            if let Some((id, _, _)) = out.disp {
                prop_assert!(id < next && !seen.contains(&id), "offered block {id} is not waiting");
            }
        }
        prop_assert_eq!(
            seen.len() as u32 + u.queued() as u32,
            next,
            "every block given is dispatched or waiting"
        );
    }
}

#[test]
fn locality_degrees_follow_figure_3_13() {
    // W0 = 001-1011, W1 = 001-0011, W2 = 010-1111 (region - sub-regions).
    let w = |region: u64, sub: u64| {
        vec![Some(WarpRange {
            region,
            subregions: sub,
        })]
    };
    let warps = vec![w(0b001, 0b1011), w(0b001, 0b0011), w(0b010, 0b1111)];
    assert_eq!(degree_table(&warps), vec![(0, 1, 2), (0, 2, 0), (1, 2, 0)]);
    assert_eq!(
        locality_degree(&warps[0], &[None]),
        0,
        "an array one warp does not read"
    );
}

#[test]
fn warp_vectors_of_a_row_major_block() {
    // rowmajor: 1024 floats = 32 lines per row; block (32, 4) = 4 warps, one row each. Each
    // warp reads lines x = bx and bx + 1 of its row.
    let k = kernel("rowmajor");
    let r = warp_ranges(&k, [0, 0, 0], 128, 32, 10, 16).unwrap();
    assert_eq!(r.len(), 4);
    // 1024 rows x 32 lines / 1024 regions = 32 lines per region (one row), 2 per sub-region:
    // lines 0 and 1 are sub-region 0.
    assert_eq!(
        r[0],
        vec![Some(WarpRange {
            region: 0,
            subregions: 0b1
        })]
    );
    assert_eq!(
        r[1],
        vec![Some(WarpRange {
            region: 1,
            subregions: 0b1
        })]
    );
    let t = degree_table(&r);
    assert!(t.iter().all(|&(_, _, d)| d == 0), "{t:?}");
    // The next block's first warp reads lines 1 and 2 (sub-regions 0 and 1): it shares one
    // sub-region with this block's first warp.
    let r2 = warp_ranges(&k, [1, 0, 0], 128, 32, 10, 16).unwrap();
    assert_eq!(
        r2[0],
        vec![Some(WarpRange {
            region: 0,
            subregions: 0b11
        })]
    );
    assert_eq!(locality_degree(&r[0], &r2[0]), 1);
}
