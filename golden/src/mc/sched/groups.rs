//! The Warped-MC blocks of a memory system and the warp entry tables they read: one block per
//! WET group (`warped_mc.controllers_per_wet` controllers), one WET per scope
//! (`warped_mc.wet_scope` controllers; see [`Wet`]), each controller's candidate window, and
//! the events the blocks take a cycle later (services, activations). Owned by the schedulers
//! that read the WET: Warped-MC, whose command is the one its group's block selects
//! (`SELECTS`), and Div-First, which reads the WET alone and steps a block only when it is
//! watched (co-simulated).
//!
//! Per cycle ([`Groups::prepare`], before any controller picks): the scope's WET change is
//! staged once; every group that may issue, has events of its own, or holds a warp a service
//! may raise a row score of, steps its block (the watched one every cycle, with every input
//! port filled and checked); the others absorb the cycle or skip it
//! ([`WarpedMc::absorb_shared`], [`WarpedMc::skipped_idle`]); then the WETs commit.

use super::super::controller::{hits, set_of, Controller, Controllers, Entry, Issued};
use super::super::dram::CmdKind;
use super::super::system::{GroupCycle, McError};
use super::super::warped::{BankCmd, Cand, CtrlIn, Enq, OwnEvents, WarpedMc, Wet, WmcIn};
use super::counts::BankCounts;
use crate::bitset::members128 as bits;
use crate::block::CycleModel;
use spec::Spec;

/// The Warped-MC blocks, warp entry tables and candidate windows of a memory system.
pub(in crate::mc) struct Groups {
    /// Per controller: its bank counts (kept from the windows where they can be).
    pub counts: Vec<BankCounts>,
    /// One block per WET group.
    blocks: Vec<WarpedMc>,
    /// Controllers per group, and per WET scope.
    per_group: usize,
    wet_ctrls: usize,
    /// Per group: its WET scope.
    group_scope: Vec<usize>,
    /// Pending-queue entries per controller (a watched block's window has every slot).
    cap: usize,
    /// Per controller: the command its group's block selected this cycle.
    pub sel: Vec<Option<(u32, BankCmd, u32, u32)>>,
    /// Per group: its block's input this cycle (working storage; a watched group's stays for
    /// [`Groups::take_watched`]).
    inputs: Vec<WmcIn>,
    /// Per group: 1 + the last cycle its block was stepped or absorbed a cycle (0: never).
    touched: Vec<u64>,
    /// Per controller: its candidate window, the pending requests of the current mode oldest
    /// first (occupied slots only); kept current as requests enter and leave and banks open
    /// and close, rebuilt when the mode changes.
    cands: Vec<Vec<Option<Cand>>>,
    /// Per controller and global warp id (flat, `wet_entries` per controller): the requests of
    /// the warp in the controller's candidate window; kept with the windows. A service can
    /// raise a row score only in a window holding its warp.
    present: Vec<u16>,
    wet_entries: usize,
    /// Per WET scope: this cycle's WET change per warp id (enqueues minus services), and the
    /// global warp ids of its services.
    scope_sum: Vec<Vec<(u32, i64)>>,
    scope_svc: Vec<Vec<u32>>,
    /// Per WET scope: its warp entry table, shared by the scope's blocks (their copies would
    /// hold the same values, see [`Wet`]); a watched block keeps and checks its own.
    wets: Vec<Wet>,
    /// Working storage: the own events of a block that absorbs a cycle.
    own: Vec<OwnEvents>,
    /// Per controller: events reported to its block in the next cycle, the global warp id of
    /// the request its column command served and the (bank, row) it activated; and the sets
    /// of controllers with one (bit `c` for controller `c`).
    svc: Vec<Option<u32>>,
    act: Vec<Option<(u32, u32)>>,
    svc_set: u128,
    act_set: u128,
    /// The watched group (co-simulation): it steps its block every cycle, checked.
    watched: Option<usize>,
    /// The watched group stepped in the last cycle, and its cycle has not been taken.
    seen: bool,
}

impl Groups {
    pub fn new(spec: &Spec) -> Groups {
        let (d, w) = (&spec.dram, &spec.wmc);
        let n = d.channels as usize;
        let per_group = w.controllers_per_wet as usize;
        let groups = n / per_group;
        let scopes = (d.channels / w.wet_ctrls) as usize;
        Groups {
            counts: vec![BankCounts::new(d.banks as usize); n],
            blocks: (0..groups).map(|_| WarpedMc::new(w)).collect(),
            per_group,
            wet_ctrls: w.wet_ctrls as usize,
            group_scope: (0..groups)
                .map(|g| g * per_group / w.wet_ctrls as usize)
                .collect(),
            cap: spec.mc.queue_entries as usize,
            sel: vec![None; n],
            inputs: Vec::new(),
            touched: vec![0; groups],
            cands: vec![Vec::with_capacity(spec.mc.queue_entries as usize); n],
            present: vec![0; n * w.wet_entries as usize],
            wet_entries: w.wet_entries as usize,
            scope_sum: vec![Vec::new(); scopes],
            scope_svc: vec![Vec::new(); scopes],
            wets: vec![Wet::new(w); scopes],
            own: Vec::new(),
            svc: vec![None; n],
            act: vec![None; n],
            svc_set: 0,
            act_set: 0,
            watched: None,
            seen: false,
        }
    }

    /// The warp entry table controller `c` reads.
    #[inline]
    pub fn wet_of(&self, c: usize) -> &Wet {
        &self.wets[self.group_scope[c / self.per_group]]
    }

    /// Services or activations are due to the blocks next cycle.
    #[inline]
    pub fn has_events(&self) -> bool {
        self.svc_set | self.act_set != 0
    }

    /// Watch group `g` (or none): its block steps every cycle, checked, and
    /// [`Groups::take_watched`] gives its cycles.
    pub fn watch(&mut self, g: Option<usize>) {
        self.watched = g;
        self.seen = false;
    }

    /// The watched group's last cycle, once.
    pub fn take_watched(&mut self) -> Option<GroupCycle<'_>> {
        let g = self.watched.filter(|_| self.seen)?;
        self.seen = false;
        Some(GroupCycle {
            group: g,
            input: &self.inputs[g],
            output: self.blocks[g].output(),
        })
    }

    /// The blocks' part of a cycle, before any controller picks: stage the WETs, step or
    /// absorb the blocks of the groups that may change (`run`: the controllers that run their
    /// scheduler), commit the WETs; last cycle's events have then reached the blocks.
    /// `SELECTS`: the blocks select the commands (Warped-MC), so every group that may issue
    /// steps its block; otherwise only the watched one does.
    #[inline]
    pub fn prepare<const SELECTS: bool>(
        &mut self,
        ctl: &mut Controllers,
        run: u128,
        now: u64,
    ) -> Result<(), McError> {
        let events = ctl.enq_set | self.svc_set | self.act_set;
        self.stage(ctl);
        let visit = self.visits::<SELECTS>(run | events);
        let mut inputs = std::mem::take(&mut self.inputs);
        inputs.resize_with(self.blocks.len(), WmcIn::default);
        for g in bits(visit) {
            self.visit(g, ctl, &mut inputs[g], (run, events), now)?;
        }
        self.inputs = inputs;
        for w in &mut self.wets {
            w.commit();
        }
        // Unit tests check that a watched block's own WET copy is the shared one.
        #[cfg(test)]
        if let Some(g) = self.watched {
            let sc = self.group_scope[g];
            assert_eq!(
                self.blocks[g].wet().values(),
                self.wets[sc].values(),
                "group {g}'s WET copy at {now}"
            );
        }
        for c in bits(self.svc_set | self.act_set) {
            self.svc[c] = None;
            self.act[c] = None;
        }
        (self.svc_set, self.act_set) = (0, 0);
        Ok(())
    }

    /// Stage every scope's WET change of the cycle (its enqueues and last cycle's services).
    #[inline(always)]
    fn stage(&mut self, ctl: &Controllers) {
        let wc = self.wet_ctrls;
        for (sc, (sum, svc)) in self
            .scope_sum
            .iter_mut()
            .zip(self.scope_svc.iter_mut())
            .enumerate()
        {
            sum.clear();
            svc.clear();
            let scope = ((ctl.enq_set | self.svc_set) >> (sc * wc)) & set_of(wc);
            for c in bits(scope).map(|k| sc * wc + k) {
                let ev = [
                    ctl.incoming[c].map(|e| (e.gwid, 1)),
                    self.svc[c].map(|g| (g, -1)),
                ];
                for (g, d) in ev.into_iter().flatten() {
                    Wet::add(sum, g, d);
                }
                svc.extend(self.svc[c]);
            }
            self.wets[sc].stage(sum);
        }
    }

    /// The groups visited this cycle: those with a controller of `active` (that runs or has
    /// events), those with a window holding a warp whose service may raise a row score (it
    /// leaves the warp one pending request), and the watched one. A group left out has no
    /// events of its own and no service could raise its row scores; its block catches up at
    /// its next step ([`WarpedMc::skipped_idle`]). Without `SELECTS`, the watched group only.
    #[inline(always)]
    fn visits<const SELECTS: bool>(&self, mut active: u128) -> u128 {
        let (per, wc) = (self.per_group, self.wet_ctrls);
        let mut visit = 0;
        if SELECTS {
            for (sc, w) in self.wets.iter().enumerate() {
                if !w.leaves_one() {
                    continue;
                }
                for &g in &self.scope_svc[sc] {
                    if w.staged(g) == Some(1) {
                        for c in sc * wc..(sc + 1) * wc {
                            let holds = self.present[c * self.wet_entries + g as usize] != 0;
                            active |= u128::from(holds) << c;
                        }
                    }
                }
            }
            if per == 1 {
                visit = active;
            } else {
                for g in 0..self.blocks.len() {
                    visit |= u128::from(active >> (g * per) & set_of(per) != 0) << g;
                }
            }
        }
        if let Some(g) = self.watched {
            visit |= 1 << g;
        }
        visit
    }

    /// Group `g`'s block this cycle: absorbed when none of its controllers runs (and it is
    /// not watched), else stepped, its selections kept in `sel`.
    #[inline(always)]
    fn visit(
        &mut self,
        g: usize,
        ctl: &mut Controllers,
        inp: &mut WmcIn,
        (run, events): (u128, u128),
        now: u64,
    ) -> Result<(), McError> {
        let per = self.per_group;
        let cs = g * per..(g + 1) * per;
        let watched = self.watched == Some(g);
        let sc = self.group_scope[g];
        let own = set_of(per) << cs.start;
        if !watched && run & own == 0 {
            self.touched[g] = now + 1;
            self.own.clear();
            if events & own != 0 {
                self.own.extend(cs.clone().map(|c| OwnEvents {
                    enq: ctl.incoming[c].is_some(),
                    svc: self.svc[c],
                    act: self.act[c],
                }));
            }
            self.blocks[g].absorb_shared(
                &self.scope_svc[sc],
                &self.own,
                &self.cands[cs],
                &self.wets[sc],
            );
            return Ok(());
        }
        if self.touched[g] != now {
            self.blocks[g].skipped_idle();
        }
        self.touched[g] = now + 1;
        self.fill_input(g, ctl, inp, watched, now);
        let out = if watched {
            // The RTL's window has every slot: the checked step and the watch see them.
            for ci in &mut inp.ctrl {
                ci.cands.resize(self.cap, None);
            }
            self.blocks[g].step(inp)
        } else {
            Ok(self.blocks[g].step_shared(inp, &self.scope_svc[sc], &self.wets[sc]))
        };
        let out = match out {
            Ok(o) => o,
            Err(e) => {
                swap_windows(&mut self.cands[cs], inp);
                return Err(e.into());
            }
        };
        for (k, co) in out.ctrl.iter().enumerate() {
            self.sel[g * per + k] = co.sel;
        }
        if watched {
            // The windows go back to their cache; the input stays for the watch.
            for (w, ci) in self.cands[cs].iter_mut().zip(&inp.ctrl) {
                w.clear();
                w.extend(ci.cands.iter().take_while(|x| x.is_some()));
            }
            self.seen = true;
        } else {
            swap_windows(&mut self.cands[cs], inp);
        }
        Ok(())
    }

    /// The controllers of group `g`'s WET scope, in port order: the group's own controllers
    /// first, then the rest of the scope in channel order.
    fn scope_of(&self, g: usize) -> impl Iterator<Item = usize> + Clone {
        let own = g * self.per_group..(g + 1) * self.per_group;
        let first = own.start / self.wet_ctrls * self.wet_ctrls;
        let rest = (first..first + self.wet_ctrls).filter(move |c| !own.contains(c));
        (g * self.per_group..(g + 1) * self.per_group).chain(rest)
    }

    /// The block inputs of group `g` this cycle, written into `inp` (the group's candidate
    /// windows are current). The windows move into `inp`; the caller moves them back after
    /// the step. `inp.enq` and the other controllers' `inp.svc` are filled only for a watched
    /// group (the others take the shared WET and the scope's service list).
    fn fill_input(
        &mut self,
        g: usize,
        ctl: &mut Controllers,
        inp: &mut WmcIn,
        watched: bool,
        now: u64,
    ) {
        let first = g * self.per_group;
        inp.ctrl.resize_with(self.per_group, CtrlIn::default);
        if watched {
            inp.enq.resize(self.wet_ctrls, None);
            inp.svc.resize(self.wet_ctrls, None);
            for (i, c) in self.scope_of(g).enumerate() {
                inp.enq[i] = ctl.incoming[c].map(|e| {
                    let r = &ctl.ctrls[c].held[e.req as usize].0;
                    Enq {
                        sm: r.sm,
                        warp: r.warp,
                        pc: r.pc,
                    }
                });
                inp.svc[i] = self.svc[c];
            }
        } else {
            // The block reads its own controllers' services only (they come first).
            inp.enq.clear();
            inp.svc.clear();
            let own = &self.svc[first..first + self.per_group];
            inp.svc.extend(own.iter().copied());
        }
        let own = first..first + self.per_group;
        swap_windows(&mut self.cands[own.clone()], inp);
        let state = self.act[own.clone()].iter().zip(&self.counts[own.clone()]);
        for ((x, ci), (&act, k)) in ctl.ctrls[own].iter_mut().zip(&mut inp.ctrl).zip(state) {
            ci.act = act;
            ci.bank_open = x.ch.open_mask();
            ci.cas_ready = 0;
            ci.pre_ready = 0;
            ci.act_ready = 0;
            if x.ch.refresh_due(now) {
                continue;
            }
            // Readiness of the banks holding candidates: past the first bound (`f`: CAS if
            // open, ACT if closed) and past the second (`p`: PRE).
            let req = k.req_mask;
            let (f, p) = x.past_bounds(req, now);
            let open = ci.bank_open & req;
            ci.cas_ready = open & f;
            ci.pre_ready = open & p;
            ci.act_ready = req & !ci.bank_open & f;
        }
    }

    /// Request `e` joined controller `c`'s queue in the current mode: it is counted and enters
    /// the window (`DF`: the counts keep the prefetches apart).
    #[inline(always)]
    pub fn joined<const DF: bool>(&mut self, c: usize, x: &Controller, e: &Entry) {
        self.counts[c].joined(x, e, DF);
        self.cands[c].push(Some(cand(&x.ch, e)));
        self.present[c * self.wet_entries + e.gwid as usize] += 1;
    }

    /// A command issued on controller `c`: the events for the blocks, the window and the bank
    /// counts follow. A row command to one bank recounts its hits from the window (the requests
    /// of the current mode); `DF`: the counts keep the prefetches apart, recounted from the queue.
    #[inline(always)]
    pub fn issued<const DF: bool>(&mut self, c: usize, x: &Controller, ev: &Issued) {
        let Issued {
            cmd,
            row_before,
            served,
        } = *ev;
        if cmd.kind == CmdKind::Act {
            self.act[c] = Some((cmd.bank, cmd.row));
            self.act_set |= 1 << c;
        }
        let (w, k) = (&mut self.cands[c], &mut self.counts[c]);
        if let Some((i, e)) = served {
            if let Some(y) = w.remove(i) {
                self.present[c * self.wet_entries + y.gwid as usize] -= 1;
            }
            k.tally(&e, false, row_before == Some(e.row), DF);
            self.svc[c] = Some(e.gwid);
            self.svc_set |= 1 << c;
        }
        let all = matches!(cmd.kind, CmdKind::PreA | CmdKind::Ref);
        let moved = x.ch.open_row(cmd.bank) != row_before;
        let from_window = !all && !cmd.kind.is_column();
        if from_window {
            let mut n = 0u16;
            for y in w.iter_mut().flatten() {
                if y.bank == cmd.bank {
                    y.hit = hits(&x.ch, y.bank, y.row);
                    n += u16::from(y.hit);
                }
            }
            if moved && DF {
                // (The window keeps no request class: the demand hits are counted anew.)
                k.recount_hits(x, cmd.bank, true);
            } else if moved {
                k.nhit[cmd.bank as usize] = n;
                k.mark(cmd.bank);
            }
        } else if all {
            for y in w.iter_mut().flatten() {
                y.hit = hits(&x.ch, y.bank, y.row);
            }
        }
        if all {
            k.recount(x, DF);
        } else if moved && !from_window {
            // (A closed bank has no hits: nothing to count.)
            k.recount_hits(x, cmd.bank, DF);
        }
    }

    /// Recount controller `c`'s banks and rebuild its candidate window (its pending queue of
    /// the current mode, oldest first, with hit flags) after its mode changed.
    pub fn mode_changed<const DF: bool>(&mut self, c: usize, x: &Controller) {
        self.counts[c].recount(x, DF);
        let present = &mut self.present[c * self.wet_entries..(c + 1) * self.wet_entries];
        for y in self.cands[c].iter().flatten() {
            present[y.gwid as usize] -= 1;
        }
        window(x, &mut self.cands[c]);
        for y in self.cands[c].iter().flatten() {
            present[y.gwid as usize] += 1;
        }
    }

    /// Unit tests check controller `c`'s kept counts, window and warps against a rebuild.
    #[cfg(test)]
    pub fn check<const DF: bool>(&self, c: usize, x: &Controller, now: u64) {
        self.counts[c].check(x, DF, &format!("controller {c} at {now}"));
        let mut w = Vec::new();
        window(x, &mut w);
        assert_eq!(self.cands[c], w, "controller {c}'s window at {now}");
        let mut present = vec![0u16; self.wet_entries];
        for y in w.iter().flatten() {
            present[y.gwid as usize] += 1;
        }
        let kept = &self.present[c * self.wet_entries..(c + 1) * self.wet_entries];
        assert_eq!(kept, &present[..], "controller {c}'s warps at {now}");
    }
}

/// Move a group's candidate windows into its block input, or back.
fn swap_windows(windows: &mut [Vec<Option<Cand>>], inp: &mut WmcIn) {
    for (w, ci) in windows.iter_mut().zip(inp.ctrl.iter_mut()) {
        std::mem::swap(w, &mut ci.cands);
    }
}

/// Candidate-window entry of a pending request, given its channel's open rows.
#[inline]
fn cand(ch: &super::super::dram::Channel, e: &Entry) -> Cand {
    Cand {
        gwid: e.gwid,
        bank: e.bank(),
        row: e.row,
        slot: e.slot.into(),
        hit: hits(ch, e.bank(), e.row),
    }
}

/// Controller `x`'s candidate window, from its queue and banks, written into `w`: its
/// occupied slots only (the block reads missing slots as empty, see
/// [`WarpedMc::step_trusted`]).
fn window(x: &Controller, w: &mut Vec<Option<Cand>>) {
    w.clear();
    w.extend(x.mode_queue().iter().map(|e| Some(cand(&x.ch, e))));
}

/// The hooks of a scheduler that keeps its state in [`Groups`] (field `groups`): requests,
/// commands and mode changes go to it; `$df`: its demand-first constant.
macro_rules! groups_hooks {
    ($df:expr) => {
        #[inline]
        fn joined(&mut self, c: usize, x: &Controller, e: &Entry) {
            self.groups.joined::<{ $df }>(c, x, e);
        }

        #[inline]
        fn mode_changed(&mut self, c: usize, x: &Controller) {
            self.groups.mode_changed::<{ $df }>(c, x);
        }

        #[inline]
        fn has_events(&self) -> bool {
            self.groups.has_events()
        }

        fn watch(&mut self, g: Option<usize>) {
            self.groups.watch(g);
        }

        fn take_watched(&mut self) -> Option<GroupCycle<'_>> {
            self.groups.take_watched()
        }

        #[cfg(test)]
        fn check(&self, c: usize, x: &Controller, now: u64) {
            self.groups.check::<{ $df }>(c, x, now);
        }
    };
}
pub(super) use groups_hooks;
