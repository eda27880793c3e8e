//! The kernel trace reader: its header, then one thread block at a time.

use super::fields::{count, dims, field, hex, reg, Fields};
use super::header::KernelHeader;
use super::inst::{access_bytes, Inst, LaneAddrs, Srcs, TraceBlock};
use super::rules::{BlockRules, WarpSections};
use super::TraceError;
use rustc_hash::FxHashMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

/// A kernel trace read thread block by thread block.
pub struct KernelReader<R> {
    pub(super) file: PathBuf,
    pub(super) input: R,
    pub(super) line: usize,
    /// The instruction line being parsed (kept: a string per line was an allocation per
    /// instruction).
    pub(super) text: String,
    pub(super) header: KernelHeader,
    pub(super) ops: Vec<String>,
    pub(super) op_ids: FxHashMap<String, u16>,
    /// Bytes per lane of each opcode's accesses ([`access_bytes`], once per opcode).
    pub(super) op_bytes: Vec<u32>,
    /// The lane addresses being parsed (kept, as `text` is).
    pub(super) addrs: Vec<u64>,
    /// The rules every block of the kernel obeys, and the blocks read so far.
    pub(super) rules: BlockRules,
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

    pub(super) fn err(&self, message: String) -> TraceError {
        TraceError {
            file: self.file.clone(),
            line: self.line,
            message,
        }
    }

    /// The next line that is not blank, trimmed.
    pub(super) fn next_text(&mut self) -> Result<Option<String>, TraceError> {
        let mut out = String::new();
        Ok(self
            .next_text_into(&mut out)?
            .then(|| out.trim().to_string()))
    }

    /// The next line that is not blank into `out`, untrimmed (false at the end): read there
    /// directly, with no copy, and no allocation once `out` is large enough.
    pub(super) fn next_text_into(&mut self, out: &mut String) -> Result<bool, TraceError> {
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
                // (The memchr crate's search, vector instructions over a long line.)
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
    pub(super) fn parse_inst(&mut self, line: &str) -> Result<Inst, String> {
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

/// `BufRead::read_line`, finding the line's end with the `memchr` crate (vector
/// instructions) rather than the standard library's word-at-a-time search, since a trace line
/// is some 560 bytes. Appends the line (with its line
/// feed) to `out` and returns its length; invalid UTF-8 is an `InvalidData` error and leaves
/// `out` as it was.
pub(super) fn read_line<R: BufRead>(input: &mut R, out: &mut String) -> std::io::Result<usize> {
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
