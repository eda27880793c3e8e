//! The tag array against a reference cache written independently here: per set a list of
//! lines in replacement order (least recently used, or oldest filled, first), each a map of
//! sector states. Same geometry, set index, replacement and write policy; the sequences of
//! outcomes (hit, sector miss, miss, what is fetched and evicted with which dirty sectors) must
//! be identical over random and strided traffic, for every reference configuration's L2 and L1
//! string. A deliberately wrong tag array (LRU that does not move a used line) is caught.

use super::*;
use crate::mem::slice::{AccessKind, Served};
use crate::rng::Rng;
use std::collections::HashMap;

#[derive(Clone)]
struct RefLine {
    line: u64,
    /// sector -> dirty
    sectors: HashMap<u64, bool>,
}

/// The reference: a map from set to its lines in replacement order.
struct RefCache {
    cfg: CacheString,
    sets: HashMap<u32, Vec<RefLine>>,
}

impl RefCache {
    fn sector_of(&self, addr: u64) -> u64 {
        if self.cfg.kind == CacheKind::Sector {
            (addr % 128) / 32
        } else {
            0
        }
    }

    fn dirty_mask(l: &RefLine) -> u8 {
        l.sectors
            .iter()
            .filter(|(_, &d)| d)
            .map(|(&s, _)| 1u8 << s)
            .sum()
    }

    /// Put a new line for `addr` at the back, evicting the front if the set is full.
    fn fill(&mut self, addr: u64) -> Option<Eviction> {
        let lb = u64::from(self.cfg.line_bytes);
        let ways = self.cfg.ways as usize;
        let set = self.sets.entry(self.cfg.set_of(addr)).or_default();
        let evicted = (set.len() == ways).then(|| {
            let v = set.remove(0);
            Eviction {
                addr: v.line * lb,
                dirty: Self::dirty_mask(&v),
            }
        });
        set.push(RefLine {
            line: addr / lb,
            sectors: HashMap::new(),
        });
        evicted
    }

    fn access(&mut self, addr: u64, write: bool) -> Access {
        let lb = u64::from(self.cfg.line_bytes);
        let sector = self.sector_of(addr);
        let lru = self.cfg.replacement == CacheReplacement::Lru;
        let policy = self.cfg.write;
        let wa = self.cfg.write_allocate;
        let set_id = self.cfg.set_of(addr);
        let set = self.sets.entry(set_id).or_default();
        let pos = set.iter().position(|l| l.line == addr / lb);
        let back = |set: &mut Vec<RefLine>, p: usize| {
            if lru {
                let l = set.remove(p);
                set.push(l);
            }
        };
        let wb = policy == WritePolicy::WriteBack;
        match (pos, write) {
            (Some(p), false) => {
                let had = set[p].sectors.contains_key(&sector);
                set[p].sectors.entry(sector).or_insert(false);
                back(set, p);
                Access {
                    outcome: if had {
                        Outcome::Hit
                    } else {
                        Outcome::SectorMiss { fetch: true }
                    },
                    write_through: false,
                }
            }
            (None, false) => {
                let evicted = self.fill(addr);
                let set = self.sets.get_mut(&set_id).unwrap();
                set.last_mut().unwrap().sectors.insert(sector, false);
                Access {
                    outcome: Outcome::Miss {
                        allocated: true,
                        fetch: true,
                        evicted,
                    },
                    write_through: false,
                }
            }
            (Some(p), true) => {
                let had = set[p].sectors.contains_key(&sector);
                if policy == WritePolicy::WriteEvict {
                    set.remove(p);
                    return Access {
                        outcome: if had {
                            Outcome::Hit
                        } else {
                            Outcome::SectorMiss { fetch: false }
                        },
                        write_through: true,
                    };
                }
                if !had && wa == WriteAllocate::No {
                    return Access {
                        outcome: Outcome::SectorMiss { fetch: false },
                        write_through: true,
                    };
                }
                let d = set[p].sectors.entry(sector).or_insert(false);
                *d |= wb;
                back(set, p);
                Access {
                    outcome: if had {
                        Outcome::Hit
                    } else {
                        Outcome::SectorMiss {
                            fetch: matches!(wa, WriteAllocate::Naive | WriteAllocate::FetchOnWrite),
                        }
                    },
                    write_through: !wb,
                }
            }
            (None, true) => {
                if wa == WriteAllocate::No || policy == WritePolicy::WriteEvict {
                    return Access {
                        outcome: Outcome::Miss {
                            allocated: false,
                            fetch: false,
                            evicted: None,
                        },
                        write_through: true,
                    };
                }
                let evicted = self.fill(addr);
                let set = self.sets.get_mut(&set_id).unwrap();
                set.last_mut().unwrap().sectors.insert(sector, wb);
                Access {
                    outcome: Outcome::Miss {
                        allocated: true,
                        fetch: wa != WriteAllocate::LazyFetchOnRead,
                        evicted,
                    },
                    write_through: !wb,
                }
            }
        }
    }
}

/// Every cache string of the reference configurations' L1 and L2 (and variants of the
/// policies the references do not use).
const STRINGS: &[&str] = &[
    "S:64:128:16,L:B:m:L:P,A:192:4,32:0,32",
    "S:32:128:24,L:B:m:L:P,A:192:4,32:0,32",
    "S:64:128:8,L:B:m:L:L,A:256:4,4:0,32",
    "64:128:8,L:B:m:W,A:32:4,4:0,32",
    "N:32:128:4,L:L:m:N:H,S:64:8,8",
    "S:4:128:64,L:T:m:L:L,A:512:8,16:0,32",
    "32:128:4,L:L:m:N,A:32:8,8",
    "N:16:128:4,F:B:m:F:X,A:8:4,4",
    "N:32:64:2,L:E:m:N:L,A:8:4,4",
    "S:16:128:2,F:T:m:W:P,A:8:4,4",
];

/// `n` accesses: random over four times the cache, or strided, 20 % writes.
fn traffic(cfg: &CacheString, strided: bool, n: usize, seed: u64) -> Vec<(u64, bool)> {
    let mut rng = Rng::new(seed);
    let span = cfg.size_bytes() * 4;
    let mut addr = 0u64;
    let stride = [32u64, 128, 4096, 128 * u64::from(cfg.sets)][seed as usize % 4];
    (0..n)
        .map(|_| {
            let a = if strided {
                addr = (addr + stride) % (span * 2);
                addr
            } else {
                rng.below(span) & !31
            };
            (a, rng.chance(200))
        })
        .collect()
}

fn compare(cfg: CacheString, mut t: TagArray, strided: bool, seed: u64) -> Result<(), String> {
    let mut r = RefCache {
        cfg,
        sets: HashMap::new(),
    };
    for (k, (a, w)) in traffic(&cfg, strided, 100_000, seed)
        .into_iter()
        .enumerate()
    {
        let got = t.access(a, w).map_err(|e| e.to_string())?;
        let want = r.access(a, w);
        if got != want {
            return Err(format!(
                "{cfg}: access {k} ({a:#x}, write {w}): {got:?} vs {want:?}"
            ));
        }
    }
    Ok(())
}

#[test]
fn the_tag_array_agrees_with_a_reference_cache() {
    for s in STRINGS {
        let cfg = CacheString::parse(s).unwrap().unwrap();
        for (strided, seed) in [(false, 1), (true, 2), (true, 3), (false, 4)] {
            compare(cfg, TagArray::new(cfg), strided, seed).unwrap();
        }
    }
}

#[test]
fn a_wrong_victim_is_caught() {
    // A deliberately wrong tag array: a use does not make a line the most recently used, so
    // its LRU replacement is FIFO.
    let cfg = CacheString::parse(STRINGS[0]).unwrap().unwrap();
    assert_eq!(cfg.replacement, spec::cache::CacheReplacement::Lru);
    let mut wrong = TagArray::new(cfg);
    wrong.lax_lru = true;
    let mut r = RefCache {
        cfg,
        sets: HashMap::new(),
    };
    let mut differ = false;
    for (a, w) in traffic(&cfg, false, 100_000, 1) {
        differ |= wrong.access(a, w).unwrap() != r.access(a, w);
    }
    assert!(differ, "the reference does not tell LRU from FIFO");
}

#[test]
fn a_read_only_cache_refuses_writes() {
    let cfg = CacheString::parse("N:4:128:4,L:R:f:N:L,S:2:32,4")
        .unwrap()
        .unwrap();
    let mut t = TagArray::new(cfg);
    assert_eq!(t.access(0x80, true), Err(CacheError::WriteToReadOnly(0x80)));
    assert!(matches!(
        t.access(0x80, false).unwrap().outcome,
        Outcome::Miss { .. }
    ));
    assert!(t.holds(0x80));
}

/// What the slice must do for one access, from the reference's outcome: who answers it, and
/// the requests it sends to the next level (write-back of a dirty victim, written data, the
/// fetch), in that order.
fn slice_expects(
    cfg: &CacheString,
    a: u64,
    w: bool,
    x: &Access,
) -> (Served, Vec<(u64, bool, u32)>) {
    let unit = if cfg.kind == CacheKind::Sector {
        32
    } else {
        cfg.line_bytes
    };
    let mut sent = Vec::new();
    let fetch = match x.outcome {
        Outcome::Hit => false,
        Outcome::SectorMiss { fetch } => fetch,
        Outcome::Miss { fetch, evicted, .. } => {
            if let Some(e) = evicted.filter(|e| e.dirty != 0) {
                let bytes = if cfg.kind == CacheKind::Sector {
                    e.dirty.count_ones() * 32
                } else {
                    cfg.line_bytes
                };
                sent.push((e.addr, true, bytes));
            }
            fetch
        }
    };
    if x.write_through {
        sent.push((a, true, 32));
    }
    if fetch {
        sent.push((a / u64::from(unit) * u64::from(unit), false, unit));
    }
    let by = if fetch && !w {
        Served::NextLevel
    } else {
        Served::Slice
    };
    (by, sent)
}

#[test]
fn the_slice_agrees_with_the_reference_cache_one_request_at_a_time() {
    // One request at a time through the streaming slice (fills arrive at once): who answers
    // each request and what goes to the next level follow the reference's outcomes exactly,
    // for every reference L2 string (and the rest of the strings).
    use crate::mem::slice::{Slice, SliceRequest};
    use crate::stream::Offer;
    for s in STRINGS {
        let cfg = CacheString::parse(s).unwrap().unwrap();
        for (strided, seed) in [(false, 5), (true, 6)] {
            let mut r = RefCache {
                cfg,
                sets: HashMap::new(),
            };
            let mut sl: Slice<usize> = Slice::new(cfg, 0, 1);
            for (k, (a, w)) in traffic(&cfg, strided, 100_000, seed)
                .into_iter()
                .enumerate()
            {
                let want = slice_expects(&cfg, a, w, &r.access(a, w));
                let req = SliceRequest {
                    addr: a,
                    write: w,
                    payload: k,
                    kind: AccessKind::of(w),
                };
                assert_eq!(sl.offer(req), Offer::Accepted);
                sl.cycle();
                let mut sent = Vec::new();
                while let Some(f) = sl.pop_fetch() {
                    if !f.write {
                        sl.fill(f.addr);
                    }
                    sent.push((f.addr, f.write, f.bytes));
                }
                let got = sl.pop_answer();
                assert_eq!(got.map(|g| g.0), Some(k), "{s}: access {k} answered");
                assert_eq!(
                    (got.map(|g| g.1).unwrap(), sent),
                    want,
                    "{s}: access {k} ({a:#x}, write {w})"
                );
                assert!(sl.quiet(), "{s}: access {k} left work behind");
            }
        }
    }
}

/// A prefetched line installed whole: a present line gets every sector and is touched (so it is
/// not the next victim); a new one takes the set's victim, which is reported with its dirty
/// sectors, and `install_evicts_dirty` says so beforehand (and only then).
#[test]
fn an_installed_line_takes_the_victim_and_reports_a_dirty_one() {
    // One set of two ways, 128 B lines of four sectors, write-back.
    let cfg = CacheString::parse("S:1:128:2,L:B:m:W:L,A:4:4,4:0,32")
        .unwrap()
        .unwrap();
    let mut t = TagArray::new(cfg);
    t.access(0x000, true).unwrap(); // line 0, sector 0 dirty
    t.access(0x080, false).unwrap(); // line 1, clean
    assert!(!t.install_evicts_dirty(0x000), "present");
    assert_eq!(t.install(0x000), None);
    assert!((0..4).all(|s| t.holds(s * 32)), "every sector valid");
    // Line 0 was touched last: line 1 (clean) is the victim.
    assert!(!t.install_evicts_dirty(0x100));
    let e = t.install(0x100).unwrap();
    assert_eq!((e.addr, e.dirty), (0x080, 0));
    // Now line 0 (dirty) is the least recently used.
    assert!(t.install_evicts_dirty(0x180));
    let e = t.install(0x180).unwrap();
    assert_eq!((e.addr, e.dirty), (0x000, 1));
    assert!(t.holds(0x1a0) && !t.holds(0x000));
}

/// Invalidating drops every line, dirty ones without a write-back, names each line that was
/// valid, and leaves the array as a new one: the next accesses miss as they first did.
#[test]
fn invalidating_drops_every_line() {
    let cfg = spec::cache::CacheString::parse("S:4:128:4,L:B:m:W:L,A:8:4,8:0,32")
        .unwrap()
        .unwrap();
    let mut t = TagArray::new(cfg);
    let addrs = [0x0u64, 0x80, 0x1000, 0x1040, 0x2000];
    let mut first = Vec::new();
    for &a in &addrs {
        first.push(format!("{:?}", t.access(a, a == 0x1000).unwrap()));
    }
    let mut left = Vec::new();
    t.invalidate_all(|l| left.push(l));
    left.sort_unstable();
    assert_eq!(left, vec![0x0, 0x80, 0x1000, 0x2000]);
    let mut again = Vec::new();
    for &a in &addrs {
        again.push(format!("{:?}", t.access(a, a == 0x1000).unwrap()));
    }
    assert_eq!(again, first, "after invalidation, as a new array");
    let mut none = Vec::new();
    let mut fresh = TagArray::new(cfg);
    fresh.invalidate_all(|l| none.push(l));
    assert!(none.is_empty());
}

/// A host copy's sector fill (decision MEM-24): in a sector cache only the copied sector is
/// valid (a read of another is a sector miss); a present line gains the sector, keeps its dirty
/// bits and becomes the most recently used; a missing line takes the set's LRU victim, which is
/// returned with its dirty sectors (the copy drops them). In a line cache the whole line is
/// valid.
#[test]
fn a_copied_sector_is_filled_clean_and_its_line_made_most_recent() {
    // One set of two ways, 128 B lines of four sectors, write-back.
    let sector = CacheString::parse("S:1:128:2,L:B:m:W:L,A:4:4,4:0,32")
        .unwrap()
        .unwrap();
    let mut t = TagArray::new(sector);
    assert_eq!(t.fill_copied(0x020), None, "an empty way");
    assert!(t.holds(0x020) && !t.holds(0x000) && !t.holds(0x040));
    let read = t.access(0x000, false).unwrap();
    assert_eq!(read.outcome, Outcome::SectorMiss { fetch: true });
    // Line 1, sector 0 dirty, most recent; then copying into line 0 makes line 0 the most
    // recent and line 1 the victim.
    t.access(0x080, true).unwrap();
    assert_eq!(t.fill_copied(0x060), None);
    assert!(t.holds(0x060));
    let e = t.fill_copied(0x100).unwrap();
    assert_eq!((e.addr, e.dirty), (0x080, 1), "dirty victim returned");
    assert!(t.holds(0x100) && !t.holds(0x120) && !t.holds(0x080));
    // A copied sector of a line with a dirty sector leaves that sector dirty.
    t.access(0x000, true).unwrap();
    t.fill_copied(0x040);
    let e = t.fill_copied(0x200).unwrap();
    assert_eq!((e.addr, e.dirty), (0x100, 0), "line 0 was used last");
    let e = t.fill_copied(0x280).unwrap();
    assert_eq!((e.addr, e.dirty), (0x000, 1), "its dirty sector kept");

    // A line cache: the line whole.
    let line = CacheString::parse("N:1:128:2,L:B:m:W:L,A:4:4,4:0,32")
        .unwrap()
        .unwrap();
    let mut t = TagArray::new(line);
    t.fill_copied(0x0a0);
    assert!((0..4).all(|s| t.holds(0x080 + s * 32)));
    assert_eq!(t.access(0x080, false).unwrap().outcome, Outcome::Hit);
}
