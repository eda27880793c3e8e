use golden::block::CycleModel;
use golden::ot::{OtModel, Packer};
use golden::spec::{Block, ConfigRequest};
use sim::lockstep::{Lockstep, StepFail};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let preset = &args[1];
    let cycles: u64 = args[2].parse().unwrap();
    let spec = ConfigRequest::preset(preset).resolve().unwrap();
    let g = rtlgen::generate(&spec, Block::Ot).unwrap();
    let files: Vec<(String, String)> = g
        .files
        .iter()
        .map(|f| (f.name.clone(), f.contents.clone()))
        .collect();
    let ports = spec.ot.ports();
    let v = sim::toolchain::Verilator::find().unwrap();
    let b = sim::build::build(
        &v,
        &sim::build::BuildRequest {
            files: &files,
            top: &g.top,
            ports: &ports,
            trace: false,
        },
    )
    .unwrap();
    println!("build {:.1}s (new: {})", b.seconds, b.built_now);
    let rtl = sim::model::Model::load(&b, &ports).unwrap();
    let golden = OtModel::new(&spec.ot);
    let mut ls = Lockstep::new(golden, rtl).unwrap();
    let t = Instant::now();
    let mut n = 0u64;
    let mut hist = std::collections::BTreeMap::new();
    for c in Packer::new(golden::ot::random::RandomOt::new(&spec, 1)) {
        let inp = c.input(32).unwrap();
        match ls.step(&inp) {
            Ok(o) => {
                if o.upd_valid {
                    *hist.entry(o.upd_event.name()).or_insert(0u64) += 1;
                }
                if o.pred_valid {
                    *hist
                        .entry(if o.pred_hit { "pred_hit" } else { "pred_miss" })
                        .or_insert(0) += 1;
                }
            }
            Err(StepFail::Mismatch(m)) => {
                println!(
                    "MISMATCH at {}: {} exp {} act {}\n{:?}",
                    m.cycle, m.port, m.expected, m.actual, m.ports
                );
                println!("input {:?}", inp);
                return;
            }
            Err(e) => {
                println!("fail {:?}", e);
                return;
            }
        }
        n += 1;
        if n >= cycles {
            break;
        }
    }
    let dt = t.elapsed().as_secs_f64();
    println!("{} cycles in {:.2}s = {:.0} cycles/s", n, dt, n as f64 / dt);
    println!("{:?}", hist);
    let _ = ls.golden.ports();
}
