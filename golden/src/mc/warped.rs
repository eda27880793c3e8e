//! The Warped-MC tables (seed 004 §4, Algorithm 1, Fig. 8, Table 3) as a cycle-level block.
//!
//! One block serves a group of `controllers_per_wet` memory controllers that share a warp entry
//! table (WET); each controller has its own row scoreboard (RS), priority table (PT) and bank
//! round-robin pointer. Per cycle and controller the block takes:
//! * `enq`: a request entering the controller's pending queue (SM, warp, PC);
//! * `svc`: a request whose column command was issued *last* cycle (its global warp id);
//! * `act`: a row activated *last* cycle (bank, row);
//! * the candidate window (the pending queue, oldest first): global warp id, bank, row, column
//!   slot, and whether it hits its bank's open row;
//! * per bank: open, and whether a CAS / PRE / ACT could issue now.
//!
//! Its outputs are combinational (they depend on this cycle's inputs and the state before the
//! edge): each candidate's priority class, per bank the row to open on a row miss, and the
//! command to issue. At the edge the tables update. Semantics and every decision the paper leaves
//! open are in docs/decisions/memory.md.

use crate::block::{mask, CycleModel, IllegalInput};
use spec::WarpedMcSpec;

pub use super::warped_codec::{WmcBlock, WmcCodec};
pub use super::wet::Wet;
pub use spec::{BankCmd, Class};

/// A request entering a controller's queue (its warp, as the warp alias table sees it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Enq {
    pub sm: u32,
    pub warp: u32,
    pub pc: u64,
}

/// One candidate of the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Cand {
    pub gwid: u32,
    pub bank: u32,
    pub row: u32,
    pub slot: u32,
    pub hit: bool,
}

/// Everything one of the block's controllers drives in one cycle.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CtrlIn {
    /// (bank, row) activated last cycle.
    pub act: Option<(u32, u32)>,
    /// The candidate window, `candidates` slots, oldest first.
    pub cands: Vec<Option<Cand>>,
    /// Per bank, bit `b` for bank `b` (banks <= 64, validated): the bank has an open row; a
    /// CAS to its open row / a PRE / an ACT could issue now.
    pub bank_open: u64,
    pub cas_ready: u64,
    pub pre_ready: u64,
    pub act_ready: u64,
}

/// One controller's outputs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CtrlOut {
    pub class: Vec<Class>,
    /// Per bank: the row to open on a row miss (and its candidate), if any miss is pending.
    pub open: Vec<Option<(u32, u32)>>,
    /// The command to issue: (bank, command, candidate, row).
    pub sel: Option<(u32, BankCmd, u32, u32)>,
}

/// Inputs of the block.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WmcIn {
    /// Per controller of the WET scope (`wet_ctrls` slots): a request entering its pending
    /// queue this cycle.
    pub enq: Vec<Option<Enq>>,
    /// Per controller of the WET scope: the global warp id of a request whose column command
    /// it issued last cycle.
    pub svc: Vec<Option<u32>>,
    /// Per controller of the block (`controllers_per_wet`).
    pub ctrl: Vec<CtrlIn>,
}

/// Outputs of the block.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WmcOut {
    pub ctrl: Vec<CtrlOut>,
}

/// The warp alias table of `spec`'s blocks: a request's global warp id, its SM and warp
/// concatenated, XOR its PC folded into `pc_hash_bits` low bits.
pub fn gwid(spec: &WarpedMcSpec, sm: u32, warp: u32, pc: u64) -> u32 {
    let base = (sm << spec.warp_bits) | warp;
    if spec.pc_hash_bits == 0 {
        return base;
    }
    let k = spec.pc_hash_bits;
    let mut pc = pc & mask(spec.pc_bits);
    let mut fold = 0u64;
    while pc != 0 {
        fold ^= pc & mask(k);
        pc >>= k;
    }
    base ^ fold as u32
}

/// The Warped-MC tables of one WET group.
#[derive(Debug, Clone)]
pub struct WarpedMc {
    spec: WarpedMcSpec,
    /// The block's warp entry table.
    wet: Wet,
    /// Row scores, flat: [controller][bank][tracked row].
    rs: Vec<u32>,
    /// Priority table, flat: [controller][bank][word], a bitmap over the `pt_slots` column
    /// slots of the open row in words of 64 (a bit matrix whose rows the hot path reads a word
    /// at a time; `pt_words` words per bank).
    pt: Vec<u64>,
    pt_words: usize,
    /// Round-robin bank pointer per controller.
    rr: Vec<u32>,
    /// Per controller: the warp of the request it serviced last (Algorithm 1 line 10: that
    /// warp's further row hits are priority M).
    last: Vec<Option<u32>>,
    out: WmcOut,
    /// Where the priority table's value is held (see [`WarpedMc::absorb`]).
    pt_held: PtHeld,
    scratch: Scratch,
}

/// Where the priority table's value is held. After an evaluated step it is stored; after
/// [`WarpedMc::absorb`] it may be what the candidates of the next evaluated step imply, which
/// are the absorbed cycle's own candidates (the caller's promise, see `absorb`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PtHeld {
    /// In `WarpedMc::pt`.
    Stored,
    /// The H hits of the next step's candidates under the current WET.
    Current,
    /// The H hits of the next step's candidates under the WET before its last update (the
    /// old values are in [`Wet`]'s `prev`).
    BeforeLastUpdate,
}

/// What one of a block's own controllers did in a cycle in which the block was not evaluated
/// ([`WarpedMc::absorb`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OwnEvents {
    /// A request entered its pending queue this cycle: its candidate window changes after it.
    pub enq: bool,
    /// The global warp id of the request whose column command it issued last cycle.
    pub svc: Option<u32>,
    /// The (bank, row) it activated last cycle.
    pub act: Option<(u32, u32)>,
}

/// Per-step working storage, kept to avoid allocating every cycle.
#[derive(Debug, Clone, Default)]
struct Scratch {
    /// Per bank: the best hit (class, candidate), valid where `decide` marks it.
    hit: Vec<(Class, u32)>,
    /// Per bank: the best-scoring miss (score, candidate, row), valid where marked.
    miss: Vec<(u32, u32, u32)>,
    /// WET changes this cycle: (warp id, summed delta).
    sum: Vec<(u32, i64)>,
    /// This cycle's services: global warp ids.
    svc: Vec<u32>,
    /// This step's priority table, flat like `WarpedMc::pt`: H hits per bank by column slot.
    pt_next: Vec<u64>,
    /// The priority table under the WET before its last update (`PtHeld::BeforeLastUpdate`).
    pt_before: Vec<u64>,
}

impl WarpedMc {
    pub fn new(spec: &WarpedMcSpec) -> WarpedMc {
        let mut m = WarpedMc {
            spec: spec.clone(),
            wet: Wet::default(),
            rs: Vec::new(),
            pt: Vec::new(),
            pt_words: (spec.pt_slots as usize).div_ceil(64),
            rr: Vec::new(),
            last: Vec::new(),
            out: WmcOut::default(),
            pt_held: PtHeld::Stored,
            scratch: Scratch::default(),
        };
        m.reset();
        m
    }

    pub fn spec(&self) -> &WarpedMcSpec {
        &self.spec
    }

    /// The warp alias table ([`gwid`]).
    pub fn gwid(&self, sm: u32, warp: u32, pc: u64) -> u32 {
        gwid(&self.spec, sm, warp, pc)
    }

    /// The outputs of its last step.
    pub fn output(&self) -> &WmcOut {
        &self.out
    }

    /// The block's own warp entry table.
    pub fn wet(&self) -> &Wet {
        &self.wet
    }

    /// Pending requests of a global warp id.
    pub fn pending(&self, gwid: u32) -> u32 {
        self.wet.get(gwid)
    }

    /// Row score of a controller's bank's row.
    pub fn score(&self, ctrl: usize, bank: u32, row: u32) -> u32 {
        self.rs[self.rs_index(ctrl, bank, row)]
    }

    fn rs_index(&self, ctrl: usize, bank: u32, row: u32) -> usize {
        let t = self.spec.rows_tracked as usize;
        (ctrl * self.spec.banks as usize + bank as usize) * t
            + (row % self.spec.rows_tracked) as usize
    }

    /// The combinational decisions of one controller, written into `co`. With `FULL` off only
    /// the selection (`co.sel`) is computed, and the per-candidate classes and per-bank rows
    /// to open are left empty: the row scores are then looked up only for the bank selected
    /// for an ACT (the same rule picks its row; a proptest compares both ways).
    ///
    /// `WIDE`: the priority table has more than one word per bank (`pt_slots > 64`); without
    /// it the word count is the constant 1 and the indexing folds away (the hot path).
    fn decide<const FULL: bool, const WIDE: bool>(
        &mut self,
        ci: usize,
        inp: &CtrlIn,
        co: &mut CtrlOut,
        wet: &Wet,
    ) {
        let (hits, misses) = self.classify::<FULL, WIDE>(ci, inp, co, wet);
        // A bank with a hit waits for its CAS; one with misses only for its PRE (open) or ACT.
        let row_ready = (inp.bank_open & inp.pre_ready) | (!inp.bank_open & inp.act_ready);
        let ready = (hits & inp.cas_ready) | (misses & !hits & row_ready);
        co.sel = self.select::<FULL, WIDE>(ci, inp, hits, ready);
    }

    /// Each candidate of controller `ci` classified (H, M, L; `co.class` with `FULL`), and per
    /// bank its best hit and best-scoring miss (`scratch.hit`, `scratch.miss`; `co.open` with
    /// `FULL`), this step's priority table (`scratch.pt_next`, and `scratch.pt_before` when
    /// the table is held as it was before the last WET update). Returns the banks with a hit
    /// and the banks with a miss.
    #[inline(always)]
    fn classify<const FULL: bool, const WIDE: bool>(
        &mut self,
        ci: usize,
        inp: &CtrlIn,
        co: &mut CtrlOut,
        wet: &Wet,
    ) -> (u64, u64) {
        let banks = self.spec.banks as usize;
        let slots = self.spec.pt_slots;
        let words = if WIDE { self.pt_words } else { 1 };
        let tracked = self.spec.rows_tracked;
        let Scratch {
            hit,
            miss,
            pt_next,
            pt_before,
            ..
        } = &mut self.scratch;
        pt_next.resize(self.pt.len(), 0);
        let pt_next = &mut pt_next[ci * banks * words..(ci + 1) * banks * words];
        pt_next.fill(0);
        let before = self.pt_held == PtHeld::BeforeLastUpdate;
        if before {
            pt_before.resize(banks * words, 0);
            pt_before.fill(0);
        }
        // Per bank (banks <= 64, validated): the best hit (class, candidate) where `hits` has
        // the bank's bit, the best miss (score, candidate, row) where `misses` has it.
        hit.resize(banks, (Class::None, 0));
        miss.resize(banks, (0, 0, 0));
        let (mut hits, mut misses) = (0u64, 0u64);
        co.class.clear();
        co.open.clear();
        if FULL {
            co.class.resize(inp.cands.len(), Class::None);
            co.open.resize(banks, None);
        }
        let last = self.last[ci];
        let rs = &self.rs[ci * banks * tracked as usize..(ci + 1) * banks * tracked as usize];
        // Per bank: the first H hit, else the first M hit; the best-scoring miss (oldest on
        // ties; with `FULL` only).
        let mut missing = 0u64;
        // 64 candidates at a time: first the misses and a mask of the hits, without a branch
        // per candidate (hits and misses interleave, so such a branch mispredicts often), then
        // the hits in order. (Hits and misses update separate state; each kind keeps its order.)
        for (k0, chunk) in inp.cands.chunks(64).enumerate() {
            let mut hm = 0u64;
            for (i, c) in chunk.iter().enumerate() {
                let Some(c) = c else {
                    continue;
                };
                hm |= u64::from(c.hit) << i;
                if !FULL {
                    missing |= u64::from(!c.hit) << c.bank;
                } else if !c.hit {
                    co.class[64 * k0 + i] = Class::L;
                    consider_miss(miss, &mut misses, rs, tracked, 64 * k0 + i, c);
                }
            }
            while hm != 0 {
                let k = 64 * k0 + hm.trailing_zeros() as usize;
                hm &= hm - 1;
                let Some(c) = &inp.cands[k] else {
                    continue;
                };
                let b = c.bank as usize;
                let bit = 1u64 << b;
                let cl = if wet.get(c.gwid) <= 1 {
                    Class::H
                } else if last == Some(c.gwid) {
                    Class::M
                } else {
                    Class::L
                };
                if FULL {
                    co.class[k] = cl;
                }
                let (w, sb) = slot_bit::<WIDE>(c.slot, slots);
                if cl == Class::H {
                    pt_next[b * words + w] |= sb;
                }
                if before && wet.before(c.gwid) <= 1 {
                    pt_before[b * words + w] |= sb;
                }
                if hits & bit == 0 || cl > hit[b].0 {
                    hit[b] = (cl, k as u32);
                    hits |= bit;
                }
            }
        }
        if !FULL {
            return (hits, missing);
        }
        // The row to open per bank with misses.
        let mut m = misses;
        while m != 0 {
            let b = m.trailing_zeros() as usize;
            m &= m - 1;
            co.open[b] = Some((miss[b].2, miss[b].1));
        }
        (hits, misses)
    }

    /// The command of controller `ci` among the `ready` banks (`hits`: those with a hit):
    /// two-level round robin from the pointer, ready banks whose priority-table entry is
    /// non-zero first; a bank's best hit's CAS, else its PRE (open) or the ACT of its
    /// best-scoring miss's row. After `absorb`, the table may be what these very candidates
    /// imply.
    #[inline(always)]
    fn select<const FULL: bool, const WIDE: bool>(
        &mut self,
        ci: usize,
        inp: &CtrlIn,
        hits: u64,
        ready: u64,
    ) -> Option<(u32, BankCmd, u32, u32)> {
        let banks = self.spec.banks as usize;
        let words = if WIDE { self.pt_words } else { 1 };
        let tracked = self.spec.rows_tracked;
        let Scratch {
            hit,
            miss,
            pt_next,
            pt_before,
            ..
        } = &mut self.scratch;
        let pt: &[u64] = match self.pt_held {
            PtHeld::Stored => &self.pt[ci * banks * words..(ci + 1) * banks * words],
            PtHeld::Current => &pt_next[ci * banks * words..(ci + 1) * banks * words],
            PtHeld::BeforeLastUpdate => pt_before,
        };
        let mut high = 0u64;
        let mut m = ready;
        while m != 0 {
            let b = m.trailing_zeros() as usize;
            m &= m - 1;
            // One word per bank (pt_slots <= 64) is the common case: no slice to scan.
            let busy = if words == 1 {
                pt[b] != 0
            } else {
                pt[b * words..(b + 1) * words].iter().any(|&w| w != 0)
            };
            high |= u64::from(busy) << b;
        }
        let start = self.rr[ci];
        let first = |m: u64| {
            let from = m & (u64::MAX << start);
            (m != 0).then(|| if from != 0 { from } else { m }.trailing_zeros() as usize)
        };
        let b = first(high).or_else(|| first(ready))?;
        if hits >> b & 1 != 0 {
            return Some((b as u32, BankCmd::Cas, hit[b].1, 0));
        }
        if inp.bank_open >> b & 1 != 0 {
            return Some((b as u32, BankCmd::Pre, 0, 0));
        }
        if !FULL {
            // The selected bank's best miss, by the same rule.
            let rs = &self.rs[ci * banks * tracked as usize..(ci + 1) * banks * tracked as usize];
            let mut found = 0u64;
            for (k, c) in inp.cands.iter().enumerate() {
                if let Some(c) = c.filter(|c| !c.hit && c.bank as usize == b) {
                    consider_miss(miss, &mut found, rs, tracked, k, &c);
                }
            }
        }
        Some((b as u32, BankCmd::Act, miss[b].1, miss[b].2))
    }

    /// Table updates at the edge, but the WET's (staged in `wet`, committed by the caller).
    /// `svc`: the global warp ids of the scope's services (any order); `inp.svc` is read for
    /// the block's own controllers only.
    fn update(&mut self, inp: &WmcIn, svc: &[u32], out: &WmcOut, wet: &Wet) {
        // RS: when a service leaves a warp with one pending request, that request is the warp's
        // slowest; if it waits as a row miss, its row gets +1. Activating a row clears its score.
        self.bump_rows(svc.iter().copied(), wet, |c| &inp.ctrl[c].cands[..]);
        for (c, ci) in inp.ctrl.iter().enumerate() {
            if let Some((b, r)) = ci.act {
                let i = self.rs_index(c, b, r);
                self.rs[i] = 0;
            }
        }
        // PT: this cycle's H hits per bank, by column slot (computed by `decide`).
        self.pt.copy_from_slice(&self.scratch.pt_next);
        for (c, co) in out.ctrl.iter().enumerate() {
            // The pointer moves past a bank after a row command (GPGPU-Sim's `prio`).
            if let Some((b, BankCmd::Act | BankCmd::Pre, _, _)) = co.sel {
                self.rr[c] = (b + 1) % self.spec.banks;
            }
        }
        // The block's own controllers come first among the scope's services.
        for (last, svc) in self.last.iter_mut().zip(&inp.svc) {
            if svc.is_some() {
                *last = *svc;
            }
        }
    }

    /// The WET change of one cycle: every enqueue and service of the scope, summed per warp
    /// id (before saturation), into `sum`.
    fn wet_sum(&self, enq: &[Option<Enq>], svc: &[Option<u32>], sum: &mut Vec<(u32, i64)>) {
        sum.clear();
        let ev = enq
            .iter()
            .flatten()
            .map(|e| (self.gwid(e.sm, e.warp, e.pc), 1));
        for (g, d) in ev.chain(svc.iter().flatten().map(|&g| (g, -1))) {
            Wet::add(sum, g, d);
        }
    }

    /// RS increments of one cycle (Algorithm 1 lines 12-14): a service that leaves its warp
    /// with one pending request makes that request the warp's slowest; the first candidate of
    /// the warp among the block's controllers (`cands(c)`: controller c's window), if it waits
    /// as a row miss, gets +1 on its row (saturating).
    fn bump_rows<'c>(
        &mut self,
        svc: impl Iterator<Item = u32>,
        wet: &Wet,
        cands: impl Fn(usize) -> &'c [Option<Cand>],
    ) {
        if !wet.leaves_one() {
            return;
        }
        let n = self.spec.controllers_per_wet as usize;
        let smax = self.spec.score_max;
        for g in svc {
            if wet.staged(g) != Some(1) {
                continue;
            }
            let remaining = (0..n).find_map(|c| {
                cands(c)
                    .iter()
                    .flatten()
                    .find(|x| x.gwid == g)
                    .map(|x| (c, *x))
            });
            if let Some((c, x)) = remaining {
                if !x.hit {
                    let i = self.rs_index(c, x.bank, x.row);
                    self.rs[i] = (self.rs[i] + 1).min(smax);
                }
            }
        }
    }

    /// Account for a step the caller did not evaluate because it would select nothing (no
    /// bank whose command the block could pick is ready). `sum` is the cycle's WET change per
    /// warp id (enqueues minus services of the WET scope, summed per warp id, each id once,
    /// before saturation), `svc` the global warp ids of the scope's services (any order), `own`
    /// what each of the block's controllers did (empty: nothing), `cands` their candidate
    /// windows. The tables become what [`WarpedMc::step_trusted`] would leave: the WET takes
    /// the events, the RS the increments they cause and the clears of the activations, the
    /// last-serviced warps the own services, and the PT the H hits of the candidates. A
    /// memory-system property test and a block proptest check it.
    ///
    /// The PT is computed only when a controller enqueued (its window changes after this
    /// cycle); otherwise the caller promises that the next evaluated step gets these same
    /// candidate windows (a window changes only after an enqueue or an issued command), and
    /// that step derives the PT from them.
    pub fn absorb(
        &mut self,
        sum: &[(u32, i64)],
        svc: &[u32],
        own: &[OwnEvents],
        cands: &[Vec<Option<Cand>>],
    ) {
        let mut wet = std::mem::take(&mut self.wet);
        wet.stage(sum);
        self.absorb_shared(svc, own, cands, &wet);
        wet.commit();
        self.wet = wet;
    }

    /// Account for cycles since its last step or absorbed cycle in which the block had no
    /// events of its own, was not evaluated, and no service could raise a row score
    /// ([`Wet::leaves_one`] was false). [`WarpedMc::absorb_shared`] would have changed only
    /// where the PT is held: it is what the next step's candidates (unchanged since) imply
    /// under the WET the last of those cycles read, the values before the last commit. Call it
    /// before the next step (not needed before an absorb, which sets it anew).
    pub fn skipped_idle(&mut self) {
        self.pt_held = PtHeld::BeforeLastUpdate;
    }

    /// [`WarpedMc::absorb`] with the scope's shared WET (see [`Wet`]), whose cycle the caller
    /// has staged and commits after every block of the scope took it. The block's own WET is
    /// not used.
    pub fn absorb_shared(
        &mut self,
        svc: &[u32],
        own: &[OwnEvents],
        cands: &[Vec<Option<Cand>>],
        wet: &Wet,
    ) {
        if own.iter().any(|o| o.enq) {
            let banks = self.spec.banks as usize;
            let (slots, words) = (self.spec.pt_slots, self.pt_words);
            self.pt.fill(0);
            for (c, cs) in cands.iter().enumerate() {
                for x in cs.iter().flatten() {
                    if x.hit && wet.get(x.gwid) <= 1 {
                        let s = (x.slot % slots) as usize;
                        self.pt[(c * banks + x.bank as usize) * words + s / 64] |= 1u64 << (s % 64);
                    }
                }
            }
            self.pt_held = PtHeld::Stored;
        } else if wet.quiet() {
            // The WET does not change: the PT is what the candidates imply under it.
            self.pt_held = PtHeld::Current;
        } else {
            self.pt_held = PtHeld::BeforeLastUpdate;
        }
        self.bump_rows(svc.iter().copied(), wet, |c| &cands[c][..]);
        for (c, o) in own.iter().enumerate() {
            if let Some((b, r)) = o.act {
                let i = self.rs_index(c, b, r);
                self.rs[i] = 0;
            }
            if o.svc.is_some() {
                self.last[c] = o.svc;
            }
        }
    }

    /// One cycle without [`WarpedMc::check`]: for callers that build the inputs themselves
    /// (the memory system). Same decisions and updates as [`CycleModel::step`]. A candidate
    /// window may be shorter than `candidates`: the missing slots are empty (and get no class
    /// output), so a caller can pass only the occupied slots, which all come first.
    pub fn step_trusted(&mut self, inp: &WmcIn) -> &WmcOut {
        let mut wet = std::mem::take(&mut self.wet);
        let mut sum = std::mem::take(&mut self.scratch.sum);
        self.wet_sum(&inp.enq, &inp.svc, &mut sum);
        wet.stage(&sum);
        self.scratch.sum = sum;
        let mut svc = std::mem::take(&mut self.scratch.svc);
        svc.clear();
        svc.extend(inp.svc.iter().flatten());
        self.step_with::<true>(inp, &svc, &wet);
        self.scratch.svc = svc;
        wet.commit();
        self.wet = wet;
        &self.out
    }

    /// [`WarpedMc::step_trusted`] with the scope's shared WET (see [`Wet`]), whose cycle the
    /// caller has staged (from the scope's enqueues and services) and commits after every
    /// block of the scope took it. `inp.enq` is not read (the staged WET holds its effect);
    /// `svc` lists the global warp ids of the scope's services (any order), and of `inp.svc`
    /// only the block's own controllers' slots (the first `controllers_per_wet`) are read. The
    /// block's own WET is not used. Only the selections (`sel`) are output: the classes and
    /// rows to open, which only an observer of the ports reads, are left empty; the table
    /// updates are those of a full step.
    pub fn step_shared(&mut self, inp: &WmcIn, svc: &[u32], wet: &Wet) -> &WmcOut {
        self.step_with::<false>(inp, svc, wet);
        &self.out
    }

    fn step_with<const FULL: bool>(&mut self, inp: &WmcIn, svc: &[u32], wet: &Wet) {
        let mut out = std::mem::take(&mut self.out);
        out.ctrl.resize_with(inp.ctrl.len(), CtrlOut::default);
        for (c, (ci, co)) in inp.ctrl.iter().zip(out.ctrl.iter_mut()).enumerate() {
            if self.pt_words == 1 {
                self.decide::<FULL, false>(c, ci, co, wet);
            } else {
                self.decide::<FULL, true>(c, ci, co, wet);
            }
        }
        self.update(inp, svc, &out, wet);
        self.pt_held = PtHeld::Stored;
        self.out = out;
    }

    /// Check inputs against what the RTL asserts.
    pub fn check(&self, inp: &WmcIn) -> Result<(), IllegalInput> {
        let s = &self.spec;
        if inp.ctrl.len() != s.controllers_per_wet as usize {
            return Err(IllegalInput(format!(
                "{} controllers driven, the block has {}",
                inp.ctrl.len(),
                s.controllers_per_wet
            )));
        }
        if inp.enq.len() != s.wet_ctrls as usize || inp.svc.len() != s.wet_ctrls as usize {
            return Err(IllegalInput(format!(
                "{} enqueue and {} service slots driven, the WET scope has {} controllers",
                inp.enq.len(),
                inp.svc.len(),
                s.wet_ctrls
            )));
        }
        for (c, e) in inp.enq.iter().enumerate() {
            if let Some(e) = e {
                if u64::from(e.sm) > mask(s.sm_bits)
                    || u64::from(e.warp) > mask(s.warp_bits)
                    || e.pc > mask(s.pc_bits)
                {
                    return Err(IllegalInput(format!(
                        "enqueue {c}: request field out of range"
                    )));
                }
            }
        }
        for (c, g) in inp.svc.iter().enumerate() {
            if g.is_some_and(|g| g >= s.wet_entries) {
                return Err(IllegalInput(format!("service {c}: warp id out of range")));
            }
        }
        for (c, ci) in inp.ctrl.iter().enumerate() {
            let bad = |what: &str| Err(IllegalInput(format!("controller {c}: {what}")));
            if ci.cands.len() != s.candidates as usize {
                return bad("wrong number of candidates");
            }
            if [ci.bank_open, ci.cas_ready, ci.pre_ready, ci.act_ready]
                .iter()
                .any(|&m| m & !mask(s.banks) != 0)
            {
                return bad("a bank bit beyond the banks");
            }
            if ci
                .act
                .is_some_and(|(b, r)| b >= s.banks || u64::from(r) > mask(s.row_bits))
            {
                return bad("activated bank or row out of range");
            }
            for x in ci.cands.iter().flatten() {
                if x.gwid >= s.wet_entries
                    || x.bank >= s.banks
                    || u64::from(x.row) > mask(s.row_bits)
                    || u64::from(x.slot) > mask(s.slot_idx_bits)
                {
                    return bad("candidate field out of range");
                }
                if x.hit && ci.bank_open >> x.bank & 1 == 0 {
                    return bad("a candidate hits a closed bank");
                }
            }
        }
        Ok(())
    }
}

impl CycleModel for WarpedMc {
    type In = WmcIn;
    type Out = WmcOut;

    fn reset(&mut self) {
        let s = &self.spec;
        let c = s.controllers_per_wet as usize;
        let b = s.banks as usize;
        self.wet = Wet::new(s);
        self.rs = vec![0; c * b * s.rows_tracked as usize];
        self.pt = vec![0; c * b * self.pt_words];
        self.rr = vec![0; c];
        self.last = vec![None; c];
        self.out = WmcOut::default();
        self.pt_held = PtHeld::Stored;
    }

    fn step(&mut self, inp: &WmcIn) -> Result<&WmcOut, IllegalInput> {
        self.check(inp)?;
        Ok(self.step_trusted(inp))
    }
}

/// A candidate's column slot in the priority table: its word in a bank's row of the table,
/// and its bit (`WIDE`: more than one word per bank).
#[inline(always)]
fn slot_bit<const WIDE: bool>(slot: u32, slots: u32) -> (usize, u64) {
    let s = if slots.is_power_of_two() {
        slot & (slots - 1)
    } else {
        slot % slots
    } as usize;
    if WIDE {
        (s / 64, 1u64 << (s % 64))
    } else {
        // s < pt_slots <= 64.
        (0, 1u64 << s)
    }
}

/// A row's tracked row (its row-score index within its bank; a mask where the size allows).
#[inline(always)]
fn row_idx(row: u32, tracked: u32) -> usize {
    (if tracked.is_power_of_two() {
        row & (tracked - 1)
    } else {
        row % tracked
    }) as usize
}

/// A bank's best miss so far `miss[b]` (valid where `misses` has the bank's bit) against
/// candidate `k`, `c`: the higher row score (`rs`, the controller's, `tracked` rows a bank)
/// wins, the older (first seen) on ties.
#[inline(always)]
fn consider_miss(
    miss: &mut [(u32, u32, u32)],
    misses: &mut u64,
    rs: &[u32],
    tracked: u32,
    k: usize,
    c: &Cand,
) {
    let b = c.bank as usize;
    let bit = 1u64 << b;
    let score = rs[b * tracked as usize + row_idx(c.row, tracked)];
    if *misses & bit == 0 || score > miss[b].0 {
        miss[b] = (score, k as u32, c.row);
        *misses |= bit;
    }
}

#[cfg(test)]
#[path = "warped_tests.rs"]
mod warped_tests;
