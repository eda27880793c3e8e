//! Shared helpers of the integration tests.
#![allow(dead_code)]

use spec::{ConfigRequest, Spec, PRESETS};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The `warpsmith` binary under test.
pub fn warpsmith(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpsmith"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run warpsmith")
}

/// The binary under test: this build, or another one named by `WARPSMITH_BIN` (run a test
/// file against the build before a fix to see each case catch its defect).
pub fn bin() -> String {
    std::env::var("WARPSMITH_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_warpsmith").to_string())
}

/// A run of the binary under test within limits: killed, and the test failed, after `secs`
/// seconds (a hang); optionally under an address-space limit (an allocation sized by what an
/// input claims rather than what it holds fails). Runs in the project's folder unless given
/// another, with standard input empty.
pub struct Limited {
    cmd: Command,
    what: String,
    secs: u64,
    address_space: Option<u64>,
}

impl Limited {
    pub fn new(secs: u64, args: &[&str]) -> Limited {
        let mut cmd = Command::new(bin());
        cmd.args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        Limited {
            cmd,
            what: format!("{args:?}"),
            secs,
            address_space: None,
        }
    }

    pub fn dir(mut self, dir: &std::path::Path) -> Limited {
        self.cmd.current_dir(dir);
        self
    }

    pub fn env(mut self, key: &str, value: impl AsRef<std::ffi::OsStr>) -> Limited {
        self.cmd.env(key, value);
        self
    }

    pub fn stdout(mut self, out: impl Into<Stdio>) -> Limited {
        self.cmd.stdout(out);
        self
    }

    /// At most `bytes` of address space.
    pub fn address_space(mut self, bytes: u64) -> Limited {
        self.address_space = Some(bytes);
        self
    }

    pub fn run(mut self) -> Output {
        if let Some(bytes) = self.address_space {
            use std::os::unix::process::CommandExt;
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            // SAFETY: setrlimit is async-signal-safe, and `limit` is a plain value copied
            // into the closure.
            unsafe {
                self.cmd.pre_exec(move || {
                    if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        let mut child = self.cmd.spawn().expect("run warpsmith");
        // Drained as the child writes them: a report larger than a pipe's buffer would
        // otherwise block the child, and the wait below take it for a hang.
        let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
            std::thread::spawn(move || {
                let mut bytes = Vec::new();
                if let Some(mut p) = pipe {
                    p.read_to_end(&mut bytes).ok();
                }
                bytes
            })
        };
        let out = drain(child.stdout.take().map(|p| Box::new(p) as _));
        let err = drain(child.stderr.take().map(|p| Box::new(p) as _));
        let start = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait") {
                break status;
            }
            if start.elapsed() > Duration::from_secs(self.secs) {
                child.kill().ok();
                panic!("{} hung: still running after {} s", self.what, self.secs);
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        Output {
            status,
            stdout: out.join().expect("stdout"),
            stderr: err.join().expect("stderr"),
        }
    }
}

/// `o` ended with exit code `code`, nothing panicked, and every word of `needles` is in its
/// standard error (`what` names the run in messages).
pub fn check(o: Output, code: i32, what: &str, needles: &[&str]) -> Output {
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(code), "{what}: {}{e}", stdout(&o));
    assert!(!e.contains("panicked"), "{what}: {e}");
    for n in needles {
        assert!(e.contains(n), "{what}: `{n}` missing from: {e}");
    }
    o
}

/// A run within `secs` that must end with `code`, no panic, and every word of `needles` in
/// its standard error.
pub fn expect(code: i32, secs: u64, args: &[&str], needles: &[&str]) -> Output {
    check(
        Limited::new(secs, args).run(),
        code,
        &format!("{args:?}"),
        needles,
    )
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A scratch folder under target/ for one test.
pub fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target/ws-test")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("create scratch dir");
    d
}

pub fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

pub fn spec(preset: &str, sets: &[&str]) -> Spec {
    let mut r = ConfigRequest::preset(preset);
    for s in sets {
        r = r.with(s);
    }
    r.resolve().expect("valid test configuration")
}

/// Degenerate and extreme parameter sets (on top of `tiny`), for every block: where generated
/// RTL breaks. Each configuration is generated, linted, co-simulated and synthesized for every
/// block of the registry (a block whose parameters an edge does not touch is the same RTL as
/// tiny's, and its builds come from the cache).
pub const EDGE_MATRIX: &[(&str, &[&str])] = &[
    // The OT predictor.
    ("direct-mapped", &["ot.ways=1"]),
    ("2-way-lru", &["ot.ways=2", "ot.replacement=lru"]),
    (
        "2-way-plru-2d-3addr",
        &[
            "ot.ways=2",
            "ot.replacement=plru",
            "ot.grid_dims=2",
            "ot.addrs_per_entry=3",
        ],
    ),
    (
        "16-way-lru-1d",
        &["ot.ways=16", "ot.replacement=lru", "ot.grid_dims=1"],
    ),
    (
        "1-entry-widest-fields",
        &[
            "ot.entries=1",
            "ot.ways=1",
            "ot.addr_bits=64",
            "ot.stride_bits=64",
            "ot.pc_bits=64",
            "ot.lec_bits=32",
            "ot.tb_bits=31",
            "ot.warp_bits=10",
            "ot.counter_bits=16",
            "ot.mispredict_threshold=1000",
            "ot.addrs_per_entry=4",
        ],
    ),
    (
        "narrowest-fields",
        &[
            "ot.ways=8",
            "ot.grid_dims=1",
            "ot.addrs_per_entry=1",
            "ot.pc_bits=1",
            "ot.lec_bits=1",
            "ot.tb_bits=1",
            "ot.warp_bits=1",
            "ot.addr_bits=8",
            "ot.stride_bits=2",
            "ot.counter_bits=1",
            "ot.mispredict_threshold=0",
        ],
    ),
    (
        "largest-table",
        &["ot.entries=4096", "ot.ways=8", "ot.replacement=plru"],
    ),
    // The Warped-MC tables.
    (
        "wmc-block-per-controller",
        &["warped_mc.controllers_per_wet=1"],
    ),
    (
        "wmc-no-pc-hash-1-row-1-slot",
        &[
            "warped_mc.pc_hash_bits=0",
            "warped_mc.rows_tracked=1",
            "warped_mc.pt_slots=1",
        ],
    ),
    (
        "wmc-narrowest-counters-1-entry-queue",
        &[
            "warped_mc.pending_bits=2",
            "warped_mc.score_bits=1",
            "mc.queue_entries=1",
            "mc.write_high=1",
            "mc.write_low=0",
        ],
    ),
    (
        "wmc-8-banks-wide-fields",
        &[
            "dram.address_map=dramid@7;00000000.00000000.00000000.00000000.00000000.000RRRRR.RRRBB\
                BCC.CCCSSSSS",
            "dram.banks=8",
            "warped_mc.pc_bits=64",
            "warped_mc.pending_bits=16",
            "warped_mc.score_bits=16",
            "warped_mc.rows_tracked=64",
            "warped_mc.pt_slots=1024",
        ],
    ),
    // The dispatcher's decision unit.
    ("1-sm", &["gpu.sms=1"]),
    ("1-slot", &["gpu.ctas_per_sm=1"]),
    ("1-array", &["dispatch.arrays=1"]),
    (
        "1-entry",
        &["dispatch.queue_entries=1", "dispatch.scored_per_cycle=1"],
    ),
    (
        "5-entries-2-per-cycle",
        &["dispatch.queue_entries=5", "dispatch.scored_per_cycle=2"],
    ),
    (
        "3-sms-3-slots-7-entries-3-per-cycle",
        &[
            "gpu.sms=3",
            "gpu.ctas_per_sm=3",
            "dispatch.queue_entries=7",
            "dispatch.scored_per_cycle=3",
        ],
    ),
];

/// Every preset and every edge configuration, named.
pub fn all_configs() -> Vec<(String, Spec)> {
    let mut v: Vec<(String, Spec)> = PRESETS
        .iter()
        .map(|p| (p.name.to_string(), spec(p.name, &[])))
        .collect();
    for (name, sets) in EDGE_MATRIX {
        v.push((format!("tiny+{name}"), spec("tiny", sets)));
    }
    v
}

/// The configuration arguments of an edge configuration (`--preset tiny --set ...`).
pub fn edge_args(sets: &[&'static str]) -> Vec<&'static str> {
    let mut args = vec!["--preset", "tiny"];
    for s in sets {
        args.extend(["--set", s]);
    }
    args
}

/// Run warpsmith, expect bad input: exit 2, and stderr saying `says`.
pub fn exits_2_saying(args: &[&str], says: &str) {
    let o = warpsmith(args);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
}

/// Run warpsmith, expect success, parse its JSON output.
pub fn json_ok(args: &[&str]) -> serde_json::Value {
    let o = warpsmith(args);
    assert!(o.status.success(), "{args:?}: {}{}", stdout(&o), stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {}", stdout(&o)))
}

/// `warpsmith bench --block BLOCK` on `tiny` for `cycles` cycles, as JSON. A target not met
/// (a loaded machine) exits 1 with the same report; the exit code must match `met`.
pub fn bench_report(block: &str, cycles: u32) -> serde_json::Value {
    let cycles = cycles.to_string();
    let args = [
        "bench", "--block", block, "--preset", "tiny", "--cycles", &cycles, "--format", "json",
    ];
    let o = warpsmith(&args);
    let r: serde_json::Value =
        serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("{}", stderr(&o)));
    let met = r["met"].as_bool().unwrap();
    assert_eq!(
        o.status.code(),
        Some(if met { 0 } else { 1 }),
        "{}",
        stderr(&o)
    );
    r
}

/// `COMMAND --block BLOCK --preset PRESET --stimulus STIMULUS --cycles CYCLES --format json`.
pub fn block_run<'a>(
    command: &'a str,
    block: &'a str,
    preset: &'a str,
    stimulus: &'a str,
    cycles: &'a str,
) -> Vec<&'a str> {
    vec![
        command,
        "--block",
        block,
        "--preset",
        preset,
        "--stimulus",
        stimulus,
        "--cycles",
        cycles,
        "--format",
        "json",
    ]
}

/// `cosim --block BLOCK --preset PRESET --stimulus STIMULUS --cycles CYCLES`: it passes, every
/// cycle compared; its JSON report.
pub fn cosim_passes(block: &str, preset: &str, stimulus: &str, cycles: u64) -> serde_json::Value {
    let n = cycles.to_string();
    let r = json_ok(&block_run("cosim", block, preset, stimulus, &n));
    assert_eq!(r["verdict"], "pass", "{block} {preset} {stimulus}: {r:#}");
    assert_eq!(r["cycles"], cycles, "{block} {preset} {stimulus}: {r:#}");
    r
}

/// `warpsmith mutants` of `block` on `preset` and `stimulus` (`extra`: more options, e.g.
/// `--only NAME`): its JSON report, whatever the verdict.
pub fn mutants_report(
    block: &str,
    preset: &str,
    stimulus: &str,
    cycles: u64,
    extra: &[&str],
) -> serde_json::Value {
    let n = cycles.to_string();
    let mut args = block_run("mutants", block, preset, stimulus, &n);
    args.extend(extra);
    let o = warpsmith(&args);
    serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("{}", stderr(&o)))
}

/// A co-simulation of `mutant` on `stimulus` fails (exit 1) and writes a reproducer, which
/// (given as `--stimulus {replay_prefix}PATH`) fails with the mutant and passes without. The
/// failure report.
pub fn mutant_is_reproduced(
    block: &str,
    preset: &str,
    stimulus: &str,
    cycles: u64,
    mutant: &str,
    replay_prefix: &str,
) -> serde_json::Value {
    let dir = scratch(&format!("{block}-{mutant}-reproducer"));
    let n = cycles.to_string();
    let mut args = block_run("cosim", block, preset, stimulus, &n);
    args.extend(["--mutant", mutant, "--out-dir", dir.to_str().unwrap()]);
    let o = warpsmith(&args);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let path = r["failure"]["reproducer"]["path"]
        .as_str()
        .unwrap_or_else(|| panic!("no reproducer: {r:#}"));
    assert!(std::path::Path::new(path).is_file(), "{path}");
    let replay = format!("{replay_prefix}{path}");
    let run = |m: Option<&str>| {
        let mut a = vec![
            "cosim",
            "--block",
            block,
            "--preset",
            preset,
            "--stimulus",
            &replay,
        ];
        if let Some(m) = m {
            a.extend(["--mutant", m]);
        }
        warpsmith(&a).status.code()
    };
    assert_eq!(run(Some(mutant)), Some(1), "{replay} with {mutant}");
    assert_eq!(run(None), Some(0), "{replay} without a mutant");
    r
}

/// Run warpsmith on a pseudo-terminal (util-linux `script`), as a user at a terminal would:
/// what it drew there, and its exit code.
pub fn on_a_terminal(secs: u64, args: &[&str]) -> (String, Option<i32>) {
    let bin = env!("CARGO_BIN_EXE_warpsmith");
    let words: Vec<&str> = std::iter::once(bin).chain(args.iter().copied()).collect();
    let line = shlex::try_join(words).unwrap();
    let mut child = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("util-linux `script` runs warpsmith on a pseudo-terminal");
    // Read as it comes: a full pipe would stop the run.
    let mut out = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut out, &mut v).ok();
        v
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if start.elapsed() > Duration::from_secs(secs) {
            child.kill().ok();
            panic!("{args:?} hung: still running after {secs} s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let o = reader.join().expect("reader");
    (String::from_utf8_lossy(&o).into_owned(), status.code())
}

/// The files below `root` that `keep` accepts, looking inside the folders `enter` accepts,
/// sorted.
pub fn files_under(
    root: &Path,
    enter: impl Fn(&Path) -> bool,
    keep: impl Fn(&Path) -> bool,
) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                if enter(&p) {
                    stack.push(p);
                }
            } else if keep(&p) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The single-node Slurm of `scripts/slurm.sh`, up for a test and down when it ends whatever
/// its outcome; `conf` is the SLURM_CONF to give `sbatch`.
pub struct Slurm {
    pub conf: std::path::PathBuf,
}

impl Slurm {
    pub fn up() -> Slurm {
        let up = std::process::Command::new("scripts/slurm.sh")
            .arg("up")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        let slurm = Slurm {
            conf: std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".tools/slurm/slurm.conf"),
        };
        assert!(
            up.status.success(),
            "scripts/slurm.sh up: {}{}",
            stdout(&up),
            stderr(&up)
        );
        slurm
    }
}

impl Drop for Slurm {
    fn drop(&mut self) {
        let _ = std::process::Command::new("scripts/slurm.sh")
            .arg("down")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output();
    }
}
