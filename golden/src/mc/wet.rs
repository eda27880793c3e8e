//! The warp entry table of seed 004 (WET): pending requests per global warp id, as the
//! Warped-MC blocks and Div-First read it.

use spec::WarpedMcSpec;

/// A warp entry table: pending requests per global warp id, saturating at both ends. A cycle's
/// changes are first staged ([`Wet::stage`]: decisions of that cycle still read the old
/// values, the table updates read the staged ones) and then committed ([`Wet::commit`]).
///
/// Every block of a WET scope holds a copy, as the RTL does; the copies take the same events
/// and so hold the same values. The memory system therefore keeps one per scope and passes it
/// to the blocks ([`step_shared`], [`absorb_shared`]); a co-simulated block keeps its own.
///
/// [`step_shared`]: super::warped::WarpedMc::step_shared
/// [`absorb_shared`]: super::warped::WarpedMc::absorb_shared
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Wet {
    v: Vec<u32>,
    max: i64,
    /// The staged changes: (warp id, value after this cycle).
    next: Vec<(u32, i64)>,
    /// The changes of the last commit: (warp id, value before it).
    prev: Vec<(u32, u32)>,
}

impl Wet {
    pub fn new(spec: &WarpedMcSpec) -> Wet {
        Wet {
            v: vec![0; spec.wet_entries as usize],
            max: i64::from(spec.pending_max),
            next: Vec::new(),
            prev: Vec::new(),
        }
    }

    /// Pending requests of a global warp id (the committed value).
    #[inline]
    pub fn get(&self, gwid: u32) -> u32 {
        self.v[gwid as usize]
    }

    /// Stage one cycle's changes: `sum` is the change per warp id (enqueues minus services of
    /// the scope, summed per warp id, each id once); the values saturate at both ends.
    pub fn stage(&mut self, sum: &[(u32, i64)]) {
        self.next.clear();
        let (v, max) = (&self.v, self.max);
        self.next.extend(
            sum.iter()
                .map(|&(g, d)| (g, (i64::from(v[g as usize]) + d).clamp(0, max))),
        );
    }

    /// The committed values, by global warp id.
    pub fn values(&self) -> &[u32] {
        &self.v
    }

    /// Add one event's change `d` of warp id `gwid` to a cycle's change per warp id (each id
    /// once), as [`Wet::stage`] takes it.
    pub fn add(sum: &mut Vec<(u32, i64)>, gwid: u32, d: i64) {
        match sum.iter_mut().find(|(h, _)| *h == gwid) {
            Some(x) => x.1 += d,
            None => sum.push((gwid, d)),
        }
    }

    /// Whether the staged cycle changes nothing.
    pub fn quiet(&self) -> bool {
        self.next.is_empty()
    }

    /// Whether the staged cycle leaves some warp id with exactly one pending request (only
    /// then can a service raise a row score).
    #[inline]
    pub fn leaves_one(&self) -> bool {
        self.next.iter().any(|d| d.1 == 1)
    }

    /// The staged value of a warp id, if this cycle changes it.
    #[inline]
    pub fn staged(&self, gwid: u32) -> Option<i64> {
        self.next.iter().find(|(h, _)| *h == gwid).map(|d| d.1)
    }

    /// A warp id's value before the last commit.
    #[inline]
    pub(super) fn before(&self, gwid: u32) -> u32 {
        self.prev
            .iter()
            .find(|(g, _)| *g == gwid)
            .map_or(self.v[gwid as usize], |p| p.1)
    }

    /// Apply the staged changes.
    pub fn commit(&mut self) {
        self.prev.clear();
        let v = &mut self.v;
        self.prev
            .extend(self.next.iter().map(|&(g, _)| (g, v[g as usize])));
        for &(g, n) in &self.next {
            v[g as usize] = n as u32;
        }
        self.next.clear();
    }
}
