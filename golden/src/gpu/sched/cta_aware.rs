//! CTA-aware (`cta-aware`): the warp-scheduling rule of Jeon et al.'s CTA-aware prefetching,
//! which seed 000's CTA-aware predictor runs with (decision OT-12). A block's leading warp
//! (its warp 0) names the block's base addresses, so every ready leading warp issues before
//! any other warp, the oldest first; the other warps are scheduled greedy then oldest.

use super::gto::Gto;
use super::{Ready, WarpScheduler};
use crate::bitset::members128;

#[derive(Debug, Clone, Default)]
pub struct CtaAware {
    /// How the trailing warps are scheduled.
    trailing: Gto,
}

impl WarpScheduler for CtaAware {
    const NAME: &'static str = "cta-aware";

    fn pick(&mut self, v: &Ready<'_>) -> Option<usize> {
        members128(v.candidates())
            .filter(|&w| v.ready(w))
            .filter_map(|w| v.warp(w).filter(|x| x.in_block == 0).map(|x| (x.age, w)))
            .min()
            .map(|(_, w)| w)
            .or_else(|| self.trailing.pick(v))
    }

    fn issued(&mut self, w: usize) {
        self.trailing.issued(w);
    }
}
