//! Accel-Sim SASS traces, read as a stream: `kernelslist.g` ([`read_list`]) names the kernels
//! (`kernel-<id>.traceg`) and the host-to-device copies between them; a [`KernelReader`] reads
//! one kernel's header, then hands out its thread blocks one at a time, so memory follows the
//! largest thread block, not the trace's length.
//!
//! Both instruction-line formats are read (the format notes: `../shared/notes/gpgpusim-formats.md`,
//! section 3): the legacy one (no `-accelsim tracer version`, so version 0, and every line led by
//! `tb_x tb_y tb_z warpid_tb`) and the newer ones (versions 3 to 5: `[line_num]` when
//! `-enable lineinfo = 1`, an immediate at the end from version 5). A memory instruction's
//! addresses are expanded per active lane from the three address modes (0: one per lane, 1:
//! base and stride, 2: base and deltas). Every error names the file and line and what was
//! expected there.
//!
//! Compressed traces (`.traceg.xz`) are not read: decompress them first (`xz -dk`); the error
//! says so.

use rustc_hash::FxHashMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// A trace that could not be read: the file, the line (1-based; 0 when the file itself could
/// not be opened) and what was wrong.
#[derive(Debug, Error)]
#[error("{}:{line}: {message}", file.display())]
pub struct TraceError {
    pub file: PathBuf,
    pub line: usize,
    pub message: String,
}

/// One command of `kernelslist.g`, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListEntry {
    /// `MemcpyHtoD,0x<address>,<bytes>`: data copied to the device before the next kernel.
    Memcpy { addr: u64, bytes: u64 },
    /// A kernel's trace file (relative names resolved against the list's folder).
    Kernel(PathBuf),
}

/// The commands of a trace folder's `kernelslist.g` (`path` is the folder or the list file;
/// a kernel trace file, one that starts with its `-kernel name` header, is a list of itself).
/// Other lines are skipped, as Accel-Sim skips them; a list that names no kernel trace is an
/// error (a run of it would simulate nothing).
pub fn read_list(path: &Path) -> Result<Vec<ListEntry>, TraceError> {
    let list = if path.is_dir() {
        path.join("kernelslist.g")
    } else {
        path.to_path_buf()
    };
    let dir = list.parent().map(Path::to_path_buf).unwrap_or_default();
    let text = spec::input::read_to_string(&list).map_err(|e| TraceError {
        file: list.clone(),
        line: 0,
        message: format!(
            "cannot read the kernel list: {e} (give a trace folder holding kernelslist.g, or the list file)"
        ),
    })?;
    if text.trim_start().starts_with("-kernel name") {
        return Ok(vec![ListEntry::Kernel(list)]);
    }
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        let bad = |message: String| TraceError {
            file: list.clone(),
            line: i + 1,
            message,
        };
        if let Some(rest) = line.strip_prefix("MemcpyHtoD,") {
            let (addr, bytes) = rest.split_once(',').ok_or_else(|| {
                bad(format!(
                    "`{line}`: a copy is MemcpyHtoD,0x<address>,<bytes>"
                ))
            })?;
            out.push(ListEntry::Memcpy {
                addr: hex(addr.trim())
                    .ok_or_else(|| bad(format!("`{addr}` is not a hex address")))?,
                bytes: bytes
                    .trim()
                    .parse()
                    .map_err(|_| bad(format!("`{bytes}` is not a byte count")))?,
            });
        } else if line.contains(".traceg") {
            out.push(ListEntry::Kernel(dir.join(line)));
        }
    }
    if !out.iter().any(|e| matches!(e, ListEntry::Kernel(_))) {
        return Err(TraceError {
            file: list,
            line: 0,
            message: "names no kernel trace (no line holds a `.traceg` file name): give a trace folder holding kernelslist.g, the list file or a kernel's .traceg file".into(),
        });
    }
    Ok(out)
}

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

/// A register number (`R<n>`, 0 to 255; R255 is the zero register, RZ): the type holds no
/// other, so a trace's register reaches the SM's 256-bit register sets in range.
pub type Reg = u8;

/// An instruction's source registers, up to four inline (an Accel-Sim trace line has at most
/// four; a built-in kernel's first arithmetic instruction after a group of loads reads every
/// loaded register). A vector per instruction was an allocation for nearly every line of a
/// trace: 0.6 % of a run's instructions (callgrind, vectoradd).
pub type Srcs = smallvec::SmallVec<[Reg; 4]>;

/// One warp instruction of a trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inst {
    /// Offset within the kernel.
    pub pc: u64,
    /// Active lanes (and true guard predicate).
    pub mask: u32,
    /// The opcode, an index into [`KernelReader::opcode`].
    pub op: u16,
    pub dest: Option<Reg>,
    pub srcs: Srcs,
    /// Bytes per lane of a memory instruction (from the opcode, as Accel-Sim derives it); 0
    /// for other instructions.
    pub mem_bytes: u32,
    /// A memory instruction's address per active lane, in lane order (empty otherwise).
    pub addrs: LaneAddrs,
}

/// A memory instruction's lane addresses, in lane order. Most warps' lanes step by one
/// stride: those are held as base and stride, with no allocation. (A vector per memory
/// instruction was an allocation and 8 bytes a lane: on matrixmul's trace, a tenth of a run
/// went to the allocator and to first touches of the 57 MB its resident blocks held.)
#[derive(Debug, Clone, Default)]
pub enum LaneAddrs {
    /// No lanes.
    #[default]
    Empty,
    /// `n` lanes (1 to 32), lane `k` at `base + k * stride` (wrapping).
    Strided { base: u64, stride: u64, n: u8 },
    /// Any other addresses.
    List(Box<[u64]>),
}

impl LaneAddrs {
    /// The addresses, held in the smaller form that gives them back in order.
    pub fn new(addrs: &[u64]) -> LaneAddrs {
        match addrs {
            [] => LaneAddrs::Empty,
            &[base, ..] if addrs.len() <= 32 => {
                let stride = addrs.get(1).map_or(0, |&a| a.wrapping_sub(base));
                if addrs.windows(2).all(|w| w[1].wrapping_sub(w[0]) == stride) {
                    LaneAddrs::strided(base, stride, addrs.len())
                } else {
                    LaneAddrs::List(addrs.into())
                }
            }
            _ => LaneAddrs::List(addrs.into()),
        }
    }

    /// `n` lanes (at most 32) stepping by `stride` from `base`: the form [`LaneAddrs::new`]
    /// gives those addresses, without listing them first.
    pub fn strided(base: u64, stride: u64, n: usize) -> LaneAddrs {
        debug_assert!(n <= 32, "{n} lanes");
        match n {
            0 => LaneAddrs::Empty,
            // (One lane has no stride: `new` holds it as 0.)
            1 => LaneAddrs::Strided {
                base,
                stride: 0,
                n: 1,
            },
            _ => LaneAddrs::Strided {
                base,
                stride,
                n: n as u8,
            },
        }
    }

    pub fn len(&self) -> usize {
        match self {
            LaneAddrs::Empty => 0,
            LaneAddrs::Strided { n, .. } => usize::from(*n),
            LaneAddrs::List(l) => l.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Lane `k`'s address (the `k`-th active lane's).
    pub fn get(&self, k: usize) -> Option<u64> {
        match self {
            LaneAddrs::Empty => None,
            LaneAddrs::Strided { base, stride, n } => {
                (k < usize::from(*n)).then(|| base.wrapping_add((k as u64).wrapping_mul(*stride)))
            }
            LaneAddrs::List(l) => l.get(k).copied(),
        }
    }

    pub fn first(&self) -> Option<u64> {
        self.get(0)
    }

    /// The addresses in lane order.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        (0..self.len()).map(|k| match self {
            LaneAddrs::Strided { base, stride, .. } => {
                base.wrapping_add((k as u64).wrapping_mul(*stride))
            }
            LaneAddrs::List(l) => l[k],
            LaneAddrs::Empty => unreachable!("no lanes to iterate"),
        })
    }

    pub fn to_vec(&self) -> Vec<u64> {
        self.iter().collect()
    }

    /// Every address moved by `delta` (wrapping).
    pub fn shift(&mut self, delta: u64) {
        match self {
            LaneAddrs::Empty => {}
            LaneAddrs::Strided { base, .. } => *base = base.wrapping_add(delta),
            LaneAddrs::List(l) => l.iter_mut().for_each(|a| *a = a.wrapping_add(delta)),
        }
    }
}

/// Equal when they hold the same addresses, in whichever form.
impl PartialEq for LaneAddrs {
    fn eq(&self, other: &LaneAddrs) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for LaneAddrs {}

impl<const N: usize> PartialEq<[u64; N]> for LaneAddrs {
    fn eq(&self, other: &[u64; N]) -> bool {
        self.len() == N && self.iter().eq(other.iter().copied())
    }
}

impl PartialEq<Vec<u64>> for LaneAddrs {
    fn eq(&self, other: &Vec<u64>) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter().copied())
    }
}

impl Inst {
    pub fn is_memory(&self) -> bool {
        self.mem_bytes > 0
    }
}

/// One thread block of a kernel: its index and every warp's instructions, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceBlock {
    pub id: [u32; 3],
    pub warps: Vec<Vec<Inst>>,
}

impl TraceBlock {
    /// Warp instructions in the block.
    pub fn instructions(&self) -> usize {
        self.warps.iter().map(Vec::len).sum()
    }
}

/// A kernel trace read thread block by thread block.
pub struct KernelReader<R> {
    file: PathBuf,
    input: R,
    line: usize,
    /// The instruction line being parsed (kept: a string per line was an allocation per
    /// instruction).
    text: String,
    header: KernelHeader,
    ops: Vec<String>,
    op_ids: FxHashMap<String, u16>,
    /// Bytes per lane of each opcode's accesses ([`access_bytes`], once per opcode).
    op_bytes: Vec<u32>,
    /// The lane addresses being parsed (kept, as `text` is).
    addrs: Vec<u64>,
    /// The rules every block of the kernel obeys, and the blocks read so far.
    rules: BlockRules,
}

impl KernelReader<BufReader<File>> {
    /// Open a `.traceg` file and read its header.
    pub fn open(path: &Path) -> Result<Self, TraceError> {
        let name = path.to_string_lossy();
        if name.ends_with(".xz") {
            return Err(TraceError {
                file: path.to_path_buf(),
                line: 0,
                message: "compressed traces are not read: decompress it first (xz -dk FILE) and \
                          name the .traceg in kernelslist.g"
                    .into(),
            });
        }
        let f = spec::input::open(path).map_err(|e| TraceError {
            file: path.to_path_buf(),
            line: 0,
            message: format!("cannot open the kernel trace: {e}"),
        })?;
        KernelReader::new(path, BufReader::with_capacity(1 << 16, f))
    }

    /// The trace file being read.
    pub fn file(&self) -> &File {
        self.input.get_ref()
    }
}

impl<R: BufRead> KernelReader<R> {
    /// Read the header from `input` (`file` names it in errors).
    pub fn new(file: &Path, input: R) -> Result<Self, TraceError> {
        let mut r = KernelReader {
            file: file.to_path_buf(),
            input,
            line: 0,
            text: String::new(),
            addrs: Vec::new(),
            header: KernelHeader::default(),
            ops: Vec::new(),
            op_ids: FxHashMap::default(),
            op_bytes: Vec::new(),
            rules: BlockRules::default(),
        };
        r.read_header()?;
        Ok(r)
    }

    pub fn header(&self) -> &KernelHeader {
        &self.header
    }

    /// The trace file's path, as errors name it.
    pub fn path(&self) -> &Path {
        &self.file
    }

    /// The text of opcode `op` (an [`Inst::op`]).
    pub fn opcode(&self, op: u16) -> &str {
        self.ops.get(usize::from(op)).map_or("?", String::as_str)
    }

    /// Every opcode met so far, numbered as [`Inst::op`] numbers them.
    pub fn opcodes(&self) -> &[String] {
        &self.ops
    }

    fn err(&self, message: String) -> TraceError {
        TraceError {
            file: self.file.clone(),
            line: self.line,
            message,
        }
    }

    /// The next line that is not blank, trimmed.
    fn next_text(&mut self) -> Result<Option<String>, TraceError> {
        let mut out = String::new();
        Ok(self
            .next_text_into(&mut out)?
            .then(|| out.trim().to_string()))
    }

    /// The next line that is not blank into `out`, untrimmed (false at the end): read there
    /// directly, with no copy, and no allocation once `out` is large enough.
    fn next_text_into(&mut self, out: &mut String) -> Result<bool, TraceError> {
        loop {
            out.clear();
            let n = read_line(&mut self.input, out).map_err(|e| TraceError {
                file: self.file.clone(),
                line: self.line + 1,
                message: format!("cannot read: {e}"),
            })?;
            if n == 0 {
                return Ok(false);
            }
            self.line += 1;
            if !out.trim().is_empty() {
                return Ok(true);
            }
        }
    }

    fn read_header(&mut self) -> Result<(), TraceError> {
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

    /// The next thread block, or `None` at the end of the trace. Every value is checked by
    /// the kernel's [`BlockRules`] where it is read.
    pub fn next_block(&mut self) -> Result<Option<TraceBlock>, TraceError> {
        let Some(line) = self.next_text()? else {
            return match self.rules.end_kernel() {
                Ok(()) => Ok(None),
                Err(m) => Err(self.err(m)),
            };
        };
        if line != "#BEGIN_TB" {
            return Err(self.err(format!("`{line}`: expected `#BEGIN_TB`")));
        }
        let line = self.next_text()?.unwrap_or_default();
        let id = line
            .strip_prefix("thread block")
            .and_then(|r| r.trim_start().strip_prefix('='))
            .and_then(|v| dims(&format!("({})", v.trim())))
            .ok_or_else(|| self.err(format!("`{line}`: expected `thread block = x,y,z`")))?;
        self.rules.begin_block(id).map_err(|m| self.err(m))?;
        let mut warps = vec![Vec::new(); self.rules.warps()];
        let mut sections = WarpSections::default();
        loop {
            let Some(line) = self.next_text()? else {
                return Err(self.err("the file ends inside a thread block (no `#END_TB`)".into()));
            };
            if line == "#END_TB" {
                let block = TraceBlock { id, warps };
                self.rules.end_block(&block).map_err(|m| self.err(m))?;
                return Ok(Some(block));
            }
            let w = field(&line, "warp")
                .ok_or_else(|| self.err(format!("`{line}`: expected `warp = N` or `#END_TB`")))?;
            let w = sections
                .give(w, &self.rules, self.line)
                .map_err(|m| self.err(m))?;
            let line = self.next_text()?.unwrap_or_default();
            let n = field(&line, "insts")
                .ok_or_else(|| self.err(format!("`{line}`: expected `insts = N`")))?;
            // (Grown as the lines come: `insts = N` is what the file claims, not what it holds.)
            let mut insts = Vec::new();
            let mut line_buf = std::mem::take(&mut self.text);
            for k in 0..n {
                let text = &mut line_buf;
                if !self.next_text_into(text)? {
                    return Err(self.err(format!(
                        "the file ends after {k} of warp {w}'s {n} instructions"
                    )));
                }
                let text = text.trim();
                // (The memchr crate's search: the standard library's took 1 % of a run.)
                if text.starts_with('#') || memchr::memchr(b'=', text.as_bytes()).is_some() {
                    return Err(self.err(format!(
                        "`{text}`: warp {w} has {k} instruction lines, but `insts = {n}`"
                    )));
                }
                let inst = self.parse_inst(text).map_err(|m| self.err(m))?;
                self.rules
                    .inst(w, &inst, &self.op_bytes)
                    .map_err(|m| self.err(m))?;
                insts.push(inst);
            }
            self.text = line_buf;
            warps[w] = insts;
        }
    }

    /// One instruction line.
    fn parse_inst(&mut self, line: &str) -> Result<Inst, String> {
        let mut t = Fields::new(line);
        if self.header.tracer_version < 3 {
            for what in ["tb_x", "tb_y", "tb_z", "warpid_tb"] {
                t.need(what)?;
            }
        }
        if self.header.lineinfo {
            let n = t.need("line number")?;
            n.parse::<u64>()
                .map_err(|_| format!("`{n}` is not a line number"))?;
        }
        let pc = t.need("PC").and_then(|v| {
            u64::from_str_radix(v, 16).map_err(|_| format!("`{v}` is not a hex PC"))
        })?;
        let mask = t.need("mask").and_then(|v| {
            u32::from_str_radix(v, 16).map_err(|_| format!("`{v}` is not a 32-bit hex mask"))
        })?;
        let dests = count(t.need("destination count")?, 1)?;
        let dest = match dests {
            0 => None,
            _ => Some(reg(t.need("destination register")?)?),
        };
        let opcode = t.need("opcode")?;
        let op = match self.op_ids.get(opcode) {
            Some(&id) => id,
            None => {
                let id = u16::try_from(self.ops.len())
                    .map_err(|_| "more than 65,536 distinct opcodes".to_string())?;
                self.ops.push(opcode.to_string());
                self.op_ids.insert(opcode.to_string(), id);
                self.op_bytes.push(access_bytes(opcode));
                id
            }
        };
        let n = count(t.need("source count")?, 4)?;
        let mut srcs = Srcs::new();
        for _ in 0..n {
            srcs.push(reg(t.need("source register")?)?);
        }
        let width = t.need("memory width")?;
        let width: u32 = width
            .parse()
            .map_err(|_| format!("`{width}` is not a memory width"))?;
        let (mut mem_bytes, mut addrs) = (0, std::mem::take(&mut self.addrs));
        addrs.clear();
        // Base and stride (address mode 1) are held as they are read; listed addresses are
        // gathered in `addrs` and held in the form `LaneAddrs::new` finds for them.
        let mut strided = None;
        if width > 0 {
            mem_bytes = self.op_bytes[usize::from(op)];
            let lanes = mask.count_ones() as usize;
            addrs.reserve(lanes);
            let mode = t.need("address mode")?;
            match mode {
                "0" => {
                    for _ in 0..lanes {
                        match t.next_hex() {
                            Some(Ok(a)) => addrs.push(a),
                            Some(Err(a)) => return Err(format!("`{a}` is not a hex address")),
                            None => return Err(format!("`{line}`: no lane address")),
                        }
                    }
                }
                "1" => {
                    let base = t.need("base address")?;
                    let base = hex(base).ok_or_else(|| format!("`{base}` is not a hex address"))?;
                    let stride = t.need("stride")?;
                    let stride: i64 = stride
                        .parse()
                        .map_err(|_| format!("`{stride}` is not a stride"))?;
                    strided = Some(LaneAddrs::strided(base, stride as u64, lanes));
                }
                "2" => {
                    let base = t.need("base address")?;
                    let mut a =
                        hex(base).ok_or_else(|| format!("`{base}` is not a hex address"))?;
                    if lanes > 0 {
                        addrs.push(a);
                    }
                    for _ in 1..lanes {
                        let d = t.need("address delta")?;
                        let d: i64 = d.parse().map_err(|_| format!("`{d}` is not a delta"))?;
                        a = a.wrapping_add(d as u64);
                        addrs.push(a);
                    }
                }
                m => return Err(format!("`{line}`: address mode {m} (known: 0, 1, 2)")),
            }
        }
        if self.header.tracer_version >= 5 {
            t.need("immediate")?;
        }
        if let Some(extra) = t.next() {
            return Err(format!(
                "`{line}`: `{extra}` after the instruction's last field (tracer version {})",
                self.header.tracer_version
            ));
        }
        let lanes = strided.unwrap_or_else(|| LaneAddrs::new(&addrs));
        self.addrs = addrs;
        Ok(Inst {
            pc,
            mask,
            op,
            dest,
            srcs,
            mem_bytes,
            addrs: lanes,
        })
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

/// The rules every thread block of a kernel obeys, whichever way it was read (the text, or a
/// packed copy: [`crate::workload::pack`]), each checked by one method both readers call: its
/// id is in the grid and given once in the kernel, it has the block's warps, a warp's lanes
/// are threads of the block, an instruction's opcode is known, it reads at most four
/// registers, and a memory instruction has its opcode's access size and one address per
/// active lane (any other none). A block holds at least one instruction and a kernel at least
/// one block: a run of either would simulate nothing. (Registers need no rule: [`Reg`] holds
/// R0 to R255 only.)
///
/// Memory follows the blocks the file holds (the ids seen), never the grid the header claims.
#[derive(Debug, Default)]
pub struct BlockRules {
    header: KernelHeader,
    warps: usize,
    /// The linear ids of the blocks read so far.
    seen: rustc_hash::FxHashSet<u64>,
    /// A rule left out: the tests' deliberately wrong variants.
    #[cfg(test)]
    lax: Option<Rule>,
}

/// The rules a test can leave out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    Grid,
    Twice,
    Mask,
}

impl BlockRules {
    /// The rules of kernel `h` (a checked header), no block read yet.
    pub fn new(h: &KernelHeader) -> BlockRules {
        BlockRules {
            header: h.clone(),
            warps: usize::try_from(h.warps()).unwrap_or(usize::MAX),
            seen: Default::default(),
            #[cfg(test)]
            lax: None,
        }
    }

    /// Whether rule `r` is kept (always, but in the tests' wrong variants).
    #[cfg(test)]
    fn keeps(&self, r: Rule) -> bool {
        self.lax != Some(r)
    }
    #[cfg(not(test))]
    #[inline(always)]
    fn keeps(&self, _: Rule) -> bool {
        true
    }

    /// Warps per block.
    pub fn warps(&self) -> usize {
        self.warps
    }

    /// A block begins: its id is in the grid and was not given before in the kernel.
    pub fn begin_block(&mut self, id: [u32; 3]) -> Result<(), String> {
        let h = &self.header;
        let linear = match h.linear(id) {
            Some(l) => Some(l),
            // (The wrong variant: the id's number in a grid of its own size.)
            None if !self.keeps(Rule::Grid) => Some(u64::from(id[0]) << 32 ^ u64::from(id[1])),
            None => None,
        };
        let Some(linear) = linear else {
            return Err(format!(
                "thread block {} is outside the grid {} (`-grid dim`): ids run from 0 to \
                 the dimension less one",
                show(id),
                show(h.grid)
            ));
        };
        if !self.seen.insert(linear) && self.keeps(Rule::Twice) {
            return Err(format!(
                "thread block {} is given twice in the kernel: each block of the grid is \
                 traced once",
                show(id)
            ));
        }
        Ok(())
    }

    /// Warp `w` of a block (as `warp = N` gives it): a warp of the block.
    pub fn warp(&self, w: u64) -> Result<usize, String> {
        usize::try_from(w)
            .ok()
            .filter(|&w| w < self.warps)
            .ok_or_else(|| {
                format!(
                    "warp {w}, but a block of {} threads has {} warps (0 to {})",
                    self.header.threads(),
                    self.warps,
                    self.warps.saturating_sub(1)
                )
            })
    }

    /// Instruction `i` of warp `w`; `op_bytes`: each known opcode's access size
    /// ([`access_bytes`]).
    pub fn inst(&self, w: usize, i: &Inst, op_bytes: &[u32]) -> Result<(), String> {
        let lanes = self.header.lanes(w);
        if i.mask & !lanes != 0 && self.keeps(Rule::Mask) {
            return Err(format!(
                "lane mask {:08x} has lanes beyond the block's threads: warp {w} of a block \
                 of {} threads has lanes {:08x}",
                i.mask,
                self.header.threads(),
                lanes
            ));
        }
        let Some(&bytes) = op_bytes.get(usize::from(i.op)) else {
            return Err(format!("opcode number {} is not known", i.op));
        };
        if i.srcs.len() > 4 {
            return Err(format!("{} source registers (at most 4)", i.srcs.len()));
        }
        let active = usize::try_from(i.mask.count_ones()).unwrap_or(usize::MAX);
        match (i.mem_bytes, i.addrs.len()) {
            (0, 0) => Ok(()),
            (b, n) if b == bytes && n == active => Ok(()),
            (b, n) => Err(format!(
                "a memory access of {b} bytes a lane with {n} addresses, for {active} \
                 active lanes of an opcode moving {bytes}"
            )),
        }
    }

    /// A block ends: it holds an instruction (and, when it was not read line by line, its
    /// warps are the block's).
    pub fn end_block(&self, b: &TraceBlock) -> Result<(), String> {
        if b.warps.len() != self.warps {
            return Err(format!(
                "thread block {} has {} warps, but a block of {} threads has {}",
                show(b.id),
                b.warps.len(),
                self.header.threads(),
                self.warps
            ));
        }
        if b.warps.iter().all(Vec::is_empty) {
            return Err(format!(
                "thread block {} holds no instruction: a run of it would simulate nothing",
                show(b.id)
            ));
        }
        Ok(())
    }

    /// The kernel ends: it held a block.
    pub fn end_kernel(&self) -> Result<(), String> {
        if self.seen.is_empty() {
            return Err(
                "the kernel holds no thread block (no `#BEGIN_TB` section after its \
                        header): the trace would simulate nothing"
                    .into(),
            );
        }
        Ok(())
    }

    /// A whole block read at once (from a packed copy): every rule above.
    pub fn block(&mut self, b: &TraceBlock, op_bytes: &[u32]) -> Result<(), String> {
        self.begin_block(b.id)?;
        self.end_block(b)?;
        for (w, insts) in b.warps.iter().enumerate() {
            for i in insts {
                self.inst(w, i, op_bytes)?;
            }
        }
        Ok(())
    }
}

/// The `warp = N` sections of one block given so far: each at most once.
#[derive(Default)]
struct WarpSections {
    /// Per section given, its warp and line (a block has at most 32 warps).
    given: smallvec::SmallVec<[(usize, usize); 32]>,
}

impl WarpSections {
    /// Section `w` at line `line`: a warp of the block, not given before in it.
    fn give(&mut self, w: u64, rules: &BlockRules, line: usize) -> Result<usize, String> {
        let w = rules.warp(w)?;
        if let Some((_, first)) = self.given.iter().find(|(g, _)| *g == w) {
            return Err(format!(
                "`warp = {w}` is given twice in the block (first at line {first}): a warp's \
                 instructions are one section"
            ));
        }
        self.given.push((w, line));
        Ok(w)
    }
}

/// `[x, y, z]` as `(x,y,z)`.
fn show(d: [u32; 3]) -> String {
    format!("({},{},{})", d[0], d[1], d[2])
}

/// Bytes per lane a memory opcode moves, as Accel-Sim's trace parser derives them: the first
/// all-digit modifier in bits (`LDG.E.128` moves 16), else a `U<bits>` / `S<bits>` modifier,
/// else 4; constant loads (`LDC`) 4.
pub fn access_bytes(opcode: &str) -> u32 {
    let mut parts = opcode.split('.');
    if parts.next() == Some("LDC") {
        return 4;
    }
    let mods: Vec<&str> = parts.collect();
    let bits = |s: &str| s.parse::<u32>().ok().filter(|b| b % 8 == 0 && *b > 0);
    mods.iter()
        .find_map(|m| bits(m))
        .or_else(|| {
            mods.iter().find_map(|m| {
                m.strip_prefix('U')
                    .or_else(|| m.strip_prefix('S'))
                    .and_then(bits)
            })
        })
        .map_or(4, |b| b / 8)
}

/// `BufRead::read_line`, finding the line's end with the `memchr` crate (vector
/// instructions) rather than the standard library's word-at-a-time search: a trace line is
/// some 560 bytes, and the search was 2 % of a trace run. Appends the line (with its line
/// feed) to `out` and returns its length; invalid UTF-8 is an `InvalidData` error and leaves
/// `out` as it was.
fn read_line<R: BufRead>(input: &mut R, out: &mut String) -> std::io::Result<usize> {
    let mut bytes = std::mem::take(out).into_bytes();
    let start = bytes.len();
    loop {
        let avail = match input.fill_buf() {
            Ok(a) => a,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                bytes.truncate(start);
                *out = String::from_utf8(bytes).unwrap_or_default();
                return Err(e);
            }
        };
        if avail.is_empty() {
            break;
        }
        match memchr::memchr(b'\n', avail) {
            Some(i) => {
                bytes.extend_from_slice(&avail[..=i]);
                input.consume(i + 1);
                break;
            }
            None => {
                let n = avail.len();
                bytes.extend_from_slice(avail);
                input.consume(n);
            }
        }
    }
    let n = bytes.len() - start;
    match String::from_utf8(bytes) {
        Ok(s) => {
            *out = s;
            Ok(n)
        }
        Err(e) => {
            let mut bytes = e.into_bytes();
            bytes.truncate(start);
            *out = String::from_utf8(bytes).unwrap_or_default();
            Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "stream did not contain valid UTF-8",
            ))
        }
    }
}

/// The fields of an instruction line, split at ASCII whitespace as
/// [`str::split_ascii_whitespace`] splits it, and lane addresses read while they are split.
/// (A trace's text is mostly lane addresses, 32 to a memory instruction: splitting a line and
/// then reading each address walked its bytes twice, with a branch on each digit's kind
/// that mispredicts on hex text: half of a run on a trace with address lists.)
struct Fields<'a> {
    line: &'a str,
    at: usize,
}

/// Per byte: its value as a hex digit, or [`NOT_HEX`].
static HEX: [u8; 256] = {
    let mut t = [NOT_HEX; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = match c as u8 {
            b'0'..=b'9' => c as u8 - b'0',
            b'a'..=b'f' => c as u8 - b'a' + 10,
            b'A'..=b'F' => c as u8 - b'A' + 10,
            _ => NOT_HEX,
        };
        c += 1;
    }
    t
};
const NOT_HEX: u8 = 0xff;

impl<'a> Fields<'a> {
    fn new(line: &'a str) -> Fields<'a> {
        Fields { line, at: 0 }
    }

    /// Skip whitespace; whether a field follows.
    #[inline]
    fn skip_space(&mut self) -> bool {
        let b = self.line.as_bytes();
        while self.at < b.len() && b[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
        self.at < b.len()
    }

    /// The next field.
    #[inline]
    fn next(&mut self) -> Option<&'a str> {
        if !self.skip_space() {
            return None;
        }
        let b = self.line.as_bytes();
        let start = self.at;
        while self.at < b.len() && !b[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
        // (Both ends are at ASCII bytes or the line's ends: character boundaries.)
        Some(&self.line[start..self.at])
    }

    /// The next field, or an error naming `what` is missing.
    fn need(&mut self, what: &str) -> Result<&'a str, String> {
        self.next()
            .ok_or_else(|| format!("`{}`: no {what}", self.line))
    }

    /// The next field as [`hex`] reads it (`Err`: the field, which is not a hex number),
    /// split and read in one pass, its digits eight bytes at a time ([`hex_run`]).
    #[inline]
    fn next_hex(&mut self) -> Option<Result<u64, &'a str>> {
        self.next_hex_with::<false>()
    }

    /// [`Fields::next_hex`]; `LAX`: the deliberately wrong variant of the tests (takes `g`
    /// for a digit).
    #[inline]
    fn next_hex_with<const LAX: bool>(&mut self) -> Option<Result<u64, &'a str>> {
        if !self.skip_space() {
            return None;
        }
        let b = self.line.as_bytes();
        let start = self.at;
        let mut i = start;
        if matches!(b.get(i..i + 2), Some(b"0x" | b"0X")) {
            i += 2;
        }
        if let Some(w) = b.get(i..i + 16).and_then(|w| <[u8; 16]>::try_from(w).ok()) {
            let (n, v) = hex_run::<LAX>(u128::from_le_bytes(w));
            let end = i + n;
            if n > 0 && b.get(end).is_none_or(u8::is_ascii_whitespace) {
                self.at = end;
                return Some(Ok(v));
            }
        }
        // Fewer than 16 bytes left in the line, more than 16 digits (leading zeros are
        // allowed) or not a number: the field whole, as `hex` reads it.
        self.at = start;
        let f = self.next()?;
        Some(hex(f).ok_or(f))
    }
}

/// The hex digits at the start of 16 bytes (`w`, the first in its lowest byte): how many
/// (0 to 16), and their value. Eight bytes at once (SWAR): a digit-by-digit loop waits on
/// the previous digit at each one, two cycles a digit.
#[inline]
fn hex_run<const LAX: bool>(w: u128) -> (usize, u64) {
    let (lo, hi) = (
        hex_digits8::<LAX>(w as u64),
        hex_digits8::<LAX>((w >> 64) as u64),
    );
    let n = if lo.0 < 8 { lo.0 } else { 8 + hi.0 };
    let v = if n <= 8 {
        hex_value8(lo.1, n)
    } else {
        hex_value8(lo.1, 8) << (4 * (n - 8)) | hex_value8(hi.1, n - 8)
    };
    (n, v)
}

/// The count of hex digits at the start of 8 bytes (`x`, the first in its lowest byte), and
/// every byte's value as a digit (meaningful for the digits only).
#[inline]
fn hex_digits8<const LAX: bool>(x: u64) -> (usize, u64) {
    const fn rep(b: u8) -> u64 {
        u64::from_le_bytes([b; 8])
    }
    // Per byte, bit 7 set when the byte's low 7 bits (`t`: no carry between bytes) are at
    // least `k`: t + (0x80 - k) < 0x100.
    let t = x & rep(0x7f);
    let ge = |y: u64, k: u8| (y + rep(0x80 - k)) & rep(0x80);
    let digit = ge(t, b'0') & !ge(t, b'9' + 1);
    let l = t | rep(0x20);
    let letter = ge(l, b'a') & !ge(l, b'f' + 1 + u8::from(LAX));
    let not_hex = !(digit | letter) & rep(0x80) | x & rep(0x80);
    // A digit's value is its low nibble, plus 9 for a letter (bit 6 set).
    let values = (t & rep(0x0f)) + ((t >> 6) & rep(0x01)) * 9;
    ((not_hex.trailing_zeros() / 8) as usize, values)
}

/// The number the first `n` (0 to 8) digit values of `v` (one a byte, the most significant
/// lowest) make.
#[inline]
fn hex_value8(v: u64, n: usize) -> u64 {
    if n == 0 {
        return 0;
    }
    // The digits moved to the top bytes (zeros below: leading zeros), then joined pairwise.
    let v = v << (8 * (8 - n));
    let v = ((v << 4) | (v >> 8)) & 0x00ff_00ff_00ff_00ff;
    let v = ((v << 8) | (v >> 16)) & 0x0000_ffff_0000_ffff;
    ((v << 16) | (v >> 32)) & 0xffff_ffff
}

/// A hexadecimal number, `0x` optional. (By hand: a trace holds one per active lane of every
/// memory instruction, and `u64::from_str_radix` was a tenth of a trace run.)
fn hex(s: &str) -> Option<u64> {
    let digits = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s)
        .as_bytes();
    let start = digits
        .iter()
        .position(|&c| c != b'0')
        .unwrap_or(digits.len());
    if digits.is_empty() || digits.len() - start > 16 {
        return None;
    }
    let (mut v, mut bad) = (0u64, 0u8);
    for &c in digits {
        let d = HEX[usize::from(c)];
        bad |= d;
        v = v << 4 | u64::from(d & 15);
    }
    (bad != NOT_HEX).then_some(v)
}

/// `(x,y,z)` as three numbers.
fn dims(s: &str) -> Option<[u32; 3]> {
    let inner = s.trim().strip_prefix('(')?.strip_suffix(')')?;
    let v: Vec<u32> = inner
        .split(',')
        .map(|x| x.trim().parse().ok())
        .collect::<Option<_>>()?;
    v.try_into().ok()
}

/// `(x,y,z)`, each dimension from 1 to `most`'s; `Err`: the legal values.
fn dims_within(s: &str, most: [u32; 3]) -> Result<[u32; 3], String> {
    let legal = || {
        format!(
            "(x,y,z), each from 1 to {} (x), {} (y) and {} (z), CUDA's limits",
            most[0], most[1], most[2]
        )
    };
    let d = dims(s).ok_or_else(legal)?;
    if d.iter().zip(&most).any(|(&v, &m)| v == 0 || v > m) {
        return Err(legal());
    }
    Ok(d)
}

/// A decimal number of the field's type (at most `max`); `Err`: its range.
fn decimal<T: std::str::FromStr + std::fmt::Display>(s: &str, max: T) -> Result<T, String> {
    s.parse()
        .map_err(|_| format!("a whole number from 0 to {max}"))
}

/// The number of `key = N`.
fn field(line: &str, key: &str) -> Option<u64> {
    let (k, v) = line.split_once('=')?;
    (k.trim() == key).then(|| v.trim().parse().ok())?
}

fn count(s: &str, most: usize) -> Result<usize, String> {
    s.parse::<usize>()
        .ok()
        .filter(|&n| n <= most)
        .ok_or_else(|| format!("`{s}` is not a register count from 0 to {most}"))
}

fn reg(s: &str) -> Result<Reg, String> {
    s.strip_prefix('R')
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| format!("`{s}` is not a register (R0 to R255; R255 is RZ)"))
}

#[cfg(test)]
#[path = "accelsim_tests.rs"]
mod tests;
