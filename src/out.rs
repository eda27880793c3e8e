//! Everything the CLI writes goes through here: standard output (every command's report), its
//! notes on standard error, and the files and folders it writes (by the rules of
//! [`spec::output`]: files whole, through links, never over a device or a FIFO; in a folder,
//! only what warpsmith wrote there is replaced or removed).
//!
//! A write that fails is an error naming what could not be written, and exits 2 ("the output
//! cannot be written"), never a panic. Every command checks each of its targets before it
//! writes any ([`ConfigArgs::resolve_with`](crate::args::ConfigArgs::resolve_with)). A pipe
//! closed by its reader (`warpsmith describe | head`) still ends the process quietly (SIGPIPE,
//! see `main`).

use crate::{bad, CliError, CliResult};
use spec::output::Entry;
use std::io::Write;
use std::path::Path;

/// `println!` for a command's output: a write error is returned (`?`), not a panic.
macro_rules! outln {
    () => {
        $crate::out::stdout(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::out::stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` for a command's output (no newline).
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::out::stdout(format_args!($($arg)*))
    };
}

/// `eprintln!` for notes and errors: a standard error that cannot be written is ignored (there
/// is nowhere left to say so), never a panic.
macro_rules! note {
    ($($arg:tt)*) => {
        $crate::out::stderr(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// The error of a write to standard output that failed.
pub fn stdout_failed(e: std::io::Error) -> CliError {
    bad(anyhow::anyhow!("standard output cannot be written: {e}"))
}

/// Write to standard output (line-buffered: a full disk or a closed terminal shows here).
pub fn stdout(args: std::fmt::Arguments) -> CliResult {
    std::io::stdout()
        .lock()
        .write_fmt(args)
        .map_err(stdout_failed)
}

/// One line to standard output, for code that reports I/O errors itself (the regression
/// runner's progress lines).
pub fn stdout_line(line: &str) -> std::io::Result<()> {
    writeln!(std::io::stdout().lock(), "{line}")
}

/// Write the rest of standard output out (at the end of a command).
pub fn flush() -> CliResult {
    std::io::stdout().lock().flush().map_err(stdout_failed)
}

/// Write to standard error, ignoring a failure.
pub fn stderr(args: std::fmt::Arguments) {
    let _ = std::io::stderr().lock().write_fmt(args);
}

/// A writer on standard output for code that takes `&mut dyn Write` (the golden runs), which
/// remembers whether a write failed: their I/O errors are then told apart from a failed
/// standard output.
pub struct Stdout {
    inner: std::io::BufWriter<std::io::StdoutLock<'static>>,
    pub failed: bool,
}

impl Stdout {
    pub fn new() -> Stdout {
        Stdout {
            inner: std::io::BufWriter::new(std::io::stdout().lock()),
            failed: false,
        }
    }

    /// Write out what is buffered.
    pub fn finish(mut self) -> CliResult {
        self.flush().map_err(stdout_failed)
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let r = self.inner.write(buf);
        self.failed |= r.is_err();
        r
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let r = self.inner.flush();
        self.failed |= r.is_err();
        r
    }
}

/// The error of an output path: bad input (exit 2), naming the option and the path.
fn path_error(what: &str, path: &Path, e: std::io::Error) -> CliError {
    bad(anyhow::anyhow!(
        "{what} {} cannot be written: {e}",
        path.display()
    ))
}

/// Check, before any work, that the file `path` can be written.
pub fn check_file(path: &Path, what: &str) -> CliResult {
    spec::output::check_file(path).map_err(|e| path_error(what, path, e))
}

/// Write the file `path` whole (through links, only over a regular file).
pub fn write_file(path: &Path, bytes: &[u8], what: &str) -> CliResult {
    spec::output::write_file(path, bytes).map_err(|e| path_error(what, path, e))
}

/// Check, before any work, that `entries` can be written into the folder `dir` as its output.
pub fn check_folder(dir: &Path, entries: &[(String, Entry)], what: &str) -> CliResult {
    spec::output::check_folder(dir, entries).map_err(|e| path_error(what, dir, e))
}

/// Write `entries` as the folder `dir`'s output, replacing warpsmith's earlier output there and
/// nothing else ([`spec::output::replace_folder`]).
pub fn replace_folder(dir: &Path, entries: &[(String, Entry)], what: &str) -> CliResult {
    spec::output::replace_folder(dir, entries).map_err(|e| path_error(what, dir, e))
}

/// Check, before any work, that warpsmith may write the entries `names` of the folder `dir`.
pub fn check_claim(dir: &Path, names: &[&str], what: &str) -> CliResult {
    spec::output::check_claim(dir, names).map_err(|e| path_error(what, dir, e))
}

/// Make the folder `dir` and name `names` in its marker as warpsmith's (checked first).
pub fn claim(dir: &Path, names: &[&str], what: &str) -> CliResult {
    spec::output::claim(dir, names).map_err(|e| path_error(what, dir, e))
}

/// A block's generated files as entries of its output folder.
pub fn files_of(g: &rtlgen::Generated) -> Vec<(String, Entry)> {
    g.all_files()
        .into_iter()
        .map(|(name, text)| (name, Entry::File(text.into_bytes())))
        .collect()
}
