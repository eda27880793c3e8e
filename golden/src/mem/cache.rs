//! The tag array of a GPGPU-Sim-style cache (an L2 slice or an L1), as configured by a cache
//! string ([`CacheString`]): sets by its set-index function, ways, LRU or FIFO replacement,
//! whole lines or 128 B lines of four 32 B sectors, write-back / write-through / write-evict
//! and the write-allocate policies. This is the functional state one request at a time: what a
//! request finds (hit, sector miss, miss) and what it evicts. The MSHRs, queues and timing of a
//! slice are built around it.
//!
//! Rules (GPGPU-Sim 4.x, `gpu-cache.cc`, for requests that fit in one sector or line):
//! * Tags are the whole line address, so hashed set indices cannot alias.
//! * A read that misses allocates a line (its victim: an invalid way, else the least recently
//!   used, or with FIFO the oldest filled) and fetches the sector (the line in a line cache).
//!   A read of a present line whose sector is not valid is a sector miss: the sector is fetched
//!   into the line, which is touched.
//! * Writes. Write-back (`B`): a hit marks the sector dirty. Write-through (`T`, and `L` for
//!   global data): a hit updates the line, which stays clean; the write also goes to the next
//!   level. Write-evict (`E`): a hit invalidates the line; the write goes on. A write miss
//!   allocates per the write-allocate policy: `N` does not (the write goes on); `W` (naive) and
//!   `F` (fetch-on-write) allocate and fetch the sector; `L` (lazy fetch-on-read) allocates
//!   the sector as written without fetching it. A write that allocates under write-back leaves
//!   the sector dirty. Write-evict never allocates for a write. Read-only caches (`R`) take no
//!   writes.
//! * An evicted line with dirty sectors is written back (the dirty sectors).

use spec::cache::{CacheKind, CacheReplacement, CacheString, WriteAllocate, WritePolicy};

// A way's number within its set fits [`Way`]'s 16-bit neighbours for every cache string.
const _: () = assert!(spec::cache::MAX_WAYS - 1 <= u16::MAX as u32);

/// What a request did in the tag array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Hit,
    /// The line is present but not the sector. `fetch`: the sector is fetched into it.
    SectorMiss {
        fetch: bool,
    },
    /// The line is not present. `fetch`: the sector (or line) is fetched from the next level.
    /// `allocated`: a line was allocated for it (then `evicted` is its victim, if valid).
    Miss {
        allocated: bool,
        fetch: bool,
        evicted: Option<Eviction>,
    },
}

/// A valid line that left the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Eviction {
    /// Its first byte's address.
    pub addr: u64,
    /// Its dirty sectors (bit per sector; a line cache uses bit 0): written back when not 0.
    pub dirty: u8,
}

/// The effect of one access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    pub outcome: Outcome,
    /// The write also goes to the next level (write-through, write-evict, no allocation).
    pub write_through: bool,
}

/// The tag array.
#[derive(Debug, Clone)]
pub struct TagArray {
    cfg: CacheString,
    /// Per way (set-major, `set * ways + way`): its line, sectors and place in its set's
    /// replacement order ([`Way`]); per set, that order's ends and its valid ways ([`Set`]).
    /// (One record a way: an access reads and writes several fields of few ways, and arrays
    /// per field cost a host cache miss each in the L2's 32 slices.)
    way: Vec<Way>,
    set: Vec<Set>,
    /// Per way: a byte hashed from its line address ([`fingerprint`]), set when the way is
    /// allocated, eight ways a word (`fp_words` words a set). A lookup compares the set's bytes
    /// eight at a time (one host cache line for 64 ways) and checks the tags of the ways whose
    /// byte matches only. (A scan of the set's 64-bit tags was 7 % of a GPU run's instructions;
    /// a hash map from line to way, which replaced it, cost a host cache miss per lookup and per
    /// allocation in the L2's 32 slices of 1,024 lines.)
    fp: Vec<u64>,
    fp_words: usize,
    /// Per set, its valid ways as bits (`valid_words` words a set): a set with an invalid way
    /// takes its first, found in a word rather than by reading the set's ways (a scan of up to
    /// 64 ways that was most of an allocation's time in the L2's 32 slices).
    valid: Vec<u64>,
    valid_words: usize,
    /// Valid lines in the whole array (the sum of the sets' `live`): invalidating an empty
    /// array, as an SM without blocks does every cycle under `gpu.flush_l1`, reads no set.
    lines: usize,
    line_bits: u32,
    /// A deliberately wrong variant for the tests: a use does not move a way to the head (LRU
    /// becomes FIFO).
    #[cfg(test)]
    lax_lru: bool,
}

/// A way of [`TagArray`]: its line address (`addr >> line bits`, meaningful while it has a
/// valid sector), valid and dirty sectors, and its neighbours (way indices) in its set's
/// replacement order: a way moves to the head when it is allocated, and under LRU when it is
/// used, so its valid ways lie in the order of their last use (fill, under FIFO) and the least
/// recent is the last valid one. Every way is in its list, valid or not. (The victim was a scan
/// of the set's stamps, 64 ways in turing-rtx2060s's L1: 4 % of a streaming run's time, most
/// of it host cache misses.) Neighbours are numbered within the set, in 16 bits
/// ([`spec::cache::MAX_WAYS`]): a way is 16 bytes, not 24 (the L2's 32 slices of 1,024 ways
/// are read at random; 1.8 % of a streaming run's time).
#[derive(Debug, Clone, Copy)]
struct Way {
    tag: u64,
    next: u16,
    prev: u16,
    valid: u8,
    dirty: u8,
}

/// A set of [`TagArray`]: the ends of its replacement order (ways numbered within the set),
/// and its valid ways (below the set's ways, an invalid way is the victim).
#[derive(Debug, Clone, Copy)]
struct Set {
    head: u16,
    tail: u16,
    live: u32,
}

/// Where [`TagArray::lookup`] found an address's line: its set (computed once an access:
/// the set-index function, and a division for a way's set, were 2 % of a GPU run's
/// instructions) and the way holding it, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    set: usize,
    way: Option<usize>,
}

/// Why a cache cannot take a request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CacheError {
    #[error("a read-only cache takes no writes (address {0:#x})")]
    WriteToReadOnly(u64),
}

impl TagArray {
    pub fn new(cfg: CacheString) -> TagArray {
        let (sets, ways) = (cfg.sets as usize, cfg.ways as usize);
        let n = sets * ways;
        let fp_words = ways.div_ceil(8);
        // Each set's list in way order: way k of set s is index s * ways + k.
        TagArray {
            way: (0..n)
                .map(|i| {
                    let k = (i % ways) as u16;
                    Way {
                        tag: 0,
                        next: k.wrapping_add(1),
                        prev: k.wrapping_sub(1),
                        valid: 0,
                        dirty: 0,
                    }
                })
                .collect(),
            set: (0..sets)
                .map(|_| Set {
                    head: 0,
                    tail: (ways - 1) as u16,
                    live: 0,
                })
                .collect(),
            fp: vec![0; sets * fp_words],
            fp_words,
            valid: vec![0; sets * ways.div_ceil(64)],
            valid_words: ways.div_ceil(64),
            lines: 0,
            line_bits: cfg.line_bytes.trailing_zeros(),
            cfg,
            #[cfg(test)]
            lax_lru: false,
        }
    }

    pub fn config(&self) -> &CacheString {
        &self.cfg
    }

    /// The sector bit of `addr` (bit 0 in a line cache).
    fn sector(&self, addr: u64) -> u8 {
        match self.cfg.kind {
            CacheKind::Line => 1,
            CacheKind::Sector => 1 << ((addr >> 5) & 3),
        }
    }

    /// `addr`'s set, and the way holding its line, if any: looked up once for
    /// [`TagArray::holds_at`] and [`TagArray::access_at`] while the array does not change.
    #[inline]
    pub fn lookup(&self, addr: u64) -> Found {
        let set = self.cfg.set_of(addr) as usize;
        Found {
            set,
            way: self.way_in(set, addr >> self.line_bits),
        }
    }

    /// The way of `set` holding `line`, if any.
    #[inline]
    fn way_in(&self, set: usize, line: u64) -> Option<usize> {
        const ONES: u64 = 0x0101_0101_0101_0101;
        let (ways, words) = (self.cfg.ways as usize, self.fp_words);
        let pattern = u64::from(fingerprint(line)) * ONES;
        for (c, &word) in self.fp[set * words..(set + 1) * words].iter().enumerate() {
            // The bytes equal to the pattern's are the zero bytes of `x`: each sets its top
            // bit in `m` (SWAR; a borrow may flag a byte above a zero one too, and the tag
            // check rejects it).
            let x = word ^ pattern;
            let mut m = x.wrapping_sub(ONES) & !x & (ONES << 7);
            while m != 0 {
                let k = c * 8 + (m.trailing_zeros() / 8) as usize;
                let i = set * ways + k;
                if k < ways && self.way[i].tag == line && self.way[i].valid != 0 {
                    return Some(i);
                }
                m &= m - 1;
            }
        }
        None
    }

    /// Whether `addr`'s sector is valid (a probe: nothing changes).
    pub fn holds(&self, addr: u64) -> bool {
        self.holds_at(self.lookup(addr), addr)
    }

    /// [`TagArray::holds`] of `addr`, whose line's way is `found`.
    #[inline]
    pub fn holds_at(&self, found: Found, addr: u64) -> bool {
        found
            .way
            .is_some_and(|i| self.way[i].valid & self.sector(addr) != 0)
    }

    /// The way a line would take in `set`: its first invalid way, else the replacement victim
    /// (the least recently used, or with FIFO the oldest filled).
    fn victim(&self, set: usize) -> usize {
        let ways = self.cfg.ways as usize;
        if (self.set[set].live as usize) < ways {
            let words = &self.valid[set * self.valid_words..(set + 1) * self.valid_words];
            let k = words
                .iter()
                .enumerate()
                .find(|(_, &w)| w != u64::MAX)
                .map_or(0, |(c, &w)| c * 64 + w.trailing_ones() as usize);
            // Unit tests check it against a scan of the ways.
            #[cfg(test)]
            assert_eq!(
                Some(k),
                self.way[set * ways..(set + 1) * ways]
                    .iter()
                    .position(|w| w.valid == 0),
                "first invalid way of set {set}"
            );
            return set * ways + k;
        }
        set * ways + self.set[set].tail as usize
    }

    /// Move way `i` of `set` to the head of its list.
    fn make_head(&mut self, set: usize, i: usize) {
        let base = set * self.cfg.ways as usize;
        let k = (i - base) as u16;
        let h = self.set[set].head;
        if h == k {
            return;
        }
        let (p, n) = (self.way[i].prev, self.way[i].next);
        self.way[base + usize::from(p)].next = n;
        if self.set[set].tail == k {
            self.set[set].tail = p;
        } else {
            self.way[base + usize::from(n)].prev = p;
        }
        self.way[i].next = h;
        self.way[base + usize::from(h)].prev = k;
        self.set[set].head = k;
    }

    /// Allocate a line for `addr` in its set `set` ([`TagArray::victim`]) with sectors `valid`
    /// (not 0) and `dirty`.
    fn allocate(
        &mut self,
        addr: u64,
        set: usize,
        valid: u8,
        dirty: u8,
    ) -> (usize, Option<Eviction>) {
        let i = self.victim(set);
        let evicted = (self.way[i].valid != 0).then(|| Eviction {
            addr: self.way[i].tag << self.line_bits,
            dirty: self.way[i].dirty,
        });
        if evicted.is_none() {
            self.set[set].live += 1;
            self.lines += 1;
            self.mark(set, i, true);
        }
        self.way[i].tag = addr >> self.line_bits;
        let k = i - set * self.cfg.ways as usize;
        let (word, shift) = (set * self.fp_words + k / 8, k % 8 * 8);
        self.fp[word] =
            self.fp[word] & !(0xff << shift) | u64::from(fingerprint(self.way[i].tag)) << shift;
        self.way[i].valid = valid;
        self.way[i].dirty = dirty;
        self.make_head(set, i);
        (i, evicted)
    }

    /// Install `addr`'s whole line, every sector valid and clean (a prefetched line filling
    /// the cache): a present line gets its missing sectors and is touched; otherwise a line is
    /// allocated as a read miss allocates one, and its victim (if valid) is returned.
    pub fn install(&mut self, addr: u64) -> Option<Eviction> {
        let all = match self.cfg.kind {
            CacheKind::Line => 1,
            CacheKind::Sector => 0xf,
        };
        let f = self.lookup(addr);
        if let Some(i) = f.way {
            self.way[i].valid = all;
            self.touch(f.set, i);
            return None;
        }
        self.allocate(addr, f.set, all, 0).1
    }

    /// A host-to-device copy wrote `addr`'s sector (GPGPU-Sim's `force_tag_access` under
    /// `-gpgpu_perf_sim_memcpy`, decision MEM-24): the sector (in a line cache, the line)
    /// becomes valid and its line the most recently used; a missing line is allocated as a read
    /// miss allocates one, clean. The victim, if valid, is returned: the copy drops it, dirty
    /// sectors included, as GPGPU-Sim's tag fill does.
    pub fn fill_copied(&mut self, addr: u64) -> Option<Eviction> {
        let s = self.sector(addr);
        let f = self.lookup(addr);
        if let Some(i) = f.way {
            self.way[i].valid |= s;
            self.touch(f.set, i);
            return None;
        }
        self.allocate(addr, f.set, s, 0).1
    }

    /// Whether installing `addr`'s line would evict a line with dirty sectors (a probe).
    pub fn install_evicts_dirty(&self, addr: u64) -> bool {
        let f = self.lookup(addr);
        f.way.is_none() && {
            let i = self.victim(f.set);
            self.way[i].valid != 0 && self.way[i].dirty != 0
        }
    }

    /// Invalidate every line, dirty ones included, without writing them back (GPGPU-Sim's
    /// `tag_array::invalidate`); `each` sees the address of every line that was valid, in way
    /// order. Visits only the sets with a valid line.
    pub fn invalidate_all(&mut self, mut each: impl FnMut(u64)) {
        debug_assert_eq!(
            self.lines,
            self.set.iter().map(|s| s.live as usize).sum::<usize>()
        );
        if self.lines == 0 {
            return;
        }
        self.lines = 0;
        let ways = self.cfg.ways as usize;
        for set in 0..self.set.len() {
            if self.set[set].live == 0 {
                continue;
            }
            for i in set * ways..(set + 1) * ways {
                if self.way[i].valid != 0 {
                    each(self.way[i].tag << self.line_bits);
                }
                self.way[i].valid = 0;
                self.way[i].dirty = 0;
            }
            self.set[set].live = 0;
            self.valid[set * self.valid_words..(set + 1) * self.valid_words].fill(0);
        }
    }

    /// Way `i` of `set` was used: under LRU it becomes the most recent.
    fn touch(&mut self, set: usize, i: usize) {
        #[cfg(test)]
        if self.lax_lru {
            return;
        }
        if self.cfg.replacement == CacheReplacement::Lru {
            self.make_head(set, i);
        }
    }

    /// Way `i` of `set` leaves (write-evict): invalid and clean.
    fn drop_way(&mut self, set: usize, i: usize) {
        self.way[i].valid = 0;
        self.way[i].dirty = 0;
        self.set[set].live -= 1;
        self.lines -= 1;
        self.mark(set, i, false);
    }

    /// Record whether way `i` of `set` is valid in the set's bits.
    fn mark(&mut self, set: usize, i: usize, valid: bool) {
        let k = i - set * self.cfg.ways as usize;
        let word = &mut self.valid[set * self.valid_words + k / 64];
        let bit = 1u64 << (k % 64);
        if valid {
            *word |= bit;
        } else {
            *word &= !bit;
        }
    }

    /// One request (that fits in one sector, or one line of a line cache).
    pub fn access(&mut self, addr: u64, write: bool) -> Result<Access, CacheError> {
        self.access_at(addr, write, self.lookup(addr))
    }

    /// [`TagArray::access`] of `addr`, whose line's way is `found` ([`TagArray::lookup`]).
    pub fn access_at(
        &mut self,
        addr: u64,
        write: bool,
        found: Found,
    ) -> Result<Access, CacheError> {
        let set = found.set;
        let s = self.sector(addr);
        let policy = self.cfg.write;
        if write && policy == WritePolicy::ReadOnly {
            return Err(CacheError::WriteToReadOnly(addr));
        }
        let write_back = policy == WritePolicy::WriteBack;
        if !write {
            return Ok(Access {
                outcome: match found.way {
                    Some(i) if self.way[i].valid & s != 0 => {
                        self.touch(set, i);
                        Outcome::Hit
                    }
                    Some(i) => {
                        self.way[i].valid |= s;
                        self.touch(set, i);
                        Outcome::SectorMiss { fetch: true }
                    }
                    None => {
                        let (_, evicted) = self.allocate(addr, set, s, 0);
                        Outcome::Miss {
                            allocated: true,
                            fetch: true,
                            evicted,
                        }
                    }
                },
                write_through: false,
            });
        }
        // A write.
        if let Some(i) = found.way {
            let hit = self.way[i].valid & s != 0;
            let missed = Outcome::SectorMiss { fetch: false };
            if policy == WritePolicy::WriteEvict {
                self.drop_way(set, i);
                return Ok(Access {
                    outcome: if hit { Outcome::Hit } else { missed },
                    write_through: true,
                });
            }
            if !hit && self.cfg.write_allocate == WriteAllocate::No {
                // A sector miss that does not allocate: the write goes on.
                return Ok(Access {
                    outcome: missed,
                    write_through: true,
                });
            }
            let fetch = !hit
                && matches!(
                    self.cfg.write_allocate,
                    WriteAllocate::Naive | WriteAllocate::FetchOnWrite
                );
            self.way[i].valid |= s;
            if write_back {
                self.way[i].dirty |= s;
            }
            self.touch(set, i);
            return Ok(Access {
                outcome: if hit {
                    Outcome::Hit
                } else {
                    Outcome::SectorMiss { fetch }
                },
                write_through: !write_back,
            });
        }
        let (allocate, fetch) = match self.cfg.write_allocate {
            WriteAllocate::No => (false, false),
            WriteAllocate::Naive | WriteAllocate::FetchOnWrite => (true, true),
            WriteAllocate::LazyFetchOnRead => (true, false),
        };
        if !allocate || policy == WritePolicy::WriteEvict {
            return Ok(Access {
                outcome: Outcome::Miss {
                    allocated: false,
                    fetch: false,
                    evicted: None,
                },
                write_through: true,
            });
        }
        let (_, evicted) = self.allocate(addr, set, s, if write_back { s } else { 0 });
        Ok(Access {
            outcome: Outcome::Miss {
                allocated: true,
                fetch,
                evicted,
            },
            write_through: !write_back,
        })
    }
}

/// The byte a lookup compares first ([`TagArray::lookup`]): the top byte of the line address
/// times the golden ratio in 64 bits (Fibonacci hashing), so that the lines of one set, which
/// share their low bits, still differ in it.
#[inline]
fn fingerprint(line: u64) -> u8 {
    (line.wrapping_mul(crate::rng::GOLDEN) >> 56) as u8
}

#[cfg(test)]
#[path = "cache_tests.rs"]
mod cache_tests;
