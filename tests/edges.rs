//! Every block on every edge configuration (degenerate and extreme parameters on top of
//! `tiny`, common::EDGE_MATRIX): the generated RTL is lint-clean and co-simulates its first
//! `flow` stimulus with every output matching every cycle.

mod common;
use common::*;
use sim::blocks::BLOCKS;
use sim::harness::CosimOptions;
use sim::report::Verdict;
use sim::toolchain::Verilator;

#[test]
fn every_block_lints_and_cosimulates_on_every_edge_configuration() {
    let v = Verilator::find().expect("Verilator >= 5.006 (run scripts/setup.sh)");
    let mut problems = Vec::new();
    for (edge, sets) in EDGE_MATRIX {
        let spec = spec("tiny", sets);
        for block in BLOCKS {
            let g = block.generate(&spec, "").unwrap();
            let l = sim::tools::lint(&v, &g.rtl(), &g.top).unwrap();
            if !l.clean {
                problems.push(format!("{block} {edge}: lint:\n{}", l.messages));
                continue;
            }
            let stim = block.flow[0];
            match block.cosim(&spec, &CosimOptions::quiet(stim, Some(20_000), 5)) {
                Ok(r) if r.verdict == Verdict::Pass => {}
                Ok(r) => problems.push(format!(
                    "{block} {edge} {stim}: {:?} {:?} {:?}",
                    r.verdict, r.nothing_checked, r.failure
                )),
                Err(e) => problems.push(format!("{block} {edge} {stim}: {e}")),
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
