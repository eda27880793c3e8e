//! The SM's cycle (steps 1 to 6, the module documentation of [`super`]), and when it next has
//! work: it runs only in cycles with work of its own, a reply at its port, its port opening
//! for the request it holds, or a launch; the cycles it skips are counted when it runs again.

#[cfg(test)]
use super::warp::Block;
use super::Sm;
use crate::bitset::members;
use crate::mem::side::MemorySide;
use crate::mem::slice::Head;

#[cfg(test)]
thread_local! {
    /// A deliberately wrong variant for the tests: an SM that slept with a request held at a
    /// full port does not count the refusals of the cycles it skipped.
    pub(crate) static LAX_SETTLE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the tests' wrong variant forgets a sleeping SM's refused offers (never outside unit
/// tests).
#[inline(always)]
fn lax_settle() -> bool {
    #[cfg(test)]
    return LAX_SETTLE.with(|l| l.get());
    #[cfg(not(test))]
    false
}

impl Sm<'_> {
    /// One core cycle at cycle `now`, against the memory side. An error is the probe's on its
    /// prefetcher ([`Sm::watch_prefetch`]): it ends the cycle.
    pub fn cycle(&mut self, now: u64, side: &mut MemorySide) -> Result<(), String> {
        self.settle(now, side);
        self.last_cycle = now;
        self.take_reply(now, side);
        self.send(side);
        self.l1_cycle(now);
        self.ldst_step(now);
        self.prefetch_cycle()?;
        self.issue_stage(now);
        self.block_step();
        self.wake = self.next_busy(now, side);
        Ok(())
    }

    /// Whether it runs in core cycle `now`: its next work is due ([`Component::next_work`]),
    /// or something outside it woke it ([`Sm::woken`]).
    ///
    /// [`Component::next_work`]: crate::stream::Component::next_work
    pub fn due(&self, now: u64, side: &MemorySide) -> bool {
        now >= self.wake || self.woken(side)
    }

    /// Step 3: the L1's access and its answers; the prefetch cache's answers due.
    fn l1_cycle(&mut self, now: u64) {
        let merges = self.l1.mshr_merges();
        self.l1.cycle();
        if let Some(pf) = &mut self.pf {
            pf.l1_events(self.l1.mshr_merges() - merges, 0);
        }
        // (Kept only when prefetching into the L1, or for a scheduler that watches the L1.)
        for line in self.l1.take_evictions() {
            if let Some(pf) = &mut self.pf {
                pf.evicted(line);
            }
            for s in &mut self.sched {
                s.l1_evicted(line);
            }
        }
        let n = self.sched.len();
        for (addr, p) in self.l1.take_misses() {
            self.sched[p.warp() % n].l1_miss(p.warp(), addr);
        }
        while let Some((p, _)) = self.l1.pop_answer() {
            self.answered(p, now);
        }
        // The next answer's warp is asked for ahead (a host cache hint).
        if let Some(p) = self.l1.next_answer() {
            if let Some(x) = self.warps.get(p.warp()) {
                crate::hint::prefetch(x);
            }
        }
        while self.pf_answers.front().is_some_and(|a| a.at <= now) {
            if let Some(a) = self.pf_answers.pop_front() {
                self.answered(a.payload, now);
            }
        }
    }

    /// The prefetcher's cycle (training, the throttle's events, its prefetches), and the probe
    /// on its engine.
    fn prefetch_cycle(&mut self) -> Result<(), String> {
        let Some(pf) = &mut self.pf else {
            return Ok(());
        };
        let l1 = &self.l1;
        pf.cycle(|line| l1.holds(line))?;
        if let (Some(probe), Some((i, o))) = (self.probe.as_deref_mut(), pf.ports()) {
            probe(i, o)?;
        }
        Ok(())
    }

    /// Step 6: barriers and finished blocks, only in the blocks where a warp reached a barrier
    /// or ended, or a memory instruction was answered (nothing else can pass a barrier or end
    /// a block), in slot order.
    fn block_step(&mut self) {
        let changed = std::mem::take(&mut self.changed);
        for slot in members(changed).map(|b| b as usize) {
            let Some(b) = &mut self.blocks[slot] else {
                continue;
            };
            // A block whose live warps all wait at the barrier passes it.
            if b.live > 0 && b.waiting == b.live {
                b.waiting = 0;
                for &w in &b.warps {
                    if let Some(x) = self.warps[w].as_mut().filter(|x| !x.done) {
                        x.at_barrier = false;
                        self.idle[w % self.sched.len()] = 0;
                        self.gates.set(w, Some(x));
                    }
                }
            }
            let Some(b) = &self.blocks[slot] else {
                continue;
            };
            #[cfg(test)]
            self.check_block(b);
            if b.unfinished == 0 {
                for &w in &b.warps {
                    self.retired.extend(self.warps[w].take());
                    self.gates.set(w, None);
                    self.free.warps += 1;
                }
                self.blocks[slot] = None;
                self.free.blocks += 1;
                self.finished.push(slot as u32);
                self.stats.blocks += 1;
            }
        }
    }

    /// The block's counters are its warps' states (the tests' check of the kept counts).
    #[cfg(test)]
    fn check_block(&self, b: &Block) {
        let xs = || b.warps.iter().filter_map(|&w| self.warps[w].as_ref());
        let live = xs().filter(|x| !x.done).count() as u32;
        let waiting = xs().filter(|x| !x.done && x.at_barrier).count() as u32;
        let unfinished = xs()
            .filter(|x| !x.done || !x.outstanding.is_empty())
            .count() as u32;
        assert_eq!(
            (b.live, b.waiting, b.unfinished),
            (live, waiting, unfinished)
        );
    }

    /// Count the cycles it skipped before core cycle `now` ([`Sm::next_busy`]): each would
    /// have done what its last one left to do again, and changed nothing else. Its L1 takes
    /// the cycles (refusing its head access each, if it has one), and the port refuses its
    /// held request each.
    pub(super) fn settle(&mut self, now: u64, side: &mut MemorySide) {
        if now > self.last_cycle + 1 {
            let n = now - self.last_cycle - 1;
            self.l1.repeat(n);
            if self.held.is_some() && !lax_settle() {
                side.refused(n);
            }
            self.last_cycle = now - 1;
        }
    }

    /// After its cycle at `now`: the first core cycle at which it has work of its own, unless
    /// something outside it changes first ([`Sm::woken`]: a reply lands at its port, or its
    /// port would take its held request; or a block is launched on it). A cycle before it
    /// would do what this one left to do again and change nothing: offer its held request to
    /// a port that refuses it, retry an L1 access the MSHRs or the miss queue refuse (a
    /// reservation failure each time), offer the LD/ST unit's next access to a full L1 input
    /// queue or (bypassing the L1) to the taken port register, and count the L1's clock
    /// ([`Sm::settle`] counts them when it runs again). `now + 1` while it has work or a
    /// prefetcher: a fetch for a free port register, an access the L1 or the port would take,
    /// an answer due, a block to look at, a scheduler that may find a warp to issue, or
    /// something outside that has already woken it.
    fn next_busy(&self, now: u64, side: &MemorySide) -> u64 {
        if self.pf.is_some() || !self.pf_answers.is_empty() || self.changed != 0 {
            return now + 1;
        }
        // Without a held request, the L1's next fetch takes the port register. An L1 head
        // access not refused in this cycle is yet to be tried.
        if self.held.is_none() && self.l1.miss_queue_len() > 0
            || self.l1.input_len() > 0 && !self.l1.refused_last()
        {
            return now + 1;
        }
        if let Some(u) = &self.ldst.inst {
            let waits = if u.bypass {
                self.held.is_some()
            } else {
                !self.l1.has_room()
            };
            if u.addrs.is_empty() || !waits {
                return now + 1;
            }
        }
        let mut at = u64::MAX;
        for &until in &self.idle {
            if until <= now {
                return now + 1;
            }
            at = at.min(until);
        }
        match self.l1.answer_in() {
            0 => return now + 1,
            d => at = at.min(now.saturating_add(d)),
        }
        if self.l1.head() == Head::Taken || self.woken(side) {
            return now + 1;
        }
        at.max(now + 1)
    }
}
