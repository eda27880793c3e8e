//! The prefetch cache of an SM's prefetcher.

/// One way of the prefetch cache.
#[derive(Debug, Clone, Copy, Default)]
struct Way {
    line: u64,
    valid: bool,
    /// A demand load used the line.
    used: bool,
    /// Its last use (LRU).
    stamp: u64,
}

/// The prefetch cache: set-associative, LRU, with a used bit per line (what early evictions
/// and useful prefetches are counted from). Hand-written rather than a `mem::cache::TagArray`,
/// which keeps no such bit.
#[derive(Debug, Clone)]
pub(super) struct PfCache {
    /// Set by set, `assoc` ways each.
    ways: Vec<Way>,
    assoc: usize,
    sets: u64,
    /// log2 of its line size.
    line_bits: u32,
    /// Counts uses: the stamp of the next.
    clock: u64,
}

impl PfCache {
    pub fn new(sets: u32, assoc: u32, line_bytes: u32) -> PfCache {
        PfCache {
            ways: vec![Way::default(); (sets * assoc) as usize],
            assoc: assoc as usize,
            sets: sets.into(),
            line_bits: line_bytes.trailing_zeros(),
            clock: 0,
        }
    }

    /// The ways of `line`'s set.
    fn range(&self, line: u64) -> std::ops::Range<usize> {
        let set = ((line >> self.line_bits) % self.sets) as usize;
        set * self.assoc..(set + 1) * self.assoc
    }

    /// The way holding `line`, if any.
    pub fn find(&self, line: u64) -> Option<usize> {
        self.range(line)
            .find(|&i| self.ways[i].valid && self.ways[i].line == line)
    }

    /// A demand load of `line`: whether it hit, and whether this was the line's first use.
    pub fn demand(&mut self, line: u64) -> Option<bool> {
        let i = self.find(line)?;
        self.clock += 1;
        let w = &mut self.ways[i];
        w.stamp = self.clock;
        Some(!std::mem::replace(&mut w.used, true))
    }

    /// Fill `line` (already used when a demand load waited for it); whether the victim was an
    /// unused prefetched line.
    pub fn fill(&mut self, line: u64, used: bool) -> bool {
        self.clock += 1;
        if let Some(i) = self.find(line) {
            self.ways[i].stamp = self.clock;
            self.ways[i].used |= used;
            return false;
        }
        let r = self.range(line);
        let i = r
            .clone()
            .find(|&i| !self.ways[i].valid)
            .unwrap_or_else(|| r.min_by_key(|&i| self.ways[i].stamp).unwrap_or(0));
        let early = self.ways[i].valid && !self.ways[i].used;
        self.ways[i] = Way {
            line,
            valid: true,
            used,
            stamp: self.clock,
        };
        early
    }

    /// Drop `line` if it holds it.
    pub fn invalidate(&mut self, line: u64) {
        if let Some(i) = self.find(line) {
            self.ways[i].valid = false;
        }
    }
}
