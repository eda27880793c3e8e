//! Loose round robin (`lrr`): from the warp after the last one issued, round the scheduler's
//! warps.

use super::{Ready, WarpScheduler};
use crate::bitset::{from128, members128};
use spec::GpuSpec;

#[derive(Debug, Clone, Default)]
pub struct Lrr {
    /// The warp slot it issued from last.
    last: Option<usize>,
}

impl WarpScheduler for Lrr {
    const NAME: &'static str = "lrr";

    fn new(_: &GpuSpec, _: usize) -> Lrr {
        Lrr::default()
    }

    #[inline]
    fn pick(&mut self, v: &Ready<'_>) -> Option<usize> {
        let own = v.candidates();
        let from = from128(self.last.map_or(0, |w| w + 1));
        members128(own & from)
            .chain(members128(own & !from))
            .find(|&w| v.ready(w))
    }

    fn issued(&mut self, w: usize) {
        self.last = Some(w);
    }
}
