use super::*;
use crate::workload::accelsim::{Inst, KernelHeader, TraceBlock};

/// Every block of `spec` emulated whole (and the results verified): (header, block) pairs.
fn blocks_of(spec: &str) -> Vec<(KernelHeader, TraceBlock)> {
    let (w, mut app) = make(spec, 1).unwrap();
    let mut out = Vec::new();
    emulate(w.name, app.as_mut(), |h, b| out.push((h.clone(), b))).unwrap();
    out
}

#[test]
fn every_listing_parses() {
    for l in apps::listings() {
        let kernels = l.kernels().unwrap();
        assert!(!kernels.is_empty());
        assert!(kernels.iter().all(|k| !k.insts.is_empty() && k.regs > 0));
    }
}

#[test]
fn vectoradd_computes_the_sum_and_touches_each_element_once() {
    // 1,500 elements: two blocks of 1,024 threads, the second partly past the end.
    let blocks = blocks_of("vectoradd:n=1500");
    assert_eq!(blocks.len(), 2);
    let (h, _) = &blocks[0];
    assert_eq!(h.grid, [2, 1, 1]);
    assert_eq!(h.block, [1024, 1, 1]);
    // Each warp of block 1 past element 1,500 exits after the bounds check; the others load
    // a and b and store c: three memory instructions of 32 (or, at the edge, 1500 - 1472 =
    // 28) lanes.
    let mut lanes_loaded = 0u32;
    for (_, b) in &blocks {
        assert_eq!(b.warps.len(), 32);
        for w in &b.warps {
            let mem: Vec<&Inst> = w.iter().filter(|i| i.mem_bytes > 0).collect();
            if mem.is_empty() {
                continue;
            }
            assert_eq!(mem.len(), 3, "two loads and a store");
            assert!(mem.iter().all(|i| i.mem_bytes == 4));
            lanes_loaded += mem[0].mask.count_ones();
            // The lanes' addresses are consecutive words.
            let a = mem[0].addrs.to_vec();
            assert!(a.windows(2).all(|p| p[1] == p[0] + 4));
        }
    }
    assert_eq!(lanes_loaded, 1500);
}

/// Every workload at its default size, and at a second size, emulated and verified.
#[test]
fn every_workload_computes_its_results() {
    let extra = [
        "vectoradd:n=3000,dtype=f64",
        "matrixmul:rows=64",
        "matrixmul:dtype=f64",
        "simple_matrixmul:m=40,n=33,p=70",
        "simple_matrixmul:dtype=f64",
        "transpose:variant=coalesced,dim=48",
        "transpose:reps=1",
        "babelstream:times=2",
        "babelstream:dtype=f64",
    ];
    for spec in apps::ALL.iter().map(|w| w.name).chain(extra) {
        let (w, mut app) = make(spec, 3).unwrap();
        let mut n = 0;
        emulate(w.name, app.as_mut(), |_, b| n += b.instructions())
            .unwrap_or_else(|e| panic!("{spec}: {e}"));
        assert!(n > 0, "{spec}");
    }
}

/// Workload `spec` written as a trace into a new folder: the folder.
fn trace_of(spec: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_path_buf();
    let mut open = |name: &str| -> std::io::Result<Box<dyn std::io::Write>> {
        Ok(Box::new(std::fs::File::create(path.join(name))?))
    };
    trace::write_trace(spec, 1, &mut open).unwrap();
    dir
}

/// A workload's run and the run of its written trace give the same figures, on each preset.
#[test]
fn a_written_trace_runs_as_the_workload() {
    use crate::gpu::run::{run, Workload};
    for (preset, spec) in [
        ("fermi-gtx480", "vectoradd:n=2000"),
        ("turing-rtx2060s", "matrixmul"),
        ("tiny", "transpose:variant=coalesced"),
        ("turing-rtx2060s", "babelstream:n=2048,dtype=f64"),
        ("fermi-gtx480", "simple_matrixmul:m=20,n=7,p=45"),
    ] {
        let s = spec::ConfigRequest::preset(preset).resolve().unwrap();
        let direct = run(&s, Workload::Suite { spec, seed: 1 }, None).unwrap();
        let dir = trace_of(spec);
        let traced = run(&s, Workload::Trace(dir.path()), None).unwrap();
        assert!(direct.kernels.iter().all(|k| k.instructions > 0), "{spec}");
        assert_eq!(
            serde_json::to_value(&direct).unwrap(),
            serde_json::to_value(&traced).unwrap(),
            "{preset} {spec}"
        );
    }
}
