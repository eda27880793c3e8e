//! CTA-aware (`cta-aware`): the warp-scheduling rule of Jeon et al.'s CTA-aware prefetching,
//! which seed 000's CTA-aware predictor runs with (decision OT-12). A block's leading warp
//! (its warp 0) names the block's base addresses, so every ready leading warp issues before
//! any other warp, the oldest first; the other warps are scheduled greedy then oldest.

use super::gto::{oldest_ready, Gto};
use super::{Ready, WarpScheduler};

#[derive(Debug, Clone, Default)]
pub struct CtaAware {
    /// How the trailing warps are scheduled.
    trailing: Gto,
}

impl WarpScheduler for CtaAware {
    const NAME: &'static str = "cta-aware";

    fn pick(&mut self, v: &Ready<'_>) -> Option<usize> {
        let leading = |w: usize| v.warp(w).is_some_and(|x| x.in_block == 0);
        oldest_ready(v, leading).or_else(|| self.trailing.pick(v))
    }

    fn issued(&mut self, w: usize) {
        self.trailing.issued(w);
    }
}
