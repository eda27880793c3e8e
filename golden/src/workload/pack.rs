//! Packed kernel traces: the thread blocks of an Accel-Sim `.traceg` file, as parsed, in a
//! binary form that reads back without parsing text.
//!
//! Reading a trace's text is most of a run on memory-heavy kernels: a lane address is 17
//! bytes of hex, and matrixmul's 77 MB trace took half its run to read. A run that reads a
//! kernel's text to its end writes the blocks it parsed to a packed copy in a cache folder
//! (`$WARPSMITH_CACHE_DIR/traces`); a later run of the same file reads the copy instead.
//!
//! **The key.** A copy is named by the trace's canonical path and warpsmith's version, and
//! holds a key compared whole before any block is read: that path, the file's device and inode,
//! its length, its modification time and its change time (`st_ctime`, to the nanosecond), a
//! hash of its first and last 64 KiB, and the version. The change time is set by the kernel
//! at every change of the file and no user call sets it back (`touch -r`, `cp -p`, `rsync -t`
//! and `tar x` restore the modification time only; a copied or extracted file is also a new
//! inode), so an edited trace is never read from the copy of its old text. The key is taken
//! from the file the text reader has open. A changed trace is parsed again and packed again,
//! its new copy replacing the stale one. The text's header is read from the text in either
//! case (it is short, and its errors stay those of the text).
//!
//! **Checked.** Every record carries a CRC-32 of its bytes, and every block read back passes
//! the kernel's [`BlockRules`], the rules the text reader applies to what it parses. A copy
//! found bad at any record (cut, corrupted, or holding a block the rules refuse) is an error
//! the GPU run answers by deleting the copy and going on from the text, from the same block
//! ([`crate::gpu::run`]): the run's figures are those of the text.
//!
//! The format (all integers little-endian): `MAGIC`, the key's length (u32) and bytes; then a
//! record per block: its length (u32, from the tag on), the CRC-32 of the length's and the
//! record's bytes (u32), and the record: `1`, the block's coordinates (3 × u32), the opcodes
//! first seen in it (u16 count, each u16 length and bytes), its warps (u32 count; per warp u32
//! instruction count; per instruction pc u64, mask u32, opcode u16, destination (u8 `0` none,
//! `1` and the register u8), source count u8 and a u8 register each, access bytes u32, lane
//! addresses (tag u8: 0 none, 1 strided (base u64, stride u64, count u8), 2 a list (count u8,
//! u64 each)); and last a record holding `0` and the count of blocks (u64), the end. A copy
//! without its end is never kept: it is written to a temporary file (`.tmp-wspack-*`, locked
//! while its writer lives) renamed into place once the text has been read whole; a temporary
//! file whose writer died (it can be locked) is deleted by the next writer.
//!
//! Hand-written, not a serialisation crate's: the records are flat and few, and a crate
//! would need `serde` on `SmallVec` and the address forms for no gain in speed.

use super::accelsim::{
    access_bytes, BlockRules, Inst, KernelHeader, LaneAddrs, Srcs, TraceBlock, TraceError,
};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"WSPACK02";

/// Bytes of the text's start and of its end that the key holds a hash of.
const SAMPLE: u64 = 1 << 16;

/// The prefix of a writer's temporary file.
const TEMP_PREFIX: &str = ".tmp-wspack-";

/// Seconds a temporary file is left alone after its last change, whatever its lock says (a
/// writer locks its file just after creating it).
const TEMP_GRACE_SECS: u64 = 60;

/// The packed copy of `trace` in `dir`, and the key it must carry; `file` is the trace as the
/// text reader has it open (the key describes that file). `None` if its metadata or text
/// cannot be read (then it is not packed).
pub fn copy_of(dir: &Path, trace: &Path, file: &File) -> Option<(PathBuf, Vec<u8>)> {
    use std::os::unix::fs::FileExt;
    let meta = file.metadata().ok()?;
    if !meta.is_file() {
        return None;
    }
    let path = std::fs::canonicalize(trace).ok()?;
    // The text's first and last 64 KiB: a trace rewritten within a file system's time step
    // (a second on some) is told apart where it differs there. (Read at their offsets: the
    // reader's position in the file is not moved.)
    let mut sample = Vec::new();
    for start in [0, meta.len().saturating_sub(SAMPLE)] {
        let mut buf = vec![0u8; usize::try_from(SAMPLE.min(meta.len())).ok()?];
        let mut got = 0;
        while got < buf.len() {
            let offset = start.checked_add(u64::try_from(got).ok()?)?;
            match file.read_at(&mut buf[got..], offset) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return None,
            }
        }
        sample.extend_from_slice(&buf[..got]);
    }
    let version = env!("CARGO_PKG_VERSION");
    let key = format!(
        "{}\0dev {} ino {}\0{}\0mtime {}.{:09}\0ctime {}.{:09}\0{}\0{version}",
        path.display(),
        meta.dev(),
        meta.ino(),
        meta.len(),
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ctime(),
        meta.ctime_nsec(),
        sha256_hex(&sample, 16),
    )
    .into_bytes();
    let name = sha256_hex(format!("{}\0{version}", path.display()).as_bytes(), 10);
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

/// A count or length as the format's field type (an error if it does not fit).
fn field<T: TryFrom<usize>>(n: usize, what: &str) -> std::io::Result<T> {
    T::try_from(n).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{n} {what} do not fit the packed format"),
        )
    })
}

/// Delete the temporary files in `dir` whose writers died: a live writer holds its file
/// locked; one that can be locked, and has not changed for [`TEMP_GRACE_SECS`], is left over.
fn sweep_temporaries(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        if !e.file_name().to_string_lossy().starts_with(".tmp") {
            continue;
        }
        let path = e.path();
        // (Regular files only: opening a FIFO would block.)
        let Ok(f) = spec::input::open(&path) else {
            continue;
        };
        let quiet = f
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age.as_secs() >= TEMP_GRACE_SECS);
        if quiet && f.try_lock().is_ok() {
            let _ = std::fs::remove_file(&path);
        }
    }
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
        sweep_temporaries(dir);
        let tmp = tempfile::Builder::new()
            .prefix(TEMP_PREFIX)
            .tempfile_in(dir)?;
        // (Where the file system has no locks, the file is never taken for a dead writer's.)
        let _ = tmp.as_file().try_lock();
        let mut out = BufWriter::with_capacity(1 << 16, tmp);
        out.write_all(MAGIC)?;
        out.write_all(&field::<u32>(key.len(), "key bytes")?.to_le_bytes())?;
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
        r.extend(field::<u16>(new_ops.len(), "opcodes")?.to_le_bytes());
        for op in new_ops {
            r.extend(field::<u16>(op.len(), "opcode bytes")?.to_le_bytes());
            r.extend(op.as_bytes());
        }
        r.extend(field::<u32>(b.warps.len(), "warps")?.to_le_bytes());
        for w in &b.warps {
            r.extend(field::<u32>(w.len(), "instructions")?.to_le_bytes());
            for i in w {
                put_inst(r, i)?;
            }
        }
        self.write_record()?;
        self.blocks += 1;
        Ok(())
    }

    /// The record in `self.record`, with its length and checksum.
    fn write_record(&mut self) -> std::io::Result<()> {
        let len = field::<u32>(self.record.len(), "record bytes")?.to_le_bytes();
        let mut crc = crc32fast::Hasher::new();
        crc.update(&len);
        crc.update(&self.record);
        self.out.write_all(&len)?;
        self.out.write_all(&crc.finalize().to_le_bytes())?;
        self.out.write_all(&self.record)
    }

    /// Blocks written so far.
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// The end: the copy is renamed into place (replacing a stale one).
    pub fn finish(mut self) -> std::io::Result<()> {
        self.record.clear();
        self.record.push(0);
        self.record.extend(self.blocks.to_le_bytes());
        self.write_record()?;
        let tmp = self.out.into_inner().map_err(|e| e.into_error())?;
        tmp.persist(&self.to).map_err(|e| e.error)?;
        Ok(())
    }
}

fn put_inst(r: &mut Vec<u8>, i: &Inst) -> std::io::Result<()> {
    r.extend(i.pc.to_le_bytes());
    r.extend(i.mask.to_le_bytes());
    r.extend(i.op.to_le_bytes());
    match i.dest {
        None => r.push(0),
        Some(d) => r.extend([1, d]),
    }
    r.push(field::<u8>(i.srcs.len(), "source registers")?);
    r.extend(i.srcs.iter());
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
            r.push(field::<u8>(l.len(), "lane addresses")?);
            for a in l.iter() {
                r.extend(a.to_le_bytes());
            }
        }
    }
    Ok(())
}

/// Reads a packed copy's blocks back, each checked against its record's checksum and the
/// kernel's [`BlockRules`].
pub struct PackReader {
    input: BufReader<File>,
    file: PathBuf,
    /// The copy's device and inode (it is deleted only if its path still names it).
    id: (u64, u64),
    /// Bytes of the copy not read yet: no record is longer.
    left: u64,
    record: Vec<u8>,
    ops: Vec<String>,
    /// Bytes per lane of each opcode's accesses ([`access_bytes`]).
    op_bytes: Vec<u32>,
    rules: BlockRules,
    blocks: u64,
    ended: bool,
    /// Records are checked against their checksums (always; off only in the tests'
    /// deliberately wrong variant).
    checked: bool,
}

impl PackReader {
    /// The copy at `path` of the kernel whose text has header `header`, if it is a regular
    /// file and carries `key`; `None` otherwise (a missing, foreign or stale copy is parsed
    /// again from the text).
    pub fn open(path: &Path, key: &[u8], header: &KernelHeader) -> Option<PackReader> {
        let f = spec::input::open(path).ok()?;
        let meta = f.metadata().ok()?;
        let mut input = BufReader::with_capacity(1 << 16, f);
        let mut head = [0u8; 12];
        input.read_exact(&mut head).ok()?;
        let len = usize::try_from(u32::from_le_bytes(head[8..12].try_into().ok()?)).ok()?;
        if &head[..8] != MAGIC || len != key.len() {
            return None;
        }
        let mut stored = vec![0; len];
        input.read_exact(&mut stored).ok()?;
        let read = u64::try_from(head.len() + len).ok()?;
        (stored == key).then(|| PackReader {
            input,
            file: path.to_path_buf(),
            id: (meta.dev(), meta.ino()),
            left: meta.len().saturating_sub(read),
            record: Vec::new(),
            ops: Vec::new(),
            op_bytes: Vec::new(),
            rules: BlockRules::new(header),
            blocks: 0,
            ended: false,
            checked: true,
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

    /// The copy's path.
    pub fn path(&self) -> &Path {
        &self.file
    }

    fn err(&self, message: &str) -> TraceError {
        TraceError {
            file: self.file.clone(),
            line: 0,
            message: message.to_string(),
        }
    }

    /// Delete the copy (found bad), if its path still names the file read (another run may
    /// have put a good copy in its place since).
    pub fn discard(self) {
        let same = std::fs::symlink_metadata(&self.file)
            .is_ok_and(|m| m.is_file() && (m.dev(), m.ino()) == self.id);
        if same {
            let _ = std::fs::remove_file(&self.file);
        }
    }

    /// The next block; `None` at the end. An error: the copy is bad from here on.
    pub fn next_block(&mut self) -> Result<Option<TraceBlock>, TraceError> {
        if self.ended {
            return Ok(None);
        }
        let mut head = [0u8; 8];
        self.input
            .read_exact(&mut head)
            .map_err(|_| self.err("it ends without its end record"))?;
        let len_bytes: [u8; 4] = [head[0], head[1], head[2], head[3]];
        let crc = u32::from_le_bytes([head[4], head[5], head[6], head[7]]);
        let len = u32::from_le_bytes(len_bytes);
        // (A length is checked against the bytes the file holds before anything is
        // reserved for it.)
        let left = self.left.saturating_sub(8);
        if u64::from(len) > left {
            return Err(self.err("a record is longer than the rest of the file"));
        }
        self.left = left - u64::from(len);
        self.record.clear();
        self.record.resize(
            usize::try_from(len).map_err(|_| self.err("a record too long"))?,
            0,
        );
        self.input
            .read_exact(&mut self.record)
            .map_err(|_| self.err("it ends inside a record"))?;
        let mut sum = crc32fast::Hasher::new();
        sum.update(&len_bytes);
        sum.update(&self.record);
        if self.checked && sum.finalize() != crc {
            return Err(self.err("a record's checksum does not match its bytes"));
        }
        let mut c = Cursor {
            b: &self.record,
            at: 0,
        };
        let decoded = decode(&mut c, &mut self.ops, &mut self.op_bytes);
        let Some(record) = decoded else {
            return Err(self.err("a record is malformed"));
        };
        match record {
            Record::End { blocks } => {
                if blocks != self.blocks || self.left != 0 {
                    return Err(self.err("its end record does not close its blocks"));
                }
                self.rules.end_kernel().map_err(|m| self.err(&m))?;
                self.ended = true;
                Ok(None)
            }
            Record::Block(b) => {
                self.rules
                    .block(&b, &self.op_bytes)
                    .map_err(|m| self.err(&m))?;
                self.blocks += 1;
                Ok(Some(b))
            }
        }
    }
}

/// A record's bytes, read in order; `None` past their end.
struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn bytes<const N: usize>(&mut self) -> Option<[u8; N]> {
        let v = self
            .b
            .get(self.at..self.at.checked_add(N)?)?
            .try_into()
            .ok()?;
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
    /// A count of items of at least `size` bytes each: at most what the bytes left hold.
    fn count(&mut self, n: u32, size: usize) -> Option<usize> {
        let n = usize::try_from(n).ok()?;
        (n.checked_mul(size)? <= self.b.len() - self.at).then_some(n)
    }
}

enum Record {
    Block(TraceBlock),
    End { blocks: u64 },
}

/// One record (`None`: malformed), its new opcodes appended to `ops` and their access sizes
/// to `op_bytes`.
fn decode(c: &mut Cursor<'_>, ops: &mut Vec<String>, op_bytes: &mut Vec<u32>) -> Option<Record> {
    match c.u8()? {
        0 => {
            let blocks = c.u64()?;
            return (c.at == c.b.len()).then_some(Record::End { blocks });
        }
        1 => {}
        _ => return None,
    }
    let id = [c.u32()?, c.u32()?, c.u32()?];
    for _ in 0..c.u16()? {
        let n = usize::from(c.u16()?);
        let text = c.b.get(c.at..c.at.checked_add(n)?)?;
        c.at += n;
        let op = String::from_utf8(text.to_vec()).ok()?;
        if ops.len() > usize::from(u16::MAX) {
            return None;
        }
        op_bytes.push(access_bytes(&op));
        ops.push(op);
    }
    // (An instruction takes at least 21 bytes, a warp 4.)
    let nw = c.u32()?;
    let mut warps = Vec::with_capacity(c.count(nw, 4)?);
    for _ in 0..nw {
        let ni = c.u32()?;
        let mut insts = Vec::with_capacity(c.count(ni, 21)?);
        for _ in 0..ni {
            insts.push(inst(c)?);
        }
        warps.push(insts);
    }
    (c.at == c.b.len()).then_some(Record::Block(TraceBlock { id, warps }))
}

fn inst(c: &mut Cursor<'_>) -> Option<Inst> {
    let pc = c.u64()?;
    let mask = c.u32()?;
    let op = c.u16()?;
    let dest = match c.u8()? {
        0 => None,
        1 => Some(c.u8()?),
        _ => return None,
    };
    let mut srcs = Srcs::new();
    for _ in 0..c.u8()? {
        srcs.push(c.u8()?);
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
