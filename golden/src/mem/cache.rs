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

use rustc_hash::FxHashMap;
use spec::cache::{CacheKind, CacheReplacement, CacheString, WriteAllocate, WritePolicy};

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

#[derive(Debug, Clone, Copy, Default)]
struct Way {
    /// Line address (`addr >> line bits`); meaningful when `valid != 0`.
    tag: u64,
    /// Valid and dirty sectors.
    valid: u8,
    dirty: u8,
    /// Last use (LRU) or fill (FIFO), in accesses.
    stamp: u64,
}

/// The tag array.
#[derive(Debug, Clone)]
pub struct TagArray {
    cfg: CacheString,
    ways: Vec<Way>,
    /// Line address -> the way holding it (exactly the valid ways: a way is valid from its
    /// allocation, whose caller sets its sectors, to its eviction or invalidation). A line has one
    /// set, so line addresses are unique in the array: a lookup replaces the scan of its set's
    /// ways (64 in turing-rtx2060s's L1; the scans were 7 % of a GPU run's instructions,
    /// callgrind, vectoradd). rustc-hash's hash: the addresses are not adversarial.
    index: FxHashMap<u64, usize>,
    line_bits: u32,
    clock: u64,
}

/// Why a cache cannot take a request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CacheError {
    #[error("a read-only cache takes no writes (address {0:#x})")]
    WriteToReadOnly(u64),
}

impl TagArray {
    pub fn new(cfg: CacheString) -> TagArray {
        TagArray {
            ways: vec![Way::default(); (cfg.sets * cfg.ways) as usize],
            index: FxHashMap::default(),
            line_bits: cfg.line_bytes.trailing_zeros(),
            cfg,
            clock: 0,
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

    fn set_range(&self, addr: u64) -> std::ops::Range<usize> {
        let set = self.cfg.set_of(addr) as usize;
        let w = self.cfg.ways as usize;
        set * w..(set + 1) * w
    }

    /// The way holding `addr`'s line, if any.
    fn find(&self, addr: u64) -> Option<usize> {
        let i = *self.index.get(&(addr >> self.line_bits))?;
        (self.ways[i].valid != 0).then_some(i)
    }

    /// Whether `addr`'s sector is valid (a probe: nothing changes).
    pub fn holds(&self, addr: u64) -> bool {
        self.find(addr)
            .is_some_and(|i| self.ways[i].valid & self.sector(addr) != 0)
    }

    /// The way a line for `addr` would take in its set: an invalid way, else the replacement
    /// victim.
    fn victim(&self, addr: u64) -> usize {
        let range = self.set_range(addr);
        range
            .clone()
            .find(|&i| self.ways[i].valid == 0)
            .unwrap_or_else(|| {
                range
                    .min_by_key(|&i| self.ways[i].stamp)
                    .unwrap_or_default()
            })
    }

    /// Allocate a line for `addr` in its set ([`TagArray::victim`]).
    fn allocate(&mut self, addr: u64) -> (usize, Option<Eviction>) {
        let i = self.victim(addr);
        let old = self.ways[i];
        let evicted = (old.valid != 0).then(|| Eviction {
            addr: old.tag << self.line_bits,
            dirty: old.dirty,
        });
        if old.valid != 0 {
            self.index.remove(&old.tag);
        }
        self.index.insert(addr >> self.line_bits, i);
        self.ways[i] = Way {
            tag: addr >> self.line_bits,
            valid: 0,
            dirty: 0,
            stamp: self.clock,
        };
        (i, evicted)
    }

    /// Install `addr`'s whole line, every sector valid and clean (a prefetched line filling
    /// the cache): a present line gets its missing sectors and is touched; otherwise a line is
    /// allocated as a read miss allocates one, and its victim (if valid) is returned.
    pub fn install(&mut self, addr: u64) -> Option<Eviction> {
        self.clock += 1;
        let all = match self.cfg.kind {
            CacheKind::Line => 1,
            CacheKind::Sector => 0xf,
        };
        if let Some(i) = self.find(addr) {
            self.ways[i].valid = all;
            self.touch(i);
            return None;
        }
        let (i, evicted) = self.allocate(addr);
        self.ways[i].valid = all;
        evicted
    }

    /// Whether installing `addr`'s line would evict a line with dirty sectors (a probe).
    pub fn install_evicts_dirty(&self, addr: u64) -> bool {
        self.find(addr).is_none() && {
            let w = &self.ways[self.victim(addr)];
            w.valid != 0 && w.dirty != 0
        }
    }

    /// Invalidate every line, dirty ones included, without writing them back (GPGPU-Sim's
    /// `tag_array::invalidate`); `each` sees the address of every line that was valid. Costs
    /// nothing when no line is.
    pub fn invalidate_all(&mut self, mut each: impl FnMut(u64)) {
        for (&tag, &i) in &self.index {
            if self.ways[i].valid != 0 {
                each(tag << self.line_bits);
            }
            self.ways[i] = Way::default();
        }
        self.index.clear();
    }

    fn touch(&mut self, i: usize) {
        if self.cfg.replacement == CacheReplacement::Lru {
            self.ways[i].stamp = self.clock;
        }
    }

    /// One request (that fits in one sector, or one line of a line cache).
    pub fn access(&mut self, addr: u64, write: bool) -> Result<Access, CacheError> {
        self.clock += 1;
        let s = self.sector(addr);
        let policy = self.cfg.write;
        if write && policy == WritePolicy::ReadOnly {
            return Err(CacheError::WriteToReadOnly(addr));
        }
        let write_back = policy == WritePolicy::WriteBack;
        let found = self.find(addr);
        if !write {
            return Ok(Access {
                outcome: match found {
                    Some(i) if self.ways[i].valid & s != 0 => {
                        self.touch(i);
                        Outcome::Hit
                    }
                    Some(i) => {
                        self.ways[i].valid |= s;
                        self.touch(i);
                        Outcome::SectorMiss { fetch: true }
                    }
                    None => {
                        let (i, evicted) = self.allocate(addr);
                        self.ways[i].valid = s;
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
        if let Some(i) = found {
            let hit = self.ways[i].valid & s != 0;
            let missed = Outcome::SectorMiss { fetch: false };
            if policy == WritePolicy::WriteEvict {
                self.index.remove(&self.ways[i].tag);
                self.ways[i] = Way::default();
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
            self.ways[i].valid |= s;
            if write_back {
                self.ways[i].dirty |= s;
            }
            self.touch(i);
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
        let (i, evicted) = self.allocate(addr);
        self.ways[i].valid = s;
        if write_back {
            self.ways[i].dirty = s;
        }
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

#[cfg(test)]
#[path = "cache_tests.rs"]
mod cache_tests;
