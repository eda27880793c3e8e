//! What every golden run takes (`warpsmith golden`): the stimulus, a cycle budget, a seed,
//! the output format, block-specific options, a progress callback; and what it refuses.

use std::collections::BTreeMap;
use thiserror::Error;

/// Input the user gave that cannot be used: the message names the input (file and line, or
/// the option) and what would be legal.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
#[error("{0}")]
pub struct BadInput(pub String);

impl BadInput {
    pub fn new(message: impl Into<String>) -> BadInput {
        BadInput(message.into())
    }
}

/// Block-specific options, by name (`kernel`, `dump-state`, `group`, ...): each block declares
/// the ones it takes, and the command line passes only those.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BlockOpts {
    values: BTreeMap<String, String>,
}

impl BlockOpts {
    /// Set an option (a flag's value is `true`).
    pub fn set(&mut self, name: &str, value: &str) {
        self.values.insert(name.to_string(), value.to_string());
    }

    /// An option's value.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    /// Whether a flag is set.
    pub fn flag(&self, name: &str) -> bool {
        self.get(name) == Some("true")
    }

    /// An option parsed as a number, with a message naming it when it is not one.
    pub fn number<T: std::str::FromStr>(&self, name: &str) -> Result<Option<T>, BadInput> {
        self.get(name)
            .map(|v| {
                v.parse::<T>()
                    .map_err(|_| BadInput(format!("--{name} {v}: expected a non-negative integer")))
            })
            .transpose()
    }

    /// Every option, as command-line words (`--group 1`, `--dump-state`).
    pub fn args(&self) -> Vec<String> {
        let mut v = Vec::new();
        for (k, x) in &self.values {
            v.push(format!("--{k}"));
            if x != "true" {
                v.push(x.clone());
            }
        }
        v
    }
}

/// Called now and then during a long run with (cycles done, cycle budget; `u64::MAX`: none).
pub type Progress<'a> = &'a dyn Fn(u64, u64);

/// How a golden run is asked for.
pub struct GoldenRun<'a> {
    /// `--stimulus`, if given.
    pub stimulus: Option<&'a str>,
    /// Cycles for sources that do not end by themselves.
    pub cycles: u64,
    pub seed: u64,
    /// `--format json` (else text).
    pub json: bool,
    pub opts: &'a BlockOpts,
    pub progress: Option<Progress<'a>>,
    /// The build and command line, for the provenance the output starts with.
    pub origin: &'a crate::report::Origin,
}

/// Why a golden run stopped.
#[derive(Debug, Error)]
pub enum GoldenError {
    #[error(transparent)]
    BadInput(#[from] BadInput),
    #[error("cannot write the output: {0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Failed(String),
}

/// Read a JSON-lines file of per-cycle inputs (a block's stimulus file): each cycle's input
/// with its 1-based line; blank lines and `#` comments are skipped. A line that does not parse
/// names the file, the line, the reason and `expected` (the line's form); `what` names the
/// inputs ("a dispatcher input line"). A file with no input is refused: a run over it would
/// check nothing.
pub fn read_cycle_inputs<T: serde::de::DeserializeOwned>(
    path: &std::path::Path,
    what: &str,
    expected: &str,
) -> Result<Vec<(usize, T)>, BadInput> {
    let text = spec::input::read_to_string(path)
        .map_err(|e| BadInput(format!("cannot read stimulus {}: {e}", path.display())))?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let inp = serde_json::from_str(line).map_err(|e| {
            BadInput(format!(
                "{}:{}: not {what}: {}; expected {expected}",
                path.display(),
                n + 1,
                json_line_error(&e)
            ))
        })?;
        out.push((n + 1, inp));
    }
    if out.is_empty() {
        return Err(BadInput(format!(
            "stimulus {} holds no cycle inputs: a run over it would check nothing",
            path.display()
        )));
    }
    Ok(out)
}

/// A serde_json error on one line of a JSON-lines file, for a message that already names the
/// file and line: serde's own "at line 1 column C" becomes "(column C)", and a number JSON can
/// only read as a float (too large, negative, or fractional) is said to be one.
pub fn json_line_error(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let core = match text.rfind(" at line ") {
        Some(i) => &text[..i],
        None => &text,
    };
    let what = if core.contains("floating point") || core.contains("invalid value: integer `-") {
        format!(
            "{core}: fields are unsigned integers below 2^64 (a larger, negative or fractional \
                number does not fit)"
        )
    } else {
        core.to_string()
    };
    if e.column() > 0 {
        format!("{what} (column {})", e.column())
    } else {
        what
    }
}

/// Why a run checked nothing: it had none of the events that make a run of the block count
/// (`events`, as in "no prediction query in 12 cycles"). One message for `golden` and
/// `cosim`; a run that checked nothing is never a success (exit 2).
pub fn nothing_checked(events: &str, cycles: u64) -> String {
    format!("no {events} in {cycles} cycles: the block's outputs were never exercised")
}

/// Write a file whole or not at all, through symbolic links, never over anything but a
/// regular file: [`spec::output::write_file`].
pub use spec::output::write_file;

/// A stimulus of the blocks that run kernels (OT, dispatch): a generator, a kernel, or a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stimulus {
    /// The block's random generator, endless.
    Random,
    /// A built-in kernel (or `all` of them, where the block takes it) or a kernel TOML file.
    Kernel(String),
    /// A JSON-lines file, run once.
    File(std::path::PathBuf),
}

impl Stimulus {
    /// Parse `--stimulus`: `random`, `kernel:NAME`, or the path of an existing file. `block`
    /// and `forms` name the block and the forms it takes, for the error.
    pub fn parse(s: &str, block: &str, forms: &str) -> Result<Stimulus, BadInput> {
        if s == "random" {
            Ok(Stimulus::Random)
        } else if let Some(k) = s.strip_prefix("kernel:") {
            Ok(Stimulus::Kernel(k.to_string()))
        } else if std::path::Path::new(s).is_file() {
            Ok(Stimulus::File(s.into()))
        } else {
            Err(BadInput(format!(
                "stimulus `{s}` is not one {block} takes: give {forms} (there is no file `{s}`)"
            )))
        }
    }
}

impl std::fmt::Display for Stimulus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stimulus::Random => write!(f, "random"),
            Stimulus::Kernel(k) => write!(f, "kernel:{k}"),
            Stimulus::File(p) => write!(f, "{}", p.display()),
        }
    }
}
