//! The block registry, [`BLOCKS`]: one entry per block, which every command looks up, and each
//! block's part of the co-simulation in its module (driver, statistics, glue to its golden
//! model). Each block's mutants are data in `sim/mutants/<block>.toml`. Nothing outside these
//! modules names a block.

pub mod dispatch;
pub mod lws;
pub mod mthwp;
pub mod ot;
pub mod wmc;

use crate::block::BlockInfo;
use crate::mutants::{Catalogue, Condition};
use crate::registry::{BlockEntry, BlockOption, Cmd, DriverFns, GoldenEntry, UnknownName};
use golden::report::{schema_of, Report};

/// The stimulus prefix that runs a block in place in the whole GPU:
/// `gpu:KERNEL_WORKLOAD_OR_TRACE_DIR`.
pub const GPU_PREFIX: &str = "gpu:";

/// The workload of a `gpu:` stimulus `text`, checked now (`None`: another form of stimulus).
fn gpu_target(
    text: &str,
) -> Option<Result<std::sync::Arc<golden::gpu::run::Target>, crate::CosimError>> {
    let w = text.strip_prefix(GPU_PREFIX)?;
    Some(
        golden::gpu::run::Target::parse(w)
            .map(std::sync::Arc::new)
            .map_err(|e| crate::CosimError::BadInput(format!("{text}: {e}"))),
    )
}

/// Where a co-simulation in place keeps packed copies of the traces it runs (it launches a
/// workload again and again until its cycle budget: the text is parsed once).
fn trace_cache() -> Option<std::path::PathBuf> {
    Some(crate::build::cache_root().join("traces"))
}

/// A GPU run's error, as a co-simulation reports it: the model's own failure, or bad input
/// named by the stimulus `name`.
fn gpu_error(name: &str, e: golden::gpu::run::GpuError) -> crate::CosimError {
    if e.is_internal() {
        crate::CosimError::Model(e.to_string())
    } else {
        crate::CosimError::BadInput(format!("{name}: {e}"))
    }
}

/// A block watched in place in the GPU: `run` runs the GPU with a hook that records each of the
/// block's cycles and checks it; the first failed check stops the run and is how it ended.
fn in_gpu<I, O>(
    check: &mut dyn FnMut(&I, &O) -> Result<(), crate::lockstep::StepFail>,
    mut record: impl FnMut(&I, &O),
    run: impl FnOnce(&mut dyn FnMut(&I, &O) -> Result<(), String>) -> Result<(), crate::CosimError>,
) -> Result<crate::harness::Ended, crate::CosimError> {
    use crate::harness::Ended;
    let mut ended = Ended::Completed;
    let r = run(&mut |i, o| {
        record(i, o);
        check(i, o).map_err(|f| {
            ended = Ended::Failed(f);
            "mismatch".to_string()
        })
    });
    match (r, ended) {
        (_, Ended::Failed(f)) => Ok(Ended::Failed(f)),
        (Err(e), _) => Err(e),
        (Ok(()), e) => Ok(e),
    }
}

/// The stimulus name of a driver fed per-cycle inputs (the dispatcher's, MT-HWP's): a `gpu:`
/// workload by its text (it runs until the cycle budget), else its kind, finite when the
/// inputs are read (a file, a replay) rather than generated.
fn cycle_stimulus_name<T>(
    gpu: &Option<(T, String)>,
    kind: &golden::run::Stimulus,
    read: bool,
) -> crate::harness::StimulusName {
    use crate::harness::StimulusName;
    match gpu {
        Some((_, name)) => StimulusName::new(name, false, "cycle inputs"),
        None => StimulusName::new(kind, read, "cycle inputs"),
    }
}

/// The inputs a block watched in place saw in its first `n` cycles: `run` runs the GPU again
/// (it repeats exactly) with the hook it is given, which keeps them.
fn gpu_inputs<I: Clone, O>(
    n: usize,
    run: impl FnOnce(&mut dyn FnMut(&I, &O) -> Result<(), String>),
) -> Vec<I> {
    let mut out = Vec::with_capacity(n);
    run(&mut |i: &I, _: &O| {
        out.push(i.clone());
        Ok(())
    });
    out
}

/// A cycle's input the golden model refused (`e`), named by its file and line when it came from
/// a file (`line` > 0), else by the stimulus and cycle `t` (from 0).
fn refused(
    kind: &golden::run::Stimulus,
    line: usize,
    t: u64,
    e: impl std::fmt::Display,
) -> crate::CosimError {
    crate::CosimError::BadInput(match (kind, line) {
        (golden::run::Stimulus::File(p), l) if l > 0 => format!("{}:{l}: {e}", p.display()),
        (k, _) => format!("{k}, cycle {}: {e}", t + 1),
    })
}

/// The spec with `key = value`, which co-simulating `what` in the GPU needs (`current`: the
/// spec's value of the key): the spec itself when it has it, else a variant; another value
/// the user chose is an error.
fn needing(
    spec: &spec::Spec,
    key: &str,
    value: &str,
    current: &str,
    what: &str,
) -> Result<spec::Spec, crate::CosimError> {
    if current == value {
        return Ok(spec.clone());
    }
    if spec.set_by_user(key) {
        return Err(crate::CosimError::BadInput(format!(
            "co-simulating {what} in the GPU needs {key} = {value}, but the configuration sets \
                {key} = {current}: drop that setting"
        )));
    }
    spec.variant(&[&format!("{key}={value}")])
        .map_err(|e| crate::CosimError::BadInput(e.to_string()))
}

/// A replay's per-cycle inputs, as such a driver keeps a file's (with line 0: replayed).
fn replayed<I>(items: Vec<I>) -> Option<std::sync::Arc<Vec<(usize, I)>>> {
    Some(std::sync::Arc::new(
        items.into_iter().map(|i| (0, i)).collect(),
    ))
}

/// Every block, in the order `flow` runs them.
pub static BLOCKS: &[BlockEntry] = &ENTRIES;

static ENTRIES: [BlockEntry; 5] = [
    BlockEntry {
        info: BlockInfo {
            name: "ot",
            title: "observation-table address predictor (seed 000)",
            seed: "000",
            interface: |s| s.ot.interface(),
            render: rtlgen::ot,
        },
        cost: golden::cost::ot_cost,
        golden: &[GoldenEntry {
            name: "ot",
            about: "the OT predictor: one JSON response per transaction",
            stimuli: golden::ot::FORMS,
            run: golden::ot::run_golden,
            output: "its JSON lines (a line's schema)",
            schema: schema_of::<golden::ot::Line>,
        }],
        stimuli: "`random` (biased to what stresses the table), `kernel:NAME` (a built-in kernel, \
            `all`, or a kernel TOML file), `gpu:KERNEL_WORKLOAD_OR_TRACE_DIR` (`gpu:stencil2d`, \
            `gpu:otedge`, `gpu:bfs:nodes=4096`: the predictor in place in the whole GPU, snooping \
            the loads' requests to the memory partitions, launched again and again until the \
            cycle budget) or a \
            JSON-lines file of transactions",
        flow: &["random", "kernel:all", "gpu:stencil2d"],
        key_sections: &["ot"],
        options: &[BlockOption {
            name: "dump-state",
            value: None,
            help: "ot: after the responses, print the final table as one JSON array of valid \
                entries",
            commands: &[Cmd::Golden],
            goldens: &[],
        }],
        mutants: Catalogue::new(
            "sim/mutants/ot.toml",
            include_str!("../../mutants/ot.toml"),
            &[],
        ),
        mutant_cycles: crate::harness::DEFAULT_CYCLES,
        driver: DriverFns::of::<ot::OtDriver>(),
        system_throughput: None,
    },
    BlockEntry {
        info: BlockInfo {
            name: "warped-mc",
            title: "Warped-MC warp-aware memory-controller tables (seed 004)",
            seed: "004",
            interface: |s| s.wmc.interface(),
            render: rtlgen::warped_mc,
        },
        cost: golden::cost::wmc_cost,
        golden: &[
            GoldenEntry {
                name: "mc",
                about: "the memory system: every channel's controller and DRAM under mc.scheduler",
                stimuli: golden::mc::source::FORMS,
                run: golden::mc::source::run_golden,
                output: "its --format json summary",
                schema: schema_of::<Report<golden::mc::source::McReport>>,
            },
            GoldenEntry {
                name: "memory",
                about: "the memory side in a closed loop: SM ports, interconnect, L2 partitions, \
                    DRAM controllers under mc.scheduler",
                stimuli: golden::mc::source::FORMS,
                run: golden::mem::closed_loop::run_golden,
                output: "its --format json summary",
                schema: schema_of::<Report<golden::mem::closed_loop::MemorySummary>>,
            },
        ],
        stimuli: "`loa`, `moa`, `hoa` (warp loads; `hoa@2.5` offers 2.5x the random-row service \
            rate), `random` (table stress) or a JSON-lines file of requests; any of them after \
            `memory:` (`memory:hoa`) runs the controllers behind the interconnect and the L2 \
            partitions, in the memory side's closed loop; `gpu:KERNEL_WORKLOAD_OR_TRACE_DIR` \
            (`gpu:irregular`, `gpu:lonewarp`, `gpu:backprop`) runs them inside the whole GPU on a \
            kernel, a workload of the library (`warpsmith workloads`) or an Accel-Sim trace, \
            launched again and again until the cycle budget",
        flow: &["random", "hoa", "gpu:irregular"],
        key_sections: &["warped_mc"],
        options: &[
            BlockOption {
                name: "group",
                value: Some("N"),
                help: "warped-mc: the warp-entry-table group whose block is co-simulated (default \
                    0)",
                commands: &[Cmd::Cosim, Cmd::Mutants, Cmd::Bench],
                goldens: &[],
            },
            BlockOption {
                name: "command-trace",
                value: Some("FILE"),
                help: "mc: write every issued DRAM command (cycle,channel,bank,CMD,row,col) to \
                    FILE",
                commands: &[Cmd::Golden],
                goldens: &["mc"],
            },
            BlockOption {
                name: "ports",
                value: Some("N"),
                help: "memory: SM ports of the closed loop (default: gpu.sms); a request's port \
                    is its SM modulo N",
                commands: &[Cmd::Golden],
                goldens: &["memory"],
            },
            BlockOption {
                name: "outstanding",
                value: Some("M"),
                help: "memory: requests each port keeps in flight (default 8)",
                commands: &[Cmd::Golden],
                goldens: &["memory"],
            },
        ],
        mutants: Catalogue::new(
            "sim/mutants/warped-mc.toml",
            include_str!("../../mutants/warped-mc.toml"),
            &[Condition {
                name: "counter-never-saturates",
                holds: wmc::counter_never_saturates,
            }],
        ),
        mutant_cycles: crate::harness::DEFAULT_CYCLES,
        driver: DriverFns::of::<wmc::WmcDriver>(),
        system_throughput: Some(wmc::memory_system_throughput),
    },
    BlockEntry {
        info: BlockInfo {
            name: "dispatch",
            title: "locality-aware thread-block dispatcher (seed 002)",
            seed: "002",
            interface: |s| s.dispatch.interface(),
            render: rtlgen::dispatch,
        },
        cost: golden::cost::dispatch_cost,
        golden: &[GoldenEntry {
            name: "dispatch",
            about: "thread-block dispatch (seed 002 locality-aware, seed 003 CTA mapping, RR, \
                BCS) of a kernel",
            stimuli: "`kernel:NAME` (or --kernel NAME)",
            run: golden::dispatch::run_golden,
            output: "its --format json report",
            schema: schema_of::<Report<golden::dispatch::DispatchReport>>,
        }],
        stimuli: dispatch::STIMULI,
        flow: &["random", "kernel:colmajor", "gpu:stencil2d"],
        key_sections: &["dispatch"],
        options: &[BlockOption {
            name: "kernel",
            value: Some("NAME|FILE"),
            help: "dispatch: the kernel (a built-in name, `rowmajor`, `colmajor`, `nolocality`, \
                or a kernel TOML file)",
            commands: &[Cmd::Golden],
            goldens: &[],
        }],
        mutants: Catalogue::new(
            "sim/mutants/dispatch.toml",
            include_str!("../../mutants/dispatch.toml"),
            &[],
        ),
        mutant_cycles: crate::harness::DEFAULT_CYCLES,
        driver: DriverFns::of::<dispatch::DispDriver>(),
        system_throughput: None,
    },
    BlockEntry {
        info: BlockInfo {
            name: "mt-hwp",
            title: "MT-HWP many-thread-aware prefetch engine (seed 001)",
            seed: "001",
            interface: |s| s.prefetch.interface(),
            render: rtlgen::mt_hwp,
        },
        cost: golden::cost::mthwp_cost,
        golden: &[GoldenEntry {
            name: "mt-hwp",
            about: "the MT-HWP engine: one JSON line per finished lookup and per throttle update",
            stimuli: golden::prefetch::FORMS,
            run: golden::prefetch::run_golden,
            output: "its JSON lines (a line's schema)",
            schema: schema_of::<golden::prefetch::output::Line>,
        }],
        stimuli: mthwp::STIMULI,
        flow: &["random", "gpu:pfstream"],
        key_sections: &["prefetch"],
        options: &[],
        mutants: Catalogue::new(
            "sim/mutants/mt-hwp.toml",
            include_str!("../../mutants/mt-hwp.toml"),
            &[
                Condition {
                    name: "pws-only",
                    holds: mthwp::pws_only,
                },
                Condition {
                    name: "no-throttle",
                    holds: mthwp::no_throttle,
                },
            ],
        ),
        // Four throttle periods of the large presets: the opening three visit three rows
        // of Table I (golden::prefetch::Traffic), with launches between.
        mutant_cycles: 400_000,
        driver: DriverFns::of::<mthwp::PfDriver>(),
        system_throughput: None,
    },
    BlockEntry {
        info: BlockInfo {
            name: "lws",
            title: "locality-aware warp scheduler (seed 002)",
            seed: "002",
            interface: |s| s.lws.interface(),
            render: rtlgen::lws,
        },
        cost: golden::cost::lws_cost,
        golden: &[],
        stimuli: lws::STIMULI,
        flow: &["random", "gpu:stencil2d"],
        key_sections: &["lws"],
        options: &[],
        mutants: Catalogue::new(
            "sim/mutants/lws.toml",
            include_str!("../../mutants/lws.toml"),
            &[],
        ),
        mutant_cycles: crate::harness::DEFAULT_CYCLES,
        driver: DriverFns::of::<lws::LwsDriver>(),
        system_throughput: None,
    },
];
/// A block by name.
pub fn find(name: &str) -> Result<&'static BlockEntry, UnknownName> {
    BLOCKS
        .iter()
        .find(|b| b.name == name)
        .ok_or_else(|| UnknownName {
            what: "block",
            name: name.to_string(),
            of: String::new(),
            known: BLOCKS.iter().map(|b| b.name).collect(),
        })
}

/// Every golden run, with its block.
pub fn goldens() -> impl Iterator<Item = (&'static BlockEntry, &'static GoldenEntry)> {
    BLOCKS
        .iter()
        .flat_map(|b| b.golden.iter().map(move |g| (b, g)))
}

/// A golden run by name (`mc` and `memory` for the systems around Warped-MC), with its block.
pub fn find_golden(name: &str) -> Result<(&'static BlockEntry, &'static GoldenEntry), UnknownName> {
    goldens()
        .find(|(_, g)| g.name == name)
        .ok_or_else(|| UnknownName {
            what: "golden model",
            name: name.to_string(),
            of: String::new(),
            known: goldens().map(|(_, g)| g.name).collect(),
        })
}
