//! Hostile Accel-Sim traces and packed copies (issue 36, classes 1, 5 and the trace part of
//! 8), through the command line: one case per defect. Each case runs `warpsmith run` under a
//! time limit, with a cache folder of its own, and checks the exit code, the message's key
//! words (the file and line, or the header key), that nothing panicked, and that the trace
//! and the files beside it are intact.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

/// `warpsmith run --preset tiny --format json --trace DIR` with `cache` as the cache folder
/// (`None`: `--no-trace-cache`), killed and failed after `secs`.
fn run_trace(dir: &Path, cache: Option<&Path>, secs: u64) -> Output {
    let mut args = vec![
        "run".to_string(),
        "--preset".into(),
        "tiny".into(),
        "--format".into(),
        "json".into(),
        "--trace".into(),
        dir.display().to_string(),
    ];
    if cache.is_none() {
        args.push("--no-trace-cache".into());
    }
    let unused = tempfile::tempdir().unwrap();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut o = Limited::new(secs, &args)
        .env("WARPSMITH_CACHE_DIR", cache.unwrap_or(unused.path()))
        .run();
    // The figures alone: the report's command line differs with and without the cache.
    if let Ok(mut v) = serde_json::from_slice::<serde_json::Value>(&o.stdout) {
        if let Some(m) = v.as_object_mut() {
            m.remove("command_line");
        }
        o.stdout = serde_json::to_vec_pretty(&v).unwrap();
    }
    o
}

/// Every file of `dir` (not below) with its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect();
    v.sort();
    v
}

/// A trace folder holding `kernel-1.traceg` with `text`.
fn folder(text: &str) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("kernelslist.g"), "kernel-1.traceg\n").unwrap();
    std::fs::write(d.path().join("kernel-1.traceg"), text).unwrap();
    d
}

/// A run of a trace with `text` exits 2 within 20 s, without a panic, naming every word of
/// `words`; the trace folder is left as it was.
fn refused(text: &str, words: &[&str]) {
    let d = folder(text);
    let before = snapshot(d.path());
    let cache = tempfile::tempdir().unwrap();
    let o = run_trace(d.path(), Some(cache.path()), 20);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{text}\n{}{e}", stdout(&o));
    assert!(!e.contains("panicked"), "{e}");
    for w in words {
        assert!(e.contains(w), "`{w}` missing from: {e}");
    }
    assert!(stdout(&o).is_empty(), "{}", stdout(&o));
    assert_eq!(snapshot(d.path()), before, "the trace folder changed");
    // Nothing is kept of a trace that was refused.
    let kept = std::fs::read_dir(cache.path().join("traces")).map_or(0, |d| d.count());
    assert_eq!(kept, 0, "a copy of a refused trace was kept");
}

const HEADER: &str = "-kernel name = k\n-kernel id = 1\n-grid dim = (2,1,1)\n\
                      -block dim = (64,1,1)\n-accelsim tracer version = 5\n\n#traces format\n";

/// A block `id` whose warp 0 runs `line` then EXIT (line numbers: `#BEGIN_TB` at 8 after
/// `HEADER`, the instruction at 12).
fn block(id: &str, line: &str) -> String {
    format!(
        "#BEGIN_TB\nthread block = {id}\nwarp = 0\ninsts = 2\n{line}\n0010 ffffffff 0 EXIT 0 0 \
            0\n#END_TB\n"
    )
}

const LOAD: &str = "0000 ffffffff 1 R4 LDG.E 1 R2 4 1 0x1000 4 0";

#[test]
fn a_register_beyond_r255_is_refused_at_its_line() {
    // (It reached the SM's scoreboard and panicked there.)
    refused(
        &format!("{HEADER}{}", block("0,0,0", &LOAD.replace("R4", "R256"))),
        &[
            "kernel-1.traceg:12:",
            "`R256` is not a register (R0 to R255",
        ],
    );
    refused(
        &format!("{HEADER}{}", block("0,0,0", &LOAD.replace("R2", "R4096"))),
        &["kernel-1.traceg:12:", "`R4096`"],
    );
}

#[test]
fn header_numbers_out_of_their_field_are_refused_naming_the_key() {
    for (key, value, words) in [
        (
            "shmem",
            "4294967296",
            "`-shmem = 4294967296`: a whole number from 0 to 4294967295",
        ),
        ("nregs", "4294967296", "`-nregs = 4294967296`"),
        (
            "binary version",
            "4294967366",
            "`-binary version = 4294967366`",
        ),
        (
            "accelsim tracer version",
            "4294967301",
            "knows versions 3, 4, 5",
        ),
        (
            "accelsim tracer version",
            "6",
            "knows versions 3, 4, 5 and the legacy format",
        ),
        ("enable lineinfo", "7", "0 or 1"),
    ] {
        let versioned = key.starts_with("accelsim");
        let text = format!(
            "{}{}",
            HEADER.replace("\n\n#", &format!("\n-{key} = {value}\n#")),
            block("0,0,0", LOAD)
        )
        .replacen("-accelsim tracer version = 5\n", "", usize::from(versioned));
        let at = format!("kernel-1.traceg:{}:", if versioned { 5 } else { 6 });
        refused(&text, &[&at, words]);
    }
}

#[test]
fn grids_and_blocks_beyond_cudas_limits_are_refused() {
    for (from, to, words) in [
        // (Reported as "2048 warps" before: the product wrapped.)
        (
            "-block dim = (64,1,1)",
            "-block dim = (65536,65537,1)",
            "`-block dim = (65536,65537,1)`: (x,y,z), each from 1 to 1024",
        ),
        (
            "-block dim = (64,1,1)",
            "-block dim = (1024,2,1)",
            "2048 threads a block; CUDA's limit is 1024",
        ),
        (
            "-grid dim = (2,1,1)",
            "-grid dim = (0,1,1)",
            "`-grid dim = (0,1,1)`",
        ),
        (
            "-grid dim = (2,1,1)",
            "-grid dim = (65536,65536,1)",
            "65535 (y)",
        ),
        ("-grid dim = (2,1,1)\n", "", "the header has no `-grid dim`"),
    ] {
        let text = format!("{}{}", HEADER.replace(from, to), block("0,0,0", LOAD));
        refused(&text, &["kernel-1.traceg:", words]);
    }
}

#[test]
fn blocks_breaking_the_grid_or_their_warps_are_refused_at_their_line() {
    refused(
        &format!("{HEADER}{}", block("2,0,0", LOAD)),
        &[
            "kernel-1.traceg:9:",
            "thread block (2,0,0) is outside the grid (2,1,1)",
        ],
    );
    refused(
        &format!("{HEADER}{}{}", block("1,0,0", LOAD), block("1,0,0", LOAD)),
        &["kernel-1.traceg:16:", "thread block (1,0,0) is given twice"],
    );
    let twice = block("0,0,0", LOAD).replace(
        "#END_TB",
        "warp = 0\ninsts = 1\n0020 ffffffff 0 EXIT 0 0 0\n#END_TB",
    );
    refused(
        &format!("{HEADER}{twice}"),
        &[
            "kernel-1.traceg:14:",
            "`warp = 0` is given twice in the block (first at line 10)",
        ],
    );
    // A block of 40 threads: its warp 1 has lanes 0 to 7.
    let forty = HEADER.replace("(64,1,1)", "(40,1,1)");
    let wide = block("0,0,0", LOAD).replace("warp = 0", "warp = 1");
    refused(
        &format!("{forty}{wide}"),
        &[
            "kernel-1.traceg:12:",
            "lanes beyond the block's threads",
            "000000ff",
        ],
    );
}

#[test]
fn a_trace_that_would_simulate_nothing_is_refused() {
    // No block at all, and a block without instructions: a run exited 0 after 0 instructions.
    refused(
        HEADER,
        &[
            "kernel-1.traceg:7:",
            "holds no thread block",
            "would simulate nothing",
        ],
    );
    refused(
        &format!("{HEADER}#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 0\n#END_TB\n"),
        &["kernel-1.traceg:12:", "holds no instruction"],
    );
}

#[test]
fn a_fifo_or_a_device_named_as_a_trace_is_refused_not_waited_on() {
    // Reading a FIFO with no writer blocked forever; a device such as /dev/zero would be read
    // without end. Only regular files are read, and the refusal names the file.
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("kernelslist.g"), "kernel-1.traceg\n").unwrap();
    let fifo = d.path().join("kernel-1.traceg");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let o = run_trace(d.path(), None, 20);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("kernel-1.traceg") && e.contains("cannot open") && e.contains("a FIFO"),
        "{e}"
    );
    std::fs::remove_file(&fifo).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &fifo).unwrap();
    let o = run_trace(d.path(), None, 20);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("kernel-1.traceg") && e.contains("cannot open") && e.contains("device"),
        "{e}"
    );
    assert!(e.contains("give a regular file"), "{e}");
}

/// A trace folder, its clean run's output (JSON, from the text), and the cache folder
/// holding its packed copy.
struct Packed {
    dir: tempfile::TempDir,
    cache: tempfile::TempDir,
    clean: String,
}

impl Packed {
    /// The LUD reference trace in a folder of its own.
    fn lud() -> Packed {
        let src = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("golden/tests-data/accelsim-traces/rodinia2-lud-kernel8-volta-legacy-format");
        let dir = tempfile::tempdir().unwrap();
        for f in ["kernel-8.traceg", "kernelslist.g"] {
            std::fs::copy(src.join(f), dir.path().join(f)).unwrap();
        }
        Packed::of(dir)
    }

    /// A trace of 4,000 one-warp blocks, a load each: its middle is outside the first and
    /// last 64 KiB the key samples.
    fn long() -> Packed {
        let mut t = String::from(
            "-kernel name = k\n-kernel id = 1\n-grid dim = (4000,1,1)\n-block dim = (32,1,1)\n\
             -accelsim tracer version = 5\n\n#traces format\n",
        );
        for b in 0..4000u64 {
            t += &format!(
                "#BEGIN_TB\nthread block = {b},0,0\nwarp = 0\ninsts = 2\n\
                 0000 ffffffff 1 R4 LDG.E.SYS 1 R2 4 1 0x{:012x} 4 0\n\
                 0010 ffffffff 0 EXIT 0 0 0\n#END_TB\n",
                0x10_0000 + 128 * b
            );
        }
        Packed::of(folder(&t))
    }

    fn of(dir: tempfile::TempDir) -> Packed {
        let cache = tempfile::tempdir().unwrap();
        let o = run_trace(dir.path(), None, 60);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let clean = stdout(&o);
        let o = run_trace(dir.path(), Some(cache.path()), 60);
        assert_eq!(stdout(&o), clean, "the run that packs");
        Packed { dir, cache, clean }
    }

    fn copy(&self) -> PathBuf {
        let copies: Vec<PathBuf> = std::fs::read_dir(self.cache.path().join("traces"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(copies.len(), 1, "{copies:?}");
        copies[0].clone()
    }
}

#[test]
fn a_corrupted_packed_copy_is_deleted_and_the_text_gives_the_run() {
    let p = Packed::lud();
    let copy = p.copy();
    let good = std::fs::read(&copy).unwrap();
    let trace_before = snapshot(p.dir.path());
    for at in [good.len() / 3, good.len() / 2, good.len() - 30] {
        let mut bad = good.clone();
        bad[at] ^= 0x10;
        std::fs::write(&copy, &bad).unwrap();
        let o = run_trace(p.dir.path(), Some(p.cache.path()), 60);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(0), "{e}");
        assert_eq!(stdout(&o), p.clean, "byte {at}: other figures");
        assert!(!e.contains("panicked"), "{e}");
        assert!(
            e.contains("note: the packed copy") && e.contains("kernel-8.traceg"),
            "{e}"
        );
        // The bad copy was replaced by a good one, with no help from the user.
        assert_eq!(std::fs::read(&copy).unwrap(), good, "byte {at}");
    }
    // A copy cut short, and one emptied.
    for bytes in [&good[..good.len() / 2], &[][..]] {
        std::fs::write(&copy, bytes).unwrap();
        let o = run_trace(p.dir.path(), Some(p.cache.path()), 60);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_eq!(stdout(&o), p.clean);
        assert_eq!(std::fs::read(&copy).unwrap(), good);
    }
    assert_eq!(snapshot(p.dir.path()), trace_before, "the trace changed");
}

#[test]
fn a_trace_edited_with_its_time_restored_is_not_read_from_its_stale_copy() {
    let p = Packed::long();
    let trace = p.dir.path().join("kernel-1.traceg");
    let reference = p.dir.path().join("stamp");
    let touch = |from: &Path, to: &Path| {
        let ok = Command::new("touch")
            .arg("-r")
            .args([from, to])
            .status()
            .unwrap()
            .success();
        assert!(ok);
    };
    touch(&trace, &reference);
    // Block 2000's load made a store, at the same length, in the middle of the file (outside
    // the sampled text); `touch -r` puts the modification time back, as `cp -p`, `rsync -t`
    // and `tar x` do.
    let text = std::fs::read_to_string(&trace).unwrap();
    let at = text.find("thread block = 2000,0,0").unwrap();
    let mut edited = text.clone();
    edited.replace_range(
        at..text.len(),
        &text[at..].replacen("LDG.E.SYS", "STG.E.SYS", 1),
    );
    assert_eq!(edited.len(), text.len());
    std::fs::write(&trace, &edited).unwrap();
    touch(&reference, &trace);
    let o = run_trace(p.dir.path(), None, 60);
    let want = stdout(&o);
    assert_ne!(want, p.clean, "the edit changes the figures");
    let o = run_trace(p.dir.path(), Some(p.cache.path()), 60);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), want, "the stale copy was read");
    // The stale copy was replaced: the next run reads the new one.
    let o = run_trace(p.dir.path(), Some(p.cache.path()), 60);
    assert_eq!(stdout(&o), want);
    p.copy();
}

#[test]
fn a_killed_writers_temporary_file_is_cleaned_up() {
    let p = Packed::lud();
    let copy = p.copy();
    let traces = p.cache.path().join("traces");
    let left = traces.join(".tmp-wspack-AbCdEf");
    std::fs::write(&left, b"WSPACK02 cut by a kill").unwrap();
    let old = std::time::SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&left)
        .unwrap()
        .set_modified(old)
        .unwrap();
    // A run that packs (the copy gone) sweeps it; the run's figures are the text's.
    std::fs::remove_file(&copy).unwrap();
    let o = run_trace(p.dir.path(), Some(p.cache.path()), 60);
    assert_eq!(stdout(&o), p.clean);
    assert!(!left.exists(), "the temporary file was left");
    p.copy();
}
