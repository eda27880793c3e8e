//! Directed tests of the Warped-MC block (seed 004 Algorithm 1): priority classes, the
//! highest-score row on a row miss, two-level bank priority, counter saturation, and the shared
//! warp entry table. Preset `tiny`: 2 controllers share a WET, 4 banks, 8 candidates, 3-bit
//! pending counters, 3-bit scores, 8 tracked rows.

use super::*;
use spec::ConfigRequest;

fn block() -> WarpedMc {
    let spec = ConfigRequest::preset("tiny").resolve().unwrap();
    WarpedMc::new(&spec.wmc)
}

/// A cycle with no events, no candidates and every bank closed and unready.
fn idle(m: &WarpedMc) -> WmcIn {
    let s = m.spec();
    WmcIn {
        enq: vec![None; s.wet_ctrls as usize],
        svc: vec![None; s.wet_ctrls as usize],
        ctrl: (0..s.controllers_per_wet)
            .map(|_| CtrlIn {
                act: None,
                cands: vec![None; s.candidates as usize],
                bank_open: 0,
                cas_ready: 0,
                pre_ready: 0,
                act_ready: 0,
            })
            .collect(),
    }
}

fn enq(warp: u32) -> Option<Enq> {
    Some(Enq { sm: 0, warp, pc: 0 })
}

fn hit(gwid: u32, bank: u32, row: u32, slot: u32) -> Option<Cand> {
    Some(Cand {
        gwid,
        bank,
        row,
        slot,
        hit: true,
    })
}

fn miss(gwid: u32, bank: u32, row: u32) -> Option<Cand> {
    Some(Cand {
        gwid,
        bank,
        row,
        slot: 0,
        hit: false,
    })
}

/// Enqueue `n` requests of `warp` on controller `c`, one per cycle.
fn fill(m: &mut WarpedMc, c: usize, warp: u32, n: u32) {
    for _ in 0..n {
        let mut i = idle(m);
        i.enq[c] = enq(warp);
        m.step(&i).unwrap();
    }
}

/// Banks `open` of controller `c` are open and every command is ready on every bank.
fn ready(i: &mut WmcIn, c: usize, open: &[usize]) {
    let x = &mut i.ctrl[c];
    x.bank_open = open.iter().map(|&b| 1u64 << b).fold(0, |a, b| a | b);
    // Every bank of the (tiny) test block.
    x.cas_ready = crate::block::mask(block().spec().banks);
    x.pre_ready = x.cas_ready;
    x.act_ready = x.cas_ready;
}

#[test]
fn the_last_pending_request_of_a_warp_is_h_hits_of_the_warp_served_last_m_others_l() {
    let mut m = block();
    fill(&mut m, 0, 1, 2); // warp 1: two pending
    fill(&mut m, 1, 2, 1); // warp 2: one pending, on the other controller (shared WET)
    fill(&mut m, 0, 3, 3); // warp 3: three pending
    assert_eq!((m.pending(1), m.pending(2), m.pending(3)), (2, 1, 3));
    let mut i = idle(&m);
    ready(&mut i, 0, &[0]);
    // Oldest first: warp 1 hits, warp 1 misses, warp 3 hits, warp 2 hits.
    i.ctrl[0].cands[0] = hit(1, 0, 5, 0);
    i.ctrl[0].cands[1] = miss(1, 1, 9);
    i.ctrl[0].cands[2] = hit(3, 0, 5, 2);
    i.ctrl[0].cands[3] = hit(2, 0, 5, 3);
    let out = m.clone().step(&i).unwrap().clone();
    let cls = &out.ctrl[0].class;
    assert_eq!(
        &cls[..5],
        &[Class::L, Class::L, Class::L, Class::H, Class::None]
    );
    // FR-FCFS would serve the oldest hit; Warped-MC serves warp 2's last request first.
    assert_eq!(out.ctrl[0].sel, Some((0, BankCmd::Cas, 3, 0)));
    // Controller 0 services a request of warp 3 (reported next cycle): warp 3 keeps two
    // pending, and its further row hits become M, ahead of the older L hit of warp 1.
    let mut s = idle(&m);
    s.svc[0] = Some(3);
    m.step(&s).unwrap();
    assert_eq!(m.pending(3), 2);
    i.ctrl[0].cands[3] = None;
    let out = m.clone().step(&i).unwrap().clone();
    assert_eq!(&out.ctrl[0].class[..3], &[Class::L, Class::L, Class::M]);
    assert_eq!(out.ctrl[0].sel, Some((0, BankCmd::Cas, 2, 0)));
    // A service on the other controller does not make warp 1's hits M on controller 0.
    let mut s = idle(&m);
    s.svc[1] = Some(1);
    s.enq[1] = enq(1);
    m.step(&s).unwrap();
    assert_eq!(m.pending(1), 2);
    let out = m.step(&i).unwrap();
    assert_eq!(&out.ctrl[0].class[..3], &[Class::L, Class::L, Class::M]);
}

#[test]
fn among_equal_classes_the_oldest_hit_is_served() {
    let mut m = block();
    fill(&mut m, 0, 1, 2);
    fill(&mut m, 0, 2, 2);
    let mut i = idle(&m);
    ready(&mut i, 0, &[2]);
    i.ctrl[0].cands[3] = hit(2, 2, 4, 1);
    i.ctrl[0].cands[5] = hit(1, 2, 4, 2);
    let out = m.step(&i).unwrap();
    assert_eq!(out.ctrl[0].sel, Some((2, BankCmd::Cas, 3, 0)));
}

/// Service of a warp's request leaving one pending request that misses: that row scores.
fn bump(m: &mut WarpedMc, warp: u32, bank: u32, row: u32) {
    fill(m, 0, warp, 2);
    let mut i = idle(m);
    i.svc[0] = Some(warp);
    i.ctrl[0].cands[0] = miss(warp, bank, row);
    m.step(&i).unwrap();
    // Its last request is served too (not a scoring event: the warp has none left).
    let mut i = idle(m);
    i.svc[0] = Some(warp);
    m.step(&i).unwrap();
    assert_eq!(m.pending(warp), 0);
}

#[test]
fn a_row_miss_opens_the_highest_scoring_row_and_activation_clears_it() {
    let mut m = block();
    bump(&mut m, 3, 1, 6);
    assert_eq!(m.score(0, 1, 6), 1);
    assert_eq!(m.score(0, 1, 2), 0);
    assert_eq!(m.score(1, 1, 6), 0, "scores are per controller");
    let mut i = idle(&m);
    ready(&mut i, 0, &[]);
    i.ctrl[0].cands[0] = miss(4, 1, 2); // oldest, score 0
    i.ctrl[0].cands[1] = miss(5, 1, 6); // score 1
    let out = m.step(&i).unwrap().clone();
    assert_eq!(out.ctrl[0].open[1], Some((6, 1)));
    assert_eq!(out.ctrl[0].sel, Some((1, BankCmd::Act, 1, 6)));
    // With the bank open on another row it precharges first.
    let mut i2 = i.clone();
    i2.ctrl[0].bank_open |= 1 << 1;
    assert_eq!(
        m.clone().step(&i2).unwrap().ctrl[0].sel,
        Some((1, BankCmd::Pre, 0, 0))
    );
    // The activation is reported next cycle and clears the score; ties go to the oldest.
    let mut j = idle(&m);
    j.ctrl[0].act = Some((1, 6));
    m.step(&j).unwrap();
    assert_eq!(m.score(0, 1, 6), 0);
    let out = m.step(&i).unwrap();
    assert_eq!(out.ctrl[0].open[1], Some((2, 0)));
}

#[test]
fn tracked_rows_alias_modulo_the_table_size() {
    let mut m = block();
    bump(&mut m, 3, 0, 1);
    assert_eq!(
        m.score(0, 0, 1 + 8),
        1,
        "8 tracked rows: row 9 shares row 1's score"
    );
}

#[test]
fn counters_saturate_at_both_ends() {
    let mut m = block();
    let max = m.spec().pending_max;
    assert_eq!(max, 7);
    fill(&mut m, 0, 6, max + 3);
    assert_eq!(m.pending(6), max, "the pending counter saturates");
    for _ in 0..max + 3 {
        let mut i = idle(&m);
        i.svc[1] = Some(6);
        m.step(&i).unwrap();
    }
    assert_eq!(m.pending(6), 0, "and does not wrap below zero");
    let smax = m.spec().score_max;
    for _ in 0..smax + 2 {
        bump(&mut m, 7, 3, 3);
    }
    assert_eq!(m.score(0, 3, 3), smax, "row scores saturate");
}

#[test]
fn enqueue_and_service_of_one_warp_in_one_cycle_cancel() {
    let mut m = block();
    fill(&mut m, 0, 1, 3);
    let mut i = idle(&m);
    i.enq[0] = enq(1);
    i.svc[1] = Some(1);
    m.step(&i).unwrap();
    assert_eq!(m.pending(1), 3);
    let mut i = idle(&m);
    i.enq[0] = enq(1);
    i.enq[1] = enq(1);
    m.step(&i).unwrap();
    assert_eq!(m.pending(1), 5, "both controllers' enqueues count");
}

#[test]
fn banks_holding_h_requests_are_served_first_then_round_robin() {
    let mut m = block();
    fill(&mut m, 0, 1, 2); // warp 1: M hits
    fill(&mut m, 0, 2, 1); // warp 2: H hit
    let mut i = idle(&m);
    ready(&mut i, 0, &[0, 1, 2, 3]);
    i.ctrl[0].cands[0] = hit(1, 0, 1, 0);
    i.ctrl[0].cands[1] = hit(1, 1, 1, 1);
    i.ctrl[0].cands[2] = hit(2, 3, 1, 2);
    // First cycle: the priority table is still empty, so plain round robin from bank 0.
    let out = m.step(&i).unwrap().clone();
    assert_eq!(out.ctrl[0].sel, Some((0, BankCmd::Cas, 0, 0)));
    // Next cycle: bank 3 holds an H request (priority table), so it goes before banks 0 and 1.
    let out = m.step(&i).unwrap().clone();
    assert_eq!(out.ctrl[0].sel, Some((3, BankCmd::Cas, 2, 0)));
    // Without H requests, the lowest bank from the round-robin pointer wins; the pointer
    // moves past a bank after a row command (ACT on bank 1 here).
    let mut m = block();
    fill(&mut m, 0, 1, 4);
    let mut i = idle(&m);
    ready(&mut i, 0, &[0]);
    i.ctrl[0].cands[0] = hit(1, 0, 1, 0);
    i.ctrl[0].cands[1] = miss(1, 1, 1);
    assert_eq!(
        m.step(&i).unwrap().ctrl[0].sel,
        Some((0, BankCmd::Cas, 0, 0))
    );
    i.ctrl[0].cands[0] = None;
    assert_eq!(
        m.step(&i).unwrap().ctrl[0].sel,
        Some((1, BankCmd::Act, 1, 1))
    );
    i.ctrl[0].cands[0] = hit(1, 0, 1, 0);
    assert_eq!(
        m.step(&i).unwrap().ctrl[0].sel,
        Some((0, BankCmd::Cas, 0, 0)),
        "after bank 1, the pointer is at 2: banks 2, 3, 0 come before 1"
    );
    i.ctrl[0].cands[2] = miss(1, 2, 7);
    assert_eq!(
        m.step(&i).unwrap().ctrl[0].sel,
        Some((2, BankCmd::Act, 2, 7))
    );
}

#[test]
fn a_priority_table_of_the_largest_legal_width_works() {
    // warped_mc.pt_slots is legal up to 1024: an H hit in a slot above 64 puts its bank in the
    // high-priority pool like any other (the table is a bit matrix of pt_slots-bit rows).
    let spec = ConfigRequest::preset("tiny")
        .with("warped_mc.pt_slots=1024")
        .resolve()
        .unwrap();
    let mut m = WarpedMc::new(&spec.wmc);
    fill(&mut m, 0, 1, 2); // warp 1: M hits
    fill(&mut m, 0, 2, 1); // warp 2: H hit
    let mut i = idle(&m);
    ready(&mut i, 0, &[0, 1, 2, 3]);
    i.ctrl[0].cands[0] = hit(1, 0, 1, 0);
    i.ctrl[0].cands[1] = hit(2, 3, 1, 1000);
    m.step(&i).unwrap();
    let out = m.step(&i).unwrap();
    assert_eq!(out.ctrl[0].sel, Some((3, BankCmd::Cas, 1, 0)));
}

#[test]
fn a_bank_not_ready_is_passed_over() {
    let mut m = block();
    fill(&mut m, 0, 1, 1);
    let mut i = idle(&m);
    ready(&mut i, 0, &[0]);
    i.ctrl[0].cas_ready &= !1;
    i.ctrl[0].cands[0] = hit(1, 0, 1, 0);
    i.ctrl[0].cands[1] = miss(1, 2, 3);
    let out = m.step(&i).unwrap();
    assert_eq!(out.ctrl[0].sel, Some((2, BankCmd::Act, 1, 3)));
}

#[test]
fn illegal_inputs_are_refused() {
    let mut m = block();
    let mut i = idle(&m);
    i.ctrl[0].cands[0] = hit(1, 0, 1, 0);
    assert!(m.step(&i).is_err(), "a hit on a closed bank");
    let mut i = idle(&m);
    i.svc[0] = Some(m.spec().wet_entries);
    assert!(m.step(&i).is_err(), "a warp id out of range");
    let mut i = idle(&m);
    i.ctrl.pop();
    assert!(m.step(&i).is_err(), "too few controllers");
}

mod absorb_equivalence {
    use super::*;
    use proptest::prelude::*;

    /// One cycle of random stimulus: whether banks may be ready, the scope's enqueues
    /// (sm, warp, pc) and services, the own activations, and new windows for the controllers
    /// allowed to change theirs after this cycle.
    type Cycle = (
        bool,
        Vec<Option<(u32, u32, u64)>>,
        Vec<Option<u32>>,
        Vec<Option<(u32, u32)>>,
        Vec<Vec<Option<(u32, u32, u32, u32, bool)>>>,
        Vec<bool>,
    );

    fn cycle() -> impl Strategy<Value = Cycle> {
        // tiny: 2 controllers, one WET scope of 2, 4 banks, 8 candidates; warp ids are kept
        // small so that warps collide and counters run both ways.
        let enq = prop::option::weighted(0.4, (0u32..2, 0u32..3, 0u64..8));
        let svc = prop::option::weighted(0.4, 0u32..6);
        let act = prop::option::weighted(0.2, (0u32..4, 0u32..16));
        let cand = prop::option::of((0u32..6, 0u32..4, 0u32..16, 0u32..8, any::<bool>()));
        (
            prop::bool::weighted(0.3),
            prop::collection::vec(enq, 2),
            prop::collection::vec(svc, 2),
            prop::collection::vec(act, 2),
            prop::collection::vec(prop::collection::vec(cand, 8), 2),
            prop::collection::vec(any::<bool>(), 8),
        )
    }

    proptest! {
        /// A block that absorbs the cycles in which no bank is ready (and is evaluated in the
        /// others) makes exactly the decisions of one evaluated every cycle, with its own WET
        /// and with a WET kept outside it (`step_shared` / `absorb_shared`, as the memory
        /// system keeps one per scope). Windows change only after a controller enqueued or
        /// after an evaluated cycle, as `absorb` requires.
        #[test]
        fn absorbing_unready_cycles_is_stepping_them(
            cycles in prop::collection::vec(cycle(), 1..80),
        ) {
            let mut every = block();
            let mut lazy = block();
            let mut shared = block();
            let mut wet = Wet::new(every.spec());
            let mut inp = idle(&every);
            for (ready, enqs, svcs, acts, windows, readiness) in cycles {
                for (c, e) in enqs.iter().enumerate() {
                    inp.enq[c] = e.map(|(sm, warp, pc)| Enq { sm, warp, pc });
                }
                inp.svc = svcs.clone();
                for (c, &act) in acts.iter().enumerate().take(2) {
                    let x = &mut inp.ctrl[c];
                    x.act = act;
                    let bits = |f: &dyn Fn(usize) -> bool| {
                        (0..4).fold(0u64, |m, b| m | u64::from(ready && f(b)) << b)
                    };
                    x.cas_ready = bits(&|b| readiness[b]);
                    x.pre_ready = bits(&|b| readiness[b + 4]);
                    x.act_ready = bits(&|b| readiness[(b + 1) % 8]);
                }
                let full = every.step_trusted(&inp).clone();
                let mut sum: Vec<(u32, i64)> = Vec::new();
                let ev = inp.enq.iter().flatten().map(|e| (lazy.gwid(e.sm, e.warp, e.pc), 1));
                for (g, d) in ev.chain(inp.svc.iter().flatten().map(|&g| (g, -1))) {
                    Wet::add(&mut sum, g, d);
                }
                wet.stage(&sum);
                if ready {
                    let out = lazy.step_trusted(&inp).clone();
                    prop_assert_eq!(&full, &out);
                    // The scope's services in any order.
                    let svc: Vec<u32> = inp.svc.iter().rev().flatten().copied().collect();
                    let out = shared.step_shared(&inp, &svc, &wet).clone();
                    let sel = |o: &WmcOut| o.ctrl.iter().map(|c| c.sel).collect::<Vec<_>>();
                    prop_assert_eq!(sel(&full), sel(&out), "with the WET outside the block");
                } else {
                    prop_assert!(full.ctrl.iter().all(|c| c.sel.is_none()));
                    let svc: Vec<u32> = inp.svc.iter().flatten().copied().collect();
                    let own: Vec<OwnEvents> = (0..2)
                        .map(|c| OwnEvents {
                            enq: inp.enq[c].is_some(),
                            svc: inp.svc[c],
                            act: inp.ctrl[c].act,
                        })
                        .collect();
                    let cands: Vec<_> = inp.ctrl.iter().map(|x| x.cands.clone()).collect();
                    lazy.absorb(&sum, &svc, &own, &cands);
                    shared.absorb_shared(&svc, &own, &cands, &wet);
                }
                wet.commit();
                prop_assert_eq!(every.wet().values(), wet.values());
                for c in 0..2 {
                    prop_assert_eq!(every.pending(c as u32), lazy.pending(c as u32));
                }
                // Windows may change after an evaluated cycle or an enqueue of their controller.
                for (c, w) in windows.iter().enumerate() {
                    if ready || inp.enq[c].is_some() {
                        let x = &mut inp.ctrl[c];
                        x.cands.fill(None);
                        x.bank_open = 0;
                        for (k, (gwid, bank, row, slot, hit)) in
                            w.iter().flatten().copied().enumerate()
                        {
                            x.cands[k] = Some(Cand { gwid, bank, row, slot, hit });
                            x.bank_open |= u64::from(hit) << bank;
                        }
                    }
                }
            }
        }
    }
}
