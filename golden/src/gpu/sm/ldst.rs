//! The LD/ST unit: the memory instruction it holds, its requests moved on one per cycle (step
//! 4) past the prefetcher into the L1 or the port's register; and the answers that complete
//! memory instructions.

use super::port::{request, Held, Tag};
use super::warp::Payload;
use super::{PfAnswer, Sm};
use crate::bitset::members;
use crate::gpu::coalesce::{coalesce_chunks, coalesce_strided, CoalesceRules, Space};
use crate::gpu::prefetch::Demand;
use crate::mem::slice::{AccessKind, SliceRequest};
use crate::stream::Offer;
use crate::workload::accelsim::{Inst, LaneAddrs};
use spec::gpu::ExecClass;
use std::collections::VecDeque;

/// A memory instruction in the LD/ST unit.
#[derive(Debug)]
pub(super) struct LdstInst {
    /// Its warp's slot and its id among the warp's outstanding instructions.
    pub payload: Payload,
    /// The addresses of its requests not yet moved on.
    pub addrs: VecDeque<u64>,
    /// It writes (a store, an atomic, a reduction).
    pub write: bool,
    /// Its requests bypass the L1 (atomics and reductions; global accesses with
    /// `gpu.skip_l1`).
    pub bypass: bool,
    pub space: Space,
}

/// The LD/ST unit.
#[derive(Debug, Default)]
pub(super) struct LdstUnit {
    /// The memory instruction it holds.
    pub inst: Option<LdstInst>,
    /// The emptied request queue of its last instruction, for the next.
    pub spare: VecDeque<u64>,
    /// Its front request was looked up at the prefetcher already (it missed, and waits for the
    /// L1 or the port).
    pub pf_checked: bool,
}

impl LdstUnit {
    pub fn is_free(&self) -> bool {
        self.inst.is_none()
    }
}

#[cfg(test)]
thread_local! {
    /// A deliberately wrong variant for the tests: an answered load does not update its warp's
    /// gates (the warp is left as waiting on it).
    pub(crate) static LAX_GATES: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The requests of global instruction `i` into `out`: one per coalesced access (a line L1), or
/// one per 32-byte chunk an access touches (a sector L1).
pub(super) fn requests_of(
    i: &Inst,
    rules: CoalesceRules,
    sector: bool,
    space: Space,
    l2_only: bool,
    out: &mut VecDeque<u64>,
) {
    // The active lanes with their addresses, as a stride or an iterator (not listed first).
    let size = i.mem_bytes;
    let accesses = match &i.addrs {
        &LaneAddrs::Strided { base, stride, n } => coalesce_strided(
            rules,
            i.mask,
            base,
            stride,
            usize::from(n),
            size,
            space,
            l2_only,
        ),
        LaneAddrs::List(l) => {
            let lanes = members(u64::from(i.mask));
            coalesce_chunks(rules, lanes.zip(l.iter().copied()), size, space, l2_only)
        }
        LaneAddrs::Empty => Default::default(),
    };
    for a in accesses {
        if !sector {
            out.push_back(a.addr);
            continue;
        }
        let block = a.addr & !127;
        for c in 0..4u64 {
            let at = block + 32 * c;
            if a.chunks >> c & 1 != 0 && at >= a.addr && at < a.addr + u64::from(a.size) {
                out.push_back(at);
            }
        }
    }
}

impl Sm<'_> {
    /// Step 4: the LD/ST unit's next requests: one, or with a banked L1 (`gpu.l1_banks`) up to
    /// one a bank, in order, until one is refused or would go to a bank already fed this cycle
    /// (GPGPU-Sim's bank conflict; decision GPU-34). See [`Sm::ldst_access`].
    pub(super) fn ldst_step(&mut self, now: u64) {
        let mut fed = 0u32;
        for _ in 0..self.l1.banks() {
            if !self.ldst_access(now, &mut fed) {
                return;
            }
        }
    }

    /// One request of the LD/ST unit. The prefetcher sees every global access first: a load
    /// its cache holds, or one whose prefetch is in flight, goes no further; a store drops its
    /// line. Then it goes into the L1's input queue or, bypassing the L1, into the port's
    /// register, if there is room. `fed`: the L1 banks fed this cycle. True when an access went
    /// into the L1 and another of the same instruction may follow in this cycle.
    fn ldst_access(&mut self, now: u64, fed: &mut u32) -> bool {
        let Some(u) = &mut self.ldst.inst else {
            return false;
        };
        let mut more = false;
        if let Some(&addr) = u.addrs.front() {
            let (payload, write) = (u.payload, u.write);
            let at_pf = match &mut self.pf {
                _ if self.ldst.pf_checked => Demand::Miss,
                Some(pf) if write => {
                    pf.store(addr);
                    Demand::Miss
                }
                Some(pf) => pf.demand(addr, payload),
                None => Demand::Miss,
            };
            let before = u.addrs.len();
            if at_pf != Demand::Miss {
                if at_pf == Demand::Hit {
                    let alu = self.exec[ExecClass::Alu.index()].latency;
                    self.pf_answers.push_back(PfAnswer {
                        at: now + u64::from(alu),
                        payload,
                    });
                }
                u.addrs.pop_front();
            } else if u.bypass {
                // Straight to the memory side, through the port's register.
                if self.held.is_none() {
                    let req = request(self.id, Tag::bypass(payload), addr, write, payload.warp());
                    self.held = Some(Held {
                        req,
                        origin: Some(payload),
                    });
                    u.addrs.pop_front();
                }
            } else {
                let kind = match (u.space, write) {
                    (Space::Global, false) => AccessKind::GlobalRead,
                    (Space::Global, true) => AccessKind::GlobalWrite,
                    (Space::Local, false) => AccessKind::LocalRead,
                    (Space::Local, true) => AccessKind::LocalWrite,
                };
                let r = SliceRequest {
                    addr,
                    write,
                    payload,
                    kind,
                };
                let bank = 1u32 << self.l1.bank_of(addr);
                if *fed & bank == 0 && self.l1.offer(r) == Offer::Accepted {
                    u.addrs.pop_front();
                    *fed |= bank;
                    more = true;
                }
            }
            // Looked up, and still waiting: not again.
            self.ldst.pf_checked = u.addrs.len() == before;
        }
        if u.addrs.is_empty() {
            if let Some(u) = self.ldst.inst.take() {
                self.ldst.spare = u.addrs;
            }
            self.idle.fill(0);
            return false;
        }
        more
    }

    /// An access of memory instruction `p` is answered at `now`.
    pub(super) fn answered(&mut self, p: Payload, now: u64) {
        let w = p.warp();
        let Some(warp) = self.warps[w].as_mut() else {
            return;
        };
        let Some(i) = warp.outstanding.iter().position(|x| x.id == p.id()) else {
            return;
        };
        let o = &mut warp.outstanding[i];
        o.left -= 1;
        o.first.get_or_insert(now);
        if o.left > 0 {
            return;
        }
        self.changed |= 1 << warp.slot;
        self.idle[w % self.sched.len()] = 0;
        let done = warp.outstanding.swap_remove(i);
        if let Some(r) = done.dest {
            warp.loading.remove(r);
        }
        if done.dest.is_some() && done.load {
            self.stats.load_latency.add(now - done.issued);
            self.stats.divergence.add(now - done.first.unwrap_or(now));
        }
        if warp.done && warp.outstanding.is_empty() {
            if let Some(b) = &mut self.blocks[warp.slot] {
                b.unfinished -= 1;
            }
        }
        #[cfg(test)]
        if LAX_GATES.with(std::cell::Cell::get) {
            return;
        }
        self.gates.set(w, Some(warp));
    }
}
