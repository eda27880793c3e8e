//! The OT adapter of a kernel's schedule: what the table's fields can hold, and the
//! transactions it sees.

use super::*;
use crate::ot::{run, OtModel, OtTxn};
use crate::workload::tests::{arb_kernel, simple, spec, tx};
use crate::workload::{builtin, Affine, KernelDesc, WorkloadError, BUILTIN};
use proptest::prelude::*;
use spec::Spec;
use std::collections::HashMap;

fn ot_err(k: &KernelDesc, s: &Spec) -> String {
    match ot_stimulus(k, s, 1) {
        Ok(_) => panic!("kernel `{}` unexpectedly fits", k.name),
        Err(e) => e.to_string(),
    }
}

#[test]
fn ot_stimulus_rejects_kernels_the_table_cannot_hold() {
    let cp = builtin("cp").unwrap();
    let m = ot_err(&cp, &spec("tiny", &["ot.tb_bits=2"]));
    assert!(m.contains("`cp`") && m.contains("grid[0] (x) is 8"), "{m}");
    assert!(
        m.contains("`ot.tb_bits` = 2") && m.contains("at most 4 blocks"),
        "{m}"
    );
    let m = ot_err(&cp, &spec("tiny", &["ot.grid_dims=1"]));
    assert!(
        m.contains("grid[1] (y) is 32") && m.contains("`ot.grid_dims` = 1"),
        "{m}"
    );
    let big = simple([2, 1, 1], [1024, 1, 1], 4, tx(1));
    let m = ot_err(&big, &spec("tiny", &[]));
    assert!(
        m.contains("is 32") && m.contains("`ot.warp_bits` = 4"),
        "{m}"
    );
    assert!(m.contains("at most 16 warps"), "{m}");
    let mut wide = cp.clone();
    wide.loads[1].pc = 0x1_0000;
    let m = ot_err(&wide, &spec("tiny", &[]));
    assert!(m.contains("loads[1]") && m.contains("0x10000"), "{m}");
    assert!(
        m.contains("`ot.pc_bits` = 16") && m.contains("0xffff"),
        "{m}"
    );
    // Invalid kernels are reported as such, not as a table limit.
    let mut bad = cp;
    bad.grid[0] = 0;
    assert!(ot_err(&bad, &spec("tiny", &[])).contains("1 or more"));
}

#[test]
fn stimulus_wraps_lec_and_reduces_addresses() {
    let s = spec("tiny", &[]);
    let mut k = simple([2, 1, 1], [64, 1, 1], 4, Affine::default());
    k.arrays[0].base = 0x3_0000_0000 + 0xab_cd00;
    k.loop_trips = 40;
    k.loads[0].in_loop = true;
    k.loads[0].index = Affine {
        tx: 1,
        it: 64,
        bx: 32,
        ..Affine::default()
    };
    let txns: Vec<OtTxn> = ot_stimulus(&k, &s, 4).unwrap().collect();
    assert_eq!(
        txns[0],
        OtTxn::Launch {
            grid: vec![2, 1, 1],
            block: vec![64, 1, 1]
        }
    );
    let mut per_warp: HashMap<(Vec<u64>, u64), Vec<u64>> = HashMap::new();
    let sched: Vec<WarpLoad> = schedule(&k, &s.gpu, 4).unwrap().collect();
    let mut i = 1;
    for w in &sched {
        let OtTxn::Predict { pc, lec, tb, warp } = &txns[i] else {
            panic!("txn {i} is not a predict: {:?}", txns[i]);
        };
        assert_eq!(
            (*pc, *lec, *warp),
            (0x40, u64::from(w.lec % 16), u64::from(w.warp))
        );
        assert_eq!(tb[..], [u64::from(w.tb[0]), 0, 0]);
        per_warp.entry((tb.to_vec(), *warp)).or_default().push(*lec);
        for line in &w.lines {
            i += 1;
            let OtTxn::Observe { addr, .. } = &txns[i] else {
                panic!("txn {i} is not an observe");
            };
            assert_eq!(*addr, line & 0xff_ffff);
            assert!(*line > 0xff_ffff);
        }
        i += 1;
    }
    assert_eq!(i, txns.len());
    for lecs in per_warp.values() {
        let want: Vec<u64> = (0..40).map(|n| n % 16).collect();
        assert_eq!(lecs, &want);
    }
    let mut m = OtModel::new(&s.ot);
    run(&mut m, &txns, s.gpu.warp_size).unwrap();
}

/// PCOV (hit predictions / queries) and accuracy (hits whose next observation of the same warp
/// load was among the predicted addresses) of the OT on a kernel.
fn ot_quality(k: &KernelDesc, s: &Spec, seed: u64) -> (usize, usize, usize) {
    let txns: Vec<OtTxn> = ot_stimulus(k, s, seed).unwrap().collect();
    let mut m = OtModel::new(&s.ot);
    let resp = run(&mut m, &txns, s.gpu.warp_size)
        .unwrap_or_else(|(i, e)| panic!("{} on {}: txn {i} {:?}: {e}", k.name, s.name, txns[i]));
    let (mut queries, mut hits, mut correct) = (0, 0, 0);
    for (i, t) in txns.iter().enumerate() {
        if !t.is_predict() {
            continue;
        }
        queries += 1;
        if resp[i]["hit"] != serde_json::Value::Bool(true) {
            continue;
        }
        hits += 1;
        let Some(OtTxn::Observe { addr, .. }) = txns.get(i + 1) else {
            panic!("a predict is always followed by its warp's first observation");
        };
        let predicted = resp[i]["addrs"].as_array().unwrap();
        if predicted.iter().any(|a| a.as_u64() == Some(*addr)) {
            correct += 1;
        }
    }
    (queries, hits, correct)
}

#[test]
fn every_builtin_runs_through_the_ot_on_both_presets() {
    for preset in ["fermi-gtx480", "tiny"] {
        let s = spec(preset, &[]);
        for name in BUILTIN {
            let k = builtin(name).unwrap();
            let (q, h, c) = ot_quality(&k, &s, 1);
            let pcov = h as f64 / q as f64;
            let acc = if h == 0 { 0.0 } else { c as f64 / h as f64 };
            println!(
                "{preset:>13} {name:>10}: queries {q:>6} hits {h:>6} PCOV {pcov:.3} accuracy \
                {acc:.3}"
            );
            if preset == "fermi-gtx480" {
                match *name {
                    "cp" | "stencil2d" | "scalarprod" | "matmul3d" => {
                        assert!(pcov > 0.5, "{name}: PCOV {pcov}");
                        assert!(acc > 0.9, "{name}: accuracy {acc}");
                    }
                    _ => {}
                }
            }
        }
    }
}

proptest! {
    /// `ot_stimulus` accepts exactly the kernels the table's fields can hold, and what it accepts
    /// the model runs without an illegal input.
    #[test]
    fn ot_fit_check_agrees_with_the_model(
        k in arb_kernel(),
        tb_bits in 1u32..=2,
        grid_dims in 1u32..=3,
        warp_bits in 1u32..=4,
        seed in any::<u64>(),
    ) {
        let s = spec(
            "tiny",
            &[
                &format!("ot.tb_bits={tb_bits}"),
                &format!("ot.grid_dims={grid_dims}"),
                &format!("ot.warp_bits={warp_bits}"),
            ],
        );
        let launch = crate::ot::launch_of(
            &k.grid.map(u64::from),
            &k.block.map(u64::from),
            s.gpu.warp_size,
        )
        .unwrap();
        let model = OtModel::new(&s.ot);
        let fits = model
            .check(&crate::ot::OtIn { launch: Some(launch), ..Default::default() })
            .is_ok();
        match ot_stimulus(&k, &s, seed) {
            Ok(txns) => {
                prop_assert!(fits);
                let txns: Vec<OtTxn> = txns.collect();
                let mut m = model;
                prop_assert!(run(&mut m, &txns, s.gpu.warp_size).is_ok());
            }
            Err(e) => {
                prop_assert!(!fits, "rejected a kernel that fits: {}", e);
                let is_limit = matches!(e, WorkloadError::Limit { .. });
                prop_assert!(is_limit);
            }
        }
    }
}
