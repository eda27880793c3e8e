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
        members128(v.candidates())
            .filter(|&w| v.ready(w))
            .min_by_key(|&w| v.warp(w).map_or(u64::MAX, |x| x.age))
    }

    fn issued(&mut self, w: usize) {
        self.last = Some(w);
    }
}
