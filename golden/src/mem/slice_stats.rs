//! What a cache slice counts: the kinds of access (GPGPU-Sim's access types), the causes of a
//! refused access, and the counters by kind and cause ([`SliceStats`]), apart from the slice
//! ([`super::slice`]) that counts them.

use super::mshr::Refusal;
use serde::Serialize;
use std::collections::BTreeMap;

/// The kind of an access, as the statistics count them (GPGPU-Sim's access types): an SM's L1
/// sees global and local reads and writes; an L2 slice sees reads (an L1 miss's fetch, or a
/// read that bypassed the L1), writes (written-through data, atomics and reductions) and
/// prefetches.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum AccessKind {
    GlobalRead,
    GlobalWrite,
    LocalRead,
    LocalWrite,
    Read,
    Write,
    Prefetch,
}

impl AccessKind {
    /// Every kind, in order (the order of [`SliceStats::by_kind`]).
    pub const ALL: [AccessKind; 7] = [
        AccessKind::GlobalRead,
        AccessKind::GlobalWrite,
        AccessKind::LocalRead,
        AccessKind::LocalWrite,
        AccessKind::Read,
        AccessKind::Write,
        AccessKind::Prefetch,
    ];

    /// A plain read or write (an L2 request, or a test's).
    pub fn of(write: bool) -> AccessKind {
        if write {
            AccessKind::Write
        } else {
            AccessKind::Read
        }
    }

    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            AccessKind::GlobalRead => "global reads",
            AccessKind::GlobalWrite => "global writes",
            AccessKind::LocalRead => "local reads",
            AccessKind::LocalWrite => "local writes",
            AccessKind::Read => "reads",
            AccessKind::Write => "writes",
            AccessKind::Prefetch => "prefetches",
        }
    }
}

/// A slice's counters of one kind of access.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct KindStats {
    pub accesses: u64,
    pub hits: u64,
    /// Merged into the MSHR entry of a line or sector being fetched (GPGPU-Sim's hit-reserved).
    pub mshr_merges: u64,
    pub sector_misses: u64,
    pub misses: u64,
    /// Cycles it was refused at the head of the input queue (any cause).
    pub reservation_failures: u64,
}

impl SliceStats {
    /// Whether the counts by kind add up to the totals, every kind being one of `kinds`
    /// (for checks); the first difference otherwise.
    pub fn kinds_add_up(&self, kinds: &[AccessKind]) -> Result<(), String> {
        let mut sum = KindStats::default();
        for (k, v) in &self.by_kind {
            if !kinds.contains(k) {
                return Err(format!("an access of kind {k:?}"));
            }
            sum.add(v);
        }
        let totals = KindStats {
            accesses: self.accesses,
            hits: self.hits,
            mshr_merges: self.mshr_merges,
            sector_misses: self.sector_misses,
            misses: self.misses,
            reservation_failures: self.reservation_failures.values().sum(),
        };
        if sum == totals {
            Ok(())
        } else {
            Err(format!("by kind {sum:?}, in total {totals:?}"))
        }
    }
}

impl KindStats {
    fn add(&mut self, x: &KindStats) {
        self.accesses += x.accesses;
        self.hits += x.hits;
        self.mshr_merges += x.mshr_merges;
        self.sector_misses += x.sector_misses;
        self.misses += x.misses;
        self.reservation_failures += x.reservation_failures;
    }

    fn since(&self, e: &KindStats) -> KindStats {
        KindStats {
            accesses: self.accesses - e.accesses,
            hits: self.hits - e.hits,
            mshr_merges: self.mshr_merges - e.mshr_merges,
            sector_misses: self.sector_misses - e.sector_misses,
            misses: self.misses - e.misses,
            reservation_failures: self.reservation_failures - e.reservation_failures,
        }
    }
}

/// Why the slice could not take the head request this cycle.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, schemars::JsonSchema,
)]
pub enum Stall {
    MshrEntriesFull,
    MshrMergeFull,
    MissQueueFull,
}

impl Stall {
    /// Every cause, in order (the order of [`SliceStats::reservation_failures`]).
    pub const ALL: [Stall; 3] = [
        Stall::MshrEntriesFull,
        Stall::MshrMergeFull,
        Stall::MissQueueFull,
    ];

    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Stall::MshrEntriesFull => "MSHR entries full",
            Stall::MshrMergeFull => "MSHR merges full",
            Stall::MissQueueFull => "miss queue full",
        }
    }
}

impl From<Refusal> for Stall {
    fn from(r: Refusal) -> Stall {
        match r {
            Refusal::MergeFull => Stall::MshrMergeFull,
            Refusal::EntriesFull => Stall::MshrEntriesFull,
        }
    }
}

/// Counters of a slice.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SliceStats {
    pub accesses: u64,
    pub hits: u64,
    pub sector_misses: u64,
    pub misses: u64,
    pub mshr_merges: u64,
    pub writebacks: u64,
    /// Cycles the head request was refused, by cause (every cause in reports, zero or not).
    #[serde(serialize_with = "every_stall")]
    #[schemars(with = "ByStall")]
    pub reservation_failures: BTreeMap<Stall, u64>,
    /// The same counts by kind of access (the kinds seen; every kind in reports).
    #[serde(serialize_with = "every_kind")]
    #[schemars(with = "ByKind")]
    pub by_kind: BTreeMap<AccessKind, KindStats>,
}

/// A map by key, reported with every key of `all` (those absent as zero): a report's keys do
/// not depend on what the run did.
fn every<K, V, S>(map: &BTreeMap<K, V>, all: &[K], s: S) -> Result<S::Ok, S::Error>
where
    K: Serialize + Ord,
    V: Serialize + Default + Copy,
    S: serde::Serializer,
{
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(all.len()))?;
    for k in all {
        m.serialize_entry(k, &map.get(k).copied().unwrap_or_default())?;
    }
    m.end()
}

fn every_stall<S: serde::Serializer>(m: &BTreeMap<Stall, u64>, s: S) -> Result<S::Ok, S::Error> {
    every(m, &Stall::ALL, s)
}

fn every_kind<S: serde::Serializer>(
    m: &BTreeMap<AccessKind, KindStats>,
    s: S,
) -> Result<S::Ok, S::Error> {
    every(m, &AccessKind::ALL, s)
}

/// The schema of [`SliceStats::reservation_failures`] as reported: one count per cause.
#[allow(dead_code)]
#[derive(schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
struct ByStall {
    #[serde(rename = "MshrEntriesFull")]
    mshr_entries_full: u64,
    #[serde(rename = "MshrMergeFull")]
    mshr_merge_full: u64,
    #[serde(rename = "MissQueueFull")]
    miss_queue_full: u64,
}

/// The schema of [`SliceStats::by_kind`] as reported: the counts of every kind.
#[allow(dead_code)]
#[derive(schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
struct ByKind {
    global_read: KindStats,
    global_write: KindStats,
    local_read: KindStats,
    local_write: KindStats,
    read: KindStats,
    write: KindStats,
    prefetch: KindStats,
}

/// The slice.
impl SliceStats {
    /// Add `x`'s counts (several caches' totals).
    pub fn add(&mut self, x: &SliceStats) {
        self.accesses += x.accesses;
        self.hits += x.hits;
        self.sector_misses += x.sector_misses;
        self.misses += x.misses;
        self.mshr_merges += x.mshr_merges;
        self.writebacks += x.writebacks;
        for (k, v) in &x.reservation_failures {
            *self.reservation_failures.entry(*k).or_insert(0) += v;
        }
        for (k, v) in &x.by_kind {
            self.by_kind.entry(*k).or_default().add(v);
        }
    }

    /// The counts since `earlier` (an earlier copy of these counters).
    pub fn since(&self, earlier: &SliceStats) -> SliceStats {
        let mut failures = self.reservation_failures.clone();
        for (k, v) in failures.iter_mut() {
            *v -= earlier.reservation_failures.get(k).copied().unwrap_or(0);
        }
        failures.retain(|_, v| *v > 0);
        let mut by_kind = self.by_kind.clone();
        for (k, v) in by_kind.iter_mut() {
            *v = v.since(&earlier.by_kind.get(k).copied().unwrap_or_default());
        }
        by_kind.retain(|_, v| *v != KindStats::default());
        SliceStats {
            by_kind,
            accesses: self.accesses - earlier.accesses,
            hits: self.hits - earlier.hits,
            sector_misses: self.sector_misses - earlier.sector_misses,
            misses: self.misses - earlier.misses,
            mshr_merges: self.mshr_merges - earlier.mshr_merges,
            writebacks: self.writebacks - earlier.writebacks,
            reservation_failures: failures,
        }
    }
}
