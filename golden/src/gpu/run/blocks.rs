//! Where the dispatcher's blocks come from: a trace's file (or its packed copy), or a built-in
//! or TOML kernel's generator.

use super::GpuError;
use crate::gpu::kernel::{KernelBlocks, WarpGen};
use crate::workload::accelsim::{KernelHeader, KernelReader, TraceBlock, TraceError};
use crate::workload::pack::{self, PackReader, PackWriter};

/// Where the dispatcher's blocks come from.
pub(super) trait Blocks {
    fn header(&self) -> &KernelHeader;
    fn opcode(&self, op: u16) -> &str;
    /// Block `linear` of the grid; `None` if the source ended before it.
    fn take(&mut self, linear: u64) -> Result<Option<TraceBlock>, GpuError>;
    /// Per warp of the block last taken, the generator of its later instructions, their
    /// loads moved by `shift` (a generated kernel's; none when the block holds them all).
    fn take_rest(&mut self, _shift: u64) -> Vec<WarpGen> {
        Vec::new()
    }
}

/// A trace's blocks, streamed from its file in file order: the queue-based policies the GPU
/// runs traces under hand out the oldest waiting block, and file order is the age. With a
/// cache folder, from the file's packed copy when one is there ([`crate::workload::pack`]),
/// else parsed from the text and packed on the way. A copy found bad at any record is deleted
/// and the blocks go on from the text, from the same block: those handed out before it passed
/// their checksums and the text's rules, so they are the text's, and the run's figures are
/// those of a run that never had the copy.
pub(super) struct TraceBlocks {
    /// The header, and the blocks when there is no packed copy.
    reader: KernelReader<std::io::BufReader<std::fs::File>>,
    packed: Option<PackReader>,
    /// The copy being written (dropped, with its temporary file, if writing it fails or the
    /// run does not read the text to its end).
    packing: Option<PackWriter>,
    /// Where the copy is kept and the key it carries (with a cache folder).
    copy: Option<(std::path::PathBuf, Vec<u8>)>,
    /// Blocks handed out, and blocks read from the text.
    taken: u64,
    parsed: u64,
    /// What the user is told (a bad copy deleted).
    pub notes: Vec<String>,
}

impl TraceBlocks {
    pub fn open(path: &std::path::Path, cache: Option<&std::path::Path>) -> Result<Self, GpuError> {
        let reader = KernelReader::open(path)?;
        let copy = cache.and_then(|dir| pack::copy_of(dir, path, reader.file()));
        let packed = copy
            .as_ref()
            .and_then(|(p, key)| PackReader::open(p, key, reader.header()));
        // (A folder that cannot be written to only costs the copy: the run reads the text.)
        let packing = match (&packed, &copy) {
            (None, Some((p, key))) => PackWriter::create(p, key).ok(),
            _ => None,
        };
        Ok(TraceBlocks {
            reader,
            packed,
            packing,
            copy,
            taken: 0,
            parsed: 0,
            notes: Vec::new(),
        })
    }

    /// The text's next block, packed on the way. After the grid's last block the text must
    /// end (a further block would be a second of an id or outside the grid, which the rules
    /// refuse); the copy is kept once the text has been read to its end.
    fn text_block(&mut self) -> Result<Option<TraceBlock>, GpuError> {
        let known = self.reader.opcodes().len();
        let block = self.reader.next_block()?;
        let mut ended = block.is_none();
        if let Some(b) = &block {
            self.parsed += 1;
            if let Some(w) = &mut self.packing {
                if w.block(b, &self.reader.opcodes()[known..]).is_err() {
                    self.packing = None;
                }
            }
            if self.parsed == self.reader.header().blocks() {
                // (`Some` cannot come: the grid's ids are all taken.)
                let _ = self.reader.next_block()?;
                ended = true;
            }
        }
        if ended {
            if let Some(w) = self.packing.take() {
                let _ = w.finish();
            }
        }
        Ok(block)
    }

    /// The copy was found bad: delete it and read the text from its start, packing it again,
    /// up to the blocks already handed out.
    fn fall_back_to_text(&mut self, why: TraceError) -> Result<(), GpuError> {
        if let Some(p) = self.packed.take() {
            self.notes.push(format!(
                "the packed copy {} of {} is bad ({}): it is deleted and the trace's text is \
                 read instead",
                why.file.display(),
                self.reader.path().display(),
                why.message
            ));
            p.discard();
        }
        self.packing = self
            .copy
            .as_ref()
            .and_then(|(p, key)| PackWriter::create(p, key).ok());
        while self.parsed < self.taken {
            if self.text_block()?.is_none() {
                break;
            }
        }
        Ok(())
    }
}

impl Blocks for TraceBlocks {
    fn header(&self) -> &KernelHeader {
        self.reader.header()
    }
    fn opcode(&self, op: u16) -> &str {
        match &self.packed {
            Some(p) => p.opcode(op),
            None => self.reader.opcode(op),
        }
    }
    fn take(&mut self, _linear: u64) -> Result<Option<TraceBlock>, GpuError> {
        let block = match self.packed.as_mut().map(PackReader::next_block) {
            Some(Ok(b)) => b,
            Some(Err(why)) => {
                self.fall_back_to_text(why)?;
                self.text_block()?
            }
            None => self.text_block()?,
        };
        if block.is_some() {
            self.taken += 1;
            // After the grid's last block the copy must end too, as the text must: a bad end
            // record is found (and the copy rebuilt) now, not never.
            if self.taken == self.reader.header().blocks() {
                if let Some(Err(why)) = self.packed.as_mut().map(PackReader::next_block) {
                    self.fall_back_to_text(why)?;
                }
            }
        }
        Ok(block)
    }
}

impl Blocks for KernelBlocks {
    fn header(&self) -> &KernelHeader {
        KernelBlocks::header(self)
    }
    fn opcode(&self, op: u16) -> &str {
        crate::gpu::kernel::OPCODES
            .get(usize::from(op))
            .copied()
            .unwrap_or("?")
    }
    fn take(&mut self, linear: u64) -> Result<Option<TraceBlock>, GpuError> {
        Ok(Some(KernelBlocks::take(self, linear)))
    }
    fn take_rest(&mut self, shift: u64) -> Vec<WarpGen> {
        KernelBlocks::take_rest(self, shift)
            .into_iter()
            .map(WarpGen::Kernel)
            .collect()
    }
}

impl Blocks for crate::suite::launch::LaunchBlocks {
    fn header(&self) -> &KernelHeader {
        &self.shared.header
    }
    fn opcode(&self, op: u16) -> &str {
        self.shared
            .env
            .code
            .opcodes
            .get(usize::from(op))
            .map_or("?", String::as_str)
    }
    fn take(&mut self, linear: u64) -> Result<Option<TraceBlock>, GpuError> {
        Ok(Some(crate::suite::launch::LaunchBlocks::take(self, linear)))
    }
    fn take_rest(&mut self, shift: u64) -> Vec<WarpGen> {
        crate::suite::launch::LaunchBlocks::take_rest(self, shift)
            .into_iter()
            .map(WarpGen::Suite)
            .collect()
    }
}
