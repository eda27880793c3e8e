//! Miss status holding registers of a cache (GPGPU-Sim's `mshr_table`): one entry per line (per
//! 32 B sector in a sector cache: GPGPU-Sim's `mshr_addr` keeps the cache's atom, whatever the
//! MSHR kind; a sector-associative kind only splits a line cache's fetch into sector requests
//! to the next level) with a fill outstanding, each holding the
//! requests waiting for it, up to the merge limit. A request to a pending line or sector merges
//! into its entry; beyond the limit, or with every entry taken, it is refused, and the caller
//! counts a reservation failure by that cause and retries it later. The fill returns every
//! merged request, oldest first.

use super::block_index::BlockIndex;
use spec::cache::CacheString;

/// Why the table refused a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Refusal {
    /// No free entry for a new line or sector.
    EntriesFull,
    /// Its line's (sector's) entry already holds the merge limit.
    MergeFull,
}

/// An address's entry as [`MshrTable::lookup`] found it (valid until the table changes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lookup(Option<usize>);

impl Lookup {
    /// Whether the address's line (sector) has a fill outstanding.
    pub fn found(self) -> bool {
        self.0.is_some()
    }
}

/// What [`MshrTable::add`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Added {
    /// A new entry: the caller sends the fetch.
    New,
    /// Merged into a pending entry: no new fetch.
    Merged,
}

/// The table, holding requests of type `R`. Entries are unordered (nothing depends on their
/// order) and found by block address in an index ([`BlockIndex`]). (A deque of (address, list)
/// pairs scanned two or three times an access, and a list allocated per miss, were a tenth of
/// a GPU run's instructions: callgrind, vectoradd on turing-rtx2060s, whose L1 has 256
/// entries.) An entry keeps its slot until its fill. A slot's first request sits beside its
/// count, the later ones in its own stretch of one buffer, `merge - 1` long (a list per slot
/// cost a fill a host cache miss more, on the list's header, in the L2's 32 slices).
#[derive(Debug, Clone)]
pub struct MshrTable<R> {
    entries: usize,
    merge: usize,
    /// Bytes one entry covers: the cache's atom, a 32 B sector or the line.
    block: u64,
    /// Block address -> its entry's slot (the entries in use).
    index: BlockIndex,
    /// Slot `i`'s count of requests and its first (oldest) request (`count` 0 when it is
    /// free), side by side: a fill without merges reads one record, and the records of the
    /// slots in use stay few host cache lines (a stretch of `merge` requests a slot, read at
    /// the fill, was a host cache miss per fill in every L1 and L2 slice).
    heads: Vec<Head<R>>,
    /// Slot `i`'s later requests, oldest first: `slab[i * (merge - 1)..][..count - 1]`.
    slab: Vec<R>,
    /// The free slots.
    free: Vec<usize>,
}

/// A slot's count of requests and its first request.
#[derive(Debug, Clone)]
struct Head<R> {
    count: u32,
    first: R,
}

impl<R: Copy> MshrTable<R> {
    /// The table of a cache string.
    pub fn new(cfg: &CacheString) -> MshrTable<R> {
        MshrTable {
            entries: cfg.mshr_entries as usize,
            merge: cfg.mshr_merge as usize,
            block: u64::from(cfg.atom_bytes()),
            index: BlockIndex::new(cfg.mshr_entries as usize, u64::from(cfg.atom_bytes())),
            heads: Vec::new(),
            slab: Vec::new(),
            free: Vec::new(),
        }
    }

    /// The block address of `addr`'s entry: its line's or sector's (a power of two: the
    /// cache string checks line sizes).
    #[inline]
    fn key(&self, addr: u64) -> u64 {
        addr & !(self.block - 1)
    }

    /// The entry of `addr`'s line (sector), if it has one.
    #[inline]
    fn find(&self, addr: u64) -> Option<usize> {
        self.index.get(self.key(addr)).map(|i| i as usize)
    }

    /// `addr`'s entry looked up once, for [`MshrTable::check_at`] and [`MshrTable::add_at`]
    /// while the table does not change (a cache's access asked the index up to three times).
    #[inline]
    pub fn lookup(&self, addr: u64) -> Lookup {
        Lookup(self.find(addr))
    }

    /// Whether a request whose lookup is `l` would be taken now, and if not, why.
    #[inline]
    pub fn check_at(&self, l: Lookup) -> Result<Added, Refusal> {
        self.outcome(l.0)
    }

    /// What a request to `addr` would do in entry `i` (its line's, if any).
    #[inline]
    fn outcome(&self, i: Option<usize>) -> Result<Added, Refusal> {
        match i {
            Some(i) if self.heads[i].count as usize >= self.merge => Err(Refusal::MergeFull),
            Some(_) => Ok(Added::Merged),
            None if self.index.len() >= self.entries => Err(Refusal::EntriesFull),
            None => Ok(Added::New),
        }
    }

    /// Take a request to `addr`, or refuse it (it is handed back).
    pub fn add(&mut self, addr: u64, r: R) -> Result<Added, (Refusal, R)> {
        self.add_at(self.lookup(addr), addr, r)
    }

    /// [`MshrTable::add`] of a request to `addr` whose lookup is `l` (made since the table last
    /// changed).
    pub fn add_at(&mut self, l: Lookup, addr: u64, r: R) -> Result<Added, (Refusal, R)> {
        let i = l.0;
        match (self.outcome(i), i) {
            (Err(why), _) => Err((why, r)),
            (Ok(_), Some(i)) => {
                self.push(i, r);
                Ok(Added::Merged)
            }
            (Ok(_), None) => {
                let i = self.free.pop().unwrap_or_else(|| {
                    // A new slot, its stretch filled with copies of its first request.
                    self.slab.extend(std::iter::repeat_n(r, self.merge - 1));
                    self.heads.push(Head { count: 0, first: r });
                    self.heads.len() - 1
                });
                self.push(i, r);
                self.index.insert(self.key(addr), i as u32);
                Ok(Added::New)
            }
        }
    }

    /// The fill of `addr`'s line (sector) arrived: `each` takes its waiting requests, oldest
    /// first (none if it had no entry).
    pub fn fill_with(&mut self, addr: u64, mut each: impl FnMut(R)) {
        if let Some(i) = self.index.remove(self.key(addr)).map(|i| i as usize) {
            let h = &mut self.heads[i];
            let n = std::mem::take(&mut h.count) as usize;
            each(h.first);
            let more = self.merge - 1;
            self.slab[i * more..][..n - 1]
                .iter()
                .copied()
                .for_each(&mut each);
            self.free.push(i);
        }
    }

    /// `addr`'s fill is coming: its entry's record (count and first request) is asked for
    /// ahead of [`MshrTable::fill_with`] ([`crate::hint::prefetch`]; nothing changes).
    #[inline]
    pub fn warm(&self, addr: u64) {
        if let Some(i) = self.find(addr) {
            crate::hint::prefetch(&self.heads[i]);
        }
    }

    /// Request `r` joins slot `i` (which has room).
    #[inline]
    fn push(&mut self, i: usize, r: R) {
        let h = &mut self.heads[i];
        match h.count {
            0 => h.first = r,
            n => self.slab[i * (self.merge - 1) + n as usize - 1] = r,
        }
        h.count += 1;
    }

    /// Entries in use.
    pub fn used(&self) -> usize {
        self.index.len()
    }

    /// Requests waiting in all entries.
    pub fn waiting(&self) -> usize {
        self.heads.iter().map(|h| h.count as usize).sum()
    }

    /// (entries in use, entries), and (most requests waiting in one entry, merges allowed per
    /// entry): for bounds checks.
    pub fn fill_levels(&self) -> [(usize, usize); 2] {
        let most = self
            .heads
            .iter()
            .map(|h| h.count as usize)
            .max()
            .unwrap_or(0);
        [(self.used(), self.entries), (most, self.merge)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn table<R: Copy>(s: &str) -> MshrTable<R> {
        MshrTable::new(&CacheString::parse(s).unwrap().unwrap())
    }

    impl<R: Copy> MshrTable<R> {
        /// [`MshrTable::fill_with`], collected.
        fn fill(&mut self, addr: u64) -> Vec<R> {
            let mut v = Vec::new();
            self.fill_with(addr, |r| v.push(r));
            v
        }
    }

    #[test]
    fn merges_up_to_the_limit_then_refuses_by_cause() {
        // 2 entries of 2 requests, per 32 B sector (a sector cache).
        let mut t = table("S:64:128:16,L:B:m:L:P,A:2:2,32:0,32");
        assert_eq!(t.add(0x1000, 1), Ok(Added::New));
        assert_eq!(t.add(0x1010, 2), Ok(Added::Merged), "same sector");
        assert_eq!(t.add(0x1000, 3), Err((Refusal::MergeFull, 3)));
        assert_eq!(t.add(0x2000, 4), Ok(Added::New));
        assert_eq!(t.add(0x3000, 5), Err((Refusal::EntriesFull, 5)));
        assert_eq!(t.fill(0x1000), vec![1, 2]);
        assert_eq!(t.add(0x3000, 5), Ok(Added::New));
        assert_eq!(t.fill(0x9000), Vec::<u32>::new());
    }

    #[test]
    fn a_sector_cache_keeps_sectors_apart() {
        // The reference L2: a sector cache with an associative MSHR.
        let mut t = table("S:64:128:16,L:B:m:L:P,A:192:4,32:0,32");
        assert_eq!(t.add(0x1000, 1), Ok(Added::New));
        assert_eq!(
            t.add(0x1020, 2),
            Ok(Added::New),
            "another sector of the line"
        );
        assert_eq!(t.add(0x101f, 3), Ok(Added::Merged));
        assert_eq!(t.fill(0x1000), vec![1, 3]);
        assert!(t.lookup(0x1020).found() && !t.lookup(0x1000).found());
        // A line cache keys by line, even with a sector-associative MSHR (GTX480 4.x's L1).
        let mut t = table("N:32:128:4,L:L:m:N:H,S:64:8,8");
        assert_eq!(t.add(0x1000, 1), Ok(Added::New));
        assert_eq!(t.add(0x1060, 2), Ok(Added::Merged));
        assert_eq!(t.fill(0x1040), vec![1, 2]);
    }

    proptest! {
        /// Random adds and fills: the table never holds more entries or merges than allowed,
        /// refuses only when full, and every request taken comes back exactly once.
        #[test]
        fn every_taken_request_comes_back_once(
            entries in 1u32..6, merge in 1u32..5,
            ops in prop::collection::vec((any::<bool>(), 0u64..8), 1..300),
        ) {
            let mut t: MshrTable<usize> =
                table(&format!("N:16:128:4,L:B:m:N:L,A:{entries}:{merge},4"));
            let (mut taken, mut back) = (Vec::new(), Vec::new());
            for (k, (add, line)) in ops.into_iter().enumerate() {
                let addr = line * 128;
                if add {
                    let full_before = t.check_at(t.lookup(addr));
                    match t.add(addr, k) {
                        Ok(_) => taken.push(k),
                        Err((why, r)) => {
                            prop_assert_eq!(r, k);
                            prop_assert_eq!(Err(why), full_before);
                        }
                    }
                } else {
                    back.extend(t.fill(addr));
                }
                prop_assert!(t.used() <= entries as usize);
                prop_assert!(t.heads.iter().all(|h| h.count <= merge));
                // The index names every slot in use, once; the other slots are free and empty.
                let mut named: Vec<usize> = t.index.values().map(|i| i as usize).collect();
                named.sort_unstable();
                named.dedup();
                prop_assert_eq!(named.len(), t.index.len());
                for (i, n) in t.heads.iter().map(|h| h.count).enumerate() {
                    prop_assert_eq!(named.binary_search(&i).is_ok(), n > 0);
                    prop_assert_eq!(t.free.contains(&i), n == 0);
                }
            }
            for line in 0..8 {
                back.extend(t.fill(line * 128));
            }
            back.sort_unstable();
            prop_assert_eq!(back, taken);
        }
    }
}
