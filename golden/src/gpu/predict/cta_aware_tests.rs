//! Worked examples of the CTA-aware predictor on `tiny` (4 SMs, 4 blocks per SM, 2 lines per
//! base, an SM stops predicting a load past 3 mispredicts).

use super::*;
use crate::ot::{OtTxn, MAX_DIMS};

const PC: u64 = 0x40;
/// Lines one warp apart.
const STRIDE: u64 = 0x80;

fn predictor() -> CtaAware {
    let s = spec::ConfigRequest::preset("tiny")
        .resolve()
        .unwrap()
        .variant(&["predictor.kind=cta-aware"])
        .unwrap();
    let mut p = CtaAware::new(&s);
    let launch = OtTxn::Launch {
        grid: vec![8, 1, 1],
        block: vec![256, 1, 1],
    };
    p.feed([(0, GpuTxn::Launch(launch))].into_iter());
    p
}

fn tb(x: u32) -> [u32; MAX_DIMS] {
    [x, 0, 0]
}

/// Warp `warp` of block `block` on SM `sm` runs load `PC` (its `lec`th time) and observes
/// `lines`; returns the lines it was predicted to name.
fn load(p: &mut CtaAware, sm: u32, block: u32, warp: u32, lines: &[u64]) -> Option<Vec<u64>> {
    let q = Query {
        pc: PC,
        lec: 0,
        tb: tb(block),
        warp,
    };
    let before = p.figures();
    p.feed([(sm, GpuTxn::Predict(q))].into_iter());
    let hit = p.figures().hits > before.hits;
    let predicted = p.sms[sm as usize]
        .blocks
        .iter()
        .find(|b| b.tb == tb(block))
        .and_then(|b| {
            b.open
                .iter()
                .find(|i| i.warp == warp && i.pc == PC)
                .and_then(|i| i.predicted.clone())
        });
    assert_eq!(hit, predicted.is_some());
    let obs = lines.iter().map(|&addr| {
        (
            sm,
            GpuTxn::Observe(Observe {
                pc: PC,
                lec: 0,
                tb: tb(block),
                warp,
                addr,
            }),
        )
    });
    p.feed(obs.collect::<Vec<_>>().into_iter());
    predicted
}

/// Block `b`'s warp `w` reads two lines from `0x10000 * (b + 1) + w * STRIDE`.
fn lines(b: u32, w: u32) -> [u64; 2] {
    let a = 0x10000 * u64::from(b + 1) + u64::from(w) * STRIDE;
    [a, a + 0x1000]
}

#[test]
fn trailing_warps_are_predicted_from_their_leading_warps_base_and_the_stride() {
    let mut p = predictor();
    // Nothing is known: the leading warp of block 0 is not predicted, nor is warp 1, which
    // teaches the stride.
    assert_eq!(load(&mut p, 0, 0, 0, &lines(0, 0)), None);
    assert_eq!(load(&mut p, 0, 0, 1, &lines(0, 1)), None);
    // Warp 3 of block 0: base + 3 strides, both lines.
    assert_eq!(
        load(&mut p, 0, 0, 3, &lines(0, 3)),
        Some(lines(0, 3).to_vec())
    );
    // Block 1: no prediction until its leading warp has run the load (the first-warp rule),
    // then the SM's stride serves it.
    assert_eq!(load(&mut p, 0, 1, 2, &lines(1, 2)), None);
    assert_eq!(load(&mut p, 0, 1, 0, &lines(1, 0)), None);
    assert_eq!(
        load(&mut p, 0, 1, 5, &lines(1, 5)),
        Some(lines(1, 5).to_vec())
    );
    let f = p.figures();
    assert_eq!((f.queries, f.hits, f.resolved, f.correct), (6, 2, 2, 2));
    // Another SM learns on its own: its first trailing warp is not predicted.
    assert_eq!(load(&mut p, 1, 4, 0, &lines(4, 0)), None);
    assert_eq!(load(&mut p, 1, 4, 2, &lines(4, 2)), None);
    assert_eq!(
        load(&mut p, 1, 4, 3, &lines(4, 3)),
        Some(lines(4, 3).to_vec())
    );
}

#[test]
fn an_sm_stops_predicting_a_load_past_its_own_threshold_and_the_others_go_on() {
    let mut p = predictor();
    for sm in 0..2 {
        load(&mut p, sm, sm, 0, &lines(sm, 0));
        load(&mut p, sm, sm, 1, &lines(sm, 1));
    }
    // SM 0's block 0 jumps: four trailing warps are mispredicted; the threshold is 3.
    for w in 2..6 {
        let wrong = lines(0, w).map(|a| a + 0x4_0000);
        assert!(load(&mut p, 0, 0, w, &wrong).is_some(), "warp {w}");
    }
    assert_eq!(load(&mut p, 0, 0, 6, &lines(0, 6)), None);
    // SM 1 goes on predicting the same load.
    assert_eq!(
        load(&mut p, 1, 1, 6, &lines(1, 6)),
        Some(lines(1, 6).to_vec())
    );
    let f = p.figures();
    assert_eq!((f.resolved, f.correct), (5, 1));
    assert_eq!(f.per_load.len(), 1);
    assert_eq!((f.per_load[0].pc, f.per_load[0].hits), (PC, 5));
}

#[test]
fn a_newer_base_mispredicts_a_warp_in_an_older_iteration() {
    // Without the LEC, the leading warp's second iteration replaces the base its block's
    // trailing warps still need for the first.
    let mut p = predictor();
    load(&mut p, 0, 0, 0, &lines(0, 0));
    load(&mut p, 0, 0, 1, &lines(0, 1));
    let next = |a: u64| a + 0x8000;
    load(&mut p, 0, 0, 0, &lines(0, 0).map(next));
    assert_eq!(
        load(&mut p, 0, 0, 2, &lines(0, 2)),
        Some(lines(0, 2).map(next).to_vec())
    );
    let f = p.figures();
    assert_eq!((f.resolved, f.correct), (1, 0));
}

#[test]
fn a_launch_forgets_every_table() {
    let mut p = predictor();
    load(&mut p, 0, 0, 0, &lines(0, 0));
    load(&mut p, 0, 0, 1, &lines(0, 1));
    let launch = OtTxn::Launch {
        grid: vec![8, 1, 1],
        block: vec![256, 1, 1],
    };
    p.feed([(0, GpuTxn::Launch(launch))].into_iter());
    assert_eq!(load(&mut p, 0, 0, 2, &lines(0, 2)), None);
}
