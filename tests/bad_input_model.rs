//! Hostile input to the GPU model itself (issue 36, classes 2, 3 and 4): grids and loops that
//! claim more than a run can hold, addresses anywhere in the 64-bit space, and runs with no
//! end. Each case runs the binary under a time limit and an address-space limit (memory sized
//! by what an input claims rather than what it holds fails there), and checks the exit code,
//! the message's key words and that nothing panicked.

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;

/// An address space no run of these small workloads comes near, far below what the claims of
/// their inputs would take if memory followed them.
const ROOM: u64 = 1 << 30;

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// A trace folder of one kernel: a header claiming `grid`, and one-warp blocks `0..blocks`
/// (along x), each running `body` then `EXIT`.
fn trace(dir: &Path, grid: [u64; 3], blocks: u32, body: &[String]) -> String {
    let mut t = format!(
        "-kernel name = k\n-kernel id = 1\n-grid dim = ({},{},{})\n-block dim = (32,1,1)\n\
         -accelsim tracer version = 5\n\n#traces format = ...\n\n",
        grid[0], grid[1], grid[2]
    );
    for b in 0..blocks {
        t += &format!(
            "#BEGIN_TB\nthread block = {b},0,0\nwarp = 0\ninsts = {}\n",
            body.len() + 1
        );
        for l in body {
            t += l;
            t += "\n";
        }
        t += &format!("{:04x} ffffffff 0 EXIT 0 0 0\n#END_TB\n", 16 * body.len());
    }
    write(dir, "kernel-1.traceg", &t);
    write(dir, "kernelslist.g", "kernel-1.traceg\n");
    dir.display().to_string()
}

/// scalarprod (a built-in kernel) with another grid, loop and arithmetic, its arrays
/// unbounded so that any loop length is legal.
fn kernel(dir: &Path, grid: u64, trips: u64, compute: u64) -> String {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("golden/kernels/scalarprod.toml"),
    )
    .unwrap()
    .replace("grid = [128, 1, 1]", &format!("grid = [{grid}, 1, 1]"))
    .replace("loop_trips = 4", &format!("loop_trips = {trips}"))
    .replace("compute = 3", &format!("compute = {compute}"))
    .replace("len = 524288", "len = 0");
    write(dir, &format!("k-{grid}-{trips}-{compute}.toml"), &text)
}

fn json(o: &std::process::Output) -> Value {
    serde_json::from_slice(&o.stdout).expect("JSON on standard output")
}

#[test]
fn a_header_claiming_a_huge_grid_costs_only_the_blocks_it_holds() {
    // 65535 x 65535 blocks claimed (CUDA's largest y and z), two given: the dispatcher took
    // 8 bytes per claimed block (32 GiB) before reading one.
    let d = scratch("model-claimed-grid");
    let t = trace(&d, [65535, 65535, 1], 2, &[]);
    let o = Limited::new(
        60,
        &["run", "--trace", &t, "--no-trace-cache", "--format", "json"],
    )
    .address_space(ROOM)
    .run();
    let r = json(&check(o, 0, "claimed grid", &[]));
    assert_eq!(r["kernels"][0]["blocks"], 2);
    assert_eq!(r["instructions"], 2);
}

#[test]
fn a_kernel_grid_of_four_billion_blocks_runs_in_little_memory_under_every_queue_policy() {
    // The dispatcher's queues held a list of every block (and the mapping policies one per
    // SM): 16 bytes per block. Memory now follows the SMs, and the run is bounded by
    // --max-cycles.
    let d = scratch("model-huge-grid");
    let k = kernel(&d, 4_294_967_295, 4, 3);
    for policy in ["rr", "bcs", "map-x", "map-y"] {
        let set = format!("dispatch.policy={policy}");
        let args = [
            "run",
            "--kernel",
            &k,
            "--set",
            &set,
            "--max-cycles",
            "20000",
        ];
        let o = Limited::new(60, &args).address_space(ROOM).run();
        check(o, 2, policy, &["20000 core cycles", "--max-cycles"]);
    }
}

#[test]
fn memory_does_not_grow_with_the_loop_or_the_arithmetic_of_a_kernel() {
    // Each warp's whole instruction list was made at launch: 80 bytes an instruction, so a
    // loop of 10^6 trips took gigabytes before the first cycle. Warps are now made a chunk at
    // a time as they run.
    let d = scratch("model-long-loop");
    for (trips, compute) in [(1_000_000, 3), (4, 4_294_967_295), (4_294_967_295, 0)] {
        let k = kernel(&d, 8, trips, compute);
        let args = ["run", "--kernel", &k, "--max-cycles", "20000"];
        let o = Limited::new(60, &args).address_space(ROOM).run();
        check(o, 2, &k, &["scalarprod", "--max-cycles"]);
    }
}

#[test]
fn loads_and_stores_anywhere_in_the_64_bit_address_space_complete() {
    // An MSHR index cell packed the block number above its slot in one word: any access at
    // 2^53 or above never found its MSHR and the GPU stalled (exit 1).
    let d = scratch("model-far-addresses");
    let body: Vec<String> = [1u64 << 53, 1 << 63, u64::MAX - 127, 0xa000_7fe0_3370_3780]
        .iter()
        .enumerate()
        .flat_map(|(k, a)| {
            let pc = 32 * k;
            [
                format!("{pc:04x} ffffffff 1 R1 LDG.E.SYS 1 R2 4 1 {a:#x} 4 0"),
                format!(
                    "{:04x} ffffffff 0 STG.E.SYS 2 R2 R1 4 1 {a:#x} 4 0",
                    pc + 16
                ),
            ]
        })
        .collect();
    let t = trace(&d, [2, 1, 1], 2, &body);
    for preset in ["fermi-gtx480", "turing-rtx2060s", "tiny"] {
        let args = [
            "run",
            "--preset",
            preset,
            "--trace",
            &t,
            "--no-trace-cache",
            "--format",
            "json",
        ];
        let r = json(&check(Limited::new(60, &args).run(), 0, preset, &[]));
        assert_eq!(r["instructions"], 18, "{preset}");
        assert_eq!(r["requests"], r["replies"], "{preset}");
    }
}

#[test]
fn a_request_cycle_beyond_what_a_run_can_reach_is_refused() {
    // A request within ~600 cycles of 2^64 spun forever: the clocks could not count on to
    // its completion.
    let d = scratch("model-far-cycle");
    let line = |c: u64| {
        format!(
            "{{\"cycle\":{c},\"op\":\"req\",\"sm\":0,\"warp\":0,\"pc\":0,\"addr\":4096,\"write\
            \":false}}\n"
        )
    };
    let top = write(&d, "top.jsonl", &(line(10) + &line(u64::MAX - 100)));
    let o = Limited::new(30, &["golden", "--block", "mc", "--stimulus", &top]).run();
    check(o, 2, "top", &["top.jsonl:2", "2^62"]);
    // The last cycle allowed is reached at once (idle time is skipped).
    let last = write(&d, "last.jsonl", &(line(10) + &line(1 << 62)));
    let args = [
        "golden",
        "--block",
        "mc",
        "--stimulus",
        &last,
        "--format",
        "json",
    ];
    let r = json(&check(Limited::new(30, &args).run(), 0, "last", &[]));
    assert_eq!(r["requests"], 2);
}

#[test]
fn every_run_is_bounded_and_says_how_to_raise_the_bound() {
    // The default bound is documented, a run stopped by it gives no figures, and a bound of 0
    // is refused.
    let help = stdout(&Limited::new(30, &["run", "--help"]).run());
    assert!(
        help.contains("--max-cycles") && help.contains("1000000000"),
        "{help}"
    );
    let o = Limited::new(30, &["run", "--kernel", "cp", "--max-cycles", "500"]).run();
    let o = check(
        o,
        2,
        "bounded",
        &["500 core cycles", "kernel cp", "--max-cycles"],
    );
    assert!(o.stdout.is_empty(), "{}", stdout(&o));
    let o = Limited::new(30, &["run", "--kernel", "cp", "--max-cycles", "0"]).run();
    check(o, 2, "zero", &["--max-cycles"]);
    // A bound the run stays within changes nothing.
    let args = ["run", "--kernel", "cp", "--format", "json"];
    let free = json(&check(Limited::new(60, &args).run(), 0, "free", &[]));
    let cycles = free["cycles"].as_u64().unwrap().to_string();
    let args = [
        "run",
        "--kernel",
        "cp",
        "--format",
        "json",
        "--max-cycles",
        &cycles,
    ];
    let bounded = json(&check(Limited::new(60, &args).run(), 0, "bounded", &[]));
    assert_eq!(free["instructions"], bounded["instructions"]);
    assert_eq!(free["cycles"], bounded["cycles"]);
}
