//! Reading the files a user names as input (configurations, GPGPU-Sim option files, kernels,
//! traces, stimuli, regression lists): only regular files are read. A FIFO named as an input
//! blocks until something writes to it, and a device such as `/dev/zero` never ends; both are
//! refused with an error that says what the path is, before anything waits on it.
//!
//! Every reader of user input opens it through [`open`] or [`read_to_string`]; the error is an
//! ordinary [`std::io::Error`] (kind `InvalidInput`), so each caller names the file in its own
//! error type as it does for a missing file.

use std::fs::File;
use std::io::{Error, ErrorKind};
use std::path::Path;

/// What kind of file `meta` describes, for messages that refuse it (here and in
/// [`crate::output`]).
pub(crate) fn kind(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_dir() {
        "a folder"
    } else if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_symlink() {
        "a symbolic link"
    } else {
        "a regular file"
    }
}

/// The error for an input that is not a regular file.
fn not_regular(meta: &std::fs::Metadata) -> Error {
    Error::new(
        ErrorKind::InvalidInput,
        format!("it is {}: give a regular file", kind(meta)),
    )
}

/// Open `path` for reading if it is a regular file (symbolic links followed). Checked before
/// the open (opening a FIFO blocks) and again on the opened file (the path may have changed
/// in between).
pub fn open(path: &Path) -> std::io::Result<File> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(not_regular(&meta));
    }
    let f = File::open(path)?;
    let meta = f.metadata()?;
    if !meta.is_file() {
        return Err(not_regular(&meta));
    }
    Ok(f)
}

/// The whole text of the regular file `path` (UTF-8).
pub fn read_to_string(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let mut text = String::new();
    open(path)?.read_to_string(&mut text)?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_are_read_and_everything_else_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.toml");
        std::fs::write(&file, "x = 1\n").unwrap();
        assert_eq!(read_to_string(&file).unwrap(), "x = 1\n");
        // A folder, a character device and a FIFO (which would block a plain open).
        let e = read_to_string(dir.path()).unwrap_err();
        assert!(e.to_string().contains("a folder"), "{e}");
        let e = read_to_string(Path::new("/dev/null")).unwrap_err();
        assert!(e.to_string().contains("character device"), "{e}");
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let e = read_to_string(&fifo).unwrap_err();
            assert!(e.to_string().contains("FIFO"), "{e}");
            assert_eq!(e.kind(), ErrorKind::InvalidInput);
        }
        // A missing file keeps its own error.
        let e = read_to_string(&dir.path().join("missing")).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotFound);
    }
}
