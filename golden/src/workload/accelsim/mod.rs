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

mod fields;
mod header;
mod inst;
mod reader;
mod rules;

pub use header::{KernelHeader, MAX_BLOCK_DIM, MAX_BLOCK_THREADS, MAX_GRID_DIM, TRACER_VERSIONS};
pub use inst::{access_bytes, Inst, LaneAddrs, Reg, Srcs, TraceBlock};
pub use reader::KernelReader;
pub use rules::BlockRules;

use fields::hex;
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
            "cannot read the kernel list: {e} (give a trace folder holding kernelslist.g, or the \
                list file)"
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
            message: "names no kernel trace (no line holds a `.traceg` file name): give a trace \
                folder holding kernelslist.g, the list file or a kernel's .traceg file"
                .into(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
