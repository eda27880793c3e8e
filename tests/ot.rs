//! The OT predictor's RTL under Verilator: its assertions, interface binding, co-simulation
//! statistics on every preset, its mutants on every preset, the failure report, waves, bench.

mod common;
use common::*;
use golden::block::{Codec, CycleModel, Frame};
use golden::ot::{launch_of, Observe, OtCodec, OtIn, OtModel};
use serde_json::Value;
use sim::build::{build, BuildRequest};
use sim::harness::CosimOptions;
use sim::report::Verdict;
use sim::toolchain::Verilator;
use sim::SimError;
use spec::Dir;

fn ot_entry() -> &'static sim::registry::BlockEntry {
    sim::blocks::find("ot").unwrap()
}

fn verilator() -> Verilator {
    Verilator::find().expect("Verilator >= 5.006 (run scripts/setup.sh)")
}

fn files_of(spec: &spec::Spec) -> (String, Vec<(String, String)>) {
    let g = ot_entry().generate(spec, "").unwrap();
    (g.top.clone(), g.rtl())
}

fn model(spec: &spec::Spec) -> sim::model::Model {
    sim::rtl::block_model(spec, ot_entry(), None, false)
        .unwrap()
        .1
}

#[test]
fn an_illegal_input_fires_a_named_assertion() {
    let spec = spec("tiny", &[]);
    let ports = spec.ot.ports();
    let mut rtl = model(&spec);
    rtl.reset().unwrap();
    let mut golden = OtModel::new(&spec.ot);
    let codec = OtCodec::new(&spec.ot).unwrap();
    let mut inp = Frame::new(&ports, Dir::In);
    let mut out = Frame::new(&ports, Dir::Out);
    // A 2x1x1 grid ...
    let launch = OtIn {
        launch: Some(launch_of(&[2], &[32], 32).unwrap()),
        ..Default::default()
    };
    golden.step(&launch).unwrap();
    codec.encode_in(&launch, &mut inp);
    rtl.step(&inp, &mut out).unwrap();
    // ... then a legal request: no assertion.
    let ok = OtIn {
        observe: Some(Observe {
            pc: 8,
            lec: 0,
            tb: [1, 0, 0],
            warp: 0,
            addr: 64,
        }),
        ..Default::default()
    };
    codec.encode_in(&ok, &mut inp);
    rtl.step(&inp, &mut out).unwrap();
    // ... then a request from block x = 5, outside the grid. The golden model refuses it too.
    let bad = OtIn {
        observe: Some(Observe {
            pc: 8,
            lec: 0,
            tb: [5, 0, 0],
            warp: 0,
            addr: 64,
        }),
        ..Default::default()
    };
    assert!(golden.check(&bad).is_err());
    codec.encode_in(&bad, &mut inp);
    match rtl.step(&inp, &mut out) {
        Err(SimError::Assertion(msg)) => {
            assert!(
                msg.contains("ObsTbInGrid_A"),
                "assertion name missing: {msg}"
            );
            assert!(
                msg.contains("obs_tb_i lies outside the launched grid"),
                "message missing: {msg}"
            );
        }
        other => panic!("expected the ObsTbInGrid_A assertion, got {other:?}"),
    }
    // Reset clears the failure and the model runs on.
    rtl.reset().unwrap();
    codec.encode_in(&ok, &mut inp);
    rtl.step(&inp, &mut out).unwrap();
}

#[test]
fn binding_checks_ports_against_the_spec() {
    let spec = spec("tiny", &[]);
    let (top, files) = files_of(&spec);
    // Ports of another configuration: the address port is wider in the spec than in the RTL.
    let other = common::spec("tiny", &["ot.addr_bits=30"]);
    let ports = other.ot.ports();
    match build(
        &verilator(),
        &BuildRequest {
            files: &files,
            top: &top,
            ports: &ports,
            trace: false,
        },
    ) {
        Err(SimError::PortMismatch(m)) => {
            assert!(
                m.contains("obs_addr_i") && m.contains("30 bits") && m.contains("24 bits"),
                "{m}"
            );
        }
        other => panic!("expected a port mismatch, got {other:?}"),
    }
}

#[test]
fn every_preset_cosimulates_random_and_kernel_stimulus_and_learns() {
    for p in spec::PRESETS {
        let s = spec(p.name, &[]);
        for stim in ["random", "kernel:cp", "kernel:stencil2d"] {
            let r = ot_entry()
                .cosim(&s, &CosimOptions::quiet(stim, Some(30_000), 3))
                .unwrap();
            assert_eq!(
                r.verdict,
                Verdict::Pass,
                "{} {stim}: {:?}",
                p.name,
                r.failure
            );
            assert_eq!(r.stats["cycles"], 30_000);
            assert!(
                r.stats["hits"].as_u64().unwrap() > 0
                    && r.stats["events"]["learn"].as_u64().unwrap() > 0,
                "{} {stim}: nothing learned: {}",
                p.name,
                r.stats
            );
        }
    }
}

#[test]
fn every_mutant_is_caught_on_every_preset() {
    for p in spec::PRESETS {
        let o = warpsmith(&[
            "mutants", "--block", "ot", "--preset", p.name, "--format", "json",
        ]);
        let r: Value =
            serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("{}", stderr(&o)));
        assert_eq!(r["caught"], r["total"], "{}: {r:#}", p.name);
        assert!(r["total"].as_u64().unwrap() >= 6);
        assert!(o.status.success());
    }
}

#[test]
fn a_mismatch_reports_port_values_reproducer_and_waves() {
    let d = scratch("mismatch");
    let o = warpsmith(&[
        "cosim",
        "--block",
        "ot",
        "--preset",
        "tiny",
        "--mutant",
        "stride-sign-flipped",
        "--seed",
        "4",
        "--out-dir",
        d.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let f = &r["failure"];
    assert_eq!(f["kind"], "mismatch");
    assert!(f["cycle"].as_u64().unwrap() > 0);
    assert_ne!(f["expected"], f["actual"]);
    assert!(!f["last_items"].as_array().unwrap().is_empty());
    let reproduce = f["reproduce"].as_str().unwrap();
    assert!(
        reproduce.contains("--seed 4") && reproduce.contains("--mutant stride-sign-flipped"),
        "{reproduce}"
    );
    // The minimal reproducer is small, fails with the mutant, and passes without it.
    let repro = f["reproducer"]["path"].as_str().unwrap();
    let hash = spec("tiny", &[]).hash.to_string();
    assert!(
        repro.contains(&format!("ot-{hash}-random-seed4-stride-sign-flipped")),
        "named by block, config hash, stimulus, seed and mutant: {repro}"
    );
    let n = f["reproducer"]["items"].as_u64().unwrap();
    assert!(n <= 12, "reproducer has {n} transactions");
    let again = warpsmith(&[
        "cosim",
        "--block",
        "ot",
        "--preset",
        "tiny",
        "--mutant",
        "stride-sign-flipped",
        "--stimulus",
        repro,
        "--no-shrink",
    ]);
    assert_eq!(again.status.code(), Some(1), "{}", stdout(&again));
    let clean = warpsmith(&[
        "cosim",
        "--block",
        "ot",
        "--preset",
        "tiny",
        "--stimulus",
        repro,
    ]);
    assert_eq!(clean.status.code(), Some(0), "{}", stdout(&clean));
    let vcd = std::fs::read_to_string(f["reproducer"]["vcd"].as_str().unwrap()).unwrap();
    assert!(vcd.contains("$enddefinitions") && vcd.contains("upd_event_o"));
    // The text report says the same.
    let t = warpsmith(&[
        "cosim",
        "--block",
        "ot",
        "--preset",
        "tiny",
        "--mutant",
        "stride-sign-flipped",
        "--seed",
        "4",
        "--no-shrink",
    ]);
    let s = stdout(&t);
    assert!(
        s.contains("FAIL  mismatch at cycle")
            && s.contains("reproduce: warpsmith cosim")
            && s.contains("<--"),
        "{s}"
    );
}

#[test]
fn waves_of_a_whole_run() {
    let d = scratch("waves");
    let w = d.join("run.vcd");
    let o = warpsmith(&[
        "cosim",
        "--block",
        "ot",
        "--preset",
        "tiny",
        "--cycles",
        "200",
        "--waves",
        w.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let vcd = std::fs::read_to_string(&w).unwrap();
    assert!(vcd.contains("pred_addr_o") && vcd.matches('#').count() >= 400);
}

#[test]
fn bench_reports_every_measurement_as_a_ratio() {
    let r = bench_report("ot", 20_000);
    let m = r["measures"].as_array().unwrap();
    assert_eq!(m.len(), 4);
    assert_eq!(m[0]["ratio"], 1.0, "the plain C++ loop is the reference");
    for row in m {
        assert!(row["cycles_per_second"].as_f64().unwrap() > 0.0, "{row}");
        assert_eq!(row["cycles"], 20_000);
    }
    assert_eq!(r["cosim_ratio"], m[2]["ratio"]);
}

#[test]
fn two_instances_of_one_model_on_one_thread_stay_independent() {
    let spec = spec("tiny", &[]);
    let ports = spec.ot.ports();
    let codec = OtCodec::new(&spec.ot).unwrap();
    let mut inp = Frame::new(&ports, Dir::In);
    let mut out = Frame::new(&ports, Dir::Out);
    for drop_newest_first in [true, false] {
        let mut a = model(&spec);
        let mut b = model(&spec);
        a.reset().unwrap();
        b.reset().unwrap();
        // An illegal input on b fires b's assertion only.
        let launch = OtIn {
            launch: Some(launch_of(&[2], &[32], 32).unwrap()),
            ..Default::default()
        };
        codec.encode_in(&launch, &mut inp);
        b.step(&inp, &mut out).unwrap();
        let bad = OtIn {
            observe: Some(Observe {
                pc: 8,
                lec: 0,
                tb: [5, 0, 0],
                warp: 0,
                addr: 64,
            }),
            ..Default::default()
        };
        codec.encode_in(&bad, &mut inp);
        assert!(matches!(
            b.step(&inp, &mut out),
            Err(SimError::Assertion(_))
        ));
        a.step(&inp, &mut out)
            .expect("a's grid is still the reset one: the request is legal there");
        if drop_newest_first {
            drop(b);
            drop(a);
        } else {
            drop(a);
            drop(b);
        }
    }
}

#[test]
fn the_predictor_cosimulates_in_place_in_the_gpu() {
    // The predictor snooping the whole GPU's load requests (kernel relaunched until the
    // budget): its RTL matches every cycle on every preset, and it predicts.
    for p in spec::PRESETS {
        let r = cosim_passes("ot", p.name, "gpu:stencil2d", 20_000);
        assert!(
            r["stats"]["hits"].as_u64().unwrap() > 100,
            "{}: {r:#}",
            p.name
        );
    }
}

#[test]
fn every_mutant_is_caught_in_place_on_every_preset() {
    // The predictor snooping the GPU: `otedge` drives its counters onto the threshold, its
    // replacement past the table's size and its stored addresses to the top bit, and
    // relaunches; it has one warp per block, so the inter-warp stride is left to `stencil2d`.
    const IWS: &str = "inter-warp-stride-not-subtracted";
    for p in spec::PRESETS {
        let mutants = |stimulus: &str, cycles: u64, only: &[&str]| {
            mutants_report("ot", p.name, stimulus, cycles, only)
        };
        let r = mutants("gpu:otedge", 300_000, &[]);
        let all = r["mutants"].as_array().unwrap();
        assert_eq!(all.len() as u64, r["total"].as_u64().unwrap());
        assert!(all.len() >= 8, "{r:#}");
        for m in all {
            assert_eq!(m["caught"], m["name"] != IWS, "{}: {m:#}", p.name);
        }
        let r = mutants("gpu:stencil2d", 20_000, &["--only", IWS]);
        assert_eq!((&r["caught"], &r["total"]), (&1.into(), &1.into()), "{r:#}");
    }
}
