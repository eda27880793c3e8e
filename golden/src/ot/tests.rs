use super::txn::Tb;
use super::*;
use crate::block::CycleModel;
use proptest::prelude::*;
use serde_json::json;
use spec::{ConfigRequest, OtEvent, Spec};

fn spec(preset: &str, sets: &[&str]) -> Spec {
    let mut r = ConfigRequest::preset(preset);
    for s in sets {
        r = r.with(s);
    }
    r.resolve().unwrap()
}

fn obs(pc: u64, lec: u64, tb: [u64; 2], warp: u64, addr: u64) -> OtTxn {
    OtTxn::Observe {
        pc,
        lec,
        tb: Tb::from_slice(&tb),
        warp,
        addr,
    }
}

fn pred(pc: u64, lec: u64, tb: [u64; 2], warp: u64) -> OtTxn {
    OtTxn::Predict {
        pc,
        lec,
        tb: Tb::from_slice(&tb),
        warp,
    }
}

const A1: u64 = 0x1000;
const B1: u64 = 0x8000;

/// Requests R1-R7 of seed 000 Fig. 6, on a 3x3 grid of two-warp blocks.
fn fig6() -> Vec<OtTxn> {
    vec![
        OtTxn::Launch {
            grid: vec![3, 3, 1],
            block: vec![64, 1, 1],
        },
        obs(240, 11, [0, 0], 0, A1),      // R1
        obs(240, 11, [0, 0], 0, A1 + 4),  // R2
        obs(240, 11, [0, 0], 1, A1 + 2),  // R3
        obs(240, 11, [2, 0], 1, A1 + 10), // R4
        obs(240, 11, [2, 0], 0, A1 + 32), // R5 is TB (2,2): fixed below
        obs(240, 12, [0, 0], 0, B1),      // R6
        obs(240, 12, [2, 0], 0, B1 + 8),  // R7
    ]
}

fn fig6_txns() -> Vec<OtTxn> {
    let mut t = fig6();
    t[5] = obs(240, 11, [2, 2], 0, A1 + 32);
    t
}

#[test]
fn fig6_walkthrough_gives_fig9_state_step_by_step() {
    let s = spec("fermi-gtx480", &[]);
    let mut m = OtModel::new(&s.ot);
    let txns = fig6_txns();
    let responses = run(&mut m, &txns, s.gpu.warp_size).unwrap();
    let events: Vec<&str> = responses[1..]
        .iter()
        .map(|r| r["event"].as_str().unwrap())
        .collect();
    // Steps 1..7: allocate, add address, inter-warp stride, stride_x, stride_y (step 5),
    // new entry for LEC 12, its stride_x.
    assert_eq!(
        events,
        ["alloc", "append", "learn", "learn", "learn", "alloc", "learn"]
    );
    let slots: Vec<u64> = responses[1..]
        .iter()
        .map(|r| r["slot"].as_u64().unwrap())
        .collect();
    assert_eq!(slots, [0, 0, 0, 0, 0, 1, 1], "Fig. 9 index column");

    let state = dump_state(&m);
    assert_eq!(
        state,
        json!([
            {"slot": 0, "pc": 240, "lec": 11, "tb": [0, 0, 0], "warp": 0,
             "addrs": [A1, A1 + 4], "stride": [4, 12, null], "inter_warp_stride": 2,
             "mispredicts": 0, "ready": true},
            {"slot": 1, "pc": 240, "lec": 12, "tb": [0, 0, 0], "warp": 0,
             "addrs": [B1], "stride": [4, null, null], "inter_warp_stride": null,
             "mispredicts": 0, "ready": false},
        ])
    );
}

#[test]
fn fig9_intermediate_states() {
    let s = spec("fermi-gtx480", &[]);
    let mut m = OtModel::new(&s.ot);
    let txns = fig6_txns();
    // (after step k) -> (addrs, stride_x, stride_y, iws) of entry 0, per Fig. 9.
    let expect = [
        (vec![A1], json!(null), json!(null), json!(null)),
        (vec![A1, A1 + 4], json!(null), json!(null), json!(null)),
        (vec![A1, A1 + 4], json!(null), json!(null), json!(2)),
        (vec![A1, A1 + 4], json!(4), json!(null), json!(2)),
        (vec![A1, A1 + 4], json!(4), json!(12), json!(2)),
    ];
    for (k, (addrs, sx, sy, iws)) in expect.iter().enumerate() {
        run(&mut m, &txns[..k + 2], s.gpu.warp_size).unwrap();
        let e = &dump_state(&m)[0];
        assert_eq!(e["addrs"], json!(addrs), "step {}", k + 1);
        assert_eq!(e["stride"][0], *sx, "step {}", k + 1);
        assert_eq!(e["stride"][1], *sy, "step {}", k + 1);
        assert_eq!(e["inter_warp_stride"], *iws, "step {}", k + 1);
    }
}

#[test]
fn predictions_follow_equations_1a_and_2() {
    let s = spec("fermi-gtx480", &[]);
    let mut m = OtModel::new(&s.ot);
    let mut txns = fig6_txns();
    // Eq. (1a): same warp as the reference, other block.
    txns.push(pred(240, 11, [1, 1], 0));
    // Eq. (1a) then (2): other warp of another block.
    txns.push(pred(240, 11, [2, 1], 1));
    // LEC 12 lacks stride_y and the inter-warp stride: not ready, no prediction.
    txns.push(pred(240, 12, [1, 0], 0));
    let r = run(&mut m, &txns, s.gpu.warp_size).unwrap();
    let n = txns.len();
    let base = |tx: u64, ty: u64, w: u64| A1 + tx * 4 + ty * 12 + w * 2;
    assert_eq!(
        r[n - 3],
        json!({"op": "predict", "hit": true, "addrs": [base(1, 1, 0), base(1, 1, 0) + 4]})
    );
    assert_eq!(
        r[n - 2],
        json!({"op": "predict", "hit": true, "addrs": [base(2, 1, 1), base(2, 1, 1) + 4]})
    );
    assert_eq!(
        r[n - 1],
        json!({"op": "predict", "hit": false, "addrs": []})
    );
}

#[test]
fn one_dimensional_lec12_entry_predicts_with_stride_x_only() {
    // A 1-D grid of one-warp blocks needs only stride_x: R6 and R7 make LEC 12 ready.
    let s = spec("fermi-gtx480", &[]);
    let mut m = OtModel::new(&s.ot);
    let txns = vec![
        OtTxn::Launch {
            grid: vec![8],
            block: vec![32],
        },
        obs(240, 12, [0, 0], 0, B1),
        pred(240, 12, [5, 0], 0),
        obs(240, 12, [2, 0], 0, B1 + 8),
        pred(240, 12, [5, 0], 0),
        obs(240, 12, [7, 0], 0, B1 + 28),
        obs(240, 12, [7, 0], 0, B1 + 29),
    ];
    let r = run(&mut m, &txns, s.gpu.warp_size).unwrap();
    assert_eq!(r[2]["hit"], json!(false));
    assert_eq!(r[3]["ready"], json!(true));
    assert_eq!(
        r[4],
        json!({"op": "predict", "hit": true, "addrs": [B1 + 20]})
    );
    assert_eq!(r[5]["event"], json!("hit"));
    assert_eq!(r[6]["event"], json!("mispredict"));
}

#[test]
fn three_dimensional_grid_learns_stride_z() {
    let s = spec("fermi-gtx480", &[]);
    let mut m = OtModel::new(&s.ot);
    let o3 = |tb: [u64; 3], w: u64, a: u64| OtTxn::Observe {
        pc: 8,
        lec: 0,
        tb: Tb::from_slice(&tb),
        warp: w,
        addr: a,
    };
    let (sx, sy, sz, iw) = (128u64, 4096u64, 65536u64, 32u64);
    let at = |tb: [u64; 3], w: u64| 0x10_0000 + tb[0] * sx + tb[1] * sy + tb[2] * sz + w * iw;
    let txns = vec![
        OtTxn::Launch {
            grid: vec![4, 4, 4],
            block: vec![8, 8, 2],
        },
        o3([1, 1, 1], 0, at([1, 1, 1], 0)),
        o3([1, 1, 1], 1, at([1, 1, 1], 1)),
        o3([3, 1, 1], 0, at([3, 1, 1], 0)),
        o3([1, 0, 1], 1, at([1, 0, 1], 1)),
        o3([0, 2, 3], 0, at([0, 2, 3], 0)),
        OtTxn::Predict {
            pc: 8,
            lec: 0,
            tb: Tb::from_slice(&[3, 3, 0]),
            warp: 1,
        },
    ];
    let r = run(&mut m, &txns, s.gpu.warp_size).unwrap();
    let ev: Vec<_> = r[1..6].iter().map(|x| x["event"].clone()).collect();
    assert_eq!(
        ev,
        [
            json!("alloc"),
            json!("learn"),
            json!("learn"),
            json!("learn"),
            json!("learn")
        ]
    );
    assert_eq!(r[5]["ready"], json!(true));
    assert_eq!(r[6]["addrs"], json!([at([3, 3, 0], 1)]));
}

#[test]
fn ambiguous_requests_are_decided_as_documented() {
    let s = spec("tiny", &[]);
    let mut m = OtModel::new(&s.ot);
    let txns = vec![
        OtTxn::Launch {
            grid: vec![8, 8],
            block: vec![64],
        },
        obs(16, 1, [0, 0], 0, 1000),
        obs(16, 1, [0, 0], 0, 1000),       // duplicate address: ignored
        obs(16, 1, [0, 0], 0, 1064),       // appended (2 addresses per entry in tiny)
        obs(16, 1, [0, 0], 0, 1128),       // list full: ignored
        obs(16, 1, [3, 0], 0, 1010),       // 10 / 3 is not integral: ignored
        obs(16, 1, [2, 3], 1, 2000),       // three unknowns: ignored
        obs(16, 1, [0, 0], 1, 1000 - 256), // negative inter-warp stride learned
        obs(16, 1, [0, 0], 1, 1000),       // disagrees with the learned stride: mispredict
        obs(16, 1, [0, 0], 1, 1064 - 256), // the second address, shifted: hit
        obs(16, 1, [1, 0], 0, 1000 + (1 << 19)), // stride 2^19 does not fit 20 signed bits
    ];
    let r = run(&mut m, &txns, s.gpu.warp_size).unwrap();
    let ev: Vec<&str> = r[1..]
        .iter()
        .map(|x| x["event"].as_str().unwrap())
        .collect();
    assert_eq!(
        ev,
        [
            "alloc",
            "ignore",
            "append",
            "ignore",
            "ignore",
            "ignore",
            "learn",
            "mispredict",
            "hit",
            "ignore"
        ]
    );
    let st = dump_state(&m);
    assert_eq!(st[0]["inter_warp_stride"], json!(-256));
    assert_eq!(st[0]["mispredicts"], json!(1));
    assert_eq!(st[0]["stride"], json!([null, null, null]));
}

#[test]
fn entry_stops_predicting_once_counter_exceeds_threshold() {
    // tiny: threshold 3, 3-bit counter.
    let s = spec("tiny", &[]);
    let mut m = OtModel::new(&s.ot);
    let mut txns = vec![
        OtTxn::Launch {
            grid: vec![8],
            block: vec![32],
        },
        obs(16, 1, [0, 0], 0, 1000),
        obs(16, 1, [1, 0], 0, 1128),
    ];
    let mut hits = Vec::new();
    for k in 0..6 {
        txns.push(obs(16, 1, [2, 0], 0, 5000 + k)); // wrong: 1256 expected
        txns.push(pred(16, 1, [3, 0], 0));
        hits.push(txns.len() - 1);
    }
    let r = run(&mut m, &txns, s.gpu.warp_size).unwrap();
    let h: Vec<bool> = hits
        .iter()
        .map(|&i| r[i]["hit"].as_bool().unwrap())
        .collect();
    // Counter after k mispredicts is k; predicting while counter <= 3.
    assert_eq!(h, [true, true, true, false, false, false]);
    assert_eq!(dump_state(&m)[0]["mispredicts"], json!(6));
    // Saturates at 7.
    for k in 0..5 {
        txns.push(obs(16, 1, [2, 0], 0, 9000 + k));
    }
    run(&mut m, &txns, s.gpu.warp_size).unwrap();
    assert_eq!(dump_state(&m)[0]["mispredicts"], json!(7));
}

#[test]
fn launch_flushes_and_sets_needed_strides() {
    let s = spec("tiny", &[]);
    let mut m = OtModel::new(&s.ot);
    let txns = vec![
        obs(16, 1, [0, 0], 0, 1000),
        OtTxn::Launch {
            grid: vec![4, 1, 1],
            block: vec![32],
        },
        pred(16, 1, [0, 0], 0),
        obs(16, 1, [0, 0], 0, 1000),
    ];
    let r = run(&mut m, &txns, s.gpu.warp_size).unwrap();
    assert_eq!(
        r[0]["ready"],
        json!(false),
        "before any launch every stride is needed"
    );
    assert_eq!(r[2]["hit"], json!(false), "launch flushed the table");
    assert_eq!(r[3]["event"], json!("alloc"));
    assert_eq!(r[3]["ready"], json!(false), "grid x = 4 needs stride_x");
}

#[test]
fn lru_evicts_least_recently_used_way_and_plru_follows_its_tree() {
    for (repl, expect_victim) in [("lru", 1u64), ("plru", 1u64)] {
        let s = spec(
            "tiny",
            &[
                "ot.entries=4",
                "ot.ways=4",
                &format!("ot.replacement={repl}"),
            ],
        );
        let mut m = OtModel::new(&s.ot);
        let mut txns = vec![OtTxn::Launch {
            grid: vec![4],
            block: vec![32],
        }];
        for pc in 0..4 {
            txns.push(obs(pc * 8, 0, [0, 0], 0, 100));
        }
        txns.push(obs(0, 0, [1, 0], 0, 228)); // touch slot 0 again
        txns.push(obs(16, 0, [1, 0], 0, 228)); // touch slot 2
        txns.push(obs(24, 0, [1, 0], 0, 228)); // touch slot 3
        txns.push(obs(800, 0, [0, 0], 0, 1)); // miss: evicts slot 1
        let r = run(&mut m, &txns, s.gpu.warp_size).unwrap();
        let last = r.last().unwrap();
        assert_eq!(last["event"], json!("alloc"), "{repl}");
        assert_eq!(last["slot"], json!(expect_victim), "{repl}");
        assert_eq!(last["evicted"], json!(true), "{repl}");
    }
}

#[test]
fn set_associative_index_folds_pc_and_lec() {
    let s = spec("tiny", &[]); // 4 sets
    let m = OtModel::new(&s.ot);
    assert_eq!(s.ot.set_bits, 2);
    assert_eq!(m.set_index(0b1101, 0), 0b11 ^ 0b01);
    assert_eq!(m.set_index(0b1101, 0b10), 0b11 ^ 0b01 ^ 0b10);
}

#[test]
fn illegal_inputs_are_refused_and_leave_state_alone() {
    let s = spec("tiny", &[]);
    let mut m = OtModel::new(&s.ot);
    let l = launch_of(&[4, 2], &[64], 32).unwrap();
    m.step(&OtIn {
        launch: Some(l),
        ..Default::default()
    })
    .unwrap();
    let bad_tb = OtIn {
        observe: Some(Observe {
            pc: 1,
            lec: 0,
            tb: [4, 0, 0],
            warp: 0,
            addr: 0,
        }),
        ..Default::default()
    };
    let e = m.step(&bad_tb).unwrap_err();
    assert!(e.0.contains("outside the launched grid"), "{e}");
    let bad_warp = OtIn {
        predict: Some(Query {
            pc: 1,
            lec: 0,
            tb: [0, 0, 0],
            warp: 2,
        }),
        ..Default::default()
    };
    assert!(m.step(&bad_warp).unwrap_err().0.contains("warp 2"));
    let wide = OtIn {
        observe: Some(Observe {
            pc: 1 << 16,
            lec: 0,
            tb: [0; 3],
            warp: 0,
            addr: 0,
        }),
        ..Default::default()
    };
    assert!(m.step(&wide).unwrap_err().0.contains("ot.pc_bits"));
    let both = OtIn {
        launch: Some(l),
        predict: Some(Query::default()),
        ..Default::default()
    };
    assert!(m.step(&both).unwrap_err().0.contains("cycle to itself"));
    let big = launch_of(&[300], &[32], 32).unwrap();
    assert!(m
        .step(&OtIn {
            launch: Some(big),
            ..Default::default()
        })
        .unwrap_err()
        .0
        .contains("ot.tb_bits"));
    assert!(dump_state(&m).as_array().unwrap().is_empty());
}

#[test]
fn stimulus_parse_errors_name_the_line() {
    let text = "{\"op\":\"launch\",\"grid\":[2,2,1],\"block\":[32,1,1]}\n\n\
                {\"op\":\"observe\",\"pc\":1,\"lec\":0,\"tb\":[0,0,0],\"warp\":0}\n";
    let e = parse(text, "s.jsonl").unwrap_err();
    assert_eq!(e.line, 3);
    assert!(
        e.to_string().starts_with("s.jsonl:3:") && e.message.contains("addr"),
        "{e}"
    );
    let e = parse("{\"op\":\"fetch\"}", "s").unwrap_err();
    assert!(e.message.contains("launch, observe, predict"), "{e}");
    let e = parse("{\"op\":\"launch\",\"grid\":[0],\"block\":[1]}", "s").unwrap_err();
    assert!(e.message.contains("at least 1"), "{e}");
    let e = parse("not json", "s").unwrap_err();
    assert_eq!(e.line, 1);
    // Semantic errors come from validation, with the offending line.
    let s = spec("tiny", &[]);
    let m = OtModel::new(&s.ot);
    let text = "{\"op\":\"launch\",\"grid\":[2],\"block\":[32]}\n\
                {\"op\":\"predict\",\"pc\":1,\"lec\":0,\"tb\":[0],\"warp\":0}\n\
                {\"op\":\"observe\",\"pc\":1,\"lec\":0,\"tb\":[5],\"warp\":0,\"addr\":0}\n";
    let parsed = parse(text, "s").unwrap();
    let (lines, txns): (Vec<usize>, Vec<OtTxn>) = parsed.into_iter().unzip();
    let e = validate(&m, &txns, &lines, 32, "s").unwrap_err();
    assert_eq!(e.line, 3, "{e}");
}

fn single(t: &OtTxn) -> CycleOps {
    let mut c = CycleOps::default();
    match t {
        OtTxn::Launch { .. } => c.launch = Some((0, t.clone())),
        OtTxn::Predict { .. } => c.predict = Some((0, t.clone())),
        OtTxn::Observe { .. } => c.observe = Some((0, t.clone())),
    }
    c
}

fn fields_of(spec: &Spec) -> impl Strategy<Value = OtTxn> {
    let g = spec.ot.clone();
    let tb = prop::collection::vec(0u64..3, 3).prop_map(Tb::from_vec);
    prop_oneof![
        1 => (1u64..4, 1u64..4, 1u64..3, 1u64..100).prop_map(move |(x, y, z, t)| {
            let z = if g.grid_dims < 3 { 1 } else { z };
            OtTxn::Launch { grid: vec![x + 2, y + 2, z], block: vec![t, 1, 1] }
        }),
        6 => (0u64..6, 0u64..3, tb.clone(), 0u64..2, 0u64..4096).prop_map(|(pc, lec, tb, w, a)| {
            OtTxn::Observe { pc: pc * 8, lec, tb, warp: w, addr: a }
        }),
        3 => (0u64..6, 0u64..3, tb, 0u64..2).prop_map(|(pc, lec, tb, w)| {
            OtTxn::Predict { pc: pc * 8, lec, tb, warp: w }
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Packing a predict with a following observe into one cycle gives exactly the responses
    /// of running every transaction in a cycle of its own.
    #[test]
    fn packing_never_changes_responses(
        txns in prop::collection::vec(fields_of(&spec("tiny", &[])), 1..200),
    ) {
        let s = spec("tiny", &[]);
        let mut legal = Vec::new();
        let mut probe = OtModel::new(&s.ot);
        for t in txns {
            let inp = single(&t).input(32).unwrap();
            if probe.step(&inp).is_ok() {
                legal.push(t);
            }
        }
        let mut packed = OtModel::new(&s.ot);
        let a = run(&mut packed, &legal, 32).unwrap();
        let mut single = OtModel::new(&s.ot);
        single.reset();
        let mut b = Vec::new();
        for t in &legal {
            let out = *single.step(&self::single(t).input(32).unwrap()).unwrap();
            b.push(response_json(t, &out));
        }
        prop_assert_eq!(a, b);
        prop_assert_eq!(dump_state(&packed), dump_state(&single));
    }

    /// On an exactly affine load, every prediction of a ready entry is the address the warp
    /// then requests, and nothing is ever counted as a mispredict.
    #[test]
    fn affine_loads_are_predicted_exactly(
        base in 0u64..(1 << 30), sx in -4096i64..4096, sy in -65536i64..65536, iws in -512i64..512,
        order in prop::collection::vec((0u64..6, 0u64..5, 0u64..4), 1..120),
    ) {
        let s = spec("fermi-gtx480", &[]);
        let mut m = OtModel::new(&s.ot);
        m.step(&OtIn {
            launch: Some(launch_of(&[6, 5], &[128], 32).unwrap()),
            ..Default::default()
        })
        .unwrap();
        let at = |x: u64, y: u64, w: u64| {
            ((base as i128
                + x as i128 * sx as i128
                + y as i128 * sy as i128
                + w as i128 * iws as i128) as u64)
                & 0xffff_ffff
        };
        for (x, y, w) in order {
            let q = Query { pc: 64, lec: 3, tb: [x as u32, y as u32, 0], warp: w as u32 };
            let out = *m.step(&OtIn { predict: Some(q), ..Default::default() }).unwrap();
            if out.pred_hit {
                prop_assert_eq!(out.pred_count, 1);
                prop_assert_eq!(out.pred_addrs[0], at(x, y, w));
            }
            let o = Observe { pc: 64, lec: 3, tb: q.tb, warp: q.warp, addr: at(x, y, w) };
            let out = *m.step(&OtIn { observe: Some(o), ..Default::default() }).unwrap();
            prop_assert_ne!(out.upd_event, OtEvent::Mispredict);
        }
    }

    /// Table invariants under random traffic: one entry per (PC, LEC), counters saturate,
    /// address counts stay in range, and the random generator only produces legal input.
    #[test]
    fn random_stream_is_legal_and_keeps_invariants(seed in any::<u64>()) {
        let s = spec("tiny", &[]);
        let mut m = OtModel::new(&s.ot);
        let txns: Vec<OtTxn> = random::RandomOt::new(&s, seed).take(3000).collect();
        run(&mut m, &txns, s.gpu.warp_size)
            .map_err(|(i, e)| TestCaseError::fail(format!("txn {i}: {e}")))?;
        let mut keys = std::collections::HashSet::new();
        for e in m.entries().iter().filter(|e| e.valid) {
            prop_assert!(keys.insert((e.pc, e.lec)));
            prop_assert!(e.mispredicts <= s.ot.counter_max);
            prop_assert!((1..=s.ot.addrs_per_entry).contains(&e.naddrs));
            prop_assert_eq!(
                m.set_index(e.pc, e.lec),
                (m.entries().iter().position(|x| x == e).unwrap() as u32) / s.ot.ways
            );
        }
    }
}

/// The GPU's transactions of a random stream: each query and observation narrowed to the
/// block's input types (those that do not narrow are left out), launches as they are.
fn gpu_txns(txns: &[OtTxn], warp_size: u32) -> Vec<GpuTxn> {
    txns.iter()
        .filter_map(|t| {
            let inp = single(t).input(warp_size).ok()?;
            Some(match t {
                OtTxn::Launch { .. } => GpuTxn::Launch(t.clone()),
                OtTxn::Predict { .. } => GpuTxn::Predict(inp.predict?),
                OtTxn::Observe { .. } => GpuTxn::Observe(inp.observe?),
            })
        })
        .collect()
}

/// The cycle inputs of `g` packed in place, and through their stimulus form.
fn packed_both_ways(g: &[GpuTxn], warp_size: u32) -> (Vec<OtIn>, Vec<OtIn>) {
    let direct: Vec<OtIn> = GpuTxnPacker::new(g.iter().cloned(), warp_size)
        .map(|i| i.unwrap())
        .collect();
    let via: Vec<OtIn> = Packer::new(g.iter().map(GpuTxn::txn))
        .map(|c| c.input(warp_size).unwrap())
        .collect();
    (direct, via)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// The GPU's transactions packed in place give the cycle inputs their stimulus form
    /// gives through `Packer` (what an in-place co-simulation replays), and convert back to
    /// the stimulus form exactly.
    #[test]
    fn gpu_transactions_pack_as_their_stimulus_form(seed in any::<u64>()) {
        let s = spec("tiny", &[]);
        let txns: Vec<OtTxn> = random::RandomOt::new(&s, seed).take(2000).collect();
        let g = gpu_txns(&txns, s.gpu.warp_size);
        prop_assert!(g.len() > 1000);
        let (direct, via) = packed_both_ways(&g, s.gpu.warp_size);
        prop_assert_eq!(direct, via);
        let legal = txns.iter().filter(|t| single(t).input(s.gpu.warp_size).is_ok());
        for (x, t) in g.iter().zip(legal) {
            prop_assert_eq!(&x.txn(), t);
        }
    }
}

#[test]
fn a_packer_that_never_pairs_a_query_is_caught() {
    let s = spec("tiny", &[]);
    let txns: Vec<OtTxn> = random::RandomOt::new(&s, 7).take(2000).collect();
    let g = gpu_txns(&txns, s.gpu.warp_size);
    super::txn::LAX_PAIRING.with(|l| l.set(true));
    let (direct, via) = packed_both_ways(&g, s.gpu.warp_size);
    super::txn::LAX_PAIRING.with(|l| l.set(false));
    assert_ne!(direct, via);
}
