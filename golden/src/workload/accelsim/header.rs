//! A kernel trace's header: its values, their domains, and how the reader reads them.

use super::fields::{decimal, dims_within, hex};
use super::reader::KernelReader;
use super::rules::BlockRules;
use super::TraceError;
use std::io::BufRead;

/// A kernel trace's header. The reader checks every value against the domain a real trace
/// has ([`MAX_BLOCK_DIM`], [`MAX_BLOCK_THREADS`], [`MAX_GRID_DIM`], no zero dimension,
/// [`TRACER_VERSIONS`]); a built-in kernel's header comes from a validated [`KernelDesc`]
/// (at most 1,024 threads a block too).
///
/// [`KernelDesc`]: crate::workload::KernelDesc
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KernelHeader {
    pub name: String,
    pub id: u64,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Shared memory per block (bytes) and registers per thread.
    pub shmem: u32,
    pub nregs: u32,
    pub binary_version: u32,
    pub stream: u64,
    /// Bases of the shared and local windows of the generic address space (0: not given).
    pub shmem_base: u64,
    pub local_base: u64,
    /// `-accelsim tracer version` (0 when absent: the legacy format).
    pub tracer_version: u32,
    /// `-enable lineinfo = 1`: every line starts with a source line number.
    pub lineinfo: bool,
}

/// CUDA's limits on a thread block (x, y, z), its threads in all, and a grid (x, y, z): the
/// domain of a real trace's `-block dim` and `-grid dim` (every dimension at least 1).
pub const MAX_BLOCK_DIM: [u32; 3] = [1024, 1024, 64];
pub const MAX_BLOCK_THREADS: u64 = 1024;
pub const MAX_GRID_DIM: [u32; 3] = [(1 << 31) - 1, 65535, 65535];

/// The `-accelsim tracer version`s the reader implements (a trace without the line is the
/// legacy format, version 0).
pub const TRACER_VERSIONS: [u32; 3] = [3, 4, 5];

impl KernelHeader {
    /// Threads per block (in 64 bits: no product of three dimensions overflows).
    pub fn threads(&self) -> u64 {
        self.block.iter().map(|&d| u64::from(d)).product()
    }

    /// Warps per block (32 threads each; `u32::MAX` if more, which no checked header has).
    pub fn warps(&self) -> u32 {
        u32::try_from(self.threads().div_ceil(32)).unwrap_or(u32::MAX)
    }

    /// Thread blocks in the grid.
    pub fn blocks(&self) -> u64 {
        self.grid.iter().map(|&d| u64::from(d)).product()
    }

    /// Block `id`'s number in the grid (`x + y*gx + z*gx*gy`), if it is in the grid.
    pub fn linear(&self, id: [u32; 3]) -> Option<u64> {
        if id.iter().zip(&self.grid).any(|(i, g)| i >= g) {
            return None;
        }
        let [gx, gy, _] = self.grid.map(u64::from);
        let [x, y, z] = id.map(u64::from);
        // (Below 2^31 * 2^16 * 2^16: no overflow.)
        Some(x + gx * (y + gy * z))
    }

    /// The lanes of warp `w` that are threads of the block (all 32 but in a last warp whose
    /// block's thread count is not a multiple of 32).
    pub fn lanes(&self, w: usize) -> u32 {
        let threads = usize::try_from(self.threads()).unwrap_or(usize::MAX);
        match threads.saturating_sub(w.saturating_mul(32)) {
            n if n >= 32 => u32::MAX,
            n => (1u32 << n) - 1,
        }
    }
}

/// The header keys the reader takes, and whether a trace must give it.
const HEADER_KEYS: [(&str, bool); 12] = [
    ("kernel name", true),
    ("grid dim", true),
    ("block dim", true),
    ("kernel id", false),
    ("shmem", false),
    ("nregs", false),
    ("binary version", false),
    ("cuda stream id", false),
    ("shmem base_addr", false),
    ("local mem base_addr", false),
    ("accelsim tracer version", false),
    ("enable lineinfo", false),
];

impl<R: BufRead> KernelReader<R> {
    pub(super) fn read_header(&mut self) -> Result<(), TraceError> {
        // The keys read, each with the line that gave it (a key given twice is refused: which
        // value a tool takes is not said anywhere).
        let mut given: Vec<(&'static str, usize)> = Vec::new();
        loop {
            let Some(line) = self.next_text()? else {
                return Err(
                    self.err("the file ends inside the header (no `#traces format` line)".into())
                );
            };
            if line.starts_with('#') {
                break;
            }
            let Some(rest) = line.strip_prefix('-') else {
                return Err(self.err(format!("`{line}`: a header line is `-key = value`")));
            };
            let Some((key, value)) = rest.split_once('=') else {
                return Err(self.err(format!("`{line}`: a header line is `-key = value`")));
            };
            let (key, value) = (key.trim(), value.trim());
            let Some(&(known, _)) = HEADER_KEYS.iter().find(|(k, _)| *k == key) else {
                // Keys Accel-Sim does not use either (`-nvbit version`, ...).
                continue;
            };
            if let Some((_, first)) = given.iter().find(|(k, _)| *k == known) {
                return Err(self.err(format!(
                    "`-{key}` is given twice (first at line {first}): give it once"
                )));
            }
            given.push((known, self.line));
            self.header_value(known, value)
                .map_err(|legal| self.err(format!("`-{key} = {value}`: {legal}")))?;
        }
        for (key, _) in HEADER_KEYS.iter().filter(|(_, needed)| *needed) {
            if !given.iter().any(|(k, _)| k == key) {
                return Err(self.err(format!(
                    "the header has no `-{key}` (a kernel trace's header gives it before its \
                     `#traces format` line)"
                )));
            }
        }
        let threads = self.header.threads();
        if threads > MAX_BLOCK_THREADS {
            return Err(self.err(format!(
                "`-block dim = {:?}` is {threads} threads a block; CUDA's limit is \
                 {MAX_BLOCK_THREADS}",
                self.header.block
            )));
        }
        self.rules = BlockRules::new(&self.header);
        Ok(())
    }

    /// Set header key `key` from `value`; `Err`: the legal values.
    fn header_value(&mut self, key: &str, value: &str) -> Result<(), String> {
        let h = &mut self.header;
        match key {
            "kernel name" => h.name = value.to_string(),
            "kernel id" => h.id = decimal(value, u64::MAX)?,
            "grid dim" => h.grid = dims_within(value, MAX_GRID_DIM)?,
            "block dim" => h.block = dims_within(value, MAX_BLOCK_DIM)?,
            "shmem" => h.shmem = decimal(value, u32::MAX)?,
            "nregs" => h.nregs = decimal(value, u32::MAX)?,
            "binary version" => h.binary_version = decimal(value, u32::MAX)?,
            "cuda stream id" => h.stream = decimal(value, u64::MAX)?,
            "shmem base_addr" => h.shmem_base = hex(value).ok_or("a hex address")?,
            "local mem base_addr" => h.local_base = hex(value).ok_or("a hex address")?,
            "accelsim tracer version" => {
                let known = || {
                    let v: Vec<String> = TRACER_VERSIONS.iter().map(u32::to_string).collect();
                    format!(
                        "the reader knows versions {} and the legacy format (no version line)",
                        v.join(", ")
                    )
                };
                let v: u32 = value.parse().map_err(|_| known())?;
                if !TRACER_VERSIONS.contains(&v) {
                    return Err(known());
                }
                h.tracer_version = v;
            }
            "enable lineinfo" => {
                h.lineinfo = match value {
                    "0" => false,
                    "1" => true,
                    _ => return Err("0 or 1".into()),
                }
            }
            _ => unreachable!("`{key}` is in HEADER_KEYS"),
        }
        Ok(())
    }
}
