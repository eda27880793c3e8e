//! Greedy then oldest (`gto`): the warp issued last while it can issue, else the oldest ready
//! warp (by launch order on the SM).

use super::{Ready, WarpScheduler};
use crate::bitset::members128;

#[derive(Debug, Clone, Default)]
pub struct Gto {
    /// The warp slot it issued from last.
    last: Option<usize>,
}

impl WarpScheduler for Gto {
    const NAME: &'static str = "gto";

    #[inline]
    fn pick(&mut self, v: &Ready<'_>) -> Option<usize> {
        if let Some(w) = self.last.filter(|&w| v.ready(w)) {
            return Some(w);
        }
        oldest_ready(v, |_| true)
    }

    fn issued(&mut self, w: usize) {
        self.last = Some(w);
    }
}

/// The oldest (by launch order on the SM) of `v`'s ready warps that `admitted` lets issue: GTO's
/// second choice, and the choice of the policies that narrow it (`cta-aware`, `programmable`).
#[inline]
pub(super) fn oldest_ready(v: &Ready<'_>, admitted: impl Fn(usize) -> bool) -> Option<usize> {
    members128(v.candidates())
        .filter(|&w| admitted(w) && v.ready(w))
        .min_by_key(|&w| v.warp(w).map_or(u64::MAX, |x| x.age))
}
