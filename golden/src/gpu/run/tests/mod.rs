//! The GPU run's tests, by topic; the helpers they share.

mod dispatch;
mod hostile;
mod idle;
mod issue;
mod launch;
mod memory;
mod prefetch;
mod traces;

use super::*;
use crate::workload::pack::{PackReader, PackWriter};
use crate::workload::KernelDesc;
use spec::gpu::ExecClass;
use spec::ConfigRequest;
use std::path::PathBuf;

fn traces(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests-data/accelsim-traces")
        .join(dir)
}

fn preset(name: &str) -> Spec {
    ConfigRequest::preset(name).resolve().unwrap()
}

/// Instruction lines of a trace file, counted from its text alone.
fn counted(path: &Path) -> u64 {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::trim)
        .filter(|l| !(l.is_empty() || l.starts_with('#') || l.starts_with('-') || l.contains('=')))
        .count() as u64
}

/// A load of R4 (32 lanes, 4 bytes each, one 128-byte line), then a chain of `n` additions
/// that starts from `first` (R4: waits for the load; R6: does not).
fn load_then_chain(first: u32, n: usize) -> Vec<String> {
    let mut b = vec!["0000 ffffffff 1 R4 LDG.E.SYS 1 R2 4 1 0x10000 4 0".to_string()];
    let mut src = first;
    for k in 0..n {
        let dst = 10 + (k % 2) as u32;
        b.push(format!(
            "{:04x} ffffffff 1 R{dst} IADD3 2 R{src} R255 0 0",
            16 * (k + 1)
        ));
        src = dst;
    }
    b
}

/// A one-warp, one-block kernel: `body` instruction lines, then EXIT.
fn cycles_of(s: &Spec, body: &[String]) -> RunSummary {
    blocks_run(s, &[body.to_vec()])
}

/// A random kernel: `blocks` blocks of `warps` warps, each warp a random mix of arithmetic,
/// loads, stores and barriers (every warp of a block has the same number of barriers, as a
/// real kernel has), over a few registers and a small address range.
fn random_kernel(dir: &Path, seed: u64, blocks: u32, warps: u32) -> u64 {
    let mut rng = crate::rng::Rng::new(seed);
    // Registers a thread: the SM holds fewer blocks at once (its occupancy, checked every
    // cycle by the runs' bounds check); at most 4 warps x 32 x 128 fit tiny's 16,384.
    let nregs = [0, 32, 64, 128][(seed % 4) as usize];
    let mut t = format!(
        "-kernel name = r\n-kernel id = 1\n-grid dim = ({blocks},1,1)\n-block dim = ({},1,1)\n\
         -nregs = {nregs}\n-accelsim tracer version = 5\n\n#traces format = ...\n\n",
        32 * warps
    );
    let mut total = 0u64;
    let barriers = rng.below(3);
    for b in 0..blocks {
        t += &format!("#BEGIN_TB\nthread block = {b},0,0\n");
        for w in 0..warps {
            let mut lines = Vec::new();
            let mut bars_left = barriers;
            let n = 1 + rng.below(40);
            for k in 0..n {
                let pc = 16 * k;
                let (d, s1) = (rng.below(8), rng.below(8));
                let mask = match rng.below(4) {
                    0 => 0xffff_0000u32,
                    1 => 0,
                    _ => u32::MAX,
                };
                let base = 0x10_0000 + 128 * rng.below(64);
                let stride = [4u64, 8, 128, 0][rng.below(4) as usize];
                let line = match rng.below(10) {
                    0..=3 => format!(
                        "{pc:04x} {mask:08x} 1 R{d} LDG.E.SYS 1 R{s1} 4 1 0x{base:x} {stride} 0"
                    ),
                    4 => format!(
                        "{pc:04x} {mask:08x} 0 STG.E.SYS 2 R{s1} R{d} 4 1 0x{base:x} {stride} 0"
                    ),
                    5 if bars_left > 0 => {
                        bars_left -= 1;
                        format!("{pc:04x} ffffffff 0 BAR.SYNC 0 0 0")
                    }
                    _ => format!("{pc:04x} ffffffff 1 R{d} IADD3 2 R{s1} R255 0 0"),
                };
                lines.push(line);
            }
            for _ in 0..bars_left {
                lines.push(format!(
                    "{:04x} ffffffff 0 BAR.SYNC 0 0 0",
                    16 * lines.len()
                ));
            }
            total += lines.len() as u64;
            t += &format!(
                "warp = {w}\ninsts = {}\n{}\n",
                lines.len(),
                lines.join("\n")
            );
        }
        t += "#END_TB\n";
    }
    std::fs::write(dir.join("kernel-1.traceg"), t).unwrap();
    std::fs::write(dir.join("kernelslist.g"), "kernel-1.traceg\n").unwrap();
    total
}

/// A trace of `blocks.len()` one-warp blocks, block `b` running `blocks[b]` (then EXIT).
fn blocks_trace(dir: &Path, blocks: &[Vec<String>]) {
    let one_warp: Vec<&[Vec<String>]> = blocks.iter().map(std::slice::from_ref).collect();
    kernel_trace(dir, &one_warp);
}

/// A trace of `blocks.len()` blocks of as many warps as the first has: block `b`'s warp `w`
/// runs `blocks[b][w]` (then EXIT).
fn kernel_trace(dir: &Path, blocks: &[&[Vec<String>]]) {
    let warps = blocks.first().map_or(1, |b| b.len());
    let mut t = format!(
        "-kernel name = k\n-kernel id = 1\n-grid dim = ({},1,1)\n-block dim = ({},1,1)\n\
         -accelsim tracer version = 5\n\n#traces format = ...\n\n",
        blocks.len(),
        32 * warps
    );
    for (b, block) in blocks.iter().enumerate() {
        t += &format!("#BEGIN_TB\nthread block = {b},0,0\n");
        for (w, body) in block.iter().enumerate() {
            t += &format!("warp = {w}\ninsts = {}\n", body.len() + 1);
            for l in body {
                t += l;
                t += "\n";
            }
            t += &format!("{:04x} ffffffff 0 EXIT 0 0 0\n", 16 * body.len());
        }
        t += "#END_TB\n";
    }
    std::fs::write(dir.join("kernel-1.traceg"), t).unwrap();
    std::fs::write(dir.join("kernelslist.g"), "kernel-1.traceg\n").unwrap();
}

fn blocks_run(s: &Spec, blocks: &[Vec<String>]) -> RunSummary {
    let dir = tempfile::tempdir().unwrap();
    blocks_trace(dir.path(), blocks);
    run_trace(s, dir.path(), None).unwrap()
}

/// Lane 0 loads 4 bytes at `addr` into R`dst`.
fn load1(pc: u64, dst: u32, addr: u64) -> String {
    format!("{pc:04x} 00000001 1 R{dst} LDG.E.SYS 1 R2 4 1 {addr:#x} 4 0")
}

/// A chain of `n` additions from R`src` (the first waits for R`src`).
fn chain(pc: u64, src: u32, n: usize) -> Vec<String> {
    (0..n)
        .map(|k| {
            let s = if k == 0 { src } else { 20 + (k as u32 - 1) % 2 };
            format!(
                "{:04x} 00000001 1 R{} IADD3 2 R{s} R255 0 0",
                pc + 16 * k as u64,
                20 + k as u32 % 2
            )
        })
        .collect()
}

/// The memory side's documented unloaded latency (offer at core cycle `c` to the reply at the
/// port; `crate::mem::partition` tests check the memory side against it).
fn side(s: &Spec, c: u64, hit: bool) -> u64 {
    crate::mem::partition::tests::documented_side(s, c.into(), true, hit) as u64
}

/// One block whose warps run `warps` (instruction lines each, then EXIT).
fn warps_run(s: &Spec, warps: &[Vec<String>]) -> RunSummary {
    let dir = tempfile::tempdir().unwrap();
    kernel_trace(dir.path(), &[warps]);
    run_trace(s, dir.path(), None).unwrap()
}

/// `n` instructions of opcode `op` (every lane): each reading the one before's result
/// (`dependent`), or each on registers of its own.
fn ops(op: &str, n: usize, dependent: bool) -> Vec<String> {
    (0..n)
        .map(|k| {
            let (dst, src) = if dependent {
                let src = if k == 0 { 255 } else { 20 + (k as u32 - 1) % 2 };
                (20 + k as u32 % 2, src)
            } else {
                (20 + k as u32, 255)
            };
            format!("{:04x} ffffffff 1 R{dst} {op} 2 R{src} R255 0 0", 16 * k)
        })
        .collect()
}

/// An address anywhere in the 64-bit space, biased to the edges where a packed or narrowed
/// field would break: near 0, 2^32, 2^48, 2^53, 2^63 and the top.
fn far_address(rng: &mut crate::rng::Rng) -> u64 {
    let edge = [
        0u64,
        1 << 32,
        1 << 48,
        1 << 53,
        1 << 63,
        u64::MAX - (1 << 20),
    ];
    match rng.below(3) {
        0 => rng.next_u64(),
        _ => edge[rng.below(6) as usize].wrapping_add(rng.below(1 << 20)),
    }
}

/// A trace of `blocks` one-warp blocks whose loads and stores are at `far_address`es: lanes
/// strided, scattered (a list of addresses) or on one address, some crossing a line. Returns
/// the instruction count and the memory instructions among them.
fn far_trace(dir: &Path, seed: u64, blocks: u32) -> (u64, u64) {
    let mut rng = crate::rng::Rng::new(seed);
    let mut bodies = Vec::new();
    let (mut total, mut memory) = (0, 0);
    for _ in 0..blocks {
        let mut body = Vec::new();
        for k in 0..1 + rng.below(12) {
            let pc = 16 * k;
            let base = far_address(&mut rng);
            let stride = [0u64, 4, 8, 128, 4096][rng.below(5) as usize];
            let pick = rng.below(4);
            memory += u64::from(pick < 3);
            let line = match pick {
                0 => format!("{pc:04x} ffffffff 1 R1 LDG.E.SYS 1 R2 4 1 {base:#x} {stride} 0"),
                1 => format!("{pc:04x} ffffffff 0 STG.E.SYS 2 R2 R3 4 1 {base:#x} {stride} 0"),
                2 => {
                    let lanes: Vec<String> = (0..32)
                        .map(|_| format!("{:#x}", far_address(&mut rng)))
                        .collect();
                    format!(
                        "{pc:04x} ffffffff 1 R4 LDG.E.SYS 1 R2 4 0 {} 0",
                        lanes.join(" ")
                    )
                }
                _ => format!("{pc:04x} ffffffff 1 R5 IADD3 2 R1 R4 0 0"),
            };
            body.push(line);
        }
        total += body.len() as u64 + 1;
        bodies.push(body);
    }
    blocks_trace(dir, &bodies);
    (total, memory)
}
