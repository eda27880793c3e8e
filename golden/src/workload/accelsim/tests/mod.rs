//! The trace reader's tests, by topic; the helpers they share.

mod fields;
mod mutation;
mod reading;
mod rules;

use super::fields::{reg, Fields};
use super::reader::read_line;
use super::rules::Rule;
use super::*;
use proptest::prelude::*;
use std::io::BufRead;
use std::io::Cursor;

/// The reference trace samples (copies of ../shared/reference/accelsim-traces, with their
/// SOURCES.md).
fn reference(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests-data/accelsim-traces")
        .join(dir)
}

/// Every block of a trace file.
fn blocks(path: &Path) -> (KernelHeader, Vec<TraceBlock>, Vec<String>) {
    let mut r = KernelReader::open(path).unwrap();
    let mut out = Vec::new();
    while let Some(b) = r.next_block().unwrap() {
        out.push(b);
    }
    let ops = (0..r.ops.len() as u16)
        .map(|i| r.opcode(i).to_string())
        .collect();
    (r.header().clone(), out, ops)
}

/// Instruction lines counted from the text alone: neither blank, nor a marker (`#`), nor a
/// header or section line (`-key = value`, `warp = N`, ...), written independently of the
/// reader.
fn text_instructions(path: &Path) -> (usize, u64) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = 0;
    let mut declared = 0;
    for l in text.lines().map(str::trim) {
        if let Some(n) = l.strip_prefix("insts = ") {
            declared += n.parse::<u64>().unwrap();
        } else if !(l.is_empty() || l.starts_with('#') || l.starts_with('-') || l.contains('=')) {
            lines += 1;
        }
    }
    (lines, declared)
}

fn header(version: u32, lineinfo: bool) -> String {
    format!(
        "-kernel name = k\n-kernel id = 1\n-grid dim = (2,1,1)\n-block dim = (64,1,1)\n\
         -accelsim tracer version = {version}\n-enable lineinfo = {}\n\n#traces format = ...\n\n",
        u8::from(lineinfo)
    )
}

fn read(text: &str) -> Result<Vec<TraceBlock>, TraceError> {
    let mut r = KernelReader::new(Path::new("t.traceg"), Cursor::new(text.as_bytes().to_vec()))?;
    let mut out = Vec::new();
    while let Some(b) = r.next_block()? {
        out.push(b);
    }
    Ok(out)
}
