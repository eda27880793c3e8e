//! The issue stage (step 5): each warp scheduler picks at most one of its warps, which issues
//! its next instruction; a memory instruction goes to the LD/ST unit.

use super::ldst::{requests_of, LdstInst};
use super::warp::{Outstanding, Payload, Writing};
use super::Sm;
use crate::gpu::coalesce::Space;
use crate::gpu::sched::Ready;
use crate::workload::accelsim::Reg;
use crate::workload::opcode::Kind;

/// A global memory instruction at issue.
#[derive(Debug, Clone, Copy)]
struct MemIssue {
    /// Its index in the warp's instructions held.
    idx: usize,
    /// Its destination (`None`: none).
    dest: Option<Reg>,
    write: bool,
    space: Space,
    /// An atomic or a reduction (to the L2).
    l2_only: bool,
}

impl Sm<'_> {
    /// Step 5. A scheduler that found no ready warp finds none again until something that
    /// readies one of its warps happens (`idle`) or an arithmetic result or unit it waits on
    /// is due, unless its policy's choice changes every cycle.
    pub(super) fn issue_stage(&mut self, now: u64) {
        for s in 0..self.sched.len() {
            if now < self.idle[s] {
                continue;
            }
            let view = Ready {
                warps: &self.warps,
                gates: self.gates,
                own: self.own[s],
                unit_busy: !self.ldst.is_free(),
                busy: &self.busy[s],
                now,
            };
            #[cfg(test)]
            view.check_candidates();
            match self.sched[s].pick(&view) {
                Some(w) => {
                    self.issue(w, s, now);
                    self.sched[s].issued(w);
                    self.idle[s] = 0;
                }
                None if self.sched[s].sleeps() => self.idle[s] = view.next_change(),
                None => {}
            }
        }
    }

    /// Warp slot `w` (of scheduler `s`) issues its next instruction.
    fn issue(&mut self, w: usize, s: usize, now: u64) {
        let shared = self.shared_latency;
        let Some(x) = self.warps[w].as_mut() else {
            return;
        };
        let idx = x.next;
        let (Some(kind), dest) = (x.next_kind, x.next_dest) else {
            return;
        };
        x.next += 1;
        self.stats.instructions += 1;
        self.stats.thread_instructions += u64::from(x.insts[idx].mask.count_ones());
        x.writing.retain(|r| r.at > now);
        match kind {
            // A warp ends when its trace does: an EXIT of some lanes is followed by the others'
            // instructions (Accel-Sim's trace-driven warps end the same way).
            Kind::Exit => {}
            Kind::Barrier => {
                x.at_barrier = true;
                self.changed |= 1 << x.slot;
            }
            Kind::Alu(c) => {
                let t = self.exec[c.index()];
                self.busy[s][c.index()] = now + u64::from(t.initiation);
                if let Some(reg) = dest {
                    x.writing.push(Writing {
                        reg,
                        at: now + u64::from(t.latency),
                    });
                }
            }
            Kind::Shared => {
                if let Some(reg) = dest {
                    x.writing.push(Writing {
                        reg,
                        at: now + shared,
                    });
                }
            }
            Kind::Global {
                write,
                space,
                l2_only,
            } => {
                let m = MemIssue {
                    idx,
                    dest,
                    write,
                    space,
                    l2_only,
                };
                self.issue_memory(w, m, now);
            }
        }
        self.issued(w);
    }

    /// Warp slot `w`'s global memory instruction `m` issued: its requests (none: it is done)
    /// go to the LD/ST unit, its destination awaits them, and the prefetcher and the OT
    /// predictor are told of a load.
    fn issue_memory(&mut self, w: usize, m: MemIssue, now: u64) {
        let Some(x) = self.warps[w].as_mut() else {
            return;
        };
        let mut addrs = std::mem::take(&mut self.ldst.spare);
        let (rules, sector) = (self.rules, self.l1_sector);
        requests_of(
            &x.insts[m.idx],
            rules,
            sector,
            m.space,
            m.l2_only,
            &mut addrs,
        );
        if addrs.is_empty() {
            self.ldst.spare = addrs;
            return;
        }
        let id = x.next_id;
        x.next_id = x.next_id.wrapping_add(1);
        // A store writes no register; an atomic returns the old value into its destination (a
        // reduction has none), which waits for the reply.
        let dest = m.dest.filter(|_| !m.write || m.l2_only);
        if let Some(r) = dest {
            x.loading.insert(r);
        }
        let pc = x.insts[m.idx].pc;
        let lec = x.count_load(pc);
        if let (Some(pf), false, Some(&first)) = (&mut self.pf, m.write, addrs.front()) {
            if m.space == Space::Global {
                pf.train(pc, w as u32, first);
            }
        }
        if let (Some(t), false) = (&mut self.ot, m.write) {
            t.query(pc, lec, x.tb, x.in_block);
        }
        x.outstanding.push(Outstanding {
            id,
            dest,
            load: !m.write,
            left: addrs.len() as u32,
            issued: now,
            first: None,
            pc,
            lec,
            observed: Default::default(),
        });
        // Atomics and reductions go to the L2; with gpu.skip_l1 global accesses do too
        // (GPGPU-Sim's -gpgpu_gmem_skip_L1D).
        let bypass = m.l2_only || (self.rules.skip_l1 && m.space == Space::Global);
        self.ldst.inst = Some(LdstInst {
            payload: Payload::pack(w, id),
            addrs,
            write: m.write,
            bypass,
            space: m.space,
        });
    }

    /// After warp slot `w` issued: its next instruction prepared (more generated if it ran
    /// out), its end noted, its block's counts and its gates updated.
    fn issued(&mut self, w: usize) {
        let Some(x) = self.warps[w].as_mut() else {
            return;
        };
        if x.next == x.insts.len() {
            x.refill(&mut self.kinds);
        }
        x.prepare();
        if x.next >= x.insts.len() {
            x.done = true;
            self.changed |= 1 << x.slot;
        }
        if let Some(b) = &mut self.blocks[x.slot] {
            if x.done {
                b.live -= 1;
                b.unfinished -= u32::from(x.outstanding.is_empty());
            } else if x.at_barrier {
                b.waiting += 1;
            }
        }
        self.gates.set(w, Some(x));
    }
}
