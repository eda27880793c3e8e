//! The workload library: benchmark applications of the published suites (the seeds' and the
//! hardware studies'), each run from its kernels' real compiled code.
//!
//! Each application's CUDA source is compiled to Turing SASS once (`scripts/kernel-sass.sh`,
//! the CUDA 13.5 toolchain from PyPI) and its listing committed (`golden/sass/<app>.sass`,
//! parsed by [`sass`]). Its host program is written here ([`apps`]): it makes the inputs
//! (deterministic by seed, of the suite's sizes), copies them to the device memory ([`mem`]),
//! and launches the kernels in the order the suite's host code does, reading back what it
//! needs between launches (a BFS's frontier flag) — an [`App`]. Each launch runs by
//! emulation ([`launch`], [`warp`]): every warp executes the SASS lane by lane, so every
//! address, active mask, branch, register dependency and instruction is the compiled
//! kernel's on that input, and the application's results can be checked against its own
//! reference computation ([`App::verify`]). Decisions WL-1 to WL-4 (docs/decisions/workloads.md)
//! say what is exact and what is not.

pub mod apps;
pub mod launch;
pub mod mem;
pub mod sass;
pub mod trace;
pub mod warp;

use mem::DeviceMemory;
use sass::KernelCode;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Why a workload could not be made or run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SuiteError {
    #[error("unknown workload `{name}`; `warpsmith workloads` lists them: {known}")]
    Unknown { name: String, known: String },
    #[error("workload `{workload}`: argument `{key}`: {message}")]
    Arg {
        workload: String,
        key: String,
        message: String,
    },
    #[error("workload `{workload}`: {message}")]
    Host { workload: String, message: String },
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    #[error(transparent)]
    Sass(#[from] sass::SassError),
    #[error(transparent)]
    Emu(#[from] warp::EmuError),
}

impl SuiteError {
    /// The maker of errors about the input file `path` (each message says what was wrong and
    /// where: its line or byte).
    pub fn in_file(path: impl std::fmt::Display) -> impl Fn(String) -> SuiteError {
        let path = path.to_string();
        move |message| SuiteError::Io {
            path: path.clone(),
            message,
        }
    }

    /// A failure of the model (a listing or an emulation) rather than of what it was given.
    pub fn is_internal(&self) -> bool {
        matches!(
            self,
            SuiteError::Sass(_) | SuiteError::Emu(_) | SuiteError::Host { .. }
        )
    }
}

/// One kernel launch: the kernel, its grid and block, dynamic shared memory and parameters.
#[derive(Debug, Clone)]
pub struct Launch {
    pub kernel: Arc<KernelCode>,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dyn_shared: u32,
    pub params: Vec<Param>,
}

/// A kernel parameter as the host passes it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Param {
    /// A device pointer.
    Ptr(u64),
    I32(i32),
    U32(u32),
    U64(u64),
    F32(f32),
    F64(f64),
}

impl Param {
    fn bytes(self) -> Vec<u8> {
        match self {
            Param::Ptr(v) | Param::U64(v) => v.to_le_bytes().to_vec(),
            Param::I32(v) => v.to_le_bytes().to_vec(),
            Param::U32(v) => v.to_le_bytes().to_vec(),
            Param::F32(v) => v.to_le_bytes().to_vec(),
            Param::F64(v) => v.to_le_bytes().to_vec(),
        }
    }
}

/// Constant bank 0's words the driver fills (Turing): the block and grid dimensions, and the
/// top of each thread's local memory (`R1`, the stack pointer, starts there).
const BLOCK_DIM_AT: usize = 0x0;
const GRID_DIM_AT: usize = 0xc;
const LOCAL_TOP_AT: usize = 0x28;

impl Launch {
    /// The launch's environment for its warps: constant bank 0 laid out, the parameters placed
    /// at the offsets the compiler gave them, the host's writes to `__constant__` variables
    /// (in `mem`) in bank 3, and the addresses of the `__device__` variables in bank 4.
    pub fn env(&self, mem: &DeviceMemory) -> Result<warp::LaunchEnv, String> {
        let k = &self.kernel;
        if self.params.len() != k.params.len() {
            return Err(format!(
                "kernel {} takes {} parameters, the host passed {}",
                k.name,
                k.params.len(),
                self.params.len()
            ));
        }
        let size = (k.param_base + k.param_bytes()).next_multiple_of(4) as usize;
        let mut c0 = vec![0u8; size.max(LOCAL_TOP_AT + 4)];
        for (d, v) in self.block.iter().enumerate() {
            c0[BLOCK_DIM_AT + 4 * d..][..4].copy_from_slice(&v.to_le_bytes());
        }
        for (d, v) in self.grid.iter().enumerate() {
            c0[GRID_DIM_AT + 4 * d..][..4].copy_from_slice(&v.to_le_bytes());
        }
        c0[LOCAL_TOP_AT..][..4].copy_from_slice(&(k.local + k.stack).to_le_bytes());
        for (i, (&(off, sz), p)) in k.params.iter().zip(&self.params).enumerate() {
            let b = p.bytes();
            if b.len() != sz as usize {
                return Err(format!(
                    "kernel {}: parameter {i} is {sz} bytes, the host passed {p:?}",
                    k.name
                ));
            }
            let at = (k.param_base + off) as usize;
            c0[at..at + b.len()].copy_from_slice(&b);
        }
        let mut consts = k.consts.clone();
        for (name, bytes) in mem.symbol_writes() {
            let Some((off, size)) = k.symbol(name) else {
                return Err(format!("the module has no __constant__ variable {name}"));
            };
            if bytes.len() > size as usize {
                return Err(format!(
                    "{} bytes written to __constant__ {name}, which holds {size}",
                    bytes.len()
                ));
            }
            let bank = consts
                .iter_mut()
                .find(|(b, _)| *b == 3)
                .map(|(_, d)| d)
                .ok_or_else(|| format!("kernel {} has no constant bank 3", k.name))?;
            bank[off as usize..off as usize + bytes.len()].copy_from_slice(bytes);
        }
        // The addresses of the `__device__` variables the kernel addresses, in bank 4 (the
        // listing made room for each).
        for (name, off, size) in &k.devices {
            let addr = mem.device_address(name).ok_or_else(|| {
                format!(
                    "kernel {} addresses __device__ variable {name} ({size} bytes), which the \
                     host program did not allocate",
                    k.name
                )
            })?;
            let bank = consts
                .iter_mut()
                .find(|(b, _)| *b == 4)
                .map(|(_, d)| d)
                .ok_or_else(|| format!("kernel {} has no constant bank 4", k.name))?;
            bank[*off as usize..*off as usize + 8].copy_from_slice(&addr.to_le_bytes());
        }
        Ok(warp::LaunchEnv {
            code: Arc::clone(&self.kernel),
            grid: self.grid,
            block: self.block,
            shared: k.shared + self.dyn_shared,
            const0: c0,
            consts,
        })
    }
}

/// A benchmark application's host program.
pub trait App {
    /// The next kernel launch, reading what the previous ones left in `mem`; `None` when the
    /// application is done.
    fn next(&mut self, mem: &mut DeviceMemory) -> Result<Option<Launch>, String>;
    /// Compare the device's results with the application's reference computation on the host.
    fn verify(&self, mem: &DeviceMemory) -> Result<(), String>;
}

/// A workload's arguments, `key=value` pairs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Args {
    workload: String,
    values: BTreeMap<String, String>,
}

impl Args {
    /// `text` (`n=1000,dtype=f64`; empty for the defaults) of workload `workload`, against the
    /// keys `keys` it takes.
    pub fn parse(workload: &str, text: &str, keys: &[&str]) -> Result<Args, SuiteError> {
        let mut values = BTreeMap::new();
        for part in text.split(',').filter(|p| !p.trim().is_empty()) {
            let (k, v) = part.split_once('=').ok_or_else(|| SuiteError::Arg {
                workload: workload.into(),
                key: part.trim().into(),
                message: "write arguments as key=value, separated by commas".into(),
            })?;
            let k = k.trim();
            if !keys.contains(&k) {
                return Err(SuiteError::Arg {
                    workload: workload.into(),
                    key: k.into(),
                    message: format!(
                        "not an argument of this workload; it takes: {}",
                        keys.join(", ")
                    ),
                });
            }
            values.insert(k.to_string(), v.trim().to_string());
        }
        Ok(Args {
            workload: workload.into(),
            values,
        })
    }

    /// Argument `key`'s text, when given.
    pub fn text(&self, key: &str) -> Option<&str> {
        self.values.get(key).map(String::as_str)
    }

    /// An error naming argument `key`.
    pub fn err(&self, key: &str, message: String) -> SuiteError {
        SuiteError::Arg {
            workload: self.workload.clone(),
            key: key.into(),
            message,
        }
    }

    /// Integer argument `key` in `lo..=hi`, `default` when absent.
    pub fn int(&self, key: &str, default: u64, lo: u64, hi: u64) -> Result<u64, SuiteError> {
        let Some(v) = self.values.get(key) else {
            return Ok(default);
        };
        let n: u64 = v
            .parse()
            .map_err(|_| self.err(key, format!("`{v}` is not a whole number")))?;
        if n < lo || n > hi {
            return Err(self.err(
                key,
                format!("{n} is out of range: legal values are {lo} to {hi}"),
            ));
        }
        Ok(n)
    }

    /// Refuse argument `key`'s value `v` unless it is a multiple of `of` (`why` says why).
    pub fn multiple_of(&self, key: &str, v: u64, of: u64, why: &str) -> Result<(), SuiteError> {
        if v.is_multiple_of(of) {
            return Ok(());
        }
        Err(self.err(key, format!("{v} is not a multiple of {of} ({why})")))
    }

    /// Argument `key` as a file path; `None` when absent or empty.
    pub fn path(&self, key: &str) -> Option<std::path::PathBuf> {
        self.values
            .get(key)
            .filter(|v| !v.is_empty())
            .map(std::path::PathBuf::from)
    }

    /// Argument `key`, one of `choices` (the first is the default).
    pub fn choice(&self, key: &str, choices: &[&'static str]) -> Result<&'static str, SuiteError> {
        let Some(v) = self.values.get(key) else {
            return Ok(choices[0]);
        };
        choices
            .iter()
            .find(|c| **c == v.as_str())
            .copied()
            .ok_or_else(|| self.err(key, format!("`{v}` is not one of {}", choices.join(", "))))
    }
}

/// A workload's host program made for its arguments and seed.
pub type MakeApp = fn(&Args, u64) -> Result<Box<dyn App>, SuiteError>;

/// A workload of the library.
pub struct Workload {
    pub name: &'static str,
    /// The suite and the application as the suite names them.
    pub suite: &'static str,
    /// Where its CUDA source comes from.
    pub source: &'static str,
    /// Its arguments, with their defaults (`key=default`) and meaning.
    pub args: &'static [(&'static str, &'static str, &'static str)],
    /// What its input is.
    pub input: &'static str,
    /// Arguments of a small run of it (a few thousand warp instructions: the tests run it on
    /// every preset, by emulation and as a written trace).
    pub small: &'static str,
    /// Its host program for the given arguments and seed.
    pub make: MakeApp,
}

impl Workload {
    pub fn keys(&self) -> Vec<&'static str> {
        self.args.iter().map(|a| a.0).collect()
    }
}

/// `NAME[:ARGS]` made: the workload and its host program.
pub fn make(spec: &str, seed: u64) -> Result<(&'static Workload, Box<dyn App>), SuiteError> {
    let (name, args) = spec.split_once(':').unwrap_or((spec, ""));
    let w = apps::ALL
        .iter()
        .find(|w| w.name == name)
        .ok_or_else(|| SuiteError::Unknown {
            name: name.into(),
            known: apps::ALL
                .iter()
                .map(|w| w.name)
                .collect::<Vec<_>>()
                .join(", "),
        })?;
    let args = Args::parse(name, args, &w.keys())?;
    Ok((w, (w.make)(&args, seed)?))
}

/// The trace header of launch `l`, the `id`-th of its application (from 1).
pub fn header(l: &Launch, id: u64) -> crate::workload::accelsim::KernelHeader {
    crate::workload::accelsim::KernelHeader {
        name: l.kernel.name.clone(),
        id,
        grid: l.grid,
        block: l.block,
        shmem: l.kernel.shared + l.dyn_shared,
        nregs: l.kernel.regs,
        binary_version: 75,
        ..Default::default()
    }
}

/// The shared state of launch `l` (the `id`-th), its warps emulated against `mem`.
pub fn start(
    l: &Launch,
    id: u64,
    mem: &std::rc::Rc<std::cell::RefCell<DeviceMemory>>,
) -> Result<std::rc::Rc<launch::Shared>, String> {
    Ok(std::rc::Rc::new(launch::Shared {
        env: l.env(&mem.borrow())?,
        header: header(l, id),
        mem: std::rc::Rc::clone(mem),
        error: std::cell::RefCell::new(None),
    }))
}

/// Run `app` by emulation alone (no timing): each launch's blocks in order, each block whole;
/// `sink` sees each launch's header and blocks. Then the application's results are verified.
pub fn emulate(
    name: &str,
    app: &mut dyn App,
    mut sink: impl FnMut(
        &crate::workload::accelsim::KernelHeader,
        crate::workload::accelsim::TraceBlock,
    ),
) -> Result<(), SuiteError> {
    let host = |message: String| SuiteError::Host {
        workload: name.into(),
        message,
    };
    let mem = std::rc::Rc::new(std::cell::RefCell::new(DeviceMemory::default()));
    let mut id = 0;
    loop {
        let next = app.next(&mut mem.borrow_mut()).map_err(host)?;
        let Some(l) = next else { break };
        id += 1;
        let shared = start(&l, id, &mem).map_err(host)?;
        let blocks = launch::LaunchBlocks::new(std::rc::Rc::clone(&shared));
        for b in 0..shared.header.blocks() {
            let tb = blocks.whole(b)?;
            sink(&shared.header, tb);
        }
    }
    let verified = app.verify(&mem.borrow());
    verified.map_err(|m| host(format!("wrong result: {m}")))
}

#[cfg(test)]
mod tests;
