//! Packed kernel traces: the thread blocks of an Accel-Sim `.traceg` file, as parsed, in a
//! binary form that reads back without parsing text.
//!
//! Reading a trace's text is most of a run on memory-heavy kernels: a lane address is 17
//! bytes of hex, and matrixmul's 77 MB trace took half its run to read. A run that reads a
//! kernel's text to its end writes the blocks it parsed to a packed copy in a cache folder
//! (`$WARPSMITH_CACHE_DIR/traces`); a later run of the same file reads the copy instead. The
//! copy is keyed by the trace file's path, length and modification time, a hash of its first
//! and last 64 KiB, and warpsmith's version: a changed trace is parsed again (and packed
//! again). The text's header is read
//! from the text in either case (it is short, and its errors stay those of the text).
//!
//! The format (all integers little-endian): `MAGIC`, the key's length (u32) and bytes; then a
//! record per block: its length (u32, from the tag on) and `1`, the block's coordinates (3 ×
//! u32), the opcodes first seen in it (u16 count, each u16 length and bytes), its warps (u32
//! count; per warp u32 instruction count; per instruction pc u64, mask u32, opcode u16,
//! destination u16 (`NO_REG`: none), source count u8 and u16 each, access bytes u32, lane
//! addresses (tag u8: 0 none, 1 strided (base u64, stride u64, count u8), 2 a list (count u8,
//! u64 each)); and last a record holding only `0`, the end. A copy without its end is never
//! kept: it is written to a temporary file renamed into place once the text has been read
//! whole.
//!
//! Hand-written, not a serialisation crate's: the records are flat and few, and a crate
//! would need `serde` on `SmallVec` and the address forms for no gain in speed.

use super::accelsim::{Inst, LaneAddrs, Srcs, TraceBlock, TraceError};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"WSPACK01";
const NO_REG: u16 = u16::MAX;

/// Bytes of the text's start and of its end that the key holds a hash of.
const SAMPLE: u64 = 1 << 16;

/// The packed copy of `trace` in `dir`, and the key it must carry: `None` if the trace's
/// metadata or text cannot be read (then it is not packed).
pub fn copy_of(dir: &Path, trace: &Path) -> Option<(PathBuf, Vec<u8>)> {
    use std::io::{Seek, SeekFrom};
    let meta = std::fs::metadata(trace).ok()?;
    let path = std::fs::canonicalize(trace).ok()?;
    let modified = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    // The text's first and last 64 KiB: a trace rewritten at its length within a file
    // system's time step (a second on some) is told apart where it differs there.
    let mut f = File::open(trace).ok()?;
    let mut sample = Vec::new();
    (&mut f).take(SAMPLE).read_to_end(&mut sample).ok()?;
    f.seek(SeekFrom::Start(meta.len().saturating_sub(SAMPLE)))
        .ok()?;
    f.take(SAMPLE).read_to_end(&mut sample).ok()?;
    let sampled = sha256_hex(&sample, 16);
    let key = format!(
        "{}\0{}\0{}.{:09}\0{sampled}\0{}",
        path.display(),
        meta.len(),
        modified.as_secs(),
        modified.subsec_nanos(),
        env!("CARGO_PKG_VERSION")
    )
    .into_bytes();
    let name = sha256_hex(&key, 10);
    Some((dir.join(format!("{name}.wspack")), key))
}

/// The first `n` bytes of the SHA-256 of `bytes`, in hex.
fn sha256_hex(bytes: &[u8], n: usize) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)[..n]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Writes a packed copy as a trace's blocks are parsed; kept only when [`PackWriter::finish`]
/// is reached (a dropped writer removes its temporary file).
pub struct PackWriter {
    out: BufWriter<tempfile::NamedTempFile>,
    to: PathBuf,
    record: Vec<u8>,
    blocks: u64,
}

impl PackWriter {
    /// A copy to be kept at `to`, carrying `key`.
    pub fn create(to: &Path, key: &[u8]) -> std::io::Result<PackWriter> {
        let dir = to.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        let tmp = tempfile::NamedTempFile::new_in(dir)?;
        let mut out = BufWriter::with_capacity(1 << 16, tmp);
        out.write_all(MAGIC)?;
        out.write_all(&(key.len() as u32).to_le_bytes())?;
        out.write_all(key)?;
        Ok(PackWriter {
            out,
            to: to.to_path_buf(),
            record: Vec::new(),
            blocks: 0,
        })
    }

    /// One block, with the opcodes it uses that no earlier block did (in the order the text
    /// reader numbered them).
    pub fn block(&mut self, b: &TraceBlock, new_ops: &[String]) -> std::io::Result<()> {
        let r = &mut self.record;
        r.clear();
        r.push(1);
        for d in b.id {
            r.extend(d.to_le_bytes());
        }
        r.extend((new_ops.len() as u16).to_le_bytes());
        for op in new_ops {
            r.extend((op.len() as u16).to_le_bytes());
            r.extend(op.as_bytes());
        }
        r.extend((b.warps.len() as u32).to_le_bytes());
        for w in &b.warps {
            r.extend((w.len() as u32).to_le_bytes());
            for i in w {
                put_inst(r, i);
            }
        }
        self.out.write_all(&(r.len() as u32).to_le_bytes())?;
        self.out.write_all(r)?;
        self.blocks += 1;
        Ok(())
    }

    /// Blocks written so far.
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// The end: the copy is renamed into place.
    pub fn finish(mut self) -> std::io::Result<()> {
        self.out.write_all(&1u32.to_le_bytes())?;
        self.out.write_all(&[0])?;
        let tmp = self.out.into_inner().map_err(|e| e.into_error())?;
        tmp.persist(&self.to).map_err(|e| e.error)?;
        Ok(())
    }
}

fn put_inst(r: &mut Vec<u8>, i: &Inst) {
    r.extend(i.pc.to_le_bytes());
    r.extend(i.mask.to_le_bytes());
    r.extend(i.op.to_le_bytes());
    r.extend(i.dest.unwrap_or(NO_REG).to_le_bytes());
    r.push(i.srcs.len() as u8);
    for s in &i.srcs {
        r.extend(s.to_le_bytes());
    }
    r.extend(i.mem_bytes.to_le_bytes());
    match &i.addrs {
        LaneAddrs::Empty => r.push(0),
        LaneAddrs::Strided { base, stride, n } => {
            r.push(1);
            r.extend(base.to_le_bytes());
            r.extend(stride.to_le_bytes());
            r.push(*n);
        }
        LaneAddrs::List(l) => {
            r.push(2);
            r.push(l.len() as u8);
            for a in l.iter() {
                r.extend(a.to_le_bytes());
            }
        }
    }
}

/// Reads a packed copy's blocks back.
pub struct PackReader {
    input: BufReader<File>,
    file: PathBuf,
    record: Vec<u8>,
    ops: Vec<String>,
    ended: bool,
}

impl PackReader {
    /// The copy at `path` if it exists and carries `key`; `None` otherwise (a missing,
    /// foreign or stale copy is parsed again from the text).
    pub fn open(path: &Path, key: &[u8]) -> Option<PackReader> {
        let mut input = BufReader::with_capacity(1 << 16, File::open(path).ok()?);
        let mut head = [0u8; 12];
        input.read_exact(&mut head).ok()?;
        let len = u32::from_le_bytes(head[8..12].try_into().ok()?) as usize;
        if &head[..8] != MAGIC || len != key.len() {
            return None;
        }
        let mut stored = vec![0; len];
        input.read_exact(&mut stored).ok()?;
        (stored == key).then(|| PackReader {
            input,
            file: path.to_path_buf(),
            record: Vec::new(),
            ops: Vec::new(),
            ended: false,
        })
    }

    /// The text of opcode `op`, as the text reader numbered it.
    pub fn opcode(&self, op: u16) -> &str {
        self.ops.get(usize::from(op)).map_or("?", String::as_str)
    }

    /// Every opcode of the blocks read so far, numbered as [`Inst::op`] numbers them.
    pub fn opcodes(&self) -> &[String] {
        &self.ops
    }

    fn err(&self, message: &str) -> TraceError {
        TraceError {
            file: self.file.clone(),
            line: 0,
            message: format!(
                "packed trace copy: {message}; delete the file (it is rebuilt from the text)"
            ),
        }
    }

    /// The next block; `None` at the end.
    pub fn next_block(&mut self) -> Result<Option<TraceBlock>, TraceError> {
        if self.ended {
            return Ok(None);
        }
        let mut len = [0u8; 4];
        self.input
            .read_exact(&mut len)
            .map_err(|_| self.err("it ends without its end record"))?;
        let len = u32::from_le_bytes(len) as usize;
        self.record.resize(len, 0);
        self.input
            .read_exact(&mut self.record)
            .map_err(|_| self.err("it ends inside a record"))?;
        let mut c = Cursor {
            b: &self.record,
            at: 0,
        };
        let block =
            decode(&mut c, &mut self.ops).ok_or_else(|| self.err("a record is malformed"))?;
        if block.is_none() {
            self.ended = true;
        }
        Ok(block)
    }
}

/// A record's bytes, read in order; `None` past their end.
struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn bytes<const N: usize>(&mut self) -> Option<[u8; N]> {
        let v = self.b.get(self.at..self.at + N)?.try_into().ok()?;
        self.at += N;
        Some(v)
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.bytes::<1>()?[0])
    }
    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_le_bytes(self.bytes()?))
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.bytes()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.bytes()?))
    }
}

/// One record: `Some(None)` the end, `None` malformed.
fn decode(c: &mut Cursor<'_>, ops: &mut Vec<String>) -> Option<Option<TraceBlock>> {
    match c.u8()? {
        0 => return (c.at == c.b.len()).then_some(None),
        1 => {}
        _ => return None,
    }
    let id = [c.u32()?, c.u32()?, c.u32()?];
    for _ in 0..c.u16()? {
        let n = usize::from(c.u16()?);
        let text = c.b.get(c.at..c.at + n)?;
        c.at += n;
        ops.push(String::from_utf8(text.to_vec()).ok()?);
    }
    let nw = c.u32()? as usize;
    // (Counts are checked against the bytes left before anything is reserved for them.)
    let mut warps = Vec::with_capacity(nw.min(c.b.len() - c.at));
    for _ in 0..nw {
        let ni = c.u32()? as usize;
        let mut insts = Vec::with_capacity(ni.min(c.b.len() - c.at));
        for _ in 0..ni {
            insts.push(inst(c, ops.len())?);
        }
        warps.push(insts);
    }
    (c.at == c.b.len()).then_some(Some(TraceBlock { id, warps }))
}

fn inst(c: &mut Cursor<'_>, ops: usize) -> Option<Inst> {
    let pc = c.u64()?;
    let mask = c.u32()?;
    let op = c.u16()?;
    if usize::from(op) >= ops {
        return None;
    }
    let dest = Some(c.u16()?).filter(|&d| d != NO_REG);
    let mut srcs = Srcs::new();
    for _ in 0..c.u8()? {
        srcs.push(c.u16()?);
    }
    let mem_bytes = c.u32()?;
    let addrs = match c.u8()? {
        0 => LaneAddrs::Empty,
        1 => {
            let (base, stride, n) = (c.u64()?, c.u64()?, c.u8()?);
            (1..=32).contains(&n).then_some(())?;
            LaneAddrs::Strided { base, stride, n }
        }
        2 => {
            let n = c.u8()?;
            (n <= 32).then_some(())?;
            (0..n)
                .map(|_| c.u64())
                .collect::<Option<Vec<u64>>>()
                .map(|v| LaneAddrs::List(v.into()))?
        }
        _ => return None,
    };
    Some(Inst {
        pc,
        mask,
        op,
        dest,
        srcs,
        mem_bytes,
        addrs,
    })
}

#[cfg(test)]
#[path = "pack_tests.rs"]
mod tests;
