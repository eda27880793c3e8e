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

/// Everything one controller drives in one cycle.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CtrlIn {
    pub enq: Option<Enq>,
    /// Global warp id of a request serviced last cycle.
    pub svc: Option<u32>,
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

/// Inputs of the block: one per controller of the group.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WmcIn {
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
    /// Row scores: [controller][bank][tracked row].
    rs: Vec<Vec<Vec<u32>>>,
    /// Priority table: [controller][bank] bitmap over column slots of the open row.
    pt: Vec<Vec<u64>>,
    /// Round-robin bank pointer per controller.
    rr: Vec<u32>,
    out: WmcOut,
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
            out: WmcOut::default(),
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

    /// Whether every priority-table entry is zero (a step with no events and no candidates then
    /// leaves the state unchanged).
    pub fn pt_is_clear(&self) -> bool {
        self.pt.iter().all(|c| c.iter().all(|b| *b == 0))
    }

    /// Row score of a controller's bank's row.
    pub fn score(&self, ctrl: usize, bank: u32, row: u32) -> u32 {
        self.rs[ctrl][bank as usize][(row % self.spec.rows_tracked) as usize]
    }

    fn class_of(&self, c: &Option<Cand>) -> Class {
        match c {
            None => Class::None,
            Some(c) if !c.hit => Class::L,
            Some(c) if self.wet[c.gwid as usize] <= 1 => Class::H,
            Some(_) => Class::M,
        }
    }

    /// The combinational decisions of one controller.
    fn decide(&self, ci: usize, inp: &CtrlIn) -> CtrlOut {
        let s = &self.spec;
        let banks = s.banks as usize;
        let class: Vec<Class> = inp.cands.iter().map(|c| self.class_of(c)).collect();
        let mut open = vec![None; banks];
        // Per bank: the first H hit, else the first M hit; the best-scoring miss.
        let mut hit = vec![None::<(Class, u32)>; banks];
        let mut best_miss = vec![None::<(u32, u32, u32)>; banks]; // (score, cand, row)
        for (k, (c, cl)) in inp.cands.iter().zip(&class).enumerate() {
            let Some(c) = c else { continue };
            let b = c.bank as usize;
            if c.hit {
                let better = match hit[b] {
                    None => true,
                    Some((best, _)) => *cl > best,
                };
                if better {
                    hit[b] = Some((*cl, k as u32));
                }
            } else {
                let score = self.score(ci, c.bank, c.row);
                let better = match best_miss[b] {
                    None => true,
                    Some((best, _, _)) => score > best,
                };
                if better {
                    best_miss[b] = Some((score, k as u32, c.row));
                }
            }
        }
        // The command each bank would issue, and whether it can issue now.
        let mut cmd = vec![None::<(BankCmd, u32, u32)>; banks];
        for b in 0..banks {
            if let Some((_, k, row)) = best_miss[b] {
                open[b] = Some((row, k));
            }
            cmd[b] = if let Some((_, k)) = hit[b] {
                inp.cas_ready[b].then_some((BankCmd::Cas, k, 0))
            } else if let Some((_, k, row)) = best_miss[b] {
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
        let pick = |high_only: bool| {
            (0..banks)
                .map(|i| (start + i) % banks)
                .find(|&b| cmd[b].is_some() && (!high_only || self.pt[ci][b] != 0))
        };
        let sel = pick(true)
            .or_else(|| pick(false))
            .and_then(|b| cmd[b].map(|(c, k, row)| (b as u32, c, k, row)));
        CtrlOut { class, open, sel }
    }

    /// Table updates at the edge.
    fn update(&mut self, inp: &WmcIn, out: &WmcOut) {
        let s = &self.spec;
        let max = s.pending_max;
        // WET: all increments and decrements of the group, summed per warp id, then saturated.
        let mut delta: Vec<(u32, i64)> = Vec::with_capacity(2 * inp.ctrl.len());
        for ci in &inp.ctrl {
            if let Some(e) = &ci.enq {
                delta.push((self.gwid(e.sm, e.warp, e.pc), 1));
            }
            if let Some(g) = ci.svc {
                delta.push((g, -1));
            }
        }
        let next_of = |g: u32| -> u32 {
            let d: i64 = delta.iter().filter(|(h, _)| *h == g).map(|(_, d)| d).sum();
            (i64::from(self.wet[g as usize]) + d).clamp(0, i64::from(max)) as u32
        };
        let next: Vec<(u32, u32)> = delta.iter().map(|(g, _)| (*g, next_of(*g))).collect();
        let after = |g: u32| next.iter().find(|(h, _)| *h == g).map(|(_, n)| *n);
        // RS: when a service leaves a warp with one pending request, that request is the warp's
        // slowest; if it waits as a row miss, its row gets +1. Activating a row clears its score.
        let t = s.rows_tracked;
        let smax = s.score_max;
        let mut bumps: Vec<(usize, u32, u32)> = Vec::new();
        for ci in &inp.ctrl {
            if let Some(g) = ci.svc {
                if after(g) == Some(1) {
                    let remaining = inp.ctrl.iter().enumerate().find_map(|(c2, ci2)| {
                        ci2.cands
                            .iter()
                            .flatten()
                            .find(|x| x.gwid == g)
                            .map(|x| (c2, *x))
                    });
                    if let Some((c2, x)) = remaining {
                        if !x.hit {
                            bumps.push((c2, x.bank, x.row % t));
                        }
                    }
                }
            }
        }
        for (c, b, r) in bumps {
            let v = &mut self.rs[c][b as usize][r as usize];
            *v = (*v + 1).min(smax);
        }
        for (c, ci) in inp.ctrl.iter().enumerate() {
            if let Some((b, r)) = ci.act {
                self.rs[c][b as usize][(r % t) as usize] = 0;
            }
        }
        // PT: this cycle's H hits per bank, by column slot.
        for (c, (ci, co)) in inp.ctrl.iter().zip(&out.ctrl).enumerate() {
            let mut pt = vec![0u64; s.banks as usize];
            for (cand, cl) in ci.cands.iter().zip(&co.class) {
                if let (Some(x), Class::H) = (cand, cl) {
                    pt[x.bank as usize] |= 1u64 << (x.slot % s.pt_slots);
                }
            }
            self.pt[c] = pt;
            // The pointer moves past a bank after a row command (GPGPU-Sim's `prio`).
            if let Some((b, BankCmd::Act | BankCmd::Pre, _, _)) = co.sel {
                self.rr[c] = (b + 1) % s.banks;
            }
        }
        for (g, n) in next {
            self.wet[g as usize] = n;
        }
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
        for (c, ci) in inp.ctrl.iter().enumerate() {
            let bad = |what: &str| Err(IllegalInput(format!("controller {c}: {what}")));
            if ci.cands.len() != s.candidates as usize
                || [&ci.bank_open, &ci.cas_ready, &ci.pre_ready, &ci.act_ready]
                    .iter()
                    .any(|v| v.len() != s.banks as usize)
            {
                return bad("wrong number of candidates or banks");
            }
            if let Some(e) = &ci.enq {
                if u64::from(e.sm) > mask(s.sm_bits)
                    || u64::from(e.warp) > mask(s.warp_bits)
                    || e.pc > mask(s.pc_bits)
                {
                    return bad("enqueued request field out of range");
                }
            }
            if ci.svc.is_some_and(|g| g >= s.wet_entries) {
                return bad("serviced warp id out of range");
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
        self.wet = vec![0; s.wet_entries as usize];
        self.rs = vec![vec![vec![0; s.rows_tracked as usize]; s.banks as usize]; c];
        self.pt = vec![vec![0; s.banks as usize]; c];
        self.rr = vec![0; c];
        self.out = WmcOut::default();
    }

    fn step(&mut self, inp: &WmcIn) -> Result<&WmcOut, IllegalInput> {
        self.check(inp)?;
        let out = WmcOut {
            ctrl: inp
                .ctrl
                .iter()
                .enumerate()
                .map(|(c, ci)| self.decide(c, ci))
                .collect(),
        };
        self.update(inp, &out);
        self.out = out;
        Ok(&self.out)
    }

    fn encode_in(&self, inp: &WmcIn, f: &mut Frame) {
        f.clear();
        let s = &self.spec;
        let k = s.candidates;
        let b = s.banks;
        for (c, ci) in inp.ctrl.iter().enumerate() {
            let c = c as u32;
            if let Some(e) = &ci.enq {
                f.set_elem(0, c, 1);
                f.set_elem(1, c, e.sm.into());
                f.set_elem(2, c, e.warp.into());
                f.set_elem(3, c, e.pc);
            }
            if let Some(g) = ci.svc {
                f.set_elem(4, c, 1);
                f.set_elem(5, c, g.into());
            }
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
