//! Per-bank request and row-hit counts of one controller's current mode, kept as requests join
//! and leave and banks open and close, and the round-robin bank pointer: the state of the
//! schedulers that pick per bank (FR-FCFS, Div-First, Warped-MC).

use super::super::controller::{hits, key, Controller, Entry, Issued, Pick};
use super::super::dram::{CmdKind, Command};
use crate::bitset::members;

/// Per bank: pending requests of the current mode, and those of them hitting the open row,
/// with their bit masks; with demand-first scheduling (`df` in the methods that keep them,
/// the policy's constant) the same for the prefetches among them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::mc) struct BankCounts {
    /// Per bank: pending requests of the current mode, and those of them hitting the open row.
    pub nreq: Vec<u16>,
    pub nhit: Vec<u16>,
    /// Bit masks over banks (dram.banks <= 64, validated), following `nreq` and `nhit`: banks
    /// with a request, with a hit, with a miss (more requests than hits).
    pub req_mask: u64,
    pub hit_mask: u64,
    pub miss_mask: u64,
    /// With demand-first scheduling: per bank, the pending prefetches of the current mode and
    /// those of them hitting the open row (kept like `nreq` and `nhit`), and their total.
    /// Prefetches rather than demand requests are counted, so that traffic without
    /// prefetches costs nothing more.
    pub npf: Vec<u16>,
    pub npf_hit: Vec<u16>,
    pub npf_all: u32,
}

impl BankCounts {
    pub fn new(banks: usize) -> BankCounts {
        BankCounts {
            nreq: vec![0; banks],
            nhit: vec![0; banks],
            req_mask: 0,
            hit_mask: 0,
            miss_mask: 0,
            npf: vec![0; banks],
            npf_hit: vec![0; banks],
            npf_all: 0,
        }
    }

    /// The bank masks `(with a request, with a hit, with a miss)`.
    #[inline]
    pub fn masks(&self) -> (u64, u64, u64) {
        (self.req_mask, self.hit_mask, self.miss_mask)
    }

    /// Recount every bank from `x`'s queue (after the mode or every bank's row changed; one
    /// bank's row: [`BankCounts::recount_hits`]).
    #[inline]
    pub fn recount(&mut self, x: &Controller, df: bool) {
        self.nreq.fill(0);
        self.nhit.fill(0);
        if df {
            self.npf.fill(0);
            self.npf_hit.fill(0);
            self.npf_all = 0;
        }
        for e in x.mode_queue() {
            let (b, hit) = (e.bank() as usize, u16::from(hits(&x.ch, e.bank(), e.row)));
            self.nreq[b] += 1;
            self.nhit[b] += hit;
            if df && e.prefetch {
                self.npf[b] += 1;
                self.npf_hit[b] += hit;
                self.npf_all += 1;
            }
        }
        for b in 0..self.nreq.len() as u32 {
            self.mark(b);
        }
    }

    /// Recount the hits of bank `b`, whose row changed, from `x`'s queue: its request counts
    /// are unchanged. One pass over the keys without a branch per request (it runs on every
    /// activation).
    #[inline]
    pub fn recount_hits(&mut self, x: &Controller, b: u32, df: bool) {
        let Some(row) = x.ch.open_row(b) else {
            self.clear_hits(b, df);
            return;
        };
        let i = b as usize;
        if self.nreq[i] == 1 {
            // The bank's one request: an activation opens the row of one of the bank's
            // requests of the current mode (every scheduler's), so it hits. (No scan: with
            // requests spread over the banks, most activated banks hold one.)
            self.nhit[i] = 1;
            if df {
                self.npf_hit[i] = self.npf[i];
            }
            self.mark(b);
            return;
        }
        let k = key(b, row);
        self.nhit[i] = x.keys.iter().map(|&y| u16::from(y == k)).sum();
        if df {
            self.npf_hit[i] = x
                .mode_queue()
                .iter()
                .map(|e| u16::from((e.bank() == b) & (e.row == row) & e.prefetch))
                .sum();
        }
        self.mark(b);
    }

    /// Count request `e` of the current mode in (`add`) or out; `hit`: it hits the open row.
    #[inline]
    pub fn tally(&mut self, e: &Entry, add: bool, hit: bool, df: bool) {
        let b = e.bank() as usize;
        let h = u16::from(hit);
        if add {
            self.nreq[b] += 1;
            self.nhit[b] += h;
        } else {
            self.nreq[b] -= 1;
            self.nhit[b] -= h;
        }
        if df && e.prefetch {
            if add {
                self.npf[b] += 1;
                self.npf_hit[b] += h;
                self.npf_all += 1;
            } else {
                self.npf[b] -= 1;
                self.npf_hit[b] -= h;
                self.npf_all -= 1;
            }
        }
        self.mark(e.bank());
    }

    /// Bank `b`'s bits of the masks, from its counts.
    #[inline]
    pub fn mark(&mut self, b: u32) {
        let (n, h) = (self.nreq[b as usize], self.nhit[b as usize]);
        let keep = !(1u64 << b);
        self.req_mask = self.req_mask & keep | u64::from(n != 0) << b;
        self.hit_mask = self.hit_mask & keep | u64::from(h != 0) << b;
        self.miss_mask = self.miss_mask & keep | u64::from(n > h) << b;
    }

    /// Bank `b` closed: it has no hits.
    #[inline]
    fn clear_hits(&mut self, b: u32, df: bool) {
        self.nhit[b as usize] = 0;
        if df {
            self.npf_hit[b as usize] = 0;
        }
        self.mark(b);
    }

    /// The bank masks of the demand requests (with demand-first scheduling): banks with one,
    /// and banks with one hitting the open row.
    #[inline(never)]
    fn demand_masks(&self) -> (u64, u64) {
        let (mut req, mut hit) = (0u64, 0u64);
        for b in members(self.req_mask) {
            let i = b as usize;
            req |= u64::from(self.nreq[i] > self.npf[i]) << b;
            hit |= u64::from(self.nhit[i] > self.npf_hit[i]) << b;
        }
        (req, hit)
    }

    /// `pick(requests, hits, demand)` (bank masks) among the demand requests, when `df` and
    /// prefetches are pending, then, if that picked nothing, among all requests: with
    /// demand-first scheduling a demand request's command comes first, and a prefetch's is
    /// taken only when none of those can issue. (Always inlined: `df` is the policy's
    /// constant.)
    #[inline(always)]
    pub fn demand_first(&self, df: bool, mut pick: impl FnMut(u64, u64, bool) -> Pick) -> Pick {
        // (Without a pending prefetch, every request is a demand request.)
        if df && self.npf_all != 0 {
            let (req, hit) = self.demand_masks();
            if req != 0 {
                if let Some(p) = pick(req, hit, true) {
                    return Some(p);
                }
            }
        }
        pick(self.req_mask, self.hit_mask, false)
    }

    /// Request `e` joined the current mode's queue of `x`.
    #[inline]
    pub fn joined(&mut self, x: &Controller, e: &Entry, df: bool) {
        self.tally(e, true, hits(&x.ch, e.bank(), e.row), df);
    }

    /// A command issued on `x`: the counts follow the request it served out, and the banks'
    /// rows.
    #[inline]
    pub fn issued(&mut self, x: &Controller, ev: &Issued, df: bool) {
        let (cmd, row_before) = (&ev.cmd, ev.row_before);
        if let Some((_, e)) = &ev.served {
            self.tally(e, false, row_before == Some(e.row), df);
        }
        if matches!(cmd.kind, CmdKind::PreA | CmdKind::Ref) {
            self.recount(x, df);
        } else if x.ch.open_row(cmd.bank) != row_before {
            // (A closed bank has no hits: nothing to count.)
            self.recount_hits(x, cmd.bank, df);
        }
    }

    /// Unit tests check the counts against a full recount of `x`'s queue.
    #[cfg(test)]
    pub fn check(&self, x: &Controller, df: bool, what: &str) {
        let mut y = self.clone();
        y.recount(x, df);
        assert_eq!(
            (&y.nreq, &y.nhit, y.req_mask, y.hit_mask, y.miss_mask),
            (
                &self.nreq,
                &self.nhit,
                self.req_mask,
                self.hit_mask,
                self.miss_mask
            ),
            "{what}: bank counts"
        );
        assert_eq!(
            (&y.npf, &y.npf_hit, y.npf_all),
            (&self.npf, &self.npf_hit, self.npf_all),
            "{what}: prefetch counts"
        );
    }
}

/// The round-robin bank pointer of the per-bank schedulers (GPGPU-Sim's `prio`): banks are
/// tried from it, and it moves past a bank after a row command.
#[derive(Debug, Clone, Copy, Default)]
pub(in crate::mc) struct RoundRobin(pub u32);

impl RoundRobin {
    /// After `cmd`, of `banks` banks.
    #[inline]
    pub fn after(&mut self, cmd: &Command, banks: u32) {
        if matches!(cmd.kind, CmdKind::Act | CmdKind::Pre) {
            // (Wrapped by a compare, not `%`: a division on every activate and precharge.)
            let next = cmd.bank + 1;
            self.0 = if next == banks { 0 } else { next };
        }
    }

    /// The first bank of `ready` from the pointer on, else the first of `ready` (not empty).
    #[inline]
    pub fn first(self, ready: u64) -> u32 {
        let from = ready & (u64::MAX << self.0);
        if from != 0 { from } else { ready }.trailing_zeros()
    }
}
