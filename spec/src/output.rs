//! Writing what warpsmith writes (configurations, RTL, reproducers, command traces, regression
//! results): the counterpart of [`crate::input`]. Two rules protect what is already on disk:
//!
//! * **A file is written whole, and only over a regular file** ([`write_file`], [`create`]):
//!   into a temporary file beside it, then renamed over it. A symbolic link is written through
//!   (the file it names gets the new text; the link stays a link). A target that exists and is
//!   not a regular file — a folder, a device such as `/dev/full`, a FIFO, a socket — is
//!   refused, never replaced.
//! * **In a folder, warpsmith replaces or removes only what it wrote there.** Each folder it
//!   writes into holds a marker, [`MARKER`], naming every entry warpsmith wrote in it. A name
//!   warpsmith wants that an entry the marker does not name already holds is refused, before
//!   anything is written; an entry the marker names and the new output no longer has is
//!   removed; anything else (a user's notes beside generated RTL) is left alone.
//!
//! Every target of a command is checked ([`check_file`], [`check_folder`], [`check_claim`])
//! before anything is written, so a command that cannot write one of its outputs writes none.
//! Errors are [`std::io::Error`]s whose message says what is wrong and how to fix it; callers
//! name the path, as for input files.

use std::collections::BTreeSet;
use std::fs::File;
use std::io::{Error, ErrorKind, Write};
use std::path::{Path, PathBuf};

/// The marker file of a folder warpsmith writes into: the entries it wrote there.
pub const MARKER: &str = ".warpsmith-output";

/// The marker's first line: what it is, and the promise it stands for.
const HEADER: &str = "# warpsmith output: warpsmith wrote the entries named below (one a line); \
it replaces or removes only these, and leaves anything else in this folder alone";

/// Symbolic links a path may go through before it counts as a loop (Linux's own limit).
const MAX_LINKS: usize = 40;

/// One entry warpsmith writes into a folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A file and its bytes.
    File(Vec<u8>),
    /// A folder and its entries (a folder of warpsmith's own, with its own marker).
    Folder(Vec<(String, Entry)>),
}

use crate::input::kind;

fn refused(what: String) -> Error {
    Error::new(ErrorKind::InvalidInput, what)
}

/// The path a write to `path` changes: `path` itself, or the file its symbolic links name
/// (followed link by link, a relative target read from the link's folder). The target need
/// not exist (a link to a missing file names where it will be).
pub fn target(path: &Path) -> std::io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = std::fs::read_link(&p)?;
                p = match p.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            _ => return Ok(p),
        }
    }
    Err(refused(format!(
        "more than {MAX_LINKS} symbolic links (a loop?): give a file"
    )))
}

/// [`target`] of a path that names a file: one ending in `/` (or `.`, `..`) names a folder,
/// which a file write would fail on only after the work is done.
fn file_target(path: &Path) -> std::io::Result<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let last = path.as_os_str().as_bytes().rsplit(|&b| b == b'/').next();
    if matches!(last, None | Some(b"" | b"." | b"..")) {
        return Err(refused("it names a folder: give a file name".into()));
    }
    target(path)
}

/// The folder a file `path` is written in (`.` for a bare name).
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Refuse an existing target that is not a regular file.
fn regular_or_absent(path: &Path) -> std::io::Result<()> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => Ok(()),
        Ok(m) if m.is_dir() => Err(refused(format!(
            "{} is a folder: give a file name",
            path.display()
        ))),
        Ok(m) => Err(refused(format!(
            "{} is {}, not a regular file: warpsmith writes only regular files and never replaces \
                anything else; give a file name",
            path.display(),
            kind(&m)
        ))),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Check, before any work, that [`write_file`] can write `path`: the file it names is absent
/// or a regular file, and its folder exists and takes new files.
pub fn check_file(path: &Path) -> std::io::Result<()> {
    let t = file_target(path)?;
    regular_or_absent(&t)?;
    let dir = folder_of(&t);
    tempfile::NamedTempFile::new_in(dir).map(drop).map_err(|e| {
        Error::new(
            e.kind(),
            format!("its folder {} cannot take a new file: {e}", dir.display()),
        )
    })
}

/// Write `bytes` to `path` whole or not at all: into a temporary file beside the file `path`
/// names, then renamed over it. A symbolic link is written through; an existing file keeps
/// its permissions (a new one gets the usual `0666` less the umask); a target that is not a
/// regular file is refused.
pub fn write_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let t = file_target(path)?;
    regular_or_absent(&t)?;
    let old_mode = std::fs::metadata(&t)
        .ok()
        .map(|m| std::fs::Permissions::from_mode(m.permissions().mode() & 0o7777));
    let mut tmp = tempfile::Builder::new()
        .prefix(".warpsmith-tmp-")
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(folder_of(&t))?;
    if let Some(mode) = old_mode {
        tmp.as_file().set_permissions(mode)?;
    }
    tmp.write_all(bytes)?;
    tmp.as_file().sync_data()?;
    tmp.persist(&t).map_err(|e| e.error)?;
    Ok(())
}

/// Open `path` for writing from its start (a file a child process writes, a stream): created
/// if absent, truncated if a regular file (through symbolic links); anything else refused.
pub fn create(path: &Path) -> std::io::Result<File> {
    let t = file_target(path)?;
    regular_or_absent(&t)?;
    File::create(&t)
}

/// Whether `name` is one entry of a folder (not a path, not `.`, `..` or the marker).
fn is_entry_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && name != MARKER
        && !name.contains(['/', '\0', '\n'])
}

/// The names a folder's marker lists: none if the folder or its marker is absent. A marker
/// that is not a regular file (a link, a FIFO), lacks the header or names anything but an
/// entry of its own folder is refused: it cannot be trusted to say what may be removed.
pub fn marked(dir: &Path) -> std::io::Result<BTreeSet<String>> {
    let path = dir.join(MARKER);
    let meta = match std::fs::symlink_metadata(&path) {
        Ok(m) => m,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(BTreeSet::new()),
        Err(e) => return Err(e),
    };
    let damaged = |why: String| {
        refused(format!(
            "{}: {why}; the marker says which files warpsmith may replace, so it is not trusted: \
             move the folder away or give another one",
            path.display()
        ))
    };
    if !meta.is_file() {
        return Err(damaged(format!("it is {}", kind(&meta))));
    }
    let text = crate::input::read_to_string(&path)?;
    let mut lines = text.lines().enumerate();
    if !lines
        .next()
        .is_some_and(|(_, l)| l.starts_with("# warpsmith output"))
    {
        return Err(damaged("its first line is not warpsmith's header".into()));
    }
    let mut names = BTreeSet::new();
    for (i, line) in lines {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if !is_entry_name(line) {
            return Err(damaged(format!(
                "line {}: `{line}` is not the name of an entry of this folder",
                i + 1
            )));
        }
        names.insert(line.to_string());
    }
    Ok(names)
}

/// Write `dir`'s marker naming `names` (whole; the marker is never a link).
fn mark(dir: &Path, names: &BTreeSet<String>) -> std::io::Result<()> {
    let mut text = format!("{HEADER}\n");
    for n in names {
        text.push_str(n);
        text.push('\n');
    }
    let path = dir.join(MARKER);
    if std::fs::symlink_metadata(&path).is_ok_and(|m| !m.is_file()) {
        return Err(refused(format!(
            "{} is not a regular file: move it away",
            path.display()
        )));
    }
    write_file(&path, text.as_bytes())
}

/// The error for an entry warpsmith would write that holds something it did not write.
fn not_ours(path: &Path) -> Error {
    Error::new(
        ErrorKind::AlreadyExists,
        format!(
            "{} exists and warpsmith did not write it (the folder's {MARKER} does not name it): \
             it is left alone; move it away or give another folder",
            path.display()
        ),
    )
}

/// Whether `dir` is a folder (through links) or absent; anything else is refused.
fn folder_or_absent(dir: &Path) -> std::io::Result<bool> {
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(true),
        Ok(m) => Err(refused(format!(
            "{} is {}: give a folder",
            dir.display(),
            kind(&m)
        ))),
        Err(e) if e.kind() == ErrorKind::NotFound => {
            if std::fs::symlink_metadata(dir).is_ok() {
                return Err(refused(format!(
                    "{} is a symbolic link to a missing folder: give a folder",
                    dir.display()
                )));
            }
            Ok(false)
        }
        Err(e) => Err(e),
    }
}

/// Check that warpsmith may write entry `name` of `dir` (a file or a folder): it is free, or
/// the marker `owned` names it and it is a regular file or a folder (or a link to one).
fn check_entry(dir: &Path, owned: &BTreeSet<String>, name: &str) -> std::io::Result<()> {
    if !is_entry_name(name) {
        return Err(refused(format!(
            "`{name}` is not a name warpsmith can write in {}",
            dir.display()
        )));
    }
    let path = dir.join(name);
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(());
    }
    if !owned.contains(name) {
        return Err(not_ours(&path));
    }
    match std::fs::metadata(&path) {
        Ok(m) if !m.is_file() && !m.is_dir() => Err(refused(format!(
            "{} is {}: warpsmith never writes to it nor replaces it; move it away",
            path.display(),
            kind(&m)
        ))),
        // A file or a folder, or a link to a missing file (written through).
        _ => Ok(()),
    }
}

/// Check, before anything is written, that [`replace_folder`] can write `entries` into `dir`.
pub fn check_folder(dir: &Path, entries: &[(String, Entry)]) -> std::io::Result<()> {
    if !folder_or_absent(dir)? {
        return check_new_folder(dir);
    }
    let owned = marked(dir)?;
    let mut seen = BTreeSet::new();
    for (name, entry) in entries {
        if !seen.insert(name.as_str()) {
            return Err(refused(format!(
                "`{name}` would be written twice in {}",
                dir.display()
            )));
        }
        check_entry(dir, &owned, name)?;
        if let Entry::Folder(children) = entry {
            let sub = dir.join(name);
            if std::fs::metadata(&sub).is_ok_and(|m| m.is_dir()) {
                check_folder(&sub, children)?;
            }
        }
    }
    // The folders of the earlier output that go: their markers say what is removed, so they
    // must be trusted before anything is written.
    for stale in owned.iter().filter(|n| !seen.contains(n.as_str())) {
        let sub = dir.join(stale);
        if std::fs::symlink_metadata(&sub).is_ok_and(|m| m.is_dir()) {
            marked(&sub)?;
        }
    }
    Ok(())
}

/// A missing folder can be made: its nearest existing ancestor is a folder that takes new
/// entries.
fn check_new_folder(dir: &Path) -> std::io::Result<()> {
    let mut up = dir.parent();
    while let Some(p) = up {
        let p = if p.as_os_str().is_empty() {
            Path::new(".")
        } else {
            p
        };
        match std::fs::metadata(p) {
            Ok(m) if m.is_dir() => {
                return tempfile::Builder::new()
                    .prefix(".warpsmith-tmp-")
                    .tempdir_in(p)
                    .map(drop)
                    .map_err(|e| {
                        Error::new(
                            e.kind(),
                            format!(
                                "{} cannot be created in {}: {e}",
                                dir.display(),
                                p.display()
                            ),
                        )
                    });
            }
            Ok(m) => {
                return Err(refused(format!(
                    "{} cannot be created: {} is {}",
                    dir.display(),
                    p.display(),
                    kind(&m)
                )))
            }
            Err(_) => up = p.parent(),
        }
    }
    Ok(())
}

/// Write `entries` into the folder `dir` as warpsmith's output there, replacing its earlier
/// output: every entry is written (a file whole, a folder by the same rule), the entries an
/// earlier run wrote that `entries` lacks are removed, and every entry the marker does not
/// name is left alone. A folder that does not exist yet is built beside it and renamed into
/// place, so it appears whole or not at all. Checks first ([`check_folder`]).
pub fn replace_folder(dir: &Path, entries: &[(String, Entry)]) -> std::io::Result<()> {
    check_folder(dir, entries)?;
    if !folder_or_absent(dir)? {
        let parent = folder_of(dir);
        std::fs::create_dir_all(parent)?;
        let fresh = new_folder(parent)?;
        fill(fresh.path(), entries)?;
        std::fs::rename(fresh.path(), dir)?;
        // Renamed away: nothing left to clean up.
        let _ = fresh.keep();
        return Ok(());
    }
    let old = marked(dir)?;
    // The marker first names everything that will be there, so that whatever stops the
    // writing half-way leaves every file warpsmith wrote named.
    let new: BTreeSet<String> = entries.iter().map(|(n, _)| n.clone()).collect();
    mark(dir, &old.union(&new).cloned().collect())?;
    for (name, entry) in entries {
        let path = dir.join(name);
        match entry {
            Entry::File(bytes) => {
                if std::fs::metadata(&path).is_ok_and(|m| m.is_dir()) {
                    remove_owned(&path)?;
                }
                write_file(&path, bytes)?;
            }
            Entry::Folder(children) => {
                if std::fs::metadata(&path).is_ok_and(|m| !m.is_dir()) {
                    std::fs::remove_file(&path)?;
                }
                replace_folder(&path, children)?;
            }
        }
    }
    for stale in old.difference(&new) {
        remove_owned(&dir.join(stale))?;
    }
    mark(dir, &new)
}

/// A new empty temporary folder in `parent`, with the permissions a new folder gets.
fn new_folder(parent: &Path) -> std::io::Result<tempfile::TempDir> {
    use std::os::unix::fs::PermissionsExt;
    tempfile::Builder::new()
        .prefix(".warpsmith-tmp-")
        .permissions(std::fs::Permissions::from_mode(0o777))
        .tempdir_in(parent)
}

/// Fill the new, empty folder `dir` with `entries` and its marker.
fn fill(dir: &Path, entries: &[(String, Entry)]) -> std::io::Result<()> {
    for (name, entry) in entries {
        let path = dir.join(name);
        match entry {
            Entry::File(bytes) => write_file(&path, bytes)?,
            Entry::Folder(children) => {
                std::fs::create_dir(&path)?;
                fill(&path, children)?;
            }
        }
    }
    mark(dir, &entries.iter().map(|(n, _)| n.clone()).collect())
}

/// Remove an entry warpsmith wrote: a file (or a link), or a folder's entries its marker names
/// (recursively), then its marker and the folder itself if nothing else is left in it. A
/// folder without a marker is left as it is: nothing in it can be shown to be warpsmith's.
fn remove_owned(path: &Path) -> std::io::Result<()> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    if !meta.is_dir() {
        return std::fs::remove_file(path);
    }
    if std::fs::symlink_metadata(path.join(MARKER)).is_err() {
        return Ok(());
    }
    for name in marked(path)? {
        remove_owned(&path.join(name))?;
    }
    std::fs::remove_file(path.join(MARKER))?;
    // Not empty: a user's files are in it, and it stays.
    let _ = std::fs::remove_dir(path);
    Ok(())
}

/// Check, before anything is written, that warpsmith may write the entries `names` of `dir`
/// itself (files it appends to, folders it fills): each is free or already warpsmith's.
pub fn check_claim(dir: &Path, names: &[&str]) -> std::io::Result<()> {
    if !folder_or_absent(dir)? {
        return check_new_folder(dir);
    }
    let owned = marked(dir)?;
    for name in names {
        check_entry(dir, &owned, name)?;
    }
    Ok(())
}

/// Make `dir` (if needed) and name `names` in its marker as warpsmith's, after checking them
/// ([`check_claim`]); the caller then writes them. Nothing is removed.
pub fn claim(dir: &Path, names: &[&str]) -> std::io::Result<()> {
    check_claim(dir, names)?;
    std::fs::create_dir_all(dir)?;
    let mut owned = marked(dir)?;
    let before = owned.len();
    owned.extend(names.iter().map(|n| n.to_string()));
    if owned.len() != before || std::fs::symlink_metadata(dir.join(MARKER)).is_err() {
        mark(dir, &owned)?;
    }
    Ok(())
}

/// Write the file `name` into `dir` as warpsmith's (a reproducer, a result file): claimed in
/// the marker, then written whole.
pub fn add_file(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<PathBuf> {
    claim(dir, &[name])?;
    let path = dir.join(name);
    write_file(&path, bytes)?;
    Ok(path)
}

#[cfg(test)]
#[path = "output_tests.rs"]
mod tests;
