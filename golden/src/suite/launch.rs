//! A kernel launch run by emulation: its blocks' warps emulated on demand (any block, in any
//! order, as the GPU's dispatcher asks), each warp's instructions handed out a chunk at a time.
//!
//! Barriers and shared memory (decision WL-3): a warp's emulation never passes its block's
//! `k`-th `BAR.SYNC` before every other warp of the block has emulated up to its own `k`-th (or
//! exited): the others are emulated first, their instructions kept until the GPU asks for
//! them. Shared memory is then read and written in an order a real barrier allows, whatever
//! order the GPU's timing asks for the warps' instructions in, so a race-free kernel computes
//! what it computes on hardware and its instruction stream does not depend on the timing. A
//! chunk ends at a barrier, so the others run ahead only when a warp is let past one.

use super::mem::DeviceMemory;
use super::warp::{EmuError, LaunchEnv, Memories, Stepped, WarpEmu};
use crate::workload::accelsim::{Inst, KernelHeader, TraceBlock};
use crate::workload::opcode::{kind_of, Kind};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

/// Instructions a warp is handed at a time (as a built-in kernel's).
pub const CHUNK: usize = crate::gpu::kernel::CHUNK;

/// What every block of a launch shares: the launch, the device memory, the first error.
pub struct Shared {
    pub env: LaunchEnv,
    pub header: KernelHeader,
    pub mem: Rc<RefCell<DeviceMemory>>,
    /// The first emulation error of the launch (a warp that fails ends; the run reports it).
    pub error: RefCell<Option<EmuError>>,
}

/// One warp of a block being emulated.
struct WarpRun {
    emu: WarpEmu,
    /// Instructions emulated and not yet handed out.
    pending: VecDeque<Inst>,
    /// `BAR.SYNC`s emulated.
    bars: u64,
    /// Its last step was a barrier: it may go on once every warp has reached it.
    at_bar: bool,
    done: bool,
}

/// A block being emulated.
pub struct BlockRun {
    shared: Rc<Shared>,
    smem: Vec<u8>,
    warps: Vec<WarpRun>,
}

impl BlockRun {
    pub fn new(shared: Rc<Shared>, ctaid: [u32; 3]) -> BlockRun {
        let env = &shared.env;
        let n = shared.header.warps();
        let warps = (0..n)
            .map(|w| WarpRun {
                emu: WarpEmu::new(env, ctaid, w),
                pending: VecDeque::new(),
                bars: 0,
                at_bar: false,
                done: false,
            })
            .collect();
        BlockRun {
            smem: vec![0; env.shared as usize],
            shared,
            warps,
        }
    }

    /// One step of warp `w`, its record appended to its pending instructions.
    fn step(&mut self, w: usize) -> Result<(), EmuError> {
        if self.warps[w].at_bar {
            let k = self.warps[w].bars;
            for v in 0..self.warps.len() {
                while v != w && !self.warps[v].done && self.warps[v].bars < k {
                    self.step(v)?;
                }
            }
            self.warps[w].at_bar = false;
        }
        let shared = Rc::clone(&self.shared);
        let mut global = shared.mem.borrow_mut();
        let mut mems = Memories {
            global: &mut global,
            shared: &mut self.smem,
        };
        let x = &mut self.warps[w];
        let s = x.emu.step(&shared.env, &mut mems, &mut x.pending)?;
        match s {
            Stepped::Ran => {}
            Stepped::Barrier => {
                x.bars += 1;
                x.at_bar = true;
            }
            Stepped::Exited => x.done = true,
        }
        Ok(())
    }

    /// Warp `w`'s next instructions, at most `max`, ending early after a barrier; whether it has
    /// more.
    pub fn fill(&mut self, w: usize, max: usize, insts: &mut Vec<Inst>) -> Result<bool, EmuError> {
        let start = insts.len();
        loop {
            while insts.len() - start < max {
                let Some(i) = self.warps[w].pending.pop_front() else {
                    break;
                };
                insts.push(i);
            }
            let x = &self.warps[w];
            let full = insts.len() - start >= max;
            let at_barrier = x.at_bar && x.pending.is_empty() && insts.len() > start;
            if full || at_barrier || (x.done && x.pending.is_empty()) {
                break;
            }
            self.step(w)?;
        }
        let x = &self.warps[w];
        Ok(!(x.done && x.pending.is_empty()))
    }

    pub fn warps(&self) -> usize {
        self.warps.len()
    }
}

/// A warp's later instructions, handed to the SM that runs it.
pub struct SuiteWarp {
    block: Rc<RefCell<BlockRun>>,
    warp: usize,
    ended: bool,
    /// Added to every memory address (a watched run's later launches).
    pub shift: u64,
}

impl std::fmt::Debug for SuiteWarp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SuiteWarp")
            .field("warp", &self.warp)
            .field("ended", &self.ended)
            .finish_non_exhaustive()
    }
}

impl SuiteWarp {
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// Append the warp's next instructions (at most [`CHUNK`]) and their kinds. An emulation
    /// error ends the warp and is kept in the launch's [`Shared::error`].
    pub fn fill(&mut self, insts: &mut Vec<Inst>, kinds: &mut Vec<Kind>) {
        let mut b = self.block.borrow_mut();
        let start = insts.len();
        match b.fill(self.warp, CHUNK, insts) {
            Ok(more) => self.ended = !more,
            Err(e) => {
                self.ended = true;
                b.shared.error.borrow_mut().get_or_insert(e);
            }
        }
        let shared = Rc::clone(&b.shared);
        for i in &mut insts[start..] {
            if self.shift != 0 {
                i.addrs.shift(self.shift);
            }
            let op = &shared.env.code.opcodes[usize::from(i.op)];
            kinds.push(kind_of(op, i, &shared.header));
        }
    }
}

/// A launch's blocks, made on demand.
pub struct LaunchBlocks {
    pub shared: Rc<Shared>,
    rest: Vec<SuiteWarp>,
}

impl LaunchBlocks {
    pub fn new(shared: Rc<Shared>) -> LaunchBlocks {
        LaunchBlocks {
            shared,
            rest: Vec::new(),
        }
    }

    fn block_id(&self, linear: u64) -> [u32; 3] {
        let [gx, gy, _] = self.shared.header.grid.map(u64::from);
        [linear % gx, (linear / gx) % gy, linear / (gx * gy)].map(|v| v as u32)
    }

    /// Block `linear`: each warp's first chunk, and per warp the generator of the rest (kept
    /// for [`LaunchBlocks::take_rest`]).
    pub fn take(&mut self, linear: u64) -> TraceBlock {
        let id = self.block_id(linear);
        let block = Rc::new(RefCell::new(BlockRun::new(Rc::clone(&self.shared), id)));
        let n = block.borrow().warps();
        let mut warps = Vec::with_capacity(n);
        self.rest.clear();
        for w in 0..n {
            let mut g = SuiteWarp {
                block: Rc::clone(&block),
                warp: w,
                ended: false,
                shift: 0,
            };
            let (mut insts, mut kinds) = (Vec::new(), Vec::new());
            g.fill(&mut insts, &mut kinds);
            warps.push(insts);
            self.rest.push(g);
        }
        TraceBlock { id, warps }
    }

    /// The generators of the block last taken, their addresses moved by `shift`.
    pub fn take_rest(&mut self, shift: u64) -> Vec<SuiteWarp> {
        let mut rest = std::mem::take(&mut self.rest);
        for g in &mut rest {
            g.shift = shift;
        }
        rest
    }

    /// Block `linear` emulated whole (every warp to its end): a trace's block.
    pub fn whole(&self, linear: u64) -> Result<TraceBlock, EmuError> {
        let id = self.block_id(linear);
        let mut b = BlockRun::new(Rc::clone(&self.shared), id);
        let mut warps = Vec::with_capacity(b.warps());
        for w in 0..b.warps() {
            let mut insts = Vec::new();
            while b.fill(w, usize::MAX, &mut insts)? {}
            warps.push(insts);
        }
        Ok(TraceBlock { id, warps })
    }
}
