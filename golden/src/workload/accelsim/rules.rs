//! The rules every thread block of a kernel obeys, whichever way it was read.

use super::header::KernelHeader;
use super::inst::{Inst, TraceBlock};

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
    pub(super) lax: Option<Rule>,
}

/// The rules a test can leave out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Rule {
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
    pub(super) fn keeps(&self, r: Rule) -> bool {
        self.lax != Some(r)
    }
    #[cfg(not(test))]
    #[inline(always)]
    pub(super) fn keeps(&self, _: Rule) -> bool {
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
pub(super) struct WarpSections {
    /// Per section given, its warp and line (a block has at most 32 warps).
    given: smallvec::SmallVec<[(usize, usize); 32]>,
}

impl WarpSections {
    /// Section `w` at line `line`: a warp of the block, not given before in it.
    pub(super) fn give(
        &mut self,
        w: u64,
        rules: &BlockRules,
        line: usize,
    ) -> Result<usize, String> {
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
pub(super) fn show(d: [u32; 3]) -> String {
    format!("({},{},{})", d[0], d[1], d[2])
}
