//! Output paths: checked before any long work (an unwritable path is bad input, exit 2, found
//! up front), and output folders written whole: into a temporary folder that then replaces the
//! old one, so a failed run never leaves a folder mixing two configurations or stale files of
//! another block beside a new manifest.

use crate::{bad, CliResult};
use anyhow::Context;
use std::path::{Path, PathBuf};

/// A folder the command will write into: created if missing, and shown to be writable.
pub fn writable_dir(dir: &Path, what: &str) -> CliResult<()> {
    std::fs::create_dir_all(dir)
        .and_then(|_| tempfile::NamedTempFile::new_in(dir).map(drop))
        .map_err(|e| {
            bad(anyhow::anyhow!(
                "{what} {} cannot be written: {e}",
                dir.display()
            ))
        })
}

/// A file the command will write: its folder must exist and be writable.
pub fn writable_file(path: &Path, what: &str) -> CliResult<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if path.is_dir() {
        return Err(bad(anyhow::anyhow!(
            "{what} {} is a folder: give a file name",
            path.display()
        )));
    }
    tempfile::NamedTempFile::new_in(dir).map(drop).map_err(|e| {
        bad(anyhow::anyhow!(
            "{what} {} cannot be written: {e}",
            path.display()
        ))
    })
}

/// Whether `dir` holds warpsmith output only (a `manifest.json`, or folders that each hold
/// one), so replacing it loses nothing of the user's.
fn is_output(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    let entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.is_empty()
        || dir.join("manifest.json").is_file()
        || entries
            .iter()
            .all(|p| p.is_dir() && (p.join("manifest.json").is_file() || p.ends_with("repro")))
}

/// Write the folder `target` whole: `fill` writes into a new temporary folder beside it, which
/// then takes `target`'s place. `target` must be absent, empty, or earlier warpsmith output.
pub fn replace_dir(target: &Path, fill: impl FnOnce(&Path) -> CliResult<()>) -> CliResult<()> {
    if target.exists() && !(target.is_dir() && is_output(target)) {
        return Err(bad(anyhow::anyhow!(
            "{} exists and holds files warpsmith did not write: give a new or empty folder, or an earlier output of warpsmith",
            target.display()
        )));
    }
    let parent = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent)
        .map_err(|e| bad(anyhow::anyhow!("cannot create {}: {e}", parent.display())))?;
    let tmp = tempfile::Builder::new()
        .prefix(".warpsmith-")
        .tempdir_in(&parent)
        .map_err(|e| {
            bad(anyhow::anyhow!(
                "{} cannot be written: {e}",
                parent.display()
            ))
        })?;
    fill(tmp.path())?;
    let fresh = tmp.keep();
    if target.exists() {
        let old = tempfile::Builder::new()
            .prefix(".warpsmith-old-")
            .tempdir_in(&parent)
            .context("cannot make room for the new output")?
            .keep();
        std::fs::remove_dir(&old).ok();
        std::fs::rename(target, &old)
            .with_context(|| format!("cannot move the old {} aside", target.display()))?;
        if let Err(e) = std::fs::rename(&fresh, target) {
            std::fs::rename(&old, target).ok();
            return Err(
                anyhow::anyhow!("cannot put the new output at {}: {e}", target.display()).into(),
            );
        }
        std::fs::remove_dir_all(&old).ok();
    } else {
        std::fs::rename(&fresh, target)
            .with_context(|| format!("cannot put the new output at {}", target.display()))?;
    }
    Ok(())
}
