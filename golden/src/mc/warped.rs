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
//! open are in docs/decisions.md ("Warped-MC").

use crate::block::{mask, CycleModel, Frame, IllegalInput};
use crate::spec::{PortSpec, WarpedMcSpec};

pub use crate::spec::{BankCmd, Class};

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
    pub bank_open: Vec<bool>,
    pub cas_ready: Vec<bool>,
    pub pre_ready: Vec<bool>,
    pub act_ready: Vec<bool>,
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

/// The Warped-MC tables of one WET group.
#[derive(Debug, Clone)]
pub struct WarpedMc {
    spec: WarpedMcSpec,
    ports: Vec<PortSpec>,
    /// Pending requests per global warp id (saturating at both ends).
    wet: Vec<u32>,
    /// Row scores, flat: [controller][bank][tracked row].
    rs: Vec<u32>,
    /// Priority table, flat: [controller][bank], a bitmap over column slots of the open row.
    pt: Vec<u64>,
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
    /// old values are in `Scratch::prev`).
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
    /// Per bank: the best hit (class, candidate).
    hit: Vec<Option<(Class, u32)>>,
    /// Per bank: the best-scoring miss (score, candidate, row).
    miss: Vec<Option<(u32, u32, u32)>>,
    /// Per bank: the command it would issue (command, candidate, row), if ready.
    cmd: Vec<Option<(BankCmd, u32, u32)>>,
    /// WET changes this cycle: (warp id, summed delta), then (warp id, next value).
    delta: Vec<(u32, i64)>,
    /// This step's priority table, flat like `WarpedMc::pt`: H hits per bank by column slot.
    pt_next: Vec<u64>,
    /// The priority table under the WET before its last update (`PtHeld::BeforeLastUpdate`).
    pt_before: Vec<u64>,
    /// The WET entries the last absorbed update changed: (warp id, value before it).
    prev: Vec<(u32, u32)>,
}

impl WarpedMc {
    pub fn new(spec: &WarpedMcSpec) -> WarpedMc {
        let mut m = WarpedMc {
            spec: spec.clone(),
            ports: spec.ports(),
            wet: Vec::new(),
            rs: Vec::new(),
            pt: Vec::new(),
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

    /// The warp alias table: SM and warp concatenated, XOR the PC folded into `pc_hash_bits`
    /// low bits.
    pub fn gwid(&self, sm: u32, warp: u32, pc: u64) -> u32 {
        let s = &self.spec;
        let base = (sm << s.warp_bits) | warp;
        if s.pc_hash_bits == 0 {
            return base;
        }
        let k = s.pc_hash_bits;
        let mut pc = pc & mask(s.pc_bits);
        let mut fold = 0u64;
        while pc != 0 {
            fold ^= pc & mask(k);
            pc >>= k;
        }
        base ^ fold as u32
    }

    /// Pending requests of a global warp id.
    pub fn pending(&self, gwid: u32) -> u32 {
        self.wet[gwid as usize]
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

    /// The combinational decisions of one controller, written into `co`.
    fn decide(&mut self, ci: usize, inp: &CtrlIn, co: &mut CtrlOut) {
        let banks = self.spec.banks as usize;
        let slots = self.spec.pt_slots;
        let Scratch {
            hit,
            miss,
            cmd,
            pt_next,
            pt_before,
            prev,
            ..
        } = &mut self.scratch;
        pt_next.resize(self.pt.len(), 0);
        let pt_next = &mut pt_next[ci * banks..(ci + 1) * banks];
        pt_next.fill(0);
        let before = self.pt_held == PtHeld::BeforeLastUpdate;
        pt_before.resize(banks, 0);
        hit.resize(banks, None);
        miss.resize(banks, None);
        cmd.resize(banks, None);
        pt_before.fill(0);
        hit.fill(None);
        miss.fill(None);
        co.class.clear();
        co.class.resize(inp.cands.len(), Class::None);
        co.open.clear();
        co.open.resize(banks, None);
        let last = self.last[ci];
        let tracked = self.spec.rows_tracked;
        let rs = &self.rs[ci * banks * tracked as usize..(ci + 1) * banks * tracked as usize];
        // Per bank: the first H hit, else the first M hit; the best-scoring miss (oldest on
        // ties).
        for (k, (c, class)) in inp.cands.iter().zip(co.class.iter_mut()).enumerate() {
            let Some(c) = c else {
                continue;
            };
            let b = c.bank as usize;
            if c.hit {
                let cl = if self.wet[c.gwid as usize] <= 1 {
                    Class::H
                } else if last == Some(c.gwid) {
                    Class::M
                } else {
                    Class::L
                };
                *class = cl;
                if cl == Class::H {
                    pt_next[b] |= 1u64 << (c.slot % slots);
                }
                if before {
                    let w = prev
                        .iter()
                        .find(|(g, _)| *g == c.gwid)
                        .map_or(self.wet[c.gwid as usize], |p| p.1);
                    if w <= 1 {
                        pt_before[b] |= 1u64 << (c.slot % slots);
                    }
                }
                if hit[b].is_none_or(|(best, _)| cl > best) {
                    hit[b] = Some((cl, k as u32));
                }
            } else {
                *class = Class::L;
                let score = rs[b * tracked as usize + (c.row % tracked) as usize];
                if miss[b].is_none_or(|(best, _, _)| score > best) {
                    miss[b] = Some((score, k as u32, c.row));
                }
            }
        }
        // The command each bank would issue, and whether it can issue now.
        for b in 0..banks {
            if let Some((_, k, row)) = miss[b] {
                co.open[b] = Some((row, k));
            }
            cmd[b] = if let Some((_, k)) = hit[b] {
                inp.cas_ready[b].then_some((BankCmd::Cas, k, 0))
            } else if let Some((_, k, row)) = miss[b] {
                if inp.bank_open[b] {
                    inp.pre_ready[b].then_some((BankCmd::Pre, 0, 0))
                } else {
                    inp.act_ready[b].then_some((BankCmd::Act, k, row))
                }
            } else {
                None
            };
        }
        // Two-level round robin: banks whose priority-table entry is non-zero first.
        let start = self.rr[ci] as usize;
        // After `absorb`, the table may be what these very candidates imply.
        let pt: &[u64] = match self.pt_held {
            PtHeld::Stored => &self.pt[ci * banks..(ci + 1) * banks],
            PtHeld::Current => pt_next,
            PtHeld::BeforeLastUpdate => pt_before,
        };
        let pick = |high_only: bool| {
            (start..banks)
                .chain(0..start)
                .find(|&b| cmd[b].is_some() && (!high_only || pt[b] != 0))
        };
        co.sel = pick(true)
            .or_else(|| pick(false))
            .and_then(|b| cmd[b].map(|(c, k, row)| (b as u32, c, k, row)));
    }

    /// Table updates at the edge.
    fn update(&mut self, inp: &WmcIn, out: &WmcOut) {
        let max = i64::from(self.spec.pending_max);
        // WET: all increments and decrements of the group, summed per warp id, then saturated.
        let mut delta = std::mem::take(&mut self.scratch.delta);
        self.wet_next(&inp.enq, &inp.svc, max, &mut delta);
        // RS: when a service leaves a warp with one pending request, that request is the warp's
        // slowest; if it waits as a row miss, its row gets +1. Activating a row clears its score.
        self.bump_rows(inp.svc.iter().flatten().copied(), &delta, |c| {
            &inp.ctrl[c].cands[..]
        });
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
        for &(g, n) in &delta {
            self.wet[g as usize] = n as u32;
        }
        self.scratch.delta = delta;
        // The block's own controllers come first among the scope's services.
        for (last, svc) in self.last.iter_mut().zip(&inp.svc) {
            if svc.is_some() {
                *last = *svc;
            }
        }
    }

    /// The WET changes of one cycle: every enqueue and service of the scope, summed per warp
    /// id, then saturated; `delta` becomes (warp id, next value).
    fn wet_next(
        &self,
        enq: &[Option<Enq>],
        svc: &[Option<u32>],
        max: i64,
        delta: &mut Vec<(u32, i64)>,
    ) {
        delta.clear();
        for e in enq.iter().flatten() {
            let g = self.gwid(e.sm, e.warp, e.pc);
            match delta.iter_mut().find(|(h, _)| *h == g) {
                Some(d) => d.1 += 1,
                None => delta.push((g, 1)),
            }
        }
        for &g in svc.iter().flatten() {
            match delta.iter_mut().find(|(h, _)| *h == g) {
                Some(d) => d.1 -= 1,
                None => delta.push((g, -1)),
            }
        }
        for d in delta.iter_mut() {
            d.1 = (i64::from(self.wet[d.0 as usize]) + d.1).clamp(0, max);
        }
    }

    /// RS increments of one cycle (Algorithm 1 lines 12-14): a service that leaves its warp
    /// with one pending request makes that request the warp's slowest; the first candidate of
    /// the warp among the block's controllers (`cands(c)`: controller c's window), if it waits
    /// as a row miss, gets +1 on its row (saturating).
    fn bump_rows<'c>(
        &mut self,
        svc: impl Iterator<Item = u32>,
        delta: &[(u32, i64)],
        cands: impl Fn(usize) -> &'c [Option<Cand>],
    ) {
        let n = self.spec.controllers_per_wet as usize;
        let smax = self.spec.score_max;
        for g in svc {
            if delta.iter().find(|(h, _)| *h == g).map(|d| d.1) != Some(1) {
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
    /// warp id (enqueues minus services of the WET scope, summed per warp id, before
    /// saturation), `svc` the global warp ids of the scope's services (any order), `own` what
    /// each of the block's controllers did (empty: nothing), `cands` their candidate windows. The tables become what
    /// [`WarpedMc::step_trusted`] would leave: the WET takes the events, the RS the increments
    /// they cause and the clears of the activations, the last-serviced warps the own services,
    /// and the PT the H hits of the candidates. A memory-system property test and a block
    /// proptest check it.
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
        let max = i64::from(self.spec.pending_max);
        if own.iter().any(|o| o.enq) {
            let banks = self.spec.banks as usize;
            let slots = self.spec.pt_slots;
            self.pt.fill(0);
            for (c, cs) in cands.iter().enumerate() {
                for x in cs.iter().flatten() {
                    if x.hit && self.wet[x.gwid as usize] <= 1 {
                        self.pt[c * banks + x.bank as usize] |= 1u64 << (x.slot % slots);
                    }
                }
            }
            self.pt_held = PtHeld::Stored;
        } else if sum.is_empty() {
            // The WET does not change: the PT is what the candidates imply under it.
            self.pt_held = PtHeld::Current;
        } else {
            self.pt_held = PtHeld::BeforeLastUpdate;
        }
        let mut delta = std::mem::take(&mut self.scratch.delta);
        delta.clear();
        delta.extend(
            sum.iter()
                .map(|&(g, d)| (g, (i64::from(self.wet[g as usize]) + d).clamp(0, max))),
        );
        self.bump_rows(svc.iter().copied(), &delta, |c| &cands[c][..]);
        for (c, o) in own.iter().enumerate() {
            if let Some((b, r)) = o.act {
                let i = self.rs_index(c, b, r);
                self.rs[i] = 0;
            }
            if o.svc.is_some() {
                self.last[c] = o.svc;
            }
        }
        if !sum.is_empty() {
            let prev = &mut self.scratch.prev;
            prev.clear();
            prev.extend(delta.iter().map(|&(g, _)| (g, self.wet[g as usize])));
        }
        for &(g, n) in &delta {
            self.wet[g as usize] = n as u32;
        }
        self.scratch.delta = delta;
    }

    /// One cycle without [`WarpedMc::check`]: for callers that build the inputs themselves
    /// (the memory system). Same decisions and updates as [`CycleModel::step`].
    pub fn step_trusted(&mut self, inp: &WmcIn) -> &WmcOut {
        let mut out = std::mem::take(&mut self.out);
        out.ctrl.resize_with(inp.ctrl.len(), CtrlOut::default);
        for (c, (ci, co)) in inp.ctrl.iter().zip(out.ctrl.iter_mut()).enumerate() {
            self.decide(c, ci, co);
        }
        self.update(inp, &out);
        self.pt_held = PtHeld::Stored;
        self.out = out;
        &self.out
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
            if ci.cands.len() != s.candidates as usize
                || [&ci.bank_open, &ci.cas_ready, &ci.pre_ready, &ci.act_ready]
                    .iter()
                    .any(|v| v.len() != s.banks as usize)
            {
                return bad("wrong number of candidates or banks");
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
                if x.hit && !ci.bank_open[x.bank as usize] {
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
    const COMB_OUTPUTS: bool = true;

    fn ports(&self) -> &[PortSpec] {
        &self.ports
    }

    fn reset(&mut self) {
        let s = &self.spec;
        let c = s.controllers_per_wet as usize;
        let b = s.banks as usize;
        self.wet = vec![0; s.wet_entries as usize];
        self.rs = vec![0; c * b * s.rows_tracked as usize];
        self.pt = vec![0; c * b];
        self.rr = vec![0; c];
        self.last = vec![None; c];
        self.out = WmcOut::default();
        self.pt_held = PtHeld::Stored;
    }

    fn step(&mut self, inp: &WmcIn) -> Result<&WmcOut, IllegalInput> {
        self.check(inp)?;
        Ok(self.step_trusted(inp))
    }

    fn encode_in(&self, inp: &WmcIn, f: &mut Frame) {
        f.clear();
        let s = &self.spec;
        let k = s.candidates;
        let b = s.banks;
        for (c, e) in inp.enq.iter().enumerate() {
            if let Some(e) = e {
                let c = c as u32;
                f.set_elem(0, c, 1);
                f.set_elem(1, c, e.sm.into());
                f.set_elem(2, c, e.warp.into());
                f.set_elem(3, c, e.pc);
            }
        }
        for (c, g) in inp.svc.iter().enumerate() {
            if let Some(g) = g {
                f.set_elem(4, c as u32, 1);
                f.set_elem(5, c as u32, (*g).into());
            }
        }
        for (c, ci) in inp.ctrl.iter().enumerate() {
            let c = c as u32;
            if let Some((bank, row)) = ci.act {
                f.set_elem(6, c, 1);
                f.set_elem(7, c, bank.into());
                f.set_elem(8, c, row.into());
            }
            for (i, x) in ci.cands.iter().enumerate() {
                let e = c * k + i as u32;
                if let Some(x) = x {
                    f.set_elem(9, e, 1);
                    f.set_elem(10, e, x.gwid.into());
                    f.set_elem(11, e, x.bank.into());
                    f.set_elem(12, e, x.row.into());
                    f.set_elem(13, e, x.slot.into());
                    f.set_elem(14, e, x.hit.into());
                }
            }
            for i in 0..b {
                let e = c * b + i;
                let i = i as usize;
                f.set_elem(15, e, ci.bank_open[i].into());
                f.set_elem(16, e, ci.cas_ready[i].into());
                f.set_elem(17, e, ci.pre_ready[i].into());
                f.set_elem(18, e, ci.act_ready[i].into());
            }
        }
    }

    fn encode_out(&self, o: &WmcOut, f: &mut Frame) {
        f.clear();
        let s = &self.spec;
        let k = s.candidates;
        let b = s.banks;
        for (c, co) in o.ctrl.iter().enumerate() {
            let c = c as u32;
            for (i, cl) in co.class.iter().enumerate() {
                f.set_elem(0, c * k + i as u32, *cl as u64);
            }
            for (i, op) in co.open.iter().enumerate() {
                let e = c * b + i as u32;
                if let Some((row, cand)) = op {
                    f.set_elem(1, e, 1);
                    f.set_elem(2, e, (*row).into());
                    f.set_elem(3, e, (*cand).into());
                }
            }
            if let Some((bank, cmd, cand, row)) = co.sel {
                f.set_elem(4, c, 1);
                f.set_elem(5, c, bank.into());
                f.set_elem(6, c, cmd as u64);
                f.set_elem(7, c, cand.into());
                f.set_elem(8, c, row.into());
            }
        }
    }
}

#[cfg(test)]
#[path = "warped_tests.rs"]
mod warped_tests;
