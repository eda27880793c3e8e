//! Loose round robin (`lrr`): from the warp after the last one issued, round the scheduler's
//! warps.

use super::{Ready, WarpScheduler};
use crate::bitset::{from128, members128};

#[derive(Debug, Clone, Default)]
pub struct Lrr {
    /// The warp slot its search starts from: the one after the slot it issued from last
    /// (0 before it has issued).
    next: usize,
}

impl WarpScheduler for Lrr {
    const NAME: &'static str = "lrr";

    #[inline]
    fn pick(&mut self, v: &Ready<'_>) -> Option<usize> {
        let own = v.candidates();
        let from = from128(self.next);
        members128(own & from)
            .chain(members128(own & !from))
            .find(|&w| v.ready(w))
    }

    fn issued(&mut self, w: usize) {
        self.next = w + 1;
    }
}
