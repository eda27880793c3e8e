//! Lowest slot first (`lowest-first`, tests only): the ready warp in the lowest warp slot. It
//! exists to show what adding a policy takes (this file and its line in the registry) and that
//! the tests over every registered policy run it.

use super::{Ready, WarpScheduler};
use crate::bitset::members128;

#[derive(Debug, Clone, Default)]
pub struct LowestFirst;

impl WarpScheduler for LowestFirst {
    const NAME: &'static str = "lowest-first";

    fn pick(&mut self, v: &Ready<'_>) -> Option<usize> {
        members128(v.candidates()).find(|&w| v.ready(w))
    }

    fn issued(&mut self, _: usize) {}
}
