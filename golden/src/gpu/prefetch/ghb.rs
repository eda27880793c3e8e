//! GHB (`ghb`): seed 001's "AC/DC GHB prefetcher [14, 21]" of Table V (1024-entry global
//! history buffer, 12-bit CZone, 128-entry index table), trained per warp as seed 001's
//! enhanced prefetchers are. Decision HWP-14.
//!
//! The global history buffer is a FIFO of the lines trained, each linked to the previous line
//! of its warp's concentration zone (CZone: the address above its low `prefetch.ghb_czone_bits`
//! bits). The index table maps a (warp, CZone) to its newest entry; it holds
//! `prefetch.ghb_index_entries` of them, least recently trained replaced. A line is trained
//! when it differs from its zone's newest one. Then the zone's history, newest first (at most
//! [`HISTORY`] lines, entries the FIFO has overwritten ending it), gives the deltas between
//! successive lines. Delta correlation looks for the latest two deltas earlier in that list.
//! At the most recent such match, the deltas that followed it are replayed from the current
//! line. The lines they reach, from the `prefetch.distance`-th on, `prefetch.degree` of them,
//! are prefetched. A launch forgets everything.

use super::{insert_replacing_lru, Predicted, PrefetchStats, Prefetcher, Tick};
use spec::Spec;

/// The longest history a delta correlation reads.
pub const HISTORY: usize = 16;

/// One trained line of the buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Slot {
    line: u64,
    /// Sequence number of the previous line of the same warp and zone.
    prev: Option<u64>,
}

/// One index-table entry: a warp's zone and its newest line's sequence number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Index {
    warp: u32,
    zone: u64,
    newest: u64,
    /// When it was last trained (for LRU replacement).
    used: u64,
}

pub struct Ghb {
    /// The FIFO: sequence number `s` lives at `s % len` while `s + len > next`.
    buffer: Vec<Slot>,
    /// The next sequence number (lines trained so far).
    next: u64,
    index: Vec<Index>,
    index_capacity: usize,
    czone_bits: u32,
    distance: usize,
    degree: usize,
    line_bytes: u64,
    /// Training accesses so far: the index table's LRU clock.
    clock: u64,
    out: Vec<u64>,
}

impl Ghb {
    /// The slot of sequence number `s`, if the FIFO still holds it.
    fn slot(&self, s: u64) -> Option<Slot> {
        let len = self.buffer.len() as u64;
        (s < self.next && s + len >= self.next).then(|| self.buffer[(s % len) as usize])
    }

    /// Train with warp `warp`'s access to byte address `addr`; the addresses to prefetch go to
    /// `out`.
    fn train(&mut self, warp: u32, addr: u64) {
        self.clock += 1;
        self.out.clear();
        let line = addr / self.line_bytes;
        let zone = addr >> self.czone_bits;
        let at = self
            .index
            .iter()
            .position(|e| e.warp == warp && e.zone == zone);
        let prev = at.and_then(|i| {
            let s = self.index[i].newest;
            self.slot(s).map(|slot| (s, slot))
        });
        if let Some(i) = at {
            self.index[i].used = self.clock;
        }
        if prev.is_some_and(|(_, slot)| slot.line == line) {
            return;
        }
        let seq = self.next;
        let len = self.buffer.len() as u64;
        self.buffer[(seq % len) as usize] = Slot {
            line,
            prev: prev.map(|(s, _)| s),
        };
        self.next += 1;
        let entry = Index {
            warp,
            zone,
            newest: seq,
            used: self.clock,
        };
        match at {
            Some(i) => self.index[i] = entry,
            None => insert_replacing_lru(&mut self.index, self.index_capacity, entry, |e| e.used),
        }
        self.correlate(seq);
    }

    /// Delta correlation on the history ending at sequence number `newest`.
    fn correlate(&mut self, newest: u64) {
        let mut lines = Vec::with_capacity(HISTORY);
        let mut s = Some(newest);
        while let Some(slot) = s.and_then(|s| self.slot(s)) {
            lines.push(slot.line);
            if lines.len() == HISTORY {
                break;
            }
            s = slot.prev;
        }
        // deltas[i] = lines[i] - lines[i + 1]: deltas[0] is the latest step.
        let deltas: Vec<i128> = lines
            .windows(2)
            .map(|w| i128::from(w[0]) - i128::from(w[1]))
            .collect();
        if deltas.len() < 3 {
            return;
        }
        let (a, b) = (deltas[0], deltas[1]);
        let Some(j) = (1..deltas.len() - 1).find(|&j| deltas[j] == a && deltas[j + 1] == b) else {
            return;
        };
        // The steps that followed the match, oldest first: deltas[j - 1], ..., deltas[0].
        let mut at = i128::from(lines[0]);
        let mut taken = 0;
        for (k, d) in deltas[..j].iter().rev().cycle().enumerate() {
            at += d;
            if k + 1 < self.distance {
                continue;
            }
            if taken == self.degree {
                break;
            }
            taken += 1;
            let addr = u64::try_from(at)
                .ok()
                .and_then(|l| l.checked_mul(self.line_bytes));
            if let Some(addr) = addr {
                self.out.push(addr);
            }
        }
    }
}

impl Prefetcher for Ghb {
    const NAME: &'static str = "ghb";

    fn new(spec: &Spec) -> Ghb {
        let p = &spec.prefetch;
        let slots = usize::try_from(p.ghb_entries).unwrap_or(usize::MAX);
        Ghb {
            buffer: vec![
                Slot {
                    line: 0,
                    prev: None
                };
                slots
            ],
            next: 0,
            index: Vec::new(),
            index_capacity: usize::try_from(p.ghb_index_entries).unwrap_or(usize::MAX),
            czone_bits: p.ghb_czone_bits,
            distance: usize::try_from(p.distance).unwrap_or(usize::MAX),
            degree: usize::try_from(p.degree).unwrap_or(usize::MAX),
            line_bytes: spec.gpu.line_bytes.into(),
            clock: 0,
            out: Vec::new(),
        }
    }

    fn cycle(&mut self, t: &Tick, stats: &mut PrefetchStats) -> Result<Predicted<'_>, String> {
        if t.launch {
            self.index.clear();
            self.next = 0;
        }
        let Some(a) = t.train else {
            return Ok(Predicted {
                took: false,
                addrs: &[],
            });
        };
        self.train(a.warp, a.addr);
        if !self.out.is_empty() {
            stats.predictions += 1;
        }
        Ok(Predicted {
            took: true,
            addrs: &self.out,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::prefetch::examples;

    fn ghb(entries: u32, index: u32, distance: u32, degree: u32) -> Ghb {
        examples::on_tiny(&[
            format!("prefetch.ghb_entries={entries}"),
            format!("prefetch.ghb_index_entries={index}"),
            "prefetch.ghb_czone_bits=16".into(),
            format!("prefetch.distance={distance}"),
            format!("prefetch.degree={degree}"),
        ])
    }

    /// The lines `g` prefetches for warp `warp`'s access to line `line`.
    fn access(g: &mut Ghb, warp: u32, line: u64) -> Vec<u64> {
        let line_bytes = g.line_bytes;
        examples::access(g, line_bytes, warp, line)
    }

    /// A miss stream of alternating deltas +1, +2 (lines 0, 1, 3, 4, 6, 7): once the latest
    /// two deltas (+1 after +2) have occurred before, the deltas that followed them then (+2,
    /// +1) are replayed from the current line.
    #[test]
    fn delta_correlation_replays_what_followed_the_last_two_deltas() {
        let mut g = ghb(1024, 128, 1, 2);
        for line in [0, 1, 3, 4] {
            assert_eq!(access(&mut g, 0, line), Vec::<u64>::new(), "{line}");
        }
        // History 6, 4, 3, 1, 0: deltas 2, 1, 2, 1; (2, 1) again at the third delta.
        assert_eq!(access(&mut g, 0, 6), vec![7, 9]);
        assert_eq!(access(&mut g, 0, 7), vec![9, 10]);
        // Degree 4 runs past the replayed deltas by repeating them.
        let mut g = ghb(1024, 128, 1, 4);
        for line in [0, 1, 3, 4, 6] {
            access(&mut g, 0, line);
        }
        assert_eq!(access(&mut g, 0, 7), vec![9, 10, 12, 13]);
        // Distance 2 skips the first.
        let mut g = ghb(1024, 128, 2, 1);
        for line in [0, 1, 3, 4, 6] {
            access(&mut g, 0, line);
        }
        assert_eq!(access(&mut g, 0, 7), vec![10]);
    }

    #[test]
    fn a_constant_stride_and_an_irregular_stream() {
        let mut g = ghb(1024, 128, 1, 1);
        assert_eq!(access(&mut g, 0, 10), Vec::<u64>::new());
        assert_eq!(access(&mut g, 0, 13), Vec::<u64>::new());
        assert_eq!(access(&mut g, 0, 16), Vec::<u64>::new());
        assert_eq!(access(&mut g, 0, 19), vec![22]);
        // Deltas that never repeat in pairs predict nothing.
        let mut g = ghb(1024, 128, 1, 1);
        for line in [100, 101, 103, 106, 110, 115, 121] {
            assert_eq!(access(&mut g, 0, line), Vec::<u64>::new(), "{line}");
        }
        // The same line again is not a new miss: no entry, no prediction.
        let mut g = ghb(1024, 128, 1, 1);
        for line in [10, 13, 16] {
            access(&mut g, 0, line);
        }
        assert_eq!(access(&mut g, 0, 16), Vec::<u64>::new());
        assert_eq!(g.next, 3);
    }

    /// Seed 001's point: each warp's stream is its own history, however interleaved.
    #[test]
    fn warps_and_zones_have_their_own_histories() {
        let mut g = ghb(1024, 128, 1, 1);
        let mut last = Vec::new();
        for i in 0..4 {
            last.push(access(&mut g, 1, 2 * i));
            last.push(access(&mut g, 2, 1000 - 5 * i));
        }
        assert_eq!(last[6], vec![8]);
        assert_eq!(last[7], vec![980]);
        // Another zone (2^16 B = 512 lines of 128 B) is another history.
        let mut g = ghb(1024, 128, 1, 1);
        for line in [0, 2, 4] {
            access(&mut g, 0, line);
        }
        assert_eq!(access(&mut g, 0, 600), Vec::<u64>::new());
        assert_eq!(access(&mut g, 0, 6), vec![8]);
    }

    #[test]
    fn the_fifo_and_the_index_table_forget_the_oldest() {
        // A 4-entry buffer: after the other warp's two lines, warp 0's history holds its two
        // newest lines only, too few to correlate.
        let mut g = ghb(4, 128, 1, 1);
        for line in [0, 3, 6] {
            access(&mut g, 0, line);
        }
        access(&mut g, 1, 500);
        access(&mut g, 1, 501);
        assert_eq!(access(&mut g, 0, 9), Vec::<u64>::new());
        // A 1-entry index table: the other warp's zone replaces warp 0's.
        let mut g = ghb(1024, 1, 1, 1);
        for line in [0, 3, 6] {
            access(&mut g, 0, line);
        }
        access(&mut g, 1, 500);
        assert_eq!(access(&mut g, 0, 9), Vec::<u64>::new());
        let mut g = ghb(1024, 2, 1, 1);
        for line in [0, 3, 6] {
            access(&mut g, 0, line);
        }
        access(&mut g, 1, 500);
        assert_eq!(access(&mut g, 0, 9), vec![12]);
    }

    #[test]
    fn a_launch_forgets_every_history() {
        let mut g = ghb(1024, 128, 1, 1);
        for line in [0, 3, 6] {
            access(&mut g, 0, line);
        }
        examples::launch(&mut g);
        assert_eq!(access(&mut g, 0, 9), Vec::<u64>::new());
    }
}
